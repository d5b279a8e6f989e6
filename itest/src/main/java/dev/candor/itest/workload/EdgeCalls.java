package dev.candor.itest.workload;

/**
 * Tiny compiled methods called through a megamorphic interface site, as java.util.regex calls its
 * character predicates: one thread, {@value #THREAD}, calls four {@link Op} implementations in
 * turn, so none is inlined into the loop and each is an nmethod of its own. Each {@code apply}
 * inlines {@link #check}, whose only code is a compare and a never-taken branch to an uncommon
 * trap. The trap is laid out after the return, so its debug info (scope {@code check}) is the
 * next one after every instruction of the prologue, the body and the epilogue: a walker that
 * names an interrupted pc by the next debug info blames {@code check} for nearly all of
 * {@code apply}'s time, though most of that code is {@code apply}'s own frame set-up and return.
 *
 * <p>Usage: {@code EdgeCalls SECONDS}.
 */
public final class EdgeCalls {
    public static final String THREAD = "edge-worker";
    public static final String CHECK = EdgeCalls.class.getName() + ".check";
    public static volatile int sink;

    public interface Op {
        int apply(int x);
    }

    static final class Inc implements Op {
        public int apply(int x) {
            return check(x) + 1;
        }
    }

    static final class Triple implements Op {
        public int apply(int x) {
            return check(x) * 3;
        }
    }

    static final class Flip implements Op {
        public int apply(int x) {
            return check(x) ^ 7;
        }
    }

    static final class Rotate implements Op {
        public int apply(int x) {
            return Integer.rotateLeft(check(x), 3);
        }
    }

    static int check(int x) {
        if (x == Integer.MIN_VALUE) {
            throw new IllegalArgumentException("never: " + x);
        }
        return x;
    }

    public static void main(String[] args) throws Exception {
        long endNs = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
        Op[] ops = {new Inc(), new Triple(), new Flip(), new Rotate()};
        Thread worker = new Thread(() -> {
            int acc = 1;
            int i = 0;
            while (System.nanoTime() < endNs) {
                for (int k = 0; k < 10_000; k++) {
                    i = (i + 1) & 3;
                    acc = ops[i].apply(acc) & 0x3fffffff;
                }
            }
            sink = acc;
        }, THREAD);
        worker.start();
        worker.join();
        System.out.println("workload done");
    }
}

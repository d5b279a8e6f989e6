package dev.candor.itest.stress;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Exception storm: explicit throws from deep stacks (stack traces filled), implicit null checks
 * (a SIGSEGV the JVM turns into NullPointerException), integer division by zero (SIGFPE),
 * array bounds, and exceptions rethrown through many frames, on several threads.
 * Usage: {@code ExceptionStorm SECONDS}.
 */
public final class ExceptionStorm {
    static final class Holder {
        int value = 1;
    }

    static volatile Holder maybeNull;
    static volatile int zero;
    static final int[] SMALL = new int[4];

    public static void main(String[] args) throws Exception {
        Stress s = Stress.of("exceptionstorm", args);
        AtomicLong thrown = new AtomicLong();
        s.workers(3, w -> {
            long n = 0;
            for (int i = 0; i < 200; i++) {
                try {
                    switch ((i + w) % 5) {
                        case 0 -> deep(40 + i % 60);
                        case 1 -> Stress.sink += maybeNull.value;       // implicit null check
                        case 2 -> Stress.sink += 1000 / zero;            // SIGFPE in compiled code
                        case 3 -> Stress.sink += SMALL[i % 9];                   // array bounds
                        default -> rethrow(30);
                    }
                } catch (RuntimeException | StackOverflowError e) {
                    n++;
                    Stress.sink += e.getStackTrace().length;
                }
            }
            thrown.addAndGet(n);
        });
        s.figure("exceptions", thrown.get());
        s.finish();
    }

    static int deep(int depth) {
        if (depth == 0) {
            throw new IllegalStateException("bottom");
        }
        return deep(depth - 1) + 1;
    }

    static int rethrow(int depth) {
        try {
            if (depth == 0) {
                throw new UnsupportedOperationException("x");
            }
            return rethrow(depth - 1) + 1;
        } catch (UnsupportedOperationException e) {
            if (depth % 7 == 0) {
                throw new IllegalArgumentException("wrapped at " + depth, e);
            }
            throw e;
        } catch (IllegalArgumentException e) {
            throw e;
        }
    }

    private ExceptionStorm() {
    }
}

package dev.candor.itest.workload;

/**
 * A thread, {@value #THREAD}, that recurses {@code DEPTH} frames deep through {@link #recurse} and
 * burns CPU in {@link #leaf} at the bottom: every sample's stack is DEPTH + a few frames, with
 * {@link #run} at its root. The thread gets a 256 MB stack so that interpreted and compiled frames
 * both fit.
 *
 * <p>Usage: {@code DeepStack DEPTH SECONDS}.
 */
public final class DeepStack {
    public static final String THREAD = "deep-worker";
    public static final String RECURSE = "dev.candor.itest.workload.DeepStack.recurse";
    public static final String LEAF = "dev.candor.itest.workload.DeepStack.leaf";
    public static final String ROOT = "dev.candor.itest.workload.DeepStack.run";
    public static volatile long sink;

    public static void main(String[] args) throws Exception {
        int depth = Integer.parseInt(args[0]);
        long endNs = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9);
        Thread worker = new Thread(null, () -> run(depth, endNs), THREAD, 256L << 20);
        worker.start();
        worker.join();
        System.out.println("workload done");
    }

    static void run(int depth, long endNs) {
        sink = recurse(depth, endNs);
    }

    static long recurse(int n, long endNs) {
        if (n == 0) {
            return leaf(endNs);
        }
        return recurse(n - 1, endNs) + 1;
    }

    static long leaf(long endNs) {
        long x = 0;
        while (System.nanoTime() < endNs) {
            for (int i = 0; i < 100_000; i++) {
                x = x * 6364136223846793005L + i;
            }
        }
        return x;
    }

    private DeepStack() {
    }
}

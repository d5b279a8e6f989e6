package dev.candor.itest.workload;

/**
 * A thread, {@value #THREAD}, that alternates between two recursions of the same shape: {@link #recurseA}
 * and {@link #recurseB} go {@code DEPTH} frames deep and burn CPU in {@link #leafA} / {@link #leafB} for
 * {@code SLICE_MS} each, from {@link #work} at the root. The two paths have the same frame layout at the
 * same addresses, the hardest case for callers read from the live stack after the sample (a stack whose
 * leaf is {@code leafA} has only {@code recurseA} frames under it; one that mixes the two was completed
 * wrongly). The thread gets a 256 MB stack.
 *
 * <p>Usage: {@code TwinRecursions DEPTH SECONDS SLICE_MS}.
 */
public final class TwinRecursions {
    public static final String THREAD = "twin-worker";
    public static final String ROOT = "dev.candor.itest.workload.TwinRecursions.work";
    public static final String RECURSE_A = "dev.candor.itest.workload.TwinRecursions.recurseA";
    public static final String RECURSE_B = "dev.candor.itest.workload.TwinRecursions.recurseB";
    public static final String LEAF_A = "dev.candor.itest.workload.TwinRecursions.leafA";
    public static final String LEAF_B = "dev.candor.itest.workload.TwinRecursions.leafB";
    public static volatile long sink;

    public static void main(String[] args) throws Exception {
        int depth = Integer.parseInt(args[0]);
        long endNs = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9);
        long sliceNs = Long.parseLong(args[2]) * 1_000_000L;
        Thread worker = new Thread(null, () -> work(depth, endNs, sliceNs), THREAD, 256L << 20);
        worker.start();
        worker.join();
        System.out.println("workload done");
    }

    static void work(int depth, long endNs, long sliceNs) {
        long x = 0;
        while (System.nanoTime() < endNs) {
            x += recurseA(depth, sliceNs);
            x += recurseB(depth, sliceNs);
        }
        sink = x;
    }

    static long recurseA(int n, long sliceNs) {
        if (n == 0) {
            return leafA(sliceNs);
        }
        return recurseA(n - 1, sliceNs) + 1;
    }

    static long recurseB(int n, long sliceNs) {
        if (n == 0) {
            return leafB(sliceNs);
        }
        return recurseB(n - 1, sliceNs) + 1;
    }

    static long leafA(long sliceNs) {
        long end = System.nanoTime() + sliceNs;
        long x = 0;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 10_000; i++) {
                x = x * 31 + i;
            }
        }
        return x;
    }

    static long leafB(long sliceNs) {
        long end = System.nanoTime() + sliceNs;
        long x = 0;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 10_000; i++) {
                x = x * 37 + i;
            }
        }
        return x;
    }

    private TwinRecursions() {
    }
}

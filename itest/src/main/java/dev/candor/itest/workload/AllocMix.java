package dev.candor.itest.workload;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;

/**
 * Known-answer workload for allocation profiling: {@value #THREADS} threads each alternate
 * {@link #allocateArrays} (1 kB {@code byte[]}s, about 70% of the bytes) with
 * {@link #allocatePoints} (small {@link Point} records, about 30%). Every phase is measured with
 * the thread's allocated-bytes counter (com.sun.management.ThreadMXBean), and the sums are the
 * truth: {@code arrays_bytes}, {@code points_bytes}.
 *
 * <p>Usage: {@code AllocMix TRUTH_FILE SECONDS}.
 */
public final class AllocMix {
    public static final int THREADS = 3;
    public static final String ARRAYS = AllocMix.class.getName() + ".allocateArrays";
    public static final String POINTS = AllocMix.class.getName() + ".allocatePoints";
    public static final String POINT_CLASS = Point.class.getName();

    /** The small object of the second phase. */
    public record Point(long x, long y, long z) {
    }

    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        Path truthFile = Path.of(args[0]);
        long seconds = Long.parseLong(args[1]);
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[] arrays = new long[THREADS];
        long[] points = new long[THREADS];
        Thread[] workers = new Thread[THREADS];
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        for (int t = 0; t < THREADS; t++) {
            int i = t;
            workers[t] = new Thread(() -> {
                long id = Thread.currentThread().getId();
                while (System.nanoTime() < end) {
                    long b0 = mx.getThreadAllocatedBytes(id);
                    allocateArrays(2_000);
                    long b1 = mx.getThreadAllocatedBytes(id);
                    allocatePoints(22_000);
                    long b2 = mx.getThreadAllocatedBytes(id);
                    arrays[i] += b1 - b0;
                    points[i] += b2 - b1;
                }
            }, "alloc-worker-" + t);
            workers[t].start();
        }
        long a = 0, p = 0;
        for (int t = 0; t < THREADS; t++) {
            workers[t].join();
            a += arrays[t];
            p += points[t];
        }
        new Truth().put("arrays_bytes", a).put("points_bytes", p).write(truthFile);
        System.out.println("workload done");
    }

    static void allocateArrays(int n) {
        for (int i = 0; i < n; i++) {
            sink = new byte[1024];
        }
    }

    static void allocatePoints(int n) {
        for (int i = 0; i < n; i++) {
            sink = new Point(i, i, i);
        }
    }

    private AllocMix() {
    }
}

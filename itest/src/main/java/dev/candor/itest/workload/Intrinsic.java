package dev.candor.itest.workload;

import java.util.zip.CRC32;

/**
 * Intrinsic-heavy workload for the own stack walker: one thread, {@value #THREAD}, spends its time
 * in {@code System.arraycopy} and {@code CRC32.update}, both compiled to JVM stubs
 * (StubRoutines) that AsyncGetCallTrace cannot walk out of.
 *
 * <p>Usage: {@code Intrinsic SECONDS}.
 */
public final class Intrinsic {
    public static final String THREAD = "intrinsic-worker";
    public static final String COPY = "dev.candor.itest.workload.Intrinsic.copy";
    public static final String CHECKSUM = "dev.candor.itest.workload.Intrinsic.checksum";
    public static volatile long sink;
    private static final long SLICE_NS = 5_000_000;

    public static void main(String[] args) throws Exception {
        long endNs = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
        Thread worker = new Thread(() -> {
            long[] src = new long[1 << 15];
            long[] dst = new long[src.length];
            byte[] buf = new byte[1 << 18];
            for (int i = 0; i < src.length; i++) {
                src[i] = i * 0x9E3779B97F4A7C15L;
            }
            long x = 0;
            // Each intrinsic gets alternating 5 ms slices of time, not a fixed number of calls, so
            // both hold about half of the thread's CPU whatever the machine's memory bandwidth and
            // CRC speed (on one CI machine fixed counts gave CRC32 only 10%).
            while (System.nanoTime() < endNs) {
                for (long until = System.nanoTime() + SLICE_NS; System.nanoTime() < until; ) {
                    x += copy(src, dst);
                }
                for (long until = System.nanoTime() + SLICE_NS; System.nanoTime() < until; ) {
                    x += checksum(buf);
                }
            }
            sink = x;
        }, THREAD);
        worker.start();
        worker.join();
        System.out.println("workload done");
    }

    static long copy(long[] src, long[] dst) {
        for (int r = 0; r < 4; r++) {
            System.arraycopy(src, 0, dst, 0, src.length);
            System.arraycopy(dst, 0, src, 0, dst.length);
        }
        return dst[dst.length - 1];
    }

    static long checksum(byte[] buf) {
        CRC32 crc = new CRC32();
        for (int r = 0; r < 2; r++) {
            crc.update(buf, 0, buf.length);
        }
        return crc.getValue();
    }

    private Intrinsic() {
    }
}

package dev.candor.itest.workload;

import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;

/**
 * Intrinsic-heavy workload for the own stack walker: one thread, {@value #THREAD}, spends its time
 * in {@code System.arraycopy} and {@code CRC32.update}, both compiled to JVM stubs
 * (StubRoutines) that AsyncGetCallTrace cannot walk out of.
 *
 * <p>A third slice, {@link #wrapped}, copies inside an inlined {@code Arrays.copyOfRange} whose
 * result an inlined constructor ({@link Holder}) stores next, as {@code String.substring} does. C2
 * calls the copy stub without debug info of its own (a leaf call), and the debug info recorded
 * after the call belongs to the constructor, which copies nothing: a walker that takes the scope
 * after a leaf call names the wrong caller (async-profiler 4.6 did for 15% of these samples).
 *
 * <p>Usage: {@code Intrinsic SECONDS}.
 */
public final class Intrinsic {
    public static final String THREAD = "intrinsic-worker";
    public static final String COPY = "dev.candor.itest.workload.Intrinsic.copy";
    public static final String CHECKSUM = "dev.candor.itest.workload.Intrinsic.checksum";
    public static final String WRAPPED = "dev.candor.itest.workload.Intrinsic.wrapped";
    /** The methods that hold the copy in {@link #wrapped}: the frame under its stub is one of them. */
    public static final List<String> WRAPPED_CALLERS = List.of(WRAPPED,
            "dev.candor.itest.workload.Intrinsic.wrap", "java.util.Arrays.copyOfRange");
    public static volatile long sink;
    private static final long SLICE_NS = 5_000_000;

    public static void main(String[] args) throws Exception {
        long endNs = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
        Thread worker = new Thread(() -> {
            long[] src = new long[1 << 15];
            long[] dst = new long[src.length];
            byte[] buf = new byte[1 << 18];
            byte[] bytes = new byte[1 << 15];
            for (int i = 0; i < src.length; i++) {
                src[i] = i * 0x9E3779B97F4A7C15L;
            }
            long x = 0;
            // Each intrinsic gets alternating 5 ms slices of time, not a fixed number of calls, so
            // each holds about a third of the thread's CPU whatever the machine's memory bandwidth and
            // CRC speed (on one CI machine fixed counts gave CRC32 only 10%).
            while (System.nanoTime() < endNs) {
                for (long until = System.nanoTime() + SLICE_NS; System.nanoTime() < until; ) {
                    x += copy(src, dst);
                }
                for (long until = System.nanoTime() + SLICE_NS; System.nanoTime() < until; ) {
                    x += checksum(buf);
                }
                for (long until = System.nanoTime() + SLICE_NS; System.nanoTime() < until; ) {
                    x += wrapped(bytes);
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

    static long wrapped(byte[] src) {
        long x = 0;
        for (int r = 0; r < 16; r++) {
            Holder h = wrap(src, src.length - 16 + r);
            x += h.coder + h.value[(r * 7) & 255];
        }
        return x;
    }

    static Holder wrap(byte[] src, int n) {
        return new Holder(Arrays.copyOfRange(src, 3, 3 + n), (byte) 1);
    }

    /** Shaped as String's (byte[] value, byte coder) constructor. */
    static final class Holder {
        final byte[] value;
        final byte coder;

        Holder(byte[] value, byte coder) {
            this.value = value;
            this.coder = coder;
        }
    }

    private Intrinsic() {
    }
}

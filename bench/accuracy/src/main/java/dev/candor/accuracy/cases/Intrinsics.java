package dev.candor.accuracy.cases;

import java.nio.file.Path;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * Intrinsic-heavy (seed 001, "Collection errors: Runtime Stubs"): {@link #copy} spends its time
 * in {@code System.arraycopy} (about 60% of the CPU) and {@link #checksum} in
 * {@code CRC32.update} (about 40%), both compiled to JVM stubs that stack walkers may fail to
 * climb out of. The truth charges each call to the workload method calling the intrinsic: a
 * profiler must show those ticks there (or below it, in the intrinsic's Java frames), or as a
 * named failure; they must never vanish.
 *
 * <p>Usage: {@code Intrinsics TRUTH_FILE CPU_MS}.
 */
public final class Intrinsics {
    public static final String COPY = "dev.candor.accuracy.cases.Intrinsics.copy";
    public static final String CHECKSUM = "dev.candor.accuracy.cases.Intrinsics.checksum";

    public static void main(String[] args) throws Exception {
        long targetNs = Long.parseLong(args[1]) * 1_000_000L;
        Truth.onThread("accuracy-worker", () -> work(targetNs));
        Truth.write(Path.of(args[0]), Map.of("case", "intrinsics"));
    }

    static void work(long targetNs) {
        long t0 = Truth.start();
        long[] src = new long[1 << 15];  // 256 KB: cache-resident copies, called often enough to be compiled
        long[] dst = new long[src.length];
        byte[] buf = new byte[1 << 18];
        for (int i = 0; i < src.length; i++) {
            src[i] = i * 0x9E3779B97F4A7C15L;
        }
        for (int i = 0; i < buf.length; i++) {
            buf[i] = (byte) (i * 31);
        }
        Truth.stop(t0, 2);  // the set-up: work's own time
        long copyNs = 0;
        long crcNs = 0;
        long x = 0;
        while (copyNs + crcNs < targetNs) {
            long t = Truth.start();
            if (copyNs <= 1.5 * crcNs) {  // about 60/40
                x += copy(src, dst);
                Truth.stop(t, 0, COPY);
                copyNs += Truth.start() - t;
            } else {
                x += checksum(buf);
                Truth.stop(t, 1, CHECKSUM);
                crcNs += Truth.start() - t;
            }
        }
        Truth.sink = x;
    }

    static long copy(long[] src, long[] dst) {
        for (int r = 0; r < 64; r++) {
            System.arraycopy(src, 0, dst, 0, src.length);
            System.arraycopy(dst, 0, src, 0, dst.length);
        }
        return dst[dst.length - 1];
    }

    static long checksum(byte[] buf) {
        CRC32 crc = new CRC32();
        for (int r = 0; r < 16; r++) {
            crc.update(buf, 0, buf.length);
        }
        return crc.getValue();
    }

    private Intrinsics() {
    }
}

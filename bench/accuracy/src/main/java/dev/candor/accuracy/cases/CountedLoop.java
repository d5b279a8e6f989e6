package dev.candor.accuracy.cases;

import java.nio.file.Path;
import java.util.Map;

/**
 * Safepoint bias, case 1 (seed 001, "Safepoint Sampling: Theory"): a hot counted loop in a
 * method that is not inlined. Without polls in counted loops the first poll after the loop is at
 * the method's return, and safepoint-biased samplers blame the caller. All the CPU of each call
 * is truly in {@link #hot}.
 *
 * <p>Usage: {@code CountedLoop TRUTH_FILE CPU_MS}. Run with
 * {@code -XX:CompileCommand=dontinline,dev.candor.accuracy.cases.CountedLoop::hot}.
 */
public final class CountedLoop {
    public static final String HOT = "dev.candor.accuracy.cases.CountedLoop.hot";

    public static void main(String[] args) throws Exception {
        long targetNs = Long.parseLong(args[1]) * 1_000_000L;
        Truth.onThread("accuracy-worker", () -> work(targetNs));
        Truth.write(Path.of(args[0]), Map.of("case", "counted-loop"));
    }

    static void work(long targetNs) {
        long t0 = Truth.start();
        int[] a = new int[1 << 21];
        for (int i = 0; i < a.length; i++) {
            a[i] = i * 0x9E3779B9;
        }
        Truth.stop(t0, 1);  // the set-up: work's own time
        long spent = 0;
        int x = 0;
        while (spent < targetNs) {
            long t = Truth.start();
            x += hot(a);
            Truth.stop(t, 0, HOT);
            spent += Truth.start() - t;
        }
        Truth.sink = x;
    }

    /** A counted int loop without calls: a dependency chain, so about 1 ns per element. */
    static int hot(int[] a) {
        int s = 0;
        for (int i = 0; i < a.length; i++) {
            s = s * 31 + (a[i] ^ i);
        }
        return s;
    }

    private CountedLoop() {
    }
}

package dev.candor.accuracy.cases;

import java.nio.file.Path;
import java.util.Map;

/**
 * Deep recursion: {@link #descend} recurses 300 levels; every level spends CPU in
 * {@link #spin}, more the deeper it is (about 60% in all), and the bottom runs {@link #bottom}
 * (about 40%). Every level is a distinct calling context, which the thesis names the hardest case
 * for the overlap metric (seed 000, §5.3). The truth is measured per level (the stack of a level
 * never changes, so it is walked once).
 *
 * <p>Usage: {@code DeepRecursion TRUTH_FILE CPU_MS}. Run with
 * {@code -XX:CompileCommand=dontinline,dev.candor.accuracy.cases.DeepRecursion::*}.
 */
public final class DeepRecursion {
    public static final String SPIN = "dev.candor.accuracy.cases.DeepRecursion.spin";
    public static final String BOTTOM = "dev.candor.accuracy.cases.DeepRecursion.bottom";
    static final int DEPTH = 300;

    public static void main(String[] args) throws Exception {
        long targetNs = Long.parseLong(args[1]) * 1_000_000L;
        Truth.onThread("accuracy-worker", () -> work(targetNs));
        Truth.write(Path.of(args[0]), Map.of("case", "deep-recursion", "depth", String.valueOf(DEPTH)));
    }

    static void work(long targetNs) {
        long start = Truth.start();
        long x = 0;
        while (Truth.start() - start < targetNs) {
            x += descend(0);
        }
        Truth.sink = x;
    }

    static long descend(int level) {
        long t = Truth.start();
        long x = spin(20_000 + 400 * level);
        Truth.stopOnce(t, level, SPIN);
        if (level < DEPTH) {
            return x + descend(level + 1);
        }
        t = Truth.start();
        x += bottom(16_000_000);
        Truth.stopOnce(t, -1, BOTTOM);
        return x;
    }

    static long spin(int n) {
        long s = n;
        for (int i = 0; i < n; i++) {
            s = (s ^ (s >>> 13)) * 0x9E3779B97F4A7C15L + i;
        }
        return s;
    }

    static long bottom(int n) {
        long s = 7;
        for (int i = 0; i < n; i++) {
            s = (s ^ (s >>> 11)) * 0xC2B2AE3D27D4EB4FL - i;
        }
        return s;
    }

    private DeepRecursion() {
    }
}

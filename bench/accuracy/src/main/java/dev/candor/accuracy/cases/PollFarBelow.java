package dev.candor.accuracy.cases;

import java.nio.file.Path;
import java.util.Map;

/**
 * Safepoint bias, case 3 (seed 001, "Mind The Gap", second example): the hot loop is in the
 * top method; below it a chain of nine cheap, non-inlined calls holds the only poll (at the
 * return of the deepest one). Safepoint-biased samplers blame the chain, nine frames below the
 * real culprit. The truth charges each whole call to {@link #hot}.
 *
 * <p>Usage: {@code PollFarBelow TRUTH_FILE CPU_MS}. Run with
 * {@code -XX:CompileCommand=dontinline,dev.candor.accuracy.cases.PollFarBelow::*}.
 */
public final class PollFarBelow {
    public static final String HOT = "dev.candor.accuracy.cases.PollFarBelow.hot";
    static volatile int result;

    public static void main(String[] args) throws Exception {
        long targetNs = Long.parseLong(args[1]) * 1_000_000L;
        Truth.onThread("accuracy-worker", () -> work(targetNs));
        Truth.write(Path.of(args[0]), Map.of("case", "poll-far-below"));
    }

    static void work(long targetNs) {
        long t0 = Truth.start();
        int[] a = new int[1 << 21];
        for (int i = 0; i < a.length; i++) {
            a[i] = i * 0x9E3779B9;
        }
        Truth.stop(t0, 1);  // the set-up: work's own time
        long spent = 0;
        while (spent < targetNs) {
            long t = Truth.start();
            hot(a);
            Truth.stop(t, 0, HOT);
            spent += Truth.start() - t;
        }
    }

    static void hot(int[] a) {
        int s = 0;
        for (int i = 0; i < a.length; i++) {
            s = s * 31 + (a[i] ^ i);
        }
        setResult1(s);
    }

    static void setResult1(int s) {
        setResult2(s + 1);
    }

    static void setResult2(int s) {
        setResult3(s + 1);
    }

    static void setResult3(int s) {
        setResult4(s + 1);
    }

    static void setResult4(int s) {
        setResult5(s + 1);
    }

    static void setResult5(int s) {
        setResult6(s + 1);
    }

    static void setResult6(int s) {
        setResult7(s + 1);
    }

    static void setResult7(int s) {
        setResult8(s + 1);
    }

    static void setResult8(int s) {
        setResult9(s + 1);
    }

    static void setResult9(int s) {
        result = s;
    }

    private PollFarBelow() {
    }
}

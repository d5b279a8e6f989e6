package dev.candor.accuracy.cases;

import java.nio.file.Path;
import java.util.Map;

/**
 * Safepoint bias, case 2 (seed 001, "Mind The Gap"): the time is spent in a counted loop just
 * before a cheap call that is not inlined. The call's return is the first poll after the loop,
 * so safepoint-biased samplers blame {@link #setResult}. Truly, all but a few nanoseconds of each
 * call of {@link #hot} are its own loop; the truth charges the whole call to {@link #hot} (the
 * cheap call is folded into its caller).
 *
 * <p>Usage: {@code LoopThenCall TRUTH_FILE CPU_MS}. Run with
 * {@code -XX:CompileCommand=dontinline,dev.candor.accuracy.cases.LoopThenCall::*}.
 */
public final class LoopThenCall {
    public static final String HOT = "dev.candor.accuracy.cases.LoopThenCall.hot";
    static volatile int result;

    public static void main(String[] args) throws Exception {
        long targetNs = Long.parseLong(args[1]) * 1_000_000L;
        Truth.onThread("accuracy-worker", () -> work(targetNs));
        Truth.write(Path.of(args[0]), Map.of("case", "loop-then-call"));
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
        setResult(s);
    }

    static void setResult(int s) {
        result = s;
    }

    private LoopThenCall() {
    }
}

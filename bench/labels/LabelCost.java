import dev.candor.api.Candor;
import dev.candor.api.LabelScope;

/**
 * What a Candor.label scope costs the thread that opens and closes it: ns per open+close of a
 * scope with a fixed value (its set interned once) and with a new value each time (a trace id:
 * a new set every time), with candor loaded (-agentpath) and, for comparison, without an agent.
 * Medians of 5 rounds of 1,000,000 scopes after a warm-up round.
 *
 * <p>Run: {@code java [-agentpath:libcandor.so=start,event=cpu,interval=10ms,quiet] -cp candor-api.jar LabelCost.java}
 */
public final class LabelCost {
    static volatile long sink;

    public static void main(String[] args) {
        int n = 1_000_000;
        for (String mode : new String[] {"fixed value", "new value each time"}) {
            boolean fresh = mode.startsWith("new");
            double[] ns = new double[6];
            for (int round = 0; round < ns.length; round++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    try (LabelScope s = Candor.label("trace_id", fresh ? Integer.toString(round * n + i) : "abc")) {
                        sink += i;
                    }
                }
                ns[round] = (System.nanoTime() - t0) / (double) n;
            }
            double[] measured = java.util.Arrays.copyOfRange(ns, 1, ns.length);
            java.util.Arrays.sort(measured);
            System.out.printf("label scope, %s: %.0f ns per open+close (median of %d rounds of %,d; agent %s)%n", mode,
                    measured[measured.length / 2], measured.length, n, Candor.library() != null ? "loaded" : "absent");
        }
    }
}

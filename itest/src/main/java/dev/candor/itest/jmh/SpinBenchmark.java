package dev.candor.itest.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.CompilerControl;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * A JMH benchmark whose time is all in {@link #spinLoop}: JmhProfilerTest checks that its flame
 * graph's top frame by self samples is that method. Kept out of its caller so it stays a frame.
 */
@State(Scope.Thread)
public class SpinBenchmark {
    /** The hot method's frame name, as the agent writes it. */
    public static final String HOT = "dev.candor.itest.jmh.SpinBenchmark.spinLoop";

    private int seed = 17;

    @Benchmark
    public int spin() {
        seed = spinLoop(1 << 14, seed);
        return seed;
    }

    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    static int spinLoop(int n, int seed) {
        int x = seed;
        for (int i = 0; i < n; i++) {
            x = (x ^ (x >>> 15)) * 0x2C1B3C6D + i;
        }
        return x;
    }
}

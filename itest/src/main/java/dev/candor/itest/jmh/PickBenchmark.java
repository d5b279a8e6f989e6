package dev.candor.itest.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.CompilerControl;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A JMH benchmark with a parameter that picks its hot method: {@code hot=a} spends its time in
 * {@link #pickA}, {@code hot=b} in {@link #pickB}, so each parameter set's flame graph has a hot
 * method of its own (JmhProfilerTest: one profile per parameter set, not one per benchmark).
 */
@State(Scope.Thread)
public class PickBenchmark {
    public static final String HOT_A = "dev.candor.itest.jmh.PickBenchmark.pickA";
    public static final String HOT_B = "dev.candor.itest.jmh.PickBenchmark.pickB";

    @Param({"a", "b"})
    public String hot;

    private boolean a;
    private long seed = 29;

    @Setup
    public void setup() {
        a = hot.equals("a");
    }

    @Benchmark
    public long pick() {
        seed = a ? pickA(1 << 14, seed) : pickB(1 << 14, seed);
        return seed;
    }

    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    static long pickA(int n, long seed) {
        long x = seed;
        for (int i = 0; i < n; i++) {
            x = (x ^ (x >>> 31)) * 0x7FB5D329728EA185L + i;
        }
        return x;
    }

    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    static long pickB(int n, long seed) {
        long x = seed;
        for (int i = 0; i < n; i++) {
            x = (x ^ (x >>> 27)) * 0x81DADEF4BC2DD44DL - i;
        }
        return x;
    }
}

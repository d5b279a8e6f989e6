package dev.candor.itest.stress;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntUnaryOperator;

/**
 * StackOverflowError recursion: threads recurse until the stack is exhausted (plain recursion,
 * recursion with big frames, recursion through lambdas and through method handles), catch the error
 * and do it again. Sampling signals then arrive with the stack pointer in the JVM's guard zones.
 * Usage: {@code StackOverflow SECONDS}.
 */
public final class StackOverflow {
    static IntUnaryOperator viaLambda;
    static MethodHandle viaHandle;

    public static void main(String[] args) throws Exception {
        Stress s = Stress.of("stackoverflow", args);
        viaLambda = n -> viaLambda.applyAsInt(n + 1) + 1;
        viaHandle = MethodHandles.lookup().findStatic(StackOverflow.class, "viaHandle",
                MethodType.methodType(int.class, int.class));
        AtomicLong overflows = new AtomicLong();
        AtomicLong maxDepth = new AtomicLong();
        s.workers(3, w -> {
            depth = 0;
            try {
                switch (w) {
                    case 0 -> plain(0);
                    case 1 -> big(0, 1, 2, 3);
                    default -> {
                        if ((overflows.get() & 1) == 0) {
                            viaLambda.applyAsInt(0);
                        } else {
                            viaHandle(0);
                        }
                    }
                }
            } catch (StackOverflowError e) {
                overflows.incrementAndGet();
                maxDepth.accumulateAndGet(depth, Math::max);
            }
        });
        s.figure("overflows", overflows.get());
        s.figure("max_depth", maxDepth.get());
        s.finish();
    }

    static int depth;

    static int plain(int n) {
        depth = n;
        return plain(n + 1) + 1;
    }

    static long big(long a, long b, long c, long d) {
        long e = a + b, f = b + c, g = c + d, h = d + a;
        depth++;
        return big(e, f, g, h) + e * f - g * h;
    }

    static int viaHandle(int n) throws Throwable {
        depth = n;
        return (int) viaHandle.invokeExact(n + 1) + 1;
    }

    private StackOverflow() {
    }
}

package dev.candor.accuracy.cases;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Lambdas and generated classes, whose names change from run to run: the same work reached
 * through a stream pipeline with a lambda (about 40% of the CPU), a dynamic proxy (25%),
 * reflection (20%: JDK 17 switches to a {@code GeneratedMethodAccessor} after 15 calls) and a
 * method handle (15%). Each path ends in {@link #spin}; the truth charges every call to the
 * real stack, lambda proxies, LambdaForms and accessors included (walked with
 * {@code SHOW_HIDDEN_FRAMES} and {@code SHOW_REFLECT_FRAMES}).
 *
 * <p>Usage: {@code Generated TRUTH_FILE CPU_MS}.
 */
public final class Generated {
    public static final String SPIN = "dev.candor.accuracy.cases.Generated.spin";
    /** The lambda body of the stream path (javac numbers the lambdas of a class in order: main, work, streams). */
    public static final String STREAM_LAMBDA = "dev.candor.accuracy.cases.Generated.lambda$streams$2";
    static final int N = 1 << 20;

    /** What the proxy implements. */
    public interface Compute {
        long compute(int n);
    }

    public static void main(String[] args) throws Exception {
        long targetNs = Long.parseLong(args[1]) * 1_000_000L;
        Truth.onThread("accuracy-worker", () -> {
            try {
                work(targetNs);
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        });
        Truth.write(Path.of(args[0]), Map.of("case", "generated"));
    }

    static void work(long targetNs) throws Throwable {
        Compute proxy = (Compute) Proxy.newProxyInstance(Generated.class.getClassLoader(),
                new Class<?>[] {Compute.class}, (p, m, a) -> viaProxy((Integer) a[0]));
        Method reflective = Generated.class.getDeclaredMethod("viaReflection", int.class);
        MethodHandle handle = MethodHandles.lookup().findStatic(Generated.class, "viaHandle",
                MethodType.methodType(long.class, int.class));
        long[] spent = new long[4];
        int[] weight = {40, 25, 20, 15};
        long x = 0;
        long total = 0;
        while (total < targetNs) {
            // the path furthest below its share goes next
            int next = 0;
            for (int i = 1; i < 4; i++) {
                if (spent[i] * weight[next] < spent[next] * weight[i]) {
                    next = i;
                }
            }
            long t = Truth.start();
            switch (next) {
                case 0 -> x += streams();
                case 1 -> x += proxy.compute(N);
                case 2 -> x += (Long) reflective.invoke(null, N);
                default -> x += (long) handle.invokeExact(N);
            }
            long d = Truth.start() - t;
            spent[next] += d;
            total += d;
        }
        Truth.sink = x;
    }

    static long streams() {
        return IntStream.range(0, 4).mapToLong(i -> {
            long t = Truth.start();
            long r = spin(N + i);
            Truth.stop(t, 0, SPIN);
            return r;
        }).sum();
    }

    static long viaProxy(int n) {
        long t = Truth.start();
        long r = spin(n);
        Truth.stop(t, 1, SPIN);
        return r;
    }

    static long viaReflection(int n) {
        long t = Truth.start();
        long r = spin(n);
        Truth.stop(t, 2, SPIN);
        return r;
    }

    static long viaHandle(int n) {
        long t = Truth.start();
        long r = spin(n);
        Truth.stop(t, 3, SPIN);
        return r;
    }

    static long spin(int n) {
        long s = n;
        for (int i = 0; i < n; i++) {
            s = (s ^ (s >>> 13)) * 0x9E3779B97F4A7C15L + i;
        }
        return s;
    }

    private Generated() {
    }
}

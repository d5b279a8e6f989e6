package dev.candor.accuracy.cases;

import java.nio.file.Path;
import java.util.Map;

/**
 * Loop-heavy, multi-threaded: three threads run at once (on two cores here), each its own hot
 * loop for its own share of the CPU: {@link #alpha} (a counted int loop, 50%), {@link #beta} (a
 * long-indexed loop, 30%), {@link #gamma} (floating-point, 20%). The truth is each thread's CPU
 * time in its loop, so scheduling does not change it.
 *
 * <p>Usage: {@code MultiThread TRUTH_FILE CPU_MS} (the total over all threads).
 */
public final class MultiThread {
    public static final String ALPHA = "dev.candor.accuracy.cases.MultiThread.alpha";
    public static final String BETA = "dev.candor.accuracy.cases.MultiThread.beta";
    public static final String GAMMA = "dev.candor.accuracy.cases.MultiThread.gamma";

    public static void main(String[] args) throws Exception {
        long targetNs = Long.parseLong(args[1]) * 1_000_000L;
        Truth.warmUp();
        Thread[] ts = {
                worker("alpha-worker", 'a', targetNs * 50 / 100),
                worker("beta-worker", 'b', targetNs * 30 / 100),
                worker("gamma-worker", 'g', targetNs * 20 / 100)};
        for (Thread t : ts) {
            t.start();
        }
        for (Thread t : ts) {
            t.join();
        }
        Truth.write(Path.of(args[0]), Map.of("case", "multi-thread"));
    }

    private static Thread worker(String name, char which, long targetNs) {
        return new Thread(() -> {
            work(which, targetNs);
            Truth.threadDone();
        }, name);
    }

    static void work(char which, long targetNs) {
        long t0 = Truth.start();
        int[] a = new int[1 << 20];
        for (int i = 0; i < a.length; i++) {
            a[i] = i * 0x9E3779B9;
        }
        Truth.stop(t0, 3);  // the set-up: work's own time
        long spent = 0;
        long x = 0;
        while (spent < targetNs) {
            long t = Truth.start();
            switch (which) {
                case 'a' -> {
                    x += alpha(a);
                    Truth.stop(t, 0, ALPHA);
                }
                case 'b' -> {
                    x += beta(1L << 20);
                    Truth.stop(t, 1, BETA);
                }
                default -> {
                    x += (long) gamma(1 << 19);
                    Truth.stop(t, 2, GAMMA);
                }
            }
            spent += Truth.start() - t;
        }
        Truth.sink = x;
    }

    static int alpha(int[] a) {
        int s = 0;
        for (int i = 0; i < a.length; i++) {
            s = s * 31 + (a[i] ^ i);
        }
        return s;
    }

    static long beta(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) {
            s = (s ^ (s >>> 7)) * 0x9E3779B97F4A7C15L + i;
        }
        return s;
    }

    static double gamma(int n) {
        double s = 1;
        for (int i = 1; i < n; i++) {
            s = s * 1.0000001 + 1.0 / i;
        }
        return s;
    }

    private MultiThread() {
    }
}

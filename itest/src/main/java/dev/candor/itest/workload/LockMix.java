package dev.candor.itest.workload;

import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Known-answer workload for lock profiling. Three locks, each with one holder thread that holds
 * it for a fixed time, sleeps a little, and takes it again, and {@value #WAITERS} waiter threads
 * that take it and let go at once:
 * <ul>
 *   <li>a monitor held {@value #MONITOR_HOLD_MS} ms at a time, taken in {@link #enterMonitor};
 *   <li>a {@link ReentrantLock} held {@value #REENTRANT_HOLD_MS} ms, taken in {@link #lockReentrant};
 *   <li>a monitor held {@value #SHORT_HOLD_US} µs, taken in {@link #enterShort}: its waits stay
 *       under the test's threshold.
 * </ul>
 * Every waiter times each acquisition with System.nanoTime; the truth is the sum of the waits at
 * or above the threshold ({@code monitor_ns}, {@code reentrant_ns}, {@code short_ns}), and for the
 * short-held monitor how many waits there were ({@code short_waits}) and how many of them reached
 * the threshold anyway (a busy machine's scheduling delay: {@code short_over}).
 *
 * <p>Usage: {@code LockMix TRUTH_FILE SECONDS THRESHOLD_NS}.
 */
public final class LockMix {
    public static final int WAITERS = 2;
    public static final int MONITOR_HOLD_MS = 30;
    public static final int REENTRANT_HOLD_MS = 15;
    public static final int SHORT_HOLD_US = 300;
    public static final String MONITOR = LockMix.class.getName() + ".enterMonitor";
    public static final String REENTRANT = LockMix.class.getName() + ".lockReentrant";
    public static final String SHORT = LockMix.class.getName() + ".enterShort";

    static final Object MONITOR_LOCK = new Object();
    static final Object SHORT_LOCK = new Object();
    static final ReentrantLock REENTRANT_LOCK = new ReentrantLock();
    static long thresholdNs;

    public static void main(String[] args) throws Exception {
        Path truthFile = Path.of(args[0]);
        long end = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
        thresholdNs = Long.parseLong(args[2]);
        long[] monitorNs = new long[WAITERS];
        long[] reentrantNs = new long[WAITERS];
        long[] shortNs = new long[WAITERS];
        long[] shortWaits = new long[WAITERS];
        long[] shortOver = new long[WAITERS];
        Thread[] threads = new Thread[3 + 3 * WAITERS];
        int n = 0;
        threads[n++] = new Thread(() -> {
            while (System.nanoTime() < end) {
                synchronized (MONITOR_LOCK) {
                    sleepNs(MONITOR_HOLD_MS * 1_000_000L);
                }
                sleepNs(1_000_000);
            }
        }, "monitor-holder");
        threads[n++] = new Thread(() -> {
            while (System.nanoTime() < end) {
                REENTRANT_LOCK.lock();
                try {
                    sleepNs(REENTRANT_HOLD_MS * 1_000_000L);
                } finally {
                    REENTRANT_LOCK.unlock();
                }
                sleepNs(1_000_000);
            }
        }, "reentrant-holder");
        threads[n++] = new Thread(() -> {
            while (System.nanoTime() < end) {
                synchronized (SHORT_LOCK) {
                    sleepNs(SHORT_HOLD_US * 1_000L);
                }
                sleepNs(200_000);
            }
        }, "short-holder");
        for (int w = 0; w < WAITERS; w++) {
            int i = w;
            threads[n++] = new Thread(() -> {
                while (System.nanoTime() < end) {
                    monitorNs[i] += enterMonitor();
                }
            }, "monitor-waiter-" + w);
            threads[n++] = new Thread(() -> {
                while (System.nanoTime() < end) {
                    reentrantNs[i] += lockReentrant();
                }
            }, "reentrant-waiter-" + w);
            threads[n++] = new Thread(() -> {
                while (System.nanoTime() < end) {
                    long waited = enterShort();
                    shortWaits[i]++;
                    if (waited >= thresholdNs) {
                        shortOver[i]++;
                        shortNs[i] += waited;
                    }
                    sleepNs(100_000);
                }
            }, "short-waiter-" + w);
        }
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        Truth truth = new Truth();
        truth.put("monitor_ns", sum(monitorNs)).put("reentrant_ns", sum(reentrantNs)).put("short_ns", sum(shortNs));
        truth.put("short_waits", sum(shortWaits)).put("short_over", sum(shortOver)).write(truthFile);
        System.out.println("workload done");
    }

    /** Enters the monitor and leaves at once; the wait if it reached the threshold, else 0. */
    static long enterMonitor() {
        long t0 = System.nanoTime();
        long waited;
        synchronized (MONITOR_LOCK) {
            waited = System.nanoTime() - t0;
        }
        return waited >= thresholdNs ? waited : 0;
    }

    static long lockReentrant() {
        long t0 = System.nanoTime();
        REENTRANT_LOCK.lock();
        long waited = System.nanoTime() - t0;
        REENTRANT_LOCK.unlock();
        return waited >= thresholdNs ? waited : 0;
    }

    static long sum(long[] values) {
        long s = 0;
        for (long v : values) {
            s += v;
        }
        return s;
    }

    /** The wait for the short-held monitor, whatever its length. */
    static long enterShort() {
        long t0 = System.nanoTime();
        synchronized (SHORT_LOCK) {
            return System.nanoTime() - t0;
        }
    }

    static void sleepNs(long ns) {
        try {
            Thread.sleep(ns / 1_000_000, (int) (ns % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private LockMix() {
    }
}

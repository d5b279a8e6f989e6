package dev.candor.itest.workload;

import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread alternating twenty short bursts of work (0.2 ms of CPU each, in {@link #shortBurst},
 * each followed by a 0.5 ms pause) with one long burst (8 ms, in {@link #longBurst}): about a third
 * of its CPU in short bursts, none of which holds a kernel tick (4 ms here) as often as its CPU
 * would have it. What CPU-time timers checked at the tick must not misplace. The half-millisecond
 * pauses are parks, the same on every JDK ({@code Thread.sleep(0, 500_000)} sleeps 1 ms on JDK 17).
 *
 * <p>Usage: {@code Bursts TRUTH_FILE SECONDS}. Truth keys: {@code short_ns}, {@code long_ns} (CPU
 * time inside each kind of burst).
 */
public final class Bursts {
    private static volatile long sink;

    public static void main(String[] args) throws Exception {
        Path truthFile = Path.of(args[0]);
        long deadline = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9);
        long shortNs = 0, longNs = 0;
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < 20; i++) {
                long c = Hot.cpu();
                shortBurst();
                shortNs += Hot.cpu() - c;
                // Not Thread.sleep(0, 500_000): JDK 17 rounds that up to a whole millisecond.
                LockSupport.parkNanos(500_000);
            }
            long c = Hot.cpu();
            longBurst();
            longNs += Hot.cpu() - c;
            Thread.sleep(1);
        }
        new Truth().put("short_ns", shortNs).put("long_ns", longNs).write(truthFile);
        System.out.println("workload done");
    }

    static void shortBurst() {
        spin(200_000);
    }

    static void longBurst() {
        spin(8_000_000);
    }

    /** Works until the thread's CPU clock has moved by {@code ns}. */
    private static void spin(long ns) {
        long end = Hot.cpu() + ns;
        long x = sink;
        while (Hot.cpu() < end) {
            for (int i = 0; i < 200; i++) {
                x += x * 31 + i;
            }
        }
        sink = x;
    }

    private Bursts() {
    }
}

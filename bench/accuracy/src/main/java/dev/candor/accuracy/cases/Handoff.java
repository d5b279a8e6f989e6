package dev.candor.accuracy.cases;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Switch-heavy: two threads hand a token back and forth (LockSupport park and unpark), tens of
 * thousands of times a second. After each wake-up a thread runs {@link #afterWake} (~30 µs of Java
 * here), then hands the token on and parks, so a fifth to a third of its CPU is system calls and
 * context switches. This is where timers differ: a tick that falls due while the kernel switches
 * threads, with interrupts off, fires where interrupts come back on. A timer per thread (perf's
 * cpu-clock) is stopped with its thread and fires 10 µs after the thread next runs, in the code
 * after the wake-up; a timer per CPU fires in whatever runs next on that CPU, or in the idle task,
 * where the thread's tick is lost (candor counts it from the thread's CPU clock as
 * {@code [cpu_unsampled]}).
 *
 * <p>The truth: {@code afterWake}'s CPU (the thread CPU clock around it, less the cost of the two
 * reads, calibrated on the same thread), and the rest of each thread's CPU in {@code work} (park,
 * unpark, the system calls, the switches) charged to {@code work} itself.
 *
 * <p>Usage: {@code Handoff TRUTH_FILE CPU_MS} (the total over both threads).
 */
public final class Handoff {
    static final int ITERATIONS = 20_000;
    private static final Thread[] WORKERS = new Thread[2];
    private static volatile int turn;
    private static volatile boolean done;

    public static void main(String[] args) throws Exception {
        long targetNs = Long.parseLong(args[1]) * 1_000_000L;
        Truth.warmUp();
        for (int i = 0; i < 20_000; i++) {
            Truth.sink += afterWake(ITERATIONS / 20);  // compiled before the workers start
        }
        for (int i = 0; i < 2; i++) {
            int me = i;
            WORKERS[i] = new Thread(() -> {
                work(me, targetNs / 2);
                Truth.threadDone();
            }, "handoff-" + (char) ('a' + i) + "-worker");
        }
        for (Thread t : WORKERS) {
            t.start();
        }
        for (Thread t : WORKERS) {
            t.join();
        }
        Truth.write(Path.of(args[0]), Map.of("case", "handoff"));
    }

    /** Takes the token, runs afterWake, hands the token on, until this thread has used targetNs of CPU. */
    static void work(int me, long targetNs) {
        long begin = Truth.start();
        long reads = Truth.readPairNs();
        long inWake = 0;
        long x = 0;
        for (long calls = 1; ; calls++) {
            while (turn != me && !done) {
                LockSupport.park();
            }
            if (done) {
                break;
            }
            long t = Truth.start();
            x += afterWake(ITERATIONS);
            inWake += Truth.start() - t - reads;
            if ((calls & 63) == 0 && Truth.start() - begin >= targetNs) {
                done = true;  // before the hand-over, so the partner sees it when it wakes
            }
            turn = 1 - me;
            LockSupport.unpark(WORKERS[1 - me]);
            if (done) {
                break;
            }
        }
        Truth.sink = x;
        long all = Truth.start() - begin;
        Truth.charge(inWake, 0, Handoff.class.getName() + ".afterWake");
        Truth.charge(all - inWake, 1);
    }

    static long afterWake(int iterations) {
        long s = 1;
        for (int i = 0; i < iterations; i++) {
            s = s * 0x9E3779B97F4A7C15L + i;
        }
        return s;
    }

    private Handoff() {
    }
}

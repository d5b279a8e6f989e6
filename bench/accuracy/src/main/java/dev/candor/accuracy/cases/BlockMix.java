package dev.candor.accuracy.cases;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * A thread that blocks, makes system calls that do not block, and computes, in rounds of about half
 * a millisecond of CPU here: a server's pool thread in miniature. Each round {@code work} hands a turn to a
 * partner thread and blocks until it comes back, four times ({@link #waitTurn}: LockSupport unpark
 * and park, a context switch out and in each), writes one byte to /dev/null 1024 times
 * ({@link #writes}: system calls, most of their CPU in the kernel, that never block) and runs a
 * Java loop ({@link #spin}). The question is where a profiler puts the CPU of the blocking: a
 * timer per CPU loses the ticks that fall due as the thread is switched out to an idle CPU, and
 * candor places them from the thread's CPU clock; a timer per thread fires after the switch.
 *
 * <p>The truth: each phase's CPU (the thread CPU clock around the phase, less the cost of a pair of
 * reads calibrated on the same thread), and the rest of the worker's CPU charged to {@code work}.
 * The partner's CPU is not in the truth (the comparison is of {@code work}'s tree).
 *
 * <p>Usage: {@code BlockMix TRUTH_FILE CPU_MS} (the worker's CPU).
 */
public final class BlockMix {
    static final int TURNS = 4;
    static final int WRITES = 1024;
    static final int SPINS = 51_200;
    private static volatile boolean workerTurn;
    private static volatile boolean done;
    private static Thread partner;
    private static Thread worker;

    public static void main(String[] args) throws Exception {
        long targetNs = Long.parseLong(args[1]) * 1_000_000L;
        Truth.warmUp();
        for (int i = 0; i < 2_000; i++) {
            Truth.sink += spin(SPINS / 10);  // compiled before the worker starts
        }
        partner = new Thread(BlockMix::partner, "blockmix-partner");
        partner.setDaemon(true);
        worker = new Thread(() -> {
            try {
                work(targetNs);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            Truth.threadDone();
        }, "blockmix-worker");
        partner.start();
        worker.start();
        worker.join();
        Truth.write(Path.of(args[0]), Map.of("case", "blockmix"));
    }

    static void work(long targetNs) throws IOException {
        long begin = Truth.start();
        long reads = Truth.readPairNs();
        long inWait = 0, inWrites = 0, inSpin = 0;
        long x = 0;
        try (FileOutputStream out = new FileOutputStream("/dev/null")) {
            while (Truth.start() - begin < targetNs) {
                long t0 = Truth.start();
                for (int i = 0; i < TURNS; i++) {
                    waitTurn();
                }
                long t1 = Truth.start();
                writes(out, WRITES);
                long t2 = Truth.start();
                x += spin(SPINS);
                long t3 = Truth.start();
                inWait += t1 - t0 - reads;
                inWrites += t2 - t1 - reads;
                inSpin += t3 - t2 - reads;
            }
        }
        done = true;
        LockSupport.unpark(partner);
        Truth.sink = x;
        long all = Truth.start() - begin;
        Truth.charge(inWait, 0, BlockMix.class.getName() + ".waitTurn");
        Truth.charge(inWrites, 1, BlockMix.class.getName() + ".writes");
        Truth.charge(inSpin, 2, BlockMix.class.getName() + ".spin");
        Truth.charge(all - inWait - inWrites - inSpin, 3);
    }

    /** Hands the turn to the partner and blocks until it comes back. */
    static void waitTurn() {
        workerTurn = false;
        LockSupport.unpark(partner);
        while (!workerTurn) {
            LockSupport.park();
        }
    }

    /** Gives the turn back each time the worker hands it over. */
    static void partner() {
        while (!done) {
            while (workerTurn && !done) {
                LockSupport.park();
            }
            workerTurn = true;
            LockSupport.unpark(worker);
        }
    }

    static void writes(FileOutputStream out, int n) throws IOException {
        byte[] one = new byte[1];
        for (int i = 0; i < n; i++) {
            out.write(one);
        }
    }

    static long spin(int n) {
        long x = 0;
        for (int i = 0; i < n; i++) {
            x += i * 31L ^ (x >>> 3);
        }
        return x;
    }

    private BlockMix() {
    }
}

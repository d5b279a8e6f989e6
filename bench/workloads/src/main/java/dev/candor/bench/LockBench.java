package dev.candor.bench;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A lock-heavy fixed-work workload (bench/events): {@code --threads} threads (default 4, twice the
 * vCPUs here) each do {@code --iterations} rounds; a round enters one of two shared locks, drawn at
 * random, a {@link ReentrantLock} (waiters park: {@code LockSupport.park} with the lock as blocker) or
 * a plain monitor ({@code synchronized}: waiters that fail to spin block in the VM), does about
 * {@code --inside} steps of arithmetic inside and {@code --outside} steps outside (each drawn between
 * half and one and a half times that, so the threads do not settle into a lock-step that never
 * collides). About one critical section in {@code --yield-every} (rounded down to a power of two; 0:
 * never) yields the CPU while it holds the lock, as a holder that is preempted does: the threads that
 * run meanwhile queue up behind it. So most entries are contended however busy the machine is: many
 * waits of tens of µs, some of milliseconds.
 *
 * <pre>locks [--threads 4] [--iterations 100000] [--inside 1000] [--outside 1000] [--yield-every 4] [--seconds S]</pre>
 *
 * <p>The summary line is LibRun's ({@code elapsed_ms}, {@code cpu_ms} of the whole process,
 * {@code thread_cpu_ms} of the main thread, which only waits here, and a checksum that does not
 * depend on the interleaving: each thread's draws are its own). A second line,
 * {@code locks-waits: …}, gives what the workload saw itself: ReentrantLock acquisitions that found
 * it taken (a failed {@code tryLock}) and acquisitions of each lock that took at least 10 µs from
 * asking to holding (System.nanoTime around it), a rough truth for the lock profilers' counts at
 * {@code lock=10us}, and the CPU time of the worker threads (ThreadMXBean, their whole lives): where
 * a lock profiler's callbacks run, without the JIT and GC threads' noise.
 */
final class LockBench {
    private LockBench() {}

    static final long SLOW_NS = 10_000;

    static void main(String[] args) throws Exception {
        int threads = Main.intOpt(args, "--threads", 4);
        int iterations = Main.intOpt(args, "--iterations", 100_000);
        int inside = Main.intOpt(args, "--inside", 1000);
        int outside = Main.intOpt(args, "--outside", 1000);
        int yieldEvery = Main.intOpt(args, "--yield-every", 4);
        LongAdder rlTaken = new LongAdder();
        LongAdder rlSlow = new LongAdder();
        LongAdder monSlow = new LongAdder();
        LongAdder workersCpu = new LongAdder();
        LibRun.run("locks", String.format(Locale.ROOT, "threads=%d iterations=%d inside=%d outside=%d yield_every=%d",
                threads, iterations, inside, outside, yieldEvery), args,
                loop -> work(threads, iterations, inside, outside, yieldEvery, rlTaken, rlSlow, monSlow, workersCpu));
        System.out.printf(Locale.ROOT,
                "locks-waits: reentrantlock_taken=%d reentrantlock_ge10us=%d monitor_ge10us=%d workers_cpu_ms=%d%n",
                rlTaken.sum(), rlSlow.sum(), monSlow.sum(), workersCpu.sum() / 1_000_000);
    }

    /** The shared state both locks guard; sums only, so the result does not depend on the order. */
    static final class Shared {
        long a;
        long b;
    }

    static long mix(long x, int steps) {
        for (int i = 0; i < steps; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static long work(int threads, int iterations, int inside, int outside, int yieldEvery,
                     LongAdder rlTaken, LongAdder rlSlow, LongAdder monSlow, LongAdder workersCpu)
            throws InterruptedException {
        // a power of two: a holder yields the CPU in about one critical section of yieldEvery (0: never)
        final long yieldMask = Math.max(1, Long.highestOneBit(yieldEvery)) - 1;
        ReentrantLock lock = new ReentrantLock();
        Object monitor = new Object();
        Shared shared = new Shared();
        LongAdder local = new LongAdder();
        CountDownLatch start = new CountDownLatch(1);
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final long seed = 0x9E3779B97F4A7C15L * (t + 1);
            ts[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                long x = seed;
                long mine = 0;
                for (int i = 0; i < iterations; i++) {
                    // which lock and how long inside and outside: drawn from the thread's own sequence,
                    // so that threads do not fall into a lock-step that never collides
                    int in = inside / 2 + (int) ((x >>> 8) % (inside + 1));
                    int out = outside / 2 + (int) ((x >>> 24) % (outside + 1));
                    long t0 = System.nanoTime();
                    if ((x & 1) == 0) {
                        if (!lock.tryLock()) {
                            rlTaken.increment();
                            lock.lock();
                        }
                        try {
                            if (System.nanoTime() - t0 >= SLOW_NS) {
                                rlSlow.increment();
                            }
                            x = mix(x, in);
                            shared.a += x & 0xffff;
                            if (yieldEvery > 0 && ((x >>> 40) & yieldMask) == 0) {
                                Thread.yield();  // as if preempted while holding it: waiters queue up
                            }
                        } finally {
                            lock.unlock();
                        }
                    } else {
                        synchronized (monitor) {
                            if (System.nanoTime() - t0 >= SLOW_NS) {
                                monSlow.increment();
                            }
                            x = mix(x, in);
                            shared.b += x & 0xffff;
                            if (yieldEvery > 0 && ((x >>> 40) & yieldMask) == 0) {
                                Thread.yield();
                            }
                        }
                    }
                    x = mix(x, out);
                    mine += x & 0xff;
                }
                local.add(mine);
                workersCpu.add(ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime());
            }, "locks-" + t);
            ts[t].start();
        }
        start.countDown();
        for (Thread th : ts) {
            th.join();
        }
        synchronized (monitor) {
            lock.lock();
            try {
                return shared.a * 31 + shared.b + local.sum();
            } finally {
                lock.unlock();
            }
        }
    }
}

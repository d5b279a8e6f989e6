package dev.candor.itest.workload;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.SynchronousQueue;

/**
 * Known-answer workload for CPU coverage under heavy context switching: pairs of threads,
 * {@code ping-N} and {@code pong-N}, hand a number to each other through two SynchronousQueues
 * and do a little arithmetic in between, so each thread blocks and wakes tens of thousands of
 * times a second and most of its CPU is the kernel's switching and futex work. With one pair on
 * two CPUs, one CPU is often idle: the case where a per-CPU timer's tick, expiring while its
 * thread is switched out, fires in the idle task. Each thread measures its own CPU time with
 * ThreadMXBean as its last act and writes it as the truth {@code cpu_ns.<thread name>}.
 *
 * <p>Usage: {@code HandOff TRUTH_FILE SECONDS PAIRS}.
 */
public final class HandOff {
    public static final String PING = "ping-";
    public static final String PONG = "pong-";
    static volatile int sink;

    public static void main(String[] args) throws Exception {
        Path truthFile = Path.of(args[0]);
        long end = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
        int pairs = Integer.parseInt(args[2]);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Truth truth = new Truth();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < pairs; i++) {
            SynchronousQueue<Integer> there = new SynchronousQueue<>();
            SynchronousQueue<Integer> back = new SynchronousQueue<>();
            threads.add(new Thread(() -> {
                try {
                    int x = 0;
                    while (System.nanoTime() < end) {
                        there.put(x);
                        x = back.take() + spin(2000);
                    }
                    there.put(-1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                truth.put("cpu_ns." + Thread.currentThread().getName(), mx.getCurrentThreadCpuTime());
            }, PING + i));
            threads.add(new Thread(() -> {
                try {
                    for (int x = there.take(); x >= 0; x = there.take()) {
                        back.put(x + spin(2000));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                truth.put("cpu_ns." + Thread.currentThread().getName(), mx.getCurrentThreadCpuTime());
            }, PONG + i));
        }
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        truth.put("pairs", pairs).write(truthFile);
        System.out.println("workload done");
    }

    static int spin(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += i * 31 ^ s;
        }
        sink = s;
        return s & 1;
    }

    private HandOff() {
    }
}

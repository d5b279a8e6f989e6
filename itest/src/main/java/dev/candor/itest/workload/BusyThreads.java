package dev.candor.itest.workload;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Busy threads, each calling one hot method for a given wall time. A thread with a duty cycle
 * below 1 works that fraction of every 10 ms period and sleeps the rest, so threads can be given
 * different CPU shares while they run side by side.
 *
 * <p>Usage: {@code BusyThreads TRUTH_FILE SECONDS NAME:METHOD:DUTY...}, METHOD {@code A} or
 * {@code B}, DUTY in (0, 1]. Truth keys per thread NAME: {@code NAME.cpu_ns} (the thread's CPU time
 * at its end), {@code NAME.hot_ns} (CPU time inside the hot method), {@code NAME.tid}.
 */
public final class BusyThreads {
    private static final long PERIOD_NS = 10_000_000L;

    public static void main(String[] args) throws Exception {
        Path truthFile = Path.of(args[0]);
        long durationNs = (long) (Double.parseDouble(args[1]) * 1e9);
        Truth truth = new Truth();
        Hot.cpu();
        Hot.warmUp();
        long deadline = System.nanoTime() + durationNs;
        List<Thread> threads = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            String[] spec = args[i].split(":");
            String name = spec[0];
            char method = spec[1].charAt(0);
            double duty = Double.parseDouble(spec[2]);
            Thread t = new Thread(() -> {
                long hot = 0;
                int x = 0;
                int chunk = duty >= 1.0 ? Hot.CHUNK : Hot.CHUNK / 8;
                while (true) {
                    long periodStart = System.nanoTime();
                    if (periodStart >= deadline) {
                        break;
                    }
                    long workUntil = duty >= 1.0 ? deadline : periodStart + (long) (PERIOD_NS * duty);
                    do {
                        long a = Hot.cpu();
                        x += Hot.run(method, chunk, x);
                        hot += Hot.cpu() - a;
                    } while (System.nanoTime() < workUntil);
                    if (duty < 1.0) {
                        long sleepNs = periodStart + PERIOD_NS - System.nanoTime();
                        if (sleepNs > 0) {
                            try {
                                Thread.sleep(sleepNs / 1_000_000, (int) (sleepNs % 1_000_000));
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    }
                }
                Hot.sink = x;
                truth.put(name + ".cpu_ns", Hot.cpu()).put(name + ".hot_ns", hot).put(name + ".tid", Hot.osTid());
            }, name);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        truth.write(truthFile);
        System.out.println("workload done");
    }

    private BusyThreads() {
    }
}

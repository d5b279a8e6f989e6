package dev.candor.itest.stress;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Thread churn: thousands of short-lived threads per second, each doing a little CPU work and
 * allocation, so the agent arms and disarms timers (ThreadStart/ThreadEnd) at a high rate while
 * signals are in flight. Usage: {@code ThreadChurn SECONDS}.
 */
public final class ThreadChurn {
    public static void main(String[] args) throws Exception {
        Stress s = Stress.of("threadchurn", args);
        AtomicLong started = new AtomicLong();
        long t0 = System.nanoTime();
        s.workers(2, w -> {
            List<Thread> batch = new ArrayList<>(32);
            for (int i = 0; i < 32; i++) {
                Thread t = new Thread(ThreadChurn::shortLife, "churn-" + w + "-" + i);
                t.start();
                batch.add(t);
            }
            started.addAndGet(batch.size());
            for (Thread t : batch) {
                t.join();
            }
        });
        double secs = (System.nanoTime() - t0) / 1e9;
        s.figure("threads", started.get());
        s.figure("threads_per_s", Math.round(started.get() / secs));
        s.finish();
    }

    static void shortLife() {
        long x = Thread.currentThread().getId();
        for (int i = 0; i < 20_000; i++) {
            x = x * 6364136223846793005L + i;
        }
        byte[] junk = new byte[256 + (int) (x & 1023)];
        Stress.sink += x + junk.length;
    }

    private ThreadChurn() {
    }
}

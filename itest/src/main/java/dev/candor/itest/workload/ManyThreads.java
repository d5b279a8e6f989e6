package dev.candor.itest.workload;

import java.util.concurrent.CountDownLatch;

/**
 * Many mostly idle threads and a few busy ones, for the wall sampler's per-tick cost:
 * {@code ManyThreads IDLE BUSY SECONDS}. Idle threads park on a latch; busy ones (named
 * {@code busy-N}) compute until the time is up.
 */
public final class ManyThreads {
    static volatile int sink;

    public static void main(String[] args) throws Exception {
        int idle = Integer.parseInt(args[0]);
        int busy = Integer.parseInt(args[1]);
        double seconds = Double.parseDouble(args[2]);
        CountDownLatch never = new CountDownLatch(1);
        for (int i = 0; i < idle; i++) {
            Thread t = new Thread(() -> {
                try {
                    never.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "idle-" + i);
            t.setDaemon(true);
            t.start();
        }
        long end = System.nanoTime() + (long) (seconds * 1e9);
        Thread[] workers = new Thread[busy];
        for (int i = 0; i < busy; i++) {
            workers[i] = new Thread(() -> {
                int x = 0;
                while (System.nanoTime() < end) x = Hot.methodA(1 << 16, x);
                sink = x;
            }, "busy-" + i);
            workers[i].start();
        }
        for (Thread w : workers) w.join();
        System.exit(0);
    }

    private ManyThreads() {
    }
}

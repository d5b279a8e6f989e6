package dev.candor.itest.stress;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Virtual threads (JDK 21+, reached by reflection since the workloads compile for 17): many
 * virtual threads that compute, park, sleep, yield and contend on locks and monitors, so they
 * mount and unmount on carrier threads while samples arrive. Usage: {@code VirtualThreads SECONDS}.
 */
public final class VirtualThreads {
    static final Object MONITOR = new Object();
    static final ReentrantLock LOCK = new ReentrantLock();

    public static void main(String[] args) throws Exception {
        Stress s = Stress.of("virtualthreads", args);
        ExecutorService pool = (ExecutorService) java.util.concurrent.Executors.class
                .getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        AtomicLong done = new AtomicLong();
        long tasks = 0;
        try {
            while (s.running()) {
                Future<?>[] batch = new Future<?>[2000];
                for (int i = 0; i < batch.length; i++) {
                    int k = i;
                    batch[i] = pool.submit(() -> {
                        long x = k;
                        for (int r = 0; r < 5; r++) {
                            for (int j = 0; j < 2000; j++) {
                                x = x * 31 + j;
                            }
                            switch ((k + r) % 4) {
                                case 0 -> LockSupport.parkNanos(50_000);
                                case 1 -> Thread.yield();
                                case 2 -> {
                                    synchronized (MONITOR) {
                                        x += MONITOR.hashCode();
                                    }
                                }
                                default -> {
                                    LOCK.lock();
                                    try {
                                        x ^= 1;
                                    } finally {
                                        LOCK.unlock();
                                    }
                                }
                            }
                        }
                        Stress.sink += x;
                        done.incrementAndGet();
                    });
                }
                for (Future<?> f : batch) {
                    f.get(60, TimeUnit.SECONDS);
                }
                tasks += batch.length;
            }
        } finally {
            pool.shutdown();
            pool.awaitTermination(60, TimeUnit.SECONDS);
        }
        s.figure("virtual_threads", tasks);
        s.figure("completed", done.get());
        s.finish();
    }

    private VirtualThreads() {
    }
}

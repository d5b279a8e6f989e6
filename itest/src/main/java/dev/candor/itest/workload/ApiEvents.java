package dev.candor.itest.workload;

import dev.candor.api.Candor;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Allocation and lock profiling through the candor-api jar: one session with
 * {@code event=alloc,lock} while two threads contend on a ReentrantLock and a monitor and a third
 * allocates byte[]s, then a cpu session while the same threads run on; each writes its
 * collapsed profile and stats to OUT_DIR (events.* and cpu.*).
 *
 * <p>Usage: {@code ApiEvents OUT_DIR}.
 */
public final class ApiEvents {
    static final ReentrantLock LOCK = new ReentrantLock();
    static final Object MONITOR = new Object();
    static volatile boolean running = true;
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        Thread[] threads = {
            new Thread(ApiEvents::holdLocks, "holder"),
            new Thread(ApiEvents::takeLocks, "waiter"),
            new Thread(ApiEvents::allocate, "allocator"),
        };
        for (Thread t : threads) {
            t.start();
        }
        Candor.start("event=alloc,lock,alloc=512k,lock=1ms,file=" + out.resolve("events.collapsed") + ",stats="
                + out.resolve("events.json"));
        Thread.sleep(2000);
        Candor.stop();
        Candor.start("event=cpu,interval=1ms,file=" + out.resolve("cpu.collapsed") + ",stats=" + out.resolve("cpu.json"));
        Thread.sleep(1000);
        Candor.stop();
        running = false;
        for (Thread t : threads) {
            t.join();
        }
        Files.writeString(out.resolve("events.done"), "ok\n");
    }

    static void holdLocks() {
        while (running) {
            LOCK.lock();
            try {
                synchronized (MONITOR) {
                    LockMix.sleepNs(5_000_000);
                }
            } finally {
                LOCK.unlock();
            }
            LockMix.sleepNs(500_000);
        }
    }

    static void takeLocks() {
        while (running) {
            waitForLock();
            waitForMonitor();
        }
    }

    static void waitForLock() {
        LOCK.lock();
        LOCK.unlock();
    }

    static void waitForMonitor() {
        synchronized (MONITOR) {
            sink = MONITOR;
        }
    }

    static void allocate() {
        while (running) {
            for (int i = 0; i < 1000; i++) {
                sink = new byte[512];
            }
            Thread.onSpinWait();
        }
    }

    private ApiEvents() {
    }
}

package dev.candor.itest.workload;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A server's many threads, each allocating and taking contended locks, for the memory an agent's
 * per-thread state costs: {@code ManyAllocators THREADS SECONDS DEPTH}. Threads {@code worker-N}
 * allocate 1 KB arrays and, every 64th array, take a shared ReentrantLock and a shared monitor
 * (held briefly, so they park and block); one more thread, {@code deep}, allocates at the bottom of
 * a DEPTH-frame recursion whose outermost frame is {@code deepRoot}. At the end it prints the
 * process's peak resident memory as "peak rss kb: N" (VmHWM).
 */
public final class ManyAllocators {
    static final ReentrantLock LOCK = new ReentrantLock();
    static final Object MONITOR = new Object();
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        long end = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9);
        int depth = Integer.parseInt(args[2]);
        Thread[] all = new Thread[threads + 1];
        for (int i = 0; i < threads; i++) {
            all[i] = new Thread(() -> work(end), "worker-" + i);
        }
        all[threads] = new Thread(() -> deepRoot(depth, end), "deep");
        for (Thread t : all) t.start();
        for (Thread t : all) t.join();
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) System.out.println("peak rss kb: " + line.replaceAll("\\D", ""));
        }
    }

    static void work(long end) {
        int n = 0;
        while (System.nanoTime() < end) {
            sink = new byte[1024];
            if (++n % 64 == 0) {
                LOCK.lock();
                try {
                    synchronized (MONITOR) {
                        sink = new byte[16];
                    }
                } finally {
                    LOCK.unlock();
                }
            }
        }
    }

    static void deepRoot(int depth, long end) {
        recurse(depth, end);
    }

    static void recurse(int depth, long end) {
        if (depth > 0) {
            recurse(depth - 1, end);
            return;
        }
        while (System.nanoTime() < end) sink = new byte[4096];
    }

    private ManyAllocators() {
    }
}

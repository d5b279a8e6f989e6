package dev.candor.itest.workload;

/**
 * Contended monitor: {@value #THREADS} threads named {@value #THREAD_PREFIX}N take one monitor in
 * a tight loop. Compiled code leaves a contended monitor through a leaf call into the VM
 * ({@code SharedRuntime::complete_monitor_unlocking_C}, no thread-state change) that wakes the
 * next owner through glibc ({@code pthread_cond_signal}, a futex system call): C code without
 * frame pointers on top of Java frames, in the Java thread state.
 *
 * <p>Usage: {@code MonitorContention SECONDS}.
 */
public final class MonitorContention {
    public static final int THREADS = 4;
    public static final String THREAD_PREFIX = "contender-";
    public static final String LOOP = MonitorContention.class.getName() + ".contend";
    private static final Object LOCK = new Object();
    private static long counter;
    public static volatile long sink;

    public static void main(String[] args) throws Exception {
        long endNs = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
        Thread[] threads = new Thread[THREADS];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = new Thread(() -> sink += contend(endNs), THREAD_PREFIX + i);
            threads[i].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("workload done");
    }

    static long contend(long endNs) {
        long x = 1;
        while (System.nanoTime() < endNs) {
            synchronized (LOCK) {
                for (int k = 0; k < 200; k++) {
                    counter += k;
                }
            }
            for (int k = 0; k < 500; k++) {
                x += k * x;
            }
        }
        return x;
    }
}

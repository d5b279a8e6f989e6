package dev.candor.itest.workload;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The hot methods of the integration-test workloads: counted int loops without calls, whose
 * result is consumed. Launch with {@code -XX:CompileCommand=dontinline,...Hot::*} so each stays
 * its own frame (see {@link #DONT_INLINE}).
 */
public final class Hot {
    /** JVM option keeping the hot methods out of their callers. */
    public static final String DONT_INLINE = "-XX:CompileCommand=dontinline,dev.candor.itest.workload.Hot::*";
    /** Frame names as the agent writes them. */
    public static final String METHOD_A = "dev.candor.itest.workload.Hot.methodA";
    public static final String METHOD_B = "dev.candor.itest.workload.Hot.methodB";

    /** Iterations per call: about a millisecond of CPU. */
    public static final int CHUNK = 1 << 19;

    static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** Consumes results so the loops cannot be removed. */
    static volatile int sink;

    public static int methodA(int n, int seed) {
        int x = seed;
        for (int i = 0; i < n; i++) {
            x = (x ^ (x >>> 15)) * 0x2C1B3C6D + i;
        }
        return x;
    }

    public static int methodB(int n, int seed) {
        int x = seed;
        for (int i = 0; i < n; i++) {
            x = (x ^ (x >>> 13)) * 0x297A2D39 - i;
        }
        return x;
    }

    static int run(char which, int n, int seed) {
        return which == 'A' ? methodA(n, seed) : methodB(n, seed);
    }

    /** Calls both methods often with short loops so that both get compiled. */
    static void warmUp() {
        int x = 0;
        for (int i = 0; i < 20_000; i++) {
            x += methodA(500, i);
            x += methodB(500, i);
        }
        sink = x;
    }

    /** CPU time of the calling thread, ns. */
    static long cpu() {
        return THREADS.getCurrentThreadCpuTime();
    }

    /** The OS thread id of the calling thread (from /proc/thread-self), or -1. */
    static long osTid() {
        try {
            String link = java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/thread-self")).toString();
            return Long.parseLong(link.substring(link.lastIndexOf('/') + 1));
        } catch (Exception e) {
            return -1;
        }
    }

    private Hot() {
    }
}

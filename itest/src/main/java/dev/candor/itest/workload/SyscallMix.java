package dev.candor.itest.workload;

import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;

/**
 * Known-answer workload for kernel time: one thread, {@value #THREAD}, alternates a pure-Java loop
 * ({@link #javaPhase}) with a loop of one-byte writes to /dev/null ({@link #syscallPhase}, most of
 * whose CPU is spent in the kernel), 50 ms of wall time each. The thread's CPU time (user +
 * system) and user time are measured around every phase with ThreadMXBean and written as the
 * truth: {@code java_cpu_ns}, {@code syscall_cpu_ns}, {@code syscall_user_ns}.
 *
 * <p>Usage: {@code SyscallMix TRUTH_FILE SECONDS}.
 */
public final class SyscallMix {
    public static final String THREAD = "syscall-worker";
    public static final String JAVA_PHASE = SyscallMix.class.getName() + ".javaPhase";
    public static final String SYSCALL_PHASE = SyscallMix.class.getName() + ".syscallPhase";
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        Path truthFile = Path.of(args[0]);
        long seconds = Long.parseLong(args[1]);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Truth truth = new Truth();
        Thread worker = new Thread(() -> {
            long javaCpu = 0, sysCpu = 0, sysUser = 0;
            try (FileOutputStream out = new FileOutputStream("/dev/null")) {
                long end = System.nanoTime() + seconds * 1_000_000_000L;
                while (System.nanoTime() < end) {
                    long c0 = mx.getCurrentThreadCpuTime();
                    sink += javaPhase(50_000_000L);
                    long c1 = mx.getCurrentThreadCpuTime();
                    long u1 = mx.getCurrentThreadUserTime();
                    syscallPhase(out, 50_000_000L);
                    long c2 = mx.getCurrentThreadCpuTime();
                    long u2 = mx.getCurrentThreadUserTime();
                    javaCpu += c1 - c0;
                    sysCpu += c2 - c1;
                    sysUser += u2 - u1;
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            truth.put("java_cpu_ns", javaCpu).put("syscall_cpu_ns", sysCpu).put("syscall_user_ns", sysUser);
        }, THREAD);
        worker.start();
        worker.join();
        truth.put("thread", THREAD).write(truthFile);
        System.out.println("workload done");
    }

    static long javaPhase(long wallNs) {
        long end = System.nanoTime() + wallNs;
        long x = 0;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 10_000; i++) {
                x += i * 31L ^ (x >>> 3);
            }
        }
        return x;
    }

    static void syscallPhase(FileOutputStream out, long wallNs) throws IOException {
        long end = System.nanoTime() + wallNs;
        byte[] one = new byte[1];
        while (System.nanoTime() < end) {
            for (int i = 0; i < 100; i++) {
                out.write(one);
            }
        }
    }

    private SyscallMix() {
    }
}

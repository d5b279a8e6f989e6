package dev.candor.accuracy.cases;

import java.io.IOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The truth of a workload, measured inside it: CPU time (ThreadMXBean, per thread) of measured
 * regions, each charged to a calling context, written as a weighted collapsed tree (CPU ns per
 * stack) that {@code candor compare} reads.
 *
 * <pre>
 * long t = Truth.start();
 * x += hot(a);                                 // the measured region
 * Truth.stop(t, SITE, "pkg.Case.hot");         // charged to: this method's stack + the callees named
 * </pre>
 *
 * The stack of the method calling {@link #stop} comes from a {@link StackWalker} showing hidden
 * and reflection frames, i.e. the frames a JVM profiler sees (lambda proxies, LambdaForms,
 * reflection accessors). Walking costs microseconds, so a site's stack is walked on each of the
 * site's first 20 calls on a thread (JDK 17 switches reflection to generated accessors after 15
 * calls) and on every 256th call after that, and reused in between. Regions should be long
 * (milliseconds), so that the measurement costs well under 1% of the CPU. The walker is warmed up
 * on the main thread (class loading, method handle linkage) before workers start.
 */
public final class Truth {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final StackWalker WALKER = StackWalker.getInstance(
            Set.of(StackWalker.Option.SHOW_HIDDEN_FRAMES, StackWalker.Option.SHOW_REFLECT_FRAMES));
    private static final Map<String, LongAdder> STACKS = new ConcurrentHashMap<>();
    private static final ThreadLocal<Map<Integer, Site>> SITES = ThreadLocal.withInitial(HashMap::new);
    private static final LongAdder MEASURED = new LongAdder();
    private static final Map<String, Long> THREAD_CPU = new ConcurrentHashMap<>();

    private static final class Site {
        String stack;
        long calls;
    }

    /** Consumes results so that loops cannot be removed. */
    public static volatile long sink;

    private Truth() {
    }

    /** The calling thread's CPU time, ns. */
    public static long start() {
        return THREADS.getCurrentThreadCpuTime();
    }

    /**
     * Charges the CPU time since {@code t0} to the caller's calling context followed by the named
     * callees ({@code package.Class.method}, outermost first).
     *
     * @param site identifies the call site within the calling thread (same stack every time, up to
     *             generated frames)
     */
    public static void stop(long t0, int site, String... callees) {
        record(THREADS.getCurrentThreadCpuTime() - t0, site, false, callees);
    }

    /**
     * Charges {@code ns} of CPU measured by the caller (for regions too short to measure one by one
     * with {@link #stop}, whose caller subtracts the reads' own cost) to the caller's calling context
     * followed by the named callees.
     */
    public static void charge(long ns, int site, String... callees) {
        record(ns, site, false, callees);
    }

    /** {@link #stop}, walking the site's stack only once: for sites whose stack never changes (deep recursion). */
    public static void stopOnce(long t0, int site, String... callees) {
        record(THREADS.getCurrentThreadCpuTime() - t0, site, true, callees);
    }

    private static void record(long d, int site, boolean once, String... callees) {
        Site s = SITES.get().computeIfAbsent(site, k -> new Site());
        if (s.stack == null || !once && (s.calls < 20 || s.calls % 256 == 0)) {
            s.stack = callerStack(callees);
        }
        s.calls++;
        STACKS.computeIfAbsent(s.stack, k -> new LongAdder()).add(d);
        MEASURED.add(d);
    }

    /** Records the calling thread's total CPU time (call at the end of each measured thread). */
    public static void threadDone() {
        THREAD_CPU.put(Thread.currentThread().getName(), THREADS.getCurrentThreadCpuTime());
    }

    // the frames of stop's caller, root first, then the callees
    private static String callerStack(String[] callees) {
        List<String> frames = WALKER.walk(s -> s.dropWhile(f -> f.getClassName().equals(Truth.class.getName()))
                .map(f -> f.getClassName() + "." + f.getMethodName()).toList());
        List<String> out = new ArrayList<>(frames.size() + callees.length);
        for (int i = frames.size() - 1; i >= 0; i--) {
            out.add(frames.get(i));
        }
        out.addAll(List.of(callees));
        return String.join(";", out);
    }

    /**
     * Writes the truth tree ({@code FILE}, collapsed stacks weighted by CPU ns) and a properties
     * file next to it ({@code FILE.properties}: measured ns, per-thread CPU ns, extra facts).
     */
    public static void write(Path file, Map<String, String> extra) throws IOException {
        Map<String, Long> sorted = new TreeMap<>();
        STACKS.forEach((k, v) -> sorted.put(k, v.sum()));
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (Map.Entry<String, Long> e : sorted.entrySet()) {
                if (e.getValue() > 0) {
                    w.write(e.getKey().replace(' ', '_') + " " + e.getValue() + "\n");
                }
            }
        }
        long threadsCpu = THREAD_CPU.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder p = new StringBuilder();
        p.append("measured_ns=").append(MEASURED.sum()).append('\n');
        p.append("threads_cpu_ns=").append(threadsCpu).append('\n');
        THREAD_CPU.forEach((name, ns) -> p.append("thread_cpu_ns.").append(name.replace(' ', '_')).append('=')
                .append(ns).append('\n'));
        extra.forEach((k, v) -> p.append(k).append('=').append(v).append('\n'));
        Files.writeString(Path.of(file + ".properties"), p.toString(), StandardCharsets.UTF_8);
    }

    /**
     * What two back-to-back reads of the calling thread's CPU clock add to a measured region, ns: for
     * regions too short to measure one by one, whose callers subtract it per region ({@link #charge}).
     */
    public static long readPairNs() {
        long sum = 0;
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            long t = start();
            sum += start() - t;
        }
        return sum / n;
    }

    /** Warms up the measurement (ThreadMXBean, the stack walker) on the calling thread. */
    public static void warmUp() {
        for (int i = 0; i < 50; i++) {
            sink += start() + callerStack(new String[0]).length();
        }
    }

    /** Runs {@code body} on a new thread of this name and waits for it. */
    public static void onThread(String name, Runnable body) throws InterruptedException {
        warmUp();
        Thread t = new Thread(() -> {
            body.run();
            threadDone();
        }, name);
        t.start();
        t.join();
    }
}

package dev.candor.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * Runs one library workload (H2, Jackson, Lucene, regex) and prints its summary line.
 *
 * <p>By default the workload's unit of work runs once: a FIXED amount of work whose size the
 * workload's own options scale. With {@code --seconds S} the unit runs again and again until S
 * seconds have passed (the memory phase of bench/run_bench.py records a 1-minute run this way); the
 * line then says how many loops were done.
 *
 * <p>The line reads {@code NAME: PARAMS loops=N elapsed_ms=… cpu_ms=… thread_cpu_ms=… checksum=…}:
 * {@code elapsed_ms} is the wall time of the work (JVM start-up excluded), {@code cpu_ms} the CPU
 * time of the whole process over the same span (OperatingSystemMXBean: JIT, GC and a profiler's own
 * threads included), {@code thread_cpu_ms} that of the main thread (ThreadMXBean).
 */
final class LibRun {
    private LibRun() {}

    /** One unit of a workload's work; returns a checksum that keeps the JIT from deleting it. */
    interface Work {
        long run(int loop) throws Exception;
    }

    static volatile long sink;

    static void run(String name, String params, String[] args, Work work) throws Exception {
        double seconds = doubleOpt(args, "--seconds", 0);
        ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
        long t0 = System.nanoTime();
        long cpu0 = processCpuNs();
        long th0 = tmx.getCurrentThreadCpuTime();
        long sum = 0;
        int loops = 0;
        do {
            sum = sum * 31 + work.run(loops);
            loops++;
        } while (seconds > 0 && System.nanoTime() - t0 < (long) (seconds * 1e9));
        long elapsed = System.nanoTime() - t0;
        long cpu = processCpuNs() - cpu0;
        long th = tmx.getCurrentThreadCpuTime() - th0;
        sink = sum;
        System.out.printf(Locale.ROOT, "%s: %s loops=%d elapsed_ms=%d cpu_ms=%d thread_cpu_ms=%d checksum=%x%n",
                name, params, loops, elapsed / 1_000_000, cpu / 1_000_000, th / 1_000_000, sum);
    }

    /**
     * {@code lib [--seconds S]}: the four library workloads in one JVM, one after the other at their
     * default sizes (h2, jackson, lucene, regex, h2, …); without --seconds each runs once. Its
     * {@code loops} counts whole cycles of the four: with --seconds the last cycle is always completed.
     */
    static void mixed(String[] args) throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        String[] jw = vocabulary(2000, 7);
        String[] lw = vocabulary(8000, 3);
        String[] rw = vocabulary(3000, 9);
        int[] done = new int[4];
        int churn = Main.intOpt(args, "--churn", 0);
        if (churn > 0) {
            startChurn(churn);
        }
        // one loop = one cycle of the four, so that every run (with --seconds: every run that lasts as long)
        // has done the same mix of work and loaded the same classes; --seconds overshoots by < 1 cycle
        run("lib", "h2+jackson+lucene+regex", args, loop -> {
            long s = 0;
            for (int i = 0; i < 4; i++) {
                s = s * 31 + switch (i) {
                    case 0 -> H2Bench.work(12000, 2000, 1000, 500, loop);
                    case 1 -> JsonBench.work(mapper, jw, 500, 250, loop);
                    case 2 -> LuceneBench.work(lw, 10000, 3000);
                    default -> RegexBench.work(rw, 20000, 4);
                };
                done[i]++;
            }
            return s;
        });
        System.out.printf("lib: runs h2=%d jackson=%d lucene=%d regex=%d%n", done[0], done[1], done[2], done[3]);
    }

    /**
     * Class churn beside the libraries (--churn N): N times a second a fresh class in a loader of
     * its own, its methods called through reflection for 2 ms (so their frames, and those of the
     * accessors reflection generates, are sampled), then dropped; a full GC every 10 s unloads them.
     */
    static void startChurn(int perSecond) {
        Thread t = new Thread(() -> {
            long nextGc = System.nanoTime() + 10_000_000_000L;
            long check = 0;
            for (int i = 0; ; i++) {
                long start = System.nanoTime();
                try {
                    String name = "churn.C" + i;
                    Class<?> c = new ClassLoadStorm.GenLoader().define(name, ClassLoadStorm.classBytes(name.replace('.', '/'), 4));
                    Object o = c.getDeclaredConstructor().newInstance();
                    java.lang.reflect.Method m = c.getMethod("m" + (i % 4), int.class);
                    while (System.nanoTime() - start < 2_000_000) {
                        check += (Integer) m.invoke(o, i);
                    }
                } catch (ReflectiveOperationException | java.io.IOException e) {
                    throw new IllegalStateException(e);
                }
                if (System.nanoTime() > nextGc) {
                    System.gc();
                    nextGc = System.nanoTime() + 10_000_000_000L;
                }
                sink += check;
                long sleep = 1_000_000_000L / perSecond - (System.nanoTime() - start);
                if (sleep > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(sleep);
                }
            }
        }, "churn");
        t.setDaemon(true);
        t.start();
    }

    static long processCpuNs() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            return sun.getProcessCpuTime();
        }
        return -1;
    }

    static double doubleOpt(String[] args, String name, double dflt) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return Double.parseDouble(args[i + 1]);
            }
        }
        return dflt;
    }

    /** Pseudo-words for generated text: {@code n} distinct lower-case words of 3 to 10 letters. */
    static String[] vocabulary(int n, long seed) {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
        String[] words = new String[n];
        java.util.Set<String> seen = new java.util.HashSet<>();
        String syll = "ba be bi bo bu ca ce ci co da de di do fa fe fi ga ge go ka ke ki ko la le li lo lu ma me mi mo "
                + "na ne ni no pa pe pi po ra re ri ro ru sa se si so ta te ti to va ve vi vo za ze zi";
        String[] sy = syll.split(" ");
        int i = 0;
        while (i < n) {
            StringBuilder sb = new StringBuilder();
            int k = 2 + rnd.nextInt(4);
            for (int j = 0; j < k; j++) {
                sb.append(sy[rnd.nextInt(sy.length)]);
            }
            if (rnd.nextInt(4) == 0) {
                sb.append("nt".charAt(rnd.nextInt(2)));
            }
            String w = sb.toString();
            if (seen.add(w)) {
                words[i++] = w;
            }
        }
        return words;
    }

    /** A Zipf-like pick: low indexes (frequent words) far more often than high ones. */
    static int zipf(java.util.SplittableRandom rnd, int n) {
        double u = rnd.nextDouble();
        return (int) (n * u * u * u);
    }
}

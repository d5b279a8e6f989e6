package dev.candor.bench;

import java.util.Arrays;

/**
 * Entry point of the benchmark workloads jar.
 *
 * <pre>
 *   java -jar candor-bench-workloads.jar cpu [--rounds N] [--threads N]
 *   java -jar candor-bench-workloads.jar classload [--generated N] [--methods N] [--jdk N]
 *   java -jar candor-bench-workloads.jar server [--threads 256] [--requests 200000]
 *   java -jar candor-bench-workloads.jar shortthreads [--threads 10000] [--work 200]
 *   java -jar candor-bench-workloads.jar deepstack [--depth 600] [--calls 25000]
 *   java -jar candor-bench-workloads.jar h2 [--txns 12000] [--seconds S]
 *   java -jar candor-bench-workloads.jar jackson [--orders 500] [--rounds 250] [--seconds S]
 *   java -jar candor-bench-workloads.jar lucene [--docs 10000] [--queries 3000] [--seconds S]
 *   java -jar candor-bench-workloads.jar regex [--lines 20000] [--rounds 4] [--seconds S]
 *   java -jar candor-bench-workloads.jar lib [--seconds S]
 *   java -jar candor-bench-workloads.jar locks [--threads 4] [--iterations 100000] [--inside 1000] [--outside 1000] [--yield-every 4]
 *   java -jar candor-bench-workloads.jar jetty [--threads 200] [--port-file F] [--bodies DIR] [--timeout S]
 *   java -jar candor-bench-workloads.jar hello
 * </pre>
 *
 * Every workload does a fixed amount of work (never a fixed time), prints one summary line and
 * exits with status 0. The library workloads (h2, jackson, lucene, regex; lib runs the four in turn)
 * repeat their fixed work until S seconds have passed when given {@code --seconds S}. The exception is
 * jetty, an HTTP server that serves until a driver (bench/server) stops it.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            usage();
            return;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        switch (args[0]) {
            case "cpu" -> CpuMix.main(rest);
            case "classload" -> ClassLoadStorm.main(rest);
            case "server" -> Threaded.server(rest);
            case "shortthreads" -> Threaded.shortThreads(rest);
            case "deepstack" -> Threaded.deepStack(rest);
            case "h2" -> H2Bench.main(rest);
            case "jackson" -> JsonBench.main(rest);
            case "lucene" -> LuceneBench.main(rest);
            case "regex" -> RegexBench.main(rest);
            case "lib" -> LibRun.mixed(rest);
            case "locks" -> LockBench.main(rest);
            case "jetty" -> JettyServer.main(rest);
            case "hello" -> System.out.println("hello");
            default -> usage();
        }
        ProcThreads.reportIfAsked();
    }

    private static void usage() {
        System.err.println("usage: java -jar candor-bench-workloads.jar WORKLOAD [options]");
        System.err.println("  cpu       [--rounds N] [--threads N]   fixed CPU-bound work (~6 s on 1 vCPU at the default)");
        System.err.println("  classload [--generated N] [--methods N] [--jdk N]   class-loading-heavy start-up, exits");
        System.err.println("  server    [--threads N] [--requests N]  many worker threads on one queue (server-like)");
        System.err.println("  shortthreads [--threads N] [--work N]  every task on a new short-lived thread");
        System.err.println("  deepstack [--depth N] [--calls N]     work at the bottom of a deep recursion");
        System.err.println("  h2        [--txns N] [--customers N] [--products N]   H2 in-memory SQL transactions");
        System.err.println("  jackson   [--orders N] [--rounds N]   Jackson JSON round trips of a POJO graph");
        System.err.println("  lucene    [--docs N] [--queries N]    Lucene indexing into ByteBuffersDirectory + queries");
        System.err.println("  regex     [--lines N] [--rounds N]    java.util.regex log-parsing pipeline");
        System.err.println("  lib                                   the four library workloads in turn");
        System.err.println("            (library workloads: --seconds S repeats the work until S seconds have passed)");
        System.err.println("  locks     [--threads N] [--iterations N] [--inside N] [--outside N] [--yield-every N]   threads");
        System.err.println("            contending for a shared ReentrantLock and a shared monitor (lock heavy, fixed work)");
        System.err.println("  jetty     [--threads N] [--port-file F] [--bodies DIR]   Jetty 12 HTTP server, driven by wrk");
        System.err.println("  hello                                    prints hello and exits");
        System.exit(2);
    }

    static int intOpt(String[] args, String name, int dflt) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return Integer.parseInt(args[i + 1]);
            }
        }
        return dflt;
    }
}

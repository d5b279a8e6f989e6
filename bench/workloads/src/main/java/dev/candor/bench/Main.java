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
 *   java -jar candor-bench-workloads.jar hello
 * </pre>
 *
 * Every workload does a fixed amount of work (never a fixed time), prints one summary line and
 * exits with status 0.
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
            case "hello" -> System.out.println("hello");
            default -> usage();
        }
        ProcThreads.reportIfAsked();
    }

    private static void usage() {
        System.err.println("usage: java -jar candor-bench-workloads.jar cpu|classload|hello [options]");
        System.err.println("  cpu       [--rounds N] [--threads N]   fixed CPU-bound work (~6 s on 1 vCPU at the default)");
        System.err.println("  classload [--generated N] [--methods N] [--jdk N]   class-loading-heavy start-up, exits");
        System.err.println("  server    [--threads N] [--requests N]  many worker threads on one queue (server-like)");
        System.err.println("  shortthreads [--threads N] [--work N]  every task on a new short-lived thread");
        System.err.println("  deepstack [--depth N] [--calls N]     work at the bottom of a deep recursion");
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

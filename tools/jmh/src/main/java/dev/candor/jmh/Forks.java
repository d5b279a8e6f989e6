package dev.candor.jmh;

import java.util.HashMap;
import java.util.Map;

/**
 * Which fork a benchmark JVM is, so that forks do not overwrite each other's files and warmup
 * forks (-wf) are not profiled at all. The benchmark JVM cannot tell by itself: the JMH host
 * names it, once per fork, through {@link #PROPERTY} in the JVM options it asks the profiler for
 * (JMH asks once per fork, warmup forks first).
 */
final class Forks {
    /** System property of a forked JVM: {@code warmup}, or its measurement fork number from 1. */
    static final String PROPERTY = "candor.jmh.fork";
    static final String WARMUP = "warmup";

    private final Map<String, Integer> launched = new HashMap<>(); // by BenchmarkParams.id()

    /** Host side: the property for the next fork JMH launches of benchmark ID. */
    synchronized String next(String id, int warmupForks) {
        int n = launched.merge(id, 1, Integer::sum);
        return n <= warmupForks ? WARMUP : Integer.toString(n - warmupForks);
    }

    /**
     * Benchmark side: the suffix of this fork's file names (empty with one fork, or when JMH runs
     * the benchmark in its own JVM, -f 0), or null for a warmup fork, which is not profiled.
     */
    static String suffix(String property, int forks) {
        if (property == null || property.isBlank()) {
            return "";
        }
        if (property.equals(WARMUP)) {
            return null;
        }
        return forks > 1 ? "-fork" + property : "";
    }
}

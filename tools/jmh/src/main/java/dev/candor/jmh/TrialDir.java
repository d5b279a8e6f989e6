package dev.candor.jmh;

import org.openjdk.jmh.infra.BenchmarkParams;

import java.nio.file.Path;

/**
 * Where one benchmark's outputs go: a directory per benchmark, mode and parameter set, named as
 * JMH's own integrations (-prof jfr, -prof async) name theirs, so that the files of several
 * profilers sit side by side: {@code org.Bench.work-Throughput-size-100}.
 */
public final class TrialDir {

    /**
     * The directory name: JMH's {@link BenchmarkParams#id()}, the benchmark, mode and each parameter
     * URL-encoded and joined with '-'. So it holds no '/' and no ',' (the agent's option separator
     * becomes {@code %2C}; candor, unlike async-profiler, expands no '%' in file names).
     */
    public static String name(BenchmarkParams params) {
        return params.id();
    }

    /** The directory under BASE for this benchmark. */
    public static Path of(Path base, BenchmarkParams params) {
        return base.resolve(name(params));
    }

    /**
     * The flame graph's title: the benchmark, its mode and parameters in readable form, separated by
     * spaces since a ',' would end the agent option ({@link ProfilerOptions#agentOptions} turns any
     * in a value into ';').
     */
    public static String title(BenchmarkParams params) {
        StringBuilder sb = new StringBuilder(params.getBenchmark()).append(" (").append(params.getMode().shortLabel());
        for (String key : params.getParamsKeys()) {
            sb.append(' ').append(key).append('=').append(params.getParam(key));
        }
        return sb.append(')').toString();
    }

    private TrialDir() {
    }
}

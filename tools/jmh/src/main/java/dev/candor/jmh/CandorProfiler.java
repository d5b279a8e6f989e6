package dev.candor.jmh;

import dev.candor.api.Candor;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.ExternalProfiler;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.profile.ProfilerException;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.TextResult;
import org.openjdk.jmh.runner.IterationType;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * {@code -prof dev.candor.jmh.CandorProfiler[:event=cpu;interval=1ms;dir=out]}: profiles each
 * benchmark's measurement iterations with candor, in the forked benchmark JVM through the
 * candor-api (which loads the agent bundled in its jar), and writes a flame graph and a summary
 * per benchmark and parameter set into {@code dir/<benchmark>-<mode>[-<param>-<value>...]/}.
 *
 * <p>Profiling starts before the first measurement iteration and stops after the last, so warmup
 * is never in the profile (the shape of JMH's own async-profiler integration, minus its warmup
 * session: candor needs none). The agent is loaded at the first iteration, warmup or not, so that
 * loading it costs no measurement time. It is an {@link ExternalProfiler} too, only to give the
 * forked JVM the options that make profiles exact ({@link #addJVMOptions}).
 */
public final class CandorProfiler implements InternalProfiler, ExternalProfiler {

    private final ProfilerOptions options;
    private final Forks forks = new Forks(); // host side: numbers the forks it launches
    private Trial trial; // the benchmark being run; a JVM may run several (fork 0)

    /** What JMH calls, with the text after {@code CandorProfiler:}. */
    public CandorProfiler(String initLine) throws ProfilerException {
        try {
            options = ProfilerOptions.parse(initLine);
        } catch (IllegalArgumentException e) {
            throw new ProfilerException(e.getMessage());
        }
        if (options.help()) {
            throw new ProfilerException(ProfilerOptions.HELP);
        }
    }

    /** For ServiceLoader discovery ({@code -lprof} lists discovered profilers): the defaults. */
    public CandorProfiler() throws ProfilerException {
        this("");
    }

    @Override
    public String getDescription() {
        return ProfilerOptions.DESCRIPTION;
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmark, IterationParams iteration) {
        if (trial == null || !trial.id.equals(benchmark.id())) {
            if (trial != null && trial.started) {
                Candor.stop(); // the last benchmark failed before its last iteration ended
            }
            trial = new Trial(benchmark.id());
            try {
                Candor.status(); // loads the agent now, outside any measured iteration
            } catch (RuntimeException e) {
                throw new IllegalStateException("candor: " + e.getMessage(), e); // no agent, or it cannot load
            }
        }
        if (iteration.getType() == IterationType.MEASUREMENT && !trial.started && !trial.done) {
            String suffix = Forks.suffix(System.getProperty(Forks.PROPERTY), benchmark.getForks());
            if (suffix == null) {
                trial.done = true; // a warmup fork (-wf): its results are discarded, so is its profile
                return;
            }
            Path dir = TrialDir.of(Path.of(options.dir()).toAbsolutePath().normalize(), benchmark);
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new IllegalStateException("candor: cannot create " + dir + ": " + e.getMessage(), e);
            }
            try {
                Candor.start(options.agentOptions(dir, suffix, TrialDir.title(benchmark)));
            } catch (RuntimeException e) {
                // the agent's own one-line reason (an unknown option, profiling already running)
                throw new IllegalStateException("candor: cannot start profiling " + benchmark.getBenchmark() + ": "
                        + e.getMessage(), e);
            }
            trial.started = true;
            trial.files = options.files(dir, suffix);
        }
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmark, IterationParams iteration,
                                                       IterationResult result) {
        if (iteration.getType() != IterationType.MEASUREMENT || trial == null || !trial.started) {
            return List.of();
        }
        trial.measured++;
        if (trial.measured < iteration.getCount()) {
            return List.of();
        }
        trial.started = false;
        trial.done = true;
        try {
            Candor.stop(); // writes the files
        } catch (RuntimeException e) {
            throw new IllegalStateException("candor: cannot write the profile of " + benchmark.getBenchmark() + ": "
                    + e.getMessage(), e);
        }
        return List.of(new TextResult(ResultText.of(trial.files), "candor"));
    }

    @Override
    public Collection<String> addJVMOptions(BenchmarkParams params) {
        List<String> args = new ArrayList<>();
        // JMH asks once per fork it launches: tell the fork which one it is
        args.add("-D" + Forks.PROPERTY + "=" + forks.next(params.id(), params.getWarmupForks()));
        // Debug info at every pc of compiled code, not only at safepoints: samples are charged to
        // the method that ran, also for code compiled during warmup, before the agent loaded
        // (the agent's JVMTI capability turns this on only for code compiled after it loads).
        args.add("-XX:+UnlockDiagnosticVMOptions");
        args.add("-XX:+DebugNonSafepoints");
        // candor-api loads the agent with System.load, which JDK 24+ warns about unless allowed
        if (feature(params.getJdkVersion()) >= 17) {
            args.add("--enable-native-access=ALL-UNNAMED");
        }
        return args;
    }

    @Override
    public Collection<String> addJVMInvokeOptions(BenchmarkParams params) {
        return List.of();
    }

    @Override
    public void beforeTrial(BenchmarkParams benchmarkParams) {
    }

    @Override
    public Collection<? extends Result> afterTrial(BenchmarkResult br, long pid, File stdOut, File stdErr) {
        return List.of();
    }

    @Override
    public boolean allowPrintOut() {
        return true;
    }

    @Override
    public boolean allowPrintErr() {
        return true;
    }

    // The feature release of a java.version string ("17.0.15", "25", "1.8.0_402" is 8), or 0.
    static int feature(String javaVersion) {
        if (javaVersion == null) {
            return 0;
        }
        String v = javaVersion.startsWith("1.") ? javaVersion.substring(2) : javaVersion;
        int end = 0;
        while (end < v.length() && Character.isDigit(v.charAt(end))) {
            end++;
        }
        return end == 0 ? 0 : Integer.parseInt(v.substring(0, Math.min(end, 9)));
    }

    /** One benchmark with one parameter set: its id, whether profiling runs, iterations seen. */
    private static final class Trial {
        final String id;
        boolean started;
        boolean done;
        int measured;
        List<Path> files = List.of();

        Trial(String id) {
            this.id = id;
        }
    }
}

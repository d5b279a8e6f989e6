package dev.candor.itest;

import dev.candor.itest.stress.AllocStorm;
import dev.candor.itest.workload.SyscallMix;
import dev.candor.itest.stress.DeoptStorm;
import dev.candor.itest.stress.ExceptionStorm;
import dev.candor.itest.stress.ThreadChurn;
import dev.candor.model.CollapsedProfile;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Signal-safety audit: a real profiling run at 100 µs under the LD_PRELOAD interposer
 * agent/audit/candor_audit.c, which wraps candor's signal handler (via sigaction) and counts
 * every call of malloc/free, pthread locks and condition variables, stdio and formatting, the
 * dynamic loader, backtrace ... made while a thread is inside it. Any such call fails the test.
 * The self-test proves the audit can fail: a handler that calls malloc, free, a mutex and
 * snprintf is caught, one that does only safe things is not.
 */
class SignalSafetyAuditTest {
    static final Pattern SUMMARY = Pattern.compile(
            "candor-audit: wrapped_handlers=(\\d+) handler_entries=(\\d+) violations=(\\d+)");
    static Path interposer;
    static Path selftest;

    @BeforeAll
    static void build() throws Exception {
        Path src = Launch.repo().resolve("agent/audit");
        Path out = Build.target().resolve("audit");
        interposer = Launch.cc(out.resolve("candor_audit.so"), "-shared", "-fPIC", "-Wall",
                src.resolve("candor_audit.c").toString(), "-ldl", "-lpthread");
        selftest = Launch.cc(out.resolve("audit_selftest"), src.resolve("audit_selftest.c").toString(), "-lpthread");
    }

    /** The audit report of the process that had a wrapped handler (the JVM, not a wrapper shell). */
    record Report(long wrapped, long entries, long violations, String text) {
        static Report read(Path prefix) throws IOException {
            List<Report> all = new ArrayList<>();
            try (Stream<Path> files = Files.list(prefix.getParent())) {
                for (Path p : files.filter(f -> f.getFileName().toString().startsWith(prefix.getFileName() + "."))
                        .toList()) {
                    String text = Files.readString(p);
                    Matcher m = SUMMARY.matcher(text);
                    if (m.find()) {
                        all.add(new Report(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)),
                                Long.parseLong(m.group(3)), text));
                    }
                }
            }
            return all.stream().filter(r -> r.wrapped() > 0).findFirst()
                    .orElseGet(() -> fail("no audit report with a wrapped handler among " + all.size()
                            + " reports at " + prefix + ".*: " + all));
        }
    }

    private static Report runSelftest(String mode) throws Exception {
        Path dir = Build.runDir("audit-selftest-" + mode);
        Path prefix = dir.resolve("audit");
        ProcessBuilder pb = new ProcessBuilder(selftest.toString(), mode).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(dir.resolve("out.txt").toFile());
        pb.environment().putAll(Map.of("LD_PRELOAD", interposer.toString(), "CANDOR_AUDIT_MATCH", "audit_selftest",
                "CANDOR_AUDIT_REPORT", prefix.toString()));
        Process q = pb.start();
        assertEquals(0, q.waitFor(), "selftest " + mode + ": " + Files.readString(dir.resolve("out.txt")));
        return Report.read(prefix);
    }

    @Test
    void auditCatchesAnUnsafeHandler() throws Exception {
        Report bad = runSelftest("bad");
        Report good = runSelftest("good");
        Figures.line(String.format("audit self-test: unsafe handler: %d entries, %d violations; safe handler:"
                + " %d entries, %d violations", bad.entries(), bad.violations(), good.entries(), good.violations()));
        assertEquals(10, bad.entries(), bad.text());
        assertEquals(50, bad.violations(), "10 x malloc, free, lock, unlock, snprintf\n" + bad.text());
        for (String fn : List.of("malloc", "free", "pthread_mutex_lock", "pthread_mutex_unlock", "snprintf")) {
            assertTrue(bad.text().contains("count " + fn + "=10"), fn + " not caught:\n" + bad.text());
            assertTrue(bad.text().contains("violation " + fn + " from "), fn + " has no caller line:\n" + bad.text());
        }
        assertEquals(10, good.entries(), good.text());
        assertEquals(0, good.violations(), good.text());
    }

    static final String NO_KERNEL_SAMPLING = "CANDOR_TEST_NO_KERNEL_SAMPLING=1";

    /**
     * Engine options and workload: all three engines, with jitter (re-arming in the handler), and
     * the cpu engine's two kernel modes. An option string "OPTIONS|NAME=VALUE" also sets that
     * environment variable.
     */
    static Stream<Arguments> runs() {
        List<Arguments> args = new ArrayList<>();
        for (Jdks.Jdk jdk : Jdks.all()) {
            args.add(Arguments.of(jdk, "event=cpu,jitter=20", ExceptionStorm.class));
            args.add(Arguments.of(jdk, "event=cpu,allthreads", ThreadChurn.class));
            args.add(Arguments.of(jdk, "event=ctimer,jitter=20", DeoptStorm.class));
            args.add(Arguments.of(jdk, "event=itimer", AllocStorm.class));
            args.add(Arguments.of(jdk, "event=cpu,walk=vm", DeoptStorm.class));  // own walker + crash guard
            args.add(Arguments.of(jdk, "event=cpu,walk=remote", DeoptStorm.class));  // handshake with the walker thread
            // kernel time not sampled: the handler reads the thread's CPU clock and charges the gap
            // (percpu=no: where perf allows, the default takes per-CPU events, whose ticks need no handler)
            args.add(Arguments.of(jdk, "event=cpu,percpu=no|" + NO_KERNEL_SAMPLING, SyscallMix.class));
            args.add(Arguments.of(jdk, "event=cpu,percpu=no", SyscallMix.class));  // kernel frames from the perf ring
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("runs")
    void candorsHandlerMakesNoUnsafeCall(Jdks.Jdk jdk, String engine, Class<?> workload) throws Exception {
        jdk.assumePresent();
        String name = "audit " + jdk + " " + engine + " " + workload.getSimpleName();
        Map<String, String> env = new java.util.HashMap<>();
        if (engine.contains("|")) {
            String[] kv = engine.substring(engine.indexOf('|') + 1).split("=", 2);
            env.put(kv[0], kv[1]);
            engine = engine.substring(0, engine.indexOf('|'));
        }
        Path dir = Build.runDir("audit-" + jdk.label() + "-" + engine + (env.isEmpty() ? "" : "-nokernel") + "-"
                + workload.getSimpleName());
        Path prefix = dir.resolve("audit");
        Path statsFile = dir.resolve("stats.json");
        Path collapsedFile = dir.resolve("profile.collapsed");
        Jvm jvm = Jvm.of(jdk, dir)
                .agent("start,interval=100us," + engine + ",file=" + collapsedFile + ",stats=" + statsFile)
                .main(workload, workload == SyscallMix.class ? new String[] {dir.resolve("truth.properties").toString(), "2"}
                        : new String[] {"2"});
        env.put("LD_PRELOAD", interposer.toString());
        env.put("CANDOR_AUDIT_REPORT", prefix.toString());
        Jvm.Result run = Launch.run(jvm, dir, env, null, Duration.ofSeconds(90));
        StressTest.assertSurvived(run, dir, name);
        Report r = Report.read(prefix);
        ProfileStats stats = Profiles.stats(statsFile, run);
        CollapsedProfile profile = Profiles.collapsed(collapsedFile, run);
        Figures.line(String.format("%s: %d handler entries, %d ticks, %d unsafe calls", name, r.entries(),
                stats.ticks(), r.violations()));
        assertEquals(0, r.violations(), name + ": calls that are not async-signal-safe inside candor's handler:\n"
                + r.text());
        long minEntries = engine.contains("event=cpu") ? 500 : 30;  // POSIX timers stop at the 250 Hz tick
        assertTrue(r.entries() >= minEntries, name + ": too few handler entries for an audit: " + r.entries());
        // A handler entry takes at least one tick, except ticks that came without a signal of their
        // own (merged while one was pending) and kernel time estimated from the CPU clock (in any
        // bucket: [kernel_unsampled], a failure such as walk_throttled, or dropped with the rest).
        long withoutSignal = KernelTimeTest.statsLong(statsFile, "merged_ticks")
                + KernelTimeTest.statsLong(statsFile, "estimated_ticks") + stats.dropped();
        assertTrue(r.entries() >= stats.ticks() - withoutSignal, name + ": handler entries " + r.entries()
                + " < ticks " + stats.ticks() + " - ticks without a signal " + withoutSignal);
        Profiles.assertIdentity(stats, name);
        assertEquals(stats.ticks(), profile.total(), name + ": collapsed samples vs stats ticks");
    }
}

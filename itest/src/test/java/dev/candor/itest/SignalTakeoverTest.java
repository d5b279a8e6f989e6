package dev.candor.itest;

import dev.candor.itest.workload.SignalTakeover;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A signal engine's handler taken over by code loaded later (a second profiler, a library): candor
 * cannot refuse it as it refuses a handler that was there first, so the writer notices within about
 * a second and says once, in one line, that the signal's ticks no longer reach candor. The JVM runs on,
 * and the ticks still add up: from the takeover on, the threads' CPU clocks say how many ticks the
 * timers sent to the other handler, at the rate they achieved before (a quarter of the requested one
 * for ctimer, on the kernel tick), and those land in the named failure signal_lost.
 */
class SignalTakeoverTest {
    private static final long INTERVAL_NS = 1_000_000;

    static Stream<Arguments> runs() {
        // The default cpu engine unprivileged: perf's timer per thread, user time only, kernel time estimated.
        return Jdks.all().stream().flatMap(jdk -> Stream.of(Arguments.of(jdk, "event=ctimer", false),
                Arguments.of(jdk, "event=cpu,percpu=no", false), Arguments.of(jdk, "event=cpu", true)));
    }

    @ParameterizedTest(name = "{0} {1} unprivileged={2}")
    @MethodSource("runs")
    void oneLineAndTheTakenTicksCountedWhenAnotherHandlerTakesTheSignal(Jdks.Jdk jdk, String engine, boolean unprivileged)
            throws Exception {
        jdk.assumePresent();
        String name = "signal takeover " + jdk + " " + engine + (unprivileged ? " unprivileged" : "");
        Path dir = Build.runDir("signal-takeover-" + jdk.label() + "-" + engine.replaceAll("[=,]", "-")
                + (unprivileged ? "-unprivileged" : ""));
        Path stats = dir.resolve("p.json");
        Jvm jvm = Jvm.of(jdk, dir);
        if (unprivileged) {
            jvm.unprivileged();
        }
        Jvm.Result run = jvm
                .agent("start," + engine + ",interval=1ms,file=" + dir.resolve("p.collapsed") + ",stats=" + stats)
                .main(SignalTakeover.class, "VTALRM", "1", "2.5")
                .run(Duration.ofSeconds(60));
        List<String> takeover = run.candorLines().stream().filter(l -> l.contains("another handler replaced")).toList();
        assertEquals(0, run.exitCode(), name + ": the JVM must run on\n" + run.describe());
        assertTrue(run.stdout().contains("took over SIGVTALRM") && run.stdout().contains("workload done"),
                name + ": the workload did not take the signal and finish\n" + run.describe());
        ProfileStats s = Profiles.stats(stats, run);
        long before = cpuNs(run, "before"), after = cpuNs(run, "after");
        // The rate the timers achieved before the takeover, on the spinning thread (almost all of the ticks).
        double rate = s.recorded() / ((double) before / INTERVAL_NS);
        double expected = rate * after / INTERVAL_NS;
        long lost = s.failure("signal_lost");
        Figures.line(String.format("%s: exit %d, %d line(s); %d ticks recorded for %.2f s of CPU before the takeover"
                        + " (%.0f%% of requested), signal_lost %d for %.2f s after (%.0f expected at that rate: %.2f×);"
                        + " identity %s", name, run.exitCode(), takeover.size(), s.recorded(), before / 1e9, 100 * rate,
                lost, after / 1e9, expected, lost / expected, s.identityHolds() ? "holds" : "BROKEN"));

        assertEquals(1, takeover.size(), name + ": expected one line about the takeover\n" + run.describe());
        assertTrue(takeover.get(0).contains("SIGVTALRM") && takeover.get(0).contains("signal_lost"),
                name + ": the line should name the signal and the bucket: " + takeover.get(0));
        Profiles.assertIdentity(s, name);
        // Low: the ticks of the spin after the takeover, less the rate's noise. High: the other handler's
        // own threads (sun.misc.Signal starts one per signal) add CPU that is counted too.
        assertTrue(lost >= 0.7 * expected && lost <= 1.6 * expected, String.format(
                "%s: signal_lost %d, expected about %.0f (%.2f s of CPU after the takeover at %.0f%% of the requested"
                        + " rate)", name, lost, expected, after / 1e9, 100 * rate));
    }

    /**
     * The wall sampler's signal taken over: from the writer's next check on, no signal is sent and each
     * wall tick that needed one is signal_lost, rather than a made-up repeat of the thread's last stack
     * as runnable (which a signal that never comes used to give).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.candor.itest.Jdks#all")
    void wallTicksAreSignalLostOnceAnotherHandlerTakesTheWallSignal(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "wall signal takeover " + jdk;
        Path dir = Build.runDir("signal-takeover-wall-" + jdk.label());
        Path stats = dir.resolve("p.json");
        Path collapsed = dir.resolve("p.collapsed");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=wall,interval=10ms,threads,file=" + collapsed + ",stats=" + stats)
                .main(SignalTakeover.class, "URG", "1", "2.5")
                .run(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), name + ": the JVM must run on\n" + run.describe());
        assertTrue(run.stdout().contains("took over SIGURG"), name + ": the workload did not take the signal\n"
                + run.describe());
        ProfileStats s = Profiles.stats(stats, run);
        long lost = s.failure("signal_lost");
        long main = Profiles.threadSubtree(Profiles.collapsed(collapsed, run), "main", name).recorded();
        // The main thread spins 3.5 s, sampled every 10 ms tick (a busy thread is always chosen): about
        // 100 stacks before the takeover, up to 100 more until the writer's check, then signal_lost.
        Figures.line(String.format("%s: main's recorded stacks %d (of ~350 ticks), signal_lost %d; identity %s", name,
                main, lost, s.identityHolds() ? "holds" : "BROKEN"));
        Profiles.assertIdentity(s, name);
        assertTrue(lost >= 100, name + ": only " + lost + " wall ticks in signal_lost");
        assertTrue(main <= 250, name + ": " + main + " stacks of main: ticks after the takeover were made up\n"
                + run.describe());
    }

    private static long cpuNs(Jvm.Result run, String when) {
        Matcher m = Pattern.compile("cpu " + when + " takeover ns: (\\d+)").matcher(run.stdout());
        assertTrue(m.find(), "no cpu " + when + " takeover in the workload's output\n" + run.describe());
        return Long.parseLong(m.group(1));
    }
}

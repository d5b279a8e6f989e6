package dev.candor.itest;

import dev.candor.itest.workload.SignalTakeover;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A signal engine's handler taken over by code loaded later (a second profiler, a library): candor
 * cannot refuse it as it refuses a handler that was there first, so the writer notices within about
 * a second and says once, in one line, that the signal's ticks no longer reach candor. The JVM runs on.
 */
class SignalTakeoverTest {

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void oneLineWhenAnotherHandlerTakesTheSignal(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "signal takeover " + jdk;
        Path dir = Build.runDir("signal-takeover-" + jdk.label());
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=ctimer,interval=1ms,file=" + dir.resolve("p.collapsed"))
                .main(SignalTakeover.class, "VTALRM", "1", "2.5")
                .run(Duration.ofSeconds(60));
        List<String> takeover = run.candorLines().stream().filter(l -> l.contains("another handler replaced")).toList();
        Figures.line(name + ": exit " + run.exitCode() + ", " + takeover);

        assertEquals(0, run.exitCode(), name + ": the JVM must run on\n" + run.describe());
        assertTrue(run.stdout().contains("took over SIGVTALRM") && run.stdout().contains("workload done"),
                name + ": the workload did not take the signal and finish\n" + run.describe());
        assertEquals(1, takeover.size(), name + ": expected one line about the takeover\n" + run.describe());
        assertTrue(takeover.get(0).contains("SIGVTALRM"), name + ": the line should name the signal: " + takeover.get(0));
    }
}

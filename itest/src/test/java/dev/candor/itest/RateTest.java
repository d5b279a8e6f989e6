package dev.candor.itest;

import dev.candor.itest.workload.BusyThreads;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * (b) Rate: at interval=1ms one busy thread gets at least 800 samples per CPU-second with the
 * perf-based {@code cpu} engine, and as many ticks with {@code ctimer} and {@code itimer}, whose
 * signals come at the kernel tick (250 Hz here) but weigh every interval they stand for (ctimer's
 * si_overrun; itimer's intervals of process CPU since the last signal).
 */
class RateTest {
    static final String THREAD = "busy-0";

    static Stream<Arguments> cases() {
        return Jdks.all().stream().flatMap(jdk -> Stream.of(
                Arguments.of(jdk, "cpu"),
                Arguments.of(jdk, "ctimer"),
                Arguments.of(jdk, "itimer")));
    }

    @ParameterizedTest(name = "{0} event={1} interval=1ms")
    @MethodSource("cases")
    void samplesPerCpuSecond(Jdks.Jdk jdk, String event) throws Exception {
        jdk.assumePresent();
        String name = "rate " + jdk + " " + event + " 1ms";
        Path dir = Build.runDir("rate-" + jdk.label() + "-" + event);
        Path txt = dir.resolve("rate.txt");
        Path statsFile = dir.resolve("rate.json");
        Path truthFile = dir.resolve("truth.properties");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=" + event + ",interval=1ms,file=" + txt + ",stats=" + statsFile)
                .main(BusyThreads.class, truthFile.toString(), "2.5", THREAD + ":A:1")
                .run(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), run.describe());

        ProfileStats stats = Profiles.stats(statsFile, run);
        ProfileStats.ThreadStats busy = Profiles.threadStats(stats, THREAD, name);
        Properties truth = Profiles.truth(truthFile, run);
        double rate = busy.samplesPerCpuSecond();
        assertTrue(Files.isRegularFile(txt), "no summary " + txt + "\n" + run.describe());
        List<String> rateLines = Files.readAllLines(txt).stream()
                .filter(l -> l.contains("samples per CPU-second")).toList();
        Figures.line(String.format("%s: %s %d ticks / %.3f s CPU (workload measured %.3f s) = %.1f samples per"
                        + " CPU-second; whole run %.1f; summary: %s",
                name, THREAD, busy.ticks(), busy.cpuNs() / 1e9,
                Profiles.truthLong(truth, THREAD + ".cpu_ns") / 1e9, rate, stats.samplesPerCpuSecond(),
                rateLines.isEmpty() ? "(no rate line)" : rateLines.get(0).strip()));

        Profiles.assertIdentity(stats, name);
        assertFalse(rateLines.isEmpty(), name + ": the summary has no line with 'samples per CPU-second':\n"
                + Files.readString(txt));
        assertTrue(rateLines.get(0).matches(".*\\d.*"), name + ": the rate line states no number: " + rateLines.get(0));
        assertTrue(busy.cpuNs() >= 500_000_000L, name + ": the busy thread got only " + busy.cpuNs() / 1e9
                + " s of CPU while profiled; too little to measure a rate");
        assertTrue(rate >= 800, name + ": " + String.format("%.1f", rate)
                + " samples per CPU-second, need >= 800 at interval=1ms");
    }
}

package dev.candor.itest;

import dev.candor.itest.jmh.PickBenchmark;
import dev.candor.itest.jmh.SpinBenchmark;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code -prof dev.candor.jmh.CandorProfiler} (build/candor-jmh.jar with build/candor-api.jar) on
 * the benchmarks of {@code dev.candor.itest.jmh}, run by JMH's own Main: one fork, a warmup three
 * times as long as the measurement. Each benchmark and parameter set gets its own directory with a
 * flame graph and a summary whose top method by self samples is that benchmark's hot method (the
 * {@code hot} parameter picks a different one), and whose duration is that of the measurement
 * iterations alone: had warmup been profiled, it would be over 4 s.
 */
class JmhProfilerTest {
    static final String PROFILER = "dev.candor.jmh.CandorProfiler";
    static final double WARMUP_S = 3.0;
    static final int MEASUREMENTS = 2;
    static final double MEASUREMENT_S = 0.5;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void profilesMeasurementIterationsPerBenchmarkAndParameterSet(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "jmh " + jdk;
        Path dir = Build.runDir("jmh-" + jdk.label());
        Path out = dir.resolve("prof");
        Jvm.Result run = jmh(jdk, dir, "dev.candor.itest.jmh.", "-f", "1", "-foe", "true",
                "-wi", "1", "-w", (int) (WARMUP_S * 1000) + "ms",
                "-i", Integer.toString(MEASUREMENTS), "-r", (int) (MEASUREMENT_S * 1000) + "ms",
                "-prof", PROFILER + ":interval=1ms;dir=" + out)
                .run(Duration.ofSeconds(300));
        assertEquals(0, run.exitCode(), run.describe());

        // directory names as JMH's own -prof jfr/async give them (BenchmarkParams.id())
        Map<String, String> hotByDir = new LinkedHashMap<>();
        hotByDir.put("dev.candor.itest.jmh.SpinBenchmark.spin-Throughput", SpinBenchmark.HOT);
        hotByDir.put("dev.candor.itest.jmh.PickBenchmark.pick-Throughput-hot-a", PickBenchmark.HOT_A);
        hotByDir.put("dev.candor.itest.jmh.PickBenchmark.pick-Throughput-hot-b", PickBenchmark.HOT_B);
        assertEquals(new TreeSet<>(hotByDir.keySet()), list(out), name + ": one directory per benchmark and "
                + "parameter set\n" + run.describe());

        double measured = MEASUREMENTS * MEASUREMENT_S;
        for (Map.Entry<String, String> e : hotByDir.entrySet()) {
            Path trial = out.resolve(e.getKey());
            String hot = e.getValue();
            String what = name + " " + e.getKey();
            assertEquals(Set.of("flame-cpu.html", "summary-cpu.txt"), list(trial), what);
            Path summaryFile = trial.resolve("summary-cpu.txt");
            TrialSummary s = TrialSummary.read(summaryFile);
            Figures.line(String.format("%s: top self %s %s, duration %.3f s wall, profiled CPU %.3f s, %d ticks "
                            + "(measurement %.1f s after %.1f s of warmup)", what, s.topSelf, Figures.pct(s.topShare),
                    s.wallSeconds, s.cpuSeconds, s.ticks, measured, WARMUP_S));
            assertEquals(hot, s.topSelf, what + ": top methods by self time\n" + Files.readString(summaryFile));
            assertTrue(s.topShare >= 0.8, what + ": " + hot + " has only " + Figures.pct(s.topShare));
            // warmup is not in the profile: the session spans the measurement iterations only
            assertTrue(s.wallSeconds >= measured * 0.9 && s.wallSeconds < measured + 1.0,
                    what + ": profiled " + s.wallSeconds + " s for " + measured + " s of measurement (warmup "
                            + WARMUP_S + " s)");
            assertTrue(s.ticks <= 1000 * (measured + 0.5), what + ": " + s.ticks + " ticks at 1 ms");
            String page = Files.readString(trial.resolve("flame-cpu.html"));
            assertTrue(page.contains(hot), what + ": the flame graph lacks " + hot);
            for (String other : hotByDir.values()) {
                if (!other.equals(hot)) {
                    assertFalse(page.contains(other), what + ": the flame graph holds another benchmark's " + other);
                }
            }
            // JMH prints the profiler's result: the hot method and the files
            assertTrue(run.stdout().contains(summaryFile.toString()), what + ": JMH's output does not name "
                    + summaryFile + "\n" + run.describe());
        }
        assertTrue(run.stdout().contains("Secondary result \"dev.candor.itest.jmh.SpinBenchmark.spin:candor\""),
                name + ": no candor result\n" + run.describe());
        // quiet by default (the agent's lines would break JMH's iteration lines; "candor: (text
        // only)" is JMH's own line for the result; "candor::" is a C++ frame of the agent in the
        // result's top methods, not a log line); JDK 24+ allowed the native access
        List<String> noise = Stream.concat(run.stdout().lines(), run.stderr().lines())
                .filter(l -> (l.contains("candor: ") && !l.strip().equals("candor: (text only)"))
                        || l.contains("restricted method")).toList();
        assertEquals(List.of(), noise, name + "\n" + run.describe());
    }

    @Test
    void eachForkItsOwnFilesAndWarmupForksNone() throws Exception {
        Jdks.Jdk jdk = Targets.client();
        Path dir = Build.runDir("jmh-forks");
        Path out = dir.resolve("prof");
        Jvm.Result run = jmh(jdk, dir, "dev.candor.itest.jmh.SpinBenchmark", "-wf", "1", "-f", "2", "-foe", "true",
                "-wi", "1", "-w", "200ms", "-i", "1", "-r", "300ms", "-prof", PROFILER + ":interval=1ms;dir=" + out)
                .run(Duration.ofSeconds(180));
        assertEquals(0, run.exitCode(), run.describe());
        Path trial = out.resolve("dev.candor.itest.jmh.SpinBenchmark.spin-Throughput");
        Set<String> files = list(trial);
        Figures.line("jmh -wf 1 -f 2: " + files);
        assertEquals(Set.of("flame-cpu-fork1.html", "flame-cpu-fork2.html", "summary-cpu-fork1.txt",
                "summary-cpu-fork2.txt"), files, run.describe());
        for (String f : List.of("summary-cpu-fork1.txt", "summary-cpu-fork2.txt")) {
            assertEquals(SpinBenchmark.HOT, TrialSummary.read(trial.resolve(f)).topSelf, f);
        }
    }

    @Test
    void optionErrorsAndHelpBeforeAnyFork() throws Exception {
        Jdks.Jdk jdk = Targets.client();
        Path dir = Build.runDir("jmh-options");
        Jvm.Result bad = jmh(jdk, dir, "dev.candor.itest.jmh.", "-prof", PROFILER + ":interval=1m").run(Duration.ofSeconds(60));
        Figures.line("jmh bad option: exit " + bad.exitCode() + ", " + bad.candorLines());
        assertEquals(1, bad.exitCode(), bad.describe());
        assertEquals(List.of("candor: interval=1m is not a duration: a number with ns, us, ms or s, e.g. 1ms"),
                bad.candorLines(), bad.describe());
        assertFalse(bad.stdout().contains("# Fork"), "a fork ran: " + bad.describe());

        Jvm.Result help = jmh(jdk, dir, "-prof", PROFILER + ":help").run(Duration.ofSeconds(60));
        assertTrue(help.stderr().contains("Usage: -prof dev.candor.jmh.CandorProfiler[:option;option...]")
                && help.stderr().contains("dir=PATH"), help.describe());

        Jvm.Result list = jmh(jdk, dir, "-lprof").run(Duration.ofSeconds(60));
        List<String> listed = list.stdout().lines().filter(l -> l.contains(PROFILER)).toList();
        Figures.line("jmh -lprof: " + listed);
        assertEquals(1, listed.size(), list.describe());
        assertTrue(listed.get(0).contains("(discovered)"), list.describe());
    }

    @Test
    void anOptionTheAgentRefusesFailsTheBenchmarkWithItsReason() throws Exception {
        Jdks.Jdk jdk = Targets.client();
        Path dir = Build.runDir("jmh-agent-refuses");
        Jvm.Result run = jmh(jdk, dir, "dev.candor.itest.jmh.SpinBenchmark", "-f", "1", "-foe", "true",
                "-wi", "1", "-w", "100ms", "-i", "1", "-r", "100ms",
                "-prof", PROFILER + ":intervl=1ms;dir=" + dir.resolve("prof")).run(Duration.ofSeconds(120));
        String reason = "candor: cannot start profiling dev.candor.itest.jmh.SpinBenchmark.spin: "
                + "unknown option 'intervl' (did you mean 'interval'?)";
        Figures.line("jmh agent refuses: exit " + run.exitCode() + ", reason shown: "
                + (run.stdout() + run.stderr()).contains(reason));
        assertNotEquals(0, run.exitCode(), run.describe());
        assertTrue((run.stdout() + run.stderr()).contains(reason), run.describe());
    }

    // JMH's Main on the benchmarks, with the profiler's jars from the build directory.
    private static Jvm jmh(Jdks.Jdk jdk, Path dir, String... args) throws URISyntaxException {
        return Jvm.of(jdk, dir).main("org.openjdk.jmh.Main", classpath(), args);
    }

    // The benchmarks (itest classes, with JMH's generated code), JMH and its two libraries, and the
    // jars a user puts beside them: build/candor-jmh.jar and build/candor-api.jar (agent bundled).
    private static Path classpath() throws URISyntaxException {
        List<String> entries = new ArrayList<>();
        entries.add(Build.workloadClasspath().toString());
        for (Class<?> c : List.of(org.openjdk.jmh.Main.class, joptsimple.OptionParser.class,
                org.apache.commons.math3.stat.descriptive.StatisticalSummary.class)) {
            entries.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
        }
        entries.add(Build.file("candor-jmh.jar").toString());
        entries.add(Build.file("candor-api.jar").toString());
        return Path.of(String.join(":", entries));
    }

    private static Set<String> list(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return Set.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
        }
    }

    /** What the test reads from the agent's .txt summary. */
    record TrialSummary(String topSelf, double topShare, double wallSeconds, double cpuSeconds, long ticks) {
        private static final Pattern DURATION =
                Pattern.compile("(?m)^duration:\\s+([\\d.]+) s wall, .*profiled threads \\d+ with ([\\d.]+) s CPU");
        private static final Pattern TICKS = Pattern.compile("(?m)^ticks:\\s+(\\d+) =");
        private static final Pattern ROW = Pattern.compile("^\\s+([\\d.]+)%\\s+[\\d.]+%\\s+\\d+\\s+(\\S.*)$");

        static TrialSummary read(Path file) throws IOException {
            String text = Files.readString(file);
            Matcher d = DURATION.matcher(text);
            Matcher t = TICKS.matcher(text);
            assertTrue(d.find() && t.find(), file + ": no duration or ticks line\n" + text);
            // the first row under "Top methods by self time" (after its column header)
            List<String> lines = text.lines().toList();
            int heading = lines.indexOf(lines.stream().filter(l -> l.startsWith("Top methods by self time"))
                    .findFirst().orElseThrow(() -> new AssertionError(file + ": no top table\n" + text)));
            Matcher row = ROW.matcher(lines.get(heading + 2));
            assertTrue(row.matches(), file + ": top row " + lines.get(heading + 2));
            return new TrialSummary(row.group(2).strip(), Double.parseDouble(row.group(1)) / 100,
                    Double.parseDouble(d.group(1)), Double.parseDouble(d.group(2)), Long.parseLong(t.group(1)));
        }
    }
}

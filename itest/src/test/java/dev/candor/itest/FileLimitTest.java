package dev.candor.itest;

import dev.candor.itest.workload.ManyThreads;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A timer per thread is a perf file descriptor per thread. With more threads than the process's file
 * limit leaves room for ({@link ManyThreads}: 1,500 idle threads, then two busy ones, under a limit of
 * 1,024), candor stops at half the limit, says so in one line, and leaves the rest to the application,
 * which goes on loading classes (the busy threads' first class load used to fail with
 * NoClassDefFoundError: candor had taken every descriptor). The threads it could not arm are not
 * counted as profiled: their CPU is the summary's "not sampled" share.
 */
class FileLimitTest {

    static Stream<Arguments> runs() {
        return Jdks.all().stream().flatMap(jdk -> Stream.of(Arguments.of(jdk, false), Arguments.of(jdk, true)));
    }

    @ParameterizedTest(name = "{0} unprivileged={1}")
    @MethodSource("runs")
    void threadsBeyondHalfTheFileLimitAreLeftUnsampledNotTheApplicationWithoutFiles(Jdks.Jdk jdk, boolean unprivileged)
            throws Exception {
        jdk.assumePresent();
        String name = "file limit " + jdk + (unprivileged ? " unprivileged" : "");
        Path dir = Build.runDir("file-limit-" + jdk.label() + (unprivileged ? "-unprivileged" : ""));
        Path stats = dir.resolve("p.json");
        Path summary = dir.resolve("p.txt");
        Jvm jvm = Jvm.of(jdk, dir).fileLimit(1024);
        if (unprivileged) {
            jvm.unprivileged();
        }
        // as root, percpu=no: the timer per thread that an unprivileged JVM gets by default
        Jvm.Result run = jvm.agent("start,event=cpu,interval=1ms" + (unprivileged ? "" : ",percpu=no") + ",file="
                        + summary + ",stats=" + stats)
                .main(ManyThreads.class, "1500", "2", "2").run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());
        ProfileStats s = Profiles.stats(stats, run);
        String json = Files.readString(stats);
        long unarmed = field(json, "unarmed_threads");
        long processCpu = field(json, "process_cpu_ns");
        long notSampled = field(json, "unsampled_threads_cpu_ns");
        long lines = run.candorLines().stream().filter(l -> l.contains("half of the file limit")).count();
        Figures.line(String.format("%s: exit %d, %d unarmed threads, not sampled %.2f of %.2f s of process CPU,"
                        + " %d line(s) about the limit; NoClassDefFoundError %s", name, run.exitCode(), unarmed,
                notSampled / 1e9, processCpu / 1e9, lines, run.stderr().contains("NoClassDefFoundError")));

        assertFalse(run.stderr().contains("NoClassDefFoundError"),
                name + ": the application ran out of file descriptors\n" + run.describe());
        assertEquals(1, lines, name + ": expected one line about the file limit\n" + run.describe());
        assertTrue(unarmed >= 500, name + ": only " + unarmed + " threads left unarmed");
        // The two busy threads start last, unarmed: their CPU is not sampled and must not count as profiled.
        assertTrue(notSampled >= 0.5 * processCpu, name + ": the busy threads' CPU is counted as profiled");
        assertTrue(Files.readString(summary).contains("threads the CPU engine could not arm"),
                name + ": the summary does not say some threads could not be armed");
        Profiles.assertIdentity(s, name);
    }

    private static long field(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\": (\\d+)").matcher(json);
        assertTrue(m.find(), "no " + key + " in the stats");
        return Long.parseLong(m.group(1));
    }
}

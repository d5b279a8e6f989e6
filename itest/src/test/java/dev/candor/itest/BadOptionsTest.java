package dev.candor.itest;

import dev.candor.itest.workload.BusyThreads;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * (d) A bad option prints exactly one {@code candor:} line on stderr naming the problem, and the
 * application runs to completion, unprofiled, with exit code 0.
 */
class BadOptionsTest {

    static Stream<Arguments> cases() {
        return Jdks.all().stream().flatMap(jdk -> Stream.of(
                // option, words the one line must contain
                Arguments.of(jdk, "intervl=1ms", List.of("intervl", "interval")),
                Arguments.of(jdk, "interval=abc", List.of("interval", "abc")),
                Arguments.of(jdk, "event=bogus", List.of("event", "bogus"))));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void oneLineAndTheJvmRunsOn(Jdks.Jdk jdk, String badOption, List<String> mustMention) throws Exception {
        jdk.assumePresent();
        String name = "bad option " + jdk + " '" + badOption + "'";
        Path dir = Build.runDir("bad-option-" + jdk.label() + "-" + badOption);
        Path collapsedFile = dir.resolve("bad.collapsed");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start," + badOption + ",file=" + collapsedFile)
                .main(BusyThreads.class, dir.resolve("truth.properties").toString(), "0.3", "bad-0:A:1")
                .run(Duration.ofSeconds(60));
        List<String> lines = run.candorLines();
        Figures.line(name + ": exit " + run.exitCode() + ", candor lines " + lines);

        assertEquals(0, run.exitCode(), name + ": the JVM must run on\n" + run.describe());
        assertTrue(run.stdout().contains("workload done"), name + ": the application did not finish\n"
                + run.describe());
        assertEquals(1, lines.size(), name + ": expected exactly one stderr line starting with 'candor:'\n"
                + run.describe());
        for (String word : mustMention) {
            assertTrue(lines.get(0).contains(word), name + ": the line should mention '" + word + "': " + lines.get(0));
        }
        assertFalse(Files.exists(collapsedFile), name + ": the JVM should run unprofiled, but "
                + collapsedFile + " was written");
    }
}

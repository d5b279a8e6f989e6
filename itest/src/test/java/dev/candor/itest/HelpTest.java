package dev.candor.itest;

import dev.candor.itest.workload.BusyThreads;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** (f) {@code help} lists the options, and the JVM still runs. */
class HelpTest {

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void helpListsOptionsAndTheJvmRuns(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "help " + jdk;
        Path dir = Build.runDir("help-" + jdk.label());
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("help")
                .main(BusyThreads.class, dir.resolve("truth.properties").toString(), "0.2", "help-0:A:1")
                .run(Duration.ofSeconds(60));
        String text = run.stdout() + run.stderr();
        Figures.line(name + ": exit " + run.exitCode() + ", " + text.lines().count() + " lines of output");
        assertEquals(0, run.exitCode(), run.describe());
        assertTrue(run.stdout().contains("workload done"), name + ": the application did not run\n" + run.describe());
        for (String option : List.of("start", "event", "interval", "file", "stats", "signal", "threads", "help")) {
            assertTrue(text.contains(option), name + ": help does not mention '" + option + "'\n" + run.describe());
        }
    }
}

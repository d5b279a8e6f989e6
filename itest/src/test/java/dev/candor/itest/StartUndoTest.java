package dev.candor.itest;

import dev.candor.itest.workload.Hot;
import dev.candor.itest.workload.StartUndo;
import dev.candor.model.CollapsedProfile;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Profiler::start validates first, then takes each resource with its undo: a start that fails at
 * its last step (forced by the agent's test hook) gives back the remote walker or ring reader
 * thread, the engine's file descriptors (percpu: a ring per CPU, where perf allows it) and the .jfr file it had created, and the next start works.
 */
class StartUndoTest {

    @ParameterizedTest(name = "{0} fails at {1}")
    @CsvSource({"walk=remote, activate", "walk=copy, activate", "walk=copy, engine", "percpu, activate"})
    void failedStartLeavesNothingBehind(String walk, String step) throws Exception {
        Jdks.Jdk jdk = Targets.client();
        String name = "start undo " + walk + " at " + step + " " + jdk;
        Path dir = Build.runDir("start-undo-" + walk.replace('=', '-') + "-" + step);
        Jvm.Result run = Jvm.of(jdk, dir).agent("quiet").env("CANDOR_TEST_FAIL_START_AT", step)
                .main(StartUndo.class.getName(), classpath(), dir.toString(), "interval=1ms," + walk)
                .run(Duration.ofSeconds(120));
        assertEquals(0, run.exitCode(), run.describe());
        Properties seen = Profiles.truth(dir.resolve("undo.properties"), run);
        CollapsedProfile profile = Profiles.collapsed(dir.resolve("undo.collapsed"), run);
        Figures.line(String.format("%s: first start '%s'; threads after it [%s], fds %s -> %s, .jfr left %s; "
                        + "second start '%s', %d samples", name, seen.getProperty("first"),
                seen.getProperty("threads.afterFailure"), seen.getProperty("fds.before"),
                seen.getProperty("fds.afterFailure"), seen.getProperty("jfr.afterFailure"),
                seen.getProperty("second"), profile.total()));
        assertEquals("IllegalStateException: test hook: " + step + " failed", seen.getProperty("first"), name);
        assertEquals(seen.getProperty("threads.before"), seen.getProperty("threads.afterFailure"), name);
        assertEquals(seen.getProperty("fds.before"), seen.getProperty("fds.afterFailure"),
                name + ": before [" + seen.getProperty("fds.before.list") + "], after ["
                        + seen.getProperty("fds.afterFailure.list") + "]");
        assertEquals("false", seen.getProperty("jfr.afterFailure"), name);
        assertEquals("idle", seen.getProperty("status.afterFailure"), name);
        assertEquals("(nothing thrown)", seen.getProperty("second"), name);
        assertTrue(profile.countAny(CollapsedProfile.method(Hot.METHOD_A)) > 0, name + ": " + profile);
        assertTrue(Files.size(dir.resolve("undo.jfr")) > 0, name);
    }

    private static Path classpath() throws URISyntaxException {
        Path api = Path.of(dev.candor.api.Candor.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return Path.of(Build.workloadClasspath() + ":" + api);
    }
}

package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.candor.itest.workload.AllocMix;
import dev.candor.model.CollapsedProfile;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Allocation profiling started by {@code candor attach} in a running JVM ({@link AllocMix}): the
 * capability is added on attach, the byte shares match the workload's own counters, and after
 * {@code stop} a new session without {@code alloc} takes no allocation samples (the JVMTI event
 * was turned off with the session).
 */
class AllocAttachTest {

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void attachStartsAndStopsAllocationSampling(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Jdks.Jdk client = Targets.client();
        String name = "alloc attach " + jdk;
        Path dir = Build.runDir("alloc-attach-" + jdk.label());
        Path truthFile = dir.resolve("truth.properties");
        Jvm.Started target = Jvm.of(jdk, dir).jvmArg("-XX:+EnableDynamicAgentLoading")
                .main(AllocMix.class, truthFile.toString(), "15").start();  // outlives four attach clients on a busy machine
        Thread.sleep(1500);  // past the JVM's start: the workload allocates steadily
        String pid = Long.toString(target.process().pid());

        Targets.Ran start = Targets.candor(client, dir, "attach", pid, "start", "-e", "alloc", "-f", "a.collapsed",
                "--stats", "a.json");
        assertEquals(0, start.exitCode(), start.describe());
        Thread.sleep(2000);
        Targets.Ran stop = Targets.candor(client, dir, "attach", pid, "stop");
        assertEquals(0, stop.exitCode(), stop.describe());

        Targets.Ran cpu = Targets.candor(client, dir, "attach", pid, "start", "-e", "cpu", "-i", "1ms", "-f",
                "c.collapsed", "--stats", "c.json");
        assertEquals(0, cpu.exitCode(), cpu.describe());
        Thread.sleep(1000);
        Targets.Ran stopCpu = Targets.candor(client, dir, "attach", pid, "stop");
        assertEquals(0, stopCpu.exitCode(), stopCpu.describe());
        Jvm.Result run = target.await(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), run.describe());

        Properties truth = Profiles.truth(truthFile, run);
        long arrays = Profiles.truthLong(truth, "arrays_bytes");
        long points = Profiles.truthLong(truth, "points_bytes");
        double truthShare = (double) arrays / (arrays + points);
        CollapsedProfile profile = CollapsedProfile.read(dir.resolve("a.collapsed"));
        long inArrays = profile.countAny(CollapsedProfile.method(AllocMix.ARRAYS));
        long inPoints = profile.countAny(CollapsedProfile.method(AllocMix.POINTS));
        double share = (double) inArrays / Math.max(1, inArrays + inPoints);
        ObjectMapper json = new ObjectMapper();
        JsonNode allocStats = json.readTree(dir.resolve("a.json").toFile());
        JsonNode cpuStats = json.readTree(dir.resolve("c.json").toFile());
        Figures.line(String.format("%s: byte[] method truth %s, profile %s (%+.1f points), %d samples; the next"
                        + " session (cpu): %d ticks, allocation samples: %s", name, Figures.pct(truthShare),
                Figures.pct(share), 100 * (share - truthShare), allocStats.path("kinds").path("alloc").path("ticks").asLong(),
                cpuStats.path("ticks").asLong(), cpuStats.path("kinds").has("alloc") ? "some" : "none"));
        assertEquals(truthShare, share, 0.03, name + ": share of the byte[] method");
        assertTrue(allocStats.path("kinds").path("alloc").path("ticks").asLong() > 1000, name + ": samples taken");
        assertFalse(cpuStats.path("kinds").has("alloc"), name + ": the cpu session took allocation samples");
        assertFalse(cpuStats.has("alloc"), name);
        assertTrue(cpuStats.path("ticks").asLong() > 100, name + ": the cpu session sampled");
    }
}

package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.candor.itest.workload.LockMix;
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
 * Lock profiling started by {@code candor attach --lock 5ms} in a running JVM ({@link LockMix}):
 * the monitor capability is added on attach and Unsafe.park is hooked in the live JVM (nothing
 * printed on its stdout), the wait shares match the workload's own timing, and after
 * {@code stop} a new session without locks records none (the monitor events were turned off, the
 * park hook passes through).
 */
class LockAttachTest {

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void attachStartsAndStopsLockRecording(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Jdks.Jdk client = Targets.client();
        String name = "lock attach " + jdk;
        Path dir = Build.runDir("lock-attach-" + jdk.label());
        Path truthFile = dir.resolve("truth.properties");
        Jvm.Started target = Jvm.of(jdk, dir).jvmArg("-XX:+EnableDynamicAgentLoading")
                .main(LockMix.class, truthFile.toString(), "15", "5000000").start();  // outlives four attach clients
        Thread.sleep(1500);
        String pid = Long.toString(target.process().pid());

        Targets.Ran start = Targets.candor(client, dir, "attach", pid, "start", "--lock", "5ms", "-f", "l.collapsed",
                "--stats", "l.json");
        assertEquals(0, start.exitCode(), start.describe());
        Thread.sleep(3000);
        Targets.Ran stop = Targets.candor(client, dir, "attach", pid, "stop");
        assertEquals(0, stop.exitCode(), stop.describe());

        Targets.Ran cpu = Targets.candor(client, dir, "attach", pid, "start", "-e", "cpu", "-i", "1ms", "-f",
                "c.collapsed", "--stats", "c.json");
        assertEquals(0, cpu.exitCode(), cpu.describe());
        Thread.sleep(1500);
        Targets.Ran stopCpu = Targets.candor(client, dir, "attach", pid, "stop");
        assertEquals(0, stopCpu.exitCode(), stopCpu.describe());
        Jvm.Result run = target.await(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), run.describe());
        assertEquals("workload done", run.stdout().strip(), name + ": nothing on the target's stdout");

        Properties truth = Profiles.truth(truthFile, run);
        long monitorNs = Profiles.truthLong(truth, "monitor_ns");
        long reentrantNs = Profiles.truthLong(truth, "reentrant_ns");
        double truthShare = (double) monitorNs / (monitorNs + reentrantNs);
        CollapsedProfile profile = CollapsedProfile.read(dir.resolve("l.collapsed"));
        long inMonitor = profile.countAny(CollapsedProfile.method(LockMix.MONITOR));
        long inReentrant = profile.countAny(CollapsedProfile.method(LockMix.REENTRANT));
        double share = (double) inMonitor / Math.max(1, inMonitor + inReentrant);
        ObjectMapper json = new ObjectMapper();
        JsonNode lockStats = json.readTree(dir.resolve("l.json").toFile());
        JsonNode cpuStats = json.readTree(dir.resolve("c.json").toFile());
        Figures.line(String.format("%s: monitor share truth %s (whole run), profile %s (%+.1f points), %d samples,"
                        + " %.3f s waited; the next session (cpu): %d ticks, lock samples: %s", name,
                Figures.pct(truthShare), Figures.pct(share), 100 * (share - truthShare),
                lockStats.path("kinds").path("lock").path("ticks").asLong(), (inMonitor + inReentrant) / 1e9,
                cpuStats.path("ticks").asLong(), cpuStats.path("kinds").has("lock") ? "some" : "none"));
        assertEquals(truthShare, share, 0.08, name + ": share of the monitor");
        assertTrue(inReentrant > 0 && inMonitor > 0, name + ": monitors and parks recorded");
        assertFalse(cpuStats.path("kinds").has("lock"), name + ": the cpu session recorded lock waits");
        assertTrue(cpuStats.path("ticks").asLong() > 0, name + ": the cpu session sampled");
    }
}

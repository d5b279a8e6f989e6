package dev.candor.itest;

import com.sun.tools.attach.VirtualMachine;
import dev.candor.itest.workload.AttachTarget;
import dev.candor.itest.workload.Hot;
import dev.candor.model.CollapsedProfile;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * (g) Attach: the agent is loaded into a running JVM with the Attach API
 * ({@code VirtualMachine.loadAgentPath}) and profiles from then on; when the JVM exits the
 * outputs show the hot method.
 */
class AttachTest {

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void attachProfilesTheRunningJvm(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "attach " + jdk;
        Path dir = Build.runDir("attach-" + jdk.label());
        Path go = dir.resolve("go");
        Path collapsedFile = dir.resolve("attach.collapsed");
        Path statsFile = dir.resolve("attach.json");
        String agent = Build.agent().toString();
        Jvm.Started target = Jvm.of(jdk, dir)
                .jvmArg("-XX:+EnableDynamicAgentLoading")
                .main(AttachTarget.class, go.toString(), "2.5")
                .start();
        try {
            waitForReady(target, Duration.ofSeconds(30));
            long t0 = System.nanoTime();
            VirtualMachine vm = VirtualMachine.attach(String.valueOf(target.process().pid()));
            try {
                vm.loadAgentPath(agent, "start,interval=1ms,file=" + collapsedFile + ",stats=" + statsFile);
            } finally {
                vm.detach();
            }
            Figures.line(String.format("%s: attached and loaded the agent in %.0f ms", name,
                    (System.nanoTime() - t0) / 1e6));
        } finally {
            Files.writeString(go, "go\n"); // let the target finish in any case
        }
        Jvm.Result run = target.await(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), run.describe());

        CollapsedProfile profile = Profiles.collapsed(collapsedFile, run);
        ProfileStats stats = Profiles.stats(statsFile, run);
        long hot = profile.countAny(CollapsedProfile.method(Hot.METHOD_A));
        String topSelf = profile.selfByFrame().keySet().stream()
                .filter(f -> !CollapsedProfile.isPseudoFrame(f)).findFirst().orElse("(none)");
        Figures.line(String.format("%s: %d samples, %s with %s on the stack, top self frame %s;"
                        + " stats ticks %d, recorded %s, failures %s, identity %s",
                name, profile.total(), Figures.pct(profile.total() == 0 ? 0 : (double) hot / profile.total()),
                Hot.METHOD_A, topSelf, stats.ticks(), Figures.pct(stats.recordedFraction()),
                Profiles.failures(stats), stats.identityHolds() ? "holds" : "BROKEN"));

        Profiles.assertIdentity(stats, name);
        assertTrue(profile.total() >= 500, name + ": too few samples after attach: " + profile.total()
                + "\n" + run.describe());
        assertEquals(Hot.METHOD_A, topSelf, name + ": the hot method should lead the profile: "
                + head(profile.selfByFrame()));
    }

    private static void waitForReady(Jvm.Started target, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(target.stdout()) && Files.readString(target.stdout()).contains("ready")) {
                return;
            }
            if (!target.process().isAlive()) {
                fail("the attach target exited early: " + target.await(Duration.ofSeconds(1)).describe());
            }
            Thread.sleep(20);
        }
        target.process().destroyForcibly();
        fail("the attach target did not get ready within " + timeout);
    }

    private static String head(Map<String, Long> m) {
        return m.entrySet().stream().limit(8).toList().toString();
    }
}

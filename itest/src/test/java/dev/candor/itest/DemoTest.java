package dev.candor.itest;

import dev.candor.model.CollapsedProfile;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The bundled demo, profiled: its hot path, Checksum.sign, leads the profile. */
class DemoTest {
    static final String HOT = "dev.candor.demo.Checksum.sign";

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void demoHotPathLeads(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "demo " + jdk;
        Path dir = Build.runDir("demo-" + jdk.label());
        Path collapsedFile = dir.resolve("demo.collapsed");
        Path statsFile = dir.resolve("demo.json");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,interval=1ms,file=" + collapsedFile + ",stats=" + statsFile)
                .main("dev.candor.demo.Main", Build.file("candor-demo.jar"), "2")
                .run(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), run.describe());
        CollapsedProfile profile = Profiles.collapsed(collapsedFile, run);
        ProfileStats stats = Profiles.stats(statsFile, run);
        String top = profile.selfByFrame().keySet().stream()
                .filter(f -> !CollapsedProfile.isPseudoFrame(f)).findFirst().orElse("(none)");
        Figures.line(String.format("%s: %d samples, %s self %s, top self frame %s, recorded %s, identity %s",
                name, profile.total(), HOT, Figures.pct((double) profile.self(HOT) / Math.max(1, profile.total())),
                top, Figures.pct(stats.recordedFraction()), stats.identityHolds() ? "holds" : "BROKEN"));
        Profiles.assertIdentity(stats, name);
        assertEquals(HOT, top, name + ": top self frames " + profile.selfByFrame().entrySet().stream().limit(8).toList());
    }
}

package dev.candor.itest;

import dev.candor.model.CollapsedProfile;
import dev.candor.model.Frame;
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

    /**
     * The frame with the most self samples that is neither a pseudo-frame nor the kernel's. The kernel's time is the
     * profile's to show, not this check's to rank: once on JDK 25 the guest's first touch of the heap cost more than the
     * demo's hot loop (DistTest: clear_page_erms_[k] 724 samples, Checksum.sign 624; 6-17 in three reruns).
     */
    static String topSelfFrame(CollapsedProfile profile) {
        return profile.selfByFrame().keySet().stream()
                .filter(f -> !CollapsedProfile.isPseudoFrame(f) && !f.endsWith(Frame.KERNEL_SUFFIX))
                .findFirst().orElse("(none)");
    }

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
        String top = topSelfFrame(profile);
        Figures.line(String.format("%s: %d samples, %s self %s, top self frame %s, recorded %s, identity %s",
                name, profile.total(), HOT, Figures.pct((double) profile.self(HOT) / Math.max(1, profile.total())),
                top, Figures.pct(stats.recordedFraction()), stats.identityHolds() ? "holds" : "BROKEN"));
        Profiles.assertIdentity(stats, name);
        assertEquals(HOT, top, name + ": top self frames " + profile.selfByFrame().entrySet().stream().limit(8).toList());
    }
}

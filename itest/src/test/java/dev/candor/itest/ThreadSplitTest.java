package dev.candor.itest;

import dev.candor.itest.workload.BusyThreads;
import dev.candor.itest.workload.Hot;
import dev.candor.model.CollapsedProfile;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * (c) Two busy threads with different hot methods; one works all the time, the other about
 * half of every 10 ms, for a CPU split near 65/35 (measured per thread with ThreadMXBean). Each
 * thread's share of the samples (from its {@code [name tid=N]} root) must be within 5 points of
 * its share of the CPU time.
 */
class ThreadSplitTest {
    static final String BIG = "split-a";
    static final String SMALL = "split-b";

    static java.util.List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void perThreadSharesMatchCpuShares(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "thread split " + jdk + " cpu 1ms";
        Path dir = Build.runDir("thread-split-" + jdk.label());
        Path collapsedFile = dir.resolve("split.collapsed");
        Path statsFile = dir.resolve("split.json");
        Path truthFile = dir.resolve("truth.properties");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=cpu,interval=1ms,threads,file=" + collapsedFile + ",stats=" + statsFile)
                .main(BusyThreads.class, truthFile.toString(), "3", BIG + ":A:1", SMALL + ":B:0.54")
                .run(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), run.describe());

        Properties truth = Profiles.truth(truthFile, run);
        long cpuBig = Profiles.truthLong(truth, BIG + ".cpu_ns");
        long cpuSmall = Profiles.truthLong(truth, SMALL + ".cpu_ns");
        double truthShare = (double) cpuBig / (cpuBig + cpuSmall);

        CollapsedProfile profile = Profiles.collapsed(collapsedFile, run);
        CollapsedProfile big = Profiles.threadSubtree(profile, BIG, name);
        CollapsedProfile small = Profiles.threadSubtree(profile, SMALL, name);
        long samplesBig = profile.thread(BIG).orElseThrow().samples();
        long samplesSmall = profile.thread(SMALL).orElseThrow().samples();
        double profileShare = (double) samplesBig / (samplesBig + samplesSmall);

        ProfileStats stats = Profiles.stats(statsFile, run);
        ProfileStats.ThreadStats statsBig = Profiles.threadStats(stats, BIG, name);
        ProfileStats.ThreadStats statsSmall = Profiles.threadStats(stats, SMALL, name);
        double statsShare = (double) statsBig.ticks() / (statsBig.ticks() + statsSmall.ticks());

        Figures.line(String.format("%s: %s CPU share truth %s (%.0f / %.0f ms), profile %s (%d / %d samples),"
                        + " diff %+.1f points; per_thread ticks share %s (%d / %d); hot method on its thread:"
                        + " A %d of %d, B %d of %d",
                name, BIG, Figures.pct(truthShare), cpuBig / 1e6, cpuSmall / 1e6, Figures.pct(profileShare),
                samplesBig, samplesSmall, 100 * (profileShare - truthShare), Figures.pct(statsShare),
                statsBig.ticks(), statsSmall.ticks(),
                big.countAny(CollapsedProfile.method(Hot.METHOD_A)), big.total(),
                small.countAny(CollapsedProfile.method(Hot.METHOD_B)), small.total()));

        Profiles.assertIdentity(stats, name);
        assertTrue(samplesBig + samplesSmall >= 500, name + ": too few samples: " + profile.roots());
        assertEquals(truthShare, profileShare, 0.05, name + ": " + BIG + "'s share of samples vs of CPU time");
        assertEquals(1 - truthShare, 1 - profileShare, 0.05, name + ": " + SMALL + "'s share");
    }
}

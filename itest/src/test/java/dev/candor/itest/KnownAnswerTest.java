package dev.candor.itest;

import dev.candor.itest.workload.Hot;
import dev.candor.itest.workload.KnownAnswer;
import dev.candor.model.CollapsedProfile;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * (a) Known answer: one thread runs method A, then method B, for about 70% and 30% of its CPU
 * time (measured per call with ThreadMXBean). The profile's share of samples with A on the stack
 * must be within 5 points of the measured share, and at least 98% of the ticks that hit that
 * thread must be recorded Java stacks.
 */
class KnownAnswerTest {
    static final long CPU_MS_A = 1750;
    static final long CPU_MS_B = 750;

    static Stream<Arguments> cases() {
        return Jdks.all().stream().flatMap(jdk -> Stream.of(
                Arguments.of(jdk, "cpu", "1ms"),
                Arguments.of(jdk, "ctimer", "10ms")));
    }

    @ParameterizedTest(name = "{0} event={1} interval={2}")
    @MethodSource("cases")
    void profileMatchesMeasuredCpuSplit(Jdks.Jdk jdk, String event, String interval) throws Exception {
        jdk.assumePresent();
        String name = "known-answer " + jdk + " " + event + " " + interval;
        Path dir = Build.runDir("known-answer-" + jdk.label() + "-" + event + "-" + interval);
        Path collapsedFile = dir.resolve("ka.collapsed");
        Path statsFile = dir.resolve("ka.json");
        Path truthFile = dir.resolve("truth.properties");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=" + event + ",interval=" + interval + ",threads,file=" + collapsedFile
                        + ",stats=" + statsFile)
                .main(KnownAnswer.class, truthFile.toString(), String.valueOf(CPU_MS_A), String.valueOf(CPU_MS_B))
                .run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());

        Properties truth = Profiles.truth(truthFile, run);
        long cpuA = Profiles.truthLong(truth, "cpu_a_ns");
        long cpuB = Profiles.truthLong(truth, "cpu_b_ns");
        double truthShare = (double) cpuA / (cpuA + cpuB);

        CollapsedProfile profile = Profiles.collapsed(collapsedFile, run);
        ProfileStats stats = Profiles.stats(statsFile, run);
        CollapsedProfile worker = Profiles.threadSubtree(profile, KnownAnswer.THREAD, name);
        long samplesA = worker.countAny(CollapsedProfile.method(Hot.METHOD_A));
        long samplesB = worker.countAny(CollapsedProfile.method(Hot.METHOD_B));
        double profileShare = samplesA + samplesB == 0 ? 0 : (double) samplesA / (samplesA + samplesB);

        ProfileStats.ThreadStats workerStats = Profiles.threadStats(stats, KnownAnswer.THREAD, name);
        long workerRecorded = worker.recorded();
        double recordedShare = workerStats.ticks() == 0 ? 0 : (double) workerRecorded / workerStats.ticks();

        Figures.line(String.format("%s: A share truth %s (A %.0f ms, B %.0f ms CPU), profile %s (A %d, B %d samples),"
                        + " diff %+.1f points; worker ticks %d, recorded Java stacks %d (%s, stats says %d);"
                        + " whole run ticks %d, recorded %s, failures %s; identity %s",
                name, Figures.pct(truthShare), cpuA / 1e6, cpuB / 1e6, Figures.pct(profileShare), samplesA, samplesB,
                100 * (profileShare - truthShare), workerStats.ticks(), workerRecorded, Figures.pct(recordedShare),
                workerStats.recorded(), stats.ticks(), Figures.pct(stats.recordedFraction()),
                Profiles.failures(stats), stats.identityHolds() ? "holds" : "BROKEN"));

        Profiles.assertIdentity(stats, name);
        assertTrue(samplesA + samplesB >= 100, name + ": too few samples of A and B to judge: " + samplesA + " + "
                + samplesB + "\nprofile roots: " + profile.roots());
        assertEquals(truthShare, profileShare, 0.05, name + ": share of A (truth vs profile)");
        assertTrue(recordedShare >= 0.98, name + ": only " + workerRecorded + " of " + workerStats.ticks()
                + " ticks on " + KnownAnswer.THREAD + " are recorded Java stacks (" + Figures.pct(recordedShare)
                + ", need >= 98%); worker stacks:\n" + worker);
    }
}

package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.candor.itest.stress.AllocStorm;
import dev.candor.itest.stress.DeoptStorm;
import dev.candor.itest.workload.DeepStack;
import dev.candor.itest.workload.Hot;
import dev.candor.itest.workload.KnownAnswer;
import dev.candor.itest.workload.TwinRecursions;
import dev.candor.model.CollapsedProfile;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code walk=copy} (issue 9, stretch, experimental): samples without any signal. perf writes each
 * thread's registers and a copy of the top of its stack into a ring; a reader thread walks the
 * copies with candor's own walker. The known-answer split must come out within 5 points of the
 * ThreadMXBean truth with every tick in one bucket, with a timer per thread or one per CPU
 * ({@code percpu}); stacks deeper than the copy are completed from the live stack where that walk holds, and
 * otherwise kept as far as the copy goes and marked [truncated]; GC- and deopt-heavy workloads at 100 µs do
 * not crash.
 */
class CopyWalkTest {

    /** Per thread ({@code walk=copy}) and per CPU ({@code percpu}, where perf allows CPU-wide events). */
    static Stream<Arguments> knownAnswerCases() {
        return Jdks.all().stream().flatMap(jdk -> Stream.of(Arguments.of(jdk, "1ms", "walk=copy"),
                Arguments.of(jdk, "100us", "walk=copy"), Arguments.of(jdk, "1ms", "percpu"),
                Arguments.of(jdk, "100us", "percpu")));
    }

    static Stream<Arguments> engines() {
        return Jdks.all().stream().flatMap(jdk -> Stream.of(Arguments.of(jdk, "walk=copy"), Arguments.of(jdk, "percpu")));
    }

    /** Skips a percpu case where perf refuses CPU-wide events (the fallback is KernelTimeTest's). */
    static void assumeEngineRan(String engine, Jvm.Result run) {
        if (engine.equals("percpu")) {
            org.junit.jupiter.api.Assumptions.assumeFalse(run.stderr().contains("candor: percpu is not available"),
                    "perf refuses CPU-wide events here");
            assertTrue(run.stderr().contains("percpu: one perf event per CPU"), "percpu did not run\n" + run.describe());
        }
    }

    /** engines(), and walk=copy as an unprivileged user (perf_event_paranoid 2 allows a thread's own events). */
    static Stream<Arguments> enginesAndUnprivileged() {
        return Stream.concat(engines(), Jdks.all().stream().map(jdk -> Arguments.of(jdk, "walk=copy unprivileged")));
    }

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    /** Every JDK, as the tests' own user and as an unprivileged one. */
    static Stream<Arguments> jdksAsRootAndNot() {
        return Jdks.all().stream().flatMap(jdk -> Stream.of(Arguments.of(jdk, false), Arguments.of(jdk, true)));
    }

    @ParameterizedTest(name = "{0} interval={1} {2}")
    @MethodSource("knownAnswerCases")
    void knownAnswerShareIsWithinFivePointsOfTheTruth(Jdks.Jdk jdk, String interval, String engine) throws Exception {
        jdk.assumePresent();
        String name = engine + " known-answer " + jdk + " " + interval;
        Path dir = Build.runDir("copy-walk-ka-" + jdk.label() + "-" + interval + "-" + engine.replace('=', '-'));
        Path collapsedFile = dir.resolve("ka.collapsed");
        Path statsFile = dir.resolve("ka.json");
        Path truthFile = dir.resolve("truth.properties");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=cpu,interval=" + interval + ",threads," + engine + ",file=" + collapsedFile
                        + ",stats=" + statsFile)
                .main(KnownAnswer.class, truthFile.toString(), "1750", "750")
                .run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());
        assumeEngineRan(engine, run);
        assertTrue(run.stderr().contains("walk=copy"), name + ": did not run with walk=copy\n" + run.describe());

        Properties truth = Profiles.truth(truthFile, run);
        long cpuA = Profiles.truthLong(truth, "cpu_a_ns");
        long cpuB = Profiles.truthLong(truth, "cpu_b_ns");
        double truthShare = (double) cpuA / (cpuA + cpuB);
        ProfileStats stats = Profiles.stats(statsFile, run);
        CollapsedProfile worker = Profiles.threadSubtree(Profiles.collapsed(collapsedFile, run), KnownAnswer.THREAD, name);
        long a = worker.countAny(CollapsedProfile.method(Hot.METHOD_A));
        long b = worker.countAny(CollapsedProfile.method(Hot.METHOD_B));
        double share = a + b == 0 ? 0 : (double) a / (a + b);
        long workerTicks = Profiles.threadStats(stats, KnownAnswer.THREAD, name).ticks();
        double recorded = workerTicks == 0 ? 0 : (double) worker.recorded() / workerTicks;
        long truncated = worker.count(s -> s.anyFrame(f -> f.equals("[truncated]")));
        Figures.line(String.format("%s: A share truth %s, profile %s (A %d, B %d samples), diff %+.1f points;"
                        + " worker ticks %d, recorded Java stacks %s, %d marked [truncated]; whole run ticks %d,"
                        + " recorded %s, dropped %d, failures %s; identity %s",
                name, Figures.pct(truthShare), Figures.pct(share), a, b, 100 * (share - truthShare), workerTicks,
                Figures.pct(recorded), truncated, stats.ticks(), Figures.pct(stats.recordedFraction()), stats.dropped(),
                Profiles.failures(stats), stats.identityHolds() ? "holds" : "BROKEN"));

        assertTrue(Files.readString(statsFile).contains("\"walker\": \"copy\""), name + ": stats do not say walker copy");
        Profiles.assertIdentity(stats, name);
        assertTrue(a + b >= 1000, name + ": too few samples of A and B: " + a + " + " + b);
        assertEquals(truthShare, share, 0.05, name + ": share of A (truth vs profile)");
        // Lost: ticks in C code whose Java callers lie beyond the copy, and full rings (dropped).
        assertTrue(recorded >= 0.9, name + ": only " + Figures.pct(recorded) + " of the worker's ticks are Java stacks\n"
                + worker);
        assertTrue(truncated <= 0.01 * worker.total(), name + ": shallow stacks marked [truncated]: " + truncated);
        // the log line about cut stacks comes at 1% of the samples: none where under 0.5% of the ticks were cut
        long cutStacks = new ObjectMapper().readTree(statsFile.toFile()).path("depth").path("truncated").asLong(-1);
        assertTrue(cutStacks >= 0, name + ": no depth.truncated in the stats");
        assertFalse(cutStacks * 200 < stats.ticks() && run.stderr().contains("stack copy and are cut there"),
                name + ": a log line about cut stacks where few were cut (" + cutStacks + " of " + stats.ticks()
                        + " ticks)\n" + run.describe());
    }

    /**
     * A 10,000-frame recursion fits neither an 8 KB copy (walk=copy) nor percpu's 32 KB one. The reader walks on
     * into the live stack, and keeps the walk when it reaches the thread's root (LiveStackTail.h): the recursion
     * stands still under its leaf, so nearly every stack is whole, 10,001 recursion frames and the root, and the
     * log line counts them.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("enginesAndUnprivileged")
    void stacksDeeperThanTheCopyAreCompletedFromTheLiveStack(Jdks.Jdk jdk, String engine) throws Exception {
        jdk.assumePresent();
        String name = engine + " 10,000 frames " + jdk;
        DeepRun deep = runDeep(jdk, engine, "deep", DeepStack.class, DeepStack.THREAD, name, "10000", "3");
        Jvm.Result run = deep.run();
        ProfileStats stats = deep.stats();
        CollapsedProfile worker = deep.worker();
        long inLeaf = worker.countAny(CollapsedProfile.method(DeepStack.LEAF));
        long whole = worker.count(s -> s.anyFrame(f -> f.startsWith(DeepStack.ROOT))
                && s.anyFrame(CollapsedProfile.method(DeepStack.LEAF)));
        long wholeWithEveryFrame = worker.count(s -> s.anyFrame(f -> f.startsWith(DeepStack.ROOT))
                && s.anyFrame(CollapsedProfile.method(DeepStack.LEAF))
                && s.frames().stream().filter(f -> f.startsWith(DeepStack.RECURSE)).count() == 10_001);
        long truncatedLeaf = worker.count(s -> s.anyFrame(f -> f.equals("[truncated]"))
                && s.anyFrame(CollapsedProfile.method(DeepStack.LEAF)));
        Matcher completed = Pattern.compile("(\\d+) deeper than the stack copy completed from the live stack")
                .matcher(run.stderr());
        boolean logged = completed.find();
        Figures.line(String.format("%s: %d samples in the leaf, %d whole (root and 10,001 recursion frames), %d marked"
                        + " [truncated]; reader: %s completed from the live stack; failures %s", name, inLeaf,
                wholeWithEveryFrame, truncatedLeaf, logged ? completed.group(1) : "?", Profiles.failures(stats)));
        assertTrue(inLeaf >= 1000, name + ": too few samples in the leaf: " + inLeaf);
        assertTrue(wholeWithEveryFrame >= 0.9 * inLeaf, name + ": only " + wholeWithEveryFrame + " of " + inLeaf
                + " stacks in the leaf are whole");
        assertEquals(whole, wholeWithEveryFrame, name + ": a stack that reaches the root lacks recursion frames");
        assertTrue(logged, name + ": no reader log line\n" + run.describe());
        // The profile counts ticks, the log line walks: a walk may carry more than one tick. Estimated ticks (the
        // kernel's, and percpu's CPU lost at context switches) and merged ones are recorded on the stack of a sample
        // that was walked: on a busy machine hundreds of them (percpu JDK 25 beside a CPU hog: 145 estimated, the
        // log 1,531 against 1,620 whole stacks).
        long carried = deep.statsJson().path("kernel").path("estimated_ticks").asLong()
                + deep.statsJson().path("merged_ticks").asLong();
        assertTrue(Long.parseLong(completed.group(1)) >= 0.95 * (wholeWithEveryFrame - carried), name + ": the reader's"
                + " log line counts " + completed.group(1) + " completed stacks, the profile " + wholeWithEveryFrame
                + " (of which up to " + carried + " estimated or merged ticks)\n" + run.describe());
    }

    /**
     * Callers read from the live stack after the sample are wrong when the thread returned past them and built
     * other frames of the same layout there. Two recursions of one shape, 5,000 frames each, alternate every 2 ms:
     * read later, the callers of a stack in leafA are often recurseB's frames at the same addresses. The walk
     * through the live stack checks every return address it reads there against the direct call before it
     * (FrameWalker::mayReturnFrom): without that check half the stacks in the leaves mixed the two recursions,
     * with it 0-2 of about 3,900 (walk=copy's 8k copy, early in the run: frames the interpreter runs, whose
     * calls name no target the check could read). The walks that do not hold (the thread was in the other recursion when the reader came, about
     * half) stay cut at the copy's end, marked [truncated], and a log line gives their share and what walks whole
     * stacks.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("engines")
    void callersReadLaterAreKeptOnlyWhereTheyHold(Jdks.Jdk jdk, String engine) throws Exception {
        jdk.assumePresent();
        String name = engine + " twin recursions " + jdk;
        DeepRun twins = runDeep(jdk, engine, "twins", TwinRecursions.class, TwinRecursions.THREAD, name, "5000", "4", "2");
        Jvm.Result run = twins.run();
        ProfileStats stats = twins.stats();
        CollapsedProfile worker = twins.worker();
        Predicate<CollapsedProfile.Stack> inALeaf = s -> s.anyFrame(CollapsedProfile.method(TwinRecursions.LEAF_A))
                || s.anyFrame(CollapsedProfile.method(TwinRecursions.LEAF_B));
        long inLeaf = worker.count(inALeaf);
        long whole = worker.count(s -> inALeaf.test(s) && s.anyFrame(f -> f.startsWith(TwinRecursions.ROOT)));
        long cut = worker.count(s -> inALeaf.test(s) && s.anyFrame(f -> f.equals("[truncated]")));
        long mixed = worker.count(s -> s.anyFrame(CollapsedProfile.method(TwinRecursions.RECURSE_A))
                && s.anyFrame(CollapsedProfile.method(TwinRecursions.RECURSE_B)));
        Figures.line(String.format("%s: %d samples in the leaves, %d whole, %d marked [truncated], %d mixing the two"
                + " paths; failures %s", name, inLeaf, whole, cut, mixed, Profiles.failures(stats)));
        assertTrue(inLeaf >= 1000, name + ": too few samples in the leaves: " + inLeaf);
        assertTrue(whole >= 0.2 * inLeaf, name + ": only " + whole + " of " + inLeaf + " stacks completed");
        assertTrue(whole + cut >= 0.98 * inLeaf, name + ": " + (inLeaf - whole - cut) + " of " + inLeaf
                + " stacks in the leaves are neither whole nor marked [truncated]");
        assertTrue(mixed <= 0.01 * inLeaf, name + ": " + mixed + " of " + inLeaf + " stacks mix the two recursions");
        if (cut >= 0.02 * inLeaf) {
            String hint = engine.equals("percpu") ? "deeper than the 32k stack copy" : "deeper than the 8k stack copy";
            String remedy = engine.equals("percpu") ? "percpu=no walks whole stacks" : "walk=vm walks whole stacks";
            assertTrue(run.stderr().contains(hint) && run.stderr().contains(remedy),
                    name + ": no log line about the cut stacks\n" + run.describe());
        }
    }

    private record DeepRun(Jvm.Result run, ProfileStats stats, JsonNode statsJson, CollapsedProfile worker) {
    }

    /**
     * Runs {@code main} with cpu at 1 ms and {@code engine} (walk=copy or percpu, "walk=copy unprivileged" as a
     * non-root user); checks the exit, that the engine ran and the accounting identity; returns the run, its
     * stats and the samples of {@code thread}.
     */
    private static DeepRun runDeep(Jdks.Jdk jdk, String engine, String label, Class<?> main, String thread, String name,
                                   String... args) throws Exception {
        Path dir = Build.runDir("copy-walk-" + label + "-" + jdk.label() + "-" + engine.replace('=', '-').replace(' ', '-'));
        Path collapsedFile = dir.resolve(label + ".collapsed");
        Path statsFile = dir.resolve(label + ".json");
        Jvm jvm = Jvm.of(jdk, dir);
        if (engine.endsWith(" unprivileged")) {
            jvm.unprivileged();
        }
        Jvm.Result run = jvm
                .agent("start,event=cpu,interval=1ms,threads," + engine.split(" ")[0] + ",file=" + collapsedFile
                        + ",stats=" + statsFile)
                .main(main, args)
                .run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());
        assumeEngineRan(engine, run);
        ProfileStats stats = Profiles.stats(statsFile, run);
        Profiles.assertIdentity(stats, name);
        return new DeepRun(run, stats, new ObjectMapper().readTree(statsFile.toFile()),
                Profiles.threadSubtree(Profiles.collapsed(collapsedFile, run), thread, name));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("engines")
    void survivesGcAndDeoptAt100us(Jdks.Jdk jdk, String engine) throws Exception {
        jdk.assumePresent();
        record Case(String label, Class<?> main, List<String> jvmArgs) {
        }
        for (Case c : List.of(new Case("deopt", DeoptStorm.class, List.of()),
                new Case("alloc-g1", AllocStorm.class, List.of("-XX:+UseG1GC")))) {
            String name = engine + " stress " + c.label() + " " + jdk;
            Path dir = Build.runDir("copy-walk-stress-" + c.label() + "-" + jdk.label() + "-" + engine.replace('=', '-'));
            Path statsFile = dir.resolve("stats.json");
            Path collapsedFile = dir.resolve("profile.collapsed");
            Jvm.Result run = Jvm.of(jdk, dir)
                    .agent("start,interval=100us," + engine + ",file=" + collapsedFile + ",stats=" + statsFile)
                    .jvmArg(c.jvmArgs().toArray(String[]::new))
                    .main(c.main(), String.valueOf(StressTest.seconds()))
                    .run(Duration.ofSeconds(90));
            StressTest.assertSurvived(run, dir, name);
            assumeEngineRan(engine, run);
            ProfileStats stats = Profiles.stats(statsFile, run);
            Profiles.assertIdentity(stats, name);
            assertTrue(stats.ticks() > 5000, name + ": too few ticks: " + stats.ticks());
            Figures.line(String.format("%s: exit %d, %d ticks, recorded %s, dropped %d, failures %s", name,
                    run.exitCode(), stats.ticks(), Figures.pct(stats.recordedFraction()), stats.dropped(),
                    Profiles.failures(stats)));
            assertTrue(stats.recordedFraction() >= 0.5, name + ": recorded only " + Figures.pct(stats.recordedFraction()));
        }
    }

    /**
     * A reader that falls behind lets the rings fill (here every pass waits first: the test hook
     * CANDOR_TEST_READER_STALL_MS), and the kernel loses samples, saying how many (PERF_RECORD_LOST). Those
     * ticks are dropped, and only dropped: with the ticks of every sampled thread they add up to the threads'
     * CPU time over the interval. (They were once also estimated as kernel ticks in the next sample's CPU-time
     * gap, so counted twice.)
     */
    @ParameterizedTest(name = "{0} unprivileged={1}")
    @MethodSource("jdksAsRootAndNot")
    void samplesFullRingsLostAreDroppedOnce(Jdks.Jdk jdk, boolean unprivileged) throws Exception {
        jdk.assumePresent();
        String name = "walk=copy full rings " + jdk + (unprivileged ? " unprivileged" : "");
        Path dir = Build.runDir("copy-walk-lost-" + jdk.label() + (unprivileged ? "-unprivileged" : ""));
        Path statsFile = dir.resolve("ka.json");
        long intervalNs = 100_000;
        Jvm jvm = Jvm.of(jdk, dir);
        if (unprivileged) {  // the rings then fit the unprivileged locked-memory budget (perf_event_mlock_kb)
            jvm.unprivileged();
        }
        long stealBefore = MachineSteal.nowNs();
        Jvm.Result run = jvm.env("CANDOR_TEST_READER_STALL_MS", "1000")
                .agent("start,event=cpu,interval=100us,threads,walk=copy,file=" + dir.resolve("ka.collapsed")
                        + ",stats=" + statsFile)
                .main(KnownAnswer.class, dir.resolve("truth.properties").toString(), "1750", "750")
                .run(Duration.ofSeconds(90));
        long stolenNs = MachineSteal.nowNs() - stealBefore;
        assertEquals(0, run.exitCode(), run.describe());
        ProfileStats stats = Profiles.stats(statsFile, run);
        Profiles.assertIdentity(stats, name);
        Matcher m = Pattern.compile("(\\d+) lost in full rings").matcher(run.stderr());
        assertTrue(m.find(), name + ": no ring reader summary\n" + run.describe());
        long lost = Long.parseLong(m.group(1));
        long threadTicks = stats.perThread().stream().mapToLong(ProfileStats.ThreadStats::ticks).sum();
        double cpuTicks = stats.perThread().stream().mapToLong(ProfileStats.ThreadStats::cpuNs).sum() / (double) intervalNs;
        double counted = (threadTicks + stats.dropped()) / cpuTicks;
        double countedWithSteal = (threadTicks + stats.dropped()) / (cpuTicks + stolenNs / (double) intervalNs);
        Figures.line(String.format("%s: %d lost in full rings, dropped %d; threads' ticks %d + dropped = %s of their CPU"
                        + " time over the interval (%.0f ticks); failures %s; steal %d ms", name, lost, stats.dropped(),
                threadTicks, Figures.pct(counted), cpuTicks, Profiles.failures(stats), stolenNs / 1_000_000));
        assertTrue(lost >= 0.2 * cpuTicks, name + ": too few samples lost to tell (" + lost + " of " + cpuTicks + ")\n"
                + run.describe());
        assertTrue(stats.dropped() >= lost, name + ": fewer ticks dropped than samples lost");
        // above: the machine's steal time too, which perf's cpu-clock counts and the threads' CPU clocks do not
        assertTrue(counted >= 0.9 && countedWithSteal <= 1.1, name + ": ticks and dropped against the threads' CPU time "
                + counted + " (with the machine's steal time " + countedWithSteal + ")");
    }
}

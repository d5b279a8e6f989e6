package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.candor.itest.workload.Hot;
import dev.candor.itest.workload.KnownAnswer;
import dev.candor.itest.workload.ManyThreads;
import dev.candor.itest.workload.WallStates;
import dev.candor.model.CollapsedProfile;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sampler-thread modes (issue 6): wall clock with thread states, the classic safepoint and
 * handshake samplers, cpu and wall in one run, and the wall sampler with hundreds of threads.
 */
class SamplerModesTest {
    static final ObjectMapper JSON = new ObjectMapper();

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.all().stream();
    }

    static JsonNode json(Path file) throws IOException {
        return JSON.readTree(file.toFile());
    }

    /** p50 ≤ p99 ≤ p99.9 ≤ max, all under a second, and something was measured. */
    static void assertSaneLatency(JsonNode latency, String context) {
        long p50 = latency.get("p50_ns").asLong(), p99 = latency.get("p99_ns").asLong();
        long p999 = latency.get("p999_ns").asLong(), max = latency.get("max_ns").asLong();
        assertTrue(latency.get("count").asLong() > 0, context + ": no latency measured: " + latency);
        assertTrue(p50 > 0 && p50 <= p99 && p99 <= p999 && p999 <= max, context + ": not monotone: " + latency);
        assertTrue(max < 1_000_000_000L, context + ": max latency over a second: " + latency);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void wallShowsEveryThreadInItsState(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "wall states " + jdk;
        Path dir = Build.runDir("wall-states-" + jdk.label());
        Path collapsedFile = dir.resolve("wall.collapsed");
        Path statsFile = dir.resolve("wall.json");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=wall,interval=10ms,split=thread+state,file=" + collapsedFile + ",stats=" + statsFile)
                .main(WallStates.class, "3")
                .run(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), run.describe());
        CollapsedProfile profile = Profiles.collapsed(collapsedFile, run);
        ProfileStats stats = Profiles.stats(statsFile, run);
        Profiles.assertIdentity(stats, name);

        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("busy", "running");
        expected.put("blocked", "monitor");
        expected.put("sleeper", "sleeping");
        expected.put("reader", "io");
        Map<String, Long> inState = new LinkedHashMap<>();
        long min = Long.MAX_VALUE, max = 0;
        for (Map.Entry<String, String> e : expected.entrySet()) {
            CollapsedProfile thread = Profiles.threadSubtree(profile, e.getKey(), name);
            long total = thread.total();
            long right = thread.underRoot("[state=" + e.getValue() + "]");
            inState.put(e.getKey(), right);
            min = Math.min(min, total);
            max = Math.max(max, total);
            assertTrue(right >= 0.8 * total, name + ": thread " + e.getKey() + " has " + right + " of " + total
                    + " samples in state " + e.getValue() + "; its roots: " + thread.roots());
        }
        JsonNode sampler = json(statsFile).get("sampler");
        double effective = sampler.get("effective_rate").asDouble();
        double requested = sampler.get("requested_rate").asDouble();
        JsonNode latency = json(statsFile).get("kinds").get("wall").get("latency");
        Figures.line(String.format("%s: samples per thread %d..%d, in the expected state %s; sampler %.1f ticks/s of %.1f,"
                        + " repeated without a signal %d, signals %d; latency p50 %.0f us p99 %.0f us max %.0f us",
                name, min, max, inState, effective, requested, sampler.get("repeated_without_signal").asLong(),
                sampler.get("signals_sent").asLong(), latency.get("p50_ns").asLong() / 1e3,
                latency.get("p99_ns").asLong() / 1e3, latency.get("max_ns").asLong() / 1e3));
        assertTrue(min > 100, name + ": too few samples per thread: " + min);
        assertTrue(max - min <= 0.15 * max, name + ": sample counts differ by more than 15%: " + min + ".." + max);
        assertEquals(requested, effective, 0.1 * requested, name + ": effective sampler rate vs requested");
        assertSaneLatency(latency, name);
    }

    static Stream<Arguments> biasCases() {
        return Jdks.all().stream().flatMap(jdk -> Stream.of(
                Arguments.of(jdk, "safepoint"), Arguments.of(jdk, "handshake"), Arguments.of(jdk, "cpu")));
    }

    /**
     * With counted loops free of safepoint polls (-XX:-UseCountedLoopSafepoints, as HotSpot
     * compiled them before loop strip mining), the only poll of the hot method is at its return,
     * which HotSpot attributes to the caller: the safepoint-based samplers miss the hot method
     * while cpu (AsyncGetCallTrace in a signal handler) finds its true share.
     */
    @ParameterizedTest(name = "{0} event={1}")
    @MethodSource("biasCases")
    void safepointSamplersAreBiasedAndCpuIsNot(Jdks.Jdk jdk, String event) throws Exception {
        jdk.assumePresent();
        String name = "safepoint bias " + jdk + " " + event;
        Path dir = Build.runDir("bias-" + jdk.label() + "-" + event);
        Path collapsedFile = dir.resolve("bias.collapsed");
        Path statsFile = dir.resolve("bias.json");
        Path truthFile = dir.resolve("truth.properties");
        Jvm.Result run = Jvm.of(jdk, dir)
                .jvmArg("-XX:-UseCountedLoopSafepoints")
                .agent("start,event=" + event + ",interval=1ms,threads=" + KnownAnswer.THREAD + ",file=" + collapsedFile
                        + ",stats=" + statsFile)
                .main(KnownAnswer.class, truthFile.toString(), "1500", "600")
                .run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());
        Properties truth = Profiles.truth(truthFile, run);
        long cpuA = Profiles.truthLong(truth, "cpu_a_ns"), cpuB = Profiles.truthLong(truth, "cpu_b_ns");
        double truthShare = (double) cpuA / (cpuA + cpuB);
        CollapsedProfile profile = Profiles.collapsed(collapsedFile, run);
        ProfileStats stats = Profiles.stats(statsFile, run);
        Profiles.assertIdentity(stats, name);
        long samplesA = profile.countAny(CollapsedProfile.method(Hot.METHOD_A));
        double share = (double) samplesA / Math.max(1, profile.recorded());
        Figures.line(String.format("%s: %s of the worker's recorded samples have methodA on the stack; truth %s"
                + " (%d samples)", name, Figures.pct(share), Figures.pct(truthShare), profile.recorded()));
        assertTrue(profile.recorded() >= 500, name + ": too few samples: " + profile.recorded());
        if (event.equals("cpu")) {
            assertEquals(truthShare, share, 0.05, name + ": cpu share of the hot method");
        } else {
            assertTrue(share < truthShare / 2, name + ": expected the safepoint bias to hide the hot method, but it got "
                    + Figures.pct(share) + " of samples (truth " + Figures.pct(truthShare) + ")");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void cpuAndWallStayApart(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "cpu+wall " + jdk;
        Path dir = Build.runDir("cpu-wall-" + jdk.label());
        Path collapsedFile = dir.resolve("both.collapsed");
        Path statsFile = dir.resolve("both.json");
        Jvm.Result run = Jvm.of(jdk, dir)
                // percpu=no: the cpu ticks' latency is measured in the signal handler of a per-thread timer
                .agent("start,event=cpu,wall,interval=1ms,wallinterval=10ms,percpu=no,file=" + collapsedFile + ",stats="
                        + statsFile)
                .main(WallStates.class, "2")
                .run(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), run.describe());
        ProfileStats stats = Profiles.stats(statsFile, run);
        Profiles.assertIdentity(stats, name);
        JsonNode kinds = json(statsFile).get("kinds");
        CollapsedProfile profile = Profiles.collapsed(collapsedFile, run);
        long cpu = profile.underRoot("[cpu]"), wall = profile.underRoot("[wall]");
        Figures.line(String.format("%s: cpu %d samples, wall %d samples (latency p50 %d ns); roots %s", name, cpu,
                wall, kinds.get("wall").get("latency").get("p50_ns").asLong(), profile.roots().keySet()));
        assertEquals(kinds.get("cpu").get("ticks").asLong(), cpu, name + ": [cpu] subtree vs cpu ticks");
        assertEquals(kinds.get("wall").get("ticks").asLong(), wall, name + ": [wall] subtree vs wall ticks");
        assertEquals(profile.total(), cpu + wall, name + ": every stack is under [cpu] or [wall]");
        assertTrue(cpu > 100 && wall > 100, name + ": both kinds sampled: cpu " + cpu + ", wall " + wall);
        // perf: from the kernel's record of each overflow (its one-page time ring) to the handler
        JsonNode cpuLatency = kinds.get("cpu").get("latency");
        Figures.line(String.format("%s: cpu latency %d measured, p50 %.0f us, p99 %.0f us", name,
                cpuLatency.get("count").asLong(), cpuLatency.get("p50_ns").asLong() / 1e3,
                cpuLatency.get("p99_ns").asLong() / 1e3));
        assertSaneLatency(cpuLatency, name + " cpu");
        // measured on one tick in eight; far fewer means the rings were not mapped or not read
        assertTrue(cpuLatency.get("count").asLong() >= kinds.get("cpu").get("ticks").asLong() / 16,
                name + ": cpu latency measured on too few ticks: " + cpuLatency);
        assertSaneLatency(kinds.get("wall").get("latency"), name + " wall");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void ctimerMeasuresItsLatency(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "ctimer latency " + jdk;
        Path dir = Build.runDir("ctimer-latency-" + jdk.label());
        Path statsFile = dir.resolve("ctimer.json");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=ctimer,interval=10ms,file=" + dir.resolve("ctimer.collapsed") + ",stats=" + statsFile)
                .main(WallStates.class, "2")
                .run(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), run.describe());
        JsonNode latency = json(statsFile).get("kinds").get("cpu").get("latency");
        Figures.line(String.format("%s: %d measured, p50 %.0f us, p99 %.0f us, max %.0f us of CPU time after expiry",
                name, latency.get("count").asLong(), latency.get("p50_ns").asLong() / 1e3,
                latency.get("p99_ns").asLong() / 1e3, latency.get("max_ns").asLong() / 1e3));
        assertSaneLatency(latency, name);
        assertFalse(run.stderr().contains("CPU-time timers only at its tick"), name + ": no rate hint at 10 ms\n"
                + run.describe());
    }

    /**
     * CPU-time timers asked for 1 ms, under the kernel's tick (4 ms here), where the kernel signals them. ctimer's
     * signal stands for every interval that expired since the last (si_overrun), itimer's for the intervals of the
     * process's CPU completed since the last signal (its CPU clock): their ticks keep the rate asked (before, a
     * quarter of it), and the stop says each stack stands for several intervals. A jittered ctimer re-arms one-shot
     * timers, which count no overrun: its signals count the intervals of the thread's CPU clock instead, and keep the
     * rate too (before, a quarter of it in stacks, the rest settled stackless). itimer's rate is per CPU-second of the whole process, the clock it
     * counts (its signals land on JIT and GC threads too, as {@code not_java_thread}).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void cpuTimersUnderTheKernelTick(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        for (String event : List.of("ctimer", "itimer", "ctimer,jitter=10")) {
            String engine = event.replaceAll(",.*", "");
            String name = event + " at 1 ms " + jdk;
            Path dir = Build.runDir(event.replace(",jitter=", "-jitter") + "-1ms-" + jdk.label());
            Path statsFile = dir.resolve(engine + ".json");
            Jvm.Result run = Jvm.of(jdk, dir)
                    .agent("start,event=" + event + ",interval=1ms,file=" + dir.resolve(engine + ".collapsed")
                            + ",stats=" + statsFile)
                    .main(dev.candor.itest.stress.DeoptStorm.class, "2")
                    .run(Duration.ofSeconds(60));
            assertEquals(0, run.exitCode(), run.describe());
            JsonNode stats = json(statsFile);
            double rate = stats.get(engine.equals("itimer") ? "samples_per_process_cpu_second" : "samples_per_cpu_second")
                    .asDouble();
            String hint = run.stderr().lines().filter(l -> l.contains(" samples per CPU-second of the ")).findFirst()
                    .orElse("");
            String merged = run.stderr().lines().filter(l -> l.contains("came within a later tick's signal"))
                    .findFirst().orElse("");
            Figures.line(String.format("%s: %.0f samples per CPU-second of 1000 (%d ticks, %d merged); %s", name, rate,
                    stats.get("ticks").asLong(), stats.get("merged_ticks").asLong(), merged.isEmpty() ? hint : merged));
            Profiles.assertIdentity(Profiles.stats(statsFile, run), name);
            // The stacks, the signals' ticks: most of the CPU. (A jittered ctimer armed one-shot timers at the
            // interval, each signal one tick: a quarter of the CPU, the rest settled stackless, until 2026-12-03.)
            long ticks = stats.get("ticks").asLong();
            double inStacks = (ticks - stats.get("failures").get("cpu_unsampled").asLong()) / (double) Math.max(1, ticks);
            assertTrue(engine.equals("itimer") || inStacks >= 0.8, name + ": share of the ticks with a stack " + inStacks);
            assertTrue(rate >= 900 && rate <= 1100, name + ": ticks per CPU-second " + rate);
            assertTrue(hint.isEmpty() && merged.startsWith("candor: event=" + engine + ": ")
                            && merged.contains("each stack stands for"),
                    name + ": the stop says each stack stands for several intervals\n" + run.describe());
        }
    }

    /**
     * Short bursts keep their share under CPU-time timers that the kernel checks at its tick. A signal stands for
     * every interval since its timer's last one, but a burst shorter than the tick seldom holds a tick, so its
     * intervals wait for a signal that most often lands in a long burst: weighed by its own count, a signal put
     * the short bursts at 15.7-22.4% of the ticks against 34% of the CPU (ctimer at 1 ms and 100 us). Each
     * signal now weighs its timer's average. The tick still missed short bursts where a thread's timer had not
     * expired again since its last signal (ctimer at 1 ms: 25.6-33.0%, as async-profiler's ctimer: 27.1-34.2%),
     * until ctimer armed its timers at an eighth of the interval (27.7-33.8%); and where itimer's signals that completed no
     * interval were dropped (JDK 17: 24.4-30.9%), until they joined the history. The workload's pauses were 1 ms on
     * JDK 17 (Thread.sleep rounds half a millisecond up), which put the short bursts at 25.8-29.9% and failed CI once;
     * with half-millisecond parks on both JDKs, 30.5-33.3% (JDK 17) and 30.6-34.9% (JDK 25). Longer pauses widen the
     * shortfall: still a few points under the truth, never over it.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void shortBurstsKeepTheirShareUnderTheKernelTick(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        for (String event : List.of("ctimer,interval=1ms", "itimer,interval=1ms")) {
            String engine = event.replaceAll(",.*", "");
            String name = "bursts " + event + " " + jdk;
            Path dir = Build.runDir("bursts-" + engine + "-" + jdk.label());
            Path truthFile = dir.resolve("truth.properties");
            Profiles.Profiled p = Profiles.profile(jdk, "bursts-" + engine + "-" + jdk.label(), name,
                    "start,event=" + event, dev.candor.itest.workload.Bursts.class, truthFile.toString(), "12");
            Properties truth = Profiles.truth(truthFile, p.run());
            double shortNs = Profiles.truthLong(truth, "short_ns"), longNs = Profiles.truthLong(truth, "long_ns");
            long shortTicks = p.profile().countAny(CollapsedProfile.method("dev.candor.itest.workload.Bursts.shortBurst"));
            long longTicks = p.profile().countAny(CollapsedProfile.method("dev.candor.itest.workload.Bursts.longBurst"));
            double truthShare = 100 * shortNs / (shortNs + longNs);
            double share = 100.0 * shortTicks / Math.max(1, shortTicks + longTicks);
            Figures.line(String.format("%s: short bursts %.1f%% of the ticks (%d of %d), %.1f%% of the CPU",
                    name, share, shortTicks, shortTicks + longTicks, truthShare));
            assertTrue(shortTicks + longTicks >= 2000, name + ": too few ticks to judge: " + (shortTicks + longTicks));
            assertTrue(Math.abs(share - truthShare) <= 8, String.format(
                    "%s: short bursts %.1f%% of the ticks, %.1f%% of the CPU", name, share, truthShare));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void runningThreadsSampledEveryTickAmongHundredsOfIdleOnes(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "500 idle threads " + jdk;
        Path dir = Build.runDir("many-threads-" + jdk.label());
        Path statsFile = dir.resolve("many.json");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=wall,interval=10ms,wallthreads=16,file=" + dir.resolve("many.collapsed")
                        + ",stats=" + statsFile)
                .main(ManyThreads.class, "500", "2", "3")
                .run(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), run.describe());
        ProfileStats stats = Profiles.stats(statsFile, run);
        Profiles.assertIdentity(stats, name);
        JsonNode sampler = json(statsFile).get("sampler");
        long seen = sampler.get("running_seen").asLong(), sampled = sampler.get("running_sampled").asLong();
        long ticks = sampler.get("ticks").asLong();
        Figures.line(String.format("%s: %d ticks, up to %d threads considered, running threads sampled %d of %d;"
                        + " sampler CPU per tick p50 %.0f us p99 %.0f us; repeated without a signal %d",
                name, ticks, sampler.get("candidates_max").asLong(), sampled, seen,
                sampler.get("tick_cpu").get("p50_ns").asLong() / 1e3, sampler.get("tick_cpu").get("p99_ns").asLong() / 1e3,
                sampler.get("repeated_without_signal").asLong()));
        assertTrue(sampler.get("candidates_max").asLong() >= 500, name + ": the idle threads were not considered");
        assertTrue(seen >= ticks, name + ": expected the busy threads to be seen running on most ticks");
        assertEquals(seen, sampled, name + ": every running thread must be sampled on every tick");
    }
}

package dev.candor.itest;

import dev.candor.itest.workload.HandOff;
import dev.candor.model.CollapsedProfile;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.api.Assumptions;
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
 * No CPU of a sampled thread disappears without a bucket, under the heaviest context switching
 * ({@link HandOff}: one ping-pong pair on two CPUs, most of its CPU in the kernel's switching and
 * futex work). Each thread's ticks in the profile, whatever bucket they landed in, must stand for
 * the CPU time the thread measured with ThreadMXBean: CPU / interval within 5% over both threads,
 * within 8% per thread. With per-CPU timers (root) a tick that expires as its thread is switched
 * out to an idle CPU fires in the idle task and writes no sample (82-89% of the rate came through
 * here); those ticks are charged to the thread as {@code cpu_unsampled}. With a timer per thread
 * (unprivileged) the kernel time perf does not sample is charged as {@code [kernel_unsampled]}.
 */
class CpuCoverageTest {

    static Stream<Arguments> cases() {
        return Jdks.all().stream().flatMap(jdk -> Stream.of(Arguments.of(jdk, false), Arguments.of(jdk, true)));
    }

    @ParameterizedTest(name = "{0} unprivileged={1}")
    @MethodSource("cases")
    void everyThreadsCpuTimeBecomesTicks(Jdks.Jdk jdk, boolean unprivileged) throws Exception {
        jdk.assumePresent();
        String name = "cpu coverage " + jdk + (unprivileged ? " unprivileged" : " as " + System.getProperty("user.name"));
        Path dir = Build.runDir("cpu-coverage-" + jdk.label() + (unprivileged ? "-unprivileged" : ""));
        Path collapsedFile = dir.resolve("c.collapsed");
        Path statsFile = dir.resolve("c.json");
        Path truthFile = dir.resolve("truth.properties");
        Jvm jvm = Jvm.of(jdk, dir);
        if (unprivileged) {
            jvm.unprivileged();
        }
        long stealBefore = MachineSteal.nowNs();
        Jvm.Result run = jvm.agent("start,interval=1ms,threads,file=" + collapsedFile + ",stats=" + statsFile)
                .main(HandOff.class, truthFile.toString(), "4", "1").run(Duration.ofSeconds(90));
        long stolenMs = (MachineSteal.nowNs() - stealBefore) / 1_000_000;
        assertEquals(0, run.exitCode(), run.describe());
        boolean perCpu = run.stderr().contains("percpu: one perf event per CPU");
        if (!unprivileged && Jvm.isRoot()) {
            assertTrue(perCpu, name + ": root runs per-CPU timers by default\n" + run.describe());
        }

        Properties truth = Profiles.truth(truthFile, run);
        ProfileStats stats = Profiles.stats(statsFile, run);
        Profiles.assertIdentity(stats, name);
        CollapsedProfile profile = Profiles.collapsed(collapsedFile, run);
        long expectedAll = 0;
        long ticksAll = 0;
        StringBuilder figures = new StringBuilder();
        for (String thread : new String[] {HandOff.PING + 0, HandOff.PONG + 0}) {
            long expected = Profiles.truthLong(truth, "cpu_ns." + thread) / 1_000_000;
            CollapsedProfile sub = Profiles.threadSubtree(profile, thread, name);
            long ticks = sub.total();
            long cpuUnsampled = sub.countAny(f -> f.equals("[cpu_unsampled]"));
            long kernelUnsampled = sub.countAny(f -> f.equals("[kernel_unsampled]"));
            figures.append(String.format(" %s: %d ticks for %d ms of CPU (%s; cpu_unsampled %d, kernel_unsampled %d);",
                    thread, ticks, expected, Figures.pct((double) ticks / expected), cpuUnsampled, kernelUnsampled));
            assertTrue(expected >= 500, name + ": " + thread + " used only " + expected + " ms of CPU");
            // Within 8% either way. A per-CPU tick that falls due during the partner's switch-out fires in this
            // thread's switch-in; since the kernel's switch records tell the reader, it is left out there and
            // the partner's CPU clock charges it (the surplus reached 111% before: 98.8-101.7% since). With every CPU's
            // timer at one period, 4 of 29 runs still got 109-151%: the pair's schedule leant on the phase between the
            // two CPUs' grids, fixed for the run; each CPU has its own period since (PerfRingEngine::cpuPeriodNs).
            // Above: the machine's steal time too, which perf's cpu-clock counts and the thread's CPU clock does
            // not (a fresh clone once gave this pair 117.6%, 288 ms over the truth, on this bursty KVM host).
            double ratio = (double) ticks / expected;
            double withSteal = (double) ticks / (expected + stolenMs);
            assertTrue(ratio >= 0.92 && withSteal <= 1.08, name + ": " + thread + " ticks per ms of its CPU " + ratio
                    + " (with the machine's steal time " + withSteal + ");" + figures);
            expectedAll += expected;
            ticksAll += ticks;
        }
        figures.append(" steal ").append(stolenMs).append(" ms;");
        Figures.line(String.format("%s (%s): %d ticks for %d ms of CPU (%s);%s identity %s", name,
                perCpu ? "percpu" : "timer per thread", ticksAll, expectedAll, Figures.pct((double) ticksAll / expectedAll),
                figures, stats.identityHolds() ? "holds" : "BROKEN"));
        // The pair's total within 5%, whatever the timers: a tick that falls due while a CPU switches from idle into
        // one of them (they hand off constantly) is left out too (105.0% on JDK 25 before; 100.2-100.3% since).
        double all = (double) ticksAll / expectedAll;
        double allWithSteal = (double) ticksAll / (expectedAll + stolenMs);
        assertTrue(all >= 0.95 && allWithSteal <= 1.05, name + ": ticks per ms of the threads' CPU " + all
                + " (with the machine's steal time " + allWithSteal + ");" + figures);
    }

    static Stream<Arguments> shortThreadModes() {
        return Jdks.all().stream().flatMap(jdk -> Stream.of(
                Arguments.of(jdk, "unprivileged"), Arguments.of(jdk, "percpu=no"), Arguments.of(jdk, "percpu=no,walk=remote"),
                Arguments.of(jdk, "event=ctimer"), Arguments.of(jdk, "default")));
    }

    /**
     * Thousands of threads that each live for less than an interval of CPU (the stress suite's
     * ThreadChurn: ~5,000 a second, each a short loop of ~45 us of CPU). Their CPU, as the agent's per-thread CPU clocks
     * measured it from ThreadStart to ThreadEnd (stats `profiled_cpu_ns`), must become ticks.
     * <ul>
     * <li>{@code unprivileged}, and {@code percpu=no} as root: a perf timer per thread, whose overflow
     * such a thread never reaches. Each thread settles its debt as it ends: whole intervals on its
     * stack, the last part of an interval pooled into stackless {@code cpu_unsampled} ticks (with
     * {@code walk=remote} all of it). Without that, 58-61% (unprivileged) and 51-52% (root) of that
     * CPU became ticks.</li>
     * <li>{@code event=ctimer}: a POSIX timer per thread, which fires only at the kernel's tick: most
     * such threads get no signal, and a thread's last signals leave a few intervals unweighed. Each
     * thread settles as it ends: its CPU since its timer started, less what its ticks stood for, as
     * stackless {@code cpu_unsampled} ticks. Without that, 49.4-51.6% of that CPU became ticks; 96.2% since.</li>
     * <li>{@code default} as root: per-CPU timers, which see a thread from its first instruction
     * to its disarming, where the thread itself reads every CPU's ring for its last samples and only
     * then its CPU clock. With the clock read before that reading, whose samples were counted, the
     * ticks came to 103.5-105.4% of the CPU (107.5% under ASan); 100.0-100.5% since.</li>
     * </ul>
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("shortThreadModes")
    void shortThreadsKeepTheirCpu(Jdks.Jdk jdk, String mode) throws Exception {
        jdk.assumePresent();
        boolean unprivileged = mode.equals("unprivileged");
        Assumptions.assumeTrue(unprivileged || Jvm.isRoot(), mode + " needs root (perf's kernel sampling): skipped");
        String name = "cpu coverage " + jdk + " short threads " + mode;
        Path dir = Build.runDir("cpu-coverage-short-" + jdk.label() + "-" + mode.replace('=', '-').replace(',', '-'));
        Path statsFile = dir.resolve("c.json");
        Jvm jvm = Jvm.of(jdk, dir);
        if (unprivileged) {
            jvm.unprivileged();
        }
        String percpu = mode.startsWith("percpu=no") || mode.startsWith("event=") ? "," + mode : "";
        long stealBefore = MachineSteal.nowNs();
        Jvm.Result run = jvm.agent("start,interval=1ms" + percpu + ",file=" + dir.resolve("c.collapsed") + ",stats=" + statsFile)
                .main(dev.candor.itest.stress.ThreadChurn.class, "4").run(Duration.ofSeconds(90));
        long stolen = MachineSteal.nowNs() - stealBefore;
        assertEquals(0, run.exitCode(), run.describe());
        boolean perCpu = run.stderr().contains("percpu: one perf event per CPU");
        assertEquals(mode.equals("default"), perCpu, name + ": timers\n" + run.describe());
        ProfileStats stats = Profiles.stats(statsFile, run);
        Profiles.assertIdentity(stats, name);
        double ratio = stats.ticks() / (stats.profiledCpuNs() / (double) stats.intervalNs());
        long cpuUnsampled = stats.failure("cpu_unsampled");
        Figures.line(String.format("%s: %d threads, %d ticks for %.0f ms of their CPU (%s), cpu_unsampled %d, steal %d ms",
                name, stats.threads(), stats.ticks(), stats.profiledCpuNs() / 1e6, Figures.pct(ratio), cpuUnsampled,
                stolen / 1_000_000));
        assertTrue(stats.threads() >= 1000, name + ": only " + stats.threads() + " threads");
        // Per-CPU ticks fall on a fixed grid, not at random: their count over thousands of threads varies little
        // (100.0-100.5% in 6 runs), and 3% is below what the clock read too early gave.
        // Above: the hypervisor's steal time too. perf's cpu-clock runs on while a vCPU is stolen from a thread on
        // it, the thread's CPU clock does not (a fresh clone, its threads' start rate halved: 106.2% with percpu=no).
        double withSteal = stats.ticks() / ((stats.profiledCpuNs() + stolen) / (double) stats.intervalNs());
        assertTrue(ratio >= 0.92 && withSteal <= (perCpu ? 1.03 : 1.05), name + ": ticks per interval of the threads' CPU "
                + ratio + " (with the machine's steal time " + withSteal + ")");
        if (!perCpu) {
            assertTrue(cpuUnsampled > 0, name + ": the threads' last parts are named cpu_unsampled");
        }
    }
}

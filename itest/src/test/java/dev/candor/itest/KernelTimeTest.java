package dev.candor.itest;

import dev.candor.itest.workload.SyscallMix;
import dev.candor.model.CollapsedProfile;
import dev.candor.model.Frame;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Known answer for kernel time ({@link SyscallMix}): one thread alternates a pure-Java loop with
 * one-byte writes to /dev/null, whose CPU is mostly system time, and measures each phase's CPU
 * (user + system) with ThreadMXBean. The cpu profile's share of each phase must match: within 3
 * points where perf lets candor sample the kernel (root here; the kernel frames then show which
 * system call), within 5 points as an unprivileged user (perf_event_paranoid 2: the kernel time is
 * counted from the thread's CPU clock and shown as [kernel_unsampled]). Either way the kernel part
 * is visible with about the weight of the measured system time, and ticks add up.
 */
class KernelTimeTest {

    static Stream<Arguments> cases() {
        return Jdks.all().stream().flatMap(jdk -> Stream.of(Arguments.of(jdk, false, false), Arguments.of(jdk, true, false),
                Arguments.of(jdk, false, true), Arguments.of(jdk, true, true)));
    }

    /**
     * {@code percpu}: one perf event per CPU samples every thread, kernel included, where perf allows
     * CPU-wide events (root here); unprivileged it falls back to a timer per thread, with one log line.
     */
    @ParameterizedTest(name = "{0} unprivileged={1} percpu={2}")
    @MethodSource("cases")
    void syscallPhaseGetsItsKernelTime(Jdks.Jdk jdk, boolean unprivileged, boolean perCpu) throws Exception {
        jdk.assumePresent();
        String name = "kernel time " + jdk + (unprivileged ? " unprivileged" : " as " + System.getProperty("user.name"))
                + (perCpu ? " percpu" : "");
        Path dir = Build.runDir("kernel-time-" + jdk.label() + (unprivileged ? "-unprivileged" : "") + (perCpu ? "-percpu" : ""));
        Path collapsedFile = dir.resolve("k.collapsed");
        Path statsFile = dir.resolve("k.json");
        Path truthFile = dir.resolve("truth.properties");
        Jvm jvm = Jvm.of(jdk, dir);
        if (unprivileged) {
            jvm.unprivileged();
        }
        long stealBefore = MachineSteal.nowNs();
        Jvm.Result run = jvm.agent("start,interval=1ms,threads," + (perCpu ? "percpu," : "") + "file=" + collapsedFile
                        + ",stats=" + statsFile)
                .main(SyscallMix.class, truthFile.toString(), "4").run(Duration.ofSeconds(90));
        long stolenMs = (MachineSteal.nowNs() - stealBefore) / 1_000_000;
        assertEquals(0, run.exitCode(), run.describe());

        Properties truth = Profiles.truth(truthFile, run);
        long javaCpu = Profiles.truthLong(truth, "java_cpu_ns");
        long sysCpu = Profiles.truthLong(truth, "syscall_cpu_ns");
        long sysUser = Profiles.truthLong(truth, "syscall_user_ns");
        double truthShare = (double) sysCpu / (javaCpu + sysCpu);
        double truthKernel = (double) (sysCpu - sysUser) / (javaCpu + sysCpu);

        CollapsedProfile worker = Profiles.threadSubtree(Profiles.collapsed(collapsedFile, run), SyscallMix.THREAD, name);
        long inJava = worker.countAny(CollapsedProfile.method(SyscallMix.JAVA_PHASE));
        long inSyscall = worker.countAny(CollapsedProfile.method(SyscallMix.SYSCALL_PHASE));
        double share = (double) inSyscall / Math.max(1, inJava + inSyscall);
        long kernelFramed = worker.countAny(f -> f.endsWith("_[k]"));
        long unsampled = worker.countAny(f -> f.equals("[kernel_unsampled]"));
        ProfileStats stats = Profiles.stats(statsFile, run);
        String mode = kernelMode(statsFile);
        boolean sampled = mode.equals("sampled");
        double kernelShare = (double) (sampled ? kernelFramed : unsampled) / Math.max(1, inJava + inSyscall);

        Figures.line(String.format("%s: kernel %s; syscall phase truth %s (system %s), profile %s (%d of %d samples),"
                        + " diff %+.1f points; kernel part %s (%d samples with kernel frames, %d [kernel_unsampled]);"
                        + " identity %s",
                name, mode, Figures.pct(truthShare), Figures.pct(truthKernel), Figures.pct(share), inSyscall,
                inJava + inSyscall, 100 * (share - truthShare), Figures.pct(kernelShare), kernelFramed, unsampled,
                stats.identityHolds() ? "holds" : "BROKEN"));
        Profiles.assertIdentity(stats, name);
        boolean rootRun = !unprivileged && Jvm.isRoot();
        if (perCpu) {
            boolean ran = run.stderr().contains("percpu: one perf event per CPU");
            boolean fellBack = run.stderr().contains("candor: percpu is not available");
            assertTrue(rootRun ? ran && !fellBack : fellBack || perfParanoid() <= 0,
                    name + ": percpu ran " + ran + ", fell back " + fellBack + "\n" + run.describe());
            if (rootRun) {
                // every tick the kernel took in kernel mode carries its kernel frames: none is
                // shown as user code for want of a callchain
                Matcher m = Pattern.compile("(\\d+) in kernel mode \\((\\d+) without kernel frames\\)").matcher(run.stderr());
                assertTrue(m.find(), name + ": the ring reader's summary has no kernel-mode count\n" + run.describe());
                long inKernel = Long.parseLong(m.group(1));
                long noChain = Long.parseLong(m.group(2));
                assertTrue(inKernel >= kernelFramed, name + ": " + inKernel + " kernel-mode samples, " + kernelFramed
                        + " of the worker with kernel frames");
                assertTrue(noChain <= inKernel / 100, name + ": " + noChain + " of " + inKernel
                        + " kernel-mode samples without kernel frames");
            }
        }
        if (rootRun) {
            assertEquals("sampled", mode, name + ": root may sample the kernel");
        } else if (perfParanoid() >= 2) {
            assertEquals("estimated", mode, name + ": perf_event_paranoid " + perfParanoid() + " refuses kernel sampling");
        }
        assertTrue(inJava + inSyscall >= 2000, name + ": too few samples: " + (inJava + inSyscall));
        assertEquals(truthShare, share, sampled ? 0.03 : 0.05, name + ": syscall phase share (truth vs profile)");
        // The truth's system time is CPU less ThreadMXBean's user time, which HotSpot reads from /proc's utime:
        // 10 ms units, split from the CPU clock by the kernel tick's samples. Sampled, the profile came within
        // 1.7 points of it; estimated, the profile's kernel part also holds the Java phase's kernel time and came
        // out -0.7 to +2.7 points off in 12 runs, once +6.2 (truth 25.9%, the lowest seen): 7 points there.
        assertEquals(truthKernel, kernelShare, sampled ? 0.05 : 0.07, name + ": kernel part (measured system time vs profile)");
        // Sampled, the marker only carries what the event's clock misses: the scheduler's work around
        // context switches, 0-1% here and up to 2.4% seen when the JVM's own threads preempt the
        // workload's on 2 CPUs. Not sampled, no kernel frame can appear.
        if (sampled) {
            assertTrue(unsampled <= 0.04 * (inJava + inSyscall), name + ": [kernel_unsampled] " + unsampled);
        } else {
            assertEquals(0, kernelFramed, name + ": kernel frames without kernel sampling");
            // With the machine's steal time: a fresh clone's run on a guest twice as slow as usual put 18-22 of
            // 527-635 here (the server beside it served half its usual requests); 0 of 796-888 right after.
            assertPlacedAtSystemCalls(worker, unsampled, name + " (machine steal " + stolenMs + " ms)");
        }
    }

    /**
     * Not sampled, the kernel time is placed where a CPU-time timer found the thread returning from
     * a system call: each [kernel_unsampled] tick sits on the C frame of that call (libc's write,
     * under FileOutputStream.writeBytes), hardly any in the Java phase (a debt past 16 intervals is
     * paid at the next tick: 0-16 of ~1200 seen). Placed at the thread's next tick instead (the
     * design before; CANDOR_TEST_KERNEL_AT_NEXT_TICK=1), none sat on a C frame (the marker went on
     * the Java part) and 39-73 landed in the Java phase.
     */
    static void assertPlacedAtSystemCalls(CollapsedProfile worker, long unsampled, String name) {
        Predicate<CollapsedProfile.Stack> marked = s -> s.leaf().equals("[kernel_unsampled]");
        long inJavaPhase = worker.count(marked.and(s -> s.anyFrame(CollapsedProfile.method(SyscallMix.JAVA_PHASE))));
        long onCFrame = worker.count(marked.and(s -> s.frames().size() >= 2 && isCFrame(s.frames().get(s.frames().size() - 2))));
        Figures.line(String.format("%s: [kernel_unsampled] %d, on a C frame %d, in the Java phase %d",
                name, unsampled, onCFrame, inJavaPhase));
        assertTrue(inJavaPhase <= 0.03 * unsampled, name + ": [kernel_unsampled] in the Java phase: " + inJavaPhase
                + " of " + unsampled);
        assertTrue(onCFrame >= 0.95 * unsampled, name + ": [kernel_unsampled] on a system call's C frame: " + onCFrame
                + " of " + unsampled);
    }

    /** A C or C++ function's frame, as the model reads collapsed text. */
    static boolean isCFrame(String frame) {
        Frame.Type type = Frame.parse(frame).type();
        return type == Frame.Type.NATIVE || type == Frame.Type.CPP;
    }

    static String kernelMode(Path statsFile) throws Exception {
        Matcher m = Pattern.compile("\"kernel\": \\{\"mode\": \"([a-z_]*)\"").matcher(Files.readString(statsFile));
        assertTrue(m.find(), "no kernel mode in " + statsFile);
        return m.group(1);
    }

    /** A whole-number field of a stats file, wherever it is. */
    static long statsLong(Path statsFile, String field) throws Exception {
        Matcher m = Pattern.compile("\"" + field + "\": (\\d+)").matcher(Files.readString(statsFile));
        assertTrue(m.find(), "no " + field + " in " + statsFile);
        return Long.parseLong(m.group(1));
    }

    static int perfParanoid() throws Exception {
        return Integer.parseInt(Files.readString(Path.of("/proc/sys/kernel/perf_event_paranoid")).strip());
    }
}

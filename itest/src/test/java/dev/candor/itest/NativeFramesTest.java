package dev.candor.itest;

import dev.candor.itest.workload.MonitorContention;
import dev.candor.itest.workload.SyscallMix;
import dev.candor.model.CollapsedProfile;
import dev.candor.model.ProfileStats;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * C frames between the Java stack and the kernel ({@link SyscallMix}'s writes to /dev/null go
 * through libjava's JNI function and libc's write wrapper, which has no frame pointer). With
 * cstack=dwarf (the default) nearly every tick in the write system call shows the whole C path
 * and the kernel frames above it; cstack=fp loses the frames rbp links skip; cstack=no records no C
 * frame. JFR marks C frames Native with their library as class, kernel frames Kernel.
 * With allthreads the JIT compiler threads' stacks are whole C++ stacks under [JIT compiler].
 */
class NativeFramesTest {
    static final List<String> C_PATH = List.of("Java_java_io_FileOutputStream_writeBytes", "writeBytes", "handleWrite",
            "write");

    static Stream<Arguments> cases() {
        return Jdks.all().stream().flatMap(jdk -> Stream.of(Arguments.of(jdk, "dwarf"), Arguments.of(jdk, "fp"),
                Arguments.of(jdk, "no")));
    }

    /**
     * A Java thread interrupted in C code that compiled Java code called without leaving the Java
     * state (a contended monitor's exit waking the next owner through glibc): the walk of its Java
     * frames starts where the native unwinder left the C frames. Before, glibc's use of rbp broke
     * the walker's own guess through frame pointers and such ticks were unknown_not_java.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.candor.itest.Jdks#all")
    void leafCallsIntoCKeepTheirJavaStack(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "native frames leaf calls " + jdk;
        Profiles.Profiled p = Profiles.profile(jdk, "native-frames-leaf-" + jdk.label(), name, "start,interval=1ms,percpu=no",
                MonitorContention.class, "5");
        ProfileStats stats = p.stats();
        CollapsedProfile profile = p.profile();
        long unlocking = profile.count(s -> s.anyFrame(f -> f.equals("SharedRuntime::complete_monitor_unlocking_C"))
                && s.anyFrame(CollapsedProfile.method(MonitorContention.LOOP)));
        long lost = stats.failure("unknown_not_java");
        Figures.line(String.format("%s: %d ticks, %d in complete_monitor_unlocking_C under %s, unknown_not_java %d",
                name, stats.ticks(), unlocking, MonitorContention.LOOP, lost));
        assertTrue(stats.ticks() > 5000, name + ": too few ticks: " + stats.ticks());
        assertTrue(unlocking > 0, name + ": no monitor exit in C under its Java caller\n" + profile);
        // Before: 20 (JDK 17) and 35 (JDK 25) of about 9,700 ticks; now none seen.
        assertTrue(lost <= 3, name + ": " + lost + " ticks unknown_not_java");
    }

    @ParameterizedTest(name = "{0} cstack={1}")
    @MethodSource("cases")
    void systemCallsShowTheirCPath(Jdks.Jdk jdk, String cstack) throws Exception {
        jdk.assumePresent();
        String name = "native frames " + jdk + " cstack=" + cstack;
        Path dir = Build.runDir("native-frames-" + jdk.label() + "-" + cstack);
        Path collapsedFile = dir.resolve("n.collapsed");
        Path jfrFile = dir.resolve("n.jfr");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,interval=1ms,allthreads,cstack=" + cstack + ",file=" + collapsedFile + ",file=" + jfrFile)
                .main(SyscallMix.class, dir.resolve("truth.properties").toString(), "3").run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());
        CollapsedProfile profile = Profiles.collapsed(collapsedFile, run);

        // Ticks in the write system call: kernel frames under the syscall phase.
        CollapsedProfile.Stack[] inKernel = profile.stacks().stream()
                .filter(s -> s.anyFrame(CollapsedProfile.method(SyscallMix.SYSCALL_PHASE)))
                .filter(s -> s.anyFrame(f -> f.endsWith("_[k]"))).toArray(CollapsedProfile.Stack[]::new);
        long kernel = Stream.of(inKernel).mapToLong(CollapsedProfile.Stack::count).sum();
        long wholePath = Stream.of(inKernel).filter(s -> s.frames().containsAll(C_PATH))
                .mapToLong(CollapsedProfile.Stack::count).sum();
        long withWrite = Stream.of(inKernel).filter(s -> s.frames().contains("write"))
                .mapToLong(CollapsedProfile.Stack::count).sum();
        long anyC = profile.countAny(f -> C_PATH.contains(f));
        long jit = profile.count(s -> s.frames().get(0).equals("[JIT compiler]")
                && s.frames().contains("CompileBroker::compiler_thread_loop"));

        long jfrNative = 0;
        long jfrKernel = 0;
        long jfrLibcWrite = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(jfrFile)) {
            if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null) {
                continue;
            }
            for (RecordedFrame f : e.getStackTrace().getFrames()) {
                String type = f.getType();
                if (type.equals("Native") || type.equals("C++")) {
                    jfrNative++;
                    if (f.getMethod().getName().equals("write") && f.getMethod().getType().getName().startsWith("libc.so")) {
                        jfrLibcWrite++;
                    }
                } else if (type.equals("Kernel")) {
                    jfrKernel++;
                }
            }
        }
        Figures.line(String.format("%s: %d ticks in the write system call, %d with the whole C path %s, %d with libc's"
                        + " write; %d samples of JIT compiler threads through CompileBroker; JFR frames: %d Native/C++"
                        + " (%d libc write), %d Kernel",
                name, kernel, wholePath, C_PATH, withWrite, jit, jfrNative, jfrLibcWrite, jfrKernel));
        assertTrue(kernel >= 300, name + ": too few ticks in the system call: " + kernel);
        assertTrue(jfrKernel > 0, name + ": no Kernel frame in the JFR recording");
        switch (cstack) {
            case "dwarf" -> {
                assertTrue(wholePath >= 0.95 * kernel, name + ": only " + wholePath + " of " + kernel
                        + " system-call ticks show the whole C path");
                assertTrue(jit > 0, name + ": no JIT compiler stack through CompileBroker");
                assertTrue(jfrLibcWrite > 0, name + ": no Native frame write of class libc.so.* in the JFR");
            }
            case "fp" -> assertTrue(withWrite >= 0.95 * kernel && wholePath < 0.5 * kernel, name
                    + ": rbp links reach libc's write from its leaf but skip the frames without a frame pointer");
            default -> {
                assertEquals(0, anyC, name + ": C frames recorded with cstack=no");
                assertEquals(0, libraryFrames(jfrFile), name + ": C frames in the JFR with cstack=no");
            }
        }
    }

    // C frames in a recording: Native or C++ frames whose class is a library file.
    private static long libraryFrames(Path jfr) throws Exception {
        long n = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
            if (e.getStackTrace() == null) {
                continue;
            }
            for (RecordedFrame f : e.getStackTrace().getFrames()) {
                if ((f.getType().equals("Native") || f.getType().equals("C++"))
                        && f.getMethod().getType().getName().contains(".so")) {
                    n++;
                }
            }
        }
        return n;
    }
}

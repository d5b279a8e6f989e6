package dev.candor.itest;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every way {@code candor attach} can fail: one line on stderr naming the problem, and exit 2
 * (target problem) or 3 (profiling problem). Two cases go through the installed launcher
 * (build/candor on the first JDK); the others run the same CLI code in this JVM, which saves a
 * JVM start per case.
 */
class AttachErrorsTest {

    private static final int TARGET = 2;
    private static final int PROFILING = 3;

    private final List<String> figures = new ArrayList<>();

    private void expect(Targets.Ran r, int exitCode, String message, String what) {
        String err = r.stderr().strip();
        figures.add(what + " -> " + r.exitCode());
        assertEquals(exitCode, r.exitCode(), what + ": " + r.describe());
        assertEquals(1, err.lines().count(), what + ": one line expected on stderr: " + r.describe());
        assertTrue(err.startsWith("candor: ") && err.contains(message),
                what + ": expected a line containing '" + message + "': " + r.describe());
    }

    @Test
    void attachErrors() throws Exception {
        Jdks.Jdk client = Targets.client();
        Jdks.Jdk modern = Jdks.all().stream().filter(j -> j.present() && Targets.feature(j) >= 21).findFirst()
                .orElse(null);
        Path dir = Build.runDir("attach-errors");
        Path agent = Build.agent();
        List<AutoCloseable> cleanup = new ArrayList<>();
        try {
            // the targets start together, to overlap their start-up
            Path plainDir = Files.createDirectories(dir.resolve("plain"));
            Path noAttachDir = Files.createDirectories(dir.resolve("no-attach"));
            Path noDynamicDir = Files.createDirectories(dir.resolve("no-dynamic"));
            Targets.Spin plain = track(cleanup, Targets.spin(Jvm.of(client, plainDir)
                    .jvmArg("-XX:+EnableDynamicAgentLoading"), plainDir, 120));
            Targets.Spin noAttach = track(cleanup, Targets.spin(Jvm.of(client, noAttachDir)
                    .jvmArg("-XX:+DisableAttachMechanism"), noAttachDir, 120));
            Targets.Spin noDynamic = modern == null ? null : track(cleanup, Targets.spin(Jvm.of(modern, noDynamicDir)
                    .jvmArg("-XX:-EnableDynamicAgentLoading"), noDynamicDir, 120));
            Process sleep = new ProcessBuilder("sleep", "120").start();
            cleanup.add(() -> {
                sleep.destroy();
                sleep.waitFor(10, TimeUnit.SECONDS);
            });
            String pid = plain.pidText();

            // target problems: exit 2
            long unused = Targets.unusedPid();
            expect(Targets.candor(client, dir, "attach", Long.toString(unused), "start"), TARGET,
                    "no such process: " + unused, "no such process");
            expect(Targets.candorInProcess("--agent", agent.toString(), "attach", Long.toString(sleep.pid()), "start"), TARGET,
                    "process " + sleep.pid() + " (sleep) is not a JVM", "not a JVM");
            assertTrue(sleep.isAlive(), "candor must not signal a process that is not a JVM");
            if (Jvm.isRoot() && Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
                // root may attach to any user's JVM (OtherUserAttachTest); another user may not attach to root's
                Path nobodyDir = Files.createDirectories(dir.resolve("nobody"));
                Files.setPosixFilePermissions(nobodyDir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
                expect(Targets.candorAsNobody(client, nobodyDir, "attach", pid, "start"), TARGET,
                        "belongs to user root (uid 0) and candor runs as nobody (uid 65534): a JVM can only be"
                                + " attached by its own user or root", "JVM of another user");
                assertEquals(0, Targets.candorMappings(plain.pid()), "nothing may be loaded by another user");
            } else {
                figures.add("JVM of another user: skipped (needs root and setpriv)");
            }
            expect(Targets.candorInProcess("--agent", agent.toString(), "attach", noAttach.pidText(), "start"), TARGET,
                    "JVM " + noAttach.pid() + " refuses attach (it runs with -XX:+DisableAttachMechanism)",
                    "attach disabled");
            if (noDynamic != null) {
                expect(Targets.candorInProcess("--agent", agent.toString(), "attach", noDynamic.pidText(), "start"), TARGET,
                        "does not allow loading agents while it runs (-XX:-EnableDynamicAgentLoading): restart it"
                                + " with -XX:+EnableDynamicAgentLoading", "dynamic agents disabled (" + modern + ")");
            } else {
                figures.add("dynamic agents disabled: skipped (no JDK 21+)");
            }

            // agent problems: exit 3, before anything is loaded
            Path missing = dir.resolve("missing/libcandor.so");
            expect(Targets.candorInProcess("--agent", missing.toString(), "attach", pid, "start"), PROFILING,
                    "agent library not found: " + missing, "agent missing");
            Path arm = fakeElf(dir.resolve("arm64/libcandor.so"), 183);
            expect(Targets.candorInProcess("--agent", arm.toString(), "attach", pid, "start"), PROFILING,
                    "agent library " + arm + " is built for aarch64, not for this machine (x86-64)",
                    "agent for another architecture");
            Path text = Files.writeString(Files.createDirectories(dir.resolve("text")).resolve("libcandor.so"),
                    "#!/bin/sh\necho this is not a library\n");
            expect(Targets.candorInProcess("--agent", text.toString(), "attach", pid, "start"), PROFILING,
                    "agent library " + text + " is not an ELF shared library", "agent not ELF");
            assertEquals(0, Targets.candorMappings(plain.pid()), "nothing may be loaded after the agent checks");
            expect(Targets.candorInProcess("attach", pid, "stop"), PROFILING,
                    "candor is not loaded in JVM " + pid + ": nothing to stop", "stop before any start");

            // the agent's own refusals, read back from its reply file
            expect(Targets.candor(client, dir, "--agent", agent.toString(), "attach", pid, "start",
                    "--agent-options", "intervl=1ms"), PROFILING,
                    "candor: unknown option 'intervl' (did you mean 'interval'?)", "option rejected by the agent");
            expect(Targets.candorInProcess("--agent", agent.toString(), "attach", pid, "start",
                    "-f", dir.resolve("no-such-dir/p.html").toString()), PROFILING,
                    "cannot write " + dir.resolve("no-such-dir/p.html"), "unwritable output");
            Targets.Ran start = Targets.candorInProcess("--agent", agent.toString(), "attach", pid, "start",
                    "-f", dir.resolve("errors.collapsed").toString());
            assertEquals(0, start.exitCode(), start.describe());
            expect(Targets.candorInProcess("attach", pid, "start"), PROFILING,
                    "profiling is already running; stop it first", "start while running");
            assertEquals(0, Targets.candorInProcess("attach", pid, "stop").exitCode());
            expect(Targets.candorInProcess("attach", pid, "stop"), PROFILING, "profiling is not running",
                    "stop while idle");
            expect(Targets.candorInProcess("attach", pid, "dump"), PROFILING,
                    "profiling is not running; nothing to dump", "dump while idle");

            Jvm.Result run = plain.finish();
            assertEquals(0, run.exitCode(), run.describe());
            Figures.line("attach errors (client " + client + "): " + String.join("; ", figures));
        } finally {
            for (int i = cleanup.size() - 1; i >= 0; i--) {
                cleanup.get(i).close();
            }
        }
    }

    private static <T extends AutoCloseable> T track(List<AutoCloseable> cleanup, T t) {
        cleanup.add(t);
        return t;
    }

    /** A file with just an ELF header: 64-bit little-endian shared object for MACHINE. */
    static Path fakeElf(Path path, int machine) throws IOException {
        Files.createDirectories(path.getParent());
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1});
        b.putShort(16, (short) 3);
        b.putShort(18, (short) machine);
        return Files.write(path, b.array());
    }
}

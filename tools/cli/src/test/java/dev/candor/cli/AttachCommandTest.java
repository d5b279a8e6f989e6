package dev.candor.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** attach and list without a target JVM: usage, the checks before attaching, the ELF check. */
class AttachCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return Candor.run(new PrintWriter(out), new PrintWriter(err), args);
    }

    /** A file with just an ELF header: 64-bit little-endian shared object for MACHINE. */
    static Path fakeElf(Path path, int machine) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1});
        b.putShort(16, (short) 3);
        b.putShort(18, (short) machine);
        return Files.write(path, b.array());
    }

    @Test
    void helpOnEveryCommand() {
        assertEquals(0, run("attach", "--help"));
        assertTrue(out.toString().contains("--duration"), out.toString());
        assertTrue(out.toString().contains("EnableDynamicAgentLoading"), out.toString());
        assertEquals(0, run("list", "--help"));
        assertTrue(out.toString().contains("CANDOR"), out.toString());
        assertEquals(0, run("--help"));
        assertTrue(out.toString().contains("attach") && out.toString().contains("list"), out.toString());
    }

    @Test
    void usageErrors() {
        assertEquals(1, run("attach"));
        assertEquals(1, run("attach", "12x", "status"));
        assertTrue(err.toString().contains("PID must be a process id"), err.toString());
        assertEquals(1, run("attach", "1", "frobnicate"));
        assertTrue(err.toString().contains("unknown command 'frobnicate'"), err.toString());
        assertEquals(1, run("attach", "1"));
        assertTrue(err.toString().contains("give a command"), err.toString());
        assertEquals(1, run("attach", "1", "stop", "-d", "3"));
        assertTrue(err.toString().contains("--duration goes with start"), err.toString());
        assertEquals(1, run("attach", "1", "status", "-f", "x.html"));
        assertEquals(1, run("attach", "1", "dump", "-i", "1ms"));
        assertEquals(1, run("attach", "1", "-d", "soon"));
        assertTrue(err.toString().contains("invalid duration 'soon'"), err.toString());
        assertEquals(1, run("attach", "1", "start", "-e", "cpu,walk"));
        assertTrue(err.toString().contains("unknown event 'walk'"), err.toString());
        assertEquals(1, run("attach", "1", "start", "-f", "profile.pdf"));
        assertTrue(err.toString().contains("Try 'candor attach --help'"), err.toString());
    }

    @Test
    void durations() {
        assertEquals(30_000, Attach.parseDuration("30"));
        assertEquals(30_000, Attach.parseDuration("30s"));
        assertEquals(500, Attach.parseDuration("500ms"));
        assertEquals(1_500, Attach.parseDuration("1.5s"));
        assertEquals(120_000, Attach.parseDuration("2m"));
        assertEquals(-1, Attach.parseDuration("0"));
        assertEquals(-1, Attach.parseDuration("3 weeks"));
    }

    @Test
    void noSuchProcess() {
        long pid = unusedPid();
        assertEquals(2, run("attach", Long.toString(pid), "status"));
        assertEquals("candor: no such process: " + pid + "\n", err.toString());
    }

    @Test
    void notAJvm() throws Exception {
        Process sleep = new ProcessBuilder("sleep", "30").start();
        try {
            assertEquals(2, run("attach", Long.toString(sleep.pid()), "start"));
            assertTrue(err.toString().startsWith("candor: process " + sleep.pid() + " (sleep) is not a JVM"),
                    err.toString());
            assertTrue(sleep.isAlive(), "the process must not be touched");
        } finally {
            sleep.destroy();
            sleep.waitFor(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void notItself() {
        assertEquals(2, run("attach", Long.toString(ProcessHandle.current().pid()), "status"));
        assertTrue(err.toString().contains("is candor itself"), err.toString());
    }

    @Test
    void agentChecks(@TempDir Path dir) throws IOException {
        Candor.Failure missing = assertThrows(Candor.Failure.class, () -> AgentLibrary.check(dir.resolve("nope.so")));
        assertEquals(Candor.PROFILING, missing.exitCode);
        assertTrue(missing.getMessage().startsWith("agent library not found: "), missing.getMessage());

        Path text = Files.writeString(dir.resolve("text.so"), "not a library, long enough to have a header\n");
        assertTrue(assertThrows(Candor.Failure.class, () -> AgentLibrary.check(text)).getMessage()
                .endsWith("is not an ELF shared library"));

        Path arm = fakeElf(dir.resolve("arm.so"), 183);
        String armMessage = assertThrows(Candor.Failure.class, () -> AgentLibrary.check(arm)).getMessage();
        assertTrue(armMessage.contains("is built for aarch64, not for this machine (x86-64)"), armMessage);

        AgentLibrary.check(fakeElf(dir.resolve("ok.so"), 62));
    }

    @Test
    void mainClassOfACommandLine() {
        assertEquals("a.Main", Target.mainClass(List.of("java", "-Xmx1g", "-cp", "x:y", "a.Main", "arg")));
        assertEquals("app.jar", Target.mainClass(List.of("java", "-jar", "app.jar")));
        assertEquals("m/a.Main", Target.mainClass(List.of("java", "--module-path", "mods", "-m", "m/a.Main")));
        assertEquals("?", Target.mainClass(List.of("java", "-version")));
    }

    @Test
    void listPrintsAHeader() {
        assertEquals(0, run("list"));
        assertTrue(out.toString().startsWith("PID"), out.toString());
    }

    static long unusedPid() {
        for (long pid = 4_000_000; pid > 1000; pid -= 7) {
            if (!Files.exists(Path.of("/proc", Long.toString(pid)))) {
                return pid;
            }
        }
        throw new IllegalStateException("no unused pid");
    }
}

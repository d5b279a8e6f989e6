package dev.candor.itest;

import dev.candor.itest.workload.BusyThreads;
import dev.candor.itest.workload.ExitWith;
import dev.candor.itest.workload.Hot;
import dev.candor.model.CollapsedProfile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The installed launcher, build/candor: version, record, exit codes. Runs on the first JDK present. */
class CliTest {
    static Jdks.Jdk jdk;

    @BeforeAll
    static void pickJdk() {
        jdk = Jdks.all().stream().filter(Jdks.Jdk::present).findFirst().orElse(null);
        if (jdk == null) {
            Jdks.all().get(0).assumePresent();
        }
    }

    record Ran(int exitCode, String output) {
    }

    private static Ran candor(Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Build.file("candor").toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("output.txt").toFile());
        pb.environment().put("JAVA_HOME", jdk.home().toString());
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("candor " + String.join(" ", args) + " did not finish within 60 s");
        }
        return new Ran(p.exitValue(), Files.readString(dir.resolve("output.txt"), StandardCharsets.UTF_8));
    }

    private static List<String> javaCommand(Class<?> main, String... args) {
        List<String> cmd = new ArrayList<>(List.of(jdk.java().toString(), "-XX:CompileCommand=quiet", Hot.DONT_INLINE,
                "-cp", Build.workloadClasspath().toString(), main.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    @Test
    void version() throws Exception {
        Ran r = candor(Build.runDir("cli-version"), "--version");
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().startsWith("candor "), r.output());
    }

    @Test
    void recordWritesTheProfile() throws Exception {
        Path dir = Build.runDir("cli-record");
        List<String> args = new ArrayList<>(List.of("record", "-e", "cpu", "-i", "1ms", "-f", "cli.collapsed",
                "-f", "cli.html", "--stats", "cli.json", "--agent-options", "threads", "--"));
        args.addAll(javaCommand(BusyThreads.class, dir.resolve("truth.properties").toString(), "1", "cli-0:A:1"));
        Ran r = candor(dir, args.toArray(String[]::new));
        Figures.line("cli record " + jdk + ": exit " + r.exitCode());
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().contains("workload done"), r.output());
        assertTrue(Files.exists(dir.resolve("cli.html")), r.output());
        assertTrue(Files.exists(dir.resolve("cli.json")), r.output());
        CollapsedProfile p = CollapsedProfile.read(dir.resolve("cli.collapsed"));
        assertTrue(p.thread("cli-0").isPresent(), "no [cli-0 tid=N] root (threads option): " + p.roots());
        assertTrue(p.countAny(CollapsedProfile.method(Hot.METHOD_A)) > 0, p.toString());
    }

    @Test
    void recordReturnsTheExitCodeOfTheCommand() throws Exception {
        Path dir = Build.runDir("cli-exit-code");
        List<String> args = new ArrayList<>(List.of("record", "-f", "x.collapsed", "--"));
        args.addAll(javaCommand(ExitWith.class, "7"));
        Ran r = candor(dir, args.toArray(String[]::new));
        assertEquals(7, r.exitCode(), r.output());
    }

    @Test
    void exitCodesForUsageTargetAndProfilingProblems() throws Exception {
        Path dir = Build.runDir("cli-errors");
        assertEquals(1, candor(dir, "record", "-i", "soon", "--", "java").exitCode());
        assertEquals(2, candor(dir, "record", "--", dir.resolve("no-java").toString(), "-version").exitCode());
        Ran noAgent = candor(dir, "--agent", dir.resolve("missing.so").toString(), "record", "--", "java", "-version");
        assertEquals(3, noAgent.exitCode(), noAgent.output());
    }
}

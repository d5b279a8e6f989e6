package dev.candor.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CandorTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return Candor.run(new PrintWriter(out), new PrintWriter(err), args);
    }

    @Test
    void help() {
        assertEquals(0, run("--help"));
        assertTrue(out.toString().contains("record"), out.toString());
        assertTrue(out.toString().contains("Exit codes"), out.toString());
    }

    @Test
    void recordHelp() {
        assertEquals(0, run("record", "--help"));
        assertTrue(out.toString().contains("--interval"), out.toString());
        assertTrue(out.toString().contains("-- java ARGS..."), out.toString());
    }

    /**
     * picocli reads descriptions as format strings: a lone percent sign ("0.3% under it") made every
     * help that showed it print three "[picocli WARN]" lines on the JVM's stderr, outside our writers.
     */
    @Test
    void everyHelpRendersWithoutPicocliWarnings() {
        PrintStream saved = System.err;
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        System.setErr(new PrintStream(stderr, true));
        try {
            for (String command : List.of("record", "attach", "list", "report", "compare", "merge")) {
                assertEquals(0, run(command, "--help"), command + ": " + err);
            }
        } finally {
            System.setErr(saved);
        }
        assertEquals("", stderr.toString(), "picocli's own stderr");
        assertTrue(out.toString().contains("run 0.3% under it)"), out.toString());
    }

    @Test
    void version() {
        assertEquals(0, run("--version"));
        assertTrue(out.toString().matches("candor \\S+ \\(commit ([0-9a-f]{12}|unknown)\\)\\R"), out.toString());
    }

    @Test
    void noCommandIsAUsageError() {
        assertEquals(1, run());
        assertTrue(err.toString().contains("Usage"), err.toString());
    }

    @Test
    void unknownOptionIsAUsageError() {
        assertEquals(1, run("record", "--bogus", "--", "java"));
        assertEquals(1, run("frobnicate"));
    }

    @Test
    void recordWithoutCommandIsAUsageError() {
        assertEquals(1, run("record", "-i", "1ms"));
        assertTrue(err.toString().startsWith("candor: "), err.toString());
        assertTrue(err.toString().contains("java ARGS"), err.toString());
        assertTrue(err.toString().contains("candor record --help"), err.toString());
    }

    @Test
    void badValuesAreUsageErrors(@TempDir Path dir) throws IOException {
        Path agent = Files.createFile(dir.resolve("libcandor.so"));
        assertEquals(1, run("--agent", agent.toString(), "record", "-e", "cpu,walk", "--", "java"));
        assertTrue(err.toString().contains("unknown event 'walk'"), err.toString());
        assertEquals(1, run("--agent", agent.toString(), "record", "-i", "1 ms", "--", "java"));
        assertTrue(err.toString().contains("invalid interval '1 ms'"), err.toString());
        assertEquals(1, run("--agent", agent.toString(), "record", "-f", "a,b.html", "--", "java"));
        assertEquals(1, run("--agent", agent.toString(), "record", "-f", "profile.pdf", "--", "java"));
        assertTrue(err.toString().contains("profile.pdf"), err.toString());
    }

    @Test
    void missingAgentIsAProfilingProblem(@TempDir Path dir) {
        assertEquals(3, run("record", "--agent", dir.resolve("nope.so").toString(), "--", "java", "-version"));
        assertTrue(err.toString().contains("agent library not found"), err.toString());
    }

    @Test
    void unrunnableJavaIsATargetProblem(@TempDir Path dir) throws IOException {
        Path agent = AttachCommandTest.fakeElf(dir.resolve("libcandor.so"), 62);
        assertEquals(2, run("--agent", agent.toString(), "record", "--",
                dir.resolve("no-such-java").toString(), "-version"));
        assertTrue(err.toString().contains("cannot run"), err.toString());
    }

    @Test
    void agentIsInsertedRightAfterJava() {
        List<String> cmd = Record.withAgent(List.of("/jdk/bin/java", "-Xmx1g", "-jar", "app.jar", "x"),
                Path.of("/b/libcandor.so"), "start,interval=1ms");
        assertEquals(List.of("/jdk/bin/java", "-agentpath:/b/libcandor.so=start,interval=1ms",
                "-Xmx1g", "-jar", "app.jar", "x"), cmd);
    }

    @Test
    void optionString() {
        Candor candor = new Candor();
        var cl = Candor.commandLine(new PrintWriter(out), new PrintWriter(err));
        var parsed = cl.parseArgs("record", "-e", "ctimer", "-i", "1ms", "-f", "a.html", "--file", "b.collapsed",
                "--stats", "s.json", "--agent-options", ",threads,lines", "--", "java", "-cp", "x", "Main");
        Record record = (Record) parsed.subcommand().commandSpec().userObject();
        assertEquals("start,event=ctimer,interval=1ms,file=a.html,file=b.collapsed,stats=s.json,threads,lines",
                record.agentOptions());
        assertEquals(List.of("java", "-cp", "x", "Main"), record.command);
        assertEquals(List.of("a.html", "b.collapsed", "s.json"),
                Record.expectedOutputs(record.agentOptions(), 42));
        assertEquals(List.of("candor-42.html"), Record.expectedOutputs("start,interval=1ms", 42));
        assertEquals(List.of("s.json"), Record.expectedOutputs("start,stats=s.json", 42));
        assertEquals(List.of(), Record.expectedOutputs("start,push=http://p:4040", 42));
        assertTrue(candor.agentLibrary().toString().endsWith("libcandor.so"));
    }

    @Test
    void allocAndLockOptions() {
        var cl = Candor.commandLine(new PrintWriter(out), new PrintWriter(err));
        Record alone = (Record) cl.parseArgs("record", "--lock", "5ms", "--", "java", "Main")
                .subcommand().commandSpec().userObject();
        assertEquals("start,event=lock,lock=5ms", alone.agentOptions());  // as async-profiler: just lock waits
        Record both = (Record) Candor.commandLine(new PrintWriter(out), new PrintWriter(err))
                .parseArgs("record", "--alloc", "256k", "--lock", "1ms", "--", "java", "Main")
                .subcommand().commandSpec().userObject();
        assertEquals("start,event=alloc,lock,alloc=256k,lock=1ms", both.agentOptions());
        Record withCpu = (Record) Candor.commandLine(new PrintWriter(out), new PrintWriter(err))
                .parseArgs("record", "-e", "cpu", "--lock", "1ms", "--", "java", "Main")
                .subcommand().commandSpec().userObject();
        assertEquals("start,event=cpu,lock=1ms", withCpu.agentOptions());
    }

    @Test
    void pushOptions() {
        Record push = (Record) Candor.commandLine(new PrintWriter(out), new PrintWriter(err))
                .parseArgs("record", "--push", "http://pyro:4040", "--service", "checkout", "--", "java", "Main")
                .subcommand().commandSpec().userObject();
        assertEquals("start,push=http://pyro:4040,service=checkout", push.agentOptions());
        Record otlp = (Record) Candor.commandLine(new PrintWriter(out), new PrintWriter(err))
                .parseArgs("record", "--push", "otlp+http://collector:4318", "--", "java", "Main")
                .subcommand().commandSpec().userObject();
        assertEquals("start,push=otlp+http://collector:4318", otlp.agentOptions());
        assertEquals(List.of(), Record.expectedOutputs("start,push=otlp+http://c:4318", 42));
        Record ftp = (Record) Candor.commandLine(new PrintWriter(out), new PrintWriter(err))
                .parseArgs("record", "--push", "ftp://collector", "--", "java", "Main")
                .subcommand().commandSpec().userObject();
        var bad = org.junit.jupiter.api.Assertions.assertThrows(picocli.CommandLine.ParameterException.class,
                ftp::agentOptions);
        assertTrue(bad.getMessage().contains("otlp+http://"), bad.getMessage());
        Record labelled = (Record) Candor.commandLine(new PrintWriter(out), new PrintWriter(err))
                .parseArgs("record", "--push", "http://pyro:4040", "--push-label", "env=prod", "--push-label",
                        "region=eu-1", "--", "java", "Main")
                .subcommand().commandSpec().userObject();
        assertEquals("start,push=http://pyro:4040,pushlabels=env=prod+region=eu-1", labelled.agentOptions());
        Record badLabel = (Record) Candor.commandLine(new PrintWriter(out), new PrintWriter(err))
                .parseArgs("record", "--push", "http://pyro:4040", "--push-label", "env", "--", "java", "Main")
                .subcommand().commandSpec().userObject();
        var refused = org.junit.jupiter.api.Assertions.assertThrows(picocli.CommandLine.ParameterException.class,
                badLabel::agentOptions);
        assertTrue(refused.getMessage().contains("KEY=VALUE"), refused.getMessage());
    }

    @Test
    void commandWithoutDoubleDashStopsOptionParsing() {
        var cl = Candor.commandLine(new PrintWriter(out), new PrintWriter(err));
        var parsed = cl.parseArgs("record", "-i", "1ms", "java", "-cp", "x", "-i", "Main");
        Record record = (Record) parsed.subcommand().commandSpec().userObject();
        assertEquals("1ms", record.profile.interval);
        assertEquals(List.of("java", "-cp", "x", "-i", "Main"), record.command);
    }
}

package dev.candor.jmh;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProfilerOptionsTest {

    @Test
    void defaults() {
        for (String line : new String[] {null, "", ";", " ; "}) {
            ProfilerOptions o = ProfilerOptions.parse(line);
            assertEquals("cpu", o.event());
            assertEquals(null, o.interval(), "no interval: the agent's default");
            assertEquals(".", o.dir());
            assertEquals(List.of(ProfilerOptions.Output.HTML, ProfilerOptions.Output.TXT), o.outputs());
            assertEquals(List.of(), o.passThrough());
            assertFalse(o.verbose());
            assertFalse(o.help());
        }
    }

    @Test
    void ownOptionsAndPassThrough() {
        ProfilerOptions o = ProfilerOptions.parse("event=wall;interval=500us;dir=/tmp/prof;threads;jitter=10;lines");
        assertEquals("wall", o.event());
        assertEquals("500us", o.interval());
        assertEquals("/tmp/prof", o.dir());
        assertEquals(List.of("threads", "jitter=10", "lines"), o.passThrough());
    }

    @Test
    void agentOptionsNameOneFilePerOutput() {
        ProfilerOptions o = ProfilerOptions.parse("interval=1ms;output=html,txt,collapsed,json;threads");
        Path dir = Path.of("/out/b.B.m-Throughput");
        assertEquals("event=cpu,interval=1ms,quiet,threads,title=b.B.m (thrpt size=1;2),"
                        + "file=/out/b.B.m-Throughput/flame-cpu.html,file=/out/b.B.m-Throughput/summary-cpu.txt,"
                        + "file=/out/b.B.m-Throughput/collapsed-cpu.collapsed,stats=/out/b.B.m-Throughput/stats-cpu.json",
                o.agentOptions(dir, "", "b.B.m (thrpt size=1,2)"));
    }

    @Test
    void severalEventsNameTheFilesWithPlus() {
        ProfilerOptions o = ProfilerOptions.parse("event=cpu,alloc");
        assertEquals("cpu,alloc", o.event());
        assertEquals(List.of(Path.of("d/flame-cpu+alloc.html"), Path.of("d/summary-cpu+alloc.txt")),
                o.files(Path.of("d"), ""));
        assertTrue(o.agentOptions(Path.of("d"), "", "t").startsWith("event=cpu,alloc,quiet,title=t,"));
    }

    @Test
    void forksNameTheirFiles() {
        ProfilerOptions o = ProfilerOptions.parse("");
        assertEquals(List.of(Path.of("d/flame-cpu-fork2.html"), Path.of("d/summary-cpu-fork2.txt")),
                o.files(Path.of("d"), "-fork2"));
        assertTrue(o.agentOptions(Path.of("d"), "-fork2", "t").endsWith(",file=d/flame-cpu-fork2.html,file=d/summary-cpu-fork2.txt"));
    }

    @Test
    void aPassedTitleWins() {
        ProfilerOptions o = ProfilerOptions.parse("title=mine;verbose");
        assertTrue(o.verbose());
        assertEquals("event=cpu,title=mine,file=d/flame-cpu.html,file=d/summary-cpu.txt",
                o.agentOptions(Path.of("d"), "", "theirs"));
    }

    @Test
    void help() {
        assertTrue(ProfilerOptions.parse("help").help());
        assertTrue(ProfilerOptions.HELP.contains("event=") && ProfilerOptions.HELP.contains("dir="));
        assertFalse(ProfilerOptions.DESCRIPTION.contains("\n"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "interval=fast|candor: interval=fast is not a duration: a number with ns, us, ms or s, e.g. 1ms",
        "interval=1m|candor: interval=1m is not a duration: a number with ns, us, ms or s, e.g. 1ms",
        "event=|candor: option 'event' needs a value: event=...",
        "dir|candor: option 'dir' needs a value: dir=...",
        "event=cpu;event=wall|candor: option 'event' is given twice",
        "dir=/a,b|candor: dir=/a,b contains ',', which the agent's options cannot carry",
        "output=svg|candor: unknown output 'svg' (one of html, txt, collapsed, jfr, json)",
        "output=,|candor: output= names no output (one of html, txt, collapsed, jfr, json)",
        "file=/tmp/x.html|candor: option 'file' is set by the JMH profiler itself (files go to dir=, one set per benchmark; see help)",
        "stats=/tmp/x.json|candor: option 'stats' is set by the JMH profiler itself (files go to dir=, one set per benchmark; see help)",
        "jitter=1,file=/x.html|candor: option 'file' is set by the JMH profiler itself (files go to dir=, one set per benchmark; see help)",
        "stop|candor: option 'stop' is set by the JMH profiler itself (files go to dir=, one set per benchmark; see help)",
        "-verbose|candor: '-verbose' is not an option (NAME or NAME=VALUE; see help)",
    })
    void errorsAreOneLine(String line, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProfilerOptions.parse(line));
        assertEquals(message, e.getMessage());
    }
}

package dev.candor.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code candor report} in-process: formats, options and its one-line errors with exit codes 1 and 3. */
class ReportCommandTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return Candor.run(new PrintWriter(out), new PrintWriter(err), args);
    }

    private Path collapsed() throws Exception {
        return Files.writeString(dir.resolve("in.collapsed"),
                "[w tid=5];a.Main.run;a.Main.hot 70\n[w tid=5];a.Main.run;a.Main.cold 25\n[gc_active] 5\n");
    }

    /** The first line on stderr starts with "candor: " (usage errors add a "Try ... --help" line). */
    private String firstLine() {
        String e = err.toString();
        assertTrue(e.startsWith("candor: "), e);
        assertTrue(e.lines().count() <= 2, e);
        return e.lines().findFirst().orElse("");
    }

    /** Exactly one line on stderr, starting with "candor: ". */
    private String oneLine() {
        String e = err.toString();
        assertEquals(1, e.lines().count(), e);
        assertTrue(e.startsWith("candor: "), e);
        return e;
    }

    @Test
    void flatOnStandardOutputByDefault() throws Exception {
        assertEquals(0, run("report", collapsed().toString()), err.toString());
        String o = out.toString();
        assertTrue(o.contains("Top methods by self time"), o);
        assertTrue(o.matches("(?s).*\\n\\s+70\\.00%\\s+70\\.00%\\s+70  a\\.Main\\.hot\\n.*"), o);
        assertTrue(o.contains("[gc_active]"), o);
        assertEquals("", err.toString());
    }

    @Test
    void formatByExtensionAndOption() throws Exception {
        Path in = collapsed();
        for (String ext : new String[] {"html", "collapsed", "tree", "txt", "pb.gz", "json", "otlp"}) {
            Path o = dir.resolve("out." + ext);
            assertEquals(0, run("report", in.toString(), "-o", o.toString()), err.toString());
            assertTrue(Files.size(o) > 0, o.toString());
        }
        assertTrue(Files.readString(dir.resolve("out.html")).contains("a.Main.hot"));
        assertEquals("[gc_active] 5\na.Main.run;a.Main.cold 25\na.Main.run;a.Main.hot 70\n",
                Files.readString(dir.resolve("out.collapsed")));
        assertEquals(0, run("report", in.toString(), "--format", "tree", "--threads"));
        assertTrue(out.toString().contains("    [w tid=5]\n"), out.toString());
        Path odd = dir.resolve("out.data");
        assertEquals(0, run("report", in.toString(), "-o", odd.toString(), "--format", "collapsed", "--reverse"));
        assertTrue(Files.readString(odd).contains("a.Main.hot;a.Main.run 70\n"));
    }

    @Test
    void otlpReadsBackWithTheOfficialClasses() throws Exception {
        Path o = dir.resolve("out.otlp.pb");
        assertEquals(0, run("report", collapsed().toString(), "-o", o.toString()), err.toString());
        var request = io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest
                .parseFrom(Files.readAllBytes(o));
        var dict = request.getDictionary();
        var profile = request.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0);
        assertEquals("samples", dict.getStringTable(profile.getSampleType().getTypeStrindex()));
        long total = 0;
        long failed = 0;
        for (var s : profile.getSamplesList()) {
            long v = s.getValuesList().stream().mapToLong(Long::longValue).sum();
            total += v;
            for (int a : s.getAttributeIndicesList()) {
                var kv = dict.getAttributeTable(a);
                if (dict.getStringTable(kv.getKeyStrindex()).equals("candor.failure")) {
                    assertEquals("gc_active", kv.getValue().getStringValue());
                    failed += v;
                }
            }
        }
        assertEquals(100, total);
        assertEquals(5, failed);
        assertEquals("", err.toString());
    }

    private Path labeled() throws Exception {
        return Files.write(dir.resolve("labels.jfr"), dev.candor.model.CandorJfrWriter.example());
    }

    @Test
    void labelFilterKeepsTheSamplesWithAllTheLabels() throws Exception {
        Path in = labeled();
        assertEquals(0, run("report", in.toString(), "--format", "collapsed", "--label", "endpoint=/users"),
                err.toString());
        assertEquals("[gc_active] 1\njava.lang.Thread.run;a.Web.users 6\n", out.toString());
        out.getBuffer().setLength(0);
        assertEquals(0, run("report", in.toString(), "--format", "collapsed", "--label", "endpoint=/users",
                "--label", "trace_id=abc", "--include", "Web"), err.toString());
        assertEquals("java.lang.Thread.run;a.Web.users 6\n", out.toString());
        assertEquals("", err.toString());
        // the filter is named where reports name filters
        out.getBuffer().setLength(0);
        assertEquals(0, run("report", in.toString(), "--label", "endpoint=/orders"), err.toString());
        assertTrue(out.toString().contains("label endpoint=/orders"), out.toString());
    }

    @Test
    void splitByLabelAddsTheAgentsRoots() throws Exception {
        Path in = labeled();
        assertEquals(0, run("report", in.toString(), "--format", "collapsed", "--split", "label:endpoint"),
                err.toString());
        assertEquals("[endpoint=(none)];a.Main.main 2\n[endpoint=/orders];java.lang.Thread.run;a.Web.orders 3\n"
                + "[endpoint=/users];[gc_active] 1\n[endpoint=/users];java.lang.Thread.run;a.Web.users 6\n",
                out.toString());
        out.getBuffer().setLength(0);
        // thread roots first, as the agent's split=thread+label:KEY; repeated --split adds keys in order
        assertEquals(0, run("report", in.toString(), "--format", "collapsed", "--split", "thread+label:trace_id",
                "--split", "label:endpoint", "--label", "endpoint=/orders"), err.toString());
        assertEquals("[worker-2 tid=101];[trace_id=(none)];[endpoint=/orders];java.lang.Thread.run;a.Web.orders 3\n",
                out.toString());
        // the callers view keeps the label root on top
        out.getBuffer().setLength(0);
        assertEquals(0, run("report", in.toString(), "--format", "collapsed", "--split", "label:endpoint",
                "--reverse", "--label", "endpoint=/orders"), err.toString());
        assertEquals("[endpoint=/orders];a.Web.orders;java.lang.Thread.run 3\n", out.toString());
        assertEquals(1, run("report", in.toString(), "--split", "state"));
        assertTrue(firstLine().contains("--split 'state': expected thread or label:KEY"), err.toString());
    }

    @Test
    void labelFilterThatCannotMatchSaysWhyInOneLine() throws Exception {
        Path plain = collapsed();
        assertEquals(1, run("report", plain.toString(), "--label", "endpoint=/users"));
        assertEquals("candor: no sample in " + plain + " carries labels; --label endpoint=/users matches nothing\n",
                oneLine().replace("\r", ""));
        assertEquals("", out.toString());

        Path in = labeled();
        err.getBuffer().setLength(0);
        assertEquals(1, run("report", in.toString(), "--event", "WallClockSample", "--label", "endpoint=/users"));
        assertTrue(oneLine().contains("no candor.WallClockSample sample in " + in
                + " carries labels (other events do: choose them with --event)"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(1, run("report", in.toString(), "--label", "tenant=a"));
        assertTrue(oneLine().contains("has the label tenant (its labels: endpoint, trace_id)"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(1, run("report", in.toString(), "--label", "endpoint=/userz"));
        assertTrue(oneLine().contains("has endpoint=/userz (endpoint is /orders, /users)"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(1, run("report", in.toString(), "--label", "endpoint=/orders", "--label", "trace_id=abc"));
        assertTrue(oneLine().contains("has all of --label endpoint=/orders --label trace_id=abc"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(1, run("report", in.toString(), "--label", "endpoint"));
        assertTrue(firstLine().contains("--label 'endpoint' is not KEY=VALUE"), err.toString());
        assertEquals("", out.toString());
    }

    @Test
    void filters() throws Exception {
        assertEquals(0, run("report", collapsed().toString(), "--format", "collapsed", "--include", "hot|cold",
                "--exclude", "cold"));
        assertEquals("a.Main.run;a.Main.hot 70\n", out.toString());
    }

    @Test
    void usageErrorsExitWithOne() throws Exception {
        Path in = collapsed();
        assertEquals(1, run("report", in.toString(), "--format", "svg"));
        assertTrue(firstLine().contains("unknown format 'svg' (expected html, collapsed, tree, flat, pprof, json, otlp)"));
        err.getBuffer().setLength(0);
        assertEquals(1, run("report", in.toString(), "-o", dir.resolve("x.svg").toString()));
        assertTrue(err.toString().contains("cannot tell the format"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(1, run("report", in.toString(), "--event", "ExecutionSample"));
        assertTrue(firstLine().contains("choices: collapsed (100)"));
        err.getBuffer().setLength(0);
        assertEquals(1, run("report", in.toString(), "--from", "1s"));
        assertTrue(err.toString().contains("--from/--to need timestamps"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(1, run("report", in.toString(), "--include", "a(b"));
        assertTrue(err.toString().contains("is not a valid regular expression"), err.toString());
        assertEquals(1, run("report"));
    }

    @Test
    void inputProblemsExitWithThree() throws Exception {
        assertEquals(3, run("report", dir.resolve("missing.jfr").toString()));
        assertTrue(oneLine().contains("cannot read"));
        err.getBuffer().setLength(0);
        Path notJfr = Files.writeString(dir.resolve("x.jfr"), "hello");
        assertEquals(3, run("report", notJfr.toString()));
        assertTrue(oneLine().contains("not a JFR recording"));
        err.getBuffer().setLength(0);
        Path cut = Files.write(dir.resolve("cut.jfr"), new byte[] {'F', 'L', 'R', 0, 0, 2, 0, 1});
        assertEquals(3, run("report", cut.toString()));
        assertTrue(oneLine().contains("damaged at byte 8"), err.toString());
        assertFalse(err.toString().contains("Exception"), err.toString());
    }

    @Test
    void timeSpecs() {
        Instant start = Instant.parse("2025-01-31T10:00:00Z");
        picocli.CommandLine cl = new picocli.CommandLine(new Candor());
        assertEquals(start.plusSeconds(12), TimeSpec.parse("12", start, ZoneOffset.UTC, "--from", cl));
        assertEquals(start.plusMillis(1500), TimeSpec.parse("1.5s", start, ZoneOffset.UTC, "--from", cl));
        assertEquals(start.plusMillis(250), TimeSpec.parse("250ms", start, ZoneOffset.UTC, "--from", cl));
        assertEquals(start.plusSeconds(120), TimeSpec.parse("2min", start, ZoneOffset.UTC, "--from", cl));
        assertEquals(Instant.parse("2025-01-31T10:15:30Z"),
                TimeSpec.parse("2025-01-31T10:15:30Z", start, ZoneOffset.UTC, "--from", cl));
        assertEquals(Instant.parse("2025-01-31T09:15:30Z"),
                TimeSpec.parse("2025-01-31T10:15:30+01:00", start, ZoneOffset.UTC, "--from", cl));
        assertEquals(Instant.parse("2025-01-31T10:15:30Z"),
                TimeSpec.parse("2025-01-31T10:15:30", start, ZoneOffset.UTC, "--from", cl));
        assertEquals(Instant.parse("2025-01-31T10:15:30Z"), TimeSpec.parse("10:15:30", start, ZoneOffset.UTC, "--to", cl));
        assertThrows(picocli.CommandLine.ParameterException.class,
                () -> TimeSpec.parse("soon", start, ZoneOffset.UTC, "--to", cl));
    }
}

package dev.candor.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code candor compare} and {@code candor merge} in-process: output, options and one-line errors. */
class CompareCommandTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return Candor.run(new PrintWriter(out), new PrintWriter(err), args);
    }

    private Path file(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void comparesTwoCollapsedProfiles() throws Exception {
        Path a = file("a.collapsed", "[w tid=5];m;a 6\n[w tid=5];m;b 3\n[w tid=5];m 1\n");
        Path b = file("b.collapsed", "[w tid=9];m;a 2\n[w tid=9];m;c 4\n[w tid=9];m 2\n[w tid=9];m;b 2\n");
        Path html = dir.resolve("diff.html");
        assertEquals(0, run("compare", a.toString(), b.toString(), "--threshold", "0.5", "--html", html.toString()),
                err.toString());
        String o = out.toString();
        assertTrue(o.contains("overlap(A,B)        0.500"), o);
        assertTrue(o.contains("hotcover(A,B,0.5)"), o);
        assertTrue(o.contains("(2 of B's 4 hot edges are hot in A)"), o);
        assertTrue(o.contains("(2 of A's 2 hot edges are hot in B)"), o);
        assertTrue(o.contains("A: " + a + ": 10 samples"), o);
        assertTrue(o.contains("m;c"), o);
        String page = Files.readString(html);
        assertTrue(page.contains("\"diff\":{"), page.substring(0, 300));
        assertTrue(page.contains("function diffColor"), "the viewer has the diff colouring mode");
    }

    @Test
    void threadFilterKeepsMatchingThreadsAndOldSpellingsStillWork() throws Exception {
        Path a = file("a.collapsed", "[web-1 tid=5];m;a 6\n[gc tid=6];m;g 4\n");
        Path b = file("b.collapsed", "[web-2 tid=9];m;a 3\n");
        assertEquals(0, run("compare", a.toString(), b.toString(), "--thread-filter", "^web"), err.toString());
        assertTrue(out.toString().contains("overlap(A,B)        1.000"), out.toString());
        assertTrue(out.toString().contains("A: " + a + ": 6 samples"), out.toString());
        out.getBuffer().setLength(0);
        assertEquals(0, run("compare", a.toString(), b.toString(), "--threads", "^web", "-t", "0.5"), err.toString());
        assertTrue(out.toString().contains("overlap(A,B)        1.000"), out.toString());
        assertTrue(out.toString().contains("hotcover(A,B,0.5)"), out.toString());
        out.getBuffer().setLength(0);
        assertEquals(0, run("compare", "--help"));
        assertTrue(out.toString().contains("--thread-filter"), out.toString());
        assertTrue(!out.toString().contains("-t,") && !out.toString().contains("--threads "), out.toString());
    }

    @Test
    void defaultThresholdIsTenPercentOfTheHottestEdge() throws Exception {
        Path a = file("a.collapsed", "m;a 9\nm;b 1\n");
        assertEquals(0, run("compare", a.toString(), a.toString()), err.toString());
        assertTrue(out.toString().contains("overlap(A,B)        1.000"), out.toString());
        assertTrue(out.toString().contains("hotcover(A,B,0.1)   1.000"), out.toString());
    }

    @Test
    void badArgumentsAreUsageErrors() throws Exception {
        Path a = file("a.collapsed", "m;a 9\n");
        assertEquals(1, run("compare", a.toString()));
        assertEquals(1, run("compare", a.toString(), a.toString(), "--threshold", "1.5"));
        assertTrue(err.toString().contains("--threshold must be between 0 and 1"), err.toString());
        assertEquals(1, run("compare", a.toString(), a.toString(), "--focus", "("));
        assertTrue(err.toString().contains("--focus '(' is not a valid regular expression"), err.toString());
        assertEquals(1, run("compare", a.toString(), a.toString(), "--kind", "bogus"));
    }

    @Test
    void emptyOrMissingInputsFailWithOneLine() throws Exception {
        Path a = file("a.collapsed", "m;a 9\n");
        Path empty = file("empty.collapsed", "");
        assertEquals(3, run("compare", a.toString(), empty.toString()));
        assertTrue(err.toString().startsWith("candor: B (" + empty + ") has no samples to compare: the input is empty"),
                err.toString());
        assertEquals(1, err.toString().lines().count(), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(3, run("compare", a.toString(), dir.resolve("nope.jfr").toString()));
        assertTrue(err.toString().startsWith("candor: cannot read "), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(3, run("compare", a.toString(), a.toString(), "--focus", "zzz"));
        assertTrue(err.toString().contains("have no frame matching the focus"), err.toString());
    }

    @Test
    void mergeAveragesProfiles() throws Exception {
        Path a = file("a.collapsed", "m;a 6\nm;b 4\n");
        Path b = file("b.collapsed", "m;a 100\nm;c 300\n");
        Path o = dir.resolve("m.collapsed");
        assertEquals(0, run("merge", a.toString(), b.toString(), "-o", o.toString(), "--scale", "1000"),
                err.toString());
        assertEquals("m;a 425\nm;b 200\nm;c 375\n", Files.readString(o));
        assertTrue(out.toString().contains("merged 2 profiles"), out.toString());
        assertEquals(1, run("merge", a.toString(), "-o", dir.resolve("x.html").toString()));
        assertEquals(1, run("merge", a.toString()));
    }
}

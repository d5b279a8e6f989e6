package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.candor.itest.workload.KnownAnswer;
import dev.candor.model.CollapsedProfile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.candor.itest.ReportTool.METHOD_A;
import static dev.candor.itest.ReportTool.METHOD_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code candor report} on recordings made by the JDK's own JFR
 * ({@code -XX:StartFlightRecording=...,settings=profile}, plus jdk.CPUTimeSample on JDK 25+) of
 * the known-answer workload: the hot method leads the flat output and the pprof output, the
 * shares match the workload's measured CPU split, the flame graph works in headless Chromium,
 * and damaged copies of the file are reported up to the damage with its byte offset.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReportJfrTest {
    static final long CPU_MS_A = 2100;
    static final long CPU_MS_B = 900;
    /** JFR samples every 10 ms here (~300 samples): the sampling error alone is about 3 points. */
    static final double TOLERANCE = 0.08;

    record Recorded(Path dir, Path jfr, double truthShareA) {
    }

    private final Map<String, Recorded> recorded = new HashMap<>();

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    static int feature(Jdks.Jdk jdk) {
        Matcher m = Pattern.compile("(\\d+)").matcher(jdk.label());
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    /** The JFR recording of the known-answer workload on this JDK (made once). */
    synchronized Recorded recording(Jdks.Jdk jdk) throws Exception {
        Recorded r = recorded.get(jdk.label());
        if (r != null) {
            return r;
        }
        Path dir = Build.runDir("report-jfr-" + jdk.label());
        Path jfr = dir.resolve("ka.jfr");
        Path truthFile = dir.resolve("truth.properties");
        String settings = "-XX:StartFlightRecording=filename=" + jfr + ",settings=profile"
                + (feature(jdk) >= 25 ? ",jdk.CPUTimeSample#enabled=true" : "");
        Jvm.Result run = Jvm.of(jdk, dir).jvmArg(settings)
                .main(KnownAnswer.class, truthFile.toString(), String.valueOf(CPU_MS_A), String.valueOf(CPU_MS_B))
                .run(Duration.ofSeconds(120));
        assertEquals(0, run.exitCode(), run.describe());
        assertTrue(Files.isRegularFile(jfr), "the JVM wrote no " + jfr + "\n" + run.describe());
        Properties truth = Profiles.truth(truthFile, run);
        long a = Profiles.truthLong(truth, "cpu_a_ns");
        long b = Profiles.truthLong(truth, "cpu_b_ns");
        r = new Recorded(dir, jfr, (double) a / (a + b));
        recorded.put(jdk.label(), r);
        return r;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void hotMethodLeadsAndSharesMatch(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Recorded rec = recording(jdk);
        String name = "report of JDK JFR " + jdk;
        List<String> events = feature(jdk) >= 25 ? List.of("ExecutionSample", "CPUTimeSample")
                : List.of("ExecutionSample");
        for (String event : events) {
            ReportTool.Ran flat = ReportTool.report(jdk, rec.dir(), rec.jfr().toString(), "--event", event);
            assertEquals(0, flat.exitCode(), flat.describe());
            assertEquals("", flat.stderr(), flat.describe());
            assertEquals(METHOD_A, ReportTool.topSelfMethod(flat.stdout()), name + " " + event + ": flat output\n"
                    + flat.stdout());

            Path collapsed = rec.dir().resolve(event + ".collapsed");
            ReportTool.Ran c = ReportTool.report(jdk, rec.dir(), rec.jfr().toString(), "--event", event, "--threads",
                    "-o", collapsed.toString());
            assertEquals(0, c.exitCode(), c.describe());
            CollapsedProfile worker = Profiles.threadSubtree(CollapsedProfile.read(collapsed), KnownAnswer.THREAD,
                    name);
            long a = worker.countAny(CollapsedProfile.method(METHOD_A));
            long b = worker.countAny(CollapsedProfile.method(METHOD_B));
            double share = a + b == 0 ? 0 : (double) a / (a + b);
            Figures.line(String.format("%s %s: A share truth %s, report %s (A %d, B %d samples of %d on %s),"
                            + " diff %+.1f points", name, event, Figures.pct(rec.truthShareA()), Figures.pct(share), a, b,
                    worker.total(), KnownAnswer.THREAD, 100 * (share - rec.truthShareA())));
            assertTrue(a + b >= 100, name + " " + event + ": too few samples of A and B: " + a + " + " + b);
            assertEquals(rec.truthShareA(), share, TOLERANCE, name + " " + event + ": share of A (truth vs report)");
        }
        // the default is a CPU sample event, and the others are named in the header
        ReportTool.Ran dflt = ReportTool.report(jdk, rec.dir(), rec.jfr().toString(), "--format", "tree");
        assertEquals(0, dflt.exitCode(), dflt.describe());
        assertTrue(dflt.stdout().lines().anyMatch(l -> l.startsWith("events:   jdk.ExecutionSample")
                || l.startsWith("events:   jdk.CPUTimeSample")), dflt.stdout());
        ReportTool.Ran unknown = ReportTool.report(jdk, rec.dir(), rec.jfr().toString(), "--event", "WallClock");
        assertEquals(1, unknown.exitCode(), unknown.describe());
        assertTrue(unknown.stderr().startsWith("candor: no event 'WallClock'") && unknown.stderr()
                .contains("choices: ") && unknown.stderr().contains("jdk.ExecutionSample ("), unknown.describe());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void goToolPprofListsTheHotMethodFirst(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path go = ReportTool.go();
        Assumptions.assumeTrue(go != null, "go is not installed: pprof check skipped");
        Recorded rec = recording(jdk);
        Path pb = rec.dir().resolve("ka.pb.gz");
        ReportTool.Ran r = ReportTool.report(jdk, rec.dir(), rec.jfr().toString(), "--event", "ExecutionSample",
                "-o", pb.toString());
        assertEquals(0, r.exitCode(), r.describe());
        String top = ReportTool.pprofTop(go, pb, rec.dir());
        String first = ReportTool.pprofFirstFunction(top);
        Figures.line("pprof -top of JDK JFR " + jdk + ": first row " + first);
        assertEquals(METHOD_A, first, "go tool pprof -top:\n" + top);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void flameGraphWorksInChromium(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path chromium = ReportTool.chromium();
        Assumptions.assumeTrue(chromium != null, "chromium is not installed (scripts/install-deps.sh): skipped");
        Recorded rec = recording(jdk);
        Path html = rec.dir().resolve("ka.html");
        Path collapsed = rec.dir().resolve("ka-html.collapsed");
        assertEquals(0, ReportTool.report(jdk, rec.dir(), rec.jfr().toString(), "--event", "ExecutionSample",
                "-o", html.toString()).exitCode());
        assertEquals(0, ReportTool.report(jdk, rec.dir(), rec.jfr().toString(), "--event", "ExecutionSample",
                "-o", collapsed.toString()).exitCode());
        double shareA = ReportTool.share(CollapsedProfile.read(collapsed), METHOD_A);
        JsonNode r = ReportTool.inBrowser(chromium, html,
                "r.frames = v.frameCount();\n"
                        + "r.total = document.getElementById('total').textContent;\n"
                        + "r.matched = v.search('Hot\\\\.methodA$');\n"
                        + "r.matchedText = document.getElementById('matched').textContent;\n"
                        + "r.zoom = v.zoom('" + METHOD_A + "');\n"
                        + "r.zoomed = v.zoomedName();\n"
                        + "r.visible = v.visibleFrames();\n", rec.dir());
        Figures.line(String.format("flame graph of JDK JFR %s in Chromium: %d frames, search methodA %.2f%% "
                + "(collapsed says %.2f%%), zoomed %s", jdk, r.path("frames").asInt(), r.path("matched").asDouble(),
                100 * shareA, r.path("zoomed").asText()));
        assertTrue(r.path("frames").asInt() > 5, r.toString());
        assertTrue(r.path("total").asText().startsWith("Total: "), r.toString());
        assertEquals(100 * shareA, r.path("matched").asDouble(), 0.01, r.toString());
        assertEquals(String.format("Matched: %.2f%%", r.path("matched").asDouble()), r.path("matchedText").asText());
        assertTrue(r.path("zoom").asBoolean(), r.toString());
        assertEquals(METHOD_A, r.path("zoomed").asText());
        List<String> visible = Arrays.asList(ReportTool.JSON_MAPPER.convertValue(r.path("visible"), String[].class));
        assertTrue(visible.contains(METHOD_A) && !visible.contains(METHOD_B), visible.toString());
    }

    /**
     * The report of the damaged two-chunk file has all of the first chunk (the intact recording),
     * and maybe some samples of the second chunk from before the damage.
     */
    static void assertCovers(Path intactReport, Path damagedReport) throws Exception {
        CollapsedProfile intact = CollapsedProfile.read(intactReport);
        CollapsedProfile damaged = CollapsedProfile.read(damagedReport);
        for (CollapsedProfile.Stack st : intact.stacks()) {
            long there = damaged.count(x -> x.frames().equals(st.frames()));
            assertTrue(there >= st.count(), "the first chunk must be reported as a whole: " + st + " has " + there
                    + " in " + damagedReport);
        }
        assertTrue(damaged.total() >= intact.total() && damaged.total() < 2 * intact.total(),
                damaged.total() + " samples, intact " + intact.total());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void damagedFilesAreReportedUpToTheDamage(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Recorded rec = recording(jdk);
        Path dir = rec.dir();
        byte[] bytes = Files.readAllBytes(rec.jfr());
        int n = bytes.length;
        Path full = dir.resolve("full.collapsed");
        assertEquals(0, ReportTool.report(jdk, dir, rec.jfr().toString(), "--event", "ExecutionSample", "-o",
                full.toString()).exitCode());

        // cut in half: one line naming the offset, exit 3
        Path half = Files.write(dir.resolve("half.jfr"), Arrays.copyOf(bytes, n / 2));
        ReportTool.Ran h = ReportTool.report(jdk, dir, half.toString(), "-o", dir.resolve("half.html").toString());
        assertEquals(3, h.exitCode(), h.describe());
        assertEquals(n / 2, h.damagedAt(), h.describe());
        Figures.line("report of JDK JFR " + jdk + " cut in half: " + h.oneCandorLine());

        // two chunks (two copies of the recording), cut in the middle of the second
        byte[] two = Arrays.copyOf(bytes, 2 * n);
        System.arraycopy(bytes, 0, two, n, n);
        int cut = n + n / 2;
        Path twoCut = Files.write(dir.resolve("two-cut.jfr"), Arrays.copyOf(two, cut));
        Path twoCutOut = dir.resolve("two-cut.collapsed");
        ReportTool.Ran tc = ReportTool.report(jdk, dir, twoCut.toString(), "--event", "ExecutionSample", "-o",
                twoCutOut.toString());
        assertEquals(3, tc.exitCode(), tc.describe());
        assertEquals(cut, tc.damagedAt(), tc.describe());
        assertCovers(full, twoCutOut);
        Figures.line("report of JDK JFR " + jdk + " x2 cut in chunk 2: " + tc.oneCandorLine());

        // two chunks, 4 KiB overwritten in the middle of the second
        byte[] flipped = two.clone();
        int from = n + n / 2;
        Arrays.fill(flipped, from, Math.min(flipped.length, from + 4096), (byte) 0xff);
        Path twoFlipped = Files.write(dir.resolve("two-flipped.jfr"), flipped);
        Path twoFlippedOut = dir.resolve("two-flipped.collapsed");
        ReportTool.Ran tf = ReportTool.report(jdk, dir, twoFlipped.toString(), "--event", "ExecutionSample", "-o",
                twoFlippedOut.toString());
        assertEquals(3, tf.exitCode(), tf.describe());
        long at = tf.damagedAt();
        assertTrue(at >= n && at <= from + 4096, "damage reported at " + at + ", written at " + from + "-"
                + (from + 4096) + " in chunk 2 (from byte " + n + ")\n" + tf.describe());
        assertCovers(full, twoFlippedOut);
        Figures.line("report of JDK JFR " + jdk + " x2 with bytes " + from + "-" + (from + 4096) + " overwritten: "
                + tf.oneCandorLine());

        // one chunk, flipped bytes (XOR) in the middle
        byte[] xored = bytes.clone();
        for (int i = n / 2; i < Math.min(n, n / 2 + 4096); i++) {
            xored[i] ^= (byte) 0xff;
        }
        Path oneFlipped = Files.write(dir.resolve("flipped.jfr"), xored);
        ReportTool.Ran of = ReportTool.report(jdk, dir, oneFlipped.toString());
        assertEquals(3, of.exitCode(), of.describe());
        // JFR has no checksums: the damage is named where the structure first proves broken, which
        // can be after the flipped bytes (the parser may read a little garbage as records)
        long xat = of.damagedAt();
        assertTrue(xat > 0 && xat < n, of.describe());
        assertFalse(ReportTool.hasStackTrace(of.stdout()), of.describe());
        Figures.line("report of JDK JFR " + jdk + " with bytes " + (n / 2) + "-" + (n / 2 + 4096) + " XORed: "
                + (of.stdout().isEmpty() ? "no report" : "report of " + of.stdout().lines()
                .filter(l -> l.startsWith("samples:")).findFirst().orElse("?")) + "; " + of.oneCandorLine());
    }
}

package dev.candor.itest;

import dev.candor.compare.Comparison;
import dev.candor.compare.Inputs;
import dev.candor.compare.Metrics;
import com.fasterxml.jackson.databind.JsonNode;
import dev.candor.itest.workload.TruthTree;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code candor compare} on real recordings: (a) two recordings of the same workload agree
 * (overlap ≥ 0.8, hot-edge coverage ≥ 0.9 both ways); (b) a recording of the known-answer workload
 * in {@code cpu} mode covers every hot edge of the workload's own truth tree (hotcover 1.0); (c) a
 * JDK JFR recording of it, read by the same code, covers the truth too; (d) the command line
 * compares, draws the differential flame graph and merges; (e) the differential flame graph in
 * headless Chromium: widths, colours and the viewer's diff hook.
 */
class CompareTest {
    static final long CPU_MS_A = 1400;
    static final long CPU_MS_B = 600;
    static final Pattern FOCUS = Pattern.compile("^" + Pattern.quote(TruthTree.WORK) + "$");

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.all().stream();
    }

    record Run(Path profile, Path truth) {
    }

    static Run record(Jdks.Jdk jdk, String name, String agent, String... jvmArgs) throws Exception {
        Path dir = Build.runDir("compare-" + jdk.label() + "-" + name);
        Path truth = dir.resolve("truth.collapsed");
        Path profile = dir.resolve(agent == null ? "profile.jfr" : "profile.collapsed");
        Jvm jvm = Jvm.of(jdk, dir);
        if (agent != null) {
            jvm.agent(agent + ",file=" + profile);
        } else {
            jvm.jvmArg("-XX:StartFlightRecording:filename=" + profile + ",settings=profile");
        }
        jvm.jvmArg(jvmArgs);
        Jvm.Result run = jvm.main(TruthTree.class, truth.toString(), String.valueOf(CPU_MS_A), String.valueOf(CPU_MS_B))
                .run(Duration.ofSeconds(120));
        assertEquals(0, run.exitCode(), run.describe());
        assertTrue(Files.isRegularFile(profile), "no profile written\n" + run.describe());
        assertTrue(Files.isRegularFile(truth), "no truth written\n" + run.describe());
        return new Run(profile, truth);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void recordingsAgreeWithEachOtherAndWithTheTruth(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Run a = record(jdk, "a", "start,event=cpu,interval=1ms");
        Run b = record(jdk, "b", "start,event=cpu,interval=1ms");

        // (a) the whole profiles, nothing filtered
        Comparison ab = Comparison.of(Inputs.load(a.profile(), Inputs.Options.DEFAULT),
                Inputs.load(b.profile(), Inputs.Options.DEFAULT), Metrics.DEFAULT_THRESHOLD);
        Figures.line(String.format("compare %s: two cpu recordings: overlap %.3f, hotcover(A,B) %s,"
                        + " hotcover(B,A) %s, edges %d and %d", jdk, ab.overlap(), ab.coverAB(), ab.coverBA(),
                ab.a().cct().edgeCount(), ab.b().cct().edgeCount()));
        String context = jdk + " two recordings:\n" + ab.text(10, Inputs.Options.DEFAULT.describe());
        assertTrue(ab.overlap() >= 0.8, context);
        assertTrue(ab.coverAB().value() >= 0.9, context);
        assertTrue(ab.coverBA().value() >= 0.9, context);

        // (b) each recording against its own run's truth, both re-rooted at TruthTree.work
        Inputs.Options focus = Inputs.Options.DEFAULT.withFocus(FOCUS);
        for (Run r : List.of(a, b)) {
            Comparison pt = Comparison.of(Inputs.load(r.profile(), focus), Inputs.load(r.truth(), focus),
                    Metrics.DEFAULT_THRESHOLD);
            Figures.line(String.format("compare %s: cpu recording vs its truth tree: hotcover(profile,truth) %s,"
                            + " hotcover(truth,profile) %s, overlap %.3f", jdk, pt.coverAB(), pt.coverBA(),
                    pt.overlap()));
            assertEquals(1.0, pt.coverAB().value(), 0, jdk + " profile vs truth:\n" + pt.text(10, focus.describe()));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void jdkFlightRecordingIsComparedByTheSameCode(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Run jfr = record(jdk, "jfr", null);
        Run candor = record(jdk, "candor", "start,event=cpu,interval=1ms");
        Inputs.Options focus = Inputs.Options.DEFAULT.withFocus(FOCUS);
        Inputs.Loaded j = Inputs.load(jfr.profile(), focus);
        Comparison vsTruth = Comparison.of(j, Inputs.load(jfr.truth(), focus), Metrics.DEFAULT_THRESHOLD);
        Comparison vsCandor = Comparison.of(j, Inputs.load(candor.profile(), focus), Metrics.DEFAULT_THRESHOLD);
        Figures.line(String.format("compare %s: JDK JFR (%d samples) vs its truth: hotcover %s, overlap %.3f;"
                        + " JFR vs candor cpu: overlap %.3f, hotcover %s / %s", jdk, (long) j.kept(),
                vsTruth.coverAB(), vsTruth.overlap(), vsCandor.overlap(), vsCandor.coverAB(), vsCandor.coverBA()));
        assertEquals(1.0, vsTruth.coverAB().value(), 0, jdk + " JFR vs truth:\n" + vsTruth.text(10, ""));

        // (d) the command line (the build's candor.jar): compare with a differential flame graph, merge
        Path dir = candor.profile().getParent();
        Path html = dir.resolve("diff.html");
        ReportTool.Ran cmp = cli(jdk, dir, "compare", candor.profile().toString(), jfr.profile().toString(),
                "--focus", FOCUS.pattern(), "--html", html.toString());
        assertEquals(0, cmp.exitCode(), cmp.describe());
        assertTrue(cmp.stdout().contains("overlap(A,B)"), cmp.describe());
        assertTrue(Files.readString(html).contains("\"diff\":{"), "the page carries the diff data");
        Path merged = dir.resolve("merged.collapsed");
        ReportTool.Ran merge = cli(jdk, dir, "merge", candor.profile().toString(), jfr.profile().toString(),
                "--focus", FOCUS.pattern(), "-o", merged.toString());
        assertEquals(0, merge.exitCode(), merge.describe());
        Comparison mergedVsTruth = Comparison.of(Inputs.load(merged, focus), Inputs.load(candor.truth(), focus),
                Metrics.DEFAULT_THRESHOLD);
        Figures.line(String.format("compare %s: merge of candor and JFR vs truth: overlap %.3f, hotcover %s", jdk,
                mergedVsTruth.overlap(), mergedVsTruth.coverAB()));
        assertEquals(1.0, mergedVsTruth.coverAB().value(), 0, mergedVsTruth.text(10, ""));
    }

    /** {@code java -jar candor.jar ARGS} (the build's CLI) on this JDK, in DIR. */
    static ReportTool.Ran cli(Jdks.Jdk jdk, Path dir, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(jdk.java().toString(), "-jar",
                Build.file("candor.jar").toString()));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "cli-", ".out");
        Path err = Files.createTempFile(dir, "cli-", ".err");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
        if (!p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("candor did not finish within 120 s: " + String.join(" ", cmd));
        }
        return new ReportTool.Ran(cmd, p.exitValue(), Files.readString(out), Files.readString(err));
    }

    @Test
    void differentialFlameGraphInABrowser() throws Exception {
        Path chromium = ReportTool.chromium();
        Assumptions.assumeTrue(chromium != null, "chromium is not installed (scripts/install-deps.sh): skipped");
        Path dir = Build.runDir("compare-diff-browser");
        Path a = Files.writeString(dir.resolve("a.collapsed"), "main;work;hot 700\nmain;work;cold 300\n");
        Path b = Files.writeString(dir.resolve("b.collapsed"), "main;work;hot 200\nmain;work;new 800\n");
        Path html = dir.resolve("diff.html");
        Jdks.Jdk jdk = Jdks.all().stream().filter(Jdks.Jdk::present).findFirst().orElse(null);
        Assumptions.assumeTrue(jdk != null, "no JDK present");
        ReportTool.Ran cmp = cli(jdk, dir, "compare", a.toString(), b.toString(), "--html", html.toString());
        assertEquals(0, cmp.exitCode(), cmp.describe());
        // children sorted by name, widths the mean of both shares: cold [0, .15W), hot [.15W, .6W), new [.6W, W)
        JsonNode r = ReportTool.inBrowser(chromium, html,
                "const view = document.getElementById('view');\n"
                        + "const ctx = document.getElementById('canvas').getContext('2d');\n"
                        + "const W = view.clientWidth, H = view.clientHeight;\n"
                        + "const px = (x) => Array.from(ctx.getImageData(Math.round(x), H - 3 * 16 - 8, 1, 1).data);\n"
                        + "r.total = document.getElementById('total').textContent;\n"
                        + "r.frames = v.frameCount();\n"
                        + "r.hot = v.diff('hot'); r.cold = v.diff('cold'); r.fresh = v.diff('new'); r.none = v.diff('x');\n"
                        + "r.searchHot = v.search('^hot$');\n"
                        + "v.search('');\n"
                        + "r.pxCold = px(W * 0.07); r.pxHot = px(W * 0.4); r.pxNew = px(W * 0.8);\n", dir);
        Figures.line("compare: differential flame graph in Chromium: " + r);
        assertTrue(r.path("error").isMissingNode(), r.toString());
        assertTrue(r.path("total").asText().startsWith("A: " + a + " (1,000) vs B: " + b + " (1,000)"), r.toString());
        assertEquals(6, r.path("frames").asInt(), r.toString());
        assertEquals(0.7, r.path("hot").path("a").asDouble(), 1e-9);
        assertEquals(0.2, r.path("hot").path("b").asDouble(), 1e-9);
        assertEquals(0.0, r.path("cold").path("b").asDouble(), 1e-9);
        assertEquals(0.8, r.path("fresh").path("b").asDouble(), 1e-9);
        assertTrue(r.path("none").isNull(), r.toString());
        assertEquals(45.0, r.path("searchHot").asDouble(), 1e-6);
        // blue where B shrank (hot) or lost the frame (cold), red where the frame is new in B
        assertTrue(r.path("pxCold").get(2).asInt() > r.path("pxCold").get(0).asInt(), r.toString());
        assertTrue(r.path("pxHot").get(2).asInt() > r.path("pxHot").get(0).asInt(), r.toString());
        assertTrue(r.path("pxNew").get(0).asInt() > r.path("pxNew").get(2).asInt(), r.toString());
    }
}

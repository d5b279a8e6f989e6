package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The flame graph page {@code candor report} writes, in a real browser (headless Chromium): it
 * renders the frames, search highlights and reports the matched percentage, and a click on a
 * frame (a dispatched MouseEvent at its place on the canvas) zooms into it. The profile is
 * small and known: main;work;hot 700 and main;work;cold 300.
 */
class ViewerBrowserTest {

    @Test
    void renderSearchAndClickToZoom() throws Exception {
        Path chromium = ReportTool.chromium();
        Assumptions.assumeTrue(chromium != null, "chromium is not installed (scripts/install-deps.sh): skipped");
        Jdks.Jdk jdk = Jdks.all().stream().filter(Jdks.Jdk::present).findFirst().orElse(null);
        Assumptions.assumeTrue(jdk != null, "no JDK present");
        Path dir = Build.runDir("viewer-browser");
        Path in = Files.writeString(dir.resolve("known.collapsed"), "main;work;hot 700\nmain;work;cold 300\n");
        Path html = dir.resolve("known.html");
        ReportTool.Ran r = ReportTool.report(jdk, dir, in.toString(), "-o", html.toString(), "--title", "known <page>");
        assertEquals(0, r.exitCode(), r.describe());

        // Layout (viewer/flamegraph.html): root at the bottom, 16 px rows; depth d spans
        // y in [H - (d+1)*16, H - d*16) of the view, x proportional to the counts within the zoom.
        JsonNode res = ReportTool.inBrowser(chromium, html,
                "const view = document.getElementById('view');\n"
                        + "const canvas = document.getElementById('canvas');\n"
                        + "r.title = document.getElementById('title').textContent;\n"
                        + "r.total = document.getElementById('total').textContent;\n"
                        + "r.frames = v.frameCount();\n"
                        + "r.canvasWidth = canvas.width;\n"
                        + "r.visibleBefore = v.visibleFrames();\n"
                        + "r.search = v.search('^hot$');\n"
                        + "r.matchedText = document.getElementById('matched').textContent;\n"
                        + "r.matchedHidden = document.getElementById('matched').hidden;\n"
                        + "r.searchWork = v.search('work');\n"
                        + "r.cleared = v.search('');\n"
                        + "r.matchedHiddenAfterClear = document.getElementById('matched').hidden;\n"
                        + "const W = view.clientWidth, H = view.clientHeight, rect = canvas.getBoundingClientRect();\n"
                        + "const click = (x, depth) => canvas.dispatchEvent(new MouseEvent('click', {bubbles: true,\n"
                        + "    clientX: rect.left + x, clientY: rect.top + H - depth * 16 - 8}));\n"
                        + "click(W * 0.8, 3);\n"   // hot spans [0.3W, W) at depth 3 (children sorted by name)
                        + "r.zoomedByClick = v.zoomedName();\n"
                        + "r.visibleAfterClick = v.visibleFrames();\n"
                        + "r.resetEnabled = !document.getElementById('reset').disabled;\n"
                        + "click(W * 0.5, 0);\n"   // the root resets the zoom
                        + "r.zoomedAfterRootClick = v.zoomedName();\n"
                        + "click(W * 0.1, 3);\n"   // cold spans [0, 0.3W)
                        + "r.zoomedCold = v.zoomedName();\n"
                        + "r.zoomWork = v.zoom('work');\n"
                        + "r.zoomedWork = v.zoomedName();\n"
                        + "r.zoomMissing = v.zoom('nope');\n"
                        + "r.zoomRoot = v.zoom('all');\n"
                        + "r.zoomedAfterReset = v.zoomedName();\n", dir);
        Figures.line("flame graph in Chromium: " + res);

        assertEquals("known <page>", res.path("title").asText());
        assertEquals("Total: 1,000 samples", res.path("total").asText());
        assertEquals(5, res.path("frames").asInt(), res.toString());
        assertTrue(res.path("canvasWidth").asInt() > 0, res.toString());
        assertEquals(List.of("all", "main", "work", "cold", "hot"), strings(res.path("visibleBefore")));
        assertEquals(70.0, res.path("search").asDouble(), 1e-9);
        assertEquals("Matched: 70.00%", res.path("matchedText").asText());
        assertFalse(res.path("matchedHidden").asBoolean());
        assertEquals(100.0, res.path("searchWork").asDouble(), 1e-9);
        assertEquals(0.0, res.path("cleared").asDouble(), 1e-9);
        assertTrue(res.path("matchedHiddenAfterClear").asBoolean());
        assertEquals("hot", res.path("zoomedByClick").asText(), res.toString());
        List<String> after = strings(res.path("visibleAfterClick"));
        assertTrue(after.contains("hot") && !after.contains("cold"), after.toString());
        assertTrue(res.path("resetEnabled").asBoolean());
        assertTrue(res.path("zoomedAfterRootClick").isNull(), res.toString());
        assertEquals("cold", res.path("zoomedCold").asText(), res.toString());
        assertTrue(res.path("zoomWork").asBoolean());
        assertEquals("work", res.path("zoomedWork").asText());
        assertFalse(res.path("zoomMissing").asBoolean());
        assertTrue(res.path("zoomRoot").asBoolean());
        assertTrue(res.path("zoomedAfterReset").isNull(), res.toString());
    }

    /**
     * The timeline on a known page: threads alpha (1 sample per ms: stack main;hot for the first
     * 500 ms, main;cold after) and beta (2 samples per ms, main;cold) over 1000 ms. A drag over
     * 10%–40% of the timeline (dispatched mouse events) selects a range whose flame graph total is
     * exactly 3 samples per millisecond in it, a third of them hot; the thread filter, a click on
     * a thread's row and the callers view each rebuild the graph with the right total; and a
     * screenshot shows the selection shaded in the timeline and the flame graph drawn.
     */
    @Test
    void timelineRangeThreadsAndCallersView() throws Exception {
        Path chromium = ReportTool.chromium();
        Assumptions.assumeTrue(chromium != null, "chromium is not installed (scripts/install-deps.sh): skipped");
        Jdks.Jdk jdk = Jdks.all().stream().filter(Jdks.Jdk::present).findFirst().orElse(null);
        Assumptions.assumeTrue(jdk != null, "no JDK present");
        Path dir = Build.runDir("viewer-timeline");
        Path in = Files.writeString(dir.resolve("seed.collapsed"), "main;hot 1\n");
        Path seed = dir.resolve("seed.html");
        ReportTool.Ran r = ReportTool.report(jdk, dir, in.toString(), "-o", seed.toString());
        assertEquals(0, r.exitCode(), r.describe());
        StringBuilder t = new StringBuilder(), th = new StringBuilder(), st = new StringBuilder(), w = new StringBuilder();
        for (int ms = 0; ms < 1000; ms++) {
            String sep = ms > 0 ? "," : "";
            t.append(sep).append(ms).append(',').append(ms);
            th.append(sep).append("0,1");
            st.append(sep).append(ms < 500 ? 0 : 1).append(",1");
            w.append(sep).append("1,2");
        }
        String data = "{\"title\":\"timeline\",\"subtitle\":\"known\",\"unit\":\"samples\","
                + "\"timeline\":{\"frames\":[\"main\",\"hot\",\"cold\"],\"kinds\":\"jjj\","
                + "\"threads\":[\"alpha tid=1\",\"beta tid=2\"],\"stacks\":[[0,1],[0,2]],"
                + "\"t\":[" + t + "],\"th\":[" + th + "],\"s\":[" + st + "],\"w\":[" + w + "]},"
                + "\"root\":{\"n\":\"all\",\"v\":3000,\"k\":\"r\",\"c\":[{\"n\":\"main\",\"v\":3000,\"k\":\"j\","
                + "\"c\":[{\"n\":\"cold\",\"v\":2500,\"k\":\"j\"},{\"n\":\"hot\",\"v\":500,\"k\":\"j\"}]}]}}";
        String html = Files.readString(seed);
        int at = html.indexOf("window.candorData = ");
        int end = html.indexOf(";</script>", at);
        assertTrue(at > 0 && end > at, "the page's data script");
        Path page = Files.writeString(dir.resolve("timeline.html"),
                html.substring(0, at) + "window.candorData = " + data + html.substring(end));

        Path png = dir.resolve("timeline.png");
        JsonNode res = ReportTool.inBrowser(chromium, page,
                "const tl = document.getElementById('timeline');\n"
                        + "const rect = tl.getBoundingClientRect();\n"
                        + "const fire = (type, x, y) => tl.dispatchEvent(new MouseEvent(type, {bubbles: true, clientX: x, clientY: y}));\n"
                        + "const x = (f) => rect.left + 170 + (rect.width - 170) * f;\n"
                        + "const drag = (a, b) => { fire('mousedown', x(a), rect.top + 5); fire('mousemove', x(b), rect.top + 5);"
                        + " fire('mouseup', x(b), rect.top + 5); };\n"
                        + "r.timeline = v.timeline();\n"
                        + "r.total = v.total();\n"
                        + "drag(0.1, 0.4);\n"
                        + "r.range = v.selectedRange();\n"
                        + "r.rangeTotal = v.total();\n"
                        + "r.totalText = document.getElementById('total').textContent;\n"
                        + "r.rangeText = document.getElementById('rangeText').textContent;\n"
                        + "r.rangeHot = v.search('^hot$'); v.search('');\n"
                        + "r.alphaInRange = v.filterThreads('alpha');\n"
                        + "r.alphaHot = v.search('^hot$'); v.search('');\n"
                        + "r.alpha = v.selectRange(null);\n"
                        + "r.beta = v.filterThreads('^beta');\n"
                        + "r.all = v.filterThreads('');\n"
                        + "r.inverted = v.invert(true);\n"
                        + "r.invertedFrames = v.visibleFrames();\n"
                        + "r.normal = v.invert(false);\n"
                        // rows: beta (busiest) first under the 34 px histogram, then alpha, 9 px each
                        + "fire('mousedown', rect.left + 20, rect.top + 34 + 9 + 4);\n"
                        + "r.rowClick = v.total();\n"
                        + "r.rowFilter = document.getElementById('threadFilter').value;\n"
                        + "v.filterThreads('');\n"
                        + "drag(0.1, 0.4);\n"
                        + "r.shot = {left: rect.left, top: rect.top, x0: x(0.1), x1: x(0.4), viewTop:"
                        + " 0};\n", dir, png);
        Figures.line("timeline in Chromium: range " + res.path("range") + " total " + res.path("rangeTotal")
                + ", hot " + res.path("rangeHot") + "%, alpha " + res.path("alpha") + ", beta " + res.path("beta")
                + ", callers view " + res.path("invertedFrames"));

        assertEquals(3000, res.path("total").asLong());
        assertEquals(List.of("alpha tid=1", "beta tid=2"), strings(res.path("timeline").path("threads")));
        double from = res.path("range").get(0).asDouble(), to = res.path("range").get(1).asDouble();
        assertTrue(from > 80 && from < 120 && to > 380 && to < 420, "the drag selected about 100-400 ms: " + res.path("range"));
        long ms = 0;
        for (int i = 0; i < 1000; i++) {
            ms += i >= from && i < to ? 1 : 0;
        }
        assertEquals(3 * ms, res.path("rangeTotal").asLong(), "3 samples per ms of the range " + res.path("range"));
        assertEquals("Total: " + String.format("%,d", 3 * ms) + " samples", res.path("totalText").asText());
        assertTrue(res.path("rangeText").asText().startsWith("Range: "), res.path("rangeText").asText());
        assertEquals(100.0 / 3, res.path("rangeHot").asDouble(), 1e-9, "alpha's hot third");
        assertEquals(ms, res.path("alphaInRange").asLong());
        assertEquals(100.0, res.path("alphaHot").asDouble(), 1e-9, "alpha is hot before 500 ms");
        assertEquals(1000, res.path("alpha").asLong());
        assertEquals(2000, res.path("beta").asLong());
        assertEquals(3000, res.path("all").asLong());
        assertEquals(3000, res.path("inverted").asLong());
        assertEquals(List.of("all", "cold", "hot", "main", "main"), strings(res.path("invertedFrames")), "callers view");
        assertEquals(3000, res.path("normal").asLong());
        assertEquals(1000, res.path("rowClick").asLong(), "a click on alpha's row keeps alpha");
        assertEquals("^alpha tid=1$", res.path("rowFilter").asText());

        // The screenshot: the selection is shaded blue in the timeline (grey outside), frames are drawn.
        java.awt.image.BufferedImage img = javax.imageio.ImageIO.read(png.toFile());
        JsonNode shot = res.path("shot");
        int y = (int) shot.path("top").asDouble() + 1;
        int[] inside = rgb(img.getRGB((int) ((shot.path("x0").asDouble() + shot.path("x1").asDouble()) / 2), y));
        int[] outside = rgb(img.getRGB((int) shot.path("x1").asDouble() + 60, y));
        int[] graph = {0, 0, 0};
        for (int gy = img.getHeight() / 2; gy < img.getHeight(); gy++) {  // the root row sits at the bottom of the view
            int[] px = rgb(img.getRGB(40, gy));
            if (px[1] > px[2] + 30) {
                graph = px;
                break;
            }
        }
        Figures.line("timeline screenshot: inside the selection " + java.util.Arrays.toString(inside) + ", outside "
                + java.util.Arrays.toString(outside) + ", flame graph " + java.util.Arrays.toString(graph));
        assertTrue(inside[2] - inside[0] > 25, "the selection is shaded blue: " + java.util.Arrays.toString(inside));
        assertTrue(Math.abs(outside[2] - outside[0]) < 8 && outside[0] > 200, "grey outside it: "
                + java.util.Arrays.toString(outside));
        assertTrue(graph[1] > graph[2] + 30, "a green Java frame at the bottom of the graph: " + java.util.Arrays.toString(graph));
    }

    /**
     * The pages of a real run carry its timeline: the agent's (file=x.html) and `candor report`'s of
     * the same run's .jfr. On both, keeping the worker thread gives exactly its samples in the
     * collapsed output of that run, the whole time range gives the whole profile, and the callers
     * view keeps the total.
     */
    @Test
    void agentAndReportPagesCarryTheTimeline() throws Exception {
        Path chromium = ReportTool.chromium();
        Assumptions.assumeTrue(chromium != null, "chromium is not installed (scripts/install-deps.sh): skipped");
        Jdks.Jdk jdk = Jdks.all().stream().filter(Jdks.Jdk::present).findFirst().orElse(null);
        Assumptions.assumeTrue(jdk != null, "no JDK present");
        Path dir = Build.runDir("viewer-timeline-run");
        Path page = dir.resolve("run.html"), jfr = dir.resolve("run.jfr"), collapsed = dir.resolve("run.collapsed");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=cpu,interval=1ms,threads,file=" + page + ",file=" + jfr + ",file=" + collapsed)
                .main(dev.candor.itest.workload.KnownAnswer.class, dir.resolve("truth.properties").toString(), "700", "300")
                .run(java.time.Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());
        dev.candor.model.CollapsedProfile profile = Profiles.collapsed(collapsed, run);
        long worker = profile.count(x -> x.frames().get(0).startsWith("[ka-worker "));
        Path reportPage = dir.resolve("report.html");
        ReportTool.Ran rep = ReportTool.report(jdk, dir, jfr.toString(), "--threads", "-o", reportPage.toString());
        assertEquals(0, rep.exitCode(), rep.describe());
        String checks = "const t = v.timeline();\n"
                + "r.threads = t ? t.threads : null;\n"
                + "r.total = v.total();\n"
                + "r.whole = t ? v.selectRange(t.from, t.to) : -1;\n"
                + "v.selectRange(null);\n"
                + "r.worker = v.filterThreads('^ka-worker ');\n"
                + "r.workerInverted = v.invert(true);\n";
        for (Path p : List.of(page, reportPage)) {
            JsonNode res = ReportTool.inBrowser(chromium, p, checks, dir);
            Figures.line("timeline of a run (" + p.getFileName() + "): " + res + "; the worker's samples in the collapsed: "
                    + worker);
            assertTrue(strings(res.path("threads")).stream().anyMatch(n -> n.startsWith("ka-worker ")), res.toString());
            assertEquals(profile.total(), res.path("total").asLong(), p + ": the page's total");
            assertEquals(profile.total(), res.path("whole").asLong(), p + ": the whole range");
            assertEquals(worker, res.path("worker").asLong(), p + ": the worker thread alone");
            assertEquals(worker, res.path("workerInverted").asLong(), p + ": callers view");
        }
    }

    private static int[] rgb(int argb) {
        return new int[] {(argb >> 16) & 0xff, (argb >> 8) & 0xff, argb & 0xff};
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}

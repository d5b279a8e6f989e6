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

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}

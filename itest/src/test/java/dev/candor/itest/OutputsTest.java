package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.candor.itest.workload.BusyThreads;
import dev.candor.itest.workload.Hot;
import dev.candor.model.CollapsedProfile;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * (e) All outputs of one run: the HTML page has the profile data embedded in place of the
 * marker, the text summary names the engine, states the rate and has the failure table, the
 * stats satisfy {@code ticks = recorded + dropped + Σ failures}, and the collapsed stacks account
 * for every tick.
 */
class OutputsTest {
    static final String MARKER = "/*CANDOR:DATA*/null";
    static final String THREAD = "out-0";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The page must be the template with the marker replaced by one JSON value; returns it. */
    static JsonNode embeddedData(String template, String page, String name) throws Exception {
        int at = template.indexOf(MARKER);
        assertTrue(at >= 0, "the viewer template has no marker");
        String prefix = template.substring(0, at);
        String suffix = template.substring(at + MARKER.length());
        assertTrue(page.startsWith(prefix) && page.endsWith(suffix) && page.length() > prefix.length() + suffix.length(),
                name + ": the HTML is not viewer/flamegraph.html with the marker replaced"
                        + " (was the agent built from an older template?)");
        String data = page.substring(prefix.length(), page.length() - suffix.length());
        JsonNode node = JSON.readTree(data);
        assertTrue(node != null && node.isObject(), name + ": the embedded data is not a JSON object");
        return node;
    }

    static boolean hasNode(JsonNode node, String frame) {
        if (frame.equals(node.path("n").asText())) {
            return true;
        }
        for (JsonNode child : node.path("c")) {
            if (hasNode(child, frame)) {
                return true;
            }
        }
        return false;
    }

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void allFormats(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "outputs " + jdk;
        Path dir = Build.runDir("outputs-" + jdk.label());
        Path html = dir.resolve("o.html");
        Path txt = dir.resolve("o.txt");
        Path collapsedFile = dir.resolve("o.collapsed");
        Path statsFile = dir.resolve("o.json");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,interval=1ms,file=" + html + ",file=" + txt + ",file=" + collapsedFile
                        + ",stats=" + statsFile)
                .main(BusyThreads.class, dir.resolve("truth.properties").toString(), "2", THREAD + ":A:1")
                .run(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), run.describe());
        for (Path p : List.of(html, txt, collapsedFile, statsFile)) {
            assertTrue(Files.isRegularFile(p) && Files.size(p) > 0, name + ": missing or empty " + p + "\n"
                    + run.describe());
        }
        ProfileStats stats = Profiles.stats(statsFile, run);
        CollapsedProfile profile = Profiles.collapsed(collapsedFile, run);
        String page = Files.readString(html);
        String summary = Files.readString(txt);
        Figures.line(String.format("%s: html %d bytes, txt %d lines, collapsed %d stacks / %d samples,"
                        + " stats ticks %d (recorded %d, failures %s), identity %s",
                name, page.length(), summary.lines().count(), profile.stacks().size(), profile.total(),
                stats.ticks(), stats.recorded(), Profiles.failures(stats),
                stats.identityHolds() ? "holds" : "BROKEN"));

        // stats
        assertEquals("cpu", stats.engine(), name + ": default engine");
        // Per-CPU timers (root's default) run 0.3% under the interval asked, so that their grid keeps no fixed
        // phase against the kernel's tick; the stats give the interval that ran.
        boolean perCpu = run.stderr().contains("timers=per-cpu");
        assertEquals(perCpu ? 997_000L : 1_000_000L, stats.intervalNs(), name + ": interval_ns");
        Profiles.assertIdentity(stats, name);

        // collapsed: every tick is there, failures included
        assertEquals(stats.ticks(), profile.total(), name + ": collapsed samples vs stats ticks");
        assertTrue(profile.countAny(CollapsedProfile.method(Hot.METHOD_A)) > profile.total() / 2,
                name + ": the hot method should have most samples: " + profile.selfByFrame());

        // html: marker replaced by the data, which names the frames
        assertFalse(page.contains(MARKER), name + ": the HTML still contains the data marker");
        assertTrue(page.contains(Hot.METHOD_A), name + ": the HTML does not contain the frame " + Hot.METHOD_A);
        Path template = Build.target().getParent().getParent().resolve("viewer").resolve("flamegraph.html");
        if (Files.isRegularFile(template)) {
            JsonNode data = embeddedData(Files.readString(template), page, name);
            JsonNode root = data.path("root");
            assertEquals("all", root.path("n").asText(), name + ": root node of the embedded data");
            assertEquals(stats.ticks(), root.path("v").asLong(), name + ": root value vs stats ticks");
            assertTrue(hasNode(root, Hot.METHOD_A), name + ": no node " + Hot.METHOD_A + " in the embedded data");
        } else {
            Figures.line(name + ": " + template + " not found; embedded data not parsed");
        }

        // txt: engine, rate, failure table
        assertTrue(summary.lines().anyMatch(l -> l.toLowerCase(Locale.ROOT).contains("engine")
                && l.contains(stats.engine())), name + ": the summary names no engine:\n" + summary);
        assertTrue(summary.contains("samples per CPU-second"), name + ": the summary states no rate:\n" + summary);
        assertTrue(summary.contains("dropped"), name + ": the summary has no failure table (no 'dropped'):\n"
                + summary);
        for (Map.Entry<String, Long> f : stats.failures().entrySet()) {
            if (f.getValue() > 0) {
                assertTrue(summary.contains(f.getKey()), name + ": failure bucket " + f.getKey() + " ("
                        + f.getValue() + " ticks) is missing from the summary:\n" + summary);
            }
        }
    }
}

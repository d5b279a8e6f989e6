package dev.candor.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every output format, on the fixture profile. */
class WritersTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static String text(ReportFormat f, Profile p, ReportOptions o) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        f.write(p, o, out);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void formatsByNameAndExtension() {
        assertEquals(ReportFormat.PPROF, ReportFormat.byFileName("x.pb.gz").orElseThrow());
        assertEquals(ReportFormat.HTML, ReportFormat.byFileName("X.HTML").orElseThrow());
        assertEquals(ReportFormat.FLAT, ReportFormat.byFileName("x.txt").orElseThrow());
        assertEquals(ReportFormat.TREE, ReportFormat.byFileName("x.tree").orElseThrow());
        assertEquals(ReportFormat.COLLAPSED, ReportFormat.byFileName("x.collapsed").orElseThrow());
        assertEquals(ReportFormat.JSON, ReportFormat.byFileName("x.json").orElseThrow());
        assertEquals(ReportFormat.OTLP, ReportFormat.byFileName("x.otlp").orElseThrow());
        // the longest extension wins: .otlp.pb is OTLP, .pb alone stays pprof's
        assertEquals(ReportFormat.OTLP, ReportFormat.byFileName("x.OTLP.pb").orElseThrow());
        assertEquals(ReportFormat.PPROF, ReportFormat.byFileName("x.pb").orElseThrow());
        assertTrue(ReportFormat.byFileName("x.svg").isEmpty());
        assertEquals(ReportFormat.TREE, ReportFormat.byId("Tree").orElseThrow());
        assertEquals(ReportFormat.OTLP, ReportFormat.byId("otlp").orElseThrow());
        assertEquals("html, collapsed, tree, flat, pprof, json, otlp", ReportFormat.ids());
        assertTrue(ReportFormat.OTLP.isBinary() && ReportFormat.PPROF.isBinary() && !ReportFormat.JSON.isBinary());
    }

    @Test
    void collapsedIsSortedAndRoundTrips() throws Exception {
        Profile p = Fixtures.profile();
        String out = text(ReportFormat.COLLAPSED, p, ReportOptions.DEFAULT);
        assertEquals(String.join("\n",
                "[dropped] 5",
                "[gc_active] 5",
                "a.Main.main;a.Main.setup 10",
                "java.lang.Thread.run;a.Work.run;a.Work.cold 20",
                "java.lang.Thread.run;a.Work.run;a.Work.hot 60", ""), out);
        CollapsedProfile back = CollapsedProfile.parse(out);
        assertEquals(p.total(), back.total());
        String threads = text(ReportFormat.COLLAPSED, p, ReportOptions.DEFAULT.withThreads(true).withLines(true));
        assertTrue(threads.contains("[worker tid=102];java.lang.Thread.run;a.Work.run;a.Work.cold:12 10\n"), threads);
        String reversed = text(ReportFormat.COLLAPSED, p, ReportOptions.DEFAULT.withReverse(true));
        assertTrue(reversed.contains("a.Work.hot;a.Work.run;java.lang.Thread.run 60\n"), reversed);
    }

    @Test
    void treeShowsTotalAndSelfPercentages() throws Exception {
        String out = text(ReportFormat.TREE, Fixtures.profile(), ReportOptions.DEFAULT);
        assertTrue(out.contains("samples:  100"), out);
        assertTrue(out.matches("(?s).*100\\.00%\\s+0\\.00%\\s+100\\s+0  all\n.*"), out);
        assertTrue(out.matches("(?s).*80\\.00%\\s+0\\.00%\\s+80\\s+0      a\\.Work\\.run\n.*"), out);
        assertTrue(out.matches("(?s).*60\\.00%\\s+60\\.00%\\s+60\\s+60        a\\.Work\\.hot\n.*"), out);
        // largest first
        assertTrue(out.indexOf("a.Work.hot") < out.indexOf("a.Work.cold"), out);
        // pruning says what it leaves out
        String pruned = text(ReportFormat.TREE, Fixtures.profile(), ReportOptions.DEFAULT.withMinPercent(10));
        assertFalse(pruned.contains("[gc_active]"), pruned);
        assertTrue(pruned.contains("(2 frames below 10% of the samples are not shown: subtrees holding 10 samples"),
                pruned);
        String perThread = text(ReportFormat.TREE, Fixtures.profile(), ReportOptions.DEFAULT.withThreads(true));
        assertTrue(perThread.contains("  [worker tid=102]\n"), perThread);
        assertTrue(perThread.contains("view:     one tree per thread"), perThread);
    }

    @Test
    void flatListsHotMethodsBySelfAndTotal() throws Exception {
        String out = text(ReportFormat.FLAT, Fixtures.profile(), ReportOptions.DEFAULT);
        List<String> lines = out.lines().toList();
        int self = lines.indexOf("Top methods by self time (percent of all 100 samples):");
        int total = lines.indexOf("Top methods by total time (percent of all 100 samples):");
        assertTrue(self > 0 && total > self, out);
        assertTrue(lines.get(self + 2).matches("\\s+60\\.00%\\s+60\\.00%\\s+60  a\\.Work\\.hot"), lines.get(self + 2));
        assertTrue(lines.get(self + 3).matches("\\s+20\\.00%\\s+20\\.00%\\s+20  a\\.Work\\.cold"), lines.get(self + 3));
        assertTrue(out.contains("[gc_active]"), out);
        assertTrue(lines.get(total + 2).matches("\\s+0\\.00%\\s+80\\.00%\\s+80  a\\.Work\\.run|"
                + "\\s+0\\.00%\\s+80\\.00%\\s+80  java\\.lang\\.Thread\\.run"), lines.get(total + 2));
        List<FlatWriter.Row> rows = FlatWriter.rows(Fixtures.profile().samples(), true);
        assertEquals("a.Work.hot", rows.get(0).method());
        assertEquals(10, rows.stream().filter(r -> r.method().equals("a.Work.cold:12")).findFirst().orElseThrow()
                .self());
        String top1 = text(ReportFormat.FLAT, Fixtures.profile(), ReportOptions.DEFAULT.withTop(1));
        assertTrue(top1.contains("more methods; --top 0 lists all"), top1);
        String threads = text(ReportFormat.FLAT, Fixtures.profile(), ReportOptions.DEFAULT.withThreads(true));
        assertTrue(threads.contains("== thread [worker tid=102]: 90 samples, 90.00% of all"), threads);
        assertTrue(threads.contains("   66.67%   66.67%        60  a.Work.hot"), threads);
    }

    @Test
    void lockAndAllocationReportsSayTheirUnit() throws Exception {
        Sample wait = new Sample(1, null, "jdk.ThreadPark", List.of(Frame.parse("a.Pool.take")), 16_459_501_146L);
        Sample monitor = new Sample(1, null, "jdk.JavaMonitorEnter", List.of(Frame.parse("a.Cache.get")), 2_066_498L);
        Sample alloc = new Sample(1, null, "jdk.ObjectAllocationSample", List.of(Frame.parse("a.Json.parse")),
                1_210_967_505L);
        Sample cpu = new Sample(1, null, "jdk.ExecutionSample", List.of(Frame.parse("a.Json.parse")), 1);
        Recording r = new Recording("x.jfr", "jfr", Map.of("jdk.ThreadPark", List.of(wait),
                "jdk.JavaMonitorEnter", List.of(monitor), "jdk.ObjectAllocationSample", List.of(alloc, alloc),
                "jdk.ExecutionSample", List.of(cpu)), null, null, null);
        String locks = text(ReportFormat.FLAT, r.profile(List.of("jdk.ThreadPark", "jdk.JavaMonitorEnter")),
                ReportOptions.DEFAULT);
        assertTrue(locks.contains("waited:   16.46 s, in 2 events"), locks);
        assertTrue(locks.contains("(also in the input: jdk.ObjectAllocationSample 2.26 GiB, jdk.ExecutionSample 1)"),
                locks);
        assertTrue(locks.contains("Top methods by self time (percent of all 16.46 s):"), locks);
        assertTrue(locks.contains("    self%   total%    waited  method"), locks);
        assertTrue(locks.contains("   99.99%   99.99%   16.46 s  a.Pool.take"), locks);
        assertTrue(locks.contains("    0.01%    0.01%    2.1 ms  a.Cache.get"), locks);
        String tree = text(ReportFormat.TREE, r.profile(List.of("jdk.ThreadPark")), ReportOptions.DEFAULT);
        assertTrue(tree.contains(" 100.00%  100.00%    16.46 s    16.46 s    a.Pool.take"), tree);
        String allocs = text(ReportFormat.FLAT, r.profile(List.of("jdk.ObjectAllocationSample")), ReportOptions.DEFAULT);
        assertTrue(allocs.contains("sampled:  2.26 GiB allocated, in 2 events"), allocs);
        assertTrue(allocs.contains("  100.00%  100.00%  2.26 GiB  a.Json.parse"), allocs);
        assertTrue(r.choices().contains("jdk.ThreadPark (16.46 s)") && r.choices().contains("jdk.ExecutionSample (1)"),
                r.choices());
    }

    @Test
    void filtersAndDamageAreStated() throws Exception {
        Profile p = Fixtures.profile().include(Pattern.compile("Work"));
        String out = text(ReportFormat.FLAT, p, ReportOptions.DEFAULT);
        assertTrue(out.contains("filters:  include /Work/: 80 of 100 samples kept; percentages are of the 80"), out);
        assertTrue(out.contains("Top methods by self time (percent of the 80 samples kept):"), out);
        Recording r = new Recording("d.jfr", "jfr", Map.of("e", Fixtures.profile().samples()), null, null,
                new Damage(1234, "the file ends inside chunk 2"));
        String damaged = text(ReportFormat.TREE, r.profile(List.of("e")), ReportOptions.DEFAULT);
        assertTrue(damaged.contains("DAMAGED:  damaged at byte 1234: the file ends inside chunk 2;"), damaged);
    }

    @Test
    void htmlIsTheViewerTemplateWithTheMarkerReplaced() throws Exception {
        String tpl = FlameGraphWriter.template();
        Path viewer = Path.of(System.getProperty("user.dir")).resolve("../../viewer/flamegraph.html").normalize();
        if (Files.isRegularFile(viewer)) {
            assertEquals(Files.readString(viewer), tpl, "the packaged template must be viewer/flamegraph.html as is");
        }
        List<Sample> s = new ArrayList<>(Fixtures.profile().samples());
        s.add(new Sample(Fixtures.T0, null, "test.Sample",
                List.of(Frame.parse("a.B.<init>"), Frame.parse("x</script><script>alert(1)")), 1));
        Profile p = Profile.of("t.jfr", s);
        String page = text(ReportFormat.HTML, p, ReportOptions.DEFAULT.withTitle("T <b>"));
        int at = tpl.indexOf(FlameGraphWriter.MARKER);
        String prefix = tpl.substring(0, at);
        String suffix = tpl.substring(at + FlameGraphWriter.MARKER.length());
        assertTrue(page.startsWith(prefix) && page.endsWith(suffix), "not the template with the marker replaced");
        String data = page.substring(prefix.length(), page.length() - suffix.length());
        assertFalse(data.contains("<"), "every '<' in the data must be escaped: " + data);
        JsonNode node = JSON.readTree(data);
        assertEquals("T <b>", node.path("title").asText());
        assertEquals(101, node.path("root").path("v").asLong());
        assertEquals("all", node.path("root").path("n").asText());
        assertEquals("r", node.path("root").path("k").asText());
        assertTrue(data.contains("\"n\":\"[gc_active]\",\"v\":5,\"k\":\"f\""), data);
        assertTrue(data.contains("\"n\":\"a.B.\\u003cinit>\""), data);
    }

    @Test
    void jsonHasTheTreeAndTheContext() throws Exception {
        Profile p = Fixtures.profile().exclude(Pattern.compile("gc_active"));
        JsonNode n = JSON.readTree(text(ReportFormat.JSON, p, ReportOptions.DEFAULT.withThreads(true)));
        assertEquals(95, n.path("total").asLong());
        assertEquals(100, n.path("unfilteredTotal").asLong());
        assertEquals("test.jfr", n.path("source").asText());
        assertEquals("test.Sample", n.path("events").get(0).asText());
        assertEquals("exclude /gc_active/", n.path("filters").get(0).asText());
        assertTrue(n.path("damage").isNull());
        assertTrue(n.path("view").path("threads").asBoolean());
        JsonNode worker = null;
        for (JsonNode c : n.path("root").path("c")) {
            if (c.path("n").asText().equals("[worker tid=102]")) {
                worker = c;
            }
        }
        assertEquals(85, worker.path("v").asLong());
        assertEquals("t", worker.path("k").asText());
    }

    // ---- pprof -------------------------------------------------------------------------

    /** A decoded protobuf message: field number → values (Long for varints, byte[] for LEN). */
    static Map<Integer, List<Object>> decode(byte[] b) {
        Map<Integer, List<Object>> m = new HashMap<>();
        int[] pos = {0};
        while (pos[0] < b.length) {
            long tag = varint(b, pos);
            int field = (int) (tag >>> 3);
            int wire = (int) (tag & 7);
            Object v;
            if (wire == 0) {
                v = varint(b, pos);
            } else if (wire == 2) {
                int len = (int) varint(b, pos);
                byte[] x = new byte[len];
                System.arraycopy(b, pos[0], x, 0, len);
                pos[0] += len;
                v = x;
            } else {
                throw new AssertionError("unexpected wire type " + wire);
            }
            m.computeIfAbsent(field, k -> new ArrayList<>()).add(v);
        }
        return m;
    }

    static long varint(byte[] b, int[] pos) {
        long v = 0;
        for (int shift = 0; ; shift += 7) {
            int x = b[pos[0]++] & 0xff;
            v |= (long) (x & 0x7f) << shift;
            if (x < 0x80) {
                return v;
            }
        }
    }

    static List<Long> packed(Object o) {
        List<Long> out = new ArrayList<>();
        if (o instanceof Long l) {
            out.add(l);
            return out;
        }
        byte[] b = (byte[]) o;
        int[] pos = {0};
        while (pos[0] < b.length) {
            out.add(varint(b, pos));
        }
        return out;
    }

    static long num(Map<Integer, List<Object>> m, int field) {
        return m.containsKey(field) ? (Long) m.get(field).get(0) : 0;
    }

    @Test
    void protobufVarints() {
        assertEquals("01", hex(new Protobuf().varint(1).toByteArray()));
        assertEquals("ac02", hex(new Protobuf().varint(300).toByteArray()));
        assertEquals("ffffffffffffffffff01", hex(new Protobuf().varint(-1).toByteArray()));
        assertEquals("", hex(new Protobuf().int64(3, 0).toByteArray()));
        assertEquals("1896 01", hex(new Protobuf().int64(3, 150).toByteArray()).replaceFirst("^1896", "1896 "));
        assertEquals("0a03616263", hex(new Protobuf().string(1, "abc").toByteArray()));
        assertEquals("1203010203", hex(new Protobuf().packed(2, new long[] {1, 2, 3}, 3).toByteArray()));
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(String.format("%02x", x & 0xff));
        }
        return sb.toString();
    }

    /** Sample value per value of a pprof string label ("none" for samples without it), decoding the gzipped profile. */
    static Map<String, Long> pprofByLabel(byte[] gzipped, String key) throws Exception {
        byte[] raw;
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzipped))) {
            raw = in.readAllBytes();
        }
        Map<Integer, List<Object>> prof = decode(raw);
        List<String> strings = new ArrayList<>();
        for (Object o : prof.get(6)) {
            strings.add(new String((byte[]) o, StandardCharsets.UTF_8));
        }
        Map<String, Long> out = new HashMap<>();
        for (Object o : prof.get(2)) {
            Map<Integer, List<Object>> s = decode((byte[]) o);
            long value = packed(s.get(2).get(0)).get(0);
            String v = "none";
            for (Object lo : s.getOrDefault(3, List.of())) {
                Map<Integer, List<Object>> label = decode((byte[]) lo);
                if (strings.get((int) num(label, 1)).equals(key)) {
                    assertEquals("none", v, "one " + key + " label per sample");
                    v = strings.get((int) num(label, 2));
                }
            }
            out.merge(v, value, Long::sum);
        }
        return out;
    }

    @Test
    void pprofWritesSampleLabelsAsStringLabels() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ReportFormat.PPROF.write(Fixtures.labeledProfile(), ReportOptions.DEFAULT, out);
        assertEquals(Map.of("/users", 55L, "/orders", 30L, "none", 15L), pprofByLabel(out.toByteArray(), "endpoint"));
        assertEquals(Map.of("t1", 50L, "none", 50L), pprofByLabel(out.toByteArray(), "trace_id"));
        assertEquals(Map.of("worker", 85L, "main", 15L), pprofByLabel(out.toByteArray(), "thread"));
    }

    @Test
    void pprofEncodesSamplesLocationsFunctionsAndStrings() throws Exception {
        Profile p = Fixtures.profile();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ReportFormat.PPROF.write(p, ReportOptions.DEFAULT, out);
        byte[] raw;
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(out.toByteArray()))) {
            raw = in.readAllBytes();
        }
        Map<Integer, List<Object>> prof = decode(raw);
        List<String> strings = new ArrayList<>();
        for (Object o : prof.get(6)) {
            strings.add(new String((byte[]) o, StandardCharsets.UTF_8));
        }
        assertEquals("", strings.get(0));
        Map<Integer, List<Object>> sampleType = decode((byte[]) prof.get(1).get(0));
        assertEquals("samples", strings.get((int) num(sampleType, 1)));
        assertEquals("count", strings.get((int) num(sampleType, 2)));
        Map<Long, String> functionName = new HashMap<>();
        for (Object o : prof.get(5)) {
            Map<Integer, List<Object>> f = decode((byte[]) o);
            functionName.put(num(f, 1), strings.get((int) num(f, 2)));
        }
        Map<Long, String> locationName = new HashMap<>();
        Map<Long, Long> locationLine = new HashMap<>();
        for (Object o : prof.get(4)) {
            Map<Integer, List<Object>> l = decode((byte[]) o);
            Map<Integer, List<Object>> line = decode((byte[]) l.get(4).get(0));
            locationName.put(num(l, 1), functionName.get(num(line, 1)));
            locationLine.put(num(l, 1), num(line, 2));
            assertEquals(1, num(l, 2), "mapping id");
        }
        // per function: self = value of samples whose first (leaf) location is it
        Map<String, Long> self = new HashMap<>();
        long total = 0;
        boolean sawThreadLabel = false;
        for (Object o : prof.get(2)) {
            Map<Integer, List<Object>> s = decode((byte[]) o);
            List<Long> locs = packed(s.get(1).get(0));
            long value = packed(s.get(2).get(0)).get(0);
            total += value;
            self.merge(locationName.get(locs.get(0)), value, Long::sum);
            for (Object lo : s.getOrDefault(3, List.of())) {
                Map<Integer, List<Object>> label = decode((byte[]) lo);
                if (strings.get((int) num(label, 1)).equals("thread")) {
                    sawThreadLabel |= strings.get((int) num(label, 2)).equals("worker");
                }
            }
        }
        assertEquals(100, total);
        assertEquals(60L, self.get("a.Work.hot"));
        assertEquals(20L, self.get("a.Work.cold"));
        assertEquals(5L, self.get("[gc_active]"));
        assertTrue(sawThreadLabel);
        assertTrue(locationLine.containsValue(12L) && locationLine.containsValue(13L), locationLine.toString());
        assertTrue(num(prof, 9) > 0 || p.start().isEmpty());
    }
}

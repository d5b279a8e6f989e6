package dev.candor.model;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Mapping;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Stack;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The OTLP output, written and read back with the official opentelemetry-proto classes
 * ({@code ExportProfilesServiceRequest.parseFrom}): totals per method, tables, attributes.
 */
class OtlpWriterTest {

    /** A message read back, with its indices resolved. */
    record Read(ExportProfilesServiceRequest request) {
        static Read of(byte[] bytes) throws Exception {
            return new Read(ExportProfilesServiceRequest.parseFrom(bytes));
        }

        ProfilesDictionary dict() {
            return request.getDictionary();
        }

        io.opentelemetry.proto.profiles.v1development.Profile profile() {
            assertEquals(1, request.getResourceProfilesCount());
            assertEquals(1, request.getResourceProfiles(0).getScopeProfilesCount());
            assertEquals(1, request.getResourceProfiles(0).getScopeProfiles(0).getProfilesCount());
            return request.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0);
        }

        List<io.opentelemetry.proto.profiles.v1development.Sample> samples() {
            return profile().getSamplesList();
        }

        String string(int i) {
            return dict().getStringTable(i);
        }

        /** The function name of a location (its one line). */
        String name(int location) {
            Location l = dict().getLocationTable(location);
            assertEquals(1, l.getLinesCount(), l.toString());
            return string(dict().getFunctionTable(l.getLines(0).getFunctionIndex()).getNameStrindex());
        }

        /** Location indices of a sample's stack, leaf first. */
        List<Integer> stack(io.opentelemetry.proto.profiles.v1development.Sample s) {
            return dict().getStackTable(s.getStackIndex()).getLocationIndicesList();
        }

        /** Function names of a sample's stack, leaf first. */
        List<String> names(io.opentelemetry.proto.profiles.v1development.Sample s) {
            return stack(s).stream().map(this::name).toList();
        }

        /** Attributes by key: String, Long or Boolean. */
        Map<String, Object> attributes(List<Integer> indices) {
            Map<String, Object> out = new HashMap<>();
            for (int i : indices) {
                KeyValueAndUnit kv = dict().getAttributeTable(i);
                AnyValue v = kv.getValue();
                Object value = v.hasStringValue() ? v.getStringValue() : v.hasIntValue() ? (Object) v.getIntValue()
                        : v.hasBoolValue() ? (Object) v.getBoolValue() : v;
                assertNull(out.put(string(kv.getKeyStrindex()), value), "a key twice in " + indices);
            }
            return out;
        }

        static long value(io.opentelemetry.proto.profiles.v1development.Sample s) {
            return s.getValuesList().stream().mapToLong(Long::longValue).sum();
        }

        long total() {
            return samples().stream().mapToLong(Read::value).sum();
        }

        /** Self value per function name: the leaf's. */
        Map<String, Long> self() {
            Map<String, Long> m = new HashMap<>();
            for (var s : samples()) {
                m.merge(names(s).get(0), value(s), Long::sum);
            }
            return m;
        }

        /** Total value per function name: each name counted once per sample. */
        Map<String, Long> inclusive() {
            Map<String, Long> m = new HashMap<>();
            for (var s : samples()) {
                for (String n : new LinkedHashSet<>(names(s))) {
                    m.merge(n, value(s), Long::sum);
                }
            }
            return m;
        }

        /** Sum of values per value of a sample attribute (null key: samples without it). */
        Map<Object, Long> byAttribute(String key) {
            Map<Object, Long> m = new HashMap<>();
            for (var s : samples()) {
                Object v = attributes(s.getAttributeIndicesList()).get(key);
                m.merge(v == null ? "none" : v, value(s), Long::sum);
            }
            return m;
        }
    }

    private static Read write(Profile p, ReportOptions o) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ReportFormat.OTLP.write(p, o, out);  // as `candor report` does
        byte[] viaFormat = out.toByteArray();
        assertTrue(viaFormat.length > 0);
        Read.of(viaFormat);
        return Read.of(OtlpWriter.request(p, o, "shop").toByteArray());
    }

    @Test
    void totalsPerMethodSurviveTheRoundTrip() throws Exception {
        Profile p = Fixtures.profile();
        Read r = write(p, ReportOptions.DEFAULT);
        var prof = r.profile();
        assertEquals("samples", r.string(prof.getSampleType().getTypeStrindex()));
        assertEquals("count", r.string(prof.getSampleType().getUnitStrindex()));
        assertEquals(100, r.total());
        Map<String, Long> self = r.self();
        assertEquals(60L, self.get("a.Work.hot"));
        assertEquals(20L, self.get("a.Work.cold"));
        assertEquals(10L, self.get("a.Main.setup"));
        assertEquals(5L, self.get("[gc_active]"));
        assertEquals(5L, self.get("[dropped]"));
        Map<String, Long> total = r.inclusive();
        assertEquals(80L, total.get("a.Work.run"));
        assertEquals(80L, total.get("java.lang.Thread.run"));
        assertEquals(10L, total.get("a.Main.main"));
        // the leaf of a.Main.main;a.Main.setup is setup; main is its caller, last in the stack
        var setup = r.samples().stream().filter(s -> r.names(s).get(0).equals("a.Main.setup")).findFirst()
                .orElseThrow();
        assertEquals(List.of("a.Main.setup", "a.Main.main"), r.names(setup));
        // lines live on locations: a.Work.cold at 12 and 13, one function
        Set<Long> coldLines = new HashSet<>();
        Set<Integer> coldFunctions = new HashSet<>();
        for (Location l : r.dict().getLocationTableList()) {
            if (l.getLinesCount() == 1 && r.string(r.dict().getFunctionTable(l.getLines(0).getFunctionIndex())
                    .getNameStrindex()).equals("a.Work.cold")) {
                coldLines.add(l.getLines(0).getLine());
                coldFunctions.add(l.getLines(0).getFunctionIndex());
            }
        }
        assertEquals(Set.of(12L, 13L), coldLines);
        assertEquals(1, coldFunctions.size());
    }

    @Test
    void dictionaryTablesStartWithTheirZeroValueAndHaveNoDuplicates() throws Exception {
        Read r = write(Fixtures.profile(), ReportOptions.DEFAULT);
        ProfilesDictionary d = r.dict();
        assertEquals("", d.getStringTable(0));
        assertEquals(Mapping.getDefaultInstance(), d.getMappingTable(0));
        assertEquals(Location.getDefaultInstance(), d.getLocationTable(0));
        assertEquals(Function.getDefaultInstance(), d.getFunctionTable(0));
        assertEquals(Stack.getDefaultInstance(), d.getStackTable(0));
        assertEquals(KeyValueAndUnit.getDefaultInstance(), d.getAttributeTable(0));
        assertEquals(16, d.getLinkTable(0).getTraceId().size());
        assertEquals(8, d.getLinkTable(0).getSpanId().size());
        assertEquals(d.getStringTableCount(), new HashSet<>(d.getStringTableList()).size(), "duplicate strings");
        assertEquals(d.getFunctionTableCount(), new HashSet<>(d.getFunctionTableList()).size());
        assertEquals(d.getLocationTableCount(), new HashSet<>(d.getLocationTableList()).size());
        assertEquals(d.getStackTableCount(), new HashSet<>(d.getStackTableList()).size());
        assertEquals(d.getAttributeTableCount(), new HashSet<>(d.getAttributeTableList()).size());
        // names and keys are in the string table; attribute values are inline (AnyValue)
        for (String s : List.of("a.Work.hot", "[gc_active]", "thread.name", "samples", "count",
                "profile.frame.type", "candor.failure")) {
            assertTrue(d.getStringTableList().contains(s), s + " not in " + d.getStringTableList());
        }
        assertTrue(d.getAttributeTableList().stream().anyMatch(a -> r.string(a.getKeyStrindex()).equals("thread.name")
                && a.getValue().getStringValue().equals("worker")), d.getAttributeTableList().toString());
        // the system name carries the descriptor when there is one; here (collapsed-like frames) it is the name
        for (Function f : d.getFunctionTableList().subList(1, d.getFunctionTableCount())) {
            assertFalse(r.string(f.getNameStrindex()).isEmpty(), f.toString());
        }
    }

    @Test
    void everyIndexPointsIntoItsTable() throws Exception {
        for (Profile p : List.of(Fixtures.profile(), Fixtures.profile().include(java.util.regex.Pattern.compile("x^")))) {
            Read r = write(p, ReportOptions.DEFAULT.withThreads(true));
            ProfilesDictionary d = r.dict();
            var prof = r.profile();
            inRange(prof.getSampleType().getTypeStrindex(), d.getStringTableCount());
            inRange(prof.getSampleType().getUnitStrindex(), d.getStringTableCount());
            prof.getAttributeIndicesList().forEach(i -> inRange(i, d.getAttributeTableCount()));
            for (var s : prof.getSamplesList()) {
                inRange(s.getStackIndex(), d.getStackTableCount());
                assertTrue(s.getStackIndex() > 0, "a sample has a stack");
                s.getAttributeIndicesList().forEach(i -> inRange(i, d.getAttributeTableCount()));
                assertEquals(0, s.getLinkIndex());
            }
            for (Stack st : d.getStackTableList()) {
                st.getLocationIndicesList().forEach(i -> inRange(i, d.getLocationTableCount()));
            }
            for (Location l : d.getLocationTableList()) {
                l.getLinesList().forEach(line -> inRange(line.getFunctionIndex(), d.getFunctionTableCount()));
                l.getAttributeIndicesList().forEach(i -> inRange(i, d.getAttributeTableCount()));
                assertEquals(0, l.getMappingIndex());
            }
            for (Function f : d.getFunctionTableList()) {
                inRange(f.getNameStrindex(), d.getStringTableCount());
                inRange(f.getSystemNameStrindex(), d.getStringTableCount());
            }
            d.getAttributeTableList().forEach(a -> inRange(a.getKeyStrindex(), d.getStringTableCount()));
        }
    }

    private static void inRange(int index, int size) {
        assertTrue(index >= 0 && index < size, index + " not in a table of " + size);
    }

    @Test
    void resourceScopeAndProfileAttributes() throws Exception {
        Read r = write(Fixtures.profile(), ReportOptions.DEFAULT);
        var resource = r.request().getResourceProfiles(0).getResource();
        assertEquals(List.of(KeyValue.newBuilder().setKey("service.name")
                .setValue(AnyValue.newBuilder().setStringValue("shop")).build()), resource.getAttributesList());
        assertEquals("candor", r.request().getResourceProfiles(0).getScopeProfiles(0).getScope().getName());
        Map<String, Object> attrs = r.attributes(r.profile().getAttributeIndicesList());
        assertEquals("test.Sample", attrs.get("candor.events"));
        assertFalse(attrs.containsKey("candor.damage"));
        String unknown = OtlpWriter.request(Fixtures.profile(), ReportOptions.DEFAULT, " ").getResourceProfiles(0)
                .getResource().getAttributes(0).getValue().getStringValue();
        assertEquals("unknown_service:java", unknown);
    }

    @Test
    void threadsAndFailuresAreSampleAttributes() throws Exception {
        Read r = write(Fixtures.profile(), ReportOptions.DEFAULT);
        assertEquals(Map.of("main", 10L, "worker", 90L), r.byAttribute("thread.name"));
        assertEquals(Map.of(1L, 10L, 2L, 90L), r.byAttribute("thread.id"), "the Java thread ids");
        assertEquals(Map.of(101L, 10L, 102L, 90L), r.byAttribute("candor.tid"), "the OS thread ids");
        // candor's agent writes its tid as the Java id too: that is no Java id
        Sample agents = new Sample(Sample.NO_TIME, new SampledThread("w", 77, 77), "e", List.of(Frame.parse("a.b")), 1);
        Read a = write(Profile.of("a.jfr", List.of(agents)), ReportOptions.DEFAULT);
        assertEquals(Map.of("none", 1L), a.byAttribute("thread.id"));
        assertEquals(Map.of(77L, 1L), a.byAttribute("candor.tid"));
        // a failure bucket keeps its pseudo-frame and says so in an attribute
        assertEquals(Map.of("none", 90L, "gc_active", 5L, "dropped", 5L), r.byAttribute("candor.failure"));
        for (var s : r.samples()) {
            Object failure = r.attributes(s.getAttributeIndicesList()).get("candor.failure");
            if (failure != null) {
                assertEquals(List.of("[" + failure + "]"), r.names(s));
            }
        }
        assertEquals(Map.of("none", 100L), r.byAttribute("candor.truncated"));
    }

    @Test
    void sampleLabelsAreStringAttributes() throws Exception {
        Read r = write(Fixtures.labeledProfile(), ReportOptions.DEFAULT);
        assertEquals(100, r.total());
        assertEquals(Map.of("/users", 55L, "/orders", 30L, "none", 15L), r.byAttribute("endpoint"));
        assertEquals(Map.of("t1", 50L, "none", 50L), r.byAttribute("trace_id"));
        // beside the thread's and the failure's attributes, not instead of them
        assertEquals(Map.of("worker", 85L, "main", 15L), r.byAttribute(OtlpWriter.THREAD_NAME));
        assertEquals(5L, r.byAttribute(OtlpWriter.FAILURE).get("gc_active"));
        // samples of one stack and thread but other labels stay apart
        long hotSamples = r.samples().stream().filter(s -> r.names(s).get(0).equals("a.Work.hot")).count();
        assertEquals(2, hotSamples);
        for (var s : r.samples()) {
            for (int i : s.getAttributeIndicesList()) {
                KeyValueAndUnit kv = r.dict().getAttributeTable(i);
                if (r.string(kv.getKeyStrindex()).equals("endpoint")) {
                    assertTrue(kv.getValue().hasStringValue(), kv.toString());
                }
            }
        }
    }

    @Test
    void frameTypesAreLocationAttributes() throws Exception {
        List<Sample> s = List.of(
                new Sample(Sample.NO_TIME, Fixtures.WORKER, "e", List.of(Frame.pseudo("truncated"),
                        Frame.of("a.Io", "write", "([B)V", 7, 3, Frame.Type.JIT_COMPILED),
                        Frame.of("java.io.FileOutputStream", "writeBytes", "", 0, -1, Frame.Type.NATIVE),
                        Frame.of("libc.so.6", "write", "()V", 0, -1, Frame.Type.NATIVE),
                        Frame.parse("ksys_write_[k]")), 3),
                new Sample(Sample.NO_TIME, null, "e", List.of(Frame.pseudo("cpu"), Frame.pseudo("unknown_java")), 2));
        Read r = write(Profile.of("x.collapsed", s), ReportOptions.DEFAULT);
        Map<String, Object> types = new HashMap<>();
        Map<String, Object> kinds = new HashMap<>();
        for (Location l : r.dict().getLocationTableList().subList(1, r.dict().getLocationTableCount())) {
            int fn = l.getLines(0).getFunctionIndex();
            String name = r.string(r.dict().getFunctionTable(fn).getNameStrindex());
            Map<String, Object> a = r.attributes(l.getAttributeIndicesList());
            types.put(name, a.get("profile.frame.type"));
            kinds.put(name, a.get("candor.frame.kind"));
            if (name.equals("write")) {
                assertEquals("write", r.string(r.dict().getFunctionTable(fn).getSystemNameStrindex()),
                        "a C symbol has no descriptor, whatever the JFR writer put there");
            }
            if (name.equals("a.Io.write")) {
                assertEquals("a.Io.write([B)V", r.string(r.dict().getFunctionTable(fn).getSystemNameStrindex()));
                assertEquals(7, l.getLines(0).getLine());
            }
        }
        assertEquals("jvm", types.get("a.Io.write"));
        assertEquals("jvm", types.get("java.io.FileOutputStream.writeBytes"), "a Java native method is JVM code");
        assertEquals("native", types.get("write"));
        assertEquals("kernel", types.get("ksys_write"), "the attribute says kernel, the name has no _[k]");
        assertEquals("pseudo", kinds.get("[truncated]"));
        assertNull(types.get("[truncated]"));
        assertEquals(Map.of(true, 3L, "none", 2L), r.byAttribute("candor.truncated"));
        assertEquals(Map.of("unknown_java", 2L, "none", 3L), r.byAttribute("candor.failure"),
                "a bucket under a kind root is still the sample's failure");
        // without timestamps: one aggregated value per sample, and no profile time
        for (var x : r.samples()) {
            assertEquals(1, x.getValuesCount());
            assertEquals(0, x.getTimestampsUnixNanoCount());
        }
        assertEquals(0, r.profile().getTimeUnixNano());
        assertEquals(Map.of("worker", 3L, "none", 2L), r.byAttribute("thread.name"), "no thread, no attribute");
    }

    @Test
    void timestampsPairWithValuesWithinTheProfileRange() throws Exception {
        Read r = write(Fixtures.profile(), ReportOptions.DEFAULT);
        var prof = r.profile();
        long start = prof.getTimeUnixNano();
        long end = start + prof.getDurationNano();
        assertEquals(Fixtures.T0, start);
        long events = 0;
        for (var s : r.samples()) {
            assertEquals(s.getValuesCount(), s.getTimestampsUnixNanoCount());
            for (long t : s.getTimestampsUnixNanoList()) {
                assertTrue(t >= start && t < end, t + " not in [" + start + ", " + end + ")");
            }
            events += s.getValuesCount();
        }
        assertEquals(83, events, "one value per event: 1 + 60 + 20 + 1 + 1 events");
        // identical stacks of one thread are one OTLP sample: a.Work.hot's 60 events
        long hotSamples = r.samples().stream().filter(s -> r.names(s).get(0).equals("a.Work.hot")).count();
        assertEquals(1, hotSamples);
    }

    @Test
    void sampleTypeFollowsTheUnit() throws Exception {
        Sample alloc = new Sample(Sample.NO_TIME, Fixtures.MAIN, "jdk.ObjectAllocationSample",
                List.of(Frame.parse("a.Main.main"), Frame.allocated("byte[]")), 4096);
        Read a = write(Profile.of("a.jfr", List.of(alloc)), ReportOptions.DEFAULT);
        assertEquals("alloc_space", a.string(a.profile().getSampleType().getTypeStrindex()));
        assertEquals("bytes", a.string(a.profile().getSampleType().getUnitStrindex()));
        assertEquals(Map.of("byte[]", 4096L), a.self());
        int leaf = a.stack(a.samples().get(0)).get(0);
        assertEquals("class", a.attributes(a.dict().getLocationTable(leaf).getAttributeIndicesList())
                .get("candor.frame.kind"), "the allocated class is no code");

        Sample lock = new Sample(Sample.NO_TIME, Fixtures.MAIN, "jdk.JavaMonitorEnter",
                List.of(Frame.parse("a.Main.main")), 5_000_000);
        Read l = write(Profile.of("l.jfr", List.of(lock)), ReportOptions.DEFAULT);
        assertEquals("lock_time", l.string(l.profile().getSampleType().getTypeStrindex()));
        assertEquals("nanoseconds", l.string(l.profile().getSampleType().getUnitStrindex()));
        assertEquals(5_000_000, l.total());
    }

    @Test
    void threadsOptionAddsTheRootLocationAndFiltersAreNamed() throws Exception {
        Profile p = Fixtures.profile().include(java.util.regex.Pattern.compile("Work"));
        Read r = write(p, ReportOptions.DEFAULT.withThreads(true));
        assertEquals(80, r.total());
        for (var s : r.samples()) {
            List<String> names = r.names(s);
            assertEquals("[worker tid=102]", names.get(names.size() - 1));
        }
        assertEquals("include /Work/", r.attributes(r.profile().getAttributeIndicesList()).get("candor.filters"));
    }

    @Test
    void damageIsAProfileAttribute() throws Exception {
        Recording rec = new Recording("d.jfr", "jfr", Map.of("e", Fixtures.profile().samples()),
                Instant.ofEpochSecond(0, Fixtures.T0), null, new Damage(1234, "bad chunk"));
        Read r = write(rec.profile(List.of("e")), ReportOptions.DEFAULT);
        assertTrue(((String) r.attributes(r.profile().getAttributeIndicesList()).get("candor.damage"))
                .contains("1234"));
        assertEquals(100, r.total());
    }
}

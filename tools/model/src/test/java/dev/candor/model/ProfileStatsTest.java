package dev.candor.model;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProfileStatsTest {

    static final String STATS = """
            {
              "engine": "cpu",
              "signal": "SIGVTALRM",
              "interval_ns": 1000000,
              "ticks": 1010,
              "recorded": 1000,
              "dropped": 2,
              "failures": {"gc_active": 5, "unknown_java": 3},
              "threads": 2,
              "duration_ns": 2000000000,
              "process_cpu_ns": 1100000000,
              "profiled_cpu_ns": 1020000000,
              "samples_per_cpu_second": 990.2,
              "thread_kinds": {"java": 2},
              "per_thread": [
                {"tid": 101, "name": "main", "kind": "java", "cpu_ns": 20000000, "ticks": 10},
                {"tid": 102, "name": "worker", "kind": "java", "cpu_ns": 1000000000, "ticks": 1000, "recorded": 990}
              ],
              "something_new": {"nested": [1, 2, 3]}
            }
            """;

    @Test
    void readsAllFields() throws Exception {
        ProfileStats s = ProfileStats.parse(STATS);
        assertEquals("cpu", s.engine());
        assertEquals("SIGVTALRM", s.signal());
        assertEquals(1_000_000, s.intervalNs());
        assertEquals(1010, s.ticks());
        assertEquals(1000, s.recorded());
        assertEquals(2, s.dropped());
        assertEquals(5, s.failure("gc_active"));
        assertEquals(0, s.failure("deopt"));
        assertEquals(8, s.failureTotal());
        assertEquals(2, s.threads());
        assertEquals(2_000_000_000L, s.durationNs());
        assertEquals(1_100_000_000L, s.processCpuNs());
        assertEquals(1_020_000_000L, s.profiledCpuNs());
        assertEquals(990.2, s.samplesPerCpuSecond(), 1e-9);
        assertEquals(2L, s.threadKinds().get("java"));
        assertEquals(2, s.perThread().size());
        ProfileStats.ThreadStats w = s.thread("worker").orElseThrow();
        assertEquals(102, w.tid());
        assertEquals("java", w.kind());
        assertEquals(1000.0, w.samplesPerCpuSecond(), 1e-9);
        assertEquals(990, w.recorded());
        assertEquals(-1, s.thread("main").orElseThrow().recorded());
        assertEquals("main", s.thread(101).orElseThrow().name());
        assertTrue(s.thread("nobody").isEmpty());
    }

    @Test
    void identity() throws Exception {
        ProfileStats s = ProfileStats.parse(STATS);
        assertEquals(1010, s.accountedTicks());
        assertTrue(s.identityHolds());
        ProfileStats bad = ProfileStats.parse(STATS.replace("\"ticks\": 1010", "\"ticks\": 1011"));
        assertFalse(bad.identityHolds());
        assertEquals(1000.0 / 1010, s.recordedFraction(), 1e-12);
    }

    @Test
    void optionalFieldsDefault() throws Exception {
        ProfileStats s = ProfileStats.parse("""
                {"engine":"itimer","interval_ns":10000000,"ticks":0,"recorded":0,"dropped":0,"failures":{}}
                """);
        assertEquals("", s.signal());
        assertTrue(s.perThread().isEmpty());
        assertTrue(s.threadKinds().isEmpty());
        assertTrue(s.identityHolds());
        assertEquals(0.0, s.recordedFraction());
    }

    @Test
    void unexpectedThreadKindsShapeIsIgnored() throws Exception {
        ProfileStats s = ProfileStats.parse(STATS.replace("{\"java\": 2}", "[\"java\"]"));
        assertTrue(s.threadKinds().isEmpty());
    }

    @Test
    void wrongTypeNamesLineAndField() {
        String json = STATS.replace("\"recorded\": 1000", "\"recorded\": \"many\"");
        ProfileFormatException e = assertThrows(ProfileFormatException.class, () -> ProfileStats.parse(json));
        assertEquals(6, e.line(), e.getMessage());
        assertTrue(e.getMessage().startsWith("<string>:6: "), e.getMessage());
        assertTrue(e.getMessage().contains("'recorded'"), e.getMessage());
    }

    @Test
    void fractionalCountIsRejected() {
        String json = STATS.replace("\"dropped\": 2", "\"dropped\": 2.5");
        ProfileFormatException e = assertThrows(ProfileFormatException.class, () -> ProfileStats.parse(json));
        assertEquals(7, e.line(), e.getMessage());
        assertTrue(e.getMessage().contains("'dropped'"), e.getMessage());
    }

    @Test
    void wrongTypeInPerThreadNamesThePath() {
        String json = STATS.replace("\"cpu_ns\": 1000000000", "\"cpu_ns\": true");
        ProfileFormatException e = assertThrows(ProfileFormatException.class, () -> ProfileStats.parse(json));
        assertEquals(17, e.line(), e.getMessage());
        assertTrue(e.getMessage().contains("per_thread[1].cpu_ns"), e.getMessage());
    }

    @Test
    void malformedJsonNamesTheLine() {
        String json = STATS.replace("\"threads\": 2,", "\"threads\": 2");
        ProfileFormatException e = assertThrows(ProfileFormatException.class, () -> ProfileStats.parse(json));
        assertEquals(10, e.line(), e.getMessage());
        assertTrue(e.getMessage().contains("malformed JSON"), e.getMessage());
    }

    @Test
    void missingRequiredField() {
        String json = STATS.replace("\"ticks\": 1010,", "");
        ProfileFormatException e = assertThrows(ProfileFormatException.class, () -> ProfileStats.parse(json));
        assertTrue(e.getMessage().contains("missing required field 'ticks'"), e.getMessage());
        String noFailures = STATS.replace("\"failures\": {\"gc_active\": 5, \"unknown_java\": 3},", "");
        assertTrue(assertThrows(ProfileFormatException.class, () -> ProfileStats.parse(noFailures))
                .getMessage().contains("'failures'"));
    }

    @Test
    void notAnObject() {
        assertThrows(ProfileFormatException.class, () -> ProfileStats.parse("[1,2]"));
        assertThrows(ProfileFormatException.class, () -> ProfileStats.parse(""));
        assertThrows(ProfileFormatException.class, () -> ProfileStats.parse(STATS + " {}"));
    }

    @Test
    void readsFile(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("s.json");
        Files.writeString(f, STATS);
        assertEquals(1010, ProfileStats.read(f).ticks());
        Files.writeString(f, "{\n\"engine\": cpu\n}");
        ProfileFormatException e = assertThrows(ProfileFormatException.class, () -> ProfileStats.read(f));
        assertTrue(e.getMessage().startsWith(f + ":2: "), e.getMessage());
    }
}

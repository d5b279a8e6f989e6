package dev.candor.model;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The JFR reader gives samples the labels of candor's {@code labels} field ({@link CandorJfrWriter}). */
class JfrLabelsTest {
    @TempDir
    Path dir;

    static final Map<String, String> USERS = Map.of("endpoint", "/users", "trace_id", "abc");

    static byte[] recording() {
        return CandorJfrWriter.example();
    }

    @Test
    void samplesCarryTheirLabels() throws Exception {
        Path f = Files.write(dir.resolve("labels.jfr"), recording());
        Recording r = ProfileReader.read(f);
        assertTrue(r.damage().isEmpty(), r.damage().toString());
        Profile cpu = r.profile(List.of("jdk.ExecutionSample"));
        assertEquals(12, cpu.total());  // 11 samples and the failed tick
        Map<String, Long> byEndpoint = new java.util.TreeMap<>();
        for (Sample s : cpu.samples()) {
            byEndpoint.merge(s.labels().getOrDefault("endpoint", "-") + " " + s.leaf().name(), s.weight(), Long::sum);
        }
        assertEquals(Map.of("/users a.Web.users", 6L, "/orders a.Web.orders", 3L, "- a.Main.main", 2L,
                "/users [gc_active]", 1L), byEndpoint);
        Sample users = cpu.samples().get(0);
        assertEquals("worker-1", users.thread().name());
        assertEquals(List.of("endpoint", "trace_id"), List.copyOf(users.labels().keySet()));
        assertEquals(USERS, users.labels());
        // one map per label set, shared by its samples
        assertSame(users.labels(), cpu.samples().get(5).labels());
        assertTrue(cpu.hasLabels());
        assertEquals(Map.of("endpoint", new java.util.TreeSet<>(List.of("/orders", "/users")),
                "trace_id", new java.util.TreeSet<>(List.of("abc"))), cpu.labelValues());
        // an event type without the field: no labels
        Profile wall = r.profile(List.of("candor.WallClockSample"));
        assertEquals(4, wall.total());
        assertFalse(wall.hasLabels());
    }

    @Test
    void labelTextSplitsBackWithItsEscapes() {
        assertEquals(Map.of("q", "a=b,c%", "k", "v"), JfrEvents.parseLabels("k=v,q=a%3Db%2Cc%25"));
        assertEquals(Map.of("q", "%2C"), JfrEvents.parseLabels(CandorJfrWriter.labelText(Map.of("q", "%2C"))));
        assertTrue(JfrEvents.parseLabels("").isEmpty());
    }

    @Test
    void labelFilterAndSplit() throws Exception {
        Profile cpu = ProfileReader.read(Files.write(dir.resolve("l.jfr"), recording()))
                .profile(List.of("jdk.ExecutionSample"));
        Profile users = cpu.withLabels(Map.of("endpoint", "/users"));
        assertEquals(7, users.total());
        assertEquals(List.of("label endpoint=/users"), users.filters());
        assertEquals(7, cpu.withLabels(Map.of("endpoint", "/users", "trace_id", "abc")).total());
        assertEquals(0, cpu.withLabels(Map.of("endpoint", "/orders", "trace_id", "abc")).total());
        assertSame(cpu, cpu.withLabels(Map.of()));

        CollapsedProfile split = cpu.splitByLabels(List.of("endpoint")).toCollapsed(true, false, false);
        assertEquals(6, split.count(s -> s.frames().equals(List.of("[worker-1 tid=100]", "[endpoint=/users]",
                "java.lang.Thread.run", "a.Web.users"))), split.toString());
        assertEquals(2, split.count(s -> s.frames().get(1).equals("[endpoint=(none)]")), split.toString());
        assertEquals(1, split.failures(), split.toString());
        assertEquals(12, split.total());
        CollapsedProfile two = cpu.splitByLabels(List.of("trace_id", "endpoint")).toCollapsed(false, false, false);
        assertEquals(7, two.count(s -> s.frames().subList(0, 2).equals(List.of("[trace_id=abc]", "[endpoint=/users]"))),
                two.toString());
        assertEquals(3, two.count(s -> s.frames().subList(0, 2).equals(List.of("[trace_id=(none)]", "[endpoint=/orders]"))),
                two.toString());
    }
}

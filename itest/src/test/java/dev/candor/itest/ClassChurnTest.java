package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.candor.itest.workload.ClassChurn;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bounded memory under class churn ({@link ClassChurn}: a fresh copy of a class every 5 ms,
 * unloaded by a full GC every second) with loop=: the names the agent keeps follow the code that
 * runs, not every method the JVM ever ran. Each interval's stats say how many methods the agent
 * holds names for; over 12 intervals of ~200 new methods each, that count must stay flat.
 */
class ClassChurnTest {

    @Test
    void namesDoNotGrowWithTheRun() throws Exception {
        Jdks.Jdk jdk = Targets.client();
        String name = "class churn " + jdk;
        Path dir = Build.runDir("class-churn-" + jdk.label());
        Path stats = dir.resolve("churn.json");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=cpu,interval=1ms,loop=2s,file=" + dir.resolve("churn.jfr") + ",stats=" + stats)
                .main(ClassChurn.class, "26")
                .run(Duration.ofSeconds(120));
        assertEquals(0, run.exitCode(), run.describe());
        List<Path> intervals = Profiles.rotatedStems(dir, "churn", "json").stream()
                .map(s -> dir.resolve(s + ".json")).toList();
        assertTrue(intervals.size() >= 10, name + ": rotated stats " + intervals);
        ObjectMapper json = new ObjectMapper();
        List<Long> methods = new ArrayList<>();
        List<Long> poolEntries = new ArrayList<>();
        for (Path p : intervals) {
            JsonNode memory = json.readTree(p.toFile()).path("memory");
            methods.add(memory.path("methods").asLong(-1));
            poolEntries.add(memory.path("jfr_pool_entries").asLong(-1));
        }
        String copies = run.stdout().lines().filter(l -> l.startsWith("copies ")).findFirst().orElse("copies ?");
        Figures.line(String.format("%s: %s loaded; methods named per interval %s; JFR pool entries %s", name, copies,
                methods, poolEntries));
        // Medians of three intervals early (after warm-up) and of the last three: a single interval can spike
        // (a full GC's unloading and the next copies' loading land in one rotation; the final file holds the
        // shutdown), while a map that never forgets grows in every interval, to ~4x by the end.
        long early = median(methods.subList(1, 4));
        long late = median(methods.subList(methods.size() - 3, methods.size()));
        assertTrue(early > 50, name + ": too few methods named early on: " + methods);
        assertTrue(late < 2 * early, name + ": the names grow with the run: " + methods);
        long poolsEarly = median(poolEntries.subList(1, 4));
        long poolsLate = median(poolEntries.subList(poolEntries.size() - 3, poolEntries.size()));
        assertTrue(poolsLate < 2 * poolsEarly, name + ": the JFR pools grow with the run: " + poolEntries);
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}

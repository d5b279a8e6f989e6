package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.candor.itest.workload.ClassChurn;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

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
        List<Path> intervals;
        try (Stream<Path> files = Files.list(dir)) {
            intervals = files.filter(p -> p.getFileName().toString().matches("churn-\\d{8}-\\d{6}(-\\d+)?\\.json"))
                    .sorted().toList();
        }
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
        long early = methods.get(2);
        long late = methods.get(methods.size() - 1);
        assertTrue(early > 50, name + ": too few methods named early on: " + methods);
        // without forgetting, the count grows by ~400 copies' methods every interval: 4x by the end
        assertTrue(late < 2 * early, name + ": the names grow with the run: " + methods);
        long poolsEarly = poolEntries.get(2);
        assertTrue(poolEntries.get(poolEntries.size() - 1) < 2 * poolsEarly,
                name + ": the JFR pools grow with the run: " + poolEntries);
    }
}

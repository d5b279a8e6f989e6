package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.candor.itest.workload.Hot;
import dev.candor.itest.workload.KnownAnswer;
import dev.candor.itest.workload.WallStates;
import dev.candor.model.CollapsedProfile;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code loop=1s} with every kind of output (.html, .collapsed, .jfr, stats .json): each second
 * the agent writes the interval's files as x-YYYYmmdd-HHMMSS.ext and starts the next interval from
 * an empty trace store; the last interval keeps the names given. Every interval's files agree
 * (collapsed = stats ticks = JFR samples), each interval's ticks add up, its rate is of its own
 * CPU time, and the intervals together hold the known answer's split.
 */
class LoopOutputsTest {

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void everyOutputRotatesPerInterval(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "loop " + jdk;
        Path dir = Build.runDir("loop-" + jdk.label());
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=cpu,interval=1ms,loop=1s,file=" + dir.resolve("x.html") + ",file="
                        + dir.resolve("x.collapsed") + ",file=" + dir.resolve("x.jfr") + ",stats=" + dir.resolve("x.json"))
                .main(KnownAnswer.class, dir.resolve("truth.properties").toString(), "2500", "1000")
                .run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());
        // x-20261126-101500, ..., then x (the last interval)
        List<String> stems = new ArrayList<>(Profiles.rotatedStems(dir, "x", "json"));
        stems.add("x");
        ObjectMapper json = new ObjectMapper();
        long a = 0, b = 0, total = 0;
        List<String> rows = new ArrayList<>();
        for (String stem : stems) {
            JsonNode s = json.readTree(dir.resolve(stem + ".json").toFile());
            CollapsedProfile p = Profiles.collapsed(dir.resolve(stem + ".collapsed"), run);
            long ticks = s.path("ticks").asLong();
            long failed = 0;
            for (JsonNode f : s.path("failures")) {
                failed += f.asLong();
            }
            assertEquals(ticks, s.path("recorded").asLong() + failed + s.path("dropped").asLong(), name + " " + stem);
            assertEquals(ticks, p.total(), name + " " + stem + ": the collapsed file holds the interval's ticks");
            ReportTool.Ran rep = ReportTool.report(jdk, dir, dir.resolve(stem + ".jfr").toString(), "-o",
                    dir.resolve(stem + "-report.collapsed").toString());
            assertEquals(0, rep.exitCode(), rep.describe());
            assertEquals(ticks, CollapsedProfile.read(dir.resolve(stem + "-report.collapsed")).total(),
                    name + " " + stem + ": the .jfr holds the interval's ticks");
            String page = Files.readString(dir.resolve(stem + ".html"));
            assertTrue(page.contains("\"timeline\"") && !page.contains(OutputsTest.MARKER), name + " " + stem + ".html");
            rows.add(String.format("%s %d ticks %.2f s %.0f/CPU-s", stem, ticks, s.path("duration_ns").asLong() / 1e9,
                    s.path("samples_per_cpu_second").asDouble()));
            a += p.countAny(CollapsedProfile.method(Hot.METHOD_A));
            b += p.countAny(CollapsedProfile.method(Hot.METHOD_B));
            total += ticks;
        }
        Properties truth = Profiles.truth(dir.resolve("truth.properties"), run);
        double truthShare = (double) Profiles.truthLong(truth, "cpu_a_ns")
                / (Profiles.truthLong(truth, "cpu_a_ns") + Profiles.truthLong(truth, "cpu_b_ns"));
        double share = (double) a / (a + b);
        Figures.line(String.format("%s: %d intervals %s; A share over all of them %s (truth %s)", name, stems.size(), rows,
                Figures.pct(share), Figures.pct(truthShare)));
        assertTrue(stems.size() >= 4, name + ": 3.5 s of work in 1 s intervals: " + stems);
        assertEquals(truthShare, share, 0.05, name + ": the intervals together hold the known answer");
        assertTrue(total > 3000, name + ": every interval's ticks, " + total);
    }

    /**
     * {@code event=wall} with {@code loop=2s}: the wall sampler repeats an idle thread's last sample
     * without signalling it (its stack cannot have changed), for as long as the thread stays idle, so
     * across rotations too. Every interval must keep those repeats on the thread's stack, in the stats,
     * the collapsed file and the .jfr alike. Before, each interval but the first put them all into
     * {@code unknown_state}: half of WallStates' ticks, nearly all of an idle thread pool's.
     */
    @Test
    void wallRepeatsKeepTheirStacksAcrossIntervals() throws Exception {
        Jdks.Jdk jdk = Targets.client();
        String name = "loop wall " + jdk;
        Path dir = Build.runDir("loop-wall-" + jdk.label());
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=wall,threads,loop=2s,file=" + dir.resolve("w.collapsed") + ",file="
                        + dir.resolve("w.jfr") + ",stats=" + dir.resolve("w.json"))
                .main(WallStates.class, "7")
                .run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());
        List<String> stems = Profiles.rotatedStems(dir, "w", "json");
        assertTrue(stems.size() >= 3, name + ": 7 s in 2 s intervals: " + stems);
        List<String> rows = new ArrayList<>();
        for (String stem : stems) {
            ProfileStats s = Profiles.stats(dir.resolve(stem + ".json"), run);
            Profiles.assertIdentity(s, name + " " + stem);
            CollapsedProfile p = Profiles.collapsed(dir.resolve(stem + ".collapsed"), run);
            long sleeping = Profiles.threadSubtree(p, "sleeper", name + " " + stem)
                    .count(st -> st.anyFrame(f -> f.equals("java.lang.Thread.sleep")));
            ReportTool.Ran rep = ReportTool.report(jdk, dir, dir.resolve(stem + ".jfr").toString(), "-o",
                    dir.resolve(stem + "-report.collapsed").toString());
            assertEquals(0, rep.exitCode(), rep.describe());
            CollapsedProfile fromJfr = CollapsedProfile.read(dir.resolve(stem + "-report.collapsed"));
            long unknownInJfr = fromJfr.count(st -> st.anyFrame(f -> f.equals("[unknown_state]")));
            long unknown = s.failure("unknown_state");
            rows.add(String.format("%s: %d ticks, unknown_state %d (.jfr %d), sleeper in Thread.sleep %d", stem,
                    s.ticks(), unknown, unknownInJfr, sleeping));
            assertTrue(unknown <= s.ticks() / 100, name + " " + stem + ": repeats lost their stack: " + rows);
            assertEquals(unknown, unknownInJfr, name + " " + stem + ": the .jfr's unknown_state ticks: " + rows);
            assertEquals(s.ticks(), fromJfr.total(), name + " " + stem + ": the .jfr holds the interval's ticks");
            // 2 s at 20 ms, four threads of a dozen per tick: the sleeper is chosen many times
            assertTrue(sleeping >= 10, name + " " + stem + ": the sleeping thread's stack: " + rows);
        }
        Figures.line(name + ": " + rows);
    }
}

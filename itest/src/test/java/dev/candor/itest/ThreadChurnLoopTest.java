package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.candor.itest.stress.ThreadChurn;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bounded memory under thread churn with loop=: {@link ThreadChurn} starts thousands of short
 * threads a second (~6,000 here) for 9 s, profiled with {@code loop=2s}. Each interval's stats list the threads of that
 * interval (the live ones and those that ended in it), so over the run every thread is listed about
 * once. Before, the agent kept a record of every thread it ever saw and every interval listed them
 * all: the lists grew interval after interval up to pid_max (32,768 tids here, 4 million on large
 * machines), and with them the agent's memory and each report.
 */
class ThreadChurnLoopTest {
    private static final Pattern STARTED = Pattern.compile("stress threadchurn:.* threads=(\\d+)");

    @Test
    void endedThreadsLeaveTheNextIntervals() throws Exception {
        Jdks.Jdk jdk = Targets.client();
        String name = "thread churn loop " + jdk;
        Path dir = Build.runDir("thread-churn-loop-" + jdk.label());
        Path stats = dir.resolve("churn.json");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=cpu,interval=1ms,loop=2s,file=" + dir.resolve("churn.collapsed") + ",stats=" + stats)
                .main(ThreadChurn.class, "9")
                .run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());
        Matcher m = STARTED.matcher(run.stdout());
        assertTrue(m.find(), name + ": no thread count\n" + run.describe());
        long started = Long.parseLong(m.group(1));
        List<Path> intervals = Profiles.rotatedStems(dir, "churn", "json").stream()
                .map(s -> dir.resolve(s + ".json")).toList();
        assertTrue(intervals.size() >= 4, name + ": rotated stats " + intervals);
        ObjectMapper json = new ObjectMapper();
        List<Integer> listed = new ArrayList<>();
        long sum = 0;
        for (Path p : intervals) {
            Profiles.assertIdentity(Profiles.stats(p, run), name + " " + p.getFileName());
            JsonNode perThread = json.readTree(p.toFile()).path("per_thread");
            listed.add(perThread.size());
            sum += perThread.size();
        }
        Figures.line(String.format("%s: %d threads started; threads listed per interval %s (%d in all)", name, started,
                listed, sum));
        assertTrue(started >= 2000, name + ": only " + started + " threads started");
        // A thread running across a rotation is listed in both intervals; the JVM's own threads in every one.
        long bound = started + started / 10 + 50L * intervals.size();
        assertTrue(sum <= bound, name + ": intervals list " + sum + " threads for " + started + " started (bound "
                + bound + "): ended threads stay in the next intervals " + listed);
    }
}

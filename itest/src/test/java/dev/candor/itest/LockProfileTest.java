package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.candor.itest.workload.LockMix;
import dev.candor.model.CollapsedProfile;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Known answer for lock profiling ({@link LockMix}): waiters contend on a monitor and on a
 * ReentrantLock held for known times, and time every wait themselves. With {@code lock=5ms} the
 * profile is in nanoseconds waited: each lock's share within 5 points of the truth, and the
 * total within 10%; the lock's class is the innermost frame. A third monitor held well under
 * the threshold: its waits are not recorded, except the few a busy machine stretched past the
 * threshold, which the workload counts too. JFR holds jdk.JavaMonitorEnter and jdk.ThreadPark
 * events the JDK's parser reads (duration = time waited, every one at or above the threshold),
 * `candor report --event lock` reads them back to the same nanoseconds, and HotSpot's warning
 * about re-bound natives never reaches the application's stdout.
 */
class LockProfileTest {
    static final long THRESHOLD_NS = 5_000_000;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void waitSharesMatchTheTruth(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "lock " + jdk;
        Path dir = Build.runDir("lock-" + jdk.label());
        Path collapsedFile = dir.resolve("l.collapsed");
        Path jfrFile = dir.resolve("l.jfr");
        Path statsFile = dir.resolve("l.json");
        Path truthFile = dir.resolve("truth.properties");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=lock,lock=5ms,file=" + collapsedFile + ",file=" + jfrFile + ",stats=" + statsFile)
                .main(LockMix.class, truthFile.toString(), "4", String.valueOf(THRESHOLD_NS)).run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());
        assertEquals("workload done", run.stdout().strip(), name + ": nothing of candor's (or HotSpot's about it) on stdout");

        Properties truth = Profiles.truth(truthFile, run);
        long monitorNs = Profiles.truthLong(truth, "monitor_ns");
        long reentrantNs = Profiles.truthLong(truth, "reentrant_ns");
        long shortWaits = Profiles.truthLong(truth, "short_waits");
        long shortOver = Profiles.truthLong(truth, "short_over");
        double truthShare = (double) monitorNs / (monitorNs + reentrantNs);

        CollapsedProfile profile = Profiles.collapsed(collapsedFile, run);
        long inMonitor = profile.countAny(CollapsedProfile.method(LockMix.MONITOR));
        long inReentrant = profile.countAny(CollapsedProfile.method(LockMix.REENTRANT));
        double share = (double) inMonitor / Math.max(1, inMonitor + inReentrant);
        double totalRatio = (double) (inMonitor + inReentrant) / (monitorNs + reentrantNs);
        long monitorAsObject = profile.count(s -> s.frames().contains(LockMix.MONITOR) && s.leaf().equals("java.lang.Object"));
        long reentrantAsSync = profile.count(s -> s.frames().contains(LockMix.REENTRANT)
                && s.leaf().startsWith("java.util.concurrent.locks.ReentrantLock$"));

        // JFR: one event per recorded wait, each at least the threshold; short-lock events counted
        long events = 0, durations = 0, shortEvents = 0, belowThreshold = 0, parks = 0;
        try (RecordingFile rf = new RecordingFile(jfrFile)) {
            while (rf.hasMoreEvents()) {
                RecordedEvent e = rf.readEvent();
                String type = e.getEventType().getName();
                if (!type.equals("jdk.JavaMonitorEnter") && !type.equals("jdk.ThreadPark")) {
                    continue;
                }
                events++;
                long ns = e.getDuration().toNanos();
                durations += ns;
                belowThreshold += ns < THRESHOLD_NS ? 1 : 0;
                parks += type.equals("jdk.ThreadPark") ? 1 : 0;
                assertTrue(e.getThread("eventThread") != null && e.getStackTrace() != null, name + ": " + e);
                assertTrue(e.getClass(type.equals("jdk.ThreadPark") ? "parkedClass" : "monitorClass") != null, name + ": " + e);
                if (e.getStackTrace().getFrames().stream().anyMatch(f -> f.getMethod().getName().equals("enterShort"))) {
                    shortEvents++;
                }
            }
        }
        Path back = dir.resolve("report.collapsed");
        ReportTool.Ran rep = ReportTool.report(jdk, dir, jfrFile.toString(), "--event", "lock", "-o", back.toString());
        assertEquals(0, rep.exitCode(), rep.describe());
        CollapsedProfile reported = CollapsedProfile.read(back);
        Path page = dir.resolve("report.html");
        rep = ReportTool.report(jdk, dir, jfrFile.toString(), "--event", "lock", "-o", page.toString());
        assertEquals(0, rep.exitCode(), rep.describe());

        // compare and merge read lock events too, in ns (a folded file has no events to pick: the
        // recording is compared with itself, and merged with itself)
        Targets.Ran cmp = Targets.candor(Targets.client(), dir, "compare", jfrFile.toString(), jfrFile.toString(),
                "--event", "lock");
        assertEquals(0, cmp.exitCode(), cmp.describe());
        java.util.regex.Matcher overlap = java.util.regex.Pattern.compile("overlap\\(A,B\\)\\s+([0-9.]+)").matcher(cmp.stdout());
        assertTrue(overlap.find(), cmp.stdout());
        assertTrue(cmp.stdout().contains(" ns"), name + ": compare says ns\n" + cmp.stdout());
        Path merged = dir.resolve("merged.collapsed");
        Targets.Ran merge = Targets.candor(Targets.client(), dir, "merge", jfrFile.toString(), jfrFile.toString(),
                "--event", "lock", "-o", merged.toString());
        assertEquals(0, merge.exitCode(), merge.describe());
        double mergedMonitor = (double) CollapsedProfile.read(merged).countAny(CollapsedProfile.method(LockMix.MONITOR))
                / CollapsedProfile.read(merged).total();

        JsonNode stats = new ObjectMapper().readTree(statsFile.toFile());
        JsonNode kind = stats.path("kinds").path("lock");
        long samples = kind.path("ticks").asLong();
        Figures.line(String.format("%s: monitor share truth %s, profile %s (%+.1f points); %.3f s waited of %.3f s true"
                        + " (%.3f); %d samples (%d parks); short lock: %d waits recorded of %d (%d reached the threshold)",
                name, Figures.pct(truthShare), Figures.pct(share), 100 * (share - truthShare),
                (inMonitor + inReentrant) / 1e9, (monitorNs + reentrantNs) / 1e9, totalRatio, samples, parks, shortEvents,
                shortWaits, shortOver));
        assertEquals(truthShare, share, 0.05, name + ": share of the monitor");
        assertEquals(1.0, totalRatio, 0.10, name + ": time waited against the truth");
        assertEquals(1.0, Double.parseDouble(overlap.group(1)), 0.001, name + ": compare of the .jfr with itself");
        assertEquals((double) inMonitor / profile.total(), mergedMonitor, 0.001, name + ": merge of the two");
        assertTrue(monitorAsObject > 0.99 * inMonitor, name + ": the monitor's class is java.lang.Object");
        assertTrue(reentrantAsSync > 0.99 * inReentrant, name + ": the lock's class is ReentrantLock's Sync");
        assertEquals(0, belowThreshold, name + ": no wait under the threshold is recorded");
        assertTrue(shortWaits > 200, name + ": the short lock was contended (" + shortWaits + " waits)");
        assertTrue(shortEvents <= shortOver + 3 && shortEvents < shortWaits / 10,
                name + ": short waits are not recorded (" + shortEvents + " recorded, " + shortOver + " reached the threshold)");
        assertTrue(parks > 0, name + ": ReentrantLock waits are recorded as parks");
        assertEquals("ns", stats.path("unit").asText());
        assertEquals(samples, kind.path("recorded").asLong() + kind.path("failed").asLong() + kind.path("dropped").asLong(),
                name + ": samples = recorded + failed + dropped");
        assertEquals(kind.path("recorded").asLong(), events, name + ": one JFR event per recorded wait");
        assertEquals(profile.total(), durations, name + ": JFR durations are the collapsed nanoseconds");
        assertEquals(inMonitor, reported.countAny(CollapsedProfile.method(LockMix.MONITOR)), name + ": report of the JFR");
        assertEquals(inReentrant, reported.countAny(CollapsedProfile.method(LockMix.REENTRANT)), name + ": report of the JFR");
        String html = Files.readString(page);
        assertTrue(html.contains("\"unit\":\"ns\""), name + ": the page says ns");
        assertFalse(run.stderr().contains("Re-registering"), name + ": HotSpot's re-binding warning is silenced");
    }

    /**
     * A thread's exit waits for the monitor of its own Thread object while a joiner holds it (HotSpot's
     * ensure_join), with no Java frame left: the wait keeps its class on an empty stack on both JDKs, as
     * JDK 17's GetStackTrace gives it, where JDK 21+ refuse the exiting thread (it was the thread_exit
     * failure, 99.98% of the lock samples of a churn of joined threads on JDK 25).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void waitsOfExitingThreadsKeepTheirClass(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "lock at thread exit " + jdk;
        Path dir = Build.runDir("lock-exit-" + jdk.label());
        Path collapsedFile = dir.resolve("l.collapsed");
        Path statsFile = dir.resolve("l.json");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=lock,lock=0,file=" + collapsedFile + ",stats=" + statsFile)
                .main(dev.candor.itest.stress.ThreadChurn.class, "3").run(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), run.describe());
        JsonNode lock = new ObjectMapper().readTree(statsFile.toFile()).path("kinds").path("lock");
        CollapsedProfile profile = Profiles.collapsed(collapsedFile, run);
        long atExit = profile.count(st -> st.frames().equals(List.of("java.lang.Thread")));
        Figures.line(String.format("%s: %d lock samples, %d failed; %.1f ms waited on a bare java.lang.Thread of %.1f ms",
                name, lock.path("ticks").asLong(), lock.path("failed").asLong(), atExit / 1e6, profile.total() / 1e6));
        assertEquals(0, lock.path("failed").asLong(), name + ": failed lock samples " + lock);
        assertTrue(atExit > 0, name + ": no wait of an exiting thread on its Thread's monitor\n" + run.describe());
    }

    /** The JDK's own lock events (settings=profile: monitor enters and parks of 10 ms or more) read as lock waits. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void jdkLockEventsAreRead(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "JDK lock events " + jdk;
        Path dir = Build.runDir("lock-jdk-" + jdk.label());
        Path jfrFile = dir.resolve("jdk.jfr");
        Path truthFile = dir.resolve("truth.properties");
        Jvm.Result run = Jvm.of(jdk, dir).jvmArg("-XX:StartFlightRecording:filename=" + jfrFile + ",settings=profile")
                .main(LockMix.class, truthFile.toString(), "3", "10000000").run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());
        Properties truth = Profiles.truth(truthFile, run);
        long monitorNs = Profiles.truthLong(truth, "monitor_ns");
        long reentrantNs = Profiles.truthLong(truth, "reentrant_ns");
        Path back = dir.resolve("report.collapsed");
        ReportTool.Ran rep = ReportTool.report(jdk, dir, jfrFile.toString(), "--event", "lock", "-o", back.toString());
        assertEquals(0, rep.exitCode(), rep.describe());
        CollapsedProfile reported = CollapsedProfile.read(back);
        long inMonitor = reported.countAny(CollapsedProfile.method(LockMix.MONITOR));
        long inReentrant = reported.countAny(CollapsedProfile.method(LockMix.REENTRANT));
        double truthShare = (double) monitorNs / (monitorNs + reentrantNs);
        double share = (double) inMonitor / Math.max(1, inMonitor + inReentrant);
        Figures.line(String.format("%s: monitor share truth %s, the JDK's events read by candor report %s; %.3f s of %.3f s",
                name, Figures.pct(truthShare), Figures.pct(share), (inMonitor + inReentrant) / 1e9,
                (monitorNs + reentrantNs) / 1e9));
        assertEquals(truthShare, share, 0.05, name + ": share of the monitor");
        assertEquals(1.0, (double) (inMonitor + inReentrant) / (monitorNs + reentrantNs), 0.15, name + ": time waited");
    }
}

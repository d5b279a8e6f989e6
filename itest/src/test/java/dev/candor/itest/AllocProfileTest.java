package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.candor.itest.workload.AllocMix;
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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Known answer for allocation profiling ({@link AllocMix}): three threads allocate 1 kB
 * {@code byte[]}s in one method and small records in another, and measure the bytes of each with
 * their allocated-bytes counters. With {@code event=alloc} the profile is in bytes: each method's
 * share must be within 3 points of the truth and the estimated total within 10%; the allocated
 * class is the innermost frame. The JFR recording holds jdk.ObjectAllocationSample events that
 * the JDK's parser reads, with the class and the weights the collapsed profile sums; the stats
 * count the samples like ticks (recorded + failed + dropped) and their bytes; split=class roots
 * every stack at a frame naming its class.
 */
class AllocProfileTest {

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void byteSharesMatchTheTruth(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "alloc " + jdk;
        Path dir = Build.runDir("alloc-" + jdk.label());
        Path collapsedFile = dir.resolve("a.collapsed");
        Path jfrFile = dir.resolve("a.jfr");
        Path statsFile = dir.resolve("a.json");
        Path truthFile = dir.resolve("truth.properties");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=alloc,alloc=256k,split=class,file=" + collapsedFile + ",file=" + jfrFile + ",stats=" + statsFile)
                .main(AllocMix.class, truthFile.toString(), "3").run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());

        Properties truth = Profiles.truth(truthFile, run);
        long arrays = Profiles.truthLong(truth, "arrays_bytes");
        long points = Profiles.truthLong(truth, "points_bytes");
        double truthShare = (double) arrays / (arrays + points);

        CollapsedProfile profile = Profiles.collapsed(collapsedFile, run);
        long inArrays = profile.countAny(CollapsedProfile.method(AllocMix.ARRAYS));
        long inPoints = profile.countAny(CollapsedProfile.method(AllocMix.POINTS));
        double share = (double) inArrays / Math.max(1, inArrays + inPoints);
        double totalRatio = (double) (inArrays + inPoints) / (arrays + points);
        long arraysAsBytes = profile.count(s -> s.frames().contains(AllocMix.ARRAYS) && s.leaf().equals("byte[]"));
        long pointsAsPoint = profile.count(s -> s.frames().contains(AllocMix.POINTS)
                && s.leaf().equals(AllocMix.POINT_CLASS));
        // split=class: each stack under a root frame naming its class (failures have no class)
        long splitRight = profile.count(s -> s.frames().size() > 1 && s.frames().get(0).equals("[" + s.leaf() + "]"));
        long withClass = profile.count(s -> s.frames().size() > 1);

        // JFR: the JDK's parser reads every sample, with its class; the weights are the collapsed bytes
        long events = 0, weights = 0, byteArrays = 0;
        try (RecordingFile rf = new RecordingFile(jfrFile)) {
            while (rf.hasMoreEvents()) {
                RecordedEvent e = rf.readEvent();
                if (!e.getEventType().getName().equals("jdk.ObjectAllocationSample")) {
                    continue;
                }
                events++;
                weights += e.getLong("weight");
                if (e.getClass("objectClass").getName().equals("[B")) { // the JDK names array classes by descriptor too
                    byteArrays++;
                }
                assertTrue(e.getThread("eventThread") != null && e.getStackTrace() != null, name + ": " + e);
            }
        }
        // candor report reads the allocation events back: the same bytes per method, in bytes
        Path back = dir.resolve("report.collapsed");
        ReportTool.Ran rep = ReportTool.report(jdk, dir, jfrFile.toString(), "--event", "alloc", "-o", back.toString());
        assertEquals(0, rep.exitCode(), rep.describe());
        CollapsedProfile reported = CollapsedProfile.read(back);
        assertEquals(inArrays, reported.countAny(CollapsedProfile.method(AllocMix.ARRAYS)), name + ": report of the JFR");
        assertEquals(inPoints, reported.countAny(CollapsedProfile.method(AllocMix.POINTS)), name + ": report of the JFR");
        Path page = dir.resolve("report.html");
        rep = ReportTool.report(jdk, dir, jfrFile.toString(), "--event", "alloc", "-o", page.toString());
        assertEquals(0, rep.exitCode(), rep.describe());
        assertTrue(Files.readString(page).contains("\"unit\":\"bytes\""), name + ": the page says bytes");

        JsonNode stats = new ObjectMapper().readTree(statsFile.toFile());
        JsonNode kind = stats.path("kinds").path("alloc");
        long samples = kind.path("ticks").asLong();

        Figures.line(String.format("%s: byte[] method truth %s, profile %s (%+.1f points); estimated total %.1f MB of"
                        + " %.1f MB true (%.3f); %d samples, %d JFR events (%d byte[]), weights %s the collapsed bytes",
                name, Figures.pct(truthShare), Figures.pct(share), 100 * (share - truthShare),
                (inArrays + inPoints) / 1048576.0, (arrays + points) / 1048576.0, totalRatio, samples, events, byteArrays,
                weights == profile.total() ? "equal" : "DIFFER from"));
        assertEquals(truthShare, share, 0.03, name + ": share of the byte[] method");
        assertEquals(1.0, totalRatio, 0.10, name + ": estimated bytes against the truth");
        assertTrue(arraysAsBytes > 0.99 * inArrays, name + ": the arrays method allocates byte[] (" + arraysAsBytes + ")");
        assertTrue(pointsAsPoint > 0.99 * inPoints, name + ": the points method allocates " + AllocMix.POINT_CLASS);
        assertEquals(withClass, splitRight, name + ": split=class puts the class at the root");
        assertEquals("bytes", stats.path("unit").asText());
        assertEquals(samples, kind.path("recorded").asLong() + kind.path("failed").asLong() + kind.path("dropped").asLong(),
                name + ": samples = recorded + failed + dropped");
        assertEquals(profile.total(), stats.path("alloc").path("bytes").asLong(), name + ": the profile holds every byte");
        assertEquals(kind.path("recorded").asLong(), events, name + ": one JFR event per recorded sample");
        assertEquals(stats.path("alloc").path("recorded_bytes").asLong(), weights, name + ": JFR weights");
        assertTrue(byteArrays > events / 2, name + ": most samples are byte[]");
    }

    /**
     * A ring too small for allocation samples at 1 kB beside cpu ticks: samples of both kinds are
     * dropped, and candor report of the .jfr puts each kind's drops beside its own samples (the
     * cpu profile's [dropped] in ticks, the allocation profile's in bytes), as the agent's stats
     * count them: not every drop beside the CPU samples.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void dropsStayWithTheirKind(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "alloc drops " + jdk;
        Path dir = Build.runDir("alloc-drops-" + jdk.label());
        Path jfrFile = dir.resolve("d.jfr");
        Path statsFile = dir.resolve("d.json");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=cpu,interval=1ms,alloc=1k,ringsize=16,file=" + jfrFile + ",stats=" + statsFile)
                .main(AllocMix.class, dir.resolve("truth.properties").toString(), "2").run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());
        com.fasterxml.jackson.databind.JsonNode stats = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(statsFile.toFile());
        long cpuDropped = stats.path("kinds").path("cpu").path("dropped").asLong();
        long allocDropped = stats.path("kinds").path("alloc").path("dropped").asLong();
        long allocDroppedBytes = stats.path("alloc").path("dropped_bytes").asLong();
        ReportTool.Ran cpu = ReportTool.report(jdk, dir, jfrFile.toString(), "--event", "cpu", "-o", "cpu.collapsed");
        assertEquals(0, cpu.exitCode(), cpu.describe());
        ReportTool.Ran alloc = ReportTool.report(jdk, dir, jfrFile.toString(), "--event", "alloc", "-o", "alloc.collapsed");
        assertEquals(0, alloc.exitCode(), alloc.describe());
        long cpuReported = dropped(dir.resolve("cpu.collapsed"));
        long allocReported = dropped(dir.resolve("alloc.collapsed"));
        Figures.line(String.format("%s: stats dropped cpu %d, alloc %d samples (%d bytes); report of the .jfr: cpu"
                + " [dropped] %d, alloc [dropped] %d", name, cpuDropped, allocDropped, allocDroppedBytes, cpuReported,
                allocReported));
        assertTrue(allocDropped > 0, name + ": a 16-slot ring at alloc=1k dropped nothing");
        // more than 1% of the ticks: the agent says what to do, once, at stop
        long allDropped = stats.path("dropped").asLong();
        assertTrue(allDropped * 100 > stats.path("ticks").asLong(), name + ": " + allDropped + " dropped");
        assertTrue(run.stderr().contains("ticks (") && run.stderr().contains("were dropped: the sample ring (ringsize=16)"
                + " filled"), name + ": no hint at the drops\n" + run.stderr());
        assertEquals(cpuDropped, cpuReported, name + ": the cpu profile's [dropped]");
        assertEquals(allocDroppedBytes, allocReported, name + ": the allocation profile's [dropped], in bytes");
    }

    private static long dropped(Path collapsed) throws java.io.IOException {
        return CollapsedProfile.parse(java.nio.file.Files.readString(collapsed))
                .count(s -> s.frames().contains("[dropped]"));
    }
}

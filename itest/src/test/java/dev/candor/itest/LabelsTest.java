package dev.candor.itest;

import dev.candor.itest.workload.Hot;
import dev.candor.itest.workload.Labelled;
import dev.candor.model.CollapsedProfile;
import dev.candor.model.ProfileStats;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Label scopes against a known answer ({@link Labelled}): a pool of three threads takes requests
 * of two types in turn, methodA under endpoint=/a and methodB under endpoint=/b (with a new span=N
 * per request), another thread runs unlabelled; the CPU time under each label is measured inside
 * the workload. The agent runs
 * from -agentpath; the workload's Candor.label finds it in the process.
 */
class LabelsTest {

    /**
     * Requests of 3 ms, and of 100 us as a busy service has them: the root default (percpu) reads its
     * samples up to 50 ms late and asks each thread's label history for their set; kept to 64 changes,
     * that history gave 100 us scopes' samples candor.labels=unknown (78% of them). And 100 us requests
     * as an unprivileged user, as most services run: a perf timer per thread, and kernel time settled as
     * [kernel_unsampled] on the stacks of system calls, which must take those stacks' labels.
     */
    static Stream<Arguments> cases() {
        return Jdks.all().stream().flatMap(jdk -> Stream.of(Arguments.of(jdk, 3000, false), Arguments.of(jdk, 100, false),
                Arguments.of(jdk, 100, true)));
    }

    @ParameterizedTest(name = "{0} {1} us requests unprivileged={2}")
    @MethodSource("cases")
    void labelSharesMatchTheTruth(Jdks.Jdk jdk, int requestUs, boolean unprivileged) throws Exception {
        jdk.assumePresent();
        String name = "labels " + jdk + (requestUs == 3000 ? "" : " " + requestUs + " us requests")
                + (unprivileged ? " unprivileged" : "");
        Path dir = Build.runDir("labels-" + jdk.label() + (requestUs == 3000 ? "" : "-" + requestUs + "us")
                + (unprivileged ? "-unprivileged" : ""));
        Path truthFile = dir.resolve("truth.properties");
        Path collapsedFile = dir.resolve("l.collapsed");
        Path jfrFile = dir.resolve("l.jfr");
        Path statsFile = dir.resolve("l.json");
        Path otlpFile = dir.resolve("l.otlp");
        Jvm jvm = Jvm.of(jdk, dir);
        if (unprivileged) {
            jvm.unprivileged();
        }
        Jvm.Result run = jvm
                .agent("start,event=cpu,interval=1ms,split=label:endpoint,file=" + collapsedFile + ",file=" + jfrFile
                        + ",file=" + otlpFile + ",stats=" + statsFile)
                .main(Labelled.class.getName(), ApiTest.classpath(), truthFile.toString(), "1400", "600", "500",
                        String.valueOf(requestUs))
                .run(Duration.ofSeconds(120));
        assertEquals(0, run.exitCode(), run.describe());
        boolean perCpu = run.stderr().contains("percpu: one perf event per CPU");
        assertTrue(!unprivileged || !perCpu, name + ": an unprivileged run has no per-CPU timers\n" + run.describe());
        Properties truth = Profiles.truth(truthFile, run);
        double a = Profiles.truthLong(truth, "cpu_a_ns");
        double b = Profiles.truthLong(truth, "cpu_b_ns");
        double plain = Profiles.truthLong(truth, "cpu_plain_ns");
        long spans = Profiles.truthLong(truth, "spans");
        ProfileStats stats = Profiles.stats(statsFile, run);
        Profiles.assertIdentity(stats, name);
        assertEquals(0, labelStat(statsFile, "unknown_samples"), name + ": samples whose set the history no longer had");

        // split=label:endpoint: the [endpoint=...] roots split the profile as the workload did
        CollapsedProfile p = Profiles.collapsed(collapsedFile, run);
        // The pool's slices run only inside a scope: none of them may go unlabelled. While the API looked for
        // the agent on one thread, the other threads' first scopes did (15-20 samples); percpu's settlement
        // at a thread's end put its [kernel_unsampled] ticks under the labels of that moment (none: 9-21).
        EndpointCounts counted = EndpointCounts.of(p);
        long underA = counted.underA();
        long underB = counted.underB();
        long misfiled = counted.misfiled();
        long unlabelledSlices = counted.unlabelledSlices();
        long unlabelledA = p.count(s -> s.frames().get(0).equals("[endpoint=(none)]") && s.leaf().equals(Hot.METHOD_A));
        long sum = underA + underB + unlabelledA;
        double shareA = (double) underA / sum, shareB = (double) underB / sum, sharePlain = (double) unlabelledA / sum;
        double total = a + b + plain;

        // the JFR recording: every sample event names its labels; the span is the nested scope's
        Map<String, Long> byEndpoint = new HashMap<>();
        Set<String> spanValues = new HashSet<>();
        long withSpanOnA = 0;
        try (RecordingFile rf = new RecordingFile(jfrFile)) {
            while (rf.hasMoreEvents()) {
                RecordedEvent e = rf.readEvent();
                if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
                    continue;
                }
                Map<String, String> labels = labels(e);
                byEndpoint.merge(labels.getOrDefault("endpoint", "(none)"), 1L, Long::sum);
                if (labels.containsKey("span")) {
                    spanValues.add(labels.get("span"));
                    if ("/a".equals(labels.get("endpoint"))) {
                        withSpanOnA++;
                    }
                }
            }
        }
        Figures.line(String.format("%s: under /a %s (truth %s), /b %s (truth %s), unlabelled methodA %s (truth %s) of %d;"
                        + " misfiled %d, pool samples unlabelled %d; .jfr samples by endpoint %s, %d distinct spans of %d opened",
                name, Figures.pct(shareA), Figures.pct(a / total), Figures.pct(shareB), Figures.pct(b / total),
                Figures.pct(sharePlain), Figures.pct(plain / total), sum, misfiled, unlabelledSlices, byEndpoint,
                spanValues.size(), spans));
        assertTrue(sum >= 1500, name + ": too few samples: " + sum);
        assertEquals(a / total, shareA, 0.03, name + ": share under endpoint=/a");
        assertEquals(b / total, shareB, 0.03, name + ": share under endpoint=/b");
        assertEquals(plain / total, sharePlain, 0.03, name + ": unlabelled share");
        assertTrue(misfiled <= 0.01 * sum, name + ": samples under the other endpoint's label: " + misfiled);
        assertTrue(unlabelledSlices <= 2 + sum / 1000, name + ": samples of the pool's scopes without a label: " + unlabelledSlices
                + "\n" + p.stacks().stream().filter(s -> s.frames().get(0).equals("[endpoint=(none)]")
                        && s.frames().contains("dev.candor.itest.workload.Labelled.slice")).map(Object::toString).toList());
        // samples only: a failure (such as percpu's cpu_unsampled, charged under the thread's label of the
        // moment) is no jdk.ExecutionSample
        assertEquals(p.count(s -> s.frames().get(0).equals("[endpoint=/a]") && !s.isFailure()), byEndpoint.getOrDefault("/a", 0L),
                name + ": .jfr and collapsed disagree on endpoint=/a");
        assertEquals(p.count(s -> s.frames().get(0).equals("[endpoint=/b]") && !s.isFailure()), byEndpoint.getOrDefault("/b", 0L),
                name + ": .jfr and collapsed disagree on endpoint=/b");
        assertEquals(0, withSpanOnA, name + ": span labels outlived their scope");
        assertTrue(spanValues.size() >= 0.5 * Math.min(spans, underB), name + ": distinct span labels " + spanValues.size()
                + " for " + spans + " spans");
        // a real reader of the file
        String summary = JfrOutputTest.tool(jdk, dir, "jfr-summary", "summary", jfrFile.toString());
        assertTrue(summary.contains("jdk.ExecutionSample"), name + ": jfr summary\n" + summary);

        // the agent's OTLP: each label a string attribute of its samples
        OtlpMessage otlp = OtlpMessage.parse(java.nio.file.Files.readAllBytes(otlpFile));
        Map<String, Long> otlpByEndpoint = new HashMap<>();
        for (var sample : otlp.profile(0).getSamplesList()) {
            var attributes = otlp.attributes(sample.getAttributeIndicesList());
            if (attributes.containsKey("candor.failure")) {
                continue;  // not an ExecutionSample in the .jfr either
            }
            var endpoint = attributes.get("endpoint");
            otlpByEndpoint.merge(endpoint == null ? "(none)" : endpoint.getStringValue(), sample.getValues(0), Long::sum);
        }
        assertEquals(byEndpoint.getOrDefault("/a", 0L), otlpByEndpoint.getOrDefault("/a", 0L),
                name + ": .otlp and .jfr disagree on endpoint=/a: " + otlpByEndpoint);
        assertEquals(byEndpoint.getOrDefault("/b", 0L), otlpByEndpoint.getOrDefault("/b", 0L),
                name + ": .otlp and .jfr disagree on endpoint=/b: " + otlpByEndpoint);

        // candor report: --label selects, --split label:KEY splits, as the agent did
        ReportTool.Ran onlyA = ReportTool.report(jdk, dir, jfrFile.toString(), "--label", "endpoint=/a",
                "-o", "a.collapsed");
        assertEquals(0, onlyA.exitCode(), onlyA.describe());
        CollapsedProfile fromA = CollapsedProfile.parse(java.nio.file.Files.readString(dir.resolve("a.collapsed")));
        assertEquals(byEndpoint.getOrDefault("/a", 0L), fromA.recorded(), name + ": report --label endpoint=/a samples");
        // The selected samples are the work done under the label: Labelled.slice, whose methodA is the leaf of
        // 94.6-96.7% of them (its ThreadMXBean reads, with their kernel frames, most of the rest); none is B's.
        long inSlice = fromA.count(s -> s.anyFrame(f -> f.equals("dev.candor.itest.workload.Labelled.slice")));
        assertTrue(inSlice >= 0.95 * fromA.recorded() && fromA.countLeaf(CollapsedProfile.method(Hot.METHOD_B)) == 0,
                name + ": report --label endpoint=/a is not the work under /a\n" + fromA);
        ReportTool.Ran split = ReportTool.report(jdk, dir, jfrFile.toString(), "--split", "label:endpoint",
                "-o", "split.collapsed");
        assertEquals(0, split.exitCode(), split.describe());
        CollapsedProfile fromSplit = CollapsedProfile.parse(java.nio.file.Files.readString(dir.resolve("split.collapsed")));
        assertEquals(byEndpoint.getOrDefault("/b", 0L), fromSplit.count(s -> s.frames().get(0).equals("[endpoint=/b]") && !s.isFailure()),
                name + ": report --split label:endpoint, /b");
        ReportTool.Ran none = ReportTool.report(jdk, dir, jfrFile.toString(), "--label", "endpoint=/nowhere");
        assertTrue(none.exitCode() != 0 && none.oneCandorLine().contains("endpoint"), none.describe());

        // pprof: the labels are the samples' tags, for go tool pprof
        java.nio.file.Path go = ReportTool.go();
        if (go != null) {
            ReportTool.Ran pprof = ReportTool.report(jdk, dir, jfrFile.toString(), "-o", "l.pb.gz");
            assertEquals(0, pprof.exitCode(), pprof.describe());
            String tags = ReportTool.pprof(go, dir, "pprof-tags.txt", "-tags", "l.pb.gz");
            assertTrue(tags.contains("endpoint") && tags.contains("/a") && tags.contains("/b") && tags.contains("span"),
                    name + ": go tool pprof -tags\n" + tags);
            String focused = ReportTool.pprof(go, dir, "pprof-focus.txt", "-top", "-tagfocus", "endpoint=/b", "l.pb.gz");
            assertEquals(Hot.METHOD_B, ReportTool.pprofFirstFunction(focused), name + ": pprof -tagfocus endpoint=/b\n"
                    + focused);
        }
    }

    /**
     * A reader that comes too late for the label history (a test hook stalls every pass 2.6 s; the history
     * keeps 2 s against a stalled reader): the samples it can no longer tell are candor.labels=unknown, never
     * another request's set, and the stats count them as the .jfr has them.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.candor.itest.Jdks#all")
    void aStalledReaderCountsTheSamplesItCouldNotTell(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "labels stalled reader " + jdk;
        Path dir = Build.runDir("labels-stalled-" + jdk.label());
        Path jfrFile = dir.resolve("l.jfr");
        Path statsFile = dir.resolve("l.json");
        Jvm.Result run = Jvm.of(jdk, dir)
                .env("CANDOR_TEST_READER_STALL_MS", "2600")
                .agent("start,event=cpu,interval=1ms,file=" + jfrFile + ",stats=" + statsFile)
                .main(Labelled.class.getName(), ApiTest.classpath(), dir.resolve("truth.properties").toString(),
                        "6000", "3000", "500", "100")
                .run(Duration.ofSeconds(120));
        assertEquals(0, run.exitCode(), run.describe());
        CopyWalkTest.assumeEngineRan("percpu", run);
        Profiles.assertIdentity(Profiles.stats(statsFile, run), name);
        Map<String, Long> bySet = new HashMap<>();
        try (RecordingFile rf = new RecordingFile(jfrFile)) {
            while (rf.hasMoreEvents()) {
                RecordedEvent e = rf.readEvent();
                if (e.getEventType().getName().equals("jdk.ExecutionSample")) {
                    Map<String, String> labels = labels(e);
                    String key = labels.containsKey("candor.labels") ? "candor.labels=" + labels.get("candor.labels")
                            : labels.containsKey("endpoint") ? "endpoint" : "(none)";
                    bySet.merge(key, 1L, Long::sum);
                }
            }
        }
        long unknown = labelStat(statsFile, "unknown_samples");
        Figures.line(String.format("%s: stats unknown_samples %d; .jfr samples %s", name, unknown, bySet));
        assertTrue(unknown > 0, name + ": no sample outlived its history: " + bySet);
        assertEquals(unknown, bySet.getOrDefault("candor.labels=unknown", 0L), name + ": stats and .jfr: " + bySet);
    }

    // The stats' labels.KEY.
    /**
     * An agent attached to a JVM whose code already opens scopes (README: "an agent attached later sees a
     * thread's labels from its next scope on"; the API looks for an agent at most once a second). Two
     * sessions by {@code candor attach}: in the first, the pool's scopes are labelled once the API has found
     * the agent; in the second, started after that, every scope's samples carry its label (those in flight
     * as it starts too), at the workload's split between the endpoints.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.candor.itest.Jdks#all")
    void anAgentAttachedLaterSeesTheScopesOpenedAfterIt(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "labels late attach " + jdk;
        Path dir = Build.runDir("labels-attach-" + jdk.label());
        Path truthFile = dir.resolve("truth.properties");
        Jvm.Started started = Jvm.of(jdk, dir).jvmArg("-XX:+EnableDynamicAgentLoading")
                .main(Labelled.class.getName(), ApiTest.classpath(), truthFile.toString(), "12000", "4000", "3000", "3000")
                .start();
        String pid = Long.toString(started.process().pid());
        String agent = Build.agent().toString();
        Path[] sessions = {dir.resolve("first.collapsed"), dir.resolve("second.collapsed")};
        long[] seconds = {2500, 1500};
        try {
            Thread.sleep(500);  // the workload's scopes are open, with no agent to find
            for (int i = 0; i < sessions.length; i++) {
                Targets.Ran start = Targets.candorInProcess("--agent", agent, "attach", pid, "start", "-i", "1ms",
                        "-f", sessions[i].toString(), "--agent-options", "split=label:endpoint");
                assertEquals(0, start.exitCode(), name + ": start\n" + start.describe());
                Thread.sleep(seconds[i]);
                Targets.Ran stop = Targets.candorInProcess("--agent", agent, "attach", pid, "stop");
                assertEquals(0, stop.exitCode(), name + ": stop\n" + stop.describe());
            }
        } finally {
            Jvm.Result run = started.await(Duration.ofSeconds(120));
            assertEquals(0, run.exitCode(), run.describe());
        }
        EndpointCounts first = EndpointCounts.of(CollapsedProfile.parse(java.nio.file.Files.readString(sessions[0])));
        EndpointCounts then = EndpointCounts.of(CollapsedProfile.parse(java.nio.file.Files.readString(sessions[1])));
        Figures.line(String.format("%s: first session (from attach): /a %d, /b %d, misfiled %d, pool samples unlabelled %d;"
                        + " second: /a %d, /b %d, misfiled %d, unlabelled %d", name, first.underA(), first.underB(),
                first.misfiled(), first.unlabelledSlices(), then.underA(), then.underB(), then.misfiled(),
                then.unlabelledSlices()));
        long firstPool = first.labelled() + first.unlabelledSlices();
        assertTrue(first.labelled() >= firstPool / 3, name + ": the first session's scopes stayed unlabelled past the "
                + "API's next look for an agent: " + first);
        long second = then.labelled();
        assertTrue(second >= 1000, name + ": too few labelled samples in the second session: " + second);
        // Scopes in flight as the second session starts were opened before it: the session's label history
        // starts empty, and their samples once fell under no label until the thread's next scope (2 a run).
        assertEquals(0, then.unlabelledSlices(), name + ": pool samples without a label after the API found the agent");
        assertTrue(first.misfiled() + then.misfiled() <= 0.01 * (firstPool + second), name
                + ": samples under the other endpoint");
        // 7 requests of A for every 3 of B, each 3 ms of CPU
        assertEquals(0.7, (double) then.underA() / second, 0.06, name + ": share of /a among the labelled samples");
    }

    /**
     * A split=label:endpoint profile of {@link Labelled}: methodA under /a, methodB under /b, either under the
     * other's label, and samples of the pool's slices under no label.
     */
    record EndpointCounts(long underA, long underB, long misfiled, long unlabelledSlices) {
        static EndpointCounts of(CollapsedProfile p) {
            return new EndpointCounts(
                    p.count(s -> s.frames().get(0).equals("[endpoint=/a]") && s.leaf().equals(Hot.METHOD_A)),
                    p.count(s -> s.frames().get(0).equals("[endpoint=/b]") && s.leaf().equals(Hot.METHOD_B)),
                    p.count(s -> (s.frames().get(0).equals("[endpoint=/a]") && s.leaf().equals(Hot.METHOD_B))
                            || (s.frames().get(0).equals("[endpoint=/b]") && s.leaf().equals(Hot.METHOD_A))),
                    p.count(s -> s.frames().get(0).equals("[endpoint=(none)]")
                            && s.frames().contains("dev.candor.itest.workload.Labelled.slice")));
        }

        long labelled() {
            return underA + underB;
        }
    }

    static long labelStat(Path statsFile, String key) throws java.io.IOException {
        var value = new com.fasterxml.jackson.databind.ObjectMapper().readTree(statsFile.toFile()).path("labels").path(key);
        assertTrue(value.isNumber(), "no labels." + key + " in " + statsFile);
        return value.asLong();
    }

    // "key=value,..." (with %2C, %3D, %25 escapes); null when the thread had none.
    static Map<String, String> labels(RecordedEvent e) {
        if (!e.hasField("labels") || e.getString("labels") == null) {
            return Map.of();
        }
        return dev.candor.model.JfrEvents.parseLabels(e.getString("labels"));
    }
}

package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.candor.itest.workload.Hot;
import dev.candor.itest.workload.KnownAnswer;
import dev.candor.model.CollapsedProfile;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.Sample;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent's own OTLP: {@code push=otlp+http://} POSTs every loop= interval's profile as an
 * {@code ExportProfilesServiceRequest} (application/x-protobuf, /v1development/profiles) to a real
 * HTTP receiver the test starts, and {@code file=x.otlp} writes one. Every body is read with the
 * official opentelemetry-proto classes: the pushed samples are led by the known answer's hot
 * method, on its thread, and add up to the ticks of the agent's stats, interval by interval; the
 * file says what the agent's own .collapsed of the same run says, sample for sample.
 */
class OtlpPushTest {

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void intervalsArriveAsOtlpAndHoldTheProfile(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "push otlp " + jdk;
        Path dir = Build.runDir("push-otlp-" + jdk.label());
        Path stats = dir.resolve("push.json");
        Jvm.Result run;
        List<Receiver.Request> requests;
        try (Receiver receiver = Receiver.start(Receiver.Answer.OK)) {
            run = Jvm.of(jdk, dir).agent("start,event=cpu,interval=1ms,loop=1s,service=itest-svc,pushlabels=env=itest,push=otlp+http://127.0.0.1:"
                            + receiver.port() + ",stats=" + stats)
                    .main(KnownAnswer.class, dir.resolve("truth.properties").toString(), "2500", "1000")
                    .run(Duration.ofSeconds(90));
            requests = receiver.requests();
        }
        assertEquals(0, run.exitCode(), run.describe());
        long samples = 0;
        long hot = 0;
        long hotOnWorker = 0;
        long failed = 0;
        long previousEnd = -1;
        long bytes = 0;
        for (Receiver.Request r : requests) {
            assertEquals("POST", r.method(), name);
            assertEquals("/v1development/profiles", r.path(), name);
            assertEquals("application/x-protobuf", r.contentType(), name);
            bytes += r.body().length;
            OtlpMessage read = OtlpMessage.parse(r.body());
            assertEquals("itest-svc", read.service(), name);
            assertEquals("itest", read.request().getResourceProfiles(0).getResource().getAttributesList().stream()
                    .filter(kv -> kv.getKey().equals("env")).findFirst().map(kv -> kv.getValue().getStringValue())
                    .orElse(null), name + ": pushlabels as a resource attribute");
            assertEquals("candor", read.request().getResourceProfiles(0).getScopeProfiles(0).getScope().getName(), name);
            Profile p = read.profile(0);
            assertEquals("samples", read.string(p.getSampleType().getTypeStrindex()), name);
            assertEquals("count", read.string(p.getSampleType().getUnitStrindex()), name);
            assertTrue(p.getTimeUnixNano() > 0 && p.getDurationNano() > 0, name + ": the interval's time range");
            if (previousEnd >= 0) {  // the intervals follow each other (within the writer's 5 ms steps)
                assertTrue(Math.abs(p.getTimeUnixNano() - previousEnd) < 50_000_000L,
                        name + ": interval starts " + (p.getTimeUnixNano() - previousEnd) / 1e6 + " ms after the last");
            }
            previousEnd = p.getTimeUnixNano() + p.getDurationNano();
            for (Sample s : p.getSamplesList()) {
                assertEquals(1, s.getValuesCount(), name + ": one aggregated value per sample");
                long v = s.getValues(0);
                samples += v;
                Map<String, AnyValue> attrs = read.attributes(s.getAttributeIndicesList());
                List<String> names = read.names(s);
                if (attrs.containsKey("candor.failure")) {
                    assertEquals("[" + attrs.get("candor.failure").getStringValue() + "]", names.get(0), name);
                    failed += v;
                }
                if (!names.isEmpty() && names.get(0).equals(Hot.METHOD_A)) {
                    hot += v;
                    AnyValue thread = attrs.get("thread.name");
                    hotOnWorker += thread != null && thread.getStringValue().equals(KnownAnswer.THREAD) ? v : 0;
                }
            }
        }
        long ticks = 0;  // loop= rotates the stats too: one file per interval, the last one is push.json
        long recorded = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.getFileName().toString().matches("push(-\\d{8}-\\d{6}(-\\d+)?)?\\.json"))
                    .toList()) {
                JsonNode s = new ObjectMapper().readTree(f.toFile());
                ticks += s.path("ticks").asLong();
                recorded += s.path("recorded").asLong();
            }
        }
        JsonNode push = new ObjectMapper().readTree(stats.toFile()).path("push");
        Figures.line(String.format("%s: %d requests, %d bytes; %d samples in them (methodA on top %s, on %s %d,"
                        + " candor.failure %d); stats: %d ticks, %d recorded; push %s", name, requests.size(), bytes,
                samples, Figures.pct(samples == 0 ? 0 : (double) hot / samples), KnownAnswer.THREAD, hotOnWorker,
                failed, ticks, recorded, push));
        assertTrue(requests.size() >= 3, name + ": an interval a second over a run of 3.5 s and more");
        assertTrue(hot > samples / 2, name + ": the known answer's hot method leads the pushed samples (" + hot
                + " of " + samples + ")");
        assertEquals(hot, hotOnWorker, name + ": methodA's samples carry thread.name=" + KnownAnswer.THREAD);
        assertEquals(ticks, samples, name + ": the intervals hold every tick of the stats, failures included");
        assertEquals(recorded, samples - failed, name + ": and without candor.failure, every recorded sample");
        assertEquals(requests.size(), push.path("sent").asLong(), name);
        assertEquals(bytes, push.path("bytes").asLong(), name);
        assertEquals(0, push.path("failed").asLong() + push.path("dropped").asLong(), name);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void otlpFileSaysWhatTheCollapsedSays(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "file=x.otlp " + jdk;
        Path dir = Build.runDir("otlp-file-" + jdk.label());
        Path otlp = dir.resolve("ka.otlp");
        Path collapsed = dir.resolve("ka.collapsed");
        Path stats = dir.resolve("ka.json");
        Jvm.Result run = Jvm.of(jdk, dir).env("OTEL_SERVICE_NAME", "otel-svc")
                .agent("start,event=cpu,interval=1ms,threads,alloc=64k,file=" + otlp + ",file=" + collapsed
                        + ",stats=" + stats)
                .main(KnownAnswer.class, dir.resolve("truth.properties").toString(), "1400", "600")
                .run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());
        CollapsedProfile agent = Profiles.collapsed(collapsed, run);
        OtlpMessage read = OtlpMessage.parse(Files.readAllBytes(otlp));
        assertEquals("otel-svc", read.service(), name + ": service.name from OTEL_SERVICE_NAME without service=");
        assertEquals(2, read.request().getResourceProfiles(0).getScopeProfiles(0).getProfilesCount(),
                name + ": the time profile and the allocation profile beside it");
        Profile time = read.profile(0);
        Profile alloc = read.profile(1);
        assertEquals("samples/count", read.string(time.getSampleType().getTypeStrindex()) + "/"
                + read.string(time.getSampleType().getUnitStrindex()), name);
        assertEquals("alloc_space/bytes", read.string(alloc.getSampleType().getTypeStrindex()) + "/"
                + read.string(alloc.getSampleType().getUnitStrindex()), name);
        long total = 0;
        long withA = 0;
        long withB = 0;
        for (Sample s : time.getSamplesList()) {
            long v = s.getValues(0);
            List<String> names = read.names(s);
            total += v;
            withA += names.contains(Hot.METHOD_A) ? v : 0;
            withB += names.contains(Hot.METHOD_B) ? v : 0;
            // threads: the [name tid=N] root, outermost, as in the .collapsed
            String root = names.get(names.size() - 1);
            assertTrue(root.startsWith("[") && root.contains(" tid="), name + ": thread root " + root);
        }
        long allocBytes = alloc.getSamplesList().stream().mapToLong(s -> s.getValues(0)).sum();
        JsonNode s = new ObjectMapper().readTree(stats.toFile());
        double agentA = ReportTool.share(agent, Hot.METHOD_A);
        double otlpA = total == 0 ? 0 : (double) withA / total;
        double otlpB = total == 0 ? 0 : (double) withB / total;
        Figures.line(String.format("%s: %d bytes; .collapsed %d samples (A %s), OTLP %d samples (A %s, B %s);"
                        + " alloc profile %d bytes, stats %d", name, Files.size(otlp), agent.total(),
                Figures.pct(agentA), total, Figures.pct(otlpA), Figures.pct(otlpB), allocBytes,
                s.path("alloc").path("bytes").asLong()));
        assertTrue(total >= 500, name + ": too few samples: " + total);
        assertEquals(agent.total(), total, name + ": the same samples as the .collapsed");
        assertEquals(s.path("ticks").asLong() - s.path("alloc").path("samples").asLong(), total,
                name + ": every tick of time in the stats");
        assertEquals(agentA, otlpA, 1e-9, name + ": methodA's share, .collapsed vs .otlp");
        assertEquals(ReportTool.share(agent, Hot.METHOD_B), otlpB, 1e-9, name + ": methodB's share");
        assertEquals(s.path("alloc").path("bytes").asLong(), allocBytes, name + ": the allocation profile's bytes");
        assertEquals("jvm", read.frameType(Hot.METHOD_A), name + ": profile.frame.type of methodA");
    }

}

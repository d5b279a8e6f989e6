package dev.candor.itest;

import dev.candor.itest.workload.KnownAnswer;
import dev.candor.model.CollapsedProfile;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.Sample;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.candor.itest.ReportTool.METHOD_A;
import static dev.candor.itest.ReportTool.METHOD_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code candor report x.jfr -o x.otlp} on a real recording: one run of the known-answer workload
 * with the agent writing both a .jfr and a .collapsed; the OTLP message, read with the official
 * opentelemetry-proto classes, gives method A's and B's shares within 1 point of the agent's own
 * .collapsed, names the workload's thread, marks Java frames {@code jvm} and every failure bucket
 * with {@code candor.failure}. Skipped, saying so, when the agent wrote no .jfr.
 */
class OtlpReportTest {
    static final double TOLERANCE = 0.01;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void otlpOfTheAgentsJfrReportsLikeTheAgentsCollapsed(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "otlp " + jdk;
        Path dir = Build.runDir("otlp-report-" + jdk.label());
        Path jfr = dir.resolve("ka.jfr");
        Path collapsed = dir.resolve("ka.collapsed");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,event=cpu,interval=1ms,threads,file=" + jfr + ",file=" + collapsed)
                .main(KnownAnswer.class, dir.resolve("truth.properties").toString(), "1400", "600")
                .run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());
        if (!Files.isRegularFile(jfr) || Files.size(jfr) == 0) {
            String why = run.candorLines().isEmpty() ? "no candor: line" : String.join(" / ", run.candorLines());
            Figures.line(name + ": skipped, the agent wrote no .jfr (" + why + ")");
            Assumptions.abort("the agent wrote no " + jfr + " (" + why + ")");
        }
        CollapsedProfile agent = Profiles.collapsed(collapsed, run);

        Path otlp = dir.resolve("ka.otlp");
        ReportTool.Ran r = ReportTool.report(jdk, dir, jfr.toString(), "-o", otlp.toString());
        assertEquals(0, r.exitCode(), r.describe());
        OtlpMessage read = OtlpMessage.parse(Files.readAllBytes(otlp));
        Profile profile = read.onlyProfile();
        assertEquals("samples", read.string(profile.getSampleType().getTypeStrindex()), name);
        assertEquals("count", read.string(profile.getSampleType().getUnitStrindex()), name);
        assertEquals("candor", read.request().getResourceProfiles(0).getScopeProfiles(0).getScope().getName());

        long total = 0;
        long withA = 0;
        long withB = 0;
        long failed = 0;
        long onWorker = 0;
        for (Sample s : profile.getSamplesList()) {
            long v = s.getValuesList().stream().mapToLong(Long::longValue).sum();
            assertEquals(s.getValuesCount(), s.getTimestampsUnixNanoCount(), name + ": a timestamp per value");
            List<String> names = read.names(s);
            Map<String, AnyValue> attrs = read.attributes(s.getAttributeIndicesList());
            total += v;
            withA += names.contains(METHOD_A) ? v : 0;
            withB += names.contains(METHOD_B) ? v : 0;
            if (attrs.containsKey("candor.failure")) {
                // the bucket keeps its pseudo-frame, innermost
                assertEquals("[" + attrs.get("candor.failure").getStringValue() + "]", names.get(0), name);
                failed += v;
            }
            if (attrs.containsKey("thread.name")
                    && attrs.get("thread.name").getStringValue().equals(KnownAnswer.THREAD)) {
                onWorker += v;
            }
        }
        double agentA = ReportTool.share(agent, METHOD_A);
        double agentB = ReportTool.share(agent, METHOD_B);
        double otlpA = total == 0 ? 0 : (double) withA / total;
        double otlpB = total == 0 ? 0 : (double) withB / total;
        Figures.line(String.format("%s: agent .collapsed %d samples (A %s, B %s, failures %d), OTLP of .jfr %d"
                        + " samples (A %s, B %s, candor.failure %d, thread.name=%s %d), %d bytes; diff A %+.2f,"
                        + " B %+.2f points", name, agent.total(), Figures.pct(agentA), Figures.pct(agentB),
                agent.failures(), total, Figures.pct(otlpA), Figures.pct(otlpB), failed, KnownAnswer.THREAD,
                onWorker, Files.size(otlp), 100 * (otlpA - agentA), 100 * (otlpB - agentB)));
        assertTrue(agent.total() >= 500, name + ": too few samples in the agent's profile: " + agent.total());
        assertEquals(agentA, otlpA, TOLERANCE, name + ": share of A, agent .collapsed vs OTLP of .jfr");
        assertEquals(agentB, otlpB, TOLERANCE, name + ": share of B, agent .collapsed vs OTLP of .jfr");
        assertTrue(onWorker >= withA, name + ": methodA's samples carry thread.name=" + KnownAnswer.THREAD);
        assertEquals("jvm", read.frameType(METHOD_A), name + ": profile.frame.type of methodA");

        // the round trip: the OTLP's stacks, folded, are the collapsed stacks candor reports of the .jfr
        Map<String, Long> fromOtlp = new java.util.TreeMap<>();
        for (Sample s : profile.getSamplesList()) {
            // collapsed text marks kernel frames with _[k]; OTLP with their frame type
            List<String> leafFirst = read.locations(s).stream()
                    .map(l -> read.name(l) + ("kernel".equals(read.frameType(l)) ? "_[k]" : "")).toList();
            List<String> rootFirst = new java.util.ArrayList<>(leafFirst);
            java.util.Collections.reverse(rootFirst);
            fromOtlp.merge(String.join(";", rootFirst), s.getValuesList().stream().mapToLong(Long::longValue).sum(),
                    Long::sum);
        }
        ReportTool.Ran folded = ReportTool.report(jdk, dir, jfr.toString(), "-o", "ka-report.collapsed");
        assertEquals(0, folded.exitCode(), folded.describe());
        Map<String, Long> fromJfr = new java.util.TreeMap<>();
        for (CollapsedProfile.Stack st : CollapsedProfile.parse(Files.readString(dir.resolve("ka-report.collapsed")))
                .stacks()) {
            fromJfr.merge(String.join(";", st.frames()), st.count(), Long::sum);
        }
        java.util.Set<String> differ = new java.util.TreeSet<>(fromJfr.keySet());
        differ.addAll(fromOtlp.keySet());
        differ.removeIf(k -> java.util.Objects.equals(fromJfr.get(k), fromOtlp.get(k)));
        Figures.line(String.format("%s: round trip: %d distinct stacks in the report of the .jfr, %d in the OTLP,"
                + " %d differ", name, fromJfr.size(), fromOtlp.size(), differ.size()));
        assertTrue(differ.isEmpty(), name + ": stacks of OTLP vs candor report of the .jfr differ, e.g. "
                + differ.stream().limit(5).map(k -> k + " jfr=" + fromJfr.get(k) + " otlp=" + fromOtlp.get(k)).toList());
    }

}

package dev.candor.itest;

import dev.candor.itest.workload.KnownAnswer;
import dev.candor.model.CollapsedProfile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static dev.candor.itest.ReportTool.METHOD_A;
import static dev.candor.itest.ReportTool.METHOD_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Round trip: one run of the known-answer workload with the agent writing both a .jfr and a
 * .collapsed; {@code candor report} of the .jfr to collapsed gives the same shares of method A
 * and method B (within 1 point) as the agent's own .collapsed. Skipped, saying so, while the
 * agent cannot write JFR yet.
 */
class ReportRoundTripTest {
    static final double TOLERANCE = 0.01;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void agentJfrReportsLikeTheAgentsCollapsed(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "round trip " + jdk;
        Path dir = Build.runDir("report-round-trip-" + jdk.label());
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

        Path reported = dir.resolve("report.collapsed");
        ReportTool.Ran r = ReportTool.report(jdk, dir, jfr.toString(), "--threads", "-o", reported.toString());
        assertEquals(0, r.exitCode(), r.describe());
        CollapsedProfile fromJfr = CollapsedProfile.read(reported);

        double agentA = ReportTool.share(agent, METHOD_A);
        double agentB = ReportTool.share(agent, METHOD_B);
        double jfrA = ReportTool.share(fromJfr, METHOD_A);
        double jfrB = ReportTool.share(fromJfr, METHOD_B);
        Figures.line(String.format("%s: agent .collapsed %d samples (A %s, B %s, failures %d), report of .jfr %d"
                        + " samples (A %s, B %s, failures %d); diff A %+.2f, B %+.2f points", name, agent.total(),
                Figures.pct(agentA), Figures.pct(agentB), agent.failures(), fromJfr.total(), Figures.pct(jfrA),
                Figures.pct(jfrB), fromJfr.failures(), 100 * (jfrA - agentA), 100 * (jfrB - agentB)));
        assertTrue(agent.total() >= 500, name + ": too few samples in the agent's profile: " + agent.total());
        assertEquals(agentA, jfrA, TOLERANCE, name + ": share of A, agent .collapsed vs report of .jfr");
        assertEquals(agentB, jfrB, TOLERANCE, name + ": share of B, agent .collapsed vs report of .jfr");
        assertTrue(fromJfr.thread(KnownAnswer.THREAD).isPresent(), name + ": no [" + KnownAnswer.THREAD
                + " tid=N] root in the report: " + fromJfr.roots());
    }
}

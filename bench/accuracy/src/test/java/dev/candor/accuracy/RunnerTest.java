package dev.candor.accuracy;

import dev.candor.accuracy.cases.Truth;
import dev.candor.model.Cct;
import dev.candor.compare.Inputs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The runner's judgement of a sample (which method it charges) and the truth recorder's output. */
class RunnerTest {
    @TempDir
    Path dir;

    static final String P = Runner.PKG;

    @Test
    void hotMeansTheInnermostWorkloadFrame() {
        Runner.Case ic = Runner.cases().stream().filter(c -> c.id().equals("intrinsics")).findFirst().orElseThrow();
        assertTrue(Runner.isHot(ic, List.of(P + "Intrinsics.work", P + "Intrinsics.copy")));
        // JDK frames below count for the workload method calling them
        assertTrue(Runner.isHot(ic, List.of(P + "Intrinsics.work", P + "Intrinsics.copy", "java.lang.System.arraycopy")));
        assertTrue(!Runner.isHot(ic, List.of(P + "Intrinsics.work", P + "Intrinsics.checksum")));
        assertTrue(!Runner.isHot(ic, List.of("[unknown_java]")));
        // measurement frames are not the hot method
        assertEquals(P + "Truth (measurement)", Runner.deepestWorkloadFrame(
                List.of(P + "Intrinsics.work", P + "Truth.stop", "java.lang.StackWalker.walk")));
        Runner.Case lc = Runner.cases().stream().filter(c -> c.id().equals("loop-then-call")).findFirst().orElseThrow();
        // time in a workload method the hot one calls does not count for it
        assertTrue(!Runner.isHot(lc, List.of(P + "LoopThenCall.work", P + "LoopThenCall.hot", P + "LoopThenCall.setResult")));
        Runner.Case gc = Runner.cases().stream().filter(c -> c.id().equals("generated")).findFirst().orElseThrow();
        assertTrue(Runner.isHot(gc, List.of(P + "Generated.work", P + "Generated$$Lambda.applyAsLong",
                P + "Generated.lambda$streams$2", P + "Generated.spin")));
        assertTrue(!Runner.isHot(gc, List.of(P + "Generated.work", P + "Generated.viaProxy", P + "Generated.spin")));
    }

    @Test
    void truthTreeIsReadByCompare() throws Exception {
        long t = Truth.start();
        long x = 0;
        for (int i = 0; i < 2_000_000; i++) {
            x += i * 31L ^ x;
        }
        Truth.sink = x;
        Truth.stop(t, 0, P + "Fake.hot");
        Path truth = dir.resolve("truth.collapsed");
        Truth.write(truth, Map.of("case", "test"));
        Inputs.Loaded in = Inputs.load(truth, Inputs.Options.DEFAULT.withFocus(
                java.util.regex.Pattern.compile("RunnerTest\\.truthTreeIsReadByCompare$")));
        Cct.Node hot = in.cct().find(List.of(P.replace("cases.", "") + "RunnerTest.truthTreeIsReadByCompare",
                P + "Fake.hot"));
        assertTrue(hot != null && hot.self() > 0, in.cct().toString());
        assertTrue(Files.readString(Path.of(truth + ".properties")).contains("measured_ns="));
    }

    @Test
    void handoffTruthSplitsEachThreadsCpu() throws Exception {
        Path truth = dir.resolve("handoff.collapsed");
        dev.candor.accuracy.cases.Handoff.main(new String[] {truth.toString(), "300"});
        Inputs.Loaded in = Inputs.load(truth, Inputs.Options.DEFAULT.withFocus(
                java.util.regex.Pattern.compile("Handoff\\.work$")));
        Runner.Case hc = Runner.cases().stream().filter(c -> c.id().equals("handoff")).findFirst().orElseThrow();
        double hot = Runner.hotShare(hc, in.cct());
        // Both charges are there: afterWake's and the hand-overs' (park, unpark, switches). How they divide
        // depends on the machine: 0.42-0.56 here when quiet, 0.15 in one loaded fresh-clone `make test`,
        // where the hand-overs cost more; without the second charge the share is 1, without the first 0.
        assertTrue(hot > 0.02 && hot < 0.98, "afterWake's share of the truth: " + hot);
        // the two charges add up to the workers' CPU in work (their whole CPU, less start and end)
        String props = Files.readString(Path.of(truth + ".properties"));
        long threads = props.lines().filter(l -> l.startsWith("threads_cpu_ns="))
                .mapToLong(l -> Long.parseLong(l.substring(l.indexOf('=') + 1))).sum();
        assertTrue(in.cct().total() <= threads && in.cct().total() > 0.9 * threads,
                "truth " + in.cct().total() + " ns, worker threads' CPU " + threads + " ns");
    }

    @Test
    void jfrDurations() {
        assertEquals("1 ms", Runner.jfrDuration("1ms"));
        assertEquals("100 us", Runner.jfrDuration("100us"));
    }
}

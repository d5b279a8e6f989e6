package dev.candor.jmh;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import org.openjdk.jmh.runner.WorkloadParams;
import org.openjdk.jmh.runner.options.TimeValue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class TrialDirTest {

    @Test
    void benchmarkAndModeWithoutParameters() {
        BenchmarkParams p = params("org.acme.Bench.work", Mode.Throughput, new WorkloadParams());
        assertEquals("org.acme.Bench.work-Throughput", TrialDir.name(p));
        assertEquals(Path.of("/out/org.acme.Bench.work-Throughput"), TrialDir.of(Path.of("/out"), p));
        assertEquals("org.acme.Bench.work (thrpt)", TrialDir.title(p));
    }

    @Test
    void parametersInDeclarationOrder() {
        WorkloadParams w = new WorkloadParams();
        w.put("size", "100", 0);
        w.put("kind", "fast", 1);
        BenchmarkParams p = params("org.acme.Bench.work", Mode.AverageTime, w);
        assertEquals("org.acme.Bench.work-AverageTime-kind-fast-size-100", TrialDir.name(p),
                "JMH sorts parameters by name, as -prof jfr and -prof async name their directories");
        assertEquals("org.acme.Bench.work (avgt kind=fast size=100)", TrialDir.title(p));
    }

    @Test
    void valuesThatWouldBreakAPathOrTheAgentOptionsAreEncoded() {
        WorkloadParams w = new WorkloadParams();
        w.put("spec", "a,b/c d", 0);
        String name = TrialDir.name(params("B.m", Mode.SampleTime, w));
        assertEquals("B.m-SampleTime-spec-a%2Cb%2Fc+d", name);
        assertFalse(name.contains(",") || name.contains("/"));
    }

    private static BenchmarkParams params(String benchmark, Mode mode, WorkloadParams workload) {
        IterationParams warmup = new IterationParams(IterationType.WARMUP, 1, TimeValue.seconds(1), 1);
        IterationParams measurement = new IterationParams(IterationType.MEASUREMENT, 2, TimeValue.seconds(1), 1);
        return new BenchmarkParams(benchmark, benchmark + "_jmhTest", false, 1, new int[] {1}, List.of(), 1, 0,
                warmup, measurement, mode, workload, TimeUnit.SECONDS, 1, "java", List.of(), "17.0.15", "OpenJDK",
                "17.0.15+6", "1.37", TimeValue.minutes(10));
    }
}

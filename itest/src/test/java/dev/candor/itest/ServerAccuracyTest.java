package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A known answer on a real server: the bench's Jetty server (bench/workloads, 50 pool threads,
 * JSON, regex, SHA-256 and mixed endpoints) under wrk on 127.0.0.1, profiled by candor's default
 * cpu engine. The server measures where its CPU went itself: each endpoint's thread CPU clock
 * (user + system) around its method, beside its Java threads' CPU; the rest is Jetty's I/O and
 * HTTP work ("other", where most of the system time is). The profile's shares of the five parts
 * must be that distribution within 3 points each, where the kernel is sampled (root's per-CPU
 * default) and as an unprivileged user (kernel time estimated from CPU clocks and placed at the
 * system calls a CPU-time timer finds; see below). A profiler blind to kernel time shrinks
 * "other" by the server's system share (~12%) and fails.
 */
class ServerAccuracyTest {

    private static final Pattern ENDPOINT = Pattern.compile("dev\\.candor\\.bench\\.Endpoints\\.(json|regex|hash|mix)");
    private static final List<String> PARTS = List.of("json", "regex", "hash", "mix", "other");

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (Jdks.Jdk jdk : Jdks.all()) {
            out.add(Arguments.of(jdk, false));
            out.add(Arguments.of(jdk, true));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} unprivileged={1}")
    @MethodSource("cases")
    void endpointSharesMatchTheServersOwnMeasure(Jdks.Jdk jdk, boolean unprivileged) throws Exception {
        jdk.assumePresent();
        Path repo = Build.target().getParent().getParent();
        Path jar = repo.resolve("bench/workloads/target/candor-bench-workloads.jar");
        assertTrue(Files.isRegularFile(jar), jar + " not found: make tools builds it");
        Path wrk = Path.of("/usr/bin/wrk");
        assertTrue(Files.isExecutable(wrk), "wrk not found: make deps installs it");
        String name = "server accuracy " + jdk + (unprivileged ? " unprivileged" : "");
        Path dir = Build.runDir("server-accuracy-" + jdk.label() + (unprivileged ? "-unprivileged" : ""));
        Path profile = dir.resolve("server.collapsed");
        Path stats = dir.resolve("stats.json");
        Jvm jvm = Jvm.of(jdk, dir);
        if (unprivileged) {
            jvm.unprivileged();
        }
        long stealBefore = MachineSteal.nowNs();
        Jvm.Started server = jvm.agent("start,event=cpu,interval=1ms,file=" + profile + ",stats=" + stats)
                .jvmArg("-Xms512m", "-Xmx512m")
                .main("dev.candor.bench.Main", jar, "jetty", "--threads", "50", "--port-file",
                        dir.resolve("port").toString(), "--bodies", dir.resolve("bodies").toString(), "--timeout", "300")
                .start();
        JsonNode result;
        try {
            int port = awaitPort(server, dir.resolve("port"));
            Process load = new ProcessBuilder(wrk.toString(), "-t1", "-c4", "-d12s", "-s",
                    repo.resolve("bench/server/pace.lua").toString(), "http://127.0.0.1:" + port, "--",
                    dir.resolve("bodies").toString(), "2")
                    .redirectOutput(dir.resolve("wrk.txt").toFile()).redirectErrorStream(true).start();
            assertTrue(load.waitFor(60, TimeUnit.SECONDS), "wrk finishes");
            assertEquals(0, load.exitValue(), Files.readString(dir.resolve("wrk.txt")));
            HttpResponse<String> stop = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/admin/stop")).POST(HttpRequest.BodyPublishers.noBody())
                    .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
            result = new ObjectMapper().readTree(stop.body());
        } finally {
            if (!server.process().waitFor(60, TimeUnit.SECONDS)) {
                server.process().destroyForcibly();
            }
        }
        Jvm.Result run = server.await(Duration.ofSeconds(10));
        assertEquals(0, run.exitCode(), run.describe());
        assertEquals(0, result.path("errors").asLong(), name + ": the server answered every request: " + result);

        double java = result.path("java_threads_cpu_s").asDouble();
        Map<String, Double> truth = new LinkedHashMap<>();
        for (String e : PARTS.subList(0, 4)) {
            truth.put(e, result.path("endpoint_cpu_s").path(e).asDouble() / java);
        }
        truth.put("other", 1 - truth.values().stream().mapToDouble(Double::doubleValue).sum());
        Map<String, Double> got = endpointShares(profile);
        double distance = 0;
        List<String> cells = new ArrayList<>();
        for (String part : PARTS) {
            distance += Math.abs(got.get(part) - truth.get(part)) / 2;
            cells.add(String.format("%s %.1f%% (truth %.1f%%)", part, 100 * got.get(part), 100 * truth.get(part)));
        }
        // The machine's steal time beside the figures: on a guest slowed down (half the usual requests served)
        // the unprivileged placement missed "other" by 3.1 points once, within 1 point right after.
        cells.add(String.format("machine steal %d ms", (MachineSteal.nowNs() - stealBefore) / 1_000_000));
        JsonNode s = new ObjectMapper().readTree(stats.toFile());
        Figures.line(String.format("%s: %d requests, timers %s, kernel %s; %s; distance %.3f", name,
                result.path("requests").asLong(), s.path("timers").asText(), s.path("kernel").path("mode").asText(),
                String.join(", ", cells), distance));
        assertTrue(result.path("requests").asLong() > 3000, name + ": too few requests for the shares: " + result);
        // 3 points. Where the kernel's time is estimated from CPU clocks, its amount is exact and its place the
        // system calls a CPU-time timer stopped the thread at; what the timer cannot find (a context switch runs
        // with interrupts off) is owed on, and paid in the share of the thread's switches where it blocked at its
        // last system call, the rest where it runs (README, "What the cpu profile covers"). Per-CPU timers lose
        // ticks as a thread is switched out, placed the same way. The estimated kernel ticks must be there, named
        // (a profiler blind to kernel time has none, and misses "other" by about the server's system share, 12%).
        // Placed at each thread's next tick (before 2026-11-27), 4.8-5.7 points of "other" landed in the endpoint
        // that ran next; the debts at stop put on each idle pool thread's park lifted "other" 1.6-2.8 points. On a
        // guest whose context switches cost much, debts past 16 intervals paid whole at the next tick, and the
        // ticks lost at switches and the debts at stop left stackless (until 2026-11-28), put regex 2-5 points high
        // and "other" as much low, as root too; since, every part within 1.9 points in 3 runs of each case (distance
        // 0.008-0.020; 2.6 points in 5 more with only the blocked share placed). Per-CPU timers at exactly 1 ms kept one
        // phase against the kernel's 4 ms tick for a whole run, and runs leant each its own way (regex -1.6 to +2.3
        // points as root on JDK 17); they now run 0.3% under it (run-to-run standard deviation 0.4-0.57 points
        // against 0.70-1.2 in three batches: bench/results/RESULTS-server-phase.md).
        boolean sampled = s.path("kernel").path("mode").asText().equals("sampled");
        double tolerance = 0.03;
        if (!sampled) {
            long estimated = s.path("kernel").path("estimated_ticks").asLong();
            assertTrue(estimated >= 0.05 * s.path("ticks").asLong(), name + ": the server's system time is "
                    + "counted as [kernel_unsampled] ticks: " + estimated + " of " + s.path("ticks").asLong());
            // What each pool thread still owes at stop, its idle threads most, is paid by a signal to each
            // (99.7% of the requested rate here; without, 97% on the bench's 200-thread server).
            double rate = s.path("samples_per_cpu_second").asDouble() / s.path("requested_per_cpu_second").asDouble();
            assertTrue(rate >= 0.985, name + ": samples per CPU-second " + Figures.pct(rate) + " of the requested rate");
        }
        for (String part : PARTS) {
            assertTrue(Math.abs(got.get(part) - truth.get(part)) <= tolerance, String.format(
                    "%s: %s is %.1f%% of the profile but %.1f%% of the server's CPU (tolerance %.0f points): %s", name,
                    part, 100 * got.get(part), 100 * truth.get(part), 100 * tolerance, cells));
        }
    }

    /**
     * The profile's samples by the endpoint on their stack, "other" for the rest, as shares; stacks
     * of pseudo-frames only (failures without a stack) are left out, as no profile can place them.
     */
    private static Map<String, Double> endpointShares(Path collapsed) throws Exception {
        Map<String, Long> counts = new LinkedHashMap<>();
        PARTS.forEach(p -> counts.put(p, 0L));
        long total = 0;
        for (String line : Files.readAllLines(collapsed)) {
            int space = line.lastIndexOf(' ');
            if (space < 0) {
                continue;
            }
            String[] frames = line.substring(0, space).split(";");
            long n = Long.parseLong(line.substring(space + 1));
            if (Stream.of(frames).allMatch(f -> f.startsWith("["))) {
                continue;
            }
            String part = "other";
            for (String f : frames) {
                Matcher m = ENDPOINT.matcher(f);
                if (m.matches()) {
                    part = m.group(1);
                    break;
                }
            }
            counts.merge(part, n, Long::sum);
            total += n;
        }
        assertTrue(total > 2000, collapsed + ": too few samples: " + total);
        Map<String, Double> shares = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : counts.entrySet()) {
            shares.put(e.getKey(), (double) e.getValue() / total);
        }
        return shares;
    }

    private static int awaitPort(Jvm.Started server, Path portFile) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (Files.exists(portFile)) {
                return Integer.parseInt(Files.readString(portFile).strip());
            }
            if (!server.process().isAlive()) {
                fail("the server exited before it listened: " + server.await(Duration.ofSeconds(5)).describe());
            }
            Thread.sleep(50);
        }
        return fail("the server wrote no port file within 60 s");
    }
}

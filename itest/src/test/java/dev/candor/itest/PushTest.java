package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.candor.itest.workload.KnownAnswer;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code push=URL}: every loop= interval's recording goes to a Pyroscope-compatible ingest
 * endpoint, here a real HTTP server the test starts (the JDK's). Each request is
 * {@code POST /ingest?name=SERVICE&from=&until=&format=jfr&sampleRate=&spyName=} with the JFR as
 * the "jfr" part of a multipart body: the intervals follow each other, every part is a recording
 * the JDK's parser reads, and together they hold every recorded sample of the run, led by the
 * known answer's hot method. A dead, failing (500) or hanging backend costs the JVM nothing: it runs to its end, exit 0, the unsent intervals are counted in
 * the stats, at most one log line says why, and candor's own temporary files are gone.
 */
class PushTest {

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void intervalsArriveAndHoldTheProfile(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "push " + jdk;
        Path dir = Build.runDir("push-" + jdk.label());
        Path stats = dir.resolve("push.json");
        Jvm.Result run;
        List<Receiver.Request> requests;
        try (Receiver receiver = Receiver.start(Receiver.Answer.OK)) {
            run = Jvm.of(jdk, dir).agent("start,event=cpu,interval=1ms,loop=1s,service=itest-svc,pushlabels=region=lab+env=itest,push=http://127.0.0.1:"
                            + receiver.port() + ",stats=" + stats)
                    .main(KnownAnswer.class, dir.resolve("truth.properties").toString(), "2500", "1000")
                    .run(Duration.ofSeconds(90));
            requests = receiver.requests();
        }
        assertEquals(0, run.exitCode(), run.describe());
        JsonNode s = new ObjectMapper().readTree(stats.toFile());
        long samples = 0;
        hot = 0;
        long previousUntil = -1;
        for (Receiver.Request r : requests) {
            assertEquals("/ingest", r.path(), name);
            assertEquals("itest-svc{env=itest,region=lab}", r.query().get("name"), name + ": " + r.query());
            assertEquals("jfr", r.query().get("format"));
            // samples per second of the interval that ran: 1 ms asked, 997 us with per-CPU timers (root's default)
            assertEquals(String.valueOf(Math.round(1e9 / s.path("interval_ns").asLong())), r.query().get("sampleRate"),
                    name + ": " + r.query());
            assertTrue(r.query().containsKey("spyName"), r.query().toString());
            long from = Long.parseLong(r.query().get("from")), until = Long.parseLong(r.query().get("until"));
            assertTrue(from < until, name + ": from < until " + r.query());
            if (previousUntil >= 0) {
                assertTrue(Math.abs(from - previousUntil) <= 1, name + ": intervals follow each other " + r.query());
            }
            previousUntil = until;
            samples += executionSamples(jfrPart(r), dir);
            hot += hotSamples;
        }
        Figures.line(String.format("%s: %d requests (%s), %d samples in them, %d recorded; stats push %s", name,
                requests.size(), requests.isEmpty() ? "-" : requests.get(0).query(), samples,
                s.path("recorded").asLong(), s.path("push")));  // recorded: the last interval's
        assertTrue(requests.size() >= 3, name + ": an interval a second over a run of 3.5 s and more");
        assertTrue(hot > samples / 2, name + ": the known answer's hot method leads the pushed samples (" + hot + " of "
                + samples + ")");
        long recorded = 0;  // loop= rotates the stats too: one file per interval, the last one is push.json
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.getFileName().toString().matches("push(-\\d{8}-\\d{6}(-\\d+)?)?\\.json"))
                    .toList()) {
                recorded += new ObjectMapper().readTree(f.toFile()).path("recorded").asLong();
            }
        }
        assertEquals(recorded, samples, name + ": the intervals hold every recorded sample");
        assertEquals(requests.size(), s.path("push").path("sent").asLong());
        assertEquals(0, s.path("push").path("failed").asLong() + s.path("push").path("dropped").asLong());
        try (Stream<Path> files = Files.list(dir)) {
            assertFalse(files.anyMatch(f -> f.getFileName().toString().matches("candor-[0-9]+\\.html")),
                    name + ": no page written by default");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aDeadBackendCostsTheJvmNothing(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "push to nowhere " + jdk;
        Path dir = Build.runDir("push-dead-" + jdk.label());
        int port;
        try (ServerSocket s = new ServerSocket(0)) {  // a port nothing listens on once closed
            port = s.getLocalPort();
        }
        List<Path> before = pushDirs();
        Path stats = dir.resolve("push.json");
        Jvm.Result run = Jvm.of(jdk, dir).agent("start,event=cpu,interval=1ms,loop=1s,push=http://127.0.0.1:" + port
                        + ",stats=" + stats)
                .main(KnownAnswer.class, dir.resolve("truth.properties").toString(), "2500", "1000")
                .run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), run.describe());
        JsonNode push = new ObjectMapper().readTree(stats.toFile()).path("push");
        long failureLines = run.stderr().lines().filter(l -> l.contains("failed: cannot connect")).count();
        Figures.line(String.format("%s: exit 0 after %d ms; stats push %s; %d failure line(s)", name,
                run.elapsed().toMillis(), push, failureLines));
        assertEquals(0, push.path("sent").asLong(), name);
        assertTrue(push.path("failed").asLong() + push.path("dropped").asLong() >= 3, name + ": unsent intervals counted");
        assertEquals(1, failureLines, name + ": one line a minute at most\n" + run.stderr());
        assertEquals(before, pushDirs(), name + ": candor's interval files are gone");
    }

    /**
     * Receivers that answer 500 or never answer: the run takes as long as without push= (within
     * 5%: a failing backend gets no time at the exit), every interval is counted as failed or
     * dropped, and one line says why.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void badReceiversCostTheJvmNothing(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path base = Build.runDir("push-bad-" + jdk.label());
        java.time.Instant plainStart = java.time.Instant.now();
        Jvm.Result plain = Jvm.of(jdk, base).agent("start,event=cpu,interval=1ms,loop=1s,stats=" + base.resolve("plain.json"))
                .main(KnownAnswer.class, base.resolve("truth.properties").toString(), "2500", "1000")
                .run(Duration.ofSeconds(90));
        assertEquals(0, plain.exitCode(), plain.describe());
        long plainExitMs = exitMs(plainStart, plain, base.resolve("truth.properties"));
        for (String kind : List.of("refused", "500", "hang")) {
            String name = "push to " + switch (kind) {
                case "refused" -> "a closed port ";
                case "500" -> "a receiver that answers 500 ";
                default -> "a receiver that never answers ";
            } + jdk;
            // What push= can cost the run is its exit: the workload's own time is CPU work, as noisy
            // as the machine. The exit may take at most 5% of the plain run longer. One exit is one
            // sample of a noisy machine (a fresh clone once took 280 ms where 13-36 ms are usual, its
            // plain JDK 25 exit 113 ms where 1-9 are): a slow one is measured once more, and a push
            // that holds the exit up is slow both times.
            long slack = plainExitMs + (long) (0.05 * plain.elapsed().toMillis());
            long runExitMs = badReceiverExitMs(jdk, kind, name, plain, plainExitMs);
            if (runExitMs > slack) {
                Figures.line(name + ": slow exit, measured again");
                runExitMs = badReceiverExitMs(jdk, kind, name, plain, plainExitMs);
            }
            assertTrue(runExitMs <= slack, name + ": the exit took "
                    + runExitMs + " ms against " + plainExitMs + " ms (run " + plain.elapsed().toMillis() + " ms)");
        }
    }

    // One run pushing to a bad receiver of `kind`: checks what it counted and said; returns its exit's ms.
    private static long badReceiverExitMs(Jdks.Jdk jdk, String kind, String name, Jvm.Result plain, long plainExitMs)
            throws Exception {
        Path dir = Build.runDir("push-bad-" + kind + "-" + jdk.label());
        Receiver server = Receiver.start(kind.equals("hang") ? Receiver.Answer.NEVER : Receiver.Answer.ERROR_500);
        int port = server.port();
        if (kind.equals("refused")) {
            server.close();  // nothing listens there any more
        }
        Jvm.Result run;
        java.time.Instant start = java.time.Instant.now();
        try {
            run = Jvm.of(jdk, dir).agent("start,event=cpu,interval=1ms,loop=1s,push=http://127.0.0.1:"
                            + port + ",stats=" + dir.resolve("push.json"))
                    .main(KnownAnswer.class, dir.resolve("truth.properties").toString(), "2500", "1000")
                    .run(Duration.ofSeconds(90));
        } finally {
            server.close();
        }
        assertEquals(0, run.exitCode(), run.describe());
        JsonNode push = new ObjectMapper().readTree(dir.resolve("push.json").toFile()).path("push");
        long lines = run.stderr().lines().filter(l -> l.contains("candor: push to") && l.contains("failed:")).count();
        long runExitMs = exitMs(start, run, dir.resolve("truth.properties"));
        Figures.line(String.format("%s: %d ms against %d ms without push= (from the workload's end to the exit: %d ms"
                        + " against %d ms); stats push %s; %d failure line(s)", name, run.elapsed().toMillis(),
                plain.elapsed().toMillis(), runExitMs, plainExitMs, push, lines));
        assertEquals(0, push.path("sent").asLong(), name);
        assertTrue(push.path("failed").asLong() + push.path("dropped").asLong() >= 3, name + ": unsent intervals counted");
        assertTrue(lines <= 1, name + ": one line a minute at most\n" + run.stderr());
        return runExitMs;
    }

    // From the workload's end (it writes its truth file last) to the JVM's exit.
    private static long exitMs(java.time.Instant start, Jvm.Result run, Path truth) throws java.io.IOException {
        java.time.Instant done = Files.getLastModifiedTime(truth).toInstant();
        return Duration.between(done, start.plus(run.elapsed())).toMillis();
    }

    private static byte[] jfrPart(Receiver.Request r) {
        assertTrue(r.contentType() != null && r.contentType().startsWith("multipart/form-data; boundary="), r.contentType());
        String boundary = "--" + r.contentType().substring(r.contentType().indexOf("boundary=") + 9);
        String text = new String(r.body(), StandardCharsets.ISO_8859_1);  // bytes as chars, one for one
        int part = text.indexOf(boundary + "\r\n");
        int header = text.indexOf("name=\"jfr\"", part);
        int start = text.indexOf("\r\n\r\n", header) + 4;
        int end = text.indexOf("\r\n" + boundary + "--", start);
        assertTrue(part >= 0 && header > part && start > header && end > start, "a multipart body with a jfr part");
        return Arrays.copyOfRange(r.body(), start, end);
    }

    private long hot;
    private long hotSamples;

    // Counts the interval's ExecutionSamples, and in hotSamples those with Hot.methodA on top.
    private long executionSamples(byte[] jfr, Path dir) throws IOException {
        Path file = Files.createTempFile(dir, "interval-", ".jfr");
        Files.write(file, jfr);
        long n = 0;
        hotSamples = 0;
        try (RecordingFile rf = new RecordingFile(file)) {
            while (rf.hasMoreEvents()) {
                RecordedEvent e = rf.readEvent();
                if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
                    continue;
                }
                n++;
                var frames = e.getStackTrace() == null ? List.<jdk.jfr.consumer.RecordedFrame>of() : e.getStackTrace().getFrames();
                if (!frames.isEmpty() && (frames.get(0).getMethod().getType().getName() + "." + frames.get(0).getMethod().getName())
                        .equals(dev.candor.itest.workload.Hot.METHOD_A)) {
                    hotSamples++;
                }
            }
        }
        return n;
    }

    private static List<Path> pushDirs() throws IOException {
        String tmp = System.getenv().getOrDefault("TMPDIR", "/tmp");
        try (Stream<Path> s = Files.list(Path.of(tmp))) {
            return s.filter(p -> p.getFileName().toString().startsWith("candor-push-")).sorted().toList();
        }
    }
}

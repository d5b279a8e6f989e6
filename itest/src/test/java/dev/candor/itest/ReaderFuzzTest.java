package dev.candor.itest;

import dev.candor.itest.stress.Busy;
import dev.candor.model.ProfileReader;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A seeded mutation fuzzer for the readers of the tools (tools/model): collapsed stacks and JFR
 * recordings (the agent's and the JDK's) through {@link ProfileReader#read}, and the agent's stats JSON through
 * {@link ProfileStats#read}. Seeds are real files (an agent run with .collapsed, .json and
 * .jfr outputs, a JDK Flight Recorder recording) and hand-made ones; each input is 1-4 mutations of a seed (bit flips, interesting
 * values, truncation, deletion, duplication, insertion of separators and invalid UTF-8). Bad
 * input must end in a normal return or an IOException with a message (ProfileFormatException
 * is one), within 5 s: any other exception, an Error or a hang fails, and the input is kept in
 * target/reader-fuzz/ to reproduce. Deterministic (seed {@code candor.fuzz.seed}, default 8);
 * {@code candor.fuzz.seconds} per reader (default 6).
 */
class ReaderFuzzTest {
    static final Duration PER_INPUT = Duration.ofSeconds(5);
    static Path seeds;

    @BeforeAll
    static void makeSeeds() throws Exception {
        seeds = Build.runDir("reader-fuzz-seeds");
        Jdks.Jdk jdk = Jdks.all().get(0);
        jdk.assumePresent();
        Path collapsed = seeds.resolve("agent.collapsed");
        Path stats = seeds.resolve("agent.json");
        Jvm.Result run = Jvm.of(jdk, seeds).agent("start,interval=1ms,threads,lines,file=" + collapsed + ",stats=" + stats)
                .main(Busy.class, "0.8").run(Duration.ofSeconds(60));
        assertTrue(Files.isRegularFile(collapsed) && Files.isRegularFile(stats), "no seed files\n" + run.describe());
        Path adir = Files.createDirectories(seeds.resolve("agent-jfr"));
        Jvm.Result ajfr = Jvm.of(jdk, adir).agent("start,interval=1ms,file=" + seeds.resolve("agent.jfr"))
                .main(Busy.class, "0.8").run(Duration.ofSeconds(60));
        assertTrue(Files.isRegularFile(seeds.resolve("agent.jfr")), "no agent JFR seed\n" + ajfr.describe());
        Path jdir = Files.createDirectories(seeds.resolve("jfr"));
        Jvm.Result jfr = Jvm.of(jdk, jdir).jvmArg("-XX:StartFlightRecording=filename=" + seeds.resolve("jdk.jfr")
                        + ",settings=profile")
                .main(Busy.class, "0.8").run(Duration.ofSeconds(60));
        assertTrue(Files.isRegularFile(seeds.resolve("jdk.jfr")), "no JFR seed\n" + jfr.describe());
        Files.writeString(seeds.resolve("hand.collapsed"), "a.B.main;a.B.hot 12\na.B.main 3\n[gc_active] 2\n"
                + "[dropped] 1\n[worker tid=12];x.Y.z:17 4\n");
    }

    static List<byte[]> seedsFor(String kind) throws IOException {
        List<byte[]> list = new ArrayList<>();
        try (var files = Files.list(seeds)) {
            for (Path p : files.filter(Files::isRegularFile).sorted().toList()) {
                String n = p.getFileName().toString();
                if (n.endsWith("." + kind) && !n.startsWith("stdout") && !n.startsWith("stderr")) {
                    list.add(Files.readAllBytes(p));
                }
            }
        }
        if (kind.equals("json")) {
            list.add("{\"engine\":\"cpu\",\"ticks\":3,\"recorded\":1,\"dropped\":1,\"failures\":{\"gc_active\":1}}"
                    .getBytes(StandardCharsets.UTF_8));
        }
        return list;
    }

    static final byte[][] TOKENS = {";".getBytes(), " ".getBytes(), "\n".getBytes(), "\r".getBytes(), "\t".getBytes(),
            {0}, {(byte) 0xc0, (byte) 0x80}, {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, {(byte) 0xff},
            "99999999999999999999999".getBytes(), "-1".getBytes(), "[".getBytes(), "]".getBytes(), "{".getBytes(),
            "}".getBytes(), "\"".getBytes(), "\\".getBytes(), ":".getBytes(), "tid=".getBytes(), "FLR\0".getBytes(),
            "1e400".getBytes(), "null".getBytes()};
    static final long[] INTERESTING = {0, -1, 1, 0x7f, 0x80, 0xff, 0x7fff, 0xffff, Integer.MAX_VALUE, Integer.MIN_VALUE,
            Long.MAX_VALUE, Long.MIN_VALUE, 0x7fffffffffffL};

    static byte[] mutate(byte[] in, Random r) {
        byte[] b = in.clone();
        int n = 1 + r.nextInt(4);
        for (int k = 0; k < n; k++) {
            if (b.length == 0) {
                b = TOKENS[r.nextInt(TOKENS.length)].clone();
                continue;
            }
            int at = r.nextInt(b.length);
            switch (r.nextInt(8)) {
                case 0 -> b[at] ^= (byte) (1 << r.nextInt(8));
                case 1 -> b[at] = (byte) INTERESTING[r.nextInt(6)];
                case 2 -> {  // an interesting integer, big endian (JFR) at a random place
                    long v = INTERESTING[r.nextInt(INTERESTING.length)];
                    int len = 1 + r.nextInt(8);
                    for (int i = 0; i < len && at + i < b.length; i++) {
                        b[at + i] = (byte) (v >>> (8 * (len - 1 - i)));
                    }
                }
                case 3 -> b = java.util.Arrays.copyOf(b, at);  // truncate
                case 4 -> {  // delete a range
                    int len = Math.min(b.length - at, 1 + r.nextInt(64));
                    byte[] c = new byte[b.length - len];
                    System.arraycopy(b, 0, c, 0, at);
                    System.arraycopy(b, at + len, c, at, b.length - at - len);
                    b = c;
                }
                case 5 -> {  // duplicate a range at another place
                    int len = Math.min(b.length - at, 1 + r.nextInt(256));
                    b = insert(b, r.nextInt(b.length + 1), java.util.Arrays.copyOfRange(b, at, at + len));
                }
                case 6 -> b = insert(b, at, TOKENS[r.nextInt(TOKENS.length)]);
                default -> {
                    byte[] junk = new byte[1 + r.nextInt(16)];
                    r.nextBytes(junk);
                    b = insert(b, at, junk);
                }
            }
        }
        return b;
    }

    static byte[] insert(byte[] b, int at, byte[] what) {
        byte[] c = new byte[b.length + what.length];
        System.arraycopy(b, 0, c, 0, at);
        System.arraycopy(what, 0, c, at, what.length);
        System.arraycopy(b, at, c, at + what.length, b.length - at);
        return c;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"collapsed", "jfr", "json"})
    void badInputGetsAClearErrorNeverACrashOrHang(String kind) throws Exception {
        List<byte[]> seedList = seedsFor(kind);
        assertTrue(!seedList.isEmpty(), "no seeds for " + kind);
        double seconds = Double.parseDouble(System.getProperty("candor.fuzz.seconds", "6"));
        Random random = new Random(Long.getLong("candor.fuzz.seed", 8L) * 31 + kind.hashCode());
        Path work = Files.createDirectories(Build.target().resolve("reader-fuzz"));
        Path input = work.resolve("input." + kind);
        ExecutorService pool = Executors.newSingleThreadExecutor(daemon());
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        int inputs = 0;
        int accepted = 0;
        int rejected = 0;
        List<String> failures = new ArrayList<>();
        try {
            while (System.nanoTime() < deadline && failures.size() < 5) {
                byte[] data = inputs < seedList.size() ? seedList.get(inputs) : mutate(seedList.get(
                        random.nextInt(seedList.size())), random);
                Files.write(input, data);
                inputs++;
                Future<Object> f = pool.submit(() -> kind.equals("json") ? ProfileStats.read(input)
                        : ProfileReader.read(input));
                try {
                    f.get(PER_INPUT.toMillis(), TimeUnit.MILLISECONDS);
                    accepted++;
                } catch (TimeoutException e) {
                    f.cancel(true);
                    pool.shutdownNow();
                    pool = Executors.newSingleThreadExecutor(daemon());
                    failures.add(keep(work, kind, failures.size(), data) + ": no answer within " + PER_INPUT);
                } catch (java.util.concurrent.ExecutionException e) {
                    Throwable t = e.getCause();
                    if (t instanceof IOException && t.getMessage() != null && !t.getMessage().isBlank()) {
                        rejected++;
                    } else {
                        StringWriter sw = new StringWriter();
                        t.printStackTrace(new PrintWriter(sw));
                        failures.add(keep(work, kind, failures.size(), data) + ": "
                                + sw.toString().lines().limit(8).reduce((a, b) -> a + "\n" + b).orElse(""));
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
        Figures.line(String.format("reader fuzz %s: %d inputs in %.0f s from %d seeds: %d read, %d rejected with"
                + " an error, %d crashes or hangs", kind, inputs, seconds, seedList.size(), accepted, rejected,
                failures.size()));
        if (!failures.isEmpty()) {
            fail("reader fuzz " + kind + ": bad input did not get a clear error:\n" + String.join("\n\n", failures));
        }
    }

    private static String keep(Path work, String kind, int n, byte[] data) throws IOException {
        Path p = work.resolve("crash-" + n + "." + kind);
        Files.write(p, data);
        return p.toString();
    }

    private static java.util.concurrent.ThreadFactory daemon() {
        return r -> {
            Thread t = new Thread(r, "reader-fuzz");
            t.setDaemon(true);
            return t;
        };
    }
}

package dev.candor.itest;

import dev.candor.itest.workload.BusyThreads;
import dev.candor.itest.workload.Hot;
import dev.candor.model.ProfileStats;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.openjdk.jmc.common.IMCFrame;
import org.openjdk.jmc.common.IMCStackTrace;
import org.openjdk.jmc.common.item.IItem;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemIterable;
import org.openjdk.jmc.common.item.IMemberAccessor;
import org.openjdk.jmc.common.item.ItemFilters;
import org.openjdk.jmc.flightrecorder.JfrAttributes;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code file=x.jfr}: the recording is read by the JDK's own readers ({@code jfr summary} and
 * {@code jfr print} of JDK 17 and 25, {@code jdk.jfr.consumer.RecordingFile}) and by JDK Mission
 * Control's parser; its events account for every tick (ExecutionSamples = recorded,
 * FailedTicks = Σ failures, candor.ProfilerCounters closes the identity); it can be read while
 * the JVM still runs; the agent's memory does not grow with the length of the recording; and
 * {@code loop=} rotates to several files that are each valid.
 */
class JfrOutputTest {
    static final String SAMPLE = "jdk.ExecutionSample";
    static final String FAILED = "candor.FailedTick";
    static final String COUNTERS = "candor.ProfilerCounters";
    static final String SETTINGS = "candor.ProfilerSettings";

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    /** What RecordingFile saw in a file; chunks = settings events (one opens every chunk). */
    record Parsed(Map<String, Long> counts, long hotSamples, RecordedEvent lastCounters, long chunks) {
        long count(String type) {
            return counts.getOrDefault(type, 0L);
        }
    }

    static Parsed parse(Path file) throws IOException {
        Map<String, Long> counts = new TreeMap<>();
        long hot = 0;
        RecordedEvent counters = null;
        try (RecordingFile in = new RecordingFile(file)) {
            while (in.hasMoreEvents()) {
                RecordedEvent e = in.readEvent();
                String type = e.getEventType().getName();
                counts.merge(type, 1L, Long::sum);
                switch (type) {
                    case SAMPLE -> {
                        assertNotNull(e.getThread("sampledThread"), "a sample without its thread");
                        assertEquals("STATE_RUNNABLE", e.getString("state"), "thread state of a CPU sample");
                        RecordedStackTrace st = e.getStackTrace();
                        assertNotNull(st, "a sample without a stack trace");
                        assertTrue(!st.getFrames().isEmpty(), "a sample with an empty stack");
                        for (RecordedFrame f : st.getFrames()) {
                            if ((f.getMethod().getType().getName() + "." + f.getMethod().getName())
                                    .equals(Hot.METHOD_A)) {
                                hot++;
                                break;
                            }
                        }
                    }
                    case FAILED -> assertTrue(e.getString("bucket") != null && !e.getString("bucket").isEmpty(),
                            "a failed tick without its bucket");
                    case COUNTERS -> counters = e;
                    default -> {
                    }
                }
            }
        }
        return new Parsed(counts, hot, counters, counts.getOrDefault(SETTINGS, 0L));
    }

    /** Runs a JDK tool; returns stdout (stderr kept in the run directory). */
    static String tool(Jdks.Jdk jdk, Path dir, String name, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(jdk.home().resolve("bin").resolve("jfr").toString());
        cmd.addAll(List.of(args));
        Path out = dir.resolve(name + ".out");
        Path err = dir.resolve(name + ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(String.join(" ", cmd) + " did not finish");
        }
        String stderr = Files.readString(err);
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + " failed:\n" + stderr);
        assertTrue(stderr.isBlank(), String.join(" ", cmd) + " complained:\n" + stderr);
        return Files.readString(out);
    }

    /** The count of one event type in {@code jfr summary} output. */
    static long summaryCount(String summary, String type) {
        Matcher m = Pattern.compile("(?m)^\\s*" + Pattern.quote(type) + "\\s+(\\d+)\\s+\\d+").matcher(summary);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    static long printCount(String print, String type) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(type) + " \\{").matcher(print);
        long n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    /** JMC's parser: the number of execution samples, and how many have the hot method in their stack. */
    static long[] jmc(Path file) throws Exception {
        IItemCollection items = JfrLoaderToolkit.loadEvents(file.toFile());
        long n = 0;
        long hot = 0;
        for (IItemIterable it : items.apply(ItemFilters.type(SAMPLE))) {
            IMemberAccessor<IMCStackTrace, IItem> st = JfrAttributes.EVENT_STACKTRACE.getAccessor(it.getType());
            for (IItem item : it) {
                n++;
                IMCStackTrace trace = st.getMember(item);
                if (trace == null) {
                    continue;
                }
                for (IMCFrame f : trace.getFrames()) {
                    if ((f.getMethod().getType().getFullName() + "." + f.getMethod().getMethodName())
                            .equals(Hot.METHOD_A)) {
                        hot++;
                        break;
                    }
                }
            }
        }
        return new long[] {n, hot};
    }

    /** Every event accounted for: samples = recorded, failed ticks = Σ failures, counters = stats. */
    static void assertAccounting(Parsed p, ProfileStats stats, String name) {
        assertEquals(stats.recorded(), p.count(SAMPLE), name + ": " + SAMPLE + " events vs stats recorded");
        assertEquals(stats.failureTotal(), p.count(FAILED), name + ": " + FAILED + " events vs stats failures");
        assertNotNull(p.lastCounters(), name + ": no " + COUNTERS + " event");
        RecordedEvent c = p.lastCounters();
        assertEquals(stats.ticks(), c.getLong("ticks"), name + ": counters ticks vs stats");
        assertEquals(stats.dropped(), c.getLong("dropped"), name + ": counters dropped vs stats");
        assertEquals(c.getLong("ticks"), p.count(SAMPLE) + p.count(FAILED) + c.getLong("dropped"),
                name + ": samples + failed ticks + dropped = ticks");
        assertTrue(p.count(SETTINGS) >= 1, name + ": no " + SETTINGS + " event");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void readersAgree(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "jfr " + jdk;
        Path dir = Build.runDir("jfr-" + jdk.label());
        Path jfr = dir.resolve("r.jfr");
        Path statsFile = dir.resolve("r.json");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,interval=1ms,file=" + jfr + ",stats=" + statsFile)
                .main(BusyThreads.class, dir.resolve("truth.properties").toString(), "3", "jfr-0:A:1")
                .run(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), run.describe());
        ProfileStats stats = Profiles.stats(statsFile, run);
        Profiles.assertIdentity(stats, name);
        assertTrue(Files.size(jfr) > 0, name + ": empty " + jfr + "\n" + run.describe());

        Parsed p = parse(jfr);
        assertAccounting(p, stats, name + " (RecordingFile)");
        assertTrue(p.hotSamples() > p.count(SAMPLE) / 2, name + ": " + Hot.METHOD_A + " should be in most stacks: "
                + p.hotSamples() + " of " + p.count(SAMPLE));

        StringBuilder readers = new StringBuilder();
        for (Jdks.Jdk reader : Jdks.all()) {
            if (!reader.present()) {
                continue;
            }
            String tag = reader.label().replace(' ', '-');
            String summary = tool(reader, dir, "summary-" + tag, "summary", jfr.toString());
            assertEquals(stats.recorded(), summaryCount(summary, SAMPLE),
                    name + ": jfr summary of " + reader + " counts samples:\n" + summary);
            assertEquals(stats.failureTotal(), summaryCount(summary, FAILED),
                    name + ": jfr summary of " + reader + " counts failed ticks:\n" + summary);
            String print = tool(reader, dir, "print-" + tag, "print", jfr.toString());
            assertEquals(stats.recorded(), printCount(print, SAMPLE), name + ": jfr print of " + reader);
            assertTrue(print.contains(Hot.METHOD_A + "("),
                    name + ": jfr print of " + reader + " does not show the hot method");
            readers.append(' ').append(reader.label()).append(" ok");
        }

        long[] jmc = jmc(jfr);
        assertEquals(stats.recorded(), jmc[0], name + ": JMC's parser counts the samples");
        assertTrue(jmc[1] > jmc[0] / 2, name + ": JMC sees " + Hot.METHOD_A + " in " + jmc[1] + " of " + jmc[0]);

        Figures.line(String.format("%s: %d bytes, %d chunks; samples %d = recorded %d, failed ticks %d, dropped %d,"
                        + " ticks %d; hot method in %s of stacks; jfr tools:%s; JMC %d samples, %d with the hot method",
                name, Files.size(jfr), p.chunks(), p.count(SAMPLE), stats.recorded(), p.count(FAILED),
                stats.dropped(), stats.ticks(), Figures.pct((double) p.hotSamples() / Math.max(1, p.count(SAMPLE))),
                readers, jmc[0], jmc[1]));
    }

    /** The file is valid while the JVM runs: chunks are complete once written (every second). */
    @Test
    void readableWhileRunning() throws Exception {
        Jdks.Jdk jdk = firstPresent();
        String name = "jfr while running " + jdk;
        Path dir = Build.runDir("jfr-live");
        Path jfr = dir.resolve("live.jfr");
        Jvm.Started started = Jvm.of(jdk, dir)
                .agent("start,interval=1ms,file=" + jfr)
                .main(BusyThreads.class, dir.resolve("truth.properties").toString(), "8", "live-0:A:1")
                .start();
        Parsed live = null;
        int liveRetries = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(7);
        while (System.nanoTime() < deadline && started.process().isAlive()) {
            Thread.sleep(500);
            if (Files.exists(jfr) && Files.size(jfr) > 0) {
                try {
                    live = parse(jfr);
                } catch (IOException e) {
                    // the agent may be appending a chunk right now: read again
                    liveRetries++;
                    continue;
                }
                if (live.count(SAMPLE) > 200 && live.chunks() >= 2) {
                    break;
                }
            }
        }
        assertTrue(started.process().isAlive(), name + ": the workload ended before the file could be read live");
        assertNotNull(live, name + ": no chunk was written while the JVM ran");
        String summary;
        try {
            summary = tool(jdk, dir, "summary-live", "summary", jfr.toString());
        } catch (AssertionError e) {
            liveRetries++;  // the same: a chunk being appended at that moment
            summary = tool(jdk, dir, "summary-live", "summary", jfr.toString());
        }
        long liveSummary = summaryCount(summary, SAMPLE);
        Jvm.Result run = started.await(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), run.describe());
        Parsed fin = parse(jfr);
        Figures.line(String.format("%s: read live: %d samples in %d chunks (jfr summary: %d; %d re-reads); at the end:"
                        + " %d samples in %d chunks", name, live.count(SAMPLE), live.chunks(), liveSummary, liveRetries,
                fin.count(SAMPLE), fin.chunks()));
        assertTrue(live.count(SAMPLE) > 0, name + ": no samples in the live file");
        assertTrue(liveSummary >= live.count(SAMPLE), name + ": jfr summary of the live file");
        assertTrue(fin.count(SAMPLE) > live.count(SAMPLE), name + ": the recording went on after the live read");
    }

    /** The agent's memory stays flat while the recording grows: events go to disk chunk by chunk. */
    @Test
    void memoryStaysBounded() throws Exception {
        Jdks.Jdk jdk = firstPresent();
        String name = "jfr memory " + jdk;
        Path dir = Build.runDir("jfr-memory");
        Path jfr = dir.resolve("long.jfr");
        Path statsFile = dir.resolve("long.json");
        Jvm.Started started = Jvm.of(jdk, dir)
                .jvmArg("-Xms64m", "-XX:+AlwaysPreTouch")
                .agent("start,interval=1ms,file=" + jfr + ",stats=" + statsFile)
                .main(BusyThreads.class, dir.resolve("truth.properties").toString(), "21", "mem-0:A:1",
                        "mem-1:B:1")
                .start();
        long pid = started.process().pid();
        Thread.sleep(5_000);
        long rss5 = rssKb(pid);
        long file5 = Files.exists(jfr) ? Files.size(jfr) : 0;
        Thread.sleep(15_000);
        long rss20 = rssKb(pid);
        long file20 = Files.exists(jfr) ? Files.size(jfr) : 0;
        Jvm.Result run = started.await(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), run.describe());
        ProfileStats stats = Profiles.stats(statsFile, run);
        Parsed p = parse(jfr);
        assertAccounting(p, stats, name);
        long growthKb = rss20 - rss5;
        // The agent's last line names the largest chunk it wrote: the high-water mark of its buffers.
        Matcher largest = Pattern.compile("wrote \\S*long\\.jfr \\((\\d+) chunks, largest (\\d+) kB\\)")
                .matcher(run.stderr());
        assertTrue(largest.find(), name + ": the agent did not say what it wrote\n" + run.describe());
        long largestKb = Long.parseLong(largest.group(2));
        long totalKb = Files.size(jfr) / 1024;
        Figures.line(String.format("%s: RSS %d MB at 5 s, %d MB at 20 s (growth %+d kB, bound %d kB); file %d kB ->"
                        + " %d kB -> %d kB at the end, %d chunks, largest %d kB (bound %d kB); %d samples", name,
                rss5 / 1024, rss20 / 1024, growthKb, BOUND_KB, file5 / 1024, file20 / 1024, totalKb, p.chunks(),
                largestKb, CHUNK_BOUND_KB, p.count(SAMPLE)));
        assertTrue(largestKb <= CHUNK_BOUND_KB, name + ": a chunk of " + largestKb + " kB: the recorder held more than"
                + " about a second of events");
        assertTrue(totalKb >= 5 * largestKb, name + ": the file (" + totalKb + " kB) should be many chunks of at most "
                + largestKb + " kB");
        assertTrue(rss5 > 0 && rss20 > 0, name + ": could not read the JVM's RSS");
        assertTrue(file20 > file5 && file5 > 0, name + ": the file should grow while the JVM runs (" + file5
                + " -> " + file20 + " bytes)");
        assertTrue(p.chunks() >= 10, name + ": expected a chunk about every second, got " + p.chunks());
        assertTrue(growthKb < BOUND_KB, name + ": RSS grew " + growthKb + " kB between 5 s and 20 s");
    }

    /** RSS growth allowed between 5 s and 20 s of a 1 ms recording (the recorder buffers one chunk). */
    static final long BOUND_KB = 8 * 1024;
    /** The largest chunk at 1 ms with two busy threads: about a second of events and their pools. */
    static final long CHUNK_BOUND_KB = 1024;

    static long rssKb(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }

    /** loop=2s: the newest recording keeps the user's path, older ones get their start time. */
    @Test
    void loopRotates() throws Exception {
        Jdks.Jdk jdk = lastPresent();
        String name = "jfr loop " + jdk;
        Path dir = Build.runDir("jfr-loop");
        Path jfr = dir.resolve("loop.jfr");
        Path statsFile = dir.resolve("loop.json");
        Jvm.Result run = Jvm.of(jdk, dir)
                .agent("start,interval=1ms,loop=2s,file=" + jfr + ",stats=" + statsFile)
                .main(BusyThreads.class, dir.resolve("truth.properties").toString(), "7", "loop-0:A:1")
                .run(Duration.ofSeconds(60));
        assertEquals(0, run.exitCode(), run.describe());
        List<Path> rotated;
        List<Path> rotatedStats;  // the stats rotate with the recording: each file is one interval's
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> all = files.sorted().toList();
            rotated = all.stream().filter(f -> f.getFileName().toString().matches("loop-\\d{8}-\\d{6}(-\\d+)?\\.jfr"))
                    .toList();
            rotatedStats = all.stream()
                    .filter(f -> f.getFileName().toString().matches("loop-\\d{8}-\\d{6}(-\\d+)?\\.json")).toList();
        }
        long statsRecorded = 0, statsFailed = 0;
        for (Path f : Stream.concat(rotatedStats.stream(), Stream.of(statsFile)).toList()) {
            ProfileStats s = Profiles.stats(f, run);
            statsRecorded += s.recorded();
            statsFailed += s.failureTotal();
        }
        assertEquals(rotated.size(), rotatedStats.size(), name + ": one stats file per rotated recording");
        assertTrue(rotated.size() >= 2, name + ": expected at least 2 rotated files, got " + rotated + "\n"
                + run.describe());
        long samples = 0;
        long failed = 0;
        StringBuilder sizes = new StringBuilder();
        for (Path f : rotated) {
            Parsed p = parse(f);
            assertTrue(p.count(SAMPLE) > 0, name + ": no samples in " + f);
            assertTrue(p.count(SETTINGS) >= 1, name + ": no settings in " + f);
            tool(jdk, dir, "summary-" + f.getFileName(), "summary", f.toString());
            samples += p.count(SAMPLE);
            failed += p.count(FAILED);
            sizes.append(' ').append(f.getFileName()).append('=').append(p.count(SAMPLE));
        }
        Parsed newest = parse(jfr);
        samples += newest.count(SAMPLE);
        failed += newest.count(FAILED);
        Figures.line(String.format("%s: %d rotated files%s, newest %s=%d; samples %d vs recorded %d", name,
                rotated.size(), sizes, jfr.getFileName(), newest.count(SAMPLE), samples, statsRecorded));
        assertNotNull(newest.lastCounters(), name + ": the newest file has the final counters");
        assertEquals(statsRecorded, samples, name + ": samples over all files vs stats recorded");
        assertEquals(statsFailed, failed, name + ": failed ticks over all files vs stats failures");
    }

    static Jdks.Jdk firstPresent() {
        return Jdks.all().stream().filter(Jdks.Jdk::present).findFirst()
                .orElseGet(() -> {
                    Jdks.all().get(0).assumePresent();
                    return Jdks.all().get(0);
                });
    }

    static Jdks.Jdk lastPresent() {
        List<Jdks.Jdk> present = Jdks.all().stream().filter(Jdks.Jdk::present).toList();
        if (present.isEmpty()) {
            Jdks.all().get(0).assumePresent();
        }
        return present.get(present.size() - 1);
    }
}

package dev.candor.itest;

import dev.candor.model.CollapsedProfile;
import dev.candor.model.ProfileStats;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Reading and checking what a run wrote. */
final class Profiles {

    /** A profiled run: the JVM's result, its stats and its collapsed profile. */
    record Profiled(Jvm.Result run, ProfileStats stats, CollapsedProfile profile) {
    }

    /**
     * Runs {@code main args} on {@code jdk} in the run directory {@code runDir} with the agent's
     * {@code options} plus a collapsed file and stats; the JVM must exit 0 and the stats keep the
     * accounting identity ({@code name} says which run failed).
     */
    static Profiled profile(Jdks.Jdk jdk, String runDir, String name, String options, Class<?> main, String... args)
            throws Exception {
        Path dir = Build.runDir(runDir);
        Path collapsedFile = dir.resolve("profile.collapsed");
        Path statsFile = dir.resolve("stats.json");
        Jvm.Result run = Jvm.of(jdk, dir).agent(options + ",file=" + collapsedFile + ",stats=" + statsFile)
                .main(main, args).run(Duration.ofSeconds(90));
        assertEquals(0, run.exitCode(), name + ": " + run.describe());
        ProfileStats stats = stats(statsFile, run);
        assertIdentity(stats, name);
        return new Profiled(run, stats, collapsed(collapsedFile, run));
    }

    static CollapsedProfile collapsed(Path file, Jvm.Result run) throws IOException {
        assertTrue(Files.isRegularFile(file), "the agent wrote no " + file + "\n" + run.describe());
        return CollapsedProfile.read(file);
    }

    /**
     * The stems of the files loop= rotated from {@code stem.ext} in {@code dir}
     * ({@code stem-YYYYmmdd-HHMMSS[-N]}), oldest first; the newest interval keeps {@code stem} itself.
     */
    static List<String> rotatedStems(Path dir, String stem, String ext) throws IOException {
        String rotated = Pattern.quote(stem) + "-\\d{8}-\\d{6}(-\\d+)?\\." + Pattern.quote(ext);
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(f -> f.matches(rotated))
                    .map(f -> f.substring(0, f.length() - ext.length() - 1)).sorted().toList();
        }
    }

    static ProfileStats stats(Path file, Jvm.Result run) throws IOException {
        assertTrue(Files.isRegularFile(file), "the agent wrote no " + file + "\n" + run.describe());
        return ProfileStats.read(file);
    }

    static Properties truth(Path file, Jvm.Result run) throws IOException {
        assertTrue(Files.isRegularFile(file), "the workload wrote no truth file " + file + "\n" + run.describe());
        Properties p = new Properties();
        try (var r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        return p;
    }

    static long truthLong(Properties truth, String key) {
        String v = truth.getProperty(key);
        if (v == null) {
            fail("truth has no '" + key + "': " + truth);
        }
        return Long.parseLong(v);
    }

    /** ticks = recorded + dropped + Σ failures, exactly. */
    static void assertIdentity(ProfileStats s, String context) {
        assertEquals(s.ticks(), s.accountedTicks(), context + ": ticks " + s.ticks() + " != recorded " + s.recorded()
                + " + dropped " + s.dropped() + " + failures " + s.failureTotal() + " " + s.failures());
    }

    /** The stacks under the thread root {@code [NAME tid=N]}, root removed. */
    static CollapsedProfile threadSubtree(CollapsedProfile p, String threadName, String context) {
        CollapsedProfile.ThreadRoot root = p.thread(threadName).orElseGet(() -> fail(context
                + ": no unique thread root [" + threadName + " tid=N] in the profile; roots: " + p.roots()));
        return p.subtree(root.frame());
    }

    static ProfileStats.ThreadStats threadStats(ProfileStats s, String threadName, String context) {
        return s.thread(threadName).orElseGet(() -> fail(context + ": no unique per_thread entry named '"
                + threadName + "'; per_thread: " + s.perThread()));
    }

    static String failures(ProfileStats s) {
        Map<String, Long> nonZero = s.failures().entrySet().stream().filter(e -> e.getValue() > 0)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        return nonZero + (s.dropped() > 0 ? " dropped=" + s.dropped() : "");
    }

    private Profiles() {
    }
}

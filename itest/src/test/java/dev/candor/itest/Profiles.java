package dev.candor.itest;

import dev.candor.model.CollapsedProfile;
import dev.candor.model.ProfileStats;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Reading and checking what a run wrote. */
final class Profiles {

    static CollapsedProfile collapsed(Path file, Jvm.Result run) throws IOException {
        assertTrue(Files.isRegularFile(file), "the agent wrote no " + file + "\n" + run.describe());
        return CollapsedProfile.read(file);
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

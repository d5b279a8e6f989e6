package dev.candor.itest;

import dev.candor.itest.workload.ApiUser;
import dev.candor.itest.workload.Hot;
import dev.candor.model.CollapsedProfile;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The candor-api jar in-process ({@link ApiUser}): start, status, two growing dumps, the agent's
 * refusals as exceptions, stop. Once with the agent bundled in the jar (extracted into a private
 * directory; {@code candor attach} then reaches that same copy), once with the agent already
 * loaded by -agentpath (the API must use that copy); and, on the first JDK, from -Dcandor.agent.
 */
class ApiTest {

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void bundledAgent(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "api bundled " + jdk;
        Path dir = Build.runDir("api-bundled-" + jdk.label());
        Path stop = dir.resolve("stop");
        Jvm.Started started = Jvm.of(jdk, dir).jvmArg("-XX:+EnableDynamicAgentLoading")
                .main(ApiUser.class.getName(), classpath(), dir.toString(), stop.toString()).start();
        long pid = started.process().pid();
        String attach;
        long mappingsBefore;
        long mappingsAfter;
        List<String> files;
        try {
            Targets.awaitOutput(started, "api done", Duration.ofSeconds(120));
            // candor attach reaches the copy the API extracted, and loads no second one
            mappingsBefore = Targets.candorMappings(pid);
            String agent = Build.agent().toString();
            Targets.Ran status = Targets.candorInProcess("--agent", agent, "attach", Long.toString(pid), "status");
            Targets.Ran start = Targets.candorInProcess("--agent", agent, "attach", Long.toString(pid), "start",
                    "-f", dir.resolve("attached.collapsed").toString());
            Targets.Ran stopped = Targets.candorInProcess("--agent", agent, "attach", Long.toString(pid), "stop");
            mappingsAfter = Targets.candorMappings(pid);
            files = Targets.candorFiles(pid);
            attach = status.stdout().strip() + " / start " + start.exitCode() + " / stop " + stopped.exitCode();
            assertEquals("idle", status.stdout().strip(), status.describe());
            assertEquals(0, start.exitCode(), start.describe());
            assertEquals(0, stopped.exitCode(), stopped.describe());
        } finally {
            Files.writeString(stop, "stop\n");
        }
        Jvm.Result run = started.await(Duration.ofSeconds(60));
        Properties seen = check(name, dir, run);
        Figures.line(String.format("%s: then candor attach: %s; libcandor.so mappings %d -> %d, files %s", name,
                attach, mappingsBefore, mappingsAfter, files));
        assertEquals(mappingsBefore, mappingsAfter, name + ": attach loaded a second copy: " + files);
        assertEquals(List.of(seen.getProperty("library")), files, name);
        assertTrue(Files.exists(dir.resolve("attached.collapsed")), name);
        Path library = Path.of(seen.getProperty("library"));
        Figures.line(String.format("%s: extracted to %s (dir %s, file %s), gone after exit: %s", name, library,
                seen.getProperty("library.dir.permissions"), seen.getProperty("library.permissions"),
                !Files.exists(library.getParent())));
        assertTrue(library.getFileName().toString().equals("libcandor.so")
                && library.getParent().getFileName().toString().matches("candor-\\d{6,}"), name + ": " + library);
        assertEquals("rwx------", seen.getProperty("library.dir.permissions"), name);
        assertEquals("r-x------", seen.getProperty("library.permissions"), name);
        assertEquals("0", seen.getProperty("mappings.before"), name);
        assertFalse(Files.exists(library.getParent()), name + ": the private directory outlived the JVM");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void agentAlreadyLoaded(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "api after -agentpath " + jdk;
        Path dir = Build.runDir("api-agentpath-" + jdk.label());
        Jvm.Result run = Jvm.of(jdk, dir).agent("quiet").main(ApiUser.class.getName(), classpath(), dir.toString())
                .run(Duration.ofSeconds(120));
        Properties seen = check(name, dir, run);
        Figures.line(String.format("%s: library %s, libcandor.so mappings %s -> %s", name, seen.getProperty("library"),
                seen.getProperty("mappings.before"), seen.getProperty("mappings.after")));
        assertEquals(Build.agent().toString(), seen.getProperty("library"), name);
        assertTrue(Long.parseLong(seen.getProperty("mappings.before")) > 0, name);
        assertEquals(seen.getProperty("mappings.before"), seen.getProperty("mappings.after"),
                name + ": the API loaded a second copy");
    }

    @Test
    void agentFromSystemProperty() throws Exception {
        Jdks.Jdk jdk = Targets.client();
        String name = "api -Dcandor.agent " + jdk;
        Path dir = Build.runDir("api-property-" + jdk.label());
        Jvm.Result run = Jvm.of(jdk, dir).jvmArg("-Dcandor.agent=" + Build.agent())
                .main(ApiUser.class.getName(), classpath(), dir.toString()).run(Duration.ofSeconds(120));
        Properties seen = check(name, dir, run);
        assertEquals(Build.agent().toString(), seen.getProperty("library"), name);
        assertEquals("0", seen.getProperty("mappings.before"), name);
    }

    /**
     * Allocation and lock profiling started and stopped through the API ({@link
     * dev.candor.itest.workload.ApiEvents}): the events session records lock waits (the waiter's
     * ReentrantLock and monitor waits, under the lock's class) and allocations (byte[] from the
     * allocating method); the cpu session after it records neither (the JVMTI events were turned
     * off with the first session).
     */
    @Test
    void allocationAndLockEvents() throws Exception {
        Jdks.Jdk jdk = Targets.client();
        String name = "api alloc+lock " + jdk;
        Path dir = Build.runDir("api-events-" + jdk.label());
        Jvm.Result run = Jvm.of(jdk, dir).jvmArg("-Dcandor.agent=" + Build.agent())
                .main("dev.candor.itest.workload.ApiEvents", classpath(), dir.toString()).run(Duration.ofSeconds(120));
        assertEquals(0, run.exitCode(), run.describe());
        assertTrue(Files.exists(dir.resolve("events.done")), run.describe());
        // without a time event the bytes are the main profile, the lock waits go next to it
        CollapsedProfile events = Profiles.collapsed(dir.resolve("events-lock.collapsed"), run);
        ProfileStats eventStats = Profiles.stats(dir.resolve("events.json"), run);
        ProfileStats cpuStats = Profiles.stats(dir.resolve("cpu.json"), run);
        com.fasterxml.jackson.databind.JsonNode cpuJson = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(dir.resolve("cpu.json").toFile());
        long lockWaits = events.count(s -> s.frames().contains("dev.candor.itest.workload.ApiEvents.waitForLock")
                && s.leaf().startsWith("java.util.concurrent.locks.ReentrantLock$"));
        long monitorWaits = events.count(s -> s.frames().contains("dev.candor.itest.workload.ApiEvents.waitForMonitor")
                && s.leaf().equals("java.lang.Object"));
        long byteArrays = events.count(s -> s.frames().contains("dev.candor.itest.workload.ApiEvents.allocate")
                && s.leaf().equals("byte[]"));
        Figures.line(String.format("%s: lock waits %.1f ms on the ReentrantLock, %.1f ms on the monitor; byte[] in the"
                        + " allocator: %d bytes; the cpu session after it: %d ticks, kinds %s", name,
                lockWaits / 1e6, monitorWaits / 1e6, CollapsedProfile.read(dir.resolve("events.collapsed")).total(),
                cpuStats.ticks(), String.join(",", (Iterable<String>) cpuJson.path("kinds")::fieldNames)));
        assertTrue(lockWaits > 100_000_000L, name + ": ReentrantLock waits recorded (" + lockWaits + " ns)");
        assertTrue(monitorWaits > 100_000_000L, name + ": monitor waits recorded (" + monitorWaits + " ns)");
        CollapsedProfile alloc = Profiles.collapsed(dir.resolve("events.collapsed"), run);
        long allocated = alloc.count(s -> s.frames().contains("dev.candor.itest.workload.ApiEvents.allocate")
                && s.leaf().equals("byte[]"));
        // of the bytes recorded with a stack (a busy machine may drop samples: they stay, as [dropped])
        long withStack = alloc.count(s -> s.frames().size() > 1);
        assertTrue(allocated > 0.9 * withStack, name + ": the allocator's byte[] lead the bytes profile ("
                + allocated + " of " + withStack + ")");
        assertTrue(byteArrays == 0, name + ": the lock profile holds no allocations");
        Profiles.assertIdentity(eventStats, name);
        assertFalse(cpuJson.path("kinds").has("alloc") || cpuJson.path("kinds").has("lock"),
                name + ": the cpu session took allocation or lock samples: " + cpuJson.path("kinds"));
        assertTrue(cpuStats.ticks() > 0, name);
    }

    // What both runs must show; returns what the workload saw.
    private static Properties check(String name, Path dir, Jvm.Result run) throws Exception {
        assertEquals(0, run.exitCode(), run.describe());
        Properties seen = Profiles.truth(dir.resolve("api.properties"), run);
        CollapsedProfile d1 = CollapsedProfile.read(dir.resolve("dump1.collapsed"));
        CollapsedProfile d2 = CollapsedProfile.read(dir.resolve("dump2.collapsed"));
        CollapsedProfile atStop = Profiles.collapsed(dir.resolve("api.collapsed"), run);
        ProfileStats stats = Profiles.stats(dir.resolve("api.json"), run);
        Figures.line(String.format("%s: %s; dump1 %d samples, dump2 %d, at stop %d (stats ticks %d)", name,
                seen.getProperty("status.running"), d1.total(), d2.total(), atStop.total(), stats.ticks()));
        assertEquals("idle", seen.getProperty("status.before"), name);
        String running = seen.getProperty("status.running");
        assertTrue(running.startsWith("running event=cpu signal=SIGVTALRM timers=per-thread interval_ns=1000000 ")
                || running.startsWith("running event=cpu signal=none timers=per-cpu interval_ns=997000 "), name + ": " + seen);
        assertEquals("true", seen.getProperty("running"), name);
        assertEquals("idle", seen.getProperty("status.after"), name);
        assertEquals("IllegalStateException: profiling is already running; stop it first",
                seen.getProperty("start.again"), name);
        assertEquals("IllegalArgumentException: unknown option 'intervl' (did you mean 'interval'?)",
                seen.getProperty("start.typo"), name);
        assertTrue(seen.getProperty("dump.unwritable").startsWith("IllegalStateException: cannot write "),
                name + ": " + seen.getProperty("dump.unwritable"));
        assertEquals("IllegalStateException: profiling is not running", seen.getProperty("stop.again"), name);
        assertTrue(d1.countAny(CollapsedProfile.method(Hot.METHOD_A)) > 0, name + ": dump1 " + d1);
        assertTrue(d2.total() > d1.total(), name + ": dump2 " + d2.total() + " <= dump1 " + d1.total());
        assertTrue(atStop.total() >= d2.total(), name);
        Profiles.assertIdentity(stats, name);
        String page = Files.readString(dir.resolve("dump2.html"));
        assertTrue(page.contains(Hot.METHOD_A) && !page.contains(OutputsTest.MARKER), name + ": dump2.html");
        return seen;
    }

    // The workloads plus the candor-api classes (the reactor's jar or target/classes, with the bundled agent).
    static Path classpath() throws URISyntaxException {
        Path api = Path.of(dev.candor.api.Candor.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return Path.of(Build.workloadClasspath() + ":" + api);
    }
}

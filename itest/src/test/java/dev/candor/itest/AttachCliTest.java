package dev.candor.itest;

import dev.candor.itest.workload.Hot;
import dev.candor.model.CollapsedProfile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code candor attach} and {@code candor list} against running JVMs of each JDK, with the CLI on
 * the first JDK present (JDK 17): start, two growing dumps, moving status numbers, stop,
 * --duration (also cut short by SIGTERM); and 20 start/stop cycles on one JVM with one copy of the agent and bounded RSS.
 */
class AttachCliTest {

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void startDumpTwiceStatusStop(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Jdks.Jdk client = Targets.client();
        String name = "attach cli " + jdk + " (client " + client + ")";
        Path dir = Build.runDir("attach-cli-" + jdk.label());
        try (Targets.Spin target = Targets.spin(Jvm.of(jdk, dir).jvmArg("-XX:+EnableDynamicAgentLoading"), dir, 120)) {
            String pid = target.pidText();
            assertTrue(listed(client, dir, pid, "-"), "candor list should show " + pid + " without candor");
            Targets.Ran notLoaded = Targets.candor(client, dir, "attach", pid, "status");
            assertEquals(0, notLoaded.exitCode(), notLoaded.describe());
            assertEquals("not loaded", notLoaded.stdout().strip());

            Targets.Ran start = Targets.candor(client, dir, "attach", pid, "start", "-i", "1ms", "-f", "session.collapsed",
                    "--stats", "session.json");
            assertEquals(0, start.exitCode(), start.describe());
            assertTrue(start.stdout().contains("profiling JVM " + pid), start.describe());
            long mappings = Targets.candorMappings(target.pid());
            assertTrue(listed(client, dir, pid, "loaded"), "candor list should show " + pid + " with candor loaded");

            String status1 = awaitTicksAbove(client, dir, pid, 0);
            Targets.Ran dump1 = Targets.candor(client, dir, "attach", pid, "dump", "-f", "dump1.collapsed",
                    "-f", "dump1.html");
            assertEquals(0, dump1.exitCode(), dump1.describe());
            String status2 = awaitTicksAbove(client, dir, pid, (long) Targets.statusValue(status1, "ticks") + 50);
            Targets.Ran dump2 = Targets.candor(client, dir, "attach", pid, "dump", "-f", "dump2.collapsed",
                    "-f", "dump2.html");
            assertEquals(0, dump2.exitCode(), dump2.describe());

            Targets.Ran stop = Targets.candor(client, dir, "attach", pid, "stop");
            assertEquals(0, stop.exitCode(), stop.describe());
            Targets.Ran idle = Targets.candor(client, dir, "attach", pid, "status");
            assertEquals("idle", idle.stdout().strip(), idle.describe());

            // --duration: start, wait, stop, in one command
            Targets.Ran timed = Targets.candor(client, dir, "attach", pid, "-d", "1", "-f", "timed.collapsed");
            assertEquals(0, timed.exitCode(), timed.describe());
            assertTrue(timed.stdout().contains("wrote " + dir.resolve("timed.collapsed")), timed.describe());
            Targets.Ran idleAgain = Targets.candor(client, dir, "attach", pid, "status");
            assertEquals("idle", idleAgain.stdout().strip(), idleAgain.describe());

            // --duration cut short: candor killed (SIGTERM) still stops the profiler and writes
            ProcessBuilder pb = new ProcessBuilder(Build.file("candor").toString(), "attach", pid, "-d", "60", "-f",
                    "early.collapsed").directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("early-output.txt").toFile());
            pb.environment().put("JAVA_HOME", client.home().toString());
            Process early = pb.start();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!Files.readString(dir.resolve("early-output.txt")).contains("profiling JVM " + pid)
                    && early.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            early.destroy();
            assertTrue(early.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "candor attach -d did not end");
            String earlyOutput = Files.readString(dir.resolve("early-output.txt"));
            assertTrue(earlyOutput.contains("stopped profiling JVM " + pid + " early"), earlyOutput);
            assertTrue(Files.exists(dir.resolve("early.collapsed")), earlyOutput);
            Targets.Ran idleAfterEarly = Targets.candor(client, dir, "attach", pid, "status");
            assertEquals("idle", idleAfterEarly.stdout().strip(), idleAfterEarly.describe());
            long mappingsAfter = Targets.candorMappings(target.pid());
            List<String> files = Targets.candorFiles(target.pid());

            Jvm.Result run = target.finish();
            assertEquals(0, run.exitCode(), run.describe());

            CollapsedProfile d1 = CollapsedProfile.read(dir.resolve("dump1.collapsed"));
            CollapsedProfile d2 = CollapsedProfile.read(dir.resolve("dump2.collapsed"));
            CollapsedProfile session = Profiles.collapsed(dir.resolve("session.collapsed"), run);
            CollapsedProfile timedProfile = Profiles.collapsed(dir.resolve("timed.collapsed"), run);
            var stats = Profiles.stats(dir.resolve("session.json"), run);
            Figures.line(String.format("%s: status ticks %.0f -> %.0f (recorded %.0f -> %.0f, seconds %.1f -> %.1f);"
                            + " dump1 %d samples, dump2 %d, at stop %d (stats ticks %d); -d 1: %d samples;"
                            + " libcandor.so mappings %d -> %d",
                    name, Targets.statusValue(status1, "ticks"), Targets.statusValue(status2, "ticks"),
                    Targets.statusValue(status1, "recorded"), Targets.statusValue(status2, "recorded"),
                    Targets.statusValue(status1, "seconds"), Targets.statusValue(status2, "seconds"),
                    d1.total(), d2.total(), session.total(), stats.ticks(), timedProfile.total(), mappings,
                    mappingsAfter));

            assertTrue(Targets.statusValue(status2, "ticks") > Targets.statusValue(status1, "ticks"), status1 + " / " + status2);
            assertTrue(Targets.statusValue(status2, "recorded") > Targets.statusValue(status1, "recorded"),
                    status1 + " / " + status2);
            assertTrue(Targets.statusValue(status2, "seconds") >= Targets.statusValue(status1, "seconds"),
                    status1 + " / " + status2);
            assertTrue(d1.total() > 0 && d1.countAny(CollapsedProfile.method(Hot.METHOD_A)) > 0, name + ": dump1 " + d1);
            assertTrue(d2.total() > d1.total(), name + ": the second dump must hold more samples: " + d1.total()
                    + " then " + d2.total());
            assertTrue(session.total() >= d2.total(), name + ": the final profile has fewer samples than dump2");
            Profiles.assertIdentity(stats, name);
            for (String html : List.of("dump1.html", "dump2.html")) {
                String page = Files.readString(dir.resolve(html));
                assertFalse(page.contains(OutputsTest.MARKER), name + ": " + html + " has no data");
                assertTrue(page.contains(Hot.METHOD_A), name + ": " + html + " lacks " + Hot.METHOD_A);
            }
            assertTrue(Files.size(dir.resolve("dump2.html")) > 0);
            assertTrue(timedProfile.total() > 0, name + ": --duration 1 recorded nothing");
            assertEquals(mappings, mappingsAfter, name + ": a second copy of the agent was mapped");
            assertEquals(1, files.size(), name + ": libcandor.so files mapped: " + files);
        }
    }

    /**
     * {@code status} with {@code loop=}: its counts are the session's, the intervals already written
     * and the current one, so that ticks = recorded + failed + dropped holds there as in every report.
     * Before, ticks and dropped were the session's but recorded and failed the current interval's
     * (4.5 s into 1 s intervals: ticks 4,391, recorded 455).
     */
    @Test
    void loopStatusAddsUp() throws Exception {
        Jdks.Jdk client = Targets.client();
        String name = "attach loop status " + client;
        Path dir = Build.runDir("attach-loop-status");
        try (Targets.Spin target = Targets.spin(Jvm.of(client, dir).jvmArg("-XX:+EnableDynamicAgentLoading"), dir, 120)) {
            String pid = target.pidText();
            Targets.Ran start = Targets.candor(client, dir, "attach", pid, "start", "-i", "1ms", "--agent-options",
                    "loop=1s", "-f", "loop.collapsed");
            assertEquals(0, start.exitCode(), start.describe());
            Thread.sleep(3500);
            Targets.Ran status = Targets.candor(client, dir, "attach", pid, "status");
            assertEquals(0, status.exitCode(), status.describe());
            Targets.Ran stop = Targets.candor(client, dir, "attach", pid, "stop");
            assertEquals(0, stop.exitCode(), stop.describe());
            Jvm.Result run = target.finish();
            assertEquals(0, run.exitCode(), run.describe());
            String line = status.stdout().strip();
            double ticks = Targets.statusValue(line, "ticks");
            double accounted = Targets.statusValue(line, "recorded") + Targets.statusValue(line, "failed")
                    + Targets.statusValue(line, "dropped");
            Figures.line(name + ": " + line);
            assertTrue(ticks > 2000, name + ": " + line);
            // ticks a handler counted while status drained may still be on their way: a few
            assertTrue(Math.abs(ticks - accounted) <= 20 + ticks / 100, name + ": status does not add up: " + line);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void twentyAttachCyclesLoadTheAgentOnce(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "attach x20 " + jdk;
        Path dir = Build.runDir("attach-x20-" + jdk.label());
        String agent = Build.agent().toString();
        try (Targets.Spin target = Targets.spin(Jvm.of(jdk, dir).jvmArg("-XX:+EnableDynamicAgentLoading"), dir, 240)) {
            String pid = target.pidText();
            Path out = dir.resolve("cycle.collapsed");
            // warm-up cycle: the first load maps the library, creates JVMTI state and the method table
            cycle(agent, pid, out, name + " warm-up");
            long mappings0 = Targets.candorMappings(target.pid());
            long rss0 = Targets.rssKb(target.pid());
            long t0 = System.nanoTime();
            for (int i = 1; i <= 20; i++) {
                cycle(agent, pid, out, name + " cycle " + i);
                assertTrue(target.started().process().isAlive(), name + ": the target died in cycle " + i);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            long mappings1 = Targets.candorMappings(target.pid());
            List<String> files = Targets.candorFiles(target.pid());
            long rss1 = Targets.rssKb(target.pid());
            Jvm.Result run = target.finish();
            Figures.line(String.format("%s: 20 start/stop cycles (40 attaches) in %.1f s; libcandor.so mappings %d -> %d"
                            + " (%d file); VmRSS %d kB -> %d kB (%+d kB)",
                    name, seconds, mappings0, mappings1, files.size(), rss0, rss1, rss1 - rss0));
            assertEquals(0, run.exitCode(), run.describe());
            assertFalse(run.stderr().contains("#  SIGSEGV") || run.stderr().contains("fatal error"), run.describe());
            assertTrue(mappings0 > 0, name + ": the agent is not mapped after the first attach");
            assertEquals(mappings0, mappings1, name + ": libcandor.so mappings changed: " + files);
            assertEquals(1, files.size(), name + ": more than one libcandor.so file mapped: " + files);
            assertTrue(rss1 - rss0 < 10 * 1024, name + ": RSS grew by " + (rss1 - rss0) + " kB over 20 cycles");
            CollapsedProfile.read(out); // the last cycle's output is a valid profile (its size depends on the load)
        }
    }

    // One start/status/stop cycle through the CLI code, in this JVM (no JVM start per command).
    private static void cycle(String agent, String pid, Path out, String context) {
        Targets.Ran start = Targets.candorInProcess("--agent", agent, "attach", pid, "start", "-i", "1ms",
                "-f", out.toString());
        assertEquals(0, start.exitCode(), context + ": " + start.describe());
        Targets.Ran status = Targets.candorInProcess("attach", pid, "status");
        assertTrue(status.stdout().startsWith("running "), context + ": " + status.describe());
        Targets.Ran stop = Targets.candorInProcess("attach", pid, "stop");
        assertEquals(0, stop.exitCode(), context + ": " + stop.describe());
    }

    // Polls status until ticks exceed MIN (the target's busy thread needs CPU time for that).
    private static String awaitTicksAbove(Jdks.Jdk client, Path dir, String pid, long min) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            Targets.Ran r = Targets.candorInProcess("attach", pid, "status"); // polls: no JVM start each
            assertEquals(0, r.exitCode(), r.describe());
            last = r.stdout().strip();
            assertTrue(last.startsWith("running "), r.describe());
            if (Targets.statusValue(last, "ticks") > min) {
                return last;
            }
            Thread.sleep(300);
        }
        return fail("ticks did not pass " + min + " within 60 s: " + last);
    }

    private static boolean listed(Jdks.Jdk client, Path dir, String pid, String candor) throws Exception {
        Targets.Ran r = Targets.candor(client, dir, "list");
        assertEquals(0, r.exitCode(), r.describe());
        return r.stdout().lines().anyMatch(l -> l.matches(pid + "\\s+" + java.util.regex.Pattern.quote(candor)
                + "\\s+dev\\.candor\\.itest\\.workload\\.AttachSpin\\s+-")); // CONTAINER '-': candor's namespaces
    }
}

package dev.candor.itest;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code sudo candor attach}: root profiles a JVM of another user (nobody, as a service account),
 * whose user can neither read candor's build nor write where root asks for the outputs. The agent
 * is loaded from root's shared library directory, the JVM writes to its user's own stage, and the
 * outputs arrive at root's paths, with the allocation profile the agent writes beside one: start,
 * status, dump, stop and {@code -d}. A link the user plants
 * in its stage is not followed by root. Needs root: skipped otherwise (AttachErrorsTest covers the refusal
 * of another user's JVM without root).
 */
class OtherUserAttachTest {

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void rootAttachesToAnotherUsersJvm(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Assumptions.assumeTrue(Jvm.isRoot(), "needs root: skipped");
        Jdks.Jdk client = Targets.client();
        Path dir = Build.runDir("other-user-attach-" + jdk.label());
        Path jvmDir = Files.createDirectories(dir.resolve("jvm"));
        Path out = Files.createDirectories(dir.resolve("root-only")); // the JVM's user cannot write here
        Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rwx------"));
        try (Targets.Spin spin = Targets.spin(Jvm.of(jdk, jvmDir).unprivileged()
                .jvmArg("-XX:+EnableDynamicAgentLoading"), jvmDir, 120)) {
            String p = spin.pidText();
            assertEquals("65534", uid(spin.pid()), "the JVM runs as nobody");

            Targets.Ran list = Targets.candor(client, out, "list");
            assertTrue(list.stdout().lines().anyMatch(l -> l.startsWith(p + " ")), list.describe());

            Targets.Ran start = Targets.candor(client, out, "attach", p, "start", "-i", "1ms", "-f", "run.collapsed",
                    "--stats", "run.json");
            assertEquals(0, start.exitCode(), start.describe());
            Path stage = Path.of("/tmp/.candor-65534");
            assertEquals("65534", String.valueOf(Files.getAttribute(stage, "unix:uid", LinkOption.NOFOLLOW_LINKS)),
                    "the stage belongs to the JVM's user");
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(stage)));
            Path libs = Path.of("/tmp/.candor-lib-0");
            assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(libs)));
            assertFalse(Targets.candorFiles(spin.pid()).isEmpty(), "the agent is loaded");
            assertTrue(Targets.candorFiles(spin.pid()).stream().allMatch(l -> l.startsWith(libs + "/")),
                    "the agent is loaded from " + libs + ": " + Targets.candorFiles(spin.pid()));

            long recorded = 0;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (recorded <= 200 && System.nanoTime() < deadline) {
                Targets.Ran s = Targets.candor(client, out, "attach", p, "status");
                assertEquals(0, s.exitCode(), s.describe());
                recorded = s.stdout().startsWith("running") ? (long) Targets.statusValue(s.stdout().strip(), "recorded") : 0;
                Thread.sleep(300);
            }
            assertTrue(recorded > 200, "recorded " + recorded);

            Targets.Ran dump = Targets.candor(client, out, "attach", p, "dump", "-f", "now.collapsed");
            assertEquals(0, dump.exitCode(), dump.describe());
            Targets.assertHot(out.resolve("now.collapsed"));

            // The user plants a link where the next dump's output is staged (the 4th output: run.collapsed,
            // run.json, now.collapsed before it). The agent refuses to write through it, and the stop that
            // fetches every staged output must not copy, as root, the file it points to.
            Path secret = Files.writeString(out.resolve("secret.txt"), "root's secret\n");
            Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
            Path planted = stage.resolve("out-" + p + "-4-planted.collapsed");
            Files.deleteIfExists(planted);
            Files.createSymbolicLink(planted, secret);
            Files.setAttribute(planted, "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
            Targets.Ran refused = Targets.candor(client, out, "attach", p, "dump", "-f", "planted.collapsed");
            assertEquals(3, refused.exitCode(), refused.describe());
            assertTrue(refused.stderr().contains("symbolic link"), refused.describe());
            Targets.Ran stopped = Targets.candor(client, out, "attach", p, "stop");
            assertEquals(0, stopped.exitCode(), stopped.describe());
            assertFalse(Files.exists(out.resolve("planted.collapsed")), "root copied what a planted link points to");
            assertFalse(Files.exists(planted, LinkOption.NOFOLLOW_LINKS), "the planted link is removed");
            Targets.assertHot(out.resolve("run.collapsed"));
            assertTrue(Files.readString(out.resolve("run.json")).contains("\"ticks\""), "stats arrived");
            assertEquals("root", String.valueOf(Files.getOwner(out.resolve("run.collapsed"))));

            // allocations beside cpu: the agent writes timed-alloc.collapsed beside timed.collapsed in the stage
            Targets.Ran timed = Targets.candor(client, out, "attach", p, "-d", "1s", "-e", "cpu,alloc", "-f",
                    "timed.collapsed");
            assertEquals(0, timed.exitCode(), timed.describe());
            Targets.assertHot(out.resolve("timed.collapsed"));
            assertTrue(Files.isRegularFile(out.resolve("timed-alloc.collapsed")), "the allocation profile arrived");
            try (var left = Files.list(stage)) {
                List<String> names = left.map(f -> f.getFileName().toString())
                        .filter(n -> n.contains("-" + spin.pid() + "-")).toList();
                assertTrue(names.isEmpty(), "nothing of this JVM left in the stage: " + names);
            }
            assertEquals(0, spin.finish().exitCode());
            Figures.line("other user's JVM " + jdk + ": root attached to nobody's JVM " + p + ", " + recorded
                    + " samples recorded at the status check; outputs arrived in a root-only directory");
        }
    }

    private static String uid(long pid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("Uid:")) {
                return line.substring(4).strip().split("\\s+")[1];
            }
        }
        return "?";
    }
}

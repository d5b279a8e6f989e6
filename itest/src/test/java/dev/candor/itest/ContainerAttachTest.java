package dev.candor.itest;

import dev.candor.itest.workload.AttachSpin;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code candor attach} and {@code candor list} on a JVM in a container: its own mount and pid
 * namespace ({@code unshare --mount --pid --fork}) with a private tmpfs on /tmp, so that neither
 * the attach socket, nor the agent library, nor the reply and outputs are where candor would
 * look without /proc/PID/root. JDK 17 runs as the namespace's pid 1 (as java usually does in a
 * container), JDK 25 as a child of the namespace's shell and as user nobody (a service account:
 * the stage is then that user's, the library and table root's). start, status, dump, stop all work;
 * the outputs arrive on the host; a directory of candor's that is not private is refused at its step.
 * Needs root (unshare of a mount namespace): skipped otherwise.
 */
class ContainerAttachTest {

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void startStatusDumpStopInAContainer(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Assumptions.assumeTrue(Jvm.isRoot() && Files.isExecutable(Path.of("/usr/bin/unshare")),
                "needs root and unshare: skipped");
        Jdks.Jdk client = Targets.client();
        Path dir = Build.runDir("container-attach-" + jdk.label());
        Path stop = dir.resolve("stop");
        boolean pidOne = Targets.feature(jdk) < 21;
        boolean nobody = !pidOne; // JDK 25's JVM runs as user nobody in the container, as services do
        List<String> java = new ArrayList<>(nobody ? List.of("setpriv", "--reuid=nobody", "--regid=nogroup",
                "--clear-groups") : List.of());
        java.addAll(List.of(jdk.java().toString(), "-XX:+EnableDynamicAgentLoading", "-cp",
                Build.workloadClasspath().toString(), AttachSpin.class.getName(), stop.toString(), "120"));
        // A checkout under /tmp (a fresh clone there) would vanish under the private /tmp: its
        // top directory is bound back in, the rest of /tmp stays private.
        String keep = "";
        Path real = dir.toAbsolutePath().normalize();
        if (real.startsWith("/tmp") && real.getNameCount() > 1) {
            String top = "/tmp/" + real.getName(1);
            keep = "mkdir -p /run/candor-itest-host-tmp && mount --bind /tmp /run/candor-itest-host-tmp || exit 96; ";
            String back = "mkdir -p " + top + " && mount --bind /run/candor-itest-host-tmp/" + real.getName(1) + " " + top
                    + " || exit 98; ";
            keep += "mount -t tmpfs tmpfs /tmp || exit 97; " + back;
        } else {
            keep = "mount -t tmpfs tmpfs /tmp || exit 97; ";
        }
        String script = keep + (pidOne ? "exec \"$@\"" : "\"$@\"; exit $?");
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/unshare", "--mount", "--pid", "--fork", "--mount-proc",
                "sh", "-c", script, "sh"));
        cmd.addAll(java);
        Process container = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectOutput(dir.resolve("stdout.txt").toFile()).redirectError(dir.resolve("stderr.txt").toFile())
                .start();
        try {
            long pid = awaitJvm(container, dir);
            String p = Long.toString(pid);
            long nsPid = nsPid(pid);
            assertEquals(pidOne, nsPid == 1, "the JVM's pid in its namespace: " + nsPid);
            assertFalse(Files.exists(Path.of("/proc", p, "root/tmp/.java_pid" + nsPid)));

            Targets.Ran list = Targets.candor(client, dir, "list");
            assertTrue(list.stdout().lines().anyMatch(l -> l.matches(p + "\\s+-\\s+\\S*AttachSpin\\s+pid " + nsPid
                    + " own-fs")), list.describe());

            Targets.Ran start = Targets.candor(client, dir, "attach", p, "start", "-i", "1ms", "-f", "run.collapsed",
                    "--stats", "run.json");
            assertEquals(0, start.exitCode(), start.describe());
            Path own = Path.of("/proc", p, "root/tmp/.candor-0");
            Path stage = Path.of("/proc", p, "root/tmp/.candor-" + (nobody ? "65534" : "0"));
            assertTrue(Files.isDirectory(stage), "the stage directory in the container's /tmp");
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(stage)));
            assertEquals(nobody ? "nobody" : "root", Files.getOwner(stage).getName(), "the stage is the JVM user's");
            assertFalse(Files.exists(Path.of("/tmp/.candor-0/outputs-" + nsPid)), "nothing staged on the host's /tmp");

            String status = "";
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < deadline) {
                Targets.Ran s = Targets.candor(client, dir, "attach", p, "status");
                assertEquals(0, s.exitCode(), s.describe());
                status = s.stdout().strip();
                if (status.startsWith("running") && Targets.statusValue(status, "recorded") > 200) {
                    break;
                }
                Thread.sleep(300);
            }
            assertTrue(Targets.statusValue(status, "recorded") > 200, status);

            Targets.Ran dump = Targets.candor(client, dir, "attach", p, "dump", "-f", "now.collapsed");
            assertEquals(0, dump.exitCode(), dump.describe());
            Targets.assertHot(dir.resolve("now.collapsed"));

            Targets.Ran stopped = Targets.candor(client, dir, "attach", p, "stop");
            assertEquals(0, stopped.exitCode(), stopped.describe());
            Targets.assertHot(dir.resolve("run.collapsed"));
            assertTrue(Files.readString(dir.resolve("run.json")).contains("\"ticks\""), "stats arrived");
            try (var left = Files.list(stage)) {
                List<String> names = left.map(f -> f.getFileName().toString()).toList();
                assertTrue(names.stream().noneMatch(n -> n.startsWith("out-") || n.startsWith("reply-")
                        || n.startsWith("outputs-")), "the stage keeps only the library: " + names);
            }

            // a failure names its step: a stage directory others may enter is not trusted
            Files.setPosixFilePermissions(stage, PosixFilePermissions.fromString("rwxr-xr-x"));
            Targets.Ran refused = Targets.candor(client, dir, "attach", p, "status");
            assertEquals(3, refused.exitCode(), refused.describe());
            assertTrue(refused.stderr().contains("candor: JVM " + p + " (pid " + nsPid + " in its container)"
                    + (nobody ? " of user nobody" : "") + " runs in another mount namespace; step 1, a private"
                    + " directory in its /tmp: /tmp/.candor-" + (nobody ? "65534" : "0") + " exists but is not a"
                    + " directory owned by " + (nobody ? "nobody" : "root") + " with mode 700"), refused.describe());
            Files.setPosixFilePermissions(stage, PosixFilePermissions.fromString("rwx------"));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(own)),
                    "candor's own directory (library copies, tables) stays private");
            Targets.Ran idle = Targets.candor(client, dir, "attach", p, "status");
            assertEquals("idle", idle.stdout().strip(), idle.describe());

            Files.writeString(stop, "stop\n");
            assertTrue(container.waitFor(60, TimeUnit.SECONDS), "the container exits");
            assertEquals(0, container.exitValue(), Files.readString(dir.resolve("stderr.txt")));
        } finally {
            Files.writeString(stop, "stop\n");
            if (!container.waitFor(30, TimeUnit.SECONDS)) {
                container.descendants().forEach(ProcessHandle::destroyForcibly);
                container.destroyForcibly();
            }
        }
    }

    // The JVM under unshare (a grandchild), once it printed "ready".
    private static long awaitJvm(Process container, Path dir) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (!container.isAlive()) {
                fail("the container exited (" + container.exitValue() + "): " + Files.readString(dir.resolve("stderr.txt")));
            }
            if (Files.readString(dir.resolve("stdout.txt")).lines().anyMatch("ready"::equals)) {
                return container.descendants()
                        .filter(h -> h.info().command().map(c -> c.endsWith("/java")).orElse(false))
                        .findFirst().orElseThrow().pid();
            }
            Thread.sleep(50);
        }
        return fail("the JVM in the container did not print 'ready' within 60 s");
    }

    private static long nsPid(long pid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("NSpid:")) {
                String[] f = line.substring(6).strip().split("\\s+");
                return Long.parseLong(f[f.length - 1]);
            }
        }
        return pid;
    }
}

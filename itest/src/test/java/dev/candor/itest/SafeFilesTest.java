package dev.candor.itest;

import dev.candor.itest.stress.Busy;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Safe output files: created with the user's umask; never written through a symbolic link
 * planted at the path (before the start or while the JVM runs); an unwritable or unusable path
 * is one clear error line at start and the JVM runs on to exit 0; a path that is not a regular
 * file (a FIFO) is refused and never blocks the JVM.
 */
class SafeFilesTest {
    static final Jdks.Jdk JDK = Jdks.all().get(0);
    static final String PRECIOUS = "precious: must not be touched\n";

    private static Jvm busy(Path dir, String options, String... extra) {
        String[] args = new String[1 + extra.length];
        args[0] = "1.5";
        System.arraycopy(extra, 0, args, 1, extra.length);
        return Jvm.of(JDK, dir).agent(options).jvmArg("-XX:-UsePerfData").main(Busy.class, args);
    }

    private static void assertRanOn(Jvm.Result run, String name) {
        assertEquals(0, run.exitCode(), name + ": exit code\n" + run.describe());
        assertTrue(run.stdout().contains("stress busy:"), name + ": the JVM did not run on to its end\n"
                + run.describe());
    }

    private static String perms(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void outputsFollowTheUmask() throws Exception {
        JDK.assumePresent();
        for (String[] c : List.of(new String[] {"077", "rw-------"}, new String[] {"022", "rw-r--r--"},
                new String[] {"027", "rw-r-----"})) {
            String name = "safe files umask " + c[0];
            Path dir = Build.runDir("safefiles-umask-" + c[0]);
            Path html = dir.resolve("p.html");
            Path collapsed = dir.resolve("p.collapsed");
            Path txt = dir.resolve("p.txt");
            Path stats = dir.resolve("p.json");
            Jvm.Result run = Launch.run(busy(dir, "start,interval=1ms,file=" + html + ",file=" + collapsed + ",file="
                    + txt + ",stats=" + stats), dir, Map.of(), "umask " + c[0] + "; exec", Duration.ofSeconds(60));
            assertRanOn(run, name);
            for (Path p : List.of(html, collapsed, txt, stats)) {
                assertTrue(Files.isRegularFile(p), name + ": no " + p + "\n" + run.describe());
                assertEquals(c[1], perms(p), name + ": mode of " + p.getFileName());
            }
            Figures.line(name + ": .html .collapsed .txt .json created " + c[1]);
        }
    }

    @Test
    void symlinkAtThePathIsRefusedAtStart() throws Exception {
        JDK.assumePresent();
        String name = "safe files symlink at start";
        Path dir = Build.runDir("safefiles-symlink-start");
        Path target = dir.resolve("precious.txt");
        Files.writeString(target, PRECIOUS);
        Path link = dir.resolve("out.collapsed");
        Files.createSymbolicLink(link, target);
        Jvm.Result run = busy(dir, "start,interval=1ms,file=" + link).run(Duration.ofSeconds(60));
        assertRanOn(run, name);
        List<String> lines = run.candorLines();
        Figures.line(name + ": " + lines);
        assertEquals(1, lines.size(), name + ": exactly one candor line\n" + run.describe());
        assertTrue(lines.get(0).contains(link.toString()) && lines.get(0).contains("symbolic link"),
                name + ": the line names the path and the reason: " + lines.get(0));
        assertEquals(PRECIOUS, Files.readString(target), name + ": the link's target was changed");
        assertTrue(Files.isSymbolicLink(link), name + ": the link was replaced");
    }

    @Test
    void symlinkPlantedWhileRunningIsNotFollowed() throws Exception {
        JDK.assumePresent();
        String name = "safe files symlink planted while running";
        Path dir = Build.runDir("safefiles-symlink-planted");
        Path target = dir.resolve("precious.txt");
        Files.writeString(target, PRECIOUS);
        Path link = dir.resolve("out.collapsed");
        Path stats = dir.resolve("out.json");
        Jvm.Result run = busy(dir, "start,interval=1ms,file=" + link + ",stats=" + stats, link.toString(),
                target.toString()).run(Duration.ofSeconds(60));
        assertRanOn(run, name);
        assertTrue(run.stdout().contains("planted=true"), name + ": the workload did not plant the link\n"
                + run.describe());
        List<String> errors = run.candorLines().stream().filter(l -> l.contains(link.toString())).toList();
        Figures.line(name + ": " + errors);
        assertEquals(1, errors.size(), name + ": one line about the link\n" + run.describe());
        assertTrue(errors.get(0).contains("symbolic link"), name + ": " + errors.get(0));
        assertEquals(PRECIOUS, Files.readString(target), name + ": the link's target was written through");
        assertTrue(Files.isSymbolicLink(link), name + ": the link was replaced");
        ProfileStats s = Profiles.stats(stats, run);  // the other output is still written
        Profiles.assertIdentity(s, name);
    }

    @Test
    void missingDirectoryIsOneErrorAtStart() throws Exception {
        JDK.assumePresent();
        String name = "safe files missing directory";
        Path dir = Build.runDir("safefiles-missing-dir");
        Path out = dir.resolve("no-such-dir").resolve("p.html");
        Jvm.Result run = busy(dir, "start,interval=1ms,file=" + out).run(Duration.ofSeconds(60));
        assertOneStartError(run, name, out);
    }

    @Test
    void unwritableDirectoryIsOneErrorAtStart() throws Exception {
        JDK.assumePresent();
        String name = "safe files unwritable directory";
        Path dir = Build.runDir("safefiles-unwritable-dir");
        Path ro = Files.createDirectory(dir.resolve("readonly"));
        Path out = ro.resolve("p.html");
        Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("r-xr-xr-x"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        String prefix = null;
        if ("root".equals(System.getProperty("user.name"))) {
            // root writes anywhere: run the JVM as nobody, for whom the directory is read-only
            Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")),
                    name + ": running as root and no setpriv to drop privileges: skipped");
            prefix = "exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups";
            Path busyClass = Build.workloadClasspath().resolve(Busy.class.getName().replace('.', '/') + ".class");
            Process probe = new ProcessBuilder("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                    "/bin/sh", "-c", "test -r \"$1\" && test -r \"$2\" && test -x \"$3\"", "sh",
                    Build.agent().toString(), busyClass.toString(), JDK.java().toString()).start();
            Assumptions.assumeTrue(probe.waitFor() == 0, name + ": user nobody cannot read the agent or the"
                    + " workload classes from here (a private checkout?): skipped");
        }
        Jvm.Result run = prefix == null ? busy(dir, "start,interval=1ms,file=" + out).run(Duration.ofSeconds(60))
                : Launch.run(busy(dir, "start,interval=1ms,file=" + out), dir, Map.of(), prefix,
                Duration.ofSeconds(60));
        assertOneStartError(run, name, out);
        assertFalse(Files.exists(out), name + ": the file was created after all");
    }

    @Test
    void fifoAtThePathNeverBlocks() throws Exception {
        JDK.assumePresent();
        String name = "safe files fifo";
        Path dir = Build.runDir("safefiles-fifo");
        Path fifo = dir.resolve("p.collapsed");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mk.waitFor(), "mkfifo");
        Jvm.Result run = busy(dir, "start,interval=1ms,file=" + fifo).run(Duration.ofSeconds(60));
        assertOneStartError(run, name, fifo);
    }

    private static void assertOneStartError(Jvm.Result run, String name, Path out) {
        assertRanOn(run, name);
        List<String> lines = run.candorLines();
        Figures.line(name + ": " + lines);
        assertEquals(1, lines.size(), name + ": exactly one candor line, at start\n" + run.describe());
        assertTrue(lines.get(0).contains(out.toString()), name + ": the line names the path: " + lines.get(0));
        assertTrue(run.stderrLines().indexOf(lines.get(0)) >= 0);
    }
}

package dev.candor.itest;

import dev.candor.itest.workload.AttachSpin;
import dev.candor.itest.workload.Hot;
import dev.candor.model.CollapsedProfile;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * For the attach and API tests: long-lived target JVMs ({@link AttachSpin}), running the candor
 * command (the installed launcher, or build/candor.jar in-process), and what /proc says about a
 * target.
 */
final class Targets {

    /** A running AttachSpin JVM; {@link #close()} lets it exit and waits for it. */
    record Spin(Jvm.Started started, Path stopFile) implements AutoCloseable {
        long pid() {
            return started.process().pid();
        }

        String pidText() {
            return Long.toString(pid());
        }

        /** Lets the target finish and returns its result (exit 0 unless it gave up). */
        Jvm.Result finish() throws IOException, InterruptedException {
            Files.writeString(stopFile, "stop\n");
            return started.await(Duration.ofSeconds(60));
        }

        @Override
        public void close() throws IOException, InterruptedException {
            if (started.process().isAlive()) {
                Files.writeString(stopFile, "stop\n");
                if (!started.process().waitFor(30, TimeUnit.SECONDS)) {
                    started.process().destroyForcibly();
                }
            }
        }
    }

    /** Starts AttachSpin (gives up after GIVE_UP seconds) and waits until it prints "ready". */
    static Spin spin(Jvm jvm, Path dir, int giveUpSeconds) throws Exception {
        Path stop = dir.resolve("stop");
        Jvm.Started s = jvm.main(AttachSpin.class, stop.toString(), Integer.toString(giveUpSeconds)).start();
        Spin spin = new Spin(s, stop);
        awaitOutput(s, "ready", Duration.ofSeconds(60));
        return spin;
    }

    /** Waits for a line in the JVM's stdout; fails when it exits first or the time is up. */
    static void awaitOutput(Jvm.Started target, String line, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(target.stdout()) && Files.readString(target.stdout()).lines().anyMatch(line::equals)) {
                return;
            }
            if (!target.process().isAlive()) {
                fail("the target exited before printing '" + line + "': "
                        + target.await(Duration.ofSeconds(5)).describe());
            }
            Thread.sleep(20);
        }
        target.process().destroyForcibly();
        fail("the target did not print '" + line + "' within " + timeout);
    }

    record Ran(int exitCode, String stdout, String stderr) {
        String describe() {
            return "exit " + exitCode + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr;
        }
    }

    /** Runs the installed launcher, build/candor, on CLIENT's java in DIR. */
    static Ran candor(Jdks.Jdk client, Path dir, String... args) throws IOException, InterruptedException {
        return candor(List.of(), client, dir, args);
    }

    /** Runs build/candor as user nobody (setpriv; the tests run as root), in DIR, which it must be able to enter. */
    static Ran candorAsNobody(Jdks.Jdk client, Path dir, String... args) throws IOException, InterruptedException {
        return candor(List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"), client, dir, args);
    }

    private static Ran candor(List<String> prefix, Jdks.Jdk client, Path dir, String... args)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(Build.file("candor").toString());
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "candor-out", ".txt");
        Path err = Files.createTempFile(dir, "candor-err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("JAVA_HOME", client.home().toString());
        Process p = pb.start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("candor " + String.join(" ", args) + " did not finish within 90 s");
        }
        Ran r = new Ran(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        Files.delete(out);
        Files.delete(err);
        Files.writeString(dir.resolve("candor-commands.txt"), "candor " + String.join(" ", args) + "\n" + r.describe()
                + "\n", StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
        return r;
    }

    private static Method cliRun; // dev.candor.cli.Candor.run(PrintWriter, PrintWriter, String...) of build/candor.jar

    /**
     * Runs the candor command in this JVM: the code of build/candor.jar (what the launcher runs),
     * in a class loader of its own, without a JVM start per command.
     */
    static synchronized Ran candorInProcess(String... args) {
        try {
            if (cliRun == null) {
                ClassLoader loader = new ChildFirstLoader(Build.file("candor.jar"));
                cliRun = loader.loadClass("dev.candor.cli.Candor")
                        .getMethod("run", PrintWriter.class, PrintWriter.class, String[].class);
            }
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int code = (Integer) cliRun.invoke(null, new PrintWriter(out), new PrintWriter(err), args);
            return new Ran(code, out.toString(), err.toString());
        } catch (ReflectiveOperationException | IOException e) {
            throw new IllegalStateException("cannot run candor.jar in-process: " + e, e);
        }
    }

    // Classes of the jar first (it bundles picocli and the model), everything else from the parent.
    private static final class ChildFirstLoader extends URLClassLoader {
        ChildFirstLoader(Path jar) throws IOException {
            super(new URL[] {jar.toUri().toURL()}, Targets.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null && !name.startsWith("java.")) {
                    try {
                        c = findClass(name);
                    } catch (ClassNotFoundException notInTheJar) {
                        // the parent's
                    }
                }
                if (c == null) {
                    c = super.loadClass(name, false);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }

    /** Lines of /proc/PID/maps that map a libcandor.so (a second copy would add more). */
    static long candorMappings(long pid) throws IOException {
        return Files.readAllLines(Path.of("/proc", Long.toString(pid), "maps")).stream()
                .filter(l -> l.endsWith("/libcandor.so") || l.endsWith("/libcandor.so (deleted)")).count();
    }

    /** Distinct libcandor.so files mapped into PID. */
    static List<String> candorFiles(long pid) throws IOException {
        return Files.readAllLines(Path.of("/proc", Long.toString(pid), "maps")).stream()
                .filter(l -> l.contains("/libcandor.so")).map(l -> l.substring(l.indexOf('/'))).distinct().toList();
    }

    /** Asserts that COLLAPSED exists and that more than half of its samples are in Hot.methodA (AttachSpin's work). */
    static void assertHot(Path collapsed) throws Exception {
        assertTrue(Files.exists(collapsed), collapsed + " arrived");
        CollapsedProfile profile = CollapsedProfile.read(collapsed);
        long hot = profile.countAny(CollapsedProfile.method(Hot.METHOD_A));
        assertTrue(hot * 2 > profile.total(), collapsed + ": Hot.methodA in " + hot + " of " + profile.total());
    }

    /** VmRSS of PID in kB. */
    static long rssKb(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IOException("no VmRSS in /proc/" + pid + "/status");
    }

    /** A number from a status line: {@code ticks=123} → 123; -1 when absent. */
    static double statusValue(String status, String key) {
        Matcher m = Pattern.compile("\\b" + key + "=([0-9.]+)").matcher(status);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }

    /** A process id that does not exist now. */
    static long unusedPid() {
        for (long pid = 4_000_000; pid > 1000; pid -= 7) {
            if (!Files.exists(Path.of("/proc", Long.toString(pid)))) {
                return pid;
            }
        }
        throw new IllegalStateException("no unused pid");
    }

    /** The first JDK present (the client the CLI runs on), or skips. */
    static Jdks.Jdk client() {
        return Jdks.all().stream().filter(Jdks.Jdk::present).findFirst().orElseGet(() -> {
            Jdks.all().get(0).assumePresent();
            return null;
        });
    }

    /** The feature version of a JDK from its release file, 0 when unknown. */
    static int feature(Jdks.Jdk jdk) {
        try {
            Matcher m = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)").matcher(Files.readString(jdk.home().resolve("release")));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    private Targets() {
    }
}

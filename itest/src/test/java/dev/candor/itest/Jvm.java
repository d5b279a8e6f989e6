package dev.candor.itest;

import dev.candor.itest.workload.Hot;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/** Launches a workload in a separate JVM, optionally with the agent, and collects its output. */
final class Jvm {
    private final Jdks.Jdk jdk;
    private final Path dir;
    private final List<String> jvmArgs = new ArrayList<>();
    private String agentOptions;
    private String mainClass;
    private Path classpath;
    private final List<String> args = new ArrayList<>();
    private final Map<String, String> env = new HashMap<>();
    private boolean unprivileged;
    private int fileLimit;

    private Jvm(Jdks.Jdk jdk, Path dir) {
        this.jdk = jdk;
        this.dir = dir;
        // modest heap; keep the hot methods out of their callers; no CompileCommand chatter on stdout
        jvmArgs.addAll(List.of("-Xms64m", "-Xmx256m", "-XX:CompileCommand=quiet", Hot.DONT_INLINE));
    }

    /** A JVM of this JDK whose stdout, stderr and outputs go to DIR. */
    static Jvm of(Jdks.Jdk jdk, Path dir) {
        return new Jvm(jdk, dir);
    }

    /** Loads the agent at startup: {@code -agentpath:LIB=OPTIONS}, first of the JVM options. */
    Jvm agent(String options) {
        this.agentOptions = options;
        return this;
    }

    Jvm jvmArg(String... a) {
        jvmArgs.addAll(List.of(a));
        return this;
    }

    /**
     * Runs the JVM as an unprivileged user, as most production JVMs run: when the tests run as root,
     * as user nobody without capabilities (setpriv), the run directory made writable for it and the
     * classpath's jars it could not read copied into it; when they do not run as root, as themselves.
     */
    Jvm unprivileged() throws IOException {
        unprivileged = true;
        if (isRoot()) {
            Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        }
        return this;
    }

    static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /**
     * The classpath with each jar that user nobody cannot read (root's local Maven repository, under a
     * home only root may enter) copied into the run directory, which it can.
     */
    private Path readableByOthers(Path cp) throws IOException {
        List<String> out = new ArrayList<>();
        for (String entry : cp.toString().split(":")) {
            Path p = Path.of(entry).toAbsolutePath();
            if (Files.isRegularFile(p) && !othersCanRead(p)) {
                Path copy = dir.resolve(p.getFileName());
                Files.copy(p, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                copy.toFile().setReadable(true, false);
                p = copy;
            }
            out.add(p.toString());
        }
        return Path.of(String.join(":", out));
    }

    private static boolean othersCanRead(Path file) throws IOException {
        if (!Files.getPosixFilePermissions(file).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_READ)) {
            return false;
        }
        for (Path d = file.getParent(); d != null; d = d.getParent()) {
            if (!Files.getPosixFilePermissions(d).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE)) {
                return false;
            }
        }
        return true;
    }

    /** Runs the JVM with at most {@code n} open files (RLIMIT_NOFILE soft and hard, via prlimit). */
    Jvm fileLimit(int n) {
        fileLimit = n;
        return this;
    }

    /** Sets an environment variable of the launched JVM. */
    Jvm env(String name, String value) {
        env.put(name, value);
        return this;
    }

    Jvm main(Class<?> main, String... a) {
        return main(main.getName(), Build.workloadClasspath(), a);
    }

    Jvm main(String main, Path cp, String... a) {
        this.mainClass = main;
        this.classpath = cp;
        args.addAll(List.of(a));
        return this;
    }

    List<String> command() {
        List<String> cmd = new ArrayList<>();
        if (fileLimit > 0) {
            cmd.addAll(List.of("prlimit", "--nofile=" + fileLimit + ":" + fileLimit, "--"));
        }
        if (unprivileged && isRoot()) {
            cmd.addAll(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
                    "--bounding-set=-all", "--"));
        }
        cmd.add(jdk.java().toString());
        if (agentOptions != null) {
            cmd.add("-agentpath:" + Build.agent() + "=" + agentOptions);
        }
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(classpath.toString());
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    /** Starts the JVM with stdout and stderr going to files in the run directory. */
    Started start() throws IOException {
        if (unprivileged && isRoot()) {
            classpath = readableByOthers(classpath);
        }
        List<String> cmd = command();
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        Files.writeString(dir.resolve("command.txt"), String.join(" ", cmd) + "\n");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        return new Started(cmd, p, out, err, System.nanoTime());
    }

    /** Runs the JVM to its end; fails the test when it takes longer than the timeout. */
    Result run(Duration timeout) throws IOException, InterruptedException {
        return start().await(timeout);
    }

    record Started(List<String> command, Process process, Path stdout, Path stderr, long startNanos) {
        Result await(Duration timeout) throws IOException, InterruptedException {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
                fail("JVM did not finish within " + timeout + ": " + String.join(" ", command)
                        + "\n" + tail("stdout", stdout) + tail("stderr", stderr));
            }
            return new Result(command, process.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8),
                    Files.readString(stderr, StandardCharsets.UTF_8),
                    Duration.ofNanos(System.nanoTime() - startNanos));
        }

        private static String tail(String what, Path file) throws IOException {
            String s = Files.exists(file) ? Files.readString(file) : "";
            return "--- " + what + " ---\n" + (s.length() > 4000 ? "..." + s.substring(s.length() - 4000) : s);
        }
    }

    record Result(List<String> command, int exitCode, String stdout, String stderr, Duration elapsed) {
        List<String> stderrLines() {
            return stderr.lines().toList();
        }

        /** stderr lines starting with {@code candor:}. */
        List<String> candorLines() {
            return stderr.lines().filter(l -> l.startsWith("candor:")).toList();
        }

        /** For assertion messages: the command, exit code and output tails. */
        String describe() {
            return "command: " + String.join(" ", command) + "\nexit code: " + exitCode
                    + "\n--- stdout ---\n" + abbreviate(stdout) + "\n--- stderr ---\n" + abbreviate(stderr);
        }

        private static String abbreviate(String s) {
            return s.length() > 4000 ? "..." + s.substring(s.length() - 4000) : s;
        }
    }
}

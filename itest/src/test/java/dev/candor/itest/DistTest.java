package dev.candor.itest;

import dev.candor.model.CollapsedProfile;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipFile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The release of {@code make dist}: unpacked into an empty directory and run with nothing but a
 * JDK and a shell on PATH (no make, cmake, Maven, compiler). {@code bin/candor --version} and the
 * agent's {@code version} option print the same line; the agent is stripped and names its debug
 * file, which the debug tarball holds; candor-api.jar bundles that same agent and comes with a
 * POM without parent; and {@code bin/candor record} profiles the bundled demo, whose hot method
 * leads the profile.
 */
class DistTest {

    static List<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void unpackedReleaseProfilesTheDemo(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path tarball = release("");
        Path dir = Build.runDir("dist-" + jdk.label());
        Path unpacked = Files.createDirectories(dir.resolve("unpacked"));
        run(List.of("tar", "-C", unpacked.toString(), "-xzf", tarball.toString()), dir, null);
        Path home;
        try (Stream<Path> top = Files.list(unpacked)) {
            home = top.findFirst().orElseThrow();
        }
        String base = tarball.getFileName().toString().replace(".tar.gz", "");
        assertEquals(base, home.getFileName().toString(), "the release unpacks into one directory of its name");

        // a PATH with a shell and the launcher's few utilities, and no build tool
        Path bin = Files.createDirectories(dir.resolve("path"));
        for (String tool : List.of("bash", "env", "dirname", "readlink")) {
            Files.createSymbolicLink(bin.resolve(tool), which(tool));
        }
        Map<String, String> env = Map.of("PATH", bin.toString(), "JAVA_HOME", jdk.home().toString(),
                "HOME", dir.toString());
        Ran tools = run(List.of(bin.resolve("bash").toString(), "-c",
                "for t in make cmake ninja mvn gcc g++ cc javac java git; do command -v $t; done; true"), dir, env);
        assertEquals("", tools.out().strip(), "no build tool may be on the PATH of this test");

        Ran version = run(List.of(home.resolve("bin/candor").toString(), "--version"), dir, env);
        assertEquals(0, version.exit(), version.toString());
        String line = version.out().strip();
        assertTrue(line.matches("candor \\S+ \\(commit ([0-9a-f]{12}|unknown)\\)"), line);
        Ran agentVersion = run(List.of(jdk.java().toString(),
                "-agentpath:" + home.resolve("lib/libcandor.so") + "=version", "-version"), dir, env);
        assertEquals(line, agentVersion.out().lines().findFirst().orElse(""), agentVersion.toString());
        assertEquals(line, Files.readString(home.resolve("VERSION")).strip());

        // stripped; the debug info is in the debug tarball, under the name the agent links to
        String sections = run(List.of("readelf", "-S", "-W", home.resolve("lib/libcandor.so").toString()), dir, null).out();
        assertFalse(sections.contains(".debug_info"), "lib/libcandor.so still has debug info");
        assertTrue(sections.contains(".gnu_debuglink"), "lib/libcandor.so names no debug file");
        Path debug = Files.createDirectories(dir.resolve("debug"));
        run(List.of("tar", "-C", debug.toString(), "-xzf", release("-debug").toString()), dir, null);
        assertTrue(run(List.of("readelf", "-S", "-W", debug.resolve(base + "/lib/libcandor.so.debug").toString()), dir,
                null).out().contains(".debug_info"), "the debug file has the debug info");

        // candor-api.jar carries this agent; its POM stands alone
        try (ZipFile api = new ZipFile(home.resolve("lib/candor-api.jar").toFile())) {
            var entry = api.getEntry("dev/candor/api/native/linux-x86_64/libcandor.so");
            assertTrue(entry != null, "candor-api.jar bundles no agent");
            assertArrayEquals(Files.readAllBytes(home.resolve("lib/libcandor.so")), api.getInputStream(entry).readAllBytes(),
                    "candor-api.jar bundles another agent than lib/libcandor.so");
        }
        String pom = Files.readString(home.resolve("lib/candor-api.pom"));
        assertTrue(pom.contains("<artifactId>candor-api</artifactId>") && !pom.contains("<parent>"), pom);
        // the JMH profiler beside it, its POM standing alone too and naming candor-api
        assertTrue(Files.isRegularFile(home.resolve("lib/candor-jmh.jar")), "no lib/candor-jmh.jar");
        String jmhPom = Files.readString(home.resolve("lib/candor-jmh.pom"));
        assertTrue(jmhPom.contains("<artifactId>candor-jmh</artifactId>") && !jmhPom.contains("<parent>")
                && jmhPom.contains("<artifactId>candor-api</artifactId>"), jmhPom);
        assertTrue(Files.readString(home.resolve("licenses/THIRD-PARTY-NOTICES.md")).contains("picocli"));

        // the demo, profiled by the release alone
        Path work = Files.createDirectories(dir.resolve("work"));
        Ran record = run(List.of(home.resolve("bin/candor").toString(), "record", "-i", "1ms", "-f", "demo.collapsed",
                "-f", "demo.html", "--", jdk.java().toString(), "-jar", home.resolve("demo/candor-demo.jar").toString(), "2"),
                work, env);
        assertEquals(0, record.exit(), record.toString());
        assertTrue(Files.size(work.resolve("demo.html")) > 10_000, "demo.html");
        CollapsedProfile profile = CollapsedProfile.read(work.resolve("demo.collapsed"));
        String top = DemoTest.topSelfFrame(profile);
        Figures.line(String.format("dist %s: %s (%d kB), %s; demo %d samples, top self frame %s", jdk,
                tarball.getFileName(), Files.size(tarball) / 1024, line, profile.total(), top));
        assertEquals(DemoTest.HOT, top, "the demo's hot method leads: " + profile.selfByFrame());
    }

    // build/candor-*-linux-x64SUFFIX.tar.gz, made by make dist (a prerequisite of make test-integration)
    private static Path release(String suffix) throws IOException {
        try (Stream<Path> files = Files.list(Build.dir())) {
            return files.filter(p -> p.getFileName().toString().matches("candor-.+-linux-x64" + suffix + "\\.tar\\.gz")
                            && (!suffix.isEmpty() || !p.getFileName().toString().endsWith("-debug.tar.gz")))
                    .findFirst().orElseGet(() -> fail("no candor-*-linux-x64" + suffix + ".tar.gz in " + Build.dir()
                            + ": run make dist"));
        }
    }

    private static Path which(String tool) {
        return Stream.of(System.getenv("PATH").split(":")).map(d -> Path.of(d, tool)).filter(Files::isExecutable)
                .findFirst().orElseGet(() -> fail(tool + " is not on PATH"));
    }

    record Ran(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout ---\n" + out + "--- stderr ---\n" + err;
        }
    }

    private static Ran run(List<String> cmd, Path dir, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(cmd)).directory(dir.toFile());
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        if (env != null) {
            pb.environment().clear();
            pb.environment().putAll(env);
        }
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(String.join(" ", cmd) + " did not finish within 120 s");
        }
        Ran r = new Ran(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err,
                StandardCharsets.UTF_8));
        if (env == null && r.exit() != 0) {
            fail(Arrays.toString(cmd.toArray()) + " failed: " + r);
        }
        return r;
    }
}

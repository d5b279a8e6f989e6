package dev.candor.itest;

import dev.candor.itest.workload.Hot;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

/** Where things are: the build directory (-Dcandor.build), the workload classes, run directories. */
final class Build {

    /** The build directory with libcandor.so, candor.jar, candor-demo.jar. */
    static Path dir() {
        String prop = System.getProperty("candor.build");
        if (prop == null || prop.isBlank()) {
            fail("system property candor.build is not set (run `make test-integration`, "
                    + "or mvn verify -Dcandor.build=DIR)");
        }
        return Path.of(prop).toAbsolutePath().normalize();
    }

    /** The agent library; fails the test when it has not been built. */
    static Path agent() {
        return file("libcandor.so");
    }

    /** A file of the build directory; fails the test when it is missing. */
    static Path file(String name) {
        Path p = dir().resolve(name);
        if (!Files.isRegularFile(p)) {
            fail(p + " not found: build it first (make all), or point -Dcandor.build at the build directory");
        }
        return p;
    }

    /** The classpath entry holding the workloads (itest/target/classes). */
    static Path workloadClasspath() {
        try {
            return Path.of(Hot.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** itest/target. */
    static Path target() {
        Path cp = workloadClasspath();
        return Files.isDirectory(cp) ? cp.getParent() : cp.getParent();
    }

    /** A fresh, empty directory for one run: target/itest-runs/NAME. */
    static Path runDir(String name) {
        Path dir = target().resolve("itest-runs").resolve(name.replaceAll("[^A-Za-z0-9._-]+", "_"));
        try {
            if (Files.exists(dir)) {
                try (Stream<Path> walk = Files.walk(dir)) {
                    walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return dir;
    }

    private Build() {
    }
}

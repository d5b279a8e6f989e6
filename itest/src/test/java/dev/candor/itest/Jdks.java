package dev.candor.itest;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JDKs the integration tests run on: JDK 17 and JDK 25 at their usual places, or the
 * homes listed in {@code CANDOR_JDKS} (colon-separated). A JDK that is not there is skipped by
 * {@link Jdk#assumePresent()} with a clear line.
 */
final class Jdks {
    static final Path JDK17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");
    static final Path JDK25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");

    /** A JDK home and the label tests show for it, e.g. "JDK 17". */
    record Jdk(String label, Path home) {
        Path java() {
            return home.resolve("bin").resolve("java");
        }

        boolean present() {
            return Files.isExecutable(java());
        }

        /** Skips the calling test, saying so on stdout, when this JDK is absent. */
        void assumePresent() {
            if (!present()) {
                String message = label + " not found at " + home + ": skipped";
                Figures.line(message);
                Assumptions.assumeTrue(false, message);
            }
        }

        @Override
        public String toString() {
            return label;
        }
    }

    static List<Jdk> all() {
        String env = System.getenv("CANDOR_JDKS");
        List<Jdk> jdks = new ArrayList<>();
        if (env != null && !env.isBlank()) {
            for (String p : env.split(":")) {
                if (!p.isBlank()) {
                    Path home = Path.of(p.strip());
                    jdks.add(new Jdk(label(home, "JDK " + home.getFileName()), home));
                }
            }
        } else {
            jdks.add(new Jdk(label(JDK17, "JDK 17"), JDK17));
            jdks.add(new Jdk(label(JDK25, "JDK 25"), JDK25));
        }
        return jdks;
    }

    // "JDK <feature>" from the home's release file, else the fallback.
    private static String label(Path home, String fallback) {
        try {
            Matcher m = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)").matcher(Files.readString(home.resolve("release")));
            if (m.find()) {
                return "JDK " + m.group(1);
            }
        } catch (IOException | RuntimeException e) {
            // absent or unreadable: keep the fallback
        }
        return fallback;
    }

    private Jdks() {
    }
}

package dev.candor.itest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;

/** The numbers the tests observe: printed and appended to target/itest-figures.txt. */
final class Figures {
    static synchronized void line(String text) {
        String line = "candor-itest: " + text;
        System.out.println(line);
        try {
            Files.writeString(Build.target().resolve("itest-figures.txt"), line + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            // the printed line is enough
        }
    }

    static String pct(double fraction) {
        return String.format("%.1f%%", 100 * fraction);
    }

    private Figures() {
    }
}

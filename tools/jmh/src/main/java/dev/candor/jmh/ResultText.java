package dev.candor.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The text JMH prints under the benchmark's result: the hottest methods from the summary (so that
 * the console already answers "where did the time go") and the files written.
 */
final class ResultText {
    static final String TOP_SELF = "Top methods by self time";
    static final int TOP_ROWS = 5;

    static String of(List<Path> files) {
        StringBuilder sb = new StringBuilder();
        for (Path f : files) {
            if (f.getFileName().toString().endsWith(".txt")) {
                sb.append(topSelf(f));
            }
        }
        sb.append("candor profile of the measurement iterations:\n");
        for (Path f : files) {
            sb.append("  ").append(f).append(Files.exists(f) ? "" : "  (not written; see the candor: lines above)")
                    .append('\n');
            Path bytes = allocCompanion(f);
            if (Files.exists(bytes)) {
                sb.append("  ").append(bytes).append('\n');
            }
        }
        return sb.toString();
    }

    // With alloc beside a time event the agent writes the bytes profile next to each file:
    // x.html -> x-alloc.html (the summary holds both).
    static Path allocCompanion(Path file) {
        String name = file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return file.resolveSibling(name.substring(0, dot) + "-alloc" + name.substring(dot));
    }

    // The summary's "Top methods by self time" heading, column header and first rows, or nothing.
    static String topSelf(Path summary) {
        List<String> lines;
        try {
            lines = Files.readAllLines(summary);
        } catch (IOException e) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(TOP_SELF)) {
                for (int j = i; j < lines.size() && j < i + 2 + TOP_ROWS && !lines.get(j).isBlank(); j++) {
                    sb.append(lines.get(j)).append('\n');
                }
                break;
            }
        }
        return sb.toString();
    }

    private ResultText() {
    }
}

package dev.candor.model;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** Shared wording of the reports: title, header lines, subtitle, numbers. */
final class ReportText {
    private ReportText() {
    }

    static String title(Profile p, ReportOptions o) {
        if (o.title() != null && !o.title().isBlank()) {
            return o.title();
        }
        Path name = Path.of(p.source()).getFileName();
        return "candor report: " + (name == null ? p.source() : name.toString());
    }

    /** "jdk.ExecutionSample" or "a + b". */
    static String events(Profile p) {
        return p.eventTypes().isEmpty() ? "none" : String.join(" + ", p.eventTypes());
    }

    /** Lines saying what is reported: source, events, samples and time, filters, damage. */
    static List<String> header(Profile p, ReportOptions o) {
        List<String> lines = new ArrayList<>();
        lines.add("source:   " + p.source());
        String ev = "events:   " + events(p);
        if (!p.otherEvents().isEmpty()) {
            ev += " (also in the input: " + others(p.otherEvents()) + ")";
        }
        lines.add(ev);
        lines.add("samples:  " + p.total() + timeRange(p));
        if (!p.filters().isEmpty()) {
            lines.add("filters:  " + String.join(", ", p.filters()) + ": " + p.total() + " of " + p.unfilteredTotal()
                    + " samples kept; percentages are of the " + p.total());
        }
        List<String> view = new ArrayList<>();
        if (o.threads()) {
            view.add("one tree per thread");
        }
        if (o.reverse()) {
            view.add("reversed (callers view)");
        }
        if (o.lines()) {
            view.add("with line numbers");
        }
        if (!view.isEmpty()) {
            lines.add("view:     " + String.join(", ", view));
        }
        p.damage().ifPresent(d -> lines.add("DAMAGED:  " + d + "; only what precedes the damage is reported"));
        return lines;
    }

    static String others(Map<String, Long> others) {
        return others.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
    }

    static String timeRange(Profile p) {
        if (p.start().isEmpty()) {
            return "";
        }
        Instant s = p.start().get();
        String out = ", recording from " + s;
        if (p.end().isPresent()) {
            out += " for " + seconds(Duration.between(s, p.end().get())) + " s";
        }
        return out;
    }

    /** One line for the flame graph's subtitle. */
    static String subtitle(Profile p) {
        StringBuilder sb = new StringBuilder();
        sb.append(events(p)).append(" from ").append(fileName(p.source())).append(": ").append(p.total())
                .append(" samples");
        if (p.start().isPresent() && p.end().isPresent()) {
            sb.append(" over ").append(seconds(Duration.between(p.start().get(), p.end().get()))).append(" s");
        }
        if (!p.filters().isEmpty()) {
            sb.append("; ").append(String.join(", ", p.filters())).append(" (").append(p.total()).append(" of ")
                    .append(p.unfilteredTotal()).append(")");
        }
        p.damage().ifPresent(d -> sb.append("; DAMAGED at byte ").append(d.offset())
                .append(", only what precedes it is shown"));
        return sb.toString();
    }

    static String fileName(String source) {
        Path name = Path.of(source).getFileName();
        return name == null ? source : name.toString();
    }

    static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.3f", d.toNanos() / 1e9);
    }

    static String pct(long part, long whole) {
        return String.format(Locale.ROOT, "%.2f%%", whole == 0 ? 0.0 : 100.0 * part / whole);
    }
}

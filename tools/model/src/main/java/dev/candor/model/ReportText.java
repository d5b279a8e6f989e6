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
        String unit = p.unit();
        lines.add(switch (unit) {
            case "bytes" -> "sampled:  " + amount(p.total(), unit) + " allocated, in " + p.samples().size() + " events";
            case "ns" -> "waited:   " + amount(p.total(), unit) + ", in " + p.samples().size() + " events";
            default -> "samples:  " + p.total();
        } + timeRange(p));
        if (!p.filters().isEmpty()) {
            lines.add("filters:  " + String.join(", ", p.filters()) + ": " + cell(p.total(), unit) + " of "
                    + amount(p.unfilteredTotal(), unit) + " kept; percentages are of the " + cell(p.total(), unit));
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
        return others.entrySet().stream().map(e -> e.getKey() + " " + weightOf(e.getKey(), e.getValue()))
                .collect(Collectors.joining(", "));
    }

    /** An event type's summed weight in its unit: "670" (samples), "1.13 GiB", "16.46 s". */
    static String weightOf(String eventType, long weight) {
        return cell(weight, JfrEvents.unitOf(List.of(eventType)));
    }

    /** VALUE in UNIT (a {@link Profile#unit()}) with its unit named: "670 samples", "1.13 GiB", "16.46 s". */
    static String amount(long value, String unit) {
        return unit.equals("bytes") || unit.equals("ns") ? cell(value, unit) : value + " samples";
    }

    /** VALUE in UNIT for a table cell: "670", "1.13 GiB", "16.46 s". */
    static String cell(long value, String unit) {
        switch (unit) {
            case "bytes": {
                String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
                double v = value;
                int i = 0;
                while (v >= 1024 && i < units.length - 1) {
                    v /= 1024;
                    i++;
                }
                return i == 0 ? value + " B" : String.format(Locale.ROOT, "%.2f %s", v, units[i]);
            }
            case "ns":
                return value < 1_000 ? value + " ns"
                        : value < 1_000_000 ? String.format(Locale.ROOT, "%.1f µs", value / 1e3)
                        : value < 1_000_000_000 ? String.format(Locale.ROOT, "%.1f ms", value / 1e6)
                        : String.format(Locale.ROOT, "%.2f s", value / 1e9);
            default:
                return Long.toString(value);
        }
    }

    /** The name of a table's value column for UNIT: "samples", "allocated", "waited". */
    static String column(String unit) {
        return unit.equals("bytes") ? "allocated" : unit.equals("ns") ? "waited" : "samples";
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
        sb.append(events(p)).append(" from ").append(fileName(p.source())).append(": ").append(amount(p.total(), p.unit()));
        if (p.start().isPresent() && p.end().isPresent()) {
            sb.append(" over ").append(seconds(Duration.between(p.start().get(), p.end().get()))).append(" s");
        }
        if (!p.filters().isEmpty()) {
            sb.append("; ").append(String.join(", ", p.filters())).append(" (").append(cell(p.total(), p.unit()))
                    .append(" of ").append(cell(p.unfilteredTotal(), p.unit())).append(")");
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

package dev.candor.model;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes hot methods: a table by self samples (where the CPU was) and one by total samples (on
 * the stack at all, recursion counted once), percentages of all samples, failures included as
 * their pseudo-frames. Allocation and lock profiles count bytes and nanoseconds waited instead,
 * and say so in their unit ("1.13 GiB", "16.46 s"). With {@code threads}, the tables of each thread, percentages of that
 * thread's samples.
 */
public final class FlatWriter {
    private FlatWriter() {
    }

    /** A method's self and total samples. */
    public record Row(String method, long self, long total) {
    }

    /** Rows for the samples, by self then total (descending), then name. */
    public static List<Row> rows(List<Sample> samples, boolean lines) {
        // a method's total counts a stack once however often it recurses: the tree's method totals
        Map<String, double[]> m = Cct.of(samples, new Cct.Options(false, lines, false)).methods();
        List<Row> rows = new ArrayList<>(m.size());
        m.forEach((k, v) -> rows.add(new Row(k, Math.round(v[0]), Math.round(v[1]))));
        rows.sort(Comparator.comparingLong(Row::self).reversed().thenComparing(
                Comparator.comparingLong(Row::total).reversed()).thenComparing(Row::method));
        return rows;
    }

    public static void write(Profile profile, ReportOptions options, Writer out) throws IOException {
        out.write(ReportText.title(profile, options) + "\n");
        for (String l : ReportText.header(profile, options)) {
            out.write(l + "\n");
        }
        String unit = profile.unit();
        if (!options.threads()) {
            tables(out, profile.samples(), profile.total(), (profile.filters().isEmpty() ? "all " : "the ")
                    + ReportText.amount(profile.total(), unit) + (profile.filters().isEmpty() ? "" : " kept"), unit,
                    options);
            return;
        }
        Map<String, List<Sample>> byThread = new LinkedHashMap<>();
        for (Sample s : profile.samples()) {
            String t = s.thread() != null ? s.thread().rootFrame() : Frame.UNKNOWN_THREAD_ROOT;
            byThread.computeIfAbsent(t, k -> new ArrayList<>()).add(s);
        }
        List<Map.Entry<String, List<Sample>>> threads = new ArrayList<>(byThread.entrySet());
        threads.sort(Comparator.comparingLong((Map.Entry<String, List<Sample>> e) -> -weight(e.getValue()))
                .thenComparing(Map.Entry::getKey));
        for (Map.Entry<String, List<Sample>> e : threads) {
            long w = weight(e.getValue());
            out.write(String.format(Locale.ROOT, "%n== thread %s: %s, %s of all%n", e.getKey(),
                    ReportText.amount(w, unit), ReportText.pct(w, profile.total())));
            tables(out, e.getValue(), w, unit.equals("samples") ? "the thread's samples" : "the thread's", unit, options);
        }
    }

    private static long weight(List<Sample> samples) {
        long w = 0;
        for (Sample s : samples) {
            w += s.weight();
        }
        return w;
    }

    private static void tables(Writer out, List<Sample> samples, long total, String of, String unit, ReportOptions o)
            throws IOException {
        List<Row> all = rows(samples, o.lines());
        List<Row> bySelf = new ArrayList<>();
        for (Row r : all) {
            if (r.self() > 0) {
                bySelf.add(r);
            }
        }
        List<Row> byTotal = new ArrayList<>(all);
        byTotal.sort(Comparator.comparingLong(Row::total).reversed().thenComparing(
                Comparator.comparingLong(Row::self).reversed()).thenComparing(Row::method));
        out.write("\nTop methods by self time (percent of " + of + "):\n");
        table(out, bySelf, total, unit, o.top(), true);
        out.write("\nTop methods by total time (percent of " + of + "):\n");
        table(out, byTotal, total, unit, o.top(), false);
    }

    private static void table(Writer out, List<Row> rows, long total, String unit, int top, boolean bySelf)
            throws IOException {
        out.write(String.format(Locale.ROOT, "%9s %8s %9s  %s%n", "self%", "total%", ReportText.column(unit), "method"));
        int n = top == 0 ? rows.size() : Math.min(top, rows.size());
        for (int i = 0; i < n; i++) {
            Row r = rows.get(i);
            out.write(String.format(Locale.ROOT, "%9s %8s %9s  %s%n", ReportText.pct(r.self(), total),
                    ReportText.pct(r.total(), total), ReportText.cell(bySelf ? r.self() : r.total(), unit), r.method()));
        }
        if (n < rows.size()) {
            out.write(String.format(Locale.ROOT, "  (%d more methods; --top 0 lists all)%n", rows.size() - n));
        }
    }
}

package dev.candor.model;

/**
 * How to present a profile.
 *
 * @param threads    one tree per thread: a {@code [name tid=N]} root frame above each stack
 * @param lines      frames of one method at different source lines are distinct ({@code m:12})
 * @param reverse    callers view: stacks leaf first (not for pprof, whose viewers do that themselves)
 * @param title      the report title, or null for a default naming the input
 * @param top        rows per table of the flat output (0: all)
 * @param minPercent the tree output leaves out frames below this share of all samples (0: none)
 */
public record ReportOptions(boolean threads, boolean lines, boolean reverse, String title, int top,
                            double minPercent) {
    public static final ReportOptions DEFAULT = new ReportOptions(false, false, false, null, 30, 0.1);

    public ReportOptions {
        if (top < 0) {
            throw new IllegalArgumentException("top must not be negative: " + top);
        }
        if (!(minPercent >= 0 && minPercent <= 100)) {
            throw new IllegalArgumentException("minPercent must be between 0 and 100: " + minPercent);
        }
    }

    public Cct.Options treeOptions() {
        return new Cct.Options(threads, lines, reverse);
    }

    public ReportOptions withThreads(boolean t) {
        return new ReportOptions(t, lines, reverse, title, top, minPercent);
    }

    public ReportOptions withReverse(boolean r) {
        return new ReportOptions(threads, lines, r, title, top, minPercent);
    }

    public ReportOptions withLines(boolean l) {
        return new ReportOptions(threads, l, reverse, title, top, minPercent);
    }

    public ReportOptions withTitle(String t) {
        return new ReportOptions(threads, lines, reverse, t, top, minPercent);
    }

    public ReportOptions withTop(int n) {
        return new ReportOptions(threads, lines, reverse, title, n, minPercent);
    }

    public ReportOptions withMinPercent(double p) {
        return new ReportOptions(threads, lines, reverse, title, top, p);
    }
}

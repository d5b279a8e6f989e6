package dev.candor.compare;

import dev.candor.model.Cct;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Everything {@code candor compare A B} reports: the overlap, the hot-edge coverage both ways,
 * the counts behind them, and the edges and methods whose weight differs most.
 */
public final class Comparison {

    /** An edge (calling context) with its relative self weight in A and in B (0 when absent). */
    public record EdgeDiff(List<String> path, double a, double b) {
        public double delta() {
            return b - a;
        }
    }

    /** A method with its relative self and total weights in A and B (total: recursion counted once). */
    public record MethodDiff(String name, double selfA, double selfB, double totalA, double totalB) {
        public double deltaSelf() {
            return selfB - selfA;
        }

        public double deltaTotal() {
            return totalB - totalA;
        }
    }

    private final Inputs.Loaded a;
    private final Inputs.Loaded b;
    private final double threshold;
    private final double overlap;
    private final Metrics.HotCover coverAB;
    private final Metrics.HotCover coverBA;
    private final List<EdgeDiff> edges;
    private final List<MethodDiff> methods;

    private Comparison(Inputs.Loaded a, Inputs.Loaded b, double threshold) {
        this.a = a;
        this.b = b;
        this.threshold = threshold;
        this.overlap = Metrics.overlap(a.cct(), b.cct());
        this.coverAB = Metrics.hotcover(a.cct(), b.cct(), threshold);
        this.coverBA = Metrics.hotcover(b.cct(), a.cct(), threshold);
        this.edges = edgeDiffs(a.cct(), b.cct());
        this.methods = methodDiffs(a.cct(), b.cct());
    }

    /**
     * Compares two loaded inputs.
     *
     * @throws IllegalArgumentException naming the input that has nothing left to compare, or a bad threshold
     */
    public static Comparison of(Inputs.Loaded a, Inputs.Loaded b, double threshold) {
        Metrics.checkThreshold(threshold);
        requireSamples(a, "A");
        requireSamples(b, "B");
        return new Comparison(a, b, threshold);
    }

    /** Fails with a message saying why an input has no samples left. */
    public static void requireSamples(Inputs.Loaded in, String which) {
        if (!in.cct().isEmpty()) {
            return;
        }
        StringBuilder why = new StringBuilder(which + " (" + in.label() + ") has no samples to compare");
        if (in.read() == 0) {
            why.append(": the input is empty");
        } else {
            why.append(": of ").append(fmtWeight(in.read())).append(" read");
            if (in.unfocused() > 0) {
                why.append(", ").append(fmtWeight(in.unfocused())).append(" have no frame matching the focus");
            }
            if (in.otherKinds() > 0) {
                why.append(", ").append(fmtWeight(in.otherKinds())).append(" are of another kind");
            }
            if (in.droppedOther() > 0) {
                why.append(", ").append(fmtWeight(in.droppedOther())).append(" are failures or native-only stacks");
            }
        }
        throw new IllegalArgumentException(why.toString());
    }

    public Inputs.Loaded a() {
        return a;
    }

    public Inputs.Loaded b() {
        return b;
    }

    public double threshold() {
        return threshold;
    }

    public double overlap() {
        return overlap;
    }

    /** hotcover(A, B, T): the share of B's hot edges that are hot in A. */
    public Metrics.HotCover coverAB() {
        return coverAB;
    }

    /** hotcover(B, A, T): the share of A's hot edges that are hot in B. */
    public Metrics.HotCover coverBA() {
        return coverBA;
    }

    /** Every edge of A or B, largest |B − A| first. */
    public List<EdgeDiff> edges() {
        return edges;
    }

    /** Every method of A or B, largest |Δself| first (then |Δtotal|). */
    public List<MethodDiff> methods() {
        return methods;
    }

    static List<EdgeDiff> edgeDiffs(Cct a, Cct b) {
        List<EdgeDiff> out = new ArrayList<>();
        double ta = a.total();
        double tb = b.total();
        Cct.walkInStep(a, b, false, (na, nb) -> {
            double wa = na == null ? 0 : na.self() / ta;
            double wb = nb == null ? 0 : nb.self() / tb;
            if (wa > 0 || wb > 0) {
                out.add(new EdgeDiff((na != null ? na : nb).path(), wa, wb));
            }
        });
        out.sort(Comparator.comparingDouble((EdgeDiff e) -> -Math.abs(e.delta()))
                .thenComparing(e -> String.join(";", e.path())));
        return List.copyOf(out);
    }

    static List<MethodDiff> methodDiffs(Cct a, Cct b) {
        Map<String, double[]> ma = a.methods();
        Map<String, double[]> mb = b.methods();
        Set<String> names = new HashSet<>(ma.keySet());
        names.addAll(mb.keySet());
        List<MethodDiff> out = new ArrayList<>();
        for (String n : names) {
            double[] wa = ma.getOrDefault(n, new double[2]);
            double[] wb = mb.getOrDefault(n, new double[2]);
            out.add(new MethodDiff(n, wa[0] / a.total(), wb[0] / b.total(), wa[1] / a.total(), wb[1] / b.total()));
        }
        out.sort(Comparator.comparingDouble((MethodDiff m) -> -Math.abs(m.deltaSelf()))
                .thenComparingDouble(m -> -Math.abs(m.deltaTotal())).thenComparing(MethodDiff::name));
        return List.copyOf(out);
    }

    // ---- text -------------------------------------------------------------------------------

    /** The report {@code candor compare} prints, with at most {@code top} rows per table. */
    public String text(int top, String optionsDescription) {
        StringBuilder sb = new StringBuilder();
        sb.append("A: ").append(describe(a)).append('\n');
        sb.append("B: ").append(describe(b)).append('\n');
        sb.append("matching: ").append(optionsDescription).append('\n');
        for (String n : a.notes()) {
            sb.append("note: ").append(n).append('\n');
        }
        for (String n : b.notes()) {
            sb.append("note: ").append(n).append('\n');
        }
        sb.append('\n');
        String t = fmtThreshold(threshold);
        sb.append(String.format(Locale.ROOT, "%-20s%.3f   (%d edges in A, %d in B, %d in both)%n",
                "overlap(A,B)", overlap, a.cct().edgeCount(), b.cct().edgeCount(), common()));
        sb.append(String.format(Locale.ROOT, "%-20s%.3f   (%d of B's %d hot edges are hot in A)%n",
                "hotcover(A,B," + t + ")", coverAB.value(), coverAB.covered(), coverAB.hotInSecond()));
        sb.append(String.format(Locale.ROOT, "%-20s%.3f   (%d of A's %d hot edges are hot in B)%n",
                "hotcover(B,A," + t + ")", coverBA.value(), coverBA.covered(), coverBA.hotInSecond()));
        sb.append(String.format(Locale.ROOT, "hottest edge: A %s, B %s; hot means at least %s of that%n",
                pct(Metrics.hottest(a.cct())), pct(Metrics.hottest(b.cct())), t));

        sb.append("\nedges whose weight differs most (self share of all samples):\n");
        sb.append(String.format(Locale.ROOT, "%8s %8s %9s  %s%n", "A", "B", "B-A", "edge (last frames)"));
        int n = 0;
        for (EdgeDiff e : edges) {
            if (n++ >= top || Math.abs(e.delta()) < 5e-5) {
                break;
            }
            sb.append(String.format(Locale.ROOT, "%8s %8s %9s  %s%n", pct(e.a()), pct(e.b()), points(e.delta()),
                    shortPath(e.path(), 3)));
        }
        sb.append("\nmethods whose weight differs most (self share; total share, recursion counted once):\n");
        sb.append(String.format(Locale.ROOT, "%8s %8s %9s  %8s %8s  %s%n", "self A", "self B", "B-A", "total A",
                "total B", "method"));
        n = 0;
        for (MethodDiff m : methods) {
            if (n++ >= top || Math.abs(m.deltaSelf()) < 5e-5 && Math.abs(m.deltaTotal()) < 5e-5) {
                break;
            }
            sb.append(String.format(Locale.ROOT, "%8s %8s %9s  %8s %8s  %s%n", pct(m.selfA()), pct(m.selfB()),
                    points(m.deltaSelf()), pct(m.totalA()), pct(m.totalB()), m.name()));
        }
        return sb.toString();
    }

    private int common() {
        int[] c = {0};
        Cct.walkInStep(a.cct(), b.cct(), true, (na, nb) -> c[0]++);
        return c[0];
    }

    /** "file [event]: 1,234 samples (of 1,300 read; 66 outside the focus), 3.1% failures". */
    static String describe(Inputs.Loaded in) {
        StringBuilder sb = new StringBuilder(in.label()).append(": ").append(fmtWeight(in.kept())).append(' ').append(in.unit());
        List<String> extra = new ArrayList<>();
        if (in.read() != in.kept()) {
            extra.add("of " + fmtWeight(in.read()) + " read");
        }
        if (in.unfocused() > 0) {
            extra.add(fmtWeight(in.unfocused()) + " outside the focus");
        }
        if (in.otherKinds() > 0) {
            extra.add(fmtWeight(in.otherKinds()) + " of other kinds");
        }
        if (in.droppedOther() > 0) {
            extra.add(fmtWeight(in.droppedOther()) + " failures or native-only stacks dropped");
        }
        if (!extra.isEmpty()) {
            sb.append(" (").append(String.join("; ", extra)).append(')');
        }
        if (in.failures() > 0) {
            sb.append(", ").append(pct(in.failures() / in.kept())).append(" failures and losses");
        }
        return sb.toString();
    }

    static String shortPath(List<String> path, int last) {
        if (path.size() <= last) {
            return String.join(";", path);
        }
        return "…(" + (path.size() - last) + ");" + String.join(";", path.subList(path.size() - last, path.size()));
    }

    static String pct(double share) {
        return String.format(Locale.ROOT, "%.1f%%", 100 * share);
    }

    static String points(double delta) {
        return String.format(Locale.ROOT, "%+.1f", 100 * delta);
    }

    static String fmtThreshold(double t) {
        String s = String.format(Locale.ROOT, "%.3f", t).replaceAll("0+$", "");
        return s.endsWith(".") ? s + "0" : s;
    }

    /** A weight: an integer with thousands separators when whole, else with two decimals. */
    public static String fmtWeight(double w) {
        if (w == Math.rint(w) && Math.abs(w) < 1e18) {
            return String.format(Locale.ROOT, "%,d", (long) w);
        }
        return String.format(Locale.ROOT, "%,.2f", w);
    }
}

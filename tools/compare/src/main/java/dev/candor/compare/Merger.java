package dev.candor.compare;

import dev.candor.model.Cct;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Averages several calling context trees into one normalized tree, as one merges the
 * per-iteration CCTs of a benchmark before comparing profilers: every input is first normalized to a total
 * of 1, so each counts equally however many samples it has; the edge weights of the result are
 * the means of the inputs' relative weights (an edge absent from an input counts 0 there).
 */
public final class Merger {
    /** Default total of a merged profile written as collapsed stacks: parts per million. */
    public static final long DEFAULT_SCALE = 1_000_000;

    private Merger() {
    }

    /**
     * The average of the normalized trees; its total is 1.
     *
     * @throws IllegalArgumentException when there is no tree or one is empty
     */
    public static Cct average(List<Cct> trees) {
        if (trees.isEmpty()) {
            throw new IllegalArgumentException("nothing to merge");
        }
        Cct.Builder out = Cct.builder();
        for (int i = 0; i < trees.size(); i++) {
            Cct t = trees.get(i);
            if (t.isEmpty()) {
                throw new IllegalArgumentException("input " + (i + 1) + " has no samples");
            }
            out.addAll(t, 1.0 / (trees.size() * t.total()));
        }
        return out.build();
    }

    /**
     * The tree as collapsed stacks with integer counts summing to exactly {@code scale}: each
     * edge gets its share of the scale rounded down, and the remainder goes to the edges with the
     * largest fractions (largest-remainder rounding). Edges that round to 0 are left out.
     */
    public static String toCollapsed(Cct tree, long scale) {
        if (scale <= 0) {
            throw new IllegalArgumentException("scale must be positive: " + scale);
        }
        List<Cct.Node> edges = new ArrayList<>();
        for (Cct.Node n : tree.nodes()) {
            if (n.self() > 0) {
                edges.add(n);
            }
        }
        long[] counts = new long[edges.size()];
        double[] frac = new double[edges.size()];
        long assigned = 0;
        for (int i = 0; i < edges.size(); i++) {
            double exact = edges.get(i).self() / tree.total() * scale;
            counts[i] = (long) Math.floor(exact);
            frac[i] = exact - counts[i];
            assigned += counts[i];
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < edges.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparingDouble((Integer i) -> -frac[i]).thenComparingInt(i -> i));
        for (int k = 0; assigned < scale && k < order.size(); k++, assigned++) {
            counts[order.get(k)]++;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < edges.size(); i++) {
            if (counts[i] > 0) {
                sb.append(String.join(";", edges.get(i).path())).append(' ').append(counts[i]).append('\n');
            }
        }
        return sb.toString();
    }
}

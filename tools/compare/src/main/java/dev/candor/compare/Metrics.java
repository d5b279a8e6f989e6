package dev.candor.compare;

import dev.candor.model.Cct;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * The two calling-context-tree accuracy metrics used to judge profilers against each other or
 * a truth (degree of overlap: Arnold and Grove, CGO 2005; hot-edge coverage: Zhuang et al.,
 * PLDI 2006):
 *
 * <pre>
 * overlap(A, B)     = Σ_{e ∈ A ∩ B} min(weight(e, A), weight(e, B))
 * hotcover(A, B, T) = |hotset(A, T) ∩ hotset(B, T)| / |hotset(B, T)|
 * hotset(C, T)      = { e ∈ C : weight(e, C) ≥ T · hottest(C) }
 * hottest(C)        = max_{e ∈ C} weight(e, C)
 * </pre>
 *
 * An edge is a calling context (a node of {@link Cct}, identified by its path of frame names) and
 * {@code weight(e, C)} is its relative self weight: the share of C's samples whose stack ends
 * exactly there (node counts normalized to the total sample count). Edges of two
 * trees are the same edge when their paths are equal. Both metrics lie in [0, 1]; the overlap is
 * symmetric, the hot-edge coverage is not: {@code hotcover(A, B, T)} is the share of B's hot
 * edges that are also hot in A.
 *
 * <p>With {@code T = 0} every edge is hot, including pure callers (self weight 0). Weights are
 * compared in the trees' own units ({@code self ≥ T · max self}) with a relative tolerance of
 * 1e-9, so an edge exactly at the threshold is hot even when {@code T · max} rounds up.
 */
public final class Metrics {
    /** The usual threshold in profiler-accuracy studies: a tenth of the hottest edge. */
    public static final double DEFAULT_THRESHOLD = 0.1;
    private static final double TOLERANCE = 1e-9;

    private Metrics() {
    }

    /** The result of a hot-edge coverage: the value and the counts behind it. */
    public record HotCover(double value, int covered, int hotInFirst, int hotInSecond, double threshold) {
        @Override
        public String toString() {
            return String.format("%.3f (%d of %d)", value, covered, hotInSecond);
        }
    }

    /**
     * The degree of overlap of two trees.
     *
     * @throws IllegalArgumentException when either tree is empty
     */
    public static double overlap(Cct a, Cct b) {
        requireNonEmpty(a, "the first profile");
        requireNonEmpty(b, "the second profile");
        double ta = a.total();
        double tb = b.total();
        double[] sum = {0};
        Cct.walkInStep(a, b, true, (ca, cb) -> sum[0] += Math.min(ca.self() / ta, cb.self() / tb));
        return Math.min(1.0, sum[0]);
    }

    /** The largest relative edge weight. */
    public static double hottest(Cct c) {
        requireNonEmpty(c, "the profile");
        return maxSelf(c) / c.total();
    }

    /**
     * The hot edges: relative weight at least {@code threshold} times the hottest edge's.
     *
     * @throws IllegalArgumentException when the tree is empty or the threshold is not in [0, 1]
     */
    public static List<Cct.Node> hotset(Cct c, double threshold) {
        requireNonEmpty(c, "the profile");
        checkThreshold(threshold);
        double min = threshold * maxSelf(c) * (1 - TOLERANCE);
        List<Cct.Node> out = new ArrayList<>();
        for (Cct.Node n : c.nodes()) {
            if (n.self() >= min) {
                out.add(n);
            }
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * Hot-edge coverage of {@code a} over {@code b}: the share of b's hot edges that are hot in a.
     *
     * @throws IllegalArgumentException when either tree is empty or the threshold is not in [0, 1]
     */
    public static HotCover hotcover(Cct a, Cct b, double threshold) {
        requireNonEmpty(a, "the first profile");
        requireNonEmpty(b, "the second profile");
        checkThreshold(threshold);
        List<Cct.Node> hotA = hotset(a, threshold);
        List<Cct.Node> hotB = hotset(b, threshold);
        Set<Cct.Node> hotInA = Collections.newSetFromMap(new IdentityHashMap<>());
        hotInA.addAll(hotA);
        int covered = 0;
        for (Cct.Node e : hotB) {
            Cct.Node inA = a.find(e.path());
            if (inA != null && hotInA.contains(inA)) {
                covered++;
            }
        }
        // hotB is never empty: a non-empty tree has an edge of maximal weight
        return new HotCover((double) covered / hotB.size(), covered, hotA.size(), hotB.size(), threshold);
    }

    /** Accepts thresholds in [0, 1]. */
    public static void checkThreshold(double threshold) {
        if (!(threshold >= 0 && threshold <= 1)) {
            throw new IllegalArgumentException("the threshold must be between 0 and 1, not " + threshold);
        }
    }

    private static double maxSelf(Cct c) {
        double max = 0;
        for (Cct.Node n : c.nodes()) {
            max = Math.max(max, n.self());
        }
        return max;
    }

    private static void requireNonEmpty(Cct c, String what) {
        if (c == null || c.isEmpty()) {
            throw new IllegalArgumentException(what + " is empty: it has no samples to compare");
        }
    }
}

import dev.candor.compare.Inputs;
import dev.candor.compare.Metrics;
import dev.candor.model.Cct;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Where two profilers' profiles of the same server disagree, and how much of it is systematic.
 * Reads several rounds of each (files `candor compare` reads, async-profiler's rewritten by the bench
 * as {@code *.compare.collapsed}) with compare's default options, then prints:
 *
 * <ol>
 * <li>the overlap of every pair of adjacent rounds, within each profiler and across the two (round i
 *   of A with round i of B), as `candor compare` computes it;</li>
 * <li>for the first cross pair and the first pair within A: 1 − overlap split by the kind of leaf
 *   (Java, stub, native, kernel, pseudo-frame) and whether the stack reaches a thread's entry
 *   point ({@code ok}) or not (a broken or truncated stack);</li>
 * <li>the mean overlap of all pairs of rounds, within each profiler and across;</li>
 * <li>the overlaps of the stacks cut to their last k frames: whether the profilers part at the
 *   leaf or in the callers they give it;</li>
 * <li>the leaves (last frame of each stack, self shares summed over all stacks) whose mean share
 *   differs between the profilers by more than three standard errors of the rounds' own spread:
 *   differences the rounds' noise does not explain. Half their summed difference is the part of
 *   a cross overlap's loss that is systematic at the leaf.</li>
 * </ol>
 *
 * Run (after `make tools`, on a bench's profiles of N rounds):
 * <pre>
 * java -cp build/candor.jar bench/overlap/OverlapBreakdown.java N \
 *     bench/out/peers/jetty-ap-cpu-1ms-r{1..N}.compare.collapsed bench/out/collapsed/jetty-1ms-r{1..N}.collapsed
 * </pre>
 */
public final class OverlapBreakdown {
    private OverlapBreakdown() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            System.err.println("usage: OverlapBreakdown N A1..AN B1..BN (N >= 2 rounds of each profiler)");
            System.exit(2);
        }
        int n = Integer.parseInt(args[0]);
        if (args.length != 1 + 2 * n) {
            System.err.println("OverlapBreakdown: " + n + " rounds need " + 2 * n + " files, not " + (args.length - 1));
            System.exit(2);
        }
        List<Cct> ta = new ArrayList<>();
        List<Cct> tb = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ta.add(Inputs.load(Path.of(args[1 + i]), Inputs.Options.DEFAULT).cct());
            tb.add(Inputs.load(Path.of(args[1 + n + i]), Inputs.Options.DEFAULT).cct());
        }
        System.out.println("overlap, adjacent rounds (i with i+1) and across (A round i with B round i):");
        for (int i = 0; i < n; i++) {
            String within = i + 1 < n ? String.format("A %.3f  B %.3f", Metrics.overlap(ta.get(i), ta.get(i + 1)),
                    Metrics.overlap(tb.get(i), tb.get(i + 1))) : "                ";
            System.out.printf("  round %d: %s  across %.3f%n", i + 1, within, Metrics.overlap(ta.get(i), tb.get(i)));
        }
        List<Map<List<String>, Double>> a = ta.stream().map(OverlapBreakdown::selfShares).toList();
        List<Map<List<String>, Double>> b = tb.stream().map(OverlapBreakdown::selfShares).toList();
        System.out.println();
        System.out.println("1 - overlap by stack kind (root ok or not, leaf kind), round 1:");
        printLoss("A with B", a.get(0), b.get(0));
        printLoss("A with A's round 2", a.get(0), a.get(1));
        System.out.println();
        printAllPairs(ta, tb);
        System.out.println();
        printBySuffix(a, b);
        System.out.println();
        printLeafDifferences(a, b);
    }

    /** Every round with every other: more pairs than adjacent rounds, so less noise in the means. */
    static void printAllPairs(List<Cct> a, List<Cct> b) {
        double[] within = {0, 0};
        double across = 0;
        int n = a.size();
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                across += Metrics.overlap(a.get(i), b.get(j)) / (n * n);
                if (j > i) {
                    within[0] += Metrics.overlap(a.get(i), a.get(j)) / (n * (n - 1) / 2.0);
                    within[1] += Metrics.overlap(b.get(i), b.get(j)) / (n * (n - 1) / 2.0);
                }
            }
        }
        System.out.printf("overlap, mean of all pairs: within A %.3f  within B %.3f  across %.3f%n", within[0], within[1],
                across);
    }

    /**
     * Where along the stacks the profilers part: the overlap of the stacks cut to their last k
     * frames (leaf first). A gap between within and across that is already there at k = 1 is in
     * what the leaves are; one that grows with k is in the callers the profilers give them.
     */
    static void printBySuffix(List<Map<List<String>, Double>> a, List<Map<List<String>, Double>> b) {
        System.out.println("overlap of the stacks' last k frames, median over rounds (within: adjacent rounds, "
                + "across: the same round):");
        System.out.println("      k  within A  within B    across  within A - across");
        int n = a.size();
        for (int k : new int[] {1, 2, 3, 5, 8, 15, Integer.MAX_VALUE}) {
            List<Cct> ca = a.stream().map(m -> lastFrames(m, k)).toList();
            List<Cct> cb = b.stream().map(m -> lastFrames(m, k)).toList();
            double[] wa = new double[n - 1];
            double[] wb = new double[n - 1];
            double[] x = new double[n];
            for (int i = 0; i < n; i++) {
                if (i + 1 < n) {
                    wa[i] = Metrics.overlap(ca.get(i), ca.get(i + 1));
                    wb[i] = Metrics.overlap(cb.get(i), cb.get(i + 1));
                }
                x[i] = Metrics.overlap(ca.get(i), cb.get(i));
            }
            double ma = median(wa);
            double mx = median(x);
            System.out.printf("  %5s  %8.3f  %8.3f  %8.3f  %+8.3f%n", k == Integer.MAX_VALUE ? "all" : k, ma,
                    median(wb), mx, ma - mx);
        }
    }

    /** The tree of the stacks cut to their last k frames, weighted by their self shares. */
    static Cct lastFrames(Map<List<String>, Double> edges, int k) {
        Cct.Builder tree = Cct.builder();
        edges.forEach((path, share) -> tree.add(path.subList(Math.max(0, path.size() - k), path.size()), share));
        return tree.build();
    }

    static double median(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /** Every edge's self share of the tree (the weight overlap compares). */
    static Map<List<String>, Double> selfShares(Cct c) {
        Map<List<String>, Double> out = new HashMap<>();
        double total = c.total();
        Deque<Cct.Node> todo = new ArrayDeque<>();
        todo.push(c.root());
        while (!todo.isEmpty()) {
            Cct.Node node = todo.pop();
            if (node.self() > 0) {
                out.put(node.path(), node.self() / total);
            }
            node.children().forEach(todo::push);
        }
        return out;
    }

    static void printLoss(String title, Map<List<String>, Double> x, Map<List<String>, Double> y) {
        Set<List<String>> keys = new HashSet<>(x.keySet());
        keys.addAll(y.keySet());
        Map<String, Double> loss = new TreeMap<>();
        for (List<String> k : keys) {
            loss.merge(rootKind(k.get(0)) + " " + leafKind(k.get(k.size() - 1)),
                    Math.abs(x.getOrDefault(k, 0.0) - y.getOrDefault(k, 0.0)) / 2, Double::sum);
        }
        System.out.printf("  %s: %.3f%n", title, loss.values().stream().mapToDouble(Double::doubleValue).sum());
        loss.entrySet().stream().sorted((p, q) -> Double.compare(q.getValue(), p.getValue())).limit(8)
                .forEach(e -> System.out.printf("    %-28s %.4f%n", e.getKey(), e.getValue()));
    }

    static String rootKind(String root) {
        if (root.equals("java.lang.Thread.run") || root.endsWith(".main")) {
            return "ok";
        }
        return root.startsWith("[") ? root.substring(0, root.indexOf(']') + 1) : "other root";
    }

    static String leafKind(String leaf) {
        if (leaf.endsWith("_[k]")) {
            return "kernel";
        }
        if (leaf.startsWith("[")) {
            return "pseudo";
        }
        if (leaf.contains("stub") || leaf.contains("arraycopy") || leaf.contains("adapters")) {
            return "stub";
        }
        return leaf.matches("[A-Za-z_$][\\w$]*(\\.[\\w$<>]+)+") ? "java" : "native";
    }

    static void printLeafDifferences(List<Map<List<String>, Double>> a, List<Map<List<String>, Double>> b) {
        List<Map<String, Double>> la = a.stream().map(OverlapBreakdown::byLeaf).toList();
        List<Map<String, Double>> lb = b.stream().map(OverlapBreakdown::byLeaf).toList();
        Set<String> leaves = new HashSet<>();
        la.forEach(m -> leaves.addAll(m.keySet()));
        lb.forEach(m -> leaves.addAll(m.keySet()));
        record Diff(String leaf, double meanA, double meanB, double t) {
        }
        List<Diff> significant = new ArrayList<>();
        for (String leaf : leaves) {
            double[] xa = la.stream().mapToDouble(m -> m.getOrDefault(leaf, 0.0)).toArray();
            double[] xb = lb.stream().mapToDouble(m -> m.getOrDefault(leaf, 0.0)).toArray();
            double ma = mean(xa);
            double mb = mean(xb);
            double se = Math.sqrt(variance(xa, ma) / xa.length + variance(xb, mb) / xb.length);
            double t = (mb - ma) / Math.max(se, 1e-6);  // a leaf one profiler never has: ~no spread
            if (Math.abs(t) > 3) {
                significant.add(new Diff(leaf, ma, mb, t));
            }
        }
        significant.sort((p, q) -> Double.compare(Math.abs(q.meanB - q.meanA), Math.abs(p.meanB - p.meanA)));
        double half = significant.stream().mapToDouble(d -> Math.abs(d.meanB - d.meanA)).sum() / 2;
        System.out.printf("leaves whose mean self share differs by more than 3 standard errors: %d, half their "
                + "summed difference %.4f%n", significant.size(), half);
        System.out.println("   mean A   mean B      B-A       t  leaf");
        for (Diff d : significant.subList(0, Math.min(15, significant.size()))) {
            System.out.printf("  %6.3f%%  %6.3f%%  %+6.3f  %6.1f  %s%n", 100 * d.meanA, 100 * d.meanB,
                    100 * (d.meanB - d.meanA), d.t, d.leaf);
        }
    }

    static Map<String, Double> byLeaf(Map<List<String>, Double> edges) {
        Map<String, Double> out = new HashMap<>();
        edges.forEach((path, share) -> out.merge(path.get(path.size() - 1), share, Double::sum));
        return out;
    }

    static double mean(double[] xs) {
        return Arrays.stream(xs).average().orElse(0);
    }

    static double variance(double[] xs, double mean) {
        return Arrays.stream(xs).map(x -> (x - mean) * (x - mean)).sum() / Math.max(1, xs.length - 1);
    }
}

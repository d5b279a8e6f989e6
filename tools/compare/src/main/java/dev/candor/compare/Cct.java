package dev.candor.compare;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A calling context tree as the thesis (seed 000, §2.3 and §5.3) uses it: one node per distinct
 * path of frame names from the root, each with the weight of the samples whose stack ends
 * exactly there (its <em>self</em> weight). Every node but the synthetic root is the target of
 * one edge, so "edge" and "node" name the same thing; an edge is identified by its path.
 *
 * <p>Weights are doubles so that merged (averaged) trees and truth trees in CPU nanoseconds fit
 * the same type. The <em>relative</em> weight of an edge, {@code weight(e, cct)} in the thesis,
 * is its self weight divided by {@link #total()}; relative weights sum to 1.
 *
 * <p>Build with {@link #add}, then read; not thread-safe. Stacks of zero weight add nothing (no
 * nodes), so every node of a tree has a positive total weight.
 */
public final class Cct {

    /** One calling context: a frame name below its parent's context. */
    public static final class Node {
        private final String name;
        private final Node parent;
        private final int depth;
        private final Map<String, Node> children = new LinkedHashMap<>(4);
        private double self;
        private double total;

        private Node(String name, Node parent) {
            this.name = name;
            this.parent = parent;
            this.depth = parent == null ? 0 : parent.depth + 1;
        }

        /** The frame name; {@code all} for the root. */
        public String name() {
            return name;
        }

        /** The caller's node; null for the root. */
        public Node parent() {
            return parent;
        }

        /** 0 for the root, 1 for the outermost frames. */
        public int depth() {
            return depth;
        }

        /** Weight of the stacks ending exactly here. */
        public double self() {
            return self;
        }

        /** Weight of the stacks through here (inclusive). */
        public double total() {
            return total;
        }

        /** The child with this frame name, or null. */
        public Node child(String childName) {
            return children.get(childName);
        }

        /** Children in insertion order. */
        public Iterable<Node> children() {
            return Collections.unmodifiableCollection(children.values());
        }

        public int childCount() {
            return children.size();
        }

        /** Children, largest total first, then by name. */
        public List<Node> childrenByTotal() {
            List<Node> l = new ArrayList<>(children.values());
            l.sort(Comparator.comparingDouble(Node::total).reversed().thenComparing(Node::name));
            return l;
        }

        /** Frame names from the outermost frame to this one (empty for the root). */
        public List<String> path() {
            String[] out = new String[depth];
            Node n = this;
            for (int i = depth - 1; i >= 0; i--) {
                out[i] = n.name;
                n = n.parent;
            }
            return List.of(out);
        }

        @Override
        public String toString() {
            return String.join(";", path()) + " self=" + self + " total=" + total;
        }
    }

    private final Node root = new Node("all", null);
    private int nodeCount = 1;
    private long stacks;

    /** An empty tree. */
    public Cct() {
    }

    /**
     * Adds the weight of one stack, frames outermost first.
     *
     * @throws IllegalArgumentException for an empty stack, a negative, infinite or NaN weight
     */
    public Cct add(List<String> frames, double weight) {
        Objects.requireNonNull(frames, "frames");
        if (frames.isEmpty()) {
            throw new IllegalArgumentException("a stack has at least one frame");
        }
        if (!(weight >= 0) || Double.isInfinite(weight)) {
            throw new IllegalArgumentException("weight must be finite and not negative: " + weight);
        }
        if (weight == 0) {
            return this;
        }
        stacks++;
        Node n = root;
        n.total += weight;
        for (String f : frames) {
            Node c = n.children.get(f);
            if (c == null) {
                c = new Node(Objects.requireNonNull(f, "frame"), n);
                n.children.put(f, c);
                nodeCount++;
            }
            c.total += weight;
            n = c;
        }
        n.self += weight;
        return this;
    }

    /** Adds every edge of another tree, its weights multiplied by {@code factor}. */
    public Cct addAll(Cct other, double factor) {
        for (Node n : other.nodes()) {
            if (n.self > 0) {
                add(n.path(), n.self * factor);
            }
        }
        return this;
    }

    /** The synthetic root, {@code all}. */
    public Node root() {
        return root;
    }

    /** Sum of all self weights (the root's total). */
    public double total() {
        return root.total;
    }

    /** Whether the tree has no weight at all. */
    public boolean isEmpty() {
        return root.total <= 0;
    }

    /** Nodes including the root. */
    public int nodeCount() {
        return nodeCount;
    }

    /** Edges: every node but the root. */
    public int edgeCount() {
        return nodeCount - 1;
    }

    /** Number of (non-zero) stacks added. */
    public long stacksAdded() {
        return stacks;
    }

    /** The node at this path (outermost frame first), or null; the empty path is the root. */
    public Node find(List<String> path) {
        Node n = root;
        for (String f : path) {
            n = n.children.get(f);
            if (n == null) {
                return null;
            }
        }
        return n;
    }

    /** Relative weight of an edge: its self weight over the total (0 for an empty tree). */
    public double weight(Node edge) {
        return root.total > 0 ? edge.self / root.total : 0;
    }

    /** Every node but the root, parents before children (pre-order, children in insertion order). */
    public List<Node> nodes() {
        List<Node> out = new ArrayList<>(nodeCount - 1);
        Deque<Node> todo = new ArrayDeque<>();
        pushChildren(todo, root);
        while (!todo.isEmpty()) {
            Node n = todo.pop();
            out.add(n);
            pushChildren(todo, n);
        }
        return out;
    }

    private static void pushChildren(Deque<Node> todo, Node n) {
        List<Node> kids = new ArrayList<>(n.children.values());
        for (int i = kids.size() - 1; i >= 0; i--) {
            todo.push(kids.get(i));
        }
    }

    /**
     * Self weight per frame name (summed over all contexts), and total weight per frame name
     * with recursion counted once (a stack counts once for a method however often it is on it).
     */
    public Map<String, double[]> methods() {
        Map<String, double[]> out = new HashMap<>();
        Map<String, Integer> onPath = new HashMap<>();
        // iterative DFS with enter/exit events, so deep recursion cannot overflow the Java stack
        Deque<Object[]> todo = new ArrayDeque<>();
        for (Node c : root.children.values()) {
            todo.push(new Object[] {c, Boolean.TRUE});
        }
        while (!todo.isEmpty()) {
            Object[] item = todo.pop();
            Node n = (Node) item[0];
            if (item[1] == Boolean.FALSE) {
                onPath.merge(n.name, -1, Integer::sum);
                continue;
            }
            double[] w = out.computeIfAbsent(n.name, k -> new double[2]);
            w[0] += n.self;
            if (onPath.getOrDefault(n.name, 0) == 0) {
                w[1] += n.total;
            }
            onPath.merge(n.name, 1, Integer::sum);
            todo.push(new Object[] {n, Boolean.FALSE});
            for (Node c : n.children.values()) {
                todo.push(new Object[] {c, Boolean.TRUE});
            }
        }
        return out;
    }

    /** The tree as folded stacks, one line per edge with self weight, weights formatted by {@code fmt}. */
    public String toCollapsed(java.util.function.DoubleFunction<String> fmt) {
        StringBuilder sb = new StringBuilder();
        for (Node n : nodes()) {
            if (n.self > 0) {
                sb.append(String.join(";", n.path())).append(' ').append(fmt.apply(n.self)).append('\n');
            }
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return toCollapsed(d -> d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d));
    }
}

package dev.candor.model;

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
import java.util.function.BiConsumer;
import java.util.function.DoubleFunction;

/**
 * The calling context tree of a profile, the one tree every report, comparison and merge works
 * on: one node per distinct path of frame names from the synthetic root {@code all}, each with the
 * weight of the stacks ending exactly there (its <em>self</em> weight) and of those through it
 * (its <em>total</em>). Every node but the root is the target of one edge, so "edge" and "node"
 * name the same thing; an edge is identified by its path. The <em>relative</em> weight of an
 * edge is its self weight over the tree's total; relative weights sum to 1.
 *
 * <p>Weights are doubles, so that sample counts, averaged (merged) trees and truth trees in CPU
 * nanoseconds fit one type; {@link Node#count()} gives a sample count back. Each node knows the
 * viewer's kind letter of its frame (r root, t thread, j Java, n native, k kernel, f pseudo).
 *
 * <p>Built with a {@link Builder}, then immutable. Stacks of zero weight add nothing, so every
 * node of a tree has a positive total weight.
 */
public final class Cct {

    /** One calling context: a frame name below its parent's context. */
    public static final class Node {
        private final String name;
        private final char kind;
        private final Node parent;
        private final int depth;
        private final Map<String, Node> children = new LinkedHashMap<>(4);
        private List<Node> byName;  // made on first use, after building
        private double self;
        private double total;

        private Node(String name, char kind, Node parent) {
            this.name = name;
            this.kind = kind;
            this.parent = parent;
            this.depth = parent == null ? 0 : parent.depth + 1;
        }

        /** The frame name; {@code all} for the root. */
        public String name() {
            return name;
        }

        /** The viewer's kind letter of the frame: r root, t thread, j Java, n native, k kernel, f pseudo. */
        public char kind() {
            return kind;
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

        /** The total as a sample count (trees of samples have whole weights). */
        public long count() {
            return Math.round(total);
        }

        /** The self weight as a sample count. */
        public long selfCount() {
            return Math.round(self);
        }

        /** The child with this frame name, or null. */
        public Node child(String childName) {
            return children.get(childName);
        }

        /** Children in the order they were first added. */
        public Iterable<Node> children() {
            return Collections.unmodifiableCollection(children.values());
        }

        public int childCount() {
            return children.size();
        }

        /** Children sorted by name, as flame graphs lay them out. */
        public List<Node> childrenByName() {
            List<Node> l = byName;
            if (l == null) {
                l = new ArrayList<>(children.values());
                l.sort(Comparator.comparing(Node::name));
                byName = l = Collections.unmodifiableList(l);
            }
            return l;
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

    /** How to build the tree of a profile. */
    public record Options(boolean threads, boolean lines, boolean reverse) {
        public static final Options DEFAULT = new Options(false, false, false);
    }

    /** Builds a tree; {@link #build()} hands it over, after which the builder must not be used. */
    public static final class Builder {
        private Cct tree = new Cct();

        /**
         * Adds the weight of one stack of frame names, outermost first; a node's kind comes from
         * its name ({@link Frame#parse}).
         *
         * @throws IllegalArgumentException for an empty stack, a negative, infinite or NaN weight
         */
        public Builder add(List<String> frames, double weight) {
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
            Node n = tree.root;
            n.total += weight;
            for (String f : frames) {
                n = tree.child(n, Objects.requireNonNull(f, "frame"), Builder::kindOf);
                n.total += weight;
            }
            n.self += weight;
            tree.stacks++;
            return this;
        }

        /** Adds every edge of another tree, its weights multiplied by {@code factor}. */
        public Builder addAll(Cct other, double factor) {
            for (Node n : other.nodes()) {
                if (n.self > 0) {
                    add(n.path(), n.self * factor);
                }
            }
            return this;
        }

        public Cct build() {
            Cct t = tree;
            tree = null;
            return t;
        }

        private static char kindOf(String name) {
            return CollapsedProfile.isThreadRoot(name) ? 't' : Frame.parse(name).viewerKind();
        }
    }

    private final Node root = new Node("all", 'r', null);
    private int nodeCount = 1;
    private long stacks;

    private Cct() {
    }

    public static Builder builder() {
        return new Builder();
    }

    /** An empty tree. */
    public static Cct empty() {
        return new Cct();
    }

    /**
     * The tree of a profile's samples. With {@code threads} every sample first goes through its
     * thread root {@code [name tid=N]}; {@code reverse} builds the callers view (leaf frames at the
     * top level, below the context roots such as label roots {@code [KEY=VALUE]}, which stay on top); frames of one method at different lines are one node unless {@code lines}.
     */
    public static Cct of(Profile profile, Options options) {
        return of(profile.samples(), options);
    }

    /** The tree of some samples (e.g. one thread's). */
    public static Cct of(List<Sample> samples, Options options) {
        Cct t = new Cct();
        for (Sample s : samples) {
            long w = s.weight();
            if (w == 0) {
                continue;
            }
            Node node = t.root;
            node.total += w;
            if (options.threads()) {
                String name = s.thread() != null ? s.thread().rootFrame() : Frame.UNKNOWN_THREAD_ROOT;
                node = t.child(node, name, x -> 't');
                node.total += w;
            }
            List<Frame> stack = s.stack();
            int n = stack.size();
            int roots = options.reverse() ? Frame.contextRoots(stack) : 0;
            for (int i = 0; i < n; i++) {
                Frame f = stack.get(Frame.shownIndex(i, n, roots, options.reverse()));
                node = t.child(node, f.name(options.lines()), x -> f.viewerKind());
                node.total += w;
            }
            node.self += w;
            t.stacks++;
        }
        return t;
    }

    private Node child(Node parent, String name, java.util.function.Function<String, Character> kind) {
        Node c = parent.children.get(name);
        if (c == null) {
            c = new Node(name, kind.apply(name), parent);
            parent.children.put(name, c);
            nodeCount++;
        }
        return c;
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
     * with recursion counted once (a stack counts once for a method however often it is on it):
     * {@code [self, total]}. One walk of the tree, iterative (deep recursion cannot overflow).
     */
    public Map<String, double[]> methods() {
        Map<String, double[]> out = new HashMap<>();
        Map<String, Integer> onPath = new HashMap<>();
        Deque<Object[]> todo = new ArrayDeque<>();  // [node, entering?]
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

    /**
     * The children of two nodes matched by name, in name order: pairs {@code [a, b]} where either
     * side may be null (a child the other node lacks) or, with {@code both}, only the names the two
     * share. Either node may be null. What every walk of two trees in step is made of.
     */
    public static List<Node[]> pairedChildren(Node a, Node b, boolean both) {
        List<Node[]> out = new ArrayList<>();
        if (a != null) {
            for (Node c : a.children.values()) {
                Node other = b == null ? null : b.child(c.name);
                if (other != null || !both) {
                    out.add(new Node[] {c, other});
                }
            }
        }
        if (b != null && !both) {
            for (Node c : b.children.values()) {
                if (a == null || a.child(c.name) == null) {
                    out.add(new Node[] {null, c});
                }
            }
        }
        out.sort(Comparator.comparing(p -> (p[0] != null ? p[0] : p[1]).name));
        return out;
    }

    /**
     * Visits every pair of nodes at the same path in two trees (roots excluded), parents before
     * children: with {@code both} only paths in both trees, else every path in either (the missing
     * side null).
     */
    public static void walkInStep(Cct a, Cct b, boolean both, BiConsumer<Node, Node> visit) {
        Deque<Node[]> todo = new ArrayDeque<>();
        todo.push(new Node[] {a.root, b.root});
        while (!todo.isEmpty()) {
            Node[] p = todo.pop();
            List<Node[]> kids = pairedChildren(p[0], p[1], both);
            for (int i = kids.size() - 1; i >= 0; i--) {
                todo.push(kids.get(i));
            }
            if (p[0] != a.root) {
                visit.accept(p[0], p[1]);
            }
        }
    }

    /** The tree as folded stacks, one line per edge with self weight, weights formatted by {@code fmt}. */
    public String toCollapsed(DoubleFunction<String> fmt) {
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

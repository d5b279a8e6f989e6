package dev.candor.model;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The calling context tree of a profile: one node per distinct path of frame names from the
 * root, with total (inclusive) and self weights. The root is the synthetic {@code all}. With
 * {@code threads} every sample first goes through its thread root {@code [name tid=N]} (one tree
 * per thread); {@code reverse} builds the callers view (leaf frames at the top level). Frames of
 * one method at different lines are one node unless {@code lines} is set.
 *
 * <p>Built once and then immutable; children are sorted by name, like flame graphs.
 */
public final class CallTree {

    /** How to build the tree. */
    public record Options(boolean threads, boolean lines, boolean reverse) {
        public static final Options DEFAULT = new Options(false, false, false);
    }

    /** A node: a frame name in one calling context. */
    public static final class Node {
        private final String name;
        private final char kind;
        private final int depth;
        private long total;
        private Map<String, Node> building = new HashMap<>();
        private List<Node> children = List.of();

        Node(String name, char kind, int depth) {
            this.name = name;
            this.kind = kind;
            this.depth = depth;
        }

        /** The frame name, {@code all} for the root. */
        public String name() {
            return name;
        }

        /** The viewer's kind letter: r root, t thread, j Java, n native, f pseudo-frame. */
        public char kind() {
            return kind;
        }

        /** 0 for the root. */
        public int depth() {
            return depth;
        }

        /** Samples with this path on their stack. */
        public long total() {
            return total;
        }

        /** Samples whose stack ends here. */
        public long self() {
            long s = total;
            for (Node c : children) {
                s -= c.total;
            }
            return s;
        }

        /** Children sorted by name. */
        public List<Node> children() {
            return children;
        }

        /** The child with this name, or null. */
        public Node child(String childName) {
            for (Node c : children) {
                if (c.name.equals(childName)) {
                    return c;
                }
            }
            return null;
        }

        /** Children, largest total first (then by name). */
        public List<Node> childrenByTotal() {
            List<Node> l = new ArrayList<>(children);
            l.sort(Comparator.comparingLong(Node::total).reversed().thenComparing(Node::name));
            return l;
        }

        @Override
        public String toString() {
            return name + " total=" + total + " self=" + self();
        }
    }

    private final Node root;
    private final Options options;
    private final int nodeCount;

    private CallTree(Node root, Options options, int nodeCount) {
        this.root = root;
        this.options = options;
        this.nodeCount = nodeCount;
    }

    /** The tree of a profile. */
    public static CallTree of(Profile profile, Options options) {
        Node root = new Node("all", 'r', 0);
        for (Sample s : profile.samples()) {
            long w = s.weight();
            root.total += w;
            Node node = root;
            if (options.threads()) {
                String name = s.thread() != null ? s.thread().rootFrame() : "[unknown thread tid=0]";
                node = childOf(node, name, 't');
                node.total += w;
            }
            List<Frame> stack = s.stack();
            int n = stack.size();
            for (int i = 0; i < n; i++) {
                Frame f = stack.get(options.reverse() ? n - 1 - i : i);
                Node child = node.building.get(f.name(options.lines()));
                if (child == null) {
                    child = new Node(f.name(options.lines()), f.viewerKind(), node.depth + 1);
                    node.building.put(child.name, child);
                }
                child.total += w;
                node = child;
            }
        }
        return new CallTree(root, options, freeze(root));
    }

    private static Node childOf(Node parent, String name, char kind) {
        return parent.building.computeIfAbsent(name, k -> new Node(k, kind, parent.depth + 1));
    }

    // Turns the build maps into sorted immutable lists, without recursion (stacks can be deep).
    private static int freeze(Node root) {
        Deque<Node> todo = new ArrayDeque<>();
        todo.push(root);
        int count = 0;
        while (!todo.isEmpty()) {
            Node n = todo.pop();
            count++;
            if (!n.building.isEmpty()) {
                List<Node> kids = new ArrayList<>(n.building.values());
                kids.sort(Comparator.comparing(Node::name));
                n.children = Collections.unmodifiableList(kids);
                kids.forEach(todo::push);
            }
            n.building = null;
        }
        return count;
    }

    public Node root() {
        return root;
    }

    public Options options() {
        return options;
    }

    /** All samples (the root's total). */
    public long total() {
        return root.total;
    }

    /** Number of nodes, root included. */
    public int nodeCount() {
        return nodeCount;
    }
}

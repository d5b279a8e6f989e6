package dev.candor.model;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;

/**
 * Writes the call tree as text: one line per node with total and self percentages and counts
 * (bytes or time waited, in their unit, for allocation and lock profiles),
 * children indented below their parent, largest first. With {@code threads} the thread roots
 * are the top level (one tree per thread); with {@code reverse} the top level is the leaf frames
 * and their children are the callers. Frames below {@code minPercent} are left out and counted.
 */
public final class TreeWriter {
    private TreeWriter() {
    }

    public static void write(Profile profile, ReportOptions options, Writer out) throws IOException {
        Cct tree = Cct.of(profile, options.treeOptions());
        out.write(ReportText.title(profile, options) + "\n");
        for (String l : ReportText.header(profile, options)) {
            out.write(l + "\n");
        }
        out.write("\n");
        long total = tree.root().count();
        String unit = profile.unit();
        out.write(String.format(Locale.ROOT, "%8s %8s %10s %10s  %s%n", "total%", "self%", "total", "self",
                options.reverse() ? "frame (callers below)" : "frame (callees below)"));
        long hiddenNodes = 0;
        long hiddenSamples = 0;
        Deque<Cct.Node> todo = new ArrayDeque<>();
        todo.push(tree.root());
        StringBuilder line = new StringBuilder();
        while (!todo.isEmpty()) {
            Cct.Node n = todo.pop();
            line.setLength(0);
            line.append(String.format(Locale.ROOT, "%8s %8s %10s %10s  ", pct(n.count(), total),
                    pct(n.selfCount(), total), ReportText.cell(n.count(), unit), ReportText.cell(n.selfCount(), unit)));
            for (int i = 0; i < n.depth(); i++) {
                line.append("  ");
            }
            line.append(n.name()).append('\n');
            out.write(line.toString());
            List<Cct.Node> kids = n.childrenByTotal();
            for (int i = kids.size() - 1; i >= 0; i--) {
                Cct.Node k = kids.get(i);
                if (total > 0 && 100.0 * k.count() / total < options.minPercent()) {
                    hiddenNodes += 1 + countBelow(k);
                    hiddenSamples += k.count();  // hidden subtrees are disjoint sets of samples
                    continue;
                }
                todo.push(k);
            }
        }
        if (hiddenNodes > 0) {
            out.write(String.format(Locale.ROOT, "%n(%d frames below %s of the %s are not shown: subtrees "
                    + "holding %s in all; use --min-percent 0 to see them)%n", hiddenNodes,
                    trim(options.minPercent()) + "%", unit.equals("samples") ? "samples" : "total",
                    ReportText.amount(hiddenSamples, unit)));
        }
    }

    private static long countBelow(Cct.Node n) {
        long c = 0;
        Deque<Cct.Node> todo = new ArrayDeque<>();
        n.children().forEach(todo::push);
        while (!todo.isEmpty()) {
            Cct.Node x = todo.pop();
            c++;
            x.children().forEach(todo::push);
        }
        return c;
    }

    private static String pct(long part, long whole) {
        return String.format(Locale.ROOT, "%.2f%%", whole == 0 ? 0.0 : 100.0 * part / whole);
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
    }
}

package dev.candor.compare;

import dev.candor.model.Cct;
import dev.candor.model.Json;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A differential flame graph of two trees in the shared viewer ({@code viewer/flamegraph.html}):
 * the union of both trees, each frame as wide as the mean of its total shares in A and B, so
 * that frames which vanished from B and frames new in B both stay visible. The viewer's optional
 * diff mode colours a frame by the change of its total share: red grew, blue shrank, the
 * stronger the larger the change; frames only in A or only in B are named so on hover.
 *
 * <p>Data: the viewer's contract ({@code title, subtitle, unit, root} with nodes {@code n, v, k,
 * c}) plus {@code "diff": {"a", "b", "totalA", "totalB"}} and, per node, {@code "w": [a, b]} (total
 * share in A and in B, 0–1) and {@code "s": [a, b]} (self share). {@code v} is the mean total share in
 * parts per million.
 */
public final class DiffFlameGraph {
    private DiffFlameGraph() {
    }

    /** The page for two loaded inputs. */
    public static String html(Inputs.Loaded a, Inputs.Loaded b, String title, String subtitle) {
        java.io.StringWriter out = new java.io.StringWriter();
        try {
            Json.writePage(json(a, b, title, subtitle), out);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);  // a StringWriter does not throw
        }
        return out.toString();
    }

    /** The data object alone. */
    public static String json(Inputs.Loaded a, Inputs.Loaded b, String title, String subtitle) {
        StringBuilder sb = new StringBuilder();
        sb.append("{\"title\":");
        Json.string(sb, title);
        sb.append(",\"subtitle\":");
        Json.string(sb, subtitle);
        sb.append(",\"unit\":\"ppm\",\"diff\":{\"a\":");
        Json.string(sb, a.label());
        sb.append(",\"b\":");
        Json.string(sb, b.label());
        sb.append(",\"totalA\":").append(num(a.cct().total())).append(",\"totalB\":").append(num(b.cct().total()));
        sb.append("},\"root\":");
        node(sb, a.cct().root(), b.cct().root(), a.cct().total(), b.cct().total());
        sb.append('}');
        return sb.toString();
    }

    // Iterative, so that thousands of frames deep stacks cannot overflow the Java stack.
    private static void node(StringBuilder sb, Cct.Node rootA, Cct.Node rootB, double ta, double tb) {
        // iterative pre-order: items are either a node pair to open or a closing marker
        List<Object> todo = new ArrayList<>();
        todo.add(new Cct.Node[] {rootA, rootB});
        while (!todo.isEmpty()) {
            Object item = todo.remove(todo.size() - 1);
            if (item instanceof String s) {
                sb.append(s);
                continue;
            }
            Cct.Node[] p = (Cct.Node[]) item;
            Cct.Node na = p[0];
            Cct.Node nb = p[1];
            Cct.Node any = na != null ? na : nb;
            double wa = na == null ? 0 : na.total() / ta;
            double wb = nb == null ? 0 : nb.total() / tb;
            double sa = na == null ? 0 : na.self() / ta;
            double sb2 = nb == null ? 0 : nb.self() / tb;
            sb.append("{\"n\":");
            Json.string(sb, any.depth() == 0 ? "all" : any.name());
            sb.append(",\"v\":").append(num(1e6 * (wa + wb) / 2));
            sb.append(",\"k\":\"").append(any.kind()).append('"');
            sb.append(",\"w\":[").append(share(wa)).append(',').append(share(wb)).append(']');
            sb.append(",\"s\":[").append(share(sa)).append(',').append(share(sb2)).append(']');
            List<Cct.Node[]> kids = Cct.pairedChildren(na, nb, false);
            if (kids.isEmpty()) {
                sb.append('}');
                continue;
            }
            sb.append(",\"c\":[");
            todo.add("]}");
            for (int i = kids.size() - 1; i >= 0; i--) {
                todo.add(kids.get(i));
                if (i > 0) {
                    todo.add(",");
                }
            }
        }
    }



    private static String share(double d) {
        String s = String.format(Locale.ROOT, "%.6f", d);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    private static String num(double d) {
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return String.valueOf((long) d);
        }
        return share(Math.round(d * 1000) / 1000.0);
    }

}

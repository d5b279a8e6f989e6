package dev.candor.model;

import java.io.IOException;
import java.io.Writer;
import java.util.List;

/**
 * The flame graph page (the viewer template {@code viewer/flamegraph.html}, packaged as a
 * resource at build time, with its one data marker replaced) and the same data as JSON.
 *
 * <p>Data: {@code {"title", "subtitle", "unit", "root": {"n", "v", "k", "c"}}} (see
 * viewer/README.md), and on the page a {@code timeline} of the samples when they have times
 * ({@link TimelineJson}); the JSON output adds {@code source}, {@code events}, {@code total},
 * {@code unfilteredTotal}, {@code start}, {@code end}, {@code filters}, {@code damage}. Every
 * {@code <} is written as {@code \u003c} so the JSON is safe inside a script element.
 */
public final class FlameGraphWriter {
    /** The marker the producer replaces, exactly once. */
    public static final String MARKER = Json.MARKER;

    private FlameGraphWriter() {
    }

    /** The viewer template as packaged. */
    public static String template() {
        return Json.template();
    }

    /** The page: the template with the marker replaced by the data. */
    public static void writeHtml(Profile profile, ReportOptions options, Writer out) throws IOException {
        StringBuilder data = new StringBuilder();
        appendData(data, profile, options, false);
        Json.writePage(data, out);
    }

    /** The data object alone, with the extra fields, as one JSON document. */
    public static void writeJson(Profile profile, ReportOptions options, Writer out) throws IOException {
        StringBuilder data = new StringBuilder();
        appendData(data, profile, options, true);
        data.append('\n');
        out.write(data.toString());
    }

    static void appendData(StringBuilder sb, Profile p, ReportOptions o, boolean extras) {
        Cct tree = Cct.of(p, o.treeOptions());
        sb.append("{\"title\":");
        Json.string(sb, ReportText.title(p, o));
        sb.append(",\"subtitle\":");
        Json.string(sb, ReportText.subtitle(p));
        sb.append(",\"unit\":");
        Json.string(sb, p.unit());
        if (extras) {
            sb.append(",\"source\":");
            Json.string(sb, p.source());
            sb.append(",\"events\":");
            Json.strings(sb, p.eventTypes());
            sb.append(",\"total\":").append(p.total());
            sb.append(",\"unfilteredTotal\":").append(p.unfilteredTotal());
            sb.append(",\"start\":");
            if (p.start().isPresent()) {
                Json.string(sb, p.start().get().toString());
            } else {
                sb.append("null");
            }
            sb.append(",\"end\":");
            if (p.end().isPresent()) {
                Json.string(sb, p.end().get().toString());
            } else {
                sb.append("null");
            }
            sb.append(",\"filters\":");
            Json.strings(sb, p.filters());
            sb.append(",\"view\":{\"threads\":").append(o.threads()).append(",\"reverse\":").append(o.reverse())
                    .append(",\"lines\":").append(o.lines()).append('}');
            sb.append(",\"damage\":");
            if (p.damage().isPresent()) {
                sb.append("{\"offset\":").append(p.damage().get().offset()).append(",\"message\":");
                Json.string(sb, p.damage().get().message());
                sb.append('}');
            } else {
                sb.append("null");
            }
        }
        if (!extras) {  // the page's: the JSON output stays the tree
            TimelineJson.append(sb, p.samples(), o.treeOptions());
        }
        sb.append(",\"root\":");
        node(sb, tree.root());
        sb.append('}');
    }

    // Depth is bounded by the stack depth of the profile (JFR: at most 2048 frames).
    private static void node(StringBuilder sb, Cct.Node n) {
        sb.append("{\"n\":");
        Json.string(sb, n.name());
        sb.append(",\"v\":").append(n.count()).append(",\"k\":\"").append(n.kind()).append('"');
        List<Cct.Node> kids = n.childrenByName();
        if (!kids.isEmpty()) {
            sb.append(",\"c\":[");
            for (int i = 0; i < kids.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                node(sb, kids.get(i));
            }
            sb.append(']');
        }
        sb.append('}');
    }
}

package dev.candor.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The flame graph page (the viewer template {@code viewer/flamegraph.html}, packaged as a
 * resource at build time, with its one data marker replaced) and the same data as JSON.
 *
 * <p>Data: {@code {"title", "subtitle", "unit", "root": {"n", "v", "k", "c"}}} (see
 * viewer/README.md); the JSON output adds {@code source}, {@code events}, {@code total},
 * {@code unfilteredTotal}, {@code start}, {@code end}, {@code filters}, {@code damage}. Every
 * {@code <} is written as {@code \u003c} so the JSON is safe inside a script element.
 */
public final class FlameGraphWriter {
    /** The marker the producer replaces, exactly once. */
    public static final String MARKER = "/*CANDOR:DATA*/null";
    private static final String TEMPLATE = "flamegraph.html";

    private FlameGraphWriter() {
    }

    /** The viewer template as packaged. */
    public static String template() {
        try (InputStream in = FlameGraphWriter.class.getResourceAsStream(TEMPLATE)) {
            if (in == null) {
                throw new IllegalStateException("the flame graph template " + TEMPLATE + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The page: the template with the marker replaced by the data (plain string replacement). */
    public static void writeHtml(Profile profile, ReportOptions options, Writer out) throws IOException {
        String tpl = template();
        int at = tpl.indexOf(MARKER);
        if (at < 0 || tpl.indexOf(MARKER, at + 1) >= 0) {
            throw new IllegalStateException("the flame graph template must contain the data marker exactly once");
        }
        out.write(tpl, 0, at);
        StringBuilder data = new StringBuilder();
        appendData(data, profile, options, false);
        out.write(data.toString());
        out.write(tpl, at + MARKER.length(), tpl.length() - at - MARKER.length());
    }

    /** The data object alone, with the extra fields, as one JSON document. */
    public static void writeJson(Profile profile, ReportOptions options, Writer out) throws IOException {
        StringBuilder data = new StringBuilder();
        appendData(data, profile, options, true);
        data.append('\n');
        out.write(data.toString());
    }

    static void appendData(StringBuilder sb, Profile p, ReportOptions o, boolean extras) {
        CallTree tree = CallTree.of(p, o.treeOptions());
        sb.append("{\"title\":");
        string(sb, ReportText.title(p, o));
        sb.append(",\"subtitle\":");
        string(sb, ReportText.subtitle(p));
        sb.append(",\"unit\":\"samples\"");
        if (extras) {
            sb.append(",\"source\":");
            string(sb, p.source());
            sb.append(",\"events\":");
            strings(sb, p.eventTypes());
            sb.append(",\"total\":").append(p.total());
            sb.append(",\"unfilteredTotal\":").append(p.unfilteredTotal());
            sb.append(",\"start\":");
            if (p.start().isPresent()) {
                string(sb, p.start().get().toString());
            } else {
                sb.append("null");
            }
            sb.append(",\"end\":");
            if (p.end().isPresent()) {
                string(sb, p.end().get().toString());
            } else {
                sb.append("null");
            }
            sb.append(",\"filters\":");
            strings(sb, p.filters());
            sb.append(",\"view\":{\"threads\":").append(o.threads()).append(",\"reverse\":").append(o.reverse())
                    .append(",\"lines\":").append(o.lines()).append('}');
            sb.append(",\"damage\":");
            if (p.damage().isPresent()) {
                sb.append("{\"offset\":").append(p.damage().get().offset()).append(",\"message\":");
                string(sb, p.damage().get().message());
                sb.append('}');
            } else {
                sb.append("null");
            }
        }
        sb.append(",\"root\":");
        node(sb, tree.root());
        sb.append('}');
    }

    // Depth is bounded by the stack depth of the profile (JFR: at most 2048 frames).
    private static void node(StringBuilder sb, CallTree.Node n) {
        sb.append("{\"n\":");
        string(sb, n.name());
        sb.append(",\"v\":").append(n.total()).append(",\"k\":\"").append(n.kind()).append('"');
        List<CallTree.Node> kids = n.children();
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

    private static void strings(StringBuilder sb, List<String> list) {
        sb.append('[');
        for (int i = 0; i < list.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            string(sb, list.get(i));
        }
        sb.append(']');
    }

    /** A JSON string literal, safe inside an HTML script element. */
    static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                case '<':
                    sb.append("\\u003c");
                    break;
                case '\u2028':
                    sb.append("\\u2028");
                    break;
                case '\u2029':
                    sb.append("\\u2029");
                    break;
                default:
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }
}

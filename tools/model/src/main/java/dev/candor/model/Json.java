package dev.candor.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The JSON the flame graph pages are made of, and the splice of that data into the viewer
 * template ({@code viewer/flamegraph.html}, packaged as a resource): one place for both, used by
 * report's flame graph and compare's differential one.
 */
public final class Json {
    /** The marker in the template that the data replaces, exactly once. */
    public static final String MARKER = "/*CANDOR:DATA*/null";
    private static final String TEMPLATE = "flamegraph.html";

    private Json() {
    }

    /** The viewer template as packaged. */
    public static String template() {
        try (InputStream in = Json.class.getResourceAsStream(TEMPLATE)) {
            if (in == null) {
                throw new IllegalStateException("the flame graph template " + TEMPLATE + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes the page: the template with its marker replaced by {@code data} (plain string replacement). */
    public static void writePage(CharSequence data, Writer out) throws IOException {
        String tpl = template();
        int at = tpl.indexOf(MARKER);
        if (at < 0 || tpl.indexOf(MARKER, at + 1) >= 0) {
            throw new IllegalStateException("the flame graph template must contain the data marker exactly once");
        }
        out.write(tpl, 0, at);
        out.write(data.toString());
        out.write(tpl, at + MARKER.length(), tpl.length() - at - MARKER.length());
    }

    /** A JSON array of strings. */
    public static void strings(StringBuilder sb, List<String> list) {
        sb.append('[');
        for (int i = 0; i < list.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            string(sb, list.get(i));
        }
        sb.append(']');
    }

    /** A JSON string literal, safe inside an HTML script element ({@code <} as {@code \u003c}). */
    public static void string(StringBuilder sb, String s) {
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

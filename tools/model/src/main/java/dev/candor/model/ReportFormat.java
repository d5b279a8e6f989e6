package dev.candor.model;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** The output formats of {@code candor report}, with the file extensions that select them. */
public enum ReportFormat {
    HTML("html", ".html", ".htm"),
    COLLAPSED("collapsed", ".collapsed", ".folded"),
    TREE("tree", ".tree"),
    FLAT("flat", ".txt", ".flat"),
    PPROF("pprof", ".pb.gz", ".pprof", ".pb"),
    JSON("json", ".json"),
    /** OpenTelemetry's profiles signal: {@code .pb} alone stays pprof's, as it was before. */
    OTLP("otlp", ".otlp", ".otlp.pb");

    private final String id;
    private final List<String> extensions;

    ReportFormat(String id, String... extensions) {
        this.id = id;
        this.extensions = List.of(extensions);
    }

    /** The name {@code --format} takes. */
    public String id() {
        return id;
    }

    public List<String> extensions() {
        return extensions;
    }

    /** The format of a name given to {@code --format}, case-insensitive. */
    public static Optional<ReportFormat> byId(String name) {
        return Arrays.stream(values()).filter(f -> f.id.equalsIgnoreCase(name.strip())).findFirst();
    }

    /** The format an output file name implies, by its longest matching extension ({@code .otlp.pb} before {@code .pb}). */
    public static Optional<ReportFormat> byFileName(String fileName) {
        String lower = fileName.toLowerCase(Locale.ROOT);
        ReportFormat best = null;
        int longest = 0;
        for (ReportFormat f : values()) {
            for (String ext : f.extensions) {
                if (lower.endsWith(ext) && ext.length() > longest) {
                    best = f;
                    longest = ext.length();
                }
            }
        }
        return Optional.ofNullable(best);
    }

    /** Whether the output is binary (not for a terminal). */
    public boolean isBinary() {
        return this == PPROF || this == OTLP;
    }

    /** "html, collapsed, tree, flat, pprof, json, otlp". */
    public static String ids() {
        return Arrays.stream(values()).map(ReportFormat::id).collect(Collectors.joining(", "));
    }

    /** "html (.html .htm), ...". */
    public static String idsWithExtensions() {
        return Arrays.stream(values()).map(f -> f.id + " (" + String.join(" ", f.extensions) + ")")
                .collect(Collectors.joining(", "));
    }

    /** Writes the profile in this format. The stream is flushed, not closed. */
    public void write(Profile profile, ReportOptions options, OutputStream out) throws IOException {
        if (isBinary()) {
            if (this == PPROF) {
                PprofWriter.write(profile, options, out);
            } else {
                OtlpWriter.write(profile, options, out);
            }
            out.flush();
            return;
        }
        Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
        switch (this) {
            case HTML:
                FlameGraphWriter.writeHtml(profile, options, w);
                break;
            case JSON:
                FlameGraphWriter.writeJson(profile, options, w);
                break;
            case COLLAPSED:
                CollapsedWriter.write(profile, options, w);
                break;
            case TREE:
                TreeWriter.write(profile, options, w);
                break;
            case FLAT:
                FlatWriter.write(profile, options, w);
                break;
            default:
                throw new IllegalStateException(this.toString());
        }
        w.flush();
    }
}

package dev.candor.model;

import java.io.IOException;

/**
 * Thrown when a candor output file (collapsed stacks, stats JSON) cannot be read because its
 * content is malformed. The message names the source and the line (and, for JSON, the column).
 */
public final class ProfileFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String source;
    private final int line;

    /**
     * @param source the file or other origin of the text, used in the message
     * @param line   1-based line number, or 0 when the problem is not tied to one line
     * @param detail what is wrong
     */
    public ProfileFormatException(String source, int line, String detail) {
        this(source, line, detail, null);
    }

    public ProfileFormatException(String source, int line, String detail, Throwable cause) {
        super(line > 0 ? source + ":" + line + ": " + detail : source + ": " + detail, cause);
        this.source = source;
        this.line = line;
    }

    /** The file or other origin of the malformed text. */
    public String source() {
        return source;
    }

    /** The 1-based line number of the problem, or 0 when it is not tied to one line. */
    public int line() {
        return line;
    }
}

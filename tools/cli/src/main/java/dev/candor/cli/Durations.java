package dev.candor.cli;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration grammar of the command line: a number, optionally with a fraction, and a unit
 * ({@code ns}, {@code us}, {@code ms}, {@code s}, {@code m} or {@code min}, {@code h}; seconds
 * when none), case-insensitive, e.g. {@code 30}, {@code 1.5s}, {@code 250ms}, {@code 2min}. Used by
 * {@code attach --duration} and by {@code report --from/--to} (seconds from the recording's start).
 */
final class Durations {
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ns|us|ms|s|min|m|h)?");

    private Durations() {
    }

    /** The duration in nanoseconds, or empty when the text is not a duration. */
    static OptionalLong nanos(String text) {
        Matcher m = DURATION.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            return OptionalLong.empty();
        }
        String unit = m.group(2) == null ? "s" : m.group(2);
        long perUnit = switch (unit) {
            case "ns" -> 1L;
            case "us" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "m", "min" -> 60_000_000_000L;
            case "h" -> 3_600_000_000_000L;
            default -> 1_000_000_000L;
        };
        return OptionalLong.of(new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(perUnit)).longValue());
    }
}

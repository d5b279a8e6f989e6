package dev.candor.cli;

import picocli.CommandLine;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A point in time given to {@code --from}/{@code --to}: seconds from the start of the recording
 * ({@code 12}, {@code 1.5s}, {@code 250ms}, {@code 2min}), or an ISO date-time with or without
 * offset, or a time of day (local time zone; the recording's start date).
 */
final class TimeSpec {
    private static final Pattern RELATIVE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ns|us|ms|s|min|m|h)?");

    private TimeSpec() {
    }

    static Instant parse(String text, Instant start, String option, CommandLine cl) {
        return parse(text, start, ZoneId.systemDefault(), option, cl);
    }

    static Instant parse(String text, Instant start, ZoneId zone, String option, CommandLine cl) {
        String t = text.strip();
        Matcher m = RELATIVE.matcher(t.toLowerCase(Locale.ROOT));
        if (m.matches()) {
            BigDecimal value = new BigDecimal(m.group(1));
            String unit = m.group(2) == null ? "s" : m.group(2);
            long nanosPerUnit;
            switch (unit) {
                case "ns":
                    nanosPerUnit = 1L;
                    break;
                case "us":
                    nanosPerUnit = 1_000L;
                    break;
                case "ms":
                    nanosPerUnit = 1_000_000L;
                    break;
                case "min":
                case "m":
                    nanosPerUnit = 60_000_000_000L;
                    break;
                case "h":
                    nanosPerUnit = 3_600_000_000_000L;
                    break;
                default:
                    nanosPerUnit = 1_000_000_000L;
            }
            long nanos = value.multiply(BigDecimal.valueOf(nanosPerUnit)).longValue();
            return start.plusNanos(nanos);
        }
        try {
            return Instant.parse(t);
        } catch (DateTimeParseException ignored) {
            // next form
        }
        try {
            return OffsetDateTime.parse(t).toInstant();
        } catch (DateTimeParseException ignored) {
            // next form
        }
        try {
            return LocalDateTime.parse(t).atZone(zone).toInstant();
        } catch (DateTimeParseException ignored) {
            // next form
        }
        try {
            LocalTime time = LocalTime.parse(t);
            ZonedDateTime day = start.atZone(zone);
            return day.toLocalDate().atTime(time).atZone(zone).toInstant();
        } catch (DateTimeParseException ignored) {
            // not a time
        }
        throw new CommandLine.ParameterException(cl, option + " '" + text + "' is not a time: give seconds from the"
                + " start of the recording (12, 1.5s, 250ms) or a date-time such as 2025-01-31T10:15:30Z");
    }
}

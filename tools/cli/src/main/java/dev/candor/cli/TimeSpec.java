package dev.candor.cli;

import picocli.CommandLine;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;

/**
 * A point in time given to {@code --from}/{@code --to}: a duration from the start of the recording
 * ({@link Durations}: {@code 12}, {@code 1.5s}, {@code 250ms}, {@code 2min}), or an ISO date-time with or without
 * offset, or a time of day (local time zone; the recording's start date).
 */
final class TimeSpec {
    private TimeSpec() {
    }

    static Instant parse(String text, Instant start, String option, CommandLine cl) {
        return parse(text, start, ZoneId.systemDefault(), option, cl);
    }

    static Instant parse(String text, Instant start, ZoneId zone, String option, CommandLine cl) {
        String t = text.strip();
        java.util.OptionalLong relative = Durations.nanos(t);
        if (relative.isPresent()) {
            return start.plusNanos(relative.getAsLong());
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

package dev.candor.model;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One sample (or several identical ones, see {@code weight}): when, on which thread, from which
 * event type, and the stack, <em>root first</em> (the reverse of JFR's order). A tick that has
 * no real stack has a single pseudo-frame such as {@code [gc_active]}.
 *
 * @param timeNanos nanoseconds since the epoch, or {@link #NO_TIME}
 * @param thread    the sampled thread, or null when unknown
 * @param eventType the event type it came from, e.g. {@code jdk.ExecutionSample}
 * @param stack     frames, root first; never empty
 * @param weight    how many samples this stands for (at least 1 for real events)
 */
public record Sample(long timeNanos, SampledThread thread, String eventType, List<Frame> stack, long weight) {
    public static final long NO_TIME = Long.MIN_VALUE;

    public Sample {
        Objects.requireNonNull(eventType, "eventType");
        stack = List.copyOf(stack);
        if (stack.isEmpty()) {
            throw new IllegalArgumentException("a sample has at least one frame");
        }
        if (weight < 0) {
            throw new IllegalArgumentException("negative weight " + weight);
        }
    }

    public boolean hasTime() {
        return timeNanos != NO_TIME;
    }

    public Optional<Instant> time() {
        return hasTime() ? Optional.of(Instant.ofEpochSecond(0, timeNanos)) : Optional.empty();
    }

    /** The innermost frame (where the CPU was). */
    public Frame leaf() {
        return stack.get(stack.size() - 1);
    }

    /** Whether this is a failure or loss: its stack is one pseudo-frame. */
    public boolean isFailure() {
        return stack.size() == 1 && stack.get(0).isPseudo();
    }

    /** Nanoseconds since the epoch for an instant. */
    public static long nanos(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
    }
}

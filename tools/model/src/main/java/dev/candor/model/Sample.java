package dev.candor.model;

import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

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
 * @param labels    the thread's labels when the sample was taken (the agent's {@code Candor.label(key,
 *                  value)} scopes), sorted by key, immutable; empty when none
 */
public record Sample(long timeNanos, SampledThread thread, String eventType, List<Frame> stack, long weight,
                     SortedMap<String, String> labels) {
    public static final long NO_TIME = Long.MIN_VALUE;
    /** The labels of a sample without any. */
    public static final SortedMap<String, String> NO_LABELS = Collections.emptySortedMap();

    /** A sample without labels. */
    public Sample(long timeNanos, SampledThread thread, String eventType, List<Frame> stack, long weight) {
        this(timeNanos, thread, eventType, stack, weight, NO_LABELS);
    }

    public Sample {
        Objects.requireNonNull(eventType, "eventType");
        labels = labels(labels);
        stack = List.copyOf(stack);
        if (stack.isEmpty()) {
            throw new IllegalArgumentException("a sample has at least one frame");
        }
        if (weight < 0) {
            throw new IllegalArgumentException("negative weight " + weight);
        }
    }

    /**
     * An immutable map sorted by key of these labels: the same instance when it is one already
     * (readers share one map among the samples of a label set), {@link #NO_LABELS} for none.
     *
     * @throws NullPointerException for a null key or value
     */
    public static SortedMap<String, String> labels(Map<String, String> labels) {
        if (labels == null || labels.isEmpty()) {
            return NO_LABELS;
        }
        if (labels instanceof Labels l) {
            return l;
        }
        TreeMap<String, String> copy = new TreeMap<>();
        labels.forEach((k, v) -> copy.put(Objects.requireNonNull(k, "label key"), Objects.requireNonNull(v, "label value")));
        return new Labels(copy);
    }

    /** Whether the sample carries labels. */
    public boolean hasLabels() {
        return !labels.isEmpty();
    }

    /** The same sample with other frames. */
    public Sample withStack(List<Frame> frames) {
        return new Sample(timeNanos, thread, eventType, frames, weight, labels);
    }

    /** An unmodifiable sorted map whose type says it was checked: no copy is made of it again. */
    private static final class Labels extends java.util.AbstractMap<String, String>
            implements SortedMap<String, String> {
        private final SortedMap<String, String> map;

        Labels(TreeMap<String, String> map) {
            this.map = Collections.unmodifiableSortedMap(map);
        }

        @Override
        public java.util.Set<Map.Entry<String, String>> entrySet() {
            return map.entrySet();
        }

        @Override
        public String get(Object key) {
            return map.get(key);
        }

        @Override
        public boolean containsKey(Object key) {
            return map.containsKey(key);
        }

        @Override
        public int size() {
            return map.size();
        }

        @Override
        public java.util.Comparator<? super String> comparator() {
            return null;
        }

        @Override
        public SortedMap<String, String> subMap(String fromKey, String toKey) {
            return map.subMap(fromKey, toKey);
        }

        @Override
        public SortedMap<String, String> headMap(String toKey) {
            return map.headMap(toKey);
        }

        @Override
        public SortedMap<String, String> tailMap(String fromKey) {
            return map.tailMap(fromKey);
        }

        @Override
        public String firstKey() {
            return map.firstKey();
        }

        @Override
        public String lastKey() {
            return map.lastKey();
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

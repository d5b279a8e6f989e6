package dev.candor.model;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What a reader found in one input file: samples grouped by event type (a JFR recording may hold
 * several kinds, e.g. {@code jdk.ExecutionSample} and {@code jdk.NativeMethodSample}), the time
 * range, and where the file is damaged, if it is. {@link #profile(List)} picks the events to
 * report.
 */
public final class Recording {
    private final String source;
    private final String format;
    private final Map<String, List<Sample>> byEvent;
    private final Instant start;
    private final Instant end;
    private final Damage damage;

    /**
     * @param source  the file name, for messages and report headers
     * @param format  {@code jfr} or {@code collapsed}
     * @param byEvent samples per event type (copied)
     * @param start   start of the recording, or null when unknown
     * @param end     end of the recording, or null when unknown
     * @param damage  where the file is damaged, or null when it was read to its end
     */
    public Recording(String source, String format, Map<String, List<Sample>> byEvent, Instant start, Instant end,
                     Damage damage) {
        this.source = Objects.requireNonNull(source);
        this.format = Objects.requireNonNull(format);
        Map<String, List<Sample>> copy = new LinkedHashMap<>();
        byEvent.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        this.byEvent = Collections.unmodifiableMap(copy);
        this.start = start;
        this.end = end;
        this.damage = damage;
    }

    public String source() {
        return source;
    }

    public String format() {
        return format;
    }

    public Optional<Instant> start() {
        return Optional.ofNullable(start);
    }

    public Optional<Instant> end() {
        return Optional.ofNullable(end);
    }

    public Optional<Damage> damage() {
        return Optional.ofNullable(damage);
    }

    /** Samples of one event type (empty list when absent). */
    public List<Sample> samples(String eventType) {
        return byEvent.getOrDefault(eventType, List.of());
    }

    /** Event type → number of samples (sum of weights), largest first, then by name. */
    public Map<String, Long> eventCounts() {
        List<Map.Entry<String, Long>> entries = new ArrayList<>();
        byEvent.forEach((k, v) -> entries.add(Map.entry(k, v.stream().mapToLong(Sample::weight).sum())));
        entries.sort(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        Map<String, Long> out = new LinkedHashMap<>();
        entries.forEach(e -> out.put(e.getKey(), e.getValue()));
        return Collections.unmodifiableMap(out);
    }

    /**
     * The event reported when none is chosen: the one with most samples among CPU sample events
     * ({@code *ExecutionSample}, {@code *CPUTimeSample}), else among {@code *Sample} events, else
     * among all events with stacks; empty when there are none.
     */
    public Optional<String> defaultEvent() {
        Map<String, Long> counts = eventCounts();
        for (int tier = 0; tier < 3; tier++) {
            for (Map.Entry<String, Long> e : counts.entrySet()) {
                String n = e.getKey();
                boolean fits = tier == 0 ? n.endsWith("ExecutionSample") || n.endsWith("CPUTimeSample")
                        : tier == 1 ? n.endsWith("Sample") : true;
                if (fits && e.getValue() > 0) {
                    return Optional.of(n);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The event types a user's {@code --event} text stands for: comma-separated names, each the
     * full name ({@code jdk.ExecutionSample}), or a case-insensitive suffix after a dot
     * ({@code ExecutionSample}) that fits exactly one type. Null or blank: the default event.
     *
     * @throws IllegalArgumentException naming the unknown or ambiguous part and the choices
     */
    public List<String> selectEvents(String selector) {
        if (selector == null || selector.isBlank()) {
            return defaultEvent().map(List::of).orElseThrow(() -> new IllegalArgumentException(
                    source + " has no stack samples" + (damage != null ? " before the damage" : "")));
        }
        List<String> out = new ArrayList<>();
        for (String part : selector.split(",")) {
            String want = part.strip();
            if (want.isEmpty()) {
                continue;
            }
            if (byEvent.containsKey(want)) {
                if (!out.contains(want)) {
                    out.add(want);
                }
                continue;
            }
            if (want.equalsIgnoreCase("alloc")) {  // every allocation event there is (async-profiler writes two)
                List<String> alloc = byEvent.keySet().stream().filter(JfrEvents.ALLOC_EVENTS::containsKey).toList();
                if (alloc.isEmpty()) {
                    throw new IllegalArgumentException("no allocation events in " + source + "; " + choices());
                }
                alloc.stream().filter(n -> !out.contains(n)).forEach(out::add);
                continue;
            }
            if (want.equalsIgnoreCase("lock")) {  // contended monitors and parks
                List<String> lock = byEvent.keySet().stream().filter(JfrEvents.LOCK_EVENTS::containsKey).toList();
                if (lock.isEmpty()) {
                    throw new IllegalArgumentException("no lock events in " + source + "; " + choices());
                }
                lock.stream().filter(n -> !out.contains(n)).forEach(out::add);
                continue;
            }
            String sampler = JfrEvents.SAMPLER_EVENTS.get(want.toLowerCase(Locale.ROOT));
            if (sampler != null && byEvent.containsKey(sampler)) {  // cpu, wall, ...: as the agent's event= names them
                if (!out.contains(sampler)) {
                    out.add(sampler);
                }
                continue;
            }
            String lower = want.toLowerCase(Locale.ROOT);
            List<String> matches = byEvent.keySet().stream()
                    .filter(n -> n.toLowerCase(Locale.ROOT).equals(lower)
                            || n.toLowerCase(Locale.ROOT).endsWith("." + lower))
                    .collect(Collectors.toList());
            if (matches.size() == 1) {
                if (!out.contains(matches.get(0))) {
                    out.add(matches.get(0));
                }
            } else if (matches.isEmpty()) {
                throw new IllegalArgumentException("no event '" + want + "' in " + source + "; " + choices());
            } else {
                throw new IllegalArgumentException("event '" + want + "' is ambiguous in " + source + ": it could be "
                        + String.join(" or ", matches) + "; " + choices());
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no event given; " + choices());
        }
        return out;
    }

    /** "choices: jdk.ExecutionSample (120), jdk.NativeMethodSample (3)", or that there are none. */
    public String choices() {
        Map<String, Long> counts = eventCounts();
        if (counts.isEmpty()) {
            return "the file has no events with stack traces";
        }
        return "choices: " + counts.entrySet().stream().map(e -> e.getKey() + " (" + ReportText.weightOf(e.getKey(),
                        e.getValue()) + ")")
                .collect(Collectors.joining(", "));
    }

    /** The profile of these event types (in the given order), unfiltered. */
    public Profile profile(List<String> eventTypes) {
        List<Sample> samples = new ArrayList<>();
        for (String t : eventTypes) {
            samples.addAll(samples(t));
        }
        Map<String, Long> others = new LinkedHashMap<>(eventCounts());
        eventTypes.forEach(others::remove);
        return new Profile(source, eventTypes, others, samples, start, end, damage, List.of(), -1);
    }
}

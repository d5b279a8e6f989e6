package dev.candor.model;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * An immutable set of samples of one or more event types, as reported: the samples, where they
 * came from, the time range, the filters applied so far and the damage of the input, if any.
 * Filters ({@link #between}, {@link #include}, {@link #exclude}) return new profiles and are
 * recorded in {@link #filters()} so that reports say what they leave out.
 */
public final class Profile {
    private final String source;
    private final List<String> eventTypes;
    private final Map<String, Long> otherEvents;
    private final List<Sample> samples;
    private final Instant start;
    private final Instant end;
    private final Damage damage;
    private final List<String> filters;
    private final long total;
    private final long unfilteredTotal;

    Profile(String source, List<String> eventTypes, Map<String, Long> otherEvents, List<Sample> samples,
            Instant start, Instant end, Damage damage, List<String> filters, long unfilteredTotal) {
        this.source = Objects.requireNonNull(source);
        this.eventTypes = List.copyOf(eventTypes);
        this.otherEvents = Collections.unmodifiableMap(new LinkedHashMap<>(otherEvents));
        this.samples = List.copyOf(samples);
        this.start = start;
        this.end = end;
        this.damage = damage;
        this.filters = List.copyOf(filters);
        long t = 0;
        for (Sample s : this.samples) {
            t = Math.addExact(t, s.weight());
        }
        this.total = t;
        this.unfilteredTotal = unfilteredTotal < 0 ? t : unfilteredTotal;
    }

    /** A profile of these samples (event types taken from them), without a time range. */
    public static Profile of(String source, List<Sample> samples) {
        List<String> types = new ArrayList<>();
        for (Sample s : samples) {
            if (!types.contains(s.eventType())) {
                types.add(s.eventType());
            }
        }
        return new Profile(source, types, Map.of(), samples, null, null, null, List.of(), -1);
    }

    public String source() {
        return source;
    }

    /** What the sample weights count: "bytes" (allocation events), "ns" (lock waits), else "samples". */
    public String unit() {
        return JfrEvents.unitOf(eventTypes());
    }

    /** The event types reported, e.g. {@code [jdk.ExecutionSample]}. */
    public List<String> eventTypes() {
        return eventTypes;
    }

    /** Other event types with stacks in the input and their sample counts (not reported). */
    public Map<String, Long> otherEvents() {
        return otherEvents;
    }

    public List<Sample> samples() {
        return samples;
    }

    /** Sum of the weights of the samples: every tick, failures included. */
    public long total() {
        return total;
    }

    /** {@link #total()} before any filter. */
    public long unfilteredTotal() {
        return unfilteredTotal;
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

    /** The filters applied, in order, e.g. {@code include /Hot/}. */
    public List<String> filters() {
        return filters;
    }

    /** Whether every sample has a timestamp (and there is at least one). */
    public boolean hasTimes() {
        return !samples.isEmpty() && samples.stream().allMatch(Sample::hasTime);
    }

    /** Earliest sample time, or the recording start. */
    public Optional<Instant> firstSampleTime() {
        return samples.stream().filter(Sample::hasTime).mapToLong(Sample::timeNanos).min()
                .stream().mapToObj(n -> Instant.ofEpochSecond(0, n)).findFirst();
    }

    /**
     * The samples taken in [from, to) (either may be null for an open end).
     *
     * @throws IllegalArgumentException when the samples have no timestamps (collapsed input)
     */
    public Profile between(Instant from, Instant to) {
        if (from == null && to == null) {
            return this;
        }
        if (!samples.isEmpty() && !samples.stream().allMatch(Sample::hasTime)) {
            throw new IllegalArgumentException(source + " has no timestamps, so a time range cannot be applied");
        }
        long lo = from == null ? Long.MIN_VALUE : Sample.nanos(from);
        long hi = to == null ? Long.MAX_VALUE : Sample.nanos(to);
        String what = "time " + (from == null ? "start" : from.toString()) + " to " + (to == null ? "end" : to.toString());
        return filtered(s -> s.timeNanos() >= lo && s.timeNanos() < hi, what);
    }

    /** The samples with a frame (or the thread root frame) matching the regex anywhere in its name. */
    public Profile include(Pattern regex) {
        return filtered(s -> matches(s, regex), "include /" + regex.pattern() + "/");
    }

    /** The samples with no frame (nor thread root frame) matching the regex. */
    public Profile exclude(Pattern regex) {
        return filtered(s -> !matches(s, regex), "exclude /" + regex.pattern() + "/");
    }

    /** Whether any frame name (with or without its line), or the thread root frame, matches. */
    static boolean matches(Sample s, Pattern regex) {
        for (Frame f : s.stack()) {
            if (regex.matcher(f.name(false)).find() || (f.line() > 0 && regex.matcher(f.name(true)).find())) {
                return true;
            }
        }
        return s.thread() != null && regex.matcher(s.thread().rootFrame()).find();
    }

    /** Whether any sample carries labels (only candor's JFR recordings have them). */
    public boolean hasLabels() {
        for (Sample s : samples) {
            if (s.hasLabels()) {
                return true;
            }
        }
        return false;
    }

    /** The label keys of the samples and the values each takes, both sorted. */
    public SortedMap<String, SortedSet<String>> labelValues() {
        SortedMap<String, SortedSet<String>> out = new TreeMap<>();
        Set<Map<String, String>> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Sample s : samples) {
            if (s.hasLabels() && seen.add(s.labels())) {
                s.labels().forEach((k, v) -> out.computeIfAbsent(k, x -> new TreeSet<>()).add(v));
            }
        }
        return out;
    }

    /** The samples that carry all these labels (key and value each); the filter reads {@code label k=v, k2=v2}. */
    public Profile withLabels(Map<String, String> required) {
        if (required.isEmpty()) {
            return this;
        }
        SortedMap<String, String> want = new TreeMap<>(required);
        List<String> text = new ArrayList<>();
        want.forEach((k, v) -> text.add(k + "=" + v));
        return filtered(s -> s.labels().entrySet().containsAll(want.entrySet()),
                "label " + String.join(", ", text));
    }

    /**
     * The profile split by labels, as the agent's {@code split=label:KEY} does it: every stack gets a
     * root frame {@code [KEY=VALUE]} per key, in the order given ({@code [KEY=(none)]} for a sample
     * without that label), above its frames; a thread root, when a report adds one, stays above them.
     */
    public Profile splitByLabels(List<String> keys) {
        if (keys.isEmpty()) {
            return this;
        }
        for (String k : keys) {
            Frame.labelRoot(k, null);  // checks the key
        }
        Map<List<String>, List<Frame>> roots = new HashMap<>();
        Map<List<Frame>, Map<List<Frame>, List<Frame>>> stacks = new IdentityHashMap<>();
        Map<Frame, Frame> frames = new HashMap<>();
        List<Sample> out = new ArrayList<>(samples.size());
        for (Sample s : samples) {
            List<String> values = new ArrayList<>(keys.size());
            for (String k : keys) {
                values.add(s.labels().get(k));
            }
            List<Frame> prefix = roots.computeIfAbsent(values, v -> {
                List<Frame> p = new ArrayList<>(keys.size());
                for (int i = 0; i < keys.size(); i++) {
                    p.add(frames.computeIfAbsent(Frame.labelRoot(keys.get(i), v.get(i)), f -> f));
                }
                return List.copyOf(p);
            });
            List<Frame> stack = stacks.computeIfAbsent(s.stack(), x -> new IdentityHashMap<>())
                    .computeIfAbsent(prefix, p -> {
                        List<Frame> joined = new ArrayList<>(p.size() + s.stack().size());
                        joined.addAll(p);
                        joined.addAll(s.stack());
                        return List.copyOf(joined);
                    });
            out.add(s.withStack(stack));
        }
        return new Profile(source, eventTypes, otherEvents, out, start, end, damage, filters, unfilteredTotal);
    }

    /** The samples satisfying the predicate; {@code description} goes into {@link #filters()}. */
    public Profile filtered(Predicate<Sample> keep, String description) {
        List<Sample> kept = new ArrayList<>();
        for (Sample s : samples) {
            if (keep.test(s)) {
                kept.add(s);
            }
        }
        List<String> f = new ArrayList<>(filters);
        f.add(description);
        return new Profile(source, eventTypes, otherEvents, kept, start, end, damage, f, unfilteredTotal);
    }

    /** The profile as folded stacks: thread roots when asked, frames root first (leaf first when reversed). */
    public CollapsedProfile toCollapsed(boolean threads, boolean lines, boolean reverse) {
        List<CollapsedProfile.Stack> stacks = new ArrayList<>();
        for (Sample s : samples) {
            stacks.add(new CollapsedProfile.Stack(path(s, threads, lines, reverse), s.weight()));
        }
        return CollapsedProfile.of(stacks);
    }

    /** The frame names of a sample as a report shows them. */
    public static List<String> path(Sample s, boolean threads, boolean lines, boolean reverse) {
        List<Frame> stack = s.stack();
        List<String> out = new ArrayList<>(stack.size() + 1);
        if (threads) {
            out.add(s.thread() != null ? s.thread().rootFrame() : Frame.UNKNOWN_THREAD_ROOT);
        }
        if (reverse) {  // the callers view: context roots (label roots) stay on top, the rest leaf first
            int n = stack.size();
            int roots = Frame.contextRoots(stack);
            for (int i = 0; i < n; i++) {
                out.add(stack.get(Frame.shownIndex(i, n, roots, true)).name(lines));
            }
        } else {
            for (Frame f : stack) {
                out.add(f.name(lines));
            }
        }
        return out;
    }
}

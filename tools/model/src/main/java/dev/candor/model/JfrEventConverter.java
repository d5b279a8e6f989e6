package dev.candor.model;

import jdk.jfr.EventType;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Turns the events of one JFR file into {@link Sample}s, by the kinds {@link JfrEvents} gives
 * their types: a stack sample, an allocation or lock wait with its class on top and its bytes or
 * nanoseconds as weight, lost CPU-time samples, candor's failed ticks and counters. Frames,
 * stacks, threads and label sets are interned across the file's chunks, so a long recording
 * holds each once. One instance per file read; not thread-safe.
 */
final class JfrEventConverter {

    /** What the events of one parse gave: samples by event type, candor's failures, counters, times. */
    static class Batch {
        final Map<String, List<Sample>> samples = new LinkedHashMap<>();
        final List<Sample> failures = new ArrayList<>();
        long countersTime = Long.MIN_VALUE;
        long dropped = -1;
        String droppedByKind;
        long minStart = Long.MAX_VALUE;
        long maxEnd = Long.MIN_VALUE;
    }

    /** Per chunk (its constant pools are its own): each type's kind, each stack and label text converted once. */
    static final class ChunkCaches {
        final Map<EventType, JfrEvents.Kind> kinds = new IdentityHashMap<>();
        final Map<RecordedStackTrace, List<Frame>> stacks = new IdentityHashMap<>();
        final Map<String, SortedMap<String, String>> labels = new HashMap<>();
    }

    private final Map<Frame, Frame> frames = new HashMap<>();
    private final Map<List<Frame>, List<Frame>> stacks = new HashMap<>();
    private final Map<SampledThread, SampledThread> threads = new HashMap<>();
    private final Map<SortedMap<String, String>, SortedMap<String, String>> labelSets = new HashMap<>();

    /** Adds what event {@code e} stands for to {@code a}: a sample, a failure, or the counters; other types nothing. */
    void accept(Batch a, RecordedEvent e, ChunkCaches caches) {
        EventType type = e.getEventType();
        String name = type.getName();
        JfrEvents.Kind kind = caches.kinds.computeIfAbsent(type, JfrEvents::kindOf);
        if (kind == JfrEvents.Kind.IGNORE) {
            return;
        }
        long time = Sample.NO_TIME;
        Instant t = e.getStartTime();
        if (t != null) {
            time = Sample.nanos(t);
            a.minStart = Math.min(a.minStart, time);
            a.maxEnd = Math.max(a.maxEnd, time);
        }
        SampledThread thread = thread(e);
        SortedMap<String, String> labels = labels(e, caches.labels);
        switch (kind) {
            case STACK:
            case CPU_TIME: {
                List<Frame> stack;
                if (kind == JfrEvents.Kind.CPU_TIME && e.hasField("failed") && e.getBoolean("failed")) {
                    stack = pseudoStack(JfrEvents.WALK_FAILED);
                } else {
                    stack = stack(e.getStackTrace(), caches.stacks);
                }
                a.samples.computeIfAbsent(name, k -> new ArrayList<>()).add(new Sample(time, thread, name, stack, 1, labels));
                break;
            }
            case ALLOC: {
                // the allocated class on top of the stack, and the bytes the sample stands for as its weight
                long bytes = Math.max(0, e.getLong(JfrEvents.ALLOC_EVENTS.get(name)));
                List<Frame> stack = classOnTop(e.getStackTrace(), e.getClass("objectClass"), caches);
                a.samples.computeIfAbsent(name, k -> new ArrayList<>()).add(new Sample(time, thread, name, stack, bytes, labels));
                break;
            }
            case LOCK: {
                // the lock's class on top of the stack, and the nanoseconds waited as its weight
                long ns = Math.max(0, e.getDuration().toNanos());
                List<Frame> stack = classOnTop(e.getStackTrace(), e.getClass(JfrEvents.LOCK_EVENTS.get(name)), caches);
                a.samples.computeIfAbsent(name, k -> new ArrayList<>()).add(new Sample(time, thread, name, stack, ns, labels));
                break;
            }
            case LOST: {
                long lost = e.getLong("lostSamples");
                if (lost > 0) {
                    a.samples.computeIfAbsent("jdk.CPUTimeSample", k -> new ArrayList<>())
                            .add(new Sample(time, thread, "jdk.CPUTimeSample", pseudoStack(JfrEvents.LOST), lost));
                }
                break;
            }
            case CANDOR_COUNTERS: {
                // cumulative: the latest one counts
                if (time >= a.countersTime) {
                    a.countersTime = time;
                    a.dropped = e.getLong("dropped");
                    a.droppedByKind = e.hasField("droppedByKind") ? e.getString("droppedByKind") : null;
                }
                break;
            }
            case CANDOR_FAILURE: {
                String bucket = e.getString(JfrEvents.bucketField(type));
                String cf = JfrEvents.countField(type);
                long count = cf == null ? 1 : e.getLong(cf);
                if (count > 0) {
                    String b = bucket == null || bucket.isBlank() ? "unknown_failure" : bucket.strip();
                    if (Frame.isPseudoText(b) && b.length() > 2) {
                        b = b.substring(1, b.length() - 1);
                    }
                    // candor's FailedTick says which sampler took the tick (cpu, wall, ...)
                    String sampler = type.getField("kind") != null && !"kind".equals(JfrEvents.bucketField(type))
                            ? e.getString("kind") : null;
                    a.failures.add(new Sample(time, thread, sampler == null ? name : JfrEvents.KIND_PREFIX + sampler,
                            pseudoStack(b), count, labels));
                }
                break;
            }
            default:
                break;
        }
    }

    /** The stack with a class on top (allocated, or waited for); an event without a Java stack has the class alone. */
    private List<Frame> classOnTop(RecordedStackTrace st, RecordedClass c, ChunkCaches caches) {
        List<Frame> stack = new ArrayList<>(stack(st, caches.stacks));
        if (stack.size() == 1 && stack.get(0).isPseudo() && stack.get(0).methodName().equals(JfrEvents.NO_STACK)) {
            stack.clear();
        }
        stack.add(frame(Frame.allocated(c == null ? "[unknown class]" : JfrEvents.javaClassName(c.getName()))));
        return stack;
    }

    private SampledThread thread(RecordedEvent e) {
        RecordedThread t = null;
        if (e.hasField("sampledThread")) {
            t = e.getThread("sampledThread");
        } else if (e.hasField("eventThread")) {
            t = e.getThread("eventThread");
        }
        if (t == null) {
            return null;
        }
        String n = t.getJavaName() != null ? t.getJavaName() : t.getOSName();
        SampledThread st = new SampledThread(n == null ? "unknown" : n, t.getOSThreadId(), t.getJavaThreadId());
        return threads.computeIfAbsent(st, k -> k);
    }

    /**
     * The labels of an event: its {@code labels} text (one string per label set in the chunk's pool,
     * so parsed once per distinct text), or none when the type has no such field or it is null.
     */
    private SortedMap<String, String> labels(RecordedEvent e, Map<String, SortedMap<String, String>> cache) {
        if (!e.hasField(JfrEvents.LABELS_FIELD) || !(e.getValue(JfrEvents.LABELS_FIELD) instanceof String text) || text.isEmpty()) {
            return Sample.NO_LABELS;
        }
        return cache.computeIfAbsent(text, t -> labelSets.computeIfAbsent(JfrEvents.parseLabels(t), k -> k));
    }

    List<Frame> pseudoStack(String name) {
        return stacks.computeIfAbsent(List.of(frame(Frame.pseudo(name))), k -> k);
    }

    private List<Frame> stack(RecordedStackTrace st, Map<RecordedStackTrace, List<Frame>> cache) {
        if (st == null) {
            return pseudoStack(JfrEvents.NO_STACK);
        }
        List<Frame> cached = cache.get(st);
        if (cached != null) {
            return cached;
        }
        List<RecordedFrame> jfr = st.getFrames();
        List<Frame> out = new ArrayList<>(jfr.size() + 1);
        if (st.isTruncated()) {
            out.add(frame(Frame.pseudo(JfrEvents.TRUNCATED)));
        }
        for (int i = jfr.size() - 1; i >= 0; i--) {
            out.add(frame(convert(jfr.get(i))));
        }
        List<Frame> result = out.isEmpty() ? pseudoStack(JfrEvents.NO_STACK) : stacks.computeIfAbsent(List.copyOf(out), k -> k);
        cache.put(st, result);
        return result;
    }

    private static Frame convert(RecordedFrame f) {
        RecordedMethod m = f.getMethod();
        if (m == null) {
            return Frame.pseudo("unknown_method");
        }
        String cls = m.getType() != null && m.getType().getName() != null ? m.getType().getName() : "";
        return Frame.of(cls, m.getName(), m.getDescriptor(), f.getLineNumber(), f.getBytecodeIndex(),
                Frame.Type.fromJfr(f.getType()));
    }

    private Frame frame(Frame f) {
        return frames.computeIfAbsent(f, k -> k);
    }
}

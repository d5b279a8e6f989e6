package dev.candor.model;

import jdk.jfr.EventType;
import jdk.jfr.ValueDescriptor;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What candor's tools make of JFR event types, whatever produced the file: which types are
 * samples and of what kind (execution, CPU time, allocation, lock wait, lost samples), candor's
 * own failure and counter events, the unit their weights count in, and the pseudo-frame names a
 * reader adds for ticks without a stack. Stateless; {@link JfrEventConverter} applies it to events.
 */
public final class JfrEvents {

    /** Pseudo-frame names a reader adds. */
    public static final String NO_STACK = "no_stack_trace";
    public static final String TRUNCATED = "truncated";
    public static final String WALK_FAILED = "stack_walk_failed";
    public static final String LOST = "lost_samples";
    /** The field of candor's sample events with the thread's labels. */
    public static final String LABELS_FIELD = "labels";

    /** The event of each of candor's sampler kinds (event=cpu, wall, ...). */
    static final Map<String, String> SAMPLER_EVENTS = Map.of("cpu", "jdk.ExecutionSample",
            "wall", "candor.WallClockSample", "safepoint", "candor.SafepointSample",
            "handshake", "candor.HandshakeSample");
    /** The events of candor's value kinds, whose drops count in bytes or ns. */
    static final Map<String, String> VALUE_EVENTS = Map.of("alloc", "jdk.ObjectAllocationSample",
            "lock", "jdk.JavaMonitorEnter");
    /** A failure's event type while its file is read: this prefix and the sampler (FailedTick's kind). */
    static final String KIND_PREFIX = "candor-kind:";
    private static final List<String> BUCKET_FIELDS = List.of("bucket", "reason", "failure", "kind", "name", "type");
    private static final List<String> COUNT_FIELDS = List.of("count", "ticks", "samples", "weight");

    private JfrEvents() {
    }

    enum Kind { STACK, CPU_TIME, ALLOC, LOCK, LOST, CANDOR_FAILURE, CANDOR_COUNTERS, IGNORE }

    /**
     * Allocation events and the field with the bytes each stands for: the JDK's and candor's
     * sample (its weight), async-profiler's TLAB events (the TLAB's size for an allocation that
     * took a new TLAB, the object's size outside one, as async-profiler's converter counts them).
     */
    static final Map<String, String> ALLOC_EVENTS = Map.of("jdk.ObjectAllocationSample", "weight",
            "jdk.ObjectAllocationInNewTLAB", "tlabSize", "jdk.ObjectAllocationOutsideTLAB", "allocationSize");

    /**
     * Lock-wait events and the field with the lock's class: the JDK's, candor's and
     * async-profiler's contended monitor enters and parks, weighted by the nanoseconds waited.
     */
    static final Map<String, String> LOCK_EVENTS = Map.of("jdk.JavaMonitorEnter", "monitorClass",
            "jdk.ThreadPark", "parkedClass");

    /** What weights of these event types count: "bytes" (allocations), "ns" (lock waits), else "samples". */
    public static String unitOf(java.util.Collection<String> eventTypes) {
        if (eventTypes.isEmpty()) {
            return "samples";
        }
        if (eventTypes.stream().allMatch(ALLOC_EVENTS::containsKey)) {
            return "bytes";
        }
        return eventTypes.stream().allMatch(LOCK_EVENTS::containsKey) ? "ns" : "samples";
    }

    static Kind kindOf(EventType t) {
        String name = t.getName();
        if (name.startsWith("candor.") && bucketField(t) != null) {
            return Kind.CANDOR_FAILURE;  // checked first: events without stacks still have the field
        }
        if (name.equals("candor.ProfilerCounters") && t.getField("dropped") != null) {
            return Kind.CANDOR_COUNTERS;
        }
        if (name.equals("jdk.CPUTimeSamplesLost") && t.getField("lostSamples") != null) {
            return Kind.LOST;
        }
        if (t.getField("stackTrace") != null && ALLOC_EVENTS.containsKey(name) && t.getField(ALLOC_EVENTS.get(name)) != null
                && t.getField("objectClass") != null) {
            return Kind.ALLOC;
        }
        if (t.getField("stackTrace") != null && LOCK_EVENTS.containsKey(name) && t.getField("duration") != null
                && t.getField(LOCK_EVENTS.get(name)) != null) {
            return Kind.LOCK;
        }
        if (t.getField("stackTrace") != null) {
            return name.equals("jdk.CPUTimeSample") ? Kind.CPU_TIME : Kind.STACK;
        }
        return Kind.IGNORE;
    }

    static String bucketField(EventType t) {
        String lower = t.getName().toLowerCase();
        if (!(lower.contains("fail") || lower.contains("drop") || lower.contains("lost"))) {
            return null;
        }
        for (String f : BUCKET_FIELDS) {
            ValueDescriptor d = t.getField(f);
            if (d != null && d.getTypeName().equals("java.lang.String")) {
                return f;
            }
        }
        return null;
    }

    static String countField(EventType t) {
        for (String f : COUNT_FIELDS) {
            ValueDescriptor d = t.getField(f);
            if (d != null && List.of("long", "int", "short").contains(d.getTypeName())) {
                return f;
            }
        }
        return null;
    }

    /** "[B" → "byte[]", "[Ljava.lang.String;" → "java.lang.String[]", "java.lang.String" unchanged. */
    static String javaClassName(String name) {
        int dims = 0;
        while (dims < name.length() && name.charAt(dims) == '[') {
            dims++;
        }
        if (dims == 0) {
            return name.replace('/', '.');
        }
        String base = name.substring(dims);
        String java = switch (base) {
            case "Z" -> "boolean";
            case "B" -> "byte";
            case "C" -> "char";
            case "S" -> "short";
            case "I" -> "int";
            case "J" -> "long";
            case "F" -> "float";
            case "D" -> "double";
            default -> base.startsWith("L") && base.endsWith(";") ? base.substring(1, base.length() - 1).replace('/', '.')
                    : base.replace('/', '.');
        };
        return java + "[]".repeat(dims);
    }

    /** "key=value,key=value" with %25, %2C, %3D escapes, as candor's agent writes it. */
    public static SortedMap<String, String> parseLabels(String text) {
        TreeMap<String, String> m = new TreeMap<>();
        for (String pair : text.split(",", -1)) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                m.put(unescape(pair.substring(0, eq)), unescape(pair.substring(eq + 1)));
            }
        }
        return Sample.labels(m);
    }

    private static String unescape(String s) {
        return s.indexOf('%') < 0 ? s : s.replace("%2C", ",").replace("%3D", "=").replace("%25", "%");
    }
}

package dev.candor.model;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Writes a one-chunk JFR file laid out as candor's agent writes it (header, metadata, events, one
 * checkpoint with every constant pool), with the sample labels of the agent's spec: sample events
 * end in a {@code labels} string field, "key=value,..." sorted by key ('%', ',' and '=' escaped as
 * %25, %2C, %3D), a reference into the chunk's string pool; null for a sample without labels. The JDK's recorder cannot write such a struct, hence
 * this writer. {@code jdk.ExecutionSample} and {@code candor.FailedTick} have the field;
 * {@code candor.WallClockSample} does not (as an agent without labels wrote it).
 */
public final class CandorJfrWriter {
    // type ids
    private static final long LONG = 1, INT = 2, BOOLEAN = 3, STRING = 4, THREAD = 10, CLASS = 11, SYMBOL = 12,
            METHOD = 13, STACK_TRACE = 14, STACK_FRAME = 15, FRAME_TYPE = 16, LABELS = 17, LABEL = 18,
            TIMESTAMP = 19, EXECUTION_SAMPLE = 101, WALL_SAMPLE = 102, FAILED_TICK = 103;
    static final long START_NANOS = 1_700_000_000_000_000_000L;

    private final ByteArrayOutputStream events = new ByteArrayOutputStream();
    private final Map<String, Long> threads = new LinkedHashMap<>();
    private final Map<List<String>, Long> stacks = new LinkedHashMap<>();
    private final Map<String, Long> methods = new LinkedHashMap<>();
    private final Map<String, Long> classes = new LinkedHashMap<>();
    private final Map<String, Long> symbols = new LinkedHashMap<>();
    private final Map<SortedMap<String, String>, Long> labelSets = new LinkedHashMap<>();
    private long lastNanos;

    /**
     * An example recording: jdk.ExecutionSample 6 a.Web.users with endpoint=/users trace_id=abc on
     * worker-1, 3 a.Web.orders with endpoint=/orders on worker-2, 2 a.Main.main without labels on
     * main, a candor.FailedTick [gc_active] with endpoint=/users trace_id=abc; 4 candor.WallClockSample
     * (a type without the labels field) a.Web.sleep.
     */
    public static byte[] example() {
        Map<String, String> users = Map.of("endpoint", "/users", "trace_id", "abc");
        CandorJfrWriter w = new CandorJfrWriter();
        for (int i = 0; i < 6; i++) {
            w.cpu(i, "worker-1", users, "java.lang.Thread.run", "a.Web.users");
        }
        for (int i = 0; i < 3; i++) {
            w.cpu(10 + i, "worker-2", Map.of("endpoint", "/orders"), "java.lang.Thread.run", "a.Web.orders");
        }
        w.cpu(20, "main", Map.of(), "a.Main.main").cpu(21, "main", Map.of(), "a.Main.main");
        w.failed(22, "worker-1", "gc_active", users);
        for (int i = 0; i < 4; i++) {
            w.wall(30 + i, "worker-1", "java.lang.Thread.run", "a.Web.sleep");
        }
        return w.toBytes();
    }

    /** A jdk.ExecutionSample {@code ms} after the start: frames root first ({@code a.B.m}), labels may be empty. */
    public CandorJfrWriter cpu(long ms, String thread, Map<String, String> labels, String... frames) {
        Out e = new Out().varint(EXECUTION_SAMPLE).varint(ticks(ms)).varint(thread(thread))
                .varint(stack(List.of(frames)));
        labels(e, labels);
        event(e);
        return this;
    }

    /** A candor.WallClockSample, a type without the labels field. */
    public CandorJfrWriter wall(long ms, String thread, String... frames) {
        event(new Out().varint(WALL_SAMPLE).varint(ticks(ms)).varint(thread(thread)).varint(stack(List.of(frames))));
        return this;
    }

    /** A candor.FailedTick of the cpu sampler. */
    public CandorJfrWriter failed(long ms, String thread, String bucket, Map<String, String> labels) {
        Out e = new Out().varint(FAILED_TICK).varint(ticks(ms)).varint(thread(thread)).string(bucket).string("cpu");
        labels(e, labels);
        event(e);
        return this;
    }

    public byte[] toBytes() {
        byte[] metadata = metadata();
        byte[] body = events.toByteArray();
        byte[] checkpoint = checkpoint();
        long mdPos = 68;
        long cpPos = mdPos + metadata.length + body.length;
        ByteBuffer h = ByteBuffer.allocate(68);
        h.put("FLR\0".getBytes(StandardCharsets.ISO_8859_1)).putShort((short) 2).putShort((short) 0);
        h.putLong(cpPos + checkpoint.length).putLong(cpPos).putLong(mdPos);
        h.putLong(START_NANOS).putLong(lastNanos + 1_000_000).putLong(START_NANOS).putLong(1_000_000_000L);
        h.put((byte) 0).put((byte) 0).put((byte) 0).put((byte) 1);  // finished; compressed integers
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        file.writeBytes(h.array());
        file.writeBytes(metadata);
        file.writeBytes(body);
        file.writeBytes(checkpoint);
        return file.toByteArray();
    }

    // ---- ids --------------------------------------------------------------------------------

    private long ticks(long ms) {
        lastNanos = Math.max(lastNanos, ms * 1_000_000);
        return START_NANOS + ms * 1_000_000;
    }

    private long thread(String name) {
        return threads.computeIfAbsent(name, k -> 100L + threads.size());
    }

    private long symbol(String s) {
        return symbols.computeIfAbsent(s, k -> 1L + symbols.size());
    }

    private long method(String qualified) {
        int dot = qualified.lastIndexOf('.');
        classes.computeIfAbsent(qualified.substring(0, dot), k -> 1L + classes.size());
        return methods.computeIfAbsent(qualified, k -> 1L + methods.size());
    }

    private long stack(List<String> frames) {
        frames.forEach(this::method);
        return stacks.computeIfAbsent(frames, k -> 1L + stacks.size());
    }

    // The agent's form: a null string, or a reference (encoding 2) into the chunk's string pool.
    private void labels(Out e, Map<String, String> labels) {
        if (labels.isEmpty()) {
            e.byte1(0);
            return;
        }
        e.byte1(2).varint(labelSets.computeIfAbsent(new TreeMap<>(labels), k -> 1L + labelSets.size()));
    }

    static String labelText(Map<String, String> set) {
        StringBuilder b = new StringBuilder();
        set.forEach((k, v) -> b.append(b.length() == 0 ? "" : ",").append(escape(k)).append('=').append(escape(v)));
        return b.toString();
    }

    private static String escape(String s) {
        return s.replace("%", "%25").replace(",", "%2C").replace("=", "%3D");
    }

    private void event(Out payload) {
        writeEvent(events, payload.toByteArray());
    }

    // ---- the checkpoint ----------------------------------------------------------------------

    private byte[] checkpoint() {
        Out p = new Out().varint(1).varint(START_NANOS).varint(0).varint(0).byte1(0);
        p.varint(7);  // pools
        p.varint(FRAME_TYPE).varint(1).varint(1).string("JIT compiled");
        p.varint(THREAD).varint(threads.size());
        threads.forEach((name, id) -> p.varint(id).string(name).varint(id).string(name).varint(id));
        p.varint(STACK_TRACE).varint(stacks.size());
        stacks.forEach((frames, id) -> {
            p.varint(id).byte1(0).varint(frames.size());
            for (int i = frames.size() - 1; i >= 0; i--) {  // JFR: leaf first
                p.varint(methods.get(frames.get(i))).varint(10 + i).varint(i).varint(1);
            }
        });
        p.varint(METHOD).varint(methods.size());
        methods.forEach((m, id) -> {
            int dot = m.lastIndexOf('.');
            p.varint(id).varint(classes.get(m.substring(0, dot))).varint(symbol(m.substring(dot + 1)))
                    .varint(symbol("()V")).varint(1).byte1(0);
        });
        p.varint(CLASS).varint(classes.size());
        classes.forEach((c, id) -> p.varint(id).varint(symbol(c.replace('.', '/'))).varint(1).byte1(0));
        p.varint(SYMBOL).varint(symbols.size());
        symbols.forEach((s, id) -> p.varint(id).string(s));
        p.varint(STRING).varint(labelSets.size());
        labelSets.forEach((set, id) -> p.varint(id).string(labelText(set)));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeEvent(out, p.toByteArray());
        return out.toByteArray();
    }

    // ---- the metadata -------------------------------------------------------------------------

    /** An element of the metadata tree. */
    private static final class El {
        final String name;
        final Map<String, String> attrs = new LinkedHashMap<>();
        final List<El> children = new ArrayList<>();

        El(String name) {
            this.name = name;
        }

        El attr(String k, Object v) {
            attrs.put(k, String.valueOf(v));
            return this;
        }

        El add(El c) {
            children.add(c);
            return this;
        }
    }

    private static El type(String name, long id) {
        return new El("class").attr("name", name).attr("id", id);
    }

    private static El field(String name, long type, boolean cpool, boolean array) {
        El f = new El("field").attr("name", name).attr("class", type);
        if (cpool) {
            f.attr("constantPool", "true");
        }
        if (array) {
            f.attr("dimension", "1");
        }
        return f;
    }

    private static El startTime() {
        return field("startTime", LONG, false, false)
                .add(new El("annotation").attr("class", TIMESTAMP).attr("value", "TICKS"));
    }

    private static byte[] metadata() {
        El md = new El("metadata");
        md.add(type("long", LONG)).add(type("int", INT)).add(type("boolean", BOOLEAN))
                .add(type("java.lang.String", STRING));
        md.add(type("java.lang.Thread", THREAD).add(field("osName", STRING, false, false))
                .add(field("osThreadId", LONG, false, false)).add(field("javaName", STRING, false, false))
                .add(field("javaThreadId", LONG, false, false)));
        md.add(type("java.lang.Class", CLASS).add(field("name", SYMBOL, true, false))
                .add(field("modifiers", INT, false, false)).add(field("hidden", BOOLEAN, false, false)));
        md.add(type("jdk.types.Symbol", SYMBOL).attr("simpleType", "true").add(field("string", STRING, false, false)));
        md.add(type("jdk.types.Method", METHOD).add(field("type", CLASS, true, false))
                .add(field("name", SYMBOL, true, false)).add(field("descriptor", SYMBOL, true, false))
                .add(field("modifiers", INT, false, false)).add(field("hidden", BOOLEAN, false, false)));
        md.add(type("jdk.types.StackTrace", STACK_TRACE).add(field("truncated", BOOLEAN, false, false))
                .add(field("frames", STACK_FRAME, false, true)));
        md.add(type("jdk.types.StackFrame", STACK_FRAME).add(field("method", METHOD, true, false))
                .add(field("lineNumber", INT, false, false)).add(field("bytecodeIndex", INT, false, false))
                .add(field("type", FRAME_TYPE, true, false)));
        md.add(type("jdk.types.FrameType", FRAME_TYPE).attr("simpleType", "true")
                .add(field("description", STRING, false, false)));
        md.add(type("jdk.jfr.Timestamp", TIMESTAMP).attr("superType", "java.lang.annotation.Annotation")
                .add(field("value", STRING, false, false)));
        md.add(type("jdk.ExecutionSample", EXECUTION_SAMPLE).attr("superType", "jdk.jfr.Event").add(startTime())
                .add(field("sampledThread", THREAD, true, false)).add(field("stackTrace", STACK_TRACE, true, false))
                .add(field("labels", STRING, false, false)));
        md.add(type("candor.WallClockSample", WALL_SAMPLE).attr("superType", "jdk.jfr.Event").add(startTime())
                .add(field("sampledThread", THREAD, true, false)).add(field("stackTrace", STACK_TRACE, true, false)));
        md.add(type("candor.FailedTick", FAILED_TICK).attr("superType", "jdk.jfr.Event").add(startTime())
                .add(field("sampledThread", THREAD, true, false)).add(field("bucket", STRING, false, false))
                .add(field("kind", STRING, false, false)).add(field("labels", STRING, false, false)));
        El root = new El("root").add(md).add(new El("region").attr("locale", "en_US").attr("gmtOffset", "0"));

        Map<String, Integer> table = new LinkedHashMap<>();
        collect(root, table);
        Out p = new Out().varint(0).varint(START_NANOS).varint(0).varint(1).varint(table.size());
        table.keySet().forEach(p::string);
        element(p, root, table);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeEvent(out, p.toByteArray());
        return out.toByteArray();
    }

    private static void collect(El e, Map<String, Integer> table) {
        table.putIfAbsent(e.name, table.size());
        e.attrs.forEach((k, v) -> {
            table.putIfAbsent(k, table.size());
            table.putIfAbsent(v, table.size());
        });
        e.children.forEach(c -> collect(c, table));
    }

    private static void element(Out p, El e, Map<String, Integer> table) {
        p.varint(table.get(e.name)).varint(e.attrs.size());
        e.attrs.forEach((k, v) -> p.varint(table.get(k)).varint(table.get(v)));
        p.varint(e.children.size());
        e.children.forEach(c -> element(p, c, table));
    }

    // ---- encoding ------------------------------------------------------------------------------

    /** A record: its size (a varint counting itself), then the payload. */
    private static void writeEvent(ByteArrayOutputStream out, byte[] payload) {
        int total = payload.length + 1;
        while (new Out().varint(total).toByteArray().length + payload.length != total) {
            total = payload.length + new Out().varint(total).toByteArray().length;
        }
        out.writeBytes(new Out().varint(total).toByteArray());
        out.writeBytes(payload);
    }

    private static final class Out {
        private final ByteArrayOutputStream b = new ByteArrayOutputStream();

        Out varint(long v) {
            for (int i = 0; i < 8; i++) {
                if ((v & ~0x7FL) == 0) {
                    b.write((int) v);
                    return this;
                }
                b.write((int) ((v & 0x7F) | 0x80));
                v >>>= 7;
            }
            b.write((int) v);
            return this;
        }

        Out byte1(int v) {
            b.write(v);
            return this;
        }

        Out string(String s) {
            if (s.isEmpty()) {
                return byte1(1);
            }
            byte[] u = s.getBytes(StandardCharsets.UTF_8);
            byte1(3).varint(u.length);
            b.writeBytes(u);
            return this;
        }

        byte[] toByteArray() {
            return b.toByteArray();
        }
    }
}

package dev.candor.model;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The agent's machine-readable counters, as written by the {@code stats=FILE.json} option.
 *
 * <p>Every tick lands in exactly one bucket, so {@code ticks = recorded + dropped + Σ failures}
 * ({@link #identityHolds()}). Unknown fields are ignored, so newer agents stay readable.
 *
 * @param engine               {@code cpu}, {@code ctimer} or {@code itimer}
 * @param signal               the signal name, e.g. {@code SIGVTALRM}
 * @param intervalNs           the requested interval
 * @param ticks                signals handled
 * @param recorded             ticks that became a recorded Java stack
 * @param dropped              ticks lost because the sample ring was full
 * @param failures             failure bucket name → ticks
 * @param threads              threads profiled
 * @param durationNs           wall time profiled
 * @param processCpuNs         CPU time of the whole process while profiling
 * @param profiledCpuNs        CPU time of the profiled threads
 * @param samplesPerCpuSecond  achieved rate: ticks per CPU-second of the profiled threads
 * @param threadKinds          kind → number of threads, when the agent reports it (else empty)
 * @param perThread            one entry per profiled thread
 */
public record ProfileStats(
        String engine,
        String signal,
        long intervalNs,
        long ticks,
        long recorded,
        long dropped,
        Map<String, Long> failures,
        long threads,
        long durationNs,
        long processCpuNs,
        long profiledCpuNs,
        double samplesPerCpuSecond,
        Map<String, Long> threadKinds,
        List<ThreadStats> perThread) {

    /**
     * One profiled thread.
     *
     * @param tid   the OS thread id
     * @param name  the Java thread name
     * @param kind  e.g. {@code java}, {@code gc}, {@code compiler}
     * @param cpuNs CPU time of the thread while profiled
     * @param ticks ticks that hit this thread, whatever bucket they landed in
     * @param recorded ticks of this thread that became a recorded Java stack, or -1 when the
     *              agent does not report it
     */
    public record ThreadStats(long tid, String name, String kind, long cpuNs, long ticks, long recorded) {
        /** Ticks per CPU-second of this thread (0 when no CPU time was measured). */
        public double samplesPerCpuSecond() {
            return cpuNs <= 0 ? 0.0 : ticks * 1e9 / cpuNs;
        }
    }

    public ProfileStats {
        Objects.requireNonNull(engine, "engine");
        failures = Collections.unmodifiableMap(new LinkedHashMap<>(failures));
        threadKinds = Collections.unmodifiableMap(new LinkedHashMap<>(threadKinds));
        perThread = List.copyOf(perThread);
    }

    /** Sum of all failure buckets. */
    public long failureTotal() {
        long n = 0;
        for (long v : failures.values()) {
            n += v;
        }
        return n;
    }

    /** {@code recorded + dropped + Σ failures}. */
    public long accountedTicks() {
        return recorded + dropped + failureTotal();
    }

    /** Whether {@code ticks = recorded + dropped + Σ failures} exactly. */
    public boolean identityHolds() {
        return ticks == accountedTicks();
    }

    /** Fraction of ticks that became recorded stacks (0 when there were no ticks). */
    public double recordedFraction() {
        return ticks == 0 ? 0.0 : (double) recorded / ticks;
    }

    /** Count of one failure bucket (0 when absent). */
    public long failure(String bucket) {
        return failures.getOrDefault(bucket, 0L);
    }

    /** The per-thread entry with this name; empty if absent or not unique. */
    public Optional<ThreadStats> thread(String name) {
        List<ThreadStats> found = perThread.stream().filter(t -> name.equals(t.name())).toList();
        return found.size() == 1 ? Optional.of(found.get(0)) : Optional.empty();
    }

    /** The per-thread entry with this OS thread id. */
    public Optional<ThreadStats> thread(long tid) {
        return perThread.stream().filter(t -> t.tid() == tid).findFirst();
    }

    // ---- reading ---------------------------------------------------------------------------

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .build();

    // The wire form: boxed so that a missing field can be told from a zero.
    private record Wire(String engine, String signal, Long intervalNs, Long ticks, Long recorded,
                        Long dropped, Map<String, Long> failures, Long threads, Long durationNs,
                        Long processCpuNs, Long profiledCpuNs, Double samplesPerCpuSecond,
                        JsonNode threadKinds, List<WireThread> perThread) {
    }

    private record WireThread(Long tid, String name, String kind, Long cpuNs, Long ticks, Long recorded) {
    }

    /** Reads a stats JSON file. */
    public static ProfileStats read(Path file) throws IOException {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return parse(r, file.toString());
        }
    }

    /** Parses stats JSON text; errors name the source {@code <string>}. */
    public static ProfileStats parse(String json) throws ProfileFormatException {
        try {
            return parse(new StringReader(json), "<string>");
        } catch (ProfileFormatException e) {
            throw e;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Parses stats JSON.
     *
     * @param source named in error messages, e.g. the file name
     * @throws ProfileFormatException with the line and column of malformed JSON or a value of the
     *                                wrong type, or naming a missing required field
     */
    public static ProfileStats parse(Reader reader, String source) throws IOException {
        Wire w;
        try {
            w = MAPPER.readValue(reader, Wire.class);
        } catch (JsonProcessingException e) {
            throw describe(e, source);
        }
        if (w == null) {
            throw new ProfileFormatException(source, 0, "expected a JSON object, found null");
        }
        List<ThreadStats> threads = new ArrayList<>();
        if (w.perThread() != null) {
            for (int i = 0; i < w.perThread().size(); i++) {
                WireThread t = w.perThread().get(i);
                if (t == null) {
                    throw new ProfileFormatException(source, 0, "per_thread[" + i + "] is null");
                }
                String where = "per_thread[" + i + "].";
                threads.add(new ThreadStats(
                        require(t.tid(), where + "tid", source),
                        t.name() == null ? "" : t.name(),
                        t.kind() == null ? "" : t.kind(),
                        require(t.cpuNs(), where + "cpu_ns", source),
                        require(t.ticks(), where + "ticks", source),
                        t.recorded() == null ? -1 : t.recorded()));
            }
        }
        Map<String, Long> failures = new LinkedHashMap<>();
        if (w.failures() == null) {
            throw new ProfileFormatException(source, 0, "missing required field 'failures'");
        }
        for (Map.Entry<String, Long> e : w.failures().entrySet()) {
            if (e.getValue() == null) {
                throw new ProfileFormatException(source, 0, "failures." + e.getKey() + " is null");
            }
            failures.put(e.getKey(), e.getValue());
        }
        return new ProfileStats(
                requireText(w.engine(), "engine", source),
                w.signal() == null ? "" : w.signal(),
                require(w.intervalNs(), "interval_ns", source),
                require(w.ticks(), "ticks", source),
                require(w.recorded(), "recorded", source),
                require(w.dropped(), "dropped", source),
                failures,
                orZero(w.threads()),
                orZero(w.durationNs()),
                orZero(w.processCpuNs()),
                orZero(w.profiledCpuNs()),
                w.samplesPerCpuSecond() == null ? 0.0 : w.samplesPerCpuSecond(),
                kinds(w.threadKinds()),
                threads);
    }

    private static long require(Long v, String field, String source) throws ProfileFormatException {
        if (v == null) {
            throw new ProfileFormatException(source, 0, "missing required field '" + field + "'");
        }
        return v;
    }

    private static String requireText(String v, String field, String source) throws ProfileFormatException {
        if (v == null) {
            throw new ProfileFormatException(source, 0, "missing required field '" + field + "'");
        }
        return v;
    }

    private static long orZero(Long v) {
        return v == null ? 0L : v;
    }

    // thread_kinds is informational; accept an object of integers and ignore any other shape.
    private static Map<String, Long> kinds(JsonNode node) {
        Map<String, Long> out = new LinkedHashMap<>();
        if (node != null && node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> it = node.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getValue().isIntegralNumber()) {
                    out.put(e.getKey(), e.getValue().longValue());
                }
            }
        }
        return out;
    }

    private static ProfileFormatException describe(JsonProcessingException e, String source) {
        JsonLocation loc = e.getLocation();
        int line = loc == null ? 0 : Math.max(loc.getLineNr(), 0);
        StringBuilder detail = new StringBuilder();
        if (loc != null && loc.getColumnNr() > 0 && line > 0) {
            // ProfileFormatException prefixes "source:line: "; add the column as "col N: "
            detail.append("column ").append(loc.getColumnNr()).append(": ");
        }
        if (e instanceof JsonParseException) {
            detail.append("malformed JSON: ");
        } else if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
            detail.append("field '").append(path(m)).append("': ");
        }
        String msg = e.getOriginalMessage();
        int nl = msg == null ? -1 : msg.indexOf('\n');
        detail.append(nl >= 0 ? msg.substring(0, nl) : msg);
        return new ProfileFormatException(source, line, detail.toString(), e);
    }

    private static String path(JsonMappingException m) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference r : m.getPath()) {
            if (r.getFieldName() != null) {
                if (sb.length() > 0) {
                    sb.append('.');
                }
                sb.append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.toString();
    }
}

package dev.candor.model;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;
import io.opentelemetry.proto.profiles.v1development.ValueType;
import io.opentelemetry.proto.resource.v1.Resource;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Writes an OpenTelemetry profiles message: an {@code ExportProfilesServiceRequest} of
 * opentelemetry-proto's {@code profiles/v1development}, binary protobuf as an OTLP exporter sends
 * it, encoded by the official generated classes (the format is still changing; their version is
 * the one this writer was checked against).
 *
 * <p>One resource ({@code service.name}), one scope ({@code candor} and its version), one profile
 * whose sample type follows {@link Profile#unit()}: {@code samples/count}, {@code alloc_space/bytes}
 * or {@code lock_time/nanoseconds}; its attributes name the events, filters and damage. A function
 * per method (name {@code package.Class.method}; the system name adds a Java method's descriptor),
 * a location per method and line with the semantic conventions' {@code profile.frame.type}
 * ({@code jvm}, {@code native}, {@code kernel}). Frames that are no code have none but
 * {@code candor.frame.kind}: {@code pseudo} for candor's pseudo-frames, {@code class} for the class
 * an allocation or lock sample ends in.
 *
 * <p>Samples carry {@code thread.name}, {@code thread.id} when the Java thread id is known (the
 * conventions' "managed" id) and {@code candor.tid}, the id candor shows ({@code [name tid=N]},
 * pprof's {@code tid}), and a string attribute per sample label ({@link Sample#labels()}, e.g.
 * {@code endpoint=/users}, its key as given). Samples of the same stack and attributes are one OTLP sample with a value
 * (and timestamp, when every sample has one) per event. Nothing is dropped: a tick without a stack
 * keeps its pseudo-frame ({@code [gc_active]}) and gets {@code candor.failure=gc_active}, a stack
 * cut at the depth limit keeps its {@code [truncated]} root and gets {@code candor.truncated=true},
 * so totals equal the other outputs'. As for pprof, {@code reverse} does not apply and lines are
 * always kept; {@code threads} adds the {@code [name tid=N]} root location.
 */
public final class OtlpWriter {
    /** The instrumentation scope's name. */
    public static final String SCOPE_NAME = "candor";
    /** Semantic-convention keys. */
    public static final String SERVICE_NAME = "service.name";
    public static final String THREAD_NAME = "thread.name";
    public static final String THREAD_ID = "thread.id";
    public static final String FRAME_TYPE = "profile.frame.type";
    /** candor's keys, for what the conventions have no word for. */
    public static final String FRAME_KIND = "candor.frame.kind";
    public static final String TID = "candor.tid";
    public static final String FAILURE = "candor.failure";
    public static final String TRUNCATED = "candor.truncated";
    public static final String EVENTS = "candor.events";
    public static final String FILTERS = "candor.filters";
    public static final String DAMAGE = "candor.damage";
    /** What an OpenTelemetry SDK calls a service it was not told the name of, for a Java process. */
    public static final String UNKNOWN_SERVICE = "unknown_service:java";

    private OtlpWriter() {
    }

    /** Writes the message; {@code service.name} from OTEL_SERVICE_NAME, as OpenTelemetry SDKs take it. */
    public static void write(Profile profile, ReportOptions options, OutputStream out) throws IOException {
        request(profile, options, System.getenv("OTEL_SERVICE_NAME")).writeTo(out);
    }

    /** The message for a profile; {@code serviceName} may be null or blank (then {@link #UNKNOWN_SERVICE}). */
    public static ExportProfilesServiceRequest request(Profile profile, ReportOptions options, String serviceName) {
        OtlpDictionary dict = new OtlpDictionary();
        String[] type = sampleType(profile.unit());
        var otlp = io.opentelemetry.proto.profiles.v1development.Profile.newBuilder()
                .setSampleType(ValueType.newBuilder().setTypeStrindex(dict.string(type[0]))
                        .setUnitStrindex(dict.string(type[1])));
        new Samples(dict, options.threads(), profile.hasTimes()).addAll(profile.samples())
                .forEach(otlp::addSamples);
        times(profile, otlp);
        otlp.addAttributeIndices(dict.attribute(EVENTS, String.join(", ", profile.eventTypes())));
        if (!profile.filters().isEmpty()) {
            otlp.addAttributeIndices(dict.attribute(FILTERS, String.join(", ", profile.filters())));
        }
        profile.damage().ifPresent(d -> otlp.addAttributeIndices(dict.attribute(DAMAGE, d.toString())));

        String service = serviceName == null || serviceName.isBlank() ? UNKNOWN_SERVICE : serviceName.strip();
        InstrumentationScope.Builder scope = InstrumentationScope.newBuilder().setName(SCOPE_NAME);
        // the jar's manifest has it (candor.jar); classes run from a build directory have none
        String version = OtlpWriter.class.getPackage().getImplementationVersion();
        if (version != null) {
            scope.setVersion(version);
        }
        return ExportProfilesServiceRequest.newBuilder()
                .addResourceProfiles(ResourceProfiles.newBuilder()
                        .setResource(Resource.newBuilder().addAttributes(KeyValue.newBuilder().setKey(SERVICE_NAME)
                                .setValue(AnyValue.newBuilder().setStringValue(service))))
                        .addScopeProfiles(ScopeProfiles.newBuilder().setScope(scope).addProfiles(otlp)))
                .setDictionary(dict.build())
                .build();
    }

    /** Type and unit of the sample values for {@link Profile#unit()}, with pprof's names. */
    static String[] sampleType(String unit) {
        switch (unit) {
            case "bytes":
                return new String[] {"alloc_space", "bytes"};
            case "ns":
                return new String[] {"lock_time", "nanoseconds"};
            default:
                return new String[] {"samples", "count"};
        }
    }

    /** The profile's time range, stretched over its samples: their timestamps should fall within it. */
    private static void times(Profile profile,
                              io.opentelemetry.proto.profiles.v1development.Profile.Builder otlp) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (Sample s : profile.samples()) {
            if (s.hasTime()) {
                first = Math.min(first, s.timeNanos());
                last = Math.max(last, s.timeNanos());
            }
        }
        long start = profile.start().map(Sample::nanos).orElse(Long.MAX_VALUE);
        start = Math.min(start, first);
        if (start == Long.MAX_VALUE) {
            return;  // collapsed input: no time at all
        }
        long end = profile.end().map(Sample::nanos).orElse(Long.MIN_VALUE);
        end = last == Long.MIN_VALUE ? end : Math.max(end, last + 1);  // the range is [start, start + duration)
        otlp.setTimeUnixNano(start);
        if (end > start) {
            otlp.setDurationNano(end - start);
        }
    }

    /** Merges candor's samples into OTLP samples: one per stack and set of attributes. */
    private static final class Samples {
        private final OtlpDictionary dict;
        private final boolean threadRoots;
        private final boolean timed;
        private final Map<StackKey, int[]> stacks = new HashMap<>();  // {stack index, attributes...}
        private final Map<SampledThread, List<Integer>> threads = new HashMap<>();
        private final Map<Map<String, String>, List<Integer>> labelSets = new java.util.IdentityHashMap<>();  // shared maps
        private final Map<List<Integer>, io.opentelemetry.proto.profiles.v1development.Sample.Builder> merged =
                new LinkedHashMap<>();

        Samples(OtlpDictionary dict, boolean threadRoots, boolean timed) {
            this.dict = dict;
            this.threadRoots = threadRoots;
            this.timed = timed;
        }

        List<io.opentelemetry.proto.profiles.v1development.Sample.Builder> addAll(List<Sample> samples) {
            for (Sample s : samples) {
                add(s);
            }
            return new ArrayList<>(merged.values());
        }

        private void add(Sample s) {
            String root = !threadRoots ? null : s.thread() != null ? s.thread().rootFrame() : Frame.UNKNOWN_THREAD_ROOT;
            int[] stack = stacks.computeIfAbsent(new StackKey(s.stack(), root), this::stack);
            List<Integer> thread = s.thread() == null ? List.of() : threads.computeIfAbsent(s.thread(), this::thread);
            List<Integer> labels = s.hasLabels() ? labelSets.computeIfAbsent(s.labels(), this::labels) : List.of();
            // the sample's identity, as the proto defines it: stack index and attribute indices
            List<Integer> key = new ArrayList<>(stack.length + thread.size() + labels.size());
            for (int i : stack) {
                key.add(i);
            }
            key.addAll(thread);
            key.addAll(labels);
            var sample = merged.get(key);
            if (sample == null) {
                sample = io.opentelemetry.proto.profiles.v1development.Sample.newBuilder().setStackIndex(stack[0])
                        .addAllAttributeIndices(key.subList(1, key.size()));
                merged.put(key, sample);
            }
            if (timed) {  // one value per event with its timestamp: the proto's "per-timestamp" shape
                sample.addValues(s.weight()).addTimestampsUnixNano(s.timeNanos());
            } else if (sample.getValuesCount() == 0) {
                sample.addValues(s.weight());
            } else {
                sample.setValues(0, Math.addExact(sample.getValues(0), s.weight()));
            }
        }

        /** {stack index, failure and truncation attribute indices}. */
        private int[] stack(StackKey k) {
            List<Frame> frames = k.frames();
            List<Integer> locations = new ArrayList<>(frames.size() + 1);
            boolean truncated = false;
            for (int i = frames.size() - 1; i >= 0; i--) {  // OTLP: leaf first
                Frame f = frames.get(i);
                locations.add(location(f));
                truncated |= f.isTruncated();
            }
            if (k.threadRoot() != null) {
                locations.add(dict.location(dict.function(k.threadRoot(), k.threadRoot()), 0,
                        List.of(dict.attribute(FRAME_KIND, "pseudo"))));
            }
            List<Integer> out = new ArrayList<>(3);
            out.add(dict.stack(locations));
            // a failure bucket stands where the stack would end, below any context root ([cpu], a thread)
            Frame leaf = frames.get(frames.size() - 1);
            if (leaf.isFailure()) {
                out.add(dict.attribute(FAILURE, leaf.methodName()));
            }
            if (truncated) {
                out.add(dict.attribute(TRUNCATED, true));
            }
            return out.stream().mapToInt(Integer::intValue).toArray();
        }

        private int location(Frame f) {
            String name = f.isKernel() ? f.methodName() : f.name(false);  // the attribute says kernel: no _[k]
            String type = switch (f.type()) {
                case PSEUDO, ALLOCATED -> null;
                case KERNEL -> "kernel";
                default -> f.isNativeCode() ? "native" : "jvm";
            };
            // a descriptor only means something for a Java method: JFR writers give C frames "()V"
            String systemName = "jvm".equals(type) && !f.descriptor().isEmpty() ? name + f.descriptor() : name;
            int kind = type != null ? dict.attribute(FRAME_TYPE, type)
                    : dict.attribute(FRAME_KIND, f.isPseudo() ? "pseudo" : "class");
            return dict.location(dict.function(name, systemName), Math.max(0, f.line()), List.of(kind));
        }

        /** A string attribute per label, in key order. */
        private List<Integer> labels(Map<String, String> labels) {
            List<Integer> out = new ArrayList<>(labels.size());
            labels.forEach((k, v) -> out.add(dict.attribute(k, v)));
            return List.copyOf(out);
        }

        private List<Integer> thread(SampledThread t) {
            List<Integer> out = new ArrayList<>(3);
            if (!t.name().isEmpty()) {
                out.add(dict.attribute(THREAD_NAME, t.name()));
            }
            // candor's agent writes the OS tid where JFR wants the Java id, which it does not know
            if (t.javaThreadId() > 0 && t.javaThreadId() != t.osThreadId()) {
                out.add(dict.attribute(THREAD_ID, t.javaThreadId()));
            }
            if (t.tid() > 0) {
                out.add(dict.attribute(TID, t.tid()));
            }
            return List.copyOf(out);
        }
    }

    private record StackKey(List<Frame> frames, String threadRoot) {
        StackKey {
            Objects.requireNonNull(frames);
        }
    }
}

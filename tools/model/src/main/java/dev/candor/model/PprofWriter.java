package dev.candor.model;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.zip.GZIPOutputStream;

/**
 * Writes a gzipped pprof profile ({@code profile.proto} of github.com/google/pprof), readable by
 * {@code go tool pprof}: sample type {@code samples/count}, one function per method (name
 * {@code package.Class.method}, system name with the descriptor), one location per method and
 * line (lines are always kept; {@code go tool pprof -lines} shows them), a {@code thread} label on every sample
 * and a string label per sample label ({@link Sample#labels()}: {@code endpoint=/users}, which
 * {@code go tool pprof -tags} lists and {@code -tagfocus} filters by). With {@code threads}, the thread root frame is
 * the outermost location too. Pseudo-frames such as {@code [gc_active]} are functions of their
 * own, so failures count as in the other outputs. {@code reverse} does not apply: pprof's
 * viewers show callers themselves.
 */
public final class PprofWriter {
    // profile.proto field numbers
    private static final int PROFILE_SAMPLE_TYPE = 1;
    private static final int PROFILE_SAMPLE = 2;
    private static final int PROFILE_MAPPING = 3;
    private static final int PROFILE_LOCATION = 4;
    private static final int PROFILE_FUNCTION = 5;
    private static final int PROFILE_STRING_TABLE = 6;
    private static final int PROFILE_TIME_NANOS = 9;
    private static final int PROFILE_DURATION_NANOS = 10;
    private static final int PROFILE_PERIOD_TYPE = 11;
    private static final int PROFILE_PERIOD = 12;
    private static final int PROFILE_COMMENT = 13;

    private PprofWriter() {
    }

    /** Writes the gzipped profile. */
    public static void write(Profile profile, ReportOptions options, OutputStream out) throws IOException {
        GZIPOutputStream gz = new GZIPOutputStream(out, 65536);
        gz.write(encode(profile, options));
        gz.finish();
    }

    /** The profile.proto message, not compressed. */
    public static byte[] encode(Profile profile, ReportOptions options) {
        Strings strings = new Strings();
        Map<List<Object>, Long> functions = new LinkedHashMap<>();
        Map<List<Object>, Long> locations = new LinkedHashMap<>();
        List<Protobuf> functionMessages = new ArrayList<>();
        List<Protobuf> locationMessages = new ArrayList<>();

        // Identical (stack, thread, labels) samples become one pprof sample.
        Map<StackKey, long[]> merged = new LinkedHashMap<>();
        for (Sample s : profile.samples()) {
            merged.computeIfAbsent(new StackKey(s.stack(), s.thread(), s.labels()), k -> new long[1])[0] += s.weight();
        }

        long samplesType = strings.id("samples");
        long countUnit = strings.id("count");
        long threadKey = strings.id("thread");
        long tidKey = strings.id("tid");

        Protobuf p = new Protobuf();
        p.message(PROFILE_SAMPLE_TYPE, new Protobuf().int64(1, samplesType).int64(2, countUnit));
        long[] ids = new long[16];
        for (Map.Entry<StackKey, long[]> e : merged.entrySet()) {
            List<Frame> stack = e.getKey().stack();
            SampledThread thread = e.getKey().thread();
            int n = stack.size() + (options.threads() ? 1 : 0);
            if (ids.length < n) {
                ids = new long[Math.max(n, ids.length * 2)];
            }
            int k = 0;
            for (int i = stack.size() - 1; i >= 0; i--) {  // pprof: leaf first
                Frame f = stack.get(i);
                ids[k++] = location(f.name(false), f.isPseudo() ? f.name(false) : f.name(false) + f.descriptor(),
                        Math.max(0, f.line()), strings, functions, locations, functionMessages, locationMessages);
            }
            if (options.threads()) {
                String root = thread != null ? thread.rootFrame() : Frame.UNKNOWN_THREAD_ROOT;
                ids[k++] = location(root, root, 0, strings, functions, locations, functionMessages,
                        locationMessages);
            }
            Protobuf sample = new Protobuf();
            sample.packed(1, ids, k);
            sample.packed(2, new long[] {e.getValue()[0]}, 1);
            if (thread != null) {
                sample.message(3, new Protobuf().int64(1, threadKey).int64(2, strings.id(thread.name())));
                sample.message(3, new Protobuf().int64(1, tidKey).int64(3, thread.tid()));
            }
            for (Map.Entry<String, String> label : e.getKey().labels().entrySet()) {
                sample.message(3, new Protobuf().int64(1, strings.id(label.getKey()))
                        .int64(2, strings.id(label.getValue())));
            }
            p.message(PROFILE_SAMPLE, sample);
        }
        // One mapping that says the functions are symbolized already (no binary to look at).
        p.message(PROFILE_MAPPING, new Protobuf().int64(1, 1).int64(5, strings.id("[jvm]"))
                .int64(7, 1).int64(9, 1).int64(10, 1));
        for (Protobuf l : locationMessages) {
            p.message(PROFILE_LOCATION, l);
        }
        for (Protobuf f : functionMessages) {
            p.message(PROFILE_FUNCTION, f);
        }
        long comment = strings.id("candor report of " + profile.source() + ": " + ReportText.events(profile)
                + (profile.damage().isPresent() ? "; " + profile.damage().get() : ""));
        if (profile.start().isPresent()) {
            p.int64(PROFILE_TIME_NANOS, Sample.nanos(profile.start().get()));
            if (profile.end().isPresent()) {
                p.int64(PROFILE_DURATION_NANOS,
                        Sample.nanos(profile.end().get()) - Sample.nanos(profile.start().get()));
            }
        }
        p.message(PROFILE_PERIOD_TYPE, new Protobuf().int64(1, samplesType).int64(2, countUnit));
        p.int64(PROFILE_PERIOD, 1);
        p.packed(PROFILE_COMMENT, new long[] {comment}, 1);
        for (String s : strings.list) {
            p.string(PROFILE_STRING_TABLE, s);
        }
        return p.toByteArray();
    }

    private static long location(String name, String systemName, int line, Strings strings,
                                 Map<List<Object>, Long> functions, Map<List<Object>, Long> locations,
                                 List<Protobuf> functionMessages, List<Protobuf> locationMessages) {
        List<Object> fkey = List.of(name, systemName);
        Long fid = functions.get(fkey);
        if (fid == null) {
            fid = (long) functions.size() + 1;
            functions.put(fkey, fid);
            functionMessages.add(new Protobuf().int64(1, fid).int64(2, strings.id(name))
                    .int64(3, strings.id(systemName)));
        }
        List<Object> lkey = List.of(fid, line);
        Long lid = locations.get(lkey);
        if (lid == null) {
            lid = (long) locations.size() + 1;
            locations.put(lkey, lid);
            locationMessages.add(new Protobuf().int64(1, lid).int64(2, 1)
                    .message(4, new Protobuf().int64(1, fid).int64(2, line)));
        }
        return lid;
    }

    private record StackKey(List<Frame> stack, SampledThread thread, Map<String, String> labels) {
        StackKey {
            Objects.requireNonNull(stack);
            Objects.requireNonNull(labels);
        }
    }

    /** The string table: index 0 is "", as profile.proto requires. */
    private static final class Strings {
        final List<String> list = new ArrayList<>();
        final Map<String, Long> ids = new HashMap<>();

        Strings() {
            id("");
        }

        long id(String s) {
            Long id = ids.get(s);
            if (id == null) {
                id = (long) list.size();
                list.add(s);
                ids.put(s, id);
            }
            return id;
        }
    }
}

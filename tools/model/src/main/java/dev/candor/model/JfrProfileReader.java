package dev.candor.model;

import jdk.jfr.EventType;
import jdk.jfr.ValueDescriptor;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedObject;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads stack samples from a JFR recording of any producer with the JDK's own parser
 * ({@code jdk.jfr.consumer.RecordingFile}): every event type with a {@code stackTrace} field
 * becomes a choice ({@code jdk.ExecutionSample}, JDK 25's {@code jdk.CPUTimeSample},
 * async-profiler's {@code jdk.NativeMethodSample}, ...).
 *
 * <p>Ticks without a stack stay in the profile as pseudo-frames, so percentages stay honest:
 * candor's own failed-tick events ({@code candor.*} events with a bucket name and optional count)
 * become {@code [bucket]} next to the execution samples, {@code jdk.CPUTimeSample} events that
 * failed to walk become {@code [stack_walk_failed]}, {@code jdk.CPUTimeSamplesLost} becomes
 * {@code [lost_samples]}, samples without a stack trace {@code [no_stack_trace]}, and a stack cut
 * at the recording's depth limit gets a {@code [truncated]} root frame.
 *
 * <p>Labels: an event type of candor's with a {@code labels} string field ("key=value,..." sorted
 * by key, with '%', ',' and '=' escaped as %25, %2C and %3D) gives its samples those labels
 * ({@link Sample#labels()}); a null or empty {@code labels} is none. Recordings of
 * other producers have no such field: their samples have no labels.
 *
 * <p>Damage: the file's framing (chunk headers, record sizes, constant pool links) is walked
 * first ({@link JfrStructure}); intact chunks are parsed one by one, and the samples before the
 * first damage are kept — within a damaged chunk, up to the last constant pool checkpoint that
 * precedes the damage. The {@link Recording#damage()} names the byte offset.
 */
public final class JfrProfileReader {

    /** Pseudo-frame names this reader adds. */
    public static final String NO_STACK = "no_stack_trace";
    public static final String TRUNCATED = "truncated";
    public static final String WALK_FAILED = "stack_walk_failed";
    public static final String LOST = "lost_samples";

    /** Events may start this long before their chunk (long events) or end after it. */
    private static final long TIME_MARGIN_NANOS = 600_000_000_000L;
    private static final String KIND_PREFIX = "candor-kind:";
    /** Which sample event each of candor's samplers writes. */
    /** The event of each of candor's sampler kinds (event=cpu, wall, ...). */
    static final Map<String, String> SAMPLER_EVENTS = Map.of("cpu", "jdk.ExecutionSample",
            "wall", "candor.WallClockSample", "safepoint", "candor.SafepointSample",
            "handshake", "candor.HandshakeSample");
    /** The events of candor's value kinds, whose drops count in bytes or ns. */
    private static final Map<String, String> VALUE_EVENTS = Map.of("alloc", "jdk.ObjectAllocationSample",
            "lock", "jdk.JavaMonitorEnter");
    private static final Pattern JDK_POSITION = Pattern.compile("at position (\\d+)");
    private static final List<String> BUCKET_FIELDS = List.of("bucket", "reason", "failure", "kind", "name", "type");
    private static final List<String> COUNT_FIELDS = List.of("count", "ticks", "samples", "weight");
    /** The field of candor's sample events with the thread's labels. */
    public static final String LABELS_FIELD = "labels";

    private final Path file;
    private final Map<String, List<Sample>> byEvent = new LinkedHashMap<>();
    private final List<Sample> candorFailures = new ArrayList<>();
    private final Map<Frame, Frame> frames = new HashMap<>();
    private final Map<List<Frame>, List<Frame>> stacks = new HashMap<>();
    private final Map<SampledThread, SampledThread> threads = new HashMap<>();
    private final Map<SortedMap<String, String>, SortedMap<String, String>> labelSets = new HashMap<>();
    private long countersTime = Long.MIN_VALUE;
    private long dropped = -1;
    private String droppedByKind;  // candor's per-kind drops ("cpu=3,alloc=2:1048576"), when the file has them
    private long minStart = Long.MAX_VALUE;
    private long maxEnd = Long.MIN_VALUE;
    private Path tempDir;

    private JfrProfileReader(Path file) {
        this.file = file;
    }

    /** Whether the file starts with the JFR magic bytes. */
    public static boolean isJfr(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return JfrStructure.hasMagic(JfrStructure.read(ch, 0, 4));
        }
    }

    /**
     * Reads the samples of a JFR file.
     *
     * @throws ProfileFormatException when the file is not a JFR recording at all
     * @throws IOException            when it cannot be read
     */
    public static Recording read(Path file) throws IOException {
        JfrProfileReader r = new JfrProfileReader(file);
        try {
            return r.run();
        } finally {
            r.deleteTemp();
        }
    }

    private Recording run() throws IOException {
        JfrStructure.Scan scan;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            scan = JfrStructure.scan(ch);
            if (scan.intact().isEmpty() && scan.damagedChunk() == null && scan.damage() != null
                    && scan.damage().offset() == 0) {
                throw new ProfileFormatException(file.toString(), 0, scan.damage().message());
            }
            Damage damage = null;
            boolean wholeFile = scan.damage() == null && scan.intact().size() == 1;
            for (JfrStructure.Chunk c : scan.intact()) {
                damage = parseIntact(ch, c, wholeFile);
                if (damage != null) {
                    break;
                }
            }
            if (damage == null && scan.damage() != null) {
                damage = scan.damage();
                if (scan.damagedChunk() != null) {
                    Damage around = recoverAround(ch, scan.damagedChunk(), damage);
                    if (around != null) {
                        damage = around;
                    } else {
                        recoverPrefix(ch, scan.damagedChunk(), damage.offset());
                    }
                }
            }
            attachCandorFailures();
            byEvent.values().removeIf(list -> list.stream().allMatch(x -> x.isFailure()
                    && x.leaf().methodName().equals(NO_STACK)));
            Instant start = minStart == Long.MAX_VALUE ? null : Instant.ofEpochSecond(0, minStart);
            Instant end = maxEnd == Long.MIN_VALUE ? null : Instant.ofEpochSecond(0, maxEnd);
            return new Recording(file.toString(), "jfr", byEvent, start, end, damage);
        }
    }

    // ---- parsing chunks ------------------------------------------------------------------

    /** What one parse of a chunk gave: the samples read, and the failure, if any. */
    private static final class Attempt {
        final Map<String, List<Sample>> samples = new LinkedHashMap<>();
        final List<Sample> failures = new ArrayList<>();
        boolean opened;
        long eventsRead;
        Throwable error;
        /** Set when an event fails the sanity checks: the event record where the damage shows. */
        JfrStructure.Rec badRecord;
        String badReason;
        long countersTime = Long.MIN_VALUE;
        long dropped = -1;
        String droppedByKind;
        long minStart = Long.MAX_VALUE;
        long maxEnd = Long.MIN_VALUE;
    }

    // Parses a structurally intact chunk; returns the damage when the JDK parser fails on it.
    private Damage parseIntact(FileChannel ch, JfrStructure.Chunk c, boolean wholeFile) throws IOException {
        boolean finished = c.header.get(JfrStructure.FILE_STATE_POSITION) == 0;
        Path input = wholeFile && finished ? file : copyChunk(ch, c, c.end(), c.cpPos, c.mdPos);
        Attempt a = parse(input, c, c.end());
        noteChunkTimes(c);
        if (a.error == null && a.badReason == null) {
            merge(a);
            return null;
        }
        if (a.error == null) {
            merge(a);  // the events before the bad one
            long at = a.badRecord != null ? a.badRecord.offset() : c.start;
            return new Damage(at, (a.badRecord != null ? "the event record at byte " + at + " of " + c.describe()
                    : c.describe()) + " is damaged: " + a.badReason);
        }
        // Content damage: keep what was read before it and say where it is.
        String why = describe(a.error);
        if (a.opened) {
            merge(a);
            List<JfrStructure.Rec> events = c.eventRecords();
            long failing = a.eventsRead + 1;  // RecordingFile reads one event ahead
            if (failing < events.size()) {
                JfrStructure.Rec r = events.get((int) failing);
                return new Damage(r.offset(), "the event record at byte " + r.offset() + " (type id " + r.type()
                        + ") of " + c.describe() + " cannot be parsed: " + why);
            }
            return new Damage(c.start, c.describe() + " cannot be parsed after " + a.eventsRead + " events: " + why);
        }
        long at = -1;
        Matcher m = JDK_POSITION.matcher(why);
        if (m.find()) {
            try {
                at = c.start + Long.parseLong(m.group(1));
            } catch (NumberFormatException e) {
                at = -1;
            }
        }
        JfrStructure.Rec md = c.recordAt(c.start + c.mdPos);
        if (at < 0 && md != null && thrownBy(a.error, "Metadata")) {
            recoverPrefix(ch, c, md.offset());
            return new Damage(md.offset(), "the metadata record at byte " + md.offset() + " (" + md.size()
                    + " bytes) of " + c.describe() + " cannot be parsed: " + why);
        }
        JfrStructure.Rec firstBad = recoverPrefix(ch, c, at >= 0 ? at : c.end());
        if (at >= 0) {
            return new Damage(at, c.describe() + " cannot be parsed: " + why);
        }
        if (firstBad != null) {
            return new Damage(firstBad.offset(), "the constant pool record at byte " + firstBad.offset() + " ("
                    + firstBad.size() + " bytes) of " + c.describe() + " cannot be parsed: " + why);
        }
        return new Damage(c.start, c.describe() + " cannot be parsed: " + why);
    }

    private static boolean thrownBy(Throwable t, String classPart) {
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getClassName().startsWith("jdk.jfr.internal") && e.getClassName().contains(classPart)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Within a chunk whose records stop making sense at byte {@code damage.offset()}, but whose
     * header, metadata and constant pool links are intact: replaces the bytes from there to the
     * next constant pool checkpoint with one filler record that parsers skip, so that the events
     * before the damage can be parsed with their stacks and threads, which JFR writes in
     * checkpoints after them. The events before the damage are kept; if some of them prove
     * damaged too (unknown type, times outside the chunk), only those before the first are, and
     * the damage is reported there. Returns the damage to report, or null when this does not
     * apply or the parser still fails.
     */
    private Damage recoverAround(FileChannel ch, JfrStructure.Chunk c, Damage damage) throws IOException {
        long x = damage.offset();
        if (!c.compressed || c.end() > ch.size() || x <= c.start + JfrStructure.HEADER_SIZE || x >= c.end()) {
            return null;
        }
        List<JfrStructure.Rec> cps = JfrStructure.checkpointsFromHeader(ch, c);
        JfrStructure.Rec md = JfrStructure.readRecord(ch, c, c.start + c.mdPos);
        if (cps == null || md == null || md.type() != 0) {
            return null;
        }
        long next = Long.MAX_VALUE;
        for (JfrStructure.Rec r : cps) {
            if (r.offset() >= x) {
                next = Math.min(next, r.offset());
            }
        }
        long fill = next - x;
        if (next == Long.MAX_VALUE || fill < 6 || fill >= (1L << 35)
                || (md.offset() < next && md.end() > x)) {
            return null;  // no checkpoint after the damage, too little room, or the metadata is inside it
        }
        Path copy = copyChunk(ch, c, c.end(), c.cpPos, c.mdPos);
        try (FileChannel w = FileChannel.open(copy, StandardOpenOption.WRITE)) {
            ByteBuffer filler = ByteBuffer.allocate(6);
            for (int i = 0; i < 4; i++) {
                filler.put((byte) (((fill >>> (7 * i)) & 0x7f) | 0x80));  // padded varint: the size
            }
            filler.put((byte) (fill >>> 28));
            filler.put((byte) 0);  // type id 0 (metadata): skipped where it is not the header's metadata
            filler.flip();
            w.write(filler, x - c.start);
        }
        Attempt a = parse(copy, c, x);
        if (a.error != null && !a.opened) {
            return null;
        }
        merge(a);
        noteChunkTimes(c);
        String stop = " (the records stop making sense at byte " + x + ": " + damage.message() + ")";
        if (a.error != null) {
            List<JfrStructure.Rec> events = c.eventRecords();
            long failing = a.eventsRead + 1;  // RecordingFile reads one event ahead
            if (failing < events.size() && events.get((int) failing).offset() < x) {
                JfrStructure.Rec r = events.get((int) failing);
                return new Damage(r.offset(), "the event record at byte " + r.offset() + " (type id " + r.type()
                        + ") of " + c.describe() + " cannot be parsed: " + describe(a.error) + stop);
            }
            return damage;
        }
        if (a.badReason != null && a.badRecord != null && a.badRecord.offset() < x) {
            return new Damage(a.badRecord.offset(), "the event record at byte " + a.badRecord.offset() + " of "
                    + c.describe() + " is damaged: " + a.badReason + stop);
        }
        return damage;
    }

    /**
     * Within a chunk damaged at {@code damageAt}, parses the longest prefix that ends with a
     * constant pool checkpoint (which carries the stacks and threads of the events before it)
     * and keeps its samples. Returns the first checkpoint found not to parse (the damage is in or
     * before it), or null.
     */
    private JfrStructure.Rec recoverPrefix(FileChannel ch, JfrStructure.Chunk c, long damageAt) throws IOException {
        JfrStructure.Rec md = null;
        List<JfrStructure.Rec> cps = new ArrayList<>();
        for (JfrStructure.Rec r : c.records) {
            if (r.end() > damageAt) {
                break;
            }
            if (r.type() == 0) {
                md = r;
            } else if (r.type() == 1 && JfrStructure.checkpointChain(ch, c, r) == null) {
                cps.add(r);
            }
        }
        if (md == null || cps.isEmpty()) {
            return null;
        }
        // The last checkpoint first (a cut file); else a binary search for the longest prefix that parses.
        Attempt best = tryPrefix(ch, c, cps.get(cps.size() - 1), md);
        int lo = 0;
        int hi = best == null ? cps.size() - 2 : -1;
        int firstBad = best == null ? cps.size() - 1 : -1;
        for (int tries = 0; lo <= hi && tries < 12; tries++) {
            int mid = (lo + hi) >>> 1;
            Attempt a = tryPrefix(ch, c, cps.get(mid), md);
            if (a != null) {
                best = a;
                lo = mid + 1;
            } else {
                hi = mid - 1;
                firstBad = mid;
            }
        }
        if (best != null) {
            merge(best);
            noteChunkTimes(c);
        }
        return firstBad >= 0 ? cps.get(firstBad) : null;
    }

    private Attempt tryPrefix(FileChannel ch, JfrStructure.Chunk c, JfrStructure.Rec cp, JfrStructure.Rec md)
            throws IOException {
        long end = Math.max(cp.end(), md.end());
        Attempt a = parse(copyChunk(ch, c, end, cp.offset() - c.start, md.offset() - c.start), c, end);
        return a.error == null && a.badReason == null ? a : null;
    }

    /**
     * Parses one chunk file with the JDK's parser. Besides the parser's own errors, two checks
     * catch damage it would pass over silently (JFR has no checksums): every event record must
     * have a type the chunk's metadata defines (the parser skips unknown ones), and every event
     * must lie in the chunk's time span (garbage read as an event has wild times). Events from
     * the first one failing a check on are not kept.
     */
    private Attempt parse(Path chunkFile, JfrStructure.Chunk c, long end) {
        Attempt a = new Attempt();
        Map<EventType, Kind> kinds = new IdentityHashMap<>();
        Map<RecordedStackTrace, List<Frame>> stackCache = new IdentityHashMap<>();
        Map<String, SortedMap<String, String>> labelCache = new HashMap<>();
        List<JfrStructure.Rec> events = new ArrayList<>();
        for (JfrStructure.Rec r : c.eventRecords()) {
            if (r.end() <= end) {
                events.add(r);
            }
        }
        long lo = c.startNanos - TIME_MARGIN_NANOS;
        long hi = c.durationNanos > 0 ? c.startNanos + c.durationNanos + TIME_MARGIN_NANOS : Long.MAX_VALUE;
        try (RecordingFile rf = new RecordingFile(chunkFile)) {
            a.opened = true;
            java.util.Set<Long> known = new java.util.HashSet<>();
            for (EventType t : rf.readEventTypes()) {
                known.add(t.getId());
            }
            long limit = events.size();
            for (int i = 0; i < events.size(); i++) {
                if (!known.contains(events.get(i).type())) {
                    limit = i;
                    a.badRecord = events.get(i);
                    a.badReason = "it has type id " + events.get(i).type() + ", which the chunk's metadata does not define";
                    break;
                }
            }
            while (a.eventsRead < limit && rf.hasMoreEvents()) {
                RecordedEvent e = rf.readEvent();
                int index = (int) a.eventsRead;
                a.eventsRead++;
                if (c.startNanos > 0 && !inSpan(e, lo, hi)) {
                    a.badRecord = index < events.size() ? events.get(index) : null;
                    a.badReason = "its event (" + e.getEventType().getName() + ") has times outside the chunk's span";
                    break;
                }
                accept(a, e, kinds, stackCache, labelCache);
            }
        } catch (IOException | RuntimeException | Error e) {
            // The JDK's JFR parser reports malformed input as InternalError (a VirtualMachineError,
            // e.g. "Pool int must contain at least one element"): that is damage, not a broken VM.
            if (e instanceof VirtualMachineError && !(e instanceof OutOfMemoryError)
                    && !(e instanceof StackOverflowError) && !(e instanceof InternalError)) {
                throw (Error) e;
            }
            a.error = e;
        }
        return a;
    }

    private static boolean inSpan(RecordedEvent e, long lo, long hi) {
        try {
            long start = Sample.nanos(e.getStartTime());
            long endTime = Sample.nanos(e.getEndTime());
            return endTime >= start && endTime >= lo && start <= hi;
        } catch (ArithmeticException | java.time.DateTimeException x) {
            return false;
        }
    }

    private void merge(Attempt a) {
        a.samples.forEach((k, v) -> byEvent.computeIfAbsent(k, x -> new ArrayList<>()).addAll(v));
        candorFailures.addAll(a.failures);
        if (a.dropped >= 0 && a.countersTime >= countersTime) {
            countersTime = a.countersTime;
            dropped = a.dropped;
            droppedByKind = a.droppedByKind;
        }
        minStart = Math.min(minStart, a.minStart);
        maxEnd = Math.max(maxEnd, a.maxEnd);
    }

    private void noteChunkTimes(JfrStructure.Chunk c) {
        if (c.startNanos > 0) {
            minStart = Math.min(minStart, c.startNanos);
            if (c.durationNanos > 0) {
                maxEnd = Math.max(maxEnd, c.startNanos + c.durationNanos);
            }
        }
    }

    // A copy of the chunk's bytes [start, end) with the header patched to match: size, constant
    // pool and metadata positions, and the file state "finished" (the JDK's parser would
    // otherwise wait for a writer to finish the chunk).
    private Path copyChunk(FileChannel ch, JfrStructure.Chunk c, long end, long cpPos, long mdPos) throws IOException {
        if (tempDir == null) {
            tempDir = Files.createTempDirectory("candor-report-");
        }
        Path out = Files.createTempFile(tempDir, "chunk-" + c.number + "-", ".jfr");
        ByteBuffer header = c.header.duplicate();
        header.position(0);
        ByteBuffer h = ByteBuffer.allocate(JfrStructure.HEADER_SIZE);
        h.put(header);
        h.putLong(8, end - c.start);
        h.putLong(16, cpPos);
        h.putLong(24, mdPos);
        h.put(JfrStructure.FILE_STATE_POSITION, (byte) 0);
        h.flip();
        try (FileChannel w = FileChannel.open(out, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            while (h.hasRemaining()) {
                w.write(h);
            }
            long from = c.start + JfrStructure.HEADER_SIZE;
            long n = end - from;
            long done = 0;
            while (done < n) {
                long t = ch.transferTo(from + done, n - done, w);
                if (t <= 0) {
                    throw new IOException("short read copying " + c.describe());
                }
                done += t;
            }
        }
        return out;
    }

    private void deleteTemp() {
        if (tempDir == null) {
            return;
        }
        try (var files = Files.list(tempDir)) {
            files.forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort
        }
        tempDir.toFile().delete();
    }

    private static String describe(Throwable t) {
        String m = t.getMessage();
        String s = m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
        if (t instanceof OutOfMemoryError) {
            s = "a damaged size made the parser run out of memory";
        }
        s = s.replaceAll("\\s+", " ").strip();
        return s.length() > 200 ? s.substring(0, 197) + "..." : s;
    }

    // ---- events to samples ---------------------------------------------------------------

    private enum Kind { STACK, CPU_TIME, ALLOC, LOCK, LOST, CANDOR_FAILURE, CANDOR_COUNTERS, IGNORE }

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

    private static Kind kindOf(EventType t) {
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

    private static String bucketField(EventType t) {
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

    private static String countField(EventType t) {
        for (String f : COUNT_FIELDS) {
            ValueDescriptor d = t.getField(f);
            if (d != null && List.of("long", "int", "short").contains(d.getTypeName())) {
                return f;
            }
        }
        return null;
    }

    private void accept(Attempt a, RecordedEvent e, Map<EventType, Kind> kinds,
                        Map<RecordedStackTrace, List<Frame>> stackCache,
                        Map<String, SortedMap<String, String>> labelCache) {
        EventType type = e.getEventType();
        String name = type.getName();
        Kind kind = kinds.computeIfAbsent(type, JfrProfileReader::kindOf);
        if (kind == Kind.IGNORE) {
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
        SortedMap<String, String> labels = labels(e, labelCache);
        switch (kind) {
            case STACK:
            case CPU_TIME: {
                List<Frame> stack;
                if (kind == Kind.CPU_TIME && e.hasField("failed") && e.getBoolean("failed")) {
                    stack = pseudoStack(WALK_FAILED);
                } else {
                    stack = stack(e.getStackTrace(), stackCache);
                }
                a.samples.computeIfAbsent(name, k -> new ArrayList<>()).add(new Sample(time, thread, name, stack, 1, labels));
                break;
            }
            case ALLOC: {
                // the allocated class on top of the stack, and the bytes the sample stands for as its weight
                long bytes = Math.max(0, e.getLong(ALLOC_EVENTS.get(name)));
                RecordedClass c = e.getClass("objectClass");
                List<Frame> stack = new ArrayList<>(stack(e.getStackTrace(), stackCache));
                if (stack.size() == 1 && stack.get(0).isPseudo() && stack.get(0).methodName().equals(NO_STACK)) {
                    stack.clear();  // an allocation without a Java stack: the class alone
                }
                stack.add(frame(Frame.allocated(c == null ? "[unknown class]" : javaClassName(c.getName()))));
                a.samples.computeIfAbsent(name, k -> new ArrayList<>()).add(new Sample(time, thread, name, stack, bytes, labels));
                break;
            }
            case LOCK: {
                // the lock's class on top of the stack, and the nanoseconds waited as its weight
                long ns = Math.max(0, e.getDuration().toNanos());
                RecordedClass c = e.getClass(LOCK_EVENTS.get(name));
                List<Frame> stack = new ArrayList<>(stack(e.getStackTrace(), stackCache));
                if (stack.size() == 1 && stack.get(0).isPseudo() && stack.get(0).methodName().equals(NO_STACK)) {
                    stack.clear();
                }
                stack.add(frame(Frame.allocated(c == null ? "[unknown class]" : javaClassName(c.getName()))));
                a.samples.computeIfAbsent(name, k -> new ArrayList<>()).add(new Sample(time, thread, name, stack, ns, labels));
                break;
            }
            case LOST: {
                long lost = e.getLong("lostSamples");
                if (lost > 0) {
                    a.samples.computeIfAbsent("jdk.CPUTimeSample", k -> new ArrayList<>())
                            .add(new Sample(time, thread, "jdk.CPUTimeSample", pseudoStack(LOST), lost));
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
                String bucket = e.getString(bucketField(type));
                String cf = countField(type);
                long count = cf == null ? 1 : e.getLong(cf);
                if (count > 0) {
                    String b = bucket == null || bucket.isBlank() ? "unknown_failure" : bucket.strip();
                    if (Frame.isPseudoText(b) && b.length() > 2) {
                        b = b.substring(1, b.length() - 1);
                    }
                    // candor's FailedTick says which sampler took the tick (cpu, wall, ...)
                    String sampler = type.getField("kind") != null && !"kind".equals(bucketField(type))
                            ? e.getString("kind") : null;
                    a.failures.add(new Sample(time, thread, sampler == null ? name : KIND_PREFIX + sampler,
                            pseudoStack(b), count, labels));
                }
                break;
            }
            default:
                break;
        }
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
        if (!e.hasField(LABELS_FIELD) || !(e.getValue(LABELS_FIELD) instanceof String text) || text.isEmpty()) {
            return Sample.NO_LABELS;
        }
        return cache.computeIfAbsent(text, t -> labelSets.computeIfAbsent(parseLabels(t), k -> k));
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

    private List<Frame> pseudoStack(String name) {
        return stacks.computeIfAbsent(List.of(frame(Frame.pseudo(name))), k -> k);
    }

    private List<Frame> stack(RecordedStackTrace st, Map<RecordedStackTrace, List<Frame>> cache) {
        if (st == null) {
            return pseudoStack(NO_STACK);
        }
        List<Frame> cached = cache.get(st);
        if (cached != null) {
            return cached;
        }
        List<RecordedFrame> jfr = st.getFrames();
        List<Frame> out = new ArrayList<>(jfr.size() + 1);
        if (st.isTruncated()) {
            out.add(frame(Frame.pseudo(TRUNCATED)));
        }
        for (int i = jfr.size() - 1; i >= 0; i--) {
            out.add(frame(convert(jfr.get(i))));
        }
        List<Frame> result = out.isEmpty() ? pseudoStack(NO_STACK) : stacks.computeIfAbsent(List.copyOf(out), k -> k);
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

    /**
     * candor's failed ticks count beside the samples of the sampler that took them (a FailedTick's
     * {@code kind}: cpu → jdk.ExecutionSample, wall → candor.WallClockSample, ...), and its dropped
     * ticks (the last candor.ProfilerCounters) as {@code [dropped]} beside the CPU samples, so that
     * shares are of all ticks, as in the agent's own outputs.
     */
    private void attachCandorFailures() {
        String fallback = byEvent.containsKey("jdk.ExecutionSample") ? "jdk.ExecutionSample" : null;
        if (fallback == null) {
            for (String n : byEvent.keySet()) {
                if (n.startsWith("candor.") && n.endsWith("Sample")) {
                    fallback = n;
                    break;
                }
            }
        }
        for (Sample s : candorFailures) {
            String target = null;
            if (s.eventType().startsWith(KIND_PREFIX)) {
                String sampler = s.eventType().substring(KIND_PREFIX.length());
                target = SAMPLER_EVENTS.get(sampler);
                if (target == null) {
                    for (String n : byEvent.keySet()) {
                        if (n.toLowerCase().contains(sampler.toLowerCase())) {
                            target = n;
                            break;
                        }
                    }
                }
            }
            if (target == null) {
                target = fallback != null ? fallback
                        : s.eventType().startsWith(KIND_PREFIX) ? "candor.FailedTick" : s.eventType();
            }
            byEvent.computeIfAbsent(target, k -> new ArrayList<>())
                    .add(new Sample(s.timeNanos(), s.thread(), target, s.stack(), s.weight(), s.labels()));
        }
        if (droppedByKind != null) {  // each kind's drops beside its own samples, a value kind's in its unit
            for (String item : droppedByKind.split(",")) {
                int eq = item.indexOf('=');
                if (eq <= 0) {
                    continue;
                }
                String kind = item.substring(0, eq);
                String[] counts = item.substring(eq + 1).split(":");
                String target = VALUE_EVENTS.getOrDefault(kind, SAMPLER_EVENTS.get(kind));
                long weight;
                try {
                    weight = Long.parseLong(counts[counts.length - 1]);
                } catch (NumberFormatException e) {
                    continue;  // not candor's format: the drops stay in the counters only
                }
                if (target != null && weight > 0) {
                    byEvent.computeIfAbsent(target, k -> new ArrayList<>()).add(new Sample(countersTime, null, target,
                            pseudoStack("dropped"), weight));
                }
            }
        } else if (dropped > 0) {  // files before droppedByKind: every drop beside the CPU samples
            String target = fallback != null ? fallback : "jdk.ExecutionSample";
            byEvent.computeIfAbsent(target, k -> new ArrayList<>()).add(new Sample(countersTime, null, target,
                    pseudoStack("dropped"), dropped));
        }
    }
}

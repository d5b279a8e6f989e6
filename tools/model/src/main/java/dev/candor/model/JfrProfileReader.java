package dev.candor.model;

import jdk.jfr.EventType;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    /** Events may start this long before their chunk (long events) or end after it. */
    private static final long TIME_MARGIN_NANOS = 600_000_000_000L;
    private static final Pattern JDK_POSITION = Pattern.compile("at position (\\d+)");

    private final Path file;
    private final Map<String, List<Sample>> byEvent = new LinkedHashMap<>();
    private final List<Sample> candorFailures = new ArrayList<>();
    private final JfrEventConverter converter = new JfrEventConverter();
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
                    && x.leaf().methodName().equals(JfrEvents.NO_STACK)));
            Instant start = minStart == Long.MAX_VALUE ? null : Instant.ofEpochSecond(0, minStart);
            Instant end = maxEnd == Long.MIN_VALUE ? null : Instant.ofEpochSecond(0, maxEnd);
            return new Recording(file.toString(), "jfr", byEvent, start, end, damage);
        }
    }

    // ---- parsing chunks ------------------------------------------------------------------

    /** What one parse of a chunk gave: the samples read, and the failure, if any. */
    private static final class Attempt extends JfrEventConverter.Batch {
        boolean opened;
        long eventsRead;
        Throwable error;
        /** Set when an event fails the sanity checks: the event record where the damage shows. */
        JfrStructure.Rec badRecord;
        String badReason;
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
        JfrEventConverter.ChunkCaches caches = new JfrEventConverter.ChunkCaches();
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
                converter.accept(a, e, caches);
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
            if (s.eventType().startsWith(JfrEvents.KIND_PREFIX)) {
                String sampler = s.eventType().substring(JfrEvents.KIND_PREFIX.length());
                target = JfrEvents.SAMPLER_EVENTS.get(sampler);
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
                        : s.eventType().startsWith(JfrEvents.KIND_PREFIX) ? "candor.FailedTick" : s.eventType();
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
                String target = JfrEvents.VALUE_EVENTS.getOrDefault(kind, JfrEvents.SAMPLER_EVENTS.get(kind));
                long weight;
                try {
                    weight = Long.parseLong(counts[counts.length - 1]);
                } catch (NumberFormatException e) {
                    continue;  // not candor's format: the drops stay in the counters only
                }
                if (target != null && weight > 0) {
                    byEvent.computeIfAbsent(target, k -> new ArrayList<>()).add(new Sample(countersTime, null, target,
                            converter.pseudoStack("dropped"), weight));
                }
            }
        } else if (dropped > 0) {  // files before droppedByKind: every drop beside the CPU samples
            String target = fallback != null ? fallback : "jdk.ExecutionSample";
            byEvent.computeIfAbsent(target, k -> new ArrayList<>()).add(new Sample(countersTime, null, target,
                    converter.pseudoStack("dropped"), dropped));
        }
    }
}

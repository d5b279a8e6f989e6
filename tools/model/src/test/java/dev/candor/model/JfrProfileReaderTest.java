package dev.candor.model;

import jdk.jfr.Event;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reads real recordings made in this JVM with the JDK's own recorder: a stack-carrying test
 * event committed from known methods, candor-style failed-tick events and jdk.ExecutionSample;
 * then the same file cut short, with bytes overwritten, and concatenated.
 */
class JfrProfileReaderTest {
    static final String WORKER = "jfr-test-worker";
    static final int WORK_EVENTS = 30;

    @Name("test.WorkSample")
    @StackTrace(true)
    static class WorkSample extends Event {
    }

    @Name("candor.FailedTick")
    @StackTrace(false)
    static class FailedTick extends Event {
        String bucket;
        String kind;
        long count;
    }

    @TempDir
    static Path dir;
    static Path jfr;
    static byte[] bytes;

    static volatile long sink;

    @BeforeAll
    static void record() throws Exception {
        jfr = dir.resolve("test.jfr");
        try (jdk.jfr.Recording r = new jdk.jfr.Recording()) {
            r.enable(WorkSample.class);
            r.enable(FailedTick.class);
            r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(1));
            r.start();
            Thread t = new Thread(() -> {
                for (int i = 0; i < WORK_EVENTS; i++) {
                    levelOne();
                }
                FailedTick gc = new FailedTick();
                gc.bucket = "gc_active";
                gc.kind = "cpu";
                gc.count = 3;
                gc.commit();
                FailedTick unknown = new FailedTick();
                unknown.bucket = "unknown_java";
                unknown.kind = "wall";
                unknown.count = 1;
                unknown.commit();
                spin(400);
            }, WORKER);
            t.start();
            t.join();
            r.stop();
            r.dump(jfr);
        }
        bytes = Files.readAllBytes(jfr);
    }

    static void levelOne() {
        levelTwo();
    }

    static void levelTwo() {
        new WorkSample().commit();
    }

    static void spin(long ms) {
        long end = System.nanoTime() + ms * 1_000_000L;
        long x = 0;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 10_000; i++) {
                x = x * 31 + i;
            }
        }
        sink = x;
    }

    static Path write(String name, byte[] content) throws Exception {
        Path p = dir.resolve(name);
        Files.write(p, content);
        return p;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void readsStacksThreadsAndTimes() throws Exception {
        Recording r = ProfileReader.read(jfr);
        assertEquals("jfr", r.format());
        assertTrue(r.damage().isEmpty());
        assertEquals(WORK_EVENTS, r.eventCounts().get("test.WorkSample"), r.eventCounts().toString());
        assertEquals(List.of("test.WorkSample"), r.selectEvents("worksample"));
        Profile p = r.profile(List.of("test.WorkSample"));
        Sample s = p.samples().get(0);
        assertEquals(WORKER, s.thread().name());
        assertTrue(s.thread().osThreadId() > 0);
        List<String> names = s.stack().stream().map(Frame::name).toList();
        String cls = JfrProfileReaderTest.class.getName();
        // root first: ... levelOne, levelTwo, then the JFR commit machinery or not, depending on the JDK
        int one = names.indexOf(cls + ".levelOne");
        int two = names.indexOf(cls + ".levelTwo");
        assertTrue(one >= 0 && two == one + 1, names.toString());
        assertEquals("java.lang.Thread.run", names.get(0), names.toString());
        Frame f = s.stack().get(two);
        assertEquals("()V", f.descriptor());
        assertTrue(f.line() > 0);
        assertTrue(s.hasTime());
        assertTrue(!s.time().get().isBefore(r.start().get()) && !s.time().get().isAfter(r.end().get()));
    }

    @Test
    void candorFailedTicksBecomePseudoFramesBesideTheExecutionSamples() throws Exception {
        Recording r = ProfileReader.read(jfr);
        String target = "jdk.ExecutionSample";
        Profile p = r.profile(List.of(target));
        CollapsedProfile c = p.toCollapsed(false, false, false);
        assertEquals(3, c.self("[gc_active]"), c.toString());
        // a failed tick of the wall-clock sampler counts beside the wall-clock samples
        assertEquals(0, c.self("[unknown_java]"));
        assertEquals(1, r.profile(List.of("candor.WallClockSample")).toCollapsed(false, false, false)
                .self("[unknown_java]"));
        if (target.equals("jdk.ExecutionSample")) {
            assertEquals("jdk.ExecutionSample", r.defaultEvent().orElseThrow());
            assertTrue(c.countAny(CollapsedProfile.method(JfrProfileReaderTest.class.getName() + ".spin")) > 0,
                    c.toString());
        }
    }

    /**
     * Found by ReaderFuzzTest: the JDK's parser throws InternalError ("Pool int must contain at
     * least one element") for this mutated constant pool; it must be reported as damage.
     */
    @Test
    void parserInternalErrorIsDamage() throws Exception {
        Path file;
        try (var in = JfrProfileReaderTest.class.getResourceAsStream("/damaged/internal-error-pool.jfr")) {
            file = write("internal-error-pool.jfr", in.readAllBytes());
        }
        Recording r = ProfileReader.read(file);
        Damage d = r.damage().orElseThrow();
        assertTrue(d.message().contains("Pool int must contain at least one element"), d.message());
        assertTrue(d.offset() > 0, d.toString());
    }

    @Test
    void cutFileNamesTheOffset() throws Exception {
        int cut = bytes.length / 2;
        Recording r = ProfileReader.read(write("cut.jfr", Arrays.copyOf(bytes, cut)));
        Damage d = r.damage().orElseThrow();
        assertEquals(cut, d.offset());
        assertTrue(d.message().contains("the file ends inside chunk 1"), d.message());
        assertTrue(d.toString().startsWith("damaged at byte " + cut + ": "), d.toString());
        // cut inside the header
        Recording h = ProfileReader.read(write("header.jfr", Arrays.copyOf(bytes, 30)));
        assertEquals(30, h.damage().orElseThrow().offset());
        assertTrue(h.damage().get().message().contains("inside the header of chunk 1"));
    }

    @Test
    void concatenatedChunksAreAllRead() throws Exception {
        Recording one = ProfileReader.read(jfr);
        Recording two = ProfileReader.read(write("two.jfr", concat(bytes, bytes)));
        assertTrue(two.damage().isEmpty());
        assertEquals(2 * one.eventCounts().get("test.WorkSample"), two.eventCounts().get("test.WorkSample"));
    }

    @Test
    void whatPrecedesTheDamageIsReported() throws Exception {
        Recording one = ProfileReader.read(jfr);
        byte[] two = concat(bytes, bytes);
        // cut in the middle of the second chunk
        int cut = bytes.length + bytes.length / 2;
        Recording cutTwo = ProfileReader.read(write("two-cut.jfr", Arrays.copyOf(two, cut)));
        assertEquals(cut, cutTwo.damage().orElseThrow().offset());
        assertTrue(cutTwo.damage().get().message().contains("inside chunk 2"), cutTwo.damage().get().message());
        assertEquals(one.eventCounts(), cutTwo.eventCounts());

        // 4 KiB overwritten in the middle of the second chunk
        byte[] flipped = two.clone();
        int from = bytes.length + bytes.length / 2;
        Arrays.fill(flipped, from, Math.min(flipped.length, from + 4096), (byte) 0xff);
        Recording fl = ProfileReader.read(write("two-flipped.jfr", flipped));
        Damage d = fl.damage().orElseThrow();
        assertTrue(d.offset() >= bytes.length && d.offset() <= from + 4096, d.toString());
        assertEquals(one.eventCounts(), fl.eventCounts());

        // the second chunk's magic overwritten
        byte[] magic = two.clone();
        magic[bytes.length] = 'X';
        Recording m = ProfileReader.read(write("two-magic.jfr", magic));
        assertEquals(bytes.length, m.damage().orElseThrow().offset());
        assertTrue(m.damage().get().message().contains("expected the header of chunk 2"), m.damage().get().message());
        assertEquals(one.eventCounts(), m.eventCounts());

        // garbage after the last chunk
        Recording tail = ProfileReader.read(write("tail.jfr", concat(bytes, "junk".getBytes())));
        assertEquals(bytes.length, tail.damage().orElseThrow().offset());
        assertEquals(one.eventCounts(), tail.eventCounts());
    }

    @Test
    void damagedChunkSizeAndRecordSizeAreCaught() throws Exception {
        // the chunk size field (bytes 8..15) says less than the header
        byte[] small = bytes.clone();
        Arrays.fill(small, 8, 16, (byte) 0);
        Damage d = ProfileReader.read(write("size.jfr", small)).damage().orElseThrow();
        assertEquals(8, d.offset(), d.toString());
        // the first record's size (right after the header) made impossible
        byte[] rec = bytes.clone();
        Arrays.fill(rec, 68, 77, (byte) 0xff);
        Damage r = ProfileReader.read(write("record.jfr", rec)).damage().orElseThrow();
        assertEquals(68, r.offset(), r.toString());
        // a record size of 2^63 - 1: offset + size wraps below zero (the reader fuzz found it)
        byte[] wrap = bytes.clone();
        Arrays.fill(wrap, 68, 76, (byte) 0xff);
        wrap[76] = 0x7f;
        Damage w = ProfileReader.read(write("wrap.jfr", wrap)).damage().orElseThrow();
        assertEquals(68, w.offset(), w.toString());
    }

    @Test
    void damageInsideOneChunkStillReportsTheEventsBeforeIt() throws Exception {
        JfrStructure.Scan scan;
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(jfr)) {
            scan = JfrStructure.scan(ch);
        }
        assertTrue(scan.damage() == null && scan.intact().size() == 1, String.valueOf(scan.damage()));
        List<JfrStructure.Rec> events = scan.intact().get(0).eventRecords();
        assertTrue(events.size() > 20, "events: " + events.size());
        // overwrite the middle event record's header and payload start with 0xff
        JfrStructure.Rec victim = events.get(events.size() / 2);
        byte[] damaged = bytes.clone();
        Arrays.fill(damaged, (int) victim.offset(), (int) Math.min(victim.end(), victim.offset() + 16), (byte) 0xff);
        Recording r = ProfileReader.read(write("inside.jfr", damaged));
        Damage d = r.damage().orElseThrow();
        assertTrue(d.offset() <= victim.offset() + 16, d + " (overwritten at " + victim.offset() + ")");
        long before = r.eventCounts().values().stream().mapToLong(Long::longValue).sum();
        long all = ProfileReader.read(jfr).eventCounts().values().stream().mapToLong(Long::longValue).sum();
        assertTrue(before > 0 && before < all, "recovered " + before + " of " + all + " samples; " + d);
    }

    @Test
    void notJfrAtAll() throws Exception {
        Path p = write("text.jfr", "hello\n".getBytes());
        ProfileFormatException e = assertThrows(ProfileFormatException.class, () -> ProfileReader.read(p));
        assertTrue(e.getMessage().contains("not a JFR recording"), e.getMessage());
        assertFalse(JfrProfileReader.isJfr(p));
        assertTrue(JfrProfileReader.isJfr(jfr));
    }

    @Test
    void collapsedInputIsReadToo() throws Exception {
        Path p = write("x.collapsed", "[w tid=3];a.A.main;a.A.hot 7\n[gc_active] 1\n".getBytes());
        Recording r = ProfileReader.read(p);
        assertEquals("collapsed", r.format());
        assertEquals(List.of("collapsed"), r.selectEvents(null));
        Profile prof = r.profile(r.selectEvents(null));
        assertEquals(8, prof.total());
        assertEquals("w", prof.samples().get(0).thread().name());
        Path bad = write("bad.collapsed", "a;b notanumber\n".getBytes());
        assertThrows(ProfileFormatException.class, () -> ProfileReader.read(bad));
        assertThrows(java.nio.file.NoSuchFileException.class, () -> ProfileReader.read(dir.resolve("missing")));
    }
}

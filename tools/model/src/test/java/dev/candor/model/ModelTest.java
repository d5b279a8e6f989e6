package dev.candor.model;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static dev.candor.model.Fixtures.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Frame, Sample, Profile and its filters, Cct, Recording's event choice. */
class ModelTest {

    @Test
    void framesParseAndPrintBack() {
        for (String text : List.of("a.b.C.m", "a.b.C.m:12", "main", "a.b.C$1.<init>", "[gc_active]",
                "[main tid=12]", "libc.so.6", "x.y:0", "a.B.m:abc")) {
            assertEquals(text, Frame.parse(text).name(true), text);
        }
        Frame f = Frame.parse("a.b.C.m:12");
        assertEquals("a.b.C", f.className());
        assertEquals("m", f.methodName());
        assertEquals(12, f.line());
        assertEquals("a.b.C.m", f.name());
        assertTrue(Frame.parse("[gc_active]").isPseudo());
        assertEquals("gc_active", Frame.parse("[gc_active]").methodName());
        assertEquals('f', Frame.pseudo("x").type().viewerKind());
        assertEquals('n', Frame.Type.fromJfr("Native").viewerKind());
        assertEquals(Frame.Type.JIT_COMPILED, Frame.Type.fromJfr("JIT compiled"));
        assertEquals(Frame.Type.INLINED, Frame.Type.fromJfr("Inlined"));
        assertEquals(Frame.Type.CPP, Frame.Type.fromJfr("C++"));
    }

    @Test
    void threadRootFrame() {
        assertEquals("[main tid=101]", Fixtures.MAIN.rootFrame());
        assertEquals("[x tid=7]", new SampledThread("x", -1, 7).rootFrame());
        assertTrue(CollapsedProfile.isThreadRoot(Fixtures.WORKER.rootFrame()));
    }

    @Test
    void samplesAreValidated() {
        assertThrows(IllegalArgumentException.class, () -> new Sample(0, null, "e", List.of(), 1));
        assertThrows(IllegalArgumentException.class, () -> new Sample(0, null, "e", List.of(Frame.pseudo("x")), -1));
        Sample s = new Sample(Sample.NO_TIME, null, "e", List.of(Frame.pseudo("gc_active")), 3);
        assertTrue(s.isFailure());
        assertFalse(s.hasTime());
        assertTrue(s.time().isEmpty());
    }

    @Test
    void profileTotalsCountFailures() {
        Profile p = Fixtures.profile();
        assertEquals(100, p.total());
        assertEquals(List.of("test.Sample"), p.eventTypes());
        assertTrue(p.hasTimes());
        CollapsedProfile c = p.toCollapsed(false, false, false);
        assertEquals(100, c.total());
        assertEquals(60, c.self("a.Work.hot"));
        assertEquals(20, c.self("a.Work.cold"));
        assertEquals(10, c.failures());
    }

    @Test
    void includeExcludeAndTimeFilters() throws Exception {
        Profile p = Fixtures.profile();
        Profile hot = p.include(Pattern.compile("Work\\.hot$"));
        assertEquals(60, hot.total());
        assertEquals(100, hot.unfilteredTotal());
        assertEquals(List.of("include /Work\\.hot$/"), hot.filters());
        assertEquals(30, p.exclude(Pattern.compile("hot|setup")).total());
        // the line is searchable too, and the thread root frame
        assertEquals(10, p.include(Pattern.compile("cold:12")).total());
        assertEquals(10, p.include(Pattern.compile("^\\[main tid=")).total());
        // [from, to)
        Instant t10 = Instant.ofEpochSecond(0, T0 + 10_000_000L);
        Instant t70 = Instant.ofEpochSecond(0, T0 + 70_000_000L);
        assertEquals(60, p.between(t10, t70).total());
        assertEquals(10, p.between(null, t10).total());
        assertEquals(30, p.between(t70, null).total());
        assertEquals(1, p.between(t10, t70).filters().size());
        // collapsed input has no times
        Profile untimed = Profile.of("x.collapsed", CollapsedProfile.parse("a;b 3\n").toSamples());
        assertFalse(untimed.hasTimes());
        assertThrows(IllegalArgumentException.class, () -> untimed.between(t10, null));
    }

    @Test
    void callTreeTotalsAndSelf() {
        Cct t = Cct.of(Fixtures.profile(), Cct.Options.DEFAULT);
        assertEquals(100, t.total());
        Cct.Node run = t.root().child("java.lang.Thread.run").child("a.Work.run");
        assertEquals(80, run.total());
        assertEquals(0, run.self());
        assertEquals(60, run.child("a.Work.hot").self());
        assertEquals(20, run.child("a.Work.cold").total());  // lines merged
        assertEquals(5, t.root().child("[gc_active]").total());
        assertEquals('f', t.root().child("[gc_active]").kind());
        assertEquals('j', run.kind());
        assertEquals(List.of("[dropped]", "[gc_active]", "a.Main.main", "java.lang.Thread.run"),
                t.root().childrenByName().stream().map(Cct.Node::name).toList());
        assertEquals("java.lang.Thread.run", t.root().childrenByTotal().get(0).name());
        assertEquals(9, t.nodeCount());
    }

    @Test
    void callTreePerThreadReversedAndWithLines() {
        Cct threads = Cct.of(Fixtures.profile(), new Cct.Options(true, false, false));
        Cct.Node worker = threads.root().child("[worker tid=102]");
        assertNotNull(worker);
        assertEquals('t', worker.kind());
        assertEquals(90, worker.total());
        assertEquals(10, threads.root().child("[main tid=101]").total());
        assertEquals(5, worker.child("[gc_active]").total());

        Cct rev = Cct.of(Fixtures.profile(), new Cct.Options(false, false, true));
        Cct.Node hot = rev.root().child("a.Work.hot");
        assertEquals(60, hot.total());
        assertEquals(60, hot.child("a.Work.run").child("java.lang.Thread.run").total());
        assertNull(rev.root().child("java.lang.Thread.run"));

        Cct lines = Cct.of(Fixtures.profile(), new Cct.Options(false, true, false));
        Cct.Node run = lines.root().child("java.lang.Thread.run").child("a.Work.run");
        assertEquals(10, run.child("a.Work.cold:12").total());
        assertEquals(10, run.child("a.Work.cold:13").total());
    }

    @Test
    void recordingChoosesTheCpuSampleEvent() {
        Sample a = new Sample(1, null, "jdk.ExecutionSample", List.of(Frame.parse("a.A.a")), 1);
        Sample n = new Sample(1, null, "jdk.NativeMethodSample", List.of(Frame.parse("a.A.n")), 1);
        Sample o = new Sample(1, null, "jdk.ObjectAllocationSample", List.of(Frame.parse("a.A.o")), 1);
        Recording r = new Recording("x.jfr", "jfr", Map.of(
                "jdk.ExecutionSample", List.of(a, a),
                "jdk.NativeMethodSample", List.of(n, n, n),
                "jdk.ObjectAllocationSample", List.of(o, o, o, o)), null, null, null);
        // CPU samples win even with fewer events
        assertEquals("jdk.ExecutionSample", r.defaultEvent().orElseThrow());
        assertEquals(List.of("jdk.ExecutionSample"), r.selectEvents(null));
        assertEquals(List.of("jdk.NativeMethodSample"), r.selectEvents("nativemethodsample"));
        assertEquals(List.of("jdk.NativeMethodSample", "jdk.ExecutionSample"),
                r.selectEvents("jdk.NativeMethodSample, ExecutionSample"));
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> r.selectEvents("Wall"));
        assertTrue(unknown.getMessage().contains("no event 'Wall'"), unknown.getMessage());
        assertTrue(unknown.getMessage().contains("choices: jdk.ObjectAllocationSample (4 B), jdk.NativeMethodSample (3),"
                + " jdk.ExecutionSample (2)"), unknown.getMessage());
        Recording two = new Recording("y.jfr", "jfr", Map.of("jdk.ExecutionSample", List.of(a),
                "profiler.ExecutionSample", List.of(a)), null, null, null);
        IllegalArgumentException ambiguous = assertThrows(IllegalArgumentException.class,
                () -> two.selectEvents("ExecutionSample"));
        assertTrue(ambiguous.getMessage().contains("ambiguous"), ambiguous.getMessage());
        Profile p = r.profile(List.of("jdk.ExecutionSample"));
        assertEquals(2, p.total());
        assertEquals(Map.of("jdk.ObjectAllocationSample", 4L, "jdk.NativeMethodSample", 3L), p.otherEvents());

        Recording none = new Recording("z.jfr", "jfr", Map.of(), null, null, null);
        assertTrue(none.defaultEvent().isEmpty());
        assertThrows(IllegalArgumentException.class, () -> none.selectEvents(null));
        // without CPU sample events: the *Sample event with most samples
        Recording noCpu = new Recording("w.jfr", "jfr", Map.of("jdk.NativeMethodSample", List.of(n),
                "jdk.ThreadPark", List.of(n, n)), null, null, null);
        assertEquals("jdk.NativeMethodSample", noCpu.defaultEvent().orElseThrow());
    }

    @Test
    void collapsedStacksBecomeSamplesWithThreads() throws Exception {
        CollapsedProfile c = CollapsedProfile.parse("[w tid=7];a.A.run;a.A.hot:3 5\n[gc_active] 2\na.A.x 0\n");
        List<Sample> s = c.toSamples();
        assertEquals(2, s.size());
        assertEquals(new SampledThread("w", 7, -1), s.get(0).thread());
        assertEquals(List.of("a.A.run", "a.A.hot:3"), s.get(0).stack().stream().map(f -> f.name(true)).toList());
        assertTrue(s.get(1).isFailure());
        assertNull(s.get(1).thread());
        // back to folded form, with and without the thread roots
        Profile p = Profile.of("x.collapsed", s);
        assertEquals("[w tid=7];a.A.run;a.A.hot:3 5\n[unknown thread tid=0];[gc_active] 2\n",
                p.toCollapsed(true, true, false).toString());
        assertEquals("a.A.hot;a.A.run 5\n[gc_active] 2\n", p.toCollapsed(false, false, true).toString());
    }
}

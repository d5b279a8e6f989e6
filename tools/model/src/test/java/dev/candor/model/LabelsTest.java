package dev.candor.model;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sample labels: the map a sample carries, label roots {@code [KEY=VALUE]} among the other pseudo-frames. */
class LabelsTest {

    @Test
    void labelRootsAreContextRootsNotFailures() {
        Frame f = Frame.parse("[endpoint=/users]");
        assertTrue(f.isLabelRoot());
        assertTrue(f.isContextRoot());
        assertFalse(f.isFailure());
        assertFalse(f.isThreadRoot() || f.isStateRoot() || f.isKindRoot());
        assertEquals("endpoint", f.labelKey());
        assertEquals("/users", f.labelValue());
        assertEquals('f', f.viewerKind());
        // a value may hold '=': the key ends at the first one
        Frame q = Frame.parse("[query=a=b]");
        assertEquals("query", q.labelKey());
        assertEquals("a=b", q.labelValue());
        Frame none = Frame.labelRoot("trace_id", null);
        assertEquals("[trace_id=(none)]", none.name());
        assertEquals(Frame.NO_LABEL_VALUE, none.labelValue());
        assertTrue(none.isContextRoot());
    }

    @Test
    void threadStateClassAndFailureFramesAreNoLabelRoots() {
        // a thread whose name holds '=' stays a thread root
        Frame thread = Frame.parse("[pool=1 worker tid=42]");
        assertTrue(thread.isThreadRoot());
        assertFalse(thread.isLabelRoot());
        assertEquals("pool=1 worker", thread.threadName());
        assertNull(thread.labelKey());
        Frame state = Frame.parse("[state=sleeping]");
        assertTrue(state.isStateRoot());
        assertFalse(state.isLabelRoot());
        for (String text : new String[] {"[gc_active]", "[dropped]", "[byte[]]", "[truncated]", "[=x]", "[cpu]"}) {
            assertFalse(Frame.parse(text).isLabelRoot(), text);
        }
        assertTrue(Frame.parse("[gc_active]").isFailure());
        assertFalse(Frame.parse("a.B.c").isLabelRoot());  // not even a pseudo-frame
        assertThrows(IllegalArgumentException.class, () -> Frame.labelRoot("a=b", "c"));
        assertThrows(IllegalArgumentException.class, () -> Frame.labelRoot("", "c"));
    }

    @Test
    void collapsedStacksUnderLabelRootsCountAsTheirStacks() throws Exception {
        CollapsedProfile c = CollapsedProfile.parse("[w tid=5];[state=running];[endpoint=/users];a.Main.hot 7\n"
                + "[w tid=5];[endpoint=(none)];[gc_active] 2\n[endpoint=/orders];a.Main.cold 1\n");
        assertEquals(10, c.total());
        assertEquals(2, c.failures());
        assertEquals(8, c.recorded());
    }

    @Test
    void labelsAreAnImmutableMapSortedByKey() {
        Map<String, String> in = new HashMap<>();
        in.put("trace_id", "abc");
        in.put("endpoint", "/users");
        Sample s = new Sample(1, null, "e", List.of(Frame.parse("a.B.c")), 1, new TreeMap<>(in));
        assertEquals(List.of("endpoint", "trace_id"), List.copyOf(s.labels().keySet()));
        assertEquals("/users", s.labels().get("endpoint"));
        assertTrue(s.hasLabels());
        assertThrows(UnsupportedOperationException.class, () -> s.labels().put("x", "y"));
        assertThrows(UnsupportedOperationException.class, () -> s.labels().headMap("z").clear());
        // a copy: changing the map given does not change the sample
        in.put("zzz", "1");
        SortedMap<String, String> given = new TreeMap<>(in);
        Sample t = new Sample(1, null, "e", List.of(Frame.parse("a.B.c")), 1, given);
        given.clear();
        assertEquals(3, t.labels().size());
        // one label set shared by samples is not copied again
        Sample u = t.withStack(List.of(Frame.parse("a.B.d")));
        assertSame(t.labels(), u.labels());
        assertSame(t.labels(), Sample.labels(t.labels()));
        assertEquals(Map.of("endpoint", "/users", "trace_id", "abc", "zzz", "1"), t.labels());
        // without labels: the empty map, and records compare by their labels too
        Sample plain = new Sample(1, null, "e", List.of(Frame.parse("a.B.c")), 1);
        assertTrue(plain.labels().isEmpty());
        assertFalse(plain.hasLabels());
        assertEquals(plain, new Sample(1, null, "e", List.of(Frame.parse("a.B.c")), 1, new TreeMap<>()));
        assertFalse(plain.equals(s.withStack(plain.stack())));
        assertThrows(NullPointerException.class, () -> Sample.labels(new HashMap<>(java.util.Collections
                .singletonMap("k", null))));
    }

    @Test
    void callersViewKeepsContextRootsOnTop() {
        Sample s = new Sample(Sample.NO_TIME, null, "e", List.of(Frame.parse("[endpoint=/users]"),
                Frame.parse("a.Main.run"), Frame.parse("a.Main.hot")), 3);
        assertEquals(List.of("[endpoint=/users]", "a.Main.hot", "a.Main.run"), Profile.path(s, false, false, true));
        assertEquals(List.of("[endpoint=/users]", "a.Main.run", "a.Main.hot"), Profile.path(s, false, false, false));
        Cct reversed = Cct.of(List.of(s), new Cct.Options(false, false, true));
        assertEquals(3, reversed.find(List.of("[endpoint=/users]", "a.Main.hot", "a.Main.run")).self(), 0);
        // a failure tick under a label root: nothing to reverse
        Sample gc = new Sample(Sample.NO_TIME, null, "e", List.of(Frame.parse("[endpoint=(none)]"),
                Frame.parse("[gc_active]")), 1);
        assertEquals(List.of("[endpoint=(none)]", "[gc_active]"), Profile.path(gc, false, false, true));
    }
}

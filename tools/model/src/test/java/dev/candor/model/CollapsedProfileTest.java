package dev.candor.model;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CollapsedProfileTest {

    private static final String SAMPLE = String.join("\n",
            "a.Main.main;a.Main.run;a.Work.hot 70",
            "a.Main.main;a.Main.run;a.Work.cold 20",
            "a.Main.main;a.Main.run 5",
            "[gc_active] 3",
            "[dropped] 2",
            "");

    @Test
    void totalsAndCounts() throws Exception {
        CollapsedProfile p = CollapsedProfile.parse(SAMPLE);
        assertEquals(5, p.stacks().size());
        assertEquals(100, p.total());
        assertEquals(70, p.countLeaf(CollapsedProfile.method("a.Work.hot")));
        assertEquals(95, p.countAny(CollapsedProfile.method("a.Main.run")));
        assertEquals(95, p.recorded());
        assertEquals(5, p.failures());
        assertEquals(5, p.self("a.Main.run"));
        assertEquals(95, p.total("a.Main.main"));
        assertEquals(0, p.total("nope"));
    }

    @Test
    void markersOnARealStackAreNotFailures() throws Exception {
        CollapsedProfile p = CollapsedProfile.parse(String.join("\n",
                "[main tid=1];a.Main.main;a.Main.io;[kernel_unsampled] 4",
                "[main tid=1];[truncated];a.Main.deep 3",
                "[main tid=1];a.Main.main 2",
                "[main tid=1];[walk_fault] 1",
                ""));
        assertEquals(9, p.recorded());
        assertEquals(1, p.failures());
    }

    @Test
    void selfAndTotalPerFrame() throws Exception {
        CollapsedProfile p = CollapsedProfile.parse(SAMPLE);
        Map<String, Long> self = p.selfByFrame();
        assertEquals(List.of("a.Work.hot", "a.Work.cold", "a.Main.run", "[gc_active]", "[dropped]"),
                List.copyOf(self.keySet()));
        assertEquals(70L, self.get("a.Work.hot"));
        Map<String, Long> total = p.totalByFrame();
        assertEquals(95L, total.get("a.Main.main"));
        assertEquals(20L, total.get("a.Work.cold"));
        assertEquals("a.Main.main", total.keySet().iterator().next());
    }

    @Test
    void recursionCountedOnceInTotal() throws Exception {
        CollapsedProfile p = CollapsedProfile.parse("m;f;f;f 10\nm;g 5\n");
        assertEquals(10, p.total("f"));
        assertEquals(10L, p.totalByFrame().get("f"));
        assertEquals(15L, p.totalByFrame().get("m"));
    }

    @Test
    void identicalStacksAreMerged() throws Exception {
        CollapsedProfile p = CollapsedProfile.parse("a;b 1\na;c 2\na;b 3\n");
        assertEquals(2, p.stacks().size());
        assertEquals(4, p.self("b"));
        assertEquals(6, p.total());
    }

    @Test
    void threadRoots() throws Exception {
        String text = String.join("\n",
                "[main tid=123];a.Main.main;a.Work.hot 40",
                "[main tid=123];[unknown_java] 1",
                "[pool worker 1 tid=130];a.Pool.run;a.Work.cold 60",
                "[dropped] 4");
        CollapsedProfile p = CollapsedProfile.parse(text);
        assertEquals(105, p.total());
        assertEquals(41, p.underRoot("[main tid=123]"));
        List<CollapsedProfile.ThreadRoot> threads = p.threads();
        assertEquals(2, threads.size());
        assertEquals("pool worker 1", threads.get(0).name());
        assertEquals(130, threads.get(0).tid());
        assertEquals(60, threads.get(0).samples());
        CollapsedProfile.ThreadRoot main = p.thread("main").orElseThrow();
        assertEquals(123, main.tid());
        assertEquals(41, main.samples());
        assertTrue(p.thread("absent").isEmpty());

        CollapsedProfile sub = p.subtree("[main tid=123]");
        assertEquals(41, sub.total());
        assertEquals(40, sub.recorded());
        assertEquals("a.Main.main", sub.stacks().get(0).root());
        // thread roots are not failures, nested failure frames are
        assertEquals(100, p.recorded());
        assertEquals(5, p.failures());
        assertTrue(CollapsedProfile.isThreadRoot("[main tid=123]"));
        assertFalse(CollapsedProfile.isThreadRoot("[gc_active]"));
        assertTrue(CollapsedProfile.isPseudoFrame("[gc_active]"));
        assertFalse(CollapsedProfile.isPseudoFrame("a.B.c"));
    }

    @Test
    void methodPredicateIgnoresLineSuffix() throws Exception {
        CollapsedProfile p = CollapsedProfile.parse("a.B.main:10;a.B.hot:42 7\na.B.main:11;a.B.hotter:3 2\n");
        assertEquals(7, p.countLeaf(CollapsedProfile.method("a.B.hot")));
        assertEquals(9, p.countAny(CollapsedProfile.method("a.B.main")));
    }

    @Test
    void blankLinesAndCrlfAreAccepted() throws Exception {
        CollapsedProfile p = CollapsedProfile.parse("a;b 1\r\n\r\n   \na;c 2\r\n");
        assertEquals(3, p.total());
        assertEquals(0, CollapsedProfile.parse("").total());
    }

    @Test
    void readsFile(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("x.collapsed");
        Files.writeString(f, SAMPLE);
        assertEquals(100, CollapsedProfile.read(f).total());
    }

    @Test
    void missingCountNamesTheLine() {
        ProfileFormatException e = assertThrows(ProfileFormatException.class,
                () -> CollapsedProfile.parse("a;b 1\na;b;c\n"));
        assertEquals(2, e.line());
        assertTrue(e.getMessage().startsWith("<string>:2: "), e.getMessage());
        assertTrue(e.getMessage().contains("no count"), e.getMessage());
    }

    @Test
    void nonNumericCountNamesTheLine() {
        ProfileFormatException e = assertThrows(ProfileFormatException.class,
                () -> CollapsedProfile.parse("a;b 1\n\na;b x12\n"));
        assertEquals(3, e.line());
        assertTrue(e.getMessage().contains("'x12' is not an integer"), e.getMessage());
    }

    @Test
    void negativeCountAndEmptyFramesAreRejected() {
        assertEquals(1, assertThrows(ProfileFormatException.class,
                () -> CollapsedProfile.parse("a;b -1\n")).line());
        ProfileFormatException e = assertThrows(ProfileFormatException.class,
                () -> CollapsedProfile.parse("ok 1\na;;b 1\n"));
        assertEquals(2, e.line());
        assertTrue(e.getMessage().contains("empty frame"), e.getMessage());
        assertEquals(1, assertThrows(ProfileFormatException.class,
                () -> CollapsedProfile.parse(" 5\n")).line());
    }

    @Test
    void fileErrorsNameTheFile(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("bad.collapsed");
        Files.writeString(f, "a 1\nb 2\nc three\n");
        ProfileFormatException e = assertThrows(ProfileFormatException.class, () -> CollapsedProfile.read(f));
        assertTrue(e.getMessage().startsWith(f + ":3: "), e.getMessage());
    }

    @Test
    void toStringRoundTrips() throws Exception {
        CollapsedProfile p = CollapsedProfile.parse(SAMPLE);
        assertEquals(p.stacks(), CollapsedProfile.parse(p.toString()).stacks());
    }
}

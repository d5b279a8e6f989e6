package dev.candor.compare;

import dev.candor.model.Cct;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Degree of overlap and hot-edge coverage on hand-made trees. */
class MetricsTest {

    /** A tree from "a;b;c=3" style entries. */
    static Cct tree(String... stacks) {
        Cct.Builder t = Cct.builder();
        for (String s : stacks) {
            int eq = s.lastIndexOf('=');
            t.add(Arrays.asList(s.substring(0, eq).split(";")), Double.parseDouble(s.substring(eq + 1)));
        }
        return t.build();
    }

    @Test
    void identicalTreesOverlapAndCoverCompletely() {
        Cct a = tree("main;a=6", "main;b=3", "main=1", "main;b;c=5");
        Cct b = tree("main;b;c=10", "main;a=12", "main=2", "main;b=6");  // same shares, twice the samples
        assertEquals(1.0, Metrics.overlap(a, b), 1e-12);
        assertEquals(1.0, Metrics.overlap(a, a), 1e-12);
        for (double t : new double[] {0, 0.1, 0.5, 1}) {
            assertEquals(1.0, Metrics.hotcover(a, b, t).value(), 1e-12, "T=" + t);
            assertEquals(1.0, Metrics.hotcover(b, a, t).value(), 1e-12, "T=" + t);
        }
    }

    @Test
    void disjointTreesShareNothing() {
        Cct a = tree("main;a=5", "main;b=5");
        Cct b = tree("other;a=5", "other;b=5");  // same leaf names, different contexts
        assertEquals(0.0, Metrics.overlap(a, b), 0);
        assertEquals(0.0, Metrics.hotcover(a, b, 0.1).value(), 0);
        assertEquals(0.0, Metrics.hotcover(b, a, 0.1).value(), 0);
    }

    /**
     * Worked by hand from the formulas, weights are self shares:
     * A: main .1, main;a .6, main;b .3.  B: main .2, main;a .2, main;b .2, main;c .4.
     * overlap = min(.1,.2) + min(.6,.2) + min(.3,.2) = .1 + .2 + .2 = .5 (main;c is only in B).
     * T = .5: hottest(A) = .6, hotset(A) = {a .6, b .3} (b exactly at .5 × .6);
     *         hottest(B) = .4, hotset(B) = {main, a, b, c} (all ≥ .2).
     * hotcover(A,B) = |{a, b}| / |hotset(B)| = 2/4 = .5; hotcover(B,A) = 2/2 = 1.
     */
    @Test
    void workedExample() {
        Cct a = tree("main;a=6", "main;b=3", "main=1");
        Cct b = tree("main;a=2", "main;c=4", "main=2", "main;b=2");
        assertEquals(0.5, Metrics.overlap(a, b), 1e-12);
        assertEquals(Metrics.overlap(a, b), Metrics.overlap(b, a), 1e-12);
        assertEquals(0.6, Metrics.hottest(a), 1e-12);
        assertEquals(0.4, Metrics.hottest(b), 1e-12);
        assertEquals(List.of("main;a", "main;b"), paths(Metrics.hotset(a, 0.5)));
        assertEquals(4, Metrics.hotset(b, 0.5).size());
        Metrics.HotCover ab = Metrics.hotcover(a, b, 0.5);
        assertEquals(0.5, ab.value(), 1e-12);
        assertEquals(2, ab.covered());
        assertEquals(4, ab.hotInSecond());
        assertEquals(2, ab.hotInFirst());
        assertEquals(1.0, Metrics.hotcover(b, a, 0.5).value(), 1e-12);
        // with the usual T = 0.1 everything in B is hot (≥ .04) and so is everything in A (≥ .06)
        assertEquals(3.0 / 4, Metrics.hotcover(a, b, 0.1).value(), 1e-12);
        assertEquals(1.0, Metrics.hotcover(b, a, 0.1).value(), 1e-12);
    }

    @Test
    void thresholdEdgeCases() {
        Cct a = tree("m;hot=10", "m;warm=3", "m;cold=2.9999");
        // T · max = 0.3 · 10 is 3.0000000000000004 in doubles: an edge exactly at the threshold is still hot
        assertEquals(List.of("m;hot", "m;warm"), paths(Metrics.hotset(a, 0.3)));
        // T = 1: only the hottest edge(s), ties included
        assertEquals(List.of("m;hot"), paths(Metrics.hotset(a, 1)));
        Cct tie = tree("m;x=5", "m;y=5", "m;z=1");
        assertEquals(List.of("m;x", "m;y"), paths(Metrics.hotset(tie, 1)));
        // T = 0: every edge, pure callers (self weight 0) included
        assertEquals(List.of("m", "m;hot", "m;warm", "m;cold"), paths(Metrics.hotset(a, 0)));
        // T = 0 makes hotcover a structural coverage: B has m, m;hot, m;other; 2 of 3 are in A
        Cct b = tree("m;hot=1", "m;other=1");
        assertEquals(2.0 / 3, Metrics.hotcover(a, b, 0).value(), 1e-12);
        for (double bad : new double[] {-0.01, 1.01, Double.NaN}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Metrics.hotcover(a, b, bad));
            assertTrue(e.getMessage().contains("threshold"), e.getMessage());
        }
    }

    @Test
    void emptyInputsAreAClearError() {
        Cct empty = Cct.empty();
        Cct a = tree("m;hot=1");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Metrics.overlap(empty, a));
        assertTrue(e.getMessage().contains("first profile is empty"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Metrics.hotcover(a, empty, 0.1));
        assertTrue(e.getMessage().contains("second profile is empty"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Metrics.hotset(empty, 0.1));
        // zero-weight stacks add nothing: still empty
        assertTrue(Cct.builder().add(List.of("m"), 0).build().isEmpty());
    }

    @Test
    void deepTreesDoNotOverflowTheStack() {
        String[] frames = new String[20_000];
        Arrays.fill(frames, "rec");
        Cct a = Cct.builder().add(Arrays.asList(frames), 1).build();
        assertEquals(1.0, Metrics.overlap(a, a), 1e-12);
        assertEquals(1.0, Metrics.hotcover(a, a, 0.1).value(), 1e-12);
        assertEquals(1.0, a.methods().get("rec")[1], 1e-12);  // recursion counted once
    }

    @Test
    void weightsAreRejectedWhenNegativeOrNotFinite() {
        assertThrows(IllegalArgumentException.class, () -> Cct.builder().add(List.of("m"), -1));
        assertThrows(IllegalArgumentException.class, () -> Cct.builder().add(List.of("m"), Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> Cct.builder().add(List.of("m"), Double.POSITIVE_INFINITY));
        assertThrows(IllegalArgumentException.class, () -> Cct.builder().add(List.of(), 1));
    }

    static List<String> paths(List<Cct.Node> nodes) {
        return nodes.stream().map(n -> String.join(";", n.path())).toList();
    }
}

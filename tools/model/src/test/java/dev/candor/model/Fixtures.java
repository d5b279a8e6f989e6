package dev.candor.model;

import java.util.ArrayList;
import java.util.List;

/** Small hand-made profiles for the tests. */
final class Fixtures {
    static final SampledThread MAIN = new SampledThread("main", 101, 1);
    static final SampledThread WORKER = new SampledThread("worker", 102, 2);
    static final long T0 = 1_700_000_000_000_000_000L;

    static Frame f(String name) {
        return Frame.parse(name);
    }

    static Sample sample(long offsetMs, SampledThread t, long weight, String... frames) {
        List<Frame> st = new ArrayList<>();
        for (String n : frames) {
            st.add(Frame.parse(n));
        }
        return new Sample(T0 + offsetMs * 1_000_000L, t, "test.Sample", st, weight);
    }

    /**
     * 100 samples: main 10 (a.Main.main;a.Main.setup), worker 90: 60 in a.Work.hot, 20 in a.Work.cold
     * (line 12 and 13), 5 [gc_active], 5 [dropped]. Times: setup at 0-9 ms, hot at 10-69, cold 70-89.
     */
    static Profile profile() {
        List<Sample> s = new ArrayList<>();
        s.add(sample(0, MAIN, 10, "a.Main.main", "a.Main.setup"));
        for (int i = 0; i < 60; i++) {
            s.add(sample(10 + i, WORKER, 1, "java.lang.Thread.run", "a.Work.run", "a.Work.hot"));
        }
        for (int i = 0; i < 10; i++) {
            s.add(sample(70 + i, WORKER, 1, "java.lang.Thread.run", "a.Work.run", "a.Work.cold:12"));
            s.add(sample(80 + i, WORKER, 1, "java.lang.Thread.run", "a.Work.run", "a.Work.cold:13"));
        }
        s.add(sample(90, WORKER, 5, "[gc_active]"));
        s.add(sample(95, WORKER, 5, "[dropped]"));
        return Profile.of("test.jfr", s);
    }

    /** The same sample with labels {@code key, value, key, value, ...}. */
    static Sample labeled(Sample s, String... keysAndValues) {
        java.util.Map<String, String> m = new java.util.HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return new Sample(s.timeNanos(), s.thread(), s.eventType(), s.stack(), s.weight(), Sample.labels(m));
    }

    /**
     * 100 samples with labels: 50 a.Work.hot with endpoint=/users trace_id=t1, 30 a.Work.hot with
     * endpoint=/orders, 15 a.Work.cold without labels, 5 [gc_active] with endpoint=/users.
     */
    static Profile labeledProfile() {
        List<Sample> s = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            s.add(labeled(sample(i, WORKER, 1, "a.Work.run", "a.Work.hot"), "endpoint", "/users", "trace_id", "t1"));
        }
        for (int i = 0; i < 30; i++) {
            s.add(labeled(sample(50 + i, WORKER, 1, "a.Work.run", "a.Work.hot"), "endpoint", "/orders"));
        }
        s.add(sample(80, MAIN, 15, "a.Work.run", "a.Work.cold"));
        s.add(labeled(sample(95, WORKER, 5, "[gc_active]"), "endpoint", "/users"));
        return Profile.of("labels.jfr", s);
    }

    private Fixtures() {
    }
}

package dev.candor.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The flame graph page's optional {@code timeline}: the samples themselves, so that the page can
 * draw them over time and rebuild the graph for a time range, some threads or the callers view
 * (viewer/README.md). Frames and stacks are tables; each record is a millisecond (since the
 * first timed sample), a thread, a stack and the weight of the samples that share all three.
 * Stacks are built as {@link Cct#of(List, Cct.Options)} builds its paths (thread root frame
 * first when split by thread, reversed when asked), so the page's tree of every record is the
 * page's {@code root}. Samples without a time are records with time -1: counted until a range is
 * chosen. Nothing is written when no sample has a time (a collapsed input).
 */
final class TimelineJson {
    private TimelineJson() {
    }

    private record Key(long ms, int thread, int stack) {
    }

    static void append(StringBuilder sb, List<Sample> samples, Cct.Options o) {
        long first = Long.MAX_VALUE;
        for (Sample s : samples) {
            if (s.hasTime() && s.weight() > 0) {
                first = Math.min(first, s.timeNanos());
            }
        }
        if (first == Long.MAX_VALUE) {
            return;
        }
        Map<String, Integer> frameIds = new HashMap<>();
        List<String> names = new ArrayList<>();
        StringBuilder kinds = new StringBuilder();
        Map<List<Integer>, Integer> stackIds = new LinkedHashMap<>();
        Map<SampledThread, Integer> threadIds = new LinkedHashMap<>();
        Map<Key, Long> weights = new LinkedHashMap<>();
        for (Sample s : samples) {
            if (s.weight() == 0) {
                continue;
            }
            List<Integer> path = new ArrayList<>(s.stack().size() + 1);
            if (o.threads()) {
                String name = s.thread() != null ? s.thread().rootFrame() : Frame.UNKNOWN_THREAD_ROOT;
                path.add(frameId(frameIds, names, kinds, name, 't'));
            }
            List<Frame> stack = s.stack();
            int n = stack.size();
            int roots = o.reverse() ? Frame.contextRoots(stack) : 0;
            for (int i = 0; i < n; i++) {
                Frame f = stack.get(Frame.shownIndex(i, n, roots, o.reverse()));
                path.add(frameId(frameIds, names, kinds, f.name(o.lines()), f.viewerKind()));
            }
            int stackId = stackIds.computeIfAbsent(path, k -> stackIds.size());
            int thread = s.thread() == null ? -1 : threadIds.computeIfAbsent(s.thread(), k -> threadIds.size());
            long ms = s.hasTime() ? (s.timeNanos() - first) / 1_000_000 : -1;
            weights.merge(new Key(ms, thread, stackId), s.weight(), Long::sum);
        }
        sb.append(",\"timeline\":{\"frames\":");
        Json.strings(sb, names);
        sb.append(",\"kinds\":");
        Json.string(sb, kinds.toString());
        sb.append(",\"res\":1");
        sb.append(",\"threads\":[");
        int i = 0;
        for (SampledThread t : threadIds.keySet()) {
            sb.append(i++ > 0 ? "," : "");
            Json.string(sb, t.name() + " tid=" + t.tid());
        }
        sb.append("],\"stacks\":[");
        i = 0;
        for (List<Integer> path : stackIds.keySet()) {
            sb.append(i++ > 0 ? ",[" : "[");
            for (int j = 0; j < path.size(); j++) {
                sb.append(j > 0 ? "," : "").append(path.get(j));
            }
            sb.append(']');
        }
        StringBuilder t = new StringBuilder("[");
        StringBuilder th = new StringBuilder("[");
        StringBuilder st = new StringBuilder("[");
        StringBuilder w = new StringBuilder("[");
        i = 0;
        for (Map.Entry<Key, Long> e : weights.entrySet()) {
            String sep = i++ > 0 ? "," : "";
            t.append(sep).append(e.getKey().ms());
            th.append(sep).append(e.getKey().thread());
            st.append(sep).append(e.getKey().stack());
            w.append(sep).append(e.getValue());
        }
        sb.append("],\"t\":").append(t).append("],\"th\":").append(th).append("],\"s\":").append(st)
                .append("],\"w\":").append(w).append("]}");
    }

    private static int frameId(Map<String, Integer> ids, List<String> names, StringBuilder kinds, String name,
                               char kind) {
        // one id per name and kind: the page colours by kind
        return ids.computeIfAbsent(kind + "\u0000" + name, k -> {
            names.add(name);
            kinds.append(kind);
            return names.size() - 1;
        });
    }
}

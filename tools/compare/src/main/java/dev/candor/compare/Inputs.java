package dev.candor.compare;

import dev.candor.model.Cct;
import dev.candor.model.CollapsedProfile;
import dev.candor.model.Frame;
import dev.candor.model.JfrEvents;
import dev.candor.model.Profile;
import dev.candor.model.ProfileReader;
import dev.candor.model.Recording;
import dev.candor.model.Sample;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Turns an input file into the calling context tree that is compared: reads it with the model's
 * {@link ProfileReader} (candor's .collapsed and .jfr, JDK JFR recordings, async-profiler JFR),
 * then applies the pseudo-frame policy, name normalization and focus of {@link Options}.
 *
 * <h2>Pseudo-frame policy</h2>
 * <ul>
 * <li>Context roots are removed, so that the same code matches across runs: thread roots
 *   {@code [name tid=N]} (tids differ every run), state frames {@code [state=…]}, label frames
 *   {@code [KEY=VALUE]} (the agent's split=label:KEY), and the
 *   sample-kind roots {@code [cpu]}, {@code [wall]}, {@code [safepoint]}, {@code [handshake]} that
 *   candor writes when one run mixes kinds. A run that mixes kinds is compared on one kind:
 *   {@link Options#kind()}, by default {@code cpu} when present.</li>
 * <li>Failures and losses ({@code [gc_active]}, {@code [unknown_java]}, {@code [dropped]}, the JFR
 *   reader's {@code [stack_walk_failed]}, {@code [lost_samples]}, {@code [no_stack_trace]}) stay:
 *   each is an edge of its own at the top level, so shares are of all ticks and a profiler that
 *   loses ticks is not renormalized behind the user's back. {@link Options#dropFailures()}
 *   removes them, and candor's {@code [kernel_unsampled]} ticks, whose Java stack is the next
 *   recorded tick's (shares become shares of recorded stacks). Under a focus they are kept too: they
 *   cannot be attributed to any stack, and dropping them would renormalize.</li>
 * <li>Other pseudo-frames inside stacks ({@code [truncated]} roots of stacks cut at the
 *   recording's depth limit or at the end of a stack copy, {@code [unknown_method]}) are ordinary frames.
 *   Under a focus, a cut stack with no frame matching it is kept as one {@code [truncated]} edge and
 *   counted with the failures: its callers, and so whether it ran under the focus, are unknown.</li>
 * <li>{@link Options#threads()} keeps the samples of threads whose name matches (samples without a
 *   thread, such as candor's failure ticks in .collapsed files, are kept: they cannot be told apart).</li>
 * <li>{@link Options#fold()} folds library frames into their caller: a run of frames matching it at
 *   the top of a stack is removed (the outermost frame is always kept), so time in, say, the JDK
 *   counts for the application method that called it.</li>
 * <li>{@link Options#javaOnly()} removes native code frames ({@link Frame#isNativeCode()}: C/C++
 *   symbols of any producer, whatever library they name, kernel frames, candor's {@code [stub]}
 *   frames) and candor's {@code [kernel_unsampled]} marker, so their time counts for the Java
 *   caller; a stack left without a frame belongs to no Java code (a GC or compiler thread) and is
 *   dropped.</li>
 * </ul>
 */
public final class Inputs {
    private Inputs() {
    }

    /** The sample kinds candor writes as root frames when a run mixes them. */
    public static final Set<String> KINDS = Frame.KINDS;
    /** The mark at the root of a stack cut at a depth limit or at the end of a stack copy. */
    static final String TRUNCATED = "[" + Frame.TRUNCATED + "]";

    /**
     * How to turn samples into the compared tree.
     *
     * @param lines        frames of one method at different lines are different ({@code m:12})
     * @param normalize    normalize generated class names ({@link FrameNames})
     * @param focus        re-root every stack at its outermost frame matching (find), dropping stacks
     *                     without a match (failures excepted); null for none
     * @param dropFailures drop failure and loss pseudo-frame stacks
     * @param javaOnly     drop native frames
     * @param kind         the sample kind of runs mixing kinds ({@code cpu}, {@code wall}, …); null:
     *                     {@code cpu} when present, else the most frequent
     * @param event        the event types of a JFR input ({@link Recording#selectEvents}); null: the default
     * @param threads      keep only samples of threads whose name matches (find); null for all
     * @param fold         frames to fold into their caller when at the top of a stack; null for none
     */
    public record Options(boolean lines, boolean normalize, Pattern focus, boolean dropFailures, boolean javaOnly,
                          String kind, String event, Pattern threads, Pattern fold) {
        public static final Options DEFAULT = new Options(false, true, null, false, false, null, null, null, null);

        public Options withFocus(Pattern p) {
            return new Options(lines, normalize, p, dropFailures, javaOnly, kind, event, threads, fold);
        }

        public Options withLines(boolean l) {
            return new Options(l, normalize, focus, dropFailures, javaOnly, kind, event, threads, fold);
        }

        public Options withNormalize(boolean n) {
            return new Options(lines, n, focus, dropFailures, javaOnly, kind, event, threads, fold);
        }

        public Options withJavaOnly(boolean j) {
            return new Options(lines, normalize, focus, dropFailures, j, kind, event, threads, fold);
        }

        public Options withDropFailures(boolean d) {
            return new Options(lines, normalize, focus, d, javaOnly, kind, event, threads, fold);
        }

        public Options withKind(String k) {
            return new Options(lines, normalize, focus, dropFailures, javaOnly, k, event, threads, fold);
        }

        public Options withEvent(String e) {
            return new Options(lines, normalize, focus, dropFailures, javaOnly, kind, e, threads, fold);
        }

        public Options withThreads(Pattern t) {
            return new Options(lines, normalize, focus, dropFailures, javaOnly, kind, event, t, fold);
        }

        public Options withFold(Pattern f) {
            return new Options(lines, normalize, focus, dropFailures, javaOnly, kind, event, threads, f);
        }

        /** A short description for report headers, e.g. "method, normalized, focus /x/". */
        public String describe() {
            List<String> parts = new ArrayList<>();
            parts.add(lines ? "frames matched by method and line" : "frames matched by method");
            parts.add(normalize ? "generated names normalized" : "names as recorded");
            if (focus != null) {
                parts.add("focus /" + focus.pattern() + "/");
            }
            if (threads != null) {
                parts.add("threads /" + threads.pattern() + "/");
            }
            if (fold != null) {
                parts.add("fold /" + fold.pattern() + "/");
            }
            parts.add(dropFailures ? "failures dropped" : "failures kept");
            if (javaOnly) {
                parts.add("Java frames only");
            }
            return String.join(", ", parts);
        }
    }

    /**
     * One input, read and reduced to its tree.
     *
     * @param source       the file
     * @param events       the event types used (JFR), or {@code collapsed}
     * @param kind         the sample kind kept from a run mixing kinds, or null
     * @param cct          the tree compared
     * @param read         total weight read (samples; for truth trees CPU ns)
     * @param kept         weight in the tree
     * @param failures     weight of failure and loss stacks in the tree (under a focus, with the stacks cut
     *                     before any frame matching it, kept as one {@code [truncated]} edge)
     * @param unfocused    weight dropped by the focus (no matching frame)
     * @param otherKinds   weight of samples of other kinds, dropped
     * @param droppedOther weight dropped otherwise (failures with dropFailures, stacks without Java frames,
     *                     samples of other threads)
     * @param notes        remarks for the user (e.g. the kind chosen)
     */
    public record Loaded(String source, List<String> events, String kind, Cct cct, double read, double kept,
                         double failures, double unfocused, double otherKinds, double droppedOther,
                         List<String> notes) {
        /** What the weights count: "bytes" for allocation events only, "ns" for lock waits, else "samples". */
        public String unit() {
            return JfrEvents.unitOf(events);
        }

        /** E.g. "a.jfr [jdk.ExecutionSample]". */
        public String label() {
            return source + (events.isEmpty() || events.equals(List.of(CollapsedProfile.EVENT_TYPE)) ? ""
                    : " [" + String.join(",", events) + "]") + (kind != null ? " [" + kind + "]" : "");
        }
    }

    /** Reads a file and builds its tree. */
    public static Loaded load(Path file, Options options) throws IOException {
        Recording rec = ProfileReader.read(file);
        if (rec.eventCounts().values().stream().mapToLong(Long::longValue).sum() == 0
                && (options.event() == null || options.event().isBlank())) {
            return fromSamples(file.toString(), List.of(), List.of(), options);  // empty: callers say so
        }
        List<String> events = rec.selectEvents(options.event());
        Profile profile = rec.profile(events);
        return fromSamples(file.toString(), events, profile.samples(), options);
    }

    /** Builds the tree of a collapsed profile already in memory. */
    public static Loaded of(String source, CollapsedProfile profile, Options options) {
        return fromSamples(source, List.of(CollapsedProfile.EVENT_TYPE), profile.toSamples(), options);
    }

    /** Builds the tree of samples (frames root first). */
    public static Loaded fromSamples(String source, List<String> events, List<Sample> samples, Options options) {
        // pass 1: the kinds present
        Map<String, Double> kinds = new LinkedHashMap<>();
        for (Sample s : samples) {
            String k = kindOf(s.stack());
            if (k != null) {
                kinds.merge(k, (double) s.weight(), Double::sum);
            }
        }
        List<String> notes = new ArrayList<>();
        String kind = null;
        if (!kinds.isEmpty()) {
            if (options.kind() != null) {
                kind = options.kind();
                if (!kinds.containsKey(kind)) {
                    throw new IllegalArgumentException(source + " has no samples of kind '" + kind + "'; it has "
                            + String.join(", ", kinds.keySet()));
                }
            } else if (kinds.containsKey("cpu")) {
                kind = "cpu";
            } else {
                kind = kinds.entrySet().stream().max(Map.Entry.comparingByValue()).get().getKey();
            }
            if (kinds.size() > 1) {
                notes.add(source + " mixes sample kinds " + kinds.keySet() + "; comparing its " + kind
                        + " samples (choose with --kind)");
            }
        }

        Cct.Builder cct = Cct.builder();
        double read = 0, failures = 0, unfocused = 0, otherKinds = 0, droppedOther = 0, cut = 0;
        Map<Frame, String> names = new java.util.HashMap<>();
        for (Sample s : samples) {
            double w = s.weight();
            read += w;
            List<Frame> stack = s.stack();
            int from = 0;
            String k = kindOf(stack);
            if (k != null) {
                if (!k.equals(kind)) {
                    otherKinds += w;
                    continue;
                }
                from = 1;
            }
            // context roots: thread roots, state and label frames (a thread root may follow a kind root)
            String thread = s.thread() != null ? s.thread().name() : null;
            while (from < stack.size() - 1 && (stack.get(from).isThreadRoot() || stack.get(from).isStateRoot()
                    || stack.get(from).isLabelRoot())) {
                String named = stack.get(from).threadName();
                if (named != null) {
                    thread = named;
                }
                from++;
            }
            if (options.threads() != null && thread != null && !options.threads().matcher(thread).find()) {
                droppedOther += w;
                continue;
            }
            if (options.dropFailures() && stack.get(stack.size() - 1).isKernelUnsampled()) {
                droppedOther += w;  // an estimated tick: no recorded stack, the next tick's Java stack lent
                continue;
            }
            List<String> frames = new ArrayList<>(stack.size() - from);
            for (int i = from; i < stack.size(); i++) {
                Frame f = stack.get(i);
                if (options.javaOnly() && isNative(f)) {
                    continue;
                }
                frames.add(names.computeIfAbsent(f, x -> name(x, options)));
            }
            if (frames.isEmpty()) {
                droppedOther += w;  // only native frames: not Java code
                continue;
            }
            if (options.fold() != null) {
                int end = frames.size();
                while (end > 1 && !Frame.isPseudoText(frames.get(end - 1))
                        && options.fold().matcher(frames.get(end - 1)).find()) {
                    end--;
                }
                if (end < frames.size()) {
                    frames = frames.subList(0, end);
                }
            }
            boolean failure = frames.size() == 1 && Frame.isPseudoText(frames.get(0))
                    && !Frame.isThreadRootText(frames.get(0));
            if (failure) {
                if (options.dropFailures()) {
                    droppedOther += w;
                    continue;
                }
                failures += w;
            } else if (options.focus() != null) {
                int at = -1;
                for (int i = 0; i < frames.size(); i++) {
                    if (options.focus().matcher(frames.get(i)).find()) {
                        at = i;
                        break;
                    }
                }
                if (at < 0 && cutBeforeItsCallers(frames)) {
                    // its callers are unknown, so whether it ran under the focus is too: kept as one edge,
                    // as a failure tick is, not silently left out with the stacks that ran elsewhere
                    if (options.dropFailures()) {
                        droppedOther += w;
                        continue;
                    }
                    failures += w;
                    cut += w;
                    frames = List.of(TRUNCATED);
                } else if (at < 0) {
                    unfocused += w;
                    continue;
                } else {
                    frames = frames.subList(at, frames.size());
                }
            }
            cct.add(frames, w);
        }
        Cct tree = cct.build();
        if (options.focus() != null && failures - cut > 0.2 * tree.total()) {
            notes.add(String.format(java.util.Locale.ROOT, "%.1f%% of %s are failure ticks, kept under the focus: they"
                    + " may come from threads outside it (a sampler mode also ticks idle threads, and .collapsed"
                    + " failure lines name no thread); --drop-failures leaves them out", 100 * (failures - cut) / tree.total(),
                    source));
        }
        if (cut > 0.01 * tree.total()) {
            notes.add(String.format(java.util.Locale.ROOT, "%.1f%% of %s are stacks cut before any frame matching the"
                    + " focus (a depth limit or a stack copy's end): kept under it as one edge, %s, since their callers"
                    + " are unknown; --drop-failures leaves them out", 100 * cut / tree.total(), source, TRUNCATED));
        }
        return new Loaded(source, events, kind, tree, read, tree.total(), failures, unfocused, otherKinds, droppedOther,
                List.copyOf(notes));
    }

    /** A stack whose outermost frames, before any real one, include the {@code [truncated]} mark of a cut. */
    private static boolean cutBeforeItsCallers(List<String> frames) {
        for (String f : frames) {
            if (f.equals(TRUNCATED)) {
                return true;
            }
            if (!Frame.isPseudoText(f)) {
                return false;
            }
        }
        return false;
    }

    private static String name(Frame f, Options o) {
        String n = f.name(o.lines());
        return o.normalize() ? FrameNames.normalize(n) : n;
    }

    /** The kind of a sample whose stack starts with a kind root followed by more frames, else null. */
    static String kindOf(List<Frame> stack) {
        if (stack.size() < 2) {
            return null;
        }
        Frame f = stack.get(0);
        return f.isKindRoot() ? f.methodName() : null;
    }


    private static boolean isNative(Frame f) {
        return f.isNativeCode() || f.isKernelUnsampled();  // the marker's time counts for its Java caller
    }
}

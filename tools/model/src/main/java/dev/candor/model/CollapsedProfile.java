package dev.candor.model;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A profile in folded ("collapsed") form: one line per distinct stack, frames separated by
 * {@code ;}, root first, then a space and the number of samples, e.g.
 * {@code a.B.main;a.B.hot 1234}.
 *
 * <p>candor writes failures as pseudo-frames in square brackets ({@code [gc_active] 12},
 * {@code [dropped] 3}) and, with the {@code threads} option, puts a thread root frame
 * {@code [name tid=N]} first. Those frames stay in the profile: {@link #total()} counts every
 * tick.
 *
 * <p>Instances are immutable. Identical stacks appearing on several lines are merged.
 */
public final class CollapsedProfile {

    private static final Pattern THREAD_ROOT = Frame.THREAD_ROOT;

    /** One distinct stack and how many samples it received. Frames are root first. */
    public record Stack(List<String> frames, long count) {
        public Stack {
            frames = List.copyOf(frames);
            if (frames.isEmpty()) {
                throw new IllegalArgumentException("a stack has at least one frame");
            }
            if (count < 0) {
                throw new IllegalArgumentException("negative count " + count);
            }
        }

        /** The innermost frame (where the CPU was). */
        public String leaf() {
            return frames.get(frames.size() - 1);
        }

        /** The outermost frame. */
        public String root() {
            return frames.get(0);
        }

        /** Whether any frame matches. */
        public boolean anyFrame(Predicate<String> frame) {
            for (String f : frames) {
                if (frame.test(f)) {
                    return true;
                }
            }
            return false;
        }

        /**
         * Whether the stack is a failure or drop: it has a failure pseudo-frame ({@code [gc_active]},
         * {@code [dropped]}); context roots and the {@code [truncated]} and {@code [kernel_unsampled]}
         * markers, which sit on a real stack, do not count.
         */
        public boolean isFailure() {
            return anyFrame(f -> isPseudoFrame(f) && Frame.parse(f).isFailure());
        }

        /** The folded line, without a trailing newline. */
        @Override
        public String toString() {
            return String.join(";", frames) + " " + count;
        }
    }

    /** A thread root frame {@code [name tid=N]} and the samples below it. */
    public record ThreadRoot(String frame, String name, long tid, long samples) {
    }

    private final List<Stack> stacks;
    private final long total;

    private CollapsedProfile(List<Stack> stacks) {
        this.stacks = List.copyOf(stacks);
        long t = 0;
        for (Stack s : this.stacks) {
            t = Math.addExact(t, s.count());
        }
        this.total = t;
    }

    /** A profile made of the given stacks (identical stacks are merged). */
    public static CollapsedProfile of(List<Stack> stacks) {
        Map<List<String>, Long> merged = new LinkedHashMap<>();
        for (Stack s : stacks) {
            merged.merge(s.frames(), s.count(), Math::addExact);
        }
        List<Stack> out = new ArrayList<>(merged.size());
        merged.forEach((frames, count) -> out.add(new Stack(frames, count)));
        return new CollapsedProfile(out);
    }

    /** Reads a .collapsed file (UTF-8). */
    public static CollapsedProfile read(Path file) throws IOException {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return parse(r, file.toString());
        }
    }

    /** Parses collapsed text; errors name the source {@code <string>}. */
    public static CollapsedProfile parse(String text) throws ProfileFormatException {
        try {
            return parse(new StringReader(text), "<string>");
        } catch (ProfileFormatException e) {
            throw e;
        } catch (IOException e) {
            throw new IllegalStateException(e); // a StringReader does not fail
        }
    }

    /**
     * Parses collapsed text. Blank lines are ignored; every other line must be
     * {@code frame;frame;... count} with a non-negative integer count and no empty frame.
     *
     * @param source named in error messages, e.g. the file name
     * @throws ProfileFormatException naming the line of the first malformed line
     */
    public static CollapsedProfile parse(Reader reader, String source) throws IOException {
        BufferedReader in = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
        Map<List<String>, Long> merged = new LinkedHashMap<>();
        String line;
        int lineNo = 0;
        while ((line = in.readLine()) != null) {
            lineNo++;
            if (line.endsWith("\r")) {
                line = line.substring(0, line.length() - 1);
            }
            if (line.isBlank()) {
                continue;
            }
            int sp = Math.max(line.lastIndexOf(' '), line.lastIndexOf('\t'));
            if (sp < 0) {
                throw new ProfileFormatException(source, lineNo,
                        "expected 'frame;frame;... count' but found no count: '" + abbreviate(line) + "'");
            }
            String stackText = line.substring(0, sp).strip();
            String countText = line.substring(sp + 1);
            long count;
            try {
                count = Long.parseLong(countText);
            } catch (NumberFormatException e) {
                throw new ProfileFormatException(source, lineNo,
                        "count '" + abbreviate(countText) + "' is not an integer in '" + abbreviate(line) + "'");
            }
            if (count < 0) {
                throw new ProfileFormatException(source, lineNo, "negative count " + count);
            }
            if (stackText.isEmpty()) {
                throw new ProfileFormatException(source, lineNo, "no frames before the count");
            }
            List<String> frames = Arrays.asList(stackText.split(";", -1));
            for (int i = 0; i < frames.size(); i++) {
                if (frames.get(i).isEmpty()) {
                    throw new ProfileFormatException(source, lineNo,
                            "empty frame (position " + (i + 1) + ") in '" + abbreviate(stackText) + "'");
                }
            }
            try {
                merged.merge(List.copyOf(frames), count, Math::addExact);
            } catch (ArithmeticException e) {
                throw new ProfileFormatException(source, lineNo, "sample count overflows a long");
            }
        }
        List<Stack> out = new ArrayList<>(merged.size());
        merged.forEach((frames, c) -> out.add(new Stack(frames, c)));
        return new CollapsedProfile(out);
    }

    private static String abbreviate(String s) {
        return s.length() <= 120 ? s : s.substring(0, 117) + "...";
    }

    // ---- frame classification -------------------------------------------------------------

    /** A frame in square brackets: a failure bucket, {@code [dropped]} or a thread root. */
    public static boolean isPseudoFrame(String frame) {
        return Frame.isPseudoText(frame);
    }

    /** A thread root frame {@code [name tid=N]}. */
    public static boolean isThreadRoot(String frame) {
        return Frame.isThreadRootText(frame);
    }

    /**
     * Matches the frames of one Java method, given as {@code package.Class.method}, with or
     * without the {@code :line} suffix the {@code lines} option adds.
     */
    public static Predicate<String> method(String qualifiedName) {
        Objects.requireNonNull(qualifiedName);
        String withLine = qualifiedName + ":";
        return f -> f.equals(qualifiedName) || f.startsWith(withLine);
    }

    // ---- queries --------------------------------------------------------------------------

    /** The distinct stacks, in file order. */
    public List<Stack> stacks() {
        return stacks;
    }

    /** All samples, failures and drops included. */
    public long total() {
        return total;
    }

    /** Samples of stacks that satisfy the predicate. */
    public long count(Predicate<Stack> stack) {
        long n = 0;
        for (Stack s : stacks) {
            if (stack.test(s)) {
                n += s.count();
            }
        }
        return n;
    }

    /** Samples whose leaf frame matches. */
    public long countLeaf(Predicate<String> frame) {
        return count(s -> frame.test(s.leaf()));
    }

    /** Samples with at least one matching frame on the stack (each sample counted once). */
    public long countAny(Predicate<String> frame) {
        return count(s -> s.anyFrame(frame));
    }

    /** Samples that are recorded stacks: no failure or drop pseudo-frame (thread roots allowed). */
    public long recorded() {
        return count(s -> !s.isFailure());
    }

    /** Samples in failure buckets and drops. */
    public long failures() {
        return count(Stack::isFailure);
    }

    /** Samples whose leaf frame is exactly this name. */
    public long self(String frame) {
        return countLeaf(frame::equals);
    }

    /** Samples with this frame name anywhere on the stack (recursion counted once). */
    public long total(String frame) {
        return countAny(frame::equals);
    }

    /** Self samples per frame name, largest first. */
    public Map<String, Long> selfByFrame() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Stack s : stacks) {
            m.merge(s.leaf(), s.count(), Long::sum);
        }
        return sortedByValue(m);
    }

    /** Total (inclusive) samples per frame name, largest first; recursion counted once. */
    public Map<String, Long> totalByFrame() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Stack s : stacks) {
            Set<String> seen = new HashSet<>();
            for (String f : s.frames()) {
                if (seen.add(f)) {
                    m.merge(f, s.count(), Long::sum);
                }
            }
        }
        return sortedByValue(m);
    }

    /** Samples per root frame, largest first. */
    public Map<String, Long> roots() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Stack s : stacks) {
            m.merge(s.root(), s.count(), Long::sum);
        }
        return sortedByValue(m);
    }

    /** Samples whose root frame is exactly this, e.g. {@code [main tid=123]}. */
    public long underRoot(String rootFrame) {
        return count(s -> s.root().equals(rootFrame));
    }

    /**
     * The stacks below a root frame, with that root removed. Stacks consisting of the root alone
     * are dropped (they have no frame left).
     */
    public CollapsedProfile subtree(String rootFrame) {
        List<Stack> out = new ArrayList<>();
        for (Stack s : stacks) {
            if (s.root().equals(rootFrame) && s.frames().size() > 1) {
                out.add(new Stack(s.frames().subList(1, s.frames().size()), s.count()));
            }
        }
        return of(out);
    }

    /** The thread root frames {@code [name tid=N]} found, largest first. */
    public List<ThreadRoot> threads() {
        List<ThreadRoot> out = new ArrayList<>();
        for (Map.Entry<String, Long> e : roots().entrySet()) {
            Matcher m = THREAD_ROOT.matcher(e.getKey());
            if (m.matches()) {
                out.add(new ThreadRoot(e.getKey(), m.group(1), Long.parseLong(m.group(2)), e.getValue()));
            }
        }
        return Collections.unmodifiableList(out);
    }

    /** The thread root of the thread with this name; empty if absent or the name is not unique. */
    public Optional<ThreadRoot> thread(String name) {
        List<ThreadRoot> found = threads().stream().filter(t -> t.name().equals(name)).toList();
        return found.size() == 1 ? Optional.of(found.get(0)) : Optional.empty();
    }

    private static Map<String, Long> sortedByValue(Map<String, Long> m) {
        List<Map.Entry<String, Long>> entries = new ArrayList<>(m.entrySet());
        entries.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        Map<String, Long> out = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : entries) {
            out.put(e.getKey(), e.getValue());
        }
        return Collections.unmodifiableMap(out);
    }

    /** Event type name given to samples read from collapsed stacks. */
    public static final String EVENT_TYPE = "collapsed";

    /**
     * The stacks as samples (without timestamps): a thread root frame {@code [name tid=N]} becomes
     * the sample's thread, the other frames are parsed with {@link Frame#parse(String)}.
     */
    public List<Sample> toSamples() {
        List<Sample> out = new ArrayList<>(stacks.size());
        Map<String, Frame> frameCache = new java.util.HashMap<>();
        for (Stack s : stacks) {
            if (s.count() == 0) {
                continue;
            }
            List<String> names = s.frames();
            SampledThread thread = null;
            Matcher m = THREAD_ROOT.matcher(names.get(0));
            if (names.size() > 1 && m.matches()) {
                long tid;
                try {
                    tid = Long.parseLong(m.group(2));
                } catch (NumberFormatException e) {
                    tid = -1;
                }
                thread = new SampledThread(m.group(1), tid, -1);
                names = names.subList(1, names.size());
            }
            List<Frame> frames = new ArrayList<>(names.size());
            for (String n : names) {
                frames.add(frameCache.computeIfAbsent(n, Frame::parse));
            }
            out.add(new Sample(Sample.NO_TIME, thread, EVENT_TYPE, frames, s.count()));
        }
        return out;
    }

    /** The profile in folded form, one stack per line. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Stack s : stacks) {
            sb.append(s).append('\n');
        }
        return sb.toString();
    }
}

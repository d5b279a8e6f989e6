package dev.candor.model;

import java.util.List;
import java.util.Objects;

/**
 * One frame of a sampled stack, like {@code jdk.jfr.consumer.RecordedFrame} but immutable and
 * independent of where it was read from.
 *
 * <p>A Java frame names its class ({@code java.lang.String}, may be empty for native symbols),
 * method, descriptor (may be empty) and line (0 or less when unknown). A <em>pseudo-frame</em>
 * stands for a tick that has no real stack, e.g. {@code [gc_active]} or {@code [dropped]}: its
 * {@link #methodName()} is the text between the brackets and its type is {@link Type#PSEUDO}.
 *
 * @param className     fully qualified class name with dots, or "" (native symbols, pseudo-frames)
 * @param methodName    method name, or the pseudo-frame's bucket name
 * @param descriptor    JVM method descriptor such as {@code (I)V}, or "" when unknown
 * @param line          source line, 0 or less when unknown
 * @param bytecodeIndex bytecode index, negative when unknown
 * @param type          how the frame was executing
 */
public record Frame(String className, String methodName, String descriptor, int line, int bytecodeIndex,
                    Type type) {

    /** How a frame was executing; JFR's frame type names map onto these. */
    public enum Type {
        INTERPRETED, JIT_COMPILED, INLINED,
        /** A Java frame whose execution mode is not known (e.g. read from collapsed stacks). */
        JAVA,
        NATIVE, CPP, KERNEL,
        /** A failure or other pseudo-frame in square brackets. */
        PSEUDO,
        /** The class an allocation sample allocated, the innermost frame of its stack ({@code byte[]}). */
        ALLOCATED;

        /** The type for a JFR frame type name ("Interpreted", "JIT compiled", "Inlined", "Native", ...). */
        public static Type fromJfr(String name) {
            if (name == null) {
                return JAVA;
            }
            switch (name) {
                case "Interpreted":
                    return INTERPRETED;
                case "JIT compiled":
                case "C1 compiled":
                case "C2 compiled":
                    return JIT_COMPILED;
                case "Inlined":
                    return INLINED;
                case "Native":
                    return NATIVE;
                case "C++":
                    return CPP;
                case "Kernel":
                    return KERNEL;
                default:
                    return JAVA;
            }
        }

        /** The flame graph viewer's kind letter: {@code j} Java, {@code n} native, {@code k} kernel, {@code f} pseudo. */
        public char viewerKind() {
            switch (this) {
                case NATIVE:
                case CPP:
                    return 'n';
                case KERNEL:
                    return 'k';
                case PSEUDO:
                    return 'f';
                case ALLOCATED:
                    return 'a';
                default:
                    return 'j';
            }
        }
    }

    public Frame {
        className = className == null ? "" : className;
        methodName = methodName == null ? "" : methodName;
        descriptor = descriptor == null ? "" : descriptor;
        Objects.requireNonNull(type, "type");
    }

    /** A Java (or native) frame. */
    public static Frame of(String className, String methodName, String descriptor, int line, int bytecodeIndex,
                           Type type) {
        return new Frame(className, methodName, descriptor, line, bytecodeIndex, type);
    }

    /** The allocated class of an allocation sample, by its Java name ({@code byte[]}, {@code java.lang.String}). */
    public static Frame allocated(String javaClassName) {
        return new Frame("", javaClassName, "", 0, -1, Type.ALLOCATED);
    }

    /** A pseudo-frame {@code [name]}; {@code name} is given without the brackets. */
    public static Frame pseudo(String name) {
        return new Frame("", name, "", 0, -1, Type.PSEUDO);
    }

    /** Suffix of a kernel frame in folded stacks (async-profiler's and candor's). */
    public static final String KERNEL_SUFFIX = "_[k]";
    /** Prefix of a frame of generated machine code in candor's output ({@code [stub] itable stub}). */
    public static final String STUB_PREFIX = "[stub] ";
    /** candor's marker of kernel time counted from the CPU clock but not sampled. */
    public static final String KERNEL_UNSAMPLED = "kernel_unsampled";
    /** The marker below a stack cut at the recording's depth limit. */
    public static final String TRUNCATED = "truncated";
    /** The value of a label root {@code [KEY=(none)]} for samples without the label KEY. */
    public static final String NO_LABEL_VALUE = "(none)";
    /** The thread root of a sample whose thread is not known. */
    public static final String UNKNOWN_THREAD_ROOT = "[unknown thread tid=0]";
    /** The sample kinds candor writes as root frames ({@code [cpu]}, ...) when a run mixes them. */
    public static final java.util.Set<String> KINDS = java.util.Set.of("cpu", "wall", "safepoint", "handshake");
    /** A thread root frame's text: {@code [name tid=N]}, the name in group 1, the tid in group 2. */
    public static final java.util.regex.Pattern THREAD_ROOT = java.util.regex.Pattern.compile("^\\[(.*) tid=(\\d+)\\]$");
    /**
     * A C symbol with its version, as async-profiler shows some of libc's: {@code memcpy@GLIBC_2.2.5},
     * {@code pthread_mutex_lock@@GLIBC_2.2.5} (its dots are not a class's); the bare name in group 1.
     */
    public static final java.util.regex.Pattern VERSIONED_SYMBOL =
            java.util.regex.Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)@@?[A-Za-z_]+[0-9.]*");
    // async-profiler's frame annotations (its `ann` option): Java, inlined, interpreted, C1-compiled
    private static final String[] JAVA_ANNOTATIONS = {"_[j]", "_[i]", "_[0]", "_[1]"};

    /**
     * A frame from its folded-stack text: {@code [x]} is a pseudo-frame, {@code a.b.C.m:12} a Java
     * frame with a line, {@code a.b.C.m} one without; {@code sym_[k]} a kernel frame;
     * {@code [stub] x} candor's frame of generated code; other text without a dot a C/C++ symbol.
     * async-profiler's annotations ({@code java/lang/Thread.run_[j]}, {@code _[i]}, {@code _[0]},
     * {@code _[1]}) and its slashed class names are read as candor writes Java frames; a versioned
     * C symbol ({@code memcpy@GLIBC_2.2.5}) is a C symbol.
     * {@link #name(boolean) name(true)} gives candor's text back.
     */
    public static Frame parse(String text) {
        if (text.endsWith(KERNEL_SUFFIX) && text.length() > KERNEL_SUFFIX.length()) {
            return new Frame("", text.substring(0, text.length() - KERNEL_SUFFIX.length()), "", 0, -1, Type.KERNEL);
        }
        if (text.startsWith(STUB_PREFIX)) {
            return new Frame("", text, "", 0, -1, Type.NATIVE);
        }
        if (isPseudoText(text)) {
            return pseudo(text.substring(1, text.length() - 1));
        }
        for (String annotation : JAVA_ANNOTATIONS) {
            if (text.endsWith(annotation) && text.length() > annotation.length()) {
                return javaFrame(text.substring(0, text.length() - annotation.length()).replace('/', '.'));
            }
        }
        if (text.indexOf('/') > 0 && text.indexOf(' ') < 0 && text.lastIndexOf('.') > text.lastIndexOf('/')) {
            return javaFrame(text.replace('/', '.'));  // async-profiler without `ann`: java/lang/Thread.run
        }
        if (isLibraryName(text) || (text.indexOf('.') < 0 && !text.isEmpty()) || VERSIONED_SYMBOL.matcher(text).matches()) {
            return new Frame("", text, "", 0, -1, text.contains("::") ? Type.CPP : Type.NATIVE);
        }
        return javaFrame(text);
    }

    private static Frame javaFrame(String text) {
        String body = text;
        int line = 0;
        int colon = text.lastIndexOf(':');
        if (colon > 0 && colon < text.length() - 1 && text.charAt(colon + 1) != '0') {
            String digits = text.substring(colon + 1);
            if (digits.length() <= 9 && digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
                line = Integer.parseInt(digits);
                body = text.substring(0, colon);
            }
        }
        int dot = body.lastIndexOf('.');
        // "a.b.C.m" splits at the last dot; a trailing dot or none keeps the text as the method name
        if (dot > 0 && dot < body.length() - 1) {
            return new Frame(body.substring(0, dot), body.substring(dot + 1), "", line, -1, Type.JAVA);
        }
        return new Frame("", body, "", line, -1, Type.JAVA);
    }

    public boolean isPseudo() {
        return type == Type.PSEUDO;
    }

    /** A kernel frame (JFR type Kernel, or {@code _[k]} in folded stacks). */
    public boolean isKernel() {
        return type == Type.KERNEL;
    }

    /**
     * Machine code that is not a Java method: a C/C++ function (its class, if any, is the library
     * it is in, as async-profiler's JFR writes it), a kernel function, or candor's {@code [stub]}
     * frame of generated code. A Java native method ({@code java.io.FileOutputStream.writeBytes})
     * is not: it has a Java class.
     */
    public boolean isNativeCode() {
        switch (type) {
            case CPP:
            case KERNEL:
                return true;
            case NATIVE:
                return className.isEmpty() || isLibraryName(className);
            default:
                return false;
        }
    }

    /** The flame graph viewer's kind letter of this frame: its type's, and kernel for the unsampled-kernel marker. */
    public char viewerKind() {
        return isKernelUnsampled() ? 'k' : type.viewerKind();
    }

    // ---- pseudo-frames, by what they say -----------------------------------------------------

    /** Text in square brackets: a failure bucket, a marker, a thread, state or kind root. */
    public static boolean isPseudoText(String text) {
        return text.length() >= 2 && text.charAt(0) == '[' && text.charAt(text.length() - 1) == ']';
    }

    /** The text of a thread root frame {@code [name tid=N]}. */
    public static boolean isThreadRootText(String text) {
        return THREAD_ROOT.matcher(text).matches();
    }

    /** A thread root {@code [name tid=N]} (candor's split=thread, async-profiler's threads). */
    public boolean isThreadRoot() {
        return type == Type.PSEUDO && isThreadRootText(name());
    }

    /** The thread a thread root names, or null for any other frame. */
    public String threadName() {
        if (type != Type.PSEUDO) {
            return null;
        }
        java.util.regex.Matcher m = THREAD_ROOT.matcher(name());
        return m.matches() ? m.group(1) : null;
    }

    /** candor's thread-state root {@code [state=sleeping]} (split=state). */
    public boolean isStateRoot() {
        return type == Type.PSEUDO && methodName.startsWith("state=");
    }

    /**
     * A label root {@code [KEY=VALUE]} (the agent's split=label:KEY, {@code report --split label:KEY}):
     * bracketed text with an {@code =} after a non-empty key, that is neither a thread root (a thread
     * name may contain {@code =}) nor a state root. {@code [KEY=(none)]} stands for samples without
     * the label ({@link #NO_LABEL_VALUE}). Failure buckets and class roots ({@code [byte[]]}) have no
     * {@code =}.
     */
    public boolean isLabelRoot() {
        return type == Type.PSEUDO && methodName.indexOf('=') > 0 && !isStateRoot() && !isThreadRoot();
    }

    /** The key of a label root {@code [KEY=VALUE]}, or null for any other frame. */
    public String labelKey() {
        return isLabelRoot() ? methodName.substring(0, methodName.indexOf('=')) : null;
    }

    /** The value of a label root {@code [KEY=VALUE]} ({@link #NO_LABEL_VALUE} when the sample had none), or null. */
    public String labelValue() {
        return isLabelRoot() ? methodName.substring(methodName.indexOf('=') + 1) : null;
    }

    /** The label root {@code [key=value]}; {@code value} null gives {@code [key=(none)]}. */
    public static Frame labelRoot(String key, String value) {
        if (key == null || key.isEmpty() || key.indexOf('=') >= 0) {
            throw new IllegalArgumentException("a label key is not empty and has no '=': " + key);
        }
        return pseudo(key + "=" + (value == null ? NO_LABEL_VALUE : value));
    }

    /** candor's sample-kind root ({@code [cpu]}, {@code [wall]}, ...) of a run that mixes kinds. */
    public boolean isKindRoot() {
        return type == Type.PSEUDO && KINDS.contains(methodName);
    }

    /** A root that only says where a sample came from (thread, state, kind, label): not code. */
    public boolean isContextRoot() {
        return isThreadRoot() || isStateRoot() || isKindRoot() || isLabelRoot();
    }

    /**
     * How many frames at the start of a stack (root first) are context roots, leaving at least one
     * frame: the callers view keeps them on top and reverses the rest.
     */
    public static int contextRoots(List<Frame> stack) {
        int n = 0;
        while (n < stack.size() - 1 && stack.get(n).isContextRoot()) {
            n++;
        }
        return n;
    }

    /**
     * The index of the {@code i}-th frame shown of a stack of {@code n} frames whose first
     * {@code roots} are context roots: {@code i} itself, or with {@code reverse} the context roots
     * first, in order, then the other frames leaf first.
     */
    public static int shownIndex(int i, int n, int roots, boolean reverse) {
        return !reverse || i < roots ? i : n - 1 - (i - roots);
    }

    /** The {@code [truncated]} marker of a stack cut at the depth limit. */
    public boolean isTruncated() {
        return type == Type.PSEUDO && methodName.equals(TRUNCATED);
    }

    /**
     * A tick that is no stack: a failure or loss bucket ({@code [gc_active]}, {@code [dropped]},
     * a JFR reader's {@code [lost_samples]}); not a context root, not a marker.
     */
    public boolean isFailure() {
        return type == Type.PSEUDO && !isContextRoot() && !isTruncated() && !isKernelUnsampled();
    }

    /** candor's marker of kernel time that was counted but not sampled ({@code [kernel_unsampled]}). */
    public boolean isKernelUnsampled() {
        return type == Type.PSEUDO && methodName.equals(KERNEL_UNSAMPLED);
    }

    /** A library file name as a C frame's class: {@code libc.so.6}, {@code libjvm.so}, {@code vdso}, {@code [vdso]}. */
    static boolean isLibraryName(String s) {
        return s.contains(".so") || s.equals("vdso") || s.equals("[vdso]") || s.equals("kernel") || s.equals("[kernel]");
    }

    /** {@code package.Class.method}, or {@code [bucket]} for a pseudo-frame. */
    public String name() {
        return name(false);
    }

    /** {@link #name()}, with {@code :line} appended when asked for and the line is known. */
    public String name(boolean withLine) {
        if (type == Type.PSEUDO) {
            return "[" + methodName + "]";
        }
        if (type == Type.KERNEL) {
            return methodName + KERNEL_SUFFIX;
        }
        if (isNativeCode()) {
            return methodName;  // a C symbol alone, whatever library it is in: producers agree on that
        }
        String n = className.isEmpty() ? methodName : className + "." + methodName;
        return withLine && line > 0 ? n + ":" + line : n;
    }

    @Override
    public String toString() {
        return name(true);
    }
}

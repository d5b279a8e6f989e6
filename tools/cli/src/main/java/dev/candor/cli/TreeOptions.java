package dev.candor.cli;

import dev.candor.compare.Inputs;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** The options {@code compare} and {@code merge} share: how inputs become calling context trees. */
final class TreeOptions {
    @Option(names = "--lines", description = "match frames by method and line (default: by method)")
    boolean lines;

    @Option(names = "--focus", paramLabel = "REGEX",
            description = "re-root every stack at its outermost frame matching REGEX (searched in the frame name);"
                    + " stacks without a match are dropped, failure ticks are kept")
    String focus;

    @Option(names = "--drop-failures",
            description = "drop failure and loss ticks ([gc_active], [dropped], ..., and the estimated"
                    + " [kernel_unsampled] ticks): shares become shares of recorded stacks (default: kept, shares"
                    + " are of all ticks)")
    boolean dropFailures;

    @Option(names = "--java-only",
            description = "drop native, C++ and kernel frames (async-profiler), so native time counts for its Java caller")
    boolean javaOnly;

    @Option(names = "--thread-filter", paramLabel = "REGEX",
            description = "keep only samples of threads whose name matches REGEX (samples without a thread,"
                    + " such as failure ticks in .collapsed files, are kept)")
    String threadFilter;

    // `report --threads` splits by thread; here the old spelling filtered. Kept for old scripts.
    @Option(names = "--threads", paramLabel = "REGEX", hidden = true, description = "old name of --thread-filter")
    String threadsOld;

    @Option(names = "--fold", paramLabel = "REGEX",
            description = "fold frames matching REGEX at the top of a stack into their caller, e.g."
                    + " '^(java|jdk|sun)\\.' charges JDK code (intrinsics, collections) to the application method"
                    + " calling it")
    String fold;

    @Option(names = "--raw-names",
            description = "do not normalize generated class names ($$$$Lambda$12/0x..., $Proxy7, ...)")
    boolean rawNames;

    @Option(names = "--kind", paramLabel = "KIND",
            description = "for runs mixing sample kinds ([cpu], [wall] roots): the kind to use: cpu, wall,"
                    + " safepoint or handshake (default: cpu)")
    String kind;

    @Option(names = {"-e", "--event"}, paramLabel = "EVENT",
            description = "JFR inputs: the sample events to use, e.g. jdk.ExecutionSample or CPUTimeSample"
                    + " (default: the CPU sample event with most samples)")
    String event;

    Inputs.Options toOptions(CommandLine cl) {
        Pattern p = regex(cl, "--focus", focus);
        if (kind != null && !Inputs.KINDS.contains(kind)) {
            throw new CommandLine.ParameterException(cl, "unknown --kind '" + kind + "' (expected one of "
                    + String.join(", ", Set.of("cpu", "wall", "safepoint", "handshake")) + ")");
        }
        return new Inputs.Options(lines, !rawNames, p, dropFailures, javaOnly, kind, event,
                threadFilter != null ? regex(cl, "--thread-filter", threadFilter) : regex(cl, "--threads", threadsOld), regex(cl, "--fold", fold));
    }

    private static Pattern regex(CommandLine cl, String option, String text) {
        if (text == null) {
            return null;
        }
        try {
            return Pattern.compile(text);
        } catch (PatternSyntaxException e) {
            throw new CommandLine.ParameterException(cl, option + " '" + text + "' is not a valid regular expression: "
                    + e.getDescription() + (e.getIndex() >= 0 ? " near index " + e.getIndex() : ""));
        }
    }

    /** Reads one input; problems become one-line failures with exit code 3 (usage: 1 for a bad --event). */
    static Inputs.Loaded load(Path file, Inputs.Options options) {
        try {
            return Inputs.load(file, options);
        } catch (IOException e) {
            throw Candor.Failure.unreadable(file, e);
        } catch (IllegalArgumentException e) {
            throw new Candor.Failure(options.event() != null || options.kind() != null ? Candor.USAGE
                    : Candor.PROFILING, e.getMessage());
        }
    }

    /** Writes a text file atomically (temporary file, then rename). */
    static void write(Path output, String text) {
        writeAtomically(output, out -> out.write(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** Writes the body of a file. */
    interface Body {
        void writeTo(OutputStream out) throws IOException;
    }

    /**
     * Writes OUTPUT through a temporary file in its directory that is moved into place, so a
     * failed write never leaves half a report; every failure is one {@link Candor.Failure} line.
     */
    static void writeAtomically(Path output, Body body) {
        Path target = output.toAbsolutePath().normalize();
        Path dir = target.getParent();
        Path tmp = null;
        try {
            tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
            try (OutputStream out = Files.newOutputStream(tmp)) {
                body.writeTo(out);
            }
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            tmp = null;
        } catch (NoSuchFileException e) {
            throw new Candor.Failure(Candor.PROFILING, "cannot write " + output + ": no such directory " + dir);
        } catch (AccessDeniedException e) {
            throw new Candor.Failure(Candor.PROFILING, "cannot write " + output + ": permission denied");
        } catch (IOException e) {
            throw new Candor.Failure(Candor.PROFILING, "cannot write " + output + ": " + e.getMessage());
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // best effort
                }
            }
        }
    }
}

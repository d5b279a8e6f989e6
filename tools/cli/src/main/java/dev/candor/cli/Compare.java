package dev.candor.cli;

import dev.candor.compare.Comparison;
import dev.candor.compare.DiffFlameGraph;
import dev.candor.compare.Inputs;
import dev.candor.compare.Metrics;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code candor compare A B}: how far two profiles agree, by the calling-context-tree accuracy
 * metrics of the profiling literature (degree of overlap, hot-edge coverage: see
 * {@link dev.candor.compare.Metrics}), and where they differ most.
 */
@Command(name = "compare",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        exitCodeOnInvalidInput = Candor.USAGE,
        exitCodeOnExecutionException = Candor.PROFILING,
        description = {
                "Compares two profiles: anything `candor report` reads (.collapsed, candor's .jfr, JDK JFR"
                        + " recordings, async-profiler JFR), or a workload's truth tree (collapsed, CPU ns per stack).",
                "Prints overlap(A,B), hotcover(A,B,T) and hotcover(B,A,T), the sample counts behind them, and the"
                        + " edges and methods whose share differs most.",
                "An edge is a calling context (a path of frames from the root); its weight is the share of samples"
                        + " whose stack ends there. overlap = sum over common edges of min(weight in A, weight in B);"
                        + " hotcover(A,B,T) = share of B's hot edges (weight >= T x B's hottest) that are hot in A.",
                "Thread roots, [state=..] and [KEY=VALUE] label frames and [cpu]/[wall] kind roots are removed; failure ticks"
                        + " ([gc_active], [dropped], ...) stay as edges of their own, so shares are of all ticks."},
        customSynopsis = "candor compare A B [--threshold T] [--html OUT] [--focus REGEX] [--lines] [--top N]"
                + " [--thread-filter REGEX] [--fold REGEX] [--drop-failures] [--java-only] [--raw-names] [--kind KIND]"
                + " [--event EVENT]",
        footer = {"", "Examples:",
                "  candor compare run1.collapsed run2.jfr",
                "  candor compare app.jfr truth.collapsed --focus '\\.Work\\.run$' --html diff.html"})
final class Compare implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "A", description = "the first profile")
    Path a;

    @Parameters(index = "1", paramLabel = "B", description = "the second profile")
    Path b;

    @Option(names = "--threshold", paramLabel = "T", defaultValue = "0.1",
            description = "hot edges weigh at least T times the hottest edge, 0 to 1 (default: ${DEFAULT-VALUE})")
    double threshold;

    @Option(names = "-t", paramLabel = "T", hidden = true, description = "old short form of --threshold")
    Double thresholdShort;

    @Option(names = "--html", paramLabel = "OUT",
            description = "also write a differential flame graph: widths are the mean of both shares,"
                    + " red grew from A to B, blue shrank")
    Path html;

    @Option(names = "--top", paramLabel = "N", defaultValue = "10",
            description = "rows of the edge and method tables (default: ${DEFAULT-VALUE})")
    int top;

    @Mixin
    TreeOptions tree;

    @Override
    public Integer call() {
        CommandLine cl = spec.commandLine();
        if (thresholdShort != null) {
            threshold = thresholdShort;
        }
        if (!(threshold >= 0 && threshold <= 1)) {
            throw new CommandLine.ParameterException(cl, "--threshold must be between 0 and 1, not "
                    + String.format(Locale.ROOT, "%s", threshold));
        }
        if (top < 0) {
            throw new CommandLine.ParameterException(cl, "--top must not be negative: " + top);
        }
        Inputs.Options options = tree.toOptions(cl);
        Inputs.Loaded la = TreeOptions.load(a, options);
        Inputs.Loaded lb = TreeOptions.load(b, options);
        Comparison c;
        try {
            c = Comparison.of(la, lb, threshold);
        } catch (IllegalArgumentException e) {
            throw new Candor.Failure(Candor.PROFILING, e.getMessage());
        }
        cl.getOut().print(c.text(top, options.describe()));
        if (html != null) {
            String subtitle = String.format(Locale.ROOT,
                    "A: %s · B: %s · overlap %.3f · hotcover(A,B,%s) %.3f · hotcover(B,A,%s) %.3f · width: mean share;"
                            + " red grew in B, blue shrank", la.label(), lb.label(), c.overlap(),
                    fmt(threshold), c.coverAB().value(), fmt(threshold), c.coverBA().value());
            TreeOptions.write(html, DiffFlameGraph.html(la, lb, "candor compare: " + a.getFileName() + " vs "
                    + b.getFileName(), subtitle));
            cl.getOut().println();
            cl.getOut().println("differential flame graph written to " + html);
        }
        cl.getOut().flush();
        return Candor.OK;
    }

    private static String fmt(double t) {
        return t == Metrics.DEFAULT_THRESHOLD ? "0.1" : String.format(Locale.ROOT, "%s", t);
    }
}

package dev.candor.cli;

import dev.candor.model.Cct;
import dev.candor.compare.Inputs;
import dev.candor.compare.Merger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code candor merge IN... -o OUT}: the average of several profiles as one normalized tree. */
@Command(name = "merge",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        exitCodeOnInvalidInput = Candor.USAGE,
        exitCodeOnExecutionException = Candor.PROFILING,
        description = {
                "Averages several profiles into one normalized calling context tree, the way one merges"
                        + " the per-iteration trees of a benchmark: each input is normalized to a total of 1, so"
                        + " each counts equally; an edge's weight is the mean of its shares.",
                "The output is collapsed stacks whose counts sum to --scale (parts per million by default);"
                        + " `candor report OUT -o x.html` draws it, `candor compare` compares it.",
                "Inputs are read like `candor compare` reads them (same options)."},
        customSynopsis = "candor merge IN... -o OUT.collapsed [--scale N] [--focus REGEX] [--lines]"
                + " [--thread-filter REGEX] [--fold REGEX] [--drop-failures] [--java-only] [--raw-names] [--kind KIND]"
                + " [--event EVENT]")
final class Merge implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0..*", arity = "1..*", paramLabel = "IN", description = "the profiles to merge")
    List<Path> inputs = new ArrayList<>();

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", required = true,
            description = "the merged profile (.collapsed)")
    Path output;

    @Option(names = "--scale", paramLabel = "N", defaultValue = "1000000",
            description = "the total of the output's counts (default: ${DEFAULT-VALUE})")
    long scale;

    @Mixin
    TreeOptions tree;

    @Override
    public Integer call() {
        CommandLine cl = spec.commandLine();
        if (scale <= 0) {
            throw new CommandLine.ParameterException(cl, "--scale must be positive: " + scale);
        }
        String name = output.getFileName().toString();
        if (!name.endsWith(".collapsed") && !name.endsWith(".txt")) {
            throw new CommandLine.ParameterException(cl, "merge writes collapsed stacks: give an output ending in"
                    + " .collapsed (and draw it with `candor report " + name + " -o x.html`)");
        }
        Inputs.Options options = tree.toOptions(cl);
        List<Cct> trees = new ArrayList<>();
        for (Path in : inputs) {
            Inputs.Loaded l = TreeOptions.load(in, options);
            if (l.cct().isEmpty()) {
                throw new Candor.Failure(Candor.PROFILING, in + " has no samples to merge"
                        + (l.read() > 0 ? " (of " + (long) l.read() + " read, none is left after the options)" : ""));
            }
            trees.add(l.cct());
            cl.getOut().println(String.format(Locale.ROOT, "%s: %,d %s, %,d edges", l.label(),
                    (long) l.kept(), l.unit(), l.cct().edgeCount()));
        }
        Cct merged = Merger.average(trees);
        TreeOptions.write(output, Merger.toCollapsed(merged, scale));
        cl.getOut().println(String.format(Locale.ROOT, "merged %d profiles (%,d edges) into %s; counts sum to %,d",
                trees.size(), merged.edgeCount(), output, scale));
        cl.getOut().flush();
        return Candor.OK;
    }
}

package dev.candor.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/** {@code candor record [options] -- java ARGS...}: run a Java command with profiling from the start. */
@Command(name = "record",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        exitCodeOnInvalidInput = Candor.USAGE,
        exitCodeOnExecutionException = Candor.PROFILING,
        description = {
                "Runs a Java command with the candor agent loaded and profiling from the start.",
                "The agent is inserted right after the java executable; outputs are written when the JVM exits.",
                "Returns the exit code of the command (3 if it succeeded but no profile was written)."},
        customSynopsis = "candor record [-e EVENT] [-i INTERVAL] [-f FILE]... [--stats FILE] "
                + "[--agent-options STRING] [--agent PATH] -- java ARGS...",
        footer = {"", "Example:", "  candor record -i 1ms -f profile.html -- java -jar app.jar"})
final class Record implements Callable<Integer> {

    private static final Set<String> EVENTS = Set.of("cpu", "ctimer", "itimer");
    private static final Pattern INTERVAL = Pattern.compile("[0-9]+(ns|us|ms|s)?");
    private static final List<String> FORMATS = List.of(".html", ".collapsed", ".txt");

    @ParentCommand
    Candor parent;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-e", "--event"}, paramLabel = "EVENT",
            description = "sampling engine: cpu, ctimer or itimer (agent default: cpu)")
    String event;

    @Option(names = {"-i", "--interval"}, paramLabel = "INTERVAL",
            description = "CPU time between samples of one thread: N[ns|us|ms|s] (agent default: 10ms)")
    String interval;

    @Option(names = {"-f", "--file"}, paramLabel = "FILE",
            description = "output file, format by extension: .html, .collapsed, .txt; repeatable "
                    + "(agent default: candor-PID.html)")
    List<String> files = new ArrayList<>();

    @Option(names = "--stats", paramLabel = "FILE", description = "also write the counters as JSON")
    String stats;

    @Option(names = "--agent-options", paramLabel = "STRING",
            description = "more agent options, appended verbatim, e.g. threads,lines")
    String agentOptions;

    @Parameters(paramLabel = "java ARGS", arity = "1..*", description = "the Java command to run")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() {
        String options = agentOptions();
        Path agent = parent.agentLibrary();
        if (!Files.isRegularFile(agent)) {
            throw new Candor.Failure(Candor.PROFILING,
                    "agent library not found: " + agent + " (give its path with --agent PATH)");
        }
        List<String> cmd = withAgent(command, agent, options);
        Process child;
        try {
            child = new ProcessBuilder(cmd).inheritIO().start();
        } catch (IOException e) {
            throw new Candor.Failure(Candor.TARGET, "cannot run '" + command.get(0) + "': " + e.getMessage());
        }
        Thread forward = new Thread(() -> stopChild(child), "candor-stop-child");
        Runtime.getRuntime().addShutdownHook(forward);
        int code;
        try {
            code = child.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopChild(child);
            return Candor.TARGET;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(forward);
        } catch (IllegalStateException ignored) {
            // already shutting down
        }
        if (code == 0 && !List.of(options.split(",")).contains("help")) {
            List<String> missing = new ArrayList<>();
            for (String out : expectedOutputs(options, child.pid())) {
                if (!Files.exists(Path.of(out))) {
                    missing.add(out);
                }
            }
            if (!missing.isEmpty()) {
                spec.commandLine().getErr().println("candor: no profile written to " + String.join(", ", missing)
                        + " (see the agent's messages above)");
                spec.commandLine().getErr().flush();
                return Candor.PROFILING;
            }
        }
        return code;
    }

    // Lets the JVM write its profile when candor itself is asked to stop.
    private static void stopChild(Process child) {
        if (!child.isAlive()) {
            return;
        }
        child.destroy();
        try {
            child.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The agent option string: start, then the options given, in order. */
    String agentOptions() {
        List<String> opts = new ArrayList<>();
        opts.add("start");
        if (event != null) {
            if (!EVENTS.contains(event)) {
                throw usage("unknown event '" + event + "' (expected cpu, ctimer or itimer)");
            }
            opts.add("event=" + event);
        }
        if (interval != null) {
            if (!INTERVAL.matcher(interval).matches()) {
                throw usage("invalid interval '" + interval + "' (expected N[ns|us|ms|s], e.g. 1ms)");
            }
            opts.add("interval=" + interval);
        }
        for (String f : files) {
            checkPath(f, "--file");
            String lower = f.toLowerCase(Locale.ROOT);
            if (FORMATS.stream().noneMatch(lower::endsWith)) {
                throw usage("cannot tell the format of '" + f + "' (use .html, .collapsed or .txt)");
            }
            opts.add("file=" + f);
        }
        if (stats != null) {
            checkPath(stats, "--stats");
            opts.add("stats=" + stats);
        }
        if (agentOptions != null) {
            String extra = agentOptions.strip();
            while (extra.startsWith(",")) {
                extra = extra.substring(1);
            }
            if (!extra.isEmpty()) {
                opts.add(extra);
            }
        }
        return String.join(",", opts);
    }

    private void checkPath(String path, String option) {
        if (path.isEmpty() || path.contains(",")) {
            throw usage(option + " '" + path + "': a path must be non-empty and must not contain ','");
        }
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** The command with {@code -agentpath:AGENT=OPTIONS} inserted right after the java executable. */
    static List<String> withAgent(List<String> command, Path agent, String options) {
        List<String> cmd = new ArrayList<>(command.size() + 1);
        cmd.add(command.get(0));
        cmd.add("-agentpath:" + agent + "=" + options);
        cmd.addAll(command.subList(1, command.size()));
        return cmd;
    }

    /** The files the agent will write for these options (its default when no file= is given). */
    static List<String> expectedOutputs(String options, long pid) {
        List<String> out = new ArrayList<>();
        boolean anyFile = false;
        for (String opt : options.split(",")) {
            if (opt.startsWith("file=")) {
                out.add(opt.substring(5));
                anyFile = true;
            } else if (opt.startsWith("stats=")) {
                out.add(opt.substring(6));
            }
        }
        if (!anyFile) {
            out.add("candor-" + pid + ".html");
        }
        return out;
    }
}

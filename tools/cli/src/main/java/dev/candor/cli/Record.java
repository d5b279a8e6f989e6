package dev.candor.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

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

    @ParentCommand
    Candor parent;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    ProfileOptions profile;

    @Parameters(paramLabel = "java ARGS", arity = "1..*", description = "the Java command to run")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() {
        String options = agentOptions();
        Path agent = parent.agentLibrary();
        AgentLibrary.check(agent);
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
        opts.addAll(profile.items(null)); // relative paths stay relative: the JVM runs in our directory
        return String.join(",", opts);
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
            if (opt.startsWith("push=")) {  // the agent sends its profiles; it writes no default page
                anyFile = true;
            } else if (opt.startsWith("file=")) {
                out.add(opt.substring(5));
                anyFile = true;
            } else if (opt.startsWith("stats=")) {  // with stats alone the agent writes no default page either
                out.add(opt.substring(6));
                anyFile = true;
            }
        }
        if (!anyFile) {
            out.add("candor-" + pid + ".html");
        }
        return out;
    }
}

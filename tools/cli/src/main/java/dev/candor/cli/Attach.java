package dev.candor.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code candor attach PID start|stop|dump|status [options]} and {@code candor attach PID -d 30 -f
 * profile.html}: control candor in a running JVM through the Attach API. The first command loads
 * the agent; later ones talk to that same copy.
 */
@Command(name = "attach",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        exitCodeOnInvalidInput = Candor.USAGE,
        exitCodeOnExecutionException = Candor.PROFILING,
        description = {
                "Controls candor in a running JVM of the same user, or as root of any user",
                "(see 'candor list').",
                "The first command loads the agent; later ones talk to that same copy.",
                "  start   start profiling (-e, -i, -f, --stats, --agent-options)",
                "  dump    write the outputs now and keep profiling (-f: to these files)",
                "  stop    stop profiling and write the outputs",
                "  status  print 'running event=... ticks=... recorded=... failed=...",
                "          dropped=...', 'idle', or 'not loaded'",
                "With --duration and no command: start, wait, stop; Ctrl-C stops early",
                "and still writes. Without -f the profile goes to ./candor-PID.html.",
                "Relative paths are taken from the current directory, not the JVM's.",
                "A JVM in a container (its own mount and pid namespace) is given by its pid",
                "here; the agent goes in, and the outputs come out, through /proc/PID/root.",
                "As root, another user's JVM loads the agent from /tmp/.candor-lib-0 and",
                "writes to its own /tmp/.candor-UID; the outputs are then moved to your paths.",
                "JDK 21+ warns when an agent is loaded into a running JVM unless it was",
                "started with -XX:+EnableDynamicAgentLoading; -XX:-EnableDynamicAgentLoading",
                "forbids it (use candor record then)."},
        customSynopsis = {"candor attach [-e EVENT] [-i INTERVAL] [-f FILE]... [--stats FILE]",
                "              [-d DURATION] [--agent-options STRING] [--agent PATH]",
                "              PID [start|stop|dump|status]"},
        footer = {"", "Examples:",
                "  candor attach 1234 -d 30 -f profile.html      # profile for 30 s",
                "  candor attach 1234 start -i 1ms -f profile.html",
                "  candor attach 1234 dump -f now.collapsed",
                "  candor attach 1234 status",
                "  candor attach 1234 stop",
                "", "Exit codes: 0 ok, 1 usage, 2 target problem (no such process, not a JVM,",
                "another user's JVM, attach refused), 3 profiling problem (agent missing or",
                "for another machine, options rejected by the agent, command failed)."})
final class Attach implements Callable<Integer> {

    private static final Set<String> ACTIONS = Set.of("start", "stop", "dump", "status");

    @ParentCommand
    Candor parent;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    ProfileOptions profile;

    @Option(names = {"-d", "--duration"}, paramLabel = "DURATION", order = 5,
            description = "profile for this long, then stop and write: N[ms|s|m|h], a bare number is seconds")
    String duration;

    @Parameters(index = "0", paramLabel = "PID", description = "process id of the JVM")
    String pidText;

    @Parameters(index = "1", arity = "0..1", paramLabel = "COMMAND", description = "start, stop, dump or status")
    String action;

    @Override
    public Integer call() throws InterruptedException {
        long pid = parsePid();
        if (ModuleLayer.boot().findModule("jdk.attach").isEmpty()) {
            throw new Candor.Failure(Candor.PROFILING, "attach needs a JDK (module jdk.attach), and "
                    + System.getProperty("java.home") + " is a runtime without it: set JAVA_HOME to a JDK");
        }
        String command = checkCommand();
        long durationMs = duration == null ? 0 : parseDuration(duration);
        if (durationMs < 0) {
            throw profile.usage("invalid duration '" + duration + "' (expected N[ms|s|m|h] from 1ms to 7 days, e.g. 30s)");
        }
        Path cwd = Path.of("").toAbsolutePath();
        List<String> items = new ArrayList<>();
        if (command.equals("start")) {
            items.addAll(profile.items(cwd));
            if (!profile.namesAnOutput()) {
                items.add("file=" + cwd.resolve("candor-" + pid + ".html"));
            }
        } else if (command.equals("dump")) {
            items.addAll(profile.fileItems(cwd));
        }
        Target target = Target.forAttach(pid);
        TargetRoot root = TargetRoot.of(target); // a JVM in a container, or another user's, writes in a stage
        List<String> agentItems = items;
        if (root != null && (command.equals("start") || !items.isEmpty())) {
            agentItems = root.redirectOutputs(items, cwd, command.equals("start"));
        }
        String settings = String.join(",", agentItems);

        PrintWriter out = spec.commandLine().getOut();
        if (target.candorLibraries().isEmpty() && !command.equals("start")) { // status, stop, dump: nothing to ask
            if (command.equals("status")) {
                out.println("not loaded");
                out.flush();
                return Candor.OK;
            }
            throw new Candor.Failure(Candor.PROFILING, "candor is not loaded in JVM " + pid + ": nothing to "
                    + command + " (start it with: candor attach " + pid + " start)");
        }
        String library = library(target, root); // the copy in the JVM, or the agent file, ELF-checked before any attach
        // With --duration, a shutdown hook stops the profiler if candor itself is stopped first
        // (Ctrl-C, kill), so the outputs are still written. It is registered before the start.
        EarlyStop early = durationMs > 0 ? new EarlyStop(target, root, outputs(items), out, spec.commandLine().getErr())
                : null;
        try (AgentConnection agent = AgentConnection.open(target, root)) {
            String answer = early != null ? early.start(agent, library, join(command, settings))
                    : agent.send(library, join(command, settings));
            if (root != null && (command.equals("stop") || command.equals("dump"))) {
                root.fetchOutputs(command.equals("stop"));
            }
            switch (command) {
                case "status" -> out.println(answer);
                case "stop" -> out.println("stopped profiling JVM " + pid + "; outputs written");
                case "dump" -> out.println("dumped the profile of JVM " + pid
                        + (profile.files.isEmpty() ? "" : " to " + String.join(", ", outputs(items))));
                default -> out.println("profiling JVM " + pid + " (" + target.mainClass() + ")"
                        + (outputs(items).isEmpty() ? "" : ", outputs: " + String.join(", ", outputs(items))));
            }
            out.flush();
            if (early != null) {
                Thread.sleep(durationMs);
                if (early.stopNow(agent)) {
                    if (root != null) {
                        root.fetchOutputs(true);
                    }
                    List<String> missing = outputs(items).stream().filter(p -> !Files.exists(Path.of(p))).toList();
                    if (!missing.isEmpty()) {
                        throw new Candor.Failure(Candor.PROFILING, "JVM " + pid + " wrote no "
                                + String.join(", ", missing) + " (see its stderr)");
                    }
                    out.println("stopped profiling JVM " + pid
                            + (outputs(items).isEmpty() ? "" : "; wrote " + String.join(", ", outputs(items))));
                    out.flush();
                }
            } else if (command.equals("start")) {
                out.println("stop with: candor attach " + pid + " stop");
                out.flush();
            }
        } finally {
            if (early != null) {
                early.unregister();
            }
        }
        return Candor.OK;
    }

    /** The shutdown hook of --duration: stops a session this command started, once. */
    private static final class EarlyStop {
        private final Target target;
        private final TargetRoot root;
        private final List<String> outputs;
        private final PrintWriter out;
        private final PrintWriter err;
        private final Thread hook;
        private String library; // set once the start succeeded; guarded by this
        private boolean stopped; // guarded by this

        EarlyStop(Target target, TargetRoot root, List<String> outputs, PrintWriter out, PrintWriter err) {
            this.target = target;
            this.root = root;
            this.outputs = outputs;
            this.out = out;
            this.err = err;
            this.hook = new Thread(this::onExit, "candor-stop-on-exit");
            Runtime.getRuntime().addShutdownHook(hook);
        }

        // Holding the lock during the start makes the hook wait for its outcome.
        synchronized String start(AgentConnection agent, String lib, String options) {
            String answer = agent.send(lib, options);
            library = lib;
            return answer;
        }

        /** Stops unless the hook did already; true when this call stopped the profiler. */
        boolean stopNow(AgentConnection agent) {
            synchronized (this) {
                if (stopped || library == null) {
                    return false;
                }
                stopped = true;
            }
            agent.send(library, "stop");
            return true;
        }

        private void onExit() {
            String lib;
            synchronized (this) {
                if (stopped || library == null) {
                    return;
                }
                stopped = true;
                lib = library;
            }
            try (AgentConnection own = AgentConnection.open(target, root)) { // the main thread's may be closing
                own.send(lib, "stop");
                if (root != null) {
                    root.fetchOutputs(true);
                }
                out.println("stopped profiling JVM " + target.pid + " early"
                        + (outputs.isEmpty() ? "" : "; wrote " + String.join(", ", outputs)));
                out.flush();
            } catch (Candor.Failure e) {
                err.println("candor: " + e.getMessage());
                err.flush();
            }
        }

        void unregister() {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or has run
            }
        }
    }

    /**
     * The library to send the command to: the copy already in the JVM, else --agent (checked), copied
     * where the JVM can read it when it runs in a container or as another user (ROOT not null).
     */
    private String library(Target target, TargetRoot root) {
        List<String> loaded = new ArrayList<>(target.candorLibraries());
        if (!loaded.isEmpty()) {
            String path = loaded.get(0);
            if (path.endsWith(" (deleted)")) {
                throw new Candor.Failure(Candor.PROFILING, "candor in JVM " + target.pid + " was loaded from "
                        + path.substring(0, path.length() - 10) + ", which has been deleted; candor cannot reach it");
            }
            return path;
        }
        Path agent = parent.agentLibrary();
        AgentLibrary.check(agent);
        return root == null ? agent.toString() : root.installLibrary(agent);
    }

    private long parsePid() {
        try {
            long pid = Long.parseLong(pidText);
            if (pid > 0) {
                return pid;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw profile.usage("PID must be a process id (a positive number), not '" + pidText + "'");
    }

    private String checkCommand() {
        if (action != null && !ACTIONS.contains(action)) {
            throw profile.usage("unknown command '" + action + "' (expected start, stop, dump or status)");
        }
        String command = action != null ? action : duration != null ? "start" : null;
        if (command == null) {
            throw profile.usage("give a command (start, stop, dump, status) or --duration");
        }
        if (duration != null && !command.equals("start")) {
            throw profile.usage("--duration goes with start (or no command), not with " + command);
        }
        boolean settings = profile.event != null || profile.interval != null || profile.stats != null;
        if (!command.equals("start") && (settings || (profile.agentOptions != null && !command.equals("dump")))) {
            throw profile.usage("-e, -i, --stats and --agent-options go with start or --duration, not with " + command
                    + (command.equals("dump") ? " (dump takes -f)" : ""));
        }
        if ((command.equals("stop") || command.equals("status")) && !profile.files.isEmpty()) {
            throw profile.usage("-f goes with start, dump or --duration, not with " + command);
        }
        return command;
    }

    /** Milliseconds; -1 when TEXT is not a duration from 1 ms to 7 days. */
    static long parseDuration(String text) {
        java.util.OptionalLong ns = Durations.nanos(text);
        double ms = ns.isPresent() ? ns.getAsLong() / 1e6 : -1;
        if (ms < 1 || ms > 7 * 24 * 3_600_000.0) {
            return -1;
        }
        return (long) ms;
    }

    private static String join(String command, String settings) {
        return settings.isEmpty() ? command : command + "," + settings;
    }

    private static List<String> outputs(List<String> items) {
        List<String> out = new ArrayList<>();
        for (String item : items) {
            for (String part : item.split(",")) {
                if (part.startsWith("file=")) {
                    out.add(part.substring(5));
                } else if (part.startsWith("stats=")) {
                    out.add(part.substring(6));
                }
            }
        }
        return out;
    }
}

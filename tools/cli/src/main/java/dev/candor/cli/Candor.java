package dev.candor.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.Callable;

/**
 * The {@code candor} command. Exit codes: 0 ok, 1 usage error, 2 problem with the target (the
 * Java command cannot be run), 3 profiling problem (no agent, no profile written); {@code record}
 * otherwise returns the exit code of the Java command it ran.
 */
@Command(name = "candor",
        mixinStandardHelpOptions = true,
        exitCodeOnInvalidInput = Candor.USAGE,
        exitCodeOnExecutionException = Candor.PROFILING,
        versionProvider = Candor.Version.class,
        subcommands = {Record.class, Attach.class, ListJvms.class, Report.class, Compare.class, Merge.class, CommandLine.HelpCommand.class},
        description = "An honest, low-overhead sampling profiler for HotSpot JVMs.",
        footerHeading = "%nExit codes:%n",
        footer = {"  0  ok",
                "  1  usage error",
                "  2  target problem: the Java command cannot be run; attach: no such",
                "     process, not a JVM, another user's JVM, attach refused",
                "  3  profiling problem: agent missing or built for another machine,",
                "     options rejected by the agent, command failed, no profile written",
                "  record returns the exit code of the command it ran."})
public final class Candor implements Callable<Integer> {

    public static final int OK = 0;
    public static final int USAGE = 1;
    public static final int TARGET = 2;
    public static final int PROFILING = 3;

    /** System property the launcher script sets to the agent next to it. */
    static final String AGENT_PROPERTY = "candor.agent";

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--agent", paramLabel = "PATH", scope = ScopeType.INHERIT,
            description = "the agent library (default: libcandor.so next to the candor launcher)")
    Path agent;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return USAGE;
    }

    /** The agent library to load: --agent, else the launcher's default, else next to the jar. */
    Path agentLibrary() {
        if (agent != null) {
            return agent.toAbsolutePath().normalize();
        }
        String prop = System.getProperty(AGENT_PROPERTY);
        if (prop != null && !prop.isBlank()) {
            return Path.of(prop).toAbsolutePath().normalize();
        }
        try {
            Path jar = Path.of(Candor.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path dir = Files.isDirectory(jar) ? jar : jar.getParent();
            return dir.resolve("libcandor.so").toAbsolutePath().normalize();
        } catch (URISyntaxException | RuntimeException e) {
            return Path.of("libcandor.so").toAbsolutePath();
        }
    }

    /** A failure with its exit code and a one-line message. */
    static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int exitCode;

        Failure(int exitCode, String message) {
            super(message);
            this.exitCode = exitCode;
        }

        /** The one line for an input that could not be read (exit 3): what failed, not a stack trace. */
        static Failure unreadable(Path file, IOException e) {
            if (e instanceof dev.candor.model.ProfileFormatException) {
                return new Failure(PROFILING, e.getMessage());
            }
            String why = e instanceof java.nio.file.NoSuchFileException n
                    ? (n.getReason() != null ? n.getReason() : "no such file")
                    : e instanceof java.nio.file.AccessDeniedException ? "permission denied" : e.getMessage();
            return new Failure(PROFILING, "cannot read " + file + ": " + why);
        }
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            Properties p = new Properties();
            try (InputStream in = Candor.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            }
            String commit = p.getProperty("commit", "unknown");
            // the agent's `version` option prints the same line (agent/src/base/Version.h)
            return new String[] {"candor " + p.getProperty("version", "unknown") + " (commit "
                    + (commit.isBlank() || commit.startsWith("${") ? "unknown" : commit) + ")"};
        }
    }

    /** Builds the command line with candor's exit-code conventions. */
    static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new Candor());
        cl.setOut(out);
        cl.setErr(err);
        // `candor record -i 1ms java -cp x Main` works without `--` too: options end at the command.
        cl.getSubcommands().get("record").setStopAtPositional(true);
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine bad = ex.getCommandLine();
            PrintWriter e = bad.getErr();
            e.println("candor: " + ex.getMessage());
            if (!CommandLine.UnmatchedArgumentException.printSuggestions(ex, e)) {
                e.println("Try '" + bad.getCommandSpec().qualifiedName() + " --help' for more information.");
            }
            e.flush();
            return USAGE;
        });
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            if (ex instanceof Failure f) {
                commandLine.getErr().println("candor: " + f.getMessage());
                commandLine.getErr().flush();
                return f.exitCode;
            }
            commandLine.getErr().println("candor: internal error: " + ex);
            commandLine.getErr().flush();
            return PROFILING;
        });
        return cl;
    }

    /** Runs the command and returns its exit code. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        int code = commandLine(out, err).execute(args);
        out.flush();
        err.flush();
        return code;
    }

    public static void main(String[] args) {
        int code = run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
        System.exit(code);
    }
}

package dev.candor.api;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * Controls the candor profiler from inside the application it profiles.
 *
 * <pre>{@code
 * Candor.start("event=cpu,interval=1ms");
 * ...
 * Candor.dump(Path.of("so-far.html"));   // write now, keep profiling
 * Candor.stop();                          // write the session's outputs (file=...) and stop
 * }</pre>
 *
 * <p>Options are the agent's option string ({@code -agentpath:libcandor.so=help} lists them).
 * The agent library is found, on first use, in this order: the copy already in this JVM (loaded
 * with {@code -agentpath} or attached with {@code candor attach}: one JVM has one profiler),
 * {@link #load(Path)}, the system property {@value #AGENT_PROPERTY}, and the library bundled in
 * this jar, extracted into a new private temporary directory (owner-only permissions, random
 * name) that is deleted when the JVM exits.
 *
 * <p>All methods are thread-safe. Options the agent rejects throw {@link IllegalArgumentException}
 * and commands that fail (start while running, stop while idle, an unwritable file) throw
 * {@link IllegalStateException}, each with the agent's own one-line message.
 */
public final class Candor {

    /** System property naming the agent library to load ({@code /path/to/libcandor.so}). */
    public static final String AGENT_PROPERTY = "candor.agent";

    static final String LIBRARY_NAME = "libcandor.so";
    static final String BUNDLED = "/dev/candor/api/native/linux-x86_64/" + LIBRARY_NAME;

    private static Path library; // guarded by Candor.class

    /**
     * Loads the agent from AGENT unless an agent is loaded already. Returns the library in use,
     * which is the copy already in this JVM if there is one.
     *
     * @throws IllegalStateException when the library cannot be loaded
     */
    public static synchronized Path load(Path agent) {
        if (library != null) {
            return library;
        }
        Path inProcess = loadedInThisJvm();
        return loadLibrary(inProcess != null ? inProcess : agent.toAbsolutePath().normalize());
    }

    /** Starts profiling with these agent options, e.g. {@code "event=cpu,interval=1ms,file=out.html"}. */
    public static void start(String options) {
        List<String> items = new ArrayList<>();
        boolean hasStart = false;
        for (String item : (options == null ? "" : options).split(",")) {
            String s = item.strip();
            if (!s.isEmpty()) {
                hasStart |= s.equals("start");
                items.add(s);
            }
        }
        if (!hasStart) {
            items.add(0, "start");
        }
        execute(String.join(",", items));
    }

    /** Starts profiling with the agent's defaults (cpu, 10 ms, {@code candor-PID.html} at stop). */
    public static void start() {
        start("");
    }

    /** Stops profiling and writes the session's outputs. */
    public static void stop() {
        execute("stop");
    }

    /**
     * Writes the profile so far without stopping: to FILES (format by extension: .html,
     * .collapsed, .txt, .json), or to the session's outputs when none are given.
     */
    public static void dump(Path... files) {
        StringBuilder options = new StringBuilder("dump");
        for (Path f : files) {
            String p = f.toAbsolutePath().normalize().toString();
            if (p.contains(",")) {
                throw new IllegalArgumentException("a path given to candor must not contain ',': " + p);
            }
            options.append(",file=").append(p);
        }
        execute(options.toString());
    }

    /**
     * The profiler's state in one line: {@code idle}, or {@code running event=cpu signal=SIGVTALRM
     * timers=per-thread interval_ns=... seconds=... threads=... ticks=... recorded=... failed=... dropped=...}.
     */
    public static String status() {
        return execute("status");
    }

    /** Whether a profiling session is running. */
    public static boolean isRunning() {
        return status().startsWith("running");
    }

    /**
     * Sends a raw agent option string (a command such as {@code start}, {@code stop}, {@code dump},
     * {@code status}, with its settings) and returns the agent's one-line answer.
     */
    public static String execute(String options) {
        ensureLoaded();
        return execute0(options);
    }

    /**
     * Opens a label scope on the current thread: samples of the thread carry {@code key=value}
     * (with the labels of enclosing scopes) until the scope is closed. Labels appear in the JFR
     * recording, in pprof and OTLP reports, with {@code split=label:KEY} as root frames, and
     * {@code candor report --label KEY=VALUE} selects them: e.g. a trace id or an endpoint name.
     * Without a candor agent in this JVM a scope costs no native call.
     *
     * @see LabelScope
     */
    public static LabelScope label(String key, String value) {
        return LabelScope.open(key, value);
    }

    /** The agent library in use, or null before the first call. */
    public static synchronized Path library() {
        return library;
    }

    private static native String execute0(String options);

    static void setLabels(String[] keyValues) {
        setLabels0(keyValues);
    }

    private static native void setLabels0(String[] keyValues);

    private static synchronized void ensureLoaded() {
        if (library != null) {
            return;
        }
        Path inProcess = loadedInThisJvm();
        if (inProcess != null) {
            loadLibrary(inProcess);
            return;
        }
        String property = System.getProperty(AGENT_PROPERTY);
        if (property != null && !property.isBlank()) {
            loadLibrary(Path.of(property).toAbsolutePath().normalize());
            return;
        }
        loadLibrary(extractBundled());
    }

    private static Path loadLibrary(Path path) {
        if (!Files.isRegularFile(path)) {
            throw new IllegalStateException("candor agent library not found: " + path);
        }
        try {
            System.load(path.toString());
        } catch (UnsatisfiedLinkError e) {
            throw new IllegalStateException("cannot load the candor agent " + path + ": " + e.getMessage(), e);
        }
        library = path;
        return path;
    }

    /** A candor library already mapped into this process (-agentpath, attach), or null. */
    static Path loadedInThisJvm() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/maps"), StandardCharsets.UTF_8)) {
                int slash = line.indexOf('/');
                if (slash >= 0 && line.endsWith("/" + LIBRARY_NAME)) {
                    Path p = Path.of(line.substring(slash));
                    if (Files.isRegularFile(p)) {
                        return p;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or no /proc: nothing loaded that we could see
        }
        return null;
    }

    // The bundled library, copied into a fresh owner-only directory with an unpredictable name.
    private static Path extractBundled() {
        try (InputStream in = Candor.class.getResourceAsStream(BUNDLED)) {
            if (in == null) {
                throw new IllegalStateException("no candor agent: this candor-api jar has no bundled " + LIBRARY_NAME
                        + "; give its path with -D" + AGENT_PROPERTY + "=/path/" + LIBRARY_NAME
                        + " or Candor.load(path)");
            }
            Path dir = Files.createTempDirectory("candor-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            dir.toFile().deleteOnExit(); // runs after the file's (reverse order of registration)
            Path file = dir.resolve(LIBRARY_NAME);
            file.toFile().deleteOnExit();
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r-x------"));
            return file;
        } catch (IOException e) {
            throw new IllegalStateException("cannot extract the bundled candor agent: " + e.getMessage(), e);
        }
    }

    private Candor() {
    }
}

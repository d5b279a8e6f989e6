package dev.candor.jmh;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The options after {@code -prof dev.candor.jmh.CandorProfiler:}, separated by {@code ;} as JMH's
 * own profilers take them: {@code event}, {@code interval}, {@code dir}, {@code output}, {@code help},
 * and any other agent option, passed through as it is.
 *
 * <p>What can be checked without the agent is checked here, so that a typo fails in the JMH host
 * JVM with one line before any benchmark runs; the agent checks the rest when profiling starts.
 */
public record ProfilerOptions(String event, String interval, String dir, List<Output> outputs, List<String> passThrough,
                              boolean verbose, boolean help) {

    /** The files the profiler can write per benchmark; {@code html} and {@code txt} by default. */
    public enum Output {
        HTML("flame", ".html"), TXT("summary", ".txt"), COLLAPSED("collapsed", ".collapsed"), JFR("profile", ".jfr"),
        JSON("stats", ".json");

        final String prefix;
        final String extension;

        Output(String prefix, String extension) {
            this.prefix = prefix;
            this.extension = extension;
        }

        /** The file name for this event and fork suffix, e.g. {@code flame-cpu.html}, {@code flame-cpu-fork2.html}. */
        public String fileName(String event, String suffix) {
            return prefix + "-" + event.replace(',', '+') + suffix + extension;
        }
    }

    public static final String DEFAULT_EVENT = "cpu";

    /** One line for {@code -lprof}. */
    public static final String DESCRIPTION =
            "candor sampling profiler: flame graph and summary of each benchmark's measurement iterations (options: help)";

    public static final String HELP = String.join("\n",
            "candor JMH profiler: profiles each benchmark's measurement iterations (not warmup) and writes",
            "DIR/<benchmark>-<mode>[-<param>-<value>...]/flame-EVENT.html and summary-EVENT.txt",
            "(flame-EVENT-forkN.html ... with several forks; warmup forks are not profiled).",
            "Usage: -prof dev.candor.jmh.CandorProfiler[:option;option...]",
            "  event=EVENT      what takes samples: cpu (default), ctimer, itimer, wall, alloc; or several: event=cpu,alloc",
            "  interval=TIME    CPU time between samples of a thread, e.g. 1ms (default: the agent's, 10ms)",
            "  dir=PATH         where the per-benchmark directories go (default: the current directory)",
            "  output=LIST      files per benchmark, any of html,txt,collapsed,jfr,json (default: html,txt)",
            "  verbose          let the agent print its candor: lines (default: quiet, only errors)",
            "  NAME[=VALUE]     any other agent option, passed as it is, e.g. threads, lines, jitter=10",
            "  help             this text");

    // Options the profiler itself sets per benchmark, or commands that would break its start/stop.
    private static final Set<String> RESERVED = Set.of("file", "stats", "start", "stop", "dump", "status", "version",
            "reply");
    private static final Pattern INTERVAL = Pattern.compile("\\d+(ns|us|ms|s)?");
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*");

    /**
     * Parses JMH's init line ({@code event=cpu;interval=1ms;dir=out}).
     *
     * @throws IllegalArgumentException with a one-line message starting {@code candor:}
     */
    public static ProfilerOptions parse(String initLine) {
        String event = null;
        String interval = null;
        String dir = null;
        List<Output> outputs = null;
        List<String> passThrough = new ArrayList<>();
        boolean verbose = false;
        boolean help = false;
        for (String raw : (initLine == null ? "" : initLine).split(";")) {
            String item = raw.strip();
            if (item.isEmpty()) {
                continue;
            }
            int eq = item.indexOf('=');
            String name = (eq < 0 ? item : item.substring(0, eq)).strip();
            String value = eq < 0 ? null : item.substring(eq + 1).strip();
            switch (name) {
                case "help" -> help = true;
                case "verbose" -> verbose = true;
                case "event" -> event = once(name, event, required(name, value));
                case "interval" -> {
                    interval = once(name, interval, required(name, value));
                    if (!INTERVAL.matcher(interval).matches()) {
                        throw error("interval=" + interval + " is not a duration: a number with ns, us, ms or s, e.g. 1ms");
                    }
                }
                case "dir" -> {
                    dir = once(name, dir, required(name, value));
                    if (dir.contains(",")) {
                        // the agent's options are comma-separated: a file path cannot hold one
                        throw error("dir=" + dir + " contains ',', which the agent's options cannot carry");
                    }
                }
                case "output" -> {
                    if (outputs != null) {
                        throw error("option 'output' is given twice");
                    }
                    outputs = outputs(required(name, value));
                }
                default -> passThrough.addAll(agentItems(item));
            }
        }
        return new ProfilerOptions(event == null ? DEFAULT_EVENT : event, interval, dir == null ? "." : dir,
                outputs == null ? List.of(Output.HTML, Output.TXT) : outputs, List.copyOf(passThrough), verbose, help);
    }

    /**
     * The agent's option string for one benchmark (without the start command): the event, the
     * interval when given, {@code quiet} unless verbose (the agent's log lines would land inside
     * JMH's iteration lines), the passed-through options, a title (unless one was passed), and
     * one {@code file=} per output in TRIAL_DIR, named with the fork's SUFFIX. Paths must not
     * hold ',' (JMH's directory names never do: it URL-encodes them).
     */
    public String agentOptions(Path trialDir, String suffix, String title) {
        List<String> items = new ArrayList<>();
        items.add("event=" + event);
        if (interval != null) {
            items.add("interval=" + interval);
        }
        if (!verbose) {
            items.add("quiet");
        }
        items.addAll(passThrough);
        if (passThrough.stream().noneMatch(s -> s.startsWith("title="))) {
            items.add("title=" + title.replace(',', ';'));
        }
        for (Path f : files(trialDir, suffix)) {
            items.add((f.toString().endsWith(".json") ? "stats=" : "file=") + f);
        }
        return String.join(",", items);
    }

    /** The files written for one benchmark (and fork: SUFFIX), in the order of {@link #outputs()}. */
    public List<Path> files(Path trialDir, String suffix) {
        List<Path> files = new ArrayList<>();
        for (Output o : outputs) {
            files.add(trialDir.resolve(o.fileName(event, suffix)));
        }
        return files;
    }

    private static List<Output> outputs(String value) {
        Set<Output> outputs = new LinkedHashSet<>();
        for (String s : value.split(",")) {
            String name = s.strip().toLowerCase(Locale.ROOT);
            if (name.isEmpty()) {
                continue;
            }
            try {
                outputs.add(Output.valueOf(name.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw error("unknown output '" + s.strip() + "' (one of html, txt, collapsed, jfr, json)");
            }
        }
        if (outputs.isEmpty()) {
            throw error("output= names no output (one of html, txt, collapsed, jfr, json)");
        }
        return List.copyOf(outputs);
    }

    // An agent option passed through; a value with commas is several agent items (event=cpu,alloc
    // style), each of which must leave the profiler's own settings alone.
    private static List<String> agentItems(String item) {
        List<String> items = new ArrayList<>();
        for (String s : item.split(",")) {
            String part = s.strip();
            if (part.isEmpty()) {
                continue;
            }
            int eq = part.indexOf('=');
            String n = (eq < 0 ? part : part.substring(0, eq)).strip();
            if (!NAME.matcher(n).matches()) {
                throw error("'" + part + "' is not an option (NAME or NAME=VALUE; see help)");
            }
            if (RESERVED.contains(n)) {
                throw error("option '" + n + "' is set by the JMH profiler itself (files go to dir=, one set per "
                        + "benchmark; see help)");
            }
            items.add(part);
        }
        return items;
    }

    private static String required(String name, String value) {
        if (value == null || value.isEmpty()) {
            throw error("option '" + name + "' needs a value: " + name + "=...");
        }
        return value;
    }

    private static String once(String name, String previous, String value) {
        if (previous != null) {
            throw error("option '" + name + "' is given twice");
        }
        return value;
    }

    private static IllegalArgumentException error(String message) {
        return new IllegalArgumentException("candor: " + message);
    }
}

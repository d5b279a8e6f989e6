package dev.candor.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The profiling options shared by {@code record} and {@code attach}; each mirrors an agent
 * option of the same name ({@code -i 1ms} is {@code interval=1ms}). Validated here so that a typo
 * is a usage error before any JVM is touched.
 */
final class ProfileOptions {

    private static final Set<String> EVENTS = Set.of("cpu", "ctimer", "itimer", "wall", "safepoint", "handshake", "alloc", "lock");
    private static final Pattern INTERVAL = Pattern.compile("[0-9]+(ns|us|ms|s)?");
    private static final Pattern SIZE = Pattern.compile("[0-9]+[kKmMgG]?");
    /** The extensions the agent writes (its outputFormatOf). */
    private static final List<String> FORMATS = List.of(".html", ".htm", ".collapsed", ".folded", ".txt", ".jfr",
            ".json");

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = {"-e", "--event"}, paramLabel = "EVENT", order = 1,
            description = "what takes samples: cpu, ctimer, itimer, wall, safepoint, handshake, alloc, lock, or several: "
                    + "cpu,wall,alloc,lock (agent default: cpu)")
    String event;

    @Option(names = {"-i", "--interval"}, paramLabel = "INTERVAL", order = 2,
            description = "CPU time between samples of one thread: N[ns|us|ms|s] (agent default: 10ms; per-CPU timers, root's default, run 0.3%% under it)")
    String interval;

    @Option(names = {"-f", "--file"}, paramLabel = "FILE", order = 3,
            description = "output file, format by extension: .html, .collapsed, .txt, .jfr, .otlp; repeatable "
                    + "(default: candor-PID.html)")
    List<String> files = new ArrayList<>();

    @Option(names = "--stats", paramLabel = "FILE", order = 4, description = "also write the counters as JSON")
    String stats;

    @Option(names = "--alloc", paramLabel = "SIZE", order = 5,
            description = "sample allocations, one per SIZE bytes on average: N[k|m|g] (agent default: 512k); "
                    + "without -e, allocations only")
    String alloc;

    @Option(names = "--lock", paramLabel = "DURATION", order = 6,
            description = "record lock waits of at least DURATION: N[ns|us|ms|s] (agent default: 10us); "
                    + "without -e, lock waits only")
    String lock;

    @Option(names = "--push", paramLabel = "URL", order = 7,
            description = "send every interval's profile (--agent-options loop=DURATION, default 10s) to a "
                    + "Pyroscope-compatible endpoint, e.g. http://pyroscope:4040, or as OTLP to an OTLP/HTTP "
                    + "receiver, e.g. otlp+http://collector:4318 (path /v1development/profiles)")
    String push;

    @Option(names = "--service", paramLabel = "NAME", order = 8,
            description = "with --push: the application name the backend files the profiles under "
                    + "(default: the main class)")
    String service;

    @Option(names = "--push-label", paramLabel = "KEY=VALUE", order = 9,
            description = "with --push: a static label of the application (repeatable), e.g. env=prod: "
                    + "Pyroscope's name{env=prod}, an OTLP resource attribute")
    java.util.List<String> pushLabels;

    @Option(names = "--agent-options", paramLabel = "STRING", order = 20,
            description = "more agent options, appended verbatim, e.g. threads,lines (see the agent's 'help')")
    String agentOptions;

    /** Whether any option that configures a session (not just output files) was given. */
    boolean anySessionOption() {
        return event != null || interval != null || stats != null || agentOptions != null || alloc != null
                || lock != null || push != null || service != null || pushLabels != null;
    }

    /** The validated agent option items, in order; paths resolved against BASE when it is not null. */
    List<String> items(Path base) {
        List<String> opts = new ArrayList<>();
        if (event != null) {
            for (String one : event.split("[,+]", -1)) {
                if (!EVENTS.contains(one)) {
                    throw usage("unknown event '" + one + "' (expected cpu, ctimer, itimer, wall, safepoint, handshake,"
                            + " alloc or lock; combine them as cpu,wall,alloc,lock)");
                }
            }
            opts.add("event=" + event);
        } else if (alloc != null || lock != null) {  // as async-profiler: --alloc or --lock alone profiles just that
            opts.add("event=" + (alloc != null && lock != null ? "alloc,lock" : alloc != null ? "alloc" : "lock"));
        }
        if (interval != null) {
            if (!INTERVAL.matcher(interval).matches()) {
                throw usage("invalid interval '" + interval + "' (expected N[ns|us|ms|s], e.g. 1ms)");
            }
            opts.add("interval=" + interval);
        }
        if (alloc != null) {
            if (!SIZE.matcher(alloc).matches()) {
                throw usage("invalid allocation interval '" + alloc + "' (expected N[k|m|g] bytes, e.g. 512k)");
            }
            opts.add("alloc=" + alloc);
        }
        if (lock != null) {
            if (!INTERVAL.matcher(lock).matches()) {
                throw usage("invalid lock threshold '" + lock + "' (expected N[ns|us|ms|s], e.g. 10us)");
            }
            opts.add("lock=" + lock);
        }
        if (push != null) {
            if (!push.startsWith("http://") && !push.startsWith("otlp+http://")) {  // the agent checks the rest
                throw usage("invalid push URL '" + push + "' (expected http://host[:port] for Pyroscope, e.g. "
                        + "http://pyroscope:4040, or otlp+http://host[:port][/path] for OTLP, e.g. "
                        + "otlp+http://collector:4318)");
            }
            opts.add("push=" + push);
        }
        if (service != null) {
            if (push == null) {
                throw usage("--service names the application for --push; give --push too");
            }
            if (service.isEmpty() || service.matches(".*[{}=,\"].*")) {
                throw usage("invalid service name '" + service + "' (no {}=,\" characters)");
            }
            opts.add("service=" + service);
        }
        if (pushLabels != null && !pushLabels.isEmpty()) {
            if (push == null) {
                throw usage("--push-label labels the application for --push; give --push too");
            }
            for (String l : pushLabels) {
                if (!l.matches("[A-Za-z_][A-Za-z0-9_.]*=[^{}=,\"+]+")) {
                    throw usage("invalid push label '" + l + "' (expected KEY=VALUE, e.g. env=prod; no {}=,\"+ in the value)");
                }
            }
            opts.add("pushlabels=" + String.join("+", pushLabels));
        }
        opts.addAll(fileItems(base));
        if (stats != null) {
            opts.add("stats=" + path(stats, "--stats", base));
        }
        String extra = extraOptions();
        if (!extra.isEmpty()) {
            opts.add(extra);
        }
        return opts;
    }

    /** {@code file=PATH} items for -f, checked and resolved against BASE when it is not null. */
    List<String> fileItems(Path base) {
        List<String> opts = new ArrayList<>();
        for (String f : files) {
            String p = path(f, "--file", base);
            if (FORMATS.stream().noneMatch(f::endsWith)) { // as the agent: the extension exactly
                throw usage("cannot tell the format of '" + f + "' (use .html, .collapsed, .txt, .jfr or .json)");
            }
            opts.add("file=" + p);
        }
        return opts;
    }

    /** --agent-options without surrounding blanks and commas; "" when not given. */
    String extraOptions() {
        if (agentOptions == null) {
            return "";
        }
        String extra = agentOptions.strip();
        while (extra.startsWith(",")) {
            extra = extra.substring(1);
        }
        while (extra.endsWith(",")) {
            extra = extra.substring(0, extra.length() - 1);
        }
        return extra;
    }

    /** Whether the options name an output (file= or stats=), so the agent's default is not used. */
    boolean namesAnOutput() {
        if (!files.isEmpty() || stats != null) {
            return true;
        }
        for (String item : extraOptions().split(",")) {
            if (item.startsWith("file=") || item.startsWith("stats=")) {
                return true;
            }
        }
        return false;
    }

    private String path(String path, String option, Path base) {
        if (path.isEmpty() || path.contains(",")) {
            throw usage(option + " '" + path + "': a path must be non-empty and must not contain ','");
        }
        if (base == null) {
            return path;
        }
        String resolved = base.resolve(path).toAbsolutePath().normalize().toString();
        if (resolved.contains(",")) {
            throw usage(option + " '" + path + "': the absolute path " + resolved + " contains ','");
        }
        return resolved;
    }

    CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}

package dev.candor.cli;

import dev.candor.model.Damage;
import dev.candor.model.Profile;
import dev.candor.model.ProfileReader;
import dev.candor.model.Recording;
import dev.candor.model.ReportFormat;
import dev.candor.model.ReportOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/**
 * {@code candor report IN [-o OUT]}: reads a JFR recording of any producer, or collapsed stacks,
 * and writes a flame graph, collapsed stacks, a call tree, hot methods, pprof, JSON or OTLP.
 */
@Command(name = "report",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        exitCodeOnInvalidInput = Candor.USAGE,
        exitCodeOnExecutionException = Candor.PROFILING,
        description = {
                "Reports on a recording: a .jfr from any producer (candor, the JDK's own JFR, async-profiler)"
                        + " or a .collapsed file.",
                "The output format comes from --format or the output's extension: "
                        + "html (.html), collapsed (.collapsed), tree (.tree), flat (.txt), pprof (.pb.gz), json (.json),"
                        + " otlp (.otlp: an OpenTelemetry ExportProfilesServiceRequest, binary protobuf).",
                "Without -o the report goes to standard output (flat unless --format says otherwise).",
                "A damaged file is reported up to the damage; the command then names the byte offset and exits with 3."},
        customSynopsis = "candor report IN [-o OUT] [--format FORMAT] [--event EVENT] [--threads] [--split SPLIT]"
                + " [--reverse] [--lines] [--include REGEX]... [--exclude REGEX]... [--label KEY=VALUE]... [--from TIME]"
                + " [--to TIME]",
        footer = {"", "TIME is seconds from the start of the recording (12, 1.5s, 250ms, 2min) or a date-time"
                + " (2025-01-31T10:15:30Z, 2025-01-31T10:15:30+01:00, 2025-01-31T10:15:30 or 10:15:30 in the local"
                + " time zone).", "",
                "Examples:",
                "  candor report app.jfr -o app.html",
                "  candor report app.jfr --format tree --threads --include 'com\\.example'",
                "  candor report app.jfr --label endpoint=/users -o users.html",
                "  candor report app.jfr --split label:endpoint -o by-endpoint.html",
                "  candor report app.jfr -o app.pb.gz && go tool pprof -top app.pb.gz",
                "  OTEL_SERVICE_NAME=shop candor report app.jfr -o app.otlp"})
final class Report implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "IN", description = "the recording: .jfr or .collapsed")
    Path input;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", description = "output file (default: standard output)")
    Path output;

    @Option(names = {"-f", "--format"}, paramLabel = "FORMAT",
            description = "html, collapsed, tree, flat, pprof, json or otlp (default: by the output's extension)")
    String format;

    @Option(names = {"-e", "--event"}, paramLabel = "EVENT",
            description = "which sample events to report, when the file has several: a name such as "
                    + "jdk.ExecutionSample or ExecutionSample, or several separated by commas "
                    + "(default: the CPU sample event with most samples)")
    String event;

    // Splits, as the agent's `threads` option and async-profiler's converter do. `compare` and
    // `merge` filter threads with --thread-filter instead.
    @Option(names = "--threads", description = "one tree per thread ([name tid=N] root frames)")
    boolean threads;

    @Option(names = "-t", hidden = true, description = "old short form of --threads")
    boolean threadsShort;

    @Option(names = "--split", paramLabel = "SPLIT", split = "[+,]",
            description = "root frames above each stack, as the agent's split option: thread ([name tid=N], as"
                    + " --threads), label:KEY ([KEY=VALUE] from the sample's labels, [KEY=(none)] without it);"
                    + " joined with + or repeated, e.g. thread+label:endpoint")
    List<String> splits = new ArrayList<>();

    @Option(names = {"-r", "--reverse"}, description = "callers view: stacks leaf first (not for pprof and otlp)")
    boolean reverse;

    @Option(names = "--lines", description = "distinguish the lines of a method (frames as method:line)")
    boolean lines;

    @Option(names = {"-i", "--include"}, paramLabel = "REGEX",
            description = "keep only samples with a frame matching REGEX (searched in the frame name); repeatable")
    List<String> includes = new ArrayList<>();

    @Option(names = {"-x", "--exclude"}, paramLabel = "REGEX",
            description = "drop samples with a frame matching REGEX; repeatable")
    List<String> excludes = new ArrayList<>();

    @Option(names = "--label", paramLabel = "KEY=VALUE",
            description = "keep only samples with label KEY set to VALUE (candor recordings with Candor.label"
                    + " scopes); repeatable, all must match")
    List<String> labelFilters = new ArrayList<>();

    @Option(names = "--from", paramLabel = "TIME", description = "keep samples taken at or after TIME")
    String from;

    @Option(names = "--to", paramLabel = "TIME", description = "keep samples taken before TIME")
    String to;

    @Option(names = "--title", paramLabel = "TEXT", description = "report title (default: the input's name)")
    String title;

    @Option(names = "--top", paramLabel = "N", defaultValue = "30",
            description = "flat: rows per table, 0 for all (default: ${DEFAULT-VALUE})")
    int top;

    @Option(names = "--min-percent", paramLabel = "P", defaultValue = "0.1",
            description = "tree: leave out frames below P percent of the samples (default: ${DEFAULT-VALUE})")
    double minPercent;

    @Override
    public Integer call() throws IOException {
        ReportFormat fmt = format();
        List<Pattern> inc = patterns(includes, "--include");
        List<Pattern> exc = patterns(excludes, "--exclude");
        Map<String, String> labels = labels();
        boolean splitThreads = threads || threadsShort;
        List<String> splitKeys = new ArrayList<>();
        for (String sp : splits) {
            String part = sp.strip();
            if (part.equals("thread") || part.equals("threads")) {
                splitThreads = true;
            } else if (part.startsWith("label:") && validKey(part.substring("label:".length()))) {
                if (!splitKeys.contains(part.substring("label:".length()))) {
                    splitKeys.add(part.substring("label:".length()));
                }
            } else {
                throw usage("--split '" + sp + "': expected thread or label:KEY (KEY without '=', e.g. label:endpoint)");
            }
        }
        if (top < 0) {
            throw usage("--top must be 0 or more, not " + top);
        }
        if (!(minPercent >= 0 && minPercent <= 100)) {
            throw usage("--min-percent must be between 0 and 100, not " + minPercent);
        }
        if (output == null && fmt.isBinary() && System.console() != null) {
            throw usage(fmt.id() + " output is binary: give the output file with -o FILE" + fmt.extensions().get(0));
        }

        Recording recording = read();
        Optional<Damage> damage = recording.damage();
        List<String> events;
        try {
            events = recording.selectEvents(event);
        } catch (IllegalArgumentException e) {
            if (event != null && !event.isBlank()) {
                throw new Candor.Failure(Candor.USAGE, e.getMessage());
            }
            if (damage.isPresent()) {
                throw new Candor.Failure(Candor.PROFILING, input + ": " + damage.get()
                        + "; no samples before the damage could be read, so there is nothing to report");
            }
            throw new Candor.Failure(Candor.PROFILING, e.getMessage());
        }
        Profile profile = recording.profile(events);
        checkLabels(recording, events, profile, labels);
        if (from != null || to != null) {
            Instant base = recording.start().or(profile::firstSampleTime).orElse(null);
            if (base == null || !profile.hasTimes()) {
                throw usage("--from/--to need timestamps, and " + input + " has none ("
                        + recording.format() + " input)");
            }
            Instant lo = from == null ? null : TimeSpec.parse(from, base, "--from", spec.commandLine());
            Instant hi = to == null ? null : TimeSpec.parse(to, base, "--to", spec.commandLine());
            if (lo != null && hi != null && !lo.isBefore(hi)) {
                throw usage("--from " + from + " (" + lo + ") is not before --to " + to + " (" + hi + ")");
            }
            profile = profile.between(lo, hi);
        }
        for (Pattern p : inc) {
            profile = profile.include(p);
        }
        for (Pattern p : exc) {
            profile = profile.exclude(p);
        }
        profile = profile.withLabels(labels).splitByLabels(splitKeys);
        ReportOptions options = new ReportOptions(splitThreads, lines, reverse, title, top, minPercent);
        write(fmt, profile, options);

        if (damage.isPresent()) {
            throw new Candor.Failure(Candor.PROFILING, input + ": " + damage.get() + "; the report"
                    + (output != null ? " in " + output : "") + " has the " + profile.unfilteredTotal()
                    + " samples before the damage");
        }
        return Candor.OK;
    }

    private ReportFormat format() {
        if (format != null) {
            return ReportFormat.byId(format).orElseThrow(() -> usage("unknown format '" + format + "' (expected "
                    + ReportFormat.ids() + ")"));
        }
        if (output == null) {
            return ReportFormat.FLAT;
        }
        return ReportFormat.byFileName(output.getFileName().toString()).orElseThrow(() -> usage(
                "cannot tell the format of '" + output + "' from its extension: give --format, or use one of "
                        + ReportFormat.idsWithExtensions()));
    }

    private List<Pattern> patterns(List<String> regexes, String option) {
        List<Pattern> out = new ArrayList<>();
        for (String r : regexes) {
            try {
                out.add(Pattern.compile(r));
            } catch (PatternSyntaxException e) {
                throw usage(option + " '" + r + "' is not a valid regular expression: " + e.getDescription()
                        + (e.getIndex() >= 0 ? " near index " + e.getIndex() : ""));
            }
        }
        return out;
    }

    /** The --label filters as KEY → VALUE; a usage error for one that is no KEY=VALUE or names a key twice. */
    private Map<String, String> labels() {
        Map<String, String> out = new LinkedHashMap<>();
        for (String l : labelFilters) {
            int eq = l.indexOf('=');
            if (eq <= 0 || !validKey(l.substring(0, eq))) {
                throw usage("--label '" + l + "' is not KEY=VALUE (e.g. --label endpoint=/users)");
            }
            String key = l.substring(0, eq);
            String old = out.put(key, l.substring(eq + 1));
            if (old != null && !old.equals(l.substring(eq + 1))) {
                throw usage("--label " + key + "=" + old + " and --label " + l + " cannot both match: a sample has one "
                        + key);
            }
        }
        return out;
    }

    private static boolean validKey(String key) {
        return !key.isBlank() && key.indexOf('=') < 0;
    }

    /**
     * A --label filter that can match nothing fails with one line saying why: the input has no
     * labels at all (a recording of another producer, or of code without Candor.label scopes), none
     * of the events chosen has, no sample has the key, or no sample has the value.
     */
    private void checkLabels(Recording recording, List<String> events, Profile profile, Map<String, String> labels) {
        if (labels.isEmpty()) {
            return;
        }
        String filter = labels.entrySet().stream().map(e -> "--label " + e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(" "));
        if (!profile.hasLabels()) {
            List<String> all = new ArrayList<>(recording.eventCounts().keySet());
            if (!all.equals(events) && recording.profile(all).hasLabels()) {
                throw new Candor.Failure(Candor.USAGE, "no " + String.join(", ", events) + " sample in " + input
                        + " carries labels (other events do: choose them with --event); " + filter + " matches nothing");
            }
            throw new Candor.Failure(Candor.USAGE, "no sample in " + input + " carries labels; " + filter
                    + " matches nothing");
        }
        SortedMap<String, SortedSet<String>> values = profile.labelValues();
        for (Map.Entry<String, String> e : labels.entrySet()) {
            SortedSet<String> v = values.get(e.getKey());
            if (v == null) {
                throw new Candor.Failure(Candor.USAGE, "no sample in " + input + " has the label " + e.getKey()
                        + " (its labels: " + String.join(", ", values.keySet()) + "); " + filter + " matches nothing");
            }
            if (!v.contains(e.getValue())) {
                throw new Candor.Failure(Candor.USAGE, "no sample in " + input + " has " + e.getKey() + "="
                        + e.getValue() + " (" + e.getKey() + " is " + abbreviated(v) + "); " + filter
                        + " matches nothing");
            }
        }
        if (profile.withLabels(labels).samples().isEmpty()) {
            throw new Candor.Failure(Candor.USAGE, "no sample in " + input + " has all of " + filter);
        }
    }

    private static String abbreviated(SortedSet<String> values) {
        List<String> first = values.stream().limit(10).toList();
        return String.join(", ", first) + (values.size() > first.size() ? ", ... (" + values.size() + " values)" : "");
    }

    private Recording read() {
        try {
            return ProfileReader.read(input);
        } catch (IOException e) {
            throw Candor.Failure.unreadable(input, e);
        }
    }

    private void write(ReportFormat fmt, Profile profile, ReportOptions options) {
        if (output == null) {
            try {
                if (fmt.isBinary()) {
                    fmt.write(profile, options, System.out);
                    System.out.flush();
                } else {
                    ByteArrayOutputStream buf = new ByteArrayOutputStream();
                    fmt.write(profile, options, buf);
                    spec.commandLine().getOut().print(buf.toString(StandardCharsets.UTF_8));
                    spec.commandLine().getOut().flush();
                }
            } catch (IOException e) {
                throw new Candor.Failure(Candor.PROFILING, "cannot write the report: " + e.getMessage());
            }
            return;
        }
        TreeOptions.writeAtomically(output, out -> fmt.write(profile, options, out));
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}

package dev.candor.accuracy;

import dev.candor.model.Cct;
import dev.candor.compare.Inputs;
import dev.candor.compare.Metrics;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The accuracy suite: runs every known-answer workload under every sampling mode of candor
 * (and JDK JFR and async-profiler), compares each profile with the truth the workload measured
 * in the same run, prints one line per run and writes a Markdown report.
 *
 * <pre>
 * java -jar candor-accuracy.jar --build build [--jdk 17|25|HOME] [--out bench/ACCURACY.md]
 *      [--work bench/out/accuracy] [--cpu-ms 2000] [--interval 1ms] [--cases a,b] [--profilers x,y]
 * </pre>
 */
public final class Runner {
    static final String PKG = "dev.candor.accuracy.cases.";

    /** A workload. {@code hotLeaf}: the truly hot method; {@code hotVia}: a frame that must be on the stack too. */
    record Case(String id, String title, String mainClass, List<String> jvmArgs, String hotLeaf, String hotVia,
                boolean bias, String about) {
        Pattern focus() {
            return Pattern.compile("^" + Pattern.quote(mainClass + ".work") + "$");
        }

        String simpleHot() {
            return simple(hotVia != null ? hotVia + " → " + simple(hotLeaf) : hotLeaf);
        }
    }

    /** JVM flags a case runs with: JDK defaults, or counted loops without safepoint polls. */
    record Variant(String id, String label, List<String> jvmArgs) {
    }

    /** A profiler configuration: how to launch it and what it writes. */
    record Profiler(String id, String label, String file, int minFeature) {
    }

    /** The figures of one run. */
    record Result(Case c, Variant v, Profiler p, double samples, double failures, double hot, double truthHot,
                  double overlap, double coverTruth, double coverProfile, String blamed, double truthMs,
                  String error) {
        boolean ok() {
            return error == null;
        }
    }

    static final List<Variant> VARIANTS = List.of(
            new Variant("default", "JDK defaults", List.of()),
            new Variant("no-loop-polls", "-XX:-UseCountedLoopSafepoints", List.of("-XX:-UseCountedLoopSafepoints")));

    static List<Case> cases() {
        return List.of(
                new Case("counted-loop", "a hot counted loop", PKG + "CountedLoop",
                        List.of(dontInline("CountedLoop::hot")), PKG + "CountedLoop.hot", null, true,
                        "All CPU in a non-inlined counted loop; the first poll after the loop is the method's return."),
                new Case("loop-then-call", "a hot loop just before a cheap call", PKG + "LoopThenCall",
                        List.of(dontInline("LoopThenCall::*")), PKG + "LoopThenCall.hot", null, true,
                        "The loop is followed by a cheap non-inlined call (setResult) whose return holds the next"
                                + " poll."),
                new Case("poll-far-below", "a hot loop nine frames above the only poll", PKG + "PollFarBelow",
                        List.of(dontInline("PollFarBelow::*")), PKG + "PollFarBelow.hot", null, true,
                        "The loop is followed by a chain of nine cheap non-inlined calls (setResult1..9)."),
                new Case("multi-thread", "three loop-heavy threads on two cores", PKG + "MultiThread", List.of(),
                        PKG + "MultiThread.alpha", null, false,
                        "alpha (counted int loop) 50%, beta (long-indexed loop) 30%, gamma (floating point) 20%,"
                                + " on three threads at once."),
                new Case("intrinsics", "System.arraycopy and CRC32", PKG + "Intrinsics", List.of(),
                        PKG + "Intrinsics.copy", null, false,
                        "copy() spends ~60% in System.arraycopy, checksum() ~40% in CRC32.update; the truth charges"
                                + " the intrinsic to its caller, where a profiler must show it (or as a named failure)."),
                new Case("deep-recursion", "300 levels of recursion", PKG + "DeepRecursion",
                        List.of(dontInline("DeepRecursion::*")), PKG + "DeepRecursion.bottom", null, false,
                        "Every level of descend() spins (more when deeper, ~60% in all), the bottom runs bottom()"
                                + " (~40%): 302 distinct hot contexts."),
                new Case("generated", "lambdas, a proxy, reflection, a method handle", PKG + "Generated", List.of(),
                        PKG + "Generated.spin", PKG + "Generated.lambda$streams$2", false,
                        "spin() reached through a stream lambda (40%), a dynamic proxy (25%), Method.invoke (20%)"
                                + " and a MethodHandle (15%); generated class names differ every run."),
                new Case("handoff", "two threads handing a token back and forth", PKG + "Handoff",
                        List.of(dontInline("Handoff::afterWake")), PKG + "Handoff.afterWake", null, false,
                        "After each wake-up a thread runs afterWake (~30 µs of Java), then unparks the other and"
                                + " parks: tens of thousands of context switches a second, where a timer per thread"
                                + " and a timer per CPU place their ticks differently; the rest of the CPU (park,"
                                + " unpark, system calls, switches) is the truth's work."),
                new Case("blockmix", "one thread blocking, writing and computing in turns", PKG + "BlockMix",
                        List.of(dontInline("BlockMix::*")), PKG + "BlockMix.waitTurn", null, false,
                        "Each round the worker blocks four times (waitTurn: park until a partner thread hands the"
                                + " turn back), writes one byte to /dev/null 1024 times (writes) and runs a Java loop"
                                + " (spin): where a profiler puts the CPU of the blocking, beside system calls that do"
                                + " not block."));
    }

    static String dontInline(String what) {
        return "-XX:CompileCommand=dontinline," + PKG + what;
    }

    static List<Profiler> profilers() {
        return List.of(
                new Profiler("cpu", "candor cpu", "profile.jfr", 0),  // the default walker: walk=vm since issue 9
                new Profiler("cpu-agct", "candor cpu walk=agct", "profile.jfr", 0),
                new Profiler("cpu-vm", "candor cpu walk=vm", "profile.jfr", 0),
                new Profiler("cpu-remote", "candor cpu walk=remote", "profile.jfr", 0),
                new Profiler("cpu-thread", "candor cpu percpu=no", "profile.jfr", 0),  // the unprivileged timers
                new Profiler("ctimer", "candor ctimer", "profile.jfr", 0),
                new Profiler("itimer", "candor itimer", "profile.jfr", 0),
                new Profiler("wall", "candor wall", "profile.jfr", 0),
                new Profiler("safepoint", "candor safepoint", "profile.jfr", 0),
                new Profiler("handshake", "candor handshake", "profile.jfr", 0),
                new Profiler("jfr", "JDK JFR (ExecutionSample)", "profile.jfr", 0),
                new Profiler("jfr-cputime", "JDK JFR (CPUTimeSample)", "profile.jfr", 25),
                new Profiler("async-cpu", "async-profiler 4.1 cpu", "profile.jfr", 0));
    }

    // ---- options ------------------------------------------------------------------------

    Path build;
    Path jdk;
    int feature;
    Path out;
    Path work;
    long cpuMs = 2000;
    String interval = "1ms";
    Set<String> onlyCases = new LinkedHashSet<>();
    Set<String> onlyProfilers = new LinkedHashSet<>();
    boolean bothWays = true;
    Path asyncProfiler;
    Path jfc;
    String javaVersion;
    String loadBefore;
    String loadAfter;

    public static void main(String[] args) throws Exception {
        Runner r = new Runner();
        try {
            r.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("accuracy: " + e.getMessage());
            System.err.println("usage: java -jar candor-accuracy.jar --build DIR [--jdk 17|25|HOME] [--out FILE]"
                    + " [--work DIR] [--cpu-ms N] [--interval 1ms] [--cases a,b] [--profilers x,y] [--default-only]");
            System.exit(1);
        }
        System.exit(r.run());
    }

    void parse(String[] args) {
        String jdkArg = "17";
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (a) {
                case "--build" -> build = Path.of(need(a, v)).toAbsolutePath();
                case "--jdk" -> jdkArg = need(a, v);
                case "--out" -> out = Path.of(need(a, v)).toAbsolutePath();
                case "--work" -> work = Path.of(need(a, v)).toAbsolutePath();
                case "--cpu-ms" -> cpuMs = Long.parseLong(need(a, v));
                case "--interval" -> interval = need(a, v);
                case "--cases" -> onlyCases.addAll(List.of(need(a, v).split(",")));
                case "--profilers" -> onlyProfilers.addAll(List.of(need(a, v).split(",")));
                case "--default-only" -> {
                    bothWays = false;
                    continue;
                }
                default -> throw new IllegalArgumentException("unknown argument '" + a + "'");
            }
            i++;
        }
        if (build == null) {
            throw new IllegalArgumentException("--build DIR is required (the directory with libcandor.so)");
        }
        jdk = switch (jdkArg) {
            case "17" -> Path.of("/usr/lib/jvm/java-17-openjdk-amd64");
            case "25" -> Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");
            default -> Path.of(jdkArg);
        };
        if (!Files.isExecutable(jdk.resolve("bin/java"))) {
            throw new IllegalArgumentException("no JDK at " + jdk);
        }
        if (out == null) {
            out = Path.of("ACCURACY.md").toAbsolutePath();
        }
        if (work == null) {
            work = Path.of("accuracy-runs").toAbsolutePath();
        }
        Set<String> known = cases().stream().map(Case::id).collect(Collectors.toSet());
        for (String c : onlyCases) {
            if (!known.contains(c)) {
                throw new IllegalArgumentException("unknown case '" + c + "' (cases: " + known + ")");
            }
        }
        Set<String> knownP = profilers().stream().map(Profiler::id).collect(Collectors.toSet());
        for (String p : onlyProfilers) {
            if (!knownP.contains(p)) {
                throw new IllegalArgumentException("unknown profiler '" + p + "' (profilers: " + knownP + ")");
            }
        }
    }

    private static String need(String option, String value) {
        if (value == null) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return value;
    }

    // ---- running ------------------------------------------------------------------------

    int run() throws Exception {
        Path lib = build.resolve("libcandor.so");
        if (!Files.isRegularFile(lib)) {
            System.err.println("accuracy: " + lib + " not found: run make first");
            return 1;
        }
        Files.createDirectories(work);
        javaVersion = javaVersion();
        feature = feature(javaVersion);
        jfc = work.resolve("accuracy.jfc");
        Files.writeString(jfc, jfc());
        asyncProfiler = extractAsyncProfiler();
        Path cp = Path.of(Runner.class.getProtectionDomain().getCodeSource().getLocation().toURI());

        List<Result> results = new ArrayList<>();
        loadBefore = loadAverage();
        long t0 = System.nanoTime();
        for (Case c : cases()) {
            if (!onlyCases.isEmpty() && !onlyCases.contains(c.id())) {
                continue;
            }
            for (Variant v : VARIANTS) {
                if (!v.id().equals("default") && !(c.bias() && bothWays)) {
                    continue;
                }
                for (Profiler p : profilers()) {
                    if (!onlyProfilers.isEmpty() && !onlyProfilers.contains(p.id())) {
                        continue;
                    }
                    if (feature < p.minFeature() || p.id().startsWith("async") && asyncProfiler == null) {
                        continue;
                    }
                    Result r = runOne(c, v, p, lib, cp);
                    results.add(r);
                    System.out.println(line(r));
                }
            }
        }
        loadAfter = loadAverage();
        Files.createDirectories(out.getParent());
        Files.writeString(out, Report.markdown(this, results, Duration.ofNanos(System.nanoTime() - t0)));
        System.out.println("accuracy: " + results.size() + " runs in "
                + Duration.ofNanos(System.nanoTime() - t0).toSeconds() + " s; report written to " + out);
        long failed = results.stream().filter(r -> !r.ok()).count();
        if (failed > 0) {
            System.out.println("accuracy: " + failed + " runs gave no usable profile (see the report)");
        }
        return 0;
    }

    Result runOne(Case c, Variant v, Profiler p, Path lib, Path cp) throws Exception {
        Path dir = work.resolve("jdk" + feature).resolve(c.id() + "-" + v.id()).resolve(p.id());
        deleteTree(dir);
        Files.createDirectories(dir);
        Path profile = dir.resolve(p.file());
        Path truth = dir.resolve("truth.collapsed");
        List<String> cmd = new ArrayList<>();
        cmd.add(jdk.resolve("bin/java").toString());
        switch (p.id()) {
            case "jfr", "jfr-cputime" -> {
                cmd.add("-XX:StartFlightRecording:filename=" + profile + ",settings=" + jfc);
                cmd.add("-XX:FlightRecorderOptions:stackdepth=2048");
            }
            case "async-cpu" -> cmd.add("-agentpath:" + asyncProfiler + "=start,event=cpu,interval=" + interval
                    + ",jstackdepth=2048,file=" + profile);
            // cpu-agct, cpu-vm, cpu-remote: the cpu engine with a given stack walker (issue 9); cpu-thread:
            // a perf timer per thread, as unprivileged users get
            default -> cmd.add("-agentpath:" + lib + "=start,event="
                    + (p.id().equals("cpu-thread") ? "cpu,percpu=no"
                            : p.id().startsWith("cpu-") ? "cpu,walk=" + p.id().substring(4) : p.id()) + ",interval=" + interval
                    + ",quiet,file=" + profile + ",stats=" + dir.resolve("stats.json"));
        }
        cmd.addAll(List.of("-Xms256m", "-Xmx512m", "-XX:CompileCommand=quiet"));
        cmd.addAll(c.jvmArgs());
        cmd.addAll(v.jvmArgs());
        cmd.addAll(List.of("-cp", cp.toString(), c.mainClass(), truth.toString(), String.valueOf(cpuMs)));
        Files.writeString(dir.resolve("command.txt"), String.join(" ", cmd) + "\n");
        Process proc = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectOutput(dir.resolve("stdout.txt").toFile())
                .redirectError(dir.resolve("stderr.txt").toFile()).start();
        if (!proc.waitFor(300, TimeUnit.SECONDS)) {
            proc.destroyForcibly();
            proc.waitFor(10, TimeUnit.SECONDS);
            return failed(c, v, p, "timed out after 300 s");
        }
        if (proc.exitValue() != 0) {
            return failed(c, v, p, "exit code " + proc.exitValue() + ": " + tail(dir.resolve("stderr.txt")));
        }
        if (!Files.isRegularFile(truth)) {
            return failed(c, v, p, "the workload wrote no truth");
        }
        if (!Files.isRegularFile(profile)) {
            return failed(c, v, p, "no profile written: " + tail(dir.resolve("stderr.txt")));
        }
        try {
            return evaluate(c, v, p, profile, truth);
        } catch (IOException | RuntimeException e) {
            return failed(c, v, p, "cannot evaluate: " + e.getMessage());
        }
    }

    /** JDK frames at the top of a stack count for the workload method that called them, as in the truth. */
    static final Pattern JDK_FRAMES = Pattern.compile("^(java|javax|jdk|sun|com\\.sun)\\.");
    /** The workloads' measured threads. */
    static final Pattern WORKERS = Pattern.compile("-worker$");

    /**
     * Options of the comparison: focus on the workload's work method, its worker threads, Java frames
     * only, JDK frames folded into their caller, failures kept.
     */
    static Inputs.Options options(Case c, String event) {
        return Inputs.Options.DEFAULT.withFocus(c.focus()).withJavaOnly(true).withEvent(event)
                .withThreads(WORKERS).withFold(JDK_FRAMES);
    }

    static Result evaluate(Case c, Variant v, Profiler p, Path profile, Path truth) throws IOException {
        String event = p.id().equals("jfr-cputime") ? "jdk.CPUTimeSample"
                : p.id().startsWith("jfr") || p.id().startsWith("async") ? "jdk.ExecutionSample" : null;
        // candor's .jfr names the thread of every tick, failed ones included, so --threads keeps the
        // worker threads' failures and leaves out those of idle threads the sampler modes also tick
        Inputs.Loaded lp = Inputs.load(profile, options(c, event));
        Inputs.Loaded lt = Inputs.load(truth, options(c, null));
        Cct pc = lp.cct();
        double failed = lp.failures();
        if (pc.isEmpty()) {
            return failed(c, v, p, "no samples under " + simple(c.mainClass()) + ".work (" + (long) lp.read()
                    + " samples in all)");
        }
        Cct tc = lt.cct();
        double overlap = Metrics.overlap(pc, tc);
        double coverTruth = Metrics.hotcover(pc, tc, Metrics.DEFAULT_THRESHOLD).value();
        double coverProfile = Metrics.hotcover(tc, pc, Metrics.DEFAULT_THRESHOLD).value();
        double hot = hotShare(c, pc);
        double truthHot = hotShare(c, tc);
        double failures = failed / pc.total();
        return new Result(c, v, p, pc.total(), failures, hot, truthHot, overlap, coverTruth, coverProfile,
                blamed(c, pc), tc.total() / 1e6, null);
    }

    /** Share of the tree whose deepest workload frame is the hot method (with hotVia on the stack). */
    static double hotShare(Case c, Cct t) {
        double hot = 0;
        for (Cct.Node n : t.nodes()) {
            if (n.self() > 0 && isHot(c, n.path())) {
                hot += n.self();
            }
        }
        return hot / t.total();
    }

    static boolean isHot(Case c, List<String> path) {
        String deepest = deepestWorkloadFrame(path);
        return c.hotLeaf().equals(deepest) && (c.hotVia() == null || path.contains(c.hotVia()));
    }

    /**
     * The innermost frame of the workload's own code ({@code dev.candor.accuracy.cases}, the truth
     * recorder and lambda proxies excepted), so that time in JDK code a method calls (an intrinsic's
     * Java frames) counts for it; a pseudo-frame stands for itself.
     */
    static String deepestWorkloadFrame(List<String> path) {
        for (int i = path.size() - 1; i >= 0; i--) {
            String f = path.get(i);
            if (f.startsWith("[")) {
                return f;
            }
            if (f.startsWith(PKG) && !f.contains("$$Lambda") && !f.startsWith(PKG + "Truth")) {
                return f;
            }
            if (f.startsWith(PKG + "Truth")) {
                return PKG + "Truth (measurement)";
            }
        }
        return path.isEmpty() ? "?" : path.get(path.size() - 1);
    }

    /** The largest share the profile gives to something that is not the hot method: "setResult 93.2%". */
    static String blamed(Case c, Cct t) {
        Map<String, Double> by = new LinkedHashMap<>();
        for (Cct.Node n : t.nodes()) {
            if (n.self() > 0 && !isHot(c, n.path())) {
                by.merge(deepestWorkloadFrame(n.path()), n.self(), Double::sum);
            }
        }
        return by.entrySet().stream().max(Map.Entry.comparingByValue())
                .map(e -> simple(e.getKey()) + " " + pct(e.getValue() / t.total())).orElse("—");
    }

    static Result failed(Case c, Variant v, Profiler p, String why) {
        return new Result(c, v, p, 0, 0, 0, 0, 0, 0, 0, null, 0, why.replaceAll("\\s+", " ").strip());
    }

    static String line(Result r) {
        String head = String.format(Locale.ROOT, "%-15s %-14s %-11s %-27s", r.c().id(), r.v().id(), r.p().id(),
                r.p().label());
        if (!r.ok()) {
            return head + " FAILED: " + r.error();
        }
        return head + String.format(Locale.ROOT,
                " %6.0f samples, hot %5.1f%% (truth %5.1f%%), overlap %.3f, hotcover %.2f/%.2f, failures %4.1f%%,"
                        + " top other: %s",
                r.samples(), 100 * r.hot(), 100 * r.truthHot(), r.overlap(), r.coverTruth(), r.coverProfile(),
                100 * r.failures(), r.blamed());
    }

    // ---- helpers ------------------------------------------------------------------------

    static String simple(String frame) {
        if (frame.startsWith("[")) {
            return frame;
        }
        int lastDot = frame.lastIndexOf('.');
        int prevDot = lastDot > 0 ? frame.lastIndexOf('.', lastDot - 1) : -1;
        return prevDot >= 0 ? frame.substring(prevDot + 1) : frame;
    }

    static String pct(double share) {
        return String.format(Locale.ROOT, "%.1f%%", 100 * share);
    }

    String jfc() {
        StringBuilder sb = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<configuration version=\"2.0\" label=\"candor accuracy\">\n"
                + "  <event name=\"jdk.ExecutionSample\">\n"
                + "    <setting name=\"enabled\">true</setting>\n"
                + "    <setting name=\"period\">" + jfrDuration(interval) + "</setting>\n"
                + "  </event>\n");
        if (feature >= 25) {
            sb.append("  <event name=\"jdk.CPUTimeSample\">\n"
                    + "    <setting name=\"enabled\">true</setting>\n"
                    + "    <setting name=\"throttle\">" + jfrDuration(interval) + "</setting>\n"
                    + "    <setting name=\"stackTrace\">true</setting>\n"
                    + "  </event>\n");
        }
        return sb.append("</configuration>\n").toString();
    }

    static String jfrDuration(String interval) {
        Matcher m = Pattern.compile("(\\d+)\\s*(ns|us|ms|s)").matcher(interval);
        if (!m.matches()) {
            throw new IllegalArgumentException("interval '" + interval + "' is not like 1ms");
        }
        return m.group(1) + " " + m.group(2);
    }

    private Path extractAsyncProfiler() throws IOException {
        try (InputStream in = Runner.class.getResourceAsStream("/linux-x64/libasyncProfiler.so")) {
            if (in == null) {
                System.out.println("accuracy: libasyncProfiler.so is not on the classpath: async-profiler rows skipped");
                return null;
            }
            Path dir = work.resolve("async-profiler");
            Files.createDirectories(dir);
            Path so = dir.resolve("libasyncProfiler.so");
            Files.copy(in, so, StandardCopyOption.REPLACE_EXISTING);
            return so;
        }
    }

    private String javaVersion() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(jdk.resolve("bin/java").toString(), "-version").redirectErrorStream(true)
                .start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return text.lines().filter(l -> l.contains("version")).findFirst().orElse("unknown").strip();
    }

    /** The 1-minute load average, or "?" . */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    static int feature(String versionLine) {
        Matcher m = Pattern.compile("version \"(\\d+)").matcher(versionLine);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
        } catch (IOException e) {
            return "";
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}

"""The results markdown of a bench run: raw run + summary in, text out (no verdict is decided here:
the targets table does that)."""

import os

from . import configs, profiles, targets
from .configs import NOSIG, config_label
from .procs import BENCH
from .summary import median, ratio
from .targets import f1, f3


def f2(x):
    return "–" if x is None else "%.2f" % x


def pct(ratio):
    return "–" if ratio is None else "%+.1f%%" % ((ratio - 1) * 100)


def fmtn(x):
    return "–" if x is None else "{:,}".format(int(x))


def fmt_ms(ns):
    return "?" if ns is None else "%.1f" % (ns / 1e6)


def signed(x, fmt="%+.1f", none=""):
    return fmt % x if x is not None else none


def table(header, rows):
    """A markdown table: the header cells, then one line per row of cells (None: a cell left blank)."""
    def line(cells):
        return "|" + "|".join(" " if c is None else " %s " % c for c in cells) + "|"
    return [line(header), "|" + "---|" * len(header)] + [line(r) for r in rows]


def render_markdown(raw, s, raw_rel, results_path):
    L = header(raw, raw_rel, results_path)
    L += machine(raw)
    if raw["mode"] == "server":
        return "\n".join(L + targets_section(s, SERVER_NOTES) + server(raw, s) + anomalies(raw))
    L += targets_section(s)
    L += charts(raw, results_path)
    L += overhead(raw, s)
    if s.get("server"):
        L += server(raw, s)
    L += memory(raw, s)
    L += floor(raw, s)
    L += startup(s)
    L += classload(s)
    L += manythreads(s)
    L += anomalies(raw)
    return "\n".join(L)


def measured_runs(raw, key):
    return [r[key] for r in raw["runs"] if not r["warmup"] and r.get(key) is not None]


TITLES = {"quick": "# candor overhead benchmark (quick mode)", "server": "# candor server benchmark (Jetty under paced load)"}


def header(raw, raw_rel, results_path):
    m = raw["machine"]
    mode = raw["mode"]
    readme = os.path.relpath(os.path.join(BENCH, "README.md"), os.path.dirname(os.path.abspath(results_path)))
    L = [TITLES.get(mode, "# candor overhead benchmark"), ""]
    L.append("Written by `bench/run_bench.py%s` on %s (%.0f s of runs). Raw runs (gitignored): `%s`. "
             "How to run it and what every figure means: [bench/README.md](%s)." % (
                 "" if mode == "full" else " --" + mode, raw["started"][:16].replace("T", " ") + " UTC",
                 raw["elapsed_s"], raw_rel, readme))
    L.append("")
    bgs = measured_runs(raw, "background_cpus")
    if bgs and median(bgs) > 0.5:
        L.append("**Warning: other processes kept a median of %.2f of the %s CPUs busy during these runs** (builds and "
                 "tests of other sessions on the same VM). CPU times are inflated and noisy under such contention; "
                 "the verdicts below are only as good as that allows. Rerun on a quiet machine." % (
                     median(bgs), m["nproc"]))
        L.append("")
    return L


def machine(raw):
    m = raw["machine"]
    L = ["## Machine", "", "| | |", "|---|---|"]
    L.append("| CPU | %s, %s vCPUs, hypervisor: %s |" % (m["cpu_model"], m["nproc"], m["hypervisor"]))
    L.append("| kernel | %s, CONFIG_HZ=%s |" % (m["kernel"], m["config_hz"]))
    L.append("| memory | %s |" % m["memory"])
    L.append("| perf_event_paranoid | %s |" % m["perf_event_paranoid"])
    L.append("| JDK | %s (`%s`) |" % (m["java_version"], m["java"]))
    L.append("| JVM options | %s |" % (" ".join("`%s`" % o for o in raw["args"]["jvm_opt"]) or "none"))
    L.append("| candor | libcandor.so sha256 %s, git %s |" % (m["libcandor_sha256"], m["git_commit"]))
    if m.get("peers"):
        L.append("| peers | %s |" % m["peers"])
    loads = [r["load1"] for r in raw["runs"] if not r["warmup"]]
    steal = measured_runs(raw, "steal_s")
    bgs = measured_runs(raw, "background_cpus")
    L.append("| load average (1 min) at run starts | median %.2f, max %.2f |" % (
        median(loads) or 0, max(loads) if loads else 0))
    if bgs:
        L.append("| CPUs used by other processes during the runs | median %.2f, max %.2f (of %s; the machine is shared, "
                 "so this is noise the medians have to absorb) |" % (median(bgs), max(bgs), m["nproc"]))
    g = raw["quiet_gate"]
    if g["max_wait_s"] > 0:
        L.append("| quiet gate | waited %.0f s in all for other processes to drop below %.1f CPUs; %d runs started "
                 "without it |" % (g["waited_s"], g["threshold_cpus"], g["timeouts"]))
    if steal:
        L.append("| steal time during runs | total %.2f s over %d runs |" % (sum(steal), len(steal)))
    redone = sum(r.get("disturbed_runs", 0) for r in raw["runs"])
    if any("disturbed_runs" in r for r in raw["runs"]):
        L.append("| disturbed runs | %d with steal time above %.1f%% of the machine's CPUs, each run again (at most "
                 "twice) and listed under anomalies: the hypervisor's pauses move a run's ticks and stretch its "
                 "times |" % (redone, 100 * configs.STEAL_LIMIT))
    L.append("")
    return L


def targets_section(s, notes=None):
    L = ["## Targets (issue 14)" if notes else "## Targets (issues 2 and 7)", ""]
    L += table(["target", "measured", "verdict"], [list(r) for r in targets.evaluate(s)])
    L.append("")
    if notes:
        return L + notes + [""]
    L.append("*Java stacks* counts candor's named failures (mostly `unknown_java`: pcs in stubs and intrinsics "
             "that AsyncGetCallTrace cannot map) as not Java. *Requested samples* is candor's own "
             "`samples_per_cpu_second` (per CPU-second of the sampled threads). With many threads each one loses "
             "the part of its CPU time that never completes an interval, so server-like and short-lived-thread "
             "workloads get far fewer samples than requested.")
    L.append("")
    L.append("Cost per sample = (median CPU with the profiler − median CPU without) / median samples. A verdict is "
             "marked \"within the noise\" when the extra CPU is smaller than half the min–max spread of the runs "
             "without the agent; its verdict then comes from an estimate, marked \"by estimate\": the floor plus "
             "*handler µs*, the mean time candor's handler took per tick (the agent measures it from the handler's "
             "start to the sample's publication: the walk and the ring, but not the signal's delivery, which the "
             "floor is; walk=remote: the whole wait). "
             "The floor is what an empty handler pays per perf signal at the same interval, measured in the "
             "same loop. Differences of a few tens of ms are within the noise of this VM: "
             "read the 10 ms rows (≈ 100 samples per CPU-second) as \"too small to measure\", not as exact figures.")
    L.append("")
    return L


def charts(raw, results_path):
    L = ["## Charts", ""]
    made = raw.get("charts")
    if isinstance(made, list) and made:
        base = os.path.dirname(os.path.abspath(results_path))
        for c in made:
            L.append("![%s](%s)" % (os.path.splitext(os.path.basename(c))[0], os.path.relpath(c, base)))
            L.append("")
    else:
        L.append(made if isinstance(made, str) else "none made")
        L.append("")
    return L


def describe_workload(raw, wl):
    w = next((x for x in configs.WORKLOADS if x["name"] == wl), None)
    if w is None:
        return wl
    given = raw["args"].get(w.get("args")) if w.get("args") else None
    desc = w["desc"].format(args=(" " + " ".join(given)) if given else "")
    if raw["args"].get("lib_args", {}).get(wl):
        desc += " with `%s`" % " ".join(raw["args"]["lib_args"][wl])
    return desc


def overhead(raw, s):
    L = ["## Overhead vs no profiler", ""]
    for wl, rows in s["workloads"].items():
        L.append("### %s: %s" % (wl, describe_workload(raw, wl)))
        L.append("")
        L.append("Median of %d alternating runs after a warm-up round; [min–max] of the runs; ratios against the "
                 "median without a profiler. Peak RSS is the child's `ru_maxrss`." % rows["none"]["n"])
        if rows["none"].get("scaled"):
            L.append("")
            L.append("This workload runs for a fixed time, not a fixed amount of work: each run's wall, CPU and ticks are "
                     "scaled by (median work without the agent / its work), so every figure is for the same work and "
                     "the wall column reads as throughput. Work per run (median): " + ", ".join(
                         "%s %s" % ("no agent" if c == "none" else c, fmtn(e.get("work"))) for c, e in rows.items()) + ".")
        L.append("")
        L += time_table(rows)
        L += self_figures(rows)
        L.append("")
        L.append("What each profiler sampled, and what one sample cost (samples: candor's ticks taken, not those "
                 "estimated from CPU clocks; async-profiler's samples in its collapsed output, JFR's ExecutionSample or CPUTimeSample events):")
        L.append("")
        L += samples_table(rows)
        jvm = [(cfg, e["jvm_thread_samples"]) for cfg, e in rows.items() if e.get("jvm_thread_samples")]
        if jvm:
            L.append("")
            L.append("async-profiler samples every thread of the process; its samples on threads that never showed a "
                     "Java frame (JIT compilers, GC; candor samples Java threads only unless `allthreads` or `itimer`) are counted "
                     "in *samples* and the cost per sample but left out of *Java stacks*: " + "; ".join(
                         "%s %d" % (config_label(c), v) for c, v in jvm) + " (median per run).")
        fails = [(cfg, e.get("failures"), e.get("dropped")) for cfg, e in rows.items() if cfg != "none"]
        if any(f or d for _, f, d in fails):
            L.append("")
            L.append("Ticks not recorded (median per run): " + "; ".join(
                "%s: %s" % (config_label(cfg), ", ".join(["%s %d" % (k, v) for k, v in sorted((f or {}).items())] +
                                                         (["dropped %d" % d] if d else [])) or "none")
                for cfg, f, d in fails) + ".")
        L.append("")
    return L


def spread_cell(e, key, fmt=f3):
    return "%s [%s–%s]" % (fmt(e[key + "_s"]), fmt(e[key + "_min"]), fmt(e[key + "_max"]))


def time_table(rows):
    out = []
    for cfg, e in rows.items():
        if cfg == "none":
            out.append([config_label(cfg), spread_cell(e, "wall"), None, spread_cell(e, "cpu"), None, f1(e.get("rss_mb")),
                        None, f2(e.get("background_cpus"))])
            continue
        out.append([config_label(cfg), spread_cell(e, "wall"),
                    "%s [%s … %s]" % (pct(e["wall_ratio"]), pct(e["wall_ratio_min"]), pct(e["wall_ratio_max"])),
                    spread_cell(e, "cpu"),
                    "%s [%s … %s]" % (pct(e["cpu_ratio"]), pct(e["cpu_ratio_min"]), pct(e["cpu_ratio_max"])),
                    f1(e.get("rss_mb")), signed(e.get("rss_added_mb"), none="–"), f2(e.get("background_cpus"))])
    return table(["config", "wall s", "wall vs none", "CPU s", "CPU vs none", "peak RSS MB", "RSS added MB",
                  "other CPUs"], out)


def self_figures(rows):
    selfs = [(cfg, e) for cfg, e in rows.items() if e.get("self_elapsed_s") is not None]
    if not selfs:
        return []
    return ["", "The workload's own figures (median; JVM start-up and exit excluded): elapsed s / process CPU s / "
            "main-thread CPU s: " + "; ".join("%s %s / %s / %s" % (
                config_label(c), f2(e["self_elapsed_s"]), f2(e["self_cpu_s"]), f2(e["self_thread_cpu_s"]))
                for c, e in selfs) + ". The difference between process and main-thread CPU is mostly the "
            "JIT compiling the library's code (and GC)."]


def samples_table(rows):
    out = []
    for cfg, e in rows.items():
        if cfg == "none":
            continue
        out.append([
            config_label(cfg),
            "%d" % e["ticks"] if e.get("ticks") is not None else "–",
            "%s (%s)" % ("%.0f" % e["samples_per_process_cpu_s"] if e.get("samples_per_process_cpu_s") is not None
                         else "–", "%.0f" % e["requested_per_cpu_s"] if e.get("requested_per_cpu_s") else "–"),
            "%.1f%%" % (e["java_share"] * 100) if e.get("java_share") is not None else "not exposed",
            "%d" % e["dropped"] if e.get("dropped") is not None else "not exposed",
            "%s / %s" % (f1(e.get("latency_p50_us")), f1(e.get("latency_p99_us")))
            if e.get("latency_p50_us") is not None else "not measured",
            f1(e.get("handler_us")) if e.get("handler_us") is not None else "–",
            f3(e.get("extra_cpu_s")), f1(e.get("us_per_sample")), f1(e.get("paired_us_per_sample")),
            f1(e.get("floor_us")), "%.2f×" % e["cost_over_floor"] if e.get("cost_over_floor") else "–"])
    return table(["config", "samples", "samples / process CPU-s (requested)", "Java stacks", "dropped",
                  "latency p50 / p99 µs", "handler µs", "extra CPU s", "cost / sample µs", "paired µs", "floor µs",
                  "cost / floor"], out)


def memory(raw, s):
    return section("Agent memory: 1-minute recordings of the library workloads", s.get("memory"),
                   lambda mem: memory_body(raw, mem), "not measured (`--skip memory`, or `--quick`)")


def memory_body(raw, mem):
    L = []
    secs = raw["args"].get("memory_seconds", 60)
    L.append("Each run loops its work for %s s (`candor-bench-workloads.jar NAME --seconds %s`; `lib` runs h2, "
             "jackson, lucene and regex in turn in one JVM), %d round(s), no warm-up, after the overhead loop. "
             "The Java heap is fixed and pre-touched (`-XX:+AlwaysPreTouch` on top of the JVM options above), so "
             "that the heap's own growth does not drown the profiler's memory: *added* is what the profiler (and "
             "any JIT or class metadata it causes) adds outside a 1 GiB heap that is resident in every run. Peak RSS "
             "is `ru_maxrss` (VmHWM); *at 10 s* and *at the end* are VmRSS polled once a second; *peak rise in the "
             "last second* is the final peak minus the VmHWM of the last poll: memory taken while the JVM exits "
             "(a profiler writing its output). A single run per config: read differences of a few MB as noise." % (
                 secs, secs, raw["args"].get("memory_reps", 1)))
    L.append("")
    for wl, rows in mem.items():
        L.append("### %s" % wl.replace("memory-", ""))
        L.append("")
        out = []
        for cfg, e in rows.items():
            added = signed(e.get("added_mb"))
            out.append([config_label(cfg),
                        f1(e["rss_mb"]) + (" [%s–%s]" % (f1(e["rss_min_mb"]), f1(e["rss_max_mb"])) if e["n"] > 1 else ""),
                        "**%s**" % added if cfg == "1ms" and added else added,
                        f1(e.get("rss_10s_mb")), f1(e.get("rss_end_mb")), signed(e.get("added_end_mb")),
                        f1(e.get("exit_rise_mb")), fmtn(e.get("samples")) if cfg != "none" else "",
                        "%.2f%%" % (e["java_share"] * 100) if e.get("java_share") is not None else "",
                        fmtn(e.get("loops")), f1(e.get("wall_s")), f1(e.get("cpu_s"))])
        L += table(["config", "peak RSS MB", "added MB (peak)", "RSS at 10 s MB", "RSS at the end MB",
                    "added at the end MB", "peak rise in the last second MB", "samples", "Java stacks", "loops of work",
                    "wall s", "CPU s"], out)
        L.append("")
    return L


def floor(raw, s):
    L = ["## Platform floor (bench/floor/floor.c, same loop)", ""]
    L.append("A C busy loop doing fixed work (%s iterations, 1 thread) with a perf_event_open cpu-clock event on "
             "itself, signalled with F_SETOWN_EX/F_SETSIG and an empty handler that only counts." % raw["args"]["floor_work"])
    L.append("")
    out = []
    for cfg, e in s["floor"].items():
        label = {"none": "no perf event"}.get(cfg, cfg)
        if cfg.endswith(NOSIG):
            label = "%s, timer only (no signal)" % cfg[:-len(NOSIG)]
        out.append([label, spread_cell(e, "cpu"), "%d" % e["signals"] if e.get("signals") is not None else "–",
                    f3(e.get("extra_cpu_s")), f1(e.get("us_per_signal")), f1(e.get("paired_us_per_signal")),
                    signed(e.get("overhead_pct"), "%+.2f%%"), f2(e.get("background_cpus"))])
    L += table(["interval", "CPU s [min–max]", "signals", "extra CPU s", "µs / signal", "paired µs", "overhead",
                "other CPUs"], out)
    if any(c.endswith(NOSIG) for c in s["floor"]):
        L.append("")
        L.append("The timer-only row runs the same perf counter without F_SETOWN_EX/F_SETSIG/O_ASYNC: its \"signals\" "
                 "column counts elapsed periods instead. The difference between it and the signalled row at the same "
                 "interval is what delivering the signal (not the timer interrupt) costs.")
    L.append("")
    return L


def section(title, data, body, missing="not measured"):
    """A section: its title, then what body(data) writes, or `missing` without data."""
    return ["## " + title, ""] + (body(data) if data else [missing, ""])


def startup(s):
    return section("Start-up cost", s.get("startup"), startup_body)


def startup_body(st):
    return ["A trivial Hello (`java -cp candor-bench-workloads.jar dev.candor.bench.Main hello`) with and without "
            "`-agentpath:libcandor.so=start` (which also writes the default `candor-PID.html` at exit), "
            "median of %d alternating runs." % st["n"], ""] + table(
        [None, "CPU s", "wall s"], [["no agent", f3(st["none_cpu_s"]), f3(st["none_wall_s"])],
                                    ["`=start`", f3(st["start_cpu_s"]), f3(st["start_wall_s"])],
                                    ["**cost**", "**%s**" % f3(st["cost_cpu_s"]), f3(st["cost_wall_s"])]]) + [""]


CLASSLOAD_NAMES = {"none": "no agent", "10ms": "candor `start,interval=10ms` (collapsed output)",
                   "loaded": "candor loaded, not started (JVMTI events + preloading, no sampling)",
                   "dns": "no agent, `-XX:+DebugNonSafepoints` (which candor turns on)"}


def classload(s):
    return section("Class-loading-heavy start-up (jmethodID preloading)", s.get("classload"), classload_body)


def classload_body(c):
    runs = table(["config", "CPU s [min–max]", "extra CPU s", "paired extra CPU s", "wall s"], [
        [CLASSLOAD_NAMES.get(cfg, cfg), spread_cell(e, "cpu"),
         "" if cfg == "none" else "%s (%+.1f%%)" % (f3(e["extra_cpu_s"]), e["extra_cpu_s"] / c["none_cpu_s"] * 100),
         "" if cfg == "none" else f3(e["paired_extra_cpu_s"]), f3(e["wall_s"])] for cfg, e in c["configs"].items()])
    timers = [["`preload_ns` (GetLoadedClasses at VMInit)", "%s ms for %s classes (%s µs/class)" % (
                  fmt_ms(c.get("preload_ns")), fmtn(c.get("classes_preloaded")), f1(c.get("us_per_preloaded_class")))],
              ["`class_prepare_ns` (GetClassMethods in ClassPrepare)", "%s ms for %s classes (%s µs/class)" % (
                  fmt_ms(c.get("class_prepare_ns")), fmtn(c.get("classes_prepared")), f1(c.get("us_per_prepared_class")))],
              ["ticks during the run", fmtn(c.get("ticks"))]]
    if c.get("preload_ns") is not None and c.get("class_prepare_ns") is not None and c["extra_cpu_s"] > 0:
        timers.append(["preloading as a share of the extra CPU", "%.0f%%" % (
            (c["preload_ns"] + c["class_prepare_ns"]) / 1e9 / c["extra_cpu_s"] * 100)])
    return ["`candor-bench-workloads.jar classload`: defines 4,000 generated classes of 10 methods through custom "
            "class loaders, initializes them, then loads and links 3,000 `java.base` classes, and exits. Median of "
            "%d alternating runs; [min–max]; *paired* is the median of each round's own difference." % c["n"], ""] + \
        runs + ["", "From the agent's stats (medians): ", ""] + table(["figure", "value"], timers) + [""]


def manythreads(s):
    return section("Wall sampler with 500 idle threads (issue 6)", s.get("manythreads"), manythreads_body)


def manythreads_body(mt):
    return ["`dev.candor.itest.workload.ManyThreads 500 2 5` (500 threads parked on a latch, 2 busy, 5 s) with "
            "`start,event=wall,interval=20ms,wallthreads=16`; %d runs, medians of the stats JSON `sampler` "
            "figures (running threads summed over the runs)." % mt["n"], ""] + table(["figure", "value"], [
        ["sampler CPU per tick (`tick_cpu`) p50 / p99 / max", "%s / %s / %s µs" % (
            f1(mt["tick_cpu_p50_us"]), f1(mt["tick_cpu_p99_us"]), f1(mt["tick_cpu_max_us"]))],
        ["sampler CPU as a share of one CPU at 50 ticks/s", "%.2f%%" % (mt["tick_cpu_p50_us"] * 50 / 1e6 * 100)],
        ["running threads sampled / seen (`running_sampled` / `running_seen`)", "%s / %s (%.1f%%)" % (
            fmtn(mt["running_sampled"]), fmtn(mt["running_seen"]),
            100.0 * mt["running_sampled"] / mt["running_seen"] if mt["running_seen"] else 0)],
        ["ticks (missed)", "%s (%s)" % (fmtn(mt["ticks"]), fmtn(mt["missed_ticks"]))],
        ["tick rate effective / requested", "%s / %s per s" % (f1(mt["effective_rate"]), f1(mt["requested_rate"]))],
        ["threads considered per tick (max)", fmtn(mt["candidates_max"])],
        ["signals sent / samples repeated without a signal (per run)", "%s / %s" % (
            fmtn(mt["signals_sent"]), fmtn(mt["repeated_without_signal"]))]]) + [""]


def anomalies(raw):
    L = ["## Anomalies", ""]
    if raw["anomalies"]:
        L += ["- " + a.replace("\n", " ").replace("|", "\\|") for a in raw["anomalies"]]
    else:
        checked = "the cpu engine at the requested interval, within %.0f%% of the requested samples per CPU-second" % (
            targets.RATE_TOLERANCE * 100)
        if any(r["kind"] == "server" for r in raw["runs"]):
            checked = checked.replace(", within", " (and, outside the server phase, whose table sets the rate beside "
                                                   "its target, within") + "); wrk got a 2xx answer to every request"
        L.append("None: every JVM exited 0, every stats file had `ticks = recorded + dropped + Σ failures`, %s." % checked)
    L.append("")
    return L


SERVER_NOTES = [
    "The overlap target compares candor's profile of the server with async-profiler's default one (native and "
    "kernel frames included) and asks for at least the agreement of two async-profiler runs with each other. The "
    "sample-rate target counts every sample of the Java threads per CPU-second of those threads, system time "
    "included: a profiler that cannot sample in the kernel loses the server's system time. Read the overlap "
    "with the context-switch line under the server table: async-profiler's timers per thread put a tick that "
    "falls due during a context switch on the thread's own stack at `finish_task_switch` (and lengthen every "
    "switch), where candor's per-CPU timers charge it to the thread as `[cpu_unsampled]` (no stack); "
    "`percpu=no`'s recorded stacks compare like with like. The verdict is on all pairs of rounds (every candor "
    "run with every async-profiler run, against every pair of async-profiler runs): each JVM compiles the "
    "server its own way (in some runs C2 inlines the regex predicates differently, and both profilers, watching "
    "one JVM, see the same shift), so with adjacent rounds alone the verdict would turn on which of those "
    "states a few runs happened to get."]


def server(raw, s):
    srv = s.get("server")
    if not srv:
        return []
    pace = raw.get("server_pacing") or {}
    ref = config_label(srv["reference"])
    rows = srv["rows"]
    L = ["## Server under load: Jetty and wrk (issue 14)", ""]
    L.append("`candor-bench-workloads.jar jetty` (Jetty 12, a pool of %s threads; endpoints doing JSON, regex, SHA-256 "
             "and a mix; its heap pre-touched, `-XX:+AlwaysPreTouch`, so that no measured window holds the page faults of "
             "the heap's first use) loaded by wrk with `bench/server/pace.lua` on 127.0.0.1: %s connections, each waiting %s ms "
             "after every response, %s s of warm-up, then %s s measured; %d alternating rounds, medians [min–max]. "
             "The server measures the window itself: requests served and its process CPU (user + system, every "
             "thread: JIT, GC and the profiler's own included), hence *CPU / request*. *Samples / Java-thread CPU-s*: "
             "the samples of the Java threads (candor's ticks taken, not those estimated from CPU clocks; async-profiler's samples of the threads that ran Java "
             "code; JFR's sample events) over the CPU time of the server's Java threads (ThreadMXBean, the whole run "
             "like the samples). *Kernel share*: samples with a kernel frame (`_[k]`, or candor's "
             "`[kernel_unsampled]`); *native share*: samples whose leaf is a native C/C++ frame; both of the Java "
             "threads' samples in the collapsed output (JFR records Java frames only: –). *Overlap*: `candor compare`'s "
             "overlap(A,B) of the run's profile with %s's of the same round (compare reads async-profiler's annotated "
             "frames as candor names them; its threads that never ran Java code are left out); %s's own row compares each of its "
             "runs with the next round's, the run-to-run baseline. *Peak RSS*: the server JVM's largest resident "
             "set over the whole run (`ru_maxrss`, its 1 GB heap included)." % (
                 pace.get("threads", "?"), pace.get("connections", "?"), pace.get("think_ms", "?"),
                 pace.get("warmup_s", "?"), pace.get("seconds", "?"), max(e["n"] for e in rows.values()), ref, ref))
    L.append("")
    out = []
    for cfg, e in rows.items():
        sampled = cfg != "none"
        out.append([
            config_label(cfg), "%.0f" % e["requests_per_s"], f2(e["server_cpus"]),
            "%s [%s–%s]" % (f1(e["cpu_us_per_request"]), f1(e["cpu_us_min"]), f1(e["cpu_us_max"])),
            "%s [%s … %s]" % (pct(e["ratio"]), pct(e["ratio_min"]), pct(e["ratio_max"])) if sampled else None,
            "%s / %s" % (f1(e["user_us_per_request"]), f1(e["sys_us_per_request"])),
            "%s (%s)" % (f1(e.get("samples_per_cpu_s")), "%.0f" % e["requested_per_cpu_s"]
                         if e.get("requested_per_cpu_s") else "–") if sampled else None,
            share(ratio(e.get("samples_per_cpu_s"), e.get("requested_per_cpu_s"))) if sampled else None,
            share(e.get("kernel_share")) if sampled else None, share(e.get("native_share")) if sampled else None,
            ("%s [%s–%s]" % (f3(e.get("overlap_ref")), f3(e.get("overlap_min")), f3(e.get("overlap_max")))
             if e.get("overlap_ref") is not None else "–") if sampled else None,
            "%s / %s" % (f2(e.get("latency_p50_ms")), f2(e.get("latency_p99_ms"))), "%.0f" % e["rss_mb"]])
    L += table(["config", "requests/s", "server CPUs", "CPU / request µs", "vs none", "user / sys µs per request",
                "samples / Java-thread CPU-s (requested)", "% of requested", "kernel share", "native share",
                "overlap with %s" % ref, "wrk p50 / p99 ms", "peak RSS MB"], out)
    L.append("")
    L.append("Process CPU of a whole run (start-up, warm-up, exit: rusage), and the CPU of the Java threads the "
             "samples are counted against (median): " + "; ".join("%s %s s / %s s" % (
                 config_label(c), f1(e["process_cpu_s"]), f1(e["java_cpu_s"])) for c, e in rows.items()) + ".")
    L.append("")
    base = (rows.get("none") or {}).get("no_jit_us_per_request")
    if base:
        def no_jit(c, e):
            r = lambda x: x / base if x is not None else None
            vs = "" if c == "none" else " (%s [%s … %s])" % (pct(r(e["no_jit_us_per_request"])), pct(r(e["no_jit_us_min"])),
                                                             pct(r(e["no_jit_us_max"])))
            return "%s %s µs%s" % (config_label(c), f1(e["no_jit_us_per_request"]), vs)
        L.append("The JIT compiler is still at work after the warm-up: its threads (C1, C2) used %s of the server's CPU "
                 "in the measured window (median, no profiler: %s), and how much varies from run to run more than a "
                 "profiler's cost does. CPU / request without them (median [min … max] of the runs against no "
                 "profiler's median): " % (
                     share(median([e.get("jit_share") for e in rows.values()])), share(rows["none"].get("jit_share")))
                 + "; ".join(no_jit(c, e) for c, e in rows.items() if e.get("no_jit_us_per_request")) + ".")
        L.append("")
    drops = [(c, e) for c, e in rows.items() if e.get("dropped")]
    if drops:
        L.append("Ticks candor dropped because its sample ring was full (median per run; counted in every output, and "
                 "logged at stop above 1%): " + "; ".join("%s %d (%s)" % (config_label(c), e["dropped"],
                                                                            share(e.get("dropped_share")))
                                                            for c, e in drops) + ".")
        L.append("")
    switch = [(c, e) for c, e in rows.items() if c != "none" and e.get("switch_share") is not None]
    if switch:
        L.append("Context switches (median): the share of the Java threads' samples whose leaf is the scheduler's "
                 "`finish_task_switch` (a tick that fell due while a switch ran with interrupts off fires there, "
                 "in the thread switched *in*; timers per thread also add switch work of their own), and the "
                 "overlap with %s when both profiles keep recorded stacks only (`candor compare --drop-failures`: "
                 "candor's `[cpu_unsampled]` and `[kernel_unsampled]` ticks left out, as a profiler that drops what "
                 "it could not sample): " % ref + "; ".join("%s %s, %s" % (
                     config_label(c), share(e["switch_share"]), f3(e.get("overlap_ref_recorded")))
                     for c, e in switch) + ".")
        L.append("")
    itself = [(c, e) for c, e in rows.items() if e.get("overlap_self") is not None]
    if itself:
        L.append("Run to run (median): each profiler's overlap with itself, every run's profile against the same "
                 "config's next round (cyclic). Two profilers that differ in anything systematic overlap each other "
                 "less than either overlaps itself; how far below both a cross overlap lies is what the runs' own "
                 "noise does not explain: " + "; ".join("%s %s" % (config_label(c), f3(e["overlap_self"]))
                                                       for c, e in itself) + ".")
        L.append("")
    L += pairs_paragraph(
        rows, srv["reference"], "pairs_self", "pairs_ref",
        "All pairs of rounds (mean): each profiler with itself, every run against every other run of the same "
        "config: ", ". With %s, every run against every run of it: " % ref)
    L += pairs_paragraph(
        rows, srv["reference"], "pairs_self_java", "pairs_ref_java",
        "Java frames only (all pairs of rounds, mean; `candor compare --java-only` on both sides: native and kernel "
        "frames and candor's `[kernel_unsampled]` marker dropped, so each tick counts for the Java code that ran or "
        "made the system call, wherever in the kernel each profiler put it): each profiler with itself: ",
        ". With %s: " % ref)
    L += pairs_paragraph(
        rows, srv["reference"], "pairs_self_noswitch", "pairs_ref_noswitch",
        "Without the ticks of context switches (all pairs of rounds, mean; every stack whose leaf is the scheduler's "
        "`finish_task_switch` dropped from every profile, and `candor compare --drop-failures`: timers per thread put "
        "at `finish_task_switch` a tick that fell due while the thread was switched out or switching, and reprogram "
        "themselves at every switch, which lengthens it; candor's timers per CPU see little of a switch, and it "
        "charges the CPU its ticks missed as estimated `[kernel_unsampled]` ticks, which --drop-failures drops): each "
        "profiler with itself: ", ". With %s: " % ref,
        lambda e, key: "%s (Java frames only %s)" % (f3(e.get(key)), f3(e.get(key.replace("_noswitch", "_java_noswitch")))))
    return L + server_accuracy(rows)


def pairs_paragraph(rows, reference, self_key, ref_key, intro, with_ref, figure=None):
    """A paragraph (and its blank line) of all-pairs overlaps: every config's with itself (`self_key`), then every
    other config's with the reference (`ref_key`); `figure(e, key)` formats one (default: the value)."""
    figure = figure or (lambda e, key: f3(e.get(key)))
    picked = [(c, e) for c, e in rows.items() if e.get(self_key) is not None]
    if not picked:
        return []
    return [intro + "; ".join("%s %s" % (config_label(c), figure(e, self_key)) for c, e in picked) + with_ref +
            "; ".join("%s %s" % (config_label(c), figure(e, ref_key)) for c, e in picked if c != reference) + ".", ""]


def server_accuracy(rows):
    """The table of the profiles' endpoint shares against the server's own per-endpoint CPU."""
    L = []
    acc = [(c, e) for c, e in rows.items() if c != "none" and e.get("endpoint_error") is not None]
    if acc:
        L.append("**Accuracy against the server's own measure.** The server times each endpoint on its thread's CPU "
                 "clock (user + system, around `Endpoints.json`, `.regex`, `.hash`, `.mix`, since start) and its Java "
                 "threads' CPU in all; the rest is *other* (Jetty's I/O and HTTP parsing). Each cell: the profile's "
                 "share of the Java threads' samples under that endpoint (failures without a stack left out) / the "
                 "server's share, medians over the rounds. *Error*: the total variation distance of the two "
                 "distributions (half the sum of the differences; 0 is exact), median [min–max].")
        L.append("")
        keys = profiles.ENDPOINTS + ("other",)
        L += table(["config"] + list(keys) + ["error"], [
            [config_label(c)] + ["%s / %s" % (share(e["endpoint_share_" + k]), share(e["endpoint_truth_" + k]))
                                 for k in keys]
            + ["%s [%s–%s]" % (f3(e["endpoint_error"]), f3(e["endpoint_error_min"]), f3(e["endpoint_error_max"]))]
            for c, e in acc])
        L.append("")
    return L


def share(x):
    return "–" if x is None else "%.1f%%" % (x * 100)

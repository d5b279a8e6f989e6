"""The runner: runs every phase of a bench run in alternating rounds and keeps every run, raw, with
the anomalies it saw. What the runs mean is summary.py's business, how they read render.py's."""

import datetime
import json
import os
import re
import sys
import time

from . import configs, machine, peers, procs, results, summary, targets
from .configs import INTERVALS, NOSIG, PER_CPU_DETUNE_PER_MILLE, SELF_RE, VARIANT_EVENT, VARIANT_EXPECTS, candor_interval, candor_walk
from .procs import OUT, REPO, log, run_measured
from .render import fmt_ms
from .serverphase import ServerPhase


class Bench:
    def __init__(self, args, gate):
        self.args = args
        self.gate = gate
        self.mode = "server" if args.server else ("quick" if args.quick else "full")
        self.defaults = configs.DEFAULTS[self.mode]
        self.java = procs.resolve_java(args.jdk)
        self.build = os.path.abspath(args.build)
        self.lib = os.path.join(self.build, "libcandor.so")
        self.runs = []  # every run, raw
        self.anomalies = []
        for d in ("runs", "collapsed", "logs", "scratch", "peers"):
            os.makedirs(os.path.join(OUT, d), exist_ok=True)

    def jvm_base(self):
        return [self.java, "-XX:ErrorFile=%s" % os.path.join(OUT, "logs", "hs_err_pid%p.log")] + self.args.jvm_opt

    def run(self, cmd, log_name, measured=True, before=None, **kw):
        """One measured run of cmd (procs.run_measured), run again, at most STEAL_RETRIES times, while the
        hypervisor took more than STEAL_LIMIT of the machine's CPUs during it (configs.py says why); each
        disturbed run is listed among the anomalies and counted in r["disturbed_runs"]. A run whose figures
        no table reads (measured=False: a warm-up, the probe) runs once. before(): called before every try
        (a server's port file)."""
        disturbed = 0
        while True:
            if before:
                before()
            r = run_measured(cmd, os.path.join(OUT, "logs", log_name + ".log"), self.gate, **kw)
            share = procs.stolen_share(r)
            if not measured or share <= configs.STEAL_LIMIT:
                break
            again = disturbed < configs.STEAL_RETRIES
            self.anomaly("%s%s: %.1f s of steal time (%.0f%% of its CPUs)%s" % (
                log_name, " (again %d)" % disturbed if disturbed else "", r["steal_s"], 100 * share,
                ", run again" if again else ", kept: too many disturbed runs"))
            disturbed += 1
            if not again:
                break
        r["disturbed_runs"] = disturbed
        return r

    # -- one run of each kind --

    def profiler_args(self, name, cfg, tag, per_round=False):
        """JVM options and output reader of config cfg for one run of workload `name` (see peers.Profilers).
        candor's profile is kept per workload and config (the last round's), per round with per_round."""
        profile = "%s-%s-%s" % (name, cfg, tag) if per_round else "%s-%s" % (name, cfg)
        return self.profilers.args(cfg, os.path.join(OUT, "peers", "%s-%s-%s" % (name, cfg, tag)),
                                   collapsed=os.path.join(OUT, "collapsed", profile + ".collapsed"),
                                   stats=os.path.join(OUT, "runs", "%s-%s-%s.json" % (name, cfg, tag)))

    def run_workload(self, wl, cfg, rnd, warmup):
        tag = "w" if warmup else "r%d" % rnd
        args, reader = self.profiler_args(wl["name"], cfg, tag)
        r = self.run(self.jvm_base() + args + wl["argv"], "%s-%s-%s" % (wl["name"], cfg, tag), not warmup,
                     timeout=wl.get("timeout", 600), rss_series=wl.get("rss_series", False))
        r.update(kind=wl.get("kind", "workload"), workload=wl["name"], config=cfg, round=rnd, warmup=warmup)
        if wl.get("self_re"):
            ms = re.search(wl["self_re"], r["output_tail"])
            if ms:
                r["self_loops"], r["self_elapsed_s"] = int(ms.group(1)), int(ms.group(2)) / 1e3
                r["self_cpu_s"], r["self_thread_cpu_s"] = int(ms.group(3)) / 1e3, int(ms.group(4)) / 1e3
            elif r["exit"] == 0:
                self.anomaly("%s/%s round %d: no summary line (loops=… elapsed_ms=…) in the output" % (
                    wl["name"], cfg, rnd))
        if wl.get("work_re"):
            mt = re.search(wl["work_re"], r["output_tail"])
            r["work"] = int(mt.group(1)) if mt else None
            if not mt:
                self.anomaly("%s/%s round %d: no work count in the output" % (wl["name"], cfg, rnd))
        self.read_outputs(r, reader)
        self.runs.append(r)
        return r

    def read_outputs(self, r, reader):
        """Reads what the run's profiler wrote into r and checks it."""
        cfg = r["config"]
        if reader:
            reader(r)
            if configs.kind(cfg) in ("ap", "jfr") and not (r.get("peer") or {}).get("samples"):
                self.anomaly("%s/%s round %d: no samples counted in the profiler's output (exit %d): %s" % (
                    r["workload"], cfg, r["round"], r["exit"], r["output_tail"][-300:]))
        self.check(r)

    def run_floor(self, cfg, rnd, warmup):
        nosignal = cfg.endswith(NOSIG)
        interval = 0 if cfg == "none" else INTERVALS[cfg[:-len(NOSIG)] if nosignal else cfg]
        cmd = [self.floor, "--interval", str(interval), "--work", str(self.args.floor_work)]
        if nosignal:
            cmd.append("--nosignal")
        r = self.run(cmd, "floor-%s-%s" % (cfg, "w" if warmup else "r%d" % rnd), not warmup)
        r.update(kind="floor", workload="floor", config=cfg, round=rnd, warmup=warmup)
        try:
            r["floor"] = json.loads(r["output_tail"].strip().splitlines()[-1])
        except (ValueError, IndexError):
            r["floor"] = None
            self.anomaly("floor at %s printed no JSON (exit %d): %s" % (cfg, r["exit"], r["output_tail"][-300:]))
        if r["exit"] != 0:
            self.anomaly("floor at %s exited %d" % (cfg, r["exit"]))
        self.runs.append(r)
        return r

    def anomaly(self, msg):
        if msg not in self.anomalies:
            self.anomalies.append(msg)
            log("  !! " + msg)

    def check(self, r):
        """Flags runs where the JVM or the agent misbehaved."""
        what = "%s/%s round %s" % (r["workload"], r["config"], r["round"])
        if r["exit"] != 0:
            self.anomaly("%s: JVM exited with %d; last output: %s" % (what, r["exit"], r["output_tail"][-500:]))
        if not candor_interval(r["config"]):
            return
        s = r.get("stats")
        if s is None:
            self.anomaly("%s: no stats JSON written" % what)
            return
        ticks = s.get("ticks", 0)
        parts = s.get("recorded", 0) + s.get("dropped", 0) + sum((s.get("failures") or {}).values())
        if ticks != parts:
            self.anomaly("%s: ticks %d != recorded + dropped + failures = %d" % (what, ticks, parts))
        want_engine = {"events": "cpu+alloc+lock"}.get(candor_walk(r["config"]), VARIANT_EVENT.get(candor_walk(r["config"]), "cpu"))
        if s.get("engine") != want_engine:
            self.anomaly("%s: engine is %r" % (what, s.get("engine")))
        want = INTERVALS[candor_interval(r["config"])]
        if s.get("timers") == "per-cpu":  # per-CPU timers run 0.3% short of the interval asked (README, percpu)
            want -= want * PER_CPU_DETUNE_PER_MILLE // 1000
        if s.get("interval_ns") != want:
            self.anomaly("%s: interval_ns %r, expected %d" % (what, s.get("interval_ns"), want))
        walk = candor_walk(r["config"])
        # the walker and timers each variant must have run with (None: not checked); walks expect themselves
        want_walker, want_timers = VARIANT_EXPECTS.get(walk, (walk, None))
        if want_walker and s.get("walker") != want_walker:
            self.anomaly("%s: walker %r, expected %s" % (what, s.get("walker"), want_walker))
        if want_timers and s.get("timers") != want_timers:
            self.anomaly("%s: timers %r, expected %s" % (what, s.get("timers"), want_timers))
        req, got = s.get("requested_per_cpu_second"), s.get("samples_per_cpu_second")
        tol = targets.RATE_TOLERANCE
        # (short runs are exempt: every thread loses up to one interval of CPU that never elapses; the server's
        # table sets its rate beside the target itself)
        if req and got is not None and ticks >= 500 and r["kind"] != "server" \
                and not ((1 - tol) * req <= got <= (1 + tol) * req):
            self.anomaly("%s: %.0f samples per CPU-second, %.0f requested" % (what, got, req))
        if ticks and s.get("recorded", 0) < 0.5 * ticks:
            self.anomaly("%s: only %d of %d ticks recorded" % (what, s.get("recorded", 0), ticks))
        if "Exception" in r["output_tail"] or "candor:" in r["output_tail"]:
            self.anomaly("%s: output mentions: %s" % (what, r["output_tail"][-300:].strip()))

    # -- phases --

    def overhead_phase(self, workloads, cfgs, reps, floor_extra):
        nfloor = len([c for c in cfgs if c == "none" or c in INTERVALS])
        total = (reps + 1) * (sum(len([c for c in cfgs if c in wl.get("configs", cfgs)]) for wl in workloads)
                              + nfloor + len(floor_extra))
        n = 0
        for rnd in range(0, reps + 1):
            warmup = rnd == 0
            log("round %d/%d%s (load %.2f)" % (rnd, reps, " (warm-up)" if warmup else "", os.getloadavg()[0]))
            for cfg in cfgs:
                for wl in workloads:
                    if cfg not in wl.get("configs", cfgs):
                        continue
                    r = self.run_workload(wl, cfg, rnd, warmup)
                    n += 1
                    log("  [%3d/%d] %-8s %-17s wall %6.3f s  cpu %6.3f s  rss %4.0f MB%s" % (
                        n, total, wl["name"], cfg, r["wall_s"], r["cpu_s"], r["maxrss_kb"] / 1024, peers.sampled(r)))
                if cfg != "none" and cfg not in INTERVALS:
                    continue
                f = self.run_floor(cfg, rnd, warmup)
                n += 1
                log("  [%3d/%d] floor    %-6s wall %6.3f s  cpu %6.3f s  signals %d" % (
                    n, total, cfg, f["wall_s"], f["cpu_s"], (f.get("floor") or {}).get("signals", 0)))
            for cfg in floor_extra:
                f = self.run_floor(cfg, rnd, warmup)
                n += 1
                log("  [%3d/%d] floor    %-6s wall %6.3f s  cpu %6.3f s  periods %d (no signal)" % (
                    n, total, cfg, f["wall_s"], f["cpu_s"], (f.get("floor") or {}).get("periods", 0)))

    def startup_phase(self, reps):
        """CPU of a trivial hello with -agentpath:...=start minus without."""
        scratch = os.path.join(OUT, "scratch")
        hello = ["-cp", self.wjar, "dev.candor.bench.Main", "hello"]
        for rnd in range(0, reps + 1):
            warmup = rnd == 0
            for cfg in ("none", "start"):
                cmd = self.jvm_base() + ([self.profilers.agent_arg("start")] if cfg == "start" else []) + hello
                r = self.run(cmd, "hello-%s-%s" % (cfg, "w" if warmup else "r%d" % rnd), not warmup, cwd=scratch)
                r.update(kind="startup", workload="hello", config=cfg, round=rnd, warmup=warmup)
                if r["exit"] != 0 or "hello" not in r["output_tail"]:
                    self.anomaly("hello/%s round %d: exit %d, output: %s" % (cfg, rnd, r["exit"], r["output_tail"][-300:]))
                self.runs.append(r)
                # `start` alone writes candor-PID.html into the working directory
                for f in os.listdir(scratch):
                    if f.startswith("candor-"):
                        os.remove(os.path.join(scratch, f))
            log("  hello round %d: none %.3f s cpu, start %.3f s cpu" % (
                rnd, self.runs[-2]["cpu_s"], self.runs[-1]["cpu_s"]))

    def classload_phase(self, reps, cfgs):
        """A class-loading-heavy start-up with and without the agent (jmethodID preloading).
        configs: "none"; "10ms" (candor sampling at 10 ms); "loaded" (candor loaded without `start`:
        its JVMTI events and preloading, no sampling); "dns" (no agent, -XX:+DebugNonSafepoints,
        which candor turns on by enabling CompiledMethodLoad events)."""
        argv = ["-jar", self.wjar, "classload"]
        extra = {"loaded": ["-agentpath:" + self.lib], "dns": ["-XX:+UnlockDiagnosticVMOptions", "-XX:+DebugNonSafepoints"]}
        for rnd in range(0, reps + 1):
            warmup = rnd == 0
            tag = "w" if warmup else "r%d" % rnd
            line = []
            for cfg in cfgs:
                args, reader = (extra[cfg], None) if cfg in extra else self.profiler_args("classload", cfg, tag)
                r = self.run(self.jvm_base() + args + argv, "classload-%s-%s" % (cfg, tag), not warmup)
                r.update(kind="classload", workload="classload", config=cfg, round=rnd, warmup=warmup)
                self.read_outputs(r, reader)
                self.runs.append(r)
                line.append("%s %.3f" % (cfg, r["cpu_s"]))
                if r.get("stats"):
                    s = r["stats"]
                    line.append("(preload %s ms, prepare %s ms / %s classes)" % (
                        fmt_ms(s.get("preload_ns")), fmt_ms(s.get("class_prepare_ns")), s.get("classes_prepared", "?")))
            log("  classload round %d: CPU s: %s" % (rnd, " ".join(line)))

    def manythreads_phase(self, reps):
        """candor wall (20 ms, wallthreads=16) on 500 mostly idle threads and 2 busy ones: the sampler's
        CPU per tick and whether every running thread was sampled (stats JSON `sampler`)."""
        classes = os.path.join(REPO, "itest", "target", "classes")
        if not os.path.exists(os.path.join(classes, "dev", "candor", "itest", "workload", "ManyThreads.class")):
            self.anomaly("itest/target/classes has no ManyThreads workload (run `make test` once): skipped")
            return
        cp = procs.snapshot_dir(classes, "itest-classes")
        for rnd in range(1, reps + 1):
            stats = peers.remove(os.path.join(OUT, "runs", "manythreads-wall-r%d.json" % rnd))
            opts = "start,event=wall,interval=20ms,wallthreads=16,file=%s,stats=%s,quiet" % (
                os.path.join(OUT, "collapsed", "manythreads-wall.collapsed"), stats)
            cmd = self.jvm_base() + [self.profilers.agent_arg(opts), "-cp", cp, "dev.candor.itest.workload.ManyThreads",
                                     "500", "2", "5"]
            r = self.run(cmd, "manythreads-wall-r%d" % rnd)
            r.update(kind="manythreads", workload="manythreads", config="wall", round=rnd, warmup=False,
                     stats=peers.read_stats(stats))
            if r["exit"] != 0 or not r["stats"]:
                self.anomaly("manythreads round %d: exit %d, stats %s: %s" % (
                    rnd, r["exit"], "missing" if not r["stats"] else "ok", r["output_tail"][-300:]))
            self.runs.append(r)
            sm = (r.get("stats") or {}).get("sampler") or {}
            log("  manythreads round %d: cpu %.3f s, sampler %s" % (rnd, r["cpu_s"], json.dumps(sm)[:300]))

    def memory_phase(self, names, cfgs, reps, seconds):
        """Agent memory (issue 7): each library workload (or `lib`, the four in turn in one JVM) looping its
        work for `seconds` s with each config; peak RSS (wait4's ru_maxrss = VmHWM) and VmRSS polled once a
        second. The heap is fixed and pre-touched (-XX:+AlwaysPreTouch on top of --jvm-opt), so that what the
        Java heap happens to touch does not drown the profiler's own memory. No warm-up round."""
        total = reps * len(cfgs) * len(names)
        n = 0
        for rnd in range(1, reps + 1):
            for cfg in cfgs:
                for name in names:
                    wl = {"name": "memory-" + name, "kind": "memory", "self_re": SELF_RE, "rss_series": True,
                          "timeout": seconds + 600,
                          "argv": ["-XX:+AlwaysPreTouch", "-jar", self.wjar, name, "--seconds", str(seconds)]}
                    r = self.run_workload(wl, cfg, rnd, False)
                    n += 1
                    log("  [%2d/%d] %-14s %-17s wall %6.1f s  cpu %6.1f s  peak rss %6.1f MB  loops %s%s" % (
                        n, total, wl["name"], cfg, r["wall_s"], r["cpu_s"], r["maxrss_kb"] / 1024,
                        r.get("self_loops", "?"), peers.sampled(r)))

    def probe(self):
        """One short run with the agent, to fail early (and clearly) if it does not work."""
        stats = peers.remove(os.path.join(OUT, "runs", "probe.json"))
        cmd = self.jvm_base() + [self.profilers.agent_arg("start,interval=1ms,file=%s,stats=%s" % (
            os.path.join(OUT, "collapsed", "probe.collapsed"), stats)),
            "-jar", self.wjar, "cpu", "--rounds", "2"]
        r = self.run(cmd, "probe", measured=False)
        s = peers.read_stats(stats)
        if r["exit"] != 0 or s is None or not s.get("ticks"):
            log("the agent does not work well enough to benchmark:")
            log("  command: %s" % " ".join(cmd))
            log("  exit %d, stats %s" % (r["exit"], "missing" if s is None else "ticks=%s" % s.get("ticks")))
            log("  output: %s" % r["output_tail"][-1500:])
            sys.exit(1)
        log("probe: exit 0, %d ticks, %d recorded, %.0f samples/CPU-s" % (
            s["ticks"], s.get("recorded", 0), s.get("samples_per_cpu_second", 0)))

    # -- the whole run --

    def workloads(self, demo_jar):
        """The overhead loop's workloads (configs.WORKLOADS) with their command lines, as this run's options allow."""
        a = self.args
        left_out = {"demo": a.quick or a.no_demo, "threaded": a.quick or a.no_threaded, "lib": a.quick or a.no_lib}
        out = []
        for w in configs.WORKLOADS:
            if left_out.get(w["group"]) or (a.workloads and w["name"] not in a.workloads.split(",")):
                continue
            if w["group"] == "demo" and not os.path.exists(demo_jar):
                self.anomaly("no demo jar at %s: the demo workload was skipped" % demo_jar)
                continue
            argv = [x.format(jar=self.wjar, demo=procs.snapshot(demo_jar) if w["group"] == "demo" else "")
                    for x in w["argv"]]
            argv += getattr(a, w["args"]) if w.get("args") else a.lib_args.get(w["name"], [])
            wl = {"name": w["name"], "argv": argv}
            if w["configs"]:
                wl["configs"] = configs.CONFIG_SETS[w["configs"]]
            for k in ("self_re", "work_re"):
                if w.get(k):
                    wl[k] = w[k]
            out.append(wl)
        return out

    def runnable(self, cfgs):
        return [c for c in cfgs if configs.runs_on(c, self.feature)]

    def main(self):
        a = self.args
        if not os.path.exists(self.lib):
            sys.exit("run_bench: %s not found; run `make agent` first" % self.lib)
        self.lib = procs.snapshot(self.lib)
        if not os.path.exists(self.java):
            sys.exit("run_bench: no java at %s" % self.java)
        procs.ensure_workloads_jar()
        self.wjar = procs.snapshot(procs.WORKLOADS_JAR)
        self.feature = machine.java_feature(self.java)
        server = self.mode == "server"
        d = self.defaults
        reps = a.reps or d["reps"]

        # what runs: the overhead loop's workloads and configs, the memory and server phases' configs
        skip = set(a.skip.split(",")) if a.skip else set()
        if server:
            skip |= {"overhead", "startup", "classload", "manythreads", "memory"}
        if a.quick:
            skip |= {"memory", "server"}  # minutes each: they do not fit the quick budget
        workloads = [] if server else self.workloads(os.path.join(self.build, "candor-demo.jar"))
        cfgs = [] if server else self.runnable(a.configs.split(",") if a.configs else configs.CONFIG_SETS[self.mode])
        memory_cfgs = [] if "memory" in skip else self.runnable(
            a.memory_configs.split(",") if a.memory_configs else configs.CONFIG_SETS["memory"])
        server_cfgs = [] if "server" in skip else self.runnable(
            a.server_configs.split(",") if a.server_configs else configs.CONFIG_SETS["server"])
        server_phase = ServerPhase(self) if server_cfgs else None
        ap_lib = None
        if any(configs.kind(c) == "ap" for c in cfgs + memory_cfgs + server_cfgs):
            ap_lib = peers.fetch_async_profiler()
            if not ap_lib:
                self.anomaly("async-profiler %s not found in Maven Central / ~/.m2: its rows were skipped" %
                             configs.AP_VERSION)
                cfgs, memory_cfgs, server_cfgs = ([c for c in x if configs.kind(c) != "ap"]
                                                  for x in (cfgs, memory_cfgs, server_cfgs))
        jfcs = {c: peers.jfc_for(self.java, c) for c in cfgs + memory_cfgs + server_cfgs if configs.kind(c) == "jfr"}
        self.profilers = peers.Profilers(self.java, self.lib, ap_lib, jfcs)

        self.machine = machine.describe(self.java, self.lib)
        self.machine["peers"] = "async-profiler %s (tools.profiler:async-profiler, Maven Central)%s; JFR of the JDK above" % (
            configs.AP_VERSION, "" if ap_lib else " – not run")
        self.kernel_sampling_allowed = os.geteuid() == 0 or self.machine["perf_event_paranoid"] in ("-1", "0", "1")
        started = datetime.datetime.now(datetime.timezone.utc)
        log("candor bench (%s): %s, %s, %s vCPUs, kernel %s" % (
            self.mode, self.machine["java_version"], self.machine["cpu_model"], self.machine["nproc"],
            self.machine["kernel"]))
        self.probe()
        t0 = time.monotonic()
        floor_extra = d["floor_extra"]
        if "overhead" not in skip:
            self.floor = procs.build_floor(a.cc)
            log("== overhead: %s x %s, %d rounds after a warm-up round" % ([w["name"] for w in workloads], cfgs, reps))
            self.overhead_phase(workloads, cfgs, reps, floor_extra)
        if "startup" not in skip:
            n = a.startup_reps or d["startup_reps"]
            log("== start-up cost: hello with and without -agentpath:...=start, %d rounds" % n)
            self.startup_phase(n)
        if "classload" not in skip:
            n = a.classload_reps or d["classload_reps"]
            log("== class-loading start-up, %d rounds" % n)
            self.classload_phase(n, d["classload_configs"])
        if "manythreads" not in skip:
            log("== wall sampler with 500 idle threads (issue 6)")
            self.manythreads_phase(d["manythreads_reps"])
        if memory_cfgs:
            mem_names = ["lib"] if a.memory_workloads == "lib" else (
                configs.LIB_WORKLOADS if a.memory_workloads == "each" else a.memory_workloads.split(","))
            log("== agent memory: %s x %s, %d s each, %d round(s)" % (
                mem_names, memory_cfgs, a.memory_seconds, a.memory_reps))
            self.memory_phase(mem_names, memory_cfgs, a.memory_reps, a.memory_seconds)
        if server_phase:
            log("== server: jetty x %s, %d rounds of %d s warm-up + %d s measured" % (
                server_cfgs, reps, server_phase.pacing["warmup_s"], server_phase.pacing["seconds"]))
            server_phase.run(server_cfgs, reps)
        elapsed = time.monotonic() - t0

        summary_configs = cfgs + floor_extra
        s = summary.summarize(self.runs, [w["name"] for w in workloads], summary_configs)
        raw = {
            "mode": self.mode, "started": started.isoformat(), "elapsed_s": elapsed, "machine": self.machine,
            "args": vars(a), "workloads": workloads, "configs": cfgs, "summary_configs": summary_configs,
            "reps": reps, "memory_configs": memory_cfgs, "server_configs": server_cfgs,
            "server_pacing": server_phase.pacing if server_phase else None, "quiet_gate": self.gate.describe(),
            "summary": s, "anomalies": self.anomalies, "runs": self.runs,
            "labels": {c: configs.config_label(c) for c in summary_configs},
        }
        raw_path = os.path.join(OUT, "bench-%s-%s.json" % (self.mode, started.strftime("%Y%m%dT%H%M%SZ")))
        results.write_raw(raw, raw_path)
        out = a.results or results.default_results(self.mode)
        md = results.publish(raw, s, raw_path, out)
        log("")
        log(md)
        log("wrote %s and %s (%.0f s)" % (os.path.relpath(out, REPO), os.path.relpath(raw_path, REPO), elapsed))


#!/usr/bin/env python3
"""Where the fixed cost of per-thread CPU timers goes (issue 15, item 1): a sweep of the Jetty server workload.

    python3 bench/sweep/timer_sweep.py [--quick] [--rounds 3] [--warmup 5] [--seconds 8]
                                       [--configs t200/none,t200/cpu-1ms,...] [--perf-stat] [--tag NAME]

Runs the Jetty server of the server bench (`candor-bench-workloads.jar jetty`, paced by wrk with
bench/server/pace.lua) with no profiler and with candor's per-thread timers at several intervals, in
alternating rounds (every config once per round, same order), and records for the measured window of each
run what the kernel says about the server process:

- user and system CPU (the server's own /admin/stop answer, which reads /proc/self/stat; cross-checked with
  /proc/PID/stat), and per thread group (Jetty pool, candor's threads, JIT, GC, other) the CPU time from
  /proc/PID/task/*/schedstat (ns) and the user/system split from /proc/PID/task/*/stat;
- voluntary and involuntary context switches, summed over /proc/PID/task/*/status, per group;
- requests served (server count), the machine's other CPU use meanwhile (/proc/stat), steal, and the
  machine-wide local timer interrupts (/proc/interrupts LOC);
- the profiler's samples (candor's stats= JSON: ticks/recorded/dropped; async-profiler's collapsed output),
  scaled to the window by the sampled threads' CPU in the window over their CPU since start.

With --perf-stat (diagnostic, not a cost run: a per-thread perf counter adds its own context-switch work)
`perf stat` counts, for the server's threads in the window, context switches, migrations, page faults, hrtimer
starts/cancels/expiries, local timer interrupts and MSR writes to IA32_TSC_DEADLINE (0x6e0): the write that
reprograms the lapic-deadline clockevent, which a KVM guest cannot do without a VM exit.

Config names: [tNNN/]ENGINE-INTERVAL[@think=MS][@conns=N][@lua=FILE], ENGINE one of
  none                  no profiler
  cpu-<iv>              candor start,event=cpu,interval=<iv>            (perf cpu-clock per thread, signal)
  ctimer-<iv>           candor start,event=ctimer,interval=<iv>         (timer_create CLOCK_THREAD_CPUTIME_ID)
  copy-<iv>             candor start,event=cpu,walk=copy,interval=<iv>  (perf cpu-clock per thread, no signal)
  ap-<iv>               async-profiler start,event=cpu,interval=<iv>,cstack=no (bench/harness/peers.py)
tNNN is the Jetty pool size (default 200). Results: bench/out/sweep/sweep-TAG.json (every run, raw) and
bench/out/sweep/sweep-TAG.md (medians). bench/sweep/README section of bench/README.md says more.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from harness import peers, procs, serverdrive  # noqa: E402
from harness.procs import OUT, log  # noqa: E402

SWEEP_OUT = os.path.join(OUT, "sweep")
INTERVALS = ["1s", "10ms", "4ms", "1ms", "100us"]
ENGINES = ["cpu", "ctimer", "copy"]
HZ = os.sysconf("SC_CLK_TCK")

# full: every engine x interval at 200 pool threads, and a cut of them at 50, each pool with its own baseline
# (23 configs, 3 rounds: a run takes warm-up + measured + ~6 s of JVM start, stop and exit: ~22 min at 5 s + 8 s).
# quick: the cells that decide the hypothesis at 200 threads (8 configs: ~7.5 min at 5 s + 8 s).
FULL = ["t200/none"] + ["t200/%s-%s" % (e, iv) for e in ENGINES for iv in INTERVALS] + \
       ["t50/none", "t50/cpu-1s", "t50/cpu-4ms", "t50/cpu-1ms", "t50/cpu-100us", "t50/ctimer-4ms", "t50/copy-1ms"]
QUICK = ["t200/none", "t200/cpu-1s", "t200/cpu-4ms", "t200/cpu-1ms", "t200/cpu-100us", "t200/ctimer-4ms",
         "t200/ctimer-1ms", "t200/copy-1ms"]

PERF_EVENTS = [("context-switches", None), ("cpu-migrations", None), ("page-faults", None),
               ("timer:hrtimer_start", None), ("timer:hrtimer_cancel", None), ("timer:hrtimer_expire_entry", None),
               ("irq_vectors:local_timer_entry", None), ("msr:write_msr", "msr==0x6e0"),
               ("signal:signal_generate", None)]


def parse_config(name):
    """'t50/cpu-1ms@think=4' -> dict(threads=50, engine='cpu', interval='1ms', think_ms=4, ...)."""
    c = {"name": name, "threads": 200, "think_ms": None, "connections": None, "lua": None}
    parts = name.split("@")
    base = parts[0]
    m = re.match(r"t(\d+)/(.*)$", base)
    if m:
        c["threads"], base = int(m.group(1)), m.group(2)
    for p in parts[1:]:
        k, _, v = p.partition("=")
        if k == "think":
            c["think_ms"] = int(v)
        elif k == "conns":
            c["connections"] = int(v)
        elif k == "lua":
            c["lua"] = v
        else:
            raise SystemExit("timer_sweep: unknown config modifier %r in %s" % (p, name))
    if base == "none":
        c["engine"], c["interval"] = "none", None
    else:
        e, _, iv = base.partition("-")
        if e not in ENGINES + ["ap"] or not iv:
            raise SystemExit("timer_sweep: bad config %r (ENGINE-INTERVAL, ENGINE in %s, ap)" % (name, ENGINES))
        c["engine"], c["interval"] = e, iv
    # the baseline of a config: no profiler, same pool, same pacing
    c["baseline"] = "t%d/none" % c["threads"] + "".join("@" + p for p in parts[1:])
    return c


def interval_ns(iv):
    m = re.match(r"^(\d+)(ns|us|ms|s)$", iv)
    return int(m.group(1)) * {"ns": 1, "us": 1000, "ms": 1000000, "s": 1000000000}[m.group(2)]


# ---------------------------------------------------------------------------------------------------------------
# what the kernel says about the server process


def group_of(comm):
    if comm.startswith(("qtp", "jetty-")) and not comm.startswith(("jetty-watchdog", "jetty-15-accept")):
        return "pool"  # the workload names its QueuedThreadPool "jetty": comm "jetty-N" (the acceptor is not one)
    if comm.startswith("candor"):
        return "candor"
    if comm.startswith(("C1 Compiler", "C2 Compiler", "C1 CompilerThre", "C2 CompilerThre")):
        return "jit"
    if comm.startswith(("GC Thread", "G1 ")):
        return "gc"
    if comm.startswith("java") or comm == "main":
        return "main"
    if comm.startswith(("Async-profiler", "async-profiler")):
        return "candor"  # the profiler's own threads, whichever profiler
    return "other"


def read_tasks(pid):
    """Per thread: comm, group, user/sys clock ticks (stat), run ns (schedstat), voluntary/involuntary switches."""
    out = {}
    base = "/proc/%d/task" % pid
    try:
        tids = os.listdir(base)
    except OSError:
        return out
    for tid in tids:
        try:
            with open("%s/%s/stat" % (base, tid)) as f:
                st = f.read()
            with open("%s/%s/schedstat" % (base, tid)) as f:
                sched = f.read().split()
            with open("%s/%s/status" % (base, tid)) as f:
                status = f.read()
        except OSError:
            continue
        comm = st[st.index("(") + 1:st.rindex(")")]
        fields = st[st.rindex(")") + 2:].split()
        vol = int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", status, re.M).group(1))
        invol = int(re.search(r"^nonvoluntary_ctxt_switches:\s+(\d+)", status, re.M).group(1))
        out[tid] = {"comm": comm, "group": group_of(comm), "utime": int(fields[11]), "stime": int(fields[12]),
                    "run_ns": int(sched[0]), "vol": vol, "invol": invol}
    return out


def read_proc(pid):
    with open("/proc/%d/stat" % pid) as f:
        st = f.read()
    fields = st[st.rindex(")") + 2:].split()
    return {"utime": int(fields[11]), "stime": int(fields[12])}


def read_loc():
    """Machine-wide local timer interrupts (all CPUs)."""
    try:
        with open("/proc/interrupts") as f:
            for line in f:
                if line.strip().startswith("LOC:"):
                    return sum(int(x) for x in line.split()[1:] if x.isdigit())
    except OSError:
        pass
    return None


def snapshot(pid):
    return {"t": time.monotonic(), "tasks": read_tasks(pid), "proc": read_proc(pid), "cpu": procs.read_cpu_ticks(),
            "loc": read_loc()}


def window(s0, s1, whole_from_start=False):
    """Per group: cpu s (schedstat), user/sys s (stat ticks), vol/invol switches, threads; between two snapshots
    (threads that appeared meanwhile count from zero). whole_from_start: s1's cumulative values (s0 ignored)."""
    groups = {}
    for tid, b in s1["tasks"].items():
        a = None if whole_from_start else s0["tasks"].get(tid)
        g = groups.setdefault(b["group"], {"cpu_s": 0.0, "user_s": 0.0, "sys_s": 0.0, "vol": 0, "invol": 0,
                                           "threads": 0})
        g["threads"] += 1
        g["cpu_s"] += (b["run_ns"] - (a["run_ns"] if a else 0)) / 1e9
        g["user_s"] += (b["utime"] - (a["utime"] if a else 0)) / HZ
        g["sys_s"] += (b["stime"] - (a["stime"] if a else 0)) / HZ
        g["vol"] += b["vol"] - (a["vol"] if a else 0)
        g["invol"] += b["invol"] - (a["invol"] if a else 0)
    tot = {k: sum(g[k] for g in groups.values()) for k in ("cpu_s", "user_s", "sys_s", "vol", "invol", "threads")}
    return groups, tot


# ---------------------------------------------------------------------------------------------------------------
# one run


def start_perf(pid, seconds, path):
    """perf stat on the server's threads for `seconds` (diagnostic runs only)."""
    perf = shutil.which("perf")
    if not perf:
        return None
    cmd = [perf, "stat", "-x,", "-o", path, "-p", str(pid)]
    for ev, flt in PERF_EVENTS:
        cmd += ["-e", ev] + (["--filter", flt] if flt else [])
    cmd += ["--", "sleep", str(seconds)]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def read_perf(path):
    out = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.strip().split(",")
                if len(parts) >= 3 and parts[0] and parts[0][0].isdigit():
                    out[parts[2]] = int(float(parts[0]))
                elif len(parts) >= 3 and parts[0].startswith("<not"):
                    out[parts[2]] = None
    except OSError:
        pass
    return out


class Sweep:
    def __init__(self, a):
        self.a = a
        self.java = procs.resolve_java(a.jdk)
        self.wrk = shutil.which("wrk")
        if not self.wrk:
            sys.exit("timer_sweep: wrk not found (Debian package wrk; `make deps` installs it)")
        lib = os.path.join(a.build, "libcandor.so")
        if not os.path.exists(lib):
            sys.exit("timer_sweep: %s not found; run `make agent` first" % lib)
        procs.ensure_workloads_jar()
        self.lib = procs.snapshot(lib)
        self.wjar = procs.snapshot(procs.WORKLOADS_JAR)
        self.ap_lib = None
        self.runs = []
        os.makedirs(os.path.join(SWEEP_OUT, "logs"), exist_ok=True)
        os.makedirs(os.path.join(OUT, "scratch"), exist_ok=True)

    def profiler_args(self, c, base):
        e, iv = c["engine"], c["interval"]
        if e == "none":
            return [], None
        if e == "ap":
            if not self.ap_lib:
                self.ap_lib = peers.fetch_async_profiler()
                if not self.ap_lib:
                    sys.exit("timer_sweep: async-profiler not available (see bench/harness/peers.py)")
            out = peers.remove(base + ".collapsed")
            return ["-agentpath:%s=start,event=cpu,interval=%s,cstack=no,collapsed,file=%s" % (self.ap_lib, iv, out)], \
                lambda r: r.update(peer=count_collapsed(out))
        stats, coll = peers.remove(base + ".json"), base + ".collapsed"
        opts = "start,event=%s,interval=%s,file=%s,stats=%s,quiet" % ("ctimer" if e == "ctimer" else "cpu", iv,
                                                                      coll, stats)
        if e == "copy":
            opts += ",walk=copy"
        opts += self.a.agent_extra
        return ["-agentpath:%s=%s" % (self.lib, opts)], lambda r: r.update(stats=peers.read_stats(stats))

    def run_one(self, cname, rnd):
        c = parse_config(cname)
        a = self.a
        safe = re.sub(r"[^A-Za-z0-9_.=-]+", "_", cname)
        work = os.path.join(SWEEP_OUT, "work", "%s-r%d" % (safe, rnd))
        serverdrive.prepare(work)
        base = os.path.join(SWEEP_OUT, "runs", "%s-r%d" % (safe, rnd))
        os.makedirs(os.path.dirname(base), exist_ok=True)
        args, reader = self.profiler_args(c, base)
        cmd = [self.java, "-Xms1g", "-Xmx1g"] + args + serverdrive.jetty_argv(self.wjar, work, c["threads"])
        think = c["think_ms"] if c["think_ms"] is not None else a.think_ms
        conns = c["connections"] if c["connections"] is not None else a.connections
        lua = c["lua"] or a.lua

        def load(proc, _):
            return self.drive(proc, work, think, conns, lua, base, a.perf_stat)
        r = procs.run_measured(cmd, os.path.join(SWEEP_OUT, "logs", "%s-r%d.log" % (safe, rnd)),
                               timeout=a.warmup + a.seconds + 240, during=load)
        r.update(config=cname, round=rnd, cfg=c, think_ms=think, connections=conns)
        if reader:
            reader(r)
        derive(r)
        self.runs.append(r)
        return r

    def drive(self, proc, work, think, conns, lua, base, perf_stat):
        """serverdrive.drive with snapshots of the process around the measured window (and perf stat in it)."""
        a = self.a
        out = {}
        try:
            port = serverdrive.wait_port(proc, work)
            s_ready = snapshot(proc.pid)
            wrk = serverdrive.wrk_cmd(self.wrk, port, a.warmup, conns, think, work)
            if lua:
                wrk[wrk.index(serverdrive.PACE_LUA)] = lua
            w = subprocess.run(wrk, capture_output=True, text=True, timeout=a.warmup + 60)
            out["wrk_warmup"] = serverdrive.parse_wrk(w.stdout)
            serverdrive.post(port, "/admin/mark")
            s0 = snapshot(proc.pid)
            perf = start_perf(proc.pid, a.seconds, base + ".perf") if perf_stat else None
            wrk[wrk.index("-d%ds" % a.warmup)] = "-d%ds" % a.seconds
            w = subprocess.run(wrk, capture_output=True, text=True, timeout=a.seconds + 60)
            s1 = snapshot(proc.pid)
            out["wrk"] = serverdrive.parse_wrk(w.stdout)
            if w.returncode != 0:
                raise RuntimeError("wrk exited %d: %s" % (w.returncode, (w.stderr or w.stdout)[-300:]))
            out["server"] = json.loads(serverdrive.post(port, "/admin/stop"))
            if perf:
                perf.wait(timeout=30)
                out["perf"] = read_perf(base + ".perf")
            gw, tw = window(s0, s1)
            gall, tall = window(None, s1, whole_from_start=True)
            dt = s1["t"] - s0["t"]
            busy = (s1["cpu"][0] - s0["cpu"][0]) / HZ if s0["cpu"] and s1["cpu"] else None
            out["win"] = {
                "seconds": dt, "groups": gw, "total": tw, "groups_whole": gall, "total_whole": tall,
                "proc_user_s": (s1["proc"]["utime"] - s0["proc"]["utime"]) / HZ,
                "proc_sys_s": (s1["proc"]["stime"] - s0["proc"]["stime"]) / HZ,
                "machine_busy_s": busy,
                "steal_s": (s1["cpu"][2] - s0["cpu"][2]) / HZ if s0["cpu"] and s1["cpu"] else None,
                "loc_irqs": (s1["loc"] - s0["loc"]) if s0["loc"] is not None and s1["loc"] is not None else None,
                "threads_ready": len(s_ready["tasks"]),
            }
        except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as e:
            out["error"] = str(e)
            proc.kill()
        return out


def count_collapsed(path):
    n = 0
    try:
        with open(path) as f:
            for line in f:
                line = line.rstrip()
                if line:
                    n += int(line.rsplit(" ", 1)[1])
    except (OSError, ValueError, IndexError):
        return None
    return {"samples": n}


SAMPLED_GROUPS = ("pool", "main", "other")  # Java threads: what candor's timers are armed on
NOISE_GROUPS = ("jit", "gc")  # left out of the app measure: the JIT still compiles in the window (1-4 s of 8)


def derive(r):
    """Per-run figures: CPU, switches and samples of the window, per request."""
    s, w = r.get("server") or {}, r.get("win") or {}
    if not s or not w:
        return
    req = s.get("requests") or 0
    d = r["d"] = {"requests": req, "req_per_s": req / s["window_s"] if s.get("window_s") else None,
                  "window_s": s.get("window_s"), "cpu_s": s.get("cpu_s"), "user_s": s.get("user_s"),
                  "sys_s": s.get("sys_s"), "cores": s["cpu_s"] / s["window_s"] if s.get("window_s") else None}
    t = w["total"]
    d["vol"], d["invol"] = t["vol"], t["invol"]
    # the app measure: the process without its JIT compiler and GC threads (schedstat ns; stat ticks for system)
    d["app_cpu_s"] = t["cpu_s"] - sum(w["groups"].get(g, {}).get("cpu_s", 0) for g in NOISE_GROUPS)
    d["app_sys_s"] = t["sys_s"] - sum(w["groups"].get(g, {}).get("sys_s", 0) for g in NOISE_GROUPS)
    d["app_user_s"] = d["app_cpu_s"] - d["app_sys_s"]
    d["ctxsw"] = t["vol"] + t["invol"]
    d["ctxsw_per_req"] = d["ctxsw"] / req if req else None
    for g, v in w["groups"].items():
        d["g_%s_cpu_s" % g] = v["cpu_s"]
        d["g_%s_sys_s" % g] = v["sys_s"]
        d["g_%s_ctxsw" % g] = v["vol"] + v["invol"]
    d["background_cpus"] = max(0.0, (w["machine_busy_s"] - s["cpu_s"]) / w["seconds"]) \
        if w.get("machine_busy_s") is not None else None
    d["steal_s"] = w.get("steal_s")
    d["loc_per_s"] = w["loc_irqs"] / w["seconds"] if w.get("loc_irqs") is not None else None
    # samples in the window: the profiler's whole-run count scaled by the sampled threads' CPU in the window
    # over their CPU since they started (the run's CPU before the window, start-up and warm-up, was sampled too)
    st = r.get("stats") or {}
    total = st.get("ticks")
    if total is None and r.get("peer"):
        total = r["peer"].get("samples")
    if total is not None:
        gw, ga = w["groups"], w["groups_whole"]
        num = sum(gw.get(g, {}).get("cpu_s", 0) for g in SAMPLED_GROUPS)
        den = sum(ga.get(g, {}).get("cpu_s", 0) for g in SAMPLED_GROUPS)
        d["samples_run"] = total
        d["samples"] = total * num / den if den else None
        d["recorded_run"] = st.get("recorded")
        d["dropped_run"] = st.get("dropped")
    if r.get("perf"):
        for k, v in r["perf"].items():
            if v is not None:
                d["perf_" + k.split(":")[-1].replace("-", "_")] = v


# ---------------------------------------------------------------------------------------------------------------
# summary


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def summarize(runs, cfg_order):
    by = {}
    for r in runs:
        if r.get("d") and not r.get("error") and r.get("exit") == 0:
            by.setdefault(r["config"], []).append(r["d"])
    rows = []
    keys = set()
    for ds in by.values():
        for d in ds:
            keys.update(k for k, v in d.items() if isinstance(v, (int, float)))
    M = {c: {k: med([d.get(k) for d in ds]) for k in keys} for c, ds in by.items()}
    for c, ds in by.items():
        M[c]["n"] = len(ds)
    for cname in cfg_order:
        if cname not in M:
            continue
        m = dict(M[cname])
        c = parse_config(cname)
        m["config"] = cname
        b = M.get(c["baseline"])
        if b and c["engine"] != "none" and m.get("requests"):
            # per request, so that a run serving fewer requests is not charged less; then scaled to the window
            per = lambda x, d: x / d["requests"] if d.get("requests") and x is not None else None  # noqa: E731
            for k in ("cpu_s", "user_s", "sys_s", "app_cpu_s", "app_sys_s", "app_user_s"):
                m["extra_" + k + "_per_req_us"] = (per(m[k], m) - per(b[k], b)) * 1e6
            m["extra_cpu_pct"] = (per(m["cpu_s"], m) / per(b["cpu_s"], b) - 1) * 100
            m["extra_app_pct"] = (per(m["app_cpu_s"], m) / per(b["app_cpu_s"], b) - 1) * 100
            m["extra_app_window_s"] = m["extra_app_cpu_s_per_req_us"] * m["requests"] / 1e6
            m["extra_app_sys_window_s"] = m["extra_app_sys_s_per_req_us"] * m["requests"] / 1e6
            m["extra_app_user_window_s"] = m["extra_app_user_s_per_req_us"] * m["requests"] / 1e6
            m["extra_sys_pct_of_base_cpu"] = (per(m["sys_s"], m) - per(b["sys_s"], b)) / per(b["cpu_s"], b) * 100
            m["extra_cpu_window_s"] = m["extra_cpu_s_per_req_us"] * m["requests"] / 1e6
            m["extra_sys_window_s"] = m["extra_sys_s_per_req_us"] * m["requests"] / 1e6
            if m.get("samples"):
                m["extra_us_per_sample"] = m["extra_app_window_s"] / m["samples"] * 1e6
                m["extra_sys_us_per_sample"] = m["extra_app_sys_window_s"] / m["samples"] * 1e6
            dsw = (m["ctxsw"] - b["ctxsw"] * m["requests"] / b["requests"])
            m["extra_ctxsw_window"] = dsw
            if m.get("ctxsw"):
                m["extra_us_per_ctxsw"] = m["extra_app_window_s"] / m["ctxsw"] * 1e6
            for g in ("pool", "candor", "jit", "gc", "main", "other"):
                k = "g_%s_cpu_s" % g
                if m.get(k) is not None or b.get(k) is not None:
                    m["extra_" + k] = (m.get(k) or 0) - (b.get(k) or 0) * m["requests"] / b["requests"]
        rows.append(m)
    return rows


def f(v, fmt="%.1f"):
    return "–" if v is None else fmt % v


def render(rows, meta):
    L = ["# Timer sweep: %s" % meta["tag"], "",
         "%s; JDK `%s`; pool threads per config; paced wrk: %s connections, %s ms think time, lua %s; %d s warm-up, "
         "%d s measured; %d rounds, alternating (every config once per round, same order). Medians over the rounds. "
         "Started %s, took %.1f min; machine: %s." % (
             meta["mode"], meta["java"], meta["connections"], meta["think_ms"], meta["lua"], meta["warmup"],
             meta["seconds"], meta["rounds"], meta["started"], meta["minutes"], meta["machine"]), "",
         "App CPU = the server's CPU without its JIT compiler and GC threads (schedstat; the JIT still compiles in "
         "the window and moves by seconds between runs). Extra = (CPU per request − the same pool's no-profiler CPU "
         "per request) × requests of the window; samples = the profiler's count scaled to the window (sampled "
         "threads' CPU in the window / since start). bg = other processes' CPUs during the window.", "",
         "| config | n | req/s | server cores | app µs/req | app sys µs/req | extra app % | extra app user s | "
         "extra app sys s | extra process % | ctxsw/req | samples in window | extra µs/sample | of which sys | "
         "pool Δcpu s | profiler threads Δcpu s | JIT cpu s | LOC irq/s (machine) | bg CPUs |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for m in rows:
        rq = m.get("requests")
        L.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            m["config"], m["n"], f(m.get("req_per_s"), "%.0f"), f(m.get("cores"), "%.3f"),
            f(m["app_cpu_s"] / rq * 1e6 if rq and m.get("app_cpu_s") else None),
            f(m["app_sys_s"] / rq * 1e6 if rq and m.get("app_sys_s") is not None else None),
            f(m.get("extra_app_pct")), f(m.get("extra_app_user_window_s"), "%.2f"),
            f(m.get("extra_app_sys_window_s"), "%.2f"), f(m.get("extra_cpu_pct")),
            f(m.get("ctxsw_per_req"), "%.2f"),
            f(m.get("samples"), "%.0f"), f(m.get("extra_us_per_sample")), f(m.get("extra_sys_us_per_sample")),
            f(m.get("extra_g_pool_cpu_s"), "%.2f"), f(m.get("extra_g_candor_cpu_s"), "%.2f"),
            f(m.get("g_jit_cpu_s"), "%.2f"), f(m.get("loc_per_s"), "%.0f"), f(m.get("background_cpus"), "%.2f")))
    perf_keys = sorted({k for m in rows for k in m if k.startswith("perf_")})
    if perf_keys:
        L += ["", "perf stat on the server's threads in the window (diagnostic runs: counts per request, and per "
                  "second of window)", "",
              "| config | " + " | ".join(k[5:] + "/req" for k in perf_keys) + " | write_msr/s |",
              "|---|" + "---|" * (len(perf_keys) + 1)]
        for m in rows:
            L.append("| %s | %s | %s |" % (m["config"], " | ".join(
                f(m[k] / m["requests"] if m.get(k) is not None and m.get("requests") else None, "%.2f")
                for k in perf_keys), f(m["perf_write_msr"] / m["window_s"] if m.get("perf_write_msr") is not None
                                       and m.get("window_s") else None, "%.0f")))
    return "\n".join(L) + "\n"


def machine():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as fh:
            m = re.search(r"model name\s*:\s*(.*)", fh.read())
            cpu = m.group(1) if m else ""
    except OSError:
        pass
    return "%s, %d vCPUs, kernel %s" % (cpu, os.cpu_count(), os.uname().release)


def main():
    d = serverdrive.DEFAULTS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(procs.REPO, "build"))
    ap.add_argument("--jdk", default=None, help="17 (default), 25, or a JDK home / java binary")
    ap.add_argument("--quick", action="store_true", help="the 8 configs that decide the hypothesis, 200 threads")
    ap.add_argument("--configs", help="comma-separated config names (see above); replaces the mode's set")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--think-ms", type=int, default=d["think_ms"])
    ap.add_argument("--connections", type=int, default=d["connections"])
    ap.add_argument("--lua", default=None, help="wrk script instead of bench/server/pace.lua (same arguments)")
    ap.add_argument("--perf-stat", action="store_true", help="diagnostic: perf stat on the server in the window")
    ap.add_argument("--agent-extra", default="", help="appended to candor's options, e.g. ',signal=SIGPROF'")
    ap.add_argument("--tag", default=None, help="name of the outputs (default: mode-time)")
    ap.add_argument("--render", help="re-render a raw sweep JSON")
    a = ap.parse_args()
    if a.render:
        with open(a.render) as fh:
            raw = json.load(fh)
        for r in raw["runs"]:
            derive(r)
        rows = summarize(raw["runs"], raw["meta"]["configs"])
        sys.stdout.write(render(rows, raw["meta"]))
        return
    cfgs = a.configs.split(",") if a.configs else (QUICK if a.quick else FULL)
    for c in cfgs:
        parse_config(c)
    missing = sorted({parse_config(c)["baseline"] for c in cfgs} - set(cfgs))
    if missing:
        log("timer_sweep: adding baselines %s" % ", ".join(missing))
        cfgs = missing + cfgs
    mode = "quick" if a.quick else ("custom" if a.configs else "full")
    tag = a.tag or "%s-%s" % (mode, time.strftime("%Y%m%d-%H%M%S"))
    sw = Sweep(a)
    t0 = time.time()
    log("timer_sweep %s: %d configs x %d rounds, %d s + %d s each (load %.2f)" % (
        tag, len(cfgs), a.rounds, a.warmup, a.seconds, os.getloadavg()[0]))
    meta = {"tag": tag, "mode": mode, "configs": cfgs, "rounds": a.rounds, "warmup": a.warmup, "seconds": a.seconds,
            "think_ms": a.think_ms, "connections": a.connections, "lua": a.lua or "pace.lua", "java": sw.java,
            "started": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": machine(), "perf_stat": a.perf_stat,
            "agent_extra": a.agent_extra}
    raw_path = os.path.join(SWEEP_OUT, "sweep-%s.json" % tag)

    def save():
        meta["minutes"] = (time.time() - t0) / 60
        with open(raw_path, "w") as fh:
            json.dump({"meta": meta, "runs": sw.runs}, fh, indent=1, default=str)

    for rnd in range(1, a.rounds + 1):
        for i, c in enumerate(cfgs):
            r = sw.run_one(c, rnd)
            dd = r.get("d") or {}
            log("  r%d [%2d/%d] %-28s %5s req/s  %.3f cores  user %.2f sys %.2f  ctxsw/req %.2f  samples %s  bg %.2f%s" % (
                rnd, i + 1, len(cfgs), c, f(dd.get("req_per_s"), "%.0f"), dd.get("cores") or 0, dd.get("user_s") or 0,
                dd.get("sys_s") or 0, dd.get("ctxsw_per_req") or 0, f(dd.get("samples"), "%.0f"),
                dd.get("background_cpus") or 0, ("  ERROR " + r["error"]) if r.get("error") else
                ("" if r.get("exit") == 0 else "  exit %s" % r.get("exit"))))
            save()
    save()
    rows = summarize(sw.runs, cfgs)
    md = render(rows, meta)
    with open(os.path.join(SWEEP_OUT, "sweep-%s.md" % tag), "w") as fh:
        fh.write(md)
    sys.stdout.write(md)
    log("raw: %s" % raw_path)


if __name__ == "__main__":
    main()

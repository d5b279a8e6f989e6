#!/usr/bin/env python3
"""What candor's allocation and lock profiling cost (issue 16), beside async-profiler's and JFR's.

Two fixed-work workloads of bench/workloads: `jackson` (Jackson JSON round trips: allocation heavy) and
`locks` (4 threads contending for a ReentrantLock and a monitor: lock heavy). Each runs, in alternating
rounds (A B C ... A B C ...), with no profiler and with each profiler recording allocations or lock waits:

  none          no profiler
  candor-alloc  candor   start,event=alloc,alloc=512k,file=X.jfr,stats=X.json
  ap-alloc      async-profiler start,event=alloc,alloc=512k,jfr,file=X.jfr
  candor-alloc-16k, ap-alloc-16k   the same at alloc=16k, jackson only (32x the samples: a cost above the JIT's noise)
  jfr-alloc     JFR, jdk.ObjectAllocationSample alone (throttle 300/s, as profile.jfc)
  candor-lock   candor   start,event=lock,lock=10us,file=X.jfr,stats=X.json
  ap-lock       async-profiler start,event=lock,lock=10us,jfr,file=X.jfr
  jfr-lock      JFR, jdk.JavaMonitorEnter + jdk.ThreadPark alone, threshold 10 us

Prints and writes (bench/results/RESULTS-events.md; --quick: bench/out/RESULTS-events-quick.md) the medians
of elapsed and CPU time, their ratios to no profiler and candor's to each peer, and the events each recorded
(candor: its stats JSON, checked for ticks = recorded + failed + dropped; every profiler: `jfr summary` of
the .jfr it wrote). Standard library only; reuses bench/harness.

    python3 bench/events/run_events.py --build build [--rounds 5] [--quick] [--configs A,B] [--workloads W]
    python3 bench/events/run_events.py --render bench/out/events-TIME.json [--results FILE]   # re-render only
"""

import argparse
import datetime
import json
import os
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from harness import configs as hconfigs, machine, peers, procs  # noqa: E402
from harness.procs import OUT, REPO, log, run_measured  # noqa: E402
from harness.render import machine as machine_table  # noqa: E402

RESULTS = os.path.join(procs.BENCH, "results", "RESULTS-events.md")
QUICK_RESULTS = os.path.join(OUT, "RESULTS-events-quick.md")
EVENTS_OUT = os.path.join(OUT, "events")

ALLOC = "512k"
LOCK = "10us"
JFR_LOCK_THRESHOLD = "10 us"
JFR_ALLOC_THROTTLE = "300/s"

# kind: which profiler; what: alloc or lock. events: the JFR event types that count as its events.
CONFIGS = {
    "none":         {"kind": "none", "label": "no profiler"},
    "candor-alloc": {"kind": "candor", "what": "alloc", "label": "candor alloc=%s" % ALLOC,
                     "events": ["jdk.ObjectAllocationSample"]},
    "ap-alloc":     {"kind": "ap", "what": "alloc", "label": "async-profiler alloc=%s" % ALLOC,
                     "events": ["jdk.ObjectAllocationInNewTLAB", "jdk.ObjectAllocationOutsideTLAB"]},
    # a finer interval, jackson only: 32 times the samples, so that what one sample costs rises above the JIT's noise
    "candor-alloc-16k": {"kind": "candor", "what": "alloc", "size": "16k", "bytes": "16384", "only": ["jackson"],
                         "label": "candor alloc=16k", "events": ["jdk.ObjectAllocationSample"]},
    "ap-alloc-16k": {"kind": "ap", "what": "alloc", "size": "16k", "bytes": "16384", "only": ["jackson"],
                     "label": "async-profiler alloc=16k",
                     "events": ["jdk.ObjectAllocationInNewTLAB", "jdk.ObjectAllocationOutsideTLAB"]},
    "jfr-alloc":    {"kind": "jfr", "what": "alloc", "label": "JFR ObjectAllocationSample %s" % JFR_ALLOC_THROTTLE,
                     "events": ["jdk.ObjectAllocationSample"]},
    "candor-lock":  {"kind": "candor", "what": "lock", "label": "candor lock=%s" % LOCK,
                     "events": ["jdk.JavaMonitorEnter", "jdk.ThreadPark"]},
    "ap-lock":      {"kind": "ap", "what": "lock", "label": "async-profiler lock=%s" % LOCK,
                     "events": ["jdk.JavaMonitorEnter", "jdk.ThreadPark"]},
    "jfr-lock":     {"kind": "jfr", "what": "lock", "label": "JFR JavaMonitorEnter+ThreadPark %s" % JFR_LOCK_THRESHOLD.replace(" ", ""),
                     "events": ["jdk.JavaMonitorEnter", "jdk.ThreadPark"]},
}
ORDER = list(CONFIGS)

# The workloads; args: the fixed work (full, quick).
WORKLOADS = {
    "jackson": {"argv": ["jackson"], "args": ["--orders", "500", "--rounds", "250"],
                "quick": ["--orders", "500", "--rounds", "100"],
                "desc": "Jackson JSON round trips of a POJO graph, one thread (allocation heavy)"},
    "locks": {"argv": ["locks"], "args": ["--threads", "4", "--iterations", "100000"],
              "quick": ["--threads", "4", "--iterations", "25000"],
              "desc": "4 threads on 2 vCPUs, each entering, at random, a shared ReentrantLock or a shared monitor with a "
                      "few µs of work inside and outside; about one holder in 4 yields the CPU while it holds the lock, "
                      "so most entries wait (lock heavy)"},
}

SELF_RE = hconfigs.SELF_RE
MIN_EVENTS = 100  # fewer events than this: no extra CPU per event (it would divide noise by almost nothing)
WAITS_RE = r"locks-waits: reentrantlock_taken=(\d+) reentrantlock_ge10us=(\d+) monitor_ge10us=(\d+)(?: workers_cpu_ms=(\d+))?"


def derive(r):
    """The workload's own figures from its output: elapsed and process CPU over the work, the CPU of its own
    threads (jackson: the main thread; locks: the 4 workers, without the JIT and GC threads' noise), and the
    waits locks timed itself."""
    text = r.get("output_tail") or ""
    m = re.search(SELF_RE, text)
    if m:
        r["self_elapsed_s"], r["self_cpu_s"] = int(m.group(2)) / 1e3, int(m.group(3)) / 1e3
        r["app_cpu_s"] = int(m.group(4)) / 1e3
    m = re.search(WAITS_RE, text)
    if m:
        r["waits"] = {"rl_taken": int(m.group(1)), "rl_ge10us": int(m.group(2)), "mon_ge10us": int(m.group(3))}
        r["app_cpu_s"] = int(m.group(4)) / 1e3 if m.group(4) else None
    return r


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def make_jfc(java, name, enable):
    """A copy of the JDK's profile.jfc with every event off except those of `enable` (event -> settings)."""
    src = os.path.join(peers.jdk_home(java), "lib", "jfr", "profile.jfc")
    with open(src) as f:
        text = f.read()
    text = re.sub(r'(<setting name="enabled"[^>]*>)\s*true\s*(</setting>)', r"\g<1>false\g<2>", text)
    for event, settings in enable.items():
        m = re.search(r'(<event name="%s">)(.*?)(</event>)' % re.escape(event), text, re.S)
        if not m:
            raise SystemExit("%s has no event %s" % (src, event))
        body = m.group(2)
        for k, v in dict(enabled="true", stackTrace="true", **settings).items():
            body, n = re.subn(r'(<setting name="%s"[^>]*>)[^<]*(</setting>)' % k, r"\g<1>%s\g<2>" % v, body)
            if not n:
                body += '  <setting name="%s">%s</setting>\n    ' % (k, v)
        text = text[:m.start()] + m.group(1) + body + m.group(3) + text[m.end():]
    d = os.path.join(EVENTS_OUT, "jfc")
    os.makedirs(d, exist_ok=True)
    dst = os.path.join(d, name + ".jfc")
    with open(dst, "w") as f:
        f.write(text)
    return dst


class Events:
    def __init__(self, a):
        self.a = a
        self.java = procs.resolve_java(a.jdk)
        for d in ("logs", "runs", "scratch"):
            os.makedirs(os.path.join(EVENTS_OUT, d), exist_ok=True)
        os.makedirs(os.path.join(OUT, "scratch"), exist_ok=True)
        self.lib = procs.snapshot(os.path.join(os.path.abspath(a.build), "libcandor.so"))
        procs.ensure_workloads_jar()
        self.jar = procs.snapshot(procs.WORKLOADS_JAR)
        self.ap = peers.fetch_async_profiler()
        self.jfcs = {
            "jfr-alloc": make_jfc(self.java, "jfr-alloc", {"jdk.ObjectAllocationSample": {"throttle": JFR_ALLOC_THROTTLE}}),
            "jfr-lock": make_jfc(self.java, "jfr-lock", {"jdk.JavaMonitorEnter": {"threshold": JFR_LOCK_THRESHOLD},
                                                         "jdk.ThreadPark": {"threshold": JFR_LOCK_THRESHOLD}}),
        }
        self.gate = procs.QuietGate(a.quiet_cpus, a.quiet_wait, a.quiet_budget)
        self.runs = []
        self.anomalies = []

    def options(self, cfg, base):
        """JVM options of one run of cfg writing to base.*"""
        c = CONFIGS[cfg]
        if c["kind"] == "none":
            return []
        out = peers.remove(base + ".jfr")
        if c["kind"] == "candor":
            peers.remove(base + ".json")
            size = c.get("size") or (ALLOC if c["what"] == "alloc" else LOCK)
            return ["-agentpath:%s=start,event=%s,%s=%s,file=%s,stats=%s,quiet" % (
                self.lib, c["what"], c["what"], size, out, base + ".json")]
        if c["kind"] == "ap":
            size = c.get("bytes") or ("524288" if c["what"] == "alloc" else LOCK)
            return ["-agentpath:%s=start,event=%s,%s=%s,jfr,file=%s" % (self.ap, c["what"], c["what"], size, out)]
        return ["-XX:StartFlightRecording=settings=%s,filename=%s" % (self.jfcs[cfg], out), "-Xlog:jfr+startup=warning"]

    def run_one(self, wl, cfg, rnd, warmup):
        tag = "w" if warmup else "r%d" % rnd
        name = "%s-%s-%s" % (wl, cfg, tag)
        base = os.path.join(EVENTS_OUT, "runs", name)
        w = WORKLOADS[wl]
        cmd = [self.java, "-XX:ErrorFile=%s" % os.path.join(EVENTS_OUT, "logs", "hs_err_pid%p.log")] + \
            self.a.jvm_opt + self.options(cfg, base) + ["-jar", self.jar] + w["argv"] + self.work_args(wl)
        r = run_measured(cmd, os.path.join(EVENTS_OUT, "logs", name + ".log"), self.gate,
                         cwd=os.path.join(EVENTS_OUT, "scratch"))
        r.update(workload=wl, config=cfg, round=rnd, warmup=warmup)
        text = r["output_tail"]
        derive(r)
        if r.get("self_cpu_s") is None and r["exit"] == 0:
            self.anomaly("%s: no summary line in the output" % name)
        if r["exit"] != 0:
            self.anomaly("%s: exit %d: %s" % (name, r["exit"], text.strip().splitlines()[-1:] if text.strip() else ""))
        # what the profiler itself said (warnings, errors): async-profiler's [WARN]/[ERROR], JFR's, candor's
        said = [l.strip() for l in text.splitlines()
                if re.search(r"\[(WARN|ERROR)\]|warning|error|candor:", l, re.I) and "locks-waits" not in l]
        if said:
            r["profiler_said"] = said[:10]
        c = CONFIGS[cfg]
        if c["kind"] != "none":
            counts = peers.jfr_counts(self.java, base + ".jfr") if os.path.exists(base + ".jfr") else None
            r["jfr_counts"] = counts
            r["events"] = sum((counts or {}).get(e, 0) for e in c["events"]) if counts is not None else None
            if counts is None and r["exit"] == 0:
                self.anomaly("%s: no readable .jfr (%s)" % (name, os.path.relpath(base + ".jfr", REPO)))
            if c["kind"] == "candor":
                st = peers.read_stats(base + ".json")
                r["stats"] = st
                self.check_candor(name, c["what"], st, r)
        self.runs.append(r)
        return r

    def check_candor(self, name, what, st, r):
        if not st:
            self.anomaly("%s: no stats JSON" % name)
            return
        k = (st.get("kinds") or {}).get(what) or {}
        ticks, rec, fail, drop = (k.get(x, 0) for x in ("ticks", "recorded", "failed", "dropped"))
        r["candor"] = {"ticks": ticks, "recorded": rec, "failed": fail, "dropped": drop,
                       "identity": ticks == rec + fail + drop,
                       "whole_identity": st.get("ticks") == st.get("recorded", 0) + st.get("dropped", 0) +
                       sum((st.get("failures") or {}).values()),
                       "totals": st.get(what)}
        if not r["candor"]["identity"]:
            self.anomaly("%s: kinds.%s ticks %d != recorded %d + failed %d + dropped %d" % (name, what, ticks, rec, fail, drop))
        if not r["candor"]["whole_identity"]:
            self.anomaly("%s: ticks != recorded + dropped + failures in the stats JSON" % name)
        if r.get("events") is not None and r["events"] != rec:
            r["candor"]["jfr_mismatch"] = True
            self.anomaly("%s: %d %s events in the .jfr, stats say %d recorded" % (name, r["events"], what, rec))

    def work_args(self, wl):
        return WORKLOADS[wl]["quick" if self.a.quick else "args"]

    def anomaly(self, msg):
        log("  ANOMALY: " + msg)
        self.anomalies.append(msg)

    def main(self):
        a = self.a
        started = datetime.datetime.now(datetime.timezone.utc)
        t0 = time.monotonic()
        cfgs = [c for c in ORDER if c in a.configs.split(",")]
        if "ap-alloc" in cfgs or "ap-lock" in cfgs:
            if not self.ap:
                self.anomaly("async-profiler %s could not be fetched: its configs are left out" % hconfigs.AP_VERSION)
                cfgs = [c for c in cfgs if CONFIGS[c]["kind"] != "ap"]
        wls = a.workloads.split(",")
        # every config on both workloads: where a mode has little to record (alloc on locks, lock on jackson)
        # its row shows what it costs to have it on
        plan = [(w, c) for w in wls for c in cfgs if w in CONFIGS[c].get("only", [w])]
        rounds = ([("w", True)] if a.warmup else []) + [(i, False) for i in range(a.rounds)]
        log("events bench: %d runs per round (%s), %d rounds + %d warm-up; JDK %s" % (
            len(plan), ", ".join("%s/%s" % p for p in plan), a.rounds, 1 if a.warmup else 0, self.java))
        for rnd, warm in rounds:
            for wl, cfg in plan:
                r = self.run_one(wl, cfg, 0 if warm else rnd, warm)
                log("%s %-8s %-13s elapsed %s cpu %s threads %s run-cpu %.2f s  events %s%s%s" % (
                    "warm-up " if warm else "round %d" % rnd, wl, cfg, fmt(r.get("self_elapsed_s")),
                    fmt(r.get("self_cpu_s")), fmt(r.get("app_cpu_s")), r["cpu_s"], r.get("events", "-"),
                    ("  candor %(ticks)d = %(recorded)d + %(failed)d + %(dropped)d" % r["candor"]) if r.get("candor") else "",
                    ("  [%s]" % r["profiler_said"][0]) if r.get("profiler_said") and warm else ""))
        raw = {
            "mode": "events-quick" if a.quick else "events",
            "started": started.strftime("%Y-%m-%dT%H:%M:%S"),
            "elapsed_s": time.monotonic() - t0,
            "args": vars(a),
            "machine": machine.describe(self.java, self.lib),
            "quiet_gate": self.gate.describe(),
            "configs": cfgs,
            "plan": plan,
            "work_args": {w: self.work_args(w) for w in wls},
            "runs": self.runs,
            "anomalies": self.anomalies,
        }
        raw["machine"]["peers"] = "async-profiler %s (tools.profiler:async-profiler, Maven Central); JFR of the JDK above" % (
            hconfigs.AP_VERSION)
        raw_path = os.path.join(OUT, "events-%s.json" % started.strftime("%Y%m%dT%H%M%SZ"))
        with open(raw_path, "w") as f:
            json.dump(raw, f, indent=1)
        md = render(raw, os.path.relpath(raw_path, REPO), a.results)
        with open(a.results, "w") as f:
            f.write(md)
        print()
        print(md)
        log("wrote %s (raw runs: %s)" % (os.path.relpath(a.results, REPO), os.path.relpath(raw_path, REPO)))


def fmt(x, f="%.2f"):
    return "-" if x is None else f % x


def ratio(x, y):
    return None if x is None or not y else x / y


def pct(x):
    return "" if x is None else "%+.1f%%" % ((x - 1) * 100)


# ---------------------------------------------------------------------------------------------
# the markdown

def summarize(raw):
    """Per (workload, config): medians and ranges of the measured (not warm-up) runs."""
    out = {}
    for r in raw["runs"]:
        derive(r)
    for wl, cfg in raw["plan"]:
        rs = [r for r in raw["runs"] if r["workload"] == wl and r["config"] == cfg and not r["warmup"]]
        ok = [r for r in rs if r["exit"] == 0]
        e = {"n": len(rs), "ok": len(ok)}
        for key in ("self_elapsed_s", "self_cpu_s", "app_cpu_s", "cpu_s", "wall_s", "events", "background_cpus"):
            xs = [r.get(key) for r in ok if r.get(key) is not None]
            e[key] = med(xs)
            e[key + "_range"] = (min(xs), max(xs)) if xs else None
        cs = [r["candor"] for r in ok if r.get("candor")]
        if cs:
            e["candor"] = {k: sum(c[k] for c in cs) for k in ("ticks", "recorded", "failed", "dropped")}
            e["candor"]["identity_ok"] = sum(1 for c in cs if c["identity"] and c["whole_identity"])
            e["candor"]["runs"] = len(cs)
            e["candor"]["jfr_agrees"] = sum(1 for c in cs if not c.get("jfr_mismatch"))
            mid = sorted(cs, key=lambda c: c["ticks"])[len(cs) // 2]  # the run with the median count
            e["candor"]["totals"] = mid.get("totals")
        ws = [r["waits"] for r in ok if r.get("waits")]
        if ws:
            e["waits"] = {k: med([w[k] for w in ws]) for k in ws[0]}
        # lock events against the waits the workload timed itself in the same run
        mon = [r["jfr_counts"].get("jdk.JavaMonitorEnter", 0) / r["waits"]["mon_ge10us"] for r in ok
               if r.get("waits") and r.get("jfr_counts") and r["waits"]["mon_ge10us"]]
        park = [r["jfr_counts"].get("jdk.ThreadPark", 0) / r["waits"]["rl_ge10us"] for r in ok
                if r.get("waits") and r.get("jfr_counts") and r["waits"]["rl_ge10us"]]
        e["monitor_cover"], e["park_cover"] = med(mon), med(park)
        said = []
        for r in rs:
            for s in r.get("profiler_said") or []:
                if s not in said:
                    said.append(s)
        e["said"] = said[:5]
        out[(wl, cfg)] = e
    return out


def paired(raw, wl, cfg, key):
    """Median over rounds of (this config's run / the same round's no-profiler run)."""
    xs = []
    for r in raw["runs"]:
        if r["workload"] == wl and r["config"] == cfg and not r["warmup"] and r.get(key) is not None and r["exit"] == 0:
            n = [b for b in raw["runs"] if b["workload"] == wl and b["config"] == "none" and b["round"] == r["round"]
                 and not b["warmup"] and b.get(key)]
            if n:
                xs.append(r[key] / n[0][key])
    return med(xs)


def render(raw, raw_rel, results_path):
    s = summarize(raw)
    a = raw["args"]
    readme = os.path.relpath(os.path.join(procs.BENCH, "README.md"), os.path.dirname(os.path.abspath(results_path)))
    L = ["# candor allocation and lock profiling beside async-profiler and JFR%s" % (" (quick mode)" if a["quick"] else ""), ""]
    L.append("Written by `bench/events/run_events.py%s` on %s (%.0f s of runs). Raw runs (gitignored): `%s`. "
             "How to run it and what every figure means: [bench/README.md](%s#allocation-and-lock-profiling-make-bench-events)." % (
                 " --quick" if a["quick"] else "", raw["started"][:16].replace("T", " ") + " UTC", raw["elapsed_s"],
                 raw_rel, readme))
    L.append("")
    L.append("%d alternating rounds%s: every round runs each workload with each config in turn (A B C … A B C …), "
             "so drifts of this shared 2-vCPU machine hit every config alike. Figures are medians over the rounds "
             "[min–max]. *Elapsed* and *CPU* are the workload's own (`elapsed_ms`, and `cpu_ms`: the process CPU "
             "over the work, JIT, GC and profiler threads included, JVM start-up excluded); *threads' CPU* that of the "
             "workload's own threads (ThreadMXBean: jackson's one thread, `thread_cpu_ms`; the 4 workers of locks, "
             "`workers_cpu_ms`), where the profilers' JVMTI callbacks run, without the JIT's and GC's noise; *run CPU* is the whole "
             "JVM's from `wait4` (start-up and writing the recording at exit included). *vs none*: median / median "
             "without a profiler; *paired*: median over rounds of run / the same round's run without. *Events*: "
             "the allocation samples or lock waits the profiler wrote, counted with `jfr summary` in the .jfr it wrote "
             "(every config writes JFR). *Extra CPU per event*: (CPU − CPU without) / events, where there were at least %d events. Every config runs "
             "on both workloads (the 16k ones on jackson only): where a mode has next to nothing to record (allocations in `locks`, lock waits in "
             "`jackson`) its row shows what it costs just to have it on." % (
                 a["rounds"], " after one warm-up round that is not counted" if a["warmup"] else "", MIN_EVENTS))
    L.append("")
    bgs = [r["background_cpus"] for r in raw["runs"] if not r["warmup"] and r.get("background_cpus") is not None]
    if bgs and med(bgs) > 0.5:
        L.append("**Warning: other processes kept a median of %.2f of the %s CPUs busy during these runs** (builds and "
                 "tests of other sessions on the same VM). Elapsed times suffer most, CPU times less; read the ratios "
                 "with the ranges and the *other CPUs* column, and rerun on a quiet machine." % (
                     med(bgs), raw["machine"]["nproc"]))
        L.append("")
    L += machine_table(raw)
    L += headline(raw, s)
    L += ["## Configs", "", "| config | what runs | events counted |", "|---|---|---|"]
    desc = {
        "none": "no profiler",
        "candor-alloc": "`-agentpath:libcandor.so=start,event=alloc,alloc=%s,file=X.jfr,stats=X.json,quiet`: JVMTI "
                        "SampledObjectAlloc, one sample per %s allocated by a thread on average" % (ALLOC, ALLOC),
        "ap-alloc": "`-agentpath:libasyncProfiler.so=start,event=alloc,alloc=524288,jfr,file=X.jfr` (the same "
                    "interval, 512 KiB; async-profiler also samples with JVMTI SampledObjectAlloc on JDK 11+)",
        "candor-alloc-16k": "the same at `alloc=16k`, jackson only: 32 times the samples, so that what a sample "
                            "costs rises above the run-to-run noise of the JIT",
        "ap-alloc-16k": "the same at `alloc=16384`, jackson only",
        "jfr-alloc": "`-XX:StartFlightRecording=settings=jfr-alloc.jfc`: the JDK's `profile.jfc` with every event off "
                     "but `jdk.ObjectAllocationSample` (throttle %s, profile's: a rate, not a byte interval)" % JFR_ALLOC_THROTTLE,
        "candor-lock": "`-agentpath:libcandor.so=start,event=lock,lock=%s,file=X.jfr,stats=X.json,quiet`: every "
                       "contended monitor entry and lock park of at least %s" % (LOCK, LOCK),
        "ap-lock": "`-agentpath:libasyncProfiler.so=start,event=lock,lock=%s,jfr,file=X.jfr`. async-profiler's "
                   "`lock=` is a sampling interval, not a threshold: a wait is recorded when the sum of wait times "
                   "crosses a multiple of it, so every wait of ≥ %s and a share of shorter ones proportional to "
                   "their length" % (LOCK, LOCK),
        "jfr-lock": "`-XX:StartFlightRecording=settings=jfr-lock.jfc`: `profile.jfc` with every event off but "
                    "`jdk.JavaMonitorEnter` and `jdk.ThreadPark`, threshold %s (ThreadPark: every park of at least "
                    "that, whatever the blocker)" % JFR_LOCK_THRESHOLD.replace(" ", " "),
    }
    for c in raw["configs"]:
        L.append("| `%s` | %s | %s |" % (c, desc[c], ", ".join("`%s`" % e for e in CONFIGS[c].get("events", [])) or ""))
    L.append("")
    for wl in dict.fromkeys(w for w, _ in raw["plan"]):
        L += workload_section(raw, s, wl)
    L += ["## Anomalies", ""]
    if raw["anomalies"]:
        L += ["- " + x for x in raw["anomalies"]]
    else:
        L.append("None: every JVM exited 0 and wrote a readable recording; every candor stats file had "
                 "`kinds.X.ticks = recorded + failed + dropped` and `ticks = recorded + dropped + Σ failures`, and "
                 "its .jfr held as many events as it counted recorded.")
    L.append("")
    return "\n".join(L)


def headline(raw, s):
    """The two cells the issue asks about: allocation profiling on jackson, lock profiling on locks."""
    rows = []
    for wl, what, suffix in (("jackson", "alloc", ""), ("jackson", "alloc", "-16k"), ("locks", "lock", "")):
        n = s.get((wl, "none"))
        if not n or not n["ok"]:
            continue
        cells = []
        for p in ("candor", "ap", "jfr"):
            e = s.get((wl, "%s-%s%s" % (p, what, suffix)))
            cells.append(e if e and e["ok"] else None)
        if cells[0] is None:
            continue

        def vs(e):
            return "–" if e is None else " / ".join(pct(ratio(e[k], n[k])) or "–" for k in KEYS)

        def per(e, other):
            return "–" if other is None else " / ".join(
                "–" if ratio(e[k], other[k]) is None else "%.2f×" % ratio(e[k], other[k]) for k in KEYS)
        rows.append("| %s, %s | %s | %s | %s | %s | %s | %s |" % (
            what + ("=" + suffix[1:] if suffix else ""), wl, vs(cells[0]), vs(cells[1]), vs(cells[2]), per(cells[0], cells[1]), per(cells[0], cells[2]),
            " / ".join("–" if e is None or e.get("events") is None else "%d" % e["events"] for e in cells)))
    if not rows:
        return []
    return ["## Headline", "",
            "Medians over the rounds, each cell *CPU / threads' CPU / elapsed*: the process CPU over the work (JIT, GC "
            "and profiler threads included), the CPU of the workload's own threads (jackson: its one thread; locks: "
            "the 4 workers: where the profilers' allocation and lock callbacks run, without the JIT's noise), and the "
            "elapsed time. Tables per workload below.", "",
            "| mode, workload | candor vs none | async-profiler vs none | JFR vs none | candor / async-profiler | "
            "candor / JFR | events: candor / async-profiler / JFR |",
            "|---|---|---|---|---|---|---|"] + rows + [""]


KEYS = ("self_cpu_s", "app_cpu_s", "self_elapsed_s")


def workload_section(raw, s, wl):
    w = WORKLOADS[wl]
    cfgs = [c for (x, c) in raw["plan"] if x == wl]
    n = s.get((wl, "none"), {})
    L = ["## %s" % wl, "", "%s: `candor-bench-workloads.jar %s %s`." % (
        w["desc"], " ".join(w["argv"]), " ".join(raw["work_args"][wl])), ""]
    hdr = ["config", "elapsed s", "vs none (paired)", "CPU s", "vs none (paired)", "threads' CPU s",
           "vs none (paired)", "run CPU s", "vs none", "events", "extra CPU per event µs: process / threads",
           "other CPUs"]
    L.append("| " + " | ".join(hdr) + " |")
    L.append("|" + "---|" * len(hdr))

    def vs(e, c, key):
        if c == "none":
            return ""
        v = pct(ratio(e.get(key), n.get(key)))
        pp = pct(paired(raw, wl, c, key))
        return "%s (%s)" % (v, pp) if v and pp else (v or "–")

    def extra(e, key):
        ev = e.get("events")
        if not ev or ev < MIN_EVENTS or n.get(key) is None or e.get(key) is None:
            return "–"
        return "%.1f" % ((e[key] - n[key]) / ev * 1e6)

    for c in cfgs:
        e = s[(wl, c)]
        if not e["ok"]:
            L.append("| %s | failed: %d of %d runs exited non-zero |%s" % (
                CONFIGS[c]["label"], e["n"] - e["ok"], e["n"], " |" * (len(hdr) - 2)))
            continue
        ev = e.get("events")
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            CONFIGS[c]["label"],
            rng(e, "self_elapsed_s"), vs(e, c, "self_elapsed_s"),
            rng(e, "self_cpu_s"), vs(e, c, "self_cpu_s"),
            rng(e, "app_cpu_s"), vs(e, c, "app_cpu_s"),
            rng(e, "cpu_s"), "" if c == "none" else (pct(ratio(e["cpu_s"], n.get("cpu_s"))) or "–"),
            "" if c == "none" else ("%d" % ev if ev is not None else "–"),
            "" if c == "none" else "%s / %s" % (extra(e, "self_cpu_s"), extra(e, "app_cpu_s")),
            fmt(e.get("background_cpus"))))
    L.append("")
    # candor against each peer, same what
    rows = []
    for what in ("alloc", "alloc-16k", "lock"):
        cc = "candor-" + what
        if cc not in cfgs or not s[(wl, cc)]["ok"]:
            continue
        ce = s[(wl, cc)]
        for p in ("ap-" + what, "jfr-" + what):
            if p not in CONFIGS:
                continue
            if p not in cfgs:
                continue
            pe = s[(wl, p)]
            if not pe["ok"]:
                rows.append("| %s / %s | – (the peer failed) | | | | |" % (CONFIGS[cc]["label"], CONFIGS[p]["label"]))
                continue

            def x(key):
                r = ratio(ce.get(key), pe.get(key))
                return "–" if r is None else "%.3f×" % r

            def added(e):
                return "%+.2f / %+.2f s" % (e["self_cpu_s"] - n["self_cpu_s"], e["app_cpu_s"] - n["app_cpu_s"]) \
                    if None not in (e.get("self_cpu_s"), n.get("self_cpu_s"), e.get("app_cpu_s"), n.get("app_cpu_s")) \
                    else "–"
            rows.append("| %s / %s | %s | %s | %s | %s | %s vs %s |" % (
                CONFIGS[cc]["label"], CONFIGS[p]["label"], x("self_elapsed_s"), x("self_cpu_s"), x("app_cpu_s"),
                x("cpu_s"), added(ce), added(pe)))
    if rows:
        L += ["candor against the peers (ratios of medians; below 1× candor cost less):", "",
              "| candor / peer | elapsed | CPU | threads' CPU | run CPU | CPU / threads' CPU added vs none: candor vs peer |",
              "|---|---|---|---|---|---|"] + rows + [""]
    # candor's own accounting
    acc = []
    for c in cfgs:
        e = s[(wl, c)]
        k = e.get("candor")
        if not k:
            continue
        tot = k.get("totals") or {}
        tot_s = ", ".join("%s %s" % (x, tot[x]) for x in sorted(tot) if isinstance(tot[x], (int, float)))
        acc.append("- %s: samples %d = recorded %d + failed %d + dropped %d (all runs together); the identity held "
                   "in %d of %d runs, and the .jfr held as many events as recorded in %d of %d; stats `%s` of the "
                   "median run: %s." % (
                       CONFIGS[c]["label"], k["ticks"], k["recorded"], k["failed"], k["dropped"], k["identity_ok"],
                       k["runs"], k["jfr_agrees"], k["runs"], CONFIGS[c]["what"], tot_s or "–"))
    if acc:
        L += ["candor's accounting (stats JSON `kinds.alloc` / `kinds.lock`):", ""] + acc + [""]
    wt = n.get("waits")
    if wt:
        L.append("What the workload saw itself without a profiler (median): %d ReentrantLock acquisitions found it "
                 "taken; %d ReentrantLock and %d monitor acquisitions took ≥ 10 µs from asking to holding "
                 "(System.nanoTime around them, spinning included). How much contention a run has depends on how "
                 "the threads happen to be scheduled, with or without a profiler, so the events of each config are "
                 "set beside the waits the workload timed in the same run:" % (wt["rl_taken"], wt["rl_ge10us"], wt["mon_ge10us"]))
        L.append("")
        for c in cfgs:
            e = s[(wl, c)]
            if CONFIGS[c].get("what") == "lock" and e.get("monitor_cover") is not None:
                L.append("- %s: `jdk.JavaMonitorEnter` events / monitor acquisitions of ≥ 10 µs %.2f; `jdk.ThreadPark` "
                         "events / ReentrantLock acquisitions of ≥ 10 µs %.2f (one acquisition can park more than once, "
                         "and each park is a wait; JFR's ThreadPark also counts parks on other blockers) (medians over "
                         "the runs)." % (CONFIGS[c]["label"], e["monitor_cover"], e["park_cover"]))
        L.append("")
    said = [(c, s[(wl, c)]["said"]) for c in cfgs if s[(wl, c)]["said"]]
    if said:
        L.append("What the profilers printed (first lines, any run):")
        L.append("")
        for c, lines in said:
            L.append("- %s: %s" % (CONFIGS[c]["label"], "; ".join("`%s`" % x[:200] for x in lines)))
        L.append("")
    return L


def rng(e, key):
    v, r = e.get(key), e.get(key + "_range")
    if v is None:
        return "–"
    return "%.2f [%.2f–%.2f]" % (v, r[0], r[1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(REPO, "build"), help="directory with libcandor.so")
    ap.add_argument("--jdk", default=None, help="JDK home, java binary, or 17 / 25 (default 17)")
    ap.add_argument("--rounds", type=int, default=None, help="measured rounds (default 5, quick 3)")
    ap.add_argument("--no-warmup", dest="warmup", action="store_false", help="no warm-up round (quick has none)")
    ap.add_argument("--quick", action="store_true", help="3 rounds, no warm-up, less work per run")
    ap.add_argument("--configs", default=",".join(ORDER), help="configs, of: " + ",".join(ORDER))
    ap.add_argument("--workloads", default="jackson,locks")
    ap.add_argument("--jvm-opt", action="append", default=None, help="JVM option for every run (default -Xms1g -Xmx1g)")
    ap.add_argument("--results", default=None, help="markdown output (default bench/results/RESULTS-events.md; "
                                                    "quick: bench/out/RESULTS-events-quick.md)")
    ap.add_argument("--render", metavar="RAW_JSON", help="rewrite the markdown of a raw run (bench/out/events-*.json) "
                                                         "without running anything")
    ap.add_argument("--quiet-cpus", type=float, default=0.3)
    ap.add_argument("--quiet-wait", type=float, default=20)
    ap.add_argument("--quiet-budget", type=float, default=120)
    a = ap.parse_args()
    if a.rounds is None:
        a.rounds = 3 if a.quick else 5
    if a.quick:
        a.warmup = False
    if a.jvm_opt is None:
        a.jvm_opt = ["-Xms1g", "-Xmx1g"]
    if a.results is None:
        a.results = QUICK_RESULTS if a.quick else RESULTS
    os.makedirs(os.path.dirname(os.path.abspath(a.results)), exist_ok=True)
    if a.render:
        with open(a.render) as f:
            raw = json.load(f)
        raw["plan"] = [tuple(p) for p in raw["plan"]]
        if a.results == RESULTS and raw["args"]["quick"]:
            a.results = QUICK_RESULTS
        md = render(raw, os.path.relpath(os.path.abspath(a.render), REPO), a.results)
        with open(a.results, "w") as f:
            f.write(md)
        print(md)
        return
    Events(a).main()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""candor overhead benchmark (issue 2). Python 3 standard library only.

Measures, against runs without the agent, the wall and CPU time that candor's `cpu` engine adds at
10 ms, 1 ms and 100 us on the demo and on a fixed-work CPU-bound workload; the CPU cost of one
sample beside the platform floor (an empty handler receiving the same perf signals, measured by
bench/floor/floor.c in the same loop); the start-up cost; and what jmethodID preloading costs on
a class-loading-heavy start-up. Writes bench/results/RESULTS.md (bench/out/RESULTS-quick.md with --quick)
and the raw runs to bench/out/bench-<mode>-<time>.json. Issue 7 adds async-profiler and JFR to the
same loop, thread-heavy and library workloads (H2, Jackson, Lucene, regex), and a memory phase (peak RSS
of 1-minute recordings of the library workloads).

    python3 bench/run_bench.py --build build            # full: ~35-43 min (README: durations)
    python3 bench/run_bench.py --build build --quick    # quick: ~4.5 min

See bench/README.md for what each figure means.
"""

import argparse
import datetime
import gzip
import hashlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
OUT = os.path.join(BENCH, "out")
WORKLOADS_DIR = os.path.join(BENCH, "workloads")
WORKLOADS_JAR = os.path.join(WORKLOADS_DIR, "target", "candor-bench-workloads.jar")
DEFAULT_JAVA = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"

INTERVALS = {"10ms": 10_000_000, "1ms": 1_000_000, "100us": 100_000}
NOSIG = "-timer-only"  # floor config suffix: perf counter overflowing without a signal
# Targets of issue 2.
TARGET_FLOOR_RATIO = 1.3   # cost per sample <= 1.3x the floor, at 1 ms and at 100 us
TARGET_STARTUP_S = 0.1     # start-up cost <= 0.1 s of CPU
TARGET_INTERVALS = ("1ms", "100us")

# Peer profilers, measured in the same alternating loop as candor (issue 7). Config name -> what it runs.
# kind: candor-wall (candor event=wall), ap (async-profiler), jfr (JDK Flight Recorder).
# "floor": the INTERVALS key whose platform floor the cost per sample is set beside.
PEERS = {
    "wall":              {"kind": "candor-wall", "label": "candor wall 20ms", "floor": None},
    "ap-cpu-10ms":       {"kind": "ap", "event": "cpu", "interval": "10ms", "label": "async-profiler cpu 10ms", "floor": "10ms"},
    "ap-cpu-1ms":        {"kind": "ap", "event": "cpu", "interval": "1ms", "label": "async-profiler cpu 1ms", "floor": "1ms"},
    "ap-cpu-100us":      {"kind": "ap", "event": "cpu", "interval": "100us", "label": "async-profiler cpu 100us", "floor": "100us"},
    "ap-cpu-1ms-nocs":   {"kind": "ap", "event": "cpu", "interval": "1ms", "cstack": "no",
                          "label": "async-profiler cpu 1ms cstack=no", "floor": "1ms"},
    "ap-cpu-100us-nocs": {"kind": "ap", "event": "cpu", "interval": "100us", "cstack": "no",
                          "label": "async-profiler cpu 100us cstack=no", "floor": "100us"},
    "ap-itimer-10ms":    {"kind": "ap", "event": "itimer", "interval": "10ms", "label": "async-profiler itimer 10ms", "floor": "10ms"},
    "ap-itimer-1ms":     {"kind": "ap", "event": "itimer", "interval": "1ms", "label": "async-profiler itimer 1ms", "floor": "1ms"},
    "jfr-profile":       {"kind": "jfr", "label": "JFR settings=profile (10 ms Java, 20 ms native)", "floor": "10ms"},
    "jfr-1ms":           {"kind": "jfr", "period": "1 ms", "label": "JFR ExecutionSample 1 ms", "floor": "1ms"},
    "jfr-cputime-1ms":   {"kind": "jfr", "cputime": "1ms", "label": "JFR CPUTimeSample 1 ms (JDK 25)", "floor": "1ms",
                          "min_feature": 25},
}
FULL_CONFIGS = ["none", "10ms", "1ms", "100us", "1ms-agct", "100us-agct", "100us-remote", "wall", "ap-cpu-10ms", "ap-cpu-1ms", "ap-cpu-100us", "ap-cpu-1ms-nocs",
                "ap-cpu-100us-nocs", "ap-itimer-10ms", "ap-itimer-1ms", "jfr-profile", "jfr-1ms", "jfr-cputime-1ms"]
# the demo (fixed time) runs the candor intervals and one of each peer
DEMO_CONFIGS = ["none", "10ms", "1ms", "100us", "100us-agct", "wall", "ap-cpu-1ms", "ap-cpu-100us-nocs", "jfr-profile", "jfr-1ms",
                "jfr-cputime-1ms"]
# the thread-heavy workloads run a subset, to keep `make bench` within 25 minutes
EXTRA_CONFIGS = ["none", "1ms", "100us", "100us-agct", "wall", "ap-cpu-1ms", "ap-cpu-100us-nocs", "jfr-1ms"]
QUICK_CONFIGS = ["none", "1ms", "100us", "ap-cpu-1ms", "ap-cpu-100us-nocs", "jfr-1ms",
                 "jfr-cputime-1ms"]
# Library workloads (H2, Jackson, Lucene, regex; `candor-bench-workloads.jar NAME`): a fixed amount of
# work each, ~4-6 s; they run candor at 1 ms beside the equal-work async-profiler config, to keep the
# full bench within its time budget (README: durations)
LIB_WORKLOADS = ["h2", "jackson", "lucene", "regex"]
LIB_CONFIGS = ["none", "1ms", "1ms-agct", "ap-cpu-1ms-nocs"]
# The memory phase (issue 7: agent memory <= 20 MB RSS on top of the JVM for a 1-minute 1 ms recording
# of the library workloads): `lib --seconds 60` (the four in turn in one JVM) with these configs.
MEMORY_CONFIGS = ["none", "1ms", "ap-cpu-1ms-nocs", "jfr-1ms"]
TARGET_MEMORY_MB = 20
TARGET_JAVA_SHARE = 0.99
# the line every library workload prints: its own wall and process CPU time
SELF_RE = r"loops=(\d+) elapsed_ms=(\d+) cpu_ms=(-?\d+) thread_cpu_ms=(\d+)"


# candor with another stack walker than its default (walk=vm, issue 9): "<interval>-<walk>", e.g.
# "100us-agct" (AsyncGetCallTrace), "100us-remote";
# "100us-copy" is the experimental signal-free mode (walk=copy), run on request with --configs
WALKS = ("agct", "vm", "remote", "copy")


def candor_interval(cfg):
    """The INTERVALS key of a candor cpu config ("1ms", "100us-vm", ...), or None for any other."""
    if cfg in INTERVALS:
        return cfg
    base, _, walk = cfg.partition("-")
    return base if base in INTERVALS and walk in WALKS else None


def candor_walk(cfg):
    return cfg.partition("-")[2] if candor_interval(cfg) and cfg not in INTERVALS else None


def config_label(cfg):
    if cfg == "none":
        return "no profiler"
    if candor_interval(cfg):
        walk = candor_walk(cfg)
        return "candor cpu %s%s" % (candor_interval(cfg), " walk=" + walk if walk else "")
    return PEERS.get(cfg, {}).get("label", cfg)


def log(msg):
    print(msg, flush=True)


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


# ---------------------------------------------------------------------------------------------
# running things


def child_env():
    env = dict(os.environ)
    for k in ("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS"):
        env.pop(k, None)
    return env


def read_cpu_ticks():
    """(busy, total) clock ticks of all CPUs from /proc/stat, or None."""
    try:
        with open("/proc/stat") as f:
            vals = [int(x) for x in f.readline().split()[1:9]]  # user nice system idle iowait irq softirq steal
    except (OSError, ValueError):
        return None
    total = sum(vals)
    return total - vals[3] - vals[4], total, vals[7]


def background_cpus(window_s):
    """How many CPUs other processes keep busy, sampled over window_s seconds."""
    a = read_cpu_ticks()
    time.sleep(window_s)
    b = read_cpu_ticks()
    if a is None or b is None or b[1] == a[1]:
        return 0.0
    return (b[0] - a[0]) / (b[1] - a[1]) * (os.cpu_count() or 1)


class QuietGate:
    """Before each run, waits (up to max_wait_s) until other processes use < threshold CPUs."""

    def __init__(self, threshold, max_wait_s, budget_s):
        self.threshold = threshold
        self.max_wait_s = max_wait_s
        self.budget_s = budget_s
        self.waited_s = 0.0
        self.timeouts = 0

    def wait(self):
        if self.max_wait_s <= 0:
            return None
        t0 = time.monotonic()
        bg = background_cpus(0.5)
        limit = min(self.max_wait_s, max(0.0, self.budget_s - self.waited_s))
        announced = False
        while bg > self.threshold and time.monotonic() - t0 < limit:
            if not announced:
                log("  .. waiting for a quieter machine (other processes use %.1f CPUs)" % bg)
                announced = True
            bg = background_cpus(1.0)
        waited = time.monotonic() - t0
        self.waited_s += waited
        if bg > self.threshold:
            self.timeouts += 1
        return bg


GATE = QuietGate(0.0, 0, 0)


def poll_rss(pid, series, stop, period_s=1.0):
    """Appends (seconds since start, VmRSS kB, VmHWM kB) of process pid every period_s until stop is set."""
    t0 = time.monotonic()
    while not stop.wait(period_s):
        try:
            with open("/proc/%d/status" % pid) as f:
                vals = {}
                for line in f:
                    if line.startswith(("VmRSS:", "VmHWM:")):
                        vals[line[:5]] = int(line.split()[1])
        except (OSError, ValueError):
            return
        if "VmRSS" in vals:
            series.append((round(time.monotonic() - t0, 2), vals["VmRSS"], vals.get("VmHWM")))


def run_measured(cmd, log_path, cwd=None, timeout=600, rss_series=False):
    """Runs cmd; returns wall and CPU (user+sys of the child from wait4) in seconds, and how much
    CPU the rest of the machine used meanwhile (background_cpus: average number of busy CPUs).
    rss_series: also poll the child's VmRSS/VmHWM once a second (r["rss_series"])."""
    gate_bg = GATE.wait()
    load = os.getloadavg()[0]
    ticks0 = read_cpu_ticks()
    with open(log_path, "wb") as out:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=cwd or os.path.join(OUT, "scratch"),
                             env=child_env())
        killer = threading.Timer(timeout, p.kill)
        killer.start()
        series, stop = [], threading.Event()
        poller = None
        if rss_series:
            poller = threading.Thread(target=poll_rss, args=(p.pid, series, stop), daemon=True)
            poller.start()
        try:
            _, status, ru = os.wait4(p.pid, 0)
        finally:
            killer.cancel()
            stop.set()
        wall = time.monotonic() - t0
        if poller:
            poller.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    ticks1 = read_cpu_ticks()
    hz = os.sysconf("SC_CLK_TCK")
    cpu = ru.ru_utime + ru.ru_stime
    bg = steal = None
    if ticks0 and ticks1:
        bg = max(0.0, ((ticks1[0] - ticks0[0]) / hz - cpu) / wall) if wall > 0 else None
        steal = (ticks1[2] - ticks0[2]) / hz
    with open(log_path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    r = {
        "cmd": cmd,
        "exit": p.returncode,
        "wall_s": wall,
        "cpu_s": cpu,
        "user_s": ru.ru_utime,
        "sys_s": ru.ru_stime,
        "maxrss_kb": ru.ru_maxrss,
        "voluntary_ctx_switches": ru.ru_nvcsw,
        "involuntary_ctx_switches": ru.ru_nivcsw,
        "load1": load,
        "background_cpus_before": gate_bg,
        "background_cpus": bg,
        "steal_s": steal,
        "output_tail": text[-2000:],
    }
    if rss_series:
        r["rss_series"] = series
    return r


def read_stats(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


# ---------------------------------------------------------------------------------------------
# building


def build_floor(cc):
    exe = os.path.join(OUT, "floor")
    src = os.path.join(BENCH, "floor", "floor.c")
    subprocess.run([cc, "-O2", "-Wall", "-pthread", "-o", exe, src], check=True)
    return exe


def newest_mtime(root):
    newest = 0.0
    for d, _, files in os.walk(root):
        if "target" in d.split(os.sep):
            continue
        for f in files:
            newest = max(newest, os.path.getmtime(os.path.join(d, f)))
    return newest


def ensure_workloads_jar():
    if os.path.exists(WORKLOADS_JAR) and os.path.getmtime(WORKLOADS_JAR) >= newest_mtime(WORKLOADS_DIR):
        return
    log("building %s" % os.path.relpath(WORKLOADS_JAR, REPO))
    subprocess.run(["mvn", "-B", "-q", "-Dstyle.color=never", "-f", os.path.join(WORKLOADS_DIR, "pom.xml"),
                    "package"], check=True)


def snapshot(path):
    """A private copy of a build product, so that a rebuild during the bench (which rewrites
    build/libcandor.so in place) cannot crash a running JVM with SIGBUS or swap the agent mid-run."""
    with open(path, "rb") as f:
        data = f.read()
    sha = hashlib.sha256(data).hexdigest()[:12]
    base, ext = os.path.splitext(os.path.basename(path))
    os.makedirs(os.path.join(OUT, "snapshot"), exist_ok=True)
    dst = os.path.join(OUT, "snapshot", "%s-%s%s" % (base, sha, ext))
    if not os.path.exists(dst):
        tmp = dst + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o755)
        os.replace(tmp, dst)
    return dst


def snapshot_dir(path, name):
    """A private copy of a directory of build products (see snapshot)."""
    import shutil
    dst = os.path.join(OUT, "snapshot", name)
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(path, dst)
    return dst


def resolve_java(jdk):
    if jdk is None:
        return DEFAULT_JAVA
    if jdk in ("17", "25"):
        return {"17": DEFAULT_JAVA, "25": "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"}[jdk]
    if os.path.isdir(jdk):
        return os.path.join(jdk, "bin", "java")
    return jdk


# ---------------------------------------------------------------------------------------------
# peers: async-profiler and JFR

AP_VERSION = "4.1"


def fetch_async_profiler():
    """libasyncProfiler.so for linux-x64 from the tools.profiler:async-profiler jar on Maven Central
    (as bench/accuracy does): the local Maven repository first, else `mvn dependency:get`."""
    import zipfile
    jar = os.path.expanduser("~/.m2/repository/tools/profiler/async-profiler/%s/async-profiler-%s.jar" % (
        AP_VERSION, AP_VERSION))
    if not os.path.exists(jar):
        subprocess.run(["mvn", "-B", "-q", "dependency:get", "-Dartifact=tools.profiler:async-profiler:%s" % AP_VERSION],
                       check=False)
    if not os.path.exists(jar):
        return None
    with zipfile.ZipFile(jar) as z:
        data = z.read("linux-x64/libasyncProfiler.so")
    d = os.path.join(OUT, "async-profiler")
    os.makedirs(d, exist_ok=True)
    so = os.path.join(d, "libasyncProfiler-%s.so" % AP_VERSION)
    with open(so + ".tmp", "wb") as f:
        f.write(data)
    os.chmod(so + ".tmp", 0o755)
    os.replace(so + ".tmp", so)
    return so


def java_feature(java):
    out = subprocess.run([java, "-version"], capture_output=True, text=True).stderr
    m = re.search(r'version "(\d+)', out)
    return int(m.group(1)) if m else 0


def jdk_home(java):
    return os.path.dirname(os.path.dirname(os.path.realpath(java)))


def make_jfc(java, name, period=None, cputime=None):
    """A copy of the JDK's profile.jfc with jdk.ExecutionSample's period changed (or, for cputime,
    ExecutionSample/NativeMethodSample off and jdk.CPUTimeSample on with that throttle)."""
    src = os.path.join(jdk_home(java), "lib", "jfr", "profile.jfc")
    with open(src) as f:
        text = f.read()

    def set_event(text, event, **settings):
        m = re.search(r'(<event name="%s">)(.*?)(</event>)' % re.escape(event), text, re.S)
        if not m:
            return text
        body = m.group(2)
        for k, v in settings.items():
            body, n = re.subn(r'(<setting name="%s"[^>]*>)[^<]*(</setting>)' % k, r"\g<1>%s\g<2>" % v, body)
            if not n:
                body += '  <setting name="%s">%s</setting>\n    ' % (k, v)
        return text[:m.start()] + m.group(1) + body + m.group(3) + text[m.end():]

    if period:
        text = set_event(text, "jdk.ExecutionSample", period=period)
    if cputime:
        text = set_event(text, "jdk.ExecutionSample", enabled="false")
        text = set_event(text, "jdk.NativeMethodSample", enabled="false")
        text = set_event(text, "jdk.CPUTimeSample", enabled="true", throttle=cputime)
    d = os.path.join(OUT, "jfc")
    os.makedirs(d, exist_ok=True)
    dst = os.path.join(d, "%s.jfc" % name)
    with open(dst, "w") as f:
        f.write(text)
    return dst


JAVA_FRAME = re.compile(r"_\[[ji01]\]$")


def count_collapsed(path):
    """async-profiler collapsed output written with `ann,threads`: samples in all; threads are Java
    threads when any of their stacks holds a Java frame (annotated _[j] _[i] _[0] _[1]), the others
    (JIT compilers, GC: async-profiler samples every thread of the process) are counted apart; the
    samples of Java threads without a Java frame are counted by their leaf pseudo-frame."""
    per_thread = {}
    try:
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                stack, _, n = line.rpartition(" ")
                if not stack or not n.isdigit():
                    continue
                frames = stack.split(";")
                thread = frames[0] if frames[0].startswith("[") and "tid=" in frames[0] else "?"
                if thread != "?":
                    frames = frames[1:]
                t = per_thread.setdefault(thread, {"samples": 0, "java": 0, "other": {}})
                t["samples"] += int(n)
                if any(JAVA_FRAME.search(fr) for fr in frames):
                    t["java"] += int(n)
                else:
                    key = frames[-1] if frames and frames[-1].startswith("[") else "no Java frame"
                    t["other"][key] = t["other"].get(key, 0) + int(n)
    except OSError:
        return None
    total = sum(t["samples"] for t in per_thread.values())
    jt = [t for t in per_thread.values() if t["java"]]
    other = {}
    for t in jt:
        for k, v in t["other"].items():
            other[k] = other.get(k, 0) + v
    return {"samples": total, "java": sum(t["java"] for t in jt), "java_thread_samples": sum(t["samples"] for t in jt),
            "jvm_thread_samples": total - sum(t["samples"] for t in jt), "not_java": other}


def jfr_counts(java, path):
    """Event counts from `jfr summary` of the JDK that ran the recording."""
    jfr = os.path.join(os.path.dirname(java), "jfr")
    try:
        out = subprocess.run([jfr, "summary", path], capture_output=True, text=True, timeout=120).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    counts = {}
    for line in out.splitlines():
        m = re.match(r"\s+(\S+)\s+(\d+)\s+(\d+)\s*$", line)
        if m:
            counts[m.group(1)] = int(m.group(2))
    return counts or None


# ---------------------------------------------------------------------------------------------
# machine description


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def config_hz():
    release = platform.release()
    for path in ("/proc/config.gz", "/boot/config-" + release):
        try:
            opener = gzip.open if path.endswith(".gz") else open
            with opener(path, "rt") as f:
                for line in f:
                    if line.startswith("CONFIG_HZ="):
                        return line.strip().split("=", 1)[1] + " (" + path + ")"
        except OSError:
            continue
    return "unknown"


def machine_description(java, lib):
    lscpu = {}
    for line in sh(["lscpu"]).splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            lscpu[k.strip()] = v.strip()
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = "%.1f GiB" % (int(line.split()[1]) / 1024 / 1024)
    except OSError:
        pass
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            paranoid = f.read().strip()
    except OSError:
        paranoid = "unknown"
    jver = subprocess.run([java, "-version"], capture_output=True, text=True).stderr.strip().splitlines()
    sha = ""
    if lib and os.path.exists(lib):
        with open(lib, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()[:12]
    commit = sh(["git", "-C", REPO, "rev-parse", "--short", "HEAD"]).strip()
    dirty = sh(["git", "-C", REPO, "status", "--porcelain", "--", "agent"]).strip()
    return {
        "cpu_model": lscpu.get("Model name", platform.processor() or "unknown"),
        "hypervisor": lscpu.get("Hypervisor vendor", "none"),
        "nproc": os.cpu_count(),
        "kernel": platform.release(),
        "config_hz": config_hz(),
        "memory": mem,
        "perf_event_paranoid": paranoid,
        "java": java,
        "java_version": jver[1] if len(jver) > 1 else (jver[0] if jver else "unknown"),
        "java_version_full": jver,
        "libcandor_sha256": sha,
        "git_commit": commit + (" + uncommitted agent changes" if dirty else ""),
        "python": platform.python_version(),
    }


# ---------------------------------------------------------------------------------------------
# the benchmark


class Bench:
    def __init__(self, args):
        self.args = args
        self.java = resolve_java(args.jdk)
        self.build = os.path.abspath(args.build)
        self.lib = os.path.join(self.build, "libcandor.so")
        self.runs = []  # every run, raw
        self.anomalies = []
        for d in ("runs", "collapsed", "logs", "scratch", "peers"):
            os.makedirs(os.path.join(OUT, d), exist_ok=True)

    # -- commands --

    def jvm_base(self):
        return [self.java, "-XX:ErrorFile=%s" % os.path.join(OUT, "logs", "hs_err_pid%p.log")] + self.args.jvm_opt

    def agent_arg(self, options):
        return "-agentpath:%s=%s" % (self.lib, options)

    def workload_cmd(self, wl, agent_opts):
        cmd = self.jvm_base()
        if agent_opts is not None:
            cmd.append(self.agent_arg(agent_opts))
        return cmd + wl["argv"]

    def sampling_opts(self, wl_name, cfg, rep_tag):
        stats = os.path.join(OUT, "runs", "%s-%s-%s.json" % (wl_name, cfg, rep_tag))
        collapsed = os.path.join(OUT, "collapsed", "%s-%s.collapsed" % (wl_name, cfg))
        opts = "start,event=cpu,interval=%s,file=%s,stats=%s,quiet" % (candor_interval(cfg), collapsed, stats)
        if candor_walk(cfg):
            opts += ",walk=" + candor_walk(cfg)
        return opts, stats

    # -- one run of each kind --

    def peer_cmd(self, wl, cfg, tag):
        """The command of a peer config and a function that reads its output into r["peer"]."""
        p = PEERS[cfg]
        base = os.path.join(OUT, "peers", "%s-%s-%s" % (wl["name"], cfg, tag))
        if p["kind"] == "candor-wall":
            stats = base + ".json"
            if os.path.exists(stats):
                os.remove(stats)
            opts = "start,event=wall,interval=20ms,file=%s.collapsed,stats=%s,quiet" % (base, stats)
            return self.workload_cmd(wl, opts), lambda r: r.update(stats=read_stats(stats))
        if p["kind"] == "ap":
            out = base + ".collapsed"
            if os.path.exists(out):
                os.remove(out)
            opts = "start,event=%s,interval=%s,collapsed,ann,threads,file=%s" % (p["event"], p["interval"], out)
            if p.get("cstack"):
                opts += ",cstack=" + p["cstack"]
            cmd = self.jvm_base() + ["-agentpath:%s=%s" % (self.ap_lib, opts)] + wl["argv"]
            return cmd, lambda r: r.update(peer=count_collapsed(out))
        # JFR
        out = base + ".jfr"
        if os.path.exists(out):
            os.remove(out)
        cmd = self.jvm_base() + ["-XX:StartFlightRecording=settings=%s,filename=%s" % (self.jfcs[cfg], out),
                                 "-Xlog:jfr+startup=warning"] + wl["argv"]

        def read(r):
            c = jfr_counts(self.java, out)
            ev = "jdk.CPUTimeSample" if p.get("cputime") else "jdk.ExecutionSample"
            r["peer"] = None if c is None else {
                "samples": c.get(ev, 0), "java": c.get(ev, 0), "event": ev,
                "native_samples": c.get("jdk.NativeMethodSample", 0),
                "lost_events": c.get("jdk.CPUTimeSamplesLost") if p.get("cputime") else None}
            if r["peer"] and p.get("cputime") and c.get("jdk.CPUTimeSamplesLost"):
                jfr = os.path.join(os.path.dirname(self.java), "jfr")
                txt = subprocess.run([jfr, "print", "--events", "jdk.CPUTimeSamplesLost", out],
                                     capture_output=True, text=True).stdout
                r["peer"]["dropped"] = sum(int(x) for x in re.findall(r"lostSamples = (\d+)", txt))
        return cmd, read

    def run_workload(self, wl, cfg, rnd, warmup):
        tag = "w" if warmup else "r%d" % rnd
        logp = os.path.join(OUT, "logs", "%s-%s-%s.log" % (wl["name"], cfg, tag))
        stats_path = reader = None
        if cfg == "none":
            cmd = self.workload_cmd(wl, None)
        elif cfg in PEERS:
            cmd, reader = self.peer_cmd(wl, cfg, tag)
        else:
            opts, stats_path = self.sampling_opts(wl["name"], cfg, tag)
            if os.path.exists(stats_path):
                os.remove(stats_path)
            cmd = self.workload_cmd(wl, opts)
        r = run_measured(cmd, logp, timeout=wl.get("timeout", 600), rss_series=wl.get("rss_series", False))
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
        if stats_path:
            r["stats"] = read_stats(stats_path)
        if reader:
            reader(r)
            if cfg in PEERS and PEERS[cfg]["kind"] != "candor-wall" and not (r.get("peer") or {}).get("samples"):
                self.anomaly("%s/%s round %d: no samples counted in the profiler's output (exit %d): %s" % (
                    wl["name"], cfg, rnd, r["exit"], r["output_tail"][-300:]))
        self.check(r)
        self.runs.append(r)
        return r

    def run_floor(self, cfg, rnd, warmup):
        nosignal = cfg.endswith(NOSIG)
        interval = 0 if cfg == "none" else INTERVALS[cfg[:-len(NOSIG)] if nosignal else cfg]
        logp = os.path.join(OUT, "logs", "floor-%s-%s.log" % (cfg, "w" if warmup else "r%d" % rnd))
        cmd = [self.floor, "--interval", str(interval), "--work", str(self.args.floor_work)]
        if nosignal:
            cmd.append("--nosignal")
        r = run_measured(cmd, logp)
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
        if candor_interval(r["config"]):
            s = r.get("stats")
            if s is None:
                self.anomaly("%s: no stats JSON written" % what)
                return
            ticks = s.get("ticks", 0)
            parts = s.get("recorded", 0) + s.get("dropped", 0) + sum((s.get("failures") or {}).values())
            if ticks != parts:
                self.anomaly("%s: ticks %d != recorded + dropped + failures = %d" % (what, ticks, parts))
            if s.get("engine") != "cpu":
                self.anomaly("%s: engine is %r, not cpu" % (what, s.get("engine")))
            if s.get("interval_ns") != INTERVALS[candor_interval(r["config"])]:
                self.anomaly("%s: interval_ns %r, expected %d" % (what, s.get("interval_ns"),
                                                                   INTERVALS[candor_interval(r["config"])]))
            if candor_walk(r["config"]) and s.get("walker") != candor_walk(r["config"]):
                self.anomaly("%s: walker %r, expected %s" % (what, s.get("walker"), candor_walk(r["config"])))
            req, got = s.get("requested_per_cpu_second"), s.get("samples_per_cpu_second")
            # (short runs are exempt: every thread loses up to one interval of CPU that never elapses)
            if req and got is not None and ticks >= 500 and not (0.8 * req <= got <= 1.2 * req):
                self.anomaly("%s: %.0f samples per CPU-second, %.0f requested" % (what, got, req))
            if ticks and s.get("recorded", 0) < 0.5 * ticks:
                self.anomaly("%s: only %d of %d ticks recorded" % (what, s.get("recorded", 0), ticks))
            if "Exception" in r["output_tail"] or "candor:" in r["output_tail"]:
                self.anomaly("%s: output mentions: %s" % (what, r["output_tail"][-300:].strip()))

    # -- phases --

    def overhead_phase(self, workloads, configs, reps, floor_extra):
        nfloor = len([c for c in configs if c == "none" or c in INTERVALS])
        total = (reps + 1) * (sum(len([c for c in configs if c in wl.get("configs", configs)]) for wl in workloads)
                              + nfloor + len(floor_extra))
        n = 0
        for rnd in range(0, reps + 1):
            warmup = rnd == 0
            log("round %d/%d%s (load %.2f)" % (rnd, reps, " (warm-up)" if warmup else "", os.getloadavg()[0]))
            for cfg in configs:
                for wl in workloads:
                    if cfg not in wl.get("configs", configs):
                        continue
                    r = self.run_workload(wl, cfg, rnd, warmup)
                    n += 1
                    s = r.get("stats") or {}
                    pr = r.get("peer") or {}
                    log("  [%3d/%d] %-8s %-17s wall %6.3f s  cpu %6.3f s  rss %4.0f MB%s%s" % (
                        n, total, wl["name"], cfg, r["wall_s"], r["cpu_s"], r["maxrss_kb"] / 1024,
                        "  ticks %d recorded %d" % (s.get("ticks", 0), s.get("recorded", 0)) if s else "",
                        "  samples %d java %d" % (pr.get("samples", 0), pr.get("java", 0)) if pr else ""))
                if cfg != "none" and cfg not in INTERVALS:
                    continue
                f = self.run_floor(cfg, rnd, warmup)
                n += 1
                fl = f.get("floor") or {}
                log("  [%3d/%d] floor    %-6s wall %6.3f s  cpu %6.3f s  signals %d" % (
                    n, total, cfg, f["wall_s"], f["cpu_s"], fl.get("signals", 0)))
            for cfg in floor_extra:
                f = self.run_floor(cfg, rnd, warmup)
                n += 1
                fl = f.get("floor") or {}
                log("  [%3d/%d] floor    %-6s wall %6.3f s  cpu %6.3f s  periods %d (no signal)" % (
                    n, total, cfg, f["wall_s"], f["cpu_s"], fl.get("periods", 0)))

    def startup_phase(self, reps):
        """CPU of a trivial hello with -agentpath:...=start minus without."""
        scratch = os.path.join(OUT, "scratch")
        hello = ["-cp", self.wjar, "dev.candor.bench.Main", "hello"]
        for rnd in range(0, reps + 1):
            warmup = rnd == 0
            for cfg in ("none", "start"):
                cmd = self.jvm_base() + ([self.agent_arg("start")] if cfg == "start" else []) + hello
                logp = os.path.join(OUT, "logs", "hello-%s-%s.log" % (cfg, "w" if warmup else "r%d" % rnd))
                r = run_measured(cmd, logp, cwd=scratch)
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

    def classload_phase(self, reps, configs):
        """A class-loading-heavy start-up with and without the agent (jmethodID preloading).
        configs: "none"; "10ms" (candor sampling at 10 ms); "loaded" (candor loaded without `start`:
        its JVMTI events and preloading, no sampling); "dns" (no agent, -XX:+DebugNonSafepoints,
        which candor turns on by enabling CompiledMethodLoad events)."""
        argv = ["-jar", self.wjar, "classload"]
        for rnd in range(0, reps + 1):
            warmup = rnd == 0
            tag = "w" if warmup else "r%d" % rnd
            line = []
            for cfg in configs:
                stats_path = None
                if cfg == "none":
                    cmd = self.jvm_base() + argv
                elif cfg == "dns":
                    cmd = self.jvm_base() + ["-XX:+UnlockDiagnosticVMOptions", "-XX:+DebugNonSafepoints"] + argv
                elif cfg == "loaded":
                    cmd = self.jvm_base() + ["-agentpath:" + self.lib] + argv
                else:
                    opts, stats_path = self.sampling_opts("classload", cfg, tag)
                    if os.path.exists(stats_path):
                        os.remove(stats_path)
                    cmd = self.jvm_base() + [self.agent_arg(opts)] + argv
                logp = os.path.join(OUT, "logs", "classload-%s-%s.log" % (cfg, tag))
                r = run_measured(cmd, logp)
                r.update(kind="classload", workload="classload", config=cfg, round=rnd, warmup=warmup)
                if stats_path:
                    r["stats"] = read_stats(stats_path)
                self.check(r)
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
        cp = snapshot_dir(classes, "itest-classes")
        for rnd in range(1, reps + 1):
            stats = os.path.join(OUT, "runs", "manythreads-wall-r%d.json" % rnd)
            if os.path.exists(stats):
                os.remove(stats)
            opts = "start,event=wall,interval=20ms,wallthreads=16,file=%s,stats=%s,quiet" % (
                os.path.join(OUT, "collapsed", "manythreads-wall.collapsed"), stats)
            cmd = self.jvm_base() + [self.agent_arg(opts), "-cp", cp, "dev.candor.itest.workload.ManyThreads",
                                     "500", "2", "5"]
            r = run_measured(cmd, os.path.join(OUT, "logs", "manythreads-wall-r%d.log" % rnd))
            r.update(kind="manythreads", workload="manythreads", config="wall", round=rnd, warmup=False,
                     stats=read_stats(stats))
            if r["exit"] != 0 or not r["stats"]:
                self.anomaly("manythreads round %d: exit %d, stats %s: %s" % (
                    rnd, r["exit"], "missing" if not r["stats"] else "ok", r["output_tail"][-300:]))
            self.runs.append(r)
            sm = (r.get("stats") or {}).get("sampler") or {}
            log("  manythreads round %d: cpu %.3f s, sampler %s" % (rnd, r["cpu_s"], json.dumps(sm)[:300]))

    def memory_phase(self, names, configs, reps, seconds):
        """Agent memory (issue 7): each library workload (or `lib`, the four in turn in one JVM) looping its
        work for `seconds` s with each config; peak RSS (wait4's ru_maxrss = VmHWM) and VmRSS polled once a
        second. The heap is fixed and pre-touched (-XX:+AlwaysPreTouch on top of --jvm-opt), so that what the
        Java heap happens to touch does not drown the profiler's own memory. No warm-up round."""
        total = reps * len(configs) * len(names)
        n = 0
        for rnd in range(1, reps + 1):
            for cfg in configs:
                for name in names:
                    wl = {"name": "memory-" + name, "kind": "memory", "self_re": SELF_RE, "rss_series": True,
                          "timeout": seconds + 600,
                          "argv": ["-XX:+AlwaysPreTouch", "-jar", self.wjar, name, "--seconds", str(seconds)]}
                    r = self.run_workload(wl, cfg, rnd, False)
                    n += 1
                    s = r.get("stats") or {}
                    pr = r.get("peer") or {}
                    log("  [%2d/%d] %-14s %-17s wall %6.1f s  cpu %6.1f s  peak rss %6.1f MB  loops %s%s%s" % (
                        n, total, wl["name"], cfg, r["wall_s"], r["cpu_s"], r["maxrss_kb"] / 1024,
                        r.get("self_loops", "?"),
                        "  ticks %d recorded %d" % (s.get("ticks", 0), s.get("recorded", 0)) if s else "",
                        "  samples %d" % pr.get("samples", 0) if pr else ""))

    def probe(self):
        """One short run with the agent, to fail early (and clearly) if it does not work."""
        stats = os.path.join(OUT, "runs", "probe.json")
        if os.path.exists(stats):
            os.remove(stats)
        cmd = self.jvm_base() + [self.agent_arg("start,interval=1ms,file=%s,stats=%s" % (
            os.path.join(OUT, "collapsed", "probe.collapsed"), stats)),
            "-jar", self.wjar, "cpu", "--rounds", "2"]
        r = run_measured(cmd, os.path.join(OUT, "logs", "probe.log"))
        s = read_stats(stats)
        if r["exit"] != 0 or s is None or not s.get("ticks"):
            log("the agent does not work well enough to benchmark:")
            log("  command: %s" % " ".join(cmd))
            log("  exit %d, stats %s" % (r["exit"], "missing" if s is None else "ticks=%s" % s.get("ticks")))
            log("  output: %s" % r["output_tail"][-1500:])
            sys.exit(1)
        log("probe: exit 0, %d ticks, %d recorded, %.0f samples/CPU-s" % (
            s["ticks"], s.get("recorded", 0), s.get("samples_per_cpu_second", 0)))

    def main(self):
        a = self.args
        if not os.path.exists(self.lib):
            sys.exit("run_bench: %s not found; run `make agent` first" % self.lib)
        self.lib_source = self.lib
        self.lib = snapshot(self.lib)
        if not os.path.exists(self.java):
            sys.exit("run_bench: no java at %s" % self.java)
        self.floor = build_floor(a.cc)
        ensure_workloads_jar()
        self.wjar = snapshot(WORKLOADS_JAR)

        workloads = [{"name": "cpu-mix", "argv": ["-jar", self.wjar, "cpu"] + a.cpu_args}]
        if not a.quick and not a.no_threaded:
            for name, desc in (("server", "server"), ("shortthreads", "shortthreads"), ("deepstack", "deepstack")):
                workloads.append({"name": name, "argv": ["-jar", self.wjar, desc], "configs": EXTRA_CONFIGS})
        if not a.quick and not a.no_lib:
            for name in LIB_WORKLOADS:
                workloads.append({"name": name, "argv": ["-jar", self.wjar, name] + a.lib_args.get(name, []),
                                  "configs": LIB_CONFIGS, "self_re": SELF_RE})
        demo_jar = os.path.join(self.build, "candor-demo.jar")
        if not a.quick and not a.no_demo:
            if os.path.exists(demo_jar):
                workloads.insert(0, {"name": "demo", "argv": ["-jar", snapshot(demo_jar)] + a.demo_args,
                                     "work_re": r"demo: (\d+) orders", "configs": DEMO_CONFIGS})
            else:
                self.anomaly("no demo jar at %s: the demo workload was skipped" % demo_jar)
        configs = list(a.configs.split(",") if a.configs else (QUICK_CONFIGS if a.quick else FULL_CONFIGS))
        self.feature = java_feature(self.java)
        configs = [c for c in configs if c not in PEERS or self.feature >= PEERS[c].get("min_feature", 0)]
        skip = set(a.skip.split(",")) if a.skip else set()
        if a.quick:
            skip.add("memory")  # 4+ minutes: does not fit the quick budget
        memory_configs = [] if "memory" in skip else [
            c for c in (a.memory_configs.split(",") if a.memory_configs else MEMORY_CONFIGS)
            if c not in PEERS or self.feature >= PEERS[c].get("min_feature", 0)]
        if any(PEERS.get(c, {}).get("kind") == "ap" for c in configs + memory_configs):
            self.ap_lib = fetch_async_profiler()
            if not self.ap_lib:
                self.anomaly("async-profiler %s not found in Maven Central / ~/.m2: its rows were skipped" % AP_VERSION)
                configs = [c for c in configs if PEERS.get(c, {}).get("kind") != "ap"]
                memory_configs = [c for c in memory_configs if PEERS.get(c, {}).get("kind") != "ap"]
        self.jfcs = {}
        for c in configs + memory_configs:
            if PEERS.get(c, {}).get("kind") == "jfr":
                p = PEERS[c]
                self.jfcs[c] = "profile" if not (p.get("period") or p.get("cputime")) else make_jfc(
                    self.java, c, p.get("period"), p.get("cputime"))
        reps = a.reps or (3 if a.quick else 5)
        startup_reps = a.startup_reps or (3 if a.quick else 10)
        classload_reps = a.classload_reps or (3 if a.quick else 10)
        classload_configs = ["none", "10ms"] if a.quick else ["none", "10ms", "loaded", "dns"]

        self.machine = machine_description(self.java, self.lib)
        self.machine["peers"] = "async-profiler %s (tools.profiler:async-profiler, Maven Central)%s; JFR of the JDK above" % (
            AP_VERSION, "" if getattr(self, "ap_lib", None) else " – not run")
        started = datetime.datetime.now(datetime.timezone.utc)
        log("candor bench (%s): %s, %s, %s vCPUs, kernel %s" % (
            "quick" if a.quick else "full", self.machine["java_version"], self.machine["cpu_model"],
            self.machine["nproc"], self.machine["kernel"]))
        self.probe()
        t0 = time.monotonic()
        log("== overhead: %s x %s, %d rounds after a warm-up round" % (
            [w["name"] for w in workloads], configs, reps))
        floor_extra = [] if a.quick else ["100us" + NOSIG]
        self.overhead_phase(workloads, configs, reps, floor_extra)
        if "startup" not in skip:
            log("== start-up cost: hello with and without -agentpath:...=start, %d rounds" % startup_reps)
            self.startup_phase(startup_reps)
        if "classload" not in skip:
            log("== class-loading start-up, %d rounds" % classload_reps)
            self.classload_phase(classload_reps, classload_configs)
        if "manythreads" not in skip:
            log("== wall sampler with 500 idle threads (issue 6)")
            self.manythreads_phase(2 if a.quick else 3)
        if memory_configs:
            mem_names = ["lib"] if a.memory_workloads == "lib" else (
                LIB_WORKLOADS if a.memory_workloads == "each" else a.memory_workloads.split(","))
            log("== agent memory: %s x %s, %d s each, %d round(s)" % (
                mem_names, memory_configs, a.memory_seconds, a.memory_reps))
            self.memory_phase(mem_names, memory_configs, a.memory_reps, a.memory_seconds)
        elapsed = time.monotonic() - t0

        mode = "quick" if a.quick else "full"
        stamp = started.strftime("%Y%m%dT%H%M%SZ")
        summary = summarize(self.runs, [w["name"] for w in workloads], configs + floor_extra)
        summary_configs = configs + floor_extra
        raw = {
            "mode": mode, "started": started.isoformat(), "elapsed_s": elapsed, "machine": self.machine,
            "args": vars(a), "workloads": workloads, "configs": configs, "summary_configs": summary_configs, "reps": reps,
            "memory_configs": memory_configs,
        "quiet_gate": {"threshold_cpus": GATE.threshold, "max_wait_s": GATE.max_wait_s, "budget_s": GATE.budget_s,
                       "waited_s": GATE.waited_s, "timeouts": GATE.timeouts},
            "summary": summary, "anomalies": self.anomalies, "runs": self.runs,
        }
        raw["labels"] = {c: config_label(c) for c in summary_configs}
        raw_path = os.path.join(OUT, "bench-%s-%s.json" % (mode, stamp))
        with open(raw_path, "w") as f:
            json.dump(raw, f, indent=1)
        results = a.results or (os.path.join(OUT, "RESULTS-quick.md") if a.quick else os.path.join(BENCH, "results", "RESULTS.md"))
        raw["charts"] = make_charts(raw_path, chart_dir(results))
        md = render_markdown(raw, summary, os.path.relpath(raw_path, REPO), results)
        with open(results, "w") as f:
            f.write(md)
        log("")
        log(md)
        log("wrote %s and %s (%.0f s)" % (os.path.relpath(results, REPO), os.path.relpath(raw_path, REPO), elapsed))


def make_charts(raw_path, out_dir):
    """PNG charts with matplotlib from a venv the harness creates (bench/out/venv). Returns the paths,
    or a string saying why there are none."""
    venv = os.path.join(OUT, "venv")
    py = os.path.join(venv, "bin", "python")
    try:
        if not os.path.exists(py):
            log("creating %s for matplotlib" % os.path.relpath(venv, REPO))
            subprocess.run([sys.executable, "-m", "venv", venv], check=True, capture_output=True)
        if subprocess.run([py, "-c", "import matplotlib"], capture_output=True).returncode != 0:
            r = subprocess.run([py, "-m", "pip", "install", "-q", "matplotlib"], capture_output=True, text=True)
            if r.returncode != 0:
                return "charts skipped: pip could not install matplotlib into %s (%s)" % (
                    os.path.relpath(venv, REPO), (r.stderr or r.stdout).strip().splitlines()[-1:] or "?")
        r = subprocess.run([py, os.path.join(BENCH, "charts.py"), raw_path, out_dir], capture_output=True, text=True)
        if r.returncode != 0:
            return "charts skipped: bench/charts.py failed: %s" % r.stderr.strip()[-300:]
        return [l for l in r.stdout.splitlines() if l.endswith(".png")]
    except (OSError, subprocess.CalledProcessError) as e:
        return "charts skipped: no venv/pip for matplotlib (%s)" % e


def fmt_ms(ns):
    return "?" if ns is None else "%.1f" % (ns / 1e6)


# ---------------------------------------------------------------------------------------------
# statistics


def summarize(runs, workload_names, configs):
    measured = [r for r in runs if not r["warmup"]]

    def select(kind, wl, cfg):
        return [r for r in measured if r["kind"] == kind and r["workload"] == wl and r["config"] == cfg]

    out = {"floor": {}, "workloads": {}, "startup": None, "classload": None}

    # the platform floor
    base = select("floor", "floor", "none")
    base_cpu = median(r["cpu_s"] for r in base)
    for cfg in configs:
        rs = select("floor", "floor", cfg)
        if not rs:
            continue
        key = "periods" if cfg.endswith(NOSIG) else "signals"
        sig = median((r.get("floor") or {}).get(key) for r in rs)
        cpu = median(r["cpu_s"] for r in rs)
        e = {"n": len(rs), "cpu_s": cpu, "cpu_min": min(r["cpu_s"] for r in rs),
             "cpu_max": max(r["cpu_s"] for r in rs), "signals": sig}
        if cfg != "none" and sig:
            e["extra_cpu_s"] = cpu - base_cpu
            e["us_per_signal"] = (cpu - base_cpu) / sig * 1e6
            e["overhead_pct"] = (cpu / base_cpu - 1) * 100
            e["paired_us_per_signal"] = paired_cost(base, rs, lambda r: (r.get("floor") or {}).get(key))
        e["background_cpus"] = median(r.get("background_cpus") for r in rs)
        out["floor"][cfg] = e

    # the workloads
    for wl in workload_names:
        none = select("workload", wl, "none")
        if not none:
            continue
        # A fixed-time workload (the demo) does more or less work per run: its figures are scaled to the
        # median work of the runs without the agent ("the same work"). Fixed-work workloads have scale 1.
        ref = median(r.get("work") for r in none)
        for r in [x for x in measured if x["kind"] == "workload" and x["workload"] == wl]:
            scale = ref / r["work"] if ref and r.get("work") else 1.0
            r["scale"] = scale
            r["wall_n"] = r["wall_s"] * scale
            r["cpu_n"] = r["cpu_s"] * scale
            cnt = sample_count(r)
            if cnt is not None:
                r["ticks_n"] = cnt * scale
        n_wall, n_cpu = median(r["wall_n"] for r in none), median(r["cpu_n"] for r in none)
        rows = {}
        for cfg in configs:
            if cfg.endswith(NOSIG):
                continue
            rs = select("workload", wl, cfg)
            if not rs:
                continue
            wall, cpu = median(r["wall_n"] for r in rs), median(r["cpu_n"] for r in rs)
            e = {
                "n": len(rs),
                "work": median(r.get("work") for r in rs), "scaled": ref is not None,
                "wall_s": wall, "wall_min": min(r["wall_n"] for r in rs), "wall_max": max(r["wall_n"] for r in rs),
                "cpu_s": cpu, "cpu_min": min(r["cpu_n"] for r in rs), "cpu_max": max(r["cpu_n"] for r in rs),
                "wall_ratio": wall / n_wall, "cpu_ratio": cpu / n_cpu,
                "wall_ratio_min": min(r["wall_n"] for r in rs) / n_wall,
                "wall_ratio_max": max(r["wall_n"] for r in rs) / n_wall,
                "cpu_ratio_min": min(r["cpu_n"] for r in rs) / n_cpu,
                "cpu_ratio_max": max(r["cpu_n"] for r in rs) / n_cpu,
                "load1": median(r["load1"] for r in rs),
                "background_cpus": median(r.get("background_cpus") for r in rs),
            }
            if any(r.get("self_elapsed_s") is not None for r in rs):
                e["self_elapsed_s"] = median(r.get("self_elapsed_s") for r in rs)
                e["self_cpu_s"] = median(r.get("self_cpu_s") for r in rs)
                e["self_thread_cpu_s"] = median(r.get("self_thread_cpu_s") for r in rs)
            e["rss_mb"] = median(r["maxrss_kb"] for r in rs) / 1024
            e["rss_added_mb"] = e["rss_mb"] - median(r["maxrss_kb"] for r in none) / 1024
            e["samples_per_process_cpu_s"] = median(r["ticks_n"] / r["cpu_n"] for r in rs
                                                    if r.get("ticks_n") is not None and r["cpu_n"] > 0)
            e["java_share"] = median(java_share(r) for r in rs)
            if cfg in PEERS and PEERS[cfg]["kind"] != "candor-wall":
                peers = [r.get("peer") or {} for r in rs]
                ticks = median(r.get("ticks_n") for r in rs)
                e["ticks"] = ticks
                e["dropped"] = median(p.get("dropped") for p in peers)
                e["jvm_thread_samples"] = median(p.get("jvm_thread_samples") for p in peers)
                nj = {}
                for p in peers:
                    for k, v in (p.get("not_java") or {}).items():
                        nj.setdefault(k, []).append(v)
                e["failures"] = {k: median(v + [0] * (len(peers) - len(v))) for k, v in nj.items()}
                e["failures"] = {k: v for k, v in e["failures"].items() if v}
                fk = PEERS[cfg].get("floor")
                e["requested_per_cpu_s"] = 1e9 / INTERVALS[fk] if fk in INTERVALS else None
                if ticks:
                    e["extra_cpu_s"] = cpu - n_cpu
                    e["noise_cpu_s"] = (max(r["cpu_n"] for r in none) - min(r["cpu_n"] for r in none)) / 2
                    e["us_per_sample"] = (cpu - n_cpu) / ticks * 1e6
                    e["paired_us_per_sample"] = paired_cost(none, rs, lambda r: r.get("ticks_n"), "cpu_n")
                    fl = out["floor"].get(PEERS[cfg].get("floor"), {}).get("us_per_signal")
                    if fl and fl > 0:
                        e["floor_us"] = fl
                        e["cost_over_floor"] = e["us_per_sample"] / fl
            if candor_interval(cfg) or cfg == "wall":
                stats = [r.get("stats") or {} for r in rs]
                lat = [((s.get("kinds") or {}).get("wall" if cfg == "wall" else "cpu") or {}).get("latency") or {}
                       for s in stats]
                if any(x.get("count") for x in lat):
                    e["latency_p50_us"] = median(x.get("p50_ns", 0) / 1e3 for x in lat if x.get("count"))
                    e["latency_p99_us"] = median(x.get("p99_ns", 0) / 1e3 for x in lat if x.get("count"))
                # Time in candor's handler per tick (the agent measures it; signal delivery excluded).
                hnd = [((s.get("kinds") or {}).get("wall" if cfg == "wall" else "cpu") or {}).get("handler") or {}
                       for s in stats]
                if any(x.get("count") for x in hnd):
                    e["handler_us"] = median(x.get("mean_ns", 0) / 1e3 for x in hnd if x.get("count"))
                ticks = median(r.get("ticks_n") for r in rs)
                e["ticks"] = ticks
                e["recorded"] = median((r.get("stats") or {}).get("recorded", 0) * r["scale"] for r in rs)
                e["samples_per_cpu_s"] = median(s.get("samples_per_cpu_second") for s in stats)
                e["requested_per_cpu_s"] = median(s.get("requested_per_cpu_second") for s in stats)
                failures = {}
                for s in stats:
                    for k, v in (s.get("failures") or {}).items():
                        failures.setdefault(k, []).append(v)
                e["failures"] = {k: median(v) for k, v in failures.items() if median(v)}
                e["dropped"] = median(s.get("dropped") for s in stats)
                if ticks:
                    e["extra_cpu_s"] = cpu - n_cpu
                    e["noise_cpu_s"] = (max(r["cpu_n"] for r in none) - min(r["cpu_n"] for r in none)) / 2
                    e["us_per_sample"] = (cpu - n_cpu) / ticks * 1e6
                    e["paired_us_per_sample"] = paired_cost(none, rs, lambda r: r.get("ticks_n"), "cpu_n")
                    fl = out["floor"].get(candor_interval(cfg), {}).get("us_per_signal")
                    if fl and fl > 0:
                        e["floor_us"] = fl
                        e["cost_over_floor"] = e["us_per_sample"] / fl
            rows[cfg] = e
        out["workloads"][wl] = rows

    # the wall sampler with 500 idle threads (issue 6)
    mt = [r for r in measured if r["kind"] == "manythreads" and r.get("stats")]
    if mt:
        sm = [(r["stats"].get("sampler") or {}) for r in mt]
        out["manythreads"] = {
            "n": len(mt),
            "tick_cpu_p50_us": median((x.get("tick_cpu") or {}).get("p50_ns", 0) / 1e3 for x in sm),
            "tick_cpu_p99_us": median((x.get("tick_cpu") or {}).get("p99_ns", 0) / 1e3 for x in sm),
            "tick_cpu_max_us": max((x.get("tick_cpu") or {}).get("max_ns", 0) / 1e3 for x in sm),
            "running_seen": sum(x.get("running_seen", 0) for x in sm),
            "running_sampled": sum(x.get("running_sampled", 0) for x in sm),
            "ticks": median(x.get("ticks") for x in sm), "missed_ticks": median(x.get("missed_ticks") for x in sm),
            "effective_rate": median(x.get("effective_rate") for x in sm),
            "requested_rate": median(x.get("requested_rate") for x in sm),
            "candidates_max": max(x.get("candidates_max", 0) for x in sm),
            "repeated_without_signal": median(x.get("repeated_without_signal") for x in sm),
            "signals_sent": median(x.get("signals_sent") for x in sm),
            "cpu_s": median(r["cpu_s"] for r in mt),
        }

    # start-up
    none = [r for r in measured if r["kind"] == "startup" and r["config"] == "none"]
    start = [r for r in measured if r["kind"] == "startup" and r["config"] == "start"]
    if none and start:
        out["startup"] = {
            "n": len(start),
            "none_cpu_s": median(r["cpu_s"] for r in none), "start_cpu_s": median(r["cpu_s"] for r in start),
            "none_wall_s": median(r["wall_s"] for r in none), "start_wall_s": median(r["wall_s"] for r in start),
        }
        out["startup"]["cost_cpu_s"] = out["startup"]["start_cpu_s"] - out["startup"]["none_cpu_s"]
        out["startup"]["cost_wall_s"] = out["startup"]["start_wall_s"] - out["startup"]["none_wall_s"]

    # class-loading start-up
    none = [r for r in measured if r["kind"] == "classload" and r["config"] == "none"]
    withc = [r for r in measured if r["kind"] == "classload" and r["config"] == "10ms"]
    if none and withc:
        stats = [r.get("stats") or {} for r in withc]
        n_cpu = median(r["cpu_s"] for r in none)
        c = {
            "n": len(withc),
            "none_cpu_s": n_cpu, "candor_cpu_s": median(r["cpu_s"] for r in withc),
            "none_wall_s": median(r["wall_s"] for r in none), "candor_wall_s": median(r["wall_s"] for r in withc),
            "ticks": median(s.get("ticks") for s in stats),
            "configs": {},
        }
        for cfg in ("none", "10ms", "loaded", "dns"):
            rs = [r for r in measured if r["kind"] == "classload" and r["config"] == cfg]
            if rs:
                c["configs"][cfg] = {
                    "n": len(rs), "cpu_s": median(r["cpu_s"] for r in rs), "cpu_min": min(r["cpu_s"] for r in rs),
                    "cpu_max": max(r["cpu_s"] for r in rs), "wall_s": median(r["wall_s"] for r in rs),
                    "extra_cpu_s": median(r["cpu_s"] for r in rs) - n_cpu,
                    "paired_extra_cpu_s": None if cfg == "none" else paired_cost(none, rs, lambda r: 1e6),
                }
        for k in ("preload_ns", "classes_preloaded", "class_prepare_ns", "classes_prepared"):
            c[k] = median(s.get(k) for s in stats)
        c["extra_cpu_s"] = c["candor_cpu_s"] - c["none_cpu_s"]
        c["extra_wall_s"] = c["candor_wall_s"] - c["none_wall_s"]
        if c.get("class_prepare_ns") is not None and c.get("classes_prepared"):
            c["us_per_prepared_class"] = c["class_prepare_ns"] / c["classes_prepared"] / 1e3
        if c.get("preload_ns") is not None and c.get("classes_preloaded"):
            c["us_per_preloaded_class"] = c["preload_ns"] / c["classes_preloaded"] / 1e3
        out["classload"] = c

    # agent memory: 1-minute runs of the library workloads
    mem = [r for r in measured if r["kind"] == "memory"]
    out["memory"] = {}
    for wl in dict.fromkeys(r["workload"] for r in mem):
        none = [r for r in mem if r["workload"] == wl and r["config"] == "none"]
        base = median(r["maxrss_kb"] for r in none)
        base_end = median(rss_at(r, None) for r in none)
        base_10 = median(rss_at(r, 10) for r in none)
        rows = {}
        for cfg in dict.fromkeys(r["config"] for r in mem if r["workload"] == wl):
            rs = [r for r in mem if r["workload"] == wl and r["config"] == cfg]
            e = {"n": len(rs),
                 "rss_mb": median(r["maxrss_kb"] for r in rs) / 1024,
                 "rss_min_mb": min(r["maxrss_kb"] for r in rs) / 1024,
                 "rss_max_mb": max(r["maxrss_kb"] for r in rs) / 1024,
                 "rss_10s_mb": kb_mb(median(rss_at(r, 10) for r in rs)),
                 "rss_end_mb": kb_mb(median(rss_at(r, None) for r in rs)),
                 # what the peak rose by after the last poll, i.e. in the last second, mostly at exit
                 "exit_rise_mb": kb_mb(median(r["maxrss_kb"] - r["rss_series"][-1][2] for r in rs
                                              if r.get("rss_series") and r["rss_series"][-1][2])),
                 "wall_s": median(r["wall_s"] for r in rs), "cpu_s": median(r["cpu_s"] for r in rs),
                 "seconds": median(r.get("self_elapsed_s") for r in rs),
                 "loops": median(r.get("self_loops") for r in rs),
                 "samples": median(sample_count(r) for r in rs),
                 "java_share": median(java_share(r) for r in rs)}
            if cfg != "none" and base:
                e["added_mb"] = e["rss_mb"] - base / 1024
                e["added_min_mb"] = e["rss_min_mb"] - base / 1024
                e["added_max_mb"] = e["rss_max_mb"] - base / 1024
                if base_end and e["rss_end_mb"] is not None:
                    e["added_end_mb"] = e["rss_end_mb"] - base_end / 1024
                if base_10 and e["rss_10s_mb"] is not None:
                    e["added_10s_mb"] = e["rss_10s_mb"] - base_10 / 1024
            rows[cfg] = e
        out["memory"][wl] = rows
    return out


def kb_mb(kb):
    return None if kb is None else kb / 1024


def rss_at(r, t):
    """VmRSS (kB) of a memory-phase run at the first poll >= t seconds after its start (t None: the last poll)."""
    series = r.get("rss_series") or []
    if not series:
        return None
    if t is None:
        return series[-1][1]
    for x in series:
        if x[0] >= t:
            return x[1]
    return None


def sample_count(r):
    """What a run's cost per sample is divided by: candor's ticks (every signal that reached a Java
    thread; for wall, every sample taken), async-profiler's samples in its collapsed output, JFR's
    ExecutionSample (or CPUTimeSample) events."""
    if r.get("stats") and r["stats"].get("ticks") is not None:
        return r["stats"]["ticks"]
    if r.get("peer") and r["peer"].get("samples") is not None:
        return r["peer"]["samples"]
    return None


def java_share(r):
    """Share of the ticks that became Java stacks (None where the profiler does not expose failed ticks)."""
    st = r.get("stats")
    if st and st.get("ticks"):
        return st.get("recorded", 0) / st["ticks"]
    p = r.get("peer")
    if p and p.get("java_thread_samples") and p.get("not_java") is not None:
        return p["java"] / p["java_thread_samples"]
    return None


def paired_cost(base_runs, runs, count_of, cpu_key="cpu_s"):
    """Median over rounds of (CPU with - CPU without, same round) / count, in us."""
    by_round = {r["round"]: r for r in base_runs}
    vals = []
    for r in runs:
        b = by_round.get(r["round"])
        n = count_of(r)
        if b is not None and n:
            vals.append((r[cpu_key] - b[cpu_key]) / n * 1e6)
    return median(vals)


# ---------------------------------------------------------------------------------------------
# report


def f3(x):
    return "–" if x is None else "%.3f" % x


def f2(x):
    return "–" if x is None else "%.2f" % x


def f1(x):
    return "–" if x is None else "%.1f" % x


def pct(ratio):
    return "–" if ratio is None else "%+.1f%%" % ((ratio - 1) * 100)


def chart_dir(results):
    """PNGs go beside the markdown: bench/results/charts for bench/results/RESULTS.md, else RESULTS-x-charts/."""
    d = os.path.dirname(os.path.abspath(results))
    if os.path.abspath(results) == os.path.join(BENCH, "results", "RESULTS.md"):
        return os.path.join(BENCH, "results", "charts")
    return os.path.join(d, os.path.splitext(os.path.basename(results))[0] + "-charts")


def render_markdown(raw, s, raw_rel, results_path=None):
    m = raw["machine"]
    mode = raw["mode"]
    L = []
    L.append("# candor overhead benchmark%s" % (" (quick mode)" if mode == "quick" else ""))
    L.append("")
    L.append("Written by `bench/run_bench.py%s` on %s (%.0f s of runs). Raw runs (gitignored): `%s`. "
             "How to run it and what every figure means: [bench/README.md](%s)." % (
                 " --quick" if mode == "quick" else "", raw["started"][:16].replace("T", " ") + " UTC",
                 raw["elapsed_s"], raw_rel, "../README.md"))
    L.append("")
    bgs_all = [r["background_cpus"] for r in raw["runs"] if not r["warmup"] and r.get("background_cpus") is not None]
    if bgs_all and median(bgs_all) > 0.5:
        L.append("**Warning: other processes kept a median of %.2f of the %s CPUs busy during these runs** (builds and "
                 "tests of other sessions on the same VM). CPU times are inflated and noisy under such contention; "
                 "the verdicts below are only as good as that allows. Rerun on a quiet machine." % (
                     median(bgs_all), m["nproc"]))
        L.append("")
    L.append("## Machine")
    L.append("")
    L.append("| | |")
    L.append("|---|---|")
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
    steal = [r["steal_s"] for r in raw["runs"] if not r["warmup"] and r.get("steal_s") is not None]
    bgs = [r["background_cpus"] for r in raw["runs"] if not r["warmup"] and r.get("background_cpus") is not None]
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
    L.append("")

    # targets
    L.append("## Targets (issues 2 and 7)")
    L.append("")
    L.append("| target | measured | verdict |")
    L.append("|---|---|---|")
    for wl, rows in s["workloads"].items():
        for cfg in TARGET_INTERVALS:
            e = rows.get(cfg)
            if not e:
                continue
            ratio = e.get("cost_over_floor")
            noisy = e.get("noise_cpu_s") is not None and abs(e.get("extra_cpu_s", 0)) < e["noise_cpu_s"]
            if ratio is None:
                L.append("| %s at %s: cost per sample ≤ %.1f× the floor | cost %s µs, floor not measurable | "
                         "INCONCLUSIVE |" % (wl, cfg, TARGET_FLOOR_RATIO, f1(e.get("us_per_sample"))))
            else:
                verdict = "INCONCLUSIVE" if ratio <= 0 else ("PASS" if ratio <= TARGET_FLOOR_RATIO else "MISS")
                estimate = ""
                if noisy and e.get("handler_us") is not None:
                    # The extra CPU says nothing here; what candor adds to a signal is its handler time.
                    est = (e["floor_us"] + e["handler_us"]) / e["floor_us"]
                    verdict = "%s by estimate" % ("PASS" if est <= TARGET_FLOOR_RATIO else "MISS")
                    estimate = "; floor + candor's handler time %.1f µs = **%.2f×**" % (e["floor_us"] + e["handler_us"], est)
                L.append("| %s at %s: cost per sample ≤ %.1f× the floor | %.1f µs vs floor %.1f µs = **%.2f×**%s | %s%s |" % (
                    wl, cfg, TARGET_FLOOR_RATIO, e["us_per_sample"], e["floor_us"], ratio, estimate, verdict,
                    " (extra CPU %.3f s is within the noise: ±%.3f s without the agent)" % (
                        e["extra_cpu_s"], e["noise_cpu_s"]) if noisy else ""))
    for wl, rows in s["workloads"].items():
        for cfg in TARGET_INTERVALS:
            e = rows.get(cfg)
            if not e or e.get("us_per_sample") is None:
                continue
            for peer in ("ap-cpu-%s" % cfg, "ap-cpu-%s-nocs" % cfg):
                pe = rows.get(peer)
                if not pe or pe.get("us_per_sample") is None:
                    continue
                ok = e["us_per_sample"] < pe["us_per_sample"]
                noisy = any(x.get("noise_cpu_s") is not None and abs(x.get("extra_cpu_s", 0)) < x["noise_cpu_s"]
                            for x in (e, pe))
                L.append("| %s at %s: cost per sample below %s's | candor %.1f µs vs %.1f µs | %s%s |" % (
                    wl, cfg, config_label(peer), e["us_per_sample"], pe["us_per_sample"],
                    "INCONCLUSIVE" if e["us_per_sample"] <= 0 or pe["us_per_sample"] <= 0 else ("PASS" if ok else "MISS"),
                    " (an extra CPU within the noise)" if noisy else ""))
            req, got = e.get("requested_per_cpu_s"), e.get("samples_per_cpu_s")
            if req and got is not None:
                L.append("| %s at %s: ≥ 95%% of requested samples per CPU-second | %.0f of %.0f (%.1f%%) | %s |" % (
                    wl, cfg, got, req, got / req * 100, "PASS" if got >= 0.95 * req else "MISS"))
            if e.get("java_share") is not None:
                L.append("| %s at %s: ≥ 99%% of ticks recorded as Java stacks | %.1f%% | %s |" % (
                    wl, cfg, e["java_share"] * 100, "PASS" if e["java_share"] >= 0.99 else "MISS"))
            if cfg == "1ms" and e.get("rss_added_mb") is not None:
                L.append("| %s at 1ms: agent memory ≤ 20 MB RSS on top of the JVM | %+.1f MB (peak RSS vs no profiler; "
                         "runs of seconds, not the 1-minute recording of the issue) | %s |" % (
                             wl, e["rss_added_mb"], "PASS" if e["rss_added_mb"] <= 20 else "MISS"))
    # every workload here is pure Java (no JNI of its own): the Java-stacks target over all of them
    shares = [(wl, cfg, rows[cfg]["java_share"]) for wl, rows in s["workloads"].items() for cfg in TARGET_INTERVALS
              if rows.get(cfg) and rows[cfg].get("java_share") is not None]
    if shares:
        low = [x for x in shares if x[2] < TARGET_JAVA_SHARE]
        L.append("| **≥ 99%% of ticks recorded as Java stacks on the pure-Java workloads** (candor cpu %s) | %s | "
                 "%s |" % (" and ".join(TARGET_INTERVALS), "; ".join(
                     "%s %s %.2f%%" % (wl, cfg, sh * 100) for wl, cfg, sh in shares),
                     "PASS (all %d)" % len(shares) if not low else "MISS on %d of %d (lowest: %s %s %.2f%%)" % (
                         len(low), len(shares), *min(low, key=lambda x: x[2])[:2], min(x[2] for x in low) * 100)))
    for wl, rows in (s.get("memory") or {}).items():
        e = rows.get("1ms")
        if not e or e.get("added_mb") is None:
            continue
        peers = "; ".join("%s %+.1f MB" % (config_label(c), x["added_mb"]) for c, x in rows.items()
                          if c not in ("none", "1ms") and x.get("added_mb") is not None)
        L.append("| **agent memory ≤ %d MB RSS on top of the JVM, 1-minute 1 ms recording of the library workloads** "
                 "(`%s`, %.0f s) | candor **%+.1f MB** peak RSS vs no profiler (at the end: %s MB)%s | %s |" % (
                     TARGET_MEMORY_MB, wl.replace("memory-", ""), e.get("seconds") or 0, e["added_mb"],
                     "%+.1f" % e["added_end_mb"] if e.get("added_end_mb") is not None else "–",
                     "; same run: " + peers if peers else "",
                     "PASS" if e["added_mb"] <= TARGET_MEMORY_MB else "MISS"))
    st = s.get("startup")
    if st:
        L.append("| start-up cost ≤ %.1f s CPU | %.3f s CPU (%.3f s wall) | %s |" % (
            TARGET_STARTUP_S, st["cost_cpu_s"], st["cost_wall_s"],
            "PASS" if st["cost_cpu_s"] <= TARGET_STARTUP_S else "MISS"))
    L.append("")
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

    # charts
    charts = raw.get("charts")
    L.append("## Charts")
    L.append("")
    if isinstance(charts, list) and charts:
        base = os.path.dirname(os.path.abspath(results_path)) if results_path else BENCH
        for c in charts:
            L.append("![%s](%s)" % (os.path.splitext(os.path.basename(c))[0], os.path.relpath(c, base)))
            L.append("")
    else:
        L.append(charts if isinstance(charts, str) else "none made")
        L.append("")

    # overhead tables
    L.append("## Overhead vs no profiler")
    L.append("")
    for wl, rows in s["workloads"].items():
        desc = {"demo": "the bundled demo, an order pipeline doing a fixed amount of work (main + audit threads; `build/candor-demo.jar%s`)" % (
                    (" " + " ".join(raw["args"]["demo_args"])) if raw["args"]["demo_args"] else ""),
                "cpu-mix": "fixed-work CPU-bound mix (`candor-bench-workloads.jar cpu%s`): interpreter, SHA-256, "
                           "sorting, hash maps, BigInteger" % ((" " + " ".join(raw["args"]["cpu_args"]))
                                                                if raw["args"]["cpu_args"] else ""),
                "server": "server-like: 256 worker threads taking 200,000 small requests (SHA-256, parse, format) from "
                          "one queue (`candor-bench-workloads.jar server`)",
                "shortthreads": "10,000 short-lived threads, 8 alive at a time, each doing a few µs of work "
                                "(`candor-bench-workloads.jar shortthreads`)",
                "deepstack": "work at the bottom of a 600-frame recursion (`candor-bench-workloads.jar deepstack`)",
                "h2": "H2 2.2 in memory over JDBC: 12,000 order-entry transactions (selects, inserts, updates, 1 in 20 "
                      "rolled back) and a join + GROUP BY report every 500 (`candor-bench-workloads.jar h2`)",
                "jackson": "Jackson 2.17: 250 round trips of 500 orders (POJO graph → bytes → POJOs, tree parse and walk, "
                           "tree → String) (`candor-bench-workloads.jar jackson`)",
                "lucene": "Lucene 9.12: indexing 10,000 generated documents (English analyzer) into a ByteBuffersDirectory, "
                          "force-merge, 3,000 queries (term, boolean, phrase, range, parsed, sorted) "
                          "(`candor-bench-workloads.jar lucene`)",
                "regex": "java.util.regex pipeline over 20,000 generated log lines, 4 rounds: split, parse with named "
                         "groups, key=value extraction, e-mail/IP masking with replaceAll, word counting "
                         "(`candor-bench-workloads.jar regex`)",
                }.get(wl, wl)
        if raw["args"].get("lib_args", {}).get(wl):
            desc += " with `%s`" % " ".join(raw["args"]["lib_args"][wl])
        L.append("### %s: %s" % (wl, desc))
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
        L.append("| config | wall s | wall vs none | CPU s | CPU vs none | peak RSS MB | RSS added MB | other CPUs |")
        L.append("|---|---|---|---|---|---|---|---|")
        for cfg, e in rows.items():
            name = config_label(cfg)
            if cfg == "none":
                L.append("| %s | %s [%s–%s] | | %s [%s–%s] | | %s | | %s |" % (
                    name, f3(e["wall_s"]), f3(e["wall_min"]), f3(e["wall_max"]),
                    f3(e["cpu_s"]), f3(e["cpu_min"]), f3(e["cpu_max"]), f1(e.get("rss_mb")), f2(e.get("background_cpus"))))
                continue
            L.append("| %s | %s [%s–%s] | %s [%s … %s] | %s [%s–%s] | %s [%s … %s] | %s | %s | %s |" % (
                name, f3(e["wall_s"]), f3(e["wall_min"]), f3(e["wall_max"]),
                pct(e["wall_ratio"]), pct(e["wall_ratio_min"]), pct(e["wall_ratio_max"]),
                f3(e["cpu_s"]), f3(e["cpu_min"]), f3(e["cpu_max"]),
                pct(e["cpu_ratio"]), pct(e["cpu_ratio_min"]), pct(e["cpu_ratio_max"]),
                f1(e.get("rss_mb")), "%+.1f" % e["rss_added_mb"] if e.get("rss_added_mb") is not None else "–",
                f2(e.get("background_cpus"))))
        selfs = [(cfg, e) for cfg, e in rows.items() if e.get("self_elapsed_s") is not None]
        if selfs:
            L.append("")
            L.append("The workload's own figures (median; JVM start-up and exit excluded): elapsed s / process CPU s / "
                     "main-thread CPU s: " + "; ".join("%s %s / %s / %s" % (
                         config_label(c), f2(e["self_elapsed_s"]), f2(e["self_cpu_s"]), f2(e["self_thread_cpu_s"]))
                         for c, e in selfs) + ". The difference between process and main-thread CPU is mostly the "
                     "JIT compiling the library's code (and GC).")
        L.append("")
        L.append("What each profiler sampled, and what one sample cost (samples: candor's ticks, async-profiler's "
                 "samples in its collapsed output, JFR's ExecutionSample or CPUTimeSample events):")
        L.append("")
        L.append("| config | samples | samples / process CPU-s (requested) | Java stacks | dropped | latency p50 / p99 µs "
                 "| handler µs | extra CPU s | cost / sample µs | paired µs | floor µs | cost / floor |")
        L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for cfg, e in rows.items():
            if cfg == "none":
                continue
            L.append("| %s | %s | %s (%s) | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                config_label(cfg),
                "%d" % e["ticks"] if e.get("ticks") is not None else "–",
                "%.0f" % e["samples_per_process_cpu_s"] if e.get("samples_per_process_cpu_s") is not None else "–",
                "%.0f" % e["requested_per_cpu_s"] if e.get("requested_per_cpu_s") else "–",
                "%.1f%%" % (e["java_share"] * 100) if e.get("java_share") is not None else "not exposed",
                "%d" % e["dropped"] if e.get("dropped") is not None else "not exposed",
                "%s / %s" % (f1(e.get("latency_p50_us")), f1(e.get("latency_p99_us"))) if e.get("latency_p50_us") is not None
                else "not measured",
                f1(e.get("handler_us")) if e.get("handler_us") is not None else "–",
                f3(e.get("extra_cpu_s")), f1(e.get("us_per_sample")), f1(e.get("paired_us_per_sample")),
                f1(e.get("floor_us")), "%.2f×" % e["cost_over_floor"] if e.get("cost_over_floor") else "–"))
        jvm = [(cfg, e["jvm_thread_samples"]) for cfg, e in rows.items() if e.get("jvm_thread_samples")]
        if jvm:
            L.append("")
            L.append("async-profiler samples every thread of the process; its samples on threads that never showed a "
                     "Java frame (JIT compilers, GC; candor samples Java threads only unless `allthreads`) are counted "
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

    # memory
    L.append("## Agent memory: 1-minute recordings of the library workloads")
    L.append("")
    mem = s.get("memory") or {}
    if mem:
        L.append("Each run loops its work for %s s (`candor-bench-workloads.jar NAME --seconds %s`; `lib` runs h2, "
                 "jackson, lucene and regex in turn in one JVM), %d round(s), no warm-up, after the overhead loop. "
                 "The Java heap is fixed and pre-touched (`-XX:+AlwaysPreTouch` on top of the JVM options above), so "
                 "that the heap's own growth does not drown the profiler's memory: *added* is what the profiler (and "
                 "any JIT or class metadata it causes) adds outside a 1 GiB heap that is resident in every run. Peak RSS "
                 "is `ru_maxrss` (VmHWM); *at 10 s* and *at the end* are VmRSS polled once a second; *peak rise in the "
                 "last second* is the final peak minus the VmHWM of the last poll: memory taken while the JVM exits "
                 "(a profiler writing its output). A single run per config: read differences of a few MB as noise." % (
                     raw["args"].get("memory_seconds", 60), raw["args"].get("memory_seconds", 60),
                     raw["args"].get("memory_reps", 1)))
        L.append("")
        for wl, rows in mem.items():
            L.append("### %s" % wl.replace("memory-", ""))
            L.append("")
            L.append("| config | peak RSS MB | added MB (peak) | RSS at 10 s MB | RSS at the end MB | added at the end MB "
                     "| peak rise in the last second MB | samples | Java stacks | loops of work | wall s | CPU s |")
            L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
            for cfg, e in rows.items():
                L.append("| %s | %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    config_label(cfg), f1(e["rss_mb"]),
                    " [%s–%s]" % (f1(e["rss_min_mb"]), f1(e["rss_max_mb"])) if e["n"] > 1 else "",
                    "**%+.1f**" % e["added_mb"] if cfg == "1ms" and e.get("added_mb") is not None else (
                        "%+.1f" % e["added_mb"] if e.get("added_mb") is not None else ""),
                    f1(e.get("rss_10s_mb")), f1(e.get("rss_end_mb")),
                    "%+.1f" % e["added_end_mb"] if e.get("added_end_mb") is not None else "",
                    f1(e.get("exit_rise_mb")),
                    fmtn(e.get("samples")) if cfg != "none" else "",
                    "%.2f%%" % (e["java_share"] * 100) if e.get("java_share") is not None else "",
                    fmtn(e.get("loops")), f1(e.get("wall_s")), f1(e.get("cpu_s"))))
            L.append("")
    else:
        L.append("not measured (`--skip memory`, or `--quick`)")
        L.append("")

    # floor
    L.append("## Platform floor (bench/floor/floor.c, same loop)")
    L.append("")
    L.append("A C busy loop doing fixed work (%s iterations, 1 thread) with a perf_event_open cpu-clock event on "
             "itself, signalled with F_SETOWN_EX/F_SETSIG and an empty handler that only counts." % raw["args"]["floor_work"])
    L.append("")
    L.append("| interval | CPU s [min–max] | signals | extra CPU s | µs / signal | paired µs | overhead | other CPUs |")
    L.append("|---|---|---|---|---|---|---|---|")
    for cfg, e in s["floor"].items():
        label = {"none": "no perf event"}.get(cfg, cfg)
        if cfg.endswith(NOSIG):
            label = "%s, timer only (no signal)" % cfg[:-len(NOSIG)]
        L.append("| %s | %s [%s–%s] | %s | %s | %s | %s | %s | %s |" % (
            label, f3(e["cpu_s"]), f3(e["cpu_min"]), f3(e["cpu_max"]),
            "%d" % e["signals"] if e.get("signals") is not None else "–", f3(e.get("extra_cpu_s")),
            f1(e.get("us_per_signal")), f1(e.get("paired_us_per_signal")),
            "%+.2f%%" % e["overhead_pct"] if e.get("overhead_pct") is not None else "", f2(e.get("background_cpus"))))
    if any(c.endswith(NOSIG) for c in s["floor"]):
        L.append("")
        L.append("The timer-only row runs the same perf counter without F_SETOWN_EX/F_SETSIG/O_ASYNC: its \"signals\" "
                 "column counts elapsed periods instead. The difference between it and the signalled row at the same "
                 "interval is what delivering the signal (not the timer interrupt) costs.")
    L.append("")

    # start-up
    L.append("## Start-up cost")
    L.append("")
    if st:
        L.append("A trivial Hello (`java -cp candor-bench-workloads.jar dev.candor.bench.Main hello`) with and without "
                 "`-agentpath:libcandor.so=start` (which also writes the default `candor-PID.html` at exit), "
                 "median of %d alternating runs." % st["n"])
        L.append("")
        L.append("| | CPU s | wall s |")
        L.append("|---|---|---|")
        L.append("| no agent | %s | %s |" % (f3(st["none_cpu_s"]), f3(st["none_wall_s"])))
        L.append("| `=start` | %s | %s |" % (f3(st["start_cpu_s"]), f3(st["start_wall_s"])))
        L.append("| **cost** | **%s** | %s |" % (f3(st["cost_cpu_s"]), f3(st["cost_wall_s"])))
    else:
        L.append("not measured")
    L.append("")

    # class loading
    L.append("## Class-loading-heavy start-up (jmethodID preloading)")
    L.append("")
    c = s.get("classload")
    if c:
        L.append("`candor-bench-workloads.jar classload`: defines 4,000 generated classes of 10 methods through custom "
                 "class loaders, initializes them, then loads and links 3,000 `java.base` classes, and exits. Median of "
                 "%d alternating runs; [min–max]; *paired* is the median of each round's own difference." % c["n"])
        L.append("")
        L.append("| config | CPU s [min–max] | extra CPU s | paired extra CPU s | wall s |")
        L.append("|---|---|---|---|---|")
        names = {"none": "no agent", "10ms": "candor `start,interval=10ms` (collapsed output)",
                 "loaded": "candor loaded, not started (JVMTI events + preloading, no sampling)",
                 "dns": "no agent, `-XX:+DebugNonSafepoints` (which candor turns on)"}
        for cfg, e in c["configs"].items():
            L.append("| %s | %s [%s–%s] | %s | %s | %s |" % (
                names.get(cfg, cfg), f3(e["cpu_s"]), f3(e["cpu_min"]), f3(e["cpu_max"]),
                "" if cfg == "none" else "%s (%+.1f%%)" % (f3(e["extra_cpu_s"]), e["extra_cpu_s"] / c["none_cpu_s"] * 100),
                "" if cfg == "none" else f3(e["paired_extra_cpu_s"]), f3(e["wall_s"])))
        L.append("")
        L.append("From the agent's stats (medians): ")
        L.append("")
        L.append("| figure | value |")
        L.append("|---|---|")
        L.append("| `preload_ns` (GetLoadedClasses at VMInit) | %s ms for %s classes (%s µs/class) |" % (
            fmt_ms(c.get("preload_ns")), fmtn(c.get("classes_preloaded")), f1(c.get("us_per_preloaded_class"))))
        L.append("| `class_prepare_ns` (GetClassMethods in ClassPrepare) | %s ms for %s classes (%s µs/class) |" % (
            fmt_ms(c.get("class_prepare_ns")), fmtn(c.get("classes_prepared")), f1(c.get("us_per_prepared_class"))))
        L.append("| ticks during the run | %s |" % fmtn(c.get("ticks")))
        if c.get("preload_ns") is not None and c.get("class_prepare_ns") is not None and c["extra_cpu_s"] > 0:
            L.append("| preloading as a share of the extra CPU | %.0f%% |" % (
                (c["preload_ns"] + c["class_prepare_ns"]) / 1e9 / c["extra_cpu_s"] * 100))
    else:
        L.append("not measured")
    L.append("")

    mt = s.get("manythreads")
    L.append("## Wall sampler with 500 idle threads (issue 6)")
    L.append("")
    if mt:
        L.append("`dev.candor.itest.workload.ManyThreads 500 2 5` (500 threads parked on a latch, 2 busy, 5 s) with "
                 "`start,event=wall,interval=20ms,wallthreads=16`; %d runs, medians of the stats JSON `sampler` "
                 "figures (running threads summed over the runs)." % mt["n"])
        L.append("")
        L.append("| figure | value |")
        L.append("|---|---|")
        L.append("| sampler CPU per tick (`tick_cpu`) p50 / p99 / max | %s / %s / %s µs |" % (
            f1(mt["tick_cpu_p50_us"]), f1(mt["tick_cpu_p99_us"]), f1(mt["tick_cpu_max_us"])))
        L.append("| sampler CPU as a share of one CPU at 50 ticks/s | %.2f%% |" % (mt["tick_cpu_p50_us"] * 50 / 1e6 * 100))
        L.append("| running threads sampled / seen (`running_sampled` / `running_seen`) | %s / %s (%.1f%%) |" % (
            fmtn(mt["running_sampled"]), fmtn(mt["running_seen"]),
            100.0 * mt["running_sampled"] / mt["running_seen"] if mt["running_seen"] else 0))
        L.append("| ticks (missed) | %s (%s) |" % (fmtn(mt["ticks"]), fmtn(mt["missed_ticks"])))
        L.append("| tick rate effective / requested | %s / %s per s |" % (f1(mt["effective_rate"]), f1(mt["requested_rate"])))
        L.append("| threads considered per tick (max) | %s |" % fmtn(mt["candidates_max"]))
        L.append("| signals sent / samples repeated without a signal (per run) | %s / %s |" % (
            fmtn(mt["signals_sent"]), fmtn(mt["repeated_without_signal"])))
    else:
        L.append("not measured")
    L.append("")

    L.append("## Anomalies")
    L.append("")
    if raw["anomalies"]:
        for a in raw["anomalies"]:
            L.append("- " + a.replace("\n", " ").replace("|", "\\|"))
    else:
        L.append("None: every JVM exited 0, every stats file had `ticks = recorded + dropped + Σ failures`, the "
                 "cpu engine at the requested interval, within 20% of the requested samples per CPU-second.")
    L.append("")
    return "\n".join(L)


def fmtn(x):
    return "–" if x is None else "{:,}".format(int(x))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(REPO, "build"), help="directory with libcandor.so and candor-demo.jar")
    ap.add_argument("--quick", action="store_true",
                    help="3 rounds, cpu-mix only, at 1 ms and 100 us; writes bench/out/RESULTS-quick.md")
    ap.add_argument("--jdk", help="JDK home or java binary (default: %s)" % DEFAULT_JAVA)
    ap.add_argument("--reps", type=int, help="measured rounds after the warm-up (default 5, quick 3)")
    ap.add_argument("--startup-reps", type=int, help="hello rounds (default 10, quick 3)")
    ap.add_argument("--classload-reps", type=int, help="class-loading rounds (default 7, quick 3)")
    ap.add_argument("--results", help="markdown output (default bench/results/RESULTS.md, quick: bench/out/RESULTS-quick.md)")
    ap.add_argument("--jvm-opt", action="append", default=None,
                    help="JVM option for every run, may repeat (default: -Xms1g -Xmx1g)")
    ap.add_argument("--demo-args", default="--orders 1500000",
                    help="arguments of the demo jar (space-separated; default: a fixed 1.5 million orders, ~4 s)")
    ap.add_argument("--cpu-args", default="", help="arguments of the cpu workload, e.g. '--rounds 48'")
    ap.add_argument("--no-demo", action="store_true", help="skip the demo workload")
    ap.add_argument("--no-threaded", action="store_true", help="skip the server, shortthreads and deepstack workloads")
    ap.add_argument("--no-lib", action="store_true", help="skip the library workloads (h2, jackson, lucene, regex) "
                                                          "in the overhead loop")
    ap.add_argument("--lib-args", action="append", default=[], metavar="NAME=ARGS",
                    help="arguments of one library workload, may repeat, e.g. 'lucene=--docs 5000 --queries 1000'")
    ap.add_argument("--memory-seconds", type=int, default=60, help="length of each memory-phase run, s (default 60)")
    ap.add_argument("--memory-reps", type=int, default=1, help="rounds of the memory phase (default 1)")
    ap.add_argument("--memory-configs", help="configs of the memory phase (default: %s)" % ",".join(MEMORY_CONFIGS))
    ap.add_argument("--memory-workloads", default="lib",
                    help="lib (default: one JVM running the four library workloads in turn), each (one run per "
                         "library workload), or a comma-separated list of them")
    ap.add_argument("--configs", help="comma-separated configs of the overhead loop (default: all; quick: a subset); "
                                      "none, 10ms, 1ms, 100us (candor cpu), " + ", ".join(PEERS))
    ap.add_argument("--skip", default="", help="comma-separated phases to skip: startup, classload, manythreads, "
                                               "memory (the memory phase never runs with --quick)")
    ap.add_argument("--floor-work", type=int, default=1_500_000_000, help="floor loop iterations (~2.7 s here)")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--quiet-cpus", type=float, default=0.3,
                    help="before each run, wait while other processes use more CPUs than this (default 0.3)")
    ap.add_argument("--quiet-wait", type=float, default=20,
                    help="longest wait for a quiet machine before one run, s (default 20; 0: never wait)")
    ap.add_argument("--quiet-budget", type=float, default=None,
                    help="total waiting allowed over the whole bench, s (default 120, quick 30)")
    ap.add_argument("--render", metavar="RAW_JSON",
                    help="only rewrite the markdown from a raw bench/out/bench-*.json (no runs)")
    args = ap.parse_args()
    if args.render:
        with open(args.render) as f:
            raw = json.load(f)
        summary = summarize(raw["runs"], [w["name"] for w in raw["workloads"]], raw["summary_configs"]
                            if "summary_configs" in raw else raw["configs"] + list(
                                {r["config"] for r in raw["runs"] if r["config"].endswith(NOSIG)}))
        raw["summary"] = summary
        results = args.results or (os.path.join(OUT, "RESULTS-quick.md") if raw["mode"] == "quick"
                                   else os.path.join(BENCH, "results", "RESULTS.md"))
        raw["labels"] = {c: config_label(c) for c in (raw["summary_configs"] if "summary_configs" in raw else raw["configs"])}
        tmp = os.path.join(OUT, "render-tmp.json")
        with open(tmp, "w") as f:
            json.dump(raw, f)
        raw["charts"] = make_charts(tmp, chart_dir(results))
        with open(results, "w") as f:
            f.write(render_markdown(raw, summary, os.path.relpath(os.path.abspath(args.render), REPO), results))
        log("wrote %s" % os.path.relpath(results, REPO))
        return
    global GATE
    GATE = QuietGate(args.quiet_cpus, args.quiet_wait,
                     args.quiet_budget if args.quiet_budget is not None else (30 if args.quick else 120))
    if args.jvm_opt is None:
        args.jvm_opt = ["-Xms1g", "-Xmx1g"]
    args.demo_args = args.demo_args.split()
    args.cpu_args = args.cpu_args.split()
    lib_args = {}
    for x in args.lib_args:
        name, _, rest = x.partition("=")
        if name not in LIB_WORKLOADS:
            ap.error("--lib-args: %r is not one of %s" % (name, ", ".join(LIB_WORKLOADS)))
        lib_args[name] = rest.split()
    args.lib_args = lib_args
    Bench(args).main()


if __name__ == "__main__":
    main()

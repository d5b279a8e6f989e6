"""Running child processes and measuring them: wall and CPU time from wait4, the CPU the rest of the
machine used meanwhile, the quiet gate that waits for a calmer machine, private copies of the build
products under test. Everything the bench measures goes through run_measured.
"""

import hashlib
import os
import shutil
import subprocess
import threading
import time
import types

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(BENCH)
OUT = os.path.join(BENCH, "out")
WORKLOADS_DIR = os.path.join(BENCH, "workloads")
WORKLOADS_JAR = os.path.join(WORKLOADS_DIR, "target", "candor-bench-workloads.jar")
JDKS = {"17": "/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "25": "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"}
DEFAULT_JAVA = JDKS["17"]


def log(msg):
    print(msg, flush=True)


def child_env():
    env = dict(os.environ)
    for k in ("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS"):
        env.pop(k, None)
    return env


def read_cpu_ticks():
    """(busy, total, steal) clock ticks of all CPUs from /proc/stat, or None. Busy is what this guest ran
    (user, nice, system, irq, softirq); steal, the time the hypervisor gave its vCPUs to others, is apart."""
    try:
        with open("/proc/stat") as f:
            vals = [int(x) for x in f.readline().split()[1:9]]  # user nice system idle iowait irq softirq steal
    except (OSError, ValueError):
        return None
    total = sum(vals)
    return total - vals[3] - vals[4] - vals[7], total, vals[7]


def stolen_share(r):
    """The share of the machine's CPUs the hypervisor took during run r (0 when unknown)."""
    cpus = os.cpu_count() or 1
    return (r.get("steal_s") or 0) / (cpus * r["wall_s"]) if r.get("wall_s") else 0.0


def background_cpus(window_s):
    """How many CPUs other processes, or the hypervisor (steal), keep busy, sampled over window_s seconds:
    the quiet gate waits for both."""
    a = read_cpu_ticks()
    time.sleep(window_s)
    b = read_cpu_ticks()
    if a is None or b is None or b[1] == a[1]:
        return 0.0
    return (b[0] + b[2] - a[0] - a[2]) / (b[1] - a[1]) * (os.cpu_count() or 1)


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

    def describe(self):
        return {"threshold_cpus": self.threshold, "max_wait_s": self.max_wait_s, "budget_s": self.budget_s,
                "waited_s": self.waited_s, "timeouts": self.timeouts}


NO_GATE = QuietGate(0.0, 0, 0)

# The rusage of a child that someone else reaped (run_measured): nothing measured.
NO_RUSAGE = types.SimpleNamespace(ru_utime=0.0, ru_stime=0.0, ru_maxrss=0, ru_nvcsw=0, ru_nivcsw=0)


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


def run_measured(cmd, log_path, gate=NO_GATE, cwd=None, timeout=600, rss_series=False, during=None):
    """Runs cmd; returns wall and CPU (user+sys of the child from wait4) in seconds, and how much
    CPU the rest of the machine used meanwhile (background_cpus: average number of busy CPUs).
    rss_series: also poll the child's VmRSS/VmHWM once a second (r["rss_series"]).
    during(proc, log_file): called while the child runs (e.g. to load a server); its dict is merged
    into the result. The child's output goes to log_path (during may write there too)."""
    gate_bg = gate.wait()
    load = os.getloadavg()[0]
    ticks0 = read_cpu_ticks()
    extra = {}
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
            if during:
                extra = during(p, out)
            try:
                _, status, ru = os.wait4(p.pid, 0)
            except ChildProcessError:
                # `during` polled a child that exited early (a server that never listened) and so reaped it:
                # its exit code is known, its rusage is gone; the caller reports the exit, not a traceback
                status, ru = None, NO_RUSAGE
        finally:
            killer.cancel()
            stop.set()
        wall = time.monotonic() - t0
        if poller:
            poller.join()
    if status is not None:
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
    r.update(extra or {})
    return r


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


# ---------------------------------------------------------------------------------------------
# what is measured: private copies of the build products, the floor program, the JDK


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
    dst = os.path.join(OUT, "snapshot", name)
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(path, dst)
    return dst


def resolve_java(jdk):
    if jdk is None:
        return DEFAULT_JAVA
    if jdk in JDKS:
        return JDKS[jdk]
    if os.path.isdir(jdk):
        return os.path.join(jdk, "bin", "java")
    return jdk

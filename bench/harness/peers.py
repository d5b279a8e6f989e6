"""How each kind of configuration profiles a JVM: the JVM options of candor, async-profiler and JFR
for one run, and the readers of what each wrote (candor's stats JSON, async-profiler's collapsed
output, `jfr summary` of a recording)."""

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

from . import configs, procs, profiles
from .procs import OUT


def read_stats(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def fetch_async_profiler():
    """libasyncProfiler.so for linux-x64 from the tools.profiler:async-profiler jar on Maven Central
    (as bench/accuracy does): the local Maven repository first, else `mvn dependency:get`."""
    v = configs.AP_VERSION
    jar = os.path.expanduser("~/.m2/repository/tools/profiler/async-profiler/%s/async-profiler-%s.jar" % (v, v))
    if not os.path.exists(jar):
        subprocess.run(["mvn", "-B", "-q", "dependency:get", "-Dartifact=tools.profiler:async-profiler:%s" % v],
                       check=False)
    if not os.path.exists(jar):
        return None
    with zipfile.ZipFile(jar) as z:
        data = z.read("linux-x64/libasyncProfiler.so")
    d = os.path.join(OUT, "async-profiler")
    os.makedirs(d, exist_ok=True)
    so = os.path.join(d, "libasyncProfiler-%s.so" % v)
    with open(so + ".tmp", "wb") as f:
        f.write(data)
    os.chmod(so + ".tmp", 0o755)
    os.replace(so + ".tmp", so)
    return so


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


def jfc_for(java, cfg):
    """The settings= of a JFR config: the JDK's own profile, or a copy changed as PEERS says."""
    p = configs.PEERS[cfg]
    if not (p.get("period") or p.get("cputime")):
        return "profile"
    return make_jfc(java, cfg, p.get("period"), p.get("cputime"))


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


def read_jfr(java, path, cputime):
    """What a JFR config sampled: its sample event's count, and for CPUTimeSample the samples it lost."""
    c = jfr_counts(java, path)
    ev = "jdk.CPUTimeSample" if cputime else "jdk.ExecutionSample"
    if c is None:
        return None
    peer = {"samples": c.get(ev, 0), "java": c.get(ev, 0), "event": ev,
            "native_samples": c.get("jdk.NativeMethodSample", 0),
            "lost_events": c.get("jdk.CPUTimeSamplesLost") if cputime else None}
    if cputime and c.get("jdk.CPUTimeSamplesLost"):
        jfr = os.path.join(os.path.dirname(java), "jfr")
        txt = subprocess.run([jfr, "print", "--events", "jdk.CPUTimeSamplesLost", path],
                             capture_output=True, text=True).stdout
        peer["dropped"] = sum(int(x) for x in re.findall(r"lostSamples = (\d+)", txt))
    return peer


class Profilers:
    """The profilers of one bench run: candor's library, async-profiler's, the JDK with its JFR settings.
    args(cfg, ...) gives a config's JVM options for one run and a reader that puts what the profiler
    wrote into the run's record (r["stats"]: candor's stats JSON; r["peer"]: a peer's sample counts;
    r["profile"]: the path of the profile it wrote)."""

    def __init__(self, java, lib, ap_lib=None, jfcs=None):
        self.java = java
        self.lib = lib
        self.ap_lib = ap_lib
        self.jfcs = jfcs or {}

    def agent_arg(self, options):
        return "-agentpath:%s=%s" % (self.lib, options)

    def candor_options(self, cfg, collapsed, stats):
        walk = configs.candor_walk(cfg)
        opts = "start,event=%s,interval=%s,file=%s,stats=%s,quiet" % (
            configs.VARIANT_EVENT.get(walk, "cpu"), configs.candor_interval(cfg), collapsed, stats)
        if walk == "jfr":  # its file beside the collapsed one
            opts += ",file=" + os.path.splitext(collapsed)[0] + ".jfr"
        elif walk:
            opts += "," + configs.VARIANT_OPTIONS.get(walk, "walk=" + walk)
        return opts

    def args(self, cfg, base, collapsed=None, stats=None):
        """JVM options and reader of config cfg; a peer (candor wall too) writes to base + its extension,
        candor cpu to collapsed (default base.collapsed) with its stats JSON in stats (default base.json)."""
        k = configs.kind(cfg)
        if k == "none":
            return [], None
        if k in ("candor", "candor-wall"):
            if k == "candor-wall" or not collapsed:
                collapsed = base + ".collapsed"
            if k == "candor-wall" or not stats:
                stats = base + ".json"
            remove(stats)
            opts = self.candor_options(cfg, collapsed, stats) if k == "candor" else \
                "start,event=wall,interval=20ms,file=%s,stats=%s,quiet" % (collapsed, stats)
            return [self.agent_arg(opts)], lambda r: r.update(stats=read_stats(stats), profile=collapsed)
        p = configs.PEERS[cfg]
        if k == "ap" and p.get("alloc"):
            out = remove(base + ".jfr")
            opts = "start,event=%s,interval=%s,alloc=%s,lock=%s,jfr,file=%s" % (
                p["event"], p["interval"], p["alloc"], p["lock"], out)
            return ["-agentpath:%s=%s" % (self.ap_lib, opts)], \
                lambda r: r.update(peer=dict(read_jfr(self.java, out, False) or {}, java_thread_samples=None))
        if k == "ap":
            out = remove(base + ".collapsed")
            opts = "start,event=%s,interval=%s,collapsed,ann,threads,file=%s" % (p["event"], p["interval"], out)
            if p.get("cstack"):
                opts += ",cstack=" + p["cstack"]
            return ["-agentpath:%s=%s" % (self.ap_lib, opts)], \
                lambda r: r.update(peer=profiles.count_collapsed(out), profile=out)
        out = remove(base + ".jfr")
        return ["-XX:StartFlightRecording=settings=%s,filename=%s" % (self.jfcs[cfg], out),
                "-Xlog:jfr+startup=warning"], \
            lambda r: r.update(peer=read_jfr(self.java, out, p.get("cputime")), profile=out)


def remove(path):
    if os.path.exists(path):
        os.remove(path)
    return path

def sampled(r):
    """What a run's profiler counted, for the progress lines."""
    s, pr = r.get("stats") or {}, r.get("peer") or {}
    return ("  ticks %d recorded %d" % (s.get("ticks", 0), s.get("recorded", 0)) if s else "") + (
        "  samples %d java %d" % (pr.get("samples", 0), pr.get("java", 0)) if pr else "")


def server_tools(script, build):
    """What the server scripts beside the bench need, or exit naming what is missing: wrk, candor's agent and
    CLI jar in `build`, async-profiler's library, and the workloads jar (built if absent)."""
    wrk, lib, cli = shutil.which("wrk"), os.path.join(build, "libcandor.so"), os.path.join(build, "candor.jar")
    if not wrk:
        sys.exit("%s: wrk not found (Debian package wrk; `make deps` installs it)" % script)
    if not (os.path.exists(lib) and os.path.exists(cli)):
        sys.exit("%s: %s or %s missing; run `make agent tools` first" % (script, lib, cli))
    ap_lib = fetch_async_profiler()
    if not ap_lib:
        sys.exit("%s: async-profiler not found (tools.profiler:async-profiler on Maven Central)" % script)
    if not os.path.exists(procs.WORKLOADS_JAR):
        subprocess.run(["mvn", "-B", "-q", "-f", os.path.join(procs.WORKLOADS_DIR, "pom.xml"), "package"], check=True)
    return wrk, lib, cli, ap_lib

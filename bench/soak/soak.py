#!/usr/bin/env python3
"""Soak: does the agent's memory stay flat over a long run with loop= (issue 17, item 1)?

Two JVMs run the library workloads (H2, Jackson, Lucene, regex in turn: thousands of distinct
stacks, generated classes of H2 and Jackson) side by side for --seconds: one profiled by candor at 100 us with loop=10s and every
output (.jfr, .html with its timeline, .collapsed, stats), one without a profiler. Every 10 s the
script reads both JVMs' RSS; the agent's share is the difference. The target: from the end of the
second interval on, that difference grows by at most 5 MB. Writes bench/results/RESULTS-soak.md
and a chart, bench/results/soak-rss.svg (no plotting library needed).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from harness import machine  # noqa: E402

JAVA = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
TARGET_MB = 5.0


def rss_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def svg(points, path):
    """A line chart of (seconds, agent MB, baseline MB, difference MB)."""
    w, h, pad = 720, 320, 44
    tmax = max(p[0] for p in points) or 1
    vmax = max(max(p[1], p[2]) for p in points) * 1.1 or 1
    x = lambda t: pad + (w - 2 * pad) * t / tmax
    y = lambda v: h - pad - (h - 2 * pad) * v / vmax
    def line(i, color):
        return '<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (
            color, " ".join("%.1f,%.1f" % (x(p[0]), y(p[i])) for p in points))
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (w, h),
             '<rect width="100%" height="100%" fill="white"/>',
             '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>' % (pad, h - pad, w - pad, h - pad),
             '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>' % (pad, pad, pad, h - pad),
             line(1, "#d9480f"), line(2, "#1864ab"), line(3, "#2b8a3e"),
             '<text x="%d" y="%d">RSS, MB (orange: with candor, blue: without, green: the difference)</text>' % (pad, pad - 14),
             '<text x="%d" y="%d">%.0f s</text>' % (w - pad - 20, h - pad + 16, tmax),
             '<text x="%d" y="%d">%.0f</text>' % (4, pad + 4, vmax),
             '<text x="%d" y="%d">0</text>' % (30, h - pad)]
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def memory_table(out_dir):
    """What the agent's stats say its memory holds, interval by interval (the stats' memory block)."""
    files = sorted(f for f in os.listdir(out_dir) if f.startswith("s-") and f.endswith(".json"))
    if not files:
        return []
    mb = lambda v: "%.1f" % (v / 1048576.0)
    rows = ["", "## Where the agent's memory is", "",
            "Each interval's `memory` block (the stats of every rotated interval; MB unless named): the sample"
            " ring and spill buffers resident (of mapped), the interval's trace store, the names of methods and"
            " frames (with how many methods), the symbol tables of native libraries and the kernel, the JFR"
            " recorder's buffer; their sum, and the process RSS as the agent saw it.", "",
            "| interval | ring | spill | store | names | methods | symbols | JFR buffer | accounted | process RSS | malloc in use (free) |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for i, f in enumerate(files):
        try:
            with open(os.path.join(out_dir, f)) as fh:
                m = json.load(fh).get("memory", {})
        except (OSError, ValueError):
            continue
        rows.append("| %d | %s of %s | %s of %s | %s | %s | %d | %s | %s | %s | %s | %s (%s) |" % (
            i + 1, mb(m.get("ring_resident", 0)), mb(m.get("ring_mapped", 0)), mb(m.get("spill_resident", 0)),
            mb(m.get("spill_mapped", 0)), mb(m.get("store", 0)), mb(m.get("names", 0)), m.get("methods", 0),
            mb(m.get("symbols", 0)), mb(m.get("jfr_buffer", 0)), mb(m.get("accounted", 0)),
            mb(m.get("process_rss", 0)), mb(m.get("malloc_in_use", 0)), mb(m.get("malloc_free", 0))))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seconds", type=int, default=600)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "soak"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for f in os.listdir(args.out):
        os.remove(os.path.join(args.out, f))
    jar = os.path.join(ROOT, "bench", "workloads", "target", "candor-bench-workloads.jar")
    if not os.path.isfile(jar):
        sys.exit("soak: build the bench workloads first (make all)")
    o = args.out
    agent = ("%s/libcandor.so=start,interval=100us,loop=10s,file=%s/s.jfr,file=%s/s.html,file=%s/s.collapsed,"
             "stats=%s/s.json,quiet" % (args.build, o, o, o, o))
    # a fixed, pre-touched heap: what RSS then adds is native memory (metaspace, code, the agent)
    work = ["-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch", "-jar", jar, "lib", "--seconds", str(args.seconds), "--churn", "50"]
    with open(os.path.join(o, "profiled.err"), "w") as e1, open(os.path.join(o, "baseline.err"), "w") as e2:
        profiled = subprocess.Popen([JAVA, "-agentpath:" + agent] + work, stdout=subprocess.DEVNULL, stderr=e1)
        baseline = subprocess.Popen([JAVA] + work, stdout=subprocess.DEVNULL, stderr=e2)
        t0 = time.time()
        points = []
        while profiled.poll() is None or baseline.poll() is None:
            time.sleep(10)
            a, b = rss_kb(profiled.pid), rss_kb(baseline.pid)
            if a is None or b is None:
                break
            t = time.time() - t0
            points.append((t, a / 1024, b / 1024, (a - b) / 1024))
            print("soak: %4.0f s  with candor %.1f MB  without %.1f MB  difference %.1f MB" % points[-1], flush=True)
        profiled.wait()
        baseline.wait()
    intervals = len([f for f in os.listdir(o) if f.startswith("s-") and f.endswith(".jfr")])
    after = [p for p in points if p[0] >= 20]  # from the end of the second interval on
    growth = (statistics.median(p[3] for p in after[-3:]) - statistics.median(p[3] for p in after[:3])) if len(after) >= 6 else None
    own = (statistics.median(p[1] for p in after[-3:]) - statistics.median(p[1] for p in after[:3])) if len(after) >= 6 else None
    # the four libraries take a while to show all their stacks: the same measure from 120 s on
    warm = [p for p in points if p[0] >= 120]
    warmGrowth = (statistics.median(p[3] for p in warm[-3:]) - statistics.median(p[3] for p in warm[:3])) if len(warm) >= 6 else None
    m = machine.describe(JAVA, os.path.join(args.build, "libcandor.so"))
    lines = ["# Soak: the agent's memory over a long run with loop=", "",
             "`python3 bench/soak/soak.py` (`make bench-soak`), %s. Machine: %s, %s CPUs; commit %s." % (
                 time.strftime("%Y-%m-%d"), m["cpu_model"], m["nproc"], m["git_commit"]), "",
             "The library workloads (H2, Jackson, Lucene, regex in turn) with class churn beside them (50 fresh"
             " classes a second, called through reflection, unloaded by a full GC every 10 s) for %d s,"
             " profiled at 100 us with loop=10s and every output (%d intervals written), beside the same workload"
             " without a profiler. RSS every 10 s; the agent's share is the difference." % (args.seconds, intervals), "",
             "| s | with candor, MB | without, MB | difference, MB |", "|---|---|---|---|"]
    lines += ["| %.0f | %.1f | %.1f | %.1f |" % p for p in points]
    verdict = "no verdict (too few points)" if growth is None else (
        "%s: the difference grew by %.1f MB from 20 s to the end (target: at most %.0f MB; medians of the first and"
        " last three readings)" % ("PASS" if growth <= TARGET_MB else "MISS", growth, TARGET_MB))
    lines += ["", verdict, "", "The profiled JVM's own RSS grew by %s MB over the same span." % (
        "–" if own is None else "%.1f" % own), "",
              "From 120 s on (every library's stacks seen at least once): the difference grew by %s MB." % (
                  "–" if warmGrowth is None else "%.1f" % warmGrowth), "", "![RSS over time](soak-rss.svg)"]
    lines += memory_table(o)
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(ROOT, "bench", "results", "RESULTS-soak.md"), "w") as f:
        f.write(text)
    if points:
        svg(points, os.path.join(ROOT, "bench", "results", "soak-rss.svg"))


if __name__ == "__main__":
    main()

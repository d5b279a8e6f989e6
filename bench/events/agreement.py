#!/usr/bin/env python3
"""Allocation and lock profiles against the truth (issue 16, "the byte-share agreement of the
three with the truth"): the known-answer workloads of the itests, each profiled by candor,
async-profiler and JFR in alternating rounds, every recording read back by `candor report`.

- AllocMix: three threads allocate 1 kB byte[]s in one method and small records in another and
  count the bytes of each with their allocated-bytes counters. Share: the byte[] method's share of
  the bytes. candor alloc=256k; async-profiler alloc=262144 (its TLAB events, as its converter
  counts them); JFR jdk.ObjectAllocationSample (profile.jfc's throttle).
- LockMix: waiters on a monitor held 30 ms and a ReentrantLock held 15 ms time every wait of at
  least 5 ms. Share: the monitor's share of the time waited. candor lock=5ms; async-profiler
  lock=5ms (a sampling interval over summed wait time, not a threshold); JFR jdk.JavaMonitorEnter
  and jdk.ThreadPark with a 5 ms threshold (every park, whatever the blocker).

Writes bench/results/RESULTS-agreement.md: per workload and profiler, the median share over the
rounds, its distance from the truth, and the recorded total against the truth's.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from harness import machine, peers  # noqa: E402

JAVA = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
CLASSES = os.path.join(ROOT, "itest", "target", "classes")
ARRAYS = "dev.candor.itest.workload.AllocMix.allocateArrays"
POINTS = "dev.candor.itest.workload.AllocMix.allocatePoints"
MONITOR = "dev.candor.itest.workload.LockMix.enterMonitor"
REENTRANT = "dev.candor.itest.workload.LockMix.lockReentrant"


def jfc(name, events, out):
    """profile.jfc with every event off except `events` (threshold 5 ms where they have one)."""
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(JAVA))), "lib", "jfr", "profile.jfc")
    text = open(src).read()

    def block(m):
        body = m.group(2)
        on = m.group(1) in events
        body = re.sub(r'(<setting name="enabled"[^>]*>)[^<]*(</setting>)', r"\g<1>%s\g<2>" % ("true" if on else "false"), body)
        if on:
            body = re.sub(r'(<setting name="threshold"[^>]*>)[^<]*(</setting>)', r"\g<1>5 ms\g<2>", body)
        return '<event name="%s">%s</event>' % (m.group(1), body)

    text = re.sub(r'<event name="([^"]+)">(.*?)</event>', block, text, flags=re.S)
    path = os.path.join(out, name + ".jfc")
    with open(path, "w") as f:
        f.write(text)
    return path


def truth(path):
    values = {}
    for line in open(path):
        if "=" in line and not line.startswith("#"):
            k, v = line.strip().split("=", 1)
            values[k] = v
    return values


def shares(build, jfr, event, a, b, out):
    collapsed = jfr[:-4] + ".collapsed"
    subprocess.run([os.path.join(build, "candor"), "report", jfr, "--event", event, "-o", collapsed], check=True,
                   stdout=subprocess.DEVNULL)
    wa = wb = 0
    for line in open(collapsed):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        frames = stack.split(";")
        if a in frames:
            wa += int(n)
        elif b in frames:
            wb += int(n)
    return (wa / (wa + wb) if wa + wb else float("nan")), wa + wb


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "agreement"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if not os.path.isdir(CLASSES):
        sys.exit("agreement: compile the itest workloads first (mvn -pl itest test-compile)")
    asprof = peers.fetch_async_profiler()
    o = args.out
    cases = {
        "alloc": ("dev.candor.itest.workload.AllocMix", ["4"], "alloc", ARRAYS, POINTS,
                  lambda t: (int(t["arrays_bytes"]) / (int(t["arrays_bytes"]) + int(t["points_bytes"])),
                             int(t["arrays_bytes"]) + int(t["points_bytes"])),
                  {"candor": "start,event=alloc,alloc=256k,quiet,file=%s",
                   "async-profiler": "start,event=alloc,alloc=262144,jfr,file=%s",
                   "JFR": ["jdk.ObjectAllocationSample"]}),
        "lock": ("dev.candor.itest.workload.LockMix", ["4", "5000000"], "lock", MONITOR, REENTRANT,
                 lambda t: (int(t["monitor_ns"]) / (int(t["monitor_ns"]) + int(t["reentrant_ns"])),
                            int(t["monitor_ns"]) + int(t["reentrant_ns"])),
                 {"candor": "start,event=lock,lock=5ms,quiet,file=%s",
                  "async-profiler": "start,event=lock,lock=5ms,jfr,file=%s",
                  "JFR": ["jdk.JavaMonitorEnter", "jdk.ThreadPark"]}),
    }
    results = {}
    for rnd in range(args.rounds):
        for case, (main, extra, event, a, b, truthOf, configs) in cases.items():
            for prof, cfg in configs.items():
                if prof == "async-profiler" and not asprof:
                    continue
                tag = "%s-%s-%d" % (case, prof.replace(" ", ""), rnd)
                jfr = os.path.join(o, tag + ".jfr")
                tfile = os.path.join(o, tag + ".truth")
                if prof == "candor":
                    opt = ["-agentpath:%s/libcandor.so=%s" % (args.build, cfg % jfr)]
                elif prof == "async-profiler":
                    opt = ["-agentpath:%s=%s" % (asprof, cfg % jfr)]
                else:
                    opt = ["-XX:StartFlightRecording=filename=%s,settings=%s" % (jfr, jfc(tag, cfg, o))]
                subprocess.run([JAVA] + opt + ["-cp", CLASSES, main, tfile] + extra, check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
                ts, ttotal = truthOf(truth(tfile))
                ps, ptotal = shares(args.build, jfr, event, a, b, o)
                results.setdefault((case, prof), []).append((ts, ps, ptotal / ttotal))
                print("agreement: round %d %s %s: truth %.1f%%, profile %.1f%%, total %.3f of the truth" % (
                    rnd + 1, case, prof, 100 * ts, 100 * ps, ptotal / ttotal), flush=True)
    m = machine.describe(JAVA, os.path.join(args.build, "libcandor.so"))
    lines = ["# Allocation and lock profiles against the truth", "",
             "`python3 bench/events/agreement.py` (part of `make bench-events`), %s; medians of %d round(s). Machine: %s,"
             " %s CPUs; commit %s. Every recording is read by `candor report --event alloc|lock`." % (
                 time.strftime("%Y-%m-%d"), args.rounds, m["cpu_model"], m["nproc"], m["git_commit"]), "",
             "| workload | profiler | truth share | profile share | distance, points | recorded total / truth |",
             "|---|---|---|---|---|---|"]
    for (case, prof), rows in results.items():
        t = statistics.median(r[0] for r in rows)
        p = statistics.median(r[1] for r in rows)
        lines.append("| %s | %s | %.1f%% | %.1f%% | %+.1f | %.3f |" % (
            "AllocMix (byte[] method's share of bytes)" if case == "alloc" else "LockMix (monitor's share of time waited)",
            prof, 100 * t, 100 * p, 100 * (p - t), statistics.median(r[2] for r in rows)))
    lines += ["", "async-profiler's alloc totals count a TLAB's size for an allocation that took a new TLAB (as its"
              " converter does); its lock= is a sampling interval, so its total is not the time waited. JFR's"
              " ObjectAllocationSample weight is the bytes since the thread's previous sample, and its"
              " ThreadPark counts every park of 5 ms or more, whatever the blocker."]
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(ROOT, "bench", "results", "RESULTS-agreement.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()

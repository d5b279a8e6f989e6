#!/usr/bin/env python3
"""What one sample of a 10,000-frame stack costs with each of candor's walkers (issue 9).

Runs `candor-bench-workloads.jar deepstack --depth 10000` (13,334 frames at the bottom: the
recursion alternates two methods) with no agent and with candor at 1 ms under walk=agct, vm and
remote, alternating, and reports medians: the extra process CPU per tick, the time candor's
handler took per tick (the agent measures it), the walk_throttled ticks and the deepest stack.
Python standard library only. Usage:
    python3 bench/deep_walk_cost.py [--build build] [--reps 5] [--jdk /usr/lib/jvm/...] [--out FILE]
"""
import argparse, json, os, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
WALKS = ["agct", "vm", "remote"]


def run(java, lib, jar, walk, out_dir, calls):
    cmd = [java, "-Xss256m", "-Xms1g", "-Xmx1g"]
    stats = os.path.join(out_dir, "deep-%s.json" % walk)
    if walk:
        cmd.append("-agentpath:%s=start,event=cpu,interval=1ms,walk=%s,quiet,file=%s,stats=%s" % (
            lib, walk, os.path.join(out_dir, "deep-%s.txt" % walk), stats))
    cmd += ["-jar", jar, "deepstack", "--depth", "10000", "--calls", str(calls)]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit("deep_walk_cost: %s exited with status %d" % (" ".join(cmd), status))
    r = {"cpu_s": ru.ru_utime + ru.ru_stime}
    if walk:
        s = json.load(open(stats))
        h = s["kinds"]["cpu"]["handler"]
        r.update(ticks=s["ticks"], handler_us=h["mean_ns"] / 1e3, handler_p99_us=h["p99_ns"] / 1e3,
                 throttled=s["failures"].get("walk_throttled", 0), deepest=s["depth"]["deepest"],
                 recorded=s["recorded"])
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "RESULTS-deep10k.md"))
    a = ap.parse_args()
    java = os.path.join(a.jdk, "bin", "java")
    lib = os.path.abspath(os.path.join(a.build, "libcandor.so"))
    jar = os.path.join(HERE, "workloads", "target", "candor-bench-workloads.jar")
    work = os.path.join(HERE, "out", "deep10k")
    os.makedirs(work, exist_ok=True)
    configs = [None] + WALKS
    runs = {c: [] for c in configs}
    t0 = time.time()
    for rep in range(a.reps + 1):  # round 0 warms up and is not counted
        for c in configs:
            r = run(java, lib, jar, c, work, a.calls)
            if rep > 0:
                runs[c].append(r)
            print("round %d %-6s cpu %.2f s %s" % (rep, c or "none", r["cpu_s"],
                  "ticks %d handler %.1f us" % (r["ticks"], r["handler_us"]) if c else ""), flush=True)
    med = lambda c, k: statistics.median(r[k] for r in runs[c])
    none = med(None, "cpu_s")
    spread = (max(r["cpu_s"] for r in runs[None]) - min(r["cpu_s"] for r in runs[None])) / 2
    ver = subprocess.run([java, "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    load = os.getloadavg()[0]
    L = ["# What a sample of a 10,000-frame stack costs, per walker",
         "",
         "Written by `bench/deep_walk_cost.py` on %s (%d s, %d rounds after a warm-up, medians; %s; load "
         "average %.2f at the end). Workload: `candor-bench-workloads.jar deepstack --depth 10000 --calls %d` "
         "(`-Xss256m`), whose stacks reach 13,334 frames; candor `event=cpu,interval=1ms` with the walker "
         "named, depth unlimited (stacks past 2,048 frames go to a spill buffer), writing the `.txt` summary (a collapsed file of these stacks runs to hundreds of MB, whose writing would swamp the sampling cost)." % (
             time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), time.time() - t0, a.reps, ver, load, a.calls),
         "",
         "*Handler* is what candor's handler took per tick by its own clock (walk=remote: the whole wait "
         "for the walker thread); *extra CPU / tick* is (process CPU − CPU without the agent) / ticks, "
         "which also holds the signal's delivery and the writer. Without the agent: %.2f s CPU (± %.2f s)." % (
             none, spread),
         "",
         "| walker | CPU s | ticks | recorded | walk_throttled | deepest | handler mean µs | handler p99 µs | extra CPU / tick µs |",
         "|---|---|---|---|---|---|---|---|---|"]
    for c in WALKS:
        ticks = med(c, "ticks")
        L.append("| %s | %.2f | %d | %d | %d | %d | %.1f | %.1f | %.1f |" % (
            c, med(c, "cpu_s"), ticks, med(c, "recorded"), med(c, "throttled"), med(c, "deepest"),
            med(c, "handler_us"), med(c, "handler_p99_us"), (med(c, "cpu_s") - none) / ticks * 1e6 if ticks else 0))
    open(a.out, "w").write("\n".join(L) + "\n")
    print("\n".join(L))


if __name__ == "__main__":
    main()

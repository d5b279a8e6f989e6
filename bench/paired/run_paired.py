#!/usr/bin/env python3
"""Cost per sample measured inside one JVM (issue 2's target, where whole-run CPU is too noisy).

Runs PairedCost.java (alternating phases with candor off and on, after a warm-up, thread CPU
time of each) at 1 ms and 100 us for the walkers asked, and the platform floor (bench/floor: an
empty handler for the same perf signal) alternately with them, then writes a markdown table with
the medians: extra CPU per tick on the sampled thread against the floor. Standard library only.
    python3 bench/paired/run_paired.py [--build build] [--rounds 3] [--pairs 8] [--out FILE]
"""
import argparse, json, os, re, statistics, subprocess, time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
INTERVALS = {"1ms": 1_000_000, "100us": 100_000}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(BENCH, "..", "build"))
    ap.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pairs", type=int, default=8)
    ap.add_argument("--work", type=int, default=10_000_000, help="iterations per phase (~1 s)")
    ap.add_argument("--walks", default="vm,agct")
    ap.add_argument("--out", default=os.path.join(BENCH, "results", "RESULTS-paired.md"))
    a = ap.parse_args()
    java = os.path.join(a.jdk, "bin", "java")
    lib = os.path.abspath(os.path.join(a.build, "libcandor.so"))
    api = os.path.abspath(os.path.join(a.build, "candor-api.jar"))
    out_dir = os.path.join(BENCH, "out")
    os.makedirs(out_dir, exist_ok=True)
    floor = os.path.join(out_dir, "floor")
    subprocess.run(["cc", "-O2", "-Wall", "-pthread", "-o", floor, os.path.join(BENCH, "floor", "floor.c")], check=True)
    walks = a.walks.split(",")
    res = {}  # (interval, walk) -> list of per-tick us; (interval, "floor") -> list of us per signal
    t0 = time.time()
    for r in range(a.rounds):
        for iv, ns in INTERVALS.items():
            base = json.loads(subprocess.run([floor, "--interval", "0", "--work", "1500000000"], capture_output=True,
                                             text=True, check=True).stdout)
            fl = json.loads(subprocess.run([floor, "--interval", str(ns), "--work", "1500000000"], capture_output=True,
                                           text=True, check=True).stdout)
            us = (fl["cpu_ns"] - base["cpu_ns"]) / 1e3 / max(1, fl["signals"])
            res.setdefault((iv, "floor"), []).append(us)
            print("round %d %s floor %.1f us per signal" % (r, iv, us), flush=True)
            for w in walks:
                opts = "event=cpu,interval=%s,walk=%s" % (iv, w)
                p = subprocess.run([java, "-agentpath:" + lib, "-cp", api, os.path.join(HERE, "PairedCost.java"),
                                    opts, str(a.pairs), str(a.work)], capture_output=True, text=True, check=True)
                line = [l for l in p.stdout.splitlines() if l.startswith("paired:")][0]
                per = float(re.search(r"extra per tick (-?[\d.]+) us", line).group(1))
                res.setdefault((iv, w), []).append(per)
                print("round %d %s %s" % (r, iv, line), flush=True)
    ver = subprocess.run([java, "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    L = ["# Cost per sample inside one JVM: candor on and off in alternating phases",
         "",
         "Written by `bench/paired/run_paired.py` on %s (%d s; %s; load average %.2f at the end). Each run of "
         "`bench/paired/PairedCost.java` warms up, then alternates %d pairs of phases of the same fixed work "
         "(~1 s each, a few frames deep) with candor stopped and started through its Java API, and takes the "
         "thread's own CPU time (ThreadMXBean) of each phase: the JIT has settled and the process is the same, "
         "so a pair differs only by candor's signals and handler on that thread (the writer thread is not "
         "counted). *Extra per tick* = median over the pairs of (on − off) / ticks; the table gives the median "
         "and range of %d such runs. The floor is `bench/floor` (an empty handler for the same perf signal), "
         "run alternately with them." % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), time.time() - t0, ver,
                                         os.getloadavg()[0], a.pairs, a.rounds),
         "",
         "| interval | walker | extra per tick µs, median [min–max] | floor µs per signal | cost / floor |",
         "|---|---|---|---|---|"]
    for iv in INTERVALS:
        fl = statistics.median(res[(iv, "floor")])
        for w in walks:
            xs = res[(iv, w)]
            m = statistics.median(xs)
            L.append("| %s | %s | %.1f [%.1f–%.1f] | %.1f [%.1f–%.1f] | %.2f× |" % (
                iv, w, m, min(xs), max(xs), fl, min(res[(iv, "floor")]), max(res[(iv, "floor")]), m / fl))
    open(a.out, "w").write("\n".join(L) + "\n")
    print("\n".join(L))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""candor and async-profiler in one JVM: the Jetty workload under paced load (as bench/server_bench.py),
profiled by both at once, so both see the same process, the same JIT decisions and async-profiler's own
cost (bench/README.md, "Two profilers in one JVM").

    python3 bench/server_coprofile.py [--reps 3] [--candor-options interval=1ms] [--warmup 20] [--seconds 30]
                                      [--alone]

candor's default per-CPU timers take no signal and keep no timer on a thread. With `percpu=no` both
profilers would put a 1 ms cpu-clock timer on every thread, started at the same switch-in: they fall due
together, and async-profiler's signal arrives inside candor's handler (tried: two thirds of its samples were
candor's handler). The script refuses that. Per run it prints `candor compare`'s overlap of
the two profiles (all ticks; recorded stacks only; and without candor's ticks that landed in async-profiler's
own code, its signal handler, which async-profiler cannot see in its own profile), and each profile's share of
samples whose leaf is the scheduler's finish_task_switch and of samples in the kernel. Against the bench's
separate runs this shows what async-profiler's timers add to the process: the switch and kernel work both
profilers then see.

With --alone every round also runs candor alone and async-profiler alone, and the script ends with the mean
overlaps of all pairs of rounds (bench/overlap/OverlapMatrix.java): each profiler alone with itself and the
two across (the server bench's comparison), and async-profiler's profile alone against its
profile beside candor (whether candor's presence changes what async-profiler sees).
"""

import argparse
import itertools
import os
import statistics
import subprocess
import sys

from harness import peers, procs, profiles, serverdrive

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)


def overlap(cli, a, b, *options):
    value, error = profiles.compare_overlap(procs.DEFAULT_JAVA, cli, a, b, *options)
    if error:
        sys.exit("server_coprofile: " + error)
    return value


def peer_symbols(lib):
    """The functions async-profiler's library defines, as candor names C++ frames (no parameters); nm comes
    with binutils, which g++ needs."""
    out = subprocess.run(["nm", "-C", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    return {line.split(" ", 2)[2].split("(")[0] for line in out.splitlines() if line.count(" ") >= 2}


def without_frames(path, symbols, dst):
    """A collapsed file without the stacks that pass through any of symbols: candor's ticks that landed in
    async-profiler's own code (its signal handler), time async-profiler cannot see in its own profile."""
    return profiles.keep_stacks(path, dst, lambda frames: not any(f in symbols for f in frames))


def share(path, key):
    s = profiles.shares(path)
    return s[key] / s["samples"] if s and s["samples"] else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(REPO, "build"), help="directory with libcandor.so and candor.jar")
    ap.add_argument("--reps", type=int, default=3, help="runs (default %(default)s)")
    ap.add_argument("--candor-options", default="interval=1ms", help="candor options besides start, event=cpu and "
                                                                      "the files (default %(default)s)")
    ap.add_argument("--warmup", type=int, default=20, help="warm-up seconds (default %(default)s)")
    ap.add_argument("--seconds", type=int, default=30, help="measured seconds (default %(default)s)")
    ap.add_argument("--work", default=os.path.join(procs.OUT, "coprofile"), help="output directory")
    ap.add_argument("--alone", action="store_true", help="in every round also run candor alone and async-profiler "
                                                         "alone, and compare the profiles across rounds")
    a = ap.parse_args()
    a.work = os.path.abspath(a.work)  # the server runs in its run's directory
    if "percpu=no" in a.candor_options:
        sys.exit("server_coprofile: with percpu=no candor's timers per thread fall due with async-profiler's, "
                 "and async-profiler samples candor's signal handler; use candor's per-CPU timers (the default "
                 "as root)")
    wrk, lib, cli, ap_lib = peers.server_tools("server_coprofile", a.build)
    symbols = peer_symbols(ap_lib)
    ap_agent = "-agentpath:%s=start,event=cpu,interval=1ms,collapsed,ann,threads,file=%%s" % ap_lib
    candor_agent = "-agentpath:%s=start,event=cpu,%s,file=%%s,quiet" % (lib, a.candor_options)
    rows = []
    for rep in range(1, a.reps + 1):
        work = os.path.join(a.work, "r%d" % rep)
        apc, cc = os.path.join(work, "ap.collapsed"), os.path.join(work, "candor.collapsed")
        run_server(work, [ap_agent % apc, candor_agent % cc], a, wrk)
        apc = profiles.for_compare(apc, os.path.join(work, "ap.compare.collapsed"))
        own = without_frames(cc, symbols, os.path.join(work, "candor.without-peer.collapsed"))
        row = (overlap(cli, apc, cc), overlap(cli, apc, cc, "--drop-failures"), overlap(cli, apc, own),
               share(apc, "switch"), share(cc, "switch"), share(apc, "kernel"), share(cc, "kernel"))
        rows.append(row)
        print("run %d: %s" % (rep, describe(row)), flush=True)
        if a.alone:
            alone = os.path.join(work, "candor-alone")
            run_server(alone, [candor_agent % os.path.join(alone, "candor.collapsed")], a, wrk)
            alone = os.path.join(work, "ap-alone")
            run_server(alone, [ap_agent % os.path.join(alone, "ap.collapsed")], a, wrk)
            profiles.for_compare(os.path.join(alone, "ap.collapsed"), os.path.join(alone, "ap.compare.collapsed"))
    print("median of %d: %s" % (len(rows), describe([statistics.median(col) for col in zip(*rows)])))
    if a.alone and a.reps >= 2:
        rounds = [os.path.join(a.work, "r%d" % rep) for rep in range(1, a.reps + 1)]
        ap_alone = [os.path.join(r, "ap-alone", "ap.compare.collapsed") for r in rounds]
        print("separate JVMs, mean overlap of all pairs: async-profiler alone with itself %.3f, candor alone with "
              "itself %.3f, across %.3f" % all_pairs(cli, ap_alone,
                                                     [os.path.join(r, "candor-alone", "candor.collapsed") for r in rounds]))
        print("async-profiler's profile alone and beside candor, mean overlap of all pairs: alone %.3f, beside "
              "candor %.3f, across %.3f" % all_pairs(cli, ap_alone,
                                                     [os.path.join(r, "ap.compare.collapsed") for r in rounds]))


def run_server(work, agents, a, wrk):
    """One server JVM with the given -agentpath options under the paced load; exits on a failed run."""
    d = serverdrive.DEFAULTS
    serverdrive.prepare(work)
    cmd = [procs.DEFAULT_JAVA, "-Xms1g", "-Xmx1g"] + agents
    cmd += serverdrive.jetty_argv(procs.WORKLOADS_JAR, work, d["threads"])

    def load(proc, _):
        with open(os.path.join(work, "wrk.log"), "wb") as out:
            return serverdrive.drive(proc, work, a.warmup, a.seconds, d["connections"], d["think_ms"], wrk, out)
    r = procs.run_measured(cmd, os.path.join(work, "server.log"), cwd=work, timeout=a.warmup + a.seconds + 300,
                           during=load)
    if r.get("error") or r["exit"] != 0:
        sys.exit("server_coprofile: %s (exit %d); log: %s" % (r.get("error", "the server failed"), r["exit"],
                                                              os.path.join(work, "server.log")))


def all_pairs(cli, first, second):
    """The mean overlaps of all pairs of rounds (bench/overlap/OverlapMatrix.java): within the first, within the
    second, across."""
    matrix, error = profiles.overlap_matrix(procs.DEFAULT_JAVA, cli, first + second)
    if error:
        sys.exit("server_coprofile: " + error)
    n = len(first)
    within = [statistics.fmean(matrix[i + k][j + k] for i, j in itertools.combinations(range(n), 2)) for k in (0, n)]
    across = statistics.fmean(matrix[i][n + j] for i in range(n) for j in range(len(second)))
    return within[0], within[1], across


def describe(row):
    return ("overlap %.3f (recorded stacks only %.3f; without candor's ticks in async-profiler's own code %.3f); "
            "finish_task_switch leaf: async-profiler %.1f%%, candor %.1f%%; kernel: async-profiler %.1f%%, "
            "candor %.1f%%" % (tuple(row[:3]) + tuple(100 * x for x in row[3:])))


if __name__ == "__main__":
    main()

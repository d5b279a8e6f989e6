#!/usr/bin/env python3
"""Does a profiler change how the JVM compiles the server? The Jetty workload under paced load (as the server
bench), profiled by candor or async-profiler either loaded at start (`-agentpath`, as the server bench does)
or attached after the warm-up (`jcmd <pid> JVMTI.agent_load`), when C2 has compiled the hot code without
any profiler present (bench/README.md, "Profilers and the JIT").

    python3 bench/server_attach.py [--reps 4] [--configs candor,ap,candor-attach,ap-attach] [--warmup 20]
                                   [--seconds 15]

`candor-thread` and `candor-thread-attach` run candor with a perf timer per thread (`percpu=no`), the timer
design async-profiler uses, so that the two profilers can also be compared like with like.

Per run it prints one marker of the code C2 made of the regex endpoint: the share of samples in a vtable
stub called from `Pattern$BmpCharPropertyGreedy.match`, present (0.5-1.2%) where C2 compiled that method's
`next.match(...)` as a megamorphic virtual call and near 0 where it inlined it (JDK 17); the share of samples
whose leaf is the scheduler's `finish_task_switch` (profiles.shares: a tick deferred while a context switch ran); and the server's CPU per request in the
measured window (its system part beside it). Then the mean overlap
of all pairs of runs (`candor compare`'s, bench/overlap/OverlapMatrix.java): each config with itself, and
candor with async-profiler when both were loaded the same way. Loaded at start, the profiles cover the whole
run (start-up and warm-up included); attached, the measured window only.
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
CONFIGS = ("candor", "ap", "candor-attach", "ap-attach", "candor-thread", "candor-thread-attach")
MARKER = ("java.util.regex.Pattern$BmpCharPropertyGreedy.match", "vtable stub")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(REPO, "build"), help="directory with libcandor.so and candor.jar")
    ap.add_argument("--reps", type=int, default=4, help="rounds (default %(default)s)")
    ap.add_argument("--configs", default=",".join(CONFIGS), help="of %s, run in this order every round "
                                                                  "(default: all)" % ", ".join(CONFIGS))
    ap.add_argument("--warmup", type=int, default=20, help="warm-up seconds (default %(default)s)")
    ap.add_argument("--seconds", type=int, default=15, help="measured seconds (default %(default)s)")
    ap.add_argument("--work", default=os.path.join(procs.OUT, "attach"), help="output directory")
    a = ap.parse_args()
    a.work = os.path.abspath(a.work)  # the server runs in its run's directory
    cfgs = a.configs.split(",")
    if not set(cfgs) <= set(CONFIGS):
        sys.exit("server_attach: --configs takes %s, not %s" % (", ".join(CONFIGS), a.configs))
    wrk, lib, cli, ap_lib = peers.server_tools("server_attach", a.build)
    agents = {"candor": (lib, "start,event=cpu,interval=1ms,file=%s,quiet"),
              "candor-thread": (lib, "start,event=cpu,interval=1ms,percpu=no,file=%s,quiet"),
              "ap": (ap_lib, "start,event=cpu,interval=1ms,collapsed,ann,threads,file=%s")}
    runs = {c: [] for c in cfgs}
    for rnd, cfg, work, out in serverdrive.alternating_runs(a.work, a.reps, cfgs):
        profiles_of = agents[cfg.removesuffix("-attach")]
        server = run_server(work, profiles_of, out, cfg.endswith("-attach"), a, wrk)
        counts = profiles.shares(out)  # of the Java threads' samples, as the server bench counts them
        if cfg.startswith("ap"):
            out = profiles.for_compare(out, os.path.join(work, "profile.compare.collapsed"))
        runs[cfg].append(out)
        print("%-20s round %d: marker %.2f%%, switch leaf %.2f%%, server CPU %.0f us per request (system %.0f)"
              % (cfg, rnd, 100 * marker_share(out), 100 * counts["switch"] / counts["samples"], server["cpu_us_per_request"],
                 1e6 * server["sys_s"] / server["requests"]), flush=True)
    summarize(cli, runs)


def run_server(work, agent, out, attach, a, wrk):
    """One server JVM under the paced load, the agent loaded at start or by jcmd after the warm-up; returns the
    server's figures of the measured window (serverdrive's result); exits on a failed run."""
    d = serverdrive.DEFAULTS
    serverdrive.prepare(work)
    lib, options = agent
    options = options % out
    cmd = [procs.DEFAULT_JAVA, "-Xms1g", "-Xmx1g"] + ([] if attach else ["-agentpath:%s=%s" % (lib, options)])
    cmd += serverdrive.jetty_argv(procs.WORKLOADS_JAR, work, d["threads"])

    def load_agent(proc):
        # jcmd splits its arguments at '=' unless the agent's options are quoted
        jcmd = os.path.join(os.path.dirname(procs.DEFAULT_JAVA), "jcmd")
        r = subprocess.run([jcmd, str(proc.pid), "JVMTI.agent_load", lib, '"%s"' % options], capture_output=True,
                           text=True, timeout=60)
        if r.returncode != 0 or "error" in r.stdout.lower():
            raise RuntimeError("jcmd JVMTI.agent_load failed: %s" % (r.stdout + r.stderr)[-300:])

    def load(proc, _):
        with open(os.path.join(work, "wrk.log"), "wb") as log:
            return serverdrive.drive(proc, work, a.warmup, a.seconds, d["connections"], d["think_ms"], wrk, log,
                                     at_mark=load_agent if attach else None)
    r = procs.run_measured(cmd, os.path.join(work, "server.log"), cwd=work, timeout=a.warmup + a.seconds + 300,
                           during=load)
    if r.get("error") or r["exit"] != 0 or not os.path.exists(out):
        sys.exit("server_attach: %s (exit %d); log: %s" % (r.get("error", "the server failed or wrote no profile"),
                                                           r["exit"], os.path.join(work, "server.log")))
    return r["server"]


def marker_share(path):
    """The share of samples whose last two frames are MARKER, in candor's names (async-profiler's annotated
    Java frames, `java/util/regex/Pattern$BmpCharPropertyGreedy.match_[j]`, read as candor names them)."""
    def name(frame):
        frame = frame.removeprefix("[stub] ")
        return profiles.JAVA_FRAME.sub("", frame).replace("/", ".") if profiles.JAVA_FRAME.search(frame) else frame
    total = hits = 0
    for frames, n in profiles.read_collapsed(path):
        total += n
        if len(frames) >= 2 and (name(frames[-2]), name(frames[-1])) == MARKER:
            hits += n
    return hits / total if total else 0.0


def summarize(cli, runs):
    print("runs with the marker (share >= 0.3%%): %s" % "; ".join(
        "%s %d of %d" % (c, sum(marker_share(f) >= 0.003 for f in runs[c]), len(runs[c])) for c in runs))
    cfgs = [c for c in runs if len(runs[c]) >= 2]
    if not cfgs:
        return  # overlaps need two runs of a config
    files = [f for c in cfgs for f in runs[c]]
    index = {f: i for i, f in enumerate(files)}
    # the second matrix leaves out candor's estimated buckets (cpu_unsampled, kernel_unsampled), as a
    # profiler that drops what it could not sample: recorded stacks only
    for label, options in (("", ()), (" (recorded stacks only, --drop-failures)", ("--drop-failures",))):
        matrix, error = profiles.overlap_matrix(procs.DEFAULT_JAVA, cli, files, *options)
        if error:
            sys.exit("server_attach: " + error)

        def mean(pairs):
            return statistics.fmean(matrix[index[x]][index[y]] for x, y in pairs)
        print("mean overlap of all pairs of runs%s: %s" % (label, "; ".join(
            "%s with itself %.3f" % (c, mean(itertools.combinations(runs[c], 2))) for c in cfgs)))
        for mine, theirs in (("candor", "ap"), ("candor-attach", "ap-attach"), ("candor-thread", "ap"),
                             ("candor-thread-attach", "ap-attach")):
            if mine in cfgs and theirs in cfgs:
                print("  %s with %s: %.3f" % (mine, theirs, mean(itertools.product(runs[mine], runs[theirs]))))


if __name__ == "__main__":
    main()

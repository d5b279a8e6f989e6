#!/usr/bin/env python3
"""Does a sampler's fixed grid bias a run of the server by its phase against the kernel's tick? The Jetty
workload of ServerAccuracyTest (50 pool threads, paced wrk on 127.0.0.1, the whole run profiled) under candor's
per-CPU timers at exactly 1 ms (`interval=1003009ns`, which the per-CPU detune turns into 1,000,000 ns) and at
their default for `interval=1ms` (997 us: 0.3% under, so that the grid keeps no phase against the 4 ms tick),
alternating, optionally beside async-profiler at 1 ms (`ap`) and candor as an unprivileged user would run it
(`unpriv`: per-thread timers, the kernel refusing its time, which the writer estimates from CPU clocks). Each run is judged as ServerAccuracyTest judges it:
the profile's shares of the four endpoints and "other" (stacks of pseudo-frames only left out) against the
server's own measure (each endpoint's thread CPU clock since start, over its Java threads' CPU).

    python3 bench/server_phase.py [--reps 6] [--configs exact,detuned] [--jdk 17] [--seconds 12]

Per run: each part's deviation (profile minus truth, points) and the distance (half the sum of the absolute
deviations). Then per config the mean and the standard deviation of the regex endpoint's deviation over the
runs, and the median distance: a grid locked to the tick shows as a larger spread, each run leaning by its phase.
"""

import argparse
import os
import statistics
import sys

from harness import configs, peers, procs, profiles, serverdrive, summary

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
PARTS = profiles.ENDPOINTS + ("other",)
CONFIGS = ("exact", "detuned", "ap", "unpriv")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(REPO, "build"), help="directory with libcandor.so and candor.jar")
    ap.add_argument("--reps", type=int, default=6, help="rounds (default %(default)s)")
    ap.add_argument("--configs", default="exact,detuned", help="of %s, in this order every round (default "
                                                               "%%(default)s)" % ", ".join(CONFIGS))
    ap.add_argument("--jdk", default="17", help="17, 25 or a JDK home (default %(default)s)")
    ap.add_argument("--seconds", type=int, default=12, help="seconds of load after 2 s of warm-up (default %(default)s)")
    ap.add_argument("--work", default=os.path.join(procs.OUT, "phase"), help="output directory")
    a = ap.parse_args()
    a.work = os.path.abspath(a.work)
    cfgs = a.configs.split(",")
    if not set(cfgs) <= set(CONFIGS):
        sys.exit("server_phase: --configs takes %s, not %s" % (", ".join(CONFIGS), a.configs))
    wrk, lib, _, ap_lib = peers.server_tools("server_phase", a.build)
    java = procs.resolve_java(a.jdk)
    agents = {"exact": (lib, "start,event=cpu,interval=1003009ns,file=%s,quiet"),
              "detuned": (lib, "start,event=cpu,interval=1ms,file=%s,quiet"),
              "unpriv": (lib, "start,event=cpu,interval=1ms,percpu=no,file=%s,quiet"),
              "ap": (ap_lib, "start,event=cpu,interval=1ms,collapsed,ann,threads,file=%s")}
    devs = {c: [] for c in cfgs}
    for rnd, cfg, work, out in serverdrive.alternating_runs(a.work, a.reps, cfgs):
        server = run_server(java, work, agents[cfg], out, a, wrk, configs.env_argv(configs.VARIANT_ENV.get(cfg, {})))
        judged = summary.endpoint_error({"endpoints": profiles.endpoint_samples(out), "server": server})
        if judged is None:
            sys.exit("server_phase: no samples by endpoint in %s" % out)
        distance, got, truth = judged
        dev = {p: 100 * (got[p] - truth[p]) for p in PARTS}
        devs[cfg].append(dev)
        print("%-8s round %d: %s; distance %.3f" % (cfg, rnd, ", ".join("%s %+.1f" % (p, dev[p]) for p in PARTS),
                                                     distance), flush=True)
    for cfg in cfgs:
        regex = [d["regex"] for d in devs[cfg]]
        dist = [sum(abs(v) for v in d.values()) / 200 for d in devs[cfg]]
        print("%-8s %d runs: regex %+.2f points on average, standard deviation %.2f; distance median %.3f [%.3f-%.3f]"
              % (cfg, len(regex), statistics.fmean(regex), statistics.stdev(regex) if len(regex) > 1 else 0.0,
                 statistics.median(dist), min(dist), max(dist)))


def run_server(java, work, agent, out, a, wrk, prefix):
    """One server JVM under the paced load, profiled from its start; the server's own account of its whole run."""
    d = serverdrive.DEFAULTS
    serverdrive.prepare(work)
    lib, options = agent
    cmd = prefix + [java, "-Xms512m", "-Xmx512m", "-agentpath:%s=%s" % (lib, options % out)]
    cmd += serverdrive.jetty_argv(procs.WORKLOADS_JAR, work, 50)

    def load(proc, _):
        with open(os.path.join(work, "wrk.log"), "wb") as log:
            return serverdrive.drive(proc, work, 2, a.seconds, d["connections"], d["think_ms"], wrk, log)
    r = procs.run_measured(cmd, os.path.join(work, "server.log"), cwd=work, timeout=a.seconds + 300, during=load)
    if r.get("error") or r["exit"] != 0 or not os.path.exists(out):
        sys.exit("server_phase: %s (exit %d); log: %s" % (r.get("error", "the server failed or wrote no profile"),
                                                          r["exit"], os.path.join(work, "server.log")))
    return r["server"]


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""candor overhead benchmark (issues 2 and 7). Python 3 standard library only.

Measures, against runs without a profiler, the wall and CPU time that candor's `cpu` engine adds at
10 ms, 1 ms and 100 us, beside async-profiler and JFR in the same alternating loop, on the demo, a
fixed-work CPU-bound mix, thread-heavy and library workloads (H2, Jackson, Lucene, regex); the CPU
cost of one sample beside the platform floor (an empty handler receiving the same perf signals,
bench/floor/floor.c, same loop); the start-up cost; what jmethodID preloading costs on a
class-loading-heavy start-up; the wall sampler on 500 idle threads; agent memory of 1-minute
recordings; a Jetty server under paced wrk load (issue 14). Writes bench/results/RESULTS.md
(bench/out/RESULTS-quick.md with --quick, bench/out/RESULTS-server.md with --server) and the raw runs
to bench/out/bench-<mode>-<time>.json.

    python3 bench/run_bench.py --build build            # full: ~35-43 min (README: durations)
    python3 bench/run_bench.py --build build --quick    # quick: ~4.5 min
    python3 bench/run_bench.py --build build --server   # the server phase alone, 3 rounds: ~11 min
    python3 bench/run_bench.py --render bench/out/bench-quick-….json --results FILE   # markdown only

The harness lives in bench/harness/: configs (what runs, as data), runner (runs it), summary (runs in,
numbers out), targets (the verdicts), render (the markdown). See bench/README.md for what each figure means.
"""

import argparse
import json
import os
import sys

from harness import configs, procs, results, serverdrive, summary
from harness.configs import DEFAULTS, NOSIG
from harness.procs import OUT, REPO, log
from harness.runner import Bench


def parse_args():
    full, quick, server = DEFAULTS["full"], DEFAULTS["quick"], DEFAULTS["server"]
    pace = serverdrive.DEFAULTS

    def both(key):
        return "default %d, quick %d" % (full[key], quick[key])

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(REPO, "build"), help="directory with libcandor.so and candor-demo.jar")
    ap.add_argument("--quick", action="store_true",
                    help="%d rounds, cpu-mix only, at 1 ms and 100 us; writes %s" % (
                        quick["reps"], os.path.relpath(results.default_results("quick"), REPO)))
    ap.add_argument("--server", action="store_true",
                    help="only the server phase, %d rounds; writes %s" % (
                        server["reps"], os.path.relpath(results.default_results("server"), REPO)))
    ap.add_argument("--jdk", help="JDK home or java binary, or 17 or 25 (default: %s)" % procs.DEFAULT_JAVA)
    ap.add_argument("--reps", type=int, help="measured rounds after the warm-up (%s, server %d)" % (
        both("reps"), server["reps"]))
    ap.add_argument("--startup-reps", type=int, help="hello rounds (%s)" % both("startup_reps"))
    ap.add_argument("--classload-reps", type=int, help="class-loading rounds (%s)" % both("classload_reps"))
    ap.add_argument("--results", help="markdown output (default %s, quick: %s)" % (
        os.path.relpath(results.default_results("full"), REPO), os.path.relpath(results.default_results("quick"), REPO)))
    ap.add_argument("--jvm-opt", action="append", default=None,
                    help="JVM option for every run, may repeat (default: %s)" % " ".join(configs.DEFAULT_JVM_OPTS))
    ap.add_argument("--demo-args", default="--orders 1500000",
                    help="arguments of the demo jar (space-separated; default: a fixed 1.5 million orders, ~4 s)")
    ap.add_argument("--cpu-args", default="", help="arguments of the cpu workload, e.g. '--rounds 48'")
    ap.add_argument("--no-demo", action="store_true", help="skip the demo workload")
    ap.add_argument("--no-threaded", action="store_true", help="skip the server, shortthreads and deepstack workloads")
    ap.add_argument("--workloads", help="comma-separated workloads of the overhead loop to run, e.g. server,shortthreads "
                    "(default: every one the other options leave in)")
    ap.add_argument("--no-lib", action="store_true", help="skip the library workloads (%s) in the overhead loop" %
                    ", ".join(configs.LIB_WORKLOADS))
    ap.add_argument("--lib-args", action="append", default=[], metavar="NAME=ARGS",
                    help="arguments of one library workload, may repeat, e.g. 'lucene=--docs 5000 --queries 1000'")
    ap.add_argument("--memory-seconds", type=int, default=60, help="length of each memory-phase run, s (default 60)")
    ap.add_argument("--memory-reps", type=int, default=1, help="rounds of the memory phase (default 1)")
    ap.add_argument("--memory-configs", help="configs of the memory phase (default: %s)" %
                    ",".join(configs.CONFIG_SETS["memory"]))
    ap.add_argument("--memory-workloads", default="lib",
                    help="lib (default: one JVM running the four library workloads in turn), each (one run per "
                         "library workload), or a comma-separated list of them")
    ap.add_argument("--configs", help="comma-separated configs of the overhead loop (default: all; quick: a subset); "
                                      "none, 10ms, 1ms, 100us (candor cpu; INTERVAL-WALK for another walker, e.g. "
                                      "100us-agct), " + ", ".join(configs.PEERS))
    ap.add_argument("--skip", default="", help="comma-separated phases to skip: overhead, startup, classload, "
                                               "manythreads, memory, server (the memory and server phases never run "
                                               "with --quick)")
    ap.add_argument("--server-configs", help="configs of the server phase (default: %s; JFR CPUTimeSample on JDK 25 "
                                             "only)" % ",".join(configs.CONFIG_SETS["server"]))
    ap.add_argument("--server-warmup", type=int, help="warm-up under load per server run, s (default %d)" % pace["warmup_s"])
    ap.add_argument("--server-seconds", type=int, help="measured load per server run, s (default %d)" % pace["seconds"])
    ap.add_argument("--server-think-ms", type=int, help="think time of each wrk connection after a response, ms "
                                                        "(default %d, with %d connections)" % (
                                                            pace["think_ms"], pace["connections"]))
    ap.add_argument("--floor-work", type=int, default=1_500_000_000, help="floor loop iterations (~2.7 s here)")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--quiet-cpus", type=float, default=0.3,
                    help="before each run, wait while other processes use more CPUs than this (default 0.3)")
    ap.add_argument("--quiet-wait", type=float, default=20,
                    help="longest wait for a quiet machine before one run, s (default 20; 0: never wait)")
    ap.add_argument("--quiet-budget", type=float, default=None,
                    help="total waiting allowed over the whole bench, s (%s)" % both("quiet_budget"))
    ap.add_argument("--render", metavar="RAW_JSON",
                    help="only rewrite the markdown from a raw bench/out/bench-*.json (no runs)")
    args = ap.parse_args()
    if args.jvm_opt is None:
        args.jvm_opt = list(configs.DEFAULT_JVM_OPTS)
    args.demo_args = args.demo_args.split()
    args.cpu_args = args.cpu_args.split()
    lib_args = {}
    for x in args.lib_args:
        name, _, rest = x.partition("=")
        if name not in configs.LIB_WORKLOADS:
            ap.error("--lib-args: %r is not one of %s" % (name, ", ".join(configs.LIB_WORKLOADS)))
        lib_args[name] = rest.split()
    args.lib_args = lib_args
    return args


def render_only(raw_path, out):
    """Summarizes a raw run again and rewrites its markdown (and charts)."""
    with open(raw_path) as f:
        raw = json.load(f)
    if "summary_configs" not in raw:  # runs written before the raw JSON named them
        raw["summary_configs"] = raw["configs"] + list({r["config"] for r in raw["runs"] if r["config"].endswith(NOSIG)})
    s = summary.summarize(raw["runs"], [w["name"] for w in raw["workloads"]], raw["summary_configs"])
    out = out or results.default_results(raw["mode"])
    results.publish(raw, s, raw_path, out, charts_from=os.path.join(OUT, "render-tmp.json"))
    log("wrote %s" % os.path.relpath(out, REPO))


def main():
    args = parse_args()
    if args.render:
        render_only(args.render, args.results)
        return
    if args.quick and args.server:
        sys.exit("run_bench: --quick and --server are two modes; give one")
    mode = "server" if args.server else ("quick" if args.quick else "full")
    budget = args.quiet_budget if args.quiet_budget is not None else DEFAULTS[mode]["quiet_budget"]
    Bench(args, procs.QuietGate(args.quiet_cpus, args.quiet_wait, budget)).main()


if __name__ == "__main__":
    sys.exit(main())

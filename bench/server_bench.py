#!/usr/bin/env python3
"""One paced run of the Jetty server workload, by hand (bench/README.md, "The server bench").

    python3 bench/server_bench.py [--jvm-opt=-agentpath:build/libcandor.so=start,interval=1ms,file=p.collapsed]
                                  [--warmup 5] [--seconds 15] [--connections 4] [--think-ms 2] [--json]

Starts `candor-bench-workloads.jar jetty` (built if needed) with the JVM options given, loads it
with wrk and bench/server/pace.lua for the warm-up and then the measured seconds, stops it, and
prints what the server measured in the window: requests, CPU per request (user and system), the
server's CPU in cores, wrk's rate and latency. `make bench-server` runs the same thing for every
profiler in alternating rounds.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

from harness import procs, serverdrive

BENCH = os.path.dirname(os.path.abspath(__file__))


def main():
    d = serverdrive.DEFAULTS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--java", default=procs.DEFAULT_JAVA)
    ap.add_argument("--jar", default=procs.WORKLOADS_JAR, help="the workloads jar (default: bench/workloads/target/…; "
                                                               "built if missing)")
    ap.add_argument("--jvm-opt", action="append", default=None, help="JVM option, may repeat (default -Xms1g -Xmx1g)")
    ap.add_argument("--warmup", type=int, default=d["warmup_s"], help="warm-up seconds (default %(default)s)")
    ap.add_argument("--seconds", type=int, default=d["seconds"], help="measured seconds (default %(default)s)")
    ap.add_argument("--connections", type=int, default=d["connections"], help="wrk connections (default %(default)s)")
    ap.add_argument("--think-ms", type=int, default=d["think_ms"],
                    help="think time after each response per connection, ms (default %(default)s)")
    ap.add_argument("--threads", type=int, default=d["threads"], help="Jetty pool threads (default %(default)s)")
    ap.add_argument("--work", default=os.path.join(procs.OUT, "server-by-hand"),
                    help="directory for the port file, the bodies, the server's log and wrk's")
    ap.add_argument("--json", action="store_true", help="print the whole result as JSON")
    a = ap.parse_args()
    wrk = shutil.which("wrk")
    if not wrk:
        sys.exit("server_bench: wrk not found (Debian package wrk; `make deps` installs it)")
    if not os.path.exists(a.jar):
        subprocess.run(["mvn", "-B", "-q", "-f", os.path.join(procs.WORKLOADS_DIR, "pom.xml"), "package"], check=True)
    serverdrive.prepare(a.work)
    jvm = a.jvm_opt if a.jvm_opt is not None else ["-Xms1g", "-Xmx1g"]
    cmd = [a.java] + jvm + serverdrive.jetty_argv(a.jar, a.work, a.threads)
    log_path, wrk_log = os.path.join(a.work, "server.log"), os.path.join(a.work, "wrk.log")

    def load(proc, _):
        with open(wrk_log, "wb") as out:
            return serverdrive.drive(proc, a.work, a.warmup, a.seconds, a.connections, a.think_ms, wrk, out)
    r = procs.run_measured(cmd, log_path, cwd=a.work, timeout=a.warmup + a.seconds + 300, during=load)
    if a.json:
        print(json.dumps(r, indent=1))
    if r.get("error") or r["exit"] != 0:
        sys.exit("server_bench: %s (exit %d); logs: %s, %s" % (r.get("error", "the server failed"), r["exit"],
                                                                log_path, wrk_log))
    s, w = r["server"], r["wrk"]
    print("requests %d in %.1f s (%.0f/s; wrk: %.0f/s, p50 %.2f ms, p99 %.2f ms, non-2xx %d, socket errors %d)" % (
        s["requests"], s["window_s"], s["requests"] / s["window_s"], w.get("requests_per_s", 0),
        w.get("latency_p50_ms", 0), w.get("latency_p99_ms", 0), w["non_2xx"], w["socket_errors"]))
    print("server CPU %.2f s = %.2f cores (user %.2f s, system %.2f s); %.1f µs per request" % (
        s["cpu_s"], s["cpu_s"] / s["window_s"], s["user_s"], s["sys_s"], s["cpu_us_per_request"]))
    print("whole run: process CPU %.2f s (rusage), Java threads %.2f s; logs %s, %s" % (
        r["cpu_s"], s["java_threads_cpu_s"], log_path, wrk_log))


if __name__ == "__main__":
    main()

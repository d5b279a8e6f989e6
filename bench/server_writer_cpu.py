#!/usr/bin/env python3
"""What candor's writer thread costs on the Jetty server, for one or more builds of the agent in alternating
runs (an A/B of a change to the drain, the trace store or an output).

    python3 bench/server_writer_cpu.py --lib OLD/libcandor.so --lib build/libcandor.so [--reps 3]
        [--candor-options interval=100us | event=ctimer,interval=1ms] [--warmup 10] [--seconds 15]

Each run loads the server as the server bench does (paced wrk on 127.0.0.1, 200 pool threads) with candor
writing a collapsed profile, and reads the CPU time of the thread named `candor writer` and of the whole
process from /proc every 0.25 s. It prints, over the measured window (its first and last second left out),
the writer's CPU-seconds per second and its share of the process's CPU, and the ticks candor counted and
dropped (a ring that filled while the writer was busy); then the medians per build.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time

from harness import procs, serverdrive

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(stat_path):
    """utime + stime of a /proc stat file, in seconds."""
    with open(stat_path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def writer_cpu_s(pid):
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
            if f.read().strip() == "candor writer":
                return cpu_s("/proc/%d/task/%s/stat" % (pid, tid))
    return None


def one_run(lib, options, work, warmup, seconds, wrk):
    d = serverdrive.DEFAULTS
    serverdrive.prepare(work)
    stats = os.path.join(work, "candor.json")
    cmd = [procs.DEFAULT_JAVA, "-Xms1g", "-Xmx1g", "-agentpath:%s=start,%s,file=%s,stats=%s,quiet" % (
        lib, options if "event=" in options else "event=cpu," + options, os.path.join(work, "candor.collapsed"), stats)]
    cmd += serverdrive.jetty_argv(procs.WORKLOADS_JAR, work, d["threads"])
    polls = []

    def load(proc, _):
        # Reads until the measured load ends (not until exit: run_measured reaps the process).
        stop = threading.Event()

        def poll():
            while not stop.is_set():
                try:
                    w = writer_cpu_s(proc.pid)
                    if w is not None:
                        polls.append((time.time(), w, cpu_s("/proc/%d/stat" % proc.pid)))
                except (OSError, IndexError):
                    pass  # the thread ended between the reads
                stop.wait(0.25)
        poller = threading.Thread(target=poll)
        poller.start()
        with open(os.path.join(work, "wrk.log"), "wb") as out:
            res = serverdrive.drive(proc, work, warmup, seconds, d["connections"], d["think_ms"], wrk, out)
        stop.set()
        poller.join()
        res["end"] = time.time()
        return res
    r = procs.run_measured(cmd, os.path.join(work, "server.log"), cwd=work, timeout=warmup + seconds + 300, during=load)
    if r.get("error") or r["exit"] != 0:
        sys.exit("server_writer_cpu: %s (exit %d); log: %s" % (r.get("error", "the server failed"), r["exit"],
                                                               os.path.join(work, "server.log")))
    end = r["end"]
    window = [p for p in polls if end - seconds + 1 <= p[0] <= end - 1]
    if len(window) < 2:
        sys.exit("server_writer_cpu: no reads of the writer thread in the measured window")
    (t0, w0, c0), (t1, w1, c1) = window[0], window[-1]
    with open(stats) as f:
        st = json.load(f)
    return {"writer": (w1 - w0) / (t1 - t0), "process": (c1 - c0) / (t1 - t0), "share": (w1 - w0) / (c1 - c0),
            "ticks": st.get("ticks", 0), "dropped": st.get("dropped", 0)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", action="append", help="a libcandor.so (give it several times to compare builds; "
                                                   "default: build/libcandor.so)")
    ap.add_argument("--reps", type=int, default=3, help="runs per build, alternating (default %(default)s)")
    ap.add_argument("--candor-options", default="interval=100us",
                    help="candor options besides start and the files, event=cpu unless they give one "
                         "(default %(default)s)")
    ap.add_argument("--warmup", type=int, default=10, help="warm-up seconds (default %(default)s)")
    ap.add_argument("--seconds", type=int, default=15, help="measured seconds (default %(default)s)")
    ap.add_argument("--work", default=os.path.join(procs.OUT, "writercpu"), help="output directory")
    a = ap.parse_args()
    libs = [os.path.abspath(x) for x in (a.lib or [os.path.join(REPO, "build", "libcandor.so")])]
    for lib in libs:
        if not os.path.exists(lib):
            sys.exit("server_writer_cpu: %s missing; run `make agent` first" % lib)
    wrk = shutil.which("wrk")
    if not wrk:
        sys.exit("server_writer_cpu: wrk not found (Debian package wrk; `make deps` installs it)")
    if not os.path.exists(procs.WORKLOADS_JAR):
        subprocess.run(["mvn", "-B", "-q", "-f", os.path.join(procs.WORKLOADS_DIR, "pom.xml"), "package"], check=True)
    rows = {lib: [] for lib in libs}
    for rep in range(1, a.reps + 1):
        for i, lib in enumerate(libs):
            r = one_run(lib, a.candor_options, os.path.join(a.work, "b%d-r%d" % (i + 1, rep)), a.warmup, a.seconds,
                        wrk)
            rows[lib].append(r)
            print("run %d, %s: writer %.3f CPU-s/s of the process's %.3f (%.1f%%); ticks %d, dropped %d" % (
                rep, lib, r["writer"], r["process"], 100 * r["share"], r["ticks"], r["dropped"]), flush=True)
    for lib, rs in rows.items():
        print("median of %d, %s: writer %.3f CPU-s/s, %.1f%% of the process; dropped %d of %d ticks" % (
            len(rs), lib, statistics.median(r["writer"] for r in rs), 100 * statistics.median(r["share"] for r in rs),
            statistics.median(r["dropped"] for r in rs), statistics.median(r["ticks"] for r in rs)))


if __name__ == "__main__":
    main()

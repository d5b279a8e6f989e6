#!/usr/bin/env python3
"""What a context switch costs with a per-thread CPU timer, and what reprogramming the timer costs, outside the
JVM (issue 15, item 1): builds bench/sweep/ctxsw_cost.c and runs it under `perf stat` (MSR writes to
IA32_TSC_DEADLINE, context switches), every case once per round, alternating, medians over the rounds.

    python3 bench/sweep/ctxsw_cost.py [--rounds 5] [--roundtrips 100000] [--rearms 200000]

Cases: ping-pong of two threads on CPU 0 (4 context switches per round trip) with no timer, a perf cpu-clock
event per thread at 1 s / 4 ms / 1 ms / 100 µs (no ring, no signal), timer_create(CLOCK_THREAD_CPUTIME_ID) at
1 ms, one per-CPU cpu-clock event (pid -1) per CPU at 1 ms / 100 µs; and arm+disarm of a timerfd 200 µs ahead (reprograms the clockevent twice) against 10 s ahead (does not).
Writes bench/out/sweep/ctxsw-cost.json and prints a markdown table.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "out", "sweep")


def cases(a):
    rt, n = str(a.roundtrips), str(a.rearms)
    return [
        ("pingpong none", ["pingpong", "none", "0", rt, "pin"]),
        ("pingpong perf 1s", ["pingpong", "perf", "1000000000", rt, "pin"]),
        ("pingpong perf 4ms", ["pingpong", "perf", "4000000", rt, "pin"]),
        ("pingpong perf 1ms", ["pingpong", "perf", "1000000", rt, "pin"]),
        ("pingpong perf 100us", ["pingpong", "perf", "100000", rt, "pin"]),
        ("pingpong ctimer 1ms", ["pingpong", "ctimer", "1000000", rt, "pin"]),
        ("pingpong per-CPU perf 1ms", ["pingpong", "percpu", "1000000", rt, "pin"]),
        ("pingpong per-CPU perf 100us", ["pingpong", "percpu", "100000", rt, "pin"]),
        ("pingpong none unpinned", ["pingpong", "none", "0", rt]),
        ("pingpong perf 1ms unpinned", ["pingpong", "perf", "1000000", rt]),
        ("rearm 10s (no reprogram)", ["rearm", "10000000000", n]),
        ("rearm 200us (reprogram)", ["rearm", "200000", n]),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--roundtrips", type=int, default=100000)
    ap.add_argument("--rearms", type=int, default=200000)
    ap.add_argument("--idle-seconds", type=int, default=2, help="per-CPU idle wake-up test per case (0: skip)")
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    exe = os.path.join(OUT, "ctxsw_cost")
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-Wall", "-pthread", "-o", exe,
                    os.path.join(HERE, "ctxsw_cost.c")], check=True)
    perf = shutil.which("perf")
    runs = []
    for rnd in range(a.rounds):
        for name, argv in cases(a):
            cmd = [exe] + argv
            pout = os.path.join(OUT, "ctxsw-perf.txt")
            if perf:
                cmd = [perf, "stat", "-x,", "-o", pout, "-e", "msr:write_msr", "--filter", "msr==0x6e0",
                       "-e", "context-switches", "-e", "timer:hrtimer_start", "--"] + cmd
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode:
                sys.exit("ctxsw_cost: %s failed: %s" % (name, p.stderr[-300:]))
            r = json.loads(p.stdout.strip().splitlines()[-1])
            r["case"], r["round"] = name, rnd
            if perf:
                with open(pout) as fh:
                    for line in fh:
                        parts = line.strip().split(",")
                        if len(parts) >= 3 and parts[0][:1].isdigit():
                            r[parts[2].split(":")[-1]] = int(float(parts[0])) / r["n"]
            r["load1"] = os.getloadavg()[0]
            runs.append(r)
    with open(os.path.join(OUT, "ctxsw-cost.json"), "w") as fh:
        json.dump(runs, fh, indent=1)
    base = {}
    print("| case | n | wall ns/iter | user ns/iter | sys ns/iter | CPU ns/iter | ctx switches/iter | "
          "TSC-deadline MSR writes/iter | hrtimer starts/iter | CPU ns per MSR write vs reference |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, _ in cases(a):
        rs = [r for r in runs if r["case"] == name]
        m = {k: statistics.median([r[k] for r in rs if r.get(k) is not None] or [0])
             for k in ("wall_ns", "user_ns", "sys_ns", "cpu_ns", "context-switches", "write_msr", "hrtimer_start")}
        ref = "pingpong none unpinned" if "unpinned" in name else (
            "rearm 10s (no reprogram)" if name.startswith("rearm") else "pingpong none")
        if name == ref:
            base[ref] = m
        per = ""
        if ref in base and name != ref and m["write_msr"] - base[ref]["write_msr"] > 0.05:
            per = "%.0f" % ((m["cpu_ns"] - base[ref]["cpu_ns"]) / (m["write_msr"] - base[ref]["write_msr"]))
        print("| %s | %d | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f | %s |" % (
            name, len(rs), m["wall_ns"], m["user_ns"], m["sys_ns"], m["cpu_ns"], m["context-switches"],
            m["write_msr"], m["hrtimer_start"], per))
    print("load1 during: %s" % ", ".join("%.2f" % r["load1"] for r in runs[::len(cases(a))]))
    if perf and a.idle_seconds:
        idle(exe, perf, a)


IDLE = [("no per-CPU event", ["0"]), ("per-CPU cpu-clock 1ms", ["1000000"]),
        ("per-CPU cpu-clock 1ms exclude_idle", ["1000000", "exclude_idle"]),
        ("per-CPU cpu-clock 100us", ["100000"]), ("per-CPU cpu-clock 100us exclude_idle", ["100000", "exclude_idle"])]


def idle(exe, perf, a):
    """Whether a per-CPU sampler wakes CPUs that have nothing to run: machine-wide local timer interrupts per second
    while one cpu-clock event per CPU is open and the program sleeps (other processes' interrupts included: read
    the rows against the first)."""
    res = {}
    pout = os.path.join(OUT, "ctxsw-idle-perf.txt")
    for _ in range(a.rounds):
        for name, argv in IDLE:
            subprocess.run([perf, "stat", "-a", "-x,", "-o", pout, "-e", "irq_vectors:local_timer_entry",
                            "-e", "msr:write_msr", "--filter", "msr==0x6e0", "--",
                            exe, "idle", argv[0], str(a.idle_seconds)] + argv[1:], capture_output=True, check=True)
            vals = {}
            with open(pout) as fh:
                for line in fh:
                    parts = line.strip().split(",")
                    if len(parts) >= 3 and parts[0][:1].isdigit():
                        vals[parts[2].split(":")[-1]] = int(float(parts[0])) / a.idle_seconds
            vals["busy_cpus"] = procs_busy()
            res.setdefault(name, []).append(vals)
    print()
    print("| machine, %d s asleep | local timer interrupts/s | TSC-deadline writes/s | runs |" % a.idle_seconds)
    print("|---|---|---|---|")
    for name, _ in IDLE:
        v = res[name]
        print("| %s | %.0f | %.0f | %d |" % (name, statistics.median(x.get("local_timer_entry", 0) for x in v),
                                             statistics.median(x.get("write_msr", 0) for x in v), len(v)))
    with open(os.path.join(OUT, "ctxsw-idle.json"), "w") as fh:
        json.dump(res, fh, indent=1)


def procs_busy():
    return os.getloadavg()[0]


if __name__ == "__main__":
    main()

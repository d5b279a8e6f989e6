#!/usr/bin/env python3
"""Repeats accuracy runs: the runner (candor-accuracy.jar) N times over the given cases and profilers, in
alternating order (every profiler once per round), then one markdown row per case and profiler: each round's
hot share minus the truth's, in points, and their median; the same for the hot share of the recorded ticks
only (failure ticks left out, which shows whether what a profiler did record leans one way); the failure
share; and, for candor's modes, the worker threads' recorded ticks per interval of their CPU time (1.00: one
recorded tick per interval of CPU; the rest of the ticks are failures or never fired).

    python3 bench/accuracy/repeat.py --build build --reps 5 --cases handoff \\
        --profilers cpu,cpu-thread,ctimer,async-cpu [--jdk 25] [--cpu-ms 8000] [--work bench/out/accuracy-repeat]

One run's report stays in WORK/rN/report.md and its profiles under WORK/rN/."""
import argparse, json, os, re, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
LINE = re.compile(r"^(\S+)\s+(\S+)\s+(\S+)\s+(.+?)\s{2,}\d+ samples, hot\s+([\d.]+)% \(truth\s+([\d.]+)%\).*"
                  r"failures\s+([\d.]+)%")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="candor's build directory (libcandor.so)")
    ap.add_argument("--jdk", default="17")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--profilers", required=True)
    ap.add_argument("--cpu-ms", default="8000")
    ap.add_argument("--work", default=os.path.join(HERE, "..", "out", "accuracy-repeat"))
    a = ap.parse_args()
    jar = os.path.join(HERE, "target", "candor-accuracy.jar")
    if not os.path.exists(jar):
        sys.exit("repeat: %s is missing: run make (or mvn -pl bench/accuracy -am install) first" % jar)
    runs = {}    # (case, profiler id) -> [(label, hot %, truth %, failures %)], one per round
    ratios = {}  # (case, profiler id) -> candor's recorded ticks per interval of the workers' CPU, per round
    for rep in range(1, a.reps + 1):
        work = os.path.abspath(os.path.join(a.work, "r%d" % rep))
        out = subprocess.run(["java", "-jar", jar, "--build", a.build, "--jdk", a.jdk, "--cases", a.cases,
                              "--profilers", a.profilers, "--cpu-ms", a.cpu_ms, "--work", work,
                              "--out", os.path.join(work, "report.md")], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit("repeat: round %d failed: %s" % (rep, (out.stderr or out.stdout)[-500:]))
        for line in out.stdout.splitlines():
            m = LINE.match(line)
            if not m:
                continue
            case, pid = m.group(1), m.group(3)
            runs.setdefault((case, pid), []).append((m.group(4),) + tuple(float(m.group(i)) for i in (5, 6, 7)))
            stats = os.path.join(work, "jdk%s" % a.jdk, case + "-" + m.group(2), pid, "stats.json")
            if os.path.exists(stats):  # candor's modes
                ratios.setdefault((case, pid), []).append(recorded_per_interval(stats))
        print("round %d done" % rep, file=sys.stderr, flush=True)
    print("| case | profiler | hot share − truth, per round (points) | median | recorded ticks only | median"
          " | failures (%) | recorded ticks per interval of CPU |")
    print("|---|---|---|---:|---|---:|---|---|")
    for (case, pid), rs in runs.items():
        d = [h - t for _, h, t, f in rs]
        r = [100 * h / (100 - f) - t if f < 100 else float("nan") for _, h, t, f in rs]
        print("| %s | %s | %s | %+.1f | %s | %+.1f | %s | %s |" % (
            case, rs[0][0], ", ".join("%+.1f" % x for x in d), statistics.median(d), ", ".join("%+.1f" % x for x in r),
            statistics.median(r), ", ".join("%.1f" % f for _, h, t, f in rs),
            ", ".join("%.2f" % x for x in ratios.get((case, pid), [])) or "—"))

def recorded_per_interval(stats):
    s = json.load(open(stats))
    workers = [t for t in s["per_thread"] if t["name"].endswith("-worker")]
    cpu = sum(t["cpu_ns"] for t in workers)
    return sum(t["recorded"] for t in workers) * s["interval_ns"] / cpu if cpu else float("nan")


if __name__ == "__main__":
    main()

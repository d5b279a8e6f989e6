#!/usr/bin/env python3
"""Per-phase errors of accuracy runs: for every run under WORK (the runner's or repeat.py's --work), the share of
each method the case's `work` calls directly, in the profile minus in the truth, in points of `work`'s subtree
(callees the truth does not name summed as one).
repeat.py reports one hot method per case; a case whose truth splits `work` into several phases (blockmix: waitTurn,
writes, spin) shows here where the rest of the error went. Rows: one per case and profiler, each phase's value per
round and their median.

    python3 bench/accuracy/phases.py --build build WORK [WORK...]

A WORK holds rounds as repeat.py leaves them (WORK/rN/jdkJ/CASE-VARIANT/PROFILER/{profile.jfr,truth.collapsed}) or
one runner run (WORK/jdkJ/...); several WORKs are rounds of the same profilers, e.g. rounds run one at a time."""
import argparse, collections, glob, os, statistics, subprocess, sys


def subtree_shares(collapsed, work):
    """Share of `work`'s subtree under each direct callee of `work` (and `work` itself), by weight."""
    by = collections.Counter()
    total = 0.0
    for line in collapsed.splitlines():
        if not line.strip():
            continue
        stack, n = line.rsplit(" ", 1)
        frames = stack.split(";")
        at = [i for i, f in enumerate(frames) if f == work]
        if not at:
            continue
        total += float(n)
        below = frames[at[-1] + 1:]
        by[below[0] if below else work] += float(n)
    return {k: v / total for k, v in by.items()} if total > 0 else {}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="candor's build directory (the candor launcher reads profiles)")
    ap.add_argument("work", nargs="+")
    a = ap.parse_args()
    candor = os.path.join(a.build, "candor")
    runs = collections.defaultdict(list)  # (case, profiler) -> [{phase: points}], one per round
    for work in a.work:
        for d in sorted(glob.glob(os.path.join(work, "**", "truth.collapsed"), recursive=True)):
            run = os.path.dirname(d)
            case, profiler = os.path.basename(os.path.dirname(run)), os.path.basename(run)
            truth = open(d).read()
            roots = [s.rsplit(" ", 1)[0].split(";") for s in truth.splitlines() if s.strip()]
            works = {f for r in roots for f in r if f.endswith(".work")}
            profile = os.path.join(run, "profile.jfr")
            if len(works) != 1 or not os.path.exists(profile):
                continue
            w = works.pop()
            out = subprocess.run([candor, "report", profile, "-f", "collapsed"], capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit("phases: %s: %s" % (profile, out.stderr.strip()[-300:]))
            want, got = subtree_shares(truth, w), subtree_shares(out.stdout, w)
            # Callees the truth does not name (the truth's own clock reads, class loading) are one row:
            # their time is in the truth's `work`.
            other = sum(v for k, v in got.items() if k not in want)
            row = {k.rsplit(".", 1)[-1]: 100 * (got.get(k, 0) - want[k]) for k in want}
            row["(other callees)"] = 100 * other
            runs[(case, profiler)].append(row)
    if not runs:
        sys.exit("phases: no run with a truth tree and a profile.jfr under %s" % ", ".join(a.work))
    print("| case | profiler | phase: profile − truth per round, points (median) |")
    print("|---|---|---|")
    for (case, profiler), rs in sorted(runs.items()):
        phases = sorted({k for r in rs for k in r}, key=lambda k: -abs(statistics.median(r.get(k, 0) for r in rs)))
        cells = ["`%s` %s (%+.1f)" % (k, ", ".join("%+.1f" % r.get(k, 0) for r in rs), statistics.median(r.get(k, 0) for r in rs))
                 for k in phases]
        print("| %s | %s | %s |" % (case, profiler, "; ".join(cells)))


if __name__ == "__main__":
    main()

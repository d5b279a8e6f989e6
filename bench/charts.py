"""PNG charts of a bench run (run by bench/run_bench.py with the matplotlib of its venv, bench/out/venv).

    bench/out/venv/bin/python bench/charts.py RAW_JSON OUT_DIR

Reads the summary of a raw bench/out/bench-*.json and writes, per workload:
  cost-per-sample-WORKLOAD.png  µs of extra CPU per sample of every profiler, beside the platform floor
  overhead-WORKLOAD.png         CPU and wall time vs no profiler (median, min–max whiskers)
Prints the paths written, one a line.
"""

import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def color(cfg):
    if cfg in ("10ms", "1ms", "100us", "wall"):
        return "#1f77b4"   # candor
    if cfg.startswith("ap-"):
        return "#ff7f0e"   # async-profiler
    if cfg.startswith("jfr"):
        return "#2ca02c"   # JFR
    return "#7f7f7f"


def jdk(raw):
    import re
    m = re.search(r"build ([0-9.+]+)", raw["machine"].get("java_version", ""))
    return m.group(1) if m else "?"


def main():
    raw_path, out_dir = sys.argv[1], sys.argv[2]
    with open(raw_path) as f:
        raw = json.load(f)
    labels = raw.get("labels", {})
    s = raw["summary"]
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for wl, rows in s["workloads"].items():
        # cost per sample
        cfgs = [c for c, e in rows.items() if c != "none" and e.get("us_per_sample") is not None]
        if cfgs:
            fig, ax = plt.subplots(figsize=(9, 0.45 * len(cfgs) + 1.6))
            ys = range(len(cfgs))
            vals = [rows[c]["us_per_sample"] for c in cfgs]
            ax.barh(list(ys), vals, color=[color(c) for c in cfgs])
            floors = [rows[c].get("floor_us") for c in cfgs]
            for y, fl in zip(ys, floors):
                if fl:
                    ax.plot([fl, fl], [y - 0.4, y + 0.4], color="black", lw=2)
            # JFR's and the 10 ms rows can be an order of magnitude above the rest: clip, and say so
            pos = sorted(v for v in vals if v > 0)
            hi = max([f or 0 for f in floors] + ([pos[len(pos) // 2] * 2.5] if pos else [1]))
            lo = min(vals + [0])
            lo = max(lo, -hi * 0.5)
            for y, v in zip(ys, vals):
                if v > hi:
                    ax.text(hi * 0.98, y, "%.0f →" % v, va="center", ha="right", fontsize=8, color="white",
                            fontweight="bold")
                elif v < lo:
                    ax.text(lo * 0.98, y, "← %.0f" % v, va="center", ha="left", fontsize=8)
                else:
                    ax.text(max(v, 0) + hi * 0.01, y, "%.1f" % v, va="center", fontsize=8)
            ax.set_yticks(list(ys))
            ax.set_yticklabels([labels.get(c, c) for c in cfgs], fontsize=8)
            ax.invert_yaxis()
            ax.set_xlabel("µs of extra CPU per sample (black bar: platform floor at that interval, same run)")
            ax.set_title("%s: CPU cost per sample (JDK %s, %s)" % (wl, jdk(raw), raw["started"][:10]), fontsize=10)
            ax.set_xlim(lo * 1.05 if lo < 0 else 0, hi)
            ax.axvline(0, color="grey", lw=0.5)
            fig.tight_layout()
            p = os.path.join(out_dir, "cost-per-sample-%s.png" % wl)
            fig.savefig(p, dpi=110)
            plt.close(fig)
            written.append(p)
        # overhead
        cfgs = [c for c in rows if c != "none"]
        if cfgs:
            fig, ax = plt.subplots(figsize=(9, 0.5 * len(cfgs) + 1.6))
            ys = list(range(len(cfgs)))
            for off, key, col, name in ((-0.2, "cpu", None, "CPU"), (0.2, "wall", "#bbbbbb", "wall")):
                med = [(rows[c][key + "_ratio"] - 1) * 100 for c in cfgs]
                lo = [(rows[c][key + "_ratio"] - rows[c][key + "_ratio_min"]) * 100 for c in cfgs]
                hi = [(rows[c][key + "_ratio_max"] - rows[c][key + "_ratio"]) * 100 for c in cfgs]
                ax.barh([y + off for y in ys], med, height=0.38, xerr=[lo, hi],
                        color=[color(c) for c in cfgs] if col is None else col, label=name,
                        error_kw={"lw": 0.8, "capsize": 2})
            ax.set_yticks(ys)
            ax.set_yticklabels([labels.get(c, c) for c in cfgs], fontsize=8)
            ax.invert_yaxis()
            ax.axvline(0, color="black", lw=0.6)
            ax.set_xlabel("% vs no profiler (median; whiskers: min–max run)  —  colored: CPU time, grey: wall time")
            ax.set_title("%s: overhead (JDK %s, %s)" % (wl, jdk(raw), raw["started"][:10]), fontsize=10)
            fig.tight_layout()
            p = os.path.join(out_dir, "overhead-%s.png" % wl)
            fig.savefig(p, dpi=110)
            plt.close(fig)
            written.append(p)
    for p in written:
        print(p)


if __name__ == "__main__":
    main()

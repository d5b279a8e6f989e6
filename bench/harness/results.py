"""Where a bench run's results go, and writing them: the raw JSON, the charts, the markdown."""

import json
import os
import subprocess
import sys

from .configs import config_label
from .procs import BENCH, OUT, REPO, log
from .render import render_markdown

RESULTS_DIR = os.path.join(BENCH, "results")
FULL_RESULTS = os.path.join(RESULTS_DIR, "RESULTS.md")


def default_results(mode):
    """The full results are committed; a quick run's go to bench/out, so they never overwrite them."""
    return FULL_RESULTS if mode == "full" else os.path.join(OUT, "RESULTS-%s.md" % mode)


def chart_dir(results):
    """PNGs go beside the markdown: bench/results/charts for bench/results/RESULTS.md, else RESULTS-x-charts/."""
    if os.path.abspath(results) == FULL_RESULTS:
        return os.path.join(RESULTS_DIR, "charts")
    d = os.path.dirname(os.path.abspath(results))
    return os.path.join(d, os.path.splitext(os.path.basename(results))[0] + "-charts")


def make_charts(raw_path, out_dir):
    """PNG charts with matplotlib from a venv the harness creates (bench/out/venv). Returns the paths,
    or a string saying why there are none."""
    venv = os.path.join(OUT, "venv")
    py = os.path.join(venv, "bin", "python")
    try:
        if not os.path.exists(py):
            log("creating %s for matplotlib" % os.path.relpath(venv, REPO))
            subprocess.run([sys.executable, "-m", "venv", venv], check=True, capture_output=True)
        if subprocess.run([py, "-c", "import matplotlib"], capture_output=True).returncode != 0:
            r = subprocess.run([py, "-m", "pip", "install", "-q", "matplotlib"], capture_output=True, text=True)
            if r.returncode != 0:
                return "charts skipped: pip could not install matplotlib into %s (%s)" % (
                    os.path.relpath(venv, REPO), (r.stderr or r.stdout).strip().splitlines()[-1:] or "?")
        r = subprocess.run([py, os.path.join(BENCH, "charts.py"), raw_path, out_dir], capture_output=True, text=True)
        if r.returncode != 0:
            return "charts skipped: bench/charts.py failed: %s" % r.stderr.strip()[-300:]
        return [l for l in r.stdout.splitlines() if l.endswith(".png")]
    except (OSError, subprocess.CalledProcessError) as e:
        return "charts skipped: no venv/pip for matplotlib (%s)" % e


def write_raw(raw, path, indent=1):
    with open(path, "w") as f:
        json.dump(raw, f, indent=indent)


def publish(raw, summary, raw_path, results, charts_from=None):
    """Charts (from the raw JSON at charts_from, default raw_path) and the markdown of a run whose raw
    JSON is raw_path. Returns the markdown."""
    raw["labels"] = {c: config_label(c) for c in raw["summary_configs"]}
    raw["summary"] = summary
    if charts_from:
        write_raw(raw, charts_from, indent=None)
    # (the server mode has no chart: its figures are one table)
    raw["charts"] = None if raw["mode"] == "server" else make_charts(charts_from or raw_path, chart_dir(results))
    md = render_markdown(raw, summary, os.path.relpath(os.path.abspath(raw_path), REPO), results)
    with open(results, "w") as f:
        f.write(md)
    return md

#!/usr/bin/env python3
"""Overlap of every run of a server benchmark with another reference than the bench's own.

    python3 bench/reference_overlap.py bench/out/bench-server-STAMP.json ap-itimer-1ms [compare options]

For each config of the raw runs: the median, over rounds, of `candor compare`'s overlap of the run's
profile with the reference config's profile of the same round (the reference with itself: the next
round's, cyclic), as the bench computes its own column against async-profiler cpu 1ms. Default
compare options: --drop-failures --java-only (a reference without kernel frames, such as
async-profiler's itimer mode, can only be compared on Java frames).
"""
import json
import os
import statistics
import sys

from harness import procs, profiles
from harness.serverphase import compare_input, reference_pairs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs_file, ref = sys.argv[1], sys.argv[2]
    options = sys.argv[3:] or ["--drop-failures", "--java-only"]
    cli = os.path.join(ROOT, "build", "candor.jar")
    pairs = reference_pairs(json.load(open(runs_file))["runs"], ref)
    if not pairs:
        sys.exit("reference_overlap: no run of %s with a profile in %s" % (ref, runs_file))
    by_config = {}
    for r, other in pairs:
        value, error = profiles.compare_overlap(procs.DEFAULT_JAVA, cli, compare_input(r), compare_input(other), *options)
        if error:
            sys.exit("reference_overlap: " + error)
        by_config.setdefault(r["config"], []).append(value)
    print("| config | overlap with %s (median) | rounds |" % ref)
    print("|---|---|---|")
    for config, values in by_config.items():
        print("| %s%s | %.3f | %s |" % (config, " (itself, next round)" if config == ref else "",
                                       statistics.median(values), " ".join("%.3f" % v for v in values)))


if __name__ == "__main__":
    main()

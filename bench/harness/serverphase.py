"""The server phase (issue 14): the Jetty workload under paced wrk load with every server config, in
alternating rounds, then every profile compared with async-profiler's default one by `candor compare`.
The runs go into the bench's list like every other run; summary.server() reads them."""

import os
import shutil
import sys

from . import configs, peers, procs, profiles, serverdrive
from .procs import OUT, log


class ServerPhase:
    def __init__(self, bench):
        """Finds wrk and the candor CLI (for `candor compare`) before anything runs; the pacing of this run."""
        self.bench = bench
        self.wrk = shutil.which("wrk")
        if not self.wrk:
            sys.exit("run_bench: wrk not found (Debian package wrk; `make deps` installs it)")
        cli = os.path.join(bench.build, "candor.jar")
        if not os.path.exists(cli):
            sys.exit("run_bench: %s not found; run `make tools` first" % cli)
        self.candor_jar = procs.snapshot(cli)
        self.pacing = dict(serverdrive.DEFAULTS)
        for key, option in (("warmup_s", "server_warmup"), ("seconds", "server_seconds"), ("think_ms", "server_think_ms")):
            if getattr(bench.args, option, None) is not None:
                self.pacing[key] = getattr(bench.args, option)

    def run(self, cfgs, reps):
        """The Jetty workload under paced wrk load (issue 14), every config in alternating rounds (no warm-up
        round: every run warms up under load first), then each profile compared with async-profiler's."""
        total = reps * len(cfgs)
        for rnd in range(1, reps + 1):
            log("server round %d/%d (load %.2f)" % (rnd, reps, os.getloadavg()[0]))
            for i, cfg in enumerate(cfgs):
                r = self.run_one(cfg, rnd)
                sv = r.get("server") or {}
                log("  [%2d/%d] jetty %-17s %6d requests  %6.1f µs/request  %.2f server CPUs%s" % (
                    (rnd - 1) * len(cfgs) + i + 1, total, cfg, sv.get("requests", 0),
                    sv.get("cpu_us_per_request") or 0, sv["cpu_s"] / sv["window_s"] if sv.get("window_s") else 0,
                    peers.sampled(r)))
        self.overlaps([r for r in self.bench.runs if r["kind"] == "server"])

    def run_one(self, cfg, rnd):
        tag = "r%d" % rnd
        pace = self.pacing
        work = os.path.join(OUT, "server", "%s-%s" % (cfg, tag))
        args, reader = self.bench.profiler_args("jetty", cfg, tag, per_round=True)
        cmd = configs.env_prefix(cfg) + self.bench.jvm_base() + args + serverdrive.jetty_argv(self.bench.wjar, work, pace["threads"])

        def load(proc, _):
            with open(os.path.join(OUT, "logs", "jetty-%s-%s.wrk.log" % (cfg, tag)), "wb") as wrk_log:
                return serverdrive.drive(proc, work, pace["warmup_s"], pace["seconds"], pace["connections"],
                                         pace["think_ms"], self.wrk, wrk_log)
        r = self.bench.run(cmd, "jetty-%s-%s" % (cfg, tag), before=lambda: serverdrive.prepare(work),
                           timeout=pace["warmup_s"] + pace["seconds"] + 300, during=load)
        r.update(kind="server", workload="jetty", config=cfg, round=rnd, warmup=False,
                 kernel_sampling_allowed=self.bench.kernel_sampling_allowed)
        w = r.get("wrk") or {}
        if r.get("error"):
            self.bench.anomaly("jetty/%s round %d: %s" % (cfg, rnd, r["error"]))
        elif w.get("non_2xx") or w.get("socket_errors"):
            self.bench.anomaly("jetty/%s round %d: wrk saw %d non-2xx responses, %d socket errors" % (
                cfg, rnd, w.get("non_2xx", 0), w.get("socket_errors", 0)))
        self.bench.read_outputs(r, reader)
        if (r.get("profile") or "").endswith(".collapsed"):
            r["shares"] = profiles.shares(r["profile"])
            r["endpoints"] = profiles.endpoint_samples(r["profile"])
        elif (r.get("profile") or "").endswith(".jfr") and os.path.exists(r["profile"]):
            collapsed = profiles.jfr_to_collapsed(self.bench.java, self.candor_jar, r["profile"],
                                                  r["profile"][:-len(".jfr")] + ".collapsed")
            r["endpoints"] = profiles.endpoint_samples(collapsed) if collapsed else None
        self.bench.runs.append(r)
        return r

    def overlaps(self, runs):
        """candor compare's overlap of every run's profile with the reference profile (async-profiler's default)
        of the same round, the reference's with itself (reference_pairs), every config's with itself
        (next_round_pairs), and every run's with every other (`overlaps_all`: runs of different rounds are separate
        JVMs as much as runs of the same round are, so all pairs estimate the same overlaps as adjacent ones with
        less noise), and every run's with every other of Java frames only (`overlaps_all_java`: --java-only drops
        both profilers' native and kernel frames and candor's [kernel_unsampled] marker, so a tick counts for the
        Java code that ran or made the system call, wherever in the kernel each profiler put it), and both again
        without the ticks of context switches (`overlaps_all_noswitch`, `overlaps_all_java_noswitch`: every stack
        whose leaf is the scheduler's finish_task_switch, where timers per thread put a tick that fell due while
        the thread was switched out, and with --drop-failures candor's estimated ticks, where it charges the CPU
        of switches that no tick saw). All read from five matrices, each profile read once per matrix."""
        runs = [r for r in runs if r.get("profile") and os.path.exists(r["profile"])]
        if len(runs) < 2:
            return
        files = [compare_input(r) for r in runs]
        quiet = [profiles.without_switch_ticks(f) for f in files]
        matrices = {}
        for name, inputs, options in (("all", files, ()), ("recorded", files, ("--drop-failures",)),
                                      ("java", files, ("--java-only",)), ("noswitch", quiet, ("--drop-failures",)),
                                      ("java_noswitch", quiet, ("--drop-failures", "--java-only"))):
            matrices[name], error = profiles.overlap_matrix(self.bench.java, self.candor_jar, inputs, *options)
            if error:
                self.bench.anomaly(error)
                return
        matrix, recorded = matrices["all"], matrices["recorded"]
        at = {id(r): i for i, r in enumerate(runs)}
        for r, other in reference_pairs(runs, configs.SERVER_REFERENCE):
            r["overlap_ref"] = matrix[at[id(r)]][at[id(other)]]
            r["overlap_ref_recorded"] = recorded[at[id(r)]][at[id(other)]]
            r["overlap_ref_round"] = other["round"]
        for r, other in next_round_pairs(runs):
            r["overlap_self"] = matrix[at[id(r)]][at[id(other)]]
        for i, r in enumerate(runs):
            r["overlaps_all"] = [{"config": o["config"], "round": o["round"], "overlap": matrix[i][j]}
                                 for j, o in enumerate(runs) if j != i]
            for key, name in (("overlaps_all_java", "java"), ("overlaps_all_noswitch", "noswitch"),
                              ("overlaps_all_java_noswitch", "java_noswitch")):
                r[key] = [{"config": o["config"], "round": o["round"], "overlap": matrices[name][i][j]}
                          for j, o in enumerate(runs) if j != i]
        log("  overlaps with %s: %s" % (configs.SERVER_REFERENCE, ", ".join(
            "%s r%d %.3f" % (r["config"], r["round"], r["overlap_ref"]) for r in runs if "overlap_ref" in r)))


def next_round_pairs(runs):
    """(run, the same config's run of the next round, cyclic) for every run with a profile: each profiler's
    run-to-run overlap, what a comparison with another profiler can be read against."""
    by_config = {}
    for r in runs:
        if r.get("profile") and os.path.exists(r["profile"]):
            by_config.setdefault(r["config"], {})[r["round"]] = r
    pairs = []
    for rounds in by_config.values():
        order = sorted(rounds)
        if len(order) > 1:
            pairs += [(rounds[n], rounds[order[(i + 1) % len(order)]]) for i, n in enumerate(order)]
    return pairs


def reference_pairs(runs, ref):
    """(run, reference run) for every run with a profile: the reference config's run of the same round; the
    reference's own runs are paired with the next round's (cyclic), the run-to-run baseline."""
    refs = {r["round"]: r for r in runs if r["config"] == ref and r.get("profile")}
    pairs = [(r, refs[r["round"]]) for r in runs if r["config"] != ref and r.get("profile")
             and os.path.exists(r["profile"]) and r["round"] in refs]
    return pairs + [(r, other) for r, other in next_round_pairs(runs) if r["config"] == ref]


def compare_input(r):
    """The file `candor compare` reads for a run: async-profiler's collapsed output without the threads that
    never ran Java code (profiles.for_compare), candor's without its JVM-internal threads' stacks (itimer
    samples them), any other profile as it is."""
    if configs.kind(r["config"]) == "ap":
        return profiles.for_compare(r["profile"], r["profile"][:-len(".collapsed")] + ".compare.collapsed")
    if configs.kind(r["config"]) == "candor":
        return profiles.java_threads_only(r["profile"], r["profile"][:-len(".collapsed")] + ".compare.collapsed")
    return r["profile"]

"""The targets of issues 2, 7 and 14, as one table that both decides and words every verdict.

A target has a name, the text of its row (a format string), the limit it holds the measurement to,
the scope it is judged over and a judge: judge(target, **scope) -> the rows it contributes, each
(target text, measured text, verdict text). evaluate(summary) runs the table in order; consecutive
targets of one scope are judged together for each item of that scope (so the rows of one workload
and interval stay together). Pure: summary in, rows out.
"""

import collections
import itertools

from .configs import SERVER_CANDOR, config_label

Row = collections.namedtuple("Row", "target measured verdict")
Target = collections.namedtuple("Target", "name text limit scope judge")

INTERVALS = ("1ms", "100us")  # the candor intervals the targets speak of
JAVA_SHARE = 0.99             # of ticks recorded as Java stacks, on pure-Java workloads
MEMORY_MB = 20                # agent RSS on top of the JVM
RATE_TOLERANCE = 0.2          # a run's samples per CPU-second this far from the requested is an anomaly


def f1(x):
    return "–" if x is None else "%.1f" % x


def f3(x):
    return "–" if x is None else "%.3f" % x


def pct(limit):
    return "%.0f" % (limit * 100)


def noisy(e):
    """The extra CPU is smaller than half the min–max spread of the runs without a profiler."""
    return e.get("noise_cpu_s") is not None and abs(e.get("extra_cpu_s", 0)) < e["noise_cpu_s"]


def judge_floor(t, wl, cfg, e, rows):
    text = t.text.format(wl=wl, cfg=cfg, limit=t.limit)
    ratio = e.get("cost_over_floor")
    if ratio is None:
        return [Row(text, "cost %s µs, floor not measurable" % f1(e.get("us_per_sample")), "INCONCLUSIVE")]
    verdict = "INCONCLUSIVE" if ratio <= 0 else ("PASS" if ratio <= t.limit else "MISS")
    estimate = ""
    if noisy(e) and e.get("handler_us") is not None:
        # The extra CPU says nothing here; what candor adds to a signal is its handler time.
        est = (e["floor_us"] + e["handler_us"]) / e["floor_us"]
        verdict = "%s by estimate" % ("PASS" if est <= t.limit else "MISS")
        estimate = "; floor + candor's handler time %.1f µs = **%.2f×**" % (e["floor_us"] + e["handler_us"], est)
    return [Row(text, "%.1f µs vs floor %.1f µs = **%.2f×**%s" % (e["us_per_sample"], e["floor_us"], ratio, estimate),
                verdict + (" (extra CPU %.3f s is within the noise: ±%.3f s without the agent)" % (
                    e["extra_cpu_s"], e["noise_cpu_s"]) if noisy(e) else ""))]


def judge_peers(t, wl, cfg, e, rows):
    out = []
    for peer in ("ap-cpu-%s" % cfg, "ap-cpu-%s-nocs" % cfg):
        pe = rows.get(peer)
        if not pe or pe.get("us_per_sample") is None:
            continue
        mine, theirs = e["us_per_sample"], pe["us_per_sample"]
        measured = "candor %.1f µs vs %.1f µs" % (mine, theirs)
        # Like with like: candor samples the Java threads, async-profiler every thread (JIT, GC), so
        # its cost is also spread over the samples of its Java threads, and judged by that.
        java = (pe.get("ticks") or 0) - (pe.get("jvm_thread_samples") or 0)
        if pe.get("jvm_thread_samples") and java > 0 and pe.get("extra_cpu_s") is not None:
            theirs = pe["extra_cpu_s"] / java * 1e6
            measured += " per sample of any thread; %.1f µs per sample of its Java threads" % theirs
        out.append(Row(t.text.format(wl=wl, cfg=cfg, peer=config_label(peer)), measured,
                       ("INCONCLUSIVE" if mine <= 0 or theirs <= 0 else ("PASS" if mine < theirs else "MISS"))
                       + (" (an extra CPU within the noise)" if noisy(e) or noisy(pe) else "")))
    return out


def judge_rate(t, wl, cfg, e, rows):
    req, got = e.get("requested_per_cpu_s"), e.get("samples_per_cpu_s")
    if not req or got is None:
        return []
    return [Row(t.text.format(wl=wl, cfg=cfg, pct=pct(t.limit)), "%.0f of %.0f (%.1f%%)" % (got, req, got / req * 100),
                "PASS" if got >= t.limit * req else "MISS")]


def judge_java(t, wl, cfg, e, rows):
    if e.get("java_share") is None:
        return []
    return [Row(t.text.format(wl=wl, cfg=cfg, pct=pct(t.limit)), "%.1f%%" % (e["java_share"] * 100),
                "PASS" if e["java_share"] >= t.limit else "MISS")]


def judge_rss(t, wl, cfg, e, rows):
    if cfg != "1ms" or e.get("rss_added_mb") is None:
        return []
    return [Row(t.text.format(wl=wl, limit=t.limit), "%+.1f MB (peak RSS vs no profiler; runs of seconds, not the "
                "1-minute recording of the issue)" % e["rss_added_mb"], "PASS" if e["rss_added_mb"] <= t.limit else "MISS")]


def judge_java_all(t, s):
    # every workload here is pure Java (no JNI of its own): the Java-stacks target over all of them
    shares = [(wl, cfg, rows[cfg]["java_share"]) for wl, rows in s["workloads"].items() for cfg in INTERVALS
              if rows.get(cfg) and rows[cfg].get("java_share") is not None]
    if not shares:
        return []
    low = [x for x in shares if x[2] < t.limit]
    return [Row(t.text.format(pct=pct(t.limit), intervals=" and ".join(INTERVALS)),
                "; ".join("%s %s %.2f%%" % (wl, cfg, sh * 100) for wl, cfg, sh in shares),
                "PASS (all %d)" % len(shares) if not low else "MISS on %d of %d (lowest: %s %s %.2f%%)" % (
                    len(low), len(shares), *min(low, key=lambda x: x[2])[:2], min(x[2] for x in low) * 100))]


def judge_memory(t, wl, rows):
    e = rows.get("1ms")
    if not e or e.get("added_mb") is None:
        return []
    peers = "; ".join("%s %+.1f MB" % (config_label(c), x["added_mb"]) for c, x in rows.items()
                      if c not in ("none", "1ms") and x.get("added_mb") is not None)
    return [Row(t.text.format(limit=t.limit, wl=wl.replace("memory-", ""), seconds=e.get("seconds") or 0),
                "candor **%+.1f MB** peak RSS vs no profiler (at the end: %s MB)%s" % (
                    e["added_mb"], "%+.1f" % e["added_end_mb"] if e.get("added_end_mb") is not None else "–",
                    "; same run: " + peers if peers else ""),
                "PASS" if e["added_mb"] <= t.limit else "MISS")]


def judge_startup(t, st):
    return [Row(t.text.format(limit=t.limit), "%.3f s CPU (%.3f s wall)" % (st["cost_cpu_s"], st["cost_wall_s"]),
                "PASS" if st["cost_cpu_s"] <= t.limit else "MISS")]


def judge_server_overlap(t, srv, cfg):
    """Judged on all pairs of rounds where there are 3 or more (every run of cfg with every run of the reference,
    against every pair of reference runs): adjacent rounds alone leave the verdict to which JIT states the few
    runs happened to compile. The adjacent-round medians are shown beside it."""
    ref = srv["reference"]
    e, base = srv["rows"].get(cfg) or {}, srv["rows"].get(ref) or {}
    text = t.text.format(cfg=config_label(cfg), ref=config_label(ref))
    mine, theirs = e.get("overlap_ref"), base.get("overlap_ref")
    if mine is None or theirs is None:
        return [Row(text, "overlap %s vs %s" % (f3(mine), f3(theirs)), "INCONCLUSIVE")]
    recorded = ""
    if e.get("overlap_ref_recorded") is not None and base.get("overlap_ref_recorded") is not None:
        recorded = "; of recorded stacks only (`--drop-failures`): %.3f vs %.3f" % (
            e["overlap_ref_recorded"], base["overlap_ref_recorded"])
    if e.get("pairs_ref_java") is not None and e.get("pairs_ref_self_java") is not None:
        recorded += "; of Java frames only (`--java-only`, all pairs): %.3f vs %.3f" % (
            e["pairs_ref_java"], e["pairs_ref_self_java"])
    if e.get("pairs_ref_noswitch") is not None and e.get("pairs_ref_self_noswitch") is not None:
        se = e.get("pairs_diff_se_noswitch")
        recorded += "; without the ticks of context switches (`finish_task_switch` leaves and estimated ticks " \
                    "dropped, all pairs): %.3f vs %.3f (%+.3f%s)" % (
                        e["pairs_ref_noswitch"], e["pairs_ref_self_noswitch"],
                        e["pairs_ref_noswitch"] - e["pairs_ref_self_noswitch"], " ± %.3f" % se if se is not None else "")
        if e.get("pairs_ref_java_noswitch") is not None and e.get("pairs_ref_self_java_noswitch") is not None:
            recorded += ", of Java frames only %.3f vs %.3f" % (e["pairs_ref_java_noswitch"],
                                                              e["pairs_ref_self_java_noswitch"])
    itself = ""
    if e.get("overlap_self") is not None:
        itself = "; %s with itself: %.3f" % (config_label(cfg), e["overlap_self"])
    adjacent = "overlap %.3f vs %.3f (%s with itself, adjacent rounds, medians)%s%s" % (
        mine, theirs, config_label(ref), itself, recorded)
    if e.get("pairs_ref") is None:
        return [Row(text, adjacent, "PASS" if mine >= theirs else "MISS")]
    se = e.get("pairs_diff_se")
    pairs = "all pairs of %d rounds: **%.3f vs %.3f** (difference %+.3f%s; %s with itself %.3f)" % (
        e["pairs_rounds"], e["pairs_ref"], e["pairs_ref_self"], e["pairs_ref"] - e["pairs_ref_self"],
        " ± %.3f, jackknife standard error over rounds" % se if se is not None else "", config_label(cfg),
        e["pairs_self"] if e.get("pairs_self") is not None else float("nan"))
    return [Row(text, pairs + "; " + adjacent, "PASS" if e["pairs_ref"] >= e["pairs_ref_self"] else "MISS")]


def judge_server_rate(t, srv, cfg):
    e = srv["rows"].get(cfg) or {}
    req, got = e.get("requested_per_cpu_s"), e.get("samples_per_cpu_s")
    if not req or got is None:
        return []
    measured = "%.0f of %.0f (%.1f%%)" % (got, req, got / req * 100)
    if not e.get("kernel_sampling_allowed"):
        return [Row(t.text.format(cfg=config_label(cfg), pct=pct(t.limit)), measured,
                    "not judged: kernel sampling not allowed here")]
    return [Row(t.text.format(cfg=config_label(cfg), pct=pct(t.limit)), measured,
                "PASS" if got >= t.limit * req else "MISS")]


TARGETS = (
    Target("floor", "{wl} at {cfg}: cost per sample ≤ {limit:.1f}× the floor", 1.3, "interval", judge_floor),
    Target("below-peer", "{wl} at {cfg}: cost per sample below {peer}'s", None, "costed", judge_peers),
    Target("sample-rate", "{wl} at {cfg}: ≥ {pct}% of requested samples per CPU-second", 0.95, "costed", judge_rate),
    Target("java-stacks", "{wl} at {cfg}: ≥ {pct}% of ticks recorded as Java stacks", JAVA_SHARE, "costed",
           judge_java),
    Target("short-run-memory", "{wl} at 1ms: agent memory ≤ {limit} MB RSS on top of the JVM", MEMORY_MB, "costed",
           judge_rss),
    Target("java-stacks-all", "**≥ {pct}% of ticks recorded as Java stacks on the pure-Java workloads** "
           "(candor cpu {intervals})", JAVA_SHARE, "all", judge_java_all),
    Target("memory", "**agent memory ≤ {limit} MB RSS on top of the JVM, 1-minute 1 ms recording of the library "
           "workloads** (`{wl}`, {seconds:.0f} s)", MEMORY_MB, "memory", judge_memory),
    Target("startup", "start-up cost ≤ {limit:.1f} s CPU", 0.1, "startup", judge_startup),
    Target("server-overlap", "**jetty server: the profile of {cfg} overlaps {ref}'s at least as much as two runs of "
           "{ref} do**", None, "server", judge_server_overlap),
    Target("server-rate", "jetty server, {cfg}: ≥ {pct}% of requested samples per CPU-second of the Java threads "
           "(where kernel sampling is allowed)", 0.95, "server", judge_server_rate),
)


def scope_items(scope, s):
    """The items a scope's targets are judged for, as keyword arguments of their judges."""
    if scope in ("interval", "costed"):
        for wl, rows in s["workloads"].items():
            for cfg in INTERVALS:
                e = rows.get(cfg)
                if e and (scope == "interval" or e.get("us_per_sample") is not None):
                    yield {"wl": wl, "cfg": cfg, "e": e, "rows": rows}
    elif scope == "all":
        yield {"s": s}
    elif scope == "memory":
        for wl, rows in (s.get("memory") or {}).items():
            yield {"wl": wl, "rows": rows}
    elif scope == "startup" and s.get("startup"):
        yield {"st": s["startup"]}
    elif scope == "server" and s.get("server"):
        yield {"srv": s["server"], "cfg": SERVER_CANDOR}


def evaluate(s, table=TARGETS):
    rows = []
    for scope, group in itertools.groupby(table, key=lambda t: t.scope):
        group = list(group)
        for item in scope_items(scope, s):
            for t in group:
                rows.extend(t.judge(t, **item))
    return rows

"""Runs in, numbers out: the medians, ratios and costs of a bench run (bench/README.md says what each
means). Pure: no I/O, and the runs given are not changed."""

import statistics

from . import configs, profiles
from .configs import NOSIG


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def kb_mb(kb):
    return None if kb is None else kb / 1024


def spread(rs, key):
    """Median, min and max of one figure over runs."""
    return median(r[key] for r in rs), min(r[key] for r in rs), max(r[key] for r in rs)


def rss_at(r, t):
    """VmRSS (kB) of a memory-phase run at the first poll >= t seconds after its start (t None: the last poll)."""
    series = r.get("rss_series") or []
    if not series:
        return None
    if t is None:
        return series[-1][1]
    for x in series:
        if x[0] >= t:
            return x[1]
    return None


def taken_ticks(stats):
    """candor's ticks that were taken as samples: every tick but those estimated from a CPU clock
    ([kernel_unsampled], cpu_unsampled), which stand for CPU time no sample covered and cost nothing.
    With allocation or lock events beside the cpu engine, only the cpu engine's ticks."""
    kinds = stats.get("kinds") or {}
    ticks = kinds["cpu"]["ticks"] if "ticks" in kinds.get("cpu", {}) else stats["ticks"]
    return ticks - ((stats.get("kernel") or {}).get("estimated_ticks") or 0)


def sample_count(r):
    """What a run's cost per sample is divided by: candor's ticks taken (every signal that reached a
    Java thread, every per-CPU sample of one; for wall, every sample taken; not the estimated ones),
    async-profiler's samples in its collapsed output, JFR's ExecutionSample (or CPUTimeSample) events."""
    if r.get("stats") and r["stats"].get("ticks") is not None:
        return taken_ticks(r["stats"])
    if r.get("peer") and r["peer"].get("samples") is not None:
        return r["peer"]["samples"]
    return None


def java_share(r):
    """Share of the ticks that became Java stacks (None where the profiler does not expose failed ticks)."""
    st = r.get("stats")
    if st and st.get("ticks"):
        return st.get("recorded", 0) / st["ticks"]
    p = r.get("peer")
    if p and p.get("java_thread_samples") and p.get("not_java") is not None:
        return p["java"] / p["java_thread_samples"]
    return None


def paired_cost(base_runs, runs, count_of, cpu_key="cpu_s"):
    """Median over rounds of (CPU with - CPU without, same round) / count, in us."""
    by_round = {r["round"]: r for r in base_runs}
    vals = []
    for r in runs:
        b = by_round.get(r["round"])
        n = count_of(r)
        if b is not None and n:
            vals.append((r[cpu_key] - b[cpu_key]) / n * 1e6)
    return median(vals)


def summarize(runs, workload_names, cfgs):
    measured = [dict(r) for r in runs if not r["warmup"]]  # copies: the workload figures are added to them
    out = {"floor": floor(measured, cfgs), "workloads": {}, "startup": None, "classload": None}
    for wl in workload_names:
        rows = workload(measured, wl, cfgs, out["floor"])
        if rows is not None:
            out["workloads"][wl] = rows
    mt = manythreads(measured)
    if mt:
        out["manythreads"] = mt
    out["startup"] = startup(measured)
    out["classload"] = classload(measured)
    out["memory"] = memory(measured)
    srv = server(measured)
    if srv:
        out["server"] = srv
    return out


def select(measured, kind, wl, cfg):
    return [r for r in measured if r["kind"] == kind and r["workload"] == wl and r["config"] == cfg]


def floor(measured, cfgs):
    """The platform floor: CPU per perf signal of an empty handler, per interval."""
    out = {}
    base = select(measured, "floor", "floor", "none")
    base_cpu = median(r["cpu_s"] for r in base)
    for cfg in cfgs:
        rs = select(measured, "floor", "floor", cfg)
        if not rs:
            continue
        key = "periods" if cfg.endswith(NOSIG) else "signals"
        sig = median((r.get("floor") or {}).get(key) for r in rs)
        cpu, cpu_min, cpu_max = spread(rs, "cpu_s")
        e = {"n": len(rs), "cpu_s": cpu, "cpu_min": cpu_min, "cpu_max": cpu_max, "signals": sig}
        if cfg != "none" and sig:
            e["extra_cpu_s"] = cpu - base_cpu
            e["us_per_signal"] = (cpu - base_cpu) / sig * 1e6
            e["overhead_pct"] = (cpu / base_cpu - 1) * 100
            e["paired_us_per_signal"] = paired_cost(base, rs, lambda r: (r.get("floor") or {}).get(key))
        e["background_cpus"] = median(r.get("background_cpus") for r in rs)
        out[cfg] = e
    return out


def scale_runs(runs, ref):
    """A fixed-time workload (the demo) does more or less work per run: its figures are scaled to the
    median work of the runs without the agent ("the same work"). Fixed-work workloads have scale 1."""
    for r in runs:
        scale = ref / r["work"] if ref and r.get("work") else 1.0
        r["scale"] = scale
        r["wall_n"] = r["wall_s"] * scale
        r["cpu_n"] = r["cpu_s"] * scale
        cnt = sample_count(r)
        if cnt is not None:
            r["ticks_n"] = cnt * scale


def workload(measured, wl, cfgs, floors):
    """One workload's row per config: time vs none, samples and what one cost; None without a run of none."""
    none = select(measured, "workload", wl, "none")
    if not none:
        return None
    ref = median(r.get("work") for r in none)
    scale_runs([x for x in measured if x["kind"] == "workload" and x["workload"] == wl], ref)
    n_wall, n_cpu = median(r["wall_n"] for r in none), median(r["cpu_n"] for r in none)
    rows = {}
    for cfg in cfgs:
        if cfg.endswith(NOSIG):
            continue
        rs = select(measured, "workload", wl, cfg)
        if not rs:
            continue
        wall, wall_min, wall_max = spread(rs, "wall_n")
        cpu, cpu_min, cpu_max = spread(rs, "cpu_n")
        e = {
            "n": len(rs),
            "work": median(r.get("work") for r in rs), "scaled": ref is not None,
            "wall_s": wall, "wall_min": wall_min, "wall_max": wall_max,
            "cpu_s": cpu, "cpu_min": cpu_min, "cpu_max": cpu_max,
            "wall_ratio": wall / n_wall, "cpu_ratio": cpu / n_cpu,
            "wall_ratio_min": wall_min / n_wall, "wall_ratio_max": wall_max / n_wall,
            "cpu_ratio_min": cpu_min / n_cpu, "cpu_ratio_max": cpu_max / n_cpu,
            "load1": median(r["load1"] for r in rs),
            "background_cpus": median(r.get("background_cpus") for r in rs),
        }
        if any(r.get("self_elapsed_s") is not None for r in rs):
            e["self_elapsed_s"] = median(r.get("self_elapsed_s") for r in rs)
            e["self_cpu_s"] = median(r.get("self_cpu_s") for r in rs)
            e["self_thread_cpu_s"] = median(r.get("self_thread_cpu_s") for r in rs)
        e["rss_mb"] = median(r["maxrss_kb"] for r in rs) / 1024
        e["rss_added_mb"] = e["rss_mb"] - median(r["maxrss_kb"] for r in none) / 1024
        e["samples_per_process_cpu_s"] = median(r["ticks_n"] / r["cpu_n"] for r in rs
                                                if r.get("ticks_n") is not None and r["cpu_n"] > 0)
        e["java_share"] = median(java_share(r) for r in rs)
        k = configs.kind(cfg)
        if k in ("ap", "jfr"):
            peer_samples(e, rs, configs.PEERS[cfg].get("floor"))
        elif k in ("candor", "candor-wall"):
            candor_samples(e, rs, "wall" if k == "candor-wall" else "cpu")
        if e.get("ticks"):
            cost_per_sample(e, rs, none, n_cpu, floors.get(configs.floor_interval(cfg), {}).get("us_per_signal"))
        rows[cfg] = e
    return rows


def gather(dicts):
    """{key: [its value in each dict that has it]} of dicts (None counts as empty)."""
    out = {}
    for d in dicts:
        for k, v in (d or {}).items():
            out.setdefault(k, []).append(v)
    return out


def peer_samples(e, rs, floor_key):
    peers = [r.get("peer") or {} for r in rs]
    e["ticks"] = median(r.get("ticks_n") for r in rs)
    e["dropped"] = median(p.get("dropped") for p in peers)
    e["jvm_thread_samples"] = median(p.get("jvm_thread_samples") for p in peers)
    nj = gather(p.get("not_java") for p in peers)
    e["failures"] = {k: median(v + [0] * (len(peers) - len(v))) for k, v in nj.items()}
    e["failures"] = {k: v for k, v in e["failures"].items() if v}
    e["requested_per_cpu_s"] = 1e9 / configs.INTERVALS[floor_key] if floor_key in configs.INTERVALS else None


def candor_samples(e, rs, sample_kind):
    stats = [r.get("stats") or {} for r in rs]
    kinds = [((s.get("kinds") or {}).get(sample_kind) or {}) for s in stats]
    lat = [k.get("latency") or {} for k in kinds]
    if any(x.get("count") for x in lat):
        e["latency_p50_us"] = median(x.get("p50_ns", 0) / 1e3 for x in lat if x.get("count"))
        e["latency_p99_us"] = median(x.get("p99_ns", 0) / 1e3 for x in lat if x.get("count"))
    # Time in candor's handler per tick (the agent measures it; signal delivery excluded).
    hnd = [k.get("handler") or {} for k in kinds]
    if any(x.get("count") for x in hnd):
        e["handler_us"] = median(x.get("mean_ns", 0) / 1e3 for x in hnd if x.get("count"))
    e["ticks"] = median(r.get("ticks_n") for r in rs)
    e["recorded"] = median((r.get("stats") or {}).get("recorded", 0) * r["scale"] for r in rs)
    e["samples_per_cpu_s"] = median(s.get("samples_per_cpu_second") for s in stats)
    e["requested_per_cpu_s"] = median(s.get("requested_per_cpu_second") for s in stats)
    failures = gather(s.get("failures") for s in stats)
    e["failures"] = {k: median(v) for k, v in failures.items() if median(v)}
    e["dropped"] = median(s.get("dropped") for s in stats)


def cost_per_sample(e, rs, none, n_cpu, floor_us):
    e["extra_cpu_s"] = e["cpu_s"] - n_cpu
    e["noise_cpu_s"] = (max(r["cpu_n"] for r in none) - min(r["cpu_n"] for r in none)) / 2
    e["us_per_sample"] = (e["cpu_s"] - n_cpu) / e["ticks"] * 1e6
    e["paired_us_per_sample"] = paired_cost(none, rs, lambda r: r.get("ticks_n"), "cpu_n")
    if floor_us and floor_us > 0:
        e["floor_us"] = floor_us
        e["cost_over_floor"] = e["us_per_sample"] / floor_us


def manythreads(measured):
    """The wall sampler with 500 idle threads (issue 6): the stats JSON's sampler figures."""
    mt = [r for r in measured if r["kind"] == "manythreads" and r.get("stats")]
    if not mt:
        return None
    sm = [(r["stats"].get("sampler") or {}) for r in mt]
    return {
        "n": len(mt),
        "tick_cpu_p50_us": median((x.get("tick_cpu") or {}).get("p50_ns", 0) / 1e3 for x in sm),
        "tick_cpu_p99_us": median((x.get("tick_cpu") or {}).get("p99_ns", 0) / 1e3 for x in sm),
        "tick_cpu_max_us": max((x.get("tick_cpu") or {}).get("max_ns", 0) / 1e3 for x in sm),
        "running_seen": sum(x.get("running_seen", 0) for x in sm),
        "running_sampled": sum(x.get("running_sampled", 0) for x in sm),
        "ticks": median(x.get("ticks") for x in sm), "missed_ticks": median(x.get("missed_ticks") for x in sm),
        "effective_rate": median(x.get("effective_rate") for x in sm),
        "requested_rate": median(x.get("requested_rate") for x in sm),
        "candidates_max": max(x.get("candidates_max", 0) for x in sm),
        "repeated_without_signal": median(x.get("repeated_without_signal") for x in sm),
        "signals_sent": median(x.get("signals_sent") for x in sm),
        "cpu_s": median(r["cpu_s"] for r in mt),
    }


def startup(measured):
    none = [r for r in measured if r["kind"] == "startup" and r["config"] == "none"]
    start = [r for r in measured if r["kind"] == "startup" and r["config"] == "start"]
    if not (none and start):
        return None
    st = {
        "n": len(start),
        "none_cpu_s": median(r["cpu_s"] for r in none), "start_cpu_s": median(r["cpu_s"] for r in start),
        "none_wall_s": median(r["wall_s"] for r in none), "start_wall_s": median(r["wall_s"] for r in start),
    }
    st["cost_cpu_s"] = st["start_cpu_s"] - st["none_cpu_s"]
    st["cost_wall_s"] = st["start_wall_s"] - st["none_wall_s"]
    return st


def classload(measured):
    """The class-loading-heavy start-up: extra CPU of each config, and candor's preloading timers."""
    none = [r for r in measured if r["kind"] == "classload" and r["config"] == "none"]
    withc = [r for r in measured if r["kind"] == "classload" and r["config"] == "10ms"]
    if not (none and withc):
        return None
    stats = [r.get("stats") or {} for r in withc]
    n_cpu = median(r["cpu_s"] for r in none)
    c = {
        "n": len(withc),
        "none_cpu_s": n_cpu, "candor_cpu_s": median(r["cpu_s"] for r in withc),
        "none_wall_s": median(r["wall_s"] for r in none), "candor_wall_s": median(r["wall_s"] for r in withc),
        "ticks": median(s.get("ticks") for s in stats),
        "configs": {},
    }
    for cfg in ("none", "10ms", "loaded", "dns"):
        rs = [r for r in measured if r["kind"] == "classload" and r["config"] == cfg]
        if rs:
            cpu, cpu_min, cpu_max = spread(rs, "cpu_s")
            c["configs"][cfg] = {
                "n": len(rs), "cpu_s": cpu, "cpu_min": cpu_min, "cpu_max": cpu_max,
                "wall_s": median(r["wall_s"] for r in rs), "extra_cpu_s": cpu - n_cpu,
                "paired_extra_cpu_s": None if cfg == "none" else paired_cost(none, rs, lambda r: 1e6),
            }
    for k in ("preload_ns", "classes_preloaded", "class_prepare_ns", "classes_prepared"):
        c[k] = median(s.get(k) for s in stats)
    c["extra_cpu_s"] = c["candor_cpu_s"] - c["none_cpu_s"]
    c["extra_wall_s"] = c["candor_wall_s"] - c["none_wall_s"]
    if c.get("class_prepare_ns") is not None and c.get("classes_prepared"):
        c["us_per_prepared_class"] = c["class_prepare_ns"] / c["classes_prepared"] / 1e3
    if c.get("preload_ns") is not None and c.get("classes_preloaded"):
        c["us_per_preloaded_class"] = c["preload_ns"] / c["classes_preloaded"] / 1e3
    return c


def memory(measured):
    """Agent memory: 1-minute runs of the library workloads; peak RSS and VmRSS polls vs none."""
    mem = [r for r in measured if r["kind"] == "memory"]
    out = {}
    for wl in dict.fromkeys(r["workload"] for r in mem):
        none = [r for r in mem if r["workload"] == wl and r["config"] == "none"]
        base = median(r["maxrss_kb"] for r in none)
        base_end = median(rss_at(r, None) for r in none)
        base_10 = median(rss_at(r, 10) for r in none)
        rows = {}
        for cfg in dict.fromkeys(r["config"] for r in mem if r["workload"] == wl):
            rs = [r for r in mem if r["workload"] == wl and r["config"] == cfg]
            rss, rss_min, rss_max = spread(rs, "maxrss_kb")
            e = {"n": len(rs),
                 "rss_mb": rss / 1024, "rss_min_mb": rss_min / 1024, "rss_max_mb": rss_max / 1024,
                 "rss_10s_mb": kb_mb(median(rss_at(r, 10) for r in rs)),
                 "rss_end_mb": kb_mb(median(rss_at(r, None) for r in rs)),
                 # what the peak rose by after the last poll, i.e. in the last second, mostly at exit
                 "exit_rise_mb": kb_mb(median(r["maxrss_kb"] - r["rss_series"][-1][2] for r in rs
                                              if r.get("rss_series") and r["rss_series"][-1][2])),
                 "wall_s": median(r["wall_s"] for r in rs), "cpu_s": median(r["cpu_s"] for r in rs),
                 "seconds": median(r.get("self_elapsed_s") for r in rs),
                 "loops": median(r.get("self_loops") for r in rs),
                 "samples": median(sample_count(r) for r in rs),
                 "java_share": median(java_share(r) for r in rs)}
            if cfg != "none" and base:
                e["added_mb"] = e["rss_mb"] - base / 1024
                e["added_min_mb"] = e["rss_min_mb"] - base / 1024
                e["added_max_mb"] = e["rss_max_mb"] - base / 1024
                if base_end and e["rss_end_mb"] is not None:
                    e["added_end_mb"] = e["rss_end_mb"] - base_end / 1024
                if base_10 and e["rss_10s_mb"] is not None:
                    e["added_10s_mb"] = e["rss_10s_mb"] - base_10 / 1024
            rows[cfg] = e
        out[wl] = rows
    return out


def java_thread_samples(r):
    """The samples a profiler took of the server's Java threads: candor's ticks taken (not those estimated
    from CPU clocks), async-profiler's samples on threads that ran Java code, JFR's sample events."""
    if r.get("stats"):
        if r["stats"].get("ticks") is None:
            return None
        # itimer (or allthreads) also samples JIT, GC and other JVM threads: their ticks are not the Java threads'
        jvm = sum(v for k, v in (r["stats"].get("thread_kinds") or {}).items() if k != "java")
        return taken_ticks(r["stats"]) - jvm
    p = r.get("peer") or {}
    return p.get("java_thread_samples", p.get("samples"))


def endpoint_error(r):
    """How far a server run's profile puts the CPU of each endpoint from where the server measured it:
    (total variation distance of the two distributions over the endpoints and "other", the profile's shares,
    the server's shares), or None. The server's: each endpoint's thread CPU since start over its Java
    threads' CPU, the rest "other"; the profile's: its Java threads' samples by endpoint on the stack."""
    got, sv = r.get("endpoints"), r.get("server") or {}
    cpu, java = sv.get("endpoint_cpu_s"), sv.get("java_threads_cpu_s")
    if not got or not cpu or not java or not sum(got.values()):
        return None
    n = sum(got.values())
    share = {k: v / n for k, v in got.items()}
    truth = {k: cpu.get(k, 0) / java for k in profiles.ENDPOINTS}
    truth["other"] = max(0.0, 1 - sum(truth.values()))
    return 0.5 * sum(abs(share[k] - truth[k]) for k in truth), share, truth


def ratio(x, y):
    return x / y if x is not None and y else None


def pair_overlaps(runs, cfg, ref, key="overlaps_all"):
    """All pairs of rounds (serverphase.all_pairs): the mean overlap of cfg's profiles with every reference
    profile (`pairs_ref`), of the reference's profiles with each other (`pairs_ref_self`) and of cfg's with each
    other (`pairs_self`), and the jackknife standard error over rounds of pairs_ref - pairs_ref_self
    (`pairs_diff_se`: every estimate again with one round left out, all its runs with it). None under 3 rounds.
    `key`: the runs' overlap lists to read (overlaps_all; overlaps_all_java, of Java frames only; .._noswitch,
    without context-switch ticks)."""
    mine = {r["round"]: r for r in runs if r["config"] == cfg and r.get(key)}
    refs = {r["round"]: r for r in runs if r["config"] == ref and r.get(key)}
    rounds = sorted(set(mine) | set(refs))
    if len(mine) < 3 or len(refs) < 3:
        return None

    def ov(r, config, rnd):
        return next((o["overlap"] for o in r[key] if o["config"] == config and o["round"] == rnd), None)

    def mean_of(xs):
        xs = [x for x in xs if x is not None]
        return statistics.fmean(xs) if xs else None

    def estimate(skip=None):
        cross = mean_of(ov(mine[i], ref, j) for i in mine for j in refs if skip not in (i, j) and (cfg != ref or i != j))
        base = mean_of(ov(refs[i], ref, j) for i in refs for j in refs if i < j and skip not in (i, j))
        own = mean_of(ov(mine[i], cfg, j) for i in mine for j in mine if i < j and skip not in (i, j))
        return cross, base, own

    cross, base, own = estimate()
    if cross is None or base is None:
        return None
    diffs = [c - b for c, b, _ in (estimate(k) for k in rounds) if c is not None and b is not None]
    n = len(diffs)
    se = (statistics.fmean((d - statistics.fmean(diffs)) ** 2 for d in diffs) * (n - 1)) ** 0.5 if n > 1 else None
    return {"pairs_ref": cross, "pairs_ref_self": base, "pairs_self": own, "pairs_diff_se": se,
            "pairs_rounds": len(rounds)}


def server(measured):
    """The Jetty workload under paced load (issue 14): per config, the server's own CPU per request in the
    measured window, what the profiler sampled per CPU-second of the Java threads, the share of samples in
    the kernel and with a native leaf, and the overlap of its profile with async-profiler's default one."""
    runs = [r for r in measured if r["kind"] == "server" and r.get("server") and r["server"].get("requests")]
    if not runs:
        return None
    base = median(r["server"]["cpu_us_per_request"] for r in runs if r["config"] == "none")
    rows = {}
    for cfg in dict.fromkeys(r["config"] for r in runs):
        rs = [r for r in runs if r["config"] == cfg]
        sv = [r["server"] for r in rs]
        per_request = [x["cpu_us_per_request"] for x in sv]
        # Without the JIT compiler threads' CPU in the window (servers of older runs did not report it).
        no_jit = [(x["cpu_s"] - x["jit_cpu_s"]) / x["requests"] * 1e6 for x in sv if x.get("jit_cpu_s") is not None]
        floor_key = configs.floor_interval(cfg)
        e = {
            "n": len(rs),
            "requests_per_s": median(x["requests"] / x["window_s"] for x in sv),
            "server_cpus": median(x["cpu_s"] / x["window_s"] for x in sv),
            "cpu_us_per_request": median(per_request), "cpu_us_min": min(per_request), "cpu_us_max": max(per_request),
            "user_us_per_request": median(x["user_s"] / x["requests"] * 1e6 for x in sv),
            "sys_us_per_request": median(x["sys_s"] / x["requests"] * 1e6 for x in sv),
            "ratio": ratio(median(per_request), base), "ratio_min": ratio(min(per_request), base),
            "ratio_max": ratio(max(per_request), base),
            "jit_share": median(x["jit_cpu_s"] / x["cpu_s"] for x in sv if x.get("jit_cpu_s") is not None and x["cpu_s"]),
            "no_jit_us_per_request": median(no_jit), "no_jit_us_min": min(no_jit, default=None),
            "no_jit_us_max": max(no_jit, default=None),
            "latency_p50_ms": median((r.get("wrk") or {}).get("latency_p50_ms") for r in rs),
            "latency_p99_ms": median((r.get("wrk") or {}).get("latency_p99_ms") for r in rs),
            "java_cpu_s": median(x["java_threads_cpu_s"] for x in sv),
            "process_cpu_s": median(r["cpu_s"] for r in rs),
            "rss_mb": median(r["maxrss_kb"] for r in rs) / 1024,
            "background_cpus": median(r.get("background_cpus") for r in rs),
            "kernel_sampling_allowed": all(r.get("kernel_sampling_allowed") for r in rs),
        }
        if cfg != "none":
            e["samples"] = median(java_thread_samples(r) for r in rs)
            e["samples_per_cpu_s"] = median(ratio(java_thread_samples(r), r["server"]["java_threads_cpu_s"]) for r in rs)
            e["requested_per_cpu_s"] = 1e9 / configs.INTERVALS[floor_key] if floor_key in configs.INTERVALS else None
            e["kernel_share"] = median(ratio(r["shares"]["kernel"], r["shares"]["samples"]) for r in rs if r.get("shares"))
            e["native_share"] = median(ratio(r["shares"]["native"], r["shares"]["samples"]) for r in rs if r.get("shares"))
            e["switch_share"] = median(ratio(r["shares"].get("switch"), r["shares"]["samples"])
                                       for r in rs if r.get("shares"))
            e["overlap_ref_recorded"] = median(r.get("overlap_ref_recorded") for r in rs)
            stats = [r["stats"] for r in rs if r.get("stats")]  # candor's: ticks its full ring dropped
            if stats:
                e["dropped"] = median(s.get("dropped") for s in stats)
                e["dropped_share"] = median(ratio(s.get("dropped"), s.get("ticks")) for s in stats)
            e["overlap_ref"] = median(r.get("overlap_ref") for r in rs)
            e["overlap_self"] = median(r.get("overlap_self") for r in rs)
            errors = [(r, endpoint_error(r)) for r in rs]
            errors = [(r, x) for r, x in errors if x is not None]
            if errors:
                e["endpoint_error"] = median(x[0] for _, x in errors)
                e["endpoint_error_min"] = min(x[0] for _, x in errors)
                e["endpoint_error_max"] = max(x[0] for _, x in errors)
                for k in profiles.ENDPOINTS + ("other",):
                    e["endpoint_share_" + k] = median(x[1][k] for _, x in errors)
                    e["endpoint_truth_" + k] = median(x[2][k] for _, x in errors)
            e.update(pair_overlaps(runs, cfg, configs.SERVER_REFERENCE) or {})
            for suffix in ("java", "noswitch", "java_noswitch"):
                more = pair_overlaps(runs, cfg, configs.SERVER_REFERENCE, "overlaps_all_" + suffix) or {}
                e.update({k + "_" + suffix: v for k, v in more.items()})
            overlaps = [r["overlap_ref"] for r in rs if r.get("overlap_ref") is not None]
            if overlaps:
                e["overlap_min"], e["overlap_max"] = min(overlaps), max(overlaps)
        rows[cfg] = e
    return {"reference": configs.SERVER_REFERENCE, "rows": rows}

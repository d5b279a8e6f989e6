"""What the bench runs, as data: profiler configurations, the sets of them each workload runs, the
workloads, and the defaults of each mode. bench/README.md explains every entry; nothing here runs.

A configuration is named by a string (`--configs` takes these names):
  none                      no profiler
  10ms, 1ms, 100us          candor `event=cpu` at that interval, its defaults (per-CPU timers where perf allows)
  <interval>-<walk>         the same with `walk=<walk>` (agct, vm, remote, copy), e.g. 100us-agct, or
                            -percpu: `percpu` (insists on per-CPU timers), -thread: `percpu=no` (a timer per
                            thread, the default before per-CPU timers), -copy32k: `percpu,stackcopy=32k` (per-CPU
                            timers with a 32k stack copy, the default since a051951), -events: `alloc=512k,lock=10us`
                            beside the cpu engine (allocation and lock profiling too), -unpriv: timers per thread with
                            kernel sampling refused as perf refuses it to an unprivileged user (its kernel time counted
                            from the CPU clock and placed at system calls), -unprivtick: the same with that kernel time
                            placed at each thread's next tick (the placement before 2026-11-27), -jfr: a .jfr output
                            beside the collapsed one (the writer's JFR chunks, whose stalls fill the sample ring),
                            -ctimer: `event=ctimer` instead of cpu (a POSIX CPU-time timer per thread, checked at the
                            kernel's tick; each signal weighs the intervals it stands for), -itimer: `event=itimer`
                            (the process-wide setitimer, weighed from the process's CPU clock)
  the keys of PEERS         candor's wall sampler, async-profiler, JFR
"""

INTERVALS = {"10ms": 10_000_000, "1ms": 1_000_000, "100us": 100_000}
# per-CPU timers keep no fixed phase against the kernel's tick: the agent shortens their interval by this much
# (Profiler.cpp kPerCpuDetunePerMille)
PER_CPU_DETUNE_PER_MILLE = 3
NOSIG = "-timer-only"  # floor config suffix: perf counter overflowing without a signal
WALKS = ("agct", "vm", "remote", "copy", "percpu", "thread", "copy32k", "events", "unpriv", "unprivtick", "jfr", "ctimer", "itimer")
# what each non-walk variant adds to the option string
VARIANT_OPTIONS = {"jfr": "", "percpu": "percpu", "thread": "percpu=no", "copy32k": "percpu,stackcopy=32k",
                   "events": "alloc=512k,lock=10us", "unpriv": "percpu=no", "unprivtick": "percpu=no",
                   "ctimer": "", "itimer": ""}
# what a variant's label adds to its options
VARIANT_LABELS = {"jfr": ", with a .jfr output", "unpriv": ", kernel refused (placed at system calls)",
                  "unprivtick": ", kernel refused (placed at the next tick)",
                   "ctimer": " (event=ctimer)", "itimer": " (event=itimer)"}
# the agent's test switches a variant sets in the JVM's environment
VARIANT_ENV = {"unpriv": {"CANDOR_TEST_NO_KERNEL_SAMPLING": "1"},
               "unprivtick": {"CANDOR_TEST_NO_KERNEL_SAMPLING": "1", "CANDOR_TEST_KERNEL_AT_NEXT_TICK": "1"}}
# the walker and timers (the stats' "walker", "timers") a variant must have run with; None: not checked
VARIANT_EXPECTS = {"percpu": ("copy", "per-cpu"), "copy32k": ("copy", "per-cpu"), "thread": (None, "per-thread"),
                   "events": (None, None), "unpriv": (None, "per-thread"), "unprivtick": (None, "per-thread"),
                   "jfr": (None, None), "ctimer": (None, "per-thread"),
                   "itimer": (None, None)}
# the engine a variant runs instead of event=cpu
VARIANT_EVENT = {"ctimer": "ctimer", "itimer": "itimer"}

# async-profiler from Maven Central (tools.profiler:async-profiler): the newest that resolves here
AP_VERSION = "4.6"

# Configs other than candor's cpu engine. kind: candor-wall (candor event=wall), ap (async-profiler), jfr (JDK
# Flight Recorder). "floor": the INTERVALS key whose platform floor the cost per sample is set beside.
PEERS = {
    "wall":              {"kind": "candor-wall", "label": "candor wall 20ms", "floor": None},
    "ap-cpu-10ms":       {"kind": "ap", "event": "cpu", "interval": "10ms", "label": "async-profiler cpu 10ms", "floor": "10ms"},
    "ap-cpu-1ms":        {"kind": "ap", "event": "cpu", "interval": "1ms", "label": "async-profiler cpu 1ms", "floor": "1ms"},
    "ap-cpu-100us":      {"kind": "ap", "event": "cpu", "interval": "100us", "label": "async-profiler cpu 100us", "floor": "100us"},
    "ap-cpu-1ms-nocs":   {"kind": "ap", "event": "cpu", "interval": "1ms", "cstack": "no",
                          "label": "async-profiler cpu 1ms cstack=no", "floor": "1ms"},
    "ap-cpu-100us-nocs": {"kind": "ap", "event": "cpu", "interval": "100us", "cstack": "no",
                          "label": "async-profiler cpu 100us cstack=no", "floor": "100us"},
    # async-profiler writes several events to JFR only: its cpu samples are counted from the recording, and it
    # has no collapsed profile to compare
    "ap-events-1ms":     {"kind": "ap", "event": "cpu", "interval": "1ms", "alloc": "512k", "lock": "10us",
                          "label": "async-profiler cpu 1ms alloc=512k lock=10us (JFR)", "floor": "1ms"},
    "ap-ctimer-1ms":     {"kind": "ap", "event": "ctimer", "interval": "1ms", "label": "async-profiler ctimer 1ms", "floor": "1ms"},
    "ap-itimer-10ms":    {"kind": "ap", "event": "itimer", "interval": "10ms", "label": "async-profiler itimer 10ms", "floor": "10ms"},
    "ap-itimer-1ms":     {"kind": "ap", "event": "itimer", "interval": "1ms", "label": "async-profiler itimer 1ms", "floor": "1ms"},
    "jfr-profile":       {"kind": "jfr", "label": "JFR settings=profile (10 ms Java, 20 ms native)", "floor": "10ms"},
    "jfr-1ms":           {"kind": "jfr", "period": "1 ms", "label": "JFR ExecutionSample 1 ms", "floor": "1ms"},
    "jfr-cputime-1ms":   {"kind": "jfr", "cputime": "1ms", "label": "JFR CPUTimeSample 1 ms (JDK 25)", "floor": "1ms",
                          "min_feature": 25},
}

# Which configs each workload runs (README: "Profilers side by side").
CONFIG_SETS = {
    "full": ["none", "10ms", "1ms", "100us", "1ms-agct", "100us-agct", "100us-remote", "wall", "ap-cpu-10ms",
             "ap-cpu-1ms", "ap-cpu-100us", "ap-cpu-1ms-nocs", "ap-cpu-100us-nocs", "ap-itimer-10ms", "ap-itimer-1ms",
             "jfr-profile", "jfr-1ms", "jfr-cputime-1ms"],
    "quick": ["none", "1ms", "100us", "ap-cpu-1ms", "ap-cpu-100us-nocs", "jfr-1ms", "jfr-cputime-1ms"],
    # the demo runs the candor intervals and one of each peer
    "demo": ["none", "10ms", "1ms", "100us", "100us-agct", "wall", "ap-cpu-1ms", "ap-cpu-100us-nocs", "jfr-profile",
             "jfr-1ms", "jfr-cputime-1ms"],
    # the thread-heavy workloads run a subset, to keep `make bench` in its time budget
    "threaded": ["none", "1ms", "1ms-thread", "100us", "100us-thread", "100us-agct", "wall", "ap-cpu-1ms",
                 "ap-cpu-100us-nocs", "jfr-1ms"],
    # the library workloads: candor at 1 ms beside the equal-work async-profiler config
    "lib": ["none", "1ms", "1ms-agct", "ap-cpu-1ms-nocs"],
    # the memory phase (issue 7: agent memory of a 1-minute 1 ms recording of the library workloads)
    "memory": ["none", "1ms", "ap-cpu-1ms-nocs", "jfr-1ms"],
    # the server phase (issue 14): the Jetty workload under paced wrk load; ap-cpu-1ms is the reference profile
    # (1ms-unpriv: the unprivileged mode, whose kernel time is estimated and placed, on the accuracy table)
    "server": ["none", "1ms", "1ms-thread", "1ms-unpriv", "100us", "100us-thread", "ap-cpu-1ms", "ap-cpu-1ms-nocs",
               "ap-cpu-100us-nocs", "jfr-profile", "jfr-cputime-1ms"],
}

# The server phase: async-profiler's default profile at 1 ms is what every other profile is compared with;
# candor's config there that the targets judge.
SERVER_REFERENCE = "ap-cpu-1ms"

# A measured run (any phase; warm-up runs are not) whose CPUs the hypervisor took away for more than this share
# of its wall time (steal time, /proc/stat) is run again, up to STEAL_RETRIES times: a vCPU stopped inside the
# kernel with interrupts off moves that run's ticks to where interrupts come back on
# (_raw_spin_unlock_irqrestore, paravirt spin-lock waits), and its wall and CPU times stretch, so its profile and
# its overhead then differ from every other run's for the machine's sake, not the profiler's.
STEAL_LIMIT = 0.025
STEAL_RETRIES = 2
SERVER_CANDOR = "1ms"

# the line every library workload prints: its own wall and process CPU time
SELF_RE = r"loops=(\d+) elapsed_ms=(\d+) cpu_ms=(-?\d+) thread_cpu_ms=(\d+)"

# The workloads of the overhead loop, in the order they run and are reported. group: which option leaves them out
# (core: never; demo: --no-demo; threaded: --no-threaded; lib: --no-lib; only core runs with --quick). argv: after
# the JVM options, {jar} is the workloads jar, {demo} the demo jar; `args` names the option that adds arguments.
# configs: a CONFIG_SETS key, or None for the loop's own configs. desc: the heading of its table ({args}: the
# arguments given).
WORKLOADS = [
    {"name": "demo", "group": "demo", "argv": ["-jar", "{demo}"], "args": "demo_args", "configs": "demo",
     "work_re": r"demo: (\d+) orders",
     "desc": "the bundled demo, an order pipeline doing a fixed amount of work (main + audit threads; "
             "`build/candor-demo.jar{args}`)"},
    {"name": "cpu-mix", "group": "core", "argv": ["-jar", "{jar}", "cpu"], "args": "cpu_args", "configs": None,
     "desc": "fixed-work CPU-bound mix (`candor-bench-workloads.jar cpu{args}`): interpreter, SHA-256, sorting, hash "
             "maps, BigInteger"},
    {"name": "server", "group": "threaded", "argv": ["-jar", "{jar}", "server"], "configs": "threaded",
     "desc": "server-like: 256 worker threads taking 200,000 small requests (SHA-256, parse, format) from one queue "
             "(`candor-bench-workloads.jar server`)"},
    {"name": "shortthreads", "group": "threaded", "argv": ["-jar", "{jar}", "shortthreads"], "configs": "threaded",
     "desc": "10,000 short-lived threads, 8 alive at a time, each doing a few µs of work "
             "(`candor-bench-workloads.jar shortthreads`)"},
    {"name": "deepstack", "group": "threaded", "argv": ["-jar", "{jar}", "deepstack"], "configs": "threaded",
     "desc": "work at the bottom of a 600-frame recursion (`candor-bench-workloads.jar deepstack`)"},
    {"name": "h2", "group": "lib", "argv": ["-jar", "{jar}", "h2"], "configs": "lib", "self_re": SELF_RE,
     "desc": "H2 2.2 in memory over JDBC: 12,000 order-entry transactions (selects, inserts, updates, 1 in 20 rolled "
             "back) and a join + GROUP BY report every 500 (`candor-bench-workloads.jar h2`)"},
    {"name": "jackson", "group": "lib", "argv": ["-jar", "{jar}", "jackson"], "configs": "lib", "self_re": SELF_RE,
     "desc": "Jackson 2.17: 250 round trips of 500 orders (POJO graph → bytes → POJOs, tree parse and walk, tree → "
             "String) (`candor-bench-workloads.jar jackson`)"},
    {"name": "lucene", "group": "lib", "argv": ["-jar", "{jar}", "lucene"], "configs": "lib", "self_re": SELF_RE,
     "desc": "Lucene 9.12: indexing 10,000 generated documents (English analyzer) into a ByteBuffersDirectory, "
             "force-merge, 3,000 queries (term, boolean, phrase, range, parsed, sorted) (`candor-bench-workloads.jar "
             "lucene`)"},
    {"name": "regex", "group": "lib", "argv": ["-jar", "{jar}", "regex"], "configs": "lib", "self_re": SELF_RE,
     "desc": "java.util.regex pipeline over 20,000 generated log lines, 4 rounds: split, parse with named groups, "
             "key=value extraction, e-mail/IP masking with replaceAll, word counting (`candor-bench-workloads.jar "
             "regex`)"},
]
LIB_WORKLOADS = [w["name"] for w in WORKLOADS if w["group"] == "lib"]

# Defaults that depend on the mode (--quick, --server, or neither: full).
DEFAULTS = {
    "full":  {"reps": 5, "startup_reps": 10, "classload_reps": 10, "manythreads_reps": 3, "quiet_budget": 120,
              "classload_configs": ["none", "10ms", "loaded", "dns"], "floor_extra": ["100us" + NOSIG]},
    "quick": {"reps": 3, "startup_reps": 3, "classload_reps": 3, "manythreads_reps": 2, "quiet_budget": 30,
              "classload_configs": ["none", "10ms"], "floor_extra": []},
    "server": {"reps": 3, "quiet_budget": 60, "floor_extra": []},
}
DEFAULT_JVM_OPTS = ["-Xms1g", "-Xmx1g"]


def candor_interval(cfg):
    """The INTERVALS key of a candor cpu config ("1ms", "100us-vm", ...), or None for any other."""
    if cfg in INTERVALS:
        return cfg
    base, _, walk = cfg.partition("-")
    return base if base in INTERVALS and walk in WALKS else None


def candor_walk(cfg):
    return cfg.partition("-")[2] if candor_interval(cfg) and cfg not in INTERVALS else None


def env_prefix(cfg):
    """What a command line starts with to run config cfg: `env K=V ...` for a variant of VARIANT_ENV, else nothing."""
    return env_argv(VARIANT_ENV.get(candor_walk(cfg) or "", {}))


def env_argv(env):
    """`env K=V ...` setting the variables of dict env for a command line, or nothing for none."""
    return ["env"] + ["%s=%s" % kv for kv in sorted(env.items())] if env else []


def kind(cfg):
    """none, candor (its cpu engine), or the PEERS kind: candor-wall, ap, jfr."""
    if cfg == "none":
        return "none"
    if candor_interval(cfg):
        return "candor"
    return PEERS.get(cfg, {}).get("kind")


def floor_interval(cfg):
    """The INTERVALS key of the platform floor a config's cost per sample is set beside, or None."""
    return candor_interval(cfg) or PEERS.get(cfg, {}).get("floor")


def runs_on(cfg, feature):
    """Whether a config can run on a JDK of that feature release (JFR CPUTimeSample needs 25)."""
    return feature >= PEERS.get(cfg, {}).get("min_feature", 0)


def config_label(cfg):
    if cfg == "none":
        return "no profiler"
    if candor_interval(cfg):
        walk = candor_walk(cfg)
        options = VARIANT_OPTIONS.get(walk, "walk=" + str(walk)) if walk else ""
        label = "candor cpu %s%s" % (candor_interval(cfg), " " + options if options else "")
        return label + VARIANT_LABELS.get(walk, "")
    return PEERS.get(cfg, {}).get("label", cfg)

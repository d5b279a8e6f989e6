"""Reading profiles in collapsed form (candor's, and async-profiler's written with `ann,threads`)."""

import json
import os
import re
import subprocess

JAVA_FRAME = re.compile(r"_\[[ji01]\]$")


def read_collapsed(path):
    """(frames, count) of every line of a collapsed file."""
    with open(path) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if stack and n.isdigit():
                yield stack.split(";"), int(n)


# The roots candor gives the stacks of JVM-internal threads (allthreads, or itimer, whose process-wide
# timer signals them too): what async-profiler's threads that never ran Java code are in its profiles.
JVM_THREAD_ROOTS = frozenset(("[GC]", "[JIT compiler]", "[VM]", "[other native]"))


def on_jvm_thread(frames):
    """A candor stack of a JVM-internal thread (its root names the thread's kind)."""
    return bool(frames) and frames[0] in JVM_THREAD_ROOTS


def split_thread(frames):
    """(thread root or "?", the frames below it) of an async-profiler stack written with `threads`."""
    if frames[0].startswith("[") and "tid=" in frames[0]:
        return frames[0], frames[1:]
    return "?", frames


def count_collapsed(path):
    """async-profiler collapsed output written with `ann,threads`: samples in all; threads are Java
    threads when any of their stacks holds a Java frame (annotated _[j] _[i] _[0] _[1]), the others
    (JIT compilers, GC: async-profiler samples every thread of the process) are counted apart; the
    samples of Java threads without a Java frame are counted by their leaf pseudo-frame."""
    per_thread = {}
    try:
        for frames, n in read_collapsed(path):
            thread, frames = split_thread(frames)
            t = per_thread.setdefault(thread, {"samples": 0, "java": 0, "other": {}})
            t["samples"] += n
            if any(JAVA_FRAME.search(fr) for fr in frames):
                t["java"] += n
            else:
                key = frames[-1] if frames and frames[-1].startswith("[") else "no Java frame"
                t["other"][key] = t["other"].get(key, 0) + n
    except OSError:
        return None
    total = sum(t["samples"] for t in per_thread.values())
    jt = [t for t in per_thread.values() if t["java"]]
    other = {}
    for t in jt:
        for k, v in t["other"].items():
            other[k] = other.get(k, 0) + v
    return {"samples": total, "java": sum(t["java"] for t in jt), "java_thread_samples": sum(t["samples"] for t in jt),
            "jvm_thread_samples": total - sum(t["samples"] for t in jt), "not_java": other}


# Frames by what they are. async-profiler with `ann` marks Java frames (_[j] compiled, _[i] inlined, _[0]
# interpreted, _[1] C1) and kernel frames (_[k]); its native C/C++ frames carry no mark. candor writes Java
# frames unmarked as pkg.Class.method, its kernel frames with _[k], generated code as [stub] NAME (native),
# pseudo-frames in brackets ([unknown_java], [kernel_unsampled] for kernel time counted but not sampled).
KERNEL_FRAME = re.compile(r"_\[k\]$")
KERNEL_UNSAMPLED = "[kernel_unsampled]"
SWITCH_LEAF = re.compile(r"^finish_task_switch(\.[a-z]+\.\d+)*_\[k\]$")
GCC_CLONE = re.compile(r"\.(cold|isra\.\d+|part\.\d+|constprop\.\d+|lto_priv\.\d+)$")


def java_style(frame):
    """A Java method name as candor writes it (pkg.Class.method), or async-profiler without `ann` (pkg/Class.method)."""
    if frame.endswith((".<init>", ".<clinit>")):
        return True
    return ("." in frame or "/" in frame) and "::" not in frame and not any(c in frame for c in " ():<>,") \
        and not GCC_CLONE.search(frame)


def is_native(frame, annotated):
    """A native C/C++ frame: not Java, not kernel, not a pseudo-frame. In an annotated profile every Java
    frame is marked, so an unmarked name is native; else the name decides."""
    if frame.startswith("[stub] "):
        return True  # candor's generated code (itable stub, StubRoutines::...): async-profiler's are unmarked natives
    if frame.startswith("[") or KERNEL_FRAME.search(frame) or JAVA_FRAME.search(frame):
        return False
    return annotated or not java_style(frame)


def shares(path):
    """Samples of the threads that ran Java code (async-profiler also samples JIT and GC threads: their
    stacks never hold a Java frame), and how many of them were in the kernel (a _[k] frame, or candor's
    [kernel_unsampled]), how many had a native C/C++ leaf, and how many the scheduler's finish_task_switch
    as leaf (a tick deferred while a context switch ran with interrupts off). None if the file cannot be read."""
    try:
        stacks = list(read_collapsed(path))
    except OSError:
        return None
    annotated = any(JAVA_FRAME.search(f) for frames, _ in stacks for f in frames)
    java_threads = {split_thread(frames)[0] for frames, _ in stacks
                    if any(JAVA_FRAME.search(f) or (not annotated and java_style(f)) for f in frames)}
    out = {"samples": 0, "kernel": 0, "native": 0, "switch": 0}
    for frames, n in stacks:
        thread, frames = split_thread(frames)
        if annotated and thread not in java_threads or not frames or on_jvm_thread(frames):
            continue
        out["samples"] += n
        if any(KERNEL_FRAME.search(f) or f == KERNEL_UNSAMPLED for f in frames):
            out["kernel"] += n
        if is_native(frames[-1], annotated):
            out["native"] += n
        if SWITCH_LEAF.match(frames[-1]):
            out["switch"] += n
    return out


# The Jetty server's endpoint methods (bench/workloads Endpoints.json, .regex, .hash, .mix), as candor and
# async-profiler (with `ann`) name them: each request's work runs under exactly one of them.
ENDPOINT_FRAME = re.compile(r"^dev[./]candor[./]bench[./]Endpoints\.(json|regex|hash|mix)(_\[[ji01]\])?$")
ENDPOINTS = ("json", "regex", "hash", "mix")


def endpoint_samples(path):
    """The Java threads' samples by the server endpoint on their stack, "other" for the rest (Jetty's I/O and
    HTTP parsing, the JDK's): what the server's own per-endpoint CPU is set against. Stacks of pseudo-frames
    only (a failure without a stack: [cpu_unsampled], [unknown]) are left out, as no profile can place them.
    None if the file cannot be read."""
    try:
        stacks = list(read_collapsed(path))
    except OSError:
        return None
    annotated = any(JAVA_FRAME.search(f) for frames, _ in stacks for f in frames)
    java_threads = {split_thread(frames)[0] for frames, _ in stacks if any(JAVA_FRAME.search(f) for f in frames)}
    out = dict.fromkeys(ENDPOINTS + ("other",), 0)
    for frames, n in stacks:
        thread, frames = split_thread(frames)
        if annotated and thread not in java_threads or all(f.startswith("[") for f in frames) or on_jvm_thread(frames):
            continue
        out[next((m.group(1) for m in map(ENDPOINT_FRAME.match, frames) if m), "other")] += n
    return out


def jfr_to_collapsed(java, cli, jfr, dst):
    """A JFR recording's CPU samples as collapsed stacks (`candor report`); dst, or None when that failed."""
    p = subprocess.run([java, "-jar", cli, "report", jfr, "-o", dst], capture_output=True, text=True, timeout=600)
    return dst if p.returncode == 0 and os.path.exists(dst) else None


def for_compare(path, dst):
    """async-profiler's collapsed output with the threads that never ran Java code left out (candor samples
    Java threads only, unless `allthreads`): like is compared with like. Frames stay as async-profiler wrote
    them: `candor compare` reads its annotations (java/lang/Thread.run_[j]) and names. Returns dst."""
    java_threads = {split_thread(frames)[0] for frames, _ in read_collapsed(path)
                    if any(JAVA_FRAME.search(f) for f in frames)}
    return keep_stacks(path, dst, lambda frames: split_thread(frames)[0] in java_threads)


def java_threads_only(path, dst):
    """candor's profile without its JVM-internal threads' stacks (see JVM_THREAD_ROOTS), as for_compare leaves
    async-profiler's out: dst, or path itself when it has none."""
    if not any(on_jvm_thread(frames) for frames, _ in read_collapsed(path)):
        return path
    return keep_stacks(path, dst, lambda frames: not on_jvm_thread(frames))


def without_switch_ticks(path):
    """A collapsed profile without the stacks whose leaf is the scheduler's finish_task_switch (SWITCH_LEAF): a
    copy beside it (.noswitch.collapsed), or path itself when it is no collapsed file (JFR holds no kernel frames)."""
    if not path.endswith(".collapsed"):
        return path
    return keep_stacks(path, path[:-len(".collapsed")] + ".noswitch.collapsed",
                       lambda frames: not (frames and SWITCH_LEAF.match(frames[-1])))


def keep_stacks(path, dst, keep):
    """A copy of a collapsed file with only the stacks whose frames `keep` accepts. Returns dst."""
    with open(dst, "w") as out:
        for frames, n in read_collapsed(path):
            if keep(frames):
                out.write("%s %d\n" % (";".join(frames), n))
    return dst


def overlap_matrix(java, cli, files, *options):
    """overlap(A,B) as `candor compare` computes it for every pair of `files`, each read once
    (bench/overlap/OverlapMatrix.java on the CLI jar `cli`; options: --drop-failures, --java-only); (matrix, None), or
    (None, what went wrong)."""
    tool = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "overlap", "OverlapMatrix.java")
    p = subprocess.run([java, "-Xmx4g", "-cp", cli, tool] + list(options) + list(files), capture_output=True,
                       text=True, timeout=1800)
    try:
        matrix = json.loads(p.stdout)
    except ValueError:
        matrix = None
    if p.returncode != 0 or not isinstance(matrix, list) or len(matrix) != len(files):
        return None, "OverlapMatrix of %d profiles failed (exit %d): %s" % (
            len(files), p.returncode, (p.stderr or p.stdout)[-300:])
    return matrix, None


def compare_overlap(java, cli, a, b, *options):
    """overlap(A,B) as `candor compare` (the CLI jar `cli`) prints it for profiles a and b, with compare's
    options (--drop-failures: recorded stacks only); (value, None), or (None, what went wrong)."""
    p = subprocess.run([java, "-jar", cli, "compare", a, b] + list(options), capture_output=True, text=True,
                       timeout=600)
    m = re.search(r"^overlap\(A,B\)\s+(-?[\d.]+)", p.stdout, re.M)
    if not m:
        return None, "candor compare of %s and %s failed (exit %d): %s" % (
            os.path.basename(a), os.path.basename(b), p.returncode, (p.stderr or p.stdout)[-300:])
    return float(m.group(1)), None

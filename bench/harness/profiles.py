"""Reading profiles in collapsed form (candor's, and async-profiler's written with `ann,threads`)."""

import re

JAVA_FRAME = re.compile(r"_\[[ji01]\]$")


def read_collapsed(path):
    """(frames, count) of every line of a collapsed file."""
    with open(path) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if stack and n.isdigit():
                yield stack.split(";"), int(n)


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

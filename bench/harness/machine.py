"""The machine and software a bench run measured on (the Machine table of the results)."""

import gzip
import hashlib
import os
import platform
import re
import subprocess

from .procs import REPO, sh


def config_hz():
    release = platform.release()
    for path in ("/proc/config.gz", "/boot/config-" + release):
        try:
            opener = gzip.open if path.endswith(".gz") else open
            with opener(path, "rt") as f:
                for line in f:
                    if line.startswith("CONFIG_HZ="):
                        return line.strip().split("=", 1)[1] + " (" + path + ")"
        except OSError:
            continue
    return "unknown"


def java_feature(java):
    out = subprocess.run([java, "-version"], capture_output=True, text=True).stderr
    m = re.search(r'version "(\d+)', out)
    return int(m.group(1)) if m else 0


def describe(java, lib):
    lscpu = {}
    for line in sh(["lscpu"]).splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            lscpu[k.strip()] = v.strip()
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = "%.1f GiB" % (int(line.split()[1]) / 1024 / 1024)
    except OSError:
        pass
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            paranoid = f.read().strip()
    except OSError:
        paranoid = "unknown"
    jver = subprocess.run([java, "-version"], capture_output=True, text=True).stderr.strip().splitlines()
    sha = ""
    if lib and os.path.exists(lib):
        with open(lib, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()[:12]
    commit = sh(["git", "-C", REPO, "rev-parse", "--short", "HEAD"]).strip()
    dirty = sh(["git", "-C", REPO, "status", "--porcelain", "--", "agent"]).strip()
    return {
        "cpu_model": lscpu.get("Model name", platform.processor() or "unknown"),
        "hypervisor": lscpu.get("Hypervisor vendor", "none"),
        "nproc": os.cpu_count(),
        "kernel": platform.release(),
        "config_hz": config_hz(),
        "memory": mem,
        "perf_event_paranoid": paranoid,
        "java": java,
        "java_version": jver[1] if len(jver) > 1 else (jver[0] if jver else "unknown"),
        "java_version_full": jver,
        "libcandor_sha256": sha,
        "git_commit": commit + (" + uncommitted agent changes" if dirty else ""),
        "python": platform.python_version(),
    }

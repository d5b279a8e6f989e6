"""Drives one run of the Jetty workload (`candor-bench-workloads.jar jetty`) with wrk.

The server JVM is started with whatever profiler options the caller gives; once it has written its
port file, wrk runs the paced request mix of bench/server/pace.lua for the warm-up, the driver marks
the start of the measured window (POST /admin/mark), wrk runs again for the measured seconds, and
the driver stops the server (POST /admin/stop), whose answer is the server's own account of the
window: requests served, process CPU (user and system), CPU of its Java threads. The JVM then exits,
and a profiler writes its output. Nothing here decides what is good: the caller summarizes.
"""

import json
import os
import re
import subprocess
import time
import urllib.request

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACE_LUA = os.path.join(BENCH, "server", "pace.lua")

# the pacing of bench/README.md ("The server bench"): 4 connections, 2 ms of think time after each
# response, one wrk thread; about 0.5-0.7 CPUs of server work on this 2-vCPU machine
DEFAULTS = {"warmup_s": 5, "seconds": 15, "connections": 4, "think_ms": 2, "threads": 200}


def jetty_argv(jar, work_dir, threads):
    """The server's part of a java command line; the port file and request bodies go under work_dir. The heap
    is pre-touched (-XX:+AlwaysPreTouch): a heap that G1 first touches as it goes puts page faults (the kernel
    clearing pages) into some measured windows and not others, 0.2% to 9% of every profiler's samples in
    one bench round, which no profiler causes and which lowers every overlap at random."""
    return ["-XX:+AlwaysPreTouch", "-jar", jar, "jetty", "--threads", str(threads), "--port-file", os.path.join(work_dir, "port"),
            "--bodies", os.path.join(work_dir, "bodies")]


def prepare(work_dir):
    """Empties the run's directory of a previous run's port file (the server writes a new one when ready)."""
    os.makedirs(work_dir, exist_ok=True)
    port = os.path.join(work_dir, "port")
    if os.path.exists(port):
        os.remove(port)


def wait_port(proc, work_dir, timeout_s=60):
    path = os.path.join(work_dir, "port")
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        if proc.poll() is not None:
            raise RuntimeError("the server exited with %s before it listened" % proc.returncode)
        try:
            with open(path) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            time.sleep(0.05)
    raise RuntimeError("the server wrote no port file in %d s" % timeout_s)


def post(port, path, timeout_s=60):
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=b"", method="POST")
    with urllib.request.urlopen(req, timeout=timeout_s) as r:
        return r.read().decode()


UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def parse_wrk(text):
    """The figures of wrk's report (with --latency) that the bench keeps; latencies in ms."""
    out = {}
    m = re.search(r"(\d+) requests in ([\d.]+)(\w+)", text)
    if m:
        out["requests"] = int(m.group(1))
        out["seconds"] = float(m.group(2)) * UNITS.get(m.group(3), 1.0) / 1e3
    m = re.search(r"Requests/sec:\s+([\d.]+)", text)
    if m:
        out["requests_per_s"] = float(m.group(1))
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    out["non_2xx"] = int(m.group(1)) if m else 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    out["socket_errors"] = sum(int(x) for x in m.groups()) if m else 0
    for p, v, u in re.findall(r"^\s+(50|90|99)%\s+([\d.]+)(\w+)$", text, re.M):
        out["latency_p%s_ms" % p] = float(v) * UNITS.get(u, 1.0)
    return out


def wrk_cmd(wrk, port, seconds, connections, think_ms, work_dir):
    return [wrk, "-t1", "-c%d" % connections, "-d%ds" % seconds, "--latency", "-s", PACE_LUA,
            "http://127.0.0.1:%d" % port, "--", os.path.join(work_dir, "bodies"), str(think_ms)]


def drive(proc, work_dir, warmup_s, seconds, connections, think_ms, wrk="wrk", log=None, at_mark=None):
    """Loads the running server `proc` (started with jetty_argv(work_dir)): warm-up, mark, measured
    load, stop; at_mark(proc), if given, runs between the warm-up and the mark. Returns {"server": its result, "wrk": the measured run's figures, "wrk_warmup": ...};
    {"error": ...} instead when something failed (the server is then killed)."""
    out = {}
    try:
        port = wait_port(proc, work_dir)
        out["port"] = port
        for phase, secs in (("wrk_warmup", warmup_s), ("wrk", seconds)):
            if phase == "wrk":
                if at_mark:
                    at_mark(proc)
                post(port, "/admin/mark")
            r = subprocess.run(wrk_cmd(wrk, port, secs, connections, think_ms, work_dir),
                               capture_output=True, text=True, timeout=secs + 60)
            out[phase] = parse_wrk(r.stdout)
            if log:
                log.write(("== %s (exit %d)\n%s%s" % (phase, r.returncode, r.stdout, r.stderr)).encode())
            if r.returncode != 0:
                raise RuntimeError("wrk exited %d: %s" % (r.returncode, (r.stderr or r.stdout)[-300:]))
        out["server"] = json.loads(post(port, "/admin/stop"))
    except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as e:
        out["error"] = str(e)
        proc.kill()
    return out


def alternating_runs(work_root, reps, cfgs):
    """(round, config, its run's directory, its profile's path) for `reps` rounds of every config in `cfgs`, in
    that order every round, so that the machine's drift spreads over all configs alike."""
    for rnd in range(1, reps + 1):
        for cfg in cfgs:
            work = os.path.join(work_root, "%s-r%d" % (cfg, rnd))
            yield rnd, cfg, work, os.path.join(work, "profile.collapsed")


def result_line(text):
    """The server's `jetty: {json}` line from its output (the same result /admin/stop answered)."""
    for line in reversed(text.splitlines()):
        if line.startswith("jetty: {"):
            try:
                return json.loads(line[len("jetty: "):])
            except ValueError:
                return None
    return None

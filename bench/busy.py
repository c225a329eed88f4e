#!/usr/bin/env python3
"""A training step on a busy machine (`make bench`): the MLP step of case 3 (784-512-512-10, SGD,
batch 256) while other processes keep the cores busy, symx from C++ (bench/busy_step.cpp, linked
against libsymx.a) and from Python against PyTorch eager.

    PYTHONPATH=build/python python3 bench/busy.py --build build --out build/bench/busy [--competitors 0,1]

Each competitor is a Python process spinning on one core (`while True: pass`) for the whole
measurement. Every framework runs three times: with its defaults (symx: OMP_WAIT_POLICY=passive
with GOMP_SPINCOUNT=10000, set by the library for every program unless the user chose a policy;
PyTorch: its own), with libgomp's default spin (GOMP_SPINCOUNT=300000, what C++ programs had before
symx set its defaults) and with OMP_WAIT_POLICY=active forced. Each run is a fresh process
(bench/worker.py or busy_step), in --rounds interleaved rounds (default 3): each cell is the median
over the rounds of the runs' mean steps (throughput, not a median that hides the steps delayed by
spinning threads), with their range. Writes OUT/busy.json and
OUT/busy.md. The machine's other load is not controlled: loadavg is recorded with every run.
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import run as B  # noqa: E402  (bench/run.py: its Runner, worker and C++ build helpers)

FRAMEWORKS = ("symx_cpp", "symx", "torch_eager")
LABEL = {"symx_cpp": "symx C++", "symx": "symx Python", "torch_eager": "torch eager"}
# default: each framework's own; libgomp: OpenMP's own default (a 300,000-spin wait), which C++
# programs had before symx set its defaults; active: OMP_WAIT_POLICY=active (spin for minutes).
MODES = {"default": {}, "libgomp": {"GOMP_SPINCOUNT": "300000"}, "active": {"OMP_WAIT_POLICY": "active"}}


def start_competitors(n):
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def stop(processes):
    for p in processes:
        p.kill()
    for p in processes:
        p.wait()


def run_cpp(R, exe, env_extra, seconds):
    env = dict(R.env)
    env.update(env_extra)
    rc, out, err, rss, wall = B.run_proc([exe, str(seconds)], env, 300)
    try:
        res = json.loads(out.strip().splitlines()[-1])
        res["ok"] = True
    except (IndexError, ValueError):
        res = {"ok": False, "error": "busy_step rc %s: %s" % (rc, B.tail(err, 300))}
    R.say("  %-11s mean %s" % ("symx_cpp", B.fmt_time(res.get("mean_s")) if res["ok"] else res["error"]))
    return res


def measure(R, exe, competitors, mode, seconds):
    procs = start_competitors(competitors)
    try:
        time.sleep(0.5)  # the competitors are running
        results = {}
        for fw in FRAMEWORKS:
            if fw == "symx_cpp":
                results[fw] = run_cpp(R, exe, MODES[mode], seconds) if exe else {"ok": False, "error": "not built"}
            else:
                results[fw] = R.worker("mlp", fw, env_extra=MODES[mode], budget=seconds, min_reps=20, max_reps=2000)
            results[fw]["loadavg_1min_after"] = B.loadavg()
        return results
    finally:
        stop(procs)


def summary(runs):
    """The median over rounds of the runs' mean step times, and their range; (None, None) when none succeeded.
    The mean, not the median: a step now and then delayed by a descheduled spinning thread costs
    throughput (items/s) that a median of the steps would not show."""
    times = sorted(r["mean_s"] for r in runs if r.get("ok") and r.get("mean_s"))
    if not times:
        return None, None
    return times[len(times) // 2], (times[0], times[-1])


def ratio(a, b):
    return round(a / b, 2) if a and b else None


def cell(t, spread):
    return "—" if t is None else "%s (%s–%s)" % (B.fmt_time(t), B.fmt_time(spread[0]), B.fmt_time(spread[1]))


def markdown(table, args, machine, load_after):
    lines = [
        "# MLP training step (batch 256) on a busy machine",
        "",
        "%s, %s cores, %d threads; competitors: Python processes spinning on one core each. Each cell: the "
        "median over %d interleaved rounds (each run a fresh process) of the run's mean step over %.0f s, and "
        "the range over the rounds. default: each framework's own settings (symx: passive, 10,000 spins); "
        "libgomp: GOMP_SPINCOUNT=300000, OpenMP's own default, what C++ programs had before symx set its "
        "defaults; active: OMP_WAIT_POLICY=active. Load average (1 min) of the machine: %s before, %s after."
        % (
            machine["cpu"],
            machine["cores"],
            args.threads,
            args.rounds,
            args.seconds,
            machine["loadavg_1min"],
            load_after,
        ),
        "",
        "| competitors | framework | default | libgomp | active | libgomp / default | active / default "
        "| torch eager / this (default) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for n, by_mode in table.items():
        torch = summary(by_mode["default"]["torch_eager"])[0]
        for fw in FRAMEWORKS:
            (d, ds), (g, gs), (a, as_) = (summary(by_mode[m][fw]) for m in MODES)
            vs = ratio(torch, d) if fw != "torch_eager" else None
            cells = [cell(d, ds), cell(g, gs), cell(a, as_), ratio(g, d), ratio(a, d), vs]
            lines.append("| %s | %s | %s |" % (n, LABEL[fw], " | ".join("—" if c is None else str(c) for c in cells)))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(B.ROOT, "build", "bench", "busy"))
    ap.add_argument("--build", default=os.path.join(B.ROOT, "build"))
    ap.add_argument("--competitors", default="0,1", help="comma-separated counts of spinning processes")
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds of timed steps per run")
    ap.add_argument("--rounds", type=int, default=3, help="rounds over every setting (the other load varies)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--time-limit", type=float, default=1800.0)
    args = ap.parse_args()
    args.budget = args.seconds
    os.makedirs(args.out, exist_ok=True)
    R = B.Runner(args)
    for name in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT"):  # the defaults under test, not the caller's
        R.env.pop(name, None)
    machine = B.machine_info(args.threads)
    machine["loadavg_1min"] = B.loadavg()
    exe, how = B.build_overhead_cpp(R, "busy_step")
    if exe is None:
        R.say("busy_step: " + how)
    counts = [int(c) for c in args.competitors.split(",") if c.strip()]
    table = {n: {mode: {fw: [] for fw in FRAMEWORKS} for mode in MODES} for n in counts}
    for k in range(args.rounds):
        for n in counts:
            for mode in MODES:
                R.say("round %d, competitors %d, %s:" % (k + 1, n, mode))
                for fw, res in measure(R, exe, n, mode, args.seconds).items():
                    table[n][mode][fw].append(res)
    md = markdown(table, args, machine, B.loadavg())
    result = {"machine": machine, "build_command": how, "seconds": args.seconds, "rounds": args.rounds}
    result["results"] = table
    with open(os.path.join(args.out, "busy.json"), "w") as f:
        json.dump(result, f, indent=1)
    with open(os.path.join(args.out, "busy.md"), "w") as f:
        f.write(md)
    R.say("")
    R.say(md)


if __name__ == "__main__":
    main()

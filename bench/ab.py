"""A/B of two symx builds, case by case, interleaved: the "before and after" of an engine change.

    python3 bench/ab.py --before ../base/build --after build [--rounds 3] [--cases elementwise,mlp]

Runs bench/worker.py for symx only, with each build's Python package, alternating before/after
for every case and round so that the machine's drift (this VM is noisy) hits both alike, and
prints the median of each case per build and the ratio after/before. It does not replace
`make bench` (the peers and the targets); it answers "did my change make symx slower?".
With --overhead, the C++ call overhead (case 5's call_into row) is measured too, with each
build's own bench/overhead program (built the way run.py builds it).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STEADY = ["elementwise", "xent", "mlp", "cnn32", "cnn128", "overhead"]
COMPILE = ["mlp", "cnn32"]
UNITS = {"overhead": ("us", 1e6), "overhead_cpp": ("ns", 1e9)}


def worker(build, case, mode, budget, cache_dir):
    env = dict(os.environ)
    threads = str(os.cpu_count() or 1)  # as bench/run.py sets them
    env.update({"OMP_NUM_THREADS": threads, "SYMX_NUM_THREADS": threads, "OPENBLAS_NUM_THREADS": threads})
    env.pop("SYMX_BACKEND", None)
    env["PYTHONPATH"] = os.path.join(os.path.abspath(build), "python")
    if cache_dir:  # compile mode: a cold cache per measurement unless warm is asked for
        env["SYMX_CACHE_DIR"] = cache_dir
    cmd = [
        sys.executable,
        os.path.join(HERE, "worker.py"),
        "--case",
        case,
        "--fw",
        "symx",
        "--mode",
        mode,
        "--budget",
        str(budget),
    ]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600).stdout
    for line in out.splitlines():
        if line.startswith("BENCH_RESULT "):
            r = json.loads(line[len("BENCH_RESULT ") :])
            if not r.get("ok"):
                raise RuntimeError("%s %s failed: %s" % (build, case, r.get("error")))
            return r.get("median_s", r.get("compile_s"))
    raise RuntimeError("%s %s: no result" % (build, case))


def overhead_programs(builds):
    """bench/overhead.cpp linked against each build's libsymx.a, as run.py links it."""
    import tempfile
    import types

    sys.path.insert(0, HERE)
    import run

    exes = {}
    for which, build in builds.items():
        R = types.SimpleNamespace(
            build=os.path.abspath(build), out=tempfile.mkdtemp(prefix="symx-ab-"), env=dict(os.environ)
        )
        exe, how = run.build_overhead_cpp(R)
        if exe is None:
            raise RuntimeError(how)
        exes[which] = exe
    return exes


def overhead_cpp(exe):
    out = subprocess.run([exe, "1000000"], capture_output=True, text=True, timeout=300).stdout
    return json.loads(out.strip().splitlines()[-1])["median_ns"] * 1e-9


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True, help="build directory of the baseline")
    ap.add_argument("--after", required=True, help="build directory of the change")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--budget", type=float, default=4.0)
    ap.add_argument("--cases", default=",".join(STEADY))
    ap.add_argument("--compile", action="store_true", help="also cold and warm compile times (case 6)")
    ap.add_argument("--overhead", action="store_true", help="also the C++ call_into overhead (case 5)")
    args = ap.parse_args()
    builds = {"before": args.before, "after": args.after}
    times = {}
    jobs = [(c, "steady", None) for c in args.cases.split(",") if c]
    if args.compile:
        import tempfile

        for c in COMPILE:
            jobs += [(c, "cold", None), (c, "warm", tempfile.mkdtemp(prefix="symx-ab-warm-"))]
    exes = overhead_programs(builds) if args.overhead else {}
    if exes:
        jobs.append(("overhead_cpp", "steady", None))
    for rnd in range(args.rounds):
        for case, mode, warm_dir in jobs:
            for which in ("before", "after") if rnd % 2 == 0 else ("after", "before"):
                if case == "overhead_cpp":
                    t = overhead_cpp(exes[which])
                elif mode == "steady":
                    t = worker(builds[which], case, "steady", args.budget, None)
                else:
                    import tempfile

                    cache = warm_dir + "-" + which if mode == "warm" else tempfile.mkdtemp(prefix="symx-ab-cold-")
                    if mode == "warm" and not os.path.isdir(cache):
                        os.makedirs(cache, mode=0o700)
                        worker(builds[which], case, "compile", args.budget, cache)  # fills the cache
                    t = worker(builds[which], case, "compile", args.budget, cache)
                times.setdefault((case, mode), {}).setdefault(which, []).append(t)
                unit, scale = UNITS.get(case, ("ms", 1e3))
                print("round %d %-12s %-6s %-6s %.4g %s" % (rnd + 1, case, mode, which, t * scale, unit), flush=True)
    print("\n| case | mode | before (median) | after (median) | after/before |\n|---|---|---|---|---|")
    for (case, mode), t in times.items():
        b, a = statistics.median(t["before"]), statistics.median(t["after"])
        unit, scale = UNITS.get(case, ("ms", 1e3))
        print("| %s | %s | %.3f %s | %.3f %s | %.2fx |" % (case, mode, b * scale, unit, a * scale, unit, a / b))


if __name__ == "__main__":
    main()

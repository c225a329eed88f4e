"""Runs one benchmark case for one framework in this (fresh) process and prints one line
`BENCH_RESULT {json}`. Started by bench/run.py; one process per (case, framework), so each
framework's peak RSS is its own and a crash or hang costs only that measurement.

  python3 bench/worker.py --case mlp --fw jax [--mode steady|compile] [--budget 8]

cases: elementwise xent mlp cnn32 cnn128 overhead lstm scan1m argsort4m median_rows cumprod special_chain
einsum_attn eigh512 svd512 eigh_batch svd_batch; fw: symx jax torch_eager torch_compile, and numpy for the last five.
"""

import argparse
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common as C  # noqa: E402


def load(fw):
    if fw == "symx":
        import fw_symx as m

        return m, {}
    if fw == "numpy":
        import fw_numpy as m

        return m, {}
    if fw == "jax":
        import fw_jax as m

        if os.environ.get("SYMX_BENCH_JAX_CACHE"):
            m.enable_persistent_cache(os.environ["SYMX_BENCH_JAX_CACHE"])
        return m, {}
    import fw_torch as m

    return m, {"compiled": fw == "torch_compile"}


def steady(args):
    t_import = time.perf_counter()
    m, kw = load(args.fw)
    import_s = time.perf_counter() - t_import
    if args.case.startswith("cnn"):
        built = m.cnn(int(args.case[3:]), **kw)
    else:
        built = getattr(m, args.case)(**kw)
    step, probe = built[0], built[1]
    out = {"import_s": import_s, "rss_after_setup_mb": C.peak_rss_mb()}
    # probe: the result of the first call (training steps then diverge with the repetition count)
    if args.case == "overhead":
        t0 = time.perf_counter()
        step()
        out["first_call_s"] = time.perf_counter() - t0
        out["probe"] = probe()
        inner = 20000 if args.fw != "torch_compile" else 5000
        out.update(C.time_tiny(step, inner=inner, samples=25))
    else:
        out.update(
            C.time_calls(step, budget_s=args.budget, min_reps=args.min_reps, max_reps=args.max_reps, after_first=probe)
        )
        out["probe"] = out.pop("after_first")
        out["probe2"] = out.pop("after_second")
    if len(built) > 2 and built[2] is not None:
        f = built[2]
        out["compile_count"] = C.compile_count(f)
        out["backend"] = f.backend
    return out


def compile_mode(args):
    # The framework import is not part of the compile time; neither is making the data.
    m, kw = load(args.fw)
    run = m.compile_case(args.case, **kw)
    t0 = time.perf_counter()
    probe, f, again = run()
    out = {"compile_s": time.perf_counter() - t0, "probe": probe}
    # The first call also runs the step once: the next call's time estimates that part, so
    # compile_s - second_call_s estimates the compilation alone (reported beside the main number).
    t0 = time.perf_counter()
    again()
    out["second_call_s"] = time.perf_counter() - t0
    out["compile_only_s"] = max(0.0, out["compile_s"] - out["second_call_s"])
    if f is not None:
        out["compile_count"] = C.compile_count(f)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", required=True)
    ap.add_argument("--fw", required=True, choices=["symx", "jax", "torch_eager", "torch_compile", "numpy"])
    ap.add_argument("--mode", default="steady", choices=["steady", "compile"])
    ap.add_argument("--budget", type=float, default=8.0, help="seconds of timed repetitions (about)")
    ap.add_argument("--min-reps", type=int, default=5)
    ap.add_argument("--max-reps", type=int, default=50)
    args = ap.parse_args()
    try:
        out = steady(args) if args.mode == "steady" else compile_mode(args)
        out["ok"] = True
    except Exception as e:  # reported, not raised: the run goes on without this measurement
        out = {"ok": False, "error": f"{type(e).__name__}: {e}"[:2000]}
        traceback.print_exc()
    # Reported at once: a crash later (at teardown, say) then costs nothing but a note.
    out["self_peak_rss_mb"] = C.peak_rss_mb()
    sys.stdout.flush()
    print("BENCH_RESULT " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()

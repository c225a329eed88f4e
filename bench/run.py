#!/usr/bin/env python3
"""symx benchmark suite (`make bench`): symx against JAX, PyTorch eager and torch.compile, and
against the machine's memory bandwidth, on the same data and dtype (float32), in one run.

    PYTHONPATH=build/python python3 bench/run.py --out build/bench [--cases 1,2,5] [--quick]

Writes OUT/results.json (one record per case) and OUT/results.md (a Markdown table with the
machine it ran on). Each (case, framework) runs in its own fresh worker process
(bench/worker.py), so:
  * peak_rss_mb is per framework: the peak resident set of that worker process, which includes
    the Python interpreter and the framework's import (tens to hundreds of MB on its own);
  * one framework failing, crashing or timing out records null and a note; the run goes on.

Times are medians over repeated calls after warm-up (the number of repetitions adapts to the
cost of a call, see common.time_calls); case 5 uses batches of calls (median of batch means).
Threads: OMP_NUM_THREADS / SYMX_NUM_THREADS / torch.set_num_threads all set to --threads
(default: all cores); XLA keeps its defaults.

Cases (issue 3, "Benchmarks"):
  1 elementwise chain tanh(x*a+b)*sigmoid(x)+exp(-x*x) on 16M float32 (x, a, b arrays); limit =
    4 arrays x 16M x 4 B / bandwidth of a STREAM-style triad out=x*a+b (bench/triad.cpp, g++
    -O3 -march=native -fopenmp) measured in the same run (median time of 30 repetitions)
  2 softmax cross-entropy forward + backward on (4096, 1000), one-hot labels
  3 MLP 784-512-512-10 training step (relu, softmax cross-entropy, SGD), batch 256
  4 the paper's CIFAR-10 CNN training step (conv-bn-relu-pool x2, dense-bn-relu, dense; Adam),
    batch 32 and 128
  5 per-call overhead of a compiled scalar add: from Python, and from C++ (bench/overhead.cpp,
    Function::call_into with preallocated outputs, linked against libsymx.a)
  7 an LSTM training step (sequence 100, batch 64, input 128, hidden 256, one layer; forward,
    backward, SGD): symx's sx.scan of the cell, torch.nn.LSTM (eager: PyTorch's LSTM kernel), the
    same compiled by torch.compile, JAX's lax.scan of the cell
  8 a scan of 1e6 iterations of a scalar body (c = 0.999 c + 1): symx and JAX (lax.scan), one call
    each, and the body called 1e6 times from a C++ loop (bench/scan_loop.cpp, call_into)
  6 compile time of cases 3 and 4 (batch 32): cold (fresh SYMX_CACHE_DIR, fresh process, from
    sx.function to the end of the first call) and warm (same cache, new process); peers: JAX's
    first jit call and torch.compile's first call in fresh processes (torch with a fresh
    inductor cache for cold; the warm columns reuse the caches: JAX's persistent compilation
    cache, inductor's FX graph cache)
  9-13 the NumPy surface (argsort, median, cumprod, special functions, einsum), NumPy as a peer
  14-17 eigh and svd of (512, 512) float32 and of a (64, 64, 64) batch, each with the gradient of a
    gauge-invariant cost (bench/common.py spectral_data); NumPy's column is the decomposition alone
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

import common as C  # noqa: E402  (bench/ is the script's folder)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PEERS = ("jax", "torch_eager", "torch_compile")
FRAMEWORKS = ("symx",) + PEERS
# Cases 9-17 (the NumPy surface, the spectral decompositions) have NumPy/SciPy as a peer too.
NUMPY_PEERS = PEERS + ("numpy",)
ALL_FRAMEWORKS = FRAMEWORKS + ("numpy",)
LABEL = {
    "symx": "symx",
    "jax": "JAX",
    "torch_eager": "torch eager",
    "torch_compile": "torch.compile",
    "numpy": "NumPy",
}
NUMPY_CASES = {
    9: ("argsort4m", "9. argsort of 4M float32 (stable)"),
    10: ("median_rows", "10. median over the rows of (4096, 1024)"),
    11: ("cumprod", "11. cumprod of (4096, 4096) over axis 1"),
    12: ("special_chain", "12. lgamma(x) + digamma(x) + erfinv(y), 16M float32"),
    13: ("einsum_attn", "13. einsum bhqd,bhkd->bhqk (8, 8, 512, 64)"),
    14: ("eigh512", "14. eigh of (512, 512) float32 with its gradient (NumPy: eigh alone)"),
    15: ("svd512", "15. svd of (512, 512) float32 with its gradient (NumPy: svd alone)"),
    16: ("eigh_batch", "16. eigh of (64, 64, 64) float32 with its gradient (NumPy: eigh alone)"),
    17: ("svd_batch", "17. svd of (64, 64, 64) float32 with its gradient (NumPy: svd alone)"),
}


# ---- processes ----


def run_proc(cmd, env, timeout, cwd=ROOT):
    """Runs cmd; returns (returncode or None on timeout, stdout, stderr, peak_rss_mb, wall_s)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=cwd, start_new_session=True)
        timer, timed_out = C.kill_after(p, timeout)
        try:
            _, status, usage = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        rc = None if timed_out.is_set() else p.returncode
        return rc, out.read(), err.read(), usage.ru_maxrss / 1024.0, wall


def tail(text, n=600):
    text = text.strip()
    return text[-n:] if len(text) > n else text


class Runner:
    def __init__(self, args):
        self.args = args
        self.out = os.path.abspath(args.out)
        self.build = os.path.abspath(args.build or os.path.dirname(self.out))
        self.cache = os.path.join(self.out, "cache")
        self.deadline = time.time() + args.time_limit
        env = dict(os.environ)
        n = str(args.threads)
        env.update(
            {
                "OMP_NUM_THREADS": n,
                "SYMX_NUM_THREADS": n,
                "MKL_NUM_THREADS": n,
                "OPENBLAS_NUM_THREADS": n,
                "PYTHONUNBUFFERED": "1",
                "SYMX_CACHE_DIR": os.path.join(self.cache, "symx"),
                "TORCHINDUCTOR_CACHE_DIR": os.path.join(self.cache, "torchinductor"),
                "JAX_PLATFORMS": "cpu",
                "TF_CPP_MIN_LOG_LEVEL": "2",
            }
        )
        env.pop("SYMX_BACKEND", None)  # the benchmark is of the compiled backend
        env.pop("SYMX_BENCH_JAX_CACHE", None)
        py = os.path.join(self.build, "python")
        env["PYTHONPATH"] = py + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.env = env
        self.log = open(os.path.join(self.out, "run.log"), "w")

    def say(self, msg):
        print(msg, flush=True)
        self.log.write(msg + "\n")
        self.log.flush()

    def worker(self, case, fw, mode="steady", timeout=240, env_extra=None, budget=None, min_reps=5, max_reps=50):
        """One worker process; returns its result dict (ok False with a note on failure)."""
        left = self.deadline - time.time()
        if left < 20:
            return {"ok": False, "error": "skipped: the run's --time-limit was reached"}
        env = dict(self.env)
        env.update(env_extra or {})
        cmd = [
            sys.executable,
            os.path.join(HERE, "worker.py"),
            "--case",
            case,
            "--fw",
            fw,
            "--mode",
            mode,
            "--budget",
            str(budget if budget is not None else self.args.budget),
            "--min-reps",
            str(min_reps),
            "--max-reps",
            str(max_reps),
        ]
        rc, out, err, rss, wall = run_proc(cmd, env, min(timeout, left))
        res = None
        for line in out.splitlines():
            if line.startswith("BENCH_RESULT "):
                res = json.loads(line[len("BENCH_RESULT ") :])
        if res is None:
            why = "timed out after %.0f s" % wall if rc is None else "exit code %s" % rc
            res = {"ok": False, "error": "worker %s: %s; stderr: %s" % (fw, why, tail(err, 400))}
        elif not res.get("ok"):
            res["error"] = res.get("error", "") + " | " + tail(err, 300)
        elif rc != 0:
            res["warning"] = "worker %s exited with %s after reporting its result%s" % (
                fw,
                "a timeout" if rc is None else "code %s" % rc,
                " (signal %d)" % -rc if rc and rc < 0 else "",
            )
        res["peak_rss_mb"] = round(rss, 1)
        res["wall_s"] = round(wall, 2)
        t = res.get("median_s", res.get("compile_s"))
        self.say(
            "  %-8s %-14s %-8s %s  (worker %.1f s, peak RSS %.0f MB)"
            % (case, fw, mode, fmt_time(t) if res.get("ok") else "FAILED: " + res.get("error", "")[:300], wall, rss)
        )
        return res


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


# ---- formatting ----


def fmt_time(s):
    if s is None:
        return "—"
    if s < 1e-6:
        return "%.0f ns" % (s * 1e9)
    if s < 1e-3:
        return "%.2f µs" % (s * 1e6)
    if s < 1:
        return "%.2f ms" % (s * 1e3)
    return "%.2f s" % s


def machine_info(threads):
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem_gb = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal"):
                    mem_gb = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            fl = re.search(r"^flags\s*:(.*)$", f.read(), re.M)
            if fl:
                have = set(fl.group(1).split())
                flags = " ".join(x for x in ("avx2", "fma", "avx512f", "avx512_bf16", "amx_tile") if x in have)
    except OSError:
        pass
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        rev = rev + ("+local changes" if dirty else "") if rev else None
    except (OSError, subprocess.SubprocessError):
        rev = None
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "loadavg_1min_at_start": loadavg(),
        "cpu_flags": flags,
        "memory_gb": mem_gb,
        "threads": threads,
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "kernel": platform.release(),
        "symx_revision": rev,
    }


def versions(env):
    code = (
        "import json, numpy, torch, jax, jaxlib\n"
        "print(json.dumps({'numpy': numpy.__version__, 'torch': torch.__version__, "
        "'jax': jax.__version__, 'jaxlib': jaxlib.__version__}))"
    )
    rc, out, err, _, _ = run_proc([sys.executable, "-c", code], env, 120)
    try:
        return json.loads(out.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {"error": tail(err, 300)}


# ---- the cases ----


def record(name, case_id, results, unit_note=None):
    rec = {"name": name, "case": case_id, "limit_s": None, "loadavg_1min_after": loadavg()}
    notes = []
    for fw in ALL_FRAMEWORKS:
        r = results.get(fw)
        key = fw + "_s"
        if r is None:
            rec[key] = None
            continue
        t = r.get("median_s", r.get("compile_s")) if r.get("ok") else None
        rec[key] = t
        if not r.get("ok"):
            notes.append("%s: %s" % (LABEL[fw], r.get("error", "failed")))
        elif r.get("warning"):
            notes.append("%s: %s" % (LABEL[fw], r["warning"]))
    rec["peak_rss_mb"] = {fw: results[fw].get("peak_rss_mb") for fw in ALL_FRAMEWORKS if results.get(fw)}
    rec["details"] = {fw: dict(results[fw]) for fw in ALL_FRAMEWORKS if results.get(fw)}
    sx = rec["details"].get("symx", {})
    if sx.get("backend") and sx["backend"] != "compiled":
        notes.append("symx ran on the %s backend (SYMX_BACKEND?)" % sx["backend"])
    rec["notes"] = notes
    if unit_note:
        rec["notes"].append(unit_note)
    return rec


def check_probes(rec, rtol=2e-3):
    """Flags frameworks whose result probes disagree with the median of the others: the cases
    must compute the same thing. probe: the first call's loss (or an output checksum); probe2:
    the second call's (for training steps: the loss after one update, which checks gradients
    and the update rule)."""
    for key in ("probe", "probe2"):
        vals = {fw: d.get(key) for fw, d in rec["details"].items() if d.get("ok") and d.get(key) is not None}
        if len(vals) < 2:
            continue
        ref = sorted(vals.values())[len(vals) // 2]
        bad = [fw for fw, v in vals.items() if abs(v - ref) > rtol * max(1.0, abs(ref))]
        rec[key + "_values"] = vals
        if bad:
            rec["notes"].append(
                "results disagree (%s: %s vs median %.6g)"
                % (
                    "first call" if key == "probe" else "second call",
                    ", ".join("%s=%.6g" % (LABEL[f], vals[f]) for f in bad),
                    ref,
                )
            )


def steady_case(R, case, name, case_id, frameworks=FRAMEWORKS, **kw):
    R.say("case %s: %s" % (case_id, name))
    timeouts = kw.pop("timeouts", {})
    results = {}
    for fw in frameworks:
        results[fw] = R.worker(
            case,
            fw,
            timeout=timeouts.get(fw, kw.get("timeout", 240)),
            **{k: v for k, v in kw.items() if k != "timeout"},
        )
    rec = record(name, case_id, results)
    check_probes(rec)
    return rec


def triad(R):
    exe = os.path.join(R.out, "triad")
    cmd = ["g++", "-O3", "-march=native", "-fopenmp", os.path.join(HERE, "triad.cpp"), "-o", exe]
    rc, out, err, _, _ = run_proc(cmd, R.env, 120)
    if rc != 0:
        return {"ok": False, "error": "triad did not compile: " + tail(err)}
    rc, out, err, rss, _ = run_proc([exe, str(16 * 1024 * 1024), "30"], R.env, 120)
    if rc != 0:
        return {"ok": False, "error": "triad failed: " + tail(err)}
    res = json.loads(out.strip().splitlines()[-1])
    res["ok"] = True
    R.say(
        "  triad: %.2f GB/s median (%.2f GB/s best), %d threads"
        % (res["median_gbps"], res["best_gbps"], res["threads"])
    )
    return res


def case1(R):
    rec = steady_case(
        R, "elementwise", "1. elementwise chain, 16M f32", 1, budget=R.args.budget, min_reps=10, max_reps=50
    )
    tr = triad(R)
    rec["triad"] = tr
    if tr.get("ok"):
        # the ideal fused kernel reads x, a, b and writes out: the triad's bytes exactly
        ideal_bytes = 4 * 16 * 1024 * 1024 * 4
        rec["limit_s"] = ideal_bytes / (tr["median_gbps"] * 1e9)
        rec["limit_note"] = "4 x 16M x 4 B at the triad's median bandwidth %.2f GB/s" % tr["median_gbps"]
        rec["notes"].append(
            "bandwidth limit: %s (best triad repetition %.2f GB/s)" % (rec["limit_note"], tr["best_gbps"])
        )
        if rec["symx_s"]:
            rec["fraction_of_limit"] = rec["limit_s"] / rec["symx_s"]
    else:
        rec["limit_s"] = None
        rec["notes"].append("bandwidth limit: " + tr.get("error", ""))
    return rec


def build_overhead_cpp(R, name="overhead"):
    """Compiles bench/<name>.cpp (overhead.cpp, or busy_step.cpp for bench/busy.py) against
    libsymx.a with the library's link line (from CMakeCache.txt when present: LAPACKE, OpenBLAS,
    oneDNN, zlib and FFTW when the build uses them)."""
    lib = os.path.join(R.build, "libsymx.a")
    if not os.path.exists(lib):
        return None, "no %s (build symx first)" % lib
    libs = []
    cache = os.path.join(R.build, "CMakeCache.txt")
    if os.path.exists(cache):
        text = open(cache).read()
        for var in (
            "LAPACKE_LIBRARY",
            "OPENBLAS_LIBRARY",
            "DNNL_LIBRARY",
            "ZLIB_LIBRARY_RELEASE",
            "ZLIB_LIBRARY",
            "FFTW3F_OMP_LIBRARY",  # FFTW (issue 22): the threads libraries before the ones they call
            "FFTW3_OMP_LIBRARY",
            "FFTW3F_LIBRARY",
            "FFTW3_LIBRARY",
        ):
            m = re.search(r"^%s:\w+=(.+)$" % var, text, re.M)
            if m and os.path.exists(m.group(1).strip()) and m.group(1).strip() not in libs:
                libs.append(m.group(1).strip())
    # The headers of the build's own sources (bench/ab.py compiles this against an older build too,
    # whose structs may differ from this tree's).
    source = ROOT
    if os.path.exists(cache):
        m = re.search(r"^CMAKE_HOME_DIRECTORY:\w+=(.+)$", open(cache).read(), re.M)
        if m and os.path.isdir(os.path.join(m.group(1).strip(), "include")):
            source = m.group(1).strip()
    base = ["g++", "-O2", "-std=c++20", "-I" + os.path.join(source, "include"), os.path.join(HERE, name + ".cpp"), lib]
    # libcrypto: the kernel cache's SHA-256; -u symx_omp_defaults: what symx::symx's CMake link options add.
    tail_libs = ["-lcrypto", "-fopenmp", "-ldl", "-lpthread", "-Wl,--undefined=symx_omp_defaults"]
    exe = os.path.join(R.out, name)
    attempts = [
        libs or ["-llapacke", "-lopenblas"],
        ["-llapacke", "-lopenblas", "-ldnnl"],
        ["-llapacke", "-lopenblas", "-ldnnl", "-lz"],
    ]
    err = ""
    for extra in attempts:
        cmd = base + extra + tail_libs + ["-o", exe]
        rc, _, err, _, _ = run_proc(cmd, R.env, 300)
        if rc == 0:
            return exe, " ".join(cmd)
    return None, name + ".cpp did not build: " + tail(err, 500)


def case5(R):
    rec = steady_case(R, "overhead", "5. call overhead, scalar add, from Python", 5, timeout=240)
    exe, how = build_overhead_cpp(R)
    crec = {
        "name": "5. call overhead, scalar add, from C++ (call_into)",
        "case": 5,
        "jax_s": None,
        "torch_eager_s": None,
        "torch_compile_s": None,
        "limit_s": None,
        "loadavg_1min_after": loadavg(),
        "notes": ["peers: none measured from C++ (the peers' rows are in the Python line above)"],
    }
    if exe is None:
        crec["symx_s"] = None
        crec["notes"].append(how)
        R.say("  C++ overhead: " + how)
    else:
        crec["build_command"] = how
        rc, out, err, rss, _ = run_proc([exe, str(R.args.cpp_calls)], R.env, 240)
        try:
            res = json.loads(out.strip().splitlines()[-1])
            crec["symx_s"] = res["median_ns"] * 1e-9
            crec["details"] = {"symx": res}
            crec["peak_rss_mb"] = {"symx": round(rss, 1)}
            R.say("  C++ overhead: %.1f ns median per call_into (%s backend)" % (res["median_ns"], res["backend"]))
        except (IndexError, ValueError, KeyError):
            crec["symx_s"] = None
            crec["notes"].append("overhead run failed (rc %s): %s" % (rc, tail(err, 400)))
            R.say("  C++ overhead FAILED: " + tail(err, 300))
    return [rec, crec]


def case8(R):
    """A scan of 1e6 iterations of a scalar body: symx and JAX's lax.scan in one call each, and the
    same body called 1e6 times from a C++ loop through call_into."""
    rec = steady_case(
        R, "scan1m", "8. scan of 1e6 scalar steps (one call)", 8, frameworks=("symx", "jax"), min_reps=3, max_reps=15
    )
    exe, how = build_overhead_cpp(R, "scan_loop")
    if exe is None:
        rec["notes"].append("C++ loop: " + how)
        return rec
    rc, out, err, _, _ = run_proc([exe], R.env, 240)
    try:
        res = json.loads(out.strip().splitlines()[-1])
        rec["cpp_loop_s"] = res["median_s"]
        rec["notes"].append(
            "C++ loop of 1e6 call_into of the body: %s (%.0f ns per iteration)"
            % (fmt_time(res["median_s"]), res["median_s"] * 1e3)
        )
        R.say("  C++ loop over call_into: %s" % fmt_time(res["median_s"]))
    except (IndexError, ValueError, KeyError):
        rec["notes"].append("C++ loop failed (rc %s): %s" % (rc, tail(err, 300)))
    for fw in ("symx", "jax"):
        t = rec.get(fw + "_s")
        if t:
            rec["notes"].append("%s: %.1f ns per iteration" % (LABEL[fw], t * 1e3))
    return rec


def case6(R, case, label):
    """Cold and warm compile time for one training step; returns two records."""
    R.say("case 6: compile time, %s" % label)
    tmp = tempfile.mkdtemp(prefix="symx-bench-compile-", dir=R.out)
    sx_cache = os.path.join(tmp, "symx")
    ind_cache = os.path.join(tmp, "inductor")
    jax_cache = os.path.join(tmp, "jax")
    to = R.args.compile_timeout
    cold = {
        "symx": R.worker(case, "symx", "compile", to, {"SYMX_CACHE_DIR": sx_cache}),
        # JAX's cold number: no persistent cache at all (its default)
        "jax": R.worker(case, "jax", "compile", to),
        "torch_eager": R.worker(case, "torch_eager", "compile", to, {"TORCHINDUCTOR_CACHE_DIR": ind_cache}),
        "torch_compile": R.worker(case, "torch_compile", "compile", to, {"TORCHINDUCTOR_CACHE_DIR": ind_cache}),
    }
    # populate JAX's persistent cache (untabulated), then the warm runs in new processes
    R.worker(case, "jax", "compile", to, {"SYMX_BENCH_JAX_CACHE": jax_cache})
    warm = {
        "symx": R.worker(case, "symx", "compile", to, {"SYMX_CACHE_DIR": sx_cache}),
        "jax": R.worker(case, "jax", "compile", to, {"SYMX_BENCH_JAX_CACHE": jax_cache}),
        "torch_compile": R.worker(case, "torch_compile", "compile", to, {"TORCHINDUCTOR_CACHE_DIR": ind_cache}),
    }
    rc = record("6. compile %s, cold" % label, 6, cold)
    rc["notes"].append(
        "time from function creation to the end of the first call, fresh process and caches; "
        "torch eager = its first step (no compilation)"
    )
    rw = record("6. compile %s, warm cache" % label, 6, warm)
    rw["notes"].append(
        "new process reusing the cold run's disk caches (JAX: persistent compilation cache; "
        "torch: inductor/FX graph cache)"
    )
    for rec in (rc, rw):
        check_probes(rec)
        est = {fw: d.get("compile_only_s") for fw, d in rec["details"].items() if d.get("ok")}
        rec["compile_only_s"] = est
        if est:
            rec["notes"].append(
                "compilation alone, estimated as the first call minus the second call: "
                + ", ".join(
                    "%s %s" % (LABEL[fw], fmt_time(t) if t > 1e-3 else "~0 (within noise)")
                    for fw, t in est.items()
                    if t is not None
                )
            )
    shutil.rmtree(tmp, ignore_errors=True)
    return [rc, rw]


# ---- targets and the table ----


def best_peer(rec, peers=PEERS):
    vals = [(rec.get(p + "_s"), p) for p in peers if rec.get(p + "_s")]
    return min(vals) if vals else (None, None)


def apply_targets(rec):
    """Issue 3's targets: fills target (text) and target_met (True/False/None when unmeasurable)."""
    s = rec.get("symx_s")
    name = rec["name"]
    j, te, tc = rec.get("jax_s"), rec.get("torch_eager_s"), rec.get("torch_compile_s")
    met, why = None, []
    if rec["case"] == 1:
        rec["target"] = ">= 80% of bandwidth limit; faster than JAX and torch.compile"
        conds = []
        if s and rec.get("limit_s"):
            conds.append(rec["limit_s"] / s >= 0.8)
            why.append("%.0f%% of limit" % (100 * rec["limit_s"] / s))
        conds += [s < p for p in (j, tc) if p and s]
        met = all(conds) if s and conds else None
    elif rec["case"] in (2, 3, 4):
        rec["target"] = "faster than JAX and torch eager; no slower than torch.compile"
        conds = [s < p for p in (j, te) if p and s] + ([s <= tc] if tc and s else [])
        met = all(conds) if s and conds else None
    elif rec["case"] == 5:
        py = "Python" in name
        lim = 3e-6 if py else 1e-6
        rec["target"] = "< %d µs" % round(lim * 1e6)
        rec["target_s"] = lim
        met = (s < lim) if s else None
    elif rec["case"] in NUMPY_CASES:
        rec["target"] = "faster than every peer"
        peers = [rec.get(p + "_s") for p in NUMPY_PEERS if rec.get(p + "_s")]
        met = all(s < p for p in peers) if s and peers else None
    elif rec["case"] == 6:
        if "warm" in name:
            rec["target"] = "< 100 ms"
            rec["target_s"] = 0.1
            met = (s < 0.1) if s else None
        else:
            rec["target"] = "<= 2x JAX" + (" (%s)" % fmt_time(2 * j) if j else "")
            rec["target_s"] = 2 * j if j else None
            met = (s <= 2 * j) if s and j else None
    rec["target_met"] = met
    # compile time: the peers are the compilers (torch eager's first step compiles nothing)
    b, who = best_peer(
        rec, ("jax", "torch_compile") if rec["case"] == 6 else NUMPY_PEERS if rec["case"] in NUMPY_CASES else PEERS
    )
    rec["best_peer"] = who
    rec["symx_vs_best_peer"] = (s / b) if s and b else None
    if why:
        rec["target_detail"] = "; ".join(why)


def markdown(records, machine, vers, args):
    lines = [
        "# symx benchmarks",
        "",
        "Machine: %s, %s cores (%s), %s GB RAM; %d threads; %s. Python %s, NumPy %s, PyTorch %s, JAX %s "
        "(jaxlib %s); symx %s."
        % (
            machine["cpu"],
            machine["cores"],
            machine["cpu_flags"] or "no AVX2",
            machine["memory_gb"],
            machine["threads"],
            machine["date"],
            machine["python"],
            vers.get("numpy"),
            vers.get("torch"),
            vers.get("jax"),
            vers.get("jaxlib"),
            machine["symx_revision"],
        ),
        "",
    ]
    cores = machine["cores"] or 1
    start = machine.get("loadavg_1min_at_start") or 0.0
    during = max([r.get("loadavg_1min_after") or 0.0 for r in records] + [0.0])
    # the benchmark itself adds about `threads` to the load average while it runs
    if start > 0.5 * cores + 0.5 or during > machine["threads"] + 0.5 * cores + 0.5:
        lines += [
            "**Warning: the machine was busy during this run** (1-minute load average %.1f at the start, up "
            "to %.1f during it, on %d cores; the benchmark alone accounts for about %d): other processes "
            "competed for the CPUs, so times are noisier and slower than on an idle machine."
            % (start, during, cores, machine["threads"]),
            "",
        ]
    lines += [
        "Medians of repeated calls after warm-up, float32, same data for every framework. "
        "`symx vs best peer` = symx time / fastest peer's time (below 1: symx is faster). "
        "Limit (case 1): the time to move the fused kernel's bytes (3 inputs + 1 output, 16M float32 each) "
        "at the bandwidth of a STREAM-style triad measured in the same run. Case 6 times run from function "
        "creation to the end of the first call (so they include one step); the notes give the compilation "
        "alone.",
        "",
        "| case | symx | JAX | torch eager | torch.compile | NumPy | limit | symx vs best peer | target "
        "| target met? |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in records:
        ratio = r.get("symx_vs_best_peer")
        met = r.get("target_met")
        met_s = "n/a" if met is None else ("yes" if met else "**no**")
        if r.get("target_detail"):
            met_s += " (%s)" % r["target_detail"]
        lines.append(
            "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |"
            % (
                r["name"],
                fmt_time(r.get("symx_s")),
                fmt_time(r.get("jax_s")),
                fmt_time(r.get("torch_eager_s")),
                fmt_time(r.get("torch_compile_s")),
                fmt_time(r.get("numpy_s")),
                fmt_time(r.get("limit_s")),
                ("%.2fx (%s)" % (ratio, LABEL[r["best_peer"]])) if ratio else "—",
                r.get("target", ""),
                met_s,
            )
        )
    lines += [
        "",
        "Peak RSS (MB) of each framework's worker process (includes the interpreter and the framework "
        "import; the C++ row is the overhead program):",
        "",
        "| case | symx | JAX | torch eager | torch.compile | NumPy |",
        "|---|---|---|---|---|---|",
    ]
    for r in records:
        rss = r.get("peak_rss_mb") or {}
        lines.append(
            "| %s | %s |" % (r["name"], " | ".join(("%.0f" % rss[fw]) if rss.get(fw) else "—" for fw in ALL_FRAMEWORKS))
        )
    notes = [(r["name"], n) for r in records for n in r.get("notes", [])]
    if notes:
        lines += ["", "Notes:", ""] + ["- %s: %s" % (n, t.replace("\n", " ")[:400]) for n, t in notes]
    lines += ["", "Reproduce: `make bench` (writes build/bench/results.json and this file).", ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    ap.add_argument("--build", default=None, help="symx build directory (default: the parent of --out)")
    ap.add_argument("--cases", default="1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", help="comma-separated case numbers")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--budget", type=float, default=6.0, help="seconds of timed repetitions per framework and case")
    ap.add_argument("--cnn-budget", type=float, default=10.0)
    ap.add_argument("--cpp-calls", type=int, default=1000000)
    ap.add_argument("--compile-timeout", type=float, default=400.0)
    ap.add_argument(
        "--time-limit",
        type=float,
        default=2100.0,
        help="whole-run limit in seconds; later measurements are skipped (recorded as null) once it is reached",
    )
    ap.add_argument("--quick", action="store_true", help="short budgets (smoke test)")
    args = ap.parse_args()
    if args.quick:
        args.budget, args.cnn_budget, args.cpp_calls = 1.0, 2.0, 100000
    os.makedirs(args.out, exist_ok=True)
    cases = {int(c) for c in args.cases.split(",") if c.strip()}
    R = Runner(args)
    t_start = time.time()
    machine = machine_info(args.threads)
    vers = versions(R.env)
    R.say(
        "symx bench: %s, %s cores, %d threads; torch %s, jax %s; out %s"
        % (machine["cpu"], machine["cores"], args.threads, vers.get("torch"), vers.get("jax"), R.out)
    )
    records = []
    if 1 in cases:
        records.append(case1(R))
    if 2 in cases:
        records.append(steady_case(R, "xent", "2. softmax cross-entropy fwd+bwd (4096, 1000)", 2))
    if 3 in cases:
        records.append(steady_case(R, "mlp", "3. MLP 784-512-512-10 SGD step, batch 256", 3))
    if 4 in cases:
        for b in (32, 128):
            records.append(
                steady_case(
                    R,
                    "cnn%d" % b,
                    "4. CIFAR-10 CNN Adam step, batch %d" % b,
                    4,
                    budget=args.cnn_budget,
                    min_reps=3,
                    max_reps=30,
                    timeout=420,
                    timeouts={"symx": 600 if b == 128 else 420},
                )
            )
    if 5 in cases:
        records += case5(R)
    if 6 in cases:
        records += case6(R, "mlp", "MLP (case 3)")
        records += case6(R, "cnn32", "CNN batch 32 (case 4)")
    if 7 in cases:
        records.append(
            steady_case(
                R,
                "lstm",
                "7. LSTM step (T 100, B 64, I 128, H 256), SGD",
                7,
                budget=args.cnn_budget,
                min_reps=3,
                max_reps=30,
            )
        )
    if 8 in cases:
        records.append(case8(R))
    for case_id, (case, name) in sorted(NUMPY_CASES.items()):
        if case_id in cases:
            records.append(steady_case(R, case, name, case_id, frameworks=ALL_FRAMEWORKS, min_reps=3, max_reps=30))
    for r in records:
        apply_targets(r)
    machine["loadavg_1min_at_end"] = loadavg()
    result = {
        "machine": machine,
        "versions": vers,
        "settings": {
            "threads": args.threads,
            "budget_s": args.budget,
            "cnn_budget_s": args.cnn_budget,
            "statistic": "median",
            "peak_rss": "per framework: peak RSS of its worker process (interpreter + framework import + the case)",
        },
        "elapsed_s": round(time.time() - t_start, 1),
        "records": records,
    }
    with open(os.path.join(R.out, "results.json"), "w") as f:
        json.dump(result, f, indent=1)
    md = markdown(records, machine, vers, args)
    with open(os.path.join(R.out, "results.md"), "w") as f:
        f.write(md)
    R.say("")
    R.say(md)
    R.say(
        "wrote %s and %s (%.0f s)"
        % (os.path.join(R.out, "results.json"), os.path.join(R.out, "results.md"), time.time() - t_start)
    )


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Data-parallel training on this machine, and what a ring all-reduce predicts beyond it (issue 12).

    PYTHONPATH=build/python python3 bench/distributed.py [--build build] [--out build/bench/distributed.json]
        [--steps 60] [--quick]

1. Throughput: `symx train` (the C++ tool) for paper-cnn and the MLP on the 7,000 bundled training
   digits, 2 epochs, images per second of the second epoch's training phase (metrics.jsonl), for
   1 process x 2 threads (batch 32) against `mpirun -np 2` processes x 1 thread with batch 16 each
   (the same 32 per step) and with batch 32 each (64 per step).
2. Training steps: paper-cnn and the MLP of the tool (batch 32 per step) and bench/run.py's MLP
   (784-512-512-10, SGD, batch 256 per step), timed over --steps steps after two warm-up steps, on 1
   process x 2 threads, 1 x 1, and 2 processes x 1 thread (half the batch each) with the default
   buckets (25 MiB: one per model), with 0.25 MiB buckets whose all-reduces overlap the backward
   pass (HostCallSpec::early), and with the same buckets not overlapped (overlap=False, the plain
   order); from sx.distributed.gradient_stats(): the all-reduce time per step on the background
   thread, the time the step waited for it (not hidden), and the step time.
3. All-reduce bandwidth: sx.distributed.all_reduce of float32 arrays from 4 KiB to 64 MiB on 2
   processes, over shared memory (Open MPI's default on one machine) and over TCP on loopback
   (--mca btl self,tcp); a least-squares fit of t = a + n * b to the TCP times gives the latency a and
   the inverse bandwidth b of the ring model below.
4. The ring all-reduce cost model (Patarasuk and Yuan; what NCCL and Open MPI's ring do): reducing S
   bytes over p machines on links of B bytes/s moves 2 (p - 1) / p * S bytes in and out of each
   machine in 2 (p - 1) steps, so with k buckets per step
       T_allreduce(p) = 2 (p - 1) k a + 2 (p - 1) / p * S / B
   and with each machine keeping its batch (weak scaling, as DistributedDataParallel), the scaling
   efficiency is
       E(p) = T_step / (T_step + T_exposed(p)),   T_exposed = T_allreduce (no overlap)
                                                   T_exposed = max(0, T_allreduce - T_hidden) (overlap)
   where T_step is one process's measured step time at batch 32 with 1 thread and T_hidden the part
   of the backward pass after the first bucket is ready (taken as half the step, the backward's
   share of the work: the measured overlap on this machine bounds how much of that is achieved).
   Predictions for 2, 8 and 64 machines on 10 and 100 Gbit/s Ethernet (B = link rate x 0.9 of
   TCP's goodput, a = 25 us and 10 us per message).

Writes OUT (JSON) and OUT with .md (the tables), and prints the tables.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MNIST = os.path.join(ROOT, "data", "mnist")
MODELS = ("paper-cnn", "mlp")  # the `symx` tool's models
# Per model of the step measurements: the examples of one step (all processes together).
STEP_MODELS = {"paper-cnn": 32, "mlp": 32, "bench-mlp": 256}


def mpirun_prefix(n, tcp=False):
    line = ["mpirun", "--oversubscribe", "-np", str(n), "--bind-to", "none"]
    if os.geteuid() == 0:
        line.append("--allow-run-as-root")
    if tcp:
        line += ["--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include", "lo"]
    return line


def env(build):
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(p for p in [os.path.join(build, "python"), e.get("PYTHONPATH", "")] if p)
    e.setdefault("OMPI_MCA_btl_tcp_if_include", "lo")
    e.setdefault("OMPI_MCA_oob_tcp_if_include", "lo")
    return e


# ---- 1. throughput of the symx tool ----


def tool_throughput(build, model, processes, threads, batch, out_dir):
    run = os.path.join(out_dir, f"{model}-{processes}x{threads}-b{batch}")
    shutil.rmtree(run, ignore_errors=True)
    command = [os.path.join(build, "bin", "symx"), "train", "--model", model, "--data", "mnist", "--data-dir", MNIST]
    command += ["--epochs", "2", "--batch-size", str(batch), "--threads", str(threads), "--log", "quiet"]
    command += ["--out", run]
    if processes > 1:
        command = mpirun_prefix(processes) + command
    done = subprocess.run(command, env=env(build), capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        print(done.stdout + done.stderr, file=sys.stderr)
        return None
    with open(os.path.join(run, "metrics.jsonl")) as f:
        epochs = [json.loads(line) for line in f]
    return {"items_per_second": epochs[-1]["items_per_second"], "val_accuracy": epochs[-1]["val_accuracy"]}


# ---- 2. communication inside the training step (one of the processes: --role step) ----


def role_step(model, steps, overlap, bucket_mb, out):
    import numpy as np

    import symx as sx

    d = sx.distributed
    d.init()
    digits = sx.data.load_mnist(MNIST)
    total = STEP_MODELS[model]
    batch = total // d.world_size()
    x = sx.placeholder((None, 1, 28, 28), sx.float32, "x")
    y = sx.placeholder((None,), sx.int64, "y")
    if model == "bench-mlp":
        # bench/run.py's MLP case: 784-512-512-10 with ReLU, SGD at 0.01 (common.py), on the digits.
        sys.path.insert(0, HERE)
        import common

        L = sx.nn.layers
        sizes = common.MLP_SIZES
        layers = [L.Flatten()]
        for width in sizes[1:-1]:
            layers += [L.Dense(width), L.Activation("relu")]
        net = L.Sequential(layers + [L.Dense(sizes[-1])])
        opt = sx.optim.SGD(common.MLP_LR)
    else:
        net, opt, _ = sx.train.make_model(model, (1, 28, 28))
    loss = sx.train.softmax_cross_entropy(net(x, training=True), y)
    if d.world_size() > 1:
        d.DistributedOptimizer(opt, bucket_mb=bucket_mb, overlap=overlap)
    opt.minimize(loss)
    step = sx.function([x, y], [loss], updates=sx.get_updates())
    count = min(len(digits.y) // total, steps + 2) * total
    images = digits.x[:count].astype(np.float32)
    labels = digits.y[:count]
    times = []
    for s in range(steps + 2):
        if s == 2:
            d.reset_gradient_stats()
        lo = (total * s) % count + d.rank() * batch
        d.barrier()
        t0 = time.perf_counter()
        step(images[lo : lo + batch], labels[lo : lo + batch])
        times.append(time.perf_counter() - t0)
    stats = d.gradient_stats()
    if d.rank() == 0:
        params = sum(int(np.prod(v.shape)) for v in sx.variables(trainable=True))
        result = {
            "step_ms": 1e3 * statistics.median(times[2:]),
            "images_per_second": total / statistics.median(times[2:]),
            "comm_ms": 1e3 * stats["comm_seconds"] / steps,
            "wait_ms": 1e3 * stats["wait_seconds"] / steps,
            "buckets_per_step": stats["buckets"] / steps,
            "bytes_per_step": stats["bytes"] / steps,
            "parameters": params,
        }
        with open(out, "w") as f:
            json.dump(result, f)


def step_profile(build, model, processes, steps, overlap, bucket_mb, out_dir, threads=1):
    out = os.path.join(out_dir, f"step-{model}-{processes}x{threads}-{overlap}-{bucket_mb}.json")
    command = [sys.executable, os.path.abspath(__file__), "--role", "step", "--model", model]
    command += ["--steps", str(steps), "--overlap", str(int(overlap)), "--bucket-mb", str(bucket_mb)]
    command += ["--role-out", out]
    if processes > 1:
        command = mpirun_prefix(processes) + command
    threads_env = dict(env(build), SYMX_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    done = subprocess.run(command, env=threads_env, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        print(done.stdout + done.stderr, file=sys.stderr)
        return None
    with open(out) as f:
        return json.load(f)


# ---- 3. all-reduce bandwidth (--role allreduce) ----

SIZES = [1 << k for k in range(12, 27, 2)]  # bytes: 4 KiB .. 64 MiB


def role_allreduce(out):
    import numpy as np

    import symx as sx

    d = sx.distributed
    d.init()
    result = {}
    for size in SIZES:
        a = np.ones(size // 4, np.float32)
        repeats = max(3, min(50, (64 << 20) // size))
        times = []
        for _ in range(repeats):
            d.barrier()
            t0 = time.perf_counter()
            d.all_reduce(a)
            times.append(time.perf_counter() - t0)
        result[size] = statistics.median(times)
    if d.rank() == 0:
        with open(out, "w") as f:
            json.dump(result, f)


def allreduce_times(build, tcp, out_dir):
    out = os.path.join(out_dir, f"allreduce-{'tcp' if tcp else 'shm'}.json")
    command = mpirun_prefix(2, tcp) + [sys.executable, os.path.abspath(__file__), "--role", "allreduce"]
    done = subprocess.run(command + ["--role-out", out], env=env(build), capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        print(done.stdout + done.stderr, file=sys.stderr)
        return None
    with open(out) as f:
        return {int(k): v for k, v in json.load(f).items()}


def fit_latency_bandwidth(times):
    """The latency a (the time of the smallest all-reduce) and the bandwidth 1 / b (the slope from
    1 MiB to the largest size) of t = a + n b, n in bytes: (a seconds, bytes per second)."""
    small, large = min(times), max(times)
    return times[small], (large - (1 << 20)) / (times[large] - times[1 << 20])


# ---- 4. the ring model ----

NETWORKS = {"10 Gbit/s": (10e9 / 8 * 0.9, 25e-6), "100 Gbit/s": (100e9 / 8 * 0.9, 10e-6)}


def ring_seconds(p, size, buckets, bandwidth, latency):
    return 2 * (p - 1) * buckets * latency + 2 * (p - 1) / p * size / bandwidth


def predictions(step_seconds, size, buckets):
    rows = []
    for net, (bandwidth, latency) in NETWORKS.items():
        for p in (2, 8, 64):
            t = ring_seconds(p, size, buckets, bandwidth, latency)
            hidden = step_seconds / 2
            rows.append(
                {
                    "network": net,
                    "machines": p,
                    "allreduce_ms": 1e3 * t,
                    "efficiency_no_overlap": step_seconds / (step_seconds + t),
                    "efficiency_overlap": step_seconds / (step_seconds + max(0.0, t - hidden)),
                }
            )
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=None, help="JSON results (default: BUILD/bench/distributed.json)")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--quick", action="store_true", help="few steps, the MLP's throughput only (smoke test)")
    ap.add_argument("--role", choices=["step", "allreduce"], help=argparse.SUPPRESS)
    ap.add_argument("--role-out", help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    ap.add_argument("--overlap", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--bucket-mb", type=float, default=25, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.role == "step":
        return role_step(a.model, a.steps, bool(a.overlap), a.bucket_mb, a.role_out)
    if a.role == "allreduce":
        return role_allreduce(a.role_out)

    build = os.path.abspath(a.build)
    out = a.out or os.path.join(build, "bench", "distributed.json")
    work = os.path.join(os.path.dirname(out), "distributed")
    os.makedirs(work, exist_ok=True)
    steps = 10 if a.quick else a.steps
    results = {"date": time.strftime("%Y-%m-%d %H:%M"), "cores": os.cpu_count(), "steps": steps}

    results["throughput"] = {}
    for model in ("mlp",) if a.quick else MODELS:
        results["throughput"][model] = {
            "1x2 batch 32": tool_throughput(build, model, 1, 2, 32, work),
            "2x1 batch 16+16": tool_throughput(build, model, 2, 1, 16, work),
            "2x1 batch 32+32": tool_throughput(build, model, 2, 1, 32, work),
        }
    results["steps_profile"] = {}
    for model in STEP_MODELS:
        results["steps_profile"][model] = {
            "1 process x 2 threads": step_profile(build, model, 1, steps, True, 25, work, threads=2),
            "1 process x 1 thread": step_profile(build, model, 1, steps, True, 25, work),
            # The default buckets (25 MiB) hold all of either model's gradients: one all-reduce,
            # after the whole backward pass. Buckets of 0.25 MiB (4 for each model) can overlap.
            "2 processes, one bucket": step_profile(build, model, 2, steps, True, 25, work),
            "2 processes, overlap": step_profile(build, model, 2, steps, True, 0.25, work),
            "2 processes, no overlap": step_profile(build, model, 2, steps, False, 0.25, work),
        }
    results["allreduce"] = {"shm": allreduce_times(build, False, work), "tcp": allreduce_times(build, True, work)}
    if results["allreduce"]["tcp"]:
        a_s, bw = fit_latency_bandwidth(results["allreduce"]["tcp"])
        results["allreduce_fit_tcp"] = {"latency_us": 1e6 * a_s, "bandwidth_GBps": bw / 1e9}
    results["predictions"] = {}
    for model in STEP_MODELS:
        one = results["steps_profile"][model]["1 process x 1 thread"]
        two = results["steps_profile"][model]["2 processes, one bucket"]
        if one and two:
            results["predictions"][model] = predictions(
                one["step_ms"] / 1e3, two["bytes_per_step"], max(1, round(two["buckets_per_step"]))
            )

    md = render(results)
    print(md)
    with open(out, "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.splitext(out)[0] + ".md", "w") as f:
        f.write(md)


def render(r):
    lines = [f"Data-parallel training on {r['cores']} cores ({r['date']}); medians.", ""]
    lines += ["| model | 1 process x 2 threads, batch 32 | 2 x 1 thread, 16 + 16 | 2 x 1 thread, 32 + 32 |"]
    lines += ["|---|---|---|---|"]
    for model, t in r["throughput"].items():
        cells = [f"{t[k]['items_per_second']:.0f} images/s" if t[k] else "failed" for k in t]
        lines.append(f"| {model} | " + " | ".join(cells) + " |")
    lines += ["", "Training steps (batch: the examples of one step, all processes together):", ""]
    lines += ["| model, batch | 1 process x 2 threads | 2 x 1 thread, one bucket | 2 x 1 thread, 0.25 MiB buckets |"]
    lines += ["|---|---|---|---|"]
    for model, p in r["steps_profile"].items():
        keys = ("1 process x 2 threads", "2 processes, one bucket", "2 processes, overlap")
        cells = [f"{p[k]['images_per_second']:.0f} images/s" if p[k] else "failed" for k in keys]
        lines.append(f"| {model}, {STEP_MODELS[model]} | " + " | ".join(cells) + " |")
    lines += ["", "| model (2 x 1 thread), buckets | step | all-reduce per step | waited (not hidden) | hidden |"]
    lines += ["|---|---|---|---|---|"]
    for model, p in r["steps_profile"].items():
        labels = {
            "2 processes, one bucket": "one bucket (25 MiB)",
            "2 processes, overlap": "0.25 MiB, overlap",
            "2 processes, no overlap": "0.25 MiB, no overlap",
        }
        for key, label in labels.items():
            s = p[key]
            if not s:
                continue
            hidden = 1 - s["wait_ms"] / s["comm_ms"] if s["comm_ms"] > 0 else 0
            lines.append(
                f"| {model}, {label} | {s['step_ms']:.2f} ms | {s['comm_ms']:.2f} ms "
                f"({s['comm_ms'] / s['step_ms']:.0%}) | {s['wait_ms']:.2f} ms ({s['wait_ms'] / s['step_ms']:.0%}) | "
                f"{hidden:.0%} |"
            )
        one = p["1 process x 1 thread"]
        if one:
            lines.append(f"| {model}, 1 process x 1 thread | {one['step_ms']:.2f} ms | - | - | - |")
    if r.get("allreduce_fit_tcp"):
        f = r["allreduce_fit_tcp"]
        lines += ["", f"All-reduce of float32 on 2 processes: TCP on loopback fits t = {f['latency_us']:.0f} us + "]
        lines[-1] += f"bytes / {f['bandwidth_GBps']:.2f} GB/s; 64 MiB takes "
        lines[-1] += f"{1e3 * r['allreduce']['tcp'][1 << 26]:.1f} ms over TCP, "
        lines[-1] += f"{1e3 * r['allreduce']['shm'][1 << 26]:.1f} ms over shared memory."
    lines += ["", "| model | network | machines | all-reduce | efficiency, no overlap | with overlap |"]
    lines += ["|---|---|---|---|---|---|"]
    for model, rows in r["predictions"].items():
        for row in rows:
            lines.append(
                f"| {model} | {row['network']} | {row['machines']} | {row['allreduce_ms']:.2f} ms | "
                f"{row['efficiency_no_overlap']:.0%} | {row['efficiency_overlap']:.0%} |"
            )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()

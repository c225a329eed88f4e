"""One process of the distributed tests (test_distributed.py): run under `mpirun -np N` or alone (a
world of one). Usage: python mpi_worker.py MODE OUT [options]; every rank writes OUT/rank<r>.npz."""

import argparse
import os
import signal
import sys
import time

import numpy as np

import symx as sx

d = sx.distributed
HERE = os.path.dirname(os.path.abspath(__file__))
MNIST = os.path.join(os.environ.get("SYMX_TEST_DATA", os.path.join(HERE, "..", "..", "data")), "mnist")


def inputs(rank):
    """The arrays rank `rank` contributes (the test computes the expected results from these)."""
    g = np.random.default_rng(100 + rank)
    return {
        "f32": g.standard_normal((3, 4)).astype(np.float32),
        "f64": g.standard_normal(5),
        "i64": g.integers(-50, 50, size=6).astype(np.int64),
        "row": g.standard_normal((2, 3)).astype(np.float32),
    }


def collectives(out):
    d.init()
    r, n = d.rank(), d.world_size()
    a = inputs(r)
    res = {
        "sum": d.all_reduce(a["f32"]),
        "mean": d.all_reduce(a["f64"], "mean"),
        "max": d.all_reduce(a["i64"], "max"),
        "isum": d.all_reduce(a["i64"], "sum"),
        "bcast": d.broadcast(a["f64"], root=n - 1),
        "gather": d.all_gather(a["row"]),
        "gather_scalar": d.all_gather(np.float64(r)),
        "local": np.array([d.local_rank(), d.local_size()]),
    }
    # The same collectives as graph nodes, in a compiled function, and a gradient through them.
    p = sx.placeholder((3, 4), sx.float32, "p")
    q = sx.placeholder((2, 3), sx.float32, "q")
    s = d.all_reduce(p * 2.0)
    gathered = d.all_gather(q)
    loss = sx.sum(s * s) + sx.sum(gathered * gathered)
    gp, gq = sx.grad(loss, [p, q])
    f = sx.function([p, q], [s, gathered, d.broadcast(p, root=0), gp, gq])
    res["t_sum"], res["t_gather"], res["t_bcast"], res["t_gp"], res["t_gq"] = f(a["f32"], a["row"])
    # A mismatch between processes is an error naming both shapes, not a hang.
    try:
        d.all_reduce(np.zeros(2 + r, np.float32))
        res["mismatch"] = np.array("no error")
    except d.DistributedError as e:
        res["mismatch"] = np.array(str(e))
    d.barrier()
    np.savez(os.path.join(out, f"rank{r}.npz"), **res)


def _error_of(call):
    """The DistributedError's message of call(), or "no error"."""
    try:
        call()
        return np.array("no error")
    except d.DistributedError as e:
        return np.array(str(e))


def mismatch(out):
    """Shapes that differ only past axis 7, or only in sizes a graph leaves unknown: each collective
    must fail on both processes, naming both shapes (they once summed garbage or kept each its own)."""
    d.init()
    r = d.rank()
    tail = (2, 3) if r == 0 else (3, 2)
    res = {
        "reduce10": _error_of(lambda: d.all_reduce(np.ones((1,) * 8 + tail, np.float32))),
        "bcast9": _error_of(lambda: d.broadcast(np.ones((1,) * 7 + tail, np.float32))),
        "gather9": _error_of(lambda: d.all_gather(np.ones((1,) * 7 + tail, np.float32))),
        "dtype": _error_of(lambda: d.all_reduce(np.ones(3, np.float32 if r == 0 else np.float64))),
    }
    p = sx.placeholder((None, None), sx.float32, "p")
    reduce = sx.function([p], [d.all_reduce(p)])
    res["t_reduce"] = _error_of(lambda: reduce(np.ones(tail, np.float32)))
    q = sx.placeholder((None, 3), sx.float32, "q")
    bcast = sx.function([q], [d.broadcast(q, root=0)])
    res["t_bcast"] = _error_of(lambda: bcast(np.ones((2 if r == 0 else 7, 3), np.float32)))
    # Equal shapes still work after the refusals (every process refused at the same point).
    res["after"] = d.all_reduce(np.ones(4, np.float32))
    np.savez(os.path.join(out, f"rank{r}.npz"), **res)


def timeout(out):
    """Rank 1 comes late to the first all_reduce: rank 0 times out, and then every collective of rank 0
    fails (once, a later all_reduce was matched with the lost one and returned [1, 1, 1, 1])."""
    d.init()
    r = d.rank()
    if r == 1:
        time.sleep(3 * d.timeout_seconds())
    res = {"first": _error_of(lambda: d.all_reduce(np.ones(4, np.float32)))}
    res["second"] = _error_of(lambda: d.all_reduce(np.ones(4, np.float32)))
    res["barrier"] = _error_of(d.barrier)
    np.savez(os.path.join(out, f"rank{r}.npz"), **res)
    sys.exit(0)  # finalization must not wait for the lost collective


def early_exit(out):
    """Rank 1 exits before init: rank 0's init must end within the timeout. (While rank 0 is inside
    MPI_Init mpirun notices the exit; once rank 1 is gone before rank 0 starts it, MPI_Init waits
    forever: rank 0 comes 2 s late.)"""
    if os.environ.get("OMPI_COMM_WORLD_RANK") == "1":
        sys.exit(0)
    time.sleep(2)
    d.init()
    sys.exit("rank 0 got through init")


def model(bn, sync=True):
    # Before a batch norm a bias has no effect (its gradient is rounding noise, which Adam would
    # turn into steps of full size), so the layer has none, as usual.
    layers = [sx.nn.layers.Dense(32, use_bias=not bn)]
    if bn:
        layers.append(sx.nn.layers.BatchNorm(sync=sync))
    layers += [sx.nn.layers.Activation("relu"), sx.nn.layers.Dense(10)]
    return sx.nn.layers.Sequential(layers)


def train(out, optimizer, bn, steps, global_batch, bucket_mb, sync=True):
    """`steps` steps on MNIST digits: every process takes its shard of each global batch."""
    d.init()
    r, n = d.rank(), d.world_size()
    digits = sx.data.load_mnist(MNIST)
    count = steps * global_batch
    x = digits.x[:count].reshape(count, -1).astype(np.float32) / 255
    y = digits.y[:count]
    sx.nn.init.seed(0)
    xs = sx.placeholder((None, 784), sx.float32, "x")
    ys = sx.placeholder((None,), sx.int64, "y")
    net = model(bn, sync)
    loss = sx.nn.losses.softmax_cross_entropy_loss(net(xs, training=True), ys)
    opt = sx.optim.SGD(0.1, momentum=0.9) if optimizer == "sgd" else sx.optim.Adam(1e-3)
    opt = d.DistributedOptimizer(opt, bucket_mb=bucket_mb)
    opt.minimize(loss)
    step = sx.function([xs, ys], [loss], updates=sx.get_updates())
    batches = sx.data.BatchIterator([x, y], batch_size=global_batch // n, seed=3, prefetch=0, shard=r, shards=n)
    variables = sx.variables()
    spread = []  # per step: the largest difference of any variable between the processes
    for xb, yb in batches:
        step(xb, yb)
        flat = np.concatenate([np.ravel(v.value).astype(np.float64) for v in variables])
        spread.append(float(np.max(d.all_reduce(flat, "max") + d.all_reduce(-flat, "max"))) if n > 1 else 0.0)
    res = {v.name: v.value for v in variables}
    res["__spread__"] = np.array(spread)
    res["__stats__"] = np.array([d.gradient_stats()["buckets"], d.gradient_stats()["bytes"]])
    np.savez(os.path.join(out, f"rank{r}.npz"), **res)


def fault(out, how):
    """Rank 1 dies (SIGKILL), raises, or hangs after three steps; rank 0 keeps training."""
    d.init()
    r = d.rank()
    xs = sx.placeholder((8, 4), sx.float32, "x")
    w = sx.variable(np.ones((4, 1), np.float32), name="w")
    loss = sx.mean(sx.matmul(xs, w) ** 2)
    d.DistributedOptimizer(sx.optim.SGD(0.01)).minimize(loss)
    step = sx.function([xs], [loss], updates=sx.get_updates())
    for i in range(100000):
        if r == 1 and i == 3:
            if how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if how == "raise":
                raise ValueError("rank 1 gives up on purpose")
            if how == "hang":
                time.sleep(3600)
        step(np.ones((8, 4), np.float32))
    sys.exit("rank 0 was never stopped")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["collectives", "train", "fault", "mismatch", "timeout", "early-exit"])
    ap.add_argument("out")
    ap.add_argument("--optimizer", default="sgd")
    ap.add_argument("--bn", action="store_true")
    ap.add_argument("--local-bn", action="store_true", help="batch norm with per-process statistics")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--global-batch", type=int, default=32)
    ap.add_argument("--bucket-mb", type=float, default=0.02)
    ap.add_argument("--how", default="kill")
    a = ap.parse_args()
    if a.mode == "collectives":
        collectives(a.out)
    elif a.mode == "train":
        train(a.out, a.optimizer, a.bn, a.steps, a.global_batch, a.bucket_mb, sync=not a.local_bn)
    elif a.mode == "mismatch":
        mismatch(a.out)
    elif a.mode == "timeout":
        timeout(a.out)
    elif a.mode == "early-exit":
        early_exit(a.out)
    else:
        fault(a.out, a.how)

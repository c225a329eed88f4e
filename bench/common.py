"""Shared pieces of the symx benchmark suite: data, initial weights, timing, memory.

Every framework worker builds its inputs from the same seeded NumPy generator, so all four
implementations of a case see bit-identical float32 data and initial weights.
"""

import os
import resource
import statistics
import tempfile
import threading
import time

import numpy as np

# ---- case sizes (issue 3, "Benchmarks") ----
ELEMENTWISE_N = 16 * 1024 * 1024
XENT_SHAPE = (4096, 1000)
MLP_SIZES = (784, 512, 512, 10)
MLP_BATCH = 256
MLP_LR = 0.01
CNN_BATCHES = (32, 128)
ADAM_LR, ADAM_B1, ADAM_B2, ADAM_EPS = 1e-3, 0.9, 0.999, 1e-8
BN_EPS = 1e-5


# case 7: an LSTM training step (one layer, PyTorch's gate order i, f, g, o and two biases)
LSTM_T, LSTM_B, LSTM_I, LSTM_H = 100, 64, 128, 256
LSTM_LR = 0.1
# case 8: a scan of SCAN_N iterations of a scalar body c = c * SCAN_A + 1
SCAN_N = 1_000_000
SCAN_A = 0.999
# cases 9-13 (issue 21, the NumPy surface): argsort of ARGSORT_N float32, the median over the rows
# of MEDIAN_SHAPE, cumprod of CUMPROD_SHAPE (over the last axis), lgamma(x) + digamma(x) + erfinv(y)
# over SPECIAL_N float32, and einsum "bhqd,bhkd->bhqk" at EINSUM_Q, EINSUM_K.
ARGSORT_N = 4 * 1024 * 1024
MEDIAN_SHAPE = (4096, 1024)
CUMPROD_SHAPE = (4096, 4096)
SPECIAL_N = 16 * 1024 * 1024
EINSUM_Q = (8, 8, 512, 64)
EINSUM_K = (8, 8, 512, 64)
# cases 14-17 (issue 22): eigh and svd (reduced) of a symmetric SPECTRAL_ONE float32 matrix and of a
# SPECTRAL_BATCH of them, with the gradient of the gauge-invariant cost sum(values * c) + sum(vectors^2 * wt)
# (NumPy: the decomposition alone, it has no gradients). Symmetric inputs, so that every framework's eigh
# (JAX's symmetrizes, the others read the lower triangle) decomposes the same matrix.
SPECTRAL_ONE = (512, 512)
SPECTRAL_BATCH = (64, 64, 64)


def rng(seed=0):
    return np.random.default_rng(seed)


def elementwise_data():
    r = rng(1)
    x = r.standard_normal(ELEMENTWISE_N, dtype=np.float32)
    a = r.standard_normal(ELEMENTWISE_N, dtype=np.float32)
    b = r.standard_normal(ELEMENTWISE_N, dtype=np.float32)
    return x, a, b


def argsort_data():
    return rng(9).standard_normal(ARGSORT_N, dtype=np.float32)


def median_data():
    return rng(10).standard_normal(MEDIAN_SHAPE, dtype=np.float32)


def cumprod_data():
    # factors near 1, so that the products of 4096 of them stay finite
    return (1.0 + 0.01 * rng(11).standard_normal(CUMPROD_SHAPE)).astype(np.float32)


def special_data():
    r = rng(12)
    x = r.uniform(0.1, 10.0, SPECIAL_N).astype(np.float32)  # lgamma and digamma: positive arguments
    y = r.uniform(-0.99, 0.99, SPECIAL_N).astype(np.float32)  # erfinv: inside (-1, 1)
    return x, y


def einsum_data():
    r = rng(13)
    return r.standard_normal(EINSUM_Q, dtype=np.float32), r.standard_normal(EINSUM_K, dtype=np.float32)


def checksum(a):
    """A probe of a large result: the float64 sum of its first 4096 elements."""
    return float(np.asarray(a).reshape(-1)[:4096].astype(np.float64).sum())


def one_hot(labels, depth):
    out = np.zeros((labels.shape[0], depth), np.float32)
    out[np.arange(labels.shape[0]), labels] = 1.0
    return out


def xent_data():
    r = rng(2)
    logits = r.standard_normal(XENT_SHAPE, dtype=np.float32)
    labels = one_hot(r.integers(0, XENT_SHAPE[1], XENT_SHAPE[0]), XENT_SHAPE[1])
    return logits, labels


def mlp_data():
    """(x, y_onehot, [W1, b1, W2, b2, W3, b3]) with He-scaled normal weights, zero biases."""
    r = rng(3)
    x = r.standard_normal((MLP_BATCH, MLP_SIZES[0]), dtype=np.float32)
    y = one_hot(r.integers(0, MLP_SIZES[-1], MLP_BATCH), MLP_SIZES[-1])
    params = []
    for fan_in, fan_out in zip(MLP_SIZES[:-1], MLP_SIZES[1:]):
        params.append(r.standard_normal((fan_in, fan_out), dtype=np.float32) * np.float32(np.sqrt(2.0 / fan_in)))
        params.append(np.zeros(fan_out, np.float32))
    return x, y, params


# The paper's CIFAR-10 CNN. Parameter order (all float32):
#   w1 (32,3,3,3) g1 (32) be1 (32) | w2 (64,32,3,3) g2 (64) be2 (64) |
#   w3 (4096,128) b3 (128) g3 (128) be3 (128) | w4 (128,10) b4 (10)
# conv layers carry no bias (batch normalization follows and would cancel it).
CNN_PARAM_NAMES = ("w1", "g1", "be1", "w2", "g2", "be2", "w3", "b3", "g3", "be3", "w4", "b4")


def cnn_data(batch):
    r = rng(4)
    x = r.standard_normal((batch, 3, 32, 32), dtype=np.float32)
    y = one_hot(r.integers(0, 10, batch), 10)

    def he(shape, fan_in):
        return r.standard_normal(shape, dtype=np.float32) * np.float32(np.sqrt(2.0 / fan_in))

    params = [
        he((32, 3, 3, 3), 27),
        np.ones(32, np.float32),
        np.zeros(32, np.float32),
        he((64, 32, 3, 3), 288),
        np.ones(64, np.float32),
        np.zeros(64, np.float32),
        he((64 * 8 * 8, 128), 4096),
        np.zeros(128, np.float32),
        np.ones(128, np.float32),
        np.zeros(128, np.float32),
        he((128, 10), 128),
        np.zeros(10, np.float32),
    ]
    return x, y, params


# ---- timing ----


def lstm_data():
    """(x (T, B, I), target (T, B, H), [W_ih (4H, I), W_hh (4H, H), b_ih (4H), b_hh (4H)]): PyTorch's
    layout and its default uniform(-1/sqrt(H), 1/sqrt(H)) initialization. The loss is
    mean((h_t - target_t)^2) over every step's output."""
    r = rng(7)
    T, B, n_in, H = LSTM_T, LSTM_B, LSTM_I, LSTM_H
    x = r.standard_normal((T, B, n_in), dtype=np.float32)
    target = r.standard_normal((T, B, H), dtype=np.float32) * np.float32(0.1)
    k = np.float32(1.0 / np.sqrt(H))
    params = [
        r.uniform(-k, k, (4 * H, n_in)).astype(np.float32),
        r.uniform(-k, k, (4 * H, H)).astype(np.float32),
        r.uniform(-k, k, 4 * H).astype(np.float32),
        r.uniform(-k, k, 4 * H).astype(np.float32),
    ]
    return x, target, params


def time_calls(fn, *, budget_s=8.0, min_reps=5, max_reps=50, warmup=2, after_first=None):
    """Times fn() (which must return only when the work is done).

    The first call is timed on its own (it includes any compilation), then `warmup` untimed
    calls, then `reps` timed calls, reps chosen from the warm-up speed so the timed part takes
    about budget_s (clamped to [min_reps, max_reps]). after_first() runs (untimed) right after
    the first call and after the second. Returns a dict with the median.
    """
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    extra = {"after_first": after_first()} if after_first else {}
    est = first
    for i in range(max(warmup, 1 if after_first else 0)):
        t0 = time.perf_counter()
        fn()
        est = time.perf_counter() - t0
        if i == 0 and after_first:  # the second call's result: training steps after one update
            extra["after_second"] = after_first()
    reps = int(max(min_reps, min(max_reps, budget_s / max(est, 1e-9))))
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return {
        "median_s": statistics.median(times),
        "mean_s": statistics.fmean(times),
        "min_s": min(times),
        "reps": reps,
        "first_call_s": first,
        **extra,
    }


def time_tiny(fn, *, inner=20000, samples=25):
    """Per-call time of a very cheap fn: `samples` batches of `inner` calls; median of batch
    means (seconds per call)."""
    for _ in range(min(inner, 2000)):
        fn()
    means = []
    for _ in range(samples):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        means.append((time.perf_counter() - t0) / inner)
    return {"median_s": statistics.median(means), "min_s": min(means), "reps": inner * samples}


def peak_rss_mb():
    """Peak resident set size of this process so far (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def threads():
    return int(os.environ.get("OMP_NUM_THREADS", os.cpu_count() or 1))


def compile_count(f):
    """A symx Function's compile count: a method since symx 0.1 (as in C++), a property before."""
    count = f.compile_count
    return count() if callable(count) else count


def kill_after(p, timeout):
    """Starts a timer that kills the process group of `p` (started with start_new_session=True)
    after `timeout` seconds. Returns (timer, timed_out): cancel the timer once `p` has ended;
    timed_out is set when the timer fired."""
    timed_out = threading.Event()

    def kill():
        timed_out.set()
        try:
            os.killpg(p.pid, 9)
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout, kill)
    timer.start()
    return timer, timed_out


def write_atomic(path, text):
    """Writes `text` to `path` through a synced temporary file renamed over it."""
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def spectral_data(shape):
    r = rng(14)
    x = r.standard_normal(shape, dtype=np.float32)
    a = ((x + np.swapaxes(x, -1, -2)) / 2).astype(np.float32)
    c = np.linspace(-1, 1, shape[-1], dtype=np.float32)
    wt = r.standard_normal(shape, dtype=np.float32)
    return a, c, wt

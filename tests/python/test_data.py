"""symx.data against NumPy: the IDX reader against gzip + numpy parsing of the same files (the real
digits in data/mnist and files written here), CIFAR files written here, splits, statistics and
one-hot against direct NumPy computations, and the batch iterator's epochs, determinism, restore,
transforms (C++ and Python), error propagation and shutdown."""

import gzip
import os
import threading
import time

import numpy as np
import pytest

import symx as sx
from helpers import MNIST, idx_oracle, run_python, write_idx

# ---- readers ----


def test_read_idx_matches_numpy_on_the_real_digits():
    for name in ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"):
        path = os.path.join(MNIST, name)
        actual, expected = sx.data.read_idx(path), idx_oracle(path)
        assert actual.dtype == np.uint8 and actual.shape == expected.shape
        np.testing.assert_array_equal(actual, expected)


def test_load_mnist_real_digits():
    d = sx.data.load_mnist(MNIST)
    assert d.x.shape == (8000, 1, 28, 28) and d.x.dtype == np.uint8
    assert d.y.shape == (8000,) and d.y.dtype == np.int64
    assert len(d) == d.size == 8000
    images = idx_oracle(os.path.join(MNIST, "train-images-idx3-ubyte.gz"))
    labels = idx_oracle(os.path.join(MNIST, "train-labels-idx1-ubyte.gz"))
    np.testing.assert_array_equal(d.x[:, 0], images)
    np.testing.assert_array_equal(np.bincount(d.y, minlength=10), np.bincount(labels, minlength=10))
    assert set(np.unique(d.y)) == set(range(10))


@pytest.mark.parametrize(
    "code, dtype",
    [(0x08, np.uint8), (0x09, np.int8), (0x0B, np.int16), (0x0C, np.int32), (0x0D, np.float32), (0x0E, np.float64)],
    ids=["u8", "i8", "i16", "i32", "f32", "f64"],
)
@pytest.mark.parametrize("suffix", ["", ".gz"], ids=["raw", "gzip"])
def test_read_idx_every_type(tmp_path, code, dtype, suffix):
    rng = np.random.default_rng(code)
    info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else None
    a = (rng.integers(info.min, info.max, (3, 4, 2), endpoint=True) if info else rng.standard_normal((3, 4, 2))).astype(
        dtype
    )
    path = str(tmp_path / ("a.idx" + suffix))
    write_idx(path, a, code)
    actual = sx.data.read_idx(path)
    np.testing.assert_array_equal(actual, idx_oracle(path))
    np.testing.assert_array_equal(actual, a)
    assert actual.dtype == {np.int8: np.int32, np.int16: np.int32}.get(dtype, dtype)


def test_read_idx_errors_name_the_file(tmp_path):
    path = str(tmp_path / "t.idx.gz")
    with gzip.open(path, "wb") as f:
        f.write(bytes([0, 0, 8, 3]) + b"".join(d.to_bytes(4, "big") for d in (10, 4, 4)) + bytes(100))
    with pytest.raises(sx.IOError, match=r"t\.idx\.gz.*\(160 bytes\).*100 bytes after the 16-byte header.*truncated"):
        sx.data.read_idx(path)
    with pytest.raises(sx.IOError, match="does not exist"):
        sx.data.read_idx(str(tmp_path / "none.idx"))
    with pytest.raises(ValueError):  # IOError is a ValueError in Python
        sx.data.read_idx(path)


_PEAK_RSS = """
import resource, sys
import symx as sx
try:
    sx.data.read_idx(sys.argv[1])
except sx.IOError as e:
    print("IOError:", e)
print("peak_mb", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def _peak_mb(path):
    done = run_python("-c", _PEAK_RSS, str(path))
    assert done.returncode == 0, done.stderr
    return done.stdout, float(done.stdout.split("peak_mb")[1])


def test_read_idx_memory_follows_the_data_not_the_header(tmp_path):
    # A 1 MiB gzip file whose header announces 1 GiB of int16: the reader once zero-filled a buffer
    # of the announced size first (this file peaked at 1,096 MB, the probe's at 1,047 MB); now the
    # buffer grows as data arrives (48 MB, as for a tiny file).
    rng = np.random.default_rng(0)
    header = bytes([0, 0, 0x0B, 3]) + b"".join(d.to_bytes(4, "big") for d in (512, 1024, 1024))
    with gzip.open(tmp_path / "claim.idx.gz", "wb") as f:
        f.write(header + rng.integers(0, 256, 1 << 20, dtype=np.uint8).tobytes())
    write_idx(tmp_path / "small.idx.gz", np.zeros((4, 4), np.uint8), 0x08)
    out, peak = _peak_mb(tmp_path / "claim.idx.gz")
    assert "IOError:" in out and "(1073741824 bytes)" in out and "truncated" in out, out
    _, baseline = _peak_mb(tmp_path / "small.idx.gz")
    assert peak - baseline < 64, f"peak {peak:.0f} MB against {baseline:.0f} MB reading a tiny file"


def test_read_idx_needs_the_gzip_trailer(tmp_path):
    # A gzip file cut inside its CRC trailer holds all the data, unchecked: refused.
    write_idx(tmp_path / "whole.idx.gz", np.arange(12, dtype=np.uint8).reshape(3, 4), 0x08)
    data = (tmp_path / "whole.idx.gz").read_bytes()
    (tmp_path / "cut.idx.gz").write_bytes(data[:-3])
    with pytest.raises(sx.IOError, match=r"cut\.idx\.gz.*cut short.*CRC trailer"):
        sx.data.read_idx(str(tmp_path / "cut.idx.gz"))
    np.testing.assert_array_equal(sx.data.read_idx(str(tmp_path / "whole.idx.gz")), np.arange(12).reshape(3, 4))


def test_load_mnist_errors(tmp_path):
    with pytest.raises(sx.IOError, match="train-images-idx3-ubyte.gz.*symx data download mnist"):
        sx.data.load_mnist(str(tmp_path))
    write_idx(str(tmp_path / "train-images-idx3-ubyte.gz"), np.zeros((3, 2, 2), np.uint8), 8)
    write_idx(str(tmp_path / "train-labels-idx1-ubyte"), np.zeros(2, np.uint8), 8)
    with pytest.raises(sx.IOError, match="holds 3 images.*train-labels-idx1-ubyte' holds 2 labels"):
        sx.data.load_mnist(str(tmp_path))
    with pytest.raises(ValueError, match="neither 'train' nor 'test'"):
        sx.data.load_fashion_mnist(str(tmp_path), "val")


def cifar_records(n, hundred, rng):
    labels = rng.integers(0, 100 if hundred else 10, n, dtype=np.uint8)
    coarse = rng.integers(0, 20, n, dtype=np.uint8)
    pixels = rng.integers(0, 256, (n, 3072), dtype=np.uint8)
    cols = ([coarse[:, None]] if hundred else []) + [labels[:, None], pixels]
    return np.concatenate(cols, axis=1).tobytes(), labels, coarse, pixels.reshape(n, 3, 32, 32)


def test_cifar10_and_cifar100(tmp_path):
    rng = np.random.default_rng(1)
    sub = tmp_path / "cifar-10-batches-bin"
    sub.mkdir()
    parts = [cifar_records(4, False, rng) for _ in range(2)]
    for k, part in enumerate(parts):
        (sub / f"data_batch_{k + 1}.bin").write_bytes(part[0])
    d = sx.data.load_cifar10(str(tmp_path))
    np.testing.assert_array_equal(d.x, np.concatenate([p[3] for p in parts]))
    np.testing.assert_array_equal(d.y, np.concatenate([p[1] for p in parts]))
    raw, fine, coarse, pixels = cifar_records(5, True, rng)
    (tmp_path / "test.bin").write_bytes(raw)
    np.testing.assert_array_equal(sx.data.load_cifar100(str(tmp_path), "test").y, fine)
    c = sx.data.load_cifar100(str(tmp_path), "test", labels="coarse")
    np.testing.assert_array_equal(c.y, coarse)
    np.testing.assert_array_equal(c.x, pixels)
    (tmp_path / "test.bin").write_bytes(raw[:-1])
    with pytest.raises(sx.IOError, match="test.bin' has 15369 bytes.*3074-byte records"):
        sx.data.load_cifar100(str(tmp_path), "test")


def test_load_arrays(tmp_path):
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    y = np.array([1, 0, 1, 1], np.int32)
    np.savez(tmp_path / "d.npz", x=x, y=y, pixels=x)
    d = sx.data.load_arrays(str(tmp_path / "d.npz"))
    np.testing.assert_array_equal(d.x, x)
    np.testing.assert_array_equal(d.y, y)
    assert d.y.dtype == np.int64
    assert sx.data.load_arrays(str(tmp_path / "d.npz"), x_key="pixels", y_key="").y.size == 0
    np.save(tmp_path / "x.npy", x)
    np.testing.assert_array_equal(sx.data.load_arrays(str(tmp_path / "x.npy")).x, x)
    with pytest.raises(sx.IOError, match="no array 'images'"):
        sx.data.load_arrays(str(tmp_path / "d.npz"), x_key="images")


# ---- splits and transforms ----


def numbered(n, classes=10):
    return sx.data.Dataset(np.arange(n, dtype=np.int64).reshape(n, 1), np.arange(n) % classes)


def test_permutation_is_the_documented_algorithm():
    mask = (1 << 64) - 1

    def splitmix_permutation(n, seed):  # Fisher-Yates over splitmix64, unbiased bounded draws
        state, order = seed, list(range(n))

        def draw():
            nonlocal state
            state = (state + 0x9E3779B97F4A7C15) & mask
            z = state
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
            return z ^ (z >> 31)

        for i in range(n - 1, 0, -1):
            bound, threshold = i + 1, ((1 << 64) - (i + 1)) % (i + 1)
            while (r := draw()) < threshold:
                pass
            j = r % bound
            order[i], order[j] = order[j], order[i]
        return order

    for n, seed in ((10, 42), (100, 7), (1, 3), (0, 0), (57, 2**64 - 1)):
        np.testing.assert_array_equal(sx.data.permutation(n, seed), splitmix_permutation(n, seed))


def test_train_test_split():
    d = numbered(100)
    train, test = sx.data.train_test_split(d, 25, seed=4)
    assert (len(train), len(test)) == (75, 25)
    assert sorted(np.concatenate([train.x[:, 0], test.x[:, 0]]).tolist()) == list(range(100))
    np.testing.assert_array_equal(test.y, test.x[:, 0] % 10)
    again = sx.data.train_test_split(d, 25, seed=4)[1]
    np.testing.assert_array_equal(again.x, test.x)
    assert not np.array_equal(sx.data.train_test_split(d, 25, seed=5)[1].x, test.x)
    assert len(sx.data.train_test_split(d, 0.15)[1]) == 15  # a fraction, rounded up
    assert len(sx.data.train_test_split(d, 0.101)[1]) == 11
    strat = sx.data.train_test_split(
        sx.data.Dataset(np.zeros((100, 1)), np.repeat([0, 1, 2], [50, 30, 20])), 10, stratify=True
    )[1]
    np.testing.assert_array_equal(np.bincount(strat.y), [5, 3, 2])
    with pytest.raises(ValueError, match="test_size is 101"):
        sx.data.train_test_split(d, 101)
    with pytest.raises(ValueError, match="fraction"):
        sx.data.train_test_split(d, 1.5)


def test_channel_stats_standardize_one_hot():
    x = np.random.default_rng(3).integers(0, 256, (6, 3, 4, 5), dtype=np.uint8)
    mean, std = sx.data.channel_stats(x)
    np.testing.assert_allclose(mean, x.mean(axis=(0, 2, 3)), rtol=1e-6)
    np.testing.assert_allclose(std, x.std(axis=(0, 2, 3)), rtol=1e-5)
    assert mean.dtype == np.float32
    z = sx.data.standardize(x, mean, std)
    np.testing.assert_allclose(z, (x - mean[None, :, None, None]) / std[None, :, None, None], rtol=1e-5, atol=1e-6)
    y = np.array([3, 0, 2])
    np.testing.assert_array_equal(sx.data.one_hot(y, 4), np.eye(4, dtype=np.float32)[y])
    assert sx.data.one_hot(y, 4, dtype="int64").dtype == np.int64
    with pytest.raises(ValueError, match="label 3 at index 0"):
        sx.data.one_hot(y, 3)
    with pytest.raises(ValueError, match=r"std\[0\]"):
        sx.data.standardize(x, mean, np.zeros(3, np.float32))


def test_builtin_transforms_against_numpy():
    x = np.random.default_rng(4).integers(0, 256, (5, 1, 3, 3), dtype=np.uint8)
    x[2] = 0
    y = np.arange(5)
    xs, ys = sx.data.divide_by_max()(x, y)
    expected = x.astype(np.float32) / np.maximum(x.max(axis=(1, 2, 3), keepdims=True), 1).astype(np.float32)
    np.testing.assert_array_equal(xs, expected)
    np.testing.assert_array_equal(ys, y)
    np.testing.assert_allclose(sx.data.to_float32(1 / 255)(x)[0], x / 255, rtol=1e-6)
    mean, std = sx.data.channel_stats(x + 1)
    np.testing.assert_array_equal(sx.data.standardize_channels(mean, std)(x)[0], sx.data.standardize(x, mean, std))
    assert "divide_by_max" in repr(sx.data.divide_by_max())


# ---- the batch iterator ----


def epoch(it):
    return [batch[0][:, 0].tolist() for batch in it]


def test_iterator_epochs_cover_every_example_once():
    d = numbered(103)
    for drop_last in (False, True):
        it = sx.data.BatchIterator(d, batch_size=10, seed=2, drop_last=drop_last)
        assert len(it) == (10 if drop_last else 11) and it.size == 103
        seen = []
        for e in range(3):
            batches = [(xb, yb) for xb, yb in it]
            assert len(batches) == len(it)
            flat = np.concatenate([xb[:, 0] for xb, _ in batches])
            assert len(set(flat.tolist())) == len(flat) == (100 if drop_last else 103)
            for xb, yb in batches:
                np.testing.assert_array_equal(yb, xb[:, 0] % 10)
                assert xb.flags.writeable
            seen.append(flat.tolist())
            assert it.state() == sx.data.IteratorState(seed=2, epoch=e + 1, batch=0)
        assert seen[0] != seen[1] != seen[2]


def test_iterator_determinism_prefetch_and_restore():
    d = numbered(50)
    a = sx.data.BatchIterator([d.x, d.y], batch_size=8, seed=5, prefetch=0)
    b = sx.data.BatchIterator([d.x, d.y], batch_size=8, seed=5, prefetch=2)
    reference = [epoch(a) for _ in range(3)]
    assert reference == [epoch(b) for _ in range(3)]
    assert reference[0] != epoch(sx.data.BatchIterator([d.x, d.y], batch_size=8, seed=6))
    plain = sx.data.BatchIterator([d.x], batch_size=8, shuffle=False)
    assert sum(epoch(plain), []) == list(range(50))
    # Stop in epoch 1 after 3 batches, save, continue in a new iterator.
    first = sx.data.BatchIterator([d.x, d.y], batch_size=8, seed=5)
    got = [epoch(first)]
    got.append([first.next()[0][:, 0].tolist() for _ in range(3)])
    state = first.state()
    assert (state.seed, state.epoch, state.batch) == (5, 1, 3)
    second = sx.data.BatchIterator([d.x, d.y], batch_size=8, seed=5)
    second.next()
    second.restore(state)
    got[1] += epoch(second)  # the `for` continues the restored epoch
    got.append(epoch(second))
    assert got == reference
    with pytest.raises(ValueError, match="seed 5"):
        sx.data.BatchIterator([d.x], seed=6).restore(state)


def test_python_transforms_get_seeds_and_run_in_order():
    d = numbered(40)
    seen = []

    def record(x, y, seed):
        seen.append(seed)
        return x * 2, y

    def add_one(x, y, seed):
        return x + 1, y

    it = sx.data.BatchIterator([d.x, d.y], batch_size=10, seed=1, transforms=[record, add_one, sx.data.to_float32()])
    xs = [xb for xb, _ in it]
    assert xs[0].dtype == np.float32
    assert sorted(np.concatenate(xs)[:, 0].tolist()) == [2 * i + 1 for i in range(40)]
    again = []
    sx.data.BatchIterator(
        [d.x, d.y], batch_size=10, seed=1, prefetch=0, transforms=[lambda x, y, s: (again.append(s), (x, y))[1]]
    ).next()
    # The four batches of the epoch had seeds of their own (the prefetching thread may already have
    # prepared batches of the next epoch, so `seen` can be longer).
    assert seen[0] == again[0] and len(set(seen[:4])) == 4


def test_transform_errors_keep_type_and_say_which_batch():
    d = numbered(30)

    def fail_on_second(x, y, seed):
        if 10 <= x.min() < 20:
            raise KeyError("no tens")
        return x, y

    for prefetch in (0, 2):
        it = sx.data.BatchIterator(
            [d.x, d.y], batch_size=10, shuffle=False, prefetch=prefetch, transforms=[fail_on_second]
        )
        assert it.next() is not None
        with pytest.raises(KeyError, match="no tens") as info:
            it.next()
        assert "batch 1 of epoch 0" in "".join(getattr(info.value, "__notes__", []))
        assert it.state().batch == 1  # the failed batch is not consumed
    it = sx.data.BatchIterator([d.x], transforms=[lambda x, s: np.zeros((2, 2), np.float32).T[::2]])
    assert it.next()[0].shape == (1, 2)  # non-contiguous results are copied
    with pytest.raises(ValueError, match="failed on batch 0 of epoch 0"):
        sx.data.BatchIterator([d.x], transforms=[sx.data.to_float32(index=3)]).next()
    with pytest.raises(TypeError):
        sx.data.BatchIterator([d.x], transforms=[3])
    with pytest.raises(ValueError, match="array 1 has shape"):
        sx.data.BatchIterator([d.x, np.zeros(3)])


def test_dropping_an_iterator_mid_epoch_with_a_slow_python_transform_returns():
    d = numbered(1000)
    calls = []

    def slow(x, y, seed):
        calls.append(seed)
        time.sleep(0.02)
        return x, y

    it = sx.data.BatchIterator([d.x, d.y], batch_size=4, transforms=[slow])
    start = time.perf_counter()
    next(iter(it))
    del it
    assert time.perf_counter() - start < 5
    assert len(calls) <= 6
    # The consumer's thread waits with the GIL released: another Python thread keeps running.
    it = sx.data.BatchIterator([d.x, d.y], batch_size=4, transforms=[slow])
    ticks = []
    t = threading.Thread(target=lambda: [ticks.append(time.sleep(0.001)) for _ in range(20)])
    t.start()
    for _ in range(5):
        it.next()
    t.join()
    assert len(ticks) == 20


def test_interpreter_exit_with_a_live_iterator_does_not_hang():
    code = (
        "import time, numpy as np, symx as sx\n"
        "def slow(x, s):\n    time.sleep(0.05)\n    return (x,)\n"
        "it = sx.data.BatchIterator([np.zeros((1000, 3))], batch_size=2, transforms=[slow])\n"
        "it.next()\nprint('done')\n"
    )
    result = run_python("-c", code, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "done" in result.stdout


def test_iterator_batch_sizes_that_overflow_are_value_errors():
    # 2^62 x 4 shards wrapped to 0 and the iterator died of SIGFPE dividing by it.
    x = np.arange(10)
    with pytest.raises(ValueError, match="batch_size 4611686018427387904 times shards 4 is more than 2\\^63 - 1"):
        sx.data.BatchIterator([x], batch_size=2**62, shards=4)
    assert [len(b[0]) for b in sx.data.BatchIterator([x], batch_size=2**63 - 1, prefetch=0)] == [10]


def test_state_pickles():
    import pickle

    s = sx.data.IteratorState(seed=3, epoch=2, batch=7)
    assert pickle.loads(pickle.dumps(s)) == s
    assert "epoch=2" in repr(s)

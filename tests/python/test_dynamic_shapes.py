"""Batch-polymorphic placeholders (issue 8, point 2): placeholder((None, 784)) takes batches of any
size; a function specializes and compiles once per input shape; NumPy is the reference."""

import random
import sys
import threading
import time

import numpy as np
import pytest

import symx as sx

RNG = np.random.default_rng(12)


def _mlp(name):
    x = sx.placeholder((None, 6), "float64", name=name)
    y = sx.placeholder((None,), "int64", name=name + "_labels")
    w1 = sx.variable(RNG.normal(size=(6, 8)), name="w1")
    w2 = sx.variable(RNG.normal(size=(8, 3)), name="w2")
    logits = sx.nn.relu(x @ w1) @ w2
    loss = sx.mean(sx.nn.softmax_cross_entropy(logits, sx.one_hot(y, 3, dtype="float64")))
    return x, y, w1, w2, logits, loss


def _loss_by_numpy(xb, yb, w1, w2):
    logits = np.maximum(xb @ w1, 0) @ w2
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -log_p[np.arange(len(yb)), yb].mean()


def test_shapes_show_none_and_known_sizes_are_still_checked():
    x = sx.placeholder((None, 28, 28), name="digits")
    assert x.shape == (None, 28, 28)
    assert x.size is None
    flat = x.reshape(-1, 784)
    assert flat.shape == (None, 784)
    w = sx.variable(np.zeros((784, 10), np.float32))
    assert (flat @ w).shape == (None, 10)
    assert sx.mean(flat @ w).shape == ()
    with pytest.raises(sx.ShapeError, match=r"matmul.*784.*783"):
        flat @ sx.variable(np.zeros((783, 10), np.float32))
    assert "None" in repr(x)


def test_last_batch_and_evaluation_set_of_any_size():
    x, y, w1, w2, logits, loss = _mlp("x_train")
    (g1, g2) = sx.grad(loss, [w1, w2])
    step = sx.function([x, y], [loss], updates={w1: w1 - 0.1 * g1, w2: w2 - 0.1 * g2})
    evaluate = sx.function([x, y], [loss])
    data, labels = RNG.normal(size=(100, 6)), RNG.integers(0, 3, size=100)
    for start in range(0, 100, 32):  # batches of 32, 32, 32 and 4
        xb, yb = data[start : start + 32], labels[start : start + 32]
        before = _loss_by_numpy(xb, yb, w1.value, w2.value)
        (got,) = step(xb, yb)
        np.testing.assert_allclose(got, before, rtol=1e-12)
    assert step.compile_count() == 2
    (whole,) = evaluate(data, labels)  # the evaluation set in one call
    np.testing.assert_allclose(whole, _loss_by_numpy(data, labels, w1.value, w2.value), rtol=1e-12)
    np.testing.assert_allclose(
        loss.eval({x: data[:7], y: labels[:7]}), _loss_by_numpy(data[:7], labels[:7], w1.value, w2.value), rtol=1e-12
    )
    assert evaluate.compile_count() == 1
    assert "specialized to x_train (100, 6)" in evaluate.describe()


def test_call_errors_name_the_placeholder_and_the_expected_shape():
    x, y, _, _, _, loss = _mlp("x_err")
    f = sx.function([x, y], [loss])
    with pytest.raises(sx.ShapeError, match=r"placeholder 'x_err' expects \(None, 6\) float64.*\(5, 7\)"):
        f(np.zeros((5, 7)), np.zeros(5, np.int64))
    with pytest.raises(sx.ShapeError, match=r"x_err \(5, 6\), x_err_labels \(4,\)"):
        f(np.zeros((5, 6)), np.zeros(4, np.int64))
    with pytest.raises(sx.DTypeError, match=r"astype"):
        f(np.zeros((5, 6)), np.zeros(5))  # float labels into an int64 placeholder
    np.testing.assert_allclose(f(np.zeros((5, 6)), np.zeros(5, np.int32))[0], np.log(3), rtol=1e-12)  # a safe cast


def test_placeholder_none_is_a_clear_error():
    with pytest.raises(ValueError, match=r"shape None.*placeholder\(\(None, 784\)\)"):
        sx.placeholder(None)


def test_describe_before_the_first_call_says_why_there_is_no_program():
    x = sx.placeholder((None, 3), name="x_describe")
    f = sx.function([x], [sx.sum(x)])
    assert "not specialized yet" in f.describe()
    f(np.ones((2, 3), np.float32))
    assert "specialized to x_describe (2, 3)" in f.describe()


def test_none_is_an_unknown_size_and_minus_one_a_mistake():
    """None becomes an unknown size, while -1 (which None is turned into inside) stays an error."""
    assert sx.placeholder((None, 4)).shape == (None, 4)
    assert sx.placeholder([None]).shape == (None,)
    with pytest.raises(sx.ShapeError, match=r"placeholder 'x': negative size in shape \(-1, 4\).*write None"):
        sx.placeholder((-1, 4), name="x")
    with pytest.raises(sx.ShapeError, match=r"negative size in shape \(-3,\)"):
        sx.placeholder(-3)


def _lingering_watcher(in_call):
    """A thread that wakes every millisecond and records whether it ever ran while `in_call` was set."""
    seen, stop = [], threading.Event()

    def watch():
        while not stop.is_set():
            time.sleep(0.001)
            if in_call.is_set():
                seen.append(True)

    thread = threading.Thread(target=watch)
    thread.start()
    return seen, stop, thread


def _runs_other_threads_during(call):
    """Whether another Python thread ran while `call()` was inside symx. The switch interval is made
    far longer than the call, so that the other thread can only run while the call releases the GIL."""
    in_call = threading.Event()
    seen, stop, thread = _lingering_watcher(in_call)
    previous = sys.getswitchinterval()
    try:
        sys.setswitchinterval(60)
        # The watcher runs, and its waits for the GIL from now on use the long interval (one that
        # began before could still ask this thread to drop the GIL after the old 5 ms).
        time.sleep(0.02)
        in_call.set()
        call()
        in_call.clear()
    finally:
        sys.setswitchinterval(previous)
        stop.set()
        thread.join()
    return bool(seen)


def test_a_new_batch_size_compiles_without_the_gil():
    x = sx.placeholder((None, 3), "float32")
    # A constant of this run: its kernels are compiled, not found in the disk cache.
    f = sx.function([x], [sx.tanh(x * np.float32(1 + random.random()))], backend="compiled")
    small = np.ones((2, 3), np.float32)
    f(small)
    # The control: a compiled call of a few bytes keeps the GIL, so the watcher cannot run in it.
    assert not _runs_other_threads_during(lambda: f(small))
    assert f.compile_count() == 1
    # A new batch size compiles its specialization with the GIL released.
    assert _runs_other_threads_during(lambda: f(np.ones((5, 3), np.float32)))
    assert f.compile_count() == 2


def test_least_recently_used_specializations_are_dropped_beyond_the_bound():
    x = sx.placeholder((None, 2), "float64")
    f = sx.function([x], [sx.sum(x * 2.0, axis=1)], max_specializations=2)

    def call(n):
        batch = np.arange(2 * n, dtype=np.float64).reshape(n, 2)
        np.testing.assert_array_equal(f(batch)[0], batch.sum(axis=1) * 2.0)

    call(1)
    call(2)
    call(1)  # now 2 is the least recently used
    assert f.compile_count() == 2
    call(3)  # drops 2
    assert f.compile_count() == 3
    text = f.describe()
    assert "(1, 2)" in text and "(3, 2)" in text and "(2, 2)" not in text, text
    call(1)  # still kept
    assert f.compile_count() == 3
    call(2)  # compiled again; drops 3
    assert f.compile_count() == 4
    assert "(3, 2)" not in f.describe()


def test_max_specializations_is_checked():
    x = sx.placeholder((None, 2), "float64")
    with pytest.raises(ValueError, match="max_specializations is 0"):
        sx.function([x], [x * 2.0], max_specializations=0)

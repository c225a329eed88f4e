"""Threads and the arrays users hold: other Python threads run while a call compiles and runs
(the GIL is released), concurrent calls from Python threads are correct, and NumPy views of
variables (`Tensor.value`, `eval()`) never change after they are taken, on both backends."""

import threading

import numpy as np
import pytest

import symx as sx
from helpers import python_env, run_python

BACKENDS = ["reference", "compiled"]


pytestmark = pytest.mark.usefixtures("fresh_graph")


COUNT_DURING_COMPILE = r"""
import threading, time
import numpy as np
import symx as sx

count = 0
stop = False

def counter():
    global count
    while not stop:
        count += 1

x = sx.placeholder((1000,), "float32", name="x")
f = sx.function([x], [sx.tanh(x) * 3 + 1])
t = threading.Thread(target=counter)
t.start()
c0, t0 = count, time.perf_counter()
time.sleep(0.1)
rate = (count - c0) / (time.perf_counter() - t0)   # counts per second with the GIL free
c0, t0 = count, time.perf_counter()
(y,) = f(np.ones(1000, np.float32))
elapsed, counted = time.perf_counter() - t0, count - c0
stop = True
t.join()
assert f.compile_count() == 1
np.testing.assert_allclose(y, np.tanh(np.float32(1)) * 3 + 1, rtol=1e-6)
print(elapsed, counted, rate)
"""


def test_other_threads_run_while_a_call_compiles(tmp_path):
    # A fresh process and cache folder, so that the first call really runs the host compiler.
    out = run_python("-c", COUNT_DURING_COMPILE, env=python_env(SYMX_CACHE_DIR=str(tmp_path / "cache")), timeout=300)
    assert out.returncode == 0, out.stderr
    elapsed, counted, rate = (float(v) for v in out.stdout.split())
    assert elapsed > 0.05, f"the first call took {elapsed:.3f} s: it did not compile"
    # With the GIL held the counter would stand still for the whole compile.
    assert counted > 0.2 * rate * elapsed, (elapsed, counted, rate)


@pytest.mark.parametrize("backend", BACKENDS)
def test_concurrent_calls_from_python_threads(backend):
    n, threads, calls = 40_000, 4, 20  # 640 KB a call: large enough that the call releases the GIL
    x = sx.placeholder((n,), "float64", name="x")
    c = sx.variable(np.int64(0), name="c")
    f = sx.function([x], [x * 2 + 1, c * 1], updates={c: c + 1}, backend=backend)
    wrong, seen = [], []

    def work(t):
        for m in range(calls):
            xv = np.arange(n, dtype=np.float64) + 1000 * t + m
            y, count = f(xv)
            if not np.array_equal(y, xv * 2 + 1):
                wrong.append((t, m))
            seen.append(int(count))

    pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for p in pool:
        p.start()
    for p in pool:
        p.join()
    assert wrong == []
    assert int(c.value) == threads * calls
    assert sorted(seen) == list(range(threads * calls))


@pytest.mark.parametrize("backend", BACKENDS)
def test_in_place_update_reading_its_own_variable_as_input(backend):
    n = 100_000
    w0 = np.arange(n, dtype=np.float32)
    w = sx.variable(w0, name="w")
    x = sx.placeholder((n,), "float32", name="x")
    f = sx.function([x], [], updates={w: w + x[::-1]}, backend=backend)
    f(w.value)
    assert np.count_nonzero(w.value != w0 + w0[::-1]) == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_values_taken_each_step_keep_the_history(backend):
    w = sx.variable(np.array([1.0, 2.0, 3.0], np.float32), name="w")
    g = sx.placeholder((3,), "float32", name="g")
    f = sx.function([g], [], updates={w: w * 0.5 + g}, backend=backend)
    history, expected = [w.value], [np.array([1.0, 2.0, 3.0], np.float32)]
    snapshots = [w.eval()]
    for step in range(3):
        gv = np.full(3, step, np.float32)
        f(gv)
        history.append(w.value)
        snapshots.append(w.eval())
        expected.append(expected[-1] * np.float32(0.5) + gv)
    for held, evaluated, want in zip(history, snapshots, expected):
        np.testing.assert_array_equal(held, want)
        np.testing.assert_array_equal(evaluated, want)

"""Random draws: reproducibility from sx.random.seed, fresh values on every evaluation and call,
and the statistics of each distribution (these tests cover the random_* primitives)."""

import numpy as np
import pytest

import symx as sx

pytestmark = pytest.mark.usefixtures("fresh_graph")


def draws(t, n=1):
    return [t.eval() for _ in range(n)]


def test_seed_reproducibility():
    sx.random.seed(7)
    a = sx.random.normal((6,))
    first = draws(a, 2)
    sx.reset_default_graph()
    sx.random.seed(7)
    b = sx.random.normal((6,))
    second = draws(b, 2)
    for x, y in zip(first, second):
        np.testing.assert_array_equal(x, y)
    sx.random.seed(8)
    c = sx.random.normal((6,))
    assert not np.array_equal(c.eval(), first[0])


def test_freshness_eval_and_function():
    u = sx.random.uniform((8,))
    a, b = draws(u, 2)
    assert not np.array_equal(a, b)
    f = sx.function([], [u, 2 * u], backend="reference")
    (x1, y1), (x2, y2) = f(), f()
    assert not np.array_equal(x1, x2)
    # One draw per call: every use of the op in a call sees the same values.
    np.testing.assert_array_equal(y1, 2 * x1)
    np.testing.assert_array_equal(y2, 2 * x2)


def test_distinct_ops_distinct_streams():
    a, b = sx.random.uniform((16,)), sx.random.uniform((16,))
    f = sx.function([], [a, b], backend="reference")
    x, y = f()
    assert not np.array_equal(x, y)


def test_uniform():
    sx.random.seed(1)
    x = sx.random.uniform((20000,), -2.0, 3.0, dtype="float64").eval()
    assert x.dtype == np.float64 and x.shape == (20000,)
    assert x.min() >= -2.0 and x.max() < 3.0
    assert abs(x.mean() - 0.5) < 0.05
    assert abs(x.var() - 25 / 12) < 0.1
    assert sx.random.uniform((2, 3)).dtype == np.float32


def test_normal():
    sx.random.seed(2)
    x = sx.random.normal((20000,), 1.5, 2.0).eval()
    assert x.dtype == np.float32
    assert abs(x.mean() - 1.5) < 0.06
    assert abs(x.std() - 2.0) < 0.06


def test_truncated_normal():
    sx.random.seed(3)
    x = sx.random.truncated_normal((20000,), 1.0, 0.5, dtype="float64").eval()
    assert x.min() >= 1.0 - 2 * 0.5 - 1e-12 and x.max() <= 1.0 + 2 * 0.5 + 1e-12
    assert abs(x.mean() - 1.0) < 0.02
    # A normal truncated at +-2 sigma has std 0.8796 sigma.
    assert abs(x.std() - 0.8796 * 0.5) < 0.02
    y = sx.random.truncated_normal((5000,), lower=-1.0, upper=0.5).eval()
    assert y.min() >= -1.0 - 1e-6 and y.max() <= 0.5 + 1e-6


def test_bernoulli():
    sx.random.seed(4)
    x = sx.random.bernoulli((20000,), 0.3).eval()
    assert x.dtype == np.bool_
    assert abs(x.mean() - 0.3) < 0.02
    f = sx.random.bernoulli((10,), 0.5, dtype="float32").eval()
    assert f.dtype == np.float32 and set(np.unique(f)) <= {0.0, 1.0}


def test_randint():
    sx.random.seed(5)
    x = sx.random.randint((20000,), -3, 4).eval()
    assert x.dtype == np.int64
    assert set(np.unique(x)) == set(range(-3, 4))
    counts = np.bincount(x + 3)
    assert counts.min() > 20000 / 7 * 0.85
    assert sx.random.randint((3,), 0, 2, dtype="int32").eval().dtype == np.int32


def test_permutation():
    sx.random.seed(6)
    p = sx.random.permutation(50)
    a, b = draws(p, 2)
    assert a.dtype == np.int64
    np.testing.assert_array_equal(np.sort(a), np.arange(50))
    np.testing.assert_array_equal(np.sort(b), np.arange(50))
    assert not np.array_equal(a, b)


def test_random_ops_have_no_gradient():
    w = sx.variable(np.ones(3, np.float32), name="w")
    cost = sx.sum(w * sx.random.normal((3,)))
    (g,) = sx.grad(cost, [w])
    # d/dw sum(w * z) = z, a fresh draw; the draw itself passes no gradient anywhere.
    assert g.shape == (3,)


# ---- the compiled backend -------------------------------------------------------------------
# The same properties on sx.function(..., backend="compiled"): random ops run inside a compiled
# program (here feeding fused kernels too), with their counters advanced by the program's updates.


def seeded_graph(seed):
    sx.random.seed(seed)
    a = sx.random.normal((6,))
    u = sx.random.uniform((3, 2), dtype="float64")
    return [a, 2 * a + 1, u, sx.exp(u) - u]


def test_compiled_seed_reproducibility_and_freshness():
    f = sx.function([], seeded_graph(7), backend="compiled")
    first, second = f(), f()
    # Fresh per call, and one draw per call: every use of an op in a call sees the same values.
    for x, y in zip(first, second):
        assert not np.array_equal(x, y)
    for a, twice, u, e in (first, second):
        np.testing.assert_allclose(twice, 2 * a + 1, rtol=1e-6)
        np.testing.assert_allclose(e, np.exp(u) - u, rtol=1e-12)
    # The same seed and graph give the same sequence of draws; so does the reference backend.
    for backend in ("compiled", "reference"):
        sx.reset_default_graph()
        g = sx.function([], seeded_graph(7), backend=backend)
        for want in (first, second):
            for x, y in zip(g(), want):
                np.testing.assert_allclose(x, y, rtol=1e-6, err_msg=backend)
    sx.reset_default_graph()
    h = sx.function([], seeded_graph(8), backend="compiled")
    assert not np.array_equal(h()[0], first[0])


def test_compiled_statistics_and_streams():
    sx.random.seed(11)
    n = 20000
    outs = [
        sx.random.uniform((n,), -2.0, 3.0, dtype="float64"),
        sx.random.normal((n,), 1.5, 2.0),
        sx.random.truncated_normal((n,), 1.0, 0.5, dtype="float64"),
        sx.random.bernoulli((n,), 0.3),
        sx.random.randint((n,), -3, 4),
        sx.random.permutation(50),
        sx.random.uniform((n,), -2.0, 3.0, dtype="float64"),  # a second op: its own stream
    ]
    f = sx.function([], outs + [sx.mean(outs[1]), sx.sum(sx.cast(outs[3], "int64"))], backend="compiled")
    calls = [f(), f()]
    for u, z, t, b, k, p, u2, zmean, bcount in calls:
        assert u.dtype == np.float64 and u.min() >= -2.0 and u.max() < 3.0
        assert abs(u.mean() - 0.5) < 0.05 and abs(u.var() - 25 / 12) < 0.1
        assert z.dtype == np.float32 and abs(z.mean() - 1.5) < 0.06 and abs(z.std() - 2.0) < 0.06
        np.testing.assert_allclose(zmean, z.mean(dtype=np.float64), rtol=1e-4)
        assert t.min() >= 1.0 - 2 * 0.5 - 1e-12 and t.max() <= 1.0 + 2 * 0.5 + 1e-12
        assert abs(t.mean() - 1.0) < 0.02 and abs(t.std() - 0.8796 * 0.5) < 0.02
        assert b.dtype == np.bool_ and abs(b.mean() - 0.3) < 0.02 and bcount == b.sum()
        assert k.dtype == np.int64 and set(np.unique(k)) == set(range(-3, 4))
        assert np.bincount(k + 3).min() > n / 7 * 0.85
        np.testing.assert_array_equal(np.sort(p), np.arange(50))
        assert not np.array_equal(u, u2)
    for x, y in zip(calls[0][:7], calls[1][:7]):
        assert not np.array_equal(x, y)

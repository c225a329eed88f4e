"""Random draws: reproducibility from sx.random.seed, fresh values on every evaluation and call,
and the statistics of each distribution (these tests cover the random_* primitives)."""
import numpy as np
import pytest

import symx as sx


@pytest.fixture(autouse=True)
def fresh_graph():
    sx.reset_default_graph()
    yield
    sx.reset_default_graph()


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

"""symx.nn.init: each initializer's mean and variance against its formula on large shapes (5 standard
errors), truncation bounds, orthogonality, fans of 2-D and 4-D shapes, reproducibility under a seed,
dtypes and errors. Oracle: the distributions' moments (scipy.stats for the truncated normal)."""

import numpy as np
import pytest
from scipy import stats

import symx as sx
from symx.nn import init

SHAPE = (400, 500)  # 200,000 draws


pytestmark = pytest.mark.usefixtures("fresh_graph")


def check_moments(a, dist):
    """Sample mean and variance within 5 standard errors of the distribution's (a scipy.stats frozen one)."""
    a = np.asarray(a, np.float64).ravel()
    n = a.size
    mean, var = dist.mean(), dist.var()
    mu4 = dist.expect(lambda x: (x - mean) ** 4)
    assert abs(a.mean() - mean) < 5 * np.sqrt(var / n), (a.mean(), mean)
    assert abs(a.var() - var) < 5 * np.sqrt((mu4 - var**2) / n), (a.var(), var)


def truncated(mean, stddev):
    return stats.truncnorm(-2, 2, loc=mean, scale=stddev)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_normal_truncated_normal_moments(dtype):
    a = init.uniform(-0.5, 1.5)(SHAPE, dtype)
    assert a.dtype == dtype and a.shape == SHAPE
    assert a.min() >= -0.5 and a.max() < 1.5
    check_moments(a, stats.uniform(-0.5, 2.0))
    check_moments(init.normal(1.0, 0.3)(SHAPE, dtype), stats.norm(1.0, 0.3))
    t = init.truncated_normal(1.0, 0.5)(SHAPE, dtype)
    assert t.min() >= 1.0 - 2 * 0.5 - 1e-6 and t.max() <= 1.0 + 2 * 0.5 + 1e-6
    check_moments(t, truncated(1.0, 0.5))


def test_constant_zeros_ones_any_dtype():
    np.testing.assert_array_equal(init.constant(2.5)((2, 3), np.float32), np.full((2, 3), 2.5))
    np.testing.assert_array_equal(init.zeros()((4,), np.int32), np.zeros(4))
    assert init.ones()((2,), np.int64).dtype == np.int64


def test_fans_of_matrices_and_kernels():
    assert init.compute_fans(()) == (1.0, 1.0)
    assert init.compute_fans((7,)) == (7.0, 7.0)
    assert init.compute_fans((784, 100)) == (784.0, 100.0)  # Dense (in, out)
    assert init.compute_fans((16, 3, 5, 5)) == (75.0, 400.0)  # OIHW: I*H*W, O*H*W
    assert init.compute_fans((8, 4, 3)) == (12.0, 24.0)  # Conv1D (O, I, K)


# (initializer, scale, mode, truncated/uniform/normal) with Keras's definitions
NAMED = [
    ("glorot_uniform", 1.0, "fan_avg", "uniform"),
    ("glorot_normal", 1.0, "fan_avg", "truncated"),
    ("he_uniform", 2.0, "fan_in", "uniform"),
    ("he_normal", 2.0, "fan_in", "truncated"),
    ("lecun_uniform", 1.0, "fan_in", "uniform"),
    ("lecun_normal", 1.0, "fan_in", "truncated"),
]


def expected_distribution(scale, mode, kind, shape):
    fan_in, fan_out = init.compute_fans(shape)
    n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[mode]
    variance = scale / max(1.0, n)
    if kind == "uniform":
        limit = np.sqrt(3 * variance)
        return stats.uniform(-limit, 2 * limit)
    if kind == "truncated":
        return truncated(0.0, np.sqrt(variance) / 0.87962566103423978)
    return stats.norm(0, np.sqrt(variance))


@pytest.mark.parametrize("name,scale,mode,kind", NAMED)
@pytest.mark.parametrize("shape", [(400, 500), (64, 32, 10, 10)])
def test_named_variance_scaling_moments_and_bounds(name, scale, mode, kind, shape):
    a = getattr(init, name)()(shape, np.float64)
    dist = expected_distribution(scale, mode, kind, shape)
    lo, hi = dist.support()
    assert a.min() >= lo - 1e-12 and a.max() <= hi + 1e-12
    check_moments(a, dist)
    # the variance is scale / fan whatever the distribution (the truncation is corrected)
    fan_in, fan_out = init.compute_fans(shape)
    n = {"fan_in": fan_in, "fan_avg": (fan_in + fan_out) / 2}[mode]
    assert dist.var() == pytest.approx(scale / n, rel=1e-7)


@pytest.mark.parametrize(
    "mode,distribution",
    [("fan_out", "untruncated_normal"), ("fan_avg", "normal"), ("fan_out", "uniform"), ("fan_in", "truncated_normal")],
)
def test_variance_scaling_modes(mode, distribution):
    shape = (32, 16, 5, 5)
    a = init.variance_scaling(3.0, mode, distribution)(shape, np.float32)
    kind = {"untruncated_normal": "normal", "normal": "normal", "uniform": "uniform", "truncated_normal": "truncated"}
    check_moments(a, expected_distribution(3.0, mode, kind[distribution], shape))


@pytest.mark.parametrize("shape", [(50, 80), (80, 50), (100, 100), (16, 3, 3, 3), (40, 2, 5)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_orthogonal(shape, dtype):
    a = init.orthogonal(gain=2.0)(shape, dtype)
    assert a.shape == shape and a.dtype == dtype
    m = a.reshape(shape[0], -1).astype(np.float64) / 2.0
    rows, cols = m.shape
    gram = m @ m.T if rows <= cols else m.T @ m
    np.testing.assert_allclose(gram, np.eye(min(rows, cols)), atol=1e-5)


def test_orthogonal_is_haar_distributed_first_entry():
    # The entries of a Haar orthogonal n x n matrix have mean 0 and variance 1 / n.
    draws = np.array([init.orthogonal()((8, 8), np.float64)[0, 0] for _ in range(4000)])
    assert abs(draws.mean()) < 5 * np.sqrt(1 / 8 / 4000)
    assert abs(draws.var() - 1 / 8) < 0.02


def test_reproducible_under_a_seed_and_each_draw_advances():
    init.seed(3)
    a = init.glorot_uniform()((10, 10), np.float32)
    b = init.normal()((5,), np.float64)
    init.seed(3)
    np.testing.assert_array_equal(init.glorot_uniform()((10, 10), np.float32), a)
    np.testing.assert_array_equal(init.normal()((5,), np.float64), b)
    assert not np.array_equal(init.glorot_uniform()((10, 10), np.float32), a)


def test_with_variables_and_reset_variables():
    init.seed(0)
    w = sx.variable(init.glorot_uniform(), (784, 100), name="w")
    assert w.shape == (784, 100) and w.dtype == np.float32
    first = np.array(w.value)
    assert np.abs(first).max() <= np.sqrt(6 / 884)
    sx.reset_variables([w])
    assert not np.array_equal(w.value, first)


def test_errors():
    with pytest.raises(sx.DTypeError, match="int32.*float32 or float64"):
        init.normal()((3,), np.int32)
    with pytest.raises(sx.DTypeError):
        init.glorot_uniform()((3, 3), np.int64)
    with pytest.raises(sx.ShapeError, match="orthogonal.*2 axes"):
        init.orthogonal()((5,), np.float32)
    for bad in [
        lambda: init.uniform(1.0, 0.0),
        lambda: init.normal(stddev=-1.0),
        lambda: init.truncated_normal(stddev=float("nan")),
        lambda: init.variance_scaling(0.0),
        lambda: init.variance_scaling(mode="fan"),
        lambda: init.variance_scaling(distribution="cauchy"),
    ]:
        with pytest.raises(ValueError):
            bad()


def test_repr_and_docstrings():
    assert repr(init.he_normal()) == "symx.nn.init.he_normal()"
    for name in [
        "seed",
        "compute_fans",
        "constant",
        "zeros",
        "ones",
        "uniform",
        "normal",
        "truncated_normal",
        "orthogonal",
        "variance_scaling",
    ] + [n for n, *_ in NAMED]:
        assert "Example:" in getattr(init, name).__doc__, name

"""symx.nn's activations (issue 9): values and gradients against PyTorch's (golden files written by
tests/golden/golden_activations.py, float64), gradients also against float64 finite differences,
finiteness at +-1e4 in float32, the compiled path, and argument errors."""

import numpy as np
import pytest

import symx as sx
from goldens import load_golden

pytestmark = pytest.mark.usefixtures("fresh_graph")


def golden(case):
    return load_golden("activations_" + case)


# case -> the symx function of x with the case's parameters (g holds the golden arrays).
CASES = {
    "relu6": lambda x, g: sx.nn.relu6(x),
    "silu": lambda x, g: sx.nn.silu(x),
    "hard_tanh": lambda x, g: sx.nn.hard_tanh(x),
    "selu": lambda x, g: sx.nn.selu(x),
    "celu": lambda x, g: sx.nn.celu(x),
    "celu_alpha0.5": lambda x, g: sx.nn.celu(x, alpha=float(g["alpha"])),
    "hard_sigmoid": lambda x, g: sx.nn.hard_sigmoid(x),
    "hard_silu": lambda x, g: sx.nn.hard_silu(x),
    "soft_sign": lambda x, g: sx.nn.soft_sign(x),
    "log_sigmoid": lambda x, g: sx.nn.log_sigmoid(x),
    "glu": lambda x, g: sx.nn.glu(x),
    "glu_axis0": lambda x, g: sx.nn.glu(x, axis=int(g["axis"])),
    "normalize": lambda x, g: sx.nn.normalize(x),
    "normalize_ord1": lambda x, g: sx.nn.normalize(x, ord=1),
    "normalize_ord3_axis0": lambda x, g: sx.nn.normalize(x, ord=float(g["ord"]), axis=int(g["axis"])),
    "normalize_inf": lambda x, g: sx.nn.normalize(x, ord=np.inf),
    "normalize_zero_rows": lambda x, g: sx.nn.normalize(x, eps=float(g["eps"])),
}


def value_and_gradient(case, g, x_value):
    x = sx.placeholder(x_value.shape, x_value.dtype, name="x")
    y = CASES[case](x, g)
    (dx,) = sx.grad(sx.sum(y * g["r"].astype(x_value.dtype)), [x])
    return [t.eval({x: x_value}) for t in (y, dx)]


@pytest.mark.parametrize("case", sorted(CASES))
def test_value_and_gradient_match_pytorch(case):
    g = golden(case)
    y, dx = value_and_gradient(case, g, g["x"])
    assert y.dtype == np.float64 and y.shape == g["y"].shape
    np.testing.assert_allclose(y, g["y"], rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(dx, g["dx"], rtol=1e-10, atol=1e-12)


def finite_difference(f, x, step=1e-6):
    """Central differences of the scalar f at x (float64), each step relative to |x|."""
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        h = step * max(1.0, abs(x[i]))
        plus, minus = x.copy(), x.copy()
        plus[i] += h
        minus[i] -= h
        out[i] = (f(plus) - f(minus)) / (2 * h)
    return out


@pytest.mark.parametrize(
    "case",
    [
        "selu",
        "celu_alpha0.5",
        "hard_silu",
        "soft_sign",
        "log_sigmoid",
        "glu_axis0",
        "normalize",
        "normalize_ord3_axis0",
        "normalize_inf",
    ],
)
def test_gradient_matches_finite_differences(case):
    g = golden(case)
    # Moderate inputs: central differences of 1e4-sized values lose the digits compared here.
    x_value = np.clip(g["x"], -8, 8)
    x = sx.placeholder(x_value.shape, "float64", name="x")
    cost = sx.sum(CASES[case](x, g) * g["r"])
    (dx,) = sx.grad(cost, [x])
    f = sx.function([x], [cost, dx], backend="reference")
    numeric = finite_difference(lambda v: float(f(v)[0]), x_value)
    np.testing.assert_allclose(f(x_value)[1], numeric, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("case", sorted(CASES))
def test_float32_stays_finite_and_close_at_extremes(case):
    g = golden(case)
    y, dx = value_and_gradient(case, g, g["x"].astype(np.float32))
    assert y.dtype == np.float32
    assert np.all(np.isfinite(y)) and np.all(np.isfinite(dx)), "PyTorch's are finite at +-1e4"
    if case != "normalize_zero_rows":  # its gradient is about 1/eps: float32 keeps fewer digits
        np.testing.assert_allclose(y, g["y"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(dx, g["dx"], rtol=1e-4, atol=1e-5)


def test_compiled_function_matches_pytorch():
    """All activations and their gradients in one compiled function (fused kernels) agree with PyTorch."""
    xs, outs, goldens = [], [], []
    for case in sorted(CASES):
        g = golden(case)
        xi = sx.placeholder(g["x"].shape, "float64", name=case)
        y = CASES[case](xi, g)
        (dx,) = sx.grad(sx.sum(y * g["r"]), [xi])
        xs.append(xi)
        outs += [y, dx]
        goldens.append(g)
    f = sx.function(xs, outs, backend="compiled")
    results = f(*[g["x"] for g in goldens])
    for k, g in enumerate(goldens):
        np.testing.assert_allclose(results[2 * k], g["y"], rtol=1e-10, atol=1e-300)
        np.testing.assert_allclose(results[2 * k + 1], g["dx"], rtol=1e-9, atol=1e-12)


def test_hand_values():
    np.testing.assert_allclose(sx.nn.hard_sigmoid([-4.0, -1.5, 0.0, 4.0]).eval(), [0.0, 0.25, 0.5, 1.0])
    np.testing.assert_allclose(sx.nn.hard_silu([-4.0, 1.0, 4.0]).eval(), [0.0, 2.0 / 3.0, 4.0], rtol=1e-6)
    np.testing.assert_allclose(sx.nn.soft_sign([-1.0, 3.0]).eval(), [-0.5, 0.75])
    np.testing.assert_allclose(sx.nn.celu([-1.0, 2.0], alpha=2.0).eval(), [2 * np.expm1(-0.5), 2.0], rtol=1e-6)
    np.testing.assert_allclose(sx.nn.glu([[1.0, 2.0, 0.0, 100.0]]).eval(), [[0.5, 2.0]], rtol=1e-6)
    np.testing.assert_allclose(sx.nn.normalize([[3.0, 4.0], [0.0, 0.0]]).eval(), [[0.6, 0.8], [0.0, 0.0]])
    np.testing.assert_allclose(sx.nn.normalize([[3.0, -4.0]], ord=1).eval(), [[3 / 7, -4 / 7]], rtol=1e-6)
    np.testing.assert_allclose(
        sx.nn.log_sigmoid(np.array([-1e4, 0.0, 1e4], np.float32)).eval(), [-1e4, -np.log(2), 0.0], rtol=1e-6
    )
    # SymJAX's two: log(1 - sigmoid) and the leaky swish, against their definitions in float64.
    x = np.array([-1e4, -30.0, -2.5, -1e-3, 0.0, 1e-3, 2.5, 30.0, 1e4])
    np.testing.assert_allclose(sx.nn.log_1_minus_sigmoid(x).eval(), -np.logaddexp(0.0, x), rtol=1e-14)
    for beta, a in [(1.0, 0.01), (3.0, 0.2), (0.5, 0.0)]:
        feature = np.stack([a * x, x], -1) * beta
        weights = np.exp(feature - feature.max(-1, keepdims=True))
        weights /= weights.sum(-1, keepdims=True)
        np.testing.assert_allclose(
            sx.nn.leaky_swish(x, beta, a).eval(), (np.stack([a * x, x], -1) * weights).sum(-1), rtol=1e-13, atol=1e-300
        )
    # Integer inputs compute in float32, as the engine's activations do.
    assert sx.nn.selu(np.array([1, 2], np.int32)).dtype == np.float32


def test_argument_errors_name_the_argument():
    x = sx.placeholder((3, 5), name="feat")
    with pytest.raises(sx.ShapeError, match=r"glu: axis -1 of x \(shape \(3, 5\), float32\) has odd size 5"):
        sx.nn.glu(x)
    with pytest.raises(sx.ShapeError, match=r"glu: axis 2 is out of range"):
        sx.nn.glu(x, axis=2)
    with pytest.raises(ValueError, match=r"normalize: ord is 0\.5.*at least 1"):
        sx.nn.normalize(x, ord=0.5)
    with pytest.raises(ValueError, match=r"celu: alpha is 0\.0.*positive"):
        sx.nn.celu(x, alpha=0.0)
    with pytest.raises(sx.ShapeError, match=r"test_nn_activations\.py:\d+"):
        sx.nn.normalize(x, axis=-3)

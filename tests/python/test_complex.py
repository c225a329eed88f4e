"""Complex dtypes end to end: NumPy conversion, promotion, files, elementwise ops, reductions,
matmul and gradients by JAX's convention (grad of a real loss with respect to z = x + iy is
dL/dx - i dL/dy), checked against NumPy and float64 central differences."""

import os

import numpy as np
import pytest

import symx as sx
from helpers import numeric_complex_grad

RNG = np.random.default_rng(7)


def crandn(*shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def run(fn, *arrays):
    """fn over placeholders of the arrays' types, compiled, called on the arrays."""
    ps = [sx.placeholder(a.shape, a.dtype) for a in arrays]
    out = fn(*ps)
    return sx.function(ps, out if isinstance(out, list) else [out])(*arrays)


# ---- dtypes, conversion, files ----

DTYPES = ["bool", "uint8", "int32", "int64", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", DTYPES)
def test_promotion_matches_numpy(a, b):
    assert sx.promote_types(a, b) == np.promote_types(a, b)


def test_round_trip_and_repr():
    z = crandn(2, 3, dtype=np.complex64)
    out = sx.constant(z).eval()
    assert out.dtype == np.complex64 and np.array_equal(out, z)
    w = crandn(4)
    assert np.array_equal(run(lambda p: p * 1, w)[0], w)
    assert repr(sx.constant(np.array([1 + 2j, 3.5 - 1j], np.complex64)).eval()) == repr(
        np.array([1 + 2j, 3.5 - 1j], np.complex64)
    )


def test_npy_npz_and_safetensors(tmp_path):
    z64, z128 = crandn(3, 2, dtype=np.complex64), crandn(5)
    sx.save_npy(str(tmp_path / "a.npy"), z128)
    assert np.array_equal(np.load(tmp_path / "a.npy"), z128)
    np.save(tmp_path / "b.npy", z64)
    back = sx.load_npy(str(tmp_path / "b.npy"))
    assert back.dtype == np.complex64 and np.array_equal(back, z64)
    sx.save_npz(str(tmp_path / "c.npz"), {"z64": z64, "z128": z128})
    with np.load(tmp_path / "c.npz") as f:
        assert np.array_equal(f["z64"], z64) and np.array_equal(f["z128"], z128)
    loaded = sx.load_npz(str(tmp_path / "c.npz"))
    assert np.array_equal(loaded["z128"], z128)
    # safetensors has C64 (complex64) and no complex128: a clear error, and no file left behind.
    v64 = sx.variable(z64, name="z64")
    sx.save_variables(str(tmp_path / "v.safetensors"), [v64])
    with open(tmp_path / "v.safetensors", "rb") as f:
        header = f.read(200)
    assert b'"C64"' in header
    v64.value = np.zeros_like(z64)
    sx.load_variables(str(tmp_path / "v.safetensors"), [v64])
    assert np.array_equal(v64.value, z64)
    v128 = sx.variable(z128, name="z128")
    with pytest.raises(sx.DTypeError, match="complex128"):
        sx.save_variables(str(tmp_path / "w.safetensors"), [v128])
    assert not os.path.exists(tmp_path / "w.safetensors")


def test_python_complex_scalars_are_weak():
    x32 = sx.placeholder((2,), sx.float32)
    x64 = sx.placeholder((2,), sx.float64)
    xi = sx.placeholder((2,), sx.int32)
    assert (x32 * 1j).dtype == np.complex64
    assert (x64 * 1j).dtype == np.complex128
    assert (xi + 2j).dtype == np.complex64
    z = sx.placeholder((2,), sx.complex64)
    assert (z * 2.5).dtype == np.complex64 and (z + 1).dtype == np.complex64
    out = sx.function([x32], [x32 * (1 - 2j)])(np.array([1, 2], np.float32))[0]
    np.testing.assert_allclose(out, np.array([1 - 2j, 2 - 4j]))


# ---- elementwise ops against NumPy ----

UNARY = {
    "exp": (sx.exp, np.exp),
    "log": (sx.log, np.log),
    "sqrt": (sx.sqrt, np.sqrt),
    "sin": (sx.sin, np.sin),
    "cos": (sx.cos, np.cos),
    "tan": (sx.tan, np.tan),
    "tanh": (sx.tanh, np.tanh),
    "negative": (sx.negative, np.negative),
    "square": (sx.square, np.square),
    "reciprocal": (sx.reciprocal, np.reciprocal),
    "abs": (sx.abs, np.abs),
    "real": (sx.real, np.real),
    "imag": (sx.imag, np.imag),
    "conj": (sx.conj, np.conj),
    "angle": (sx.angle, np.angle),
    "isnan": (sx.isnan, np.isnan),
    "isfinite": (sx.isfinite, np.isfinite),
    "iscomplex": (sx.iscomplex, np.iscomplex),
    "isreal": (sx.isreal, np.isreal),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_unary_matches_numpy(name, dtype):
    ours, theirs = UNARY[name]
    z = crandn(17, dtype=dtype)
    z[0], z[1], z[2] = 0, 2.0, 1j  # zero, a real and an imaginary number
    if name in ("log", "reciprocal"):
        z[0] = 0.5
    if name in ("isnan", "isfinite"):
        z[3] = complex(np.nan, 1)
        z[4] = complex(1, np.inf)
    want = theirs(z)
    got = run(ours, z)[0]
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    tol = 2e-6 if dtype == np.complex64 else 1e-14
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide", "power", "equal", "not_equal"])
def test_binary_matches_numpy(op):
    a, b = crandn(3, 4), crandn(4)
    b[0] = a[0, 0]
    want = getattr(np, op)(a, b)
    got = run(getattr(sx, op), a, b)[0]
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


def test_complex_real_mixes_and_where_sum_mean_matmul():
    a, b = crandn(3, 4, dtype=np.complex64), RNG.standard_normal((4, 2)).astype(np.float32)
    got = run(lambda p, q: p @ q.astype(sx.complex64), a, b)[0]
    np.testing.assert_allclose(got, a @ b, rtol=1e-5, atol=1e-5)
    got = run(lambda p: [sx.sum(p, axis=0), sx.mean(p), sx.where(sx.abs(p) > 1, p, 0)], a)
    np.testing.assert_allclose(got[0], a.sum(0), rtol=1e-5)
    np.testing.assert_allclose(got[1], a.mean(), rtol=1e-5)
    np.testing.assert_allclose(got[2], np.where(np.abs(a) > 1, a, 0), rtol=1e-6)
    z = run(lambda p, q: sx.complex(p, q), np.array([1.0, 2.0]), np.array([3.0, -4.0]))[0]
    assert z.dtype == np.complex128 and np.array_equal(z, [1 + 3j, 2 - 4j])
    assert np.array_equal(run(lambda p: sx.reshape(sx.transpose(p), (2, 6))[:, ::2], a)[0], a.T.reshape(2, 6)[:, ::2])
    assert sx.iscomplexobj(sx.constant(a)) and not sx.iscomplexobj(sx.constant(b))


# ---- gradients by JAX's convention ----

LOSSES = {
    "abs2_exp": (
        lambda z: sx.sum(sx.abs(sx.exp(z) * (1 + 2j)) ** 2),
        lambda z: np.sum(np.abs(np.exp(z) * (1 + 2j)) ** 2),
    ),
    "real_log": (lambda z: sx.sum(sx.real(sx.log(z))), lambda z: np.sum(np.real(np.log(z)))),
    "imag_sqrt": (lambda z: sx.sum(sx.imag(sx.sqrt(z))), lambda z: np.sum(np.imag(np.sqrt(z)))),
    "angle": (lambda z: sx.sum(sx.angle(z)), lambda z: np.sum(np.angle(z))),
    "abs_div": (lambda z: sx.sum(sx.abs(z / (z * z + 3))), lambda z: np.sum(np.abs(z / (z * z + 3)))),
    "power": (lambda z: sx.sum(sx.real(z**2.5 + z ** (1 + 1j))), lambda z: np.sum(np.real(z**2.5 + z ** (1 + 1j)))),
    "trig": (
        lambda z: sx.sum(sx.abs(sx.sin(z) + sx.cos(z) * sx.tanh(z) - sx.tan(z))),
        lambda z: np.sum(np.abs(np.sin(z) + np.cos(z) * np.tanh(z) - np.tan(z))),
    ),
    "conj_mul": (
        lambda z: sx.sum(sx.real(sx.conj(z) * z * (2 - 1j))),
        lambda z: np.sum(np.real(np.conj(z) * z * (2 - 1j))),
    ),
    "matmul": (
        lambda z: sx.sum(sx.abs(z @ sx.transpose(z) + 1)),
        lambda z: np.sum(np.abs(z @ z.T + 1)),
    ),
    "reciprocal_square": (
        lambda z: sx.sum(sx.imag(sx.reciprocal(z) + sx.square(z) - sx.rsqrt(z))),
        lambda z: np.sum(np.imag(1 / z + z**2 - 1 / np.sqrt(z))),
    ),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_gradient_is_jax_convention(name):
    ours, theirs = LOSSES[name]
    z = crandn(3, 3)
    p = sx.placeholder(z.shape, sx.complex128)
    g = sx.function([p], [sx.grad(ours(p), p)])(z)[0]
    assert g.dtype == np.complex128
    np.testing.assert_allclose(g, numeric_complex_grad(theirs, z), rtol=1e-6, atol=1e-6)


def test_gradient_through_real_complex_boundary():
    """x real -> complex(x, 2x) -> |.|^2: d/dx 5x^2 = 10x; the complex(re, im) VJP is (real g, -imag g)."""
    x = RNG.standard_normal(4)
    p = sx.placeholder((4,), sx.float64)
    loss = sx.sum(sx.abs(sx.complex(p, 2 * p)) ** 2) + sx.sum(sx.real(p.astype(sx.complex128) * (3 + 1j)))
    g = sx.function([p], [sx.grad(loss, p)])(x)[0]
    np.testing.assert_allclose(g, 10 * x + 3, rtol=1e-12)


def test_abs_gradient_at_zero_is_zero():
    """JAX (and PyTorch) give 0 for the gradient of |z| at z = 0."""
    p = sx.placeholder((2,), sx.complex64)
    g = sx.function([p], [sx.grad(sx.sum(sx.abs(p)), p)])(np.array([0, 3 + 4j], np.complex64))[0]
    np.testing.assert_allclose(g, [0, 0.6 - 0.8j], rtol=1e-6)


# ---- errors ----


def test_unsupported_op_names_itself():
    z = sx.placeholder((3,), sx.complex64, name="zz")
    with pytest.raises(sx.DTypeError, match=r"maximum.*complex64.*'zz'|maximum.*'zz'.*complex64"):
        sx.maximum(z, z)
    with pytest.raises(sx.DTypeError, match="sort"):
        sx.sort(z)
    with pytest.raises(sx.DTypeError, match="real cost"):
        sx.grad(sx.sum(z), z)
    with pytest.raises(sx.DTypeError, match="real parts"):
        sx.complex(z, z)
    with pytest.raises(sx.DTypeError):
        sx.floor(z)

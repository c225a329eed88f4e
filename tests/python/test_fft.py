"""symx.fft against numpy.fft (values, shapes, dtypes, norms, n/s/axes), and the gradients of every
transform by float64 central differences (JAX's convention for complex inputs)."""

import numpy as np
import pytest

import symx as sx
from helpers import numeric_complex_grad, numeric_grad

RNG = np.random.default_rng(11)
NORMS = [None, "backward", "ortho", "forward"]


def crandn(*shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def compiled(fn, *arrays):
    ps = [sx.placeholder(a.shape, a.dtype) for a in arrays]
    return sx.function(ps, [fn(*ps)])(*arrays)[0]


def check(got, want, dtype):
    assert got.shape == want.shape, (got.shape, want.shape)
    tol = 2e-5 if dtype in (np.float32, np.complex64) else 1e-12
    scale = max(1.0, float(np.abs(want).max(initial=0)))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 12, 17])
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_axis_sizes(name, n, dtype):
    x = RNG.standard_normal((3, n)).astype(dtype)
    want = getattr(np.fft, name)(x)
    got = compiled(lambda p: getattr(sx.fft, name)(p), x)
    assert got.dtype == (np.complex64 if dtype == np.float32 else np.complex128)
    check(got, want, dtype)


@pytest.mark.parametrize("n", [2, 3, 5, 8, 13])
@pytest.mark.parametrize("name", ["irfft", "hfft"])
def test_complex_to_real_sizes(name, n):
    a = crandn(4, n // 2 + 1)
    for length in (None, n):
        want = getattr(np.fft, name)(a, n=length)
        got = compiled(lambda p, length=length: getattr(sx.fft, name)(p, n=length), a)
        assert got.dtype == np.float64
        check(got, want, np.float64)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_norms_n_and_axis(name, norm):
    x = crandn(4, 6, 5) if name in ("fft", "ifft", "irfft", "hfft") else RNG.standard_normal((4, 6, 5))
    for n, axis in ((None, 1), (4, 0), (9, -1), (7, 1)):
        want = getattr(np.fft, name)(x, n=n, axis=axis, norm=norm)
        got = compiled(lambda p, n=n, axis=axis: getattr(sx.fft, name)(p, n=n, axis=axis, norm=norm), x)
        check(got, want, np.float64)


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"])
def test_n_dimensional(name, norm):
    real_input = name.startswith("rfft")
    x = RNG.standard_normal((3, 4, 6)) if real_input else crandn(3, 4, 6)
    cases = [dict(), dict(axes=(0, 2)), dict(s=(5, 4), axes=(2, 0)), dict(axes=(-1, 1))]
    if name.endswith("n"):
        cases += [dict(s=(3, 8), axes=(1, 2)), dict(axes=(1,))]
        # s without axes: the last len(s) axes (NumPy's rule, deprecated there in 2.0 without a replacement).
        want = getattr(np.fft, name)(x, s=(3, 8), axes=(1, 2), norm=norm)
        check(compiled(lambda p: getattr(sx.fft, name)(p, s=(3, 8), norm=norm), x), want, np.float64)
    for kw in cases:
        want = getattr(np.fft, name)(x, norm=norm, **kw)
        got = compiled(lambda p, kw=kw: getattr(sx.fft, name)(p, norm=norm, **kw), x)
        check(got, want, np.float64)


def test_float32_large_and_round_trips():
    x = RNG.standard_normal((2, 1000)).astype(np.float32)
    check(compiled(lambda p: sx.fft.rfft(p), x), np.fft.rfft(x), np.float32)
    back = compiled(lambda p: sx.fft.irfft(sx.fft.rfft(p), n=1000), x)
    np.testing.assert_allclose(back, x, atol=1e-5)
    z = crandn(6, 10, dtype=np.complex64)
    np.testing.assert_allclose(compiled(lambda p: sx.fft.ifftn(sx.fft.fftn(p)), z), z, atol=1e-5)


def test_frequencies_and_shifts():
    for n in (1, 4, 5, 8):
        for d in (1.0, 0.1):
            np.testing.assert_allclose(sx.fft.fftfreq(n, d).eval(), np.fft.fftfreq(n, d), rtol=1e-6)
            np.testing.assert_allclose(sx.fft.rfftfreq(n, d).eval(), np.fft.rfftfreq(n, d), rtol=1e-6)
    assert sx.fft.fftfreq(4, dtype=sx.float64).eval().dtype == np.float64
    x = np.arange(30.0).reshape(5, 6)
    for axes in (None, (0,), (1,), (0, 1), (-1,)):
        np.testing.assert_array_equal(sx.fft.fftshift(x, axes=axes).eval(), np.fft.fftshift(x, axes=axes))
        np.testing.assert_array_equal(sx.fft.ifftshift(x, axes=axes).eval(), np.fft.ifftshift(x, axes=axes))


# ---- gradients ----


# Each transform under a real loss with complex weights: sum(real(W * y)) + sum(|y|^2).
GRAD_CASES = {
    "fft": (lambda m, x: m.fft(x, n=7), True),
    "ifft": (lambda m, x: m.ifft(x, axis=0, norm="ortho"), True),
    "rfft": (lambda m, x: m.rfft(x, n=6), False),
    "rfft_odd": (lambda m, x: m.rfft(x, axis=0), False),
    "irfft": (lambda m, x: m.irfft(x, n=8), True),
    "irfft_odd": (lambda m, x: m.irfft(x, n=9, norm="forward"), True),
    "hfft": (lambda m, x: m.hfft(x), True),
    "ihfft": (lambda m, x: m.ihfft(x), False),
    "fftn": (lambda m, x: m.fftn(x), True),
    "rfftn": (lambda m, x: m.rfftn(x, s=(4, 6), axes=(0, 1)), False),
    "irfftn": (lambda m, x: m.irfftn(x, s=(3, 6), axes=(0, 1)), True),
    "rfft2_axes": (lambda m, x: m.rfft2(x, axes=(1, 0)), False),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients(name):
    fn, complex_input = GRAD_CASES[name]
    x = crandn(3, 5) if complex_input else RNG.standard_normal((3, 5))
    y0 = fn(np.fft, x)
    w = crandn(*y0.shape) if np.iscomplexobj(y0) else RNG.standard_normal(y0.shape)

    def np_loss(v):
        y = fn(np.fft, v)
        return float(np.sum(np.real(w * y)) + np.sum(np.abs(y) ** 2))

    p = sx.placeholder(x.shape, x.dtype)
    y = fn(sx.fft, p)
    loss = sx.sum(sx.real(y * w)) + sx.sum(sx.abs(y) ** 2)
    g = sx.function([p], [sx.grad(loss, p)])(x)[0]
    want = numeric_complex_grad(np_loss, x) if complex_input else numeric_grad(np_loss, x)
    np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-6)


def test_second_derivative():
    """d/dx of the gradient of sum(|rfft(x)|^2) = n sum over the spectrum: a Hessian-vector product."""
    x = RNG.standard_normal(6)
    v = RNG.standard_normal(6)
    p = sx.placeholder((6,), sx.float64)
    g = sx.grad(sx.sum(sx.abs(sx.fft.rfft(p)) ** 2), p)
    hv = sx.function([p], [sx.grad(sx.sum(g * v), p)])(x)[0]
    gfun = sx.function([p], [g])
    want = numeric_grad(lambda t: float(np.dot(gfun(t)[0], v)), x)
    np.testing.assert_allclose(hv, want, rtol=1e-5, atol=1e-5)


# ---- errors ----


def test_errors():
    x = sx.placeholder((4, 6), sx.float32, name="sig")
    with pytest.raises(ValueError, match="norm"):
        sx.fft.fft(x, norm="sideways")
    with pytest.raises(sx.ShapeError, match="axis 2"):
        sx.fft.fft(x, axis=2)
    with pytest.raises(ValueError, match="n >= 1"):
        sx.fft.rfft(x, n=0)
    with pytest.raises(sx.DTypeError, match="real input"):
        sx.fft.rfft(x.astype(sx.complex64))
    with pytest.raises(ValueError, match="twice"):
        sx.fft.fftn(x, axes=(1, 1))
    with pytest.raises(sx.ShapeError, match="one size per"):
        sx.fft.fftn(x, s=(3, 4, 5), axes=(0, 1))

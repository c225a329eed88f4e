"""symx.signal beyond the conformance table (tests/python/conformance_signal.py): every mode and boundary
against scipy.signal, layouts and dilations of batch_convolve against a direct NumPy convolution, SymJAX's
reduce_window padding, gradients at the kinks (pool's ties, hat_1D's knots, the mel scale's 1 kHz joint),
and the errors a user meets."""

import numpy as np
import pytest
import scipy.fft
import scipy.signal

import symx as sx
from helpers import numeric_grad

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("m", [0, 1, 2, 7, 16])
def test_windows_against_scipy(m, sym):
    w = scipy.signal.windows
    for name, ref in [
        ("hann", w.hann(m, sym)),
        ("hamming", w.hamming(m, sym)),
        ("blackman", w.blackman(m, sym)),
        ("bartlett", w.bartlett(m, sym)),
        ("kaiser", w.kaiser(m, 8.6, sym)),
        ("tukey", w.tukey(m, 0.3, sym)),
    ]:
        extra = (8.6,) if name == "kaiser" else (0.3,) if name == "tukey" else ()
        got = getattr(sx.signal, name)(m, *extra, sym=sym, dtype="float64").eval()
        assert got.shape == (m,) and got.dtype == np.float64
        np.testing.assert_allclose(got, ref, rtol=1e-13, atol=1e-15, err_msg=f"{name}({m}, sym={sym})")
    for alpha in (0.0, 1.0):
        np.testing.assert_allclose(sx.signal.tukey(m, alpha, sym, "float64").eval(), w.tukey(m, alpha, sym), atol=1e-15)
    np.testing.assert_allclose(sx.signal.hanning(m).eval(), np.hanning(m).astype(np.float32), atol=1e-7)
    if m == 0:  # as SciPy's get_window
        with pytest.raises(ValueError, match="Nx must be positive"):
            sx.signal.get_window("hann", m)
        return
    for spec in ["hann", "hamming", "blackman", "bartlett", "boxcar", ("kaiser", 3.0), ("tukey", 0.7), "tukey"]:
        np.testing.assert_allclose(
            sx.signal.get_window(spec, m, fftbins=not sym, dtype="float64").eval(),
            scipy.signal.get_window(spec, m, fftbins=not sym),
            atol=1e-15,
            err_msg=str(spec),
        )


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize(
    "s1,s2",
    [((10,), (3,)), ((3,), (10,)), ((1,), (1,)), ((7, 8), (3, 4)), ((3, 4), (7, 8)), ((4, 5, 6), (2, 3, 2))],
)
def test_convolve_and_correlate_against_scipy(s1, s2, mode):
    a, b = RNG.standard_normal(s1), RNG.standard_normal(s2)
    for fn, ref in [(sx.signal.convolve, scipy.signal.convolve), (sx.signal.correlate, scipy.signal.correlate)]:
        want = ref(a, b, mode, method="direct")
        got = fn(sx.constant(a), sx.constant(b), mode)
        np.testing.assert_allclose(got.eval(), want, rtol=1e-12, atol=1e-12, err_msg=f"{fn.__name__} {mode}")
        # float32 through the compiled function (oneDNN's convolution)
        pa, pb = sx.placeholder(s1, "float32"), sx.placeholder(s2, "float32")
        f = sx.function([pa, pb], fn(pa, pb, mode))
        np.testing.assert_allclose(f(a.astype(np.float32), b.astype(np.float32)), want, rtol=1e-4, atol=1e-4)


def test_convolve_integers_keep_their_dtype():
    a, b = np.array([1, 2, 3], np.int32), np.array([4, 5], np.int32)
    got = sx.signal.convolve(sx.constant(a), sx.constant(b)).eval()
    want = scipy.signal.convolve(a, b)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("boundary", ["fill", "wrap", "symm"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("s1,s2", [((6, 7), (3, 2)), ((3, 2), (5, 6)), ((2, 3), (4, 4))])
def test_convolve2d_boundaries_against_scipy(s1, s2, mode, boundary):
    a, b = RNG.standard_normal(s1), RNG.standard_normal(s2)
    if mode == "valid" and not (all(x >= y for x, y in zip(s1, s2)) or all(x <= y for x, y in zip(s1, s2))):
        return
    for fn, ref in [(sx.signal.convolve2d, scipy.signal.convolve2d), (sx.signal.correlate2d, scipy.signal.correlate2d)]:
        want = ref(a, b, mode, boundary, fillvalue=1.5)
        got = fn(sx.constant(a), sx.constant(b), mode, boundary, 1.5).eval()
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=f"{fn.__name__} {mode} {boundary}")


def direct_conv(x, w, strides, pads, lhs_dil, rhs_dil):
    """jax.lax.conv_general_dilated for NC(H)W / OI(H)W in NumPy: dilate, pad, cross-correlate."""
    sd = x.ndim - 2
    for d in range(sd):
        if lhs_dil[d] > 1:
            shape = list(x.shape)
            shape[d + 2] = (x.shape[d + 2] - 1) * lhs_dil[d] + 1
            y = np.zeros(shape, x.dtype)
            y[(slice(None), slice(None)) + (slice(None),) * d + (slice(None, None, lhs_dil[d]),)] = x
            x = y
    x = np.pad(x, [(0, 0), (0, 0)] + list(pads))
    k = [(w.shape[d + 2] - 1) * rhs_dil[d] + 1 for d in range(sd)]
    out = [(x.shape[d + 2] - k[d]) // strides[d] + 1 for d in range(sd)]
    y = np.zeros((x.shape[0], w.shape[0], *out))
    for idx in np.ndindex(*out):
        win = x[
            (slice(None), slice(None))
            + tuple(slice(i * s, i * s + kk, r) for i, s, kk, r in zip(idx, strides, k, rhs_dil))
        ]
        axes = list(range(1, w.ndim))
        y[(slice(None), slice(None)) + idx] = np.tensordot(win, w, axes=(axes, axes))
    return y


def test_batch_convolve_layouts_dilations_and_padding():
    x = RNG.standard_normal((2, 3, 9, 8))
    w = RNG.standard_normal((4, 3, 3, 2))
    cases = [
        dict(strides=(2, 1), padding="VALID", input_dilation=(1, 1), filter_dilation=(1, 2)),
        dict(strides=(1, 1), padding=[(1, 2), (0, 1)], input_dilation=(2, 1), filter_dilation=(1, 1)),
    ]
    for c in cases:
        pads = c["padding"] if c["padding"] != "VALID" else [(0, 0), (0, 0)]
        want = direct_conv(x, w, c["strides"], pads, c["input_dilation"], c["filter_dilation"])
        got = sx.signal.batch_convolve(sx.constant(x), sx.constant(w), **c).eval()
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # NHWC input, HWIO filter, NCHW output: the same numbers, other layouts
    want = direct_conv(x, w, (1, 1), [(0, 0), (0, 0)], (1, 1), (1, 1))
    got = sx.signal.batch_convolve(
        sx.constant(x.transpose(0, 2, 3, 1)),
        sx.constant(w.transpose(2, 3, 1, 0)),
        input_format="NHWC",
        filter_format="HWIO",
        output_format="NCHW",
    ).eval()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # SAME (TensorFlow's / JAX's: out = ceil(n / s), the odd cell after) with a stride
    got = sx.signal.batch_convolve(sx.constant(x), sx.constant(w), strides=2, padding="SAME").eval()
    assert got.shape == (2, 4, 5, 4)
    want = direct_conv(x, w, (2, 2), [(1, 1), (0, 0)], (1, 1), (1, 1))  # pad totals 2 (H) and 0 (W)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("stride,k", [(2, 3), (3, 2), (1, 3)])
def test_batch_convolve_transpose_is_the_input_gradient(padding, stride, k):
    """JAX's conv_transpose of x with the flipped, O/I-swapped kernel (transpose_kernel=True) is the
    gradient of the strided convolution with respect to its input, when the shapes line up."""
    n_in = 12
    x = RNG.standard_normal((1, 2, n_in))
    w = RNG.standard_normal((3, 2, k))  # (O, I, K) of the forward convolution
    xp = sx.placeholder(x.shape, "float64")
    y = sx.signal.batch_convolve(xp, sx.constant(w), strides=stride, padding=padding)
    g = RNG.standard_normal(y.shape)
    (dx,) = sx.grad(sx.sum(y * g), [xp])
    t = sx.signal.batch_convolve_transpose(
        sx.constant(g), sx.constant(w), strides=stride, padding=padding, transpose_kernel=True
    ).eval()
    want = dx.eval({xp: x})
    # conv_transpose may give a longer or shorter output than the input; compare the overlap from the start
    m = min(t.shape[-1], want.shape[-1])
    if padding == "VALID":
        np.testing.assert_allclose(t[..., :m], want[..., :m], rtol=1e-12, atol=1e-12)
    assert t.shape[:2] == (1, 2)


def test_pool_padding_dilations_and_ties():
    x = RNG.standard_normal((2, 7, 6))
    # SAME as jax.lax.reduce_window: out = ceil(n / s), -inf (MAX) or 0 (SUM) in the padding
    got = sx.signal.pool(sx.constant(x), (1, 3, 2), "MAX", strides=(1, 2, 2), padding="SAME").eval()
    assert got.shape == (2, 4, 3)
    xp = np.pad(x, [(0, 0), (1, 1), (0, 0)], constant_values=-np.inf)
    want = np.stack(
        [[xp[:, 2 * i : 2 * i + 3, 2 * j : 2 * j + 2].max(axis=(1, 2)) for j in range(3)] for i in range(4)]
    )
    np.testing.assert_allclose(got, want.transpose(2, 0, 1))
    # window dilation and base dilation
    got = sx.signal.pool(sx.constant(x), (1, 2, 2), "SUM", strides=(1, 1, 1), window_dilation=(1, 2, 1)).eval()
    want = x[:, :-2, :-1] + x[:, 2:, :-1] + x[:, :-2, 1:] + x[:, 2:, 1:]
    np.testing.assert_allclose(got, want)
    # base dilation: [a, 0, b, 0, c] (zeros between the cells for SUM), windows of 2
    got = sx.signal.pool(sx.constant(x[:1, :3, :1]), (1, 2, 1), "SUM", strides=(1, 1, 1), base_dilation=(1, 2, 1))
    np.testing.assert_allclose(got.eval().ravel(), x[0, [0, 1, 1, 2], 0])
    # AVG divides by the window, padding included (as SymJAX's input / prod(window) then a sum)
    got = sx.signal.pool(sx.constant(x), (1, 2, 2), "AVG", padding=[(0, 0), (0, 1), (0, 0)]).eval()
    xp = np.pad(x, [(0, 0), (0, 1), (0, 0)])
    np.testing.assert_allclose(got, xp.reshape(2, 4, 2, 3, 2).sum(axis=(2, 4)) / 4)
    # a tie: the gradient of MAX is split evenly among the tied cells (symx's max rule, as jnp.max's)
    t = np.array([[[1.0, 3.0, 3.0, 0.0]]])
    tp = sx.placeholder(t.shape, "float64")
    (g,) = sx.grad(sx.sum(sx.signal.pool(tp, (1, 1, 4))), [tp])
    np.testing.assert_allclose(g.eval({tp: t}), [[[0, 0.5, 0.5, 0]]])


def test_patches():
    x = np.arange(2 * 3 * 10, dtype=np.float64).reshape(2, 3, 10)
    p = sx.signal.extract_signal_patches(sx.constant(x), 4, hop=2).eval()
    assert p.shape == (2, 3, 4, 4)
    np.testing.assert_array_equal(p[1, 2, 3], x[1, 2, 6:10])
    np.testing.assert_array_equal(sx.signal.extract_signal_patches(sx.constant(x[0]), 10).eval(), x[0][:, None, :])
    img = RNG.standard_normal((1, 5, 5, 2))  # channel_last
    q = sx.signal.extract_image_patches(
        sx.constant(img), (3, 3), strides=2, data_format="channel_last", padding="same", flatten_patch=True
    ).eval()
    assert q.shape == (1, 3, 3, 18)
    padded = np.pad(img.transpose(0, 3, 1, 2), [(0, 0), (0, 0), (1, 1), (1, 1)])
    np.testing.assert_allclose(q[0, 1, 2], padded[0, :, 2:5, 4:7].reshape(-1))


@pytest.mark.parametrize("t", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_dct_round_trips_and_matches_scipy(t, norm):
    x = RNG.standard_normal((4, 7))
    for n in (None, 5, 9):
        got = sx.signal.dct(sx.constant(x), t, n=n, norm=norm).eval()
        np.testing.assert_allclose(got, scipy.fft.dct(x, t, n=n, norm=norm), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(
            sx.signal.idct(sx.constant(x), t, n=n, norm=norm).eval(),
            scipy.fft.idct(x, t, n=n, norm=norm),
            rtol=1e-12,
            atol=1e-12,
        )
    back = sx.signal.idct(sx.signal.dct(sx.constant(x), t, norm=norm), t, norm=norm).eval()
    np.testing.assert_allclose(back, x, rtol=1e-12, atol=1e-12)
    # SymJAX's spelling: axes=(a,)
    np.testing.assert_allclose(sx.signal.dct(sx.constant(x), axes=(0,)).eval(), scipy.fft.dct(x, axis=0), rtol=1e-12)


def test_gradients_at_kinks():
    # hat_1D at its knots: the slope on the left of each (as relu's 0 at 0, PyTorch's left derivative)
    x = np.array([-1.0, 0.25, 1.5, 0.0, 2.0])
    xp = sx.placeholder(x.shape, "float64")
    (g,) = sx.grad(sx.sum(sx.signal.hat_1D(xp, -1.0, 0.25, 1.5)), [xp])
    np.testing.assert_allclose(g.eval({xp: x}), [0.0, 1 / 1.25, -1 / 1.25, 1 / 1.25, 0.0])
    # the mel scale is continuous at 1 kHz and its gradient finite on both sides
    f = np.array([999.0, 1000.0, 1001.0, 0.0])
    fp = sx.placeholder(f.shape, "float64")
    (gm,) = sx.grad(sx.sum(sx.signal.freq_to_mel(fp)), [fp])
    gv = gm.eval({fp: f})
    assert np.all(np.isfinite(gv))
    np.testing.assert_allclose(gv[[0, 3]], 3 / 200)
    np.testing.assert_allclose(gv[2], 27 / np.log(6.4) / 1001.0)
    # power_to_db below amin: zero gradient (maximum's side), finite everywhere
    s = np.array([[0.0, 1e-12, 1.0, 10.0]])
    sp = sx.placeholder(s.shape, "float64")
    (gs,) = sx.grad(sx.sum(sx.signal.power_to_db(sp, top_db=None)), [sp])
    np.testing.assert_allclose(gs.eval({sp: s}), [[0, 0, 10 / np.log(10), 1 / np.log(10)]])
    # convolve2d with a mirrored boundary, against finite differences
    a, b = RNG.standard_normal((4, 5)), RNG.standard_normal((3, 2))
    ap = sx.placeholder(a.shape, "float64")
    wts = RNG.standard_normal((4, 5))
    cost = sx.sum(sx.signal.convolve2d(ap, sx.constant(b), "same", "symm") * wts)
    (ga,) = sx.grad(cost, [ap])
    np.testing.assert_allclose(
        ga.eval({ap: a}), numeric_grad(lambda v: float(cost.eval({ap: v})), a), rtol=1e-6, atol=1e-8
    )


def test_mel_filterbank_shape_and_peaks():
    bank = sx.signal.mel_filterbank(257, 26, 0.0, 8000.0, 8000.0).eval()
    assert bank.shape == (26, 257) and bank.dtype == np.float32
    assert np.all(bank >= 0) and np.all(bank <= 1)
    np.testing.assert_allclose(bank.max(axis=1), 1.0)


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda a, b: sx.signal.convolve(a, b, "middle"), "unknown mode 'middle'"),
        (lambda a, b: sx.signal.convolve(a, sx.zeros((2, 2))), "same number of dimensions"),
        (lambda a, b: sx.signal.convolve(sx.zeros((3, 5)), sx.zeros((4, 2)), "valid"), "at least as large"),
        (lambda a, b: sx.signal.convolve2d(a, b), "needs 2-D inputs"),
        (lambda a, b: sx.signal.convolve2d(sx.zeros((3, 3)), sx.zeros((2, 2)), boundary="edge"), "unknown boundary"),
        (lambda a, b: sx.signal.hann(-1), "M must be non-negative"),
        (lambda a, b: sx.signal.tukey(5, 2.0), "alpha must be in"),
        (lambda a, b: sx.signal.kaiser(5, -1.0), "beta must be non-negative"),
        (
            lambda a, b: sx.signal.get_window("hann", 4, dtype="float32") + sx.signal.get_window("flat", 4),
            "unknown window",
        ),
        (lambda a, b: sx.signal.get_window(("hann", 1.0), 4), "takes no parameter"),
        (lambda a, b: sx.signal.get_window("kaiser", 4), "needs its beta"),
        (lambda a, b: sx.signal.dct(a, 5), "type must be 1, 2, 3 or 4"),
        (lambda a, b: sx.signal.dct(a, norm="unit"), "unknown norm"),
        (lambda a, b: sx.signal.dct(sx.zeros((1,)), 1), "at least 2 points"),
        (lambda a, b: sx.signal.pool(a, (2, 2)), "one window size per axis"),
        (lambda a, b: sx.signal.pool(a, (2,), "MIN"), "unknown reducer"),
        (lambda a, b: sx.signal.extract_signal_patches(a, 20), "longer than the signal"),
        (lambda a, b: sx.signal.batch_convolve(sx.zeros((1, 2, 8)), sx.zeros((3, 2, 3)), input_format="NCX"), "no 'W'"),
        (lambda a, b: sx.signal.batch_convolve(sx.zeros((1, 2, 8)), sx.zeros((3, 2, 3)), strides=(1, 2)), "2 entries"),
        (lambda a, b: sx.signal.power_to_db(a, top_db=-1.0), "top_db must be non-negative"),
    ],
)
def test_errors_say_what_to_do(call, message):
    a = sx.placeholder((10,), "float32", name="my_signal")
    b = sx.placeholder((3,), "float32", name="my_kernel")
    with pytest.raises((ValueError, TypeError), match=message):
        call(a, b)


def test_errors_name_the_users_tensor():
    a = sx.placeholder((10,), "float32", name="my_signal")
    with pytest.raises(ValueError, match="my_signal"):
        sx.signal.convolve(a, sx.zeros((3,)), "middle")


# ---- the FFT method of convolve and correlate (inputs of 64 elements or more, n m above 2^20) ----


@pytest.mark.parametrize("shapes", [((5000,), (300,)), ((120, 100), (40, 33)), ((20, 30, 16), (9, 12, 10))])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_convolve_fft_method_matches_scipy_direct(shapes, mode, dtype):
    rng = np.random.default_rng(len(shapes[0]))
    a, b = rng.standard_normal(shapes[0]).astype(dtype), rng.standard_normal(shapes[1]).astype(dtype)
    pa, pb = sx.placeholder(a.shape, dtype), sx.placeholder(b.shape, dtype)
    y, z = sx.function([pa, pb], [sx.signal.convolve(pa, pb, mode), sx.signal.correlate(pa, pb, mode)])(a, b)
    tol = 2e-6 if dtype == np.float32 else 1e-13
    for got, want in (
        (y, scipy.signal.convolve(a, b, mode, method="direct")),
        (z, scipy.signal.correlate(a, b, mode, method="direct")),
    ):
        assert got.dtype == dtype and got.shape == want.shape
        assert np.abs(got - want).max() <= tol * np.abs(want).max()


def test_convolve_fft_method_gradient():
    """The gradient through rfftn/irfftn against central differences at 24 random coordinates."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(1100), rng.standard_normal(1000)
    w = rng.standard_normal(1100 - 1000 + 1)
    pa, pb = sx.placeholder(a.shape, sx.float64), sx.placeholder(b.shape, sx.float64)
    loss = sx.sum(sx.signal.convolve(pa, pb, "valid") * w)
    grads = sx.function([pa, pb], sx.grad(loss, [pa, pb]))(a, b)
    f = sx.function([pa, pb], [loss])
    eps = 1e-6
    for which, arr in ((0, a), (1, b)):
        for i in rng.choice(arr.size, 12, replace=False):
            plus, minus = arr.copy(), arr.copy()
            plus[i] += eps
            minus[i] -= eps
            args_p = (plus, b) if which == 0 else (a, plus)
            args_m = (minus, b) if which == 0 else (a, minus)
            numeric = (f(*args_p)[0] - f(*args_m)[0]) / (2 * eps)
            np.testing.assert_allclose(grads[which][i], numeric, rtol=1e-6, atol=1e-7)

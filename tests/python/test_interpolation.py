"""symx.interpolation (SymJAX's tensor.interpolation) and symx.image.resize (jax.image.resize),
against scipy.ndimage (map_coordinates, affine_transform, zoom), scipy.interpolate, hand values and
the conventions of jax.image.resize written out here (JAX itself is not imported); gradients against
float64 finite differences, including at integer coordinates (the kinks of order 1)."""

import itertools

import numpy as np
import pytest
from scipy import interpolate as si
from scipy import ndimage as nd

import symx as sx

pytestmark = pytest.mark.usefixtures("fresh_graph")

MODES = ["constant", "nearest", "reflect", "mirror", "wrap", "grid-constant", "grid-wrap", "grid-mirror"]
ORDERS = [0, 1, 3]


def coordinates(rng, shape, count=150):
    """Random coordinates over [-2.5 n, 3.5 n] per axis, with integers and half-integers mixed in
    (ties of order 0, kinks of order 1, the wrap-around points of each mode)."""
    cols = []
    for n in shape:
        pool = np.concatenate(
            [rng.uniform(-2.5 * n, 3.5 * n, count), np.arange(-2 * n, 3 * n + 1.0), np.arange(-2 * n, 3 * n) + 0.5]
        )
        cols.append(rng.choice(pool, count))
    return np.stack(cols)


def mapc(a, c, **kw):
    return np.asarray(sx.interpolation.map_coordinates(a, c, **kw).eval())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", ORDERS)
def test_map_coordinates_matches_scipy(mode, order):
    rng = np.random.default_rng(order * 10 + MODES.index(mode))
    # Order 3 in the reflect modes: axes of >= 12 samples, where SciPy 1.17's prefilter error (it
    # reads its own partial sum, scipy gh-24550, of size z^(2n), z = sqrt(3) - 2) is below 1e-13;
    # test_reflect_prefilter_small_axes covers the small axes.
    if order == 3 and mode in ("reflect", "grid-mirror"):
        shapes = [(13,), (12, 14), (1, 13)]
    else:
        shapes = [(13,), (9, 11), (4, 5, 6), (1, 7), (2, 3)]
    for shape in shapes:
        a = rng.normal(size=shape)
        c = coordinates(rng, shape)
        want = nd.map_coordinates(a, c, order=order, mode=mode, cval=-0.75)
        got = mapc(a, c, order=order, mode=mode, cval=-0.75)
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10, err_msg=f"{shape}")
        # float32: the same within float32 rounding
        got32 = mapc(a.astype(np.float32), c.astype(np.float32), order=order, mode=mode, cval=-0.75)
        assert got32.dtype == np.float32
        want32 = nd.map_coordinates(a.astype(np.float32), c.astype(np.float32), order=order, mode=mode, cval=-0.75)
        # float32 coordinates round differently near the mode's fold points: compare where the
        # float32 and float64 SciPy results agree (off the discontinuities of 'wrap' / order 0).
        stable = np.abs(want32 - want) < 1e-4
        assert stable.mean() > 0.9
        np.testing.assert_allclose(got32[stable], want32[stable], rtol=2e-4, atol=2e-4, err_msg=f"{shape}")


def test_map_coordinates_output_shape_and_batch():
    # coordinates (rank, ...) of any shape; a batch of images sampled at integer batch coordinates
    rng = np.random.default_rng(5)
    a = rng.normal(size=(3, 8, 9))
    b = np.broadcast_to(np.arange(3.0)[:, None, None], (3, 4, 5))
    r = rng.uniform(0, 7, (3, 4, 5))
    q = rng.uniform(0, 8, (3, 4, 5))
    c = np.stack([b, r, q])
    got = mapc(a, c, order=1)
    assert got.shape == (3, 4, 5)
    np.testing.assert_allclose(got, nd.map_coordinates(a, c, order=1), rtol=1e-12)
    for i in range(3):
        np.testing.assert_allclose(got[i], nd.map_coordinates(a[i], c[1:, i], order=1), rtol=1e-12)


def test_map_coordinates_compiled_matches_reference():
    rng = np.random.default_rng(6)
    a = rng.normal(size=(2, 16, 16)).astype(np.float32)
    c = coordinates(rng, a.shape, 200).astype(np.float32).reshape(3, 10, 20)
    for order, mode in [(0, "nearest"), (1, "constant"), (1, "reflect"), (3, "mirror"), (3, "grid-constant")]:
        x = sx.placeholder(a.shape, "float32")
        y = sx.placeholder(c.shape, "float32")
        out = sx.interpolation.map_coordinates(x, y, order=order, mode=mode, cval=0.5)
        f = sx.function([x, y], [out])
        got = f(a, c)[0]
        want = nd.map_coordinates(a.astype(np.float64), c.astype(np.float64), order=order, mode=mode, cval=0.5)
        stable = np.abs(nd.map_coordinates(a, c, order=order, mode=mode, cval=0.5) - want) < 1e-4
        np.testing.assert_allclose(got[stable], want[stable], rtol=1e-4, atol=1e-4, err_msg=f"{order} {mode}")


def test_map_coordinates_hand_values():
    a = np.array([1.0, 2.0, 4.0])
    np.testing.assert_allclose(mapc(a, [[0.5, 1.25]]), [1.5, 2.5])
    np.testing.assert_allclose(mapc(a, [[-0.5, 2.5]], mode="constant", cval=9), [9, 9])
    np.testing.assert_allclose(mapc(a, [[-0.5, 2.5]], mode="nearest"), [1, 4])
    np.testing.assert_allclose(mapc(a, [[-0.5, 2.5]], mode="grid-wrap"), [2.5, 2.5])  # halfway 4 -> 1
    np.testing.assert_allclose(mapc(a, [[-1.0, 3.0]], mode="mirror"), [2, 2])  # 2 1 | 1 2 4 | 2 1
    np.testing.assert_allclose(mapc(a, [[-1.0, 3.0]], mode="reflect"), [1, 4])  # 1 | 1 2 4 | 4
    np.testing.assert_allclose(mapc(a, [[1.4, 1.5]], order=0), [2, 4])  # ties round up
    # cubic: the interpolant passes through the samples
    np.testing.assert_allclose(
        mapc(np.array([0.0, 1.0, 8.0, 27.0, 64.0]), [[0, 1, 2, 3, 4.0]], order=3, mode="mirror"),
        [0, 1, 8, 27, 64],
        atol=1e-12,
    )


@pytest.mark.parametrize("mode", ["reflect", "grid-mirror"])
def test_reflect_prefilter_small_axes(mode):
    # Axes of 2 and 3 samples, where SciPy 1.17's filter is off by ~z^(2n): the exact coefficients
    # make the cubic interpolant pass through every sample, and the half-sample symmetric extension
    # f(-1 - x) = f(x) holds.
    rng = np.random.default_rng(7)
    for n in (2, 3):
        a = rng.normal(size=n)
        np.testing.assert_allclose(mapc(a, np.arange(n, dtype=float)[None], order=3, mode=mode), a, atol=1e-12)
        x = rng.uniform(-1, n, (1, 20))
        np.testing.assert_allclose(mapc(a, x, order=3, mode=mode), mapc(a, -1 - x, order=3, mode=mode), atol=1e-12)
        # and SciPy agrees to its bug's size
        np.testing.assert_allclose(
            mapc(a, x, order=3, mode=mode), nd.map_coordinates(a, x, order=3, mode=mode), atol=3e-3
        )


def test_map_coordinates_matches_zoom():
    # scipy.ndimage.zoom (grid_mode=False) samples at i (n_in - 1) / (n_out - 1) along each axis
    rng = np.random.default_rng(8)
    a = rng.normal(size=(6, 7))
    for order in ORDERS:
        for mode in ["nearest", "mirror", "reflect", "constant"]:
            if order == 3 and mode == "reflect":
                continue  # SciPy's reflect prefilter on 6 and 7 samples: see test_reflect_prefilter_small_axes
            want = nd.zoom(a, (11 / 6, 5 / 7), order=order, mode=mode)
            r = np.arange(11) * 5 / 10
            q = np.arange(5) * 6 / 4
            c = np.stack(np.meshgrid(r, q, indexing="ij"))
            np.testing.assert_allclose(mapc(a, c, order=order, mode=mode), want, atol=1e-10, err_msg=f"{order} {mode}")


# ---- gradients ----


def grads(a, c, weights, **kw):
    x = sx.placeholder(a.shape, str(a.dtype))
    y = sx.placeholder(c.shape, str(c.dtype))
    out = sx.interpolation.map_coordinates(x, y, **kw)
    loss = (out * weights).sum()
    gx, gy = sx.grad(loss, [x, y])
    f = sx.function([x, y], [loss, gx, gy])
    return f(a, c)


def loss_np(a, c, weights, **kw):
    return float((nd.map_coordinates(a, c, **kw) * weights).sum())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", ORDERS)
def test_map_coordinates_gradients(order, mode):
    rng = np.random.default_rng(20 + order + MODES.index(mode))
    # order 3 in the reflect modes: axes long enough for SciPy's prefilter (gh-24550) to be exact
    a = rng.normal(size=(12, 13) if order == 3 and mode in ("reflect", "grid-mirror") else (5, 6))
    # coordinates away from integers, half-integers and the fold points (finite differences there
    # straddle a kink); the kinks are test_gradient_at_integer_coordinates'.
    c = rng.uniform(-6, 12, (2, 7))
    c = np.where(np.abs(c - np.round(c)) < 0.05, c + 0.2, c)
    c = np.where(np.abs(c - np.round(c * 2) / 2) < 0.05, c + 0.1, c)
    weights = rng.normal(size=7)
    _, gx, gy = grads(a, c, weights, order=order, mode=mode, cval=0.3)
    kw = dict(order=order, mode=mode, cval=0.3)
    h = 1e-6
    # the result is linear in the input: one column of finite differences per input element
    fd_x = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[idx] = h
        fd_x[idx] = (loss_np(a + e, c, weights, **kw) - loss_np(a - e, c, weights, **kw)) / (2 * h)
    np.testing.assert_allclose(gx, fd_x, rtol=1e-6, atol=1e-7)
    fd_c = np.zeros_like(c)
    for idx in np.ndindex(c.shape):
        e = np.zeros_like(c)
        e[idx] = h
        fd_c[idx] = (loss_np(a, c + e, weights, **kw) - loss_np(a, c - e, weights, **kw)) / (2 * h)
    if order == 0:
        assert np.all(gy == 0)
    np.testing.assert_allclose(gy, fd_c, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["nearest", "mirror", "grid-wrap", "reflect", "grid-constant"])
def test_gradient_at_integer_coordinates(mode):
    # Order 1 has a kink at each integer: the gradient there is the right-hand derivative,
    # (f(x + h) - f(x)) / h, the slope of the segment starting at x.
    rng = np.random.default_rng(30)
    a = rng.normal(size=(7,))
    c = np.array([[1.0, 2.0, 3.0, 5.0]])
    weights = np.ones(4)
    _, _, gy = grads(a, c, weights, order=1, mode=mode)
    h = 1e-7
    for i in range(4):
        e = np.zeros_like(c)
        e[0, i] = h
        right = (
            nd.map_coordinates(a, c + e, order=1, mode=mode)[i] - nd.map_coordinates(a, c, order=1, mode=mode)[i]
        ) / h
        np.testing.assert_allclose(gy[0, i], right, rtol=1e-5)
        np.testing.assert_allclose(gy[0, i], a[int(c[0, i]) + 1] - a[int(c[0, i])], rtol=1e-6)
    # order 3 is C^2: the two one-sided differences agree at integers and with the gradient
    _, _, g3 = grads(a, c, weights, order=3, mode=mode)
    fd = np.array(
        [
            (
                nd.map_coordinates(a, c + h * np.eye(4)[i], order=3, mode=mode)[i]
                - nd.map_coordinates(a, c - h * np.eye(4)[i], order=3, mode=mode)[i]
            )
            / (2 * h)
            for i in range(4)
        ]
    )
    np.testing.assert_allclose(g3[0], fd, rtol=1e-5, atol=1e-7)


def test_gradients_float32():
    rng = np.random.default_rng(31)
    a = rng.normal(size=(6, 6)).astype(np.float32)
    c = rng.uniform(0.2, 4.8, (2, 5)).astype(np.float32)
    w = rng.normal(size=5).astype(np.float32)
    _, gx, gy = grads(a, c, w, order=1, mode="nearest")
    assert gx.dtype == np.float32 and gy.dtype == np.float32
    _, gx64, gy64 = grads(a.astype(np.float64), c.astype(np.float64), w.astype(np.float64), order=1, mode="nearest")
    np.testing.assert_allclose(gx, gx64, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gy, gy64, rtol=1e-4, atol=1e-5)


# ---- errors ----


def test_map_coordinates_errors():
    x = sx.placeholder((4, 5), "float32", name="picture")
    with pytest.raises(ValueError, match=r"order 2.*order=0 \(nearest\), 1 \(linear\) or 3"):
        sx.interpolation.map_coordinates(x, np.zeros((2, 3)), order=2)
    with pytest.raises(ValueError, match=r"mode 'edge'.*mode='constant', 'nearest'"):
        sx.interpolation.map_coordinates(x, np.zeros((2, 3)), mode="edge")
    with pytest.raises(
        sx.ShapeError,
        match=r"coordinates of shape \(3, 3\) do not index.*'picture'.*Pass coordinates of shape \(2, \.\.\.\)",
    ):
        sx.interpolation.map_coordinates(x, np.zeros((3, 3)))
    y = sx.placeholder((None, 5), "float32", name="unsized")
    with pytest.raises(sx.ShapeError, match=r"unknown size along axis 0.*'unsized'.*known size"):
        sx.interpolation.map_coordinates(y, np.zeros((2, 3)))


def test_other_errors():
    img = sx.placeholder((2, 3, 8, 8), "float32", name="batch_of_images")
    with pytest.raises(sx.ShapeError, match=r"theta.*\(batch, 6\)"):
        sx.interpolation.affine_transform(img, np.zeros((2, 5), np.float32))
    with pytest.raises(ValueError, match=r"border_mode 'reflect'.*'nearest', 'mirror' or 'wrap'"):
        sx.interpolation.affine_transform(img, np.zeros((2, 6), np.float32), border_mode="reflect")
    with pytest.raises(sx.ShapeError, match=r"not \(batch, channels, rows, cols\).*'batch_of_images.*Pass a 4-D batch"):
        sx.interpolation.affine_transform(
            sx.placeholder((3, 8, 8), "float32", name="batch_of_images"), np.zeros((2, 6))
        )
    with pytest.raises(sx.ShapeError, match=r"perfect square"):
        sx.interpolation.thin_plate_spline(img, np.zeros((2, 10), np.float32))
    with pytest.raises(ValueError, match=r"method 'bogus'.*'nearest', 'linear'"):
        sx.image.resize(img, (2, 3, 4, 4), "bogus")
    with pytest.raises(sx.ShapeError, match=r"shape \(4, 4\) has 2 sizes.*'batch_of_images'.*full output shape"):
        sx.image.resize(img, (4, 4), "linear")
    with pytest.raises(ValueError, match=r"mode 'cubic'.*'constant', 'nearest' or 'linear'"):
        sx.interpolation.upsample_1d(img, 2, mode="cubic")
    with pytest.raises(ValueError, match=r"'nearest' has no 'mirror'"):
        sx.interpolation.upsample_1d(img, 2, mode="nearest", boundary_condition="mirror")
    with pytest.raises(sx.ShapeError, match=r"differ in shape"):
        sx.interpolation.hermite_1d(np.zeros(3), np.zeros(4), np.zeros(5), np.zeros(4))


# ---- affine_transform and thin_plate_spline (Lasagne's spatial transformers) ----


def scipy_affine(images, theta, out_h, out_w, order, mode):
    """The transformer written out with scipy.ndimage.affine_transform: output pixel (i, j) has
    x_t = -1 + 2 j / (out_w - 1), y_t = -1 + 2 i / (out_h - 1); the source (x_s, y_s) = A (x_t, y_t, 1)
    is at row (y_s + 1) / 2 (H - 1), column (x_s + 1) / 2 (W - 1): linear in (i, j)."""
    batch, channels, height, width = images.shape
    out = np.zeros((batch, channels, out_h, out_w))
    for b in range(batch):
        t = theta[b].reshape(2, 3)
        # x_t = -1 + sj j, y_t = -1 + si i
        si_, sj = 2 / (out_h - 1), 2 / (out_w - 1)
        ky, kx = (height - 1) / 2, (width - 1) / 2
        # row = ky (t[1,0] x_t + t[1,1] y_t + t[1,2] + 1), col = kx (t[0,0] x_t + t[0,1] y_t + t[0,2] + 1)
        matrix = np.array([[ky * t[1, 1] * si_, ky * t[1, 0] * sj], [kx * t[0, 1] * si_, kx * t[0, 0] * sj]])
        offset = np.array([ky * (-t[1, 0] - t[1, 1] + t[1, 2] + 1), kx * (-t[0, 0] - t[0, 1] + t[0, 2] + 1)])
        for ch in range(channels):
            out[b, ch] = nd.affine_transform(
                images[b, ch], matrix, offset, output_shape=(out_h, out_w), order=order, mode=mode
            )
    return out


@pytest.mark.parametrize("border_mode,mode", [("nearest", "nearest"), ("mirror", "mirror"), ("wrap", "grid-wrap")])
@pytest.mark.parametrize("order", [0, 1, 3])
def test_affine_transform_matches_scipy(border_mode, mode, order):
    rng = np.random.default_rng(40 + order)
    images = rng.normal(size=(2, 3, 9, 11))
    theta = np.array([[1.1, 0.3, 0.2, -0.2, 0.9, -0.1], [0.7, -0.5, 0.6, 0.4, 1.3, 0.3]])
    got = np.asarray(sx.interpolation.affine_transform(images, theta, order=order, border_mode=border_mode).eval())
    want = scipy_affine(images, theta, 9, 11, order, mode)
    if order == 0:  # ties of nearest rounding computed two ways: compare where not on a tie
        assert np.mean(np.isclose(got, want, atol=1e-9)) > 0.95
    else:
        np.testing.assert_allclose(got, want, atol=1e-9)
    # downsampling: 9 // 2 rows, 11 // 3 columns
    got = np.asarray(
        sx.interpolation.affine_transform(
            images, theta, order=1, downsample_factor=(2, 3), border_mode=border_mode
        ).eval()
    )
    assert got.shape == (2, 3, 4, 3)
    np.testing.assert_allclose(got, scipy_affine(images, theta, 4, 3, 1, mode), atol=1e-9)


def test_affine_transform_identity_and_gradient():
    rng = np.random.default_rng(41)
    images = rng.normal(size=(2, 1, 6, 7)).astype(np.float32)
    ident = np.tile(np.array([1, 0, 0, 0, 1, 0], np.float32), (2, 1))
    out = np.asarray(sx.interpolation.affine_transform(images, ident).eval())
    np.testing.assert_allclose(out, images, atol=1e-5)
    # gradient with respect to theta against float64 finite differences
    x = sx.placeholder((2, 1, 6, 7), "float64")
    th = sx.placeholder((2, 6), "float64")
    w = rng.normal(size=(2, 1, 6, 7))
    loss = (sx.interpolation.affine_transform(x, th) * w).sum()
    (g,) = sx.grad(loss, [th])
    f = sx.function([x, th], [loss, g])
    theta = np.array([[1.05, 0.13, 0.071, -0.11, 0.93, 0.047]] * 2)  # no source point on a pixel (a kink)
    _, gt = f(images.astype(np.float64), theta)
    h = 1e-6
    fd = np.zeros_like(theta)
    for idx in np.ndindex(theta.shape):
        e = np.zeros_like(theta)
        e[idx] = h
        fd[idx] = (f(images.astype(np.float64), theta + e)[0] - f(images.astype(np.float64), theta - e)[0]) / (2 * h)
    np.testing.assert_allclose(gt, fd, rtol=1e-5, atol=1e-6)


def lasagne_tps(images, offsets, out_h, out_w, order, mode):
    """Lasagne's TPSTransformerLayer in NumPy: L from the control grid, its inverse, the coefficients
    of the destination points, the transformed grid, sampled with scipy.ndimage."""
    batch, channels, height, width = images.shape
    k = offsets.shape[1] // 2
    side = int(round(np.sqrt(k)))
    xc, yc = np.meshgrid(np.linspace(-1, 1, side), np.linspace(-1, 1, side))
    src = np.vstack([xc.ravel(), yc.ravel()])

    def u(d2):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(d2 == 0, 0.0, d2 * np.log(d2))

    L = np.zeros((k + 3, k + 3))
    L[0, 3:] = 1
    L[1:3, 3:] = src
    L[3:, 0] = 1
    L[3:, 1:3] = src.T
    L[3:, 3:] = u(((src[:, :, None] - src[:, None, :]) ** 2).sum(0))
    linv = np.linalg.inv(L)
    xt, yt = np.meshgrid(np.linspace(-1, 1, out_w), np.linspace(-1, 1, out_h))
    grid = np.vstack([xt.ravel(), yt.ravel()])
    right = np.vstack([np.ones((1, grid.shape[1])), grid, u(((grid[:, None, :] - src[:, :, None]) ** 2).sum(0))])
    out = np.zeros((batch, channels, out_h, out_w))
    for b in range(batch):
        dest = src + offsets[b].reshape(2, k)
        coef = dest @ linv[:, 3:].T
        pts = coef @ right
        rows = (pts[1] + 1) / 2 * (height - 1)
        cols = (pts[0] + 1) / 2 * (width - 1)
        for ch in range(channels):
            out[b, ch] = nd.map_coordinates(images[b, ch], [rows, cols], order=order, mode=mode).reshape(out_h, out_w)
    return out


def test_thin_plate_spline():
    rng = np.random.default_rng(42)
    images = rng.normal(size=(2, 2, 8, 10))
    zero = np.zeros((2, 32))
    np.testing.assert_allclose(np.asarray(sx.interpolation.thin_plate_spline(images, zero).eval()), images, atol=1e-9)
    offsets = rng.normal(scale=0.1, size=(2, 32))
    for border_mode, mode in [("nearest", "nearest"), ("mirror", "mirror"), ("wrap", "grid-wrap")]:
        got = np.asarray(sx.interpolation.thin_plate_spline(images, offsets, border_mode=border_mode).eval())
        np.testing.assert_allclose(got, lasagne_tps(images, offsets, 8, 10, 1, mode), atol=1e-9)
    got = np.asarray(
        sx.interpolation.thin_plate_spline(
            images, rng.normal(scale=0.1, size=(2, 18)), order=3, downsample_factor=2
        ).eval()
    )
    assert got.shape == (2, 2, 4, 5)


# ---- upsample_1d / upsample_2d ----


def test_upsample_gallery_values():
    # SymJAX's gallery/plot_interpolation.py: w = [1, 2, 3], repeat=4 (written out by hand)
    w = np.array([1.0, 2.0, 3.0], np.float32)
    up = sx.interpolation.upsample_1d
    np.testing.assert_allclose(up(w, 4, mode="nearest").eval(), [1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 1, 1])
    lin = [0.2, 0.4, 0.6, 0.8]
    mirror = [1] + [1 + t for t in lin] + [2] + [2 + t for t in lin] + [3] + [3 - t for t in lin]
    np.testing.assert_allclose(up(w, 4, mode="linear", boundary_condition="mirror").eval(), mirror, rtol=1e-6)
    periodic = [1] + [1 + t for t in lin] + [2] + [2 + t for t in lin] + [3] + [3 - 2 * t for t in lin]
    np.testing.assert_allclose(up(w, 4, mode="linear", boundary_condition="periodic").eval(), periodic, rtol=1e-6)
    np.testing.assert_allclose(up(w, 4).eval(), [1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0])
    np.testing.assert_array_equal(np.asarray(up(w, 0).eval()), w)


def test_upsample_axes_and_2d():
    rng = np.random.default_rng(50)
    x = rng.normal(size=(3, 4, 5))
    got = np.asarray(sx.interpolation.upsample_1d(x, 2, axis=1, mode="linear", boundary_condition="mirror").eval())
    assert got.shape == (3, 12, 5)
    np.testing.assert_allclose(got[:, ::3], x)
    np.testing.assert_allclose(got[:, 1:-3:3], x[:, :-1] * 2 / 3 + x[:, 1:] / 3)
    np.testing.assert_allclose(got[:, -2], x[:, -1] * 2 / 3 + x[:, -2] / 3)
    np.testing.assert_allclose(sx.interpolation.upsample_1d(x, 2, axis=0, value=7.0).eval()[1::3], 7.0)
    y = np.asarray(sx.interpolation.upsample_2d(x, (1, 2)).eval())
    assert y.shape == (3, 8, 15)
    np.testing.assert_allclose(y[:, ::2, ::3], x)
    assert np.all(y[:, 1::2] == 0) and np.all(y[:, :, 1::3] == 0)


# ---- hermite_1d / hermite_2d ----


def test_hermite_1d_matches_scipy():
    rng = np.random.default_rng(60)
    knots = np.linspace(-1, 2, 7)
    h = knots[1] - knots[0]
    values = rng.normal(size=(3, 7))
    derivs = rng.normal(size=(3, 7))
    samples = np.concatenate([rng.uniform(-1, 2, 50), knots])
    got = np.asarray(sx.interpolation.hermite_1d(samples, np.tile(knots, (3, 1)), values, derivs).eval())
    assert got.shape == (3, 57)
    # SymJAX's derivatives are d/dt per interval (t in [0, 1]): dy/dx = derivative / h
    for i in range(3):
        np.testing.assert_allclose(got[i], si.CubicHermiteSpline(knots, values[i], derivs[i] / h)(samples), atol=1e-10)
    out = np.asarray(sx.interpolation.hermite_1d(np.array([-1.5, 2.5]), knots, values[0], derivs[0]).eval())
    np.testing.assert_array_equal(out, [0, 0])
    # gradient in the values: the Hermite basis, by finite differences
    v = sx.placeholder((7,), "float64")
    s = sx.placeholder((5,), "float64")
    y = sx.interpolation.hermite_1d(s, knots, v, derivs[0])
    g = sx.grad(y.sum(), [v, s])
    f = sx.function([v, s], [y.sum()] + list(g))
    pts = rng.uniform(-0.9, 1.9, 5)
    _, gv, gs = f(values[0], pts)
    spl = si.CubicHermiteSpline(knots, values[0], derivs[0] / h)
    np.testing.assert_allclose(gs, spl.derivative()(pts), rtol=1e-8)
    e = 1e-6
    fd = [
        (si.CubicHermiteSpline(knots, values[0] + e * np.eye(7)[j], derivs[0] / h)(pts).sum() - spl(pts).sum()) / e
        for j in range(7)
    ]
    np.testing.assert_allclose(gv, fd, rtol=1e-5, atol=1e-8)


def test_hermite_2d_reproduces_bicubics():
    # Bicubic Hermite patches reproduce a bicubic polynomial from its values and derivatives.
    rng = np.random.default_rng(61)
    coef = rng.normal(size=(4, 4))

    def f(x, y, dx=0, dy=0):
        out = 0
        for p in range(4):
            for q in range(4):
                cx = np.prod(range(p - dx + 1, p + 1)) if p >= dx else 0
                cy = np.prod(range(q - dy + 1, q + 1)) if q >= dy else 0
                out = out + coef[p, q] * cx * cy * x ** max(p - dx, 0) * y ** max(q - dy, 0)
        return out

    N, M = 3, 4
    X, Y = np.meshgrid(np.arange(N, dtype=float), np.arange(M, dtype=float), indexing="ij")
    vals = np.stack([f(X, Y), f(X, Y, 1), f(X, Y, 0, 1), f(X, Y, 1, 1)], -1)[None]
    n_x, n_y = 5, 4
    got = np.asarray(sx.interpolation.hermite_2d(vals, n_x, n_y).eval())
    assert got.shape == (1, (N - 1) * (n_x - 1), (M - 1) * (n_y - 1))
    tx = np.linspace(0, 1, n_x - 1)
    ty = np.linspace(0, 1, n_y - 1)
    xs = (np.arange(N - 1)[:, None] + tx).ravel()
    ys = (np.arange(M - 1)[:, None] + ty).ravel()
    np.testing.assert_allclose(got[0], f(xs[:, None], ys[None, :]), rtol=1e-9, atol=1e-9)


# ---- image.resize (jax.image.resize's conventions written out) ----


def jax_weights(n_in, n_out, kernel, antialias):
    """jax.image's compute_weight_mat (scale = out / in, no translation), as (in, out)."""
    inv = n_in / n_out
    ks = max(inv, 1.0) if antialias else 1.0
    sample = (np.arange(n_out) + 0.5) * inv - 0.5
    x = np.abs(sample[None, :] - np.arange(n_in)[:, None]) / ks
    w = kernel(x)
    tot = w.sum(0, keepdims=True)
    w = np.where(np.abs(tot) > 1000 * np.finfo(np.float32).eps, w / np.where(tot != 0, tot, 1), 0)
    return np.where(((sample >= -0.5) & (sample <= n_in - 0.5))[None, :], w, 0)


def keys(x):
    out = ((1.5 * x - 2.5) * x) * x + 1.0
    out = np.where(x >= 1, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
    return np.where(x >= 2, 0.0, out)


def lanczos3(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = 3 * np.sin(np.pi * x) * np.sin(np.pi * x / 3)
        out = np.where(x > 1e-3, y / (np.pi**2 * x**2), 1.0)
    return np.where(x > 3, 0.0, out)


KERNELS = {"linear": lambda x: np.maximum(0, 1 - x), "cubic": keys, "lanczos3": lanczos3}


def resize_np(img, shape, kernel, antialias):
    out = img
    for ax, (n_in, n_out) in enumerate(zip(img.shape, shape)):
        if n_in != n_out:
            out = np.moveaxis(
                np.tensordot(out, jax_weights(n_in, n_out, KERNELS[kernel], antialias), axes=([ax], [0])), -1, ax
            )
    return out


@pytest.mark.parametrize("method", ["linear", "bilinear", "cubic", "bicubic", "lanczos3"])
@pytest.mark.parametrize("antialias", [True, False])
def test_resize_kernels(method, antialias):
    rng = np.random.default_rng(70)
    img = rng.normal(size=(2, 9, 12, 3))
    kernel = {"bilinear": "linear", "bicubic": "cubic"}.get(method, method)
    for shape in [(2, 17, 5, 3), (2, 4, 25, 3), (2, 9, 7, 3)]:
        got = np.asarray(sx.image.resize(img, shape, method, antialias=antialias).eval())
        np.testing.assert_allclose(got, resize_np(img, shape, kernel, antialias), atol=1e-12)
        got32 = np.asarray(sx.image.resize(img.astype(np.float32), shape, method, antialias=antialias).eval())
        assert got32.dtype == np.float32
        np.testing.assert_allclose(got32, resize_np(img, shape, kernel, antialias), atol=2e-5)


def test_resize_hand_values_and_scipy():
    up = np.asarray(sx.image.resize(np.array([0.0, 1.0]), (4,), "linear").eval())
    np.testing.assert_allclose(up, [0, 0.25, 0.75, 1])
    # antialiased downsampling by 2 with the triangle kernel of width 2: samples at 0.5 and 2.5
    down = np.asarray(sx.image.resize(np.array([0.0, 1.0, 2.0, 3.0]), (2,), "linear").eval())
    np.testing.assert_allclose(down, [1.25 / 1.75, (0.25 * 1 + 0.75 * 2 + 0.75 * 3) / 1.75])
    np.testing.assert_allclose(
        sx.image.resize(np.array([0.0, 1.0, 2.0, 3.0]), (2,), "linear", antialias=False).eval(), [0.5, 2.5]
    )
    # bilinear upsampling with half-pixel centers is scipy.ndimage.zoom(grid_mode=True) with edge clamping
    rng = np.random.default_rng(71)
    img = rng.normal(size=(5, 6))
    got = np.asarray(sx.image.resize(img, (11, 13), "bilinear").eval())
    np.testing.assert_allclose(got, nd.zoom(img, (11 / 5, 13 / 6), order=1, grid_mode=True, mode="nearest"), atol=1e-12)


def test_resize_nearest_and_area():
    rng = np.random.default_rng(72)
    img = rng.normal(size=(6, 9))
    got = np.asarray(sx.image.resize(img, (4, 13), "nearest").eval())
    rows = np.floor((np.arange(4) + 0.5) * 6 / 4).astype(int)
    cols = np.floor((np.arange(13) + 0.5) * 9 / 13).astype(int)
    np.testing.assert_array_equal(got, img[rows][:, cols])
    # area: block means for integer factors, overlap-weighted means otherwise
    np.testing.assert_allclose(sx.image.resize(img, (3, 3), "area").eval(), img.reshape(3, 2, 3, 3).mean((1, 3)))
    got = np.asarray(sx.image.resize(np.array([1.0, 2.0, 4.0]), (2,), "area").eval())
    np.testing.assert_allclose(got, [(1 + 0.5 * 2) / 1.5, (0.5 * 2 + 4) / 1.5])
    assert np.asarray(sx.interpolation.resize(img, (6, 9), "area").eval()).shape == (6, 9)  # the alias


def test_resize_gradient():
    rng = np.random.default_rng(73)
    img = rng.normal(size=(5, 7))
    w = rng.normal(size=(8, 3))
    for method in ["nearest", "linear", "cubic", "area"]:
        x = sx.placeholder((5, 7), "float64")
        loss = (sx.image.resize(x, (8, 3), method) * w).sum()
        (g,) = sx.grad(loss, [x])
        got = sx.function([x], [g])(img)[0]
        # the map is linear: the gradient is the adjoint applied to w, i.e. d loss / d img[i, j]
        fd = np.zeros_like(img)
        for i, j in itertools.product(range(5), range(7)):
            e = np.zeros_like(img)
            e[i, j] = 1
            fd[i, j] = (np.asarray(sx.image.resize(e, (8, 3), method).eval()) * w).sum()
        np.testing.assert_allclose(got, fd, atol=1e-12, err_msg=method)


def test_transformer_order_error():
    img = sx.placeholder((1, 1, 4, 4), "float32", name="tiny")
    with pytest.raises(ValueError, match=r"order 2 is not offered.*'tiny'.*order=0"):
        sx.interpolation.affine_transform(img, np.zeros((1, 6), np.float32), order=2)

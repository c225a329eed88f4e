"""Conformance rows of symx.interpolation and symx.image (symx/interpolation.hpp), against
scipy.ndimage (map_coordinates, affine_transform), scipy.interpolate (hermite_1d), NumPy
(upsample_1d/2d, resize's weights as jax.image writes them) and hand-checked bicubics (hermite_2d);
added to test_conformance.py's table (see its _AREAS). Gradients by the table's float64 finite
differences, at coordinates away from the kinks (integers, half-integers, the modes' fold points);
tests/python/test_interpolation.py checks the kinks themselves."""

import numpy as np
from scipy import interpolate as si
from scipy import ndimage as nd

import symx as sx

MODES = ["constant", "nearest", "reflect", "mirror", "wrap", "grid-constant", "grid-wrap", "grid-mirror"]


def off_kinks(rng, low, high, shape):
    """Coordinates at integer + [0.15, 0.35] or integer + [0.65, 0.85]: off the kinks of order 1,
    the ties of order 0 and every mode's fold points (integers and half-integers)."""
    base = rng.integers(low, high, shape).astype(np.float64)
    frac = rng.uniform(0.15, 0.35, shape) + 0.5 * (rng.random(shape) > 0.5)
    return base + frac


def map_gen(shape, count):
    def gen(rng, dtype):
        cases = []
        for _ in range(2):
            a = rng.standard_normal(shape).astype(dtype)
            c = np.stack([off_kinks(rng, -n - 2, 2 * n + 2, count) for n in shape]).astype(dtype)
            cases.append([a, c])
        return cases

    return gen


def scipy_map(order, mode):
    def ref(a, c):
        # float32 rows: SciPy in float64 on the same values, cast back
        return nd.map_coordinates(a.astype(np.float64), c.astype(np.float64), order=order, mode=mode, cval=0.5).astype(
            a.dtype
        )

    return ref


def scipy_affine(images, theta, order, mode):
    """test_interpolation.scipy_affine: Lasagne's transformer as scipy.ndimage.affine_transform."""
    batch, channels, height, width = images.shape
    out = np.zeros(images.shape)
    for b in range(batch):
        t = theta[b].reshape(2, 3).astype(np.float64)
        si_, sj = 2 / (height - 1), 2 / (width - 1)
        ky, kx = (height - 1) / 2, (width - 1) / 2
        matrix = np.array([[ky * t[1, 1] * si_, ky * t[1, 0] * sj], [kx * t[0, 1] * si_, kx * t[0, 0] * sj]])
        offset = np.array([ky * (-t[1, 0] - t[1, 1] + t[1, 2] + 1), kx * (-t[0, 0] - t[0, 1] + t[0, 2] + 1)])
        for ch in range(channels):
            out[b, ch] = nd.affine_transform(images[b, ch].astype(np.float64), matrix, offset, order=order, mode=mode)
    return out.astype(images.dtype)


def theta_gen(rng, dtype):
    cases = []
    for _ in range(2):
        images = rng.standard_normal((2, 2, 5, 6)).astype(dtype)
        theta = (np.array([1, 0, 0, 0, 1, 0]) + rng.uniform(-0.2, 0.2, (2, 6))).astype(dtype)
        cases.append([images, theta])
    return cases


def upsample_ref(x, repeat, axis, mode, boundary):
    """SymJAX's upsample_1d in NumPy."""
    x = np.moveaxis(x, axis, -1)
    n = x.shape[-1]
    if mode == "nearest":
        out = np.roll(np.repeat(x, repeat + 1, -1), -repeat // 2, -1)
    else:
        t = np.arange(1, repeat + 1) / (repeat + 1)
        nxt = np.roll(x, -1, -1)
        if boundary == "mirror":
            nxt[..., -1] = x[..., -2]
        inter = x[..., None] * (1 - t) + nxt[..., None] * t if mode == "linear" else np.zeros(x.shape + (repeat,))
        out = np.concatenate([x[..., None], inter], -1).reshape(x.shape[:-1] + (n * (repeat + 1),))
    return np.moveaxis(out.astype(x.dtype), -1, axis)


def hermite_gen(rng, dtype):
    knots = np.linspace(-1, 2, 6)
    cases = []
    for _ in range(2):
        samples = off_kinks(rng, 0, 5, (9,)) * 0.6 - 1  # inside, off the knots
        cases.append(
            [
                samples.astype(dtype),
                np.tile(knots, (2, 1)).astype(dtype),
                rng.standard_normal((2, 6)).astype(dtype),
                rng.standard_normal((2, 6)).astype(dtype),
            ]
        )
    return cases


def hermite_ref(samples, knots, values, derivs):
    h = knots[0, 1] - knots[0, 0]
    s = samples.astype(np.float64)
    return np.stack(
        [si.CubicHermiteSpline(knots[i].astype(np.float64), values[i], derivs[i] / h)(s) for i in range(knots.shape[0])]
    ).astype(samples.dtype)


def hermite_2d_ref(values, n_x, n_y):
    """Per cell, p(x, y) = X M F M^T Y^T (SymJAX's hermite_2d) in NumPy loops."""
    m = np.array([[1, 0, 0, 0], [0, 0, 1, 0], [-3, 3, -2, -1], [2, -2, 1, 1]], np.float64)
    n, N, M, _ = values.shape
    tx, ty = np.linspace(0, 1, n_x - 1), np.linspace(0, 1, n_y - 1)
    out = np.zeros((n, (N - 1) * (n_x - 1), (M - 1) * (n_y - 1)))
    for b in range(n):
        for i in range(N - 1):
            for j in range(M - 1):
                v = values[b].astype(np.float64)
                F = np.array(
                    [
                        [v[i, j, 0], v[i, j + 1, 0], v[i, j, 2], v[i, j + 1, 2]],
                        [v[i + 1, j, 0], v[i + 1, j + 1, 0], v[i + 1, j, 2], v[i + 1, j + 1, 2]],
                        [v[i, j, 1], v[i, j + 1, 1], v[i, j, 3], v[i, j + 1, 3]],
                        [v[i + 1, j, 1], v[i + 1, j + 1, 1], v[i + 1, j, 3], v[i + 1, j + 1, 3]],
                    ]
                )
                X = tx[:, None] ** np.arange(4)
                Y = ty[:, None] ** np.arange(4)
                out[b, i * (n_x - 1) : (i + 1) * (n_x - 1), j * (n_y - 1) : (j + 1) * (n_y - 1)] = X @ m @ F @ m.T @ Y.T
    return out.astype(values.dtype)


def resize_ref(img, shape, method, antialias):
    out = img.astype(np.float64)
    for ax, (n_in, n_out) in enumerate(zip(img.shape, shape)):
        if n_in == n_out:
            continue
        if method == "nearest":
            idx = np.floor((np.arange(n_out) + 0.5) * n_in / n_out).astype(int)
            out = np.take(out, idx, axis=ax)
            continue
        inv = n_in / n_out
        sample = (np.arange(n_out) + 0.5) * inv - 0.5
        if method == "area":
            lo, hi = np.arange(n_out) * inv, (np.arange(n_out) + 1) * inv
            j = np.arange(n_in)
            w = np.clip(np.minimum(hi[None], j[:, None] + 1) - np.maximum(lo[None], j[:, None]), 0, None) / inv
        else:
            ks = max(inv, 1.0) if antialias else 1.0
            x = np.abs(sample[None, :] - np.arange(n_in)[:, None]) / ks
            if method == "linear":
                w = np.maximum(0, 1 - x)
            else:  # Keys cubic, a = -0.5
                w = np.where(
                    x >= 2,
                    0.0,
                    np.where(x >= 1, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, ((1.5 * x - 2.5) * x) * x + 1.0),
                )
            w = w / w.sum(0, keepdims=True)
            w = np.where(((sample >= -0.5) & (sample <= n_in - 0.5))[None], w, 0)
        out = np.moveaxis(np.tensordot(out, w, axes=([ax], [0])), -1, ax)
    return out.astype(img.dtype)


def add_rows(c):
    row = c.row
    for order in (0, 1, 3):
        for mode in MODES:
            shape = (5, 6) if order != 3 or mode not in ("reflect", "grid-mirror") else (12, 13)  # scipy gh-24550
            row(
                f"interpolation.map_coordinates[{order}-{mode}]",
                lambda a, co, order=order, mode=mode: sx.interpolation.map_coordinates(
                    a, co, order=order, mode=mode, cval=0.5
                ),
                scipy_map(order, mode),
                gen=map_gen(shape, (2, 3)),
                grad=True,
                api=("interpolation.map_coordinates",),
            )
    row(
        "interpolation.map_coordinates[3d]",
        lambda a, co: sx.interpolation.map_coordinates(a, co, order=1, mode="nearest"),
        lambda a, co: nd.map_coordinates(a.astype(np.float64), co.astype(np.float64), order=1, mode="nearest").astype(
            a.dtype
        ),
        gen=map_gen((3, 4, 5), (4,)),
        api=("interpolation.map_coordinates",),
    )
    for border_mode, mode in [("nearest", "nearest"), ("mirror", "mirror"), ("wrap", "grid-wrap")]:
        row(
            f"interpolation.affine_transform[{border_mode}]",
            lambda x, th, b=border_mode: sx.interpolation.affine_transform(x, th, border_mode=b),
            lambda x, th, m=mode: scipy_affine(x, th, 1, m),
            gen=theta_gen,
            api=("interpolation.affine_transform",),
        )
    row(
        "interpolation.thin_plate_spline",
        lambda x, off: sx.interpolation.thin_plate_spline(x, off),
        lambda x, off: x,  # zero offsets: the identity
        gen=lambda rng, dtype: [[rng.standard_normal((2, 2, 5, 6)).astype(dtype), np.zeros((2, 8), dtype)]],
        grad=False,  # source points on pixels at zero offsets: kinks (test_interpolation.py checks offsets)
        api=("interpolation.thin_plate_spline",),
    )
    for mode, boundary in [
        ("constant", "periodic"),
        ("nearest", "periodic"),
        ("linear", "periodic"),
        ("linear", "mirror"),
    ]:
        row(
            f"interpolation.upsample_1d[{mode}-{boundary}]",
            lambda x, m=mode, b=boundary: sx.interpolation.upsample_1d(x, 3, axis=1, mode=m, boundary_condition=b),
            lambda x, m=mode, b=boundary: upsample_ref(x, 3, 1, m, b),
            [((2, 4, 3),)],
            api=("interpolation.upsample_1d",),
        )
    row(
        "interpolation.upsample_2d",
        lambda x: sx.interpolation.upsample_2d(x, (1, 2), mode="linear"),
        lambda x: upsample_ref(upsample_ref(x, 1, 0, "linear", "periodic"), 2, 1, "linear", "periodic"),
        [((3, 4),)],
    )
    row(
        "interpolation.hermite_1d",
        lambda s, k, v, d: sx.interpolation.hermite_1d(s, k, v, d),
        hermite_ref,
        gen=hermite_gen,
        diff=[0, 2, 3],  # the knots are the grid: uniform spacing is what the reference assumes
    )
    row(
        "interpolation.hermite_2d",
        lambda v: sx.interpolation.hermite_2d(v, 4, 5),
        lambda v: hermite_2d_ref(v, 4, 5),
        [((2, 3, 3, 4),)],
    )
    for method, shape in [("nearest", (2, 7, 3)), ("linear", (2, 7, 3)), ("cubic", (2, 3, 9)), ("area", (2, 3, 2))]:
        row(
            f"image.resize[{method}]",
            lambda x, m=method, s=shape: sx.image.resize(x, s, m),
            lambda x, m=method, s=shape: resize_ref(x, s, m, True),
            [((2, 5, 6),)],
            api=("image.resize", "interpolation.resize"),
        )

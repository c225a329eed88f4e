"""Conformance rows of symx/sorting.hpp (added to test_conformance.py's table: see its _AREAS)."""

import warnings

import numpy as np

import symx as sx

# linear_recurrence is the scan of cumprod's gradient (h[k] = a[k] h[k-1] + b[k]), not a public name.
COVERAGE = {"linear_recurrence": ["cumprod[zeros]"]}


def f32_if_int(args, ref):
    return np.dtype("float32") if all(a.dtype.kind in "biu" for a in args) else ref.dtype


def same_as_first(args, ref):
    """symx keeps float32 where NumPy's float64 q (a Python list) promotes it, as jax.numpy."""
    return args[0].dtype


def float_of_args(args, ref):
    kinds = [a.dtype for a in args]
    if all(k.kind in "biu" for k in kinds):
        return np.dtype("float32")
    return np.result_type(*[k for k in kinds if k.kind == "f"])


def with_duplicates(shape):
    """Values drawn from a few integers (ties), NaN twice for floats."""

    def gen(rng, dtype):
        v = rng.integers(-2, 3, size=shape).astype(dtype)
        out = [v]
        if np.dtype(dtype).kind == "f":
            w = v.copy().reshape(-1)
            w[0] = w[3] = np.nan
            out.append(w.reshape(shape))
        return [[x] for x in out]

    return gen


def with_nans(shape, count=3):
    def gen(rng, dtype):
        v = rng.standard_normal(shape).astype(dtype)
        flat = v.reshape(-1)
        flat[rng.choice(flat.size, count, replace=False)] = np.nan
        return [[v]]

    return gen


def with_zeros(rng, dtype):
    v = rng.uniform(0.5, 1.5, (3, 6)) * np.where(rng.random((3, 6)) > 0.5, 1, -1)
    v[0, 1] = v[0, 2] = v[0, 3] = 0  # several in a row
    v[1, 4] = 0  # one
    v[2, 0] = v[2, 5] = 0  # two apart
    return [[v.astype(dtype)]]


def padded(values, size, fill):
    values = np.asarray(values)
    return np.concatenate([values, np.full(size - values.size, fill, values.dtype)])


def quiet(f):
    def g(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return f(*args)

    return g


def add_rows(c):
    row, I = c.row, c.I  # noqa: E741

    # ---- sort, argsort, partition, top_k ----
    for vname, kw, shape in [
        ("axis-1", {}, (3, 4)),
        ("axis0", {"axis": 0}, (2, 3, 4)),
        ("flat", {"axis": None}, (3, 4)),
    ]:
        row(
            f"sort[{vname}]",
            lambda x, kw=kw: sx.sort(x, **kw),
            lambda x, kw=kw: np.sort(x, **kw),
            [(shape,)],
            ints=I,
            api=("sort",),
        )
    row(
        "sort[descending]",
        lambda x: sx.sort(x, descending=True),
        lambda x: np.flip(np.sort(x), -1),
        gen=with_duplicates((3, 5)),
        grad=False,
        ints=I,
    )
    row("sort[nan]", sx.sort, np.sort, [((4, 5),)], kinds="special", grad=False)
    row("msort", sx.msort, lambda x: np.sort(x, axis=0), [((4, 3),)], ints=I)
    row(
        "argsort",
        lambda x: [sx.argsort(x), sx.argsort(x, axis=0), sx.argsort(x, axis=None)],
        lambda x: [np.argsort(x, kind="stable"), np.argsort(x, axis=0, kind="stable"), np.argsort(x, None, "stable")],
        gen=with_duplicates((4, 5)),
        grad=False,
        ints=I,
    )
    row(
        "argsort[descending]",
        lambda x: sx.argsort(x, descending=True),
        lambda x: x.shape[-1] - 1 - np.flip(np.argsort(np.flip(x, -1), kind="stable"), -1),
        gen=with_duplicates((4, 5)),
        grad=False,
        ints=I,
        api=("argsort",),
    )
    # A partition is not unique: the kth elements and the multiset of each row are.
    row(
        "partition",
        lambda x: [sx.partition(x, (1, -2))[..., 1], sx.partition(x, (1, -2))[..., -2], sx.sort(sx.partition(x, 2))],
        lambda x: [np.sort(x)[..., 1], np.sort(x)[..., -2], np.sort(x)],
        [((3, 5),), ((6,),)],
        ints=I,
    )
    row(
        "argpartition",
        lambda x: sx.take_along_axis(x, sx.argpartition(x, 2, axis=0), 0)[2],
        lambda x: np.sort(x, axis=0)[2],
        gen=with_duplicates((5, 4)),
        ints=I,
        grad=False,
    )
    row(
        "top_k",
        lambda x: list(sx.top_k(x, 3)),
        lambda x: [np.flip(np.sort(x), -1)[..., :3], np.argsort(-x, kind="stable")[..., :3]],
        [((3, 5),), ((4,),)],
        ints=I,
    )

    # ---- searching ----
    def sorted_and_values(rng, dtype):
        a = np.sort(rng.integers(-4, 5, 8)).astype(dtype)
        v = rng.integers(-6, 7, (3, 4)).astype(dtype)
        return [[a, v], [a, a]]

    for side in ("left", "right"):
        row(
            f"searchsorted[{side}]",
            lambda a, v, side=side: sx.searchsorted(a, v, side),
            lambda a, v, side=side: np.searchsorted(a, v, side),
            gen=sorted_and_values,
            grad=False,
            ints=I,
            api=("searchsorted",),
        )
    row(
        "searchsorted[sorter]",
        lambda a, v: sx.searchsorted(a, v, side="right", sorter=sx.argsort(a)),
        lambda a, v: np.searchsorted(a, v, side="right", sorter=np.argsort(a)),
        [((7,), (2, 3))],
        grad=False,
        api=("searchsorted",),
    )
    row(
        "lexsort",
        lambda a, b: [sx.lexsort([a, b]), sx.lexsort(sx.stack([a, b]), axis=0)],
        lambda a, b: [np.lexsort([a, b]), np.lexsort(np.stack([a, b]), axis=0)],
        [((3, 6), (3, 6))],
        kinds="small",
        dtypes=(),
        ints=I,
        grad=False,
    )

    # ---- order statistics ----
    for vname, kw, shape in [
        ("all", {}, (3, 4)),
        ("odd", {"axis": 1}, (4, 5)),
        ("axes", {"axis": (0, 2), "keepdims": True}, (2, 3, 3)),
    ]:
        row(
            f"median[{vname}]",
            lambda x, kw=kw: sx.median(x, **kw),
            lambda x, kw=kw: np.median(x, **kw),
            [(shape,)],
            ints=I,
            dtype=f32_if_int,
            api=("median",),
        )
    row(
        "median[nan]",
        lambda x: sx.median(x, axis=1),
        lambda x: np.median(x, axis=1),
        gen=with_nans((4, 5)),
        grad=False,
        api=("median",),
    )
    methods = ["linear", "lower", "higher", "midpoint", "nearest", "hazen", "weibull", "median_unbiased"]
    methods += ["normal_unbiased", "interpolated_inverted_cdf", "inverted_cdf"]
    for method in methods:
        row(
            f"quantile[{method}]",
            lambda x, m=method: sx.quantile(x, [0.0, 0.1, 0.45, 0.5, 0.9, 1.0], axis=1, method=m),
            lambda x, m=method: np.quantile(x, [0.0, 0.1, 0.45, 0.5, 0.9, 1.0], axis=1, method=m),
            [((3, 6),)],
            api=("quantile",),
            grad_cases=1,
            dtype=same_as_first,
        )
    row(
        "quantile[scalar]",
        lambda x, q: sx.quantile(x, q, axis=(0, 1), keepdims=True),
        lambda x, q: np.quantile(x, q, axis=(0, 1), keepdims=True),
        gen=lambda rng, dtype: [[rng.standard_normal((3, 4, 2)).astype(dtype), np.asarray(0.3, dtype)]],
        diff=[0],
        api=("quantile",),
    )
    row(
        "percentile",
        lambda x: sx.percentile(x, [10, 50, 75], axis=0),
        lambda x: np.percentile(x, [10, 50, 75], axis=0),
        [((5, 3),)],
        dtype=same_as_first,
    )
    row(
        "nanmedian",
        lambda x: sx.nanmedian(x, axis=1),
        quiet(lambda x: np.nanmedian(x, axis=1)),
        gen=with_nans((3, 5), 4),
    )
    row(
        "nanquantile",
        lambda x: sx.nanquantile(x, [0.2, 0.5], axis=0, method="linear"),
        quiet(lambda x: np.nanquantile(x, [0.2, 0.5], axis=0, method="linear")),
        gen=with_nans((5, 3), 4),
        dtype=same_as_first,
    )
    row(
        "nanpercentile",
        lambda x: sx.nanpercentile(x, 30, method="lower"),
        quiet(lambda x: np.nanpercentile(x, 30, method="lower")),
        gen=with_nans((4, 5), 3),
    )

    # ---- unique and set functions (size= on placeholders) ----
    def unique_ref(x, size=12):
        v, i, inv, cnt = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
        return [padded(v, size, v[0]), padded(i, size, 0), inv, padded(cnt, size, 0)]

    row(
        "unique",
        lambda x: list(sx.unique(x, True, True, True, size=12)),
        unique_ref,
        gen=with_duplicates((3, 4)),
        ints=I,
        grad=False,
    )

    def unique_axis_ref(x, axis, size, fill):
        v, i, inv, cnt = np.unique(x, return_index=True, return_inverse=True, return_counts=True, axis=axis)
        v = np.moveaxis(v, axis, 0)
        v = np.concatenate([v, np.full((size - v.shape[0],) + v.shape[1:], fill, x.dtype)])
        return [np.moveaxis(v, 0, axis), padded(i, size, 0), inv, padded(cnt, size, 0)]

    def duplicate_slices(rng, dtype):
        rows = rng.integers(-1, 2, (3, 4)).astype(dtype)
        return [[rows[rng.integers(0, 3, 6)]], [np.moveaxis(rows[rng.integers(0, 3, 5)], 0, 1)]]

    row(
        "unique[axis]",
        lambda x: [
            *sx.unique(x, True, True, True, axis=0, size=7, fill_value=9),
            *sx.unique(x, True, True, True, axis=-1, size=6, fill_value=-3),
        ],
        lambda x: unique_axis_ref(x, 0, 7, 9) + unique_axis_ref(x, 1, 6, -3),
        gen=duplicate_slices,
        ints=I,
        grad=False,  # a finite difference splits the duplicate slices (test_sorting.py checks the gradient)
        api=("unique",),
    )

    def array_api_unique_ref(x, size, fill):
        # NumPy 2.3+'s unique_values may come unsorted; its unique with equal_nan=False is the sorted reference.
        v, i, inv, cnt = np.unique(x, True, True, True, equal_nan=False)
        v, i, cnt = padded(v, size, fill), padded(i, size, 0), padded(cnt, size, 0)
        return [v, v, cnt, v, inv, v, i, inv, cnt]

    row(
        "unique[fill]",
        lambda x: [
            sx.unique_values(x, size=14, fill_value=-9),
            *sx.unique_counts(x, size=14, fill_value=-9),
            *sx.unique_inverse(x, size=14, fill_value=-9),
            *sx.unique_all(x, size=14, fill_value=-9),
        ],
        lambda x: array_api_unique_ref(x, 14, -9),
        gen=with_duplicates((3, 4)),
        ints=I,
        grad=False,
        api=("unique_values", "unique_counts", "unique_inverse", "unique_all"),
    )

    def two_sets(rng, dtype):
        a = rng.integers(-3, 4, (2, 4)).astype(dtype)
        b = rng.integers(0, 6, (5,)).astype(dtype)
        return [[a, b], [b, a]]

    row(
        "isin",
        lambda a, b: [sx.isin(a, b), sx.isin(a, b, invert=True), sx.in1d(a, b)],
        lambda a, b: [np.isin(a, b), np.isin(a, b, invert=True), np.isin(a.reshape(-1), b)],
        gen=two_sets,
        ints=I,
        grad=False,
        api=("isin", "in1d"),
    )
    for name, size in [("intersect1d", 8), ("setdiff1d", 8), ("setxor1d", 13), ("union1d", 13)]:
        row(
            name,
            lambda a, b, name=name, size=size: getattr(sx, name)(a, b, size=size, fill_value=-7),
            lambda a, b, name=name, size=size: padded(getattr(np, name)(a, b), size, -7),
            gen=two_sets,
            ints=I,
            grad=False,
        )

    def interp_points(rng, dtype):
        xp = np.sort(rng.choice(np.linspace(-2, 2, 17), 6, replace=False)).astype(dtype)
        fp = rng.standard_normal(6).astype(dtype)
        x = rng.uniform(-3, 3, (2, 5)).astype(dtype)
        on_knots = x.copy()
        on_knots[0, 0], on_knots[0, 1] = xp[0], xp[-1]
        return [[x, xp, fp], [on_knots, xp, fp]]  # the gradient's finite differences take the first

    row(
        "interp",
        lambda x, xp, fp: [sx.interp(x, xp, fp), sx.interp(x, xp, fp, left=-5, right=5)],
        lambda x, xp, fp: [np.interp(x, xp, fp), np.interp(x, xp, fp, left=-5, right=5)],
        gen=interp_points,
        dtype=float_of_args,
        diff=[0, 2],
        grad_cases=1,
    )
    row(
        "interp[period]",
        lambda x, xp, fp: sx.interp(x, xp, fp, period=3.0),
        lambda x, xp, fp: np.interp(x, xp, fp, period=3.0),
        gen=interp_points,
        dtype=float_of_args,
        diff=[0, 2],
        grad_cases=1,
        api=("interp",),
    )

    # ---- cumulative ops ----
    for vname, kw, shape in [("flat", {}, (3, 4)), ("axis0", {"axis": 0}, (3, 4)), ("axis-1", {"axis": -1}, (2, 3, 4))]:
        row(
            f"cumprod[{vname}]",
            lambda x, kw=kw: sx.cumprod(x, **kw),
            lambda x, kw=kw: np.cumprod(x, **kw),
            [(shape,)],
            kinds="away",
            ints=I,
            tol=c.LOOSE,
            api=("cumprod", "cumproduct"),
        )
    row("cumprod[zeros]", lambda x: sx.cumprod(x, axis=1), lambda x: np.cumprod(x, axis=1), gen=with_zeros)
    for name, ref in [("cummax", np.maximum.accumulate), ("cummin", np.minimum.accumulate)]:
        row(
            name,
            lambda x, name=name: [getattr(sx, name)(x, axis=1), getattr(sx, name)(x)],
            lambda x, ref=ref: [ref(x, axis=1), ref(x.reshape(-1))],
            [((3, 5),)],
            ints=I,
        )
    row(
        "logcumsumexp",
        lambda x: [sx.logcumsumexp(x, axis=0), sx.logcumsumexp(x, axis=1)],
        lambda x: [np.logaddexp.accumulate(x, axis=0), np.logaddexp.accumulate(x, axis=1)],
        [((4, 3),)],
        tol=c.LOOSE,
    )
    row("nancumsum", lambda x: sx.nancumsum(x, axis=1), lambda x: np.nancumsum(x, axis=1), gen=with_nans((3, 4), 3))
    row("nancumprod", lambda x: sx.nancumprod(x), lambda x: np.nancumprod(x), gen=with_nans((3, 4), 3))
    row(
        "cumulative_sum",
        lambda x: [sx.cumulative_sum(x, axis=1), sx.cumulative_sum(x, axis=0, include_initial=True)],
        lambda x: [np.cumulative_sum(x, axis=1), np.cumulative_sum(x, axis=0, include_initial=True)],
        [((3, 4),)],
        ints=I,
        tol=c.LOOSE,
    )
    row(
        "cumulative_prod",
        lambda x: [sx.cumulative_prod(x, axis=1), sx.cumulative_prod(x, axis=0, include_initial=True)],
        lambda x: [np.cumulative_prod(x, axis=1), np.cumulative_prod(x, axis=0, include_initial=True)],
        [((3, 4),)],
        kinds="away",
        ints=I,
        tol=c.LOOSE,
    )

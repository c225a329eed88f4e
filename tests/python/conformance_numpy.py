"""Conformance rows of symx/numpy.hpp (added to test_conformance.py's table: see its _AREAS)."""

import numpy as np

import symx as sx

# Public names of symx/numpy.hpp that are not ops: host-side dtype and shape helpers and the graph API,
# tested in test_numpy_names.py and test_graph_api.py.
NOT_OPS = {
    "can_cast",
    "promote_types",
    "result_type",
    "issubdtype",
    "issubsctype",
    "isdtype",
    "isscalar",
    "iscomplexobj",
    "broadcast_shapes",
    "ndim",
    "shape",
    "placeholder_like",
    "Graph",
    "current_graph",
    "get_variables",
    "get_placeholders",
    "get_ops",
    "ancestors",
    "roots",
    "variables_of",
}


def with_nan(rng, shape, dtype, frac=0.3):
    """Normal values with about `frac` of them NaN (and never a whole row, so NumPy does not warn)."""
    v = rng.standard_normal(shape)
    v[rng.random(shape) < frac] = np.nan
    if v.ndim:
        v[..., 0] = rng.standard_normal(v.shape[:-1])
    elif np.isnan(v):
        v = np.asarray(0.5)
    return np.asarray(v, dtype)


def quiet(ref):
    """The NumPy reference without its warnings (inf - inf, log of 0, ...: the rows test those values)."""

    def call(*args):
        with np.errstate(all="ignore"):
            return ref(*args)

    return call


def add_rows(c):
    F, I, LOOSE, make = c.F, c.I, c.LOOSE, c.make  # noqa: E741 (the integer dtypes, as test_conformance.py)

    def row(name, fn, ref, *args, **kwargs):
        return c.row(name, fn, quiet(ref), *args, **kwargs)

    f32_if_int = c.f32_if_int
    unary_shapes = [((3, 4),), ((2, 3),), ((),)]

    def unary_gen(kind, int_kind=None):
        def gen(rng, dt):
            k = int_kind if np.dtype(dt).kind in "iu" and int_kind else kind
            return [[make(k, s[0], dt, rng)] for s in unary_shapes]

        return gen

    # ---- unary primitives: float math (integers compute in float32) ----
    for name, fn, ref, kind, ints, api in [
        ("arcsin", sx.arcsin, np.arcsin, "unit", (), ("arcsin", "asin")),
        ("arccos", sx.arccos, np.arccos, "unit", (), ("arccos", "acos")),
        ("arcsinh", sx.arcsinh, np.arcsinh, "normal", ("int32",), ("arcsinh", "asinh")),
        ("arctanh", sx.arctanh, np.arctanh, "unit", (), ("arctanh", "atanh")),
        ("sinh", sx.sinh, np.sinh, "normal", ("int32",), ("sinh",)),
        ("cosh", sx.cosh, np.cosh, "normal", (), ("cosh",)),
        ("log2", sx.log2, np.log2, "pos", ("int32",), ("log2",)),
        ("log10", sx.log10, np.log10, "pos", ("int64",), ("log10",)),
        ("exp2", sx.exp2, np.exp2, "normal", ("int32",), ("exp2",)),
        ("cbrt", sx.cbrt, np.cbrt, "away", ("int32",), ("cbrt",)),
        ("deg2rad", sx.deg2rad, np.deg2rad, "normal", ("int32",), ("deg2rad", "radians")),
        ("rad2deg", sx.rad2deg, np.rad2deg, "normal", (), ("rad2deg", "degrees")),
        ("fabs", sx.fabs, np.fabs, "away", I, ("fabs",)),
    ]:
        row(
            name,
            fn,
            ref,
            gen=unary_gen(kind, "small" if kind == "normal" else kind),
            ints=ints,
            dtype=f32_if_int,
            api=api,
        )
    row(
        "arccosh",
        sx.arccosh,
        np.arccosh,
        gen=lambda rng, dt: [[np.asarray(1.1 + rng.random(s[0]) * 3, dt)] for s in unary_shapes],
        api=("arccosh", "acosh"),
    )
    row("atan", sx.atan, np.arctan, unary_shapes[:1])
    row("atan2", sx.atan2, np.arctan2, [((3, 4), (4,))], kinds=("normal", "away"))
    # Special values: 0, -0, +-inf, NaN and large arguments, against NumPy (no gradient).
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-30, -1e-30, 50.0, -50.0, 1e30, 0.5])
    for name, fn, ref in [
        ("arcsin", sx.arcsin, np.arcsin),
        ("arccos", sx.arccos, np.arccos),
        ("arcsinh", sx.arcsinh, np.arcsinh),
        ("arccosh", sx.arccosh, np.arccosh),
        ("arctanh", sx.arctanh, np.arctanh),
        ("sinh", sx.sinh, np.sinh),
        ("cosh", sx.cosh, np.cosh),
        ("log2", sx.log2, np.log2),
        ("log10", sx.log10, np.log10),
        ("exp2", sx.exp2, np.exp2),
        ("cbrt", sx.cbrt, np.cbrt),
    ]:
        row(
            f"{name}[special]",
            fn,
            lambda x, ref=ref: np.asarray(ref(x), x.dtype),
            gen=lambda rng, dt: [[special.astype(dt)]],
            grad=False,
            api=(),
        )
    row(
        "signbit",
        sx.signbit,
        np.signbit,
        gen=lambda rng, dt: [[special.astype(dt)] if np.dtype(dt).kind == "f" else [make("normal", (7,), dt, rng)]],
        ints=I + ("uint8",),
        grad=False,
    )

    # ---- binary primitives and composites ----
    bcast = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 4)), ((), (2, 3))]
    row("hypot", sx.hypot, np.hypot, bcast, ints=("int32",), dtype=f32_if_int)
    row("copysign", sx.copysign, np.copysign, bcast, ints=("int32",), dtype=f32_if_int)
    row("fmod", sx.fmod, np.fmod, bcast, kinds=("normal", "away"), ints=I)
    row("logaddexp", sx.logaddexp, np.logaddexp, bcast, ints=("int32",), dtype=f32_if_int)
    row("logaddexp2", sx.logaddexp2, np.logaddexp2, bcast, dtype=f32_if_int)
    pairs = np.array(
        [[0, 0, np.inf, -np.inf, np.inf, np.nan, 1e30, -1e30], [0, 5, np.inf, -np.inf, -np.inf, 1, 1e30, 2]]
    )
    for name, fn, ref in [
        ("hypot", sx.hypot, np.hypot),
        ("copysign", sx.copysign, np.copysign),
        ("fmod", sx.fmod, np.fmod),
        ("logaddexp", sx.logaddexp, np.logaddexp),
        ("logaddexp2", sx.logaddexp2, np.logaddexp2),
        ("fmax", sx.fmax, np.fmax),
        ("fmin", sx.fmin, np.fmin),
        ("heaviside", sx.heaviside, np.heaviside),
    ]:
        row(
            f"{name}[special]",
            fn,
            lambda a, b, ref=ref: np.asarray(ref(a, b), a.dtype),
            gen=lambda rng, dt: [
                [pairs[0].astype(dt), pairs[1].astype(dt)],
                [pairs[1].astype(dt), pairs[0].astype(dt)],
            ],
            grad=False,
            api=(),
        )
    row("fmax", sx.fmax, np.fmax, bcast[:2], ints=("int32",))
    row("fmin", sx.fmin, np.fmin, bcast[:2], ints=("int32",))
    row("heaviside", sx.heaviside, np.heaviside, bcast[:2], kinds=("small", "normal"))
    row(
        "ldexp",
        sx.ldexp,
        np.ldexp,
        gen=lambda rng, dt: [
            [make("normal", (3, 4), dt, rng), rng.integers(-10, 10, (4,)).astype(np.int32)],
            [make("normal", (5,), dt, rng), np.array(130, np.int64)],
        ],
        diff=[0],
        dtype=lambda args, ref: args[0].dtype,
    )
    row("frexp", sx.frexp, np.frexp, [((3, 4),)], kinds="special", grad=False)
    row(
        "float_power",
        sx.float_power,
        np.float_power,
        bcast[:2],
        kinds=("pos", "normal"),
        ints=("int32",),
    )
    row("divmod", sx.divmod, np.divmod, bcast, kinds=("normal", "away"), ints=I, grad=False)
    row("modf", sx.modf, np.modf, unary_shapes, kinds="normal")
    row("modf[special]", sx.modf, np.modf, gen=lambda rng, dt: [[special.astype(dt)]], grad=False, api=())
    row("trunc", sx.trunc, np.trunc, unary_shapes, ints=I, grad=False, api=("trunc", "fix"))
    row("trunc[special]", sx.trunc, np.trunc, gen=lambda rng, dt: [[special.astype(dt)]], grad=False, api=())
    row("rint", sx.rint, np.rint, unary_shapes, grad=False)
    for d in (0, 2, -1):
        row(
            f"around[{d}]",
            lambda x, d=d: sx.around(x, d),
            lambda x, d=d: np.around(x, d),
            gen=lambda rng, dt: [[np.asarray(rng.standard_normal((3, 4)) * 50, dt)]],
            ints=("int32",) if d <= 0 else (),
            grad=False,
            api=("around",),
        )
    row("positive", sx.positive, np.positive, unary_shapes, ints=I)
    row("logical_xor", sx.logical_xor, np.logical_xor, bcast, kinds="bool", dtypes=("bool",), grad=False)
    row(
        "logical_xor[float]",
        sx.logical_xor,
        np.logical_xor,
        bcast[:2],
        kinds="small",
        dtypes=("float32",),
        grad=False,
        api=(),
    )

    # ---- predicates ----
    for name, fn, ref in [
        ("isinf", sx.isinf, np.isinf),
        ("isposinf", sx.isposinf, np.isposinf),
        ("isneginf", sx.isneginf, np.isneginf),
        ("isreal", sx.isreal, np.isreal),
        ("iscomplex", sx.iscomplex, np.iscomplex),
    ]:
        row(name, fn, ref, [((3, 4),), ((7,),)], kinds="special", ints=("int32",), grad=False)
    close = [
        np.array([1.0, 1.0, np.inf, np.inf, np.nan, 0.0, 1e-9, 100.0]),
        np.array([1.0, 1.0 + 1e-6, np.inf, -np.inf, np.nan, 1e-9, 0.0, 100.001]),
    ]
    for kw in ({}, {"rtol": 1e-3, "atol": 0.0, "equal_nan": True}):
        tag = "" if not kw else "[kw]"
        row(
            f"isclose{tag}",
            lambda a, b, kw=kw: sx.isclose(a, b, **kw),
            lambda a, b, kw=kw: np.isclose(a, b, **kw),
            gen=lambda rng, dt: [[close[0].astype(dt), close[1].astype(dt)]],
            grad=False,
            api=("isclose",),
        )
        row(
            f"allclose{tag}",
            lambda a, b, kw=kw: sx.allclose(a, b, **kw),
            lambda a, b, kw=kw: np.asarray(np.allclose(a, b, **kw)),
            gen=lambda rng, dt: [[close[0].astype(dt), close[1].astype(dt)], [close[0][:2].astype(dt)] * 2],
            grad=False,
            api=("allclose",),
        )
    row(
        "array_equal",
        sx.array_equal,
        lambda a, b: np.asarray(np.array_equal(a, b)),
        gen=lambda rng, dt: [[x := make("small", (3, 4), dt, rng), x.copy()], [x, make("small", (3, 4), dt, rng)]],
        ints=I,
        grad=False,
    )
    row(
        "array_equal[equal_nan]",
        lambda a, b: sx.array_equal(a, b, equal_nan=True),
        lambda a, b: np.asarray(np.array_equal(a, b, equal_nan=True)),
        gen=lambda rng, dt: [[x := make("special", (3, 4), dt, rng), x.copy()]],
        grad=False,
        api=(),
    )
    # (No gradient row here: the default replacements, +-max, overflow the finite differences' cost.)
    row("nan_to_num", sx.nan_to_num, np.nan_to_num, [((3, 4),), ((7,),)], kinds="special", ints=("int32",), grad=False)
    row(
        "nan_to_num[values]",
        lambda x: sx.nan_to_num(x, nan=1.5, posinf=9.0, neginf=-9.0),
        lambda x: np.nan_to_num(x, nan=1.5, posinf=9.0, neginf=-9.0),
        [((7,),)],
        kinds="special",
        api=(),
    )

    # ---- reductions ----
    variants = [
        ("all", {}, (2, 3, 4)),
        ("axis-1", {"axis": -1}, (2, 3, 4)),
        ("axes02", {"axis": (0, 2)}, (2, 3, 4)),
        ("keepdims", {"axis": 1, "keepdims": True}, (2, 3, 4)),
        ("scalar", {}, ()),
    ]
    for name, fn, ref, kind, dtypes, grad in [
        ("all", sx.all, np.all, "small", ("bool", "int32", "float32"), False),
        ("any", sx.any, np.any, "small", ("bool", "int32", "float32"), False),
        ("count_nonzero", sx.count_nonzero, np.count_nonzero, "small", ("bool", "int32", "float32"), False),
        ("ptp", sx.ptp, np.ptp, "normal", F + I, True),
    ]:
        for vname, kw, shape in variants:
            if name == "count_nonzero" and "keepdims" in kw:
                kw = {"axis": 1}
            row(
                f"{name}[{vname}]",
                lambda x, fn=fn, kw=kw: fn(x, **kw),
                lambda x, ref=ref, kw=kw: np.asarray(ref(x, **kw)),
                [(shape,)],
                kinds=kind,
                dtypes=dtypes,
                grad=grad,
                api={"all": ("all", "alltrue"), "any": ("any", "sometrue")}.get(name, (name,)),
            )
    nan_cases = [((3, 4), {"axis": 1}), ((2, 3, 4), {"axis": (0, 2), "keepdims": True}), ((5,), {})]

    def nan_gen(rng, dt):
        return [[with_nan(rng, s, dt)] for s, _ in nan_cases]

    for name, fn, ref, grad in [
        ("nansum", sx.nansum, np.nansum, True),
        ("nanprod", sx.nanprod, np.nanprod, True),
        ("nanmax", sx.nanmax, np.nanmax, True),
        ("nanmin", sx.nanmin, np.nanmin, True),
        ("nanmean", sx.nanmean, np.nanmean, True),
        ("nanvar", sx.nanvar, np.nanvar, True),
        ("nanstd", sx.nanstd, np.nanstd, True),
    ]:
        for k, (shape, kw) in enumerate(nan_cases):
            row(
                f"{name}[{k}]",
                lambda x, fn=fn, kw=kw: fn(x, **kw),
                lambda x, ref=ref, kw=kw: np.asarray(ref(x, **kw)),
                gen=lambda rng, dt, shape=shape: [[with_nan(rng, shape, dt)]],
                grad=grad,
                tol=LOOSE,
                api=(name,),
            )
    row(
        "nanvar[ddof]",
        lambda x: sx.nanvar(x, axis=0, ddof=1),
        lambda x: np.nanvar(x, axis=0, ddof=1),
        gen=lambda rng, dt: [[with_nan(rng, (4, 3), dt, 0.2).T.copy()]],
        tol=LOOSE,
        api=(),
    )
    for name, fn, ref in [("nanargmax", sx.nanargmax, np.nanargmax), ("nanargmin", sx.nanargmin, np.nanargmin)]:
        for vname, kw in [("flat", {}), ("axis1", {"axis": 1}), ("keepdims", {"axis": -1, "keepdims": True})]:
            row(
                f"{name}[{vname}]",
                lambda x, fn=fn, kw=kw: fn(x, **kw),
                lambda x, ref=ref, kw=kw: np.asarray(ref(x, **kw)),
                gen=lambda rng, dt: [[with_nan(rng, (3, 4), dt)]],
                grad=False,
                api=(name,),
            )
    for name, fn, ref in [
        ("amax", sx.amax, np.amax),
        ("amin", sx.amin, np.amin),
        ("product", sx.product, np.prod),
        ("absolute", sx.absolute, np.absolute),
        ("bitwise_invert", sx.bitwise_invert, np.invert),
    ]:
        row(name, fn, ref, [((3, 4),)], kinds="small", dtypes=("int32",), grad=False)
    for name, fn, ref in [
        ("pow", sx.pow, np.power),
        ("true_divide", sx.true_divide, np.true_divide),
        ("remainder", sx.remainder, np.remainder),
    ]:
        row(name, fn, ref, [((3, 4), (4,))], kinds=("pos", "away"), grad=False)
    for name, fn, ref in [
        ("bitwise_left_shift", sx.bitwise_left_shift, np.left_shift),
        ("bitwise_right_shift", sx.bitwise_right_shift, np.right_shift),
    ]:
        row(name, fn, ref, [((3, 4), (4,))], kinds=("normal", "nonneg"), dtypes=("int32",), grad=False)

    # ---- statistics ----
    row(
        "average",
        lambda x: sx.average(x, axis=1),
        lambda x: np.average(x, axis=1),
        [((3, 4),)],
        ints=("int32",),
        dtype=f32_if_int,
    )
    row(
        "average[weights]",
        lambda x, w: sx.average(x, axis=0, weights=w),
        lambda x, w: np.average(x, axis=0, weights=w),
        gen=lambda rng, dt: [[make("normal", (4, 3), dt, rng), make("pos", (4,), dt, rng)]],
        api=(),
    )
    row(
        "average[returned]",
        lambda x, w: sx.average(x, weights=w, returned=True),
        lambda x, w: np.average(x, weights=w, returned=True),
        gen=lambda rng, dt: [[make("normal", (3, 4), dt, rng), make("pos", (3, 4), dt, rng)]],
        api=(),
    )

    # symx keeps float32 (as jax.numpy); NumPy's cov and corrcoef compute in float64.
    def float_of(args, ref):
        return np.result_type(np.float32, *[a.dtype for a in args])

    for name, kw in [("", {}), ("[rowvar]", {"rowvar": False}), ("[bias]", {"bias": True}), ("[ddof]", {"ddof": 0})]:
        row(
            f"cov{name}",
            lambda x, kw=kw: sx.cov(x, **kw),
            lambda x, kw=kw: np.cov(x, **kw),
            [((3, 5),)],
            tol=LOOSE,
            dtype=float_of,
            api=("cov",),
        )
    row(
        "cov[y]",
        lambda x, y: sx.cov(x, y),
        lambda x, y: np.cov(x, y),
        [((5,), (5,))],
        tol=LOOSE,
        dtype=float_of,
        api=(),
    )
    row("cov[1d]", sx.cov, np.cov, [((6,),)], tol=LOOSE, dtype=float_of, api=())
    row("corrcoef", sx.corrcoef, np.corrcoef, [((3, 6),)], tol=LOOSE, dtype=float_of)
    row(
        "corrcoef[y]",
        lambda x, y: sx.corrcoef(x, y, rowvar=False),
        lambda x, y: np.corrcoef(x, y, rowvar=False),
        [((6, 2), (6, 1))],
        tol=LOOSE,
        dtype=float_of,
        api=(),
    )

    # ---- choosing ----
    row(
        "select",
        lambda x: sx.select([x < -0.5, x > 0.5], [x * 2, x * 3], 0.25),
        lambda x: np.select([x < -0.5, x > 0.5], [x * 2, x * 3], np.asarray(0.25, x.dtype)),
        [((3, 4),)],
        ints=("int32",),
    )
    row(
        "piecewise",
        lambda x: sx.piecewise(x, [x < 0, x > 1], [lambda t: -t, lambda t: t * t, 0.5]),
        lambda x: np.piecewise(x, [x < 0, x > 1], [lambda t: -t, lambda t: t * t, 0.5]),
        [((3, 4),)],
    )
    for mode in ("raise", "clip", "wrap"):
        row(
            f"choose[{mode}]",
            lambda i, a, b, mode=mode: sx.choose(i, [a, b], mode=mode),
            lambda i, a, b, mode=mode: np.choose(i, [a, b], mode=mode),
            gen=lambda rng, dt, mode=mode: [
                [
                    rng.integers(0, 2, (3, 4)) if mode == "raise" else rng.integers(-3, 5, (3, 4)),
                    make("normal", (3, 4), dt, rng),
                    make("normal", (4,), dt, rng),
                ]
            ],
            diff=[1, 2],
            api=("choose",),
        )
    row("Tensor.ptp", lambda x: x.ptp(axis=0), lambda x: np.ptp(x, axis=0), [((3, 4),)], api=())
    row(
        "Tensor.any",
        lambda x: x.any(axis=1),
        lambda x: x.any(axis=1),
        [((3, 4),)],
        kinds="small",
        dtypes=("int32",),
        grad=False,
        api=(),
    )
    row("Tensor.cumsum", lambda x: x.cumsum(axis=1), lambda x: x.cumsum(axis=1), [((3, 4),)], api=())
    row("Tensor.dot", lambda x, y: x.dot(y), lambda x, y: x.dot(y), [((3, 4), (4, 2))], tol=LOOSE, api=())
    row("Tensor.repeat", lambda x: x.repeat(2, axis=0), lambda x: x.repeat(2, axis=0), [((3, 4),)], api=())

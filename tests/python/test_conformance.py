"""The conformance table: every public op of symx against a NumPy reference.

Each row names a symx function (built on placeholders), a NumPy reference, the dtypes to try and
an input generator. Each row is tested for
  (a) forward values against NumPy on random inputs over several shapes, broadcasting cases and
      dtypes, with per-dtype tolerances;
  (b) the inferred shape and dtype equal the computed result's, and the dtype equals NumPy's
      result dtype (or symx's documented deviation: true division and float math on integers
      give float32, mean of integers gives float32, weak Python floats with integer tensors give
      float32);
  (c) gradients against central finite differences in float64
      (cost = sum(f(x) * r) for a fixed random r, eps = 1e-6, evaluated with Tensor.eval);
  (d) the same forward inputs and gradient graphs on sx.function's compiled backend, against the
      reference evaluator (tight tolerance) and, forward, against NumPy as in (a) and (b). All rows
      share one compiled function for forward and one for gradients (compiling costs ~0.5 s per
      function), built and called once by module-scoped fixtures.

test_every_primitive_is_covered walks symx._symx._op_names() and fails for a primitive that no
row (or no test listed in PRIMITIVE_COVERAGE) exercises; test_every_public_function_has_a_row
fails for a public function without a row.
"""

import glob
import importlib
import math
import os
import sys
import zlib

import numpy as np
import pytest

import symx as sx

F = ("float32", "float64")
I = ("int32", "int64")  # noqa: E741 (the integer dtypes, as F holds the floating ones)
TOL = {"float32": (2e-5, 2e-6), "float64": (1e-10, 1e-12)}
LOOSE = {"float32": (2e-4, 2e-5), "float64": (1e-9, 1e-11)}


class Row:
    def __init__(
        self,
        name,
        fn,
        ref,
        cases=None,
        kinds="normal",
        dtypes=F,
        gen=None,
        grad=True,
        diff=None,
        dtype=None,
        tol=None,
        api=None,
        grad_cases=2,
        ints=(),
    ):
        self.name = name
        self.fn = fn
        self.ref = ref
        self.cases = cases if cases is not None else [((3, 4),)]
        self.kinds = kinds
        self.dtypes = tuple(dtypes) + tuple(ints)
        self.gen = gen
        self.grad = grad
        self.diff = diff
        self.dtype = dtype
        self.tol = tol or TOL
        self.api = api if api is not None else (name.split("[")[0],)
        self.grad_cases = grad_cases

    def __repr__(self):
        return self.name

    def generate(self, rng, dtype):
        if self.gen is not None:
            return self.gen(rng, dtype)
        out = []
        for shapes in self.cases:
            kinds = self.kinds if isinstance(self.kinds, tuple) else (self.kinds,) * len(shapes)
            out.append([make(kind, shape, dtype, rng) for kind, shape in zip(kinds, shapes)])
        return out


def make(kind, shape, dtype, rng):
    dtype = np.dtype(dtype)
    if dtype == np.bool_ or kind == "bool":
        return rng.random(shape) > 0.5
    if dtype.kind in "iu":
        lo, hi = {"pos": (1, 5), "nonneg": (0, 4), "away": (1, 5), "small": (-3, 4)}.get(kind, (-5, 6))
        v = rng.integers(lo, hi, size=shape)
        if kind == "away":
            v = v * np.where(rng.random(shape) > 0.5, 1, -1)
        return np.asarray(v, dtype)
    if kind == "pos":
        v = rng.uniform(0.5, 2.0, shape)
    elif kind == "unit":
        v = rng.uniform(-0.9, 0.9, shape)
    elif kind == "away":  # |v| in [0.5, 2]: away from 0 (abs, sign, divisors)
        v = rng.uniform(0.5, 2.0, shape) * np.where(rng.random(shape) > 0.5, 1, -1)
    elif kind == "special":  # with NaN and infinities
        v = rng.standard_normal(shape)
        flat = v.reshape(-1)
        if flat.size >= 3:
            flat[0], flat[1], flat[2] = np.nan, np.inf, -np.inf
    else:
        v = rng.standard_normal(shape)
    return np.asarray(v, dtype)


def f32_if_int(args, ref):
    """symx deviation: float math on integer or bool inputs computes in float32."""
    if all(np.dtype(a.dtype).kind in "biu" for a in args):
        return np.dtype("float32")
    return ref.dtype


def erf_ref(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x).astype(
        np.result_type(x.dtype, np.float32) if x.dtype.kind == "f" else np.float64
    )


ROWS = []


def row(*args, **kwargs):
    r = Row(*args, **kwargs)
    ROWS.append(r)
    return r


# ---- unary elementwise ----------------------------------------------------------------------

UNARY_SHAPES = [((3, 4),), ((2, 3, 4),), ((),), ((5,),)]
for name, fn, ref, kind, ints in [
    ("negative", sx.negative, np.negative, "normal", I),
    ("abs", sx.abs, np.abs, "away", I),
    ("sign", sx.sign, np.sign, "away", I),
    ("square", sx.square, np.square, "normal", I),
    ("exp", sx.exp, np.exp, "normal", ("int32",)),
    ("expm1", sx.expm1, np.expm1, "normal", ()),
    ("log", sx.log, np.log, "pos", ("int32",)),
    ("log1p", sx.log1p, np.log1p, "pos", ()),
    ("sqrt", sx.sqrt, np.sqrt, "pos", ("int64",)),
    ("rsqrt", sx.rsqrt, lambda x: 1 / np.sqrt(x), "pos", ()),
    ("reciprocal", sx.reciprocal, lambda x: np.asarray(1, x.dtype) / x, "pos", ()),
    ("sin", sx.sin, np.sin, "normal", ("int32",)),
    ("cos", sx.cos, np.cos, "normal", ()),
    ("tan", sx.tan, np.tan, "unit", ()),
    ("tanh", sx.tanh, np.tanh, "normal", ()),
    ("arctan", sx.arctan, np.arctan, "normal", ()),
    ("sigmoid", sx.sigmoid, lambda x: 1 / (1 + np.exp(-x)), "normal", ()),
    ("erf", sx.erf, erf_ref, "normal", ()),
    ("floor", sx.floor, np.floor, "normal", ()),
    ("ceil", sx.ceil, np.ceil, "normal", ()),
    ("round", sx.round, np.round, "normal", ()),
]:
    kind_ints = "small" if name in ("exp", "sin") else kind
    numeric = name in ("negative", "abs", "sign", "square")
    row(
        name,
        fn,
        ref,
        UNARY_SHAPES,
        kinds=kind,
        ints=ints,
        dtype=None if numeric else f32_if_int,
        gen=(
            lambda rng, dt, kind=kind, kind_ints=kind_ints: [
                [make(kind_ints if np.dtype(dt).kind in "iu" else kind, s[0], dt, rng)] for s in UNARY_SHAPES
            ]
        ),
    )

row("logical_not", sx.logical_not, np.logical_not, UNARY_SHAPES, kinds="bool", dtypes=("bool", "float32"), grad=False)
row("isnan", sx.isnan, np.isnan, [((3, 4),), ((7,),)], kinds="special", grad=False)
row("isfinite", sx.isfinite, np.isfinite, [((3, 4),), ((7,),)], kinds="special", grad=False)
row(
    "cast[float32]",
    lambda x: sx.cast(x, "float32"),
    lambda x: x.astype(np.float32),
    dtypes=("float64", "int32"),
    grad=False,
)
row(
    "cast[int32]",
    lambda x: sx.cast(x, np.int32),
    lambda x: x.astype(np.int32),
    gen=lambda rng, dt: [
        [np.asarray(rng.standard_normal((3, 4)) * 5, dt)],
        [np.asarray(rng.integers(-9, 9, (5,)), dt)],
    ],
    dtypes=("float32", "float64", "int64"),
    grad=False,
    api=("cast",),
)
row(
    "cast[bool]",
    lambda x: sx.cast(x, bool),
    lambda x: x.astype(bool),
    kinds="small",
    dtypes=("float32", "int32"),
    grad=False,
    api=("cast",),
)
row(
    "cast[float64]", lambda x: sx.cast(x, "float64"), lambda x: x.astype(np.float64), dtypes=("float64",), api=("cast",)
)
row(
    "astype",
    lambda x: sx.astype(x, "float64"),
    lambda x: x.astype(np.float64),
    dtypes=("float32", "int32", "bool"),
    grad=False,
)
row(
    "Tensor.astype",
    lambda x: x.astype(np.float32),
    lambda x: x.astype(np.float32),
    dtypes=("float64", "int64"),
    grad=False,
    api=(),
)
row("stop_gradient", sx.stop_gradient, lambda x: x, UNARY_SHAPES, grad="zero")

# ---- binary elementwise ---------------------------------------------------------------------

BCAST = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 4)), ((), (2, 3)), ((2, 1, 4), (3, 1))]
for name, fn, ref, kinds, ints, extra in [
    ("add", sx.add, np.add, "normal", I, {}),
    ("subtract", sx.subtract, np.subtract, "normal", I, {}),
    ("multiply", sx.multiply, np.multiply, "normal", I, {}),
    ("divide", sx.divide, np.true_divide, ("normal", "away"), I, {"dtype": f32_if_int}),
    ("power", sx.power, np.power, ("pos", "normal"), (), {}),
    ("maximum", sx.maximum, np.maximum, "normal", I, {}),
    ("minimum", sx.minimum, np.minimum, "normal", I, {}),
    ("mod", sx.mod, np.mod, ("normal", "away"), I, {}),
    ("arctan2", sx.arctan2, np.arctan2, ("normal", "away"), ("int32",), {"dtype": f32_if_int}),
]:
    row(name, fn, ref, BCAST, kinds=kinds, ints=ints, **extra)
row("power[int]", sx.power, np.power, BCAST, kinds=("small", "nonneg"), dtypes=I, grad=False, api=("power",))

for name, fn, ref in [
    ("equal", sx.equal, np.equal),
    ("not_equal", sx.not_equal, np.not_equal),
    ("less", sx.less, np.less),
    ("less_equal", sx.less_equal, np.less_equal),
    ("greater", sx.greater, np.greater),
    ("greater_equal", sx.greater_equal, np.greater_equal),
]:
    row(name, fn, ref, BCAST, kinds="small", ints=I, grad=False)
row("floor_divide", sx.floor_divide, np.floor_divide, BCAST, kinds=("normal", "away"), ints=I, grad=False)
for name, fn, ref in [
    ("bitwise_and", sx.bitwise_and, np.bitwise_and),
    ("bitwise_or", sx.bitwise_or, np.bitwise_or),
    ("bitwise_xor", sx.bitwise_xor, np.bitwise_xor),
]:
    row(name, fn, ref, BCAST, kinds="normal", dtypes=("bool", "uint8") + I, grad=False)
for name, fn, ref in [("left_shift", sx.left_shift, np.left_shift), ("right_shift", sx.right_shift, np.right_shift)]:
    row(name, fn, ref, BCAST, kinds=("normal", "nonneg"), dtypes=("uint8",) + I, grad=False)
row(
    "bitwise_not",
    sx.bitwise_not,
    np.bitwise_not,
    UNARY_SHAPES,
    kinds="normal",
    dtypes=("bool", "uint8") + I,
    grad=False,
)
for name, fn, ref in [("logical_and", sx.logical_and, np.logical_and), ("logical_or", sx.logical_or, np.logical_or)]:
    row(name, fn, ref, BCAST, kinds="bool", dtypes=("bool",), grad=False)
    row(name + "[float]", fn, ref, BCAST[:2], kinds="small", dtypes=("float32",), grad=False, api=())


def mixed(dtypes, shapes=((3, 4), (4,))):
    return lambda rng, _: [[make("small", s, d, rng) for s, d in zip(shapes, dtypes)]]


# NumPy's array-array promotion.
for a, b in [
    ("int32", "float32"),
    ("float32", "float64"),
    ("uint8", "int32"),
    ("bool", "int32"),
    ("int32", "int64"),
    ("uint8", "float32"),
    ("bool", "float64"),
]:
    row(f"add[{a},{b}]", sx.add, np.add, gen=mixed((a, b)), dtypes=("-",), grad=False, api=())
row(
    "multiply[int32,float64]",
    sx.multiply,
    np.multiply,
    gen=mixed(("int32", "float64")),
    dtypes=("-",),
    grad=False,
    api=(),
)
row(
    "divide[int32,int64]",
    sx.divide,
    np.true_divide,
    gen=lambda rng, _: [[make("small", (3,), "int32", rng), make("away", (3,), "int64", rng)]],
    dtypes=("-",),
    grad=False,
    dtype=f32_if_int,
    api=(),
)

# Operators, and weak Python scalars (NEP 50): int literals keep the tensor's dtype.
row("operator+", lambda x, y: x + y, np.add, BCAST, ints=I, api=())
row("operator-", lambda x, y: x - y, np.subtract, BCAST, ints=I, api=())
row("operator*", lambda x, y: x * y, np.multiply, BCAST, ints=I, api=())
row("operator/", lambda x, y: x / y, np.true_divide, BCAST, kinds=("normal", "away"), dtype=f32_if_int, api=())
row("operator%", lambda x, y: x % y, np.mod, BCAST, kinds=("normal", "away"), ints=I, api=())
row("operator**", lambda x, y: x**y, np.power, BCAST, kinds=("pos", "normal"), api=())
row("operator@", lambda x, y: x @ y, np.matmul, [((3, 4), (4, 2)), ((2, 3, 4), (4,))], tol=LOOSE, api=())
row("operator-unary", lambda x: -x, np.negative, UNARY_SHAPES, ints=I, api=())
row("operator<", lambda x, y: x < y, np.less, BCAST, kinds="small", ints=I, grad=False, api=())
row("operator<=", lambda x, y: x <= y, np.less_equal, BCAST, kinds="small", ints=I, grad=False, api=())
row("operator>", lambda x, y: x > y, np.greater, BCAST, kinds="small", ints=I, grad=False, api=())
row("operator>=", lambda x, y: x >= y, np.greater_equal, BCAST, kinds="small", ints=I, grad=False, api=())
row("scalar x+2", lambda x: x + 2, lambda x: x + 2, ints=("int32", "uint8", "int64"), kinds="nonneg", api=())
row("scalar 3-x", lambda x: 3 - x, lambda x: 3 - x, ints=("int32",), api=())
row("scalar 2*x", lambda x: 2 * x, lambda x: 2 * x, ints=("int32",), api=())
row("scalar x*1.5", lambda x: x * 1.5, lambda x: x * 1.5, ints=("int32",), dtype=f32_if_int, api=())
row("scalar 1/x", lambda x: 1 / x, lambda x: 1 / x, kinds="away", ints=("int32",), dtype=f32_if_int, api=())
row("scalar x**2", lambda x: x**2, lambda x: x**2, ints=("int32",), api=())
row("scalar 2.0**x", lambda x: 2.0**x, lambda x: 2.0**x, api=())
row("scalar x%3", lambda x: x % 3, lambda x: x % 3, ints=("int64",), api=())
row("scalar x<0.5", lambda x: x < 0.5, lambda x: x < 0.5, ints=("int32",), grad=False, api=())
row("scalar x+True", lambda x: x + True, lambda x: x + True, dtypes=("int32", "float32"), grad=False, api=())
row(
    "numpy-array+x",
    lambda x: np.full((3, 4), 2, np.float32) + x,
    lambda x: np.full((3, 4), 2, np.float32) + x,
    dtypes=F,
    api=(),
)
row(
    "where",
    sx.where,
    np.where,
    [((3, 4), (3, 4), (3, 4)), ((3, 1), (4,), (3, 4)), ((), (2, 3), ())],
    kinds=("bool", "normal", "normal"),
    gen=None,
    diff=[1, 2],
    ints=("int32",),
)
ROWS[-1].gen = lambda rng, dt: [
    [make("bool", s[0], "bool", rng), make("normal", s[1], dt, rng), make("normal", s[2], dt, rng)]
    for s in [((3, 4), (3, 4), (3, 4)), ((3, 1), (4,), (3, 4)), ((), (2, 3), ())]
]
row(
    "where[scalars]",
    lambda c, x: sx.where(c, x, 0.0),
    lambda c, x: np.where(c, x, np.asarray(0, x.dtype)),
    gen=lambda rng, dt: [[make("bool", (3, 4), "bool", rng), make("normal", (3, 4), dt, rng)]],
    diff=[1],
    api=(),
)
row("clip", lambda x: sx.clip(x, -0.5, 0.7), lambda x: np.clip(x, -0.5, 0.7).astype(x.dtype), UNARY_SHAPES)
row("clip[int]", lambda x: sx.clip(x, -2, 3), lambda x: np.clip(x, -2, 3), dtypes=I, grad=False, api=())
row(
    "clip[tensors]",
    sx.clip,
    lambda x, lo, hi: np.clip(x, lo, hi),
    gen=lambda rng, dt: [
        [make("normal", (3, 4), dt, rng), -make("pos", (4,), dt, rng) / 2, make("pos", (3, 1), dt, rng) / 2]
    ],
    api=(),
)

# ---- reductions -----------------------------------------------------------------------------


def logsumexp_ref(x, axis=None, keepdims=False):
    return np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims))


REDUCE_VARIANTS = [
    ("all", {}, (2, 3, 4)),
    ("axis0", {"axis": 0}, (3, 4)),
    ("axis-1", {"axis": -1}, (2, 3, 4)),
    ("axes02", {"axis": (0, 2)}, (2, 3, 4)),
    ("keepdims", {"axis": 1, "keepdims": True}, (2, 3, 4)),
    ("scalar", {}, ()),
    ("allkeep", {"keepdims": True}, (2, 3)),
]
for name, fn, ref, kind, ints in [
    ("sum", sx.sum, np.sum, "normal", I),
    ("mean", sx.mean, np.mean, "normal", ("int32",)),
    ("prod", sx.prod, np.prod, "away", I),
    ("max", sx.max, np.max, "normal", I),
    ("min", sx.min, np.min, "normal", I),
    ("logsumexp", sx.logsumexp, logsumexp_ref, "normal", ()),
    ("var", sx.var, np.var, "normal", ()),
    ("std", sx.std, np.std, "normal", ()),
]:
    for vname, kw, shape in REDUCE_VARIANTS:
        if name == "std" and shape == ():
            continue  # d std / dx is undefined at a single element (std = 0)
        row(
            f"{name}[{vname}]",
            lambda x, fn=fn, kw=kw: fn(x, **kw),
            lambda x, ref=ref, kw=kw: np.asarray(ref(x, **kw)),
            [(shape,)],
            kinds=kind,
            ints=ints,
            tol=LOOSE,
            dtype=(lambda args, r: np.dtype("float32") if args[0].dtype.kind in "iu" else args[0].dtype)
            if name == "mean"
            else None,
        )
for name, fn, ref in [("argmax", sx.argmax, np.argmax), ("argmin", sx.argmin, np.argmin)]:
    for vname, kw, shape in [
        ("all", {}, (3, 4)),
        ("axis1", {"axis": 1}, (2, 3, 4)),
        ("axis-1", {"axis": -1}, (5,)),
        ("keepdims", {"axis": 0, "keepdims": True}, (3, 4)),
    ]:
        row(
            f"{name}[{vname}]",
            lambda x, fn=fn, kw=kw: fn(x, **kw),
            lambda x, ref=ref, kw=kw: np.asarray(ref(x, **kw)),
            [(shape,)],
            ints=I,
            grad=False,
        )
for vname, kw, shape in [("flat", {}, (3, 4)), ("axis0", {"axis": 0}, (3, 4)), ("axis-1", {"axis": -1}, (2, 3, 4))]:
    row(
        f"cumsum[{vname}]",
        lambda x, kw=kw: sx.cumsum(x, **kw),
        lambda x, kw=kw: np.cumsum(x, **kw),
        [(shape,)],
        ints=I,
        tol=LOOSE,
    )

# ---- shape and indexing ---------------------------------------------------------------------

SHP = [((2, 3, 4),)]
row("reshape", lambda x: sx.reshape(x, (6, 4)), lambda x: x.reshape(6, 4), SHP, ints=("int32",))
row("reshape[-1]", lambda x: sx.reshape(x, (4, -1, 2)), lambda x: x.reshape(4, -1, 2), SHP, api=("reshape",))
row("reshape[flat]", lambda x: sx.reshape(x, -1), lambda x: x.reshape(-1), SHP, api=())
row("Tensor.reshape", lambda x: x.reshape(3, 8), lambda x: x.reshape(3, 8), SHP, api=())
row("transpose", sx.transpose, np.transpose, SHP, ints=("int32",))
row("transpose[axes]", lambda x: sx.transpose(x, (1, 0, 2)), lambda x: np.transpose(x, (1, 0, 2)), SHP, api=())
row("Tensor.T", lambda x: x.T, lambda x: x.T, [((3, 4),), ((5,),)], api=())
row("expand_dims", lambda x: sx.expand_dims(x, 1), lambda x: np.expand_dims(x, 1), SHP)
row("expand_dims[-1]", lambda x: sx.expand_dims(x, -1), lambda x: np.expand_dims(x, -1), [((3,),), ((),)], api=())
row("squeeze", sx.squeeze, np.squeeze, [((2, 1, 3, 1),), ((1,),)])
row("squeeze[axis]", lambda x: sx.squeeze(x, 1), lambda x: np.squeeze(x, 1), [((2, 1, 3, 1),)], api=())
row(
    "broadcast_to",
    lambda x: sx.broadcast_to(x, (2, 3, 4)),
    lambda x: np.broadcast_to(x, (2, 3, 4)),
    [((3, 1),), ((),), ((4,),)],
    ints=("int32",),
)
row(
    "concatenate",
    lambda a, b, c: sx.concatenate([a, b, c]),
    lambda a, b, c: np.concatenate([a, b, c]),
    [((2, 3), (1, 3), (4, 3))],
    ints=("int32",),
)
row(
    "concatenate[axis1]",
    lambda a, b: sx.concatenate((a, b), axis=1),
    lambda a, b: np.concatenate((a, b), axis=1),
    [((2, 3), (2, 1))],
    api=(),
)
row(
    "concatenate[axis-1]",
    lambda a, b: sx.concatenate([a, b], axis=-1),
    lambda a, b: np.concatenate([a, b], axis=-1),
    [((2, 2, 3), (2, 2, 2))],
    api=(),
)
row(
    "stack", lambda a, b: sx.stack([a, b]), lambda a, b: np.stack([a, b]), [((3, 4), (3, 4)), ((), ())], ints=("int32",)
)
row(
    "stack[axis-1]",
    lambda a, b, c: sx.stack([a, b, c], axis=-1),
    lambda a, b, c: np.stack([a, b, c], axis=-1),
    [((3, 2),) * 3],
    api=(),
)
row("split", lambda x: sx.split(x, 3), lambda x: np.split(x, 3), [((6, 2),)])
row("split[indices]", lambda x: sx.split(x, [1, 3], axis=1), lambda x: np.split(x, [1, 3], axis=1), [((2, 5),)], api=())

INDEXERS = {
    "int": 1,
    "neg_int": -1,
    "slice": slice(1, 3),
    "step": slice(None, None, 2),
    "neg_step": slice(None, None, -1),
    "neg_bounds": slice(-3, -1),
    "tuple": (1, slice(1, 4)),
    "newaxis": (None, slice(None), None),
    "ellipsis": (Ellipsis, 1),
    "mixed": (Ellipsis, slice(None, None, -2), None),
    "oob_stop": slice(1, 100),
    "neg_start_step": (slice(3, 0, -2), 2),
    "all_ints": (1, 2, 0),
    "empty": slice(2, 2),
}
for iname, key in INDEXERS.items():
    row(
        f"getitem[{iname}]",
        lambda x, key=key: x[key],
        lambda x, key=key: x[key],
        [((4, 5, 3),)],
        ints=("int32",),
        api=(),
    )
row("slice", lambda x: sx.slice(x, (slice(None), slice(None, None, -1), 0)), lambda x: x[:, ::-1, 0], [((3, 4, 2),)])


def take_gen(x_shape, i_shape, n):
    return lambda rng, dt: [[make("normal", x_shape, dt, rng), rng.integers(0, n, i_shape).astype(np.int64)]]


row("take", lambda x, i: sx.take(x, i), lambda x, i: np.take(x, i), gen=take_gen((3, 4), (2, 3), 12), diff=[0])
row(
    "take[axis0]",
    lambda x, i: sx.take(x, i, axis=0),
    lambda x, i: np.take(x, i, axis=0),
    gen=take_gen((3, 4), (5,), 3),
    diff=[0],
    api=(),
)
row(
    "take[axis1]",
    lambda x, i: sx.take(x, i, axis=1),
    lambda x, i: np.take(x, i, axis=1),
    gen=take_gen((2, 4, 3), (2, 2), 4),
    diff=[0],
    api=(),
)
row(
    "take[int32 indices]",
    lambda x, i: sx.take(x, i, axis=-1),
    lambda x, i: np.take(x, i, axis=-1),
    gen=lambda rng, dt: [[make("normal", (3, 4), dt, rng), rng.integers(0, 4, (6,)).astype(np.int32)]],
    diff=[0],
    api=(),
)
row(
    "take_along_axis",
    lambda x, i: sx.take_along_axis(x, i, 1),
    lambda x, i: np.take_along_axis(x, i, 1),
    gen=lambda rng, dt: [[make("normal", (3, 4), dt, rng), rng.integers(0, 4, (3, 6)).astype(np.int64)]],
    diff=[0],
)
row(
    "take_along_axis[argsort]",
    lambda x, i: sx.take_along_axis(x, i, 0),
    lambda x, i: np.take_along_axis(x, i, 0),
    gen=lambda rng, dt: [[x := make("normal", (3, 4), dt, rng), np.argsort(x, axis=0)]],
    diff=[0],
    api=(),
)
row("pad", lambda x: sx.pad(x, [(1, 2), (0, 1)]), lambda x: np.pad(x, [(1, 2), (0, 1)]), [((2, 3),)], ints=("int32",))
row(
    "pad[value]",
    lambda x: sx.pad(x, [(2, 1)], constant_values=1.5),
    lambda x: np.pad(x, [(2, 1)], constant_values=1.5),
    [((3,),)],
    api=(),
)
row("flip", sx.flip, np.flip, SHP, ints=("int32",))
row("flip[axis]", lambda x: sx.flip(x, (0, 2)), lambda x: np.flip(x, (0, 2)), SHP, api=())
row("tile", lambda x: sx.tile(x, (2, 1, 3)), lambda x: np.tile(x, (2, 1, 3)), [((2, 3),)], ints=("int32",))
row("tile[1d]", lambda x: sx.tile(x, 2), lambda x: np.tile(x, 2), [((3,),)], api=())
row("repeat", lambda x: sx.repeat(x, 2), lambda x: np.repeat(x, 2), [((2, 3),)], ints=("int32",))
row("repeat[axis]", lambda x: sx.repeat(x, 3, axis=1), lambda x: np.repeat(x, 3, axis=1), [((2, 3),)], api=())
row(
    "one_hot",
    lambda i: sx.one_hot(i, 5),
    lambda i: np.eye(5, dtype=np.float32)[i],
    grad=False,
    gen=lambda rng, dt: [[rng.integers(0, 5, (3, 4)).astype(dt)], [rng.integers(0, 5, (6,)).astype(dt)]],
    dtypes=I,
)
row(
    "one_hot[int32]",
    lambda i: sx.one_hot(i, 3, dtype="int32"),
    lambda i: np.eye(3, dtype=np.int32)[i],
    grad=False,
    gen=lambda rng, dt: [[rng.integers(0, 3, (4,)).astype(dt)]],
    dtypes=("int64",),
    api=(),
)
row("eye", lambda: sx.eye(3), lambda: np.eye(3, dtype=np.float32), gen=lambda rng, dt: [[]], dtypes=("-",), grad=False)
row(
    "eye[rect]",
    lambda: sx.eye(3, 4, k=1),
    lambda: np.eye(3, 4, k=1, dtype=np.float32),
    gen=lambda rng, dt: [[]],
    dtypes=("-",),
    grad=False,
    api=(),
)
row(
    "eye[int]",
    lambda: sx.eye(4, 3, k=-1, dtype="int32"),
    lambda: np.eye(4, 3, k=-1, dtype=np.int32),
    gen=lambda rng, dt: [[]],
    dtypes=("-",),
    grad=False,
    api=(),
)
row(
    "linspace",
    lambda: sx.linspace(-5, 5, 5),
    lambda: np.linspace(-5, 5, 5, dtype=np.float32),
    gen=lambda rng, dt: [[]],
    dtypes=("-",),
    grad=False,
)
row(
    "linspace[open]",
    lambda: sx.linspace(0, 1, 4, endpoint=False, dtype="float64"),
    lambda: np.linspace(0, 1, 4, endpoint=False),
    gen=lambda rng, dt: [[]],
    dtypes=("-",),
    grad=False,
    api=(),
)
row(
    "arange",
    lambda: sx.arange(5),
    lambda: np.arange(5, dtype=np.float32),
    gen=lambda rng, dt: [[]],
    dtypes=("-",),
    grad=False,
)
row(
    "arange[step]",
    lambda: sx.arange(1, 8, 2, dtype="int32"),
    lambda: np.arange(1, 8, 2, dtype=np.int32),
    gen=lambda rng, dt: [[]],
    dtypes=("-",),
    grad=False,
    api=(),
)
row(
    "arange[float]",
    lambda: sx.arange(0, 1, 0.25, dtype=np.float64),
    lambda: np.arange(0, 1, 0.25),
    gen=lambda rng, dt: [[]],
    dtypes=("-",),
    grad=False,
    api=(),
)
row(
    "zeros",
    lambda: sx.zeros((2, 3)),
    lambda: np.zeros((2, 3), np.float32),
    gen=lambda rng, dt: [[]],
    dtypes=("-",),
    grad=False,
)
row(
    "ones",
    lambda: sx.ones((2, 3), "int32"),
    lambda: np.ones((2, 3), np.int32),
    gen=lambda rng, dt: [[]],
    dtypes=("-",),
    grad=False,
)
row("zeros_like", sx.zeros_like, np.zeros_like, SHP, ints=("int32",), grad="zero")
row("ones_like", sx.ones_like, np.ones_like, SHP, ints=("int32",), grad="zero")
row("meshgrid", lambda a, b: sx.meshgrid(a, b), lambda a, b: np.meshgrid(a, b), [((3,), (4,))])
row(
    "meshgrid[ij]",
    lambda a, b, c: sx.meshgrid(a, b, c, indexing="ij"),
    lambda a, b, c: np.meshgrid(a, b, c, indexing="ij"),
    [((2,), (3,), (2,))],
    api=(),
)

# ---- linear algebra -------------------------------------------------------------------------

row(
    "matmul",
    sx.matmul,
    np.matmul,
    [
        ((3, 4), (4, 5)),
        ((2, 3, 4), (2, 4, 5)),
        ((2, 1, 3, 4), (5, 4, 2)),
        ((4,), (4, 5)),
        ((3, 4), (4,)),
        ((4,), (4,)),
        ((2, 3, 4), (4,)),
        ((4,), (2, 4, 3)),
    ],
    ints=("int32",),
    tol=LOOSE,
    grad_cases=8,
)
row(
    "dot",
    sx.dot,
    np.dot,
    [((4,), (4,)), ((3, 4), (4,)), ((3, 4), (4, 2)), ((4,), (4, 3))],
    ints=("int64",),
    tol=LOOSE,
    grad_cases=4,
)
row("outer", sx.outer, np.outer, [((3,), (4,))], ints=("int32",))


def well_conditioned(shape):
    def gen(rng, dt):
        a = rng.standard_normal(shape) + 3 * np.eye(shape[-1])
        return [[np.asarray(a, dt)]]

    return gen


def spd_input(shape):
    return lambda rng, dt: [[np.asarray(rng.standard_normal(shape), dt)]]


def sym_sx(b):
    n = b.shape[-1]
    return sx.matmul(b, sx.transpose(b, tuple(range(b.ndim - 2)) + (b.ndim - 1, b.ndim - 2))) + 3 * np.eye(
        n, dtype=b.dtype
    )


def sym_np(b):
    return b @ np.swapaxes(b, -1, -2) + 3 * np.eye(b.shape[-1], dtype=b.dtype)


row(
    "linalg.inv",
    sx.linalg.inv,
    np.linalg.inv,
    gen=lambda rng, dt: well_conditioned((3, 3))(rng, dt) + well_conditioned((2, 3, 3))(rng, dt),
    tol=LOOSE,
)
row(
    "linalg.det",
    sx.linalg.det,
    np.linalg.det,
    gen=lambda rng, dt: well_conditioned((3, 3))(rng, dt) + [[np.asarray(rng.standard_normal((2, 4, 4)), dt)]],
    tol=LOOSE,
)
row(
    "linalg.slogdet",
    lambda a: sx.linalg.slogdet(a),
    lambda a: tuple(np.linalg.slogdet(a)),
    gen=lambda rng, dt: [
        [np.asarray(rng.standard_normal((3, 3)), dt)],
        [np.asarray(rng.standard_normal((4, 2, 2)), dt)],
    ],
    tol=LOOSE,
)
row(
    "linalg.cholesky",
    lambda b: sx.linalg.cholesky(sym_sx(b)),
    lambda b: np.linalg.cholesky(sym_np(b)),
    gen=lambda rng, dt: spd_input((3, 3))(rng, dt) + spd_input((2, 4, 4))(rng, dt),
    tol=LOOSE,
)
row(
    "linalg.solve",
    sx.linalg.solve,
    np.linalg.solve,
    gen=lambda rng, dt: [
        well_conditioned((3, 3))(rng, dt)[0] + [make("normal", (3,), dt, rng)],
        well_conditioned((3, 3))(rng, dt)[0] + [make("normal", (3, 2), dt, rng)],
        well_conditioned((2, 3, 3))(rng, dt)[0] + [make("normal", (2, 3, 2), dt, rng)],
    ],
    tol=LOOSE,
)


def tri_ref(lower, transpose_a, unit):
    def ref(a, b):
        t = np.tril(a) if lower else np.triu(a)
        if unit:
            t = (
                t - np.diag(np.diagonal(t)) + np.eye(a.shape[-1], dtype=a.dtype)
                if t.ndim == 2
                else t * (1 - np.eye(a.shape[-1], dtype=a.dtype)) + np.eye(a.shape[-1], dtype=a.dtype)
            )
        if transpose_a:
            t = np.swapaxes(t, -1, -2)
        return np.linalg.solve(t, b)

    return ref


for lower, transpose_a, unit in [
    (True, False, False),
    (False, False, False),
    (True, True, False),
    (False, True, True),
    (True, False, True),
]:

    def fn(a, b, lower=lower, transpose_a=transpose_a, unit=unit):
        n = a.shape[-1]
        mask = np.tril(np.ones((n, n), a.dtype)) if lower else np.triu(np.ones((n, n), a.dtype))
        return sx.linalg.triangular_solve(a * mask, b, lower=lower, transpose_a=transpose_a, unit_diagonal=unit)

    row(
        f"linalg.triangular_solve[lower={lower},trans={transpose_a},unit={unit}]",
        fn,
        tri_ref(lower, transpose_a, unit),
        gen=lambda rng, dt: [
            well_conditioned((3, 3))(rng, dt)[0] + [make("normal", (3, 2), dt, rng)],
            well_conditioned((2, 3, 3))(rng, dt)[0] + [make("normal", (2, 3, 1), dt, rng)],
        ],
        tol=LOOSE,
        api=("linalg.triangular_solve",),
    )

# ---- neural-network ops ---------------------------------------------------------------------


def gelu_ref(x, approximate=False):
    x64 = x.astype(np.float64)
    if approximate:
        y = 0.5 * x64 * (1 + np.tanh(np.sqrt(2 / np.pi) * (x64 + 0.044715 * x64**3)))
    else:
        y = 0.5 * x64 * (1 + erf_ref(x64 / np.sqrt(2)))
    return y.astype(x.dtype)


def softmax_ref(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


row("nn.relu", sx.nn.relu, lambda x: np.maximum(x, 0), UNARY_SHAPES, kinds="away", ints=("int32",))
row(
    "nn.leaky_relu",
    lambda x: sx.nn.leaky_relu(x, 0.1),
    lambda x: np.where(x > 0, x, x * np.asarray(0.1, x.dtype)),
    UNARY_SHAPES,
    kinds="away",
)
row("nn.elu", sx.nn.elu, lambda x: np.where(x > 0, x, np.expm1(x)), UNARY_SHAPES, kinds="away")
row(
    "nn.elu[alpha]",
    lambda x: sx.nn.elu(x, alpha=0.5),
    lambda x: np.where(x > 0, x, np.asarray(0.5, x.dtype) * np.expm1(x)),
    UNARY_SHAPES,
    kinds="away",
    api=(),
)
row("nn.gelu", sx.nn.gelu, gelu_ref, UNARY_SHAPES)
row(
    "nn.gelu[approximate]", lambda x: sx.nn.gelu(x, approximate=True), lambda x: gelu_ref(x, True), UNARY_SHAPES, api=()
)
row("nn.softplus", sx.nn.softplus, lambda x: np.logaddexp(np.asarray(0, x.dtype), x), UNARY_SHAPES)
row("nn.sigmoid", sx.nn.sigmoid, lambda x: 1 / (1 + np.exp(-x)), UNARY_SHAPES)
row("nn.softmax", sx.nn.softmax, softmax_ref, [((3, 4),), ((2, 3, 5),), ((4,),)])
row("nn.softmax[axis0]", lambda x: sx.nn.softmax(x, axis=0), lambda x: softmax_ref(x, 0), [((3, 4),)], api=())
row("nn.log_softmax", sx.nn.log_softmax, lambda x: np.log(softmax_ref(x)), [((3, 4),), ((5,),)])
row(
    "nn.log_softmax[axis1]",
    lambda x: sx.nn.log_softmax(x, axis=1),
    lambda x: np.log(softmax_ref(x, 1)),
    [((2, 3, 4),)],
    api=(),
)
row(
    "nn.softmax_cross_entropy",
    sx.nn.softmax_cross_entropy,
    lambda x, y: -np.sum(y * np.log(softmax_ref(x)), axis=-1).astype(x.dtype),
    [((3, 4), (3, 4)), ((5,), (5,))],
    kinds=("normal", "pos"),
)
row(
    "nn.softmax_cross_entropy[axis1]",
    lambda x, y: sx.nn.softmax_cross_entropy(x, y, axis=1),
    lambda x, y: -np.sum(y * np.log(softmax_ref(x, 1)), axis=1).astype(x.dtype),
    [((2, 3, 4), (2, 3, 4))],
    kinds=("normal", "pos"),
    api=(),
)


# The toolkit's activations (toolkit/include/symx/nn/activations.hpp): compositions of the ops above,
# on inputs spread over [-5, 5] so that every piece of the piecewise ones is met.
def spread(rng, dt):
    return [[np.asarray(rng.uniform(-5, 5, (3, 4)), dt)], [np.asarray(rng.uniform(-5, 5, (2, 3, 6)), dt)]]


def hard_sigmoid_ref(x):
    return np.clip(x + np.asarray(3, x.dtype), 0, 6) / np.asarray(6, x.dtype)


def normalize_ref(x, ord=2, axis=-1):
    norm = np.linalg.norm(x.astype(np.float64), ord=ord, axis=axis, keepdims=True)
    return (x / np.maximum(norm, 1e-12)).astype(x.dtype)


SELU = (1.6732632423543772848170429916717, 1.0507009873554804934193349852946)
row("nn.relu6", sx.nn.relu6, lambda x: np.clip(x, 0, 6), gen=spread)
row("nn.silu", sx.nn.silu, lambda x: x / (1 + np.exp(-x)), gen=spread)
row("nn.swish", sx.nn.swish, lambda x: x / (1 + np.exp(-x)), gen=spread)
row("nn.hard_tanh", sx.nn.hard_tanh, lambda x: np.clip(x, -1, 1), gen=spread)
row(
    "nn.selu",
    sx.nn.selu,
    lambda x: np.where(x > 0, x, np.asarray(SELU[0], x.dtype) * np.expm1(x)) * np.asarray(SELU[1], x.dtype),
    gen=spread,
)
row(
    "nn.celu",
    lambda x: sx.nn.celu(x, alpha=0.5),
    lambda x: np.where(x > 0, x, np.asarray(0.5, x.dtype) * np.expm1(x / np.asarray(0.5, x.dtype))),
    gen=spread,
)
row("nn.hard_sigmoid", sx.nn.hard_sigmoid, hard_sigmoid_ref, gen=spread)
row("nn.hard_silu", sx.nn.hard_silu, lambda x: x * hard_sigmoid_ref(x), gen=spread)
row("nn.hard_swish", sx.nn.hard_swish, lambda x: x * hard_sigmoid_ref(x), gen=spread)
row("nn.soft_sign", sx.nn.soft_sign, lambda x: x / (1 + np.abs(x)), gen=spread)
row("nn.log_sigmoid", sx.nn.log_sigmoid, lambda x: -np.logaddexp(np.asarray(0, x.dtype), -x), gen=spread)
row(
    "nn.log_1_minus_sigmoid",
    sx.nn.log_1_minus_sigmoid,
    lambda x: -np.logaddexp(np.asarray(0, x.dtype), x),
    gen=spread,
)


def leaky_swish_ref(x, beta=2.0, a=0.1):
    feature = np.stack([a * x, x], -1)
    z = feature * beta
    w = np.exp(z - z.max(-1, keepdims=True))
    return (feature * w / w.sum(-1, keepdims=True)).sum(-1).astype(x.dtype)


row("nn.leaky_swish", lambda x: sx.nn.leaky_swish(x, 2.0, 0.1), leaky_swish_ref, gen=spread)
row("nn.glu", sx.nn.glu, lambda x: np.split(x, 2, -1)[0] / (1 + np.exp(-np.split(x, 2, -1)[1])), gen=spread)
row("nn.normalize", sx.nn.normalize, normalize_ref, gen=spread)
row(
    "nn.normalize[ord3_axis0]",
    lambda x: sx.nn.normalize(x, ord=3, axis=0),
    lambda x: normalize_ref(x, 3, 0),
    gen=spread,
    api=(),
)
row(
    "nn.normalize[inf]",
    lambda x: sx.nn.normalize(x, ord=np.inf),
    lambda x: normalize_ref(x, np.inf),
    gen=spread,
    api=(),
)


def same_pads(size, kernel, stride, dilation=1):
    span = dilation * (kernel - 1) + 1
    out = -(-size // stride)
    total = max((out - 1) * stride + span - size, 0)
    return (total // 2, total - total // 2)


def conv_ref(x, w, strides, pads, dilation, groups):
    """Direct N-d convolution (cross-correlation), NC... layout, as conv1d/conv2d."""
    nsp = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + [tuple(p) for p in pads])
    n, c = x.shape[:2]
    o, k = w.shape[0], w.shape[2:]
    out_sp = [(x.shape[2 + i] - dilation[i] * (k[i] - 1) - 1) // strides[i] + 1 for i in range(nsp)]
    out = np.zeros((n, o, *out_sp), np.result_type(x, w))
    cg, og = c // groups, o // groups
    for g in range(groups):
        xs, ws = x[:, g * cg : (g + 1) * cg], w[g * og : (g + 1) * og]
        for idx in np.ndindex(*out_sp):
            window = tuple(
                slice(idx[i] * strides[i], idx[i] * strides[i] + dilation[i] * (k[i] - 1) + 1, dilation[i])
                for i in range(nsp)
            )
            patch = xs[(slice(None), slice(None)) + window]
            axes = list(range(1, 2 + nsp))
            out[(slice(None), slice(g * og, (g + 1) * og)) + idx] = np.tensordot(patch, ws, axes=(axes, axes))
    return out


def conv_transpose_ref(x, w, strides, pads, output_padding, dilation, groups):
    """Scatter form of the transposed 2-D convolution (PyTorch's ConvTranspose2d)."""
    n, c, h, wd = x.shape
    og, kh, kw = w.shape[1:]
    o = og * groups
    cg = c // groups
    full = [(s - 1) * st + d * (k - 1) + 1 for s, st, d, k in zip((h, wd), strides, dilation, (kh, kw))]
    size = [f - lo - hi + op for f, (lo, hi), op in zip(full, pads, output_padding)]
    big = np.zeros((n, o, full[0] + size[0] + 4, full[1] + size[1] + 4), np.result_type(x, w))
    for g in range(groups):
        for i in range(h):
            for j in range(wd):
                for a in range(kh):
                    for b in range(kw):
                        contrib = np.einsum(
                            "nc,co->no", x[:, g * cg : (g + 1) * cg, i, j], w[g * cg : (g + 1) * cg, :, a, b]
                        )
                        big[
                            :, g * og : (g + 1) * og, i * strides[0] + a * dilation[0], j * strides[1] + b * dilation[1]
                        ] += contrib
    return big[:, :, pads[0][0] : pads[0][0] + size[0], pads[1][0] : pads[1][0] + size[1]]


def conv_gen(x_shape, w_shape):
    return lambda rng, dt: [[make("normal", x_shape, dt, rng), make("normal", w_shape, dt, rng)]]


def conv1d_case(name, x_shape, w_shape, stride=1, padding="VALID", dilation=1, groups=1):
    def ref(x, w):
        if padding == "SAME":
            pads = [same_pads(x.shape[2], w.shape[2], stride, dilation)]
        elif padding == "VALID":
            pads = [(0, 0)]
        else:
            pads = padding
        return conv_ref(x, w, [stride], pads, [dilation], groups)

    row(
        f"nn.conv1d[{name}]",
        lambda x, w: sx.nn.conv1d(x, w, stride=stride, padding=padding, dilation=dilation, groups=groups),
        ref,
        gen=conv_gen(x_shape, w_shape),
        tol=LOOSE,
        api=("nn.conv1d",),
    )


conv1d_case("basic", (2, 3, 7), (4, 3, 3))
conv1d_case("stride2_same", (1, 2, 8), (3, 2, 3), stride=2, padding="SAME")
conv1d_case("explicit", (1, 2, 5), (2, 2, 2), padding=[(1, 2)])
conv1d_case("dilation2", (1, 2, 9), (2, 2, 3), dilation=2)
conv1d_case("groups2", (2, 4, 6), (6, 2, 3), groups=2, padding="SAME")


def conv2d_case(name, x_shape, w_shape, strides=(1, 1), padding="VALID", dilation=(1, 1), groups=1):
    def ref(x, w):
        if padding == "SAME":
            pads = [same_pads(x.shape[2 + i], w.shape[2 + i], strides[i], dilation[i]) for i in range(2)]
        elif padding == "VALID":
            pads = [(0, 0), (0, 0)]
        else:
            pads = padding
        return conv_ref(x, w, strides, pads, dilation, groups)

    row(
        f"nn.conv2d[{name}]",
        lambda x, w: sx.nn.conv2d(x, w, strides=strides, padding=padding, dilation=dilation, groups=groups),
        ref,
        gen=conv_gen(x_shape, w_shape),
        tol=LOOSE,
        api=("nn.conv2d",),
    )


conv2d_case("basic", (1, 2, 5, 4), (3, 2, 3, 2))
conv2d_case("batch", (2, 3, 6, 6), (4, 3, 3, 3))
conv2d_case("strides_same", (1, 2, 7, 6), (2, 2, 3, 3), strides=(2, 1), padding="SAME")
conv2d_case("strides2_same_even", (1, 1, 6, 6), (2, 1, 2, 2), strides=(2, 2), padding="SAME")
conv2d_case("explicit", (1, 2, 4, 5), (2, 2, 3, 2), padding=[(1, 0), (2, 1)])
conv2d_case("dilation", (1, 2, 7, 5), (2, 2, 3, 2), dilation=(2, 1))
conv2d_case("groups2", (1, 4, 5, 5), (4, 2, 3, 3), groups=2)
conv2d_case("depthwise", (1, 3, 5, 4), (3, 1, 3, 3), groups=3, padding="SAME")


def conv2d_transpose_case(
    name, x_shape, w_shape, strides=(1, 1), padding="VALID", output_padding=(0, 0), dilation=(1, 1), groups=1
):
    pads = [(0, 0), (0, 0)] if padding == "VALID" else padding
    row(
        f"nn.conv2d_transpose[{name}]",
        lambda x, w: sx.nn.conv2d_transpose(
            x, w, strides=strides, padding=padding, output_padding=output_padding, dilation=dilation, groups=groups
        ),
        lambda x, w: conv_transpose_ref(x, w, strides, pads, output_padding, dilation, groups),
        gen=conv_gen(x_shape, w_shape),
        tol=LOOSE,
        api=("nn.conv2d_transpose",),
    )


conv2d_transpose_case("basic", (1, 2, 3, 3), (2, 3, 2, 2))
conv2d_transpose_case("strides2", (2, 2, 3, 2), (2, 2, 3, 3), strides=(2, 2))
conv2d_transpose_case("explicit", (1, 2, 4, 3), (2, 2, 3, 3), strides=(2, 1), padding=[(1, 1), (0, 1)])
conv2d_transpose_case(
    "output_padding", (1, 1, 3, 3), (1, 2, 3, 3), strides=(2, 2), padding=[(1, 1), (1, 1)], output_padding=(1, 1)
)
conv2d_transpose_case("dilation", (1, 2, 3, 3), (2, 1, 2, 2), dilation=(2, 1))
conv2d_transpose_case("groups2", (1, 4, 3, 3), (4, 1, 2, 2), groups=2)


def pool_ref(x, window, strides, padding, kind):
    strides = strides or window
    if padding == "SAME":
        pads = [same_pads(x.shape[2 + i], window[i], strides[i]) for i in range(2)]
    elif padding == "VALID":
        pads = [(0, 0), (0, 0)]
    else:
        pads = padding
    fill = -np.inf if kind == "max" else 0
    xp = np.pad(x, [(0, 0), (0, 0)] + [tuple(p) for p in pads], constant_values=fill)
    valid = np.pad(np.ones(x.shape[2:]), [tuple(p) for p in pads])
    oh = (xp.shape[2] - window[0]) // strides[0] + 1
    ow = (xp.shape[3] - window[1]) // strides[1] + 1
    out = np.zeros(x.shape[:2] + (oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            sl = (slice(i * strides[0], i * strides[0] + window[0]), slice(j * strides[1], j * strides[1] + window[1]))
            patch = xp[(slice(None), slice(None)) + sl]
            if kind == "max":
                out[:, :, i, j] = patch.max(axis=(2, 3))
            else:
                out[:, :, i, j] = patch.sum(axis=(2, 3)) / valid[sl].sum()
    return out


for kind, fn in [("max", sx.nn.max_pool2d), ("avg", sx.nn.avg_pool2d)]:
    for name, x_shape, window, strides, padding in [
        ("basic", (1, 2, 4, 6), (2, 2), None, "VALID"),
        ("overlap_same", (2, 1, 5, 5), (3, 3), (2, 2), "SAME"),
        ("explicit", (1, 2, 4, 5), (2, 3), (1, 2), [(1, 0), (1, 1)]),
        ("rect_stride", (1, 1, 6, 5), (3, 2), (2, 1), "VALID"),
    ]:
        row(
            f"nn.{kind}_pool2d[{name}]",
            lambda x, fn=fn, window=window, strides=strides, padding=padding: fn(x, window, strides, padding),
            lambda x, window=window, strides=strides, padding=padding, kind=kind: pool_ref(
                x, window, strides, padding, kind
            ),
            [(x_shape,)],
            tol=LOOSE,
            api=(f"nn.{kind}_pool2d",),
        )

# Rows of other areas live in their own modules, tests/python/conformance_<area>.py: each defines
# add_rows(c), called with this module (c.row, c.F, c.I, c.TOL, c.LOOSE, c.make, ...), and may define
# COVERAGE (entries for PRIMITIVE_COVERAGE) and NOT_OPS (public names that are not ops).
_AREAS = []
for _path in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "conformance_*.py"))):
    _area = importlib.import_module(os.path.basename(_path)[:-3])
    _area.add_rows(sys.modules[__name__])
    _AREAS.append(_area)

ROW_NAMES = [r.name for r in ROWS]
assert len(set(ROW_NAMES)) == len(ROW_NAMES), "duplicate row names"
ROW_BY_NAME = {r.name: r for r in ROWS}

# ---- the tests ------------------------------------------------------------------------------


# A fresh graph for each test: the default graph keeps every placeholder's unique name, and naming
# is slow in their number; tensors outlive a reset (the module-scoped fixtures below keep theirs).
pytestmark = pytest.mark.usefixtures("fresh_graph")


def as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def expected_dtype(r, args, ref):
    return np.dtype(r.dtype(args, ref)) if r.dtype else ref.dtype


def seed_for(name):
    return zlib.crc32(name.encode())


def build(r, args, name=""):
    phs = [sx.placeholder(a.shape, a.dtype, name=f"{name}{i}" if name else "") for i, a in enumerate(args)]
    return phs, as_list(r.fn(*phs)), dict(zip(phs, args))


def check_against_numpy(r, args, out, value, ref, where):
    """(b) the inferred type is the computed type, and NumPy's (or symx's documented rule); (a) the values."""
    assert out.shape == value.shape == ref.shape, where
    assert out.dtype == value.dtype, where
    assert value.dtype == expected_dtype(r, args, ref), f"{where}: {value.dtype} vs numpy {ref.dtype}"
    if value.dtype.kind in "fc":  # floats and complex numbers, by their precision
        rtol, atol = r.tol["float32" if value.dtype in (np.float32, np.complex64) else "float64"]
        if any(a.dtype == np.float32 for a in args) or ref.dtype != value.dtype:
            rtol, atol = max(rtol, r.tol["float32"][0]), max(atol, r.tol["float32"][1])
        np.testing.assert_allclose(value, ref.astype(value.dtype), rtol=rtol, atol=atol, err_msg=where)
    else:
        np.testing.assert_array_equal(value, ref, err_msg=where)


@pytest.mark.parametrize("r", ROWS, ids=ROW_NAMES)
def test_forward(r):
    """(a) values against NumPy and (b) inferred shape/dtype == computed == expected."""
    rng = np.random.default_rng(seed_for(r.name))
    for dtype in r.dtypes:
        for args in r.generate(rng, dtype):
            phs, outs, feed = build(r, args)
            refs = [np.asarray(x) for x in as_list(r.ref(*args))]
            assert len(outs) == len(refs)
            for out, ref in zip(outs, refs):
                value = out.eval(feed)
                where = f"{r.name} dtype={dtype} shapes={[a.shape for a in args]}"
                check_against_numpy(r, args, out, value, ref, where)


GRAD_ROWS = [r for r in ROWS if r.grad]
EPS = 1e-6


@pytest.mark.parametrize("r", GRAD_ROWS, ids=[r.name for r in GRAD_ROWS])
def test_gradient(r):
    """(c) symbolic gradients against central finite differences in float64."""
    rng = np.random.default_rng(seed_for(r.name) + 1)
    for args in r.generate(rng, "float64")[: r.grad_cases]:
        phs, outs, feed = build(r, args)
        weights = [rng.standard_normal(o.shape) for o in outs]
        cost = sx.sum(outs[0] * weights[0])
        for o, w in zip(outs[1:], weights[1:]):
            cost = cost + sx.sum(o * w)
        diff = r.diff if r.diff is not None else [i for i, a in enumerate(args) if a.dtype.kind == "f"]
        grads = sx.grad(cost, [phs[i] for i in diff])
        for i, g in zip(diff, grads):
            assert g.shape == args[i].shape and g.dtype == args[i].dtype
            symbolic = g.eval(feed)
            numeric = np.zeros_like(args[i])
            for idx in np.ndindex(*args[i].shape):
                plus, minus = args[i].copy(), args[i].copy()
                plus[idx] += EPS
                minus[idx] -= EPS
                numeric[idx] = (cost.eval({**feed, phs[i]: plus}) - cost.eval({**feed, phs[i]: minus})) / (2 * EPS)
            if r.grad == "zero":
                np.testing.assert_array_equal(symbolic, np.zeros_like(symbolic), err_msg=r.name)
            else:
                np.testing.assert_allclose(
                    symbolic,
                    numeric,
                    rtol=1e-5,
                    atol=1e-6,
                    err_msg=f"{r.name} d/d arg{i} shapes={[a.shape for a in args]}",
                )


# ---- the compiled backend -------------------------------------------------------------------
#
# Every row again on sx.function's compiled backend (the JIT: fusion, generated kernels, BLAS and
# fallbacks), against the reference evaluator and against NumPy. Compiling costs ~0.5 s per
# function, so the graphs of all rows go into one function (forward) and one more (gradients),
# each compiled and called once by a module-scoped fixture; the parametrized tests look up their
# row's results, so that a failure names the row.

# Compiled vs reference: the kernels use their own vectorized math (within 1-2 ulp), BLAS and
# another summation order, so the tolerance is tight but not exact.
CTOL = {"float32": (1e-5, 1e-6), "float64": (1e-10, 1e-12)}


class Case:
    """One row's graph on one input: placeholders, outputs and the arrays fed to them."""

    def __init__(self, r, where, args, phs, outs):
        self.row, self.where, self.args, self.phs, self.outs = r, where, args, phs, outs


class Batch:
    """The outputs of all cases from functions of one backend over all their graphs, called once.

    When the function over a group fails to build, compile or run, the group is split in half
    until the failing cases are isolated, and their entry holds the exception, so that a bad row
    fails its own test only. `whole` is the exception of the function over all cases, if any (a
    failure that only the combination of rows provokes shows there)."""

    def __init__(self, cases, backend):
        self.backend = backend
        self.results = {}
        self.whole = None
        self.functions = []
        self.run(cases, top=True)

    def run(self, group, top=False):
        try:
            f = sx.function([p for c in group for p in c.phs], [o for c in group for o in c.outs], backend=self.backend)
            got = f(*[a for c in group for a in c.args])
        except Exception as e:  # noqa: BLE001 -- reported by the tests of the rows concerned
            if top:
                self.whole = e
            if len(group) == 1:
                self.results[id(group[0])] = e
            else:
                self.run(group[: len(group) // 2])
                self.run(group[len(group) // 2 :])
            return
        self.functions.append(f)
        i = 0
        for c in group:
            self.results[id(c)] = got[i : i + len(c.outs)]
            i += len(c.outs)

    def values(self, case):
        got = self.results[id(case)]
        if isinstance(got, Exception):
            raise AssertionError(
                f"{case.row.name} {case.where}: the {self.backend} backend failed: {type(got).__name__}: {got}"
            ) from got
        return got


def assert_compiled_matches(got, want, out, where):
    """A compiled value against the reference evaluator's, and the inferred type."""
    assert got.shape == out.shape == want.shape, (
        f"{where}: shape {got.shape}, inferred {out.shape}, reference {want.shape}"
    )
    assert got.dtype == out.dtype == want.dtype, (
        f"{where}: dtype {got.dtype}, inferred {out.dtype}, reference {want.dtype}"
    )
    if got.dtype.kind in "fc":
        rtol, atol = CTOL["float32" if got.dtype in (np.float32, np.complex64) else "float64"]
        np.testing.assert_allclose(
            got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=f"{where}: compiled vs reference"
        )
    else:
        np.testing.assert_array_equal(got, want, err_msg=f"{where}: compiled vs reference")


def forward_cases():
    """The inputs of test_forward (same generator and seed) as graphs on fresh placeholders."""
    cases = {}
    for r in ROWS:
        rng = np.random.default_rng(seed_for(r.name))
        cases[r.name] = []
        for dtype in r.dtypes:
            for args in r.generate(rng, dtype):
                phs, outs, _ = build(r, args, name=f"{r.name}#{len(cases[r.name])}#")
                cases[r.name].append(Case(r, f"dtype={dtype} shapes={[a.shape for a in args]}", args, phs, outs))
    return cases


def gradient_cases():
    """The inputs, costs and gradients of test_gradient (same seed): outputs are [cost] + grads."""
    cases = {}
    for r in GRAD_ROWS:
        rng = np.random.default_rng(seed_for(r.name) + 1)
        cases[r.name] = []
        for args in r.generate(rng, "float64")[: r.grad_cases]:
            phs, outs, _ = build(r, args, name=f"{r.name}#{len(cases[r.name])}#")
            weights = [rng.standard_normal(o.shape) for o in outs]
            cost = sx.sum(outs[0] * weights[0])
            for o, w in zip(outs[1:], weights[1:]):
                cost = cost + sx.sum(o * w)
            diff = r.diff if r.diff is not None else [i for i, a in enumerate(args) if a.dtype.kind == "f"]
            grads = sx.grad(cost, [phs[i] for i in diff])
            case = Case(r, f"gradient shapes={[a.shape for a in args]}", args, phs, [cost] + grads)
            case.diff = diff
            cases[r.name].append(case)
    return cases


@pytest.fixture(scope="module")
def forward_batches():
    sx.reset_default_graph()
    cases = forward_cases()
    flat = [c for cs in cases.values() for c in cs]
    return cases, Batch(flat, "compiled"), Batch(flat, "reference")


@pytest.fixture(scope="module")
def gradient_batches():
    sx.reset_default_graph()
    cases = gradient_cases()
    flat = [c for cs in cases.values() for c in cs]
    return cases, Batch(flat, "compiled"), Batch(flat, "reference")


def test_compiled_batches_run_whole(forward_batches, gradient_batches):
    """All rows together make one compiled program each for forward and gradients, compiled once."""
    for _, compiled, reference in (forward_batches, gradient_batches):
        for batch in (compiled, reference):
            assert batch.whole is None, f"the {batch.backend} function over all rows failed: {batch.whole!r}"
        assert len(compiled.functions) == 1 and compiled.functions[0].backend == "compiled"
        assert compiled.functions[0].compile_count() == 1


@pytest.mark.parametrize("r", ROWS, ids=ROW_NAMES)
def test_compiled_forward(r, forward_batches):
    """The compiled backend against the reference evaluator (tight) and NumPy (as test_forward)."""
    cases, compiled, reference = forward_batches
    for c in cases[r.name]:
        got, want = compiled.values(c), reference.values(c)
        refs = [np.asarray(x) for x in as_list(r.ref(*c.args))]
        assert len(got) == len(want) == len(refs) == len(c.outs)
        for k, (out, g, w, ref) in enumerate(zip(c.outs, got, want, refs)):
            where = f"{r.name} {c.where} output {k} (compiled)"
            assert_compiled_matches(g, w, out, where)
            check_against_numpy(r, c.args, out, g, ref, where)


@pytest.mark.parametrize("r", GRAD_ROWS, ids=[r.name for r in GRAD_ROWS])
def test_compiled_gradient(r, gradient_batches):
    """Gradient graphs on the compiled backend against the reference evaluator."""
    cases, compiled, reference = gradient_batches
    for c in cases[r.name]:
        got, want = compiled.values(c), reference.values(c)
        assert_compiled_matches(got[0], want[0], c.outs[0], f"{r.name} {c.where} cost")
        for i, out, g, w in zip(c.diff, c.outs[1:], got[1:], want[1:]):
            where = f"{r.name} {c.where} d/d arg{i}"
            assert g.shape == c.args[i].shape and g.dtype == c.args[i].dtype, where
            assert_compiled_matches(g, w, out, where)
            if r.grad == "zero":
                np.testing.assert_array_equal(g, np.zeros_like(g), err_msg=where)


def test_compiled_large_shapes():
    """The rows are small; these shapes take the kernels' other loop forms: the OpenMP-parallel outer
    loop (work > 32768) and rows split into chunks (few rows longer than 16384), with a partial last
    chunk, strided slices, inlined reductions and outputs that are inputs or repeated."""
    rng = np.random.default_rng(5)
    x = sx.placeholder((3, 20000), "float32", name="x")
    y = sx.placeholder((300, 257), "float64", name="y")
    z = sx.placeholder((20000,), "float32", name="z")
    b = sx.placeholder((257,), "float64", name="b")
    elementwise = [
        sx.exp(x) * 2 - sx.sin(x),
        sx.tanh(y + b) / (1 + y * y),
        sx.mean(y, axis=1, keepdims=True) - y,
        x[:, ::-3] + 1,
        sx.where(y > 0, y, b),
        sx.nn.softmax(x),
        sx.max(x * x, axis=0),
        sx.sum(sx.transpose(y) * 2, axis=0),
        sx.cumsum(z),
        sx.argmax(y, axis=1),
        x,
        x,
    ]
    # Long float32 sums: the kernels accumulate in float32, the reference in float64.
    sums = [(sx.sum(x, axis=1), np.abs), (sx.sum(sx.square(z)), np.square)]
    outs = elementwise + [s for s, _ in sums]
    vals = [
        rng.standard_normal((3, 20000)).astype(np.float32),
        rng.standard_normal((300, 257)),
        rng.standard_normal(20000).astype(np.float32),
        rng.standard_normal(257),
    ]
    phs = [x, y, z, b]
    got = sx.function(phs, outs, backend="compiled")(*vals)
    want = sx.function(phs, outs, backend="reference")(*vals)
    for k, (out, g, w) in enumerate(zip(elementwise, got, want)):
        assert_compiled_matches(g, w, out, f"large output {k}")
    terms = [np.abs(vals[0]).sum(axis=1), np.square(vals[2].astype(np.float64)).sum()]
    for k, ((out, _), g, w, t) in enumerate(zip(sums, got[len(elementwise) :], want[len(elementwise) :], terms)):
        n = vals[0].shape[1] if k == 0 else vals[2].size
        bound = np.sqrt(n) * np.finfo(np.float32).eps * t  # a random walk of float32 roundings
        assert g.shape == w.shape == out.shape and g.dtype == w.dtype == out.dtype == np.float32
        assert np.all(np.abs(g.astype(np.float64) - w) <= bound), f"long sum {k}: {g} vs {w}"


# ---- coverage -------------------------------------------------------------------------------

# Primitives that no row's forward graph contains directly, mapped to where they are exercised:
# row names (their gradient graphs, checked below to really contain the primitive) or tests in
# other files ("file.py::test_name", checked to exist).
PRIMITIVE_COVERAGE = {
    "placeholder": ["add"],
    "constant": ["scalar x+2"],
    "variable": ["test_api.py::test_function_updates_swap", "test_api.py::test_variable_value_zero_copy"],
    "unslice": ["getitem[slice]", "getitem[neg_step]", "slice"],
    "scatter_add": ["take", "take[axis0]"],
    "scatter_add_along_axis": ["take_along_axis"],
    "conv_backward_input": ["nn.conv2d[basic]", "nn.conv2d_transpose[basic]"],
    "conv_backward_filter": ["nn.conv2d[basic]", "nn.conv1d[basic]"],
    "max_pool_grad": ["nn.max_pool2d[basic]"],
    "avg_pool_grad": ["nn.avg_pool2d[basic]"],
    "softmax_cross_entropy_grad": ["nn.softmax_cross_entropy", "nn.softmax_cross_entropy[axis1]"],
    "random_uniform": ["test_random.py::test_uniform"],
    "random_normal": ["test_random.py::test_normal"],
    "random_truncated_normal": ["test_random.py::test_truncated_normal"],
    "random_bernoulli": ["test_random.py::test_bernoulli"],
    "random_randint": ["test_random.py::test_randint"],
    "random_permutation": ["test_random.py::test_permutation"],
    "host_call": ["test_distributed.py::test_collectives_match_numpy"],
    # Control flow: bodies are functions, not NumPy-like rows; test_control_flow.py checks each
    # against a Python loop over NumPy (both backends) and its gradient by finite differences.
    "scan": [
        "test_control_flow.py::test_scan_cumulative_sum_forward_and_reverse",
        "test_control_flow.py::test_scan_gradient_through_time",
    ],
    "while_loop": ["test_control_flow.py::test_while_loop_jax_and_symjax_forms"],
    "switch": [
        "test_control_flow.py::test_switch_clamps_out_of_range_indices",
        "test_control_flow.py::test_cond_and_switch_gradients_only_of_the_branch_taken",
    ],
    "part": [
        "test_control_flow.py::test_scan_with_tuple_and_dict_carries_several_sequences_and_outputs_and_non_sequences"
    ],
}


for _area in _AREAS:
    for _op, _places in getattr(_area, "COVERAGE", {}).items():
        PRIMITIVE_COVERAGE.setdefault(_op, []).extend(_places)


def graph_ops(r, with_grad):
    args = r.generate(np.random.default_rng(0), "float64" if with_grad else r.dtypes[0])[0]
    phs, outs, _ = build(r, args)
    roots = list(outs)
    if with_grad:
        cost = sx.sum(outs[0] * np.ones(outs[0].shape))
        roots += sx.grad(cost, [p for p in phs if p.dtype.kind == "f"])
    return {t.op for t in sx.topological_order(roots)}


def test_every_primitive_is_covered():
    forward_ops = set()
    for r in ROWS:
        forward_ops |= graph_ops(r, False)
    here = os.path.dirname(os.path.abspath(__file__))
    missing = []
    for op in sx._symx._op_names():
        if op in forward_ops:
            continue
        places = PRIMITIVE_COVERAGE.get(op)
        if not places:
            missing.append(op)
            continue
        for place in places:
            if "::" in place:
                path, test = place.split("::")
                with open(os.path.join(here, path)) as f:
                    assert f"def {test}(" in f.read(), f"{op}: {place} does not exist"
            else:
                assert place in ROW_BY_NAME, f"{op}: no row {place}"
                r = ROW_BY_NAME[place]
                assert op in graph_ops(r, bool(r.grad)), f"{op}: row {place} does not build it"
    assert not missing, f"primitives without a conformance row or an entry in PRIMITIVE_COVERAGE: {missing}"


# Public names that are not ops (graph tools, autodiff, io, types) and need no row.
NOT_OPS = {
    "Tensor",
    "Function",
    "Scope",
    "ShapeError",
    "DTypeError",
    "IOError",
    "placeholder",
    "variable",
    "constant",
    "variables",
    "placeholders",
    "reset_default_graph",
    "current_scope",
    "grad",
    "vjp",
    "jacobian",
    "hessian",
    "function",
    "clone",
    "debugprint",
    "to_dot",
    "topological_order",
    "save_variables",
    "load_variables",
    "save_npy",
    "load_npy",
    "save_npz",
    "load_npz",
    "reset_variables",
    "add_updates",
    "request_interrupt",
    "get_updates",
    "clear_updates",
    "invert",  # NumPy's other name of bitwise_not, the same function object
    "nn.init",
    "nn.layers",  # submodules (initializers and layers), tested in test_init.py and test_layers.py
    "nn.losses",  # a submodule, tested against PyTorch in test_nn_losses.py
}


for _area in _AREAS:
    NOT_OPS |= set(getattr(_area, "NOT_OPS", ()))


def test_every_public_function_has_a_row():
    covered = {api for r in ROWS for api in r.api}
    public = {n for n in dir(sx._symx) if not n.startswith("_") and callable(getattr(sx._symx, n))}
    for sub in ("nn", "linalg", "signal", "interpolation", "image", "fft"):
        public |= {f"{sub}.{n}" for n in dir(getattr(sx, sub)) if not n.startswith("_")}
    missing = sorted(public - NOT_OPS - covered)
    assert not missing, f"public functions without a conformance row: {missing}"

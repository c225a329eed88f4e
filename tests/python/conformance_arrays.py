"""Conformance rows of symx/arrays.hpp (added to test_conformance.py's table: see its _AREAS).

The functions are composites (no primitives of their own), so the rows group several names on one input: each row
returns a list of outputs, checked one by one against NumPy (values, dtypes), by finite differences (gradients) and
compiled against the reference evaluator."""

import numpy as np

import symx as sx

# Public names that are not graph ops: einsum_path describes a contraction order (checked against opt_einsum in
# test_arrays.py).
NOT_OPS = {"einsum_path"}


def _fill_diagonal_ref(x, val, wrap=False):
    y = x.copy()
    np.fill_diagonal(y, val, wrap=wrap)
    return y


def _polydiv_ref(u, v):
    q, r = np.polydiv(u, v)
    r = np.concatenate([np.zeros(len(u) - len(r), r.dtype), r])
    return q.astype(u.dtype), r.astype(u.dtype)


def add_rows(c):
    row, F = c.row, c.F

    stack_api = ("hstack", "vstack", "row_stack", "dstack", "column_stack", "concat", "append", "block", "add_n")
    row(
        "stacking",
        lambda x, y: [
            sx.hstack([x, y]),
            sx.vstack([x, y]),
            sx.row_stack([x, y]),
            sx.dstack([x, y]),
            sx.column_stack([x, y]),
            sx.concat([x, y], axis=-1),
            sx.append(x, y),
            sx.append(x, y, axis=0),
            sx.block([[x, y], [y, x]]),
            sx.add_n([x, y, x]),
        ],
        lambda x, y: [
            np.hstack([x, y]),
            np.vstack([x, y]),
            np.vstack([x, y]),
            np.dstack([x, y]),
            np.column_stack([x, y]),
            np.concat([x, y], axis=-1),
            np.append(x, y),
            np.append(x, y, axis=0),
            np.block([[x, y], [y, x]]),
            x + y + x,
        ],
        [((3, 4), (3, 4)), ((5,), (5,))],
        ints=("int32",),
        api=stack_api,
    )
    row(
        "atleast_nd",
        lambda x: [sx.atleast_1d(x), sx.atleast_2d(x), sx.atleast_3d(x)],
        lambda x: [np.atleast_1d(x), np.atleast_2d(x), np.atleast_3d(x)],
        [((),), ((4,),), ((2, 3),)],
        api=("atleast_1d", "atleast_2d", "atleast_3d"),
    )
    row(
        "splitting",
        lambda x: [
            *sx.hsplit(x, 2),
            *sx.hsplit(x, [1, 4]),
            *sx.vsplit(x, [3]),
            *sx.dsplit(x, 2),
            *sx.array_split(x, 4, axis=1),
            *sx.unstack(x, axis=-1),
        ],
        lambda x: [
            *np.hsplit(x, 2),
            *np.hsplit(x, [1, 4]),
            *np.vsplit(x, [3]),
            *np.dsplit(x, 2),
            *np.array_split(x, 4, axis=1),
            *np.unstack(x, axis=-1),
        ],
        [((4, 6, 2),)],
        ints=("int64",),
        api=("hsplit", "vsplit", "dsplit", "array_split", "unstack"),
    )
    row(
        "axes",
        lambda x: [
            sx.moveaxis(x, [0, 1], [-1, 0]),
            sx.rollaxis(x, 2, 1),
            sx.swapaxes(x, 0, -1),
            sx.permute_dims(x, (1, 2, 0)),
            sx.matrix_transpose(x),
            sx.ravel(x),
            sx.fliplr(x),
            sx.flipud(x),
            sx.dimshuffle(x, (2, "x", 0, 1)),
            sx.flatten2d(x),
            sx.flatten3d(x),
            sx.flatten4d(x),
            sx.reshape_weight_to_matrix(x, 1),
            sx.resize(x, (5, 7)),
            sx.rot90(x),
            sx.rot90(x, 2, (1, 2)),
            sx.rot90(x, -1, (2, 0)),
            sx.roll(x, 2),
            sx.roll(x, (1, -1), (0, 2)),
        ],
        lambda x: [
            np.moveaxis(x, [0, 1], [-1, 0]),
            np.rollaxis(x, 2, 1),
            np.swapaxes(x, 0, -1),
            np.permute_dims(x, (1, 2, 0)),
            np.matrix_transpose(x),
            np.ravel(x),
            np.fliplr(x),
            np.flipud(x),
            x.transpose(2, 0, 1)[:, None],
            x.reshape(2, -1),
            x.reshape(2, 3, -1),
            x.reshape(2, 3, 4, -1),
            np.moveaxis(x, 1, 0).reshape(3, -1),
            np.resize(x, (5, 7)),
            np.rot90(x),
            np.rot90(x, 2, (1, 2)),
            np.rot90(x, -1, (2, 0)),
            np.roll(x, 2),
            np.roll(x, (1, -1), (0, 2)),
        ],
        [((2, 3, 4),)],
        ints=("int32",),
        api=(
            "moveaxis",
            "rollaxis",
            "swapaxes",
            "permute_dims",
            "matrix_transpose",
            "ravel",
            "fliplr",
            "flipud",
            "dimshuffle",
            "flatten2d",
            "flatten3d",
            "flatten4d",
            "reshape_weight_to_matrix",
            "resize",
            "rot90",
            "roll",
        ),
    )
    row(
        "broadcast_arrays",
        lambda x, y: list(sx.broadcast_arrays(x, y)),
        lambda x, y: list(np.broadcast_arrays(x, y)),
        [((3, 1), (4,)), ((), (2, 3))],
    )
    row(
        "diagonals",
        lambda x, z: [
            sx.diag(x, 1),
            sx.diagonal(x, -1),
            sx.diagonal(z, 1, 2, 0),
            sx.trace(x, 1),
            sx.trace(z, -1, -1, 1),
            sx.tril(x, -1),
            sx.triu(z, 1),
            sx.fill_diagonal(x, 7),
            sx.fill_diagonal(sx.swapaxes(x, 0, 1), x[0, :2], wrap=True),
            sx.diagflat(x[:2, :2], -1),
        ],
        lambda x, z: [
            np.diag(x, 1),
            np.diagonal(x, -1),
            np.diagonal(z, 1, 2, 0),
            np.trace(x, 1),
            np.trace(z, -1, -1, 1),
            np.tril(x, -1),
            np.triu(z, 1),
            _fill_diagonal_ref(x, 7),
            _fill_diagonal_ref(x.T, x[0, :2], wrap=True),
            np.diagflat(x[:2, :2], -1),
        ],
        [((4, 5), (2, 3, 4))],
        ints=("int64",),
        api=("diag", "diagonal", "trace", "tril", "triu", "fill_diagonal", "diagflat"),
    )
    row(
        "diag[1-D]",
        lambda v: [sx.diag(v), sx.diag(v, -2), sx.diagflat(v, 1)],
        lambda v: [np.diag(v), np.diag(v, -2), np.diagflat(v, 1)],
        [((4,),), ((1,),)],
        api=(),
    )

    def constants(x):
        return [
            sx.tri(3, 4, 1, dtype=x.dtype),
            sx.identity(3, dtype=x.dtype),
            sx.empty((2, 3)),
            sx.empty_like(x),
            sx.full((2, 3), 7),
            sx.full((3,), 2.5, dtype=x.dtype),
            sx.full((2, 4), x[0]),
            sx.full_like(x, 2),
            sx.array(x, dtype="float64"),
            sx.asarray(x),
            sx.geomspace(1, 1000, 4, dtype="float64"),
            sx.geomspace(-2, -32, 5, endpoint=False, dtype="float64"),
            sx.logspace(0, 2, 5, base=2.0, dtype="float64"),
            sx.indices((2, 3)),
            *sx.indices((2, 3), sparse=True),
            *sx.tril_indices(4, 1, 5),
            *sx.triu_indices(3, -1),
            *sx.tril_indices_from(x, -1),
            *sx.triu_indices_from(x),
            *sx.diag_indices(3, 3),
            *sx.diag_indices_from(np.zeros((2, 2))),
            *sx.mask_indices(3, sx.triu, 1),
        ]

    def constants_ref(x):
        return [
            np.tri(3, 4, 1, dtype=x.dtype),
            np.identity(3, dtype=x.dtype),
            np.zeros((2, 3), np.float32),
            np.zeros_like(x),
            np.full((2, 3), 7),
            np.full((3,), 2.5, dtype=x.dtype),
            np.full((2, 4), x[0]),
            np.full_like(x, 2),
            np.array(x, dtype="float64"),
            np.asarray(x),
            np.geomspace(1, 1000, 4),
            np.geomspace(-2, -32, 5, endpoint=False),
            np.logspace(0, 2, 5, base=2.0),
            np.indices((2, 3)),
            *np.indices((2, 3), sparse=True),
            *np.tril_indices(4, 1, 5),
            *np.triu_indices(3, -1),
            *np.tril_indices_from(x, -1),
            *np.triu_indices_from(x),
            *np.diag_indices(3, 3),
            *np.diag_indices_from(np.zeros((2, 2))),
            *np.mask_indices(3, np.triu, 1),
        ]

    row(
        "constants",
        constants,
        constants_ref,
        [((4, 4),)],
        grad=False,
        api=(
            "tri",
            "identity",
            "empty",
            "empty_like",
            "full",
            "full_like",
            "array",
            "asarray",
            "geomspace",
            "logspace",
            "indices",
            "tril_indices",
            "triu_indices",
            "tril_indices_from",
            "triu_indices_from",
            "diag_indices",
            "diag_indices_from",
            "mask_indices",
        ),
    )
    row(
        "index_helpers",
        lambda i, j: [*sx.ix_(i, j), *sx.unravel_index(i, (2, 3)), sx.ravel_multi_index((i, j), (6, 7), mode="clip")],
        lambda i, j: [*np.ix_(i, j), *np.unravel_index(i, (2, 3)), np.ravel_multi_index((i, j), (6, 7), mode="clip")],
        gen=lambda rng, dt: [[rng.integers(0, 6, (5,)).astype(dt), rng.integers(0, 9, (5,)).astype(dt)]],
        dtypes=("int64", "int32"),
        grad=False,
        api=("ix_", "unravel_index", "ravel_multi_index"),
    )

    def lax_gen(rng, dt):
        x = c.make("normal", (5, 4), dt, rng)
        return [[x, np.int64(s), np.int32(t)] for s, t in ((1, 2), (4, -3), (-1, 9))]

    row(
        "lax_indexing",
        lambda x, s, t: [
            sx.dynamic_slice(x, (s, t), (2, 3)),
            sx.dynamic_slice_in_dim(x, t, 2, axis=1),
            sx.dynamic_index_in_dim(x, s),
            sx.dynamic_index_in_dim(x, t, axis=-1, keepdims=False),
            sx.index_in_dim(x, -2, axis=1),
            sx.index_in_dim(x, 3, keepdims=False),
            sx.index_take(x, (np.array([0, 4, 2]), np.array([1, 1, 3])), (0, 1)),
            sx.index_take(x, (np.array([[3, 0]]),), (1,)),
        ],
        lambda x, s, t: [
            x[np.clip(s, 0, 3) : np.clip(s, 0, 3) + 2, np.clip(t, 0, 1) : np.clip(t, 0, 1) + 3],
            x[:, np.clip(t, 0, 2) : np.clip(t, 0, 2) + 2],
            x[np.clip(s, 0, 4)][None],
            x[:, np.clip(t, 0, 3)],
            x[:, 2:3],
            x[3],
            x[[0, 4, 2], [1, 1, 3]],
            np.moveaxis(x[:, [[3, 0]]], 0, -1),
        ],
        gen=lax_gen,
        diff=[0],
        api=("dynamic_slice", "dynamic_slice_in_dim", "dynamic_index_in_dim", "index_in_dim", "index_take"),
    )
    row(
        "differences",
        lambda x, p: [
            sx.diff(x),
            sx.diff(x, 2, axis=0, prepend=p, append=p),
            sx.ediff1d(x, to_end=p, to_begin=-1.0),
            sx.trapezoid(x),
            sx.trapezoid(x, dx=0.5, axis=0),
            sx.trapezoid(x, np.array([0.0, 1.0, 3.0, 3.5, 5.0]), axis=1),
            sx.unwrap(x * 4),
            sx.unwrap(x * 4, discont=4.0, axis=0, period=5.0),
            sx.vander(p[0], 3),
            sx.vander(p[0], increasing=True),
        ],
        lambda x, p: [
            np.diff(x),
            np.diff(x, 2, axis=0, prepend=p, append=p),
            np.ediff1d(x, to_end=p, to_begin=-1.0),
            np.trapezoid(x),
            np.trapezoid(x, dx=0.5, axis=0),
            np.trapezoid(x, np.array([0.0, 1.0, 3.0, 3.5, 5.0]), axis=1),
            np.unwrap(x * 4),
            np.unwrap(x * 4, discont=4.0, axis=0, period=5.0),
            np.vander(p[0], 3).astype(p.dtype),  # NumPy's vander promotes float32 with int (jnp's does not)
            np.vander(p[0], increasing=True).astype(p.dtype),
        ],
        [((3, 5), (1, 5))],
        api=("diff", "ediff1d", "trapezoid", "unwrap", "vander"),
    )
    row(
        "cross",
        lambda a, b: [sx.cross(a, b), sx.cross(sx.transpose(a), sx.transpose(b), axisa=0, axisb=0, axisc=0)],
        lambda a, b: [np.cross(a, b), np.cross(a.T, b.T, axisa=0, axisb=0, axisc=0)],
        [((4, 3), (4, 3)), ((2, 5, 3), (2, 5, 3)), ((5, 3), (3,))],
        api=("cross",),
    )
    row(
        "convolve",
        lambda a, v: (
            [sx.convolve(a, v), sx.convolve(a, v, "same"), sx.convolve(a, v, "valid")]
            + [sx.correlate(a, v), sx.correlate(a, v, "same"), sx.correlate(a, v, "full")]
            + [sx.polymul(a, v), sx.polyadd(a, v), sx.polysub(v, a)]
        ),
        lambda a, v: (
            [np.convolve(a, v), np.convolve(a, v, "same"), np.convolve(a, v, "valid")]
            + [np.correlate(a, v), np.correlate(a, v, "same"), np.correlate(a, v, "full")]
            + [np.polymul(a, v), np.polyadd(a, v), np.polysub(v, a)]
        ),
        [((7,), (3,)), ((2,), (5,)), ((4,), (4,))],
        api=("convolve", "correlate", "polymul", "polyadd", "polysub"),
    )
    row(
        "polynomials",
        lambda p, x, v: [
            sx.polyval(p, x),
            sx.polyder(p),
            sx.polyder(p, 2),
            sx.polyint(p),
            sx.polyint(p, 2, k=1.5),
            *sx.polydiv(p, v),
            sx.poly(x),
        ],
        lambda p, x, v: [
            np.polyval(p, x),
            np.polyder(p),
            np.polyder(p, 2),
            np.polyint(p),
            np.polyint(p, 2, k=1.5),
            *_polydiv_ref(p, v),
            np.poly(x).astype(x.dtype),
        ],
        [((4,), (3,), (2,))],
        kinds=("normal", "normal", "away"),
        tol=c.LOOSE,
        dtype=lambda args, ref: args[0].dtype,  # NumPy's polyder/polyint give float64 for float32 (as jnp does not)
        api=("polyval", "polyder", "polyint", "polydiv", "poly"),
    )

    # ---- contractions ----
    for name, subscripts, shapes in [
        ("einsum[matmul]", "ij,jk->ik", ((3, 4), (4, 5))),
        ("einsum[attention]", "bhqd,bhkd->bhqk", ((2, 3, 4, 5), (2, 3, 6, 5))),
        ("einsum[trace]", "ii", ((4, 4),)),
        ("einsum[diagonal]", "iij->ji", ((3, 3, 2),)),
        ("einsum[ellipsis]", "...ij,...jk", ((2, 1, 3, 4), (5, 4, 2))),
        ("einsum[chain]", "ab,bc,cd,d->a", ((3, 4), (4, 5), (5, 2), (2,))),
        ("einsum[outer]", "i,jk->ijk", ((3,), (2, 4))),
        ("einsum[hadamard]", "ij,ij,ij->j", ((3, 4), (3, 4), (3, 4))),
    ]:
        row(
            name,
            lambda *xs, s=subscripts: sx.einsum(s, *xs),
            lambda *xs, s=subscripts: np.einsum(s, *xs),
            [shapes],
            ints=("int32",) if name in ("einsum[matmul]", "einsum[trace]") else (),
            api=("einsum",),
        )
    row(
        "contractions",
        lambda a, b: [
            sx.tensordot(a, b, 1),
            sx.tensordot(a, b, ([0, 1], [1, 0])),
            sx.tensordot(a, b, 0),
            sx.inner(a, sx.transpose(b)),
            sx.kron(a, b),
            sx.vdot(a, sx.transpose(b)),
            sx.matvec(a, b[:, 0]),
            sx.vecmat(a[:, 0], a),
            sx.vecdot(a, sx.transpose(b)),
            sx.vecdot(a, sx.transpose(b), axis=0),
        ],
        lambda a, b: [
            np.tensordot(a, b, 1),
            np.tensordot(a, b, ([0, 1], [1, 0])),
            np.tensordot(a, b, 0),
            np.inner(a, b.T),
            np.kron(a, b),
            np.vdot(a, b.T),
            np.matvec(a, b[:, 0]),
            np.vecmat(a[:, 0], a),
            np.vecdot(a, b.T),
            np.vecdot(a, b.T, axis=0),
        ],
        [((3, 4), (4, 3))],
        api=("tensordot", "inner", "kron", "vdot", "matvec", "vecmat", "vecdot"),
    )
    row(
        "insert",
        lambda x, v: [
            sx.insert(x, 1, v[0]),
            sx.insert(x, [1, 1, 3], v, axis=1),
            sx.insert(x, -1, v[:2, None], axis=0),
        ],
        lambda x, v: [
            np.insert(x, 1, v[0]),
            np.insert(x, [1, 1, 3], v, axis=1),
            np.insert(x, -1, v[:2, None], axis=0),
        ],
        [((3, 4), (3,))],
        ints=("int32",),
        api=("insert",),
    )
    # Silence "unused" for F (kept for symmetry with the other areas' modules).
    del F

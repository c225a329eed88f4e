"""Conformance rows of symx/linalg_factor.hpp (qr, lu, lu_factor, lu_solve, cho_factor, cho_solve,
matrix_power, multi_dot, expm, expm_frechet, tensorsolve, tensorinv, block_diag) and of symx.linalg's
aliases of numpy.linalg names, against NumPy and SciPy (added to test_conformance.py's table: see its
_AREAS). Gradients are checked by the table's float64 finite differences; the hard points (rank
deficiency, tied pivots), errors and the LAPACK calls are in tests/python/test_linalg_factor.py."""

import numpy as np
import scipy.linalg as sla

import symx as sx

LOOSE = {"float32": (2e-4, 2e-5), "float64": (1e-9, 1e-11)}


def batched(f, *arrays):
    """f over the leading axes of 2-D-only SciPy functions; f returns one array or a tuple."""
    a0 = arrays[0]
    if a0.ndim == 2:
        return f(*arrays)
    outs = [batched(f, *[a[i] for a in arrays]) for i in range(a0.shape[0])]
    if isinstance(outs[0], tuple):
        return tuple(np.stack([o[k] for o in outs]) for k in range(len(outs[0])))
    return np.stack(outs)


def normal(*shapes, shift=0.0):
    def gen(rng, dt):
        out = []
        for s in shapes:
            a = rng.standard_normal(s) + (shift * np.eye(s[-1]) if shift else 0)
            out.append([np.asarray(a, dt)])
        return out

    return gen


def sym_pd(b):
    n = b.shape[-1]
    return sx.matmul(b, sx.linalg.matrix_transpose(b)) + 3 * np.eye(n, dtype=b.dtype)


def sym_pd_np(b):
    return b @ np.swapaxes(b, -1, -2) + 3 * np.eye(b.shape[-1], dtype=b.dtype)


def keep(dt):
    return lambda args, ref: np.dtype(dt)


def add_rows(c):
    row = c.row
    for mode, shapes, grad in [
        ("reduced", [(4, 3), (2, 3, 3), (3, 5)], True),
        ("complete", [(3, 5), (3, 3)], True),
        ("complete-tall", [(4, 3)], False),  # q's last columns are not unique: no gradient (tested)
        ("r", [(4, 3), (3, 5)], True),
    ]:
        m = mode.split("-")[0]
        row(
            f"linalg.qr[{mode}]",
            lambda x, m=m: sx.linalg.qr(x, mode=m),
            lambda x, m=m: np.linalg.qr(x, mode=m) if m == "r" else tuple(np.linalg.qr(x, mode=m)),
            gen=normal(*shapes),
            grad=grad,
            tol=LOOSE,
            api=("linalg.qr",),
        )
    for permute_l in [False, True]:
        row(
            f"linalg.lu[permute_l={permute_l}]",
            lambda x, p=permute_l: sx.linalg.lu(x, permute_l=p),
            lambda x, p=permute_l: batched(lambda m: sla.lu(m, permute_l=p), x),
            gen=normal((4, 4), (2, 3, 3), (4, 2), (2, 4)),
            tol=LOOSE,
            api=("linalg.lu",),
        )
    row(
        "linalg.lu_factor",
        lambda x: sx.linalg.lu_factor(x),
        lambda x: batched(sla.lu_factor, x),
        gen=normal((4, 4), (2, 3, 3), (4, 2), (2, 4)),
        tol=LOOSE,
    )
    row(
        "linalg.lu_pivots_to_permutation",
        lambda x: sx.linalg.lu_pivots_to_permutation(sx.linalg.lu_factor(x)[1], x.shape[-2]),
        lambda x: np.asarray(batched(lambda m: np.argmax(sla.lu(m)[0], axis=0), x), np.int32),
        gen=normal((4, 4), (2, 3, 3), (5, 2)),
        grad=False,
        dtype=keep("int32"),
    )
    for trans in [0, 1]:
        row(
            f"linalg.lu_solve[trans={trans}]",
            lambda a, b, t=trans: sx.linalg.lu_solve(sx.linalg.lu_factor(a), b, trans=t),
            lambda a, b, t=trans: batched(lambda m, v: sla.lu_solve(sla.lu_factor(m), v, trans=t), a, b),
            gen=lambda rng, dt: [
                [
                    np.asarray(rng.standard_normal((3, 3)) + 3 * np.eye(3), dt),
                    np.asarray(rng.standard_normal((3, 2)), dt),
                ],
                [
                    np.asarray(rng.standard_normal((2, 3, 3)) + 3 * np.eye(3), dt),
                    np.asarray(rng.standard_normal((2, 3, 1)), dt),
                ],
            ],
            tol=LOOSE,
            api=("linalg.lu_solve",),
        )
    for lower in [False, True]:
        row(
            f"linalg.cho_factor[lower={lower}]",
            lambda b, lo=lower: sx.linalg.cho_factor(sym_pd(b), lower=lo)[0],
            lambda b, lo=lower: batched(
                lambda m: (np.tril if lo else np.triu)(sla.cho_factor(m, lower=lo)[0]), sym_pd_np(b)
            ),
            gen=normal((3, 3), (2, 4, 4)),
            tol=LOOSE,
            api=("linalg.cho_factor",),
        )
    row(
        "linalg.cho_solve",
        lambda b, y: sx.linalg.cho_solve(sx.linalg.cho_factor(sym_pd(b)), y),
        lambda b, y: np.linalg.solve(sym_pd_np(b), y),
        gen=lambda rng, dt: [
            [np.asarray(rng.standard_normal((3, 3)), dt), np.asarray(rng.standard_normal((3, 2)), dt)],
            [np.asarray(rng.standard_normal((2, 3, 3)), dt), np.asarray(rng.standard_normal((2, 3, 4)), dt)],
        ],
        tol=LOOSE,
    )
    for n in [3, 0, -2]:
        row(
            f"linalg.matrix_power[{n}]",
            lambda a, n=n: sx.linalg.matrix_power(a, n),
            lambda a, n=n: np.linalg.matrix_power(a, n),
            gen=normal((3, 3), (2, 2, 2), shift=3.0),
            tol=LOOSE,
            grad=n != 0,
            api=("linalg.matrix_power",),
        )
    row(
        "linalg.multi_dot",
        lambda a, b, cc, d: sx.linalg.multi_dot([a, b, cc, d]),
        lambda a, b, cc, d: np.linalg.multi_dot([a, b, cc, d]),
        cases=[((3,), (3, 5), (5, 2), (2, 4)), ((2, 6), (6, 3), (3, 4), (4,))],
        tol=LOOSE,
    )
    # 4 * N(0, 1) 3x3: a 1-norm above theta13 (squarings). Float64 only here: squaring float32 matrices
    # amplifies their rounding beyond the table's compiled-vs-reference tolerance in the smallest
    # entries (float32 against SciPy, relative to the largest entry: test_linalg_factor.py).
    for name, scale, dts in [("small", 0.3, ("float32", "float64")), ("scaled", 4.0, ("float64",))]:
        row(
            f"linalg.expm[{name}]",
            sx.linalg.expm,
            lambda a: sla.expm(a.astype(np.float64)).astype(a.dtype),
            gen=lambda rng, dt, s=scale: [
                [np.asarray(s * rng.standard_normal((3, 3)), dt)],
                [np.asarray(s * rng.standard_normal((2, 3, 3)), dt)],
            ],
            tol={"float32": (5e-4, 5e-4), "float64": (1e-9, 1e-9)},
            dtypes=dts,
            api=("linalg.expm",),
        )
    row(
        "linalg.expm_frechet",
        lambda a, e: sx.linalg.expm_frechet(a, e),
        lambda a, e: tuple(o.astype(a.dtype) for o in sla.expm_frechet(a.astype(np.float64), e.astype(np.float64))),
        cases=[((3, 3), (3, 3))],
        tol={"float32": (5e-4, 5e-4), "float64": (1e-9, 1e-9)},
    )
    row(
        "linalg.tensorsolve",
        lambda a, b: sx.linalg.tensorsolve(a, b),
        lambda a, b: np.linalg.tensorsolve(a, b),
        gen=lambda rng, dt: [
            [
                np.asarray((rng.standard_normal((6, 6)) + 4 * np.eye(6)).reshape(2, 3, 6), dt),
                np.asarray(rng.standard_normal((2, 3)), dt),
            ]
        ],
        tol=LOOSE,
    )
    row(
        "linalg.tensorinv",
        lambda a: sx.linalg.tensorinv(a, ind=1),
        lambda a: np.linalg.tensorinv(a, ind=1),
        gen=lambda rng, dt: [[np.asarray((rng.standard_normal((4, 4)) + 4 * np.eye(4)).reshape(4, 2, 2), dt)]],
        tol=LOOSE,
    )
    row(
        "linalg.block_diag",
        lambda a, b, cc: sx.linalg.block_diag(a, b, cc),
        lambda a, b, cc: sla.block_diag(a, b, cc),
        cases=[((2, 2), (1, 3), (2,))],
    )
    # numpy.linalg's names of top-level functions (the same objects but diagonal and trace, which
    # work on the last two axes), and SymJAX's tril / triu.
    row(
        "linalg.diagonal",
        lambda x: sx.linalg.diagonal(x, offset=1),
        lambda x: np.linalg.diagonal(x, offset=1),
        cases=[((2, 3, 4),)],
    )
    row("linalg.trace", lambda x: sx.linalg.trace(x), lambda x: np.linalg.trace(x), cases=[((2, 3, 3),)])
    row(
        "linalg.cross", lambda a, b: sx.linalg.cross(a, b), lambda a, b: np.linalg.cross(a, b), cases=[((4, 3), (4, 3))]
    )
    row(
        "linalg.vecdot",
        lambda a, b: sx.linalg.vecdot(a, b),
        lambda a, b: np.linalg.vecdot(a, b),
        cases=[((4, 3), (3,))],
    )
    row(
        "linalg.tensordot",
        lambda a, b: sx.linalg.tensordot(a, b, 1),
        lambda a, b: np.linalg.tensordot(a, b, axes=1),
        cases=[((2, 3), (3, 4))],
    )
    row("linalg.matrix_transpose", sx.linalg.matrix_transpose, np.linalg.matrix_transpose, cases=[((2, 3, 4),)])
    row("linalg.outer", lambda a, b: sx.linalg.outer(a, b), lambda a, b: np.linalg.outer(a, b), cases=[((3,), (4,))])
    row(
        "linalg.matmul",
        lambda a, b: sx.linalg.matmul(a, b),
        lambda a, b: np.linalg.matmul(a, b),
        cases=[((2, 3), (3, 4))],
    )
    row("linalg.tril", lambda x: sx.linalg.tril(x, -1), lambda x: np.tril(x, -1), cases=[((3, 4),)])
    row("linalg.triu", lambda x: sx.linalg.triu(x, 1), lambda x: np.triu(x, 1), cases=[((3, 4),)])

"""Conformance rows of linalg.norm, vector_norm and matrix_norm (symx/ops.hpp), against numpy.linalg
(added to test_conformance.py's table: see its _AREAS). Gradients are checked by the table's float64
finite differences; the gradient at x = 0 (PyTorch's 0, where the formula is 0/0) is checked in
tests/python/test_norms.py."""

import numpy as np

import symx as sx

INF = np.inf


def add_rows(c):
    row = c.row
    # (variant, symx call, NumPy call, shape)
    for vname, kw, shape in [
        ("flat", {}, (3, 4)),
        ("vec2", {"axis": 1}, (3, 4)),
        ("vec1", {"ord": 1, "axis": 0}, (3, 4)),
        ("vec3", {"ord": 3, "axis": -1, "keepdims": True}, (2, 3, 4)),
        ("vec0.5", {"ord": 0.5}, (5,)),
        ("vec-1", {"ord": -1}, (5,)),
        ("vecinf", {"ord": INF}, (5,)),
        ("vec-inf", {"ord": -INF}, (5,)),
        ("vec0", {"ord": 0}, (5,)),
        ("fro", {"ord": "fro"}, (3, 4)),
        ("mat1", {"ord": 1}, (3, 4)),
        ("mat-1", {"ord": -1}, (3, 4)),
        ("matinf", {"ord": INF, "keepdims": True}, (3, 4)),
        ("mat-inf", {"ord": -INF}, (3, 4)),
        ("batched", {"ord": 1, "axis": (2, 0)}, (3, 2, 4)),
    ]:
        row(
            f"linalg.norm[{vname}]",
            lambda x, kw=kw: sx.linalg.norm(x, **kw),
            lambda x, kw=kw: np.asarray(np.linalg.norm(x, **kw), x.dtype),
            [(shape,)],
            kinds="away",  # |x| >= 0.5: no ties at 0 for the finite differences of the extremes
            grad=vname != "vec0",
            api=("linalg.norm",),
        )
    row(
        "linalg.vector_norm",
        lambda x: sx.linalg.vector_norm(x, axis=(0, 2), ord=3),
        lambda x: np.linalg.vector_norm(x, axis=(0, 2), ord=3),
        [((2, 3, 4),)],
        kinds="away",
    )
    row(
        "linalg.matrix_norm",
        lambda x: sx.linalg.matrix_norm(x, ord=INF),
        lambda x: np.linalg.matrix_norm(x, ord=INF),
        [((2, 3, 4),)],
        kinds="away",
    )
    # From a random start, 200 power steps reach the leading singular pair; the row checks
    # u^T W v = sigma_max (u and v are defined up to a common sign). No gradient: a random start.
    row(
        "linalg.singular_vectors_power_iteration",
        lambda w: (lambda uv: sx.dot(uv[0], sx.matmul(w, uv[1])))(
            sx.linalg.singular_vectors_power_iteration(w, n_iters=200)
        ),
        lambda w: np.asarray(np.linalg.svd(w.astype(np.float64), compute_uv=False)[0], w.dtype),
        gen=lambda rng, dt: [[np.asarray(np.diag([3.0, 1.0, 0.5]) + 0.1 * rng.standard_normal((3, 3)), dt)]],
        grad=False,
    )

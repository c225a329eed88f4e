"""Conformance rows of symx/linalg.hpp (eigh, eigvalsh, svd, svdvals, pinv, matrix_rank, cond, lstsq)
and of the singular-value matrix norms (ord 2, -2, 'nuc'), against numpy.linalg in float64 (added to
test_conformance.py's table: see its _AREAS).

Eigenvectors and singular vectors are defined up to sign: symx makes the entries of each eigenvector
(each column of u, its column of v following) sum to a positive number (see column_signs), and the
references here apply the same rule to NumPy's results. The inputs have well separated eigenvalues and
singular values, so that the vectors are well conditioned (float32 on LAPACK in single precision,
compiled, stays within the table's tolerance of the reference evaluator's double precision) and smooth
for the finite differences.
Hard points (repeated eigenvalues, zero singular values) are in test_linalg_spectral.py and the kink
goldens."""

import numpy as np

import symx as sx

SPREAD = {"float32": (2e-4, 2e-5), "float64": (1e-8, 1e-10)}


def mT(t):
    """The matrix transpose of a symx tensor (its last two axes swapped)."""
    perm = list(range(t.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return sx.transpose(t, perm)


def column_signs(vectors):
    """symx's sign rule (ops/spectral_lapack.hpp): +1 or -1 per column, making its sum positive, or, where
    the sum is below 1e-3 times the column's norm, its first entry within 0.1% of the largest magnitude."""
    total = vectors.sum(axis=-2)
    norm = np.sqrt((vectors**2).sum(axis=-2))
    big = np.abs(vectors).max(axis=-2, keepdims=True)
    first = np.argmax(np.abs(vectors) >= big * (1 - 1e-3), axis=-2)[..., None, :]
    fallback = np.take_along_axis(vectors, first, axis=-2)[..., 0, :]
    return np.where(np.abs(total) <= 1e-3 * norm, np.where(fallback < 0, -1.0, 1.0), np.where(total < 0, -1.0, 1.0))


def fix_signs(vectors, partner=None):
    """Flips the columns of `vectors` (and the same rows of `partner`, vh) by symx's rule."""
    vectors = np.array(vectors, copy=True)
    partner = None if partner is None else np.array(partner, copy=True)
    if vectors.shape[-2] == 0:
        return vectors if partner is None else (vectors, partner)
    signs = column_signs(vectors)
    vectors = vectors * signs[..., None, :]
    if partner is None:
        return vectors
    k = vectors.shape[-1]
    partner[..., :k, :] = partner[..., :k, :] * signs[..., :, None]
    return vectors, partner


def spectrum_matrix(rng, shape, values):
    """A (..., n, n) symmetric matrix q diag(values) q^T with random orthogonal q."""
    q, _ = np.linalg.qr(rng.standard_normal(shape))
    return (q * np.asarray(values)[..., None, :]) @ np.swapaxes(q, -1, -2)


def singular_matrix(rng, batch, m, n, values):
    """A (..., m, n) matrix u diag(values) v^T with random orthonormal u and v."""
    k = min(m, n)
    u, _ = np.linalg.qr(rng.standard_normal(batch + (m, k)))
    v, _ = np.linalg.qr(rng.standard_normal(batch + (n, k)))
    return (u * np.asarray(values[:k])) @ np.swapaxes(v, -1, -2)


def gen_symmetric(garbage_upper=True):
    """Symmetric inputs (eigenvalues about 1 apart) whose other triangle holds noise, which eigh must not read."""

    def gen(rng, dt):
        out = []
        for shape in [(3, 3), (2, 4, 4), (1, 1)]:
            n = shape[-1]
            a = spectrum_matrix(rng, shape, np.arange(n) * 1.1 - 1.3 + 0.1 * rng.random(n))
            if garbage_upper:
                a = a + np.triu(rng.standard_normal(shape), 1)
            out.append([np.asarray(a, dt)])
        return out

    return gen


def gen_upper(rng, dt):
    return [[np.asarray(np.swapaxes(a, -1, -2), dt)] for [a] in gen_symmetric()(rng, "float64")]


def gen_general(shapes=((3, 4), (4, 3), (2, 3, 3), (1, 2))):
    """Matrices with singular values about 1 apart (3.2, 2.1, 1.0, ...)."""

    def gen(rng, dt):
        out = []
        for shape in shapes:
            m, n = shape[-2:]
            values = 3.2 - 1.1 * np.arange(min(m, n)) + 0.05 * rng.random(min(m, n))
            out.append([np.asarray(singular_matrix(rng, tuple(shape[:-2]), m, n, values), dt)])
        return out

    return gen


def f64(fn):
    """A NumPy reference computed in float64 and returned in the input's float dtype."""

    def ref(*args):
        dt = args[0].dtype
        res = fn(*[a.astype(np.float64) for a in args])
        if isinstance(res, tuple):
            return [np.asarray(r, dt) if np.asarray(r).dtype.kind == "f" else np.asarray(r) for r in res]
        return np.asarray(res, dt) if np.asarray(res).dtype.kind == "f" else np.asarray(res)

    return ref


def eigh_ref(uplo):
    def ref(a):
        w, v = np.linalg.eigh(a, UPLO=uplo)
        return w, fix_signs(v)

    return ref


def svd_ref(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    u, vh = fix_signs(u, vh)
    return u, s, vh


def gen_rank(rng, dt):
    out = []
    for m, n, r in [(4, 3, 2), (3, 5, 1), (3, 3, 3), (4, 4, 0)]:
        a = rng.standard_normal((m, r)) @ rng.standard_normal((r, n))
        out.append([np.asarray(a, dt)])
    out.append([np.asarray(np.stack([np.eye(3), np.diag([1.0, 1.0, 0.0])]), dt)])
    return out


def gen_lstsq(rng, dt):
    out = []
    for m, n, k in [(5, 3, 2), (5, 3, None), (3, 5, 2), (4, 4, 1)]:
        values = 3.2 - 1.1 * np.arange(min(m, n))
        a = singular_matrix(rng, (), m, n, values)
        b = rng.standard_normal((m,) if k is None else (m, k))
        out.append([np.asarray(a, dt), np.asarray(b, dt)])
    return out


def add_rows(c):
    row = c.row
    for uplo, gen in (("L", gen_symmetric()), ("U", gen_upper)):
        row(
            f"linalg.eigh[{uplo}]",
            lambda a, uplo=uplo: sx.linalg.eigh(a, UPLO=uplo),
            f64(eigh_ref(uplo)),
            gen=gen,
            tol=SPREAD,
        )
        row(
            f"linalg.eigvalsh[{uplo}]",
            lambda a, uplo=uplo: sx.linalg.eigvalsh(a, UPLO=uplo),
            f64(lambda a, uplo=uplo: np.linalg.eigvalsh(a, UPLO=uplo)),
            gen=gen,
            tol=SPREAD,
        )
    row("linalg.svd", lambda a: sx.linalg.svd(a, full_matrices=False), f64(svd_ref), gen=gen_general(), tol=SPREAD)
    # The full factors: the extra columns of u and vh are any orthonormal completion, so the row checks s,
    # u's first k columns and that u and vh are orthogonal; no gradient (an error, tested in test_linalg_spectral.py).
    row(
        "linalg.svd[full]",
        lambda a: (lambda usv: (usv[1], usv[0][..., :, : usv[1].shape[-1]], mT(usv[0]) @ usv[0], usv[2] @ mT(usv[2])))(
            sx.linalg.svd(a)
        ),
        f64(
            lambda a: (
                np.linalg.svd(a)[1],
                svd_ref(a)[0],
                np.broadcast_to(np.eye(a.shape[-2]), a.shape[:-1] + (a.shape[-2],)),
                np.broadcast_to(np.eye(a.shape[-1]), a.shape[:-2] + (a.shape[-1],) * 2),
            )
        ),
        gen=gen_general(),
        tol=SPREAD,
        grad=False,
    )
    row(
        "linalg.svd[compute_uv=False]",
        lambda a: sx.linalg.svd(a, compute_uv=False),
        f64(lambda a: np.linalg.svd(a, compute_uv=False)),
        gen=gen_general(),
        tol=SPREAD,
        api=(),
    )
    row(
        "linalg.svd[hermitian]",
        lambda a: (lambda usv: (usv[1], usv[0] @ (usv[1][..., :, None] * usv[2])))(sx.linalg.svd(a, hermitian=True)),
        f64(lambda a: (np.linalg.svd(a, hermitian=True)[1], np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2))),
        gen=lambda rng, dt: [
            [np.asarray(spectrum_matrix(rng, (3, 3), [-2.3, 1.1, 3.4]), dt)],
            [np.asarray(spectrum_matrix(rng, (2, 4, 4), [-3.5, -1.2, 0.6, 2.4]), dt)],
        ],
        tol=SPREAD,
        api=(),
    )
    row("linalg.svdvals", sx.linalg.svdvals, f64(np.linalg.svdvals), gen=gen_general(), tol=SPREAD)
    row("linalg.pinv", sx.linalg.pinv, f64(np.linalg.pinv), gen=gen_general(), tol=SPREAD)
    row(
        "linalg.pinv[hermitian]",
        lambda a: sx.linalg.pinv(a, hermitian=True),
        f64(lambda a: np.linalg.pinv(a, hermitian=True)),
        gen=gen_symmetric(garbage_upper=False),
        tol=SPREAD,
        api=(),
    )
    row(
        "linalg.pinv[rtol]",
        lambda a: sx.linalg.pinv(a, rtol=0.5),
        f64(lambda a: np.linalg.pinv(a, rtol=0.5)),
        gen=gen_general(((3, 4), (2, 3, 3))),
        tol=SPREAD,
        api=(),
    )
    row(
        "linalg.matrix_rank",
        sx.linalg.matrix_rank,
        np.linalg.matrix_rank,
        gen=gen_rank,
        grad=False,
    )
    row(
        "linalg.matrix_rank[tol]",
        lambda a: sx.linalg.matrix_rank(a, tol=1.5),
        lambda a: np.linalg.matrix_rank(a, tol=1.5),
        gen=gen_general(),
        grad=False,
        api=(),
    )
    for p in (None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf):
        row(
            f"linalg.cond[{p}]",
            lambda a, p=p: sx.linalg.cond(a, p),
            f64(lambda a, p=p: np.linalg.cond(a, p)),
            gen=gen_general(((3, 3), (2, 4, 4))) if p not in (None, 2, -2) else gen_general(),
            tol=SPREAD,
            api=("linalg.cond",),
        )
    row(
        "linalg.lstsq",
        lambda a, b: sx.linalg.lstsq(a, b),
        f64(lambda a, b: np.linalg.lstsq(a, b)),
        gen=gen_lstsq,
        tol=SPREAD,
        grad=False,
    )
    row(
        "linalg.lstsq[x]",
        lambda a, b: sx.linalg.lstsq(a, b)[:2],
        f64(lambda a, b: np.linalg.lstsq(a, b)[:2]),
        gen=gen_lstsq,
        tol=SPREAD,
        api=(),
    )
    for ord_, kw, shapes in [
        (2, {}, ((3, 4), (4, 3))),
        (-2, {}, ((3, 4), (4, 3))),
        ("nuc", {}, ((3, 4), (2, 2))),
        (2, {"axis": (2, 0), "keepdims": True}, ((3, 2, 4),)),
        ("nuc", {"axis": (0, 1)}, ((3, 4, 2),)),
    ]:
        row(
            f"linalg.norm[mat{ord_}{'+axis' if kw else ''}]",
            lambda x, ord_=ord_, kw=kw: sx.linalg.norm(x, ord_, **kw),
            f64(lambda x, ord_=ord_, kw=kw: np.linalg.norm(x, ord_, **kw)),
            gen=lambda rng, dt, shapes=shapes: [[np.asarray(rng.standard_normal(s), dt)] for s in shapes],
            tol=SPREAD,
            api=("linalg.norm",),
        )
    row(
        "linalg.matrix_norm[2]",
        lambda x: sx.linalg.matrix_norm(x, ord=2),
        f64(lambda x: np.linalg.matrix_norm(x, ord=2)),
        gen=gen_general(((2, 3, 4),)),
        tol=SPREAD,
        api=("linalg.matrix_norm",),
    )


def _gram_ref(v):
    """Gram-Schmidt of the rows of v: the rows of Q from numpy.linalg.qr(v.T), signed as v's projections."""
    q, r = np.linalg.qr(v.T)
    return (q * np.sign(np.diag(r))).T.astype(v.dtype)


def add_gram_rows(c):
    c.row("linalg.gram_schmidt", sx.linalg.gram_schmidt, _gram_ref, [((3, 5),)])
    c.row(
        "linalg.gram_schmidt[unnormalized]",
        lambda v: sx.linalg.gram_schmidt(v, normalize=False),
        lambda v: (_gram_ref(v) * np.abs(np.diag(np.linalg.qr(v.T)[1]))[:, None]).astype(v.dtype),
        [((3, 4),)],
        api=("linalg.gram_schmidt",),
    )
    c.row("linalg.modified_gram_schmidt", sx.linalg.modified_gram_schmidt, _gram_ref, [((4, 6),)])
    # From a random start, 300 steps reach the leading eigenvector of a symmetric matrix with a clear
    # gap; the row checks the Rayleigh quotient u^T W u = lambda_max (u is defined up to sign).
    c.row(
        "linalg.eigenvector_power_iteration",
        lambda a: (
            lambda w: (lambda u: sx.dot(u, sx.matmul(w, u)))(sx.linalg.eigenvector_power_iteration(w, n_iters=300))
        )(sx.matmul(a, sx.transpose(a)) + sx.eye(4, dtype=a.dtype) * 0.0),
        lambda a: np.asarray(np.linalg.eigvalsh(a @ a.T)[-1], a.dtype),
        [((4, 4),)],
        grad=False,
        tol={"float32": (1e-3, 1e-4), "float64": (1e-6, 1e-8)},
    )


_add_spectral_rows = add_rows


def add_rows(c):  # noqa: F811 (the spectral rows, then the orthogonalization helpers')
    _add_spectral_rows(c)
    add_gram_rows(c)

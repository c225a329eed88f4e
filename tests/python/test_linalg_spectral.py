"""symx.linalg's spectral decompositions (eigh, eigvalsh, svd, svdvals) and what is built on them (pinv,
matrix_rank, cond, lstsq, the singular-value norms), against NumPy: values up to the vectors' signs,
reconstructions, dtypes, batches, empty and non-square matrices, errors, the compiled backend's LAPACK
calls against the reference evaluator, and gradients against float64 finite differences at random and
hard points (repeated eigenvalues, zero singular values), second derivatives included. The conformance
table adds rows for each function (conformance_linalg_spectral.py)."""

import numpy as np
import pytest

import symx as sx
from helpers import numeric_grad

RNG = np.random.default_rng(22)


def mT(t):
    perm = list(range(t.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return sx.transpose(t, perm)


def orthogonal(n, rng=RNG):
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return q


def symmetric(values, rng=RNG):
    q = orthogonal(len(values), rng)
    return (q * np.asarray(values)) @ q.T


def check_grad(build, x, rtol=1e-5, atol=1e-6):
    """build(placeholder) -> scalar tensor; its symbolic gradient at x against central differences."""
    p = sx.placeholder(x.shape, x.dtype)
    cost = build(p)
    (g,) = sx.grad(cost, [p])
    symbolic = g.eval({p: x})
    numeric = numeric_grad(lambda v: float(cost.eval({p: v})), x)
    np.testing.assert_allclose(symbolic, numeric, rtol=rtol, atol=atol)
    return symbolic


# ---- values ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype, tol", [("float32", 1e-5), ("float64", 1e-12)])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (2, 1, 3, 3)])
def test_eigh_against_numpy_and_reconstruction(dtype, tol, shape):
    a = RNG.standard_normal(shape).astype(dtype)
    w, v = (t.eval() for t in sx.linalg.eigh(sx.constant(a)))
    assert w.dtype == v.dtype == np.dtype(dtype)
    assert w.shape == shape[:-1] and v.shape == shape
    w_np = np.linalg.eigh(a.astype(np.float64))[0]
    np.testing.assert_allclose(w, w_np, rtol=10 * tol, atol=10 * tol)
    sym = np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2)  # UPLO="L": the lower triangle
    np.testing.assert_allclose((v * w[..., None, :]) @ np.swapaxes(v, -1, -2), sym, atol=50 * tol)
    np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, np.broadcast_to(np.eye(shape[-1]), shape), atol=50 * tol)
    assert np.all(np.diff(w, axis=-1) >= 0)
    np.testing.assert_allclose(sx.linalg.eigvalsh(sx.constant(a)).eval(), w, rtol=tol, atol=tol)


def test_eigh_reads_the_triangle_uplo_names():
    a = symmetric([1.0, 2.0, 4.0])
    upper_garbage = a + np.triu(RNG.standard_normal((3, 3)), 1)
    lower_garbage = a + np.tril(RNG.standard_normal((3, 3)), -1)
    np.testing.assert_allclose(sx.linalg.eigvalsh(upper_garbage).eval(), [1, 2, 4], atol=1e-12)
    np.testing.assert_allclose(sx.linalg.eigvalsh(lower_garbage, UPLO="U").eval(), [1, 2, 4], atol=1e-12)
    w, v = sx.linalg.eigh(lower_garbage, UPLO="U")
    np.testing.assert_allclose(w.eval(), np.linalg.eigh(lower_garbage, UPLO="U")[0], atol=1e-12)
    # each eigenvector's entries sum to a positive number
    assert np.all(v.eval().sum(axis=0) > 0)


@pytest.mark.parametrize("dtype, tol", [("float32", 2e-5), ("float64", 1e-12)])
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4), (2, 3, 6, 2)])
@pytest.mark.parametrize("full", [False, True])
def test_svd_against_numpy_and_reconstruction(dtype, tol, shape, full):
    a = RNG.standard_normal(shape).astype(dtype)
    u, s, vh = (t.eval() for t in sx.linalg.svd(sx.constant(a), full_matrices=full))
    u_np, s_np, vh_np = np.linalg.svd(a.astype(np.float64), full_matrices=full)
    assert u.shape == u_np.shape and s.shape == s_np.shape and vh.shape == vh_np.shape
    assert u.dtype == s.dtype == vh.dtype == np.dtype(dtype)
    np.testing.assert_allclose(s, s_np, rtol=10 * tol, atol=10 * tol)
    k = s.shape[-1]
    np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, atol=50 * tol)
    m, n = shape[-2:]
    np.testing.assert_allclose(
        np.swapaxes(u, -1, -2) @ u, np.broadcast_to(np.eye(u.shape[-1]), shape[:-2] + (u.shape[-1],) * 2), atol=50 * tol
    )
    np.testing.assert_allclose(
        vh @ np.swapaxes(vh, -1, -2),
        np.broadcast_to(np.eye(vh.shape[-2]), shape[:-2] + (vh.shape[-2],) * 2),
        atol=50 * tol,
    )
    # the vectors agree with NumPy's up to sign
    dots = np.einsum("...ik,...ik->...k", u[..., :k], u_np[..., :k])
    np.testing.assert_allclose(np.abs(dots), 1, atol=1e3 * tol)
    np.testing.assert_allclose(sx.linalg.svdvals(sx.constant(a)).eval(), s, rtol=tol, atol=tol)
    np.testing.assert_allclose(sx.linalg.svd(sx.constant(a), compute_uv=False).eval(), s, rtol=tol, atol=tol)


def test_svd_hermitian_is_numpys():
    a = symmetric([-3.0, 0.5, 2.0, -1.0])
    u, s, vh = (t.eval() for t in sx.linalg.svd(a, hermitian=True))
    u_np, s_np, vh_np = np.linalg.svd(a, hermitian=True)
    np.testing.assert_allclose(s, s_np, atol=1e-12)
    np.testing.assert_allclose((u * s) @ vh, a, atol=1e-12)
    np.testing.assert_allclose(np.abs(u), np.abs(u_np), atol=1e-10)
    np.testing.assert_allclose(sx.linalg.svd(a, compute_uv=False, hermitian=True).eval(), s_np, atol=1e-12)


@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0), (2, 0, 0)])
@pytest.mark.parametrize("backend", ["reference", "compiled"])
def test_empty_matrices_as_numpy(shape, backend):
    a = np.zeros(shape)
    p = sx.placeholder(shape, "float64")
    outs = [*sx.linalg.svd(p), *sx.linalg.svd(p, full_matrices=False), sx.linalg.svdvals(p)]
    refs = [*np.linalg.svd(a), *np.linalg.svd(a, full_matrices=False), np.linalg.svd(a, compute_uv=False)]
    if shape[-1] == shape[-2]:
        outs += [*sx.linalg.eigh(p), sx.linalg.eigvalsh(p)]
        refs += [*np.linalg.eigh(a), np.linalg.eigvalsh(a)]
    got = sx.function([p], outs, backend=backend)(a)
    for g, r in zip(got, refs):
        assert g.shape == r.shape
        np.testing.assert_array_equal(g, r)


def test_integers_compute_in_float32():
    a = np.array([[2, 1], [1, 2]], np.int32)
    w = sx.linalg.eigvalsh(a).eval()
    assert w.dtype == np.float32
    np.testing.assert_allclose(w, [1, 3], rtol=1e-6)
    assert sx.linalg.svdvals(a).eval().dtype == np.float32


# ---- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: sx.linalg.eigh(sx.zeros((3,))), sx.ShapeError, "at least 2 dimensions"),
        (lambda: sx.linalg.eigh(sx.zeros((3, 4))), sx.ShapeError, "square"),
        (lambda: sx.linalg.eigvalsh(sx.zeros((2, 3, 4))), sx.ShapeError, "square"),
        (lambda: sx.linalg.svd(sx.zeros((3,))), sx.ShapeError, "at least 2 dimensions"),
        (lambda: sx.linalg.svdvals(sx.zeros(())), sx.ShapeError, "at least 2 dimensions"),
        (lambda: sx.linalg.eigh(sx.zeros((2, 2)), UPLO="X"), ValueError, "UPLO must be 'L' or 'U'"),
        (lambda: sx.linalg.cond(sx.zeros((2, 2)), "bad"), ValueError, "invalid order"),
        (lambda: sx.linalg.cond(sx.zeros((2, 3)), 1), sx.ShapeError, "square"),
        (lambda: sx.linalg.lstsq(sx.zeros((3, 2)), sx.zeros((4,))), sx.ShapeError, "3 rows"),
        (lambda: sx.linalg.matrix_rank(sx.zeros((2, 2)), tol=1, rtol=1), ValueError, "can't both be set"),
        (lambda: sx.linalg.pinv(sx.zeros((2, 2)), rcond=1e-3, rtol=1e-3), ValueError, "can't both be set"),
    ],
)
def test_errors_say_what_to_do(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("backend", ["reference", "compiled"])
@pytest.mark.parametrize("name", ["eigh", "eigvalsh", "svd", "svdvals"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_input_is_a_clear_error(backend, name, bad):
    a = np.stack([np.eye(3), np.eye(3)]).astype(np.float32)
    a[1, 2, 0] = bad  # in the lower triangle, read by eigh
    p = sx.placeholder(a.shape, "float32")
    out = getattr(sx.linalg, name)(p)  # the line the error names
    line = __import__("inspect").currentframe().f_lineno - 1
    f = sx.function([p], list(out) if isinstance(out, tuple) else [out], backend=backend)
    with pytest.raises(ValueError) as info:
        f(a)
    text = str(info.value)
    assert text.startswith(f"{name}: the matrix (batch element 1) has a NaN or infinite entry")
    assert f"test_linalg_spectral.py:{line}" in text
    assert "LinAlgError" in text


def test_full_matrices_gradient_of_u_is_an_error_and_of_s_works():
    a = RNG.standard_normal((4, 3))
    p = sx.placeholder((4, 3), "float64")
    u, s, vh = sx.linalg.svd(p)
    with pytest.raises(ValueError, match="full_matrices=False"):
        sx.grad(sx.sum(u), [p])
    with pytest.raises(ValueError, match="full_matrices=False"):
        sx.grad(sx.sum(vh) + sx.sum(s), [p])
    (g,) = sx.grad(sx.sum(s * np.array([1.0, 2.0, 3.0])) + sx.sum(s[0]), [p])
    uu, ss, vvh = np.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(g.eval({p: a}), (uu * np.array([2.0, 2.0, 3.0])) @ vvh, atol=1e-12)


# ---- gradients ------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 3, 5])
def test_eigh_gradient_against_finite_differences(n):
    a = RNG.standard_normal((2, n, n))
    c = RNG.standard_normal((2, n))
    weights = RNG.standard_normal((2, n, n))
    d = RNG.standard_normal((2, n))

    def build(p):
        w, v = sx.linalg.eigh(p)
        projected = sx.matmul(v * sx.expand_dims(sx.constant(d), -2), mT(v))  # gauge-invariant: v diag(d) v^T
        return sx.sum(w * c) + sx.sum(projected * weights) + sx.sum(sx.abs(v) * weights)

    g = check_grad(build, a)
    assert np.all(np.triu(g[0], 1) == 0)  # the upper triangle is not read


def test_eigh_gradient_upper():
    a = RNG.standard_normal((4, 4))
    c = RNG.standard_normal(4)
    g = check_grad(lambda p: sx.sum(sx.linalg.eigvalsh(p, UPLO="U") * c) + sx.sum(sx.linalg.eigh(p, "U")[1] ** 3), a)
    assert np.all(np.tril(g, -1) == 0)


def test_repeated_eigenvalues():
    # a = q diag(1, 1, 3) q^T: eigvalsh's gradient is v diag(c) v^T whatever vectors LAPACK picks for the
    # repeated 1, and right where the function is differentiable there (equal weights on the tie).
    q = orthogonal(3)
    a = (q * np.array([1.0, 1.0, 3.0])) @ q.T
    c = np.array([0.7, 0.7, -2.0])
    g = check_grad(lambda p: sx.sum(sx.linalg.eigvalsh(p) * c), a)
    expected = (q * c) @ q.T
    np.testing.assert_allclose(g, np.tril(expected + expected.T - np.diag(np.diag(expected))), atol=1e-10)
    # the projector onto the repeated eigenvalue's eigenspace is differentiable; eigh's masked tie
    # (F = 0 where w_i == w_j) gives its gradient
    weights = RNG.standard_normal((3, 3))

    def projector(p):
        v = sx.linalg.eigh(p)[1][:, :2]
        return sx.sum(sx.matmul(v, mT(v)) * weights)

    check_grad(projector, a)
    # a function of the tie's own vectors has no derivative: the masked rule stays finite
    p = sx.placeholder((3, 3), "float64")
    (g,) = sx.grad(sx.sum(sx.linalg.eigh(p)[1][:, 0]), [p])
    assert np.all(np.isfinite(g.eval({p: a})))


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 5, 2)])
def test_svd_gradient_against_finite_differences(shape):
    a = RNG.standard_normal(shape)
    k = min(shape[-2:])
    c = RNG.standard_normal(shape[:-2] + (k,))
    wu = RNG.standard_normal(shape[:-1] + (k,))
    wv = RNG.standard_normal(shape[:-2] + (k, shape[-1]))

    def build(p):
        u, s, vh = sx.linalg.svd(p, full_matrices=False)
        return sx.sum(s * c) + sx.sum(u * wu) + sx.sum(vh * wv)

    check_grad(build, a)
    check_grad(lambda p: sx.sum(sx.linalg.svdvals(p) * c), a)


def test_zero_singular_values():
    # rank 2 of 3: s_3 = 0. sum(s^2) = |a|_F^2 has gradient 2a (u diag(2s) vh); the two largest are smooth there;
    # the reconstruction u diag(s) vh is a itself, so its gradient is the weights (square a: no 1/s term).
    a = RNG.standard_normal((3, 2)) @ RNG.standard_normal((2, 3))
    p = sx.placeholder((3, 3), "float64")
    (g,) = sx.grad(sx.sum(sx.linalg.svdvals(p) ** 2), [p])
    np.testing.assert_allclose(g.eval({p: a}), 2 * a, atol=1e-12)
    check_grad(lambda p: sx.sum(sx.linalg.svdvals(p)[:2] * np.array([1.5, -0.5])), a)
    weights = RNG.standard_normal((3, 3))

    def rebuilt(p):
        u, s, vh = sx.linalg.svd(p, full_matrices=False)
        return sx.sum(sx.matmul(u * sx.expand_dims(s, -2), vh) * weights)

    (g,) = sx.grad(rebuilt(p), [p])
    np.testing.assert_allclose(g.eval({p: a}), weights, atol=1e-10)
    # two zero singular values (a tie at 0): the masked rule stays finite, and s's gradient is right
    b = np.outer(RNG.standard_normal(3), RNG.standard_normal(3))
    (g,) = sx.grad(rebuilt(p), [p])
    assert np.all(np.isfinite(g.eval({p: b})))
    check_grad(lambda p: sx.linalg.svdvals(p)[0], b)


def test_second_derivatives():
    a = RNG.standard_normal((3, 3))
    r = RNG.standard_normal((3, 3))
    c = RNG.standard_normal(3)

    def first(build):
        p = sx.placeholder((3, 3), "float64")
        (g,) = sx.grad(build(p), [p])
        return p, g

    for build in (
        lambda p: sx.sum(sx.linalg.eigvalsh(p) * c),
        lambda p: sx.sum(sx.linalg.eigh(p)[1] * r),
        lambda p: sx.sum(sx.linalg.svdvals(p) * c),
        lambda p: sx.sum(sx.linalg.svd(p, full_matrices=False)[0] * r),
    ):
        p, g = first(build)
        # d/da of <grad f(a), r> against finite differences of the gradient
        (h,) = sx.grad(sx.sum(g * r), [p])
        numeric = numeric_grad(lambda v, g=g, p=p: float(np.sum(g.eval({p: v}) * r)), a)
        np.testing.assert_allclose(h.eval({p: a}), numeric, rtol=1e-5, atol=1e-6)


def test_composites_gradients():
    a = RNG.standard_normal((4, 3))
    b = RNG.standard_normal((4, 2))
    check_grad(lambda p: sx.sum(sx.linalg.pinv(p) * RNG.standard_normal((3, 4))), a)
    check_grad(lambda p: sx.sum(sx.linalg.lstsq(p, b)[0] ** 2), a)
    check_grad(lambda p: sx.linalg.cond(p), a)
    check_grad(lambda p: sx.linalg.norm(p, "nuc") + sx.linalg.norm(p, 2) + sx.linalg.norm(p, -2), a)


# ---- the composites' values -----------------------------------------------------------------


def test_pinv_matrix_rank_cond_lstsq_against_numpy():
    a = RNG.standard_normal((5, 2)) @ RNG.standard_normal((2, 4))  # rank 2
    np.testing.assert_allclose(sx.linalg.pinv(a).eval(), np.linalg.pinv(a), atol=1e-12)
    assert sx.linalg.matrix_rank(a).eval() == 2 == np.linalg.matrix_rank(a)
    assert sx.linalg.matrix_rank(np.ones(4)).eval() == 1 and sx.linalg.matrix_rank(np.zeros(4)).eval() == 0
    np.testing.assert_array_equal(sx.linalg.matrix_rank(np.stack([np.eye(3), np.zeros((3, 3))])).eval(), [3, 0])
    assert sx.linalg.cond(np.diag([2.0, 0.0])).eval() == np.inf == np.linalg.cond(np.diag([2.0, 0.0]))
    assert sx.linalg.cond(np.zeros((2, 2))).eval() == np.inf
    b = RNG.standard_normal(5)
    x, res, rank, s = (t.eval() for t in sx.linalg.lstsq(a, b))
    x_np, res_np, rank_np, s_np = np.linalg.lstsq(a, b)
    np.testing.assert_allclose(x, x_np, atol=1e-12)
    assert rank == rank_np and rank.dtype == np.int32
    np.testing.assert_allclose(s, s_np, atol=1e-12)
    # NumPy empties the residuals below full rank; symx keeps their sums (a static shape)
    assert res_np.shape == (0,) and res.shape == (1,)  # (1,) for a vector b, as NumPy's at full rank
    np.testing.assert_allclose(res, [np.sum((a @ x - b) ** 2)], atol=1e-12)
    full = RNG.standard_normal((5, 3))
    x, res, rank, s = (t.eval() for t in sx.linalg.lstsq(full, RNG.standard_normal((5, 2)) * 0 + b[:, None]))
    np.testing.assert_allclose(res, np.linalg.lstsq(full, np.stack([b, b], 1))[1], atol=1e-12)
    # batched, beyond NumPy's 2-D lstsq
    batch_a, batch_b = RNG.standard_normal((3, 6, 4)), RNG.standard_normal((3, 6))
    xs = sx.linalg.lstsq(batch_a, batch_b)[0].eval()
    for i in range(3):
        np.testing.assert_allclose(xs[i], np.linalg.lstsq(batch_a[i], batch_b[i])[0], atol=1e-12)


# ---- the compiled backend -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(6, 5, 5), (150, 150), (2, 130, 90), (40, 3, 4)])
def test_compiled_lapack_calls_match_the_reference(dtype, shape):
    a = np.asarray(RNG.standard_normal(shape), dtype)
    p = sx.placeholder(shape, dtype)
    outs = [*sx.linalg.svd(p, full_matrices=False), sx.linalg.svdvals(p)]
    square = shape[-1] == shape[-2]
    if square:
        outs += [*sx.linalg.eigh(p), sx.linalg.eigvalsh(p)]
    f = sx.function([p], outs)
    text = f.describe()
    assert "LAPACK " + ("s" if dtype == "float32" else "d") + "gesdd" in text
    if square:
        assert "syevd" in text
    got = f(a)
    want = sx.function([p], outs, backend="reference")(a)
    tol = 2e-4 if dtype == "float32" else 1e-9
    values = [1, 3] + ([4, 6] if square else [])  # s, svdvals, w, eigvalsh
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == np.dtype(dtype)
        # float32 vectors of large random matrices (close eigenvalues) are compared through the reconstruction only
        if i in values or dtype == "float64" or shape[-1] <= 5:
            np.testing.assert_allclose(g, w, atol=tol * max(1, np.abs(w).max()))
    # the factors are right in their own precision
    u, s, vh = got[:3]
    np.testing.assert_allclose(
        (u * s[..., None, :]) @ vh, a, atol=(1e-4 if dtype == "float32" else 1e-11) * np.sqrt(shape[-1])
    )


def test_orthogonalization_helpers_errors_and_zero_rows():
    v = np.array([[1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 3.0, 0.0]])  # the second row is dependent
    for fn in (sx.linalg.gram_schmidt, sx.linalg.modified_gram_schmidt):
        u = fn(sx.constant(v)).eval()
        np.testing.assert_allclose(u, [[1, 0, 0], [0, 0, 0], [0, 1, 0]], atol=1e-12)  # a zero row, no NaN
    with pytest.raises(ValueError, match="expects a matrix"):
        sx.linalg.gram_schmidt(sx.placeholder((2, 3, 4), name="vs"))
    with pytest.raises(ValueError, match="square matrix"):
        sx.linalg.eigenvector_power_iteration(sx.placeholder((2, 3), name="w"))

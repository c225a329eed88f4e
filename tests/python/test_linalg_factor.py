"""QR, LU, Cholesky solves and the matrix functions of symx/linalg_factor.hpp, against NumPy and SciPy:
reconstruction and values, dtypes, batches, empty and non-square matrices, errors, gradients at the
hard points (rank-deficient QR, tied LU pivots) and the compiled backend's LAPACK calls against the
reference evaluator. The random-point values and float64 finite-difference gradients are rows of the
conformance table (conformance_linalg_factor.py)."""

import numpy as np
import pytest
import scipy.linalg as sla

import symx as sx
from helpers import numeric_grad

RNG = np.random.default_rng(7)
TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-10, atol=1e-12)}


def rand(shape, dtype="float64"):
    return RNG.standard_normal(shape).astype(dtype)


def compiled(fn, *args):
    """fn on placeholders of args' types, through sx.function (the LAPACK library calls)."""
    phs = [sx.placeholder(a.shape, str(a.dtype)) for a in args]
    outs = fn(*phs)
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    return sx.function(phs, outs)(*args)


def reference(fn, *args):
    outs = fn(*[sx.constant(a) for a in args])
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    return [o.eval() for o in outs]


def both(fn, *args):
    """(reference evaluator results, compiled results)."""
    return reference(fn, *args), compiled(fn, *args)


def sym_grad(build, x):
    """d sum(build(x) * w) / dx, symbolic, for a fixed random w; and the same cost as a function of x."""
    ph = sx.placeholder(x.shape, "float64")
    out = build(ph)
    w = np.random.default_rng(1).standard_normal(out.shape)
    cost = sx.sum(out * w)
    (g,) = sx.grad(cost, [ph])
    return g.eval({ph: x}), lambda v: float(cost.eval({ph: v}))


# ---- qr ----


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 5, 2), (2, 3, 2, 4)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_matches_numpy(dtype, shape, mode):
    a = rand(shape, dtype)
    ref, comp = both(lambda x: sx.linalg.qr(x, mode=mode), a)
    want = np.linalg.qr(a, mode=mode)
    want = [want] if mode == "r" else list(want)
    for r_, c_, w in zip(ref, comp, want):
        assert r_.dtype == np.dtype(dtype) and c_.dtype == np.dtype(dtype)
        np.testing.assert_allclose(r_, w, **TOL[dtype])
        np.testing.assert_allclose(c_, w, **TOL[dtype])
    if mode != "r":
        q, r = comp
        np.testing.assert_allclose(q @ r, a, **TOL[dtype])
        np.testing.assert_allclose(
            np.swapaxes(q, -1, -2) @ q,
            np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2),
            **TOL[dtype],
        )


def test_qr_namedtuple_integers_and_empty():
    res = sx.linalg.qr(sx.constant(np.array([[1, 2], [3, 4]], np.int32)))
    assert res.Q.dtype == np.float32 and res.R.dtype == np.float32
    np.testing.assert_allclose(res.Q.eval() @ res.R.eval(), [[1, 2], [3, 4]], rtol=1e-6)
    for shape in [(0, 3), (3, 0), (2, 0, 0)]:
        a = np.zeros(shape)
        for mode in ["reduced", "complete"]:
            q, r = sx.linalg.qr(sx.constant(a), mode=mode)
            wq, wr = np.linalg.qr(a, mode=mode)
            assert q.eval().shape == wq.shape and r.eval().shape == wr.shape
            np.testing.assert_array_equal(q.eval(), wq)


def test_qr_errors():
    with pytest.raises(ValueError, match="unknown mode 'raw'.*not offered"):
        sx.linalg.qr(sx.zeros((2, 2)), mode="raw")
    with pytest.raises(sx.ShapeError, match="at least 2 dimensions"):
        sx.linalg.qr(sx.zeros((3,)))
    p = sx.placeholder((4, 2), "float64")
    q, r = sx.linalg.qr(p, mode="complete")
    with pytest.raises(ValueError, match="mode 'complete' is defined only for m <= n"):
        sx.grad(sx.sum(q), [p])


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 2)])
@pytest.mark.parametrize("which", [0, 1])
def test_qr_gradient_random(shape, which):
    a = rand(shape)
    g, f = sym_grad(lambda x: sx.linalg.qr(x)[which], a)
    np.testing.assert_allclose(g, numeric_grad(f, a), rtol=1e-5, atol=1e-7)


def test_qr_gradient_mode_r_and_second_order():
    a = rand((4, 3))
    g, f = sym_grad(lambda x: sx.linalg.qr(x, mode="r"), a)
    np.testing.assert_allclose(g, numeric_grad(f, a), rtol=1e-5, atol=1e-7)
    # grad of grad: d/da of sum(grad(sum(r * w)) * v) against finite differences of the first gradient.
    x = sx.placeholder((4, 3), "float64")
    w = RNG.standard_normal((3, 3))
    v = RNG.standard_normal((4, 3))
    (g1,) = sx.grad(sx.sum(sx.linalg.qr(x)[1] * w), [x])
    c2 = sx.sum(g1 * v)
    (g2,) = sx.grad(c2, [x])
    np.testing.assert_allclose(g2.eval({x: a}), numeric_grad(lambda y: float(c2.eval({x: y})), a), rtol=1e-5, atol=1e-7)


def test_qr_gradient_rank_deficient():
    # A rank-deficient tall matrix (third column = first + second) and a nearly rank-deficient one:
    # r is singular (or nearly) and the r^-T of the gradient formula divides by its small diagonal.
    # At the exactly deficient point q's last column is not a differentiable function of a, so the
    # gradient of r alone is checked (PyTorch's and JAX's rule give the same kind of value: finite).
    b = rand((5, 2))
    a = np.concatenate([b, b[:, :1] + b[:, 1:]], axis=1)
    x = sx.placeholder(a.shape, "float64")
    (g,) = sx.grad(sx.sum(sx.linalg.qr(x)[1][:2, :] * RNG.standard_normal((2, 3))), [x])
    gv = g.eval({x: a})
    assert gv.shape == a.shape
    # Nearly deficient: 1e-4 off; FD with a step well under the gap agrees.
    near = a + 1e-4 * rand(a.shape)
    gn, f = sym_grad(lambda y: sx.linalg.qr(y)[1], near)
    np.testing.assert_allclose(gn, numeric_grad(f, near, eps=1e-8), rtol=2e-4, atol=1e-6)
    gq, fq = sym_grad(lambda y: sx.linalg.qr(y)[0], near)
    np.testing.assert_allclose(gq, numeric_grad(fq, near, eps=1e-8), rtol=2e-3, atol=1e-4)


# ---- lu, lu_factor, lu_solve ----


def scipy_lu_batched(a, **kw):
    flat = a.reshape((-1,) + a.shape[-2:])
    parts = [sla.lu(m, **kw) for m in flat]
    return [np.stack([p[i] for p in parts]).reshape(a.shape[:-2] + parts[0][i].shape) for i in range(len(parts[0]))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 3, 4, 4), (3, 1, 2)])
@pytest.mark.parametrize("permute_l", [False, True])
def test_lu_matches_scipy(dtype, shape, permute_l):
    a = rand(shape, dtype)
    ref, comp = both(lambda x: sx.linalg.lu(x, permute_l=permute_l), a)
    want = scipy_lu_batched(a, permute_l=permute_l)
    for r_, c_, w in zip(ref, comp, want):
        assert c_.dtype == np.dtype(dtype)
        np.testing.assert_allclose(r_, w, **TOL[dtype])
        np.testing.assert_allclose(c_, w, **TOL[dtype])
    recon = comp[0] @ comp[1] if permute_l else comp[0] @ comp[1] @ comp[2]
    np.testing.assert_allclose(recon, a, **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_lu_factor_matches_scipy(dtype, shape):
    a = rand(shape, dtype)
    (rl, rp), (cl, cp) = both(sx.linalg.lu_factor, a)
    wl, wp = sla.lu_factor(a)
    for lu, piv in [(rl, rp), (cl, cp)]:
        assert piv.dtype == np.int32 and lu.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(piv, wp)
        np.testing.assert_allclose(lu, wl, **TOL[dtype])


def test_lu_factor_batched_and_permutation():
    a = rand((3, 4, 4))
    lu, piv = sx.linalg.lu_factor(sx.constant(a))
    perm = sx.linalg.lu_pivots_to_permutation(piv, 4).eval()
    for i in range(3):
        wl, wp = sla.lu_factor(a[i])
        np.testing.assert_array_equal(piv.eval()[i], wp)
        np.testing.assert_allclose(lu.eval()[i], wl, rtol=1e-12)
        p, _, _ = sla.lu(a[i])
        np.testing.assert_array_equal(a[i][perm[i]], (p.T @ a[i]))
    assert perm.dtype == np.int32


def test_lu_singular_is_a_factorization_not_an_error():
    # SciPy's lu_factor warns and returns for an exactly singular matrix; so does symx (no error).
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    ref, comp = both(sx.linalg.lu_factor, a)
    with pytest.warns(sla.LinAlgWarning):
        wl, wp = sla.lu_factor(a)
    for lu, piv in (ref, comp):
        np.testing.assert_allclose(lu, wl)
        np.testing.assert_array_equal(piv, wp)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("trans", [0, 1, 2])
@pytest.mark.parametrize("bshape", [(4,), (4, 3), (2, 4, 3)])
def test_lu_solve_matches_scipy(dtype, trans, bshape):
    a = rand((4, 4), dtype) + 4 * np.eye(4, dtype=dtype)
    b = rand(bshape, dtype)
    f = lambda x, y: sx.linalg.lu_solve(sx.linalg.lu_factor(x), y, trans=trans)  # noqa: E731
    ref, comp = both(f, a, b)
    lu_piv = sla.lu_factor(a)
    if len(bshape) == 3:
        want = np.stack([sla.lu_solve(lu_piv, bb, trans=trans) for bb in b])
    else:
        want = sla.lu_solve(lu_piv, b, trans=trans)
    np.testing.assert_allclose(ref[0], want, **TOL[dtype])
    np.testing.assert_allclose(comp[0], want, **TOL[dtype])
    assert comp[0].dtype == np.dtype(dtype)


def test_lu_solve_with_scipys_factors():
    a = rand((3, 3)) + 3 * np.eye(3)
    b = rand((3,))
    lu, piv = sla.lu_factor(a)
    x = sx.linalg.lu_solve((sx.constant(lu), sx.constant(piv)), sx.constant(b)).eval()
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-12)


def test_lu_solve_singular_error_names_the_line():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    x = sx.placeholder((2, 2), "float64")
    y = sx.linalg.lu_solve(sx.linalg.lu_factor(x), np.ones(2))
    with pytest.raises(ValueError, match=r"triangular_solve: the triangular matrix is singular.*test_linalg_factor.py"):
        y.eval({x: a})
    f = sx.function([x], [y])
    with pytest.raises(ValueError, match=r"triangular_solve: the triangular matrix is singular.*test_linalg_factor.py"):
        f(a)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 3, 3)])
def test_lu_gradient_random(shape):
    a = rand(shape)
    for which in [1, 2]:
        g, f = sym_grad(lambda x, which=which: sx.linalg.lu(x)[which], a)
        np.testing.assert_allclose(g, numeric_grad(f, a), rtol=1e-5, atol=1e-7)
    g, f = sym_grad(lambda x: sx.linalg.lu_factor(x)[0], a)
    np.testing.assert_allclose(g, numeric_grad(f, a), rtol=1e-5, atol=1e-7)


def test_lu_gradient_at_tied_pivots():
    # The first column ties (|2| = |-2|): getrf takes the first row; moving a by +-eps along a
    # direction that keeps the tie's winner (rows scaled so the first stays ahead) is smooth, so
    # the one-sided finite difference towards the kept choice matches the symbolic gradient.
    a = np.array([[2.0, 1.0, 0.5], [-2.0, 3.0, 1.0], [1.0, -1.0, 4.0]])
    g, f = sym_grad(lambda x: sx.linalg.lu_factor(x)[0], a)
    eps = 1e-7
    num = np.zeros_like(a)
    for idx in np.ndindex(*a.shape):
        d = np.zeros_like(a)
        d[idx] = eps
        # keep row 0 the pivot: never grow |a[1, 0]| past |a[0, 0]|
        if idx == (1, 0):
            num[idx] = (f(a + d) - f(a)) / eps  # a[1, 0] -> -2 + eps: |.| shrinks
        elif idx == (0, 0):
            num[idx] = (f(a + d) - f(a)) / eps  # a[0, 0] -> 2 + eps: grows
        else:
            num[idx] = (f(a + d) - f(a - d)) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-5)
    _, piv = sx.linalg.lu_factor(sx.constant(a))
    np.testing.assert_array_equal(piv.eval(), sla.lu_factor(a)[1])


def test_lu_solve_gradient():
    a = rand((3, 3)) + 3 * np.eye(3)
    b = rand((3, 2))
    for trans in [0, 1]:
        g, f = sym_grad(lambda x, t=trans: sx.linalg.lu_solve(sx.linalg.lu_factor(x), b, trans=t), a)
        np.testing.assert_allclose(g, numeric_grad(f, a), rtol=1e-5, atol=1e-7)
        g, f = sym_grad(lambda y, t=trans: sx.linalg.lu_solve(sx.linalg.lu_factor(a), y, trans=t), b)
        np.testing.assert_allclose(g, numeric_grad(f, b), rtol=1e-5, atol=1e-7)


def test_lu_errors():
    with pytest.raises(sx.ShapeError, match="at least 2 dimensions"):
        sx.linalg.lu(sx.zeros((3,)))
    with pytest.raises(sx.ShapeError, match="piv must have shape"):
        sx.linalg.lu_solve((sx.zeros((3, 3)), sx.zeros((2,), "int32")), sx.zeros((3,)))
    with pytest.raises(ValueError, match="trans must be 0, 1 or 2"):
        sx.linalg.lu_solve((sx.zeros((3, 3)), sx.zeros((3,), "int32")), sx.zeros((3,)), trans=3)
    with pytest.raises(ValueError, match="outside \\[0, 3\\)"):
        sx.linalg.lu_pivots_to_permutation(sx.constant(np.array([5, 1], np.int32)), 3).eval()
    with pytest.raises(TypeError, match="lu_and_piv must be a pair"):
        sx.linalg.lu_solve(sx.zeros((3, 3)), sx.zeros((3,)))


# ---- cho_factor, cho_solve ----


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("lower", [False, True])
def test_cho_factor_and_solve(dtype, lower):
    m = rand((2, 4, 4), dtype)
    a = m @ np.swapaxes(m, -1, -2) + 4 * np.eye(4, dtype=dtype)
    b = rand((2, 4, 3), dtype)

    def f(x, y):
        return [sx.linalg.cho_factor(x, lower=lower)[0], sx.linalg.cho_solve(sx.linalg.cho_factor(x, lower=lower), y)]

    ref, comp = both(f, a, b)
    for out in (ref, comp):
        for i in range(2):
            c, low = sla.cho_factor(a[i], lower=lower)
            want_c = np.tril(c) if lower else np.triu(c)
            np.testing.assert_allclose(out[0][i], want_c, **TOL[dtype])
            np.testing.assert_allclose(out[1][i], sla.cho_solve((c, low), b[i]), **TOL[dtype])
    c, low = sx.linalg.cho_factor(sx.constant(a[0]), lower=lower)
    assert low is lower


def test_cho_solve_gradient_and_vector_rhs():
    m = rand((3, 3))
    a = m @ m.T + 3 * np.eye(3)
    b = rand((3,))
    x = sx.linalg.cho_solve(sx.linalg.cho_factor(sx.constant(a)), sx.constant(b)).eval()
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-12)
    g, f = sym_grad(lambda y: sx.linalg.cho_solve(sx.linalg.cho_factor(sx.constant(a), lower=True), y), b)
    np.testing.assert_allclose(g, numeric_grad(f, b), rtol=1e-6, atol=1e-8)
    # through the factor, symmetric input built in the graph
    g, f = sym_grad(
        lambda y: sx.linalg.cho_solve(sx.linalg.cho_factor(y @ sx.matrix_transpose(y) + 3 * np.eye(3)), b), m
    )
    np.testing.assert_allclose(g, numeric_grad(f, m), rtol=1e-5, atol=1e-7)


def test_cholesky_indefinite_error_compiled():
    a = np.array([[1.0, 2.0], [2.0, 1.0]])
    x = sx.placeholder((2, 2), "float32")
    f = sx.function([x], [sx.linalg.cho_factor(x)[0]])
    with pytest.raises(ValueError, match=r"cholesky: the matrix is not positive definite.*test_linalg_factor.py"):
        f(a.astype(np.float32))


# ---- matrix_power, multi_dot ----


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, -1, -3])
def test_matrix_power(n):
    a = rand((2, 3, 3)) + 2 * np.eye(3)
    ref, comp = both(lambda x: sx.linalg.matrix_power(x, n), a)
    want = np.linalg.matrix_power(a, n)
    np.testing.assert_allclose(ref[0], want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(comp[0], want, rtol=1e-10, atol=1e-12)


def test_matrix_power_integers_and_errors():
    a = np.array([[1, 1], [1, 0]], np.int64)
    out = sx.linalg.matrix_power(sx.constant(a), 10).eval()
    np.testing.assert_array_equal(out, np.linalg.matrix_power(a, 10))
    assert out.dtype == np.int64
    with pytest.raises(sx.ShapeError, match="square"):
        sx.linalg.matrix_power(sx.zeros((2, 3)), 2)


def test_multi_dot_order_and_vectors():
    a, b, c, d = rand((10,)), rand((10, 100)), rand((100, 5)), rand((5,))
    got = sx.linalg.multi_dot([a, b, c, d]).eval()
    np.testing.assert_allclose(got, np.linalg.multi_dot([a, b, c, d]), rtol=1e-10)
    ms = [rand((2, 50)), rand((50, 3)), rand((3, 40)), rand((40, 1))]
    out = sx.linalg.multi_dot([sx.constant(m) for m in ms])
    np.testing.assert_allclose(out.eval(), np.linalg.multi_dot(ms), rtol=1e-10)
    # the cheapest order for (2,50)(50,3)(3,40)(40,1) is A (B (C D)): 120 + 150 + 100 multiplications
    # (((A B) C) D costs 620, (A B)(C D) 426)
    shapes = {tuple(t.shape) for t in sx.topological_order([out]) if t.op == "matmul"}
    assert shapes == {(3, 1), (50, 1), (2, 1)}
    with pytest.raises(ValueError, match="at least two arrays"):
        sx.linalg.multi_dot([a])
    with pytest.raises(sx.ShapeError, match="do not match"):
        sx.linalg.multi_dot([rand((2, 3)), rand((4, 2))])


# ---- expm, expm_frechet ----


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("scale", [0.0, 0.01, 1.0, 10.0, 100.0])
def test_expm_matches_scipy(dtype, scale):
    if dtype == "float32" and scale == 100.0:
        pytest.skip("entries near e^200 overflow float32 (inf on both sides)")
    a = (scale * rand((2, 4, 4))).astype(dtype)
    ref, comp = both(sx.linalg.expm, a)
    want = np.stack([sla.expm(m.astype(np.float64)) for m in a])
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-11, atol=1e-12)
    if scale >= 10:  # entries up to e^(several tens): relative to the largest entry
        tol["atol"] = tol["rtol"] * np.abs(want).max()
    np.testing.assert_allclose(ref[0], want, **tol)
    np.testing.assert_allclose(comp[0], want, **tol)
    assert comp[0].dtype == np.dtype(dtype)


def test_expm_special_cases():
    np.testing.assert_array_equal(sx.linalg.expm(sx.zeros((3, 3))).eval(), np.eye(3))
    d = np.diag([1.0, -2.0, 0.5])
    np.testing.assert_allclose(sx.linalg.expm(sx.constant(d)).eval(), np.diag(np.exp([1.0, -2.0, 0.5])), rtol=1e-14)
    n = np.array([[0.0, 1.0], [0.0, 0.0]])  # nilpotent: I + N
    np.testing.assert_allclose(sx.linalg.expm(sx.constant(n)).eval(), [[1, 1], [0, 1]], atol=1e-15)
    assert sx.linalg.expm(sx.zeros((0, 0))).eval().shape == (0, 0)
    # a norm beyond theta13 * 2^20: NaN, not a wrong value
    big = sx.linalg.expm(sx.constant(np.diag([-1e7, -1e7]))).eval()
    assert np.isnan(big).all()


def test_expm_gradient_matches_frechet():
    # d sum(expm(a) * w) / da = L(a^T, w) (the adjoint of the Frechet derivative), from SciPy.
    for scale in [0.5, 8.0]:
        a = scale * rand((3, 3))
        w = RNG.standard_normal((3, 3))
        x = sx.placeholder((3, 3), "float64")
        (g,) = sx.grad(sx.sum(sx.linalg.expm(x) * w), [x])
        want = sla.expm_frechet(a.T, w, compute_expm=False)
        np.testing.assert_allclose(g.eval({x: a}), want, rtol=1e-9, atol=1e-10 * np.abs(want).max())


def test_expm_frechet_matches_scipy():
    a, e = rand((3, 3)), rand((3, 3))
    ea, lv = sx.linalg.expm_frechet(sx.constant(a), sx.constant(e))
    wa, wl = sla.expm_frechet(a, e)
    np.testing.assert_allclose(ea.eval(), wa, rtol=1e-12)
    np.testing.assert_allclose(lv.eval(), wl, rtol=1e-11, atol=1e-12)
    only = sx.linalg.expm_frechet(sx.constant(a), sx.constant(e), compute_expm=False)
    np.testing.assert_allclose(only.eval(), wl, rtol=1e-11, atol=1e-12)


# ---- tensorsolve, tensorinv, block_diag, aliases ----


def test_tensorsolve_and_tensorinv():
    a = (rand((6, 6)) + 6 * np.eye(6)).reshape(2, 3, 6)
    b = rand((2, 3))
    np.testing.assert_allclose(sx.linalg.tensorsolve(a, b).eval(), np.linalg.tensorsolve(a, b), rtol=1e-12)
    a2 = (rand((6, 6)) + 6 * np.eye(6)).reshape(2, 3, 2, 3)
    b2 = rand((2, 3))
    np.testing.assert_allclose(
        sx.linalg.tensorsolve(a2, b2, axes=(0,)).eval(), np.linalg.tensorsolve(a2, b2, axes=(0,)), rtol=1e-12
    )
    t = (rand((4, 4)) + 4 * np.eye(4)).reshape(4, 2, 2)
    np.testing.assert_allclose(sx.linalg.tensorinv(t, ind=1).eval(), np.linalg.tensorinv(t, ind=1), rtol=1e-12)
    with pytest.raises(sx.ShapeError, match="square system"):
        sx.linalg.tensorsolve(rand((2, 3, 4)), rand((2, 3)))
    with pytest.raises(sx.ShapeError, match="is not square"):
        sx.linalg.tensorinv(rand((4, 3)), ind=1)


def test_block_diag():
    a, b, c = rand((2, 2)), rand((1, 3)), np.arange(2.0)
    got = sx.linalg.block_diag(a, b, c, 7.0).eval()
    np.testing.assert_array_equal(got, sla.block_diag(a, b, c, 7.0))
    ints = sx.linalg.block_diag(np.array([[1, 2]], np.int32), np.array([[3]], np.int32)).eval()
    np.testing.assert_array_equal(ints, sla.block_diag(np.array([[1, 2]], np.int32), np.array([[3]], np.int32)))
    assert ints.dtype == np.int32
    assert sx.linalg.block_diag().eval().shape == sla.block_diag().shape


def test_numpy_linalg_aliases():
    x = rand((2, 3, 3))
    np.testing.assert_allclose(sx.linalg.diagonal(x, offset=1).eval(), np.linalg.diagonal(x, offset=1))
    np.testing.assert_allclose(sx.linalg.trace(x).eval(), np.linalg.trace(x))
    assert sx.linalg.trace(x, dtype="float32").eval().dtype == np.float32
    assert sx.linalg.cross is sx.cross and sx.linalg.vecdot is sx.vecdot and sx.linalg.tril is sx.tril
    assert sx.linalg.matrix_transpose is sx.matrix_transpose and sx.linalg.tensordot is sx.tensordot


# ---- errors common to every factorization ----


@pytest.mark.parametrize(
    "call",
    [
        lambda a: sx.linalg.qr(a),
        lambda a: sx.linalg.lu(a),
        lambda a: sx.linalg.lu_factor(a),
        lambda a: sx.linalg.cho_factor(a),
        lambda a: sx.linalg.expm(a),
        lambda a: sx.linalg.matrix_power(a, 2),
    ],
)
def test_one_dimensional_input_is_a_shape_error(call):
    with pytest.raises(sx.ShapeError, match="dimensions|square"):
        call(sx.zeros((3,)))


def test_compiled_singular_solve_and_inv_errors_name_the_batch_element():
    a = np.stack([np.eye(2), np.array([[1.0, 2.0], [2.0, 4.0]])]).astype(np.float32)
    x = sx.placeholder((2, 2, 2), "float32")
    for build, words in [
        (lambda t: sx.linalg.solve(t, np.ones((2, 2), np.float32)), "solve: the coefficient matrix is singular"),
        (lambda t: sx.linalg.inv(t), "inv: the matrix is singular"),
    ]:
        y = build(x)
        with pytest.raises(ValueError, match=words + r" \(batch element 1\).*test_linalg_factor.py") as ref_err:
            y.eval({x: a})
        f = sx.function([x], [y])
        with pytest.raises(ValueError, match=words + r" \(batch element 1\).*test_linalg_factor.py") as comp_err:
            f(a)
        assert str(ref_err.value) == str(comp_err.value)


@pytest.mark.parametrize(
    "build",
    [
        lambda x: sx.linalg.lu_factor(x)[0],
        lambda x: sx.linalg.lu(x)[2],
        lambda x: sx.linalg.expm(0.5 * x),
        lambda x: sx.linalg.cho_solve(sx.linalg.cho_factor(x @ sx.matrix_transpose(x) + 3 * np.eye(3)), np.ones(3)),
    ],
    ids=["lu_factor", "lu", "expm", "cho_solve"],
)
def test_second_derivatives(build):
    # grad of grad: the VJPs are graph ops; checked against finite differences of the first gradient.
    a = rand((3, 3)) + np.eye(3)
    x = sx.placeholder((3, 3), "float64")
    out = build(x)
    w = RNG.standard_normal(out.shape)
    v = RNG.standard_normal((3, 3))
    (g1,) = sx.grad(sx.sum(out * w), [x])
    c2 = sx.sum(g1 * v)
    (g2,) = sx.grad(c2, [x])
    np.testing.assert_allclose(g2.eval({x: a}), numeric_grad(lambda y: float(c2.eval({x: y})), a), rtol=1e-5, atol=1e-6)

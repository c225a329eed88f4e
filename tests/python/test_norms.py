"""linalg.norm / vector_norm / matrix_norm beyond the conformance table: the gradient where the
formula is 0/0 (x = 0: PyTorch's subgradient 0), Tensor.norm, compiled against NumPy, and the errors."""

import numpy as np
import pytest

import symx as sx


@pytest.mark.parametrize("ord", [None, 2, 3, 0.5])
def test_gradient_at_zero_is_zero(ord):
    # torch.linalg.vector_norm(torch.zeros(3, requires_grad=True), ord).backward() gives zeros.
    z = sx.placeholder((3,), "float32", name="z")
    (g,) = sx.grad(sx.linalg.norm(z, ord), [z])
    np.testing.assert_array_equal(g.eval({z: np.zeros(3, np.float32)}), np.zeros(3, np.float32))
    # and the formula elsewhere: x / |x| for the 2-norm
    x = np.array([3.0, -4.0, 0.0], np.float32)
    if ord in (None, 2):
        np.testing.assert_allclose(g.eval({z: x}), x / 5.0, rtol=1e-6)


def test_gradient_of_a_row_with_a_zero_row():
    # One row all zeros, one not: the zero row's gradient is 0, the other row's x / |x|.
    m = sx.placeholder((2, 3), "float64", name="m")
    (g,) = sx.grad(sx.sum(sx.linalg.norm(m, axis=1)), [m])
    x = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]])
    np.testing.assert_allclose(g.eval({m: x}), [[0, 0, 0], [1 / 3, 2 / 3, 2 / 3]])


def test_tensor_method_and_compiled():
    x = sx.placeholder((None, 4), "float32", name="x")
    f = sx.function([x], [x.norm(axis=1), x.norm(), x.norm(np.inf), sx.linalg.matrix_norm(x, ord=-1)])
    a = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    for got, want in zip(
        f(a),
        [np.linalg.norm(a, axis=1), np.linalg.norm(a), np.linalg.norm(a, np.inf), np.linalg.norm(a, -1)],
    ):
        np.testing.assert_allclose(got, want, rtol=1e-5)
        assert got.dtype == np.float32


def test_integers_compute_in_float32():
    v = sx.constant(np.array([3, 4], np.int32))
    out = sx.linalg.norm(v).eval()
    assert out.dtype == np.float32 and out == 5.0


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m, v: sx.linalg.norm(v, "fro"), "for vectors"),
        (lambda m, v: sx.linalg.norm(m, "abc"), "invalid norm order 'abc'"),
        (lambda m, v: sx.linalg.norm(sx.zeros((2, 2, 2)), 1), "3 dimensions"),
        (lambda m, v: sx.linalg.norm(m, axis=(0, 0)), "same axis twice"),
        (lambda m, v: sx.linalg.norm(m, axis=(0, 1, 1)), "one or two axes"),
        (lambda m, v: sx.linalg.matrix_norm(v), "at least 2 dimensions"),
        (lambda m, v: sx.linalg.vector_norm(v, ord="fro"), "invalid norm order 'fro'"),
    ],
)
def test_errors_say_what_to_do(call, message):
    m = sx.placeholder((3, 4), "float32", name="m")
    v = sx.placeholder((4,), "float32", name="v")
    with pytest.raises(ValueError, match=message):
        call(m, v)


def test_power_iteration_and_spectral_normalize_against_numpy_svd():
    rng = np.random.default_rng(1)
    w = rng.standard_normal((6, 4))
    sigma = np.linalg.svd(w, compute_uv=False)[0]
    u, v = sx.linalg.singular_vectors_power_iteration(sx.constant(w), n_iters=60)
    np.testing.assert_allclose(float(sx.dot(u, sx.matmul(sx.constant(w), v)).eval()), sigma, rtol=1e-8)
    conv = rng.standard_normal((5, 3, 2, 2))  # (out, in, h, w): the matrix is (5, 12)
    wn = sx.normalization.spectral_normalize(sx.constant(conv), axis=0, n_iters=60).eval()
    assert wn.shape == conv.shape
    np.testing.assert_allclose(np.linalg.svd(wn.reshape(5, -1), compute_uv=False)[0], 1.0, rtol=1e-8)
    assert sx.normalization.normalize is sx.nn.normalize
    # the gradient holds u and v constant: d(w / sigma) with sigma = u^T W v as a function of W only
    x = sx.placeholder((3, 2), "float64", name="x")
    (g,) = sx.grad(sx.sum(sx.normalization.spectral_normalize(x, n_iters=50)), [x])
    assert np.all(np.isfinite(g.eval({x: rng.standard_normal((3, 2))})))
    with pytest.raises(ValueError, match="n_iters must be at least 1"):
        sx.linalg.singular_vectors_power_iteration(sx.constant(w), n_iters=0)
    with pytest.raises(sx.ShapeError, match="expects a matrix"):
        sx.linalg.singular_vectors_power_iteration(sx.constant(conv))

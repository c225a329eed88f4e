// symx/linalg.hpp: the spectral decompositions (symmetric eigendecomposition, singular value
// decomposition) and the functions built on them (pinv, matrix_rank, cond, lstsq), as numpy.linalg's,
// batched over the leading axes, float32 and float64 (integer and bool inputs are computed in float32).
//
// eigh, eigvalsh, svd and svdvals are primitives (LAPACK's syevd and gesdd, per batch element, in the
// input's precision when compiled); the others are graphs of them, so their gradients come from the
// primitives' rules, which are JAX's (jax/_src/lax/linalg.py eigh_jvp_rule, svd_jvp_rule) transposed:
// - eigh: ga = v (diag(gw) + F * (v^T gv)) v^T with F_ij = 1 / (w_j - w_i) off the diagonal. Where two
//   eigenvalues are equal F_ij is 0 (the tie is masked, finite where the bare formula gives inf or NaN;
//   "equal" is within n * eps * max|w|, since rounding splits an exact repeat): the gradients of the eigenvalues and of
//   projectors v v^T onto whole eigenspaces are then right; a function of the eigenvectors of a repeated eigenvalue
//   alone has no derivative there and gets the masked value; and a smooth function such as v diag(f(w)) v^T loses the
//   part of its gradient inside the repeated eigenspace (f'(w) there), as JAX's masked rule does.
// - svd: F_ij = 1 / (s_j^2 - s_i^2), masked where s_i == s_j (the same caveat at repeated singular
//   values), and 1 / s masked where s <= k * eps * max(s) (the terms of non-square matrices). Gradients need
//   full_matrices=False: with full_matrices=True a gradient that reaches u or vh is an error (as JAX's), one that
//   reaches only s works.
// - eigvalsh, svdvals: v diag(g) v^T and u diag(g) vh, finite at repeated and zero values too.
// The rules are graph ops, so gradients can be differentiated again.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "symx/ops.hpp"

namespace symx::linalg {

// Eigenvalues (ascending) and eigenvectors (the columns of v) of symmetric matrices, as
// numpy.linalg.eigh: a (..., n, n) is read from its lower triangle (UPLO "L") or upper one ("U");
// returns w (..., n) and v (..., n, n) with a = v diag(w) v^T; each eigenvector's entries sum to > 0.
// Example: auto [w, v] = linalg::eigh(constant(Array::from_vector<double>({2, 1, 1, 2}, {2, 2}))); w is [1, 3]
// Python: w, v = sx.linalg.eigh(sx.constant([[2.0, 1.0], [1.0, 2.0]])); w.eval() is [1.0, 3.0]
std::pair<Tensor, Tensor> eigh(const Tensor& a, const std::string& UPLO = "L", Loc loc = Loc::current());

// Eigenvalues (ascending) of symmetric matrices, as numpy.linalg.eigvalsh (a read from the triangle
// UPLO names); returns (..., n). Its gradient is v diag(g) v^T, right at repeated eigenvalues too.
// Example: linalg::eigvalsh(a) of a = [[2, 1], [1, 2]] is [1, 3]
// Python: sx.linalg.eigvalsh(sx.constant([[2.0, 1.0], [1.0, 2.0]])).eval() is [1.0, 3.0]
Tensor eigvalsh(const Tensor& a, const std::string& UPLO = "L", Loc loc = Loc::current());

// Singular value decomposition a = u diag(s) vh, as numpy.linalg.svd: a (..., m, n); s (..., k) with
// k = min(m, n), descending; with full_matrices u is (..., m, m) and vh (..., n, n), else (..., m, k) and
// (..., k, n). Gradients need full_matrices=false (see the header's comment). Python's compute_uv=False
// returns svdvals(a). hermitian: a is symmetric, decomposed through eigh as NumPy's (s = |w| sorted
// descending, the signs of w moved into vh; full_matrices does not matter then).
// Example: auto [u, s, vh] = linalg::svd(a, false); s of a = [[3, 0], [0, -2]] is [3, 2]
// Python: u, s, vh = sx.linalg.svd(sx.constant([[3.0, 0.0], [0.0, -2.0]])); s.eval() is [3.0, 2.0]
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& a, bool full_matrices = true, bool hermitian = false,
                                       Loc loc = Loc::current());

// Singular values (descending) of a (..., m, n), as scipy.linalg.svdvals / numpy.linalg.svdvals;
// returns (..., min(m, n)). Its gradient is u diag(g) vh.
// Example: linalg::svdvals(a) of a = [[3, 0], [0, -2]] is [3, 2]
// Python: sx.linalg.svdvals(sx.constant([[3.0, 0.0], [0.0, -2.0]])).eval() is [3.0, 2.0]
Tensor svdvals(const Tensor& a, Loc loc = Loc::current());

// Moore-Penrose pseudo-inverse, as numpy.linalg.pinv: singular values at most rtol * the largest are
// treated as zero (rtol: NumPy's rtol=None, max(m, n) * eps of the dtype, when not given; Python's
// pinv(a, rcond=None, hermitian=False, *, rtol) follows NumPy: 1e-15 when neither is given); hermitian
// uses eigh. a (..., m, n); returns (..., n, m). Differentiable where the rank does not change.
// Example: linalg::pinv(a) of a = [[2, 0], [0, 0]] is [[0.5, 0], [0, 0]]
// Python: sx.linalg.pinv(sx.constant([[2.0, 0.0], [0.0, 0.0]])).eval() is [[0.5, 0.0], [0.0, 0.0]]
Tensor pinv(const Tensor& a, std::optional<double> rtol = std::nullopt, bool hermitian = false,
            Loc loc = Loc::current());

// The number of singular values above tol (default: the largest times max(m, n) * eps, or times rtol
// when given), as numpy.linalg.matrix_rank; a (..., m, n) (a 1-D a: 1 unless it is all zeros); int64
// of the batch shape, no gradient.
// Example: linalg::matrix_rank(a) of a = [[1, 2], [2, 4]] is 1
// Python: sx.linalg.matrix_rank(sx.constant([[1.0, 2.0], [2.0, 4.0]])).eval() is 1
Tensor matrix_rank(const Tensor& a, std::optional<double> tol = std::nullopt, bool hermitian = false,
                   std::optional<double> rtol = std::nullopt, Loc loc = Loc::current());

// Condition number, as numpy.linalg.cond: p "" or "2" is s_max / s_min (inf for a singular matrix), "-2"
// s_min / s_max, from the singular values; "fro", "nuc", "1", "-1", "inf", "-inf" are
// norm(x, p) * norm(inv(x), p) (square x; a singular x is then an error of inv).
// Example: linalg::cond(a) of a = [[2, 0], [0, 1]] is 2
// Python: sx.linalg.cond(sx.constant([[2.0, 0.0], [0.0, 1.0]])).eval() is 2.0
Tensor cond(const Tensor& x, const std::string& p = "", Loc loc = Loc::current());

// Least-squares solution x of a x = b, as numpy.linalg.lstsq, through the SVD: returns (x, residuals,
// rank, s). a (..., m, n); b (..., m) or (..., m, k); x (..., n) or (..., n, k), differentiable;
// residuals: the squared 2-norms of the columns of b - a x, (..., k) ((..., 1) for a vector b), empty
// (..., 0) when m <= n as NumPy's; NumPy also empties it when the rank is below n, which a graph's
// static shape cannot follow: symx returns the sums then. rank: int64 (...); s: (..., min(m, n)).
// Singular values at most rcond * the largest count as zero (rcond defaults to max(m, n) * eps).
// Example: auto [x, res, rank, s] = linalg::lstsq(a, b)
// Python: x, res, rank, s = sx.linalg.lstsq(sx.constant([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]), [1.0, 2.0, 3.0])
std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& a, const Tensor& b,
                                                 std::optional<double> rcond = std::nullopt, Loc loc = Loc::current());

// ---- orthogonalization (SymJAX's helpers) ----
// Gram-Schmidt orthogonalization of the rows of V (k, n), as SymJAX's gram_schmidt: row i minus its
// projections on the rows before it (classical Gram-Schmidt, all projections of the original row), then
// divided by its 2-norm when normalize. A composite of dot products, differentiable.
// Example: linalg::gram_schmidt(V) of V (3, 5) has orthonormal rows spanning V's first rows
// Python: sx.linalg.gram_schmidt(V) of V (3, 5) is (3, 5) with orthonormal rows
Tensor gram_schmidt(const Tensor& V, bool normalize = true, Loc loc = Loc::current());
// Modified Gram-Schmidt of the rows of V (k, n), as SymJAX's modified_gram_schmidt: each row's projections
// removed one after the other (numerically steadier than gram_schmidt), normalized.
// Example: linalg::modified_gram_schmidt(V) of V (3, 5) has orthonormal rows
// Python: sx.linalg.modified_gram_schmidt(V) of V (3, 5) is (3, 5) with orthonormal rows
Tensor modified_gram_schmidt(const Tensor& V, Loc loc = Loc::current());
// SymJAX's eigenvector_power_iteration: an approximation of the leading eigenvector of the square matrix
// `weight` (the eigenvalue of largest magnitude), n_iters steps u = normalize(W^T u) from a normal draw
// (fresh on each evaluation); axis is accepted for SymJAX's signature.
// Example: linalg::eigenvector_power_iteration(w, 0, 50) of a symmetric w (4, 4) is (4,)
// Python: sx.linalg.eigenvector_power_iteration(w, n_iters=50) of a symmetric w (4, 4) is (4,)
Tensor eigenvector_power_iteration(const Tensor& weight, int axis = 0, int n_iters = 1, Loc loc = Loc::current());

}  // namespace symx::linalg

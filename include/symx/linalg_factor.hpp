// symx/linalg_factor.hpp: QR and LU factorizations, the solves built on them and on Cholesky, and the
// matrix functions composed from products and solves (matrix_power, multi_dot, expm, tensorsolve,
// tensorinv, block_diag), with NumPy's and SciPy's signatures.
//
// Every function takes float32 or float64 matrices in the last two axes and is batched over the
// leading axes (integers and bool are computed in float32). qr and lu_factor are primitives (LAPACK
// geqrf/orgqr and getrf in the input's precision in compiled programs); the others are graphs of
// primitives, so they fuse and differentiate like any other graph. Gradients: qr (mode "reduced", any
// shape; "complete" for m <= n), lu and lu_factor (any shape), the solves, expm; all are graph ops, so
// they can be differentiated again.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "symx/ops.hpp"

namespace symx::linalg {

// QR factorization a = q r, as numpy.linalg.qr: mode "reduced" (q (..., m, k), r (..., k, n), k =
// min(m, n)), "complete" (q (..., m, m), r (..., m, n)) or "r" (only r, (..., k, n)); returns {q, r},
// or {r} for mode "r". The signs are LAPACK's (NumPy's): r's diagonal may be negative. Gradient: mode
// "reduced" and "r" (as PyTorch's; JAX's covers m >= n), "complete" only when m <= n (q is then
// unique); otherwise an error says so.
// Example: auto qr_ = linalg::qr(a); matmul(qr_[0], qr_[1]) is a
// Python: q, r = sx.linalg.qr(a); r = sx.linalg.qr(a, mode="r")
std::vector<Tensor> qr(const Tensor& a, const std::string& mode = "reduced", Loc loc = Loc::current());

// LU factorization with partial pivoting, as scipy.linalg.lu: returns {p, l, u} with a = p l u (p
// (..., m, m) a permutation matrix, l (..., m, k) unit lower triangular, u (..., k, n) upper, k =
// min(m, n)), or {p l, u} when permute_l. Gradient through l and u (p is piecewise constant).
// Example: auto plu = linalg::lu(a); matmul(plu[0], matmul(plu[1], plu[2])) is a
// Python: p, l, u = sx.linalg.lu(a); pl, u = sx.linalg.lu(a, permute_l=True)
std::vector<Tensor> lu(const Tensor& a, bool permute_l = false, Loc loc = Loc::current());

// The compact LU factorization of scipy.linalg.lu_factor: {lu, piv}, lu (..., m, n) holding l below
// the diagonal (its unit diagonal not stored) and u on and above it, piv (..., k) int32 the 0-based
// row interchanges (row i was swapped with row piv[i]), as SciPy's. Gradient through lu.
// Example: auto [f, piv] = linalg::lu_factor(a); linalg::lu_solve(f, piv, b) solves a x = b
// Python: lu, piv = sx.linalg.lu_factor(a)
std::pair<Tensor, Tensor> lu_factor(const Tensor& a, Loc loc = Loc::current());

// x with a x = b (trans 0), a^T x = b (trans 1 or 2: real matrices) from lu_factor's {lu, piv}, as
// scipy.linalg.lu_solve((lu, piv), b, trans). lu: (..., n, n); b: (..., n) or (..., n, k). Gradient
// with respect to lu and b (through triangular solves).
// Example: auto [f, piv] = linalg::lu_factor(a); linalg::lu_solve(f, piv, b)
// Python: x = sx.linalg.lu_solve(sx.linalg.lu_factor(a), b)
Tensor lu_solve(const Tensor& lu, const Tensor& piv, const Tensor& b, int trans = 0, Loc loc = Loc::current());

// The permutation the row interchanges `pivots` (int32 (..., k), 0-based, as lu_factor's) make of
// 0..permutation_size-1, as jax.lax.linalg.lu_pivots_to_permutation: row i of l u is row perm[i] of a.
// int32 (..., permutation_size); no gradient.
// Example: linalg::lu_pivots_to_permutation(piv, 3)
// Python: perm = sx.linalg.lu_pivots_to_permutation(piv, 3)
Tensor lu_pivots_to_permutation(const Tensor& pivots, std::int64_t permutation_size, Loc loc = Loc::current());

// The Cholesky factor of scipy.linalg.cho_factor: {c, lower}, c upper triangular with a = c^T c (lower
// false, SciPy's default) or lower with a = c c^T; the other triangle is zero (SciPy leaves it
// unspecified). a: symmetric positive definite (..., n, n).
// Example: auto [c, low] = linalg::cho_factor(a); linalg::cho_solve(c, low, b) solves a x = b
// Python: c, lower = sx.linalg.cho_factor(a)
std::pair<Tensor, bool> cho_factor(const Tensor& a, bool lower = false, Loc loc = Loc::current());

// x with a x = b from cho_factor's (c, lower), as scipy.linalg.cho_solve((c, lower), b): two
// triangular solves, reading only the named triangle of c. b: (..., n) or (..., n, k).
// Example: linalg::cho_solve(c, false, b)
// Python: x = sx.linalg.cho_solve(sx.linalg.cho_factor(a), b)
Tensor cho_solve(const Tensor& c, bool lower, const Tensor& b, Loc loc = Loc::current());

// The n-th power of square matrices, as numpy.linalg.matrix_power: repeated squaring; n = 0 gives
// the identity, n < 0 the power of inv(a). Integer a keeps its dtype for n >= 0.
// Example: linalg::matrix_power(a, 3) is matmul(a, matmul(a, a))
// Python: sx.linalg.matrix_power(a, 3)
Tensor matrix_power(const Tensor& a, std::int64_t n, Loc loc = Loc::current());

// The product of two or more matrices in the cheapest order (the dynamic program of
// numpy.linalg.multi_dot); the first may be 1-D (a row), the last 1-D (a column).
// Example: linalg::multi_dot({a, b, c}) is matmul(matmul(a, b), c) computed in the cheapest order
// Python: sx.linalg.multi_dot([a, b, c])
Tensor multi_dot(const std::vector<Tensor>& arrays, Loc loc = Loc::current());

// The matrix exponential of square matrices, as scipy.linalg.expm: scaling and squaring with the
// Pade approximant of degree 13 (Higham 2005, as JAX's expm for float64). The number of squarings s
// is chosen per batch element from the 1-norm when the graph runs (up to 20: norms up to ~5e6); the
// approximant is computed for a / 2^s and squared s times (selects over a fixed 20 squarings, so the
// graph is static). Gradient through this graph.
// Example: linalg::expm(zeros({2, 2})) is the identity
// Python: sx.linalg.expm(a)
Tensor expm(const Tensor& a, Loc loc = Loc::current());

// {expm(a), the Frechet derivative of expm at a in direction e}, as scipy.linalg.expm_frechet: both
// from the exponential of the block matrix [[a, e], [0, a]].
// Example: auto [ea, l] = linalg::expm_frechet(a, e)
// Python: ea, l = sx.linalg.expm_frechet(a, e)
std::pair<Tensor, Tensor> expm_frechet(const Tensor& a, const Tensor& e, Loc loc = Loc::current());

// x with tensordot(a, x, x.ndim) = b, as numpy.linalg.tensorsolve: the axes of a not matched by b
// (moved to the end first when `axes` names some) make x's shape; solved as one square system.
// Example: linalg::tensorsolve(a, b) for a (2, 3, 6) and b (2, 3) has shape (6,)
// Python: x = sx.linalg.tensorsolve(a, b)
Tensor tensorsolve(const Tensor& a, const Tensor& b, std::optional<std::vector<int>> axes = std::nullopt,
                   Loc loc = Loc::current());

// The inverse of a tensor for tensordot over `ind` axes, as numpy.linalg.tensorinv: a's shape
// split at ind gives an (m, m) matrix; the result has shape a.shape[ind:] + a.shape[:ind].
// Example: linalg::tensorinv(a, 1) for a (4, 2, 2) has shape (2, 2, 4)
// Python: sx.linalg.tensorinv(a, ind=1)
Tensor tensorinv(const Tensor& a, int ind = 2, Loc loc = Loc::current());

// The block-diagonal matrix of the given arrays (0-D, 1-D rows and 2-D), as scipy.linalg.block_diag,
// in their promoted dtype.
// Example: linalg::block_diag({a, b}) for a (2, 2) and b (1, 3) is (3, 5)
// Python: sx.linalg.block_diag(a, b)
Tensor block_diag(const std::vector<Tensor>& arrays, Loc loc = Loc::current());

// Doc linalg::diagonal: The diagonal at `offset` of the matrices in the last two axes, as
// numpy.linalg.diagonal(x, offset=0): symx.diagonal(x, offset, -2, -1).
// Example: linalg.diagonal(x) of x with shape (5, 3, 3) has shape (5, 3)
// Python: sx.linalg.diagonal(sx.eye(3)).eval() is [1, 1, 1]

// Doc linalg::trace: The sum of the diagonal at `offset` of the matrices in the last two axes, as
// numpy.linalg.trace(x, offset=0, dtype=None): symx.trace(x, offset, -2, -1), cast to dtype if given.
// Example: linalg.trace(x) of x with shape (5, 3, 3) has shape (5,)
// Python: sx.linalg.trace(sx.eye(3)).eval() is 3.0

}  // namespace symx::linalg

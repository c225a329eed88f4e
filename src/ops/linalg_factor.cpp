// Factorizations (symx/linalg_factor.hpp): the rows qr, lu_factor and lu_pivots_to_permutation, and
// the composites built on them and on cholesky / triangular_solve (lu, lu_solve, cho_factor,
// cho_solve, matrix_power, multi_dot, expm, expm_frechet, tensorsolve, tensorinv, block_diag).
//
// Multiple results are packed into one output, as slogdet's pair: a qr node (modes "reduced" and
// "complete") holds q in its first kq columns and r in the first kq rows of the next n columns of
// an (..., m, kq + n) array; a lu_factor node holds the compact lu in its first n columns, then the
// 0-based row interchanges (rows 0..k-1 of column n) and the permutation they make (column n + 1).
// The public functions slice the parts out, so gradients reach the node through one cotangent.
//
// Reference evaluation: LAPACKE (geqrf + orgqr, getrf) on one batch element at a time, in double
// precision. Compiled programs call LAPACK in the input's precision (runtime/library_linalg.cpp).
// Every vector-Jacobian rule is built from graph ops (matmul, triangular solves, masks), so
// gradients can be differentiated again.
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

#include "ops/op_table.hpp"
#include "symx/arrays.hpp"
#include "symx/linalg_factor.hpp"
#include "symx/numpy.hpp"

namespace symx {
namespace ops {
namespace {

Shape batch_of(const Shape& s) { return Shape(s.begin(), s.end() - 2); }

Tensor mT(const Tensor& x) {
  std::vector<int> perm(static_cast<std::size_t>(x.ndim()));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return transpose(x, perm);
}

[[noreturn]] void eval_error(const Node& node, const std::string& problem, const std::string& fix) {
  std::string message = std::string(op_name(node.op)) + ": " + problem;
  if (!node.where.empty()) message += ", at " + node.where;
  message += ". " + fix;
  throw ValueError(message);
}

void require_matrix(const Tensor& a, const char* op) {
  if (!is_floating(a.dtype()))
    fail_dtype(std::string("the matrix must be floating-point, got ") + std::string(dtype_name(a.dtype())),
               "Cast it with astype(float32) or astype(float64).");
  if (a.ndim() < 2)
    fail_shape("the matrix must have at least 2 dimensions (..., m, n), got shape " + shape_string(a.shape()),
               "Pass a matrix or a stack of matrices.");
  const Shape& s = a.shape();
  if (is_symbol(s[s.size() - 1]) || is_symbol(s[s.size() - 2]))
    fail_shape(std::string(op) + " needs known matrix sizes (the last two axes), got shape " + shape_string(s),
               "Give the placeholder fixed sizes in its last two axes.");
}

// ---- qr ----

enum QrMode : int { kReduced = 0, kComplete = 1, kROnly = 2 };

struct QrDims {
  std::int64_t m, n, k, kq;  // k = min(m, n); kq: the columns of q (and rows of r)
};
QrDims qr_dims(const Shape& s, int mode) {
  std::int64_t m = s[s.size() - 2], n = s[s.size() - 1], k = std::min(m, n);
  return {m, n, k, mode == kComplete ? m : k};
}

TensorType infer_qr(const std::vector<Tensor>& in, const Attr& attr) {
  require_matrix(in[0], "qr");
  int mode = std::get<AxisAttr>(attr).axis;
  check_internal(mode >= 0 && mode <= 2, "qr: bad mode");
  QrDims d = qr_dims(in[0].shape(), mode);
  Shape out = batch_of(in[0].shape());
  if (mode == kROnly) {
    out.push_back(d.k);
    out.push_back(d.n);
  } else {
    out.push_back(d.m);
    out.push_back(d.kq + d.n);
  }
  return {out, in[0].dtype()};
}

Array eval_qr(const EvalArgs& args) {
  const Array& a = args.inputs[0];
  int mode = std::get<AxisAttr>(args.node.attr).axis;
  QrDims d = qr_dims(a.shape(), mode);
  const std::int64_t count = num_elements(batch_of(a.shape()));
  const std::int64_t width = mode == kROnly ? d.n : d.kq + d.n, rows = mode == kROnly ? d.k : d.m;
  std::vector<double> av = a.to_vector();
  std::vector<double> out(static_cast<std::size_t>(count * rows * width), 0.0);
  std::vector<double> A(static_cast<std::size_t>(d.m * d.n)), Q(static_cast<std::size_t>(d.m * d.kq)),
      tau(static_cast<std::size_t>(std::max<std::int64_t>(d.k, 1)));
  for (std::int64_t b = 0; b < count; ++b) {
    std::copy_n(av.begin() + b * d.m * d.n, d.m * d.n, A.begin());
    if (d.k > 0) {
      lapack_int info = LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, static_cast<lapack_int>(d.m), static_cast<lapack_int>(d.n),
                                       A.data(), static_cast<lapack_int>(d.n), tau.data());
      check_internal(info == 0, "geqrf: invalid argument");
    }
    double* O = out.data() + b * rows * width;
    const std::int64_t r0 = mode == kROnly ? 0 : d.kq;  // r's first column in the packed row
    for (std::int64_t i = 0; i < std::min(d.k, rows); ++i)
      for (std::int64_t j = i; j < d.n; ++j) O[i * width + r0 + j] = A[static_cast<std::size_t>(i * d.n + j)];
    if (mode == kROnly) continue;
    std::fill(Q.begin(), Q.end(), 0.0);
    for (std::int64_t i = 0; i < d.m; ++i)
      for (std::int64_t j = 0; j < d.k; ++j)
        Q[static_cast<std::size_t>(i * d.kq + j)] = A[static_cast<std::size_t>(i * d.n + j)];
    if (d.kq > 0) {
      if (d.k > 0) {
        lapack_int info =
            LAPACKE_dorgqr(LAPACK_ROW_MAJOR, static_cast<lapack_int>(d.m), static_cast<lapack_int>(d.kq),
                           static_cast<lapack_int>(d.k), Q.data(), static_cast<lapack_int>(d.kq), tau.data());
        check_internal(info == 0, "orgqr: invalid argument");
      } else {
        for (std::int64_t i = 0; i < d.kq; ++i) Q[static_cast<std::size_t>(i * d.kq + i)] = 1;  // no reflectors
      }
    }
    for (std::int64_t i = 0; i < d.m; ++i)
      for (std::int64_t j = 0; j < d.kq; ++j) O[i * width + j] = Q[static_cast<std::size_t>(i * d.kq + j)];
  }
  return Array::from_vector(out, args.node.type.shape).astype(args.node.type.dtype);
}

Tensor qr_node(const Tensor& a, int mode) { return make_node(OpKind::Qr, {a}, AxisAttr{mode}); }

Tensor last2(const Tensor& x, Index rows, Index cols) { return slice(x, {Index::ellipsis(), rows, cols}); }
Tensor cols(const Tensor& x, std::int64_t from, std::int64_t to) {
  return last2(x, Index::all(), Index::range(from, to));
}
Tensor rows(const Tensor& x, std::int64_t from, std::int64_t to) {
  return last2(x, Index::range(from, to), Index::all());
}
// x R^-T for upper-triangular square R: (R^-1 x^T)^T.
Tensor right_solve_upper_t(const Tensor& x, const Tensor& r) {
  return mT(make_node(OpKind::TriangularSolve, {r, mT(x)}, TriangularSolveAttr{false, false, false}));
}

// The gradient of a reduced QR a = q r with m >= n (r square): with M = gR r^T - q^T gQ,
// gA = (gQ + q (triu(M) + triu(M, 1)^T)) r^-T (from q^T da r^-1 = C + dr r^-1, C = q^T dq skew;
// the formula of Walter and Lehmann, and PyTorch's linalg_qr_backward). `gq` may be undefined
// (mode "r": no cotangent for q).
Tensor qr_backward_tall(const Tensor& q, const Tensor& r, const Tensor& gq, const Tensor& gr) {
  Tensor M = matmul(gr, mT(r));
  if (gq.defined()) M = M - matmul(mT(q), gq);
  Tensor ga = matmul(q, triu(M) + mT(triu(M, 1)));
  if (gq.defined()) ga = ga + gq;
  return right_solve_upper_t(ga, r);
}

// Any reduced QR: m >= n directly; m < n by the partition a = [x | y], r = [u | v] (x = q u square).
Tensor qr_backward(const Tensor& a, const Tensor& q, const Tensor& r, Tensor gq, const Tensor& gr) {
  std::int64_t m = a.shape()[a.shape().size() - 2], n = a.shape().back();
  if (m >= n) return qr_backward_tall(q, r, gq, gr);
  Tensor y = cols(a, m, n), u = cols(r, 0, m), gu = cols(gr, 0, m), gv = cols(gr, m, n);
  Tensor yv = matmul(y, mT(gv));
  gq = gq.defined() ? gq + yv : yv;
  Tensor gx = qr_backward_tall(q, u, gq, gu);
  Tensor gy = matmul(q, gv);
  return concatenate({gx, gy}, -1);
}

std::vector<Tensor> vjp_qr(const Tensor& out, const Tensor& g) {
  const Tensor& a = out.node().inputs[0];
  int mode = std::get<AxisAttr>(out.node().attr).axis;
  QrDims d = qr_dims(a.shape(), mode);
  if (mode == kROnly) {
    Tensor full = qr_node(a, kReduced);
    return {qr_backward(a, cols(full, 0, d.k), last2(full, Index::range(0, d.k), Index::range(d.k, d.k + d.n)),
                        Tensor(), g)};
  }
  if (mode == kComplete && d.m > d.n)
    throw ValueError(
        "qr: the gradient of mode 'complete' is defined only for m <= n (got a " + std::to_string(d.m) + "x" +
        std::to_string(d.n) +
        " matrix: the last m - n columns of q are not unique, as JAX and PyTorch also refuse). Use mode 'reduced'.");
  Tensor q = cols(out, 0, d.kq), r = last2(out, Index::range(0, d.kq), Index::range(d.kq, d.kq + d.n));
  Tensor gq = cols(g, 0, d.kq), gr = last2(g, Index::range(0, d.kq), Index::range(d.kq, d.kq + d.n));
  return {qr_backward(a, q, r, gq, gr)};
}

// ---- lu_factor ----

TensorType infer_lu_factor(const std::vector<Tensor>& in, const Attr&) {
  require_matrix(in[0], "lu_factor");
  Shape out = in[0].shape();
  out.back() += 2;
  return {out, in[0].dtype()};
}

Array eval_lu_factor(const EvalArgs& args) {
  const Array& a = args.inputs[0];
  const Shape& s = a.shape();
  const std::int64_t m = s[s.size() - 2], n = s.back(), k = std::min(m, n), w = n + 2;
  const std::int64_t count = num_elements(batch_of(s));
  std::vector<double> av = a.to_vector();
  std::vector<double> out(static_cast<std::size_t>(count * m * w), 0.0);
  std::vector<double> A(static_cast<std::size_t>(m * n));
  std::vector<lapack_int> ipiv(static_cast<std::size_t>(std::max<std::int64_t>(k, 1)));
  std::vector<std::int64_t> perm(static_cast<std::size_t>(m));
  for (std::int64_t b = 0; b < count; ++b) {
    std::copy_n(av.begin() + b * m * n, m * n, A.begin());
    if (k > 0) {
      // info > 0 (an exactly zero pivot) still gives the factorization, as SciPy's lu_factor.
      lapack_int info = LAPACKE_dgetrf(LAPACK_ROW_MAJOR, static_cast<lapack_int>(m), static_cast<lapack_int>(n),
                                       A.data(), static_cast<lapack_int>(n), ipiv.data());
      check_internal(info >= 0, "getrf: invalid argument");
    }
    std::iota(perm.begin(), perm.end(), 0);
    for (std::int64_t i = 0; i < k; ++i)
      std::swap(perm[static_cast<std::size_t>(i)],
                perm[static_cast<std::size_t>(ipiv[static_cast<std::size_t>(i)] - 1)]);
    double* O = out.data() + b * m * w;
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) O[i * w + j] = A[static_cast<std::size_t>(i * n + j)];
      O[i * w + n] = i < k ? static_cast<double>(ipiv[static_cast<std::size_t>(i)] - 1) : 0.0;
      O[i * w + n + 1] = static_cast<double>(perm[static_cast<std::size_t>(i)]);
    }
  }
  return Array::from_vector(out, args.node.type.shape).astype(args.node.type.dtype);
}

// The unit-lower l (m, k) and upper u (k, n) of a compact lu (m, n).
std::pair<Tensor, Tensor> split_lu(const Tensor& lu) {
  std::int64_t m = lu.shape()[lu.shape().size() - 2], n = lu.shape().back(), k = std::min(m, n);
  Tensor l = tril(cols(lu, 0, k), -1) + eye(m, k, 0, lu.dtype());
  Tensor u = triu(rows(lu, 0, k));
  return {l, u};
}

// x l^-T... helpers for the LU gradient: l^-T x (unit lower l) and x u^-T (upper square u).
Tensor left_solve_unit_lower_t(const Tensor& l, const Tensor& x) {
  return make_node(OpKind::TriangularSolve, {l, x}, TriangularSolveAttr{true, true, true});
}

// The gradient of a = p l u (PyTorch's linalg_lu_backward, derived for the three shapes): with
// gl = tril(g, -1) and gu = triu(g) the cotangents of l and u read from the compact lu's cotangent,
// square: gA = p l^-T (tril(l^T gl, -1) + triu(gu u^T)) u^-T;
// tall (m > n, l = [l1; l2]): gA = p [l1^-T M u^-T; gl2 u^-T], M = tril(l1^T gl1, -1) + triu(gu u^T - l2^T gl2);
// wide (m < n, u = [u1 u2]): gA = p [l^-T M u1^-T, l^-T gu2], M = tril(l^T gl - gu2 u2^T, -1) + triu(gu1 u1^T).
std::vector<Tensor> vjp_lu_factor(const Tensor& out, const Tensor& g) {
  const Tensor& a = out.node().inputs[0];
  const std::int64_t m = a.shape()[a.shape().size() - 2], n = a.shape().back(), k = std::min(m, n);
  Tensor lu = cols(out, 0, n), glu = cols(g, 0, n);
  Tensor perm = cast(slice(out, {Index::ellipsis(), Index::all(), Index(n + 1)}), DType::i32);
  auto [l, u] = split_lu(lu);
  Tensor gl = tril(cols(glu, 0, k), -1), gu = triu(rows(glu, 0, k));
  Tensor ga;
  if (m == n) {
    Tensor M = tril(matmul(mT(l), gl), -1) + triu(matmul(gu, mT(u)));
    ga = right_solve_upper_t(left_solve_unit_lower_t(l, M), u);
  } else if (m > n) {
    Tensor l1 = rows(l, 0, n), l2 = rows(l, n, m), gl1 = rows(gl, 0, n), gl2 = rows(gl, n, m);
    Tensor M = tril(matmul(mT(l1), gl1), -1) + triu(matmul(gu, mT(u)) - matmul(mT(l2), gl2));
    Tensor top = right_solve_upper_t(left_solve_unit_lower_t(l1, M), u);
    ga = concatenate({top, right_solve_upper_t(gl2, u)}, -2);
  } else {
    Tensor u1 = cols(u, 0, m), u2 = cols(u, m, n), gu1 = cols(gu, 0, m), gu2 = cols(gu, m, n);
    Tensor M = tril(matmul(mT(l), gl) - matmul(gu2, mT(u2)), -1) + triu(matmul(gu1, mT(u1)));
    Tensor left = right_solve_upper_t(left_solve_unit_lower_t(l, M), u1);
    ga = concatenate({left, left_solve_unit_lower_t(l, gu2)}, -1);
  }
  // Row i of l u is row perm[i] of a: gA = P ga with P[r, i] = (perm[i] == r).
  Tensor pt = one_hot(perm, m, a.dtype());
  return {matmul(mT(pt), ga)};
}

// ---- lu_pivots_to_permutation ----

TensorType infer_pivots_to_permutation(const std::vector<Tensor>& in, const Attr& attr) {
  const Tensor& p = in[0];
  if (p.dtype() != DType::i32)
    fail_dtype("the pivots must be int32, got " + std::string(dtype_name(p.dtype())), "Cast them with astype(int32).");
  if (p.ndim() < 1)
    fail_shape("the pivots must have at least 1 dimension (..., k), got a scalar", "Pass lu_factor's piv.");
  std::int64_t size = std::get<AxisAttr>(attr).axis;
  if (size < p.shape().back())
    fail_value("permutation_size " + std::to_string(size) + " is smaller than the number of pivots " +
                   std::to_string(p.shape().back()),
               "Pass the number of rows of the factored matrix.");
  Shape out = p.shape();
  out.back() = size;
  return {out, DType::i32};
}

Array eval_pivots_to_permutation(const EvalArgs& args) {
  const Array& p = args.inputs[0];
  const std::int64_t k = p.shape().back(), size = std::get<AxisAttr>(args.node.attr).axis;
  const std::int64_t count = k == 0 ? num_elements(Shape(p.shape().begin(), p.shape().end() - 1)) : p.size() / k;
  Array out(args.node.type.shape, DType::i32);
  const auto* piv = p.data<std::int32_t>();
  auto* o = out.data<std::int32_t>();
  for (std::int64_t b = 0; b < count; ++b) {
    std::int32_t* row = o + b * size;
    std::iota(row, row + size, 0);
    for (std::int64_t i = 0; i < k; ++i) {
      std::int64_t j = piv[b * k + i];
      if (j < 0 || j >= size)
        eval_error(args.node,
                   "pivot " + std::to_string(i) + " is " + std::to_string(j) + ", outside [0, " + std::to_string(size) +
                       ")" + (count > 1 ? " (batch element " + std::to_string(b) + ")" : ""),
                   "Pass the 0-based pivots of lu_factor (SciPy's convention; LAPACK's are 1-based: subtract 1).");
      std::swap(row[i], row[j]);
    }
  }
  return out;
}

}  // namespace

void register_linalg_factor_ops() {
  using K = OpKind;
  using L = Lowering;
  constexpr auto F = Family::linalg;
  define(K::Qr, row(F, 1, L::library, infer_qr, eval_qr, vjp_qr));
  define(K::LuFactor, row(F, 1, L::library, infer_lu_factor, eval_lu_factor, vjp_lu_factor));
  // Integer in and out: fusion gives library calls to floating nodes only, and the loop is O(k), so
  // the reference evaluation runs it.
  define(K::LuPivotsToPermutation,
         row(Family::shape, 1, L::reference, infer_pivots_to_permutation, eval_pivots_to_permutation, no_gradient));
}

}  // namespace ops

namespace linalg {

namespace {

DType float_of(DType d) { return is_floating(d) ? d : DType::f32; }
Tensor as_float(const Tensor& x, Loc loc) { return cast(x, float_of(x.dtype()), loc); }

[[noreturn]] void bad(const char* name, const std::vector<Tensor>& operands, ops::TypeProblem::Kind kind,
                      std::string problem, std::string fix, Loc loc) {
  ops::raise(name, operands, {kind, std::move(problem), std::move(fix)}, loc);
}
constexpr auto kShape = ops::TypeProblem::Kind::shape;
constexpr auto kValue = ops::TypeProblem::Kind::value;
constexpr auto kDtype = ops::TypeProblem::Kind::dtype;

void need_square(const char* name, const Tensor& a, Loc loc) {
  if (a.ndim() < 2 || a.shape()[a.shape().size() - 1] != a.shape()[a.shape().size() - 2])
    bad(name, {a}, kShape,
        "the matrix must be square in its last two axes (..., n, n), got shape " + shape_string(a.shape()),
        "Pass a square matrix or a stack of them.", loc);
}

Tensor mT(const Tensor& x, Loc loc) {
  std::vector<int> perm(static_cast<std::size_t>(x.ndim()));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return transpose(x, perm, loc);
}

Tensor part(const Tensor& x, std::optional<std::int64_t> r0, std::optional<std::int64_t> r1,
            std::optional<std::int64_t> c0, std::optional<std::int64_t> c1, Loc loc) {
  return slice(x, {Index::ellipsis(), Index::range(r0, r1), Index::range(c0, c1)}, loc);
}

// b as a column stack (..., n, k); `vector` says whether it was (..., n).
Tensor as_columns(const Tensor& a, const Tensor& b, bool& vector, const char* name, Loc loc) {
  if (b.ndim() == 0)
    bad(name, {a, b}, kShape, "the right-hand side is a scalar", "Pass b as (..., n) or (..., n, k).", loc);
  vector = b.ndim() == 1 || b.ndim() == a.ndim() - 1;
  return vector ? expand_dims(b, -1, loc) : b;
}

Tensor tri(const Tensor& a, const Tensor& b, bool lower, bool trans, bool unit, const char* name, Loc loc) {
  return ops::make_node(OpKind::TriangularSolve, {a, b}, TriangularSolveAttr{lower, trans, unit}, loc, name);
}

}  // namespace

std::vector<Tensor> qr(const Tensor& a, const std::string& mode, Loc loc) {
  int m = mode == "reduced" ? ops::kReduced : mode == "complete" ? ops::kComplete : mode == "r" ? ops::kROnly : -1;
  if (m < 0)
    bad("qr", {a}, kValue, "unknown mode '" + mode + "'",
        mode == "raw" ? "Mode 'raw' (LAPACK's Householder reflectors) is not offered; use 'reduced', 'complete' or 'r'."
                      : "Use 'reduced' (the default), 'complete' or 'r'.",
        loc);
  Tensor node = ops::make_node(OpKind::Qr, {as_float(a, loc)}, AxisAttr{m}, loc, "qr");
  if (m == ops::kROnly) return {node};
  ops::QrDims d = ops::qr_dims(a.shape(), m);
  return {named_composite("qr", part(node, {}, {}, 0, d.kq, loc)),
          named_composite("qr", part(node, 0, d.kq, d.kq, d.kq + d.n, loc))};
}

std::pair<Tensor, Tensor> lu_factor(const Tensor& a, Loc loc) {
  Tensor node = ops::make_node(OpKind::LuFactor, {as_float(a, loc)}, NoAttr{}, loc, "lu_factor");
  std::int64_t m = a.shape()[a.shape().size() - 2], n = a.shape().back(), k = std::min(m, n);
  Tensor lu = part(node, {}, {}, 0, n, loc);
  Tensor piv = cast(slice(node, {Index::ellipsis(), Index::range(0, k), Index(n)}, loc), DType::i32, loc);
  return {named_composite("lu_factor", lu), named_composite("lu_factor", piv)};
}

std::vector<Tensor> lu(const Tensor& a, bool permute_l, Loc loc) {
  Tensor node = ops::make_node(OpKind::LuFactor, {as_float(a, loc)}, NoAttr{}, loc, "lu");
  std::int64_t m = a.shape()[a.shape().size() - 2], n = a.shape().back();
  Tensor packed = part(node, {}, {}, 0, n, loc);
  auto [l, u] = ops::split_lu(packed);
  Tensor perm = cast(slice(node, {Index::ellipsis(), Index::all(), Index(n + 1)}, loc), DType::i32, loc);
  Tensor p = mT(one_hot(perm, m, node.dtype(), loc), loc);
  if (permute_l) return {named_composite("lu", matmul(p, l, loc)), named_composite("lu", u)};
  return {named_composite("lu", p), named_composite("lu", l), named_composite("lu", u)};
}

Tensor lu_pivots_to_permutation(const Tensor& pivots, std::int64_t permutation_size, Loc loc) {
  if (!is_integer(pivots.dtype()))
    bad("lu_pivots_to_permutation", {pivots}, kDtype,
        "the pivots must be integers, got " + std::string(dtype_name(pivots.dtype())), "Pass lu_factor's piv.", loc);
  if (permutation_size < 0 || permutation_size > std::numeric_limits<int>::max())
    bad("lu_pivots_to_permutation", {pivots}, kValue, "permutation_size must be in [0, 2^31)", "Pass the row count.",
        loc);
  return ops::make_node(OpKind::LuPivotsToPermutation, {cast(pivots, DType::i32, loc)},
                        AxisAttr{static_cast<int>(permutation_size)}, loc, "lu_pivots_to_permutation");
}

Tensor lu_solve(const Tensor& lu, const Tensor& piv, const Tensor& b, int trans, Loc loc) {
  const char* name = "lu_solve";
  need_square(name, lu, loc);
  if (trans < 0 || trans > 2)
    bad(name, {lu, b}, kValue, "trans must be 0, 1 or 2, got " + std::to_string(trans),
        "Use 0 for a x = b, 1 (or 2, the same for real matrices) for a^T x = b.", loc);
  std::int64_t n = lu.shape().back();
  if (piv.ndim() < 1 || piv.shape().back() != n)
    bad(name, {lu, piv}, kShape,
        "piv must have shape (..., " + std::to_string(n) + ") for a " + std::to_string(n) + "x" + std::to_string(n) +
            " lu, got " + shape_string(piv.shape()),
        "Pass the (lu, piv) pair that lu_factor returned.", loc);
  DType dtype = float_of(promote_types(lu.dtype(), b.dtype()));
  Tensor f = cast(lu, dtype, loc);
  bool vector = false;
  Tensor y = cast(as_columns(lu, b, vector, name, loc), dtype, loc);
  if (y.ndim() < 2 || y.shape()[y.shape().size() - 2] != n)
    bad(name, {lu, b}, kShape,
        "the right-hand side must have " + std::to_string(n) + " rows, got shape " + shape_string(b.shape()),
        "Pass b as (..., " + std::to_string(n) + ") or (..., " + std::to_string(n) + ", k).", loc);
  Tensor pt = one_hot(lu_pivots_to_permutation(piv, n, loc), n, dtype, loc);  // pt[i, r] = (perm[i] == r)
  Tensor x;
  if (trans == 0) {
    Tensor z = tri(f, tri(f, matmul(pt, y, loc), true, false, true, name, loc), false, false, false, name, loc);
    x = z;
  } else {
    Tensor w = tri(f, tri(f, y, false, true, false, name, loc), true, true, true, name, loc);
    x = matmul(mT(pt, loc), w, loc);
  }
  return named_composite(name, vector ? squeeze(x, {-1}, loc) : x);
}

std::pair<Tensor, bool> cho_factor(const Tensor& a, bool lower, Loc loc) {
  Tensor l = cholesky(a, loc);
  return {named_composite("cho_factor", lower ? l : mT(l, loc)), lower};
}

Tensor cho_solve(const Tensor& c, bool lower, const Tensor& b, Loc loc) {
  const char* name = "cho_solve";
  need_square(name, c, loc);
  DType dtype = float_of(promote_types(c.dtype(), b.dtype()));
  Tensor f = cast(c, dtype, loc);
  bool vector = false;
  Tensor y = cast(as_columns(c, b, vector, name, loc), dtype, loc);
  // lower: a = c c^T; upper: a = c^T c.
  Tensor x = lower ? tri(f, tri(f, y, true, false, false, name, loc), true, true, false, name, loc)
                   : tri(f, tri(f, y, false, true, false, name, loc), false, false, false, name, loc);
  return named_composite(name, vector ? squeeze(x, {-1}, loc) : x);
}

Tensor matrix_power(const Tensor& a, std::int64_t n, Loc loc) {
  need_square("matrix_power", a, loc);
  std::int64_t size = a.shape().back();
  if (n == 0) {
    return named_composite("matrix_power", broadcast_to(eye(size, size, 0, a.dtype(), loc), a.shape(), loc));
  }
  Tensor base = a;
  if (n < 0) {
    base = inv(a, loc);
    n = -n;
  }
  if (n == 1) return named_composite("matrix_power", base + zeros({}, base.dtype(), loc));
  Tensor result;
  while (n > 0) {
    if (n & 1) result = result.defined() ? matmul(result, base, loc) : base;
    n >>= 1;
    if (n > 0) base = matmul(base, base, loc);
  }
  return named_composite("matrix_power", result);
}

Tensor multi_dot(const std::vector<Tensor>& arrays, Loc loc) {
  const char* name = "multi_dot";
  std::size_t count = arrays.size();
  if (count < 2)
    bad(name, arrays, kValue, "expecting at least two arrays, got " + std::to_string(count),
        "Pass a list of two or more matrices.", loc);
  std::vector<Tensor> ms(arrays);
  bool first_vec = ms.front().ndim() == 1, last_vec = ms.back().ndim() == 1;
  if (first_vec) ms.front() = expand_dims(ms.front(), 0, loc);
  if (last_vec) ms.back() = expand_dims(ms.back(), -1, loc);
  for (std::size_t i = 0; i < count; ++i)
    if (ms[i].ndim() != 2)
      bad(name, arrays, kShape,
          "array " + std::to_string(i) + " has " + std::to_string(arrays[i].ndim()) +
              " dimensions; multi_dot takes 2-D arrays (the first and last may be 1-D)",
          "Reshape it to a matrix, or use matmul for batches.", loc);
  for (std::size_t i = 0; i + 1 < count; ++i)
    if (ms[i].shape()[1] != ms[i + 1].shape()[0])
      bad(name, arrays, kShape,
          "arrays " + std::to_string(i) + " and " + std::to_string(i + 1) + " do not match (" +
              shape_string(arrays[i].shape()) + " times " + shape_string(arrays[i + 1].shape()) + ")",
          "Check the inner sizes of consecutive matrices.", loc);
  // numpy.linalg's _multi_dot_matrix_chain_order: p the dimensions, m[i][j] the cost, s the split.
  std::vector<double> p(count + 1);
  p[0] = static_cast<double>(ms[0].shape()[0]);
  for (std::size_t i = 0; i < count; ++i) p[i + 1] = static_cast<double>(ms[i].shape()[1]);
  std::vector<std::vector<double>> cost(count, std::vector<double>(count, 0.0));
  std::vector<std::vector<std::size_t>> split(count, std::vector<std::size_t>(count, 0));
  for (std::size_t l = 1; l < count; ++l)
    for (std::size_t i = 0; i + l < count; ++i) {
      std::size_t j = i + l;
      cost[i][j] = std::numeric_limits<double>::infinity();
      for (std::size_t k = i; k < j; ++k) {
        double q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1];
        if (q < cost[i][j]) {
          cost[i][j] = q;
          split[i][j] = k;
        }
      }
    }
  std::function<Tensor(std::size_t, std::size_t)> build = [&](std::size_t i, std::size_t j) -> Tensor {
    if (i == j) return ms[i];
    return matmul(build(i, split[i][j]), build(split[i][j] + 1, j), loc);
  };
  Tensor out = build(0, count - 1);
  if (first_vec && last_vec) out = squeeze(out, {-2, -1}, loc);
  else if (first_vec) out = squeeze(out, {-2}, loc);
  else if (last_vec) out = squeeze(out, {-1}, loc);
  return named_composite(name, out);
}

namespace {
constexpr int kMaxSquarings = 20;
constexpr double kTheta13 = 5.371920351148152;
// Higham (2005), table 10.4: the coefficients of the degree-13 Pade approximant of exp.
constexpr double kPade13[] = {64764752532480000.0,
                              32382376266240000.0,
                              7771770303897600.0,
                              1187353796428800.0,
                              129060195264000.0,
                              10559470521600.0,
                              670442572800.0,
                              33522128640.0,
                              1323241920.0,
                              40840800.0,
                              960960.0,
                              16380.0,
                              182.0,
                              1.0};

Tensor expm_impl(const Tensor& a0, Loc loc) {
  need_square("expm", a0, loc);
  Tensor a = as_float(a0, loc);
  DType dt = a.dtype();
  std::int64_t n = a.shape().back();
  if (n == 0) return a + zeros({}, dt, loc);
  // s = max(0, ceil(log2(|a|_1 / theta13))), per batch element, as Higham's algorithm 10.20.
  Tensor norm1 = max(sum(abs(a, loc), {-2}, false, loc), {-1}, false, loc);
  Tensor s = maximum(ceil(log2(norm1 / kTheta13, loc), loc), 0.0, loc);
  Tensor s_keep = expand_dims(expand_dims(s, -1, loc), -1, loc);
  Tensor x = a * exp2(-minimum(s_keep, static_cast<double>(kMaxSquarings), loc), loc);
  Tensor ident = eye(n, n, 0, dt, loc);
  Tensor x2 = matmul(x, x, loc), x4 = matmul(x2, x2, loc), x6 = matmul(x4, x2, loc);
  const double* b = kPade13;
  Tensor u_inner =
      matmul(x6, x6 * b[13] + x4 * b[11] + x2 * b[9], loc) + x6 * b[7] + x4 * b[5] + x2 * b[3] + ident * b[1];
  Tensor u = matmul(x, u_inner, loc);
  Tensor v = matmul(x6, x6 * b[12] + x4 * b[10] + x2 * b[8], loc) + x6 * b[6] + x4 * b[4] + x2 * b[2] + ident * b[0];
  Tensor r = solve(v - u, v + u, loc);
  for (int i = 0; i < kMaxSquarings; ++i)
    r = where(less(static_cast<double>(i), s_keep, loc), matmul(r, r, loc), r, loc);
  // More squarings than the graph holds (|a|_1 > theta13 * 2^20): NaN rather than a wrong value.
  Tensor nan = full({}, std::numeric_limits<double>::quiet_NaN(), dt, loc);
  return where(less(static_cast<double>(kMaxSquarings), s_keep, loc), nan, r, loc);
}
}  // namespace

Tensor expm(const Tensor& a, Loc loc) { return named_composite("expm", expm_impl(a, loc)); }

std::pair<Tensor, Tensor> expm_frechet(const Tensor& a, const Tensor& e, Loc loc) {
  need_square("expm_frechet", a, loc);
  if (e.shape() != a.shape())
    bad("expm_frechet", {a, e}, kShape,
        "a and e must have the same shape, got " + shape_string(a.shape()) + " and " + shape_string(e.shape()),
        "Pass a direction e of a's shape.", loc);
  DType dt = float_of(promote_types(a.dtype(), e.dtype()));
  Tensor x = cast(a, dt, loc), y = cast(e, dt, loc);
  std::int64_t n = a.shape().back();
  Tensor top = concatenate({x, y}, -1, loc);
  Tensor bottom = concatenate({zeros(x.shape(), dt, loc), x}, -1, loc);
  Tensor big = expm_impl(concatenate({top, bottom}, -2, loc), loc);
  return {named_composite("expm_frechet", part(big, 0, n, 0, n, loc)),
          named_composite("expm_frechet", part(big, 0, n, n, 2 * n, loc))};
}

Tensor tensorsolve(const Tensor& a, const Tensor& b, std::optional<std::vector<int>> axes, Loc loc) {
  const char* name = "tensorsolve";
  Tensor x = a;
  int an = a.ndim();
  if (axes) {
    std::vector<int> order;
    std::vector<bool> moved(static_cast<std::size_t>(an), false);
    for (int k : *axes) {
      int ax = k < 0 ? k + an : k;
      if (ax < 0 || ax >= an || moved[static_cast<std::size_t>(ax)])
        bad(name, {a, b}, kShape,
            "axes entry " + std::to_string(k) + " is out of range or repeated for " + std::to_string(an) + "-D a",
            "Name distinct axes of a.", loc);
      moved[static_cast<std::size_t>(ax)] = true;
    }
    for (int i = 0; i < an; ++i)
      if (!moved[static_cast<std::size_t>(i)]) order.push_back(i);
    for (int k : *axes) order.push_back(k < 0 ? k + an : k);
    x = transpose(a, order, loc);
  }
  int bn = b.ndim();
  if (bn > an)
    bad(name, {a, b}, kShape, "b has more dimensions than a", "b's shape must be a leading part of a's.", loc);
  Shape old(x.shape().begin() + bn, x.shape().end());
  std::int64_t prod = num_elements(old), lead = num_elements(Shape(x.shape().begin(), x.shape().begin() + bn));
  if (prod != lead || num_elements(b.shape()) != prod)
    bad(name, {a, b}, kShape,
        "a of shape " + shape_string(x.shape()) + " does not make a square system with b of shape " +
            shape_string(b.shape()) + " (the product of a's leading b.ndim sizes must equal that of the rest)",
        "Pass a with shape b.shape + x.shape, prod(x.shape) == prod(b.shape).", loc);
  Tensor sol = solve(reshape(x, {prod, prod}, loc), reshape(b, {prod}, loc), loc);
  return named_composite(name, reshape(sol, old, loc));
}

Tensor tensorinv(const Tensor& a, int ind, Loc loc) {
  const char* name = "tensorinv";
  if (ind <= 0 || ind > a.ndim())
    bad(name, {a}, kValue, "ind must be a positive integer no larger than a.ndim, got " + std::to_string(ind),
        "Pass the number of leading axes that index the rows.", loc);
  const Shape& s = a.shape();
  Shape head(s.begin(), s.begin() + ind), tail(s.begin() + ind, s.end());
  std::int64_t prod = num_elements(head);
  if (num_elements(tail) != prod)
    bad(name, {a}, kShape,
        "a of shape " + shape_string(s) + " is not square for ind=" + std::to_string(ind) +
            " (prod(a.shape[:ind]) must equal prod(a.shape[ind:]))",
        "Pick ind so that both parts have the same number of elements.", loc);
  Shape inv_shape = tail;
  inv_shape.insert(inv_shape.end(), head.begin(), head.end());
  return named_composite(name, reshape(inv(reshape(a, {prod, prod}, loc), loc), inv_shape, loc));
}

Tensor block_diag(const std::vector<Tensor>& arrays, Loc loc) {
  const char* name = "block_diag";
  if (arrays.empty()) return named_composite(name, zeros({1, 0}, DType::f64, loc));
  DType dt = arrays[0].dtype();
  for (const Tensor& t : arrays) dt = promote_types(dt, t.dtype());
  std::vector<Tensor> ms;
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    const Tensor& t = arrays[i];
    if (t.ndim() > 2)
      bad(name, arrays, kShape,
          "argument " + std::to_string(i) + " has " + std::to_string(t.ndim()) +
              " dimensions; block_diag takes 0-D, 1-D and 2-D arrays",
          "Pass matrices (or rows / scalars).", loc);
    Tensor m = cast(t, dt, loc);
    if (t.ndim() == 0) m = reshape(m, {1, 1}, loc);
    else if (t.ndim() == 1) m = expand_dims(m, 0, loc);
    ms.push_back(m);
  }
  std::int64_t total = 0;
  for (const Tensor& m : ms) total += m.shape()[1];
  std::vector<Tensor> bands;
  std::int64_t at = 0;
  for (const Tensor& m : ms) {
    std::int64_t w = m.shape()[1];
    bands.push_back(pad(m, {{0, 0}, {at, total - at - w}}, 0, loc));
    at += w;
  }
  return named_composite(name, concatenate(bands, 0, loc));
}

}  // namespace linalg
}  // namespace symx

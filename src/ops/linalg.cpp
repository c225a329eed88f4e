// Linear algebra: matmul (batched, broadcasting), inv, det, slogdet, cholesky, solve and
// triangular_solve, plus the composites dot and outer.
//
// Reference evaluation: matmul is a plain triple loop; the factorizations call LAPACKE on one
// batch element at a time, in double precision (float32 results are rounded at the end).
// Every vector-Jacobian rule is built from graph ops, so gradients can be differentiated again.
#include <lapacke.h>

#include <cmath>
#include <limits>

#include "ops/elementwise.hpp"

namespace symx {
namespace ops {
namespace {

// ---- shape helpers ----

Shape batch_of(const Shape& s) { return Shape(s.begin(), s.end() - 2); }

std::string dims(std::int64_t a, std::int64_t b) { return std::to_string(a) + " vs " + std::to_string(b); }

// Swaps the last two axes (a matrix transpose of every batch element).
Tensor mT(const Tensor& x) {
  std::vector<int> perm(static_cast<std::size_t>(x.ndim()));
  for (int i = 0; i < x.ndim(); ++i) perm[static_cast<std::size_t>(i)] = i;
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return transpose(x, perm);
}

// Appends two size-1 axes: (...) -> (..., 1, 1), to scale matrices by a per-batch value.
Tensor expand2(const Tensor& x) { return expand_dims(expand_dims(x, -1), -1); }

// An (n, n) constant: `below` under the diagonal, `diag` on it, `above` over it.
Tensor tri_mask(std::int64_t n, DType dtype, double below, double diag, double above) {
  Array m({n, n}, dtype);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) m.set_flat(i * n + j, i > j ? below : i == j ? diag : above);
  return constant(m);
}

// Offsets (in elements) of each batch element of an array of shape `in` (batch + matrix) when its
// batch dims are broadcast to `out_batch`.
std::vector<std::int64_t> batch_offsets(const Shape& in, const Shape& out_batch) {
  Shape in_batch = batch_of(in);
  std::int64_t matrix = in[in.size() - 2] * in[in.size() - 1];
  auto strides = broadcast_strides(in_batch, out_batch);
  std::vector<std::int64_t> offsets;
  std::int64_t count = num_elements(out_batch);
  offsets.reserve(static_cast<std::size_t>(count));
  if (count == 0) return offsets;
  IndexCounter counter(out_batch);
  do {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < out_batch.size(); ++d) off += counter.index[d] * strides[d];
    offsets.push_back(off * matrix);
  } while (counter.next());
  return offsets;
}

// A ValueError found while evaluating a node (singular or indefinite matrices).
[[noreturn]] void eval_error(const Node& node, const std::string& problem, const std::string& fix) {
  std::string message = std::string(op_name(node.op)) + ": " + problem;
  if (!node.where.empty()) message += ", at " + node.where;
  message += ". " + fix;
  throw ValueError(message);
}

std::string batch_note(std::int64_t batch, std::int64_t count) {
  return count > 1 ? " (batch element " + std::to_string(batch) + ")" : "";
}

void require_float(const Tensor& x, const char* what) {
  if (!is_floating(x.dtype()))
    fail_dtype(std::string(what) + " must be floating-point, got " + std::string(dtype_name(x.dtype())),
               "Cast it with astype(float32) or astype(float64).");
}

void require_square(const Tensor& a, const char* what = "the matrix") {
  if (a.ndim() < 2)
    fail_shape(std::string(what) + " must have at least 2 dimensions (..., n, n), got shape " + shape_string(a.shape()),
               "Pass a square matrix or a stack of square matrices.");
  if (a.shape()[a.shape().size() - 1] != a.shape()[a.shape().size() - 2])
    fail_shape(std::string(what) + " must be square in its last two axes, got shape " + shape_string(a.shape()),
               "Pass an (..., n, n) array; for least squares, solve the normal equations instead.");
}

// ---- matmul ----

// Checks the operands of matmul as the user gave them (1-D allowed) and returns nothing; the
// messages use the user's shapes.
void check_matmul_shapes(const Shape& a, const Shape& b) {
  if (a.empty() || b.empty())
    fail_shape("matmul does not accept scalar (0-D) operands",
               "Use multiply (or the * operator) to scale by a scalar.");
  std::int64_t ka = a.back();
  std::int64_t kb = b.size() == 1 ? b[0] : b[b.size() - 2];
  // An unknown contracted size (x^T x over a batch of None) is checked when a call specializes.
  if (ka != kb && !is_symbol(ka) && !is_symbol(kb))
    fail_shape("operand shapes " + shape_string(a) + " and " + shape_string(b) +
                   " do not match on the contracted axis (" + dims(ka, kb) + ")",
               "Transpose the second operand or check the layer sizes.");
  Shape ba = a.size() > 2 ? batch_of(a) : Shape{};
  Shape bb = b.size() > 2 ? batch_of(b) : Shape{};
  try {
    broadcast_shapes(ba, bb);
  } catch (const TypeProblem&) {
    fail_shape("the batch dimensions " + shape_string(ba) + " and " + shape_string(bb) + " of operand shapes " +
                   shape_string(a) + " and " + shape_string(b) + " cannot be broadcast together",
               "Make the leading (batch) sizes equal or 1, e.g. with expand_dims.");
  }
}

TensorType infer_matmul(const std::vector<Tensor>& in, const Attr&) {
  const Tensor& a = in[0];
  const Tensor& b = in[1];
  check_internal(a.dtype() == b.dtype(), "matmul operands must be promoted before make_node");
  if (a.ndim() < 2 || b.ndim() < 2)
    fail_shape("the matmul primitive needs operands with at least 2 dimensions",
               "Call symx::matmul, which handles 1-D operands.");
  check_matmul_shapes(a.shape(), b.shape());
  Shape out = broadcast_shapes(batch_of(a.shape()), batch_of(b.shape()));
  out.push_back(a.shape()[a.shape().size() - 2]);
  out.push_back(b.shape().back());
  return {out, a.dtype()};
}

Array eval_matmul(const EvalArgs& args) {
  const Array& a = args.inputs[0];
  const Array& b = args.inputs[1];
  const Shape& out_shape = args.node.type.shape;
  Array out(out_shape, args.node.type.dtype);
  Shape batch = batch_of(out_shape);
  std::int64_t m = a.shape()[a.shape().size() - 2], k = a.shape().back(), n = b.shape().back();
  auto oa = batch_offsets(a.shape(), batch);
  auto ob = batch_offsets(b.shape(), batch);
  if (is_complex(a.dtype())) {  // accumulated in complex128
    visit_complex_dtype(a.dtype(), [&]<class T>() {
      for (std::size_t bi = 0; bi < oa.size(); ++bi) {
        const T* A = a.data<T>() + oa[bi];
        const T* B = b.data<T>() + ob[bi];
        T* O = out.data<T>() + static_cast<std::int64_t>(bi) * m * n;
        for (std::int64_t i = 0; i < m; ++i)
          for (std::int64_t j = 0; j < n; ++j) {
            std::complex<double> acc = 0;
            for (std::int64_t p = 0; p < k; ++p)
              acc += std::complex<double>(A[i * k + p]) * std::complex<double>(B[p * n + j]);
            O[i * n + j] = T(acc);
          }
      }
    });
    return out;
  }
  visit_dtype(a.dtype(), [&]<class T>() {
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* po = out.data<T>();
    for (std::size_t bi = 0; bi < oa.size(); ++bi) {
      const T* A = pa + oa[bi];
      const T* B = pb + ob[bi];
      T* O = po + static_cast<std::int64_t>(bi) * m * n;
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          if constexpr (std::is_same_v<T, bool>) {
            bool acc = false;
            for (std::int64_t p = 0; p < k; ++p) acc = acc || (A[i * k + p] && B[p * n + j]);
            O[i * n + j] = acc;
          } else if constexpr (std::is_floating_point_v<T>) {
            double acc = 0;
            for (std::int64_t p = 0; p < k; ++p)
              acc += static_cast<double>(A[i * k + p]) * static_cast<double>(B[p * n + j]);
            O[i * n + j] = static_cast<T>(acc);
          } else {
            // Integers wrap on overflow, as NumPy's do.
            using U = std::make_unsigned_t<T>;
            U acc = 0;
            for (std::int64_t p = 0; p < k; ++p)
              acc = static_cast<U>(acc + static_cast<U>(A[i * k + p]) * static_cast<U>(B[p * n + j]));
            O[i * n + j] = static_cast<T>(acc);
          }
        }
    }
  });
  return out;
}

Tensor matmul_node(const Tensor& a, const Tensor& b, Loc loc = Loc::current()) {
  return make_node(OpKind::Matmul, {a, b}, NoAttr{}, loc);
}

std::vector<Tensor> vjp_matmul(const Tensor& out, const Tensor& g) {
  const Tensor& a = out.node().inputs[0];
  const Tensor& b = out.node().inputs[1];
  return {unbroadcast(matmul_node(g, mT(b)), a.shape()), unbroadcast(matmul_node(mT(a), g), b.shape())};
}

// ---- LAPACK-backed factorizations ----

// The batch elements of a square (..., n, n) input as double matrices (row-major).
struct Batches {
  std::int64_t count = 0, n = 0;
  std::vector<double> data;  // count * n * n
  explicit Batches(const Array& a) {
    n = a.shape().back();
    count = n == 0 ? num_elements(batch_of(a.shape())) : a.size() / (n * n);
    data = a.to_vector();
  }
  double* at(std::int64_t b) { return data.data() + b * n * n; }
};

// LU-factors the matrix in place; returns LAPACK's info (> 0: exactly singular).
lapack_int lu(double* m, std::int64_t n, std::vector<lapack_int>& pivots) {
  pivots.assign(static_cast<std::size_t>(n), 0);
  if (n == 0) return 0;
  auto ln = static_cast<lapack_int>(n);
  return LAPACKE_dgetrf(LAPACK_ROW_MAJOR, ln, ln, m, ln, pivots.data());
}

// (sign, log|det|) from an LU factorization.
std::pair<double, double> lu_slogdet(const double* m, std::int64_t n, const std::vector<lapack_int>& pivots) {
  double sign = 1, logabs = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    double d = m[i * n + i];
    if (pivots[static_cast<std::size_t>(i)] != i + 1) sign = -sign;
    if (d == 0) return {0.0, -std::numeric_limits<double>::infinity()};
    if (std::isnan(d)) return {std::nan(""), std::nan("")};
    if (d < 0) sign = -sign;
    logabs += std::log(std::fabs(d));
  }
  return {sign, logabs};
}

Array from_doubles(const std::vector<double>& values, const Shape& shape, DType dtype) {
  return Array::from_vector(values, shape).astype(dtype);
}

TensorType infer_square_float(const std::vector<Tensor>& in, const Attr&) {
  require_float(in[0], "the matrix");
  require_square(in[0]);
  return in[0].type();
}

Array eval_inv(const EvalArgs& args) {
  Batches m(args.inputs[0]);
  std::vector<lapack_int> piv;
  for (std::int64_t b = 0; b < m.count; ++b) {
    if (m.n == 0) break;
    double* A = m.at(b);
    lapack_int info = lu(A, m.n, piv);
    if (info > 0)
      eval_error(args.node,
                 "the matrix is singular" + batch_note(b, m.count) + " (pivot " + std::to_string(info) + " is zero)",
                 "Check the input, or use a pseudo-inverse or a regularized matrix (a + eps * I).");
    auto ln = static_cast<lapack_int>(m.n);
    lapack_int info2 = LAPACKE_dgetri(LAPACK_ROW_MAJOR, ln, A, ln, piv.data());
    check_internal(info2 == 0, "getri failed after a successful getrf");
  }
  return from_doubles(m.data, args.node.type.shape, args.node.type.dtype);
}

// d inv(A) = -inv(A) dA inv(A)  =>  gA = -inv(A)^T g inv(A)^T.
std::vector<Tensor> vjp_inv(const Tensor& y, const Tensor& g) {
  Tensor yt = mT(y);
  return {-matmul_node(matmul_node(yt, g), yt)};
}

TensorType infer_det(const std::vector<Tensor>& in, const Attr&) {
  require_float(in[0], "the matrix");
  require_square(in[0]);
  return {batch_of(in[0].shape()), in[0].dtype()};
}

Array eval_det(const EvalArgs& args) {
  Batches m(args.inputs[0]);
  std::vector<double> out(static_cast<std::size_t>(m.count));
  std::vector<lapack_int> piv;
  for (std::int64_t b = 0; b < m.count; ++b) {
    double* A = m.at(b);
    lu(A, m.n, piv);
    double det = 1;
    for (std::int64_t i = 0; i < m.n; ++i) {
      det *= A[i * m.n + i];
      if (piv[static_cast<std::size_t>(i)] != i + 1) det = -det;
    }
    out[static_cast<std::size_t>(b)] = det;
  }
  return from_doubles(out, args.node.type.shape, args.node.type.dtype);
}

// d det(A) = det(A) tr(inv(A) dA)  =>  gA = g det(A) inv(A)^T.
std::vector<Tensor> vjp_det(const Tensor& y, const Tensor& g) {
  const Tensor& a = y.node().inputs[0];
  return {expand2(g * y) * mT(linalg::inv(a))};
}

TensorType infer_slogdet(const std::vector<Tensor>& in, const Attr&) {
  require_float(in[0], "the matrix");
  require_square(in[0]);
  Shape out = batch_of(in[0].shape());
  out.push_back(2);
  return {out, in[0].dtype()};
}

Array eval_slogdet(const EvalArgs& args) {
  Batches m(args.inputs[0]);
  std::vector<double> out(static_cast<std::size_t>(2 * m.count));
  std::vector<lapack_int> piv;
  for (std::int64_t b = 0; b < m.count; ++b) {
    double* A = m.at(b);
    lu(A, m.n, piv);
    auto [sign, logabs] = lu_slogdet(A, m.n, piv);
    out[static_cast<std::size_t>(2 * b)] = sign;
    out[static_cast<std::size_t>(2 * b + 1)] = logabs;
  }
  return from_doubles(out, args.node.type.shape, args.node.type.dtype);
}

// The sign is piecewise constant (no gradient); d log|det A| = tr(inv(A) dA).
std::vector<Tensor> vjp_slogdet(const Tensor& y, const Tensor& g) {
  const Tensor& a = y.node().inputs[0];
  Tensor g_logabs = slice(g, {Index::ellipsis(), Index(1)});
  return {expand2(g_logabs) * mT(linalg::inv(a))};
}

// The factorization reads the symmetric part (A + A^T) / 2, so its gradient is symmetric
// (as in JAX and PyTorch); for symmetric input this is the usual Cholesky factor.
Array eval_cholesky(const EvalArgs& args) {
  Batches m(args.inputs[0]);
  std::int64_t n = m.n;
  for (std::int64_t b = 0; b < m.count; ++b) {
    double* A = m.at(b);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < i; ++j) {
        double s = 0.5 * (A[i * n + j] + A[j * n + i]);
        A[i * n + j] = s;
        A[j * n + i] = 0;
      }
    if (n == 0) continue;
    auto ln = static_cast<lapack_int>(n);
    lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', ln, A, ln);
    if (info > 0)
      eval_error(args.node,
                 "the matrix is not positive definite" + batch_note(b, m.count) + " (the leading minor of order " +
                     std::to_string(info) + " is not positive)",
                 "Pass a symmetric positive-definite matrix, e.g. add a small multiple of the identity (a + eps * I).");
    check_internal(info == 0, "potrf: invalid argument");
  }
  return from_doubles(m.data, args.node.type.shape, args.node.type.dtype);
}

Tensor tri_solve_node(const Tensor& a, const Tensor& b, bool lower, bool transpose_a, bool unit = false) {
  return make_node(OpKind::TriangularSolve, {a, b}, TriangularSolveAttr{lower, transpose_a, unit});
}

// Murray (2016) / JAX: with phi(X) = tril(X) with a halved diagonal,
// gA = sym(L^-T phi(L^T gL) L^-1), where sym(S) = (S + S^T) / 2.
std::vector<Tensor> vjp_cholesky(const Tensor& L, const Tensor& g) {
  std::int64_t n = L.shape().back();
  Tensor phi = matmul_node(mT(L), g) * tri_mask(n, L.dtype(), 1, 0.5, 0);
  Tensor x = tri_solve_node(L, phi, true, true);        // L^-T phi
  Tensor s = mT(tri_solve_node(L, mT(x), true, true));  // (L^-T x^T)^T = x L^-1
  return {(s + mT(s)) * 0.5};
}

// ---- solve and triangular_solve: a (..., n, n), b (..., n, k), batch dims broadcast ----

TensorType infer_solve_like(const std::vector<Tensor>& in) {
  const Tensor& a = in[0];
  const Tensor& b = in[1];
  check_internal(a.dtype() == b.dtype(), "solve operands must be promoted before make_node");
  require_float(a, "the coefficient matrix");
  require_square(a, "the coefficient matrix");
  std::int64_t n = a.shape().back();
  if (b.ndim() < 2)
    fail_shape("the right-hand side must have at least 2 dimensions (..., n, k) here, got shape " +
                   shape_string(b.shape()),
               "Pass b as (..., n) or (..., n, k) to the public function.");
  std::int64_t rows = b.shape()[b.shape().size() - 2];
  if (rows != n)
    fail_shape("the coefficient matrix is " + std::to_string(n) + "x" + std::to_string(n) +
                   " but the right-hand side has " + std::to_string(rows) + " rows (" + dims(n, rows) + ")",
               "Pass b as (..., " + std::to_string(n) + ") or (..., " + std::to_string(n) + ", k).");
  Shape out = broadcast_shapes(batch_of(a.shape()), batch_of(b.shape()));
  out.push_back(n);
  out.push_back(b.shape().back());
  return {out, a.dtype()};
}

TensorType infer_solve(const std::vector<Tensor>& in, const Attr&) { return infer_solve_like(in); }

// Runs `solve_one(A, B, batch)` on double copies of every broadcast batch element; B (n x k)
// is overwritten with the solution.
template <class F> Array solve_batches(const EvalArgs& args, F solve_one) {
  const Array& a = args.inputs[0];
  const Array& b = args.inputs[1];
  const Shape& out_shape = args.node.type.shape;
  Shape batch = batch_of(out_shape);
  std::int64_t n = a.shape().back(), k = b.shape().back();
  auto oa = batch_offsets(a.shape(), batch);
  auto ob = batch_offsets(b.shape(), batch);
  std::vector<double> av = a.to_vector(), bv = b.to_vector();
  std::vector<double> out(static_cast<std::size_t>(num_elements(out_shape)));
  std::vector<double> A(static_cast<std::size_t>(n * n)), B(static_cast<std::size_t>(n * k));
  for (std::size_t bi = 0; bi < oa.size(); ++bi) {
    std::copy_n(av.begin() + oa[bi], n * n, A.begin());
    std::copy_n(bv.begin() + ob[bi], n * k, B.begin());
    if (n > 0 && k > 0)
      solve_one(A.data(), B.data(), n, k, static_cast<std::int64_t>(bi), static_cast<std::int64_t>(oa.size()));
    std::copy(B.begin(), B.end(), out.begin() + static_cast<std::int64_t>(bi) * n * k);
  }
  return from_doubles(out, out_shape, args.node.type.dtype);
}

Array eval_solve(const EvalArgs& args) {
  return solve_batches(args, [&](double* A, double* B, std::int64_t n, std::int64_t k, std::int64_t b,
                                 std::int64_t count) {
    std::vector<lapack_int> piv(static_cast<std::size_t>(n));
    lapack_int info = LAPACKE_dgesv(LAPACK_ROW_MAJOR, static_cast<lapack_int>(n), static_cast<lapack_int>(k), A,
                                    static_cast<lapack_int>(n), piv.data(), B, static_cast<lapack_int>(k));
    if (info > 0)
      eval_error(args.node,
                 "the coefficient matrix is singular" + batch_note(b, count) + " (pivot " + std::to_string(info) +
                     " is zero)",
                 "Check the input, or use least squares or a regularized matrix (a + eps * I).");
    check_internal(info == 0, "gesv: invalid argument");
  });
}

Tensor solve_node(const Tensor& a, const Tensor& b) { return make_node(OpKind::Solve, {a, b}); }

// x = A^-1 b: gb = A^-T g, gA = -gb x^T.
std::vector<Tensor> vjp_solve(const Tensor& x, const Tensor& g) {
  const Tensor& a = x.node().inputs[0];
  const Tensor& b = x.node().inputs[1];
  Tensor gb = solve_node(mT(a), g);
  Tensor ga = -matmul_node(gb, mT(x));
  return {unbroadcast(ga, a.shape()), unbroadcast(gb, b.shape())};
}

TensorType infer_triangular_solve(const std::vector<Tensor>& in, const Attr&) { return infer_solve_like(in); }

Array eval_triangular_solve(const EvalArgs& args) {
  const auto& attr = std::get<TriangularSolveAttr>(args.node.attr);
  return solve_batches(args, [&](double* A, double* B, std::int64_t n, std::int64_t k, std::int64_t b,
                                 std::int64_t count) {
    // op(A)[i][j], reading only the triangle that `lower` names.
    auto op = [&](std::int64_t i, std::int64_t j) { return attr.transpose_a ? A[j * n + i] : A[i * n + j]; };
    // op(A) is lower triangular when exactly one of (lower, transpose_a) holds.
    bool forward = attr.lower != attr.transpose_a;
    if (!attr.unit_diagonal)
      for (std::int64_t i = 0; i < n; ++i)
        if (A[i * n + i] == 0)
          eval_error(args.node,
                     "the triangular matrix is singular" + batch_note(b, count) + " (diagonal element " +
                         std::to_string(i) + " is zero)",
                     "Check the input; a triangular matrix is invertible only when its diagonal has no zeros.");
    auto finish = [&](std::int64_t i, std::int64_t c, double v) {
      B[i * k + c] = attr.unit_diagonal ? v : v / A[i * n + i];
    };
    for (std::int64_t c = 0; c < k; ++c) {
      if (forward) {
        for (std::int64_t i = 0; i < n; ++i) {
          double v = B[i * k + c];
          for (std::int64_t j = 0; j < i; ++j) v -= op(i, j) * B[j * k + c];
          finish(i, c, v);
        }
      } else {
        for (std::int64_t i = n - 1; i >= 0; --i) {
          double v = B[i * k + c];
          for (std::int64_t j = n - 1; j > i; --j) v -= op(i, j) * B[j * k + c];
          finish(i, c, v);
        }
      }
    }
  });
}

// x = op(A)^-1 b: gb = op(A)^-T g; g_op(A) = -gb x^T, transposed back when op is a transpose and
// restricted to the triangle the op reads (the strict triangle for a unit diagonal).
std::vector<Tensor> vjp_triangular_solve(const Tensor& x, const Tensor& g) {
  const auto& attr = std::get<TriangularSolveAttr>(x.node().attr);
  const Tensor& a = x.node().inputs[0];
  const Tensor& b = x.node().inputs[1];
  Tensor gb = tri_solve_node(a, g, attr.lower, !attr.transpose_a, attr.unit_diagonal);
  Tensor ga = attr.transpose_a ? -matmul_node(x, mT(gb)) : -matmul_node(gb, mT(x));
  std::int64_t n = a.shape().back();
  double diag = attr.unit_diagonal ? 0 : 1;
  ga = ga * (attr.lower ? tri_mask(n, a.dtype(), 1, diag, 0) : tri_mask(n, a.dtype(), 0, diag, 1));
  return {unbroadcast(ga, a.shape()), unbroadcast(gb, b.shape())};
}

// ---- public-function helpers ----

// The floating dtype a linear-algebra function computes in: integers and bool become float32.
DType float_dtype(DType d) { return is_floating(d) ? d : DType::f32; }

}  // namespace

void register_linalg_factor_ops();  // linalg_factor.cpp: qr, lu_factor, lu_pivots_to_permutation

void register_linalg_ops() {
  using K = OpKind;
  // Matrix products are library calls (BLAS / oneDNN); so are the decompositions and solves, on
  // LAPACK in the input's precision (runtime/library_linalg.cpp).
  using L = Lowering;
  constexpr auto F = Family::linalg;
  define(K::Matmul, row(F, 2, L::library, infer_matmul, eval_matmul, vjp_matmul));
  define(K::Inv, row(F, 1, L::library, infer_square_float, eval_inv, vjp_inv));
  define(K::Det, row(F, 1, L::library, infer_det, eval_det, vjp_det));
  define(K::Slogdet, row(F, 1, L::library, infer_slogdet, eval_slogdet, vjp_slogdet));
  define(K::Cholesky, row(F, 1, L::library, infer_square_float, eval_cholesky, vjp_cholesky));
  define(K::Solve, row(F, 2, L::library, infer_solve, eval_solve, vjp_solve));
  define(K::TriangularSolve,
         row(F, 2, L::library, infer_triangular_solve, eval_triangular_solve, vjp_triangular_solve));
  register_linalg_factor_ops();
}

}  // namespace ops

namespace {

Tensor matmul_impl(const Tensor& a, const Tensor& b, Loc loc, const char* name) {
  try {
    ops::check_matmul_shapes(a.shape(), b.shape());
  } catch (const ops::TypeProblem& problem) {
    ops::raise(name, {a, b}, problem, loc);
  }
  DType dtype = promote_types(a.dtype(), b.dtype());
  Tensor x = cast(a, dtype, loc), y = cast(b, dtype, loc);
  bool a_vec = a.ndim() == 1, b_vec = b.ndim() == 1;
  if (a_vec) x = expand_dims(x, 0, loc);
  if (b_vec) y = expand_dims(y, -1, loc);
  Tensor out = ops::make_node(OpKind::Matmul, {x, y}, NoAttr{}, loc, name);
  if (a_vec && b_vec) return squeeze(out, {-2, -1}, loc);
  if (a_vec) return squeeze(out, {-2}, loc);
  if (b_vec) return squeeze(out, {-1}, loc);
  return out;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b, Loc loc) {
  return named_composite("matmul", matmul_impl(a, b, loc, "matmul"));
}

Tensor dot(const Tensor& a, const Tensor& b, Loc loc) {
  if (a.ndim() == 0 || b.ndim() == 0) return named_composite("dot", multiply(a, b, loc));
  if (a.ndim() > 2 || b.ndim() > 2)
    ops::raise("dot", {a, b},
               {ops::TypeProblem::Kind::shape, "dot supports 1-D and 2-D operands only",
                "Use matmul for batched (N-D) products."},
               loc);
  return named_composite("dot", matmul_impl(a, b, loc, "dot"));
}

Tensor outer(const Tensor& a, const Tensor& b, Loc loc) {
  return named_composite("outer", multiply(reshape(a, {-1, 1}, loc), reshape(b, {1, -1}, loc), loc));
}

namespace linalg {

namespace {
Tensor as_float(const Tensor& x, Loc loc) { return cast(x, ops::float_dtype(x.dtype()), loc); }
}  // namespace

Tensor inv(const Tensor& a, Loc loc) { return ops::make_node(OpKind::Inv, {as_float(a, loc)}, NoAttr{}, loc, "inv"); }

Tensor det(const Tensor& a, Loc loc) { return ops::make_node(OpKind::Det, {as_float(a, loc)}, NoAttr{}, loc, "det"); }

std::pair<Tensor, Tensor> slogdet(const Tensor& a, Loc loc) {
  Tensor both = ops::make_node(OpKind::Slogdet, {as_float(a, loc)}, NoAttr{}, loc, "slogdet");
  return {named_composite("slogdet", slice(both, {Index::ellipsis(), Index(0)}, loc)),
          named_composite("slogdet", slice(both, {Index::ellipsis(), Index(1)}, loc))};
}

Tensor cholesky(const Tensor& a, Loc loc) {
  return ops::make_node(OpKind::Cholesky, {as_float(a, loc)}, NoAttr{}, loc, "cholesky");
}

namespace {
// Promotes a and b to one floating dtype; b of shape (..., n) (b.ndim == 1 or a.ndim - 1) is
// made a column (..., n, 1), reported through `vector`.
std::pair<Tensor, Tensor> prepare_solve(const Tensor& a, const Tensor& b, bool& vector, const char* name, Loc loc) {
  DType dtype = ops::float_dtype(promote_types(a.dtype(), b.dtype()));
  Tensor x = cast(a, dtype, loc), y = cast(b, dtype, loc);
  if (b.ndim() == 0)
    ops::raise(name, {a, b},
               {ops::TypeProblem::Kind::shape, "the right-hand side is a scalar", "Pass b as (..., n) or (..., n, k)."},
               loc);
  vector = b.ndim() == 1 || b.ndim() == a.ndim() - 1;
  if (vector) y = expand_dims(y, -1, loc);
  return {x, y};
}
}  // namespace

Tensor solve(const Tensor& a, const Tensor& b, Loc loc) {
  bool vector = false;
  auto [x, y] = prepare_solve(a, b, vector, "solve", loc);
  Tensor out = ops::make_node(OpKind::Solve, {x, y}, NoAttr{}, loc, "solve");
  return vector ? named_composite("solve", squeeze(out, {-1}, loc)) : out;
}

Tensor triangular_solve(const Tensor& a, const Tensor& b, bool lower, bool transpose_a, bool unit_diagonal, Loc loc) {
  bool vector = false;
  auto [x, y] = prepare_solve(a, b, vector, "triangular_solve", loc);
  Tensor out = ops::make_node(OpKind::TriangularSolve, {x, y}, TriangularSolveAttr{lower, transpose_a, unit_diagonal},
                              loc, "triangular_solve");
  return vector ? named_composite("triangular_solve", squeeze(out, {-1}, loc)) : out;
}

}  // namespace linalg
}  // namespace symx

// The spectral decompositions (symx/linalg.hpp): the primitives eigh, eigvalsh, svd, svd_full and
// svdvals, and the composites built on them (pinv, matrix_rank, cond, lstsq).
//
// A primitive with several results returns one array that packs them (the layouts are in
// ops/spectral_lapack.hpp), and the public function slices it, as slogdet does; gradients of the
// slices meet again in the packed node's cotangent. eigh's primitive decomposes the symmetric part
// (a + a^T) / 2 of its input, so its gradient is symmetric; linalg::eigh first builds the symmetric
// matrix from the triangle the user names (NumPy reads one triangle), so the user's gradient is that
// triangle's. Reference evaluation: LAPACK (syevd, gesdd with gesvd when it does not converge) in
// double precision per batch element, float32 results rounded at the end; the compiled backend calls
// the same code in the input's precision (runtime/library_linalg_spectral.cpp). The gradient rules are
// JAX's, transposed, with ties masked (see symx/linalg.hpp), built from graph ops.
#include <cmath>
#include <limits>

#include "ops/op_table.hpp"
#include "ops/spectral_lapack.hpp"
#include "symx/linalg.hpp"
#include "symx/numpy.hpp"
#include "symx/sorting.hpp"

namespace symx {
namespace ops {
namespace {

namespace sp = spectral;

Shape batch_of(const Shape& s) { return Shape(s.begin(), s.end() - 2); }

Tensor mT(const Tensor& x) {
  std::vector<int> perm(static_cast<std::size_t>(x.ndim()));
  for (int i = 0; i < x.ndim(); ++i) perm[static_cast<std::size_t>(i)] = i;
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return transpose(x, perm);
}

Tensor mm(const Tensor& a, const Tensor& b) { return make_node(OpKind::Matmul, {a, b}); }

// Rows [lo, hi) (all columns, or columns [0, cols) when cols >= 0) of the last two axes.
Tensor rows(const Tensor& x, std::int64_t lo, std::int64_t hi, std::int64_t cols = -1) {
  return slice(x, {Index::ellipsis(), Index::range(lo, hi), cols < 0 ? Index::all() : Index::range(0, cols)});
}
// Row r of the last two axes as a vector (columns [0, cols) when cols >= 0).
Tensor row_of(const Tensor& x, std::int64_t r, std::int64_t cols = -1) {
  return slice(x, {Index::ellipsis(), Index(r), cols < 0 ? Index::all() : Index::range(0, cols)});
}

// 1 / x where x != 0, else 0, with a finite gradient everywhere (the masked entries get none).
Tensor masked_reciprocal(const Tensor& x, const Tensor& mask) {
  return where(mask, 0.0, reciprocal(where(mask, 1.0, x)));
}

// The user-facing name of a spectral op.
const char* public_name(OpKind op) {
  switch (op) {
    case OpKind::Eigh: return "eigh";
    case OpKind::Eigvalsh: return "eigvalsh";
    case OpKind::Svdvals: return "svdvals";
    default: return "svd";
  }
}

void require_float(const Tensor& x) {
  if (!is_floating(x.dtype()))
    fail_dtype("the matrix must be floating-point, got " + std::string(dtype_name(x.dtype())),
               "Cast it with astype(float32) or astype(float64).");
}

void require_matrix(const Tensor& a, bool square) {
  if (a.ndim() < 2)
    fail_shape("the matrix must have at least 2 dimensions (..., m, n), got shape " + shape_string(a.shape()),
               "Pass a matrix or a stack of matrices.");
  std::int64_t m = a.shape()[a.shape().size() - 2], n = a.shape().back();
  if (is_symbol(m) || is_symbol(n))
    fail_shape("the matrix sizes (the last two axes) must be known, got shape " + shape_string(a.shape()),
               "Give the placeholder fixed sizes in its last two axes (batch axes may be None).");
  if (square && m != n)
    fail_shape("the matrix must be square in its last two axes, got shape " + shape_string(a.shape()),
               "Pass an (..., n, n) symmetric array; for a non-square one use svd.");
}

TensorType infer_eigh(const std::vector<Tensor>& in, const Attr&) {
  require_float(in[0]);
  require_matrix(in[0], true);
  std::int64_t n = in[0].shape().back();
  Shape out = batch_of(in[0].shape());
  out.push_back(n + 1);
  out.push_back(n);
  return {out, in[0].dtype()};
}

TensorType infer_eigvalsh(const std::vector<Tensor>& in, const Attr&) {
  require_float(in[0]);
  require_matrix(in[0], true);
  Shape out = batch_of(in[0].shape());
  out.push_back(in[0].shape().back());
  return {out, in[0].dtype()};
}

TensorType infer_svd_packed(const std::vector<Tensor>& in, bool full) {
  require_float(in[0]);
  require_matrix(in[0], false);
  std::int64_t m = in[0].shape()[in[0].shape().size() - 2], n = in[0].shape().back();
  Shape out = batch_of(in[0].shape());
  out.push_back(m + 1 + n);
  out.push_back(full ? std::max(m, n) : std::min(m, n));
  return {out, in[0].dtype()};
}
TensorType infer_svd(const std::vector<Tensor>& in, const Attr&) { return infer_svd_packed(in, false); }
TensorType infer_svd_full(const std::vector<Tensor>& in, const Attr&) { return infer_svd_packed(in, true); }

TensorType infer_svdvals(const std::vector<Tensor>& in, const Attr&) {
  require_float(in[0]);
  require_matrix(in[0], false);
  std::int64_t m = in[0].shape()[in[0].shape().size() - 2], n = in[0].shape().back();
  Shape out = batch_of(in[0].shape());
  out.push_back(std::min(m, n));
  return {out, in[0].dtype()};
}

// Runs `solver` (an EighSolver or SvdSolver of double) on every batch element of the input.
template <class Solver>
Array eval_batches(const EvalArgs& args, Solver& solver, std::int64_t m, std::int64_t n, std::int64_t out_each) {
  const Array& a = args.inputs[0];
  std::vector<double> in = a.to_vector();
  std::int64_t count = num_elements(batch_of(a.shape()));
  std::vector<double> out(static_cast<std::size_t>(count * out_each));
  for (std::int64_t b = 0; b < count; ++b)
    sp::check_status(args.node, solver.solve(in.data() + b * m * n, out.data() + b * out_each), b, count);
  return Array::from_vector(out, args.node.type.shape).astype(args.node.type.dtype);
}

Array eval_eigh(const EvalArgs& args) {
  std::int64_t n = args.inputs[0].shape().back();
  sp::EighSolver<double> solver(n, true);
  return eval_batches(args, solver, n, n, (n + 1) * n);
}

Array eval_eigvalsh(const EvalArgs& args) {
  std::int64_t n = args.inputs[0].shape().back();
  sp::EighSolver<double> solver(n, false);
  return eval_batches(args, solver, n, n, n);
}

Array eval_svd_mode(const EvalArgs& args, sp::SvdMode mode) {
  const Shape& s = args.inputs[0].shape();
  std::int64_t m = s[s.size() - 2], n = s.back();
  sp::SvdSolver<double> solver(m, n, mode);
  std::int64_t each = mode == sp::SvdMode::values ? std::min(m, n) : (m + 1 + n) * solver.width();
  return eval_batches(args, solver, m, n, each);
}
Array eval_svd(const EvalArgs& args) { return eval_svd_mode(args, sp::SvdMode::reduced); }
Array eval_svd_full(const EvalArgs& args) { return eval_svd_mode(args, sp::SvdMode::full); }
Array eval_svdvals(const EvalArgs& args) { return eval_svd_mode(args, sp::SvdMode::values); }

// ---- gradients ----

// The mask of ties between the values x (..., n) as (..., n, n): |x_j - x_i| <= n * eps * max|x| (the
// diagonal included). Values computed from a matrix with an exactly repeated eigenvalue differ by rounding,
// so exact equality would leave 1 / (x_j - x_i) ~ 1 / eps there.
Tensor ties(const Tensor& x, const Tensor& col_minus_row) {
  std::int64_t n = x.shape().back();
  double eps = x.dtype() == DType::f64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
  Tensor tol = expand_dims(max(abs(x), Axes(-1), true), -1) * (static_cast<double>(n) * eps);
  return less_equal(abs(col_minus_row), tol);
}

// eigh: ga = v (diag(gw) + F * (v^T gv)) v^T, symmetrized (the primitive reads (a + a^T) / 2).
std::vector<Tensor> vjp_eigh(const Tensor& y, const Tensor& g) {
  std::int64_t n = y.shape().back();
  Tensor w = row_of(y, 0), v = rows(y, 1, n + 1);
  Tensor gw = row_of(g, 0), gv = rows(g, 1, n + 1);
  Tensor diff = expand_dims(w, -2) - expand_dims(w, -1);  // w_j - w_i
  Tensor F = masked_reciprocal(diff, ties(w, diff));
  Tensor inner = expand_dims(gw, -2) * eye(n, std::nullopt, 0, y.dtype()) + F * mm(mT(v), gv);
  Tensor ga = mm(mm(v, inner), mT(v));
  return {(ga + mT(ga)) * 0.5};
}

// eigvalsh: ga = v diag(g) v^T, with v from an eigh of the same input.
std::vector<Tensor> vjp_eigvalsh(const Tensor& y, const Tensor& g) {
  const Tensor& a = y.node().inputs[0];
  std::int64_t n = a.shape().back();
  Tensor v = rows(make_node(OpKind::Eigh, {a}, NoAttr{}, Loc::current(), "eigvalsh"), 1, n + 1);
  Tensor ga = mm(v * expand_dims(g, -2), mT(v));
  return {(ga + mT(ga)) * 0.5};
}

// The reduced SVD's rule (JAX's svd_jvp_rule transposed), from u (m, k), s (k), v (n, k) and their
// cotangents: ga = u M v^T with M = diag(gs) + (J + J^T) diag(s) + diag(s) (K + K^T), J = F * (u^T gu),
// K = F * (v^T gv), F_ij = 1 / (s_j^2 - s_i^2) (ties masked); plus, for m > n, (gu - u u^T gu) diag(1/s) v^T,
// and for n > m, u diag(1/s) (gv^T - gv^T v v^T) (1/s masked where s <= k * eps * max(s)).
Tensor svd_rule(const Tensor& u, const Tensor& s, const Tensor& v, const Tensor& gu, const Tensor& gs, const Tensor& gv,
                std::int64_t m, std::int64_t n) {
  std::int64_t k = std::min(m, n);
  Tensor s_row = expand_dims(s, -2), s_col = expand_dims(s, -1);
  Tensor diff = s_row - s_col;  // s_j - s_i
  Tensor F = masked_reciprocal((s_row + s_col) * diff, ties(s, diff));
  Tensor J = F * mm(mT(u), gu);
  Tensor K = F * mm(mT(v), gv);
  Tensor M = expand_dims(gs, -2) * eye(k, std::nullopt, 0, s.dtype()) + (J + mT(J)) * s_row + s_col * (K + mT(K));
  Tensor ga = mm(mm(u, M), mT(v));
  Tensor s_max = max(s, Axes(-1), true);
  double eps = s.dtype() == DType::f64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
  Tensor s_inv = masked_reciprocal(s, less_equal(s, s_max * (static_cast<double>(k) * eps)));
  if (m > n) ga = ga + mm((gu - mm(u, mm(mT(u), gu))) * expand_dims(s_inv, -2), mT(v));
  if (n > m) ga = ga + mm(u, expand_dims(s_inv, -1) * (mT(gv) - mm(mm(mT(gv), v), mT(v))));
  return ga;
}

std::vector<Tensor> vjp_svd(const Tensor& y, const Tensor& g) {
  const Shape& as = y.node().inputs[0].shape();
  std::int64_t m = as[as.size() - 2], n = as.back();
  Tensor u = rows(y, 0, m), s = row_of(y, m), v = rows(y, m + 1, m + 1 + n);
  Tensor gu = rows(g, 0, m), gs = row_of(g, m), gv = rows(g, m + 1, m + 1 + n);
  return {svd_rule(u, s, v, gu, gs, gv, m, n)};
}

// Whether the cotangent g of a packed node is zero outside row `r` of its last two axes: the
// cotangent of slices of that row alone (unslices of it, and sums of those).
bool only_row(const Tensor& g, std::int64_t r) {
  if (g.op() == OpKind::Add) return only_row(g.node().inputs[0], r) && only_row(g.node().inputs[1], r);
  if (g.op() != OpKind::Unslice) return false;
  const auto& a = std::get<SliceAttr>(g.node().attr);
  std::size_t axis = a.input_shape.size() - 2;
  return a.start.size() == a.input_shape.size() && a.start[axis] == r && a.count[axis] == 1;
}

// svd_full: only the singular values have a gradient (JAX raises for any; u's and vh's extra columns
// are not determined by a).
std::vector<Tensor> vjp_svd_full(const Tensor& y, const Tensor& g) {
  const Tensor& a = y.node().inputs[0];
  std::int64_t m = a.shape()[a.shape().size() - 2], n = a.shape().back(), k = std::min(m, n);
  if (!only_row(g, m))
    raise_at("svd", {a},
             {TypeProblem::Kind::value,
              "the gradient of u or vh of svd(a, full_matrices=True) is not defined (the extra columns of u or vh are "
              "any orthonormal completion; JAX raises too)",
              "Call svd(a, full_matrices=False) for gradients of u and vh (the singular values' gradient works with "
              "either)."},
             y.node().where);
  Tensor u = rows(y, 0, m, k), v = rows(y, m + 1, m + 1 + n, k), gs = row_of(g, m, k);
  return {mm(u * expand_dims(gs, -2), mT(v))};
}

// svdvals: ga = u diag(g) v^T, with u and v from a reduced svd of the same input.
std::vector<Tensor> vjp_svdvals(const Tensor& y, const Tensor& g) {
  const Tensor& a = y.node().inputs[0];
  std::int64_t m = a.shape()[a.shape().size() - 2], n = a.shape().back();
  Tensor p = make_node(OpKind::Svd, {a}, NoAttr{}, Loc::current(), "svdvals");
  Tensor u = rows(p, 0, m), v = rows(p, m + 1, m + 1 + n);
  return {mm(u * expand_dims(g, -2), mT(v))};
}

}  // namespace

void spectral::check_status(const Node& node, sp::Status status, std::int64_t batch, std::int64_t count) {
  if (status == sp::Status::ok) return;
  std::string where = count > 1 ? " (batch element " + std::to_string(batch) + ")" : "";
  std::string message = std::string(public_name(node.op)) + ": ";
  std::string fix;
  if (status == sp::Status::not_finite) {
    message += "the matrix" + where + " has a NaN or infinite entry";
    fix = "Check the input (isfinite) before decomposing it; NumPy raises LinAlgError here.";
  } else {
    message += "LAPACK did not converge on the matrix" + where;
    fix = "Check the input for huge or badly scaled entries (scale it, e.g. by its largest entry).";
  }
  if (!node.where.empty()) message += ", at " + node.where;
  throw ValueError(message + ". " + fix);
}

void register_spectral_ops() {
  using K = OpKind;
  using L = Lowering;
  constexpr auto F = Family::linalg;
  define(K::Eigh, row(F, 1, L::library, infer_eigh, eval_eigh, vjp_eigh));
  define(K::Eigvalsh, row(F, 1, L::library, infer_eigvalsh, eval_eigvalsh, vjp_eigvalsh));
  define(K::Svd, row(F, 1, L::library, infer_svd, eval_svd, vjp_svd));
  define(K::SvdFull, row(F, 1, L::library, infer_svd_full, eval_svd_full, vjp_svd_full));
  define(K::Svdvals, row(F, 1, L::library, infer_svdvals, eval_svdvals, vjp_svdvals));
}

}  // namespace ops

namespace linalg {
namespace {

Tensor as_float(const Tensor& x, Loc loc) { return is_inexact(x.dtype()) ? x : cast(x, DType::f32, loc); }

double eps_of(DType d) {
  return d == DType::f64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
}

[[noreturn]] void user_error(const char* name, const Tensor& x, ops::TypeProblem::Kind kind, std::string problem,
                             std::string fix, Loc loc) {
  ops::raise(name, {x}, {kind, std::move(problem), std::move(fix)}, loc);
}

// The shape checks of the public functions, before they build graphs around the primitive.
void check_matrix(const char* name, const Tensor& a, bool square, Loc loc) {
  if (a.ndim() < 2)
    user_error(name, a, ops::TypeProblem::Kind::shape,
               "expects a matrix or a stack of matrices (at least 2 dimensions), got shape " + shape_string(a.shape()),
               "Pass an (..., m, n) array; reshape a vector to (1, n) or (n, 1).", loc);
  std::int64_t m = a.shape()[a.shape().size() - 2], n = a.shape().back();
  if (square && m != n && !is_symbol(m) && !is_symbol(n))
    user_error(name, a, ops::TypeProblem::Kind::shape,
               "expects square matrices in the last two axes, got shape " + shape_string(a.shape()),
               "Pass an (..., n, n) array; for a non-square one use svd.", loc);
}

// An (n, n) constant: `below` under the diagonal, `diag` on it, `above` over it.
Tensor tri_mask(std::int64_t n, DType dtype, double below, double diag, double above) {
  Array m({n, n}, dtype);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) m.set_flat(i * n + j, i > j ? below : i == j ? diag : above);
  return constant(m);
}

// The symmetric matrix of the triangle UPLO names ("L": a's lower triangle mirrored).
Tensor symmetric_from(const char* name, const Tensor& a, const std::string& UPLO, Loc loc) {
  if (UPLO != "L" && UPLO != "U")
    user_error(name, a, ops::TypeProblem::Kind::value, "UPLO must be 'L' or 'U', got '" + UPLO + "'",
               "Pass UPLO='L' (read the lower triangle, the default) or UPLO='U'.", loc);
  std::int64_t n = a.shape().back();
  bool lower = UPLO == "L";
  Tensor with_diag = a * tri_mask(n, a.dtype(), lower, 1, !lower);
  Tensor strict = a * tri_mask(n, a.dtype(), lower, 0, !lower);
  return with_diag + ops::mT(strict);
}

Tensor eigh_packed(const char* name, const Tensor& a_in, const std::string& UPLO, Loc loc) {
  Tensor a = as_float(a_in, loc);
  check_matrix(name, a, true, loc);
  return ops::make_node(OpKind::Eigh, {symmetric_from(name, a, UPLO, loc)}, NoAttr{}, loc, name);
}

// (u, s, vh) of a symmetric a from eigh, as numpy.linalg.svd(hermitian=True).
std::tuple<Tensor, Tensor, Tensor> svd_hermitian(const Tensor& a, Loc loc) {
  auto [w, v] = eigh(a, "L", loc);
  Tensor order = flip(argsort(abs(w, loc), -1, true, false, loc), {-1}, loc);
  Tensor sgn = take_along_axis(sign(w, loc), order, -1, loc);
  Tensor s = take_along_axis(abs(w, loc), order, -1, loc);
  Tensor u = take_along_axis(v, broadcast_to(expand_dims(order, -2, loc), v.shape(), loc), -1, loc);
  Tensor vh = ops::mT(u * expand_dims(sgn, -2, loc));
  return {u, s, vh};
}

// Singular values from eigvalsh (descending |w|) for hermitian, else svdvals.
Tensor singular_values(const Tensor& a, bool hermitian, Loc loc) {
  if (!hermitian) return svdvals(a, loc);
  return flip(sort(abs(eigvalsh(a, "L", loc), loc), -1, true, false, loc), {-1}, loc);
}

}  // namespace

std::pair<Tensor, Tensor> eigh(const Tensor& a, const std::string& UPLO, Loc loc) {
  Tensor p = eigh_packed("eigh", a, UPLO, loc);
  std::int64_t n = p.shape().back();
  return {named_composite("eigh", ops::row_of(p, 0)), named_composite("eigh", ops::rows(p, 1, n + 1))};
}

Tensor eigvalsh(const Tensor& a_in, const std::string& UPLO, Loc loc) {
  Tensor a = as_float(a_in, loc);
  check_matrix("eigvalsh", a, true, loc);
  return ops::make_node(OpKind::Eigvalsh, {symmetric_from("eigvalsh", a, UPLO, loc)}, NoAttr{}, loc, "eigvalsh");
}

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& a_in, bool full_matrices, bool hermitian, Loc loc) {
  Tensor a = as_float(a_in, loc);
  check_matrix("svd", a, hermitian, loc);
  if (hermitian) {
    auto [u, s, vh] = svd_hermitian(a, loc);
    return {named_composite("svd", u), named_composite("svd", s), named_composite("svd", vh)};
  }
  std::int64_t m = a.shape()[a.shape().size() - 2], n = a.shape().back(), k = std::min(m, n);
  Tensor p = ops::make_node(full_matrices ? OpKind::SvdFull : OpKind::Svd, {a}, NoAttr{}, loc, "svd");
  Tensor u = full_matrices ? ops::rows(p, 0, m, m) : ops::rows(p, 0, m);
  Tensor s = full_matrices ? ops::row_of(p, m, k) : ops::row_of(p, m);
  Tensor v = full_matrices ? ops::rows(p, m + 1, m + 1 + n, n) : ops::rows(p, m + 1, m + 1 + n);
  return {named_composite("svd", u), named_composite("svd", s), named_composite("svd", ops::mT(v))};
}

Tensor svdvals(const Tensor& a_in, Loc loc) {
  Tensor a = as_float(a_in, loc);
  check_matrix("svdvals", a, false, loc);
  return ops::make_node(OpKind::Svdvals, {a}, NoAttr{}, loc, "svdvals");
}

Tensor pinv(const Tensor& a_in, std::optional<double> rtol, bool hermitian, Loc loc) {
  Tensor a = as_float(a_in, loc);
  check_matrix("pinv", a, hermitian, loc);
  std::int64_t m = a.shape()[a.shape().size() - 2], n = a.shape().back();
  double r = rtol ? *rtol : static_cast<double>(std::max(m, n)) * eps_of(a.dtype());
  auto [u, s, vh] = hermitian ? svd_hermitian(a, loc) : svd(a, false, false, loc);
  Tensor cutoff = max(s, Axes(-1), true, loc) * r;
  Tensor small = logical_not(greater(s, cutoff, loc), loc);
  Tensor s_inv = ops::masked_reciprocal(s, small);
  return named_composite("pinv", matmul(ops::mT(vh), expand_dims(s_inv, -1, loc) * ops::mT(u), loc));
}

Tensor matrix_rank(const Tensor& a_in, std::optional<double> tol, bool hermitian, std::optional<double> rtol, Loc loc) {
  Tensor a = as_float(a_in, loc);
  if (tol && rtol)
    user_error("matrix_rank", a, ops::TypeProblem::Kind::value, "tol and rtol can't both be set",
               "Pass tol (an absolute threshold) or rtol (relative to the largest singular value), not both.", loc);
  if (a.ndim() < 2)
    return named_composite("matrix_rank", cast(any(not_equal(a, 0.0, loc), {}, false, loc), DType::i64, loc));
  check_matrix("matrix_rank", a, hermitian, loc);
  std::int64_t m = a.shape()[a.shape().size() - 2], n = a.shape().back();
  Tensor s = singular_values(a, hermitian, loc);
  Tensor threshold;
  if (tol) threshold = constant(Array::scalar(*tol).astype(a.dtype()));
  else {
    double r = rtol ? *rtol : static_cast<double>(std::max(m, n)) * eps_of(a.dtype());
    // max with initial=0: an empty s gives 0
    Tensor top = std::min(m, n) == 0 ? zeros(Shape(s.shape().begin(), s.shape().end() - 1), a.dtype(), loc)
                                     : max(s, Axes(-1), false, loc);
    threshold = expand_dims(top, -1, loc) * r;
  }
  Tensor count = sum(cast(greater(s, threshold, loc), DType::i64, loc), Axes(-1), false, loc);
  return named_composite("matrix_rank", stop_gradient(count, loc));
}

namespace {
// A cond or norm order spelled as NumPy's, normalized: "2.0" -> "2", "+inf" -> "inf".
std::string normalized_order(const std::string& p) {
  if (p.empty() || p == "fro" || p == "nuc") return p;
  if (p == "inf" || p == "+inf") return "inf";
  if (p == "-inf") return p;
  try {
    std::size_t used = 0;
    double v = std::stod(p, &used);
    if (used == p.size() && v == std::floor(v) && std::fabs(v) < 1e9) return std::to_string(static_cast<long long>(v));
  } catch (const std::exception&) {}
  return p;
}
}  // namespace

Tensor cond(const Tensor& x_in, const std::string& p_in, Loc loc) {
  Tensor x = as_float(x_in, loc);
  check_matrix("cond", x, false, loc);
  std::string p = normalized_order(p_in);
  Tensor r;
  if (p.empty() || p == "2" || p == "-2") {
    Tensor s = svdvals(x, loc);
    std::int64_t k = s.shape().back();
    if (k == 0)
      user_error("cond", x, ops::TypeProblem::Kind::shape, "the matrix is empty, got shape " + shape_string(x.shape()),
                 "Pass a matrix with at least one row and one column.", loc);
    Tensor first = slice(s, {Index::ellipsis(), Index(0)}, loc),
           last = slice(s, {Index::ellipsis(), Index(k - 1)}, loc);
    r = p == "-2" ? last / first : first / last;
    // 0 / 0 (a zero matrix) is inf, as NumPy's
    r = where(isnan(r, loc), std::numeric_limits<double>::infinity(), r, loc);
  } else if (p == "fro" || p == "nuc" || p == "1" || p == "-1" || p == "inf" || p == "-inf") {
    check_matrix("cond", x, true, loc);
    r = matrix_norm(x, p, {-2, -1}, false, loc) * matrix_norm(inv(x, loc), p, {-2, -1}, false, loc);
  } else {
    user_error("cond", x, ops::TypeProblem::Kind::value, "invalid order p='" + p_in + "'",
               "Pass p=None, 2, -2, 'fro', 'nuc', 1, -1, inf or -inf.", loc);
  }
  return named_composite("cond", r);
}

std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& a_in, const Tensor& b_in, std::optional<double> rcond,
                                                 Loc loc) {
  const char* name = "lstsq";
  DType dtype = promote_types(a_in.dtype(), b_in.dtype());
  if (!is_floating(dtype)) dtype = DType::f32;
  Tensor a = cast(a_in, dtype, loc), b = cast(b_in, dtype, loc);
  check_matrix(name, a, false, loc);
  if (b.ndim() == 0)
    ops::raise(name, {a_in, b_in},
               {ops::TypeProblem::Kind::shape, "the right-hand side is a scalar", "Pass b as (..., m) or (..., m, k)."},
               loc);
  bool vector = b.ndim() == a.ndim() - 1;
  if (vector) b = expand_dims(b, -1, loc);
  std::int64_t m = a.shape()[a.shape().size() - 2], n = a.shape().back();
  std::int64_t rows_b = b.shape()[b.shape().size() - 2];
  if (b.ndim() < 2 || rows_b != m)
    ops::raise(name, {a_in, b_in},
               {ops::TypeProblem::Kind::shape,
                "a has " + std::to_string(m) + " rows but b has shape " + shape_string(b_in.shape()),
                "Pass b as (..., " + std::to_string(m) + ") or (..., " + std::to_string(m) + ", k)."},
               loc);
  double r = rcond ? *rcond : static_cast<double>(std::max(m, n)) * eps_of(dtype);
  auto [u, s, vh] = svd(a, false, false, loc);
  Tensor large;
  if (std::min(m, n) == 0) large = greater(s, 0.0, loc);
  else large = greater(s, max(s, Axes(-1), true, loc) * r, loc);
  Tensor s_inv = ops::masked_reciprocal(s, logical_not(large, loc));
  Tensor x = matmul(ops::mT(vh), expand_dims(s_inv, -1, loc) * matmul(ops::mT(u), b, loc), loc);
  Tensor residuals;
  Shape batch(x.shape().begin(), x.shape().end() - 2);
  if (m <= n) {
    Shape empty = batch;
    empty.push_back(0);
    residuals = zeros(empty, dtype, loc);
  } else {
    residuals = sum(square(b - matmul(a, x, loc), loc), Axes(-2), false, loc);
  }
  Tensor rank = cast(sum(cast(large, DType::i32, loc), Axes(-1), false, loc), DType::i32, loc);  // NumPy's int32
  if (vector) x = squeeze(x, {-1}, loc);
  return {named_composite(name, x), named_composite(name, residuals), named_composite(name, stop_gradient(rank, loc)),
          named_composite(name, s)};
}

}  // namespace linalg
}  // namespace symx

// src/ops/norms.cpp: linalg.vector_norm, matrix_norm and norm (symx/ops.hpp), as numpy.linalg's:
// composites of reductions, so that they fuse with what computes x.
//
// The 2-norm and the other p-norms take the root through a guard, where(s == 0, 0, root(where(s == 0,
// 1, s))): their gradient at x = 0 is 0 (PyTorch's subgradient; the bare formula gives 0/0 = NaN
// there, as JAX's does). The matrix 2-norm, -2-norm and nuclear norm are the largest, smallest and sum
// of the singular values (linalg::svdvals, symx/linalg.hpp), with its gradient u diag(g) vh.
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "ops/op_table.hpp"
#include "symx/arrays.hpp"
#include "symx/linalg.hpp"
#include "symx/ops.hpp"

namespace symx::linalg {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

[[noreturn]] void norm_error(const char* name, const Tensor& x, std::string problem, std::string fix, Loc loc) {
  ops::raise(name, {x}, {ops::TypeProblem::Kind::value, std::move(problem), std::move(fix)}, loc);
}

Tensor as_float(const Tensor& x, Loc loc) { return is_inexact(x.dtype()) ? x : cast(x, DType::f32, loc); }

// root(s) = s^(1/p) for s >= 0, with a zero gradient at s = 0.
Tensor guarded_root(const Tensor& s, double p, Loc loc) {
  Tensor zero = equal(s, 0.0, loc);
  Tensor safe = where(zero, 1.0, s, loc);
  Tensor root = p == 2 ? sqrt(safe, loc) : power(safe, 1.0 / p, loc);
  return where(zero, 0.0, root, loc);
}

// An ord spelled as NumPy's: a number, "inf" or "-inf".
bool parse_number(const std::string& ord, double& value) {
  if (ord == "inf" || ord == "+inf") return value = kInf, true;
  if (ord == "-inf") return value = -kInf, true;
  const char* end = ord.data() + ord.size();
  auto [ptr, ec] = std::from_chars(ord.data(), end, value);
  return ec == std::errc() && ptr == end && !std::isnan(value);
}

std::string ord_text(double ord) {
  if (std::isinf(ord)) return ord > 0 ? "inf" : "-inf";
  std::string s = std::to_string(ord);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

Tensor vector_norm(const Tensor& x_in, double ord, Axes axis, bool keepdims, Loc loc) {
  if (std::isnan(ord))
    norm_error("vector_norm", x_in, "ord is NaN", "Give a number p (the p-norm), inf, -inf or 0.", loc);
  Tensor x = as_float(x_in, loc);
  Tensor a = abs(x, loc);
  Tensor r;
  if (ord == kInf) r = max(a, axis, keepdims, loc);
  else if (ord == -kInf) r = min(a, axis, keepdims, loc);
  else if (ord == 0) r = sum(cast(not_equal(x, 0.0, loc), x.dtype(), loc), axis, keepdims, loc);
  else if (ord == 1) r = sum(a, axis, keepdims, loc);
  else if (ord == 2) r = guarded_root(sum(square(x, loc), axis, keepdims, loc), 2, loc);
  else {
    // For 0 < p < 1, |x|^p has an infinite slope at 0: guarded as the root, so that a zero element has
    // gradient 0 (as PyTorch's masked rule) instead of inf * 0.
    Tensor powered = power(a, ord, loc);
    if (ord > 0 && ord < 1) {
      Tensor zero = equal(a, 0.0, loc);
      powered = where(zero, 0.0, power(where(zero, 1.0, a, loc), ord, loc), loc);
    }
    r = guarded_root(sum(powered, axis, keepdims, loc), ord, loc);
  }
  return named_composite("vector_norm", r);
}

Tensor matrix_norm(const Tensor& x_in, const std::string& ord_in, std::vector<std::int64_t> axis, bool keepdims,
                   Loc loc) {
  const char* name = "matrix_norm";
  if (x_in.ndim() < 2)
    norm_error(name, x_in, "expects a matrix (at least 2 dimensions), got " + std::to_string(x_in.ndim()),
               "Use linalg.vector_norm for vectors, or reshape x to (rows, columns).", loc);
  if (axis.size() != 2)
    norm_error(name, x_in, "axis must name two axes (rows, columns), got " + std::to_string(axis.size()),
               "Pass axis={-2, -1} (the default) or two other distinct axes.", loc);
  const int rows = ops::checked_axis(axis[0], x_in.ndim());
  const int cols = ops::checked_axis(axis[1], x_in.ndim());
  if (rows == cols)
    norm_error(name, x_in, "axis names the same axis twice (" + std::to_string(rows) + ")",
               "Pass two distinct axes, e.g. axis={-2, -1}.", loc);
  std::string ord = ord_in;
  double number = 0;
  if (parse_number(ord, number)) ord = ord_text(number);
  Tensor x = as_float(x_in, loc);
  Tensor r;
  auto squeeze_both = [&](Tensor t) {
    if (keepdims) return t;
    return squeeze(t, {std::max(rows, cols), std::min(rows, cols)}, loc);
  };
  if (ord == "fro") {
    r = guarded_root(sum(square(x, loc), Axes(std::vector<std::int64_t>{rows, cols}), keepdims, loc), 2, loc);
  } else if (ord == "1" || ord == "-1" || ord == "inf" || ord == "-inf") {
    // 1: the largest column sum (sum over rows, then the extreme over columns); inf: the largest row sum.
    const bool by_columns = ord == "1" || ord == "-1";
    Tensor sums = sum(abs(x, loc), Axes(by_columns ? rows : cols), true, loc);
    const std::int64_t over = by_columns ? cols : rows;
    Tensor extreme = ord[0] == '-' ? min(sums, Axes(over), true, loc) : max(sums, Axes(over), true, loc);
    r = squeeze_both(extreme);
  } else if (ord == "2" || ord == "-2" || ord == "nuc") {
    // The singular values of the (rows, cols) matrices, moved to the last two axes.
    std::vector<int> perm;
    for (int d = 0; d < x.ndim(); ++d)
      if (d != rows && d != cols) perm.push_back(d);
    perm.push_back(rows);
    perm.push_back(cols);
    Tensor s = svdvals(transpose(x, perm, loc), loc);
    if (ord == "2") r = max(s, Axes(-1), false, loc);
    else if (ord == "-2") r = min(s, Axes(-1), false, loc);
    else r = sum(s, Axes(-1), false, loc);
    if (keepdims) r = expand_dims(expand_dims(r, std::min(rows, cols), loc), std::max(rows, cols), loc);
  } else {
    norm_error(name, x_in, "invalid norm order '" + ord_in + "' for matrices",
               "Matrix norms take ord='fro', 'nuc', 1, -1, 2, -2, inf or -inf.", loc);
  }
  return named_composite("matrix_norm", r);
}

Tensor norm(const Tensor& x, const std::string& ord, std::optional<std::vector<std::int64_t>> axis, bool keepdims,
            Loc loc) {
  const char* name = "norm";
  std::vector<std::int64_t> axes;
  if (axis) axes = *axis;
  else if (ord.empty()) {
    // numpy.linalg.norm(x): the 2-norm of x flattened, whatever its rank.
    return named_composite("norm", vector_norm(x, 2, Axes(), keepdims, loc));
  } else if (x.ndim() == 1 || x.ndim() == 2) {
    for (int d = 0; d < x.ndim(); ++d) axes.push_back(d);
  } else {
    norm_error(name, x,
               "an ord with no axis needs a vector or a matrix, got " + std::to_string(x.ndim()) + " dimensions",
               "Pass axis= (one axis for vector norms, two for matrix norms), or no ord.", loc);
  }
  Tensor r;
  if (axes.size() == 1) {
    double p = 2;
    if (!ord.empty() && !parse_number(ord, p))
      norm_error(name, x, "invalid norm order '" + ord + "' for vectors",
                 "Vector norms take a number p, inf or -inf ('fro' and 'nuc' are matrix norms).", loc);
    r = vector_norm(x, p, Axes(axes[0]), keepdims, loc);
  } else if (axes.size() == 2) {
    r = matrix_norm(x, ord.empty() ? "fro" : ord, axes, keepdims, loc);
  } else {
    norm_error(name, x, "axis must name one or two axes, got " + std::to_string(axes.size()),
               "One axis gives vector norms, two give matrix norms.", loc);
  }
  return named_composite("norm", r);
}

}  // namespace symx::linalg

namespace symx {
namespace {
// x / max(|x|_2, 1e-12), as SymJAX's normalize of a vector.
Tensor unit(const Tensor& x, Loc loc) { return x / maximum(linalg::vector_norm(x, 2, Axes(), false, loc), 1e-12, loc); }
}  // namespace

namespace linalg {
std::pair<Tensor, Tensor> singular_vectors_power_iteration(const Tensor& weight_in, int, int n_iters, Loc loc) {
  if (weight_in.ndim() != 2)
    ops::raise("singular_vectors_power_iteration", {weight_in},
               {ops::TypeProblem::Kind::shape,
                "expects a matrix, got " + std::to_string(weight_in.ndim()) + " dimensions",
                "Reshape the weight first: reshape_weight_to_matrix(w, axis)."},
               loc);
  if (n_iters < 1)
    ops::raise("singular_vectors_power_iteration", {weight_in},
               {ops::TypeProblem::Kind::value, "n_iters must be at least 1, got " + std::to_string(n_iters),
                "Pass n_iters=1 or more (more steps give closer vectors)."},
               loc);
  Tensor w = is_inexact(weight_in.dtype()) ? weight_in : cast(weight_in, DType::f32, loc);
  Tensor u = unit(random::normal({w.shape()[0]}, 0, 1, w.dtype(), loc), loc);
  Tensor v;
  for (int k = 0; k < n_iters; ++k) {
    v = unit(matmul(u, w, loc), loc);  // W^T u
    u = unit(matmul(w, v, loc), loc);
  }
  return {named_composite("singular_vectors_power_iteration", u),
          named_composite("singular_vectors_power_iteration", v)};
}
}  // namespace linalg

namespace normalization {
Tensor spectral_normalize(const Tensor& weight, int axis, int n_iters, Loc loc) {
  Tensor m = reshape_weight_to_matrix(weight, axis, loc);
  auto [u, v] = linalg::singular_vectors_power_iteration(m, axis, n_iters, loc);
  Tensor sigma = dot(stop_gradient(u, loc), matmul(m, stop_gradient(v, loc), loc), loc);
  Tensor w = is_inexact(weight.dtype()) ? weight : cast(weight, DType::f32, loc);
  return named_composite("spectral_normalize", w / sigma);
}
}  // namespace normalization
}  // namespace symx

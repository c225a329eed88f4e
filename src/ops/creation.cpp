// Constant tensors: zeros, ones (a broadcast scalar, so large shapes cost no memory in the
// graph), zeros_like, ones_like, eye, arange and linspace (baked-in arrays).
#include <cmath>

#include "ops/op_table.hpp"

namespace symx {
namespace {

Tensor filled(const char* name, const Shape& shape, double value, DType dtype, Loc loc) {
  ops::check_user_shape(name, shape, dtype, loc);
  return named_composite(name, broadcast_to(constant(value, dtype, loc), shape, loc));
}

}  // namespace

Tensor zeros(Shape shape, DType dtype, Loc loc) { return filled("zeros", shape, 0, dtype, loc); }
Tensor ones(Shape shape, DType dtype, Loc loc) { return filled("ones", shape, 1, dtype, loc); }
Tensor zeros_like(const Tensor& x, Loc loc) { return filled("zeros_like", x.shape(), 0, x.dtype(), loc); }
Tensor ones_like(const Tensor& x, Loc loc) { return filled("ones_like", x.shape(), 1, x.dtype(), loc); }

Tensor eye(std::int64_t n, std::optional<std::int64_t> m, std::int64_t k, DType dtype, Loc loc) {
  std::int64_t cols = m.value_or(n);
  ops::check_user_shape("eye", {n, cols}, dtype, loc);
  Array a(Shape{n, cols}, dtype);
  for (std::int64_t i = 0; i < n; ++i)
    if (i + k >= 0 && i + k < cols) a.set_flat(i * cols + i + k, 1);
  return named_composite("eye", constant(a, loc));
}

Tensor linspace(double start, double stop, std::int64_t num, bool endpoint, DType dtype, Loc loc) {
  if (num < 0)
    ops::raise("linspace", {},
               {ops::TypeProblem::Kind::value, "num must be non-negative, got " + std::to_string(num),
                "Pass num >= 0."},
               loc);
  Array a(Shape{num}, dtype);
  std::int64_t div = endpoint ? num - 1 : num;
  double step = div > 0 ? (stop - start) / static_cast<double>(div) : 0;
  for (std::int64_t i = 0; i < num; ++i) {
    double v = start + static_cast<double>(i) * step;
    if (endpoint && i == num - 1 && num > 1) v = stop;
    // Integer dtypes round toward -inf, as NumPy (>= 1.20).
    a.set_flat(i, is_floating(dtype) ? v : std::floor(v));
  }
  return named_composite("linspace", constant(a, loc));
}

Tensor arange(double start, double stop, double step, DType dtype, Loc loc) {
  if (step == 0 || !std::isfinite(step) || !std::isfinite(start) || !std::isfinite(stop))
    ops::raise("arange", {},
               {ops::TypeProblem::Kind::value,
                "start, stop and step must be finite and step non-zero (got " + std::to_string(start) + ", " +
                    std::to_string(stop) + ", " + std::to_string(step) + ")",
                "Pass finite bounds and a non-zero step."},
               loc);
  return named_composite("arange", constant(Array::arange(start, stop, step, dtype), loc));
}

}  // namespace symx

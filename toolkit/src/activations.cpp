#include "symx/nn/activations.hpp"

#include <cmath>
#include <limits>

#include "nn_internal.hpp"

namespace symx::nn {

namespace {
// Integer and bool tensors compute in symx's default float, as the engine's activations do.
Tensor as_float(const Tensor& x, Loc loc) { return is_floating(x.dtype()) ? x : astype(x, DType::f32, loc); }

// `axis` of x counted from 0, or a ShapeError naming the function and x.
int checked_axis(const char* fn, const Tensor& x, int axis, Loc loc) {
  if (axis < -x.ndim() || axis >= x.ndim())
    throw ShapeError(std::string(fn) + ": axis " + std::to_string(axis) + " is out of range for " +
                     internal::describe("x", x) + internal::at_user_line(loc) + ". Pass an axis in [" +
                     std::to_string(-x.ndim()) + ", " + std::to_string(x.ndim()) + ").");
  return axis < 0 ? axis + x.ndim() : axis;
}

// x limited to [lo, hi] with gradient 0 at the bounds themselves, as PyTorch's hardtanh, relu6 and
// hardsigmoid (JAX's relu6 agrees); symx::clip keeps the gradient there, as torch.clamp. NaN propagates.
Tensor hard_clip(const Tensor& x, double lo, double hi, Loc loc) {
  Tensor low = where(less_equal(x, lo, loc), lo, x, loc);
  return where(greater_equal(low, hi, loc), hi, low, loc);
}
}  // namespace

Tensor relu6(const Tensor& x, Loc loc) { return hard_clip(as_float(x, loc), 0, 6, loc); }

Tensor silu(const Tensor& x, Loc loc) {
  Tensor f = as_float(x, loc);
  return multiply(f, symx::sigmoid(f, loc), loc);
}

Tensor swish(const Tensor& x, Loc loc) { return silu(x, loc); }

Tensor hard_tanh(const Tensor& x, double min_value, double max_value, Loc loc) {
  return hard_clip(as_float(x, loc), min_value, max_value, loc);
}

Tensor selu(const Tensor& x, Loc loc) {
  // The constants of Klambauer et al. (2017), as PyTorch spells them.
  constexpr double alpha = 1.6732632423543772848170429916717;
  constexpr double scale = 1.0507009873554804934193349852946;
  return multiply(elu(as_float(x, loc), alpha, loc), scale, loc);
}

Tensor celu(const Tensor& x, double alpha, Loc loc) {
  if (!(alpha > 0) || !std::isfinite(alpha))
    throw ValueError("celu: alpha is " + std::to_string(alpha) + internal::at_user_line(loc) +
                     "; it must be a positive number (it scales x inside exp(x / alpha)). The default is 1.0.");
  Tensor f = as_float(x, loc);
  // expm1 of min(x, 0) keeps the unused branch finite for large x, so its gradient is 0, not NaN; min
  // spelled with where so that x = 0 takes the negative branch's whole slope 1 (as PyTorch's celu).
  Tensor positive = greater(f, 0, loc);
  Tensor negative_part = multiply(expm1(divide(where(positive, 0, f, loc), alpha, loc), loc), alpha, loc);
  return where(positive, f, negative_part, loc);
}

Tensor hard_sigmoid(const Tensor& x, Loc loc) {
  return divide(hard_clip(add(as_float(x, loc), 3, loc), 0, 6, loc), 6, loc);
}

// At x = -3 and 3 PyTorch's hardswish has the slopes of the outer pieces, 0 and 1, which the product
// rule gives with hard_clip's zero gradient at the bounds.
Tensor hard_silu(const Tensor& x, Loc loc) {
  Tensor f = as_float(x, loc);
  return divide(multiply(f, hard_clip(add(f, 3, loc), 0, 6, loc), loc), 6, loc);
}

Tensor hard_swish(const Tensor& x, Loc loc) { return hard_silu(x, loc); }

Tensor soft_sign(const Tensor& x, Loc loc) {
  Tensor f = as_float(x, loc);
  return divide(f, add(abs(f, loc), 1, loc), loc);
}

Tensor log_sigmoid(const Tensor& x, Loc loc) { return negative(softplus(negative(as_float(x, loc), loc), loc), loc); }

Tensor log_1_minus_sigmoid(const Tensor& x, Loc loc) { return negative(softplus(as_float(x, loc), loc), loc); }

Tensor leaky_swish(const Tensor& x, double beta, double negative_slope, Loc loc) {
  // The weight of x is sigmoid(beta (1 - a) x), the softmax of the pair (beta a x, beta x).
  Tensor f = as_float(x, loc);
  Tensor w = symx::sigmoid(multiply(f, beta * (1 - negative_slope), loc), loc);
  return multiply(f, add(multiply(w, 1 - negative_slope, loc), negative_slope, loc), loc);
}

Tensor glu(const Tensor& x, int axis, Loc loc) {
  int a = checked_axis("glu", x, axis, loc);
  if (x.shape()[static_cast<std::size_t>(a)] % 2 != 0)
    throw ShapeError("glu: axis " + std::to_string(axis) + " of " + internal::describe("x", x) + " has odd size " +
                     std::to_string(x.shape()[static_cast<std::size_t>(a)]) + internal::at_user_line(loc) +
                     ". glu splits that axis into two halves (values and gates): give it an even size.");
  std::vector<Tensor> halves = split(as_float(x, loc), 2, a, loc);
  return multiply(halves[0], symx::sigmoid(halves[1], loc), loc);
}

Tensor normalize(const Tensor& x, double ord, int axis, double eps, Loc loc) {
  if (std::isnan(ord) || ord < 1)
    throw ValueError("normalize: ord is " + std::to_string(ord) + internal::at_user_line(loc) +
                     "; it must be at least 1 (1, 2, 3, ... or infinity), the orders that define a norm.");
  int a = checked_axis("normalize", x, axis, loc);
  Tensor f = as_float(x, loc);
  Tensor norm;
  if (std::isinf(ord)) {
    norm = max(abs(f, loc), a, true, loc);
  } else if (ord == 1) {
    norm = sum(abs(f, loc), a, true, loc);
  } else {
    Tensor s = ord == 2 ? sum(square(f, loc), a, true, loc) : sum(power(abs(f, loc), ord, loc), a, true, loc);
    // The root of a zero sum has an infinite derivative; the root is taken of 1 there instead, and the
    // norm set to 0, so that the gradient of a zero slice stays finite (maximum below passes it none).
    Tensor positive = greater(s, 0, loc);
    Tensor safe = where(positive, s, 1, loc);
    Tensor root = ord == 2 ? sqrt(safe, loc) : power(safe, 1 / ord, loc);
    norm = where(positive, root, 0, loc);
  }
  // max(norm, eps) with the whole gradient at a tie, as PyTorch's clamp_min.
  return divide(f, where(less(norm, eps, loc), eps, norm, loc), loc);
}

}  // namespace symx::nn

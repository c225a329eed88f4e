#include "symx/nn/activations.hpp"

namespace symx::nn {

namespace {
// Integer and bool tensors compute in symx's default float, as the engine's activations do.
Tensor as_float(const Tensor& x, Loc loc) {
  return is_floating(x.dtype()) ? x : astype(x, DType::f32, loc);
}
}  // namespace

Tensor relu6(const Tensor& x, Loc loc) { return clip(as_float(x, loc), 0, 6, loc); }

Tensor silu(const Tensor& x, Loc loc) {
  Tensor f = as_float(x, loc);
  return multiply(f, symx::sigmoid(f, loc), loc);
}

Tensor swish(const Tensor& x, Loc loc) { return silu(x, loc); }

Tensor hard_tanh(const Tensor& x, double min_value, double max_value, Loc loc) {
  return clip(as_float(x, loc), min_value, max_value, loc);
}

}  // namespace symx::nn

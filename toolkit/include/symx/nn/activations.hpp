// symx/nn/activations.hpp: activation functions beyond the engine's (relu, elu, gelu, softplus,
// sigmoid, softmax are in symx/ops.hpp), written with the public ops so that they fuse and
// differentiate like any other graph. Each takes a float tensor and returns its shape and dtype.
#pragma once

#include "symx/symx.hpp"

namespace symx::nn {

// min(max(x, 0), 6), as PyTorch's relu6.
// Example: nn.relu6([-1.0, 3.0, 7.0]).eval() is [0.0, 3.0, 6.0]
Tensor relu6(const Tensor& x, Loc loc = Loc::current());
// x * sigmoid(x) (also called swish), as PyTorch's silu.
// Example: nn.silu([0.0]).eval() is [0.0]
Tensor silu(const Tensor& x, Loc loc = Loc::current());
// The same as silu.
// Example: nn.swish([0.0]).eval() is [0.0]
Tensor swish(const Tensor& x, Loc loc = Loc::current());
// clip(x, min_value, max_value), as PyTorch's hardtanh.
// Example: nn.hard_tanh([-2.0, 0.5, 2.0]).eval() is [-1.0, 0.5, 1.0]
Tensor hard_tanh(const Tensor& x, double min_value = -1, double max_value = 1, Loc loc = Loc::current());

}  // namespace symx::nn

// symx/nn/activations.hpp: activation functions beyond the engine's (relu, elu, gelu, softplus,
// sigmoid, softmax are in symx/ops.hpp), written with the public ops so that they fuse and
// differentiate like any other graph. Each takes a float tensor and returns its shape and dtype
// (integer and bool inputs compute in float32). They match torch.nn.functional's functions of
// the same meaning in value and gradient, at kinks too (PyTorch's choice there: relu6, hard_tanh,
// hard_sigmoid and hard_silu take the outer pieces' slopes at their corners, e.g. 0 at x = 0 and 6
// for relu6; tests/python/test_kinks.py checks every kink against PyTorch).
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
// Scaled exponential linear unit, as PyTorch's selu: scale * elu(x, alpha) with
// alpha = 1.6732632423543772 and scale = 1.0507009873554805 (self-normalizing networks).
// x: float; returns x's shape and dtype.
// Example: nn.selu([0.0, 1.0]).eval() is [0.0, 1.0507...]
Tensor selu(const Tensor& x, Loc loc = Loc::current());
// Continuously differentiable exponential linear unit, as PyTorch's celu:
// max(x, 0) + min(0, alpha * (exp(x / alpha) - 1)). alpha: nonzero (ValueError otherwise).
// Example: nn.celu([-1.0, 2.0], alpha=1.0).eval() is [-0.632..., 2.0]
Tensor celu(const Tensor& x, double alpha = 1.0, Loc loc = Loc::current());
// Piecewise-linear sigmoid relu6(x + 3) / 6, as PyTorch's hardsigmoid: 0 below -3, 1 above 3.
// Example: nn.hard_sigmoid([-4.0, 0.0, 4.0]).eval() is [0.0, 0.5, 1.0]
Tensor hard_sigmoid(const Tensor& x, Loc loc = Loc::current());
// x * hard_sigmoid(x) (also called hard_swish), as PyTorch's hardswish.
// Example: nn.hard_silu([-4.0, 1.0, 4.0]).eval() is [0.0, 0.666..., 4.0]
Tensor hard_silu(const Tensor& x, Loc loc = Loc::current());
// The same as hard_silu.
// Example: nn.hard_swish([1.0]).eval() is [0.666...]
Tensor hard_swish(const Tensor& x, Loc loc = Loc::current());
// x / (1 + |x|), as PyTorch's softsign.
// Example: nn.soft_sign([-1.0, 3.0]).eval() is [-0.5, 0.75]
Tensor soft_sign(const Tensor& x, Loc loc = Loc::current());
// log(sigmoid(x)) = -softplus(-x), computed stably (finite for any finite x), as PyTorch's logsigmoid.
// Example: nn.log_sigmoid([0.0, -1e4]).eval() is [-0.693..., -1e4]
Tensor log_sigmoid(const Tensor& x, Loc loc = Loc::current());
// log(1 - sigmoid(x)) = -softplus(x), computed stably, as SymJAX's nn.log_1_minus_sigmoid.
// Example: nn.log_1_minus_sigmoid([0.0, 1e4]).eval() is [-0.693..., -1e4]
Tensor log_1_minus_sigmoid(const Tensor& x, Loc loc = Loc::current());
// SymJAX's leaky swish: the softmax-weighted mix of x and negative_slope * x with inverse
// temperature beta, (a x e^(beta a x) + x e^(beta x)) / (e^(beta a x) + e^(beta x)) with
// a = negative_slope. A smooth leaky_relu: beta -> infinity gives leaky_relu(x, negative_slope).
// Example: nn.leaky_swish([0.0, 100.0], 1.0).eval() is [0.0, 100.0]
Tensor leaky_swish(const Tensor& x, double beta, double negative_slope = 1e-2, Loc loc = Loc::current());
// Gated linear unit, as PyTorch's glu: x split into halves a, b along `axis` gives a * sigmoid(b).
// x: float whose `axis` has an even size (ShapeError otherwise); returns x's shape with that axis halved.
// Example: nn.glu(x) of x with shape (8, 10) has shape (8, 5)
Tensor glu(const Tensor& x, int axis = -1, Loc loc = Loc::current());
// x / max(norm(x, ord, axis), eps), as PyTorch's F.normalize(x, p=ord, dim=axis, eps=eps): each
// slice along `axis` scaled to unit `ord`-norm (ord > 0, or infinity for the largest |x|). Note that
// the axis defaults to the last one (PyTorch's dim defaults to 1). A zero slice stays zero, with a
// finite gradient (1 / eps).
// Example: nn.normalize([[3.0, 4.0]]).eval() is [[0.6, 0.8]]
Tensor normalize(const Tensor& x, double ord = 2, int axis = -1, double eps = 1e-12, Loc loc = Loc::current());

}  // namespace symx::nn

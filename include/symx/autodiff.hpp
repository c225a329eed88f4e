// symx/autodiff.hpp: symbolic reverse-mode differentiation. Every result is an ordinary graph
// built from the ops' vector-Jacobian rules, so gradients can be evaluated, compiled and
// differentiated again.
#pragma once

#include <vector>

#include "symx/tensor.hpp"

namespace symx {

// d cost / d x for each x in `wrt`, each of x's shape and dtype. `cost` must be a scalar
// (shape ()). Integer-typed x and x that `cost` does not depend on get zeros. In Python, `wrt` may
// be one tensor (one gradient is returned) or a list (a list is returned), as jax.grad.
// Example: grad(sum(square(w)), w) is 2 * w
std::vector<Tensor> grad(const Tensor& cost, const std::vector<Tensor>& wrt, Loc loc = Loc::current());
// Vector-Jacobian products: sum_i <cotangents[i], d outputs[i] / d x> for each x in `wrt`.
// Each cotangent has its output's shape. Returns a list with one tensor of x's shape per x.
// Example: vjp([y], [x], [ones_like(y)]) is grad(sum(y), [x])
std::vector<Tensor> vjp(const std::vector<Tensor>& outputs, const std::vector<Tensor>& wrt,
                        const std::vector<Tensor>& cotangents, Loc loc = Loc::current());
// The Jacobian of y with respect to x: shape y.shape + x.shape (x and y float).
// Example: jacobian(2 * x, x) of x with shape (3,) is 2 * eye(3)
Tensor jacobian(const Tensor& y, const Tensor& x, Loc loc = Loc::current());
// The Hessian of a scalar cost with respect to x: shape x.shape + x.shape.
// Example: hessian(sum(x * x), x) of x with shape (3,) is 2 * eye(3)
Tensor hessian(const Tensor& cost, const Tensor& x, Loc loc = Loc::current());

}  // namespace symx

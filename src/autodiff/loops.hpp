// Gradients of control flow (scan, switch; while_loop has none): see loops.cpp.
#pragma once

#include <vector>

#include "symx/tensor.hpp"

namespace symx::detail {

// The cotangents of a scan, while_loop or switch node's inputs (undefined: none), given the
// cotangent of each of its results (its parts; undefined: none). A while_loop is a ValueError.
std::vector<Tensor> loop_vjp(const Tensor& node, const std::vector<Tensor>& part_cotangents);

}  // namespace symx::detail

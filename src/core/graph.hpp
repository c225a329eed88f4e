// Internals of the graph (core/graph.cpp) shared with the builders of leaves (ops/tensor_builders.cpp).
#pragma once

#include <memory>

#include "symx/tensor.hpp"

namespace symx::detail {

// The state of a new variable holding `value`.
std::shared_ptr<VariableState> make_variable_state(Array value, bool trainable);

}  // namespace symx::detail

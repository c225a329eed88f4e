// The shared machinery of the passes: rebuild a graph bottom-up, letting a rule replace each node.
#pragma once

#include <functional>
#include <optional>

#include "passes/passes.hpp"

namespace symx::passes {

// Visits the nodes of `roots` inputs-first. Each node is first rebuilt over its (possibly
// replaced) inputs, then offered to `rule`, which returns a replacement of the same shape and
// dtype, or an undefined Tensor to keep it.
Roots rewrite(const Roots& roots, const std::function<Tensor(const Tensor&)>& rule);

// The single value of a constant whose elements are all equal (looking through broadcast_to).
std::optional<double> uniform_constant(const Tensor& t);

// Records one firing of `rule` (and traces it when SYMX_DEBUG >= 2).
void note_rule(const char* rule, const Tensor& node);

}  // namespace symx::passes

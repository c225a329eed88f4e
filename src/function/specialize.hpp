// Specialization of a graph with unknown sizes (placeholders made with kDynamic / None) to the
// sizes of one call: the sizes are substituted and every node's type is inferred again, so that
// the passes, the compiler and the evaluators only ever see static shapes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "symx/tensor.hpp"

namespace symx {
struct FunctionOptions;
}

namespace symx::detail {

// How many specializations a function keeps: options.max_specializations, else
// SYMX_MAX_SPECIALIZATIONS, else 32. Throws ValueError for a bound below 1.
int max_specializations(const FunctionOptions& options);

// Whether `p`'s shape has sizes unknown until a call.
inline bool is_dynamic(const Tensor& p) { return has_symbols(p.shape()); }

// Throws ShapeError unless `value` can feed the dynamic placeholder `p`: the same number of axes,
// and the known sizes equal. `context` starts the message ("function (made at f.cpp:3)").
void check_dynamic_input(const Tensor& p, const Shape& shape, const std::string& context);

struct Specialization {
  std::vector<Tensor> placeholders;  // one per given placeholder, of the given shape
  std::vector<Tensor> roots;         // the roots over them, with static shapes
};

// `roots` with each placeholder of `sizes` replaced by one of the given shape (same name and
// dtype) and every node that depends on an unknown size built again. Nodes that do not are shared.
// Sizes that disagree (two inputs whose unknown sizes must be equal, an op whose operands no longer
// fit) are ShapeErrors naming the op's user line.
Specialization specialize(const std::vector<Tensor>& roots, const std::vector<std::pair<Tensor, Shape>>& sizes);

}  // namespace symx::detail

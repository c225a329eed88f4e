// toolkit/src/nn_internal.hpp: helpers shared by the toolkit's sources (not installed).
#pragma once

#include <string>

#include "symx/symx.hpp"

namespace symx::nn::internal {

// ", at file:line" for the user's call (their Python line when called from Python), or "" when
// unknown, for messages of the errors the toolkit raises itself. The engine keeps the location
// logic private; a node made at `loc` records exactly what the engine's own errors print.
inline std::string at_user_line(Loc loc) {
  std::string where = constant(0.0, DType::f32, loc).node().where;
  return where.empty() ? std::string() : ", at " + where;
}

// "name (shape (2, 3), float32)": how messages show a user's tensor.
inline std::string describe(const char* name, const Tensor& t) {
  return std::string(name) + " (shape " + shape_string(t.shape()) + ", " + std::string(dtype_name(t.dtype())) + ")";
}

}  // namespace symx::nn::internal

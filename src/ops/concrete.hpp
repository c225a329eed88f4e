// Values known while a graph is built: what a composite whose shapes depend on values (SymJAX's
// complex_morlet's support, nonzero without size=) may read. Defined in indexing.cpp.
#pragma once

#include <optional>

#include "symx/tensor.hpp"

namespace symx::ops {

// The first leaf that keeps t's value unknown until the graph runs (a placeholder, a variable, a
// random draw, a host call or a loop), or an undefined tensor when t is a function of constants.
Tensor symbolic_source(const Tensor& t);
// t's value when it is known while the graph is built (a function of constants only), else none.
std::optional<Array> concrete(const Tensor& t);

}  // namespace symx::ops

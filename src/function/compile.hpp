// The compile pipeline of the compiled backend: from a function's graph to a program that runs it.
#pragma once

#include <memory>
#include <vector>

#include "runtime/program.hpp"
#include "symx/tensor.hpp"

namespace symx::detail {

// Optimizes `outputs` and the new values of `updates`, cuts them into fused kernels and library
// calls, compiles and loads the kernels, and returns the program that runs a call.
std::unique_ptr<runtime::Program> compile(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                                          const Updates& updates);

}  // namespace symx::detail

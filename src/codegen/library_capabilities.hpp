// What fusion planning asks of the library calls that will run a plan's library steps. The calls
// live in the runtime, a layer above codegen, so plan_fusion takes them through this interface;
// runtime::library_capabilities() (runtime/library_calls.hpp) is the implementation programs use.
#pragma once

#include "symx/tensor.hpp"

namespace symx::codegen {

class LibraryCapabilities {
 public:
  virtual ~LibraryCapabilities() = default;
  // Whether nodes of `op` may run as a library call: plan_fusion makes their floating-point nodes
  // Role::library steps (the runtime can still decline one; it then runs the reference evaluation).
  virtual bool handles(OpKind op) const = 0;
  // Whether a bias (and a ReLU, when `relu`) after `product`, a Matmul or Conv node, can be fused
  // into its library call as the step's Epilogue.
  virtual bool supports_epilogue(const Tensor& product, bool relu) const = 0;
};

}  // namespace symx::codegen

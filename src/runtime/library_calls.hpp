// Library calls of the compiled backend: nodes computed by an optimized library rather than a
// generated kernel — matrix products (BLAS), convolutions and average pooling (oneDNN), and max
// pooling with its gradient (a parallel loop with the reference's first-max tie-breaking).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/kernel.hpp"
#include "codegen/library_capabilities.hpp"
#include "symx/tensor.hpp"

namespace symx::runtime {

// A prepared library call for one node: primitives, memory descriptors and scratch created once
// (at program build time); run() allocates no buffers of its own.
class LibraryCall {
 public:
  virtual ~LibraryCall() = default;
  // p[0..n-1]: the node's input buffers (C-contiguous, the node's input shapes/dtypes), p[n]: the
  // output buffer.
  virtual void run(char* const* p) = 0;
  // What runs, for Program::describe(), e.g. "oneDNN convolution, gemm:jit".
  virtual std::string describe() const = 0;
  // More lines for Program::describe(), each ending in a newline: a loop's compiled regions.
  virtual std::string details() const { return ""; }
};

// A library call for a Role::library step (its node, or its fused epilogue group), or nullptr
// when none applies (dtype, op or attributes unsupported): the caller then falls back to the
// reference evaluator.
std::unique_ptr<LibraryCall> make_library_call(const codegen::Step& step);

// Whether `op` may have a library call (make_library_call can still decline a node of it).
bool library_handles(OpKind op);

// Whether a bias (and a ReLU, when `relu`) after `product` can be fused into its library call:
// float32 and float64 matrix products with a bias; float32 ones with a ReLU when the right operand
// is a matrix or has the left operand's batch shape (oneDNN's CPU matmul has no float64); float32
// convolutions with a bias (see call_attr in library_dnnl.cpp for why not their ReLU).
bool supports_epilogue(const Tensor& product, bool relu);

// Compiles a region (a loop's body or a branch: results over params) into a program. The function
// layer installs it (function/compile.cpp), since compiling is above the runtime.
class Program;
using RegionCompiler = std::unique_ptr<Program> (*)(const std::vector<Tensor>& params,
                                                    const std::vector<Tensor>& results);
void set_region_compiler(RegionCompiler compiler);
RegionCompiler region_compiler();

// library_handles and supports_epilogue as the interface codegen::plan_fusion asks them through.
const codegen::LibraryCapabilities& library_capabilities();

}  // namespace symx::runtime

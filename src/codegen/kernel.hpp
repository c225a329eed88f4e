// The kernel IR: how a program is cut into steps, and what each fused kernel computes.
//
// A kernel computes one materialized node (its root) at every index of the root's shape by
// evaluating the tree of inlined elementwise, view and reduction nodes below it, reading
// materialized nodes (its loads) from buffers. The IR names graph nodes, not C++: each kernel is
// lowered to the loop-nest IR (loop_ir.hpp) and scheduled there (schedule.hpp), and the emitter
// (emit_cpp.cpp) is the only place that spells C++.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "symx/tensor.hpp"

namespace symx::codegen {

// How a node is executed once the program is cut into steps.
enum class Role {
  leaf,      // placeholder, variable or constant: a buffer that exists before the call
  alias,     // reshape of a materialized node: the same buffer seen with another shape
  inlined,   // computed inside the kernel of its only consumer
  kernel,    // the root of a generated kernel
  library,   // a library call (BLAS matrix product, oneDNN convolution and pooling, max pooling loop)
  fallback,  // the op's reference evaluation (ops that have no kernel yet)
};

struct Kernel {
  std::string name;                         // C symbol, "k<id>"
  Tensor root;                              // the node written
  std::vector<Tensor> loads;                // materialized nodes read, in argument order
  std::unordered_set<const Node*> inlined;  // nodes computed inside
  bool in_place = false;                    // the output buffer is also a load (an update)
};

// Work fused into a library call after its matrix product or convolution (the library's bias
// argument and post-ops): node = relu?(product + bias), the bias varying along the product's last
// axis (matmul) or channel axis (convolution). The step writes only its last node; the product
// and the nodes between are never materialized. LibraryCapabilities::supports_epilogue says what fuses.
struct Epilogue {
  Tensor product;  // the Matmul or Conv node
  Tensor bias;     // read with the product's inputs: N (matmul) or C (conv) values; undefined: none
  bool relu = false;
};

// One step of a program, in execution order.
struct Step {
  Role role;
  Tensor node;
  int kernel = -1;                   // index into FusionPlan::kernels for Role::kernel
  std::optional<Epilogue> epilogue;  // Role::library steps that fuse a bias and/or a ReLU
  // A 2-D matrix product's operand k read through its transpose: operand k is a transpose
  // (absorbed, never materialized) and the call reads the transpose's input with the library's
  // transposed-operand flag.
  std::array<bool, 2> transposed{};

  // The materialized nodes a library or fallback step reads, in argument order: the node's
  // inputs, or for a fused step its product's inputs then the bias; a transposed operand is the
  // transpose's input.
  std::vector<Tensor> inputs() const;
  // The Matmul or Conv node of the step (the node itself, or its epilogue's product).
  const Tensor& product() const { return epilogue ? epilogue->product : node; }
};

struct FusionPlan {
  std::vector<Step> steps;  // materialized non-leaf nodes, inputs first
  std::vector<Kernel> kernels;
  std::vector<Tensor> leaves;  // placeholders, variables and constants read

  // The materialized nodes step `s` reads: its kernel's loads, or Step::inputs() for the others.
  std::vector<Tensor> reads(const Step& s) const;
};

// True for ops that kernels can compute inline: elementwise ops, broadcasting, transposes,
// slices and reductions.
bool fusible(OpKind op);
bool is_reduction(OpKind op);

class LibraryCapabilities;  // library_capabilities.hpp

// Cuts the program computing `roots` into steps and kernels (see DESIGN.md, passes: fusion);
// `library` says which nodes and epilogues the library calls that will run the plan can take.
FusionPlan plan_fusion(const std::vector<Tensor>& roots, const LibraryCapabilities& library);

// C++ source for all kernels of a plan, prelude included. Each kernel is
// `extern "C" void <name>(char* const* buffers)` with one pointer per load, then the output.
std::string emit_source(const FusionPlan& plan);

// emit_source's text, and the listing of each kernel's loop-nest IR (loop_ir.hpp) it spells.
struct EmittedPlan {
  std::string source, ir_text;
};
EmittedPlan emit_plan(const FusionPlan& plan);

// The text of the prelude header (src/codegen/kernel_prelude.hpp), embedded at build time.
const char* kernel_prelude_source();

}  // namespace symx::codegen

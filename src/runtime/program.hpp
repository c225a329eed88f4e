// The compiled backend's executor: a program is the fusion plan of a function's roots, its
// generated kernels loaded from a shared object, library calls, and a buffer plan made once by
// liveness, so that a steady-state call allocates nothing. The compile pipeline that prepares
// what it runs is function/compile.cpp.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/kernel.hpp"
#include "symx/tensor.hpp"

namespace symx::codegen {
class Library;
}

namespace symx::runtime {

// The updates whose new value a kernel writes straight into the variable's storage: the value's
// node and the variable's state.
using InPlaceUpdates = std::unordered_map<const Node*, std::shared_ptr<VariableState>>;

// Chooses the updates written in place: those computed by a kernel whose only readers of the old
// value run no later than that kernel, in lockstep. `roots` are the optimized outputs, then the
// new value of each of `updates`. Marks the chosen kernels in_place in `plan`, which changes their
// generated code: call it before emitting the plan.
InPlaceUpdates choose_in_place_updates(codegen::FusionPlan& plan, const std::vector<Tensor>& roots,
                                       const Updates& updates);

// What a program is made from: a function's graph after the compile pipeline.
struct CompiledGraph {
  std::vector<Tensor> inputs, outputs;        // as the function was made
  Updates updates;                            // as the function was made
  std::vector<Tensor> roots;                  // the optimized outputs, then the new value of each update
  codegen::FusionPlan plan;                   // the steps computing `roots`, in-place kernels marked
  InPlaceUpdates in_place;                    // from choose_in_place_updates
  std::shared_ptr<codegen::Library> library;  // the plan's compiled kernels; null when it has none
};

class Program {
 public:
  struct Impl;

  // Plans the buffers of `compiled` by liveness and binds each step to its kernel or library call.
  explicit Program(CompiledGraph compiled);
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  // Runs one call. `outputs` must hold arrays of the outputs' shapes and dtypes (they are written,
  // not reallocated). Variables are read at the start and updated at the end; the caller holds
  // their locks (runtime/variable_locks.hpp). Calls may run concurrently: each has its own scratch.
  // An update writes in place only into storage nobody else holds and no input or output
  // overlaps; otherwise into a fresh buffer that becomes the variable's storage.
  void run(const std::vector<Array>& inputs, std::vector<Array>& outputs);

  // Runs the program many times in a row, as a loop runs its body: one scratch is leased for the
  // runner's life, and run() takes raw pointers to buffers of the inputs' and outputs' types (no
  // checks, no allocation). Only for programs without variables or updates (a region's: what a
  // body reads from outside is an input). Outputs must not overlap inputs.
  class Runner {
   public:
    explicit Runner(Program& program);
    ~Runner();
    Runner(const Runner&) = delete;
    Runner& operator=(const Runner&) = delete;
    void run(char* const* inputs, char* const* outputs);

   private:
    Impl& impl_;
    struct Scratch* scratch_;
  };

  // The optimized graph and the kernels holding each node.
  std::string describe() const;

 private:
  // run() for outputs that overlap an input, a variable or each other: through fresh arrays.
  void run_into_fresh_outputs(const std::vector<Array>& inputs, std::vector<Array>& outputs);
  std::unique_ptr<Impl> impl_;
};

}  // namespace symx::runtime

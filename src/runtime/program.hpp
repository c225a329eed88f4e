// The compiled backend's executor: a program is the fusion plan of a function's roots, its
// generated kernels loaded from a shared object, library calls, and a buffer plan made once by
// liveness, so that a steady-state call allocates nothing.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "symx/tensor.hpp"

namespace symx::runtime {

class Program {
 public:
  // `outputs` and the values of `updates` are optimized, fused and compiled.
  Program(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs, const Updates& updates);
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  // Runs one call. `outputs` must hold arrays of the outputs' shapes and dtypes (they are written,
  // not reallocated). Variables are read at the start and updated at the end; the caller holds
  // their locks (runtime/variable_locks.hpp). Calls may run concurrently: each has its own scratch.
  // An update writes in place only into storage nobody else holds and no input or output
  // overlaps; otherwise into a fresh buffer that becomes the variable's storage.
  void run(const std::vector<Array>& inputs, std::vector<Array>& outputs);

  // The optimized graph and the kernels holding each node.
  std::string describe() const;

  struct Impl;
 private:
  // run() for outputs that overlap an input, a variable or each other: through fresh arrays.
  void run_into_fresh_outputs(const std::vector<Array>& inputs, std::vector<Array>& outputs);
  std::unique_ptr<Impl> impl_;
};

}  // namespace symx::runtime

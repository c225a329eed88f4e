// symx/function.hpp: `function`, which turns a graph into a callable with inputs, outputs and
// variable updates; `clone`, which substitutes nodes; and the graph printers.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "symx/tensor.hpp"

namespace symx {

// How a function is executed. `reference` is the op table's evaluator (the oracle); `compiled`
// is the fused, JIT-compiled backend (the default). SYMX_BACKEND=reference or =compiled overrides
// the default.
enum class Backend { reference, compiled };

struct FunctionOptions {
  std::optional<Backend> backend;  // default: SYMX_BACKEND, else compiled
};

class Function {
 public:
  // Runs one call: checks the inputs, computes every output and every update from the variable
  // values at the start of the call, then writes all updates (none if anything failed).
  // Thread-safe: calls from several threads run concurrently (the first compiles once, the others
  // wait for it); calls touching the same variables are linearizable, each holding the variables'
  // locks (shared to read, exclusive to update) for its duration. Inputs may alias variables.
  std::vector<Array> operator()(const std::vector<Array>& inputs) const;
  // The same, writing into preallocated `outputs` (of the outputs' shapes and dtypes): with the
  // compiled backend a steady-state call then allocates nothing. Outputs that overlap an input, a
  // variable or each other are computed into temporaries first (correct, but they allocate).
  void call_into(const std::vector<Array>& inputs, std::vector<Array>& outputs) const;
  // How many times this function compiled a program (once per input signature).
  std::int64_t compile_count() const;
  // Bytes a call reads or writes in its inputs, outputs and variables: a rough measure of its
  // cost (the Python binding keeps the GIL for calls too small to be worth releasing it).
  std::int64_t bytes_per_call() const;
  // The graph after rewrites and the kernels holding each node (compiles if needed).
  std::string describe() const;
  const std::vector<Tensor>& inputs() const;
  const std::vector<Tensor>& outputs() const;
  const Updates& updates() const;
  Backend backend() const;

  struct Impl;
  explicit Function(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
 private:
  std::shared_ptr<Impl> impl_;
};

// Threads used by compiled functions: generated kernels and library calls share one OpenMP
// pool. The default is SYMX_NUM_THREADS when set, else OpenMP's default (all cores). The setting
// applies to calls from every thread. Results do not depend on the thread count beyond
// floating-point reassociation in reductions.
void set_num_threads(int threads);
int num_threads();

// Builds a callable. `inputs` must be placeholders; every placeholder the outputs and updates
// depend on must be among them. Each update pairs a variable with a new value of the same shape
// (the dtype is cast when it differs safely, else rejected).
Function function(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                  const Updates& updates = {}, FunctionOptions options = {}, Loc loc = Loc::current());

// Copies of `outputs` with every node in `replace` substituted (Theano's givens). Replacements
// must have the replaced node's shape and dtype.
std::vector<Tensor> clone(const std::vector<Tensor>& outputs,
                          const std::vector<std::pair<Tensor, Tensor>>& replace, Loc loc = Loc::current());

// The graph of `outputs` as an indented tree, one node a line with op, name, shape and dtype;
// shared nodes are printed once and referred to by id after that.
std::string debugprint(const std::vector<Tensor>& outputs);
// The graph in Graphviz dot syntax.
std::string to_dot(const std::vector<Tensor>& outputs);

// Nodes that `outputs` depend on, inputs before users, each once.
std::vector<Tensor> topological_order(const std::vector<Tensor>& outputs);

}  // namespace symx

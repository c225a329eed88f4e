// symx/function.hpp: `function`, which turns a graph into a callable with inputs, outputs and
// variable updates, and `clone`, which substitutes nodes. The graph printers and
// topological_order come with it from symx/graph.hpp.
#pragma once

#include <concepts>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "symx/graph.hpp"
#include "symx/tensor.hpp"

namespace symx {

// How a function is executed. `reference` is the op table's evaluator (the oracle); `compiled`
// is the fused, JIT-compiled backend (the default). SYMX_BACKEND=reference or =compiled overrides
// the default.
enum class Backend { reference, compiled };

struct FunctionOptions {
  std::optional<Backend> backend;  // default: SYMX_BACKEND, else compiled
  // Theano's allow_input_downcast: an input whose dtype converts to its placeholder's only with loss
  // is converted on each call instead of refused (DTypeError): float64 arrays into float32
  // placeholders are rounded; integers into narrower integers when every value fits. Float data
  // into integer or bool placeholders stays refused. Python: function(..., allow_input_downcast=True).
  bool allow_input_downcast = false;
  // For inputs of unknown sizes (None): how many specializations (one per set of input shapes,
  // each with its compiled program) the function keeps. A call with new shapes beyond it drops the
  // least recently used one and frees its program; calling with those shapes again compiles again
  // (a disk-cache hit when the kernel cache still holds it). Default: SYMX_MAX_SPECIALIZATIONS,
  // else 32. Python: function(..., max_specializations=k).
  std::optional<int> max_specializations{};
};

class Function;
namespace detail {
// function() that records whether the outputs were given as one tensor (the overload for function(x, y)).
Function function_of(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs, const Updates& updates,
                     FunctionOptions options, Loc loc, bool single_output);
}  // namespace detail

// A compiled callable made by `function`: call it with one array per input.
// Example: f = function([x], [sum(x)]); f(np.ones(3)) is [3.0]
class Function {
 public:
  // Runs one call: checks the inputs, computes every output and every update from the variable
  // values at the start of the call, then writes all updates (none if anything failed). In Python,
  // f(*inputs) takes one NumPy array (or number, or list) per input and returns a list of read-only
  // NumPy arrays, one per output (one array, not a list, when made with one output tensor: function(x, y)).
  // Thread-safe: calls from several threads run concurrently (the first compiles once, the others
  // wait for it); calls touching the same variables are linearizable, each holding the variables'
  // locks (shared to read, exclusive to update) for its duration. Inputs may alias variables.
  // Example: loss, = f(x_batch, y_batch)
  std::vector<Array> operator()(const std::vector<Array>& inputs) const;
  // The same, writing into preallocated `outputs` (of the outputs' shapes and dtypes): with the
  // compiled backend a steady-state call then allocates nothing. Outputs that overlap an input, a
  // variable or each other are computed into temporaries first (correct, but they allocate).
  void call_into(const std::vector<Array>& inputs, std::vector<Array>& outputs) const;
  // How many times this function compiled a program (once per input signature, again for one whose
  // specialization was dropped, see max_specializations); a method in Python too.
  // Example: f.compile_count() is 1 after calls with inputs of one shape and dtype
  std::int64_t compile_count() const;
  // Whether a call with these inputs runs a program compiled already (false: the call compiles
  // first, or cannot run). The Python binding releases the GIL for calls that compile.
  bool compiled_for(const std::vector<Array>& inputs) const;
  // Bytes a call reads or writes in its inputs, outputs and variables: a rough measure of its
  // cost (the Python binding keeps the GIL for calls too small to be worth releasing it).
  std::int64_t bytes_per_call() const;
  // The graph after rewrites and the kernels holding each node (compiles if needed), as a string.
  // Example: print(f.describe())
  std::string describe() const;
  // The placeholders the function takes, in call order.
  // Example: [p.name for p in f.inputs]
  const std::vector<Tensor>& inputs() const;
  // The tensors each call computes, in the order of the returned list.
  // Example: f.outputs[0].shape
  const std::vector<Tensor>& outputs() const;
  // The (variable, new value) pairs written after each call.
  // Example: [v.name for v, _ in f.updates]
  const Updates& updates() const;
  // How calls execute: "reference" (the op table's evaluator) or "compiled" (a string in Python).
  // Example: f.backend is "compiled" unless SYMX_BACKEND=reference or backend="reference"
  Backend backend() const;
  // Whether the function was made with one output tensor rather than a list (function(x, y)): its
  // Python calls return that one array instead of a list of one, as Theano's and PyTensor's. C++
  // calls return a vector either way.
  // Example: function(x, sum(x)).single_output() is true; function({x}, {sum(x)}).single_output() is false
  bool single_output() const;

  struct Impl;
  explicit Function(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

 private:
  friend Function detail::function_of(const std::vector<Tensor>&, const std::vector<Tensor>&, const Updates&,
                                      FunctionOptions, Loc, bool);
  std::shared_ptr<Impl> impl_;
};

// Threads used by compiled functions: generated kernels and library calls share one OpenMP
// pool. The default is SYMX_NUM_THREADS when set, else OpenMP's default (all cores). The setting
// applies to calls from every thread. Results do not depend on the thread count beyond
// floating-point reassociation in reductions.
// The pool's idle threads spin briefly, then sleep: every program linked with symx::symx (and
// the Python package) starts with OMP_WAIT_POLICY=passive and GOMP_SPINCOUNT=10000 unless the
// environment sets either, so that a machine with other busy processes is not slowed down by
// spinning threads (OpenMP's default spins 300,000 times). The library answers getenv for the
// two variables (libgomp reads them before main); the environment itself is not changed.
void set_num_threads(int threads);
int num_threads();

// Builds a callable. `inputs` must be placeholders; every placeholder the outputs and updates
// depend on must be among them. Each update pairs a variable with a new value of the same shape
// (the dtype is cast when it differs safely, else rejected). Python: updates is a dict {variable:
// new_value} or a list of pairs, all computed from the values at the start of the call; backend is
// "reference", "compiled" or None; allow_input_downcast as FunctionOptions';
// max_specializations an int or None (see FunctionOptions). `inputs` and `outputs`
// may each be one tensor instead of a list (see the overload below): function(x, y) returns one
// array per call, as Theano's.
// Example: step = function([x, y], [loss], updates={w: w - 0.1 * grad(loss, w)})
Function function(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs, const Updates& updates = {},
                  FunctionOptions options = {}, Loc loc = Loc::current());

namespace detail {
template <class T>
concept TensorOrList = std::same_as<T, Tensor> || std::same_as<T, std::vector<Tensor>>;
inline std::vector<Tensor> as_list(const Tensor& t) { return {t}; }
inline const std::vector<Tensor>& as_list(const std::vector<Tensor>& ts) { return ts; }
}  // namespace detail

// The same with one input and/or one output given as a tensor, as Theano's function(x, y): one
// output given so is single_output() (a Python call returns one array). (A template, so that
// braced lists, function({x}, {y}), keep choosing the overload above.)
// Example: f = function(x, sum(x)); f(np.ones(3)) is 3.0 in Python
template <detail::TensorOrList In, detail::TensorOrList Out>
requires(std::same_as<In, Tensor> || std::same_as<Out, Tensor>) Function
    function(const In& inputs, const Out& outputs, const Updates& updates = {}, FunctionOptions options = {},
             Loc loc = Loc::current()) {
  return detail::function_of(detail::as_list(inputs), detail::as_list(outputs), updates, options, loc,
                             std::same_as<Out, Tensor>);
}

// Copies of `outputs` with every node in `replace` substituted (Theano's givens). Replacements
// must have the replaced node's shape and dtype. Python: replace is a dict {old: new} or pairs.
// Example: y2, = clone([y], {x: x_new})
std::vector<Tensor> clone(const std::vector<Tensor>& outputs, const std::vector<std::pair<Tensor, Tensor>>& replace,
                          Loc loc = Loc::current());

}  // namespace symx

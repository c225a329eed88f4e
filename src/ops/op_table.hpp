// The op table: the single source of truth about every primitive. One row (OpDef) per op declares
// what the op is (its family, arity and traits) next to its rules (type inference, reference
// evaluation, vector-Jacobian rule, lowering). Every other layer derives what it needs from the
// row: make_node enforces the arity, autodiff calls the VJP, the passes ask whether an op is random,
// fusion asks whether it is fused into kernels, a reduction, cheap to recompute, or a library call.
// Families register their rows from their own files (leaves.cpp, unary.cpp, binary.cpp, reduce.cpp,
// shape.cpp, linalg.cpp, nn.cpp, random.cpp) with define(); the table checks itself once, when
// it is first used, and names the missing piece of an incomplete row (see missing_rules).
// docs/adding-an-op.md walks through adding one.
#pragma once

#include <string>
#include <vector>

#include "core/location.hpp"
#include "symx/ops.hpp"
#include "symx/tensor.hpp"

namespace symx::ops {

// The inputs of an evaluation, and the node being evaluated (for attributes and the output type).
struct EvalArgs {
  const Node& node;
  const std::vector<Array>& inputs;
};

// What kind of op a row is.
enum class Family : std::uint8_t {
  leaf,         // placeholder, variable, constant: a value that exists before the computation
  elementwise,  // each output element from the same (broadcast) element of each operand
  reduction,    // combines the elements along axes (sum, max, argmax, cumsum)
  shape,        // moves or selects elements (reshape, transpose, slice, take, ...)
  linalg,       // matrix products and decompositions
  nn,           // convolution, pooling, softmax cross-entropy
  random,       // draws from the graph's random state (its one input)
  host,         // calls into the host program (host_call): never folded, run by the reference evaluator
  control,      // control flow (scan, while_loop, switch) and the parts of their results: nodes with regions
};

// How a compiled program computes a node of the op.
enum class Lowering : std::uint8_t {
  leaf,        // a buffer that exists before the call
  kernel,      // inside a generated kernel, fused with its neighbours (elementwise ops, views, reductions)
  alias,       // the input's buffer seen with another shape (reshape)
  row_kernel,  // a generated kernel over materialized operands (src/codegen/kernel_rows.hpp)
  library,     // a library call of the runtime (BLAS, oneDNN); the reference evaluation when none applies
  reference,   // the reference evaluation (ops that have no kernel yet)
};

// The arity of a variadic op.
inline constexpr int kVariadic = -1;

struct OpDef {
  Family family = Family::leaf;
  // Number of inputs every node of the op has (kVariadic: one or more); make_node enforces it.
  int arity = -2;
  Lowering lowering = Lowering::reference;
  // Recomputing the op in each consumer's kernel costs a few instructions (arithmetic, comparisons,
  // views), not a transcendental function: fusion then recomputes it for up to four consumers
  // instead of materializing it, two for a costly op (see recomputable in codegen/fusion.cpp).
  bool cheap = false;
  // Checks the inputs and attribute and returns the output type; reports problems with
  // fail_shape / fail_dtype / fail_value.
  TensorType (*infer)(const std::vector<Tensor>& inputs, const Attr& attr) = nullptr;
  // Computes the output (reference semantics: simple loops, obviously right).
  Array (*evaluate)(const EvalArgs& args) = nullptr;
  // Returns one cotangent per input, each of that input's shape (undefined: no gradient). Ops
  // without a gradient say so with no_gradient; a missing rule is an incomplete row.
  std::vector<Tensor> (*vjp)(const Tensor& output, const Tensor& cotangent) = nullptr;
  bool defined = false;  // set by define()
  // Takes complex operands or gives a complex result (set from the list in op_table.cpp); make_node
  // rejects complex64/complex128 for the other ops with a DTypeError naming the op.
  bool complex = false;

  // Fused into generated kernels: elementwise ops, views and the fusible reductions.
  bool fusible() const { return lowering == Lowering::kernel; }
  // A fusible reduction (sum, prod, max, min): a loop over the reduced axes inside a kernel.
  bool fused_reduction() const { return family == Family::reduction && fusible(); }
  bool random() const { return family == Family::random; }
  // Whether the passes may evaluate the op at compile time when its inputs are constants.
  bool foldable() const { return family != Family::random && family != Family::host && family != Family::control; }
};

using InferRule = TensorType (*)(const std::vector<Tensor>& inputs, const Attr& attr);
using EvaluateRule = Array (*)(const EvalArgs& args);
using VjpRule = std::vector<Tensor> (*)(const Tensor& output, const Tensor& cotangent);

// A row: what the op is (family, arity, lowering, whether cheap to recompute), then its rules.
inline OpDef row(Family family, int arity, Lowering lowering, InferRule infer, EvaluateRule evaluate, VjpRule vjp,
                 bool cheap = false) {
  return {.family = family,
          .arity = arity,
          .lowering = lowering,
          .cheap = cheap,
          .infer = infer,
          .evaluate = evaluate,
          .vjp = vjp};
}

// Row `op` of the table (checked: every row complete, see missing_rules).
const OpDef& op_def(OpKind op);
// Declares row `op`; called by each family's register_* function, once per op.
void define(OpKind op, OpDef def);
// The pieces `def` (the row of `op`) lacks or gets wrong, each naming what to add, e.g.
// "vjp (the vector-Jacobian rule; ops::no_gradient for an op without a gradient)"; empty when complete.
std::vector<std::string> missing_rules(OpKind op, const OpDef& def);

void register_leaf_ops();
void register_unary_ops();
void register_binary_ops();
void register_reduce_ops();
void register_shape_ops();
void register_linalg_ops();
void register_nn_ops();
void register_random_ops();
void register_host_ops();
void register_control_flow_ops();
void register_special_ops();   // special.cpp
void register_sorting_ops();   // sorting.cpp
void register_indexing_ops();  // indexing.cpp
void register_numpy_ops();     // numpy.cpp
void register_arrays_ops();    // arrays.cpp
void register_spectral_ops();  // linalg_spectral.cpp
void register_complex_ops();   // complex.cpp
void register_fft_ops();       // fft.cpp

// A type problem found by an infer rule. make_node turns it into ShapeError / DTypeError /
// ValueError with the op name, the operands, the user's location and the fix.
struct TypeProblem {
  enum class Kind { shape, dtype, value } kind;
  std::string problem;
  std::string fix;
};
[[noreturn]] void fail_shape(std::string problem, std::string fix);
[[noreturn]] void fail_dtype(std::string problem, std::string fix);
[[noreturn]] void fail_value(std::string problem, std::string fix);

// Builds a node: checks the number of inputs against the op's arity, infers its type (turning a
// TypeProblem into a user error that names `name` — the user-facing function, default the op's
// name — the operands and `loc`).
Tensor make_node(OpKind op, std::vector<Tensor> inputs, Attr attr = NoAttr{}, Loc loc = Loc::current(),
                 const char* name = nullptr);

// A node like `node` (op, name, user location) over new `inputs` and `attr`, its type inferred
// again: how a graph with unknown sizes is specialized to a call's sizes. Type problems are raised
// as make_node raises them, naming the node's user location.
Tensor reinfer_node(const Node& node, std::vector<Tensor> inputs, Attr attr);
// A node like `node` (op, attribute, name, user location) over new inputs of the same types.
Tensor rebuild_node(const Node& node, std::vector<Tensor> inputs);

// Throws the user error for a problem found outside an infer rule (e.g. in a composite).
[[noreturn]] void raise(const char* op, const std::vector<Tensor>& operands, const TypeProblem& problem, Loc loc);
// The same, at a location already written as "file:line" (empty if unknown).
[[noreturn]] void raise_at(const char* op, const std::vector<Tensor>& operands, const TypeProblem& problem,
                           const std::string& where);
// Throws the ShapeError of `op` (naming `loc`) unless a shape the user gave (a placeholder's, a
// creation op's) can hold elements of `dtype`: see shape_problem in symx/array.hpp.
void check_user_shape(const char* op, const Shape& shape, DType dtype, Loc loc);
// `shape` with every unknown size (symbol) replaced by 1: what size checks look at.
Shape known_sizes(const Shape& shape);
// Source locations live in core (core/location.hpp).
using detail::where_string;

// Gradient helpers shared by the VJP rules.
// Sums `cotangent` down to `shape` (undoing broadcasting).
Tensor unbroadcast(const Tensor& cotangent, const Shape& shape);
// A VJP rule for ops with no gradient (comparisons, argmax, integer rounding, random draws).
std::vector<Tensor> no_gradient(const Tensor& output, const Tensor& cotangent);

// The one axis check of every op: `axis` in [-ndim, ndim) made non-negative, or fail_shape naming
// `what` ("axis", "source axis", ...) and the valid range. It takes int64 so that an axis from a
// list (Axes holds int64) is checked before it is narrowed.
int checked_axis(std::int64_t axis, int ndim, const char* what = "axis");
// Broadcast result shape of two shapes, or fail_shape.
Shape broadcast_shapes(const Shape& a, const Shape& b);
// A constant of `dtype` and shape () holding `value`.
Tensor scalar(double value, DType dtype);

// Reference-evaluation helpers.
// Strides (in elements) of a C-contiguous array of `shape`.
std::vector<std::int64_t> contiguous_strides(const Shape& shape);
// Strides for reading an array of shape `in` as if broadcast to `out` (0 on stretched axes).
std::vector<std::int64_t> broadcast_strides(const Shape& in, const Shape& out);
// The extent of a tensor of `shape` before, along and after `axis`: element (o, k, i) is at
// flat index (o * n + k) * inner + i.
struct AxisSplit {
  std::int64_t outer = 1, n = 1, inner = 1;
};
inline AxisSplit split_at(const Shape& shape, int axis) {
  AxisSplit s;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    std::int64_t e = shape[static_cast<std::size_t>(d)];
    if (d < axis) s.outer *= e;
    else if (d == axis) s.n = e;
    else s.inner *= e;
  }
  return s;
}

// Multi-index counter over a shape, row-major.
struct IndexCounter {
  explicit IndexCounter(const Shape& shape) : shape(shape), index(shape.size(), 0) {}
  const Shape& shape;
  std::vector<std::int64_t> index;
  // Advances to the next index; returns false after the last.
  bool next() {
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      auto u = static_cast<std::size_t>(d);
      if (++index[u] < shape[u]) return true;
      index[u] = 0;
    }
    return false;
  }
};

}  // namespace symx::ops

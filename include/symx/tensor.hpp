// symx/tensor.hpp: the graph. Nodes, the Tensor handle, typed op attributes, the Graph with its
// name scopes and collections, and the three kinds of leaves (placeholder, variable, constant).
//
// Semantics contract:
// - A node is immutable once built. Its shape and dtype are inferred and checked when it is
//   built; a mismatch throws ShapeError or DTypeError naming the op, the operands, the user's
//   source line and a fix.
// - Binary ops broadcast as NumPy does (align trailing axes; size-1 axes stretch) and promote
//   dtypes as numpy.result_type does for arrays. A C++ or Python number is "weak" (NEP 50): it
//   takes the tensor's dtype, except that a fractional number with an integer or bool tensor gives
//   float32, symx's default float.
// - Floating-point results follow IEEE 754 in the reference evaluator (NaN and inf propagate).
// - A variable's value is state that lives outside the graph: `function` reads every variable at
//   the start of a call and writes all updates together at the end, so an update never sees
//   another update's new value. Calls from several threads are linearizable: each holds the
//   locks of the variables it reads (shared) and updates (exclusive) for its whole duration.
// - A value handed out (`value()`, `eval()`, a function's results) never changes afterwards: an
//   update writes in place only into storage nobody else holds, and otherwise into a fresh buffer
//   that becomes the variable's storage (copy-on-write).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <optional>
#include <source_location>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "symx/array.hpp"
#include "symx/op_list.hpp"

namespace symx {

using Loc = std::source_location;

struct TensorType {
  Shape shape;
  DType dtype = DType::f32;
  bool operator==(const TensorType&) const = default;
};

// ---- typed op attributes ----
struct NoAttr { bool operator==(const NoAttr&) const = default; };
// Reductions: normalized, sorted axes.
struct ReduceAttr { std::vector<int> axes; bool keepdims = false; bool operator==(const ReduceAttr&) const = default; };
// One axis: argmax, argmin, cumsum, concatenate, take, take_along_axis.
struct AxisAttr { int axis = 0; bool operator==(const AxisAttr&) const = default; };
// Target shape: reshape, broadcast_to; for scatter-adds the shape of the result and the
// scattered axis (`axis` is unused by the other ops).
struct ShapeAttr { Shape shape; int axis = 0; bool operator==(const ShapeAttr&) const = default; };
struct PermAttr { std::vector<int> perm; bool operator==(const PermAttr&) const = default; };
// Per axis: first index, count of taken elements, step (may be negative). For unslice, the
// shape the slice came from is in `input_shape`.
struct SliceAttr {
  std::vector<std::int64_t> start, count, step;
  Shape input_shape;
  bool operator==(const SliceAttr&) const = default;
};
struct PadAttr {
  std::vector<std::int64_t> low, high;
  double value = 0;
  bool operator==(const PadAttr&) const = default;
};
struct CastAttr { DType dtype = DType::f32; bool operator==(const CastAttr&) const = default; };
struct ConstantAttr {
  Array value;
  bool operator==(const ConstantAttr& o) const { return value.equals(o.value); }
};
// Convolution over the trailing `spatial` axes (NC... input, OI... weights). `input_shape`
// is the shape of the forward input, needed by ConvBackwardInput; `filter_shape` by
// ConvBackwardFilter.
struct ConvAttr {
  std::vector<std::int64_t> strides, pad_low, pad_high, dilation;
  std::int64_t groups = 1;
  Shape input_shape, filter_shape;
  bool operator==(const ConvAttr&) const = default;
};
// 2-D pooling over the last two axes; `input_shape` for the gradient ops.
struct PoolAttr {
  std::vector<std::int64_t> window, strides, pad_low, pad_high;
  Shape input_shape;
  bool operator==(const PoolAttr&) const = default;
};
struct TriangularSolveAttr {
  bool lower = true;
  bool transpose_a = false;
  bool unit_diagonal = false;
  bool operator==(const TriangularSolveAttr&) const = default;
};
// Random draws: `key` identifies the op's stream; parameters by distribution
// (uniform [a, b), normal mean a std b, truncated normal in [a, b] std-units, bernoulli p = a,
// randint [a, b), permutation of n = a). `shape` and `dtype` are those of the draw; for
// truncated normal the mean and standard deviation are `mean` and `stddev`.
struct RandomAttr {
  std::uint64_t key = 0;
  double a = 0, b = 1;
  Shape shape;
  DType dtype = DType::f32;
  double mean = 0, stddev = 1;
  bool operator==(const RandomAttr&) const = default;
};

using Attr = std::variant<NoAttr, ReduceAttr, AxisAttr, ShapeAttr, PermAttr, SliceAttr, PadAttr,
                          CastAttr, ConstantAttr, ConvAttr, PoolAttr, TriangularSolveAttr,
                          RandomAttr>;

// Where a variable's value lives. Shared by the variable node and every function using it.
// `mutex` guards `value`: readers of the value hold it shared, writers exclusive (see
// runtime/variable_locks.hpp for the order in which a call takes several).
struct VariableState {
  Array value;
  bool trainable = true;
  mutable std::shared_mutex mutex;
};

class Tensor;
class Graph;

// A node of the graph. Built only by make_node (src/ops), which infers and checks its type.
struct Node {
  OpKind op;
  std::vector<Tensor> inputs;
  Attr attr;
  TensorType type;
  std::string name;   // scoped name; empty for anonymous intermediate nodes
  std::string where;  // "file.cpp:41" where the user built it; empty if unknown
  std::uint64_t id = 0;  // creation order: decides printing and ordering
  std::shared_ptr<VariableState> variable;  // only for Variable nodes
};

// A handle to a node: cheap to copy, compared and hashed by node identity.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<const Node> node) : node_(std::move(node)) {}

  bool defined() const { return node_ != nullptr; }
  const Node& node() const;
  const std::shared_ptr<const Node>& node_ptr() const { return node_; }
  OpKind op() const { return node().op; }
  const Shape& shape() const { return node().type.shape; }
  DType dtype() const { return node().type.dtype; }
  const TensorType& type() const { return node().type; }
  int ndim() const { return static_cast<int>(shape().size()); }
  std::int64_t size() const { return num_elements(shape()); }
  const std::string& name() const { return node().name; }
  std::uint64_t id() const { return node().id; }
  // "name" if named, else "<op>#<id>": how errors and printing refer to a node.
  std::string label() const;

  // Evaluates this tensor with the reference evaluator, using `feed` for placeholders and the
  // current values of variables. Random ops draw fresh values on every call.
  Array eval(const std::vector<std::pair<Tensor, Array>>& feed = {}) const;

  // Variables only: the current value, and assignment of a new one (shape and dtype must match).
  // The returned Array shares the variable's storage without copying; later updates never
  // change it (they write a fresh buffer while it is held). Safe to call from any thread.
  Array value() const;
  void assign(const Array& value) const;
  bool trainable() const;

  // Shorthands for the free functions of the same names.
  Tensor astype(DType dtype, Loc loc = Loc::current()) const;
  Tensor reshape(Shape shape, Loc loc = Loc::current()) const;
  Tensor T(Loc loc = Loc::current()) const;
  // x[i]: basic integer indexing of the first axis.
  Tensor operator[](std::int64_t index) const;

  bool operator==(const Tensor& other) const = default;

 private:
  std::shared_ptr<const Node> node_;
};

using Feed = std::vector<std::pair<Tensor, Array>>;
using Updates = std::vector<std::pair<Tensor, Tensor>>;

// ---- graph, scopes, collections ----

class Graph {
 public:
  Graph();
  // Name scopes: "outer/inner/name".
  void push_scope(const std::string& name);
  void pop_scope();
  std::string current_scope() const;
  // A unique scoped name for `name` in the current scope ("w", then "w_1", ...).
  std::string unique_name(const std::string& name);

  void add_variable(const Tensor& t);
  void add_placeholder(const Tensor& t);
  // Variables whose scoped name matches `pattern` (a glob with * and ?; empty matches all),
  // optionally only the trainable (true) or non-trainable (false) ones, in creation order.
  std::vector<Tensor> variables(const std::string& pattern = "",
                                std::optional<bool> trainable = std::nullopt) const;
  std::vector<Tensor> placeholders() const;

  // The random-state variable threaded through functions (created on first use), and the seed
  // for the next random op's stream.
  Tensor random_state();
  std::uint64_t next_random_key();
  void seed(std::uint64_t seed);

  std::uint64_t next_node_id() { return next_id_++; }

 private:
  std::vector<std::string> scopes_;
  std::unordered_set<std::string> names_;
  std::unordered_map<std::string, std::int64_t> next_suffix_;
  std::vector<Tensor> variables_, placeholders_;
  Tensor random_state_;
  std::uint64_t seed_ = 0, random_ops_ = 0, next_id_ = 1;
};

// The graph that new nodes join. Replace it with `DefaultGraph guard(g)` or reset_default_graph().
Graph& default_graph();
void reset_default_graph();

// Makes `graph` the default for its lifetime.
class DefaultGraph {
 public:
  explicit DefaultGraph(Graph& graph);
  ~DefaultGraph();
  DefaultGraph(const DefaultGraph&) = delete;
  DefaultGraph& operator=(const DefaultGraph&) = delete;
 private:
  Graph* previous_;
};

// RAII name scope on the default graph: { Scope s("layer1"); auto w = variable(...); } names w
// "layer1/w".
class Scope {
 public:
  explicit Scope(const std::string& name);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
};

// ---- leaves ----

// An input of a function; its value comes from the feed.
Tensor placeholder(Shape shape, DType dtype = DType::f32, const std::string& name = "",
                   Loc loc = Loc::current());
// State that persists across calls: updated by `function` updates, collected by
// Graph::variables, saved by save_variables.
Tensor variable(const Array& value, const std::string& name = "", bool trainable = true,
                Loc loc = Loc::current());
// A fixed value baked into the graph.
Tensor constant(const Array& value, Loc loc = Loc::current());
Tensor constant(double value, DType dtype = DType::f32, Loc loc = Loc::current());

// Collections of the default graph.
std::vector<Tensor> variables(const std::string& pattern = "",
                              std::optional<bool> trainable = std::nullopt);
std::vector<Tensor> placeholders();

}  // namespace symx

template <> struct std::hash<symx::Tensor> {
  std::size_t operator()(const symx::Tensor& t) const noexcept {
    return std::hash<const void*>()(t.node_ptr().get());
  }
};

namespace symx::detail {
// For language bindings: while alive, nodes built on this thread record `where` ("file.py:12")
// as the user's location instead of the C++ caller's.
class UserLocation {
 public:
  explicit UserLocation(std::string where);
  ~UserLocation();
  UserLocation(const UserLocation&) = delete;
  UserLocation& operator=(const UserLocation&) = delete;
 private:
  std::string previous_;
};
}  // namespace symx::detail

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
struct NoAttr {
  bool operator==(const NoAttr&) const = default;
};
// Reductions: normalized, sorted axes.
struct ReduceAttr {
  std::vector<int> axes;
  bool keepdims = false;
  bool operator==(const ReduceAttr&) const = default;
};
// One axis: argmax, argmin, cumsum, concatenate, take, take_along_axis.
struct AxisAttr {
  int axis = 0;
  bool operator==(const AxisAttr&) const = default;
};
// Target shape: reshape, broadcast_to; for scatter-adds the shape of the result and the
// scattered axis (`axis` is unused by the other ops).
struct ShapeAttr {
  Shape shape;
  int axis = 0;
  bool operator==(const ShapeAttr&) const = default;
};
struct PermAttr {
  std::vector<int> perm;
  bool operator==(const PermAttr&) const = default;
};
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
struct CastAttr {
  DType dtype = DType::f32;
  bool operator==(const CastAttr&) const = default;
};
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

// A call into the host program (host_call in symx/ops.hpp): the spec is shared by the nodes made
// from it, and two nodes have the same attribute only when they share the spec.
struct HostCallSpec;
struct HostCallAttr {
  std::shared_ptr<const HostCallSpec> spec;
  bool operator==(const HostCallAttr& o) const { return spec == o.spec; }
};

// Control flow (symx/control_flow.hpp): the regions and counts of a scan, while_loop or switch,
// shared by the node and its parts; two nodes have the same attribute only when they share the spec.
struct LoopSpec;
struct LoopAttr {
  std::shared_ptr<const LoopSpec> spec;
  bool operator==(const LoopAttr& o) const { return spec == o.spec; }
};
// Sorting and searching (symx/sorting.hpp): the sorted axis (normalized), the order, the kth
// positions of a partition (sorted, non-negative) and searchsorted's side (`right`).
struct SortAttr {
  int axis = 0;
  bool descending = false;
  std::vector<std::int64_t> kth;
  bool right = false;
  bool operator==(const SortAttr&) const = default;
};
// A part of a node with several results (a loop's final carry, its stacked outputs): result `index`.
struct PartAttr {
  int index = 0;
  bool operator==(const PartAttr&) const = default;
};

// A discrete Fourier transform (symx/fft.hpp), unnormalized as FFTW's: complex to complex forward
// (e^-i) or backward (e^+i) over `axes` (sorted), real to complex forward over `axes` (the last one
// halved to n/2 + 1), or complex to real backward along one axis, `size` the real result's length.
struct FftAttr {
  enum class Kind : std::uint8_t { forward, backward, real_forward, real_backward };
  Kind kind = Kind::forward;
  std::vector<int> axes;
  std::int64_t size = 0;
  bool operator==(const FftAttr&) const = default;
};

using Attr = std::variant<NoAttr, ReduceAttr, AxisAttr, ShapeAttr, PermAttr, SliceAttr, PadAttr, CastAttr, ConstantAttr,
                          ConvAttr, PoolAttr, TriangularSolveAttr, RandomAttr, HostCallAttr, LoopAttr, PartAttr,
                          SortAttr, FftAttr>;

// Draws a value of the given shape and dtype: how a variable made from an initializer gets its first
// value, and a new one from reset_variables. The named ones are in symx/nn/init.hpp.
using Initializer = std::function<Array(const Shape& shape, DType dtype)>;

// Where a variable's value lives. Shared by the variable node and every function using it.
// `mutex` guards `value`: readers of the value hold it shared, writers exclusive (see
// runtime/variable_locks.hpp for the order in which a call takes several). `initializer` (empty
// when the variable was made from a value) redraws the value for reset_variables.
struct VariableState {
  Array value;
  bool trainable = true;
  Initializer initializer;
  mutable std::shared_mutex mutex;
};

class Tensor;
class Graph;
class IndexItem;  // one entry of a NumPy index: Tensor::operator[] (symx/indexing.hpp)

// A node of the graph. Built only by make_node (src/ops), which infers and checks its type.
struct Node {
  OpKind op;
  std::vector<Tensor> inputs;
  Attr attr;
  TensorType type;
  std::string name;      // scoped name; empty for anonymous intermediate nodes
  std::string where;     // "file.cpp:41" where the user built it; empty if unknown
  std::uint64_t id = 0;  // creation order: decides printing and ordering
  // The public function that built the node when it is not the op itself ("relu" for the maximum
  // that nn::relu returns): set once by named_composite, shown by label() and debugprint.
  std::string display;
  std::shared_ptr<VariableState> variable;  // only for Variable nodes
  std::string scope;                        // the name scope it was built in ("outer/inner/"); empty at the root
};

// A symbolic tensor: a handle to a node of the graph, cheap to copy. Tensors compare and hash by
// node identity (t1 == t2 only for the same node, as in Theano), so they can key dicts such as feeds
// and updates; use equal() for elementwise equality. <, <=, > and >= are elementwise and build nodes.
// Example: x = placeholder((2, 3)); y = x * 2 + 1
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<const Node> node) : node_(std::move(node)) {}

  bool defined() const { return node_ != nullptr; }
  const Node& node() const;
  const std::shared_ptr<const Node>& node_ptr() const { return node_; }
  // The op that made the node ("add", "placeholder", ...; a string in Python).
  // Example: (x + 1).op is "add"
  OpKind op() const { return node().op; }
  // The static shape, fixed when the node is built (a tuple of ints in Python). A size unknown until a
  // call (from a placeholder made with kDynamic / None) is a symbol (see is_symbol in symx/array.hpp),
  // None in Python, where the tuple (a symx.TensorShape) remembers which size each None is, so that
  // zeros(x.shape) and random.normal(x.shape) follow x's batch size, as zeros(x.shape()) in C++.
  // Example: placeholder((None, 3)).shape is (None, 3)
  const Shape& shape() const { return node().type.shape; }
  // The element type (a numpy.dtype in Python).
  // Example: placeholder((2,), int32).dtype is numpy.dtype("int32")
  DType dtype() const { return node().type.dtype; }
  const TensorType& type() const { return node().type; }
  // The number of axes.
  // Example: placeholder((2, 3)).ndim is 2
  int ndim() const { return static_cast<int>(shape().size()); }
  // The number of elements (1 for a scalar); kDynamic (-1; None in Python) when a size is unknown.
  // Example: placeholder((2, 3)).size is 6
  std::int64_t size() const { return has_symbols(shape()) ? kDynamic : num_elements(shape()); }
  // The scoped name ("layer1/w"); empty for anonymous intermediate nodes.
  // Example: variable(0.0, name="w").name is "w"
  const std::string& name() const { return node().name; }
  // The node's creation number: later nodes have larger ids.
  // Example: (x + 1).id > x.id
  std::uint64_t id() const { return node().id; }
  // The function the user called to build the node: display_op is "relu" for nn.relu(x), whose op
  // is "where"; for most nodes it is the op. debugprint shows both ("relu#10 [where]").
  // Example: nn.relu(x).display_op is "relu"
  std::string display_op() const;
  // "name" if named, else "<display_op>#<id>": how errors and printing refer to a node.
  // Example: (x + 1).label is like "add#7"; nn.relu(x).label is like "relu#8"
  std::string label() const;

  // Doc Tensor::where: "file:line" where the user built the node (a Python or C++ source line);
  // empty if unknown.
  // Example: (x + 1).where is like "train.py:12"

  // Doc Tensor::inputs: The node's operands, a list of tensors (empty for leaves).
  // Example: (x + y).inputs is [x, y]

  // Evaluates this tensor with the reference evaluator, using `feed` for placeholders and the
  // current values of variables. Random ops draw fresh values on every call. In Python, feed is a
  // dict {placeholder: array} (or None) and the result is a read-only NumPy array.
  // Example: (x * 2).eval({x: np.ones(3)}) is [2.0, 2.0, 2.0]
  Array eval(const std::vector<std::pair<Tensor, Array>>& feed = {}) const;

  // Variables only: the current value (in Python a read-only NumPy view, no copy; assigning to the
  // property sets it). The returned Array shares the variable's storage without copying; later
  // updates never change it (they write a fresh buffer while it is held). Safe from any thread.
  // Example: w.value = np.zeros((3,), np.float32)
  Array value() const;
  // Variables only: sets a new value of the variable's shape and dtype.
  // Example: w.assign(np.zeros((3,), np.float32))
  void assign(const Array& value) const;
  // Variables only: whether variables(trainable=True) and optimizers include it.
  // Example: variable(0.0, trainable=False).trainable is False
  bool trainable() const;
  // Variables only: what draws its value for reset_variables (for a variable made from a value, a function
  // returning that first value). In Python a function of (shape, dtype) returning an array.
  // Example: w.initializer((3,), float32)
  const Initializer& initializer() const;
  // The name scope the node was built in, as SymJAX writes it: "/" at the root, "/outer/inner/" inside
  // Scope("outer") and Scope("inner") (or named Graphs).
  // Example: with Scope("layer1"): (x + 1).scope is "/layer1/"
  std::string scope() const;

  // The same as astype(x, dtype).
  // Example: x.astype(float64)
  Tensor astype(DType dtype, Loc loc = Loc::current()) const;
  // The same as reshape(x, shape); in Python also x.reshape(2, 3).
  // Example: x.reshape(3, -1)
  Tensor reshape(Shape shape, Loc loc = Loc::current()) const;
  // The transpose, reversed axes (a property in Python).
  // Example: x.T of x with shape (2, 3) has shape (3, 2)
  Tensor T(Loc loc = Loc::current()) const;
  // x[i]: basic integer indexing of the first axis.
  Tensor operator[](std::int64_t index) const;
  // x[index] with NumPy's full indexing, as Python's x[...] (include symx/indexing.hpp, which defines
  // IndexItem): ints, slices, newaxis and an ellipsis slice x (slice); an integer or boolean tensor
  // among them is an advanced index (index_get: its dimensions go where NumPy puts them).
  // Example: x[{Index::all(), indices}] is x[:, indices]; x[mask] of a constant boolean mask
  Tensor operator[](const std::vector<IndexItem>& index) const;
  // x[entry] of one entry (an Index or an integer or boolean tensor), as x[{entry}].
  Tensor operator[](const IndexItem& index) const;

  bool operator==(const Tensor& other) const = default;

 private:
  std::shared_ptr<const Node> node_;
};

using Feed = std::vector<std::pair<Tensor, Array>>;
using Updates = std::vector<std::pair<Tensor, Tensor>>;

// ---- graph, scopes, collections ----

// A graph: its collections (variables, placeholders, updates), name scopes, random seed and the ops built
// in it. New nodes join the default graph. In Python `with sx.Graph("model1"):` makes a fresh graph the
// default inside the block (SymJAX's Graph): its variables are named "model1/..." and listed by the
// enclosing graph too; the previous default graph is back after the block.
// Example: with sx.Graph("model1") as g: w = sx.variable(0.0, name="w")  # g.variable("w") is w
class Graph {
 public:
  Graph();
  // A graph named `name`, as SymJAX's Graph(name): while it is the default graph (WithGraph, Python's
  // `with graph:`), its nodes are scoped under the enclosing scope and the name ("model1/layer1/w").
  // Example: Graph g("model1");
  explicit Graph(std::string name);
  // The graph's name ("" for the root and unnamed graphs).
  // Example: Graph("model1").name() is "model1"
  const std::string& name() const { return name_; }
  // Name scopes: "outer/inner/name".
  void push_scope(const std::string& name);
  void pop_scope();
  // The current name scope as a prefix of new names ("outer/inner/"); empty outside every scope.
  // Example: with Scope("layer1"): current_scope() is "layer1/"
  std::string current_scope() const;
  // A unique scoped name for `name` in the current scope ("w", then "w_1", ...).
  std::string unique_name(const std::string& name);

  void add_variable(const Tensor& t);
  void add_placeholder(const Tensor& t);
  // Variables whose scoped name matches `pattern` (a glob with * and ?; empty matches all),
  // optionally only the trainable (true) or non-trainable (false) ones, in creation order.
  std::vector<Tensor> variables(const std::string& pattern = "", std::optional<bool> trainable = std::nullopt) const;
  std::vector<Tensor> placeholders() const;

  // The graph's update collection (see add_updates).
  void add_updates(const std::vector<std::pair<Tensor, Tensor>>& updates, Loc loc = Loc::current());
  const std::vector<std::pair<Tensor, Tensor>>& updates() const { return updates_; }
  void clear_updates() { updates_.clear(); }

  // The random-state variable threaded through functions (created on first use), and the seed
  // for the next random op's stream.
  Tensor random_state();
  std::uint64_t next_random_key();
  void seed(std::uint64_t seed);

  std::uint64_t next_node_id() { return next_id_++; }
  // Gives a new node its id and scope and lists it (ops() finds it while it lives).
  void adopt(const std::shared_ptr<Node>& node);
  // The op nodes (not placeholders, variables or constants) built in this graph (and graphs entered
  // inside it) that are still alive, in creation order.
  // Example: [t.op for t in current_graph().ops()]
  std::vector<Tensor> ops() const;
  // Draws the values of this graph's variables again (reset_variables over variables()).
  // Example: g.reset()
  void reset();
  // Empties the graph (variables, placeholders, ops, scopes, updates and the random seed start over),
  // keeping its name and its place among the entered graphs.
  void clear();
  // Makes this graph the default one, inside the current default graph (which then also lists what
  // this graph makes), and back (WithGraph does both; Python: `with graph:`). Entering a graph already entered is a
  // ValueError.
  void enter();
  void exit();
  // This graph's variable named `name`: its whole scoped name, or the name within the graph's scope
  // ("w" for "model1/w" in Graph("model1")); ValueError when there is none.
  // Example: g.variable("w")
  Tensor variable(const std::string& name) const;

 private:
  std::vector<std::string> scopes_;
  std::unordered_set<std::string> names_;
  std::unordered_map<std::string, std::int64_t> next_suffix_;
  std::vector<Tensor> variables_, placeholders_;
  std::vector<std::pair<Tensor, Tensor>> updates_;
  Tensor random_state_;
  std::uint64_t seed_ = 0, random_ops_ = 0, next_id_ = 1;
  std::string name_, prefix_;  // prefix_: the scope of the enclosing graph and the name, while entered
  Graph* parent_ = nullptr;    // the enclosing default graph while entered
  bool entered_ = false;
  std::vector<std::weak_ptr<const Node>> ops_;
  std::size_t prune_at_ = 1024;
};

// The graph that new nodes join. Replace it with `DefaultGraph guard(g)` or reset_default_graph().
Graph& default_graph();
// Replaces the default graph with a new, empty one (variables, placeholders, scopes and the random
// seed start over). Tensors of the old graph stay valid but belong to no collection.
// Example: reset_default_graph() between independent experiments
void reset_default_graph();

// Makes `graph` the default for its lifetime, apart from the graph it replaces (which lists nothing
// made meanwhile). For SymJAX's nesting (Python's `with graph:`) use WithGraph.
// Example: Graph g; { DefaultGraph guard(g); auto w = variable(...); }
class DefaultGraph {
 public:
  explicit DefaultGraph(Graph& graph);
  ~DefaultGraph();
  DefaultGraph(const DefaultGraph&) = delete;
  DefaultGraph& operator=(const DefaultGraph&) = delete;

 private:
  Graph* previous_;
};

// Python's `with graph:` in C++: Graph::enter for its lifetime and Graph::exit after. The graph is the
// default inside the current one: a named graph scopes its nodes under its name, and the enclosing graph's
// collections also list its variables and placeholders.
// Example: Graph g("model1"); { WithGraph with(g); auto w = variable(...); }  // named "model1/variable"
class WithGraph {
 public:
  explicit WithGraph(Graph& graph);
  ~WithGraph();
  WithGraph(const WithGraph&) = delete;
  WithGraph& operator=(const WithGraph&) = delete;

 private:
  Graph& graph_;
};

// A name scope on the default graph: variables made while it is active are named "layer1/w". In C++ an
// RAII guard ({ Scope s("layer1"); auto w = variable(...); }), in Python a context manager.
// Example: with Scope("layer1"): w = variable(np.zeros(3), name="w")  # named "layer1/w"
class Scope {
 public:
  explicit Scope(const std::string& name);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
};

// ---- leaves ----

// An input of a function; its value comes from the feed (eval) or the call's arguments (function).
// shape: ints; dtype: float32 by default; name: shown in errors and printing. A size given as
// kDynamic (Python: None) is unknown until a call: placeholder((None, 784)) takes a batch of any size.
// Shape inference keeps such a size symbolic and checks every known one when nodes are built; a
// function (and eval) specializes the graph to each new input shape it meets and compiles it once
// per shape (compile_count counts them). Each None is its own size; where two meet (x and its
// labels in a loss) a call checks that they are equal. Ops that need an unknown size at build time
// (slicing that axis other than whole, a reshape not using -1 for it) say so.
// Example: x = placeholder((None, 784), name="x")
Tensor placeholder(Shape shape, DType dtype = DType::f32, const std::string& name = "", Loc loc = Loc::current());
// State that persists across calls: updated by `function` updates, collected by
// Graph::variables, saved by save_variables. `value` is copied. Python: numbers and lists become
// float32 (symx's default float) unless `dtype` says otherwise; NumPy arrays keep their dtype. The
// first value is kept for reset_variables (sharing storage with the variable until its first update).
// Example: w = variable(np.zeros((784, 10), np.float32), name="w")
Tensor variable(const Array& value, const std::string& name = "", bool trainable = true, Loc loc = Loc::current());
// A variable whose first value is the value of `init` now (init.eval()): a tensor of constants,
// random draws or other variables' current values; one that depends on a placeholder has no value
// yet and is refused (ValueError). reset_variables gives it that first value again. Python:
// variable(tensor, name="w").
// Example: w = variable(random::normal({784, 10}) * 0.01, "w")
// Python: w = sx.variable(sx.random.normal((784, 10)) * 0.01, name="w")
Tensor variable(const Tensor& init, const std::string& name = "", bool trainable = true, Loc loc = Loc::current());
// A variable whose value is drawn by `init` (an Initializer: a function of shape and dtype, such
// as nn::init::glorot_uniform()) for `shape` and `dtype`; reset_variables draws it again. Python:
// variable(init, shape, dtype=float32, name="", trainable=True), where `init` may also be an array or
// a number (filled into `shape`).
// Example: w = variable(nn.init.glorot_uniform(), (784, 100), name="w")
Tensor variable(const Initializer& init, Shape shape, DType dtype = DType::f32, const std::string& name = "",
                bool trainable = true, Loc loc = Loc::current());
// Draws the values of `variables` (default: every variable of the default graph) again: those made
// from an initializer get a fresh draw, the others their first value again.
// Example: reset_variables()  # a new random start for the whole model
void reset_variables(const std::vector<Tensor>& variables = {});

// Adds (variable, new value) pairs to the default graph's update collection, which layers (batch
// norm's running statistics) and optimizers fill and a training function takes whole:
// function(..., updates=get_updates()). Nothing is applied implicitly. A variable may have one
// update in the collection: a second one is a ValueError (clear_updates() starts over).
// Example: add_updates({running_mean: 0.9 * running_mean + 0.1 * batch_mean})
void add_updates(const std::vector<std::pair<Tensor, Tensor>>& updates, Loc loc = Loc::current());
// The default graph's update collection, in the order added; only those whose variable's scoped
// name matches the glob `pattern` when it is given.
// Example: train = function([x, y], [loss], updates=get_updates())
std::vector<std::pair<Tensor, Tensor>> get_updates(const std::string& pattern = "");
// Empties the default graph's update collection.
// Example: clear_updates()
void clear_updates();

// A fixed value baked into the graph. Python: converted with numpy.asarray; Python floats and lists of
// them become float32 unless `dtype` is given.
// Example: c = constant([1.0, 2.0])
Tensor constant(const Array& value, Loc loc = Loc::current());
Tensor constant(double value, DType dtype = DType::f32, Loc loc = Loc::current());

// Variables of the default graph whose scoped name matches the glob `pattern` (* and ?; empty
// matches all; a leading "/" is ignored, so "/layer1/w" finds "layer1/w"), optionally only the
// trainable (True) or non-trainable (False) ones, in creation order.
// Example: variables("layer1/*", trainable=True)
std::vector<Tensor> variables(const std::string& pattern = "", std::optional<bool> trainable = std::nullopt);
// Placeholders of the default graph, in creation order.
// Example: placeholders()[0] is the first placeholder made
std::vector<Tensor> placeholders();

}  // namespace symx

template <> struct std::hash<symx::Tensor> {
  std::size_t operator()(const symx::Tensor& t) const noexcept { return std::hash<const void*>()(t.node_ptr().get()); }
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

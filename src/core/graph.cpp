#include <algorithm>
#include <mutex>
#include <shared_mutex>

#include "ops/op_table.hpp"
#include "runtime/evaluator.hpp"
#include "symx/ops.hpp"
#include "symx/tensor.hpp"

#include "function/specialize.hpp"

namespace symx {
namespace {

Graph*& current_graph() {
  static Graph root;
  static thread_local Graph* current = &root;
  return current;
}

std::shared_ptr<VariableState> make_variable_state(Array value, bool trainable) {
  auto state = std::make_shared<VariableState>();  // not aggregate-initialized: the mutex cannot move
  state->value = std::move(value);
  state->trainable = trainable;
  return state;
}

// Glob match with * and ?.
bool glob_match(const char* pattern, const char* text) {
  if (*pattern == '\0') return *text == '\0';
  if (*pattern == '*') return glob_match(pattern + 1, text) || (*text && glob_match(pattern, text + 1));
  if (*text && (*pattern == '?' || *pattern == *text)) return glob_match(pattern + 1, text + 1);
  return false;
}

}  // namespace

Graph& default_graph() { return *current_graph(); }

void reset_default_graph() { *current_graph() = Graph(); }

DefaultGraph::DefaultGraph(Graph& graph) : previous_(current_graph()) { current_graph() = &graph; }
DefaultGraph::~DefaultGraph() { current_graph() = previous_; }

Scope::Scope(const std::string& name) { default_graph().push_scope(name); }
Scope::~Scope() {
  // A destructor must not throw: the scope is already gone when the graph was reset inside it.
  try {
    default_graph().pop_scope();
  } catch (const ValueError&) {
  }
}

Graph::Graph() = default;

void Graph::push_scope(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos)
    throw ValueError("Scope: scope name '" + name + "' is empty or contains '/'. Use a plain name such as \"layer1\".");
  scopes_.push_back(name);
}

void Graph::pop_scope() {
  if (scopes_.empty())
    throw ValueError("pop_scope: there is no scope to pop (every pop_scope needs an earlier push_scope). Open "
                     "scopes with a guard: Scope s(\"layer1\"); in C++, with sx.Scope(\"layer1\"): in Python.");
  scopes_.pop_back();
}

std::string Graph::current_scope() const {
  std::string s;
  for (const auto& scope : scopes_) s += scope + "/";
  return s;
}

std::string Graph::unique_name(const std::string& name) {
  std::string base = current_scope() + name;
  std::string candidate = base;
  // Resume numbering where the last clash on this base stopped, so naming stays O(1) per node.
  std::int64_t& next = next_suffix_[base];
  while (names_.count(candidate)) candidate = base + "_" + std::to_string(++next);
  names_.insert(candidate);
  return candidate;
}

void Graph::add_variable(const Tensor& t) { variables_.push_back(t); }

void Graph::add_updates(const std::vector<std::pair<Tensor, Tensor>>& updates, Loc loc) {
  std::string at = ops::where_string(loc);
  for (const auto& [var, value] : updates) {
    if (!var.defined() || var.op() != OpKind::Variable)
      throw ValueError("add_updates" + (at.empty() ? std::string() : " at " + at) + ": '" +
                       (var.defined() ? var.label() : std::string("an undefined tensor")) +
                       "' is not a variable; only variables can be updated. Pair each variable with its new value.");
    if (!value.defined())
      throw ValueError("add_updates" + (at.empty() ? std::string() : " at " + at) + ": the update of '" + var.label() +
                       "' is an undefined tensor. Pair the variable with the tensor of its new value.");
    for (const auto& [old, _] : updates_)
      if (old == var)
        throw ValueError("add_updates" + (at.empty() ? std::string() : " at " + at) + ": variable '" + var.label() +
                         "' already has an update in the collection (a layer applied in training mode twice, or "
                         "two optimizers over it?). Each call of a function updates a variable once: keep one, "
                         "or call clear_updates() to start the collection over.");
    updates_.emplace_back(var, value);
  }
}
void Graph::add_placeholder(const Tensor& t) { placeholders_.push_back(t); }

std::vector<Tensor> Graph::variables(const std::string& pattern, std::optional<bool> trainable) const {
  std::vector<Tensor> out;
  for (const auto& v : variables_) {
    if (!pattern.empty() && !glob_match(pattern.c_str(), v.name().c_str())) continue;
    if (trainable && v.trainable() != *trainable) continue;
    out.push_back(v);
  }
  return out;
}

std::vector<Tensor> Graph::placeholders() const { return placeholders_; }

Tensor Graph::random_state() {
  if (!random_state_.defined()) {
    auto node = std::make_shared<Node>();
    node->op = OpKind::Variable;
    node->type = {Shape{}, DType::i64};
    node->name = "random_state";
    node->id = next_node_id();
    node->variable = make_variable_state(Array::zeros({}, DType::i64), false);
    random_state_ = Tensor(std::move(node));
  }
  return random_state_;
}

std::uint64_t Graph::next_random_key() { return seed_ * 0x9E3779B97F4A7C15ull + (++random_ops_); }

void Graph::seed(std::uint64_t seed) {
  seed_ = seed;
  random_ops_ = 0;
  if (random_state_.defined()) random_state_.assign(Array::zeros({}, DType::i64));
}

// ---- Tensor ----

const Node& Tensor::node() const {
  if (!node_) throw ValueError("Tensor: this tensor is undefined (default-constructed). Build it with placeholder, variable, constant or an op.");
  return *node_;
}

std::string Tensor::display_op() const {
  return node().display.empty() ? std::string(op_name(op())) : node().display;
}

std::string Tensor::label() const {
  if (!name().empty()) return name();
  return display_op() + "#" + std::to_string(id());
}

Array Tensor::eval(const Feed& feed) const {
  bool dynamic = std::any_of(feed.begin(), feed.end(), [](const auto& f) { return detail::is_dynamic(f.first); });
  if (!dynamic) return runtime::evaluate_and_advance({*this}, feed)[0];
  // Placeholders of unknown sizes: the graph specialized to the fed shapes, as a function call does.
  std::vector<std::pair<Tensor, Shape>> given;
  for (const auto& [p, value] : feed) {
    if (detail::is_dynamic(p)) detail::check_dynamic_input(p, value.shape(), "eval");
    given.emplace_back(p, value.shape());
  }
  detail::Specialization s = detail::specialize({*this}, given);
  Feed fixed;
  for (std::size_t i = 0; i < given.size(); ++i) fixed.emplace_back(s.placeholders[i], feed[i].second);
  return runtime::evaluate_and_advance(s.roots, fixed)[0];
}

namespace {
VariableState& state_of(const Tensor& t, const char* what) {
  if (t.op() != OpKind::Variable)
    throw ValueError(std::string(what) + ": '" + t.label() + "' is a " + op_name(t.op()) +
                     ", not a variable. Only variables have a value to read or assign.");
  return *t.node().variable;
}
}  // namespace

Array Tensor::value() const {
  VariableState& state = state_of(*this, "value");
  std::shared_lock lock(state.mutex);
  return state.value;
}

void Tensor::assign(const Array& value) const {
  VariableState& state = state_of(*this, "assign");
  if (value.shape() != shape() || value.dtype() != dtype())
    throw ValueError("assign: variable '" + label() + "' is " + shape_string(shape()) + " " +
                     std::string(dtype_name(dtype())) + " but the new value is " +
                     shape_string(value.shape()) + " " + std::string(dtype_name(value.dtype())) +
                     ". Assign a value of the variable's shape and dtype.");
  // Copied before locking, so that concurrent calls wait only for the swap; the old storage
  // stays valid for whoever still holds it.
  Array copied = value.copy();
  std::unique_lock lock(state.mutex);
  state.value = std::move(copied);
}

bool Tensor::trainable() const { return state_of(*this, "trainable").trainable; }

Tensor Tensor::astype(DType dtype, Loc loc) const { return symx::astype(*this, dtype, loc); }
Tensor Tensor::reshape(Shape shape, Loc loc) const { return symx::reshape(*this, std::move(shape), loc); }
Tensor Tensor::T(Loc loc) const { return symx::transpose(*this, {}, loc); }
Tensor Tensor::operator[](std::int64_t index) const { return symx::slice(*this, {Index(index)}); }

// ---- leaves ----

namespace {
Tensor make_leaf(OpKind op, TensorType type, std::string name, Attr attr, Loc loc,
                 std::shared_ptr<VariableState> state = nullptr) {
  auto node = std::make_shared<Node>();
  node->variable = std::move(state);
  node->op = op;
  node->type = std::move(type);
  node->attr = std::move(attr);
  node->name = std::move(name);
  node->where = ops::where_string(loc);
  node->id = default_graph().next_node_id();
  return Tensor(std::move(node));
}

}  // namespace

Tensor placeholder(Shape shape, DType dtype, const std::string& name, Loc loc) {
  for (auto& d : shape)
    if (d == kDynamic) d = new_symbol();  // each unknown size its own symbol
  ops::check_user_shape(name.empty() ? "placeholder" : ("placeholder '" + name + "'").c_str(), shape, dtype, loc);
  Graph& g = default_graph();
  Tensor t = make_leaf(OpKind::Placeholder, {std::move(shape), dtype}, g.unique_name(name.empty() ? "placeholder" : name), NoAttr{}, loc);
  g.add_placeholder(t);
  return t;
}

Tensor variable(const Array& value, const std::string& name, bool trainable, Loc loc) {
  Graph& g = default_graph();
  auto state = make_variable_state(value.copy(), trainable);
  // reset_variables restores the first value; sharing its storage costs one copy on the first update.
  state->initializer = [first = state->value](const Shape&, DType) { return first; };
  Tensor t = make_leaf(OpKind::Variable, {value.shape(), value.dtype()}, g.unique_name(name.empty() ? "variable" : name), NoAttr{}, loc,
                       std::move(state));
  g.add_variable(t);
  return t;
}

Tensor variable(const Initializer& init, Shape shape, DType dtype, const std::string& name, bool trainable, Loc loc) {
  std::string what = name.empty() ? std::string("variable") : "variable '" + name + "'";
  if (!init) throw ValueError(what + ": the initializer is empty. Pass a function of (shape, dtype), such as nn::init::zeros().");
  ops::check_user_shape(what.c_str(), shape, dtype, loc);
  Array value = init(shape, dtype);
  if (value.shape() != shape || value.dtype() != dtype)
    throw ValueError(what + ": the initializer returned a " + shape_string(value.shape()) + " " +
                     std::string(dtype_name(value.dtype())) + " array for a " + shape_string(shape) + " " +
                     std::string(dtype_name(dtype)) + " variable. An initializer must return an array of the shape and dtype it is given.");
  Graph& g = default_graph();
  auto state = make_variable_state(std::move(value), trainable);
  state->initializer = init;
  Tensor t = make_leaf(OpKind::Variable, {std::move(shape), dtype}, g.unique_name(name.empty() ? "variable" : name),
                       NoAttr{}, loc, std::move(state));
  g.add_variable(t);
  return t;
}

void reset_variables(const std::vector<Tensor>& variables) {
  for (const Tensor& v : variables.empty() ? default_graph().variables() : variables) {
    const VariableState& state = state_of(v, "reset_variables");
    if (!state.initializer) continue;  // the random state has none
    Array value = state.initializer(v.shape(), v.dtype());
    if (value.shape() != v.shape() || value.dtype() != v.dtype())
      throw ValueError("reset_variables: the initializer of variable '" + v.label() + "' returned a " +
                       shape_string(value.shape()) + " " + std::string(dtype_name(value.dtype())) + " array for its " +
                       shape_string(v.shape()) + " " + std::string(dtype_name(v.dtype())) +
                       " value; the variable keeps its value. An initializer must return an array of the shape "
                       "and dtype it is given.");
    v.assign(value);
  }
}

void add_updates(const std::vector<std::pair<Tensor, Tensor>>& updates, Loc loc) {
  default_graph().add_updates(updates, loc);
}

std::vector<std::pair<Tensor, Tensor>> get_updates(const std::string& pattern) {
  std::vector<std::pair<Tensor, Tensor>> out;
  for (const auto& u : default_graph().updates())
    if (pattern.empty() || glob_match(pattern.c_str(), u.first.name().c_str())) out.push_back(u);
  return out;
}

void clear_updates() { default_graph().clear_updates(); }

Tensor constant(const Array& value, Loc loc) {
  return make_leaf(OpKind::Constant, {value.shape(), value.dtype()}, "", ConstantAttr{value.copy()}, loc);
}

Tensor constant(double value, DType dtype, Loc loc) {
  Array a(Shape{}, dtype);
  a.set_flat(0, value);
  return constant(a, loc);
}

std::vector<Tensor> variables(const std::string& pattern, std::optional<bool> trainable) {
  return default_graph().variables(pattern, trainable);
}
std::vector<Tensor> placeholders() { return default_graph().placeholders(); }

}  // namespace symx

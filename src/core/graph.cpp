// The graph (core): the default graph with its name scopes and collections, the Tensor handle,
// and variables' values. Leaves are built in ops (ops/tensor_builders.cpp), Tensor::eval in function
// (function/eval.cpp).
#include <algorithm>
#include <mutex>
#include <shared_mutex>

#include "core/graph.hpp"
#include "core/location.hpp"
#include "symx/tensor.hpp"

namespace symx {
namespace {

Graph*& current_slot() {
  static Graph root;
  static thread_local Graph* current = &root;
  return current;
}

// Glob match with * and ?.
bool glob_match(const char* pattern, const char* text) {
  if (*pattern == '\0') return *text == '\0';
  if (*pattern == '*') return glob_match(pattern + 1, text) || (*text && glob_match(pattern, text + 1));
  if (*text && (*pattern == '?' || *pattern == *text)) return glob_match(pattern + 1, text + 1);
  return false;
}

}  // namespace

std::shared_ptr<VariableState> detail::make_variable_state(Array value, bool trainable) {
  auto state = std::make_shared<VariableState>();  // not aggregate-initialized: the mutex cannot move
  state->value = std::move(value);
  state->trainable = trainable;
  return state;
}

Graph& default_graph() { return *current_slot(); }

void reset_default_graph() { current_slot()->clear(); }

DefaultGraph::DefaultGraph(Graph& graph) : previous_(current_slot()) { current_slot() = &graph; }
DefaultGraph::~DefaultGraph() { current_slot() = previous_; }

WithGraph::WithGraph(Graph& graph) : graph_(graph) { graph.enter(); }
WithGraph::~WithGraph() {
  try {
    graph_.exit();
  } catch (const ValueError&) {}  // a destructor must not throw
}

Scope::Scope(const std::string& name) { default_graph().push_scope(name); }
Scope::~Scope() {
  // A destructor must not throw: the scope is already gone when the graph was reset inside it.
  try {
    default_graph().pop_scope();
  } catch (const ValueError&) {}
}

Graph::Graph() = default;
Graph::Graph(std::string name) : name_(std::move(name)) {
  if (name_.find('/') != std::string::npos)
    throw ValueError("Graph: graph name '" + name_ + "' contains '/'. Use a plain name such as \"model1\".");
}

void Graph::enter() {
  Graph* outer = current_slot();
  if (entered_ || outer == this)
    throw ValueError("Graph" + (name_.empty() ? std::string() : " '" + name_ + "'") +
                     ": the graph is already the default graph or entered. Enter a graph once at a time "
                     "(with g: ... in Python, DefaultGraph guard(g) in C++).");
  parent_ = outer;
  entered_ = true;
  prefix_ = outer->current_scope() + (name_.empty() ? std::string() : name_ + "/");
  next_id_ = std::max(next_id_, outer->next_id_);  // ids stay unique among the graphs a function mixes
  current_slot() = this;
}

void Graph::exit() {
  if (!entered_ || current_slot() != this)
    throw ValueError("Graph" + (name_.empty() ? std::string() : " '" + name_ + "'") +
                     ": exit without a matching enter, or graphs left out of order.");
  parent_->next_id_ = std::max(parent_->next_id_, next_id_);
  current_slot() = parent_;
  parent_ = nullptr;
  entered_ = false;  // prefix_ stays: variable(name) looks names up in the graph's scope
}

void Graph::clear() {
  Graph fresh(name_);
  fresh.parent_ = parent_;
  fresh.entered_ = entered_;
  fresh.prefix_ = prefix_;
  if (parent_) fresh.next_id_ = std::max(next_id_, parent_->next_id_);
  *this = std::move(fresh);
}

void Graph::reset() { reset_variables(variables()); }

Tensor Graph::variable(const std::string& name) const {
  for (const Tensor& v : variables_)
    if (v.name() == name || v.name() == prefix_ + name) return v;
  std::string names;
  for (const Tensor& v : variables_) names += (names.empty() ? "" : ", ") + v.name();
  throw ValueError("Graph" + (name_.empty() ? std::string() : " '" + name_ + "'") + ": no variable named '" + name +
                   "'; its variables are [" + names + "]. Give a scoped name or one of these.");
}

void Graph::adopt(const std::shared_ptr<Node>& node) {
  node->id = next_node_id();
  node->scope = current_scope();
  if (node->op == OpKind::Placeholder || node->op == OpKind::Variable || node->op == OpKind::Constant) return;
  for (Graph* g = this; g; g = g->parent_) {
    if (g->ops_.size() >= g->prune_at_) {  // drop the nodes gone since, amortized O(1) per node
      std::erase_if(g->ops_, [](const std::weak_ptr<const Node>& w) { return w.expired(); });
      g->prune_at_ = std::max<std::size_t>(1024, 2 * g->ops_.size());
    }
    g->ops_.push_back(node);
  }
}

std::vector<Tensor> Graph::ops() const {
  std::vector<Tensor> out;
  for (const auto& w : ops_)
    if (auto n = w.lock()) out.emplace_back(std::move(n));
  return out;
}

void Graph::push_scope(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos)
    throw ValueError("Scope: scope name '" + name + "' is empty or contains '/'. Use a plain name such as \"layer1\".");
  scopes_.push_back(name);
}

void Graph::pop_scope() {
  if (scopes_.empty())
    throw ValueError(
        "pop_scope: there is no scope to pop (every pop_scope needs an earlier push_scope). Open "
        "scopes with a guard: Scope s(\"layer1\"); in C++, with sx.Scope(\"layer1\"): in Python.");
  scopes_.pop_back();
}

std::string Graph::current_scope() const {
  std::string s = prefix_;
  for (const auto& scope : scopes_) s += scope + "/";
  return s;
}

std::string Graph::unique_name(const std::string& name) {
  std::string base = current_scope() + name;
  std::string candidate = base;
  // Resume numbering where the last clash on this base stopped, so naming stays O(1) per node. The names
  // of the enclosing graphs count too: their collections list this graph's leaves.
  std::int64_t& next = next_suffix_[base];
  auto taken = [&](const std::string& n) {
    for (const Graph* g = this; g; g = g->parent_)
      if (g->names_.count(n)) return true;
    return false;
  };
  while (taken(candidate)) candidate = base + "_" + std::to_string(++next);
  for (Graph* g = this; g; g = g->parent_) g->names_.insert(candidate);
  return candidate;
}

void Graph::add_variable(const Tensor& t) {
  for (Graph* g = this; g; g = g->parent_) g->variables_.push_back(t);
}

void Graph::add_updates(const std::vector<std::pair<Tensor, Tensor>>& updates, Loc loc) {
  std::string at = detail::where_string(loc);
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
void Graph::add_placeholder(const Tensor& t) {
  for (Graph* g = this; g; g = g->parent_) g->placeholders_.push_back(t);
}

std::vector<Tensor> Graph::variables(const std::string& pattern, std::optional<bool> trainable) const {
  // Scoped names have no leading slash ("scope/w"); "/scope/w", an absolute path, means the same.
  const std::size_t start = pattern.find_first_not_of('/');
  const std::string glob = start == std::string::npos ? std::string() : pattern.substr(start);
  std::vector<Tensor> out;
  for (const auto& v : variables_) {
    if (!glob.empty() && !glob_match(glob.c_str(), v.name().c_str())) continue;
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
    node->variable = detail::make_variable_state(Array::zeros({}, DType::i64), false);
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
  if (!node_)
    throw ValueError(
        "Tensor: this tensor is undefined (default-constructed). Build it with placeholder, variable, constant or an "
        "op.");
  return *node_;
}

std::string Tensor::display_op() const { return node().display.empty() ? std::string(op_name(op())) : node().display; }

std::string Tensor::label() const {
  if (!name().empty()) return name();
  return display_op() + "#" + std::to_string(id());
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
                     std::string(dtype_name(dtype())) + " but the new value is " + shape_string(value.shape()) + " " +
                     std::string(dtype_name(value.dtype())) + ". Assign a value of the variable's shape and dtype.");
  // Copied before locking, so that concurrent calls wait only for the swap; the old storage
  // stays valid for whoever still holds it.
  Array copied = value.copy();
  std::unique_lock lock(state.mutex);
  state.value = std::move(copied);
}

bool Tensor::trainable() const { return state_of(*this, "trainable").trainable; }

const Initializer& Tensor::initializer() const { return state_of(*this, "initializer").initializer; }

std::string Tensor::scope() const { return "/" + node().scope; }

// ---- leaves ----

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

std::vector<Tensor> variables(const std::string& pattern, std::optional<bool> trainable) {
  return default_graph().variables(pattern, trainable);
}
std::vector<Tensor> placeholders() { return default_graph().placeholders(); }

}  // namespace symx

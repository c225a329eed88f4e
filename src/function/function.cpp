#include "symx/function.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <shared_mutex>

#include <omp.h>
#include <unordered_map>
#include <unordered_set>

#include "function/compile.hpp"
#include "function/specialize.hpp"
#include "ops/control_flow.hpp"
#include "ops/op_table.hpp"
#include "runtime/evaluator.hpp"
#include "runtime/program.hpp"
#include "runtime/variable_locks.hpp"

namespace symx {

struct Function::Impl {
  std::vector<Tensor> inputs, outputs;
  Updates updates;
  std::vector<Tensor> random_states;
  Backend backend = Backend::compiled;
  std::string where;
  std::string context;  // "function (made at file:line)", for error messages
  // The variables the call reads and writes, in lock order (see runtime/variable_locks.hpp).
  std::vector<runtime::VariableAccess> accesses;
  std::int64_t bytes_per_call = 0;
  // The compiled program, built once on the first call (shapes are static, so one signature)
  // under `compile_mutex`; `ready` publishes it so that later calls take no lock. A compile that
  // throws leaves no program, and the next call tries again (the error may be transient: a full
  // disk, a compiler timeout).
  std::unique_ptr<runtime::Program> program;
  std::atomic<runtime::Program*> ready{nullptr};
  std::mutex compile_mutex;
  std::atomic<std::int64_t> compiles{0};
  // Result arrays of earlier calls, per output: one that nobody else holds any more is written
  // again instead of allocating (and page-faulting) a fresh buffer. Two per output, so that a
  // caller holding the previous result still gets a recycled one. Guarded by `recycled_mutex`.
  std::vector<std::vector<Array>> recycled;
  std::mutex recycled_mutex;

  // With inputs of unknown sizes (placeholder((None, 784))), calls run a function specialized to
  // their inputs' shapes: made on the first call with those shapes (compiling once, as jax.jit
  // does), kept in `specializations` (guarded by `specializations_mutex`, shared for lookups).
  bool dynamic = false;
  bool single_output = false;  // made by function(x, y) with one output tensor
  FunctionOptions options;
  // At most options.max_specializations are kept: a new one beyond drops the least recently used
  // (`last_use`, stamped from `use_clock` by every call), whose program is freed once no call runs
  // it; `dropped_compiles` keeps its compiles in compile_count().
  struct Specialized {
    std::vector<Shape> shapes;  // of the dynamic inputs, in input order
    Function function;
    std::atomic<std::uint64_t> last_use{0};
    Specialized(std::vector<Shape> s, Function f) : shapes(std::move(s)), function(std::move(f)) {}
  };
  std::vector<std::unique_ptr<Specialized>> specializations;
  mutable std::shared_mutex specializations_mutex;
  mutable std::atomic<std::uint64_t> use_clock{0};
  std::atomic<std::int64_t> dropped_compiles{0};
  std::size_t max_specializations = 32;  // detail::max_specializations(options), when made

  runtime::Program& compiled_program();
  std::vector<Array> result_arrays();
  Function specialized(const std::vector<Array>& inputs);
  std::vector<Shape> dynamic_shapes(const std::vector<Array>& inputs) const;
  Specialized* find_specialization(const std::vector<Shape>& shapes) const;
  void keep_specialization(std::vector<Shape> shapes, const Function& made);
};

namespace {

// The thread count chosen by set_num_threads or SYMX_NUM_THREADS (0: OpenMP's default). OpenMP
// keeps the count per calling thread, so each compiled call applies it to the thread it runs on.
std::atomic<int> chosen_threads{0};

void use_chosen_threads() {
  int n = chosen_threads.load(std::memory_order_relaxed);
  if (n > 0 && omp_get_max_threads() != n) omp_set_num_threads(n);
}

// Applies SYMX_NUM_THREADS once, before the first compiled call.
void apply_thread_setting() {
  static const bool applied = [] {
    const char* env = std::getenv("SYMX_NUM_THREADS");
    if (env && *env) {
      char* end = nullptr;
      long n = std::strtol(env, &end, 10);
      if (*end != '\0' || n < 1)
        throw ValueError(std::string("function: SYMX_NUM_THREADS is '") + env +
                         "'. Set it to a positive integer, or unset it.");
      chosen_threads = static_cast<int>(n);
    }
    return true;
  }();
  (void)applied;
}

Backend default_backend() {
  const char* env = std::getenv("SYMX_BACKEND");
  if (!env || !*env) return Backend::compiled;
  std::string value = env;
  if (value == "reference") return Backend::reference;
  if (value == "compiled") return Backend::compiled;
  throw ValueError("function: SYMX_BACKEND is '" + value + "'. Set it to 'reference' or 'compiled', or unset it.");
}

[[noreturn]] void fail(const std::string& problem, const std::string& fix, Loc loc) {
  ops::raise("function", {}, {ops::TypeProblem::Kind::value, problem, fix}, loc);
}

void check_inputs(const std::vector<Tensor>& inputs, Loc loc) {
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].op() != OpKind::Placeholder)
      fail("input " + std::to_string(i) + " ('" + inputs[i].label() + "') is a " + op_name(inputs[i].op()) +
               ", not a placeholder",
           "Make inputs with placeholder(); use clone() to substitute other nodes.", loc);
    for (std::size_t j = 0; j < i; ++j)
      if (inputs[j] == inputs[i])
        fail("placeholder '" + inputs[i].label() + "' is listed twice among the inputs", "List each placeholder once.",
             loc);
  }
}

Updates check_updates(const Updates& updates, Loc loc) {
  Updates checked;
  for (const auto& [var, value] : updates) {
    if (var.op() != OpKind::Variable)
      fail("the update target '" + var.label() + "' is a " + op_name(var.op()) + ", not a variable",
           "Only variables can be updated.", loc);
    for (const auto& [other, unused] : checked)
      if (other == var)
        fail("variable '" + var.label() + "' is updated twice", "Give each variable one update expression.", loc);
    if (value.shape() != var.shape())
      fail("the update of variable '" + var.label() + "' " + shape_string(var.shape()) + " has shape " +
               shape_string(value.shape()),
           "The new value must have the variable's shape; reshape or reduce the expression.", loc);
    Tensor v = value;
    if (value.dtype() != var.dtype()) {
      // Floats take any real value (complex variables any value); a complex value never narrows silently.
      bool safe = (is_inexact(var.dtype()) && (is_complex(var.dtype()) || !is_complex(value.dtype()))) ||
                  (!is_floating(value.dtype()) && promote_types(value.dtype(), var.dtype()) == var.dtype());
      if (!safe)
        fail("the update of variable '" + var.label() + "' (" + std::string(dtype_name(var.dtype())) + ") has dtype " +
                 std::string(dtype_name(value.dtype())),
             "Cast the update to the variable's dtype explicitly with astype.", loc);
      v = cast(value, var.dtype(), loc);
    }
    checked.emplace_back(var, v);
  }
  return checked;
}

void check_placeholders_given(const std::vector<Tensor>& inputs, const std::vector<Tensor>& roots, Loc loc) {
  for (const Tensor& t : topological_order(roots))
    if (t.op() == OpKind::Placeholder && std::find(inputs.begin(), inputs.end(), t) == inputs.end())
      fail("the outputs depend on placeholder '" + t.label() + "' " + shape_string(t.shape()) + " " +
               std::string(dtype_name(t.dtype())) + ", which is not among the inputs",
           "Add it to the inputs, or replace it with clone().", loc);
}

runtime::Downcast downcast_rule(const FunctionOptions& options) {
  return options.allow_input_downcast ? runtime::Downcast::allow : runtime::Downcast::refuse_function;
}

// The dtypes of a call's inputs checked against the function's own placeholders before it
// specializes to their shapes, so that a refusal shows the placeholder as the user made it
// ((None, 2), not the (1, 2) of the specialization).
void check_input_dtypes(const std::vector<Tensor>& placeholders, const std::vector<Array>& inputs,
                        const FunctionOptions& options, const std::string& context) {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    runtime::check_feed_dtype(placeholders[i], inputs[i], context.c_str(), downcast_rule(options));
}

}  // namespace

Function detail::function_of(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                             const Updates& updates, FunctionOptions options, Loc loc, bool single_output) {
  Function made = function(inputs, outputs, updates, options, loc);
  made.impl_->single_output = single_output;
  return made;
}

Function function(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs, const Updates& updates,
                  FunctionOptions options, Loc loc) {
  auto impl = std::make_shared<Function::Impl>();
  check_inputs(inputs, loc);
  impl->inputs = inputs;
  impl->outputs = outputs;
  impl->updates = check_updates(updates, loc);
  std::vector<Tensor> roots = outputs;
  for (const auto& [var, value] : impl->updates) roots.push_back(value);
  check_placeholders_given(inputs, roots, loc);
  impl->dynamic = std::any_of(inputs.begin(), inputs.end(), detail::is_dynamic);
  impl->options = options;
  impl->max_specializations = static_cast<std::size_t>(detail::max_specializations(options));  // fails here
  impl->random_states = runtime::random_states(roots);
  std::vector<Tensor> written = impl->random_states;
  for (const auto& [var, value] : impl->updates) written.push_back(var);
  impl->accesses = runtime::variable_accesses(roots, written);
  if (!impl->dynamic) {
    for (const Tensor& t : topological_order(roots))
      if (t.op() == OpKind::Variable || t.op() == OpKind::Placeholder)
        impl->bytes_per_call += t.size() * static_cast<std::int64_t>(itemsize(t.dtype()));
    for (const Tensor& t : outputs) impl->bytes_per_call += t.size() * static_cast<std::int64_t>(itemsize(t.dtype()));
  }
  impl->backend = options.backend ? *options.backend : default_backend();
  impl->where = ops::where_string(loc);
  impl->context = "function" + (impl->where.empty() ? std::string() : " (made at " + impl->where + ")");
  return Function(std::move(impl));
}

std::vector<Array> Function::operator()(const std::vector<Array>& inputs) const {
  const Impl& f = *impl_;
  const std::string& context = f.context;
  if (inputs.size() != f.inputs.size()) {
    std::string names;
    for (const auto& p : f.inputs) names += (names.empty() ? "" : ", ") + p.label();
    throw ValueError(context + ": called with " + std::to_string(inputs.size()) + " inputs but it takes " +
                     std::to_string(f.inputs.size()) + " (" + names + "). Pass one array per placeholder, in order.");
  }
  if (f.dynamic) {
    check_input_dtypes(f.inputs, inputs, f.options, context);
    return impl_->specialized(inputs)(inputs);
  }
  if (f.backend == Backend::compiled) {
    std::vector<Array> outputs = impl_->result_arrays();
    call_into(inputs, outputs);
    return outputs;
  }
  Feed feed;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    feed.emplace_back(f.inputs[i],
                      runtime::feed_value(f.inputs[i], inputs[i], context.c_str(), downcast_rule(f.options)));
  std::vector<Tensor> roots = f.outputs;
  for (const auto& [var, value] : f.updates) roots.push_back(value);
  runtime::VariableLocks locks(f.accesses);
  // Everything is computed from the variable values at the start of the call ...
  std::vector<Array> values = runtime::evaluate(roots, feed, context.c_str());
  // ... and only then are the updates written, all together, each into a fresh buffer (the value
  // may be shared with an output, an input or the old storage, which someone may hold).
  for (std::size_t k = 0; k < f.updates.size(); ++k)
    f.updates[k].first.node().variable->value = values[f.outputs.size() + k].copy();
  runtime::advance_random_states(f.random_states);
  values.resize(f.outputs.size());
  return values;
}

void Function::call_into(const std::vector<Array>& inputs, std::vector<Array>& outputs) const {
  Impl& f = *impl_;
  const std::string& context = f.context;
  if (inputs.size() != f.inputs.size() || outputs.size() != f.outputs.size())
    throw ValueError(context + ": call_into got " + std::to_string(inputs.size()) + " inputs and " +
                     std::to_string(outputs.size()) + " outputs but the function has " +
                     std::to_string(f.inputs.size()) + " and " + std::to_string(f.outputs.size()) +
                     ". Pass one array per placeholder and one preallocated array per output.");
  if (f.dynamic) {
    check_input_dtypes(f.inputs, inputs, f.options, context);
    return f.specialized(inputs).call_into(inputs, outputs);
  }
  bool exact = true;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    exact &= runtime::check_feed_value(f.inputs[i], inputs[i], context.c_str(), downcast_rule(f.options));
  if (!exact) {
    // A safe conversion (int32 labels into an int64 placeholder, say): converted copies, then
    // the call as usual. Only such calls allocate for it.
    std::vector<Array> converted;
    converted.reserve(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i)
      converted.push_back(runtime::feed_value(f.inputs[i], inputs[i], context.c_str(), downcast_rule(f.options)));
    return call_into(converted, outputs);
  }
  for (std::size_t k = 0; k < outputs.size(); ++k)
    if (outputs[k].shape() != f.outputs[k].shape() || outputs[k].dtype() != f.outputs[k].dtype())
      throw ValueError(context + ": output " + std::to_string(k) + " must be " + shape_string(f.outputs[k].shape()) +
                       " " + std::string(dtype_name(f.outputs[k].dtype())) + ", got " +
                       shape_string(outputs[k].shape()) + " " + std::string(dtype_name(outputs[k].dtype())) +
                       ". Preallocate outputs with the outputs' shapes and dtypes.");
  if (f.backend == Backend::reference) {
    auto values = (*this)(inputs);
    for (std::size_t k = 0; k < outputs.size(); ++k)
      std::memcpy(outputs[k].raw_data(), values[k].raw_data(), values[k].nbytes());
    return;
  }
  runtime::Program& program = f.compiled_program();
  use_chosen_threads();
  runtime::VariableLocks locks(f.accesses);
  program.run(inputs, outputs);
}

runtime::Program& Function::Impl::compiled_program() {
  if (runtime::Program* p = ready.load(std::memory_order_acquire)) return *p;
  std::lock_guard lock(compile_mutex);
  if (!program) {
    apply_thread_setting();
    Updates all = updates;
    for (const Tensor& state : random_states) all.emplace_back(state, state + 1);
    program = detail::compile(inputs, outputs, all);
    ++compiles;
    ready.store(program.get(), std::memory_order_release);
  }
  return *program;
}

Function Function::Impl::specialized(const std::vector<Array>& inputs) {
  std::vector<Shape> shapes = dynamic_shapes(inputs);
  {
    std::shared_lock lock(specializations_mutex);
    if (Specialized* s = find_specialization(shapes)) return s->function;
  }
  std::unique_lock lock(specializations_mutex);
  if (Specialized* s = find_specialization(shapes)) return s->function;
  std::vector<std::pair<Tensor, Shape>> given;
  for (std::size_t i = 0; i < inputs.size(); ++i) given.emplace_back(this->inputs[i], inputs[i].shape());
  std::vector<Tensor> roots = outputs;
  for (const auto& [var, value] : updates) roots.push_back(value);
  detail::Specialization s;
  try {
    s = detail::specialize(roots, given);
  } catch (const ShapeError& e) {
    std::string what;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      what += (i ? ", " : "") + this->inputs[i].label() + " " + shape_string(inputs[i].shape());
    throw ShapeError(context + ", called with " + what + ": " + e.what());
  }
  Updates fixed;
  for (std::size_t k = 0; k < updates.size(); ++k) fixed.emplace_back(updates[k].first, s.roots[outputs.size() + k]);
  s.roots.resize(outputs.size());
  Function made = function(s.placeholders, s.roots, fixed, options);
  made.impl_->context = context;  // errors name the function the user made
  keep_specialization(std::move(shapes), made);
  return made;
}

std::vector<Shape> Function::Impl::dynamic_shapes(const std::vector<Array>& inputs) const {
  std::vector<Shape> shapes;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (detail::is_dynamic(this->inputs[i])) {
      detail::check_dynamic_input(this->inputs[i], inputs[i].shape(), context);
      shapes.push_back(inputs[i].shape());
    }
  return shapes;
}

// The specialization to `shapes`, stamped as used now; null when there is none. Under
// specializations_mutex (shared is enough: the stamp is atomic).
Function::Impl::Specialized* Function::Impl::find_specialization(const std::vector<Shape>& shapes) const {
  for (const auto& s : specializations)
    if (s->shapes == shapes) {
      s->last_use.store(use_clock.fetch_add(1) + 1, std::memory_order_relaxed);
      return s.get();
    }
  return nullptr;
}

// Adds `made`, first dropping the least recently used specializations beyond the bound. A call
// running a dropped one holds its own copy of the Function, so the program lives until it returns.
// Under specializations_mutex, held exclusively.
void Function::Impl::keep_specialization(std::vector<Shape> shapes, const Function& made) {
  while (!specializations.empty() && specializations.size() >= max_specializations) {
    auto oldest = std::min_element(specializations.begin(), specializations.end(), [](const auto& a, const auto& b) {
      return a->last_use.load(std::memory_order_relaxed) < b->last_use.load(std::memory_order_relaxed);
    });
    dropped_compiles += (*oldest)->function.compile_count();
    specializations.erase(oldest);
  }
  auto kept = std::make_unique<Specialized>(std::move(shapes), made);
  kept->last_use = use_clock.fetch_add(1) + 1;
  specializations.push_back(std::move(kept));
}

bool Function::compiled_for(const std::vector<Array>& inputs) const {
  const Impl& f = *impl_;
  if (f.backend == Backend::reference) return true;
  if (!f.dynamic) return f.ready.load(std::memory_order_acquire) != nullptr;
  if (inputs.size() != f.inputs.size()) return false;
  try {
    std::vector<Shape> shapes = f.dynamic_shapes(inputs);
    std::shared_lock lock(f.specializations_mutex);
    const Impl::Specialized* s = f.find_specialization(shapes);
    return s != nullptr && s->function.compiled_for(inputs);
  } catch (const Error&) {
    return false;  // the call itself reports the bad input
  }
}

std::vector<Array> Function::Impl::result_arrays() {
  std::vector<Array> arrays;
  arrays.reserve(outputs.size());
  // Under the lock, a slot found unique is copied before another call can look at it.
  std::lock_guard lock(recycled_mutex);
  recycled.resize(outputs.size());
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    auto free_slot = std::find_if(recycled[k].begin(), recycled[k].end(), [](const Array& a) { return a.is_unique(); });
    if (free_slot != recycled[k].end()) {
      arrays.push_back(*free_slot);
      continue;
    }
    arrays.push_back(Array::empty(outputs[k].shape(), outputs[k].dtype()));
    if (recycled[k].size() < 2) recycled[k].push_back(arrays.back());
  }
  return arrays;
}

void set_num_threads(int threads) {
  if (threads < 1)
    throw ValueError("set_num_threads: " + std::to_string(threads) + " threads requested. Pass 1 or more.");
  chosen_threads = threads;
  omp_set_num_threads(threads);
}

int num_threads() {
  int n = chosen_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : omp_get_max_threads();
}

std::int64_t Function::compile_count() const {
  std::int64_t n = impl_->compiles.load() + impl_->dropped_compiles.load();
  std::shared_lock lock(impl_->specializations_mutex);
  for (const auto& s : impl_->specializations) n += s->function.compile_count();
  return n;
}

std::int64_t Function::bytes_per_call() const {
  if (!impl_->dynamic) return impl_->bytes_per_call;
  // Unknown until a call: the largest specialization so far, or "large" (worth releasing the GIL).
  std::int64_t n = 0;
  std::shared_lock lock(impl_->specializations_mutex);
  for (const auto& s : impl_->specializations) n = std::max(n, s->function.bytes_per_call());
  return impl_->specializations.empty() ? kMaxArrayBytes : n;
}

std::string Function::describe() const {
  if (impl_->dynamic) {
    std::shared_lock lock(impl_->specializations_mutex);
    if (impl_->specializations.empty())
      return "a function of inputs with unknown sizes (None), not specialized yet: call it once, then describe() "
             "shows the program made for each input shape met.\n" +
             debugprint(impl_->outputs);
    std::string text;
    for (const auto& s : impl_->specializations) {
      text += "specialized to";
      std::size_t k = 0;
      for (const Tensor& p : impl_->inputs)
        if (detail::is_dynamic(p)) text += " " + p.label() + " " + shape_string(s->shapes[k++]);
      text += ":\n" + s->function.describe();
    }
    return text;
  }
  if (impl_->backend == Backend::reference) return "reference backend\n" + debugprint(impl_->outputs);
  return impl_->compiled_program().describe();
}

const std::vector<Tensor>& Function::inputs() const { return impl_->inputs; }
const std::vector<Tensor>& Function::outputs() const { return impl_->outputs; }
const Updates& Function::updates() const { return impl_->updates; }
Backend Function::backend() const { return impl_->backend; }
bool Function::single_output() const { return impl_->single_output; }

namespace {

using NodeSet = std::unordered_set<const Node*>;
using NodeMap = std::unordered_map<const Node*, Tensor>;

// Whether a node of `keys` is inside one of the traced regions of `spec` (it depends on a region's
// params), or inside the traced regions of a loop nested there.
bool reaches_inside(const LoopSpec& spec, const NodeSet& keys) {
  for (const Region& region : spec.regions) {
    NodeSet inside;
    for (const Tensor& p : region.params) inside.insert(&p.node());
    for (const Tensor& t : topological_order(region.results)) {
      bool in = inside.count(&t.node()) > 0;
      for (const Tensor& i : t.node().inputs) in = in || inside.count(&i.node());
      if (!in) continue;
      inside.insert(&t.node());
      if (keys.count(&t.node())) return true;
      if (ops::is_loop(t.op()))
        if (const auto& traced = ops::loop_spec(t).traced; traced && reaches_inside(*traced, keys)) return true;
    }
  }
  return false;
}

// clone's walk: fills `mapped` (which holds the replacements) for every node of `roots`. A loop
// whose bodies hold a replaced node is built again from its traced regions, edited the same way.
void substitute(const std::vector<Tensor>& roots, NodeMap& mapped, const NodeSet& keys, Loc loc) {
  for (const Tensor& t : topological_order(roots)) {
    if (mapped.count(&t.node())) continue;
    const Node& node = t.node();
    std::vector<Tensor> inputs;
    bool changed = false;
    for (const auto& in : node.inputs) {
      auto it = mapped.find(&in.node());
      inputs.push_back(it != mapped.end() ? it->second : in);
      changed = changed || it != mapped.end();
    }
    if (ops::is_loop(node.op)) {
      const auto& traced = ops::loop_spec(t).traced;
      if (traced && reaches_inside(*traced, keys)) {
        LoopSpec spec = *traced;
        for (Region& region : spec.regions) {
          NodeMap inner = mapped;  // the traced regions read outer tensors directly: theirs apply too
          substitute(region.results, inner, keys, loc);
          for (Tensor& r : region.results) r = inner.at(&r.node());
        }
        substitute(traced->traced_inputs, mapped, keys, loc);
        std::vector<Tensor> given;
        for (const Tensor& in : traced->traced_inputs) given.push_back(mapped.at(&in.node()));
        spec.traced_inputs.clear();
        mapped[&node] = ops::rebuild_traced_loop(std::move(spec), std::move(given), loc);
        continue;
      }
    }
    mapped[&node] =
        changed ? named_composite(node.display, ops::make_node(node.op, std::move(inputs), node.attr, loc)) : t;
  }
}

}  // namespace

std::vector<Tensor> clone(const std::vector<Tensor>& outputs, const std::vector<std::pair<Tensor, Tensor>>& replace,
                          Loc loc) {
  NodeMap mapped;
  NodeSet keys;
  for (const auto& [from, to] : replace) {
    if (from.shape() != to.shape() || from.dtype() != to.dtype())
      ops::raise("clone", {from, to},
                 {ops::TypeProblem::Kind::shape, "the replacement for '" + from.label() + "' has another type",
                  "Replace each node with one of the same shape and dtype."},
                 loc);
    mapped[&from.node()] = to;
    keys.insert(&from.node());
  }
  substitute(outputs, mapped, keys, loc);
  std::vector<Tensor> result;
  for (const auto& t : outputs) result.push_back(mapped.at(&t.node()));
  return result;
}

}  // namespace symx

#include "runtime/program.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "codegen/compiler.hpp"
#include "core/memory.hpp"
#include "codegen/kernel.hpp"
#include "ops/control_flow.hpp"
#include "ops/op_table.hpp"
#include "runtime/library_calls.hpp"
#include "symx/graph.hpp"

namespace symx::runtime {
namespace {

using codegen::Role;

struct Buffer {
  enum class Kind { input, variable, constant, temp, output, alias } kind = Kind::temp;
  int index = 0;                         // input / output position, or the aliased buffer
  std::shared_ptr<VariableState> state;  // variable
  Array value;                           // constant
  std::size_t offset = 0, bytes = 0;     // temp: place in the arena; alias: bytes into the aliased buffer
};

struct ExecStep {
  Role role = Role::fallback;
  Tensor node;
  void (*kernel)(char* const*) = nullptr;
  std::vector<int> args;              // buffers: loads then output (kernel); inputs then output (others)
  std::size_t first_pointer = 0;      // where this step's resolved `args` start in Scratch::pointers
  std::unique_ptr<LibraryCall> call;  // library steps; null: none applies, the reference evaluator runs
  std::vector<Tensor> inputs;         // non-kernel steps: the nodes read (codegen::Step::inputs)
  std::vector<Tensor> evaluated;      // fallback: the nodes from the inputs to `node`, inputs first
  double seconds = 0;                 // SYMX_PROFILE: time spent in this step over the timed calls
};

// SYMX_PROFILE=1 times every step of every call but the first (describe() then shows the times).
bool profiling() {
  static const bool on = [] {
    const char* env = std::getenv("SYMX_PROFILE");
    return env && *env && std::string(env) != "0";
  }();
  return on;
}

struct Copy {
  int from, to_output = -1;
  std::shared_ptr<VariableState> to_variable;
  std::size_t bytes;
};

// An update written in place: `buffer` (the step's output buffer) is the variable's storage,
// unless that storage is shared or overlaps an input or output of the call.
struct InPlace {
  std::shared_ptr<VariableState> state;
  int buffer;
  std::size_t bytes;
};

// What one call writes besides the caller's arrays: the buffers' addresses, the steps' argument
// arrays and the temporaries. Each call in flight has its own, so calls can run concurrently.
}  // namespace

struct Scratch {
  std::vector<char*> base;      // per buffer
  std::vector<char*> pointers;  // per step argument, ExecStep::first_pointer onwards
  std::unique_ptr<char, void (*)(void*)> arena{nullptr, std::free};
  std::vector<std::optional<Array>> fresh;  // per InPlace: the fresh buffer of a copy-on-write update
  std::vector<double> seconds;              // SYMX_PROFILE: per step, this call
};

namespace {

// Whether two byte ranges share a byte (empty ranges share none).
bool overlaps(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return a_bytes && b_bytes && x < y + b_bytes && y < x + a_bytes;
}
// Whether one of `arrays` (of byte sizes `bytes`, known from the program's static types) overlaps
// [data, data + n).
bool any_overlaps(const std::vector<Array>& arrays, const std::vector<std::size_t>& bytes, const void* data,
                  std::size_t n) {
  for (std::size_t i = 0; i < arrays.size(); ++i)
    if (overlaps(arrays[i].raw_data(), bytes[i], data, n)) return true;
  return false;
}

std::size_t bytes_of(const Tensor& t) { return static_cast<std::size_t>(t.size()) * itemsize(t.dtype()); }

std::size_t round_up(std::size_t n) { return (n + 63) / 64 * 64; }

// The nodes computed from `inputs` up to `last`, inputs first: `last` alone for a plain step, the
// whole group of a fused library step.
std::vector<Tensor> nodes_between(const std::vector<Tensor>& inputs, const Tensor& last) {
  std::unordered_map<const Node*, bool> seen;
  for (const Tensor& in : inputs) seen[&in.node()] = true;
  std::vector<Tensor> order;
  std::vector<std::pair<Tensor, bool>> stack{{last, false}};  // (node, its inputs already pushed)
  while (!stack.empty()) {
    auto [t, expanded] = stack.back();
    stack.pop_back();
    if (expanded) {
      order.push_back(t);
      continue;
    }
    if (seen[&t.node()]) continue;
    seen[&t.node()] = true;
    stack.push_back({t, true});
    for (const Tensor& in : t.node().inputs) stack.push_back({in, false});
  }
  return order;
}

// Whether every path from the kernel's root to `var` keeps the element index unchanged (only
// same-shape elementwise ops), so that writing the root's element i into var's element i after
// reading var's element i is safe.
bool reads_in_lockstep(const codegen::Kernel& k, const Tensor& var) {
  std::vector<Tensor> stack{k.root};
  while (!stack.empty()) {
    Tensor n = stack.back();
    stack.pop_back();
    if (n == var) continue;
    if (!(n == k.root) && !k.inlined.count(&n.node())) continue;
    bool elementwise = codegen::fusible(n.op()) && !codegen::is_reduction(n.op()) && n.op() != OpKind::Transpose &&
                       n.op() != OpKind::Slice && n.op() != OpKind::BroadcastTo;
    for (const Tensor& in : n.node().inputs) {
      bool reaches = in == var || k.inlined.count(&in.node());
      if (!reaches) continue;
      if (!elementwise || in.shape() != n.shape()) {
        // A broadcast, transpose, slice or reduction between the root and var: not lockstep if var is below.
        for (const Tensor& t : topological_order({in}))
          if (t == var) return false;
      }
      stack.push_back(in);
    }
  }
  return true;
}

}  // namespace

InPlaceUpdates choose_in_place_updates(codegen::FusionPlan& plan, const std::vector<Tensor>& roots,
                                       const Updates& updates) {
  InPlaceUpdates chosen;
  std::vector<std::shared_ptr<VariableState>> update_targets;
  for (const auto& [var, value] : updates) update_targets.push_back(var.node().variable);
  const std::size_t n_outputs = roots.size() - updates.size();
  std::unordered_map<const Node*, std::size_t> step_of;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) step_of[&plan.steps[i].node.node()] = i;
  // A loop may be interrupted (request_interrupt), and the call then changes no variable: no update
  // is written in place before the last loop step.
  std::size_t after_loops = 0;
  for (std::size_t i = 0; i < plan.steps.size(); ++i)
    if (ops::is_loop(plan.steps[i].node.op())) after_loops = i + 1;
  for (std::size_t u = 0; u < update_targets.size(); ++u) {
    const Tensor& value = roots[n_outputs + u];
    auto it = step_of.find(&value.node());
    if (it == step_of.end() || plan.steps[it->second].role != Role::kernel || chosen.count(&value.node()) ||
        it->second < after_loops)
      continue;
    // The variable node read by the program, if any.
    Tensor var;
    for (const Tensor& leaf : plan.leaves)
      if (leaf.op() == OpKind::Variable && leaf.node().variable == update_targets[u]) var = leaf;
    bool safe = std::count(roots.begin(), roots.end(), value) == 1;
    for (const Tensor& r : roots) safe = safe && !(r == var);
    if (safe && var.defined()) {
      for (std::size_t s = 0; s < plan.steps.size() && safe; ++s) {
        const std::vector<Tensor> read = plan.reads(plan.steps[s]);
        if (std::find(read.begin(), read.end(), var) == read.end()) continue;
        if (s > it->second) safe = false;
        if (s == it->second)
          safe = reads_in_lockstep(plan.kernels[static_cast<std::size_t>(plan.steps[s].kernel)], var);
      }
    }
    if (!safe) continue;
    chosen[&value.node()] = update_targets[u];
    plan.kernels[static_cast<std::size_t>(plan.steps[it->second].kernel)].in_place = true;
  }
  return chosen;
}

struct Program::Impl {
  std::vector<Tensor> inputs, outputs;
  std::vector<Tensor> roots;  // optimized outputs then update values
  std::vector<std::shared_ptr<VariableState>> update_targets;
  std::vector<std::string> update_labels;  // the updated variables' labels, for describe()
  codegen::FusionPlan plan;
  std::shared_ptr<codegen::Library> library;
  std::vector<Buffer> buffers;
  std::unordered_map<const Node*, int> buffer_of;
  std::vector<ExecStep> steps;
  std::vector<Copy> staging, finals;  // staging: before any update is written; finals: after
  std::vector<InPlace> in_place;
  // Every variable read or written and its byte size, and the inputs' and outputs' byte sizes:
  // the overlap checks of a call compare addresses only.
  std::vector<std::pair<VariableState*, std::size_t>> variables;
  std::vector<std::size_t> input_bytes, output_bytes;
  std::size_t arena_bytes = 0, pointer_count = 0;
  // Per-call scratch: `spare` holds one idle scratch, taken and returned with one atomic exchange
  // each, so a single thread never locks; concurrent calls take more from `idle` (made on demand).
  std::atomic<Scratch*> spare{nullptr};
  std::mutex pool_mutex;
  std::vector<std::unique_ptr<Scratch>> scratches;
  std::vector<Scratch*> idle;
  mutable std::mutex profile_mutex;  // guards `runs` and ExecStep::seconds
  std::int64_t runs = 0;             // SYMX_PROFILE: calls made; all but the first are timed

  int add_buffer(Buffer b) {
    buffers.push_back(std::move(b));
    return static_cast<int>(buffers.size()) - 1;
  }
  int root_buffer(int b) const {
    while (buffers[static_cast<std::size_t>(b)].kind == Buffer::Kind::alias)
      b = buffers[static_cast<std::size_t>(b)].index;
    return b;
  }

  // The byte offset of an alias into its root buffer.
  std::size_t alias_offset(int b) const {
    std::size_t offset = 0;
    while (buffers[static_cast<std::size_t>(b)].kind == Buffer::Kind::alias) {
      offset += buffers[static_cast<std::size_t>(b)].offset;
      b = buffers[static_cast<std::size_t>(b)].index;
    }
    return offset;
  }

  void assign_leaves() {
    for (const Tensor& leaf : plan.leaves) {
      Buffer b;
      if (leaf.op() == OpKind::Placeholder) {
        b.kind = Buffer::Kind::input;
        b.index = static_cast<int>(std::find(inputs.begin(), inputs.end(), leaf) - inputs.begin());
      } else if (leaf.op() == OpKind::Variable) {
        b.kind = Buffer::Kind::variable;
        b.state = leaf.node().variable;
      } else {
        b.kind = Buffer::Kind::constant;
        b.value = std::get<ConstantAttr>(leaf.node().attr).value;
      }
      buffer_of[&leaf.node()] = add_buffer(std::move(b));
    }
  }

  void assign_steps(std::size_t n_outputs, const InPlaceUpdates& chosen) {
    for (const codegen::Step& s : plan.steps) {
      Buffer b;
      if (s.role == Role::alias) {
        b.kind = Buffer::Kind::alias;
        b.index = buffer_of.at(&s.node.node().inputs[0].node());
        // A part of a loop's packed results (see ops/control_flow.cpp); a reshape is offset 0.
        if (s.node.op() == OpKind::Part)
          b.offset = ops::loop_spec(s.node.node().inputs[0])
                         .offsets[static_cast<std::size_t>(std::get<PartAttr>(s.node.node().attr).index)];
      } else if (auto ip = chosen.find(&s.node.node()); ip != chosen.end()) {
        b.kind = Buffer::Kind::variable;
        b.state = ip->second;
        in_place.push_back({ip->second, static_cast<int>(buffers.size()), bytes_of(s.node)});
      } else {
        auto out = std::find(roots.begin(), roots.begin() + static_cast<std::ptrdiff_t>(n_outputs), s.node);
        bool direct = out != roots.begin() + static_cast<std::ptrdiff_t>(n_outputs);
        b.kind = direct ? Buffer::Kind::output : Buffer::Kind::temp;
        b.index = static_cast<int>(out - roots.begin());
        b.bytes = round_up(static_cast<std::size_t>(s.node.size()) * itemsize(s.node.dtype()));
      }
      buffer_of[&s.node.node()] = add_buffer(std::move(b));
    }
  }

  void plan_arena(std::size_t n_outputs) {
    // Last step that reads each temp (through aliases); roots copied at the end live to the end.
    std::vector<std::size_t> last_use(buffers.size(), 0);
    auto use = [&](int b, std::size_t when) {
      int r = root_buffer(b);
      last_use[static_cast<std::size_t>(r)] = std::max(last_use[static_cast<std::size_t>(r)], when);
    };
    for (std::size_t s = 0; s < steps.size(); ++s)
      for (int b : steps[s].args) use(b, s);
    for (const Tensor& r : roots) use(buffer_of.at(&r.node()), steps.size());
    (void)n_outputs;
    struct Block {
      std::size_t offset, bytes;
    };
    std::vector<Block> free_blocks;
    std::vector<std::vector<int>> release(steps.size() + 1);
    for (std::size_t s = 0; s < steps.size(); ++s) {
      int out = steps[s].args.back();
      Buffer& b = buffers[static_cast<std::size_t>(out)];
      if (b.kind == Buffer::Kind::temp) {
        auto best = free_blocks.end();
        for (auto it = free_blocks.begin(); it != free_blocks.end(); ++it)
          if (it->bytes >= b.bytes && (best == free_blocks.end() || it->bytes < best->bytes)) best = it;
        if (best != free_blocks.end()) {
          b.offset = best->offset;
          free_blocks.erase(best);
        } else {
          b.offset = arena_bytes;
          arena_bytes += b.bytes;
        }
        release[std::max(last_use[static_cast<std::size_t>(out)], s)].push_back(out);
      }
      for (int r : release[s])
        free_blocks.push_back(
            {buffers[static_cast<std::size_t>(r)].offset, buffers[static_cast<std::size_t>(r)].bytes});
    }
  }

  void build_steps() {
    for (const codegen::Step& s : plan.steps) {
      if (s.role == Role::alias) continue;
      ExecStep e;
      e.role = s.role;
      e.node = s.node;
      if (s.role == Role::kernel) {
        const auto& k = plan.kernels[static_cast<std::size_t>(s.kernel)];
        for (const Tensor& l : k.loads) e.args.push_back(buffer_of.at(&l.node()));
        e.kernel = reinterpret_cast<void (*)(char* const*)>(library->symbol(k.name));
      } else {
        e.inputs = s.inputs();
        for (const Tensor& in : e.inputs) e.args.push_back(buffer_of.at(&in.node()));
        if (s.role == Role::library) e.call = make_library_call(s);
        if (!e.call) e.evaluated = nodes_between(e.inputs, s.node);
      }
      e.args.push_back(buffer_of.at(&s.node.node()));
      e.first_pointer = pointer_count;
      pointer_count += e.args.size();
      steps.push_back(std::move(e));
    }
  }

  void build_copies(std::size_t n_outputs) {
    for (std::size_t k = 0; k < n_outputs; ++k) {
      int b = buffer_of.at(&roots[k].node());
      const Buffer& buf = buffers[static_cast<std::size_t>(b)];
      if (buf.kind == Buffer::Kind::output && buf.index == static_cast<int>(k)) continue;
      finals.push_back({b, static_cast<int>(k), nullptr,
                        roots[k].node().type.dtype == DType::b8
                            ? static_cast<std::size_t>(roots[k].size())
                            : static_cast<std::size_t>(roots[k].size()) * itemsize(roots[k].dtype())});
    }
    for (std::size_t u = 0; u < update_targets.size(); ++u) {
      const Tensor& value = roots[n_outputs + u];
      int b = buffer_of.at(&value.node());
      const Buffer& buf = buffers[static_cast<std::size_t>(root_buffer(b))];
      std::size_t bytes = static_cast<std::size_t>(value.size()) * itemsize(value.dtype());
      if (buf.kind == Buffer::Kind::variable && buf.state == update_targets[u]) continue;  // in place, or x <- x
      if (buf.kind == Buffer::Kind::variable || buf.kind == Buffer::Kind::input || buf.kind == Buffer::Kind::output) {
        // Stage values that live in another variable (or are shared with an output) so that
        // swaps like {a: b, b: a} read the old values.
        Buffer stage;
        stage.kind = Buffer::Kind::temp;
        stage.bytes = round_up(bytes);
        stage.offset = arena_bytes;
        arena_bytes += stage.bytes;
        int s = add_buffer(std::move(stage));
        staging.push_back({b, -1, nullptr, bytes});
        staging.back().to_output = s;  // staged into buffer s
        b = s;
      }
      finals.push_back({b, -1, update_targets[u], bytes});
    }
  }

  void resolve(Scratch& scratch, const std::vector<Array>& in, std::vector<Array>& out) const {
    std::vector<char*>& base = scratch.base;
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      const Buffer& b = buffers[i];
      switch (b.kind) {
        case Buffer::Kind::input:
          base[i] = static_cast<char*>(const_cast<void*>(in[static_cast<std::size_t>(b.index)].raw_data()));
          break;
        case Buffer::Kind::variable: base[i] = static_cast<char*>(b.state->value.raw_data()); break;
        case Buffer::Kind::constant: base[i] = static_cast<char*>(const_cast<void*>(b.value.raw_data())); break;
        case Buffer::Kind::temp: base[i] = scratch.arena.get() + b.offset; break;
        case Buffer::Kind::output:
          base[i] = static_cast<char*>(out[static_cast<std::size_t>(b.index)].raw_data());
          break;
        case Buffer::Kind::alias: base[i] = nullptr; break;
      }
    }
    for (std::size_t j = 0; j < in_place.size(); ++j) {
      scratch.fresh[j].reset();
      const Array& storage = in_place[j].state->value;
      bool shared = !storage.is_unique() || any_overlaps(in, input_bytes, storage.raw_data(), in_place[j].bytes) ||
                    any_overlaps(out, output_bytes, storage.raw_data(), in_place[j].bytes);
      // Copy-on-write: someone holds the storage (or an input aliases it), so the update goes to
      // a fresh buffer that becomes the variable's storage at the end of the call.
      if (shared) {
        scratch.fresh[j] = Array::empty(storage.shape(), storage.dtype());
        base[static_cast<std::size_t>(in_place[j].buffer)] = static_cast<char*>(scratch.fresh[j]->raw_data());
      }
    }
    resolve_aliases(base);
  }

  // Whether a caller output shares memory with an input, a variable or another output: kernels
  // would then overwrite data that later steps read, so the call writes to fresh arrays.
  bool outputs_overlap(const std::vector<Array>& in, const std::vector<Array>& out) const {
    for (std::size_t k = 0; k < out.size(); ++k) {
      const void* data = out[k].raw_data();
      if (any_overlaps(in, input_bytes, data, output_bytes[k])) return true;
      for (const auto& [state, bytes] : variables)
        if (overlaps(state->value.raw_data(), bytes, data, output_bytes[k])) return true;
      for (std::size_t j = 0; j < k; ++j)
        if (overlaps(out[j].raw_data(), output_bytes[j], data, output_bytes[k])) return true;
    }
    return false;
  }

  // Each alias's address: its root buffer's plus the alias's offset (a part of a loop's results).
  void resolve_aliases(std::vector<char*>& base) const {
    for (std::size_t i = 0; i < buffers.size(); ++i)
      if (buffers[i].kind == Buffer::Kind::alias)
        base[i] = base[static_cast<std::size_t>(root_buffer(static_cast<int>(i)))] + alias_offset(static_cast<int>(i));
  }

  // resolve() for a Runner: raw input and output pointers, no variables.
  void resolve_raw(Scratch& scratch, char* const* in, char* const* out) const {
    std::vector<char*>& base = scratch.base;
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      const Buffer& b = buffers[i];
      switch (b.kind) {
        case Buffer::Kind::input: base[i] = in[b.index]; break;
        case Buffer::Kind::constant: base[i] = static_cast<char*>(const_cast<void*>(b.value.raw_data())); break;
        case Buffer::Kind::temp: base[i] = scratch.arena.get() + b.offset; break;
        case Buffer::Kind::output: base[i] = out[b.index]; break;
        case Buffer::Kind::variable:
        case Buffer::Kind::alias: base[i] = nullptr; break;
      }
    }
    resolve_aliases(base);
  }

  Scratch* make_scratch() const {
    auto scratch = std::make_unique<Scratch>();
    scratch->base.resize(buffers.size());
    scratch->pointers.resize(pointer_count);
    scratch->fresh.resize(in_place.size());
    scratch->seconds.resize(steps.size());
    if (arena_bytes) scratch->arena.reset(static_cast<char*>(detail::allocate_aligned(arena_bytes)));
    return scratch.release();
  }

  Scratch* acquire_scratch() {
    if (Scratch* s = spare.exchange(nullptr, std::memory_order_acquire)) return s;
    std::lock_guard lock(pool_mutex);
    if (!idle.empty()) {
      Scratch* s = idle.back();
      idle.pop_back();
      return s;
    }
    scratches.emplace_back(make_scratch());
    idle.reserve(scratches.size());  // so that release_scratch never allocates
    return scratches.back().get();
  }

  void release_scratch(Scratch* s) {
    Scratch* expected = nullptr;
    if (spare.compare_exchange_strong(expected, s, std::memory_order_release)) return;
    std::lock_guard lock(pool_mutex);
    idle.push_back(s);
  }

  void run_steps(Scratch& scratch, bool timed);
  void write_results(Scratch& scratch, std::vector<Array>& outputs);
};

namespace {

// Reference evaluation of a step: its nodes in order from the inputs in p[0..n-1] (one node, or
// the group of a fused library step whose call could not be prepared), the last written to p[n].
void run_fallback(const ExecStep& s, char* const* p) {
  std::unordered_map<const Node*, Array> values;
  for (std::size_t i = 0; i < s.inputs.size(); ++i)
    values[&s.inputs[i].node()] = Array::wrap(p[i], s.inputs[i].shape(), s.inputs[i].dtype(), nullptr);
  for (const Tensor& t : s.evaluated) {
    std::vector<Array> in;
    for (const Tensor& i : t.node().inputs) in.push_back(values.at(&i.node()));
    values[&t.node()] = ops::op_def(t.op()).evaluate({t.node(), in});
  }
  const Array& out = values.at(&s.node.node());
  std::memcpy(p[s.inputs.size()], out.raw_data(), out.nbytes());
}

}  // namespace

Program::Program(CompiledGraph compiled) : impl_(std::make_unique<Impl>()) {
  Impl& p = *impl_;
  const std::vector<Tensor>& inputs = compiled.inputs;
  const std::vector<Tensor>& outputs = compiled.outputs;
  const Updates& updates = compiled.updates;
  p.inputs = inputs;
  for (const auto& [var, value] : updates) {
    p.update_targets.push_back(var.node().variable);
    p.update_labels.push_back(var.label());
  }
  p.roots = std::move(compiled.roots);
  p.outputs.assign(p.roots.begin(), p.roots.begin() + static_cast<std::ptrdiff_t>(outputs.size()));
  p.plan = std::move(compiled.plan);
  p.library = std::move(compiled.library);
  p.assign_leaves();
  p.assign_steps(outputs.size(), compiled.in_place);
  p.build_steps();
  p.build_copies(outputs.size());
  p.plan_arena(outputs.size());
  // From the nodes' static types: the values themselves may be swapped by a concurrent call.
  for (const Tensor& leaf : p.plan.leaves)
    if (leaf.op() == OpKind::Variable) p.variables.emplace_back(leaf.node().variable.get(), bytes_of(leaf));
  for (const auto& [var, value] : updates) p.variables.emplace_back(var.node().variable.get(), bytes_of(var));
  std::sort(p.variables.begin(), p.variables.end());
  p.variables.erase(std::unique(p.variables.begin(), p.variables.end()), p.variables.end());
  for (const Tensor& in : inputs) p.input_bytes.push_back(bytes_of(in));
  for (const Tensor& out : outputs) p.output_bytes.push_back(bytes_of(out));
  p.release_scratch(p.acquire_scratch());  // the first call's scratch, made here
}

Program::~Program() {
  impl_->spare.store(nullptr);  // every scratch is owned by `scratches`
}

void Program::Impl::run_steps(Scratch& scratch, bool timed) {
  for (std::size_t n = 0; n < steps.size(); ++n) {
    ExecStep& s = steps[n];
    char** pointers = scratch.pointers.data() + s.first_pointer;
    for (std::size_t i = 0; i < s.args.size(); ++i) pointers[i] = scratch.base[static_cast<std::size_t>(s.args[i])];
    auto start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    switch (s.role) {
      case Role::kernel: s.kernel(pointers); break;
      case Role::library:
        if (s.call) {
          s.call->run(pointers);
          break;
        }
        [[fallthrough]];
      case Role::fallback:
      case Role::alias:
      case Role::leaf:
      case Role::inlined: run_fallback(s, pointers); break;
    }
    if (timed) scratch.seconds[n] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  if (!timed) return;
  std::lock_guard lock(profile_mutex);
  for (std::size_t n = 0; n < steps.size(); ++n) steps[n].seconds += scratch.seconds[n];
}

void Program::Impl::write_results(Scratch& scratch, std::vector<Array>& outputs) {
  const std::vector<char*>& base = scratch.base;
  for (const Copy& c : staging)
    std::memcpy(base[static_cast<std::size_t>(c.to_output)], base[static_cast<std::size_t>(c.from)], c.bytes);
  for (const Copy& c : finals) {
    char* to = nullptr;
    if (c.to_variable) {
      Array& storage = c.to_variable->value;
      // Copy-on-write: a value someone holds is never written (all reads are done by now).
      if (!storage.is_unique()) storage = Array::empty(storage.shape(), storage.dtype());
      to = static_cast<char*>(storage.raw_data());
    } else {
      to = static_cast<char*>(outputs[static_cast<std::size_t>(c.to_output)].raw_data());
    }
    std::memcpy(to, base[static_cast<std::size_t>(c.from)], c.bytes);
  }
  for (std::size_t j = 0; j < in_place.size(); ++j) {
    if (!scratch.fresh[j]) continue;
    in_place[j].state->value = std::move(*scratch.fresh[j]);
    scratch.fresh[j].reset();
  }
}

void Program::run(const std::vector<Array>& inputs, std::vector<Array>& outputs) {
  Impl& p = *impl_;
  if (p.outputs_overlap(inputs, outputs)) return run_into_fresh_outputs(inputs, outputs);
  struct Lease {
    Impl& p;
    Scratch* scratch;
    ~Lease() { p.release_scratch(scratch); }
  } lease{p, p.acquire_scratch()};
  p.resolve(*lease.scratch, inputs, outputs);
  bool timed = false;
  if (profiling()) {
    // The first call is not timed: it touches the arena's pages for the first time.
    std::lock_guard lock(p.profile_mutex);
    timed = p.runs++ > 0;
  }
  p.run_steps(*lease.scratch, timed);
  p.write_results(*lease.scratch, outputs);
}

Program::Runner::Runner(Program& program) : impl_(*program.impl_), scratch_(impl_.acquire_scratch()) {
  check_internal(impl_.variables.empty() && impl_.update_targets.empty(),
                 "Program::Runner: a region's program reads no variables and has no updates");
}

Program::Runner::~Runner() { impl_.release_scratch(scratch_); }

void Program::Runner::run(char* const* inputs, char* const* outputs) {
  impl_.resolve_raw(*scratch_, inputs, outputs);
  bool timed = false;
  if (profiling()) {  // SYMX_PROFILE: a region's steps are timed as a function's (describe shows them)
    std::lock_guard lock(impl_.profile_mutex);
    timed = impl_.runs++ > 0;
  }
  impl_.run_steps(*scratch_, timed);
  for (const Copy& c : impl_.finals)
    std::memcpy(outputs[c.to_output], scratch_->base[static_cast<std::size_t>(c.from)], c.bytes);
}

void Program::run_into_fresh_outputs(const std::vector<Array>& inputs, std::vector<Array>& outputs) {
  std::vector<Array> fresh;
  fresh.reserve(outputs.size());
  for (const Array& out : outputs) fresh.push_back(Array::empty(out.shape(), out.dtype()));
  run(inputs, fresh);
  for (std::size_t k = 0; k < outputs.size(); ++k)
    std::memcpy(outputs[k].raw_data(), fresh[k].raw_data(), fresh[k].nbytes());
}

std::string Program::describe() const {
  const Impl& p = *impl_;
  std::lock_guard lock(p.profile_mutex);
  std::ostringstream os;
  os << "optimized graph:\n" << debugprint(p.roots) << "roots:\n";
  // Which root is which output, and which is the new value of which variable.
  const std::size_t n_outputs = p.roots.size() - p.update_labels.size();
  for (std::size_t k = 0; k < p.roots.size(); ++k) {
    const Tensor& r = p.roots[k];
    os << "  " << op_name(r.op()) << "#" << r.id() << ": ";
    if (k < n_outputs) os << "output " << k << "\n";
    else os << "update of variable '" << p.update_labels[k - n_outputs] << "'\n";
  }
  os << "kernels:\n";
  double total = 0;
  for (const ExecStep& e : p.steps) total += e.seconds;
  const std::int64_t calls = std::max<std::int64_t>(p.runs - 1, 0);
  for (const codegen::Step& s : p.plan.steps) {
    os << "  ";
    auto e = std::find_if(p.steps.begin(), p.steps.end(), [&](const ExecStep& x) { return x.node == s.node; });
    if (calls > 0 && e != p.steps.end())
      os << "[" << std::fixed << std::setprecision(3) << std::setw(8) << 1e3 * e->seconds / static_cast<double>(calls)
         << " ms " << std::setw(4) << std::setprecision(1) << 100 * e->seconds / total << "%] ";
    os << op_name(s.node.op()) << "#" << s.node.id() << ": ";
    switch (s.role) {
      case Role::kernel: {
        const auto& k = p.plan.kernels[static_cast<std::size_t>(s.kernel)];
        os << "kernel " << k.name << (k.in_place ? " (in place)" : "") << " holds";
        for (const Tensor& t : topological_order({k.root}))
          if (k.inlined.count(&t.node()) || t == k.root) os << " " << op_name(t.op()) << "#" << t.id();
        os << "; reads";
        for (const Tensor& l : k.loads) os << " " << op_name(l.op()) << "#" << l.id();
        break;
      }
      case Role::library: {
        if (e != p.steps.end() && e->call) os << "library call (" << e->call->describe() << ")";
        else os << "reference evaluation (no library call for these dtypes or attributes)";
        if (s.epilogue) {
          os << " holds";
          for (const Tensor& t : nodes_between(s.inputs(), s.node))
            if (t.op() != OpKind::Constant) os << " " << op_name(t.op()) << "#" << t.id();
        }
        break;
      }
      case Role::alias: os << "alias of its input"; break;
      case Role::fallback:
      case Role::leaf:
      case Role::inlined: os << "reference evaluation"; break;
    }
    os << "\n";
  }
  for (const ExecStep& e : p.steps)
    if (e.call) os << e.call->details();
  if (calls > 0)
    os << "profile (SYMX_PROFILE): " << calls << " calls, " << std::fixed << std::setprecision(3)
       << 1e3 * total / static_cast<double>(calls) << " ms per call in the steps above\n";
  return os.str();
}

}  // namespace symx::runtime

// Control flow: the rows of scan, while_loop, switch and part, and the builders of
// symx/control_flow.hpp. A body is traced once, with fresh placeholders, into a region the node
// owns; build_loop then makes the region self-contained (outer tensors it reads become invariant
// inputs), hoists loop-invariant work and a scan's per-sequence matrix products out of it, and
// builds the node and one part per result. The node's own value is its results packed into one
// byte buffer (each at a 64-byte aligned offset); a part is that buffer seen at its offset (an alias
// in compiled programs: no copy). Gradients are in src/autodiff/loops.cpp; the compiled loop is the
// runtime's (runtime/library_loops.cpp).
#include "ops/control_flow.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <limits>
#include <unordered_set>

#include "ops/op_table.hpp"
#include "symx/graph.hpp"
#include "symx/ops.hpp"

namespace symx {

namespace {
// "(2, 3) float32"; " (built at file:line)" for a node whose user line is known, else nothing.
std::string type_text(const TensorType& t) { return shape_string(t.shape) + " " + std::string(dtype_name(t.dtype)); }
std::string at_text(const Tensor& t) { return t.node().where.empty() ? "" : " (built at " + t.node().where + ")"; }
}  // namespace

namespace detail {
namespace {
std::atomic<bool> interrupt_flag{false};
std::atomic<InterruptCheck> interrupt_check{nullptr};
}  // namespace
void set_interrupt_check(InterruptCheck check) { interrupt_check.store(check); }
void poll_interrupt() {
  if (interrupt_flag.exchange(false))
    throw Interrupted("interrupted: request_interrupt() stopped a running loop; the call changed no variable.");
  if (InterruptCheck check = interrupt_check.load()) check();
}
}  // namespace detail

void request_interrupt() { detail::interrupt_flag.store(true); }

namespace ops {
namespace {

constexpr std::size_t kAlign = 64;
std::size_t align_up(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

std::uint64_t next_spec_id() {
  static std::atomic<std::uint64_t> next{1};
  return next++;
}

// The parameter ranges of a region: where its invariants start.
std::size_t first_invariant(const LoopSpec& spec) {
  switch (spec.kind) {
    case LoopSpec::Kind::scan: return static_cast<std::size_t>(spec.carries + spec.sequences);
    case LoopSpec::Kind::while_loop: return static_cast<std::size_t>(spec.carries);
    case LoopSpec::Kind::switch_: return static_cast<std::size_t>(spec.operands);
  }
  return 0;
}
// Where a node's invariant inputs start (a switch's first input is its index).
std::size_t first_invariant_input(const LoopSpec& spec) {
  return first_invariant(spec) + (spec.kind == LoopSpec::Kind::switch_ ? 1 : 0);
}

// Nodes of `roots` (region results) that depend on one of `from`.
std::unordered_set<const Node*> depending_on(const std::vector<Tensor>& roots, const std::vector<Tensor>& from) {
  std::unordered_set<const Node*> dep;
  for (const Tensor& p : from) dep.insert(&p.node());
  for (const Tensor& t : topological_order(roots)) {
    if (dep.count(&t.node())) continue;
    for (const Tensor& in : t.node().inputs)
      if (dep.count(&in.node())) {
        dep.insert(&t.node());
        break;
      }
  }
  return dep;
}

// Work that is a view or a few instructions: kernels compute it inline for free, so hoisting it
// out of a loop would only materialize it (a broadcast bias the matmul epilogue reads as a vector).
bool cheap_or_view(const Tensor& t) {
  const OpDef& def = op_def(t.op());
  if (def.cheap) return true;
  return def.family == Family::shape && (def.lowering == Lowering::kernel || def.lowering == Lowering::alias);
}

// ---- the spec's results ----

void finalize(LoopSpec& spec) {
  spec.result_types.clear();
  const Region& r0 = spec.regions.at(0);
  switch (spec.kind) {
    case LoopSpec::Kind::scan:
      for (std::size_t k = 0; k < r0.results.size(); ++k) {
        TensorType t = r0.results[k].type();
        if (k >= static_cast<std::size_t>(spec.carries)) t.shape.insert(t.shape.begin(), spec.length);
        spec.result_types.push_back(t);
      }
      break;
    case LoopSpec::Kind::while_loop:
      for (const Tensor& r : spec.regions.at(1).results) spec.result_types.push_back(r.type());
      break;
    case LoopSpec::Kind::switch_:
      for (const Tensor& r : r0.results) spec.result_types.push_back(r.type());
      break;
  }
  spec.offsets.clear();
  std::size_t offset = 0;
  bool symbolic = false;
  for (const TensorType& t : spec.result_types) {
    spec.offsets.push_back(offset);
    if (has_symbols(t.shape)) symbolic = true;
    else offset += align_up(static_cast<std::size_t>(num_elements(t.shape)) * itemsize(t.dtype));
  }
  spec.packed_bytes = symbolic ? new_symbol() : static_cast<std::int64_t>(offset);
  if (spec.lineage.empty()) spec.lineage.push_back(next_spec_id());
}

// ---- making regions self-contained ----

// Outer tensors a region reads (nodes that depend on none of its params and are not made of
// constants alone) become invariant inputs of the node; random draws the body made are refused.
void capture_outer(LoopSpec& spec, std::vector<Tensor>& inputs, std::uint64_t traced_from, Loc loc) {
  std::vector<Tensor> captured;
  std::unordered_set<const Node*> captured_set;
  for (Region& region : spec.regions) {
    std::unordered_set<const Node*> inside = depending_on(region.results, region.params);
    std::unordered_map<const Node*, bool> constant_only;
    auto note = [&](const Tensor& t) {
      if (inside.count(&t.node()) || constant_only.at(&t.node())) return;
      if (captured_set.insert(&t.node()).second) captured.push_back(t);
    };
    for (const Tensor& t : topological_order(region.results)) {
      const Node& n = t.node();
      if (n.op == OpKind::Placeholder && !inside.count(&n)) {
        constant_only[&n] = false;
      } else {
        bool c = n.op != OpKind::Variable && !op_def(n.op).random();
        for (const Tensor& in : n.inputs) c = c && constant_only.at(&in.node());
        constant_only[&n] = c;
      }
      if (op_def(n.op).random() && n.id >= traced_from)
        raise(spec.name.c_str(), {},
              {TypeProblem::Kind::value,
               "the body draws random numbers ('" + t.label() + "'" + at_text(t) +
                   "), which would be drawn once for all iterations",
               "Draw them outside the loop with a leading axis of the loop's length and pass them as a sequence "
               "(scan(fn, init, sequences=[xs, random.normal((length, ...))]))."},
              loc);
      if (inside.count(&n))
        for (const Tensor& in : n.inputs) note(in);
    }
    for (const Tensor& r : region.results) note(r);
  }
  if (captured.empty()) return;
  const std::size_t at = first_invariant(spec) + static_cast<std::size_t>(spec.invariants);
  for (Region& region : spec.regions) {
    std::unordered_map<const Node*, Tensor> with;
    std::vector<Tensor> params;
    for (const Tensor& c : captured) {
      Tensor q = region_param(c.type(), c.label());
      with.emplace(&c.node(), q);
      params.push_back(q);
    }
    region.results = replace_nodes(region.results, with);
    region.params.insert(region.params.begin() + static_cast<std::ptrdiff_t>(at), params.begin(), params.end());
  }
  inputs.insert(inputs.end(), captured.begin(), captured.end());
  spec.invariants += static_cast<int>(captured.size());
}

// The nodes of a region that satisfy `in_set` and are read by one that does not (or are results):
// what a hoisted part of the region hands back to the rest, each once, in topological order.
std::vector<Tensor> frontier_of(const Region& region, const std::function<bool(const Tensor&)>& in_set) {
  std::vector<Tensor> frontier;
  std::unordered_set<const Node*> seen;
  auto add = [&](const Tensor& t) {
    if (in_set(t) && seen.insert(&t.node()).second) frontier.push_back(t);
  };
  for (const Tensor& t : topological_order(region.results))
    if (!in_set(t))
      for (const Tensor& in : t.node().inputs) add(in);
  for (const Tensor& r : region.results) add(r);
  return frontier;
}

// Adds an invariant input `value` to the node: a new param in every region (at the end of the
// invariants); returns the param of region `r`.
Tensor add_invariant(LoopSpec& spec, std::vector<Tensor>& inputs, const Tensor& value, std::size_t r) {
  const std::size_t at = first_invariant(spec) + static_cast<std::size_t>(spec.invariants);
  Tensor mine;
  for (std::size_t k = 0; k < spec.regions.size(); ++k) {
    Tensor q = region_param(value.type(), value.label());
    spec.regions[k].params.insert(spec.regions[k].params.begin() + static_cast<std::ptrdiff_t>(at), q);
    if (k == r) mine = q;
  }
  inputs.push_back(value);
  spec.invariants += 1;
  return mine;
}

// Work of a region that depends only on invariants (and constants) runs once, before the loop.
void hoist_invariants(LoopSpec& spec, std::vector<Tensor>& inputs) {
  for (std::size_t r = 0; r < spec.regions.size(); ++r) {
    Region& region = spec.regions[r];
    const std::size_t first = first_invariant(spec), first_in = first_invariant_input(spec);
    const auto n_inv = static_cast<std::size_t>(spec.invariants);
    std::vector<Tensor> variant(region.params.begin(), region.params.begin() + static_cast<std::ptrdiff_t>(first));
    std::vector<Tensor> invariant(region.params.begin() + static_cast<std::ptrdiff_t>(first),
                                  region.params.begin() + static_cast<std::ptrdiff_t>(first + n_inv));
    std::unordered_set<const Node*> var_dep = depending_on(region.results, variant);
    std::unordered_set<const Node*> inv_dep = depending_on(region.results, invariant);
    auto hoistable = [&](const Tensor& t) {
      return !t.node().inputs.empty() && inv_dep.count(&t.node()) && !var_dep.count(&t.node()) && !cheap_or_view(t) &&
             !op_def(t.op()).random() && op_def(t.op()).family != Family::host;
    };
    const std::vector<Tensor> frontier = frontier_of(region, hoistable);
    if (frontier.empty()) continue;
    std::unordered_map<const Node*, Tensor> to_outer;
    for (std::size_t k = 0; k < n_inv; ++k) to_outer.emplace(&invariant[k].node(), inputs[first_in + k]);
    std::vector<Tensor> outer = replace_nodes(frontier, to_outer);
    std::unordered_map<const Node*, Tensor> with;
    for (std::size_t k = 0; k < frontier.size(); ++k)
      with.emplace(&frontier[k].node(), add_invariant(spec, inputs, outer[k], r));
    spec.regions[r].results = replace_nodes(spec.regions[r].results, with);
  }
}

// ---- a scan's per-sequence matrix products, computed for the whole sequence ----

struct SequenceHoist {
  LoopSpec& spec;
  std::vector<Tensor>& inputs;
  Region& region;
  std::unordered_set<const Node*> carry_dep, slice_dep;
  std::unordered_map<const Node*, bool> batchable_memo, matmul_memo;
  std::unordered_map<const Node*, std::pair<Tensor, bool>> batched_memo;
  // A batched value that is the reshape of a 2-D (T * rows, n) product (or of elementwise work on
  // one): that flat form. Elementwise work with a bias then runs on the flat product, where the
  // library call fuses the bias (x_t @ W + b as one GEMM with a bias epilogue).
  std::unordered_map<const Node*, Tensor> flat_memo;
  std::unordered_map<const Node*, Tensor> to_outer;  // slice params -> sequences, invariant params -> inputs

  SequenceHoist(LoopSpec& s, std::vector<Tensor>& in) : spec(s), inputs(in), region(s.regions[0]) {
    const auto nc = static_cast<std::size_t>(spec.carries), ns = static_cast<std::size_t>(spec.sequences);
    std::vector<Tensor> carries(region.params.begin(), region.params.begin() + static_cast<std::ptrdiff_t>(nc));
    std::vector<Tensor> slices(region.params.begin() + static_cast<std::ptrdiff_t>(nc),
                               region.params.begin() + static_cast<std::ptrdiff_t>(nc + ns));
    carry_dep = depending_on(region.results, carries);
    slice_dep = depending_on(region.results, slices);
    for (std::size_t k = nc; k < region.params.size(); ++k) to_outer.emplace(&region.params[k].node(), inputs[k]);
  }

  static int symbols_in(const Shape& s) {
    return static_cast<int>(std::count_if(s.begin(), s.end(), [](std::int64_t d) { return is_symbol(d); }));
  }

  bool batchable(const Tensor& t) {
    const Node* n = &t.node();
    if (auto it = batchable_memo.find(n); it != batchable_memo.end()) return it->second;
    bool ok = false;
    if (carry_dep.count(n)) ok = false;
    else if (!slice_dep.count(n)) ok = true;  // invariant: read unbatched
    else if (t.op() == OpKind::Placeholder) ok = true;
    else if (op_def(t.op()).family == Family::elementwise) {
      ok = !has_symbols(t.shape()) && !is_symbol(spec.length);
      for (const Tensor& in : t.node().inputs) ok = ok && batchable(in);
    } else if (t.op() == OpKind::Matmul) {
      const Tensor& a = t.node().inputs[0];
      const Tensor& b = t.node().inputs[1];
      Shape stacked = t.shape();
      stacked.insert(stacked.begin(), spec.length);
      ok = slice_dep.count(&a.node()) && !slice_dep.count(&b.node()) && !carry_dep.count(&b.node()) && b.ndim() == 2 &&
           a.ndim() >= 1 && symbols_in(stacked) == 0 && batchable(a);  // unknown sizes: when specialized
    }
    batchable_memo[n] = ok;
    return ok;
  }

  bool holds_matmul(const Tensor& t) {
    const Node* n = &t.node();
    if (auto it = matmul_memo.find(n); it != matmul_memo.end()) return it->second;
    bool found = t.op() == OpKind::Matmul;
    for (const Tensor& in : t.node().inputs) found = found || (slice_dep.count(&in.node()) && holds_matmul(in));
    matmul_memo[n] = found;
    return found;
  }

  bool hoisted(const Tensor& t) {
    return slice_dep.count(&t.node()) && t.op() != OpKind::Placeholder && batchable(t) && holds_matmul(t);
  }

  // Elementwise `t` over flat forms: every batched operand has one (of `t`'s stacked shape) and
  // every other operand broadcasts along the last axis only (a bias, a scalar); else undefined.
  Tensor flat_elementwise(const Tensor& t) {
    if (op_def(t.op()).family != Family::elementwise || t.ndim() < 2) return Tensor();
    std::vector<Tensor> ins;
    bool any = false;
    for (const Tensor& in : t.node().inputs) {
      auto [v, is_batched] = batched(in);
      if (is_batched) {
        auto it = flat_memo.find(&in.node());
        if (it == flat_memo.end() || in.shape() != t.shape()) return Tensor();
        ins.push_back(it->second);
        any = true;
      } else {
        if (v.ndim() > 1) return Tensor();
        ins.push_back(v);
      }
    }
    if (!any) return Tensor();
    return reinfer_node(t.node(), ins, t.node().attr);
  }

  // The value of `t` for every iteration, stacked along a new first axis (batched), or its one
  // value (invariant).
  std::pair<Tensor, bool> batched(const Tensor& t) {
    const Node* n = &t.node();
    if (auto it = batched_memo.find(n); it != batched_memo.end()) return it->second;
    std::pair<Tensor, bool> out;
    if (!slice_dep.count(n)) {
      out = {replace_nodes({t}, to_outer)[0], false};
    } else if (t.op() == OpKind::Placeholder) {
      out = {to_outer.at(n), true};
    } else if (t.op() == OpKind::Matmul) {
      Tensor a = batched(t.node().inputs[0]).first;
      Tensor b = batched(t.node().inputs[1]).first;
      const std::int64_t k = b.shape()[0];
      // One GEMM over every step (and batch row): (T * rows, k) x (k, n).
      Tensor product = matmul(a.ndim() > 2 ? reshape(a, {-1, k}) : a, b);
      Shape stacked = t.shape();
      stacked.insert(stacked.begin(), spec.length);
      out = {product.shape() == stacked ? product : reshape(product, stacked), true};
      if (!(product.shape() == stacked)) flat_memo[n] = product;
    } else if (Tensor flat = flat_elementwise(t); flat.defined()) {
      Shape stacked = t.shape();
      stacked.insert(stacked.begin(), spec.length);
      out = {reshape(flat, stacked), true};
      flat_memo[n] = flat;
    } else {
      std::vector<Tensor> ins;
      for (const Tensor& in : t.node().inputs) {
        auto [v, is_batched] = batched(in);
        if (is_batched && v.ndim() - 1 < t.ndim()) {
          Shape s = v.shape();
          s.insert(s.begin() + 1, static_cast<std::size_t>(t.ndim() - (v.ndim() - 1)), 1);
          v = reshape(v, s);
        }
        ins.push_back(v);
      }
      out = {reinfer_node(t.node(), ins, t.node().attr), true};
    }
    batched_memo[n] = out;
    return out;
  }

  void run() {
    const std::vector<Tensor> frontier = frontier_of(region, [&](const Tensor& t) { return hoisted(t); });
    if (frontier.empty()) return;
    const auto at = static_cast<std::size_t>(spec.carries + spec.sequences);
    std::unordered_map<const Node*, Tensor> with;
    std::vector<Tensor> params, values;
    for (const Tensor& f : frontier) {
      values.push_back(batched(f).first);
      params.push_back(region_param(f.type(), f.label()));
      with.emplace(&f.node(), params.back());
    }
    region.results = replace_nodes(region.results, with);
    region.params.insert(region.params.begin() + static_cast<std::ptrdiff_t>(at), params.begin(), params.end());
    inputs.insert(inputs.begin() + static_cast<std::ptrdiff_t>(at), values.begin(), values.end());
    spec.sequences += static_cast<int>(frontier.size());
  }
};

// The nodes the regions read (params included): one walk of each region for all its params.
std::unordered_set<const Node*> read_by(const std::vector<Region>& regions) {
  std::unordered_set<const Node*> read;
  for (const Region& region : regions)
    for (const Tensor& t : topological_order(region.results)) read.insert(&t.node());
  return read;
}

// Drops sequences the body no longer reads (x_t whose only use, x_t @ W, was hoisted out as one
// product over the whole sequence): no slice of them is taken per step.
void drop_unused_sequences(LoopSpec& spec, std::vector<Tensor>& inputs) {
  if (spec.kind != LoopSpec::Kind::scan) return;
  const std::unordered_set<const Node*> read = read_by(spec.regions);
  for (int k = spec.sequences - 1; k >= 0; --k) {
    const auto p = static_cast<std::size_t>(spec.carries + k);
    if (read.count(&spec.regions[0].params[p].node())) continue;
    spec.regions[0].params.erase(spec.regions[0].params.begin() + static_cast<std::ptrdiff_t>(p));
    inputs.erase(inputs.begin() + static_cast<std::ptrdiff_t>(p));
    spec.sequences -= 1;
  }
}

// Drops invariants no region reads (a non_sequence whose only use was hoisted).
void drop_unused_invariants(LoopSpec& spec, std::vector<Tensor>& inputs) {
  const std::size_t first = first_invariant(spec), first_in = first_invariant_input(spec);
  const std::unordered_set<const Node*> read = read_by(spec.regions);
  for (int k = spec.invariants - 1; k >= 0; --k) {
    const std::size_t p = first + static_cast<std::size_t>(k);
    bool used = false;
    for (const Region& region : spec.regions) used = used || read.count(&region.params[p].node());
    if (used) continue;
    for (Region& region : spec.regions) region.params.erase(region.params.begin() + static_cast<std::ptrdiff_t>(p));
    inputs.erase(inputs.begin() + static_cast<std::ptrdiff_t>(first_in + static_cast<std::size_t>(k)));
    spec.invariants -= 1;
  }
}

OpKind op_of(LoopSpec::Kind kind) {
  switch (kind) {
    case LoopSpec::Kind::scan: return OpKind::Scan;
    case LoopSpec::Kind::while_loop: return OpKind::WhileLoop;
    case LoopSpec::Kind::switch_: return OpKind::Switch;
  }
  return OpKind::Scan;
}

// Hoisting, then the node and its parts.
std::vector<Tensor> make_loop(LoopSpec spec, std::vector<Tensor> inputs, Loc loc, const Node* like = nullptr,
                              bool hoist = true) {
  if (hoist) {
    hoist_invariants(spec, inputs);
    if (spec.kind == LoopSpec::Kind::scan) SequenceHoist(spec, inputs).run();
    drop_unused_sequences(spec, inputs);
    drop_unused_invariants(spec, inputs);
  }
  finalize(spec);
  const std::string name = spec.name;
  const std::size_t n = spec.result_types.size();
  auto shared = std::make_shared<const LoopSpec>(std::move(spec));
  Tensor node = like ? reinfer_node(*like, std::move(inputs), LoopAttr{shared})
                     : make_node(op_of(shared->kind), std::move(inputs), LoopAttr{shared}, loc, name.c_str());
  std::vector<Tensor> parts;
  for (std::size_t k = 0; k < n; ++k)
    parts.push_back(make_node(OpKind::Part, {node}, PartAttr{static_cast<int>(k)}, loc, name.c_str()));
  return parts;
}

// ---- rows ----

const LoopSpec& spec_of(const Attr& attr) {
  const auto* a = std::get_if<LoopAttr>(&attr);
  check_internal(a != nullptr && a->spec != nullptr, "control-flow node without LoopAttr");
  return *a->spec;
}

void expect_type(const Tensor& input, const TensorType& want, const char* what) {
  if (input.dtype() != want.dtype || !shapes_match(input.shape(), want.shape))
    fail_shape(std::string(what) + " is " + type_text(input.type()) + " but the body was traced for " + type_text(want),
               "Rebuild the loop for the new type.");
}

TensorType infer_loop(const std::vector<Tensor>& inputs, const Attr& attr) {
  const LoopSpec& spec = spec_of(attr);
  const Region& r0 = spec.regions.at(0);
  const std::size_t shift = spec.kind == LoopSpec::Kind::switch_ ? 1 : 0;
  check_internal(inputs.size() == r0.params.size() + shift, "control flow: inputs do not match the region's params");
  for (std::size_t k = 0; k < r0.params.size(); ++k) {
    TensorType want = r0.params[k].type();
    const bool slice = spec.kind == LoopSpec::Kind::scan && k >= static_cast<std::size_t>(spec.carries) &&
                       k < static_cast<std::size_t>(spec.carries + spec.sequences);
    if (slice) want.shape.insert(want.shape.begin(), spec.length);
    expect_type(inputs[k + shift], want, slice ? "a sequence" : "an input");
  }
  return packed_type(spec);
}

TensorType infer_part(const std::vector<Tensor>& inputs, const Attr& attr) {
  const auto& part = std::get<PartAttr>(attr);
  check_internal(is_loop(inputs[0].op()), "part of a node that has no parts");
  const LoopSpec& spec = loop_spec(inputs[0]);
  check_internal(part.index >= 0 && static_cast<std::size_t>(part.index) < spec.result_types.size(),
                 "part index out of range");
  return spec.result_types[static_cast<std::size_t>(part.index)];
}

Array pack(const LoopSpec& spec, const std::vector<Array>& results) {
  Array out = Array::zeros({spec.packed_bytes}, DType::u8);
  auto* base = static_cast<char*>(out.raw_data());
  for (std::size_t k = 0; k < results.size(); ++k)
    std::memcpy(base + spec.offsets[k], results[k].raw_data(), results[k].nbytes());
  return out;
}

// Row `t` of `a` (its first axis removed), sharing its storage.
Array row(const Array& a, std::int64_t t) {
  Shape s(a.shape().begin() + 1, a.shape().end());
  const std::size_t bytes = static_cast<std::size_t>(num_elements(s)) * itemsize(a.dtype());
  auto* data = static_cast<char*>(const_cast<void*>(a.raw_data())) + static_cast<std::size_t>(t) * bytes;
  return Array::wrap(data, std::move(s), a.dtype(), nullptr);
}

// Counts iterations and polls for an interrupt every so often.
struct InterruptPoll {
  std::uint32_t n = 0;
  void operator()() {
    if ((++n & 1023u) == 0) detail::poll_interrupt();
  }
};

Array evaluate_scan(const EvalArgs& args) {
  const LoopSpec& spec = spec_of(args.node.attr);
  const auto nc = static_cast<std::size_t>(spec.carries), ns = static_cast<std::size_t>(spec.sequences);
  const Region& body = spec.regions[0];
  std::vector<Array> carry(args.inputs.begin(), args.inputs.begin() + static_cast<std::ptrdiff_t>(nc));
  std::vector<Array> ys;
  for (std::size_t k = nc; k < spec.result_types.size(); ++k)
    ys.push_back(Array::zeros(spec.result_types[k].shape, spec.result_types[k].dtype));
  std::vector<Array> in(args.inputs.begin(), args.inputs.end());
  InterruptPoll poll;
  for (std::int64_t i = 0; i < spec.length; ++i) {
    poll();
    const std::int64_t t = spec.reverse ? spec.length - 1 - i : i;
    for (std::size_t k = 0; k < nc; ++k) in[k] = carry[k];
    for (std::size_t j = 0; j < ns; ++j) in[nc + j] = row(args.inputs[nc + j], t);
    std::vector<Array> res = evaluate_region(body, in);
    for (std::size_t k = 0; k < nc; ++k) carry[k] = res[k].copy();
    for (std::size_t k = 0; k < ys.size(); ++k) {
      Array dst = row(ys[k], t);
      std::memcpy(dst.raw_data(), res[nc + k].raw_data(), res[nc + k].nbytes());
    }
  }
  carry.insert(carry.end(), ys.begin(), ys.end());
  return pack(spec, carry);
}

Array evaluate_while(const EvalArgs& args) {
  const LoopSpec& spec = spec_of(args.node.attr);
  const auto nc = static_cast<std::size_t>(spec.carries);
  std::vector<Array> in(args.inputs.begin(), args.inputs.end());
  InterruptPoll poll;
  while (true) {
    poll();
    if (!evaluate_region(spec.regions[0], in)[0].astype(DType::b8).item<bool>()) break;
    std::vector<Array> next = evaluate_region(spec.regions[1], in);
    for (std::size_t k = 0; k < nc; ++k) in[k] = next[k].copy();
  }
  in.resize(nc);
  return pack(spec, in);
}

Array evaluate_switch(const EvalArgs& args) {
  const LoopSpec& spec = spec_of(args.node.attr);
  const auto n = static_cast<std::int64_t>(spec.regions.size());
  const std::int64_t index = std::clamp<std::int64_t>(args.inputs[0].astype(DType::i64).item<std::int64_t>(), 0, n - 1);
  std::vector<Array> in(args.inputs.begin() + 1, args.inputs.end());
  return pack(spec, evaluate_region(spec.regions[static_cast<std::size_t>(index)], in));
}

Array evaluate_part(const EvalArgs& args) {
  const LoopSpec& spec = loop_spec(args.node.inputs[0]);
  const auto k = static_cast<std::size_t>(std::get<PartAttr>(args.node.attr).index);
  Array out = Array::empty(args.node.type.shape, args.node.type.dtype);
  std::memcpy(out.raw_data(), static_cast<const char*>(args.inputs[0].raw_data()) + spec.offsets[k], out.nbytes());
  return out;
}

// Gradients of control flow need every part's cotangent at once: autodiff handles these nodes
// itself (src/autodiff/loops.cpp) and never calls the rows' single-cotangent rules.
std::vector<Tensor> vjp_by_autodiff(const Tensor&, const Tensor&) {
  throw InternalError("control flow: the vjp of a loop node is computed by autodiff's loop rules");
}

}  // namespace

void register_control_flow_ops() {
  define(OpKind::Scan, row(Family::control, kVariadic, Lowering::library, infer_loop, evaluate_scan, vjp_by_autodiff));
  define(OpKind::WhileLoop,
         row(Family::control, kVariadic, Lowering::library, infer_loop, evaluate_while, vjp_by_autodiff));
  define(OpKind::Switch,
         row(Family::control, kVariadic, Lowering::library, infer_loop, evaluate_switch, vjp_by_autodiff));
  define(OpKind::Part, row(Family::control, 1, Lowering::alias, infer_part, evaluate_part, vjp_by_autodiff));
}

const std::shared_ptr<const LoopSpec>& loop_spec_ptr(const Tensor& node) {
  const auto* a = std::get_if<LoopAttr>(&node.node().attr);
  check_internal(a != nullptr && a->spec != nullptr, "control-flow node without LoopAttr");
  return a->spec;
}
const LoopSpec& loop_spec(const Tensor& node) { return *loop_spec_ptr(node); }

TensorType packed_type(const LoopSpec& spec) { return {Shape{spec.packed_bytes}, DType::u8}; }

Tensor region_param(const TensorType& type, const std::string& name) {
  auto node = std::make_shared<Node>();
  node->op = OpKind::Placeholder;
  node->type = type;
  node->name = name;
  node->id = default_graph().next_node_id();
  return Tensor(std::move(node));
}

std::vector<Tensor> replace_nodes(const std::vector<Tensor>& roots,
                                  const std::unordered_map<const Node*, Tensor>& with) {
  std::unordered_map<const Node*, Tensor> mapped(with);
  for (const Tensor& t : topological_order(roots)) {
    if (mapped.count(&t.node())) continue;
    std::vector<Tensor> ins;
    bool changed = false;
    for (const Tensor& in : t.node().inputs) {
      auto it = mapped.find(&in.node());
      ins.push_back(it != mapped.end() ? it->second : in);
      changed = changed || it != mapped.end();
    }
    if (changed) mapped.emplace(&t.node(), rebuild_node(t.node(), std::move(ins)));
  }
  std::vector<Tensor> out;
  for (const Tensor& r : roots) {
    auto it = mapped.find(&r.node());
    out.push_back(it != mapped.end() ? it->second : r);
  }
  return out;
}

std::vector<Tensor> make_loop_node(LoopSpec spec, std::vector<Tensor> inputs, bool hoist, Loc loc) {
  return make_loop(std::move(spec), std::move(inputs), loc, nullptr, hoist);
}

std::uint64_t next_lineage_id() { return next_spec_id(); }

std::vector<Tensor> build_loop(LoopSpec spec, std::vector<Tensor> inputs, std::uint64_t traced_from, Loc loc) {
  LoopSpec traced = spec;
  traced.traced = nullptr;
  traced.traced_inputs = inputs;
  spec.traced = std::make_shared<const LoopSpec>(std::move(traced));
  spec.traced_inputs.clear();
  capture_outer(spec, inputs, traced_from, loc);
  return make_loop(std::move(spec), std::move(inputs), loc);
}

Tensor rebuild_traced_loop(LoopSpec traced, std::vector<Tensor> inputs, Loc loc) {
  // Random draws in the new regions were checked when their bodies were traced (or are the
  // user's replacements, made outside any body): none is refused here.
  std::vector<Tensor> parts =
      build_loop(std::move(traced), std::move(inputs), std::numeric_limits<std::uint64_t>::max(), loc);
  return parts.empty() ? Tensor() : parts[0].node().inputs[0];
}

Tensor respecialize_loop(const Node& node, const std::vector<Tensor>& inputs, const RegionSpecializer& specialize) {
  LoopSpec spec = *std::get<LoopAttr>(node.attr).spec;
  const std::size_t shift = spec.kind == LoopSpec::Kind::switch_ ? 1 : 0;
  std::vector<Shape> shapes;
  for (std::size_t k = shift; k < inputs.size(); ++k) {
    Shape s = inputs[k].shape();
    const bool slice = spec.kind == LoopSpec::Kind::scan && k >= static_cast<std::size_t>(spec.carries) &&
                       k < static_cast<std::size_t>(spec.carries + spec.sequences);
    if (slice) {
      spec.length = s[0];
      s.erase(s.begin());
    }
    shapes.push_back(std::move(s));
  }
  for (Region& region : spec.regions) {
    region = specialize(region, shapes);
    if (spec.kind != LoopSpec::Kind::scan) continue;
    for (int k = 0; k < spec.carries; ++k) {
      const Tensor& r = region.results[static_cast<std::size_t>(k)];
      if (r.shape() != shapes[static_cast<std::size_t>(k)])
        throw ShapeError(spec.name + ": carry " + std::to_string(k) + " ('" +
                         spec.carry_names[static_cast<std::size_t>(k)] + "') enters the body as " +
                         shape_string(shapes[static_cast<std::size_t>(k)]) + " in this call but the body returns " +
                         shape_string(r.shape()) + " for it" + at_text(r) +
                         ". A carry keeps its shape across iterations.");
    }
  }
  std::vector<Tensor> in = inputs;
  Loc none = Loc::current();
  std::vector<Tensor> parts = make_loop(std::move(spec), std::move(in), none, &node);
  return parts[0].node().inputs[0];
}

std::vector<Array> evaluate_region(const Region& region, const std::vector<Array>& args) {
  check_internal(args.size() == region.params.size(), "evaluate_region: one value per param");
  std::unordered_map<const Node*, Array> values;
  for (std::size_t k = 0; k < args.size(); ++k) values[&region.params[k].node()] = args[k];
  for (const Tensor& t : topological_order(region.results)) {
    const Node& node = t.node();
    if (values.count(&node)) continue;
    check_internal(node.op != OpKind::Placeholder && node.op != OpKind::Variable,
                   "evaluate_region: a region reads a placeholder or variable that is not its param");
    std::vector<Array> in;
    in.reserve(node.inputs.size());
    for (const Tensor& i : node.inputs) in.push_back(values.at(&i.node()));
    values[&node] = op_def(node.op).evaluate({node, in});
  }
  std::vector<Array> out;
  out.reserve(region.results.size());
  for (const Tensor& r : region.results) out.push_back(values.at(&r.node()));
  return out;
}

}  // namespace ops

// ---- the builders ----

namespace {

std::uint64_t trace_start() { return default_graph().next_node_id(); }

void check_defined(const std::vector<Tensor>& ts, const char* op, const char* what, Loc loc) {
  for (std::size_t k = 0; k < ts.size(); ++k)
    if (!ts[k].defined())
      ops::raise(op, {},
                 {ops::TypeProblem::Kind::value,
                  std::string(what) + " " + std::to_string(k) + " is an undefined tensor",
                  "Pass tensors of the graph (placeholders, variables, constants or ops)."},
                 loc);
}

std::string carry_name(const Tensor& init, std::size_t k) {
  return init.name().empty() ? "carry " + std::to_string(k) : init.name();
}

[[noreturn]] void carry_changed(const char* op, std::size_t k, const std::string& name, const Tensor& param,
                                const Tensor& r, Loc loc) {
  const bool shape = r.shape() != param.shape();
  ops::raise(op, {},
             {shape ? ops::TypeProblem::Kind::shape : ops::TypeProblem::Kind::dtype,
              "carry " + std::to_string(k) + (name == "carry " + std::to_string(k) ? "" : " ('" + name + "')") +
                  " enters the body as " + type_text(param.type()) + " but the body returns " + type_text(r.type()) +
                  " for it" + at_text(r),
              shape ? "A carry keeps its shape across iterations: return a value of the carry's shape (reshape or "
                      "reduce it), or give init the shape the body produces."
                    : "A carry keeps its dtype across iterations: cast the new value (astype), or give init the "
                      "dtype the body produces (0.0 rather than 0 for a float carry)."},
             loc);
}

void check_new_carries(const char* op, const std::vector<Tensor>& params, const std::vector<Tensor>& returned,
                       const std::vector<std::string>& names, Loc loc) {
  if (returned.size() != params.size())
    ops::raise(op, {},
               {ops::TypeProblem::Kind::value,
                "the body returns " + std::to_string(returned.size()) + " carries for " + std::to_string(params.size()),
                "Return one new value per carry of init, in init's order."},
               loc);
  for (std::size_t k = 0; k < params.size(); ++k) {
    if (!returned[k].defined())
      ops::raise(op, {},
                 {ops::TypeProblem::Kind::value, "the body returns an undefined tensor for carry " + std::to_string(k),
                  "Return a tensor for every carry."},
                 loc);
    if (returned[k].type() != params[k].type()) carry_changed(op, k, names[k], params[k], returned[k], loc);
  }
}

}  // namespace

ScanResult scan(const ScanBody& fn, const std::vector<Tensor>& init, const std::vector<Tensor>& sequences,
                const std::vector<Tensor>& non_sequences, ScanOptions options, Loc loc) {
  const char* op = "scan";
  if (!fn)
    ops::raise(op, {}, {ops::TypeProblem::Kind::value, "the body is empty", "Pass a function as the body."}, loc);
  check_defined(init, op, "init", loc);
  check_defined(sequences, op, "sequence", loc);
  check_defined(non_sequences, op, "non_sequence", loc);
  std::optional<std::int64_t> length = options.length;
  if (length && *length < 0)
    ops::raise(op, {},
               {ops::TypeProblem::Kind::value, "length is " + std::to_string(*length), "Pass a length of 0 or more."},
               loc);
  for (std::size_t j = 0; j < sequences.size(); ++j) {
    const Tensor& s = sequences[j];
    if (s.ndim() == 0)
      ops::raise(op, {s},
                 {ops::TypeProblem::Kind::shape, "sequence " + std::to_string(j) + " is a scalar",
                  "A sequence is scanned along its first axis: pass a tensor with at least one axis."},
                 loc);
    const std::int64_t n = s.shape()[0];
    if (length && !is_symbol(n) && !is_symbol(*length) && n != *length)
      ops::raise(op, {s},
                 {ops::TypeProblem::Kind::shape,
                  "sequence " + std::to_string(j) + " has " + std::to_string(n) + " steps but " +
                      (options.length ? "length is " : "sequence 0 has ") + std::to_string(*length),
                  "Every sequence must have the same first axis (and length, if given, must equal it)."},
                 loc);
    if (!length || (is_symbol(*length) && !is_symbol(n))) length = n;
  }
  if (!length)
    ops::raise(op, {},
               {ops::TypeProblem::Kind::value, "there are no sequences and no length",
                "Pass length= (the number of iterations) when scanning without sequences."},
               loc);
  LoopSpec spec;
  spec.kind = LoopSpec::Kind::scan;
  spec.name = op;
  spec.length = *length;
  spec.reverse = options.reverse;
  spec.checkpoint = options.checkpoint;
  spec.carries = static_cast<int>(init.size());
  spec.sequences = static_cast<int>(sequences.size());
  spec.invariants = static_cast<int>(non_sequences.size());
  Region body;
  std::vector<Tensor> carries, xs, ns;
  for (std::size_t k = 0; k < init.size(); ++k) {
    spec.carry_names.push_back(carry_name(init[k], k));
    carries.push_back(ops::region_param(init[k].type(), spec.carry_names.back()));
  }
  for (std::size_t j = 0; j < sequences.size(); ++j) {
    const Tensor& s = sequences[j];
    xs.push_back(ops::region_param({Shape(s.shape().begin() + 1, s.shape().end()), s.dtype()},
                                   s.name().empty() ? "x" + std::to_string(j) : s.name() + "[t]"));
  }
  for (const Tensor& n : non_sequences) ns.push_back(ops::region_param(n.type(), n.label()));
  const std::uint64_t traced_from = trace_start();
  ScanResult r = fn(carries, xs, ns);
  check_new_carries(op, carries, r.carry, spec.carry_names, loc);
  check_defined(r.ys, op, "the body's output", loc);
  body.params = carries;
  body.params.insert(body.params.end(), xs.begin(), xs.end());
  body.params.insert(body.params.end(), ns.begin(), ns.end());
  body.results = r.carry;
  body.results.insert(body.results.end(), r.ys.begin(), r.ys.end());
  spec.regions.push_back(std::move(body));
  std::vector<Tensor> inputs = init;
  inputs.insert(inputs.end(), sequences.begin(), sequences.end());
  inputs.insert(inputs.end(), non_sequences.begin(), non_sequences.end());
  std::vector<Tensor> parts = ops::build_loop(std::move(spec), std::move(inputs), traced_from, loc);
  ScanResult out;
  out.carry.assign(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(init.size()));
  out.ys.assign(parts.begin() + static_cast<std::ptrdiff_t>(init.size()), parts.end());
  return out;
}

std::vector<Tensor> map(const MapBody& fn, const std::vector<Tensor>& sequences,
                        const std::vector<Tensor>& non_sequences, Loc loc) {
  if (!fn)
    ops::raise("map", {}, {ops::TypeProblem::Kind::value, "the function is empty", "Pass a function to map."}, loc);
  if (sequences.empty())
    ops::raise("map", {},
               {ops::TypeProblem::Kind::value, "there are no sequences",
                "Pass at least one tensor to map over its first axis."},
               loc);
  return scan(
             [&](const std::vector<Tensor>&, const std::vector<Tensor>& xs, const std::vector<Tensor>& ns) {
               return ScanResult{{}, fn(xs, ns)};
             },
             {}, sequences, non_sequences, {}, loc)
      .ys;
}

std::vector<Tensor> fori_loop(std::int64_t lower, std::int64_t upper, const ForiBody& body,
                              const std::vector<Tensor>& init, Loc loc) {
  if (!body)
    ops::raise("fori_loop", {}, {ops::TypeProblem::Kind::value, "the body is empty", "Pass a function as the body."},
               loc);
  std::vector<Tensor> carry{constant(static_cast<double>(lower), DType::i32, loc)};
  carry.insert(carry.end(), init.begin(), init.end());
  ScanOptions options;
  options.length = std::max<std::int64_t>(upper - lower, 0);
  ScanResult r = scan(
      [&](const std::vector<Tensor>& c, const std::vector<Tensor>&, const std::vector<Tensor>&) {
        std::vector<Tensor> values(c.begin() + 1, c.end());
        std::vector<Tensor> next{c[0] + 1};
        std::vector<Tensor> out = body(c[0], values);
        next.insert(next.end(), out.begin(), out.end());
        return ScanResult{next, {}};
      },
      carry, {}, {}, options, loc);
  return {r.carry.begin() + 1, r.carry.end()};
}

std::vector<Tensor> fori_loop(const Tensor& lower, const Tensor& upper, const ForiBody& body,
                              const std::vector<Tensor>& init, Loc loc) {
  for (const Tensor& b : {lower, upper})
    if (!b.defined() || b.ndim() != 0 || !(b.dtype() == DType::i32 || b.dtype() == DType::i64))
      ops::raise("fori_loop", b.defined() ? std::vector<Tensor>{b} : std::vector<Tensor>{},
                 {ops::TypeProblem::Kind::dtype, "a bound is not an integer scalar tensor",
                  "Pass Python/C++ integers (a scan, differentiable) or int32/int64 scalar tensors (a while_loop)."},
                 loc);
  std::vector<Tensor> carry{astype(lower, DType::i32, loc)};
  carry.insert(carry.end(), init.begin(), init.end());
  Tensor hi = astype(upper, DType::i32, loc);
  std::vector<Tensor> r = while_loop([&](const std::vector<Tensor>& c) { return c[0] < hi; },
                                     [&](const std::vector<Tensor>& c) {
                                       std::vector<Tensor> values(c.begin() + 1, c.end());
                                       std::vector<Tensor> next{c[0] + 1};
                                       std::vector<Tensor> out = body(c[0], values);
                                       next.insert(next.end(), out.begin(), out.end());
                                       return next;
                                     },
                                     carry, loc);
  return {r.begin() + 1, r.end()};
}

std::vector<Tensor> while_loop(const LoopCond& cond_fn, const LoopBody& body_fn, const std::vector<Tensor>& init,
                               Loc loc) {
  const char* op = "while_loop";
  if (!cond_fn || !body_fn)
    ops::raise(op, {},
               {ops::TypeProblem::Kind::value, std::string("the ") + (!cond_fn ? "condition" : "body") + " is empty",
                "Pass a condition function and a body function."},
               loc);
  check_defined(init, op, "init", loc);
  LoopSpec spec;
  spec.kind = LoopSpec::Kind::while_loop;
  spec.name = op;
  spec.carries = static_cast<int>(init.size());
  for (std::size_t k = 0; k < init.size(); ++k) spec.carry_names.push_back(carry_name(init[k], k));
  auto params = [&] {
    std::vector<Tensor> ps;
    for (std::size_t k = 0; k < init.size(); ++k) ps.push_back(ops::region_param(init[k].type(), spec.carry_names[k]));
    return ps;
  };
  const std::uint64_t traced_from = trace_start();
  Region c{params(), {}};
  Tensor pred = cond_fn(c.params);
  if (!pred.defined() || pred.ndim() != 0 || pred.dtype() != DType::b8)
    ops::raise(op, pred.defined() ? std::vector<Tensor>{pred} : std::vector<Tensor>{},
               {pred.defined() && pred.ndim() != 0 ? ops::TypeProblem::Kind::shape : ops::TypeProblem::Kind::dtype,
                "the condition returns " +
                    (pred.defined() ? type_text(pred.type()) : std::string("an undefined tensor")) +
                    ", not a bool scalar",
                "Return one bool: a comparison such as v < 10, or any(...) of a tensor."},
               loc);
  c.results = {pred};
  Region b{params(), {}};
  std::vector<Tensor> next = body_fn(b.params);
  check_new_carries(op, b.params, next, spec.carry_names, loc);
  b.results = next;
  spec.regions = {std::move(c), std::move(b)};
  return ops::build_loop(std::move(spec), init, traced_from, loc);
}

namespace {
std::vector<Tensor> switch_named(const char* op, const Tensor& index, const std::vector<Branch>& branches,
                                 const std::vector<Tensor>& operands, Loc loc) {
  if (branches.empty())
    ops::raise(op, {}, {ops::TypeProblem::Kind::value, "there are no branches", "Pass one or more functions."}, loc);
  if (!index.defined() || index.ndim() != 0 || is_floating(index.dtype()))
    ops::raise(op, index.defined() ? std::vector<Tensor>{index} : std::vector<Tensor>{},
               {index.defined() && index.ndim() != 0 ? ops::TypeProblem::Kind::shape : ops::TypeProblem::Kind::dtype,
                "the index is not an integer scalar",
                "Pass an int32/int64 (or bool) scalar; it is clamped to the branches' range, as jax.lax.switch."},
               loc);
  check_defined(operands, op, "operand", loc);
  LoopSpec spec;
  spec.kind = LoopSpec::Kind::switch_;
  spec.name = op;  // "switch" or "cond"
  spec.operands = static_cast<int>(operands.size());
  // cond's branches are the false one (0) and the true one (1): messages name them so.
  const bool is_cond = std::string(op) == "cond";
  auto branch_text = [&](std::size_t b) {
    return is_cond ? std::string(b == 1 ? "the true branch" : "the false branch") : "branch " + std::to_string(b);
  };
  const std::uint64_t traced_from = trace_start();
  for (std::size_t b = 0; b < branches.size(); ++b) {
    if (!branches[b])
      ops::raise(op, {},
                 {ops::TypeProblem::Kind::value, "branch " + std::to_string(b) + " is empty", "Pass a function."}, loc);
    Region region;
    for (const Tensor& o : operands) region.params.push_back(ops::region_param(o.type(), o.label()));
    region.results = branches[b](region.params);
    check_defined(region.results, op, ("branch " + std::to_string(b) + "'s result").c_str(), loc);
    if (b > 0) {
      const auto& first = spec.regions[0].results;
      if (region.results.size() != first.size())
        ops::raise(op, {},
                   {ops::TypeProblem::Kind::value,
                    branch_text(b) + " returns " + std::to_string(region.results.size()) + " tensors but " +
                        branch_text(0) + " returns " + std::to_string(first.size()),
                    "Every branch must return the same number of tensors, of the same shapes and dtypes."},
                   loc);
      for (std::size_t k = 0; k < first.size(); ++k)
        if (region.results[k].type() != first[k].type())
          ops::raise(op, {},
                     {region.results[k].shape() != first[k].shape() ? ops::TypeProblem::Kind::shape
                                                                    : ops::TypeProblem::Kind::dtype,
                      "result " + std::to_string(k) + " of " + branch_text(b) + " is " +
                          type_text(region.results[k].type()) + at_text(region.results[k]) + " but " + branch_text(0) +
                          " returns " + type_text(first[k].type()),
                      "Every branch must return tensors of the same shapes and dtypes (cast or broadcast them)."},
                     loc);
    }
    spec.regions.push_back(std::move(region));
  }
  std::vector<Tensor> inputs{index.dtype() == DType::i32 ? index : astype(index, DType::i32, loc)};
  inputs.insert(inputs.end(), operands.begin(), operands.end());
  return ops::build_loop(std::move(spec), std::move(inputs), traced_from, loc);
}
}  // namespace

std::vector<Tensor> switch_(const Tensor& index, const std::vector<Branch>& branches,
                            const std::vector<Tensor>& operands, Loc loc) {
  return switch_named("switch", index, branches, operands, loc);
}

std::vector<Tensor> cond(const Tensor& pred, const Branch& true_fn, const Branch& false_fn,
                         const std::vector<Tensor>& operands, Loc loc) {
  if (!pred.defined() || pred.ndim() != 0)
    ops::raise("cond", pred.defined() ? std::vector<Tensor>{pred} : std::vector<Tensor>{},
               {ops::TypeProblem::Kind::shape, "the predicate is not a scalar",
                "Pass a bool scalar (reduce a tensor with any() or all() first)."},
               loc);
  Tensor p = pred.dtype() == DType::b8 ? pred : not_equal(pred, 0, loc);
  if (!true_fn || !false_fn)
    ops::raise("cond", {},
               {ops::TypeProblem::Kind::value, std::string("the ") + (!true_fn ? "true" : "false") + " branch is empty",
                "Pass two functions."},
               loc);
  return switch_named("cond", p, {false_fn, true_fn}, operands, loc);
}

}  // namespace symx

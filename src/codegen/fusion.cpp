// Fusion grouping: decides which nodes are materialized in buffers and which are computed inline
// inside the kernel of their consumer.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "codegen/kernel.hpp"
#include "codegen/library_capabilities.hpp"
#include "ops/op_table.hpp"
#include "passes/rewrite.hpp"
#include "symx/graph.hpp"

namespace symx::codegen {

// Both from the op's row of the op table (src/ops/op_table.hpp).
bool is_reduction(OpKind op) { return ops::op_def(op).fused_reduction(); }
bool fusible(OpKind op) { return ops::op_def(op).fusible(); }

namespace {

// Generated kernels compute real numbers only: a node with a complex result or operand runs its
// reference evaluation, or its library call (fft), as a step of its own.
bool touches_complex(const Tensor& t) {
  if (is_complex(t.dtype())) return true;
  for (const Tensor& in : t.node().inputs)
    if (is_complex(in.dtype())) return true;
  return false;
}
bool fused_node(const Tensor& t) { return fusible(t.op()) && !touches_complex(t); }

// How a node that kernels do not compute inline runs, from its op's lowering.
Role role_of_unfusible(const Tensor& t, const LibraryCapabilities& library) {
  switch (ops::op_def(t.op()).lowering) {
    case ops::Lowering::leaf: return Role::leaf;
    case ops::Lowering::alias: return Role::alias;
    // Row kernels: generated, but over materialized operands (see kernel_rows.hpp).
    case ops::Lowering::row_kernel: return Role::kernel;
    // Matrix products, convolutions and pooling: the program asks for a library call and runs the
    // reference evaluation when none applies to the node's dtype or attributes.
    // The runtime given may lack a library for the op (library.handles): the reference then runs it.
    case ops::Lowering::library:
      if (ops::op_def(t.op()).family == ops::Family::control)
        return library.handles(t.op()) ? Role::library : Role::fallback;
      // Floating or complex results, or integer results of floating operands (argsort's indices).
      return library.handles(t.op()) &&
                     (is_inexact(t.dtype()) || (!t.node().inputs.empty() && is_inexact(t.node().inputs[0].dtype())))
                 ? Role::library
                 : Role::fallback;
    case ops::Lowering::reference: return Role::fallback;
    case ops::Lowering::kernel:
      if (touches_complex(t)) return Role::fallback;
      break;
  }
  throw InternalError(std::string("fusion: ") + op_name(t.op()) + " is fused into kernels, not a step of its own");
}

// Elements of its input a node visits per output element is 1 for elementwise ops and views, so
// inlining a producer of the consumer's size never recomputes anything. Reductions visit their
// whole input, which is what they are for.
bool inline_into(const Tensor& producer, const Tensor& consumer) {
  if (!fused_node(consumer)) return false;
  // A column reduction (its last input axis kept: a bias gradient summing a (rows, n) array over
  // the rows) inlined into an elementwise consumer would walk each column with a stride of n, one
  // output at a time; as a kernel of its own it keeps a block of accumulators and reads rows
  // contiguously (the loop IR's column-sum schedule).
  if (is_reduction(producer.op()) && !is_reduction(consumer.op())) {
    const Tensor& in = producer.node().inputs[0];
    const auto& axes = std::get<ReduceAttr>(producer.node().attr).axes;
    const bool keeps_last = in.ndim() > 0 && std::find(axes.begin(), axes.end(), in.ndim() - 1) == axes.end();
    if (keeps_last && in.size() >= 65536) return false;
  }
  if (is_reduction(consumer.op())) return true;
  return producer.size() == consumer.size() || consumer.op() == OpKind::Slice || consumer.op() == OpKind::Transpose;
}

// ---- library steps with an epilogue (bias and ReLU fused into a matmul or convolution) ----

struct Uses {
  std::unordered_map<const Node*, std::vector<Tensor>> consumers;  // once per input slot read
  std::unordered_set<const Node*> roots;                           // outputs: always materialized

  // How many input slots read `t`.
  std::size_t reads(const Tensor& t) const {
    auto it = consumers.find(&t.node());
    return it == consumers.end() ? 0 : it->second.size();
  }
  // Whether `t`'s value is needed by exactly one node (and is not a root).
  bool single(const Tensor& t) const { return reads(t) == 1 && !roots.count(&t.node()); }
};

// Whether a node read by several consumers is recomputed in each instead of materialized. Each
// consumer kernel then evaluates it per element it needs, which for elementwise work costs a few
// instructions against a write and a read of the whole array per materialized node; loops stay
// memory-bound until several transcendentals are repeated, so those are recomputed for at most
// two consumers. Not a root (its value is an output) and not a reduction (that would repeat a
// whole loop per element).
bool recomputable(const Tensor& t, const Uses& uses) {
  const std::size_t reads = uses.reads(t);
  if (reads == 0 || reads > 4 || uses.roots.count(&t.node()) || is_reduction(t.op())) return false;
  return ops::op_def(t.op()).cheap || reads <= 2;
}

// Which operands of a matrix product are transposes it can read through the library's
// transposed-operand flag instead of materializing them (each needed nowhere else): a 2-D transpose
// of a 2-D product, and, when the product runs on the gemm loop (no oneDNN ReLU epilogue, whose
// flattened batch needs plain operands), a transpose of the last two axes only of a batched one
// (each batch element of the transpose's input is then the operand stored transposed).
std::array<bool, 2> absorbable_transposes(const Tensor& product, const Uses& uses, bool gemm_loop) {
  std::array<bool, 2> absorbed{};
  if (product.op() != OpKind::Matmul || !is_floating(product.dtype())) return absorbed;
  for (std::size_t k = 0; k < 2; ++k) {
    const Tensor& operand = product.node().inputs[k];
    if (operand.op() != OpKind::Transpose || !uses.single(operand)) continue;
    if (operand.ndim() == 2 && product.node().inputs[1 - k].ndim() == 2) {
      absorbed[k] = true;
      continue;
    }
    const auto& perm = std::get<PermAttr>(operand.node().attr).perm;
    bool last_two = gemm_loop && operand.ndim() > 2;
    for (std::size_t d = 0; last_two && d < perm.size(); ++d) {
      std::size_t want = d + 2 < perm.size() ? d : perm.size() * 2 - 3 - d;  // n-2 <-> n-1
      last_two = static_cast<std::size_t>(perm[d]) == want;
    }
    absorbed[k] = last_two;
  }
  return absorbed;
}

// A fused library step: the epilogue, and the nodes below its last node that the call computes.
struct LibraryGroup {
  Epilogue epilogue;
  std::vector<const Node*> absorbed;
};

// Whether `bias`, broadcast against `out`, varies along `axis` only, with one value per index.
bool varies_only_along(const Shape& bias, const Shape& out, std::size_t axis) {
  if (bias.size() > out.size() || axis + bias.size() < out.size()) return false;
  std::size_t offset = out.size() - bias.size();
  for (std::size_t d = 0; d < bias.size(); ++d)
    if (bias[d] != (d + offset == axis ? out[axis] : 1)) return false;
  return true;
}

// `add` as product + bias (either order), the product needed nowhere else, followed by a ReLU when
// `relu`. The bias may be broadcast by the add itself or by a broadcast_to, which the call absorbs.
std::optional<LibraryGroup> match_bias(const Tensor& add, const Uses& uses, const LibraryCapabilities& library,
                                       bool relu = false) {
  if (add.op() != OpKind::Add) return std::nullopt;
  for (std::size_t k : {0, 1}) {
    const Tensor& product = add.node().inputs[k];
    const Tensor& operand = add.node().inputs[1 - k];
    if (!uses.single(product) || product.shape() != add.shape() || !library.supports_epilogue(product, relu)) continue;
    LibraryGroup g{{product, operand, false}, {&product.node()}};
    if (operand.op() == OpKind::BroadcastTo) {
      g.epilogue.bias = operand.node().inputs[0];
      if (uses.single(operand)) g.absorbed.push_back(&operand.node());
    }
    std::size_t axis = product.op() == OpKind::Conv ? 1 : add.shape().size() - 1;  // NC... or (..., N)
    if (varies_only_along(g.epilogue.bias.shape(), add.shape(), axis)) return g;
  }
  return std::nullopt;
}

bool is_zero(const Tensor& t) {
  std::optional<double> value = passes::uniform_constant(t);
  return value && *value == 0;
}

// The epilogue group of `relu` applied to x (a product or a product + bias needed nowhere else but
// by the relu's own `reads` input slots); `zeros`: the relu's constant operands, absorbed with it.
std::optional<LibraryGroup> relu_group(const Tensor& relu, const Tensor& x, std::size_t reads,
                                       const std::vector<Tensor>& zeros, const Uses& uses,
                                       const LibraryCapabilities& library) {
  if (uses.reads(x) != reads || uses.roots.count(&x.node()) || x.shape() != relu.shape()) return std::nullopt;
  std::optional<LibraryGroup> g = match_bias(x, uses, library, true);
  if (g) g->absorbed.push_back(&x.node());
  else if (library.supports_epilogue(x, true)) g = LibraryGroup{{x, Tensor(), false}, {&x.node()}};
  else return std::nullopt;
  g->epilogue.relu = true;
  for (const Tensor& zero : zeros)
    if (zero.op() != OpKind::Constant && uses.single(zero)) g->absorbed.push_back(&zero.node());
  return g;
}

// `relu` as maximum(x, 0) (either order) or as nn::relu spells it, where(x <= 0, 0, x), of a product
// or a product + bias needed nowhere else.
std::optional<LibraryGroup> match_relu(const Tensor& relu, const Uses& uses, const LibraryCapabilities& library) {
  const auto& in = relu.node().inputs;
  if (relu.op() == OpKind::Maximum) {
    for (std::size_t k : {0, 1})
      if (is_zero(in[1 - k]))
        if (auto g = relu_group(relu, in[k], 1, {in[1 - k]}, uses, library)) return g;
    return std::nullopt;
  }
  if (relu.op() != OpKind::Where || in[0].op() != OpKind::LessEqual || !uses.single(in[0])) return std::nullopt;
  const Tensor& x = in[2];
  const auto& test = in[0].node().inputs;
  if (&test[0].node() != &x.node() || !is_zero(test[1]) || !is_zero(in[1])) return std::nullopt;
  std::optional<LibraryGroup> g = relu_group(relu, x, 2, {test[1], in[1]}, uses, library);
  if (g) g->absorbed.push_back(&in[0].node());
  return g;
}

// Moves each `early` host call (HostCallSpec::early), in the order they were built, as close to
// the start as it can go: the steps it depends on first, in their order, then the call; the other
// steps follow in their order. A collective started on a bucket of gradients thus runs while the
// rest of the backward pass is computed. Plans without early calls are unchanged.
void schedule_early_host_calls(FusionPlan& plan) {
  const std::size_t n = plan.steps.size();
  std::vector<std::size_t> early;
  std::unordered_map<const Node*, std::size_t> step_of;
  for (std::size_t i = 0; i < n; ++i) {
    const Tensor& t = plan.steps[i].node;
    step_of[&t.node()] = i;
    if (t.op() == OpKind::HostCall && std::get<HostCallAttr>(t.node().attr).spec->early) early.push_back(i);
  }
  if (early.empty()) return;
  std::sort(early.begin(), early.end(),
            [&](std::size_t a, std::size_t b) { return plan.steps[a].node.id() < plan.steps[b].node.id(); });
  std::vector<bool> placed(n, false);
  std::vector<std::size_t> order;
  for (std::size_t e : early) {
    if (placed[e]) continue;
    // The steps e depends on (and e), marked; then appended in their original order.
    std::vector<bool> needed(n, false);
    std::vector<std::size_t> stack{e};
    needed[e] = true;
    while (!stack.empty()) {
      std::size_t i = stack.back();
      stack.pop_back();
      for (const Tensor& in : plan.reads(plan.steps[i])) {
        auto it = step_of.find(&in.node());
        if (it == step_of.end() || placed[it->second] || needed[it->second]) continue;
        needed[it->second] = true;
        stack.push_back(it->second);
      }
    }
    for (std::size_t i = 0; i <= e; ++i)
      if (needed[i] && !placed[i]) {
        placed[i] = true;
        order.push_back(i);
      }
  }
  for (std::size_t i = 0; i < n; ++i)
    if (!placed[i]) order.push_back(i);
  std::vector<Step> steps;
  steps.reserve(n);
  for (std::size_t i : order) steps.push_back(std::move(plan.steps[i]));
  plan.steps = std::move(steps);
}

}  // namespace

std::vector<Tensor> FusionPlan::reads(const Step& s) const {
  return s.role == Role::kernel ? kernels[static_cast<std::size_t>(s.kernel)].loads : s.inputs();
}

std::vector<Tensor> Step::inputs() const {
  std::vector<Tensor> in = product().node().inputs;
  for (std::size_t k = 0; k < 2; ++k)
    if (transposed[k]) in[k] = in[k].node().inputs[0];
  if (epilogue && epilogue->bias.defined()) in.push_back(epilogue->bias);
  return in;
}

FusionPlan plan_fusion(const std::vector<Tensor>& roots, const LibraryCapabilities& library) {
  std::vector<Tensor> order = topological_order(roots);
  Uses uses;
  for (const Tensor& t : order)
    for (const Tensor& in : t.node().inputs) uses.consumers[&in.node()].push_back(t);
  for (const Tensor& r : roots) uses.roots.insert(&r.node());

  std::unordered_map<const Node*, Role> role;
  std::unordered_map<const Node*, Epilogue> epilogues;              // by the fused step's last node
  std::unordered_map<const Node*, std::array<bool, 2>> transposed;  // by the step's node
  std::unordered_set<const Node*> read_by_library;                  // inputs of fused steps: materialized
  std::unordered_set<const Node*> recomputed;                       // inlined into more than one kernel
  for (auto it = order.rbegin(); it != order.rend(); ++it) {        // consumers before producers
    const Tensor& t = *it;
    if (role.count(&t.node())) continue;  // absorbed into a fused library step
    std::optional<LibraryGroup> group = match_relu(t, uses, library);
    if (!group) group = match_bias(t, uses, library);
    if (group || (!fused_node(t) && role_of_unfusible(t, library) == Role::library)) {
      Step step{Role::library, t, -1, group ? std::optional(group->epilogue) : std::nullopt, {}};
      role[&t.node()] = Role::library;
      if (group)
        for (const Node* n : group->absorbed) role[n] = Role::inlined;
      step.transposed = absorbable_transposes(step.product(), uses, !(group && group->epilogue.relu));
      for (std::size_t k = 0; k < 2; ++k)
        if (step.transposed[k]) role[&step.product().node().inputs[k].node()] = Role::inlined;
      for (const Tensor& in : step.inputs()) read_by_library.insert(&in.node());
      if (group) epilogues[&t.node()] = std::move(group->epilogue);
      transposed[&t.node()] = step.transposed;
      continue;
    }
    if (!fused_node(t)) {
      role[&t.node()] = role_of_unfusible(t, library);
      continue;
    }
    // Inlined into its consumers: the one consumer, or each of a few when recomputing the node
    // there is cheaper than writing it to memory and reading it back (see recomputable).
    // A reduction is never recomputed: under a recomputed node it is materialized instead.
    const std::vector<Tensor>& consumers = uses.consumers[&t.node()];
    bool inlined = !consumers.empty() && (uses.single(t) || recomputable(t, uses)) && !read_by_library.count(&t.node());
    bool under_recomputed = false;
    for (const Tensor& c : consumers) {
      Role r = role[&c.node()];
      inlined = inlined && (r == Role::kernel || r == Role::inlined) && inline_into(t, c);
      under_recomputed = under_recomputed || recomputed.count(&c.node());
    }
    if (inlined && is_reduction(t.op()) && under_recomputed) inlined = false;
    if (inlined && (!uses.single(t) || under_recomputed)) recomputed.insert(&t.node());
    role[&t.node()] = inlined ? Role::inlined : Role::kernel;
  }

  FusionPlan plan;
  for (const Tensor& t : order) {
    Role r = role[&t.node()];
    if (r == Role::leaf) {
      plan.leaves.push_back(t);
      continue;
    }
    if (r == Role::inlined) continue;
    Step step{r, t, -1, std::nullopt, {}};
    if (auto e = epilogues.find(&t.node()); e != epilogues.end()) step.epilogue = e->second;
    if (auto e = transposed.find(&t.node()); e != transposed.end()) step.transposed = e->second;
    if (r == Role::kernel) {
      Kernel k;
      k.name = "k" + std::to_string(plan.kernels.size());
      k.root = t;
      // Walk the inlined tree; materialized nodes become loads (each once, in first-use order).
      std::vector<Tensor> stack{t};
      std::unordered_map<const Node*, bool> loaded;
      std::vector<Tensor> visit;
      while (!stack.empty()) {
        Tensor n = stack.back();
        stack.pop_back();
        if (!(n == t) && role[&n.node()] != Role::inlined) {
          if (!loaded[&n.node()]) {
            loaded[&n.node()] = true;
            k.loads.push_back(n);
          }
          continue;
        }
        k.inlined.insert(&n.node());
        const auto& ins = n.node().inputs;
        for (auto in = ins.rbegin(); in != ins.rend(); ++in) stack.push_back(*in);
      }
      step.kernel = static_cast<int>(plan.kernels.size());
      plan.kernels.push_back(std::move(k));
    }
    plan.steps.push_back(step);
  }
  schedule_early_host_calls(plan);
  return plan;
}

}  // namespace symx::codegen

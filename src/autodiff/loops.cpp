// Gradients of control flow. A loop node has several results (its parts), so autodiff collects the
// cotangents of all its parts and calls loop_vjp once per node.
//
// scan: backpropagation through time as a reverse scan. The backward body is the VJP of the forward
// body, carrying the cotangents of the carries and accumulating those of the invariants (weights);
// its outputs are the cotangents of the sequences' slices. The forward values the backward body
// reads (residuals: the carry entering each step, intermediate values such as an LSTM's gates)
// are saved by the forward scan as extra stacked outputs: the forward node is rebuilt with them
// appended (the same lineage, so passes::merge_loops keeps one node computing both). With
// checkpoint=True only the carries are saved and the backward body recomputes the rest.
// switch: a switch over the branches' VJPs (only the branch taken runs, so the other's NaN never
// reaches the gradient). while_loop: no reverse-mode gradient, as in JAX.
#include "autodiff/loops.hpp"

#include <unordered_set>

#include "ops/control_flow.hpp"
#include "ops/op_table.hpp"
#include "symx/autodiff.hpp"
#include "symx/graph.hpp"
#include "symx/ops.hpp"

namespace symx::detail {
namespace {

using ops::region_param;

bool floating(const Tensor& t) { return is_inexact(t.dtype()); }

std::vector<Tensor> slice_of(const std::vector<Tensor>& v, std::size_t from, std::size_t n) {
  return {v.begin() + static_cast<std::ptrdiff_t>(from), v.begin() + static_cast<std::ptrdiff_t>(from + n)};
}

// A term of an invariant's cotangent computed after the loop from per-step values stacked along
// the steps: a product transpose(a_t) @ b_t of 2-D values (summed over t: one GEMM of the stacks
// flattened to T * rows), or a sum of v_t over some axes (summed over t too), then the linear
// views (transposes, reshapes) that wrapped it.
struct TailTerm {
  enum class Kind { product, sum } kind = Kind::product;
  std::vector<Tensor> values;    // per step: {a, b} or {v}
  std::vector<int> axes;         // sum: the axes of v summed
  Shape shape;                   // sum: its per-step result's shape (kept dims included)
  std::vector<Tensor> wrappers;  // transposes and reshapes applied to the sum, innermost first
  std::vector<std::size_t> y;    // the values' indices in scan_vjp's tail_values

  Tensor after_loop(const std::vector<Tensor>& stacks) const {
    Tensor r;
    if (kind == Kind::product) {
      const Tensor& a = stacks[0];
      const Tensor& b = stacks[1];
      const std::int64_t k = a.shape().back(), n = b.shape().back();
      r = matmul(transpose(reshape(a, {-1, k})), reshape(b, {-1, n}));
    } else {
      const Tensor& v = stacks[0];
      bool leading = true;  // the summed axes are v's first ones: one column sum of a 2-D view
      for (std::size_t i = 0; i < axes.size(); ++i) leading = leading && axes[i] == static_cast<int>(i);
      std::int64_t rest = 1;
      for (std::size_t d = axes.size() + 1; d < v.shape().size(); ++d) rest *= v.shape()[d];
      if (leading &&
          !has_symbols(Shape(v.shape().begin() + static_cast<std::ptrdiff_t>(axes.size()) + 1, v.shape().end()))) {
        r = sum(reshape(v, {-1, rest}), Axes(std::int64_t{0}));
      } else {
        std::vector<std::int64_t> over{0};
        for (int ax : axes) over.push_back(ax + 1);
        r = sum(v, Axes(over));
      }
      if (r.shape() != shape) r = reshape(r, shape);
    }
    for (const Tensor& w : wrappers)
      r = w.op() == OpKind::Transpose ? transpose(r, std::get<PermAttr>(w.node().attr).perm) : reshape(r, w.shape());
    return r;
  }
};

bool known(const Tensor& t) { return !has_symbols(t.shape()) || t.ndim() <= 2; }

// The part of `g` (a per-step contribution to an invariant's cotangent) that stays in the loop
// (undefined: none); the terms computed after it go to `terms`.
Tensor split_tail(const Tensor& g, std::vector<TailTerm>& terms) {
  const Node& n = g.node();
  if (n.op == OpKind::Add && n.inputs[0].shape() == g.shape() && n.inputs[1].shape() == g.shape()) {
    Tensor a = split_tail(n.inputs[0], terms);
    Tensor b = split_tail(n.inputs[1], terms);
    if (a.defined() && b.defined()) return a + b;
    return a.defined() ? a : b;
  }
  // Linear views: the term below, viewed the same way after the loop.
  if (n.op == OpKind::Transpose || n.op == OpKind::Reshape) {
    std::vector<TailTerm> below;
    if (split_tail(n.inputs[0], below).defined() || below.size() != 1) return g;
    below[0].wrappers.push_back(g);
    terms.push_back(std::move(below[0]));
    return Tensor();
  }
  if (n.op == OpKind::Matmul && g.ndim() == 2) {
    const Tensor& a = n.inputs[0];
    const Tensor& b = n.inputs[1];
    if (a.op() == OpKind::Transpose && a.ndim() == 2 && b.ndim() == 2 && known(a) && known(b)) {
      TailTerm t;
      t.values = {a.node().inputs[0], b};
      terms.push_back(std::move(t));
      return Tensor();
    }
  }
  if (n.op == OpKind::Sum) {
    const auto& r = std::get<ReduceAttr>(n.attr);
    if (!r.axes.empty() && !has_symbols(g.shape())) {
      TailTerm t;
      t.kind = TailTerm::Kind::sum;
      t.values = {n.inputs[0]};
      t.axes = r.axes;
      t.shape = g.shape();
      terms.push_back(std::move(t));
      return Tensor();
    }
  }
  return g;
}

std::vector<Tensor> scan_vjp(const Tensor& node, const std::vector<Tensor>& ct) {
  const LoopSpec& F = ops::loop_spec(node);
  const auto& inputs = node.node().inputs;
  const auto nc = static_cast<std::size_t>(F.carries), ns = static_cast<std::size_t>(F.sequences),
             ni = static_cast<std::size_t>(F.invariants);
  const Region& body = F.regions[0];
  const std::size_t ny = body.results.size() - nc;
  const std::vector<Tensor> Pc = slice_of(body.params, 0, nc), Px = slice_of(body.params, nc, ns),
                            Pn = slice_of(body.params, nc + ns, ni);
  const std::vector<Tensor> Rc = slice_of(body.results, 0, nc), Ry = slice_of(body.results, nc, ny);

  // The backward body's params: the cotangents of the float carries (its carries), of the outputs
  // that have one (slices), and the accumulators of the float invariants (carries).
  std::vector<std::size_t> fc, fy, fx, fn;
  for (std::size_t k = 0; k < nc; ++k)
    if (floating(Pc[k])) fc.push_back(k);
  for (std::size_t k = 0; k < ny; ++k)
    if (ct[nc + k].defined() && floating(Ry[k])) fy.push_back(k);
  for (std::size_t j = 0; j < ns; ++j)
    if (floating(Px[j])) fx.push_back(j);
  for (std::size_t j = 0; j < ni; ++j)
    if (floating(Pn[j])) fn.push_back(j);
  std::vector<Tensor> d_carry, d_y, acc;
  std::vector<Tensor> outs, cts, wrt;
  for (std::size_t k : fc) {
    d_carry.push_back(region_param(Pc[k].type(), "d" + F.carry_names[k]));
    outs.push_back(Rc[k]);
    cts.push_back(d_carry.back());
  }
  for (std::size_t k : fy) {
    d_y.push_back(region_param(Ry[k].type(), "dy" + std::to_string(k)));
    outs.push_back(Ry[k]);
    cts.push_back(d_y.back());
  }
  for (std::size_t k : fc) wrt.push_back(Pc[k]);
  for (std::size_t j : fx) wrt.push_back(Px[j]);
  for (std::size_t j : fn) wrt.push_back(Pn[j]);
  std::vector<Tensor> g = outs.empty() ? std::vector<Tensor>{} : vjp(outs, wrt, cts);
  if (outs.empty())
    for (const Tensor& w : wrt) g.push_back(zeros(w.shape(), w.dtype()));
  // The cotangent of an invariant is a sum over the steps. Its terms that are a product of two
  // per-step values (a weight's h_t^T dgates_t) or a batch sum (a bias's) are computed after the
  // loop from those values stacked, as one GEMM over every step (T * batch rows) instead of T
  // small ones and T accumulations; what remains is accumulated in a carry.
  std::vector<std::vector<TailTerm>> tails(fn.size());
  std::vector<Tensor> rest(fn.size());
  for (std::size_t j = 0; j < fn.size(); ++j) rest[j] = split_tail(g[fc.size() + fx.size() + j], tails[j]);
  std::vector<Tensor> results(g.begin(), g.begin() + static_cast<std::ptrdiff_t>(fc.size()));
  std::vector<std::size_t> accumulated;  // invariants (indices into fn) with a carry
  for (std::size_t j = 0; j < fn.size(); ++j) {
    if (!rest[j].defined()) continue;
    accumulated.push_back(j);
    acc.push_back(region_param(Pn[fn[j]].type(), "d" + Pn[fn[j]].label()));
    results.push_back(acc.back() + rest[j]);
  }
  for (std::size_t j = 0; j < fx.size(); ++j) results.push_back(g[fc.size() + j]);
  // The tails' per-step values: kept apart until the residuals are known (a value that is a saved
  // residual, an entering carry or a slice is read from its stack, not written again).
  std::vector<Tensor> tail_values;
  for (auto& terms : tails)
    for (TailTerm& term : terms)
      for (const Tensor& v : term.values) {
        term.y.push_back(tail_values.size());
        tail_values.push_back(v);
      }

  // Residuals: the forward body's values that backward nodes read. Those that vary per step (they
  // depend on a carry or a slice) are saved; the params stay params (carries entering each step
  // are saved as well, slices are the sequences, invariants the invariants).
  std::unordered_set<const Node*> forward;
  for (const Tensor& t : topological_order(body.results)) forward.insert(&t.node());
  std::unordered_set<const Node*> params;
  for (const Tensor& p : body.params) params.insert(&p.node());
  std::unordered_set<const Node*> varying;
  {
    std::vector<Tensor> per_step = Pc;
    per_step.insert(per_step.end(), Px.begin(), Px.end());
    for (const Tensor& p : per_step) varying.insert(&p.node());
    for (const Tensor& t : topological_order(body.results))
      for (const Tensor& in : t.node().inputs)
        if (varying.count(&in.node())) varying.insert(&t.node());
  }
  std::vector<Tensor> residuals;
  if (!F.checkpoint) {
    std::unordered_set<const Node*> seen;
    auto need = [&](const Tensor& t) {
      const Node* n = &t.node();
      if (forward.count(n) && !params.count(n) && varying.count(n) && seen.insert(n).second) residuals.push_back(t);
    };
    std::vector<Tensor> all = results;
    all.insert(all.end(), tail_values.begin(), tail_values.end());
    for (const Tensor& t : topological_order(all)) {
      if (forward.count(&t.node())) continue;
      for (const Tensor& in : t.node().inputs) need(in);
    }
    for (const Tensor& r : all) need(r);
  }
  std::unordered_map<const Node*, Tensor> with;
  std::vector<Tensor> residual_params;
  for (const Tensor& r : residuals) {
    residual_params.push_back(region_param(r.type(), r.label()));
    with.emplace(&r.node(), residual_params.back());
  }
  results = ops::replace_nodes(results, with);
  tail_values = ops::replace_nodes(tail_values, with);
  std::unordered_set<const Node*> read;  // what the backward body may read (tail values are outputs too)
  {
    std::vector<Tensor> all = results;
    all.insert(all.end(), tail_values.begin(), tail_values.end());
    for (const Tensor& t : topological_order(all)) read.insert(&t.node());
  }
  std::vector<std::size_t> carry_in;  // carries whose value entering each step the backward body reads
  for (std::size_t k = 0; k < nc; ++k)
    if (read.count(&Pc[k].node())) carry_in.push_back(k);

  // The forward scan with the residuals and entering carries as extra outputs.
  std::vector<Tensor> stacks;
  if (!residuals.empty() || !carry_in.empty()) {
    LoopSpec extended = F;
    extended.traced = nullptr;  // clone() must not rebuild it from the user's spec (it has more results)
    Region& fb = extended.regions[0];
    fb.results.insert(fb.results.end(), residuals.begin(), residuals.end());
    for (std::size_t k : carry_in) fb.results.push_back(Pc[k]);
    extended.lineage.push_back(ops::next_lineage_id());
    std::vector<Tensor> parts = ops::make_loop_node(std::move(extended), inputs, false);
    stacks.assign(parts.begin() + static_cast<std::ptrdiff_t>(nc + ny), parts.end());
  }

  // Where each tail value's stack comes from: a stack that exists already (a saved residual, the
  // entering carries, a sequence), an output of the backward scan that is the same node (the gate
  // gradients are also the cotangent of a hoisted x_t @ W), or a new output.
  std::vector<Tensor> tail_stack(tail_values.size());
  std::vector<std::size_t> tail_y(tail_values.size(), 0);
  const std::size_t first_y_result = fc.size() + accumulated.size();
  for (std::size_t v = 0; v < tail_values.size(); ++v) {
    const Node* n = &tail_values[v].node();
    for (std::size_t r = 0; r < residual_params.size() && !tail_stack[v].defined(); ++r)
      if (&residual_params[r].node() == n) tail_stack[v] = stacks[r];
    for (std::size_t i = 0; i < carry_in.size() && !tail_stack[v].defined(); ++i)
      if (&Pc[carry_in[i]].node() == n) tail_stack[v] = stacks[residuals.size() + i];
    for (std::size_t j = 0; j < ns && !tail_stack[v].defined(); ++j)
      if (&Px[j].node() == n) tail_stack[v] = inputs[nc + j];
    if (tail_stack[v].defined()) continue;
    std::size_t at = results.size();
    for (std::size_t r = first_y_result; r < results.size(); ++r)
      if (&results[r].node() == n) at = r;
    if (at == results.size()) results.push_back(tail_values[v]);
    tail_y[v] = at - first_y_result;
  }

  // The backward scan.
  LoopSpec B;
  B.kind = LoopSpec::Kind::scan;
  B.name = F.name;
  B.length = F.length;
  B.reverse = !F.reverse;
  B.checkpoint = F.checkpoint;
  Region& bb = B.regions.emplace_back();
  std::vector<Tensor> b_inputs;
  for (std::size_t i = 0; i < fc.size(); ++i) {
    const std::size_t k = fc[i];
    bb.params.push_back(d_carry[i]);
    b_inputs.push_back(ct[k].defined() ? ct[k] : zeros(Pc[k].shape(), Pc[k].dtype()));
    B.carry_names.push_back("d" + F.carry_names[k]);
  }
  for (std::size_t a = 0; a < accumulated.size(); ++a) {
    const std::size_t j = accumulated[a];
    bb.params.push_back(acc[a]);
    b_inputs.push_back(zeros(Pn[fn[j]].shape(), Pn[fn[j]].dtype()));
    B.carry_names.push_back(acc[a].name());
  }
  B.carries = static_cast<int>(bb.params.size());
  for (std::size_t i = 0; i < fy.size(); ++i) {
    bb.params.push_back(d_y[i]);
    b_inputs.push_back(ct[nc + fy[i]]);
  }
  for (std::size_t r = 0; r < residuals.size(); ++r) {
    bb.params.push_back(residual_params[r]);
    b_inputs.push_back(stacks[r]);
  }
  for (std::size_t i = 0; i < carry_in.size(); ++i) {
    bb.params.push_back(Pc[carry_in[i]]);
    b_inputs.push_back(stacks[residuals.size() + i]);
  }
  for (std::size_t j = 0; j < ns; ++j)
    if (read.count(&Px[j].node())) {
      bb.params.push_back(Px[j]);
      b_inputs.push_back(inputs[nc + j]);
    }
  B.sequences = static_cast<int>(bb.params.size()) - B.carries;
  for (std::size_t j = 0; j < ni; ++j) {
    bb.params.push_back(Pn[j]);
    b_inputs.push_back(inputs[nc + ns + j]);
  }
  B.invariants = static_cast<int>(ni);
  bb.results = results;
  // Without sequences the backward scan still needs its length (make_loop_node keeps B.length).
  std::vector<Tensor> parts = ops::make_loop_node(std::move(B), std::move(b_inputs), true);

  std::vector<Tensor> out(inputs.size());
  for (std::size_t i = 0; i < fc.size(); ++i) out[fc[i]] = parts[i];
  for (std::size_t a = 0; a < accumulated.size(); ++a) out[nc + ns + fn[accumulated[a]]] = parts[fc.size() + a];
  const std::size_t first_y = fc.size() + accumulated.size();
  for (std::size_t j = 0; j < fx.size(); ++j) out[nc + fx[j]] = parts[first_y + j];
  for (std::size_t j = 0; j < fn.size(); ++j)
    for (const TailTerm& term : tails[j]) {
      std::vector<Tensor> stacks_of_term;
      for (std::size_t v : term.y)
        stacks_of_term.push_back(tail_stack[v].defined() ? tail_stack[v] : parts[first_y + tail_y[v]]);
      Tensor v = term.after_loop(stacks_of_term);
      Tensor& slot = out[nc + ns + fn[j]];
      slot = slot.defined() ? slot + v : v;
    }
  return out;
}

std::vector<Tensor> switch_vjp(const Tensor& node, const std::vector<Tensor>& ct) {
  const LoopSpec& S = ops::loop_spec(node);
  const auto& inputs = node.node().inputs;
  const std::size_t n_args = inputs.size() - 1;  // operands and invariants, after the index
  std::vector<std::size_t> fa, fr;
  for (std::size_t k = 0; k < n_args; ++k)
    if (floating(inputs[k + 1])) fa.push_back(k);
  for (std::size_t k = 0; k < S.result_types.size(); ++k)
    if (ct[k].defined() && is_floating(S.result_types[k].dtype)) fr.push_back(k);
  LoopSpec G;
  G.kind = LoopSpec::Kind::switch_;
  G.name = S.name;
  std::vector<Tensor> g_inputs{inputs[0]};
  for (std::size_t k = 0; k < n_args; ++k) g_inputs.push_back(inputs[k + 1]);
  for (std::size_t k : fr) g_inputs.push_back(ct[k]);
  G.operands = static_cast<int>(g_inputs.size()) - 1;
  for (const Region& branch : S.regions) {
    Region& r = G.regions.emplace_back();
    r.params = branch.params;
    std::vector<Tensor> outs, cts, wrt;
    for (std::size_t k : fr) {
      cts.push_back(region_param(S.result_types[k], "d" + std::to_string(k)));
      r.params.push_back(cts.back());
      outs.push_back(branch.results[k]);
    }
    for (std::size_t k : fa) wrt.push_back(branch.params[k]);
    if (outs.empty()) {
      for (const Tensor& w : wrt) r.results.push_back(zeros(w.shape(), w.dtype()));
    } else {
      r.results = vjp(outs, wrt, cts);
    }
  }
  if (fa.empty()) return std::vector<Tensor>(inputs.size());
  std::vector<Tensor> parts = ops::make_loop_node(std::move(G), std::move(g_inputs), true);
  std::vector<Tensor> out(inputs.size());
  for (std::size_t i = 0; i < fa.size(); ++i) out[fa[i] + 1] = parts[i];
  return out;
}

}  // namespace

std::vector<Tensor> loop_vjp(const Tensor& node, const std::vector<Tensor>& part_cotangents) {
  const LoopSpec& spec = ops::loop_spec(node);
  switch (spec.kind) {
    case LoopSpec::Kind::scan: return scan_vjp(node, part_cotangents);
    case LoopSpec::Kind::switch_: return switch_vjp(node, part_cotangents);
    case LoopSpec::Kind::while_loop: break;
  }
  throw ValueError("grad: the gradient flows through a while_loop ('" + node.label() + "'" +
                   (node.node().where.empty() ? "" : ", built at " + node.node().where) +
                   "), which has no reverse-mode gradient: its number of iterations is known only when it runs (as in "
                   "JAX). Use fori_loop with integer bounds or scan with a length (both differentiable), or wrap the "
                   "loop's inputs in stop_gradient.");
}

}  // namespace symx::detail

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

bool floating(const Tensor& t) { return is_floating(t.dtype()); }

std::vector<Tensor> slice_of(const std::vector<Tensor>& v, std::size_t from, std::size_t n) {
  return {v.begin() + static_cast<std::ptrdiff_t>(from), v.begin() + static_cast<std::ptrdiff_t>(from + n)};
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
  std::vector<Tensor> results(g.begin(), g.begin() + static_cast<std::ptrdiff_t>(fc.size()));
  for (std::size_t j = 0; j < fn.size(); ++j) {
    acc.push_back(region_param(Pn[fn[j]].type(), "d" + Pn[fn[j]].label()));
    results.push_back(acc.back() + g[fc.size() + fx.size() + j]);
  }
  for (std::size_t j = 0; j < fx.size(); ++j) results.push_back(g[fc.size() + j]);

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
    for (const Tensor& t : topological_order(results)) {
      if (forward.count(&t.node())) continue;
      for (const Tensor& in : t.node().inputs) need(in);
    }
    for (const Tensor& r : results) need(r);
  }
  std::unordered_map<const Node*, Tensor> with;
  std::vector<Tensor> residual_params;
  for (const Tensor& r : residuals) {
    residual_params.push_back(region_param(r.type(), r.label()));
    with.emplace(&r.node(), residual_params.back());
  }
  results = ops::replace_nodes(results, with);
  std::unordered_set<const Node*> read;
  for (const Tensor& t : topological_order(results)) read.insert(&t.node());
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
  for (std::size_t j = 0; j < fn.size(); ++j) {
    bb.params.push_back(acc[j]);
    b_inputs.push_back(zeros(Pn[fn[j]].shape(), Pn[fn[j]].dtype()));
    B.carry_names.push_back(acc[j].name());
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
  for (std::size_t j = 0; j < fn.size(); ++j) out[nc + ns + fn[j]] = parts[fc.size() + j];
  const std::size_t first_y = fc.size() + fn.size();
  for (std::size_t j = 0; j < fx.size(); ++j) out[nc + fx[j]] = parts[first_y + j];
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

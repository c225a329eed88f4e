// Reverse-mode differentiation over the op table's vector-Jacobian rules.
#include "symx/autodiff.hpp"

#include <unordered_map>
#include <unordered_set>

#include "autodiff/loops.hpp"
#include "ops/control_flow.hpp"
#include "ops/op_table.hpp"
#include "symx/graph.hpp"
#include "symx/ops.hpp"

namespace symx {
namespace {

// Floating and complex values carry gradients (complex ones by JAX's convention, symx/ops.hpp).
bool differentiable(DType dtype) { return is_inexact(dtype); }

}  // namespace

std::vector<Tensor> vjp(const std::vector<Tensor>& outputs, const std::vector<Tensor>& wrt,
                        const std::vector<Tensor>& cotangents, Loc loc) {
  if (outputs.size() != cotangents.size())
    ops::raise("vjp", {},
               {ops::TypeProblem::Kind::value,
                std::to_string(outputs.size()) + " outputs but " + std::to_string(cotangents.size()) + " cotangents",
                "Pass one cotangent per output."},
               loc);
  std::unordered_map<const Node*, Tensor> adjoint;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& y = outputs[i];
    const Tensor& c = cotangents[i];
    if (!shapes_match(c.shape(), y.shape()))
      ops::raise("vjp", {y, c},
                 {ops::TypeProblem::Kind::shape,
                  "cotangent " + std::to_string(i) + " has shape " + shape_string(c.shape()) +
                      " but its output has shape " + shape_string(y.shape()),
                  "Give each cotangent its output's shape."},
                 loc);
    if (!differentiable(y.dtype())) continue;
    Tensor ct = c.dtype() == y.dtype() ? c : cast(c, y.dtype());
    auto [it, inserted] = adjoint.emplace(&y.node(), ct);
    if (!inserted) it->second = it->second + ct;
  }
  // The cotangents of each loop node's parts (its results), gathered for one loop_vjp per node.
  std::unordered_map<const Node*, std::vector<Tensor>> part_adjoints;
  auto order = topological_order(outputs);
  // Only nodes with a path to `wrt` pass cotangents on: the others' rules are never built (a
  // while_loop, a host call without a vjp or the cotangent of a data input that nothing asks for).
  std::unordered_set<const Node*> leads;
  for (const Tensor& x : wrt) leads.insert(&x.node());
  for (const Tensor& t : order)
    for (const Tensor& in : t.node().inputs)
      if (leads.count(&in.node())) {
        leads.insert(&t.node());
        break;
      }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Tensor& node = *it;
    if (!leads.count(&node.node())) continue;
    const auto& inputs = node.node().inputs;
    std::vector<Tensor> input_cotangents;
    if (node.op() == OpKind::Part) {
      auto found = adjoint.find(&node.node());
      if (found == adjoint.end()) continue;
      const Tensor& loop = inputs[0];
      auto& slots = part_adjoints[&loop.node()];
      slots.resize(ops::loop_spec(loop).result_types.size());
      slots[static_cast<std::size_t>(std::get<PartAttr>(node.node().attr).index)] = found->second;
      continue;
    }
    if (ops::is_loop(node.op())) {
      auto found = part_adjoints.find(&node.node());
      if (found == part_adjoints.end()) continue;
      input_cotangents = detail::loop_vjp(node, found->second);
    } else {
      auto found = adjoint.find(&node.node());
      if (found == adjoint.end()) continue;
      if (inputs.empty()) continue;
      input_cotangents = ops::op_def(node.op()).vjp(node, found->second);
    }
    check_internal(input_cotangents.size() == inputs.size(), "vjp rule returned the wrong number of cotangents");
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const Tensor& in = inputs[k];
      Tensor g = input_cotangents[k];
      if (!g.defined() || !differentiable(in.dtype())) continue;
      check_internal(shapes_match(g.shape(), in.shape()), "vjp rule returned a cotangent of the wrong shape");
      if (g.dtype() != in.dtype()) g = cast(g, in.dtype());
      auto [slot, inserted] = adjoint.emplace(&in.node(), g);
      if (!inserted) slot->second = slot->second + g;
    }
  }
  std::vector<Tensor> result;
  for (const Tensor& x : wrt) {
    auto found = adjoint.find(&x.node());
    result.push_back(found != adjoint.end() ? found->second : zeros(x.shape(), x.dtype(), loc));
  }
  return result;
}

std::vector<Tensor> grad(const Tensor& cost, const std::vector<Tensor>& wrt, Loc loc) {
  if (cost.ndim() != 0)
    ops::raise("grad", {cost},
               {ops::TypeProblem::Kind::shape,
                "the cost '" + cost.label() + "' has shape " + shape_string(cost.shape()) + " but must be a scalar",
                "Reduce it first, e.g. grad(mean(cost), wrt), or use vjp/jacobian for non-scalar outputs."},
               loc);
  if (is_complex(cost.dtype()))
    ops::raise("grad", {cost},
               {ops::TypeProblem::Kind::dtype,
                "the cost has dtype " + std::string(dtype_name(cost.dtype())) + "; grad needs a real cost",
                "Differentiate a real function of it: abs(cost), real(cost) or abs(cost)**2 (for a complex output "
                "use vjp with a complex cotangent)."},
               loc);
  if (!is_floating(cost.dtype()))
    ops::raise("grad", {cost},
               {ops::TypeProblem::Kind::dtype,
                "the cost has dtype " + std::string(dtype_name(cost.dtype())) + ", which has no gradient",
                "Differentiate a floating-point cost (cast it with astype(float32))."},
               loc);
  return vjp({cost}, wrt, {ones({}, cost.dtype(), loc)}, loc);
}

Tensor jacobian(const Tensor& y, const Tensor& x, Loc loc) {
  // One vjp per element of y: the element count must be known when the graph is built.
  for (const Tensor& t : {y, x})
    if (has_symbols(t.shape()))
      ops::raise("jacobian", {y, x},
                 {ops::TypeProblem::Kind::shape, "'" + t.label() + "' has a size unknown until a call (None)",
                  "The Jacobian has one row per element of y, so both shapes must be known: use placeholders "
                  "of fixed size, or vjp/grad, which take any batch size."},
                 loc);
  Tensor flat = reshape(y, {y.size()}, loc);
  std::vector<Tensor> rows;
  rows.reserve(static_cast<std::size_t>(y.size()));
  for (std::int64_t i = 0; i < y.size(); ++i) {
    Array e = Array::zeros({y.size()}, y.dtype());
    e.set_flat(i, 1);
    rows.push_back(vjp({flat}, {x}, {constant(e, loc)}, loc)[0]);
  }
  Shape shape = y.shape();
  shape.insert(shape.end(), x.shape().begin(), x.shape().end());
  if (rows.empty()) return zeros(shape, x.dtype(), loc);
  return reshape(stack(rows, 0, loc), shape, loc);
}

Tensor hessian(const Tensor& cost, const Tensor& x, Loc loc) { return jacobian(grad(cost, {x}, loc)[0], x, loc); }

}  // namespace symx

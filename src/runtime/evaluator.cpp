#include "runtime/evaluator.hpp"

#include <algorithm>
#include <unordered_map>

#include "ops/op_table.hpp"
#include "runtime/variable_locks.hpp"
#include "symx/function.hpp"

namespace symx::runtime {
namespace {

bool is_random(OpKind op) {
  switch (op) {
    case OpKind::RandomUniform:
    case OpKind::RandomNormal:
    case OpKind::RandomTruncatedNormal:
    case OpKind::RandomBernoulli:
    case OpKind::RandomRandint:
    case OpKind::RandomPermutation: return true;
    default: return false;
  }
}

}  // namespace

void check_feed_value(const Tensor& p, const Array& value, const char* context) {
  if (value.shape() != p.shape() || value.dtype() != p.dtype())
    throw ValueError(std::string(context) + ": placeholder '" + p.label() + "' expects " +
                     shape_string(p.shape()) + " " + std::string(dtype_name(p.dtype())) +
                     " but received " + shape_string(value.shape()) + " " +
                     std::string(dtype_name(value.dtype())) +
                     ". Pass an array of that shape and dtype (convert with astype or reshape).");
}

std::vector<Array> evaluate(const std::vector<Tensor>& outputs, const Feed& feed, const char* context) {
  std::unordered_map<const Node*, Array> values;
  for (const auto& [p, value] : feed) {
    if (p.op() != OpKind::Placeholder)
      throw ValueError(std::string(context) + ": the feed gives a value for '" + p.label() + "', a " +
                       op_name(p.op()) + "; only placeholders can be fed. Use clone() to replace other nodes.");
    check_feed_value(p, value, context);
    values[&p.node()] = value;
  }
  for (const Tensor& t : topological_order(outputs)) {
    const Node& node = t.node();
    if (values.count(&node)) continue;
    switch (node.op) {
      case OpKind::Placeholder:
        throw ValueError(std::string(context) + ": placeholder '" + t.label() + "' (" +
                         shape_string(t.shape()) + " " + std::string(dtype_name(t.dtype())) +
                         ") has no value. Add it to the feed, e.g. {" + t.label() + ", array}.");
      case OpKind::Variable: values[&node] = node.variable->value; break;
      default: {
        std::vector<Array> inputs;
        inputs.reserve(node.inputs.size());
        for (const auto& in : node.inputs) inputs.push_back(values.at(&in.node()));
        Array out = ops::op_def(node.op).evaluate({node, inputs});
        check_internal(out.shape() == node.type.shape && out.dtype() == node.type.dtype,
                       "evaluate: an op's result does not match its inferred type");
        values[&node] = std::move(out);
      }
    }
  }
  std::vector<Array> result;
  result.reserve(outputs.size());
  for (const auto& t : outputs) result.push_back(values.at(&t.node()));
  return result;
}

std::vector<Tensor> random_states(const std::vector<Tensor>& outputs) {
  std::vector<Tensor> states;
  for (const Tensor& t : topological_order(outputs)) {
    if (!is_random(t.op())) continue;
    const Tensor& state = t.node().inputs[0];
    if (std::find(states.begin(), states.end(), state) == states.end()) states.push_back(state);
  }
  return states;
}

std::vector<VariableAccess> variable_accesses(const std::vector<Tensor>& roots, const std::vector<Tensor>& written) {
  std::vector<VariableAccess> accesses;
  for (const Tensor& t : written) accesses.push_back({t.node().variable.get(), true});
  for (const Tensor& t : topological_order(roots))
    if (t.op() == OpKind::Variable) accesses.push_back({t.node().variable.get(), false});
  // Sorted by address with writes first among equals, so that `unique` keeps the write.
  std::sort(accesses.begin(), accesses.end(), [](const VariableAccess& a, const VariableAccess& b) {
    return a.state != b.state ? std::less<VariableState*>()(a.state, b.state) : a.write > b.write;
  });
  accesses.erase(std::unique(accesses.begin(), accesses.end(), [](const VariableAccess& a, const VariableAccess& b) { return a.state == b.state; }),
                 accesses.end());
  return accesses;
}

void advance_random_states(const std::vector<Tensor>& states) {
  for (const Tensor& state : states) {
    Array& value = state.node().variable->value;
    value = Array::scalar<std::int64_t>(value.item<std::int64_t>() + 1);  // a fresh buffer: a held value never changes
  }
}

std::vector<Array> evaluate_and_advance(const std::vector<Tensor>& outputs, const Feed& feed) {
  // The same locks as a function call, so that eval() sees no half-written update.
  std::vector<Tensor> states = random_states(outputs);
  std::vector<VariableAccess> accesses = variable_accesses(outputs, states);
  VariableLocks locks(accesses);
  auto result = evaluate(outputs, feed);
  advance_random_states(states);
  return result;
}

}  // namespace symx::runtime

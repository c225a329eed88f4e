#include "runtime/evaluator.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "ops/op_table.hpp"
#include "runtime/variable_locks.hpp"
#include "symx/graph.hpp"

namespace symx::runtime {
namespace {

// The C++ constant of a dtype, for messages that show a conversion.
const char* cpp_dtype_name(DType dtype) {
  switch (dtype) {
    case DType::b8: return "bool_";
    case DType::u8: return "u8";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::c64: return "c64";
    case DType::c128: return "c128";
  }
  return "f32";
}

}  // namespace

namespace {

std::string expects(const Tensor& p, const Array& value, const char* context) {
  return std::string(context) + ": placeholder '" + p.label() + "' expects " + shape_string(p.shape()) + " " +
         std::string(dtype_name(p.dtype())) + " but received " + shape_string(value.shape()) + " " +
         std::string(dtype_name(value.dtype()));
}

// A size of 0 is an empty axis, not an unknown one: a user who wrote placeholder((0, 2)) for a batch
// of any size meant None.
std::string zero_size_hint(const Tensor& p, const Array& value) {
  const Shape& want = p.shape();
  if (want.size() != static_cast<std::size_t>(value.ndim())) return "";
  for (std::size_t i = 0; i < want.size(); ++i)
    if (want[i] == 0 && value.shape()[i] != 0)
      return " A size of 0 is an empty axis; for a size known only at call time (a batch of any size) write None "
             "in Python, kDynamic in C++: placeholder(" +
             shape_string([&] {
               Shape s = want;
               s[i] = new_symbol();
               return s;
             }()) +
             ").";
  return "";
}

// Whether converting `value` to `dtype` keeps every value (an integer downcast that fits).
bool round_trips(const Array& value, DType dtype) {
  Array back = value.astype(dtype).astype(value.dtype());
  return std::memcmp(back.raw_data(), value.raw_data(), static_cast<std::size_t>(value.nbytes())) == 0;
}

}  // namespace

bool check_feed_dtype(const Tensor& p, const Array& value, const char* context, Downcast downcast) {
  if (value.dtype() == p.dtype()) return true;
  if (promote_types(value.dtype(), p.dtype()) == p.dtype()) return false;
  const std::string name(dtype_name(p.dtype()));
  const bool into_float = is_floating(p.dtype());
  const bool int_to_int = !is_floating(value.dtype()) && !into_float && p.dtype() != DType::b8;
  if (downcast == Downcast::allow && into_float) return false;
  if (downcast == Downcast::allow && int_to_int) {
    if (round_trips(value, p.dtype())) return false;
    throw DTypeError(expects(p, value, context) + ": some of its values do not fit " + name +
                     ", so even allow_input_downcast does not convert it. Give the placeholder the data's dtype.");
  }
  std::string fix = ". Convert it yourself if that is what you want: array.astype(numpy." +
                    (p.dtype() == DType::b8 ? std::string("bool_") : name) +
                    ") in Python, array.astype(symx::" + cpp_dtype_name(p.dtype()) + ") in C++";
  if (downcast == Downcast::refuse_function && (into_float || int_to_int))
    fix +=
        "; or make the function with allow_input_downcast=True (Python), FunctionOptions{.allow_input_downcast = "
        "true} (C++), as Theano's, to convert such inputs on every call";
  throw DTypeError(expects(p, value, context) + ", which does not convert to " + name + " without loss" + fix +
                   "; or give the placeholder the data's dtype.");
}

bool check_feed_value(const Tensor& p, const Array& value, const char* context, Downcast downcast) {
  if (value.shape() == p.shape() && value.dtype() == p.dtype()) return true;  // every call: no message built
  if (value.shape() != p.shape())
    throw ShapeError(expects(p, value, context) + ". Pass an array of shape " + shape_string(p.shape()) +
                     " (reshape it, or make the placeholder's shape match the data)." + zero_size_hint(p, value));
  return check_feed_dtype(p, value, context, downcast);
}

Array feed_value(const Tensor& p, const Array& value, const char* context, Downcast downcast) {
  return check_feed_value(p, value, context, downcast) ? value : value.astype(p.dtype());
}

std::vector<Array> evaluate(const std::vector<Tensor>& outputs, const Feed& feed, const char* context) {
  std::unordered_map<const Node*, Array> values;
  for (const auto& [p, value] : feed) {
    if (p.op() != OpKind::Placeholder)
      throw ValueError(std::string(context) + ": the feed gives a value for '" + p.label() + "', a " + op_name(p.op()) +
                       "; only placeholders can be fed. Use clone() to replace other nodes.");
    values[&p.node()] = feed_value(p, value, context);
  }
  for (const Tensor& t : topological_order(outputs)) {
    const Node& node = t.node();
    if (values.count(&node)) continue;
    // Placeholders take the feed's value and variables their current one; every other op (constants
    // included) computes its value with its row's reference evaluation.
    if (node.op == OpKind::Placeholder)
      throw ValueError(std::string(context) + ": placeholder '" + t.label() + "' (" + shape_string(t.shape()) + " " +
                       std::string(dtype_name(t.dtype())) + ") has no value. Add it to the feed: {" + t.label() +
                       ": array} in Python, {{" + t.label() + ", array}} in C++.");
    if (node.op == OpKind::Variable) {
      values[&node] = node.variable->value;
      continue;
    }
    std::vector<Array> inputs;
    inputs.reserve(node.inputs.size());
    for (const auto& in : node.inputs) inputs.push_back(values.at(&in.node()));
    Array out = ops::op_def(node.op).evaluate({node, inputs});
    check_internal(out.shape() == node.type.shape && out.dtype() == node.type.dtype,
                   "evaluate: an op's result does not match its inferred type");
    values[&node] = std::move(out);
  }
  std::vector<Array> result;
  result.reserve(outputs.size());
  for (const auto& t : outputs) result.push_back(values.at(&t.node()));
  return result;
}

std::vector<Tensor> random_states(const std::vector<Tensor>& outputs) {
  std::vector<Tensor> states;
  for (const Tensor& t : topological_order(outputs)) {
    if (!ops::op_def(t.op()).random()) continue;
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
  accesses.erase(std::unique(accesses.begin(), accesses.end(),
                             [](const VariableAccess& a, const VariableAccess& b) { return a.state == b.state; }),
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

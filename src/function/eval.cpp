// Tensor::eval (declared in symx/tensor.hpp): evaluation with the reference evaluator, after
// specializing a graph with unknown sizes to the fed shapes as a function call does.
#include <algorithm>

#include "function/specialize.hpp"
#include "runtime/evaluator.hpp"
#include "symx/graph.hpp"
#include "symx/tensor.hpp"

namespace symx {

Array Tensor::eval(const Feed& feed) const {
  for (const auto& [p, value] : feed) {
    if (p.op() != OpKind::Placeholder)
      throw ValueError("eval: the feed gives a value for '" + p.label() + "', a " + std::string(op_name(p.op())) +
                       (p.node().where.empty() ? std::string() : " made at " + p.node().where) +
                       "; only placeholders can be fed. To compute with another value of a variable, assign it "
                       "first (v.assign(value)); to put another tensor in a node's place, use clone(outputs, "
                       "{node: replacement}) and evaluate the copy.");
    // A placeholder of unknown sizes: its dtype checked here, so that a refusal shows it as made ((None, 2)).
    if (detail::is_dynamic(p)) runtime::check_feed_dtype(p, value, "eval");
  }
  bool dynamic = std::any_of(feed.begin(), feed.end(), [](const auto& f) { return detail::is_dynamic(f.first); });
  if (!dynamic) return runtime::evaluate_and_advance({*this}, feed)[0];
  // Placeholders of unknown sizes: the graph specialized to the fed shapes, as a function call does.
  std::vector<std::pair<Tensor, Shape>> given;
  for (const auto& [p, value] : feed) {
    if (detail::is_dynamic(p)) detail::check_dynamic_input(p, value.shape(), "eval");
    given.emplace_back(p, value.shape());
  }
  detail::Specialization s = detail::specialize({*this}, given);
  Feed fixed;
  for (std::size_t i = 0; i < given.size(); ++i) fixed.emplace_back(s.placeholders[i], feed[i].second);
  return runtime::evaluate_and_advance(s.roots, fixed)[0];
}

Tensor variable(const Tensor& init, const std::string& name, bool trainable, Loc loc) {
  const std::string what = name.empty() ? std::string("variable") : "variable '" + name + "'";
  if (!init.defined()) throw ValueError(what + ": the initial value is an undefined tensor. Pass a value or a tensor.");
  for (const Tensor& t : topological_order({init}))
    if (t.op() == OpKind::Placeholder)
      throw ValueError(what + ": the initial value '" + init.label() + "' depends on placeholder '" + t.label() +
                       "', which has no value when the variable is made. Pass a value that needs no feed (an array, "
                       "or a tensor of constants, random draws and variables), or evaluate it with a feed first: "
                       "variable(init.eval({" +
                       t.label() + ": array})).");
  return variable(init.eval(), name, trainable, loc);
}

}  // namespace symx

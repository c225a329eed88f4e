// Tensor::eval (declared in symx/tensor.hpp): evaluation with the reference evaluator, after
// specializing a graph with unknown sizes to the fed shapes as a function call does.
#include <algorithm>

#include "function/specialize.hpp"
#include "runtime/evaluator.hpp"
#include "symx/tensor.hpp"

namespace symx {

Array Tensor::eval(const Feed& feed) const {
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

}  // namespace symx

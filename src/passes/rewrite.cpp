#include "passes/rewrite.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include "ops/op_table.hpp"
#include "symx/graph.hpp"

namespace symx::passes {
namespace {
thread_local std::map<std::string, int> counts;

int debug_level() {
  static const int level = [] {
    const char* env = std::getenv("SYMX_DEBUG");
    return env ? std::atoi(env) : 0;
  }();
  return level;
}
}  // namespace

void note_rule(const char* rule, const Tensor& node) {
  ++counts[rule];
  if (debug_level() >= 2)
    std::fprintf(stderr, "[symx] rewrite %s at %s#%llu\n", rule, op_name(node.op()),
                 static_cast<unsigned long long>(node.id()));
}

int rule_count(const std::string& rule) {
  auto it = counts.find(rule);
  return it == counts.end() ? 0 : it->second;
}

void reset_rule_counts() { counts.clear(); }

Roots rewrite(const Roots& roots, const std::function<Tensor(const Tensor&)>& rule) {
  std::unordered_map<const Node*, Tensor> mapped;
  for (const Tensor& t : topological_order(roots)) {
    const Node& node = t.node();
    Tensor current = t;
    if (!node.inputs.empty()) {
      std::vector<Tensor> inputs;
      bool changed = false;
      for (const auto& in : node.inputs) {
        const Tensor& m = mapped.at(&in.node());
        changed = changed || !(m == in);
        inputs.push_back(m);
      }
      if (changed) current = ops::rebuild_node(node, std::move(inputs));
    }
    Tensor replacement = rule(current);
    if (replacement.defined()) {
      check_internal(replacement.shape() == t.shape() && replacement.dtype() == t.dtype(),
                     "a rewrite rule changed a node's type");
      current = replacement;
    }
    mapped[&node] = current;
  }
  Roots result;
  for (const auto& r : roots) result.push_back(mapped.at(&r.node()));
  return result;
}

std::optional<double> uniform_constant(const Tensor& t) {
  if (t.op() == OpKind::BroadcastTo) return uniform_constant(t.node().inputs[0]);
  if (t.op() != OpKind::Constant) return std::nullopt;
  const Array& a = std::get<ConstantAttr>(t.node().attr).value;
  if (a.size() == 0 || is_complex(a.dtype())) return std::nullopt;
  double first = a.get_flat(0);
  for (std::int64_t i = 1; i < a.size(); ++i)
    if (a.get_flat(i) != first) return std::nullopt;
  return first;
}

}  // namespace symx::passes

#include "function/specialize.hpp"

#include <cerrno>
#include <cstdlib>
#include <unordered_map>

#include "ops/control_flow.hpp"
#include "ops/op_table.hpp"
#include "symx/function.hpp"

namespace symx::detail {

namespace {

using Sizes = std::unordered_map<std::int64_t, std::int64_t>;  // symbol -> the call's size

// Learns the sizes of `symbolic`'s symbols from `concrete`, the same tensor's shape once inferred
// again (or a placeholder's given shape). A symbol seen before must get the same size.
void learn(Sizes& sizes, const Shape& symbolic, const Shape& concrete, const Tensor& t) {
  for (std::size_t i = 0; i < symbolic.size() && i < concrete.size(); ++i) {
    if (!is_symbol(symbolic[i])) continue;
    auto [it, fresh] = sizes.emplace(symbolic[i], concrete[i]);
    if (!fresh && it->second != concrete[i])
      throw ShapeError("'" + t.label() + "'" + (t.node().where.empty() ? "" : " (at " + t.node().where + ")") +
                       " has size " + std::to_string(concrete[i]) + " on axis " + std::to_string(i) +
                       " in this call, but another input or "
                       "node gave the same unknown size " +
                       std::to_string(it->second) +
                       ". Inputs whose None sizes meet in "
                       "an op (a batch of x and its labels y) must have equal sizes in a call.");
  }
}

// `shape` with its symbols replaced by the call's sizes; a symbol not known yet stays.
Shape substitute(const Shape& shape, const Sizes& sizes) {
  Shape out = shape;
  for (auto& d : out)
    if (is_symbol(d))
      if (auto it = sizes.find(d); it != sizes.end()) d = it->second;
  return out;
}

// A reshape's target may hold a symbol made for its -1 axis (reshape((None, 10), -1)): the one
// size left unknown follows from the element count.
Shape solve_reshape(Shape target, const Tensor& input) {
  std::int64_t known = 1;
  std::size_t unknown = target.size();
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (is_symbol(target[i])) {
      check_internal(unknown == target.size(), "specialize: a reshape with two unknown sizes");
      unknown = i;
    } else {
      known *= target[i];
    }
  }
  if (unknown != target.size()) target[unknown] = known == 0 ? 0 : input.size() / known;
  return target;
}

// Calls f on every shape an attribute holds (targets, operand shapes kept for gradients, draw
// shapes): the one list of the places where an attribute can hold an unknown size.
template <class A, class F> void for_each_shape(A& attr, F f) {  // A: Attr or const Attr
  if (auto* a = std::get_if<ShapeAttr>(&attr)) {
    f(a->shape);
  } else if (auto* s = std::get_if<SliceAttr>(&attr)) {
    f(s->count);
    f(s->input_shape);
  } else if (auto* c = std::get_if<ConvAttr>(&attr)) {
    f(c->input_shape);
    f(c->filter_shape);
  } else if (auto* p = std::get_if<PoolAttr>(&attr)) {
    f(p->input_shape);
  } else if (auto* r = std::get_if<RandomAttr>(&attr)) {
    f(r->shape);
  }
}

Attr substitute_attr(const Node& node, const std::vector<Tensor>& inputs, const Sizes& sizes) {
  Attr attr = node.attr;
  for_each_shape(attr, [&](Shape& shape) { shape = substitute(shape, sizes); });
  if (node.op == OpKind::Reshape) {
    auto& target = std::get<ShapeAttr>(attr).shape;
    target = solve_reshape(target, inputs[0]);
  }
  return attr;
}

bool attr_has_symbols(const Attr& attr) {
  bool found = false;
  for_each_shape(attr, [&](const Shape& shape) { found = found || has_symbols(shape); });
  return found;
}

Tensor placeholder_of_shape(const Tensor& p, const Shape& shape) {
  auto node = std::make_shared<Node>(p.node());
  node->type.shape = shape;
  node->id = default_graph().next_node_id();
  return Tensor(std::move(node));
}

}  // namespace

int max_specializations(const FunctionOptions& options) {
  constexpr int kDefault = 32;
  if (options.max_specializations) {
    if (*options.max_specializations < 1)
      throw ValueError("function: max_specializations is " + std::to_string(*options.max_specializations) +
                       ". Pass 1 or more (the number of input shapes whose programs are kept).");
    return *options.max_specializations;
  }
  const char* env = std::getenv("SYMX_MAX_SPECIALIZATIONS");
  if (env == nullptr || *env == '\0') return kDefault;
  char* end = nullptr;
  errno = 0;
  long n = std::strtol(env, &end, 10);
  if (*end != '\0' || errno != 0 || n < 1 || n > 1'000'000)
    throw ValueError(std::string("function: SYMX_MAX_SPECIALIZATIONS is '") + env +
                     "'. Set it to a positive integer (the number of input shapes whose programs a function keeps), "
                     "or unset it.");
  return static_cast<int>(n);
}

void check_dynamic_input(const Tensor& p, const Shape& shape, const std::string& context) {
  bool fits = shape.size() == p.shape().size();
  for (std::size_t i = 0; fits && i < shape.size(); ++i) fits = is_symbol(p.shape()[i]) || shape[i] == p.shape()[i];
  if (!fits)
    throw ShapeError(context + ": placeholder '" + p.label() + "' expects " + shape_string(p.shape()) + " " +
                     std::string(dtype_name(p.dtype())) + " (None: any size) but received " + shape_string(shape) +
                     ". Pass an array with " + std::to_string(p.shape().size()) + " axes whose known sizes match.");
}

Specialization specialize(const std::vector<Tensor>& roots, const std::vector<std::pair<Tensor, Shape>>& given) {
  Specialization out;
  Sizes sizes;
  std::unordered_map<const Node*, Tensor> mapped;
  // The placeholders first: a random draw shaped like x may come before x in the order.
  for (const auto& [p, shape] : given) {
    learn(sizes, p.shape(), shape, p);
    Tensor fixed = has_symbols(p.shape()) ? placeholder_of_shape(p, shape) : p;
    mapped.emplace(&p.node(), fixed);
    out.placeholders.push_back(fixed);
  }
  for (const Tensor& t : topological_order(roots)) {
    const Node& node = t.node();
    if (mapped.count(&node)) continue;
    std::vector<Tensor> inputs;
    bool changed = has_symbols(node.type.shape) || attr_has_symbols(node.attr);
    for (const Tensor& in : node.inputs) {
      auto it = mapped.find(&in.node());
      inputs.push_back(it != mapped.end() ? it->second : in);
      changed = changed || !(inputs.back() == in);
    }
    if (!changed) {
      mapped.emplace(&node, t);
      continue;
    }
    Tensor fresh;
    if (ops::is_loop(node.op)) {
      // A loop's regions are specialized to its inputs' new shapes (a body traced for a batch of
      // None runs with this call's batch), each as a graph of its own.
      fresh = ops::respecialize_loop(node, inputs, [](const Region& region, const std::vector<Shape>& shapes) {
        std::vector<std::pair<Tensor, Shape>> given;
        for (std::size_t k = 0; k < region.params.size(); ++k) given.emplace_back(region.params[k], shapes[k]);
        Specialization s = specialize(region.results, given);
        return Region{std::move(s.placeholders), std::move(s.roots)};
      });
    } else {
      fresh = ops::reinfer_node(node, inputs, substitute_attr(node, inputs, sizes));
    }
    learn(sizes, node.type.shape, fresh.shape(), t);
    mapped.emplace(&node, fresh);
  }
  for (const Tensor& r : roots) out.roots.push_back(mapped.at(&r.node()));
  return out;
}

}  // namespace symx::detail

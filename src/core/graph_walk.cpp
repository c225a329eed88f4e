// Walking and printing a graph (symx/graph.hpp): they read nodes only.
#include "symx/graph.hpp"

#include <sstream>
#include <unordered_set>

namespace symx {

std::vector<Tensor> topological_order(const std::vector<Tensor>& outputs) {
  std::vector<Tensor> order;
  std::unordered_set<const Node*> done;
  // Iterative depth-first search: deep graphs (long chains) must not overflow the stack.
  std::vector<std::pair<Tensor, std::size_t>> stack;
  for (const Tensor& out : outputs) {
    if (done.count(&out.node())) continue;
    stack.emplace_back(out, 0);
    while (!stack.empty()) {
      auto& [t, next] = stack.back();
      const auto& inputs = t.node().inputs;
      if (next < inputs.size()) {
        const Tensor& in = inputs[next++];
        if (!done.count(&in.node())) stack.emplace_back(in, 0);
        continue;
      }
      if (done.insert(&t.node()).second) order.push_back(t);
      stack.pop_back();
    }
  }
  return order;
}

namespace {

// A constant's value on one line, as NumPy's str() writes it ("0.5", "[1 2 3]"), when it is small
// enough to read at a glance; empty otherwise.
std::string small_value(const Tensor& t) {
  if (t.op() != OpKind::Constant || t.size() > 8) return "";
  std::string text = std::get<ConstantAttr>(t.node().attr).value.str(), line;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      line += text[i];
      continue;
    }
    line += ' ';  // a row break and the indentation after it
    while (i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '\n')) ++i;
  }
  return line;
}

// "relu#10 [where] 'h' (2, 3) float32": the function the user called, the primitive when it
// differs, the name, the type, and a small constant's value.
std::string describe(const Tensor& t) {
  std::string s = t.display_op() + "#" + std::to_string(t.id());
  if (t.display_op() != op_name(t.op())) s += " [" + std::string(op_name(t.op())) + "]";
  if (!t.name().empty()) s += " '" + t.name() + "'";
  s += " " + shape_string(t.shape()) + " " + std::string(dtype_name(t.dtype()));
  if (std::string value = small_value(t); !value.empty()) s += " = " + value;
  return s;
}

void print_tree(std::ostringstream& os, const Tensor& t, int depth, std::unordered_set<const Node*>& seen) {
  os << std::string(static_cast<std::size_t>(depth) * 2, ' ') << (depth ? "|- " : "") << describe(t);
  if (!t.node().inputs.empty() && !seen.insert(&t.node()).second) {
    os << "  (see above)\n";
    return;
  }
  os << "\n";
  for (const auto& in : t.node().inputs) print_tree(os, in, depth + 1, seen);
}

}  // namespace

std::string debugprint(const std::vector<Tensor>& outputs) {
  std::ostringstream os;
  std::unordered_set<const Node*> seen;
  for (const auto& t : outputs) print_tree(os, t, 0, seen);
  return os.str();
}

std::string to_dot(const std::vector<Tensor>& outputs) {
  std::ostringstream os;
  os << "digraph symx {\n  node [shape=box, fontname=\"monospace\"];\n";
  for (const Tensor& t : topological_order(outputs)) {
    os << "  n" << t.id() << " [label=\"" << describe(t) << "\"";
    if (t.op() == OpKind::Placeholder) os << ", style=filled, fillcolor=lightblue";
    if (t.op() == OpKind::Variable) os << ", style=filled, fillcolor=lightyellow";
    os << "];\n";
    for (const auto& in : t.node().inputs) os << "  n" << in.id() << " -> n" << t.id() << ";\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace symx

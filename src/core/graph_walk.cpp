// Walking and printing a graph (symx/graph.hpp): they read nodes only.
#include "symx/graph.hpp"

#include <sstream>
#include <unordered_set>

#include "symx/loop_spec.hpp"

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

// The regions of a loop node (scan, while_loop, switch), or null for any other node.
const LoopSpec* loop_of(const Tensor& t) {
  const auto* a = std::get_if<LoopAttr>(&t.node().attr);
  return a && t.op() != OpKind::Part ? a->spec.get() : nullptr;
}

void print_tree(std::ostringstream& os, const Tensor& t, int depth, std::unordered_set<const Node*>& seen) {
  os << std::string(static_cast<std::size_t>(depth) * 2, ' ') << (depth ? "|- " : "") << describe(t);
  if (!t.node().inputs.empty() && !seen.insert(&t.node()).second) {
    os << "  (see above)\n";
    return;
  }
  os << "\n";
  for (const auto& in : t.node().inputs) print_tree(os, in, depth + 1, seen);
  // A loop's regions after its inputs, each labelled, its params (which stand for the node's inputs
  // in order) listed and its results printed as trees one level deeper.
  if (const LoopSpec* spec = loop_of(t)) {
    const std::string pad(static_cast<std::size_t>(depth + 1) * 2, ' ');
    for (std::size_t k = 0; k < spec->regions.size(); ++k) {
      const Region& region = spec->regions[k];
      os << pad << "[" << spec->region_name(k) << " of " << t.display_op() << "#" << t.id() << "]\n";
      os << pad << "  params:\n";
      for (const Tensor& p : region.params) os << pad << "    " << describe(p) << "\n";
      os << pad << "  results:\n";
      for (const Tensor& r : region.results) print_tree(os, r, depth + 3, seen);
    }
  }
}

// The nodes of `roots` as DOT statements; a loop's regions as clusters (nested for nested loops),
// each result joined to its node by a dashed edge.
void dot_nodes(std::ostringstream& os, const std::vector<Tensor>& roots, std::unordered_set<const Node*>& emitted,
               const std::string& indent) {
  for (const Tensor& t : topological_order(roots)) {
    if (!emitted.insert(&t.node()).second) continue;
    os << indent << "n" << t.id() << " [label=\"" << describe(t) << "\"";
    if (t.op() == OpKind::Placeholder) os << ", style=filled, fillcolor=lightblue";
    if (t.op() == OpKind::Variable) os << ", style=filled, fillcolor=lightyellow";
    os << "];\n";
    for (const auto& in : t.node().inputs) os << indent << "n" << in.id() << " -> n" << t.id() << ";\n";
    const LoopSpec* spec = loop_of(t);
    if (!spec) continue;
    for (std::size_t k = 0; k < spec->regions.size(); ++k) {
      const Region& region = spec->regions[k];
      os << indent << "subgraph cluster_" << t.id() << "_" << k << " {\n"
         << indent << "  label=\"" << spec->region_name(k) << "\"; style=dashed;\n";
      std::vector<Tensor> all = region.params;
      all.insert(all.end(), region.results.begin(), region.results.end());
      dot_nodes(os, all, emitted, indent + "  ");
      os << indent << "}\n";
      for (const Tensor& r : region.results) os << indent << "n" << r.id() << " -> n" << t.id() << " [style=dashed];\n";
    }
  }
}

}  // namespace

namespace {
// fnmatch: * (anything, "/" included), ? (one character), [...] (a set, [!...] its complement).
bool fnmatch(const char* p, const char* t) {
  for (; *p; ++p, ++t) {
    if (*p == '*') {
      while (p[1] == '*') ++p;
      for (const char* s = t;; ++s) {
        if (fnmatch(p + 1, s)) return true;
        if (!*s) return false;
      }
    }
    if (!*t) return false;
    if (*p == '[') {
      const char* q = p + 1;
      const bool negate = *q == '!';
      if (negate) ++q;
      bool hit = false;
      const char* start = q;
      for (; *q && (*q != ']' || q == start); ++q) {
        if (q[1] == '-' && q[2] && q[2] != ']') {
          hit = hit || (*t >= *q && *t <= q[2]);
          q += 2;
        } else {
          hit = hit || *q == *t;
        }
      }
      if (!*q) {  // no closing bracket: a literal '['
        if (*t != '[') return false;
        continue;
      }
      if (hit == negate) return false;
      p = q;
      continue;
    }
    if (*p != '?' && *p != *t) return false;
  }
  return *t == '\0';
}

bool fnmatch(const std::string& pattern, const std::string& text) { return fnmatch(pattern.c_str(), text.c_str()); }

// The node's own name: the last part of its scoped name, or its display op for an anonymous op.
std::string base_name(const Tensor& t) {
  if (t.name().empty()) return t.display_op();
  const auto slash = t.name().rfind('/');
  return slash == std::string::npos ? t.name() : t.name().substr(slash + 1);
}

// SymJAX's match: the name pattern against the base name or the whole path, the scope a prefix.
bool matches(const Tensor& t, const std::string& name, const std::string& scope) {
  const std::string path = t.scope() + base_name(t);
  const bool name_ok = fnmatch(name, base_name(t)) || fnmatch(name, path) || fnmatch(name, path.substr(1)) ||
                       (!t.name().empty() && fnmatch(name, t.name()));
  std::string s = scope.empty() || scope[0] != '/' ? "/" + scope : scope;
  return name_ok && fnmatch(s + "*", t.scope());
}
}  // namespace

Graph& current_graph() { return default_graph(); }

std::vector<Tensor> ancestors(const std::vector<Tensor>& outputs) {
  // Every node the outputs depend on; an output is one only when another output depends on it.
  const std::vector<Tensor> order = topological_order(outputs);
  std::unordered_set<const Node*> inputs;
  for (const Tensor& t : order)
    for (const Tensor& in : t.node().inputs) inputs.insert(&in.node());
  std::unordered_set<const Node*> out_nodes;
  for (const Tensor& t : outputs) out_nodes.insert(&t.node());
  std::vector<Tensor> result;
  for (const Tensor& t : order)
    if (!out_nodes.count(&t.node()) || inputs.count(&t.node())) result.push_back(t);
  return result;
}

std::vector<Tensor> roots(const std::vector<Tensor>& outputs) {
  std::vector<Tensor> out;
  for (const Tensor& t : topological_order(outputs)) {
    if (t.op() == OpKind::Placeholder) out.push_back(t);
    if (t.op() == OpKind::Variable && !(t.name() == "random_state" && t.node().scope.empty() && !t.trainable()))
      out.push_back(t);
  }
  return out;
}

std::vector<Tensor> variables_of(const std::vector<Tensor>& outputs, std::optional<bool> trainable) {
  std::vector<Tensor> out;
  for (const Tensor& t : roots(outputs))
    if (t.op() == OpKind::Variable && (!trainable || t.trainable() == *trainable)) out.push_back(t);
  return out;
}

std::vector<Tensor> get_variables(const std::string& name, const std::string& scope, std::optional<bool> trainable) {
  std::vector<Tensor> out;
  for (const Tensor& v : default_graph().variables("", trainable))
    if (matches(v, name, scope)) out.push_back(v);
  return out;
}

std::vector<Tensor> get_placeholders(const std::string& name, const std::string& scope) {
  std::vector<Tensor> out;
  for (const Tensor& p : default_graph().placeholders())
    if (matches(p, name, scope)) out.push_back(p);
  return out;
}

std::vector<Tensor> get_ops(const std::string& name, const std::string& scope) {
  std::vector<Tensor> out;
  for (const Tensor& t : default_graph().ops())
    if (matches(t, name, scope)) out.push_back(t);
  return out;
}

std::string debugprint(const std::vector<Tensor>& outputs) {
  std::ostringstream os;
  std::unordered_set<const Node*> seen;
  for (const auto& t : outputs) print_tree(os, t, 0, seen);
  return os.str();
}

std::string to_dot(const std::vector<Tensor>& outputs) {
  std::ostringstream os;
  os << "digraph symx {\n  node [shape=box, fontname=\"monospace\"];\n";
  std::unordered_set<const Node*> emitted;
  dot_nodes(os, outputs, emitted, "  ");
  os << "}\n";
  return os.str();
}

}  // namespace symx

// The rewrite passes and the pipeline. Rules are data: one line each, grouped by op.
#include "passes/passes.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <optional>

#include "ops/control_flow.hpp"
#include "ops/op_table.hpp"
#include "passes/rewrite.hpp"
#include "symx/graph.hpp"
#include "symx/ops.hpp"

namespace symx::passes {
namespace {

const Tensor& in(const Tensor& t, std::size_t k) { return t.node().inputs[k]; }
bool is(const Tensor& t, OpKind op) { return t.op() == op; }
bool has_value(const Tensor& t, double v) {
  auto c = uniform_constant(t);
  return c && *c == v;
}
// `x` as a value of `like`'s shape (x already has like's dtype).
Tensor shaped_like(const Tensor& x, const Tensor& like) {
  if (x.dtype() != like.dtype()) return Tensor();
  return x.shape() == like.shape() ? x : broadcast_to(x, like.shape());
}

// Converting to a wider type and back loses nothing.
bool lossless(DType from, DType to) {
  if (from == to) return true;
  if (to == DType::f64) return true;
  if (to == DType::f32) return from == DType::b8 || from == DType::u8;
  if (to == DType::i64) return from != DType::f32 && from != DType::f64;
  if (to == DType::i32) return from == DType::b8 || from == DType::u8;
  return false;
}

// x when `s` is x shifted by its own max along `axis` (x - max(x, axis, keepdims), the max
// gradient-stopped or not), else `s`: softmax and log_softmax are the same of both.
Tensor unshifted(const Tensor& s, int axis) {
  if (!is(s, OpKind::Subtract)) return s;
  Tensor m = in(s, 1);
  if (is(m, OpKind::StopGradient)) m = in(m, 0);
  bool own_max =
      is(m, OpKind::Max) && in(m, 0) == in(s, 0) && std::get<ReduceAttr>(m.node().attr) == ReduceAttr{{axis}, true};
  return own_max ? in(s, 0) : s;
}

// x and the axis when `t` is log_softmax(x) as the graph spells it: s - log(sum(exp(s))) over
// one kept axis, where s is x shifted by its own max along that axis (nn::log_softmax, and
// log(softmax(x)) after the log-space rule below), or any s at all (log_softmax(s) itself).
std::optional<std::pair<Tensor, int>> log_softmax_input(const Tensor& t) {
  if (!is(t, OpKind::Subtract)) return std::nullopt;
  const Tensor& s = in(t, 0);
  const Tensor& l = in(t, 1);
  if (!is(l, OpKind::Log) || !is(in(l, 0), OpKind::Sum) || !is(in(in(l, 0), 0), OpKind::Exp) ||
      !(in(in(in(l, 0), 0), 0) == s))
    return std::nullopt;
  const auto& r = std::get<ReduceAttr>(in(l, 0).node().attr);
  if (r.axes.size() != 1 || !r.keepdims) return std::nullopt;
  return std::pair{unshifted(s, r.axes[0]), r.axes[0]};
}

// softmax_cross_entropy(x, y) for s = sum(y * log_softmax(x)) (or sum(-y * log_softmax(x)) when
// `negated_labels`) whose reduced axes include the softmax axis; other reduced axes stay sums.
// The caller supplies the sign: the result is -s (or s when the labels are negated).
Tensor cross_entropy_of(const Tensor& s, bool negated_labels) {
  if (!is(s, OpKind::Sum) || !is(in(s, 0), OpKind::Multiply)) return Tensor();
  const Tensor& product = in(s, 0);
  const auto& r = std::get<ReduceAttr>(s.node().attr);
  for (std::size_t k = 0; k < 2; ++k) {
    Tensor y = in(product, k);
    const Tensor& ls = in(product, 1 - k);
    if (negated_labels) {
      if (!is(y, OpKind::Negative)) continue;
      y = in(y, 0);
    }
    auto found = log_softmax_input(ls);
    if (!found) continue;
    auto [x, axis] = *found;
    if (std::find(r.axes.begin(), r.axes.end(), axis) == r.axes.end()) continue;
    if (y.dtype() != x.dtype() || x.shape() != product.shape()) continue;
    Tensor loss = nn::softmax_cross_entropy(x, y.shape() == x.shape() ? y : broadcast_to(y, x.shape()), axis);
    std::vector<int> rest;
    for (int a : r.axes)
      if (a != axis) rest.push_back(a > axis ? a - 1 : a);
    if (!rest.empty()) loss = sum(loss, Axes(rest));
    return r.keepdims ? reshape(loss, s.shape()) : loss;
  }
  return Tensor();
}

// A tensor of the loss's shape (x's shape without `axis`) equal to `u` at every position along the
// axis, when `u` (broadcast against x) does not vary along it; undefined otherwise.
Tensor row_constant(const Tensor& u, const Tensor& x, int axis) {
  Shape keep = x.shape(), row = x.shape();
  keep[static_cast<std::size_t>(axis)] = 1;
  row.erase(row.begin() + axis);
  if (u.dtype() != x.dtype()) return Tensor();
  if (auto v = uniform_constant(u)) return constant(Array::full(row, *v, x.dtype()));
  const Tensor& w = is(u, OpKind::BroadcastTo) ? in(u, 0) : u;
  const std::size_t lead = x.shape().size() - w.shape().size();
  if (w.shape().size() <= x.shape().size() &&
      (static_cast<std::size_t>(axis) < lead || w.shape()[static_cast<std::size_t>(axis) - lead] == 1))
    return reshape(broadcast_to(w, keep), row);
  if (is(w, OpKind::Constant) && w.shape() == x.shape() && !is_complex(w.dtype())) {  // a folded broadcast
    const Array& a = std::get<ConstantAttr>(w.node().attr).value;
    ops::AxisSplit split = ops::split_at(a.shape(), axis);
    Array r = Array::zeros(row, a.dtype());
    for (std::int64_t o = 0; o < split.outer; ++o)
      for (std::int64_t i = 0; i < split.inner; ++i) {
        double first = a.get_flat(o * split.n * split.inner + i);
        for (std::int64_t k = 1; k < split.n; ++k)
          if (a.get_flat((o * split.n + k) * split.inner + i) != first) return Tensor();
        r.set_flat(o * split.inner + i, first);
      }
    return constant(r);
  }
  return Tensor();
}

// For t = G - softmax(s) * sum(G) over one axis as autodiff spells the gradient of
// log_softmax(s) with cotangent G — add(G, exp(s) * (sum(-G) / sum(exp(s)))) — the one-op
// softmax_cross_entropy_grad(x, y, g) = g * (softmax(x) * sum(y) - y): with G = c * y for a c
// constant along the axis, y and g = -c; otherwise y = -G and g = 1. s = x - max(x) reads x.
Tensor log_softmax_gradient(const Tensor& t) {
  for (std::size_t k = 0; k < 2; ++k) {
    const Tensor& G = in(t, k);
    const Tensor& P = in(t, 1 - k);
    if (!is(P, OpKind::Multiply) || G.shape() != t.shape()) continue;
    for (std::size_t j = 0; j < 2; ++j) {
      Tensor B = in(P, j);
      const Tensor& E = in(P, 1 - j);
      if (!is(E, OpKind::Exp) || E.shape() != t.shape()) continue;
      if (is(B, OpKind::BroadcastTo)) B = in(B, 0);
      if (!is(B, OpKind::Divide)) continue;
      const Tensor& num = in(B, 0);
      const Tensor& den = in(B, 1);
      if (!is(num, OpKind::Sum) || !is(in(num, 0), OpKind::Negative) || !(in(in(num, 0), 0) == G)) continue;
      if (!is(den, OpKind::Sum) || !(in(den, 0) == E)) continue;
      const auto& rn = std::get<ReduceAttr>(num.node().attr);
      const auto& rd = std::get<ReduceAttr>(den.node().attr);
      if (rn.axes.size() != 1 || !rn.keepdims || !(rn == rd)) continue;
      const int axis = rn.axes[0];
      Tensor x = unshifted(in(E, 0), axis);
      if (x.dtype() != t.dtype()) continue;
      Tensor labels, g;
      if (is(G, OpKind::Multiply))
        for (std::size_t c = 0; c < 2 && !g.defined(); ++c)
          if (in(G, 1 - c).shape() == t.shape() && in(G, 1 - c).dtype() == t.dtype())
            if (Tensor r = row_constant(in(G, c), x, axis); r.defined()) {
              labels = in(G, 1 - c);
              g = -r;
            }
      if (!g.defined()) {
        Shape row = x.shape();
        row.erase(row.begin() + axis);
        labels = -G;
        g = ones(row, x.dtype());
      }
      return ops::make_node(OpKind::SoftmaxCrossEntropyGrad, {x, labels, g}, AxisAttr{axis});
    }
  }
  return Tensor();
}

// The slice of `u` (an unslice) when it takes elements start..start+count-1 of one axis, step 1,
// and the whole of every other axis: (axis, start, count); axis -1 otherwise.
struct Band {
  int axis = -1;
  std::int64_t start = 0, count = 0;
};
Band band_of(const Tensor& u) {
  const auto& a = std::get<SliceAttr>(u.node().attr);
  Band b;
  for (std::size_t d = 0; d < a.input_shape.size(); ++d) {
    if (a.step[d] != 1) return {};
    if (a.start[d] == 0 && a.count[d] == a.input_shape[d]) continue;
    if (b.axis >= 0) return {};
    b = {static_cast<int>(d), a.start[d], a.count[d]};
  }
  return b;
}

// The gradient of split (or of slices that tile an axis) as autodiff builds it, a sum of unslices
// each putting one piece back in a zero tensor: one concatenate of the pieces (an LSTM's gate
// gradients, a head split's).
Tensor sum_of_unslices(const Tensor& t) {
  std::vector<Tensor> terms, stack{t};
  while (!stack.empty()) {
    Tensor n = stack.back();
    stack.pop_back();
    if (is(n, OpKind::Add) && n.shape() == t.shape() && in(n, 0).shape() == t.shape() &&
        in(n, 1).shape() == t.shape()) {
      stack.push_back(in(n, 1));
      stack.push_back(in(n, 0));
    } else if (is(n, OpKind::Unslice) && n.dtype() == t.dtype()) {
      terms.push_back(n);
    } else {
      return Tensor();
    }
  }
  if (terms.size() < 2) return Tensor();
  std::vector<std::pair<Band, Tensor>> bands;
  for (const Tensor& u : terms) {
    Band b = band_of(u);
    if (b.axis < 0 || (!bands.empty() && b.axis != bands[0].first.axis)) return Tensor();
    bands.emplace_back(b, in(u, 0));
  }
  std::sort(bands.begin(), bands.end(), [](const auto& x, const auto& y) { return x.first.start < y.first.start; });
  std::int64_t next = 0;
  std::vector<Tensor> pieces;
  for (const auto& [b, piece] : bands) {
    if (b.start != next) return Tensor();  // a gap or an overlap
    next += b.count;
    pieces.push_back(piece);
  }
  const int axis = bands[0].first.axis;
  if (next != t.shape()[static_cast<std::size_t>(axis)]) return Tensor();
  return concatenate(pieces, axis);
}

struct Rule {
  const char* name;
  OpKind op;
  Tensor (*apply)(const Tensor& t);
};

// clang-format off
const Rule algebra_rules[] = {
  {"x+0",        OpKind::Add,        [](const Tensor& t) { return has_value(in(t, 1), 0) ? shaped_like(in(t, 0), t) : Tensor(); }},
  {"0+x",        OpKind::Add,        [](const Tensor& t) { return has_value(in(t, 0), 0) ? shaped_like(in(t, 1), t) : Tensor(); }},
  {"x-0",        OpKind::Subtract,   [](const Tensor& t) { return has_value(in(t, 1), 0) ? shaped_like(in(t, 0), t) : Tensor(); }},
  {"x-x",        OpKind::Subtract,   [](const Tensor& t) { return in(t, 0) == in(t, 1) && !is_floating(t.dtype()) ? zeros(t.shape(), t.dtype()) : Tensor(); }},
  {"x*1",        OpKind::Multiply,   [](const Tensor& t) { return has_value(in(t, 1), 1) ? shaped_like(in(t, 0), t) : Tensor(); }},
  {"1*x",        OpKind::Multiply,   [](const Tensor& t) { return has_value(in(t, 0), 1) ? shaped_like(in(t, 1), t) : Tensor(); }},
  {"x/1",        OpKind::Divide,     [](const Tensor& t) { return has_value(in(t, 1), 1) ? shaped_like(in(t, 0), t) : Tensor(); }},
  {"--x",        OpKind::Negative,   [](const Tensor& t) { return is(in(t, 0), OpKind::Negative) ? in(in(t, 0), 0) : Tensor(); }},
  {"!!x",        OpKind::LogicalNot, [](const Tensor& t) { return is(in(t, 0), OpKind::LogicalNot) ? in(in(t, 0), 0) : Tensor(); }},
  {"stop_gradient(x)", OpKind::StopGradient, [](const Tensor& t) { return in(t, 0); }},
  {"transpose(transpose(x))", OpKind::Transpose, [](const Tensor& t) {
     if (!is(in(t, 0), OpKind::Transpose)) return Tensor();
     const auto& outer = std::get<PermAttr>(t.node().attr).perm;
     const auto& inner = std::get<PermAttr>(in(t, 0).node().attr).perm;
     std::vector<int> perm;
     for (int p : outer) perm.push_back(inner[static_cast<std::size_t>(p)]);
     return transpose(in(in(t, 0), 0), perm); }},
  {"transpose(x, identity)", OpKind::Transpose, [](const Tensor& t) {
     const auto& perm = std::get<PermAttr>(t.node().attr).perm;
     for (std::size_t i = 0; i < perm.size(); ++i) if (perm[i] != static_cast<int>(i)) return Tensor();
     return in(t, 0); }},
  {"reshape(x, x.shape)", OpKind::Reshape, [](const Tensor& t) { return in(t, 0).shape() == t.shape() ? in(t, 0) : Tensor(); }},
  {"reshape(reshape(x))", OpKind::Reshape, [](const Tensor& t) { return is(in(t, 0), OpKind::Reshape) ? reshape(in(in(t, 0), 0), t.shape()) : Tensor(); }},
  // The count of a mean over a size known only at a call (see mean in src/ops/reduce.cpp) is
  // sum(broadcast_to(1, (n,))): once specialized, a constant however large n is.
  {"sum(broadcast_to(c))", OpKind::Sum, [](const Tensor& t) {
     if (!is(in(t, 0), OpKind::BroadcastTo) || t.size() > 4096) return Tensor();
     auto c = uniform_constant(in(in(t, 0), 0));
     if (!c) return Tensor();
     double count = static_cast<double>(in(t, 0).size()) / static_cast<double>(std::max<std::int64_t>(t.size(), 1));
     return constant(Array::full(t.shape(), *c * count, t.dtype())); }},
  {"unslice(a)+unslice(b)+...->concatenate", OpKind::Add, sum_of_unslices},
  {"broadcast_to(x, x.shape)", OpKind::BroadcastTo, [](const Tensor& t) { return in(t, 0).shape() == t.shape() ? in(t, 0) : Tensor(); }},
  {"broadcast_to(broadcast_to(x))", OpKind::BroadcastTo, [](const Tensor& t) { return is(in(t, 0), OpKind::BroadcastTo) ? broadcast_to(in(in(t, 0), 0), t.shape()) : Tensor(); }},
  {"cast(cast(x))", OpKind::Cast, [](const Tensor& t) {
     if (!is(in(t, 0), OpKind::Cast)) return Tensor();
     const Tensor& x = in(in(t, 0), 0);
     if (!lossless(x.dtype(), in(t, 0).dtype())) return Tensor();
     return cast(x, t.dtype()); }},
};

// Numerical stabilization: rewrite unstable compositions into their stable forms.
const Rule stability_rules[] = {
  {"log(1+x)->log1p(x)", OpKind::Log, [](const Tensor& t) {
     const Tensor& a = in(t, 0);
     if (!is(a, OpKind::Add)) return Tensor();
     if (has_value(in(a, 0), 1) && in(a, 1).shape() == t.shape()) return log1p(in(a, 1));
     if (has_value(in(a, 1), 1) && in(a, 0).shape() == t.shape()) return log1p(in(a, 0));
     return Tensor(); }},
  {"log(sigmoid(x))->-softplus(-x)", OpKind::Log, [](const Tensor& t) {
     return is(in(t, 0), OpKind::Sigmoid) ? -nn::softplus(-in(in(t, 0), 0)) : Tensor(); }},
  {"log(exp(x))->x", OpKind::Log, [](const Tensor& t) { return is(in(t, 0), OpKind::Exp) ? in(in(t, 0), 0) : Tensor(); }},
  // log(e / s) with e an exponential is log-space arithmetic: this turns log(softmax(x)) into
  // (x - m) - log(sum(exp(x - m))), the log_softmax form, which never takes the log of 0.
  {"log(exp(x)/s)->x-log(s)", OpKind::Log, [](const Tensor& t) {
     const Tensor& q = in(t, 0);
     if (!is(q, OpKind::Divide) || !is(in(q, 0), OpKind::Exp) || in(q, 0).shape() != t.shape()) return Tensor();
     return in(in(q, 0), 0) - log(in(q, 1)); }},
  {"log(sum(exp(x)))->logsumexp(x)", OpKind::Log, [](const Tensor& t) {
     const Tensor& s = in(t, 0);
     if (!is(s, OpKind::Sum) || !is(in(s, 0), OpKind::Exp)) return Tensor();
     const auto& attr = std::get<ReduceAttr>(s.node().attr);
     Tensor x = in(in(s, 0), 0);
     // Already shifted by its own max (the stable form): leave it.
     if (is(x, OpKind::Subtract)) return Tensor();
     return logsumexp(x, Axes(attr.axes), attr.keepdims); }},
  // Cross-entropy of softmax(x) against labels y: one op that never forms log_softmax.
  {"-sum(y*log_softmax(x))->softmax_cross_entropy(x,y)", OpKind::Negative, [](const Tensor& t) { return cross_entropy_of(in(t, 0), false); }},
  {"sum(-y*log_softmax(x))->softmax_cross_entropy(x,y)", OpKind::Sum, [](const Tensor& t) { return cross_entropy_of(t, true); }},
  // Its gradient as autodiff builds it from the naive form: the gradient op.
  {"G-softmax(x)*sum(G)->softmax_cross_entropy_grad", OpKind::Add, log_softmax_gradient},
};
// clang-format on

Roots apply_rules(const Roots& roots, std::span<const Rule> rules) {
  return rewrite(roots, [&](const Tensor& t) {
    for (const Rule& rule : rules) {
      if (rule.op != t.op()) continue;
      Tensor r = rule.apply(t);
      if (r.defined()) {
        note_rule(rule.name, t);
        return r;
      }
    }
    return Tensor();
  });
}

bool same_roots(const Roots& a, const Roots& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

}  // namespace

std::vector<Tensor> eliminate_dead_code(const Roots& roots) { return topological_order(roots); }

Roots fold_constants(const Roots& roots) {
  return rewrite(roots, [](const Tensor& t) {
    const Node& node = t.node();
    if (node.inputs.empty() || !ops::op_def(node.op).foldable()) return Tensor();
    std::int64_t largest_input = 1;
    std::vector<Array> values;
    for (const auto& x : node.inputs) {
      if (x.op() != OpKind::Constant) return Tensor();
      values.push_back(std::get<ConstantAttr>(x.node().attr).value);
      largest_input = std::max(largest_input, x.size());
    }
    // Folding broadcast_to(scalar) into a million-element constant would cost memory, not save work.
    if (t.size() > std::max<std::int64_t>(largest_input, 4096)) return Tensor();
    note_rule("fold_constants", t);
    return constant(ops::op_def(node.op).evaluate({node, values}));
  });
}

Roots simplify_algebra(const Roots& roots) { return apply_rules(roots, algebra_rules); }
Roots stabilize_numerics(const Roots& roots) { return apply_rules(roots, stability_rules); }

Roots eliminate_common_subexpressions(const Roots& roots) {
  // Candidates keyed by op and input identities; attributes compared on a key hit.
  std::map<std::vector<const void*>, std::vector<Tensor>> seen;
  return rewrite(roots, [&](const Tensor& t) {
    const Node& node = t.node();
    if (node.op == OpKind::Placeholder || node.op == OpKind::Variable) return Tensor();
    std::vector<const void*> key{reinterpret_cast<const void*>(static_cast<std::intptr_t>(node.op) + 1)};
    if (node.op == OpKind::Constant) {
      if (t.size() > 64) return Tensor();
      key.push_back(reinterpret_cast<const void*>(static_cast<std::intptr_t>(t.dtype()) + 1));
    }
    for (const auto& x : node.inputs) key.push_back(&x.node());
    auto& bucket = seen[key];
    for (const Tensor& other : bucket)
      if (other.type() == t.type() && other.node().attr == node.attr) {
        note_rule("cse", t);
        return other;
      }
    bucket.push_back(t);
    return Tensor();
  });
}

Roots merge_loops(const Roots& roots) {
  std::vector<Tensor> scans;
  for (const Tensor& t : topological_order(roots))
    if (t.op() == OpKind::Scan) scans.push_back(t);
  if (scans.size() < 2) return roots;
  auto extends = [](const Tensor& longer, const Tensor& shorter) {
    const auto& a = ops::loop_spec(longer).lineage;
    const auto& b = ops::loop_spec(shorter).lineage;
    return !ops::loop_spec(longer).pruned && a.size() > b.size() && std::equal(b.begin(), b.end(), a.begin()) &&
           longer.node().inputs == shorter.node().inputs;
  };
  std::unordered_map<const Node*, Tensor> into;
  for (const Tensor& x : scans) {
    Tensor best;
    for (const Tensor& y : scans)
      if (extends(y, x) && (!best.defined() || ops::loop_spec(y).lineage.size() > ops::loop_spec(best).lineage.size()))
        best = y;
    if (best.defined()) into.emplace(&x.node(), best);
  }
  if (into.empty()) return roots;
  return rewrite(roots, [&](const Tensor& t) {
    if (t.op() != OpKind::Part) return Tensor();
    auto it = into.find(&t.node().inputs[0].node());
    if (it == into.end()) return Tensor();
    note_rule("merge_loops", t);
    return ops::make_node(OpKind::Part, {it->second}, t.node().attr);
  });
}

Roots prune_loop_outputs(const Roots& roots) {
  const std::vector<Tensor> order = topological_order(roots);
  std::unordered_map<const Node*, std::vector<bool>> used;
  for (const Tensor& t : order)
    if (t.op() == OpKind::Part) {
      const Tensor& loop = t.node().inputs[0];
      auto& u = used[&loop.node()];
      u.resize(ops::loop_spec(loop).result_types.size());
      u[static_cast<std::size_t>(std::get<PartAttr>(t.node().attr).index)] = true;
    }
  // Old scan -> (its parts' new indices (-1: dropped), the new scan's parts).
  std::unordered_map<const Node*, std::pair<std::vector<int>, std::vector<Tensor>>> pruned;
  for (const Tensor& t : order) {
    if (t.op() != OpKind::Scan) continue;
    const LoopSpec& spec = ops::loop_spec(t);
    const std::vector<bool>& u = used[&t.node()];
    const auto n = spec.result_types.size();
    std::vector<int> index(n, -1);
    LoopSpec kept = spec;
    kept.regions[0].results.clear();
    int next = 0;
    for (std::size_t k = 0; k < n; ++k)
      if (k < static_cast<std::size_t>(spec.carries) || (k < u.size() && u[k])) {
        kept.regions[0].results.push_back(spec.regions[0].results[k]);
        index[k] = next++;
      }
    if (static_cast<std::size_t>(next) == n) continue;
    kept.lineage.push_back(ops::next_lineage_id());  // no longer a prefix of its extensions
    kept.traced = nullptr;
    kept.pruned = true;
    pruned.emplace(&t.node(), std::make_pair(index, ops::make_loop_node(std::move(kept), t.node().inputs, false)));
  }
  if (pruned.empty()) return roots;
  return rewrite(roots, [&](const Tensor& t) {
    if (t.op() != OpKind::Part) return Tensor();
    auto it = pruned.find(&t.node().inputs[0].node());
    if (it == pruned.end()) return Tensor();
    const int k = it->second.first[static_cast<std::size_t>(std::get<PartAttr>(t.node().attr).index)];
    note_rule("prune_loop_outputs", t);
    return it->second.second[static_cast<std::size_t>(k)];
  });
}

namespace {
Roots optimize_rounds(const Roots& roots) {
  Roots current = roots;
  for (int round = 0; round < 4; ++round) {
    Roots next = current;
    next = merge_loops(next);
    next = fold_constants(next);
    next = simplify_algebra(next);
    next = stabilize_numerics(next);
    next = eliminate_common_subexpressions(next);
    if (same_roots(next, current)) break;
    current = next;
  }
  return current;
}
}  // namespace

Roots optimize(const Roots& roots) {
  Roots current = optimize_rounds(roots);
  // Unused scan outputs are pruned once every merge is done: a pruned scan is no one's prefix, so
  // pruning earlier would keep a scan from merging with its extension once CSE makes their inputs
  // the same (two forward passes of one loop in a function specialized to a batch of None).
  // A scan that reads a pruned scan's parts is rebuilt over them by the same pass, out of its reach:
  // another pass prunes it (an LSTM's backward scan reads the forward's residuals).
  for (int pass = 0; pass < 4; ++pass) {
    Roots pruned = prune_loop_outputs(current);
    if (same_roots(pruned, current)) break;
    current = optimize_rounds(pruned);
  }
  return current;
}

}  // namespace symx::passes

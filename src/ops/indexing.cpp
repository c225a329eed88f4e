// src/ops/indexing.cpp: the rows and functions of symx/indexing.hpp.
//
// Primitives: scatter_set, scatter_mul, scatter_min, scatter_max. Each takes (x, positions, updates):
// `positions` (any integer dtype, the shape of `updates`) are flat (row-major) positions into x, and
// the result is x with each update applied at its position, in row-major order of the positions.
// Every indexed update reduces its index to such positions: the index applied to
// arange(x.size).reshape(x.shape), which is a constant when the index holds no tensor.
// Everything else here (index_*, put*, place, bincount, histogram*, nonzero and friends) is a
// composite of these, scatter_add, take and elementwise ops.
#include "symx/indexing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "ops/concrete.hpp"
#include "ops/op_table.hpp"
#include "symx/graph.hpp"

namespace symx {
namespace ops {
namespace {

// ---- scatter_set / scatter_mul / scatter_min / scatter_max ----

Tensor full_like_i64(const Tensor& like, std::int64_t value) {
  return broadcast_to(constant(static_cast<double>(value), DType::i64), like.shape());
}

TensorType infer_scatter(const std::vector<Tensor>& in, const Attr&) {
  const Tensor &x = in[0], &pos = in[1], &u = in[2];
  if (!is_integer(pos.dtype()))
    fail_dtype("positions must have an integer dtype, got " + std::string(dtype_name(pos.dtype())),
               "Cast the positions with astype(int64).");
  if (u.dtype() != x.dtype())
    fail_dtype("updates of dtype " + std::string(dtype_name(u.dtype())) + " differ from the operand's " +
                   std::string(dtype_name(x.dtype())),
               "Cast the updates to the operand's dtype.");
  if (u.shape() != pos.shape())
    fail_shape("updates of shape " + shape_string(u.shape()) + " differ from positions of shape " +
                   shape_string(pos.shape()),
               "Pass one update per position (broadcast_to the positions' shape).");
  return x.type();
}

template <class T> T combine(OpKind op, T old, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
      case OpKind::ScatterMul:
      case OpKind::ScatterMin: return old && v;
      case OpKind::ScatterMax: return old || v;
      default: return v;
    }
  } else {
    switch (op) {
      case OpKind::ScatterMul: return static_cast<T>(old * v);
      case OpKind::ScatterMin:
        if constexpr (std::is_floating_point_v<T>)
          if (std::isnan(old) || std::isnan(v)) return std::numeric_limits<T>::quiet_NaN();
        return std::min(old, v);
      case OpKind::ScatterMax:
        if constexpr (std::is_floating_point_v<T>)
          if (std::isnan(old) || std::isnan(v)) return std::numeric_limits<T>::quiet_NaN();
        return std::max(old, v);
      default: return v;
    }
  }
}

template <OpKind op> Array evaluate_scatter(const EvalArgs& args) {
  Array out = args.inputs[0].copy();
  const Array& pos = args.inputs[1];
  const Array& u = args.inputs[2];
  const std::int64_t n = out.size(), m = u.size();
  std::vector<std::int64_t> p(static_cast<std::size_t>(m));
  visit_dtype(pos.dtype(), [&]<class I>() {
    for (std::int64_t j = 0; j < m; ++j) p[static_cast<std::size_t>(j)] = static_cast<std::int64_t>(pos.data<I>()[j]);
  });
  visit_dtype(out.dtype(), [&]<class T>() {
    T* o = out.data<T>();
    const T* v = u.data<T>();
    for (std::int64_t j = 0; j < m; ++j) {
      std::int64_t k = p[static_cast<std::size_t>(j)];
      if (k < -n || k >= n)
        throw ValueError(std::string(op_name(op)) + ": position " + std::to_string(k) +
                         " is out of bounds for a tensor of " + std::to_string(n) + " elements" +
                         (args.node.where.empty() ? std::string() : ", at " + args.node.where) +
                         ". Use indices within the tensor's sizes.");
      if (k < 0) k += n;
      o[k] = combine<T>(op, o[k], v[j]);
    }
  });
  return out;
}

Tensor flat_take(const Tensor& g, const Tensor& pos) { return take(reshape(g, {-1}), pos, 0); }
// scatter_add of `u` at `pos` into zeros of `shape`.
Tensor scatter_add_at(const Tensor& u, const Tensor& pos, const Shape& shape) {
  Tensor s = make_node(OpKind::ScatterAdd, {reshape(u, {-1}), reshape(pos, {-1})}, ShapeAttr{{num_elements(shape)}, 0});
  return reshape(s, shape);
}

// set: the operand's cotangent is zero where an update landed; each position's cotangent goes to the
// update that won (the last in row-major order).
std::vector<Tensor> vjp_scatter_set(const Tensor& y, const Tensor& g) {
  const Tensor &pos = y.node().inputs[1], &u = y.node().inputs[2];
  Tensor gx = make_node(OpKind::ScatterSet, {g, pos, zeros_like(u)});
  Tensor order = reshape(arange(0, static_cast<double>(u.size()), 1, DType::i64), u.shape());
  Tensor winner = make_node(OpKind::ScatterSet, {full_like_i64(y, -1), pos, order});
  Tensor won = symx::equal(flat_take(winner, pos), order);
  return {gx, Tensor(), where(won, flat_take(g, pos), 0.0)};
}

// mul: out = x * P with P the product of the updates at each position. The update's cotangent is
// g * x * (the product of the other updates at its position), exact with zeros among the updates.
std::vector<Tensor> vjp_scatter_mul(const Tensor& y, const Tensor& g) {
  const Tensor &x = y.node().inputs[0], &pos = y.node().inputs[1], &u = y.node().inputs[2];
  Tensor is_zero = symx::equal(u, 0.0);
  Tensor nz = where(is_zero, 1.0, u);
  Tensor nz_prod = make_node(OpKind::ScatterMul, {ones_like(x), pos, nz});
  Tensor zeros_at = scatter_add_at(cast(is_zero, x.dtype()), pos, x.shape());
  Tensor others_zero = subtract(flat_take(zeros_at, pos), cast(is_zero, x.dtype()));
  Tensor others = where(greater(others_zero, 0.0), 0.0, divide(flat_take(nz_prod, pos), nz));
  Tensor p = where(symx::equal(zeros_at, 0.0), nz_prod, 0.0);
  return {multiply(g, p), Tensor(), multiply(flat_take(multiply(g, x), pos), others)};
}

// min / max, as JAX: the cotangent of each output element is shared equally by the operand element
// and the updates that equal it.
std::vector<Tensor> vjp_scatter_extremum(const Tensor& y, const Tensor& g) {
  const Tensor &x = y.node().inputs[0], &pos = y.node().inputs[1], &u = y.node().inputs[2];
  Tensor retained = cast(symx::equal(x, y), x.dtype());
  Tensor hit = cast(symx::equal(u, flat_take(y, pos)), x.dtype());
  Tensor count = add(retained, scatter_add_at(hit, pos, x.shape()));
  Tensor share = divide(g, maximum(count, 1.0));
  return {multiply(share, retained), Tensor(), multiply(flat_take(share, pos), hit)};
}

}  // namespace

void register_indexing_ops() {
  using K = OpKind;
  constexpr auto F = Family::shape;
  // A library call each (runtime/library_scatter.cpp): a copy of the operand, one pass over the updates.
  define(K::ScatterSet, row(F, 3, Lowering::library, infer_scatter, evaluate_scatter<K::ScatterSet>, vjp_scatter_set));
  define(K::ScatterMul, row(F, 3, Lowering::library, infer_scatter, evaluate_scatter<K::ScatterMul>, vjp_scatter_mul));
  define(K::ScatterMin,
         row(F, 3, Lowering::library, infer_scatter, evaluate_scatter<K::ScatterMin>, vjp_scatter_extremum));
  define(K::ScatterMax,
         row(F, 3, Lowering::library, infer_scatter, evaluate_scatter<K::ScatterMax>, vjp_scatter_extremum));
}

Tensor symbolic_source(const Tensor& t) {
  for (const Tensor& n : topological_order({t})) {
    const auto& def = ops::op_def(n.op());
    if (n.op() == OpKind::Placeholder || n.op() == OpKind::Variable || def.random() || !def.foldable()) return n;
  }
  return Tensor();
}

std::optional<Array> concrete(const Tensor& t) {
  if (symbolic_source(t).defined()) return std::nullopt;
  return t.eval();
}

}  // namespace ops

namespace {

using ops::TypeProblem;

[[noreturn]] void fail(const char* name, const std::vector<Tensor>& operands, TypeProblem::Kind kind,
                       std::string problem, std::string fix, Loc loc) {
  ops::raise(name, operands, {kind, std::move(problem), std::move(fix)}, loc);
}
constexpr auto kShape = TypeProblem::Kind::shape;
constexpr auto kDType = TypeProblem::Kind::dtype;
constexpr auto kValue = TypeProblem::Kind::value;

using ops::concrete;
using ops::symbolic_source;

// The error of a function whose output size depends on x's values when x is symbolic.
[[noreturn]] void needs_size(const char* name, const Tensor& x, const char* param, Loc loc) {
  Tensor src = symbolic_source(x);
  std::string what = src.op() == OpKind::Placeholder ? "placeholder" : op_name(src.op());
  fail(name, {x}, kValue,
       std::string("the size of the result depends on the values of '") + x.label() +
           "', which are known only when the graph runs (it depends on " + what + " '" + src.label() +
           "'); a graph's shapes are fixed when it is built",
       std::string("Pass a static ") + param + "= (the result's size; the missing entries are filled with " +
           "fill_value), as in JAX, or compute it from concrete values (a constant) with eval.",
       loc);
}

Tensor as_tensor(const Operand& v, DType dtype, Loc loc) {
  if (!v.is_tensor()) return constant(v.number(), dtype, loc);
  return v.tensor().dtype() == dtype ? v.tensor() : cast(v.tensor(), dtype, loc);
}

Tensor iota(std::int64_t n, Loc loc) { return constant(Array::arange(0, static_cast<double>(n), 1, DType::i64), loc); }

// Flat positions of every element of x, in x's shape.
Tensor positions_of(const char* name, const Tensor& x, Loc loc) {
  if (has_symbols(x.shape()))
    fail(name, {x}, kShape, "the tensor's shape " + shape_string(x.shape()) + " has sizes unknown until the call",
         "Give the tensor fixed sizes (indexed updates need them).", loc);
  return reshape(iota(x.size(), loc), x.shape(), loc);
}

// The indices of the true elements of a boolean (or any) array, one int64 array per dimension.
std::vector<Array> nonzero_of(const Array& a) {
  std::vector<std::vector<std::int64_t>> coords(static_cast<std::size_t>(a.ndim()));
  auto strides = ops::contiguous_strides(a.shape());
  for (std::int64_t f = 0; f < a.size(); ++f) {
    if (a.get_flat(f) == 0) continue;
    for (int d = 0; d < a.ndim(); ++d) {
      auto u = static_cast<std::size_t>(d);
      coords[u].push_back((f / strides[u]) % a.shape()[u]);
    }
  }
  std::vector<Array> out;
  for (auto& c : coords) {
    auto n = static_cast<std::int64_t>(c.size());
    out.push_back(Array::from_vector<std::int64_t>(c, {n}));
  }
  return out;
}

// One entry of an expanded index: a basic one (int, slice, newaxis) or an integer tensor. A tensor
// entry with new_axis indexes a size-1 axis of its own (a 0-d boolean mask: [0] for true, [] for
// false, as NumPy's x[True] and x[False]); an ellipsis entry marks an ellipsis that stands for no
// axis, which still keeps the advanced indices on either side apart (NumPy's placement rule).
struct Entry {
  std::optional<Index> basic;
  Tensor tensor;
  bool new_axis = false;
  bool checked = false;  // a tensor whose values are known to lie in their axis's range
  int axis = 0;          // the axis of x a tensor indexes
};

std::string described(const Tensor& x) { return "'" + x.label() + "' of shape " + shape_string(x.shape()); }

// The error of an index out of its axis's range, naming the indexed tensor `x`.
[[noreturn]] void out_of_range(const char* name, const Tensor& x, const std::vector<Tensor>& operands, int axis,
                               std::int64_t index, const std::string& what, Loc loc) {
  std::int64_t n = x.shape()[static_cast<std::size_t>(axis)];
  fail(name, operands, kShape,
       what + std::to_string(index) + " is out of bounds for axis " + std::to_string(axis) + " of " + described(x) +
           ", whose size is " + std::to_string(n),
       n == 0 ? "That axis is empty: no index is valid on it."
              : "Use indices in [" + std::to_string(-n) + ", " + std::to_string(n) + ") (" + std::to_string(-n) +
                    " to " + std::to_string(n - 1) + ", negative ones counting from the end).",
       loc);
}

// The index with its ellipsis expanded and its constant boolean masks turned into integer tensors;
// integers and constant integer tensors are checked against the axes they index. `x` is the tensor
// the user indexes (named by the errors); the index may be applied to another of its shape.
std::vector<Entry> expand(const char* name, const Tensor& x, const IndexList& index, Loc loc) {
  int consumed = 0, ellipses = 0;
  for (const auto& it : index) {
    if (it.is_tensor()) {
      const Tensor& t = it.tensor();
      if (t.dtype() == DType::b8) consumed += t.ndim();
      else if (is_integer(t.dtype())) consumed += 1;
      else
        fail(name, {x, t}, kDType, "an index tensor of dtype " + std::string(dtype_name(t.dtype())),
             "Index with integer or boolean tensors (astype(int64)).", loc);
    } else if (it.index().kind == Index::Kind::ellipsis) {
      ++ellipses;
    } else if (it.index().kind != Index::Kind::newaxis) {
      ++consumed;
    }
  }
  if (ellipses > 1) fail(name, {x}, kShape, "the index has more than one ellipsis (...)", "Use at most one.", loc);
  if (consumed > x.ndim())
    fail(name, {x}, kShape,
         "too many indices: the index addresses " + std::to_string(consumed) + " dimensions but " + described(x) +
             " has " + std::to_string(x.ndim()),
         "Index at most as many dimensions as the tensor has.", loc);
  std::vector<Entry> out;
  int dim = 0;  // the axis of x the next entry indexes
  for (const auto& it : index) {
    if (!it.is_tensor()) {
      const Index& ix = it.index();
      if (ix.kind == Index::Kind::ellipsis) {
        for (int k = 0; k < x.ndim() - consumed; ++k) out.push_back({Index::all(), Tensor()});
        if (x.ndim() == consumed) out.push_back({Index::ellipsis(), Tensor()});
        dim += x.ndim() - consumed;
        continue;
      }
      if (ix.kind == Index::Kind::integer) {
        std::int64_t n = x.shape()[static_cast<std::size_t>(dim)];
        if (is_symbol(n) && ix.value < 0)
          fail(name, {x}, kShape,
               "index " + std::to_string(ix.value) + " counts from the end of axis " + std::to_string(dim) + " of " +
                   described(x) + ", whose size is unknown (None) until the function is called",
               "Index from the start, or give the placeholder a fixed size on that axis.", loc);
        if (!is_symbol(n) && (ix.value < -n || ix.value >= n)) out_of_range(name, x, {x}, dim, ix.value, "index ", loc);
      }
      if (ix.kind != Index::Kind::newaxis) ++dim;
      out.push_back({ix, Tensor()});
      continue;
    }
    const Tensor& t = it.tensor();
    if (t.dtype() != DType::b8) {
      std::int64_t n = x.shape()[static_cast<std::size_t>(dim)];
      bool checked = false;
      if (!is_symbol(n))
        if (auto value = concrete(t)) {
          for (std::int64_t k = 0; k < value->size(); ++k) {
            auto v = static_cast<std::int64_t>(value->get_flat(k));
            if (v < -n || v >= n) out_of_range(name, x, {x, t}, dim, v, "index ", loc);
          }
          checked = true;
        }
      out.push_back({std::nullopt, t, false, checked, dim});
      ++dim;
      continue;
    }
    auto value = concrete(t);
    if (!value) {
      Tensor src = symbolic_source(t);
      fail(name, {x, t}, kValue,
           "the boolean mask '" + t.label() + "' is symbolic (it depends on " +
               (src.op() == OpKind::Placeholder ? std::string("placeholder") : std::string(op_name(src.op()))) + " '" +
               src.label() +
               "'), so the number of elements it selects (the result's shape) is known only when the graph runs",
           "Use sx.where(mask, x, 0) (or x.at[mask].set(v) = where(mask, v, x) as the whole index of an update), "
           "or the indices of a static number of true elements: x[sx.nonzero(mask, size=k)] (padded with "
           "fill_value).",
           loc);
    }
    if (t.ndim() == 0) {  // x[True] adds an axis of size 1, x[False] one of size 0
      Array pick = value->get_flat(0) != 0 ? Array::from_vector<std::int64_t>({0}, {1})
                                           : Array::from_vector<std::int64_t>({}, {0});
      out.push_back({std::nullopt, constant(pick, loc), true, true, dim});
      continue;
    }
    // The mask's shape must match the dimensions it covers.
    for (int d = 0; d < t.ndim(); ++d) {
      std::int64_t want = x.shape()[static_cast<std::size_t>(dim + d)], got = t.shape()[static_cast<std::size_t>(d)];
      if (got != want)
        fail(name, {x, t}, kShape,
             "the boolean mask of shape " + shape_string(t.shape()) + " does not match axis " +
                 std::to_string(dim + d) + " of " + described(x) + ": the mask's axis " + std::to_string(d) +
                 " has size " + std::to_string(got) + " where the tensor's has " +
                 (is_symbol(want) ? std::string("an unknown size (None)") : std::to_string(want)),
             "Give the mask the shape of the dimensions it selects from.", loc);
    }
    int d = dim;
    for (auto& a : nonzero_of(*value)) out.push_back({std::nullopt, constant(a, loc), false, true, d++});
    dim += t.ndim();
  }
  return out;
}

// x[index]: `src` indexed by `index` (NumPy's basic and advanced indexing); src is the user's tensor x
// or a tensor of its shape (the positions of the indexed updates), and the errors name x.
Tensor get_impl(const char* name, const Tensor& x, const Tensor& src, const IndexList& index, Loc loc) {
  std::vector<Entry> entries = expand(name, x, index, loc);
  bool advanced = std::any_of(entries.begin(), entries.end(), [](const Entry& e) { return !e.basic; });
  if (!advanced) {
    std::vector<Index> basic;
    for (const auto& e : entries) basic.push_back(*e.basic);
    return slice(src, basic, loc);
  }
  // Basic indexing first, keeping the advanced axes whole; integers join the advanced indices.
  std::vector<Index> basic;
  std::vector<Tensor> adv;
  std::vector<int> adv_axes;
  std::vector<std::size_t> adv_entries;  // where each advanced index sits in `entries`
  std::vector<bool> adv_checked;         // whether its values are known to be in range
  std::vector<int> adv_x_axes;           // the axis of x it indexes
  int axis = 0;
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const Entry& e = entries[k];
    if (e.basic && e.basic->kind == Index::Kind::ellipsis) {
      basic.push_back(*e.basic);  // stands for no axis
      continue;
    }
    if (e.basic && e.basic->kind != Index::Kind::integer) {
      basic.push_back(*e.basic);
      ++axis;
      continue;
    }
    basic.push_back(e.new_axis ? Index::newaxis() : Index::all());
    adv.push_back(e.basic ? constant(static_cast<double>(e.basic->value), DType::i64, loc) : e.tensor);
    adv_checked.push_back(e.basic || e.checked);
    adv_x_axes.push_back(e.axis);
    adv_axes.push_back(axis++);
    adv_entries.push_back(k);
  }
  Tensor y = slice(src, basic, loc);
  // NumPy: the broadcast dimensions replace the advanced indices when nothing else stands between
  // them (a slice, a newaxis or an ellipsis); otherwise they go first.
  bool adjacent = adv_entries.back() - adv_entries.front() + 1 == adv_entries.size();
  // One flat index over the advanced axes.
  Shape bshape;
  for (const auto& t : adv) {
    try {
      bshape = ops::broadcast_shapes(bshape, t.shape());
    } catch (const TypeProblem&) {
      std::string shapes;
      for (const auto& u : adv) shapes += (shapes.empty() ? "" : ", ") + shape_string(u.shape());
      fail(name, adv, kShape, "the index tensors' shapes " + shapes + " do not broadcast together",
           "Give the integer index tensors shapes that broadcast (as NumPy's advanced indexing).", loc);
    }
  }
  if (adv.size() > 1)
    for (int a : adv_axes)
      if (is_symbol(y.shape()[static_cast<std::size_t>(a)]))
        fail(name, {x}, kShape,
             "advanced indices on several axes need the sizes of those axes, and an indexed axis of " + described(x) +
                 " is unknown (None) until the function is called",
             "Index that axis with one integer tensor only (take), or give the placeholder a fixed size on it.", loc);
  std::int64_t total = 1;
  for (int a : adv_axes) total *= y.shape()[static_cast<std::size_t>(a)];
  // An index known only when the graph runs is checked then, against its own axis of x: a gather
  // from 0, 1, ..., n - 1 laid along that axis, so that the error names the index, the axis and its
  // size (and the gather wraps a negative index).
  auto checked_index = [&](std::size_t k) {
    int ax = adv_x_axes[k];
    std::int64_t n = y.shape()[static_cast<std::size_t>(adv_axes[k])];
    Shape along(static_cast<std::size_t>(ax), 1);
    along.push_back(n);
    Tensor i = take(reshape(iota(n, loc), along, loc), adv[k], ax, loc);
    if (ax == 0) return i;
    std::vector<int> lead(static_cast<std::size_t>(ax));
    std::iota(lead.begin(), lead.end(), 0);
    return squeeze(i, lead, loc);
  };
  Tensor flat;
  if (adv.size() == 1) {
    // take wraps negative indices (the constant ones are in range)
    flat = adv_checked[0] || is_symbol(y.shape()[static_cast<std::size_t>(adv_axes[0])]) ? adv[0] : checked_index(0);
  } else {
    std::int64_t stride = total;
    for (std::size_t k = 0; k < adv.size(); ++k) {
      std::int64_t n = y.shape()[static_cast<std::size_t>(adv_axes[k])];
      stride /= std::max<std::int64_t>(n, 1);
      Tensor i = cast(adv[k], DType::i64, loc);
      i = adv_checked[k] ? where(less(i, 0, loc), add(i, n, loc), i, loc) : checked_index(k);
      Tensor term = multiply(i, stride, loc);
      flat = flat.defined() ? add(flat, term, loc) : term;
    }
    flat = broadcast_to(flat, bshape, loc);
  }
  std::vector<int> perm(adv_axes.begin(), adv_axes.end());
  Shape merged{total};
  for (int d = 0; d < y.ndim(); ++d)
    if (std::find(adv_axes.begin(), adv_axes.end(), d) == adv_axes.end()) {
      perm.push_back(d);
      merged.push_back(y.shape()[static_cast<std::size_t>(d)]);
    }
  bool identity = true;
  for (std::size_t d = 0; d < perm.size(); ++d) identity = identity && perm[d] == static_cast<int>(d);
  Tensor yt = reshape(identity ? y : transpose(y, perm, loc), merged, loc);
  Tensor r = take(yt, flat, 0, loc);
  int p = adv_axes.front();
  if (adjacent && p > 0) {
    // The broadcast dimensions go where the (adjacent) advanced indices were, as NumPy puts them.
    int nb = static_cast<int>(bshape.size()), rest = r.ndim() - nb;
    std::vector<int> back;
    for (int d = 0; d < p; ++d) back.push_back(nb + d);
    for (int d = 0; d < nb; ++d) back.push_back(d);
    for (int d = p; d < rest; ++d) back.push_back(nb + d);
    r = transpose(r, back, loc);
  }
  return r;
}

bool has_tensor(const IndexList& index) {
  return std::any_of(index.begin(), index.end(), [](const IndexItem& it) { return it.is_tensor(); });
}

enum class Update { set, add, mul, div, min, max };

Tensor update(const char* name, Update kind, const Tensor& x, const IndexList& index, const Operand& values, Loc loc) {
  Tensor v = as_tensor(values, x.dtype(), loc);
  // A symbolic boolean mask as the whole index: where(mask, op(x, v), x).
  bool mask_only = !index.empty() && index[0].is_tensor() && index[0].tensor().dtype() == DType::b8 &&
                   (index.size() == 1 ||
                    (index.size() == 2 && !index[1].is_tensor() && index[1].index().kind == Index::Kind::ellipsis));
  if (mask_only && !concrete(index[0].tensor())) {
    const Tensor& mask = index[0].tensor();
    Shape lead(x.shape().begin(), x.shape().begin() + std::min(mask.ndim(), x.ndim()));
    if (mask.ndim() > x.ndim() || mask.shape() != lead)
      fail(name, {x, mask}, kShape,
           "the boolean mask of shape " + shape_string(mask.shape()) + " does not match the leading dimensions of " +
               "the tensor of shape " + shape_string(x.shape()),
           "Give the mask the shape of the tensor's leading dimensions.", loc);
    if (v.ndim() > x.ndim() - mask.ndim())
      fail(name, {x, mask, v}, kShape,
           "with a symbolic mask the values must broadcast to the unmasked trailing dimensions " +
               shape_string(Shape(x.shape().begin() + mask.ndim(), x.shape().end())) + ", got shape " +
               shape_string(v.shape()),
           "Pass a scalar or values of the trailing dimensions' shape; the number of selected elements is unknown "
           "until the graph runs.",
           loc);
    Shape ms = mask.shape();
    ms.resize(static_cast<std::size_t>(x.ndim()), 1);
    Tensor m = reshape(mask, ms, loc);
    Tensor target;
    switch (kind) {
      case Update::set: target = v; break;
      case Update::add: target = add(x, v, loc); break;
      case Update::mul: target = multiply(x, v, loc); break;
      case Update::div: target = divide(x, v, loc); break;
      case Update::min: target = minimum(x, v, loc); break;
      case Update::max: target = maximum(x, v, loc); break;
    }
    return named_composite(name, where(m, target, x, loc));
  }
  Tensor pos = get_impl(name, x, positions_of(name, x, loc), index, loc);
  Tensor u = broadcast_to(v, pos.shape(), loc);
  switch (kind) {
    case Update::set:
      return named_composite(name, ops::make_node(OpKind::ScatterSet, {x, pos, u}, NoAttr{}, loc, name));
    case Update::add: return named_composite(name, add(x, ops::scatter_add_at(u, pos, x.shape()), loc));
    case Update::mul:
      return named_composite(name, ops::make_node(OpKind::ScatterMul, {x, pos, u}, NoAttr{}, loc, name));
    case Update::div:
      return named_composite(
          name, divide(x, ops::make_node(OpKind::ScatterMul, {ones_like(x, loc), pos, u}, NoAttr{}, loc, name), loc));
    case Update::min:
      return named_composite(name, ops::make_node(OpKind::ScatterMin, {x, pos, u}, NoAttr{}, loc, name));
    case Update::max:
      return named_composite(name, ops::make_node(OpKind::ScatterMax, {x, pos, u}, NoAttr{}, loc, name));
  }
  return x;
}

DType float_of(DType d) { return d == DType::f64 ? DType::f64 : DType::f32; }

// The edges of `bins` over the values v (1-D, float) with an optional range.
Tensor edges_of(const char* name, const Tensor& v, const Bins& bins, const Range& range, Loc loc) {
  DType f = v.dtype();
  if (!bins.is_count()) {
    const Tensor& e = bins.edges();
    if (e.ndim() != 1 || (!has_symbols(e.shape()) && e.shape()[0] < 2))
      fail(name, {v, e}, kShape, "bin edges of shape " + shape_string(e.shape()),
           "Pass a 1-D tensor of at least two increasing edges.", loc);
    return cast(e, f, loc);
  }
  std::int64_t n = bins.count();
  if (n < 1) fail(name, {v}, kValue, "bins = " + std::to_string(n), "Pass a positive number of bins.", loc);
  Tensor lo, hi;
  if (range) {
    auto [a, b] = *range;
    if (!(a <= b) || !std::isfinite(a) || !std::isfinite(b))
      fail(name, {v}, kValue, "range (" + std::to_string(a) + ", " + std::to_string(b) + ") is not finite and ordered",
           "Pass range=(low, high) with low <= high.", loc);
    if (a == b) a -= 0.5, b += 0.5;
    lo = constant(a, f, loc), hi = constant(b, f, loc);
  } else if (v.size() == 0) {
    lo = constant(0, f, loc), hi = constant(1, f, loc);
  } else {
    lo = min(v, {}, false, loc), hi = max(v, {}, false, loc);
    Tensor same = symx::equal(lo, hi, loc);
    lo = where(same, subtract(lo, 0.5, loc), lo, loc);
    hi = where(same, add(hi, 0.5, loc), hi, loc);
  }
  Tensor steps = constant(Array::arange(0, static_cast<double>(n), 1, f), loc);
  Tensor inner = add(lo, multiply(steps, divide(subtract(hi, lo, loc), static_cast<double>(n), loc), loc), loc);
  return concatenate({inner, reshape(hi, {1}, loc)}, 0, loc);
}

// For each value: its bin (int64) and whether it lies within the edges.
std::pair<Tensor, Tensor> bin_of(const Tensor& v, const Tensor& edges, Loc loc) {
  std::int64_t n = edges.shape()[0] - 1;
  Tensor lo = slice(edges, {Index(0)}, loc), hi = slice(edges, {Index(-1)}, loc);
  Tensor valid = logical_and(greater_equal(v, lo, loc), less_equal(v, hi, loc), loc);
  if (n == 1) return {zeros_like(cast(v, DType::i64, loc), loc), valid};
  Tensor interior = slice(edges, {Index::range(1, n)}, loc);
  Tensor idx = sum(cast(greater_equal(expand_dims(v, -1, loc), interior, loc), DType::i64, loc), -1, false, loc);
  return {idx, valid};
}

}  // namespace

Tensor index_get(const Tensor& x, const IndexList& index, Loc loc) {
  return named_composite("index_get", get_impl("index_get", x, x, index, loc));
}

// x[index]: basic indexing (no tensor in the index) is slice's, an advanced one index_get's.
Tensor Tensor::operator[](const IndexList& index) const {
  if (!has_tensor(index)) {
    std::vector<Index> basic;
    for (const auto& it : index) basic.push_back(it.index());
    return slice(*this, basic);
  }
  return index_get(*this, index);
}
Tensor Tensor::operator[](const IndexItem& index) const { return (*this)[IndexList{index}]; }
Tensor index_update(const Tensor& x, const IndexList& index, const Operand& values, Loc loc) {
  return update("index_update", Update::set, x, index, values, loc);
}
Tensor index_add(const Tensor& x, const IndexList& index, const Operand& values, Loc loc) {
  return update("index_add", Update::add, x, index, values, loc);
}
Tensor index_multiply(const Tensor& x, const IndexList& index, const Operand& values, Loc loc) {
  return update("index_multiply", Update::mul, x, index, values, loc);
}
Tensor index_divide(const Tensor& x, const IndexList& index, const Operand& values, Loc loc) {
  return update("index_divide", Update::div, x, index, values, loc);
}
Tensor index_min(const Tensor& x, const IndexList& index, const Operand& values, Loc loc) {
  return update("index_min", Update::min, x, index, values, loc);
}
Tensor index_max(const Tensor& x, const IndexList& index, const Operand& values, Loc loc) {
  return update("index_max", Update::max, x, index, values, loc);
}

Tensor put_along_axis(const Tensor& x, const Tensor& indices, const Operand& values, std::optional<int> axis, Loc loc) {
  Tensor src = axis ? x : reshape(x, {-1}, loc);
  if (!axis && indices.ndim() != 1)
    fail("put_along_axis", {x, indices}, kShape,
         "without an axis the indices must be 1-D, got shape " + shape_string(indices.shape()),
         "Pass 1-D indices into the flattened tensor, or an axis.", loc);
  Tensor pos = take_along_axis(positions_of("put_along_axis", src, loc), indices, axis.value_or(0), loc);
  // take_along_axis broadcasts the positions to the shape of the other axes.
  Tensor u = broadcast_to(as_tensor(values, x.dtype(), loc), pos.shape(), loc);
  return named_composite("put_along_axis",
                         ops::make_node(OpKind::ScatterSet, {src, pos, u}, NoAttr{}, loc, "put_along_axis"));
}

Tensor put(const Tensor& x, const Tensor& indices, const Tensor& values, const std::string& mode, Loc loc) {
  if (!is_integer(indices.dtype()))
    fail("put", {x, indices}, kDType, "indices of dtype " + std::string(dtype_name(indices.dtype())),
         "Pass integer indices (astype(int64)).", loc);
  if (mode != "raise" && mode != "wrap" && mode != "clip")
    fail("put", {x}, kValue, "unknown mode '" + mode + "'", "Use mode=\"raise\", \"wrap\" or \"clip\".", loc);
  std::int64_t n = x.size();
  Tensor pos = cast(reshape(indices, {-1}, loc), DType::i64, loc);
  if (n > 0 && mode == "wrap") pos = mod(pos, n, loc);
  if (n > 0 && mode == "clip") pos = clip(pos, 0, n - 1, loc);
  std::int64_t m = pos.size(), k = values.size();
  Tensor v = reshape(cast(values, x.dtype(), loc), {-1}, loc);
  if (m > 0 && k == 0)
    fail("put", {x, values}, kShape, "no values to put at " + std::to_string(m) + " indices",
         "Pass at least one value.", loc);
  if (k != m && m > 0) v = take(v, mod(iota(m, loc), k, loc), 0, loc);
  if (m == 0) return x;
  positions_of("put", x, loc);
  return named_composite("put", ops::make_node(OpKind::ScatterSet, {x, pos, v}, NoAttr{}, loc, "put"));
}

Tensor place(const Tensor& x, const Tensor& mask, const Tensor& vals, Loc loc) {
  if (mask.size() != x.size())
    fail("place", {x, mask}, kShape,
         "the mask has " + std::to_string(mask.size()) + " elements and the tensor " + std::to_string(x.size()),
         "Pass a mask of the tensor's shape.", loc);
  std::int64_t k = vals.size();
  Tensor m = reshape(not_equal(mask, 0, loc), {-1}, loc);
  if (k == 0) {
    if (auto value = concrete(m); value && nonzero_of(*value)[0].size() == 0) return x;
    fail("place", {x, vals}, kValue, "vals is empty", "Pass at least one value to place.", loc);
  }
  Tensor count = subtract(cumsum(cast(m, DType::i64, loc), 0, loc), 1, loc);
  Tensor taken = take(reshape(cast(vals, x.dtype(), loc), {-1}, loc), mod(count, k, loc), 0, loc);
  return named_composite("place", where(reshape(m, x.shape(), loc), reshape(taken, x.shape(), loc), x, loc));
}

Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights, std::int64_t minlength,
                std::optional<std::int64_t> length, Loc loc) {
  if (!is_integer(x.dtype()) || x.ndim() != 1)
    fail("bincount", {x}, kDType,
         "x must be a 1-D tensor of non-negative integers, got " + std::string(dtype_name(x.dtype())) + " of shape " +
             shape_string(x.shape()),
         "Pass a 1-D integer tensor (astype(int64)).", loc);
  if (minlength < 0) fail("bincount", {x}, kValue, "minlength is negative", "Pass minlength >= 0.", loc);
  if (weights && weights->shape() != x.shape())
    fail("bincount", {x, *weights}, kShape,
         "weights of shape " + shape_string(weights->shape()) + " differ from x's " + shape_string(x.shape()),
         "Pass one weight per value.", loc);
  std::int64_t n;
  if (length) {
    if (*length < 0) fail("bincount", {x}, kValue, "length is negative", "Pass length >= 0.", loc);
    n = *length;
  } else {
    auto value = concrete(x);
    if (!value) needs_size("bincount", x, "length", loc);
    n = minlength;
    for (std::int64_t i = 0; i < value->size(); ++i) {
      double v = value->get_flat(i);
      if (v < 0)
        fail("bincount", {x}, kValue, "x has a negative value (" + std::to_string(static_cast<std::int64_t>(v)) + ")",
             "Pass non-negative integers.", loc);
      n = std::max(n, static_cast<std::int64_t>(v) + 1);
    }
  }
  Tensor w = weights ? *weights : ones_like(cast(x, DType::i64, loc), loc);
  Tensor i = cast(x, DType::i64, loc);
  // Values outside [0, n) land in an extra bin that is dropped (jnp's length= drops them).
  Tensor slot = where(logical_and(greater_equal(i, 0, loc), less(i, n, loc), loc), i, n, loc);
  Tensor counts = ops::scatter_add_at(w, slot, {n + 1});
  return named_composite("bincount", slice(counts, {Index::range(0, n)}, loc));
}

Tensor histogram_bin_edges(const Tensor& x, const Bins& bins, Range range, const std::optional<Tensor>& weights,
                           Loc loc) {
  (void)weights;  // NumPy's signature; the edges do not depend on the weights
  Tensor v = reshape(cast(x, float_of(x.dtype()), loc), {-1}, loc);
  return named_composite("histogram_bin_edges", edges_of("histogram_bin_edges", v, bins, range, loc));
}

std::pair<Tensor, std::vector<Tensor>> histogramdd(const Tensor& sample, const std::vector<Bins>& bins,
                                                   const std::vector<std::pair<double, double>>& ranges,
                                                   const std::optional<Tensor>& weights, bool density, Loc loc) {
  const char* name = "histogramdd";
  Tensor s = sample.ndim() == 1 ? reshape(sample, {-1, 1}, loc) : sample;
  if (s.ndim() != 2)
    fail(name, {sample}, kShape, "sample of shape " + shape_string(sample.shape()),
         "Pass an (N, D) tensor of N points in D dimensions.", loc);
  auto dims = static_cast<std::size_t>(s.shape()[1]);
  if (bins.size() != 1 && bins.size() != dims)
    fail(name, {sample}, kShape, std::to_string(bins.size()) + " bins for " + std::to_string(dims) + " dimensions",
         "Pass one bins entry per dimension, or one for all.", loc);
  if (!ranges.empty() && ranges.size() != dims)
    fail(name, {sample}, kShape, std::to_string(ranges.size()) + " ranges for " + std::to_string(dims) + " dimensions",
         "Pass one (low, high) pair per dimension.", loc);
  if (weights && weights->size() != s.shape()[0])
    fail(name, {sample, *weights}, kShape,
         "weights of shape " + shape_string(weights->shape()) + " for " + std::to_string(s.shape()[0]) + " points",
         "Pass one weight per point.", loc);
  Tensor f = cast(s, float_of(s.dtype()), loc);
  std::vector<Tensor> edges;
  Tensor flat, valid;
  Shape counts_shape;
  for (std::size_t d = 0; d < dims; ++d) {
    Tensor col = slice(f, {Index::all(), Index(static_cast<std::int64_t>(d))}, loc);
    Range r = ranges.empty() ? Range() : Range(ranges[d]);
    Tensor e = edges_of(name, col, bins.size() == 1 ? bins[0] : bins[d], r, loc);
    auto [idx, ok] = bin_of(col, e, loc);
    std::int64_t n = e.shape()[0] - 1;
    counts_shape.push_back(n);
    flat = flat.defined() ? add(multiply(flat, n, loc), idx, loc) : idx;
    valid = valid.defined() ? logical_and(valid, ok, loc) : ok;
    edges.push_back(e);
  }
  Tensor w = weights ? reshape(*weights, {-1}, loc) : ones_like(flat, loc);
  std::int64_t cells = num_elements(counts_shape);
  Tensor counts = ops::scatter_add_at(where(valid, w, 0, loc), where(valid, flat, 0, loc), {cells});
  counts = reshape(counts, counts_shape, loc);
  if (density) {
    Tensor c = cast(counts, float_of(counts.dtype()), loc);
    Tensor result = divide(c, sum(c, {}, false, loc), loc);
    for (std::size_t d = 0; d < dims; ++d) {
      std::int64_t n = counts_shape[d];
      Tensor width = subtract(slice(edges[d], {Index::range(1, std::nullopt)}, loc),
                              slice(edges[d], {Index::range(0, n)}, loc), loc);
      Shape ws(dims, 1);
      ws[d] = n;
      result = divide(result, reshape(cast(width, result.dtype(), loc), ws, loc), loc);
    }
    counts = result;
  }
  return {named_composite(name, counts), edges};
}

std::pair<Tensor, Tensor> histogram(const Tensor& x, const Bins& bins, Range range,
                                    const std::optional<Tensor>& weights, bool density, Loc loc) {
  std::vector<std::pair<double, double>> ranges;
  if (range) ranges.push_back(*range);
  std::optional<Tensor> w;
  if (weights) {
    if (weights->shape() != x.shape())
      fail("histogram", {x, *weights}, kShape,
           "weights of shape " + shape_string(weights->shape()) + " differ from a's " + shape_string(x.shape()),
           "Pass one weight per value.", loc);
    w = reshape(*weights, {-1}, loc);
  }
  auto [counts, edges] = histogramdd(reshape(x, {-1, 1}, loc), {bins}, ranges, w, density, loc);
  return {named_composite("histogram", counts), edges[0]};
}

std::vector<Tensor> histogram2d(const Tensor& x, const Tensor& y, const std::vector<Bins>& bins,
                                const std::vector<std::pair<double, double>>& ranges,
                                const std::optional<Tensor>& weights, bool density, Loc loc) {
  if (x.ndim() != 1 || x.shape() != y.shape())
    fail("histogram2d", {x, y}, kShape,
         "x of shape " + shape_string(x.shape()) + " and y of shape " + shape_string(y.shape()),
         "Pass two 1-D tensors of the same length.", loc);
  DType t = promote_types(float_of(x.dtype()), float_of(y.dtype()));
  Tensor pts = stack({cast(x, t, loc), cast(y, t, loc)}, 1, loc);
  auto [counts, edges] = histogramdd(pts, bins, ranges, weights, density, loc);
  return {named_composite("histogram2d", counts), edges[0], edges[1]};
}

// ---- data-dependent output shapes ----

namespace {

std::int64_t count_of(const char* name, const Tensor& x, std::optional<std::int64_t> size, Loc loc) {
  if (size) {
    if (*size < 0) fail(name, {x}, kValue, "size = " + std::to_string(*size), "Pass size >= 0.", loc);
    return *size;
  }
  auto value = concrete(x);
  if (!value) needs_size(name, x, "size", loc);
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < value->size(); ++i) n += value->get_flat(i) != 0;
  return n;
}

// The flat indices of the first `size` true elements of the 1-D boolean m, and which entries are real.
std::pair<Tensor, Tensor> first_true(const Tensor& m, std::int64_t size, Loc loc) {
  std::int64_t n = m.size();
  Tensor c = cumsum(cast(m, DType::i64, loc), 0, loc);
  Tensor slot = where(logical_and(m, less_equal(c, size, loc), loc), subtract(c, 1, loc), size, loc);
  Tensor holder = zeros({size + 1}, DType::i64, loc);
  Tensor found = ops::make_node(OpKind::ScatterSet, {holder, slot, iota(n, loc)}, NoAttr{}, loc, "nonzero");
  Tensor idx = slice(found, {Index::range(0, size)}, loc);
  Tensor real = less(iota(size, loc), sum(cast(m, DType::i64, loc), {}, false, loc), loc);
  return {idx, real};
}

}  // namespace

std::vector<Tensor> nonzero(const Tensor& x, std::optional<std::int64_t> size, std::int64_t fill_value, Loc loc) {
  Tensor flat_x = reshape(x, {-1}, loc);
  std::int64_t s = count_of("nonzero", x, size, loc);
  auto [idx, real] = first_true(not_equal(flat_x, 0, loc), s, loc);
  std::vector<Tensor> out;
  Shape shape = x.ndim() == 0 ? Shape{1} : x.shape();
  auto strides = ops::contiguous_strides(shape);
  for (std::size_t d = 0; d < shape.size(); ++d) {
    Tensor coord = mod(floor_divide(idx, strides[d], loc), std::max<std::int64_t>(shape[d], 1), loc);
    out.push_back(named_composite("nonzero", where(real, coord, fill_value, loc)));
  }
  return out;
}

Tensor argwhere(const Tensor& x, std::optional<std::int64_t> size, std::int64_t fill_value, Loc loc) {
  if (x.ndim() == 0) {
    std::int64_t s = count_of("argwhere", x, size, loc);
    return zeros({s, 0}, DType::i64, loc);
  }
  return named_composite("argwhere", stack(nonzero(x, size, fill_value, loc), 1, loc));
}

Tensor flatnonzero(const Tensor& x, std::optional<std::int64_t> size, std::int64_t fill_value, Loc loc) {
  return named_composite("flatnonzero", nonzero(reshape(x, {-1}, loc), size, fill_value, loc)[0]);
}

Tensor compress(const Tensor& condition, const Tensor& x, std::optional<int> axis, std::optional<std::int64_t> size,
                double fill_value, Loc loc) {
  if (condition.ndim() != 1)
    fail("compress", {condition, x}, kShape, "condition of shape " + shape_string(condition.shape()),
         "Pass a 1-D condition.", loc);
  Tensor src = axis ? x : reshape(x, {-1}, loc);
  int ax = 0;
  if (axis) {
    try {
      ax = ops::checked_axis(*axis, x.ndim());
    } catch (const TypeProblem& p) {
      ops::raise("compress", {condition, x}, p, loc);
    }
  }
  if (condition.size() > src.shape()[static_cast<std::size_t>(ax)])
    fail("compress", {condition, x}, kShape,
         "condition has " + std::to_string(condition.size()) + " entries for an axis of size " +
             std::to_string(src.shape()[static_cast<std::size_t>(ax)]),
         "Pass at most as many entries as the axis has.", loc);
  Tensor m = not_equal(condition, 0, loc);
  std::int64_t s = count_of("compress", m, size, loc);
  auto [idx, real] = first_true(m, s, loc);
  Tensor taken = take(src, idx, ax, loc);
  Shape rs(static_cast<std::size_t>(src.ndim()), 1);
  rs[static_cast<std::size_t>(ax)] = s;
  return named_composite("compress", where(reshape(real, rs, loc), taken, constant(fill_value, x.dtype(), loc), loc));
}

Tensor extract(const Tensor& condition, const Tensor& x, std::optional<std::int64_t> size, double fill_value, Loc loc) {
  if (condition.size() != x.size())
    fail("extract", {condition, x}, kShape,
         "condition has " + std::to_string(condition.size()) + " elements and arr " + std::to_string(x.size()),
         "Pass a condition of arr's size.", loc);
  return named_composite("extract",
                         compress(reshape(condition, {-1}, loc), reshape(x, {-1}, loc), 0, size, fill_value, loc));
}

Tensor trim_zeros(const Tensor& x, const std::string& trim, std::optional<std::int64_t> size, double fill_value,
                  Loc loc) {
  if (x.ndim() != 1)
    fail("trim_zeros", {x}, kShape, "filt of shape " + shape_string(x.shape()), "Pass a 1-D tensor.", loc);
  std::int64_t n = x.size();
  bool front = trim.find_first_of("fF") != std::string::npos, back = trim.find_first_of("bB") != std::string::npos;
  if (n == 0) return x;
  Tensor nz = not_equal(x, 0, loc);
  Tensor any_nz = greater(sum(cast(nz, DType::i64, loc), {}, false, loc), 0, loc);
  Tensor first = front ? argmax(nz, 0, false, loc) : constant(0, DType::i64, loc);
  Tensor last = back ? subtract(n, argmax(flip(nz, {}, loc), 0, false, loc), loc) : constant(n, DType::i64, loc);
  Tensor len = where(any_nz, subtract(last, first, loc), 0, loc);
  if (!front && !back) len = constant(static_cast<double>(n), DType::i64, loc);
  std::int64_t s;
  if (size) {
    if (*size < 0) fail("trim_zeros", {x}, kValue, "size = " + std::to_string(*size), "Pass size >= 0.", loc);
    s = *size;
  } else {
    if (!concrete(x)) needs_size("trim_zeros", x, "size", loc);
    s = len.eval().item<std::int64_t>();
  }
  Tensor k = iota(s, loc);
  Tensor taken = take(x, clip(add(first, k, loc), 0, n - 1, loc), 0, loc);
  return named_composite("trim_zeros", where(less(k, len, loc), taken, constant(fill_value, x.dtype(), loc), loc));
}

}  // namespace symx

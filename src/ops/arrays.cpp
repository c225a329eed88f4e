// src/ops/arrays.cpp: the functions of symx/arrays.hpp. All are composites of the primitives of ops.hpp (no rows of
// their own): reshape/transpose/slice/concatenate/pad/take/where/matmul/sum, so that elementwise parts fuse and
// products are library calls; index helpers whose values depend on shapes only are constants.
#include "symx/arrays.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <queue>
#include <set>

#include "ops/op_table.hpp"

namespace symx::ops {

void register_arrays_ops() {}

}  // namespace symx::ops

namespace symx {
namespace {

using ops::TypeProblem;

[[noreturn]] void raise_shape(const char* name, const std::vector<Tensor>& operands, std::string problem,
                              std::string fix, Loc loc) {
  ops::raise(name, operands, {TypeProblem::Kind::shape, std::move(problem), std::move(fix)}, loc);
}
[[noreturn]] void raise_value(const char* name, const std::vector<Tensor>& operands, std::string problem,
                              std::string fix, Loc loc) {
  ops::raise(name, operands, {TypeProblem::Kind::value, std::move(problem), std::move(fix)}, loc);
}

int axis_of(const char* name, const Tensor& x, std::int64_t axis, Loc loc, const char* what = "axis") {
  try {
    return ops::checked_axis(axis, x.ndim(), what);
  } catch (const TypeProblem& problem) {
    ops::raise(name, {x}, problem, loc);
  }
}

void need_ndim(const char* name, const Tensor& x, int ndim, Loc loc, const char* fix) {
  if (x.ndim() < ndim)
    raise_shape(name, {x},
                "needs at least " + std::to_string(ndim) + " dimensions, got a " + std::to_string(x.ndim()) +
                    "-D tensor of shape " + shape_string(x.shape()),
                fix, loc);
}

void need_static(const char* name, const Tensor& x, Loc loc) {
  if (has_symbols(x.shape()))
    raise_shape(name, {x}, "needs known sizes, got shape " + shape_string(x.shape()),
                "Give the placeholder fixed sizes, or build the graph for a call's sizes.", loc);
}

// x[start:stop:step] along one axis.
Tensor range_along(const Tensor& x, int axis, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                   std::optional<std::int64_t> step, Loc loc) {
  std::vector<Index> index(static_cast<std::size_t>(axis), Index::all());
  index.push_back(Index::range(start, stop, step));
  return slice(x, index, loc);
}

Tensor int_constant(const std::vector<std::int64_t>& values, Shape shape, DType dtype, Loc loc) {
  Array a(std::move(shape), dtype);
  for (std::size_t i = 0; i < values.size(); ++i)
    a.set_flat(static_cast<std::int64_t>(i), static_cast<double>(values[i]));
  return constant(a, loc);
}

Tensor bool_constant(const std::vector<bool>& values, Shape shape, Loc loc) {
  Array a(std::move(shape), DType::b8);
  for (std::size_t i = 0; i < values.size(); ++i) a.set_flat(static_cast<std::int64_t>(i), values[i] ? 1 : 0);
  return constant(a, loc);
}

Tensor transposed(const Tensor& x, const std::vector<int>& perm, Loc loc) {
  for (std::size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int>(i)) return transpose(x, perm, loc);
  return x;
}

// symx's rule for float math: floats keep their dtype, integers and bools compute in float32.
DType float_of(DType d) { return is_floating(d) ? d : DType::f32; }

Tensor reshaped(const Tensor& x, const Shape& shape, Loc loc) {
  return x.shape() == shape ? x : reshape(x, shape, loc);
}

std::vector<Tensor> named_all(const char* name, std::vector<Tensor> xs) {
  for (auto& x : xs) x = named_composite(name, x);
  return xs;
}

}  // namespace

// ---- conversion and creation ----

Tensor array(const Tensor& a, std::optional<DType> dtype, Loc loc) {
  return dtype && *dtype != a.dtype() ? named_composite("array", cast(a, *dtype, loc)) : a;
}

Tensor asarray(const Tensor& a, std::optional<DType> dtype, Loc loc) {
  return dtype && *dtype != a.dtype() ? named_composite("asarray", cast(a, *dtype, loc)) : a;
}

Tensor empty(Shape shape, DType dtype, Loc loc) {
  return named_composite("empty", zeros(std::move(shape), dtype, loc));
}

Tensor empty_like(const Tensor& a, std::optional<DType> dtype, Loc loc) {
  return named_composite("empty_like", zeros(a.shape(), dtype.value_or(a.dtype()), loc));
}

Tensor full(Shape shape, const Operand& fill_value, std::optional<DType> dtype, Loc loc) {
  if (fill_value.is_tensor()) {
    const Tensor& f = fill_value.tensor();
    Tensor v = dtype ? cast(f, *dtype, loc) : f;
    return named_composite("full", broadcast_to(v, std::move(shape), loc));
  }
  DType dt = dtype.value_or(fill_value.integral() ? DType::i64 : DType::f32);
  ops::check_user_shape("full", shape, dt, loc);
  return named_composite("full", constant(Array::full(std::move(shape), fill_value.number(), dt), loc));
}

Tensor full_like(const Tensor& a, const Operand& fill_value, std::optional<DType> dtype, Loc loc) {
  DType dt = dtype.value_or(a.dtype());
  return named_composite("full_like", full(a.shape(), fill_value, dt, loc));
}

Tensor identity(std::int64_t n, DType dtype, Loc loc) { return named_composite("identity", eye(n, n, 0, dtype, loc)); }

Tensor tri(std::int64_t n, std::optional<std::int64_t> m, std::int64_t k, DType dtype, Loc loc) {
  std::int64_t cols = m.value_or(n);
  ops::check_user_shape("tri", {n, cols}, dtype, loc);
  Array a(Shape{n, cols}, dtype);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < cols; ++j) a.set_flat(i * cols + j, j <= i + k ? 1 : 0);
  return named_composite("tri", constant(a, loc));
}

Tensor geomspace(double start, double stop, std::int64_t num, bool endpoint, DType dtype, Loc loc) {
  if (start == 0 || stop == 0)
    raise_value("geomspace", {},
                "start and stop must be nonzero, got " + std::to_string(start) + " and " + std::to_string(stop),
                "A geometric sequence cannot include 0; use linspace.", loc);
  if ((start < 0) != (stop < 0))
    raise_value("geomspace", {}, "start and stop must have one sign (complex results are not supported)",
                "Pass start and stop of the same sign.", loc);
  if (num < 0)
    raise_value("geomspace", {}, "num must be non-negative, got " + std::to_string(num), "Pass num >= 0.", loc);
  double sign = start < 0 ? -1 : 1, ls = std::log10(sign * start), le = std::log10(sign * stop);
  Array a(Shape{num}, dtype);
  std::int64_t div = endpoint ? num - 1 : num;
  for (std::int64_t i = 0; i < num; ++i) {
    double t = div > 0 ? static_cast<double>(i) / static_cast<double>(div) : 0;
    double v = sign * std::pow(10.0, ls + t * (le - ls));
    if (i == 0) v = start;
    if (endpoint && i == num - 1 && num > 1) v = stop;
    a.set_flat(i, is_floating(dtype) ? v : std::floor(v));
  }
  return named_composite("geomspace", constant(a, loc));
}

Tensor logspace(double start, double stop, std::int64_t num, bool endpoint, double base, DType dtype, Loc loc) {
  if (num < 0)
    raise_value("logspace", {}, "num must be non-negative, got " + std::to_string(num), "Pass num >= 0.", loc);
  Array a(Shape{num}, dtype);
  std::int64_t div = endpoint ? num - 1 : num;
  double step = div > 0 ? (stop - start) / static_cast<double>(div) : 0;
  for (std::int64_t i = 0; i < num; ++i) {
    double e = start + static_cast<double>(i) * step;
    if (endpoint && i == num - 1 && num > 1) e = stop;
    double v = std::pow(base, e);
    a.set_flat(i, is_floating(dtype) ? v : std::floor(v));
  }
  return named_composite("logspace", constant(a, loc));
}

// ---- dimensions ----

Tensor atleast_1d(const Tensor& a, Loc loc) {
  return a.ndim() >= 1 ? a : named_composite("atleast_1d", reshape(a, {1}, loc));
}

Tensor atleast_2d(const Tensor& a, Loc loc) {
  if (a.ndim() >= 2) return a;
  return named_composite("atleast_2d", reshape(a, {1, a.ndim() == 0 ? 1 : a.shape()[0]}, loc));
}

Tensor atleast_3d(const Tensor& a, Loc loc) {
  if (a.ndim() >= 3) return a;
  Shape s = a.ndim() == 0   ? Shape{1, 1, 1}
            : a.ndim() == 1 ? Shape{1, a.shape()[0], 1}
                            : Shape{a.shape()[0], a.shape()[1], 1};
  return named_composite("atleast_3d", reshape(a, s, loc));
}

Tensor moveaxis(const Tensor& a, const std::vector<int>& source, const std::vector<int>& destination, Loc loc) {
  if (source.size() != destination.size())
    raise_value("moveaxis", {a},
                "source and destination must have the same number of axes, got " + std::to_string(source.size()) +
                    " and " + std::to_string(destination.size()),
                "Pass one destination for each source axis.", loc);
  std::vector<int> src, dst;
  for (int s : source) src.push_back(axis_of("moveaxis", a, s, loc, "source axis"));
  for (int d : destination) dst.push_back(axis_of("moveaxis", a, d, loc, "destination axis"));
  for (const auto* list : {&src, &dst}) {
    std::set<int> seen(list->begin(), list->end());
    if (seen.size() != list->size())
      raise_value("moveaxis", {a}, "repeated axis in " + std::string(list == &src ? "source" : "destination"),
                  "List each axis at most once.", loc);
  }
  std::vector<int> order;
  for (int n = 0; n < a.ndim(); ++n)
    if (std::find(src.begin(), src.end(), n) == src.end()) order.push_back(n);
  std::vector<std::pair<int, int>> pairs;
  for (std::size_t i = 0; i < src.size(); ++i) pairs.emplace_back(dst[i], src[i]);
  std::sort(pairs.begin(), pairs.end());
  for (auto [d, s] : pairs) order.insert(order.begin() + d, s);
  return named_composite("moveaxis", transposed(a, order, loc));
}

Tensor rollaxis(const Tensor& a, int axis, int start, Loc loc) {
  int n = a.ndim();
  int ax = axis_of("rollaxis", a, axis, loc);
  if (start < 0) start += n;
  if (start < 0 || start > n)
    raise_shape("rollaxis", {a},
                "start " + std::to_string(start) + " is out of range for a " + std::to_string(n) + "-D tensor",
                "Pass start in [-ndim, ndim].", loc);
  if (ax < start) --start;
  if (ax == start) return a;
  std::vector<int> order;
  for (int i = 0; i < n; ++i)
    if (i != ax) order.push_back(i);
  order.insert(order.begin() + start, ax);
  return named_composite("rollaxis", transposed(a, order, loc));
}

Tensor swapaxes(const Tensor& a, int axis1, int axis2, Loc loc) {
  int a1 = axis_of("swapaxes", a, axis1, loc, "axis1"), a2 = axis_of("swapaxes", a, axis2, loc, "axis2");
  std::vector<int> order(static_cast<std::size_t>(a.ndim()));
  std::iota(order.begin(), order.end(), 0);
  std::swap(order[static_cast<std::size_t>(a1)], order[static_cast<std::size_t>(a2)]);
  return named_composite("swapaxes", transposed(a, order, loc));
}

Tensor permute_dims(const Tensor& x, std::vector<int> axes, Loc loc) {
  return named_composite("permute_dims", transpose(x, std::move(axes), loc));
}

Tensor matrix_transpose(const Tensor& x, Loc loc) {
  need_ndim("matrix_transpose", x, 2, loc, "Pass a stack of matrices (..., M, N); use transpose for vectors.");
  return named_composite("matrix_transpose", swapaxes(x, -1, -2, loc));
}

Tensor ravel(const Tensor& a, Loc loc) { return a.ndim() == 1 ? a : named_composite("ravel", reshape(a, {-1}, loc)); }

Tensor dimshuffle(const Tensor& a, const std::vector<int>& pattern, Loc loc) {
  std::vector<int> kept;
  for (int p : pattern) {
    if (p == -1) continue;
    if (p < 0 || p >= a.ndim())
      raise_shape("dimshuffle", {a},
                  "pattern entry " + std::to_string(p) + " is not an axis of a " + std::to_string(a.ndim()) +
                      "-D tensor",
                  "List input axes 0..ndim-1 (and 'x' for new axes of size 1).", loc);
    if (std::find(kept.begin(), kept.end(), p) != kept.end())
      raise_shape("dimshuffle", {a}, "axis " + std::to_string(p) + " is listed twice", "List each axis at most once.",
                  loc);
    kept.push_back(p);
  }
  Shape squeezed;
  std::vector<int> dropped_map(static_cast<std::size_t>(a.ndim()), -1);
  for (int d = 0; d < a.ndim(); ++d) {
    if (std::find(kept.begin(), kept.end(), d) == kept.end()) {
      if (a.shape()[static_cast<std::size_t>(d)] != 1)
        raise_shape("dimshuffle", {a},
                    "axis " + std::to_string(d) + " of size " + std::to_string(a.shape()[static_cast<std::size_t>(d)]) +
                        " is left out of the pattern",
                    "Only axes of size 1 can be dropped; list every other axis.", loc);
    }
  }
  // Transpose the kept axes into pattern order (dropped size-1 axes last), then reshape in the new axes.
  std::vector<int> perm = kept;
  for (int d = 0; d < a.ndim(); ++d)
    if (std::find(kept.begin(), kept.end(), d) == kept.end()) perm.push_back(d);
  Tensor t = transposed(a, perm, loc);
  Shape out;
  for (int p : pattern) out.push_back(p == -1 ? 1 : a.shape()[static_cast<std::size_t>(p)]);
  return named_composite("dimshuffle", reshaped(t, out, loc));
}

namespace {
Tensor flatten_nd(const char* name, const Tensor& x, int keep, Loc loc) {
  need_ndim(name, x, keep, loc, "Pass a tensor with enough axes.");
  Shape s(x.shape().begin(), x.shape().begin() + keep);
  s.push_back(-1);
  return named_composite(name, reshape(x, s, loc));
}
}  // namespace

Tensor flatten2d(const Tensor& x, Loc loc) { return flatten_nd("flatten2d", x, 1, loc); }
Tensor flatten3d(const Tensor& x, Loc loc) { return flatten_nd("flatten3d", x, 2, loc); }
Tensor flatten4d(const Tensor& x, Loc loc) { return flatten_nd("flatten4d", x, 3, loc); }

Tensor reshape_weight_to_matrix(const Tensor& w, int dim, Loc loc) {
  need_ndim("reshape_weight_to_matrix", w, 1, loc, "Pass a weight tensor.");
  int d = axis_of("reshape_weight_to_matrix", w, dim, loc, "dim");
  Tensor t = moveaxis(w, {d}, {0}, loc);
  return named_composite("reshape_weight_to_matrix", reshape(t, {w.shape()[static_cast<std::size_t>(d)], -1}, loc));
}

Tensor resize(const Tensor& a, Shape new_shape, Loc loc) {
  need_static("resize", a, loc);
  for (auto s : new_shape)
    if (s < 0)
      raise_value("resize", {a}, "new_shape must be non-negative, got " + shape_string(new_shape), "Pass sizes >= 0.",
                  loc);
  std::int64_t total = num_elements(new_shape), n = a.size();
  if (total == 0 || n == 0) return named_composite("resize", zeros(new_shape, a.dtype(), loc));
  Tensor flat = ravel(a, loc);
  if (total == n) return named_composite("resize", reshape(flat, new_shape, loc));
  std::vector<std::int64_t> idx(static_cast<std::size_t>(total));
  for (std::int64_t i = 0; i < total; ++i) idx[static_cast<std::size_t>(i)] = i % n;
  return named_composite("resize", take(flat, int_constant(idx, new_shape, DType::i64, loc), std::nullopt, loc));
}

// ---- joining and splitting ----

namespace {
void need_some(const char* name, const std::vector<Tensor>& xs, Loc loc) {
  if (xs.empty()) raise_value(name, {}, "needs at least one array", "Pass a non-empty list of tensors.", loc);
}
}  // namespace

Tensor hstack(const std::vector<Tensor>& xs, Loc loc) {
  need_some("hstack", xs, loc);
  std::vector<Tensor> ys;
  for (const auto& x : xs) ys.push_back(atleast_1d(x, loc));
  return named_composite("hstack", concatenate(ys, ys[0].ndim() == 1 ? 0 : 1, loc));
}

Tensor vstack(const std::vector<Tensor>& xs, Loc loc) {
  need_some("vstack", xs, loc);
  std::vector<Tensor> ys;
  for (const auto& x : xs) ys.push_back(atleast_2d(x, loc));
  return named_composite("vstack", concatenate(ys, 0, loc));
}

Tensor dstack(const std::vector<Tensor>& xs, Loc loc) {
  need_some("dstack", xs, loc);
  std::vector<Tensor> ys;
  for (const auto& x : xs) ys.push_back(atleast_3d(x, loc));
  return named_composite("dstack", concatenate(ys, 2, loc));
}

Tensor column_stack(const std::vector<Tensor>& xs, Loc loc) {
  need_some("column_stack", xs, loc);
  std::vector<Tensor> ys;
  for (const auto& x : xs) ys.push_back(x.ndim() < 2 ? reshape(x, {x.ndim() == 0 ? 1 : x.shape()[0], 1}, loc) : x);
  return named_composite("column_stack", concatenate(ys, 1, loc));
}

std::vector<Tensor> unstack(const Tensor& x, int axis, Loc loc) {
  need_ndim("unstack", x, 1, loc, "Pass a tensor with at least one axis.");
  int ax = axis_of("unstack", x, axis, loc);
  need_static("unstack", x, loc);
  std::vector<Tensor> out;
  for (std::int64_t i = 0; i < x.shape()[static_cast<std::size_t>(ax)]; ++i) {
    std::vector<Index> index(static_cast<std::size_t>(ax), Index::all());
    index.emplace_back(i);
    out.push_back(named_composite("unstack", slice(x, index, loc)));
  }
  return out;
}

std::vector<Tensor> array_split(const Tensor& x, std::int64_t sections, int axis, Loc loc) {
  int ax = axis_of("array_split", x, axis, loc);
  if (sections <= 0)
    raise_value("array_split", {x}, "the number of sections must be positive, got " + std::to_string(sections),
                "Pass sections >= 1.", loc);
  std::int64_t n = x.shape()[static_cast<std::size_t>(ax)], each = n / sections, extra = n % sections;
  std::vector<std::int64_t> cuts;
  std::int64_t at = 0;
  for (std::int64_t i = 0; i + 1 < sections; ++i) {
    at += each + (i < extra ? 1 : 0);
    cuts.push_back(at);
  }
  return named_all("array_split", split(x, cuts, ax, loc));
}

namespace {
int hsplit_axis(const Tensor& x, Loc loc) {
  need_ndim("hsplit", x, 1, loc, "hsplit needs a tensor with at least one axis.");
  return x.ndim() == 1 ? 0 : 1;
}
}  // namespace

std::vector<Tensor> hsplit(const Tensor& x, std::int64_t sections, Loc loc) {
  return named_all("hsplit", split(x, sections, hsplit_axis(x, loc), loc));
}
std::vector<Tensor> hsplit(const Tensor& x, const std::vector<std::int64_t>& indices, Loc loc) {
  return named_all("hsplit", split(x, indices, hsplit_axis(x, loc), loc));
}
std::vector<Tensor> vsplit(const Tensor& x, std::int64_t sections, Loc loc) {
  need_ndim("vsplit", x, 2, loc, "vsplit works on tensors with 2 or more dimensions; use split for 1-D ones.");
  return named_all("vsplit", split(x, sections, 0, loc));
}
std::vector<Tensor> vsplit(const Tensor& x, const std::vector<std::int64_t>& indices, Loc loc) {
  need_ndim("vsplit", x, 2, loc, "vsplit works on tensors with 2 or more dimensions; use split for 1-D ones.");
  return named_all("vsplit", split(x, indices, 0, loc));
}
std::vector<Tensor> dsplit(const Tensor& x, std::int64_t sections, Loc loc) {
  need_ndim("dsplit", x, 3, loc, "dsplit works on tensors with 3 or more dimensions.");
  return named_all("dsplit", split(x, sections, 2, loc));
}
std::vector<Tensor> dsplit(const Tensor& x, const std::vector<std::int64_t>& indices, Loc loc) {
  need_ndim("dsplit", x, 3, loc, "dsplit works on tensors with 3 or more dimensions.");
  return named_all("dsplit", split(x, indices, 2, loc));
}

Tensor append(const Tensor& arr, const Tensor& values, std::optional<int> axis, Loc loc) {
  if (!axis) return named_composite("append", concatenate({ravel(arr, loc), ravel(values, loc)}, 0, loc));
  return named_composite("append", concatenate({arr, values}, *axis, loc));
}

Tensor insert(const Tensor& arr, const std::vector<std::int64_t>& obj, const Tensor& values, std::optional<int> axis,
              bool scalar_obj, Loc loc) {
  Tensor a = axis ? arr : ravel(arr, loc);
  int ax = axis_of("insert", a, axis.value_or(0), loc);
  need_static("insert", a, loc);
  std::int64_t n = a.shape()[static_cast<std::size_t>(ax)];
  std::vector<std::int64_t> index;
  for (auto i : obj) {
    if (i < -n || i > n)
      raise_shape("insert", {arr},
                  "index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(ax) + " of size " +
                      std::to_string(n),
                  "Pass indices in [-n, n].", loc);
    index.push_back(i < 0 ? i + n : i);
  }
  // The values, broadcast to a's shape with the inserted count along the axis (NumPy's rules).
  Tensor v = cast(values, a.dtype(), loc);
  std::int64_t count;
  if (scalar_obj) {
    while (v.ndim() < a.ndim()) v = expand_dims(v, 0, loc);
    v = moveaxis(v, {0}, {ax}, loc);
    count = v.shape()[static_cast<std::size_t>(ax)];
  } else {
    count = static_cast<std::int64_t>(index.size());
  }
  Shape target = a.shape();
  target[static_cast<std::size_t>(ax)] = count;
  v = broadcast_to(v, target, loc);
  if (scalar_obj) index.assign(static_cast<std::size_t>(count), index.empty() ? 0 : index[0]);
  // New positions of the inserted values (stable by index, each shifted by the ones before it), the rest in order.
  std::vector<std::size_t> order(index.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return index[i] < index[j]; });
  std::int64_t total = n + count;
  std::vector<std::int64_t> source(static_cast<std::size_t>(total), -1);
  for (std::size_t r = 0; r < order.size(); ++r)
    source[static_cast<std::size_t>(index[order[r]] + static_cast<std::int64_t>(r))] =
        n + static_cast<std::int64_t>(order[r]);
  std::int64_t next = 0;
  for (auto& s : source)
    if (s < 0) s = next++;
  Tensor joined = concatenate({a, v}, ax, loc);
  return named_composite("insert", take(joined, int_constant(source, {total}, DType::i64, loc), ax, loc));
}

namespace {
int block_depth(const Blocks& b, const char* name, Loc loc) {
  if (b.leaf) return 0;
  if (b.items.empty())
    raise_value(name, {}, "a list is empty", "Every list in block's nesting needs at least one element.", loc);
  int d = block_depth(b.items[0], name, loc);
  for (const auto& item : b.items)
    if (block_depth(item, name, loc) != d)
      raise_value(name, {}, "the lists are nested to different depths", "Nest every block at the same depth.", loc);
  return d + 1;
}
Tensor block_rec(const Blocks& b, int depth, int result_ndim, Loc loc) {
  if (b.leaf) {
    Tensor t = *b.leaf;
    while (t.ndim() < result_ndim) t = expand_dims(t, 0, loc);
    return t;
  }
  std::vector<Tensor> parts;
  for (const auto& item : b.items) parts.push_back(block_rec(item, depth - 1, result_ndim, loc));
  return parts.size() == 1 ? parts[0] : concatenate(parts, -depth, loc);
}
int max_leaf_ndim(const Blocks& b) {
  if (b.leaf) return b.leaf->ndim();
  int m = 0;
  for (const auto& item : b.items) m = std::max(m, max_leaf_ndim(item));
  return m;
}
}  // namespace

Tensor block(const Blocks& arrays, Loc loc) {
  int depth = block_depth(arrays, "block", loc);
  int ndim = std::max(depth, max_leaf_ndim(arrays));
  return named_composite("block", block_rec(arrays, depth, ndim, loc));
}

Tensor add_n(const std::vector<Tensor>& xs, Loc loc) {
  need_some("add_n", xs, loc);
  Tensor s = xs[0];
  for (std::size_t i = 1; i < xs.size(); ++i) s = add(s, xs[i], loc);
  return named_composite("add_n", s);
}

std::vector<Tensor> broadcast_arrays(const std::vector<Tensor>& xs, Loc loc) {
  Shape shape;
  for (const auto& x : xs) {
    try {
      shape = ops::broadcast_shapes(shape, x.shape());
    } catch (const TypeProblem& problem) {
      ops::raise("broadcast_arrays", xs, problem, loc);
    }
  }
  std::vector<Tensor> out;
  for (const auto& x : xs)
    out.push_back(x.shape() == shape ? x : named_composite("broadcast_arrays", broadcast_to(x, shape, loc)));
  return out;
}

// ---- flips, rolls, rotations ----

Tensor fliplr(const Tensor& a, Loc loc) {
  need_ndim("fliplr", a, 2, loc, "fliplr needs a tensor with at least 2 dimensions; use flip for 1-D ones.");
  return named_composite("fliplr", flip(a, {1}, loc));
}

Tensor flipud(const Tensor& a, Loc loc) {
  need_ndim("flipud", a, 1, loc, "flipud needs a tensor with at least 1 dimension.");
  return named_composite("flipud", flip(a, {0}, loc));
}

Tensor roll(const Tensor& a, const std::vector<std::int64_t>& shift, const std::vector<int>& axis, Loc loc) {
  if (axis.empty()) {
    if (shift.size() != 1)
      raise_value("roll", {a}, "without an axis, shift must be one number", "Pass one shift, or one axis per shift.",
                  loc);
    return named_composite("roll", reshape(roll(ravel(a, loc), shift, {0}, loc), a.shape(), loc));
  }
  std::vector<std::int64_t> shifts = shift;
  std::vector<int> axes = axis;
  if (shifts.size() == 1 && axes.size() > 1) shifts.assign(axes.size(), shift[0]);
  if (axes.size() == 1 && shifts.size() > 1) axes.assign(shifts.size(), axis[0]);
  if (shifts.size() != axes.size())
    raise_value("roll", {a},
                "shift and axis have different lengths (" + std::to_string(shift.size()) + " and " +
                    std::to_string(axis.size()) + ")",
                "Pass one shift per axis.", loc);
  need_static("roll", a, loc);
  std::vector<std::int64_t> total(static_cast<std::size_t>(a.ndim()), 0);
  for (std::size_t i = 0; i < axes.size(); ++i)
    total[static_cast<std::size_t>(axis_of("roll", a, axes[i], loc))] += shifts[i];
  Tensor t = a;
  for (int d = 0; d < a.ndim(); ++d) {
    std::int64_t n = a.shape()[static_cast<std::size_t>(d)];
    if (n == 0) continue;
    std::int64_t s = ((total[static_cast<std::size_t>(d)] % n) + n) % n;
    if (s == 0) continue;
    t = concatenate({range_along(t, d, n - s, n, std::nullopt, loc), range_along(t, d, 0, n - s, std::nullopt, loc)}, d,
                    loc);
  }
  return t == a ? a : named_composite("roll", t);
}

Tensor rot90(const Tensor& m, int k, std::vector<int> axes, Loc loc) {
  if (axes.size() != 2)
    raise_value("rot90", {m}, "axes must name 2 axes, got " + std::to_string(axes.size()), "Pass axes=(i, j).", loc);
  need_ndim("rot90", m, 2, loc, "rot90 needs a tensor with at least 2 dimensions.");
  int a0 = axis_of("rot90", m, axes[0], loc), a1 = axis_of("rot90", m, axes[1], loc);
  if (a0 == a1)
    raise_value("rot90", {m}, "the axes are the same axis " + std::to_string(a0), "Pass two different axes.", loc);
  k = ((k % 4) + 4) % 4;
  if (k == 0) return m;
  if (k == 2) return named_composite("rot90", flip(m, {a0, a1}, loc));
  std::vector<int> perm(static_cast<std::size_t>(m.ndim()));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[static_cast<std::size_t>(a0)], perm[static_cast<std::size_t>(a1)]);
  if (k == 1) return named_composite("rot90", transpose(flip(m, {a1}, loc), perm, loc));
  return named_composite("rot90", flip(transpose(m, perm, loc), {a1}, loc));
}

// ---- diagonals and triangles ----

Tensor diagonal(const Tensor& a, std::int64_t offset, int axis1, int axis2, Loc loc) {
  need_ndim("diagonal", a, 2, loc, "diagonal needs a tensor with at least 2 dimensions.");
  int a1 = axis_of("diagonal", a, axis1, loc, "axis1"), a2 = axis_of("diagonal", a, axis2, loc, "axis2");
  if (a1 == a2)
    raise_value("diagonal", {a}, "axis1 and axis2 are the same axis " + std::to_string(a1), "Pass two different axes.",
                loc);
  need_static("diagonal", a, loc);
  std::int64_t n = a.shape()[static_cast<std::size_t>(a1)], m = a.shape()[static_cast<std::size_t>(a2)];
  std::int64_t len = offset >= 0 ? std::min(n, m - offset) : std::min(n + offset, m);
  len = std::max<std::int64_t>(len, 0);
  // Move the two axes last, flatten them, and take every (m + 1)-th element from the first on the diagonal.
  std::vector<int> perm;
  for (int d = 0; d < a.ndim(); ++d)
    if (d != a1 && d != a2) perm.push_back(d);
  Shape s;
  for (int d : perm) s.push_back(a.shape()[static_cast<std::size_t>(d)]);
  perm.push_back(a1);
  perm.push_back(a2);
  s.push_back(n * m);
  Tensor flat = reshape(transposed(a, perm, loc), s, loc);
  int last = static_cast<int>(s.size()) - 1;
  if (len == 0) return named_composite("diagonal", range_along(flat, last, 0, 0, std::nullopt, loc));
  std::int64_t start = offset >= 0 ? offset : -offset * m;
  return named_composite("diagonal", range_along(flat, last, start, start + (len - 1) * (m + 1) + 1, m + 1, loc));
}

Tensor trace(const Tensor& a, std::int64_t offset, int axis1, int axis2, Loc loc) {
  return named_composite("trace", sum(diagonal(a, offset, axis1, axis2, loc), -1, false, loc));
}

Tensor diag(const Tensor& v, std::int64_t k, Loc loc) {
  if (v.ndim() == 2) return named_composite("diag", diagonal(v, k, 0, 1, loc));
  if (v.ndim() != 1)
    raise_shape("diag", {v}, "needs a 1-D or 2-D tensor, got shape " + shape_string(v.shape()),
                "Use diagonal for N-D tensors, diagflat to flatten first.", loc);
  need_static("diag", v, loc);
  std::int64_t len = v.shape()[0], a = std::abs(k);
  Tensor square = where(eye(len, len, 0, DType::b8, loc), expand_dims(v, 0, loc), 0, loc);
  std::vector<std::pair<std::int64_t, std::int64_t>> pads =
      k >= 0 ? std::vector<std::pair<std::int64_t, std::int64_t>>{{0, a}, {a, 0}}
             : std::vector<std::pair<std::int64_t, std::int64_t>>{{a, 0}, {0, a}};
  return named_composite("diag", a ? pad(square, pads, 0, loc) : square);
}

Tensor diagflat(const Tensor& v, std::int64_t k, Loc loc) {
  return named_composite("diagflat", diag(ravel(v, loc), k, loc));
}

Tensor fill_diagonal(const Tensor& a, const Tensor& val, bool wrap, Loc loc) {
  need_ndim("fill_diagonal", a, 2, loc, "fill_diagonal needs a tensor with at least 2 dimensions.");
  need_static("fill_diagonal", a, loc);
  const Shape& s = a.shape();
  std::int64_t total = num_elements(s), step, end = total;
  if (a.ndim() == 2) {
    step = s[1] + 1;
    if (!wrap) end = std::min(total, s[1] * s[1]);
  } else {
    for (auto d : s)
      if (d != s[0])
        raise_shape("fill_diagonal", {a}, "all dimensions of the input must be of equal length, got " + shape_string(s),
                    "Pass a 2-D tensor or an N-D one with equal sizes.", loc);
    step = 1;
    std::int64_t p = 1;
    for (std::size_t d = 1; d < s.size(); ++d) {
      p *= s[0];
      step += p;
    }
  }
  Tensor flat_val = ravel(cast(val, a.dtype(), loc), loc);
  std::int64_t nv = flat_val.size();
  if (nv == 0) return a;
  std::vector<bool> mask(static_cast<std::size_t>(total), false);
  std::vector<std::int64_t> pick(static_cast<std::size_t>(total), 0);
  std::int64_t r = 0;
  for (std::int64_t p = 0; p < end; p += step, ++r) {
    mask[static_cast<std::size_t>(p)] = true;
    pick[static_cast<std::size_t>(p)] = r % nv;
  }
  Tensor values =
      nv == 1 ? reshape(flat_val, {}, loc) : take(flat_val, int_constant(pick, s, DType::i64, loc), std::nullopt, loc);
  return named_composite("fill_diagonal", where(bool_constant(mask, s, loc), values, a, loc));
}

namespace {
Tensor triangle(const char* name, const Tensor& m, std::int64_t k, bool lower, Loc loc) {
  need_ndim(name, m, 2, loc, "Pass a matrix or a stack of matrices (..., M, N).");
  need_static(name, m, loc);
  std::int64_t rows = m.shape()[m.shape().size() - 2], cols = m.shape().back();
  std::vector<bool> keep(static_cast<std::size_t>(rows * cols));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      keep[static_cast<std::size_t>(i * cols + j)] = lower ? j <= i + k : j >= i + k;
  return named_composite(name, where(bool_constant(keep, {rows, cols}, loc), m, 0, loc));
}
std::vector<Tensor> triangle_indices(std::int64_t n, std::int64_t k, std::int64_t m, bool lower, Loc loc) {
  std::vector<std::int64_t> r, c;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j)
      if (lower ? j <= i + k : j >= i + k) {
        r.push_back(i);
        c.push_back(j);
      }
  auto len = static_cast<std::int64_t>(r.size());
  return {int_constant(r, {len}, DType::i64, loc), int_constant(c, {len}, DType::i64, loc)};
}
}  // namespace

Tensor tril(const Tensor& m, std::int64_t k, Loc loc) { return triangle("tril", m, k, true, loc); }
Tensor triu(const Tensor& m, std::int64_t k, Loc loc) { return triangle("triu", m, k, false, loc); }

std::vector<Tensor> diag_indices(std::int64_t n, int ndim, Loc loc) {
  if (n < 0) raise_value("diag_indices", {}, "n must be non-negative, got " + std::to_string(n), "Pass n >= 0.", loc);
  std::vector<std::int64_t> r(static_cast<std::size_t>(n));
  std::iota(r.begin(), r.end(), 0);
  std::vector<Tensor> out;
  for (int i = 0; i < ndim; ++i) out.push_back(int_constant(r, {n}, DType::i64, loc));
  return out;
}

std::vector<Tensor> diag_indices_from(const Tensor& a, Loc loc) {
  need_ndim("diag_indices_from", a, 2, loc, "Pass a tensor with at least 2 dimensions.");
  for (auto d : a.shape())
    if (d != a.shape()[0])
      raise_shape("diag_indices_from", {a},
                  "all dimensions of the input must be of equal length, got " + shape_string(a.shape()),
                  "Pass a square (n, n, ...) tensor.", loc);
  return diag_indices(a.shape()[0], a.ndim(), loc);
}

std::vector<Tensor> tril_indices(std::int64_t n, std::int64_t k, std::optional<std::int64_t> m, Loc loc) {
  return triangle_indices(n, k, m.value_or(n), true, loc);
}
std::vector<Tensor> triu_indices(std::int64_t n, std::int64_t k, std::optional<std::int64_t> m, Loc loc) {
  return triangle_indices(n, k, m.value_or(n), false, loc);
}
std::vector<Tensor> tril_indices_from(const Tensor& arr, std::int64_t k, Loc loc) {
  if (arr.ndim() != 2)
    raise_shape("tril_indices_from", {arr}, "needs a 2-D tensor, got shape " + shape_string(arr.shape()),
                "Pass a matrix.", loc);
  return triangle_indices(arr.shape()[0], k, arr.shape()[1], true, loc);
}
std::vector<Tensor> triu_indices_from(const Tensor& arr, std::int64_t k, Loc loc) {
  if (arr.ndim() != 2)
    raise_shape("triu_indices_from", {arr}, "needs a 2-D tensor, got shape " + shape_string(arr.shape()),
                "Pass a matrix.", loc);
  return triangle_indices(arr.shape()[0], k, arr.shape()[1], false, loc);
}

std::vector<Tensor> mask_indices(std::int64_t n, const std::function<Tensor(const Tensor&, std::int64_t)>& mask_func,
                                 std::int64_t k, Loc loc) {
  Array mask = mask_func(ones({n, n}, DType::i64, loc), k).eval();
  if (mask.shape() != Shape{n, n})
    raise_shape("mask_indices", {}, "mask_func returned shape " + shape_string(mask.shape()) + ", not (n, n)",
                "Pass a function such as triu or tril that keeps its input's shape.", loc);
  std::vector<std::int64_t> r, c;
  for (std::int64_t i = 0; i < n * n; ++i)
    if (mask.get_flat(i) != 0) {
      r.push_back(i / n);
      c.push_back(i % n);
    }
  auto len = static_cast<std::int64_t>(r.size());
  return {int_constant(r, {len}, DType::i64, loc), int_constant(c, {len}, DType::i64, loc)};
}

// ---- index helpers ----

Tensor indices(Shape dimensions, DType dtype, Loc loc) {
  auto nd = static_cast<std::int64_t>(dimensions.size());
  Shape out{nd};
  out.insert(out.end(), dimensions.begin(), dimensions.end());
  ops::check_user_shape("indices", out, dtype, loc);
  std::int64_t size = num_elements(dimensions);
  auto strides = ops::contiguous_strides(dimensions);
  std::vector<std::int64_t> v(static_cast<std::size_t>(nd * size));
  for (std::int64_t d = 0; d < nd; ++d)
    for (std::int64_t i = 0; i < size; ++i)
      v[static_cast<std::size_t>(d * size + i)] =
          (i / strides[static_cast<std::size_t>(d)]) % dimensions[static_cast<std::size_t>(d)];
  return named_composite("indices", int_constant(v, out, dtype, loc));
}

std::vector<Tensor> sparse_indices(Shape dimensions, DType dtype, Loc loc) {
  std::vector<Tensor> out;
  for (std::size_t d = 0; d < dimensions.size(); ++d) {
    Shape s(dimensions.size(), 1);
    s[d] = dimensions[d];
    std::vector<std::int64_t> r(static_cast<std::size_t>(std::max<std::int64_t>(dimensions[d], 0)));
    std::iota(r.begin(), r.end(), 0);
    out.push_back(int_constant(r, s, dtype, loc));
  }
  return out;
}

std::vector<Tensor> ix_(const std::vector<Tensor>& args, Loc loc) {
  std::vector<Tensor> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].ndim() != 1)
      raise_shape("ix_", {args[i]},
                  "argument " + std::to_string(i) + " has shape " + shape_string(args[i].shape()) +
                      "; each must be 1-D",
                  "Pass 1-D index sequences.", loc);
    Shape s(args.size(), 1);
    s[i] = args[i].shape()[0];
    out.push_back(named_composite("ix_", reshape(args[i], s, loc)));
  }
  return out;
}

std::vector<Tensor> unravel_index(const Tensor& idx, Shape shape, Loc loc) {
  if (is_floating(idx.dtype()))
    raise_value("unravel_index", {idx}, "indices must be integers", "Cast the indices with astype(int64).", loc);
  Tensor i = cast(idx, DType::i64, loc);
  std::vector<Tensor> out(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (d == 0) {
      out[d] = named_composite("unravel_index", i);
    } else {
      out[d] = named_composite("unravel_index", mod(i, shape[d], loc));
      i = floor_divide(i, shape[d], loc);
    }
  }
  return out;
}

Tensor ravel_multi_index(const std::vector<Tensor>& multi_index, Shape dims, const std::string& mode, Loc loc) {
  if (multi_index.size() != dims.size())
    raise_value("ravel_multi_index", multi_index,
                "got " + std::to_string(multi_index.size()) + " index arrays for " + std::to_string(dims.size()) +
                    " dimensions",
                "Pass one index array per dimension.", loc);
  if (mode != "raise" && mode != "wrap" && mode != "clip")
    raise_value("ravel_multi_index", multi_index, "unknown mode '" + mode + "'", "Pass mode='raise', 'wrap' or 'clip'.",
                loc);
  auto strides = ops::contiguous_strides(dims);
  Tensor flat;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (is_floating(multi_index[d].dtype()))
      raise_value("ravel_multi_index", multi_index, "indices must be integers", "Cast the indices with astype(int64).",
                  loc);
    Tensor i = cast(multi_index[d], DType::i64, loc);
    if (mode == "wrap") i = mod(i, dims[d], loc);
    if (mode == "clip") i = clip(i, 0, dims[d] - 1, loc);
    Tensor term = strides[d] == 1 ? i : multiply(i, strides[d], loc);
    flat = flat.defined() ? add(flat, term, loc) : term;
  }
  if (!flat.defined()) flat = ops::scalar(0, DType::i64);
  return named_composite("ravel_multi_index", flat);
}

// ---- jax.lax-style indexing ----

Tensor index_in_dim(const Tensor& operand, std::int64_t index, int axis, bool keepdims, Loc loc) {
  int ax = axis_of("index_in_dim", operand, axis, loc);
  std::int64_t n = operand.shape()[static_cast<std::size_t>(ax)];
  std::int64_t i = index < 0 ? index + n : index;
  if (i < 0 || i >= n)
    raise_shape("index_in_dim", {operand},
                "index " + std::to_string(index) + " is out of bounds for axis " + std::to_string(ax) + " of size " +
                    std::to_string(n),
                "Pass an index in [-n, n).", loc);
  std::vector<Index> ix(static_cast<std::size_t>(ax), Index::all());
  if (keepdims) ix.push_back(Index::range(i, i + 1));
  else ix.emplace_back(i);
  return named_composite("index_in_dim", slice(operand, ix, loc));
}

Tensor index_take(const Tensor& src, const std::vector<Tensor>& idxs, const std::vector<int>& axes, Loc loc) {
  if (idxs.size() != axes.size() || idxs.empty())
    raise_value("index_take", {src},
                "needs one index array per axis, got " + std::to_string(idxs.size()) + " arrays and " +
                    std::to_string(axes.size()) + " axes",
                "Pass idxs and axes of one (non-zero) length.", loc);
  std::vector<int> ax;
  for (int a : axes) ax.push_back(axis_of("index_take", src, a, loc));
  // The indexed axes first (flattened), then one take of the combined flat index.
  std::vector<int> perm = ax;
  for (int d = 0; d < src.ndim(); ++d)
    if (std::find(ax.begin(), ax.end(), d) == ax.end()) perm.push_back(d);
  Tensor t = transposed(src, perm, loc);
  Shape s{-1};
  for (std::size_t d = ax.size(); d < perm.size(); ++d) s.push_back(src.shape()[static_cast<std::size_t>(perm[d])]);
  Shape sizes;
  for (int a : ax) sizes.push_back(src.shape()[static_cast<std::size_t>(a)]);
  Tensor flat_index = ravel_multi_index(broadcast_arrays(idxs, loc), sizes, "raise", loc);
  return named_composite("index_take", take(reshape(t, s, loc), flat_index, 0, loc));
}

namespace {
Tensor clamped_start(const Tensor& start, std::int64_t n, std::int64_t size, const Tensor& operand, Loc loc) {
  if (start.ndim() != 0)
    raise_shape("dynamic_slice", {operand, start},
                "a start index has shape " + shape_string(start.shape()) + "; it must be a scalar",
                "Pass one scalar start index per axis.", loc);
  if (is_floating(start.dtype()))
    raise_value("dynamic_slice", {operand, start}, "start indices must be integers", "Cast them with astype(int64).",
                loc);
  return clip(cast(start, DType::i64, loc), 0, std::max<std::int64_t>(n - size, 0), loc);
}
}  // namespace

Tensor dynamic_slice_in_dim(const Tensor& operand, const Tensor& start_index, std::int64_t slice_size, int axis,
                            Loc loc) {
  int ax = axis_of("dynamic_slice_in_dim", operand, axis, loc);
  need_static("dynamic_slice_in_dim", operand, loc);
  std::int64_t n = operand.shape()[static_cast<std::size_t>(ax)];
  if (slice_size < 0 || slice_size > n)
    raise_shape("dynamic_slice_in_dim", {operand},
                "slice size " + std::to_string(slice_size) + " does not fit axis " + std::to_string(ax) + " of size " +
                    std::to_string(n),
                "Pass a slice size in [0, n].", loc);
  if (slice_size == n) return operand;
  Tensor start = clamped_start(start_index, n, slice_size, operand, loc);
  Tensor idx = add(arange(0, static_cast<double>(slice_size), 1, DType::i64, loc), start, loc);
  return named_composite("dynamic_slice_in_dim", take(operand, idx, ax, loc));
}

Tensor dynamic_slice(const Tensor& operand, const std::vector<Tensor>& start_indices, Shape slice_sizes, Loc loc) {
  if (start_indices.size() != static_cast<std::size_t>(operand.ndim()) || slice_sizes.size() != start_indices.size())
    raise_shape("dynamic_slice", {operand},
                "needs one start index and one slice size per axis of the " + std::to_string(operand.ndim()) +
                    "-D operand, got " + std::to_string(start_indices.size()) + " and " +
                    std::to_string(slice_sizes.size()),
                "Pass start_indices and slice_sizes of length operand.ndim.", loc);
  Tensor t = operand;
  for (int d = 0; d < operand.ndim(); ++d)
    t = dynamic_slice_in_dim(t, start_indices[static_cast<std::size_t>(d)], slice_sizes[static_cast<std::size_t>(d)], d,
                             loc);
  return t == operand ? operand : named_composite("dynamic_slice", t);
}

Tensor dynamic_index_in_dim(const Tensor& operand, const Tensor& index, int axis, bool keepdims, Loc loc) {
  int ax = axis_of("dynamic_index_in_dim", operand, axis, loc);
  Tensor t = dynamic_slice_in_dim(operand, index, 1, ax, loc);
  if (!keepdims) t = squeeze(t, {ax}, loc);
  return named_composite("dynamic_index_in_dim", t);
}

// ---- differences, sums, vectors ----

Tensor diff(const Tensor& a, int n, int axis, std::optional<Tensor> prepend, std::optional<Tensor> append, Loc loc) {
  if (n < 0) raise_value("diff", {a}, "order n must be non-negative, got " + std::to_string(n), "Pass n >= 0.", loc);
  if (n == 0) return a;
  need_ndim("diff", a, 1, loc, "diff needs at least a 1-D tensor.");
  int ax = axis_of("diff", a, axis, loc);
  std::vector<Tensor> parts;
  auto edge = [&](const Tensor& v) {
    if (v.ndim() != 0) return v;
    Shape s = a.shape();
    s[static_cast<std::size_t>(ax)] = 1;
    return broadcast_to(v, s, loc);
  };
  if (prepend) parts.push_back(edge(*prepend));
  parts.push_back(a);
  if (append) parts.push_back(edge(*append));
  Tensor t = parts.size() == 1 ? a : concatenate(parts, ax, loc);
  for (int i = 0; i < n; ++i) {
    std::int64_t len = t.shape()[static_cast<std::size_t>(ax)];
    Tensor hi = range_along(t, ax, std::min<std::int64_t>(1, len), std::nullopt, std::nullopt, loc);
    Tensor lo = range_along(t, ax, 0, std::max<std::int64_t>(len - 1, 0), std::nullopt, loc);
    t = t.dtype() == DType::b8 ? not_equal(hi, lo, loc) : subtract(hi, lo, loc);
  }
  return named_composite("diff", t);
}

Tensor ediff1d(const Tensor& ary, std::optional<Tensor> to_end, std::optional<Tensor> to_begin, Loc loc) {
  Tensor d = diff(ravel(ary, loc), 1, 0, std::nullopt, std::nullopt, loc);
  std::vector<Tensor> parts;
  if (to_begin) parts.push_back(ravel(cast(*to_begin, d.dtype(), loc), loc));
  parts.push_back(d);
  if (to_end) parts.push_back(ravel(cast(*to_end, d.dtype(), loc), loc));
  return named_composite("ediff1d", parts.size() == 1 ? d : concatenate(parts, 0, loc));
}

Tensor unwrap(const Tensor& p, std::optional<double> discont, int axis, double period, Loc loc) {
  need_ndim("unwrap", p, 1, loc, "unwrap needs at least a 1-D tensor.");
  int ax = axis_of("unwrap", p, axis, loc);
  Tensor x = cast(p, float_of(p.dtype()), loc);
  std::int64_t n = x.shape()[static_cast<std::size_t>(ax)];
  if (n < 2) return named_composite("unwrap", x);
  double half = period / 2, dc = std::max(discont.value_or(half), half);
  Tensor dd = diff(x, 1, ax, std::nullopt, std::nullopt, loc);
  // NumPy: ddmod = mod(dd + half, period) - half, with ddmod = half where ddmod == -half and dd > 0.
  Tensor ddmod = subtract(mod(add(dd, half, loc), period, loc), half, loc);
  ddmod = where(logical_and(equal(ddmod, -half, loc), greater(dd, 0, loc), loc), half, ddmod, loc);
  Tensor correct = subtract(ddmod, dd, loc);
  correct = where(less(abs(dd, loc), dc, loc), 0, correct, loc);
  Tensor first = range_along(x, ax, 0, 1, std::nullopt, loc);
  Tensor rest = add(range_along(x, ax, 1, std::nullopt, std::nullopt, loc), cumsum(correct, ax, loc), loc);
  return named_composite("unwrap", concatenate({first, rest}, ax, loc));
}

Tensor trapezoid(const Tensor& y, std::optional<Tensor> x, double dx, int axis, Loc loc) {
  need_ndim("trapezoid", y, 1, loc, "trapezoid needs at least a 1-D tensor.");
  int ax = axis_of("trapezoid", y, axis, loc);
  Tensor yf = is_inexact(y.dtype()) ? y : cast(y, DType::f64, loc);
  std::int64_t n = yf.shape()[static_cast<std::size_t>(ax)];
  Tensor hi = range_along(yf, ax, std::min<std::int64_t>(1, n), std::nullopt, std::nullopt, loc);
  Tensor lo = range_along(yf, ax, 0, std::max<std::int64_t>(n - 1, 0), std::nullopt, loc);
  Tensor avg = multiply(add(hi, lo, loc), 0.5, loc);
  Tensor terms;
  if (x) {
    Tensor xs = *x;
    Tensor d;
    if (xs.ndim() == 1) {
      d = diff(xs, 1, 0, std::nullopt, std::nullopt, loc);
      Shape s(static_cast<std::size_t>(y.ndim()), 1);
      s[static_cast<std::size_t>(ax)] = d.shape()[0];
      d = reshape(d, s, loc);
    } else {
      d = diff(xs, 1, ax, std::nullopt, std::nullopt, loc);
    }
    terms = multiply(d, avg, loc);
  } else {
    terms = multiply(avg, dx, loc);
  }
  return named_composite("trapezoid", sum(terms, ax, false, loc));
}

Tensor cross(const Tensor& a, const Tensor& b, int axisa, int axisb, int axisc, std::optional<int> axis, Loc loc) {
  if (axis) axisa = axisb = axisc = *axis;
  need_ndim("cross", a, 1, loc, "cross needs vectors.");
  need_ndim("cross", b, 1, loc, "cross needs vectors.");
  Tensor x = moveaxis(a, {axis_of("cross", a, axisa, loc, "axisa")}, {-1}, loc);
  Tensor y = moveaxis(b, {axis_of("cross", b, axisb, loc, "axisb")}, {-1}, loc);
  std::int64_t na = x.shape().back(), nb = y.shape().back();
  if ((na != 2 && na != 3) || (nb != 2 && nb != 3))
    raise_shape("cross", {a, b},
                "incompatible dimensions for cross product (dimension must be 2 or 3), got " + std::to_string(na) +
                    " and " + std::to_string(nb),
                "Pass 2- or 3-vectors along the given axes.", loc);
  auto comp = [&](const Tensor& t, std::int64_t i) { return slice(t, {Index::ellipsis(), Index(i)}, loc); };
  DType dt = promote_types(a.dtype(), b.dtype());
  Tensor zero = ops::scalar(0, dt);
  Tensor a0 = comp(x, 0), a1 = comp(x, 1), a2 = na == 3 ? comp(x, 2) : zero;
  Tensor b0 = comp(y, 0), b1 = comp(y, 1), b2 = nb == 3 ? comp(y, 2) : zero;
  Tensor c2 = subtract(multiply(a0, b1, loc), multiply(a1, b0, loc), loc);
  if (na == 2 && nb == 2) return named_composite("cross", c2);
  Tensor c0 = subtract(multiply(a1, b2, loc), multiply(a2, b1, loc), loc);
  Tensor c1 = subtract(multiply(a2, b0, loc), multiply(a0, b2, loc), loc);
  std::vector<Tensor> parts = broadcast_arrays({c0, c1, c2}, loc);
  Tensor c = stack(parts, -1, loc);
  int outc = ops::checked_axis(axisc, c.ndim(), "axisc");
  return named_composite("cross", moveaxis(c, {-1}, {outc}, loc));
}

namespace {
// The full convolution of 1-D a (length n) and v (length m): windows of the zero-padded a gathered into an
// (n + m - 1, m) matrix (one take) times the reversed v (one matrix-vector product).
Tensor convolve_full(const Tensor& a, const Tensor& v, Loc loc) {
  std::int64_t n = a.shape()[0], m = v.shape()[0];
  DType dt = promote_types(a.dtype(), v.dtype());
  Tensor ap = pad(cast(a, dt, loc), {{m - 1, m - 1}}, 0, loc);
  std::int64_t len = n + m - 1;
  std::vector<std::int64_t> idx(static_cast<std::size_t>(len * m));
  for (std::int64_t i = 0; i < len; ++i)
    for (std::int64_t j = 0; j < m; ++j) idx[static_cast<std::size_t>(i * m + j)] = i + j;
  Tensor windows = take(ap, int_constant(idx, {len, m}, DType::i64, loc), 0, loc);
  return matmul(windows, flip(cast(v, dt, loc), {}, loc), loc);
}
Tensor convolve_mode(const char* name, const Tensor& a, const Tensor& v, const std::string& mode, Loc loc) {
  if (a.ndim() != 1 || v.ndim() != 1)
    raise_shape(name, {a, v},
                "needs 1-D operands, got shapes " + shape_string(a.shape()) + " and " + shape_string(v.shape()),
                "Pass 1-D tensors (ravel them first).", loc);
  need_static(name, a, loc);
  need_static(name, v, loc);
  std::int64_t n = a.shape()[0], m = v.shape()[0];
  if (n == 0 || m == 0) raise_value(name, {a, v}, "an operand is empty", "Pass non-empty 1-D tensors.", loc);
  if (mode != "full" && mode != "same" && mode != "valid")
    raise_value(name, {a, v}, "unknown mode '" + mode + "'", "Pass mode='full', 'same' or 'valid'.", loc);
  Tensor full = convolve_full(a, v, loc);
  if (mode == "full") return full;
  std::int64_t lo = std::min(n, m), hi = std::max(n, m);
  if (mode == "same") return range_along(full, 0, (lo - 1) / 2, (lo - 1) / 2 + hi, std::nullopt, loc);
  return range_along(full, 0, lo - 1, hi, std::nullopt, loc);
}
}  // namespace

Tensor convolve(const Tensor& a, const Tensor& v, const std::string& mode, Loc loc) {
  return named_composite("convolve", convolve_mode("convolve", a, v, mode, loc));
}

Tensor correlate(const Tensor& a, const Tensor& v, const std::string& mode, Loc loc) {
  if (v.ndim() != 1) return convolve_mode("correlate", a, v, mode, loc);
  // correlate(a, v)[k] = sum_n a[n + k] v[n]: the convolution with the reversed v; NumPy reverses the result
  // when v is the longer operand.
  if (a.ndim() == 1 && v.shape()[0] > a.shape()[0])
    return named_composite("correlate", flip(convolve_mode("correlate", v, flip(a, {}, loc), mode, loc), {}, loc));
  Tensor c = convolve_mode("correlate", a, flip(v, {}, loc), mode, loc);
  return named_composite("correlate", c);
}

Tensor vander(const Tensor& x, std::optional<std::int64_t> n, bool increasing, Loc loc) {
  if (x.ndim() != 1)
    raise_shape("vander", {x}, "x must be 1-D, got shape " + shape_string(x.shape()), "Pass a 1-D tensor.", loc);
  std::int64_t cols = n.value_or(x.shape()[0]);
  if (cols < 0) raise_value("vander", {x}, "N must be non-negative, got " + std::to_string(cols), "Pass N >= 0.", loc);
  Tensor e = arange(0, static_cast<double>(cols), 1, x.dtype() == DType::b8 ? DType::i64 : x.dtype(), loc);
  if (!increasing) e = flip(e, {}, loc);
  Tensor xb = x.dtype() == DType::b8 ? cast(x, DType::i64, loc) : x;
  return named_composite("vander", power(expand_dims(xb, 1, loc), expand_dims(e, 0, loc), loc));
}

// ---- polynomials ----

namespace {
void need_1d(const char* name, const Tensor& p, Loc loc) {
  if (p.ndim() != 1)
    raise_shape(name, {p}, "polynomial coefficients must be 1-D, got shape " + shape_string(p.shape()),
                "Pass the coefficients as a 1-D tensor, highest power first.", loc);
  need_static(name, p, loc);
}
Tensor pad_front(const Tensor& p, std::int64_t len, Loc loc) {
  std::int64_t n = p.shape()[0];
  return n >= len ? p : pad(p, {{len - n, 0}}, 0, loc);
}
}  // namespace

Tensor polyadd(const Tensor& a1, const Tensor& a2, Loc loc) {
  need_1d("polyadd", a1, loc);
  need_1d("polyadd", a2, loc);
  std::int64_t len = std::max(a1.shape()[0], a2.shape()[0]);
  return named_composite("polyadd", add(pad_front(a1, len, loc), pad_front(a2, len, loc), loc));
}

Tensor polysub(const Tensor& a1, const Tensor& a2, Loc loc) {
  need_1d("polysub", a1, loc);
  need_1d("polysub", a2, loc);
  std::int64_t len = std::max(a1.shape()[0], a2.shape()[0]);
  return named_composite("polysub", subtract(pad_front(a1, len, loc), pad_front(a2, len, loc), loc));
}

Tensor polymul(const Tensor& a1, const Tensor& a2, Loc loc) {
  need_1d("polymul", a1, loc);
  need_1d("polymul", a2, loc);
  return named_composite("polymul", convolve(a1, a2, "full", loc));
}

Tensor polyder(const Tensor& p, int m, Loc loc) {
  need_1d("polyder", p, loc);
  if (m < 0) raise_value("polyder", {p}, "order m must be non-negative, got " + std::to_string(m), "Pass m >= 0.", loc);
  Tensor t = p;
  for (int i = 0; i < m; ++i) {
    std::int64_t n = t.shape()[0] - 1;
    if (n <= 0) return named_composite("polyder", range_along(t, 0, 0, 0, std::nullopt, loc));
    Tensor powers = arange(static_cast<double>(n), 0, -1, t.dtype() == DType::b8 ? DType::i64 : t.dtype(), loc);
    t = multiply(range_along(t, 0, 0, n, std::nullopt, loc), powers, loc);
  }
  return m == 0 ? p : named_composite("polyder", t);
}

Tensor polyint(const Tensor& p, int m, double k, Loc loc) {
  need_1d("polyint", p, loc);
  if (m < 0) raise_value("polyint", {p}, "order m must be non-negative, got " + std::to_string(m), "Pass m >= 0.", loc);
  Tensor t = cast(p, float_of(p.dtype()), loc);
  if (m == 0) return t;
  for (int i = 0; i < m; ++i) {
    std::int64_t n = t.shape()[0];
    Tensor div = arange(static_cast<double>(n), 0, -1, t.dtype(), loc);
    t = concatenate({divide(t, div, loc), reshape(full({}, k, t.dtype(), loc), {1}, loc)}, 0, loc);
  }
  return named_composite("polyint", t);
}

Tensor polyval(const Tensor& p, const Tensor& x, Loc loc) {
  need_1d("polyval", p, loc);
  std::int64_t n = p.shape()[0];
  DType dt = promote_types(p.dtype(), x.dtype());
  Tensor y = zeros(x.shape(), dt, loc);
  for (std::int64_t i = 0; i < n; ++i) y = add(multiply(y, x, loc), slice(p, {Index(i)}, loc), loc);
  return named_composite("polyval", y);
}

std::pair<Tensor, Tensor> polydiv(const Tensor& u, const Tensor& v, Loc loc) {
  need_1d("polydiv", u, loc);
  need_1d("polydiv", v, loc);
  DType dt = float_of(promote_types(u.dtype(), v.dtype()));
  Tensor uf = cast(u, dt, loc), vf = cast(v, dt, loc);
  std::int64_t m = uf.shape()[0] - 1, n = vf.shape()[0] - 1;
  if (n < 0) raise_value("polydiv", {u, v}, "the divisor is empty", "Pass a non-empty divisor.", loc);
  Tensor scale = divide(1.0, slice(vf, {Index(0)}, loc), loc);
  std::int64_t qlen = std::max<std::int64_t>(m - n + 1, 1);
  std::vector<Tensor> q;
  // r as a list of scalars (each step changes n + 1 of them).
  std::vector<Tensor> r;
  for (std::int64_t i = 0; i <= m; ++i) r.push_back(slice(uf, {Index(i)}, loc));
  for (std::int64_t k = 0; k <= m - n; ++k) {
    Tensor d = multiply(scale, r[static_cast<std::size_t>(k)], loc);
    q.push_back(d);
    for (std::int64_t j = 0; j <= n; ++j)
      r[static_cast<std::size_t>(k + j)] =
          subtract(r[static_cast<std::size_t>(k + j)], multiply(d, slice(vf, {Index(j)}, loc), loc), loc);
  }
  Tensor quotient = q.empty() ? zeros({qlen}, dt, loc) : stack(q, 0, loc);
  Tensor remainder = m < 0 ? zeros({0}, dt, loc) : stack(r, 0, loc);
  return {named_composite("polydiv", quotient), named_composite("polydiv", remainder)};
}

Tensor poly(const Tensor& seq_of_zeros, Loc loc) {
  if (seq_of_zeros.ndim() > 1)
    raise_shape("poly", {seq_of_zeros},
                "the roots must be 1-D (a matrix's characteristic polynomial needs eigenvalues), got shape " +
                    shape_string(seq_of_zeros.shape()),
                "Pass a 1-D tensor of roots.", loc);
  Tensor z = atleast_1d(seq_of_zeros, loc);
  need_static("poly", z, loc);
  DType dt = float_of(z.dtype());
  Tensor zf = cast(z, dt, loc);
  Tensor a = ones({1}, dt, loc);
  for (std::int64_t i = 0; i < zf.shape()[0]; ++i) {
    Tensor factor =
        concatenate({ones({1}, dt, loc), reshape(negative(slice(zf, {Index(i)}, loc), loc), {1}, loc)}, 0, loc);
    a = convolve(a, factor, "full", loc);
  }
  return named_composite("poly", a);
}

// ---- contractions ----

namespace {

using Key = std::vector<int>;  // a sorted set of labels

Key set_union(const Key& a, const Key& b) {
  Key r;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r));
  return r;
}
Key set_inter(const Key& a, const Key& b) {
  Key r;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r));
  return r;
}
Key set_diff(const Key& a, const Key& b) {
  Key r;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r));
  return r;
}
bool has(const Key& k, int label) { return std::binary_search(k.begin(), k.end(), label); }

double size_of(const Key& k, const std::map<int, std::int64_t>& sizes) {
  double s = 1;
  for (int l : k) s *= static_cast<double>(sizes.at(l));
  return s;
}

// opt_einsum's greedy path (paths.ssa_greedy_optimize with the default "memory-removed" cost): Hadamard products
// of equal label sets first, then the pair whose result removes the most memory, then outer products by size.
// Returns the path in SSA ids (each contraction's result gets the next id).
std::vector<std::vector<int>> greedy_ssa(const std::vector<Key>& inputs, const Key& output_labels,
                                         const std::map<int, std::int64_t>& sizes) {
  if (inputs.size() == 1) return {{0}};
  Key output = output_labels;
  Key common = inputs[0];
  for (const auto& k : inputs) common = set_inter(common, k);
  output = set_union(output, common);
  std::map<Key, int> remaining;
  int next_ssa = static_cast<int>(inputs.size());
  std::vector<std::vector<int>> ssa_path;
  for (int i = 0; i < static_cast<int>(inputs.size()); ++i) {
    const Key& key = inputs[static_cast<std::size_t>(i)];
    if (auto it = remaining.find(key); it != remaining.end()) {
      ssa_path.push_back({it->second, i});
      it->second = next_ssa++;
    } else {
      remaining[key] = i;
    }
  }
  std::map<int, std::set<Key>> dim_to_keys;
  for (const auto& [key, id] : remaining)
    for (int dim : set_diff(key, output)) dim_to_keys[dim].insert(key);
  std::set<int> ref2, ref3;
  for (const auto& [dim, keys] : dim_to_keys) {
    if (keys.size() >= 2) ref2.insert(dim);
    if (keys.size() >= 3) ref3.insert(dim);
  }
  std::map<Key, double> footprints;
  for (const auto& [key, id] : remaining) footprints[key] = size_of(key, sizes);

  struct Candidate {
    double cost;
    int id2, id1;
    Key k1, k2, k12;
    bool operator>(const Candidate& o) const {
      return std::tie(cost, id2, id1, k1, k2) > std::tie(o.cost, o.id2, o.id1, o.k1, o.k2);
    }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
  auto candidate = [&](Key k1, Key k2) {
    Key either = set_union(k1, k2), two = set_inter(k1, k2), one = set_diff(either, two);
    Key k12;
    for (int d : either)
      if (has(output, d) || (has(two, d) && ref3.count(d)) || (has(one, d) && ref2.count(d))) k12.push_back(d);
    double cost = size_of(k12, sizes) - footprints[k1] - footprints[k2];
    int id1 = remaining[k1], id2 = remaining[k2];
    if (id1 > id2) {
      std::swap(k1, k2);
      std::swap(id1, id2);
    }
    return Candidate{cost, id2, id1, k1, k2, k12};
  };
  auto push = [&](const Key& k1, const std::vector<Key>& k2s) {
    std::optional<Candidate> best;
    for (const auto& k2 : k2s) {
      Candidate c = candidate(k1, k2);
      if (!best || *best > c) best = c;
    }
    if (best) queue.push(*best);
  };
  for (const auto& [dim, keys] : dim_to_keys) {
    std::vector<Key> list(keys.begin(), keys.end());
    std::sort(list.begin(), list.end(), [&](const Key& a, const Key& b) { return remaining[a] < remaining[b]; });
    for (std::size_t i = 0; i + 1 < list.size(); ++i)
      push(list[i], std::vector<Key>(list.begin() + static_cast<std::ptrdiff_t>(i) + 1, list.end()));
  }
  while (!queue.empty()) {
    Candidate c = queue.top();
    queue.pop();
    if (!remaining.count(c.k1) || !remaining.count(c.k2)) continue;
    int s1 = remaining[c.k1], s2 = remaining[c.k2];
    remaining.erase(c.k1);
    remaining.erase(c.k2);
    for (int dim : set_diff(c.k1, output)) dim_to_keys[dim].erase(c.k1);
    for (int dim : set_diff(c.k2, output)) dim_to_keys[dim].erase(c.k2);
    ssa_path.push_back({s1, s2});
    if (remaining.count(c.k12)) {
      ssa_path.push_back({remaining[c.k12], next_ssa++});
    } else {
      for (int dim : set_diff(c.k12, output)) dim_to_keys[dim].insert(c.k12);
    }
    remaining[c.k12] = next_ssa++;
    for (int dim : set_union(c.k1, set_diff(c.k2, output))) {
      std::size_t count = dim_to_keys.count(dim) ? dim_to_keys[dim].size() : 0;
      if (count <= 1) {
        ref2.erase(dim);
        ref3.erase(dim);
      } else if (count == 2) {
        ref2.insert(dim);
        ref3.erase(dim);
      } else {
        ref2.insert(dim);
        ref3.insert(dim);
      }
    }
    footprints[c.k12] = size_of(c.k12, sizes);
    std::set<Key> k2s;
    for (int dim : c.k12)
      if (auto it = dim_to_keys.find(dim); it != dim_to_keys.end()) k2s.insert(it->second.begin(), it->second.end());
    k2s.erase(c.k12);
    if (!k2s.empty()) push(c.k12, std::vector<Key>(k2s.begin(), k2s.end()));
  }
  // Outer products, smallest (in output labels) first.
  using Final = std::tuple<double, int, Key>;
  std::priority_queue<Final, std::vector<Final>, std::greater<>> final_queue;
  for (const auto& [key, id] : remaining) final_queue.emplace(size_of(set_inter(key, output), sizes), id, key);
  auto [c0, s1, k1] = final_queue.top();
  final_queue.pop();
  while (!final_queue.empty()) {
    auto [c2, s2, k2] = final_queue.top();
    final_queue.pop();
    ssa_path.push_back({std::min(s1, s2), std::max(s1, s2)});
    Key k12 = set_inter(set_union(k1, k2), output);
    final_queue.emplace(size_of(k12, sizes), next_ssa++, k12);
    std::tie(c0, s1, k1) = final_queue.top();
    final_queue.pop();
  }
  return ssa_path;
}

std::vector<std::vector<int>> ssa_to_linear(const std::vector<std::vector<int>>& ssa_path) {
  std::size_t n = 1;
  for (const auto& c : ssa_path) n += c.size() - 1;
  std::vector<int> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  int ssa = static_cast<int>(n);
  std::vector<std::vector<int>> path;
  for (const auto& scon : ssa_path) {
    std::vector<int> con;
    for (int s : scon) con.push_back(static_cast<int>(std::lower_bound(ids.begin(), ids.end(), s) - ids.begin()));
    std::sort(con.begin(), con.end());
    for (auto it = con.rbegin(); it != con.rend(); ++it) ids.erase(ids.begin() + *it);
    ids.push_back(ssa++);
    path.push_back(con);
  }
  return path;
}

constexpr int kEllipsisBase = 1000;  // labels of the ellipsis' axes: kEllipsisBase + position (right-aligned)

struct Parsed {
  std::vector<std::vector<int>> inputs;  // labels per operand axis
  std::vector<int> output;
  std::map<int, std::int64_t> sizes;
  std::string text;  // the normalized subscripts (for messages)
};

std::string label_text(int l) { return l >= kEllipsisBase ? "..." : std::string(1, static_cast<char>(l)); }

Parsed parse_einsum(const std::string& subscripts, const std::vector<Tensor>& operands, Loc loc) {
  auto fail = [&](const std::string& problem, const std::string& fix) -> void {
    raise_value("einsum", operands, problem + " in subscripts '" + subscripts + "'", fix, loc);
  };
  std::string s;
  for (char ch : subscripts)
    if (ch != ' ') s += ch;
  std::string lhs = s, rhs;
  bool explicit_out = false;
  if (auto arrow = s.find("->"); arrow != std::string::npos) {
    lhs = s.substr(0, arrow);
    rhs = s.substr(arrow + 2);
    explicit_out = true;
    if (rhs.find("->") != std::string::npos) fail("more than one '->'", "Write one '->' before the output labels.");
  }
  std::vector<std::string> terms;
  {
    std::size_t start = 0;
    while (true) {
      auto comma = lhs.find(',', start);
      terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (terms.size() != operands.size())
    raise_value("einsum", operands,
                "the subscripts '" + subscripts + "' name " + std::to_string(terms.size()) + " operands but " +
                    std::to_string(operands.size()) + " were given",
                "Pass one operand per comma-separated term.", loc);
  // Labels of each term, -1 for the ellipsis.
  auto letters = [&](const std::string& term, bool is_output) {
    std::vector<int> out;
    for (std::size_t i = 0; i < term.size(); ++i) {
      char ch = term[i];
      if (ch == '.') {
        if (term.compare(i, 3, "...") != 0)
          fail("a '.' that is not part of an ellipsis '...'", "Write the ellipsis as '...'.");
        if (std::find(out.begin(), out.end(), -1) != out.end())
          fail("more than one ellipsis in a term", "Use at most one '...' per term.");
        out.push_back(-1);
        i += 2;
      } else if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) {
        out.push_back(ch);
      } else {
        fail(std::string("invalid character '") + ch + "'" + (is_output ? " in the output" : ""),
             "Use letters a-z and A-Z, ',' between operands, '->' before the output and '...' for broadcast axes.");
      }
    }
    return out;
  };
  Parsed p;
  p.text = s;
  int ell_rank = 0;
  std::vector<std::vector<int>> raw;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    raw.push_back(letters(terms[i], false));
    auto named = static_cast<int>(std::count_if(raw.back().begin(), raw.back().end(), [](int l) { return l >= 0; }));
    bool ell = named != static_cast<int>(raw.back().size());
    int nd = operands[i].ndim();
    if ((!ell && named != nd) || (ell && named > nd))
      raise_value("einsum", operands,
                  "operand " + std::to_string(i) + " has " + std::to_string(nd) + " dimensions but its term '" +
                      terms[i] + "' names " + std::to_string(named),
                  "Give one label per axis, or '...' for the remaining axes.", loc);
    if (ell) ell_rank = std::max(ell_rank, nd - named);
  }
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const Tensor& op = operands[i];
    need_static("einsum", op, loc);
    int named = static_cast<int>(std::count_if(raw[i].begin(), raw[i].end(), [](int l) { return l >= 0; }));
    int r = op.ndim() - named;
    std::vector<int> labels;
    for (int l : raw[i]) {
      if (l == -1)
        for (int j = 0; j < r; ++j) labels.push_back(kEllipsisBase + ell_rank - r + j);
      else labels.push_back(l);
    }
    for (std::size_t d = 0; d < labels.size(); ++d) {
      std::int64_t n = op.shape()[d];
      int l = labels[d];
      auto it = p.sizes.find(l);
      if (it == p.sizes.end()) {
        p.sizes[l] = n;
      } else if (it->second != n) {
        if (l >= kEllipsisBase && (n == 1 || it->second == 1)) {
          it->second = std::max(it->second, n);
        } else {
          raise_shape("einsum", operands,
                      (l >= kEllipsisBase ? std::string("the broadcast ('...') axes")
                                          : "label '" + label_text(l) + "'") +
                          " of operand " + std::to_string(i) + " has size " + std::to_string(n) +
                          " where another operand has " + std::to_string(it->second),
                      "Make the axes a label names of one size (or 1 under '...').", loc);
        }
      }
    }
    p.inputs.push_back(labels);
  }
  if (explicit_out) {
    for (int l : letters(rhs, true)) {
      if (l == -1) {
        for (int j = 0; j < ell_rank; ++j) p.output.push_back(kEllipsisBase + j);
        continue;
      }
      if (std::find(p.output.begin(), p.output.end(), l) != p.output.end())
        fail("output label '" + label_text(l) + "' is repeated", "Name each output label once.");
      if (!p.sizes.count(l))
        fail("output label '" + label_text(l) + "' is not in any input",
             "Use only labels of the inputs in the output.");
      p.output.push_back(l);
    }
  } else {
    std::map<int, int> count;
    for (const auto& labels : p.inputs)
      for (int l : labels) ++count[l];
    for (int j = 0; j < ell_rank; ++j) p.output.push_back(kEllipsisBase + j);
    for (auto [l, c] : count)
      if (l < kEllipsisBase && c == 1) p.output.push_back(l);
  }
  return p;
}

struct Term {
  std::vector<int> labels;
  Tensor t;
};

// Sums out the axes of `x` whose labels are not in `keep`.
Term reduce_term(Term x, const Key& keep, Loc loc) {
  std::vector<std::int64_t> axes;
  std::vector<int> labels;
  for (std::size_t d = 0; d < x.labels.size(); ++d) {
    if (has(keep, x.labels[d])) labels.push_back(x.labels[d]);
    else axes.push_back(static_cast<std::int64_t>(d));
  }
  if (axes.empty()) return x;
  return {labels, sum(x.t, Axes(axes), false, loc)};
}

// Takes the diagonals of labels repeated within one operand and drops size-1 axes that broadcast.
Term prepare_term(Term x, const std::map<int, std::int64_t>& sizes, Loc loc) {
  for (bool again = true; again;) {
    again = false;
    for (std::size_t i = 0; i < x.labels.size() && !again; ++i)
      for (std::size_t j = i + 1; j < x.labels.size() && !again; ++j)
        if (x.labels[i] == x.labels[j]) {
          int l = x.labels[i];
          x.t = diagonal(x.t, 0, static_cast<int>(i), static_cast<int>(j), loc);
          x.labels.erase(x.labels.begin() + static_cast<std::ptrdiff_t>(j));
          x.labels.erase(x.labels.begin() + static_cast<std::ptrdiff_t>(i));
          x.labels.push_back(l);
          again = true;
        }
  }
  Shape s;
  std::vector<int> labels;
  for (std::size_t d = 0; d < x.labels.size(); ++d) {
    std::int64_t n = x.t.shape()[d];
    if (n == 1 && sizes.at(x.labels[d]) != 1) continue;
    s.push_back(n);
    labels.push_back(x.labels[d]);
  }
  if (labels.size() != x.labels.size()) x = {labels, reshape(x.t, s, loc)};
  return x;
}

std::int64_t prod_of(const std::vector<int>& labels, const std::map<int, std::int64_t>& sizes) {
  std::int64_t p = 1;
  for (int l : labels) p *= sizes.at(l);
  return p;
}

// The pairwise contraction of a and b keeping the labels in `keep`: a product of broadcast operands when no label
// is summed, else one (batched) matmul with the operands transposed and reshaped to (batch..., M, K) and
// (batch..., K, N). Of the layouts that need the same product, the one with the fewest materialized transposes is
// chosen; a transpose of the last two axes only is read by the GEMM through its transposition flag.
Term contract_pair(Term a, Term b, const Key& keep, const std::map<int, std::int64_t>& sizes, Loc loc) {
  Key la(a.labels.begin(), a.labels.end()), lb(b.labels.begin(), b.labels.end());
  std::sort(la.begin(), la.end());
  std::sort(lb.begin(), lb.end());
  a = reduce_term(a, set_union(keep, lb), loc);
  b = reduce_term(b, set_union(keep, la), loc);
  std::vector<int> batch_a, m, k_a, batch_b, n, k_b;
  for (int l : a.labels) {
    bool in_b = std::find(b.labels.begin(), b.labels.end(), l) != b.labels.end();
    if (!in_b) m.push_back(l);
    else if (has(keep, l)) batch_a.push_back(l);
    else k_a.push_back(l);
  }
  for (int l : b.labels) {
    bool in_a = std::find(a.labels.begin(), a.labels.end(), l) != a.labels.end();
    if (!in_a) n.push_back(l);
    else if (has(keep, l)) batch_b.push_back(l);
    else k_b.push_back(l);
  }
  auto perm_of = [](const std::vector<int>& labels, const std::vector<int>& order) {
    std::vector<int> perm;
    for (int l : order) perm.push_back(static_cast<int>(std::find(labels.begin(), labels.end(), l) - labels.begin()));
    return perm;
  };
  auto concat3 = [](const std::vector<int>& x, const std::vector<int>& y, const std::vector<int>& z) {
    std::vector<int> r = x;
    r.insert(r.end(), y.begin(), y.end());
    r.insert(r.end(), z.begin(), z.end());
    return r;
  };
  auto is_identity = [](const std::vector<int>& perm) {
    for (std::size_t i = 0; i < perm.size(); ++i)
      if (perm[i] != static_cast<int>(i)) return false;
    return true;
  };
  auto shape_of = [&](const std::vector<int>& labels) {
    Shape s;
    for (int l : labels) s.push_back(sizes.at(l));
    return s;
  };
  DType dt = promote_types(a.t.dtype(), b.t.dtype());
  if (k_a.empty()) {
    // No summed label: a broadcast product (batch, m, 1...) * (batch, 1..., n).
    std::vector<int> batch = batch_a;
    Tensor ta = transposed(a.t, perm_of(a.labels, concat3(batch, m, {})), loc);
    Tensor tb = transposed(b.t, perm_of(b.labels, concat3(batch, n, {})), loc);
    Shape sa = shape_of(concat3(batch, m, {})), sb = shape_of(batch);
    for (std::size_t i = 0; i < n.size(); ++i) sa.push_back(1);
    for (std::size_t i = 0; i < m.size(); ++i) sb.push_back(1);
    Shape sn = shape_of(n);
    sb.insert(sb.end(), sn.begin(), sn.end());
    return {concat3(batch, m, n), multiply(reshaped(ta, sa, loc), reshaped(tb, sb, loc), loc)};
  }
  // Choose the batch order, the k order and each operand's form (natural or transposed) to minimize transposes.
  struct Layout {
    std::vector<int> batch, k;
    bool ta, tb;
    int cost;
  };
  std::optional<Layout> best;
  for (const auto* batch : {&batch_a, &batch_b})
    for (const auto* k : {&k_a, &k_b})
      for (bool ta : {false, true})
        for (bool tb : {false, true}) {
          auto pa = perm_of(a.labels, ta ? concat3(*batch, *k, m) : concat3(*batch, m, *k));
          auto pb = perm_of(b.labels, tb ? concat3(*batch, n, *k) : concat3(*batch, *k, n));
          // A transposed form costs nothing when its GEMM flag reads it (a 2-D swap), else a copy like any other.
          int cost = (is_identity(pa) ? 0 : 2) + (is_identity(pb) ? 0 : 2) + (ta ? 1 : 0) + (tb ? 1 : 0);
          if (!best || cost < best->cost) best = Layout{*batch, *k, ta, tb, cost};
        }
  const Layout& L = *best;
  std::int64_t K = prod_of(L.k, sizes);
  Shape bshape = shape_of(L.batch);
  auto operand = [&](const Term& t, const std::vector<int>& free, bool trans, bool left) {
    std::vector<int> order = trans == left ? concat3(L.batch, L.k, free) : concat3(L.batch, free, L.k);
    Tensor x = transposed(t.t, perm_of(t.labels, order), loc);
    Shape s = bshape;
    std::int64_t rows = trans == left ? K : prod_of(free, sizes), cols = trans == left ? prod_of(free, sizes) : K;
    s.push_back(rows);
    s.push_back(cols);
    x = reshaped(cast(x, dt, loc), s, loc);
    return trans ? swapaxes(x, -1, -2, loc) : x;
  };
  Tensor x = operand(a, m, L.ta, true);
  Tensor y = operand(b, n, L.tb, false);
  Tensor out = matmul(x, y, loc);
  Shape s = bshape, sm = shape_of(m), sn = shape_of(n);
  s.insert(s.end(), sm.begin(), sm.end());
  s.insert(s.end(), sn.begin(), sn.end());
  return {concat3(L.batch, m, n), reshaped(out, s, loc)};
}

std::vector<std::vector<int>> einsum_greedy_path(const Parsed& p) {
  std::vector<Key> inputs;
  for (const auto& labels : p.inputs) {
    Key k(labels.begin(), labels.end());
    std::sort(k.begin(), k.end());
    k.erase(std::unique(k.begin(), k.end()), k.end());
    inputs.push_back(k);
  }
  Key out(p.output.begin(), p.output.end());
  std::sort(out.begin(), out.end());
  return ssa_to_linear(greedy_ssa(inputs, out, p.sizes));
}

}  // namespace

Tensor einsum(const std::string& subscripts, const std::vector<Tensor>& operands,
              const std::vector<std::vector<int>>& path, Loc loc) {
  if (operands.empty())
    raise_value("einsum", {}, "needs at least one operand", "Pass the operands after the subscripts.", loc);
  Parsed p = parse_einsum(subscripts, operands, loc);
  std::vector<std::vector<int>> order = path.empty() ? einsum_greedy_path(p) : path;
  std::vector<Term> terms;
  for (std::size_t i = 0; i < operands.size(); ++i)
    terms.push_back(prepare_term({p.inputs[i], operands[i]}, p.sizes, loc));
  Key out(p.output.begin(), p.output.end());
  std::sort(out.begin(), out.end());
  for (const auto& step : order) {
    std::vector<int> picks = step;
    std::sort(picks.begin(), picks.end());
    for (std::size_t i = 0; i < picks.size(); ++i)
      if (picks[i] < 0 || picks[i] >= static_cast<int>(terms.size()) || (i && picks[i] == picks[i - 1]))
        raise_value("einsum", operands,
                    "the path names operand " + std::to_string(picks[i]) + " of " + std::to_string(terms.size()) +
                        " remaining",
                    "Pass a path of positions in the list of remaining operands, as einsum_path returns.", loc);
    std::vector<Term> chosen;
    for (auto it = picks.rbegin(); it != picks.rend(); ++it) {
      chosen.insert(chosen.begin(), terms[static_cast<std::size_t>(*it)]);
      terms.erase(terms.begin() + *it);
    }
    Key keep = out;
    for (const auto& t : terms) {
      Key k(t.labels.begin(), t.labels.end());
      std::sort(k.begin(), k.end());
      keep = set_union(keep, k);
    }
    Term acc = chosen[0];
    for (std::size_t i = 1; i < chosen.size(); ++i) {
      Key later = keep;
      for (std::size_t j = i + 1; j < chosen.size(); ++j) {
        Key k(chosen[j].labels.begin(), chosen[j].labels.end());
        std::sort(k.begin(), k.end());
        later = set_union(later, k);
      }
      acc = contract_pair(acc, chosen[i], later, p.sizes, loc);
    }
    if (chosen.size() == 1) acc = reduce_term(acc, keep, loc);
    terms.push_back(acc);
  }
  // Whatever the path left: contracted left to right.
  Term acc = terms[0];
  for (std::size_t i = 1; i < terms.size(); ++i) acc = contract_pair(acc, terms[i], out, p.sizes, loc);
  acc = reduce_term(acc, out, loc);
  std::vector<int> perm;
  for (int l : p.output) {
    auto it = std::find(acc.labels.begin(), acc.labels.end(), l);
    if (it == acc.labels.end()) {
      // An output label whose axes were all broadcast (size 1): put it back.
      acc.t = expand_dims(acc.t, acc.t.ndim(), loc);
      acc.labels.push_back(l);
      it = acc.labels.end() - 1;
    }
    perm.push_back(static_cast<int>(it - acc.labels.begin()));
  }
  Tensor result = transposed(acc.t, perm, loc);
  Shape want;
  for (int l : p.output) want.push_back(p.sizes.at(l));
  if (result.shape() != want) result = broadcast_to(result, want, loc);
  // Sums of integers widen to int64 on the way; einsum keeps the operands' (promoted) dtype, as NumPy.
  DType dt = operands[0].dtype();
  for (const auto& o : operands) dt = promote_types(dt, o.dtype());
  if (result.dtype() != dt && dt != DType::b8) result = cast(result, dt, loc);
  return named_composite("einsum", result);
}

std::pair<std::vector<std::vector<int>>, std::string> einsum_path(const std::string& subscripts,
                                                                  const std::vector<Tensor>& operands, Loc loc) {
  if (operands.empty())
    raise_value("einsum_path", {}, "needs at least one operand", "Pass the operands after the subscripts.", loc);
  Parsed p = parse_einsum(subscripts, operands, loc);
  auto path = einsum_greedy_path(p);
  // Costs as numpy.einsum_path counts them: the product of the sizes of all labels in a contraction, times the
  // number of terms (minus one, plus one when a label is summed).
  auto flops = [&](const Key& labels, bool inner, std::size_t nterms) {
    double f = size_of(labels, p.sizes);
    double factor = std::max<double>(1, static_cast<double>(nterms) - 1) + (inner ? 1 : 0);
    return f * factor;
  };
  std::vector<Key> keys;
  for (const auto& l : p.inputs) {
    Key k(l.begin(), l.end());
    std::sort(k.begin(), k.end());
    k.erase(std::unique(k.begin(), k.end()), k.end());
    keys.push_back(k);
  }
  Key out(p.output.begin(), p.output.end());
  std::sort(out.begin(), out.end());
  Key all;
  for (const auto& k : keys) all = set_union(all, k);
  double naive = flops(all, all.size() != out.size(), keys.size());
  double opt = 0, largest = 0;
  std::size_t opt_scale = 0;
  auto term_text = [](const Key& k) {
    std::string s;
    bool ell = false;
    for (int l : k) {
      if (l >= kEllipsisBase) {
        if (!ell) s += "...";
        ell = true;
      } else {
        s += static_cast<char>(l);
      }
    }
    return s;
  };
  std::string rows;
  std::vector<Key> live = keys;
  for (const auto& step : path) {
    std::vector<int> picks = step;
    std::sort(picks.begin(), picks.end());
    Key joined;
    std::vector<Key> chosen;
    for (auto it = picks.rbegin(); it != picks.rend(); ++it) {
      chosen.insert(chosen.begin(), live[static_cast<std::size_t>(*it)]);
      live.erase(live.begin() + *it);
    }
    for (const auto& k : chosen) joined = set_union(joined, k);
    Key keep = out;
    for (const auto& k : live) keep = set_union(keep, k);
    Key result = set_inter(joined, keep);
    opt += flops(joined, result.size() != joined.size(), chosen.size());
    opt_scale = std::max(opt_scale, joined.size());
    largest = std::max(largest, size_of(result, p.sizes));
    std::string lhs;
    for (std::size_t i = 0; i < chosen.size(); ++i) lhs += (i ? "," : "") + term_text(chosen[i]);
    live.push_back(result);
    std::string rem;
    for (std::size_t i = 0; i < live.size(); ++i) rem += (i ? "," : "") + term_text(live[i]);
    char line[512];
    std::snprintf(line, sizeof line, "%4zu    %24s %40s\n", joined.size(), (lhs + "->" + term_text(result)).c_str(),
                  (rem + "->" + term_text(out)).c_str());
    rows += line;
  }
  char head[1024];
  std::snprintf(head, sizeof head,
                "  Complete contraction:  %s\n         Naive scaling:  %zu\n     Optimized scaling:  %zu\n"
                "      Naive FLOP count:  %.3e\n  Optimized FLOP count:  %.3e\n   Theoretical speedup:  %.3f\n"
                "  Largest intermediate:  %.3e elements\n"
                "--------------------------------------------------------------------------------\n"
                "scaling        current                                remaining\n"
                "--------------------------------------------------------------------------------\n",
                p.text.c_str(), all.size(), opt_scale, naive, opt, opt > 0 ? naive / opt : 1.0, largest);
  return {path, std::string(head) + rows};
}

Tensor tensordot(const Tensor& a, const Tensor& b, const std::vector<int>& axes_a, const std::vector<int>& axes_b,
                 Loc loc) {
  if (axes_a.size() != axes_b.size())
    raise_value("tensordot", {a, b},
                "the axes lists have different lengths (" + std::to_string(axes_a.size()) + " and " +
                    std::to_string(axes_b.size()) + ")",
                "Pass one axis of b for each axis of a.", loc);
  need_static("tensordot", a, loc);
  need_static("tensordot", b, loc);
  std::vector<int> ca, cb;
  for (std::size_t i = 0; i < axes_a.size(); ++i) {
    int x = axis_of("tensordot", a, axes_a[i], loc), y = axis_of("tensordot", b, axes_b[i], loc);
    if (a.shape()[static_cast<std::size_t>(x)] != b.shape()[static_cast<std::size_t>(y)])
      raise_shape("tensordot", {a, b},
                  "shape mismatch for sum: axis " + std::to_string(x) + " of a has size " +
                      std::to_string(a.shape()[static_cast<std::size_t>(x)]) + " but axis " + std::to_string(y) +
                      " of b has size " + std::to_string(b.shape()[static_cast<std::size_t>(y)]),
                  "Pair axes of equal sizes.", loc);
    ca.push_back(x);
    cb.push_back(y);
  }
  std::vector<int> fa, fb;
  Shape out;
  std::int64_t M = 1, N = 1, K = 1;
  for (int d = 0; d < a.ndim(); ++d)
    if (std::find(ca.begin(), ca.end(), d) == ca.end()) {
      fa.push_back(d);
      out.push_back(a.shape()[static_cast<std::size_t>(d)]);
      M *= a.shape()[static_cast<std::size_t>(d)];
    }
  for (int d = 0; d < b.ndim(); ++d)
    if (std::find(cb.begin(), cb.end(), d) == cb.end()) {
      fb.push_back(d);
      out.push_back(b.shape()[static_cast<std::size_t>(d)]);
      N *= b.shape()[static_cast<std::size_t>(d)];
    }
  for (int d : ca) K *= a.shape()[static_cast<std::size_t>(d)];
  std::vector<int> pa = fa, pb = cb;
  pa.insert(pa.end(), ca.begin(), ca.end());
  pb.insert(pb.end(), fb.begin(), fb.end());
  Tensor x = reshaped(transposed(a, pa, loc), {M, K}, loc);
  Tensor y = reshaped(transposed(b, pb, loc), {K, N}, loc);
  return named_composite("tensordot", reshaped(matmul(x, y, loc), out, loc));
}

Tensor tensordot(const Tensor& a, const Tensor& b, std::int64_t axes, Loc loc) {
  if (axes < 0 || axes > a.ndim() || axes > b.ndim())
    raise_value("tensordot", {a, b},
                "axes=" + std::to_string(axes) + " is out of range for operands of " + std::to_string(a.ndim()) +
                    " and " + std::to_string(b.ndim()) + " dimensions",
                "Pass 0 <= axes <= min(a.ndim, b.ndim).", loc);
  std::vector<int> xa, xb;
  for (std::int64_t i = 0; i < axes; ++i) {
    xa.push_back(a.ndim() - static_cast<int>(axes) + static_cast<int>(i));
    xb.push_back(static_cast<int>(i));
  }
  return tensordot(a, b, xa, xb, loc);
}

Tensor inner(const Tensor& a, const Tensor& b, Loc loc) {
  if (a.ndim() == 0 || b.ndim() == 0) return named_composite("inner", multiply(a, b, loc));
  return named_composite("inner", tensordot(a, b, {-1}, {-1}, loc));
}

Tensor kron(const Tensor& a, const Tensor& b, Loc loc) {
  need_static("kron", a, loc);
  need_static("kron", b, loc);
  int nd = std::max(a.ndim(), b.ndim());
  Shape sa(static_cast<std::size_t>(nd - a.ndim()), 1), sb(static_cast<std::size_t>(nd - b.ndim()), 1);
  sa.insert(sa.end(), a.shape().begin(), a.shape().end());
  sb.insert(sb.end(), b.shape().begin(), b.shape().end());
  Shape ia, ib, out;
  for (int d = 0; d < nd; ++d) {
    auto u = static_cast<std::size_t>(d);
    ia.insert(ia.end(), {sa[u], 1});
    ib.insert(ib.end(), {1, sb[u]});
    out.push_back(sa[u] * sb[u]);
  }
  return named_composite("kron", reshape(multiply(reshape(a, ia, loc), reshape(b, ib, loc), loc), out, loc));
}

Tensor vdot(const Tensor& a, const Tensor& b, Loc loc) {
  if (a.size() != b.size())
    raise_shape("vdot", {a, b},
                "the operands have " + std::to_string(a.size()) + " and " + std::to_string(b.size()) + " elements",
                "Pass operands with the same number of elements.", loc);
  return named_composite("vdot", matmul(ravel(a, loc), ravel(b, loc), loc));
}

Tensor matvec(const Tensor& x1, const Tensor& x2, Loc loc) {
  need_ndim("matvec", x1, 2, loc, "The first operand must be a matrix or a stack of matrices (..., m, n).");
  need_ndim("matvec", x2, 1, loc, "The second operand must be a vector or a stack of vectors (..., n).");
  return named_composite("matvec", squeeze(matmul(x1, expand_dims(x2, -1, loc), loc), {-1}, loc));
}

Tensor vecmat(const Tensor& x1, const Tensor& x2, Loc loc) {
  need_ndim("vecmat", x1, 1, loc, "The first operand must be a vector or a stack of vectors (..., n).");
  need_ndim("vecmat", x2, 2, loc, "The second operand must be a matrix or a stack of matrices (..., n, m).");
  return named_composite("vecmat", squeeze(matmul(expand_dims(x1, -2, loc), x2, loc), {-2}, loc));
}

Tensor vecdot(const Tensor& x1, const Tensor& x2, int axis, Loc loc) {
  need_ndim("vecdot", x1, 1, loc, "vecdot needs vectors.");
  need_ndim("vecdot", x2, 1, loc, "vecdot needs vectors.");
  Tensor prod = multiply(x1, x2, loc);
  int ax = axis_of("vecdot", prod, axis, loc);
  std::int64_t n1 = x1.shape()[static_cast<std::size_t>(axis_of("vecdot", x1, axis, loc))];
  std::int64_t n2 = x2.shape()[static_cast<std::size_t>(axis_of("vecdot", x2, axis, loc))];
  if (n1 != n2)
    raise_shape("vecdot", {x1, x2},
                "the vectors along axis " + std::to_string(axis) + " have sizes " + std::to_string(n1) + " and " +
                    std::to_string(n2),
                "Pass vectors of one length (the other axes broadcast).", loc);
  return named_composite("vecdot", sum(prod, ax, false, loc));
}

}  // namespace symx

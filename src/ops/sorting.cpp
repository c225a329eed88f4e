// src/ops/sorting.cpp: the rows and functions of symx/sorting.hpp.
//
// Primitives (rows here, compiled as library calls of src/runtime/library_sorting.cpp, parallel over
// rows): sort, argsort, partition, argpartition, kth_values (the order statistics at given sorted
// positions, no public name: the median's and the quantiles' selection), cumprod, cummax, cummin,
// logcumsumexp and linear_recurrence (h[k] = a[k] * h[k-1] + b[k], the cumprod gradient's scan);
// searchsorted is evaluated by the reference evaluator. Composites (built from primitives, no row):
// top_k, msort, median (on kth_values), the quantiles (on kth_values when q is a constant and the
// rows' valid counts are fixed, else on sort), unique and the set functions (on argsort, cumsum and
// scatter-add; unique along an axis on lexsort), lexsort, isin, interp, and the aliases.
#include "symx/sorting.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <string>

#include "ops/op_table.hpp"
#include "ops/sorting_rows.hpp"
#include "symx/error.hpp"
#include "symx/graph.hpp"

namespace symx::ops {
namespace {

using K = OpKind;
using L = Lowering;

// ---- sort, argsort, partition, argpartition ----

TensorType infer_sort(const std::vector<Tensor>& in, const Attr& attr) {
  const Tensor& x = in[0];
  const auto& a = std::get<SortAttr>(attr);
  int axis = checked_axis(a.axis, x.ndim());
  if (a.axis < 0) fail_shape("negative axis in a normalized sort", "Pass a non-negative axis.");
  std::int64_t n = known_sizes(x.shape())[static_cast<std::size_t>(axis)];
  for (std::size_t i = 0; i < a.kth.size(); ++i)
    if (a.kth[i] < 0 || (n > 0 && !is_symbol(x.shape()[static_cast<std::size_t>(axis)]) && a.kth[i] >= n) ||
        (i > 0 && a.kth[i] < a.kth[i - 1]))
      fail_value("kth " + std::to_string(a.kth[i]) + " is out of bounds for an axis of size " + std::to_string(n),
                 "Pass kth in [-n, n).");
  return x.type();
}
TensorType infer_argsort(const std::vector<Tensor>& in, const Attr& attr) {
  return {infer_sort(in, attr).shape, DType::i64};
}

// Calls fn(T*, base, stride, n) for every row of `x` along the attribute's axis.
template <class Fn> void for_each_row(const Shape& shape, int axis, Fn fn) {
  AxisSplit s = split_at(shape, axis);
  for (std::int64_t o = 0; o < s.outer; ++o)
    for (std::int64_t i = 0; i < s.inner; ++i) fn(o * s.n * s.inner + i, s.inner, s.n);
}

template <bool values> Array evaluate_sort(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  const auto& a = std::get<SortAttr>(args.node.attr);
  Array out(x.shape(), values ? x.dtype() : DType::i64);
  visit_dtype(x.dtype(), [&]<class T>() {
    const T* px = x.data<T>();
    std::vector<std::int64_t> idx;
    for_each_row(x.shape(), a.axis, [&](std::int64_t base, std::int64_t stride, std::int64_t n) {
      idx.resize(static_cast<std::size_t>(n));
      sorting::argsort_row(px + base, stride, n, a.descending, idx.data());
      for (std::int64_t k = 0; k < n; ++k) {
        auto j = idx[static_cast<std::size_t>(k)];
        if constexpr (values) out.data<T>()[base + k * stride] = px[base + j * stride];
        else out.data<std::int64_t>()[base + k * stride] = j;
      }
    });
  });
  return out;
}

template <bool values> Array evaluate_partition(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  const auto& a = std::get<SortAttr>(args.node.attr);
  Array out(x.shape(), values ? x.dtype() : DType::i64);
  visit_dtype(x.dtype(), [&]<class T>() {
    const T* px = x.data<T>();
    std::vector<sorting::Keyed<T>> row;
    for_each_row(x.shape(), a.axis, [&](std::int64_t base, std::int64_t stride, std::int64_t n) {
      row.resize(static_cast<std::size_t>(n));
      for (std::int64_t k = 0; k < n; ++k) row[static_cast<std::size_t>(k)] = {px[base + k * stride], k};
      sorting::partition_keyed(row.data(), n, a.kth);
      for (std::int64_t k = 0; k < n; ++k) {
        const auto& e = row[static_cast<std::size_t>(k)];
        if constexpr (values) out.data<T>()[base + k * stride] = e.value;
        else out.data<std::int64_t>()[base + k * stride] = e.index;
      }
    });
  });
  return out;
}

// kth_values: the order statistics at the sorted positions `kth` (increasing, distinct) along the
// axis, whose size becomes kth.size(): the values partition(x, kth) holds at those positions, without
// the rest of the rows (the median's selection).
TensorType infer_kth_values(const std::vector<Tensor>& in, const Attr& attr) {
  TensorType t = infer_sort(in, attr);
  const auto& a = std::get<SortAttr>(attr);
  for (std::size_t i = 1; i < a.kth.size(); ++i)
    if (a.kth[i] == a.kth[i - 1]) fail_value("kth " + std::to_string(a.kth[i]) + " is repeated", "List each kth once.");
  if (a.kth.empty()) fail_value("no kth", "Pass at least one position.");
  t.shape[static_cast<std::size_t>(a.axis)] = static_cast<std::int64_t>(a.kth.size());
  return t;
}
Array evaluate_kth_values(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  const auto& a = std::get<SortAttr>(args.node.attr);
  Shape shape = x.shape();
  const auto m = static_cast<std::int64_t>(a.kth.size());
  shape[static_cast<std::size_t>(a.axis)] = m;
  Array out(shape, x.dtype());
  visit_dtype(x.dtype(), [&]<class T>() {
    const T* px = x.data<T>();
    std::vector<sorting::Keyed<T>> row;
    for_each_row(x.shape(), a.axis, [&](std::int64_t base, std::int64_t stride, std::int64_t n) {
      if (n == 0) return;
      row.resize(static_cast<std::size_t>(n));
      for (std::int64_t k = 0; k < n; ++k) row[static_cast<std::size_t>(k)] = {px[base + k * stride], k};
      sorting::partition_keyed(row.data(), n, a.kth);
      const std::int64_t at = (base / (n * stride)) * m * stride + base % stride;
      for (std::int64_t i = 0; i < m; ++i)
        out.data<T>()[at + i * stride] = row[static_cast<std::size_t>(a.kth[static_cast<std::size_t>(i)])].value;
    });
  });
  return out;
}
// The cotangent of each order statistic goes to the element argpartition puts at its position.
std::vector<Tensor> vjp_kth_values(const Tensor& y, const Tensor& g) {
  const Tensor& x = y.node().inputs[0];
  const auto& a = std::get<SortAttr>(y.node().attr);
  Tensor idx = make_node(K::Argpartition, {x}, a);
  std::vector<Tensor> picked;
  for (std::int64_t k : a.kth) {
    std::vector<Index> index(static_cast<std::size_t>(x.ndim()), Index::all());
    index[static_cast<std::size_t>(a.axis)] = Index::range(k, k + 1);
    picked.push_back(slice(idx, index));
  }
  Tensor source = picked.size() == 1 ? picked[0] : concatenate(picked, a.axis);
  return {make_node(K::ScatterAddAlongAxis, {g, source}, ShapeAttr{x.shape(), a.axis})};
}

// The cotangent of each sorted (or partitioned) element goes back to the element it came from.
std::vector<Tensor> vjp_permuted(const Tensor& y, const Tensor& g) {
  const Tensor& x = y.node().inputs[0];
  const auto& a = std::get<SortAttr>(y.node().attr);
  Tensor idx = make_node(y.op() == K::Sort ? K::Argsort : K::Argpartition, {x}, a);
  return {make_node(K::ScatterAddAlongAxis, {g, idx}, ShapeAttr{x.shape(), a.axis})};
}

// ---- searchsorted ----

TensorType infer_searchsorted(const std::vector<Tensor>& in, const Attr&) {
  if (in[0].ndim() != 1)
    fail_shape("the sorted array has " + std::to_string(in[0].ndim()) + " dimensions, not 1",
               "Pass a 1-D sorted array (ravel it first).");
  if (in[0].dtype() != in[1].dtype())
    fail_dtype("the operands have different dtypes", "Cast them to one dtype (symx::searchsorted does this).");
  return {in[1].shape(), DType::i64};
}
Array evaluate_searchsorted(const EvalArgs& args) {
  const Array& a = args.inputs[0];
  const Array& v = args.inputs[1];
  bool right = std::get<SortAttr>(args.node.attr).right;
  Array out(v.shape(), DType::i64);
  visit_dtype(a.dtype(), [&]<class T>() {
    const T* pa = a.data<T>();
    const T* end = pa + a.size();
    auto* po = out.data<std::int64_t>();
    for (std::int64_t i = 0; i < v.size(); ++i) {
      T value = v.data<T>()[i];
      const T* at = right ? std::upper_bound(pa, end, value, [](T p, T q) { return sorting::before(p, q, false); })
                          : std::lower_bound(pa, end, value, [](T p, T q) { return sorting::before(p, q, false); });
      po[i] = at - pa;
    }
  });
  return out;
}

// ---- scans ----

TensorType infer_scan(const std::vector<Tensor>& in, const Attr& attr) {
  const Tensor& x = in[0];
  checked_axis(std::get<AxisAttr>(attr).axis, x.ndim());
  if (x.dtype() == DType::b8)
    fail_dtype("the primitive does not accept bool operands", "Cast to int64 first (the public functions do this).");
  return x.type();
}
TensorType infer_float_scan(const std::vector<Tensor>& in, const Attr& attr) {
  TensorType t = infer_scan(in, attr);
  if (!is_floating(t.dtype))
    fail_dtype("the primitive takes floating operands", "Cast to a float dtype first (the public function does this).");
  if (in.size() == 2 && (in[1].type() != t))
    fail_shape("the two operands differ in shape or dtype", "Pass a and b of one shape and dtype.");
  return t;
}

template <OpKind op> Array evaluate_scan(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  int axis = std::get<AxisAttr>(args.node.attr).axis;
  Array out(x.shape(), x.dtype());
  visit_dtype(x.dtype(), [&]<class T>() {
    const T* px = x.data<T>();
    const T* pb = op == K::LinearRecurrence ? args.inputs[1].data<T>() : nullptr;
    T* po = out.data<T>();
    for_each_row(x.shape(), axis, [&](std::int64_t base, std::int64_t stride, std::int64_t n) {
      T acc{};
      for (std::int64_t k = 0; k < n; ++k) {
        std::int64_t f = base + k * stride;
        T v = px[f];
        if (k == 0 && op != K::LinearRecurrence) acc = v;
        else if constexpr (op == K::Cumprod) acc = static_cast<T>(acc * v);
        else if constexpr (op == K::Cummax || op == K::Cummin) acc = sorting::running_extremum(acc, v, op == K::Cummax);
        else if constexpr (op == K::Logcumsumexp) {
          if constexpr (std::is_floating_point_v<T>) acc = sorting::logaddexp(acc, v);
        } else if constexpr (op == K::LinearRecurrence) {
          acc = static_cast<T>(v * acc + pb[f]);
        }
        po[f] = acc;
      }
    });
  });
  return out;
}

// ---- gradient helpers ----

Tensor range_along(const Tensor& x, int axis, std::int64_t start, std::optional<std::int64_t> stop) {
  std::vector<Index> index(static_cast<std::size_t>(x.ndim()), Index::all());
  index[static_cast<std::size_t>(axis)] = Index::range(start, stop);
  return slice(x, index);
}
std::vector<std::pair<std::int64_t, std::int64_t>> widths_at(int ndim, int axis, std::int64_t low, std::int64_t high) {
  std::vector<std::pair<std::int64_t, std::int64_t>> w(static_cast<std::size_t>(ndim), {0, 0});
  w[static_cast<std::size_t>(axis)] = {low, high};
  return w;
}
// 0, 1, ..., n - 1 along `axis`, in x's shape (int64), for an axis whose size n is unknown until the
// call (a running count of ones: no static size in the graph), and n itself (keepdims).
std::pair<Tensor, Tensor> counted_iota(const Tensor& x, int axis) {
  Tensor ones = broadcast_to(scalar(1, DType::i64), x.shape());
  return {cumsum(ones, axis) - 1, sum(ones, static_cast<std::int64_t>(axis), true)};
}
// x[k + 1] at k (the last is `fill`), and x[k - 1] at k (the first is `fill`). Over an axis of unknown
// size, a gather at the neighbouring position (a static slice needs the size).
Tensor shift_left(const Tensor& x, int axis, double fill) {
  std::int64_t n = x.shape()[static_cast<std::size_t>(axis)];
  if (is_symbol(n)) {
    auto [i, count] = counted_iota(x, axis);
    Tensor last = count - 1;
    Tensor next = take_along_axis(x, minimum(i + 1, maximum(last, 0)), axis);
    return where(symx::equal(i, last), scalar(fill, x.dtype()), next);
  }
  if (n == 0) return x;
  return pad(range_along(x, axis, 1, std::nullopt), widths_at(x.ndim(), axis, 0, 1), fill);
}
Tensor shift_right(const Tensor& x, int axis, double fill) {
  std::int64_t n = x.shape()[static_cast<std::size_t>(axis)];
  if (is_symbol(n)) {
    Tensor i = counted_iota(x, axis).first;
    Tensor previous = take_along_axis(x, maximum(i - 1, 0), axis);
    return where(symx::equal(i, 0), scalar(fill, x.dtype()), previous);
  }
  if (n == 0) return x;
  return pad(range_along(x, axis, 0, n - 1), widths_at(x.ndim(), axis, 1, 0), fill);
}
Tensor reversed_scan(OpKind op, const std::vector<Tensor>& in, int axis) {
  std::vector<Tensor> flipped;
  for (const Tensor& t : in) flipped.push_back(flip(t, {axis}));
  return flip(make_node(op, flipped, AxisAttr{axis}), {axis});
}
// 0, 1, ..., n - 1 along `axis`, broadcast to x's shape (int64).
Tensor iota_along(const Tensor& x, int axis) {
  if (is_symbol(x.shape()[static_cast<std::size_t>(axis)])) return counted_iota(x, axis).first;
  Shape s(static_cast<std::size_t>(x.ndim()), 1);
  s[static_cast<std::size_t>(axis)] = x.shape()[static_cast<std::size_t>(axis)];
  return broadcast_to(reshape(arange(0, static_cast<double>(s[static_cast<std::size_t>(axis)]), 1, DType::i64), s),
                      x.shape());
}

// d cumprod: dx[i] = E[i] * S[i], E the exclusive products x[0..i-1] and S[i] = sum over k >= i of
// g[k] * x[i+1] ... x[k], the reverse recurrence S[i] = g[i] + x[i+1] * S[i+1]: no division, so
// zeros in x (several in a row too) get their exact gradient, as JAX's and PyTorch's.
std::vector<Tensor> vjp_cumprod(const Tensor& y, const Tensor& g) {
  const Tensor& x = y.node().inputs[0];
  int axis = std::get<AxisAttr>(y.node().attr).axis;
  Tensor exclusive = shift_right(y, axis, 1);
  Tensor s = reversed_scan(K::LinearRecurrence, {shift_left(x, axis, 0), g}, axis);
  return {exclusive * s};
}

// h[k] = a[k] h[k-1] + b[k]: with l[k] = G[k] + a[k+1] l[k+1], db = l and da[k] = l[k] h[k-1].
std::vector<Tensor> vjp_linear_recurrence(const Tensor& h, const Tensor& g) {
  const Tensor& a = h.node().inputs[0];
  int axis = std::get<AxisAttr>(h.node().attr).axis;
  Tensor l = reversed_scan(K::LinearRecurrence, {shift_left(a, axis, 0), g}, axis);
  return {l * shift_right(h, axis, 0), l};
}

// The cotangent of y[k] goes to the latest position j <= k holding the running extremum (PyTorch's
// cummax/cummin index; a NaN holds it from where it appears): the latest "record" position, found
// as a running max of the record positions.
std::vector<Tensor> vjp_cumextremum(const Tensor& y, const Tensor& g) {
  const Tensor& x = y.node().inputs[0];
  int axis = std::get<AxisAttr>(y.node().attr).axis;
  Tensor record = symx::equal(x, y);
  if (is_floating(x.dtype())) record = logical_or(record, isnan(x));
  Tensor positions = where(record, iota_along(x, axis), -1);
  Tensor source = make_node(K::Cummax, {positions}, AxisAttr{axis});
  return {make_node(K::ScatterAddAlongAxis, {g, source}, ShapeAttr{x.shape(), axis})};
}

// PyTorch's logcumsumexp_backward: dx[j] = sum over k >= j of g[k] exp(x[j] - y[k]), with the positive
// and negative parts of g summed in log space (a reversed logcumsumexp each). A -inf entry gets 0,
// except in a leading run of -inf (y = -inf there), where PyTorch and JAX give NaN, and so does this.
std::vector<Tensor> vjp_logcumsumexp(const Tensor& y, const Tensor& g) {
  const Tensor& x = y.node().inputs[0];
  int axis = std::get<AxisAttr>(y.node().attr).axis;
  auto part = [&](const Tensor& magnitude) {
    Tensor z = reversed_scan(K::Logcumsumexp, {log(magnitude) - y}, axis);
    return exp(x + z);
  };
  return {part(maximum(g, 0)) - part(maximum(-g, 0))};
}

}  // namespace

void register_sorting_ops() {
  using Fam = Family;
  define(K::Sort, row(Fam::shape, 1, L::library, infer_sort, evaluate_sort<true>, vjp_permuted));
  define(K::Argsort, row(Fam::shape, 1, L::library, infer_argsort, evaluate_sort<false>, no_gradient));
  define(K::Partition, row(Fam::shape, 1, L::library, infer_sort, evaluate_partition<true>, vjp_permuted));
  define(K::Argpartition, row(Fam::shape, 1, L::library, infer_argsort, evaluate_partition<false>, no_gradient));
  define(K::KthValues, row(Fam::shape, 1, L::library, infer_kth_values, evaluate_kth_values, vjp_kth_values));
  define(K::Searchsorted, row(Fam::shape, 2, L::reference, infer_searchsorted, evaluate_searchsorted, no_gradient));
  define(K::Cumprod, row(Fam::reduction, 1, L::library, infer_scan, evaluate_scan<K::Cumprod>, vjp_cumprod));
  define(K::Cummax, row(Fam::reduction, 1, L::library, infer_scan, evaluate_scan<K::Cummax>, vjp_cumextremum));
  define(K::Cummin, row(Fam::reduction, 1, L::library, infer_scan, evaluate_scan<K::Cummin>, vjp_cumextremum));
  define(K::Logcumsumexp,
         row(Fam::reduction, 1, L::library, infer_float_scan, evaluate_scan<K::Logcumsumexp>, vjp_logcumsumexp));
  define(K::LinearRecurrence, row(Fam::reduction, 2, L::library, infer_float_scan, evaluate_scan<K::LinearRecurrence>,
                                  vjp_linear_recurrence));
}

}  // namespace symx::ops

namespace symx {
namespace {

using ops::TypeProblem;

template <class F> auto guarded(const char* name, const std::vector<Tensor>& operands, Loc loc, F&& f) {
  try {
    return f();
  } catch (const TypeProblem& problem) {
    ops::raise(name, operands, problem, loc);
  }
}
[[noreturn]] void raise_value(const char* name, const std::vector<Tensor>& operands, std::string problem,
                              std::string fix, Loc loc) {
  ops::raise(name, operands, TypeProblem{TypeProblem::Kind::value, std::move(problem), std::move(fix)}, loc);
}

// The array to work on and its axis: a along axis, or the flattened a (axis None).
std::pair<Tensor, int> along(const char* name, const Tensor& a, std::optional<int> axis, Loc loc) {
  if (!axis) return {reshape(a, {-1}, loc), 0};
  return {a, guarded(name, {a}, loc, [&] { return ops::checked_axis(*axis, a.ndim()); })};
}

Tensor sort_node(OpKind op, const char* name, const Tensor& a, std::optional<int> axis, bool descending,
                 std::vector<std::int64_t> kth, Loc loc) {
  auto [src, ax] = along(name, a, axis, loc);
  if (op == OpKind::Partition || op == OpKind::Argpartition) {
    std::int64_t n = src.shape()[static_cast<std::size_t>(ax)];
    for (auto& k : kth) {
      if (!is_symbol(n) && (k < -n || k >= n))
        raise_value(name, {a},
                    "kth " + std::to_string(k) + " is out of bounds for an axis of size " + std::to_string(n),
                    "Pass kth in [-n, n).", loc);
      if (k < 0) k += n;
    }
    std::sort(kth.begin(), kth.end());
    kth.erase(std::unique(kth.begin(), kth.end()), kth.end());
  }
  return ops::make_node(op, {src}, SortAttr{ax, descending, std::move(kth), false}, loc, name);
}

// a with the axes of `axis` moved to the end and flattened into one: (kept..., reduced); `kept` gets
// the keepdims shape of the result.
Tensor reduced_last(const char* name, const Tensor& a, const Axes& axis, Shape& keep, Shape& kept, Loc loc) {
  std::vector<bool> reduced(static_cast<std::size_t>(a.ndim()), axis.all());
  if (!axis.all())
    for (auto d : axis.list()) {
      int ax = guarded(name, {a}, loc, [&] { return ops::checked_axis(d, a.ndim()); });
      if (reduced[static_cast<std::size_t>(ax)])
        raise_value(name, {a}, "axis " + std::to_string(d) + " is repeated", "List each axis once.", loc);
      reduced[static_cast<std::size_t>(ax)] = true;
    }
  std::vector<int> perm;
  std::int64_t m = 1;
  keep = a.shape();
  kept.clear();
  for (int d = 0; d < a.ndim(); ++d)
    if (!reduced[static_cast<std::size_t>(d)]) {
      perm.push_back(d);
      kept.push_back(a.shape()[static_cast<std::size_t>(d)]);
    }
  for (int d = 0; d < a.ndim(); ++d)
    if (reduced[static_cast<std::size_t>(d)]) {
      perm.push_back(d);
      m *= a.shape()[static_cast<std::size_t>(d)];
      keep[static_cast<std::size_t>(d)] = 1;
    }
  Shape flat = kept;
  flat.push_back(m);
  return reshape(transpose(a, perm, loc), flat, loc);
}

DType float_of(DType d) { return is_floating(d) ? d : DType::f32; }

Tensor last_index(const Tensor& x, std::int64_t k, Loc loc) {
  std::vector<Index> index(static_cast<std::size_t>(x.ndim() - 1), Index::all());
  index.emplace_back(k);
  return slice(x, index, loc);
}

Tensor nan_like(const Shape& shape, DType dtype, Loc loc) {
  return broadcast_to(ops::scalar(std::numeric_limits<double>::quiet_NaN(), dtype), shape, loc);
}

// The interpolation of one quantile method: virtual index v = q (n - 1) + correction, the values
// at floor and floor + 1 (clipped to the row) and their weight.
struct Method {
  enum Kind { continuous, lower, higher, midpoint, nearest, inverted_cdf } kind;
  double alpha = 1, beta = 1;
};
Method quantile_method(const std::string& method, const Tensor& a, Loc loc) {
  if (method == "linear") return {Method::continuous, 1, 1};
  if (method == "hazen") return {Method::continuous, 0.5, 0.5};
  if (method == "weibull") return {Method::continuous, 0, 0};
  if (method == "median_unbiased") return {Method::continuous, 1.0 / 3, 1.0 / 3};
  if (method == "normal_unbiased") return {Method::continuous, 3.0 / 8, 3.0 / 8};
  if (method == "interpolated_inverted_cdf") return {Method::continuous, 0, 1};
  if (method == "lower") return {Method::lower};
  if (method == "higher") return {Method::higher};
  if (method == "midpoint") return {Method::midpoint};
  if (method == "nearest") return {Method::nearest};
  if (method == "inverted_cdf") return {Method::inverted_cdf};
  raise_value("quantile", {a}, "unknown method '" + method + "'",
              "Use linear, lower, higher, midpoint, nearest, hazen, weibull, median_unbiased, normal_unbiased, "
              "interpolated_inverted_cdf or inverted_cdf.",
              loc);
}

// The order statistics of rows (..., n) at float positions `pos` (clipped to the row), the q axis
// last: a gather from the sorted rows, or from the kth_values selection of the positions needed.
using OrderStatistics = std::function<Tensor(const Tensor& pos)>;

// Quantiles of rows with `count` valid elements per row ((..., 1) or a scalar, float; NaN sorted after
// them), whose order statistics `at` gives: the q axis (if any) last.
Tensor quantile_of(const OrderStatistics& at, const Tensor& count, const Tensor& q, const Method& m, DType fdt,
                   Loc loc) {
  Tensor qf = q.ndim() == 0 ? reshape(q, {1}, loc) : q;  // (Q,)
  Tensor last = count - 1;                               // (..., 1)
  Tensor v = qf * last;                                  // the linear virtual index
  switch (m.kind) {
    case Method::lower: return at(floor(v, loc));
    case Method::higher: return at(ceil(v, loc));
    case Method::nearest: return at(round(v, loc));
    case Method::inverted_cdf: return at(ceil(qf * count, loc) - 1);
    case Method::midpoint: break;
    case Method::continuous: break;
  }
  if (m.kind == Method::midpoint) v = (floor(v, loc) + ceil(v, loc)) * 0.5;  // NumPy's virtual index
  else if (m.alpha != 1 || m.beta != 1) v = qf * count + (m.alpha + qf * (1 - m.alpha - m.beta)) - 1;
  v = clip(v, 0, maximum(last, 0, loc), loc);
  Tensor lo_index = floor(v, loc);
  // midpoint: NumPy's lerp at 1/2 between floor(v) and the next, or at 0 at a whole v.
  Tensor gamma = m.kind == Method::midpoint
                     ? where(symx::equal(v, lo_index, loc), ops::scalar(0, fdt), ops::scalar(0.5, fdt), loc)
                     : v - lo_index;
  Tensor lo = cast(at(lo_index), fdt, loc), hi = cast(at(lo_index + 1), fdt, loc);
  // NumPy's _lerp: exact at both ends.
  return where(greater_equal(gamma, 0.5, loc), hi - (hi - lo) * (1 - gamma), lo + (hi - lo) * gamma, loc);
}

// The row positions `pos` asks for (a function of constants), clipped to [0, n - 1].
std::vector<std::int64_t> positions_of(const Tensor& pos, std::int64_t n, Loc loc) {
  Array a = cast(clip(pos, 0, n - 1, loc), DType::i64, loc).eval();
  std::vector<std::int64_t> out(static_cast<std::size_t>(a.size()));
  for (std::int64_t i = 0; i < a.size(); ++i) out[static_cast<std::size_t>(i)] = a.data<std::int64_t>()[i];
  return out;
}

// Moves the q axis (last) first, drops it for a scalar q, and applies keepdims.
Tensor finish_quantile(Tensor r, const Tensor& q, const Shape& keep, bool keepdims, Loc loc) {
  int nd = r.ndim();
  std::vector<int> perm{nd - 1};
  for (int d = 0; d < nd - 1; ++d) perm.push_back(d);
  r = transpose(r, perm, loc);
  Shape out = q.ndim() == 0 ? Shape{} : Shape{q.shape()[0]};
  if (keepdims) out.insert(out.end(), keep.begin(), keep.end());
  else out.insert(out.end(), r.shape().begin() + 1, r.shape().end());
  return reshape(r, out, loc);
}

// Whether t is a function of constants only (its value is known when the graph is built).
bool is_concrete(const Tensor& t) {
  for (const Tensor& n : topological_order({t})) {
    const auto& def = ops::op_def(n.op());
    if (n.op() == OpKind::Placeholder || n.op() == OpKind::Variable || def.random() || !def.foldable()) return false;
  }
  return true;
}

Tensor quantile_impl(const char* name, const Tensor& a, const Tensor& q, const Axes& axis, const std::string& method,
                     bool keepdims, bool skip_nan, Loc loc) {
  if (q.ndim() > 1)
    raise_value(name, {a, q}, "q has " + std::to_string(q.ndim()) + " dimensions", "Pass q as a scalar or 1-D.", loc);
  Method m = quantile_method(method, a, loc);
  bool exact = m.kind == Method::lower || m.kind == Method::higher || m.kind == Method::nearest ||
               m.kind == Method::inverted_cdf;
  DType fdt = float_of(a.dtype());
  Shape keep, kept;
  Tensor z = reduced_last(name, exact ? a : cast(a, fdt, loc), axis, keep, kept, loc);
  std::int64_t n = z.shape().back();
  Tensor qf = cast(q, fdt, loc);
  Tensor count = ops::scalar(static_cast<double>(n), fdt);
  bool counted = skip_nan && is_floating(a.dtype());  // the valid elements of each row depend on the data
  if (counted) count = sum(cast(logical_not(isnan(z, loc), loc), fdt, loc), -1, true, loc);
  Tensor r, largest;
  if (n > 0 && !is_symbol(n) && !counted && is_concrete(qf)) {
    // The positions are known now: a selection of those order statistics (and the largest, NaN if any),
    // as median's, instead of a sort of the rows; the same positions and arithmetic as the sort's.
    std::vector<std::int64_t> kth{n - 1};
    OrderStatistics record = [&](const Tensor& pos) {
      auto p = positions_of(pos, n, loc);
      kth.insert(kth.end(), p.begin(), p.end());
      return pos;
    };
    quantile_of(record, count, qf, m, fdt, loc);
    std::sort(kth.begin(), kth.end());
    kth.erase(std::unique(kth.begin(), kth.end()), kth.end());
    Tensor selected = ops::make_node(OpKind::KthValues, {z}, SortAttr{z.ndim() - 1, false, kth, false}, loc, name);
    OrderStatistics at = [&](const Tensor& pos) {
      std::vector<std::int64_t> slot;
      for (std::int64_t k : positions_of(pos, n, loc))
        slot.push_back(std::lower_bound(kth.begin(), kth.end(), k) - kth.begin());
      Shape rank(static_cast<std::size_t>(z.ndim() - 1), 1);
      rank.push_back(static_cast<std::int64_t>(slot.size()));
      return take_along_axis(selected, constant(Array::from_vector<std::int64_t>(slot, rank), loc), -1, loc);
    };
    r = quantile_of(at, count, qf, m, exact ? a.dtype() : fdt, loc);
    largest = last_index(selected, static_cast<std::int64_t>(kth.size()) - 1, loc);
  } else {
    Tensor s = sort(z, -1, true, false, loc);
    Tensor last = count - 1;
    OrderStatistics at = [&](const Tensor& pos) {
      Tensor clipped = clip(pos, 0, maximum(last, 0, loc), loc);
      Shape rank(static_cast<std::size_t>(s.ndim() - clipped.ndim()), 1);
      rank.insert(rank.end(), clipped.shape().begin(), clipped.shape().end());
      return take_along_axis(s, cast(reshape(clipped, rank, loc), DType::i64, loc), -1, loc);
    };
    r = quantile_of(at, count, qf, m, exact ? a.dtype() : fdt, loc);
    if (n > 0) largest = last_index(s, n - 1, loc);
  }
  if (is_floating(a.dtype()) && n > 0) {
    // NaN: a NaN in the row (sorted last) or, skipping NaN, a row of NaN only.
    Tensor bad = skip_nan ? symx::equal(count, 0, loc) : expand_dims(isnan(largest, loc), -1, loc);
    r = where(bad, ops::scalar(std::numeric_limits<double>::quiet_NaN(), r.dtype()), r, loc);
  }
  if (n == 0) r = nan_like(r.shape(), fdt, loc);
  return finish_quantile(r, q, keep, keepdims, loc);
}

// ---- unique and the set functions ----

// Sorted values s (1-D) with `keep` marking the ones to return (the first of each run of equal
// values, or a subset): the kept values compacted to the front of `size` slots.
struct Compacted {
  Tensor slot;   // each sorted element's slot (size when not kept or beyond size)
  Tensor count;  // the number of kept values (scalar int64)
};
Compacted compact(const Tensor& keep, std::int64_t size, Loc loc) {
  Tensor keep64 = cast(keep, DType::i64, loc);
  Tensor pos = cumsum(keep64, 0, loc) - 1;
  Tensor slot = where(logical_and(keep, less(pos, size, loc), loc), pos, size, loc);
  return {slot, sum(keep64, {}, false, loc)};
}
// Scatters `values` (one per sorted element) into size slots by `slot`, dropping slot == size.
Tensor scatter_slots(const Tensor& values, const Tensor& slot, std::int64_t size, Loc loc) {
  Tensor out = ops::make_node(OpKind::ScatterAdd, {values, slot}, ShapeAttr{{size + 1}, 0}, loc, "unique");
  return slice(out, {Index::range(0, size)}, loc);
}

// The first of each run of equal values of the sorted 1-D s (NaNs are one value).
Tensor run_starts(const Tensor& s, bool equal_nan, Loc loc) {
  std::int64_t n = s.shape()[0];
  if (n == 0) return cast(s, DType::b8, loc);
  Tensor head = slice(s, {Index::range(1, std::nullopt)}, loc), tail = slice(s, {Index::range(0, n - 1)}, loc);
  Tensor differs = not_equal(head, tail, loc);
  if (equal_nan && is_floating(s.dtype()))
    differs = logical_and(differs, logical_not(logical_and(isnan(head), isnan(tail))), loc);
  return concatenate({ones({1}, DType::b8, loc), differs}, 0, loc);
}

bool has_placeholders(const Tensor& x) {
  for (const Tensor& t : topological_order({x}))
    if (t.op() == OpKind::Placeholder) return true;
  return false;
}

// The size of a data-dependent result: `size`, or the count evaluated now (an input without
// placeholders), or the error saying that size= is needed.
std::int64_t static_size(const char* name, const Tensor& x, std::optional<std::int64_t> size, const Tensor& count,
                         Loc loc) {
  if (size) {
    if (*size < 0) raise_value(name, {x}, "size=" + std::to_string(*size) + " is negative", "Pass size >= 0.", loc);
    return *size;
  }
  if (has_placeholders(x))
    raise_value(name, {x},
                "the size of the result depends on the values of the input, which has placeholders, so it is not known "
                "when the graph is built",
                "Pass size= (a static length: the result is padded with fill_value, or cut), as jax.numpy's " +
                    std::string(name) + ".",
                loc);
  return count.eval().data<std::int64_t>()[0];
}

struct SortedUnique {
  Tensor perm, sorted, keep;
};
SortedUnique sorted_unique(const Tensor& x, Loc loc, bool equal_nan = true) {
  Tensor flat = reshape(x, {-1}, loc);
  Tensor perm = argsort(flat, 0, true, false, loc);
  Tensor s = take(flat, perm, 0, loc);
  return {perm, s, run_starts(s, equal_nan, loc)};
}

Tensor fill_tail(const Tensor& values, const Tensor& count, std::optional<double> fill_value, std::int64_t size,
                 Loc loc) {
  if (size == 0) return values;
  Tensor fill = fill_value ? ops::scalar(*fill_value, values.dtype()) : slice(values, {Index(0)}, loc);
  Tensor slots = arange(0, static_cast<double>(size), 1, DType::i64, loc);
  return where(less(slots, count, loc), values, fill, loc);
}

UniqueResult unique_impl(const char* name, const Tensor& x, std::optional<std::int64_t> size_arg,
                         std::optional<double> fill_value, Loc loc, bool equal_nan = false) {
  SortedUnique u = sorted_unique(x, loc, equal_nan);
  Compacted c = compact(u.keep, 0, loc);
  std::int64_t size = static_size(name, x, size_arg, c.count, loc);
  c = compact(u.keep, size, loc);
  UniqueResult r;
  r.values =
      fill_tail(scatter_slots(where(u.keep, u.sorted, 0, loc), c.slot, size, loc), c.count, fill_value, size, loc);
  r.indices = scatter_slots(where(u.keep, u.perm, 0, loc), c.slot, size, loc);
  std::int64_t n = u.sorted.shape()[0];
  Tensor group = cumsum(cast(u.keep, DType::i64, loc), 0, loc) - 1;  // each sorted element's unique index
  Tensor inverse = ops::make_node(OpKind::ScatterAdd, {group, u.perm}, ShapeAttr{{n}, 0}, loc, name);
  r.inverse_indices = reshape(inverse, x.shape(), loc);
  Tensor slot_all = where(less(group, size, loc), group, size, loc);
  r.counts = scatter_slots(ones({n}, DType::i64, loc), slot_all, size, loc);
  return r;
}

// numpy.unique(ar, axis=): the unique slices of ar along `axis`, in lexicographic order of their
// elements (row-major within a slice), each compared as NumPy's sort (NaN last). Slices are equal
// when all their elements are (NaN differs from NaN, as NumPy's, which never merges slices holding
// NaN); the first occurrence of each is the one returned (a stable sort).
std::vector<Tensor> unique_along(const Tensor& ar, int axis_arg, bool return_index, bool return_inverse,
                                 bool return_counts, std::optional<std::int64_t> size_arg,
                                 std::optional<double> fill_value, Loc loc) {
  const char* name = "unique";
  int axis = guarded(name, {ar}, loc, [&] { return ops::checked_axis(axis_arg, ar.ndim()); });
  if (has_symbols(ar.shape()))
    ops::raise(name, {ar},
               TypeProblem{TypeProblem::Kind::shape,
                           "unique along an axis needs the tensor's sizes, and its shape " + shape_string(ar.shape()) +
                               " has sizes unknown until the call",
                           "Give the placeholder fixed sizes, or take unique of the flattened tensor (axis=None)."},
               loc);
  std::vector<int> perm_axes{axis};
  for (int d = 0; d < ar.ndim(); ++d)
    if (d != axis) perm_axes.push_back(d);
  Tensor moved = transpose(ar, perm_axes, loc);  // (n, rest...)
  Shape rest(moved.shape().begin() + 1, moved.shape().end());
  const std::int64_t n = moved.shape()[0], m = num_elements(rest);
  Tensor rows = reshape(moved, {n, m}, loc);
  // The lexicographic order of the rows: stable sorts by the last column first, the first last.
  Tensor order;
  if (m == 0 || n == 0) {
    order = arange(0, static_cast<double>(n), 1, DType::i64, loc);
  } else {
    std::vector<Tensor> keys;
    for (std::int64_t j = m - 1; j >= 0; --j) keys.push_back(slice(rows, {Index::all(), Index(j)}, loc));
    order = lexsort(keys, 0, loc);
  }
  Tensor sorted = take(rows, order, 0, loc);  // (n, m)
  Tensor keep;
  if (n == 0) {
    keep = zeros({0}, DType::b8, loc);
  } else {
    Tensor head = slice(sorted, {Index::range(1, std::nullopt)}, loc);
    Tensor tail = slice(sorted, {Index::range(0, n - 1)}, loc);
    Tensor differs = m == 0 ? zeros({n - 1}, DType::b8, loc)
                            : greater(sum(cast(not_equal(head, tail, loc), DType::i64, loc), 1, false, loc), 0, loc);
    keep = concatenate({ones({1}, DType::b8, loc), differs}, 0, loc);
  }
  Compacted c = compact(keep, 0, loc);
  const std::int64_t size = static_size(name, ar, size_arg, c.count, loc);
  c = compact(keep, size, loc);
  Tensor slots = arange(0, static_cast<double>(size), 1, DType::i64, loc);
  Tensor valid = less(slots, c.count, loc);  // (size,)
  Tensor iota_n = arange(0, static_cast<double>(n), 1, DType::i64, loc);
  // The sorted position of each slot's slice (0, the first unique slice, for the padding).
  Tensor which = scatter_slots(where(keep, iota_n, 0, loc), c.slot, size, loc);
  Tensor values;
  if (n == 0) {
    values = broadcast_to(ops::scalar(fill_value.value_or(0), ar.dtype()), {size, m}, loc);
  } else {
    values = take(sorted, which, 0, loc);
    if (fill_value) values = where(reshape(valid, {size, 1}, loc), values, ops::scalar(*fill_value, ar.dtype()), loc);
  }
  Shape values_shape{size};
  values_shape.insert(values_shape.end(), rest.begin(), rest.end());
  std::vector<int> back;  // moves the slice axis from the front back to `axis`
  for (int d = 1; d <= axis; ++d) back.push_back(d);
  back.push_back(0);
  for (int d = axis + 1; d < ar.ndim(); ++d) back.push_back(d);
  std::vector<Tensor> out{transpose(reshape(values, values_shape, loc), back, loc)};
  Tensor zero_slots = zeros({size}, DType::i64, loc);
  if (return_index) out.push_back(n == 0 ? zero_slots : where(valid, take(order, which, 0, loc), 0, loc));
  Tensor group = cumsum(cast(keep, DType::i64, loc), 0, loc) - 1;  // each sorted slice's unique index
  if (return_inverse) out.push_back(ops::make_node(OpKind::ScatterAdd, {group, order}, ShapeAttr{{n}, 0}, loc, name));
  if (return_counts)
    out.push_back(
        scatter_slots(ones({n}, DType::i64, loc), where(less(group, size, loc), group, size, loc), size, loc));
  for (auto& t : out) t = named_composite(name, t);
  return out;
}

// Compacts the sorted, flattened s where `keep` holds.
Tensor compact_values(const char* name, const Tensor& operand, const Tensor& s, const Tensor& keep,
                      std::optional<std::int64_t> size_arg, std::optional<double> fill_value, Loc loc) {
  Compacted c = compact(keep, 0, loc);
  std::int64_t size = static_size(name, operand, size_arg, c.count, loc);
  c = compact(keep, size, loc);
  return fill_tail(scatter_slots(where(keep, s, 0, loc), c.slot, size, loc), c.count, fill_value, size, loc);
}

std::pair<Tensor, Tensor> promoted(const Tensor& a, const Tensor& b, Loc loc) {
  DType d = promote_types(a.dtype(), b.dtype());
  return {cast(a, d, loc), cast(b, d, loc)};
}

Tensor include_initial_value(const Tensor& r, int axis, double value, Loc loc) {
  std::vector<std::pair<std::int64_t, std::int64_t>> w(static_cast<std::size_t>(r.ndim()), {0, 0});
  w[static_cast<std::size_t>(axis)] = {1, 0};
  return pad(r, w, value, loc);
}

Tensor scan(OpKind op, const char* name, const Tensor& a, std::optional<int> axis, DType dtype, Loc loc) {
  auto [src, ax] = along(name, a, axis, loc);
  return ops::make_node(op, {cast(src, dtype, loc)}, AxisAttr{ax}, loc, name);
}

DType running_product_dtype(DType d) { return (d == DType::b8 || d == DType::u8 || d == DType::i32) ? DType::i64 : d; }

}  // namespace

Tensor sort(const Tensor& a, std::optional<int> axis, bool stable, bool descending, Loc loc) {
  (void)stable;  // every sort is stable
  return sort_node(OpKind::Sort, "sort", a, axis, descending, {}, loc);
}

Tensor argsort(const Tensor& a, std::optional<int> axis, bool stable, bool descending, Loc loc) {
  (void)stable;
  return sort_node(OpKind::Argsort, "argsort", a, axis, descending, {}, loc);
}

Tensor msort(const Tensor& a, Loc loc) { return sort(a, 0, true, false, loc); }

Tensor partition(const Tensor& a, const std::vector<std::int64_t>& kth, std::optional<int> axis, Loc loc) {
  return sort_node(OpKind::Partition, "partition", a, axis, false, kth, loc);
}

Tensor argpartition(const Tensor& a, const std::vector<std::int64_t>& kth, std::optional<int> axis, Loc loc) {
  return sort_node(OpKind::Argpartition, "argpartition", a, axis, false, kth, loc);
}

std::vector<Tensor> top_k(const Tensor& operand, std::int64_t k, Loc loc) {
  if (operand.ndim() == 0)
    raise_value("top_k", {operand}, "the operand is a scalar", "Pass an operand with at least one dimension.", loc);
  std::int64_t n = operand.shape().back();
  if (k < 0 || (!is_symbol(n) && k > n))
    raise_value("top_k", {operand}, "k=" + std::to_string(k) + " is not in [0, " + std::to_string(n) + "]",
                "Pass k no larger than the last axis.", loc);
  Tensor order = argsort(operand, -1, true, true, loc);
  std::vector<Index> index(static_cast<std::size_t>(operand.ndim() - 1), Index::all());
  index.push_back(Index::range(0, k));
  Tensor indices = slice(order, index, loc);
  return {take_along_axis(operand, indices, -1, loc), indices};
}

Tensor searchsorted(const Tensor& a, const Tensor& v, const std::string& side, const std::optional<Tensor>& sorter,
                    Loc loc) {
  if (side != "left" && side != "right")
    raise_value("searchsorted", {a, v}, "side='" + side + "'", "Pass side='left' or side='right'.", loc);
  if (a.ndim() != 1)
    ops::raise("searchsorted", {a, v},
               TypeProblem{TypeProblem::Kind::shape, "a has " + std::to_string(a.ndim()) + " dimensions, not 1",
                           "Pass a 1-D sorted array (ravel it first)."},
               loc);
  auto [sa, sv] = promoted(sorter ? take(a, *sorter, 0, loc) : a, v, loc);
  return ops::make_node(OpKind::Searchsorted, {sa, sv}, SortAttr{0, false, {}, side == "right"}, loc, "searchsorted");
}

Tensor lexsort(const std::vector<Tensor>& keys, int axis, Loc loc) {
  if (keys.empty()) raise_value("lexsort", {}, "no keys", "Pass at least one key.", loc);
  Tensor idx = argsort(keys[0], axis, true, false, loc);
  for (std::size_t i = 1; i < keys.size(); ++i)
    idx = take_along_axis(idx, argsort(take_along_axis(keys[i], idx, axis, loc), axis, true, false, loc), axis, loc);
  return idx;
}

Tensor median(const Tensor& a, Axes axis, bool keepdims, Loc loc) {
  DType fdt = float_of(a.dtype());
  Shape keep, kept;
  Tensor z = reduced_last("median", cast(a, fdt, loc), axis, keep, kept, loc);
  std::int64_t n = z.shape().back();
  Tensor r;
  if (n == 0 || is_symbol(n)) {
    r = n == 0 ? nan_like(kept, fdt, loc)
               : quantile_impl("median", a, ops::scalar(0.5, fdt), axis, "linear", false, false, loc);
  } else {
    // A selection of three order statistics, not a sort: positions (n-1)/2 and n/2, and the last one
    // (the largest: NaN if any), as NumPy's median.
    std::vector<std::int64_t> kth{(n - 1) / 2, n / 2, n - 1};
    kth.erase(std::unique(kth.begin(), kth.end()), kth.end());
    Tensor p = ops::make_node(OpKind::KthValues, {z}, SortAttr{z.ndim() - 1, false, kth, false}, loc, "median");
    auto at = [&](std::int64_t k) { return last_index(p, std::find(kth.begin(), kth.end(), k) - kth.begin(), loc); };
    Tensor lo = at((n - 1) / 2), hi = at(n / 2);
    r = (n % 2 == 1) ? lo : (lo + hi) * 0.5;
    r = where(isnan(at(n - 1), loc), ops::scalar(std::numeric_limits<double>::quiet_NaN(), fdt), r, loc);
  }
  return named_composite("median", reshape(r, keepdims ? keep : kept, loc));
}

Tensor quantile(const Tensor& a, const Tensor& q, Axes axis, const std::string& method, bool keepdims, Loc loc) {
  return quantile_impl("quantile", a, q, axis, method, keepdims, false, loc);
}
Tensor percentile(const Tensor& a, const Tensor& q, Axes axis, const std::string& method, bool keepdims, Loc loc) {
  return quantile_impl("percentile", a, cast(q, float_of(a.dtype()), loc) / 100, axis, method, keepdims, false, loc);
}
Tensor nanmedian(const Tensor& a, Axes axis, bool keepdims, Loc loc) {
  return quantile_impl("nanmedian", a, ops::scalar(0.5, float_of(a.dtype())), axis, "linear", keepdims, true, loc);
}
Tensor nanquantile(const Tensor& a, const Tensor& q, Axes axis, const std::string& method, bool keepdims, Loc loc) {
  return quantile_impl("nanquantile", a, q, axis, method, keepdims, true, loc);
}
Tensor nanpercentile(const Tensor& a, const Tensor& q, Axes axis, const std::string& method, bool keepdims, Loc loc) {
  return quantile_impl("nanpercentile", a, cast(q, float_of(a.dtype()), loc) / 100, axis, method, keepdims, true, loc);
}

std::vector<Tensor> unique(const Tensor& ar, bool return_index, bool return_inverse, bool return_counts, bool equal_nan,
                           std::optional<std::int64_t> size, std::optional<double> fill_value, std::optional<int> axis,
                           Loc loc) {
  if (axis) return unique_along(ar, *axis, return_index, return_inverse, return_counts, size, fill_value, loc);
  UniqueResult r = unique_impl("unique", ar, size, fill_value, loc, equal_nan);
  std::vector<Tensor> out{r.values};
  if (return_index) out.push_back(r.indices);
  if (return_inverse) out.push_back(r.inverse_indices);  // a's shape, as NumPy 2
  if (return_counts) out.push_back(r.counts);
  return out;
}
Tensor unique_values(const Tensor& x, std::optional<std::int64_t> size, std::optional<double> fill_value, Loc loc) {
  return unique_impl("unique_values", x, size, fill_value, loc).values;
}
UniqueResult unique_counts(const Tensor& x, std::optional<std::int64_t> size, std::optional<double> fill_value,
                           Loc loc) {
  UniqueResult r = unique_impl("unique_counts", x, size, fill_value, loc);
  return {r.values, Tensor(), Tensor(), r.counts};
}
UniqueResult unique_inverse(const Tensor& x, std::optional<std::int64_t> size, std::optional<double> fill_value,
                            Loc loc) {
  UniqueResult r = unique_impl("unique_inverse", x, size, fill_value, loc);
  return {r.values, Tensor(), r.inverse_indices, Tensor()};
}
UniqueResult unique_all(const Tensor& x, std::optional<std::int64_t> size, std::optional<double> fill_value, Loc loc) {
  return unique_impl("unique_all", x, size, fill_value, loc);
}

Tensor isin(const Tensor& element, const Tensor& test_elements, bool assume_unique, bool invert, Loc loc) {
  (void)assume_unique;
  auto [e, t] = promoted(element, reshape(test_elements, {-1}, loc), loc);
  std::int64_t m = t.shape()[0];
  Tensor found;
  if (m == 0) {
    found = broadcast_to(ops::scalar(0, DType::b8), e.shape(), loc);
  } else {
    Tensor s = sort(t, 0, true, false, loc);
    Tensor i = minimum(searchsorted(s, e, "left", std::nullopt, loc), m - 1, loc);
    found = symx::equal(take(s, i, 0, loc), e, loc);
  }
  return invert ? logical_not(found, loc) : found;
}
Tensor in1d(const Tensor& ar1, const Tensor& ar2, bool assume_unique, bool invert, Loc loc) {
  return isin(reshape(ar1, {-1}, loc), ar2, assume_unique, invert, loc);
}

Tensor intersect1d(const Tensor& ar1, const Tensor& ar2, bool assume_unique, std::optional<std::int64_t> size,
                   std::optional<double> fill_value, Loc loc) {
  (void)assume_unique;
  SortedUnique u = sorted_unique(ar1, loc);
  Tensor keep = logical_and(u.keep, isin(u.sorted, ar2, false, false, loc), loc);
  return compact_values("intersect1d", ar1, u.sorted, keep, size, fill_value, loc);
}
Tensor setdiff1d(const Tensor& ar1, const Tensor& ar2, bool assume_unique, std::optional<std::int64_t> size,
                 std::optional<double> fill_value, Loc loc) {
  (void)assume_unique;
  SortedUnique u = sorted_unique(ar1, loc);
  Tensor keep = logical_and(u.keep, isin(u.sorted, ar2, false, true, loc), loc);
  return compact_values("setdiff1d", ar1, u.sorted, keep, size, fill_value, loc);
}
Tensor setxor1d(const Tensor& ar1, const Tensor& ar2, bool assume_unique, std::optional<std::int64_t> size,
                std::optional<double> fill_value, Loc loc) {
  (void)assume_unique;
  auto [a, b] = promoted(reshape(ar1, {-1}, loc), reshape(ar2, {-1}, loc), loc);
  SortedUnique u = sorted_unique(concatenate({a, b}, 0, loc), loc);
  Tensor once = not_equal(isin(u.sorted, a, false, false, loc), isin(u.sorted, b, false, false, loc), loc);
  return compact_values("setxor1d", u.sorted, u.sorted, logical_and(u.keep, once, loc), size, fill_value, loc);
}
Tensor union1d(const Tensor& ar1, const Tensor& ar2, std::optional<std::int64_t> size, std::optional<double> fill_value,
               Loc loc) {
  auto [a, b] = promoted(reshape(ar1, {-1}, loc), reshape(ar2, {-1}, loc), loc);
  return unique_impl("union1d", concatenate({a, b}, 0, loc), size, fill_value, loc, true).values;
}

Tensor interp(const Tensor& x, const Tensor& xp, const Tensor& fp, std::optional<double> left,
              std::optional<double> right, std::optional<double> period, Loc loc) {
  if (xp.ndim() != 1 || fp.ndim() != 1 || xp.shape()[0] != fp.shape()[0] || xp.shape()[0] == 0)
    ops::raise("interp", {x, xp, fp},
               TypeProblem{TypeProblem::Kind::shape, "xp and fp must be 1-D of one non-zero length",
                           "Pass the sample points xp and their values fp as two 1-D arrays of one length."},
               loc);
  DType d = float_of(promote_types(promote_types(x.dtype(), xp.dtype()), fp.dtype()));
  Tensor xs = cast(x, d, loc), xps = cast(xp, d, loc), fps = cast(fp, d, loc);
  if (period) {
    if (*period == 0) raise_value("interp", {x, xp, fp}, "period is 0", "Pass a non-zero period.", loc);
    double p = std::abs(*period);
    xs = mod(xs, p, loc);
    Tensor order = argsort(mod(xps, p, loc), 0, true, false, loc);
    xps = take(mod(xps, p, loc), order, 0, loc);
    fps = take(fps, order, 0, loc);
    std::int64_t m = xps.shape()[0];
    xps = concatenate({slice(xps, {Index::range(m - 1, m)}, loc) - p, xps, slice(xps, {Index::range(0, 1)}, loc) + p},
                      0, loc);
    fps = concatenate({slice(fps, {Index::range(m - 1, m)}, loc), fps, slice(fps, {Index::range(0, 1)}, loc)}, 0, loc);
  }
  std::int64_t m = xps.shape()[0];
  if (m == 1) return named_composite("interp", broadcast_to(fps, xs.shape(), loc) + zeros_like(xs, loc));
  Tensor i = clip(searchsorted(xps, xs, "right", std::nullopt, loc), 1, m - 1, loc);
  Tensor x0 = take(xps, i - 1, 0, loc), x1 = take(xps, i, 0, loc);
  Tensor f0 = take(fps, i - 1, 0, loc), f1 = take(fps, i, 0, loc);
  Tensor dx = x1 - x0;
  Tensor zero = symx::equal(dx, 0, loc);
  Tensor f = where(zero, f1, f0 + (xs - x0) / where(zero, 1, dx, loc) * (f1 - f0), loc);
  if (!period) {
    Tensor first = slice(fps, {Index(0)}, loc), last = slice(fps, {Index(-1)}, loc);
    f = where(less(xs, slice(xps, {Index(0)}, loc), loc), left ? ops::scalar(*left, d) : first, f, loc);
    f = where(greater(xs, slice(xps, {Index(-1)}, loc), loc), right ? ops::scalar(*right, d) : last, f, loc);
  }
  return named_composite("interp", f);
}

Tensor cumprod(const Tensor& a, std::optional<int> axis, Loc loc) {
  return scan(OpKind::Cumprod, "cumprod", a, axis, running_product_dtype(a.dtype()), loc);
}
Tensor cummax(const Tensor& a, std::optional<int> axis, Loc loc) {
  return scan(OpKind::Cummax, "cummax", a, axis, a.dtype() == DType::b8 ? DType::u8 : a.dtype(), loc);
}
Tensor cummin(const Tensor& a, std::optional<int> axis, Loc loc) {
  return scan(OpKind::Cummin, "cummin", a, axis, a.dtype() == DType::b8 ? DType::u8 : a.dtype(), loc);
}
Tensor logcumsumexp(const Tensor& a, std::optional<int> axis, Loc loc) {
  return scan(OpKind::Logcumsumexp, "logcumsumexp", a, axis, float_of(a.dtype()), loc);
}
Tensor nancumsum(const Tensor& a, std::optional<int> axis, Loc loc) {
  Tensor x = is_floating(a.dtype()) ? where(isnan(a, loc), 0, a, loc) : a;
  return named_composite("nancumsum", cumsum(x, axis, loc));
}
Tensor nancumprod(const Tensor& a, std::optional<int> axis, Loc loc) {
  Tensor x = is_floating(a.dtype()) ? where(isnan(a, loc), 1, a, loc) : a;
  return named_composite("nancumprod", cumprod(x, axis, loc));
}

namespace {
int cumulative_axis(const char* name, const Tensor& x, std::optional<int> axis, Loc loc) {
  if (!axis && x.ndim() != 1)
    raise_value(name, {x}, "axis is omitted for an input of " + std::to_string(x.ndim()) + " dimensions",
                "Pass axis= (it may be omitted only for 1-D input).", loc);
  return guarded(name, {x}, loc, [&] { return ops::checked_axis(axis.value_or(0), x.ndim()); });
}
}  // namespace

Tensor cumulative_sum(const Tensor& x, std::optional<int> axis, bool include_initial, Loc loc) {
  int ax = cumulative_axis("cumulative_sum", x, axis, loc);
  Tensor r = cumsum(x, ax, loc);
  return include_initial ? named_composite("cumulative_sum", include_initial_value(r, ax, 0, loc)) : r;
}
Tensor cumulative_prod(const Tensor& x, std::optional<int> axis, bool include_initial, Loc loc) {
  int ax = cumulative_axis("cumulative_prod", x, axis, loc);
  Tensor r = cumprod(x, ax, loc);
  return include_initial ? named_composite("cumulative_prod", include_initial_value(r, ax, 1, loc)) : r;
}

}  // namespace symx

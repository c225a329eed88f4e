// Reductions (sum, prod, max, min), arg-reductions (argmax, argmin) and the running sum
// (cumsum), plus the composites built on them (mean, logsumexp, var, std).
//
// Dtype rules (NumPy's, with symx's defaults):
// - sum, prod and cumsum of bool, uint8 and int32 accumulate in int64 (NumPy's default integer
//   on Linux; NumPy gives uint64 for uint8, symx keeps one integer result type). Floats keep
//   their dtype.
// - mean, var, std and logsumexp of integer or bool input give float32, symx's default float
//   (NumPy gives float64).
// - max, min keep the input dtype; argmax and argmin give int64.
// The primitives themselves keep their input dtype; the public functions cast before building
// them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/op_table.hpp"

namespace symx {
namespace ops {
namespace {

template <class Int> std::string join_axes(const std::vector<Int>& axes) {
  std::string s = "(";
  for (std::size_t i = 0; i < axes.size(); ++i) s += (i ? ", " : "") + std::to_string(axes[i]);
  return s + (axes.size() == 1 ? ",)" : ")");
}

// The input shape with every reduced axis set to 1 (the keepdims result shape).
Shape keep_shape(const Shape& in, const std::vector<int>& axes) {
  Shape s = in;
  for (int a : axes) s[static_cast<std::size_t>(a)] = 1;
  return s;
}

Shape reduced_shape(const Shape& in, const std::vector<int>& axes, bool keepdims) {
  if (keepdims) return keep_shape(in, axes);
  Shape s;
  for (std::size_t d = 0; d < in.size(); ++d)
    if (std::find(axes.begin(), axes.end(), static_cast<int>(d)) == axes.end()) s.push_back(in[d]);
  return s;
}

void check_reduce_attr(const ReduceAttr& a, int ndim) {
  for (std::size_t i = 0; i < a.axes.size(); ++i) {
    checked_axis(a.axes[i], ndim);
    if (a.axes[i] < 0) fail_shape("negative axis in a normalized reduction", "Pass non-negative axes.");
    if (i > 0 && a.axes[i] <= a.axes[i - 1])
      fail_shape("reduction axes " + join_axes(a.axes) + " are not sorted and distinct",
                 "List each axis once, in increasing order.");
  }
}

constexpr bool is_extremum(OpKind op) { return op == OpKind::Max || op == OpKind::Min; }

template <OpKind op> TensorType infer_reduce(const std::vector<Tensor>& in, const Attr& attr) {
  const Tensor& x = in[0];
  const auto& a = std::get<ReduceAttr>(attr);
  check_reduce_attr(a, x.ndim());
  if constexpr (!is_extremum(op)) {
    if (x.dtype() == DType::b8)
      fail_dtype(std::string("the primitive does not accept bool operands"),
                 "Cast to int64 first (symx::sum and symx::prod do this for you).");
  } else {
    for (int ax : a.axes)
      if (x.shape()[static_cast<std::size_t>(ax)] == 0)
        fail_shape(
            "cannot reduce axis " + std::to_string(ax) + " of shape " + shape_string(x.shape()) +
                ": it has size 0 and " + op_name(op) + " has no identity",
            "Reduce only non-empty axes (check the shape first), or use a reduction with an identity such as sum.");
  }
  return {reduced_shape(x.shape(), a.axes, a.keepdims), x.dtype()};
}

// Accumulator type of a reduction: double for floats (a more accurate oracle than float32),
// uint64 for integers (wrapping arithmetic, defined behavior), uint8 for bool.
template <class T> using Acc =
    std::conditional_t<std::is_floating_point_v<T>, double,
                       std::conditional_t<std::is_same_v<T, bool>, std::uint8_t, std::uint64_t>>;

template <OpKind op> Array evaluate_reduce(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  const auto& a = std::get<ReduceAttr>(args.node.attr);
  Array out(args.node.type.shape, x.dtype());
  // Flat index of an input element's output slot: reduced axes get stride 0.
  const Shape kept = keep_shape(x.shape(), a.axes);
  auto strides = contiguous_strides(kept);
  for (int ax : a.axes) strides[static_cast<std::size_t>(ax)] = 0;
  if (is_complex(x.dtype())) {  // sum only (the op table admits no other reduction of complex numbers)
    std::vector<std::complex<double>> acc(static_cast<std::size_t>(out.size()));
    if (x.size() > 0) {
      IndexCounter counter(x.shape());
      std::int64_t flat = 0;
      do {
        std::int64_t o = 0;
        for (std::size_t d = 0; d < strides.size(); ++d) o += counter.index[d] * strides[d];
        acc[static_cast<std::size_t>(o)] += x.get_complex_flat(flat++);
      } while (counter.next());
    }
    for (std::size_t o = 0; o < acc.size(); ++o) out.set_complex_flat(static_cast<std::int64_t>(o), acc[o]);
    return out;
  }
  visit_dtype(x.dtype(), [&]<class T>() {
    using A = std::conditional_t<is_extremum(op), std::conditional_t<std::is_same_v<T, bool>, std::uint8_t, T>, Acc<T>>;
    const auto n_out = static_cast<std::size_t>(out.size());
    std::vector<A> acc(n_out, static_cast<A>(op == OpKind::Prod ? 1 : 0));
    std::vector<char> seen(n_out, 0);
    const T* px = x.data<T>();
    if (x.size() > 0) {
      IndexCounter counter(x.shape());
      std::int64_t flat = 0;
      do {
        std::int64_t o = 0;
        for (std::size_t d = 0; d < strides.size(); ++d) o += counter.index[d] * strides[d];
        A& slot = acc[static_cast<std::size_t>(o)];
        A v = static_cast<A>(px[flat++]);
        if constexpr (op == OpKind::Sum) {
          slot = static_cast<A>(slot + v);
        } else if constexpr (op == OpKind::Prod) {
          slot = static_cast<A>(slot * v);
        } else {
          char& s = seen[static_cast<std::size_t>(o)];
          if (!s) {
            slot = v;
            s = 1;
          } else if constexpr (std::is_floating_point_v<A>) {
            // NaN propagates, as numpy.max.
            if (std::isnan(slot)) continue;
            if (std::isnan(v) || (op == OpKind::Max ? v > slot : v < slot)) slot = v;
          } else {
            if (op == OpKind::Max ? v > slot : v < slot) slot = v;
          }
        }
      } while (counter.next());
    }
    T* po = out.data<T>();
    for (std::size_t o = 0; o < n_out; ++o) po[o] = static_cast<T>(acc[o]);
  });
  return out;
}

// ---- argmax, argmin ----

template <OpKind op> TensorType infer_arg(const std::vector<Tensor>& in, const Attr& attr) {
  const Tensor& x = in[0];
  int axis = checked_axis(std::get<AxisAttr>(attr).axis, x.ndim());
  if (x.shape()[static_cast<std::size_t>(axis)] == 0)
    fail_shape("cannot take the " + std::string(op_name(op)) + " of an empty sequence (axis " + std::to_string(axis) +
                   " of shape " + shape_string(x.shape()) + " has size 0)",
               "Reduce only non-empty axes.");
  Shape out = x.shape();
  out.erase(out.begin() + axis);
  return {out, DType::i64};
}

// The first index of the extreme; the first NaN wins, as NumPy.
template <OpKind op> Array evaluate_arg(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  AxisSplit s = split_at(x.shape(), std::get<AxisAttr>(args.node.attr).axis);
  Array out(args.node.type.shape, DType::i64);
  std::int64_t* po = out.data<std::int64_t>();
  visit_dtype(x.dtype(), [&]<class T>() {
    const T* px = x.data<T>();
    for (std::int64_t o = 0; o < s.outer; ++o)
      for (std::int64_t i = 0; i < s.inner; ++i) {
        auto at = [&](std::int64_t k) { return px[(o * s.n + k) * s.inner + i]; };
        std::int64_t best = 0;
        for (std::int64_t k = 1; k < s.n; ++k) {
          T b = at(best), v = at(k);
          if constexpr (std::is_floating_point_v<T>) {
            if (std::isnan(b)) break;
            if (std::isnan(v)) {
              best = k;
              break;
            }
          }
          if (op == OpKind::Argmax ? v > b : v < b) best = k;
        }
        po[o * s.inner + i] = best;
      }
  });
  return out;
}

// ---- cumsum ----

TensorType infer_cumsum(const std::vector<Tensor>& in, const Attr& attr) {
  const Tensor& x = in[0];
  checked_axis(std::get<AxisAttr>(attr).axis, x.ndim());
  if (x.dtype() == DType::b8)
    fail_dtype("the primitive does not accept bool operands", "Cast to int64 first (symx::cumsum does this for you).");
  return x.type();
}

Array evaluate_cumsum(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  AxisSplit s = split_at(x.shape(), std::get<AxisAttr>(args.node.attr).axis);
  Array out(x.shape(), x.dtype());
  visit_dtype(x.dtype(), [&]<class T>() {
    const T* px = x.data<T>();
    T* po = out.data<T>();
    for (std::int64_t o = 0; o < s.outer; ++o)
      for (std::int64_t i = 0; i < s.inner; ++i) {
        Acc<T> running = 0;
        for (std::int64_t k = 0; k < s.n; ++k) {
          std::int64_t f = (o * s.n + k) * s.inner + i;
          running = static_cast<Acc<T>>(running + static_cast<Acc<T>>(px[f]));
          po[f] = static_cast<T>(running);
        }
      }
  });
  return out;
}

// ---- vector-Jacobian rules ----

std::vector<Tensor> vjp_sum(const Tensor& y, const Tensor& g) {
  const Tensor& x = y.node().inputs[0];
  const auto& a = std::get<ReduceAttr>(y.node().attr);
  return {broadcast_to(reshape(g, keep_shape(x.shape(), a.axes)), x.shape())};
}

// d prod / d x_i = prod_{j != i} x_j, computed without dividing by zero: with no zero in the
// reduced group it is prod / x_i; at the single zero of a group with one zero it is the product
// of the non-zero elements; everything else is 0. Built from differentiable ops, so second
// derivatives are right except at groups with two or more zeros.
std::vector<Tensor> vjp_prod(const Tensor& y, const Tensor& g) {
  const Tensor& x = y.node().inputs[0];
  const auto& a = std::get<ReduceAttr>(y.node().attr);
  Shape keep = keep_shape(x.shape(), a.axes);
  Axes axes(a.axes);
  Tensor y_keep = reshape(y, keep);
  Tensor g_keep = reshape(g, keep);
  Tensor is_zero = equal(x, 0);
  Tensor safe_x = where(is_zero, 1, x);
  Tensor zero_count = sum(cast(is_zero, DType::i64), axes, true);
  Tensor nonzero_prod = prod(safe_x, axes, true);
  Tensor others = where(is_zero, where(equal(zero_count, 1), nonzero_prod, 0), y_keep / safe_x);
  return {g_keep * others};
}

// The cotangent goes to the elements equal to the extreme, split evenly among ties (as JAX).
std::vector<Tensor> vjp_extremum(const Tensor& y, const Tensor& g) {
  const Tensor& x = y.node().inputs[0];
  const auto& a = std::get<ReduceAttr>(y.node().attr);
  Shape keep = keep_shape(x.shape(), a.axes);
  Tensor hit = equal(x, reshape(y, keep));
  Tensor count = sum(cast(hit, g.dtype()), Axes(a.axes), true);
  return {where(hit, reshape(g, keep) / count, 0)};
}

std::vector<Tensor> vjp_cumsum(const Tensor& y, const Tensor& g) {
  int axis = std::get<AxisAttr>(y.node().attr).axis;
  Tensor reversed = flip(g, {axis});
  return {flip(make_node(OpKind::Cumsum, {reversed}, AxisAttr{axis}), {axis})};
}

// ---- public-function helpers ----

template <class F> auto guarded(const char* name, const std::vector<Tensor>& operands, Loc loc, F&& f) {
  try {
    return f();
  } catch (const TypeProblem& problem) {
    raise(name, operands, problem, loc);
  }
}

// Normalized, sorted axes of a reduction; duplicates are an error.
std::vector<int> normalize_axes(const char* name, const Tensor& x, const Axes& axes, Loc loc) {
  std::vector<int> out;
  if (axes.all()) {
    for (int d = 0; d < x.ndim(); ++d) out.push_back(d);
    return out;
  }
  guarded(name, {x}, loc, [&] {
    for (std::int64_t a : axes.list()) out.push_back(checked_axis(a, x.ndim()));
    return 0;
  });
  std::sort(out.begin(), out.end());
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i] == out[i - 1])
      raise(name, {x},
            {TypeProblem::Kind::shape,
             "axis " + std::to_string(out[i]) + " appears more than once in axes " + join_axes(axes.list()),
             "List each axis at most once."},
            loc);
  return out;
}

DType accumulation_dtype(DType d) { return (d == DType::b8 || d == DType::u8 || d == DType::i32) ? DType::i64 : d; }

Tensor reduce(OpKind op, const char* name, const Tensor& x, const Axes& axes, bool keepdims, Loc loc) {
  std::vector<int> normalized = normalize_axes(name, x, axes, loc);
  Tensor input = is_extremum(op) ? x : cast(x, accumulation_dtype(x.dtype()), loc);
  return make_node(op, {input}, ReduceAttr{normalized, keepdims}, loc, name);
}

Tensor as_float(const Tensor& x, Loc loc) { return is_inexact(x.dtype()) ? x : cast(x, DType::f32, loc); }

Tensor mean_impl(const char* name, const Tensor& x, const Axes& axes, bool keepdims, Loc loc) {
  std::vector<int> normalized = normalize_axes(name, x, axes, loc);
  Tensor s = make_node(OpKind::Sum, {cast(x, accumulation_dtype(x.dtype()), loc)}, ReduceAttr{normalized, keepdims},
                       loc, name);
  // Integer means are float32 (symx's default float; NumPy gives float64). An empty group gives
  // 0 / 0 = NaN, as NumPy (which also warns).
  Tensor total = as_float(s, loc);
  std::int64_t known = 1;  // the product of the reduced sizes known now,
  Shape unknown;           // and the sizes a call will tell (the batch)
  for (int a : normalized) {
    std::int64_t d = x.shape()[static_cast<std::size_t>(a)];
    if (is_symbol(d)) unknown.push_back(d);
    else known *= d;
  }
  if (unknown.empty()) return divide(total, static_cast<double>(known), loc);
  // The unknown part of the count is the sum of ones over those sizes, which becomes a constant
  // when the function specializes (the algebraic rule sum(broadcast_to(c))).
  Tensor ones = broadcast_to(scalar(1.0, total.dtype()), unknown, loc);
  Tensor count = make_node(OpKind::Sum, {ones}, ReduceAttr{normalize_axes(name, ones, Axes(), loc), false}, loc, name);
  return divide(total, multiply(count, static_cast<double>(known), loc), loc);
}

Tensor arg_reduce(OpKind op, const char* name, const Tensor& x, std::optional<int> axis, bool keepdims, Loc loc) {
  Tensor src = x;
  int ax = 0;
  if (axis) ax = guarded(name, {x}, loc, [&] { return checked_axis(*axis, x.ndim()); });
  else src = reshape(x, {-1}, loc);
  Tensor r = make_node(op, {src}, AxisAttr{ax}, loc, name);
  if (!keepdims) return r;
  Shape shape = x.shape();
  if (axis) shape[static_cast<std::size_t>(ax)] = 1;
  else std::fill(shape.begin(), shape.end(), 1);
  return named_composite(name, reshape(r, shape, loc));
}

}  // namespace

void register_reduce_ops() {
  using K = OpKind;
  // Sum, prod, max and min are loops inside kernels, never recomputed (each would repeat a loop);
  // index reductions and scans have no kernel yet: the reference evaluation runs them.
  using L = Lowering;
  constexpr auto F = Family::reduction;
  define(K::Sum, row(F, 1, L::kernel, infer_reduce<K::Sum>, evaluate_reduce<K::Sum>, vjp_sum));
  define(K::Prod, row(F, 1, L::kernel, infer_reduce<K::Prod>, evaluate_reduce<K::Prod>, vjp_prod));
  define(K::Max, row(F, 1, L::kernel, infer_reduce<K::Max>, evaluate_reduce<K::Max>, vjp_extremum));
  define(K::Min, row(F, 1, L::kernel, infer_reduce<K::Min>, evaluate_reduce<K::Min>, vjp_extremum));
  define(K::Argmax, row(F, 1, L::reference, infer_arg<K::Argmax>, evaluate_arg<K::Argmax>, no_gradient));
  define(K::Argmin, row(F, 1, L::reference, infer_arg<K::Argmin>, evaluate_arg<K::Argmin>, no_gradient));
  define(K::Cumsum, row(F, 1, L::reference, infer_cumsum, evaluate_cumsum, vjp_cumsum));
}

}  // namespace ops

Tensor sum(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  return ops::reduce(OpKind::Sum, "sum", x, axis, keepdims, loc);
}

Tensor mean(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  return named_composite("mean", ops::mean_impl("mean", x, axis, keepdims, loc));
}

Tensor prod(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  return ops::reduce(OpKind::Prod, "prod", x, axis, keepdims, loc);
}

Tensor max(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  return ops::reduce(OpKind::Max, "max", x, axis, keepdims, loc);
}

Tensor min(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  return ops::reduce(OpKind::Min, "min", x, axis, keepdims, loc);
}

// log(sum(exp(x - m))) + m with m the (gradient-stopped) max; where m is infinite the shift is 0
// so that all -inf gives -inf and +inf gives +inf rather than NaN.
Tensor logsumexp(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  Tensor xf = ops::as_float(x, loc);
  std::vector<int> axes = ops::normalize_axes("logsumexp", x, axis, loc);
  Tensor m = stop_gradient(ops::make_node(OpKind::Max, {xf}, ReduceAttr{axes, true}, loc, "logsumexp"), loc);
  Tensor shift = where(isfinite(m, loc), m, 0, loc);
  Tensor s = log(sum(exp(subtract(xf, shift, loc), loc), Axes(axes), keepdims, loc), loc);
  return named_composite("logsumexp", add(s, reshape(shift, s.shape(), loc), loc));
}

Tensor var(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  Tensor xf = ops::as_float(x, loc);
  std::vector<int> axes = ops::normalize_axes("var", x, axis, loc);
  Tensor centered = subtract(xf, ops::mean_impl("var", xf, Axes(axes), true, loc), loc);
  return named_composite("var", ops::mean_impl("var", square(centered, loc), Axes(axes), keepdims, loc));
}

// sqrt(var), with the gradient 0 rather than 0 * inf = NaN where the variance is 0 (a constant slice),
// as PyTorch's std (JAX's gives NaN there): the root is taken of 1 there and the variance, 0, passed
// on (NaN too, so that it propagates).
Tensor std(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  Tensor v = var(x, std::move(axis), keepdims, loc);
  Tensor positive = greater(v, 0, loc);
  return named_composite("std", where(positive, sqrt(where(positive, v, 1, loc), loc), v, loc));
}

Tensor argmax(const Tensor& x, std::optional<int> axis, bool keepdims, Loc loc) {
  return ops::arg_reduce(OpKind::Argmax, "argmax", x, axis, keepdims, loc);
}

Tensor argmin(const Tensor& x, std::optional<int> axis, bool keepdims, Loc loc) {
  return ops::arg_reduce(OpKind::Argmin, "argmin", x, axis, keepdims, loc);
}

Tensor cumsum(const Tensor& x, std::optional<int> axis, Loc loc) {
  Tensor src = x;
  int ax = 0;
  if (axis) ax = ops::guarded("cumsum", {x}, loc, [&] { return ops::checked_axis(*axis, x.ndim()); });
  else src = reshape(x, {-1}, loc);
  return ops::make_node(OpKind::Cumsum, {cast(src, ops::accumulation_dtype(x.dtype()), loc)}, AxisAttr{ax}, loc,
                        "cumsum");
}

}  // namespace symx

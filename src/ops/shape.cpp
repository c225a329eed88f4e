// Shape and indexing ops: the primitives reshape, transpose, broadcast_to, concatenate, slice /
// unslice, pad, take / scatter_add and take_along_axis / scatter_add_along_axis, and the
// composites built from them (expand_dims, squeeze, stack, split, basic indexing, flip, tile,
// repeat, one_hot, meshgrid). Constants (zeros, ones, eye, arange, linspace) are in creation.cpp.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "ops/op_table.hpp"

namespace symx {
namespace ops {
namespace {

std::string join(const std::vector<std::int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}
std::string join(const std::vector<int>& v) { return join(std::vector<std::int64_t>(v.begin(), v.end())); }

template <class F> auto guarded(const char* name, const std::vector<Tensor>& operands, Loc loc, F&& f) {
  try {
    return f();
  } catch (const TypeProblem& problem) {
    raise(name, operands, problem, loc);
  }
}

[[noreturn]] void raise_shape(const char* name, const std::vector<Tensor>& operands, std::string problem,
                              std::string fix, Loc loc) {
  raise(name, operands, {TypeProblem::Kind::shape, std::move(problem), std::move(fix)}, loc);
}
[[noreturn]] void raise_value(const char* name, const std::vector<Tensor>& operands, std::string problem,
                              std::string fix, Loc loc) {
  raise(name, operands, {TypeProblem::Kind::value, std::move(problem), std::move(fix)}, loc);
}

// Fails unless `shape` can hold elements of `dtype` (see shape_problem): checked before any rule
// counts its elements, so that an overflowed count cannot pass for a matching one.
void check_dims(const Shape& shape, DType dtype) {
  std::string problem = shape_problem(known_sizes(shape), dtype);
  if (!problem.empty())
    fail_shape(problem, "Every dimension must be zero or more and the array must fit in 2^48 bytes.");
}

// Copies element `from` of `src` to element `to` of `dst` (same dtype), bit for bit.
void copy_element(const Array& src, std::int64_t from, Array& dst, std::int64_t to) {
  const std::size_t n = itemsize(src.dtype());
  std::memcpy(static_cast<char*>(dst.raw_data()) + static_cast<std::size_t>(to) * n,
              static_cast<const char*>(src.raw_data()) + static_cast<std::size_t>(from) * n, n);
}

// Calls f(out_flat, multi_index) for every element of `shape`, row-major.
template <class F> void for_each_index(const Shape& shape, F f) {
  if (num_elements(shape) == 0) return;
  IndexCounter counter(shape);
  std::int64_t flat = 0;
  do f(flat++, counter.index);
  while (counter.next());
}

std::int64_t dot(const std::vector<std::int64_t>& index, const std::vector<std::int64_t>& strides) {
  std::int64_t s = 0;
  for (std::size_t d = 0; d < index.size(); ++d) s += index[d] * strides[d];
  return s;
}

// Integer index values (any integer dtype) as int64.
std::vector<std::int64_t> index_values(const Array& a) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(a.size()));
  visit_dtype(a.dtype(), [&]<class T>() {
    const T* p = a.data<T>();
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(p[i]);
  });
  return v;
}

// An index in [-n, n) made non-negative; anything else is an evaluation error.
std::int64_t wrap_index(std::int64_t i, std::int64_t n, const Node& node, int axis) {
  if (i < -n || i >= n)
    throw ValueError(std::string(op_name(node.op)) + ": index " + std::to_string(i) + " is out of bounds for axis " +
                     std::to_string(axis) + " with size " + std::to_string(n) +
                     (node.where.empty() ? std::string() : ", at " + node.where) + ". Use indices in [" +
                     std::to_string(-n) + ", " + std::to_string(n) + ").");
  return i < 0 ? i + n : i;
}

// dst += src elementwise for one element (bool: logical or).
void add_element(const Array& src, std::int64_t from, Array& dst, std::int64_t to) {
  visit_dtype(src.dtype(), [&]<class T>() {
    T& d = dst.data<T>()[to];
    T s = src.data<T>()[from];
    if constexpr (std::is_same_v<T, bool>) d = d || s;
    else if constexpr (std::is_integral_v<T>)
      d = static_cast<T>(static_cast<std::uint64_t>(d) + static_cast<std::uint64_t>(s));
    else d = static_cast<T>(d + s);
  });
}

void check_index_dtype(const Tensor& indices) {
  if (!is_integer(indices.dtype()))
    fail_dtype("indices must have an integer dtype, got " + std::string(dtype_name(indices.dtype())),
               "Cast the indices with astype(int64).");
}

// ---- reshape ----

TensorType infer_reshape(const std::vector<Tensor>& in, const Attr& attr) {
  const Shape& shape = std::get<ShapeAttr>(attr).shape;
  check_dims(shape, in[0].dtype());
  // With unknown sizes, reshape() checked what it could; a call infers again with the real sizes.
  if (!has_symbols(shape) && !has_symbols(in[0].shape()) && num_elements(shape) != in[0].size())
    fail_shape("cannot reshape " + std::to_string(in[0].size()) + " elements into shape " + shape_string(shape),
               "Choose a shape with the same number of elements, or use -1 for one axis.");
  return {shape, in[0].dtype()};
}
// A copy, so that no result aliases its input's (possibly a variable's) storage.
Array evaluate_reshape(const EvalArgs& args) { return args.inputs[0].copy().reshape(args.node.type.shape); }
std::vector<Tensor> vjp_reshape(const Tensor& y, const Tensor& g) { return {reshape(g, y.node().inputs[0].shape())}; }

// ---- transpose ----

TensorType infer_transpose(const std::vector<Tensor>& in, const Attr& attr) {
  const auto& perm = std::get<PermAttr>(attr).perm;
  const Shape& s = in[0].shape();
  std::vector<int> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  bool ok = perm.size() == s.size();
  for (std::size_t i = 0; ok && i < sorted.size(); ++i) ok = sorted[i] == static_cast<int>(i);
  if (!ok)
    fail_shape("axes " + join(perm) + " are not a permutation of the " + std::to_string(s.size()) + " axes of shape " +
                   shape_string(s),
               "List every axis exactly once, e.g. transpose(x, {1, 0}) for a matrix.");
  Shape out;
  for (int p : perm) out.push_back(s[static_cast<std::size_t>(p)]);
  return {out, in[0].dtype()};
}
Array evaluate_transpose(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  const auto& perm = std::get<PermAttr>(args.node.attr).perm;
  auto in_strides = contiguous_strides(x.shape());
  std::vector<std::int64_t> strides;
  for (int p : perm) strides.push_back(in_strides[static_cast<std::size_t>(p)]);
  Array out(args.node.type.shape, x.dtype());
  for_each_index(out.shape(),
                 [&](std::int64_t flat, const auto& idx) { copy_element(x, dot(idx, strides), out, flat); });
  return out;
}
std::vector<Tensor> vjp_transpose(const Tensor& y, const Tensor& g) {
  const auto& perm = std::get<PermAttr>(y.node().attr).perm;
  std::vector<int> inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inverse[static_cast<std::size_t>(perm[i])] = static_cast<int>(i);
  return {transpose(g, inverse)};
}

// ---- broadcast_to ----

TensorType infer_broadcast_to(const std::vector<Tensor>& in, const Attr& attr) {
  const Shape& to = std::get<ShapeAttr>(attr).shape;
  const Shape& from = in[0].shape();
  check_dims(to, in[0].dtype());
  bool ok = from.size() <= to.size();
  for (std::size_t i = 0; ok && i < from.size(); ++i) {
    std::int64_t f = from[i], t = to[to.size() - from.size() + i];
    ok = f == t || f == 1 || is_symbol(f) || is_symbol(t);  // unknown sizes: checked when a call specializes
  }
  if (!ok)
    fail_shape("cannot broadcast shape " + shape_string(from) + " to " + shape_string(to),
               "Aligned from the right, each input axis must equal the target size or be 1 (and the target needs at "
               "least as many axes); insert size-1 axes with expand_dims or reshape.");
  return {to, in[0].dtype()};
}
Array evaluate_broadcast_to(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  Array out(args.node.type.shape, x.dtype());
  auto strides = broadcast_strides(x.shape(), out.shape());
  for_each_index(out.shape(),
                 [&](std::int64_t flat, const auto& idx) { copy_element(x, dot(idx, strides), out, flat); });
  return out;
}
std::vector<Tensor> vjp_broadcast_to(const Tensor& y, const Tensor& g) {
  return {unbroadcast(g, y.node().inputs[0].shape())};
}

// ---- slice / unslice ----

// Validates a SliceAttr against the shape it indexes into; returns the sliced shape (count).
Shape check_slice(const SliceAttr& a, const Shape& shape) {
  const std::size_t n = shape.size();
  if (a.start.size() != n || a.count.size() != n || a.step.size() != n)
    fail_value("the slice has " + std::to_string(a.start.size()) + " starts, " + std::to_string(a.count.size()) +
                   " counts and " + std::to_string(a.step.size()) + " steps for " + std::to_string(n) + " axes",
               "Give one start, count and step per axis.");
  for (std::size_t d = 0; d < n; ++d) {
    if (a.step[d] == 0) fail_value("slice step is 0 on axis " + std::to_string(d), "Use a non-zero step.");
    // An axis of unknown size is kept whole (count = its symbol) or indexed by a start alone; the
    // call's sizes are checked when the function specializes.
    if (is_symbol(shape[d]) && (a.count[d] == shape[d] || (a.count[d] == 1 && a.start[d] >= 0))) continue;
    if (a.count[d] < 0) fail_value("negative count on axis " + std::to_string(d), "Counts must be zero or more.");
    if (a.count[d] == 0) continue;
    std::int64_t last = a.start[d] + (a.count[d] - 1) * a.step[d];
    if (a.start[d] < 0 || a.start[d] >= shape[d] || last < 0 || last >= shape[d])
      fail_shape("slice of axis " + std::to_string(d) + " (start " + std::to_string(a.start[d]) + ", count " +
                     std::to_string(a.count[d]) + ", step " + std::to_string(a.step[d]) + ") leaves the axis of size " +
                     std::to_string(shape[d]),
                 "Keep every sliced index within [0, size).");
  }
  return a.count;
}

// Calls f(sliced_flat, source_flat) for each element of the slice.
template <class F> void for_each_sliced(const SliceAttr& a, const Shape& source, F f) {
  auto strides = contiguous_strides(source);
  for_each_index(a.count, [&](std::int64_t flat, const auto& idx) {
    std::int64_t src = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) src += (a.start[d] + idx[d] * a.step[d]) * strides[d];
    f(flat, src);
  });
}

TensorType infer_slice(const std::vector<Tensor>& in, const Attr& attr) {
  return {check_slice(std::get<SliceAttr>(attr), in[0].shape()), in[0].dtype()};
}
Array evaluate_slice(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  Array out(args.node.type.shape, x.dtype());
  for_each_sliced(std::get<SliceAttr>(args.node.attr), x.shape(),
                  [&](std::int64_t flat, std::int64_t src) { copy_element(x, src, out, flat); });
  return out;
}
std::vector<Tensor> vjp_slice(const Tensor& y, const Tensor& g) {
  SliceAttr a = std::get<SliceAttr>(y.node().attr);
  a.input_shape = y.node().inputs[0].shape();
  return {make_node(OpKind::Unslice, {g}, a)};
}

TensorType infer_unslice(const std::vector<Tensor>& in, const Attr& attr) {
  const auto& a = std::get<SliceAttr>(attr);
  check_dims(a.input_shape, in[0].dtype());
  Shape counts = check_slice(a, a.input_shape);
  if (counts != in[0].shape())
    fail_shape("the operand has shape " + shape_string(in[0].shape()) + " but the slice selects " +
                   shape_string(counts),
               "Pass a cotangent of the slice's shape.");
  return {a.input_shape, in[0].dtype()};
}
Array evaluate_unslice(const EvalArgs& args) {
  const Array& g = args.inputs[0];
  const auto& a = std::get<SliceAttr>(args.node.attr);
  Array out(a.input_shape, g.dtype());
  for_each_sliced(a, a.input_shape, [&](std::int64_t flat, std::int64_t dst) { copy_element(g, flat, out, dst); });
  return out;
}
std::vector<Tensor> vjp_unslice(const Tensor& y, const Tensor& g) {
  return {make_node(OpKind::Slice, {g}, y.node().attr)};
}

// ---- concatenate ----

TensorType infer_concatenate(const std::vector<Tensor>& in, const Attr& attr) {
  if (in.empty()) fail_value("needs at least one tensor", "Pass a non-empty list of tensors.");
  const Tensor& first = in[0];
  if (first.ndim() == 0)
    fail_shape("zero-dimensional tensors cannot be concatenated", "Use stack, or reshape the scalars to shape (1,).");
  int axis = checked_axis(std::get<AxisAttr>(attr).axis, first.ndim());
  Shape out = first.shape();
  out[static_cast<std::size_t>(axis)] = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Tensor& t = in[i];
    if (t.dtype() != first.dtype())
      fail_dtype("input " + std::to_string(i) + " has dtype " + std::string(dtype_name(t.dtype())) +
                     " but input 0 has " + std::string(dtype_name(first.dtype())),
                 "Cast the inputs to one dtype (symx::concatenate promotes them for you).");
    if (t.ndim() != first.ndim())
      fail_shape("input " + std::to_string(i) + " has " + std::to_string(t.ndim()) + " dimensions but input 0 has " +
                     std::to_string(first.ndim()),
                 "Give every input the same number of dimensions (reshape or expand_dims).");
    for (int d = 0; d < first.ndim(); ++d) {
      auto u = static_cast<std::size_t>(d);
      if (d != axis && t.shape()[u] != first.shape()[u] && !is_symbol(t.shape()[u]) && !is_symbol(first.shape()[u]))
        fail_shape("input " + std::to_string(i) + " has shape " + shape_string(t.shape()) + " but input 0 has " +
                       shape_string(first.shape()) + "; all sizes except along axis " + std::to_string(axis) +
                       " must match",
                   "Make the other axes equal, or concatenate along a different axis.");
    }
    out[static_cast<std::size_t>(axis)] += t.shape()[static_cast<std::size_t>(axis)];
  }
  // Along an axis of unknown sizes the total is unknown too: a size of its own, which a call learns.
  bool unknown = std::any_of(in.begin(), in.end(),
                             [&](const Tensor& t) { return is_symbol(t.shape()[static_cast<std::size_t>(axis)]); });
  if (unknown) out[static_cast<std::size_t>(axis)] = new_symbol();
  return {out, first.dtype()};
}
Array evaluate_concatenate(const EvalArgs& args) {
  int axis = std::get<AxisAttr>(args.node.attr).axis;
  Array out(args.node.type.shape, args.node.type.dtype);
  AxisSplit os = split_at(out.shape(), axis);
  std::int64_t offset = 0;
  for (const Array& x : args.inputs) {
    AxisSplit s = split_at(x.shape(), axis);
    for (std::int64_t o = 0; o < s.outer; ++o)
      for (std::int64_t k = 0; k < s.n; ++k)
        for (std::int64_t i = 0; i < s.inner; ++i)
          copy_element(x, (o * s.n + k) * s.inner + i, out, (o * os.n + offset + k) * os.inner + i);
    offset += s.n;
  }
  return out;
}

// The part [begin, begin + count) of `x` along `axis`.
Tensor slice_axis(const Tensor& x, int axis, std::int64_t begin, std::int64_t count, Loc loc, const char* name) {
  SliceAttr a;
  for (int d = 0; d < x.ndim(); ++d) {
    bool on = d == axis;
    a.start.push_back(on && count > 0 ? begin : 0);
    a.count.push_back(on ? count : x.shape()[static_cast<std::size_t>(d)]);
    a.step.push_back(1);
  }
  if (a.count == x.shape()) return x;
  a.input_shape = x.shape();
  return make_node(OpKind::Slice, {x}, a, loc, name);
}

std::vector<Tensor> vjp_concatenate(const Tensor& y, const Tensor& g) {
  int axis = std::get<AxisAttr>(y.node().attr).axis;
  std::vector<Tensor> out;
  std::int64_t offset = 0;
  for (const Tensor& x : y.node().inputs) {
    std::int64_t n = x.shape()[static_cast<std::size_t>(axis)];
    out.push_back(slice_axis(g, axis, offset, n, Loc::current(), "concatenate"));
    offset += n;
  }
  return out;
}

// ---- pad ----

TensorType infer_pad(const std::vector<Tensor>& in, const Attr& attr) {
  const auto& a = std::get<PadAttr>(attr);
  const Shape& s = in[0].shape();
  if (a.low.size() != s.size() || a.high.size() != s.size())
    fail_shape("got " + std::to_string(a.low.size()) + " pad widths for a tensor with " + std::to_string(s.size()) +
                   " dimensions",
               "Give one (before, after) pair per axis.");
  Shape out = s;
  for (std::size_t d = 0; d < s.size(); ++d) {
    if (a.low[d] < 0 || a.high[d] < 0)
      fail_value("negative pad width (" + std::to_string(a.low[d]) + ", " + std::to_string(a.high[d]) + ") on axis " +
                     std::to_string(d),
                 "Pad widths must be zero or more; use slice to remove elements.");
    out[d] += a.low[d] + a.high[d];
  }
  return {out, in[0].dtype()};
}
Array evaluate_pad(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  const auto& a = std::get<PadAttr>(args.node.attr);
  Array out = Array::full(args.node.type.shape, a.value, x.dtype());
  auto strides = contiguous_strides(out.shape());
  if (x.ndim() >= 1 && x.size() > 0) {  // whole rows of the last axis at a time
    const std::int64_t row = x.shape().back();
    const std::size_t bytes = static_cast<std::size_t>(row) * itemsize(x.dtype());
    Shape rows(x.shape().begin(), x.shape().end() - 1);
    const char* src = static_cast<const char*>(x.raw_data());
    char* dst = static_cast<char*>(out.raw_data());
    std::int64_t r = 0;
    auto copy_row = [&](const std::vector<std::int64_t>& idx) {
      std::int64_t at = a.low.back() * strides.back();
      for (std::size_t d = 0; d < idx.size(); ++d) at += (idx[d] + a.low[d]) * strides[d];
      std::memcpy(dst + static_cast<std::size_t>(at) * itemsize(x.dtype()), src + static_cast<std::size_t>(r++) * bytes,
                  bytes);
    };
    if (rows.empty()) copy_row({});
    else for_each_index(rows, [&](std::int64_t, const auto& idx) { copy_row(idx); });
    return out;
  }
  for_each_index(x.shape(), [&](std::int64_t flat, const auto& idx) {
    std::int64_t dst = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) dst += (idx[d] + a.low[d]) * strides[d];
    copy_element(x, flat, out, dst);
  });
  return out;
}
std::vector<Tensor> vjp_pad(const Tensor& y, const Tensor& g) {
  const auto& a = std::get<PadAttr>(y.node().attr);
  const Tensor& x = y.node().inputs[0];
  SliceAttr s;
  for (std::size_t d = 0; d < a.low.size(); ++d) {
    s.start.push_back(x.shape()[d] > 0 ? a.low[d] : 0);
    s.count.push_back(x.shape()[d]);
    s.step.push_back(1);
  }
  s.input_shape = y.shape();
  return {make_node(OpKind::Slice, {g}, s)};
}

// ---- take / scatter_add ----

Shape gathered_shape(const Shape& x, const Shape& indices, int axis) {
  Shape out(x.begin(), x.begin() + axis);
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), x.begin() + axis + 1, x.end());
  return out;
}

TensorType infer_take(const std::vector<Tensor>& in, const Attr& attr) {
  const Tensor& x = in[0];
  check_index_dtype(in[1]);
  int axis = checked_axis(std::get<AxisAttr>(attr).axis, x.ndim());
  return {gathered_shape(x.shape(), in[1].shape(), axis), x.dtype()};
}
Array evaluate_take(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  int axis = std::get<AxisAttr>(args.node.attr).axis;
  auto idx = index_values(args.inputs[1]);
  AxisSplit s = split_at(x.shape(), axis);
  const auto m = static_cast<std::int64_t>(idx.size());
  Array out(args.node.type.shape, x.dtype());
  for (auto& k : idx) k = wrap_index(k, s.n, args.node, axis);
  // Elements copied as unsigned words of the dtype's size (bit for bit), one typed loop per size:
  // a gather of single elements (inner == 1, the flattened take of interpolation's stencils) is
  // a loop of loads, not a memcpy call per element.
  auto gather = [&]<class W>() {
    const W* src = static_cast<const W*>(x.raw_data());
    W* dst = static_cast<W*>(out.raw_data());
    for (std::int64_t o = 0; o < s.outer; ++o) {
      const W* from = src + o * s.n * s.inner;
      W* to = dst + o * m * s.inner;
      if (s.inner == 1) {
        for (std::int64_t j = 0; j < m; ++j) to[j] = from[idx[static_cast<std::size_t>(j)]];
      } else {
        for (std::int64_t j = 0; j < m; ++j)
          std::memcpy(to + j * s.inner, from + idx[static_cast<std::size_t>(j)] * s.inner,
                      static_cast<std::size_t>(s.inner) * sizeof(W));
      }
    }
  };
  switch (itemsize(x.dtype())) {
    case 1: gather.template operator()<std::uint8_t>(); break;
    case 2: gather.template operator()<std::uint16_t>(); break;
    case 4: gather.template operator()<std::uint32_t>(); break;
    case 8: gather.template operator()<std::uint64_t>(); break;
    default:
      for (std::int64_t j = 0; j < m; ++j)
        for (std::int64_t o = 0; o < s.outer; ++o)
          for (std::int64_t i = 0; i < s.inner; ++i)
            copy_element(x, (o * s.n + idx[static_cast<std::size_t>(j)]) * s.inner + i, out, (o * m + j) * s.inner + i);
  }
  return out;
}
std::vector<Tensor> vjp_take(const Tensor& y, const Tensor& g) {
  const Tensor& x = y.node().inputs[0];
  const Tensor& indices = y.node().inputs[1];
  int axis = std::get<AxisAttr>(y.node().attr).axis;
  return {make_node(OpKind::ScatterAdd, {g, indices}, ShapeAttr{x.shape(), axis}), Tensor()};
}

TensorType infer_scatter_add(const std::vector<Tensor>& in, const Attr& attr) {
  const auto& a = std::get<ShapeAttr>(attr);
  check_dims(a.shape, in[0].dtype());
  check_index_dtype(in[1]);
  int axis = checked_axis(a.axis, static_cast<int>(a.shape.size()));
  Shape expected = gathered_shape(a.shape, in[1].shape(), axis);
  if (!shapes_match(in[0].shape(), expected))
    fail_shape("updates of shape " + shape_string(in[0].shape()) + " do not fit indices of shape " +
                   shape_string(in[1].shape()) + " into shape " + shape_string(a.shape) + " along axis " +
                   std::to_string(axis) + " (expected updates of shape " + shape_string(expected) + ")",
               "Pass updates shaped like take's result.");
  return {a.shape, in[0].dtype()};
}
Array evaluate_scatter_add(const EvalArgs& args) {
  const Array& u = args.inputs[0];
  const auto& a = std::get<ShapeAttr>(args.node.attr);
  auto idx = index_values(args.inputs[1]);
  AxisSplit s = split_at(a.shape, a.axis);
  const auto m = static_cast<std::int64_t>(idx.size());
  Array out(a.shape, u.dtype());
  for (auto& k : idx) k = wrap_index(k, s.n, args.node, a.axis);
  // Floats in a typed loop (the gradient of a gather: interpolation's stencils); the other dtypes
  // element by element through add_element's rules.
  auto scatter = [&]<class T>() {
    const T* src = u.data<T>();
    T* dst = out.data<T>();
    for (std::int64_t o = 0; o < s.outer; ++o)
      for (std::int64_t j = 0; j < m; ++j) {
        const T* from = src + (o * m + j) * s.inner;
        T* to = dst + (o * s.n + idx[static_cast<std::size_t>(j)]) * s.inner;
        for (std::int64_t i = 0; i < s.inner; ++i) to[i] += from[i];
      }
  };
  if (u.dtype() == DType::f32) scatter.template operator()<float>();
  else if (u.dtype() == DType::f64) scatter.template operator()<double>();
  else if (u.dtype() == DType::c64) scatter.template operator()<std::complex<float>>();
  else if (u.dtype() == DType::c128) scatter.template operator()<std::complex<double>>();
  else
    for (std::int64_t j = 0; j < m; ++j)
      for (std::int64_t o = 0; o < s.outer; ++o)
        for (std::int64_t i = 0; i < s.inner; ++i)
          add_element(u, (o * m + j) * s.inner + i, out, (o * s.n + idx[static_cast<std::size_t>(j)]) * s.inner + i);
  return out;
}
std::vector<Tensor> vjp_scatter_add(const Tensor& y, const Tensor& g) {
  const Tensor& indices = y.node().inputs[1];
  return {make_node(OpKind::Take, {g, indices}, AxisAttr{std::get<ShapeAttr>(y.node().attr).axis}), Tensor()};
}

// ---- take_along_axis / scatter_add_along_axis ----

// `indices` must match `shape` on every axis except `axis`.
void check_along_axis(const Shape& shape, const Shape& indices, int axis) {
  bool ok = shape.size() == indices.size();
  for (std::size_t d = 0; ok && d < shape.size(); ++d) ok = static_cast<int>(d) == axis || shape[d] == indices[d];
  if (!ok)
    fail_shape("indices of shape " + shape_string(indices) + " do not match shape " + shape_string(shape) +
                   " on the axes other than " + std::to_string(axis),
               "Give the indices the tensor's number of dimensions and its sizes on every other axis (or size 1 to "
               "broadcast, via symx::take_along_axis).");
}

TensorType infer_take_along_axis(const std::vector<Tensor>& in, const Attr& attr) {
  const Tensor& x = in[0];
  check_index_dtype(in[1]);
  int axis = checked_axis(std::get<AxisAttr>(attr).axis, x.ndim());
  check_along_axis(x.shape(), in[1].shape(), axis);
  return {in[1].shape(), x.dtype()};
}
Array evaluate_take_along_axis(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  int axis = std::get<AxisAttr>(args.node.attr).axis;
  auto idx = index_values(args.inputs[1]);
  AxisSplit s = split_at(x.shape(), axis), is = split_at(args.inputs[1].shape(), axis);
  Array out(args.node.type.shape, x.dtype());
  for (std::int64_t o = 0; o < is.outer; ++o)
    for (std::int64_t j = 0; j < is.n; ++j)
      for (std::int64_t i = 0; i < is.inner; ++i) {
        std::int64_t f = (o * is.n + j) * is.inner + i;
        std::int64_t k = wrap_index(idx[static_cast<std::size_t>(f)], s.n, args.node, axis);
        copy_element(x, (o * s.n + k) * s.inner + i, out, f);
      }
  return out;
}
std::vector<Tensor> vjp_take_along_axis(const Tensor& y, const Tensor& g) {
  const Tensor& x = y.node().inputs[0];
  const Tensor& indices = y.node().inputs[1];
  int axis = std::get<AxisAttr>(y.node().attr).axis;
  return {make_node(OpKind::ScatterAddAlongAxis, {g, indices}, ShapeAttr{x.shape(), axis}), Tensor()};
}

TensorType infer_scatter_add_along_axis(const std::vector<Tensor>& in, const Attr& attr) {
  const auto& a = std::get<ShapeAttr>(attr);
  check_dims(a.shape, in[0].dtype());
  check_index_dtype(in[1]);
  int axis = checked_axis(a.axis, static_cast<int>(a.shape.size()));
  if (!shapes_match(in[0].shape(), in[1].shape()))
    fail_shape("updates of shape " + shape_string(in[0].shape()) + " differ from indices of shape " +
                   shape_string(in[1].shape()),
               "Pass one update per index.");
  check_along_axis(a.shape, in[1].shape(), axis);
  return {a.shape, in[0].dtype()};
}
Array evaluate_scatter_add_along_axis(const EvalArgs& args) {
  const Array& u = args.inputs[0];
  const auto& a = std::get<ShapeAttr>(args.node.attr);
  auto idx = index_values(args.inputs[1]);
  AxisSplit s = split_at(a.shape, a.axis), is = split_at(u.shape(), a.axis);
  Array out(a.shape, u.dtype());
  for (std::int64_t o = 0; o < is.outer; ++o)
    for (std::int64_t j = 0; j < is.n; ++j)
      for (std::int64_t i = 0; i < is.inner; ++i) {
        std::int64_t f = (o * is.n + j) * is.inner + i;
        std::int64_t k = wrap_index(idx[static_cast<std::size_t>(f)], s.n, args.node, a.axis);
        add_element(u, f, out, (o * s.n + k) * s.inner + i);
      }
  return out;
}
std::vector<Tensor> vjp_scatter_add_along_axis(const Tensor& y, const Tensor& g) {
  const Tensor& indices = y.node().inputs[1];
  return {make_node(OpKind::TakeAlongAxis, {g, indices}, AxisAttr{std::get<ShapeAttr>(y.node().attr).axis}), Tensor()};
}

// NumPy's slice semantics for one axis of size n: (start, count, step) after clamping.
struct AxisSlice {
  std::int64_t start, count, step;
};
AxisSlice resolve_slice(const Index& ix, std::int64_t n) {
  std::int64_t step = ix.step.value_or(1);
  std::int64_t start, stop;
  if (step > 0) {
    start = ix.start.value_or(0);
    stop = ix.stop.value_or(n);
    if (start < 0) start += n;
    if (stop < 0) stop += n;
    start = std::clamp<std::int64_t>(start, 0, n);
    stop = std::clamp<std::int64_t>(stop, 0, n);
  } else {
    start = ix.start ? *ix.start : n - 1;
    if (ix.start && start < 0) start += n;
    stop = -1;
    if (ix.stop) {
      stop = *ix.stop;
      if (stop < 0) stop += n;
    }
    start = std::clamp<std::int64_t>(start, -1, n - 1);
    stop = std::clamp<std::int64_t>(stop, -1, n - 1);
  }
  std::int64_t span = step > 0 ? stop - start : start - stop;
  std::int64_t abs_step = step > 0 ? step : -step;
  std::int64_t count = span > 0 ? (span + abs_step - 1) / abs_step : 0;
  return {count > 0 ? start : 0, count, step};
}

}  // namespace

void register_shape_ops() {
  using K = OpKind;
  // Views are index arithmetic inside kernels (cheap to recompute); reshape is the input's buffer
  // seen with another shape; concatenate and unslice are copies of blocks (runtime/library_copies.cpp);
  // the gathers and scatters have no kernel yet.
  using L = Lowering;
  constexpr auto F = Family::shape;
  constexpr bool cheap = true;
  define(K::Reshape, row(F, 1, L::alias, infer_reshape, evaluate_reshape, vjp_reshape));
  define(K::Transpose, row(F, 1, L::kernel, infer_transpose, evaluate_transpose, vjp_transpose, cheap));
  define(K::BroadcastTo, row(F, 1, L::kernel, infer_broadcast_to, evaluate_broadcast_to, vjp_broadcast_to, cheap));
  define(K::Concatenate, row(F, kVariadic, L::library, infer_concatenate, evaluate_concatenate, vjp_concatenate));
  define(K::Slice, row(F, 1, L::kernel, infer_slice, evaluate_slice, vjp_slice, cheap));
  define(K::Unslice, row(F, 1, L::library, infer_unslice, evaluate_unslice, vjp_unslice));
  define(K::Pad, row(F, 1, L::reference, infer_pad, evaluate_pad, vjp_pad));
  define(K::Take, row(F, 2, L::reference, infer_take, evaluate_take, vjp_take));
  define(K::ScatterAdd, row(F, 2, L::reference, infer_scatter_add, evaluate_scatter_add, vjp_scatter_add));
  define(K::TakeAlongAxis,
         row(F, 2, L::reference, infer_take_along_axis, evaluate_take_along_axis, vjp_take_along_axis));
  define(K::ScatterAddAlongAxis, row(F, 2, L::reference, infer_scatter_add_along_axis, evaluate_scatter_add_along_axis,
                                     vjp_scatter_add_along_axis));
}

}  // namespace ops

using ops::guarded;
using ops::raise_shape;
using ops::raise_value;

Index Index::range(std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                   std::optional<std::int64_t> step) {
  Index ix;
  ix.kind = Kind::slice;
  ix.start = start;
  ix.stop = stop;
  ix.step = step;
  return ix;
}
Index Index::newaxis() {
  Index ix;
  ix.kind = Kind::newaxis;
  return ix;
}
Index Index::ellipsis() {
  Index ix;
  ix.kind = Kind::ellipsis;
  return ix;
}

namespace {
// The symbols of `shape` in order, and the product of its known sizes.
std::pair<std::vector<std::int64_t>, std::int64_t> split_sizes(const Shape& shape) {
  std::vector<std::int64_t> symbols;
  std::int64_t known = 1;
  for (auto d : shape) {
    if (is_symbol(d)) symbols.push_back(d);
    else if (d != -1) known *= d;
  }
  return {symbols, known};
}

// reshape of a tensor with unknown sizes: the unknown sizes must carry over (each once, to an axis
// of the target or into its -1), and the known sizes must divide.
Shape reshape_unknown(const Tensor& x, Shape shape, std::size_t unknown, Loc loc) {
  auto [in_symbols, in_known] = split_sizes(x.shape());
  auto [out_symbols, out_known] = split_sizes(shape);
  std::vector<std::int64_t> rest = in_symbols;
  for (auto s : out_symbols) {
    auto it = std::find(rest.begin(), rest.end(), s);
    // Another unknown size of x stands in for it: broadcasting took two unknown sizes as equal
    // (gradients reshape to an operand's shape), and a call checks that they are.
    if (it == rest.end() && !rest.empty()) it = rest.begin();
    if (it == rest.end())
      raise_shape("reshape", {x}, "the target shape " + shape_string(shape) + " has an unknown size that is not x's",
                  "Keep x's unknown (None) axes as they are, or use -1 for the axis that takes them.", loc);
    rest.erase(it);
  }
  bool divides = out_known != 0 && in_known % out_known == 0;
  if (unknown == shape.size()) {
    if (!rest.empty() || !divides || in_known != out_known)
      raise_shape("reshape", {x},
                  "cannot reshape " + shape_string(x.shape()) + " into " + shape_string(shape) +
                      ": the sizes unknown until a call (None) must go somewhere",
                  "Use -1 for the axis that takes them, e.g. reshape(x, (-1, " + std::to_string(in_known) + ")).", loc);
    return shape;
  }
  if (!divides)
    raise_shape("reshape", {x}, "cannot reshape " + shape_string(x.shape()) + " into " + shape_string(shape),
                "Choose known sizes whose product divides " + std::to_string(in_known) + ".", loc);
  // The -1 axis keeps x's symbol when it takes exactly that size; otherwise it gets a fresh one,
  // which specialization learns from the reshaped result.
  if (rest.empty()) shape[unknown] = in_known / out_known;
  else shape[unknown] = rest.size() == 1 && in_known == out_known ? rest[0] : new_symbol();
  return shape;
}
}  // namespace

Tensor reshape(const Tensor& x, Shape shape, Loc loc) {
  std::size_t unknown = shape.size();
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] == -1) {
      if (unknown != shape.size())
        raise_value("reshape", {x}, "shape " + shape_string(shape) + " has more than one -1",
                    "Use -1 for at most one axis.", loc);
      unknown = d;
    }
  if (has_symbols(x.shape()) || has_symbols(shape)) {
    if (!has_symbols(x.shape()))
      raise_shape("reshape", {x},
                  "cannot reshape " + shape_string(x.shape()) + " into " + shape_string(shape) +
                      ", whose size is unknown",
                  "Reshape into known sizes.", loc);
    shape = reshape_unknown(x, std::move(shape), unknown, loc);
    if (shape == x.shape()) return x;
    return ops::make_node(OpKind::Reshape, {x}, ShapeAttr{std::move(shape)}, loc, "reshape");
  }
  std::int64_t known = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (d == unknown) continue;
    if (shape[d] < 0) {
      raise_shape("reshape", {x}, "negative dimension " + std::to_string(shape[d]) + " in shape " + shape_string(shape),
                  "Every dimension must be zero or more, or -1 for one inferred axis.", loc);
    } else if (__builtin_mul_overflow(known, shape[d], &known)) {
      raise_shape("reshape", {x}, "shape " + shape_string(shape) + " has more elements than a 64-bit integer can count",
                  "Check the shape for a wrong or overflowed dimension.", loc);
    }
  }
  if (unknown != shape.size()) {
    if (known == 0 || x.size() % known != 0)
      raise_shape("reshape", {x},
                  "cannot reshape " + std::to_string(x.size()) + " elements into shape " + shape_string(shape),
                  "Choose a shape whose known sizes divide the element count (and are not zero).", loc);
    shape[unknown] = x.size() / known;
  }
  if (shape == x.shape()) return x;
  return ops::make_node(OpKind::Reshape, {x}, ShapeAttr{std::move(shape)}, loc, "reshape");
}

Tensor transpose(const Tensor& x, std::vector<int> axes, Loc loc) {
  if (axes.empty()) {
    for (int d = x.ndim() - 1; d >= 0; --d) axes.push_back(d);
  } else if (static_cast<int>(axes.size()) == x.ndim()) {
    guarded("transpose", {x}, loc, [&] {
      for (int& a : axes) a = ops::checked_axis(a, x.ndim());
      return 0;
    });
  }
  bool identity = static_cast<int>(axes.size()) == x.ndim();
  for (std::size_t i = 0; identity && i < axes.size(); ++i) identity = axes[i] == static_cast<int>(i);
  if (identity) return x;
  return ops::make_node(OpKind::Transpose, {x}, PermAttr{std::move(axes)}, loc, "transpose");
}

Tensor expand_dims(const Tensor& x, int axis, Loc loc) {
  int ax = guarded("expand_dims", {x}, loc, [&] { return ops::checked_axis(axis, x.ndim() + 1); });
  Shape shape = x.shape();
  shape.insert(shape.begin() + ax, 1);
  return named_composite("expand_dims", reshape(x, shape, loc));
}

Tensor squeeze(const Tensor& x, std::vector<int> axes, Loc loc) {
  std::vector<bool> drop(static_cast<std::size_t>(x.ndim()), false);
  if (axes.empty()) {
    for (int d = 0; d < x.ndim(); ++d) drop[static_cast<std::size_t>(d)] = x.shape()[static_cast<std::size_t>(d)] == 1;
  } else {
    for (int a : axes) {
      int d = guarded("squeeze", {x}, loc, [&] { return ops::checked_axis(a, x.ndim()); });
      if (x.shape()[static_cast<std::size_t>(d)] != 1)
        raise_shape("squeeze", {x},
                    "cannot squeeze axis " + std::to_string(d) + " of size " +
                        std::to_string(x.shape()[static_cast<std::size_t>(d)]),
                    "Only size-1 axes can be removed; pick axes of size 1 or reshape instead.", loc);
      drop[static_cast<std::size_t>(d)] = true;
    }
  }
  Shape shape;
  for (int d = 0; d < x.ndim(); ++d)
    if (!drop[static_cast<std::size_t>(d)]) shape.push_back(x.shape()[static_cast<std::size_t>(d)]);
  return named_composite("squeeze", reshape(x, shape, loc));
}

Tensor broadcast_to(const Tensor& x, Shape shape, Loc loc) {
  if (shape == x.shape()) return x;
  return ops::make_node(OpKind::BroadcastTo, {x}, ShapeAttr{std::move(shape)}, loc, "broadcast_to");
}

namespace {
// The inputs cast to their common (promoted) dtype.
std::vector<Tensor> promoted(const std::vector<Tensor>& xs, Loc loc) {
  DType dtype = xs[0].dtype();
  for (const auto& x : xs) dtype = promote_types(dtype, x.dtype());
  std::vector<Tensor> out;
  for (const auto& x : xs) out.push_back(cast(x, dtype, loc));
  return out;
}
}  // namespace

Tensor concatenate(const std::vector<Tensor>& xs, int axis, Loc loc) {
  if (xs.empty()) raise_value("concatenate", {}, "needs at least one tensor", "Pass a non-empty list of tensors.", loc);
  int ax =
      xs[0].ndim() == 0 ? 0 : guarded("concatenate", xs, loc, [&] { return ops::checked_axis(axis, xs[0].ndim()); });
  std::vector<Tensor> inputs = promoted(xs, loc);
  Tensor r = ops::make_node(OpKind::Concatenate, inputs, AxisAttr{ax}, loc, "concatenate");
  return inputs.size() == 1 ? inputs[0] : r;
}

Tensor stack(const std::vector<Tensor>& xs, int axis, Loc loc) {
  if (xs.empty()) raise_value("stack", {}, "needs at least one tensor", "Pass a non-empty list of tensors.", loc);
  for (std::size_t i = 1; i < xs.size(); ++i)
    if (!shapes_match(xs[i].shape(), xs[0].shape()))
      raise_shape("stack", xs,
                  "input " + std::to_string(i) + " has shape " + shape_string(xs[i].shape()) + " but input 0 has " +
                      shape_string(xs[0].shape()),
                  "Stacked tensors must all have the same shape; reshape or broadcast them first.", loc);
  int ax = guarded("stack", xs, loc, [&] { return ops::checked_axis(axis, xs[0].ndim() + 1); });
  std::vector<Tensor> expanded;
  for (const auto& x : xs) expanded.push_back(expand_dims(x, ax, loc));
  return named_composite("stack", concatenate(expanded, ax, loc));
}

std::vector<Tensor> split(const Tensor& x, std::int64_t sections, int axis, Loc loc) {
  int ax = guarded("split", {x}, loc, [&] { return ops::checked_axis(axis, x.ndim()); });
  std::int64_t n = x.shape()[static_cast<std::size_t>(ax)];
  if (sections <= 0)
    raise_value("split", {x}, "the number of sections must be positive, got " + std::to_string(sections),
                "Pass sections >= 1.", loc);
  if (n % sections != 0)
    raise_shape("split", {x},
                "axis " + std::to_string(ax) + " of size " + std::to_string(n) + " does not split into " +
                    std::to_string(sections) + " equal sections",
                "Choose a number of sections that divides the axis size, or pass split indices.", loc);
  std::vector<Tensor> out;
  std::int64_t part = n / sections;
  for (std::int64_t i = 0; i < sections; ++i)
    out.push_back(named_composite("split", ops::slice_axis(x, ax, i * part, part, loc, "split")));
  return out;
}

std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& indices, int axis, Loc loc) {
  int ax = guarded("split", {x}, loc, [&] { return ops::checked_axis(axis, x.ndim()); });
  std::int64_t n = x.shape()[static_cast<std::size_t>(ax)];
  // As x[prev:index] along the axis, with NumPy's slice clamping.
  auto clamp = [&](std::int64_t i) { return std::clamp<std::int64_t>(i < 0 ? i + n : i, 0, n); };
  std::vector<Tensor> out;
  std::int64_t prev = 0;
  for (std::size_t k = 0; k <= indices.size(); ++k) {
    std::int64_t begin = clamp(prev), end = k < indices.size() ? clamp(indices[k]) : n;
    std::int64_t count = std::max<std::int64_t>(0, end - begin);
    out.push_back(named_composite("split", ops::slice_axis(x, ax, begin, count, loc, "split")));
    if (k < indices.size()) prev = indices[k];
  }
  return out;
}

Tensor slice(const Tensor& x, const std::vector<Index>& index, Loc loc) {
  int consumed = 0, ellipses = 0;
  for (const Index& ix : index) {
    if (ix.kind == Index::Kind::integer || ix.kind == Index::Kind::slice) ++consumed;
    if (ix.kind == Index::Kind::ellipsis) ++ellipses;
  }
  if (ellipses > 1) raise_value("slice", {x}, "an index can have only one ellipsis", "Remove the extra ellipses.", loc);
  if (consumed > x.ndim())
    raise_shape("slice", {x},
                "too many indices: " + std::to_string(consumed) + " for a tensor with " + std::to_string(x.ndim()) +
                    " dimensions",
                "Index at most one entry per axis.", loc);
  const Shape& shape = x.shape();
  SliceAttr a;
  a.input_shape = shape;
  Shape result;
  std::size_t d = 0;
  auto keep_axis = [&] {
    a.start.push_back(0);
    a.count.push_back(shape[d]);
    a.step.push_back(1);
    result.push_back(shape[d++]);
  };
  for (const Index& ix : index) {
    switch (ix.kind) {
      case Index::Kind::integer: {
        std::int64_t n = shape[d], v = ix.value;
        if (is_symbol(n) && v < 0)
          raise_shape("slice", {x},
                      "index " + std::to_string(v) + " counts from the end of axis " + std::to_string(d) +
                          ", whose size is unknown (None) until the function is called",
                      "Index from the start, or give the placeholder a fixed size on that axis.", loc);
        if (!is_symbol(n) && (v < -n || v >= n))
          raise_shape("slice", {x},
                      "index " + std::to_string(v) + " is out of bounds for axis " + std::to_string(d) + " with size " +
                          std::to_string(n),
                      "Use an index in [" + std::to_string(-n) + ", " + std::to_string(n) + ").", loc);
        a.start.push_back(v < 0 ? v + n : v);
        a.count.push_back(1);
        a.step.push_back(1);
        ++d;
        break;
      }
      case Index::Kind::slice: {
        if (ix.step && *ix.step == 0)
          raise_value("slice", {x}, "slice step cannot be zero (axis " + std::to_string(d) + ")",
                      "Use a positive or negative step.", loc);
        if (is_symbol(shape[d])) {
          bool whole = (!ix.start || *ix.start == 0) && !ix.stop && (!ix.step || *ix.step == 1);
          if (!whole)
            raise_shape("slice", {x},
                        "slicing axis " + std::to_string(d) +
                            " needs its size, which is unknown (None) until the function is called",
                        "Keep that axis whole (:), or give the placeholder a fixed size on that axis.", loc);
          keep_axis();
          break;
        }
        auto s = ops::resolve_slice(ix, shape[d]);
        a.start.push_back(s.start);
        a.count.push_back(s.count);
        a.step.push_back(s.step);
        result.push_back(s.count);
        ++d;
        break;
      }
      case Index::Kind::newaxis: result.push_back(1); break;
      case Index::Kind::ellipsis:
        for (int k = 0; k < x.ndim() - consumed; ++k) keep_axis();
        break;
    }
  }
  while (d < shape.size()) keep_axis();
  bool identity = a.count == shape;
  for (std::size_t k = 0; identity && k < shape.size(); ++k) identity = a.step[k] == 1;
  Tensor r = identity ? x : ops::make_node(OpKind::Slice, {x}, a, loc, "slice");
  return named_composite("slice", reshape(r, result, loc));
}

Tensor take(const Tensor& x, const Tensor& indices, std::optional<int> axis, Loc loc) {
  Tensor src = axis ? x : reshape(x, {-1}, loc);
  int ax = axis ? guarded("take", {x, indices}, loc, [&] { return ops::checked_axis(*axis, x.ndim()); }) : 0;
  return ops::make_node(OpKind::Take, {src, indices}, AxisAttr{ax}, loc, "take");
}

Tensor take_along_axis(const Tensor& x, const Tensor& indices, int axis, Loc loc) {
  int ax = guarded("take_along_axis", {x, indices}, loc, [&] { return ops::checked_axis(axis, x.ndim()); });
  if (indices.ndim() != x.ndim())
    raise_shape("take_along_axis", {x, indices},
                "the indices have " + std::to_string(indices.ndim()) + " dimensions but the tensor has " +
                    std::to_string(x.ndim()),
                "Give the indices the same number of dimensions as the tensor (expand_dims).", loc);
  // The other axes broadcast against each other, as NumPy.
  Shape xs = x.shape(), is = indices.shape();
  for (std::size_t d = 0; d < xs.size(); ++d) {
    if (static_cast<int>(d) == ax || xs[d] == is[d]) continue;
    if (xs[d] != 1 && is[d] != 1)
      raise_shape("take_along_axis", {x, indices},
                  "the indices' size " + std::to_string(is[d]) + " on axis " + std::to_string(d) +
                      " does not broadcast with the tensor's size " + std::to_string(xs[d]),
                  "Match the sizes of every axis other than the indexed one, or make them 1.", loc);
    xs[d] = is[d] = std::max(xs[d], is[d]);
  }
  return ops::make_node(OpKind::TakeAlongAxis, {broadcast_to(x, xs, loc), broadcast_to(indices, is, loc)}, AxisAttr{ax},
                        loc, "take_along_axis");
}

Tensor pad(const Tensor& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& widths, double value, Loc loc) {
  if (widths.size() != static_cast<std::size_t>(x.ndim()) && widths.size() != 1)
    raise_shape("pad", {x},
                "got " + std::to_string(widths.size()) + " (before, after) pairs for a tensor with " +
                    std::to_string(x.ndim()) + " dimensions",
                "Give one pair per axis, or a single pair for all axes.", loc);
  PadAttr a;
  a.value = value;
  for (int d = 0; d < x.ndim(); ++d) {
    const auto& w = widths.size() == 1 ? widths[0] : widths[static_cast<std::size_t>(d)];
    a.low.push_back(w.first);
    a.high.push_back(w.second);
  }
  return ops::make_node(OpKind::Pad, {x}, a, loc, "pad");
}

Tensor flip(const Tensor& x, std::vector<int> axes, Loc loc) {
  std::vector<bool> flipped(static_cast<std::size_t>(x.ndim()), axes.empty());
  for (int a : axes) {
    int d = guarded("flip", {x}, loc, [&] { return ops::checked_axis(a, x.ndim()); });
    if (flipped[static_cast<std::size_t>(d)])
      raise_shape("flip", {x}, "axis " + std::to_string(d) + " is listed twice", "List each axis at most once.", loc);
    flipped[static_cast<std::size_t>(d)] = true;
  }
  // An axis whose size is unknown until the call cannot be a static reversed slice (its start is n - 1):
  // it is a gather at n - 1 - i, with i a running count along the axis.
  Tensor src = x;
  for (std::size_t d = 0; d < flipped.size(); ++d) {
    if (!flipped[d] || !is_symbol(x.shape()[d])) continue;
    flipped[d] = false;
    auto axis = static_cast<int>(d);
    Tensor ones = broadcast_to(ops::scalar(1, DType::i64), x.shape(), loc);
    Tensor reversed = subtract(sum(ones, static_cast<std::int64_t>(axis), true, loc), cumsum(ones, axis, loc), loc);
    src = take_along_axis(src, reversed, axis, loc);
  }
  SliceAttr s;
  s.input_shape = x.shape();
  bool any = false;
  for (std::size_t d = 0; d < flipped.size(); ++d) {
    std::int64_t n = x.shape()[d];
    bool f = flipped[d] && n > 1;
    any = any || f;
    s.start.push_back(f ? n - 1 : 0);
    s.count.push_back(n);
    s.step.push_back(f ? -1 : 1);
  }
  if (any) return named_composite("flip", ops::make_node(OpKind::Slice, {src}, s, loc, "flip"));
  return src.node_ptr() == x.node_ptr() ? x : named_composite("flip", src);
}

Tensor tile(const Tensor& x, const std::vector<std::int64_t>& reps, Loc loc) {
  for (auto r : reps)
    if (r < 0)
      raise_value("tile", {x}, "negative repetition count " + std::to_string(r), "Repetitions must be zero or more.",
                  loc);
  std::size_t n = std::max(reps.size(), static_cast<std::size_t>(x.ndim()));
  Shape shape(n - static_cast<std::size_t>(x.ndim()), 1), r(n - reps.size(), 1);
  shape.insert(shape.end(), x.shape().begin(), x.shape().end());
  r.insert(r.end(), reps.begin(), reps.end());
  // (1, s0, 1, s1, ...) broadcast to (r0, s0, r1, s1, ...) then merged pairwise.
  Shape interleaved, target, result;
  for (std::size_t d = 0; d < n; ++d) {
    interleaved.insert(interleaved.end(), {1, shape[d]});
    target.insert(target.end(), {r[d], shape[d]});
    result.push_back(r[d] * shape[d]);
  }
  return named_composite("tile", reshape(broadcast_to(reshape(x, interleaved, loc), target, loc), result, loc));
}

Tensor repeat(const Tensor& x, std::int64_t repeats, std::optional<int> axis, Loc loc) {
  if (repeats < 0)
    raise_value("repeat", {x}, "negative repeat count " + std::to_string(repeats), "Repeats must be zero or more.",
                loc);
  Tensor src = axis ? x : reshape(x, {-1}, loc);
  int ax = axis ? guarded("repeat", {x}, loc, [&] { return ops::checked_axis(*axis, x.ndim()); }) : 0;
  Shape expanded = src.shape(), target = src.shape(), result = src.shape();
  auto u = static_cast<std::size_t>(ax);
  expanded.insert(expanded.begin() + ax + 1, 1);
  target.insert(target.begin() + ax + 1, repeats);
  result[u] *= repeats;
  return named_composite("repeat", reshape(broadcast_to(reshape(src, expanded, loc), target, loc), result, loc));
}

Tensor one_hot(const Tensor& labels, std::int64_t depth, DType dtype, Loc loc) {
  if (!is_integer(labels.dtype()))
    ops::raise("one_hot", {labels},
               {ops::TypeProblem::Kind::dtype,
                "labels must have an integer dtype, got " + std::string(dtype_name(labels.dtype())),
                "Cast the labels with astype(int64)."},
               loc);
  if (depth < 0) raise_value("one_hot", {labels}, "negative depth " + std::to_string(depth), "Pass depth >= 0.", loc);
  // Labels outside [0, depth) give all-zero rows, as JAX.
  Tensor classes = constant(Array::arange(0, static_cast<double>(depth), 1, DType::i64), loc);
  Tensor hit = symx::equal(expand_dims(cast(labels, DType::i64, loc), -1, loc), classes, loc);
  return named_composite("one_hot", cast(hit, dtype, loc));
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& xs, const std::string& indexing, Loc loc) {
  if (indexing != "xy" && indexing != "ij")
    raise_value("meshgrid", xs, "unknown indexing '" + indexing + "'", "Use indexing=\"xy\" or \"ij\".", loc);
  const std::size_t n = xs.size();
  Shape out;
  for (const auto& x : xs) out.push_back(x.size());
  bool swap = indexing == "xy" && n >= 2;
  if (swap) std::swap(out[0], out[1]);
  std::vector<Tensor> grids;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t pos = swap && i < 2 ? 1 - i : i;
    Shape shape(n, 1);
    shape[pos] = xs[i].size();
    grids.push_back(named_composite("meshgrid", broadcast_to(reshape(xs[i], shape, loc), out, loc)));
  }
  return grids;
}

}  // namespace symx

// python/binding_arrays.cpp: the Python binding of symx/arrays.hpp. Argument conversion only (varargs, nested lists,
// int-or-list arguments, einsum's optimize=); the functions are the C++ ones.
#include <cstdint>
#include <optional>
#include <string>

#include "binding_common.hpp"

namespace {

using symx::Tensor;

std::optional<Tensor> optional_tensor(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return tensor_from_python(h);
}

// A list of tensors as one result (numpy's atleast_*d with several arrays, unravel_index's tuple).
nb::object one_or_list(const std::vector<Tensor>& xs) {
  if (xs.size() == 1) return nb::cast(xs[0]);
  return nb::cast(xs);
}

nb::tuple as_tuple(const std::vector<Tensor>& xs) { return nb::tuple(nb::cast(xs)); }

symx::Blocks blocks_from_python(nb::handle h) {
  if (nb::isinstance<nb::list>(h)) {
    std::vector<symx::Blocks> items;
    for (nb::handle item : h) items.push_back(blocks_from_python(item));
    return symx::Blocks(std::move(items));
  }
  return symx::Blocks(tensor_from_python(h));
}

// numpy's int-or-list arguments (hsplit's indices_or_sections, ...).
template <class Int, class List> auto sections_or_indices(nb::handle h, Int by_count, List by_indices) {
  if (PyIndex_Check(h.ptr())) {
    auto n = nb::cast<std::int64_t>(h);
    PyLocation here;
    return by_count(n);
  }
  auto v = int_list(h);
  PyLocation here;
  return by_indices(v);
}

std::vector<std::vector<int>> einsum_optimize(nb::handle optimize, std::size_t operands) {
  std::vector<std::vector<int>> path;
  if (optimize.is_none() || nb::isinstance<nb::str>(optimize)) return path;  // "greedy", "optimal": the greedy path
  if (PyBool_Check(optimize.ptr())) {
    if (optimize.ptr() == Py_True) return path;
    for (std::size_t i = 1; i < operands; ++i) path.push_back({0, 1});  // False: left to right, as NumPy
    return path;
  }
  for (nb::handle step : optimize) {
    if (nb::isinstance<nb::str>(step)) continue;  // einsum_path's leading "einsum_path"
    std::vector<int> pick;
    for (auto i : int_list(step)) pick.push_back(static_cast<int>(i));
    path.push_back(pick);
  }
  return path;
}

}  // namespace

void bind_arrays(nb::module_& m) {
  namespace sx = symx;
  // ---- conversion and creation ----
  m.def("array", LOC(sx::array), "object"_a, "dtype"_a = nb::none(), DOC(array));
  m.def("asarray", LOC(sx::asarray), "a"_a, "dtype"_a = nb::none(), DOC(asarray));
  m.def("empty", LOC(sx::empty), "shape"_a, "dtype"_a = sx::DType::f32, DOC(empty));
  m.def("empty_like", LOC(sx::empty_like), "prototype"_a, "dtype"_a = nb::none(), DOC(empty_like));
  m.def("full", LOC(sx::full), "shape"_a, "fill_value"_a, "dtype"_a = nb::none(), DOC(full));
  m.def("full_like", LOC(sx::full_like), "a"_a, "fill_value"_a, "dtype"_a = nb::none(), DOC(full_like));
  m.def("identity", LOC(sx::identity), "n"_a, "dtype"_a = sx::DType::f32, DOC(identity));
  m.def("tri", LOC(sx::tri), "N"_a, "M"_a = nb::none(), "k"_a = 0, "dtype"_a = sx::DType::f32, DOC(tri));
  m.def("geomspace", LOC(sx::geomspace), "start"_a, "stop"_a, "num"_a = 50, "endpoint"_a = true,
        "dtype"_a = sx::DType::f32, DOC(geomspace));
  m.def("logspace", LOC(sx::logspace), "start"_a, "stop"_a, "num"_a = 50, "endpoint"_a = true, "base"_a = 10.0,
        "dtype"_a = sx::DType::f32, DOC(logspace));

  // ---- dimensions ----
#define SYMX_ATLEAST(name)                                   \
  m.def(                                                     \
      #name,                                                 \
      [](nb::args arys) {                                    \
        auto xs = tensor_list(arys);                         \
        PyLocation here;                                     \
        std::vector<Tensor> out;                             \
        for (const auto& x : xs) out.push_back(sx::name(x)); \
        return one_or_list(out);                             \
      },                                                     \
      "arys"_a, DOC(name))
  SYMX_ATLEAST(atleast_1d);
  SYMX_ATLEAST(atleast_2d);
  SYMX_ATLEAST(atleast_3d);
#undef SYMX_ATLEAST
  m.def(
      "moveaxis",
      [](TensorArg a, AxisList source, AxisList destination) {
        PyLocation here;
        return sx::moveaxis(a.t, source.v, destination.v);
      },
      "a"_a, "source"_a, "destination"_a, DOC(moveaxis));
  m.def("rollaxis", LOC(sx::rollaxis), "a"_a, "axis"_a, "start"_a = 0, DOC(rollaxis));
  m.def("swapaxes", LOC(sx::swapaxes), "a"_a, "axis1"_a, "axis2"_a, DOC(swapaxes));
  m.def("permute_dims", LOC(sx::permute_dims), "a"_a, "axes"_a = nb::none(), DOC(permute_dims));
  m.def("matrix_transpose", LOC(sx::matrix_transpose), "x"_a, DOC(matrix_transpose));
  m.def("ravel", LOC(sx::ravel), "a"_a, DOC(ravel));
  m.def(
      "dimshuffle",
      [](TensorArg a, nb::args pattern) {
        nb::handle list = pattern;
        if (pattern.size() == 1 && !nb::isinstance<nb::str>(pattern[0]) && !PyIndex_Check(pattern[0].ptr()))
          list = pattern[0];
        std::vector<int> p;
        for (nb::handle e : list) p.push_back(nb::isinstance<nb::str>(e) ? -1 : narrow_axis(nb::cast<std::int64_t>(e)));
        PyLocation here;
        return sx::dimshuffle(a.t, p);
      },
      "tensor"_a, "pattern"_a, DOC(dimshuffle));
  m.def("flatten2d", LOC(sx::flatten2d), "input"_a, DOC(flatten2d));
  m.def("flatten3d", LOC(sx::flatten3d), "input"_a, DOC(flatten3d));
  m.def("flatten4d", LOC(sx::flatten4d), "input"_a, DOC(flatten4d));
  m.def("reshape_weight_to_matrix", LOC(sx::reshape_weight_to_matrix), "weight"_a, "dim"_a = 0,
        DOC(reshape_weight_to_matrix));
  m.def("resize", LOC(sx::resize), "a"_a, "new_shape"_a, DOC(resize));

  // ---- joining and splitting ----
  m.attr("concat") = m.attr("concatenate");  // the array API's name, the same function
  m.def("hstack", LOC(sx::hstack), "tup"_a, DOC(hstack));
  m.def("vstack", LOC(sx::vstack), "tup"_a, DOC(vstack));
  m.attr("row_stack") = m.attr("vstack");
  m.def("dstack", LOC(sx::dstack), "tup"_a, DOC(dstack));
  m.def("column_stack", LOC(sx::column_stack), "tup"_a, DOC(column_stack));
  m.def("unstack", LOC(sx::unstack), "x"_a, "axis"_a = 0, DOC(unstack));
  m.def("array_split", LOC(sx::array_split), "ary"_a, "indices_or_sections"_a, "axis"_a = 0, DOC(array_split));
#define SYMX_SPLIT(name)                                                           \
  m.def(                                                                           \
      #name,                                                                       \
      [](TensorArg x, nb::handle ios) {                                            \
        return sections_or_indices(                                                \
            ios, [&](std::int64_t n) { return sx::name(x.t, n); },                 \
            [&](const std::vector<std::int64_t>& v) { return sx::name(x.t, v); }); \
      },                                                                           \
      "ary"_a, "indices_or_sections"_a, DOC(name))
  SYMX_SPLIT(hsplit);
  SYMX_SPLIT(vsplit);
  SYMX_SPLIT(dsplit);
#undef SYMX_SPLIT
  m.def("append", LOC(sx::append), "arr"_a, "values"_a, "axis"_a = nb::none(), DOC(append));
  m.def(
      "insert",
      [](TensorArg arr, nb::handle obj, TensorArg values, OptionalAxisInt axis) {
        bool scalar = PyIndex_Check(obj.ptr());
        auto idx = int_list(obj);
        PyLocation here;
        return sx::insert(arr.t, idx, values.t, axis.v, scalar);
      },
      "arr"_a, "obj"_a, "values"_a, "axis"_a = nb::none(), DOC(insert));
  m.def(
      "block",
      [](nb::handle arrays) {
        auto b = blocks_from_python(arrays);
        PyLocation here;
        return sx::block(b);
      },
      "arrays"_a, DOC(block));
  m.def("add_n", LOC(sx::add_n), "tensors"_a, DOC(add_n));
  m.def(
      "broadcast_arrays",
      [](nb::args args) {
        auto xs = tensor_list(args);
        PyLocation here;
        return sx::broadcast_arrays(xs);
      },
      "args"_a, DOC(broadcast_arrays));

  // ---- flips, rolls, rotations ----
  m.def("fliplr", LOC(sx::fliplr), "m"_a, DOC(fliplr));
  m.def("flipud", LOC(sx::flipud), "m"_a, DOC(flipud));
  m.def(
      "roll",
      [](TensorArg a, IntList shift, AxisList axis) {
        PyLocation here;
        return sx::roll(a.t, shift.v, axis.v);
      },
      "a"_a, "shift"_a, "axis"_a = nb::none(), DOC(roll));
  m.def("rot90", LOC(sx::rot90), "m"_a, "k"_a = 1, "axes"_a = nb::make_tuple(0, 1), DOC(rot90));

  // ---- diagonals and triangles ----
  m.def("diag", LOC(sx::diag), "v"_a, "k"_a = 0, DOC(diag));
  m.def("diagflat", LOC(sx::diagflat), "v"_a, "k"_a = 0, DOC(diagflat));
  m.def("diagonal", LOC(sx::diagonal), "a"_a, "offset"_a = 0, "axis1"_a = 0, "axis2"_a = 1, DOC(diagonal));
  m.def("trace", LOC(sx::trace), "a"_a, "offset"_a = 0, "axis1"_a = 0, "axis2"_a = 1, DOC(trace));
  m.def("fill_diagonal", LOC(sx::fill_diagonal), "a"_a, "val"_a, "wrap"_a = false, DOC(fill_diagonal));
  m.def("tril", LOC(sx::tril), "m"_a, "k"_a = 0, DOC(tril));
  m.def("triu", LOC(sx::triu), "m"_a, "k"_a = 0, DOC(triu));
  m.def(
      "diag_indices",
      [](std::int64_t n, int ndim) {
        PyLocation here;
        return as_tuple(sx::diag_indices(n, ndim));
      },
      "n"_a, "ndim"_a = 2, DOC(diag_indices));
  m.def(
      "diag_indices_from",
      [](TensorArg a) {
        PyLocation here;
        return as_tuple(sx::diag_indices_from(a.t));
      },
      "arr"_a, DOC(diag_indices_from));
  m.def(
      "tril_indices",
      [](std::int64_t n, std::int64_t k, std::optional<std::int64_t> mm) {
        PyLocation here;
        return as_tuple(sx::tril_indices(n, k, mm));
      },
      "n"_a, "k"_a = 0, "m"_a = nb::none(), DOC(tril_indices));
  m.def(
      "triu_indices",
      [](std::int64_t n, std::int64_t k, std::optional<std::int64_t> mm) {
        PyLocation here;
        return as_tuple(sx::triu_indices(n, k, mm));
      },
      "n"_a, "k"_a = 0, "m"_a = nb::none(), DOC(triu_indices));
  m.def(
      "tril_indices_from",
      [](TensorArg a, std::int64_t k) {
        PyLocation here;
        return as_tuple(sx::tril_indices_from(a.t, k));
      },
      "arr"_a, "k"_a = 0, DOC(tril_indices_from));
  m.def(
      "triu_indices_from",
      [](TensorArg a, std::int64_t k) {
        PyLocation here;
        return as_tuple(sx::triu_indices_from(a.t, k));
      },
      "arr"_a, "k"_a = 0, DOC(triu_indices_from));
  m.def(
      "mask_indices",
      [](std::int64_t n, nb::object mask_func, std::int64_t k) {
        auto f = [mask_func](const Tensor& x, std::int64_t kk) { return nb::cast<Tensor>(mask_func(x, kk)); };
        PyLocation here;
        return as_tuple(sx::mask_indices(n, f, k));
      },
      "n"_a, "mask_func"_a, "k"_a = 0, DOC(mask_indices));

  // ---- index helpers ----
  m.def(
      "indices",
      [](IntList dimensions, sx::DType dtype, bool sparse) -> nb::object {
        PyLocation here;
        if (sparse) return as_tuple(sx::sparse_indices(dimensions.v, dtype));
        return nb::cast(sx::indices(dimensions.v, dtype));
      },
      "dimensions"_a, "dtype"_a = sx::DType::i64, "sparse"_a = false, DOC(indices));
  m.def(
      "ix_",
      [](nb::args args) {
        auto xs = tensor_list(args);
        PyLocation here;
        return as_tuple(sx::ix_(xs));
      },
      // An explicit signature: stubgen skips names that end with an underscore unless they have one.
      nb::sig("def ix_(*args: Tensor | numpy.typing.ArrayLike) -> tuple[Tensor, ...]"), "args"_a, DOC(ix_));
  m.def(
      "unravel_index",
      [](TensorArg indices, IntList shape) {
        PyLocation here;
        return as_tuple(sx::unravel_index(indices.t, shape.v));
      },
      "indices"_a, "shape"_a, DOC(unravel_index));
  m.def("ravel_multi_index", LOC(sx::ravel_multi_index), "multi_index"_a, "dims"_a, "mode"_a = "raise",
        DOC(ravel_multi_index));
  m.def("index_in_dim", LOC(sx::index_in_dim), "operand"_a, "index"_a, "axis"_a = 0, "keepdims"_a = true,
        DOC(index_in_dim));
  m.def(
      "index_take",
      [](TensorArg src, TensorList idxs, AxisList axes) {
        PyLocation here;
        return sx::index_take(src.t, idxs.v, axes.v);
      },
      "src"_a, "idxs"_a, "axes"_a, DOC(index_take));
  m.def("dynamic_slice", LOC(sx::dynamic_slice), "operand"_a, "start_indices"_a, "slice_sizes"_a, DOC(dynamic_slice));
  m.def("dynamic_slice_in_dim", LOC(sx::dynamic_slice_in_dim), "operand"_a, "start_index"_a, "slice_size"_a,
        "axis"_a = 0, DOC(dynamic_slice_in_dim));
  m.def("dynamic_index_in_dim", LOC(sx::dynamic_index_in_dim), "operand"_a, "index"_a, "axis"_a = 0,
        "keepdims"_a = true, DOC(dynamic_index_in_dim));

  // ---- differences, sums, vectors ----
  m.def(
      "diff",
      [](TensorArg a, int n, AxisInt axis, nb::handle prepend, nb::handle append) {
        auto pre = optional_tensor(prepend), app = optional_tensor(append);
        PyLocation here;
        return sx::diff(a.t, n, axis.v, pre, app);
      },
      "a"_a, "n"_a = 1, "axis"_a = -1, "prepend"_a = nb::none(), "append"_a = nb::none(), DOC(diff));
  m.def(
      "ediff1d",
      [](TensorArg ary, nb::handle to_end, nb::handle to_begin) {
        auto e = optional_tensor(to_end), b = optional_tensor(to_begin);
        PyLocation here;
        return sx::ediff1d(ary.t, e, b);
      },
      "ary"_a, "to_end"_a = nb::none(), "to_begin"_a = nb::none(), DOC(ediff1d));
  m.def("unwrap", LOC(sx::unwrap), "p"_a, "discont"_a = nb::none(), "axis"_a = -1, "period"_a = 6.283185307179586,
        DOC(unwrap));
  m.def(
      "trapezoid",
      [](TensorArg y, nb::handle x, double dx, AxisInt axis) {
        auto xs = optional_tensor(x);
        PyLocation here;
        return sx::trapezoid(y.t, xs, dx, axis.v);
      },
      "y"_a, "x"_a = nb::none(), "dx"_a = 1.0, "axis"_a = -1, DOC(trapezoid));
  m.def("cross", LOC(sx::cross), "a"_a, "b"_a, "axisa"_a = -1, "axisb"_a = -1, "axisc"_a = -1, "axis"_a = nb::none(),
        DOC(cross));
  m.def("convolve", LOC(sx::convolve), "a"_a, "v"_a, "mode"_a = "full", DOC(convolve));
  m.def("correlate", LOC(sx::correlate), "a"_a, "v"_a, "mode"_a = "valid", DOC(correlate));
  m.def("vander", LOC(sx::vander), "x"_a, "N"_a = nb::none(), "increasing"_a = false, DOC(vander));

  // ---- polynomials ----
  m.def("polyadd", LOC(sx::polyadd), "a1"_a, "a2"_a, DOC(polyadd));
  m.def("polysub", LOC(sx::polysub), "a1"_a, "a2"_a, DOC(polysub));
  m.def("polymul", LOC(sx::polymul), "a1"_a, "a2"_a, DOC(polymul));
  m.def("polyder", LOC(sx::polyder), "p"_a, "m"_a = 1, DOC(polyder));
  m.def("polyint", LOC(sx::polyint), "p"_a, "m"_a = 1, "k"_a = 0.0, DOC(polyint));
  m.def("polyval", LOC(sx::polyval), "p"_a, "x"_a, DOC(polyval));
  m.def("polydiv", LOC(sx::polydiv), "u"_a, "v"_a, DOC(polydiv));
  m.def("poly", LOC(sx::poly), "seq_of_zeros"_a, DOC(poly));

  // ---- contractions ----
  m.def(
      "einsum",
      [](std::string subscripts, nb::args operands, nb::handle optimize) {
        auto xs = tensor_list(operands);
        auto path = einsum_optimize(optimize, xs.size());
        PyLocation here;
        return sx::einsum(subscripts, xs, path);
      },
      "subscripts"_a, "operands"_a, "optimize"_a = true, DOC(einsum));
  m.def(
      "einsum_path",
      [](std::string subscripts, nb::args operands, nb::handle optimize) {
        (void)optimize;  // the greedy path whatever is asked ("optimal" included)
        auto xs = tensor_list(operands);
        PyLocation here;
        auto [path, text] = sx::einsum_path(subscripts, xs);
        nb::list out;
        out.append("einsum_path");
        for (const auto& step : path) out.append(nb::tuple(nb::cast(step)));
        return nb::make_tuple(out, text);
      },
      "subscripts"_a, "operands"_a, "optimize"_a = "greedy", DOC(einsum_path));
  m.def(
      "tensordot",
      [](TensorArg a, TensorArg b, nb::handle axes) {
        if (PyIndex_Check(axes.ptr())) {
          auto n = nb::cast<std::int64_t>(axes);
          PyLocation here;
          return sx::tensordot(a.t, b.t, n);
        }
        if (nb::len(axes) != 2) throw nb::value_error("tensordot: axes must be an int or a pair of axis lists");
        std::vector<int> xa, xb;
        for (auto v : int_list(axes[0])) xa.push_back(narrow_axis(v));
        for (auto v : int_list(axes[1])) xb.push_back(narrow_axis(v));
        PyLocation here;
        return sx::tensordot(a.t, b.t, xa, xb);
      },
      "a"_a, "b"_a, "axes"_a = 2, DOC(tensordot));
  m.def("inner", LOC(sx::inner), "a"_a, "b"_a, DOC(inner));
  m.def("kron", LOC(sx::kron), "a"_a, "b"_a, DOC(kron));
  m.def("vdot", LOC(sx::vdot), "a"_a, "b"_a, DOC(vdot));
  m.def("matvec", LOC(sx::matvec), "x1"_a, "x2"_a, DOC(matvec));
  m.def("vecmat", LOC(sx::vecmat), "x1"_a, "x2"_a, DOC(vecmat));
  m.def("vecdot", LOC(sx::vecdot), "x1"_a, "x2"_a, "axis"_a = -1, DOC(vecdot));
}

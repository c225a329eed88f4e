// python/binding_indexing.cpp: the Python binding of symx/indexing.hpp: the indexed updates (and the
// Tensor.at property, JAX's x.at[idx].set(v)), put_along_axis, put, place, bincount, the histograms and
// the functions with data-dependent output shapes (nonzero, argwhere, ...: size=).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "binding_common.hpp"
#include "symx/indexing.hpp"

namespace {

using symx::Bins;
using symx::IndexItem;
using symx::IndexList;
using symx::Tensor;

// A Python index (what x[key] takes) as an IndexList: ints, slices, None, Ellipsis, tensors, and
// arrays or lists of ints or bools (which become constant tensors).
IndexList index_list(nb::handle key) {
  auto one = [](nb::handle k, IndexList& out) {
    if (nb::isinstance<Tensor>(k)) {
      out.emplace_back(nb::cast<Tensor>(k));
      return;
    }
    if (PySlice_Check(k.ptr())) {
      for (const char* part : {"start", "stop", "step"}) {
        nb::object bound = k.attr(part);
        if (bound.is_none() ||
            (!PyBool_Check(bound.ptr()) && PyIndex_Check(bound.ptr()) && !nb::isinstance<Tensor>(bound)))
          continue;
        std::string type = Py_TYPE(bound.ptr())->tp_name;
        throw nb::type_error(("slice bounds must be integers or None, but the slice's " + std::string(part) + " is a " +
                              type +
                              ": a bound known only when the graph runs would make the result's shape depend on "
                              "values. Use sx.dynamic_slice(x, starts, sizes) (a static size at a symbolic start), "
                              "or index with an integer tensor (x[sx.arange(n) + i]).")
                                 .c_str());
      }
    }
    if (PyFloat_Check(k.ptr()) || PyUnicode_Check(k.ptr()) || PyBytes_Check(k.ptr()) || PyComplex_Check(k.ptr())) {
      std::string type = Py_TYPE(k.ptr())->tp_name;
      throw nb::index_error(("only integers, slices (`:`), ellipsis (`...`), None (newaxis) and integer or boolean "
                             "arrays or tensors are valid indices, got a " +
                             type +
                             ", as in NumPy. Convert a float index with int(...), or a float tensor with "
                             "astype(int64).")
                                .c_str());
    }
    bool basic = k.is_none() || k.ptr() == Py_Ellipsis || PySlice_Check(k.ptr());
    if (!basic && !PyBool_Check(k.ptr()) && PyIndex_Check(k.ptr())) {
      // An integer (a NumPy integer scalar too); an integer array has __index__ but refuses it.
      nb::object index = nb::steal(PyNumber_Index(k.ptr()));
      if (index.is_valid()) {
        out.emplace_back(symx::Index(nb::cast<std::int64_t>(index)));
        return;
      }
      PyErr_Clear();
    }
    if (basic) {
      out.emplace_back(symx_binding::index_from_python(k)[0]);
      return;
    }
    Tensor t = symx_binding::tensor_from_python(k);
    out.emplace_back(t);
  };
  IndexList out;
  if (PyTuple_Check(key.ptr())) {
    for (nb::handle k : key) one(k, out);
  } else {
    one(key, out);
  }
  return out;
}

// JAX's mode= of the indexed updates: symx's indices must be in range (an out-of-range one is an error),
// which is JAX's "promise_in_bounds"; "clip", "drop" and "fill" are not supported.
void check_mode(nb::handle mode) {
  if (mode.is_none()) return;
  auto m = nb::cast<std::string>(mode);
  if (m != "promise_in_bounds")
    throw nb::value_error(("at[...]: mode=\"" + m +
                           "\" is not supported: symx's indices must be in range (an out-of-range index is an "
                           "error, JAX's \"promise_in_bounds\"); clip the indices first with sx.clip.")
                              .c_str());
}

// x.at: indexing it gives an IndexedRef.
struct AtHelper {
  Tensor x;
};

std::optional<Tensor> optional_tensor(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return symx_binding::tensor_from_python(h);
}

// h as an integer, when it is one (an integer array has __index__ but refuses it).
std::optional<std::int64_t> as_int(nb::handle h) {
  if (PyBool_Check(h.ptr()) || !PyIndex_Check(h.ptr())) return std::nullopt;
  nb::object index = nb::steal(PyNumber_Index(h.ptr()));
  if (index.is_valid()) return nb::cast<std::int64_t>(index);
  PyErr_Clear();
  return std::nullopt;
}

Bins bins_from(nb::handle h) {
  if (auto n = as_int(h)) return Bins(*n);
  if (nb::isinstance<nb::str>(h)) throw nb::type_error("bins: only a number of bins or the bin edges are supported");
  return Bins(symx_binding::tensor_from_python(h));
}

// bins of histogramdd / histogram2d: one entry, or one per dimension.
std::vector<Bins> bins_list(nb::handle h) {
  if (nb::isinstance<Tensor>(h) || as_int(h)) return {bins_from(h)};
  std::vector<Bins> out;
  nb::object seq = nb::steal(PySequence_Fast(h.ptr(), "bins must be an int, edges, or a sequence of them"));
  if (!seq.is_valid()) throw nb::python_error();
  // A NumPy array, or a sequence of floats, is one set of edges.
  bool numbers = true;
  for (nb::handle item : seq) numbers = numbers && PyFloat_Check(item.ptr());
  if (numbers || nb::hasattr(h, "ndim")) return {bins_from(h)};
  for (nb::handle item : seq) out.push_back(bins_from(item));
  return out;
}

symx::Range range_from(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  auto p = nb::cast<std::pair<double, double>>(h);
  return p;
}

std::vector<std::pair<double, double>> ranges_from(nb::handle h) {
  std::vector<std::pair<double, double>> out;
  if (h.is_none()) return out;
  for (nb::handle item : h) {
    if (item.is_none()) throw nb::type_error("range: give (low, high) for every dimension");
    out.push_back(nb::cast<std::pair<double, double>>(item));
  }
  return out;
}

nb::tuple tuple_of(const std::vector<Tensor>& v) {
  nb::list l;
  for (const auto& t : v) l.append(nb::cast(t));
  return nb::tuple(l);
}

}  // namespace

void bind_indexing(nb::module_& m) {
  using namespace symx_binding;
  namespace sx = symx;
#define SYMX_UPDATE(name)                                                   \
  m.def(                                                                    \
      #name,                                                                \
      [](const TensorArg& x, nb::handle index, const sx::Operand& values) { \
        auto idx = index_list(index);                                       \
        PyLocation here;                                                    \
        return sx::name(x.t, idx, values);                                  \
      },                                                                    \
      "x"_a, "idx"_a.none(), "y"_a, DOC(name))
  SYMX_UPDATE(index_update);
  SYMX_UPDATE(index_add);
  SYMX_UPDATE(index_multiply);
  SYMX_UPDATE(index_divide);
  SYMX_UPDATE(index_min);
  SYMX_UPDATE(index_max);
#undef SYMX_UPDATE
  m.def(
      "index_get",
      [](const TensorArg& x, nb::handle index) {
        auto idx = index_list(index);
        PyLocation here;
        return sx::index_get(x.t, idx);
      },
      "x"_a, "idx"_a.none(), DOC(index_get));

  // sx.index[...] (jax.ops.index): returns the index it is given, for index_update(x, sx.index[1:, 0], y).
  struct IndexMaker {};
  nb::class_<IndexMaker>(m, "IndexMaker",
                         "The type of sx.index (jax.ops.index): it returns the index it is given.\n\nExample: "
                         "sx.index[1:, 0] is (slice(1, None, None), 0)")
      .def(
          "__getitem__", [](const IndexMaker&, nb::handle key) { return nb::borrow(key); }, nb::arg("key").none());
  m.attr("index") = IndexMaker{};

  nb::class_<sx::IndexedRef>(m, "IndexedRef",
                             "x.at[index]: JAX's indexed updates (set, add, ...) and get.\n\nExample: x.at[0].add(1.0)")
      .def(
          "get",
          [](const sx::IndexedRef& r, bool, bool, nb::handle mode, nb::handle fill_value) {
            check_mode(mode);
            if (!fill_value.is_none())
              throw nb::value_error("at[...].get: fill_value is not supported (indices must be in range)");
            PyLocation here;
            return r.get();
          },
          nb::kw_only(), "indices_are_sorted"_a = false, "unique_indices"_a = false, "mode"_a = nb::none(),
          "fill_value"_a = nb::none(), "x[index] (NumPy's basic and advanced indexing).")
#define SYMX_AT(name, doc)                                                                                          \
  def(                                                                                                              \
      #name,                                                                                                        \
      [](const sx::IndexedRef& r, const sx::Operand& values, bool, bool, nb::handle mode) {                         \
        check_mode(mode);                                                                                           \
        PyLocation here;                                                                                            \
        return r.name(values);                                                                                      \
      },                                                                                                            \
      "values"_a, nb::kw_only(), "indices_are_sorted"_a = false, "unique_indices"_a = false, "mode"_a = nb::none(), \
      doc)
      .SYMX_AT(set, "x with x[index] = values (the last of duplicate indices wins).")
      .SYMX_AT(add, "x with values added at x[index] (duplicates accumulate).")
      .SYMX_AT(multiply, "x with x[index] multiplied by values.")
      .SYMX_AT(divide, "x with x[index] divided by values.")
      .SYMX_AT(min, "x with x[index] = minimum(x[index], values).")
      .SYMX_AT(max, "x with x[index] = maximum(x[index], values).");
#undef SYMX_AT
  nb::class_<AtHelper>(m, "IndexUpdateHelper",
                       "x.at: index it (x.at[1:, 0]) for JAX's indexed updates.\n\nExample: x.at[1:, 0].set(0.0)")
      .def(
          "__getitem__", [](const AtHelper& h, nb::handle key) { return sx::at(h.x, index_list(key)); },
          nb::arg("key").none());
  nb::borrow<nb::class_<Tensor>>(nb::type<Tensor>())
      .def(
          "__getitem__",
          [](const Tensor& t, nb::handle key) {
            IndexList index = index_list(key);
            PyLocation here;
            return t[index];
          },
          nb::arg("key").none(),
          "x[key], NumPy's indexing: ints, slices, None (newaxis) and Ellipsis slice x (sx.slice); integer "
          "arrays, lists or tensors and constant boolean masks among them are advanced indices (as x.at[key].get(): "
          "their broadcast dimensions go where NumPy puts them, and gradients flow to x). A boolean mask that "
          "depends on a placeholder is refused (its result's shape would depend on values): use sx.where or "
          "sx.nonzero(mask, size=).\n\nExample: x[[2, 0], 1:] of x with shape (3, 4) has shape (2, 3)")
      .def_prop_ro(
          "at", [](const Tensor& t) { return AtHelper{t}; }, nb::sig("def at(self) -> IndexUpdateHelper"),
          "JAX's x.at[index]: .set(v), .add(v), .multiply(v), .divide(v), .min(v), .max(v), .get() return new "
          "tensors (see index_update).\n\nExample: x.at[1:, 0].set(0.0)");

  m.def(
      "put_along_axis",
      [](const TensorArg& arr, const TensorArg& indices, const sx::Operand& values, nb::handle axis, bool inplace,
         nb::handle mode) {
        if (inplace) throw nb::value_error("put_along_axis: symx tensors are immutable; pass inplace=False");
        if (!mode.is_none()) throw nb::value_error("put_along_axis: mode is not supported (indices must be in range)");
        std::optional<int> ax;
        if (!axis.is_none()) ax = axis_from_python(axis);
        PyLocation here;
        return sx::put_along_axis(arr.t, indices.t, values, ax);
      },
      "arr"_a, "indices"_a, "values"_a, "axis"_a.none(), "inplace"_a = false, "mode"_a = nb::none(),
      DOC(put_along_axis));
  m.def(
      "put",
      [](const TensorArg& a, const TensorArg& ind, const TensorArg& v, nb::handle mode, bool inplace) {
        if (inplace) throw nb::value_error("put: symx tensors are immutable; pass inplace=False");
        std::string md = mode.is_none() ? "raise" : nb::cast<std::string>(mode);
        PyLocation here;
        return sx::put(a.t, ind.t, v.t, md);
      },
      "a"_a, "ind"_a, "v"_a, "mode"_a = nb::none(), "inplace"_a = false, DOC(put));
  m.def(
      "place",
      [](const TensorArg& arr, const TensorArg& mask, const TensorArg& vals, bool inplace) {
        if (inplace) throw nb::value_error("place: symx tensors are immutable; pass inplace=False");
        PyLocation here;
        return sx::place(arr.t, mask.t, vals.t);
      },
      "arr"_a, "mask"_a, "vals"_a, "inplace"_a = false, DOC(place));
  m.def(
      "bincount",
      [](const TensorArg& x, nb::handle weights, std::int64_t minlength, std::optional<std::int64_t> length) {
        auto w = optional_tensor(weights);
        PyLocation here;
        return sx::bincount(x.t, w, minlength, length);
      },
      "x"_a, "weights"_a = nb::none(), "minlength"_a = 0, nb::kw_only(), "length"_a = nb::none(), DOC(bincount));
  m.def(
      "histogram_bin_edges",
      [](const TensorArg& a, nb::handle bins, nb::handle range, nb::handle weights) {
        auto b = bins_from(bins);
        auto r = range_from(range);
        auto w = optional_tensor(weights);
        PyLocation here;
        return sx::histogram_bin_edges(a.t, b, r, w);
      },
      "a"_a, "bins"_a = 10, "range"_a = nb::none(), "weights"_a = nb::none(), DOC(histogram_bin_edges));
  m.def(
      "histogram",
      [](const TensorArg& a, nb::handle bins, nb::handle range, nb::handle weights, nb::handle density) {
        auto b = bins_from(bins);
        auto r = range_from(range);
        auto w = optional_tensor(weights);
        bool d = !density.is_none() && nb::cast<bool>(density);
        PyLocation here;
        auto [h, e] = sx::histogram(a.t, b, r, w, d);
        return nb::make_tuple(h, e);
      },
      "a"_a, "bins"_a = 10, "range"_a = nb::none(), "weights"_a = nb::none(), "density"_a = nb::none(), DOC(histogram));
  m.def(
      "histogramdd",
      [](const TensorArg& sample, nb::handle bins, nb::handle range, nb::handle weights, nb::handle density) {
        auto b = bins_list(bins);
        auto r = ranges_from(range);
        auto w = optional_tensor(weights);
        bool d = !density.is_none() && nb::cast<bool>(density);
        PyLocation here;
        auto [h, e] = sx::histogramdd(sample.t, b, r, w, d);
        return nb::make_tuple(h, tuple_of(e));
      },
      "sample"_a, "bins"_a = 10, "range"_a = nb::none(), "weights"_a = nb::none(), "density"_a = nb::none(),
      DOC(histogramdd));
  m.def(
      "histogram2d",
      [](const TensorArg& x, const TensorArg& y, nb::handle bins, nb::handle range, nb::handle weights,
         nb::handle density) {
        auto b = bins_list(bins);
        auto r = ranges_from(range);
        auto w = optional_tensor(weights);
        bool d = !density.is_none() && nb::cast<bool>(density);
        PyLocation here;
        return tuple_of(sx::histogram2d(x.t, y.t, b, r, w, d));
      },
      "x"_a, "y"_a, "bins"_a = 10, "range"_a = nb::none(), "weights"_a = nb::none(), "density"_a = nb::none(),
      DOC(histogram2d));

  m.def(
      "nonzero",
      [](const TensorArg& a, std::optional<std::int64_t> size, std::int64_t fill_value) {
        PyLocation here;
        return tuple_of(sx::nonzero(a.t, size, fill_value));
      },
      "a"_a, nb::kw_only(), "size"_a = nb::none(), "fill_value"_a = 0, DOC(nonzero));
  m.def(
      "argwhere",
      [](const TensorArg& a, std::optional<std::int64_t> size, std::int64_t fill_value) {
        PyLocation here;
        return sx::argwhere(a.t, size, fill_value);
      },
      "a"_a, nb::kw_only(), "size"_a = nb::none(), "fill_value"_a = 0, DOC(argwhere));
  m.def(
      "flatnonzero",
      [](const TensorArg& a, std::optional<std::int64_t> size, std::int64_t fill_value) {
        PyLocation here;
        return sx::flatnonzero(a.t, size, fill_value);
      },
      "a"_a, nb::kw_only(), "size"_a = nb::none(), "fill_value"_a = 0, DOC(flatnonzero));
  m.def(
      "compress",
      [](const TensorArg& condition, const TensorArg& a, nb::handle axis, std::optional<std::int64_t> size,
         double fill_value) {
        std::optional<int> ax;
        if (!axis.is_none()) ax = axis_from_python(axis);
        PyLocation here;
        return sx::compress(condition.t, a.t, ax, size, fill_value);
      },
      "condition"_a, "a"_a, "axis"_a = nb::none(), nb::kw_only(), "size"_a = nb::none(), "fill_value"_a = 0.0,
      DOC(compress));
  m.def(
      "extract",
      [](const TensorArg& condition, const TensorArg& arr, std::optional<std::int64_t> size, double fill_value) {
        PyLocation here;
        return sx::extract(condition.t, arr.t, size, fill_value);
      },
      "condition"_a, "arr"_a, nb::kw_only(), "size"_a = nb::none(), "fill_value"_a = 0.0, DOC(extract));
  m.def(
      "trim_zeros",
      [](const TensorArg& filt, const std::string& trim, std::optional<std::int64_t> size, double fill_value) {
        PyLocation here;
        return sx::trim_zeros(filt.t, trim, size, fill_value);
      },
      "filt"_a, "trim"_a = "fb", nb::kw_only(), "size"_a = nb::none(), "fill_value"_a = 0.0, DOC(trim_zeros));
}

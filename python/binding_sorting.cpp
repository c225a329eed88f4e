// python/binding_sorting.cpp: the Python binding of symx/sorting.hpp.
#include "binding_common.hpp"

using namespace symx_binding;

namespace {

nb::tuple as_tuple(const std::vector<symx::Tensor>& ts) {
  nb::list out;
  for (const auto& t : ts) out.append(nb::cast(t));
  return nb::tuple(out);
}

// numpy.unique_all's and friends' results: namedtuples, as NumPy's.
nb::object named_tuple(const char* name, const char* fields) {
  return nb::module_::import_("collections").attr("namedtuple")(name, fields);
}

// q of the quantiles: a Python number or list in a's float dtype (float64 q for float64 a).
symx::Tensor quantile_q(const symx::Tensor& a, nb::handle q) {
  if (nb::isinstance<symx::Tensor>(q)) return nb::cast<symx::Tensor>(q);
  const char* dtype = a.dtype() == symx::DType::f64 ? "float64" : "float32";
  return tensor_from_python(nb::module_::import_("numpy").attr("asarray")(q, "dtype"_a = dtype));
}

std::optional<symx::Tensor> optional_tensor(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return tensor_from_python(h);
}

// lexsort's keys: a sequence of arrays, or the rows of one array.
std::vector<symx::Tensor> keys_from_python(nb::handle keys) {
  std::vector<symx::Tensor> out;
  if (nb::isinstance<nb::list>(keys) || nb::isinstance<nb::tuple>(keys)) {
    for (nb::handle k : keys) out.push_back(tensor_from_python(k));
    return out;
  }
  symx::Tensor t = tensor_from_python(keys);
  if (t.ndim() == 0) return {t};
  for (std::int64_t i = 0; i < t.shape()[0]; ++i) out.push_back(symx::slice(t, {symx::Index(i)}));
  return out;
}

}  // namespace

void bind_sorting(nb::module_& m) {
  // ---- sorting and searching ----
  m.def("sort", LOC(symx::sort), "a"_a, "axis"_a.none() = -1, nb::kw_only(), "stable"_a = true, "descending"_a = false,
        DOC(sort));
  m.def("argsort", LOC(symx::argsort), "a"_a, "axis"_a.none() = -1, nb::kw_only(), "stable"_a = true,
        "descending"_a = false, DOC(argsort));
  m.def("msort", LOC(symx::msort), "a"_a, DOC(msort));
  m.def("partition", LOC(symx::partition), "a"_a, "kth"_a, "axis"_a.none() = -1, DOC(partition));
  m.def("argpartition", LOC(symx::argpartition), "a"_a, "kth"_a, "axis"_a.none() = -1, DOC(argpartition));
  m.def(
      "top_k",
      [](TensorArg operand, std::int64_t k) {
        PyLocation here;
        return as_tuple(symx::top_k(operand.t, k));
      },
      "operand"_a, "k"_a, DOC(top_k));
  m.def(
      "searchsorted",
      [](TensorArg a, TensorArg v, const std::string& side, nb::handle sorter) {
        auto s = optional_tensor(sorter);
        PyLocation here;
        return symx::searchsorted(a.t, v.t, side, s);
      },
      "a"_a, "v"_a, "side"_a = "left", "sorter"_a = nb::none(), DOC(searchsorted));
  m.def(
      "lexsort",
      [](nb::handle keys, AxisInt axis) {
        auto k = keys_from_python(keys);
        PyLocation here;
        return symx::lexsort(k, axis.v);
      },
      "keys"_a, "axis"_a = -1, DOC(lexsort));

  // ---- order statistics ----
  m.def("median", LOC(symx::median), "a"_a, "axis"_a = nb::none(), "keepdims"_a = false, DOC(median));
#define SYMX_QUANTILE(name)                                                                      \
  m.def(                                                                                         \
      #name,                                                                                     \
      [](TensorArg a, nb::handle q, symx::Axes axis, const std::string& method, bool keepdims) { \
        symx::Tensor qt = quantile_q(a.t, q);                                                    \
        PyLocation here;                                                                         \
        return symx::name(a.t, qt, axis, method, keepdims);                                      \
      },                                                                                         \
      "a"_a, "q"_a, "axis"_a = nb::none(), nb::kw_only(), "method"_a = "linear", "keepdims"_a = false, DOC(name))
  SYMX_QUANTILE(quantile);
  SYMX_QUANTILE(percentile);
  SYMX_QUANTILE(nanquantile);
  SYMX_QUANTILE(nanpercentile);
#undef SYMX_QUANTILE
  m.def("nanmedian", LOC(symx::nanmedian), "a"_a, "axis"_a = nb::none(), "keepdims"_a = false, DOC(nanmedian));

  // ---- unique and set functions ----
  static nb::object unique_all_result = named_tuple("UniqueAllResult", "values indices inverse_indices counts");
  static nb::object unique_counts_result = named_tuple("UniqueCountsResult", "values counts");
  static nb::object unique_inverse_result = named_tuple("UniqueInverseResult", "values inverse_indices");
  m.def(
      "unique",
      [](TensorArg ar, bool return_index, bool return_inverse, bool return_counts, nb::handle axis, bool equal_nan,
         std::optional<std::int64_t> size, std::optional<double> fill_value) -> nb::object {
        std::optional<int> ax;
        if (!axis.is_none()) ax = axis_from_python(axis);
        PyLocation here;
        auto r = symx::unique(ar.t, return_index, return_inverse, return_counts, equal_nan, size, fill_value, ax);
        if (r.size() == 1) return nb::cast(r[0]);
        return as_tuple(r);
      },
      "ar"_a, "return_index"_a = false, "return_inverse"_a = false, "return_counts"_a = false, "axis"_a = nb::none(),
      nb::kw_only(), "equal_nan"_a = true, "size"_a = nb::none(), "fill_value"_a = nb::none(), DOC(unique));
  m.def("unique_values", LOC(symx::unique_values), "x"_a, nb::kw_only(), "size"_a = nb::none(),
        "fill_value"_a = nb::none(), DOC(unique_values));
  m.def(
      "unique_counts",
      [](TensorArg x, std::optional<std::int64_t> size, std::optional<double> fill_value) {
        PyLocation here;
        auto r = symx::unique_counts(x.t, size, fill_value);
        return unique_counts_result(r.values, r.counts);
      },
      "x"_a, nb::kw_only(), "size"_a = nb::none(), "fill_value"_a = nb::none(), DOC(unique_counts));
  m.def(
      "unique_inverse",
      [](TensorArg x, std::optional<std::int64_t> size, std::optional<double> fill_value) {
        PyLocation here;
        auto r = symx::unique_inverse(x.t, size, fill_value);
        return unique_inverse_result(r.values, r.inverse_indices);
      },
      "x"_a, nb::kw_only(), "size"_a = nb::none(), "fill_value"_a = nb::none(), DOC(unique_inverse));
  m.def(
      "unique_all",
      [](TensorArg x, std::optional<std::int64_t> size, std::optional<double> fill_value) {
        PyLocation here;
        auto r = symx::unique_all(x.t, size, fill_value);
        return unique_all_result(r.values, r.indices, r.inverse_indices, r.counts);
      },
      "x"_a, nb::kw_only(), "size"_a = nb::none(), "fill_value"_a = nb::none(), DOC(unique_all));
  m.def("isin", LOC(symx::isin), "element"_a, "test_elements"_a, "assume_unique"_a = false, "invert"_a = false,
        DOC(isin));
  m.def("in1d", LOC(symx::in1d), "ar1"_a, "ar2"_a, "assume_unique"_a = false, "invert"_a = false, DOC(in1d));
#define SYMX_SET(name)                                                                                             \
  m.def(#name, LOC(symx::name), "ar1"_a, "ar2"_a, "assume_unique"_a = false, nb::kw_only(), "size"_a = nb::none(), \
        "fill_value"_a = nb::none(), DOC(name))
  SYMX_SET(intersect1d);
  SYMX_SET(setdiff1d);
  SYMX_SET(setxor1d);
#undef SYMX_SET
  m.def("union1d", LOC(symx::union1d), "ar1"_a, "ar2"_a, nb::kw_only(), "size"_a = nb::none(),
        "fill_value"_a = nb::none(), DOC(union1d));
  m.def("interp", LOC(symx::interp), "x"_a, "xp"_a, "fp"_a, "left"_a = nb::none(), "right"_a = nb::none(),
        "period"_a = nb::none(), DOC(interp));

  // ---- cumulative ops ----
#define SYMX_SCAN(name) m.def(#name, LOC(symx::name), "a"_a, "axis"_a = nb::none(), DOC(name))
  SYMX_SCAN(cumprod);
  SYMX_SCAN(cummax);
  SYMX_SCAN(cummin);
  SYMX_SCAN(logcumsumexp);
  SYMX_SCAN(nancumsum);
  SYMX_SCAN(nancumprod);
#undef SYMX_SCAN
  m.attr("cumproduct") = m.attr("cumprod");
  m.def("cumulative_sum", LOC(symx::cumulative_sum), "x"_a, nb::kw_only(), "axis"_a = nb::none(),
        "include_initial"_a = false, DOC(cumulative_sum));
  m.def("cumulative_prod", LOC(symx::cumulative_prod), "x"_a, nb::kw_only(), "axis"_a = nb::none(),
        "include_initial"_a = false, DOC(cumulative_prod));
}

// python/binding_linalg_factor.cpp: the Python binding of symx/linalg_factor.hpp (in symx.linalg, with
// NumPy's and SciPy's signatures: SciPy's overwrite_* and check_finite are accepted and have no effect,
// since symx never writes into its inputs), and symx.linalg's aliases of top-level functions that
// numpy.linalg also has.
#include "binding_common.hpp"

using namespace symx_binding;

namespace {

nb::object named_tuple(const char* name, const char* fields) {
  return nb::module_::import_("collections").attr("namedtuple")(name, fields);
}

// SciPy's (lu, piv) and (c, lower) pairs.
std::pair<nb::handle, nb::handle> pair_of(nb::handle pair, const char* what) {
  if (!nb::isinstance<nb::tuple>(pair) && !nb::isinstance<nb::list>(pair))
    throw nb::type_error((std::string(what) + " must be a pair, as the factorization returned it").c_str());
  nb::sequence seq = nb::borrow<nb::sequence>(pair);
  if (nb::len(seq) != 2)
    throw nb::type_error((std::string(what) + " must be a pair, as the factorization returned it").c_str());
  return {seq[0], seq[1]};
}

}  // namespace

void bind_linalg_factor(nb::module_& linalg, nb::module_& top) {
  namespace lin = symx::linalg;
  static nb::object qr_result = named_tuple("QRResult", "Q R");
  linalg.def(
      "qr",
      [](TensorArg a, const std::string& mode) -> nb::object {
        PyLocation here;
        std::vector<symx::Tensor> parts = lin::qr(a.t, mode);
        if (parts.size() == 1) return nb::cast(parts[0]);
        return qr_result(nb::cast(parts[0]), nb::cast(parts[1]));
      },
      "a"_a, "mode"_a = "reduced", DOC(linalg_qr));
  linalg.def(
      "lu",
      [](TensorArg a, bool permute_l, bool, bool) {
        PyLocation here;
        std::vector<symx::Tensor> parts = lin::lu(a.t, permute_l);
        nb::list out;
        for (const auto& t : parts) out.append(nb::cast(t));
        return nb::tuple(out);
      },
      "a"_a, "permute_l"_a = false, "overwrite_a"_a = false, "check_finite"_a = true, DOC(linalg_lu));
  linalg.def(
      "lu_factor",
      [](TensorArg a, bool, bool) {
        PyLocation here;
        auto [lu, piv] = lin::lu_factor(a.t);
        return nb::make_tuple(lu, piv);
      },
      "a"_a, "overwrite_a"_a = false, "check_finite"_a = true, DOC(linalg_lu_factor));
  linalg.def(
      "lu_solve",
      [](nb::handle lu_and_piv, TensorArg b, int trans, bool, bool) {
        auto [lu, piv] = pair_of(lu_and_piv, "lu_and_piv");
        symx::Tensor f = tensor_from_python(lu), p = tensor_from_python(piv);
        PyLocation here;
        return lin::lu_solve(f, p, b.t, trans);
      },
      "lu_and_piv"_a, "b"_a, "trans"_a = 0, "overwrite_b"_a = false, "check_finite"_a = true, DOC(linalg_lu_solve));
  linalg.def("lu_pivots_to_permutation", LOC(lin::lu_pivots_to_permutation), "pivots"_a, "permutation_size"_a,
             DOC(linalg_lu_pivots_to_permutation));
  linalg.def(
      "cho_factor",
      [](TensorArg a, bool lower, bool, bool) {
        PyLocation here;
        auto [c, low] = lin::cho_factor(a.t, lower);
        return nb::make_tuple(c, low);
      },
      "a"_a, "lower"_a = false, "overwrite_a"_a = false, "check_finite"_a = true, DOC(linalg_cho_factor));
  linalg.def(
      "cho_solve",
      [](nb::handle c_and_lower, TensorArg b, bool, bool) {
        auto [c, lower] = pair_of(c_and_lower, "c_and_lower");
        symx::Tensor f = tensor_from_python(c);
        bool low = nb::cast<bool>(lower);
        PyLocation here;
        return lin::cho_solve(f, low, b.t);
      },
      "c_and_lower"_a, "b"_a, "overwrite_b"_a = false, "check_finite"_a = true, DOC(linalg_cho_solve));
  linalg.def("matrix_power", LOC(lin::matrix_power), "a"_a, "n"_a, DOC(linalg_matrix_power));
  linalg.def(
      "multi_dot",
      [](TensorList arrays, nb::handle out) {
        if (!out.is_none()) throw nb::type_error("multi_dot: out= is not supported (symx tensors are immutable)");
        PyLocation here;
        return lin::multi_dot(arrays.v);
      },
      "arrays"_a, nb::kw_only(), "out"_a = nb::none(), DOC(linalg_multi_dot));
  linalg.def("expm", LOC(lin::expm), "A"_a, DOC(linalg_expm));
  linalg.def(
      "expm_frechet",
      [](TensorArg a, TensorArg e, nb::handle method, bool compute_expm, bool) -> nb::object {
        if (!method.is_none() && nb::cast<std::string>(nb::str(method)) != "SPS" &&
            nb::cast<std::string>(nb::str(method)) != "blockEnlarge")
          throw nb::value_error("expm_frechet: method must be None, 'SPS' or 'blockEnlarge'");
        PyLocation here;
        auto [ea, l] = lin::expm_frechet(a.t, e.t);
        if (!compute_expm) return nb::cast(l);
        return nb::make_tuple(ea, l);
      },
      "A"_a, "E"_a, "method"_a = nb::none(), "compute_expm"_a = true, "check_finite"_a = true,
      DOC(linalg_expm_frechet));
  linalg.def(
      "tensorsolve",
      [](TensorArg a, TensorArg b, nb::handle axes) {
        std::optional<std::vector<int>> ax;
        if (!axes.is_none()) {
          ax.emplace();
          for (nb::handle h : axes) ax->push_back(nb::cast<int>(h));
        }
        PyLocation here;
        return lin::tensorsolve(a.t, b.t, ax);
      },
      "a"_a, "b"_a, "axes"_a = nb::none(), DOC(linalg_tensorsolve));
  linalg.def("tensorinv", LOC(lin::tensorinv), "a"_a, "ind"_a = 2, DOC(linalg_tensorinv));
  linalg.def(
      "block_diag",
      [](nb::args arrs) {
        std::vector<symx::Tensor> ts;
        for (nb::handle h : arrs) ts.push_back(tensor_from_python(h));
        PyLocation here;
        return lin::block_diag(ts);
      },
      DOC(linalg_block_diag));

  // numpy.linalg's names for top-level functions (the same function objects), and SymJAX's tril/triu.
  for (const char* name : {"cross", "vecdot", "tensordot", "matrix_transpose", "outer", "matmul", "tril", "triu"})
    linalg.attr(name) = top.attr(name);
  // numpy.linalg.diagonal and trace work on the last two axes (the top-level ones on the first two).
  linalg.def(
      "diagonal",
      [](TensorArg x, std::int64_t offset) {
        PyLocation here;
        return symx::diagonal(x.t, offset, -2, -1);
      },
      "x"_a, nb::kw_only(), "offset"_a = 0, DOC(linalg_diagonal));
  linalg.def(
      "trace",
      [](TensorArg x, std::int64_t offset, std::optional<symx::DType> dtype) {
        PyLocation here;
        symx::Tensor t = symx::trace(x.t, offset, -2, -1);
        return dtype ? symx::cast(t, *dtype) : t;
      },
      "x"_a, nb::kw_only(), "offset"_a = 0, "dtype"_a = nb::none(), DOC(linalg_trace));
}

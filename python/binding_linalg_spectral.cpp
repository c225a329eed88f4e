// python/binding_linalg_spectral.cpp: the Python binding of symx/linalg.hpp (symx.linalg's eigh,
// eigvalsh, svd, svdvals, pinv, matrix_rank, cond, lstsq), with NumPy's signatures.
#include <cmath>
#include <optional>
#include <string>

#include "binding_common.hpp"
#include "symx/linalg.hpp"

using namespace symx_binding;

namespace {

namespace lin = symx::linalg;

std::optional<double> optional_number(nb::handle h, const char* what) {
  if (h.is_none()) return std::nullopt;
  if (PyBool_Check(h.ptr()) || !PyNumber_Check(h.ptr()))
    throw nb::type_error((std::string(what) + " must be None or a number").c_str());
  return nb::cast<double>(nb::float_(nb::borrow(h)));
}

// NumPy's p of cond: None, a number (inf included) or "fro"/"nuc"; C++ spells it as a string.
std::string order_text(nb::handle p) {
  if (p.is_none()) return "";
  if (nb::isinstance<nb::str>(p)) return nb::cast<std::string>(p);
  if (PyBool_Check(p.ptr()) || !PyNumber_Check(p.ptr()))
    throw nb::type_error("p must be None, a number (inf included) or 'fro'/'nuc'");
  double v = nb::cast<double>(nb::float_(nb::borrow(p)));
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return nb::cast<std::string>(nb::str(nb::float_(nb::borrow(p))));
}

}  // namespace

void bind_linalg_spectral(nb::module_& linalg) {
  linalg.def(
      "eigh",
      [](TensorArg a, std::string UPLO) {
        PyLocation here;
        auto [w, v] = lin::eigh(a.t, UPLO);
        return nb::make_tuple(w, v);
      },
      "a"_a, "UPLO"_a = "L", DOC(linalg_eigh));
  linalg.def("eigvalsh", LOC(lin::eigvalsh), "a"_a, "UPLO"_a = "L", DOC(linalg_eigvalsh));
  linalg.def(
      "svd",
      [](TensorArg a, bool full_matrices, bool compute_uv, bool hermitian) -> nb::object {
        PyLocation here;
        if (!compute_uv) {
          if (!hermitian) return nb::cast(lin::svdvals(a.t));
          auto [u, s, vh] = lin::svd(a.t, false, true);
          return nb::cast(s);
        }
        auto [u, s, vh] = lin::svd(a.t, full_matrices, hermitian);
        return nb::make_tuple(u, s, vh);
      },
      "a"_a, "full_matrices"_a = true, "compute_uv"_a = true, "hermitian"_a = false, DOC(linalg_svd));
  linalg.def("svdvals", LOC(lin::svdvals), "x"_a, DOC(linalg_svdvals));
  linalg.def("gram_schmidt", LOC(lin::gram_schmidt), "V"_a, "normalize"_a = true, DOC(linalg_gram_schmidt));
  linalg.def("modified_gram_schmidt", LOC(lin::modified_gram_schmidt), "V"_a, DOC(linalg_modified_gram_schmidt));
  linalg.def("eigenvector_power_iteration", LOC(lin::eigenvector_power_iteration), "weight"_a, "axis"_a = 0,
             "n_iters"_a = 1, DOC(linalg_eigenvector_power_iteration));
  linalg.def(
      "pinv",
      [](TensorArg a, nb::handle rcond, bool hermitian, nb::handle rtol) {
        std::optional<double> r;
        if (!rcond.is_none()) {
          if (!rtol.is(nb::ellipsis())) throw nb::value_error("pinv: rtol and rcond can't both be set");
          r = optional_number(rcond, "rcond");
        } else if (rtol.is(nb::ellipsis())) {
          r = 1e-15;  // NumPy's default when neither is given
        } else {
          r = optional_number(rtol, "rtol");  // None: max(m, n) * eps
        }
        PyLocation here;
        return lin::pinv(a.t, r, hermitian);
      },
      "a"_a, "rcond"_a.none() = nb::none(), "hermitian"_a = false, nb::kw_only(), "rtol"_a.none() = nb::ellipsis(),
      DOC(linalg_pinv));
  linalg.def(
      "matrix_rank",
      [](TensorArg a, nb::handle tol, bool hermitian, nb::handle rtol) {
        auto t = optional_number(tol, "tol");
        auto r = optional_number(rtol, "rtol");
        PyLocation here;
        return lin::matrix_rank(a.t, t, hermitian, r);
      },
      "A"_a, "tol"_a.none() = nb::none(), "hermitian"_a = false, nb::kw_only(), "rtol"_a.none() = nb::none(),
      DOC(linalg_matrix_rank));
  linalg.def(
      "cond",
      [](TensorArg x, nb::handle p) {
        const std::string text = order_text(p);
        PyLocation here;
        return lin::cond(x.t, text);
      },
      "x"_a, "p"_a.none() = nb::none(), DOC(linalg_cond));
  linalg.def(
      "lstsq",
      [](TensorArg a, TensorArg b, nb::handle rcond) {
        auto r = optional_number(rcond, "rcond");
        PyLocation here;
        auto [x, residuals, rank, s] = lin::lstsq(a.t, b.t, r);
        return nb::make_tuple(x, residuals, rank, s);
      },
      "a"_a, "b"_a, "rcond"_a.none() = nb::none(), DOC(linalg_lstsq));
}

// python/binding_special.cpp: the Python binding of symx/special.hpp: the symx.special submodule
// (scipy.special's names) and the top-level names, which are the same function objects.
#include "binding_common.hpp"
#include "symx/special.hpp"

using namespace symx_binding;
using namespace nanobind::literals;

namespace {
// zeta(x, q=None): the Hurwitz function, or the Riemann function when q is omitted.
symx::Tensor zeta_py(TensorArg x, std::optional<symx::Operand> q) {
  PyLocation here;
  if (!q) return symx::special::zeta(x.t, symx::Loc::current());
  return symx::special::zeta(x.t, *q, symx::Loc::current());
}
// fresnel(z) -> (S, C) and sici(x) -> (Si, Ci), as scipy.special's tuples.
nb::tuple fresnel_py(TensorArg z) {
  PyLocation here;
  auto [s, c] = symx::special::fresnel(z.t, symx::Loc::current());
  return nb::make_tuple(s, c);
}
nb::tuple sici_py(TensorArg x) {
  PyLocation here;
  auto [si, ci] = symx::special::sici(x.t, symx::Loc::current());
  return nb::make_tuple(si, ci);
}
symx::Tensor bessel_jn_py(TensorArg z, int v, int n_iter) {
  PyLocation here;
  return symx::special::bessel_jn(z.t, v, n_iter, symx::Loc::current());
}
}  // namespace

void bind_special(nb::module_& m) {
  nb::module_ sp = m.def_submodule("special", "Special functions (scipy.special-like).");
  namespace S = symx::special;
  sp.def("gammaln", LOC(S::gammaln), "x"_a, DOC(special_gammaln));
  sp.def("loggamma", LOC(S::loggamma), "x"_a, DOC(special_loggamma));
  sp.def("gamma", LOC(S::gamma), "x"_a, DOC(special_gamma));
  sp.def("gammasgn", LOC(S::gammasgn), "x"_a, DOC(special_gammasgn));
  sp.def("digamma", LOC(S::digamma), "x"_a, DOC(special_digamma));
  sp.attr("psi") = sp.attr("digamma");
  sp.def("polygamma", LOC(S::polygamma), "n"_a, "x"_a, DOC(special_polygamma));
  sp.def("multigammaln", LOC(S::multigammaln), "a"_a, "d"_a, DOC(special_multigammaln));
  sp.def("beta", LOC(S::beta), "a"_a, "b"_a, DOC(special_beta));
  sp.def("betaln", LOC(S::betaln), "a"_a, "b"_a, DOC(special_betaln));
  sp.attr("erf") = m.attr("erf");
  sp.def("erfc", LOC(S::erfc), "x"_a, DOC(special_erfc));
  sp.def("erfinv", LOC(S::erfinv), "y"_a, DOC(special_erfinv));
  sp.def("erfcinv", LOC(S::erfcinv), "y"_a, DOC(special_erfcinv));
  sp.def("erfcx", LOC(S::erfcx), "x"_a, DOC(special_erfcx));
  sp.def("ndtr", LOC(S::ndtr), "x"_a, DOC(special_ndtr));
  sp.def("ndtri", LOC(S::ndtri), "y"_a, DOC(special_ndtri));
  sp.def("log_ndtr", LOC(S::log_ndtr), "x"_a, DOC(special_log_ndtr));
  sp.def("xlogy", LOC(S::xlogy), "x"_a, "y"_a, DOC(special_xlogy));
  sp.def("xlog1py", LOC(S::xlog1py), "x"_a, "y"_a, DOC(special_xlog1py));
  sp.def("entr", LOC(S::entr), "x"_a, DOC(special_entr));
  sp.def("rel_entr", LOC(S::rel_entr), "x"_a, "y"_a, DOC(special_rel_entr));
  sp.def("kl_div", LOC(S::kl_div), "x"_a, "y"_a, DOC(special_kl_div));
  sp.def("gammainc", LOC(S::gammainc), "a"_a, "x"_a, DOC(special_gammainc));
  sp.def("gammaincc", LOC(S::gammaincc), "a"_a, "x"_a, DOC(special_gammaincc));
  sp.def("betainc", LOC(S::betainc), "a"_a, "b"_a, "x"_a, DOC(special_betainc));
  sp.def("hyp1f1", LOC(S::hyp1f1), "a"_a, "b"_a, "x"_a, DOC(special_hyp1f1));
  sp.def("hyp2f1", LOC(S::hyp2f1), "a"_a, "b"_a, "c"_a, "x"_a, DOC(special_hyp2f1));
  sp.def("owens_t", LOC(S::owens_t), "h"_a, "a"_a, DOC(special_owens_t));
  sp.def("i0", LOC(S::i0), "x"_a, DOC(special_i0));
  sp.def("i0e", LOC(S::i0e), "x"_a, DOC(special_i0e));
  sp.def("i1", LOC(S::i1), "x"_a, DOC(special_i1));
  sp.def("i1e", LOC(S::i1e), "x"_a, DOC(special_i1e));
  sp.def("zeta", &zeta_py, "x"_a, "q"_a = nb::none(), DOC(special_zeta));
  sp.def("expi", LOC(S::expi), "x"_a, DOC(special_expi));
  sp.def("exp1", LOC(S::exp1), "x"_a, DOC(special_exp1));
  sp.def("expn", LOC(S::expn), "n"_a, "x"_a, DOC(special_expn));
  sp.def("spence", LOC(S::spence), "z"_a, DOC(special_spence));
  sp.def("dawsn", LOC(S::dawsn), "x"_a, DOC(special_dawsn));
  sp.def("fresnel", &fresnel_py, "z"_a, DOC(special_fresnel));
  sp.def("sici", &sici_py, "x"_a, DOC(special_sici));
  sp.def("jn", LOC(S::jn), "n"_a, "x"_a, DOC(special_jn));
  sp.def("j0", LOC(S::j0), "x"_a, DOC(special_j0));
  sp.def("j1", LOC(S::j1), "x"_a, DOC(special_j0));
  sp.def("bessel_jn", &bessel_jn_py, "z"_a, nb::kw_only(), "v"_a = 0, "n_iter"_a = 50, DOC(special_bessel_jn));
  sp.def("sinc", LOC(S::sinc), "x"_a, DOC(special_sinc));
  sp.def("logit", LOC(S::logit), "x"_a, DOC(special_logit));
  sp.attr("expit") = m.attr("sigmoid");
  sp.def("boxcox", LOC(S::boxcox), "x"_a, "lmbda"_a, DOC(special_boxcox));
  sp.def("boxcox1p", LOC(S::boxcox1p), "x"_a, "lmbda"_a, DOC(special_boxcox1p));
  sp.def("poch", LOC(S::poch), "z"_a, "m"_a, DOC(special_poch));
  sp.def("factorial", LOC(S::factorial), "n"_a, DOC(special_factorial));
  sp.def("comb", LOC(S::comb), "N"_a, "k"_a, DOC(special_comb));

  // The NumPy-level names and SymJAX's top-level names: the same function objects.
  for (const char* name :
       {"gammaln", "loggamma", "gamma",    "gammasgn",  "digamma",  "polygamma", "multigammaln", "beta",
        "betaln",  "erfc",     "erfinv",   "erfcx",     "ndtr",     "ndtri",     "log_ndtr",     "xlogy",
        "xlog1py", "entr",     "rel_entr", "kl_div",    "gammainc", "gammaincc", "betainc",      "i0",
        "i0e",     "i1",       "i1e",      "zeta",      "expi",     "exp1",      "sinc",         "logit",
        "boxcox",  "boxcox1p", "poch",     "factorial", "comb",     "hyp1f1",    "hyp2f1",       "owens_t",
        "expn",    "spence",   "dawsn",    "fresnel",   "sici",     "jn",        "j0",           "j1"})
    m.attr(name) = sp.attr(name);
  m.attr("lgamma") = sp.attr("gammaln");

  m.def("gcd", LOC(symx::gcd), "x1"_a, "x2"_a, DOC(gcd));
  m.def("lcm", LOC(symx::lcm), "x1"_a, "x2"_a, DOC(lcm));
  m.def("nextafter", LOC(symx::nextafter), "x1"_a, "x2"_a, DOC(nextafter));
  m.def("bitwise_count", LOC(symx::bitwise_count), "x"_a, DOC(bitwise_count));
}

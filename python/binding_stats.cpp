// python/binding_stats.cpp: symx.stats, the distributions (toolkit/include/symx/stats.hpp).
#include <nanobind/stl/pair.h>

#include "binding_common.hpp"
#include "symx/stats.hpp"

namespace {

namespace st = symx::stats;
using symx::Operand;
using symx::Tensor;

// A const method whose last parameter is `Loc`, bound as LOC binds free functions: the Python
// callable takes the other parameters and records the Python caller's line.
template <auto F, class Sig = decltype(F)> struct LocatedMethod;
template <auto F, class T, class R, class... A> struct LocatedMethod<F, R (T::*)(A...) const> {
  using Args = std::tuple<A...>;
  static constexpr std::size_t N = sizeof...(A) - 1;
  template <std::size_t... I> static auto make(std::index_sequence<I...>) {
    return [](const T& self, typename Map<std::tuple_element_t<I, Args>>::type... a) -> R {
      PyLocation here;
      return (self.*F)(unwrap(std::move(a))..., symx::Loc::current());
    };
  }
  static auto fn() { return make(std::make_index_sequence<N>{}); }
};
#define METHOD(f) LocatedMethod<&f>::fn()

nb::object shape_tuple(const symx::Shape& s) {
  nb::list out;
  for (auto d : s) out.append(d);
  return nb::tuple(out);
}

// Exactly one of `logits` and `probs`, as PyTorch's distributions take them, and by name: a value
// given by position is refused, since PyTorch's and SymJAX's first parameter is probs and the old
// symx's was logits, so a positional value would silently mean either.
void check_one_of(const char* cls, const nb::args& positional, const nb::handle& logits, const nb::handle& probs) {
  if (positional.size() != 0)
    throw nb::type_error((std::string("stats.") + cls + ": pass the parameters by name: stats." + cls +
                          "(probs=p) or stats." + cls + "(logits=l); a value given by position is ambiguous " +
                          "(PyTorch's and SymJAX's first parameter is probs, symx's used to be logits).")
                             .c_str());
  if (logits.is_none() == probs.is_none())
    throw symx::ValueError(std::string("stats.") + cls + ": give exactly one of logits and probs (" +
                           (logits.is_none() ? "neither was" : "both were") + " given). Example: stats." + cls +
                           "(probs=p) or stats." + cls + "(logits=l).");
}

void bind_distribution(nb::module_& m) {
  using D = st::Distribution;
  nb::class_<D>(m, "Distribution", DOC(stats_Distribution))
      .def("log_prob", METHOD(D::log_prob), "value"_a, DOC(stats_Distribution_log_prob))
      .def("prob", METHOD(D::prob), "value"_a, DOC(stats_Distribution_prob))
      .def("sample", METHOD(D::sample), "shape"_a = nb::make_tuple(), DOC(stats_Distribution_sample))
      .def("entropy", METHOD(D::entropy), DOC(stats_Distribution_entropy))
      .def("mean", METHOD(D::mean), DOC(stats_Distribution_mean))
      .def("variance", METHOD(D::variance), DOC(stats_Distribution_variance))
      .def_prop_ro(
          "batch_shape", [](const D& d) { return shape_tuple(d.batch_shape()); }, DOC(stats_Distribution_batch_shape))
      .def_prop_ro(
          "event_shape", [](const D& d) { return shape_tuple(d.event_shape()); }, DOC(stats_Distribution_event_shape))
      .def_prop_ro(
          "dtype", [](const D& d) { return dtype_to_python(d.dtype()); }, DOC(stats_Distribution_dtype));
}

void bind_scalar_continuous(nb::module_& m) {
  nb::class_<st::Normal, st::Distribution>(m, "Normal", DOC(stats_Normal))
      .def(
          "__init__",
          [](st::Normal* self, const Operand& loc, const Operand& scale) {
            PyLocation here;
            new (self) st::Normal(loc, scale);
          },
          "loc"_a, "scale"_a, DOC(stats_Normal_Normal))
      .def_prop_ro("loc", &st::Normal::loc, DOC(stats_Normal_loc))
      .def_prop_ro("scale", &st::Normal::scale, DOC(stats_Normal_scale));
  nb::class_<st::Uniform, st::Distribution>(m, "Uniform", DOC(stats_Uniform))
      .def(
          "__init__",
          [](st::Uniform* self, const Operand& low, const Operand& high) {
            PyLocation here;
            new (self) st::Uniform(low, high);
          },
          "low"_a, "high"_a, DOC(stats_Uniform_Uniform))
      .def_prop_ro("low", &st::Uniform::low, DOC(stats_Uniform_low))
      .def_prop_ro("high", &st::Uniform::high, DOC(stats_Uniform_high));
  nb::class_<st::Gamma, st::Distribution>(m, "Gamma", DOC(stats_Gamma))
      .def(
          "__init__",
          [](st::Gamma* self, const Operand& concentration, const Operand& rate) {
            PyLocation here;
            new (self) st::Gamma(concentration, rate);
          },
          "concentration"_a, "rate"_a, DOC(stats_Gamma_Gamma))
      .def_prop_ro("concentration", &st::Gamma::concentration, DOC(stats_Gamma_concentration))
      .def_prop_ro("rate", &st::Gamma::rate, DOC(stats_Gamma_rate));
  nb::class_<st::Beta, st::Distribution>(m, "Beta", DOC(stats_Beta))
      .def(
          "__init__",
          [](st::Beta* self, const Operand& a, const Operand& b) {
            PyLocation here;
            new (self) st::Beta(a, b);
          },
          "a"_a, "b"_a, DOC(stats_Beta_Beta))
      .def_prop_ro("a", &st::Beta::a, DOC(stats_Beta_a))
      .def_prop_ro("b", &st::Beta::b, DOC(stats_Beta_b));
}

void bind_multivariate_normal(nb::module_& m) {
  using M = st::MultivariateNormal;
  nb::class_<M, st::Distribution>(m, "MultivariateNormal", DOC(stats_MultivariateNormal))
      .def(
          "__init__",
          [](M* self, const Operand& mean, std::optional<Operand> covariance, std::optional<Operand> scale_tril) {
            PyLocation here;
            if (covariance.has_value() == scale_tril.has_value())
              throw symx::ValueError(std::string("stats.MultivariateNormal: give exactly one of covariance and ") +
                                     "scale_tril (" + (covariance ? "both were" : "neither was") +
                                     " given). Example: stats.MultivariateNormal(mean, cov) or "
                                     "stats.MultivariateNormal(mean, scale_tril=L).");
            if (covariance) new (self) M(mean, *covariance);
            else new (self) M(M::from_scale_tril(mean, *scale_tril));
          },
          "mean"_a, "covariance"_a = nb::none(), "scale_tril"_a = nb::none(),
          DOC(stats_MultivariateNormal_MultivariateNormal))
      .def_static(
          "from_scale_tril",
          [](const Operand& mean, const Operand& scale_tril) {
            PyLocation here;
            return M::from_scale_tril(mean, scale_tril);
          },
          "mean"_a, "scale_tril"_a, DOC(stats_MultivariateNormal_from_scale_tril))
      .def_prop_ro("covariance", METHOD(M::covariance), DOC(stats_MultivariateNormal_covariance))
      .def_prop_ro("scale_tril", &M::scale_tril, DOC(stats_MultivariateNormal_scale_tril))
      .def_prop_ro("loc", &M::loc, DOC(stats_MultivariateNormal_loc));
}

void bind_discrete(nb::module_& m) {
  using C = st::Categorical;
  nb::class_<C, st::Distribution>(m, "Categorical", DOC(stats_Categorical))
      .def(
          "__init__",
          [](C* self, nb::args positional, nb::handle logits, nb::handle probs) {
            check_one_of("Categorical", positional, logits, probs);
            Tensor t = tensor_from_python(logits.is_none() ? probs : logits);
            PyLocation here;
            new (self) C(logits.is_none() ? C::from_probs(t) : C::from_logits(t));
          },
          "args"_a, "logits"_a = nb::none(), "probs"_a = nb::none(),
          nb::sig("def __init__(self, *, logits: symx._symx.Tensor | numpy.typing.ArrayLike | None = None, "
                  "probs: symx._symx.Tensor | numpy.typing.ArrayLike | None = None) -> None"))
      .def_static("from_logits", LOC(C::from_logits), "logits"_a, DOC(stats_Categorical_from_logits))
      .def_static("from_probs", LOC(C::from_probs), "probs"_a, DOC(stats_Categorical_from_probs))
      .def_prop_ro("logits", METHOD(C::logits), DOC(stats_Categorical_logits))
      .def_prop_ro("probs", METHOD(C::probs), DOC(stats_Categorical_probs))
      .def_prop_ro("num_categories", &C::num_categories, DOC(stats_Categorical_num_categories));
  using B = st::Bernoulli;
  nb::class_<B, st::Distribution>(m, "Bernoulli", DOC(stats_Bernoulli))
      .def(
          "__init__",
          [](B* self, nb::args positional, std::optional<Operand> logits, std::optional<Operand> probs) {
            check_one_of("Bernoulli", positional, logits ? nb::handle(Py_True) : nb::none(),
                         probs ? nb::handle(Py_True) : nb::none());
            PyLocation here;
            new (self) B(logits ? B::from_logits(*logits) : B::from_probs(*probs));
          },
          "args"_a, "logits"_a = nb::none(), "probs"_a = nb::none(),
          nb::sig("def __init__(self, *, logits: symx._symx.Tensor | numpy.typing.ArrayLike | float | None = None, "
                  "probs: symx._symx.Tensor | numpy.typing.ArrayLike | float | None = None) -> None"))
      .def_static("from_logits", LOC(B::from_logits), "logits"_a, DOC(stats_Bernoulli_from_logits))
      .def_static("from_probs", LOC(B::from_probs), "probs"_a, DOC(stats_Bernoulli_from_probs))
      .def_prop_ro("logits", METHOD(B::logits), DOC(stats_Bernoulli_logits))
      .def_prop_ro("probs", METHOD(B::probs), DOC(stats_Bernoulli_probs))
      .def("log_probs", METHOD(B::log_probs), DOC(stats_Bernoulli_log_probs));
}

template <class T> void bind_kl(nb::module_& m) {
  m.def(
      "kl_divergence",
      [](const T& p, const T& q) {
        PyLocation here;
        return st::kl_divergence(p, q);
      },
      "p"_a, "q"_a, DOC(stats_kl_divergence));
}

}  // namespace

void bind_stats(nb::module_& m) {
  bind_distribution(m);
  bind_scalar_continuous(m);
  bind_multivariate_normal(m);
  bind_discrete(m);
  bind_kl<st::Normal>(m);
  bind_kl<st::MultivariateNormal>(m);
  bind_kl<st::Categorical>(m);
  bind_kl<st::Bernoulli>(m);
  bind_kl<st::Uniform>(m);
  bind_kl<st::Gamma>(m);
  bind_kl<st::Beta>(m);
  // Last, so that it is tried only when no pair of one family matched.
  m.def(
      "kl_divergence",
      [](nb::handle p, nb::handle q) -> Tensor {
        std::string pn = nb::cast<std::string>(nb::type_name(p.type()));
        std::string qn = nb::cast<std::string>(nb::type_name(q.type()));
        throw symx::ValueError(
            "stats.kl_divergence: there is no closed form between a " + pn + " and a " + qn +
            "; p and q must be distributions of one family (Normal and Normal, Beta and Beta, ...).");
      },
      "p"_a, "q"_a);
}

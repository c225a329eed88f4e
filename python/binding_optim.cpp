// python/binding_optim.cpp: symx.optim (optimizers, gradient clipping) and symx.optim.schedules
// (toolkit/include/symx/optim.hpp, optim/schedules.hpp).
#include "binding_common.hpp"
#include "symx/optim.hpp"

namespace {

namespace so = symx::optim;
namespace ss = symx::optim::schedules;

// A Python callable step -> rate as a Schedule. The rate may be a tensor or a number; a number
// becomes a float64 constant (not symx's default float32), since rates are float64.
ss::Schedule schedule_from_callable(nb::handle fn) {
  return ss::Schedule([keep = PyRef(fn)](const symx::Tensor& step, symx::Loc) {
    nb::gil_scoped_acquire gil;
    nb::object rate = keep.get()(step);
    if (PyFloat_Check(rate.ptr()) || PyLong_Check(rate.ptr()))
      return symx::constant(nb::cast<double>(rate), symx::DType::f64);
    return tensor_from_python(rate);
  });
}

// learning_rate: a number, a Tensor, a Schedule or a callable step -> rate.
so::LearningRate learning_rate_from_python(nb::handle lr) {
  if (nb::isinstance<ss::Schedule>(lr)) return nb::cast<ss::Schedule>(lr);
  if (nb::isinstance<symx::Tensor>(lr)) return nb::cast<symx::Tensor>(lr);
  if (PyFloat_Check(lr.ptr()) || (PyLong_Check(lr.ptr()) && !PyBool_Check(lr.ptr()))) return nb::cast<double>(lr);
  if (PyCallable_Check(lr.ptr())) return schedule_from_callable(lr);
  throw nb::type_error(
      "learning_rate must be a number, a symx.Tensor, a schedule (symx.optim.schedules) or a "
      "callable step -> rate");
}

// The learning_rate argument, with its own caster so that signatures and stubs name what it accepts.
struct LearningRateArg {
  so::LearningRate value;
};

so::Clipping clipping(std::optional<double> clip_norm, std::optional<double> clip_value) {
  return so::Clipping{clip_norm, clip_value};
}

}  // namespace

namespace nanobind::detail {
template <> struct type_caster<LearningRateArg> : deferred_error_value<LearningRateArg> {
  using Value = LearningRateArg;
  static constexpr auto Name = const_name(
      "float | symx._symx.Tensor | symx._symx.optim.schedules.Schedule | "
      "collections.abc.Callable[[symx._symx.Tensor], symx._symx.Tensor | float]");
  template <typename T_> using Cast = movable_cast_t<T_>;
  template <typename T_> static constexpr bool can_cast() { return true; }
  bool from_python(handle src, uint32_t, cleanup_list*) noexcept {
    return convert([&] { return LearningRateArg{learning_rate_from_python(src)}; });
  }
  static handle from_cpp(const LearningRateArg&, rv_policy, cleanup_list*) noexcept { return none().release(); }
};
}  // namespace nanobind::detail

namespace {

void bind_schedules(nb::module_& s) {
  nb::class_<ss::Schedule>(s, "Schedule", DOC(optim_schedules_Schedule))
      .def(
          "__init__", [](ss::Schedule* self, nb::callable fn) { new (self) ss::Schedule(schedule_from_callable(fn)); },
          "fn"_a, DOC(optim_schedules_Schedule_Schedule))
      .def(
          "__call__",
          [](const ss::Schedule& schedule, TensorArg step) {
            PyLocation here;
            return schedule(step.t);
          },
          "step"_a, DOC(optim_schedules_Schedule_call));
  s.def("constant", &ss::constant, "value"_a, DOC(optim_schedules_constant));
  s.def("linear", &ss::linear, "init_value"_a, "end_value"_a, "transition_steps"_a, DOC(optim_schedules_linear));
  s.def("piecewise_constant", &ss::piecewise_constant, "boundaries"_a, "values"_a,
        DOC(optim_schedules_piecewise_constant));
  s.def("exponential_decay", &ss::exponential_decay, "initial"_a, "decay_steps"_a, "decay_rate"_a,
        "staircase"_a = false, DOC(optim_schedules_exponential_decay));
  s.def("cosine_decay", &ss::cosine_decay, "initial"_a, "decay_steps"_a, "alpha"_a = 0.0,
        DOC(optim_schedules_cosine_decay));
  s.def("cosine_decay_restarts", &ss::cosine_decay_restarts, "initial"_a, "first_decay_steps"_a, "t_mul"_a = 2.0,
        "m_mul"_a = 1.0, "alpha"_a = 0.0, DOC(optim_schedules_cosine_decay_restarts));
  s.def("join", &ss::join, "schedules"_a, "boundaries"_a, DOC(optim_schedules_join));
  s.def("linear_warmup", &ss::linear_warmup, "schedule"_a, "warmup_steps"_a, "init_value"_a = 0.0,
        DOC(optim_schedules_linear_warmup));
}

void bind_optimizer_base(nb::module_& m) {
  nb::class_<so::Optimizer>(m, "Optimizer", DOC(optim_Optimizer))
      .def(
          "minimize",
          [](so::Optimizer& o, TensorArg loss, std::optional<TensorList> params) {
            PyLocation here;
            return o.minimize(loss.t, params ? params->v : std::vector<symx::Tensor>());
          },
          "loss"_a, "params"_a = nb::none(), DOC(optim_Optimizer_minimize))
      .def(
          "apply_gradients",
          [](so::Optimizer& o, TensorList grads, TensorList params) {
            PyLocation here;
            return o.apply_gradients(grads.v, params.v);
          },
          "grads"_a, "params"_a, DOC(optim_Optimizer_apply_gradients))
      .def_prop_ro(
          "step",
          [](const so::Optimizer& o) -> nb::object { return o.step().defined() ? nb::cast(o.step()) : nb::none(); },
          DOC(optim_Optimizer_step))
      .def(
          "learning_rate",
          [](const so::Optimizer& o) {
            PyLocation here;
            return o.learning_rate();
          },
          DOC(optim_Optimizer_learning_rate))
      .def_prop_ro("variables", &so::Optimizer::variables, DOC(optim_Optimizer_variables))
      .def_prop_ro(
          "name", [](const so::Optimizer& o) { return python_text(o.name()); }, DOC(optim_Optimizer_name));
}

void bind_optimizers(nb::module_& m) {
  nb::class_<so::SGD, so::Optimizer>(m, "SGD", DOC(optim_SGD))
      .def(
          "__init__",
          [](so::SGD* self, LearningRateArg lr, double momentum, double dampening, bool nesterov, double weight_decay,
             std::optional<double> clip_norm, std::optional<double> clip_value, std::string name) {
            new (self) so::SGD(std::move(lr.value), {momentum, dampening, nesterov, weight_decay,
                                                     clipping(clip_norm, clip_value), std::move(name)});
          },
          "learning_rate"_a, "momentum"_a = 0.0, "dampening"_a = 0.0, "nesterov"_a = false, "weight_decay"_a = 0.0,
          "clip_norm"_a = nb::none(), "clip_value"_a = nb::none(), "name"_a = "sgd", DOC(optim_SGDOptions));
  nb::class_<so::Adam, so::Optimizer>(m, "Adam", DOC(optim_Adam))
      .def(
          "__init__",
          [](so::Adam* self, LearningRateArg lr, double beta1, double beta2, double eps, double weight_decay,
             bool amsgrad, std::optional<double> clip_norm, std::optional<double> clip_value, std::string name) {
            new (self) so::Adam(std::move(lr.value), {beta1, beta2, eps, weight_decay, amsgrad,
                                                      clipping(clip_norm, clip_value), std::move(name)});
          },
          "learning_rate"_a = 1e-3, "beta1"_a = 0.9, "beta2"_a = 0.999, "eps"_a = 1e-8, "weight_decay"_a = 0.0,
          "amsgrad"_a = false, "clip_norm"_a = nb::none(), "clip_value"_a = nb::none(), "name"_a = "adam",
          DOC(optim_AdamOptions));
  nb::class_<so::AdamW, so::Adam>(m, "AdamW", DOC(optim_AdamW))
      .def(
          "__init__",
          [](so::AdamW* self, LearningRateArg lr, double beta1, double beta2, double eps, double weight_decay,
             bool amsgrad, std::optional<double> clip_norm, std::optional<double> clip_value, std::string name) {
            new (self) so::AdamW(std::move(lr.value), {beta1, beta2, eps, weight_decay, amsgrad,
                                                       clipping(clip_norm, clip_value), std::move(name)});
          },
          "learning_rate"_a = 1e-3, "beta1"_a = 0.9, "beta2"_a = 0.999, "eps"_a = 1e-8, "weight_decay"_a = 0.01,
          "amsgrad"_a = false, "clip_norm"_a = nb::none(), "clip_value"_a = nb::none(), "name"_a = "adamw",
          DOC(optim_AdamWOptions));
  nb::class_<so::RMSprop, so::Optimizer>(m, "RMSprop", DOC(optim_RMSprop))
      .def(
          "__init__",
          [](so::RMSprop* self, LearningRateArg lr, double alpha, double eps, double momentum, bool centered,
             double weight_decay, std::optional<double> clip_norm, std::optional<double> clip_value, std::string name) {
            new (self) so::RMSprop(std::move(lr.value), {alpha, eps, momentum, centered, weight_decay,
                                                         clipping(clip_norm, clip_value), std::move(name)});
          },
          "learning_rate"_a = 0.01, "alpha"_a = 0.99, "eps"_a = 1e-8, "momentum"_a = 0.0, "centered"_a = false,
          "weight_decay"_a = 0.0, "clip_norm"_a = nb::none(), "clip_value"_a = nb::none(), "name"_a = "rmsprop",
          DOC(optim_RMSpropOptions));
  nb::class_<so::Adagrad, so::Optimizer>(m, "Adagrad", DOC(optim_Adagrad))
      .def(
          "__init__",
          [](so::Adagrad* self, LearningRateArg lr, double lr_decay, double initial_accumulator_value, double eps,
             double weight_decay, std::optional<double> clip_norm, std::optional<double> clip_value, std::string name) {
            new (self) so::Adagrad(std::move(lr.value), {lr_decay, initial_accumulator_value, eps, weight_decay,
                                                         clipping(clip_norm, clip_value), std::move(name)});
          },
          "learning_rate"_a = 0.01, "lr_decay"_a = 0.0, "initial_accumulator_value"_a = 0.0, "eps"_a = 1e-10,
          "weight_decay"_a = 0.0, "clip_norm"_a = nb::none(), "clip_value"_a = nb::none(), "name"_a = "adagrad",
          DOC(optim_AdagradOptions));
}

}  // namespace

void bind_optim(nb::module_& m) {
  nb::module_ schedules = m.def_submodule("schedules", "Learning-rate schedules: functions of the step.");
  bind_schedules(schedules);
  bind_optimizer_base(m);
  bind_optimizers(m);
  m.def("global_norm", LOC(so::global_norm), "grads"_a, DOC(optim_global_norm));
  m.def("clip_by_global_norm", LOC(so::clip_by_global_norm), "grads"_a, "max_norm"_a, DOC(optim_clip_by_global_norm));
  m.def("clip_by_value", LOC(so::clip_by_value), "grads"_a, "clip_value"_a, DOC(optim_clip_by_value));
}

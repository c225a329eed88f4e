// python/binding_ops.cpp: the NumPy-like functions of the engine (symx/ops.hpp): elementwise,
// reductions, shape and indexing, matrix products; and the symx.linalg and symx.random submodules.
// Most are one line: LOC binds the C++ function with the Python conversions of its parameters.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "binding_common.hpp"

void bind_ops(nb::module_& m) {
  // ---- unary elementwise ----
#define SYMX_UNARY(name) m.def(#name, LOC(symx::name), "x"_a, DOC(name))
  SYMX_UNARY(negative);
  SYMX_UNARY(abs);
  SYMX_UNARY(sign);
  SYMX_UNARY(exp);
  SYMX_UNARY(expm1);
  SYMX_UNARY(log);
  SYMX_UNARY(log1p);
  SYMX_UNARY(sqrt);
  SYMX_UNARY(rsqrt);
  SYMX_UNARY(square);
  SYMX_UNARY(reciprocal);
  SYMX_UNARY(sin);
  SYMX_UNARY(cos);
  SYMX_UNARY(tan);
  SYMX_UNARY(tanh);
  SYMX_UNARY(arctan);
  SYMX_UNARY(sigmoid);
  SYMX_UNARY(erf);
  SYMX_UNARY(floor);
  SYMX_UNARY(ceil);
  SYMX_UNARY(round);
  SYMX_UNARY(logical_not);
  SYMX_UNARY(isnan);
  SYMX_UNARY(isfinite);
  SYMX_UNARY(stop_gradient);
  SYMX_UNARY(zeros_like);
  SYMX_UNARY(ones_like);
  SYMX_UNARY(bitwise_not);
  SYMX_UNARY(real);
  SYMX_UNARY(imag);
  SYMX_UNARY(conj);
  SYMX_UNARY(conjugate);
#undef SYMX_UNARY
  m.def("complex", LOC(symx::complex), "re"_a, "im"_a, DOC(complex));
  m.def("angle", LOC(symx::angle), "z"_a, "deg"_a = false, DOC(angle));
  m.attr("invert") = m.attr("bitwise_not");  // NumPy's other name
  m.def("cast", LOC(symx::cast), "x"_a, "dtype"_a, DOC(cast));
  m.def("astype", LOC(symx::astype), "x"_a, "dtype"_a, DOC(astype));

  // ---- binary elementwise ----
#define SYMX_BINARY(name) m.def(#name, LOC(symx::name), "x1"_a, "x2"_a, DOC(name))
  SYMX_BINARY(add);
  SYMX_BINARY(subtract);
  SYMX_BINARY(multiply);
  SYMX_BINARY(divide);
  SYMX_BINARY(power);
  SYMX_BINARY(maximum);
  SYMX_BINARY(minimum);
  SYMX_BINARY(mod);
  SYMX_BINARY(arctan2);
  SYMX_BINARY(equal);
  SYMX_BINARY(not_equal);
  SYMX_BINARY(less);
  SYMX_BINARY(less_equal);
  SYMX_BINARY(greater);
  SYMX_BINARY(greater_equal);
  SYMX_BINARY(logical_and);
  SYMX_BINARY(logical_or);
  SYMX_BINARY(floor_divide);
  SYMX_BINARY(bitwise_and);
  SYMX_BINARY(bitwise_or);
  SYMX_BINARY(bitwise_xor);
  SYMX_BINARY(left_shift);
  SYMX_BINARY(right_shift);
#undef SYMX_BINARY
  m.def("where", LOC(symx::where), "condition"_a, "x"_a, "y"_a, DOC(where));
  m.def("clip", LOC(symx::clip), "a"_a, "a_min"_a, "a_max"_a, DOC(clip));

  // ---- reductions ----
#define SYMX_REDUCE(name) m.def(#name, LOC(symx::name), "a"_a, "axis"_a = nb::none(), "keepdims"_a = false, DOC(name))
  SYMX_REDUCE(sum);
  SYMX_REDUCE(mean);
  SYMX_REDUCE(prod);
  SYMX_REDUCE(max);
  SYMX_REDUCE(min);
  SYMX_REDUCE(logsumexp);
  SYMX_REDUCE(var);
  SYMX_REDUCE(std);
  SYMX_REDUCE(argmax);
  SYMX_REDUCE(argmin);
#undef SYMX_REDUCE
  m.def("cumsum", LOC(symx::cumsum), "a"_a, "axis"_a = nb::none(), DOC(cumsum));

  // ---- shape and indexing ----
  m.def("reshape", LOC(symx::reshape), "a"_a, "shape"_a, DOC(reshape));
  m.def("transpose", LOC(symx::transpose), "a"_a, "axes"_a = nb::none(), DOC(transpose));
  m.def("expand_dims", LOC(symx::expand_dims), "a"_a, "axis"_a, DOC(expand_dims));
  m.def("squeeze", LOC(symx::squeeze), "a"_a, "axis"_a = nb::none(), DOC(squeeze));
  m.def("broadcast_to", LOC(symx::broadcast_to), "array"_a, "shape"_a, DOC(broadcast_to));
  m.def("concatenate", LOC(symx::concatenate), "arrays"_a, "axis"_a = 0, DOC(concatenate));
  m.def("stack", LOC(symx::stack), "arrays"_a, "axis"_a = 0, DOC(stack));
  m.def(
      "split",
      [](TensorArg x, nb::handle indices_or_sections, AxisInt axis_arg) {
        const int axis = axis_arg.v;
        if (PyIndex_Check(indices_or_sections.ptr())) {
          auto sections = nb::cast<std::int64_t>(indices_or_sections);
          PyLocation here;
          return symx::split(x.t, sections, axis);
        }
        auto indices = int_list(indices_or_sections);
        PyLocation here;
        return symx::split(x.t, indices, axis);
      },
      "ary"_a, "indices_or_sections"_a, "axis"_a = 0, DOC(split));
  m.def(
      "slice",
      [](TensorArg x, nb::handle key) {
        auto index = index_from_python(key);
        PyLocation here;
        return symx::slice(x.t, index);
      },
      "a"_a, nb::arg("index").none(), DOC(slice));
  m.def("take", LOC(symx::take), "a"_a, "indices"_a, "axis"_a = nb::none(), DOC(take));
  m.def("take_along_axis", LOC(symx::take_along_axis), "arr"_a, "indices"_a, "axis"_a, DOC(take_along_axis));
  m.def("pad", LOC(symx::pad), "array"_a, "pad_width"_a, "constant_values"_a = 0.0, DOC(pad));
  m.def("flip", LOC(symx::flip), "m"_a, "axis"_a = nb::none(), DOC(flip));
  m.def("tile", LOC(symx::tile), "A"_a, "reps"_a, DOC(tile));
  m.def("repeat", LOC(symx::repeat), "a"_a, "repeats"_a, "axis"_a = nb::none(), DOC(repeat));
  m.def("one_hot", LOC(symx::one_hot), "labels"_a, "depth"_a, "dtype"_a = symx::DType::f32, DOC(one_hot));
  m.def("eye", LOC(symx::eye), "N"_a, "M"_a = nb::none(), "k"_a = 0, "dtype"_a = symx::DType::f32, DOC(eye));
  m.def("linspace", LOC(symx::linspace), "start"_a, "stop"_a, "num"_a = 50, "endpoint"_a = true,
        "dtype"_a = symx::DType::f32, DOC(linspace));
  m.def(
      "arange",
      [](double start, std::optional<double> stop, double step, symx::DType dtype) {
        PyLocation here;
        return stop ? symx::arange(start, *stop, step, dtype) : symx::arange(0, start, step, dtype);
      },
      "start"_a, "stop"_a = nb::none(), "step"_a = 1.0, "dtype"_a = symx::DType::f32, DOC(arange));
  m.def("zeros", LOC(symx::zeros), "shape"_a, "dtype"_a = symx::DType::f32, DOC(zeros));
  m.def("ones", LOC(symx::ones), "shape"_a, "dtype"_a = symx::DType::f32, DOC(ones));
  m.def(
      "meshgrid",
      [](nb::args xs, std::string indexing) {
        auto list = tensor_list(xs);
        PyLocation here;
        return symx::meshgrid(list, indexing);
      },
      "xi"_a, "indexing"_a = "xy", DOC(meshgrid));

  // ---- linear algebra ----
  m.def("matmul", LOC(symx::matmul), "x1"_a, "x2"_a, DOC(matmul));
  m.def("dot", LOC(symx::dot), "a"_a, "b"_a, DOC(dot));
  m.def("outer", LOC(symx::outer), "a"_a, "b"_a, DOC(outer));
}

void bind_linalg(nb::module_& linalg) {
  namespace lin = symx::linalg;
  linalg.def("inv", LOC(lin::inv), "a"_a, DOC(linalg_inv));
  linalg.def("det", LOC(lin::det), "a"_a, DOC(linalg_det));
  linalg.def("slogdet", LOC(lin::slogdet), "a"_a, DOC(linalg_slogdet));
  linalg.def("cholesky", LOC(lin::cholesky), "a"_a, DOC(linalg_cholesky));
  linalg.def("solve", LOC(lin::solve), "a"_a, "b"_a, DOC(linalg_solve));
  linalg.def("triangular_solve", LOC(lin::triangular_solve), "a"_a, "b"_a, "lower"_a = true, "transpose_a"_a = false,
             "unit_diagonal"_a = false, DOC(linalg_triangular_solve));
  // NumPy's ord: None, a number (inf included) or "fro"/"nuc"; C++ spells it as a string.
  auto ord_text = [](nb::handle ord, const char* none) -> std::string {
    if (ord.is_none()) return none;
    if (nb::isinstance<nb::str>(ord)) return nb::cast<std::string>(ord);
    if (PyBool_Check(ord.ptr()) || !PyNumber_Check(ord.ptr()))
      throw nb::type_error("ord must be None, a number (inf included) or 'fro'/'nuc'");
    return nb::cast<std::string>(nb::str(nb::float_(nb::borrow(ord))));
  };
  linalg.def("singular_vectors_power_iteration", LOC(lin::singular_vectors_power_iteration), "weight"_a, "axis"_a = 0,
             "n_iters"_a = 1, DOC(linalg_singular_vectors_power_iteration));
  linalg.def(
      "norm",
      [ord_text](TensorArg x, nb::handle ord, nb::handle axis, bool keepdims) {
        std::optional<std::vector<std::int64_t>> axes;
        if (!axis.is_none())
          axes = PyLong_Check(axis.ptr()) ? std::vector<std::int64_t>{nb::cast<std::int64_t>(axis)} : int_list(axis);
        const std::string o = ord_text(ord, "");
        PyLocation here;
        return lin::norm(x.t, o, axes, keepdims);
      },
      "x"_a, "ord"_a.none() = nb::none(), "axis"_a.none() = nb::none(), "keepdims"_a = false, DOC(linalg_norm));
  linalg.def(
      "vector_norm",
      [](TensorArg x, symx::Axes axis, bool keepdims, nb::handle ord) {
        // numpy.linalg.vector_norm's ord is a number (inf and -inf included); C++ takes a double.
        if (PyBool_Check(ord.ptr()) || !PyNumber_Check(ord.ptr()))
          throw nb::value_error(("vector_norm: invalid norm order " + nb::cast<std::string>(nb::repr(ord)) +
                                 " (vector norms take a number p, inf or -inf; 'fro' and 'nuc' are matrix norms)")
                                    .c_str());
        const double p = nb::cast<double>(nb::float_(nb::borrow(ord)));
        PyLocation here;
        return lin::vector_norm(x.t, p, axis, keepdims);
      },
      "x"_a, nb::kw_only(), "axis"_a = nb::none(), "keepdims"_a = false, "ord"_a = 2, DOC(linalg_vector_norm));
  linalg.def(
      "matrix_norm",
      [ord_text](TensorArg x, bool keepdims, nb::handle ord) {
        const std::string o = ord_text(ord, "fro");
        PyLocation here;
        return lin::matrix_norm(x.t, o, {-2, -1}, keepdims);
      },
      "x"_a, nb::kw_only(), "keepdims"_a = false, "ord"_a = "fro", DOC(linalg_matrix_norm));
}

void bind_random(nb::module_& random) {
  namespace rnd = symx::random;
  using symx::DType;
  using symx::Shape;
  using Seed = SeedArg;
  nb::class_<rnd::Seed>(random, "Seed", DOC(random_Seed))
      .def(nb::init<std::uint64_t>(), "seed"_a)
      .def("__bool__", [](const rnd::Seed& s) { return static_cast<bool>(s); })
      .def_prop_ro(
          "seed", [](const rnd::Seed& s) { return *s; }, "The seed's number.")
      .def_prop_ro("state", &rnd::Seed::state, DOC(random_Seed_state))
      .def("update", &rnd::Seed::update, "other_seed"_a = nb::none(), DOC(random_Seed_update))
      .def("__repr__", [](const rnd::Seed& s) { return "Seed(" + std::to_string(*s) + ")"; });
  auto opt_shape = [](nb::handle h) -> std::optional<Shape> {
    if (h.is_none()) return std::nullopt;
    return int_list(h);
  };
  random.def("seed", &rnd::seed, "seed"_a, DOC(random_seed));
  random.def(
      "uniform",
      [](IntList shape, double low, double high, DType dtype, Seed seed) {
        PyLocation here;
        return rnd::uniform(shape.v, low, high, dtype, seed);
      },
      "shape"_a, "low"_a = 0.0, "high"_a = 1.0, "dtype"_a = DType::f32, "seed"_a.none() = nb::none(),
      DOC(random_uniform));
  random.def(
      "normal",
      [](IntList shape, double mean, double stddev, DType dtype, Seed seed) {
        PyLocation here;
        return rnd::normal(shape.v, mean, stddev, dtype, seed);
      },
      "shape"_a, "mean"_a = 0.0, "stddev"_a = 1.0, "dtype"_a = DType::f32, "seed"_a.none() = nb::none(),
      DOC(random_normal));
  random.def(
      "truncated_normal",
      [](IntList shape, double mean, double stddev, double lower, double upper, DType dtype, Seed seed) {
        PyLocation here;
        return rnd::truncated_normal(shape.v, mean, stddev, lower, upper, dtype, seed);
      },
      "shape"_a, "mean"_a = 0.0, "stddev"_a = 1.0, "lower"_a = -2.0, "upper"_a = 2.0, "dtype"_a = DType::f32,
      "seed"_a.none() = nb::none(), DOC(random_truncated_normal));
  random.def(
      "bernoulli",
      [](IntList shape, double p, DType dtype, Seed seed) {
        PyLocation here;
        return rnd::bernoulli(shape.v, p, dtype, seed);
      },
      "shape"_a, "p"_a = 0.5, "dtype"_a = DType::b8, "seed"_a.none() = nb::none(), DOC(random_bernoulli));
  random.def(
      "randint",
      [](IntList shape, std::int64_t low, std::int64_t high, DType dtype, Seed seed) {
        PyLocation here;
        return rnd::randint(shape.v, low, high, dtype, seed);
      },
      "shape"_a, "low"_a, "high"_a, "dtype"_a = DType::i64, "seed"_a.none() = nb::none(), DOC(random_randint));
  random.def(
      "permutation",
      [](std::int64_t n, Seed seed) {
        PyLocation here;
        return rnd::permutation(n, seed);
      },
      "n"_a, "seed"_a.none() = nb::none(), DOC(random_permutation));
#define SYMX_STANDARD(name, doc)                  \
  random.def(                                     \
      #name,                                      \
      [](IntList shape, DType dtype, Seed seed) { \
        PyLocation here;                          \
        return rnd::name(shape.v, dtype, seed);   \
      },                                          \
      "shape"_a = nb::tuple(), "dtype"_a = DType::f32, "seed"_a.none() = nb::none(), doc)
  SYMX_STANDARD(cauchy, DOC(random_cauchy));
  SYMX_STANDARD(exponential, DOC(random_exponential));
  SYMX_STANDARD(gumbel, DOC(random_gumbel));
  SYMX_STANDARD(laplace, DOC(random_laplace));
  SYMX_STANDARD(logistic, DOC(random_logistic));
#undef SYMX_STANDARD
#define SYMX_ONE_PARAM(name, param, dflt, doc)                                        \
  random.def(                                                                         \
      #name,                                                                          \
      [opt_shape](const symx::Operand& p, nb::handle shape, DType dtype, Seed seed) { \
        auto s = opt_shape(shape);                                                    \
        PyLocation here;                                                              \
        return rnd::name(p, s, dtype, seed);                                          \
      },                                                                              \
      param##_a, "shape"_a = nb::none(), "dtype"_a = dflt, "seed"_a.none() = nb::none(), doc)
  SYMX_ONE_PARAM(pareto, "b", DType::f32, DOC(random_pareto));
  SYMX_ONE_PARAM(gamma, "a", DType::f32, DOC(random_gamma));
  SYMX_ONE_PARAM(poisson, "lam", DType::i64, DOC(random_poisson));
  SYMX_ONE_PARAM(t, "df", DType::f32, DOC(random_t));
#undef SYMX_ONE_PARAM
  random.def(
      "beta",
      [opt_shape](const symx::Operand& a, const symx::Operand& b, nb::handle shape, DType dtype, Seed seed) {
        auto s = opt_shape(shape);
        PyLocation here;
        return rnd::beta(a, b, s, dtype, seed);
      },
      "a"_a, "b"_a, "shape"_a = nb::none(), "dtype"_a = DType::f32, "seed"_a.none() = nb::none(), DOC(random_beta));
  random.def(
      "dirichlet",
      [opt_shape](const TensorArg& alpha, nb::handle shape, DType dtype, Seed seed) {
        auto s = opt_shape(shape);
        PyLocation here;
        return rnd::dirichlet(alpha.t, s, dtype, seed);
      },
      "alpha"_a, "shape"_a = nb::none(), "dtype"_a = DType::f32, "seed"_a.none() = nb::none(), DOC(random_dirichlet));
  random.def(
      "categorical",
      [opt_shape](const TensorArg& logits, AxisInt axis, nb::handle shape, Seed seed) {
        auto s = opt_shape(shape);
        PyLocation here;
        return rnd::categorical(logits.t, axis.v, s, seed);
      },
      "logits"_a, "axis"_a = -1, "shape"_a = nb::none(), "seed"_a.none() = nb::none(), DOC(random_categorical));
  random.def(
      "multivariate_normal",
      [opt_shape](const TensorArg& mean, const TensorArg& cov, nb::handle shape, DType dtype, const std::string& method,
                  Seed seed) {
        auto s = opt_shape(shape);
        PyLocation here;
        return rnd::multivariate_normal(mean.t, cov.t, s, dtype, method, seed);
      },
      "mean"_a, "cov"_a, "shape"_a = nb::none(), "dtype"_a = DType::f32, "method"_a = "cholesky",
      "seed"_a.none() = nb::none(), DOC(random_multivariate_normal));
  random.def(
      "choice",
      [](nb::handle a, IntList shape, bool replace, nb::handle p, AxisInt axis, Seed seed) {
        symx::Tensor at = PyLong_Check(a.ptr()) && !PyBool_Check(a.ptr())
                              ? symx::constant(static_cast<double>(nb::cast<std::int64_t>(a)), DType::i64)
                              : tensor_from_python(a);
        std::optional<symx::Tensor> pt;
        if (!p.is_none()) pt = tensor_from_python(p);
        PyLocation here;
        return rnd::choice(at, shape.v, replace, pt, axis.v, seed);
      },
      "a"_a, "shape"_a = nb::tuple(), "replace"_a = true, "p"_a = nb::none(), "axis"_a = 0,
      "seed"_a.none() = nb::none(), DOC(random_choice));
  random.def(
      "shuffle",
      [](const TensorArg& x, AxisInt axis, Seed seed) {
        PyLocation here;
        return rnd::shuffle(x.t, axis.v, seed);
      },
      "x"_a, "axis"_a = 0, "seed"_a.none() = nb::none(), DOC(random_shuffle));
}

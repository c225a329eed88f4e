// symx::nn activations (issue 9): values against their defining formulas evaluated in double here,
// gradients against float64 finite differences, finiteness at +-1e4 in float32, errors, and values
// and gradients against PyTorch's (golden files, also read by tests/python/test_nn_activations.py).
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "../cpp/test_util.hpp"
#include "symx/nn/activations.hpp"

namespace sx = symx;
using sx::testing::expect_close;
using sx::testing::expect_error;
using sx::testing::expect_gradients_match;

namespace {

const std::vector<double> kPoints = {-1e4, -30, -5.5, -3.7, -2.4, -1.3, -0.4, 0.2, 0.7, 1.9, 2.6, 4.5, 30, 1e4};

sx::Array points(sx::DType dtype = sx::f64) {
  return sx::Array::from_vector<double>(kPoints, {static_cast<std::int64_t>(kPoints.size())}).astype(dtype);
}

double sigmoid(double x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }

struct Elementwise {
  const char* name;
  std::function<sx::Tensor(const sx::Tensor&)> op;
  std::function<double(double)> formula;
};

std::vector<Elementwise> elementwise_cases() {
  const double alpha = 1.6732632423543772848170429916717, scale = 1.0507009873554804934193349852946;
  auto relu6 = [](double x) { return std::min(std::max(x, 0.0), 6.0); };
  return {
      {"selu", [](const sx::Tensor& x) { return sx::nn::selu(x); },
       [=](double x) { return scale * (x > 0 ? x : alpha * std::expm1(x)); }},
      {"celu", [](const sx::Tensor& x) { return sx::nn::celu(x, 0.5); },
       [](double x) { return std::max(x, 0.0) + std::min(0.0, 0.5 * std::expm1(x / 0.5)); }},
      {"hard_sigmoid", [](const sx::Tensor& x) { return sx::nn::hard_sigmoid(x); },
       [=](double x) { return relu6(x + 3) / 6; }},
      {"hard_silu", [](const sx::Tensor& x) { return sx::nn::hard_silu(x); },
       [=](double x) { return x * relu6(x + 3) / 6; }},
      {"hard_swish", [](const sx::Tensor& x) { return sx::nn::hard_swish(x); },
       [=](double x) { return x * relu6(x + 3) / 6; }},
      {"soft_sign", [](const sx::Tensor& x) { return sx::nn::soft_sign(x); },
       [](double x) { return x / (1 + std::fabs(x)); }},
      {"log_sigmoid", [](const sx::Tensor& x) { return sx::nn::log_sigmoid(x); },
       [](double x) { return x > 0 ? -std::log1p(std::exp(-x)) : x - std::log1p(std::exp(x)); }},
      {"relu6", [](const sx::Tensor& x) { return sx::nn::relu6(x); }, relu6},
      {"silu", [](const sx::Tensor& x) { return sx::nn::silu(x); }, [](double x) { return x * sigmoid(x); }},
      {"hard_tanh", [](const sx::Tensor& x) { return sx::nn::hard_tanh(x); },
       [](double x) { return std::min(std::max(x, -1.0), 1.0); }},
  };
}

sx::Array map(const sx::Array& a, const std::function<double(double)>& f) {
  sx::Array out(a.shape(), sx::f64);
  for (std::int64_t i = 0; i < a.size(); ++i) out.set_flat(i, f(a.get_flat(i)));
  return out;
}

}  // namespace

TEST(NnActivations, ElementwiseValuesMatchTheirFormulas) {
  for (const auto& c : elementwise_cases()) {
    SCOPED_TRACE(c.name);
    sx::reset_default_graph();
    sx::Array x = points();
    sx::Tensor y = c.op(sx::constant(x));
    EXPECT_EQ(y.dtype(), sx::f64);
    expect_close(y.eval(), map(x, c.formula), 1e-13, 1e-300);
  }
}

TEST(NnActivations, ElementwiseGradientsMatchFiniteDifferences) {
  // Moderate points away from the kinks (0, +-1, +-3, 6), where central differences are exact enough.
  sx::Array x = sx::Array::from_vector<double>({-5.5, -3.7, -2.4, -1.3, -0.4, 0.2, 0.7, 1.9, 2.6, 4.5}, {10});
  for (const auto& c : elementwise_cases()) {
    SCOPED_TRACE(c.name);
    sx::reset_default_graph();
    expect_gradients_match([&](const std::vector<sx::Tensor>& in) { return c.op(in[0]); }, {x}, 1e-7, 1e-9);
  }
}

TEST(NnActivations, Float32StaysFiniteAtExtremes) {
  std::vector<std::pair<const char*, std::function<sx::Tensor(const sx::Tensor&)>>> all;
  for (const auto& c : elementwise_cases()) all.emplace_back(c.name, c.op);
  all.emplace_back("glu", [](const sx::Tensor& x) { return sx::nn::glu(x, 0); });
  all.emplace_back("normalize", [](const sx::Tensor& x) { return sx::nn::normalize(x, 2, 0); });
  all.emplace_back("normalize_3", [](const sx::Tensor& x) { return sx::nn::normalize(x, 3, 0); });
  // One compiled function for all of them (each compilation takes a while).
  sx::reset_default_graph();
  sx::Tensor x = sx::placeholder({14}, sx::f32, "x");
  std::vector<sx::Tensor> outputs;
  for (const auto& [name, op] : all) {
    sx::Tensor y = op(x);
    sx::Tensor r = sx::constant(sx::testing::random_array(y.shape(), -1, 1, 3, sx::f32));
    outputs.push_back(y);
    outputs.push_back(sx::grad(sx::sum(y * r), {x})[0]);
  }
  auto results = sx::function({x}, outputs)({points(sx::f32)});
  for (std::size_t k = 0; k < results.size(); ++k) {
    SCOPED_TRACE(std::string(all[k / 2].first) + (k % 2 ? " gradient" : " value"));
    for (std::int64_t i = 0; i < results[k].size(); ++i)
      EXPECT_TRUE(std::isfinite(results[k].get_flat(i))) << "element " << i;
  }
}

TEST(NnActivations, GluHalvesTheAxis) {
  sx::Array x = sx::testing::random_array({3, 4}, -3, 3, 1);
  sx::Tensor y = sx::nn::glu(sx::constant(x));
  EXPECT_EQ(y.shape(), (sx::Shape{3, 2}));
  sx::Array expected({3, 2}, sx::f64);
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 2; ++j)
      expected.set_flat(i * 2 + j, x.get_flat(i * 4 + j) * sigmoid(x.get_flat(i * 4 + j + 2)));
  expect_close(y.eval(), expected, 1e-14, 1e-300);
  EXPECT_EQ(sx::nn::glu(sx::constant(sx::testing::random_array({4, 3})), 0).shape(), (sx::Shape{2, 3}));
  expect_gradients_match([](const std::vector<sx::Tensor>& in) { return sx::nn::glu(in[0], -1); }, {x}, 1e-7, 1e-9);
}

TEST(NnActivations, NormalizeMatchesTheNormFormula) {
  sx::Array x = sx::testing::random_array({3, 5}, -2, 2, 2);
  for (double ord : {1.0, 2.0, 3.0, std::numeric_limits<double>::infinity()}) {
    SCOPED_TRACE("ord " + std::to_string(ord));
    sx::reset_default_graph();
    sx::Array expected({3, 5}, sx::f64);
    for (std::int64_t i = 0; i < 3; ++i) {
      double norm = 0;
      for (std::int64_t j = 0; j < 5; ++j) {
        double v = std::fabs(x.get_flat(i * 5 + j));
        norm = std::isinf(ord) ? std::max(norm, v) : norm + std::pow(v, ord);
      }
      if (!std::isinf(ord)) norm = std::pow(norm, 1 / ord);
      for (std::int64_t j = 0; j < 5; ++j) expected.set_flat(i * 5 + j, x.get_flat(i * 5 + j) / norm);
    }
    expect_close(sx::nn::normalize(sx::constant(x), ord).eval(), expected, 1e-13, 1e-300);
    expect_gradients_match([&](const std::vector<sx::Tensor>& in) { return sx::nn::normalize(in[0], ord); }, {x}, 1e-6,
                           1e-8);
  }
}

TEST(NnActivations, NormalizeOfAZeroSliceIsZeroWithAFiniteGradient) {
  sx::Tensor x = sx::placeholder({2, 3}, sx::f64, "x");
  sx::Tensor y = sx::nn::normalize(x, 2, -1, 1e-3);
  sx::Tensor dx = sx::grad(sx::sum(y), {x})[0];
  sx::Array value = sx::Array::from_vector<double>({0, 0, 0, 3, 0, 4}, {2, 3});
  expect_close(y.eval({{x, value}}), {0, 0, 0, 0.6, 0, 0.8}, 1e-15, 0);
  // Below eps the denominator is the constant eps: the gradient of sum(y) is 1 / eps per element.
  sx::Array g = dx.eval({{x, value}});
  for (std::int64_t i = 0; i < 3; ++i) EXPECT_NEAR(g.get_flat(i), 1e3, 1e-9);
}

TEST(NnActivations, ErrorsNameTheFunctionAndTheArgument) {
  sx::reset_default_graph();
  sx::Tensor x = sx::placeholder({3, 5}, sx::f32, "feat");
  int line = __LINE__ + 1;
  expect_error<sx::ShapeError>([&] { sx::nn::glu(x); }, {"glu: axis -1 of x (shape (3, 5), float32) has odd size 5",
                                                         "test_activations.cpp:" + std::to_string(line), "even size"});
  expect_error<sx::ShapeError>([&] { sx::nn::glu(x, 2); }, {"glu: axis 2 is out of range", "[-2, 2)"});
  expect_error<sx::ShapeError>([&] { sx::nn::normalize(x, 2, -3); }, {"normalize: axis -3 is out of range"});
  expect_error<sx::ValueError>([&] { sx::nn::normalize(x, 0.5); }, {"normalize: ord is 0.5", "at least 1"});
  expect_error<sx::ValueError>([&] { sx::nn::celu(x, -1); }, {"celu: alpha is -1", "positive"});
}

// ---- against PyTorch: the golden files of tests/golden/golden_activations.py (float64) ----

namespace {

using Golden = std::map<std::string, sx::Array>;

// tests/golden/<file>: from SYMX_GOLDEN_DIR (set by ctest), else relative to the repository root.
Golden read_activation_golden(const std::string& file) {
  const char* dir = std::getenv("SYMX_GOLDEN_DIR");
  return sx::load_npz((dir ? std::string(dir) : std::string("tests/golden")) + "/" + file);
}

double parameter(const Golden& g, const char* key) { return g.at(key).astype(sx::f64).get_flat(0); }

// The symx function of a golden case, with the parameters stored in its file.
sx::Tensor apply_case(const std::string& name, const sx::Tensor& x, const Golden& g) {
  if (name.rfind("celu", 0) == 0) return sx::nn::celu(x, parameter(g, "alpha"));
  if (name.rfind("glu", 0) == 0) return sx::nn::glu(x, static_cast<int>(parameter(g, "axis")));
  if (name.rfind("normalize", 0) == 0)
    return sx::nn::normalize(x, parameter(g, "ord"), static_cast<int>(parameter(g, "axis")), parameter(g, "eps"));
  for (const auto& c : elementwise_cases())
    if (name == c.name) return c.op(x);
  ADD_FAILURE() << "no symx function for the golden case " << name;
  return x;
}

}  // namespace

TEST(NnActivations, ValuesAndGradientsMatchPyTorch) {
  const std::vector<std::string> cases = {"relu6",
                                          "silu",
                                          "hard_tanh",
                                          "selu",
                                          "celu",
                                          "celu_alpha0.5",
                                          "hard_sigmoid",
                                          "hard_silu",
                                          "soft_sign",
                                          "log_sigmoid",
                                          "glu",
                                          "glu_axis0",
                                          "normalize",
                                          "normalize_ord1",
                                          "normalize_ord3_axis0",
                                          "normalize_inf",
                                          "normalize_zero_rows"};
  for (const auto& name : cases) {
    SCOPED_TRACE(name);
    sx::reset_default_graph();
    Golden g = read_activation_golden("activations_" + name + ".npz");
    sx::Tensor x = sx::placeholder(g.at("x").shape(), sx::f64, "x");
    sx::Tensor y = apply_case(name, x, g);
    sx::Tensor dx = sx::grad(sx::sum(y * sx::constant(g.at("r"))), {x})[0];
    expect_close(y.eval({{x, g.at("x")}}), g.at("y"), 1e-10, 1e-300);
    expect_close(dx.eval({{x, g.at("x")}}), g.at("dx"), 1e-10, 1e-12);
  }
}

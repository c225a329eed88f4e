// symx::optim: optimizers against torch.optim trajectories (golden files written by
// tests/golden/golden_optim.py), Rosenbrock's minimum, state saved and restored, clipping against
// hand values, and the errors a user meets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include <symx/optim.hpp>
#include <symx/symx.hpp>

namespace sx = symx;
namespace optim = symx::optim;
namespace fs = std::filesystem;

namespace {

// ---- golden files ----

// Set by ctest; by hand: SYMX_GOLDEN_DIR=tests/golden build/bin/symx_nn_tests.
fs::path golden_dir() {
  const char* dir = std::getenv("SYMX_GOLDEN_DIR");
  fs::path path = dir ? fs::path(dir) : fs::path(__FILE__).parent_path().parent_path() / "golden";
  if (!fs::is_directory(path)) ADD_FAILURE() << "no golden files in " << path << ": set SYMX_GOLDEN_DIR=tests/golden";
  return path;
}

struct Problem {
  sx::Tensor w, z, loss;
};

double hp(const std::map<std::string, sx::Array>& data, const std::string& name, double otherwise) {
  auto it = data.find("hp_" + name);
  return it == data.end() ? otherwise : it->second.item<double>();
}

sx::Array row(const sx::Array& a, std::int64_t i) {
  std::int64_t n = a.shape()[1];
  return sx::Array::from_buffer(a.data<double>() + i * n, {n}, sx::DType::f64);
}

std::unique_ptr<optim::Optimizer> optimizer_for(const std::string& kind, const std::map<std::string, sx::Array>& d) {
  optim::LearningRate lr = hp(d, "learning_rate", 0);
  if (d.count("hp_decay_rate"))  // torch's ExponentialLR(gamma), stepped after every update
    lr = optim::schedules::exponential_decay(hp(d, "learning_rate", 0), 1, hp(d, "decay_rate", 1));
  optim::Clipping clip;
  if (d.count("hp_clip_norm")) clip.clip_norm = hp(d, "clip_norm", 0);
  if (d.count("hp_clip_value")) clip.clip_value = hp(d, "clip_value", 0);
  const double wd = hp(d, "weight_decay", 0);
  if (kind == "sgd")
    return std::make_unique<optim::SGD>(lr, optim::SGDOptions{.momentum = hp(d, "momentum", 0),
                                                              .dampening = hp(d, "dampening", 0),
                                                              .nesterov = hp(d, "nesterov", 0) != 0,
                                                              .weight_decay = wd,
                                                              .clipping = clip});
  if (kind == "adam")
    return std::make_unique<optim::Adam>(lr, optim::AdamOptions{.beta1 = hp(d, "beta1", 0.9),
                                                                .beta2 = hp(d, "beta2", 0.999),
                                                                .eps = hp(d, "eps", 1e-8),
                                                                .weight_decay = wd,
                                                                .amsgrad = hp(d, "amsgrad", 0) != 0,
                                                                .clipping = clip});
  if (kind == "adamw")
    return std::make_unique<optim::AdamW>(lr, optim::AdamWOptions{.beta1 = hp(d, "beta1", 0.9),
                                                                  .beta2 = hp(d, "beta2", 0.999),
                                                                  .eps = hp(d, "eps", 1e-8),
                                                                  .weight_decay = wd,
                                                                  .amsgrad = hp(d, "amsgrad", 0) != 0,
                                                                  .clipping = clip});
  if (kind == "rmsprop")
    return std::make_unique<optim::RMSprop>(lr, optim::RMSpropOptions{.alpha = hp(d, "alpha", 0.99),
                                                                      .eps = hp(d, "eps", 1e-8),
                                                                      .momentum = hp(d, "momentum", 0),
                                                                      .centered = hp(d, "centered", 0) != 0,
                                                                      .weight_decay = wd,
                                                                      .clipping = clip});
  if (kind == "adagrad")
    return std::make_unique<optim::Adagrad>(lr, optim::AdagradOptions{.lr_decay = hp(d, "lr_decay", 0),
                                                                      .initial_accumulator_value =
                                                                          hp(d, "initial_accumulator_value", 0),
                                                                      .eps = hp(d, "eps", 1e-10),
                                                                      .weight_decay = wd,
                                                                      .clipping = clip});
  ADD_FAILURE() << "unknown optimizer " << kind;
  return nullptr;
}

void expect_close(const sx::Array& actual, const sx::Array& expected, double rtol, double atol,
                  const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::int64_t i = 0; i < actual.size(); ++i) {
    double a = actual.get_flat(i), e = expected.get_flat(i);
    ASSERT_LE(std::abs(a - e), atol + rtol * std::abs(e)) << what << " [" << i << "]: " << a << " vs " << e;
  }
}

// The golden files' loss over w (3,) and z (2,) from their first rows, float64:
// 0.5 ||A w - b||^2 + (1 - z0)^2 + 2 (z1 - z0^2)^2.
Problem build_problem(std::map<std::string, sx::Array>& data) {
  Problem p;
  p.w = sx::variable(row(data["w"], 0), "w");
  p.z = sx::variable(row(data["z"], 0), "z");
  sx::Tensor residual = sx::matmul(sx::constant(data["A"]), p.w) - sx::constant(data["b"]);
  p.loss =
      0.5 * sx::sum(sx::square(residual)) + sx::square(1.0 - p.z[0]) + 2.0 * sx::square(p.z[1] - sx::square(p.z[0]));
  return p;
}

class Optim : public ::testing::Test {
 protected:
  void SetUp() override { sx::reset_default_graph(); }
  void TearDown() override { sx::reset_default_graph(); }
};

}  // namespace

TEST_F(Optim, MatchesTorchOptimStepForStep) {
  int cases = 0;
  std::vector<std::string> kinds_seen;
  for (const auto& entry : fs::directory_iterator(golden_dir())) {
    std::string file = entry.path().filename().string();
    if (file.rfind("optim_", 0) != 0 || entry.path().extension() != ".npz") continue;
    std::string name = file.substr(6, file.size() - 10);
    std::string kind = name.substr(0, name.find('_'));
    SCOPED_TRACE(name);
    sx::reset_default_graph();
    auto data = sx::load_npz(entry.path().string());
    Problem p = build_problem(data);
    auto opt = optimizer_for(kind, data);
    ASSERT_TRUE(opt);
    opt->minimize(p.loss);
    sx::Function train = sx::function({}, {p.loss}, sx::get_updates());
    const std::int64_t steps = data["loss"].size();
    ASSERT_EQ(steps, 50);
    for (std::int64_t k = 0; k < steps; ++k) {
      double loss = train({})[0].item<double>();
      ASSERT_NEAR(loss, data["loss"].get_flat(k), 1e-9 * std::abs(data["loss"].get_flat(k))) << "step " << k;
      expect_close(p.w.value(), row(data["w"], k + 1), 1e-9, 1e-13, "w at step " + std::to_string(k));
      expect_close(p.z.value(), row(data["z"], k + 1), 1e-9, 1e-13, "z at step " + std::to_string(k));
    }
    EXPECT_EQ(opt->step().value().item<std::int64_t>(), steps);
    kinds_seen.push_back(kind);
    ++cases;
  }
  EXPECT_GE(cases, 17) << "golden files missing in " << golden_dir();
  for (const char* kind : {"sgd", "adam", "adamw", "rmsprop", "adagrad"})
    EXPECT_NE(std::find(kinds_seen.begin(), kinds_seen.end(), kind), kinds_seen.end()) << kind;
}

TEST_F(Optim, EachOptimizerReachesTheMinimumOfRosenbrock) {
  namespace sch = optim::schedules;
  struct Case {
    const char* name;
    std::function<std::unique_ptr<optim::Optimizer>()> make;
    int steps;
  };
  std::vector<Case> cases = {
      {"sgd_nesterov",
       [] { return std::make_unique<optim::SGD>(1e-3, optim::SGDOptions{.momentum = 0.9, .nesterov = true}); }, 3000},
      {"adam", [] { return std::make_unique<optim::Adam>(0.05); }, 2000},
      {"adamw", [] { return std::make_unique<optim::AdamW>(0.05, optim::AdamWOptions{.weight_decay = 1e-5}); }, 2000},
      {"rmsprop", [] { return std::make_unique<optim::RMSprop>(1e-3, optim::RMSpropOptions{.momentum = 0.9}); }, 3000},
      {"rmsprop_centered",
       [] { return std::make_unique<optim::RMSprop>(1e-4, optim::RMSpropOptions{.momentum = 0.9, .centered = true}); },
       3000},
      {"adagrad", [] { return std::make_unique<optim::Adagrad>(2.0); }, 20000},
      {"sgd_warmup_cosine",
       [] {
         return std::make_unique<optim::SGD>(sch::linear_warmup(sch::cosine_decay(1e-3, 4000, 0.5), 50),
                                             optim::SGDOptions{.momentum = 0.9});
       },
       2050},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    sx::reset_default_graph();
    sx::Tensor p = sx::variable(sx::Array::from_vector<double>({-1.5, 2.0}, {2}), "p");
    sx::Tensor loss = sx::square(1.0 - p[0]) + 100.0 * sx::square(p[1] - sx::square(p[0]));
    auto opt = c.make();
    opt->minimize(loss);
    sx::Function train = sx::function({}, {loss}, sx::get_updates());
    for (int i = 0; i < c.steps; ++i) train({});
    expect_close(p.value(), sx::Array::from_vector<double>({1.0, 1.0}, {2}), 0, 1e-3, "the minimum");
  }
}

TEST_F(Optim, SavedStateContinuesIdentically) {
  auto data = sx::load_npz((golden_dir() / "optim_adam_amsgrad.npz").string());
  fs::path path = fs::temp_directory_path() / ("symx_optim_state_" + std::to_string(::getpid()) + ".safetensors");
  auto run = [](sx::Function& train, int steps, const Problem& p) {
    std::vector<double> out;
    for (int i = 0; i < steps; ++i) {
      train({});
      for (const sx::Tensor& t : {p.w, p.z})
        for (double v : t.value().to_vector()) out.push_back(v);
    }
    return out;
  };
  Problem p = build_problem(data);
  optim::Adam opt(0.05, {.beta1 = 0.8, .beta2 = 0.95, .amsgrad = true});
  opt.minimize(p.loss);
  sx::Function train = sx::function({}, {p.loss}, sx::get_updates());
  run(train, 7, p);
  sx::save_variables(path.string());
  std::vector<double> expected = run(train, 8, p);
  sx::load_variables(path.string());
  EXPECT_EQ(run(train, 8, p), expected);
  // A new graph built the same way finds the state by name.
  sx::reset_default_graph();
  Problem q = build_problem(data);
  optim::Adam again(0.05, {.beta1 = 0.8, .beta2 = 0.95, .amsgrad = true});
  again.minimize(q.loss);
  sx::Function train2 = sx::function({}, {q.loss}, sx::get_updates());
  sx::load_variables(path.string());
  EXPECT_EQ(again.step().value().item<std::int64_t>(), 7);
  EXPECT_EQ(run(train2, 8, q), expected);
  // Only the parameters restored (moments and step at zero): a different path, so the test can fail.
  sx::reset_variables();
  sx::load_variables(path.string(), {q.w, q.z});
  EXPECT_NE(run(train2, 8, q), expected);
  fs::remove(path);
}

TEST_F(Optim, StateVariablesAreNamedUnderTheOptimizer) {
  sx::Tensor w = sx::variable(sx::Array::from_vector<double>({1.0, 2.0}, {2}), "w");
  sx::Tensor frozen = sx::variable(sx::Array::from_vector<double>({3.0, 4.0}, {2}), "frozen", false);
  sx::Tensor loss = sx::sum(sx::square(w * frozen));
  optim::RMSprop opt(0.01, {.momentum = 0.5, .centered = true});
  sx::Updates updates = opt.minimize(loss);
  std::vector<std::string> names;
  for (const auto& [v, _] : updates) names.push_back(v.name());
  EXPECT_EQ(names, (std::vector<std::string>{"w", "rmsprop/square_avg/w", "rmsprop/grad_avg/w", "rmsprop/momentum/w",
                                             "rmsprop/step"}));
  for (const sx::Tensor& v : opt.variables()) EXPECT_FALSE(v.trainable()) << v.name();
  EXPECT_EQ(sx::get_updates().size(), updates.size());
  EXPECT_EQ(opt.name(), "rmsprop");
}

TEST_F(Optim, LearningRateAdvancesOncePerCall) {
  namespace sch = optim::schedules;
  sx::Tensor w = sx::variable(sx::Array::from_vector<double>({0.0}, {1}), "w");
  sch::Schedule schedule = sch::piecewise_constant({3, 5}, {1.0, 0.5, 0.25});
  optim::SGD opt(schedule);
  opt.minimize(sx::sum(w));  // gradient 1: w falls by each step's rate
  sx::Function train = sx::function({}, {opt.learning_rate()}, sx::get_updates());
  std::vector<double> rates;
  for (int i = 0; i < 7; ++i) rates.push_back(train({})[0].item<double>());
  EXPECT_EQ(rates, (std::vector<double>{1.0, 1.0, 1.0, 0.5, 0.5, 0.25, 0.25}));
  EXPECT_DOUBLE_EQ(w.value().get_flat(0), -(3 * 1.0 + 2 * 0.5 + 2 * 0.25));
}

TEST_F(Optim, ClippingMatchesHandValues) {
  sx::Tensor a = sx::constant(sx::Array::from_vector<double>({3.0, 0.0}, {2}));
  sx::Tensor b = sx::constant(sx::Array::from_vector<double>({4.0}, {1}));
  EXPECT_DOUBLE_EQ(optim::global_norm({a, b}).eval().item<double>(), 5.0);
  auto clipped = optim::clip_by_global_norm({a, b}, 1.0);
  const double factor = 1.0 / (5.0 + 1e-6);  // PyTorch's clip_grad_norm_ adds 1e-6 to the norm
  EXPECT_DOUBLE_EQ(clipped[0].eval().get_flat(0), 3.0 * factor);
  EXPECT_DOUBLE_EQ(clipped[1].eval().get_flat(0), 4.0 * factor);
  auto unchanged = optim::clip_by_global_norm({a, b}, 10.0);
  EXPECT_DOUBLE_EQ(unchanged[1].eval().get_flat(0), 4.0);
  auto by_value = optim::clip_by_value({a, b}, 3.5);
  EXPECT_EQ(by_value[0].eval().to_vector(), (std::vector<double>{3.0, 0.0}));
  EXPECT_EQ(by_value[1].eval().to_vector(), (std::vector<double>{3.5}));
}

namespace {
template <class F> std::string error_of(F&& f) {
  try {
    f();
  } catch (const sx::ValueError& e) {
    return e.what();
  }
  return "(no ValueError)";
}
}  // namespace

TEST_F(Optim, BadSettingsAreValueErrorsWithAFix) {
  EXPECT_NE(error_of([] { optim::SGD(0.0); }).find("SGD: learning_rate is 0. The learning rate is the step size"),
            std::string::npos);
  EXPECT_NE(error_of([] { optim::Adam(-1.0); }).find("learning_rate is -1"), std::string::npos);
  EXPECT_NE(error_of([] { optim::Adam(1e-3, {.beta1 = 1.0}); }).find("beta1 is 1; it must lie in [0, 1)"),
            std::string::npos);
  EXPECT_NE(error_of([] { optim::AdamW(1e-3, {.beta2 = -0.5}); }).find("AdamW: beta2 is -0.5"), std::string::npos);
  EXPECT_NE(error_of([] { optim::SGD(0.1, {.nesterov = true}); }).find("nesterov momentum needs momentum > 0"),
            std::string::npos);
  EXPECT_NE(error_of([] { optim::RMSprop(0.1, {.alpha = 1.0}); }).find("alpha is 1"), std::string::npos);
  EXPECT_NE(error_of([] { optim::Adagrad(0.1, {.eps = 0}); }).find("eps is 0"), std::string::npos);
  EXPECT_NE(error_of([] { optim::SGD(0.1, {.clipping = {.clip_value = -1.0}}); }).find("clip_value is -1"),
            std::string::npos);
}

TEST_F(Optim, LossMustBeAScalarOfTrainableVariables) {
  sx::Tensor w = sx::variable(sx::Array::from_vector<double>({1.0, 2.0, 3.0}, {3}), "w");
  std::string not_scalar = error_of([&] { optim::Adam().minimize(w * 2.0); });
  EXPECT_NE(not_scalar.find("Adam.minimize: the loss 'multiply#"), std::string::npos) << not_scalar;
  EXPECT_NE(not_scalar.find("has shape (3,)"), std::string::npos) << not_scalar;
  EXPECT_NE(not_scalar.find("Reduce it to one number, e.g. mean(loss)"), std::string::npos) << not_scalar;
  sx::Tensor frozen = sx::variable(sx::Array::from_vector<double>({1.0}, {1}), "frozen", false);
  std::string nothing = error_of([&] { optim::SGD(0.1).minimize(sx::sum(frozen)); });
  EXPECT_NE(nothing.find("depends on no trainable variable"), std::string::npos) << nothing;
  EXPECT_NE(nothing.find("pass the variables to optimize as params"), std::string::npos) << nothing;
  std::string not_variable = error_of([&] { optim::SGD(0.1).minimize(sx::sum(w), {w * 2.0}); });
  EXPECT_NE(not_variable.find("is not a variable"), std::string::npos) << not_variable;
}

// ---- an unknown batch size ----

namespace {

// Least squares mean((x w - t)^2) on batches of x (n, 3) and t (n, 1), with its gradient
// 2/n x^T (x w - t) spelled out in plain C++ as the oracle.
std::vector<double> least_squares_grad(const std::vector<double>& w, const std::vector<double>& x,
                                       const std::vector<double>& t) {
  const std::size_t n = t.size();
  std::vector<double> g(3, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    double r = x[3 * i] * w[0] + x[3 * i + 1] * w[1] + x[3 * i + 2] * w[2] - t[i];
    for (std::size_t j = 0; j < 3; ++j) g[j] += 2.0 / static_cast<double>(n) * x[3 * i + j] * r;
  }
  return g;
}

std::vector<double> batch_values(std::size_t count, double scale, double offset) {
  std::vector<double> v;
  for (std::size_t i = 0; i < count; ++i) v.push_back(scale * std::sin(static_cast<double>(i) * 1.7 + offset));
  return v;
}

}  // namespace

// SGD with momentum and Adam on x placeholder({kDynamic, 3}): steps on batches of 5 then 3 through one
// function follow torch.optim's formulas written out here, with one compile per batch size.
TEST_F(Optim, StepsOnBatchesOfAnUnknownSizeFollowTheFormulas) {
  for (const std::string kind : {"sgd", "adam"}) {
    SCOPED_TRACE(kind);
    sx::reset_default_graph();
    const std::vector<double> w0 = {0.5, -1.0, 2.0};
    sx::Tensor w = sx::variable(sx::Array::from_vector<double>(w0, {3, 1}), "w");
    sx::Tensor x = sx::placeholder({sx::kDynamic, 3}, sx::DType::f64, "x");
    sx::Tensor t = sx::placeholder({sx::kDynamic, 1}, sx::DType::f64, "t");
    sx::Tensor loss = sx::mean(sx::square(sx::matmul(x, w) - t));
    const double lr = 0.05, momentum = 0.9, b1 = 0.8, b2 = 0.99, eps = 1e-8;
    std::unique_ptr<optim::Optimizer> opt;
    if (kind == "sgd") opt = std::make_unique<optim::SGD>(lr, optim::SGDOptions{.momentum = momentum});
    else opt = std::make_unique<optim::Adam>(lr, optim::AdamOptions{.beta1 = b1, .beta2 = b2, .eps = eps});
    opt->minimize(loss, {w});
    sx::Function step = sx::function({x, t}, {loss}, sx::get_updates());
    std::vector<double> expected = w0, buf(3, 0.0), m(3, 0.0), v(3, 0.0);
    int k = 0;
    for (std::size_t n : {5u, 3u}) {
      ++k;
      auto xs = batch_values(3 * n, 1.5, static_cast<double>(n)), ts = batch_values(n, 2.0, 0.3);
      auto g = least_squares_grad(expected, xs, ts);
      for (std::size_t j = 0; j < 3; ++j) {
        if (kind == "sgd") {
          buf[j] = k == 1 ? g[j] : momentum * buf[j] + g[j];  // torch: the first step's buffer is the gradient
          expected[j] -= lr * buf[j];
        } else {
          m[j] = b1 * m[j] + (1 - b1) * g[j];
          v[j] = b2 * v[j] + (1 - b2) * g[j] * g[j];
          double m_hat = m[j] / (1 - std::pow(b1, k)), v_hat = v[j] / (1 - std::pow(b2, k));
          expected[j] -= lr * m_hat / (std::sqrt(v_hat) + eps);
        }
      }
      auto n64 = static_cast<std::int64_t>(n);
      step({sx::Array::from_vector<double>(xs, {n64, 3}), sx::Array::from_vector<double>(ts, {n64, 1})});
      auto got = w.value().to_vector();
      for (std::size_t j = 0; j < 3; ++j) EXPECT_NEAR(got[j], expected[j], 1e-12) << "step " << k << ", w[" << j << "]";
    }
    EXPECT_EQ(step.compile_count(), 2);
  }
}

TEST_F(Optim, LearningRateComputedFromTrainableVariablesIsATypeError) {
  // SymJAX's order, SGD(loss, 0.1), takes the loss as the learning rate: refused, showing symx's call.
  sx::Tensor w = sx::variable(sx::Array::from_vector<double>({1.0, -2.0}, {2}), "w");
  sx::Tensor loss = sx::sum(sx::square(w));
  auto type_error = [](auto make) {
    try {
      make();
    } catch (const sx::TypeError& e) {
      return std::string(e.what());
    }
    ADD_FAILURE() << "no TypeError";
    return std::string();
  };
  std::string sgd = type_error([&] { optim::SGD opt(loss, {.momentum = 0.1}); });
  EXPECT_NE(sgd.find("SGD: the learning rate"), std::string::npos) << sgd;
  EXPECT_NE(sgd.find("depends on the trainable variable 'w'"), std::string::npos) << sgd;
  EXPECT_NE(sgd.find("SGD(0.1).minimize(loss)"), std::string::npos) << sgd;
  EXPECT_NE(type_error([&] { optim::Adam opt(loss); }).find("Adam(0.001).minimize(loss)"), std::string::npos);
  // A schedule whose rate depends on a trainable variable: refused at minimize.
  optim::SGD scheduled(optim::schedules::Schedule([&](const sx::Tensor&) { return sx::sum(w); }));
  EXPECT_NE(type_error([&] { scheduled.minimize(loss); }).find("the learning rate from the schedule"),
            std::string::npos);
  // A rate that is a hyperparameter, a non-trainable variable, trains as a number does.
  sx::Tensor lr = sx::variable(sx::Array::scalar(0.25), "lr", false);
  optim::SGD ok(lr);
  ok.minimize(loss);
  sx::function({}, {loss}, sx::get_updates())({});
  EXPECT_EQ(w.value().to_vector(), (std::vector<double>{0.5, -1.0}));  // w - 0.25 * 2w
}

// symx::stats from C++: densities, entropies, moments and KL divergences against closed forms
// computed here with <cmath> (std::lgamma; digamma as a central difference of std::lgamma), sample
// moments within 5 standard errors, a gradient against finite differences, and the errors.
// (tests/python/test_stats.py checks the same against SciPy over many more parameter values.) The
// golden files of tests/golden/golden_stats.py bring SciPy's values (densities, entropies, moments, KL
// by quadrature) to C++ as well.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include <symx/stats.hpp>

namespace sx = symx;
namespace st = symx::stats;

namespace {

constexpr double kPi = std::numbers::pi;

sx::Tensor vec(std::vector<double> values) {
  auto n = static_cast<std::int64_t>(values.size());
  return sx::constant(sx::Array::from_vector<double>(values, {n}));
}

std::vector<double> values(const sx::Tensor& t) { return t.eval().to_vector(); }

void expect_close(const std::vector<double>& actual, const std::vector<double>& expected, double rtol = 1e-10,
                  double atol = 1e-12) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], atol + rtol * std::abs(expected[i])) << "element " << i;
}

// digamma(x) = d/dx lgamma(x), by a central difference (about 1e-10 accurate for these x).
double digamma(double x) {
  const double h = 1e-5 * std::max(1.0, x);
  return (std::lgamma(x + h) - std::lgamma(x - h)) / (2 * h);
}

double lbeta(double a, double b) { return std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b); }

// ---- golden files (SciPy) ----

std::map<std::string, sx::Array> golden(const std::string& name) {
  const char* dir = std::getenv("SYMX_GOLDEN_DIR");
  // ctest sets SYMX_GOLDEN_DIR; run by hand, the files are found beside this source.
  auto base = dir ? std::filesystem::path(dir) : std::filesystem::path(__FILE__).parent_path().parent_path() / "golden";
  return sx::load_npz((base / ("stats_" + name + ".npz")).string());
}

// Like expect_close, and equal infinities (log 0 of an impossible outcome) also match.
void expect_golden(const sx::Tensor& actual, const sx::Array& expected, double rtol, double atol,
                   const std::string& what) {
  SCOPED_TRACE(what);
  sx::Array a = actual.eval();
  ASSERT_EQ(a.shape(), expected.shape());
  std::vector<double> got = a.to_vector(), want = expected.to_vector();
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isinf(want[i])) EXPECT_EQ(got[i], want[i]) << "element " << i;
    else EXPECT_NEAR(got[i], want[i], atol + rtol * std::abs(want[i])) << "element " << i;
  }
}

// Column `j` of a 2-D golden array (one parameter of each KL case), as a 1-D constant.
sx::Tensor column(const sx::Array& a, std::int64_t j) {
  std::vector<double> all = a.to_vector(), out;
  for (std::int64_t i = 0; i < a.shape()[0]; ++i) out.push_back(all[static_cast<std::size_t>(i * a.shape()[1] + j)]);
  return vec(out);
}

}  // namespace

TEST(StatsNormal, DensityEntropyAndMomentsMatchTheClosedForm) {
  st::Normal d(vec({0.0, -2.0, 1e3}), vec({1.0, 0.5, 1e-3}));
  std::vector<double> x = {0.3, -2.2, 1e3 + 2e-3};
  std::vector<double> mu = {0.0, -2.0, 1e3}, sigma = {1.0, 0.5, 1e-3}, lp, h, var;
  for (int i = 0; i < 3; ++i) {
    double z = (x[i] - mu[i]) / sigma[i];
    lp.push_back(-0.5 * z * z - std::log(sigma[i]) - 0.5 * std::log(2 * kPi));
    h.push_back(0.5 * std::log(2 * kPi * std::numbers::e * sigma[i] * sigma[i]));
    var.push_back(sigma[i] * sigma[i]);
  }
  expect_close(values(d.log_prob(vec(x))), lp);
  expect_close(values(d.entropy()), h);
  expect_close(values(d.mean()), mu);
  expect_close(values(d.variance()), var);
  EXPECT_EQ(d.dtype(), sx::DType::f64);
  EXPECT_EQ(st::Normal(0.0, 1.0).dtype(), sx::DType::f32);
}

TEST(StatsGamma, DensityAndEntropyMatchLgammaAndDigamma) {
  const std::vector<double> alpha = {0.3, 1.0, 4.5, 200.0}, rate = {2.0, 0.5, 1.0, 3.0}, x = {0.05, 1.0, 3.0, 70.0};
  st::Gamma d(vec(alpha), vec(rate));
  std::vector<double> lp, h, mean, var;
  for (std::size_t i = 0; i < alpha.size(); ++i) {
    double a = alpha[i], b = rate[i];
    lp.push_back(a * std::log(b) + (a - 1) * std::log(x[i]) - b * x[i] - std::lgamma(a));
    h.push_back(a - std::log(b) + std::lgamma(a) + (1 - a) * digamma(a));
    mean.push_back(a / b);
    var.push_back(a / (b * b));
  }
  expect_close(values(d.log_prob(vec(x))), lp, 1e-10, 1e-10);
  expect_close(values(d.entropy()), h, 1e-8, 1e-8);
  expect_close(values(d.mean()), mean);
  expect_close(values(d.variance()), var);
  EXPECT_TRUE(std::isinf(values(d.log_prob(-1.0))[0]));
}

TEST(StatsBeta, DensityAndEntropyMatchLgammaAndDigamma) {
  const std::vector<double> a = {0.5, 2.0, 30.0}, b = {0.5, 5.0, 3.0}, x = {0.1, 0.3, 0.95};
  st::Beta d(vec(a), vec(b));
  std::vector<double> lp, h;
  for (std::size_t i = 0; i < a.size(); ++i) {
    lp.push_back((a[i] - 1) * std::log(x[i]) + (b[i] - 1) * std::log1p(-x[i]) - lbeta(a[i], b[i]));
    h.push_back(lbeta(a[i], b[i]) - (a[i] - 1) * digamma(a[i]) - (b[i] - 1) * digamma(b[i]) +
                (a[i] + b[i] - 2) * digamma(a[i] + b[i]));
  }
  expect_close(values(d.log_prob(vec(x))), lp, 1e-10, 1e-10);
  expect_close(values(d.entropy()), h, 1e-8, 1e-8);
  expect_close(values(d.mean()), {0.5, 2.0 / 7, 30.0 / 33});
}

TEST(StatsUniform, DensityIsConstantInsideAndZeroOutside) {
  st::Uniform d(vec({-1.0}), vec({3.0}));
  std::vector<double> lp = values(d.log_prob(vec({-2.0, -1.0, 0.5, 3.0, 4.0})));
  EXPECT_TRUE(std::isinf(lp[0]) && lp[0] < 0);
  expect_close({lp[1], lp[2], lp[3]}, {-std::log(4.0), -std::log(4.0), -std::log(4.0)});
  EXPECT_TRUE(std::isinf(lp[4]) && lp[4] < 0);
  expect_close(values(d.entropy()), {std::log(4.0)});
  expect_close(values(d.variance()), {16.0 / 12});
}

TEST(StatsMultivariateNormal, DensityMatchesTheTwoByTwoClosedForm) {
  // Covariance [[2, 0.6], [0.6, 1]]: determinant 1.64, inverse [[1, -0.6], [-0.6, 2]] / 1.64.
  sx::Tensor cov = sx::constant(sx::Array::from_vector<double>({2.0, 0.6, 0.6, 1.0}, {2, 2}));
  st::MultivariateNormal d(vec({1.0, -1.0}), cov);
  sx::Tensor x = sx::constant(sx::Array::from_vector<double>({0.0, 0.0, 1.0, -1.0, 2.5, 0.5}, {3, 2}));
  std::vector<double> expected;
  for (auto [px, py] : std::vector<std::pair<double, double>>{{0.0, 0.0}, {1.0, -1.0}, {2.5, 0.5}}) {
    double dx = px - 1.0, dy = py + 1.0;
    double m = (dx * dx - 1.2 * dx * dy + 2.0 * dy * dy) / 1.64;
    expected.push_back(-0.5 * (m + std::log(1.64) + 2 * std::log(2 * kPi)));
  }
  expect_close(values(d.log_prob(x)), expected);
  expect_close(values(d.entropy()), {0.5 * std::log(1.64) + (1 + std::log(2 * kPi))});
  expect_close(values(d.variance()), {2.0, 1.0});
  st::MultivariateNormal same = st::MultivariateNormal::from_scale_tril(vec({1.0, -1.0}), sx::linalg::cholesky(cov));
  expect_close(values(same.log_prob(x)), expected);
  EXPECT_EQ(d.event_shape(), sx::Shape({2}));
}

TEST(StatsDiscrete, CategoricalAndBernoulliMatchHandValues) {
  st::Categorical c = st::Categorical::from_probs(vec({1.0, 3.0, 0.0}));  // normalized to (0.25, 0.75, 0)
  std::vector<double> lp = values(c.log_prob(vec({0.0, 1.0, 2.0, 3.0})));
  expect_close({lp[0], lp[1]}, {std::log(0.25), std::log(0.75)});
  EXPECT_TRUE(std::isinf(lp[2]) && std::isinf(lp[3]));
  expect_close(values(c.entropy()), {-(0.25 * std::log(0.25) + 0.75 * std::log(0.75))});
  EXPECT_THROW(c.mean(), sx::ValueError);
  st::Bernoulli b = st::Bernoulli::from_logits(vec({0.0, std::log(3.0)}));  // p = 0.5, 0.75
  expect_close(values(b.log_prob(vec({1.0, 0.0}))), {std::log(0.5), std::log(0.25)});
  expect_close(values(b.variance()), {0.25, 0.1875});
}

TEST(StatsKl, DivergencesMatchTheClosedForms) {
  expect_close(values(st::kl_divergence(st::Normal(vec({0.0}), vec({1.0})), st::Normal(vec({1.0}), vec({2.0})))),
               {std::log(2.0) + 2.0 / 8 - 0.5});
  double p = 0.3, q = 0.6;
  expect_close(values(st::kl_divergence(st::Bernoulli::from_probs(vec({p})), st::Bernoulli::from_probs(vec({q})))),
               {p * std::log(p / q) + (1 - p) * std::log((1 - p) / (1 - q))});
  double ap = 2.0, bp = 1.5, aq = 3.0, bq = 0.5;
  double gamma_kl =
      (ap - aq) * digamma(ap) - std::lgamma(ap) + std::lgamma(aq) + aq * std::log(bp / bq) + ap * (bq - bp) / bp;
  expect_close(values(st::kl_divergence(st::Gamma(vec({ap}), vec({bp})), st::Gamma(vec({aq}), vec({bq})))), {gamma_kl},
               1e-8, 1e-9);
  expect_close(values(st::kl_divergence(st::Uniform(vec({0.0}), vec({1.0})), st::Uniform(vec({-1.0}), vec({3.0})))),
               {std::log(4.0)});
}

TEST(StatsSampling, SampleMomentsAreWithinFiveStandardErrors) {
  sx::random::seed(3);
  const std::int64_t n = 10000;  // enough for 5 standard errors; kept small for the sanitizer build
  std::vector<double> draws = values(st::Gamma(vec({0.4, 6.0}), vec({1.0, 2.0})).sample({n}));
  const double mean[2] = {0.4, 3.0}, var[2] = {0.4, 1.5};
  for (int k = 0; k < 2; ++k) {
    double m = 0;
    for (std::int64_t i = 0; i < n; ++i) m += draws[static_cast<std::size_t>(2 * i + k)];
    m /= static_cast<double>(n);
    EXPECT_LT(std::abs(m - mean[k]), 5 * std::sqrt(var[k] / static_cast<double>(n))) << "gamma " << k;
  }
  sx::Tensor normal = st::Normal(2.0, 3.0).sample({n});
  EXPECT_EQ(normal.shape(), sx::Shape({n}));
  std::vector<double> z = values(normal);
  double m = 0;
  for (double v : z) m += v;
  EXPECT_LT(std::abs(m / static_cast<double>(n) - 2.0), 5 * 3.0 / std::sqrt(static_cast<double>(n)));
}

TEST(StatsGradients, GammaLogProbGradientMatchesFiniteDifferences) {
  const double a = 2.7, b = 1.3, x = 0.8, h = 1e-6;
  sx::Tensor alpha = sx::constant(sx::Array::scalar<double>(a)), rate = sx::constant(sx::Array::scalar<double>(b));
  std::vector<sx::Tensor> grads = sx::grad(st::Gamma(alpha, rate).log_prob(x), {alpha, rate});
  auto lp = [&](double aa, double bb) { return aa * std::log(bb) + (aa - 1) * std::log(x) - bb * x - std::lgamma(aa); };
  expect_close(values(grads[0]), {(lp(a + h, b) - lp(a - h, b)) / (2 * h)}, 1e-6, 1e-8);
  expect_close(values(grads[1]), {a / b - x}, 1e-10);
}

TEST(StatsErrors, InvalidParametersAndShapesAreReported) {
  try {
    st::Normal(0.0, -1.0);
    FAIL() << "expected ValueError";
  } catch (const sx::ValueError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("scale must be positive"), std::string::npos) << message;
    EXPECT_NE(message.find("test_stats.cpp"), std::string::npos) << message;
  }
  EXPECT_THROW(st::Gamma(vec({1.0, 0.0}), 1.0), sx::ValueError);
  EXPECT_THROW(st::Beta(1.0, -2.0), sx::ValueError);
  EXPECT_THROW(st::Uniform(2.0, 1.0), sx::ValueError);
  EXPECT_THROW(st::Bernoulli::from_probs(1.5), sx::ValueError);
  try {
    st::Normal(vec({0.0, 1.0, 2.0}), vec({1.0, 2.0}));
    FAIL() << "expected ShapeError";
  } catch (const sx::ShapeError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("loc (3,)"), std::string::npos) << message;
    EXPECT_NE(message.find("scale (2,)"), std::string::npos) << message;
  }
  EXPECT_THROW(st::MultivariateNormal(vec({0.0, 0.0, 0.0}), sx::eye(2, std::nullopt, 0, sx::f64)), sx::ShapeError);
  EXPECT_THROW(st::Normal(vec({0.0, 1.0}), 1.0).log_prob(vec({1.0, 2.0, 3.0})), sx::ShapeError);
}

// ---- against SciPy (golden files) ----

TEST(StatsGolden, ScalarFamiliesMatchScipy) {
  for (const std::string family : {"normal", "uniform", "gamma", "beta", "bernoulli"}) {
    SCOPED_TRACE(family);
    auto g = golden(family);
    auto p = [&](const char* key) { return sx::constant(g.at(key)); };
    std::unique_ptr<st::Distribution> d;
    if (family == "normal") d = std::make_unique<st::Normal>(p("loc"), p("scale"));
    if (family == "uniform") d = std::make_unique<st::Uniform>(p("low"), p("high"));
    if (family == "gamma") d = std::make_unique<st::Gamma>(p("concentration"), p("rate"));
    if (family == "beta") d = std::make_unique<st::Beta>(p("a"), p("b"));
    if (family == "bernoulli") d = std::make_unique<st::Bernoulli>(st::Bernoulli::from_probs(p("probs")));
    expect_golden(d->log_prob(p("x")), g.at("log_prob"), 1e-10, 1e-9, "log_prob");
    expect_golden(d->entropy(), g.at("entropy"), 1e-10, 1e-9, "entropy");
    expect_golden(d->mean(), g.at("mean"), 1e-10, 1e-10, "mean");
    expect_golden(d->variance(), g.at("variance"), 1e-10, 1e-10, "variance");
  }
}

TEST(StatsGolden, MultivariateNormalMatchesScipy) {
  auto g = golden("mvn");
  st::MultivariateNormal d(sx::constant(g.at("mean")), sx::constant(g.at("covariance")));
  expect_golden(d.log_prob(sx::constant(g.at("x"))), g.at("log_prob"), 1e-10, 1e-10, "log_prob");
  expect_golden(d.entropy(), g.at("entropy"), 1e-10, 1e-10, "entropy");
  expect_golden(d.mean(), g.at("mean"), 0, 0, "mean");
  expect_golden(d.variance(), g.at("variance"), 1e-12, 1e-12, "variance");
}

TEST(StatsGolden, KlDivergencesMatchClosedFormsAndQuadrature) {
  auto g = golden("kl");
  const sx::Array &n = g.at("normal"), &b = g.at("bernoulli"), &ga = g.at("gamma"), &be = g.at("beta");
  expect_golden(st::kl_divergence(st::Normal(column(n, 0), column(n, 1)), st::Normal(column(n, 2), column(n, 3))),
                g.at("normal_kl"), 1e-10, 1e-12, "normal");
  expect_golden(st::kl_divergence(st::Bernoulli::from_probs(column(b, 0)), st::Bernoulli::from_probs(column(b, 1))),
                g.at("bernoulli_kl"), 1e-10, 1e-12, "bernoulli");
  // Quadrature is good to about 1e-9 (epsrel 1e-12 in golden_stats.py, plus SciPy's logpdf rounding).
  expect_golden(st::kl_divergence(st::Gamma(column(ga, 0), column(ga, 1)), st::Gamma(column(ga, 2), column(ga, 3))),
                g.at("gamma_kl"), 1e-7, 1e-9, "gamma");
  expect_golden(st::kl_divergence(st::Beta(column(be, 0), column(be, 1)), st::Beta(column(be, 2), column(be, 3))),
                g.at("beta_kl"), 1e-7, 1e-9, "beta");
}

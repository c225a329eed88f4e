// nn::init: each initializer's sample mean and variance against its formula on large shapes (within 5
// standard errors), truncation bounds, orthogonality, fans, seeding and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "symx/nn/init.hpp"

namespace init = symx::nn::init;
using symx::Array;
using symx::Shape;

namespace {

struct Moments {
  double mean, var, mu4;  // mean, variance and fourth central moment of a distribution
};

Moments uniform_moments(double lo, double hi) {
  double w = hi - lo;
  return {(lo + hi) / 2, w * w / 12, std::pow(w, 4) / 80};
}

Moments normal_moments(double mean, double sd) { return {mean, sd * sd, 3 * std::pow(sd, 4)}; }

// N(mean, sd^2) truncated to mean +- 2 sd, by Simpson's rule on the standard density.
Moments truncated_moments(double mean, double sd) {
  const int n = 2000;
  double z2 = 0, z4 = 0, mass = 0;
  for (int i = 0; i <= n; ++i) {
    double z = -2 + 4.0 * i / n, w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
    double p = w * std::exp(-z * z / 2);
    mass += p, z2 += p * z * z, z4 += p * std::pow(z, 4);
  }
  return {mean, sd * sd * z2 / mass, std::pow(sd, 4) * z4 / mass};
}

void expect_moments(const Array& a, Moments m) {
  auto v = a.to_vector();
  double n = static_cast<double>(v.size()), mean = 0, var = 0;
  for (double x : v) mean += x;
  mean /= n;
  for (double x : v) var += (x - mean) * (x - mean);
  var /= n;
  EXPECT_LT(std::abs(mean - m.mean), 5 * std::sqrt(m.var / n)) << mean << " vs " << m.mean;
  EXPECT_LT(std::abs(var - m.var), 5 * std::sqrt((m.mu4 - m.var * m.var) / n)) << var << " vs " << m.var;
}

std::pair<double, double> min_max(const Array& a) {
  auto v = a.to_vector();
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {*lo, *hi};
}

const Shape kLarge = {400, 500};

}  // namespace

TEST(NnInit, UniformNormalTruncatedNormalMoments) {
  for (auto dtype : {symx::f32, symx::f64}) {
    Array u = init::uniform(-0.5, 1.5)(kLarge, dtype);
    EXPECT_EQ(u.dtype(), dtype);
    EXPECT_EQ(u.shape(), kLarge);
    auto [ulo, uhi] = min_max(u);
    EXPECT_GE(ulo, -0.5);
    EXPECT_LT(uhi, 1.5);
    expect_moments(u, uniform_moments(-0.5, 1.5));
    expect_moments(init::normal(1.0, 0.3)(kLarge, dtype), normal_moments(1.0, 0.3));
    Array t = init::truncated_normal(1.0, 0.5)(kLarge, dtype);
    auto [tlo, thi] = min_max(t);
    EXPECT_GE(tlo, 0.0 - 1e-6);
    EXPECT_LE(thi, 2.0 + 1e-6);
    expect_moments(t, truncated_moments(1.0, 0.5));
  }
}

TEST(NnInit, ConstantsTakeAnyDtype) {
  Array c = init::constant(2.5)({2, 3}, symx::f64);
  for (double v : c.to_vector()) EXPECT_EQ(v, 2.5);
  EXPECT_EQ(init::zeros()({4}, symx::i32).dtype(), symx::i32);
  EXPECT_EQ(init::ones()({2}, symx::i64).to_vector(), (std::vector<double>{1, 1}));
}

TEST(NnInit, FansOfMatricesAndKernels) {
  auto fans = [](Shape s) {
    auto f = init::compute_fans(s);
    return std::make_pair(f.fan_in, f.fan_out);
  };
  EXPECT_EQ(fans({}), std::make_pair(1.0, 1.0));
  EXPECT_EQ(fans({7}), std::make_pair(7.0, 7.0));
  EXPECT_EQ(fans({784, 100}), std::make_pair(784.0, 100.0));    // Dense (in, out)
  EXPECT_EQ(fans({16, 3, 5, 5}), std::make_pair(75.0, 400.0));  // OIHW
  EXPECT_EQ(fans({8, 4, 3}), std::make_pair(12.0, 24.0));       // Conv1D (O, I, K)
}

TEST(NnInit, NamedVarianceScalingKerasDefinitions) {
  struct Case {
    symx::Initializer init;
    double scale;
    int mode;
    bool uniform;
  };  // mode: 0 in, 1 avg
  std::vector<Case> cases = {{init::glorot_uniform(), 1, 1, true}, {init::glorot_normal(), 1, 1, false},
                             {init::he_uniform(), 2, 0, true},     {init::he_normal(), 2, 0, false},
                             {init::lecun_uniform(), 1, 0, true},  {init::lecun_normal(), 1, 0, false}};
  for (Shape shape : {Shape{400, 500}, Shape{64, 32, 10, 10}}) {
    auto fans = init::compute_fans(shape);
    for (const auto& c : cases) {
      double n = c.mode == 0 ? fans.fan_in : (fans.fan_in + fans.fan_out) / 2;
      double variance = c.scale / n;
      Array a = c.init(shape, symx::f64);
      auto [lo, hi] = min_max(a);
      if (c.uniform) {
        double limit = std::sqrt(3 * variance);
        EXPECT_GE(lo, -limit);
        EXPECT_LE(hi, limit);
        expect_moments(a, uniform_moments(-limit, limit));
      } else {
        double sd = std::sqrt(variance) / 0.87962566103423978;
        EXPECT_GE(lo, -2 * sd);
        EXPECT_LE(hi, 2 * sd);
        Moments m = truncated_moments(0, sd);
        EXPECT_NEAR(m.var, variance, 1e-6 * variance);  // the correction keeps the variance scale / n
        expect_moments(a, m);
      }
    }
  }
}

TEST(NnInit, VarianceScalingFanOutUntruncated) {
  Shape shape = {32, 16, 5, 5};
  double fan_out = 32 * 25;
  expect_moments(init::variance_scaling(3, "fan_out", "untruncated_normal")(shape, symx::f32),
                 normal_moments(0, std::sqrt(3 / fan_out)));
}

TEST(NnInit, OrthogonalRowsOrColumns) {
  for (Shape shape : {Shape{50, 80}, Shape{80, 50}, Shape{16, 3, 3, 3}}) {
    for (auto dtype : {symx::f32, symx::f64}) {
      Array a = init::orthogonal(2.0)(shape, dtype);
      std::int64_t rows = shape[0], cols = a.size() / rows, k = std::min(rows, cols);
      auto v = a.to_vector();
      auto at = [&](std::int64_t r, std::int64_t c) { return v[r * cols + c] / 2.0; };
      for (std::int64_t i = 0; i < k; ++i)
        for (std::int64_t j = 0; j < k; ++j) {
          double dot = 0;
          if (rows <= cols)
            for (std::int64_t c = 0; c < cols; ++c) dot += at(i, c) * at(j, c);
          else
            for (std::int64_t r = 0; r < rows; ++r) dot += at(r, i) * at(r, j);
          EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, 1e-5);
        }
    }
  }
}

TEST(NnInit, SeedReproducesAndEachDrawAdvances) {
  init::seed(3);
  Array a = init::glorot_uniform()({10, 10}, symx::f32);
  init::seed(3);
  EXPECT_TRUE(init::glorot_uniform()({10, 10}, symx::f32).equals(a));
  EXPECT_FALSE(init::glorot_uniform()({10, 10}, symx::f32).equals(a));
}

TEST(NnInit, Errors) {
  EXPECT_THROW(init::normal()({3}, symx::i32), symx::DTypeError);
  EXPECT_THROW(init::he_normal()({3, 3}, symx::i64), symx::DTypeError);
  EXPECT_THROW(init::orthogonal()({5}, symx::f32), symx::ShapeError);
  EXPECT_THROW(init::uniform(1, 0), symx::ValueError);
  EXPECT_THROW(init::normal(0, -1), symx::ValueError);
  EXPECT_THROW(init::variance_scaling(0), symx::ValueError);
  EXPECT_THROW(init::variance_scaling(1, "fan"), symx::ValueError);
  EXPECT_THROW(init::variance_scaling(1, "fan_in", "cauchy"), symx::ValueError);
  try {
    init::normal()({3}, symx::i32);
  } catch (const symx::DTypeError& e) {
    EXPECT_NE(std::string(e.what()).find("float32 or float64"), std::string::npos) << e.what();
  }
}

TEST(NnInit, VariablesFromInitializers) {
  symx::reset_default_graph();
  auto w = symx::variable(init::glorot_uniform(), {784, 100}, symx::f32, "w");
  Array first = w.value().copy();
  auto [lo, hi] = min_max(first);
  EXPECT_LE(std::max(-lo, hi), std::sqrt(6.0 / 884));
  symx::reset_variables({w});
  EXPECT_FALSE(w.value().equals(first));
}

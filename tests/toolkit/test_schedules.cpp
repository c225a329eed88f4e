// symx::optim::schedules against their formulas, written here independently (the restarts by
// walking the periods one by one), at every step of 0..399 including each boundary.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <vector>

#include <symx/optim/schedules.hpp>
#include <symx/symx.hpp>

namespace sx = symx;
namespace sch = symx::optim::schedules;

namespace {

constexpr int kSteps = 400;

double cosine(double step, double initial, double decay_steps, double alpha) {
  double s = std::min(step, decay_steps);
  return initial * ((1 - alpha) * 0.5 * (1 + std::cos(std::numbers::pi * s / decay_steps)) + alpha);
}

double restarts(double step, double initial, double first, double t_mul, double m_mul, double alpha) {
  double start = 0, length = first;
  int i = 0;
  while (step >= start + length) {
    start += length;
    length *= t_mul;
    ++i;
  }
  double fraction = (step - start) / length;
  return initial * ((1 - alpha) * std::pow(m_mul, i) * 0.5 * (1 + std::cos(std::numbers::pi * fraction)) + alpha);
}

// The schedule at steps 0..kSteps-1 (an int64 vector of steps), compared with `reference`.
void expect_schedule(const sch::Schedule& schedule, const std::function<double(double)>& reference) {
  sx::Tensor rates = schedule(sx::arange(0, kSteps, 1, sx::DType::i64));
  ASSERT_EQ(rates.dtype(), sx::DType::f64);
  std::vector<double> got = rates.eval().to_vector();
  ASSERT_EQ(got.size(), static_cast<std::size_t>(kSteps));
  for (int k = 0; k < kSteps; ++k) {
    double expected = reference(k);
    ASSERT_NEAR(got[k], expected, 1e-12 * std::abs(expected) + 1e-15) << "step " << k;
  }
  // A scalar float step, compiled, gives the same rate.
  sx::Tensor step = sx::placeholder({}, sx::DType::f64, "step");
  sx::Function f = sx::function({step}, {schedule(step)});
  for (double k : {0.0, 10.0, 30.0, 70.0, 150.0, 399.0})
    EXPECT_NEAR(f({sx::Array::scalar<double>(k)})[0].item<double>(), reference(k),
                1e-12 * std::abs(reference(k)) + 1e-15)
        << "compiled, step " << k;
}

}  // namespace

TEST(Schedules, ConstantAndLinear) {
  expect_schedule(sch::constant(0.3), [](double) { return 0.3; });
  expect_schedule(sch::linear(0.1, 0.5, 40), [](double s) { return 0.1 + 0.4 * std::min(s, 40.0) / 40; });
}

TEST(Schedules, PiecewiseConstantTakesTheNextValueAtEachBoundary) {
  expect_schedule(sch::piecewise_constant({10, 50, 51}, {1.0, 0.1, 0.01, 0.001}), [](double s) {
    return s < 10 ? 1.0 : s < 50 ? 0.1 : s < 51 ? 0.01 : 0.001;
  });
}

TEST(Schedules, ExponentialDecay) {
  expect_schedule(sch::exponential_decay(0.1, 30, 0.7), [](double s) { return 0.1 * std::pow(0.7, s / 30); });
  expect_schedule(sch::exponential_decay(0.1, 30, 0.7, true),
                  [](double s) { return 0.1 * std::pow(0.7, std::floor(s / 30)); });
}

TEST(Schedules, CosineDecay) {
  expect_schedule(sch::cosine_decay(0.2, 150, 0.1), [](double s) { return cosine(s, 0.2, 150, 0.1); });
}

TEST(Schedules, CosineDecayWithRestartsRestartsExactlyAtEachPeriod) {
  expect_schedule(sch::cosine_decay_restarts(0.2, 10, 2.0, 0.8, 0.05),
                  [](double s) { return restarts(s, 0.2, 10, 2.0, 0.8, 0.05); });
  expect_schedule(sch::cosine_decay_restarts(1.0, 7, 3.0), [](double s) { return restarts(s, 1.0, 7, 3.0, 1.0, 0.0); });
  expect_schedule(sch::cosine_decay_restarts(0.5, 25, 1.0, 0.5),
                  [](double s) { return restarts(s, 0.5, 25, 1.0, 0.5, 0.0); });
}

TEST(Schedules, LinearWarmupAndJoin) {
  expect_schedule(sch::linear_warmup(sch::cosine_decay(0.1, 200), 20, 0.01),
                  [](double s) { return s < 20 ? 0.01 + (0.1 - 0.01) * s / 20 : cosine(s - 20, 0.1, 200, 0.0); });
  sch::Schedule joined =
      sch::join({sch::constant(0.5), sch::exponential_decay(0.2, 10, 0.5), sch::linear(0.3, 0.0, 100)}, {30, 90});
  expect_schedule(joined, [](double s) {
    if (s < 30) return 0.5;
    if (s < 90) return 0.2 * std::pow(0.5, (s - 30) / 10);
    return 0.3 - 0.3 * std::min(s - 90, 100.0) / 100;
  });
}

TEST(Schedules, FromAFunction) {
  sch::Schedule s([](const sx::Tensor& step) { return 0.1 / (1.0 + step); });
  expect_schedule(s, [](double k) { return 0.1 / (1 + k); });
}

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const sx::ValueError& e) {
    return e.what();
  }
  return "(no ValueError)";
}
}  // namespace

TEST(Schedules, BadArgumentsAreValueErrorsWithAFix) {
  EXPECT_EQ(
      error_of([] {
        sch::piecewise_constant({5, 3}, {1.0, 2.0, 3.0});
      }),
      "piecewise_constant: boundaries must increase, got 5 then 3. Sort the boundaries and remove repeated ones.");
  EXPECT_NE(error_of([] { sch::piecewise_constant({5}, {1.0}); }).find("Give one value more than boundaries"),
            std::string::npos);
  EXPECT_NE(error_of([] { sch::exponential_decay(0.1, 0, 0.5); }).find("decay_steps is 0"), std::string::npos);
  EXPECT_NE(error_of([] { sch::cosine_decay_restarts(0.1, 10, 0.5); }).find("t_mul is 0.5"), std::string::npos);
  EXPECT_NE(error_of([] { sch::join({sch::constant(1.0)}, {3}); }).find("Give one boundary fewer than schedules"),
            std::string::npos);
  EXPECT_NE(error_of([] { sch::linear_warmup(sch::constant(1.0), 0); }).find("warmup_steps is 0"), std::string::npos);
}

// Random draws: the Philox generator, reproducibility from seed, freshness per evaluation,
// distribution statistics, dtypes, shapes and argument errors. Statistics are computed from the
// evaluated arrays directly.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "ops/op_table.hpp"
#include "test_util.hpp"

namespace symx::ops {
// Defined in src/ops/random.cpp.
std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> ctr, std::array<std::uint32_t, 2> key);
}  // namespace symx::ops

namespace symx {
namespace {

using testing::expect_error;

struct Stats {
  double mean = 0, std = 0, min = 0, max = 0;
};

Stats stats(const Array& a) {
  std::vector<double> v = a.to_vector();
  Stats s;
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(v.size());
  for (double x : v) s.std += (x - s.mean) * (x - s.mean);
  s.std = std::sqrt(s.std / static_cast<double>(v.size()));
  return s;
}

std::int64_t random_state_value() { return default_graph().random_state().value().item<std::int64_t>(); }

TEST(RandomPhilox, MatchesKnownAnswerVectors) {
  // Random123's kat_vectors for philox4x32 with 10 rounds.
  using W = std::array<std::uint32_t, 4>;
  EXPECT_EQ(ops::philox4x32_10({0, 0, 0, 0}, {0, 0}), (W{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(ops::philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (W{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(ops::philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (W{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(RandomReproducibility, SameSeedSameDrawsInTwoGraphs) {
  reset_default_graph();
  auto draw_all = [] {
    random::seed(42);
    std::vector<Array> out;
    for (const Tensor& t :
         {random::uniform({50}), random::normal({50}, 0, 1, DType::f64), random::truncated_normal({50}),
          random::bernoulli({50}, 0.3), random::randint({50}, -5, 5), random::permutation(50)})
      out.push_back(t.eval());
    return out;
  };
  Graph g1, g2;
  std::vector<Array> a, b;
  {
    DefaultGraph guard(g1);
    a = draw_all();
  }
  {
    DefaultGraph guard(g2);
    b = draw_all();
  }
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(a[i].equals(b[i])) << "draw " << i;
}

TEST(RandomReproducibility, SeedResetRepeatsTheSequence) {
  reset_default_graph();
  random::seed(7);
  Tensor x = random::uniform({100});
  Array first = x.eval(), second = x.eval();
  random::seed(7);
  EXPECT_TRUE(x.eval().equals(first));
  EXPECT_TRUE(x.eval().equals(second));
  // A new op built after the same seed gets the same stream as the first op did.
  random::seed(7);
  Tensor y = random::uniform({100});
  EXPECT_TRUE(y.eval().equals(first));
}

TEST(RandomReproducibility, DifferentSeedsAndOpsDiffer) {
  reset_default_graph();
  random::seed(1);
  Array a = random::normal({64}).eval();
  random::seed(2);
  Array b = random::normal({64}).eval();
  EXPECT_FALSE(a.equals(b));
  // Two ops in one graph draw from different streams.
  reset_default_graph();
  Tensor x = random::uniform({64}), y = random::uniform({64});
  auto f = function({}, {x, y});
  auto values = f({});
  EXPECT_FALSE(values[0].equals(values[1]));
}

TEST(RandomFreshness, EachEvalDrawsNewNumbersAndAdvancesTheState) {
  reset_default_graph();
  Tensor x = random::uniform({32});
  EXPECT_EQ(random_state_value(), 0);
  Array a = x.eval();
  EXPECT_EQ(random_state_value(), 1);
  Array b = x.eval();
  EXPECT_EQ(random_state_value(), 2);
  EXPECT_FALSE(a.equals(b));
}

TEST(RandomFreshness, EachFunctionCallDrawsNewNumbers) {
  reset_default_graph();
  Tensor x = random::normal({32});
  Tensor k = random::randint({32}, 0, 1000000);
  auto f = function({}, {x, k});
  auto a = f({}), b = f({});
  EXPECT_FALSE(a[0].equals(b[0]));
  EXPECT_FALSE(a[1].equals(b[1]));
  EXPECT_EQ(random_state_value(), 2);
}

TEST(RandomFreshness, OneEvaluationSeesOneDrawPerOp) {
  reset_default_graph();
  Tensor x = random::uniform({16});
  auto f = function({}, {x, x});
  auto v = f({});
  EXPECT_TRUE(v[0].equals(v[1]));
}

TEST(RandomUniform, StatisticsShapeAndDtype) {
  reset_default_graph();
  random::seed(3);
  Tensor x = random::uniform({100, 200}, -2, 4);
  EXPECT_EQ(x.shape(), (Shape{100, 200}));
  EXPECT_EQ(x.dtype(), DType::f32);
  Array a = x.eval();
  ASSERT_EQ(a.shape(), (Shape{100, 200}));
  ASSERT_EQ(a.dtype(), DType::f32);
  Stats s = stats(a);
  EXPECT_NEAR(s.mean, 1.0, 0.05);
  EXPECT_NEAR(s.std, 6 / std::sqrt(12.0), 0.03);
  EXPECT_GE(s.min, -2.0);
  EXPECT_LT(s.max, 4.0);
  EXPECT_LT(s.min, -1.99);
  EXPECT_GT(s.max, 3.99);

  Array d = random::uniform({20000}, 0, 1, DType::f64).eval();
  EXPECT_EQ(d.dtype(), DType::f64);
  Stats sd = stats(d);
  EXPECT_NEAR(sd.mean, 0.5, 0.01);
  EXPECT_GE(sd.min, 0.0);
  EXPECT_LT(sd.max, 1.0);
  // Float64 draws use more than float32's 24 bits.
  bool fine = false;
  for (std::int64_t i = 0; i < d.size(); ++i)
    fine = fine || static_cast<double>(static_cast<float>(d.get_flat(i))) != d.get_flat(i);
  EXPECT_TRUE(fine);
}

TEST(RandomUniform, StaysBelowHighInFloat32) {
  reset_default_graph();
  // A range where rounding low + (high - low) u to float32 would often reach high.
  Array a = random::uniform({20000}, 1.0, 1.0000001).eval();
  for (std::int64_t i = 0; i < a.size(); ++i) {
    ASSERT_GE(a.get_flat(i), static_cast<double>(1.0f));
    ASSERT_LT(a.get_flat(i), 1.0000001);
  }
}

TEST(RandomUniform, ScalarAndEmptyShapes) {
  reset_default_graph();
  Array s = random::uniform({}).eval();
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_EQ(s.size(), 1);
  Array e = random::normal({3, 0}).eval();
  EXPECT_EQ(e.shape(), (Shape{3, 0}));
  EXPECT_EQ(random::permutation(0).eval().shape(), Shape{0});
}

TEST(RandomNormal, Statistics) {
  reset_default_graph();
  random::seed(11);
  Array a = random::normal({20000}, 3, 2).eval();
  EXPECT_EQ(a.dtype(), DType::f32);
  Stats s = stats(a);
  EXPECT_NEAR(s.mean, 3.0, 0.06);
  EXPECT_NEAR(s.std, 2.0, 0.06);
  // Tails: about 4.55% of draws lie beyond two standard deviations.
  std::int64_t beyond = 0;
  for (std::int64_t i = 0; i < a.size(); ++i) beyond += std::fabs(a.get_flat(i) - 3) > 4;
  EXPECT_NEAR(static_cast<double>(beyond) / 20000, 0.0455, 0.008);

  Array d = random::normal({20000}, -1, 0.5, DType::f64).eval();
  EXPECT_EQ(d.dtype(), DType::f64);
  Stats sd = stats(d);
  EXPECT_NEAR(sd.mean, -1.0, 0.02);
  EXPECT_NEAR(sd.std, 0.5, 0.02);
  // Zero standard deviation gives the mean.
  EXPECT_TRUE(random::normal({4}, 5, 0).eval().equals(Array::full({4}, 5)));
}

TEST(RandomTruncatedNormal, BoundsAndStatistics) {
  reset_default_graph();
  random::seed(5);
  Array a = random::truncated_normal({20000}, 1, 3).eval();  // [-2, 2] std-units: [-5, 7]
  Stats s = stats(a);
  EXPECT_GE(s.min, -5.0);
  EXPECT_LE(s.max, 7.0);
  EXPECT_LT(s.min, -4.8);
  EXPECT_GT(s.max, 6.8);
  EXPECT_NEAR(s.mean, 1.0, 0.08);
  // The standard deviation of a standard normal truncated to [-2, 2] is about 0.8796.
  EXPECT_NEAR(s.std, 3 * 0.8796, 0.06);

  // One-sided and far-tail bounds: [1, 1.5] and [4, 5] std-units.
  Array b = random::truncated_normal({20000}, 0, 1, 1, 1.5, DType::f64).eval();
  Stats sb = stats(b);
  EXPECT_GE(sb.min, 1.0);
  EXPECT_LE(sb.max, 1.5);
  EXPECT_NEAR(sb.mean, 1.2243, 0.006);  // E[X | 1 <= X <= 1.5]
  Array c = random::truncated_normal({5000}, 0, 1, 4, 5, DType::f64).eval();
  Stats sc = stats(c);
  EXPECT_GE(sc.min, 4.0);
  EXPECT_LE(sc.max, 5.0);
  EXPECT_NEAR(sc.mean, 4.2168, 0.015);  // E[X | 4 <= X <= 5]
  Array neg = random::truncated_normal({5000}, 0, 1, -5, -4, DType::f64).eval();
  EXPECT_NEAR(stats(neg).mean, -4.2168, 0.015);
  for (double v : neg.to_vector()) ASSERT_TRUE(v >= -5 && v <= -4) << v;
}

TEST(RandomTruncatedNormal, FarTailsAreSampledNotClampedToTheBound) {
  reset_default_graph();
  random::seed(17);
  // E[X | a <= X <= b] for a standard normal far in the tail is 1/m(a) ~ a + 1/a - 2/a^3 (m the
  // Mills ratio; b - a is many tail lengths 1/a here, so the upper bound barely matters).
  struct Case {
    double lower, upper, mean;
  };
  for (Case c : {Case{38, 39, 38 + 1 / 38.0 - 2 / (38.0 * 38 * 38)}, Case{40, 41, 40 + 1 / 40.0 - 2 / 64000.0},
                 Case{-41, -40, -(40 + 1 / 40.0 - 2 / 64000.0)}, Case{100, 101, 100 + 0.01 - 2e-6},
                 Case{8, 1e300, 8 + 1 / 8.0 - 2 / 512.0 + 10 / 32768.0}}) {
    for (DType dtype : {DType::f32, DType::f64}) {
      SCOPED_TRACE(std::to_string(c.lower) + " " + std::string(dtype_name(dtype)));
      Array a = random::truncated_normal({20000}, 0, 1, c.lower, c.upper, dtype).eval();
      std::vector<double> v = a.to_vector();
      for (double x : v) ASSERT_TRUE(x >= c.lower && x <= c.upper) << x;
      std::sort(v.begin(), v.end());
      EXPECT_GT(std::unique(v.begin(), v.end()) - v.begin(), 1000);
      EXPECT_NEAR(stats(a).mean, c.mean, 0.004 / std::abs(c.lower) * 10);
    }
  }
}

TEST(RandomBernoulli, FrequencyAndDtypes) {
  reset_default_graph();
  random::seed(9);
  Tensor x = random::bernoulli({20000}, 0.3);
  EXPECT_EQ(x.dtype(), DType::b8);
  Array a = x.eval();
  EXPECT_EQ(a.dtype(), DType::b8);
  Stats s = stats(a);
  EXPECT_NEAR(s.mean, 0.3, 0.015);
  Array f = random::bernoulli({1000}, 0.5, DType::f32).eval();
  EXPECT_EQ(f.dtype(), DType::f32);
  for (double v : f.to_vector()) ASSERT_TRUE(v == 0 || v == 1);
  EXPECT_EQ(stats(random::bernoulli({100}, 0.0).eval()).max, 0.0);
  EXPECT_EQ(stats(random::bernoulli({100}, 1.0, DType::i32).eval()).min, 1.0);
}

TEST(RandomRandint, RangeAllValuesAndDtypes) {
  reset_default_graph();
  random::seed(13);
  Tensor x = random::randint({20000}, -3, 7);
  EXPECT_EQ(x.dtype(), DType::i64);
  Array a = x.eval();
  std::vector<int> counts(10, 0);
  for (std::int64_t i = 0; i < a.size(); ++i) {
    std::int64_t v = a.data<std::int64_t>()[i];
    ASSERT_GE(v, -3);
    ASSERT_LT(v, 7);
    ++counts[static_cast<std::size_t>(v + 3)];
  }
  for (int c : counts) EXPECT_NEAR(c, 2000, 200);

  Array b = random::randint({2, 3000}, 0, 2, DType::i32).eval();
  EXPECT_EQ(b.dtype(), DType::i32);
  EXPECT_EQ(b.shape(), (Shape{2, 3000}));
  std::set<std::int32_t> seen(b.data<std::int32_t>(), b.data<std::int32_t>() + b.size());
  EXPECT_EQ(seen, (std::set<std::int32_t>{0, 1}));
  // A single-value range.
  EXPECT_TRUE(random::randint({5}, 4, 5).eval().equals(Array::from_vector<std::int64_t>({4, 4, 4, 4, 4}, {5})));
  // Large int64 bounds.
  Array big = random::randint({1000}, -(std::int64_t{1} << 40), std::int64_t{1} << 40).eval();
  Stats sb = stats(big);
  EXPECT_GE(sb.min, -std::ldexp(1.0, 40));
  EXPECT_LT(sb.max, std::ldexp(1.0, 40));
  EXPECT_GT(sb.max - sb.min, std::ldexp(1.0, 40));
}

TEST(RandomPermutation, IsAPermutationAndVaries) {
  reset_default_graph();
  random::seed(17);
  Tensor p = random::permutation(1000);
  EXPECT_EQ(p.dtype(), DType::i64);
  EXPECT_EQ(p.shape(), Shape{1000});
  Array a = p.eval(), b = p.eval();
  for (const Array& x : {a, b}) {
    std::vector<std::int64_t> v(x.data<std::int64_t>(), x.data<std::int64_t>() + x.size());
    std::sort(v.begin(), v.end());
    for (std::int64_t i = 0; i < 1000; ++i) ASSERT_EQ(v[static_cast<std::size_t>(i)], i);
  }
  EXPECT_FALSE(a.equals(b));
  // Every position gets every value about equally often: position 0 over many small draws.
  Tensor small = random::permutation(4);
  std::vector<int> counts(4, 0);
  for (int i = 0; i < 4000; ++i) ++counts[static_cast<std::size_t>(small.eval().data<std::int64_t>()[0])];
  for (int c : counts) EXPECT_NEAR(c, 1000, 120);
  EXPECT_TRUE(random::permutation(1).eval().equals(Array::from_vector<std::int64_t>({0}, {1})));
}

TEST(RandomGradient, DrawsHaveNoGradient) {
  reset_default_graph();
  Tensor x = random::normal({3});
  const auto& rule = ops::op_def(OpKind::RandomNormal).vjp;
  ASSERT_NE(rule, nullptr);
  auto cotangents = rule(x, constant(Array::ones({3})));
  ASSERT_EQ(cotangents.size(), 1u);
  EXPECT_FALSE(cotangents[0].defined());
}

TEST(RandomErrors, BadArguments) {
  reset_default_graph();
  expect_error<ValueError>([] { random::uniform({3}, 1, 1); }, {"random.uniform", "low", "high"});
  expect_error<ValueError>([] { random::uniform({3}, 2, 1); }, {"random.uniform", "low (2)", "high (1)"});
  expect_error<DTypeError>([] { random::uniform({3}, 0, 1, DType::i32); }, {"random.uniform", "int32", "randint"});
  expect_error<DTypeError>([] { random::normal({3}, 0, 1, DType::b8); }, {"random.normal", "bool"});
  expect_error<ValueError>([] { random::normal({3}, 0, -1); }, {"random.normal", "stddev (-1)"});
  expect_error<ValueError>([] { random::truncated_normal({3}, 0, -0.5); }, {"random.truncated_normal", "stddev"});
  expect_error<ValueError>([] { random::truncated_normal({3}, 0, 1, 2, -2); }, {"random.truncated_normal", "lower"});
  expect_error<ValueError>([] { random::bernoulli({3}, 1.5); }, {"random.bernoulli", "p (1.5)", "[0, 1]"});
  expect_error<ValueError>([] { random::bernoulli({3}, -0.1); }, {"random.bernoulli", "[0, 1]"});
  expect_error<ValueError>([] { random::randint({3}, 5, 5); }, {"random.randint", "low (5)", "high (5)"});
  expect_error<DTypeError>([] { random::randint({3}, 0, 5, DType::f32); }, {"random.randint", "float32"});
  expect_error<ValueError>([] { random::randint({3}, 0, std::int64_t{1} << 32, DType::i32); },
                           {"random.randint", "int32"});
  expect_error<ValueError>([] { random::permutation(-1); }, {"random.permutation", "negative"});
  expect_error<ShapeError>([] { random::uniform({2, -1}); }, {"random.uniform", "negative dimension", "(2, -1)"});
  expect_error<ShapeError>([] { random::normal({-3}); }, {"random.normal", "negative"});
  // A failed call consumes no key: the next op is as if the failing call never happened.
  random::seed(4);
  Array a = random::uniform({8}).eval();
  random::seed(4);
  EXPECT_THROW(random::uniform({8}, 1, 0), ValueError);
  EXPECT_TRUE(random::uniform({8}).eval().equals(a));
}

// SymJAX's Seed: draws given one Seed share its stream (their own keys, one state), reproducibly from its
// number; an integer seed is a stream for one draw; update moves the stream on or to another seed's state.
TEST(RandomSeedObject, SharedStreamUpdateAndErrors) {
  reset_default_graph();
  random::seed(1);
  random::Seed s(7);
  EXPECT_FALSE(s.state().defined());  // made at the first draw
  Tensor a = random::normal({4}, 0, 1, DType::f32, s), b = random::normal({4}, 0, 1, DType::f32, s);
  ASSERT_TRUE(s.state().defined());
  EXPECT_FALSE(s.state().trainable());
  const Array va = a.eval(), vb = b.eval();
  EXPECT_FALSE(va.equals(vb));
  EXPECT_TRUE(random::normal({4}, 0, 1, DType::f32, 7)
                  .eval()
                  .equals(random::normal({4}, 0, 1, DType::f32, 7).eval()));  // one integer, one key: the same numbers
  Graph g;
  {
    DefaultGraph guard(g);
    random::seed(99);  // another global seed: the Seed's numbers do not change
    random::Seed t(7);
    EXPECT_TRUE(random::normal({4}, 0, 1, DType::f32, t).eval().equals(va));
  }
  Function f = function({}, {a});
  s.update(5);
  const Array after5 = f({})[0];
  s.update(5);
  EXPECT_TRUE(f({})[0].equals(after5));
  s.update();
  EXPECT_FALSE(f({})[0].equals(after5));
  expect_error<ValueError>([] { random::Seed().update(); }, {"this is no seed"});
  EXPECT_FALSE(static_cast<bool>(random::Seed(std::nullopt)));
  EXPECT_EQ(*random::Seed(3), 3u);
}

}  // namespace
}  // namespace symx

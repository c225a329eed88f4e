// Reductions, arg-reductions and cumsum: values, dtypes, gradients (incl. second order) and errors.
#include <cmath>
#include <limits>

#include "test_util.hpp"

namespace symx {
namespace {

using testing::expect_close;
using testing::expect_error;
using testing::expect_gradients_match;
using testing::random_array;

// 0, 1, 2, ... in `shape`.
Array iota(const Shape& shape, DType dtype = DType::f64) {
  return Array::arange(0, static_cast<double>(num_elements(shape)), 1, dtype).reshape(shape);
}

// Expects `actual` to hold `expected` (row-major), within tolerance.
void expect_values(const Array& actual, const std::vector<double>& expected, double rtol = 1e-6, double atol = 1e-7) {
  testing::expect_close(actual, expected, rtol, atol);
}

Array f64(const std::vector<double>& v, const Shape& shape) { return Array::from_vector(v, shape); }

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(ReduceForward, SumAxesAndKeepdims) {
  Tensor x = constant(iota({2, 3, 4}));
  Array all = sum(x).eval();
  EXPECT_EQ(all.shape(), Shape{});
  EXPECT_EQ(all.item<double>(), 276);
  Array a0 = sum(x, 0).eval();
  EXPECT_EQ(a0.shape(), (Shape{3, 4}));
  expect_values(a0, {12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34});
  Array a02 = sum(x, {2, 0}).eval();
  EXPECT_EQ(a02.shape(), Shape{3});
  expect_values(a02, {60, 92, 124});
  Array keep = sum(x, -1, true).eval();
  EXPECT_EQ(keep.shape(), (Shape{2, 3, 1}));
  expect_values(keep, {6, 22, 38, 54, 70, 86});
  Array keep_all = sum(x, {}, true).eval();
  EXPECT_EQ(keep_all.shape(), (Shape{1, 1, 1}));
  EXPECT_EQ(keep_all.item<double>(), 276);
  // An empty axis list reduces nothing; an empty tensor sums to 0.
  EXPECT_EQ(sum(x, Axes(std::vector<int>{})).eval().shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(sum(constant(Array::zeros({0, 3}))).eval().item<double>(), 0);
  expect_values(sum(constant(Array::zeros({0, 3})), 0).eval(), {0, 0, 0});
}

TEST(ReduceForward, SumDtypes) {
  EXPECT_EQ(sum(constant(iota({4}, DType::i32))).dtype(), DType::i64);
  EXPECT_EQ(sum(constant(iota({4}, DType::u8))).dtype(), DType::i64);
  EXPECT_EQ(sum(constant(iota({4}, DType::f32))).dtype(), DType::f32);
  EXPECT_EQ(sum(constant(iota({4}, DType::f64))).dtype(), DType::f64);
  Tensor b = constant(Array::from_vector<bool>({true, false, true, true}, {4}));
  Array s = sum(b).eval();
  EXPECT_EQ(s.dtype(), DType::i64);
  EXPECT_EQ(s.item<std::int64_t>(), 3);
  // uint8 would wrap at 256; the int64 accumulator does not.
  Array big = sum(constant(Array::full({3}, 200, DType::u8))).eval();
  EXPECT_EQ(big.item<std::int64_t>(), 600);
  EXPECT_EQ(prod(constant(iota({3}, DType::i32))).dtype(), DType::i64);
  EXPECT_EQ(cumsum(b).eval().dtype(), DType::i64);
  EXPECT_EQ(max(constant(iota({3}, DType::u8))).dtype(), DType::u8);
  EXPECT_EQ(argmax(constant(iota({3}, DType::f32))).dtype(), DType::i64);
}

TEST(ReduceForward, MeanDtypes) {
  Tensor x = constant(iota({2, 3}));
  expect_values(mean(x, 1).eval(), {1, 4});
  expect_values(mean(x).eval(), {2.5});
  // Integer means are float32 (symx's default float).
  Array m = mean(constant(iota({2, 3}, DType::i32)), 0).eval();
  EXPECT_EQ(m.dtype(), DType::f32);
  expect_values(m, {1.5, 2.5, 3.5});
  EXPECT_EQ(mean(constant(iota({2}, DType::f32))).dtype(), DType::f32);
  EXPECT_TRUE(std::isnan(mean(constant(Array::zeros({0}, DType::f64))).eval().item<double>()));
}

TEST(ReduceForward, Prod) {
  Tensor y = constant(f64({1, -2, 3, 0, 5, -6}, {2, 3}));
  expect_values(prod(y, 1).eval(), {-6, 0});
  expect_values(prod(y, 0).eval(), {0, -10, -18});
  EXPECT_EQ(prod(y).eval().item<double>(), 0);
  EXPECT_EQ(prod(constant(Array::zeros({0}))).eval().item<double>(), 1);
  Array ints = prod(constant(Array::from_vector<std::int32_t>({100000, 100000}, {2}))).eval();
  EXPECT_EQ(ints.item<std::int64_t>(), 10000000000LL);
}

TEST(ReduceForward, MaxMinWithNaN) {
  Tensor x = constant(iota({2, 3, 4}));
  expect_values(max(x, 1).eval(), {8, 9, 10, 11, 20, 21, 22, 23});
  expect_values(min(x, {0, 1}).eval(), {0, 1, 2, 3});
  EXPECT_EQ(max(x, 1, true).eval().shape(), (Shape{2, 1, 4}));
  Tensor n = constant(f64({1, kNaN, 3, -kInf, 2, 0}, {2, 3}));
  Array mx = max(n, 1).eval();
  EXPECT_TRUE(std::isnan(mx.get_flat(0)));
  EXPECT_EQ(mx.get_flat(1), 2);
  EXPECT_EQ(min(n, 1).eval().get_flat(1), -kInf);
  Tensor b = constant(Array::from_vector<bool>({false, true, false, false}, {2, 2}));
  Array bm = max(b, 1).eval();
  EXPECT_EQ(bm.dtype(), DType::b8);
  EXPECT_EQ(bm.to_vector(), (std::vector<double>{1, 0}));
}

TEST(ReduceForward, LogSumExpIsStable) {
  Tensor z = constant(f64({1, 2, 3, -1, 0, 4}, {2, 3}));
  expect_values(logsumexp(z, 1).eval(), {3.4076059644443806, 4.024744890138822});
  EXPECT_EQ(logsumexp(z, 1, true).eval().shape(), (Shape{2, 1}));
  // Values whose exp overflows.
  expect_values(logsumexp(constant(f64({1000, 1000}, {2}))).eval(), {1000 + std::log(2.0)}, 1e-12);
  // All -inf gives -inf (not NaN); +inf gives +inf.
  EXPECT_EQ(logsumexp(constant(f64({-kInf, -kInf}, {2}))).eval().item<double>(), -kInf);
  EXPECT_EQ(logsumexp(constant(f64({1, kInf}, {2}))).eval().item<double>(), kInf);
  EXPECT_EQ(logsumexp(constant(iota({3}, DType::i32))).dtype(), DType::f32);
}

TEST(ReduceForward, VarStd) {
  Tensor z = constant(f64({1, 2, 3, -1, 0, 4}, {2, 3}));
  expect_values(var(z, 1).eval(), {0.6666666666666666, 4.666666666666667});
  expect_values(std(z, 0).eval(), {1, 1, 0.5});
  expect_values(var(z).eval(), {2.9166666666666665});
  EXPECT_EQ(var(z, 1, true).eval().shape(), (Shape{2, 1}));
  EXPECT_EQ(std(constant(iota({3}, DType::i64))).dtype(), DType::f32);
}

TEST(ReduceForward, ArgmaxArgmin) {
  Tensor a = constant(Array::from_vector<std::int32_t>({3, 1, 3, 0, 7, 7}, {2, 3}));
  expect_values(argmax(a, 1).eval(), {0, 1});  // first of the ties
  expect_values(argmin(a, 0).eval(), {1, 0, 0});
  EXPECT_EQ(argmax(a).eval().item<std::int64_t>(), 4);
  EXPECT_EQ(argmin(a).eval().item<std::int64_t>(), 3);
  EXPECT_EQ(argmax(a, -1, true).eval().shape(), (Shape{2, 1}));
  EXPECT_EQ(argmax(a, std::nullopt, true).eval().shape(), (Shape{1, 1}));
  // The first NaN wins, as NumPy.
  Tensor n = constant(f64({1, kNaN, 5, kNaN}, {4}));
  EXPECT_EQ(argmax(n).eval().item<std::int64_t>(), 1);
  EXPECT_EQ(argmin(n).eval().item<std::int64_t>(), 1);
}

TEST(ReduceForward, Cumsum) {
  Tensor a = constant(Array::from_vector<std::int32_t>({3, 1, 3, 0, 7, 7}, {2, 3}));
  Array c1 = cumsum(a, 1).eval();
  EXPECT_EQ(c1.dtype(), DType::i64);
  EXPECT_EQ(c1.shape(), (Shape{2, 3}));
  expect_values(c1, {3, 4, 7, 0, 7, 14});
  Array flat = cumsum(a).eval();
  EXPECT_EQ(flat.shape(), Shape{6});
  expect_values(flat, {3, 4, 7, 7, 14, 21});
  expect_values(cumsum(a, -2).eval(), {3, 1, 3, 3, 8, 10});
  EXPECT_EQ(cumsum(constant(iota({2}, DType::f32))).dtype(), DType::f32);
}

// ---- gradients ----

TEST(ReduceGrad, SumMean) {
  Array x = random_array({2, 3, 4});
  expect_gradients_match([](const auto& v) { return sum(v[0]); }, {x});
  expect_gradients_match([](const auto& v) { return sum(v[0], {0, 2}); }, {x});
  expect_gradients_match([](const auto& v) { return sum(v[0], 1, true); }, {x});
  expect_gradients_match([](const auto& v) { return mean(v[0], -1); }, {x});
  expect_gradients_match([](const auto& v) { return mean(v[0], {}, true); }, {x});
}

TEST(ReduceGrad, ProdIncludingZeros) {
  expect_gradients_match([](const auto& v) { return prod(v[0], 1); }, {random_array({3, 4}, 0.5, 2, 1)});
  // Rows with no zero, one zero and two zeros.
  Array z = f64({1.5, -2, 0.5, 3, 0, 2, 0, 0.7, 0}, {3, 3});
  expect_gradients_match([](const auto& v) { return prod(v[0], 1); }, {z});
  expect_gradients_match([](const auto& v) { return prod(v[0]); }, {f64({2, 0, 3}, {3})});
  expect_gradients_match([](const auto& v) { return prod(v[0], 0, true); }, {z});
  // The exact gradient at a single zero: the product of the others.
  Tensor p = placeholder({3}, DType::f64);
  Array g = grad(prod(p), {p})[0].eval({{p, f64({2, 0, 3}, {3})}});
  expect_values(g, {0, 6, 0});
}

TEST(ReduceGrad, MaxMinSplitsTies) {
  expect_gradients_match([](const auto& v) { return max(v[0], 1); }, {random_array({3, 4}, -1, 1, 2)});
  expect_gradients_match([](const auto& v) { return min(v[0], {0, 1}, true); }, {random_array({3, 4}, -1, 1, 3)});
  // Two tied maxima: each gets half, which is also the central difference.
  expect_gradients_match([](const auto& v) { return max(v[0]); }, {f64({1, 3, 3, 2}, {4})});
  Tensor p = placeholder({4}, DType::f64);
  Array g = grad(max(p), {p})[0].eval({{p, f64({3, 1, 3, 3}, {4})}});
  expect_values(g, {1.0 / 3, 0, 1.0 / 3, 1.0 / 3});
  Array gm = grad(sum(min(p, 0, true)), {p})[0].eval({{p, f64({1, 2, 1, 5}, {4})}});
  expect_values(gm, {0.5, 0, 0.5, 0});
}

TEST(ReduceGrad, LogSumExpVarStdCumsum) {
  Array x = random_array({3, 4}, -2, 2, 4);
  expect_gradients_match([](const auto& v) { return logsumexp(v[0], 1); }, {x});
  expect_gradients_match([](const auto& v) { return logsumexp(v[0]); }, {x});
  expect_gradients_match([](const auto& v) { return var(v[0], 0); }, {x});
  expect_gradients_match([](const auto& v) { return std(v[0], 1, true); }, {x});
  expect_gradients_match([](const auto& v) { return cumsum(v[0], 1); }, {x});
  expect_gradients_match([](const auto& v) { return cumsum(v[0], 0); }, {x});
  expect_gradients_match([](const auto& v) { return cumsum(v[0]); }, {x});
  // Gradients with large inputs stay finite (the shift cancels).
  Tensor p = placeholder({2}, DType::f64);
  expect_values(grad(logsumexp(p), {p})[0].eval({{p, f64({1000, 1000}, {2})}}), {0.5, 0.5});
}

TEST(ReduceGrad, ArgmaxHasNoGradient) {
  Tensor p = placeholder({3}, DType::f64);
  Tensor cost = sum(p * cast(argmax(p), DType::f64));
  expect_values(grad(cost, {p})[0].eval({{p, f64({1, 5, 2}, {3})}}), {1, 1, 1});
}

TEST(ReduceGrad, SecondOrder) {
  // Hessian of logsumexp: diag(s) - s s^T with s = softmax(x).
  Tensor p = placeholder({3}, DType::f64);
  Array x = f64({0.1, -0.4, 0.7}, {3});
  Array h = hessian(logsumexp(p), p).eval({{p, x}});
  std::vector<double> s(3), expected;
  double total = 0;
  for (int i = 0; i < 3; ++i) total += std::exp(x.get_flat(i));
  for (int i = 0; i < 3; ++i) s[static_cast<std::size_t>(i)] = std::exp(x.get_flat(i)) / total;
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) expected.push_back((i == j ? s[i] : 0) - s[i] * s[j]);
  EXPECT_EQ(h.shape(), (Shape{3, 3}));
  expect_values(h, expected, 1e-9, 1e-12);
  // Hessian of prod at a point with one zero: d2/dxi dxj = prod of the rest.
  Array hp = hessian(prod(p), p).eval({{p, f64({2, 0, 3}, {3})}});
  expect_values(hp, {0, 3, 0, 3, 0, 2, 0, 2, 0});
  // Hessian of sum(x^2 * cumsum(x)) against finite differences of the gradient.
  Array y = f64({0.3, -1.2, 0.8}, {3});
  auto f = [&](const Tensor& t) { return sum(square(t) * cumsum(t)); };
  Array hc = hessian(f(p), p).eval({{p, y}});
  Tensor gfun = grad(f(p), {p})[0];
  for (std::int64_t j = 0; j < 3; ++j) {
    Array plus = y.copy(), minus = y.copy();
    plus.set_flat(j, y.get_flat(j) + 1e-6);
    minus.set_flat(j, y.get_flat(j) - 1e-6);
    Array gp = gfun.eval({{p, plus}}), gm = gfun.eval({{p, minus}});
    for (std::int64_t i = 0; i < 3; ++i)
      EXPECT_NEAR(hc.get_flat(i * 3 + j), (gp.get_flat(i) - gm.get_flat(i)) / 2e-6, 1e-5);
  }
  // Second derivative of var through max-shifted ops: d2/dx2 var = (2/n)(I - 1/n).
  Array hv = hessian(var(p), p).eval({{p, y}});
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 3; ++j) EXPECT_NEAR(hv.get_flat(i * 3 + j), (2.0 / 3) * ((i == j) - 1.0 / 3), 1e-12);
}

// ---- errors ----

TEST(ReduceErrors, Axes) {
  Graph graph;  // a fresh graph, so placeholder names are not uniquified
  DefaultGraph guard(graph);
  Tensor x = placeholder({2, 3}, DType::f32, "x");
  expect_error<ShapeError>([&] { sum(x, 2); }, {"sum:", "axis 2 is out of range", "(2, 3)", "Use an axis in [-2, 2)"});
  expect_error<ShapeError>(
      [&] {
        mean(x, {0, -2});
      },
      {"mean:", "axis 0 appears more than once", "(2, 3)", "List each axis at most once"});
  expect_error<ShapeError>([&] { argmax(x, -3); }, {"argmax:", "axis -3", "Use an axis in [-2, 2)"});
  expect_error<ShapeError>([&] { cumsum(x, 5); }, {"cumsum:", "axis 5"});
  expect_error<ShapeError>([&] { sum(x, {1, 1}); }, {"test_reduce.cpp:"});
}

TEST(ReduceErrors, EmptyMaxAndArgmax) {
  Graph graph;  // a fresh graph, so placeholder names are not uniquified
  DefaultGraph guard(graph);
  Tensor e = placeholder({2, 0}, DType::f32, "e");
  expect_error<ShapeError>([&] { max(e, 1); },
                           {"max:", "size 0", "(2, 0)", "no identity", "Reduce only non-empty axes"});
  expect_error<ShapeError>([&] { min(e); }, {"min:", "(2, 0)"});
  expect_error<ShapeError>([&] { argmin(e, 1); }, {"argmin:", "empty sequence", "(2, 0)"});
  expect_error<ShapeError>([&] { logsumexp(e, 1); }, {"logsumexp:", "size 0"});
  // Reducing the non-empty axis is fine.
  EXPECT_EQ(max(e, 0).shape(), Shape{0});
}

}  // namespace
}  // namespace symx

// Placeholders with sizes unknown until a call (kDynamic; Python None): symbolic shape inference,
// one specialization (and compile) per input shape, values and gradients equal to the same graph
// built with static shapes, and clear errors for what needs a size at build time.
#include "test_util.hpp"

namespace sx = symx;
using sx::testing::expect_close;
using sx::testing::expect_error;
using sx::testing::random_array;

namespace {

// mean((x @ w + b - y)^2) by plain loops: the reference for the regression tests.
double mse_by_hand(const sx::Array& x, const sx::Array& w, const sx::Array& b, const sx::Array& y) {
  std::int64_t n = x.shape()[0], k = x.shape()[1];
  double total = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    double p = b.get_flat(0);
    for (std::int64_t j = 0; j < k; ++j) p += x.get_flat(i * k + j) * w.get_flat(j);
    total += (p - y.get_flat(i)) * (p - y.get_flat(i));
  }
  return total / static_cast<double>(n);
}

}  // namespace

TEST(Dynamic, ShapesKeepUnknownSizesSymbolic) {
  sx::Graph graph;
  sx::DefaultGraph guard(graph);
  auto x = sx::placeholder({sx::kDynamic, 28, 28}, sx::f32, "x");
  EXPECT_TRUE(sx::is_symbol(x.shape()[0]));
  EXPECT_EQ(x.shape()[1], 28);
  EXPECT_EQ(x.size(), sx::kDynamic);
  EXPECT_EQ(sx::shape_string(x.shape()), "(None, 28, 28)");
  auto flat = sx::reshape(x, {-1, 784});
  EXPECT_EQ(flat.shape()[0], x.shape()[0]);  // the same unknown size, carried through
  auto w = sx::variable(sx::Array::zeros({784, 10}), "w");
  auto logits = sx::matmul(flat, w) + sx::variable(sx::Array::zeros({10}), "b");
  EXPECT_EQ(logits.shape()[0], x.shape()[0]);
  EXPECT_EQ(logits.shape()[1], 10);
  EXPECT_EQ(sx::mean(logits).shape(), sx::Shape{});
  EXPECT_EQ(sx::sum(logits, {0}).shape(), sx::Shape{10});
  // Known sizes are still checked when the node is built.
  expect_error<sx::ShapeError>(
      [&] {
        sx::matmul(flat, sx::variable(sx::Array::zeros({783, 10})));
      },
      {"matmul", "784", "783"});
}

TEST(Dynamic, OneCompilePerInputShapeAndValuesOfEachBatch) {
  sx::Graph graph;
  sx::DefaultGraph guard(graph);
  auto x = sx::placeholder({sx::kDynamic, 5}, sx::f64, "x");
  auto y = sx::placeholder({sx::kDynamic}, sx::f64, "y");
  auto w = sx::variable(random_array({5}, -1, 1, 1), "w");
  auto b = sx::variable(sx::Array::full({1}, 0.5, sx::f64), "b");
  auto loss = sx::mean(sx::square(sx::matmul(x, w) + b - y));
  auto f = sx::function({x, y}, {loss});
  for (std::int64_t n : {64, 40, 64, 1, 40}) {
    sx::Array xb = random_array({n, 5}, -1, 1, static_cast<unsigned>(n)), yb = random_array({n}, -1, 1, 99);
    EXPECT_NEAR(f({xb, yb})[0].item<double>(), mse_by_hand(xb, w.value(), b.value(), yb), 1e-12) << "batch " << n;
    EXPECT_NEAR(loss.eval({{x, xb}, {y, yb}}).item<double>(), mse_by_hand(xb, w.value(), b.value(), yb), 1e-12);
  }
  EXPECT_EQ(f.compile_count(), 3);  // 64, 40 and 1
}

TEST(Dynamic, TrainingStepsOnBatchesOfEverySizeMatchAStaticGraph) {
  // SGD on batches 32, 32, 17 (an epoch's last batch): the same variables as a static graph per size.
  sx::Graph graph;
  sx::DefaultGraph guard(graph);
  auto x = sx::placeholder({sx::kDynamic, 4}, sx::f64, "x");
  auto y = sx::placeholder({sx::kDynamic, 1}, sx::f64, "y");
  sx::Array w0 = random_array({4, 1}, -1, 1, 7);
  auto w = sx::variable(w0, "w");
  auto loss = sx::mean(sx::square(sx::matmul(x, w) - y));
  auto g = sx::grad(loss, {w})[0];
  auto step = sx::function({x, y}, {loss}, {{w, w - 0.1 * g}});
  sx::Array expected = w0;
  for (std::int64_t n : {32, 32, 17}) {
    sx::Array xb = random_array({n, 4}, -1, 1, static_cast<unsigned>(n + 3)), yb = random_array({n, 1}, -1, 1, 5);
    // The reference: the same step with static shapes of this batch.
    sx::Graph fixed_graph;
    sx::DefaultGraph fixed_guard(fixed_graph);
    auto xs = sx::placeholder({n, 4}, sx::f64, "x");
    auto ys = sx::placeholder({n, 1}, sx::f64, "y");
    auto ws = sx::variable(expected, "w");
    auto ls = sx::mean(sx::square(sx::matmul(xs, ws) - ys));
    auto gs = sx::grad(ls, {ws})[0];
    sx::function({xs, ys}, {ls}, {{ws, ws - 0.1 * gs}})({xb, yb});
    expected = ws.value();
    step({xb, yb});
    expect_close(w.value(), expected, 1e-12, 1e-14);
  }
  EXPECT_EQ(step.compile_count(), 2);
}

TEST(Dynamic, CallsCheckKnownSizesAndEqualUnknownOnes) {
  sx::Graph graph;
  sx::DefaultGraph guard(graph);
  auto x = sx::placeholder({sx::kDynamic, 3}, sx::f32, "x");
  auto y = sx::placeholder({sx::kDynamic, 3}, sx::f32, "y");
  auto f = sx::function({x, y}, {sx::sum(x * y)});
  expect_error<sx::ShapeError>(
      [&] {
        f({sx::Array::zeros({4, 2}), sx::Array::zeros({4, 3})});
      },
      {"placeholder 'x'", "(None, 3)", "(4, 2)"});
  expect_error<sx::ShapeError>(
      [&] {
        f({sx::Array::zeros({4}), sx::Array::zeros({4, 3})});
      },
      {"placeholder 'x'", "axes"});
  // x and y meet in x * y: a call with 4 and 5 rows cannot multiply them.
  expect_error<sx::ShapeError>(
      [&] {
        f({sx::Array::zeros({4, 3}), sx::Array::zeros({5, 3})});
      },
      {"x (4, 3)", "y (5, 3)", "multiply"});
  EXPECT_EQ(f({sx::Array::ones({4, 3}), sx::Array::ones({4, 3})})[0].item<double>(), 12);
}

TEST(Dynamic, OpsThatNeedTheUnknownSizeSaySo) {
  sx::Graph graph;
  sx::DefaultGraph guard(graph);
  auto x = sx::placeholder({sx::kDynamic, 3}, sx::f32, "x");
  expect_error<sx::ShapeError>([&] { sx::slice(x, {sx::Index::range(1, std::nullopt)}); }, {"slice", "axis 0", "None"});
  expect_error<sx::ShapeError>([&] { x[-1]; }, {"slice", "from the end", "None"});
  expect_error<sx::ShapeError>([&] { sx::reshape(x, {6, -1}); }, {"reshape", "(None, 3)"});
  expect_error<sx::ShapeError>([&] { sx::jacobian(sx::sum(x, {1}), x); }, {"jacobian", "unknown", "vjp"});
  // Whole axes, indices from the start and -1 reshapes work, with the call's sizes.
  auto f = sx::function({x}, {x[1], sx::reshape(x, {-1}), sx::slice(x, {sx::Index::all(), sx::Index(2)})});
  sx::Array xb = sx::Array::from_vector<float>({0, 1, 2, 3, 4, 5}, {2, 3});
  auto out = f({xb});
  expect_close(out[0], {3, 4, 5});
  expect_close(out[1], {0, 1, 2, 3, 4, 5});
  expect_close(out[2], {2, 5});
  expect_error<sx::ShapeError>([&] { f({sx::Array::zeros({1, 3})}); }, {"slice", "x (1, 3)"});
}

TEST(Dynamic, MeanOverTheBatchDividesByTheCallsBatch) {
  sx::Graph graph;
  sx::DefaultGraph guard(graph);
  auto x = sx::placeholder({sx::kDynamic, 2}, sx::f32, "x");
  auto f = sx::function({x}, {sx::mean(x, {0}), sx::var(x), sx::mean(x)});
  for (std::int64_t n : {1, 3, 5000}) {  // 5000: more than constant folding materializes
    sx::Array xb(sx::Shape{n, 2}, sx::f32);
    for (std::int64_t i = 0; i < n; ++i) {
      xb.set_flat(2 * i, static_cast<double>(i));
      xb.set_flat(2 * i + 1, 1.0);
    }
    auto out = f({xb});
    double m = static_cast<double>(n - 1) / 2;
    expect_close(out[0], {m, 1.0}, 1e-6);
    expect_close(out[2], {(m + 1) / 2}, 1e-6);
    // var over all 2n values of {0..n-1} and n ones.
    double s1 = 0, s2 = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      s1 += static_cast<double>(i) + 1;
      s2 += static_cast<double>(i * i) + 1;
    }
    double mu = s1 / static_cast<double>(2 * n);
    expect_close(out[1], {s2 / static_cast<double>(2 * n) - mu * mu}, 1e-4, 1e-4);
  }
}

TEST(Dynamic, ConvolutionPoolingAndRandomDrawsTakeTheBatchFromTheCall) {
  sx::Graph graph;
  sx::DefaultGraph guard(graph);
  auto x = sx::placeholder({sx::kDynamic, 1, 6, 6}, sx::f32, "images");
  auto w = sx::variable(sx::Array::ones({2, 1, 3, 3}), "w");
  auto h = sx::nn::max_pool2d(sx::nn::relu(sx::nn::conv2d(x, w, {1, 1}, std::string("SAME"))), {2, 2});
  EXPECT_TRUE(sx::is_symbol(h.shape()[0]));
  EXPECT_EQ(h.shape()[1], 2);
  auto keep = sx::random::bernoulli(h.shape(), 1.0);  // all kept: a draw shaped by the call
  auto out = sx::where(keep, h, 0.0f);
  auto loss = sx::sum(out);
  auto gw = sx::grad(loss, {w})[0];
  auto f = sx::function({x}, {out, gw});
  for (std::int64_t n : {3, 2}) {
    auto r = f({sx::Array::ones({n, 1, 6, 6})});
    EXPECT_EQ(r[0].shape(), (sx::Shape{n, 2, 3, 3}));
    // A 3x3 window of ones in a 6x6 image of ones (zero padding) sums to 9 inside, so each 2x2 max is 9.
    EXPECT_EQ(r[0].get_flat(4), 9);
    EXPECT_EQ(r[1].shape(), (sx::Shape{2, 1, 3, 3}));
  }
}

TEST(Dynamic, LeastRecentlyUsedSpecializationsAreDroppedBeyondTheBound) {
  sx::Graph graph;
  sx::DefaultGraph guard(graph);
  auto x = sx::placeholder({sx::kDynamic, 2}, sx::f64, "x");
  sx::FunctionOptions options;
  options.max_specializations = 2;
  auto f = sx::function({x}, {sx::sum(x * 3.0, {1})}, {}, options);
  auto call = [&](std::int64_t n) {
    sx::Array batch = random_array({n, 2}, -1, 1, static_cast<unsigned>(n));
    sx::Array out = f({batch})[0];
    for (std::int64_t i = 0; i < n; ++i)
      EXPECT_NEAR(out.get_flat(i), 3.0 * (batch.get_flat(2 * i) + batch.get_flat(2 * i + 1)), 1e-12);
  };
  call(4);
  call(5);
  call(4);  // 5 is now the least recently used
  EXPECT_EQ(f.compile_count(), 2);
  call(6);  // drops 5
  EXPECT_EQ(f.compile_count(), 3);
  std::string text = f.describe();
  EXPECT_NE(text.find("x (4, 2)"), std::string::npos) << text;
  EXPECT_NE(text.find("x (6, 2)"), std::string::npos) << text;
  EXPECT_EQ(text.find("x (5, 2)"), std::string::npos) << text;
  call(4);
  EXPECT_EQ(f.compile_count(), 3);
  call(5);  // made again, dropping 6
  EXPECT_EQ(f.compile_count(), 4);
  EXPECT_EQ(f.describe().find("x (6, 2)"), std::string::npos);
}

TEST(Dynamic, TheBoundComesFromTheEnvironmentAndIsChecked) {
  sx::Graph graph;
  sx::DefaultGraph guard(graph);
  sx::testing::SavedEnvironment saved({"SYMX_MAX_SPECIALIZATIONS"});
  auto x = sx::placeholder({sx::kDynamic}, sx::f64, "x");
  ::setenv("SYMX_MAX_SPECIALIZATIONS", "1", 1);
  auto f = sx::function({x}, {x + 1.0});
  for (std::int64_t n : {1, 2, 1}) EXPECT_EQ(f({sx::Array::zeros({n}, sx::f64)})[0].get_flat(0), 1.0);
  EXPECT_EQ(f.compile_count(), 3);  // one kept at a time
  ::setenv("SYMX_MAX_SPECIALIZATIONS", "many", 1);
  expect_error<sx::ValueError>([&] { sx::function({x}, {x + 1.0}); }, {"SYMX_MAX_SPECIALIZATIONS is 'many'"});
  ::unsetenv("SYMX_MAX_SPECIALIZATIONS");
  sx::FunctionOptions options;
  options.max_specializations = 0;
  expect_error<sx::ValueError>([&] { sx::function({x}, {x + 1.0}, {}, options); }, {"max_specializations is 0"});
}

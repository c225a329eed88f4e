// Library calls of the compiled backend (oneDNN convolution and average pooling, max pooling
// loops, BLAS matrix products) against the reference evaluator, forward and through gradients.
#include <cmath>
#include <limits>

#include "test_util.hpp"

namespace sx = symx;
using sx::testing::expect_close;
using sx::testing::random_array;

namespace {

// Library calls reassociate sums (im2col + GEMM), hence looser tolerances than elementwise kernels.
std::string expect_backends_agree(const std::vector<sx::Tensor>& inputs, const std::vector<sx::Tensor>& outputs,
                                  const std::vector<sx::Array>& values, double rtol = 1e-4, double atol = 1e-5) {
  return sx::testing::expect_backends_agree(inputs, outputs, values, rtol, atol);
}

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// Every library step of `text` runs a library call (none fell back to the reference).
void expect_no_fallback(const std::string& text) {
  EXPECT_FALSE(contains(text, "no library call")) << text;
  EXPECT_FALSE(contains(text, "reference evaluation")) << text;
}

struct Conv2dCase {
  sx::Shape x, w;
  std::vector<std::int64_t> strides, dilation;
  sx::nn::Padding padding;
  std::int64_t groups;
};

// conv2d forward and both gradients (through a relu and a random weighting of the output).
void check_conv2d(const Conv2dCase& c) {
  sx::reset_default_graph();
  auto x = sx::placeholder(c.x, sx::f32, "x");
  auto w = sx::placeholder(c.w, sx::f32, "w");
  auto y = sx::nn::conv2d(x, w, c.strides, c.padding, c.dilation, c.groups);
  auto r = sx::constant(random_array(y.shape(), -1, 1, 3, sx::f32));
  auto loss = sx::sum(sx::nn::relu(y) * r);
  auto g = sx::grad(loss, {x, w});
  std::string text = expect_backends_agree({x, w}, {y, g[0], g[1]},
                                           {random_array(c.x, -1, 1, 1, sx::f32), random_array(c.w, -1, 1, 2, sx::f32)});
  EXPECT_TRUE(contains(text, "library call (oneDNN convolution,")) << text;
  EXPECT_TRUE(contains(text, "library call (oneDNN convolution backward data")) << text;
  EXPECT_TRUE(contains(text, "library call (oneDNN convolution backward weights")) << text;
  expect_no_fallback(text);
}

}  // namespace

TEST(LibraryCalls, Conv2dSamePadding) { check_conv2d({{2, 3, 9, 8}, {4, 3, 3, 3}, {1, 1}, {1, 1}, "SAME", 1}); }

TEST(LibraryCalls, Conv2dStridedValid) { check_conv2d({{2, 3, 11, 10}, {5, 3, 3, 2}, {2, 3}, {1, 1}, "VALID", 1}); }

TEST(LibraryCalls, Conv2dExplicitAsymmetricPadding) {
  check_conv2d({{1, 2, 7, 9}, {3, 2, 4, 3}, {2, 1}, {1, 1}, sx::nn::Padding({{1, 2}, {0, 3}}), 1});
}

TEST(LibraryCalls, Conv2dDilation) { check_conv2d({{2, 3, 12, 11}, {4, 3, 3, 3}, {1, 2}, {2, 3}, "SAME", 1}); }

TEST(LibraryCalls, Conv2dGroups) { check_conv2d({{2, 4, 8, 8}, {6, 2, 3, 3}, {1, 1}, {1, 1}, "SAME", 2}); }

TEST(LibraryCalls, Conv2dDepthwiseStrided) { check_conv2d({{2, 3, 9, 9}, {6, 1, 3, 3}, {2, 2}, {1, 1}, "SAME", 3}); }

TEST(LibraryCalls, Conv1dStridesDilationGroups) {
  for (auto [stride, dilation, groups] : {std::tuple{1, 1, 1}, {2, 1, 1}, {1, 2, 3}, {3, 2, 1}}) {
    SCOPED_TRACE("stride " + std::to_string(stride) + " dilation " + std::to_string(dilation) + " groups " + std::to_string(groups));
    sx::reset_default_graph();
    auto x = sx::placeholder({2, 6, 17}, sx::f32, "x");
    auto w = sx::placeholder({9, 6 / groups, 3}, sx::f32, "w");
    auto y = sx::nn::conv1d(x, w, stride, "SAME", dilation, groups);
    auto loss = sx::sum(sx::square(y));
    auto g = sx::grad(loss, {x, w});
    std::string text = expect_backends_agree({x, w}, {y, g[0], g[1]},
                                             {random_array({2, 6, 17}, -1, 1, 4, sx::f32), random_array({9, 6 / groups, 3}, -1, 1, 5, sx::f32)});
    EXPECT_TRUE(contains(text, "library call (oneDNN convolution")) << text;
    expect_no_fallback(text);
  }
}

TEST(LibraryCalls, Conv2dTransposeWithOutputPadding) {
  sx::reset_default_graph();
  auto x = sx::placeholder({2, 4, 5, 6}, sx::f32, "x");
  auto w = sx::placeholder({4, 3, 3, 3}, sx::f32, "w");
  auto y = sx::nn::conv2d_transpose(x, w, {2, 2}, sx::nn::Padding({{1, 1}, {0, 1}}), {1, 0});
  auto g = sx::grad(sx::sum(sx::sin(y)), {x, w});
  std::string text = expect_backends_agree({x, w}, {y, g[0], g[1]},
                                           {random_array({2, 4, 5, 6}, -1, 1, 6, sx::f32), random_array({4, 3, 3, 3}, -1, 1, 7, sx::f32)});
  EXPECT_TRUE(contains(text, "library call (oneDNN convolution backward data")) << text;
  expect_no_fallback(text);
}

TEST(LibraryCalls, ConvNetGradients) {
  // conv -> relu -> max pool -> conv -> avg pool -> dense: gradients wrt input and all weights.
  sx::reset_default_graph();
  auto x = sx::placeholder({4, 3, 12, 12}, sx::f32, "x");
  auto w1 = sx::placeholder({8, 3, 3, 3}, sx::f32, "w1");
  auto w2 = sx::placeholder({6, 8, 3, 3}, sx::f32, "w2");
  auto wd = sx::placeholder({6 * 3 * 3, 5}, sx::f32, "wd");
  auto h = sx::nn::max_pool2d(sx::nn::relu(sx::nn::conv2d(x, w1, {1, 1}, "SAME")), {2, 2});
  h = sx::nn::avg_pool2d(sx::nn::relu(sx::nn::conv2d(h, w2, {1, 1}, "SAME")), {3, 3}, {2, 2}, "SAME");
  auto logits = sx::matmul(sx::reshape(h, {4, 6 * 3 * 3}), wd);
  auto loss = sx::mean(sx::nn::log_softmax(logits, -1));
  auto g = sx::grad(loss, {x, w1, w2, wd});
  std::string text = expect_backends_agree(
      {x, w1, w2, wd}, {loss, g[0], g[1], g[2], g[3]},
      {random_array({4, 3, 12, 12}, -1, 1, 8, sx::f32), random_array({8, 3, 3, 3}, -0.5, 0.5, 9, sx::f32),
       random_array({6, 8, 3, 3}, -0.5, 0.5, 10, sx::f32), random_array({54, 5}, -0.5, 0.5, 11, sx::f32)},
      1e-4, 1e-6);
  for (const char* call : {"oneDNN convolution,", "oneDNN convolution backward data", "oneDNN convolution backward weights",
                           "max pooling loop", "max pooling gradient loop", "oneDNN average pooling,",
                           "oneDNN average pooling backward", "oneDNN sgemm"})
    EXPECT_TRUE(contains(text, std::string("library call (") + call)) << call << "\n" << text;
  expect_no_fallback(text);
}

TEST(LibraryCalls, MaxPoolWindowsStridesAndPadding) {
  struct Case { std::vector<std::int64_t> window, strides; sx::nn::Padding padding; };
  for (const Case& c : {Case{{2, 2}, {}, "VALID"}, Case{{3, 3}, {2, 2}, "SAME"}, Case{{3, 2}, {1, 2}, sx::nn::Padding({{1, 2}, {0, 1}})},
                        Case{{2, 3}, {3, 1}, "SAME"}}) {
    sx::reset_default_graph();
    auto x = sx::placeholder({2, 3, 9, 10}, sx::f32, "x");
    auto y = sx::nn::max_pool2d(x, c.window, c.strides, c.padding);
    auto r = sx::constant(random_array(y.shape(), -1, 1, 12, sx::f32));
    auto gx = sx::grad(sx::sum(y * r), {x})[0];
    // Values on a coarse grid, so windows hold ties: the gradient must go to the first maximum.
    sx::Array xv = random_array({2, 3, 9, 10}, -3, 3, 13, sx::f64);
    for (std::int64_t i = 0; i < xv.size(); ++i) xv.set_flat(i, std::round(xv.get_flat(i)));
    // Overlapping windows sum in float32 here and in float64 in the reference: rounding only; a
    // gradient routed to another tied cell would be off by a whole value.
    std::string text = expect_backends_agree({x}, {y, gx}, {xv.astype(sx::f32)}, 1e-6, 1e-7);
    EXPECT_TRUE(contains(text, "library call (max pooling loop)")) << text;
    EXPECT_TRUE(contains(text, "library call (max pooling gradient loop)")) << text;
    expect_no_fallback(text);
  }
}

TEST(LibraryCalls, MaxPoolNaNWinsAndFloat64) {
  sx::reset_default_graph();
  for (sx::DType dt : {sx::f32, sx::f64}) {
    auto x = sx::placeholder({1, 2, 6, 6}, dt, "x");
    auto y = sx::nn::max_pool2d(x, {3, 3}, {2, 2}, "SAME");
    auto gx = sx::grad(sx::sum(y * sx::constant(random_array(y.shape(), -1, 1, 14, dt))), {x})[0];
    sx::Array xv = random_array({1, 2, 6, 6}, -1, 1, 15, sx::f64);
    xv.set_flat(7, std::numeric_limits<double>::quiet_NaN());
    xv.set_flat(40, std::numeric_limits<double>::quiet_NaN());
    std::string text = expect_backends_agree({x}, {y, gx}, {xv.astype(dt)}, 1e-6, 1e-7);
    expect_no_fallback(text);
  }
}

TEST(LibraryCalls, AvgPoolExcludesPadding) {
  struct Case { std::vector<std::int64_t> window, strides; sx::nn::Padding padding; };
  for (const Case& c : {Case{{2, 2}, {}, "VALID"}, Case{{3, 3}, {1, 1}, "SAME"}, Case{{3, 2}, {2, 1}, sx::nn::Padding({{2, 1}, {1, 1}})},
                        Case{{4, 4}, {3, 3}, "SAME"}}) {
    sx::reset_default_graph();
    auto x = sx::placeholder({2, 3, 10, 9}, sx::f32, "x");
    auto y = sx::nn::avg_pool2d(x, c.window, c.strides, c.padding);
    // The cotangent is an input: avg_pool_grad of a constant would be folded at compile time.
    auto r = sx::placeholder(y.shape(), sx::f32, "r");
    auto gx = sx::grad(sx::sum(y * r), {x})[0];
    std::string text = expect_backends_agree(
        {x, r}, {y, gx}, {random_array({2, 3, 10, 9}, -1, 1, 17, sx::f32), random_array(y.shape(), -1, 1, 16, sx::f32)});
    EXPECT_TRUE(contains(text, "library call (oneDNN average pooling,")) << text;
    EXPECT_TRUE(contains(text, "library call (oneDNN average pooling backward")) << text;
    expect_no_fallback(text);
  }
}

TEST(LibraryCalls, BatchedMatmulFloat32AndFloat64) {
  for (sx::DType dt : {sx::f32, sx::f64}) {
    sx::reset_default_graph();
    auto a = sx::placeholder({3, 1, 4, 5}, dt, "a");
    auto b = sx::placeholder({2, 5, 6}, dt, "b");
    auto y = sx::matmul(a, b);
    auto g = sx::grad(sx::sum(sx::tanh(y)), {a, b});
    std::string text = expect_backends_agree({a, b}, {y, g[0], g[1]},
                                             {random_array({3, 1, 4, 5}, -1, 1, 18, dt), random_array({2, 5, 6}, -1, 1, 19, dt)});
    EXPECT_TRUE(contains(text, dt == sx::f32 ? "library call (oneDNN sgemm)" : "library call (BLAS dgemm)")) << text;
    expect_no_fallback(text);
  }
}

TEST(LibraryCalls, Float64ConvAndAvgPoolFallBackToTheReference) {
  sx::reset_default_graph();
  auto x = sx::placeholder({1, 2, 6, 6}, sx::f64, "x");
  auto w = sx::placeholder({3, 2, 3, 3}, sx::f64, "w");
  auto y = sx::nn::avg_pool2d(sx::nn::conv2d(x, w, {1, 1}, "SAME"), {2, 2});
  std::string text = expect_backends_agree({x, w}, {y}, {random_array({1, 2, 6, 6}, -1, 1, 20), random_array({3, 2, 3, 3}, -1, 1, 21)},
                                           1e-12, 1e-12);
  EXPECT_TRUE(contains(text, "no library call")) << text;
  EXPECT_FALSE(contains(text, "oneDNN")) << text;
}

TEST(LibraryCalls, ThreadCountMayChangeAfterTheCallsArePrepared) {
  // Primitives and their scratchpads are sized when the program is built; later calls may run
  // with more threads (checked under AddressSanitizer) or fewer.
  sx::reset_default_graph();
  auto x = sx::placeholder({4, 8, 10, 10}, sx::f32, "x");
  auto w = sx::placeholder({16, 8, 3, 3}, sx::f32, "w");
  auto y = sx::nn::avg_pool2d(sx::nn::max_pool2d(sx::nn::conv2d(x, w, {1, 1}, "SAME"), {2, 2}), {2, 2});
  auto g = sx::grad(sx::sum(sx::square(y)), {x, w});
  std::vector<sx::Array> values{random_array({4, 8, 10, 10}, -1, 1, 22, sx::f32), random_array({16, 8, 3, 3}, -1, 1, 23, sx::f32)};
  auto reference = sx::function({x, w}, {y, g[0], g[1]}, {}, {sx::Backend::reference})(values);
  int saved = sx::num_threads();
  for (int first : {1, 4}) {
    auto compiled = sx::function({x, w}, {y, g[0], g[1]}, {}, {sx::Backend::compiled});
    sx::set_num_threads(first);
    auto a = compiled(values);  // built here
    sx::set_num_threads(5 - first);
    auto b = compiled(values);
    sx::set_num_threads(saved);
    for (std::size_t k = 0; k < 3; ++k) {
      expect_close(a[k], reference[k], 1e-4, 1e-5);
      expect_close(b[k], reference[k], 1e-4, 1e-5);
    }
  }
}

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

// The description line of the step that runs `call` (e.g. "oneDNN convolution backward data").
std::string step_of(const std::string& text, const std::string& call) {
  std::size_t at = text.find("library call (" + call);
  if (at == std::string::npos) return "";
  std::size_t end = text.find('\n', at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
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
  std::string text =
      expect_backends_agree({x, w}, {y, g[0], g[1]},
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
    SCOPED_TRACE("stride " + std::to_string(stride) + " dilation " + std::to_string(dilation) + " groups " +
                 std::to_string(groups));
    sx::reset_default_graph();
    auto x = sx::placeholder({2, 6, 17}, sx::f32, "x");
    auto w = sx::placeholder({9, 6 / groups, 3}, sx::f32, "w");
    auto y = sx::nn::conv1d(x, w, stride, "SAME", dilation, groups);
    auto loss = sx::sum(sx::square(y));
    auto g = sx::grad(loss, {x, w});
    std::string text = expect_backends_agree({x, w}, {y, g[0], g[1]},
                                             {random_array({2, 6, 17}, -1, 1, 4, sx::f32),
                                              random_array({9, 6 / groups, 3}, -1, 1, 5, sx::f32)});
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
                                           {random_array({2, 4, 5, 6}, -1, 1, 6, sx::f32),
                                            random_array({4, 3, 3, 3}, -1, 1, 7, sx::f32)});
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
  std::string text = expect_backends_agree({x, w1, w2, wd}, {loss, g[0], g[1], g[2], g[3]},
                                           {random_array({4, 3, 12, 12}, -1, 1, 8, sx::f32),
                                            random_array({8, 3, 3, 3}, -0.5, 0.5, 9, sx::f32),
                                            random_array({6, 8, 3, 3}, -0.5, 0.5, 10, sx::f32),
                                            random_array({54, 5}, -0.5, 0.5, 11, sx::f32)},
                                           1e-4, 1e-6);
  for (const char* call : {"oneDNN convolution,", "oneDNN convolution backward data",
                           "oneDNN convolution backward weights", "max pooling loop", "max pooling gradient loop",
                           "oneDNN average pooling,", "oneDNN average pooling backward", "oneDNN sgemm"})
    EXPECT_TRUE(contains(text, std::string("library call (") + call)) << call << "\n" << text;
  expect_no_fallback(text);
}

// With 16 or more channels the convolutions run on oneDNN's blocked layouts (reordering from and
// to symx's plain buffers inside the call) and still agree with the reference.
TEST(LibraryCalls, Conv2dBlockedLayouts) {
  for (const Conv2dCase& c :
       {Conv2dCase{{3, 32, 8, 8}, {64, 32, 3, 3}, {1, 1}, {1, 1}, "SAME", 1},
        Conv2dCase{{2, 20, 11, 10}, {17, 20, 3, 2}, {2, 3}, {1, 1}, "VALID", 1},
        Conv2dCase{{2, 16, 12, 11}, {24, 16, 3, 3}, {1, 2}, {2, 1}, sx::nn::Padding({{1, 2}, {0, 3}}), 1}}) {
    SCOPED_TRACE("x " + std::to_string(c.x[1]) + " channels, w " + std::to_string(c.w[0]) + " filters");
    check_conv2d(c);
    sx::reset_default_graph();
    auto x = sx::placeholder(c.x, sx::f32, "x");
    auto w = sx::placeholder(c.w, sx::f32, "w");
    auto y = sx::nn::conv2d(x, w, c.strides, c.padding, c.dilation, c.groups);
    auto g = sx::grad(sx::sum(sx::square(y)), {x, w});
    std::string text = sx::function({x, w}, {y, g[0], g[1]}, {}, {sx::Backend::compiled}).describe();
    for (const char* call :
         {"oneDNN convolution,", "oneDNN convolution backward data", "oneDNN convolution backward weights"})
      EXPECT_TRUE(contains(step_of(text, call), ", blocked (reorders")) << call << "\n" << text;
  }
}

// The CNN's first layer (3 input channels): the forward and filter gradient run blocked with the
// image left plain (oneDNN's first-layer kernels); backward data, padded 3 -> 16 channels when
// blocked, stays on the plain layouts.
TEST(LibraryCalls, Conv2dFewInputChannelsBlocksTheOutputOnly) {
  check_conv2d({{2, 3, 10, 10}, {32, 3, 3, 3}, {1, 1}, {1, 1}, "SAME", 1});
  sx::reset_default_graph();
  auto x = sx::placeholder({2, 3, 10, 10}, sx::f32, "x");
  auto w = sx::placeholder({32, 3, 3, 3}, sx::f32, "w");
  auto y = sx::nn::conv2d(x, w, {1, 1}, "SAME");
  auto g = sx::grad(sx::sum(sx::square(y)), {x, w});
  std::string text = sx::function({x, w}, {y, g[0], g[1]}, {}, {sx::Backend::compiled}).describe();
  std::string forward = step_of(text, "oneDNN convolution,"),
              filter = step_of(text, "oneDNN convolution backward weights");
  EXPECT_TRUE(contains(forward, ", blocked (reorders weights, dst)")) << text;
  EXPECT_TRUE(contains(filter, ", blocked (reorders diff_dst, diff_weights)")) << text;
  std::string data = step_of(text, "oneDNN convolution backward data");
  EXPECT_FALSE(data.empty()) << text;
  EXPECT_FALSE(contains(data, "blocked")) << text;
}

// Grouped convolutions and those with few output channels stay on the plain layouts.
TEST(LibraryCalls, ConvGroupsAndFewFiltersStayPlain) {
  for (auto [channels, filters, groups] : {std::tuple{32, 32, 2}, {32, 8, 1}}) {
    sx::reset_default_graph();
    auto x = sx::placeholder({2, channels, 6, 6}, sx::f32, "x");
    auto w = sx::placeholder({filters, channels / groups, 3, 3}, sx::f32, "w");
    auto y = sx::nn::conv2d(x, w, {1, 1}, "SAME", {1, 1}, groups);
    auto g = sx::grad(sx::sum(sx::square(y)), {x, w});
    std::string text = sx::function({x, w}, {y, g[0], g[1]}, {}, {sx::Backend::compiled}).describe();
    EXPECT_TRUE(contains(text, "library call (oneDNN convolution,")) << text;
    EXPECT_FALSE(contains(text, "blocked")) << text;
  }
}

// conv1d takes the same rule: blocked from 16 channels, forward and both gradients (with stride
// and dilation together oneDNN has no direct backward-data kernel, so that call stays plain).
TEST(LibraryCalls, Conv1dBlockedLayouts) {
  sx::reset_default_graph();
  auto x = sx::placeholder({3, 16, 29}, sx::f32, "x");
  auto w = sx::placeholder({32, 16, 5}, sx::f32, "w");
  auto y = sx::nn::conv1d(x, w, 1, "SAME", 2);
  auto r = sx::constant(random_array(y.shape(), -1, 1, 12, sx::f32));
  auto g = sx::grad(sx::sum(sx::nn::relu(y) * r), {x, w});
  std::string text = expect_backends_agree({x, w}, {y, g[0], g[1]},
                                           {random_array({3, 16, 29}, -1, 1, 13, sx::f32),
                                            random_array({32, 16, 5}, -1, 1, 14, sx::f32)});
  for (const char* call :
       {"oneDNN convolution,", "oneDNN convolution backward data", "oneDNN convolution backward weights"})
    EXPECT_TRUE(contains(step_of(text, call), ", blocked (reorders")) << call << "\n" << text;
  expect_no_fallback(text);
}

TEST(LibraryCalls, MaxPoolWindowsStridesAndPadding) {
  struct Case {
    std::vector<std::int64_t> window, strides;
    sx::nn::Padding padding;
  };
  for (const Case& c : {Case{{2, 2}, {}, "VALID"}, Case{{3, 3}, {2, 2}, "SAME"},
                        Case{{3, 2}, {1, 2}, sx::nn::Padding({{1, 2}, {0, 1}})}, Case{{2, 3}, {3, 1}, "SAME"}}) {
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

// 2x2 windows with stride 2 over even sizes take the tiled loops: ties go to the first cell in
// row-major order and the first NaN wins, in the forward value and in the gradient's routing.
TEST(LibraryCalls, MaxPoolTiled2x2TiesAndNaN) {
  for (sx::DType dt : {sx::f32, sx::f64}) {
    sx::reset_default_graph();
    auto x = sx::placeholder({2, 3, 8, 10}, dt, "x");
    auto y = sx::nn::max_pool2d(x, {2, 2});
    auto gx = sx::grad(sx::sum(y * sx::constant(random_array(y.shape(), -1, 1, 16, dt))), {x})[0];
    sx::Array xv = random_array({2, 3, 8, 10}, -2, 2, 17, sx::f64);
    for (std::int64_t i = 0; i < xv.size(); ++i) xv.set_flat(i, std::round(xv.get_flat(i)));  // many ties
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    // Window (0, 0) of plane 0: NaN in each cell position of four windows; two NaNs; all -inf.
    xv.set_flat(0, nan);       // window (0,0), cell 0
    xv.set_flat(3, nan);       // window (0,1), cell 1
    xv.set_flat(10 + 4, nan);  // window (0,2), cell 2
    xv.set_flat(10 + 7, nan);  // window (0,3), cell 3
    xv.set_flat(20 + 1, nan);  // window (1,0): NaN in cells 1 and 2
    xv.set_flat(30 + 0, nan);
    for (std::int64_t i : {22, 23, 32, 33}) xv.set_flat(i, -inf);  // window (1,1)
    std::string text = expect_backends_agree({x}, {y, gx}, {xv.astype(dt)}, 1e-6, 1e-7);
    EXPECT_TRUE(contains(text, "max pooling loop, 2x2 windows")) << text;
    EXPECT_TRUE(contains(text, "max pooling gradient loop, 2x2 windows")) << text;
  }
}

TEST(LibraryCalls, AvgPoolExcludesPadding) {
  struct Case {
    std::vector<std::int64_t> window, strides;
    sx::nn::Padding padding;
  };
  for (const Case& c : {Case{{2, 2}, {}, "VALID"}, Case{{3, 3}, {1, 1}, "SAME"},
                        Case{{3, 2}, {2, 1}, sx::nn::Padding({{2, 1}, {1, 1}})}, Case{{4, 4}, {3, 3}, "SAME"}}) {
    sx::reset_default_graph();
    auto x = sx::placeholder({2, 3, 10, 9}, sx::f32, "x");
    auto y = sx::nn::avg_pool2d(x, c.window, c.strides, c.padding);
    // The cotangent is an input: avg_pool_grad of a constant would be folded at compile time.
    auto r = sx::placeholder(y.shape(), sx::f32, "r");
    auto gx = sx::grad(sx::sum(y * r), {x})[0];
    std::string text = expect_backends_agree({x, r}, {y, gx},
                                             {random_array({2, 3, 10, 9}, -1, 1, 17, sx::f32),
                                              random_array(y.shape(), -1, 1, 16, sx::f32)});
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
    std::string text =
        expect_backends_agree({a, b}, {y, g[0], g[1]},
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
  std::string text =
      expect_backends_agree({x, w}, {y}, {random_array({1, 2, 6, 6}, -1, 1, 20), random_array({3, 2, 3, 3}, -1, 1, 21)},
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
  std::vector<sx::Array> values{random_array({4, 8, 10, 10}, -1, 1, 22, sx::f32),
                                random_array({16, 8, 3, 3}, -1, 1, 23, sx::f32)};
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

// ---- bias and ReLU fused into matrix products and convolutions (oneDNN post-ops) ----

namespace {

// The steps of a description that run generated kernels.
int kernel_steps(const std::string& text) {
  int n = 0;
  for (std::size_t at = text.find(": kernel k"); at != std::string::npos; at = text.find(": kernel k", at + 1)) ++n;
  return n;
}

// Builds y from (product, bias) for one pattern, and the library call expected to compute it.
struct EpilogueCase {
  const char* what;
  std::function<sx::Tensor(const sx::Tensor&, const sx::Tensor&)> build;
  const char* call;  // the description's text, e.g. "oneDNN matmul + bias + relu,"
};

// y alone, then the gradients of sum(y^2 * r) wrt every input: the forward step is the fused
// call (followed by `kernels` generated kernels), and everything agrees with the reference backend.
void check_epilogue(const std::vector<sx::Tensor>& inputs, const sx::Tensor& y, const std::vector<sx::Array>& values,
                    const std::string& forward_call, const std::string& training_call, int kernels = 0) {
  std::string text = expect_backends_agree(inputs, {y}, values);
  EXPECT_TRUE(contains(text, "library call (" + forward_call)) << text;
  EXPECT_EQ(kernel_steps(text), kernels) << text;
  expect_no_fallback(text);
  // Squared, so that the gradients read y. The ReLU's gradient reads the pre-activation, so
  // training fuses the bias only.
  auto r = sx::constant(random_array(y.shape(), -1, 1, 30, sx::f32));
  auto g = sx::grad(sx::sum(sx::square(y) * r), inputs);
  text = expect_backends_agree(inputs, g, values);
  EXPECT_TRUE(contains(text, "library call (" + training_call)) << text;
  expect_no_fallback(text);
}

sx::Tensor relu_of(const sx::Tensor& x) { return sx::nn::relu(x); }

}  // namespace

TEST(LibraryCallEpilogues, MatmulBiasAndRelu) {
  const std::vector<EpilogueCase> cases{
      {"relu(mm + b)", [](auto mm, auto b) { return relu_of(mm + b); }, "oneDNN matmul + bias + relu,"},
      {"maximum(0, b + mm)", [](auto mm, auto b) { return sx::maximum(0, b + mm); }, "oneDNN matmul + bias + relu,"},
      {"relu(mm + (1, N) bias)",
       [](auto mm, auto b) {
         return relu_of(mm + sx::reshape(b, {1, b.shape()[0]}));
       },
       "oneDNN matmul + bias + relu,"},
      {"relu(mm + broadcast_to(b))", [](auto mm, auto b) { return relu_of(mm + sx::broadcast_to(b, mm.shape())); },
       "oneDNN matmul + bias + relu,"},
      {"mm + b", [](auto mm, auto b) { return mm + b; }, "oneDNN sgemm + bias)"},
      {"relu(mm) * b", [](auto mm, auto b) { return relu_of(mm) * b; }, "oneDNN matmul + relu,"},
  };
  for (const EpilogueCase& c : cases) {
    SCOPED_TRACE(c.what);
    sx::reset_default_graph();
    auto x = sx::placeholder({8, 5}, sx::f32, "x");
    auto w = sx::placeholder({5, 6}, sx::f32, "w");
    auto b = sx::placeholder({6}, sx::f32, "b");
    auto y = c.build(sx::matmul(x, w), b);
    std::vector<sx::Array> values{random_array({8, 5}, -1, 1, 31, sx::f32), random_array({5, 6}, -1, 1, 32, sx::f32),
                                  random_array({6}, -1, 1, 33, sx::f32)};
    std::string training = contains(c.call, "bias") ? "oneDNN sgemm + bias)" : "oneDNN sgemm)";
    if (std::string(c.what) == "relu(mm) * b") {  // the multiply is a kernel of its own
      std::string text = expect_backends_agree({x, w, b}, {y}, values);
      EXPECT_TRUE(contains(text, std::string("library call (") + c.call)) << text;
      continue;
    }
    check_epilogue({x, w, b}, y, values, c.call, training);
  }
}

TEST(LibraryCallEpilogues, BatchedMatmulBiasAndRelu) {
  // A matrix right operand flattens the batch into rows; equal batch shapes are a batched product.
  for (sx::Shape wshape : {sx::Shape{5, 6}, sx::Shape{3, 5, 6}}) {
    SCOPED_TRACE(sx::shape_string(wshape));
    sx::reset_default_graph();
    auto x = sx::placeholder({3, 4, 5}, sx::f32, "x");
    auto w = sx::placeholder(wshape, sx::f32, "w");
    auto b = sx::placeholder({6}, sx::f32, "b");
    auto y = sx::nn::relu(sx::matmul(x, w) + b);
    check_epilogue({x, w, b}, y,
                   {random_array({3, 4, 5}, -1, 1, 34, sx::f32), random_array(wshape, -1, 1, 35, sx::f32),
                    random_array({6}, -1, 1, 36, sx::f32)},
                   "oneDNN matmul + bias + relu,", "oneDNN sgemm + bias)");
  }
}

// Convolutions fuse the bias; their ReLU stays a kernel (see call_attr in library_dnnl.cpp).
TEST(LibraryCallEpilogues, ConvBiasAndRelu) {
  struct Case {
    sx::Shape x, w;
    std::vector<std::int64_t> strides;
    std::int64_t groups;
  };
  for (const Case& c : {Case{{2, 3, 9, 8}, {4, 3, 3, 3}, {1, 1}, 1}, Case{{2, 4, 9, 9}, {6, 2, 3, 3}, {2, 2}, 2}}) {
    for (bool relu : {true, false}) {
      SCOPED_TRACE("groups " + std::to_string(c.groups) + (relu ? ", relu" : ""));
      sx::reset_default_graph();
      auto x = sx::placeholder(c.x, sx::f32, "x");
      auto w = sx::placeholder(c.w, sx::f32, "w");
      auto b = sx::placeholder({c.w[0]}, sx::f32, "b");
      auto pre = sx::nn::conv2d(x, w, c.strides, "SAME", {1, 1}, c.groups) + sx::reshape(b, {1, c.w[0], 1, 1});
      check_epilogue({x, w, b}, relu ? sx::nn::relu(pre) : pre,
                     {random_array(c.x, -1, 1, 37, sx::f32), random_array(c.w, -1, 1, 38, sx::f32),
                      random_array({c.w[0]}, -1, 1, 39, sx::f32)},
                     "oneDNN convolution + bias,", "oneDNN convolution + bias,", relu ? 1 : 0);
    }
  }
}

// The fused bias on a blocked convolution: the bias stays plain, the image and output are
// reordered. Each output sums 288 products of values in [-1, 1] with cancellation, hence atol 1e-4.
TEST(LibraryCallEpilogues, BlockedConvBias) {
  sx::reset_default_graph();
  auto x = sx::placeholder({2, 32, 8, 7}, sx::f32, "x");
  auto w = sx::placeholder({48, 32, 3, 3}, sx::f32, "w");
  auto b = sx::placeholder({48}, sx::f32, "b");
  auto y = sx::nn::conv2d(x, w, {1, 1}, "SAME") + sx::reshape(b, {1, 48, 1, 1});
  auto r = sx::constant(random_array(y.shape(), -1, 1, 43, sx::f32));
  auto g = sx::grad(sx::sum(sx::square(y) * r), {x, w, b});
  std::vector<sx::Array> values{random_array({2, 32, 8, 7}, -1, 1, 40, sx::f32),
                                random_array({48, 32, 3, 3}, -1, 1, 41, sx::f32),
                                random_array({48}, -1, 1, 42, sx::f32)};
  std::string text = expect_backends_agree({x, w, b}, {y}, values, 1e-4, 1e-4);
  EXPECT_TRUE(contains(step_of(text, "oneDNN convolution + bias, "), ", blocked (reorders src, weights, dst)")) << text;
  expect_no_fallback(text);
  text = expect_backends_agree({x, w, b}, {g[0], g[1], g[2]}, values, 1e-4, 1e-3);  // sums of 1,000s of terms
  EXPECT_TRUE(contains(step_of(text, "oneDNN convolution + bias, "), ", blocked (reorders src, weights, dst)")) << text;
  EXPECT_TRUE(contains(step_of(text, "oneDNN convolution backward data"), ", blocked")) << text;
  EXPECT_TRUE(contains(step_of(text, "oneDNN convolution backward weights"), ", blocked")) << text;
  expect_no_fallback(text);
}

TEST(LibraryCallEpilogues, Conv1dChannelBias) {
  sx::reset_default_graph();
  auto x = sx::placeholder({2, 3, 11}, sx::f32, "x");
  auto w = sx::placeholder({5, 3, 3}, sx::f32, "w");
  auto b = sx::placeholder({5, 1}, sx::f32, "b");  // (C, 1): one value per channel
  auto y = sx::nn::conv1d(x, w, 2, "SAME") + b;
  auto z = sx::nn::relu(sx::nn::conv1d(x, w, 1, "VALID"));
  std::string text =
      expect_backends_agree({x, w, b}, {y, z},
                            {random_array({2, 3, 11}, -1, 1, 40, sx::f32), random_array({5, 3, 3}, -1, 1, 41, sx::f32),
                             random_array({5, 1}, -1, 1, 42, sx::f32)});
  EXPECT_TRUE(contains(text, "library call (oneDNN convolution + bias,")) << text;
  EXPECT_TRUE(contains(text, "library call (oneDNN convolution,")) << text;  // z: its ReLU is a kernel
  EXPECT_EQ(kernel_steps(text), 1) << text;
}

TEST(LibraryCallEpilogues, UnfusablePatternsStillComputeCorrectly) {
  // Each y is computed right; `fused` is the fused call expected, or "" when the product must run plain.
  struct Case {
    const char* what;
    std::function<std::vector<sx::Tensor>(const sx::Tensor& mm, const sx::Tensor& bias, const sx::Tensor& column)>
        build;
    const char* fused;
  };
  const std::vector<Case> cases{
      {"product also an output",
       [](auto mm, auto b, auto) {
         return std::vector{sx::nn::relu(mm + b), mm};
       },
       ""},
      {"pre-activation also an output",
       [](auto mm, auto b, auto) {
         return std::vector{sx::nn::relu(mm + b), mm + b};
       },
       "oneDNN sgemm + bias)"},
      {"bias along the rows", [](auto mm, auto, auto c) { return std::vector{sx::nn::relu(mm + c)}; }, ""},
      {"scalar-like bias",
       [](auto mm, auto b, auto) {
         return std::vector{mm + sx::reshape(b, {6, 1})[0]};
       },
       ""},
      {"full matrix", [](auto mm, auto, auto c) { return std::vector{mm + sx::broadcast_to(c, mm.shape()) * 2}; }, ""},
      {"maximum with 0.5", [](auto mm, auto b, auto) { return std::vector{sx::maximum(mm + b, 0.5)}; },
       "oneDNN sgemm + bias)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    sx::reset_default_graph();
    auto x = sx::placeholder({8, 5}, sx::f32, "x");
    auto w = sx::placeholder({5, 6}, sx::f32, "w");
    auto b = sx::placeholder({6}, sx::f32, "b");
    auto column = sx::placeholder({8, 1}, sx::f32, "c");
    std::vector<sx::Tensor> ys = c.build(sx::matmul(x, w), b, column);
    std::string text =
        expect_backends_agree({x, w, b, column}, ys,
                              {random_array({8, 5}, -1, 1, 43, sx::f32), random_array({5, 6}, -1, 1, 44, sx::f32),
                               random_array({6}, -1, 1, 45, sx::f32), random_array({8, 1}, -1, 1, 46, sx::f32)});
    if (std::string(c.fused).empty()) {
      EXPECT_FALSE(contains(text, "oneDNN matmul")) << text;
      EXPECT_TRUE(contains(text, "library call (oneDNN sgemm)")) << text;
    } else {
      EXPECT_TRUE(contains(text, std::string("library call (") + c.fused)) << text;
    }
    expect_no_fallback(text);
  }
}

TEST(LibraryCallEpilogues, BiasOfTheWrongRankOrAxisIsNotFused) {
  sx::reset_default_graph();
  // (3, 4, 6) + (4, 6): varies along two axes, not a bias of the last one.
  auto x = sx::placeholder({3, 4, 5}, sx::f32, "x");
  auto w = sx::placeholder({5, 6}, sx::f32, "w");
  auto m = sx::placeholder({4, 6}, sx::f32, "m");
  // conv output (2, 4, 4, 4) + (4,): broadcast along the width, not the channels.
  auto cx = sx::placeholder({2, 3, 4, 4}, sx::f32, "cx");
  auto cw = sx::placeholder({4, 3, 3, 3}, sx::f32, "cw");
  auto cb = sx::placeholder({4}, sx::f32, "cb");
  auto y1 = sx::nn::relu(sx::matmul(x, w) + m);
  auto y2 = sx::nn::conv2d(cx, cw, {1, 1}, "SAME") + cb;
  std::string text =
      expect_backends_agree({x, w, m, cx, cw, cb}, {y1, y2},
                            {random_array({3, 4, 5}, -1, 1, 47, sx::f32), random_array({5, 6}, -1, 1, 48, sx::f32),
                             random_array({4, 6}, -1, 1, 49, sx::f32), random_array({2, 3, 4, 4}, -1, 1, 50, sx::f32),
                             random_array({4, 3, 3, 3}, -1, 1, 51, sx::f32), random_array({4}, -1, 1, 52, sx::f32)});
  EXPECT_FALSE(contains(text, "+ bias")) << text;
  EXPECT_TRUE(contains(text, "library call (oneDNN sgemm)")) << text;
  EXPECT_TRUE(contains(text, "library call (oneDNN convolution,")) << text;
}

TEST(LibraryCallEpilogues, IntegerProductsAreNotFusedAndFloat64FusesTheBias) {
  for (sx::DType dt : {sx::i32, sx::f64}) {
    SCOPED_TRACE(std::string(sx::dtype_name(dt)));
    sx::reset_default_graph();
    auto x = sx::placeholder({8, 5}, dt, "x");
    auto w = sx::placeholder({5, 6}, dt, "w");
    auto b = sx::placeholder({6}, dt, "b");
    auto y = sx::nn::relu(sx::matmul(x, w) + b);
    std::string text = expect_backends_agree({x, w, b}, {y},
                                             {random_array({8, 5}, -5, 5, 53, dt), random_array({5, 6}, -5, 5, 54, dt),
                                              random_array({6}, -5, 5, 55, dt)},
                                             1e-12, 1e-12);
    EXPECT_FALSE(contains(text, "oneDNN matmul")) << text;
    if (dt == sx::f64) {
      EXPECT_TRUE(contains(text, "library call (BLAS dgemm + bias)")) << text;  // the ReLU: a kernel
    }
  }
}

TEST(LibraryCallEpilogues, FusedReluAgreesOnNaNInfinityAndZeros) {
  // maximum(x, 0) propagates NaN, maps -inf and -0 to 0 and keeps tiny (denormal) positives.
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  sx::reset_default_graph();
  auto x = sx::placeholder({4, 3}, sx::f32, "x");
  auto w = sx::placeholder({3, 7}, sx::f32, "w");
  auto b = sx::placeholder({7}, sx::f32, "b");
  auto cx = sx::placeholder({1, 2, 5, 5}, sx::f32, "cx");
  auto cw = sx::placeholder({7, 2, 3, 3}, sx::f32, "cw");
  sx::Array xv = random_array({4, 3}, -1, 1, 56, sx::f64), cxv = random_array({1, 2, 5, 5}, -1, 1, 59, sx::f64);
  xv.set_flat(4, nan);    // row 1 of the product
  cxv.set_flat(12, nan);  // the centre of channel 0: the windows around it
  // Columns 4..6 of w are 0, so there the pre-activation is the bias: -0, a denormal, -inf.
  sx::Array wv = random_array({3, 7}, -1, 1, 57, sx::f64), bv = random_array({7}, -1, 1, 58, sx::f64);
  for (std::int64_t k = 0; k < 3; ++k)
    for (std::int64_t col : {4, 5, 6}) wv.set_flat(k * 7 + col, 0);
  bv.set_flat(4, -0.0);
  bv.set_flat(5, 1e-40);
  bv.set_flat(6, -inf);
  auto y = sx::nn::relu(sx::matmul(x, w) + b);
  auto z = sx::nn::relu(sx::nn::conv2d(cx, cw, {1, 1}, "SAME") + sx::reshape(b, {1, 7, 1, 1}));
  std::string text = expect_backends_agree({x, w, b, cx, cw}, {y, z},
                                           {xv.astype(sx::f32), wv.astype(sx::f32), bv.astype(sx::f32),
                                            cxv.astype(sx::f32), random_array({7, 2, 3, 3}, -1, 1, 60, sx::f32)},
                                           1e-4, 1e-45);
  EXPECT_TRUE(contains(text, "library call (oneDNN matmul + bias + relu,")) << text;
  EXPECT_TRUE(contains(text, "library call (oneDNN convolution + bias,")) << text;
}

TEST(LibraryCallEpilogues, TrainingStepWithUpdatesMatchesTheReference) {
  // Two dense layers trained by SGD: the fused forward calls read variables the step updates in place.
  sx::reset_default_graph();
  auto x = sx::placeholder({16, 7}, sx::f32, "x");
  auto t = sx::placeholder({16, 3}, sx::f32, "t");
  std::vector<sx::Array> initial{random_array({7, 9}, -0.5, 0.5, 59, sx::f32),
                                 random_array({9}, -0.5, 0.5, 60, sx::f32),
                                 random_array({9, 3}, -0.5, 0.5, 61, sx::f32),
                                 random_array({3}, -0.5, 0.5, 62, sx::f32)};
  std::vector<sx::Tensor> params;
  for (const sx::Array& v : initial) params.push_back(sx::variable(v));
  auto h = sx::nn::relu(sx::matmul(x, params[0]) + params[1]);
  auto loss = sx::mean(sx::square(sx::matmul(h, params[2]) + params[3] - t));
  auto grads = sx::grad(loss, params);
  sx::Updates updates;
  for (std::size_t i = 0; i < params.size(); ++i) updates.push_back({params[i], params[i] - 0.1f * grads[i]});
  std::vector<sx::Array> values{random_array({16, 7}, -1, 1, 63, sx::f32), random_array({16, 3}, -1, 1, 64, sx::f32)};
  std::vector<std::vector<sx::Array>> finals;
  std::string text;
  for (sx::Backend backend : {sx::Backend::compiled, sx::Backend::reference}) {
    for (std::size_t i = 0; i < params.size(); ++i) params[i].assign(initial[i]);
    auto step = sx::function({x, t}, {loss}, updates, {backend});
    for (int call = 0; call < 3; ++call) step(values);
    finals.emplace_back();
    for (const sx::Tensor& p : params) finals.back().push_back(p.value().copy());
    if (backend == sx::Backend::compiled) text = step.describe();
  }
  for (std::size_t i = 0; i < params.size(); ++i) expect_close(finals[0][i], finals[1][i], 1e-4, 1e-5);
  EXPECT_TRUE(contains(text, "library call (oneDNN sgemm + bias)")) << text;
}

TEST(LibraryCallEpilogues, BroadcastBatchesFuseTheBiasIntoTheGemm) {
  // Batch shapes that broadcast: the gemm loop adds the bias; the ReLU stays a kernel.
  sx::reset_default_graph();
  auto a = sx::placeholder({3, 1, 4, 5}, sx::f32, "a");
  auto b = sx::placeholder({2, 5, 6}, sx::f32, "b");
  auto bias = sx::placeholder({1, 6}, sx::f32, "bias");
  check_epilogue({a, b, bias}, sx::nn::relu(sx::matmul(a, b) + bias),
                 {random_array({3, 1, 4, 5}, -1, 1, 65, sx::f32), random_array({2, 5, 6}, -1, 1, 66, sx::f32),
                  random_array({1, 6}, -1, 1, 67, sx::f32)},
                 "oneDNN sgemm + bias)", "oneDNN sgemm + bias)", 1);
}

// Transposed operands of 2-D products are read through the gemm's transpose flags instead of being
// materialized: x^T w, x w^T, x^T w^T, in float32 and float64, plain, with a bias and with a ReLU.
TEST(LibraryCalls, MatmulReadsTransposedOperandsInPlace) {
  for (sx::DType dt : {sx::f32, sx::f64}) {
    sx::reset_default_graph();
    SCOPED_TRACE(sx::dtype_name(dt));
    auto a = sx::placeholder({7, 5}, dt, "a");  // used as a^T: (5, 7)
    auto b = sx::placeholder({9, 7}, dt, "b");  // used as b^T: (7, 9)
    auto c = sx::placeholder({7, 9}, dt, "c");
    auto bias = sx::placeholder({9}, dt, "bias");
    auto at = sx::transpose(a), bt = sx::transpose(b);
    std::vector<sx::Array> values{random_array({7, 5}, -1, 1, 1, dt), random_array({9, 7}, -1, 1, 2, dt),
                                  random_array({7, 9}, -1, 1, 3, dt), random_array({9}, -1, 1, 4, dt)};
    std::string text = expect_backends_agree({a, b, c, bias}, {sx::matmul(at, c)}, values);
    EXPECT_TRUE(contains(text, "A transposed")) << text;
    text = expect_backends_agree({a, b, c, bias}, {sx::matmul(b, sx::transpose(b))}, values);
    EXPECT_TRUE(contains(text, "B transposed")) << text;
    text = expect_backends_agree({a, b, c, bias}, {sx::matmul(at, bt) + bias}, values);
    EXPECT_TRUE(contains(text, "A and B transposed")) << text;
    EXPECT_TRUE(contains(text, "+ bias")) << text;
    EXPECT_FALSE(contains(text, ": kernel")) << text;  // no transpose kernel, no bias kernel
    text = expect_backends_agree({a, b, c, bias}, {sx::nn::relu(sx::matmul(at, bt) + bias)}, values);
    EXPECT_TRUE(contains(text, "A and B transposed")) << text;
    expect_no_fallback(text);
    // A transpose read elsewhere too is materialized once and read plainly.
    text = expect_backends_agree({a, b, c, bias}, {sx::matmul(at, c), at * 2}, values);
    EXPECT_FALSE(contains(text, "transposed")) << text;
  }
  // The gradient of a dense layer reads x^T and w^T through the flags.
  sx::reset_default_graph();
  auto x = sx::placeholder({16, 8}, sx::f32, "x");
  auto w = sx::placeholder({8, 4}, sx::f32, "w");
  auto grads = sx::grad(sx::sum(sx::tanh(sx::matmul(x, w))), {x, w});
  std::string text =
      expect_backends_agree({x, w}, grads,
                            {random_array({16, 8}, -1, 1, 5, sx::f32), random_array({8, 4}, -1, 1, 6, sx::f32)});
  EXPECT_TRUE(contains(text, "A transposed")) << text;
  EXPECT_TRUE(contains(text, "B transposed")) << text;
}

// Neural-network ops: activations, softmax, convolutions (strides, padding, dilation, groups,
// transpose), pooling: values against naive formulas and hand-worked examples, gradients (also
// second order) and error messages.
#include <cmath>
#include <numbers>

#include "test_util.hpp"

namespace symx {
namespace {

using testing::expect_close;
using testing::expect_error;
using testing::expect_gradients_match;
using testing::random_array;

using Pairs = std::vector<std::pair<std::int64_t, std::int64_t>>;

struct Conv2dParams {
  std::vector<std::int64_t> stride{1, 1};
  Pairs pads{{0, 0}, {0, 0}};
  std::vector<std::int64_t> dilation{1, 1};
  std::int64_t groups = 1;
};

// The direct formula: y[n, o, i, j] = sum_{c, p, q} x[n, g*Cg + c, i*s - lo + p*d, j*s - lo + q*d] w[o, c, p, q].
Array naive_conv2d(const Array& x, const Array& w, const Conv2dParams& p) {
  std::int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  std::int64_t O = w.shape()[0], Cg = w.shape()[1], KH = w.shape()[2], KW = w.shape()[3];
  std::int64_t OH = (H + p.pads[0].first + p.pads[0].second - p.dilation[0] * (KH - 1) - 1) / p.stride[0] + 1;
  std::int64_t OW = (W + p.pads[1].first + p.pads[1].second - p.dilation[1] * (KW - 1) - 1) / p.stride[1] + 1;
  std::int64_t Og = O / p.groups;
  Array y({N, O, OH, OW}, DType::f64);
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t o = 0; o < O; ++o)
      for (std::int64_t i = 0; i < OH; ++i)
        for (std::int64_t j = 0; j < OW; ++j) {
          double s = 0;
          for (std::int64_t c = 0; c < Cg; ++c)
            for (std::int64_t a = 0; a < KH; ++a)
              for (std::int64_t b = 0; b < KW; ++b) {
                std::int64_t h = i * p.stride[0] - p.pads[0].first + a * p.dilation[0];
                std::int64_t v = j * p.stride[1] - p.pads[1].first + b * p.dilation[1];
                if (h < 0 || h >= H || v < 0 || v >= W) continue;
                std::int64_t ch = (o / Og) * Cg + c;
                s += x.get_flat(((n * C + ch) * H + h) * W + v) * w.get_flat(((o * Cg + c) * KH + a) * KW + b);
              }
          y.set_flat(((n * O + o) * OH + i) * OW + j, s);
        }
  return y;
}

// PyTorch's ConvTranspose2d as a scatter: every x[n, ci, i, j] adds x * w[ci, co, a, b] at
// (i*s - lo + a*d, j*s - lo + b*d) of output channel (group of ci)*Cog + co.
Array naive_conv2d_transpose(const Array& x, const Array& w, const Conv2dParams& p, std::vector<std::int64_t> out_pad) {
  std::int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  std::int64_t Cog = w.shape()[1], KH = w.shape()[2], KW = w.shape()[3];
  std::int64_t O = Cog * p.groups, Cig = C / p.groups;
  std::int64_t OH =
      (H - 1) * p.stride[0] - p.pads[0].first - p.pads[0].second + p.dilation[0] * (KH - 1) + out_pad[0] + 1;
  std::int64_t OW =
      (W - 1) * p.stride[1] - p.pads[1].first - p.pads[1].second + p.dilation[1] * (KW - 1) + out_pad[1] + 1;
  Array y({N, O, OH, OW}, DType::f64);
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t ci = 0; ci < C; ++ci)
      for (std::int64_t i = 0; i < H; ++i)
        for (std::int64_t j = 0; j < W; ++j)
          for (std::int64_t co = 0; co < Cog; ++co)
            for (std::int64_t a = 0; a < KH; ++a)
              for (std::int64_t b = 0; b < KW; ++b) {
                std::int64_t h = i * p.stride[0] - p.pads[0].first + a * p.dilation[0];
                std::int64_t v = j * p.stride[1] - p.pads[1].first + b * p.dilation[1];
                if (h < 0 || h >= OH || v < 0 || v >= OW) continue;
                std::int64_t o = (ci / Cig) * Cog + co;
                std::int64_t yi = ((n * O + o) * OH + h) * OW + v;
                y.set_flat(yi, y.get_flat(yi) + x.get_flat(((n * C + ci) * H + i) * W + j) *
                                                    w.get_flat(((ci * Cog + co) * KH + a) * KW + b));
              }
  return y;
}

Tensor conv(const Tensor& x, const Tensor& w, const Conv2dParams& p) {
  return nn::conv2d(x, w, p.stride, nn::Padding(p.pads), p.dilation, p.groups);
}

std::vector<Conv2dParams> conv_cases() {
  return {
      {},
      {{2, 2}, {{1, 1}, {1, 1}}, {1, 1}, 1},
      {{2, 1}, {{1, 2}, {0, 1}}, {1, 2}, 1},
      {{1, 2}, {{0, 0}, {2, 1}}, {2, 1}, 2},
  };
}

// ---- activations ----

TEST(NNActivations, Values) {
  Array xs = Array::from_vector<double>({-2, -0.5, 0, 0.5, 3}, {5});
  Tensor x = constant(xs);
  expect_close(nn::relu(x).eval(), std::vector<double>{0, 0, 0, 0.5, 3});
  expect_close(nn::leaky_relu(x, 0.1).eval(), std::vector<double>{-0.2, -0.05, 0, 0.5, 3});
  std::vector<double> elu, gelu, gelu_tanh, softplus, sig;
  for (double v : xs.to_vector()) {
    elu.push_back(v > 0 ? v : 2 * (std::exp(v) - 1));
    gelu.push_back(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
    gelu_tanh.push_back(0.5 * v * (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (v + 0.044715 * v * v * v))));
    softplus.push_back(std::log1p(std::exp(v)));
    sig.push_back(1 / (1 + std::exp(-v)));
  }
  expect_close(nn::elu(x, 2).eval(), elu, 1e-12, 1e-14);
  expect_close(nn::gelu(x).eval(), gelu, 1e-12, 1e-14);
  expect_close(nn::gelu(x, true).eval(), gelu_tanh, 1e-12, 1e-14);
  expect_close(nn::softplus(x).eval(), softplus, 1e-12, 1e-14);
  expect_close(nn::sigmoid(x).eval(), sig, 1e-12, 1e-14);
  EXPECT_NEAR(nn::gelu(constant(1.0, f64)).eval().item<double>(), 0.8413447460685429, 1e-12);
  EXPECT_NEAR(nn::gelu(constant(1.0, f64), true).eval().item<double>(), 0.8411919906082768, 1e-12);
  // Stable for large magnitudes.
  expect_close(nn::softplus(constant(Array::from_vector<double>({-1000, 1000}, {2}))).eval(),
               std::vector<double>{0, 1000});
  // Integer input computes in float32.
  Tensor xi = constant(Array::from_vector<std::int32_t>({-1, 2}, {2}));
  EXPECT_EQ(nn::relu(xi).dtype(), i32);
  EXPECT_EQ(nn::gelu(xi).dtype(), f32);
}

TEST(NNActivations, Gradients) {
  Array xs = Array::from_vector<double>({-2, -0.5, -0.1, 0.3, 0.5, 3}, {2, 3});
  expect_gradients_match([](const auto& x) { return nn::relu(x[0]); }, {xs});
  expect_gradients_match([](const auto& x) { return nn::leaky_relu(x[0], 0.2); }, {xs});
  expect_gradients_match([](const auto& x) { return nn::elu(x[0], 1.5); }, {xs});
  expect_gradients_match([](const auto& x) { return nn::gelu(x[0]); }, {xs});
  expect_gradients_match([](const auto& x) { return nn::gelu(x[0], true); }, {xs});
  expect_gradients_match([](const auto& x) { return nn::softplus(x[0]); }, {xs});
  expect_gradients_match([](const auto& x) { return nn::sigmoid(x[0]); }, {xs});
}

TEST(NNSoftmax, Values) {
  Array xs = Array::from_vector<double>({1, 2, 3, 1000, 1000, 1000}, {2, 3});
  Array s = nn::softmax(constant(xs)).eval();
  double z = std::exp(-2.0) + std::exp(-1.0) + 1;
  expect_close(s, std::vector<double>{std::exp(-2.0) / z, std::exp(-1.0) / z, 1 / z, 1.0 / 3, 1.0 / 3, 1.0 / 3}, 1e-12);
  Array ls = nn::log_softmax(constant(xs)).eval();
  expect_close(ls,
               std::vector<double>{-2 - std::log(z), -1 - std::log(z), -std::log(z), -std::log(3.0), -std::log(3.0),
                                   -std::log(3.0)},
               1e-12);
  // Along axis 0 each column sums to 1.
  Array s0 = nn::softmax(constant(random_array({3, 4}, -3, 3, 1)), 0).eval();
  for (std::int64_t j = 0; j < 4; ++j) EXPECT_NEAR(s0.get_flat(j) + s0.get_flat(4 + j) + s0.get_flat(8 + j), 1, 1e-12);
  expect_error<ShapeError>([] { nn::softmax(placeholder({2, 3}), 2); }, {"softmax: ", "axis 2 is out of range"});
}

TEST(NNSoftmax, Gradients) {
  Array xs = random_array({3, 4}, -2, 2, 2);
  expect_gradients_match([](const auto& x) { return nn::softmax(x[0]); }, {xs});
  expect_gradients_match([](const auto& x) { return nn::softmax(x[0], 0); }, {xs});
  expect_gradients_match([](const auto& x) { return nn::log_softmax(x[0]); }, {xs});
  expect_gradients_match([](const auto& x) { return nn::log_softmax(x[0], 0); }, {xs});
  expect_gradients_match([](const auto& x) { return grad(sum(square(nn::softmax(x[0]))), {x[0]})[0]; }, {xs});
}

// ---- convolution ----

TEST(NNConv, HandWorked1d) {
  Tensor x = constant(Array::from_vector<float>({1, 2, 3, 4}, {1, 1, 4}));
  Tensor w = constant(Array::from_vector<float>({1, 0, -1}, {1, 1, 3}));
  Tensor y = nn::conv1d(x, w);
  EXPECT_EQ(y.shape(), (Shape{1, 1, 2}));
  EXPECT_EQ(y.dtype(), f32);
  expect_close(y.eval(), std::vector<double>{-2, -2});
  // SAME padding keeps the length: (0, 1, 2, 3, 4, 0) windows.
  expect_close(nn::conv1d(x, w, 1, "SAME").eval(), std::vector<double>{-2, -2, -2, 3});
  // Stride 2 and dilation 2 on a longer input: x = 0..6, w taps at 0, 2, 4.
  Tensor x7 = constant(Array::arange(0, 7).reshape({1, 1, 7}));
  expect_close(nn::conv1d(x7, w, 2, "VALID", 2).eval(), std::vector<double>{-4, -4});
}

TEST(NNConv, HandWorked2d) {
  // A 3x3 input and a 2x2 all-ones kernel: sums of 2x2 blocks.
  Tensor x = constant(Array::arange(1, 10).reshape({1, 1, 3, 3}));
  Tensor w = constant(Array::ones({1, 1, 2, 2}));
  expect_close(nn::conv2d(x, w).eval(), std::vector<double>{12, 16, 24, 28});
}

TEST(NNConv, MatchesNaiveFormula) {
  for (const auto& p : conv_cases()) {
    std::int64_t c = 2 * p.groups;
    Array x = random_array({2, c, 5, 6}, -1, 1, 1);
    Array w = random_array({2 * p.groups, 2, 3, 2}, -1, 1, 2);
    Array want = naive_conv2d(x, w, p);
    expect_close(conv(constant(x), constant(w), p).eval(), want, 1e-12, 1e-12);
    expect_close(conv(constant(x.astype(f32)), constant(w.astype(f32)), p).eval().astype(f64), want, 1e-5, 1e-5);
  }
}

TEST(NNConv, OneValueForEverySpatialAxis) {
  // strides {2} is {2, 2}, padding 1 is one cell on both sides of both axes (PyTorch's stride=2,
  // padding=1); checked against the direct formula with the spelled-out parameters.
  Array x = random_array({2, 3, 7, 6}, -1, 1, 3);
  Array w = random_array({4, 3, 3, 3}, -1, 1, 4);
  Conv2dParams p;
  p.stride = {2, 2};
  p.pads = {{1, 1}, {1, 1}};
  expect_close(nn::conv2d(constant(x), constant(w), {2}, 1).eval(), naive_conv2d(x, w, p), 1e-12, 1e-12);
  p.stride = {1, 1};
  p.dilation = {2, 2};
  p.pads = {{0, 0}, {0, 0}};
  expect_close(nn::conv2d(constant(x), constant(w), {1}, 0, {2}).eval(), naive_conv2d(x, w, p), 1e-12, 1e-12);
  expect_error<ValueError>([&] { nn::conv2d(constant(x), constant(w), {1, 1, 1}); }, {"strides has 3 entries"});
  expect_error<ValueError>([&] { nn::conv2d(constant(x), constant(w), {1}, -1); }, {"padding must be non-negative"});
}

TEST(NNConv, SamePadding) {
  Array x = random_array({1, 1, 5, 4}, -1, 1, 3);
  Array w = random_array({1, 1, 3, 3}, -1, 1, 4);
  Tensor y = nn::conv2d(constant(x), constant(w), {2, 2}, "SAME");
  // out = ceil(in / stride); total padding (out-1)*s + k - in, the odd cell at the end.
  EXPECT_EQ(y.shape(), (Shape{1, 1, 3, 2}));
  Conv2dParams p{{2, 2}, {{1, 1}, {0, 1}}, {1, 1}, 1};
  expect_close(y.eval(), naive_conv2d(x, w, p), 1e-12, 1e-12);
  Tensor y1 = nn::conv2d(constant(x), constant(w), {1, 1}, "same", {2, 1});
  EXPECT_EQ(y1.shape(), (Shape{1, 1, 5, 4}));
  expect_close(y1.eval(), naive_conv2d(x, w, Conv2dParams{{1, 1}, {{2, 2}, {1, 1}}, {2, 1}, 1}), 1e-12, 1e-12);
}

TEST(NNConv, Transpose) {
  struct Case {
    Conv2dParams p;
    std::vector<std::int64_t> out_pad;
  };
  std::vector<Case> cases = {
      {{}, {0, 0}},
      {{{2, 2}, {{1, 1}, {0, 1}}, {1, 1}, 1}, {1, 0}},
      {{{2, 1}, {{0, 0}, {1, 1}}, {1, 2}, 2}, {1, 0}},
  };
  for (const auto& [p, out_pad] : cases) {
    Array x = random_array({1, 2 * p.groups, 3, 4}, -1, 1, 5);
    Array w = random_array({2 * p.groups, 3, 3, 2}, -1, 1, 6);
    Tensor y =
        nn::conv2d_transpose(constant(x), constant(w), p.stride, nn::Padding(p.pads), out_pad, p.dilation, p.groups);
    Array want = naive_conv2d_transpose(x, w, p, out_pad);
    ASSERT_EQ(y.shape(), want.shape());
    expect_close(y.eval(), want, 1e-12, 1e-12);
  }
  // Hand-worked: a single 1 scattered by a 2x2 kernel with stride 2 and output_padding 1.
  Array x = Array::from_vector<float>({1, 2}, {1, 1, 1, 2});
  Array w = Array::from_vector<float>({1, 2, 3, 4}, {1, 1, 2, 2});
  Tensor y = nn::conv2d_transpose(constant(x), constant(w), {2, 2}, "VALID", {1, 1});
  EXPECT_EQ(y.shape(), (Shape{1, 1, 3, 5}));
  expect_close(y.eval(), std::vector<double>{1, 2, 2, 4, 0, 3, 4, 6, 8, 0, 0, 0, 0, 0, 0});
}

TEST(NNConv, Gradients) {
  for (const auto& p : conv_cases()) {
    std::int64_t c = 2 * p.groups;
    expect_gradients_match([&](const auto& v) { return conv(v[0], v[1], p); },
                           {random_array({1, c, 5, 5}, -1, 1, 7), random_array({2 * p.groups, 2, 2, 3}, -1, 1, 8)});
  }
  expect_gradients_match(
      [](const auto& v) {
        return nn::conv1d(v[0], v[1], 2, Pairs{{1, 2}}, 2);
      },
      {random_array({2, 2, 7}, -1, 1, 9), random_array({3, 2, 2}, -1, 1, 10)});
  expect_gradients_match(
      [](const auto& v) {
        return nn::conv2d(v[0], v[1], {2, 2}, "SAME");
      },
      {random_array({1, 2, 5, 4}, -1, 1, 11), random_array({2, 2, 3, 3}, -1, 1, 12)});
}

TEST(NNConv, TransposeGradients) {
  expect_gradients_match(
      [](const auto& v) {
        return nn::conv2d_transpose(v[0], v[1], {2, 2}, Pairs{{1, 0}, {0, 1}}, {1, 0});
      },
      {random_array({1, 2, 3, 3}, -1, 1, 13), random_array({2, 2, 3, 2}, -1, 1, 14)});
  expect_gradients_match(
      [](const auto& v) {
        return nn::conv2d_transpose(v[0], v[1], {1, 2}, "VALID", {0, 1}, {2, 1}, 2);
      },
      {random_array({1, 4, 3, 3}, -1, 1, 15), random_array({4, 1, 2, 2}, -1, 1, 16)});
}

TEST(NNConv, SecondOrder) {
  Conv2dParams p{{2, 1}, {{1, 0}, {1, 1}}, {1, 2}, 2};
  Array x = random_array({1, 4, 5, 5}, -1, 1, 17), w = random_array({2, 2, 2, 2}, -1, 1, 18);
  // Through conv_backward_input and conv_backward_filter and their own rules.
  expect_gradients_match([&](const auto& v) { return grad(sum(square(conv(v[0], v[1], p))), {v[0]})[0]; }, {x, w});
  expect_gradients_match([&](const auto& v) { return grad(sum(square(conv(v[0], v[1], p))), {v[1]})[0]; }, {x, w});
  expect_gradients_match(
      [](const auto& v) {
        return grad(sum(square(nn::conv2d_transpose(v[0], v[1], {2, 2}))), {v[1]})[0];
      },
      {random_array({1, 2, 3, 3}, -1, 1, 19), random_array({2, 1, 2, 2}, -1, 1, 20)});
}

TEST(NNConv, Errors) {
  Graph graph;  // a fresh graph, so that placeholder names are not uniquified
  DefaultGraph guard(graph);
  Tensor x = placeholder({1, 3, 5, 5}, f32, "x");
  expect_error<ShapeError>(
      [&] {
        nn::conv2d(x, placeholder({4, 2, 3, 3}), {1, 1}, "VALID", {1, 1}, 2);
      },
      {"conv2d: input has 3 channels but the weights expect 4 (= 2 per group × 2 groups)", "'x' (1, 3, 5, 5) float32",
       "test_nn.cpp:", "groups (2) does not divide the 3 input channels"});
  expect_error<ShapeError>(
      [&] {
        nn::conv2d(x, placeholder({4, 4, 3, 3}));
      },
      {"conv2d: input has 3 channels but the weights expect 4", "axis 1"});
  expect_error<ShapeError>(
      [&] {
        nn::conv2d(placeholder({1, 4, 5, 5}), placeholder({3, 2, 3, 3}), {1, 1}, "VALID", {1, 1}, 2);
      },
      {"groups (2) must divide the output channels (3"});
  expect_error<ShapeError>(
      [&] {
        nn::conv2d(placeholder({1, 1, 2, 2}), placeholder({1, 1, 3, 3}));
      },
      {"conv2d: the kernel (size 3) is larger than the padded input (size 2)"});
  expect_error<ShapeError>(
      [&] {
        nn::conv2d(placeholder({1, 1, 5, 5}), placeholder({1, 1, 3, 3}), {1, 1}, "VALID", {3, 3});
      },
      {"7 with dilation", "larger than the padded input (size 5)"});
  expect_error<ValueError>(
      [&] {
        nn::conv2d(x, placeholder({1, 3, 3, 3}), {1, 1}, "FULL");
      },
      {"conv2d: unknown padding \"FULL\"", "\"VALID\", \"SAME\""});
  expect_error<ValueError>(
      [&] {
        nn::conv2d(x, placeholder({1, 3, 3, 3}), {1, 1}, Pairs{{1, 1}});
      },
      {"1 (low, high) pairs but there are 2 spatial axes"});
  expect_error<ValueError>([&] { nn::conv2d(x, placeholder({1, 3, 3, 3}), {0, 1}); }, {"strides must be positive"});
  expect_error<DTypeError>(
      [&] {
        nn::conv2d(placeholder({1, 3, 5, 5}, i32), placeholder({1, 3, 3, 3}));
      },
      {"conv2d: expects floating-point operands, got int32", "astype(float32)"});
  expect_error<ShapeError>(
      [&] {
        nn::conv2d(placeholder({3, 5, 5}), placeholder({1, 3, 3, 3}));
      },
      {"conv2d: the input must be (N, C, H, W)"});
  expect_error<ShapeError>(
      [&] {
        nn::conv2d_transpose(x, placeholder({4, 2, 3, 3}));
      },
      {"conv2d_transpose: input has 3 channels but the weights expect 4"});
  expect_error<ValueError>(
      [&] {
        nn::conv2d_transpose(x, placeholder({3, 2, 3, 3}), {1, 1}, "VALID", {1, 0});
      },
      {"output_padding 1", "smaller than the stride (1)"});
  expect_error<ValueError>(
      [&] {
        nn::conv2d_transpose(x, placeholder({3, 2, 3, 3}), {1, 1}, "SAME");
      },
      {"unknown padding \"SAME\""});
  // Mixed float dtypes promote.
  EXPECT_EQ(nn::conv2d(x, placeholder({1, 3, 3, 3}, f64)).dtype(), f64);
}

// ---- pooling ----

TEST(NNPool, HandWorked) {
  Tensor x = constant(Array::arange(0, 16).reshape({1, 1, 4, 4}));
  expect_close(nn::max_pool2d(x, {2, 2}).eval(), std::vector<double>{5, 7, 13, 15});
  expect_close(nn::avg_pool2d(x, {2, 2}).eval(), std::vector<double>{2.5, 4.5, 10.5, 12.5});
  // Overlapping windows with stride 1.
  expect_close(nn::max_pool2d(x, {3, 3}, {1, 1}).eval(), std::vector<double>{10, 11, 14, 15});
  // Padding: padding cells never win the max and do not count in the average.
  Tensor small = constant(Array({{1, 2}, {3, 4}}).reshape({1, 1, 2, 2}));
  Pairs one{{1, 1}, {1, 1}};
  expect_close(nn::avg_pool2d(small, {2, 2}, {1, 1}, one).eval(), std::vector<double>{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
  Tensor neg = constant(Array({{-1, -2}, {-3, -4}}).reshape({1, 1, 2, 2}));
  expect_close(nn::max_pool2d(neg, {2, 2}, {1, 1}, one).eval(),
               std::vector<double>{-1, -1, -2, -1, -1, -2, -3, -3, -4});
  // SAME: out = ceil(5 / 2) = 3 with one padding cell at the end.
  Tensor x5 = constant(Array::arange(0, 25).reshape({1, 1, 5, 5}));
  Tensor same = nn::avg_pool2d(x5, {2, 2}, {}, "SAME");
  EXPECT_EQ(same.shape(), (Shape{1, 1, 3, 3}));
  expect_close(same.eval(), std::vector<double>{3, 5, 6.5, 13, 15, 16.5, 20.5, 22.5, 24});
}

TEST(NNPool, OneValueForBothAxes) {
  Tensor x = constant(Array::arange(0, 16).reshape({1, 1, 4, 4}));
  expect_close(nn::max_pool2d(x, {2}).eval(), std::vector<double>{5, 7, 13, 15});
  expect_close(nn::avg_pool2d(x, {3}, {1}).eval(), std::vector<double>{5, 6, 9, 10});
  expect_close(nn::max_pool2d(x, {2}, {2}, 1).eval(), std::vector<double>{0, 2, 3, 8, 10, 11, 12, 14, 15});
}

TEST(NNPool, MaxTiesGoToTheFirst) {
  Tensor x = placeholder({1, 1, 2, 2}, f64, "x");
  Tensor g = grad(sum(nn::max_pool2d(x, {2, 2})), {x})[0];
  expect_close(g.eval({{x, Array::ones({1, 1, 2, 2}, f64)}}), std::vector<double>{1, 0, 0, 0});
}

TEST(NNPool, Gradients) {
  Array x = random_array({2, 2, 5, 5}, -1, 1, 21);
  expect_gradients_match([](const auto& v) { return nn::max_pool2d(v[0], {2, 2}); }, {x});
  expect_gradients_match(
      [](const auto& v) {
        return nn::max_pool2d(v[0], {3, 2}, {1, 2}, Pairs{{1, 1}, {0, 1}});
      },
      {x});
  expect_gradients_match([](const auto& v) { return nn::max_pool2d(v[0], {2, 2}, {2, 2}, "SAME"); }, {x});
  expect_gradients_match([](const auto& v) { return nn::avg_pool2d(v[0], {2, 2}); }, {x});
  expect_gradients_match(
      [](const auto& v) {
        return nn::avg_pool2d(v[0], {3, 2}, {1, 2}, Pairs{{1, 1}, {0, 1}});
      },
      {x});
  expect_gradients_match([](const auto& v) { return nn::avg_pool2d(v[0], {2, 3}, {2, 2}, "SAME"); }, {x});
}

TEST(NNPool, SecondOrder) {
  Array x = random_array({1, 2, 5, 5}, -1, 1, 22);
  // max_pool_grad's rule gathers the cotangent from each window's argmax.
  expect_gradients_match(
      [](const auto& v) {
        return grad(sum(square(nn::max_pool2d(v[0], {3, 3}, {2, 1}, Pairs{{1, 1}, {1, 0}}))), {v[0]})[0];
      },
      {x});
  expect_gradients_match(
      [](const auto& v) {
        return grad(sum(square(nn::avg_pool2d(v[0], {3, 3}, {2, 1}, Pairs{{1, 1}, {1, 0}}))), {v[0]})[0];
      },
      {x});
}

TEST(NNPool, Errors) {
  Graph graph;  // a fresh graph, so that placeholder names are not uniquified
  DefaultGraph guard(graph);
  Tensor x = placeholder({1, 1, 3, 3}, f32, "x");
  expect_error<ShapeError>(
      [&] {
        nn::max_pool2d(x, {4, 4});
      },
      {"max_pool2d: the window (size 4) is larger than the padded input (size 3)", "'x' (1, 1, 3, 3)"});
  expect_error<ValueError>(
      [&] {
        nn::avg_pool2d(x, {2, 2}, {}, Pairs{{2, 0}, {0, 0}});
      },
      {"avg_pool2d: padding (2, 0)", "smaller than the window (2)"});
  expect_error<ValueError>([&] { nn::avg_pool2d(x, {2, 2}, {}, "FULL"); }, {"unknown padding \"FULL\""});
  expect_error<ShapeError>([&] { nn::max_pool2d(placeholder({3, 3}), {2, 2}); }, {"(N, C, H, W)"});
  expect_error<DTypeError>([&] { nn::max_pool2d(placeholder({1, 1, 3, 3}, i32), {2, 2}); }, {"floating-point"});
  expect_error<ValueError>(
      [&] {
        nn::max_pool2d(x, {2, 2, 2});
      },
      {"window has 3 entries but there are 2 spatial axes", "single value"});
}

}  // namespace
}  // namespace symx

namespace sx = symx;

TEST(NNSoftmaxCrossEntropy, StableValuesAndGradient) {
  sx::reset_default_graph();
  auto x = sx::placeholder({2, 3}, sx::f64, "logits");
  auto y = sx::placeholder({2, 3}, sx::f64, "labels");
  sx::Array xv = sx::Array::from_vector<double>({1000, 0, -1000, 0.5, -0.25, 2}, {2, 3});
  sx::Array yv = sx::Array::from_vector<double>({0, 1, 0, 0.2, 0.3, 0.5}, {2, 3});
  double lse1 = 2 + std::log(std::exp(-1.5) + std::exp(-2.25) + 1);
  symx::testing::expect_close(sx::nn::softmax_cross_entropy(x, y).eval({{x, xv}, {y, yv}}),
                              {1000, lse1 - (0.2 * 0.5 - 0.3 * 0.25 + 0.5 * 2)}, 1e-12);
  symx::testing::expect_gradients_match(
      [](const std::vector<sx::Tensor>& in) { return sx::nn::softmax_cross_entropy(in[0], in[1]); },
      {symx::testing::random_array({2, 3}, -2, 2, 5), symx::testing::random_array({2, 3}, 0, 1, 6)});
  symx::testing::expect_error<sx::ShapeError>(
      [&] {
        sx::nn::softmax_cross_entropy(x, sx::placeholder({2, 4}, sx::f64));
      },
      {"softmax_cross_entropy", "different shapes", "one_hot"});
}

// The one-op cross-entropy and its gradient: compiled row kernels (contiguous rows and rows along
// a middle axis) agree with the reference evaluator, and the second derivative matches finite
// differences of the first.
TEST(NNSoftmaxCrossEntropy, CompiledRowKernelsAndSecondDerivative) {
  sx::reset_default_graph();
  for (sx::DType dt : {sx::f32, sx::f64}) {
    for (int axis : {-1, 1, 0}) {
      SCOPED_TRACE(std::string(sx::dtype_name(dt)) + " axis " + std::to_string(axis));
      auto x = sx::placeholder({5, 7, 3}, dt, "logits");
      auto y = sx::placeholder({5, 7, 3}, dt, "labels");
      auto loss = sx::nn::softmax_cross_entropy(x, y, axis);
      auto grads =
          sx::grad(sx::sum(loss * sx::arange(0, static_cast<double>(loss.size()), 1, dt).reshape(loss.shape())),
                   {x, y});
      std::string described =
          symx::testing::expect_backends_agree({x, y}, {loss, grads[0], grads[1]},
                                               {symx::testing::random_array({5, 7, 3}, -20, 20, 3, dt),
                                                symx::testing::random_array({5, 7, 3}, 0, 1, 4, dt)},
                                               dt == sx::f32 ? 2e-5 : 1e-12, dt == sx::f32 ? 2e-5 : 1e-12);
      EXPECT_NE(described.find("softmax_cross_entropy_grad"), std::string::npos) << described;
    }
  }
  symx::testing::expect_gradients_match(
      [](const std::vector<sx::Tensor>& in) {
        auto loss = sx::nn::softmax_cross_entropy(in[0], in[1], 0);
        return sx::grad(sx::sum(loss * loss), {in[0]})[0];
      },
      {symx::testing::random_array({3, 2}, -2, 2, 8), symx::testing::random_array({3, 2}, 0, 1, 9)});
  symx::testing::expect_gradients_match(
      [](const std::vector<sx::Tensor>& in) {
        auto loss = sx::nn::softmax_cross_entropy(in[0], in[1]);
        return sx::grad(sx::sum(loss * loss), {in[1]})[0];
      },
      {symx::testing::random_array({3, 2}, -2, 2, 8), symx::testing::random_array({3, 2}, 0, 1, 9)});
  symx::testing::expect_error<sx::ShapeError>(
      [] {
        sx::nn::softmax_cross_entropy(sx::placeholder({2, 3}, sx::f32), sx::placeholder({2, 3}, sx::f32), 2);
      },
      {"softmax_cross_entropy", "axis 2 is out of range"});
}

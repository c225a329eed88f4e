// nn::layers: forward passes and gradients against PyTorch (golden files of
// tests/golden/golden_layers.py, float64, 1e-10 relative), BatchNorm's running statistics over three
// training steps, the random layers by their statistics and invariants, naming, sharing and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "golden_util.hpp"
#include "symx/nn/layers.hpp"

namespace ly = symx::nn::layers;
using symx::Array;
using symx::Tensor;

namespace {

using symx_toolkit_test::expect_close;
using symx_toolkit_test::last_part;

// tests/golden/layers_<name>.npz
std::map<std::string, Array> golden(const std::string& name) {
  return symx_toolkit_test::golden_npz("layers_" + name + ".npz");
}

// Builds `layer` on the golden input, sets its trainable variables from the file, and compares the
// output and the gradients of sum(y * g) with respect to the input and every trainable variable.
void check_golden(ly::Layer& layer, const std::string& name) {
  SCOPED_TRACE(name);
  symx::reset_default_graph();
  auto data = golden(name);
  Tensor x = symx::placeholder(data.at("x").shape(), symx::f64, "x");
  Tensor y = layer(x, false);
  auto params = layer.variables(true);
  for (const Tensor& v : params) v.assign(data.at(last_part(v.name())));
  std::vector<Tensor> wrt = {x};
  wrt.insert(wrt.end(), params.begin(), params.end());
  auto grads = symx::grad(symx::sum(y * symx::constant(data.at("g"))), wrt);
  symx::Feed feed = {{x, data.at("x")}};
  expect_close(y.eval(feed), data.at("y"), "y");
  expect_close(grads[0].eval(feed), data.at("d_x"), "d_x");
  for (std::size_t i = 0; i < params.size(); ++i)
    expect_close(grads[i + 1].eval(feed), data.at("d_" + last_part(params[i].name())), "d_" + params[i].name());
}

class NnLayers : public ::testing::Test {
 protected:
  void SetUp() override { symx::reset_default_graph(); }
  void TearDown() override { symx::reset_default_graph(); }
};

}  // namespace

// ---- against PyTorch ----

TEST_F(NnLayers, DenseMatchesTorchLinear) {
  ly::Dense dense(3);
  check_golden(dense, "dense");
  auto vars = dense.variables();
  ASSERT_EQ(vars.size(), 2u);
  EXPECT_EQ(vars[0].name(), "dense/w");
  EXPECT_EQ(vars[0].shape(), (symx::Shape{5, 3}));
}

TEST_F(NnLayers, ConvolutionsMatchTorch) {
  ly::Conv1D conv1d(4, 3, {.strides = {2}, .padding = 1});
  check_golden(conv1d, "conv1d");
  ly::Conv2D conv2d(6, {3, 2},
                    {.strides = {2, 1},
                     .padding = std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 1}, {2, 2}},
                     .dilation = {1, 2},
                     .groups = 2});
  check_golden(conv2d, "conv2d");
  ly::Conv2D same(4, {3, 4}, {.padding = "same", .use_bias = false});
  check_golden(same, "conv2d_same");
  ly::Conv2DTranspose transpose(6, {3}, {.strides = {2}, .padding = 1, .output_padding = {1}, .groups = 2});
  check_golden(transpose, "conv2d_transpose");
}

TEST_F(NnLayers, PoolingMatchesTorch) {
  ly::MaxPool2D max_pool({3}, {.strides = {2}, .padding = 1});
  check_golden(max_pool, "max_pool2d");
  ly::AvgPool2D avg_pool({3}, {.strides = {2}, .padding = 1});
  check_golden(avg_pool, "avg_pool2d");
  ly::GlobalAvgPool2D global;
  check_golden(global, "global_avg_pool2d");
}

TEST_F(NnLayers, LayerNormAndUpsampleMatchTorch) {
  ly::LayerNorm last;
  check_golden(last, "layer_norm");
  ly::LayerNorm two({1, 2});
  check_golden(two, "layer_norm2");
  ly::Upsample2D nearest({2, 3});
  check_golden(nearest, "upsample_nearest");
  ly::Upsample2D bilinear({2, 3}, "bilinear");
  check_golden(bilinear, "upsample_bilinear");
}

TEST_F(NnLayers, EmbeddingMatchesTorch) {
  auto data = golden("embedding");
  ly::Embedding embedding(10, 5, symx::nn::init::zeros(), symx::f64);
  Tensor y = embedding(symx::constant(data.at("x")));
  Tensor w = embedding.variables().at(0);
  w.assign(data.at("w"));
  expect_close(y.eval(), data.at("y"), "y");
  expect_close(symx::grad(symx::sum(y * symx::constant(data.at("g"))), {w})[0].eval(), data.at("d_w"), "d_w");
}

TEST_F(NnLayers, BatchNormTrainingStepsRunningStatisticsAndEvalMatchTorch) {
  struct Case {
    std::string name;
    ly::BatchNormOptions options;
  };
  for (const Case& c : {Case{"batch_norm2d", {}}, Case{"batch_norm1d", {.momentum = 0.3, .eps = 1e-3}}}) {
    SCOPED_TRACE(c.name);
    symx::reset_default_graph();
    auto data = golden(c.name);
    ly::BatchNorm bn(c.options);
    Tensor x = symx::placeholder(data.at("x0").shape(), symx::f64, "x");
    Tensor g = symx::placeholder(data.at("x0").shape(), symx::f64, "g");
    Tensor y = bn(x, true);
    auto params = bn.variables(true);
    ASSERT_EQ(params.size(), 2u);
    params[0].assign(data.at("gamma"));
    params[1].assign(data.at("beta"));
    auto grads = symx::grad(symx::sum(y * g), {x, params[0], params[1]});
    auto step = symx::function({x, g}, {y, grads[0], grads[1], grads[2]}, symx::get_updates(),
                               {.backend = symx::Backend::reference});
    for (int t = 0; t < 3; ++t) {
      auto out = step({data.at("x" + std::to_string(t)), data.at("g" + std::to_string(t))});
      expect_close(out[0], data.at("y" + std::to_string(t)), "y");
      if (t == 0) {
        expect_close(out[1], data.at("d_x0"), "d_x0");
        expect_close(out[2], data.at("d_gamma"), "d_gamma");
        expect_close(out[3], data.at("d_beta"), "d_beta");
      }
    }
    auto stats = bn.variables(false);
    ASSERT_EQ(stats.size(), 2u);
    expect_close(stats[0].value(), data.at("running_mean"), "running_mean");
    expect_close(stats[1].value(), data.at("running_var"), "running_var");
    Tensor x_eval = symx::placeholder(data.at("x_eval").shape(), symx::f64, "x_eval");
    expect_close(bn(x_eval, false).eval({{x_eval, data.at("x_eval")}}), data.at("y_eval"), "y_eval");
  }
}

TEST_F(NnLayers, SmallNetworkMatchesTorchCompiled) {
  auto data = golden("network");
  auto conv = std::make_shared<ly::Conv2D>(3, std::vector<std::int64_t>{3}, ly::ConvOptions{.padding = 1});
  auto bn = std::make_shared<ly::BatchNorm>();
  auto dense = std::make_shared<ly::Dense>(4);
  ly::Sequential net({conv, bn, std::make_shared<ly::Activation>("relu"),
                      std::make_shared<ly::MaxPool2D>(std::vector<std::int64_t>{2}), std::make_shared<ly::Flatten>(),
                      dense});
  Tensor x = symx::placeholder(data.at("x").shape(), symx::f64, "x");
  Tensor y = net(x, true);
  std::vector<std::string> keys = {"conv_w", "conv_b", "bn_gamma", "bn_beta", "dense_w", "dense_b"};
  auto params = net.variables(true);
  ASSERT_EQ(params.size(), keys.size());
  EXPECT_EQ(params[0].name(), "sequential/conv2d/w");
  for (std::size_t i = 0; i < params.size(); ++i) params[i].assign(data.at(keys[i]));
  std::vector<Tensor> wrt = {x};
  wrt.insert(wrt.end(), params.begin(), params.end());
  auto grads = symx::grad(symx::sum(y * symx::constant(data.at("g"))), wrt);
  std::vector<Tensor> outputs = {y};
  outputs.insert(outputs.end(), grads.begin(), grads.end());
  auto out = symx::function({x}, outputs)({data.at("x")});
  expect_close(out[0], data.at("y"), "y", 1e-9);
  expect_close(out[1], data.at("d_x"), "d_x", 1e-9);
  for (std::size_t i = 0; i < keys.size(); ++i)  // conv_b's gradient is zero analytically (batch norm follows)
    expect_close(out[i + 2], data.at("d_" + keys[i]), keys[i], 1e-9, 1e-12);
}

// ---- building, naming, sharing, modes ----

TEST_F(NnLayers, VariablesAreBuiltOnceSharedAndNamedPerInstance) {
  ly::Dense first(4), second(4);
  EXPECT_FALSE(first.built());
  Tensor a = first(symx::placeholder({2, 3}));
  Tensor b = first(symx::placeholder({5, 3}));
  EXPECT_EQ(a.shape(), (symx::Shape{2, 4}));
  EXPECT_EQ(b.shape(), (symx::Shape{5, 4}));
  second(symx::placeholder({1, 3}));
  {
    symx::Scope scope("encoder");
    ly::Dense third(2, {.name = "proj"});
    third(symx::placeholder({1, 3}));
  }
  std::vector<std::string> names;
  for (const Tensor& v : symx::variables()) names.push_back(v.name());
  EXPECT_EQ(names, (std::vector<std::string>{"dense/w", "dense/b", "dense_1/w", "dense_1/b", "encoder/proj/w",
                                             "encoder/proj/b"}));
  EXPECT_EQ(second.name(), "dense_1");
}

TEST_F(NnLayers, OnlyTrainingAddsBatchNormUpdates) {
  ly::Sequential net(
      {std::make_shared<ly::Dense>(4), std::make_shared<ly::BatchNorm>(), std::make_shared<ly::Dropout>(0.5)});
  Tensor x = symx::placeholder({8, 3}, symx::f32, "x");
  net(x, false);
  EXPECT_TRUE(symx::get_updates().empty());
  net(x, true);
  auto updates = symx::get_updates();
  ASSERT_EQ(updates.size(), 2u);
  EXPECT_EQ(updates[0].first.name(), "sequential/batch_norm/running_mean");
  EXPECT_EQ(net.variables().size(), 6u);
  EXPECT_EQ(net.variables(true).size(), 4u);
}

TEST_F(NnLayers, ActivationFlattenReshapeIdentity) {
  Array values = Array::arange(0, 120, 1, symx::f32).reshape({2, 3, 4, 5});
  Tensor x = symx::constant(values);
  EXPECT_EQ(ly::Flatten()(x).shape(), (symx::Shape{2, 60}));
  EXPECT_TRUE(ly::Flatten()(x).eval().equals(values.reshape({2, 60})));
  EXPECT_TRUE(ly::Reshape({4, -1})(x).eval().equals(values.reshape({2, 4, 15})));
  EXPECT_TRUE(ly::Identity()(x).eval().equals(values));
  Tensor z = symx::constant(Array({-1.f, 2.f}));
  EXPECT_EQ(ly::Activation("relu")(z).eval().to_vector(), (std::vector<double>{0, 2}));
  EXPECT_EQ(ly::Activation([](const Tensor& t) { return t * 2; })(z).eval().to_vector(), (std::vector<double>{-2, 4}));
}

// ---- random layers ----

TEST_F(NnLayers, DropoutKeepRateScalingAndEvalIdentity) {
  Tensor x = symx::constant(Array::ones({200, 500}));
  auto y = ly::Dropout(0.3)(x, true).eval().to_vector();
  double kept = 0;
  for (double v : y) {
    if (v != 0) {
      kept += 1;
      ASSERT_NEAR(v, 1 / 0.7, 1e-6);
    }
  }
  double n = static_cast<double>(y.size());
  EXPECT_LT(std::abs(kept / n - 0.7), 5 * std::sqrt(0.7 * 0.3 / n));
  EXPECT_TRUE(ly::Dropout(0.3)(x, false).eval().equals(Array::ones({200, 500})));
}

TEST_F(NnLayers, RandomCropCutsWindowsOfThePaddedImageAndTheCentreInEval) {
  const std::int64_t n = 32, h = 5, w = 6, p = 2;
  Array values = Array::arange(1, 1 + n * 2 * h * w, 1, symx::f32).reshape({n, 2, h, w});  // distinct values
  Tensor x = symx::constant(values);
  ly::RandomCrop crop({h, w}, p);
  Array y = crop(x, true).eval();
  auto pixel = [&](std::int64_t i, std::int64_t c, std::int64_t r, std::int64_t col) {  // of the padded image
    r -= p, col -= p;
    return (r < 0 || r >= h || col < 0 || col >= w) ? 0.0 : values.get_flat(((i * 2 + c) * h + r) * w + col);
  };
  std::set<std::pair<std::int64_t, std::int64_t>> offsets;
  for (std::int64_t i = 0; i < n; ++i) {
    bool found = false;
    for (std::int64_t top = 0; top <= 2 * p && !found; ++top)
      for (std::int64_t left = 0; left <= 2 * p && !found; ++left) {
        bool same = true;
        for (std::int64_t c = 0; c < 2 && same; ++c)
          for (std::int64_t r = 0; r < h && same; ++r)
            for (std::int64_t col = 0; col < w && same; ++col)
              same = y.get_flat(((i * 2 + c) * h + r) * w + col) == pixel(i, c, top + r, left + col);
        if (same) found = true, offsets.insert({top, left});
      }
    EXPECT_TRUE(found) << "crop " << i << " is not a window of the padded image";
  }
  EXPECT_GT(offsets.size(), 5u);  // one offset per image, not one for the batch
  EXPECT_TRUE(crop(x, false).eval().equals(values));
}

TEST_F(NnLayers, RandomFlipPerImageAndEvalIdentity) {
  const std::int64_t n = 400;
  Array values = Array::arange(0, n * 3, 1, symx::f32).reshape({n, 1, 1, 3});
  Array y = ly::RandomFlip()(symx::constant(values), true).eval();
  double flipped = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    bool same = true, mirrored = true;
    for (std::int64_t c = 0; c < 3; ++c) {
      same = same && y.get_flat(i * 3 + c) == values.get_flat(i * 3 + c);
      mirrored = mirrored && y.get_flat(i * 3 + c) == values.get_flat(i * 3 + 2 - c);
    }
    ASSERT_TRUE(same || mirrored);
    flipped += mirrored ? 1 : 0;
  }
  EXPECT_LT(std::abs(flipped / n - 0.5), 5 * std::sqrt(0.25 / n));
  EXPECT_TRUE(ly::RandomFlip()(symx::constant(values), false).eval().equals(values));
}

// ---- errors ----

TEST_F(NnLayers, ADifferentFeatureSizeIsAShapeErrorNamingTheLayer) {
  ly::Dense head(4, {.name = "head"});
  head(symx::placeholder({2, 3}));
  try {
    head(symx::placeholder({2, 5}));
    FAIL() << "no error";
  } catch (const symx::ShapeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("Dense 'head'"), std::string::npos) << m;
    EXPECT_NE(m.find("built for 3"), std::string::npos) << m;
  }
  ly::Conv2D conv(2, {3});
  conv(symx::placeholder({1, 3, 8, 8}));
  EXPECT_THROW(conv(symx::placeholder({1, 1, 8, 8})), symx::ShapeError);
  EXPECT_THROW(conv(symx::placeholder({3, 8, 8})), symx::ShapeError);
  EXPECT_THROW(ly::Embedding(10, 3)(symx::placeholder({2})), symx::DTypeError);
}

TEST_F(NnLayers, BadConfigurationIsAValueErrorAtConstruction) {
  EXPECT_THROW(ly::Dense(-1), symx::ValueError);
  EXPECT_THROW(ly::Conv2D(4, {3}, {.padding = "FULL"}), symx::ValueError);
  EXPECT_THROW(ly::Conv2D(4, {3, 3, 3}), symx::ValueError);
  EXPECT_THROW(ly::Conv2D(4, {3}, {.strides = {0}}), symx::ValueError);
  EXPECT_THROW(ly::Conv2D(4, {3}, {.groups = 3}), symx::ValueError);
  EXPECT_THROW(ly::Dropout(1.0), symx::ValueError);
  EXPECT_THROW(ly::BatchNorm({.momentum = 2}), symx::ValueError);
  EXPECT_THROW(ly::Activation("nope"), symx::ValueError);
  EXPECT_THROW(ly::Upsample2D({2}, "cubic"), symx::ValueError);
  EXPECT_THROW(ly::Reshape({-1, -1}), symx::ValueError);
  EXPECT_THROW(ly::MaxPool2D({0}), symx::ValueError);
  EXPECT_THROW(ly::Dense(3, {.name = "a/b"}), symx::ValueError);
}

TEST_F(NnLayers, ReadmeQuickStartTrains) {
  using std::make_shared;
  ly::Sequential net({make_shared<ly::Conv2D>(8, 3, ly::ConvOptions{.padding = "SAME"}), make_shared<ly::BatchNorm>(),
                      make_shared<ly::Activation>("relu"), make_shared<ly::MaxPool2D>(2), make_shared<ly::Flatten>(),
                      make_shared<ly::Dense>(3)});
  Tensor x = symx::placeholder({16, 1, 6, 6}, symx::f32, "x");
  Tensor y = symx::placeholder({16}, symx::i64, "y");
  Tensor loss = symx::mean(symx::nn::softmax_cross_entropy(net(x, true), symx::one_hot(y, 3)));
  auto params = net.variables(true);
  auto grads = symx::grad(loss, params);
  auto updates = symx::get_updates();
  for (std::size_t i = 0; i < params.size(); ++i) updates.emplace_back(params[i], params[i] - 0.05 * grads[i]);
  auto train = symx::function({x, y}, {loss}, updates);
  // Labels that the images determine: the class is which third of the image is bright.
  Array images({16, 1, 6, 6}, symx::f32), labels({16}, symx::i64);
  for (std::int64_t i = 0; i < 16; ++i) {
    labels.set_flat(i, static_cast<double>(i % 3));
    for (std::int64_t p = 0; p < 36; ++p) images.set_flat(i * 36 + p, (p % 6) / 2 == i % 3 ? 1.0 : 0.0);
  }
  double first = train({images, labels})[0].item<double>(), last = first;
  for (int step = 0; step < 30; ++step) last = train({images, labels})[0].item<double>();
  EXPECT_LT(last, 0.5 * first);
}

// ---- an unknown batch size (placeholder({kDynamic, ...})) ----

namespace {

Array random_array(const symx::Shape& shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> values(static_cast<std::size_t>(symx::num_elements(shape)));
  for (double& v : values) v = normal(rng);
  return Array::from_vector<double>(values, shape);
}

// `layer` applied to a static-shape placeholder of `value`'s shape over the same variables, evaluated.
// In training mode, the updates it makes run once (and replace none of the collection's).
Array static_run(ly::Layer& layer, const Array& value, bool training) {
  symx::clear_updates();
  Tensor x = symx::placeholder(value.shape(), value.dtype(), "x_static");
  Tensor y = layer(x, training);
  Array out = symx::function({x}, {y}, symx::get_updates())({value}).at(0);
  symx::clear_updates();
  return out;
}

std::vector<Array> values_of(const std::vector<Tensor>& vars) {
  std::vector<Array> out;
  for (const Tensor& v : vars) out.push_back(v.value());
  return out;
}

}  // namespace

// Conv2D -> BatchNorm -> relu -> MaxPool2D -> Flatten -> Dropout -> Dense on batches of 8 and 3 through
// one function each for training and evaluation: the outputs and BatchNorm's running statistics equal
// those of static-shape graphs over the same variables, and each function compiles once per batch size.
TEST_F(NnLayers, NetworkWithAnUnknownBatchSizeMatchesStaticShapes) {
  auto bn = std::make_shared<ly::BatchNorm>();
  auto features = std::make_shared<ly::Sequential>(
      std::vector<std::shared_ptr<ly::Layer>>{std::make_shared<ly::Conv2D>(3, 3, ly::ConvOptions{.padding = 1}), bn,
                                              std::make_shared<ly::Activation>("relu"),
                                              std::make_shared<ly::MaxPool2D>(std::vector<std::int64_t>{2}),
                                              std::make_shared<ly::Flatten>()},
      "features");
  auto head =
      std::make_shared<ly::Sequential>(std::vector<std::shared_ptr<ly::Layer>>{std::make_shared<ly::Dropout>(0.5),
                                                                               std::make_shared<ly::Dense>(4)},
                                       "head");
  ly::Sequential net({features, head});
  Tensor x = symx::placeholder({symx::kDynamic, 2, 6, 6}, symx::f64, "x");
  Tensor h_train = (*features)(x, true);
  Tensor y_train = (*head)(h_train, true);
  symx::Updates bn_updates = symx::get_updates();
  ASSERT_EQ(bn_updates.size(), 2u);
  symx::clear_updates();
  Tensor y_eval = net(x, false);
  std::vector<symx::Shape> shapes;
  for (const Tensor& v : net.variables()) shapes.push_back(v.shape());
  EXPECT_EQ(shapes, (std::vector<symx::Shape>{{3, 2, 3, 3}, {3}, {3}, {3}, {3}, {3}, {27, 4}, {4}}));
  symx::Function train = symx::function({x}, {h_train, y_train}, bn_updates);
  symx::Function evaluate = symx::function({x}, {y_eval});

  const Array a = random_array({8, 2, 6, 6}, 1), b = random_array({3, 2, 6, 6}, 2);
  for (const Array* batch : {&a, &b})  // evaluation: the same graph as a static one of each size
    expect_close(evaluate({*batch}).at(0), static_run(net, *batch, false), "eval", 1e-12);
  auto running = bn->variables(false);
  const std::vector<Array> start = values_of(running);
  std::vector<Array> h_dynamic;
  for (const Array* batch : {&a, &b}) {
    auto out = train({*batch});
    EXPECT_EQ(out.at(1).shape(), (symx::Shape{batch->shape()[0], 4}));
    h_dynamic.push_back(out.at(0));
  }
  const std::vector<Array> after = values_of(running);
  for (std::size_t i = 0; i < running.size(); ++i) running[i].assign(start[i]);
  expect_close(h_dynamic[0], static_run(*features, a, true), "training features, batch 8", 1e-12);
  expect_close(h_dynamic[1], static_run(*features, b, true), "training features, batch 3", 1e-12);
  for (std::size_t i = 0; i < running.size(); ++i) expect_close(after[i], running[i].value(), running[i].name(), 1e-12);
  EXPECT_NE(after[0].to_vector(), start[0].to_vector());  // the running statistics moved
  EXPECT_EQ(train.compile_count(), 2);
  EXPECT_EQ(evaluate.compile_count(), 2);
}

// Embedding, LayerNorm, Upsample2D, GlobalAvgPool2D and Reshape with an unknown batch size: variables
// from the known axes, outputs equal to static graphs, one compile per batch size.
TEST_F(NnLayers, OtherLayersWithAnUnknownBatchSizeMatchStaticShapes) {
  ly::Embedding embedding(10, 3, symx::nn::init::normal(0, 1), symx::f64);
  ly::LayerNorm token_norm;
  ly::Sequential tokens({std::shared_ptr<ly::Layer>(&embedding, [](ly::Layer*) {}),
                         std::shared_ptr<ly::Layer>(&token_norm, [](ly::Layer*) {})});
  Tensor idx = symx::placeholder({symx::kDynamic, 5}, symx::i64, "idx");
  auto image_norm = std::make_shared<ly::LayerNorm>(std::vector<int>{1, 2, 3});
  ly::Sequential images({std::make_shared<ly::Upsample2D>(2, "bilinear"), image_norm,
                         std::make_shared<ly::GlobalAvgPool2D>(), std::make_shared<ly::Reshape>(symx::Shape{1, -1})});
  Tensor x = symx::placeholder({symx::kDynamic, 2, 3, 4}, symx::f64, "x");
  symx::Function f = symx::function({idx, x}, {tokens(idx, true), images(x, true)});
  EXPECT_EQ(embedding.variables().at(0).shape(), (symx::Shape{10, 3}));
  EXPECT_EQ(token_norm.variables().at(0).shape(), (symx::Shape{3}));
  EXPECT_EQ(image_norm->variables().at(0).shape(), (symx::Shape{2, 6, 8}));
  for (std::int64_t n : {8, 3}) {
    std::vector<std::int64_t> ids;
    for (std::int64_t i = 0; i < n * 5; ++i) ids.push_back((i * 7 + n) % 10);
    Array idx_value = Array::from_vector<std::int64_t>(ids, {n, 5}), x_value = random_array({n, 2, 3, 4}, 3);
    auto out = f({idx_value, x_value});
    EXPECT_EQ(out.at(1).shape(), (symx::Shape{n, 1, 2}));
    expect_close(out.at(0), static_run(tokens, idx_value, false), "tokens", 1e-12);
    expect_close(out.at(1), static_run(images, x_value, false), "images", 1e-12);
  }
  EXPECT_EQ(f.compile_count(), 2);
}

// RandomFlip then RandomCrop (padding 1) on batches of 8 and 3: in training each image is a window of
// its padded (perhaps flipped) self, in evaluation the centre window; one compile per batch size.
TEST_F(NnLayers, RandomAugmentationWithAnUnknownBatchSize) {
  ly::Sequential augment({std::make_shared<ly::RandomFlip>(), std::make_shared<ly::RandomCrop>(4, 1)});
  Tensor x = symx::placeholder({symx::kDynamic, 2, 4, 4}, symx::f64, "x");
  symx::Function train = symx::function({x}, {augment(x, true)});
  symx::Function evaluate = symx::function({x}, {augment(x, false)});
  for (std::int64_t n : {8, 3}) {
    Array value = random_array({n, 2, 4, 4}, 4);
    expect_close(evaluate({value}).at(0), value, "evaluation is the centre crop of the padded image", 0);
    auto in = value.to_vector(), out = train({value}).at(0).to_vector();
    ASSERT_EQ(out.size(), in.size());
    // Padded pixel (c, r, k) of image i, flipped or not; 0 outside the image.
    auto pixel = [&](std::int64_t i, std::int64_t c, std::int64_t r, std::int64_t k, bool flipped) {
      if (r < 0 || r >= 4 || k < 0 || k >= 4) return 0.0;
      return in[static_cast<std::size_t>(((i * 2 + c) * 4 + r) * 4 + (flipped ? 3 - k : k))];
    };
    for (std::int64_t i = 0; i < n; ++i) {
      bool found = false;
      for (int flipped = 0; flipped < 2 && !found; ++flipped)
        for (std::int64_t top = -1; top <= 1 && !found; ++top)
          for (std::int64_t left = -1; left <= 1 && !found; ++left) {
            bool same = true;
            for (std::int64_t e = 0; e < 32 && same; ++e)
              same =
                  out[static_cast<std::size_t>(i * 32 + e)] == pixel(i, e / 16, top + e / 4 % 4, left + e % 4, flipped);
            found = same;
          }
      EXPECT_TRUE(found) << "image " << i << " of a batch of " << n << " is no window of its padded image";
    }
  }
  EXPECT_EQ(train.compile_count(), 2);
  EXPECT_EQ(evaluate.compile_count(), 2);
}

TEST_F(NnLayers, AVariableFromAnUnknownSizeIsAShapeErrorNamingTheLayer) {
  ly::Dense dense(3);
  Tensor x = symx::placeholder({4, symx::kDynamic}, symx::f32, "x");
  try {
    dense(x);
    FAIL() << "expected a ShapeError";
  } catch (const symx::ShapeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("nn.layers.Dense 'dense'"), std::string::npos) << m;
    EXPECT_NE(m.find("unknown"), std::string::npos) << m;
  }
}

// Reshaping and cropping need the sizes of every axis but the batch; an unknown one is a clear error.
TEST_F(NnLayers, UnknownSizesBeyondTheBatchAreShapeErrorsWhereALayerNeedsThem) {
  Tensor x = symx::placeholder({symx::kDynamic, 2, symx::kDynamic, 4}, symx::f32, "x");
  ly::Reshape reshape({-1});
  ly::RandomCrop crop(2);
  ly::Upsample2D upsample(2, "bilinear");
  for (ly::Layer* layer : std::vector<ly::Layer*>{&reshape, &crop, &upsample}) {
    try {
      (*layer)(x, true);
      ADD_FAILURE() << "expected a ShapeError from " << layer->name();
    } catch (const symx::ShapeError& e) {
      std::string m = e.what();
      EXPECT_NE(m.find("'" + layer->name() + "'"), std::string::npos) << m;
      EXPECT_NE(m.find("unknown until a call"), std::string::npos) << m;
    }
  }
  // Flatten needs no sizes when the batch size is known: (4, 2, ?, 4) -> (4, ?).
  Array value = random_array({4, 2, 3, 4}, 8);
  Tensor z = symx::placeholder({4, 2, symx::kDynamic, 4}, symx::f64, "z");
  Array flat = symx::function({z}, {ly::Flatten()(z)})({value}).at(0);
  EXPECT_EQ(flat.shape(), (symx::Shape{4, 24}));
  EXPECT_EQ(flat.to_vector(), value.to_vector());
}

// nn::layers: forward passes and gradients against PyTorch (golden files of
// tests/golden/golden_layers.py, float64, 1e-10 relative), BatchNorm's running statistics over three
// training steps, the random layers by their statistics and invariants, naming, sharing and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <unistd.h>

#include "symx/nn/layers.hpp"

namespace ly = symx::nn::layers;
using symx::Array;
using symx::Tensor;

namespace {

// ---- golden files ----

std::uint64_t little_endian(const std::string& bytes, std::size_t at, int size) {
  std::uint64_t v = 0;
  for (int i = size - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes.at(at + static_cast<std::size_t>(i)));
  return v;
}

// The arrays of an uncompressed .npz (a zip of .npy files, as numpy.savez writes it, zip64 sizes
// included). Each member goes through Array::load_npy via a temporary file.
// TODO(merge): symx::load_npz replaces this once the io part is merged.
std::map<std::string, Array> read_npz(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot open golden file " + path + " (set SYMX_GOLDEN_DIR to tests/golden; rerun tests/golden/make_golden.py if it is missing)");
  std::stringstream buffer;
  buffer << file.rdbuf();
  const std::string bytes = buffer.str();
  std::map<std::string, Array> out;
  std::size_t pos = 0;
  while (pos + 30 <= bytes.size() && little_endian(bytes, pos, 4) == 0x04034b50) {
    if (little_endian(bytes, pos + 8, 2) != 0) throw std::runtime_error(path + ": compressed members are not read");
    std::uint64_t size = little_endian(bytes, pos + 18, 4);
    std::size_t name_length = little_endian(bytes, pos + 26, 2), extra_length = little_endian(bytes, pos + 28, 2);
    std::string name = bytes.substr(pos + 30, name_length);
    std::size_t extra = pos + 30 + name_length;
    if (size == 0xFFFFFFFF)  // zip64: the extra field (id 1) holds the uncompressed then the compressed size
      for (std::size_t e = extra; e + 4 <= extra + extra_length; e += 4 + little_endian(bytes, e + 2, 2))
        if (little_endian(bytes, e, 2) == 1) size = little_endian(bytes, e + 12, 8);
    std::size_t start = extra + extra_length;
    auto tmp = std::filesystem::temp_directory_path() / ("symx_layers_golden_" + std::to_string(::getpid()) + ".npy");
    std::ofstream(tmp, std::ios::binary).write(bytes.data() + start, static_cast<std::streamsize>(size));
    out[name.substr(0, name.size() - 4)] = Array::load_npy(tmp.string());
    std::filesystem::remove(tmp);
    pos = start + size;
  }
  return out;
}

std::map<std::string, Array> golden(const std::string& name) {
  const char* dir = std::getenv("SYMX_GOLDEN_DIR");
  // ctest sets SYMX_GOLDEN_DIR; run by hand, the files are found beside this source.
  std::string base = dir ? dir : (std::filesystem::path(__FILE__).parent_path().parent_path() / "golden").string();
  return read_npz(base + "/layers_" + name + ".npz");
}

// Within rtol times the expected array's largest magnitude (plus an absolute floor for analytic zeros).
void expect_close(const Array& actual, const Array& expected, const std::string& what, double rtol = 1e-10,
                  double floor = 0) {
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  auto a = actual.to_vector(), e = expected.to_vector();
  double scale = 0;
  for (double v : e) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_LE(std::abs(a[i] - e[i]), std::max(rtol * scale, floor)) << what << " at " << i << ": " << a[i] << " vs " << e[i];
}

std::string last_part(const std::string& name) { return name.substr(name.rfind('/') + 1); }

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
  ly::Conv2D conv2d(6, {3, 2}, {.strides = {2, 1}, .padding = std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 1}, {2, 2}},
                                .dilation = {1, 2}, .groups = 2});
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
  struct Case { std::string name; ly::BatchNormOptions options; };
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
  ly::Sequential net({conv, bn, std::make_shared<ly::Activation>("relu"), std::make_shared<ly::MaxPool2D>(std::vector<std::int64_t>{2}),
                      std::make_shared<ly::Flatten>(), dense});
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
  EXPECT_EQ(names, (std::vector<std::string>{"dense/w", "dense/b", "dense_1/w", "dense_1/b", "encoder/proj/w", "encoder/proj/b"}));
  EXPECT_EQ(second.name(), "dense_1");
}

TEST_F(NnLayers, OnlyTrainingAddsBatchNormUpdates) {
  ly::Sequential net({std::make_shared<ly::Dense>(4), std::make_shared<ly::BatchNorm>(), std::make_shared<ly::Dropout>(0.5)});
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

// symx::nn::losses (issue 9): values against the losses' formulas evaluated in double here (for every
// reduction), gradients against float64 finite differences, finiteness for logits of +-1e4 in
// float32, metrics against a direct count, errors, and values and gradients against PyTorch's (golden
// files, also read by tests/python/test_nn_losses.py).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "../cpp/test_util.hpp"
#include "symx/nn/losses.hpp"

namespace sx = symx;
namespace losses = symx::nn::losses;
using sx::testing::expect_close;
using sx::testing::expect_error;
using sx::testing::expect_gradients_match;
using sx::testing::random_array;

namespace {

constexpr std::int64_t N = 5, C = 4;

// Logits (N, C) with +-1e4 in places: row 0's label logit is +1e4, row 1's is -1e4 against +1e4.
sx::Array extreme_logits(sx::DType dtype = sx::f64) {
  sx::Array x = random_array({N, C}, -3, 3, 11);
  x.set_flat(0, 1e4);
  x.set_flat(C, -1e4);
  x.set_flat(C + 3, 1e4);
  return x.astype(dtype);
}

sx::Array class_labels() { return sx::Array::from_vector<std::int64_t>({0, 0, 3, 1, 2}, {N}); }

double at(const sx::Array& a, std::int64_t i, std::int64_t j) { return a.get_flat(i * a.shape().back() + j); }

double log_sum_exp_row(const sx::Array& x, std::int64_t i) {
  double m = at(x, i, 0), s = 0;
  for (std::int64_t j = 1; j < C; ++j) m = std::max(m, at(x, i, j));
  for (std::int64_t j = 0; j < C; ++j) s += std::exp(at(x, i, j) - m);
  return m + std::log(s);
}

double softplus(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x))); }

// Checks `loss(reduction)` for "none", "sum" and "mean" against per-element values.
void expect_reductions(const std::function<sx::Tensor(const std::string&)>& loss, const std::vector<double>& none,
                       double rtol = 1e-13) {
  double total = 0;
  for (double v : none) total += v;
  expect_close(loss("none").eval(), none, rtol, 1e-300);
  expect_close(loss("sum").eval(), {total}, rtol, 1e-300);
  expect_close(loss("mean").eval(), {total / static_cast<double>(none.size())}, rtol, 1e-300);
}

}  // namespace

TEST(NnLosses, SoftmaxCrossEntropyWithClassLabelsAndSmoothing) {
  sx::Array x = extreme_logits(), y = class_labels();
  for (double eps : {0.0, 0.1}) {
    SCOPED_TRACE("label_smoothing " + std::to_string(eps));
    std::vector<double> expected;
    for (std::int64_t i = 0; i < N; ++i) {
      double lse = log_sum_exp_row(x, i), mean_logit = 0;
      for (std::int64_t j = 0; j < C; ++j) mean_logit += at(x, i, j) / C;
      double nll = lse - at(x, i, static_cast<std::int64_t>(y.get_flat(i)));
      expected.push_back((1 - eps) * nll + eps * (lse - mean_logit));
    }
    expect_reductions(
        [&](const std::string& r) {
          return losses::softmax_cross_entropy_loss(sx::constant(x), sx::constant(y), eps, r);
        },
        expected);
  }
  // int32 labels work too.
  expect_close(losses::softmax_cross_entropy_loss(sx::constant(x), sx::constant(y.astype(sx::i32))).eval(),
               losses::softmax_cross_entropy_loss(sx::constant(x), sx::constant(y)).eval(), 0, 0);
}

TEST(NnLosses, SoftmaxCrossEntropyWithSoftLabels) {
  sx::Array x = extreme_logits(), p = random_array({N, C}, 0, 1, 12);
  std::vector<double> expected;
  for (std::int64_t i = 0; i < N; ++i) {
    double lse = log_sum_exp_row(x, i), loss = 0;
    for (std::int64_t j = 0; j < C; ++j) loss += at(p, i, j) * (lse - at(x, i, j));
    expected.push_back(loss);
  }
  expect_reductions(
      [&](const std::string& r) { return losses::softmax_cross_entropy_loss(sx::constant(x), sx::constant(p), 0, r); },
      expected);
  sx::Array moderate = random_array({N, C}, -3, 3, 13);
  expect_gradients_match(
      [](const std::vector<sx::Tensor>& in) { return losses::softmax_cross_entropy_loss(in[0], in[1], 0.2, "none"); },
      {moderate, p}, 1e-7, 1e-9);
}

TEST(NnLosses, SigmoidBinaryCrossEntropyWithAndWithoutPosWeight) {
  sx::Array x = extreme_logits(), y = random_array({N, C}, 0, 1, 14), w = random_array({C}, 0.5, 3, 15);
  for (bool weighted : {false, true}) {
    SCOPED_TRACE(weighted ? "pos_weight" : "no pos_weight");
    std::vector<double> expected;
    for (std::int64_t k = 0; k < N * C; ++k) {
      double xv = x.get_flat(k), yv = y.get_flat(k), pw = weighted ? w.get_flat(k % C) : 1;
      expected.push_back(-(pw * yv * -softplus(-xv) + (1 - yv) * -softplus(xv)));
    }
    sx::Tensor pos_weight = weighted ? sx::constant(w) : sx::Tensor();
    expect_reductions(
        [&](const std::string& r) {
          return losses::sigmoid_binary_cross_entropy_loss(sx::constant(x), sx::constant(y), pos_weight, r);
        },
        expected, 1e-12);
  }
  expect_gradients_match(
      [&](const std::vector<sx::Tensor>& in) {
        return losses::sigmoid_binary_cross_entropy_loss(in[0], in[1], sx::constant(w), "none");
      },
      {random_array({N, C}, -3, 3, 16), y}, 1e-7, 1e-9);
}

TEST(NnLosses, RegressionLosses) {
  sx::Array p = random_array({3, 4}, -3, 3, 17), t = random_array({3, 4}, -3, 3, 18);
  std::vector<double> squared, absolute, huber;
  for (std::int64_t k = 0; k < p.size(); ++k) {
    double d = p.get_flat(k) - t.get_flat(k), delta = 0.7;
    squared.push_back(d * d);
    absolute.push_back(std::fabs(d));
    huber.push_back(std::fabs(d) < delta ? 0.5 * d * d : delta * (std::fabs(d) - 0.5 * delta));
  }
  auto P = sx::constant(p), T = sx::constant(t);
  expect_reductions([&](const std::string& r) { return losses::mean_squared_error_loss(P, T, r); }, squared);
  expect_reductions([&](const std::string& r) { return losses::mean_absolute_error_loss(P, T, r); }, absolute);
  expect_reductions([&](const std::string& r) { return losses::huber_loss(P, T, 0.7, r); }, huber);
  for (const auto& loss : std::vector<std::function<sx::Tensor(const sx::Tensor&, const sx::Tensor&)>>{
           [](const sx::Tensor&a, const sx::Tensor&b) { return losses::mean_squared_error_loss(a, b, "none"); },
           [](const sx::Tensor&a, const sx::Tensor&b) { return losses::mean_absolute_error_loss(a, b, "none"); },
           [](const sx::Tensor&a, const sx::Tensor&b) { return losses::huber_loss(a, b, 0.7, "none"); }})
    expect_gradients_match([&](const std::vector<sx::Tensor>& in) { return loss(in[0], in[1]); }, {p, t}, 1e-7, 1e-9);
  // Integer targets are cast to the predictions' dtype.
  EXPECT_EQ(losses::mean_squared_error_loss(P, sx::constant(sx::Array::zeros({3, 4}, sx::i32))).dtype(), sx::f64);
}

TEST(NnLosses, HingeTakesLabelsInPlusMinusOneOrZeroOne) {
  sx::Array s = sx::Array::from_vector<double>({2.5, 0.3, -0.4, -3.0, 1e4, -1e4}, {6});
  std::vector<double> y = {1, 1, -1, 1, -1, -1}, expected;
  for (std::size_t k = 0; k < y.size(); ++k)
    expected.push_back(std::max(0.0, 1 - y[k] * s.get_flat(static_cast<std::int64_t>(k))));
  sx::Array pm1 = sx::Array::from_vector<double>(y, {6});
  sx::Array zero_one = sx::Array::from_vector<std::int64_t>({1, 1, 0, 1, 0, 0}, {6});
  for (const sx::Array& labels : {pm1, zero_one})
    expect_reductions(
        [&](const std::string& r) { return losses::hinge_loss(sx::constant(s), sx::constant(labels), r); }, expected);
  expect_gradients_match(
      [&](const std::vector<sx::Tensor>& in) { return losses::hinge_loss(in[0], sx::constant(pm1), "none"); },
      {sx::Array::from_vector<double>({2.5, 0.3, -0.4, -3.0, 0.6, -0.1}, {6})}, 1e-7, 1e-9);
}

TEST(NnLosses, MulticlassHingeDividesByTheClassCount) {
  sx::Array x = extreme_logits(), y = class_labels();
  for (int p : {1, 2}) {
    SCOPED_TRACE("p " + std::to_string(p));
    double margin = p == 1 ? 1.0 : 0.5;
    std::vector<double> expected;
    for (std::int64_t i = 0; i < N; ++i) {
      auto label = static_cast<std::int64_t>(y.get_flat(i));
      double loss = 0;
      for (std::int64_t j = 0; j < C; ++j)
        if (j != label) loss += std::pow(std::max(0.0, margin - at(x, i, label) + at(x, i, j)), p);
      expected.push_back(loss / C);
    }
    expect_reductions(
        [&](const std::string& r) {
          return losses::multiclass_hinge_loss(sx::constant(x), sx::constant(y), margin, p, r);
        },
        expected);
    expect_gradients_match(
        [&](const std::vector<sx::Tensor>& in) {
          return losses::multiclass_hinge_loss(in[0], sx::constant(y), margin, p, "none");
        },
        {random_array({N, C}, -3, 3, 19)}, 1e-7, 1e-9);
  }
}

TEST(NnLosses, KlDivergenceConventionsAndBatchmean) {
  sx::Array q = random_array({N, C}, -3, -0.1, 20);  // log-probabilities (need not be normalized)
  sx::Array t = random_array({N, C}, 0, 1, 21);
  t.set_flat(2, 0.0);  // 0 log 0 is 0
  for (bool log_target : {false, true}) {
    SCOPED_TRACE(log_target ? "log_target" : "probabilities");
    std::vector<double> expected;
    double total = 0;
    for (std::int64_t k = 0; k < q.size(); ++k) {
      double tv = t.get_flat(k), qv = q.get_flat(k);
      double v = log_target ? std::exp(tv) * (tv - qv) : (tv == 0 ? 0 : tv * (std::log(tv) - qv));
      expected.push_back(v);
      total += v;
    }
    auto loss = [&](const std::string& r) {
      return losses::kl_divergence_loss(sx::constant(q), sx::constant(t), log_target, r);
    };
    expect_reductions(loss, expected);
    expect_close(loss("batchmean").eval(), {total / N}, 1e-13, 0);
    expect_gradients_match(
        [&](const std::vector<sx::Tensor>& in) { return losses::kl_divergence_loss(in[0], in[1], log_target, "none"); },
        {q, random_array({N, C}, 0.1, 1, 22)}, 1e-7, 1e-9);
  }
}

TEST(NnLosses, AccuracyAndTopKCountDirectly) {
  sx::Array x = random_array({30, 6}, -1, 1, 23);
  sx::Array y = sx::Array::from_vector<std::int64_t>(std::vector<std::int64_t>(30, 0), {30});
  for (std::int64_t i = 0; i < 30; ++i) y.set_flat(i, static_cast<double>((i * 7) % 6));
  for (std::int64_t k : {1, 2, 3, 6}) {
    double hits = 0;
    for (std::int64_t i = 0; i < 30; ++i) {
      double own = at(x, i, static_cast<std::int64_t>(y.get_flat(i)));
      std::int64_t larger = 0;
      for (std::int64_t j = 0; j < 6; ++j) larger += at(x, i, j) > own;
      hits += larger < k;
    }
    expect_close(losses::top_k_accuracy(sx::constant(x), sx::constant(y), k).eval(), {hits / 30}, 1e-15, 0);
    if (k == 1) {
      expect_close(losses::accuracy(sx::constant(x), sx::constant(y)).eval(), {hits / 30}, 1e-15, 0);
      expect_close(losses::accuracy(sx::constant(x), sx::one_hot(sx::constant(y), 6)).eval(), {hits / 30}, 1e-15, 0);
    }
  }
}

TEST(NnLosses, Float32StaysFiniteForLogitsOf1e4) {
  sx::reset_default_graph();
  sx::Tensor x = sx::placeholder({N, C}, sx::f32, "logits");
  sx::Tensor y = sx::constant(class_labels());
  sx::Tensor soft = sx::constant(random_array({N, C}, 0, 1, 24, sx::f32));
  std::vector<sx::Tensor> all = {
      losses::softmax_cross_entropy_loss(x, y, 0.1),
      losses::softmax_cross_entropy_loss(x, soft),
      losses::sigmoid_binary_cross_entropy_loss(x, soft, sx::constant(sx::Array({2.0f, 1.0f, 0.5f, 3.0f}))),
      losses::mean_squared_error_loss(x, soft),
      losses::mean_absolute_error_loss(x, soft),
      losses::huber_loss(x, soft),
      losses::hinge_loss(x, soft),
      losses::multiclass_hinge_loss(x, y, 1, 2),
      losses::kl_divergence_loss(sx::nn::log_softmax(x), soft, false, "batchmean"),
      losses::kl_divergence_loss(sx::nn::log_softmax(x), sx::nn::log_softmax(soft), true),
  };
  std::vector<sx::Tensor> outputs;
  for (const auto& loss : all) {
    EXPECT_EQ(loss.dtype(), sx::f32);
    outputs.push_back(loss);
    outputs.push_back(sx::grad(loss, {x})[0]);
  }
  auto results = sx::function({x}, outputs)({extreme_logits(sx::f32)});
  for (std::size_t k = 0; k < results.size(); ++k)
    for (std::int64_t i = 0; i < results[k].size(); ++i)
      EXPECT_TRUE(std::isfinite(results[k].get_flat(i))) << "output " << k << ", element " << i;
}

TEST(NnLosses, ErrorsNameTheArgument) {
  sx::reset_default_graph();
  sx::Tensor logits = sx::placeholder({8, 10}, sx::f32, "logits");
  sx::Tensor labels = sx::placeholder({8}, sx::i64, "labels");
  int line = __LINE__ + 1;
  expect_error<sx::ValueError>([&] { losses::softmax_cross_entropy_loss(logits, labels, 0, "avg"); },
                               {"softmax_cross_entropy_loss: reduction 'avg' is not one of 'mean', 'sum', 'none'",
                                "test_losses.cpp:" + std::to_string(line)});
  expect_error<sx::ShapeError>([&] { losses::softmax_cross_entropy_loss(logits, sx::placeholder({7}, sx::i64)); },
                               {"labels must have the logits' shape without the class axis, (8,)",
                                "labels (shape (7,), int64)"});
  expect_error<sx::DTypeError>([&] { losses::multiclass_hinge_loss(logits, sx::placeholder({8}, sx::f32)); },
                               {"class labels must be int32 or int64, not float32"});
  expect_error<sx::DTypeError>(
      [&] { losses::sigmoid_binary_cross_entropy_loss(sx::placeholder({8}, sx::i32), labels); },
      {"logits must be float32 or float64, not int32"});
  expect_error<sx::ShapeError>(
      [&] {
        losses::mean_absolute_error_loss(sx::placeholder({8, 1}), sx::placeholder({8}));
      },
      {"targets must have the shape of predictions", "targets (shape (8,), float32)"});
  expect_error<sx::ShapeError>(
      [&] { losses::sigmoid_binary_cross_entropy_loss(logits, logits, sx::constant(sx::Array::ones({3}))); },
      {"pos_weight does not broadcast", "pos_weight (shape (3,), float32)"});
  expect_error<sx::ValueError>([&] { losses::kl_divergence_loss(logits, logits, false, "max"); },
                               {"'mean', 'batchmean', 'sum', 'none'"});
  expect_error<sx::ValueError>([&] { losses::huber_loss(logits, logits, 0); }, {"huber_loss: delta is 0"});
  expect_error<sx::ValueError>([&] { losses::top_k_accuracy(logits, labels, 0); }, {"top_k_accuracy: k is 0"});
  expect_error<sx::ShapeError>([&] { losses::accuracy(sx::placeholder({}), labels); }, {"logits is a scalar"});
}

// ---- against PyTorch: the golden files of tests/golden/golden_losses.py (float64) ----

namespace {

using Golden = std::map<std::string, sx::Array>;
using Args = std::map<std::string, sx::Tensor>;

// tests/golden/<file>: from SYMX_GOLDEN_DIR (set by ctest), else relative to the repository root.
Golden read_loss_golden(const std::string& file) {
  const char* dir = std::getenv("SYMX_GOLDEN_DIR");
  return sx::load_npz((dir ? std::string(dir) : std::string("tests/golden")) + "/" + file);
}

double parameter(const Golden& g, const char* key) { return g.at(key).astype(sx::f64).get_flat(0); }

struct GoldenCase {
  std::string name;
  std::vector<std::string> arguments;  // the tensors the loss takes, by their names in the file
  std::function<sx::Tensor(const Args&, const Golden&, const std::string&)> loss;
};

std::vector<GoldenCase> golden_loss_cases() {
  auto ce = [](const Args& a, const Golden& g, const std::string& r) {
    return losses::softmax_cross_entropy_loss(a.at("logits"), a.at("labels"), parameter(g, "label_smoothing"), r);
  };
  auto bce = [](const Args& a, const Golden&, const std::string& r) {
    return losses::sigmoid_binary_cross_entropy_loss(a.at("logits"), a.at("labels"),
                                                     a.count("pos_weight") ? a.at("pos_weight") : sx::Tensor(), r);
  };
  auto huber = [](const Args& a, const Golden& g, const std::string& r) {
    return losses::huber_loss(a.at("predictions"), a.at("targets"), parameter(g, "delta"), r);
  };
  auto hinge = [](const Args& a, const Golden&, const std::string& r) {
    return losses::hinge_loss(a.at("scores"), a.at("labels"), r);
  };
  auto margin = [](const Args& a, const Golden& g, const std::string& r) {
    return losses::multiclass_hinge_loss(a.at("logits"), a.at("labels"), parameter(g, "margin"),
                                         static_cast<int>(parameter(g, "p")), r);
  };
  auto kl = [](const Args& a, const Golden& g, const std::string& r) {
    return losses::kl_divergence_loss(a.at("log_predictions"), a.at("targets"), parameter(g, "log_target") != 0, r);
  };
  const std::vector<std::string> classes = {"logits", "labels"}, regression = {"predictions", "targets"};
  return {
      {"ce_sparse", classes, ce},
      {"ce_sparse_smooth", classes, ce},
      {"ce_soft", classes, ce},
      {"ce_soft_smooth", classes, ce},
      {"ce_3d", classes, ce},
      {"bce", classes, bce},
      {"bce_pos_weight", {"logits", "labels", "pos_weight"}, bce},
      {"mse", regression,
       [](const Args& a, const Golden&, const std::string& r) {
         return losses::mean_squared_error_loss(a.at("predictions"), a.at("targets"), r);
       }},
      {"mae", regression,
       [](const Args& a, const Golden&, const std::string& r) {
         return losses::mean_absolute_error_loss(a.at("predictions"), a.at("targets"), r);
       }},
      {"huber", regression, huber},
      {"huber_delta0.5", regression, huber},
      {"hinge_pm1", {"scores", "labels"}, hinge},
      {"hinge_01", {"scores", "labels"}, hinge},
      {"multi_margin", classes, margin},
      {"multi_margin_p2", classes, margin},
      {"kl", {"log_predictions", "targets"}, kl},
      {"kl_log_target", {"log_predictions", "targets"}, kl},
  };
}

}  // namespace

TEST(NnLosses, ValuesAndGradientsMatchPyTorch) {
  for (const auto& c : golden_loss_cases()) {
    SCOPED_TRACE(c.name);
    sx::reset_default_graph();
    Golden g = read_loss_golden("losses_" + c.name + ".npz");
    Args args;
    sx::Feed feed;
    for (const auto& name : c.arguments) {
      args[name] = sx::placeholder(g.at(name).shape(), g.at(name).dtype(), name);
      feed.emplace_back(args[name], g.at(name));
    }
    for (const char* reduction : {"mean", "sum", "none", "batchmean"}) {
      if (!g.count(std::string("value_") + reduction)) continue;
      SCOPED_TRACE(reduction);
      expect_close(c.loss(args, g, reduction).eval(feed), g.at(std::string("value_") + reduction), 1e-10, 1e-300);
    }
    sx::Tensor weighted = sx::sum(c.loss(args, g, "none") * sx::constant(g.at("r")));
    sx::Tensor mean = c.loss(args, g, "mean");
    for (const auto& name : c.arguments) {
      if (!g.count("d" + name)) continue;
      SCOPED_TRACE("gradient with respect to " + name);
      expect_close(sx::grad(weighted, {args[name]})[0].eval(feed), g.at("d" + name), 1e-10, 1e-14);
      expect_close(sx::grad(mean, {args[name]})[0].eval(feed), g.at("d" + name + "_mean"), 1e-10, 1e-14);
    }
  }
}

TEST(NnLosses, MetricsMatchTorchTopk) {
  Golden g = read_loss_golden("losses_metrics.npz");
  sx::Tensor logits = sx::constant(g.at("logits")), labels = sx::constant(g.at("labels"));
  expect_close(losses::accuracy(logits, labels).eval(), g.at("accuracy"), 0, 0);
  for (std::int64_t k : {1, 2, 3, 6})
    expect_close(losses::top_k_accuracy(logits, labels, k).eval(), g.at("top_" + std::to_string(k) + "_accuracy"), 0,
                 0);
}

TEST(NnLosses, MeansDivideByTheBatchSizeOfTheCall) {
  // One graph over placeholders of unknown batch size, called with 3 and with 5 examples.
  sx::reset_default_graph();
  sx::Tensor logits = sx::placeholder({sx::kDynamic, C}, sx::f64, "logits");
  sx::Tensor labels = sx::placeholder({sx::kDynamic}, sx::i64, "labels");
  sx::Tensor cross_entropy = losses::softmax_cross_entropy_loss(logits, labels);
  sx::Tensor margin = losses::multiclass_hinge_loss(logits, labels);
  auto f = sx::function({logits, labels}, {cross_entropy, margin});
  for (std::int64_t n : {3, 5}) {
    SCOPED_TRACE("batch " + std::to_string(n));
    sx::Array x = random_array({n, C}, -2, 2, static_cast<unsigned>(n));
    sx::Array y = sx::Array::from_vector<std::int64_t>(std::vector<std::int64_t>(static_cast<std::size_t>(n), 1), {n});
    double ce = 0, hinge = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      ce += (log_sum_exp_row(x, i) - at(x, i, 1)) / static_cast<double>(n);
      for (std::int64_t j = 0; j < C; ++j)
        if (j != 1) hinge += std::max(0.0, 1 - at(x, i, 1) + at(x, i, j)) / C / static_cast<double>(n);
    }
    auto out = f({x, y});
    expect_close(out[0], {ce}, 1e-13, 0);
    expect_close(out[1], {hinge}, 1e-13, 0);
  }
}

// nn::layers::RNN, GRU and LSTM: outputs, final states and gradients against PyTorch (golden files of
// tests/golden/golden_rnn.py, float64, 1e-10 relative) by eval() and by a compiled function; the
// variables' names and initial values, return_sequences, dropout between layers, the product
// x_t @ weight_ih^T hoisted out of the loop, unknown batch sizes and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "golden_util.hpp"
#include "symx/nn/layers.hpp"

namespace ly = symx::nn::layers;
using symx::Array;
using symx::Tensor;

namespace {

using symx_toolkit_test::expect_close;
using symx_toolkit_test::last_part;

// tests/golden/rnn_<name>.npz
std::map<std::string, Array> golden(const std::string& name) {
  return symx_toolkit_test::golden_npz("rnn_" + name + ".npz");
}

// The cases of golden_rnn.py's CASES, with the same options.
struct Case {
  std::string name, kind, nonlinearity;
  std::int64_t num_layers;
  bool bidirectional, batch_first;
};
const std::vector<Case> kCases = {
    {"tanh", "RNN", "tanh", 1, false, false},
    {"relu_2layers", "RNN", "relu", 2, false, true},
    {"gru", "GRU", "", 1, false, true},
    {"lstm", "LSTM", "", 1, false, true},
    {"lstm_2layers_bidir", "LSTM", "", 2, true, false},
    {"gru_2layers_bidir", "GRU", "", 2, true, true},
    {"tanh_bidir_h0", "RNN", "tanh", 1, true, true},
    {"gru_h0", "GRU", "", 2, false, false},
    {"lstm_h0", "LSTM", "", 2, false, true},
    {"tanh_lengths", "RNN", "tanh", 1, false, true},
    {"gru_lengths_bidir", "GRU", "", 2, true, false},
    {"lstm_lengths_bidir", "LSTM", "", 2, true, true},
};

std::unique_ptr<ly::Recurrent> make(const Case& c, ly::RecurrentOptions o = {}) {
  o.num_layers = c.num_layers;
  o.bidirectional = c.bidirectional;
  o.batch_first = c.batch_first;
  if (c.kind == "RNN") return std::make_unique<ly::RNN>(3, c.nonlinearity, o);
  if (c.kind == "GRU") return std::make_unique<ly::GRU>(3, o);
  return std::make_unique<ly::LSTM>(3, o);
}

class NnRecurrent : public ::testing::Test {
 protected:
  void SetUp() override { symx::reset_default_graph(); }
  void TearDown() override { symx::reset_default_graph(); }
};

}  // namespace

TEST_F(NnRecurrent, MatchTorchByEvalAndCompiled) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    symx::reset_default_graph();
    auto data = golden(c.name);
    auto layer = make(c);
    Tensor x = symx::placeholder(data.at("x").shape(), symx::f64, "x");
    std::vector<Tensor> inputs = {x};
    std::vector<std::string> names = {"x"};
    symx::Feed feed = {{x, data.at("x")}};
    ly::RecurrentInputs in;
    for (const char* s : {"h0", "c0"}) {
      if (!data.count(s)) continue;
      Tensor t = symx::placeholder(data.at(s).shape(), symx::f64, s);
      (std::string(s) == "h0" ? in.h0 : in.c0) = t;
      inputs.push_back(t);
      names.push_back(s);
      feed.push_back({t, data.at(s)});
    }
    if (data.count("lengths")) {
      in.lengths = symx::placeholder(data.at("lengths").shape(), symx::i64, "lengths");
      feed.push_back({in.lengths, data.at("lengths")});
    }
    ly::RecurrentOutputs out = layer->call(x, in);
    auto params = layer->variables();
    // PyTorch's parameters(): 4 per layer and direction, weight_ih first.
    ASSERT_EQ(params.size(), static_cast<std::size_t>(4 * c.num_layers * (c.bidirectional ? 2 : 1)));
    EXPECT_EQ(last_part(params[0].name()), "weight_ih_l0");
    for (const Tensor& v : params) {
      v.assign(data.at(last_part(v.name())));
      names.push_back(last_part(v.name()));
    }
    Tensor loss = symx::sum(out.output * symx::constant(data.at("r_output"))) +
                  symx::sum(out.h_n * symx::constant(data.at("r_h_n")));
    std::vector<Tensor> outputs = {out.output, out.h_n};
    std::vector<std::string> keys = {"output", "h_n"};
    if (c.kind == "LSTM") {
      loss = loss + symx::sum(out.c_n * symx::constant(data.at("r_c_n")));
      outputs.push_back(out.c_n);
      keys.push_back("c_n");
    } else {
      EXPECT_FALSE(out.c_n.defined());
    }
    std::vector<Tensor> wrt = inputs;
    wrt.insert(wrt.end(), params.begin(), params.end());
    auto grads = symx::grad(loss, wrt);
    for (std::size_t i = 0; i < grads.size(); ++i) {
      outputs.push_back(grads[i]);
      keys.push_back("d_" + names[i]);
    }
    std::vector<Tensor> fn_inputs;
    std::vector<Array> values;
    for (auto& [t, v] : feed) {
      fn_inputs.push_back(t);
      values.push_back(v);
    }
    auto compiled = symx::function(fn_inputs, outputs)(values);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      expect_close(outputs[i].eval(feed), data.at(keys[i]), "eval " + keys[i]);
      expect_close(compiled[i], data.at(keys[i]), "compiled " + keys[i]);
    }
  }
}

TEST_F(NnRecurrent, VariablesAreNamedAndInitializedAsTorch) {
  ly::LSTM lstm(4, {.num_layers = 2, .bidirectional = true});
  EXPECT_EQ(lstm(symx::placeholder({2, 5, 3})).shape(), (symx::Shape{2, 5, 8}));
  std::vector<std::string> names;
  for (const Tensor& v : lstm.variables()) names.push_back(v.name());
  ASSERT_EQ(names.size(), 16u);
  EXPECT_EQ(names[0], "lstm/weight_ih_l0");
  EXPECT_EQ(names[1], "lstm/weight_hh_l0");
  EXPECT_EQ(names[2], "lstm/bias_ih_l0");
  EXPECT_EQ(names[3], "lstm/bias_hh_l0");
  EXPECT_EQ(names[4], "lstm/weight_ih_l0_reverse");
  EXPECT_EQ(names[8], "lstm/weight_ih_l1");
  EXPECT_EQ(lstm.variables()[0].shape(), (symx::Shape{16, 3}));
  EXPECT_EQ(lstm.variables()[8].shape(), (symx::Shape{16, 8}));  // layer 1 reads both directions
  // PyTorch's default: uniform in +-1/sqrt(hidden_size) = +-0.5, spread over the range.
  double lo = 1, hi = -1;
  for (const Tensor& v : lstm.variables())
    for (double e : v.value().to_vector()) lo = std::min(lo, e), hi = std::max(hi, e);
  EXPECT_GE(lo, -0.5);
  EXPECT_LE(hi, 0.5);
  EXPECT_LT(lo, -0.4);
  EXPECT_GT(hi, 0.4);
  ly::GRU gru(5, {.use_bias = false});
  gru(symx::placeholder({2, 5, 3}));
  ASSERT_EQ(gru.variables().size(), 2u);
  EXPECT_EQ(gru.variables()[0].shape(), (symx::Shape{15, 3}));
  ly::RNN second(2);
  second(symx::placeholder({1, 2, 3}));
  EXPECT_EQ(second.name(), "rnn");
  ly::RNN third(2);
  third(symx::placeholder({1, 2, 3}));
  EXPECT_EQ(third.name(), "rnn_1");
}

TEST_F(NnRecurrent, WithoutReturnSequencesTheOutputIsTheLastStep) {
  auto data = golden("lstm_lengths_bidir");
  Tensor x = symx::constant(data.at("x"));
  Tensor lengths = symx::constant(data.at("lengths"));
  ly::LSTM lstm(3, {.num_layers = 2, .bidirectional = true, .return_sequences = false});
  ly::RecurrentOutputs out =
      lstm.call(x, {.h0 = symx::constant(data.at("h0")), .c0 = symx::constant(data.at("c0")), .lengths = lengths});
  for (const Tensor& v : lstm.variables()) v.assign(data.at(last_part(v.name())));
  // The last layer's forward state at each sequence's last step, then its reverse state at step 0.
  Array h_n = data.at("h_n");
  Tensor expected = symx::concatenate({symx::constant(h_n)[2], symx::constant(h_n)[3]}, 1);
  EXPECT_EQ(out.output.shape(), (symx::Shape{3, 6}));
  expect_close(out.output.eval(), expected.eval(), "output");
  expect_close(out.h_n.eval(), h_n, "h_n");
  // As a layer, the same tensor.
  expect_close(lstm(x).eval(), lstm.call(x).output.eval(), "layer");
}

TEST_F(NnRecurrent, DropoutActsBetweenLayersInTrainingOnly) {
  auto data = golden("relu_2layers");
  Tensor x = symx::constant(data.at("x"));
  ly::RNN rnn(3, "relu", {.num_layers = 2, .dropout = 0.5});
  ly::RecurrentOutputs train = rnn.call(x, {}, true);
  ly::RecurrentOutputs eval = rnn.call(x, {}, false);
  for (const Tensor& v : rnn.variables()) v.assign(data.at(last_part(v.name())));
  // Evaluation: no dropout, PyTorch's output.
  expect_close(eval.output.eval(), data.at("output"), "eval output");
  // Training: the first layer is untouched (dropout follows it), the second reads a dropped input;
  // the masks are drawn outside the loop, so the compiled function runs and draws anew per call.
  auto f = symx::function(std::vector<Tensor>{}, {train.h_n, train.output});
  auto a = f({}), b = f({});
  auto h0a = a[0].to_vector(), h0e = data.at("h_n").to_vector();
  for (std::size_t i = 0; i < 9; ++i) EXPECT_NEAR(h0a[i], h0e[i], 1e-12) << i;  // layer 0's final state
  EXPECT_NE(a[1].to_vector(), data.at("output").to_vector());
  EXPECT_NE(a[1].to_vector(), b[1].to_vector());
}

TEST_F(NnRecurrent, MatmulOfTheInputsIsHoistedOutOfTheLoop) {
  ly::GRU gru(8);
  Tensor x = symx::placeholder({4, 10, 6}, symx::f32, "x");
  auto f = symx::function({x}, {gru(x)});
  std::string d = f.describe();
  // The only matrix products are the step's; one of them (over every step at once) is outside.
  EXPECT_NE(d.find("matmul"), std::string::npos) << d;
  EXPECT_NE(d.find("scan of 10 steps"), std::string::npos) << d;
}

TEST_F(NnRecurrent, UnknownBatchSize) {
  ly::LSTM lstm(4);
  Tensor x = symx::placeholder({symx::kDynamic, 5, 3}, symx::f64, "x");
  Tensor lengths = symx::placeholder({symx::kDynamic}, symx::i64, "lengths");
  ly::RecurrentOutputs out = lstm.call(x, {.lengths = lengths});
  auto f = symx::function({x, lengths}, {out.output, out.h_n});
  std::vector<double> xs(2 * 5 * 3, 0.5);
  auto r = f({Array::from_vector(xs, {2, 5, 3}), Array::from_vector(std::vector<std::int64_t>{5, 2}, {2})});
  EXPECT_EQ(r[0].shape(), (symx::Shape{2, 5, 4}));
  EXPECT_EQ(r[1].shape(), (symx::Shape{1, 2, 4}));
  auto y = r[0].to_vector(), h = r[1].to_vector();
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(y[(1 * 5 + 3) * 4 + k], 0.0);       // past sequence 1's length
    EXPECT_EQ(h[4 + k], y[(1 * 5 + 1) * 4 + k]);  // its state at its last step
    EXPECT_EQ(h[k], y[(0 * 5 + 4) * 4 + k]);      // sequence 0 runs to the end
    EXPECT_NE(y[(1 * 5 + 1) * 4 + k], 0.0);
  }
}

TEST_F(NnRecurrent, ErrorsNameTheProblem) {
  EXPECT_THROW(ly::RNN(4, "sigmoid"), symx::ValueError);
  EXPECT_THROW(ly::GRU(0), symx::ValueError);
  EXPECT_THROW(ly::LSTM(4, {.dropout = 1}), symx::ValueError);
  ly::LSTM lstm(4, {.num_layers = 2});
  Tensor x = symx::placeholder({2, 5, 3});
  EXPECT_THROW(lstm(symx::placeholder({2, 3})), symx::ShapeError);
  try {
    lstm.call(x, {.h0 = symx::zeros({1, 2, 4})});
    FAIL() << "no error";
  } catch (const symx::ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("(2, 2, 4)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(lstm(symx::placeholder({2, 5, 7})), symx::ShapeError);           // built for 3 features
  EXPECT_THROW(lstm.call(x, {.lengths = symx::zeros({2})}), symx::ShapeError);  // float lengths
  ly::GRU gru(4);
  EXPECT_THROW(gru.call(x, {.c0 = symx::zeros({1, 2, 4})}), symx::ValueError);
}

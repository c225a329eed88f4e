// The rewrite passes, each shown on a small graph before and after, with values checked against
// the unrewritten graph on the reference evaluator.
#include "passes/passes.hpp"
#include "symx/function.hpp"
#include "test_util.hpp"

namespace sx = symx;
namespace passes = symx::passes;
using sx::testing::expect_close;

namespace {

// Ops of the graph of `roots`, in topological order ("placeholder exp add").
std::string ops_of(const std::vector<sx::Tensor>& roots) {
  std::string s;
  for (const auto& t : sx::topological_order(roots)) s += (s.empty() ? "" : " ") + std::string(sx::op_name(t.op()));
  return s;
}

bool contains_op(const std::vector<sx::Tensor>& roots, sx::OpKind op) {
  for (const auto& t : sx::topological_order(roots))
    if (t.op() == op) return true;
  return false;
}

}  // namespace

TEST(Passes, DeadCodeIsNotPartOfTheProgram) {
  auto x = sx::placeholder({3}, sx::f32, "x");
  auto y = sx::exp(x);
  auto unused = sx::sin(x) * 2;  // built, never asked for
  EXPECT_EQ(ops_of(passes::eliminate_dead_code({y})), "placeholder exp");
  EXPECT_EQ(passes::eliminate_dead_code({y, unused}).size(), 5u);
}

TEST(Passes, CommonSubexpressionsMerge) {
  auto x = sx::placeholder({3}, sx::f32, "x");
  auto y = sx::exp(x) + sx::exp(x) * sx::constant(2.0) + sx::constant(2.0);
  EXPECT_EQ(ops_of({y}), "placeholder exp exp constant multiply add constant add");
  auto after = passes::eliminate_common_subexpressions({y});
  EXPECT_EQ(ops_of(after), "placeholder exp constant multiply add add");
  sx::Array xv = sx::testing::random_array({3}, -1, 1, 1, sx::f32);
  expect_close(after[0].eval({{x, xv}}), y.eval({{x, xv}}));
}

TEST(Passes, ConstantsFold) {
  auto x = sx::placeholder({3}, sx::f32, "x");
  auto c = sx::exp(sx::constant(sx::Array({0.f, 1.f, 2.f}))) * 2;
  auto y = x + c;
  auto after = passes::fold_constants({y});
  EXPECT_EQ(ops_of(after), "placeholder constant add");
  const sx::Tensor& folded = after[0].node().inputs[1];
  expect_close(std::get<sx::ConstantAttr>(folded.node().attr).value, {2, 2 * std::exp(1.0), 2 * std::exp(2.0)}, 1e-6);
  // Broadcasting a scalar to a large shape is left to the kernels rather than stored.
  auto big =
      sx::broadcast_to(sx::constant(1.0), {1000, 1000}) + x.reshape({1, 1, 3}).astype(sx::f64).reshape({3, 1, 1})[0];
  EXPECT_TRUE(contains_op(passes::fold_constants({big}), sx::OpKind::BroadcastTo));
}

TEST(Passes, AlgebraicIdentities) {
  auto x = sx::placeholder({2, 3}, sx::f32, "x");
  auto i = sx::placeholder({4}, sx::i32, "i");
  struct Case {
    sx::Tensor before;
    std::string after;
  };
  std::vector<Case> cases = {
      {x * 1, "placeholder"},
      {1 * x, "placeholder"},
      {x + 0, "placeholder"},
      {0 + x, "placeholder"},
      {x - 0, "placeholder"},
      {x / 1, "placeholder"},
      {-(-x), "placeholder"},
      {sx::stop_gradient(x), "placeholder"},
      {sx::transpose(sx::transpose(x)), "placeholder"},
      {sx::transpose(sx::transpose(sx::reshape(x, {1, 2, 3}), {1, 2, 0}), {2, 0, 1}), "placeholder reshape"},
      {sx::reshape(sx::reshape(x, {6}), {3, 2}), "placeholder reshape"},
      {sx::broadcast_to(sx::broadcast_to(x, {4, 2, 3}), {5, 4, 2, 3}), "placeholder broadcast_to"},
      {sx::cast(sx::cast(x, sx::f64), sx::f32), "placeholder"},
      {sx::cast(sx::cast(x, sx::i32), sx::f32), "placeholder cast cast"},  // lossy: kept
      {i - i, "constant broadcast_to"},
      {x - x, "placeholder subtract"},  // x - x is NaN for x = inf: kept for floats
  };
  sx::Array xv = sx::testing::random_array({2, 3}, -2, 2, 2, sx::f32);
  sx::Array iv = sx::Array::from_vector<std::int32_t>({1, -2, 3, 4}, {4});
  for (const auto& c : cases) {
    auto after = passes::simplify_algebra({c.before});
    EXPECT_EQ(ops_of(after), c.after) << "before: " << ops_of({c.before});
    expect_close(after[0].eval({{x, xv}, {i, iv}}), c.before.eval({{x, xv}, {i, iv}}));
  }
}

TEST(Passes, NumericalStabilization) {
  auto x = sx::placeholder({2, 3}, sx::f64, "x");
  sx::Array big = sx::Array::from_vector<double>({1000, 0, -1000, 1, 2, 3}, {2, 3});
  passes::reset_rule_counts();

  auto naive_log_softmax = sx::log(sx::nn::softmax(x));
  auto stable = passes::stabilize_numerics({naive_log_softmax})[0];
  EXPECT_EQ(passes::rule_count("log(exp(x)/s)->x-log(s)"), 1);
  EXPECT_FALSE(sx::isfinite(naive_log_softmax).eval({{x, big}}).get_flat(2));  // log(0) = -inf
  expect_close(stable.eval({{x, big}}), sx::nn::log_softmax(x).eval({{x, big}}), 1e-12);

  auto naive_lse = sx::log(sx::sum(sx::exp(x), 1));
  auto lse = passes::stabilize_numerics({naive_lse})[0];
  EXPECT_EQ(passes::rule_count("log(sum(exp(x)))->logsumexp(x)"), 1);
  expect_close(lse.eval({{x, big}}), {1000, 3 + std::log(1 + std::exp(-1.0) + std::exp(-2.0))}, 1e-12);

  auto small = sx::placeholder({3}, sx::f64, "small");
  sx::Array tiny = sx::Array::from_vector<double>({1e-18, -1e-12, 0.5}, {3});
  auto log1p = passes::stabilize_numerics({sx::log(1 + small)})[0];
  EXPECT_EQ(log1p.op(), sx::OpKind::Log1p);
  expect_close(log1p.eval({{small, tiny}}), {1e-18, std::log1p(-1e-12), std::log1p(0.5)}, 1e-12, 0);

  auto log_sigmoid = passes::stabilize_numerics({sx::log(sx::sigmoid(small))})[0];
  sx::Array very_negative = sx::Array::from_vector<double>({-800, 0, 30}, {3});
  expect_close(log_sigmoid.eval({{small, very_negative}}), {-800, -std::log(2.0), -std::log1p(std::exp(-30.0))}, 1e-12);
}

// The naive cross-entropies of softmax become the one stable op; with logits of 1000 the naive
// graphs give NaN (0 * log(0)) or inf while the rewritten ones give the values worked out by hand.
TEST(Passes, SoftmaxCrossEntropyFromLogitsBecomesOneOp) {
  auto x = sx::placeholder({2, 3}, sx::f64, "logits");
  auto y = sx::placeholder({2, 3}, sx::f64, "labels");
  sx::Array big = sx::Array::from_vector<double>({1000, 0, -1000, 0.5, -0.25, 2}, {2, 3});
  sx::Array labels = sx::Array::from_vector<double>({0, 1, 0, 0.2, 0.3, 0.5}, {2, 3});
  double lse1 = 2 + std::log(std::exp(-1.5) + std::exp(-2.25) + 1);
  std::vector<double> expected{1000, lse1 - (0.2 * 0.5 - 0.3 * 0.25 + 0.5 * 2)};
  sx::Feed feed{{x, big}, {y, labels}};

  struct Case {
    const char* what;
    sx::Tensor naive;
    std::vector<double> expected;
  };
  auto ls = sx::nn::log_softmax(x, 1);
  std::vector<Case> cases{
      {"-sum(y * log_softmax(x))", -sx::sum(y * ls, 1), expected},
      {"-sum(log_softmax(x) * y), negative axis", -sx::sum(ls * y, -1), expected},
      {"-sum(y * log(softmax(x)))", -sx::sum(y * sx::log(sx::nn::softmax(x)), 1), expected},
      {"sum(-y * log_softmax(x))", sx::sum(-y * ls, 1), expected},
      {"-sum over every axis", -sx::sum(y * ls), {expected[0] + expected[1]}},
      {"keepdims", -sx::sum(y * ls, 1, true), expected},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    passes::reset_rule_counts();
    auto optimized = passes::optimize({c.naive});
    EXPECT_TRUE(contains_op(optimized, sx::OpKind::SoftmaxCrossEntropy)) << ops_of(optimized);
    EXPECT_FALSE(contains_op(optimized, sx::OpKind::Log)) << ops_of(optimized);
    EXPECT_EQ(optimized[0].shape(), c.naive.shape());
    expect_close(optimized[0].eval(feed), c.expected, 1e-12);
    // Moderate logits: the rewritten graph computes what the naive one does.
    sx::Array moderate = sx::testing::random_array({2, 3}, -3, 3, 11);
    expect_close(optimized[0].eval({{x, moderate}, {y, labels}}), c.naive.eval({{x, moderate}, {y, labels}}), 1e-12);
  }
  EXPECT_FALSE(sx::isfinite(cases[2].naive).eval(feed).get_flat(0));

  // Not a cross-entropy over the softmax axis: left alone.
  auto other_axis = -sx::sum(y * ls, 0);
  EXPECT_FALSE(contains_op(passes::optimize({other_axis}), sx::OpKind::SoftmaxCrossEntropy));
  auto row = sx::placeholder({1, 3}, sx::f64, "row");
  auto broadcast_logits = -sx::sum(y * sx::nn::log_softmax(row, 1), 1);  // the logits are broadcast
  EXPECT_FALSE(contains_op(passes::optimize({broadcast_logits}), sx::OpKind::SoftmaxCrossEntropy));
  // float32 labels against float64 logits: the labels are cast, and the op takes the cast.
  auto f32_labels = sx::placeholder({2, 3}, sx::f32, "f32_labels");
  auto mixed = passes::optimize({-sx::sum(f32_labels * ls, 1)});
  EXPECT_TRUE(contains_op(mixed, sx::OpKind::SoftmaxCrossEntropy));
  expect_close(mixed[0].eval({{x, big}, {f32_labels, labels.astype(sx::f32)}}), expected, 1e-12);
  auto shifted = sx::nn::log_softmax(x, 0);
  EXPECT_FALSE(contains_op(passes::optimize({-sx::sum(y * shifted, 1)}), sx::OpKind::SoftmaxCrossEntropy));
}

// Gradients taken from the naive cross-entropy (before any rewrite) become the gradient op: the
// log_softmax gradient G - softmax(x) * sum(G) with G = c * y (c constant along the axis) reads
// y and -c; any other G is read as the labels -G.
TEST(Passes, GradientOfTheNaiveCrossEntropyBecomesOneOp) {
  auto x = sx::placeholder({3, 4}, sx::f64, "logits");
  auto y = sx::placeholder({3, 4}, sx::f64, "labels");
  auto w = sx::placeholder({3}, sx::f64, "row_weights");
  auto z = sx::placeholder({3, 4}, sx::f64, "any_cotangent");
  auto ls = sx::nn::log_softmax(x, 1);
  struct Case {
    const char* what;
    sx::Tensor cost;
  };
  std::vector<Case> cases{
      {"mean over rows", sx::mean(-sx::sum(y * ls, 1))},
      {"weighted rows", sx::sum(-sx::sum(y * ls, 1) * w)},
      {"labels times a scalar", -sx::sum(ls * y) * 0.5},
      {"any cotangent", sx::sum(ls * z)},
  };
  sx::Feed feed{{x, sx::testing::random_array({3, 4}, -3, 3, 21)},
                {y, sx::testing::random_array({3, 4}, 0, 1, 22)},
                {w, sx::testing::random_array({3}, -1, 1, 23)},
                {z, sx::testing::random_array({3, 4}, -1, 1, 24)}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    auto g = sx::grad(c.cost, {x})[0];
    passes::reset_rule_counts();
    auto optimized = passes::optimize({g});
    EXPECT_EQ(passes::rule_count("G-softmax(x)*sum(G)->softmax_cross_entropy_grad"), 1);
    EXPECT_TRUE(contains_op(optimized, sx::OpKind::SoftmaxCrossEntropyGrad)) << ops_of(optimized);
    EXPECT_FALSE(contains_op(optimized, sx::OpKind::Exp)) << ops_of(optimized);
    expect_close(optimized[0].eval(feed), g.eval(feed), 1e-12, 1e-14);
  }
  // With logits of 1000 the rewritten gradient is still the exact one (softmax is one-hot there).
  auto g = sx::grad(sx::mean(-sx::sum(y * ls, 1)), {x})[0];
  auto optimized = passes::optimize({g});
  sx::Array big = sx::Array::from_vector<double>({1000, 0, -1000, 0, 0, 1000, 0, 0, 0, 0, 0, 0}, {3, 4});
  sx::Array onehot = sx::Array::from_vector<double>({1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, {3, 4});
  // Row 0: softmax = e0, labels e0 -> 0. Row 1: softmax = e1, labels e2 -> (e1 - e2) / 3.
  // Row 2: uniform softmax 1/4, labels e3 -> (1/4 - e3) / 3.
  expect_close(optimized[0].eval({{x, big}, {y, onehot}}),
               {0, 0, 0, 0, 0, 1.0 / 3, -1.0 / 3, 0, 1.0 / 12, 1.0 / 12, 1.0 / 12, -0.25}, 1e-12, 1e-14);
}

TEST(Passes, OptimizePipelineOnAGradientGraph) {
  auto x = sx::placeholder({4, 3}, sx::f32, "x");
  auto w = sx::variable(sx::testing::random_array({3, 2}, -1, 1, 3, sx::f32), "w");
  auto loss = sx::mean(sx::square(sx::tanh(sx::matmul(x, w))));
  auto g = sx::grad(loss, {w})[0];
  auto before = sx::topological_order({loss, g}).size();
  auto after = passes::optimize({loss, g});
  EXPECT_LT(sx::topological_order(after).size(), before);
  sx::Array xv = sx::testing::random_array({4, 3}, -1, 1, 4, sx::f32);
  expect_close(after[0].eval({{x, xv}}), loss.eval({{x, xv}}), 1e-6);
  expect_close(after[1].eval({{x, xv}}), g.eval({{x, xv}}), 1e-6);
}

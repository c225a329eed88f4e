// function(): inputs, outputs, all-or-nothing updates, input checking; grad/jacobian/hessian;
// clone; debugprint and to_dot; the paper's sgd example.
#include "test_util.hpp"

namespace sx = symx;
using sx::testing::expect_close;
using sx::testing::expect_error;

TEST(Function, UpdatesUseValuesFromTheStartOfTheCall) {
  sx::reset_default_graph();
  auto a = sx::variable(sx::Array({1.f}), "a");
  auto b = sx::variable(sx::Array({2.f}), "b");
  auto f = sx::function({}, {a + b}, {{a, b}, {b, a}});
  auto out = f({});
  expect_close(out[0], {3});
  expect_close(a.value(), {2});
  expect_close(b.value(), {1});
  f({});
  expect_close(a.value(), {1});
  expect_close(b.value(), {2});
}

TEST(Function, OutputsSeePreUpdateValues) {
  sx::reset_default_graph();
  auto counter = sx::variable(sx::Array::scalar(0.0), "counter");
  auto f = sx::function({}, {counter * 10}, {{counter, counter + 1}});
  EXPECT_EQ(f({})[0].item<double>(), 0);
  EXPECT_EQ(f({})[0].item<double>(), 10);
  EXPECT_EQ(counter.value().item<double>(), 2);
}

TEST(Function, FailedCallLeavesVariablesUnchanged) {
  sx::reset_default_graph();
  auto w = sx::variable(sx::Array({1.f, 2.f}), "w");
  auto x = sx::placeholder({2}, sx::f32, "x");
  auto f = sx::function({x}, {w * x}, {{w, w + x}});
  expect_error<sx::ShapeError>(
      [&] {
        f({sx::Array({1.f, 2.f, 3.f})});
      },
      {"placeholder 'x'", "(2,) float32", "(3,) float32"});
  expect_close(w.value(), {1, 2});
}

TEST(Function, InputChecks) {
  sx::reset_default_graph();
  auto x = sx::placeholder({2, 3}, sx::f32, "features");
  auto y = sx::placeholder({3}, sx::f32, "labels");
  auto f = sx::function({x, y}, {x * 2});
  expect_error<sx::ValueError>(
      [&] {
        f({sx::Array::zeros({2, 3})});
      },
      {"called with 1 inputs but it takes 2", "features, labels"});
  expect_error<sx::DTypeError>(
      [&] {
        f({sx::Array::zeros({2, 3}, sx::f64), sx::Array::zeros({3})});
      },
      {"placeholder 'features'", "(2, 3) float32", "(2, 3) float64", "without loss", "array.astype(symx::f32) in C++"});
  expect_error<sx::ValueError>([&] { sx::function({x}, {x + y}); }, {"placeholder 'labels'", "not among the inputs"});
  expect_error<sx::ValueError>([&] { sx::function({x * 2}, {x}); }, {"not a placeholder"});
  auto w = sx::variable(sx::Array::zeros({3}), "w");
  expect_error<sx::ValueError>(
      [&] {
        sx::function({}, {}, {{w, sx::Tensor(w) + sx::constant(sx::Array::zeros({2, 3}))}});
      },
      {"update of variable 'w'", "(2, 3)"});
  expect_error<sx::ValueError>([&] { sx::function({}, {}, {{w, w}, {w, w}}); }, {"'w' is updated twice"});
}

TEST(Function, InputsThatConvertWithoutLossAreAccepted) {
  // int32 labels into an int64 placeholder and bools into floats, as NumPy's safe casting; both
  // backends and eval. A lossy conversion stays a DTypeError (InputChecks).
  sx::reset_default_graph();
  auto labels = sx::placeholder({3}, sx::i64, "labels");
  auto mask = sx::placeholder({3}, sx::f32, "mask");
  for (auto backend : {sx::Backend::compiled, sx::Backend::reference}) {
    auto f = sx::function({labels, mask}, {labels * 2, mask + 1}, {}, {backend});
    auto out = f({sx::Array::from_vector<std::int32_t>({1, -2, 3}, {3}),
                  sx::Array::from_vector<bool>({true, false, true}, {3})});
    EXPECT_EQ(out[0].dtype(), sx::i64);
    expect_close(out[0], {2, -4, 6});
    expect_close(out[1], {2, 1, 2});
  }
  expect_close((labels + 1).eval({{labels, sx::Array::from_vector<std::int32_t>({4, 5, 6}, {3})}}), {5, 6, 7});
}

TEST(Function, EvalNeedsEveryPlaceholder) {
  sx::reset_default_graph();
  auto x = sx::placeholder({2}, sx::f32, "x");
  expect_error<sx::ValueError>([&] { (x * 2).eval(); }, {"placeholder 'x'", "has no value", "{{x, array}} in C++"});
  expect_close((x * 2).eval({{x, sx::Array({1.f, 2.f})}}), {2, 4});
}

TEST(Function, ReferenceBackendIsSelectable) {
  sx::reset_default_graph();
  auto x = sx::placeholder({2}, sx::f32, "x");
  auto f = sx::function({x}, {x + 1}, {}, {sx::Backend::reference});
  EXPECT_EQ(f.backend(), sx::Backend::reference);
  expect_close(f({sx::Array({1.f, 2.f})})[0], {2, 3});
}

TEST(Autodiff, GradOfSimpleExpressions) {
  sx::reset_default_graph();
  auto x = sx::placeholder({3}, sx::f64, "x");
  sx::Array xv = sx::testing::random_array({3});
  auto g = sx::grad(sx::sum(sx::sin(x) * x), {x})[0];
  std::vector<double> expected;
  for (double v : xv.to_vector()) expected.push_back(std::cos(v) * v + std::sin(v));
  expect_close(g.eval({{x, xv}}), expected, 1e-12);
}

TEST(Autodiff, GradErrorsAndZeros) {
  sx::reset_default_graph();
  auto x = sx::placeholder({3}, sx::f32, "x");
  auto k = sx::placeholder({3}, sx::i32, "k");
  auto unused = sx::variable(sx::Array::zeros({2}), "unused");
  expect_error<sx::ShapeError>([&] { sx::grad(x * 2, {x}); }, {"grad", "(3,)", "must be a scalar", "mean"});
  auto grads = sx::grad(sx::sum(x * k), {k, unused});
  expect_close(grads[0].eval({{x, sx::Array::ones({3})}, {k, sx::Array::ones({3}, sx::i32)}}), {0, 0, 0});
  expect_close(grads[1].eval(), {0, 0});
}

TEST(Autodiff, BroadcastingGradientsAndGradOfGrad) {
  sx::reset_default_graph();
  sx::testing::expect_gradients_match(
      [](const std::vector<sx::Tensor>& in) { return sx::tanh(in[0] * in[1] + in[0]) / (1 + sx::square(in[1])); },
      {sx::testing::random_array({2, 3}, -1, 1, 1), sx::testing::random_array({3}, -1, 1, 2)});
  auto x = sx::placeholder({}, sx::f64, "x");
  auto d1 = sx::grad(sx::power(x, 4.0), {x})[0];
  auto d2 = sx::grad(d1, {x})[0];
  auto d3 = sx::grad(d2, {x})[0];
  sx::Array xv = sx::Array::scalar(1.5);
  EXPECT_NEAR(d2.eval({{x, xv}}).item<double>(), 12 * 1.5 * 1.5, 1e-12);
  EXPECT_NEAR(d3.eval({{x, xv}}).item<double>(), 24 * 1.5, 1e-12);
}

TEST(Autodiff, JacobianHessianVjp) {
  sx::reset_default_graph();
  auto x = sx::placeholder({3}, sx::f64, "x");
  sx::Array xv = sx::Array::from_vector<double>({1, 2, 3}, {3});
  auto j = sx::jacobian(sx::square(x), x).eval({{x, xv}});
  EXPECT_EQ(j.shape(), (sx::Shape{3, 3}));
  expect_close(j, {2, 0, 0, 0, 4, 0, 0, 0, 6});
  auto h = sx::hessian(sx::sum(x * x * x), x).eval({{x, xv}});
  expect_close(h, {6, 0, 0, 0, 12, 0, 0, 0, 18});
  auto v = sx::vjp({sx::square(x)}, {x}, {sx::constant(sx::Array::from_vector<double>({1, 1, 2}, {3}))})[0];
  expect_close(v.eval({{x, xv}}), {2, 4, 12});
}

TEST(Function, CloneReplacesNodes) {
  sx::reset_default_graph();
  auto x = sx::placeholder({2}, sx::f32, "x");
  auto w = sx::variable(sx::Array({3.f, 4.f}), "w");
  auto y = x * w + 1;
  auto z = sx::clone({y}, {{x, sx::constant(sx::Array({1.f, 2.f}))}})[0];
  expect_close(z.eval(), {4, 9});
  expect_error<sx::ShapeError>([&] { sx::clone({y}, {{x, sx::constant(sx::Array({1.f}))}}); }, {"clone", "same shape"});
}

TEST(Function, DebugprintAndDot) {
  sx::reset_default_graph();
  auto x = sx::placeholder({2}, sx::f32, "x");
  auto y = sx::exp(x) + x;
  std::string tree = sx::debugprint({y});
  EXPECT_NE(tree.find("add#"), std::string::npos) << tree;
  EXPECT_NE(tree.find("|- exp#"), std::string::npos) << tree;
  EXPECT_NE(tree.find("placeholder#" + std::to_string(x.id()) + " 'x' (2,) float32"), std::string::npos) << tree;
  std::string dot = sx::to_dot({y});
  EXPECT_EQ(dot.rfind("digraph symx {", 0), 0u);
  EXPECT_NE(dot.find("n" + std::to_string(x.id()) + " -> n"), std::string::npos) << dot;
}

// The first line of debugprint: how the tree shows `t` itself.
std::string head(const sx::Tensor& t) {
  std::string tree = sx::debugprint({t});
  return tree.substr(0, tree.find('\n'));
}

TEST(Function, DebugprintNamesCompositesAsTheUserCalledThem) {
  sx::reset_default_graph();
  auto x = sx::placeholder({2, 3}, sx::f32, "x");
  auto r = sx::nn::relu(x);
  // The primitive is unchanged: where(x <= 0, 0, x), whose gradient at 0 is 0 (as PyTorch's relu).
  EXPECT_EQ(r.op(), sx::OpKind::Where);
  EXPECT_EQ(head(r), "relu#" + std::to_string(r.id()) + " [where] (2, 3) float32");
  EXPECT_EQ(r.label(), "relu#" + std::to_string(r.id()));
  EXPECT_NE(sx::to_dot({r}).find("relu#" + std::to_string(r.id()) + " [where]"), std::string::npos);
  // Errors name the node as debugprint does.
  expect_error<sx::ShapeError>(
      [&] {
        sx::clone({r + 1}, {{r, sx::placeholder({4}, sx::f32)}});
      },
      {"replacement for 'relu#" + std::to_string(r.id()) + "'"});
  auto img = sx::placeholder({1, 2, 4, 4}, sx::f32, "img");
  auto w = sx::placeholder({3, 2, 3, 3}, sx::f32, "w");
  auto tw = sx::placeholder({2, 3, 2, 2}, sx::f32, "tw");
  auto v = sx::placeholder({3}, sx::f32, "v");
  auto labels = sx::placeholder({2}, sx::i32, "labels");
  const std::vector<std::pair<std::string, sx::Tensor>> cases = {
      {"relu", sx::nn::relu(x)},
      {"leaky_relu", sx::nn::leaky_relu(x)},
      {"elu", sx::nn::elu(x)},
      {"gelu", sx::nn::gelu(x)},
      {"gelu", sx::nn::gelu(x, true)},
      {"softplus", sx::nn::softplus(x)},
      {"softmax", sx::nn::softmax(x)},
      {"log_softmax", sx::nn::log_softmax(x)},
      {"conv1d", sx::nn::conv1d(sx::reshape(img, {1, 2, 16}), sx::reshape(w, {3, 2, 9}))},
      {"conv2d", sx::nn::conv2d(img, w)},
      {"conv2d_transpose", sx::nn::conv2d_transpose(img, tw)},
      {"max_pool2d", sx::nn::max_pool2d(img, {2})},
      {"avg_pool2d", sx::nn::avg_pool2d(img, {2})},
      {"mean", sx::mean(x)},
      {"mean", sx::mean(x, 1)},
      {"var", sx::var(x, 0)},
      {"std", sx::std(x)},
      {"logsumexp", sx::logsumexp(x, 1)},
      {"clip", sx::clip(x, 0, 1)},
      {"argmax", sx::argmax(x, 1, true)},
      {"expand_dims", sx::expand_dims(x, 0)},
      {"squeeze", sx::squeeze(sx::reshape(x, {1, 6}))},
      {"stack", sx::stack({x, x})},
      {"tile", sx::tile(x, {2, 1})},
      {"repeat", sx::repeat(x, 2, 0)},
      {"flip", sx::flip(x)},
      {"one_hot", sx::one_hot(labels, 4)},
      {"outer", sx::outer(v, v)},
      {"dot", sx::dot(v, v)},
      {"matmul", sx::matmul(x, v)},
      {"solve", sx::linalg::solve(sx::reshape(sx::tile(v, {3}), {3, 3}), v)},
      {"zeros", sx::zeros({2, 2})},
      {"ones_like", sx::ones_like(x)},
      {"split", sx::split(x, 3, 1)[0]}};
  for (const auto& [name, t] : cases)
    EXPECT_EQ(head(t).rfind(name + "#" + std::to_string(t.id()) + " [", 0), 0u) << name << ": " << head(t);
  // A clone over a new input is still the relu the user wrote.
  auto c = sx::clone({r}, {{x, sx::placeholder({2, 3}, sx::f32, "x2")}})[0];
  EXPECT_FALSE(c == r);
  EXPECT_EQ(head(c), "relu#" + std::to_string(c.id()) + " [where] (2, 3) float32");
  // A function whose op is its own name shows no bracket.
  EXPECT_EQ(head(sx::exp(x)).find('['), std::string::npos) << head(sx::exp(x));
}

TEST(Function, CompositesReturningAnExistingNodeDoNotRenameIt) {
  sx::reset_default_graph();
  auto x = sx::placeholder({2, 3}, sx::f32, "x");
  auto e = sx::exp(x);
  const std::string before = head(e);
  // Each of these returns its argument unchanged.
  EXPECT_TRUE(sx::squeeze(e) == e);
  EXPECT_TRUE(sx::slice(e, {sx::Index::all()}) == e);
  EXPECT_EQ(head(e), before);
  auto row = sx::reshape(e, {1, 6});
  EXPECT_TRUE(sx::flip(row, {0}) == row);
  EXPECT_EQ(head(row).rfind("reshape#", 0), 0u) << head(row);
  EXPECT_EQ(e.label(), "exp#" + std::to_string(e.id()));
  EXPECT_EQ(head(x).rfind("placeholder#", 0), 0u) << head(x);
  auto i = sx::placeholder({3}, sx::i32, "i");
  EXPECT_TRUE(sx::floor(i) == i);
  EXPECT_EQ(head(i).rfind("placeholder#", 0), 0u) << head(i);
}

TEST(Function, DebugprintShowsTheValuesOfSmallConstants) {
  sx::reset_default_graph();
  auto x = sx::placeholder({3}, sx::f32, "x");
  auto half = (x * 0.5f).node().inputs[1];
  EXPECT_EQ(head(half), "constant#" + std::to_string(half.id()) + " () float32 = 0.5");
  auto ints = sx::constant(sx::Array::from_vector<std::int32_t>({1, 2, 3}, {3}));
  EXPECT_EQ(head(ints), "constant#" + std::to_string(ints.id()) + " (3,) int32 = [1 2 3]");
  auto flag = sx::constant(sx::Array::scalar(true));
  EXPECT_NE(head(flag).find("bool = True"), std::string::npos) << head(flag);
  // A matrix stays on its node's line.
  auto m = sx::constant(sx::Array::from_vector<double>({1, 2, 3, 4.5}, {2, 2}));
  EXPECT_EQ(head(m), "constant#" + std::to_string(m.id()) + " (2, 2) float64 = [[1.  2. ] [3.  4.5]]");
  // Nine or more elements are not dumped.
  auto big = sx::constant(sx::Array::arange(0, 9, 1, sx::f32));
  EXPECT_EQ(head(big), "constant#" + std::to_string(big.id()) + " (9,) float32");
  std::string tree = sx::debugprint({x * 0.5f, big + 1});
  EXPECT_NE(tree.find("= 0.5"), std::string::npos) << tree;
  EXPECT_EQ(tree.find("8."), std::string::npos) << tree;
}

TEST(Examples, PaperSgdCosts) {
  sx::reset_default_graph();
  auto mu = sx::variable(sx::Array::scalar(-1.1842843f), "mu");
  auto cost = sx::exp(-sx::square(mu - 1));
  auto step = sx::function({}, {cost}, {{mu, mu - 0.2f * sx::grad(cost, {mu})[0]}});
  const double expected[10] = {0.008471076, 0.008201109,  0.007946267, 0.007705368, 0.0074773384,
                               0.007261208, 0.0070561105, 0.006861261, 0.006675923, 0.006499458};
  for (double e : expected) EXPECT_NEAR(step({})[0].item<double>(), e, 1e-5 * e);
}

TEST(Function, OneTensorForInputsOrOutputs) {
  // function(x, y) as Theano's: one output given as a tensor is single_output() (Python returns one
  // array); braced lists keep choosing the list overload.
  sx::reset_default_graph();
  auto x = sx::placeholder({3}, sx::f32, "x");
  auto f = sx::function(x, sx::sum(x));
  EXPECT_TRUE(f.single_output());
  auto out = f({sx::Array({1.f, 2.f, 4.f})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].item<float>(), 7.f);
  EXPECT_FALSE(sx::function({x}, {sx::sum(x)}).single_output());
  EXPECT_FALSE(sx::function(x, std::vector<sx::Tensor>{x, x * 2}).single_output());
  EXPECT_TRUE(sx::function(std::vector<sx::Tensor>{x}, x * 2).single_output());
  expect_close(sx::function(x, x * 2)({sx::Array({1.f, 2.f, 4.f})})[0], {2, 4, 8});
}

TEST(Function, AllowInputDowncast) {
  // Refused by default with a message naming the option; with it, float64 is rounded to float32
  // (as NumPy's astype) and integers narrowed when every value fits. Both backends, and a placeholder
  // of unknown batch size, whose refusal shows the placeholder as made: (None, 2), not (1, 2).
  for (auto backend : {sx::Backend::reference, sx::Backend::compiled}) {
    sx::reset_default_graph();
    auto x = sx::placeholder({sx::kDynamic, 2}, sx::f32, "x");
    auto s = sx::placeholder({1, 2}, sx::f32, "s");
    sx::Array data = sx::Array({{0.1f, 0.3f}}).astype(sx::f64);
    data.set_flat(0, 0.1);  // a float64 value with bits below float32's
    for (const auto& p : {x, s}) {
      expect_error<sx::DTypeError>([&] { sx::function({p}, {p * 1}, {}, {.backend = backend})({data}); },
                                   {"float64", "without loss", "allow_input_downcast=True",
                                    "FunctionOptions{.allow_input_downcast = true}"});
      auto f = sx::function({p}, {p * 1}, {}, {.backend = backend, .allow_input_downcast = true});
      auto out = f({data});
      EXPECT_EQ(out[0].dtype(), sx::f32);
      EXPECT_EQ(out[0].data<float>()[0], 0.1f);
      EXPECT_EQ(out[0].data<float>()[1], 0.3f);
    }
    expect_error<sx::DTypeError>([&] { sx::function({x}, {x * 1}, {}, {.backend = backend})({data}); },
                                 {"expects (None, 2) float32 but received (1, 2) float64"});
    auto labels = sx::placeholder({2}, sx::i32, "labels");
    auto g = sx::function({labels}, {labels + 0}, {}, {.backend = backend, .allow_input_downcast = true});
    sx::Array fits(sx::Shape{2}, sx::i64), too_big(sx::Shape{2}, sx::i64);
    fits.set_flat(0, 5), fits.set_flat(1, -3), too_big.set_flat(0, 1), too_big.set_flat(1, 1e12);
    auto out = g({fits});
    EXPECT_EQ(out[0].data<std::int32_t>()[0], 5);
    EXPECT_EQ(out[0].data<std::int32_t>()[1], -3);
    expect_error<sx::DTypeError>([&] { g({too_big}); }, {"placeholder 'labels'", "do not fit int32"});
    expect_error<sx::DTypeError>([&] { g({sx::Array({1.5f, 2.f})}); }, {"without loss"});
  }
}

TEST(Function, ZeroSizePlaceholderFedDataMentionsNone) {
  sx::reset_default_graph();
  auto x = sx::placeholder({0, 2}, sx::f32, "x");
  expect_error<sx::ShapeError>(
      [&] {
        sx::function({x}, {x + 1})({sx::Array::zeros({1, 2})});
      },
      {"expects (0, 2)", "write None", "kDynamic", "placeholder((None, 2))"});
}

TEST(Function, EvalFeedsOnlyPlaceholders) {
  sx::reset_default_graph();
  auto w = sx::variable(sx::Array({1.f, 2.f}), "w");
  auto x = sx::placeholder({sx::kDynamic, 2}, sx::f32, "x");
  expect_error<sx::ValueError>(
      [&] {
        (w * 2).eval({{w, sx::Array({0.f, 0.f})}});
      },
      {"'w', a variable", "only placeholders can be fed", "assign", "clone"});
  expect_error<sx::ValueError>(
      [&] {
        (x * w).eval({{w, sx::Array({0.f, 0.f})}, {x, sx::Array::zeros({3, 2})}});
      },
      {"'w', a variable", "only placeholders can be fed"});
  expect_error<sx::DTypeError>(
      [&] {
        (x + 1).eval({{x, sx::Array::zeros({1, 2}, sx::f64)}});
      },
      {"eval: placeholder 'x' expects (None, 2) float32 but received (1, 2) float64"});
}

TEST(Function, VariableFromATensorTakesItsValue) {
  sx::reset_default_graph();
  auto v = sx::variable(sx::constant(sx::Array({1.f, 2.f})) * 3, "v");
  expect_close(v.value(), {3, 6});
  v.assign(sx::Array({0.f, 0.f}));
  sx::reset_variables({v});
  expect_close(v.value(), {3, 6});
  auto x = sx::placeholder({2}, sx::f32, "x");
  expect_error<sx::ValueError>([&] { sx::variable(x * 2, "w"); }, {"variable 'w'", "depends on placeholder 'x'"});
}

TEST(Function, ShapesFromTensorsOfUnknownBatchSize) {
  // zeros and random draws of a placeholder's shape follow its batch size; a fixed-size tensor
  // meeting the unknown size is refused where it is combined, not later in a gradient.
  sx::reset_default_graph();
  auto x = sx::placeholder({sx::kDynamic, 2}, sx::f32, "x");
  auto y = x + sx::random::normal(x.shape()) * 0 + sx::ones(x.shape());
  EXPECT_EQ(sx::shape_string(y.shape()), "(None, 2)");
  auto out = sx::function({x}, {y})({sx::Array::zeros({3, 2})});
  expect_close(out[0], {1, 1, 1, 1, 1, 1});
  expect_error<sx::ShapeError>(
      [&] {
        (void)(x + sx::random::normal({32, 2}));
      },
      {"unknown until a call (None)", "32", "random.normal(x.shape)"});
}

TEST(Function, VariablesPatternWithALeadingSlash) {
  sx::reset_default_graph();
  sx::Tensor w;
  {
    sx::Scope scope("scope");
    w = sx::variable(sx::Array({1.f}), "w");
  }
  ASSERT_EQ(sx::variables("/scope/w").size(), 1u);
  EXPECT_EQ(sx::variables("/scope/w")[0], w);
  EXPECT_EQ(sx::variables("/scope/*").size(), 1u);
  EXPECT_EQ(sx::variables("/other/*").size(), 0u);
}

// The OpenMP wait-policy defaults of every program linked with symx (src/runtime/omp_defaults.cpp):
// the environment seen through getenv, which libgomp reads at its start, answers symx's short spin
// unless the user set either variable. (tests/python/test_api.py checks what libgomp itself read.)
TEST(Function, OpenMPWaitDefaultsUnlessTheUserChoseAPolicy) {
  extern char** environ;
  auto in_environment = [](const std::string& name) {
    for (char** e = environ; *e; ++e)
      if (std::string(*e).rfind(name + "=", 0) == 0) return std::optional<std::string>(*e + name.size() + 1);
    return std::optional<std::string>();
  };
  auto policy = in_environment("OMP_WAIT_POLICY"), spins = in_environment("GOMP_SPINCOUNT");
  ::unsetenv("OMP_WAIT_POLICY");
  ::unsetenv("GOMP_SPINCOUNT");
  ASSERT_NE(std::getenv("OMP_WAIT_POLICY"), nullptr);
  EXPECT_STREQ(std::getenv("OMP_WAIT_POLICY"), "passive");
  EXPECT_STREQ(std::getenv("GOMP_SPINCOUNT"), "10000");
  ::setenv("GOMP_SPINCOUNT", "5", 1);
  EXPECT_EQ(std::getenv("OMP_WAIT_POLICY"), nullptr);
  EXPECT_STREQ(std::getenv("GOMP_SPINCOUNT"), "5");
  ::unsetenv("GOMP_SPINCOUNT");
  ::setenv("OMP_WAIT_POLICY", "active", 1);
  EXPECT_STREQ(std::getenv("OMP_WAIT_POLICY"), "active");
  EXPECT_EQ(std::getenv("GOMP_SPINCOUNT"), nullptr);
  auto home = in_environment("HOME");  // any other variable: glibc's answer
  if (home) {
    EXPECT_STREQ(std::getenv("HOME"), home->c_str());
  }
  EXPECT_EQ(std::getenv("SYMX_NO_SUCH_VARIABLE"), nullptr);
  ::unsetenv("OMP_WAIT_POLICY");
  if (policy) ::setenv("OMP_WAIT_POLICY", policy->c_str(), 1);
  if (spins) ::setenv("GOMP_SPINCOUNT", spins->c_str(), 1);
}

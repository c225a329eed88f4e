// Core: dtypes, Array, the op table, graph scopes and collections, promotion, error messages.
#include <sstream>

#include "ops/op_table.hpp"
#include "test_util.hpp"

namespace sx = symx;
using sx::testing::expect_close;
using sx::testing::expect_error;

TEST(CoreDType, PromotionFollowsNumPy) {
  EXPECT_EQ(sx::promote_types(sx::f32, sx::f32), sx::f32);
  EXPECT_EQ(sx::promote_types(sx::i32, sx::f32), sx::f64);  // numpy.result_type(int32, float32)
  EXPECT_EQ(sx::promote_types(sx::i64, sx::f32), sx::f64);
  EXPECT_EQ(sx::promote_types(sx::u8, sx::f32), sx::f32);
  EXPECT_EQ(sx::promote_types(sx::bool_, sx::u8), sx::u8);
  EXPECT_EQ(sx::promote_types(sx::u8, sx::i32), sx::i32);
  EXPECT_EQ(sx::promote_types(sx::i32, sx::i64), sx::i64);
  EXPECT_EQ(sx::promote_types(sx::f64, sx::f32), sx::f64);
  EXPECT_EQ(sx::parse_dtype("float32"), sx::f32);
  EXPECT_EQ(sx::parse_dtype("int64"), sx::i64);
  EXPECT_EQ(sx::parse_dtype("complex64"), sx::c64);
  EXPECT_EQ(sx::parse_dtype("c16"), sx::c128);
  // NumPy: complex64 with float64 or the 32/64-bit integers is complex128; with float32 or smaller, complex64.
  EXPECT_EQ(sx::promote_types(sx::c64, sx::f32), sx::c64);
  EXPECT_EQ(sx::promote_types(sx::c64, sx::f64), sx::c128);
  EXPECT_EQ(sx::promote_types(sx::i32, sx::c64), sx::c128);
  EXPECT_EQ(sx::promote_types(sx::u8, sx::c64), sx::c64);
  EXPECT_EQ(sx::promote_types(sx::c128, sx::c64), sx::c128);
  expect_error<sx::DTypeError>([] { sx::parse_dtype("float16"); }, {"float16", "float32", "complex64"});
}

TEST(CoreArray, CreationAndAccess) {
  sx::Array a({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(a.shape(), (sx::Shape{2, 3}));
  EXPECT_EQ(a.dtype(), sx::f32);
  EXPECT_EQ(a.at<float>({1, 2}), 6.f);
  EXPECT_EQ(a.at<float>({-1, 0}), 4.f);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.raw_data()) % 64, 0u);
  expect_error<sx::ValueError>([&] { a.at<float>({2, 0}); }, {"out of bounds", "axis 0"});
  expect_error<sx::DTypeError>([&] { a.data<double>(); }, {"float32", "float64"});
  sx::Array r = sx::Array::arange(0, 5, 2, sx::i64);
  EXPECT_EQ(r.to_vector(), (std::vector<double>{0, 2, 4}));
  EXPECT_EQ(sx::Array::full({2}, 7, sx::i32).to_vector(), (std::vector<double>{7, 7}));
  EXPECT_EQ(sx::Array::ones({3}, sx::u8).to_vector(), (std::vector<double>{1, 1, 1}));
  sx::Array from = sx::Array::from_vector<std::int32_t>({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(from.dtype(), sx::i32);
  EXPECT_EQ(from.astype(sx::f64).at<double>({1, 1}), 4.0);
  expect_error<sx::ValueError>([] { sx::Array::from_vector<float>({1, 2, 3}, {2, 2}); }, {"3 values", "(2, 2)"});
}

// Buffers of 4 MiB and more start on a 2 MiB boundary (so they can sit on huge pages); smaller
// ones are 64-byte aligned; both are zeroed and writable to the last byte.
TEST(CoreArray, LargeBuffersAreHugePageAligned) {
  for (std::int64_t n : {std::int64_t{10}, std::int64_t{1} << 20, (std::int64_t{3} << 20) + 7}) {
    sx::Array a = sx::Array::zeros({n}, sx::f32);
    auto address = reinterpret_cast<std::uintptr_t>(a.raw_data());
    std::size_t bytes = static_cast<std::size_t>(n) * 4;
    EXPECT_EQ(address % (bytes >= (std::size_t{4} << 20) ? (std::size_t{2} << 20) : 64), 0u) << n;
    EXPECT_EQ(a.get_flat(n - 1), 0.0);
    a.set_flat(n - 1, 3.0);
    EXPECT_EQ(a.get_flat(n - 1), 3.0);
  }
}

TEST(CoreArray, PrintsLikeNumPy) {
  EXPECT_EQ(sx::Array({{1, 2}, {3, 4}}).repr(), "array([[1., 2.],\n       [3., 4.]], dtype=float32)");
  EXPECT_EQ(sx::Array({0.5f, -1.25f}).str(), "[ 0.5  -1.25]");
  EXPECT_EQ(sx::Array::from_vector<std::int64_t>({1, -20}, {2}).repr(), "array([  1, -20])");
  EXPECT_EQ(sx::Array::from_vector<bool>({true, false}, {2}).str(), "[ True False]");
  EXPECT_EQ(sx::Array::scalar(3.5).repr(), "array(3.5)");
}

TEST(CoreOpTable, EveryOpHasEveryRule) {
  for (int k = 0; k < sx::kNumOps; ++k) {
    auto op = static_cast<sx::OpKind>(k);
    const auto& def = sx::ops::op_def(op);
    EXPECT_NE(def.infer, nullptr) << sx::op_name(op) << " has no type rule";
    EXPECT_NE(def.evaluate, nullptr) << sx::op_name(op) << " has no reference evaluation";
    EXPECT_NE(def.vjp, nullptr) << sx::op_name(op) << " has no vector-Jacobian rule";
  }
}

TEST(CoreGraph, ScopesAndCollections) {
  sx::reset_default_graph();
  auto a = sx::variable(sx::Array::zeros({2}), "w");
  sx::Tensor b, c;
  {
    sx::Scope outer("layer1");
    b = sx::variable(sx::Array::zeros({3}), "w");
    {
      sx::Scope inner("bn");
      c = sx::variable(sx::Array::zeros({3}), "mean", /*trainable=*/false);
    }
  }
  auto again = sx::variable(sx::Array::zeros({1}), "w");
  EXPECT_EQ(a.name(), "w");
  EXPECT_EQ(b.name(), "layer1/w");
  EXPECT_EQ(c.name(), "layer1/bn/mean");
  EXPECT_EQ(again.name(), "w_1");
  EXPECT_EQ(sx::variables().size(), 4u);
  EXPECT_EQ(sx::variables("layer1/*").size(), 2u);
  EXPECT_EQ(sx::variables("layer1/*", true), (std::vector<sx::Tensor>{b}));
  EXPECT_EQ(sx::variables("", false), (std::vector<sx::Tensor>{c}));
  EXPECT_EQ(sx::variables("w?1"), (std::vector<sx::Tensor>{again}));
  auto x = sx::placeholder({2}, sx::f32, "x");
  EXPECT_EQ(sx::placeholders(), (std::vector<sx::Tensor>{x}));
  expect_error<sx::ValueError>([] { sx::Scope bad("a/b"); }, {"a/b"});
}

TEST(CoreGraph, PopScopeWithoutAScopeIsAUserError) {
  sx::reset_default_graph();
  expect_error<sx::ValueError>([] { sx::default_graph().pop_scope(); }, {"pop_scope", "no scope to pop", "Scope"});
  {
    // Resetting the graph inside a scope: the guard's destructor must not throw (or terminate).
    sx::Scope s("layer1");
    sx::reset_default_graph();
  }
  EXPECT_EQ(sx::default_graph().current_scope(), "");
}

TEST(CoreGraph, DefaultGraphGuard) {
  sx::Graph g;
  {
    sx::DefaultGraph guard(g);
    sx::variable(sx::Array::zeros({1}), "only_here");
    EXPECT_EQ(sx::variables().size(), 1u);
  }
  EXPECT_TRUE(sx::variables("only_here").empty());
}

TEST(CoreElementwise, PromotionWithWeakScalars) {
  auto xi = sx::placeholder({2}, sx::i32);
  auto xf = sx::placeholder({2}, sx::f32);
  auto xb = sx::placeholder({2}, sx::bool_);
  EXPECT_EQ((xi + 1).dtype(), sx::i32);
  EXPECT_EQ((xi * 0.5).dtype(), sx::f32);  // symx's default float for a fractional literal
  EXPECT_EQ((xf * 2).dtype(), sx::f32);
  EXPECT_EQ((xf * 2.0).dtype(), sx::f32);
  EXPECT_EQ((xi + xf).dtype(), sx::f64);  // array-array promotion as numpy.result_type
  EXPECT_EQ((xb + 1).dtype(), sx::i64);
  EXPECT_EQ(sx::divide(xi, xi).dtype(), sx::f32);
  EXPECT_EQ((xf < 1).dtype(), sx::bool_);
  EXPECT_EQ(sx::exp(xi).dtype(), sx::f32);
}

TEST(CoreElementwise, ValuesAgainstHandComputed) {
  auto x = sx::constant(sx::Array({-1.5f, 0.f, 2.5f}));
  expect_close(sx::abs(x).eval(), {1.5, 0, 2.5});
  expect_close(sx::round(x).eval(), {-2, 0, 2});  // half to even
  expect_close(sx::sign(x).eval(), {-1, 0, 1});
  expect_close(sx::mod(x, 2).eval(), {0.5, 0, 0.5});
  expect_close(sx::mod(sx::constant(sx::Array::from_vector<std::int32_t>({-7, 7}, {2})), 3).eval(), {2, 1});
  expect_close(sx::maximum(x, 0).eval(), {0, 0, 2.5});
  expect_close(sx::where(x > 0, x, -x).eval(), {1.5, 0, 2.5});
  expect_close(sx::clip(x, -1, 1).eval(), {-1, 0, 1});
  expect_close(sx::power(sx::constant(sx::Array::from_vector<std::int64_t>({2, 3}, {2})), 3).eval(), {8, 27});
  expect_close(sx::sigmoid(sx::constant(sx::Array({-100.f, 0.f, 100.f}))).eval(), {0, 0.5, 1});
}

TEST(CoreElementwise, IntegerOperatorsAgainstHandComputed) {
  // Python's // and NumPy's shifts, worked out by hand; both backends.
  auto a = sx::constant(sx::Array::from_vector<std::int32_t>({-7, 7, 9, -8, 5}, {5}));
  auto b = sx::constant(sx::Array::from_vector<std::int32_t>({2, -2, 0, 3, 40}, {5}));
  auto check = [](const sx::Tensor& t, std::vector<double> want) {
    expect_close(t.eval(), want);
    expect_close(sx::function({}, {t})({})[0], want);
  };
  check(sx::floor_divide(a, b), {-4, -4, 0, -3, 0});
  check(a & b, {0, 6, 0, 0, 0});
  check(a | b, {-5, -1, 9, -5, 45});
  check(a ^ b, {-5, -7, 9, -5, 45});
  check(~a, {6, -8, -10, 7, -6});
  check(sx::left_shift(a, b), {-28, 0, 9, -64, 0});
  check(sx::right_shift(a, b), {-2, 0, 9, -1, 0});  // a negative shift gives 0 (or -1 for a negative number)
  check(a & 3, {1, 3, 1, 0, 1});
  auto f = sx::constant(sx::Array({1.f, -1.f, 7.5f}));
  // float32(0.1) is 0.100000001490116...: the floor of the exact quotient, as NumPy gives.
  check(sx::floor_divide(f, 0.1), {9, -10, 74});
  expect_error<sx::DTypeError>([&] { (void)(f & f); }, {"bitwise_and", "integer or bool operands"});
}

TEST(CoreErrors, BroadcastErrorNamesOpOperandsLineAndFix) {
  auto a = sx::placeholder({3, 4}, sx::f32, "a");
  auto b = sx::placeholder({5}, sx::f32, "b");
  int line = __LINE__ + 1;
  expect_error<sx::ShapeError>([&] { sx::add(a, b); },
                               {"add: shapes (3, 4) and (5,) cannot be broadcast", "'a' (3, 4) float32",
                                "'b' (5,) float32", "test_core.cpp:" + std::to_string(line), "Make the sizes equal"});
  expect_error<sx::DTypeError>([&] { sx::negative(sx::placeholder({2}, sx::bool_)); }, {"negative", "bool", "Cast"});
  // Operators capture the line of the expression too.
  int op_line = __LINE__ + 1;
  expect_error<sx::ShapeError>([&] { return a * b; },
                               {"multiply: shapes (3, 4) and (5,)", "test_core.cpp:" + std::to_string(op_line)});
  int scalar_line = __LINE__ + 1;
  expect_error<sx::DTypeError>([&] { return -sx::placeholder({2}, sx::bool_); },
                               {"test_core.cpp:" + std::to_string(scalar_line)});
}

// ---- variables from initializers, reset_variables, the update collection (dd818dd) ----

namespace {
// An initializer filling its array with first, first + 1, ... and counting its calls, so that a test
// knows which draw a value came from.
sx::Initializer counting_initializer(int* calls, double first = 0) {
  return [calls, first](const sx::Shape& shape, sx::DType dtype) {
    double start = first + 100.0 * (*calls)++;
    sx::Array a(shape, sx::f64);
    for (std::int64_t i = 0; i < a.size(); ++i) a.set_flat(i, start + static_cast<double>(i));
    return a.astype(dtype);
  };
}
}  // namespace

TEST(CoreVariables, FromAnInitializerTakeItsDrawOfTheirShapeAndDtype) {
  sx::reset_default_graph();
  int calls = 0;
  auto w = sx::variable(counting_initializer(&calls), {2, 3}, sx::f64, "w", /*trainable=*/false);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(w.shape(), (sx::Shape{2, 3}));
  EXPECT_EQ(w.dtype(), sx::f64);
  EXPECT_EQ(w.name(), "w");
  EXPECT_FALSE(w.trainable());
  expect_close(w.value(), {0, 1, 2, 3, 4, 5}, 0, 0);
  auto b = sx::variable(counting_initializer(&calls, 7), {2});  // float32 by default
  EXPECT_EQ(b.dtype(), sx::f32);
  EXPECT_TRUE(b.trainable());
  expect_close(b.value(), {107, 108}, 0, 0);
  EXPECT_EQ(sx::variables(), (std::vector<sx::Tensor>{w, b}));
  // The variable is usable like any other: its value flows into graphs.
  expect_close(sx::sum(w).eval(), {15}, 0, 0);
}

TEST(CoreVariables, InitializerErrorsNameTheVariableAndTheShapes) {
  sx::reset_default_graph();
  expect_error<sx::ValueError>([] { sx::variable(sx::Initializer(), {2}, sx::f32, "w"); },
                               {"variable 'w'", "initializer is empty"});
  auto wrong_shape = [](const sx::Shape&, sx::DType dtype) { return sx::Array::zeros({3}, dtype); };
  expect_error<sx::ValueError>(
      [&] {
        sx::variable(wrong_shape, {2, 2}, sx::f32, "w");
      },
      {"variable 'w'", "returned a (3,) float32 array for a (2, 2) float32 variable"});
  auto wrong_dtype = [](const sx::Shape& shape, sx::DType) { return sx::Array::zeros(shape, sx::f64); };
  expect_error<sx::ValueError>([&] { sx::variable(wrong_dtype, {2}, sx::f32); },
                               {"returned a (2,) float64 array for a (2,) float32 variable"});
  expect_error<sx::ShapeError>([&] { sx::variable(wrong_dtype, {-2}, sx::f32, "neg"); }, {"neg"});
  EXPECT_TRUE(sx::variables().empty());  // a failed variable joins no collection
}

TEST(CoreVariables, ResetRedrawsInitializedVariablesAndRestoresTheOthers) {
  sx::reset_default_graph();
  int calls = 0;
  auto drawn = sx::variable(counting_initializer(&calls), {2}, sx::f32, "drawn");
  auto fixed = sx::variable(sx::Array({1.0f, 2.0f}), "fixed");
  // Two calls of an update in place: the first value must survive them (copy-on-write).
  auto step = sx::function({}, {}, {{fixed, fixed * sx::constant(10.0)}, {drawn, drawn + sx::constant(1.0)}});
  step({});
  step({});
  expect_close(fixed.value(), {100, 200}, 0, 0);
  expect_close(drawn.value(), {2, 3}, 0, 0);
  sx::reset_variables();
  expect_close(fixed.value(), {1, 2}, 0, 0);
  expect_close(drawn.value(), {100, 101}, 0, 0);  // a fresh (second) draw, not the first value
  EXPECT_EQ(calls, 2);
  // Only the listed variables are reset.
  step({});
  sx::reset_variables({fixed});
  expect_close(fixed.value(), {1, 2}, 0, 0);
  expect_close(drawn.value(), {101, 102}, 0, 0);
  EXPECT_EQ(calls, 2);
}

TEST(CoreVariables, ResetOfANonVariableOrAWrongDrawIsAnError) {
  sx::reset_default_graph();
  auto x = sx::placeholder({2}, sx::f32, "x");
  expect_error<sx::ValueError>([&] { sx::reset_variables({x}); }, {"reset_variables", "'x'", "not a variable"});
  int calls = 0;
  // Right the first time, wrong on the redraw: reset reports it and keeps the value.
  auto flaky = [&calls](const sx::Shape& shape, sx::DType dtype) {
    return sx::Array::zeros(calls++ == 0 ? shape : sx::Shape{5}, dtype);
  };
  auto w = sx::variable(flaky, {2}, sx::f32, "w");
  expect_error<sx::ValueError>([&] { sx::reset_variables({w}); },
                               {"reset_variables: the initializer of variable 'w' returned a (5,) float32 array for "
                                "its (2,) float32 value"});
  EXPECT_EQ(w.value().shape(), (sx::Shape{2}));
  // A graph that drew random numbers has a random-state variable; reset leaves it alone.
  sx::reset_default_graph();
  auto v = sx::variable(sx::Array({3.0f}), "v");
  sx::random::uniform({3}).eval();
  sx::reset_variables();
  expect_close(v.value(), {3}, 0, 0);
}

TEST(CoreUpdates, CollectionKeepsOrderFiltersByGlobAndFeedsAFunction) {
  sx::reset_default_graph();
  sx::Tensor mean, var, w;
  {
    sx::Scope scope("bn");
    mean = sx::variable(sx::Array({0.0}), "mean", false);
    var = sx::variable(sx::Array({1.0}), "var", false);
  }
  w = sx::variable(sx::Array({5.0}), "w");
  EXPECT_TRUE(sx::get_updates().empty());
  sx::add_updates({{var, var * sx::constant(2.0)}, {mean, mean + sx::constant(1.0)}});
  sx::add_updates({{w, w - sx::constant(1.0)}});
  auto all = sx::get_updates();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].first, var);  // in the order added
  EXPECT_EQ(all[1].first, mean);
  EXPECT_EQ(all[2].first, w);
  auto bn = sx::get_updates("bn/*");
  ASSERT_EQ(bn.size(), 2u);
  EXPECT_EQ(bn[0].first, var);
  EXPECT_EQ(sx::get_updates("bn/m??n").size(), 1u);
  EXPECT_TRUE(sx::get_updates("nothing*").empty());
  // Nothing is applied implicitly: values change only when a function runs the updates.
  expect_close(w.value(), {5}, 0, 0);
  auto step = sx::function({}, {}, sx::get_updates());
  step({});
  expect_close(var.value(), {2}, 0, 0);
  expect_close(mean.value(), {1}, 0, 0);
  expect_close(w.value(), {4}, 0, 0);
  sx::clear_updates();
  EXPECT_TRUE(sx::get_updates().empty());
  sx::add_updates({{w, w + sx::constant(1.0)}});  // allowed again after clear_updates
  EXPECT_EQ(sx::get_updates().size(), 1u);
  sx::reset_default_graph();
  EXPECT_TRUE(sx::get_updates().empty());  // the collection belongs to the graph
}

TEST(CoreUpdates, ErrorsNameTheVariableAndLeaveTheCollection) {
  sx::reset_default_graph();
  auto w = sx::variable(sx::Array({1.0f}), "w");
  auto x = sx::placeholder({1}, sx::f32, "x");
  int line = __LINE__ + 1;
  auto update_placeholder = [&] { sx::add_updates({{x, x + 1.0f}}); };
  expect_error<sx::ValueError>(update_placeholder,
                               {"add_updates at test_core.cpp:" + std::to_string(line), "'x' is not a variable"});
  expect_error<sx::ValueError>([&] { sx::add_updates({{w, sx::Tensor()}}); }, {"'w'", "undefined"});
  sx::add_updates({{w, w + 1.0f}});
  expect_error<sx::ValueError>(
      [&] {
        sx::add_updates({{w, w * 2.0f}});
      },
      {"variable 'w' already has an update", "clear_updates()"});
  ASSERT_EQ(sx::get_updates().size(), 1u);
  expect_close(sx::get_updates()[0].second.eval(), {2}, 0, 0);  // the first update is kept
}

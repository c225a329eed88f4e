// Arrays the user holds and in-place updates: an input or output that shares memory with a
// variable the call updates, and values handed out (value(), eval(), results) that later calls
// must not change. Both backends; expected values are computed by hand from the inputs.
#include "test_util.hpp"

namespace sx = symx;

namespace {

const sx::Backend kBackends[] = {sx::Backend::reference, sx::Backend::compiled};

const char* name(sx::Backend b) { return b == sx::Backend::compiled ? "compiled" : "reference"; }

// How many elements of float32 `actual` differ from `expected`.
std::int64_t count_wrong(const sx::Array& actual, const std::vector<float>& expected) {
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < actual.size(); ++i)
    wrong += actual.data<float>()[i] != expected[static_cast<std::size_t>(i)];
  return wrong;
}

std::vector<float> iota(std::int64_t n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i);
  return v;
}

}  // namespace

// w <- w + x[::-1], called with w's own value as x: every element is w[i] + w[n-1-i] of the old w.
TEST(Aliasing, InPlaceUpdateReadsAnInputAliasingTheVariable) {
  const std::int64_t n = 100000;
  for (sx::Backend backend : kBackends) {
    sx::reset_default_graph();
    std::vector<float> w0 = iota(n), expected(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      expected[static_cast<std::size_t>(i)] = w0[static_cast<std::size_t>(i)] + w0[static_cast<std::size_t>(n - 1 - i)];
    auto w = sx::variable(sx::Array::from_vector(w0, {n}), "w");
    auto x = sx::placeholder({n}, sx::f32, "x");
    auto f = sx::function({x}, {}, {{w, w + sx::slice(x, {sx::Index::range({}, {}, -1)})}}, {backend});
    f({w.value()});
    EXPECT_EQ(count_wrong(w.value(), expected), 0) << name(backend);
  }
}

// The same with an input that wraps the variable's memory without sharing its ownership (as a
// foreign buffer would): only the address ranges tell that they overlap.
TEST(Aliasing, InPlaceUpdateReadsAForeignViewOfTheVariable) {
  const std::int64_t n = 100000;
  sx::reset_default_graph();
  std::vector<float> w0 = iota(n), expected(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    expected[static_cast<std::size_t>(i)] = w0[static_cast<std::size_t>(i)] + w0[static_cast<std::size_t>(n - 1 - i)];
  auto w = sx::variable(sx::Array::from_vector(w0, {n}), "w");
  auto x = sx::placeholder({n}, sx::f32, "x");
  auto f = sx::function({x}, {}, {{w, w + sx::slice(x, {sx::Index::range({}, {}, -1)})}}, {sx::Backend::compiled});
  void* storage = const_cast<void*>(w.value().raw_data());  // not held: only the address is kept
  f({sx::Array::wrap(storage, {n}, sx::f32, nullptr)});
  EXPECT_EQ(count_wrong(w.value(), expected), 0);
}

// call_into with an output that is also an input: out0 = x + 1 must not be seen by out1 = x[::-1].
TEST(Aliasing, CallIntoOutputAliasingAnInput) {
  const std::int64_t n = 1000;
  sx::reset_default_graph();
  auto x = sx::placeholder({n}, sx::f32, "x");
  auto f =
      sx::function({x}, {x + 1.f, sx::slice(x, {sx::Index::range({}, {}, -1)}) * 2.f}, {}, {sx::Backend::compiled});
  std::vector<float> x0 = iota(n), plus(static_cast<std::size_t>(n)), reversed(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    plus[static_cast<std::size_t>(i)] = x0[static_cast<std::size_t>(i)] + 1;
    reversed[static_cast<std::size_t>(i)] = 2 * x0[static_cast<std::size_t>(n - 1 - i)];
  }
  sx::Array a = sx::Array::from_vector(x0, {n});
  std::vector<sx::Array> outputs{a, sx::Array::zeros({n})};
  f.call_into({a}, outputs);
  EXPECT_EQ(count_wrong(outputs[0], plus), 0);
  EXPECT_EQ(count_wrong(outputs[1], reversed), 0);
}

// A list of w.value() taken after each step holds the history, on both backends.
TEST(Aliasing, HeldValuesKeepTheirHistory) {
  for (sx::Backend backend : kBackends) {
    sx::reset_default_graph();
    auto w = sx::variable(sx::Array({1.f, 2.f, 3.f}), "w");
    auto f = sx::function({}, {}, {{w, w * 2.f}}, {backend});
    std::vector<sx::Array> history{w.value()};
    for (int step = 0; step < 3; ++step) {
      f({});
      history.push_back(w.value());
    }
    for (int step = 0; step < 4; ++step) {
      float scale = static_cast<float>(1 << step);
      sx::testing::expect_close(history[static_cast<std::size_t>(step)], {scale, 2 * scale, 3 * scale});
    }
  }
}

// eval() of a variable, a function's output that is the variable itself, and a value held across
// assign() do not change when the variable is updated later.
TEST(Aliasing, EvalOutputsAndAssignAreSnapshots) {
  for (sx::Backend backend : kBackends) {
    sx::reset_default_graph();
    auto w = sx::variable(sx::Array({1.f, 2.f}), "w");
    auto step = sx::function({}, {}, {{w, w + 10.f}}, {backend});
    auto read = sx::function({}, {w}, {}, {backend});
    sx::Array evaluated = w.eval();
    sx::Array output = read({})[0];
    step({});
    sx::testing::expect_close(evaluated, {1, 2});
    sx::testing::expect_close(output, {1, 2});
    sx::Array held = w.value();
    w.assign(sx::Array({5.f, 6.f}));
    step({});
    sx::testing::expect_close(held, {11, 12});
    sx::testing::expect_close(w.value(), {15, 16});
  }
}

// Copy-on-write costs nothing while nobody holds a view: the update stays in place (same storage,
// no allocation); holding a view moves the variable to fresh storage once.
TEST(Aliasing, InPlaceWithoutViewsCopyOnWriteWithOne) {
  sx::reset_default_graph();
  auto w = sx::variable(sx::Array::zeros({256}), "w");
  auto f = sx::function({}, {}, {{w, w + 1.f}}, {sx::Backend::compiled});
  std::vector<sx::Array> none;
  f.call_into({}, none);
  const void* storage = w.value().raw_data();
  std::int64_t before = sx::Array::allocation_count();
  for (int i = 0; i < 5; ++i) f.call_into({}, none);
  EXPECT_EQ(sx::Array::allocation_count(), before);
  EXPECT_EQ(w.value().raw_data(), storage);
  sx::Array view = w.value();
  f.call_into({}, none);
  EXPECT_NE(w.value().raw_data(), storage);
  EXPECT_EQ(view.data<float>()[0], 6.f);
  EXPECT_EQ(w.value().data<float>()[0], 7.f);
}

// The compiled backend against the reference evaluator: hand-picked programs, properties of the
// compiled function (one compile per signature, in-place updates, no allocation in steady state),
// and differential testing on random graphs.
#include <atomic>
#include <cstdlib>
#include <limits>
#include <new>
#include <random>
#include <sstream>

#include "codegen/compiler.hpp"
#include "passes/passes.hpp"
#include "test_util.hpp"

namespace sx = symx;
using sx::testing::expect_close;

using sx::testing::expect_backends_agree;

TEST(Compiled, ElementwiseChainWithBroadcasting) {
  sx::reset_default_graph();
  auto x = sx::placeholder({7, 33}, sx::f32, "x");
  auto a = sx::placeholder({33}, sx::f32, "a");
  auto b = sx::placeholder({7, 1}, sx::f32, "b");
  auto y = sx::tanh(x * a + b) * sx::sigmoid(x) + sx::exp(-x * x);
  expect_backends_agree({x, a, b}, {y, sx::sum(y, 1), sx::max(y, 0, true), sx::mean(y)},
                        {sx::testing::random_array({7, 33}, -3, 3, 1, sx::f32),
                         sx::testing::random_array({33}, -1, 1, 2, sx::f32),
                         sx::testing::random_array({7, 1}, -1, 1, 3, sx::f32)});
}

TEST(Compiled, ViewsReductionsAndMatmul) {
  sx::reset_default_graph();
  auto x = sx::placeholder({4, 6}, sx::f64, "x");
  auto w = sx::placeholder({6, 5}, sx::f64, "w");
  auto h = sx::nn::relu(sx::matmul(x, w));
  auto t = sx::transpose(h);
  auto s = sx::slice(t, {sx::Index::range(1, 5, 2), sx::Index::range({}, {}, -1)});
  expect_backends_agree({x, w}, {h, t * 2, s, sx::nn::log_softmax(h), sx::logsumexp(h, 0), sx::reshape(h, {20}) + 1},
                        {sx::testing::random_array({4, 6}, -1, 1, 4), sx::testing::random_array({6, 5}, -1, 1, 5)},
                        1e-12, 1e-12);
}

TEST(Compiled, IntegersBoolsAndFallbackOps) {
  sx::reset_default_graph();
  auto i = sx::placeholder({3, 4}, sx::i32, "i");
  auto f = sx::placeholder({3, 4}, sx::f32, "f");
  auto ints = sx::mod(i * 3 - 7, 4) + sx::maximum(i, 2);
  auto mask = sx::logical_and(i > 1, f < 0.5f);
  expect_backends_agree({i, f},
                        {ints, mask, sx::where(mask, f, -f), sx::sum(i), sx::argmax(f, 1), sx::cumsum(f, 0),
                         sx::cast(f * 10, sx::i64)},
                        {sx::Array::from_vector<std::int32_t>({0, 1, 2, 3, 4, 5, -6, -7, 8, 9, 10, 11}, {3, 4}),
                         sx::testing::random_array({3, 4}, -2, 2, 6, sx::f32)});
}

TEST(Compiled, UpdatesSwapAndInPlace) {
  sx::reset_default_graph();
  auto a = sx::variable(sx::Array({1.f, 2.f}), "a");
  auto b = sx::variable(sx::Array({3.f, 4.f}), "b");
  auto swap = sx::function({}, {a * 1}, {{a, b}, {b, a}}, {sx::Backend::compiled});
  expect_close(swap({})[0], {1, 2});
  expect_close(a.value(), {3, 4});
  expect_close(b.value(), {1, 2});

  auto w = sx::variable(sx::testing::random_array({64}, -1, 1, 8, sx::f32), "w");
  auto x = sx::placeholder({64}, sx::f32, "x");
  auto loss = sx::sum(sx::square(w - x));
  auto step = sx::function({x}, {loss}, {{w, w - 0.1f * sx::grad(loss, {w})[0]}}, {sx::Backend::compiled});
  sx::Array xv = sx::Array::zeros({64});
  // The first update copies: the variable's first value is also held for reset_variables.
  step({xv});
  sx::Array before = w.value().copy();
  const void* storage = w.value().raw_data();
  step({xv});
  EXPECT_NE(step.describe().find("(in place)"), std::string::npos) << step.describe();
  EXPECT_EQ(w.value().raw_data(), storage);  // written in place
  std::vector<double> expected;
  for (double v : before.to_vector()) expected.push_back(v - 0.1 * 2 * v);
  expect_close(w.value(), expected, 1e-6);
}

TEST(Compiled, CompilesOncePerSignatureAndUsesTheDiskCache) {
  sx::reset_default_graph();
  auto x = sx::placeholder({5}, sx::f32, "x");
  auto f = sx::function({x}, {sx::exp(x) * 2 + 1}, {}, {sx::Backend::compiled});
  sx::Array xv = sx::Array::ones({5});
  f({xv});
  f({xv});
  f({xv});
  EXPECT_EQ(f.compile_count(), 1);
  // A second function with the same graph loads the kernels it already built.
  auto before = sx::codegen::compiler_stats();
  auto g = sx::function({x}, {sx::exp(x) * 2 + 1}, {}, {sx::Backend::compiled});
  g({xv});
  auto after = sx::codegen::compiler_stats();
  EXPECT_EQ(after.compiles, before.compiles);
  expect_close(g({xv})[0], std::vector<double>(5, 2 * std::exp(1.0) + 1), 1e-6);
}

TEST(Compiled, DescribeShowsRewritesAndKernels) {
  sx::reset_default_graph();
  auto x = sx::placeholder({8}, sx::f32, "x");
  auto y = sx::log(1 + sx::exp(x)) * 1 + 0;
  auto f = sx::function({x}, {y}, {}, {sx::Backend::compiled});
  std::string text = f.describe();
  EXPECT_NE(text.find("log1p"), std::string::npos) << text;     // log(1 + e) -> log1p(e)
  EXPECT_EQ(text.find("multiply"), std::string::npos) << text;  // x * 1 -> x
  EXPECT_NE(text.find("kernel k"), std::string::npos) << text;
  EXPECT_NE(text.find("holds exp#"), std::string::npos) << text;  // exp and log1p in one kernel
}

// A cheap node read by several kernels is recomputed in each rather than written to memory; a
// reduction below such a node is computed once, in its own kernel.
TEST(Compiled, CheapSharedNodesAreRecomputedReductionsAreNot) {
  sx::reset_default_graph();
  // Kernel lines of describe() ("  op#id: kernel kN holds ...; reads ...") rooted at `op`, and
  // those holding it.
  auto steps_of = [](const std::string& text, const std::string& op) {
    std::istringstream lines(text);
    int roots = 0, holders = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.find(": kernel k") == std::string::npos) continue;
      if (line.rfind("  " + op + "#", 0) == 0) ++roots;
      std::string held = line.substr(0, line.find("; reads"));
      if (held.find(" " + op + "#") != std::string::npos) ++holders;
    }
    return std::pair{roots, holders};
  };
  auto x = sx::placeholder({64, 300}, sx::f32, "x");
  auto centered = x - sx::max(x, 1, true);  // read by three kernels below
  auto y = sx::sum(sx::square(centered), 1, true);
  auto z = sx::exp(centered) * 2;
  auto w = sx::abs(centered);
  std::string text =
      sx::testing::expect_backends_agree({x}, {y, z, w}, {sx::testing::random_array({64, 300}, -3, 3, 5, sx::f32)});
  EXPECT_EQ(steps_of(text, "subtract"), (std::pair{0, 3})) << text;

  auto row_sums = sx::sum(x, 1);
  auto scaled = row_sums * 3;  // cheap, over a reduction, read by two kernels
  text = sx::testing::expect_backends_agree({x}, {sx::exp(scaled), scaled + 1},
                                            {sx::testing::random_array({64, 300}, -1, 1, 6, sx::f32)});
  EXPECT_EQ(steps_of(text, "multiply"), (std::pair{0, 2})) << text;
  EXPECT_EQ(steps_of(text, "sum"), (std::pair{1, 1})) << text;
}

// Max and min reductions (vectorized as a select reduction plus a NaN flag) keep the reference's
// semantics: a NaN anywhere in the reduced elements wins, -inf rows stay -inf, integers exact.
TEST(Compiled, MaxMinReductionsPropagateNaN) {
  sx::reset_default_graph();
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> v(4 * 37);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<float>(i)) * 100;
  for (std::size_t i = 0; i < 37; ++i) v[37 + i] = -inf;  // row 1: all -inf
  v[2 * 37 + 29] = nan;                                   // row 2: one NaN late in the row
  v[3 * 37 + 0] = nan;                                    // row 3: NaN first
  auto x = sx::placeholder({4, 37}, sx::f32, "x");
  auto values = sx::Array::from_vector<float>(v, {4, 37});
  sx::testing::expect_backends_agree({x}, {sx::max(x, 1), sx::min(x, 1), sx::max(x, 0), sx::min(x)}, {values});
  auto f = sx::function({x}, {sx::max(x, 1), sx::min(x, 1)}, {}, {sx::Backend::compiled});
  auto r = f({values});
  EXPECT_EQ(r[0].get_flat(1), -inf);
  EXPECT_TRUE(std::isnan(r[0].get_flat(2)) && std::isnan(r[1].get_flat(2)));
  EXPECT_TRUE(std::isnan(r[0].get_flat(3)) && std::isnan(r[1].get_flat(3)));
  auto i = sx::placeholder({3, 50}, sx::i32, "i");
  sx::testing::expect_backends_agree({i}, {sx::max(i, 1), sx::min(i, 0)},
                                     {sx::testing::random_array({3, 50}, -1000, 1000, 3, sx::f32).astype(sx::i32)});
}

// Reductions that keep the last axis (column sums, e.g. a bias gradient) take the blocked loops:
// blocks of 128 columns and a remainder, leading and middle reduced axes, keepdims, NaN.
TEST(Compiled, ReductionsKeepingTheLastAxis) {
  for (sx::DType dt : {sx::f32, sx::f64}) {
    sx::reset_default_graph();
    SCOPED_TRACE(sx::dtype_name(dt));
    auto x = sx::placeholder({6, 5, 300}, dt, "x");
    auto e = sx::exp(x) * 2 - x;  // inlined into the reductions
    sx::Array values = sx::testing::random_array({6, 5, 300}, -2, 2, 8, dt);
    values.set_flat(7 * 300 + 131, std::numeric_limits<double>::quiet_NaN());  // column 131 of (1, 2)
    sx::testing::expect_backends_agree({x},
                                       {sx::sum(e, 0), sx::sum(e, sx::Axes({0, 1})), sx::sum(e, 1, true), sx::max(x, 0),
                                        sx::min(x, sx::Axes({0, 1}), true), sx::max(sx::reshape(x, {30, 300}), 0),
                                        sx::mean(e, 0)},
                                       {values}, dt == sx::f32 ? 1e-5 : 1e-12);
  }
}

// ---- no heap allocation in a steady-state call ----

namespace {
std::atomic<long> g_news{0};
std::atomic<bool> g_counting{false};
}  // namespace

// Replacing the global operator new counts every allocation made through it; the replacement
// pairs malloc with free, which GCC cannot see through.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  if (g_counting) ++g_news;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
// The nothrow form too (std::stable_sort's temporary buffer uses it and frees it with the sized
// delete above): otherwise libstdc++'s operator new pairs with this free, which ASan reports.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  if (g_counting) ++g_news;
  return std::malloc(n ? n : 1);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

TEST(Compiled, SteadyStateCallDoesNotAllocate) {
  sx::reset_default_graph();
  auto x = sx::placeholder({32, 16}, sx::f32, "x");
  auto y = sx::placeholder({32, 4}, sx::f32, "y");
  auto w = sx::variable(sx::testing::random_array({16, 4}, -0.1, 0.1, 9, sx::f32), "w");
  auto b = sx::variable(sx::Array::zeros({4}), "b");
  auto loss = sx::mean(sx::square(sx::tanh(sx::matmul(x, w) + b) - y));
  auto grads = sx::grad(loss, {w, b});
  auto step =
      sx::function({x, y}, {loss}, {{w, w - 0.1f * grads[0]}, {b, b - 0.1f * grads[1]}}, {sx::Backend::compiled});
  std::vector<sx::Array> inputs{sx::testing::random_array({32, 16}, -1, 1, 10, sx::f32),
                                sx::testing::random_array({32, 4}, -1, 1, 11, sx::f32)};
  std::vector<sx::Array> outputs{sx::Array::zeros({})};
  step.call_into(inputs, outputs);  // compiles and plans buffers
  step.call_into(inputs, outputs);
  g_news = 0;
  std::int64_t arrays_before = sx::Array::allocation_count();
  g_counting = true;
  for (int i = 0; i < 10; ++i) step.call_into(inputs, outputs);
  g_counting = false;
  EXPECT_EQ(g_news.load(), 0) << "operator new calls in 10 steady-state calls";
  EXPECT_EQ(sx::Array::allocation_count() - arrays_before, 0) << "Array buffers allocated in 10 steady-state calls";
  // The counters do count: a call through operator() allocates its result arrays.
  g_counting = true;
  step(inputs);
  g_counting = false;
  EXPECT_GT(g_news.load(), 0);
  EXPECT_GT(sx::Array::allocation_count() - arrays_before, 0);
}

TEST(Compiled, ResultsDoNotDependOnTheThreadCount) {
  sx::reset_default_graph();
  auto x = sx::placeholder({256, 300}, sx::f32, "x");
  auto y = sx::nn::softmax(sx::tanh(x) * 3) + sx::sum(sx::exp(-x * x), 0) * 1e-3;
  auto total = sx::sum(y);
  auto f = sx::function({x}, {y, total}, {}, {sx::Backend::compiled});
  sx::Array xv = sx::testing::random_array({256, 300}, -2, 2, 12, sx::f32);
  int saved = sx::num_threads();
  sx::set_num_threads(1);
  auto one = f({xv});
  sx::set_num_threads(2);
  auto two = f({xv});
  sx::set_num_threads(saved);
  expect_close(two[0], one[0], 1e-6, 1e-7);
  expect_close(two[1], one[1], 1e-5);
  EXPECT_THROW(sx::set_num_threads(0), sx::ValueError);
}

TEST(Compiled, ResultArraysAreRecycledOnlyWhenNobodyHoldsThem) {
  sx::reset_default_graph();
  auto x = sx::placeholder({1000}, sx::f32, "x");
  auto f = sx::function({x}, {x * 2}, {}, {sx::Backend::compiled});
  sx::Array one = sx::Array::ones({1000}), three = sx::Array::full({1000}, 3);
  const void* first = f({one})[0].raw_data();  // dropped right away
  sx::Array held = f({one})[0];
  EXPECT_EQ(held.raw_data(), first);  // the dropped buffer was written again
  sx::Array next = f({three})[0];
  EXPECT_NE(next.raw_data(), held.raw_data());  // `held` is in use: not overwritten
  expect_close(held, std::vector<double>(1000, 2));
  expect_close(next, std::vector<double>(1000, 6));
}

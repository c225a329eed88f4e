// One Function called from several threads: results match hand-computed values, updates are
// linearizable (a counter ends at exactly threads x calls, and every call sees a distinct
// count), concurrent first calls compile once. Also built alone under ThreadSanitizer
// (symx_concurrency_tests, `make test-tsan`).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <latch>
#include <thread>
#include <vector>

#include "symx/symx.hpp"
#include "test_util.hpp"

namespace sx = symx;

namespace {

constexpr int kThreads = 4;
const sx::Backend kBackends[] = {sx::Backend::reference, sx::Backend::compiled};

const char* name(sx::Backend b) { return b == sx::Backend::compiled ? "compiled" : "reference"; }

// Runs body(thread) on kThreads threads that start together.
template <class Body> void run_threads(Body body) {
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      body(t);
    });
  for (auto& thread : threads) thread.join();
}

}  // namespace

// y = 2x + 1 and s = sum(x) for a different x in every call; every element is checked.
TEST(Concurrency, CallsWithoutUpdatesGiveExactResults) {
  const std::int64_t n = 10000;
  for (sx::Backend backend : kBackends) {
    sx::reset_default_graph();
    auto x = sx::placeholder({n}, sx::f64, "x");
    auto f = sx::function({x}, {x * 2.0 + 1.0, sx::sum(x)}, {}, {backend});
    const int calls = backend == sx::Backend::compiled ? 50 : 5;
    std::atomic<std::int64_t> wrong{0};
    run_threads([&](int t) {
      for (int m = 0; m < calls; ++m) {
        double offset = 1000.0 * t + m;  // x[i] = i + offset: small integers, exact in float64
        sx::Array in = sx::Array::arange(offset, offset + static_cast<double>(n), 1, sx::f64);
        // Half the calls go through call_into with the thread's own outputs, half through
        // operator() with the function's recycled result arrays.
        std::vector<sx::Array> out{sx::Array::zeros({n}, sx::f64), sx::Array::zeros({}, sx::f64)};
        if (m % 2) f.call_into({in}, out);
        else out = f({in});
        for (std::int64_t i = 0; i < n; ++i)
          wrong += out[0].data<double>()[i] != 2 * (static_cast<double>(i) + offset) + 1;
        double expected_sum =
            static_cast<double>(n) * (static_cast<double>(n) - 1) / 2 + static_cast<double>(n) * offset;
        wrong += out[1].item<double>() != expected_sum;
      }
    });
    EXPECT_EQ(wrong.load(), 0) << name(backend);
  }
}

// c <- c + 1 from every thread: c ends at threads x calls, and the outputs (c before the call)
// are each count exactly once, as if the calls had run one after another.
TEST(Concurrency, CounterUpdatesAreLinearizable) {
  for (sx::Backend backend : kBackends) {
    sx::reset_default_graph();
    auto c = sx::variable(sx::Array::scalar<std::int64_t>(0), "c");
    auto f = sx::function({}, {c * 1}, {{c, c + 1}}, {backend});
    const int calls = backend == sx::Backend::compiled ? 200 : 50;
    std::vector<std::vector<std::int64_t>> seen(kThreads);
    run_threads([&](int t) {
      for (int m = 0; m < calls; ++m) seen[static_cast<std::size_t>(t)].push_back(f({})[0].item<std::int64_t>());
    });
    EXPECT_EQ(c.value().item<std::int64_t>(), kThreads * calls) << name(backend);
    std::vector<std::int64_t> all;
    for (const auto& s : seen) all.insert(all.end(), s.begin(), s.end());
    std::sort(all.begin(), all.end());
    for (std::size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], static_cast<std::int64_t>(i)) << name(backend);
  }
}

// A writer adds 1 to every element of w while readers read w and value(): every value read has all
// elements equal (no call sees half an update), and the writes all land.
TEST(Concurrency, ReadersNeverSeeAHalfWrittenUpdate) {
  const std::int64_t n = 4096;
  for (sx::Backend backend : kBackends) {
    sx::reset_default_graph();
    auto w = sx::variable(sx::Array::zeros({n}), "w");
    auto step = sx::function({}, {}, {{w, w + 1.f}}, {backend});
    auto read = sx::function({}, {w * 1.f}, {}, {backend});
    const int calls = backend == sx::Backend::compiled ? 100 : 10;
    std::atomic<std::int64_t> torn{0};
    auto uniform = [&](const sx::Array& a) {
      for (std::int64_t i = 1; i < n; ++i)
        if (a.data<float>()[i] != a.data<float>()[0]) return false;
      return true;
    };
    run_threads([&](int t) {
      for (int m = 0; m < calls; ++m) {
        if (t == 0) step({});
        else if (t == 1) torn += !uniform(w.value());
        else torn += !uniform(read({})[0]);
      }
    });
    EXPECT_EQ(torn.load(), 0) << name(backend);
    EXPECT_EQ(w.value().data<float>()[n - 1], static_cast<float>(calls)) << name(backend);
  }
}

// The first calls of a fresh function, all at once: one compile, and every result right.
TEST(Concurrency, ConcurrentFirstCallsCompileOnce) {
  sx::reset_default_graph();
  auto x = sx::placeholder({64}, sx::f32, "x");
  auto f = sx::function({x}, {sx::tanh(x) * 0.f + x * 3.f}, {}, {sx::Backend::compiled});
  std::atomic<std::int64_t> wrong{0};
  run_threads([&](int t) {
    sx::Array in = sx::Array::full({64}, t + 1);
    sx::Array out = f({in})[0];
    for (std::int64_t i = 0; i < 64; ++i) wrong += out.data<float>()[i] != 3.f * static_cast<float>(t + 1);
  });
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(f.compile_count(), 1);
}

// Two functions that update different variables and one that only reads both run concurrently
// without deadlock (locks are taken in one global order) and end with exact counts.
TEST(Concurrency, FunctionsSharingVariablesDoNotDeadlock) {
  sx::reset_default_graph();
  auto a = sx::variable(sx::Array::scalar<std::int64_t>(0), "a");
  auto b = sx::variable(sx::Array::scalar<std::int64_t>(0), "b");
  auto fa = sx::function({}, {b * 1}, {{a, a + 1}}, {sx::Backend::compiled});
  auto fb = sx::function({}, {a * 1}, {{b, b + 1}}, {sx::Backend::compiled});
  auto both = sx::function({}, {a + b}, {}, {sx::Backend::compiled});
  const int calls = 200;
  run_threads([&](int t) {
    for (int m = 0; m < calls; ++m) {
      if (t % 2) fa({});
      else fb({});
      both({});
    }
  });
  EXPECT_EQ(a.value().item<std::int64_t>(), kThreads / 2 * calls);
  EXPECT_EQ(b.value().item<std::int64_t>(), kThreads / 2 * calls);
}

// A compile that fails (here: the compiler is missing) throws and leaves no program behind, so
// a later call compiles again and succeeds: a transient failure (a full disk, a compiler timeout)
// does not poison the function.
TEST(Concurrency, AFailedCompileIsRetriedByTheNextCall) {
  sx::reset_default_graph();
  auto x = sx::placeholder({8}, sx::f32, "x");
  auto f = sx::function({x}, {sx::sin(x) * 0.123f + 4.56f}, {}, {sx::Backend::compiled});
  char dir[] = "/tmp/symx-retry-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  sx::testing::SavedEnvironment saved_cache{"SYMX_CACHE_DIR"};
  ::setenv("SYMX_CACHE_DIR", dir, 1);  // empty: the kernel is not in any cache
  {
    sx::testing::SavedEnvironment saved_cxx{"SYMX_CXX"};
    ::setenv("SYMX_CXX", "/nonexistent/symx-test-compiler", 1);
    EXPECT_THROW(f({sx::Array::zeros({8})}), sx::IOError);
    EXPECT_EQ(f.compile_count(), 0);
  }
  sx::Array out = f({sx::Array::zeros({8})})[0];
  std::filesystem::remove_all(dir);
  EXPECT_EQ(f.compile_count(), 1);
  EXPECT_FLOAT_EQ(out.data<float>()[0], 4.56f);
}

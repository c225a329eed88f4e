// Shared helpers for the C++ tests: closeness checks and float64 finite-difference gradient checks.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <fstream>
#include <iterator>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "symx/symx.hpp"

namespace symx::testing {

// A float64 array of `shape` with uniform values in [lo, hi), from a fixed seed.
inline Array random_array(const Shape& shape, double lo = -1, double hi = 1, unsigned seed = 0,
                          DType dtype = DType::f64) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Array a(shape, DType::f64);
  for (std::int64_t i = 0; i < a.size(); ++i) a.set_flat(i, dist(gen));
  return a.astype(dtype);
}

// Expects equal shapes and |a - b| <= atol + rtol |b| elementwise (NaNs and infinities must match).
inline void expect_close(const Array& actual, const Array& expected, double rtol = 1e-6, double atol = 1e-7) {
  ASSERT_EQ(actual.shape(), expected.shape())
      << "shapes differ: " << shape_string(actual.shape()) << " vs " << shape_string(expected.shape());
  for (std::int64_t i = 0; i < actual.size(); ++i) {
    double a = actual.get_flat(i), b = expected.get_flat(i);
    if (std::isnan(b)) {
      EXPECT_TRUE(std::isnan(a)) << "element " << i;
      continue;
    }
    if (std::isinf(b)) {
      EXPECT_EQ(a, b) << "element " << i;
      continue;
    }
    EXPECT_NEAR(a, b, atol + rtol * std::fabs(b)) << "element " << i;
  }
}

inline void expect_close(const Array& actual, const std::vector<double>& expected, double rtol = 1e-6,
                         double atol = 1e-7) {
  ASSERT_EQ(actual.size(), static_cast<std::int64_t>(expected.size()));
  for (std::int64_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual.get_flat(i), expected[static_cast<std::size_t>(i)],
                atol + rtol * std::fabs(expected[static_cast<std::size_t>(i)]))
        << "element " << i;
}

// Braced lists of expected values: expect_close(a, {1, 2, 3}).
inline void expect_close(const Array& actual, std::initializer_list<double> expected, double rtol = 1e-6,
                         double atol = 1e-7) {
  expect_close(actual, std::vector<double>(expected), rtol, atol);
}

// Checks symx's symbolic gradient of `f` at `inputs` (float64 arrays) against central finite
// differences of the same graph, also in float64. The cost is sum(f(x) * r) for a fixed random r,
// so every output element contributes.
inline void expect_gradients_match(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                                   const std::vector<Array>& inputs, double rtol = 1e-5, double atol = 1e-6,
                                   double eps = 1e-6) {
  std::vector<Tensor> xs;
  Feed feed;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    xs.push_back(placeholder(inputs[i].shape(), inputs[i].dtype(), "x" + std::to_string(i)));
    feed.emplace_back(xs.back(), inputs[i]);
  }
  Tensor y = f(xs);
  Tensor r = constant(random_array(y.shape(), -1, 1, 7, y.dtype()));
  Tensor cost = sum(y * r);
  std::vector<Tensor> grads = grad(cost, xs);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!is_floating(inputs[i].dtype())) continue;
    Array symbolic = grads[i].eval(feed);
    Array numeric(inputs[i].shape(), DType::f64);
    for (std::int64_t k = 0; k < inputs[i].size(); ++k) {
      Feed shifted = feed;
      Array plus = inputs[i].copy(), minus = inputs[i].copy();
      plus.set_flat(k, plus.get_flat(k) + eps);
      minus.set_flat(k, minus.get_flat(k) - eps);
      shifted[i].second = plus;
      double cp = cost.eval(shifted).item<double>();
      shifted[i].second = minus;
      double cm = cost.eval(shifted).item<double>();
      numeric.set_flat(k, (cp - cm) / (2 * eps));
    }
    SCOPED_TRACE("gradient of input " + std::to_string(i));
    expect_close(symbolic.astype(DType::f64), numeric, rtol, atol);
  }
}

// Runs the same function on the compiled and the reference backend, twice (the second call reuses
// the compiled program), and compares; returns the compiled function's description.
inline std::string expect_backends_agree(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                                         const std::vector<Array>& values, double rtol = 1e-5, double atol = 1e-6) {
  auto compiled = function(inputs, outputs, {}, {Backend::compiled});
  auto reference = function(inputs, outputs, {}, {Backend::reference});
  auto r = reference(values);
  for (int call = 0; call < 2; ++call) {
    auto c = compiled(values);
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      SCOPED_TRACE("call " + std::to_string(call) + ", output " + std::to_string(k));
      EXPECT_EQ(c[k].dtype(), r[k].dtype());
      expect_close(c[k], r[k], rtol, atol);
    }
  }
  return compiled.describe();
}

// Expects `fn` to throw E whose message contains every string in `parts`.
template <class E, class F> void expect_error(F&& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected an exception";
  } catch (const E& e) {
    std::string message = e.what();
    for (const auto& part : parts)
      EXPECT_NE(message.find(part), std::string::npos) << "message: " << message << "\nmissing: " << part;
  }
}

// An integer from the environment (the fuzzers' SYMX_FUZZ_FILES and SYMX_FUZZ_SEED), or `fallback`.
inline std::int64_t env_int(const char* name, std::int64_t fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::atoll(value) : fallback;
}

// The bytes of a file, and a file made of `bytes` (tests that build or mutate files).
inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A fresh folder under the system's temporary folder (mkdtemp: a unique name, mode 0700), removed
// with everything in it when the test ends.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix = "symx-test") {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  // A path inside the folder.
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

// Saves the named environment variables and restores each (set, or unset) when it is destroyed,
// so that a test may change them freely.
class SavedEnvironment {
 public:
  explicit SavedEnvironment(std::initializer_list<const char*> names) {
    for (const char* name : names) {
      const char* value = std::getenv(name);
      saved_.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
    }
  }
  ~SavedEnvironment() {
    for (const auto& [name, value] : saved_) {
      if (value) ::setenv(name.c_str(), value->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
  }
  SavedEnvironment(const SavedEnvironment&) = delete;
  SavedEnvironment& operator=(const SavedEnvironment&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

}  // namespace symx::testing

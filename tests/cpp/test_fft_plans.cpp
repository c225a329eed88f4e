// The FFTW plans of the runtime (ops/fft_plans.hpp) against a naive O(n^2) DFT in long double
// written here: complex forward and backward, real to complex and complex to real, in float32 and
// float64, over 1-D, 2-D and 3-D arrays along every subset of the axes (each axis of a real
// transform's subset taking its turn as the halved one), with prime and composite sizes; that
// complex_to_real leaves its input alone; several threads executing one plan; unaligned buffers;
// empty arrays; the errors. FftPlansTiming (disabled: run it with --gtest_also_run_disabled_tests)
// prints the timings quoted in runtime/fft_plans.cpp and bench/fft_layer.py.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numbers>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "ops/fft_plans.hpp"
#include "symx/error.hpp"

namespace {

using symx::DType;
using symx::Shape;
using symx::ops::FftKind;
using symx::ops::FftPlan;
using Axes = std::vector<std::int64_t>;
using LComplex = std::complex<long double>;
using LArray = std::vector<LComplex>;

std::int64_t count_of(const Shape& s) {
  std::int64_t n = 1;
  for (std::int64_t d : s) n *= d;
  return n;
}

// Applies `line` (a length-shape[axis] vector to a length-`out_length` vector) to every line of
// `x` (C-contiguous, `shape`) along `axis`; `shape[axis]` becomes out_length.
template <class F> LArray along(const LArray& x, Shape& shape, std::int64_t axis, std::int64_t out_length, F line) {
  std::int64_t n = shape[axis], inner = 1, outer = 1;
  for (std::size_t a = axis + 1; a < shape.size(); ++a) inner *= shape[a];
  for (std::int64_t a = 0; a < axis; ++a) outer *= shape[a];
  LArray y(outer * out_length * inner);
  LArray in(n);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      for (std::int64_t k = 0; k < n; ++k) in[k] = x[(o * n + k) * inner + i];
      LArray out = line(in);
      for (std::int64_t k = 0; k < out_length; ++k) y[(o * out_length + k) * inner + i] = out[k];
    }
  shape[axis] = out_length;
  return y;
}

// exp(2 pi i m / n) for m in [0, n).
LArray unit_roots(std::int64_t n) {
  LArray w(n);
  for (std::int64_t m = 0; m < n; ++m) {
    long double angle = 2 * std::numbers::pi_v<long double> * static_cast<long double>(m) / n;
    w[m] = LComplex(std::cos(angle), std::sin(angle));
  }
  return w;
}

// The DFT by its definition: y[k] = sum_j x[j] exp(sign 2 pi i jk / n).
LArray naive_dft(const LArray& x, int sign) {
  const auto n = static_cast<std::int64_t>(x.size());
  const LArray w = unit_roots(n);
  LArray y(n);
  for (std::int64_t k = 0; k < n; ++k) {
    LComplex sum = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      std::int64_t m = (j * k) % n;
      sum += x[j] * w[sign > 0 ? m : (n - m) % n];
    }
    y[k] = sum;
  }
  return y;
}

// numpy.fft.irfft's definition over a half spectrum of length n/2+1 (the imaginary parts of the
// zero frequency and, for even n, of the Nyquist frequency do not count):
// y[j] = Re X[0] + 2 sum_{0<k<n/2} Re(X[k] e^{+2 pi i jk/n}) + [n even] Re X[n/2] (-1)^j.
LArray naive_half_to_real(const LArray& x, std::int64_t n) {
  const LArray w = unit_roots(n);
  LArray y(n);
  for (std::int64_t j = 0; j < n; ++j) {
    long double sum = x[0].real();
    for (std::int64_t k = 1; 2 * k < n; ++k) sum += 2 * (x[k] * w[(j * k) % n]).real();
    if (n % 2 == 0) sum += x[n / 2].real() * (j % 2 == 0 ? 1 : -1);
    y[j] = sum;
  }
  return y;
}

// The reference of a plan's transform. `x`: the input as complex values (real inputs with zero
// imaginary parts), of the plan's input shape; returns the output (of its output shape).
LArray reference(const FftPlan& plan, LArray x) {
  Shape shape = plan.input_shape();
  const Axes& axes = plan.axes();
  auto dft = [&](int sign) { return [sign](const LArray& v) { return naive_dft(v, sign); }; };
  switch (plan.kind()) {
    case FftKind::forward:
    case FftKind::backward:
      for (std::int64_t a : axes) x = along(x, shape, a, shape[a], dft(plan.kind() == FftKind::forward ? -1 : +1));
      return x;
    case FftKind::real_to_complex: {
      for (std::int64_t a : axes) x = along(x, shape, a, shape[a], dft(-1));
      std::int64_t h = plan.halved_axis(), half = shape[h] / 2 + 1;
      return along(x, shape, h, half, [half](const LArray& v) { return LArray(v.begin(), v.begin() + half); });
    }
    case FftKind::complex_to_real: {
      for (std::int64_t a : axes)
        if (a != plan.halved_axis()) x = along(x, shape, a, shape[a], dft(+1));
      std::int64_t h = plan.halved_axis(), n = plan.shape()[h];
      return along(x, shape, h, n, [n](const LArray& v) { return naive_half_to_real(v, n); });
    }
  }
  return {};
}

// Random values in [-1, 1): complex inputs as (re, im) pairs.
template <class R> std::vector<R> random_values(std::int64_t count, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<R> v(count);
  for (R& e : v) e = static_cast<R>(dist(gen));
  return v;
}

template <class R> LArray to_long(const std::vector<R>& v, bool complex) {
  LArray x(complex ? v.size() / 2 : v.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = complex ? LComplex(v[2 * i], v[2 * i + 1]) : LComplex(v[i], 0);
  return x;
}

// ||actual - expected|| / ||expected|| (2-norms over the real and imaginary parts).
template <class R> double relative_error(const std::vector<R>& actual, bool complex, const LArray& expected) {
  LArray a = to_long(actual, complex);
  EXPECT_EQ(a.size(), expected.size());
  long double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size() && i < expected.size(); ++i) {
    diff += std::norm(a[i] - (complex ? expected[i] : LComplex(expected[i].real(), 0)));
    norm += std::norm(expected[i]);
  }
  return norm == 0 ? static_cast<double>(std::sqrt(diff)) : static_cast<double>(std::sqrt(diff / norm));
}

template <class R> constexpr DType dtype_of_real() { return std::is_same_v<R, float> ? DType::f32 : DType::f64; }
template <class R> constexpr double tolerance() { return std::is_same_v<R, float> ? 1e-5 : 1e-12; }

std::string case_name(FftKind kind, DType dtype, const Shape& shape, const Axes& axes) {
  std::string s = std::string(symx::ops::fft_kind_name(kind)) + " " + std::string(symx::dtype_name(dtype)) + " " +
                  symx::shape_string(shape) + " axes (";
  for (std::int64_t a : axes) s += std::to_string(a) + ",";
  return s + ")";
}

// One plan against the reference; for complex_to_real also that the input is unchanged.
template <class R> void check_transform(FftKind kind, const Shape& shape, const Axes& axes, unsigned seed) {
  SCOPED_TRACE(case_name(kind, dtype_of_real<R>(), shape, axes));
  FftPlan plan(kind, dtype_of_real<R>(), shape, axes);
  const int in_width = plan.input_is_complex() ? 2 : 1, out_width = plan.output_is_complex() ? 2 : 1;
  std::vector<R> in = random_values<R>(count_of(plan.input_shape()) * in_width, seed);
  std::vector<R> out(count_of(plan.output_shape()) * out_width, R(-7));
  const std::vector<R> kept = in;
  plan.execute(in.data(), out.data());
  EXPECT_EQ(std::memcmp(in.data(), kept.data(), in.size() * sizeof(R)), 0) << "the input was written";
  LArray expected = reference(plan, to_long(in, plan.input_is_complex()));
  EXPECT_LE(relative_error(out, plan.output_is_complex(), expected), tolerance<R>());
}

// Every non-empty subset of the axes of `rank`; for real kinds each of its axes as the halved one
// (last), the others in decreasing order (the plan sorts them).
std::vector<Axes> axis_choices(std::int64_t rank, bool real) {
  std::vector<Axes> choices;
  for (std::int64_t mask = 1; mask < (std::int64_t{1} << rank); ++mask) {
    Axes subset;
    for (std::int64_t a = rank - 1; a >= 0; --a)
      if (mask >> a & 1) subset.push_back(a);
    if (!real) {
      choices.push_back(subset);
      continue;
    }
    for (std::size_t h = 0; h < subset.size(); ++h) {
      Axes order = subset;
      std::rotate(order.begin() + h, order.begin() + h + 1, order.end());  // subset[h] last
      choices.push_back(order);
    }
  }
  return choices;
}

const FftKind kAllKinds[] = {FftKind::forward, FftKind::backward, FftKind::real_to_complex, FftKind::complex_to_real};

template <class R> void check_shapes(const std::vector<Shape>& shapes) {
  unsigned seed = 1;
  for (FftKind kind : kAllKinds) {
    bool real = kind == FftKind::real_to_complex || kind == FftKind::complex_to_real;
    for (const Shape& shape : shapes)
      for (const Axes& axes : axis_choices(static_cast<std::int64_t>(shape.size()), real))
        check_transform<R>(kind, shape, axes, seed++);
  }
}

const std::vector<Shape> kShapes1 = {{1}, {2}, {3}, {5}, {7}, {8}, {12}, {17}, {64}, {100}, {243}};
const std::vector<Shape> kShapes2 = {{1, 8}, {2, 3}, {5, 7}, {12, 17}, {64, 3}, {3, 100}, {243, 2}, {7, 1}};
const std::vector<Shape> kShapes3 = {{2, 3, 5}, {3, 7, 8}, {5, 1, 12}, {4, 17, 3}, {2, 243, 3}, {8, 5, 64}};

TEST(FftPlans, OneDimensionalFloat64) { check_shapes<double>(kShapes1); }
TEST(FftPlans, OneDimensionalFloat32) { check_shapes<float>(kShapes1); }
TEST(FftPlans, TwoDimensionalEverySubsetFloat64) { check_shapes<double>(kShapes2); }
TEST(FftPlans, TwoDimensionalEverySubsetFloat32) { check_shapes<float>(kShapes2); }
TEST(FftPlans, ThreeDimensionalEverySubsetFloat64) { check_shapes<double>(kShapes3); }
TEST(FftPlans, ThreeDimensionalEverySubsetFloat32) { check_shapes<float>(kShapes3); }

TEST(FftPlans, NegativeAxesAndTheirOrder) {
  // The last axis given is the halved one, as in numpy.fft.rfftn: axis 0 here.
  FftPlan plan(FftKind::real_to_complex, DType::f64, {4, 6, 10}, {-1, 0});
  EXPECT_EQ(plan.axes(), (Axes{2, 0}));
  EXPECT_EQ(plan.input_shape(), (Shape{4, 6, 10}));
  EXPECT_EQ(plan.output_shape(), (Shape{3, 6, 10}));
  FftPlan last(FftKind::real_to_complex, DType::f64, {4, 6, 10}, {0, -1});
  EXPECT_EQ(last.axes(), (Axes{0, 2}));
  EXPECT_EQ(last.output_shape(), (Shape{4, 6, 6}));
  FftPlan other(FftKind::complex_to_real, DType::f32, {4, 6, 10}, {2, 0});  // halves axis 0
  EXPECT_EQ(other.axes(), (Axes{2, 0}));
  EXPECT_EQ(other.halved_axis(), 0);
  EXPECT_EQ(other.input_shape(), (Shape{3, 6, 10}));
  EXPECT_EQ(other.output_shape(), (Shape{4, 6, 10}));
  EXPECT_EQ(other.input_bytes(), 3u * 6 * 10 * 8);
  EXPECT_EQ(other.output_bytes(), 4u * 6 * 10 * 4);
  FftPlan c2c(FftKind::forward, DType::f64, {4, 6, 10}, {2, -3, 1});
  EXPECT_EQ(c2c.axes(), (Axes{0, 1, 2}));
  EXPECT_EQ(c2c.halved_axis(), -1);
  check_transform<double>(FftKind::complex_to_real, {4, 6, 10}, {2, 0}, 3);
  check_transform<float>(FftKind::real_to_complex, {4, 6, 10}, {-1, 0}, 4);
}

// A threaded plan (at least fft_threads_min_elements elements) against the reference too.
TEST(FftPlans, LargeTransformsWithThreads) {
  check_transform<float>(FftKind::real_to_complex, {128, 520}, {1}, 5);
  check_transform<double>(FftKind::forward, {256, 300}, {0}, 6);
  check_transform<double>(FftKind::complex_to_real, {64, 4, 300}, {0, 2}, 7);
  FftPlan big(FftKind::forward, DType::f32, {256, 300}, {0});
  EXPECT_EQ(big.threads(), std::max(1, omp_get_max_threads()));
  FftPlan small(FftKind::forward, DType::f32, {16, 16}, {0});
  EXPECT_EQ(small.threads(), 1);
}

// The unaligned fallback: buffers one element off the 64-byte alignment give the same values.
template <class R> void check_unaligned(FftKind kind, const Shape& shape, const Axes& axes) {
  SCOPED_TRACE(case_name(kind, dtype_of_real<R>(), shape, axes));
  FftPlan plan(kind, dtype_of_real<R>(), shape, axes);
  const std::int64_t in_count = count_of(plan.input_shape()) * (plan.input_is_complex() ? 2 : 1);
  const std::int64_t out_count = count_of(plan.output_shape()) * (plan.output_is_complex() ? 2 : 1);
  std::vector<R> in = random_values<R>(in_count, 11), out(out_count), shifted_in(in_count + 1),
                 shifted_out(out_count + 1);
  std::copy(in.begin(), in.end(), shifted_in.begin() + 1);
  plan.execute(in.data(), out.data());
  plan.execute(shifted_in.data() + 1, shifted_out.data() + 1);
  std::vector<R> moved(shifted_out.begin() + 1, shifted_out.end());
  LArray expected = reference(plan, to_long(in, plan.input_is_complex()));
  EXPECT_LE(relative_error(out, plan.output_is_complex(), expected), tolerance<R>());
  EXPECT_LE(relative_error(moved, plan.output_is_complex(), expected), tolerance<R>());
}

TEST(FftPlans, UnalignedBuffers) {
  check_unaligned<float>(FftKind::real_to_complex, {8, 64}, {1});
  check_unaligned<float>(FftKind::complex_to_real, {6, 64}, {0, 1});
  check_unaligned<double>(FftKind::forward, {12, 17}, {0, 1});
  check_unaligned<double>(FftKind::complex_to_real, {5, 100}, {1});
}

// Several threads executing one plan on their own buffers get the single-threaded result, bit for
// bit (one plan, one alignment: the same arithmetic).
template <class R> void check_concurrent(FftKind kind, const Shape& shape, const Axes& axes) {
  SCOPED_TRACE(case_name(kind, dtype_of_real<R>(), shape, axes));
  FftPlan plan(kind, dtype_of_real<R>(), shape, axes);
  const std::int64_t in_count = count_of(plan.input_shape()) * (plan.input_is_complex() ? 2 : 1);
  const std::int64_t out_count = count_of(plan.output_shape()) * (plan.output_is_complex() ? 2 : 1);
  constexpr int kThreads = 6, kRounds = 20;
  std::vector<std::vector<R>> inputs, expected;
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(random_values<R>(in_count, 100 + t));
    expected.emplace_back(out_count);
    plan.execute(inputs[t].data(), expected[t].data());
  }
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::vector<R> out(out_count);
      const std::vector<R> kept = inputs[t];
      for (int r = 0; r < kRounds; ++r) {
        std::fill(out.begin(), out.end(), R(0));
        plan.execute(inputs[t].data(), out.data());
        if (out != expected[t] || inputs[t] != kept) ++mismatches[t];
      }
    });
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
  // And the first buffer's result is the reference's.
  EXPECT_LE(relative_error(expected[0], plan.output_is_complex(),
                           reference(plan, to_long(inputs[0], plan.input_is_complex()))),
            tolerance<R>());
}

TEST(FftPlans, ConcurrentExecutionOfOnePlan) {
  check_concurrent<float>(FftKind::real_to_complex, {16, 100}, {1});
  check_concurrent<double>(FftKind::complex_to_real, {12, 10, 16}, {0, 2});  // the per-thread input copy
  check_concurrent<float>(FftKind::complex_to_real, {8, 64}, {1});
  check_concurrent<double>(FftKind::backward, {5, 17, 12}, {0, 2});
  check_concurrent<float>(FftKind::forward, {256, 256}, {0});  // threaded plan (2^16 elements)
}

// Several threads making and destroying plans at once (the planner is not thread-safe in FFTW).
TEST(FftPlans, ConcurrentPlanning) {
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < 30; ++r) {
        FftPlan plan(r % 2 ? FftKind::real_to_complex : FftKind::forward, t % 2 ? DType::f32 : DType::f64,
                     {3, 5 + r + t}, {1});
        if (plan.output_shape()[1] != (r % 2 ? (5 + r + t) / 2 + 1 : 5 + r + t)) ++failures[t];
      }
    });
  for (std::thread& t : threads) t.join();
  for (int f : failures) EXPECT_EQ(f, 0);
  check_transform<double>(FftKind::forward, {3, 30}, {1}, 9);
}

TEST(FftPlans, EmptyArrays) {
  // A batch axis of length 0: nothing to read or write (null buffers are fine).
  FftPlan empty(FftKind::real_to_complex, DType::f32, {0, 8}, {1});
  EXPECT_EQ(empty.output_shape(), (Shape{0, 5}));
  EXPECT_EQ(empty.output_bytes(), 0u);
  empty.execute(nullptr, nullptr);
  FftPlan c2c(FftKind::forward, DType::f64, {3, 0, 4}, {0, 2});
  c2c.execute(nullptr, nullptr);
  FftPlan c2r(FftKind::complex_to_real, DType::f64, {4, 0}, {1});
  EXPECT_EQ(c2r.input_shape(), (Shape{4, 1}));
  std::vector<double> c2r_in(8, 1.0);
  c2r.execute(c2r_in.data(), nullptr);
  // A halved axis of length 0: the half spectrum has one entry, the empty sum.
  FftPlan zero(FftKind::real_to_complex, DType::f64, {4, 0}, {1});
  EXPECT_EQ(zero.output_shape(), (Shape{4, 1}));
  std::vector<double> out(8, 5.0);
  zero.execute(nullptr, out.data());
  EXPECT_EQ(out, std::vector<double>(8, 0.0));
}

TEST(FftPlans, ZeroDimensionalAndNoAxes) {
  // No transformed axis: a copy.
  FftPlan scalar(FftKind::forward, DType::f64, {}, {});
  std::vector<double> in = {1.5, -2.5}, out(2);
  scalar.execute(in.data(), out.data());
  EXPECT_EQ(out, in);
  FftPlan none(FftKind::backward, DType::f32, {2, 3}, {});
  std::vector<float> a = random_values<float>(12, 3), b(12);
  none.execute(a.data(), b.data());
  EXPECT_EQ(a, b);
  // A size-1 transformed axis is the identity.
  check_transform<float>(FftKind::forward, {1}, {0}, 2);
  check_transform<double>(FftKind::complex_to_real, {3, 1}, {1}, 2);
}

template <class E> std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no exception";
  return "";
}

TEST(FftPlans, Errors) {
  std::string axis = message_of<symx::ShapeError>([] { FftPlan(FftKind::forward, DType::f32, {4, 5}, {2}); });
  EXPECT_NE(axis.find("axis 2 is out of range for rank 2"), std::string::npos) << axis;
  EXPECT_NE(axis.find("(4, 5)"), std::string::npos) << axis;
  std::string repeated = message_of<symx::ValueError>([] { FftPlan(FftKind::forward, DType::f32, {4, 5}, {1, -1}); });
  EXPECT_NE(repeated.find("repeated"), std::string::npos) << repeated;
  std::string dtype = message_of<symx::DTypeError>([] { FftPlan(FftKind::forward, DType::i32, {4}, {0}); });
  EXPECT_NE(dtype.find("int32"), std::string::npos) << dtype;
  std::string no_axis = message_of<symx::ValueError>([] { FftPlan(FftKind::real_to_complex, DType::f64, {4}, {}); });
  EXPECT_NE(no_axis.find("at least one axis"), std::string::npos) << no_axis;
  ::setenv("SYMX_FFTW_PLANNER", "fastest", 1);
  std::string planner = message_of<symx::ValueError>([] { FftPlan(FftKind::forward, DType::f64, {4}, {0}); });
  ::unsetenv("SYMX_FFTW_PLANNER");
  EXPECT_NE(planner.find("'fastest', expected estimate, measure or patient"), std::string::npos) << planner;
}

TEST(FftPlans, MeasuringPlannerOnScratchArrays) {
  ::setenv("SYMX_FFTW_PLANNER", "measure", 1);
  FftPlan plan(FftKind::complex_to_real, DType::f64, {6, 64}, {0, 1});
  ::unsetenv("SYMX_FFTW_PLANNER");
  EXPECT_NE(plan.describe().find("measure"), std::string::npos) << plan.describe();
  std::vector<double> in = random_values<double>(6 * 33 * 2, 21), out(6 * 64);
  const std::vector<double> kept = in;
  plan.execute(in.data(), out.data());
  EXPECT_EQ(in, kept);
  EXPECT_LE(relative_error(out, false, reference(plan, to_long(in, true))), 1e-12);
  FftPlan estimate(FftKind::forward, DType::f32, {8}, {0});
  EXPECT_EQ(estimate.describe(), "FFTW float32 forward of (8,) along axes (0,), estimate, 1 thread");
}

// ---- timings (disabled) ----

double milliseconds_of(const FftPlan& plan, const void* in, void* out, int reps) {
  plan.execute(in, out);
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    plan.execute(in, out);
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

void time_case(const char* name, const Shape& shape, int reps) {
  std::vector<float> in = random_values<float>(count_of(shape), 1);
  Shape half = shape;
  half.back() = half.back() / 2 + 1;
  std::vector<float> out(count_of(half) * 2 + 16), in_shifted(in.size() + 1);
  std::copy(in.begin(), in.end(), in_shifted.begin() + 1);
  const int saved = omp_get_max_threads();
  for (const char* effort : {"estimate", "measure"})
    for (int threads : {1, 2}) {
      ::setenv("SYMX_FFTW_PLANNER", effort, 1);
      omp_set_num_threads(threads);
      auto t0 = std::chrono::steady_clock::now();
      FftPlan plan(FftKind::real_to_complex, DType::f32, shape, {static_cast<std::int64_t>(shape.size()) - 1});
      double planning = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      double aligned = milliseconds_of(plan, in.data(), out.data(), reps);
      double unaligned = milliseconds_of(plan, in_shifted.data() + 1, out.data() + 1, reps);
      std::printf("%s %-8s threads=%d: plan %8.1f ms, execute %7.2f ms aligned, %7.2f ms unaligned  [%s]\n", name,
                  effort, plan.threads(), planning, aligned, unaligned, plan.describe().c_str());
    }
  ::unsetenv("SYMX_FFTW_PLANNER");
  omp_set_num_threads(saved);
}

TEST(FftPlansTiming, DISABLED_RealToComplexFloat32) {
  time_case("rfft (256, 65536) axis -1        ", {256, 65536}, 10);
  time_case("stft-like (64, 122, 512) axis -1 ", {64, 122, 512}, 20);
}

}  // namespace

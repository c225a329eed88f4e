// Tests of src/codegen/kernel_prelude.hpp, the vectorizable math used by generated kernels.
//
// Float overloads are compared with the double-precision libm result rounded to float, in ulps,
// over (a) every k-th float bit pattern of both signs (k = 1024 in optimized builds), (b) dense
// samples of [-10, 10] (and of other interesting ranges: path switches, underflow and overflow
// edges) and (c) special values; the bound is 2 ulp (0 for the exact functions), and each test
// prints the maximum it measured. Double overloads are compared with libm (or long double) on a
// smaller sample. Including the header here also checks that it compiles cleanly under -Wall
// -Wextra -Werror. The last tests compile kernel-like loops with the JIT's own command and flags
// (codegen::compiler_command()) and check that GCC vectorized them (with 512-bit vectors where
// the host has AVX-512) and that the fused elementwise loop of benchmark case 1 calls nothing.

#include "codegen/kernel_prelude.hpp"

#include "codegen/compiler.hpp"
#include "ops/special_math.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

namespace {

namespace sk = symx_kernel;

#ifdef NDEBUG
constexpr std::uint64_t kStride = 1024;  // ~4.2M float bit patterns
constexpr int kDense = 1 << 20;
constexpr int kGrid = 1400;  // pow / atan2 / mod: kGrid x kGrid / 2 pairs
#else
constexpr std::uint64_t kStride = 1024 * 4;  // unoptimized / sanitized builds
constexpr int kDense = 1 << 18;
constexpr int kGrid = 700;
#endif

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr float kNaNF = std::numeric_limits<float>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Distance in ulps between two floats; NaN only matches NaN, infinities and the sign of zero
// must match exactly (reported as a huge distance otherwise).
std::int64_t ulp_diff(float got, float want) {
  constexpr std::int64_t kHuge = std::int64_t{1} << 40;
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got) ? 0 : kHuge;
  if (std::isinf(want) || std::isinf(got)) return got == want ? 0 : kHuge;
  if (got == 0 && want == 0) return std::signbit(got) == std::signbit(want) ? 0 : kHuge;
  auto ord = [](float f) {
    const std::int32_t s = std::bit_cast<std::int32_t>(f);
    return s < 0 ? -static_cast<std::int64_t>(s & 0x7fffffff) : static_cast<std::int64_t>(s);
  };
  return std::llabs(ord(got) - ord(want));
}

std::int64_t ulp_diff(double got, double want) {
  constexpr std::int64_t kHuge = std::int64_t{1} << 60;
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got) ? 0 : kHuge;
  if (std::isinf(want) || std::isinf(got)) return got == want ? 0 : kHuge;
  if (got == 0 && want == 0) return std::signbit(got) == std::signbit(want) ? 0 : kHuge;
  auto ord = [](double f) {
    const std::int64_t s = std::bit_cast<std::int64_t>(f);
    return s < 0 ? -(s & 0x7fffffffffffffffLL) : s;
  };
  const std::int64_t d = ord(got) - ord(want);
  return d < 0 ? -d : d;
}

struct Worst {
  std::int64_t ulps = 0;
  double x = 0, y = 0;
  float got = 0, want = 0;
  std::int64_t count = 0;
};

std::string describe(const char* name, const Worst& w) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s: max %lld ulp over %lld values (at x=%.9g y=%.9g: got %.9g want %.9g)", name,
                static_cast<long long>(w.ulps), static_cast<long long>(w.count), w.x, w.y, static_cast<double>(w.got),
                static_cast<double>(w.want));
  return buf;
}

std::vector<float> special_floats() {
  const float m = std::numeric_limits<float>::max(), mn = std::numeric_limits<float>::min(),
              dn = std::numeric_limits<float>::denorm_min();
  std::vector<float> v = {0.0f,
                          1.0f,
                          2.0f,
                          0.5f,
                          3.0f,
                          10.0f,
                          100.0f,
                          1e10f,
                          1e30f,
                          m,
                          mn,
                          dn,
                          2 * dn,
                          mn - dn,
                          mn / 3,
                          kInfF,
                          kNaNF,
                          1.0f - 0x1p-24f,
                          1.0f + 0x1p-23f,
                          88.72283f,
                          88.72284f,
                          89.0f,
                          103.97208f,
                          104.0f,
                          150.0f,
                          0x1p23f,
                          0x1p24f,
                          0x1p24f - 1.0f,
                          0x1p25f,
                          1e-8f,
                          1e-20f,
                          9.01f,
                          3.92f,
                          0.6931472f,
                          1.5707964f,
                          3.1415927f,
                          4.712389f,
                          6.2831855f};
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) v.push_back(-v[i]);
  return v;
}

// All inputs of the unary tests: a strided walk over every float bit pattern, dense samples of
// [-10, 10] and of [-lo, lo] around zero, and special values.
std::vector<float> unary_inputs() {
  std::vector<float> v;
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += kStride)
    v.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(b + (b / kStride) % 7)));
  for (int i = 0; i <= kDense; ++i) v.push_back(-10.0f + 20.0f * static_cast<float>(i) / kDense);
  for (int i = 0; i <= kDense / 4; ++i) v.push_back(-1e-3f + 2e-3f * static_cast<float>(i) / (kDense / 4));
  // Subnormal / underflowing results of exp and sigmoid, the overflow edge of exp / expm1 and
  // exp's cut-off at |x| = 104, the switch between the two paths of tanh (0.7) and erf (1), and
  // where tanh and erf round to 1.
  for (int i = 0; i <= kDense / 8; ++i) {
    const float t = static_cast<float>(i) / (kDense / 8);
    v.push_back(-106.0f + 20.0f * t);
    v.push_back(86.0f + 4.0f * t);
    v.push_back(100.0f + 6.0f * t);
    v.push_back(0.6f + 0.05f * t);
    v.push_back(0.65f + 0.1f * t);
    v.push_back(0.95f + 0.1f * t);
    v.push_back(3.5f + 6.0f * t);
  }
  // Multiples of pi/2 (and neighbours) up to 2^24 and beyond: the hard cases of trig reduction.
  for (int k = 1; k < 20000; k += 7) {
    const float c = static_cast<float>(k * 1.5707963267948966);
    v.push_back(c);
    v.push_back(std::nextafter(c, kInfF));
    v.push_back(std::nextafter(c, -kInfF));
    v.push_back(static_cast<float>(k * 1.5707963267948966 * 4096.0));
  }
  for (float s : special_floats()) v.push_back(s);
  return v;
}

const std::vector<float>& inputs() {
  static const std::vector<float> v = unary_inputs();
  return v;
}

template <class F, class R> Worst check_unary(F ours, R ref) {
  Worst w;
  for (float x : inputs()) {
    const float got = ours(x);
    const float want = static_cast<float>(ref(static_cast<double>(x)));
    const std::int64_t d = ulp_diff(got, want);
    ++w.count;
    if (d > w.ulps) w = Worst{d, x, 0, got, want, w.count};
  }
  return w;
}

#define KM_UNARY_TEST(Name, ours, ref, max_ulps)                   \
  TEST(KernelMath, Name) {                                         \
    const Worst w = check_unary(ours, ref);                        \
    std::printf("[kernel_math] %s\n", describe(#Name, w).c_str()); \
    EXPECT_LE(w.ulps, max_ulps) << describe(#Name, w);             \
  }

KM_UNARY_TEST(
    ExpFloat, [](float x) { return sk::exp(x); }, [](double x) { return std::exp(x); }, 2)
KM_UNARY_TEST(
    Expm1Float, [](float x) { return sk::expm1(x); }, [](double x) { return std::expm1(x); }, 2)
KM_UNARY_TEST(
    LogFloat, [](float x) { return sk::log(x); }, [](double x) { return std::log(x); }, 2)
KM_UNARY_TEST(
    Log1pFloat, [](float x) { return sk::log1p(x); }, [](double x) { return std::log1p(x); }, 2)
KM_UNARY_TEST(
    SqrtFloat, [](float x) { return sk::sqrt(x); }, [](double x) { return std::sqrt(x); }, 0)
KM_UNARY_TEST(
    RsqrtFloat, [](float x) { return sk::rsqrt(x); }, [](double x) { return 1.0 / std::sqrt(x); }, 2)
KM_UNARY_TEST(
    TanhFloat, [](float x) { return sk::tanh(x); }, [](double x) { return std::tanh(x); }, 2)
KM_UNARY_TEST(
    SigmoidFloat, [](float x) { return sk::sigmoid(x); }, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, 2)
KM_UNARY_TEST(
    ErfFloat, [](float x) { return sk::erf(x); }, [](double x) { return std::erf(x); }, 2)
KM_UNARY_TEST(
    SinFloat, [](float x) { return sk::sin(x); }, [](double x) { return std::sin(x); }, 2)
KM_UNARY_TEST(
    CosFloat, [](float x) { return sk::cos(x); }, [](double x) { return std::cos(x); }, 2)
KM_UNARY_TEST(
    TanFloat, [](float x) { return sk::tan(x); }, [](double x) { return std::tan(x); }, 2)
KM_UNARY_TEST(
    AtanFloat, [](float x) { return sk::atan(x); }, [](double x) { return std::atan(x); }, 2)
KM_UNARY_TEST(
    FloorFloat, [](float x) { return sk::floor(x); }, [](double x) { return std::floor(x); }, 0)
KM_UNARY_TEST(
    CeilFloat, [](float x) { return sk::ceil(x); }, [](double x) { return std::ceil(x); }, 0)
KM_UNARY_TEST(
    TruncFloat, [](float x) { return sk::trunc(x); }, [](double x) { return std::trunc(x); }, 0)
KM_UNARY_TEST(
    RoundHalfEvenFloat, [](float x) { return sk::round(x); }, [](double x) { return std::nearbyint(x); }, 0)
KM_UNARY_TEST(
    SignFloat, [](float x) { return sk::sign(x); },
    [](double x) { return x > 0   ? 1.0
                          : x < 0 ? -1.0
                                  : (x == 0 ? 0.0 : x); }, 0)

// Trig over the whole float range is covered above (stride walk); this adds a dense walk over
// large arguments, where the Payne-Hanek path is used.
TEST(KernelMath, TrigLargeArguments) {
  Worst ws, wc, wt;
  const std::uint32_t lo = std::bit_cast<std::uint32_t>(0x1p22f), hi = 0x7f800000u;
  for (std::uint32_t b = lo; b < hi; b += static_cast<std::uint32_t>(kStride / 2 + 1)) {
    const float x = std::bit_cast<float>(b);
    for (auto [w, ours, ref] :
         {std::tuple{&ws, +[](float v) { return sk::sin(v); }, +[](double v) { return std::sin(v); }},
          std::tuple{&wc, +[](float v) { return sk::cos(v); }, +[](double v) { return std::cos(v); }},
          std::tuple{&wt, +[](float v) { return sk::tan(v); }, +[](double v) { return std::tan(v); }}}) {
      const float got = ours(x), want = static_cast<float>(ref(x));
      const std::int64_t d = ulp_diff(got, want);
      ++w->count;
      if (d > w->ulps) *w = Worst{d, x, 0, got, want, w->count};
    }
  }
  std::printf("[kernel_math] %s\n[kernel_math] %s\n[kernel_math] %s\n", describe("sin(large)", ws).c_str(),
              describe("cos(large)", wc).c_str(), describe("tan(large)", wt).c_str());
  EXPECT_LE(ws.ulps, 2) << describe("sin", ws);
  EXPECT_LE(wc.ulps, 2) << describe("cos", wc);
  EXPECT_LE(wt.ulps, 2) << describe("tan", wt);
}

// Special values (NaN, +-inf, +-0, subnormals, overflow and underflow thresholds): exactly as
// libm for non-finite and zero results (ulp_diff makes any mismatch there huge), within 2 ulp of
// the double libm result otherwise.
TEST(KernelMath, SpecialValuesMatchLibm) {
  for (float x : special_floats()) {
    const double xd = x;
    auto same = [&](const char* name, float got, double want) {
      EXPECT_LE(ulp_diff(got, static_cast<float>(want)), 2)
          << name << "(" << x << ") = " << got << ", libm " << static_cast<float>(want);
    };
    same("exp", sk::exp(x), std::exp(xd));
    same("expm1", sk::expm1(x), std::expm1(xd));
    same("log", sk::log(x), std::log(xd));
    same("log1p", sk::log1p(x), std::log1p(xd));
    same("sqrt", sk::sqrt(x), std::sqrt(xd));
    same("rsqrt", sk::rsqrt(x), 1.0 / std::sqrt(xd));
    same("tanh", sk::tanh(x), std::tanh(xd));
    same("erf", sk::erf(x), std::erf(xd));
    same("atan", sk::atan(x), std::atan(xd));
    same("sin", sk::sin(x), std::sin(xd));
    same("cos", sk::cos(x), std::cos(xd));
    same("tan", sk::tan(x), std::tan(xd));
    same("floor", sk::floor(x), std::floor(xd));
    same("ceil", sk::ceil(x), std::ceil(xd));
    same("trunc", sk::trunc(x), std::trunc(xd));
    same("round", sk::round(x), std::nearbyint(xd));
  }
  EXPECT_EQ(sk::sigmoid(kInfF), 1.0f);
  EXPECT_EQ(sk::sigmoid(-kInfF), 0.0f);
  EXPECT_TRUE(std::isnan(sk::sigmoid(kNaNF)));
  EXPECT_EQ(sk::sigmoid(0.0f), 0.5f);
}

// Binary functions on a grid: x and y from a strided walk over float bit patterns plus
// special values and small integers and halves (which matter for pow).
std::vector<float> grid_values(int n) {
  std::vector<float> v;
  const std::uint64_t step = (std::uint64_t{1} << 32) / static_cast<std::uint64_t>(n);
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += step)
    v.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(b + 12345)));
  for (int i = -12; i <= 12; ++i) {
    v.push_back(static_cast<float>(i));
    v.push_back(static_cast<float>(i) + 0.5f);
    v.push_back(static_cast<float>(i) * 0.37f);
  }
  for (float s : special_floats()) v.push_back(s);
  return v;
}

template <class F, class R>
Worst check_binary(F ours, R ref, const std::vector<float>& xs, const std::vector<float>& ys) {
  Worst w;
  for (float x : xs)
    for (float y : ys) {
      const float got = ours(x, y);
      const float want = static_cast<float>(ref(static_cast<double>(x), static_cast<double>(y)));
      const std::int64_t d = ulp_diff(got, want);
      ++w.count;
      if (d > w.ulps) w = Worst{d, x, y, got, want, w.count};
    }
  return w;
}

TEST(KernelMath, PowFloat) {
  const std::vector<float> xs = grid_values(kGrid);
  std::vector<float> ys = grid_values(kGrid / 2);
  // Exponents that keep the result in range for bases near 1.
  for (int i = 0; i <= kGrid; ++i) ys.push_back(-40.0f + 80.0f * static_cast<float>(i) / kGrid);
  std::vector<float> xs2 = xs;
  for (int i = 0; i <= kGrid; ++i) xs2.push_back(0.5f + 1.5f * static_cast<float>(i) / kGrid);
  const Worst w = check_binary([](float x, float y) { return sk::pow(x, y); },
                               [](double x, double y) { return std::pow(x, y); }, xs2, ys);
  std::printf("[kernel_math] %s\n", describe("pow", w).c_str());
  EXPECT_LE(w.ulps, 2) << describe("pow", w);
  // The special cases of C's pow.
  const float specials[] = {0.0f, -0.0f, 1.0f,  -1.0f,  2.0f,  -2.0f,  0.5f,    -0.5f, 3.0f,  -3.0f,
                            2.5f, -2.5f, kInfF, -kInfF, kNaNF, 1e-45f, -1e-45f, 3e38f, -3e38f};
  for (float x : specials)
    for (float y : specials)
      EXPECT_EQ(ulp_diff(sk::pow(x, y), static_cast<float>(std::pow(double{x}, double{y}))), 0)
          << "pow(" << x << ", " << y << ") = " << sk::pow(x, y) << ", libm " << std::pow(double{x}, double{y});
}

TEST(KernelMath, Atan2Float) {
  const std::vector<float> xs = grid_values(kGrid), ys = grid_values(kGrid / 2);
  const Worst w = check_binary([](float y, float x) { return sk::atan2(y, x); },
                               [](double y, double x) { return std::atan2(y, x); }, xs, ys);
  std::printf("[kernel_math] %s\n", describe("atan2", w).c_str());
  EXPECT_LE(w.ulps, 2) << describe("atan2", w);
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, kInfF, -kInfF, kNaNF, 1e-45f, -3e38f};
  for (float y : specials)
    for (float x : specials)
      EXPECT_EQ(ulp_diff(sk::atan2(y, x), static_cast<float>(std::atan2(double{y}, double{x}))), 0)
          << "atan2(" << y << ", " << x << ")";
}

double numpy_mod(double x, double y) {
  double r = std::fmod(x, y);
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  if (r == 0) r = std::copysign(0.0, y);
  return r;
}

TEST(KernelMath, ModFloat) {
  // Exact: the float result is fmod (exact) plus at most one rounding of r + y in float, as
  // NumPy computes it.
  auto ref = [](double x, double y) {
    const float fm = static_cast<float>(std::fmod(x, y));
    float r = fm;
    if (r != 0 && ((r < 0) != (y < 0))) r += static_cast<float>(y);
    if (r == 0) r = std::copysign(0.0f, static_cast<float>(y));
    return static_cast<double>(r);
  };
  const std::vector<float> xs = grid_values(kGrid), ys = grid_values(kGrid / 2);
  const Worst w = check_binary([](float x, float y) { return sk::mod(x, y); }, ref, xs, ys);
  std::printf("[kernel_math] %s\n", describe("mod", w).c_str());
  EXPECT_EQ(w.ulps, 0) << describe("mod", w);
  EXPECT_EQ(sk::mod(7.0f, 3.0f), 1.0f);
  EXPECT_EQ(sk::mod(-7.0f, 3.0f), 2.0f);
  EXPECT_EQ(sk::mod(7.0f, -3.0f), -2.0f);
  EXPECT_EQ(sk::mod(-7.0f, -3.0f), -1.0f);
  EXPECT_TRUE(std::isnan(sk::mod(1.0f, 0.0f)));
  EXPECT_TRUE(std::isnan(sk::mod(kInfF, 2.0f)));
  EXPECT_EQ(sk::mod(-1.0f, kInfF), kInfF);
  EXPECT_EQ(sk::mod(3e38f, 1e-45f), 0.0f);
  EXPECT_FALSE(std::signbit(sk::mod(-6.0f, 3.0f)));
  EXPECT_TRUE(std::signbit(sk::mod(6.0f, -3.0f)));
  // Double overload: libm fmod plus the same fix-ups.
  for (double x : {7.5, -7.5, 1e300, -1e-300, 0.0, -0.0})
    for (double y : {2.0, -2.0, 0.1, -1e-310, 3e200})
      EXPECT_EQ(ulp_diff(sk::mod(x, y), numpy_mod(x, y)), 0) << x << " mod " << y;
}

TEST(KernelMath, MaximumMinimumSign) {
  EXPECT_TRUE(std::isnan(sk::maximum(kNaNF, 1.0f)));
  EXPECT_TRUE(std::isnan(sk::maximum(1.0f, kNaNF)));
  EXPECT_TRUE(std::isnan(sk::minimum(kNaNF, 1.0f)));
  EXPECT_TRUE(std::isnan(sk::minimum(1.0f, kNaNF)));
  EXPECT_TRUE(std::isnan(sk::maximum(std::nan(""), 1.0)));
  EXPECT_TRUE(std::isnan(sk::minimum(1.0, std::nan(""))));
  EXPECT_EQ(sk::maximum(2.0f, -kInfF), 2.0f);
  EXPECT_EQ(sk::minimum(2.0f, -kInfF), -kInfF);
  EXPECT_EQ(sk::maximum(3, 7), 7);
  EXPECT_EQ(sk::minimum(std::int64_t{-3}, std::int64_t{7}), -3);
  EXPECT_EQ(sk::maximum(std::uint8_t{200}, std::uint8_t{100}), 200);
  // np.maximum returns the second operand on ties: maximum(-0., 0.) = 0., maximum(0., -0.) = -0.
  EXPECT_FALSE(std::signbit(sk::maximum(-0.0f, 0.0f)));
  EXPECT_TRUE(std::signbit(sk::maximum(0.0f, -0.0f)));
  EXPECT_EQ(sk::sign(-3.5), -1.0);
  EXPECT_FALSE(std::signbit(sk::sign(-0.0)));
  EXPECT_TRUE(std::isnan(sk::sign(std::nan(""))));
  EXPECT_EQ(sk::sign(-5), -1);
  EXPECT_EQ(sk::sign(std::uint32_t{5}), 1u);
  EXPECT_EQ(sk::sign(std::int8_t{0}), 0);
}

template <class T> T python_mod(T x, T y) {
  if (y == 0) return 0;
  if constexpr (std::numeric_limits<T>::is_signed) {
    if (y == -1) return 0;
    T r = static_cast<T>(x % y);
    if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
    return r;
  } else {
    return static_cast<T>(x % y);
  }
}

template <class T> T naive_pow(T a, T b) {
  if constexpr (std::numeric_limits<T>::is_signed) {
    if (b < 0) return a == 1 ? T(1) : (a == -1 ? ((b % 2) ? T(-1) : T(1)) : T(0));
  }
  std::uint64_t r = 1;
  for (T i = 0; i < b; ++i) r *= static_cast<std::uint64_t>(static_cast<std::int64_t>(a));
  return static_cast<T>(r);
}

template <class T> void check_integer_helpers() {
  const std::vector<std::int64_t> raw = {0,
                                         1,
                                         -1,
                                         2,
                                         -2,
                                         3,
                                         -3,
                                         7,
                                         -7,
                                         10,
                                         -10,
                                         100,
                                         -100,
                                         127,
                                         -128,
                                         255,
                                         32767,
                                         -32768,
                                         2147483647LL,
                                         -2147483647LL - 1,
                                         std::numeric_limits<std::int64_t>::max(),
                                         std::numeric_limits<std::int64_t>::min()};
  std::vector<T> vals;
  for (std::int64_t v : raw) vals.push_back(static_cast<T>(v));  // wraps for narrow types
  for (T x : vals)
    for (T y : vals) EXPECT_EQ(sk::mod(x, y), python_mod(x, y)) << +x << " mod " << +y;
  for (T a : vals)
    for (int e = -3; e <= 70; ++e) {
      const T b = static_cast<T>(e);
      if (static_cast<std::int64_t>(b) != e || (!std::numeric_limits<T>::is_signed && e < 0)) continue;
      EXPECT_EQ(sk::ipow(a, b), naive_pow(a, b)) << +a << " ** " << e;
    }
}

TEST(KernelMath, IntegerModAndPower) {
  check_integer_helpers<std::int8_t>();
  check_integer_helpers<std::uint8_t>();
  check_integer_helpers<std::int16_t>();
  check_integer_helpers<std::int32_t>();
  check_integer_helpers<std::uint32_t>();
  check_integer_helpers<std::int64_t>();
  check_integer_helpers<std::uint64_t>();
  EXPECT_EQ(sk::ipow(true, false), true);
  EXPECT_EQ(sk::ipow(false, true), false);
  EXPECT_EQ(sk::mod(true, true), false);
  EXPECT_EQ(sk::ipow(3, 4), 81);
  EXPECT_EQ(sk::ipow(std::int64_t{-2}, std::int64_t{63}), std::numeric_limits<std::int64_t>::min());
}

// Double overloads: libm is the reference (long double for sigmoid).
TEST(KernelMath, DoubleOverloads) {
  std::vector<double> xs;
  std::uint64_t s = 0x9E3779B97F4A7C15ULL;
  const int n = kDense / 16;
  for (int i = 0; i < n; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    xs.push_back(std::bit_cast<double>(s));                               // any bit pattern
    xs.push_back(-30.0 + 60.0 * static_cast<double>(s >> 11) * 0x1p-53);  // [-30, 30]
  }
  for (double v : {0.0, -0.0, 1.0, -1.0, kInf, -kInf, std::nan(""), 1e-310, -1e-310, 1e308, -1e308}) xs.push_back(v);
  std::map<std::string, std::int64_t> worst;
  auto check = [&](const char* name, double got, double want) {
    worst[name] = std::max(worst[name], ulp_diff(got, want));
  };
  for (double x : xs) {
    check("exp", sk::exp(x), std::exp(x));
    check("expm1", sk::expm1(x), std::expm1(x));
    check("log", sk::log(x), std::log(x));
    check("log1p", sk::log1p(x), std::log1p(x));
    check("sqrt", sk::sqrt(x), std::sqrt(x));
    check("rsqrt", sk::rsqrt(x), 1.0 / std::sqrt(x));
    check("tanh", sk::tanh(x), std::tanh(x));
    const long double xl = x;
    check("sigmoid", sk::sigmoid(x), static_cast<double>(1.0L / (1.0L + std::exp(-xl))));
    check("erf", sk::erf(x), std::erf(x));
    check("sin", sk::sin(x), std::sin(x));
    check("cos", sk::cos(x), std::cos(x));
    check("tan", sk::tan(x), std::tan(x));
    check("atan", sk::atan(x), std::atan(x));
    check("atan2", sk::atan2(x, 0.75), std::atan2(x, 0.75));
    check("pow", sk::pow(1.5, x), std::pow(1.5, x));
    check("floor", sk::floor(x), std::floor(x));
    check("ceil", sk::ceil(x), std::ceil(x));
    check("trunc", sk::trunc(x), std::trunc(x));
    check("round", sk::round(x), std::nearbyint(x));
    check("mod", sk::mod(x, 0.7), numpy_mod(x, 0.7));
  }
  for (const auto& [name, ulps] : worst) {
    std::printf("[kernel_math] double %s: max %lld ulp\n", name.c_str(), static_cast<long long>(ulps));
    EXPECT_LE(ulps, 2) << name;
  }
}

// ---------------------------------------------------------------------------------------------
// Vectorization: compile kernel-shaped loops with the JIT's flags and read GCC's report.

std::filesystem::path prelude_dir() {
  // tests/cpp/test_kernel_math.cpp -> <root>/src
  std::filesystem::path here = std::filesystem::absolute(__FILE__);
  return here.parent_path().parent_path().parent_path() / "src";
}

TEST(KernelMath, LoopsVectorize) {
  if (std::system("g++ --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "g++ not found";
  const std::filesystem::path src = prelude_dir();
  if (!std::filesystem::exists(src / "codegen" / "kernel_prelude.hpp"))
    GTEST_SKIP() << "kernel_prelude.hpp not found under " << src;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("symx_km_vec_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);

  // One loop per function, each on its own line, so GCC's report maps back to the function.
  // "chain" is the fused loop of benchmark case 1, tanh(x * a + b) * sigmoid(x) + exp(-x * x).
  const std::vector<std::pair<std::string, std::string>> loops = {
      {"exp", "symx_kernel::exp(a[i])"},
      {"tanh", "symx_kernel::tanh(a[i])"},
      {"log", "symx_kernel::log(a[i])"},
      {"sigmoid", "symx_kernel::sigmoid(a[i])"},
      {"erf", "symx_kernel::erf(a[i])"},
      {"sin", "symx_kernel::sin(a[i])"},
      {"fused", "symx_kernel::tanh(a[i] * b[i]) + symx_kernel::exp(-b[i])"},
      {"chain", "symx_kernel::tanh(a[i] * b[i] + c[i]) * symx_kernel::sigmoid(a[i]) + symx_kernel::exp(-a[i] * a[i])"},
      {"expm1", "symx_kernel::expm1(a[i])"},
      {"log1p", "symx_kernel::log1p(a[i])"},
      {"sqrt", "symx_kernel::sqrt(a[i])"},
      {"rsqrt", "symx_kernel::rsqrt(a[i])"},
      {"cos", "symx_kernel::cos(a[i])"},
      {"tan", "symx_kernel::tan(a[i])"},
      {"atan", "symx_kernel::atan(a[i])"},
      {"atan2", "symx_kernel::atan2(a[i], b[i])"},
      {"pow", "symx_kernel::pow(a[i], b[i])"},
      {"mod", "symx_kernel::mod(a[i], b[i])"},
      {"floor", "symx_kernel::floor(a[i])"},
      {"ceil", "symx_kernel::ceil(a[i])"},
      {"round", "symx_kernel::round(a[i])"},
      {"maximum", "symx_kernel::maximum(a[i], b[i])"},
      {"minimum", "symx_kernel::minimum(a[i], b[i])"},
      {"sign", "symx_kernel::sign(a[i])"},
      {"lgamma", "symx_kernel::lgamma(a[i])"},
      {"digamma", "symx_kernel::digamma(a[i])"},
      {"erfinv", "symx_kernel::erfinv(a[i])"},
      {"i0e", "symx_kernel::i0e(a[i])"},
      {"i1e", "symx_kernel::i1e(a[i])"},
      {"special_chain", "symx_kernel::lgamma(a[i]) + symx_kernel::digamma(a[i]) + symx_kernel::erfinv(b[i])"},
  };
  // pow is not required: GCC does not inline it (too large), so its loop keeps a call.
  const std::vector<std::string> required = {"exp",    "tanh",  "log",   "sigmoid",      "erf",    "sin",
                                             "fused",  "chain", "expm1", "log1p",        "sqrt",   "rsqrt",
                                             "cos",    "tan",   "atan",  "atan2",        "lgamma", "digamma",
                                             "erfinv", "i0e",   "i1e",   "special_chain"};
  std::ostringstream code;
  code << "#include \"codegen/kernel_prelude.hpp\"\n#include <cstdint>\n";
  const int first_line = 3;
  for (std::size_t k = 0; k < loops.size(); ++k)
    code << "extern \"C\" void k_" << loops[k].first
         << "(const float* __restrict a, const float* __restrict b, const float* __restrict c, float* __restrict out, "
            "std::int64_t n) { (void)b; (void)c; _Pragma(\"omp simd\") for (std::int64_t i = 0; i < n; ++i) out[i] = "
         << loops[k].second << "; }\n";
  {
    std::ofstream f(dir / "kernel.cpp");
    f << code.str();
  }
  // The JIT's own compiler command and flags (the generated kernels are compiled with exactly
  // these), here to assembly.
  const std::string cmd = "cd '" + dir.string() + "' && " + symx::codegen::compiler_command() +
                          " -Wall -Wextra -Werror -I'" + src.string() +
                          "' -fopt-info-vec-optimized -S kernel.cpp -o kernel.s > report.txt 2>&1";
  const int rc = std::system(cmd.c_str());
  auto slurp = [](const std::filesystem::path& path) {
    std::ifstream f(path);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  };
  const std::string report = slurp(dir / "report.txt"), assembly = slurp(dir / "kernel.s");
  std::filesystem::remove_all(dir);
  ASSERT_EQ(rc, 0) << cmd << "\n" << report;
  // 512-bit vectors are required on AMD hosts with AVX-512 (Zen 4: GCC's tuning there has no
  // 256-bit preference, and the 16-lane loops are the fast ones); on Intel hosts GCC's tuning may
  // prefer 256-bit vectors, so there the width is only reported.
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_is("amd");
  for (std::size_t k = 0; k < loops.size(); ++k) {
    const std::string tag = "kernel.cpp:" + std::to_string(first_line + static_cast<int>(k)) + ":";
    bool vec = false, vec512 = false;
    for (std::size_t pos = report.find(tag); pos != std::string::npos; pos = report.find(tag, pos + 1)) {
      const std::size_t eol = report.find('\n', pos);
      const std::string line = report.substr(pos, eol - pos);
      if (line.find("loop vectorized") != std::string::npos) {
        vec = true;
        if (line.find("using 64 byte vectors") != std::string::npos) vec512 = true;
      }
    }
    std::printf("[kernel_math] %-8s loop %s\n", loops[k].first.c_str(),
                vec ? (vec512 ? "vectorized (512-bit)" : "vectorized") : "NOT vectorized");
    if (std::find(required.begin(), required.end(), loops[k].first) != required.end()) {
      EXPECT_TRUE(vec) << loops[k].first << " loop was not vectorized; GCC report:\n" << report;
      if (avx512) {
        EXPECT_TRUE(vec512) << loops[k].first << " loop was not vectorized with 64-byte vectors:\n" << report;
      }
    }
  }
  // The fused benchmark loop is straight-line vector code: no calls (libm or otherwise).
  const std::size_t begin = assembly.find("\nk_chain:");
  ASSERT_NE(begin, std::string::npos) << "k_chain not found in the assembly";
  const std::size_t end = assembly.find(".cfi_endproc", begin);
  const std::string body = assembly.substr(begin, end - begin);
  EXPECT_EQ(body.find("\tcall"), std::string::npos) << "k_chain calls a function:\n" << body;
}

// The tests above run the functions as compiled into this test binary (the project's flags,
// possibly without FMA hardware, scalar). The JIT compiles them with its own flags into
// vectorized loops, where GCC contracts and schedules differently: check the vectorized code
// too, on the same inputs, through the JIT's compiler and loader.
TEST(KernelMath, JitCompiledLoopsAccuracy) {
  if (std::system("g++ --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "g++ not found";
  const std::filesystem::path header = prelude_dir() / "codegen" / "kernel_prelude.hpp";
  if (!std::filesystem::exists(header)) GTEST_SKIP() << header << " not found";
  struct Fn {
    const char* name;
    double (*ref)(double);
    std::int64_t max_ulps;
  };
  const std::vector<Fn> fns = {
      {"exp", [](double x) { return std::exp(x); }, 2},
      {"expm1", [](double x) { return std::expm1(x); }, 2},
      {"log", [](double x) { return std::log(x); }, 2},
      {"log1p", [](double x) { return std::log1p(x); }, 2},
      {"tanh", [](double x) { return std::tanh(x); }, 2},
      {"sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, 2},
      {"erf", [](double x) { return std::erf(x); }, 2},
      {"sqrt", [](double x) { return std::sqrt(x); }, 0},
      {"lgamma", [](double x) { return symx::ops::special_math::lgamma(x); }, 2},
      {"digamma", [](double x) { return symx::ops::special_math::digamma(x); }, 2},
      {"erfinv", [](double x) { return symx::ops::special_math::erfinv(x); }, 2},
      {"i0e", [](double x) { return symx::ops::special_math::i0e(x); }, 2},
  };
  std::ostringstream code;
  code << "#include \"" << header.string() << "\"\n#include <cstdint>\n";
  for (const Fn& f : fns)
    code << "extern \"C\" void jit_" << f.name << "(const float* __restrict a, float* __restrict out, std::int64_t n) {"
         << " _Pragma(\"omp simd\") for (std::int64_t i = 0; i < n; ++i) out[i] = symx_kernel::" << f.name
         << "(a[i]); }\n";
  const auto library = symx::codegen::compile_and_load(code.str());
  ASSERT_TRUE(library);
  const std::vector<float>& xs = inputs();
  std::vector<float> out(xs.size());
  for (const Fn& f : fns) {
    using Kernel = void (*)(const float*, float*, std::int64_t);
    reinterpret_cast<Kernel>(library->symbol(std::string("jit_") + f.name))(xs.data(), out.data(),
                                                                            static_cast<std::int64_t>(xs.size()));
    Worst w;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const float want = static_cast<float>(f.ref(static_cast<double>(xs[i])));
      const std::int64_t d = ulp_diff(out[i], want);
      ++w.count;
      if (d > w.ulps) w = Worst{d, xs[i], 0, out[i], want, w.count};
    }
    const std::string label = std::string(f.name) + " (JIT flags, vectorized)";
    std::printf("[kernel_math] %s\n", describe(label.c_str(), w).c_str());
    EXPECT_LE(w.ulps, f.max_ulps) << describe(label.c_str(), w);
  }
}

// ---- special functions (issue 21): lgamma, digamma, erfinv, i0e, i1e vectorized in float; the
// references are libm (lgamma) and the reference evaluator's double algorithms
// (src/ops/special_math.hpp). The float overloads of the scalar ones (erfc, erfcx, ndtri, log_ndtr,
// expi, exp1) round their double result.
namespace sm = symx::ops::special_math;
KM_UNARY_TEST(
    LgammaFloat, [](float x) { return sk::lgamma(x); }, [](double x) { return sm::lgamma(x); }, 2)
KM_UNARY_TEST(
    DigammaFloat, [](float x) { return sk::digamma(x); }, [](double x) { return sm::digamma(x); }, 2)
KM_UNARY_TEST(
    ErfinvFloat, [](float x) { return sk::erfinv(x); }, [](double x) { return sm::erfinv(x); }, 2)
KM_UNARY_TEST(
    I0eFloat, [](float x) { return sk::i0e(x); }, [](double x) { return sm::i0e(x); }, 2)
KM_UNARY_TEST(
    I1eFloat, [](float x) { return sk::i1e(x); }, [](double x) { return sm::i1e(x); }, 2)
KM_UNARY_TEST(
    NdtriFloat, [](float x) { return sk::ndtri(x); }, [](double x) { return sm::ndtri(x); }, 1)
KM_UNARY_TEST(
    ErfcxFloat, [](float x) { return sk::erfcx(x); }, [](double x) { return sm::erfcx(x); }, 1)
KM_UNARY_TEST(
    LogNdtrFloat, [](float x) { return sk::log_ndtr(x); }, [](double x) { return sm::log_ndtr(x); }, 1)

// Every float near the zeros of lgamma (1, 2 and the first negative ones) and of digamma (its
// positive root and the first negative ones), where the result is small and cancellation would
// show: walked float by float.
TEST(KernelMath, SpecialNearRoots) {
  struct Range {
    const char* name;
    float lo, hi;
    bool digamma;
  };
  const Range ranges[] = {{"lgamma near 1", 0.999f, 1.001f, false},      {"lgamma near 2", 1.999f, 2.001f, false},
                          {"lgamma near -2.457", -2.46f, -2.45f, false}, {"lgamma near -2.747", -2.75f, -2.74f, false},
                          {"lgamma near -3.144", -3.15f, -3.14f, false}, {"digamma near 1.4616", 1.46f, 1.4633f, true},
                          {"digamma near -0.504", -0.51f, -0.5f, true},  {"digamma near -1.573", -1.58f, -1.57f, true}};
  for (const Range& r : ranges) {
    Worst w;
    for (float x = r.lo; x <= r.hi; x = std::nextafter(x, kInfF)) {
      const float got = r.digamma ? sk::digamma(x) : sk::lgamma(x);
      const float want = static_cast<float>(r.digamma ? sm::digamma(x) : std::lgamma(static_cast<double>(x)));
      const std::int64_t d = ulp_diff(got, want);
      ++w.count;
      if (d > w.ulps) w = Worst{d, x, 0, got, want, w.count};
    }
    std::printf("[kernel_math] %s\n", describe(r.name, w).c_str());
    EXPECT_LE(w.ulps, 2) << describe(r.name, w);
  }
}

// The double overloads against the reference evaluator's independent double algorithms (and libm);
// digamma differs most next to its negative roots (cancellation in both).
TEST(KernelMath, SpecialDoubleOverloads) {
  auto rel = [](double got, double want) {
    if (std::isnan(want)) return std::isnan(got) ? 0.0 : 1.0;
    if (std::isinf(want) || want == 0) return got == want ? 0.0 : 1.0;
    return std::fabs(got - want) / std::fabs(want);
  };
  struct Fn {
    const char* name;
    double (*ours)(double);
    double (*ref)(double);
    double lo, hi, tol;
  };
  const Fn fns[] = {
      {"digamma", [](double x) { return sk::digamma(x); }, [](double x) { return sm::digamma(x); }, -20, 50, 1e-12},
      {"erfinv", [](double x) { return sk::erfinv(x); }, [](double x) { return sm::erfinv(x); }, -1, 1, 1e-14},
      {"ndtri", [](double x) { return sk::ndtri(x); }, [](double x) { return sm::ndtri(x); }, 0, 1, 1e-14},
      {"erfcx", [](double x) { return sk::erfcx(x); }, [](double x) { return sm::erfcx(x); }, -26, 60, 1e-15},
      {"log_ndtr", [](double x) { return sk::log_ndtr(x); }, [](double x) { return sm::log_ndtr(x); }, -60, 10, 1e-15},
      {"i0e", [](double x) { return sk::i0e(x); }, [](double x) { return sm::i0e(x); }, -50, 50, 4e-15},
      {"i1e", [](double x) { return sk::i1e(x); }, [](double x) { return sm::i1e(x); }, -50, 50, 4e-15},
      {"expi", [](double x) { return sk::expi(x); }, [](double x) { return sm::expi(x); }, -50, 50, 1e-15},
      {"exp1", [](double x) { return sk::exp1(x); }, [](double x) { return sm::exp1(x); }, 0, 50, 1e-15},
  };
  for (const Fn& f : fns) {
    double worst = 0, at = 0;
    for (int i = 0; i <= 20000; ++i) {
      const double x = f.lo + (f.hi - f.lo) * i / 20000.0;
      const double e = rel(f.ours(x), f.ref(x));
      if (e > worst) worst = e, at = x;
    }
    for (double x : {0.0, -0.0, kInf, -kInf, std::nan("")}) {
      const double e = rel(f.ours(x), f.ref(x));
      if (e > worst) worst = e, at = x;
    }
    std::printf("[kernel_math] %s (double): max relative difference %.3g at %.17g\n", f.name, worst, at);
    EXPECT_LE(worst, f.tol) << f.name << " at " << at;
  }
  // Integer helpers.
  EXPECT_EQ(sk::gcd(12, -18), 6);
  EXPECT_EQ(sk::gcd(0, 0), 0);
  EXPECT_EQ(sk::lcm(4, -6), 12);
  EXPECT_EQ(sk::lcm(0, 5), 0);
  EXPECT_EQ(sk::gcd(std::int64_t{-9223372036854775807LL - 1}, std::int64_t{0}),
            std::int64_t{-9223372036854775807LL - 1});
  EXPECT_EQ(sk::bitwise_count(-1), 1);
  EXPECT_EQ(sk::bitwise_count(std::int64_t{-7}), 3);  // of |x|, as NumPy
  EXPECT_EQ(sk::bitwise_count(std::uint8_t{255}), 8);
  EXPECT_EQ(sk::nextafter(1.0f, 2.0f), 1.0f + 0x1p-23f);
}

}  // namespace

// ---- numpy (issue 21) ----
// The float overloads of symx/numpy.hpp's primitives: each widens to double and runs a double core, so each
// is correctly rounded but for rare ties (max 1 ulp).
KM_UNARY_TEST(
    ArcsinFloat, [](float x) { return sk::arcsin(x); }, [](double x) { return std::asin(x); }, 1)
KM_UNARY_TEST(
    ArccosFloat, [](float x) { return sk::arccos(x); }, [](double x) { return std::acos(x); }, 1)
KM_UNARY_TEST(
    ArcsinhFloat, [](float x) { return sk::arcsinh(x); }, [](double x) { return std::asinh(x); }, 1)
KM_UNARY_TEST(
    ArccoshFloat, [](float x) { return sk::arccosh(x); }, [](double x) { return std::acosh(x); }, 1)
KM_UNARY_TEST(
    ArctanhFloat, [](float x) { return sk::arctanh(x); }, [](double x) { return std::atanh(x); }, 1)
KM_UNARY_TEST(
    SinhFloat, [](float x) { return sk::sinh(x); }, [](double x) { return std::sinh(x); }, 1)
KM_UNARY_TEST(
    CoshFloat, [](float x) { return sk::cosh(x); }, [](double x) { return std::cosh(x); }, 1)
KM_UNARY_TEST(
    Log2Float, [](float x) { return sk::log2(x); }, [](double x) { return std::log2(x); }, 1)
KM_UNARY_TEST(
    Log10Float, [](float x) { return sk::log10(x); }, [](double x) { return std::log10(x); }, 1)
KM_UNARY_TEST(
    Exp2Float, [](float x) { return sk::exp2(x); }, [](double x) { return std::exp2(x); }, 1)
KM_UNARY_TEST(
    CbrtFloat, [](float x) { return sk::cbrt(x); }, [](double x) { return std::cbrt(x); }, 1)

TEST(KernelMath, NumpyBinaryFloat) {
  // hypot (correctly rounded but for ties), fmod (exact) and copysign over pairs of the unary inputs.
  std::int64_t worst_hypot = 0, worst_fmod = 0, worst_copysign = 0;
  const auto& xs = inputs();
  const std::size_t step_i = xs.size() / 1009 + 1, step_j = xs.size() / 997 + 1;  // a million pairs
  for (std::size_t i = 0; i < xs.size(); i += step_i) {
    for (std::size_t j = 0; j < xs.size(); j += step_j) {
      const float a = xs[i], b = xs[j];
      worst_hypot = std::max(worst_hypot, ulp_diff(sk::hypot(a, b), static_cast<float>(std::hypot(double{a}, b))));
      worst_fmod = std::max(worst_fmod, ulp_diff(sk::fmod(a, b), std::fmod(a, b)));
      worst_copysign = std::max(worst_copysign, ulp_diff(sk::copysign(a, b), std::copysign(a, b)));
      EXPECT_EQ(sk::signbit(a), std::signbit(a)) << a;
    }
  }
  std::printf("[kernel_math] hypot %lld ulp, fmod %lld ulp, copysign %lld ulp\n", static_cast<long long>(worst_hypot),
              static_cast<long long>(worst_fmod), static_cast<long long>(worst_copysign));
  EXPECT_LE(worst_hypot, 1);
  EXPECT_EQ(worst_fmod, 0);
  EXPECT_EQ(worst_copysign, 0);
  EXPECT_EQ(sk::fmod(7, 0), 0);
  EXPECT_EQ(sk::fmod(-7, 3), -1);
  EXPECT_EQ(sk::fmod(std::numeric_limits<std::int32_t>::min(), -1), 0);
  EXPECT_TRUE(sk::signbit(std::int64_t{-1}));
  EXPECT_EQ(sk::hypot(std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()),
            std::numeric_limits<float>::infinity());
}

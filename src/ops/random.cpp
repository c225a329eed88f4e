// Random draws: uniform, normal, truncated normal, bernoulli, randint and permutation.
//
// Every draw is a pure function of (the op's key, the value of the random-state variable, the
// element index), computed with the counter-based Philox4x32-10 generator: the key is the op's
// RandomAttr::key, the counter is (state, element index). The evaluator advances the state after
// every evaluation, so each evaluation draws fresh numbers, and random::seed resets both the keys
// handed to new ops and the state, so the same seed and the same calls give the same numbers.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <string>

#include "core/graph.hpp"
#include "ops/op_table.hpp"
#include "symx/indexing.hpp"

namespace symx {
namespace ops {

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11).
// Not static: the tests check it against the published known-answer vectors.
std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> ctr, std::array<std::uint32_t, 2> key) {
  constexpr std::uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u, W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    std::uint64_t p0 = static_cast<std::uint64_t>(M0) * ctr[0];
    std::uint64_t p1 = static_cast<std::uint64_t>(M1) * ctr[2];
    auto hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    auto hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    ctr = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
    key[0] += W0;
    key[1] += W1;
  }
  return ctr;
}

namespace {

// The four 32-bit words of element `index`'s block.
struct Stream {
  std::array<std::uint32_t, 2> key;
  std::uint64_t state;
  std::array<std::uint32_t, 4> block(std::uint64_t index) const {
    return philox4x32_10({static_cast<std::uint32_t>(state), static_cast<std::uint32_t>(state >> 32),
                          static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32)},
                         key);
  }
};

std::uint64_t bits64(std::uint32_t hi, std::uint32_t lo) { return (static_cast<std::uint64_t>(hi) << 32) | lo; }
// [0, 1) with 53 random mantissa bits.
double unit53(std::uint32_t hi, std::uint32_t lo) { return static_cast<double>(bits64(hi, lo) >> 11) * 0x1p-53; }
// (0, 1) with 53 random bits: never 0 or 1, safe for log and the inverse CDF.
double open53(std::uint32_t hi, std::uint32_t lo) {
  return (static_cast<double>(bits64(hi, lo) >> 11) + 0.5) * 0x1p-53;
}
// [0, 1) with 24 random mantissa bits (exact in float32).
float unit24(std::uint32_t w) { return static_cast<float>(w >> 8) * 0x1p-24f; }
// An integer in [0, range) from 64 random bits (multiply-high; bias below range / 2^64).
std::uint64_t below(std::uint64_t range, std::uint64_t r) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(r) * range) >> 64);
}

double standard_normal(const std::array<std::uint32_t, 4>& w) {
  // Box-Muller: one normal per block (the sine partner is not used, so that element i depends
  // only on block i).
  double u1 = open53(w[0], w[1]), u2 = unit53(w[2], w[3]);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

// Inverse of the standard normal CDF: Acklam's rational approximation refined by one Halley step
// (accurate to about 1e-15 relative).
double normal_quantile(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01, -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  if (p <= 0) return -std::numeric_limits<double>::infinity();
  if (p >= 1) return std::numeric_limits<double>::infinity();
  constexpr double plow = 0.02425;
  double x;
  if (p < plow || p > 1 - plow) {
    double q = std::sqrt(-2 * std::log(p < plow ? p : 1 - p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    if (p > plow) x = -x;
  } else {
    double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  double e = normal_cdf(x) - p;
  double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

// Mills ratio m(x) = Q(x) / phi(x) for x >= 0, where Q is the upper-tail probability and phi the
// density: erfc where it is accurate, the continued fraction m(x) = 1/(x+1/(x+2/(x+3/(x+...))))
// further out, where Q and phi both underflow but their ratio (about 1/x) does not.
double mills_ratio(double x) {
  if (std::isinf(x)) return 0;
  if (x < 8) return 0.5 * std::erfc(x / std::numbers::sqrt2) * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  double tail = x;
  for (int k = 60; k >= 1; --k) tail = x + k / tail;
  return 1 / tail;
}

// A standard normal restricted to [a, b] with a >= 0 far in the upper tail, by inversion of the
// tail probability in log space: log Q(x) - log Q(a) = -(x^2 - a^2)/2 + log(m(x)/m(a)) never
// underflows, unlike the CDF beyond about 38 standard deviations. Solves
// log Q(x) - log Q(a) = log(1 - v (1 - Q(b)/Q(a))) by Newton's method, whose derivative is
// -1/m(x); log Q is concave, so the iterates converge monotonically after the first step.
double upper_tail_normal(double a, double b, double v) {
  const double ma = mills_ratio(a);
  auto log_ratio = [&](double x) { return -(x - a) * (x + a) / 2 + std::log(mills_ratio(x) / ma); };
  double mass = std::isinf(b) ? 1.0 : -std::expm1(log_ratio(b));  // 1 - Q(b)/Q(a)
  double target = std::log1p(-v * mass);
  double x = std::min(std::sqrt(a * a - 2 * target), b);
  for (int i = 0; i < 50; ++i) {
    double next = std::clamp(x + (log_ratio(x) - target) * mills_ratio(x), a, b);
    if (std::abs(next - x) <= 1e-15 * x) return next;
    x = next;
  }
  return x;
}

// Beyond this many standard deviations the tail sampler replaces the inversion of the CDF.
constexpr double far_tail = 5;

// A standard normal restricted to [lo, hi] by inversion of the CDF; v in (0, 1). Works in the
// lower tail (by symmetry) where the CDF keeps its precision, and far in either tail in log space.
double truncated_standard_normal(double lo, double hi, double v) {
  if (lo >= far_tail) return upper_tail_normal(lo, hi, v);
  if (hi <= -far_tail) return -upper_tail_normal(-hi, -lo, v);
  bool flip = lo > 0;
  if (flip) std::swap(lo, hi), lo = -lo, hi = -hi;
  double plo = normal_cdf(lo), phi = normal_cdf(hi);
  double x;
  if (!(phi > plo)) {
    x = hi;  // both bounds so far in the tail that the CDF cannot tell them apart
  } else {
    x = normal_quantile(plo + (phi - plo) * v);
  }
  x = std::clamp(x, lo, hi);
  return flip ? -x : x;
}

// Stores `value` (computed in double) into element i of the output of a float dtype, keeping it
// below `high` when the rounding to float32 would reach it.
template <class T> T to_float_below(double value, double high) {
  T v = static_cast<T>(value);
  if (static_cast<double>(v) >= high) v = std::nextafter(static_cast<T>(high), -std::numeric_limits<T>::infinity());
  return v;
}

const RandomAttr& random_attr(const Attr& attr) {
  const auto* a = std::get_if<RandomAttr>(&attr);
  check_internal(a != nullptr, "random op without RandomAttr");
  return *a;
}

std::string num(double v) {
  std::string s = std::to_string(v);
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

// The problem with the parameters of a random op, if any (shared by the public functions, which
// report it with the user's location, and the infer rules, which guard clone and make_node).
template <OpKind op> std::optional<TypeProblem> check_params(const RandomAttr& p) {
  using K = TypeProblem::Kind;
  for (auto d : p.shape)
    if (d < 0 && !is_symbol(d))  // an unknown size (a batch of None) takes the call's size
      return TypeProblem{K::shape, "negative dimension in shape " + shape_string(p.shape),
                         "Every dimension must be zero or more."};
  if constexpr (op == OpKind::RandomUniform) {
    if (!is_floating(p.dtype))
      return TypeProblem{K::dtype, "dtype " + std::string(dtype_name(p.dtype)) + " is not a floating type",
                         "Use float32 or float64; for integers use random::randint."};
    if (!std::isfinite(p.a) || !std::isfinite(p.b) || !(p.a < p.b))
      return TypeProblem{K::value, "low (" + num(p.a) + ") must be finite and less than high (" + num(p.b) + ")",
                         "Pass low < high, e.g. uniform(shape, 0, 1)."};
    return std::nullopt;
  } else if constexpr (op == OpKind::RandomNormal || op == OpKind::RandomTruncatedNormal) {
    double mean = op == OpKind::RandomNormal ? p.a : p.mean, stddev = op == OpKind::RandomNormal ? p.b : p.stddev;
    if (!is_floating(p.dtype))
      return TypeProblem{K::dtype, "dtype " + std::string(dtype_name(p.dtype)) + " is not a floating type",
                         "Use float32 or float64."};
    if (!std::isfinite(mean))
      return TypeProblem{K::value, "mean (" + num(mean) + ") is not finite", "Pass a finite mean."};
    if (!std::isfinite(stddev) || stddev < 0)
      return TypeProblem{K::value, "stddev (" + num(stddev) + ") must be finite and non-negative",
                         "Pass a standard deviation >= 0."};
    if (op == OpKind::RandomTruncatedNormal && (std::isnan(p.a) || std::isnan(p.b) || !(p.a < p.b)))
      return TypeProblem{K::value, "lower (" + num(p.a) + ") must be less than upper (" + num(p.b) + ")",
                         "Pass lower < upper in standard deviations, e.g. -2 and 2."};
    return std::nullopt;
  } else if constexpr (op == OpKind::RandomBernoulli) {
    if (!(p.a >= 0 && p.a <= 1))
      return TypeProblem{K::value, "p (" + num(p.a) + ") is outside [0, 1]", "Pass a probability between 0 and 1."};
    return std::nullopt;
  } else if constexpr (op == OpKind::RandomRandint) {
    if (p.dtype != DType::i32 && p.dtype != DType::i64)
      return TypeProblem{K::dtype, "dtype " + std::string(dtype_name(p.dtype)) + " is not int32 or int64",
                         "Use int32 or int64, and cast the result if another type is needed."};
    constexpr double exact = 0x1p53;
    if (!(p.a >= -exact && p.b <= exact))
      return TypeProblem{K::value, "the bounds [" + num(p.a) + ", " + num(p.b) + ") exceed +-2^53",
                         "Use bounds of magnitude at most 2^53."};
    if (!(p.a < p.b))
      return TypeProblem{K::value, "low (" + num(p.a) + ") must be less than high (" + num(p.b) + ")",
                         "Pass low < high; the draws are in [low, high)."};
    if (p.dtype == DType::i32 && (p.a < -0x1p31 || p.b > 0x1p31))
      return TypeProblem{K::value, "the bounds [" + num(p.a) + ", " + num(p.b) + ") do not fit int32",
                         "Use dtype int64, or bounds within [-2^31, 2^31]."};
    return std::nullopt;
  } else if constexpr (op == OpKind::RandomPermutation) {
    if (!(p.a >= 0)) return TypeProblem{K::value, "n (" + num(p.a) + ") is negative", "Pass n >= 0."};
    return std::nullopt;
  } else if constexpr (op == OpKind::RandomGamma) {
    if (!is_floating(p.dtype))
      return TypeProblem{K::dtype, "dtype " + std::string(dtype_name(p.dtype)) + " is not a floating type",
                         "Use float32 or float64."};
    return std::nullopt;
  } else if constexpr (op == OpKind::RandomPoisson) {
    if (p.dtype != DType::i32 && p.dtype != DType::i64)
      return TypeProblem{K::dtype, "dtype " + std::string(dtype_name(p.dtype)) + " is not int32 or int64",
                         "Use int32 or int64."};
    return std::nullopt;
  } else {
    static_assert(op != op, "check_params: a random op without a parameter check");
  }
}

template <OpKind op> TensorType infer(const std::vector<Tensor>& in, const Attr& attr) {
  if (in.size() != 1 || in[0].dtype() != DType::i64 || !in[0].shape().empty())
    fail_value("expects one input, the graph's int64 random-state scalar",
               "Build random draws with the functions in symx::random.");
  const RandomAttr& p = random_attr(attr);
  if (auto problem = check_params<op>(p)) throw *problem;
  return {p.shape, p.dtype};
}

template <OpKind op> Array evaluate(const EvalArgs& args) {
  const RandomAttr& p = random_attr(args.node.attr);
  Stream s{{static_cast<std::uint32_t>(p.key), static_cast<std::uint32_t>(p.key >> 32)},
           static_cast<std::uint64_t>(args.inputs[0].item<std::int64_t>())};
  Array out(p.shape, p.dtype);
  auto n = static_cast<std::uint64_t>(out.size());
  visit_dtype(p.dtype, [&]<class T>() {
    T* data = out.data<T>();
    if constexpr (op == OpKind::RandomUniform) {
      if constexpr (std::is_floating_point_v<T>) {
        for (std::uint64_t i = 0; i < n; ++i) {
          auto w = s.block(i);
          double u = std::is_same_v<T, float> ? static_cast<double>(unit24(w[0])) : unit53(w[0], w[1]);
          data[i] = to_float_below<T>(p.a + (p.b - p.a) * u, p.b);
        }
      }
    } else if constexpr (op == OpKind::RandomNormal) {
      if constexpr (std::is_floating_point_v<T>)
        for (std::uint64_t i = 0; i < n; ++i) data[i] = static_cast<T>(p.a + p.b * standard_normal(s.block(i)));
    } else if constexpr (op == OpKind::RandomTruncatedNormal) {
      if constexpr (std::is_floating_point_v<T>) {
        double lo = p.mean + p.stddev * p.a, hi = p.mean + p.stddev * p.b;
        for (std::uint64_t i = 0; i < n; ++i) {
          auto w = s.block(i);
          double x = p.mean + p.stddev * truncated_standard_normal(p.a, p.b, open53(w[0], w[1]));
          T v = static_cast<T>(std::clamp(x, lo, hi));
          // Rounding to float32 must not leave [lo, hi].
          if (static_cast<double>(v) < lo) v = std::nextafter(v, std::numeric_limits<T>::infinity());
          if (static_cast<double>(v) > hi) v = std::nextafter(v, -std::numeric_limits<T>::infinity());
          data[i] = v;
        }
      }
    } else if constexpr (op == OpKind::RandomBernoulli) {
      for (std::uint64_t i = 0; i < n; ++i) {
        auto w = s.block(i);
        data[i] = static_cast<T>(unit53(w[0], w[1]) < p.a);
      }
    } else if constexpr (op == OpKind::RandomRandint) {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        auto low = static_cast<std::int64_t>(p.a), high = static_cast<std::int64_t>(p.b);
        auto range = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
        for (std::uint64_t i = 0; i < n; ++i) {
          auto w = s.block(i);
          data[i] = static_cast<T>(static_cast<std::uint64_t>(low) + below(range, bits64(w[0], w[1])));
        }
      }
    } else if constexpr (op == OpKind::RandomPermutation) {
      if constexpr (std::is_same_v<T, std::int64_t>) {
        // Fisher-Yates, step i drawing from block i.
        for (std::uint64_t i = 0; i < n; ++i) data[i] = static_cast<std::int64_t>(i);
        for (std::uint64_t i = n; i-- > 1;) {
          auto w = s.block(i);
          std::swap(data[i], data[below(i + 1, bits64(w[0], w[1]))]);
        }
      }
    }
  });
  return out;
}

// ---- gamma and poisson: one parameter tensor (input 1) of the output's shape ----

// Block `r` of element i's own sequence of blocks (rejection samplers use several).
std::array<std::uint32_t, 4> nth_block(const Stream& s, std::uint64_t i, std::uint64_t r) {
  return s.block(i + (r << 40));
}

// Gamma(a, 1) by Marsaglia and Tsang (2000); a < 1 by the boost G(a) = G(a + 1) U^(1/a), in log space.
double gamma_draw(const Stream& s, std::uint64_t i, double a) {
  if (!(a > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(a)) return a;
  double boost = 0;
  if (a < 1) {
    auto w = nth_block(s, i, (1ull << 23) - 1);
    boost = std::log(open53(w[0], w[1])) / a;
    a += 1;
  }
  const double d = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (std::uint64_t r = 0;; r += 2) {
    double x = standard_normal(nth_block(s, i, r));
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    auto w = nth_block(s, i, r + 1);
    double u = open53(w[0], w[1]);
    if (u < 1 - 0.0331 * x * x * x * x || std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v)))
      return std::exp(std::log(d * v) + boost);
  }
}

// Poisson(lam): multiplication of uniforms (inversion) below 10, Hormann's PTRS (1993) above.
double poisson_draw(const Stream& s, std::uint64_t i, double lam) {
  if (!(lam >= 0)) return -1;
  if (lam == 0) return 0;
  if (std::isinf(lam)) return -1;
  if (lam < 10) {
    const double limit = std::exp(-lam);
    double prod = 1;
    for (std::uint64_t r = 0;; ++r) {
      auto w = nth_block(s, i, r);
      for (int h = 0; h < 2; ++h) {
        prod *= unit53(w[2 * h], w[2 * h + 1]);
        if (prod <= limit) return static_cast<double>(2 * r + h);
      }
    }
  }
  const double slam = std::sqrt(lam), loglam = std::log(lam);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (std::uint64_t r = 0;; ++r) {
    auto w = nth_block(s, i, r);
    double u = unit53(w[0], w[1]) - 0.5, v = open53(w[2], w[3]);
    double us = 0.5 - std::abs(u);
    double k = std::floor((2 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(invalpha) - std::log(a / (us * us) + b) <= -lam + k * loglam - std::lgamma(k + 1))
      return k;
  }
}

// The derivative of a Gamma(a, 1) draw x with respect to a at a fixed quantile (implicit
// reparameterization, as JAX's random_gamma_grad): dx/da = -(dP/da)(a, x) / p(a, x), P the
// regularized lower incomplete gamma function and p the density. dP/da is the derivative of P's
// series sum_n x^(a+n) e^-x / Gamma(a+n+1), term by term; for a > 1e4 the normal limit
// x = a + sqrt(a) z gives (x + a) / (2a). x = 0 (an underflowed draw) gives 0.
double gamma_digamma(double y) {
  double r = 0;
  while (y < 6) r -= 1 / y, y += 1;
  const double f = 1 / (y * y);
  return r + std::log(y) - 0.5 / y -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
}
double random_gamma_grad(double a, double x) {
  if (!(a > 0) || x != x) return std::numeric_limits<double>::quiet_NaN();
  if (!(x > 0)) return 0;
  if (x == std::numeric_limits<double>::infinity()) return x;
  if (a > 1e4) return (x + a) / (2 * a);
  const double logx = std::log(x);
  double term = std::exp(a * logx - x - std::lgamma(a + 1));
  double psi = gamma_digamma(a + 1), dp = term * (logx - psi);
  const double tol = 1e-17;
  for (int n = 1; n < 200000; ++n) {
    term *= x / (a + n);
    psi += 1 / (a + n);
    const double d = term * (logx - psi);
    dp += d;
    if (n > x - a && term < tol && std::abs(d) < tol * std::abs(dp)) break;
  }
  const double log_density = (a - 1) * logx - x - std::lgamma(a);
  return -dp / std::exp(log_density);
}

TensorType infer_gamma_grad(const std::vector<Tensor>& in, const Attr&) {
  if (!is_floating(in[0].dtype()) || in[0].dtype() != in[1].dtype())
    fail_dtype("random_gamma_grad takes two floating tensors of one dtype, got " +
                   std::string(dtype_name(in[0].dtype())) + " and " + std::string(dtype_name(in[1].dtype())),
               "It is built by the gradient of random.gamma.");
  return {broadcast_shapes(in[0].shape(), in[1].shape()), in[0].dtype()};
}
Array evaluate_gamma_grad(const EvalArgs& args) {
  const Shape& shape = args.node.type.shape;
  Array out(shape, args.node.type.dtype);
  if (out.size() == 0) return out;
  auto sa = broadcast_strides(args.inputs[0].shape(), shape), sb = broadcast_strides(args.inputs[1].shape(), shape);
  IndexCounter counter(shape);
  std::int64_t flat = 0;
  do {
    std::int64_t ia = 0, ib = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) ia += counter.index[d] * sa[d], ib += counter.index[d] * sb[d];
    out.set_flat(flat++, random_gamma_grad(args.inputs[0].get_flat(ia), args.inputs[1].get_flat(ib)));
  } while (counter.next());
  return out;
}
std::vector<Tensor> vjp_gamma_grad(const Tensor&, const Tensor&) {
  throw ValueError(
      "random.gamma: the second derivative of a gamma draw with respect to its shape parameter is not "
      "implemented.");
}

template <OpKind op> TensorType infer_param(const std::vector<Tensor>& in, const Attr& attr) {
  if (in.size() != 2 || in[0].dtype() != DType::i64 || !in[0].shape().empty())
    fail_value("expects the graph's int64 random-state scalar and a parameter tensor",
               "Build random draws with the functions in symx::random.");
  const RandomAttr& p = random_attr(attr);
  if (auto problem = check_params<op>(p)) throw *problem;
  if (!is_floating(in[1].dtype()))
    fail_dtype("the parameter has dtype " + std::string(dtype_name(in[1].dtype())), "Pass a floating parameter.");
  if (in[1].shape() != p.shape)
    fail_shape("the parameter's shape " + shape_string(in[1].shape()) + " differs from the draw's " +
                   shape_string(p.shape),
               "Broadcast the parameter to the draw's shape.");
  return {p.shape, p.dtype};
}

template <OpKind op> Array evaluate_param(const EvalArgs& args) {
  const RandomAttr& p = random_attr(args.node.attr);
  Stream s{{static_cast<std::uint32_t>(p.key), static_cast<std::uint32_t>(p.key >> 32)},
           static_cast<std::uint64_t>(args.inputs[0].item<std::int64_t>())};
  const Array& param = args.inputs[1];
  Array out(p.shape, p.dtype);
  auto n = static_cast<std::uint64_t>(out.size());
  for (std::uint64_t i = 0; i < n; ++i) {
    double v = param.get_flat(static_cast<std::int64_t>(i));
    out.set_flat(static_cast<std::int64_t>(i), op == OpKind::RandomGamma ? gamma_draw(s, i, v) : poisson_draw(s, i, v));
  }
  return out;
}

// Implicit reparameterization, as JAX: the draw moves with its shape parameter at a fixed quantile.
std::vector<Tensor> vjp_gamma(const Tensor& y, const Tensor& g) {
  const Tensor& a = y.node().inputs[1];
  return {Tensor(), multiply(g, make_node(OpKind::RandomGammaGrad, {a, y}))};
}

// Random draws have no gradient: the draw does not depend on a differentiable input.
template <OpKind... ops> void define_all() {
  (define(ops, row(Family::random, 1, Lowering::reference, infer<ops>, evaluate<ops>, no_gradient)), ...);
}

}  // namespace

}  // namespace ops

namespace random {

// A Seed's stream: its number, its random state (made at the first draw, in that draw's graph) and the
// count of keys handed out.
struct SeedStream {
  std::uint64_t seed = 0;
  Tensor state;
  std::uint64_t count = 0;
  std::int64_t pending_state = 0;  // the state's first value (moved by update before the first draw)
};

namespace {
std::uint64_t splitmix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

Seed::Seed(std::uint64_t seed, int) : stream_(std::make_shared<SeedStream>()) { stream_->seed = seed; }

std::uint64_t Seed::operator*() const {
  if (!stream_)
    throw ValueError("Seed: no seed was given (Seed() or None) so it has no value; check it with bool(seed).");
  return stream_->seed;
}

Tensor Seed::state() const { return stream_ ? stream_->state : Tensor(); }

void Seed::update(std::optional<std::uint64_t> other_seed) const {
  if (!stream_)
    throw ValueError(
        "Seed.update: this is no seed (Seed() or None): its draws use the graph's generator. Reseed "
        "that with random.seed(n), or give the draws a Seed(n).");
  SeedStream& s = *stream_;
  // Given other_seed: a state that is a function of other_seed only. Otherwise a jump of 2^40
  // evaluations, a fresh part of the stream (as a split of the key).
  std::int64_t next = 0;
  if (other_seed) next = static_cast<std::int64_t>(splitmix64(*other_seed * 0x9E3779B97F4A7C15ull + 1) >> 2);
  else next = (s.state.defined() ? s.state.value().item<std::int64_t>() : s.pending_state) + (std::int64_t{1} << 40);
  if (!s.state.defined()) {  // no draw yet: the first one starts there
    s.pending_state = next;
    return;
  }
  Array v = Array::zeros({}, DType::i64);
  v.data<std::int64_t>()[0] = next;
  s.state.assign(v);
}

}  // namespace random

namespace ops {

// Where a draw's numbers come from: the graph's generator, or a Seed's stream (its own, or one that
// several draws share; the draws of one composite share the stream of the composite's seed).
struct Source {
  explicit Source(random::Seed s = std::nullopt) : seed(std::move(s)) {}
  random::Seed seed;
  Tensor state_tensor() {
    if (!seed) return default_graph().random_state();
    random::SeedStream& s = *seed.stream();
    if (!s.state.defined()) {
      auto node = std::make_shared<Node>();
      node->op = OpKind::Variable;
      node->type = {Shape{}, DType::i64};
      node->name = "random_state_seed_" + std::to_string(s.seed);
      node->id = default_graph().next_node_id();
      Array start = Array::zeros({}, DType::i64);
      start.data<std::int64_t>()[0] = s.pending_state;
      node->variable = detail::make_variable_state(start, false);
      s.state = Tensor(std::move(node));
    }
    return s.state;
  }
  std::uint64_t key() {
    if (!seed) return default_graph().next_random_key();
    random::SeedStream& s = *seed.stream();
    // splitmix64 of (seed, draw number)
    return random::splitmix64(s.seed * 0x9E3779B97F4A7C15ull + (++s.count) * 0xD1B54A32D192ED03ull);
  }
};

namespace {

template <OpKind op> Tensor draw(const char* name, RandomAttr attr, Loc loc, Source* source = nullptr) {
  if (auto problem = check_params<op>(attr)) raise(name, {}, *problem, loc);
  Source global;
  Source& src = source ? *source : global;
  attr.key = src.key();
  return make_node(op, {src.state_tensor()}, std::move(attr), loc, name);
}

template <OpKind op> Tensor draw_param(const char* name, RandomAttr attr, const Tensor& param, Loc loc, Source& src) {
  if (auto problem = check_params<op>(attr)) raise(name, {param}, *problem, loc);
  attr.key = src.key();
  return make_node(op, {src.state_tensor(), param}, std::move(attr), loc, name);
}

}  // namespace

void register_random_ops() {
  using K = OpKind;
  define_all<K::RandomUniform, K::RandomNormal, K::RandomTruncatedNormal, K::RandomBernoulli, K::RandomRandint,
             K::RandomPermutation>();
  define(K::RandomGamma, row(Family::random, 2, Lowering::reference, infer_param<K::RandomGamma>,
                             evaluate_param<K::RandomGamma>, vjp_gamma));
  define(K::RandomGammaGrad,
         row(Family::elementwise, 2, Lowering::kernel, infer_gamma_grad, evaluate_gamma_grad, vjp_gamma_grad));
  define(K::RandomPoisson, row(Family::random, 2, Lowering::reference, infer_param<K::RandomPoisson>,
                               evaluate_param<K::RandomPoisson>, no_gradient));
}

}  // namespace ops

namespace random {

using ops::draw;
using ops::Source;

void seed(std::uint64_t seed) { default_graph().seed(seed); }

namespace {

using Kind = ops::TypeProblem::Kind;

Tensor uniform_from(Source& src, Shape shape, double low, double high, DType dtype, Loc loc) {
  RandomAttr attr;
  attr.a = low, attr.b = high, attr.shape = std::move(shape), attr.dtype = dtype;
  return draw<OpKind::RandomUniform>("random.uniform", std::move(attr), loc, &src);
}
Tensor normal_from(Source& src, Shape shape, double mean, double stddev, DType dtype, Loc loc) {
  RandomAttr attr;
  attr.a = mean, attr.b = stddev, attr.shape = std::move(shape), attr.dtype = dtype;
  return draw<OpKind::RandomNormal>("random.normal", std::move(attr), loc, &src);
}

void check_float(const char* name, DType dtype, Loc loc) {
  if (!is_floating(dtype))
    ops::raise(name, {},
               {Kind::dtype, "dtype " + std::string(dtype_name(dtype)) + " is not a floating type",
                "Use float32 or float64."},
               loc);
}

// Uniform draws in (0, 1): never 0 (the smallest normal number instead), so that logs stay finite.
Tensor open_uniform(Source& src, const Shape& shape, DType dtype, Loc loc) {
  double tiny = dtype == DType::f64 ? std::numeric_limits<double>::min() : std::numeric_limits<float>::min();
  return uniform_from(src, shape, tiny, 1, dtype, loc);
}

Tensor param(const Operand& v, DType dtype, Loc loc) {
  if (!v.is_tensor()) return constant(v.number(), dtype, loc);
  return v.tensor().dtype() == dtype ? v.tensor() : cast(v.tensor(), dtype, loc);
}

// The draw's shape: `shape`, or the parameters' broadcast shape; the parameters broadcast to it.
Shape draw_shape(const char* name, const std::vector<Tensor>& params, const std::optional<Shape>& shape, Loc loc) {
  Shape b;
  try {
    for (const auto& p : params) b = ops::broadcast_shapes(b, p.shape());
    if (!shape) return b;
    if (ops::broadcast_shapes(b, *shape) != *shape) throw ops::TypeProblem{Kind::shape, "", ""};
  } catch (const ops::TypeProblem&) {
    std::string shapes;
    for (const auto& p : params) shapes += (shapes.empty() ? "" : ", ") + shape_string(p.shape());
    ops::raise(name, params,
               {Kind::shape,
                "the parameters of shapes " + shapes + " do not broadcast to the shape " +
                    (shape ? shape_string(*shape) : std::string("of each other")),
                "Pass parameters that broadcast to `shape`, or leave shape None."},
               loc);
  }
  return *shape;
}

Tensor gamma_from(Source& src, const Tensor& a, DType dtype, Loc loc) {
  RandomAttr attr;
  attr.shape = a.shape(), attr.dtype = dtype;
  return ops::draw_param<OpKind::RandomGamma>("random.gamma", std::move(attr), a, loc, src);
}

}  // namespace

Tensor uniform(Shape shape, double low, double high, DType dtype, Seed seed, Loc loc) {
  Source src(seed);
  return uniform_from(src, std::move(shape), low, high, dtype, loc);
}
Tensor uniform(Shape shape, double low, double high, DType dtype, Loc loc) {
  return uniform(std::move(shape), low, high, dtype, std::nullopt, loc);
}

Tensor normal(Shape shape, double mean, double stddev, DType dtype, Seed seed, Loc loc) {
  Source src(seed);
  return normal_from(src, std::move(shape), mean, stddev, dtype, loc);
}
Tensor normal(Shape shape, double mean, double stddev, DType dtype, Loc loc) {
  return normal(std::move(shape), mean, stddev, dtype, std::nullopt, loc);
}

Tensor truncated_normal(Shape shape, double mean, double stddev, double lower, double upper, DType dtype, Seed seed,
                        Loc loc) {
  RandomAttr attr;
  attr.a = lower, attr.b = upper, attr.mean = mean, attr.stddev = stddev, attr.shape = std::move(shape),
  attr.dtype = dtype;
  Source src(seed);
  return draw<OpKind::RandomTruncatedNormal>("random.truncated_normal", std::move(attr), loc, &src);
}
Tensor truncated_normal(Shape shape, double mean, double stddev, double lower, double upper, DType dtype, Loc loc) {
  return truncated_normal(std::move(shape), mean, stddev, lower, upper, dtype, std::nullopt, loc);
}

Tensor bernoulli(Shape shape, double p, DType dtype, Seed seed, Loc loc) {
  RandomAttr attr;
  attr.a = p, attr.b = 0, attr.shape = std::move(shape), attr.dtype = dtype;
  Source src(seed);
  return draw<OpKind::RandomBernoulli>("random.bernoulli", std::move(attr), loc, &src);
}
Tensor bernoulli(Shape shape, double p, DType dtype, Loc loc) {
  return bernoulli(std::move(shape), p, dtype, std::nullopt, loc);
}

Tensor randint(Shape shape, std::int64_t low, std::int64_t high, DType dtype, Seed seed, Loc loc) {
  RandomAttr attr;
  attr.a = static_cast<double>(low), attr.b = static_cast<double>(high), attr.shape = std::move(shape),
  attr.dtype = dtype;
  // The bounds travel as doubles: exact up to 2^53, checked in check_params.
  if (low >= high)
    ops::raise("random.randint", {},
               {Kind::value, "low (" + std::to_string(low) + ") must be less than high (" + std::to_string(high) + ")",
                "Pass low < high; the draws are in [low, high)."},
               loc);
  Source src(seed);
  return draw<OpKind::RandomRandint>("random.randint", std::move(attr), loc, &src);
}
Tensor randint(Shape shape, std::int64_t low, std::int64_t high, DType dtype, Loc loc) {
  return randint(std::move(shape), low, high, dtype, std::nullopt, loc);
}

Tensor permutation(std::int64_t n, Seed seed, Loc loc) {
  RandomAttr attr;
  attr.a = static_cast<double>(n), attr.b = 0, attr.shape = {n < 0 ? 0 : n}, attr.dtype = DType::i64;
  if (n < 0)
    ops::raise("random.permutation", {}, {Kind::value, "n (" + std::to_string(n) + ") is negative", "Pass n >= 0."},
               loc);
  Source src(seed);
  return draw<OpKind::RandomPermutation>("random.permutation", std::move(attr), loc, &src);
}
Tensor permutation(std::int64_t n, Loc loc) { return permutation(n, std::nullopt, loc); }

Tensor cauchy(Shape shape, DType dtype, Seed seed, Loc loc) {
  check_float("random.cauchy", dtype, loc);
  Source src(seed);
  Tensor u = open_uniform(src, shape, dtype, loc);
  return named_composite("random.cauchy", tan(multiply(subtract(u, 0.5, loc), std::numbers::pi, loc), loc));
}

Tensor exponential(Shape shape, DType dtype, Seed seed, Loc loc) {
  check_float("random.exponential", dtype, loc);
  Source src(seed);
  Tensor u = uniform_from(src, shape, 0, 1, dtype, loc);
  return named_composite("random.exponential", negative(log1p(negative(u, loc), loc), loc));
}

Tensor gumbel(Shape shape, DType dtype, Seed seed, Loc loc) {
  check_float("random.gumbel", dtype, loc);
  Source src(seed);
  Tensor u = open_uniform(src, shape, dtype, loc);
  return named_composite("random.gumbel", negative(log(negative(log(u, loc), loc), loc), loc));
}

Tensor laplace(Shape shape, DType dtype, Seed seed, Loc loc) {
  check_float("random.laplace", dtype, loc);
  Source src(seed);
  // u in (-1, 1): sign(u) * log(1 - |u|) is a standard Laplace draw.
  double eps = dtype == DType::f64 ? 0x1p-52 : 0x1p-23;
  Tensor u = uniform_from(src, shape, -1 + eps, 1, dtype, loc);
  return named_composite("random.laplace", multiply(sign(u, loc), log1p(negative(abs(u, loc), loc), loc), loc));
}

Tensor logistic(Shape shape, DType dtype, Seed seed, Loc loc) {
  check_float("random.logistic", dtype, loc);
  Source src(seed);
  Tensor u = open_uniform(src, shape, dtype, loc);
  return named_composite("random.logistic", subtract(log(u, loc), log1p(negative(u, loc), loc), loc));
}

Tensor pareto(const Operand& b, std::optional<Shape> shape, DType dtype, Seed seed, Loc loc) {
  check_float("random.pareto", dtype, loc);
  Tensor bt = param(b, dtype, loc);
  Shape s = draw_shape("random.pareto", {bt}, shape, loc);
  Tensor e = exponential(s, dtype, seed, loc);
  return named_composite("random.pareto", exp(divide(e, bt, loc), loc));
}

Tensor gamma(const Operand& a, std::optional<Shape> shape, DType dtype, Seed seed, Loc loc) {
  check_float("random.gamma", dtype, loc);
  Tensor at = param(a, dtype, loc);
  Shape s = draw_shape("random.gamma", {at}, shape, loc);
  Source src(seed);
  return gamma_from(src, broadcast_to(at, s, loc), dtype, loc);
}

Tensor beta(const Operand& a, const Operand& b, std::optional<Shape> shape, DType dtype, Seed seed, Loc loc) {
  check_float("random.beta", dtype, loc);
  Tensor at = param(a, dtype, loc), bt = param(b, dtype, loc);
  Shape s = draw_shape("random.beta", {at, bt}, shape, loc);
  Source src(seed);
  Tensor ga = gamma_from(src, broadcast_to(at, s, loc), dtype, loc);
  Tensor gb = gamma_from(src, broadcast_to(bt, s, loc), dtype, loc);
  return named_composite("random.beta", divide(ga, add(ga, gb, loc), loc));
}

Tensor dirichlet(const Tensor& alpha, std::optional<Shape> shape, DType dtype, Seed seed, Loc loc) {
  check_float("random.dirichlet", dtype, loc);
  if (alpha.ndim() < 1)
    ops::raise("random.dirichlet", {alpha},
               {Kind::shape, "alpha is a scalar", "Pass concentrations of shape (..., K)."}, loc);
  Tensor at = param(alpha, dtype, loc);
  Shape batch(at.shape().begin(), at.shape().end() - 1);
  Tensor batch_view = reshape(slice(at, {Index::ellipsis(), Index(0)}, loc), batch, loc);
  Shape s = draw_shape("random.dirichlet", {batch_view}, shape, loc);
  s.push_back(at.shape().back());
  Source src(seed);
  Tensor g = gamma_from(src, broadcast_to(at, s, loc), dtype, loc);
  return named_composite("random.dirichlet", divide(g, sum(g, -1, true, loc), loc));
}

Tensor poisson(const Operand& lam, std::optional<Shape> shape, DType dtype, Seed seed, Loc loc) {
  Tensor lt = lam.is_tensor() ? lam.tensor() : constant(lam.number(), DType::f64, loc);
  if (!is_floating(lt.dtype())) lt = cast(lt, DType::f64, loc);
  Shape s = draw_shape("random.poisson", {lt}, shape, loc);
  RandomAttr attr;
  attr.shape = s, attr.dtype = dtype;
  Source src(seed);
  return ops::draw_param<OpKind::RandomPoisson>("random.poisson", std::move(attr), broadcast_to(lt, s, loc), loc, src);
}

Tensor t(const Operand& df, std::optional<Shape> shape, DType dtype, Seed seed, Loc loc) {
  check_float("random.t", dtype, loc);
  Tensor dft = param(df, dtype, loc);
  Shape s = draw_shape("random.t", {dft}, shape, loc);
  Source src(seed);
  Tensor n = normal_from(src, s, 0, 1, dtype, loc);
  Tensor half = broadcast_to(multiply(dft, 0.5, loc), s, loc);
  Tensor g = gamma_from(src, half, dtype, loc);
  return named_composite("random.t", multiply(n, sqrt(divide(half, g, loc), loc), loc));
}

Tensor categorical(const Tensor& logits, int axis, std::optional<Shape> shape, Seed seed, Loc loc) {
  if (logits.ndim() < 1)
    ops::raise("random.categorical", {logits}, {Kind::shape, "logits is a scalar", "Pass logits of shape (..., K)."},
               loc);
  int ax = 0;
  try {
    ax = ops::checked_axis(axis, logits.ndim());
  } catch (const ops::TypeProblem& p) {
    ops::raise("random.categorical", {logits}, p, loc);
  }
  DType f = logits.dtype() == DType::f64 ? DType::f64 : DType::f32;
  Tensor lg = cast(logits, f, loc);
  // The class axis last.
  std::vector<int> perm;
  for (int d = 0; d < lg.ndim(); ++d)
    if (d != ax) perm.push_back(d);
  perm.push_back(ax);
  lg = transpose(lg, perm, loc);
  Shape batch(lg.shape().begin(), lg.shape().end() - 1);
  Tensor batch_view = reshape(slice(lg, {Index::ellipsis(), Index(0)}, loc), batch, loc);
  Shape s = draw_shape("random.categorical", {batch_view}, shape, loc);
  s.push_back(lg.shape().back());
  Source src(seed);
  Tensor u = open_uniform(src, s, f, loc);
  Tensor g = negative(log(negative(log(u, loc), loc), loc), loc);
  return named_composite("random.categorical", argmax(add(g, lg, loc), -1, false, loc));
}

Tensor multivariate_normal(const Tensor& mean, const Tensor& cov, std::optional<Shape> shape, DType dtype,
                           const std::string& method, Seed seed, Loc loc) {
  const char* name = "random.multivariate_normal";
  check_float(name, dtype, loc);
  if (method != "cholesky")
    ops::raise(name, {mean, cov},
               {Kind::value, "method '" + method + "'", "Use method=\"cholesky\" (the only one symx has)."}, loc);
  if (mean.ndim() < 1 || cov.ndim() < 2 || cov.shape()[cov.shape().size() - 1] != cov.shape()[cov.shape().size() - 2] ||
      cov.shape().back() != mean.shape().back())
    ops::raise(name, {mean, cov},
               {Kind::shape,
                "mean of shape " + shape_string(mean.shape()) + " and cov of shape " + shape_string(cov.shape()),
                "Pass mean (..., n) and cov (..., n, n)."},
               loc);
  Tensor m = param(mean, dtype, loc), c = param(cov, dtype, loc);
  std::int64_t n = m.shape().back();
  Tensor mb = reshape(slice(m, {Index::ellipsis(), Index(0)}, loc), Shape(m.shape().begin(), m.shape().end() - 1), loc);
  Tensor cb = reshape(slice(c, {Index::ellipsis(), Index(0), Index(0)}, loc),
                      Shape(c.shape().begin(), c.shape().end() - 2), loc);
  Shape s = draw_shape(name, {mb, cb}, shape, loc);
  Shape zs = s;
  zs.push_back(n);
  zs.push_back(1);
  Source src(seed);
  Tensor z = normal_from(src, zs, 0, 1, dtype, loc);
  Tensor l = linalg::cholesky(c, loc);
  Tensor x = reshape(matmul(l, z, loc), Shape(zs.begin(), zs.end() - 1), loc);
  return named_composite("random.multivariate_normal", add(m, x, loc));
}

Tensor choice(const Tensor& a, Shape shape, bool replace, const std::optional<Tensor>& p, int axis, Seed seed,
              Loc loc) {
  const char* name = "random.choice";
  Tensor arr = a;
  if (a.ndim() == 0) {
    // choice(n): draws from arange(n); n must be known when the graph is built.
    if (!is_integer(a.dtype()) || a.op() != OpKind::Constant)
      ops::raise(name, {a},
                 {Kind::value, "a is a 0-d tensor that is not an integer constant",
                  "Pass an int n (to draw from arange(n)) or a tensor to draw from."},
                 loc);
    auto n = a.eval().item<std::int64_t>();
    if (n < 0) ops::raise(name, {a}, {Kind::value, "n = " + std::to_string(n) + " is negative", "Pass n >= 0."}, loc);
    arr = constant(Array::arange(0, static_cast<double>(n), 1, DType::i64), loc);
  }
  int ax = 0;
  try {
    ax = ops::checked_axis(axis, arr.ndim());
  } catch (const ops::TypeProblem& pr) {
    ops::raise(name, {a}, pr, loc);
  }
  std::int64_t n = arr.shape()[static_cast<std::size_t>(ax)];
  std::int64_t k = num_elements(shape);
  if (p && (p->ndim() != 1 || p->shape()[0] != n))
    ops::raise(name, {a, *p},
               {Kind::shape, "p of shape " + shape_string(p->shape()) + " for " + std::to_string(n) + " choices",
                "Pass one probability per element of a along axis."},
               loc);
  if (!replace && k > n)
    ops::raise(name, {a},
               {Kind::value,
                "cannot take " + std::to_string(k) + " samples without replacement from " + std::to_string(n),
                "Ask for at most len(a) samples, or pass replace=True."},
               loc);
  if (n == 0 && k > 0) ops::raise(name, {a}, {Kind::value, "a is empty", "Pass a non-empty a."}, loc);
  Source src(seed);
  Tensor idx;
  if (replace && !p) {
    RandomAttr attr;
    attr.a = 0, attr.b = static_cast<double>(n), attr.shape = shape, attr.dtype = DType::i64;
    idx = draw<OpKind::RandomRandint>(name, std::move(attr), loc, &src);
  } else if (replace) {
    DType f = p->dtype() == DType::f64 ? DType::f64 : DType::f32;
    Shape s = shape;
    s.push_back(n);
    Tensor u = open_uniform(src, s, f, loc);
    Tensor g = negative(log(negative(log(u, loc), loc), loc), loc);
    idx = argmax(add(g, log(cast(*p, f, loc), loc), loc), -1, false, loc);
  } else if (!p) {
    RandomAttr attr;
    attr.a = static_cast<double>(n), attr.b = 0, attr.shape = {n}, attr.dtype = DType::i64;
    Tensor perm = draw<OpKind::RandomPermutation>(name, std::move(attr), loc, &src);
    idx = reshape(slice(perm, {Index::range(0, k)}, loc), shape, loc);
  } else {
    // Gumbel top-k: the k largest of log p + gumbel, in decreasing order, found by ranking.
    DType f = p->dtype() == DType::f64 ? DType::f64 : DType::f32;
    Tensor u = open_uniform(src, {n}, f, loc);
    Tensor keys = subtract(log(cast(*p, f, loc), loc), log(negative(log(u, loc), loc), loc), loc);
    Tensor ids = constant(Array::arange(0, static_cast<double>(n), 1, DType::i64), loc);
    // rank_i = #{j: key_j > key_i or (key_j == key_i and j < i)}
    Tensor kj = reshape(keys, {1, n}, loc), ki = reshape(keys, {n, 1}, loc);
    Tensor before = logical_or(greater(kj, ki, loc),
                               logical_and(symx::equal(kj, ki, loc),
                                           less(reshape(ids, {1, n}, loc), reshape(ids, {n, 1}, loc), loc), loc),
                               loc);
    Tensor rank = sum(cast(before, DType::i64, loc), 1, false, loc);
    Tensor slot = where(less(rank, k, loc), rank, k, loc);
    Tensor top = index_update(zeros({k + 1}, DType::i64, loc), {slot}, ids, loc);
    idx = reshape(slice(top, {Index::range(0, k)}, loc), shape, loc);
  }
  Tensor out = take(arr, idx, ax, loc);
  return named_composite(name, out);
}

Tensor shuffle(const Tensor& x, int axis, Seed seed, Loc loc) {
  int ax = 0;
  try {
    ax = ops::checked_axis(axis, x.ndim());
  } catch (const ops::TypeProblem& pr) {
    ops::raise("random.shuffle", {x}, pr, loc);
  }
  std::int64_t n = x.shape()[static_cast<std::size_t>(ax)];
  RandomAttr attr;
  attr.a = static_cast<double>(n), attr.b = 0, attr.shape = {n}, attr.dtype = DType::i64;
  Source src(seed);
  Tensor perm = draw<OpKind::RandomPermutation>("random.shuffle", std::move(attr), loc, &src);
  return named_composite("random.shuffle", take(x, perm, ax, loc));
}

}  // namespace random
}  // namespace symx

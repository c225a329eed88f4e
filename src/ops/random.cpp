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

#include "ops/op_table.hpp"

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

// Random draws have no gradient: the draw does not depend on a differentiable input.
template <OpKind... ops> void define_all() {
  (define(ops, row(Family::random, 1, Lowering::reference, infer<ops>, evaluate<ops>, no_gradient)), ...);
}

template <OpKind op> Tensor draw(const char* name, RandomAttr attr, Loc loc) {
  if (auto problem = check_params<op>(attr)) raise(name, {}, *problem, loc);
  Graph& g = default_graph();
  attr.key = g.next_random_key();
  return make_node(op, {g.random_state()}, std::move(attr), loc, name);
}

}  // namespace

void register_random_ops() {
  using K = OpKind;
  define_all<K::RandomUniform, K::RandomNormal, K::RandomTruncatedNormal, K::RandomBernoulli, K::RandomRandint,
             K::RandomPermutation>();
}

}  // namespace ops

namespace random {

using ops::draw;

void seed(std::uint64_t seed) { default_graph().seed(seed); }

Tensor uniform(Shape shape, double low, double high, DType dtype, Loc loc) {
  RandomAttr attr;
  attr.a = low, attr.b = high, attr.shape = std::move(shape), attr.dtype = dtype;
  return draw<OpKind::RandomUniform>("random.uniform", std::move(attr), loc);
}

Tensor normal(Shape shape, double mean, double stddev, DType dtype, Loc loc) {
  RandomAttr attr;
  attr.a = mean, attr.b = stddev, attr.shape = std::move(shape), attr.dtype = dtype;
  return draw<OpKind::RandomNormal>("random.normal", std::move(attr), loc);
}

Tensor truncated_normal(Shape shape, double mean, double stddev, double lower, double upper, DType dtype, Loc loc) {
  RandomAttr attr;
  attr.a = lower, attr.b = upper, attr.mean = mean, attr.stddev = stddev, attr.shape = std::move(shape),
  attr.dtype = dtype;
  return draw<OpKind::RandomTruncatedNormal>("random.truncated_normal", std::move(attr), loc);
}

Tensor bernoulli(Shape shape, double p, DType dtype, Loc loc) {
  RandomAttr attr;
  attr.a = p, attr.b = 0, attr.shape = std::move(shape), attr.dtype = dtype;
  return draw<OpKind::RandomBernoulli>("random.bernoulli", std::move(attr), loc);
}

Tensor randint(Shape shape, std::int64_t low, std::int64_t high, DType dtype, Loc loc) {
  RandomAttr attr;
  attr.a = static_cast<double>(low), attr.b = static_cast<double>(high), attr.shape = std::move(shape),
  attr.dtype = dtype;
  // The bounds travel as doubles: exact up to 2^53, checked in check_params.
  if (low >= high)
    ops::raise("random.randint", {},
               {ops::TypeProblem::Kind::value,
                "low (" + std::to_string(low) + ") must be less than high (" + std::to_string(high) + ")",
                "Pass low < high; the draws are in [low, high)."},
               loc);
  return draw<OpKind::RandomRandint>("random.randint", std::move(attr), loc);
}

Tensor permutation(std::int64_t n, Loc loc) {
  RandomAttr attr;
  attr.a = static_cast<double>(n), attr.b = 0, attr.shape = {n < 0 ? 0 : n}, attr.dtype = DType::i64;
  if (n < 0)
    ops::raise("random.permutation", {},
               {ops::TypeProblem::Kind::value, "n (" + std::to_string(n) + ") is negative", "Pass n >= 0."}, loc);
  return draw<OpKind::RandomPermutation>("random.permutation", std::move(attr), loc);
}

}  // namespace random
}  // namespace symx

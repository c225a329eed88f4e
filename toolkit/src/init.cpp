// Initializers (symx/nn/init.hpp): host-side draws from one toolkit-wide generator.
#include "symx/nn/init.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numbers>
#include <random>
#include <vector>

namespace symx::nn::init {
namespace {

// The toolkit-wide generator; a mutex because variables may be made from several threads.
struct Generator {
  std::mutex mutex;
  std::mt19937_64 engine{0};
};

Generator& generator() {
  static Generator g;
  return g;
}

// Uniform in [0, 1) with 53 random bits, the same on every platform (std::uniform_real_distribution
// is implementation-defined).
double unit(std::mt19937_64& engine) { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }

// Standard normal by Box-Muller; 1 - unit() lies in (0, 1], so the logarithm is finite.
double standard_normal(std::mt19937_64& engine) {
  double radius = std::sqrt(-2.0 * std::log(1.0 - unit(engine)));
  return radius * std::cos(2.0 * std::numbers::pi * unit(engine));
}

void check_float(const char* what, DType dtype) {
  if (!is_floating(dtype))
    throw DTypeError(std::string("nn.init.") + what + ": cannot draw random values of dtype " +
                     std::string(dtype_name(dtype)) +
                     "; it draws float32 or float64. Make the variable "
                     "with dtype=float32 or float64, or use nn.init.constant for other dtypes.");
}

// An array of `shape` and `dtype` whose elements are draw() in row-major order, under the lock.
template <class Draw> Array fill(const char* what, const Shape& shape, DType dtype, Draw&& draw) {
  check_float(what, dtype);
  Array out(shape, dtype);
  Generator& g = generator();
  std::lock_guard lock(g.mutex);
  const std::int64_t n = out.size();
  for (std::int64_t i = 0; i < n; ++i) out.set_flat(i, draw(g.engine));
  return out;
}

void check_stddev(const char* what, double stddev) {
  if (!(stddev >= 0) || !std::isfinite(stddev))
    throw ValueError(std::string("nn.init.") + what + ": stddev must be finite and >= 0, got " +
                     std::to_string(stddev) + ".");
}

// Q of the QR decomposition of the (rows >= cols) matrix `a` (row-major), with R's diagonal
// positive: Gram-Schmidt, each column orthogonalized twice ("twice is enough") so Q is orthogonal to
// rounding even for an ill-conditioned draw.
std::vector<double> orthonormal_columns(std::vector<double> a, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t j = 0; j < cols; ++j) {
    for (int pass = 0; pass < 2; ++pass) {
      for (std::int64_t k = 0; k < j; ++k) {
        double dot = 0;
        for (std::int64_t i = 0; i < rows; ++i) dot += a[i * cols + k] * a[i * cols + j];
        for (std::int64_t i = 0; i < rows; ++i) a[i * cols + j] -= dot * a[i * cols + k];
      }
    }
    double norm = 0;
    for (std::int64_t i = 0; i < rows; ++i) norm += a[i * cols + j] * a[i * cols + j];
    norm = std::sqrt(norm);
    for (std::int64_t i = 0; i < rows; ++i) a[i * cols + j] /= norm;
  }
  return a;
}

}  // namespace

void seed(std::uint64_t seed) {
  Generator& g = generator();
  std::lock_guard lock(g.mutex);
  g.engine.seed(seed);
}

Fans compute_fans(const Shape& shape) {
  if (shape.empty()) return {1, 1};
  if (shape.size() == 1) return {static_cast<double>(shape[0]), static_cast<double>(shape[0])};
  if (shape.size() == 2) return {static_cast<double>(shape[0]), static_cast<double>(shape[1])};
  double receptive = 1;
  for (std::size_t i = 2; i < shape.size(); ++i) receptive *= static_cast<double>(shape[i]);
  return {static_cast<double>(shape[1]) * receptive, static_cast<double>(shape[0]) * receptive};
}

Initializer constant(double value) {
  return [value](const Shape& shape, DType dtype) { return Array::full(shape, value, dtype); };
}

Initializer zeros() { return constant(0); }

Initializer ones() { return constant(1); }

Initializer uniform(double low, double high) {
  if (!(low <= high) || !std::isfinite(low) || !std::isfinite(high))
    throw ValueError("nn.init.uniform: needs finite low <= high, got low=" + std::to_string(low) +
                     ", high=" + std::to_string(high) + ".");
  return [low, high](const Shape& shape, DType dtype) {
    return fill("uniform", shape, dtype, [&](std::mt19937_64& e) { return low + (high - low) * unit(e); });
  };
}

Initializer normal(double mean, double stddev) {
  check_stddev("normal", stddev);
  return [mean, stddev](const Shape& shape, DType dtype) {
    return fill("normal", shape, dtype, [&](std::mt19937_64& e) { return mean + stddev * standard_normal(e); });
  };
}

Initializer truncated_normal(double mean, double stddev) {
  check_stddev("truncated_normal", stddev);
  return [mean, stddev](const Shape& shape, DType dtype) {
    return fill("truncated_normal", shape, dtype, [&](std::mt19937_64& e) {
      double z = standard_normal(e);
      while (std::abs(z) > 2) z = standard_normal(e);  // accepts 95% of draws
      return mean + stddev * z;
    });
  };
}

Initializer orthogonal(double gain) {
  if (!std::isfinite(gain))
    throw ValueError("nn.init.orthogonal: gain must be finite, got " + std::to_string(gain) + ".");
  return [gain](const Shape& shape, DType dtype) {
    check_float("orthogonal", dtype);
    if (shape.size() < 2)
      throw ShapeError("nn.init.orthogonal: needs a shape of 2 axes or more, got " + shape_string(shape) +
                       ". Use it for matrices and kernels; vectors have no orthogonality.");
    const std::int64_t rows = shape[0], cols = num_elements(shape) / std::max<std::int64_t>(rows, 1);
    // Work on the tall orientation (m >= n): its columns can be orthonormal.
    const std::int64_t m = std::max(rows, cols), n = std::min(rows, cols);
    Array gaussian = fill("orthogonal", {m, n}, DType::f64, [](std::mt19937_64& e) { return standard_normal(e); });
    std::vector<double> q = orthonormal_columns(gaussian.to_vector(), m, n);
    Array out(shape, dtype);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c)
        out.set_flat(r * cols + c, gain * (rows >= cols ? q[r * n + c] : q[c * n + r]));
    return out;
  };
}

Initializer variance_scaling(double scale, const std::string& mode, const std::string& distribution) {
  if (!(scale > 0) || !std::isfinite(scale))
    throw ValueError("nn.init.variance_scaling: scale must be finite and > 0, got " + std::to_string(scale) + ".");
  if (mode != "fan_in" && mode != "fan_out" && mode != "fan_avg")
    throw ValueError("nn.init.variance_scaling: unknown mode '" + mode +
                     "'; use \"fan_in\", \"fan_out\" or \"fan_avg\".");
  if (distribution != "truncated_normal" && distribution != "untruncated_normal" && distribution != "normal" &&
      distribution != "uniform")
    throw ValueError("nn.init.variance_scaling: unknown distribution '" + distribution +
                     "'; use \"truncated_normal\", \"untruncated_normal\" (or \"normal\") or \"uniform\".");
  return [scale, mode, distribution](const Shape& shape, DType dtype) {
    check_float("variance_scaling", dtype);
    Fans fans = compute_fans(shape);
    double n = mode == "fan_in" ? fans.fan_in : mode == "fan_out" ? fans.fan_out : (fans.fan_in + fans.fan_out) / 2;
    double variance = scale / std::max(1.0, n);
    if (distribution == "uniform") {
      double limit = std::sqrt(3.0 * variance);
      return uniform(-limit, limit)(shape, dtype);
    }
    if (distribution == "truncated_normal")  // the standard deviation of N(0, 1) truncated to [-2, 2]
      return truncated_normal(0, std::sqrt(variance) / 0.87962566103423978)(shape, dtype);
    return normal(0, std::sqrt(variance))(shape, dtype);
  };
}

Initializer glorot_uniform() { return variance_scaling(1, "fan_avg", "uniform"); }
Initializer glorot_normal() { return variance_scaling(1, "fan_avg", "truncated_normal"); }
Initializer he_uniform() { return variance_scaling(2, "fan_in", "uniform"); }
Initializer he_normal() { return variance_scaling(2, "fan_in", "truncated_normal"); }
Initializer lecun_uniform() { return variance_scaling(1, "fan_in", "uniform"); }
Initializer lecun_normal() { return variance_scaling(1, "fan_in", "truncated_normal"); }

}  // namespace symx::nn::init

// symx/nn/init.hpp: initializers, the functions that draw a variable's first value from its shape
// and dtype (symx::Initializer). Use them with variable(init, shape) or as a layer's w_init/b_init.
//
// Draws happen on the host, from one toolkit-wide generator (a 64-bit Mersenne twister) that starts
// from a fixed seed, so a program draws the same weights on every run; each draw advances it, and
// nn::init::seed(n) restarts it. Random initializers accept float32 and float64 (the numbers are
// drawn in double precision, then rounded); constant, zeros and ones accept every dtype.
//
// Fans (variance_scaling and its named forms, as Keras defines them):
// - a scalar has fan_in = fan_out = 1; a vector (n,) has fan_in = fan_out = n;
// - a matrix (in, out), a Dense weight, has fan_in = in and fan_out = out;
// - a convolution kernel (O, I, K...) (symx's OIHW layout, as nn::conv2d takes it; also Conv1D's
//   (O, I, K) and Conv2DTranspose's (I, O, KH, KW) as PyTorch lays them out) has receptive field
//   r = K1 * K2 * ..., fan_in = shape[1] * r and fan_out = shape[0] * r.
#pragma once

#include <cstdint>
#include <string>

#include "symx/symx.hpp"

namespace symx::nn::init {

// Doc nn::init::Initializer: What the functions of nn.init return in Python: init(shape,
// dtype=float32) draws a NumPy array; pass it to variable(init, shape) or a layer's w_init/b_init.
// Example: nn.init.he_normal()((16, 3, 3, 3)).shape is (16, 3, 3, 3)

// Restarts the toolkit's initializer generator: the same seed and the same sequence of draws give the
// same values. The generator starts from seed 0 when the program starts.
// Example: nn.init.seed(42)
void seed(std::uint64_t seed);

// The fan-in and fan-out of a weight of `shape` (see the header comment for the layouts).
struct Fans {
  double fan_in = 1;
  double fan_out = 1;
};
// The fans variance_scaling uses for `shape`: (in, out) for a matrix, (O, I, K...) for a kernel.
// Example: nn.init.compute_fans((16, 3, 5, 5)) is (75.0, 400.0)
Fans compute_fans(const Shape& shape);

// Fills every element with `value` (any dtype).
// Example: variable(nn.init.constant(0.1), (10,))
Initializer constant(double value);
// Fills with 0 (any dtype).
// Example: variable(nn.init.zeros(), (10,))
Initializer zeros();
// Fills with 1 (any dtype).
// Example: variable(nn.init.ones(), (10,))
Initializer ones();
// Uniform draws in [low, high) (float32 or float64); Keras's defaults.
// Example: variable(nn.init.uniform(-0.1, 0.1), (784, 100))
Initializer uniform(double low = -0.05, double high = 0.05);
// Normal draws with `mean` and standard deviation `stddev` (float32 or float64); Keras's defaults.
// Example: variable(nn.init.normal(0.0, 0.01), (784, 100))
Initializer normal(double mean = 0, double stddev = 0.05);
// Normal draws redrawn until they lie within 2 standard deviations of `mean` (Keras's
// truncated_normal; the result's standard deviation is about 0.88 * stddev).
// Example: variable(nn.init.truncated_normal(stddev=0.02), (784, 100))
Initializer truncated_normal(double mean = 0, double stddev = 0.05);
// A (semi-)orthogonal matrix times `gain`, as PyTorch's orthogonal_ and Keras's Orthogonal: the
// shape is flattened to (shape[0], product of the others), a normal matrix of that shape gets a QR
// decomposition, and Q's columns take the signs of R's diagonal, so Q is uniform (Haar) over the
// orthogonal matrices. Rows are orthonormal when shape[0] <= the rest, else columns. Needs 2 axes or
// more (float32 or float64).
// Example: variable(nn.init.orthogonal(), (100, 100))  # w @ w.T is the identity
Initializer orthogonal(double gain = 1);
// Draws with variance scale / n, where n is fan_in, fan_out or their mean (`mode` "fan_in",
// "fan_out" or "fan_avg"; see compute_fans), as Keras's VarianceScaling. `distribution`:
// "truncated_normal" (within 2 standard deviations, the standard deviation divided by
// 0.87962566103423978 so that the variance is still scale / n), "untruncated_normal" (or "normal"),
// or "uniform" (in +-sqrt(3 * scale / n)). A bad mode, distribution or scale <= 0 is a ValueError.
// Example: variable(nn.init.variance_scaling(2.0, "fan_out", "untruncated_normal"), (16, 3, 3, 3))
Initializer variance_scaling(double scale = 1, const std::string& mode = "fan_in",
                             const std::string& distribution = "truncated_normal");
// Glorot (Xavier) uniform: variance_scaling(1, "fan_avg", "uniform"), the limit sqrt(6 / (fan_in + fan_out)).
// Example: variable(nn.init.glorot_uniform(), (784, 100))
Initializer glorot_uniform();
// Glorot (Xavier) normal: variance_scaling(1, "fan_avg", "truncated_normal").
// Example: variable(nn.init.glorot_normal(), (784, 100))
Initializer glorot_normal();
// He (Kaiming) uniform: variance_scaling(2, "fan_in", "uniform"), the limit sqrt(6 / fan_in).
// Example: variable(nn.init.he_uniform(), (16, 3, 3, 3))
Initializer he_uniform();
// He (Kaiming) normal: variance_scaling(2, "fan_in", "truncated_normal").
// Example: variable(nn.init.he_normal(), (16, 3, 3, 3))
Initializer he_normal();
// LeCun uniform: variance_scaling(1, "fan_in", "uniform"), the limit sqrt(3 / fan_in).
// Example: variable(nn.init.lecun_uniform(), (784, 100))
Initializer lecun_uniform();
// LeCun normal: variance_scaling(1, "fan_in", "truncated_normal") (for selu networks).
// Example: variable(nn.init.lecun_normal(), (784, 100))
Initializer lecun_normal();

}  // namespace symx::nn::init

// symx/interpolation.hpp: SymJAX's tensor.interpolation (symx::interpolation) with scipy.ndimage's
// map_coordinates, and jax.image's resize (symx::image).
//
// Everything here is a composite of existing graph ops: gathers (take) of the input at integer
// tap positions, weighted by elementwise functions of the coordinates, and, for the cubic spline
// prefilter and resize, products with constant weight matrices. Gradients with respect to the
// input and the coordinates therefore come from those ops (a gather's gradient is a scatter-add).
// Shapes must be known where a function needs sizes (the input of map_coordinates, the image of
// resize, the spatial sizes of affine_transform and thin_plate_spline).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "symx/ops.hpp"

namespace symx {
namespace interpolation {

// The input at the given coordinates by spline interpolation, as scipy.ndimage.map_coordinates
// (prefilter=True). coordinates has shape (input.ndim, ...): coordinates[k] is the position along
// axis k of each output element; the result has shape coordinates.shape[1:].
// order: 0 (nearest sample, ties rounded up as SciPy), 1 (linear), 3 (cubic B-spline, the input
// first filtered into B-spline coefficients along each axis with SciPy's boundary handling; the
// filter is applied as a constant matrix per axis: exact, O(n^2) per line).
// mode: SciPy's 'constant' (cval outside [0, n-1], no interpolation there), 'nearest', 'reflect',
// 'mirror', 'wrap' (SciPy's period n-1), 'grid-constant' (taps outside the input read cval),
// 'grid-wrap' (period n), 'grid-mirror' (= 'reflect').
// Differentiable in the input and the coordinates (order 0: zero gradient for the coordinates; at
// integer coordinates, the kinks of order 1, the gradient is the right-hand derivative).
// Float input keeps its dtype (coordinates are cast to it); integer input computes in float32.
// For order 3 in 'reflect'/'grid-mirror' mode and axes of 2 or 3 samples, SciPy 1.17's filter has
// an aliasing bug (scipy gh-24550) of order z^(2n); symx computes the exact filter.
//
// Example: interpolation::map_coordinates(a, c).eval() of a = [1, 2, 4], c = [[0.5, 1.25]] is [1.5, 2.5]
// Python: sx.interpolation.map_coordinates(np.array([1., 2., 4.]), np.array([[0.5, 1.25]])).eval() is [1.5, 2.5]
Tensor map_coordinates(const Tensor& input, const Tensor& coordinates, int order = 1,
                       const std::string& mode = "constant", double cval = 0.0, Loc loc = Loc::current());

// Spatial transformer (Jaderberg et al. 2015), SymJAX's affine_transform as Lasagne's
// TransformerLayer: input (batch, channels, rows, cols), theta (batch, 6), the affine map
// [[t0, t1, t2], [t3, t4, t5]] of the output grid (x, y, 1), x and y in [-1, 1], to source points,
// which are scaled to pixels (x + 1) / 2 (cols - 1), (y + 1) / 2 (rows - 1) and sampled with
// map_coordinates at `order`. downsample_factor: one or two numbers; the output has
// rows // f0, cols // f1 pixels. border_mode: 'nearest' (clamp), 'mirror' or 'wrap' (Lasagne's;
// SciPy's 'nearest', 'mirror', 'grid-wrap'). theta = (1, 0, 0, 0, 1, 0) is the identity.
//
// Example: interpolation::affine_transform(images, theta) of images (2, 3, 8, 8), theta (2, 6): (2, 3, 8, 8)
// Python: sx.interpolation.affine_transform(images, theta) of images (2, 3, 8, 8), theta (2, 6): (2, 3, 8, 8)
Tensor affine_transform(const Tensor& input, const Tensor& theta, int order = 1,
                        std::vector<double> downsample_factor = {1.0}, const std::string& border_mode = "nearest",
                        Loc loc = Loc::current());

// Thin plate spline transformer (Bookstein 1989), SymJAX's thin_plate_spline as Lasagne's
// TPSTransformerLayer: input (batch, channels, rows, cols), dest_offsets (batch, 2 K): the x and
// then the y offsets of K control points (K a perfect square) on a regular grid over [-1, 1]^2.
// Sampling, downsample_factor and border_mode as affine_transform. Zero offsets are the identity.
//
// Example: interpolation::thin_plate_spline(images, zeros({2, 32})) returns images (16 control points)
// Python: sx.interpolation.thin_plate_spline(images, np.zeros((2, 32), np.float32)) returns images
Tensor thin_plate_spline(const Tensor& input, const Tensor& dest_offsets, int order = 1,
                         std::vector<double> downsample_factor = {1.0}, const std::string& border_mode = "nearest",
                         Loc loc = Loc::current());

// SymJAX's upsample_1d: inserts `repeat` values between consecutive entries along `axis` (the axis
// grows by a factor repeat + 1). mode 'constant': the new values are `value`; 'nearest': each
// entry repeated, rolled by -repeat // 2 (boundary_condition 'periodic' only, as SymJAX);
// 'linear': linear interpolation towards the next entry, which past the last one is the first
// ('periodic') or the one before last ('mirror').
//
// Example: interpolation::upsample_1d(constant(Array({1.f, 2.f})), 1, -1, "linear").eval() is [1, 1.5, 2, 1.5]
// Python: sx.interpolation.upsample_1d(np.array([1., 2.]), 1, mode="linear").eval() is [1, 1.5, 2, 1.5]
Tensor upsample_1d(const Tensor& tensor, std::int64_t repeat, int axis = -1, const std::string& mode = "constant",
                   double value = 0.0, const std::string& boundary_condition = "periodic", Loc loc = Loc::current());

// upsample_1d along two axes (SymJAX has no upsample_2d: this is upsample_1d applied along
// axes[0] with repeat[0], then along axes[1] with repeat[1]; one repeat applies to both).
//
// Example: interpolation::upsample_2d(x, {1, 1}) of x (4, 4) has shape (8, 8)
// Python: sx.interpolation.upsample_2d(x, 1) of x (4, 4) has shape (8, 8)
Tensor upsample_2d(const Tensor& tensor, std::vector<std::int64_t> repeat, std::vector<int> axes = {-2, -1},
                   const std::string& mode = "constant", double value = 0.0,
                   const std::string& boundary_condition = "periodic", Loc loc = Loc::current());

// SymJAX's hermite_1d: the cubic Hermite interpolant through (knots, values) with `derivatives`
// (d/dt on each interval mapped to t in [0, 1]), evaluated at samples. knots, values, derivatives:
// (..., K); samples: (T,) or broadcastable against knots' leading axes with a last axis T.
// Returns (..., T); samples outside [knots[0], knots[-1]] give 0, a sample on an inner knot the
// mean of its two intervals (equal: the interpolant is continuous).
//
// Example: interpolation::hermite_1d(samples, knots, values, derivatives), samples (100,), knots (3, 5): (3, 100)
// Python: sx.interpolation.hermite_1d(samples, knots, values, derivatives), samples (100,), knots (3, 5): (3, 100)
Tensor hermite_1d(const Tensor& samples, const Tensor& knots, const Tensor& values, const Tensor& derivatives,
                  Loc loc = Loc::current());

// SymJAX's hermite_2d: bicubic Hermite patches. values (n, N, M, 4): f, df/dx, df/dy, d2f/dxdy at
// each of N x M knots (x along the N axis, derivatives per unit cell); each of the (N-1)(M-1) cells
// is sampled at t_x = linspace(0, 1, n_x - 1) by t_y = linspace(0, 1, n_y - 1) (both ends, as
// SymJAX's linspace), giving (n, (N - 1)(n_x - 1), (M - 1)(n_y - 1)).
//
// Example: interpolation::hermite_2d(values, 5, 5) of values (2, 3, 3, 4) has shape (2, 8, 8)
// Python: sx.interpolation.hermite_2d(values, 5, 5) of values (2, 3, 3, 4) has shape (2, 8, 8)
Tensor hermite_2d(const Tensor& values, std::int64_t n_x, std::int64_t n_y, Loc loc = Loc::current());

}  // namespace interpolation

namespace image {

// An image resized to `shape` (same rank; axes whose size is unchanged are left alone), as
// jax.image.resize: half-pixel centers (output i samples input (i + 0.5) in / out - 0.5).
// method: 'nearest' (input floor((i + 0.5) in / out)), 'linear' / 'bilinear' / 'trilinear'
// (triangle kernel), 'cubic' / 'bicubic' / 'tricubic' (Keys cubic, a = -0.5), 'lanczos3',
// 'lanczos5' (weights normalized to sum 1; zero outside the input), and 'area' (not in JAX:
// each output the average of the input over its footprint, the overlap-weighted mean as
// TensorFlow's 'area'). antialias (JAX's default true): when downsampling, the kernel is widened
// by in / out (a low-pass filter); no effect on 'nearest' and 'area'. Float dtypes kept; integer
// images compute in float32. Differentiable in the image.
//
// Example: image::resize(constant(Array({0.f, 1.f})), {4}, "linear").eval() is [0, 0.25, 0.75, 1]
// Python: sx.image.resize(np.array([0., 1.]), (4,), "linear").eval() is [0, 0.25, 0.75, 1]
Tensor resize(const Tensor& image, Shape shape, const std::string& method, bool antialias = true,
              Loc loc = Loc::current());

}  // namespace image
}  // namespace symx

// symx/numpy.hpp: The rest of NumPy's names (jax.numpy's): aliases, composites over the primitives (trig and
// hyperbolic, rounding, nan-reductions, stacking and splitting, triangles and diagonals, einsum, tensordot, kron, ...)
// and the host-side dtype helpers.
//
// Which names are primitives (rows of the op table, src/ops/numpy.cpp) and which are composites (graphs
// of primitives, fused like any elementwise chain):
// - primitives, for accuracy near 0, at large |x| and at the ends of their domains: arcsin, arccos,
//   arcsinh, arccosh, arctanh, sinh, cosh, log2, log10, exp2, cbrt, hypot, copysign, fmod, signbit;
// - composites: everything else here (logaddexp and logaddexp2 in the stable form
//   max + log1p(exp(-|a - b|)), the nan-reductions, isclose, cov, select, ...);
// - aliases (the same function, another NumPy spelling): asin, acos, asinh, acosh, atanh, atan, atan2,
//   absolute, amax, amin, product, pow, true_divide, remainder, rint, fix, alltrue, sometrue, degrees,
//   radians, bitwise_invert, bitwise_left_shift, bitwise_right_shift.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "symx/ops.hpp"

namespace symx {

// ---- trigonometric and hyperbolic (primitives) ----
// Elementwise inverse sine (radians, in [-pi/2, pi/2]; NaN outside [-1, 1]), as numpy.arcsin.
// x: float32 or float64 (integers compute in float32); returns x's shape and dtype.
// Example: arcsin([0.0, 1.0]).eval() is [0.0, 1.5707964]
Tensor arcsin(const Tensor& x, Loc loc = Loc::current());
// Elementwise inverse cosine (radians, in [0, pi]; NaN outside [-1, 1]), as numpy.arccos.
// x: float32 or float64 (integers compute in float32); returns x's shape and dtype.
// Example: arccos([1.0, -1.0]).eval() is [0.0, 3.1415927]
Tensor arccos(const Tensor& x, Loc loc = Loc::current());
// Elementwise inverse hyperbolic sine, accurate near 0 and for large |x|, as numpy.arcsinh.
// x: float32 or float64 (integers compute in float32); returns x's shape and dtype.
// Example: arcsinh([0.0, 1.0]).eval() is [0.0, 0.8813736]
Tensor arcsinh(const Tensor& x, Loc loc = Loc::current());
// Elementwise inverse hyperbolic cosine (NaN below 1), as numpy.arccosh.
// x: float32 or float64 (integers compute in float32); returns x's shape and dtype.
// Example: arccosh([1.0, 2.0]).eval() is [0.0, 1.3169579]
Tensor arccosh(const Tensor& x, Loc loc = Loc::current());
// Elementwise inverse hyperbolic tangent (+-inf at +-1, NaN beyond), as numpy.arctanh.
// x: float32 or float64 (integers compute in float32); returns x's shape and dtype.
// Example: arctanh([0.0, 0.5]).eval() is [0.0, 0.54930615]
Tensor arctanh(const Tensor& x, Loc loc = Loc::current());
// Elementwise hyperbolic sine, accurate near 0, as numpy.sinh.
// x: float32 or float64 (integers compute in float32); returns x's shape and dtype.
// Example: sinh([0.0, 1.0]).eval() is [0.0, 1.1752012]
Tensor sinh(const Tensor& x, Loc loc = Loc::current());
// Elementwise hyperbolic cosine, as numpy.cosh.
// x: float32 or float64 (integers compute in float32); returns x's shape and dtype.
// Example: cosh([0.0, 1.0]).eval() is [1.0, 1.5430806]
Tensor cosh(const Tensor& x, Loc loc = Loc::current());
// The same as arcsin (the array API's name).
// Example: asin([1.0]).eval() is [1.5707964]
inline Tensor asin(const Tensor& x, Loc loc = Loc::current()) { return arcsin(x, loc); }
// The same as arccos (the array API's name).
// Example: acos([1.0]).eval() is [0.0]
inline Tensor acos(const Tensor& x, Loc loc = Loc::current()) { return arccos(x, loc); }
// The same as arcsinh (the array API's name).
// Example: asinh([0.0]).eval() is [0.0]
inline Tensor asinh(const Tensor& x, Loc loc = Loc::current()) { return arcsinh(x, loc); }
// The same as arccosh (the array API's name).
// Example: acosh([1.0]).eval() is [0.0]
inline Tensor acosh(const Tensor& x, Loc loc = Loc::current()) { return arccosh(x, loc); }
// The same as arctanh (the array API's name).
// Example: atanh([0.0]).eval() is [0.0]
inline Tensor atanh(const Tensor& x, Loc loc = Loc::current()) { return arctanh(x, loc); }
// The same as arctan (the array API's name).
// Example: atan([1.0]).eval() is [0.7853982]
inline Tensor atan(const Tensor& x, Loc loc = Loc::current()) { return arctan(x, loc); }
// The same as arctan2 (the array API's name).
// Example: atan2(1.0, [1.0]).eval() is [0.7853982]
inline Tensor atan2(const Operand& a, const Operand& b, Loc loc = Loc::current()) { return arctan2(a, b, loc); }
// Degrees to radians, x * pi / 180, as numpy.deg2rad (also numpy.radians).
// x: float32 or float64 (integers compute in float32); returns x's shape and dtype.
// Example: deg2rad([180.0]).eval() is [3.1415927]
Tensor deg2rad(const Tensor& x, Loc loc = Loc::current());
// Radians to degrees, x * 180 / pi, as numpy.rad2deg (also numpy.degrees).
// x: float32 or float64 (integers compute in float32); returns x's shape and dtype.
// Example: rad2deg([3.14159265]).eval() is [180.0]
Tensor rad2deg(const Tensor& x, Loc loc = Loc::current());
// The same as deg2rad.
// Example: radians([90.0]).eval() is [1.5707964]
inline Tensor radians(const Tensor& x, Loc loc = Loc::current()) { return deg2rad(x, loc); }
// The same as rad2deg.
// Example: degrees([1.5707964]).eval() is [90.0]
inline Tensor degrees(const Tensor& x, Loc loc = Loc::current()) { return rad2deg(x, loc); }

// ---- exponents and logarithms ----
// Elementwise base-2 logarithm (exact at powers of two), as numpy.log2.
// x: float32 or float64 (integers compute in float32); returns x's shape and dtype.
// Example: log2([1.0, 8.0]).eval() is [0.0, 3.0]
Tensor log2(const Tensor& x, Loc loc = Loc::current());
// Elementwise base-10 logarithm, as numpy.log10.
// x: float32 or float64 (integers compute in float32); returns x's shape and dtype.
// Example: log10([1.0, 1000.0]).eval() is [0.0, 3.0]
Tensor log10(const Tensor& x, Loc loc = Loc::current());
// Elementwise 2**x (exact at integers), as numpy.exp2.
// x: float32 or float64 (integers compute in float32); returns x's shape and dtype.
// Example: exp2([0.0, 3.0, -1.0]).eval() is [1.0, 8.0, 0.5]
Tensor exp2(const Tensor& x, Loc loc = Loc::current());
// Elementwise cube root (negative for negative x), as numpy.cbrt.
// x: float32 or float64 (integers compute in float32); returns x's shape and dtype.
// Example: cbrt([8.0, -27.0]).eval() is [2.0, -3.0]
Tensor cbrt(const Tensor& x, Loc loc = Loc::current());
// log(exp(x1) + exp(x2)) without overflow, as numpy.logaddexp; gradients split equally at x1 == x2.
// x1, x2: tensors or numbers, broadcast together; float math (integers compute in float32).
// Example: logaddexp(0.0, [0.0]).eval() is [0.6931472]
Tensor logaddexp(const Operand& a, const Operand& b, Loc loc = Loc::current());
// log2(2**x1 + 2**x2) without overflow, as numpy.logaddexp2.
// x1, x2: tensors or numbers, broadcast together; float math (integers compute in float32).
// Example: logaddexp2(1.0, [1.0]).eval() is [2.0]
Tensor logaddexp2(const Operand& a, const Operand& b, Loc loc = Loc::current());
// sqrt(x1**2 + x2**2) without overflow or underflow, as numpy.hypot (inf if either is infinite, even
// with a NaN). Its gradient at (0, 0) is 0.
// x1, x2: tensors or numbers, broadcast together; float math (integers compute in float32).
// Example: hypot(3.0, [4.0]).eval() is [5.0]
Tensor hypot(const Operand& a, const Operand& b, Loc loc = Loc::current());
// x1 * 2**x2, as numpy.ldexp. x1: float (integers compute in float32); x2: integer tensor or number.
// Example: ldexp([1.0, 3.0], 2).eval() is [4.0, 12.0]
Tensor ldexp(const Operand& x1, const Operand& x2, Loc loc = Loc::current());
// (mantissa, exponent) with x = mantissa * 2**exponent and 0.5 <= |mantissa| < 1, as numpy.frexp; the
// exponent is int32; 0, inf and NaN give (x, 0). Subnormal x are not handled (their exponent is off).
// x: float (integers compute in float32).
// Example: frexp([8.0]) is ([0.5], [4])
std::pair<Tensor, Tensor> frexp(const Tensor& x, Loc loc = Loc::current());
// x1 ** x2 computed in float64, as numpy.float_power. Returns float64.
// Example: float_power([2], 0.5).eval() is [1.41421356]
Tensor float_power(const Operand& a, const Operand& b, Loc loc = Loc::current());
// The same as power (the array API's name).
// Example: pow([2.0], 3).eval() is [8.0]
inline Tensor pow(const Operand& a, const Operand& b, Loc loc = Loc::current()) { return power(a, b, loc); }

// ---- signs, remainders and rounding ----
// x1 with the sign of x2 (including -0.0 and NaN's sign bit), as numpy.copysign. The gradient to x1 is
// sign(x1) * sign(result) (0 at x1 == 0), to x2 zero.
// x1, x2: tensors or numbers, broadcast together; float math (integers compute in float32).
// Example: copysign([1.0, 2.0], -1.0).eval() is [-1.0, -2.0]
Tensor copysign(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise test of the sign bit (true for -0.0 and negative numbers), as numpy.signbit.
// x: any dtype; returns bool of x's shape.
// Example: signbit([-0.0, 0.0, -2.0]).eval() is [True, False, True]
Tensor signbit(const Tensor& x, Loc loc = Loc::current());
// Remainder with the sign of the dividend, as numpy.fmod (C's fmod); integers: x fmod 0 is 0.
// x1, x2: tensors or numbers, broadcast together; returns the promoted dtype.
// Example: fmod([-3, 3], 2).eval() is [-1, 1]
Tensor fmod(const Operand& a, const Operand& b, Loc loc = Loc::current());
// The same as mod: remainder with the sign of the divisor, as numpy.remainder.
// Example: remainder([-3, 3], 2).eval() is [1, 1]
inline Tensor remainder(const Operand& a, const Operand& b, Loc loc = Loc::current()) { return mod(a, b, loc); }
// (floor_divide(x1, x2), mod(x1, x2)), as numpy.divmod.
// Example: divmod([7, -7], 2) is ([3, -4], [1, 1])
std::pair<Tensor, Tensor> divmod(const Operand& a, const Operand& b, Loc loc = Loc::current());
// (fractional part, integral part), both with x's sign, as numpy.modf; modf(inf) is (0, inf).
// x: float (integers compute in float32). The fractional part's gradient is 1, the integral part's 0.
// Example: modf([2.5, -1.25]) is ([0.5, -0.25], [2.0, -1.0])
std::pair<Tensor, Tensor> modf(const Tensor& x, Loc loc = Loc::current());
// Rounds toward zero, as numpy.trunc (integers pass through unchanged). No gradient.
// Example: trunc([-1.7, 1.7]).eval() is [-1.0, 1.0]
Tensor trunc(const Tensor& x, Loc loc = Loc::current());
// The same as trunc, as numpy.fix.
// Example: fix([-2.5]).eval() is [-2.0]
inline Tensor fix(const Tensor& x, Loc loc = Loc::current()) { return trunc(x, loc); }
// The same as round (half to even), as numpy.rint.
// Example: rint([0.5, 1.5]).eval() is [0.0, 2.0]
inline Tensor rint(const Tensor& x, Loc loc = Loc::current()) { return round(x, loc); }
// Rounds half to even at `decimals` decimal places (negative: to tens, hundreds...), as numpy.around
// (x * 10**decimals rounded, then divided back). Integers with decimals >= 0 pass through. No gradient.
// Example: around([1.234, 5.678], 1).eval() is [1.2, 5.7]
Tensor around(const Tensor& x, int decimals = 0, Loc loc = Loc::current());
// 0 where x1 < 0, 1 where x1 > 0, x2 where x1 == 0 (NaN for a NaN x1), as numpy.heaviside. No gradient
// to x1; x2 gets the gradient where x1 == 0.
// Example: heaviside([-1.0, 0.0, 2.0], 0.5).eval() is [0.0, 0.5, 1.0]
Tensor heaviside(const Operand& x1, const Operand& x2, Loc loc = Loc::current());
// Elementwise |x| as a float, as numpy.fabs. x: any real dtype (integers give float32).
// Example: fabs([-1, 2]).eval() is [1.0, 2.0]
Tensor fabs(const Tensor& x, Loc loc = Loc::current());
// The same as abs, as numpy.absolute.
// Example: absolute([-1.5]).eval() is [1.5]
inline Tensor absolute(const Tensor& x, Loc loc = Loc::current()) { return abs(x, loc); }
// x itself (numpy.positive: +x). Bool is refused, as NumPy refuses it.
// Example: positive([-1.0]).eval() is [-1.0]
Tensor positive(const Tensor& x, Loc loc = Loc::current());
// The same as divide, as numpy.true_divide.
// Example: true_divide([1, 3], 2).eval() is [0.5, 1.5]
inline Tensor true_divide(const Operand& a, const Operand& b, Loc loc = Loc::current()) { return divide(a, b, loc); }
// Elementwise maximum that ignores NaN (NaN only where both are NaN), as numpy.fmax.
// x1, x2: tensors or numbers, broadcast together; returns the promoted dtype.
// Example: fmax([1.0, float('nan')], 0.0).eval() is [1.0, 0.0]
Tensor fmax(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise minimum that ignores NaN (NaN only where both are NaN), as numpy.fmin.
// Example: fmin([1.0, float('nan')], 0.0).eval() is [0.0, 0.0]
Tensor fmin(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise x1 xor x2 (nonzero is true), as numpy.logical_xor. Returns bool.
// Example: logical_xor([True, True], [True, False]).eval() is [False, True]
Tensor logical_xor(const Operand& a, const Operand& b, Loc loc = Loc::current());
// The same as bitwise_not (the array API's name).
// Example: bitwise_invert([0]).eval() is [-1]
inline Tensor bitwise_invert(const Tensor& x, Loc loc = Loc::current()) { return bitwise_not(x, loc); }
// The same as left_shift (the array API's name).
// Example: bitwise_left_shift([1], 3).eval() is [8]
inline Tensor bitwise_left_shift(const Operand& a, const Operand& b, Loc loc = Loc::current()) {
  return left_shift(a, b, loc);
}
// The same as right_shift (the array API's name).
// Example: bitwise_right_shift([8], 3).eval() is [1]
inline Tensor bitwise_right_shift(const Operand& a, const Operand& b, Loc loc = Loc::current()) {
  return right_shift(a, b, loc);
}

// ---- predicates ----
// Elementwise test for +inf or -inf, as numpy.isinf. x: any dtype; returns bool.
// Example: isinf([1.0, float('inf'), float('nan')]).eval() is [False, True, False]
Tensor isinf(const Tensor& x, Loc loc = Loc::current());
// Elementwise test for +inf, as numpy.isposinf. Returns bool.
// Example: isposinf([float('inf'), -float('inf')]).eval() is [True, False]
Tensor isposinf(const Tensor& x, Loc loc = Loc::current());
// Elementwise test for -inf, as numpy.isneginf. Returns bool.
// Example: isneginf([float('inf'), -float('inf')]).eval() is [False, True]
Tensor isneginf(const Tensor& x, Loc loc = Loc::current());
// Elementwise |a - b| <= atol + rtol * |b| (equal infinities are close; NaNs are close to each other only
// with equal_nan), as numpy.isclose. Returns bool, broadcast.
// Example: isclose([1.0, 1.1], 1.0).eval() is [True, False]
Tensor isclose(const Operand& a, const Operand& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false,
               Loc loc = Loc::current());
// Whether every element of a and b is close (isclose), as numpy.allclose; a 0-d bool tensor.
// Example: allclose([1.0, 2.0], [1.0, 2.0 + 1e-9]).eval() is True
Tensor allclose(const Operand& a, const Operand& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false,
                Loc loc = Loc::current());
// Whether a and b have the same shape and elements, as numpy.array_equal; a 0-d bool tensor (False at
// once for different shapes). NaNs are equal only with equal_nan.
// Example: array_equal([1, 2], [1, 2]).eval() is True
Tensor array_equal(const Tensor& a, const Tensor& b, bool equal_nan = false, Loc loc = Loc::current());
// Whether each element's imaginary part is zero (True everywhere for a real tensor), as numpy.isreal.
// Example: isreal([1.0]).eval() is [True]
Tensor isreal(const Tensor& x, Loc loc = Loc::current());
// Whether each element's imaginary part is non-zero (False everywhere for a real tensor), as
// numpy.iscomplex.
// Example: iscomplex([1.0]).eval() is [False]
Tensor iscomplex(const Tensor& x, Loc loc = Loc::current());
// NaN replaced by `nan`, +inf by `posinf` (default: the dtype's largest value) and -inf by `neginf`
// (default: its lowest), as numpy.nan_to_num. Integers pass through. The gradient is 1 where x is finite.
// Example: nan_to_num([float('nan'), float('inf')]).eval() is [0.0, 3.4028235e38]
Tensor nan_to_num(const Tensor& x, double nan = 0.0, std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt, Loc loc = Loc::current());

// ---- reductions ----
// Whether every element over `axis` is nonzero (NaN counts as nonzero), as numpy.all. Returns bool.
// Example: all([[True, False], [True, True]], axis=1).eval() is [False, True]
Tensor all(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// Whether any element over `axis` is nonzero, as numpy.any. Returns bool.
// Example: any([[0, 0], [0, 3]], axis=1).eval() is [False, True]
Tensor any(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// The same as all (NumPy's old name).
// Example: alltrue([1, 1]).eval() is True
inline Tensor alltrue(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current()) {
  return all(x, std::move(axis), keepdims, loc);
}
// The same as any (NumPy's old name).
// Example: sometrue([0, 1]).eval() is True
inline Tensor sometrue(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current()) {
  return any(x, std::move(axis), keepdims, loc);
}
// The number of nonzero elements over `axis` (int64), as numpy.count_nonzero.
// Example: count_nonzero([[0, 1], [2, 3]], axis=0).eval() is [1, 2]
Tensor count_nonzero(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// The range max - min over `axis`, as numpy.ptp. Returns x's dtype.
// Example: ptp([[1, 5], [7, 2]], axis=1).eval() is [4, 5]
Tensor ptp(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// The same as max, as numpy.amax.
// Example: amax([1, 5]).eval() is 5
inline Tensor amax(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current()) {
  return max(x, std::move(axis), keepdims, loc);
}
// The same as min, as numpy.amin.
// Example: amin([1, 5]).eval() is 1
inline Tensor amin(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current()) {
  return min(x, std::move(axis), keepdims, loc);
}
// The same as prod, as numpy.product.
// Example: product([2, 3]).eval() is 6
inline Tensor product(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current()) {
  return prod(x, std::move(axis), keepdims, loc);
}
// Sum over `axis` treating NaN as 0, as numpy.nansum.
// Example: nansum([1.0, float('nan'), 2.0]).eval() is 3.0
Tensor nansum(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// Product over `axis` treating NaN as 1, as numpy.nanprod.
// Example: nanprod([2.0, float('nan'), 3.0]).eval() is 6.0
Tensor nanprod(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// Maximum over `axis` ignoring NaN (NaN for an all-NaN slice, where NumPy also warns), as numpy.nanmax.
// Example: nanmax([1.0, float('nan'), 2.0]).eval() is 2.0
Tensor nanmax(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// Minimum over `axis` ignoring NaN (NaN for an all-NaN slice), as numpy.nanmin.
// Example: nanmin([1.0, float('nan'), 2.0]).eval() is 1.0
Tensor nanmin(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// Index of the largest non-NaN element, as numpy.nanargmax; an all-NaN slice gives -1 (as jax.numpy: a
// graph cannot raise NumPy's ValueError). Returns int64.
// Example: nanargmax([float('nan'), 3.0, 1.0]).eval() is 1
Tensor nanargmax(const Tensor& x, std::optional<int> axis = std::nullopt, bool keepdims = false,
                 Loc loc = Loc::current());
// Index of the smallest non-NaN element, as numpy.nanargmin; an all-NaN slice gives -1. Returns int64.
// Example: nanargmin([float('nan'), 3.0, 1.0]).eval() is 2
Tensor nanargmin(const Tensor& x, std::optional<int> axis = std::nullopt, bool keepdims = false,
                 Loc loc = Loc::current());
// Mean over `axis` of the non-NaN elements (NaN for an all-NaN slice), as numpy.nanmean.
// Example: nanmean([1.0, float('nan'), 3.0]).eval() is 2.0
Tensor nanmean(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// Variance over `axis` of the non-NaN elements, divided by (count - ddof), as numpy.nanvar.
// Example: nanvar([1.0, float('nan'), 3.0]).eval() is 1.0
Tensor nanvar(const Tensor& x, Axes axis = {}, double ddof = 0, bool keepdims = false, Loc loc = Loc::current());
// Standard deviation over `axis` of the non-NaN elements, as numpy.nanstd.
// Example: nanstd([1.0, float('nan'), 3.0]).eval() is 1.0
Tensor nanstd(const Tensor& x, Axes axis = {}, double ddof = 0, bool keepdims = false, Loc loc = Loc::current());
// Weighted mean over `axis`, as numpy.average: without weights the mean; weights of x's shape, or 1-D of
// the length of the one `axis`. The result is float. See average_returned for NumPy's returned=True.
// Example: average([1.0, 2.0, 3.0], weights=[3.0, 1.0, 0.0]).eval() is 1.25
Tensor average(const Tensor& x, std::optional<int> axis = std::nullopt,
               const std::optional<Tensor>& weights = std::nullopt, bool keepdims = false, Loc loc = Loc::current());
// (average, sum of the weights broadcast to the average's shape), as numpy.average(..., returned=True).
// Example: avg, wsum = average_returned(x, 0, w)
std::pair<Tensor, Tensor> average_returned(const Tensor& x, std::optional<int> axis = std::nullopt,
                                           const std::optional<Tensor>& weights = std::nullopt, bool keepdims = false,
                                           Loc loc = Loc::current());
// Covariance matrix of the variables in the rows of m (columns when rowvar is false), with y's variables
// appended, as numpy.cov; normalized by N - 1 (N with bias, N - ddof when ddof is given). A single variable
// gives a 0-d tensor, as NumPy. Returns float; float32 stays float32 (as jax.numpy; NumPy computes in float64).
// Example: cov([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]).eval() is [[1, -1], [-1, 1]]
Tensor cov(const Tensor& m, const std::optional<Tensor>& y = std::nullopt, bool rowvar = true, bool bias = false,
           std::optional<int> ddof = std::nullopt, Loc loc = Loc::current());
// Pearson correlation coefficients (cov normalized by the standard deviations, clipped to [-1, 1]), as
// numpy.corrcoef.
// Example: corrcoef([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]).eval() is [[1, -1], [-1, 1]]
Tensor corrcoef(const Tensor& x, const std::optional<Tensor>& y = std::nullopt, bool rowvar = true,
                Loc loc = Loc::current());

// ---- choosing ----
// choicelist[k] where condlist[k] is the first true condition, `default_value` where none is, as
// numpy.select. condlist: bool tensors; choicelist: tensors of as many; all broadcast together.
// Example: select([x < 0, x > 0], [-x, x], 0.0) is |x|
Tensor select(const std::vector<Tensor>& condlist, const std::vector<Tensor>& choicelist,
              const Operand& default_value = 0, Loc loc = Loc::current());
// One piece of piecewise: a function of x, or a constant.
using Piece = std::variant<std::function<Tensor(const Tensor&)>, double>;
// funclist[k](x) where condlist[k] is true (later conditions win, as NumPy), 0 elsewhere, or
// funclist[len(condlist)] there when funclist has one more entry, as numpy.piecewise. Each function
// gets the whole x and is evaluated everywhere. Returns x's dtype.
// Example: piecewise(x, {x < 0, x >= 0}, {[](auto& t) { return -t; }, [](auto& t) { return t; }}) is |x|
// Python: piecewise(x, [x < 0, x >= 0], [lambda t: -t, lambda t: t]) is abs(x)
Tensor piecewise(const Tensor& x, const std::vector<Tensor>& condlist, const std::vector<Piece>& funclist,
                 Loc loc = Loc::current());
// choices[a] elementwise, as numpy.choose: a integer indices broadcast with the choices. mode "raise"
// (the default; a graph cannot raise, so out-of-range indices clip, as in jax.numpy), "clip" or "wrap".
// Example: choose([0, 1, 0], [[1, 2, 3], [10, 20, 30]]).eval() is [1, 20, 3]
Tensor choose(const Tensor& a, const std::vector<Tensor>& choices, const std::string& mode = "raise",
              Loc loc = Loc::current());

// A new placeholder of x's shape (None where x's size is unknown) and dtype, as SymJAX's placeholder_like.
// Python: also a list or tuple of tensors or arrays (a list of placeholders).
// Example: placeholder_like(x, "x2")
Tensor placeholder_like(const Tensor& x, const std::string& name = "", Loc loc = Loc::current());

// ---- dtypes and shapes (host side: no graph op) ----
// Whether a value of dtype `from` converts to `to` under NumPy's casting rule: "no", "equiv", "safe"
// (the default), "same_kind" or "unsafe", as numpy.can_cast.
// Example: can_cast("int32", "float64") is True; can_cast("float64", "float32") is False
bool can_cast(DType from, DType to, const std::string& casting = "safe");
// The dtype of a result computed from tensors of `dtypes` and the (weak, NEP 50) numbers among
// `operands`, as numpy.result_type with symx's weak-number rule (a float with integers is float32).
// Python: result_type(*arrays_and_dtypes).
// Example: result_type("int32", 2.5) is float32
DType result_type(const std::vector<DType>& dtypes, const std::vector<Operand>& operands = {});
// Whether `dtype` is `kind`: a dtype's name ("float32") or one of NumPy's abstract kinds: "generic",
// "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating", "bool", as
// numpy.issubdtype (Python also takes numpy.floating and the other classes).
// Example: issubdtype("float32", "floating") is True
bool issubdtype(DType dtype, const std::string& kind);
// Whether `dtype` is of the array API's `kind`: "bool", "signed integer", "unsigned integer", "integral",
// "real floating", "complex floating", "numeric", or a dtype's name, as numpy.isdtype.
// Example: isdtype("int32", "integral") is True
bool isdtype(DType dtype, const std::string& kind);
// The shape that `shapes` broadcast to (NumPy's rule), as numpy.broadcast_shapes; ShapeError when they
// do not broadcast.
// Example: broadcast_shapes((3, 1), (4,)) is (3, 4)
Shape broadcast_shapes(const std::vector<Shape>& shapes);
// Whether x's dtype is complex64 or complex128, as numpy.iscomplexobj.
// Example: iscomplexobj(x) is False for a float32 x
bool iscomplexobj(const Tensor& x);

}  // namespace symx

// symx/ops.hpp: the NumPy-like free functions that build graph nodes. Names, arguments and
// semantics follow NumPy; every function takes the caller's source location (filled in
// automatically) so that shape errors point at the user's line.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <variant>
#include <vector>

#include "symx/tensor.hpp"

namespace symx {

// An operand of an elementwise op: a tensor, or a plain number that adopts the other operand's
// dtype (see the promotion rules in tensor.hpp).
class Operand {
 public:
  Operand(const Tensor& t) : value_(t) {}  // NOLINT: implicit by design
  template <class T>
  requires std::is_arithmetic_v<T> Operand(T v)
      : value_(static_cast<double>(v)), integral_(std::is_integral_v<T>) {}  // NOLINT
  // A weak complex number: complex64 beside float32 or a complex64 tensor, complex128 beside float64.
  template <class T>
  requires std::is_floating_point_v<T> Operand(std::complex<T> v)  // NOLINT: implicit by design
      : value_(static_cast<double>(v.real())), imag_(static_cast<double>(v.imag())), complex_(true) {}
  bool is_tensor() const { return std::holds_alternative<Tensor>(value_); }
  const Tensor& tensor() const { return std::get<Tensor>(value_); }
  double number() const { return std::get<double>(value_); }
  bool integral() const { return integral_; }
  // Whether the number is complex, and its value as one.
  bool is_complex() const { return complex_; }
  std::complex<double> complex_number() const { return {number(), imag_}; }

 private:
  std::variant<Tensor, double> value_;
  double imag_ = 0;
  bool integral_ = false;
  bool complex_ = false;
};

// Axes of a reduction: all (default), one int, or a list; negative values count from the end.
// Values are kept as int64 so that an out-of-range axis (from Python, say 2**32) is reported as
// such instead of wrapping to a valid one.
class Axes {
 public:
  Axes() = default;
  Axes(std::int64_t axis) : axes_(std::vector<std::int64_t>{axis}) {}  // NOLINT
  Axes(std::initializer_list<std::int64_t> axes) : axes_(std::vector<std::int64_t>(axes)) {}
  Axes(const std::vector<int>& axes) : axes_(std::vector<std::int64_t>(axes.begin(), axes.end())) {}  // NOLINT
  Axes(std::vector<std::int64_t> axes) : axes_(std::move(axes)) {}                                    // NOLINT
  bool all() const { return !axes_.has_value(); }
  const std::vector<std::int64_t>& list() const { return *axes_; }

 private:
  std::optional<std::vector<std::int64_t>> axes_;
};

// ---- composites ----
// Marks `result`, just built by a function composed of other ops, as that function's result, so that
// debugprint, to_dot and its label (which messages use) show it as `name` ("relu#10 [where]")
// rather than only as its primitive op. A node that anything else still holds (an argument returned unchanged, a node
// kept in a local variable) is left as it is. Returns `result`. C++ only, for composites written in
// C++ (symx's own and the toolkit's); pass the freshly built node itself, not a copy.
// Example: return named_composite("relu6", clip(x, 0, 6, loc));
Tensor named_composite(const std::string& name, Tensor result);

// ---- complex numbers ----
// complex64 and complex128 follow NumPy: float32 with complex64 stays complex64, float64 or int32/int64
// with complex64 give complex128. exp, log, sqrt, sin, cos, tan, tanh, reciprocal, square, +, -, *, /,
// power, abs, sign, where, sum, mean, matmul and the shape ops take complex operands; the rest reject them.
// Gradients follow JAX's convention: grad of a real loss L with respect to z = x + iy is dL/dx - i dL/dy
// (the conjugate of PyTorch's), so the VJP of a holomorphic f multiplies by f'(z) (docs/complex.md).
// The real part, as numpy.real: real of a complex tensor (float32 of complex64), x itself otherwise.
// Example: real(complex([1.0], [2.0])).eval() is [1.0]
Tensor real(const Tensor& x, Loc loc = Loc::current());
// The imaginary part, as numpy.imag: real dtype of a complex tensor, zeros of x's dtype otherwise.
// Example: imag(complex([1.0], [2.0])).eval() is [2.0]
Tensor imag(const Tensor& x, Loc loc = Loc::current());
// The complex conjugate, as numpy.conj (x itself for a real tensor).
// Example: conj(complex([1.0], [2.0])).eval() is [1-2j]
Tensor conj(const Tensor& x, Loc loc = Loc::current());
// numpy.conjugate: the same as conj.
// Example: conjugate(z) is conj(z)
Tensor conjugate(const Tensor& x, Loc loc = Loc::current());
// The complex number re + i im (broadcast), as lax.complex: float32 parts give complex64, float64 give
// complex128 (integers are float32 first).
// Example: complex([1.0], [2.0]).eval() is [1+2j]
Tensor complex(const Operand& re, const Operand& im, Loc loc = Loc::current());
// The argument of each element, in radians (degrees with deg), as numpy.angle: arctan2(imag, real).
// Example: angle(complex([0.0], [1.0])).eval() is [1.5707964]
Tensor angle(const Tensor& x, bool deg = false, Loc loc = Loc::current());

// ---- unary elementwise ----
// Elementwise -x, as numpy.negative.
// x: any signed dtype (not bool or uint8); returns x's shape and dtype.
// Example: negative([1, -2]).eval() is [-1, 2]
Tensor negative(const Tensor& x, Loc loc = Loc::current());
// Elementwise |x|, as numpy.abs.
// x: any dtype; returns x's shape and dtype.
// Example: abs([-1.5, 2.0]).eval() is [1.5, 2.0]
Tensor abs(const Tensor& x, Loc loc = Loc::current());
// Elementwise sign: -1, 0 or 1, as numpy.sign.
// x: any signed dtype (not bool or uint8); returns x's shape and dtype.
// Example: sign([-3.0, 0.0, 2.0]).eval() is [-1, 0, 1]
Tensor sign(const Tensor& x, Loc loc = Loc::current());
// Elementwise e**x, as numpy.exp.
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: exp([0.0, 1.0]).eval() is [1.0, 2.718...]
Tensor exp(const Tensor& x, Loc loc = Loc::current());
// Elementwise e**x - 1, accurate for small x, as numpy.expm1.
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: expm1([0.0]).eval() is [0.0]
Tensor expm1(const Tensor& x, Loc loc = Loc::current());
// Elementwise natural logarithm, as numpy.log.
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: log([1.0, 2.718282]).eval() is about [0.0, 1.0]
Tensor log(const Tensor& x, Loc loc = Loc::current());
// Elementwise log(1 + x), accurate for small x, as numpy.log1p.
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: log1p([0.0]).eval() is [0.0]
Tensor log1p(const Tensor& x, Loc loc = Loc::current());
// Elementwise square root, as numpy.sqrt.
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: sqrt([4.0, 9.0]).eval() is [2.0, 3.0]
Tensor sqrt(const Tensor& x, Loc loc = Loc::current());
// Elementwise 1 / sqrt(x).
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: rsqrt([4.0]).eval() is [0.5]
Tensor rsqrt(const Tensor& x, Loc loc = Loc::current());
// Elementwise x * x, as numpy.square.
// x: any dtype; returns x's shape and dtype.
// Example: square([3, -2]).eval() is [9, 4]
Tensor square(const Tensor& x, Loc loc = Loc::current());
// Elementwise 1 / x, as numpy.reciprocal.
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: reciprocal([2.0, 4.0]).eval() is [0.5, 0.25]
Tensor reciprocal(const Tensor& x, Loc loc = Loc::current());
// Elementwise sine (radians), as numpy.sin.
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: sin([0.0]).eval() is [0.0]
Tensor sin(const Tensor& x, Loc loc = Loc::current());
// Elementwise cosine (radians), as numpy.cos.
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: cos([0.0]).eval() is [1.0]
Tensor cos(const Tensor& x, Loc loc = Loc::current());
// Elementwise tangent (radians), as numpy.tan.
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: tan([0.0]).eval() is [0.0]
Tensor tan(const Tensor& x, Loc loc = Loc::current());
// Elementwise hyperbolic tangent, as numpy.tanh.
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: tanh([0.0]).eval() is [0.0]
Tensor tanh(const Tensor& x, Loc loc = Loc::current());
// Elementwise inverse tangent (radians), as numpy.arctan.
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: arctan([1.0]).eval() is [0.785398...]
Tensor arctan(const Tensor& x, Loc loc = Loc::current());
// Elementwise logistic function 1 / (1 + exp(-x)) (also nn.sigmoid).
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: sigmoid([0.0]).eval() is [0.5]
Tensor sigmoid(const Tensor& x, Loc loc = Loc::current());
// Elementwise Gauss error function, as scipy.special.erf.
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: erf([0.0]).eval() is [0.0]
Tensor erf(const Tensor& x, Loc loc = Loc::current());
// Elementwise largest integer <= x (as a float), as numpy.floor.
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: floor([1.5, -1.5]).eval() is [1.0, -2.0]
Tensor floor(const Tensor& x, Loc loc = Loc::current());
// Elementwise smallest integer >= x (as a float), as numpy.ceil.
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: ceil([1.5, -1.5]).eval() is [2.0, -1.0]
Tensor ceil(const Tensor& x, Loc loc = Loc::current());
// Elementwise rounding to the nearest integer, half to even, as numpy.round.
// x: float32 or float64 (cast integers with astype first); returns x's shape and dtype.
// Example: round([0.5, 1.5, 2.7]).eval() is [0.0, 2.0, 3.0]
Tensor round(const Tensor& x, Loc loc = Loc::current());
// Elementwise not x (nonzero is true), as numpy.logical_not.
// x: any dtype; returns bool of x's shape.
// Example: logical_not([True, False]).eval() is [False, True]
Tensor logical_not(const Tensor& x, Loc loc = Loc::current());
// Elementwise test for NaN, as numpy.isnan.
// x: any dtype; returns bool of x's shape.
// Example: isnan([1.0, float('nan')]).eval() is [False, True]
Tensor isnan(const Tensor& x, Loc loc = Loc::current());
// Elementwise test for a finite value (not inf or NaN), as numpy.isfinite.
// x: any dtype; returns bool of x's shape.
// Example: isfinite([1.0, float('inf')]).eval() is [True, False]
Tensor isfinite(const Tensor& x, Loc loc = Loc::current());
// Converts x to `dtype` (NumPy's astype with casting='unsafe': floats truncate toward zero).
// x: any shape and dtype; dtype: a symx dtype (Python: anything numpy.dtype accepts). Returns x's shape.
// Example: cast([1.7, -1.7], int32).eval() is [1, -1]
Tensor cast(const Tensor& x, DType dtype, Loc loc = Loc::current());
// The same as cast(x, dtype), under NumPy's method name.
// Example: astype(x, float64)
Tensor astype(const Tensor& x, DType dtype, Loc loc = Loc::current());
// Identity forward; blocks gradients (its gradient is zero).
// x: any shape and dtype; returns x unchanged.
// Example: grad(sum(stop_gradient(x) * x), x) is x, not 2 * x
Tensor stop_gradient(const Tensor& x, Loc loc = Loc::current());

// ---- binary elementwise (broadcasting, promotion) ----
// Elementwise x1 + x2, as numpy.add.
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype.
// Example: add([1, 2], 10).eval() is [11, 12]
Tensor add(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise x1 - x2, as numpy.subtract.
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype.
// Example: subtract([5, 7], [1, 2]).eval() is [4, 5]
Tensor subtract(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise x1 * x2, as numpy.multiply.
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype.
// Example: multiply([[1], [2]], [3, 4]) has shape (2, 2)
Tensor multiply(const Operand& a, const Operand& b, Loc loc = Loc::current());
// True division x1 / x2, as numpy.divide: integer operands give float32.
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype.
// Example: divide([1, 3], 2).eval() is [0.5, 1.5]
Tensor divide(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise x1 ** x2, as numpy.power. Gradients as PyTorch's: 0 for x1 where x2 == 0, 0 for x2
// where x1 == 0 and x2 >= 0, NaN for x2 where x1 < 0.
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype.
// Example: power([2.0, 3.0], 2).eval() is [4.0, 9.0]
Tensor power(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise larger of x1 and x2 (NaN propagates), as numpy.maximum. Where x1 == x2 each gets half
// the gradient (as PyTorch and JAX).
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype.
// Example: maximum([1, 5], 3).eval() is [3, 5]
Tensor maximum(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise smaller of x1 and x2 (NaN propagates), as numpy.minimum; ties split the gradient.
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype.
// Example: minimum([1, 5], 3).eval() is [1, 3]
Tensor minimum(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Remainder with the sign of the divisor, as numpy.mod (Python's %).
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype.
// Example: mod([-3, 3], 2).eval() is [1, 1]
Tensor mod(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise angle of the point (x2, x1) in radians, as numpy.arctan2.
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype (float operands).
// Example: arctan2(1.0, [1.0]).eval() is [0.785398...]
Tensor arctan2(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise x1 == x2, as numpy.equal.
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype (bool).
// Example: equal([1, 2], 2).eval() is [False, True]
Tensor equal(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise x1 != x2, as numpy.not_equal.
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype (bool).
// Example: not_equal([1, 2], 2).eval() is [True, False]
Tensor not_equal(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise x1 < x2, as numpy.less.
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype (bool).
// Example: less([1, 2], 2).eval() is [True, False]
Tensor less(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise x1 <= x2, as numpy.less_equal.
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype (bool).
// Example: less_equal([1, 3], 2).eval() is [True, False]
Tensor less_equal(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise x1 > x2, as numpy.greater.
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype (bool).
// Example: greater([1, 3], 2).eval() is [False, True]
Tensor greater(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise x1 >= x2, as numpy.greater_equal.
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype (bool).
// Example: greater_equal([1, 2], 2).eval() is [False, True]
Tensor greater_equal(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise x1 and x2 (nonzero is true), as numpy.logical_and.
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype (bool).
// Example: logical_and([True, True], [True, False]).eval() is [True, False]
Tensor logical_and(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise x1 or x2 (nonzero is true), as numpy.logical_or.
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype (bool).
// Example: logical_or([True, False], False).eval() is [True, False]
Tensor logical_or(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Division rounded toward -inf, as numpy.floor_divide (Python's //): integers stay integers
// (x // 0 is 0, as NumPy returns); floats follow NumPy's divmod, so 1 // 0.1 is 9.
// x1, x2: tensors or numbers (weak), broadcast together; the result has the promoted dtype.
// Example: floor_divide([7, -7], 2).eval() is [3, -4]
Tensor floor_divide(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Bitwise and of integer or bool operands (on bools, logical and), as numpy.bitwise_and (&).
// x1, x2: integer or bool tensors or numbers, broadcast together; returns the promoted dtype.
// Example: bitwise_and([12, 10], 6).eval() is [4, 2]
Tensor bitwise_and(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Bitwise or of integer or bool operands (on bools, logical or), as numpy.bitwise_or (|).
// x1, x2: integer or bool tensors or numbers, broadcast together; returns the promoted dtype.
// Example: bitwise_or([12, 10], 1).eval() is [13, 11]
Tensor bitwise_or(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Bitwise exclusive or of integer or bool operands, as numpy.bitwise_xor (^).
// x1, x2: integer or bool tensors or numbers, broadcast together; returns the promoted dtype.
// Example: bitwise_xor([12, 10], 6).eval() is [10, 12]
Tensor bitwise_xor(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Bitwise not (~x) of an integer or bool tensor (on bools, logical not), as numpy.bitwise_not
// (Python also names it invert). x: integer or bool; returns x's shape and dtype.
// Example: bitwise_not([0, 5]).eval() is [-1, -6]
Tensor bitwise_not(const Tensor& x, Loc loc = Loc::current());
// x1 << x2 of integer operands, as numpy.left_shift: a shift by the type's width or more (or by a
// negative amount) gives 0. x1, x2: integer tensors or numbers; returns the promoted dtype.
// Example: left_shift([1, 3], 2).eval() is [4, 12]
Tensor left_shift(const Operand& a, const Operand& b, Loc loc = Loc::current());
// x1 >> x2 of integer operands, as numpy.right_shift: a shift by the type's width or more (or by
// a negative amount) gives 0, or -1 for a negative x1. Returns the promoted dtype.
// Example: right_shift([8, -8], 2).eval() is [2, -2]
Tensor right_shift(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise choice, as numpy.where: x where condition is true, else y.
// condition (cast to bool), x, y: tensors or numbers, broadcast together; returns x and y's promoted dtype.
// Example: where([True, False], 1.0, 0.0).eval() is [1.0, 0.0]
Tensor where(const Operand& condition, const Operand& a, const Operand& b, Loc loc = Loc::current());
// Limits the values of a to [a_min, a_max], as numpy.clip. At a bound, a keeps its gradient (as
// torch.clamp; nn::relu and the toolkit's relu6/hard_tanh give 0 there, as PyTorch's do).
// a: any dtype; a_min, a_max: tensors or numbers broadcast with a. Returns a's dtype.
// Example: clip([-2, 0, 5], 0, 3).eval() is [0, 0, 3]
Tensor clip(const Tensor& x, const Operand& lo, const Operand& hi, Loc loc = Loc::current());

// ---- reductions ----
// Sum of the elements over `axis`, as numpy.sum.
// a: any shape; axis: int, list of ints or None (all axes); keepdims keeps reduced axes as size 1.
// Returns a's dtype (bool sums as int64).
// Example: sum(x, axis=1) of x with shape (2, 3) has shape (2,)
Tensor sum(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// Arithmetic mean over `axis`, as numpy.mean.
// a: any shape; axis: int, list of ints or None (all axes); keepdims keeps reduced axes as size 1.
// Returns a float dtype.
// Example: mean([[1.0, 2.0], [3.0, 4.0]], axis=0).eval() is [2.0, 3.0]
Tensor mean(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// Product of the elements over `axis`, as numpy.prod.
// a: any shape; axis: int, list of ints or None (all axes); keepdims keeps reduced axes as size 1.
// Returns a's dtype.
// Example: prod([1, 2, 3, 4]).eval() is 24
Tensor prod(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// Largest element over `axis`, as numpy.max (NaN propagates).
// a: any shape; axis: int, list of ints or None (all axes); keepdims keeps reduced axes as size 1.
// Returns a's dtype.
// Example: max([[1, 5], [7, 2]], axis=1).eval() is [5, 7]
Tensor max(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// Smallest element over `axis`, as numpy.min (NaN propagates).
// a: any shape; axis: int, list of ints or None (all axes); keepdims keeps reduced axes as size 1.
// Returns a's dtype.
// Example: min([[1, 5], [7, 2]], axis=1).eval() is [1, 2]
Tensor min(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// log(sum(exp(a))) over `axis`, computed stably, as scipy.special.logsumexp.
// a: float, any shape; axis: int, list of ints or None (all axes); keepdims keeps reduced axes as size 1.
// Returns a's dtype.
// Example: logsumexp([0.0, 0.0]).eval() is log(2) = 0.693...
Tensor logsumexp(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// Population variance over `axis` (ddof = 0), as numpy.var.
// a: any shape; axis: int, list of ints or None (all axes); keepdims keeps reduced axes as size 1.
// Returns a float dtype.
// Example: var([1.0, 2.0, 3.0, 4.0]).eval() is 1.25
Tensor var(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// Population standard deviation over `axis` (ddof = 0), as numpy.std; its gradient is 0 for a constant
// slice (as PyTorch's; the root's derivative is infinite there).
// a: any shape; axis: int, list of ints or None (all axes); keepdims keeps reduced axes as size 1.
// Returns a float dtype.
// Example: std([1.0, 3.0]).eval() is 1.0
Tensor std(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// Index of the largest element along one axis (of the flattened a when axis is None), as numpy.argmax;
// the first one on ties. a: any shape and dtype; axis: int or None. Returns int64.
// Example: argmax([[1, 5], [7, 2]], axis=1).eval() is [1, 0]
Tensor argmax(const Tensor& x, std::optional<int> axis = std::nullopt, bool keepdims = false, Loc loc = Loc::current());
// Index of the smallest element along one axis (of the flattened a when axis is None), as numpy.argmin;
// the first one on ties. a: any shape and dtype; axis: int or None. Returns int64.
// Example: argmin([[1, 5], [7, 2]], axis=1).eval() is [0, 1]
Tensor argmin(const Tensor& x, std::optional<int> axis = std::nullopt, bool keepdims = false, Loc loc = Loc::current());
// Running sum along one axis (of the flattened a when axis is None), as numpy.cumsum.
// a: any dtype; returns a's dtype, the shape of a (1-D when flattened).
// Example: cumsum([1, 2, 3]).eval() is [1, 3, 6]
Tensor cumsum(const Tensor& x, std::optional<int> axis = std::nullopt, Loc loc = Loc::current());

// ---- shape and indexing ----
// One entry of a basic index: an integer, a slice (start/stop/step, any may be absent), newaxis
// or an ellipsis.
struct Index {
  enum class Kind { integer, slice, newaxis, ellipsis } kind = Kind::slice;
  std::int64_t value = 0;
  std::optional<std::int64_t> start, stop, step;
  Index(std::int64_t i) : kind(Kind::integer), value(i) {}  // NOLINT
  Index(int i) : kind(Kind::integer), value(i) {}           // NOLINT
  static Index range(std::optional<std::int64_t> start = {}, std::optional<std::int64_t> stop = {},
                     std::optional<std::int64_t> step = {});
  static Index all() { return range(); }
  static Index newaxis();
  static Index ellipsis();

 private:
  Index() = default;
};

// The elements of a in a new shape, as numpy.reshape; one entry -1 is inferred from the others.
// a: any shape and dtype; shape: ints with the same element count. Returns a's dtype.
// Example: reshape(x, (3, -1)) of x with shape (2, 3) has shape (3, 2)
Tensor reshape(const Tensor& x, Shape shape, Loc loc = Loc::current());
// Permutes the axes of a, as numpy.transpose; reverses them when `axes` is empty (None in Python).
// Example: transpose(x) of x with shape (2, 3) has shape (3, 2)
Tensor transpose(const Tensor& x, std::vector<int> axes = {}, Loc loc = Loc::current());
// Inserts a size-1 axis at position `axis`, as numpy.expand_dims.
// Example: expand_dims(x, 0) of x with shape (3,) has shape (1, 3)
Tensor expand_dims(const Tensor& x, int axis, Loc loc = Loc::current());
// Removes the listed size-1 axes, or all size-1 axes when `axis` is empty (None), as numpy.squeeze.
// Example: squeeze(x) of x with shape (1, 3, 1) has shape (3,)
Tensor squeeze(const Tensor& x, std::vector<int> axes = {}, Loc loc = Loc::current());
// a broadcast to `shape`, as numpy.broadcast_to (size-1 axes stretch; new axes go in front).
// Example: broadcast_to([1, 2], (3, 2)) has shape (3, 2)
Tensor broadcast_to(const Tensor& x, Shape shape, Loc loc = Loc::current());
// Joins tensors along an existing axis, as numpy.concatenate; all other axes must match.
// arrays: a list of tensors of one dtype family (promoted). Returns the promoted dtype.
// Example: concatenate([x, y], axis=0) of shapes (2, 3) and (4, 3) has shape (6, 3)
Tensor concatenate(const std::vector<Tensor>& xs, int axis = 0, Loc loc = Loc::current());
// Joins tensors of one shape along a new axis, as numpy.stack.
// Example: stack([x, y], axis=0) of two (3,) tensors has shape (2, 3)
Tensor stack(const std::vector<Tensor>& xs, int axis = 0, Loc loc = Loc::current());
// Splits a into `sections` equal parts along `axis`, as numpy.split with an int (Python:
// indices_or_sections); returns a list of tensors.
// Example: split(x, 3) of x with shape (6, 2) gives three tensors of shape (2, 2)
std::vector<Tensor> split(const Tensor& x, std::int64_t sections, int axis = 0, Loc loc = Loc::current());
// Splits a at the given indices along `axis`, as numpy.split with a list.
// Example: split(arange(5), [1, 3]) gives tensors of 1, 2 and 2 elements
std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& indices, int axis = 0,
                          Loc loc = Loc::current());
// Basic indexing, as a[index] (which is the same): ints, slices (start/stop/step, negative steps too),
// newaxis (None) and an ellipsis; an int removes its axis.
// Example: slice(x, (1, slice(2, 5), None)) is x[1, 2:5, None]
Tensor slice(const Tensor& x, const std::vector<Index>& index, Loc loc = Loc::current());
// Gathers elements at integer `indices` along `axis`, as numpy.take; without axis, a is flattened.
// The result has shape a.shape[:axis] + indices.shape + a.shape[axis+1:].
// Example: take([10, 20, 30], [2, 0]).eval() is [30, 10]
Tensor take(const Tensor& x, const Tensor& indices, std::optional<int> axis = std::nullopt, Loc loc = Loc::current());
// Picks values of arr at `indices` along `axis`, as numpy.take_along_axis; indices is an integer
// tensor broadcastable with arr except along `axis`.
// Example: take_along_axis(x, argmax(x, axis=1, keepdims=True), axis=1) is the row maxima
Tensor take_along_axis(const Tensor& x, const Tensor& indices, int axis, Loc loc = Loc::current());
// Constant padding with (before, after) cells per axis, as numpy.pad(mode='constant').
// pad_width: one (before, after) pair per axis; constant_values: the fill value.
// Example: pad([1, 2], [(1, 2)]).eval() is [0, 1, 2, 0, 0]
Tensor pad(const Tensor& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& widths, double value = 0,
           Loc loc = Loc::current());
// Reverses the order of elements along the listed axes (all when empty/None), as numpy.flip.
// Example: flip([1, 2, 3]).eval() is [3, 2, 1]
Tensor flip(const Tensor& x, std::vector<int> axes = {}, Loc loc = Loc::current());
// a repeated `reps` times along each axis, as numpy.tile.
// Example: tile([1, 2], 2).eval() is [1, 2, 1, 2]
Tensor tile(const Tensor& x, const std::vector<std::int64_t>& reps, Loc loc = Loc::current());
// Repeats each element `repeats` times along `axis` (of the flattened a when None), as numpy.repeat.
// Example: repeat([1, 2], 2).eval() is [1, 1, 2, 2]
Tensor repeat(const Tensor& x, std::int64_t repeats, std::optional<int> axis = std::nullopt, Loc loc = Loc::current());
// One-hot encoding of integer labels along a new last axis of size `depth` (labels outside
// [0, depth) give all zeros). labels: integer tensor; returns `dtype` (float32 by default).
// Example: one_hot([0, 2], 3).eval() is [[1, 0, 0], [0, 0, 1]]
Tensor one_hot(const Tensor& labels, std::int64_t depth, DType dtype = DType::f32, Loc loc = Loc::current());
// An N x M matrix with ones on diagonal k (M defaults to N), as numpy.eye; float32 by default.
// Example: eye(2).eval() is [[1, 0], [0, 1]]
Tensor eye(std::int64_t n, std::optional<std::int64_t> m = std::nullopt, std::int64_t k = 0, DType dtype = DType::f32,
           Loc loc = Loc::current());
// `num` evenly spaced values from start to stop (stop included when endpoint), as numpy.linspace.
// Example: linspace(0, 1, 5).eval() is [0, 0.25, 0.5, 0.75, 1]
Tensor linspace(double start, double stop, std::int64_t num, bool endpoint = true, DType dtype = DType::f32,
                Loc loc = Loc::current());
// Values from start up to (not including) stop in steps of `step`, as numpy.arange; float32 by
// default. In Python, arange(stop) counts from 0.
// Example: arange(0, 5, 2, dtype=int64).eval() is [0, 2, 4]
Tensor arange(double start, double stop, double step = 1, DType dtype = DType::f32, Loc loc = Loc::current());
// A tensor of `shape` filled with 0, as numpy.zeros; float32 by default.
// Example: zeros((2, 3)) has shape (2, 3)
Tensor zeros(Shape shape, DType dtype = DType::f32, Loc loc = Loc::current());
// A tensor of `shape` filled with 1, as numpy.ones; float32 by default.
// Example: ones((2,), dtype=int32).eval() is [1, 1]
Tensor ones(Shape shape, DType dtype = DType::f32, Loc loc = Loc::current());
// Zeros of x's shape and dtype, as numpy.zeros_like.
// Example: zeros_like(x)
Tensor zeros_like(const Tensor& x, Loc loc = Loc::current());
// Ones of x's shape and dtype, as numpy.ones_like.
// Example: ones_like(x)
Tensor ones_like(const Tensor& x, Loc loc = Loc::current());
// Coordinate grids from 1-D tensors, as numpy.meshgrid; indexing="xy" (default) or "ij".
// Example: meshgrid(x, y) of x with 3 and y with 2 elements gives two tensors of shape (2, 3)
std::vector<Tensor> meshgrid(const std::vector<Tensor>& xs, const std::string& indexing = "xy",
                             Loc loc = Loc::current());

// ---- linear algebra ----
// Batched, broadcasting matrix product, as numpy.matmul (the @ operator); 1-D operands are
// promoted to matrices and the added axis removed. x1: (..., n, k), x2: (..., k, m) -> (..., n, m).
// Example: matmul(a, b) of shapes (5, 2, 3) and (3, 4) has shape (5, 2, 4)
Tensor matmul(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
// numpy.dot for 1-D and 2-D operands: inner product, matrix-vector or matrix-matrix product.
// Example: dot([1, 2], [3, 4]).eval() is 11
Tensor dot(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
// Outer product of two vectors (flattened first), as numpy.outer: shape (a.size, b.size).
// Example: outer([1, 2], [3, 4, 5]) has shape (2, 3)
Tensor outer(const Tensor& a, const Tensor& b, Loc loc = Loc::current());

namespace linalg {
// Inverse of square matrices, as numpy.linalg.inv. a: float (..., n, n); returns a's shape.
// Example: linalg.inv([[2.0, 0.0], [0.0, 4.0]]).eval() is [[0.5, 0], [0, 0.25]]
Tensor inv(const Tensor& a, Loc loc = Loc::current());
// Determinant of square matrices, as numpy.linalg.det. a: float (..., n, n); returns shape (...).
// Example: linalg.det([[1.0, 2.0], [3.0, 4.0]]).eval() is -2.0
Tensor det(const Tensor& a, Loc loc = Loc::current());
// (sign, log|det|) of square matrices, each of the batch shape, as numpy.linalg.slogdet.
// a: float (..., n, n).
// Example: sign, logabsdet = linalg.slogdet(a); det is sign * exp(logabsdet)
std::pair<Tensor, Tensor> slogdet(const Tensor& a, Loc loc = Loc::current());
// Lower-triangular L with a = L L^T, as numpy.linalg.cholesky. a: float symmetric positive
// definite (..., n, n); returns a's shape.
// Example: linalg.cholesky([[4.0, 2.0], [2.0, 2.0]]).eval() is [[2, 0], [1, 1]]
Tensor cholesky(const Tensor& a, Loc loc = Loc::current());
// x with a x = b, as numpy.linalg.solve. a: float (..., n, n); b: (..., n) or (..., n, k).
// Example: linalg.solve([[2.0, 0.0], [0.0, 4.0]], [2.0, 4.0]).eval() is [1.0, 1.0]
Tensor solve(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
// x with op(a) x = b for triangular a, as scipy.linalg.solve_triangular; op(a) is a, or a^T
// when transpose_a. a: float (..., n, n), lower or upper triangle used; b: (..., n, k).
// Example: linalg.triangular_solve(L, b, lower=True)
Tensor triangular_solve(const Tensor& a, const Tensor& b, bool lower = true, bool transpose_a = false,
                        bool unit_diagonal = false, Loc loc = Loc::current());
// Vector norms over `axis` (all axes by default, as one flat vector), as numpy.linalg.vector_norm:
// ord 2 (default), any p > 0 or p < 0 (sum(|x|^p)^(1/p)), inf (max |x|), -inf (min |x|), 0 (the
// count of nonzeros). Gradient 0 where the norm is 0 for every p > 0 (PyTorch's rule; JAX's formula gives NaN).
// Example: linalg.vector_norm(constant(std::vector<float>{3, 4})).eval() is 5
// Python: sx.linalg.vector_norm(sx.constant([3.0, 4.0])).eval() is 5.0
Tensor vector_norm(const Tensor& x, double ord = 2, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// Matrix norms over the last two axes (or `axis`, two axes), as numpy.linalg.matrix_norm: ord "fro"
// (default), "1", "-1", "inf", "-inf" (max or min column or row sums of |x|), "2", "-2" (the largest and
// smallest singular value) and "nuc" (their sum), from linalg::svdvals (symx/linalg.hpp).
// Example: linalg::matrix_norm(m, "1") of m = [[1, 2], [3, 4]] is 6
// Python: sx.linalg.matrix_norm(sx.constant([[1.0, 2.0], [3.0, 4.0]]), ord=1).eval() is 6.0
Tensor matrix_norm(const Tensor& x, const std::string& ord = "fro", std::vector<std::int64_t> axis = {-2, -1},
                   bool keepdims = false, Loc loc = Loc::current());
// numpy.linalg.norm(x, ord, axis, keepdims): ord "" is the 2-norm of a vector (1 axis, or a 1-D x
// with no axis) and the Frobenius norm of a matrix (2 axes, or a 2-D x); with no axis and x of
// another rank, ord must be "" (the 2-norm of x flattened). ord is a number ("1", "3", "inf",
// "-inf", "0") or "fro"/"nuc" as NumPy's.
// Example: linalg.norm(x) is sqrt(sum(x * x)); linalg.norm(m, "inf") the largest row sum of |m|
Tensor norm(const Tensor& x, const std::string& ord = "", std::optional<std::vector<std::int64_t>> axis = std::nullopt,
            bool keepdims = false, Loc loc = Loc::current());
}  // namespace linalg

// ---- neural-network ops ----
namespace nn {
// Padding of a convolution or pooling: "VALID", "SAME", explicit (low, high) per spatial axis,
// or one number for both sides of every spatial axis (PyTorch's `padding=1`).
struct Padding {
  std::string mode = "VALID";
  std::vector<std::pair<std::int64_t, std::int64_t>> explicit_pads;
  std::int64_t uniform = 0;  // mode "UNIFORM": this many cells on both sides of every spatial axis
  Padding() = default;
  Padding(const char* m) : mode(m) {}                               // NOLINT
  Padding(std::string m) : mode(std::move(m)) {}                    // NOLINT
  Padding(int cells) : mode("UNIFORM"), uniform(cells) {}           // NOLINT
  Padding(std::int64_t cells) : mode("UNIFORM"), uniform(cells) {}  // NOLINT
  Padding(std::vector<std::pair<std::int64_t, std::int64_t>> pads)
      : mode("EXPLICIT"), explicit_pads(std::move(pads)) {}  // NOLINT
};

// Rectified linear unit max(x, 0), with gradient 0 at x = 0 (as PyTorch and JAX). x: any numeric dtype;
// returns x's shape and dtype.
// Example: nn.relu([-1.0, 2.0]).eval() is [0.0, 2.0]
Tensor relu(const Tensor& x, Loc loc = Loc::current());
// x where x > 0, else negative_slope * x (so the gradient at 0 is negative_slope, as PyTorch's). x: float;
// returns x's shape and dtype.
// Example: nn.leaky_relu([-1.0, 2.0], 0.1).eval() is [-0.1, 2.0]
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01, Loc loc = Loc::current());
// x where x > 0, else alpha * (exp(x) - 1). x: float; returns x's shape and dtype.
// Example: nn.elu([0.0, 1.0]).eval() is [0.0, 1.0]
Tensor elu(const Tensor& x, double alpha = 1.0, Loc loc = Loc::current());
// Gaussian error linear unit: exact (erf) form by default; approximate=True uses the tanh form.
// x: float; returns x's shape and dtype.
// Example: nn.gelu([0.0]).eval() is [0.0]
Tensor gelu(const Tensor& x, bool approximate = false, Loc loc = Loc::current());
// log(1 + exp(x)), computed stably. x: float; returns x's shape and dtype.
// Example: nn.softplus([0.0]).eval() is [0.693...]
Tensor softplus(const Tensor& x, Loc loc = Loc::current());
// Logistic function 1 / (1 + exp(-x)), the same as sigmoid. x: float; returns x's shape and dtype.
// Example: nn.sigmoid([0.0]).eval() is [0.5]
Tensor sigmoid(const Tensor& x, Loc loc = Loc::current());
// exp(x) normalized to sum to 1 along `axis`, computed stably. x: float; returns x's shape.
// Example: nn.softmax([[1.0, 1.0]]).eval() is [[0.5, 0.5]]
Tensor softmax(const Tensor& x, int axis = -1, Loc loc = Loc::current());
// log(softmax(x)) along `axis`, computed stably. x: float; returns x's shape.
// Example: nn.log_softmax([[0.0, 0.0]]).eval() is [[-0.693..., -0.693...]]
Tensor log_softmax(const Tensor& x, int axis = -1, Loc loc = Loc::current());
// Cross-entropy between softmax(logits) and `labels` along `axis`: -sum(labels * log_softmax(logits)).
// logits: float, any shape; labels: probabilities (e.g. one-hot) of the logits' shape and dtype.
// Returns the logits' dtype and shape without `axis` (one loss per row).
// Example: nn.softmax_cross_entropy(logits, one_hot(y, 10)) of logits (N, 10) has shape (N,)
// Computed in the stable form logsumexp(logits) * sum(labels) - sum(labels * logits) by one primitive
// (one pass over each row when compiled); its gradient with respect to the logits,
// softmax(logits) * sum(labels) - labels, is another. The compiler rewrites the naive
// -sum(labels * log_softmax(logits)) and -sum(labels * log(softmax(logits))) into it, and the
// gradient autodiff builds from the log_softmax form into the gradient op.
Tensor softmax_cross_entropy(const Tensor& logits, const Tensor& labels, int axis = -1, Loc loc = Loc::current());
// In conv2d, conv2d_transpose and the pooling ops, a single value for strides, dilation, window or
// output_padding applies to every spatial axis (`strides = {2}` is `{2, 2}`), as in PyTorch.

// 1-D convolution (cross-correlation, as PyTorch's conv1d). x: float (N, C, W); w: (O, C/groups, K);
// padding "VALID", "SAME", [(lo, hi)] or one int for both sides. Returns (N, O, W_out) of x's dtype.
// Example: conv1d(x, w, padding="SAME") of x (8, 3, 100) and w (16, 3, 5) has shape (8, 16, 100)
Tensor conv1d(const Tensor& x, const Tensor& w, std::int64_t stride = 1, const Padding& padding = {},
              std::int64_t dilation = 1, std::int64_t groups = 1, Loc loc = Loc::current());
// 2-D convolution (cross-correlation, as PyTorch's conv2d). x: float (N, C, H, W); w: (O, C/groups, KH, KW);
// strides and dilation: one int or one per spatial axis; padding "VALID", "SAME", ((lo, hi), (lo, hi)) or one
// int for every side. Returns (N, O, H_out, W_out) of x's dtype.
// Example: conv2d(x, w, padding=1) of x (8, 3, 32, 32) and w (16, 3, 3, 3) has shape (8, 16, 32, 32)
Tensor conv2d(const Tensor& x, const Tensor& w, std::vector<std::int64_t> strides = {1, 1}, const Padding& padding = {},
              std::vector<std::int64_t> dilation = {1, 1}, std::int64_t groups = 1, Loc loc = Loc::current());
// The transpose (input gradient) of conv2d. x: (N, C, H, W), w: (C, O/groups, KH, KW) as in
// PyTorch's ConvTranspose2d; output_padding adds rows/columns at the end. Other arguments as conv2d.
// Example: conv2d_transpose(x, w, strides=2) of x (1, 16, 8, 8) and w (16, 3, 2, 2) has shape (1, 3, 16, 16)
Tensor conv2d_transpose(const Tensor& x, const Tensor& w, std::vector<std::int64_t> strides = {1, 1},
                        const Padding& padding = {}, std::vector<std::int64_t> output_padding = {0, 0},
                        std::vector<std::int64_t> dilation = {1, 1}, std::int64_t groups = 1, Loc loc = Loc::current());
// Maximum over each window of (H, W) of an (N, C, H, W) input; strides default to the window (None).
// window, strides: one int or (h, w); padding as conv2d (padding cells never win).
// Example: max_pool2d(x, 2) of x (8, 16, 32, 32) has shape (8, 16, 16, 16)
Tensor max_pool2d(const Tensor& x, std::vector<std::int64_t> window, std::vector<std::int64_t> strides = {},
                  const Padding& padding = {}, Loc loc = Loc::current());
// Mean over each window of (H, W) of an (N, C, H, W) input; arguments as max_pool2d. Padding cells are
// excluded from the average (count_include_pad = false).
// Example: avg_pool2d(x, (2, 2)) of x (8, 16, 32, 32) has shape (8, 16, 16, 16)
Tensor avg_pool2d(const Tensor& x, std::vector<std::int64_t> window, std::vector<std::int64_t> strides = {},
                  const Padding& padding = {}, Loc loc = Loc::current());
}  // namespace nn

// ---- random draws (fresh on every evaluation, reproducible from random::seed) ----
namespace random {
// Resets the default graph's generator: the same seed and the same sequence of calls give the
// same numbers.
// Example: random.seed(0)
void seed(std::uint64_t seed);
// Uniform draws in [low, high) of `shape`, fresh on every evaluation; float32 by default.
// Example: random.uniform((2, 3), -1.0, 1.0) has shape (2, 3)
Tensor uniform(Shape shape, double low = 0, double high = 1, DType dtype = DType::f32, Loc loc = Loc::current());
// Normal draws with `mean` and standard deviation `stddev` of `shape`, fresh on every evaluation;
// float32 by default.
// Example: random.normal((128, 64), stddev=0.1)
Tensor normal(Shape shape, double mean = 0, double stddev = 1, DType dtype = DType::f32, Loc loc = Loc::current());
// Normal draws restricted to [lower, upper] standard deviations (default +-2), then scaled by `stddev`
// and shifted by `mean`; float32 by default. The usual initializer of weights.
// Example: random.truncated_normal((784, 128), stddev=0.05)
Tensor truncated_normal(Shape shape, double mean = 0, double stddev = 1, double lower = -2, double upper = 2,
                        DType dtype = DType::f32, Loc loc = Loc::current());
// Draws that are true with probability p, of `shape`; bool by default.
// Example: random.bernoulli((4,), p=0.9) is a dropout keep-mask
Tensor bernoulli(Shape shape, double p = 0.5, DType dtype = DType::b8, Loc loc = Loc::current());
// Uniform integers in [low, high) of `shape`; int64 by default.
// Example: random.randint((3,), 0, 10) has shape (3,)
Tensor randint(Shape shape, std::int64_t low, std::int64_t high, DType dtype = DType::i64, Loc loc = Loc::current());
// A random permutation of 0..n-1 (int64), fresh on every evaluation.
// Example: take(x, random.permutation(len(x)), axis=0) shuffles the rows of x
Tensor permutation(std::int64_t n, Loc loc = Loc::current());

// ---- per-op seeds and more distributions (issue 21) ----
struct SeedStream;  // the shared state behind a Seed (src/ops/random.cpp)
// A per-op seed (SymJAX's seed=, and SymJAX's Seed object, T.Seed). A draw made with a seed has a random
// state of its own, so that it gives the same stream of numbers (fresh on each evaluation, reproducible
// from the seed) whatever the global seed and the other draws; without one (Seed(), std::nullopt,
// Python None) it draws from the graph's generator. Seed(n) is a stream that several draws can share:
// they take consecutive keys from it and one random state (a non-trainable int64 variable,
// Seed::state), so they differ from each other and are reproducible from n. An integer given as
// seed= makes a new Seed for that one draw (two draws given the same integer draw the same numbers,
// as two uses of one JAX key).
// Example: random::Seed s(7); auto a = random::normal({3}, 0, 1, f32, s), b = random::uniform({3}, 0, 1, f32, s);
// Python: s = sx.Seed(7); a = sx.random.normal((3,), seed=s); b = sx.random.uniform((3,), seed=s)
class Seed {
 public:
  Seed() = default;
  Seed(std::nullopt_t) {}  // NOLINT: seed = std::nullopt reads as "no seed"
  template <class I>
  requires std::is_integral_v<I> Seed(I seed)
      : Seed(static_cast<std::uint64_t>(seed), 0) {}                              // NOLINT: seed=5 as SymJAX writes it
  Seed(std::optional<std::uint64_t> seed) : Seed(seed ? Seed(*seed) : Seed()) {}  // NOLINT
  // Whether a seed was given, and its value.
  explicit operator bool() const { return stream_ != nullptr; }
  std::uint64_t operator*() const;
  // The stream's random state (SymJAX's Seed is this variable), made at the first draw; an undefined
  // Tensor before it, or for no seed.
  Tensor state() const;
  // SymJAX's Seed.update(other_seed=None): the draws of this seed move on to fresh numbers (as a split
  // of the key) or, given other_seed, to the numbers of a state derived from other_seed (reproducible
  // from it). Takes effect at the next evaluation. Example: s.update(); s.update(42)
  void update(std::optional<std::uint64_t> other_seed = std::nullopt) const;
  // The shared stream (keys and state), for the draws' implementation.
  const std::shared_ptr<SeedStream>& stream() const { return stream_; }

 private:
  Seed(std::uint64_t seed, int);
  std::shared_ptr<SeedStream> stream_;
};
// The draws above with a per-op seed (Python: their seed= argument).
Tensor uniform(Shape shape, double low, double high, DType dtype, Seed seed, Loc loc = Loc::current());
Tensor normal(Shape shape, double mean, double stddev, DType dtype, Seed seed, Loc loc = Loc::current());
Tensor truncated_normal(Shape shape, double mean, double stddev, double lower, double upper, DType dtype, Seed seed,
                        Loc loc = Loc::current());
Tensor bernoulli(Shape shape, double p, DType dtype, Seed seed, Loc loc = Loc::current());
Tensor randint(Shape shape, std::int64_t low, std::int64_t high, DType dtype, Seed seed, Loc loc = Loc::current());
Tensor permutation(std::int64_t n, Seed seed, Loc loc = Loc::current());

// In the distributions below (jax.random's, without the key), a parameter is a number or a tensor;
// `shape` defaults (nullopt, None in Python) to the broadcast shape of the parameters, and the
// parameters must broadcast to it. Composites over uniform/normal draws are differentiable in their
// parameters where JAX's are (reparameterized); gamma and poisson are primitives (Marsaglia-Tsang with
// the alpha < 1 boost; inversion for rates below 10, Hormann's PTRS above). A gamma draw's gradient with
// respect to its shape parameter is JAX's implicit one (the draw moved at a fixed quantile: the
// primitive random_gamma_grad), so beta, dirichlet and t are differentiable too; poisson is not.

// Standard Cauchy draws, tan(pi (u - 1/2)), as jax.random.cauchy.
// Example: random.cauchy((1000,))
Tensor cauchy(Shape shape = {}, DType dtype = DType::f32, Seed seed = std::nullopt, Loc loc = Loc::current());
// Standard exponential draws (rate 1), -log(1 - u), as jax.random.exponential.
// Example: random.exponential((1000,)) / rate
Tensor exponential(Shape shape = {}, DType dtype = DType::f32, Seed seed = std::nullopt, Loc loc = Loc::current());
// Standard Gumbel draws, -log(-log(u)), as jax.random.gumbel.
// Example: random.gumbel((1000,))
Tensor gumbel(Shape shape = {}, DType dtype = DType::f32, Seed seed = std::nullopt, Loc loc = Loc::current());
// Standard Laplace draws (density exp(-|x|)/2), as jax.random.laplace.
// Example: random.laplace((1000,))
Tensor laplace(Shape shape = {}, DType dtype = DType::f32, Seed seed = std::nullopt, Loc loc = Loc::current());
// Standard logistic draws, log(u / (1 - u)), as jax.random.logistic.
// Example: random.logistic((1000,))
Tensor logistic(Shape shape = {}, DType dtype = DType::f32, Seed seed = std::nullopt, Loc loc = Loc::current());
// Pareto draws of shape parameter b (density b / x^(b+1) on x >= 1), exp(exponential / b), as
// jax.random.pareto; differentiable in b.
// Example: random.pareto(3.0, (1000,))
Tensor pareto(const Operand& b, std::optional<Shape> shape = std::nullopt, DType dtype = DType::f32,
              Seed seed = std::nullopt, Loc loc = Loc::current());
// Gamma draws of shape a (scale 1), as jax.random.gamma (a primitive: Marsaglia-Tsang).
// Example: random.gamma(sx.constant([0.5, 2.0]), (1000, 2)) / rate
Tensor gamma(const Operand& a, std::optional<Shape> shape = std::nullopt, DType dtype = DType::f32,
             Seed seed = std::nullopt, Loc loc = Loc::current());
// Beta(a, b) draws, from two gamma draws, as jax.random.beta.
// Example: random.beta(2.0, 5.0, (1000,))
Tensor beta(const Operand& a, const Operand& b, std::optional<Shape> shape = std::nullopt, DType dtype = DType::f32,
            Seed seed = std::nullopt, Loc loc = Loc::current());
// Dirichlet draws of concentration alpha (..., K): shape + (K,), as jax.random.dirichlet.
// Example: random.dirichlet(sx.constant([1.0, 2.0, 3.0]), (100,)) has shape (100, 3)
Tensor dirichlet(const Tensor& alpha, std::optional<Shape> shape = std::nullopt, DType dtype = DType::f32,
                 Seed seed = std::nullopt, Loc loc = Loc::current());
// Poisson draws of rate lam (int64; -1 where lam is negative or NaN), as jax.random.poisson.
// Example: random.poisson(3.0, (1000,))
Tensor poisson(const Operand& lam, std::optional<Shape> shape = std::nullopt, DType dtype = DType::i64,
               Seed seed = std::nullopt, Loc loc = Loc::current());
// Student's t draws with df degrees of freedom, normal * sqrt(df / (2 gamma(df / 2))), as jax.random.t.
// Example: random.t(5.0, (1000,))
Tensor t(const Operand& df, std::optional<Shape> shape = std::nullopt, DType dtype = DType::f32,
         Seed seed = std::nullopt, Loc loc = Loc::current());
// Indices drawn from the categorical distribution of unnormalized log-probabilities `logits` along
// `axis` (int64), by the Gumbel-max trick, as jax.random.categorical; shape defaults to the batch shape
// (logits' shape without axis).
// Example: random.categorical(sx.log(sx.constant([0.2, 0.8])), shape=(1000,))
Tensor categorical(const Tensor& logits, int axis = -1, std::optional<Shape> shape = std::nullopt,
                   Seed seed = std::nullopt, Loc loc = Loc::current());
// Multivariate normal draws of mean (..., n) and covariance (..., n, n), mean + cholesky(cov) z, as
// jax.random.multivariate_normal (method "cholesky"); shape is the batch shape (without n).
// Example: random.multivariate_normal(mu, cov, (1000,)) has shape (1000, n)
Tensor multivariate_normal(const Tensor& mean, const Tensor& cov, std::optional<Shape> shape = std::nullopt,
                           DType dtype = DType::f32, const std::string& method = "cholesky", Seed seed = std::nullopt,
                           Loc loc = Loc::current());
// Elements of a (along axis 0; a tensor, or arange(n) for choice_n) drawn with or without replacement,
// with probabilities p (1-D, summing to 1) or uniformly, as jax.random.choice; result shape
// shape + a.shape[1:]. Without replacement, shape's size must not exceed len(a) (Gumbel top-k with p).
// Example: random.choice(x, (3,), replace=False)
Tensor choice(const Tensor& a, Shape shape = {}, bool replace = true, const std::optional<Tensor>& p = std::nullopt,
              int axis = 0, Seed seed = std::nullopt, Loc loc = Loc::current());
// x with its slices along `axis` in a random order, as jax.random.shuffle / permutation(key, x).
// Example: random.shuffle(x) shuffles the rows of x
Tensor shuffle(const Tensor& x, int axis = 0, Seed seed = std::nullopt, Loc loc = Loc::current());
}  // namespace random

// ---- host calls ----
// What host_call runs: a function of the host program inside the graph, as jax.pure_callback does.
// - name: names the call in errors and printing ("all_reduce").
// - compute: the output's value from the inputs' values; it must return an array of the type `infer`
//   gives (a ValueError naming the call otherwise). Its exceptions reach the caller of the function.
// - infer: the output's type from the inputs' types (called again when a graph with unknown sizes is
//   specialized to a call's sizes).
// - vjp (optional): the cotangent of each input (undefined: none) from the inputs, the output and its
//   cotangent; without it, differentiating through the call is a ValueError.
// - early: a compiled program runs the call as soon as it can, computing its inputs before any step
//   that does not lead to it (a collective started while the rest of a backward pass still runs).
// Example: HostCallSpec{.name = "log", .compute = f, .infer = [](auto& t) { return t[0]; }}
struct HostCallSpec {
  std::string name;
  std::function<Array(const std::vector<Array>& inputs)> compute;
  std::function<TensorType(const std::vector<TensorType>& inputs)> infer;
  std::function<std::vector<Tensor>(const std::vector<Tensor>& inputs, const Tensor& output, const Tensor& cotangent)>
      vjp;
  bool early = false;
};
// A node whose value is spec.compute of the values of `inputs` (one or more), in the reference
// evaluator and in compiled functions alike. It is never folded into a constant; nodes of the same
// spec over the same inputs may be merged, and one whose value no output or update needs is not run.
// Errors (ValueError): no compute or infer, no inputs, an undefined input.
// Example: host_call(spec, {x})
Tensor host_call(HostCallSpec spec, std::vector<Tensor> inputs, Loc loc = Loc::current());

// ---- operators ----
// The left operand of an operator together with the caller's source location: an operator cannot
// take a defaulted location parameter, but the converting constructor's default argument is
// evaluated where the operator is used, so shape errors in `a + b` name the user's line.
struct At {
  const Tensor& tensor;
  Loc loc;
  At(const Tensor& t, Loc loc = Loc::current()) : tensor(t), loc(loc) {}  // NOLINT: implicit by design
};
Tensor operator-(At x);
Tensor operator!(At x);
Tensor operator+(At a, const Tensor& b);
Tensor operator-(At a, const Tensor& b);
Tensor operator*(At a, const Tensor& b);
Tensor operator/(At a, const Tensor& b);
Tensor operator%(At a, const Tensor& b);
Tensor operator<(At a, const Tensor& b);
Tensor operator<=(At a, const Tensor& b);
Tensor operator>(At a, const Tensor& b);
Tensor operator>=(At a, const Tensor& b);
Tensor operator&&(At a, const Tensor& b);
Tensor operator||(At a, const Tensor& b);
Tensor operator&(At a, const Tensor& b);
Tensor operator|(At a, const Tensor& b);
Tensor operator^(At a, const Tensor& b);
Tensor operator~(At x);
// Operators with a plain number on either side (the number is weak, as in NumPy).
#define SYMX_SCALAR_OPERATOR(op, fn)                                                                \
  template <class T>                                                                                \
  requires std::is_arithmetic_v<T> Tensor operator op(At a, T b) { return fn(a.tensor, b, a.loc); } \
  template <class T>                                                                                \
  requires std::is_arithmetic_v<T> Tensor operator op(T a, At b) { return fn(a, b.tensor, b.loc); }
SYMX_SCALAR_OPERATOR(+, add)
SYMX_SCALAR_OPERATOR(-, subtract)
SYMX_SCALAR_OPERATOR(*, multiply)
SYMX_SCALAR_OPERATOR(/, divide)
SYMX_SCALAR_OPERATOR(%, mod)
SYMX_SCALAR_OPERATOR(<, less)
SYMX_SCALAR_OPERATOR(<=, less_equal)
SYMX_SCALAR_OPERATOR(>, greater)
SYMX_SCALAR_OPERATOR(>=, greater_equal)
SYMX_SCALAR_OPERATOR(&, bitwise_and)
SYMX_SCALAR_OPERATOR(|, bitwise_or)
SYMX_SCALAR_OPERATOR(^, bitwise_xor)
#undef SYMX_SCALAR_OPERATOR

}  // namespace symx

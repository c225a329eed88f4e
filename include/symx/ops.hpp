// symx/ops.hpp: the NumPy-like free functions that build graph nodes. Names, arguments and
// semantics follow NumPy; every function takes the caller's source location (filled in
// automatically) so that shape errors point at the user's line.
#pragma once

#include <cstdint>
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
    requires std::is_arithmetic_v<T>
  Operand(T v) : value_(static_cast<double>(v)), integral_(std::is_integral_v<T>) {}  // NOLINT
  bool is_tensor() const { return std::holds_alternative<Tensor>(value_); }
  const Tensor& tensor() const { return std::get<Tensor>(value_); }
  double number() const { return std::get<double>(value_); }
  bool integral() const { return integral_; }
 private:
  std::variant<Tensor, double> value_;
  bool integral_ = false;
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
  Axes(std::vector<std::int64_t> axes) : axes_(std::move(axes)) {}  // NOLINT
  bool all() const { return !axes_.has_value(); }
  const std::vector<std::int64_t>& list() const { return *axes_; }
 private:
  std::optional<std::vector<std::int64_t>> axes_;
};

// ---- unary elementwise ----
Tensor negative(const Tensor& x, Loc loc = Loc::current());
Tensor abs(const Tensor& x, Loc loc = Loc::current());
Tensor sign(const Tensor& x, Loc loc = Loc::current());
Tensor exp(const Tensor& x, Loc loc = Loc::current());
Tensor expm1(const Tensor& x, Loc loc = Loc::current());
Tensor log(const Tensor& x, Loc loc = Loc::current());
Tensor log1p(const Tensor& x, Loc loc = Loc::current());
Tensor sqrt(const Tensor& x, Loc loc = Loc::current());
Tensor rsqrt(const Tensor& x, Loc loc = Loc::current());
Tensor square(const Tensor& x, Loc loc = Loc::current());
Tensor reciprocal(const Tensor& x, Loc loc = Loc::current());
Tensor sin(const Tensor& x, Loc loc = Loc::current());
Tensor cos(const Tensor& x, Loc loc = Loc::current());
Tensor tan(const Tensor& x, Loc loc = Loc::current());
Tensor tanh(const Tensor& x, Loc loc = Loc::current());
Tensor arctan(const Tensor& x, Loc loc = Loc::current());
Tensor sigmoid(const Tensor& x, Loc loc = Loc::current());
Tensor erf(const Tensor& x, Loc loc = Loc::current());
Tensor floor(const Tensor& x, Loc loc = Loc::current());
Tensor ceil(const Tensor& x, Loc loc = Loc::current());
Tensor round(const Tensor& x, Loc loc = Loc::current());  // half to even, as NumPy
Tensor logical_not(const Tensor& x, Loc loc = Loc::current());
Tensor isnan(const Tensor& x, Loc loc = Loc::current());
Tensor isfinite(const Tensor& x, Loc loc = Loc::current());
Tensor cast(const Tensor& x, DType dtype, Loc loc = Loc::current());
Tensor astype(const Tensor& x, DType dtype, Loc loc = Loc::current());
// Identity forward; blocks gradients.
Tensor stop_gradient(const Tensor& x, Loc loc = Loc::current());

// ---- binary elementwise (broadcasting, promotion) ----
Tensor add(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor subtract(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor multiply(const Operand& a, const Operand& b, Loc loc = Loc::current());
// True division: integer operands give float32.
Tensor divide(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor power(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor maximum(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor minimum(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Remainder with the sign of the divisor, as numpy.mod.
Tensor mod(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor arctan2(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor equal(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor not_equal(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor less(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor less_equal(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor greater(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor greater_equal(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor logical_and(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor logical_or(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Division rounded toward -inf, as numpy.floor_divide (Python's //): integers stay integers
// (x // 0 is 0, as NumPy returns); floats follow NumPy's divmod, so 1 // 0.1 is 9.
Tensor floor_divide(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Bitwise ops on integer or bool operands (on bools they are the logical ops), as NumPy's.
Tensor bitwise_and(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor bitwise_or(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor bitwise_xor(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor bitwise_not(const Tensor& x, Loc loc = Loc::current());
// Shifts of integer operands, as NumPy's: a shift by the type's width or more (or by a negative
// amount) gives 0, or -1 for a right shift of a negative number.
Tensor left_shift(const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor right_shift(const Operand& a, const Operand& b, Loc loc = Loc::current());
// Elementwise choice: condition ? a : b (condition is cast to bool).
Tensor where(const Operand& condition, const Operand& a, const Operand& b, Loc loc = Loc::current());
Tensor clip(const Tensor& x, const Operand& lo, const Operand& hi, Loc loc = Loc::current());

// ---- reductions ----
Tensor sum(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
Tensor mean(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
Tensor prod(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
Tensor max(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
Tensor min(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
Tensor logsumexp(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// Population variance and standard deviation (ddof = 0), as NumPy's defaults.
Tensor var(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
Tensor std(const Tensor& x, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());
// Index of the extreme along one axis (flattened when axis is absent), int64.
Tensor argmax(const Tensor& x, std::optional<int> axis = std::nullopt, bool keepdims = false, Loc loc = Loc::current());
Tensor argmin(const Tensor& x, std::optional<int> axis = std::nullopt, bool keepdims = false, Loc loc = Loc::current());
// Running sum along one axis (flattened when absent).
Tensor cumsum(const Tensor& x, std::optional<int> axis = std::nullopt, Loc loc = Loc::current());

// ---- shape and indexing ----
// One entry of a basic index: an integer, a slice (start/stop/step, any may be absent), newaxis
// or an ellipsis.
struct Index {
  enum class Kind { integer, slice, newaxis, ellipsis } kind = Kind::slice;
  std::int64_t value = 0;
  std::optional<std::int64_t> start, stop, step;
  Index(std::int64_t i) : kind(Kind::integer), value(i) {}  // NOLINT
  Index(int i) : kind(Kind::integer), value(i) {}  // NOLINT
  static Index range(std::optional<std::int64_t> start = {}, std::optional<std::int64_t> stop = {},
                     std::optional<std::int64_t> step = {});
  static Index all() { return range(); }
  static Index newaxis();
  static Index ellipsis();
 private:
  Index() = default;
};

// Shape with one entry -1 inferred from the others.
Tensor reshape(const Tensor& x, Shape shape, Loc loc = Loc::current());
// Reverses the axes when `axes` is empty.
Tensor transpose(const Tensor& x, std::vector<int> axes = {}, Loc loc = Loc::current());
Tensor expand_dims(const Tensor& x, int axis, Loc loc = Loc::current());
// Removes the listed size-1 axes, or all size-1 axes when `axes` is empty.
Tensor squeeze(const Tensor& x, std::vector<int> axes = {}, Loc loc = Loc::current());
Tensor broadcast_to(const Tensor& x, Shape shape, Loc loc = Loc::current());
Tensor concatenate(const std::vector<Tensor>& xs, int axis = 0, Loc loc = Loc::current());
Tensor stack(const std::vector<Tensor>& xs, int axis = 0, Loc loc = Loc::current());
// Into `sections` equal parts.
std::vector<Tensor> split(const Tensor& x, std::int64_t sections, int axis = 0, Loc loc = Loc::current());
// At the given indices, as numpy.split with a list.
std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& indices, int axis = 0, Loc loc = Loc::current());
// Basic indexing: x[1, 2:5, ::-1, newaxis, ...].
Tensor slice(const Tensor& x, const std::vector<Index>& index, Loc loc = Loc::current());
// Gather along `axis` (numpy.take); indices are an integer tensor; without axis, x is flattened.
Tensor take(const Tensor& x, const Tensor& indices, std::optional<int> axis = std::nullopt, Loc loc = Loc::current());
Tensor take_along_axis(const Tensor& x, const Tensor& indices, int axis, Loc loc = Loc::current());
// Constant padding with (before, after) per axis.
Tensor pad(const Tensor& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& widths,
           double value = 0, Loc loc = Loc::current());
// Reverses the listed axes (all when empty).
Tensor flip(const Tensor& x, std::vector<int> axes = {}, Loc loc = Loc::current());
Tensor tile(const Tensor& x, const std::vector<std::int64_t>& reps, Loc loc = Loc::current());
// Repeats each element `repeats` times along `axis` (flattened when absent).
Tensor repeat(const Tensor& x, std::int64_t repeats, std::optional<int> axis = std::nullopt, Loc loc = Loc::current());
// One-hot encoding of integer labels along a new last axis.
Tensor one_hot(const Tensor& labels, std::int64_t depth, DType dtype = DType::f32, Loc loc = Loc::current());
Tensor eye(std::int64_t n, std::optional<std::int64_t> m = std::nullopt, std::int64_t k = 0, DType dtype = DType::f32, Loc loc = Loc::current());
Tensor linspace(double start, double stop, std::int64_t num, bool endpoint = true, DType dtype = DType::f32, Loc loc = Loc::current());
Tensor arange(double start, double stop, double step = 1, DType dtype = DType::f32, Loc loc = Loc::current());
Tensor zeros(Shape shape, DType dtype = DType::f32, Loc loc = Loc::current());
Tensor ones(Shape shape, DType dtype = DType::f32, Loc loc = Loc::current());
Tensor zeros_like(const Tensor& x, Loc loc = Loc::current());
Tensor ones_like(const Tensor& x, Loc loc = Loc::current());
// indexing="xy" (default, as NumPy) or "ij".
std::vector<Tensor> meshgrid(const std::vector<Tensor>& xs, const std::string& indexing = "xy", Loc loc = Loc::current());

// ---- linear algebra ----
// Batched, broadcasting matrix product (numpy.matmul; 1-D operands are promoted and squeezed).
Tensor matmul(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
// numpy.dot for 1-D and 2-D operands (inner product, matrix-vector, matrix-matrix).
Tensor dot(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor outer(const Tensor& a, const Tensor& b, Loc loc = Loc::current());

namespace linalg {
Tensor inv(const Tensor& a, Loc loc = Loc::current());
Tensor det(const Tensor& a, Loc loc = Loc::current());
// (sign, log|det|), each of the batch shape.
std::pair<Tensor, Tensor> slogdet(const Tensor& a, Loc loc = Loc::current());
// Lower-triangular L with a = L L^T.
Tensor cholesky(const Tensor& a, Loc loc = Loc::current());
// x with a x = b; b is (..., n) or (..., n, k).
Tensor solve(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
// x with op(a) x = b for triangular a, b (..., n, k); op(a) = a or a^T.
Tensor triangular_solve(const Tensor& a, const Tensor& b, bool lower = true, bool transpose_a = false,
                        bool unit_diagonal = false, Loc loc = Loc::current());
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
  Padding(const char* m) : mode(m) {}  // NOLINT
  Padding(std::string m) : mode(std::move(m)) {}  // NOLINT
  Padding(int cells) : mode("UNIFORM"), uniform(cells) {}  // NOLINT
  Padding(std::int64_t cells) : mode("UNIFORM"), uniform(cells) {}  // NOLINT
  Padding(std::vector<std::pair<std::int64_t, std::int64_t>> pads) : mode("EXPLICIT"), explicit_pads(std::move(pads)) {}  // NOLINT
};

Tensor relu(const Tensor& x, Loc loc = Loc::current());
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01, Loc loc = Loc::current());
Tensor elu(const Tensor& x, double alpha = 1.0, Loc loc = Loc::current());
// Exact (erf) GELU by default; approximate=true uses the tanh form.
Tensor gelu(const Tensor& x, bool approximate = false, Loc loc = Loc::current());
Tensor softplus(const Tensor& x, Loc loc = Loc::current());
Tensor sigmoid(const Tensor& x, Loc loc = Loc::current());
Tensor softmax(const Tensor& x, int axis = -1, Loc loc = Loc::current());
Tensor log_softmax(const Tensor& x, int axis = -1, Loc loc = Loc::current());
// Cross-entropy between softmax(logits) and `labels` (probabilities, e.g. one-hot, of the logits'
// shape) along `axis`: -sum(labels * log_softmax(logits)), computed in the stable form
// logsumexp(logits) * sum(labels) - sum(labels * logits); the result drops `axis`. One primitive
// (one pass over each row when compiled); its gradient with respect to the logits,
// softmax(logits) * sum(labels) - labels, is another. The compiler rewrites the naive
// -sum(labels * log_softmax(logits)) and -sum(labels * log(softmax(logits))) into it, and the
// gradient autodiff builds from the log_softmax form into the gradient op.
Tensor softmax_cross_entropy(const Tensor& logits, const Tensor& labels, int axis = -1, Loc loc = Loc::current());
// In conv2d, conv2d_transpose and the pooling ops, a single value for strides, dilation, window or
// output_padding applies to every spatial axis (`strides = {2}` is `{2, 2}`), as in PyTorch.
// x: (N, C, W), w: (O, C/groups, K).
Tensor conv1d(const Tensor& x, const Tensor& w, std::int64_t stride = 1, const Padding& padding = {},
              std::int64_t dilation = 1, std::int64_t groups = 1, Loc loc = Loc::current());
// x: (N, C, H, W), w: (O, C/groups, KH, KW).
Tensor conv2d(const Tensor& x, const Tensor& w, std::vector<std::int64_t> strides = {1, 1},
              const Padding& padding = {}, std::vector<std::int64_t> dilation = {1, 1},
              std::int64_t groups = 1, Loc loc = Loc::current());
// The transpose (input gradient) of conv2d. x: (N, C, H, W), w: (C, O/groups, KH, KW) as in
// PyTorch's ConvTranspose2d; output_padding adds rows/columns at the end.
Tensor conv2d_transpose(const Tensor& x, const Tensor& w, std::vector<std::int64_t> strides = {1, 1},
                        const Padding& padding = {}, std::vector<std::int64_t> output_padding = {0, 0},
                        std::vector<std::int64_t> dilation = {1, 1}, std::int64_t groups = 1,
                        Loc loc = Loc::current());
// Pooling over (H, W) of an (N, C, H, W) input; strides default to the window.
Tensor max_pool2d(const Tensor& x, std::vector<std::int64_t> window, std::vector<std::int64_t> strides = {},
                  const Padding& padding = {}, Loc loc = Loc::current());
// Padding cells are excluded from the average (count_include_pad = false).
Tensor avg_pool2d(const Tensor& x, std::vector<std::int64_t> window, std::vector<std::int64_t> strides = {},
                  const Padding& padding = {}, Loc loc = Loc::current());
}  // namespace nn

// ---- random draws (fresh on every evaluation, reproducible from random::seed) ----
namespace random {
// Resets the default graph's generator: the same seed and the same sequence of calls give the
// same numbers.
void seed(std::uint64_t seed);
Tensor uniform(Shape shape, double low = 0, double high = 1, DType dtype = DType::f32, Loc loc = Loc::current());
Tensor normal(Shape shape, double mean = 0, double stddev = 1, DType dtype = DType::f32, Loc loc = Loc::current());
// Normal draws restricted to [lower, upper] standard deviations (default +-2), then scaled.
Tensor truncated_normal(Shape shape, double mean = 0, double stddev = 1, double lower = -2, double upper = 2,
                        DType dtype = DType::f32, Loc loc = Loc::current());
Tensor bernoulli(Shape shape, double p = 0.5, DType dtype = DType::b8, Loc loc = Loc::current());
// Integers in [low, high).
Tensor randint(Shape shape, std::int64_t low, std::int64_t high, DType dtype = DType::i64, Loc loc = Loc::current());
// A random permutation of 0..n-1 (int64).
Tensor permutation(std::int64_t n, Loc loc = Loc::current());
}  // namespace random

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
#define SYMX_SCALAR_OPERATOR(op, fn)                                          \
  template <class T> requires std::is_arithmetic_v<T>                         \
  Tensor operator op(At a, T b) { return fn(a.tensor, b, a.loc); }            \
  template <class T> requires std::is_arithmetic_v<T>                         \
  Tensor operator op(T a, At b) { return fn(a, b.tensor, b.loc); }
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

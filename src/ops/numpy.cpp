// src/ops/numpy.cpp: the rows and functions of symx/numpy.hpp: the primitives that composites would
// compute inaccurately (inverse trig and hyperbolic functions, log2, log10, exp2, cbrt, hypot, copysign,
// fmod, signbit) and the composites and aliases over the primitives.
#include "symx/numpy.hpp"

#include <cmath>
#include <limits>
#include <numbers>

#include "ops/elementwise.hpp"
#include "ops/op_table.hpp"
#include "ops/promotion.hpp"

namespace symx {
namespace ops {
namespace {

using K = OpKind;
using Grads = std::vector<Tensor>;

const Tensor& input_of(const Tensor& y, std::size_t k = 0) { return y.node().inputs[k]; }

// ---- unary float primitives: one specialization each, with its value on one element and its VJP ----
template <OpKind op> struct Unary;

template <> struct Unary<K::Arcsin> {
  template <class T> static T value(T v) { return std::asin(v); }
  // 1 / sqrt(1 - x^2): inf at +-1, as PyTorch's.
  static Grads vjp(const Tensor& y, const Tensor& g) {
    const Tensor& x = input_of(y);
    return {g * rsqrt((1 - x) * (1 + x))};
  }
};
template <> struct Unary<K::Arccos> {
  template <class T> static T value(T v) { return std::acos(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) {
    const Tensor& x = input_of(y);
    return {-g * rsqrt((1 - x) * (1 + x))};
  }
};
template <> struct Unary<K::Arcsinh> {
  template <class T> static T value(T v) { return std::asinh(v); }
  // 1 / sqrt(x^2 + 1) as 1 / hypot(x, 1): no overflow of x^2 for large |x|.
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g / hypot(input_of(y), 1)}; }
};
template <> struct Unary<K::Arccosh> {
  template <class T> static T value(T v) { return std::acosh(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) {
    const Tensor& x = input_of(y);
    return {g * rsqrt((x - 1) * (x + 1))};
  }
};
template <> struct Unary<K::Arctanh> {
  template <class T> static T value(T v) { return std::atanh(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) {
    const Tensor& x = input_of(y);
    return {g / ((1 - x) * (1 + x))};
  }
};
template <> struct Unary<K::Sinh> {
  template <class T> static T value(T v) { return std::sinh(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g * cosh(input_of(y))}; }
};
template <> struct Unary<K::Cosh> {
  template <class T> static T value(T v) { return std::cosh(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g * sinh(input_of(y))}; }
};
template <> struct Unary<K::Log2> {
  template <class T> static T value(T v) { return std::log2(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g / (input_of(y) * std::numbers::ln2)}; }
};
template <> struct Unary<K::Log10> {
  template <class T> static T value(T v) { return std::log10(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g / (input_of(y) * std::numbers::ln10)}; }
};
template <> struct Unary<K::Exp2> {
  template <class T> static T value(T v) { return std::exp2(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g * y * std::numbers::ln2}; }
};
template <> struct Unary<K::Cbrt> {
  template <class T> static T value(T v) { return std::cbrt(v); }
  // 1 / (3 y^2): inf at 0, as JAX's.
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g / (3 * y * y)}; }
};

TensorType infer_float_unary(const std::vector<Tensor>& in, const Attr&) {
  const Tensor& x = in[0];
  if (!is_floating(x.dtype()))
    fail_dtype("expects a floating-point operand, got " + std::string(dtype_name(x.dtype())),
               "Cast the operand with astype(float32).");
  return x.type();
}

template <OpKind op> Array evaluate_unary(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  return map_unary(x, x.dtype(), [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>) return Unary<op>::value(v);
    else return v;  // rejected by the type rule
  });
}

template <OpKind... ops> void define_unary() {
  (define(ops, row(Family::elementwise, 1, Lowering::kernel, infer_float_unary, evaluate_unary<ops>, Unary<ops>::vjp,
                   false)),
   ...);
}

// ---- signbit ----
TensorType infer_signbit(const std::vector<Tensor>& in, const Attr&) { return {in[0].shape(), DType::b8}; }
Array evaluate_signbit(const EvalArgs& args) {
  return map_unary(args.inputs[0], DType::b8, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>) return std::signbit(v);
    else if constexpr (std::is_signed_v<T>) return v < 0;
    else return false;
  });
}

// ---- binary primitives (operands promoted to one dtype before make_node) ----
template <class T> T fmod_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::fmod(a, b);
  } else if constexpr (std::is_same_v<T, bool>) {
    return false;  // rejected by the type rule
  } else {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>)
      if (b == -1) return 0;
    return static_cast<T>(a % b);
  }
}

struct BinaryOperands {
  const Tensor& out;
  const Tensor& a;
  const Tensor& b;
  explicit BinaryOperands(const Tensor& out) : out(out), a(input_of(out, 0)), b(input_of(out, 1)) {}
  Tensor to_a(const Tensor& t) const { return unbroadcast(broadcast_to(t, out.shape()), a.shape()); }
  Tensor to_b(const Tensor& t) const { return unbroadcast(broadcast_to(t, out.shape()), b.shape()); }
};

// x / hypot and y / hypot; 0 at the origin (PyTorch's rule gives 0 / 0 = NaN there; symx's 0 is the
// subgradient that norms use, as arctan2's rule at the origin).
Grads vjp_hypot(const Tensor& out, const Tensor& g) {
  BinaryOperands o(out);
  Tensor zero = symx::equal(out, 0);
  Tensor safe = where(zero, 1, out);
  return {o.to_a(where(zero, 0, g * o.a / safe)), o.to_b(where(zero, 0, g * o.b / safe))};
}
// As PyTorch's: result / x1 (0 where x1 == 0) to x1, zero to x2.
Grads vjp_copysign(const Tensor& out, const Tensor& g) {
  BinaryOperands o(out);
  Tensor zero = symx::equal(o.a, 0);
  return {o.to_a(where(zero, 0, g * out / where(zero, 1, o.a))), o.to_b(g * 0)};
}
// As PyTorch's: g to x1, -g * trunc(x1 / x2) to x2.
Grads vjp_fmod(const Tensor& out, const Tensor& g) {
  BinaryOperands o(out);
  if (!is_floating(out.dtype())) return no_gradient(out, g);
  return {o.to_a(g), o.to_b(-g * trunc(o.a / o.b))};
}

template <OpKind op> TensorType infer_binary(const std::vector<Tensor>& in, const Attr&) {
  const Tensor& a = in[0];
  const Tensor& b = in[1];
  check_internal(a.dtype() == b.dtype(), "binary op operands must be promoted before make_node");
  if constexpr (op == K::Fmod) {
    if (a.dtype() == DType::b8) fail_dtype("fmod of booleans is not defined", "Cast the operands to int32 first.");
  } else {
    if (!is_floating(a.dtype()))
      fail_dtype("expects floating-point operands", "Cast the operands with astype(float32).");
  }
  return {broadcast_shapes(a.shape(), b.shape()), a.dtype()};
}

template <OpKind op> Array evaluate_binary(const EvalArgs& args) {
  const TensorType& type = args.node.type;
  return map_binary(args.inputs[0], args.inputs[1], type.shape, type.dtype, [](auto x, auto y) {
    using T = decltype(x);
    if constexpr (op == K::Fmod) {
      return fmod_value(x, y);
    } else if constexpr (!std::is_floating_point_v<T>) {
      return x;  // rejected by the type rule
    } else if constexpr (op == K::Hypot) {
      return std::hypot(x, y);
    } else {
      return std::copysign(x, y);
    }
  });
}

Tensor binary(OpKind op, const Operand& a, const Operand& b, Loc loc, bool floating) {
  DType dtype = common_dtype(a, b);
  if (floating && !is_inexact(dtype)) dtype = DType::f32;
  return make_node(op, {as_tensor(a, dtype, loc), as_tensor(b, dtype, loc)}, NoAttr{}, loc);
}

Tensor unary_float(OpKind op, const Tensor& x, Loc loc) {
  return make_node(op, {is_inexact(x.dtype()) ? x : cast(x, DType::f32, loc)}, NoAttr{}, loc);
}
Tensor as_float(const Tensor& x, Loc loc) { return is_inexact(x.dtype()) ? x : cast(x, DType::f32, loc); }
// Both operands as tensors of their common float dtype.
std::pair<Tensor, Tensor> float_pair(const Operand& a, const Operand& b, Loc loc) {
  DType dtype = common_dtype(a, b);
  if (!is_inexact(dtype)) dtype = DType::f32;  // complex stays complex (and meets the ops' own checks)
  return {as_tensor(a, dtype, loc), as_tensor(b, dtype, loc)};
}

// The user error of a composite's bad argument (a ValueError naming the function and the caller's line).
[[noreturn]] void bad_value(const char* name, const std::vector<Tensor>& operands, std::string problem, std::string fix,
                            Loc loc) {
  raise(name, operands, {TypeProblem::Kind::value, std::move(problem), std::move(fix)}, loc);
}

}  // namespace

void register_numpy_ops() {
  define_unary<K::Arcsin, K::Arccos, K::Arcsinh, K::Arccosh, K::Arctanh, K::Sinh, K::Cosh, K::Log2, K::Log10, K::Exp2,
               K::Cbrt>();
  define(K::Signbit, row(Family::elementwise, 1, Lowering::kernel, infer_signbit, evaluate_signbit, no_gradient, true));
  define(K::Hypot, row(Family::elementwise, 2, Lowering::kernel, infer_binary<K::Hypot>, evaluate_binary<K::Hypot>,
                       vjp_hypot, false));
  define(K::Copysign, row(Family::elementwise, 2, Lowering::kernel, infer_binary<K::Copysign>,
                          evaluate_binary<K::Copysign>, vjp_copysign, true));
  define(K::Fmod, row(Family::elementwise, 2, Lowering::kernel, infer_binary<K::Fmod>, evaluate_binary<K::Fmod>,
                      vjp_fmod, false));
}

}  // namespace ops

using ops::as_float;
using ops::unary_float;

// ---- primitives ----
Tensor arcsin(const Tensor& x, Loc loc) { return unary_float(OpKind::Arcsin, x, loc); }
Tensor arccos(const Tensor& x, Loc loc) { return unary_float(OpKind::Arccos, x, loc); }
Tensor arcsinh(const Tensor& x, Loc loc) { return unary_float(OpKind::Arcsinh, x, loc); }
Tensor arccosh(const Tensor& x, Loc loc) { return unary_float(OpKind::Arccosh, x, loc); }
Tensor arctanh(const Tensor& x, Loc loc) { return unary_float(OpKind::Arctanh, x, loc); }
Tensor sinh(const Tensor& x, Loc loc) { return unary_float(OpKind::Sinh, x, loc); }
Tensor cosh(const Tensor& x, Loc loc) { return unary_float(OpKind::Cosh, x, loc); }
Tensor log2(const Tensor& x, Loc loc) { return unary_float(OpKind::Log2, x, loc); }
Tensor log10(const Tensor& x, Loc loc) { return unary_float(OpKind::Log10, x, loc); }
Tensor exp2(const Tensor& x, Loc loc) { return unary_float(OpKind::Exp2, x, loc); }
Tensor cbrt(const Tensor& x, Loc loc) { return unary_float(OpKind::Cbrt, x, loc); }
Tensor signbit(const Tensor& x, Loc loc) { return ops::make_node(OpKind::Signbit, {x}, NoAttr{}, loc); }
Tensor hypot(const Operand& a, const Operand& b, Loc loc) { return ops::binary(OpKind::Hypot, a, b, loc, true); }
Tensor copysign(const Operand& a, const Operand& b, Loc loc) { return ops::binary(OpKind::Copysign, a, b, loc, true); }
Tensor fmod(const Operand& a, const Operand& b, Loc loc) { return ops::binary(OpKind::Fmod, a, b, loc, false); }

// ---- composites ----
Tensor deg2rad(const Tensor& x, Loc loc) {
  return named_composite("deg2rad", multiply(as_float(x, loc), std::numbers::pi / 180, loc));
}
Tensor rad2deg(const Tensor& x, Loc loc) {
  return named_composite("rad2deg", multiply(as_float(x, loc), 180 / std::numbers::pi, loc));
}

// max + log1p(exp(-|a - b|)); where both are the same infinity, that infinity (a - b is NaN there).
// At a tie the max splits the gradient and |a - b|'s is 0, so each operand gets half.
Tensor logaddexp(const Operand& x1, const Operand& x2, Loc loc) {
  auto [a, b] = ops::float_pair(x1, x2, loc);
  Tensor m = maximum(a, b, loc);
  Tensor r = add(m, log1p(exp(negative(abs(subtract(a, b, loc), loc), loc), loc), loc), loc);
  return named_composite("logaddexp", where(logical_and(symx::equal(a, b, loc), isinf(a, loc), loc), a, r, loc));
}
Tensor logaddexp2(const Operand& x1, const Operand& x2, Loc loc) {
  auto [a, b] = ops::float_pair(x1, x2, loc);
  Tensor m = maximum(a, b, loc);
  Tensor tail = multiply(log1p(exp2(negative(abs(subtract(a, b, loc), loc), loc), loc), loc), std::numbers::log2e, loc);
  return named_composite("logaddexp2",
                         where(logical_and(symx::equal(a, b, loc), isinf(a, loc), loc), a, add(m, tail, loc), loc));
}

Tensor ldexp(const Operand& x1, const Operand& x2, Loc loc) {
  Tensor x = x1.is_tensor() ? as_float(x1.tensor(), loc) : constant(x1.number(), DType::f32, loc);
  if (x2.is_tensor() && is_floating(x2.tensor().dtype()))
    ops::bad_value("ldexp", {x, x2.tensor()},
                   "the exponent has dtype " + std::string(dtype_name(x2.tensor().dtype())) +
                       ", but ldexp takes integer exponents",
                   "Pass integers (astype(int32)), or use x * exp2(e) for float exponents.", loc);
  if (!x2.is_tensor() && !x2.integral())
    ops::bad_value("ldexp", {x}, "the exponent is a float number, but ldexp takes integer exponents",
                   "Pass an int, or use x * exp2(e).", loc);
  Tensor e = x2.is_tensor() ? cast(x2.tensor(), x.dtype(), loc) : constant(x2.number(), x.dtype(), loc);
  // 2**e is exact at integers (exp2's primitive); two factors keep 2**e finite for e up to twice the
  // exponent range (ldexp(1e-30, 200) is finite in float32, 2**200 is not).
  Tensor half = floor(multiply(e, 0.5, loc), loc);
  return named_composite("ldexp", multiply(multiply(x, exp2(half, loc), loc), exp2(subtract(e, half, loc), loc), loc));
}

std::pair<Tensor, Tensor> frexp(const Tensor& x_in, Loc loc) {
  Tensor x = as_float(x_in, loc);
  Tensor a = abs(x, loc);
  Tensor special = logical_or(symx::equal(a, 0, loc), logical_not(isfinite(a, loc), loc), loc);
  Tensor safe = where(special, 1, a, loc);
  // floor(log2|x|) + 1, corrected by one where log2 rounded across an integer.
  Tensor e = add(floor(log2(safe, loc), loc), 1, loc);
  Tensor m = multiply(safe, exp2(negative(e, loc), loc), loc);
  e = where(greater_equal(m, 1, loc), add(e, 1, loc), where(less(m, 0.5, loc), subtract(e, 1, loc), e, loc), loc);
  Tensor mantissa = where(special, x, multiply(x, exp2(negative(e, loc), loc), loc), loc);
  Tensor exponent = cast(where(special, 0, e, loc), DType::i32, loc);
  return {named_composite("frexp", mantissa), named_composite("frexp", exponent)};
}

Tensor float_power(const Operand& a, const Operand& b, Loc loc) {
  auto f64 = [&](const Operand& o) {
    return o.is_tensor() ? cast(o.tensor(), DType::f64, loc) : constant(o.number(), DType::f64, loc);
  };
  return named_composite("float_power", power(f64(a), f64(b), loc));
}

std::pair<Tensor, Tensor> divmod(const Operand& a, const Operand& b, Loc loc) {
  return {floor_divide(a, b, loc), mod(a, b, loc)};
}

Tensor trunc(const Tensor& x, Loc loc) {
  if (!is_floating(x.dtype())) return x;
  return named_composite("trunc", where(less(x, 0, loc), ceil(x, loc), floor(x, loc), loc));
}

std::pair<Tensor, Tensor> modf(const Tensor& x_in, Loc loc) {
  Tensor x = as_float(x_in, loc);
  Tensor whole = trunc(x, loc);
  // x - trunc(x) keeps x's sign (-0.5 gives -0.5; -2.0 gives -0.0 by copysign); 0 for infinities.
  Tensor frac = copysign(where(isinf(x, loc), 0, subtract(x, stop_gradient(whole, loc), loc), loc), x, loc);
  return {named_composite("modf", frac), whole};
}

Tensor around(const Tensor& x, int decimals, Loc loc) {
  if (decimals == 0) return round(x, loc);
  if (!is_floating(x.dtype()) && decimals > 0) return x;
  const double scale = std::pow(10.0, decimals);
  if (!is_floating(x.dtype())) {  // integers to tens, hundreds...: computed in float64, cast back
    Tensor f = cast(x, DType::f64, loc);
    return named_composite("around",
                           cast(multiply(round(divide(f, 1 / scale, loc), loc), 1 / scale, loc), x.dtype(), loc));
  }
  // NumPy multiplies by 10**d and divides back for d >= 0, and the other way round for d < 0.
  if (decimals > 0) return named_composite("around", divide(round(multiply(x, scale, loc), loc), scale, loc));
  return named_composite("around", multiply(round(divide(x, 1 / scale, loc), loc), 1 / scale, loc));
}

Tensor heaviside(const Operand& x1, const Operand& x2, Loc loc) {
  DType dtype = ops::common_dtype(x1, x2);
  Tensor a = ops::as_tensor(x1, dtype, loc), b = ops::as_tensor(x2, dtype, loc);
  Tensor zero = zeros_like(a, loc);
  Tensor r = where(less(a, 0, loc), zero, where(greater(a, 0, loc), add(zero, 1, loc), b, loc), loc);
  if (is_floating(dtype)) r = where(isnan(a, loc), a, r, loc);
  return named_composite("heaviside", r);
}

Tensor fabs(const Tensor& x, Loc loc) { return named_composite("fabs", abs(as_float(x, loc), loc)); }

Tensor positive(const Tensor& x, Loc loc) {
  if (x.dtype() == DType::b8)
    ops::bad_value("positive", {x}, "numpy.positive is not defined for bool operands",
                   "Cast to an integer dtype first (astype(int32)).", loc);
  return x;
}

// NaN-ignoring extrema: the other operand where one is NaN.
Tensor fmax(const Operand& x1, const Operand& x2, Loc loc) {
  DType dtype = ops::common_dtype(x1, x2);
  Tensor a = ops::as_tensor(x1, dtype, loc), b = ops::as_tensor(x2, dtype, loc);
  if (!is_floating(dtype)) return maximum(a, b, loc);
  return named_composite("fmax", where(isnan(b, loc), a, where(isnan(a, loc), b, maximum(a, b, loc), loc), loc));
}
Tensor fmin(const Operand& x1, const Operand& x2, Loc loc) {
  DType dtype = ops::common_dtype(x1, x2);
  Tensor a = ops::as_tensor(x1, dtype, loc), b = ops::as_tensor(x2, dtype, loc);
  if (!is_floating(dtype)) return minimum(a, b, loc);
  return named_composite("fmin", where(isnan(b, loc), a, where(isnan(a, loc), b, minimum(a, b, loc), loc), loc));
}

Tensor logical_xor(const Operand& a, const Operand& b, Loc loc) {
  auto as_bool = [&](const Operand& o) {
    return o.is_tensor() ? not_equal(o.tensor(), 0, loc) : constant(o.number() != 0 ? 1.0 : 0.0, DType::b8, loc);
  };
  return named_composite("logical_xor", not_equal(as_bool(a), as_bool(b), loc));
}

// ---- predicates ----
Tensor isinf(const Tensor& x, Loc loc) {
  if (!is_floating(x.dtype())) return named_composite("isinf", logical_not(isfinite(x, loc), loc));
  return named_composite("isinf", symx::equal(abs(x, loc), std::numeric_limits<double>::infinity(), loc));
}
Tensor isposinf(const Tensor& x, Loc loc) {
  if (!is_floating(x.dtype())) return named_composite("isposinf", logical_not(isfinite(x, loc), loc));
  return named_composite("isposinf", symx::equal(x, std::numeric_limits<double>::infinity(), loc));
}
Tensor isneginf(const Tensor& x, Loc loc) {
  if (!is_floating(x.dtype())) return named_composite("isneginf", logical_not(isfinite(x, loc), loc));
  return named_composite("isneginf", symx::equal(x, -std::numeric_limits<double>::infinity(), loc));
}

Tensor isclose(const Operand& x1, const Operand& x2, double rtol, double atol, bool equal_nan, Loc loc) {
  DType dtype = ops::common_dtype(x1, x2);
  Tensor a = ops::as_tensor(x1, dtype, loc), b = ops::as_tensor(x2, dtype, loc);
  if (!is_floating(dtype)) {  // NumPy compares integers in float64
    a = cast(a, DType::f64, loc);
    b = cast(b, DType::f64, loc);
  }
  Tensor within = less_equal(abs(subtract(a, b, loc), loc), add(multiply(abs(b, loc), rtol, loc), atol, loc), loc);
  // Infinities are close only to themselves (inf - inf is NaN above).
  Tensor finite = logical_and(isfinite(a, loc), isfinite(b, loc), loc);
  Tensor r = logical_or(logical_and(finite, within, loc), symx::equal(a, b, loc), loc);
  if (equal_nan) r = logical_or(r, logical_and(isnan(a, loc), isnan(b, loc), loc), loc);
  return named_composite("isclose", r);
}
Tensor allclose(const Operand& a, const Operand& b, double rtol, double atol, bool equal_nan, Loc loc) {
  return named_composite("allclose", all(isclose(a, b, rtol, atol, equal_nan, loc), {}, false, loc));
}
Tensor array_equal(const Tensor& a, const Tensor& b, bool equal_nan, Loc loc) {
  if (a.shape() != b.shape()) return constant(0.0, DType::b8, loc);
  Tensor same = symx::equal(a, b, loc);
  if (equal_nan && (is_floating(a.dtype()) || is_floating(b.dtype())))
    same = logical_or(same, logical_and(isnan(a, loc), isnan(b, loc), loc), loc);
  return named_composite("array_equal", all(same, {}, false, loc));
}
Tensor isreal(const Tensor& x, Loc loc) {
  if (is_complex(x.dtype())) return named_composite("isreal", equal(imag(x, loc), 0, loc));
  return named_composite("isreal", broadcast_to(constant(1.0, DType::b8, loc), x.shape(), loc));
}
Tensor iscomplex(const Tensor& x, Loc loc) {
  if (is_complex(x.dtype())) return named_composite("iscomplex", not_equal(imag(x, loc), 0, loc));
  return named_composite("iscomplex", broadcast_to(constant(0.0, DType::b8, loc), x.shape(), loc));
}

Tensor nan_to_num(const Tensor& x, double nan, std::optional<double> posinf, std::optional<double> neginf, Loc loc) {
  if (!is_floating(x.dtype())) return x;
  const bool f32 = x.dtype() == DType::f32;
  const double big = f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
  Tensor r = where(isnan(x, loc), nan, x, loc);
  r = where(symx::equal(x, std::numeric_limits<double>::infinity(), loc), posinf.value_or(big), r, loc);
  r = where(symx::equal(x, -std::numeric_limits<double>::infinity(), loc), neginf.value_or(-big), r, loc);
  return named_composite("nan_to_num", r);
}

// ---- reductions ----
Tensor any(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  Tensor nonzero = x.dtype() == DType::b8 ? x : not_equal(x, 0, loc);
  return named_composite("any", greater(sum(nonzero, std::move(axis), keepdims, loc), 0, loc));
}
Tensor all(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  return named_composite("all", symx::equal(sum(logical_not(x, loc), std::move(axis), keepdims, loc), 0, loc));
}
Tensor count_nonzero(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  Tensor nonzero = x.dtype() == DType::b8 ? x : not_equal(x, 0, loc);
  return named_composite("count_nonzero", sum(nonzero, std::move(axis), keepdims, loc));
}
Tensor ptp(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  Tensor hi = max(x, axis, keepdims, loc), lo = min(x, axis, keepdims, loc);
  return named_composite("ptp", subtract(hi, lo, loc));
}

namespace {
Tensor without_nan(const Tensor& x, double fill, Loc loc) {
  return is_floating(x.dtype()) ? where(isnan(x, loc), fill, x, loc) : x;
}
// The number of non-NaN elements over `axis`, in x's float dtype.
Tensor count_not_nan(const Tensor& x, const Axes& axis, bool keepdims, Loc loc) {
  return cast(sum(logical_not(isnan(x, loc), loc), axis, keepdims, loc), x.dtype(), loc);
}
// `r` with NaN where every element of the slice is NaN.
Tensor nan_where_all_nan(const Tensor& r, const Tensor& x, const Axes& axis, bool keepdims, Loc loc) {
  if (!is_floating(x.dtype())) return r;
  return where(all(isnan(x, loc), axis, keepdims, loc), std::numeric_limits<double>::quiet_NaN(), r, loc);
}
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

Tensor nansum(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  return named_composite("nansum", sum(without_nan(x, 0, loc), std::move(axis), keepdims, loc));
}
Tensor nanprod(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  return named_composite("nanprod", prod(without_nan(x, 1, loc), std::move(axis), keepdims, loc));
}
Tensor nanmax(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  Tensor r = max(without_nan(x, -kInf, loc), axis, keepdims, loc);
  return named_composite("nanmax", nan_where_all_nan(r, x, axis, keepdims, loc));
}
Tensor nanmin(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  Tensor r = min(without_nan(x, kInf, loc), axis, keepdims, loc);
  return named_composite("nanmin", nan_where_all_nan(r, x, axis, keepdims, loc));
}

namespace {
Tensor nan_arg(bool is_max, const Tensor& x, std::optional<int> axis, bool keepdims, Loc loc) {
  const char* name = is_max ? "nanargmax" : "nanargmin";
  if (!is_floating(x.dtype())) return is_max ? argmax(x, axis, keepdims, loc) : argmin(x, axis, keepdims, loc);
  // NaN ranks below (above) every number, -inf included, by a two-key comparison: the first index of the
  // extremum among the non-NaN elements.
  Tensor nan = isnan(x, loc);
  Tensor filled = where(nan, is_max ? -kInf : kInf, x, loc);
  Axes axes = axis ? Axes(std::int64_t{*axis}) : Axes();
  Tensor best = is_max ? max(filled, axes, true, loc) : min(filled, axes, true, loc);
  // Candidates: non-NaN elements equal to the extremum; argmax of the candidate mask finds the first.
  Tensor candidate = logical_and(logical_not(nan, loc), symx::equal(filled, best, loc), loc);
  Tensor idx = argmax(cast(candidate, DType::i32, loc), axis, keepdims, loc);
  Tensor all_nan = all(nan, axes, keepdims, loc);
  return named_composite(name, where(all_nan, -1, idx, loc));
}
}  // namespace

Tensor nanargmax(const Tensor& x, std::optional<int> axis, bool keepdims, Loc loc) {
  return nan_arg(true, x, axis, keepdims, loc);
}
Tensor nanargmin(const Tensor& x, std::optional<int> axis, bool keepdims, Loc loc) {
  return nan_arg(false, x, axis, keepdims, loc);
}

Tensor nanmean(const Tensor& x, Axes axis, bool keepdims, Loc loc) {
  Tensor xf = as_float(x, loc);
  return named_composite("nanmean", divide(sum(without_nan(xf, 0, loc), axis, keepdims, loc),
                                           count_not_nan(xf, axis, keepdims, loc), loc));
}
Tensor nanvar(const Tensor& x, Axes axis, double ddof, bool keepdims, Loc loc) {
  Tensor xf = as_float(x, loc);
  Tensor n = count_not_nan(xf, axis, true, loc);
  Tensor mu = divide(sum(without_nan(xf, 0, loc), axis, true, loc), n, loc);
  Tensor sq = sum(square(without_nan(subtract(xf, mu, loc), 0, loc), loc), axis, keepdims, loc);
  // NaN where ddof leaves no degrees of freedom (NumPy also warns).
  Tensor dof = subtract(count_not_nan(xf, axis, keepdims, loc), ddof, loc);
  Tensor none = less_equal(dof, 0, loc);
  return named_composite("nanvar", where(none, std::numeric_limits<double>::quiet_NaN(),
                                         divide(sq, where(none, 1, dof, loc), loc), loc));
}
Tensor nanstd(const Tensor& x, Axes axis, double ddof, bool keepdims, Loc loc) {
  // sqrt with the gradient 0 at a zero variance (as std's).
  Tensor v = nanvar(x, std::move(axis), ddof, keepdims, loc);
  Tensor positive = greater(v, 0, loc);
  return named_composite("nanstd", where(positive, sqrt(where(positive, v, 1, loc), loc), v, loc));
}

namespace {
// The weights of average as a tensor of x's shape (1-D weights along `axis` are reshaped to broadcast).
Tensor average_weights(const Tensor& x, std::optional<int> axis, const Tensor& w, Loc loc) {
  if (w.shape() == x.shape()) return w;
  if (!axis)
    ops::bad_value("average", {x, w},
                   "the weights have shape " + shape_string(w.shape()) + " and a " + shape_string(x.shape()) +
                       ", but weights of another shape than a's need an axis",
                   "Give axis=..., or weights of a's shape.", loc);
  const int ax = *axis < 0 ? *axis + x.ndim() : *axis;
  if (w.ndim() != 1 || ax < 0 || ax >= x.ndim() || w.shape()[0] != x.shape()[static_cast<std::size_t>(ax)])
    ops::bad_value("average", {x, w},
                   "the weights have shape " + shape_string(w.shape()) + " for a of shape " + shape_string(x.shape()) +
                       " and axis " + std::to_string(*axis),
                   "1-D weights need the length of a's axis; otherwise give weights of a's shape.", loc);
  Shape shape(static_cast<std::size_t>(x.ndim()), 1);
  shape[static_cast<std::size_t>(ax)] = w.shape()[0];
  return reshape(w, shape, loc);
}
}  // namespace

std::pair<Tensor, Tensor> average_returned(const Tensor& x, std::optional<int> axis,
                                           const std::optional<Tensor>& weights, bool keepdims, Loc loc) {
  Tensor xf = as_float(x, loc);
  Axes axes = axis ? Axes(std::int64_t{*axis}) : Axes();
  if (!weights) {
    Tensor avg = mean(xf, axes, keepdims, loc);
    Tensor count = sum(ones_like(xf, loc), axes, keepdims, loc);
    return {named_composite("average", avg), count};
  }
  Tensor w = average_weights(xf, axis, *weights, loc);
  DType dtype = promote_types(xf.dtype(), is_floating(w.dtype()) ? w.dtype() : xf.dtype());
  Tensor wf = cast(w, dtype, loc);
  Tensor wsum = sum(broadcast_to(wf, xf.shape(), loc), axes, keepdims, loc);
  Tensor avg = divide(sum(multiply(cast(xf, dtype, loc), wf, loc), axes, keepdims, loc), wsum, loc);
  return {named_composite("average", avg), wsum};
}
Tensor average(const Tensor& x, std::optional<int> axis, const std::optional<Tensor>& weights, bool keepdims, Loc loc) {
  return average_returned(x, axis, weights, keepdims, loc).first;
}

Tensor cov(const Tensor& m_in, const std::optional<Tensor>& y, bool rowvar, bool bias, std::optional<int> ddof,
           Loc loc) {
  if (m_in.ndim() > 2)
    ops::bad_value("cov", {m_in}, "m has " + std::to_string(m_in.ndim()) + " dimensions, but cov takes 1-D or 2-D",
                   "Pass the variables as the rows (or columns, rowvar=False) of a matrix.", loc);
  auto rows = [&](const Tensor& t) {
    Tensor f = as_float(t, loc);
    if (f.ndim() < 2) return reshape(f, {1, -1}, loc);
    return rowvar ? f : transpose(f, {}, loc);
  };
  Tensor xs = rows(m_in);
  if (y) xs = concatenate({xs, rows(*y)}, 0, loc);
  const std::int64_t n = xs.shape()[1];
  const double dof = static_cast<double>(n) - (ddof ? *ddof : (bias ? 0 : 1));
  Tensor centered = subtract(xs, mean(xs, 1, true, loc), loc);
  Tensor c = divide(matmul(centered, transpose(centered, {}, loc), loc), dof, loc);
  if (xs.shape()[0] == 1) c = reshape(c, {}, loc);
  return named_composite("cov", c);
}
Tensor corrcoef(const Tensor& x, const std::optional<Tensor>& y, bool rowvar, Loc loc) {
  Tensor c = cov(x, y, rowvar, false, std::nullopt, loc);
  if (c.ndim() == 0) return named_composite("corrcoef", divide(c, c, loc));
  Tensor d = sqrt(sum(multiply(c, eye(c.shape()[0], std::nullopt, 0, c.dtype(), loc), loc), 1, false, loc), loc);
  Tensor r = divide(divide(c, reshape(d, {-1, 1}, loc), loc), reshape(d, {1, -1}, loc), loc);
  return named_composite("corrcoef", clip(r, -1, 1, loc));
}

// ---- choosing ----
Tensor select(const std::vector<Tensor>& condlist, const std::vector<Tensor>& choicelist, const Operand& default_value,
              Loc loc) {
  if (condlist.size() != choicelist.size())
    ops::bad_value("select", condlist,
                   "condlist has " + std::to_string(condlist.size()) + " conditions but choicelist " +
                       std::to_string(choicelist.size()) + " choices",
                   "Give one choice per condition.", loc);
  if (condlist.empty())
    ops::bad_value("select", {}, "condlist and choicelist are empty", "Give at least one condition and choice.", loc);
  for (const Tensor& c : condlist)
    if (c.dtype() != DType::b8)
      ops::bad_value("select", {c},
                     "a condition has dtype " + std::string(dtype_name(c.dtype())) + "; select takes bool conditions",
                     "Compare first (x > 0), or cast with astype(bool).", loc);
  // The first true condition wins: build from the last.
  DType dtype = choicelist[0].dtype();
  for (const Tensor& c : choicelist) dtype = promote_types(dtype, c.dtype());
  Tensor out =
      ops::as_tensor(default_value,
                     default_value.is_tensor() ? promote_types(dtype, default_value.tensor().dtype()) : dtype, loc);
  for (std::size_t k = condlist.size(); k-- > 0;) out = where(condlist[k], choicelist[k], out, loc);
  return named_composite("select", out);
}

Tensor piecewise(const Tensor& x, const std::vector<Tensor>& condlist, const std::vector<Piece>& funclist, Loc loc) {
  const std::size_t n = condlist.size();
  if (funclist.size() != n && funclist.size() != n + 1)
    ops::bad_value("piecewise", {x},
                   "condlist has " + std::to_string(n) + " conditions but funclist " + std::to_string(funclist.size()) +
                       " functions",
                   "Give one function per condition, or one more for where no condition holds.", loc);
  auto piece = [&](const Piece& p) {
    if (const auto* v = std::get_if<double>(&p)) return broadcast_to(constant(*v, x.dtype(), loc), x.shape(), loc);
    return cast(std::get<0>(p)(x), x.dtype(), loc);
  };
  Tensor out = funclist.size() == n + 1 ? piece(funclist[n]) : zeros_like(x, loc);
  for (std::size_t k = 0; k < n; ++k) out = where(condlist[k], piece(funclist[k]), out, loc);  // later ones win
  return named_composite("piecewise", out);
}

Tensor choose(const Tensor& a, const std::vector<Tensor>& choices, const std::string& mode, Loc loc) {
  if (choices.empty()) ops::bad_value("choose", {a}, "choices is empty", "Give at least one choice.", loc);
  if (mode != "raise" && mode != "clip" && mode != "wrap")
    ops::bad_value("choose", {a}, "mode is \"" + mode + "\"", "Use mode=\"raise\", \"clip\" or \"wrap\".", loc);
  if (is_floating(a.dtype()) || a.dtype() == DType::b8)
    ops::bad_value("choose", {a}, "a has dtype " + std::string(dtype_name(a.dtype())) + "; its entries are indices",
                   "Pass integer indices (astype(int64)).", loc);
  const auto n = static_cast<std::int64_t>(choices.size());
  Tensor idx = cast(a, DType::i64, loc);
  idx = mode == "wrap" ? mod(idx, n, loc) : clip(idx, 0, n - 1, loc);
  Tensor out = choices.back();
  for (std::size_t k = choices.size() - 1; k-- > 0;)
    out = where(symx::equal(idx, static_cast<std::int64_t>(k), loc), choices[k], out, loc);
  return named_composite("choose", broadcast_to(out, ops::broadcast_shapes(idx.shape(), out.shape()), loc));
}

// ---- dtypes and shapes ----
namespace {
int kind_rank(DType d) {  // b < u < i < f < c
  switch (d) {
    case DType::c64:
    case DType::c128: return 4;
    case DType::b8: return 0;
    case DType::u8: return 1;
    case DType::i32:
    case DType::i64: return 2;
    case DType::f32:
    case DType::f64: return 3;
  }
  return 0;
}
}  // namespace

bool can_cast(DType from, DType to, const std::string& casting) {
  if (casting == "no" || casting == "equiv") return from == to;
  if (casting == "unsafe") return true;
  const bool safe = promote_types(from, to) == to;
  if (casting == "safe") return safe;
  // Safe casts, downcasts within a kind (float64 -> float32, int64 -> int32) and casts to a later kind
  // (bool < unsigned < signed < float: int32 -> float32), as NumPy.
  if (casting == "same_kind") return safe || kind_rank(from) <= kind_rank(to);
  throw ValueError("can_cast: casting \"" + casting +
                   "\" is not one of NumPy's rules. Use \"no\", \"equiv\", \"safe\", \"same_kind\" or \"unsafe\".");
}

DType result_type(const std::vector<DType>& dtypes, const std::vector<Operand>& operands) {
  std::optional<DType> strong;
  for (DType d : dtypes) strong = strong ? promote_types(*strong, d) : d;
  for (const Operand& o : operands)
    if (o.is_tensor()) strong = strong ? promote_types(*strong, o.tensor().dtype()) : o.tensor().dtype();
  bool weak_float = false, weak_int = false, weak_bool_only = true;
  for (const Operand& o : operands) {
    if (o.is_tensor()) continue;
    (o.integral() ? weak_int : weak_float) = true;
    weak_bool_only = false;
  }
  if (!strong) {
    if (weak_bool_only) throw ValueError("result_type: no arrays, dtypes or numbers given. Pass at least one.");
    return weak_float ? DType::f32 : DType::i64;
  }
  DType d = *strong;
  if (weak_float && !is_floating(d)) return DType::f32;
  if (weak_int && d == DType::b8) return DType::i64;
  return d;
}

bool issubdtype(DType dtype, const std::string& kind) {
  if (kind == "generic") return true;
  if (kind == "bool" || kind == "bool_") return dtype == DType::b8;
  if (kind == "number") return dtype != DType::b8;
  if (kind == "integer") return is_integer(dtype);
  if (kind == "signedinteger") return dtype == DType::i32 || dtype == DType::i64;
  if (kind == "unsignedinteger") return dtype == DType::u8;
  if (kind == "inexact" || kind == "floating") return is_floating(dtype);
  if (kind == "complexfloating") return false;
  for (DType d : {DType::b8, DType::u8, DType::i32, DType::i64, DType::f32, DType::f64})
    if (dtype_name(d) == kind) return dtype == d;
  throw ValueError("issubdtype: \"" + kind +
                   "\" is not a dtype or one of NumPy's kinds. Use a dtype name (\"float32\") or generic, number, "
                   "integer, signedinteger, unsignedinteger, inexact, floating or bool.");
}

bool isdtype(DType dtype, const std::string& kind) {
  if (kind == "bool") return dtype == DType::b8;
  if (kind == "signed integer") return dtype == DType::i32 || dtype == DType::i64;
  if (kind == "unsigned integer") return dtype == DType::u8;
  if (kind == "integral") return is_integer(dtype);
  if (kind == "real floating") return is_floating(dtype);
  if (kind == "complex floating") return is_complex(dtype);
  if (kind == "numeric") return dtype != DType::b8;
  for (DType d : {DType::b8, DType::u8, DType::i32, DType::i64, DType::f32, DType::f64, DType::c64, DType::c128})
    if (dtype_name(d) == kind) return dtype == d;
  throw ValueError("isdtype: kind \"" + kind +
                   "\" is not a dtype or one of the array API's kinds. Use \"bool\", \"signed integer\", \"unsigned "
                   "integer\", \"integral\", \"real floating\", \"complex floating\", \"numeric\" or a dtype.");
}

Shape broadcast_shapes(const std::vector<Shape>& shapes) {
  Shape out;
  for (const Shape& s : shapes) {
    try {
      out = ops::broadcast_shapes(out, s);
    } catch (const ops::TypeProblem& problem) {
      std::string all;
      for (const Shape& t : shapes) all += (all.empty() ? "" : ", ") + shape_string(t);
      throw ShapeError("broadcast_shapes: the shapes " + all + " do not broadcast: " + problem.problem + ". " +
                       problem.fix);
    }
  }
  return out;
}

bool iscomplexobj(const Tensor& x) { return is_complex(x.dtype()); }

Tensor placeholder_like(const Tensor& x, const std::string& name, Loc loc) {
  Shape shape = x.shape();
  for (auto& d : shape)
    if (is_symbol(d)) d = kDynamic;
  return placeholder(std::move(shape), x.dtype(), name, loc);
}

}  // namespace symx

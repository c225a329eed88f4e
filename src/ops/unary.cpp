// Unary elementwise ops: math functions, rounding, predicates, cast and stop_gradient.
#include <cmath>
#include <numbers>

#include "ops/elementwise.hpp"

namespace symx {
namespace ops {
namespace {

// Which operands an op accepts and what type it returns (checked by infer_unary).
enum class Category { floating, numeric, signed_numeric, integral, predicate, passthrough };

using Grads = std::vector<Tensor>;

// One specialization per op: its category, whether it is cheap to recompute inside kernels (see
// OpDef::cheap), its value on one element (`value`, for the reference evaluation) and its
// vector-Jacobian rule (`vjp`: y the output, g the cotangent). An op added to register_unary_ops
// without a specialization, or a specialization without a rule, does not compile.
template <OpKind op> struct Unary;
using K = OpKind;

// Float math computed on floating operands only (infer_unary rejects the others).
struct FloatingOp {
  static constexpr Category category = Category::floating;
  static constexpr bool cheap = false;
  static constexpr bool complex = false;
};
// Holomorphic functions that also take complex operands (std::complex's definitions, NumPy's branch
// cuts); their VJP, g * f'(z), is JAX's convention unchanged.
struct HolomorphicOp : FloatingOp {
  static constexpr bool complex = true;
};
// x of the output y.
inline const Tensor& input_of(const Tensor& y) { return y.node().inputs[0]; }

template <> struct Unary<K::Exp> : HolomorphicOp {
  template <class T> static T value(T v) { return std::exp(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g * y}; }
};
template <> struct Unary<K::Expm1> : FloatingOp {
  template <class T> static T value(T v) { return std::expm1(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g * (y + 1)}; }
};
template <> struct Unary<K::Log> : HolomorphicOp {
  template <class T> static T value(T v) { return std::log(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g / input_of(y)}; }
};
template <> struct Unary<K::Log1p> : FloatingOp {
  template <class T> static T value(T v) { return std::log1p(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g / (input_of(y) + 1)}; }
};
template <> struct Unary<K::Sqrt> : HolomorphicOp {
  static constexpr bool cheap = true;
  template <class T> static T value(T v) { return std::sqrt(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g * 0.5 / y}; }
};
template <> struct Unary<K::Rsqrt> : HolomorphicOp {
  static constexpr bool cheap = true;
  template <class T> static T value(T v) { return T(1) / std::sqrt(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g * -0.5 * y / input_of(y)}; }
};
template <> struct Unary<K::Reciprocal> : HolomorphicOp {
  static constexpr bool cheap = true;
  template <class T> static T value(T v) { return T(1) / v; }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {-g * y * y}; }
};
template <> struct Unary<K::Sin> : HolomorphicOp {
  template <class T> static T value(T v) { return std::sin(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g * cos(input_of(y))}; }
};
template <> struct Unary<K::Cos> : HolomorphicOp {
  template <class T> static T value(T v) { return std::cos(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {-g * sin(input_of(y))}; }
};
template <> struct Unary<K::Tan> : HolomorphicOp {
  template <class T> static T value(T v) { return std::tan(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g * (1 + y * y)}; }
};
template <> struct Unary<K::Tanh> : HolomorphicOp {
  template <class T> static T value(T v) { return std::tanh(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g * (1 - y * y)}; }
};
template <> struct Unary<K::Arctan> : FloatingOp {
  template <class T> static T value(T v) { return std::atan(v); }
  static Grads vjp(const Tensor& y, const Tensor& g) {
    const Tensor& x = input_of(y);
    return {g / (1 + x * x)};
  }
};
template <> struct Unary<K::Sigmoid> : FloatingOp {
  template <class T> static T value(T v) {
    return v >= 0 ? T(1) / (T(1) + std::exp(-v)) : std::exp(v) / (T(1) + std::exp(v));
  }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g * y * (1 - y)}; }
};
// erf is not in every libm's float overload set we need; double precision then rounding is exact
// enough for a reference.
template <> struct Unary<K::Erf> : FloatingOp {
  template <class T> static T value(T v) { return static_cast<T>(std::erf(static_cast<double>(v))); }
  static Grads vjp(const Tensor& y, const Tensor& g) {
    const Tensor& x = input_of(y);
    return {g * (2 / std::sqrt(std::numbers::pi)) * exp(-x * x)};
  }
};
// Rounding: piecewise constant, so no gradient (integer operands never reach a node: floor() etc.
// return them unchanged).
struct RoundingOp : FloatingOp {
  static constexpr bool cheap = true;
  static Grads vjp(const Tensor& y, const Tensor& g) { return no_gradient(y, g); }
};
template <> struct Unary<K::Floor> : RoundingOp {
  template <class T> static T value(T v) { return std::floor(v); }
};
template <> struct Unary<K::Ceil> : RoundingOp {
  template <class T> static T value(T v) { return std::ceil(v); }
};
template <> struct Unary<K::Round> : RoundingOp {
  template <class T> static T value(T v) { return std::nearbyint(v); }
};

// Arithmetic on any numeric operand (signed ones only for signed_numeric: infer_unary rejects
// bool and uint8 there, so their `value` is never called on them).
template <> struct Unary<K::Negative> {
  static constexpr Category category = Category::signed_numeric;
  static constexpr bool cheap = true;
  static constexpr bool complex = true;
  template <class T> static T value(T v) {
    if constexpr (std::is_same_v<T, bool>) return v;
    else return static_cast<T>(-v);
  }
  static Grads vjp(const Tensor&, const Tensor& g) { return {-g}; }
};
template <> struct Unary<K::Sign> {
  static constexpr Category category = Category::signed_numeric;
  static constexpr bool cheap = true;
  static constexpr bool complex = false;
  template <class T> static T value(T v) {
    if constexpr (std::is_same_v<T, bool>) return v;
    else return static_cast<T>(v > 0 ? 1 : v < 0 ? -1 : (v == 0 ? 0 : v));
  }
  static Grads vjp(const Tensor& y, const Tensor& g) { return no_gradient(y, g); }
};
// |z| of a complex z is real (hypot of its parts, as numpy.abs); its VJP is g conj(z) / |z| (JAX's
// convention), 0 at z = 0.
template <> struct Unary<K::Abs> {
  static constexpr Category category = Category::numeric;
  static constexpr bool cheap = true;
  static constexpr bool complex = true;
  template <class T> static auto value(T v) {
    if constexpr (std::is_same_v<T, bool>) return v;
    else if constexpr (is_complex_v<T>) return std::abs(v);
    else return v < 0 ? static_cast<T>(-v) : v;
  }
  static Grads vjp(const Tensor& y, const Tensor& g) {
    const Tensor& x = input_of(y);
    if (!is_complex(x.dtype())) return {g * sign(x)};
    Tensor zero = equal(y, 0);
    return {where(zero, 0, (g / where(zero, 1, y)) * conj(x))};  // a real division, then one complex product
  }
};
template <> struct Unary<K::Square> {
  static constexpr Category category = Category::numeric;
  static constexpr bool cheap = true;
  static constexpr bool complex = true;
  // v * v for booleans is v (NumPy agrees).
  template <class T> static T value(T v) {
    if constexpr (std::is_same_v<T, bool>) return v;
    else return static_cast<T>(v * v);
  }
  static Grads vjp(const Tensor& y, const Tensor& g) { return {g * 2 * input_of(y)}; }
};
template <> struct Unary<K::BitwiseNot> {
  static constexpr Category category = Category::integral;
  static constexpr bool cheap = true;
  static constexpr bool complex = false;
  template <class T> static T value(T v) {
    if constexpr (std::is_same_v<T, bool>) return !v;
    else if constexpr (std::is_floating_point_v<T>) return v;  // rejected by the type rule
    else return static_cast<T>(~v);
  }
  static Grads vjp(const Tensor& y, const Tensor& g) { return no_gradient(y, g); }
};

// Predicates: a bool for every element, no gradient.
struct PredicateOp {
  static constexpr Category category = Category::predicate;
  static constexpr bool cheap = true;
  static constexpr bool complex = false;
  static Grads vjp(const Tensor& y, const Tensor& g) { return no_gradient(y, g); }
};
template <> struct Unary<K::LogicalNot> : PredicateOp {
  template <class T> static bool value(T v) { return !static_cast<bool>(v); }
};
// A complex number is NaN when either part is, finite when both are (NumPy).
template <> struct Unary<K::IsNan> : PredicateOp {
  static constexpr bool complex = true;
  template <class T> static bool value(T v) {
    if constexpr (is_complex_v<T>) return std::isnan(v.real()) || std::isnan(v.imag());
    else if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
    else return false;
  }
};
template <> struct Unary<K::IsFinite> : PredicateOp {
  static constexpr bool complex = true;
  template <class T> static bool value(T v) {
    if constexpr (is_complex_v<T>) return std::isfinite(v.real()) && std::isfinite(v.imag());
    else if constexpr (std::is_floating_point_v<T>) return std::isfinite(v);
    else return true;
  }
};

// Cast converts to the attribute's dtype; stop_gradient passes its operand through and blocks
// the gradient.
// A cast's VJP casts the cotangent back: complex to real keeps its real part (the transpose of
// real -> complex), real to complex makes it complex (the transpose of taking the real part).
template <> struct Unary<K::Cast> {
  static constexpr Category category = Category::passthrough;
  static constexpr bool cheap = true;
  static constexpr bool complex = true;
  static Grads vjp(const Tensor& y, const Tensor& g) {
    const Tensor& x = input_of(y);
    return {is_inexact(x.dtype()) ? cast(g, x.dtype()) : Tensor()};
  }
};
template <> struct Unary<K::StopGradient> {
  static constexpr Category category = Category::passthrough;
  static constexpr bool cheap = true;
  static constexpr bool complex = true;
  static Grads vjp(const Tensor& y, const Tensor& g) { return no_gradient(y, g); }
};

TensorType infer_unary(OpKind op, const std::vector<Tensor>& in, const Attr& attr, Category category, bool complex) {
  const Tensor& x = in[0];
  if (is_complex(x.dtype())) {
    check_internal(complex, "unary op without complex rules reached infer with a complex operand");
    if (op == OpKind::Abs) return {x.shape(), real_dtype(x.dtype())};
    if (category == Category::predicate) return {x.shape(), DType::b8};
    if (op == OpKind::Cast) return {x.shape(), std::get<CastAttr>(attr).dtype};
    return x.type();
  }
  switch (category) {
    case Category::floating:
      if (!is_floating(x.dtype()))
        fail_dtype(std::string("expects a floating-point operand, got ") + std::string(dtype_name(x.dtype())),
                   "Cast the operand with astype(float32).");
      return x.type();
    case Category::signed_numeric:
      if (x.dtype() == DType::b8 || x.dtype() == DType::u8)
        fail_dtype(std::string("is not defined for ") + std::string(dtype_name(x.dtype())) + " operands",
                   "Cast the operand to a signed type (int32, float32) first.");
      return x.type();
    case Category::numeric: return x.type();
    case Category::integral:
      if (is_floating(x.dtype()))
        fail_dtype(std::string("expects an integer or bool operand, got ") + std::string(dtype_name(x.dtype())),
                   "Bitwise ops are defined on integers and bools; cast with astype(int32), or use logical_not.");
      return x.type();
    case Category::predicate: return {x.shape(), DType::b8};
    case Category::passthrough:
      if (op == OpKind::Cast) return {x.shape(), std::get<CastAttr>(attr).dtype};
      return x.type();
  }
  return x.type();
}

template <OpKind op> TensorType infer(const std::vector<Tensor>& in, const Attr& attr) {
  return infer_unary(op, in, attr, Unary<op>::category, Unary<op>::complex);
}

template <OpKind op> Array evaluate(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  using Rule = Unary<op>;
  if constexpr (Rule::complex && Rule::category != Category::passthrough) {
    if (is_complex(x.dtype())) return map_complex_unary(x, args.node.type.dtype, [](auto v) { return Rule::value(v); });
  }
  if constexpr (Rule::category == Category::floating) {
    return map_unary(x, x.dtype(), [](auto v) {
      using T = decltype(v);
      if constexpr (std::is_floating_point_v<T>) return Rule::value(v);
      else return v;
    });
  } else if constexpr (Rule::category == Category::predicate) {
    return map_unary(x, DType::b8, [](auto v) { return Rule::value(v); });
  } else if constexpr (Rule::category == Category::passthrough) {
    return op == OpKind::Cast ? x.astype(args.node.type.dtype) : x;
  } else {
    return map_unary(x, x.dtype(), [](auto v) { return Rule::value(v); });
  }
}

template <OpKind... ops> void define_all() {
  (define(ops,
          row(Family::elementwise, 1, Lowering::kernel, infer<ops>, evaluate<ops>, Unary<ops>::vjp, Unary<ops>::cheap)),
   ...);
}

Tensor unary(OpKind op, const Tensor& x, Loc loc) { return make_node(op, {x}, NoAttr{}, loc); }

// Float-only math on integer or bool input computes in float32, symx's default float.
Tensor unary_float(OpKind op, const Tensor& x, Loc loc) {
  return unary(op, is_inexact(x.dtype()) ? x : cast(x, DType::f32, loc), loc);
}

}  // namespace

void register_unary_ops() {
  define_all<K::Negative, K::Abs, K::Sign, K::Exp, K::Expm1, K::Log, K::Log1p, K::Sqrt, K::Rsqrt, K::Square,
             K::Reciprocal, K::Sin, K::Cos, K::Tan, K::Tanh, K::Arctan, K::Sigmoid, K::Erf, K::Floor, K::Ceil, K::Round,
             K::LogicalNot, K::BitwiseNot, K::IsNan, K::IsFinite, K::Cast, K::StopGradient>();
}

}  // namespace ops

using ops::unary;
using ops::unary_float;

Tensor negative(const Tensor& x, Loc loc) { return unary(OpKind::Negative, x, loc); }
Tensor abs(const Tensor& x, Loc loc) { return unary(OpKind::Abs, x, loc); }
Tensor sign(const Tensor& x, Loc loc) { return unary(OpKind::Sign, x, loc); }
Tensor exp(const Tensor& x, Loc loc) { return unary_float(OpKind::Exp, x, loc); }
Tensor expm1(const Tensor& x, Loc loc) { return unary_float(OpKind::Expm1, x, loc); }
Tensor log(const Tensor& x, Loc loc) { return unary_float(OpKind::Log, x, loc); }
Tensor log1p(const Tensor& x, Loc loc) { return unary_float(OpKind::Log1p, x, loc); }
Tensor sqrt(const Tensor& x, Loc loc) { return unary_float(OpKind::Sqrt, x, loc); }
Tensor rsqrt(const Tensor& x, Loc loc) { return unary_float(OpKind::Rsqrt, x, loc); }
Tensor square(const Tensor& x, Loc loc) { return unary(OpKind::Square, x, loc); }
Tensor reciprocal(const Tensor& x, Loc loc) { return unary_float(OpKind::Reciprocal, x, loc); }
Tensor sin(const Tensor& x, Loc loc) { return unary_float(OpKind::Sin, x, loc); }
Tensor cos(const Tensor& x, Loc loc) { return unary_float(OpKind::Cos, x, loc); }
Tensor tan(const Tensor& x, Loc loc) { return unary_float(OpKind::Tan, x, loc); }
Tensor tanh(const Tensor& x, Loc loc) { return unary_float(OpKind::Tanh, x, loc); }
Tensor arctan(const Tensor& x, Loc loc) { return unary_float(OpKind::Arctan, x, loc); }
Tensor sigmoid(const Tensor& x, Loc loc) { return unary_float(OpKind::Sigmoid, x, loc); }
Tensor erf(const Tensor& x, Loc loc) { return unary_float(OpKind::Erf, x, loc); }
// Rounding an integer is the identity, so integer input passes through unchanged.
Tensor floor(const Tensor& x, Loc loc) { return is_inexact(x.dtype()) ? unary(OpKind::Floor, x, loc) : x; }
Tensor ceil(const Tensor& x, Loc loc) { return is_inexact(x.dtype()) ? unary(OpKind::Ceil, x, loc) : x; }
Tensor round(const Tensor& x, Loc loc) { return is_inexact(x.dtype()) ? unary(OpKind::Round, x, loc) : x; }
Tensor logical_not(const Tensor& x, Loc loc) { return unary(OpKind::LogicalNot, x, loc); }
Tensor bitwise_not(const Tensor& x, Loc loc) { return unary(OpKind::BitwiseNot, x, loc); }
Tensor isnan(const Tensor& x, Loc loc) { return unary(OpKind::IsNan, x, loc); }
Tensor isfinite(const Tensor& x, Loc loc) { return unary(OpKind::IsFinite, x, loc); }
Tensor cast(const Tensor& x, DType dtype, Loc loc) {
  return x.dtype() == dtype ? x : ops::make_node(OpKind::Cast, {x}, CastAttr{dtype}, loc);
}
Tensor astype(const Tensor& x, DType dtype, Loc loc) { return cast(x, dtype, loc); }
Tensor stop_gradient(const Tensor& x, Loc loc) { return unary(OpKind::StopGradient, x, loc); }

Tensor operator-(At x) { return negative(x.tensor, x.loc); }
Tensor operator!(At x) { return logical_not(x.tensor, x.loc); }
Tensor operator~(At x) { return bitwise_not(x.tensor, x.loc); }

}  // namespace symx

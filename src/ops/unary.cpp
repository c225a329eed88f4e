// Unary elementwise ops: math functions, rounding, predicates, cast and stop_gradient.
#include <cmath>
#include <numbers>

#include "ops/elementwise.hpp"

namespace symx {
namespace ops {
namespace {

enum class Category { floating, numeric, signed_numeric, integral, predicate, passthrough };

Category category(OpKind op) {
  switch (op) {
    case OpKind::Negative:
    case OpKind::Sign: return Category::signed_numeric;
    case OpKind::Abs:
    case OpKind::Square: return Category::numeric;
    case OpKind::BitwiseNot: return Category::integral;
    case OpKind::LogicalNot:
    case OpKind::IsNan:
    case OpKind::IsFinite: return Category::predicate;
    case OpKind::Cast:
    case OpKind::StopGradient: return Category::passthrough;
    default: return Category::floating;
  }
}

TensorType infer_unary(OpKind op, const std::vector<Tensor>& in, const Attr& attr) {
  const Tensor& x = in[0];
  switch (category(op)) {
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
  return infer_unary(op, in, attr);
}

// erf is not in every libm's float overload set we need; double precision then rounding is exact
// enough for a reference.
template <class T> T float_value(OpKind op, T v) {
  switch (op) {
    case OpKind::Exp: return std::exp(v);
    case OpKind::Expm1: return std::expm1(v);
    case OpKind::Log: return std::log(v);
    case OpKind::Log1p: return std::log1p(v);
    case OpKind::Sqrt: return std::sqrt(v);
    case OpKind::Rsqrt: return T(1) / std::sqrt(v);
    case OpKind::Reciprocal: return T(1) / v;
    case OpKind::Sin: return std::sin(v);
    case OpKind::Cos: return std::cos(v);
    case OpKind::Tan: return std::tan(v);
    case OpKind::Tanh: return std::tanh(v);
    case OpKind::Arctan: return std::atan(v);
    case OpKind::Sigmoid:
      return v >= 0 ? T(1) / (T(1) + std::exp(-v)) : std::exp(v) / (T(1) + std::exp(v));
    case OpKind::Erf: return static_cast<T>(std::erf(static_cast<double>(v)));
    case OpKind::Floor: return std::floor(v);
    case OpKind::Ceil: return std::ceil(v);
    case OpKind::Round: return std::nearbyint(v);
    default: throw InternalError("float_value: not a floating unary op");
  }
}

template <class T> T numeric_value(OpKind op, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
      case OpKind::Abs: return v;
      case OpKind::Square: return v;  // v * v for booleans is v (NumPy agrees)
      default: throw InternalError("numeric_value: op not defined for bool");
    }
  } else {
    switch (op) {
      case OpKind::Negative: return static_cast<T>(-v);
      case OpKind::Abs: return v < 0 ? static_cast<T>(-v) : v;
      case OpKind::Sign: return static_cast<T>(v > 0 ? 1 : v < 0 ? -1 : (v == 0 ? 0 : v));
      case OpKind::Square: return static_cast<T>(v * v);
      default: throw InternalError("numeric_value: not a numeric unary op");
    }
  }
}

template <class T> bool predicate_value(OpKind op, T v) {
  switch (op) {
    case OpKind::LogicalNot: return !static_cast<bool>(v);
    case OpKind::IsNan:
      if constexpr (std::is_floating_point_v<T>) return std::isnan(v); else return false;
    case OpKind::IsFinite:
      if constexpr (std::is_floating_point_v<T>) return std::isfinite(v); else return true;
    default: throw InternalError("predicate_value: not a predicate op");
  }
}

template <OpKind op> Array evaluate(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  switch (category(op)) {
    case Category::floating:
      return map_unary(x, x.dtype(), [](auto v) {
        using T = decltype(v);
        if constexpr (std::is_floating_point_v<T>) return float_value<T>(op, v); else return v;
      });
    case Category::numeric:
    case Category::signed_numeric:
      return map_unary(x, x.dtype(), [](auto v) { return numeric_value<decltype(v)>(op, v); });
    case Category::integral:
      return map_unary(x, x.dtype(), [](auto v) {
        using T = decltype(v);
        if constexpr (std::is_same_v<T, bool>) return !v;
        else if constexpr (std::is_floating_point_v<T>) return v;  // rejected by the type rule
        else return static_cast<T>(~v);
      });
    case Category::predicate:
      return map_unary(x, DType::b8, [](auto v) { return predicate_value<decltype(v)>(op, v); });
    case Category::passthrough:
      return op == OpKind::Cast ? x.astype(args.node.type.dtype) : x;
  }
  return x;
}

// Vector-Jacobian rules: g is the cotangent, x the input, y the output.
template <OpKind op> std::vector<Tensor> vjp(const Tensor& y, const Tensor& g) {
  const Tensor& x = y.node().inputs[0];
  switch (op) {
    case OpKind::Negative: return {-g};
    case OpKind::Abs: return {g * sign(x)};
    case OpKind::Exp: return {g * y};
    case OpKind::Expm1: return {g * (y + 1)};
    case OpKind::Log: return {g / x};
    case OpKind::Log1p: return {g / (x + 1)};
    case OpKind::Sqrt: return {g * 0.5 / y};
    case OpKind::Rsqrt: return {g * -0.5 * y / x};
    case OpKind::Square: return {g * 2 * x};
    case OpKind::Reciprocal: return {-g * y * y};
    case OpKind::Sin: return {g * cos(x)};
    case OpKind::Cos: return {-g * sin(x)};
    case OpKind::Tan: return {g * (1 + y * y)};
    case OpKind::Tanh: return {g * (1 - y * y)};
    case OpKind::Arctan: return {g / (1 + x * x)};
    case OpKind::Sigmoid: return {g * y * (1 - y)};
    case OpKind::Erf: return {g * (2 / std::sqrt(std::numbers::pi)) * exp(-x * x)};
    case OpKind::Cast: return {is_floating(x.dtype()) ? cast(g, x.dtype()) : Tensor()};
    default: return no_gradient(y, g);
  }
}

template <OpKind... ops> void register_all() {
  ((mutable_op_def(ops) = {infer<ops>, evaluate<ops>, vjp<ops>}), ...);
}

Tensor unary(OpKind op, const Tensor& x, Loc loc) { return make_node(op, {x}, NoAttr{}, loc); }

// Float-only math on integer or bool input computes in float32, symx's default float.
Tensor unary_float(OpKind op, const Tensor& x, Loc loc) {
  return unary(op, is_floating(x.dtype()) ? x : cast(x, DType::f32, loc), loc);
}

}  // namespace

void register_unary_ops() {
  using K = OpKind;
  register_all<K::Negative, K::Abs, K::Sign, K::Exp, K::Expm1, K::Log, K::Log1p, K::Sqrt, K::Rsqrt,
               K::Square, K::Reciprocal, K::Sin, K::Cos, K::Tan, K::Tanh, K::Arctan, K::Sigmoid,
               K::Erf, K::Floor, K::Ceil, K::Round, K::LogicalNot, K::BitwiseNot, K::IsNan, K::IsFinite, K::Cast,
               K::StopGradient>();
  mutable_op_def(K::StopGradient).vjp = no_gradient;
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
Tensor floor(const Tensor& x, Loc loc) { return is_floating(x.dtype()) ? unary(OpKind::Floor, x, loc) : x; }
Tensor ceil(const Tensor& x, Loc loc) { return is_floating(x.dtype()) ? unary(OpKind::Ceil, x, loc) : x; }
Tensor round(const Tensor& x, Loc loc) { return is_floating(x.dtype()) ? unary(OpKind::Round, x, loc) : x; }
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

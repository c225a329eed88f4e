// Binary elementwise ops (with NumPy broadcasting and promotion), where, clip and the operators.
#include <cmath>

#include "ops/elementwise.hpp"
#include "ops/promotion.hpp"

namespace symx {
namespace ops {
namespace {

using K = OpKind;
using Grads = std::vector<Tensor>;

// One specialization per op (defined below the value helpers): whether it compares (a bool
// result), whether it is cheap to recompute inside kernels (OpDef::cheap), its value on one pair of
// elements (`value`, for the reference evaluation) and its vector-Jacobian rule (`vjp`). An op added
// to register_binary_ops without a specialization, or a specialization without a rule, does not
// compile.
template <OpKind op> struct Binary;

template <OpKind op> TensorType infer(const std::vector<Tensor>& in, const Attr&) {
  const Tensor& a = in[0];
  const Tensor& b = in[1];
  check_internal(a.dtype() == b.dtype(), "binary op operands must be promoted before make_node");
  Shape shape = broadcast_shapes(a.shape(), b.shape());
  if constexpr (op == OpKind::Arctan2 || op == OpKind::Divide) {  // divide() casts integers to float32 first
    if (!is_inexact(a.dtype()))
      fail_dtype("expects floating-point operands", "Cast the operands with astype(float32).");
  }
  if constexpr (op == OpKind::Subtract) {
    if (a.dtype() == DType::b8)
      fail_dtype("subtracting booleans is not defined", "Use logical_and / logical_not, or cast to int32 first.");
  }
  if constexpr (op == OpKind::FloorDivide) {
    if (a.dtype() == DType::b8)
      fail_dtype("floor division of booleans is not defined", "Cast the operands to int32 first.");
  }
  if constexpr (op == OpKind::BitwiseAnd || op == OpKind::BitwiseOr || op == OpKind::BitwiseXor) {
    if (is_floating(a.dtype()))
      fail_dtype("expects integer or bool operands, got " + std::string(dtype_name(a.dtype())),
                 "Bitwise ops are defined on integers and bools; cast with astype(int32), or compare first.");
  }
  if constexpr (op == OpKind::LeftShift || op == OpKind::RightShift) {
    if (is_floating(a.dtype()) || a.dtype() == DType::b8)
      fail_dtype("expects integer operands, got " + std::string(dtype_name(a.dtype())),
                 "Shifts are defined on integers; cast with astype(int32) first.");
  }
  return {shape, Binary<op>::comparison ? DType::b8 : a.dtype()};
}

// NumPy's mod: the result has the divisor's sign; x mod 0 is 0 for integers (NumPy warns and
// returns 0) and NaN for floats.
template <class T> T mod_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == 0) return std::numeric_limits<T>::quiet_NaN();
    T r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    if (r == 0) r = std::copysign(T(0), b);  // NumPy: a zero remainder takes the divisor's sign
    return r;
  } else if constexpr (std::is_same_v<T, bool>) {
    return false;
  } else {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
      if (b == -1) return 0;  // avoids INT_MIN % -1 overflow
    }
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  }
}

// numpy.floor_divide: floats follow NumPy's divmod (the quotient of (a - fmod(a, b)) / b,
// corrected toward -inf), so the result is the exact floor of the real quotient; integers round
// toward -inf, x // 0 = 0 and INT_MIN // -1 wraps, as NumPy returns.
template <class T> T floor_divide_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == 0) return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
    if (div == 0) return std::copysign(T(0), a / b);
    T floordiv = std::floor(div);
    return div - floordiv > T(0.5) ? floordiv + 1 : floordiv;
  } else if constexpr (std::is_same_v<T, bool>) {
    return a;
  } else {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
      using U = std::make_unsigned_t<T>;
      if (b == -1) return static_cast<T>(U(0) - static_cast<U>(a));
      T q = static_cast<T>(a / b);
      return (a % b != 0 && ((a < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
    } else {
      return static_cast<T>(a / b);
    }
  }
}

// NumPy's shifts: by the width or more, or by a negative amount, a left shift gives 0 and a right
// shift gives the sign (0 or -1).
template <class T> T shift_value(bool left, T a, T b) {
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, bool>) {
    throw InternalError("shift of a non-integer");
  } else {
    constexpr auto width = static_cast<std::uint64_t>(sizeof(T) * 8);
    const bool in_range = static_cast<std::uint64_t>(static_cast<std::int64_t>(b)) < width;
    if (left) return in_range ? static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) << b) : T(0);
    if (in_range) return static_cast<T>(a >> b);
    return a < 0 ? static_cast<T>(-1) : T(0);
  }
}

template <class T> T bitwise_value(OpKind op, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    throw InternalError("bitwise op on floats");
  } else if constexpr (std::is_same_v<T, bool>) {
    return op == OpKind::BitwiseAnd ? (a && b) : op == OpKind::BitwiseOr ? (a || b) : (a != b);
  } else {
    return static_cast<T>(op == OpKind::BitwiseAnd ? (a & b) : op == OpKind::BitwiseOr ? (a | b) : (a ^ b));
  }
}

template <class T> T power_value(T a, T b) {
  if constexpr (is_complex_v<T>) {
    // NumPy: z ** 0 is 1 (0 ** 0 too); 0 ** b is 0 for real b > 0.
    if (b == T(0)) return T(1);
    if (a == T(0) && b.imag() == 0 && b.real() > 0) return T(0);
    return std::pow(a, b);
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::pow(a, b);
  } else if constexpr (std::is_same_v<T, bool>) {
    return a || !b;
  } else {
    if (b < 0) return a == 1 ? 1 : (a == -1 ? (b % 2 ? -1 : 1) : 0);
    T result = 1;
    for (T base = a, e = b; e > 0; e = static_cast<T>(e >> 1), base = static_cast<T>(base * base))
      if (e & 1) result = static_cast<T>(result * base);
    return result;
  }
}

// The operands of a binary node, and its cotangent `t` summed back to operand k's shape.
struct Operands {
  const Tensor& out;
  const Tensor& a;
  const Tensor& b;
  explicit Operands(const Tensor& out) : out(out), a(out.node().inputs[0]), b(out.node().inputs[1]) {}
  Tensor to_a(const Tensor& t) const { return unbroadcast(broadcast_to(t, out.shape()), a.shape()); }
  Tensor to_b(const Tensor& t) const { return unbroadcast(broadcast_to(t, out.shape()), b.shape()); }
};

struct Arithmetic {
  static constexpr bool comparison = false;
  static constexpr bool cheap = true;
  static constexpr bool complex = false;
};
// Arithmetic that also takes complex operands (its VJP holds for them under JAX's convention).
struct ComplexArithmetic : Arithmetic {
  static constexpr bool complex = true;
};
// Integer and bool results are piecewise constant: no gradient.
struct Integral : Arithmetic {
  static Grads vjp(const Tensor& out, const Tensor& g) { return no_gradient(out, g); }
};
struct Comparison {
  static constexpr bool comparison = true;
  static constexpr bool cheap = true;
  static constexpr bool complex = false;
  static Grads vjp(const Tensor& out, const Tensor& g) { return no_gradient(out, g); }
};
// bool + bool etc. compute in int, then convert back (true + true is true, as NumPy).
template <class T> using Wide = std::conditional_t<std::is_same_v<T, bool>, int, T>;

template <> struct Binary<K::Add> : ComplexArithmetic {
  template <class T> static T value(T a, T b) {
    return static_cast<T>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b));
  }
  static Grads vjp(const Tensor& out, const Tensor& g) {
    Operands o(out);
    return {o.to_a(g), o.to_b(g)};
  }
};
template <> struct Binary<K::Subtract> : ComplexArithmetic {
  template <class T> static T value(T a, T b) {
    return static_cast<T>(static_cast<Wide<T>>(a) - static_cast<Wide<T>>(b));
  }
  static Grads vjp(const Tensor& out, const Tensor& g) {
    Operands o(out);
    return {o.to_a(g), o.to_b(-g)};
  }
};
template <> struct Binary<K::Multiply> : ComplexArithmetic {
  template <class T> static T value(T a, T b) {
    return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
  }
  static Grads vjp(const Tensor& out, const Tensor& g) {
    Operands o(out);
    return {o.to_a(g * o.b), o.to_b(g * o.a)};
  }
};
template <> struct Binary<K::Divide> : ComplexArithmetic {
  template <class T> static T value(T a, T b) {
    if constexpr (std::is_floating_point_v<T> || is_complex_v<T>) return a / b;
    else throw InternalError("integer divide");
  }
  static Grads vjp(const Tensor& out, const Tensor& g) {
    Operands o(out);
    return {o.to_a(g / o.b), o.to_b(-g * out / o.b)};
  }
};
template <> struct Binary<K::Power> : ComplexArithmetic {
  static constexpr bool cheap = false;
  template <class T> static T value(T a, T b) { return power_value(a, b); }
  static Grads vjp(const Tensor& out, const Tensor& g) {
    Operands o(out);
    if (is_complex(out.dtype())) {  // as below, without the comparisons complex numbers lack
      Tensor da = where(equal(o.b, 0), 0, g * o.b * power(o.a, o.b - 1));
      Tensor a_zero = equal(o.a, 0);
      Tensor db = where(a_zero, 0, g * out * log(where(a_zero, 1, o.a)));
      return {o.to_a(da), o.to_b(db)};
    }
    // As PyTorch (and JAX): d/da b a^(b-1) is 0 where b == 0 (not 0 * 0^-1 = NaN at a = 0); d/db
    // a^b log a is 0 where a == 0 and b >= 0 (not 0 * -inf), and NaN where a < 0 (log a is).
    Tensor da = where(equal(o.b, 0), 0, g * o.b * power(o.a, o.b - 1));
    Tensor a_zero = logical_and(equal(o.a, 0), o.b >= 0);
    Tensor db = where(a_zero, 0, g * out * log(where(a_zero, 1, o.a)));
    return {o.to_a(da), o.to_b(db)};
  }
};
// The gradient of maximum (or minimum): to the operand that wins, and half to each where they tie,
// as PyTorch's maximum and JAX's (the mean of the one-sided derivatives; the max reduction splits
// its ties the same way). Where an operand is NaN neither loses, so both get g (PyTorch's rule).
Grads extremum_vjp(const Tensor& out, const Tensor& g, bool is_maximum) {
  Operands o(out);
  Tensor a_loses = is_maximum ? o.a < o.b : o.a > o.b;
  Tensor b_loses = is_maximum ? o.a > o.b : o.a < o.b;
  Tensor shared = where(equal(o.a, o.b), g * 0.5, g);
  return {o.to_a(where(a_loses, 0, shared)), o.to_b(where(b_loses, 0, shared))};
}

// NaN in either operand gives NaN (a + b), as NumPy's maximum and minimum.
template <> struct Binary<K::Maximum> : Arithmetic {
  template <class T> static T value(T a, T b) {
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(a) || std::isnan(b)) return a + b;
    return a > b ? a : b;
  }
  static Grads vjp(const Tensor& out, const Tensor& g) { return extremum_vjp(out, g, true); }
};
template <> struct Binary<K::Minimum> : Arithmetic {
  template <class T> static T value(T a, T b) {
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(a) || std::isnan(b)) return a + b;
    return a < b ? a : b;
  }
  static Grads vjp(const Tensor& out, const Tensor& g) { return extremum_vjp(out, g, false); }
};
template <> struct Binary<K::Mod> : Arithmetic {
  static constexpr bool cheap = false;
  template <class T> static T value(T a, T b) { return mod_value(a, b); }
  static Grads vjp(const Tensor& out, const Tensor& g) {
    Operands o(out);
    return {o.to_a(g), o.to_b(-g * floor(o.a / o.b))};
  }
};
template <> struct Binary<K::Arctan2> : Arithmetic {
  static constexpr bool cheap = false;
  template <class T> static T value(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) return std::atan2(a, b);
    else throw InternalError("integer arctan2");
  }
  static Grads vjp(const Tensor& out, const Tensor& g) {
    Operands o(out);
    // At the origin, where arctan2 has no derivative, both gradients are 0 (PyTorch's choice; JAX's
    // rule gives NaN there).
    Tensor r2 = o.a * o.a + o.b * o.b;
    Tensor safe_r2 = where(equal(r2, 0), 1, r2);
    return {o.to_a(g * o.b / safe_r2), o.to_b(-g * o.a / safe_r2)};
  }
};
template <> struct Binary<K::FloorDivide> : Integral {
  template <class T> static T value(T a, T b) { return floor_divide_value(a, b); }
};
template <> struct Binary<K::BitwiseAnd> : Integral {
  template <class T> static T value(T a, T b) { return bitwise_value(K::BitwiseAnd, a, b); }
};
template <> struct Binary<K::BitwiseOr> : Integral {
  template <class T> static T value(T a, T b) { return bitwise_value(K::BitwiseOr, a, b); }
};
template <> struct Binary<K::BitwiseXor> : Integral {
  template <class T> static T value(T a, T b) { return bitwise_value(K::BitwiseXor, a, b); }
};
template <> struct Binary<K::LeftShift> : Integral {
  template <class T> static T value(T a, T b) { return shift_value(true, a, b); }
};
template <> struct Binary<K::RightShift> : Integral {
  template <class T> static T value(T a, T b) { return shift_value(false, a, b); }
};

template <> struct Binary<K::Equal> : Comparison {
  static constexpr bool complex = true;
  template <class T> static bool value(T a, T b) { return a == b; }
};
template <> struct Binary<K::NotEqual> : Comparison {
  static constexpr bool complex = true;
  template <class T> static bool value(T a, T b) { return a != b; }
};
template <> struct Binary<K::Less> : Comparison {
  template <class T> static bool value(T a, T b) { return a < b; }
};
template <> struct Binary<K::LessEqual> : Comparison {
  template <class T> static bool value(T a, T b) { return a <= b; }
};
template <> struct Binary<K::Greater> : Comparison {
  template <class T> static bool value(T a, T b) { return a > b; }
};
template <> struct Binary<K::GreaterEqual> : Comparison {
  template <class T> static bool value(T a, T b) { return a >= b; }
};
template <> struct Binary<K::LogicalAnd> : Comparison {
  template <class T> static bool value(T a, T b) { return static_cast<bool>(a) && static_cast<bool>(b); }
};
template <> struct Binary<K::LogicalOr> : Comparison {
  template <class T> static bool value(T a, T b) { return static_cast<bool>(a) || static_cast<bool>(b); }
};

template <OpKind op> Array evaluate(const EvalArgs& args) {
  const TensorType& type = args.node.type;
  if constexpr (Binary<op>::complex) {
    if (is_complex(args.inputs[0].dtype()))
      return map_complex_binary(args.inputs[0], args.inputs[1], type.shape, type.dtype,
                                [](auto x, auto y) { return Binary<op>::value(x, y); });
  }
  return map_binary(args.inputs[0], args.inputs[1], type.shape, type.dtype,
                    [](auto x, auto y) { return Binary<op>::value(x, y); });
}

template <OpKind... ops> void define_all() {
  (define(ops, row(Family::elementwise, 2, Lowering::kernel, infer<ops>, evaluate<ops>, Binary<ops>::vjp,
                   Binary<ops>::cheap)),
   ...);
}

// ---- where(condition, a, b) ----

TensorType infer_where(const std::vector<Tensor>& in, const Attr&) {
  check_internal(in[0].dtype() == DType::b8 && in[1].dtype() == in[2].dtype(), "where operands not prepared");
  return {broadcast_shapes(broadcast_shapes(in[0].shape(), in[1].shape()), in[2].shape()), in[1].dtype()};
}

Array evaluate_where(const EvalArgs& args) {
  const Shape& shape = args.node.type.shape;
  Array out(shape, args.node.type.dtype);
  if (is_complex(out.dtype()) && args.inputs[0].shape() == shape) {  // the common case of complex VJPs
    const Array &a = args.inputs[1], &b = args.inputs[2];
    const bool* c = args.inputs[0].data<bool>();
    visit_complex_dtype(out.dtype(), [&]<class T>() {
      T* o = out.data<T>();
      for_each_broadcast(shape, a.shape(), b.shape(), [&](std::int64_t flat, std::int64_t ia, std::int64_t ib) {
        o[flat] = c[flat] ? a.data<T>()[ia] : b.data<T>()[ib];
      });
    });
    return out;
  }
  std::vector<std::vector<std::int64_t>> strides;
  for (const auto& in : args.inputs) strides.push_back(broadcast_strides(in.shape(), shape));
  if (out.size() == 0) return out;
  IndexCounter counter(shape);
  std::int64_t flat = 0;
  do {
    std::int64_t offset[3] = {0, 0, 0};
    for (std::size_t d = 0; d < shape.size(); ++d)
      for (int k = 0; k < 3; ++k) offset[k] += counter.index[d] * strides[static_cast<std::size_t>(k)][d];
    bool c = args.inputs[0].data<bool>()[offset[0]];
    if (is_complex(out.dtype()))
      out.set_complex_flat(flat++,
                           c ? args.inputs[1].get_complex_flat(offset[1]) : args.inputs[2].get_complex_flat(offset[2]));
    else out.set_flat(flat++, c ? args.inputs[1].get_flat(offset[1]) : args.inputs[2].get_flat(offset[2]));
  } while (counter.next());
  return out;
}

std::vector<Tensor> vjp_where(const Tensor& out, const Tensor& g) {
  const auto& in = out.node().inputs;
  return {Tensor(), unbroadcast(where(in[0], g, 0), in[1].shape()), unbroadcast(where(in[0], 0, g), in[2].shape())};
}

}  // namespace

// ---- operand preparation: NumPy promotion with weak scalars (ops/promotion.hpp) ----

DType scalar_dtype(const Operand& s) { return s.is_complex() ? DType::c64 : s.integral() ? DType::i64 : DType::f32; }

DType common_dtype(const Operand& a, const Operand& b) {
  if (a.is_tensor() && b.is_tensor()) return promote_types(a.tensor().dtype(), b.tensor().dtype());
  if (!a.is_tensor() && !b.is_tensor()) return promote_types(scalar_dtype(a), scalar_dtype(b));
  const Tensor& t = a.is_tensor() ? a.tensor() : b.tensor();
  const Operand& s = a.is_tensor() ? b : a;
  if (s.is_complex()) return t.dtype() == DType::f64 ? DType::c128 : is_complex(t.dtype()) ? t.dtype() : DType::c64;
  if (!s.integral() && !is_inexact(t.dtype())) return DType::f32;
  if (s.integral() && t.dtype() == DType::b8) return DType::i64;
  return t.dtype();
}

Tensor as_tensor(const Operand& x, DType dtype, Loc loc) {
  if (x.is_tensor()) return cast(x.tensor(), dtype, loc);
  if (x.is_complex()) {
    Array value({}, dtype);
    value.set_complex_flat(0, x.complex_number());
    return constant(value, loc);
  }
  return constant(x.number(), dtype, loc);
}

namespace {

Tensor binary(OpKind op, const Operand& a, const Operand& b, Loc loc, DType min_dtype_floor = DType::b8) {
  DType dtype = common_dtype(a, b);
  if (min_dtype_floor == DType::f32 && !is_inexact(dtype)) dtype = DType::f32;
  if (op == OpKind::LogicalAnd || op == OpKind::LogicalOr) dtype = DType::b8;
  return make_node(op, {as_tensor(a, dtype, loc), as_tensor(b, dtype, loc)}, NoAttr{}, loc);
}

}  // namespace

void register_binary_ops() {
  define_all<K::Add, K::Subtract, K::Multiply, K::Divide, K::Power, K::Maximum, K::Minimum, K::Mod, K::Arctan2,
             K::Equal, K::NotEqual, K::Less, K::LessEqual, K::Greater, K::GreaterEqual, K::LogicalAnd, K::LogicalOr,
             K::FloorDivide, K::BitwiseAnd, K::BitwiseOr, K::BitwiseXor, K::LeftShift, K::RightShift>();
  define(K::Where, row(Family::elementwise, 3, Lowering::kernel, infer_where, evaluate_where, vjp_where, true));
}

}  // namespace ops

using ops::binary;

Tensor add(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::Add, a, b, loc); }
Tensor subtract(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::Subtract, a, b, loc); }
Tensor multiply(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::Multiply, a, b, loc); }
Tensor divide(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::Divide, a, b, loc, DType::f32); }
Tensor power(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::Power, a, b, loc); }
Tensor maximum(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::Maximum, a, b, loc); }
Tensor minimum(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::Minimum, a, b, loc); }
Tensor mod(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::Mod, a, b, loc); }
Tensor arctan2(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::Arctan2, a, b, loc, DType::f32); }
Tensor equal(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::Equal, a, b, loc); }
Tensor not_equal(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::NotEqual, a, b, loc); }
Tensor less(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::Less, a, b, loc); }
Tensor less_equal(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::LessEqual, a, b, loc); }
Tensor greater(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::Greater, a, b, loc); }
Tensor greater_equal(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::GreaterEqual, a, b, loc); }
Tensor logical_and(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::LogicalAnd, a, b, loc); }
Tensor logical_or(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::LogicalOr, a, b, loc); }
Tensor floor_divide(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::FloorDivide, a, b, loc); }
Tensor bitwise_and(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::BitwiseAnd, a, b, loc); }
Tensor bitwise_or(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::BitwiseOr, a, b, loc); }
Tensor bitwise_xor(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::BitwiseXor, a, b, loc); }
Tensor left_shift(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::LeftShift, a, b, loc); }
Tensor right_shift(const Operand& a, const Operand& b, Loc loc) { return binary(OpKind::RightShift, a, b, loc); }

Tensor where(const Operand& condition, const Operand& a, const Operand& b, Loc loc) {
  DType dtype = ops::common_dtype(a, b);
  Tensor c = ops::as_tensor(condition, DType::b8, loc);
  return ops::make_node(OpKind::Where, {c, ops::as_tensor(a, dtype, loc), ops::as_tensor(b, dtype, loc)}, NoAttr{},
                        loc);
}

// minimum(maximum(x, lo), hi) spelled with where, so that x keeps its whole gradient at the bounds
// (PyTorch's clamp; maximum would give it half there). A bound gets the gradient where it wins.
Tensor clip(const Tensor& x, const Operand& lo, const Operand& hi, Loc loc) {
  Tensor low = where(less(x, lo, loc), lo, x, loc);
  return named_composite("clip", where(greater(low, hi, loc), hi, low, loc));
}

Tensor operator+(At a, const Tensor& b) { return add(a.tensor, b, a.loc); }
Tensor operator-(At a, const Tensor& b) { return subtract(a.tensor, b, a.loc); }
Tensor operator*(At a, const Tensor& b) { return multiply(a.tensor, b, a.loc); }
Tensor operator/(At a, const Tensor& b) { return divide(a.tensor, b, a.loc); }
Tensor operator%(At a, const Tensor& b) { return mod(a.tensor, b, a.loc); }
Tensor operator<(At a, const Tensor& b) { return less(a.tensor, b, a.loc); }
Tensor operator<=(At a, const Tensor& b) { return less_equal(a.tensor, b, a.loc); }
Tensor operator>(At a, const Tensor& b) { return greater(a.tensor, b, a.loc); }
Tensor operator>=(At a, const Tensor& b) { return greater_equal(a.tensor, b, a.loc); }
Tensor operator&&(At a, const Tensor& b) { return logical_and(a.tensor, b, a.loc); }
Tensor operator||(At a, const Tensor& b) { return logical_or(a.tensor, b, a.loc); }
Tensor operator&(At a, const Tensor& b) { return bitwise_and(a.tensor, b, a.loc); }
Tensor operator|(At a, const Tensor& b) { return bitwise_or(a.tensor, b, a.loc); }
Tensor operator^(At a, const Tensor& b) { return bitwise_xor(a.tensor, b, a.loc); }

}  // namespace symx

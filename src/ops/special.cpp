// src/ops/special.cpp: the rows and functions of symx/special.hpp.
//
// Primitives: the unary float functions (lgamma, digamma, erfc, erfinv, erfcx, ndtri, log_ndtr,
// i0e, i1e, expi, exp1, spence, dawsn, fresnel_s, fresnel_c, sinint, cosint: Lowering::kernel, spelled in
// codegen/emit_cpp.cpp, vectorized float32 versions of lgamma, digamma, erfinv, i0e, i1e in codegen/kernel_prelude.hpp,
// scalar code for the others), the binary float functions zeta, gammainc, gammaincc, expn, jn (iterative series and
// continued fractions: scalar code in the kernels), the integer functions gcd, lcm, bitwise_count and the float
// function nextafter. Their reference values come from ops/special_math.hpp (double precision; float operands are
// computed in double and rounded). The other names of symx/special.hpp are composites of primitives.
#include "symx/special.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <numbers>
#include <numeric>
#include <tuple>
#include <string>
#include <type_traits>

#include "ops/elementwise.hpp"
#include "ops/op_table.hpp"
#include "ops/special_math.hpp"
#include "ops/special_math_hyper.hpp"

namespace symx::ops {
namespace {

namespace sm = special_math;
using K = OpKind;
using Grads = std::vector<Tensor>;

const Tensor& input0(const Tensor& y) { return y.node().inputs[0]; }
const Tensor& input1(const Tensor& y) { return y.node().inputs[1]; }

// ---- unary float primitives ----

TensorType infer_float_unary(const std::vector<Tensor>& in, const Attr&) {
  const Tensor& x = in[0];
  if (!is_floating(x.dtype()))
    fail_dtype(std::string("expects a floating-point operand, got ") + std::string(dtype_name(x.dtype())),
               "Cast the operand with astype(float32).");
  return x.type();
}

template <double (*F)(double)> Array eval_float_unary(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  return map_unary(x, x.dtype(), [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(F(static_cast<double>(v)));
    else return v;
  });
}

constexpr double kTwoOverSqrtPi = 1.1283791670955126;

Grads vjp_lgamma(const Tensor& y, const Tensor& g) { return {g * special::digamma(input0(y))}; }
// digamma' = polygamma(1, x) = zeta(2, x).
Grads vjp_digamma(const Tensor& y, const Tensor& g) { return {g * special::zeta(2.0, input0(y))}; }
Grads vjp_erfc(const Tensor& y, const Tensor& g) {
  const Tensor& x = input0(y);
  return {g * -kTwoOverSqrtPi * exp(-x * x)};
}
// erfinv' = sqrt(pi)/2 exp(erfinv^2) (inf at +-1, as PyTorch).
Grads vjp_erfinv(const Tensor& y, const Tensor& g) { return {g * (std::sqrt(std::numbers::pi) / 2) * exp(y * y)}; }
Grads vjp_erfcx(const Tensor& y, const Tensor& g) { return {g * (2 * input0(y) * y - kTwoOverSqrtPi)}; }
Grads vjp_ndtri(const Tensor& y, const Tensor& g) { return {g * std::sqrt(2 * std::numbers::pi) * exp(y * y * 0.5)}; }
// d/dx log ndtr(x) = pdf / cdf = sqrt(2/pi) / erfcx(-x/sqrt(2)): no overflow in either tail.
Grads vjp_log_ndtr(const Tensor& y, const Tensor& g) {
  return {g * std::sqrt(2 / std::numbers::pi) / special::erfcx(input0(y) * -std::numbers::sqrt2 / 2)};
}
Grads vjp_i0e(const Tensor& y, const Tensor& g) {
  const Tensor& x = input0(y);
  return {g * (special::i1e(x) - sign(x) * y)};
}
// i1e' = i0e - i1e (sign(x) + 1/x); 1/2 at x = 0 (the limit).
Grads vjp_i1e(const Tensor& y, const Tensor& g) {
  const Tensor& x = input0(y);
  Tensor zero = symx::equal(x, 0.0);
  Tensor safe = where(zero, 1.0, x);
  return {g * where(zero, 0.5, special::i0e(x) - y * (sign(x) + reciprocal(safe)))};
}
Grads vjp_expi(const Tensor& y, const Tensor& g) {
  const Tensor& x = input0(y);
  return {g * exp(x) / x};
}
Grads vjp_exp1(const Tensor& y, const Tensor& g) {
  const Tensor& x = input0(y);
  return {-g * exp(-x) / x};
}

Grads vjp_spence(const Tensor& y, const Tensor& g) {
  const Tensor& z = input0(y);
  Tensor one = symx::equal(z, 1.0);
  Tensor zs = where(one, 2.0, z);
  return {g * where(one, -1.0, log(zs) / (1.0 - zs))};
}
Grads vjp_dawsn(const Tensor& y, const Tensor& g) { return {g * (1.0 - 2.0 * input0(y) * y)}; }
Grads vjp_fresnel_s(const Tensor& y, const Tensor& g) {
  const Tensor& x = input0(y);
  return {g * sin(x * x * (std::numbers::pi / 2))};
}
Grads vjp_fresnel_c(const Tensor& y, const Tensor& g) {
  const Tensor& x = input0(y);
  return {g * cos(x * x * (std::numbers::pi / 2))};
}
// Si' = sin(x)/x (1 at 0); Ci' = cos(x)/x.
Grads vjp_sinint(const Tensor& y, const Tensor& g) {
  const Tensor& x = input0(y);
  Tensor zero = symx::equal(x, 0.0);
  Tensor xs = where(zero, 1.0, x);
  return {g * where(zero, 1.0, sin(xs) / xs)};
}
Grads vjp_cosint(const Tensor& y, const Tensor& g) {
  const Tensor& x = input0(y);
  return {g * cos(x) / x};
}

void define_float_unary(OpKind op, EvaluateRule eval, VjpRule vjp) {
  define(op, row(Family::elementwise, 1, Lowering::kernel, infer_float_unary, eval, vjp));
}

// ---- bitwise_count ----

TensorType infer_bitwise_count(const std::vector<Tensor>& in, const Attr&) {
  const Tensor& x = in[0];
  if (is_floating(x.dtype()))
    fail_dtype("expects an integer or bool operand, got " + std::string(dtype_name(x.dtype())),
               "bitwise_count counts the bits of integers; cast with astype(int32) first.");
  return {x.shape(), DType::u8};
}

Array eval_bitwise_count(const EvalArgs& args) {
  return map_unary(args.inputs[0], DType::u8, [](auto v) -> std::uint8_t {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, bool>) return v ? 1 : 0;
    else if constexpr (std::is_floating_point_v<T>) return 0;  // rejected by the type rule
    else {
      using U = std::make_unsigned_t<T>;
      const U m = v < 0 ? static_cast<U>(U(0) - static_cast<U>(v)) : static_cast<U>(v);  // |x|, as NumPy
      return static_cast<std::uint8_t>(std::popcount(m));
    }
  });
}

// ---- binary primitives ----

enum class BinaryKind { floating, integer };

template <BinaryKind kind> TensorType infer_special_binary(const std::vector<Tensor>& in, const Attr&) {
  const Tensor& a = in[0];
  const Tensor& b = in[1];
  check_internal(a.dtype() == b.dtype(), "binary op operands must be promoted before make_node");
  Shape shape = broadcast_shapes(a.shape(), b.shape());
  if constexpr (kind == BinaryKind::floating) {
    if (!is_floating(a.dtype()))
      fail_dtype("expects floating-point operands, got " + std::string(dtype_name(a.dtype())),
                 "Cast the operands with astype(float32).");
  } else {
    if (is_floating(a.dtype()))
      fail_dtype("expects integer operands, got " + std::string(dtype_name(a.dtype())),
                 "gcd and lcm are defined on integers; cast with astype(int32) (after rounding) first.");
  }
  return {shape, a.dtype()};
}

template <double (*F)(double, double)> Array eval_float_binary(const EvalArgs& args) {
  return map_binary(args.inputs[0], args.inputs[1], args.node.type.shape, args.node.type.dtype, [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(F(static_cast<double>(a), static_cast<double>(b)));
    else return a;
  });
}

double erfc_d(double x) { return std::erfc(x); }

Array eval_nextafter(const EvalArgs& args) {
  return map_binary(args.inputs[0], args.inputs[1], args.node.type.shape, args.node.type.dtype, [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (std::is_floating_point_v<T>) return std::nextafter(a, b);
    else return a;
  });
}

template <class T> T gcd_value(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a || b;
  else if constexpr (std::is_floating_point_v<T>) return a;  // rejected by the type rule
  else {
    using U = std::make_unsigned_t<T>;
    U x = a < 0 ? static_cast<U>(U(0) - static_cast<U>(a)) : static_cast<U>(a);
    U y = b < 0 ? static_cast<U>(U(0) - static_cast<U>(b)) : static_cast<U>(b);
    while (y != 0) {
      const U t = static_cast<U>(x % y);
      x = y;
      y = t;
    }
    return static_cast<T>(x);
  }
}
template <class T> T lcm_value(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a && b;
  else if constexpr (std::is_floating_point_v<T>) return a;
  else {
    using U = std::make_unsigned_t<T>;
    const T g = gcd_value(a, b);
    if (g == 0) return 0;
    const U x = a < 0 ? static_cast<U>(U(0) - static_cast<U>(a)) : static_cast<U>(a);
    const U y = b < 0 ? static_cast<U>(U(0) - static_cast<U>(b)) : static_cast<U>(b);
    return static_cast<T>(static_cast<U>(x / static_cast<U>(g)) * y);  // wraps as NumPy's does
  }
}

Array eval_gcd(const EvalArgs& args) {
  return map_binary(args.inputs[0], args.inputs[1], args.node.type.shape, args.node.type.dtype,
                    [](auto a, auto b) { return gcd_value(a, b); });
}
Array eval_lcm(const EvalArgs& args) {
  return map_binary(args.inputs[0], args.inputs[1], args.node.type.shape, args.node.type.dtype,
                    [](auto a, auto b) { return lcm_value(a, b); });
}

// The cotangent of one operand of a broadcasting binary node, summed back to its shape.
Tensor to_input(const Tensor& out, const Tensor& t, int k) {
  return unbroadcast(broadcast_to(t, out.shape()), out.node().inputs[static_cast<std::size_t>(k)].shape());
}

// zeta(x, q): d/dq = -x zeta(x + 1, q); no gradient in x.
Grads vjp_zeta(const Tensor& y, const Tensor& g) {
  const Tensor& x = input0(y);
  const Tensor& q = input1(y);
  return {Tensor(), to_input(y, g * -x * special::zeta(x + 1.0, q), 1)};
}
// d/dx P(a, x) = x^(a-1) e^-x / gamma(a), computed in logs; no gradient in a.
Tensor gammainc_density(const Tensor& a, const Tensor& x) { return exp((a - 1.0) * log(x) - x - special::gammaln(a)); }
Grads vjp_gammainc(const Tensor& y, const Tensor& g) {
  return {Tensor(), to_input(y, g * gammainc_density(input0(y), input1(y)), 1)};
}
Grads vjp_gammaincc(const Tensor& y, const Tensor& g) {
  return {Tensor(), to_input(y, -g * gammainc_density(input0(y), input1(y)), 1)};
}

// d/dx E_n(x) = -E_(n-1)(x); for n = 0 (n truncated as expn does), d/dx e^-x / x = -e^-x (x + 1) / x^2.
Grads vjp_expn(const Tensor& y, const Tensor& g) {
  const Tensor& n = input0(y);
  const Tensor& x = input1(y);
  Tensor zero = less(n, 1.0);
  Tensor d0 = -exp(-x) * (x + 1.0) / (x * x);
  Tensor dn = -special::expn(where(zero, 1.0, n) - 1.0, x);
  return {Tensor(), to_input(y, g * where(zero, d0, dn), 1)};
}
// d/dx J_n(x) = (J_(n-1)(x) - J_(n+1)(x)) / 2.
Grads vjp_jn(const Tensor& y, const Tensor& g) {
  const Tensor& n = input0(y);
  const Tensor& x = input1(y);
  return {Tensor(), to_input(y, g * 0.5 * (special::jn(n - 1.0, x) - special::jn(n + 1.0, x)), 1)};
}

// betainc(a, b, x), hyp1f1(a, b, x), hyp2f1(a, b, c, x): operands of one float dtype, broadcast
// together.
TensorType infer_float_nary(const std::vector<Tensor>& in, const Attr&) {
  Shape shape = in[0].shape();
  for (const auto& t : in) {
    check_internal(t.dtype() == in[0].dtype(), "float operands must be promoted before make_node");
    shape = broadcast_shapes(shape, t.shape());
  }
  if (!is_floating(in[0].dtype()))
    fail_dtype("expects floating-point operands, got " + std::string(dtype_name(in[0].dtype())),
               "Cast the operands with astype(float32).");
  return {shape, in[0].dtype()};
}

// F(double...) on N broadcast operands; float operands: the double result rounded to float.
template <std::size_t N, auto F> Array eval_float_nary(const EvalArgs& args) {
  const Shape& shape = args.node.type.shape;
  Array out(shape, args.node.type.dtype);
  if (out.size() == 0) return out;
  std::vector<std::vector<std::int64_t>> strides;
  for (const auto& in : args.inputs) strides.push_back(broadcast_strides(in.shape(), shape));
  IndexCounter counter(shape);
  std::int64_t flat = 0;
  do {
    std::array<double, N> v{};
    for (std::size_t k = 0; k < N; ++k) {
      std::int64_t offset = 0;
      for (std::size_t d = 0; d < shape.size(); ++d) offset += counter.index[d] * strides[k][d];
      v[k] = args.inputs[k].get_flat(offset);
    }
    const double r = std::apply(F, v);
    out.set_flat(flat++, out.dtype() == DType::f32 ? static_cast<double>(static_cast<float>(r)) : r);
  } while (counter.next());
  return out;
}

// d/dx I_x(a, b) = x^(a-1) (1-x)^(b-1) / B(a, b), in logs; no gradient in a or b.
Grads vjp_betainc(const Tensor& y, const Tensor& g) {
  const auto& in = y.node().inputs;
  const Tensor &a = in[0], &b = in[1], &x = in[2];
  Tensor log_density = (a - 1.0) * log(x) + (b - 1.0) * log1p(-x) - special::betaln(a, b);
  return {Tensor(), Tensor(), to_input(y, g * exp(log_density), 2)};
}

// d/dx 1F1(a; b; x) = (a / b) 1F1(a + 1; b + 1; x); no gradient in a or b.
Grads vjp_hyp1f1(const Tensor& y, const Tensor& g) {
  const auto& in = y.node().inputs;
  const Tensor &a = in[0], &b = in[1], &x = in[2];
  return {Tensor(), Tensor(), to_input(y, g * (a / b) * special::hyp1f1(a + 1.0, b + 1.0, x), 2)};
}
// d/dx 2F1(a, b; c; x) = (a b / c) 2F1(a + 1, b + 1; c + 1; x); no gradient in a, b or c.
Grads vjp_hyp2f1(const Tensor& y, const Tensor& g) {
  const auto& in = y.node().inputs;
  const Tensor &a = in[0], &b = in[1], &c = in[2], &x = in[3];
  return {Tensor(), Tensor(), Tensor(),
          to_input(y, g * (a * b / c) * special::hyp2f1(a + 1.0, b + 1.0, c + 1.0, x), 3)};
}
// dT/dh = -phi(h) erf(a h / sqrt 2) / 2, dT/da = exp(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2)); a h
// is 0 at h = 0 (a = +-inf included: T(h, +-inf) = +-erfc(|h| / sqrt 2) / 4 has a kink there, the
// mean of its one-sided slopes is 0).
Grads vjp_owens_t(const Tensor& y, const Tensor& g) {
  const Tensor& h = input0(y);
  const Tensor& a = input1(y);
  constexpr double kInvSqrt2Pi = 0.3989422804014327, kInvSqrt2 = 0.7071067811865476;
  const Tensor ah = where(equal(h, 0.0), 0.0, a * h);
  const Tensor gauss = exp(-0.5 * h * h);
  const Tensor dh = -0.5 * kInvSqrt2Pi * gauss * erf(ah * kInvSqrt2);
  const Tensor da = gauss * exp(-0.5 * ah * ah) / (2.0 * std::numbers::pi * (1.0 + a * a));
  return {to_input(y, g * dh, 0), to_input(y, g * da, 1)};
}
}  // namespace

void register_special_ops() {
  define_float_unary(K::Lgamma, eval_float_unary<sm::lgamma>, vjp_lgamma);
  define_float_unary(K::Digamma, eval_float_unary<sm::digamma>, vjp_digamma);
  define_float_unary(K::Erfc, eval_float_unary<erfc_d>, vjp_erfc);
  define_float_unary(K::Erfinv, eval_float_unary<sm::erfinv>, vjp_erfinv);
  define_float_unary(K::Erfcx, eval_float_unary<sm::erfcx>, vjp_erfcx);
  define_float_unary(K::Ndtri, eval_float_unary<sm::ndtri>, vjp_ndtri);
  define_float_unary(K::LogNdtr, eval_float_unary<sm::log_ndtr>, vjp_log_ndtr);
  define_float_unary(K::I0e, eval_float_unary<sm::i0e>, vjp_i0e);
  define_float_unary(K::I1e, eval_float_unary<sm::i1e>, vjp_i1e);
  define_float_unary(K::Expi, eval_float_unary<sm::expi>, vjp_expi);
  define_float_unary(K::Exp1, eval_float_unary<sm::exp1>, vjp_exp1);
  define_float_unary(K::Spence, eval_float_unary<sm::spence>, vjp_spence);
  define_float_unary(K::Dawsn, eval_float_unary<sm::dawsn>, vjp_dawsn);
  define_float_unary(K::FresnelS, eval_float_unary<sm::fresnel_s>, vjp_fresnel_s);
  define_float_unary(K::FresnelC, eval_float_unary<sm::fresnel_c>, vjp_fresnel_c);
  define_float_unary(K::Sinint, eval_float_unary<sm::sinint>, vjp_sinint);
  define_float_unary(K::Cosint, eval_float_unary<sm::cosint>, vjp_cosint);
  define(K::BitwiseCount,
         row(Family::elementwise, 1, Lowering::kernel, infer_bitwise_count, eval_bitwise_count, no_gradient, true));
  constexpr auto F = BinaryKind::floating;
  define(K::Zeta,
         row(Family::elementwise, 2, Lowering::kernel, infer_special_binary<F>, eval_float_binary<sm::zeta>, vjp_zeta));
  define(K::Gammainc, row(Family::elementwise, 2, Lowering::kernel, infer_special_binary<F>,
                          eval_float_binary<sm::igamma>, vjp_gammainc));
  define(K::Gammaincc, row(Family::elementwise, 2, Lowering::kernel, infer_special_binary<F>,
                           eval_float_binary<sm::igammac>, vjp_gammaincc));
  define(K::Betainc,
         row(Family::elementwise, 3, Lowering::kernel, infer_float_nary, eval_float_nary<3, sm::betainc>, vjp_betainc));
  define(K::Hyp1f1,
         row(Family::elementwise, 3, Lowering::kernel, infer_float_nary, eval_float_nary<3, sm::hyp1f1>, vjp_hyp1f1));
  define(K::Hyp2f1,
         row(Family::elementwise, 4, Lowering::kernel, infer_float_nary, eval_float_nary<4, sm::hyp2f1>, vjp_hyp2f1));
  define(K::OwensT, row(Family::elementwise, 2, Lowering::kernel, infer_special_binary<F>,
                        eval_float_binary<sm::owens_t>, vjp_owens_t));
  define(K::Expn,
         row(Family::elementwise, 2, Lowering::kernel, infer_special_binary<F>, eval_float_binary<sm::expn>, vjp_expn));
  define(K::Jn,
         row(Family::elementwise, 2, Lowering::kernel, infer_special_binary<F>, eval_float_binary<sm::jn>, vjp_jn));
  define(K::Nextafter,
         row(Family::elementwise, 2, Lowering::kernel, infer_special_binary<F>, eval_nextafter, no_gradient, true));
  constexpr auto I = BinaryKind::integer;
  define(K::Gcd, row(Family::elementwise, 2, Lowering::kernel, infer_special_binary<I>, eval_gcd, no_gradient));
  define(K::Lcm, row(Family::elementwise, 2, Lowering::kernel, infer_special_binary<I>, eval_lcm, no_gradient));
}

namespace {

// NumPy promotion with weak scalars (as binary.cpp), then at least float32 for float math.
DType scalar_dtype(const Operand& s) { return s.integral() ? DType::i64 : DType::f32; }
DType common_dtype(const Operand& a, const Operand& b) {
  if (a.is_tensor() && b.is_tensor()) return promote_types(a.tensor().dtype(), b.tensor().dtype());
  if (!a.is_tensor() && !b.is_tensor()) return promote_types(scalar_dtype(a), scalar_dtype(b));
  const Tensor& t = a.is_tensor() ? a.tensor() : b.tensor();
  const Operand& s = a.is_tensor() ? b : a;
  if (!s.integral() && !is_floating(t.dtype())) return DType::f32;
  if (s.integral() && t.dtype() == DType::b8) return DType::i64;
  return t.dtype();
}
DType float_dtype(const Operand& a, const Operand& b) {
  DType d = common_dtype(a, b);
  return is_floating(d) ? d : DType::f32;
}
Tensor as_tensor(const Operand& x, DType dtype, Loc loc) {
  if (x.is_tensor()) return cast(x.tensor(), dtype, loc);
  return constant(x.number(), dtype, loc);
}

Tensor float_unary(OpKind op, const Tensor& x, Loc loc) {
  return make_node(op, {is_inexact(x.dtype()) ? x : cast(x, DType::f32, loc)}, NoAttr{}, loc);
}
Tensor float_binary(OpKind op, const Operand& a, const Operand& b, Loc loc) {
  const DType d = float_dtype(a, b);
  return make_node(op, {as_tensor(a, d, loc), as_tensor(b, d, loc)}, NoAttr{}, loc);
}
// A pair of operands as tensors of their common float dtype.
std::pair<Tensor, Tensor> float_pair(const Operand& a, const Operand& b, Loc loc) {
  const DType d = float_dtype(a, b);
  return {as_tensor(a, d, loc), as_tensor(b, d, loc)};
}
Tensor as_float(const Tensor& x, Loc loc) { return is_inexact(x.dtype()) ? x : cast(x, DType::f32, loc); }
Tensor int_binary(OpKind op, const Operand& a, const Operand& b, Loc loc) {
  const DType d = common_dtype(a, b);
  return make_node(op, {as_tensor(a, d, loc), as_tensor(b, d, loc)}, NoAttr{}, loc);
}

}  // namespace
}  // namespace symx::ops

namespace symx {
namespace special {

using ops::float_binary;
using ops::float_pair;
using ops::float_unary;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

Tensor gammaln(const Tensor& x, Loc loc) { return float_unary(OpKind::Lgamma, x, loc); }

Tensor loggamma(const Tensor& x, Loc loc) {
  Tensor xf = ops::as_float(x, loc);
  return named_composite("loggamma", where(less(xf, 0.0, loc), kNaN, special::gammaln(xf, loc), loc));
}

Tensor gammasgn(const Tensor& x, Loc loc) {
  Tensor xf = ops::as_float(x, loc);
  Tensor fl = floor(xf, loc);
  Tensor neg = where(symx::equal(mod(fl, 2.0, loc), 0.0, loc), 1.0, -1.0, loc);
  Tensor s = where(greater(xf, 0.0, loc), 1.0, neg, loc);
  s = where(symx::equal(xf, 0.0, loc), where(less(reciprocal(xf, loc), 0.0, loc), -1.0, 1.0, loc), s, loc);  // +-0
  s = where(logical_and(less(xf, 0.0, loc), symx::equal(fl, xf, loc), loc), kNaN, s, loc);  // poles, -inf
  s = where(isnan(xf, loc), xf, s, loc);
  return named_composite("gammasgn", stop_gradient(s, loc));
}

// gamma(x) = gammasgn(x) exp(gammaln(x)); for float64 x >= 10 its value is replaced by Stirling's
// series as Cephes' stirf forms it, y = x^(x/2 - 1/4),
// gamma(x) = sqrt(2 pi) y (y e^-x) e^(sum_k B_2k / (2k (2k-1) x^(2k-1))), so that no absolute error of
// a large lgamma(x) (1e-13 at x = 170) becomes relative (6.8e-16 of SciPy at 150..171.6). The
// replacement is added as stop_gradient(stirling - general): the two agree to 1e-13, so the
// difference is exact (Sterbenz) and general + it is stirling exactly, while the gradient stays
// gamma(x) digamma(x) through gammaln's (differentiating the product itself overflows: d/d(e^-x) of
// y y e^-x is y^2, 1e325 at x = 150). The Stirling lanes see x clamped to [10, 180].
Tensor gamma(const Tensor& x, Loc loc) {
  Tensor xf = ops::as_float(x, loc);
  Tensor general = multiply(special::gammasgn(xf, loc), exp(special::gammaln(xf, loc), loc), loc);
  if (xf.dtype() != DType::f64) return named_composite("gamma", general);
  constexpr double kStirlingFrom = 10.0, kCap = 180.0;
  // B_2k / (2k (2k - 1)), k = 1..8 (the next term is below 2e-18 at x = 10)
  constexpr std::array<double, 8> kTail = {1.0 / 12,   -1.0 / 360,      1.0 / 1260, -1.0 / 1680,
                                           1.0 / 1188, -691.0 / 360360, 1.0 / 156,  -3617.0 / 122400};
  Tensor big = greater_equal(xf, kStirlingFrom, loc);
  Tensor xs = minimum(where(big, xf, kStirlingFrom, loc), kCap, loc);
  Tensor r = reciprocal(xs, loc), r2 = multiply(r, r, loc);
  Tensor tail = multiply(r2, kTail[7], loc);
  for (int k = 6; k >= 1; --k) tail = multiply(add(tail, kTail[k], loc), r2, loc);
  tail = multiply(add(tail, kTail[0], loc), r, loc);
  Tensor y = power(xs, subtract(multiply(xs, 0.5, loc), 0.25, loc), loc);
  Tensor scale = multiply(exp(tail, loc), std::sqrt(2 * std::numbers::pi), loc);
  Tensor stirling = multiply(y, multiply(multiply(y, exp(negative(xs, loc), loc), loc), scale, loc), loc);
  Tensor use = logical_and(big, logical_and(isfinite(stirling, loc), isfinite(general, loc), loc), loc);
  Tensor correction = stop_gradient(where(use, subtract(stirling, general, loc), 0.0, loc), loc);
  return named_composite("gamma", add(general, correction, loc));
}

Tensor digamma(const Tensor& x, Loc loc) { return float_unary(OpKind::Digamma, x, loc); }

Tensor polygamma(const Operand& n, const Operand& x, Loc loc) {
  auto [nf, xf] = float_pair(n, x, loc);
  Tensor sign = where(symx::equal(mod(nf, 2.0, loc), 0.0, loc), -1.0, 1.0, loc);
  Tensor higher = multiply(multiply(sign, exp(special::gammaln(add(nf, 1.0, loc), loc), loc), loc),
                           special::zeta(add(nf, 1.0, loc), xf, loc), loc);
  Tensor zero = symx::equal(nf, 0.0, loc);
  return named_composite("polygamma", where(zero, special::digamma(xf, loc), higher, loc));
}

Tensor multigammaln(const Tensor& a, int d, Loc loc) {
  Tensor af = ops::as_float(a, loc);
  Tensor out = constant(0.25 * d * (d - 1) * std::log(std::numbers::pi), af.dtype(), loc);
  for (int j = 0; j < d; ++j) out = add(out, special::gammaln(subtract(af, 0.5 * j, loc), loc), loc);
  return named_composite("multigammaln", where(greater(af, 0.5 * (d - 1), loc), out, kNaN, loc));
}

Tensor betaln(const Operand& a, const Operand& b, Loc loc) {
  auto [af, bf] = float_pair(a, b, loc);
  return named_composite("betaln", subtract(add(special::gammaln(af, loc), special::gammaln(bf, loc), loc),
                                            special::gammaln(add(af, bf, loc), loc), loc));
}

Tensor beta(const Operand& a, const Operand& b, Loc loc) {
  auto [af, bf] = float_pair(a, b, loc);
  Tensor s = multiply(multiply(special::gammasgn(af, loc), special::gammasgn(bf, loc), loc),
                      special::gammasgn(add(af, bf, loc), loc), loc);
  return named_composite("beta", multiply(s, exp(special::betaln(af, bf, loc), loc), loc));
}

Tensor erfc(const Tensor& x, Loc loc) { return float_unary(OpKind::Erfc, x, loc); }
Tensor erfinv(const Tensor& y, Loc loc) { return float_unary(OpKind::Erfinv, y, loc); }
Tensor erfcinv(const Tensor& y, Loc loc) {
  Tensor yf = ops::as_float(y, loc);
  return named_composite("erfcinv",
                         multiply(special::ndtri(multiply(yf, 0.5, loc), loc), -std::numbers::sqrt2 / 2, loc));
}
Tensor erfcx(const Tensor& x, Loc loc) { return float_unary(OpKind::Erfcx, x, loc); }

// Cephes ndtr: 0.5 + 0.5 erf(t) for |t| < 1/sqrt(2), else 0.5 erfc(|t|) (or 1 minus it), t = x/sqrt(2).
Tensor ndtr(const Tensor& x, Loc loc) {
  Tensor xf = ops::as_float(x, loc);
  Tensor t = multiply(xf, std::numbers::sqrt2 / 2, loc);
  Tensor z = abs(t, loc);
  Tensor center = add(0.5, multiply(0.5, erf(t, loc), loc), loc);
  Tensor tail = multiply(0.5, special::erfc(z, loc), loc);
  Tensor outer = where(greater(t, 0.0, loc), subtract(1.0, tail, loc), tail, loc);
  return named_composite("ndtr", where(less(z, std::numbers::sqrt2 / 2, loc), center, outer, loc));
}

Tensor ndtri(const Tensor& p, Loc loc) { return float_unary(OpKind::Ndtri, p, loc); }
Tensor log_ndtr(const Tensor& x, Loc loc) { return float_unary(OpKind::LogNdtr, x, loc); }

namespace {
// x f(y), 0 where x = 0 (unless y is NaN). f(y) is replaced by 0 where x = 0 and f(y) would be
// infinite (y at or beyond the pole `pole`, or y = inf), so there is no 0 * inf; elsewhere the
// gradient in x is f(y) (as JAX's and PyTorch's, also at x = 0).
Tensor x_times(const char* name, const Operand& x, const Operand& y, Tensor (*f)(const Tensor&, Loc), double pole,
               Loc loc) {
  auto [xf, yf] = float_pair(x, y, loc);
  Tensor edge = logical_or(less_equal(yf, pole, loc), symx::equal(yf, kInf, loc), loc);
  Tensor safe = logical_and(symx::equal(xf, 0.0, loc), edge, loc);
  Tensor fy = where(safe, 0.0, f(where(safe, pole + 1.0, yf, loc), loc), loc);
  return named_composite(name, multiply(xf, fy, loc));
}
Tensor log_of(const Tensor& x, Loc loc) { return log(x, loc); }
Tensor log1p_of(const Tensor& x, Loc loc) { return log1p(x, loc); }
}  // namespace

Tensor xlogy(const Operand& x, const Operand& y, Loc loc) { return x_times("xlogy", x, y, log_of, 0.0, loc); }
Tensor xlog1py(const Operand& x, const Operand& y, Loc loc) { return x_times("xlog1py", x, y, log1p_of, -1.0, loc); }

Tensor entr(const Tensor& x, Loc loc) {
  Tensor xf = ops::as_float(x, loc);
  Tensor pos = greater(xf, 0.0, loc);
  Tensor value = negative(multiply(xf, log(where(pos, xf, 1.0, loc), loc), loc), loc);
  Tensor other = where(symx::equal(xf, 0.0, loc), 0.0, where(isnan(xf, loc), xf, -kInf, loc), loc);
  return named_composite("entr", where(pos, value, other, loc));
}

namespace {
// x log(x / y) (+ extra) on x > 0, y > 0; `at_zero` where x = 0 and y >= 0; inf elsewhere; NaN in,
// NaN out.
Tensor relative_entropy(const char* name, const Operand& x, const Operand& y, bool kl, Loc loc) {
  auto [xf, yf] = float_pair(x, y, loc);
  Tensor inside = logical_and(greater(xf, 0.0, loc), greater(yf, 0.0, loc), loc);
  Tensor xs = where(inside, xf, 1.0, loc), ys = where(inside, yf, 1.0, loc);
  Tensor value = multiply(xs, log(divide(xs, ys, loc), loc), loc);
  if (kl) value = add(subtract(value, xs, loc), ys, loc);
  Tensor edge = logical_and(symx::equal(xf, 0.0, loc), greater_equal(yf, 0.0, loc), loc);
  Tensor out = where(edge, kl ? yf : zeros_like(yf, loc), kInf, loc);
  out = where(inside, value, out, loc);
  out = where(logical_or(isnan(xf, loc), isnan(yf, loc), loc), kNaN, out, loc);
  return named_composite(name, out);
}
}  // namespace

Tensor rel_entr(const Operand& x, const Operand& y, Loc loc) { return relative_entropy("rel_entr", x, y, false, loc); }
Tensor kl_div(const Operand& x, const Operand& y, Loc loc) { return relative_entropy("kl_div", x, y, true, loc); }

Tensor gammainc(const Operand& a, const Operand& x, Loc loc) { return float_binary(OpKind::Gammainc, a, x, loc); }
Tensor gammaincc(const Operand& a, const Operand& x, Loc loc) { return float_binary(OpKind::Gammaincc, a, x, loc); }

namespace {
// The operands of betainc, hyp1f1, hyp2f1 as tensors of one float dtype: the first two promoted as
// a binary op's, then with the dtype of each further tensor operand (a scalar one is weak).
Tensor float_nary(OpKind op, std::initializer_list<const Operand*> operands, Loc loc) {
  auto it = operands.begin();
  DType d = ops::float_dtype(**it, **(it + 1));
  for (auto jt = it + 2; jt != operands.end(); ++jt)
    if ((*jt)->is_tensor()) d = promote_types(d, ops::float_dtype(**jt, **jt));
  std::vector<Tensor> in;
  for (const Operand* o : operands) in.push_back(ops::as_tensor(*o, d, loc));
  return ops::make_node(op, std::move(in), NoAttr{}, loc);
}
}  // namespace

Tensor betainc(const Operand& a, const Operand& b, const Operand& x, Loc loc) {
  return float_nary(OpKind::Betainc, {&a, &b, &x}, loc);
}
Tensor hyp1f1(const Operand& a, const Operand& b, const Operand& x, Loc loc) {
  return float_nary(OpKind::Hyp1f1, {&a, &b, &x}, loc);
}
Tensor hyp2f1(const Operand& a, const Operand& b, const Operand& c, const Operand& x, Loc loc) {
  return float_nary(OpKind::Hyp2f1, {&a, &b, &c, &x}, loc);
}
Tensor owens_t(const Operand& h, const Operand& a, Loc loc) { return float_binary(OpKind::OwensT, h, a, loc); }

Tensor i0e(const Tensor& x, Loc loc) { return float_unary(OpKind::I0e, x, loc); }
Tensor i1e(const Tensor& x, Loc loc) { return float_unary(OpKind::I1e, x, loc); }
Tensor i0(const Tensor& x, Loc loc) {
  Tensor xf = ops::as_float(x, loc);
  return named_composite("i0", multiply(special::i0e(xf, loc), exp(abs(xf, loc), loc), loc));
}
Tensor i1(const Tensor& x, Loc loc) {
  Tensor xf = ops::as_float(x, loc);
  return named_composite("i1", multiply(special::i1e(xf, loc), exp(abs(xf, loc), loc), loc));
}

Tensor zeta(const Operand& x, const Operand& q, Loc loc) { return float_binary(OpKind::Zeta, x, q, loc); }

Tensor zeta(const Tensor& x, Loc loc) {
  Tensor xf = ops::as_float(x, loc);
  Tensor right = special::zeta(xf, 1.0, loc);
  // -1 <= x < 1: 1/(x - 1) + sum_n (-1)^n gamma_n / n! (x - 1)^n (the Stieltjes constants gamma_n;
  // 22 terms: relative error below 1e-16 there).
  constexpr double kStieltjes[] = {-2.0441543122262165e-24, 1.9168201593991233e-22,  -4.139956737713306e-21,
                                   4.800850782488065e-20,   -7.387676660538637e-20,  -9.544466076366965e-18,
                                   2.1677312200726828e-16,  -2.3997862217709992e-15, 4.4104247417577536e-15,
                                   3.4921159366720317e-13,  -6.768689863513697e-12,  5.658421927608708e-11,
                                   9.47827778276236e-11,    -8.733218100273798e-09,  1.0462094584479188e-07,
                                   -3.316240908752772e-07,  -6.6110318108421895e-06, 9.689041939447084e-05,
                                   -0.00034230573671722433, -0.00484518159643616,    0.07281584548367673,
                                   0.5772156649015329};
  Tensor mid_range = logical_and(greater_equal(xf, -1.0, loc), less(xf, 1.0, loc), loc);
  Tensor t = subtract(where(mid_range, xf, 0.0, loc), 1.0, loc);
  Tensor poly = constant(kStieltjes[0], xf.dtype(), loc);
  for (std::size_t i = 1; i < std::size(kStieltjes); ++i) poly = add(multiply(poly, t, loc), kStieltjes[i], loc);
  Tensor mid = add(reciprocal(t, loc), poly, loc);
  // x < -1: 2^x pi^(x-1) sin(pi x / 2) gamma(1 - x) zeta(1 - x), on a safe x (so that the unused
  // branch stays finite).
  Tensor low = less(xf, -1.0, loc);
  Tensor xs = where(low, xf, -2.0, loc);
  Tensor one_minus = subtract(1.0, xs, loc);
  Tensor log_scale =
      add(multiply(xs, std::log(2.0), loc), multiply(subtract(xs, 1.0, loc), std::log(std::numbers::pi), loc), loc);
  Tensor left = multiply(multiply(sin(multiply(xs, std::numbers::pi / 2, loc), loc),
                                  exp(add(log_scale, special::gammaln(one_minus, loc), loc), loc), loc),
                         special::zeta(one_minus, 1.0, loc), loc);
  return named_composite("zeta", where(low, left, where(mid_range, mid, right, loc), loc));
}

Tensor expi(const Tensor& x, Loc loc) { return float_unary(OpKind::Expi, x, loc); }
Tensor exp1(const Tensor& x, Loc loc) { return float_unary(OpKind::Exp1, x, loc); }

Tensor expn(const Operand& n, const Operand& x, Loc loc) { return float_binary(OpKind::Expn, n, x, loc); }
Tensor spence(const Tensor& z, Loc loc) { return float_unary(OpKind::Spence, z, loc); }
Tensor dawsn(const Tensor& x, Loc loc) { return float_unary(OpKind::Dawsn, x, loc); }
std::pair<Tensor, Tensor> fresnel(const Tensor& z, Loc loc) {
  return {float_unary(OpKind::FresnelS, z, loc), float_unary(OpKind::FresnelC, z, loc)};
}
std::pair<Tensor, Tensor> sici(const Tensor& x, Loc loc) {
  return {float_unary(OpKind::Sinint, x, loc), float_unary(OpKind::Cosint, x, loc)};
}
Tensor jn(const Operand& n, const Operand& x, Loc loc) { return float_binary(OpKind::Jn, n, x, loc); }
Tensor j0(const Tensor& x, Loc loc) { return named_composite("j0", special::jn(0, ops::as_float(x, loc), loc)); }
Tensor j1(const Tensor& x, Loc loc) { return named_composite("j1", special::jn(1, ops::as_float(x, loc), loc)); }
Tensor bessel_jn(const Tensor& z, int v, int n_iter, Loc loc) {
  if (v < 0)
    ops::raise("bessel_jn", {z},
               {ops::TypeProblem::Kind::value, "v must be non-negative, got " + std::to_string(v),
                "Pass the highest order wanted, v >= 0 (orders 0..v are returned)."},
               loc);
  if (n_iter <= 0)
    ops::raise("bessel_jn", {z},
               {ops::TypeProblem::Kind::value, "n_iter must be positive, got " + std::to_string(n_iter),
                "Omit n_iter (symx evaluates every order to full precision) or pass a positive count."},
               loc);
  Tensor zf = ops::as_float(z, loc);
  std::vector<Tensor> orders;
  for (int k = 0; k <= v; ++k) orders.push_back(special::jn(k, zf, loc));
  return named_composite("bessel_jn", stack(orders, 0, loc));
}

// numpy.sinc's own formula: y = pi * where(x == 0, 1e-20, x), sin(y) / y.
Tensor sinc(const Tensor& x, Loc loc) {
  Tensor xf = ops::as_float(x, loc);
  Tensor y = multiply(where(symx::equal(xf, 0.0, loc), 1.0e-20, xf, loc), std::numbers::pi, loc);
  return named_composite("sinc", divide(sin(y, loc), y, loc));
}

// SciPy's logit: log(p / (1 - p)), and log1p(2s) - log1p(-2s) with s = p - 1/2 on [0.3, 0.65].
Tensor logit(const Tensor& p, Loc loc) {
  Tensor pf = ops::as_float(p, loc);
  Tensor s = multiply(subtract(pf, 0.5, loc), 2.0, loc);
  Tensor center = subtract(log1p(s, loc), log1p(negative(s, loc), loc), loc);
  Tensor outer = log(divide(pf, subtract(1.0, pf, loc), loc), loc);
  Tensor mid = logical_and(greater(pf, 0.3, loc), less(pf, 0.65, loc), loc);
  return named_composite("logit", where(mid, center, outer, loc));
}

Tensor boxcox(const Operand& x, const Operand& lmbda, Loc loc) {
  auto [xf, lf] = float_pair(x, lmbda, loc);
  Tensor zero = symx::equal(lf, 0.0, loc);
  Tensor lx = log(xf, loc);
  Tensor ls = where(zero, 1.0, lf, loc);
  return named_composite("boxcox", where(zero, lx, divide(expm1(multiply(ls, lx, loc), loc), ls, loc), loc));
}

Tensor boxcox1p(const Operand& x, const Operand& lmbda, Loc loc) {
  auto [xf, lf] = float_pair(x, lmbda, loc);
  Tensor zero = symx::equal(lf, 0.0, loc);
  Tensor lx = log1p(xf, loc);
  Tensor ls = where(zero, 1.0, lf, loc);
  return named_composite("boxcox1p", where(zero, lx, divide(expm1(multiply(ls, lx, loc), loc), ls, loc), loc));
}

Tensor poch(const Operand& z, const Operand& m, Loc loc) {
  auto [zf, mf] = float_pair(z, m, loc);
  Tensor zm = add(zf, mf, loc);
  Tensor s = multiply(special::gammasgn(zm, loc), special::gammasgn(zf, loc), loc);
  Tensor value = multiply(s, exp(subtract(special::gammaln(zm, loc), special::gammaln(zf, loc), loc), loc), loc);
  return named_composite("poch", where(symx::equal(mf, 0.0, loc), 1.0, value, loc));
}

Tensor factorial(const Tensor& n, Loc loc) {
  Tensor nf = ops::as_float(n, loc);
  Tensor value = special::gamma(add(where(less(nf, 0.0, loc), 0.0, nf, loc), 1.0, loc), loc);
  return named_composite("factorial", where(less(nf, 0.0, loc), 0.0, value, loc));
}

Tensor comb(const Operand& N, const Operand& k, Loc loc) {
  auto [nf, kf] = float_pair(N, k, loc);
  Tensor ok = logical_and(logical_and(greater_equal(kf, 0.0, loc), greater_equal(nf, 0.0, loc), loc),
                          less_equal(kf, nf, loc), loc);
  Tensor ns = where(ok, nf, 1.0, loc), ks = where(ok, kf, 0.0, loc);
  Tensor l = subtract(subtract(special::gammaln(add(ns, 1.0, loc), loc), special::gammaln(add(ks, 1.0, loc), loc), loc),
                      special::gammaln(add(subtract(ns, ks, loc), 1.0, loc), loc), loc);
  Tensor value = exp(l, loc);
  Tensor integral = logical_and(symx::equal(floor(ns, loc), ns, loc), symx::equal(floor(ks, loc), ks, loc), loc);
  value = where(integral, round(value, loc), value, loc);
  return named_composite("comb", where(ok, value, 0.0, loc));
}

}  // namespace special

Tensor gcd(const Operand& x1, const Operand& x2, Loc loc) { return ops::int_binary(OpKind::Gcd, x1, x2, loc); }
Tensor lcm(const Operand& x1, const Operand& x2, Loc loc) { return ops::int_binary(OpKind::Lcm, x1, x2, loc); }
Tensor nextafter(const Operand& x1, const Operand& x2, Loc loc) {
  return ops::float_binary(OpKind::Nextafter, x1, x2, loc);
}
Tensor bitwise_count(const Tensor& x, Loc loc) { return ops::make_node(OpKind::BitwiseCount, {x}, NoAttr{}, loc); }

}  // namespace symx

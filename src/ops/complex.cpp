// Complex numbers: the parts of a complex tensor (real, imag), its conjugate, and complex(re, im).
// Their VJPs are the transposes of these real-linear maps under JAX's convention (the cotangent of
// z = x + iy is dL/dx - i dL/dy): real's is g itself as a complex number, imag's is -i g, conj's is
// conj(g), and complex(re, im)'s is (real(g), -imag(g)).
#include <numbers>

#include "ops/elementwise.hpp"

namespace symx {
namespace ops {
namespace {

using Grads = std::vector<Tensor>;

const Tensor& input_of(const Tensor& y, std::size_t k = 0) { return y.node().inputs[k]; }

// real, imag, conj: complex operands only (the public functions handle real ones without a node).
void require_complex(const Tensor& x) {
  if (!is_complex(x.dtype()))
    fail_dtype("the primitive takes a complex operand, got " + std::string(dtype_name(x.dtype())),
               "Call real(), imag() or conj(), which return a real operand itself (or zeros).");
}
TensorType infer_part(const std::vector<Tensor>& in, const Attr&) {
  require_complex(in[0]);
  return {in[0].shape(), real_dtype(in[0].dtype())};
}
TensorType infer_conj(const std::vector<Tensor>& in, const Attr&) {
  require_complex(in[0]);
  return in[0].type();
}
TensorType infer_complex(const std::vector<Tensor>& in, const Attr&) {
  if (!is_floating(in[0].dtype()) || in[0].dtype() != in[1].dtype())
    fail_dtype("the primitive takes two float32 or two float64 parts", "Call complex(re, im), which converts them.");
  return {broadcast_shapes(in[0].shape(), in[1].shape()), complex_dtype(in[0].dtype())};
}

Array evaluate_real(const EvalArgs& args) {
  return map_complex_unary(args.inputs[0], args.node.type.dtype, [](auto v) { return v.real(); });
}
Array evaluate_imag(const EvalArgs& args) {
  return map_complex_unary(args.inputs[0], args.node.type.dtype, [](auto v) { return v.imag(); });
}
Array evaluate_conj(const EvalArgs& args) {
  return map_complex_unary(args.inputs[0], args.node.type.dtype, [](auto v) { return std::conj(v); });
}
Array evaluate_complex(const EvalArgs& args) {
  const Array& re = args.inputs[0];
  const Array& im = args.inputs[1];
  const Shape& shape = args.node.type.shape;
  Array out(shape, args.node.type.dtype);
  if (out.size() == 0) return out;
  for_each_broadcast(shape, re.shape(), im.shape(), [&](std::int64_t flat, std::int64_t ia, std::int64_t ib) {
    out.set_complex_flat(flat, {re.get_flat(ia), im.get_flat(ib)});
  });
  return out;
}

Grads vjp_real(const Tensor& y, const Tensor& g) { return {cast(g, input_of(y).dtype())}; }
Grads vjp_imag(const Tensor&, const Tensor& g) { return {complex(zeros_like(g), -g)}; }
Grads vjp_conj(const Tensor&, const Tensor& g) { return {conj(g)}; }
Grads vjp_complex(const Tensor& y, const Tensor& g) {
  Tensor gr = broadcast_to(real(g), y.shape()), gi = broadcast_to(-imag(g), y.shape());
  return {unbroadcast(gr, input_of(y, 0).shape()), unbroadcast(gi, input_of(y, 1).shape())};
}

}  // namespace

void register_complex_ops() {
  using F = Family;
  using L = Lowering;
  define(OpKind::Real, row(F::elementwise, 1, L::kernel, infer_part, evaluate_real, vjp_real, true));
  define(OpKind::Imag, row(F::elementwise, 1, L::kernel, infer_part, evaluate_imag, vjp_imag, true));
  define(OpKind::Conj, row(F::elementwise, 1, L::kernel, infer_conj, evaluate_conj, vjp_conj, true));
  define(OpKind::Complex, row(F::elementwise, 2, L::kernel, infer_complex, evaluate_complex, vjp_complex, true));
}

}  // namespace ops

Tensor real(const Tensor& x, Loc loc) {
  return is_complex(x.dtype()) ? ops::make_node(OpKind::Real, {x}, NoAttr{}, loc) : x;
}

Tensor imag(const Tensor& x, Loc loc) {
  return is_complex(x.dtype()) ? ops::make_node(OpKind::Imag, {x}, NoAttr{}, loc) : zeros_like(x, loc);
}

Tensor conj(const Tensor& x, Loc loc) {
  return is_complex(x.dtype()) ? ops::make_node(OpKind::Conj, {x}, NoAttr{}, loc) : x;
}

Tensor conjugate(const Tensor& x, Loc loc) { return conj(x, loc); }

Tensor complex(const Operand& re, const Operand& im, Loc loc) {
  auto part = [&](const Operand& o, const char* which) -> Tensor {
    if (!o.is_tensor()) return constant(o.number(), DType::f32, loc);
    if (is_complex(o.tensor().dtype()))
      ops::raise("complex", {o.tensor()},
                 {ops::TypeProblem::Kind::dtype,
                  std::string("takes real parts, but the ") + which + " part is " +
                      std::string(dtype_name(o.tensor().dtype())),
                  "Pass real tensors (real(z), imag(z)), or add complex tensors with +."},
                 loc);
    return is_floating(o.tensor().dtype()) ? o.tensor() : cast(o.tensor(), DType::f32, loc);
  };
  if (re.is_complex() || im.is_complex())
    throw DTypeError("complex: the real and imaginary parts must be real numbers. Pass re and im separately.");
  Tensor r = part(re, "real"), i = part(im, "imaginary");
  // A weak number takes the other part's dtype (complex(x, 0.0) of a float64 x is complex128).
  if (!re.is_tensor() && im.is_tensor()) r = cast(r, i.dtype(), loc);
  if (!im.is_tensor() && re.is_tensor()) i = cast(i, r.dtype(), loc);
  DType dt = promote_types(r.dtype(), i.dtype());
  return ops::make_node(OpKind::Complex, {cast(r, dt, loc), cast(i, dt, loc)}, NoAttr{}, loc);
}

Tensor angle(const Tensor& x, bool deg, Loc loc) {
  Tensor a = is_complex(x.dtype()) ? arctan2(imag(x, loc), real(x, loc), loc) : arctan2(zeros_like(x, loc), x, loc);
  return named_composite("angle", deg ? a * (180 / std::numbers::pi) : a);
}

}  // namespace symx

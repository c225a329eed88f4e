// Library calls, the dispatcher: which ops and epilogues a library call computes, and the call for
// a step. The calls themselves, by family (see library_internal.hpp): matrix products
// (library_matmul.cpp), convolutions (library_convolution.cpp), pooling (library_pooling.cpp), on
// the oneDNN plumbing of library_dnnl.cpp.
//
// A bias add and a ReLU that follow a matrix product or convolution (a step's epilogue, chosen by
// the fusion plan) run inside the call: a float32 product with a ReLU on oneDNN's matmul primitive
// (bias argument and eltwise post-ops, applied while each output tile is in registers); a product
// with a bias alone on the gemm, accumulating onto the bias (float32 and float64); a float32
// convolution's bias as the oneDNN primitive's bias argument. Plain products keep the gemm calls.
//
// Every call is prepared once, when the program is built, and allocates nothing when it runs.
#include "runtime/library_calls.hpp"

#include <string>

#include "runtime/library_internal.hpp"
#include "symx/error.hpp"

namespace symx::runtime {
namespace {

using namespace detail;

// Which library call computes an op.
enum class Route {
  none,
  matmul,
  conv_forward,
  conv_backward_data,
  conv_backward_weights,
  max_pool,
  max_pool_grad,
  avg_pool,
  avg_pool_grad
};

// The one switch over the ops here: it names every op, so that a new op does not compile until it
// says whether a library call runs it.
Route route_of(OpKind op) {
  switch (op) {
    case OpKind::Matmul: return Route::matmul;
    case OpKind::Conv: return Route::conv_forward;
    case OpKind::ConvBackwardInput: return Route::conv_backward_data;
    case OpKind::ConvBackwardFilter: return Route::conv_backward_weights;
    case OpKind::MaxPool: return Route::max_pool;
    case OpKind::MaxPoolGrad: return Route::max_pool_grad;
    case OpKind::AvgPool: return Route::avg_pool;
    case OpKind::AvgPoolGrad: return Route::avg_pool_grad;
    // Generated kernels or the reference evaluation.
    case OpKind::Placeholder:
    case OpKind::Variable:
    case OpKind::Constant:
    case OpKind::Negative:
    case OpKind::Abs:
    case OpKind::Sign:
    case OpKind::Exp:
    case OpKind::Expm1:
    case OpKind::Log:
    case OpKind::Log1p:
    case OpKind::Sqrt:
    case OpKind::Rsqrt:
    case OpKind::Square:
    case OpKind::Reciprocal:
    case OpKind::Sin:
    case OpKind::Cos:
    case OpKind::Tan:
    case OpKind::Tanh:
    case OpKind::Arctan:
    case OpKind::Sigmoid:
    case OpKind::Erf:
    case OpKind::Floor:
    case OpKind::Ceil:
    case OpKind::Round:
    case OpKind::LogicalNot:
    case OpKind::IsNan:
    case OpKind::BitwiseNot:
    case OpKind::IsFinite:
    case OpKind::Cast:
    case OpKind::StopGradient:
    case OpKind::Add:
    case OpKind::Subtract:
    case OpKind::Multiply:
    case OpKind::Divide:
    case OpKind::Power:
    case OpKind::Maximum:
    case OpKind::Minimum:
    case OpKind::Mod:
    case OpKind::Arctan2:
    case OpKind::Equal:
    case OpKind::NotEqual:
    case OpKind::Less:
    case OpKind::LessEqual:
    case OpKind::Greater:
    case OpKind::GreaterEqual:
    case OpKind::LogicalAnd:
    case OpKind::LogicalOr:
    case OpKind::FloorDivide:
    case OpKind::BitwiseAnd:
    case OpKind::BitwiseOr:
    case OpKind::BitwiseXor:
    case OpKind::LeftShift:
    case OpKind::RightShift:
    case OpKind::Where:
    case OpKind::Sum:
    case OpKind::Prod:
    case OpKind::Max:
    case OpKind::Min:
    case OpKind::Argmax:
    case OpKind::Argmin:
    case OpKind::Cumsum:
    case OpKind::Reshape:
    case OpKind::Transpose:
    case OpKind::BroadcastTo:
    case OpKind::Concatenate:
    case OpKind::Slice:
    case OpKind::Unslice:
    case OpKind::Pad:
    case OpKind::Take:
    case OpKind::ScatterAdd:
    case OpKind::TakeAlongAxis:
    case OpKind::ScatterAddAlongAxis:
    case OpKind::Inv:
    case OpKind::Det:
    case OpKind::Slogdet:
    case OpKind::Cholesky:
    case OpKind::Solve:
    case OpKind::TriangularSolve:
    case OpKind::SoftmaxCrossEntropy:
    case OpKind::SoftmaxCrossEntropyGrad:
    case OpKind::RandomUniform:
    case OpKind::RandomNormal:
    case OpKind::RandomTruncatedNormal:
    case OpKind::RandomBernoulli:
    case OpKind::RandomRandint:
    case OpKind::RandomPermutation: return Route::none;
  }
  throw InternalError("library calls: op kind " + std::to_string(static_cast<int>(op)) + " is not in the op list");
}

std::unique_ptr<LibraryCall> make_epilogue_call(const codegen::Epilogue& e, std::array<bool, 2> transposed) {
  if (!supports_epilogue(e.product, e.relu)) return nullptr;
  if (e.product.op() == OpKind::Matmul && !e.relu) return make_matmul_call(e.product, true, transposed);
  try {
    return e.product.op() == OpKind::Matmul ? make_matmul_epilogue_call(e, transposed)
                                            : make_conv_call(e.product, ConvDirection::forward, &e);
  } catch (const dnnl::error&) {
    return nullptr;  // no implementation for these attributes: the reference evaluator runs the group
  }
}

// Convolutions and average pooling: oneDNN on the CPU, float32 only.
std::unique_ptr<LibraryCall> make_float32_dnnl_call(const Tensor& node, Route route) {
  if (node.dtype() != DType::f32 || any_empty(node)) return nullptr;
  try {
    switch (route) {
      case Route::conv_forward: return make_conv_call(node, ConvDirection::forward);
      case Route::conv_backward_data: return make_conv_call(node, ConvDirection::backward_data);
      case Route::conv_backward_weights: return make_conv_call(node, ConvDirection::backward_weights);
      case Route::avg_pool: return make_avg_pool_call(node, false);
      case Route::avg_pool_grad: return make_avg_pool_call(node, true);
      case Route::none:
      case Route::matmul:
      case Route::max_pool:
      case Route::max_pool_grad: return nullptr;
    }
  } catch (const dnnl::error&) {
    return nullptr;  // no implementation for these attributes: the reference evaluator runs it
  }
  return nullptr;
}

class RuntimeLibraryCapabilities final : public codegen::LibraryCapabilities {
 public:
  bool handles(OpKind op) const override { return library_handles(op); }
  bool supports_epilogue(const Tensor& product, bool relu) const override {
    return runtime::supports_epilogue(product, relu);
  }
};

}  // namespace

bool library_handles(OpKind op) { return route_of(op) != Route::none; }

bool supports_epilogue(const Tensor& product, bool relu) {
  DType dt = product.dtype();
  if ((dt != DType::f32 && dt != DType::f64) || any_empty(product)) return false;
  for (const Tensor& in : product.node().inputs)
    if (in.dtype() != dt) return false;
  if (product.op() == OpKind::Conv) return dt == DType::f32 && !relu && product.ndim() >= 3 && product.ndim() <= 5;
  if (product.op() != OpKind::Matmul) return false;
  const Shape& sa = product.node().inputs[0].shape();
  const Shape& sb = product.node().inputs[1].shape();
  if (sa.size() < 2 || sb.size() < 2) return false;
  if (!relu) return true;  // the gemm loop takes any batch broadcasting, and float64
  return dt == DType::f32 && (sb.size() == 2 || Shape(sa.begin(), sa.end() - 2) == Shape(sb.begin(), sb.end() - 2));
}

std::unique_ptr<LibraryCall> make_library_call(const codegen::Step& step) {
  if (step.epilogue) return make_epilogue_call(*step.epilogue, step.transposed);
  const Tensor& node = step.node;
  const Route route = route_of(node.op());
  if (route == Route::none) return nullptr;
  for (const Tensor& in : node.node().inputs)
    if (in.dtype() != node.dtype()) return nullptr;
  DType dt = node.dtype();
  if (dt != DType::f32 && dt != DType::f64) return nullptr;
  switch (route) {
    case Route::matmul:
      if (node.shape().size() < 2 || any_empty(node)) return nullptr;
      return make_matmul_call(node, false, step.transposed);
    case Route::max_pool:
    case Route::max_pool_grad:
      if (any_empty(node)) return nullptr;
      return make_max_pool_call(node, route == Route::max_pool_grad);
    case Route::conv_forward:
    case Route::conv_backward_data:
    case Route::conv_backward_weights:
    case Route::avg_pool:
    case Route::avg_pool_grad: return make_float32_dnnl_call(node, route);
    case Route::none: return nullptr;
  }
  return nullptr;
}

const codegen::LibraryCapabilities& library_capabilities() {
  static const RuntimeLibraryCapabilities capabilities;
  return capabilities;
}

}  // namespace symx::runtime

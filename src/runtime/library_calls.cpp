// Library calls, the dispatcher: which ops and epilogues a library call computes, and the call for
// a step. The calls themselves, by family (see library_internal.hpp): matrix products
// (library_matmul.cpp), convolutions (library_convolution.cpp), pooling (library_pooling.cpp), on
// the oneDNN plumbing of library_dnnl.cpp; factorizations and solves on LAPACK (library_linalg.cpp).
//
// A bias add and a ReLU that follow a matrix product or convolution (a step's epilogue, chosen by
// the fusion plan) run inside the call: a float32 product with a ReLU on oneDNN's matmul primitive
// (bias argument and eltwise post-ops, applied while each output tile is in registers); a product
// with a bias alone on the gemm, accumulating onto the bias (float32 and float64); a float32
// convolution's bias as the oneDNN primitive's bias argument. Plain products keep the gemm calls.
//
// Every call is prepared once, when the program is built, and allocates nothing when it runs.
#include "runtime/library_calls.hpp"

#include <array>
#include <string>

#include "ops/op_table.hpp"
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
  avg_pool_grad,
  concatenate,
  unslice,
  scatter,   // scatter_set / mul / min / max (library_scatter.cpp)
  loop,      // scan, while_loop, switch: the regions' compiled programs, run by runtime/library_loops.cpp
  sorting,   // sorts, partitions and running scans over rows (runtime/library_sorting.cpp)
  linalg,    // factorizations and solves on LAPACK (runtime/library_linalg.cpp)
  spectral,  // eigh, eigvalsh, svd, svd_full, svdvals: LAPACK (runtime/library_linalg_spectral.cpp)
  fft        // the Fft primitive: FFTW 3 plans (runtime/library_fft.cpp)
};

// The library call of each op whose row in the op table says Lowering::library; Route::none for
// the others (generated kernels or the reference evaluation). A library op missing here is named
// by library_capabilities(), on first use, and by the op-table test.
Route route_of(OpKind op) {
  static const std::array<Route, kNumOps> routes = [] {
    std::array<Route, kNumOps> r{};
    auto set = [&](OpKind k, Route route) { r[static_cast<std::size_t>(k)] = route; };
    set(OpKind::Matmul, Route::matmul);
    set(OpKind::Conv, Route::conv_forward);
    set(OpKind::ConvBackwardInput, Route::conv_backward_data);
    set(OpKind::ConvBackwardFilter, Route::conv_backward_weights);
    set(OpKind::MaxPool, Route::max_pool);
    set(OpKind::MaxPoolGrad, Route::max_pool_grad);
    set(OpKind::AvgPool, Route::avg_pool);
    set(OpKind::AvgPoolGrad, Route::avg_pool_grad);
    set(OpKind::Concatenate, Route::concatenate);
    set(OpKind::Unslice, Route::unslice);
    set(OpKind::ScatterSet, Route::scatter);
    set(OpKind::ScatterMul, Route::scatter);
    set(OpKind::ScatterMin, Route::scatter);
    set(OpKind::ScatterMax, Route::scatter);
    set(OpKind::Scan, Route::loop);
    set(OpKind::WhileLoop, Route::loop);
    set(OpKind::Switch, Route::loop);
    for (OpKind k : {OpKind::Sort, OpKind::Argsort, OpKind::Partition, OpKind::Argpartition, OpKind::KthValues,
                     OpKind::Cumprod, OpKind::Cummax, OpKind::Cummin, OpKind::Logcumsumexp, OpKind::LinearRecurrence})
      set(k, Route::sorting);
    for (OpKind k : {OpKind::Inv, OpKind::Det, OpKind::Slogdet, OpKind::Cholesky, OpKind::Solve,
                     OpKind::TriangularSolve, OpKind::Qr, OpKind::LuFactor})
      set(k, Route::linalg);
    for (OpKind k : {OpKind::Eigh, OpKind::Eigvalsh, OpKind::Svd, OpKind::SvdFull, OpKind::Svdvals})
      set(k, Route::spectral);
    set(OpKind::Fft, Route::fft);
    return r;
  }();
  return routes[static_cast<std::size_t>(op)];
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
      case Route::loop:
      case Route::sorting:
      case Route::linalg:
      case Route::spectral:
      case Route::fft:
      case Route::scatter:
      case Route::concatenate:
      case Route::unslice:
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
  if (route == Route::loop) return make_loop_call(node);
  if (route == Route::sorting) return make_sorting_call(node);
  if (route == Route::linalg) return make_linalg_call(node);
  if (route == Route::concatenate || route == Route::unslice) return make_copy_call(node);
  if (route == Route::scatter) return make_scatter_call(node);
  if (route == Route::spectral) return make_spectral_call(node);
  if (route == Route::fft) return make_fft_call(node);
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
    case Route::loop:
    case Route::sorting:
    case Route::linalg:
    case Route::spectral:
    case Route::fft:
    case Route::scatter:
    case Route::concatenate:
    case Route::unslice:
    case Route::none: return nullptr;
  }
  return nullptr;
}

// Checks, once, that every op the op table sends to a library has a call here.
const codegen::LibraryCapabilities& library_capabilities() {
  static const RuntimeLibraryCapabilities capabilities = [] {
    for (int k = 0; k < kNumOps; ++k) {
      auto op = static_cast<OpKind>(k);
      if ((ops::op_def(op).lowering == ops::Lowering::library) != (route_of(op) != Route::none))
        throw InternalError(std::string("library calls: ") + op_name(op) +
                            (route_of(op) == Route::none
                                 ? " is a library op in the op table but has no route in route_of"
                                 : " has a route in route_of but is not a library op in the op table"));
    }
    return RuntimeLibraryCapabilities{};
  }();
  return capabilities;
}

}  // namespace symx::runtime

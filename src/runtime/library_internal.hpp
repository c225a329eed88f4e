// What the library-call files share (runtime only, not installed): the oneDNN engine, stream and
// attributes, DnnlCall (a prepared oneDNN primitive bound to a program's buffers), and each
// family's factory for the dispatcher (library_calls.cpp):
//   library_matmul.cpp       matrix products (oneDNN sgemm, BLAS dgemm, oneDNN matmul with an epilogue)
//   library_convolution.cpp  convolutions forward, backward data and backward weights (oneDNN)
//   library_pooling.cpp      average pooling (oneDNN), the max pooling loop and its gradient
//   library_dnnl.cpp         DnnlCall and the oneDNN engine and stream
//   library_copies.cpp       concatenate and unslice as block copies
//   library_loops.cpp        scan, while_loop and switch: their regions' programs run in a loop
//   library_sorting.cpp      sorts, partitions and running scans over rows
//   library_scatter.cpp      the scatters of indexed updates (set, mul, min, max)
//   library_linalg.cpp       factorizations and solves (LAPACK / BLAS in the input's precision)
//   library_linalg_spectral.cpp  eigh, eigvalsh, svd, svdvals (LAPACK syevd, gesdd)
#pragma once

#include <array>
#include <dnnl.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "runtime/library_calls.hpp"

namespace symx::runtime::detail {

// The call of a scan, while_loop or switch node: its regions compiled into programs (through the
// compiler set_region_compiler installs), run without allocating per iteration.
std::unique_ptr<LibraryCall> make_loop_call(const Tensor& node);
// Concatenate and unslice (step 1): block copies (library_copies.cpp); nullptr for other steps.
std::unique_ptr<LibraryCall> make_copy_call(const Tensor& node);
// Sorting and scans (library_sorting.cpp): sort, argsort, partition, argpartition, cumprod, cummax,
// cummin, logcumsumexp, linear_recurrence; nullptr for a dtype without a call.
std::unique_ptr<LibraryCall> make_sorting_call(const Tensor& node);
// scatter_set / scatter_mul / scatter_min / scatter_max (library_scatter.cpp, issue 21).
std::unique_ptr<LibraryCall> make_scatter_call(const Tensor& node);
// inv, det, slogdet, cholesky, solve, triangular_solve, qr, lu_factor (library_linalg.cpp): LAPACK and
// BLAS in float32 or float64; nullptr for other dtypes and empty inputs (the reference then runs).
std::unique_ptr<LibraryCall> make_linalg_call(const Tensor& node);
// eigh, eigvalsh, svd, svd_full, svdvals (library_linalg_spectral.cpp): LAPACK in the input's precision,
// workspaces allocated here; nullptr for a dtype other than float32 / float64.
std::unique_ptr<LibraryCall> make_spectral_call(const Tensor& node);
std::unique_ptr<LibraryCall> make_fft_call(const Tensor& node);  // library_fft.cpp: FFTW plans

using dnnl::memory;

// One engine for the process, never destroyed: primitives and memories of programs that outlive
// static destruction still refer to it. One stream per thread: a oneDNN stream is not meant to be
// used by several threads at once, and calls of functions may run concurrently.
dnnl::engine& cpu_engine();
dnnl::stream& cpu_stream();

// Whether the node or one of its inputs has no elements (no library call then: the libraries
// reject empty tensors, and the reference evaluator handles them).
inline bool any_empty(const Tensor& node) {
  if (node.size() == 0) return true;
  for (const Tensor& in : node.node().inputs)
    if (in.size() == 0) return true;
  return false;
}

inline memory::dims dims_of(const Shape& s) { return memory::dims(s.begin(), s.end()); }

inline memory::desc plain(const memory::dims& d, memory::format_tag tag) {
  return memory::desc(d, memory::data_type::f32, tag);
}

// A call's attributes: its own scratchpad, and a ReLU on the result when `relu` (see
// library_dnnl.cpp for why the ReLU is three post-ops).
dnnl::primitive_attr call_attr(bool relu = false);

// ", A transposed": which operands a matrix product reads through its transpose flag.
std::string transposes_text(std::array<bool, 2> transposed);

// " + bias + relu": what an epilogue adds to a call's description.
std::string epilogue_text(const codegen::Epilogue* e);

// Slot i of a DnnlCall: the oneDNN argument (DNNL_ARG_*) that reads p[i] of run(), and its plain
// layout there; the last slot is the output.
using Slots = std::vector<std::pair<int, memory::desc>>;

// A primitive whose arguments are bound once. Where the primitive descriptor wants another layout
// for a slot, the call owns a buffer in that layout and reorders into it before the primitive
// (inputs) or out of it after (the output); the reorders are created here and share the call's
// scratchpad with the primitive.
class DnnlCall final : public LibraryCall {
 public:
  DnnlCall(std::string what, const dnnl::primitive_desc& pd, const Slots& slots);
  void run(char* const* p) override;
  std::string describe() const override { return what_; }

 private:
  struct Step {
    dnnl::primitive primitive;
    memory::desc scratch_md;
    std::vector<std::pair<int, memory>> memories;  // kept alive for `args`
    std::vector<dnnl_exec_arg_t> args;
  };

  static Step reorder_step(const memory& from, const memory& to);
  void bind_scratchpad();
  static const char* arg_name(int arg);
  void check(dnnl_status_t status) const;

  std::string what_;
  std::vector<memory> user_;  // the program's buffers, one per slot
  std::vector<Step> steps_;   // input reorders, the primitive, the output's reorder
  memory scratchpad_;
  std::mutex mutex_;
};

// ---- the families' factories; each expects a node the dispatcher routed to it ----

// A plain matrix product (`bias`: p[2] holds the bias of an epilogue without ReLU), float32 or
// float64, on the gemm.
std::unique_ptr<LibraryCall> make_matmul_call(const Tensor& product, bool bias, std::array<bool, 2> transposed);
// A float32 product with a ReLU epilogue (and maybe a bias), on oneDNN's matmul primitive.
std::unique_ptr<LibraryCall> make_matmul_epilogue_call(const codegen::Epilogue& e, std::array<bool, 2> transposed);

// Which of the three convolution ops a call computes.
enum class ConvDirection { forward, backward_data, backward_weights };
// A float32 convolution of `direction`; `epilogue`: the step's fused bias and ReLU when `node` is
// its forward convolution. nullptr for an unsupported rank; throws dnnl::error when oneDNN has no
// implementation.
std::unique_ptr<LibraryCall> make_conv_call(const Tensor& node, ConvDirection direction,
                                            const codegen::Epilogue* epilogue = nullptr);

// Float32 average pooling or its gradient (`grad`) on oneDNN; throws dnnl::error when oneDNN has
// no implementation.
std::unique_ptr<LibraryCall> make_avg_pool_call(const Tensor& node, bool grad);
// Max pooling or its gradient (`grad`), float32 or float64, as a parallel loop.
std::unique_ptr<LibraryCall> make_max_pool_call(const Tensor& node, bool grad);

}  // namespace symx::runtime::detail

// Library calls of the spectral decompositions (symx/linalg.hpp): eigh and eigvalsh on LAPACK's
// ssyevd / dsyevd, svd, svd_full and svdvals on sgesdd / dgesdd (sgesvd / dgesvd when gesdd does not
// converge), in the input's precision, through the same per-matrix code as the reference evaluator
// (ops/spectral_lapack.hpp), so that both give the same layouts and signs.
//
// The workspaces (one set per thread) are queried and allocated when the program is built. A batch
// of small matrices (at most 128 x 128) runs one matrix per OpenMP thread, OpenBLAS single-threaded
// meanwhile; larger matrices run one after the other, each on OpenBLAS's own threads. A NaN or infinite entry, or a
// matrix LAPACK cannot decompose, is the user's ValueError (the op, the batch element and the line that built the
// node), as the reference evaluator raises it.
#include <omp.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "ops/spectral_lapack.hpp"
#include "runtime/library_internal.hpp"

// OpenBLAS's thread count (cblas.h of OpenBLAS): its own pthread pool would compete with the OpenMP
// threads of a batch (measured on (64, 64, 64) float32 eigh: 340 ms, 22 ms single-threaded inside).
extern "C" {
int openblas_get_num_threads(void);
void openblas_set_num_threads(int num_threads);
}

namespace symx::runtime::detail {
namespace {

namespace sp = ops::spectral;

template <class T, class Solver> class SpectralCall final : public LibraryCall {
 public:
  // make(): one solver; each thread of a batch gets its own copy.
  template <class Make>
  SpectralCall(const Tensor& node, std::string what, std::int64_t in_each, std::int64_t out_each, bool small, Make make)
      : node_(node), what_(std::move(what)), in_each_(in_each), out_each_(out_each) {
    const Shape& s = node.node().inputs[0].shape();
    count_ = num_elements(Shape(s.begin(), s.end() - 2));
    threads_ = small && count_ >= 2 ? std::max(1, std::min<int>(omp_get_max_threads(), static_cast<int>(count_))) : 1;
    for (int t = 0; t < threads_; ++t) solvers_.push_back(make());
    status_.assign(static_cast<std::size_t>(count_), sp::Status::ok);
  }

  void run(char* const* p) override {
    const T* in = reinterpret_cast<const T*>(p[0]);
    T* out = reinterpret_cast<T*>(p[1]);
    std::lock_guard<std::mutex> lock(mutex_);  // the workspaces are the call's own
    if (threads_ == 1) {
      for (std::int64_t b = 0; b < count_; ++b)
        sp::check_status(node_.node(), solvers_[0].solve(in + b * in_each_, out + b * out_each_), b, count_);
      return;
    }
    // One matrix per OpenMP thread, each on one OpenBLAS thread (the setting is the process's, restored after).
    const int blas_threads = openblas_get_num_threads();
    openblas_set_num_threads(1);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
    for (std::int64_t b = 0; b < count_; ++b)
      status_[static_cast<std::size_t>(b)] =
          solvers_[static_cast<std::size_t>(omp_get_thread_num())].solve(in + b * in_each_, out + b * out_each_);
    openblas_set_num_threads(blas_threads);
    for (std::int64_t b = 0; b < count_; ++b)
      sp::check_status(node_.node(), status_[static_cast<std::size_t>(b)], b, count_);
  }

  std::string describe() const override {
    return what_ + (count_ > 1 ? ", batch of " + std::to_string(count_) : "") +
           (threads_ > 1 ? " on " + std::to_string(threads_) + " threads" : "");
  }

 private:
  Tensor node_;  // for the errors: its op and the user's line
  std::string what_;
  std::int64_t in_each_, out_each_, count_ = 0;
  int threads_ = 1;
  std::vector<Solver> solvers_;
  std::vector<sp::Status> status_;
  std::mutex mutex_;
};

template <class T> std::unique_ptr<LibraryCall> typed_call(const Tensor& node) {
  const Shape& s = node.node().inputs[0].shape();
  const std::int64_t m = s[s.size() - 2], n = s.back();
  const char p = std::is_same_v<T, float> ? 's' : 'd';
  const bool small = std::max(m, n) <= 128;
  switch (node.op()) {
    case OpKind::Eigh:
    case OpKind::Eigvalsh: {
      const bool vectors = node.op() == OpKind::Eigh;
      return std::make_unique<SpectralCall<T, sp::EighSolver<T>>>(node,
                                                                  std::string("LAPACK ") + p + "syevd" +
                                                                      (vectors ? "" : " (values)"),
                                                                  n * n, vectors ? (n + 1) * n : n, small,
                                                                  [&] { return sp::EighSolver<T>(n, vectors); });
    }
    case OpKind::Svd:
    case OpKind::SvdFull:
    case OpKind::Svdvals: {
      const sp::SvdMode mode = node.op() == OpKind::Svd       ? sp::SvdMode::reduced
                               : node.op() == OpKind::SvdFull ? sp::SvdMode::full
                                                              : sp::SvdMode::values;
      const std::int64_t width = mode == sp::SvdMode::full ? std::max(m, n) : std::min(m, n);
      const std::int64_t out_each = mode == sp::SvdMode::values ? std::min(m, n) : (m + 1 + n) * width;
      const char* job = mode == sp::SvdMode::values ? " (values)" : mode == sp::SvdMode::full ? " (full)" : "";
      return std::make_unique<SpectralCall<T, sp::SvdSolver<T>>>(node, std::string("LAPACK ") + p + "gesdd" + job,
                                                                 m * n, out_each, small,
                                                                 [&] { return sp::SvdSolver<T>(m, n, mode); });
    }
    default: return nullptr;
  }
}

}  // namespace

std::unique_ptr<LibraryCall> make_spectral_call(const Tensor& node) {
  if (any_empty(node)) return nullptr;  // empty matrices: the reference evaluator's identities and empty results
  switch (node.node().inputs[0].dtype()) {
    case DType::f32: return typed_call<float>(node);
    case DType::f64: return typed_call<double>(node);
    default: return nullptr;  // float16 / bfloat16: the reference evaluator, in double
  }
}

}  // namespace symx::runtime::detail

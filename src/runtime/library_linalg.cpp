// Library calls of the factorizations and solves (inv, det, slogdet, cholesky, solve,
// triangular_solve, qr, lu_factor): LAPACK and BLAS in the input's precision (s* for float32, d* for
// float64). A batch runs its elements in parallel on symx's OpenMP threads with OpenBLAS held to
// one thread meanwhile (OpenBLAS's own threads inside several OpenMP threads oversubscribe the
// cores: measured 27x slower for solve of (64, 256, 256) float32 on a loaded 2-core machine); a single
// matrix, or a batch too small to share, runs on the calling thread with OpenBLAS's threads.
//
// A row-major matrix is the column-major matrix of its transpose, so most calls run on the
// program's buffers as they are: getrf of a^T gives a = u^T l^T p^T, whose triangles are the
// row-major triangles of the factored buffer (solve then runs two row-major trsm and the row
// interchanges in reverse; inv is getri of a^T, which is inv(a)^T: inv(a) in row-major; det(a^T) is
// det(a); potrf('U') of the row-major lower triangle is the row-major lower Cholesky factor).
// qr and lu_factor copy the matrix into a column-major workspace for geqrf/orgqr and getrf.
//
// Workspaces (factors, pivots, LAPACK's work arrays, sized by a workspace query; one set per thread)
// are made when the program is built; a call allocates nothing. A mutex serializes concurrent calls
// of one program.
// Singular or indefinite inputs raise the reference evaluator's ValueError (same words: the op, the
// batch element, the user's line).
#include <cblas.h>
#include <lapacke.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/op_table.hpp"
#include "runtime/library_internal.hpp"
#include "symx/error.hpp"

namespace symx::runtime::detail {
namespace {

// ---- the s/d entry points by type ----

template <class T> lapack_int getrf(lapack_int m, lapack_int n, T* a, lapack_int lda, lapack_int* ipiv) {
  if constexpr (std::is_same_v<T, float>) return LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, m, n, a, lda, ipiv);
  else return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, n, a, lda, ipiv);
}
template <class T> lapack_int getri(lapack_int n, T* a, const lapack_int* ipiv, T* work, lapack_int lwork) {
  if constexpr (std::is_same_v<T, float>) return LAPACKE_sgetri_work(LAPACK_COL_MAJOR, n, a, n, ipiv, work, lwork);
  else return LAPACKE_dgetri_work(LAPACK_COL_MAJOR, n, a, n, ipiv, work, lwork);
}
template <class T> lapack_int potrf_upper(lapack_int n, T* a) {
  if constexpr (std::is_same_v<T, float>) return LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'U', n, a, n);
  else return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', n, a, n);
}
template <class T> lapack_int geqrf(lapack_int m, lapack_int n, T* a, T* tau, T* work, lapack_int lwork) {
  if constexpr (std::is_same_v<T, float>) return LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, m, n, a, m, tau, work, lwork);
  else return LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, a, m, tau, work, lwork);
}
template <class T>
lapack_int orgqr(lapack_int m, lapack_int n, lapack_int k, T* a, const T* tau, T* work, lapack_int lwork) {
  if constexpr (std::is_same_v<T, float>) return LAPACKE_sorgqr_work(LAPACK_COL_MAJOR, m, n, k, a, m, tau, work, lwork);
  else return LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, m, n, k, a, m, tau, work, lwork);
}
// Row-major B (n x k) := op(A)^-1 B for triangular A (n x n).
template <class T> void trsm(bool lower, bool trans, bool unit, std::int64_t n, std::int64_t k, const T* a, T* b) {
  const auto uplo = lower ? CblasLower : CblasUpper;
  const auto ta = trans ? CblasTrans : CblasNoTrans;
  const auto diag = unit ? CblasUnit : CblasNonUnit;
  const auto ni = static_cast<blasint>(n), ki = static_cast<blasint>(k);
  if constexpr (std::is_same_v<T, float>)
    cblas_strsm(CblasRowMajor, CblasLeft, uplo, ta, diag, ni, ki, 1.0f, a, ni, b, ki);
  else cblas_dtrsm(CblasRowMajor, CblasLeft, uplo, ta, diag, ni, ki, 1.0, a, ni, b, ki);
}

// LAPACK's optimal lwork from a workspace query (lwork = -1).
template <class T> lapack_int lwork_of(T query) { return std::max<lapack_int>(1, static_cast<lapack_int>(query)); }

// ---- shapes and errors ----

Shape batch_of(const Shape& s) { return Shape(s.begin(), s.end() - 2); }

// Element offsets of each batch element of an input of shape `in` broadcast to `out_batch`.
std::vector<std::int64_t> batch_offsets(const Shape& in, const Shape& out_batch) {
  Shape in_batch = batch_of(in);
  const std::int64_t matrix = in[in.size() - 2] * in[in.size() - 1];
  auto strides = ops::broadcast_strides(in_batch, out_batch);
  std::vector<std::int64_t> offsets;
  const std::int64_t count = num_elements(out_batch);
  if (count == 0) return offsets;
  ops::IndexCounter counter(out_batch);
  do {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < out_batch.size(); ++d) off += counter.index[d] * strides[d];
    offsets.push_back(off * matrix);
  } while (counter.next());
  return offsets;
}

// The reference's error (ops/linalg.cpp eval_error), word for word.
[[noreturn]] void call_error(OpKind op, const std::string& where, const std::string& problem, const std::string& fix) {
  std::string message = std::string(op_name(op)) + ": " + problem;
  if (!where.empty()) message += ", at " + where;
  message += ". " + fix;
  throw ValueError(message);
}
std::string batch_note(std::int64_t b, std::int64_t count) {
  return count > 1 ? " (batch element " + std::to_string(b) + ")" : "";
}

// OpenBLAS held to one thread while any batch runs on OpenMP threads (a count, so that concurrent
// calls restore the user's setting only when the last one ends).
class SingleThreadedBlas {
 public:
  SingleThreadedBlas() {
    std::lock_guard lock(mutex());
    if (depth()++ == 0) {
      saved() = openblas_get_num_threads();
      if (saved() > 1) openblas_set_num_threads(1);
    }
  }
  ~SingleThreadedBlas() {
    std::lock_guard lock(mutex());
    if (--depth() == 0 && saved() > 1) openblas_set_num_threads(saved());
  }
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static int& depth() {
    static int d = 0;
    return d;
  }
  static int& saved() {
    static int s = 1;
    return s;
  }
};

// The threads a call prepares workspaces for (the OpenMP pool's size when the program is built).
int prepared_threads() { return std::max(1, std::max(omp_get_max_threads(), omp_get_num_procs())); }

// What every call keeps: the op, the user's line, the matrix size and batch count, a mutex.
class LinalgCall : public LibraryCall {
 public:
  explicit LinalgCall(const Tensor& node) : op_(node.op()), where_(node.node().where), dtype_(node.dtype()) {}
  std::string describe() const override {
    return std::string("LAPACK ") + (dtype_ == DType::f32 ? "float32 " : "float64 ") + what();
  }

 protected:
  virtual std::string what() const = 0;
  // Runs one(b, t) (t: the thread's workspace index) for b in [0, count); one returns 0, or a
  // failure code for fail(b, code), raised for the first failing element as the reference does.
  // `flops`: a rough cost of one element, to decide whether the batch is worth sharing.
  template <class One, class Fail>
  void run_batches(std::int64_t count, double flops, int workspaces, One&& one, Fail&& fail) {
    const int threads = std::min(workspaces, std::max(1, omp_get_max_threads()));
    if (count < 2 || threads < 2 || static_cast<double>(count) * flops < 1e5) {
      for (std::int64_t b = 0; b < count; ++b)
        if (lapack_int code = one(b, 0)) fail(b, code);
      return;
    }
    SingleThreadedBlas hold;
    std::int64_t first = count;
    lapack_int first_code = 0;
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
      std::int64_t mine = count;
      lapack_int code_of_mine = 0;
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t b = 0; b < count; ++b) {
        lapack_int code = one(b, t);
        if (code && b < mine) {
          mine = b;
          code_of_mine = code;
        }
      }
#pragma omp critical(symx_linalg_batch)
      if (mine < first) {
        first = mine;
        first_code = code_of_mine;
      }
    }
    if (first < count) fail(first, first_code);
  }
  OpKind op_;
  std::string where_;
  DType dtype_;
  std::mutex mutex_;
};

// ---- inv, det, slogdet, cholesky: one square input, batch of count ----

template <class T> class SquareCall final : public LinalgCall {
 public:
  explicit SquareCall(const Tensor& node) : LinalgCall(node) {
    const Shape& s = node.node().inputs[0].shape();
    n_ = s.back();
    count_ = num_elements(batch_of(s));
    lapack_int lwork = 1;
    if (op_ == OpKind::Inv) {
      T query = 0;
      getri<T>(static_cast<lapack_int>(n_), nullptr, nullptr, &query, -1);
      lwork = lwork_of(query);
    }
    ws_.resize(static_cast<std::size_t>(prepared_threads()));
    for (auto& w : ws_) {
      w.ipiv.resize(static_cast<std::size_t>(n_));
      if (op_ == OpKind::Det || op_ == OpKind::Slogdet) w.factor.resize(static_cast<std::size_t>(n_ * n_));
      if (op_ == OpKind::Inv) w.work.resize(static_cast<std::size_t>(lwork));
    }
  }

  void run(char* const* p) override {
    std::lock_guard lock(mutex_);
    const T* a = reinterpret_cast<const T*>(p[0]);
    T* out = reinterpret_cast<T*>(p[1]);
    const double n = static_cast<double>(n_);
    run_batches(
        count_, n * n * n, static_cast<int>(ws_.size()), [&](std::int64_t b, int t) { return one(a, out, b, ws_[t]); },
        [&](std::int64_t b, lapack_int info) {
          if (op_ == OpKind::Cholesky)
            call_error(
                op_, where_,
                "the matrix is not positive definite" + batch_note(b, count_) + " (the leading minor of order " +
                    std::to_string(info) + " is not positive)",
                "Pass a symmetric positive-definite matrix, e.g. add a small multiple of the identity (a + eps * "
                "I).");
          call_error(op_, where_,
                     "the matrix is singular" + batch_note(b, count_) + " (pivot " + std::to_string(info) + " is zero)",
                     "Check the input, or use a pseudo-inverse or a regularized matrix (a + eps * I).");
        });
  }

 private:
  struct Workspace {
    std::vector<lapack_int> ipiv;
    std::vector<T> factor, work;
  };

  lapack_int one(const T* a, T* out, std::int64_t b, Workspace& w) const {
    const std::int64_t nn = n_ * n_;
    const auto ln = static_cast<lapack_int>(n_);
    const T* A = a + b * nn;
    switch (op_) {
      case OpKind::Inv: {
        T* O = out + b * nn;
        if (O != A) std::memcpy(O, A, static_cast<std::size_t>(nn) * sizeof(T));
        lapack_int info = getrf<T>(ln, ln, O, ln, w.ipiv.data());
        if (info > 0) return info;
        lapack_int info2 = getri<T>(ln, O, w.ipiv.data(), w.work.data(), static_cast<lapack_int>(w.work.size()));
        check_internal(info2 == 0, "getri failed after a successful getrf");
        return 0;
      }
      case OpKind::Det:
      case OpKind::Slogdet: {
        std::memcpy(w.factor.data(), A, static_cast<std::size_t>(nn) * sizeof(T));
        getrf<T>(ln, ln, w.factor.data(), ln, w.ipiv.data());
        if (op_ == OpKind::Det) {
          double det = 1;
          for (std::int64_t i = 0; i < n_; ++i) {
            det *= static_cast<double>(w.factor[static_cast<std::size_t>(i * n_ + i)]);
            if (w.ipiv[static_cast<std::size_t>(i)] != i + 1) det = -det;
          }
          out[b] = static_cast<T>(det);
          return 0;
        }
        double sign = 1, logabs = 0;
        for (std::int64_t i = 0; i < n_; ++i) {
          double d = w.factor[static_cast<std::size_t>(i * n_ + i)];
          if (w.ipiv[static_cast<std::size_t>(i)] != i + 1) sign = -sign;
          if (d == 0) {
            sign = 0;
            logabs = -std::numeric_limits<double>::infinity();
            break;
          }
          if (std::isnan(d)) {
            sign = logabs = std::nan("");
            break;
          }
          if (d < 0) sign = -sign;
          logabs += std::log(std::fabs(d));
        }
        out[2 * b] = static_cast<T>(sign);
        out[2 * b + 1] = static_cast<T>(logabs);
        return 0;
      }
      case OpKind::Cholesky: {
        T* O = out + b * nn;
        // The symmetric part in the row-major lower triangle (the column-major upper one), zeros above.
        for (std::int64_t i = 0; i < n_; ++i) {
          for (std::int64_t j = 0; j < i; ++j) O[i * n_ + j] = T(0.5) * (A[i * n_ + j] + A[j * n_ + i]);
          O[i * n_ + i] = A[i * n_ + i];
        }
        for (std::int64_t i = 0; i < n_; ++i)
          for (std::int64_t j = i + 1; j < n_; ++j) O[i * n_ + j] = 0;
        lapack_int info = potrf_upper<T>(ln, O);
        check_internal(info >= 0, "potrf: invalid argument");
        return info;
      }
      default: check_internal(false, "linalg call: unexpected op");
    }
    return 0;
  }

  std::string what() const override {
    switch (op_) {
      case OpKind::Inv: return "getrf + getri";
      case OpKind::Cholesky: return "potrf";
      default: return "getrf";
    }
  }
  std::int64_t n_ = 0, count_ = 0;
  std::vector<Workspace> ws_;
};

// ---- solve and triangular_solve: a (..., n, n), b (..., n, k), batch dims broadcast ----

template <class T> class SolveCall final : public LinalgCall {
 public:
  explicit SolveCall(const Tensor& node) : LinalgCall(node) {
    const Shape& sa = node.node().inputs[0].shape();
    const Shape& sb = node.node().inputs[1].shape();
    n_ = sa.back();
    k_ = sb.back();
    Shape batch = batch_of(node.shape());
    oa_ = batch_offsets(sa, batch);
    ob_ = batch_offsets(sb, batch);
    if (op_ == OpKind::Solve) {
      ws_.resize(static_cast<std::size_t>(prepared_threads()));
      for (auto& w : ws_) {
        w.factor.resize(static_cast<std::size_t>(n_ * n_));
        w.ipiv.resize(static_cast<std::size_t>(n_));
      }
    } else {
      attr_ = std::get<TriangularSolveAttr>(node.node().attr);
      ws_.resize(static_cast<std::size_t>(prepared_threads()));
    }
  }

  void run(char* const* p) override {
    std::lock_guard lock(mutex_);
    const T* a = reinterpret_cast<const T*>(p[0]);
    const T* bsrc = reinterpret_cast<const T*>(p[1]);
    T* out = reinterpret_cast<T*>(p[2]);
    const auto count = static_cast<std::int64_t>(oa_.size());
    const double n = static_cast<double>(n_);
    const double flops = (op_ == OpKind::Solve ? n * n * n : 0.0) + n * n * static_cast<double>(k_);
    run_batches(
        count, flops, static_cast<int>(ws_.size()), [&](std::int64_t b, int t) { return one(a, bsrc, out, b, ws_[t]); },
        [&](std::int64_t b, lapack_int info) {
          if (op_ == OpKind::Solve)
            call_error(op_, where_,
                       "the coefficient matrix is singular" + batch_note(b, count) + " (pivot " + std::to_string(info) +
                           " is zero)",
                       "Check the input, or use least squares or a regularized matrix (a + eps * I).");
          call_error(op_, where_,
                     "the triangular matrix is singular" + batch_note(b, count) + " (diagonal element " +
                         std::to_string(info - 1) + " is zero)",
                     "Check the input; a triangular matrix is invertible only when its diagonal has no zeros.");
        });
  }

 private:
  struct Workspace {
    std::vector<T> factor;
    std::vector<lapack_int> ipiv;
  };

  lapack_int one(const T* a, const T* bsrc, T* out, std::int64_t b, Workspace& w) const {
    const std::int64_t nk = n_ * k_;
    const auto ln = static_cast<lapack_int>(n_);
    const T* A = a + oa_[static_cast<std::size_t>(b)];
    const T* B = bsrc + ob_[static_cast<std::size_t>(b)];
    T* X = out + b * nk;
    if (op_ == OpKind::Solve) {
      // getrf of a^T (a's buffer read column-major): a = u^T l^T p^T.
      std::memcpy(w.factor.data(), A, static_cast<std::size_t>(n_ * n_) * sizeof(T));
      lapack_int info = getrf<T>(ln, ln, w.factor.data(), ln, w.ipiv.data());
      if (info > 0) return info;
      if (X != B) std::memmove(X, B, static_cast<std::size_t>(nk) * sizeof(T));
      trsm<T>(true, false, false, n_, k_, w.factor.data(), X);  // u^T, the row-major lower triangle
      trsm<T>(false, false, true, n_, k_, w.factor.data(), X);  // l^T, the row-major strict upper one
      for (std::int64_t i = n_ - 1; i >= 0; --i) {              // x = p z
        std::int64_t j = w.ipiv[static_cast<std::size_t>(i)] - 1;
        if (j != i) std::swap_ranges(X + i * k_, X + (i + 1) * k_, X + j * k_);
      }
      return 0;
    }
    if (!attr_.unit_diagonal)
      for (std::int64_t i = 0; i < n_; ++i)
        if (A[i * n_ + i] == T(0)) return static_cast<lapack_int>(i + 1);
    if (X != B) std::memmove(X, B, static_cast<std::size_t>(nk) * sizeof(T));
    trsm<T>(attr_.lower, attr_.transpose_a, attr_.unit_diagonal, n_, k_, A, X);
    return 0;
  }

  std::string what() const override { return op_ == OpKind::Solve ? "getrf + trsm" : "trsm"; }
  std::int64_t n_ = 0, k_ = 0;
  std::vector<std::int64_t> oa_, ob_;
  std::vector<Workspace> ws_;
  TriangularSolveAttr attr_;
};

// ---- qr: geqrf + orgqr into the packed (q | r) output (ops/linalg_factor.cpp) ----

template <class T> class QrCall final : public LinalgCall {
 public:
  explicit QrCall(const Tensor& node) : LinalgCall(node) {
    const Shape& s = node.node().inputs[0].shape();
    m_ = s[s.size() - 2];
    n_ = s.back();
    k_ = std::min(m_, n_);
    mode_ = std::get<AxisAttr>(node.node().attr).axis;
    kq_ = mode_ == 1 ? m_ : k_;
    count_ = num_elements(batch_of(s));
    std::vector<T> w(static_cast<std::size_t>(m_ * std::max(n_, kq_))), tau(static_cast<std::size_t>(k_));
    T q1 = 0, q2 = 0;
    geqrf<T>(static_cast<lapack_int>(m_), static_cast<lapack_int>(n_), w.data(), tau.data(), &q1, -1);
    if (mode_ != 2)
      orgqr<T>(static_cast<lapack_int>(m_), static_cast<lapack_int>(kq_), static_cast<lapack_int>(k_), w.data(),
               tau.data(), &q2, -1);
    const auto lwork = static_cast<std::size_t>(std::max(lwork_of(q1), lwork_of(q2)));
    ws_.resize(static_cast<std::size_t>(prepared_threads()));
    for (auto& x : ws_) {
      x.w.resize(w.size());
      x.tau.resize(tau.size());
      x.work.resize(lwork);
    }
  }

  void run(char* const* p) override {
    std::lock_guard lock(mutex_);
    const T* a = reinterpret_cast<const T*>(p[0]);
    T* out = reinterpret_cast<T*>(p[1]);
    const double flops = 2.0 * static_cast<double>(m_) * static_cast<double>(n_) * static_cast<double>(k_);
    run_batches(
        count_, flops, static_cast<int>(ws_.size()), [&](std::int64_t b, int t) { return one(a, out, b, ws_[t]); },
        [](std::int64_t, lapack_int) {});
  }

 private:
  struct Workspace {
    std::vector<T> w, tau, work;
  };

  lapack_int one(const T* a, T* out, std::int64_t b, Workspace& x) const {
    const std::int64_t rows = mode_ == 2 ? k_ : m_, width = mode_ == 2 ? n_ : kq_ + n_, r0 = mode_ == 2 ? 0 : kq_;
    const auto lw = static_cast<lapack_int>(x.work.size());
    const T* A = a + b * m_ * n_;
    T* O = out + b * rows * width;
    for (std::int64_t i = 0; i < m_; ++i)
      for (std::int64_t j = 0; j < n_; ++j) x.w[static_cast<std::size_t>(i + j * m_)] = A[i * n_ + j];
    lapack_int info =
        geqrf<T>(static_cast<lapack_int>(m_), static_cast<lapack_int>(n_), x.w.data(), x.tau.data(), x.work.data(), lw);
    check_internal(info == 0, "geqrf: invalid argument");
    std::fill(O, O + rows * width, T(0));
    for (std::int64_t i = 0; i < std::min(k_, rows); ++i)
      for (std::int64_t j = i; j < n_; ++j) O[i * width + r0 + j] = x.w[static_cast<std::size_t>(i + j * m_)];
    if (mode_ == 2) return 0;
    info = orgqr<T>(static_cast<lapack_int>(m_), static_cast<lapack_int>(kq_), static_cast<lapack_int>(k_), x.w.data(),
                    x.tau.data(), x.work.data(), lw);
    check_internal(info == 0, "orgqr: invalid argument");
    for (std::int64_t i = 0; i < m_; ++i)
      for (std::int64_t j = 0; j < kq_; ++j) O[i * width + j] = x.w[static_cast<std::size_t>(i + j * m_)];
    return 0;
  }

  std::string what() const override { return mode_ == 2 ? "geqrf" : "geqrf + orgqr"; }
  std::int64_t m_ = 0, n_ = 0, k_ = 0, kq_ = 0, count_ = 0;
  int mode_ = 0;
  std::vector<Workspace> ws_;
};

// ---- lu_factor: getrf into the packed (lu | piv | perm) output ----

template <class T> class LuCall final : public LinalgCall {
 public:
  explicit LuCall(const Tensor& node) : LinalgCall(node) {
    const Shape& s = node.node().inputs[0].shape();
    m_ = s[s.size() - 2];
    n_ = s.back();
    k_ = std::min(m_, n_);
    count_ = num_elements(batch_of(s));
    ws_.resize(static_cast<std::size_t>(prepared_threads()));
    for (auto& w : ws_) {
      w.w.resize(static_cast<std::size_t>(m_ * n_));
      w.ipiv.resize(static_cast<std::size_t>(k_));
      w.perm.resize(static_cast<std::size_t>(m_));
    }
  }

  void run(char* const* p) override {
    std::lock_guard lock(mutex_);
    const T* a = reinterpret_cast<const T*>(p[0]);
    T* out = reinterpret_cast<T*>(p[1]);
    const double flops = static_cast<double>(m_) * static_cast<double>(n_) * static_cast<double>(k_);
    run_batches(
        count_, flops, static_cast<int>(ws_.size()), [&](std::int64_t b, int t) { return one(a, out, b, ws_[t]); },
        [](std::int64_t, lapack_int) {});
  }

 private:
  struct Workspace {
    std::vector<T> w;
    std::vector<lapack_int> ipiv;
    std::vector<std::int64_t> perm;
  };

  lapack_int one(const T* a, T* out, std::int64_t b, Workspace& x) const {
    const std::int64_t width = n_ + 2;
    const T* A = a + b * m_ * n_;
    T* O = out + b * m_ * width;
    for (std::int64_t i = 0; i < m_; ++i)
      for (std::int64_t j = 0; j < n_; ++j) x.w[static_cast<std::size_t>(i + j * m_)] = A[i * n_ + j];
    // info > 0 (an exactly zero pivot) still gives the factorization, as SciPy's lu_factor.
    lapack_int info = getrf<T>(static_cast<lapack_int>(m_), static_cast<lapack_int>(n_), x.w.data(),
                               static_cast<lapack_int>(m_), x.ipiv.data());
    check_internal(info >= 0, "getrf: invalid argument");
    std::iota(x.perm.begin(), x.perm.end(), 0);
    for (std::int64_t i = 0; i < k_; ++i)
      std::swap(x.perm[static_cast<std::size_t>(i)],
                x.perm[static_cast<std::size_t>(x.ipiv[static_cast<std::size_t>(i)] - 1)]);
    for (std::int64_t i = 0; i < m_; ++i) {
      for (std::int64_t j = 0; j < n_; ++j) O[i * width + j] = x.w[static_cast<std::size_t>(i + j * m_)];
      O[i * width + n_] = i < k_ ? static_cast<T>(x.ipiv[static_cast<std::size_t>(i)] - 1) : T(0);
      O[i * width + n_ + 1] = static_cast<T>(x.perm[static_cast<std::size_t>(i)]);
    }
    return 0;
  }

  std::string what() const override { return "getrf"; }
  std::int64_t m_ = 0, n_ = 0, k_ = 0, count_ = 0;
  std::vector<Workspace> ws_;
};

template <class T> std::unique_ptr<LibraryCall> make_typed(const Tensor& node) {
  switch (node.op()) {
    case OpKind::Inv:
    case OpKind::Det:
    case OpKind::Slogdet:
    case OpKind::Cholesky: return std::make_unique<SquareCall<T>>(node);
    case OpKind::Solve:
    case OpKind::TriangularSolve: return std::make_unique<SolveCall<T>>(node);
    case OpKind::Qr: return std::make_unique<QrCall<T>>(node);
    case OpKind::LuFactor: return std::make_unique<LuCall<T>>(node);
    default: return nullptr;
  }
}

}  // namespace

std::unique_ptr<LibraryCall> make_linalg_call(const Tensor& node) {
  // Empty matrices and batches: the reference evaluator (LAPACK rejects zero leading dimensions).
  if (any_empty(node)) return nullptr;
  for (const Tensor& in : node.node().inputs)
    if (in.dtype() != node.dtype()) return nullptr;
  // LAPACK's 32-bit sizes.
  for (const Tensor& in : node.node().inputs)
    for (std::int64_t d : in.shape())
      if (d > std::numeric_limits<lapack_int>::max() / 4) return nullptr;
  switch (node.dtype()) {
    case DType::f32: return make_typed<float>(node);
    case DType::f64: return make_typed<double>(node);
    default: return nullptr;
  }
}

}  // namespace symx::runtime::detail

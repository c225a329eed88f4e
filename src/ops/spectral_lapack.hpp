// The LAPACK side of the spectral decompositions (src/ops/linalg_spectral.cpp): one matrix at a time,
// in float or double, with the workspaces queried and allocated once by the constructor, so that the
// reference evaluator (double) and the compiled backend's library call (the input's precision,
// runtime/library_linalg_spectral.cpp) run the same code and get the same signs.
//
// Layouts (row-major, as symx's arrays):
// - eigh: out (n + 1, n): row 0 holds w (ascending), rows 1..n hold v (the eigenvectors are its columns).
// - svd (reduced): out (m + 1 + n, k), k = min(m, n): u (m, k), then s (k) in row m, then v = vh^T (n, k).
// - svd_full: out (m + 1 + n, max(m, n)): u (m, m) in the first m columns of rows 0..m-1, s in the first
//   k columns of row m, v = vh^T (n, n) in the first n columns of the last n rows; the rest is 0.
// Signs are made deterministic, the same in float32 and float64 but for rare inputs: each eigenvector,
// and each column of u (its column of v flips with it), gets a positive sum of entries; where the sum is
// near 0 (below 1e-3 times the column's norm), the first entry within 0.1% of the largest magnitude is
// made positive instead. The extra columns of a full u or v (beyond k) are normalized on their own. (The
// largest entry alone flips between precisions wherever two entries nearly tie in magnitude, which large
// random vectors often have; a sum near 0 is rare.)
#pragma once

#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "symx/tensor.hpp"

namespace symx::ops::spectral {

// What a solve found: ok, a NaN or infinite entry in the input, or LAPACK did not converge.
enum class Status { ok, not_finite, no_convergence };

// Throws the user's ValueError for a status other than ok: the op's public name, the problem, the
// batch element (when there are several), the node's user location and the fix.
void check_status(const Node& node, Status status, std::int64_t batch, std::int64_t count);

inline lapack_int syevd(char jobz, lapack_int n, float* a, float* w, float* work, lapack_int lwork, lapack_int* iwork,
                        lapack_int liwork) {
  return LAPACKE_ssyevd_work(LAPACK_COL_MAJOR, jobz, 'L', n, a, n, w, work, lwork, iwork, liwork);
}
inline lapack_int syevd(char jobz, lapack_int n, double* a, double* w, double* work, lapack_int lwork,
                        lapack_int* iwork, lapack_int liwork) {
  return LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, jobz, 'L', n, a, n, w, work, lwork, iwork, liwork);
}
inline lapack_int gesdd(char jobz, lapack_int m, lapack_int n, float* a, float* s, float* u, lapack_int ldu, float* vt,
                        lapack_int ldvt, float* work, lapack_int lwork, lapack_int* iwork) {
  return LAPACKE_sgesdd_work(LAPACK_COL_MAJOR, jobz, m, n, a, m, s, u, ldu, vt, ldvt, work, lwork, iwork);
}
inline lapack_int gesdd(char jobz, lapack_int m, lapack_int n, double* a, double* s, double* u, lapack_int ldu,
                        double* vt, lapack_int ldvt, double* work, lapack_int lwork, lapack_int* iwork) {
  return LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, jobz, m, n, a, m, s, u, ldu, vt, ldvt, work, lwork, iwork);
}
inline lapack_int gesvd(char job, lapack_int m, lapack_int n, float* a, float* s, float* u, lapack_int ldu, float* vt,
                        lapack_int ldvt, float* work, lapack_int lwork) {
  return LAPACKE_sgesvd_work(LAPACK_COL_MAJOR, job, job, m, n, a, m, s, u, ldu, vt, ldvt, work, lwork);
}
inline lapack_int gesvd(char job, lapack_int m, lapack_int n, double* a, double* s, double* u, lapack_int ldu,
                        double* vt, lapack_int ldvt, double* work, lapack_int lwork) {
  return LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, job, job, m, n, a, m, s, u, ldu, vt, ldvt, work, lwork);
}

// Flips column j of the row-major (rows, width) block x (and of y, when given) by the rule of the
// header's comment.
template <class T> void fix_sign(T* x, std::int64_t rows, std::int64_t width, std::int64_t j, T* y = nullptr,
                                 std::int64_t y_rows = 0, std::int64_t y_width = 0) {
  if (rows == 0) return;
  double total = 0, squares = 0, big = 0;
  for (std::int64_t i = 0; i < rows; ++i) {
    double v = static_cast<double>(x[i * width + j]);
    total += v;
    squares += v * v;
    big = std::max(big, std::fabs(v));
  }
  bool negative = total < 0;
  if (std::fabs(total) <= 1e-3 * std::sqrt(squares)) {
    for (std::int64_t i = 0; i < rows; ++i) {
      double v = static_cast<double>(x[i * width + j]);
      if (std::fabs(v) >= big * (1 - 1e-3)) {
        negative = v < 0;
        break;
      }
    }
  }
  if (!negative) return;
  for (std::int64_t i = 0; i < rows; ++i) x[i * width + j] = -x[i * width + j];
  if (y)
    for (std::int64_t i = 0; i < y_rows; ++i) y[i * y_width + j] = -y[i * y_width + j];
}

// Eigenvalues (and eigenvectors, when `vectors`) of one symmetric n x n matrix.
template <class T> class EighSolver {
 public:
  EighSolver(std::int64_t n, bool vectors) : n_(n), vectors_(vectors) {
    a_.resize(static_cast<std::size_t>(n * n));
    w_.resize(static_cast<std::size_t>(n));
    if (n == 0) return;
    T work = 0;
    lapack_int iwork = 0;
    syevd(jobz(), ln(), a_.data(), w_.data(), &work, -1, &iwork, -1);
    work_.resize(static_cast<std::size_t>(std::max<double>(1, work)) + 1);
    iwork_.resize(static_cast<std::size_t>(std::max<lapack_int>(1, iwork)));
  }

  // in: the row-major n x n matrix (its symmetric part (in + in^T) / 2 is decomposed); out: eigh's
  // (n + 1, n) block, or the n eigenvalues alone.
  template <class In> Status solve(const In* in, T* out) {
    const std::int64_t n = n_;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j <= i; ++j) {
        double v = 0.5 * (static_cast<double>(in[i * n + j]) + static_cast<double>(in[j * n + i]));
        if (!std::isfinite(v)) return Status::not_finite;
        a_[static_cast<std::size_t>(i + j * n)] = static_cast<T>(v);  // column-major lower triangle
      }
    if (n == 0) return Status::ok;
    lapack_int info = syevd(jobz(), ln(), a_.data(), w_.data(), work_.data(), static_cast<lapack_int>(work_.size()),
                            iwork_.data(), static_cast<lapack_int>(iwork_.size()));
    if (info != 0) return Status::no_convergence;
    std::copy(w_.begin(), w_.end(), out);
    if (!vectors_) return Status::ok;
    T* v = out + n;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) v[i * n + j] = a_[static_cast<std::size_t>(i + j * n)];
    for (std::int64_t j = 0; j < n; ++j) fix_sign(v, n, n, j);
    return Status::ok;
  }

 private:
  char jobz() const { return vectors_ ? 'V' : 'N'; }
  lapack_int ln() const { return static_cast<lapack_int>(n_); }
  std::int64_t n_;
  bool vectors_;
  std::vector<T> a_, w_, work_;
  std::vector<lapack_int> iwork_;
};

// Which parts an SVD computes: the singular values, the reduced factors, or the full ones.
enum class SvdMode { values, reduced, full };

// The SVD of one m x n matrix. LAPACK sees the row-major matrix as the column-major B = A^T (n x m):
// B = U_B S VT_B gives v = U_B and u^T = VT_B, so u comes out row-major as VT_B's memory and v needs
// one transposing copy. gesdd first; gesvd when it does not converge.
template <class T> class SvdSolver {
 public:
  SvdSolver(std::int64_t m, std::int64_t n, SvdMode mode) : m_(m), n_(n), k_(std::min(m, n)), mode_(mode) {
    const bool full = mode == SvdMode::full;
    ucols_ = full ? m : k_;  // columns of u = rows of VT_B
    vcols_ = full ? n : k_;  // columns of v = columns of U_B
    a_.resize(static_cast<std::size_t>(m * n));
    s_.resize(static_cast<std::size_t>(k_));
    if (mode != SvdMode::values) {
      ub_.resize(static_cast<std::size_t>(n * vcols_));
      vtb_.resize(static_cast<std::size_t>(ucols_ * m));
    }
    iwork_.resize(static_cast<std::size_t>(std::max<std::int64_t>(1, 8 * k_)));
    if (k_ == 0) return;
    T w1 = 0, w2 = 0;
    gesdd(jobz(), bm(), bn(), a_.data(), s_.data(), ub(), ldu(), vtb(), ldvt(), &w1, -1, iwork_.data());
    gesvd(jobz(), bm(), bn(), a_.data(), s_.data(), ub(), ldu(), vtb(), ldvt(), &w2, -1);
    work_.resize(static_cast<std::size_t>(std::max<double>({1.0, static_cast<double>(w1), static_cast<double>(w2)})) +
                 1);
  }

  std::int64_t width() const { return mode_ == SvdMode::full ? std::max(m_, n_) : k_; }

  // in: the row-major m x n matrix; out: the singular values (values), or the packed block of the
  // header's comment.
  template <class In> Status solve(const In* in, T* out) {
    const std::int64_t mn = m_ * n_;
    for (std::int64_t i = 0; i < mn; ++i)
      if (!std::isfinite(static_cast<double>(in[i]))) return Status::not_finite;
    if (k_ > 0) {
      std::copy(in, in + mn, a_.begin());
      lapack_int info = gesdd(jobz(), bm(), bn(), a_.data(), s_.data(), ub(), ldu(), vtb(), ldvt(), work_.data(),
                              static_cast<lapack_int>(work_.size()), iwork_.data());
      if (info > 0) {
        std::copy(in, in + mn, a_.begin());
        info = gesvd(jobz(), bm(), bn(), a_.data(), s_.data(), ub(), ldu(), vtb(), ldvt(), work_.data(),
                     static_cast<lapack_int>(work_.size()));
      }
      if (info != 0) return Status::no_convergence;
    }
    if (mode_ == SvdMode::values) {
      std::copy(s_.begin(), s_.end(), out);
      return Status::ok;
    }
    const std::int64_t w = width(), m = m_, n = n_;
    std::fill(out, out + (m + 1 + n) * w, T(0));
    T* u = out;
    T* s = out + m * w;
    T* v = out + (m + 1) * w;
    if (k_ == 0) {
      // An empty matrix: the full factors are identities (NumPy's), the reduced ones empty.
      if (mode_ == SvdMode::full) {
        for (std::int64_t i = 0; i < m; ++i) u[i * w + i] = 1;
        for (std::int64_t i = 0; i < n; ++i) v[i * w + i] = 1;
      }
      return Status::ok;
    }
    for (std::int64_t c = 0; c < m; ++c)
      for (std::int64_t r = 0; r < ucols_; ++r) u[c * w + r] = vtb_[static_cast<std::size_t>(r + c * ucols_)];
    std::copy(s_.begin(), s_.end(), s);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < vcols_; ++j) v[i * w + j] = ub_[static_cast<std::size_t>(i + j * n)];
    for (std::int64_t j = 0; j < k_; ++j) fix_sign(u, m, w, j, v, n, w);
    for (std::int64_t j = k_; j < ucols_; ++j) fix_sign(u, m, w, j);
    for (std::int64_t j = k_; j < vcols_; ++j) fix_sign(v, n, w, j);
    return Status::ok;
  }

 private:
  char jobz() const { return mode_ == SvdMode::values ? 'N' : mode_ == SvdMode::reduced ? 'S' : 'A'; }
  lapack_int bm() const { return static_cast<lapack_int>(n_); }  // B = A^T is n x m
  lapack_int bn() const { return static_cast<lapack_int>(m_); }
  T* ub() { return ub_.empty() ? nullptr : ub_.data(); }
  T* vtb() { return vtb_.empty() ? nullptr : vtb_.data(); }
  lapack_int ldu() const { return static_cast<lapack_int>(std::max<std::int64_t>(1, n_)); }
  lapack_int ldvt() const {
    return static_cast<lapack_int>(std::max<std::int64_t>(1, mode_ == SvdMode::values ? 1 : ucols_));
  }

  std::int64_t m_, n_, k_, ucols_ = 0, vcols_ = 0;
  SvdMode mode_;
  std::vector<T> a_, s_, ub_, vtb_, work_;
  std::vector<lapack_int> iwork_;
};

}  // namespace symx::ops::spectral

// Row kernels of generated programs: ops that reduce a row and then read it again — softmax
// cross-entropy and its gradient. Embedded after kernel_prelude.hpp and kernel_support.hpp.
//
// Rows are the (outer, inner) positions of an (outer, n, inner) array, element k of a row being
// `inner` elements after element k - 1. Rows are shared among the threads; a row is read once
// from memory and then again from cache, so each op is one pass over its operands. Unit = true
// when inner == 1 (contiguous rows: the loops vectorize). Statistics accumulate in double, as
// the reference evaluator does.
#pragma once

#include <cstdint>

namespace symx_kernel {

template <class T> struct xent_row {
  T max;           // max over the row (-inf ignores NaN, as the reference does)
  double sum_exp;  // sum of exp(x - max)
  double sum_y;    // sum of the labels
};

// Calls fn(r, base) for every row r, whose element k is at base + k * inner; rows are shared
// among the threads.
template <class F> inline void for_each_row(std::int64_t outer, std::int64_t n, std::int64_t inner, F fn) {
  const std::int64_t rows = outer * inner;
  if (rows * n <= 32768) {  // no parallel region at all: a false if() would still make a team
    for (std::int64_t r = 0; r < rows; ++r) fn(r, (r / inner) * n * inner + r % inner);
    return;
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) fn(r, (r / inner) * n * inner + r % inner);
}

template <class T, bool Unit> inline T row_max(const T* x, std::int64_t n, std::int64_t inner) {
  const std::int64_t s = Unit ? 1 : inner;
  T m = lowest<T>();
#pragma omp simd reduction(max : m)
  for (std::int64_t k = 0; k < n; ++k) m = x[k * s] > m ? x[k * s] : m;
  return m;
}

template <class T, bool Unit>
inline xent_row<T> xent_stats(const T* x, const T* y, std::int64_t n, std::int64_t inner) {
  const std::int64_t s = Unit ? 1 : inner;
  const T m = row_max<T, Unit>(x, n, inner);
  double se = 0, sy = 0;
#pragma omp simd reduction(+ : se, sy)
  for (std::int64_t k = 0; k < n; ++k) {
    se += static_cast<double>(exp(static_cast<T>(x[k * s] - m)));
    sy += static_cast<double>(y[k * s]);
  }
  return {m, se, sy};
}

// out[r] = log(sum(exp(x - m))) * sum(y) - sum(y * (x - m)) over row r; 0 for empty rows.
template <class T, bool Unit>
inline void softmax_xent(const T* x, const T* y, T* out, std::int64_t outer, std::int64_t n, std::int64_t inner) {
  const std::int64_t s = Unit ? 1 : inner;
  for_each_row(outer, n, inner, [&](std::int64_t r, std::int64_t base) {
    const T* xr = x + base;
    const T* yr = y + base;
    if (n == 0) {
      out[r] = T(0);
      return;
    }
    const xent_row<T> st = xent_stats<T, Unit>(xr, yr, n, inner);
    double syx = 0;
#pragma omp simd reduction(+ : syx)
    for (std::int64_t k = 0; k < n; ++k) syx += static_cast<double>(yr[k * s]) * static_cast<double>(xr[k * s] - st.max);
    out[r] = static_cast<T>(libm::log(st.sum_exp) * st.sum_y - syx);
  });
}

// out = g[r] * (softmax(x) * sum(y) - y) over row r: the gradient of softmax_xent. The first
// pass leaves exp(x - max) in the output row (still in cache for the second), so each element
// takes one exp.
template <class T, bool Unit>
inline void softmax_xent_grad(const T* x, const T* y, const T* g, T* out, std::int64_t outer, std::int64_t n,
                              std::int64_t inner) {
  const std::int64_t s = Unit ? 1 : inner;
  for_each_row(outer, n, inner, [&](std::int64_t r, std::int64_t base) {
    const T* xr = x + base;
    const T* yr = y + base;
    T* o = out + base;
    const T m = row_max<T, Unit>(xr, n, inner);
    double se = 0, sy = 0;
#pragma omp simd reduction(+ : se, sy)
    for (std::int64_t k = 0; k < n; ++k) {
      const T e = exp(static_cast<T>(xr[k * s] - m));
      o[k * s] = e;
      se += static_cast<double>(e);
      sy += static_cast<double>(yr[k * s]);
    }
    const T scale = static_cast<T>(sy / se);
    const T gr = g[r];
#pragma omp simd
    for (std::int64_t k = 0; k < n; ++k) o[k * s] = gr * (o[k * s] * scale - yr[k * s]);
  });
}

}  // namespace symx_kernel

// The row algorithms of sorting and scans, shared by the reference evaluator (src/ops/sorting.cpp)
// and the runtime's library calls (src/runtime/library_sorting.cpp), so that an op whose result is
// not unique (argpartition: any valid partition) gives the same result on both.
//
// A row is n elements `stride` apart. The order is NumPy's: NaN after every number (before every
// number when descending), ties in index order.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

namespace symx::ops::sorting {

template <class T> inline bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}

// Whether a goes before b: ascending with NaN last, or descending with NaN first.
template <class T> inline bool before(T a, T b, bool descending) {
  if constexpr (std::is_floating_point_v<T>) {
    if (descending) return a > b || (is_nan(a) && !is_nan(b));
    return a < b || (is_nan(b) && !is_nan(a));
  } else {
    return descending ? b < a : a < b;
  }
}

// The stable sorting permutation of the row x[0], x[stride], ... (n elements) into idx[0..n).
template <class T>
void argsort_row(const T* x, std::int64_t stride, std::int64_t n, bool descending, std::int64_t* idx) {
  std::iota(idx, idx + n, std::int64_t{0});
  std::stable_sort(idx, idx + n,
                   [&](std::int64_t a, std::int64_t b) { return before(x[a * stride], x[b * stride], descending); });
}

// A value and its index: the total order of a partition (value, then index) makes the selected
// permutation unique for a given std::nth_element, whether it runs over pairs or over indices.
template <class T> struct Keyed {
  T value;
  std::int64_t index;
};
template <class T> inline bool keyed_before(const Keyed<T>& a, const Keyed<T>& b) {
  if (before(a.value, b.value, false)) return true;
  if (before(b.value, a.value, false)) return false;
  return a.index < b.index;
}

// Partitions `row` (n elements, totally ordered by `less`) around the sorted positions `kth`: after
// it, row[k] is the element a full sort puts at k, smaller ones before it and larger ones after it,
// for every k. A kth right after the previous one (the median's upper middle) or at the end takes
// a min or max scan instead of a selection. Any two element types with isomorphic orders get the
// same permutation (the library call partitions packed 64-bit keys, the reference Keyed pairs).
template <class E, class Less>
void partition_row(E* row, std::int64_t n, const std::vector<std::int64_t>& kth, Less less) {
  std::int64_t from = 0;
  for (std::int64_t k : kth) {
    if (k < from) continue;  // already in place (duplicate kth)
    if (k == from) std::iter_swap(row + k, std::min_element(row + from, row + n, less));
    else if (k == n - 1) std::iter_swap(row + k, std::max_element(row + from, row + n, less));
    else std::nth_element(row + from, row + k, row + n, less);
    from = k + 1;
  }
}
template <class T> void partition_keyed(Keyed<T>* row, std::int64_t n, const std::vector<std::int64_t>& kth) {
  partition_row(row, n, kth, keyed_before<T>);
}

// ---- scans: out[k] = f(out[k - 1], x[k]) along a row ----

template <class T> inline T logaddexp(T a, T b) {
  if (is_nan(a) || is_nan(b)) return a + b;
  T m = a > b ? a : b;
  if (m == -std::numeric_limits<T>::infinity()) return m;
  if (m == std::numeric_limits<T>::infinity()) return m;
  return m + std::log1p(std::exp(-(std::abs(a - b))));
}

// The running maximum (minimum when !max): NaN propagates from where it appears.
template <class T> inline T running_extremum(T acc, T v, bool max) {
  if (is_nan(acc)) return acc;
  if (is_nan(v)) return v;
  return max ? (v > acc ? v : acc) : (v < acc ? v : acc);
}

}  // namespace symx::ops::sorting

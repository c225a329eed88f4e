// Library calls of sorting and scans (symx/sorting.hpp): sort, argsort, partition, argpartition and
// the running ops (cumprod, cummax, cummin, logcumsumexp, linear_recurrence), run as parallel
// loops over the rows of the sorted or scanned axis.
//
// - argsort and sort of 32-bit values (float32, int32): an LSD radix sort on the values' bits mapped
//   to unsigned keys in NumPy's order (NaN last, -0.0 equal to 0.0 for argsort), 11 bits per pass,
//   stable, so equal keys keep index order as the reference's std::stable_sort; a single long row is
//   sorted by all threads (per-thread histograms and scatters), many rows one per thread. 64-bit
//   values use std::stable_sort with the reference's comparator.
// - partition, argpartition: the reference's own row algorithm (ops/sorting_rows.hpp), so that both
//   pick the same partition; 32-bit values as packed 64-bit (key, index) integers.
// - kth_values (the median's order statistics): 32-bit values as keys, each kth from a branchless
//   three-way quickselect (ninther pivot) between two scratch buffers, or, right after the previous
//   kth or at the end, from one vectorized scan; only the kth values are written. 64-bit values take
//   the reference's row partition.
// - scans: rows that run along memory are scanned eight at a time (independent chains hide the
//   latency of each step); rows strided by `inner` are scanned as blocks of columns, vectorized.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/op_table.hpp"
#include "ops/sorting_rows.hpp"
#include "runtime/library_internal.hpp"

namespace symx::runtime::detail {
namespace {

namespace so = ops::sorting;

// ---- radix sort of 32-bit keys ----

constexpr int kBits = 11;
constexpr std::uint32_t kBuckets = 1u << kBits;

// The unsigned key of a value in NumPy's ascending order (NaN last; `merge_zeros`: -0.0 as 0.0).
template <class T> inline std::uint32_t key_of(T v, bool merge_zeros) {
  if constexpr (std::is_same_v<T, float>) {
    if (v != v) return 0xFFFFFFFFu;
    if (merge_zeros && v == 0.0f) v = 0.0f;
    std::uint32_t u;
    std::memcpy(&u, &v, 4);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  } else {
    return static_cast<std::uint32_t>(v) ^ 0x80000000u;
  }
}
template <class T> inline T value_of(std::uint32_t k) {
  if constexpr (std::is_same_v<T, float>) {
    if (k == 0xFFFFFFFFu) return std::numeric_limits<float>::quiet_NaN();
    std::uint32_t u = (k & 0x80000000u) ? (k & 0x7FFFFFFFu) : ~k;
    float v;
    std::memcpy(&v, &u, 4);
    return v;
  } else {
    return static_cast<T>(static_cast<std::int32_t>(k ^ 0x80000000u));
  }
}

// Sorts keys (with payload idx when `with_index`) stably by LSD radix; buffers of n each. The result
// ends in keys/idx (swapped with the scratch as needed). `threads` > 1 splits every pass over the threads.
struct RadixBuffers {
  std::vector<std::uint32_t> keys, keys2, idx, idx2;
};
void radix_sort(RadixBuffers& b, std::int64_t n, bool with_index, int threads) {
  const int passes = (32 + kBits - 1) / kBits;
  std::vector<std::uint32_t> hist(static_cast<std::size_t>(threads) * kBuckets);
  for (int pass = 0; pass < passes; ++pass) {
    const int shift = pass * kBits;
    std::fill(hist.begin(), hist.end(), 0u);
    const std::int64_t chunk = (n + threads - 1) / threads;
    const std::uint32_t* keys = b.keys.data();
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
      int t = threads > 1 ? omp_get_thread_num() : 0;
      std::uint32_t* h = hist.data() + static_cast<std::size_t>(t) * kBuckets;
      std::int64_t lo = std::min(n, t * chunk), hi = std::min(n, lo + chunk);
      for (std::int64_t i = lo; i < hi; ++i) ++h[(keys[i] >> shift) & (kBuckets - 1)];
    }
    // Skip a pass whose digit is the same for every key.
    std::uint32_t first = (keys[0] >> shift) & (kBuckets - 1);
    std::int64_t same = 0;
    for (int t = 0; t < threads; ++t) same += hist[static_cast<std::size_t>(t) * kBuckets + first];
    if (same == n) continue;
    std::uint32_t running = 0;
    for (std::uint32_t d = 0; d < kBuckets; ++d)
      for (int t = 0; t < threads; ++t) {
        std::uint32_t& h = hist[static_cast<std::size_t>(t) * kBuckets + d];
        std::uint32_t c = h;
        h = running;
        running += c;
      }
    std::uint32_t* keys2 = b.keys2.data();
    const std::uint32_t* idx = b.idx.data();
    std::uint32_t* idx2 = b.idx2.data();
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
      int t = threads > 1 ? omp_get_thread_num() : 0;
      std::uint32_t* h = hist.data() + static_cast<std::size_t>(t) * kBuckets;
      std::int64_t lo = std::min(n, t * chunk), hi = std::min(n, lo + chunk);
      if (with_index) {
        for (std::int64_t i = lo; i < hi; ++i) {
          std::uint32_t k = keys[i];
          std::uint32_t at = h[(k >> shift) & (kBuckets - 1)]++;
          keys2[at] = k;
          idx2[at] = idx[i];
        }
      } else {
        for (std::int64_t i = lo; i < hi; ++i) {
          std::uint32_t k = keys[i];
          keys2[h[(k >> shift) & (kBuckets - 1)]++] = k;
        }
      }
    }
    b.keys.swap(b.keys2);
    if (with_index) b.idx.swap(b.idx2);
  }
}

// ---- sort and argsort ----

template <class T> class SortCall final : public LibraryCall {
 public:
  SortCall(const Tensor& node, bool values)
      : values_(values), attr_(std::get<SortAttr>(node.node().attr)), s_(ops::split_at(node.shape(), attr_.axis)) {}

  void run(char* const* p) override {
    const T* x = reinterpret_cast<const T*>(p[0]);
    const std::int64_t rows = s_.outer * s_.inner;
    const int max_threads = omp_get_max_threads();
    if (s_.n == 0) return;
    if (rows < max_threads && s_.n >= (1 << 16)) {
      RadixBuffers b;
      for (std::int64_t r = 0; r < rows; ++r) sort_row(x, p[1], r, b, max_threads);
      return;
    }
#pragma omp parallel if (rows * s_.n >= 32768)
    {
      RadixBuffers b;
      std::vector<std::int64_t> order;
#pragma omp for schedule(dynamic, 16)
      for (std::int64_t r = 0; r < rows; ++r) {
        if (radix() && s_.n >= 256) sort_row(x, p[1], r, b, 1);
        else sort_row_small(x, p[1], r, order);
      }
    }
  }
  std::string describe() const override {
    return std::string(values_ ? "sort" : "argsort") + (radix() ? ", radix" : ", stable_sort") + " over rows";
  }

 private:
  static constexpr bool radix() { return sizeof(T) == 4; }
  std::int64_t base(std::int64_t r) const { return (r / s_.inner) * s_.n * s_.inner + r % s_.inner; }

  void sort_row(const T* x, char* out, std::int64_t r, RadixBuffers& b, int threads) const {
    if constexpr (radix()) {
      const std::int64_t n = s_.n, stride = s_.inner, at = base(r);
      for (auto* v : {&b.keys, &b.keys2}) v->resize(static_cast<std::size_t>(n));
      if (!values_)
        for (auto* v : {&b.idx, &b.idx2}) v->resize(static_cast<std::size_t>(n));
      const bool desc = attr_.descending;
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
      for (std::int64_t k = 0; k < n; ++k) {
        std::uint32_t key = key_of<T>(x[at + k * stride], !values_);
        b.keys[static_cast<std::size_t>(k)] = desc ? ~key : key;
        if (!values_) b.idx[static_cast<std::size_t>(k)] = static_cast<std::uint32_t>(k);
      }
      radix_sort(b, n, !values_, threads);
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
      for (std::int64_t k = 0; k < n; ++k) {
        if (values_) {
          std::uint32_t key = b.keys[static_cast<std::size_t>(k)];
          reinterpret_cast<T*>(out)[at + k * stride] = value_of<T>(desc ? ~key : key);
        } else {
          reinterpret_cast<std::int64_t*>(out)[at + k * stride] = b.idx[static_cast<std::size_t>(k)];
        }
      }
    } else {
      std::vector<std::int64_t> order;
      sort_row_small(x, out, r, order);
      (void)b;
      (void)threads;
    }
  }

  void sort_row_small(const T* x, char* out, std::int64_t r, std::vector<std::int64_t>& order) const {
    const std::int64_t n = s_.n, stride = s_.inner, at = base(r);
    order.resize(static_cast<std::size_t>(n));
    so::argsort_row(x + at, stride, n, attr_.descending, order.data());
    for (std::int64_t k = 0; k < n; ++k) {
      std::int64_t j = order[static_cast<std::size_t>(k)];
      if (values_) reinterpret_cast<T*>(out)[at + k * stride] = x[at + j * stride];
      else reinterpret_cast<std::int64_t*>(out)[at + k * stride] = j;
    }
  }

  bool values_;
  SortAttr attr_;
  ops::AxisSplit s_;
};

// ---- partition and argpartition ----

template <class T> class PartitionCall final : public LibraryCall {
 public:
  PartitionCall(const Tensor& node, bool values)
      : values_(values), attr_(std::get<SortAttr>(node.node().attr)), s_(ops::split_at(node.shape(), attr_.axis)) {}

  void run(char* const* p) override {
    const T* x = reinterpret_cast<const T*>(p[0]);
    const std::int64_t rows = s_.outer * s_.inner, n = s_.n, stride = s_.inner;
    if constexpr (sizeof(T) == 4) {
      if (n < (std::int64_t{1} << 32)) return run_packed(x, p[1]);
    }
#pragma omp parallel if (rows * n >= 32768)
    {
      std::vector<so::Keyed<T>> row(static_cast<std::size_t>(n));
#pragma omp for schedule(dynamic, 16)
      for (std::int64_t r = 0; r < rows; ++r) {
        const std::int64_t at = (r / s_.inner) * n * s_.inner + r % s_.inner;
        for (std::int64_t k = 0; k < n; ++k) row[static_cast<std::size_t>(k)] = {x[at + k * stride], k};
        so::partition_keyed(row.data(), n, attr_.kth);
        for (std::int64_t k = 0; k < n; ++k) {
          const auto& e = row[static_cast<std::size_t>(k)];
          if (values_) reinterpret_cast<T*>(p[1])[at + k * stride] = e.value;
          else reinterpret_cast<std::int64_t*>(p[1])[at + k * stride] = e.index;
        }
      }
    }
  }
  std::string describe() const override {
    return std::string(values_ ? "partition" : "argpartition") + ", nth_element over rows";
  }

  // 32-bit values: each element packed as (key << 32 | index), whose order as an integer is the
  // reference's (value, index) order, so the selection picks the same permutation, on 8-byte keys.
  void run_packed(const T* x, char* out) const {
    const std::int64_t rows = s_.outer * s_.inner, n = s_.n, stride = s_.inner;
#pragma omp parallel if (rows * n >= 32768)
    {
      std::vector<std::uint64_t> row(static_cast<std::size_t>(n));
#pragma omp for schedule(dynamic, 16)
      for (std::int64_t r = 0; r < rows; ++r) {
        const std::int64_t at = (r / s_.inner) * n * s_.inner + r % s_.inner;
        for (std::int64_t k = 0; k < n; ++k)
          row[static_cast<std::size_t>(k)] =
              (std::uint64_t{key_of<T>(x[at + k * stride], true)} << 32) | static_cast<std::uint64_t>(k);
        so::partition_row(row.data(), n, attr_.kth, std::less<std::uint64_t>());
        for (std::int64_t k = 0; k < n; ++k) {
          const auto j = static_cast<std::int64_t>(row[static_cast<std::size_t>(k)] & 0xFFFFFFFFu);
          if (values_) reinterpret_cast<T*>(out)[at + k * stride] = x[at + j * stride];
          else reinterpret_cast<std::int64_t*>(out)[at + k * stride] = j;
        }
      }
    }
  }

 private:
  bool values_;
  SortAttr attr_;
  ops::AxisSplit s_;
};

// ---- kth_values: order statistics only ----

inline std::uint32_t median3(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  return std::max(std::min(a, b), std::min(std::max(a, b), c));
}

// The k-th smallest of keys[0, n), keys unchanged: a quickselect on a pivot (the ninther), each step
// a branchless three-way split (smaller to the front, larger to the back of the other scratch
// buffer; equal ones end it when they hold k). a and b hold n keys each. A range that does not
// shrink (40 steps) or is small ends in std::nth_element.
std::uint32_t select_key(const std::uint32_t* keys, std::int64_t n, std::int64_t k, std::uint32_t* a,
                         std::uint32_t* b) {
  const std::uint32_t* src = keys;
  std::uint32_t *dst = a, *other = b;
  for (int step = 0;; ++step) {
    if (n <= 32 || step == 40) {
      std::copy(src, src + n, dst);
      std::nth_element(dst, dst + k, dst + n);
      return dst[k];
    }
    const std::uint32_t* s = src;
    const std::uint32_t p = median3(median3(s[0], s[n / 8], s[n / 4]), median3(s[3 * n / 8], s[n / 2], s[5 * n / 8]),
                                    median3(s[3 * n / 4], s[7 * n / 8], s[n - 1]));
    std::int64_t lo = 0, hi = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const std::uint32_t t = s[j];
      dst[lo] = t;
      dst[n - 1 - hi] = t;
      lo += t < p;
      hi += t > p;
    }
    if (k < lo) {
      src = dst;
      n = lo;
    } else if (k < n - hi) {
      return p;
    } else {
      src = dst + (n - hi);
      k -= n - hi;
      n = hi;
    }
    std::swap(dst, other);
  }
}
std::uint32_t max_key(const std::uint32_t* keys, std::int64_t n) {
  std::uint32_t m = 0;
#pragma omp simd reduction(max : m)
  for (std::int64_t i = 0; i < n; ++i) m = std::max(m, keys[i]);
  return m;
}

// The order statistics of each row: 32-bit values as unsigned keys in NumPy's order (NaN last; the
// value of a key is the element's, up to the sign of a zero and a NaN's payload), selected without
// indices, so 4 bytes move per element, and only the kth values are written. 64-bit values take the
// reference's row partition.
template <class T> class KthValuesCall final : public LibraryCall {
 public:
  KthValuesCall(const Tensor& node, bool)
      : attr_(std::get<SortAttr>(node.node().attr)), s_(ops::split_at(node.node().inputs[0].shape(), attr_.axis)) {}

  void run(char* const* p) override {
    const T* x = reinterpret_cast<const T*>(p[0]);
    T* out = reinterpret_cast<T*>(p[1]);
    const std::int64_t rows = s_.outer * s_.inner, n = s_.n, inner = s_.inner;
    const auto m = static_cast<std::int64_t>(attr_.kth.size());
    if (n == 0) return;
#pragma omp parallel if (rows * n >= 32768)
    {
      std::vector<std::uint32_t> keys, a, b;
      std::vector<so::Keyed<T>> row;
#pragma omp for schedule(dynamic, 16)
      for (std::int64_t r = 0; r < rows; ++r) {
        const std::int64_t o = r / inner, i = r % inner;
        const T* xr = x + o * n * inner + i;
        T* yr = out + o * m * inner + i;
        if constexpr (sizeof(T) == 4) {
          for (auto* v : {&keys, &a, &b}) v->resize(static_cast<std::size_t>(n));
          std::uint32_t* kr = keys.data();
          if (inner == 1) {
#pragma omp simd
            for (std::int64_t k = 0; k < n; ++k) kr[k] = key_of<T>(xr[k], false);
          } else {
            for (std::int64_t k = 0; k < n; ++k) kr[k] = key_of<T>(xr[k * inner], false);
          }
          select_row(kr, n, yr, inner, a.data(), b.data());
        } else {
          row.resize(static_cast<std::size_t>(n));
          for (std::int64_t k = 0; k < n; ++k) row[static_cast<std::size_t>(k)] = {xr[k * inner], k};
          so::partition_keyed(row.data(), n, attr_.kth);
          for (std::int64_t j = 0; j < m; ++j)
            yr[j * inner] = row[static_cast<std::size_t>(attr_.kth[static_cast<std::size_t>(j)])].value;
        }
      }
    }
  }
  std::string describe() const override { return "kth_values, selection over rows"; }

 private:
  // Each kth's value: the largest for the last position, the next one up for a kth right after the
  // previous one (one scan: the previous value if more than k keys are at most it, else the least key
  // above it), a selection otherwise.
  void select_row(const std::uint32_t* keys, std::int64_t n, T* y, std::int64_t stride, std::uint32_t* a,
                  std::uint32_t* b) const {
    std::uint32_t v = 0;
    for (std::size_t j = 0; j < attr_.kth.size(); ++j) {
      const std::int64_t k = attr_.kth[j];
      if (k == n - 1) {
        v = max_key(keys, n);
      } else if (j > 0 && k == attr_.kth[j - 1] + 1) {
        std::int64_t at_most = 0;
        std::uint32_t above = 0xFFFFFFFFu;
#pragma omp simd reduction(+ : at_most) reduction(min : above)
        for (std::int64_t i = 0; i < n; ++i) {
          at_most += keys[i] <= v;
          above = std::min(above, keys[i] > v ? keys[i] : 0xFFFFFFFFu);
        }
        if (at_most <= k) v = above;
      } else {
        v = select_key(keys, n, k, a, b);
      }
      y[static_cast<std::int64_t>(j) * stride] = value_of<T>(v);
    }
  }

  SortAttr attr_;
  ops::AxisSplit s_;
};

// ---- scans ----

template <OpKind op, class T> struct Step {
  // The running value after `v` (with b for linear_recurrence).
  static inline T next(T acc, T v, T b) {
    if constexpr (op == OpKind::Cumprod) return static_cast<T>(acc * v);
    else if constexpr (op == OpKind::Cummax) return so::running_extremum(acc, v, true);
    else if constexpr (op == OpKind::Cummin) return so::running_extremum(acc, v, false);
    else if constexpr (op == OpKind::Logcumsumexp) return so::logaddexp(acc, v);
    else return static_cast<T>(v * acc + b);
  }
  static inline T first(T v, T b) {
    if constexpr (op == OpKind::LinearRecurrence) return b;
    else return v;
  }
};

template <OpKind op, class T> class ScanCall final : public LibraryCall {
 public:
  explicit ScanCall(const Tensor& node) : s_(ops::split_at(node.shape(), std::get<AxisAttr>(node.node().attr).axis)) {}

  void run(char* const* p) override {
    constexpr bool two = op == OpKind::LinearRecurrence;
    const T* x = reinterpret_cast<const T*>(p[0]);
    const T* b = two ? reinterpret_cast<const T*>(p[1]) : nullptr;
    T* out = reinterpret_cast<T*>(p[two ? 2 : 1]);
    if (s_.n == 0 || s_.outer * s_.inner == 0) return;
    if (s_.inner == 1) contiguous_rows(x, b, out);
    else strided_rows(x, b, out);
  }
  std::string describe() const override { return std::string(op_name(op)) + " scan over rows"; }

 private:
  static constexpr int kGroup = 8;
  static constexpr std::int64_t kBlock = 512;

  // Rows along memory, kGroup at a time.
  void contiguous_rows(const T* x, const T* b, T* out) const {
    const std::int64_t rows = s_.outer, n = s_.n, groups = (rows + kGroup - 1) / kGroup;
#pragma omp parallel for schedule(static) if (rows * n >= 32768)
    for (std::int64_t g = 0; g < groups; ++g) {
      const std::int64_t r0 = g * kGroup;
      if (r0 + kGroup > rows) {
        for (std::int64_t r = r0; r < rows; ++r) one_row(x + r * n, b ? b + r * n : nullptr, out + r * n);
        continue;
      }
      std::array<T, kGroup> acc;
      for (int r = 0; r < kGroup; ++r) {
        const std::int64_t at = (r0 + r) * n;
        acc[static_cast<std::size_t>(r)] = Step<op, T>::first(x[at], b ? b[at] : T{});
        out[at] = acc[static_cast<std::size_t>(r)];
      }
      for (std::int64_t k = 1; k < n; ++k)
        for (int r = 0; r < kGroup; ++r) {
          const std::int64_t at = (r0 + r) * n + k;
          auto& a = acc[static_cast<std::size_t>(r)];
          a = Step<op, T>::next(a, x[at], b ? b[at] : T{});
          out[at] = a;
        }
    }
  }
  static void one_row(const T* x, const T* b, T* out, std::int64_t n) {
    T acc = Step<op, T>::first(x[0], b ? b[0] : T{});
    out[0] = acc;
    for (std::int64_t k = 1; k < n; ++k) out[k] = acc = Step<op, T>::next(acc, x[k], b ? b[k] : T{});
  }
  void one_row(const T* x, const T* b, T* out) const { one_row(x, b, out, s_.n); }

  // Rows `inner` apart: blocks of columns, each scanned down the axis (vectorized across columns).
  void strided_rows(const T* x, const T* b, T* out) const {
    const std::int64_t n = s_.n, inner = s_.inner, blocks = (inner + kBlock - 1) / kBlock;
    const std::int64_t tasks = s_.outer * blocks;
#pragma omp parallel for schedule(static) if (s_.outer * n * inner >= 32768)
    for (std::int64_t t = 0; t < tasks; ++t) {
      const std::int64_t o = t / blocks, c0 = (t % blocks) * kBlock, c1 = std::min(inner, c0 + kBlock);
      const std::int64_t base = o * n * inner;
      for (std::int64_t c = c0; c < c1; ++c) out[base + c] = Step<op, T>::first(x[base + c], b ? b[base + c] : T{});
      for (std::int64_t k = 1; k < n; ++k) {
        const std::int64_t row = base + k * inner, prev = row - inner;
        if (b) {
#pragma omp simd
          for (std::int64_t c = c0; c < c1; ++c)
            out[row + c] = Step<op, T>::next(out[prev + c], x[row + c], b[row + c]);
        } else {
#pragma omp simd
          for (std::int64_t c = c0; c < c1; ++c) out[row + c] = Step<op, T>::next(out[prev + c], x[row + c], T{});
        }
      }
    }
  }

  ops::AxisSplit s_;
};

template <OpKind op> std::unique_ptr<LibraryCall> scan_call(const Tensor& node, DType dt) {
  switch (dt) {
    case DType::f32: return std::make_unique<ScanCall<op, float>>(node);
    case DType::f64: return std::make_unique<ScanCall<op, double>>(node);
    case DType::i32:
      if constexpr (op == OpKind::Cumprod || op == OpKind::Cummax || op == OpKind::Cummin)
        return std::make_unique<ScanCall<op, std::int32_t>>(node);
      else return nullptr;
    case DType::i64:
      if constexpr (op == OpKind::Cumprod || op == OpKind::Cummax || op == OpKind::Cummin)
        return std::make_unique<ScanCall<op, std::int64_t>>(node);
      else return nullptr;
    default: return nullptr;
  }
}

template <template <class> class Call> std::unique_ptr<LibraryCall> typed(const Tensor& node, DType dt, bool values) {
  switch (dt) {
    case DType::f32: return std::make_unique<Call<float>>(node, values);
    case DType::f64: return std::make_unique<Call<double>>(node, values);
    case DType::i32: return std::make_unique<Call<std::int32_t>>(node, values);
    case DType::i64: return std::make_unique<Call<std::int64_t>>(node, values);
    default: return nullptr;
  }
}

}  // namespace

std::unique_ptr<LibraryCall> make_sorting_call(const Tensor& node) {
  if (any_empty(node)) return nullptr;
  const DType dt = node.node().inputs[0].dtype();
  switch (node.op()) {
    case OpKind::Sort: return typed<SortCall>(node, dt, true);
    case OpKind::Argsort:
      if (node.node().inputs[0].shape()[static_cast<std::size_t>(std::get<SortAttr>(node.node().attr).axis)] >=
          (std::int64_t{1} << 32))
        return nullptr;  // the radix sort's 32-bit indices
      return typed<SortCall>(node, dt, false);
    case OpKind::Partition: return typed<PartitionCall>(node, dt, true);
    case OpKind::Argpartition: return typed<PartitionCall>(node, dt, false);
    case OpKind::KthValues: return typed<KthValuesCall>(node, dt, true);
    case OpKind::Cumprod: return scan_call<OpKind::Cumprod>(node, dt);
    case OpKind::Cummax: return scan_call<OpKind::Cummax>(node, dt);
    case OpKind::Cummin: return scan_call<OpKind::Cummin>(node, dt);
    case OpKind::Logcumsumexp: return scan_call<OpKind::Logcumsumexp>(node, dt);
    case OpKind::LinearRecurrence: return scan_call<OpKind::LinearRecurrence>(node, dt);
    default: return nullptr;
  }
}

}  // namespace symx::runtime::detail

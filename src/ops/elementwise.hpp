// Reference loops for elementwise ops: unary maps and broadcasting binary / ternary maps.
#pragma once

#include "ops/op_table.hpp"

namespace symx::ops {

// out[i] = f(x[i]) with the result in x's dtype (or `out_dtype` when given, e.g. bool).
template <class F> Array map_unary(const Array& x, DType out_dtype, F f) {
  Array out(x.shape(), out_dtype);
  visit_dtype(x.dtype(), [&]<class T>() {
    visit_dtype(out_dtype, [&]<class O>() {
      const T* in = x.data<T>();
      O* o = out.data<O>();
      for (std::int64_t i = 0; i < x.size(); ++i) o[i] = static_cast<O>(f(in[i]));
    });
  });
  return out;
}

// Calls f(flat, ia, ib) for every element `flat` of `shape` (non-empty) with the flat indices of the
// elements of arrays of shapes `a` and `b` broadcast to it.
template <class F> void for_each_broadcast(const Shape& shape, const Shape& a, const Shape& b, F f) {
  const std::int64_t n = num_elements(shape);
  const bool a_full = a == shape, b_full = b == shape;
  if ((a_full || num_elements(a) == 1) && (b_full || num_elements(b) == 1)) {  // no index arithmetic
    for (std::int64_t i = 0; i < n; ++i) f(i, a_full ? i : 0, b_full ? i : 0);
    return;
  }
  auto sa = broadcast_strides(a, shape);
  auto sb = broadcast_strides(b, shape);
  IndexCounter counter(shape);
  std::int64_t flat = 0;
  do {
    std::int64_t ia = 0, ib = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      ia += counter.index[d] * sa[d];
      ib += counter.index[d] * sb[d];
    }
    f(flat++, ia, ib);
  } while (counter.next());
}

// out = f(a, b) broadcast to `shape`; a and b share one dtype; the result has `out_dtype`.
template <class F> Array map_binary(const Array& a, const Array& b, const Shape& shape, DType out_dtype, F f) {
  Array out(shape, out_dtype);
  if (out.size() == 0) return out;
  visit_dtype(a.dtype(), [&]<class T>() {
    visit_dtype(out_dtype, [&]<class O>() {
      const T* pa = a.data<T>();
      const T* pb = b.data<T>();
      O* o = out.data<O>();
      for_each_broadcast(shape, a.shape(), b.shape(), [&](std::int64_t flat, std::int64_t ia, std::int64_t ib) {
        o[flat] = static_cast<O>(f(pa[ia], pb[ib]));
      });
    });
  });
  return out;
}

// The complex element type of `dtype` (complex64 or complex128), for the loops below.
template <class F> decltype(auto) visit_complex_dtype(DType dtype, F&& fn) {
  if (dtype == DType::c64) return fn.template operator()<std::complex<float>>();
  check_internal(dtype == DType::c128, "visit_complex_dtype: not a complex dtype");
  return fn.template operator()<std::complex<double>>();
}

// map_unary for a complex x: f(element) gives the result's element type (complex, its real type or bool).
template <class F> Array map_complex_unary(const Array& x, DType out_dtype, F f) {
  Array out(x.shape(), out_dtype);
  visit_complex_dtype(x.dtype(), [&]<class T>() {
    using R = decltype(f(T{}));
    const T* in = x.data<T>();
    R* o = out.data<R>();
    for (std::int64_t i = 0; i < x.size(); ++i) o[i] = f(in[i]);
  });
  return out;
}

// map_binary for complex a and b (of one dtype).
template <class F> Array map_complex_binary(const Array& a, const Array& b, const Shape& shape, DType out_dtype, F f) {
  Array out(shape, out_dtype);
  if (out.size() == 0) return out;
  visit_complex_dtype(a.dtype(), [&]<class T>() {
    using R = decltype(f(T{}, T{}));
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    R* o = out.data<R>();
    for_each_broadcast(shape, a.shape(), b.shape(),
                       [&](std::int64_t flat, std::int64_t ia, std::int64_t ib) { o[flat] = f(pa[ia], pb[ib]); });
  });
  return out;
}

}  // namespace symx::ops

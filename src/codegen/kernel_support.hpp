// Helpers for generated kernels beyond the math of kernel_prelude.hpp: conversions with the
// reference evaluator's semantics and reduction identities. Embedded after kernel_prelude.hpp.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

namespace symx_kernel {

// Converts like Array::astype: to bool by != 0; float to integer truncates, with NaN, infinities
// and values beyond int64 giving 0 (C++ leaves them undefined).
template <class To, class From> inline To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    const bool in_range = v > From(-9.2233720368547758e18) && v < From(9.2233720368547758e18);
    return in_range ? static_cast<To>(static_cast<std::int64_t>(v)) : To(0);
  } else {
    return static_cast<To>(v);
  }
}

// The identity of max (lowest value, -inf for floats) and of min.
template <class T> inline T lowest() {
  if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::lowest();
}
template <class T> inline T highest() {
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::max();
}

}  // namespace symx_kernel

// Helpers for generated kernels beyond the math of kernel_prelude.hpp: conversions with the
// reference evaluator's semantics and reduction identities. Embedded after kernel_prelude.hpp.
#pragma once

#include <bit>
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

// c ? a : b for where(). For floats a bit select: GCC turns a float conditional feeding a
// widening sum into control flow that keeps the loop scalar and branchy (10x slower on a ReLU
// mask); the and/or form always vectorizes and copies the chosen value's bits exactly.
template <class T> inline T select(bool c, T a, T b) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    const U mask = U(0) - static_cast<U>(c);
    return std::bit_cast<T>((std::bit_cast<U>(a) & mask) | (std::bit_cast<U>(b) & ~mask));
  } else {
    return c ? a : b;
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

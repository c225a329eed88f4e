// symx/dtype.hpp: element types, their sizes and names, and NumPy's promotion rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace symx {

// The element types symx supports. `f32` is the default floating type.
enum class DType : std::uint8_t { b8, u8, i32, i64, f32, f64 };

inline constexpr DType f32 = DType::f32;
inline constexpr DType f64 = DType::f64;
inline constexpr DType i32 = DType::i32;
inline constexpr DType i64 = DType::i64;
inline constexpr DType u8 = DType::u8;
inline constexpr DType bool_ = DType::b8;

// Bytes per element.
std::size_t itemsize(DType dtype);
// NumPy's name: "float32", "bool", ...
std::string_view dtype_name(DType dtype);
// Parses a NumPy name ("float32", "f4", "bool", "int64", ...); throws DTypeError when unknown.
DType parse_dtype(std::string_view name);

bool is_floating(DType dtype);
bool is_integer(DType dtype);  // signed or unsigned, not bool

// NumPy's array-array promotion: the smallest type both operands convert to safely
// (bool < uint8 < int32 < int64, and int32 or int64 with float32 give float64 as in NumPy).
DType promote_types(DType a, DType b);

// Maps a C++ element type to its DType at compile time.
template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr DType value = DType::b8; };
template <> struct dtype_of<std::uint8_t> { static constexpr DType value = DType::u8; };
template <> struct dtype_of<std::int32_t> { static constexpr DType value = DType::i32; };
template <> struct dtype_of<std::int64_t> { static constexpr DType value = DType::i64; };
template <> struct dtype_of<float> { static constexpr DType value = DType::f32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::f64; };
template <class T> inline constexpr DType dtype_v = dtype_of<T>::value;

// Calls `fn.template operator()<T>()` with T the C++ type of `dtype`.
template <class F> decltype(auto) visit_dtype(DType dtype, F&& fn) {
  switch (dtype) {
    case DType::b8: return fn.template operator()<bool>();
    case DType::u8: return fn.template operator()<std::uint8_t>();
    case DType::i32: return fn.template operator()<std::int32_t>();
    case DType::i64: return fn.template operator()<std::int64_t>();
    case DType::f32: return fn.template operator()<float>();
    case DType::f64: return fn.template operator()<double>();
  }
  return fn.template operator()<float>();
}

}  // namespace symx

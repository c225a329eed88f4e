// symx/dtype.hpp: element types, their sizes and names, and NumPy's promotion rules.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace symx {

// The element types symx supports. `f32` is the default floating type; `c64` and `c128` are
// complex numbers of two float32 or two float64 (std::complex's layout, NumPy's complex64/128).
enum class DType : std::uint8_t { b8, u8, i32, i64, f32, f64, c64, c128 };

inline constexpr DType f32 = DType::f32;
inline constexpr DType f64 = DType::f64;
inline constexpr DType i32 = DType::i32;
inline constexpr DType i64 = DType::i64;
inline constexpr DType u8 = DType::u8;
inline constexpr DType bool_ = DType::b8;
inline constexpr DType c64 = DType::c64;
inline constexpr DType c128 = DType::c128;

// Bytes per element.
std::size_t itemsize(DType dtype);
// NumPy's name: "float32", "bool", ...
std::string_view dtype_name(DType dtype);
// Parses a NumPy name ("float32", "f4", "bool", "int64", ...); throws DTypeError when unknown.
DType parse_dtype(std::string_view name);

bool is_floating(DType dtype);  // float32, float64 (not complex: NumPy's np.floating)
bool is_integer(DType dtype);   // signed or unsigned, not bool
bool is_complex(DType dtype);   // complex64, complex128
bool is_inexact(DType dtype);   // floating or complex (NumPy's np.inexact)
// The real type of a complex one (complex64 -> float32); other types unchanged.
DType real_dtype(DType dtype);
// The complex type holding `dtype` exactly as NumPy promotes it (float32 -> complex64, float64 and
// the integers -> complex128); complex types unchanged.
DType complex_dtype(DType dtype);

// NumPy's array-array promotion: the smallest type both operands convert to safely
// (bool < uint8 < int32 < int64 < float32 < float64 < complex64 < complex128, with int32 or int64 and
// float32 giving float64, and float64 or an int32/int64 with complex64 giving complex128, as in NumPy).
DType promote_types(DType a, DType b);

// Maps a C++ element type to its DType at compile time.
template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr DType value = DType::b8; };
template <> struct dtype_of<std::uint8_t> { static constexpr DType value = DType::u8; };
template <> struct dtype_of<std::int32_t> { static constexpr DType value = DType::i32; };
template <> struct dtype_of<std::int64_t> { static constexpr DType value = DType::i64; };
template <> struct dtype_of<float> { static constexpr DType value = DType::f32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::f64; };
template <> struct dtype_of<std::complex<float>> { static constexpr DType value = DType::c64; };
template <> struct dtype_of<std::complex<double>> { static constexpr DType value = DType::c128; };
template <class T> inline constexpr DType dtype_v = dtype_of<T>::value;
// Whether T is std::complex<float> or std::complex<double>.
template <class T> inline constexpr bool is_complex_v = false;
template <class T> inline constexpr bool is_complex_v<std::complex<T>> = true;

namespace detail {
// Throws the DTypeError of a real-only loop reached with a complex dtype.
[[noreturn]] void complex_unsupported(DType dtype);
}  // namespace detail

// Calls `fn.template operator()<T>()` with T the C++ type of `dtype`, for the real types: a complex
// dtype throws DTypeError (code that handles complex numbers uses visit_any_dtype), so a loop
// written for real numbers is never instantiated for std::complex.
template <class F> decltype(auto) visit_dtype(DType dtype, F&& fn) {
  switch (dtype) {
    case DType::c64:
    case DType::c128: detail::complex_unsupported(dtype);
    case DType::b8: return fn.template operator()<bool>();
    case DType::u8: return fn.template operator()<std::uint8_t>();
    case DType::i32: return fn.template operator()<std::int32_t>();
    case DType::i64: return fn.template operator()<std::int64_t>();
    case DType::f32: return fn.template operator()<float>();
    case DType::f64: return fn.template operator()<double>();
  }
  return fn.template operator()<float>();
}

// visit_dtype over every type, std::complex<float> and std::complex<double> included.
template <class F> decltype(auto) visit_any_dtype(DType dtype, F&& fn) {
  if (dtype == DType::c64) return fn.template operator()<std::complex<float>>();
  if (dtype == DType::c128) return fn.template operator()<std::complex<double>>();
  return visit_dtype(dtype, std::forward<F>(fn));
}

}  // namespace symx

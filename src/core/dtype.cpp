#include "symx/dtype.hpp"

#include <string>

#include "symx/error.hpp"

namespace symx {

std::size_t itemsize(DType dtype) {
  switch (dtype) {
    case DType::b8: return 1;
    case DType::u8: return 1;
    case DType::i32: return 4;
    case DType::i64: return 8;
    case DType::f32: return 4;
    case DType::f64: return 8;
    case DType::c64: return 8;
    case DType::c128: return 16;
  }
  return 0;
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::b8: return "bool";
    case DType::u8: return "uint8";
    case DType::i32: return "int32";
    case DType::i64: return "int64";
    case DType::f32: return "float32";
    case DType::f64: return "float64";
    case DType::c64: return "complex64";
    case DType::c128: return "complex128";
  }
  return "?";
}

DType parse_dtype(std::string_view name) {
  struct Alias {
    std::string_view name;
    DType dtype;
  };
  static constexpr Alias aliases[] = {
      {"bool", DType::b8},       {"?", DType::b8},        {"b1", DType::b8},           {"uint8", DType::u8},
      {"u1", DType::u8},         {"int32", DType::i32},   {"i4", DType::i32},          {"int64", DType::i64},
      {"i8", DType::i64},        {"float32", DType::f32}, {"f4", DType::f32},          {"float", DType::f32},
      {"float64", DType::f64},   {"f8", DType::f64},      {"double", DType::f64},      {"int", DType::i64},
      {"complex64", DType::c64}, {"c8", DType::c64},      {"complex128", DType::c128}, {"c16", DType::c128},
      {"complex", DType::c128},
  };
  for (const auto& alias : aliases)
    if (alias.name == name) return alias.dtype;
  throw DTypeError("dtype: unknown dtype '" + std::string(name) +
                   "'. Use one of bool, uint8, int32, int64, float32, float64, complex64, complex128.");
}

bool is_floating(DType dtype) { return dtype == DType::f32 || dtype == DType::f64; }
bool is_integer(DType dtype) { return dtype == DType::u8 || dtype == DType::i32 || dtype == DType::i64; }
bool is_complex(DType dtype) { return dtype == DType::c64 || dtype == DType::c128; }
bool is_inexact(DType dtype) { return is_floating(dtype) || is_complex(dtype); }
DType real_dtype(DType dtype) { return dtype == DType::c64 ? DType::f32 : dtype == DType::c128 ? DType::f64 : dtype; }
DType complex_dtype(DType dtype) {
  if (is_complex(dtype)) return dtype;
  return dtype == DType::f32 || dtype == DType::b8 || dtype == DType::u8 ? DType::c64 : DType::c128;
}

namespace detail {
void complex_unsupported(DType dtype) {
  throw DTypeError(std::string("this operation does not support ") + std::string(dtype_name(dtype)) +
                   " operands yet. Compute on real arrays (real(), imag(), abs()), or cast with astype(float32).");
}
}  // namespace detail

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a > b) std::swap(a, b);  // now a < b in the order b8 < u8 < i32 < i64 < f32 < f64 < c64 < c128
  // Integers beyond 16 bits do not fit float32's mantissa, so NumPy goes to float64 (and complex128).
  const bool wide = a == DType::i32 || a == DType::i64 || a == DType::f64;
  if (b == DType::f32 && (a == DType::i32 || a == DType::i64)) return DType::f64;
  if (b == DType::c64 && wide) return DType::c128;
  return b;
}

InternalError::InternalError(const std::string& what, std::source_location loc)
    : std::logic_error("symx internal error: " + what + " (at " + loc.file_name() + ":" + std::to_string(loc.line()) +
                       "). This is a bug in symx; please report it.") {}

}  // namespace symx

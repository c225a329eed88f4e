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
  }
  return "?";
}

DType parse_dtype(std::string_view name) {
  struct Alias {
    std::string_view name;
    DType dtype;
  };
  static constexpr Alias aliases[] = {
      {"bool", DType::b8},     {"?", DType::b8},        {"b1", DType::b8},      {"uint8", DType::u8},
      {"u1", DType::u8},       {"int32", DType::i32},   {"i4", DType::i32},     {"int64", DType::i64},
      {"i8", DType::i64},      {"float32", DType::f32}, {"f4", DType::f32},     {"float", DType::f32},
      {"float64", DType::f64}, {"f8", DType::f64},      {"double", DType::f64}, {"int", DType::i64},
  };
  for (const auto& alias : aliases)
    if (alias.name == name) return alias.dtype;
  throw DTypeError("dtype: unknown dtype '" + std::string(name) +
                   "'. Use one of bool, uint8, int32, int64, float32, float64.");
}

bool is_floating(DType dtype) { return dtype == DType::f32 || dtype == DType::f64; }
bool is_integer(DType dtype) { return dtype == DType::u8 || dtype == DType::i32 || dtype == DType::i64; }

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a > b) std::swap(a, b);  // now a < b in the order b8 < u8 < i32 < i64 < f32 < f64
  // Integers beyond 16 bits do not fit float32's mantissa, so NumPy goes to float64.
  if (b == DType::f32 && (a == DType::i32 || a == DType::i64)) return DType::f64;
  return b;
}

InternalError::InternalError(const std::string& what, std::source_location loc)
    : std::logic_error("symx internal error: " + what + " (at " + loc.file_name() + ":" + std::to_string(loc.line()) +
                       "). This is a bug in symx; please report it.") {}

}  // namespace symx

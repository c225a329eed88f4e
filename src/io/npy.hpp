// The .npy reader and header writer, shared by Array::load_npy/save_npy and the .npz archive
// functions (load_npz/save_npz), which hold .npy files in memory.
#pragma once

#include <cstddef>
#include <string>

#include "symx/array.hpp"

namespace symx::io {

// Where a .npy comes from, for its error messages: every problem is an IOError reading
// "<where>: <problem>. <fix>", e.g. where = "load_npy: w.npy".
struct NpyOrigin {
  std::string where;
  std::string fix;
};

// Parses a complete .npy file of `size` bytes held at `data`, as Array::load_npy parses a file.
Array parse_npy(const NpyOrigin& origin, const unsigned char* data, std::size_t size);

// The preamble and header NumPy writes for `shape` and `dtype` (version 1.0, or 2.0 when the
// header needs it), padded so that the data that follows starts on a 64-byte boundary.
std::string npy_preamble(const Shape& shape, DType dtype);

}  // namespace symx::io

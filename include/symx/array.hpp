// symx/array.hpp: Array, the host n-d array that flows in and out of symx.
//
// An Array is a dense, C-contiguous block of elements with a shape and a dtype. Storage is
// 64-byte aligned and shared: copying an Array copies a reference (like a NumPy view of the whole
// buffer); `copy()` makes a deep copy. An Array can also wrap memory it does not own (a NumPy
// buffer), kept alive by an owner handle, which is how the Python binding exchanges data without
// copying.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "symx/dtype.hpp"
#include "symx/error.hpp"

namespace symx {

using Shape = std::vector<std::int64_t>;

// A size unknown until a function is called, for placeholders: placeholder({kDynamic, 784}) (Python:
// placeholder((None, 784))) takes batches of any size. Functions compile once per concrete shape.
inline constexpr std::int64_t kDynamic = -1;
// In a node's shape, each unknown size is a symbol: a negative multiple of 2^32, one per placeholder
// axis made with kDynamic (so no arithmetic on a size mistakes it for one, and s - 1 is no symbol).
// Shape inference carries symbols through (broadcasting, reductions, reshape with -1, matmul);
// `function` and `eval` substitute the inputs' sizes and infer every node again before running.
inline constexpr std::int64_t kSymbolUnit = std::int64_t{1} << 32;
inline bool is_symbol(std::int64_t dim) { return dim < 0 && dim % kSymbolUnit == 0; }
// Whether any size of `shape` is a symbol (unknown until a call).
bool has_symbols(const Shape& shape);
// Whether `a` and `b` can be the same shape once the unknown sizes are known: the same number of
// axes, each size equal or unknown in either (a call checks it then).
bool shapes_match(const Shape& a, const Shape& b);
// A fresh symbol, never returned before in this process.
std::int64_t new_symbol();

// Number of elements of a shape (1 for a scalar). Requires a shape that check_shape accepts (every
// Array and every tensor has one); use shape_problem first on a shape from outside.
std::int64_t num_elements(const Shape& shape);

// The largest array symx builds: 2^48 bytes (256 TiB). That is beyond any machine's memory, so no
// real array is refused, yet far enough below 2^63 that every flat index, stride, byte offset
// (index * itemsize) and sum of two offsets computed in int64 by the evaluator and by generated
// kernels cannot overflow, and every element count is exact in a double (< 2^53), which mean divides by.
inline constexpr std::int64_t kMaxArrayBytes = std::int64_t{1} << 48;

// Why `shape` cannot hold elements of `dtype`, or "" when it can: a negative dimension, or an element
// count or byte size that overflows int64 or exceeds kMaxArrayBytes. As in NumPy, size-0 axes do not
// excuse the others: (0, 2^62, 2^62) is refused too, since its strides would overflow.
std::string shape_problem(const Shape& shape, DType dtype);
// Throws ShapeError("<what>: <problem>. <fix>") when shape_problem(shape, dtype) is not empty.
void check_shape(const Shape& shape, DType dtype, const char* what);
// "(2, 3)", "()", "(5,)" as NumPy prints shapes; a symbol (unknown size) prints as None.
std::string shape_string(const Shape& shape);

class Array {
 public:
  // An empty float32 scalar-less array: shape (0,).
  Array();
  // Zero-filled array of the given shape and dtype.
  Array(Shape shape, DType dtype);
  // A 1-D float32 array from values: Array({1.f, 2.f}).
  Array(std::initializer_list<float> values);
  // A 2-D float32 array from rows: Array({{1, 2}, {3, 4}}); rows must have equal length.
  Array(std::initializer_list<std::initializer_list<float>> rows);

  // An array of `shape` holding `values` (row-major), converted to T's dtype.
  template <class T> static Array from_vector(const std::vector<T>& values, Shape shape);
  // A scalar (shape ()) of T's dtype.
  template <class T> static Array scalar(T value) { return from_vector<T>({value}, {}); }
  // Copies `num_elements(shape)` elements from `data`.
  static Array from_buffer(const void* data, Shape shape, DType dtype);
  // Wraps `data` without copying; `owner` keeps the memory alive as long as any Array uses it.
  static Array wrap(void* data, Shape shape, DType dtype, std::shared_ptr<void> owner);

  // An array whose elements are left uninitialized: for outputs that are written in full.
  static Array empty(Shape shape, DType dtype = DType::f32);
  static Array zeros(Shape shape, DType dtype = DType::f32);
  static Array ones(Shape shape, DType dtype = DType::f32);
  static Array full(Shape shape, double value, DType dtype = DType::f32);
  // [start, stop) in steps of `step`, like numpy.arange.
  static Array arange(double start, double stop, double step = 1, DType dtype = DType::f32);

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  std::int64_t size() const { return num_elements(shape_); }
  std::size_t nbytes() const { return static_cast<std::size_t>(size()) * itemsize(dtype_); }

  void* raw_data() { return data_; }
  const void* raw_data() const { return data_; }
  // Typed access; throws DTypeError if T is not this array's element type.
  template <class T> T* data();
  template <class T> const T* data() const;
  // Element at a multi-index (negative indices count from the end); bounds are checked.
  template <class T> T& at(std::initializer_list<std::int64_t> index);
  template <class T> const T& at(std::initializer_list<std::int64_t> index) const;
  // Element `flat` (row-major) converted to double, for any dtype (the real part of a complex one).
  double get_flat(std::int64_t flat) const;
  void set_flat(std::int64_t flat, double value);
  // Element `flat` as a complex number, for any dtype (a real one has imaginary part 0); storing a
  // complex value in a real array keeps its real part, as NumPy's unsafe cast does.
  std::complex<double> get_complex_flat(std::int64_t flat) const;
  void set_complex_flat(std::int64_t flat, std::complex<double> value);
  // The single element of a size-1 array, converted to T (std::complex<float/double> included).
  template <class T> T item() const;

  // A deep copy that owns its storage.
  Array copy() const;
  // A converted copy (same values as NumPy's astype with casting='unsafe').
  Array astype(DType dtype) const;
  // The same storage with another shape of equal size.
  Array reshape(Shape shape) const;
  // All values as doubles, row-major.
  std::vector<double> to_vector() const;

  // NumPy-style text: "array([[1., 2.],\n       [3., 4.]], dtype=float32)" is repr; str() omits
  // the "array(" wrapper as numpy's str() does.
  std::string str() const;
  std::string repr() const;

  // Reads NumPy's .npy format, versions 1.0, 2.0 and 3.0 (little-endian bool, uint8, int32, int64,
  // float32 or float64; fortran_order=True data is transposed into C order). The header is parsed
  // as NumPy parses it and the data size is checked against the file before anything is
  // allocated; extra bytes after the data are ignored, as numpy.load ignores them. Every problem
  // is an IOError naming the file and the field.
  static Array load_npy(const std::string& path);
  // Writes version 1.0 .npy (2.0 when the header needs it) atomically: a temporary file in the
  // same folder, flushed to disk, then renamed over `path`; on failure `path` is unchanged.
  void save_npy(const std::string& path) const;

  // True when no other Array (or NumPy view) shares this array's storage.
  bool is_unique() const { return owner_.use_count() == 1; }

  // How many array buffers this process has allocated (for tests of allocation-free calls).
  static std::int64_t allocation_count();

  // True when shape, dtype and every element are equal (NaNs compare unequal).
  bool equals(const Array& other) const;

 private:
  std::shared_ptr<void> owner_;
  void* data_ = nullptr;
  Shape shape_;
  DType dtype_ = DType::f32;
  void check_dtype(DType requested) const;
  std::int64_t flat_index(std::initializer_list<std::int64_t> index) const;
};

std::ostream& operator<<(std::ostream& os, const Array& array);

// Reads every array of a NumPy .npz archive (written by numpy.savez or numpy.savez_compressed),
// keyed by its name without ".npy". Entries may be stored or deflated, with or without ZIP64
// fields; each entry's CRC-32 is checked and its .npy parsed as Array::load_npy parses a file.
// The file is untrusted: every problem (truncation, corruption, another compression method, an
// entry that is not .npy, a repeated name) is an IOError naming the file and the entry.
// In Python a dict of new, writable NumPy arrays, like dict(numpy.load(path)).
// Example: auto golden = symx::load_npz("golden.npz"); Array x = golden.at("x");  (Python: sx.load_npz(p)["x"])
std::map<std::string, Array> load_npz(const std::string& path);
// Writes `arrays` as an uncompressed .npz that numpy.load reads (entry "<name>.npy" for each
// key, in the map's sorted order), atomically like Array::save_npy: on failure `path` is
// unchanged. In Python `arrays` is a dict of str to anything numpy.asarray accepts.
// Example: symx::save_npz("weights.npz", {{"w", w}, {"b", b}});  (Python: sx.save_npz(p, {"w": w}))
void save_npz(const std::string& path, const std::map<std::string, Array>& arrays);

// ---- template definitions ----

template <class T> Array Array::from_vector(const std::vector<T>& values, Shape shape) {
  if (static_cast<std::int64_t>(values.size()) != num_elements(shape))
    throw ValueError("Array::from_vector: " + std::to_string(values.size()) + " values do not fill shape " +
                     shape_string(shape) + " (" + std::to_string(num_elements(shape)) +
                     " elements). Pass as many values as the shape holds.");
  if constexpr (std::is_same_v<T, bool>) {
    Array out(std::move(shape), DType::b8);
    for (std::size_t i = 0; i < values.size(); ++i) out.data<bool>()[i] = values[i];
    return out;
  } else {
    return from_buffer(values.data(), std::move(shape), dtype_v<T>);
  }
}

template <class T> T* Array::data() {
  check_dtype(dtype_v<T>);
  return static_cast<T*>(data_);
}
template <class T> const T* Array::data() const {
  check_dtype(dtype_v<T>);
  return static_cast<const T*>(data_);
}
template <class T> T& Array::at(std::initializer_list<std::int64_t> index) { return data<T>()[flat_index(index)]; }
template <class T> const T& Array::at(std::initializer_list<std::int64_t> index) const {
  return data<T>()[flat_index(index)];
}
template <class T> T Array::item() const {
  if (size() != 1)
    throw ValueError("Array::item: the array has shape " + shape_string(shape_) + " and " + std::to_string(size()) +
                     " elements; item() needs exactly one. Index or reduce it first.");
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
    return static_cast<T>(get_complex_flat(0));
  else return static_cast<T>(get_flat(0));
}

}  // namespace symx

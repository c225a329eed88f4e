#include "symx/array.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <sstream>

#include "core/memory.hpp"

namespace symx {

void* detail::allocate_aligned(std::size_t bytes) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  if (bytes < 2 * kHuge) return std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
  void* p = std::aligned_alloc(kHuge, rounded);
  if (p) ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure leaves normal pages
  return p;
}

namespace {

constexpr std::size_t kAlignment = 64;
std::atomic<std::int64_t> allocations{0};

// Storage for an array of `shape` and `dtype`, which check_shape has accepted.
std::shared_ptr<void> allocate(const Shape& shape, DType dtype, bool zero = true) {
  const std::size_t bytes = static_cast<std::size_t>(num_elements(shape)) * itemsize(dtype);
  std::size_t rounded = ((bytes + kAlignment - 1) / kAlignment) * kAlignment;
  if (rounded == 0) rounded = kAlignment;
  ++allocations;
  void* p = detail::allocate_aligned(rounded);
  if (!p)
    throw OutOfMemory("Array: cannot allocate " + std::to_string(bytes) + " bytes for an array of shape " +
                      shape_string(shape) + " and dtype " + std::string(dtype_name(dtype)) +
                      ": the system is out of memory. Use smaller shapes or batches.");
  if (zero) std::memset(p, 0, rounded);
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

template <class T> double load_as_double(const void* data, std::int64_t i) {
  return static_cast<double>(static_cast<const T*>(data)[i]);
}

template <class T> void store_from_double(void* data, std::int64_t i, double v) {
  if constexpr (std::is_same_v<T, bool>) {
    static_cast<T*>(data)[i] = v != 0;
  } else if constexpr (std::is_integral_v<T>) {
    // NaN and out-of-range values are undefined in C++; NumPy gives implementation values too,
    // so we pin them to 0 / wrap modulo 2^64 to stay well-defined.
    if (!std::isfinite(v)) {
      static_cast<T*>(data)[i] = 0;
      return;
    }
    double t = std::trunc(v);
    if (t >= 9.2233720368547758e18 || t < -9.2233720368547758e18) {
      static_cast<T*>(data)[i] = 0;
      return;
    }
    static_cast<T*>(data)[i] = static_cast<T>(static_cast<std::int64_t>(t));
  } else {
    static_cast<T*>(data)[i] = static_cast<T>(v);
  }
}

std::string format_float(double v, int precision) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  std::string s = buf;
  // NumPy trims trailing zeros but keeps the point: "1.", "0.5".
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
  }
  if (s == "-0.") return "-0.";
  return s;
}

}  // namespace

bool has_symbols(const Shape& shape) { return std::any_of(shape.begin(), shape.end(), is_symbol); }

bool shapes_match(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i] && !is_symbol(a[i]) && !is_symbol(b[i])) return false;
  return true;
}

std::int64_t new_symbol() {
  static std::atomic<std::int64_t> next{1};
  return -kSymbolUnit * next.fetch_add(1, std::memory_order_relaxed);
}

std::int64_t num_elements(const Shape& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string shape_problem(const Shape& shape, DType dtype) {
  // The product skips size-0 axes (as NumPy's check does) so that the strides of an empty array
  // cannot overflow either; the real element count is 0 then.
  std::int64_t product = 1, bytes = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0)
      return "negative dimension " + std::to_string(shape[i]) + " (axis " + std::to_string(i) + ") in shape " +
             shape_string(shape);
    if (shape[i] != 0 && __builtin_mul_overflow(product, shape[i], &product))
      return "shape " + shape_string(shape) + " has more elements than a 64-bit integer can count";
  }
  if (__builtin_mul_overflow(product, static_cast<std::int64_t>(itemsize(dtype)), &bytes) || bytes > kMaxArrayBytes)
    return "shape " + shape_string(shape) + " of " + std::string(dtype_name(dtype)) + " needs " +
           std::to_string(product) + " elements (" +
           (bytes > kMaxArrayBytes ? std::to_string(bytes) + " bytes" : "over 2^63 bytes") + "), more than the " +
           std::to_string(kMaxArrayBytes) + "-byte (2^48) limit of one array";
  return "";
}

void check_shape(const Shape& shape, DType dtype, const char* what) {
  std::string problem = shape_problem(shape, dtype);
  if (!problem.empty())
    throw ShapeError(std::string(what) + ": " + problem +
                     ". Every dimension must be zero or more and the array must fit in " +
                     "2^48 bytes; check the shape for a wrong or overflowed dimension.");
}

std::string shape_string(const Shape& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += is_symbol(shape[i]) ? std::string("None") : std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

Array::Array() : Array(Shape{0}, DType::f32) {}

Array::Array(Shape shape, DType dtype) : shape_(std::move(shape)), dtype_(dtype) {
  check_shape(shape_, dtype_, "Array");
  owner_ = allocate(shape_, dtype_);
  data_ = owner_.get();
}

Array::Array(std::initializer_list<float> values) : Array(Shape{static_cast<std::int64_t>(values.size())}, DType::f32) {
  std::copy(values.begin(), values.end(), data<float>());
}

Array::Array(std::initializer_list<std::initializer_list<float>> rows) {
  std::int64_t cols = rows.size() ? static_cast<std::int64_t>(rows.begin()->size()) : 0;
  *this = Array(Shape{static_cast<std::int64_t>(rows.size()), cols}, DType::f32);
  float* out = data<float>();
  for (const auto& row : rows) {
    if (static_cast<std::int64_t>(row.size()) != cols)
      throw ValueError("Array: rows of a nested initializer list have different lengths (" + std::to_string(cols) +
                       " and " + std::to_string(row.size()) + "). Give every row the same number of values.");
    out = std::copy(row.begin(), row.end(), out);
  }
}

Array Array::from_buffer(const void* data, Shape shape, DType dtype) {
  Array out(std::move(shape), dtype);
  if (out.nbytes()) std::memcpy(out.data_, data, out.nbytes());
  return out;
}

Array Array::wrap(void* data, Shape shape, DType dtype, std::shared_ptr<void> owner) {
  check_shape(shape, dtype, "Array::wrap");
  Array out;
  out.owner_ = std::move(owner);
  out.data_ = data;
  out.shape_ = std::move(shape);
  out.dtype_ = dtype;
  return out;
}

Array Array::zeros(Shape shape, DType dtype) { return Array(std::move(shape), dtype); }

Array Array::empty(Shape shape, DType dtype) {
  check_shape(shape, dtype, "Array::empty");
  Array out = wrap(nullptr, std::move(shape), dtype, nullptr);
  out.owner_ = allocate(out.shape_, dtype, /*zero=*/false);
  out.data_ = out.owner_.get();
  return out;
}
Array Array::ones(Shape shape, DType dtype) { return full(std::move(shape), 1, dtype); }
Array Array::full(Shape shape, double value, DType dtype) {
  Array out(std::move(shape), dtype);
  for (std::int64_t i = 0; i < out.size(); ++i) out.set_flat(i, value);
  return out;
}

Array Array::arange(double start, double stop, double step, DType dtype) {
  if (step == 0) throw ValueError("arange: step is 0. Use a non-zero step.");
  const double count = std::max(0.0, std::ceil((stop - start) / step));
  // Checked as a double first: converting a count beyond int64 (or NaN) to an integer is undefined.
  if (!(count <= static_cast<double>(kMaxArrayBytes)))
    throw ShapeError("arange: [" + std::to_string(start) + ", " + std::to_string(stop) + ") in steps of " +
                     std::to_string(step) + " has " + std::to_string(count) +
                     " elements, more than one array may hold (2^48 bytes). Use a larger step or a smaller range.");
  auto n = static_cast<std::int64_t>(count);
  Array out(Shape{n}, dtype);
  for (std::int64_t i = 0; i < n; ++i) out.set_flat(i, start + static_cast<double>(i) * step);
  return out;
}

void Array::check_dtype(DType requested) const {
  if (requested != dtype_)
    throw DTypeError("Array::data: the array holds " + std::string(dtype_name(dtype_)) + " but " +
                     std::string(dtype_name(requested)) +
                     " was requested. Use the array's dtype or convert with astype().");
}

std::int64_t Array::flat_index(std::initializer_list<std::int64_t> index) const {
  if (static_cast<int>(index.size()) != ndim())
    throw ValueError("Array::at: " + std::to_string(index.size()) + " indices for an array of shape " +
                     shape_string(shape_) + ". Give one index per axis.");
  std::int64_t flat = 0;
  int axis = 0;
  for (auto i : index) {
    std::int64_t d = shape_[axis];
    std::int64_t j = i < 0 ? i + d : i;
    if (j < 0 || j >= d)
      throw ValueError("Array::at: index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(axis) +
                       " with size " + std::to_string(d) + ".");
    flat = flat * d + j;
    ++axis;
  }
  return flat;
}

double Array::get_flat(std::int64_t flat) const {
  if (is_complex(dtype_)) return get_complex_flat(flat).real();
  return visit_dtype(dtype_, [&]<class T>() { return load_as_double<T>(data_, flat); });
}

void Array::set_flat(std::int64_t flat, double value) {
  if (is_complex(dtype_)) return set_complex_flat(flat, value);
  visit_dtype(dtype_, [&]<class T>() { store_from_double<T>(data_, flat, value); });
}

std::complex<double> Array::get_complex_flat(std::int64_t flat) const {
  if (dtype_ == DType::c64) return static_cast<const std::complex<float>*>(data_)[flat];
  if (dtype_ == DType::c128) return static_cast<const std::complex<double>*>(data_)[flat];
  return get_flat(flat);
}

void Array::set_complex_flat(std::int64_t flat, std::complex<double> value) {
  if (dtype_ == DType::c64) static_cast<std::complex<float>*>(data_)[flat] = std::complex<float>(value);
  else if (dtype_ == DType::c128) static_cast<std::complex<double>*>(data_)[flat] = value;
  else set_flat(flat, value.real());
}

Array Array::copy() const { return from_buffer(data_, shape_, dtype_); }

Array Array::astype(DType dtype) const {
  if (dtype == dtype_) return copy();
  Array out(shape_, dtype);
  std::int64_t n = size();
  if (is_complex(dtype_) || is_complex(dtype)) {
    // Typed loops between the floating and complex types (the casts of complex gradients).
    auto typed = [&]<class S, class D>() {
      const S* s = static_cast<const S*>(data_);
      D* d = static_cast<D*>(out.data_);
      for (std::int64_t i = 0; i < n; ++i) {
        if constexpr (is_complex_v<D>) d[i] = D(s[i]);
        else d[i] = static_cast<D>(s[i].real());
      }
    };
    using c64 = std::complex<float>;
    using c128 = std::complex<double>;
    if (dtype_ == DType::f32 && dtype == DType::c64) typed.template operator()<float, c64>();
    else if (dtype_ == DType::f64 && dtype == DType::c128) typed.template operator()<double, c128>();
    else if (dtype_ == DType::c64 && dtype == DType::f32) typed.template operator()<c64, float>();
    else if (dtype_ == DType::c128 && dtype == DType::f64) typed.template operator()<c128, double>();
    else
      for (std::int64_t i = 0; i < n; ++i) out.set_complex_flat(i, get_complex_flat(i));
    return out;
  }
  // Integer to integer conversions go through int64 to keep every bit (no double rounding).
  if (!is_floating(dtype_) && !is_floating(dtype)) {
    for (std::int64_t i = 0; i < n; ++i) {
      auto v =
          visit_dtype(dtype_, [&]<class S>() { return static_cast<std::int64_t>(static_cast<const S*>(data_)[i]); });
      visit_dtype(dtype, [&]<class D>() { static_cast<D*>(out.data_)[i] = static_cast<D>(v); });
    }
    return out;
  }
  for (std::int64_t i = 0; i < n; ++i) out.set_flat(i, get_flat(i));
  return out;
}

Array Array::reshape(Shape shape) const {
  check_shape(shape, dtype_, "Array::reshape");
  if (num_elements(shape) != size())
    throw ShapeError("Array::reshape: cannot reshape an array of shape " + shape_string(shape_) + " into " +
                     shape_string(shape) + ". The sizes must be equal.");
  Array out = *this;
  out.shape_ = std::move(shape);
  return out;
}

std::vector<double> Array::to_vector() const {
  std::vector<double> v(static_cast<std::size_t>(size()));
  for (std::int64_t i = 0; i < size(); ++i) v[static_cast<std::size_t>(i)] = get_flat(i);
  return v;
}

std::int64_t Array::allocation_count() { return allocations.load(); }

bool Array::equals(const Array& other) const {
  if (shape_ != other.shape_ || dtype_ != other.dtype_) return false;
  for (std::int64_t i = 0; i < size(); ++i)
    if (get_complex_flat(i) != other.get_complex_flat(i)) return false;
  return true;
}

// ---- printing ----

namespace {

// Floats as NumPy prints them: 8 digits after the point, trailing zeros trimmed; scientific notation
// when the magnitudes span too much; aligned on the decimal point (integer parts padded left,
// fractions padded right).
std::vector<std::string> format_floats(const std::vector<double>& values) {
  std::vector<std::string> out;
  out.reserve(values.size());
  double max_abs = 0, min_abs = INFINITY;
  for (double x : values) {
    double v = std::fabs(x);
    if (!std::isfinite(v)) continue;
    max_abs = std::max(max_abs, v);
    if (v > 0) min_abs = std::min(min_abs, v);
  }
  bool scientific =
      max_abs >= 1e16 || (min_abs < 1e-4 && min_abs > 0) || (max_abs > 0 && max_abs / min_abs > 1e3 && min_abs < 1e-4);
  for (double v : values) {
    if (scientific && std::isfinite(v)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.8e", v);
      out.push_back(buf);
    } else {
      out.push_back(format_float(v, 8));
    }
  }
  {
    std::size_t left = 0, right = 0;
    for (const auto& s : out) {
      auto dot = s.find('.');
      if (dot == std::string::npos || s.find('e') != std::string::npos) continue;
      left = std::max(left, dot);
      right = std::max(right, s.size() - dot);
    }
    for (auto& s : out) {
      auto dot = s.find('.');
      if (dot == std::string::npos || s.find('e') != std::string::npos) continue;
      s = std::string(left - dot, ' ') + s + std::string(right - (s.size() - dot), ' ');
    }
  }
  return out;
}

std::vector<std::string> format_elements(const Array& a) {
  std::vector<std::string> out;
  std::int64_t n = a.size();
  out.reserve(static_cast<std::size_t>(n));
  if (a.dtype() == DType::b8) {
    for (std::int64_t i = 0; i < n; ++i) out.push_back(a.get_flat(i) != 0 ? "True" : "False");
  } else if (is_complex(a.dtype())) {
    // NumPy's "1.+2.j": the real parts and the imaginary magnitudes each formatted as floats.
    std::vector<double> re, im;
    for (std::int64_t i = 0; i < n; ++i) {
      re.push_back(a.get_complex_flat(i).real());
      im.push_back(std::fabs(a.get_complex_flat(i).imag()));
    }
    std::vector<std::string> rs = format_floats(re), is = format_floats(im);
    for (std::int64_t i = 0; i < n; ++i) {
      std::string imag = is[static_cast<std::size_t>(i)];
      std::size_t lead = imag.find_first_not_of(' ');
      const bool negative = std::signbit(a.get_complex_flat(i).imag());
      imag.insert(lead == std::string::npos ? 0 : lead, negative ? "-" : "+");
      out.push_back(rs[static_cast<std::size_t>(i)] + imag + "j");
    }
  } else if (!is_floating(a.dtype())) {
    for (std::int64_t i = 0; i < n; ++i) out.push_back(std::to_string(static_cast<std::int64_t>(a.get_flat(i))));
  } else {
    std::vector<double> values;
    for (std::int64_t i = 0; i < n; ++i) values.push_back(a.get_flat(i));
    out = format_floats(values);
  }
  std::size_t width = 0;
  for (auto& s : out) width = std::max(width, s.size());
  for (auto& s : out) s = std::string(width - s.size(), ' ') + s;
  return out;
}

// NumPy separates elements with ", " in repr() and with " " in str().
void print_block(std::ostream& os, const Array& a, const std::vector<std::string>& items, int axis, std::int64_t offset,
                 int indent, bool commas) {
  const Shape& shape = a.shape();
  os << '[';
  std::int64_t stride = 1;
  for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < shape.size(); ++d) stride *= shape[d];
  for (std::int64_t i = 0; i < shape[static_cast<std::size_t>(axis)]; ++i) {
    if (i) {
      if (axis + 1 == a.ndim()) {
        os << (commas ? ", " : " ");
      } else {
        os << (commas ? "," : "") << std::string(static_cast<std::size_t>(a.ndim() - axis - 1), '\n')
           << std::string(static_cast<std::size_t>(indent + axis + 1), ' ');
      }
    }
    if (axis + 1 == a.ndim()) os << items[static_cast<std::size_t>(offset + i)];
    else print_block(os, a, items, axis + 1, offset + i * stride, indent, commas);
  }
  os << ']';
}

std::string body(const Array& a, int indent, bool commas) {
  std::ostringstream os;
  auto items = format_elements(a);
  if (a.ndim() == 0) {
    os << (items.empty() ? "" : items[0]);
    std::string s = os.str();
    s.erase(0, s.find_first_not_of(' '));
    return s;
  }
  print_block(os, a, items, 0, 0, indent, commas);
  return os.str();
}

}  // namespace

std::string Array::str() const { return body(*this, 0, false); }

std::string Array::repr() const {
  std::string s = "array(" + body(*this, 6, true);
  bool default_type = dtype_ == DType::f64 || dtype_ == DType::i64 || dtype_ == DType::b8 || dtype_ == DType::c128;
  if (!default_type) s += ", dtype=" + std::string(dtype_name(dtype_));
  return s + ")";
}

std::ostream& operator<<(std::ostream& os, const Array& array) { return os << array.str(); }

}  // namespace symx

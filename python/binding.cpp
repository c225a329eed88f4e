// python/binding.cpp: the `symx._symx` extension module, a thin nanobind binding of the public
// C++ API (include/symx/*.hpp).
//
// Conventions:
// - Arrays cross the boundary without copies: a NumPy array becomes an Array that wraps its
//   buffer (Array::wrap, with an owner that keeps the NumPy object alive), and an Array becomes a
//   read-only NumPy array whose base capsule holds a copy of the Array (shared storage).
// - Wherever the C++ API takes a Tensor, Python also accepts anything numpy.asarray accepts; it
//   becomes a constant. Where it takes an Operand, Python ints, floats and bools stay weak numbers
//   (NEP 50), exactly as C++ numbers do.
// - Every call that builds nodes records the calling Python file:line (the first frame outside
//   the symx package) through symx::detail::UserLocation, so errors point at user code.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "docstrings.hpp"  // generated from the header comments by cmake/docstrings.py
#include "symx/symx.hpp"

namespace nb = nanobind;
using namespace nb::literals;

// The docstring of a bound name: its comment in include/symx/*.hpp (qualified names spelled with
// "_": DOC(nn_conv2d), DOC(Tensor_eval)). The build fails when a comment is missing.
#define DOC(name) symx::doc::name

namespace {

// ---------------------------------------------------------------------------------------------
// NumPy access and the Python caller's location.

nb::handle numpy() {
  static nb::object* np = new nb::object(nb::module_::import_("numpy"));  // never freed: outlives finalization
  return *np;
}

std::string& package_dir() {
  static std::string dir;
  return dir;
}

// "file.py:12" for the innermost Python frame outside the symx package; empty if none.
std::string python_where() {
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  std::string result;
  while (frame != nullptr) {
    PyCodeObject* code = PyFrame_GetCode(frame);  // new reference
    PyObject* filename = PyObject_GetAttrString(reinterpret_cast<PyObject*>(code), "co_filename");
    Py_DECREF(code);
    const char* c = filename ? PyUnicode_AsUTF8(filename) : nullptr;
    std::string file = c ? c : "";
    if (!c && filename) {
      // A path that is not UTF-8 (surrogate-escaped by Python): its raw bytes, as os.fsencode gives.
      PyErr_Clear();
      PyObject* raw = PyUnicode_EncodeFSDefault(filename);
      if (raw) file.assign(PyBytes_AS_STRING(raw), static_cast<std::size_t>(PyBytes_GET_SIZE(raw)));
      Py_XDECREF(raw);
    }
    Py_XDECREF(filename);
    if (!c) PyErr_Clear();
    const std::string& pkg = package_dir();
    bool inside = !pkg.empty() && file.size() > pkg.size() && file.compare(0, pkg.size(), pkg) == 0 &&
                  (file[pkg.size()] == '/' || file[pkg.size()] == '\\');
    if (!inside && !file.empty()) {
      auto slash = file.find_last_of("/\\");
      result = (slash == std::string::npos ? file : file.substr(slash + 1)) + ":" +
               std::to_string(PyFrame_GetLineNumber(frame));
      Py_DECREF(frame);
      break;
    }
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference
    Py_DECREF(frame);
    frame = back;
  }
  return result;
}

// While alive, nodes built on this thread record the Python caller's file:line.
struct PyLocation {
  symx::detail::UserLocation guard{python_where()};
};

// ---------------------------------------------------------------------------------------------
// dtypes and arrays.

nb::object dtype_to_python(symx::DType d) {
  return numpy().attr("dtype")(std::string(symx::dtype_name(d)));
}

// NumPy's interpretation of a dtype-like (np.dtype, "float32", np.float32, float, ...).
std::optional<symx::DType> dtype_from_python(nb::handle src) {
  try {
    nb::object dt = numpy().attr("dtype")(src);
    return symx::parse_dtype(nb::cast<std::string>(dt.attr("name")));
  } catch (...) {
    PyErr_Clear();
    return std::nullopt;
  }
}

// An Array wrapping a NumPy array's buffer; converts (copies) with numpy.asarray only when the
// input is not a native-endian C-contiguous NumPy array. Throws on unsupported dtypes.
std::optional<symx::DType> dtype_from_dlpack(nb::dlpack::dtype d) {
  if (d == nb::dtype<float>()) return symx::DType::f32;
  if (d == nb::dtype<double>()) return symx::DType::f64;
  if (d == nb::dtype<std::int32_t>()) return symx::DType::i32;
  if (d == nb::dtype<std::int64_t>()) return symx::DType::i64;
  if (d == nb::dtype<std::uint8_t>()) return symx::DType::u8;
  if (d == nb::dtype<bool>()) return symx::DType::b8;
  return std::nullopt;
}

// numpy.ndarray, looked up once (kept alive for the life of the process).
PyObject* ndarray_type() {
  static PyObject* type = nb::object(numpy().attr("ndarray")).release().ptr();
  return type;
}

symx::Array array_from_python(nb::handle src) {
  using ArrayView = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
  // Fast path, the common case of a function call: a C-contiguous NumPy array of a supported
  // dtype is wrapped without any Python-level call.
  if (PyObject_TypeCheck(src.ptr(), reinterpret_cast<PyTypeObject*>(ndarray_type()))) {
    ArrayView direct;
    if (nb::try_cast(src, direct, false)) {
      if (auto dtype = dtype_from_dlpack(direct.dtype())) {
        symx::Shape shape(direct.ndim());
        for (std::size_t i = 0; i < direct.ndim(); ++i) shape[i] = static_cast<std::int64_t>(direct.shape(i));
        PyObject* keep = src.inc_ref().ptr();
        std::shared_ptr<void> owner(keep, [](void* p) {
          if (!Py_IsInitialized()) return;  // interpreter gone: leak rather than crash
          nb::gil_scoped_acquire gil;
          Py_DECREF(static_cast<PyObject*>(p));
        });
        return symx::Array::wrap(const_cast<void*>(direct.data()), std::move(shape), *dtype, std::move(owner));
      }
    }
  }
  nb::object arr = numpy().attr("asarray")(src, "order"_a = "C");
  nb::object dt = arr.attr("dtype");
  if (!nb::cast<bool>(dt.attr("isnative")))
    arr = numpy().attr("ascontiguousarray")(arr, "dtype"_a = dt.attr("newbyteorder")("="));
  std::string name = nb::cast<std::string>(arr.attr("dtype").attr("name"));
  symx::DType dtype = symx::parse_dtype(name);  // DTypeError names the supported dtypes
  ArrayView view;
  if (!nb::try_cast(arr, view))
    throw nb::type_error(("symx: cannot read a NumPy array of dtype " + name + " as a buffer").c_str());
  symx::Shape shape;
  for (std::size_t i = 0; i < view.ndim(); ++i) shape.push_back(static_cast<std::int64_t>(view.shape(i)));
  PyObject* keep = arr.release().ptr();
  std::shared_ptr<void> owner(keep, [](void* p) {
    if (!Py_IsInitialized()) return;  // interpreter gone: leak rather than crash
    nb::gil_scoped_acquire gil;
    Py_DECREF(static_cast<PyObject*>(p));
  });
  return symx::Array::wrap(const_cast<void*>(view.data()), std::move(shape), dtype, std::move(owner));
}

nb::dlpack::dtype dlpack_dtype(symx::DType d) {
  switch (d) {
    case symx::DType::b8: return nb::dtype<bool>();
    case symx::DType::u8: return nb::dtype<std::uint8_t>();
    case symx::DType::i32: return nb::dtype<std::int32_t>();
    case symx::DType::i64: return nb::dtype<std::int64_t>();
    case symx::DType::f32: return nb::dtype<float>();
    case symx::DType::f64: return nb::dtype<double>();
  }
  return nb::dtype<float>();
}

// A NumPy array sharing the Array's storage (the capsule holds a handle to it); `Flags` (nb::ro)
// make it read-only.
template <class... Flags> nb::object numpy_array_of(symx::Array a) {
  auto* keep = new symx::Array(std::move(a));
  nb::capsule owner(keep, [](void* p) noexcept { delete static_cast<symx::Array*>(p); });
  std::vector<std::size_t> shape(keep->shape().begin(), keep->shape().end());
  static char empty_storage[64];
  void* data = keep->raw_data() ? keep->raw_data() : empty_storage;
  nb::ndarray<nb::numpy, Flags...> out(data, shape.size(), shape.data(), owner, nullptr, dlpack_dtype(keep->dtype()),
                                       nb::device::cpu::value);
  return out.cast();
}

// Read-only: the storage may be a variable's, shared with symx.
nb::object array_to_python(const symx::Array& a) { return numpy_array_of<nb::ro>(a); }

// A writable NumPy array that takes over `a`, which nothing else may share (a fresh Array).
nb::object writable_array_to_python(symx::Array a) { return numpy_array_of<>(std::move(a)); }

// ---------------------------------------------------------------------------------------------
// Argument wrappers with their own casters (see the nanobind::detail section below).

// A Tensor, or an array-like that becomes a constant.
struct TensorArg { symx::Tensor t; };
// A list or tuple of TensorArg (never a Tensor iterated row by row).
struct TensorList { std::vector<symx::Tensor> v; };
// {a: b} or [(a, b), ...] of tensors (function updates, clone replacements).
struct TensorPairs { std::vector<std::pair<symx::Tensor, symx::Tensor>> v; };
// An int, a sequence of ints, or None (empty): shapes, reps, strides.
struct IntList { std::vector<std::int64_t> v; };
// An int, a sequence of ints, or None (empty): axes of transpose, squeeze, flip.
struct AxisList { std::vector<int> v; };
// One axis (every `int` parameter of the bound ops is an axis), and an optional one.
struct AxisInt { int v = 0; };
struct OptionalAxisInt { std::optional<int> v; };

// An axis narrowed to the C++ int the ops take. A Python int beyond int's range cannot be an axis
// of any tensor: it is reported (a ShapeError when the call starts) instead of wrapping to a valid one.
int narrow_axis(std::int64_t axis) {
  if (axis < std::numeric_limits<int>::min() || axis > std::numeric_limits<int>::max())
    throw symx::ShapeError("axis " + std::to_string(axis) + " is out of range: a tensor's axes lie in [-ndim, ndim). " +
                           "Use an axis of the tensor.");
  return static_cast<int>(axis);
}

int axis_from_python(nb::handle src) {
  if (PyBool_Check(src.ptr()) || !PyIndex_Check(src.ptr())) throw nb::type_error("expected an int axis");
  nb::object index = nb::steal(PyNumber_Index(src.ptr()));
  if (!index.is_valid()) nb::raise_python_error();
  return narrow_axis(nb::cast<std::int64_t>(index));
}

// A value given as Python numbers or (nested) lists/tuples of them: NumPy would make float64 of
// the floats, symx makes its default float, float32, as for every other number it meets.
// NumPy arrays and scalars keep their dtype.
symx::Array array_from_python_values(nb::handle src) {
  if (PyList_Check(src.ptr()) || PyTuple_Check(src.ptr()) || PyFloat_CheckExact(src.ptr())) {
    nb::object arr = numpy().attr("asarray")(src);
    if (nb::cast<std::string>(arr.attr("dtype").attr("name")) == "float64")
      arr = arr.attr("astype")(numpy().attr("float32"));
    return array_from_python(arr);
  }
  return array_from_python(src);
}

symx::Tensor tensor_from_python(nb::handle src) {
  if (nb::isinstance<symx::Tensor>(src)) return nb::cast<symx::Tensor>(src);
  symx::Array a = array_from_python_values(src);
  PyLocation here;
  return symx::constant(a);
}

bool is_weak_number(nb::handle src) {
  return PyBool_Check(src.ptr()) || PyLong_CheckExact(src.ptr()) || PyFloat_CheckExact(src.ptr());
}

std::vector<std::int64_t> int_list(nb::handle src) {
  std::vector<std::int64_t> out;
  if (src.is_none()) return out;
  if (PyIndex_Check(src.ptr())) {
    nb::object index = nb::steal(PyNumber_Index(src.ptr()));
    if (!index.is_valid()) nb::raise_python_error();
    out.push_back(nb::cast<std::int64_t>(index));
    return out;
  }
  if (nb::isinstance<symx::Tensor>(src) || PyUnicode_Check(src.ptr()))
    throw nb::type_error("expected an int or a sequence of ints");
  for (nb::handle item : src) {
    nb::object index = nb::steal(PyNumber_Index(item.ptr()));
    if (!index.is_valid()) nb::raise_python_error();
    out.push_back(nb::cast<std::int64_t>(index));
  }
  return out;
}

std::vector<symx::Tensor> tensor_list(nb::handle src) {
  if (!PyList_Check(src.ptr()) && !PyTuple_Check(src.ptr()))
    throw nb::type_error("expected a list or tuple of tensors");
  std::vector<symx::Tensor> out;
  for (nb::handle item : src) out.push_back(tensor_from_python(item));
  return out;
}

std::vector<std::pair<symx::Tensor, symx::Tensor>> tensor_pairs(nb::handle src) {
  std::vector<std::pair<symx::Tensor, symx::Tensor>> out;
  if (src.is_none()) return out;
  if (PyDict_Check(src.ptr())) {
    for (auto [key, value] : nb::borrow<nb::dict>(src))
      out.emplace_back(nb::cast<symx::Tensor>(key), tensor_from_python(value));
    return out;
  }
  for (nb::handle item : src) {
    nb::tuple pair = nb::tuple(nb::borrow(item));
    if (pair.size() != 2) throw nb::type_error("expected (tensor, tensor) pairs");
    out.emplace_back(nb::cast<symx::Tensor>(pair[0]), tensor_from_python(pair[1]));
  }
  return out;
}

// An input value for placeholder `p` (or variable assignment): NumPy arrays pass unchanged (the
// C++ checks name the placeholder on a mismatch); other values (Python numbers, lists) are
// converted with numpy.asarray to the placeholder's dtype.
// A symx.Tensor is refused with a message that says so (NumPy would see it as an object array).
// `where()` names the value in that message, e.g. "function input 0 ('x')".
// numpy.floating and numpy.integer, looked up once (kept alive for the life of the process).
PyTypeObject* numpy_scalar_type(const char* name) {
  return reinterpret_cast<PyTypeObject*>(nb::object(numpy().attr(name)).release().ptr());
}

// A Python or NumPy number for a 0-d placeholder, converted as numpy.asarray(value, dtype) would
// but without calling into NumPy, so that f(1.5) costs what f(np.array(1.5)) does. Only exact
// cases take this path (a number converted to a float, an integer to an integer, a bool to a
// bool); anything else goes through numpy.asarray.
std::optional<symx::Array> scalar_input(const symx::Tensor& p, PyObject* value) {
  static PyTypeObject* floating = numpy_scalar_type("floating");
  static PyTypeObject* integer = numpy_scalar_type("integer");
  if (p.ndim() != 0) return std::nullopt;
  const symx::DType dtype = p.dtype();
  const bool is_bool = PyBool_Check(value);
  const bool is_int = !is_bool && (PyLong_Check(value) || PyObject_TypeCheck(value, integer));
  const bool is_float = PyFloat_Check(value) || PyObject_TypeCheck(value, floating);
  if (is_bool && dtype == symx::DType::b8) return symx::Array::scalar<bool>(value == Py_True);
  if (is_float && symx::is_floating(dtype)) {
    double v = PyFloat_AsDouble(value);
    if (v == -1.0 && PyErr_Occurred()) throw nb::python_error();
    return symx::Array::full({}, v, dtype);
  }
  if (is_int && (symx::is_floating(dtype) || dtype == symx::DType::i32 || dtype == symx::DType::i64)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(nb::int_(nb::borrow(value)).ptr(), &overflow);
    // Exact through a double, and within the placeholder's integer range: else NumPy decides.
    constexpr long long kExact = 1LL << 53;
    if (overflow != 0 || v <= -kExact || v >= kExact) return std::nullopt;
    if (dtype == symx::DType::i32 && (v < INT32_MIN || v > INT32_MAX)) return std::nullopt;
    return symx::Array::full({}, static_cast<double>(v), dtype);
  }
  return std::nullopt;
}

template <class Where> symx::Array input_array(const symx::Tensor* p, nb::handle value, Where&& where) {
  bool is_ndarray = PyObject_TypeCheck(value.ptr(), reinterpret_cast<PyTypeObject*>(ndarray_type()));
  if (p != nullptr && !is_ndarray)
    if (auto scalar = scalar_input(*p, value.ptr())) return *scalar;
  if (!is_ndarray && nb::isinstance<symx::Tensor>(value))
    throw nb::type_error((where() + ": got a symx.Tensor (symbolic), not a value; pass a NumPy array, or use "
                          "tensor.eval() to get its value.").c_str());
  if (p != nullptr && !is_ndarray)
    return array_from_python(numpy().attr("asarray")(value, "dtype"_a = dtype_to_python(p->dtype())));
  return array_from_python(value);
}

symx::Feed feed_from_python(nb::handle feed) {
  symx::Feed out;
  if (feed.is_none()) return out;
  if (!PyDict_Check(feed.ptr())) throw nb::type_error("eval: feed must be a dict {placeholder: array} or None");
  for (auto [key, value] : nb::borrow<nb::dict>(feed)) {
    symx::Tensor p = nb::cast<symx::Tensor>(key);
    out.emplace_back(p, input_array(&p, value, [&] { return "eval: the feed for placeholder '" + p.label() + "'"; }));
  }
  return out;
}

std::vector<symx::Index> index_from_python(nb::handle key) {
  auto optional_int = [](nb::handle h) -> std::optional<std::int64_t> {
    if (h.is_none()) return std::nullopt;
    nb::object index = nb::steal(PyNumber_Index(h.ptr()));
    if (!index.is_valid()) nb::raise_python_error();
    return nb::cast<std::int64_t>(index);
  };
  auto one = [&](nb::handle k) -> symx::Index {
    if (k.is_none()) return symx::Index::newaxis();
    if (k.ptr() == Py_Ellipsis) return symx::Index::ellipsis();
    if (PySlice_Check(k.ptr()))
      return symx::Index::range(optional_int(k.attr("start")), optional_int(k.attr("stop")),
                                optional_int(k.attr("step")));
    if (!PyBool_Check(k.ptr()) && PyIndex_Check(k.ptr())) {
      nb::object index = nb::steal(PyNumber_Index(k.ptr()));
      if (index.is_valid()) return symx::Index(nb::cast<std::int64_t>(index));
      PyErr_Clear();
    }
    throw nb::type_error(
        "Tensor indices must be integers, slices, None or Ellipsis (basic indexing). For integer-array "
        "indexing use sx.take or sx.take_along_axis; for boolean masks use sx.where.");
  };
  std::vector<symx::Index> out;
  if (PyTuple_Check(key.ptr())) {
    for (nb::handle k : key) out.push_back(one(k));
  } else {
    out.push_back(one(key));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Binding a C++ free function whose last parameter is `Loc`: the Python callable takes the
// other parameters (wrapped where Python needs more flexible conversions) and sets the Python
// location around the call.

template <class T> struct Map { using type = T; };
template <> struct Map<const symx::Tensor&> { using type = TensorArg; };
template <> struct Map<const std::vector<symx::Tensor>&> { using type = TensorList; };
template <> struct Map<symx::Shape> { using type = IntList; };
template <> struct Map<const symx::Shape&> { using type = IntList; };
template <> struct Map<std::vector<int>> { using type = AxisList; };
template <> struct Map<int> { using type = AxisInt; };
template <> struct Map<std::optional<int>> { using type = OptionalAxisInt; };

inline const symx::Tensor& unwrap(TensorArg&& a) { return a.t; }
inline std::vector<symx::Tensor> unwrap(TensorList&& a) { return std::move(a.v); }
inline std::vector<std::int64_t> unwrap(IntList&& a) { return std::move(a.v); }
inline std::vector<int> unwrap(AxisList&& a) { return std::move(a.v); }
inline int unwrap(AxisInt&& a) { return a.v; }
inline std::optional<int> unwrap(OptionalAxisInt&& a) { return a.v; }
template <class T> T&& unwrap(T&& v) { return std::forward<T>(v); }

template <auto F, class Sig = decltype(F)> struct Located;
template <auto F, class R, class... A> struct Located<F, R (*)(A...)> {
  using Args = std::tuple<A...>;
  static constexpr std::size_t N = sizeof...(A) - 1;
  static_assert(std::is_same_v<std::tuple_element_t<N, Args>, symx::Loc>, "last parameter must be Loc");
  template <std::size_t... I> static auto make(std::index_sequence<I...>) {
    return [](typename Map<std::tuple_element_t<I, Args>>::type... a) -> R {
      PyLocation here;
      return F(unwrap(std::move(a))..., symx::Loc::current());
    };
  }
  static auto fn() { return make(std::make_index_sequence<N>{}); }
};
#define LOC(f) Located<&f>::fn()

// ---------------------------------------------------------------------------------------------
// Exceptions.

PyObject* shape_error_type = nullptr;
PyObject* dtype_error_type = nullptr;
PyObject* io_error_type = nullptr;

// A C++ string as a Python str. Messages, paths and names may hold bytes from files or paths that
// are not UTF-8; they are escaped as \xNN (Python's 'backslashreplace') instead of failing with
// a UnicodeDecodeError that would hide the message.
PyObject* decode_escaped(std::string_view text) {  // a new reference, or null with the error set
  return PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "backslashreplace");
}

nb::str python_text(std::string_view text) {
  PyObject* str = decode_escaped(text);
  if (str == nullptr) throw nb::python_error();
  return nb::steal<nb::str>(str);
}

void set_error(PyObject* type, const char* message) {
  PyObject* text = decode_escaped(message);
  if (text == nullptr) return;  // the decode error (MemoryError) stays set
  PyErr_SetObject(type, text);
  Py_DECREF(text);
}

void translate_exception(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const symx::ShapeError& e) {
    set_error(shape_error_type, e.what());
  } catch (const symx::DTypeError& e) {
    set_error(dtype_error_type, e.what());
  } catch (const symx::IOError& e) {
    set_error(io_error_type, e.what());
  } catch (const symx::Error& e) {  // symx::ValueError and any other user error
    set_error(PyExc_ValueError, e.what());
  } catch (const symx::InternalError& e) {
    set_error(PyExc_RuntimeError, e.what());
  }
}

// Python's name scope context manager over the default graph.
struct PyScope {
  std::string name;
  int entered = 0;  // __enter__ calls not yet matched by __exit__
};

std::string tensor_repr(const symx::Tensor& t) {
  std::string s = "Tensor(op=" + std::string(symx::op_name(t.op()));
  if (!t.name().empty()) s += ", name='" + t.name() + "'";
  else s += ", id=" + std::to_string(t.id());
  return s + ", shape=" + symx::shape_string(t.shape()) + ", dtype=" + std::string(symx::dtype_name(t.dtype())) + ")";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Type casters.

namespace nanobind::detail {

// The value of a caster that accepts an argument but keeps a symx error (an unsupported dtype,
// say) to throw when the bound function asks for it, so that the user sees symx's message
// instead of nanobind's "incompatible function arguments".
// The value sits in an optional, so types without a default constructor (Operand) fit too.
template <class T> struct deferred_error_value {
  std::optional<T> value;
  std::exception_ptr error;
  T& get() {
    if (error) std::rethrow_exception(error);
    return *value;
  }
  explicit operator T*() { return &get(); }
  explicit operator T&() { return get(); }
  explicit operator T&&() { return std::move(get()); }
  // Runs the conversion `make()`, which returns the value: a DTypeError is kept for get(); any
  // other failure means "not this type" (the Python error is cleared so nanobind tries other
  // overloads).
  template <class F> bool convert(F&& make) noexcept {
    try {
      value.emplace(make());
      return true;
    } catch (const symx::DTypeError&) {
      error = std::current_exception();
      return true;
    } catch (const symx::ShapeError&) {
      error = std::current_exception();
      return true;
    } catch (...) {
      PyErr_Clear();
      return false;
    }
  }
};

// A dtype NumPy understands but symx does not support (float16, int8, ...) is accepted here and
// reported when the call starts (DTypeError -> TypeError naming the supported dtypes) rather than
// as an overload mismatch; the same holds for arrays of such dtypes.
template <> struct type_caster<symx::DType> : deferred_error_value<symx::DType> {
  using Value = symx::DType;
  static constexpr auto Name = const_name("numpy.dtype | str | type");
  template <typename T_> using Cast = movable_cast_t<T_>;
  template <typename T_> static constexpr bool can_cast() { return true; }
  bool from_python(handle src, uint32_t, cleanup_list*) noexcept {
    try {
      std::string name = nb::cast<std::string>(::numpy().attr("dtype")(src).attr("name"));
      try {
        value = symx::parse_dtype(name);
      } catch (...) {
        error = std::current_exception();
      }
      return true;
    } catch (...) {
      PyErr_Clear();
      return false;
    }
  }
  static handle from_cpp(symx::DType d, rv_policy, cleanup_list*) noexcept {
    try {
      return dtype_to_python(d).release();
    } catch (...) {
      return handle();
    }
  }
};

template <> struct type_caster<symx::Array> : deferred_error_value<symx::Array> {
  using Value = symx::Array;
  static constexpr auto Name = const_name("numpy.typing.ArrayLike");
  template <typename T_> using Cast = movable_cast_t<T_>;
  template <typename T_> static constexpr bool can_cast() { return true; }
  bool from_python(handle src, uint32_t, cleanup_list*) noexcept {
    if (nb::isinstance<symx::Tensor>(src)) return false;
    return convert([&] { return array_from_python(src); });
  }
  template <typename T_, enable_if_t<std::is_same_v<std::remove_cv_t<T_>, symx::Array>> = 0>
  static handle from_cpp(T_* p, rv_policy policy, cleanup_list* list) noexcept {
    if (!p) return none().release();
    return from_cpp(*p, policy, list);
  }
  static handle from_cpp(const symx::Array& a, rv_policy, cleanup_list*) noexcept {
    try {
      return array_to_python(a).release();
    } catch (nb::python_error& e) {
      e.restore();
      return handle();
    } catch (...) {
      return handle();
    }
  }
};

#define SYMX_WRAPPER_CASTER(Type, descr, expr)                                  \
  template <> struct type_caster<Type> : deferred_error_value<Type> {          \
    using Value = Type;                                                         \
    static constexpr auto Name = const_name(descr);                             \
    template <typename T_> using Cast = movable_cast_t<T_>;                     \
    template <typename T_> static constexpr bool can_cast() { return true; }    \
    bool from_python(handle src, uint32_t, cleanup_list*) noexcept {            \
      return convert([&] { return Type{expr}; });                               \
    }                                                                           \
    static handle from_cpp(const Type&, rv_policy, cleanup_list*) noexcept {    \
      return none().release();                                                  \
    }                                                                           \
  };

SYMX_WRAPPER_CASTER(TensorArg, "symx._symx.Tensor | numpy.typing.ArrayLike", tensor_from_python(src))
SYMX_WRAPPER_CASTER(TensorList, "collections.abc.Sequence[symx._symx.Tensor | numpy.typing.ArrayLike]", tensor_list(src))
SYMX_WRAPPER_CASTER(TensorPairs, "dict[symx._symx.Tensor, symx._symx.Tensor | numpy.typing.ArrayLike]", tensor_pairs(src))
SYMX_WRAPPER_CASTER(IntList, "int | collections.abc.Sequence[int] | None", int_list(src))
SYMX_WRAPPER_CASTER(AxisInt, "int", axis_from_python(src))
SYMX_WRAPPER_CASTER(OptionalAxisInt, "int | None", src.is_none() ? std::optional<int>() : axis_from_python(src))
#undef SYMX_WRAPPER_CASTER

// Axes narrowed to the C++ int of transpose, squeeze and flip; an axis beyond int's range cannot
// be valid for any tensor and is reported (ShapeError, when the call starts) instead of wrapping.
template <> struct type_caster<AxisList> : deferred_error_value<AxisList> {
  using Value = AxisList;
  static constexpr auto Name = const_name("int | collections.abc.Sequence[int] | None");
  template <typename T_> using Cast = movable_cast_t<T_>;
  template <typename T_> static constexpr bool can_cast() { return true; }
  bool from_python(handle src, uint32_t, cleanup_list*) noexcept {
    return convert([&] {
      AxisList out;
      for (auto a : int_list(src)) out.v.push_back(narrow_axis(a));
      return out;
    });
  }
  static handle from_cpp(const AxisList&, rv_policy, cleanup_list*) noexcept { return none().release(); }
};

template <> struct type_caster<symx::Axes> {
  NB_TYPE_CASTER(symx::Axes, const_name("int | collections.abc.Sequence[int] | None"))
  bool from_python(handle src, uint32_t, cleanup_list*) noexcept {
    try {
      if (src.is_none()) {
        value = symx::Axes();
      } else {
        // Kept as int64: the op checks the range against the tensor before narrowing.
        value = symx::Axes(int_list(src));
      }
      return true;
    } catch (...) {
      PyErr_Clear();
      return false;
    }
  }
  static handle from_cpp(const symx::Axes&, rv_policy, cleanup_list*) noexcept { return none().release(); }
};

template <> struct type_caster<symx::Operand> : deferred_error_value<symx::Operand> {
  using Value = symx::Operand;
  static constexpr auto Name = const_name("symx._symx.Tensor | numpy.typing.ArrayLike | int | float | bool");
  template <typename T_> using Cast = movable_cast_t<T_>;
  template <typename T_> static constexpr bool can_cast() { return true; }
  bool from_python(handle src, uint32_t, cleanup_list*) noexcept {
    return convert([&]() -> symx::Operand {
      if (PyBool_Check(src.ptr())) return src.ptr() == Py_True;
      if (PyLong_CheckExact(src.ptr())) return nb::cast<std::int64_t>(src);
      if (PyFloat_CheckExact(src.ptr())) return PyFloat_AsDouble(src.ptr());
      return tensor_from_python(src);
    });
  }
  static handle from_cpp(const symx::Operand&, rv_policy, cleanup_list*) noexcept { return none().release(); }
};

template <> struct type_caster<symx::nn::Padding> {
  NB_TYPE_CASTER(symx::nn::Padding, const_name("str | int | collections.abc.Sequence[int | tuple[int, int]]"))
  bool from_python(handle src, uint32_t, cleanup_list*) noexcept {
    try {
      if (PyUnicode_Check(src.ptr())) {
        value = symx::nn::Padding(nb::cast<std::string>(src));
      } else if (PyIndex_Check(src.ptr())) {
        value = symx::nn::Padding(nb::cast<std::int64_t>(src));  // PyTorch's padding=1
      } else {
        // Per spatial axis: a (low, high) pair, or one number for both sides (PyTorch's (1, 2)).
        std::vector<std::pair<std::int64_t, std::int64_t>> pads;
        for (nb::handle item : src) {
          auto p = int_list(item);
          if (p.size() == 1) p.push_back(p[0]);
          if (p.size() != 2) return false;
          pads.emplace_back(p[0], p[1]);
        }
        value = symx::nn::Padding(std::move(pads));
      }
      return true;
    } catch (...) {
      PyErr_Clear();
      return false;
    }
  }
  static handle from_cpp(const symx::nn::Padding&, rv_policy, cleanup_list*) noexcept { return none().release(); }
};

}  // namespace nanobind::detail

// ---------------------------------------------------------------------------------------------

NB_MODULE(_symx, m) {
  using symx::Tensor;
  namespace lin = symx::linalg;
  namespace snn = symx::nn;
  namespace rnd = symx::random;

  nb::set_leak_warnings(false);
  m.doc() = "symx: symbolic tensors, autodiff and compiled functions (C++ core).";

  shape_error_type = PyErr_NewExceptionWithDoc("symx.ShapeError", DOC(ShapeError), PyExc_ValueError, nullptr);
  dtype_error_type = PyErr_NewExceptionWithDoc("symx.DTypeError", DOC(DTypeError), PyExc_TypeError, nullptr);
  io_error_type = PyErr_NewExceptionWithDoc("symx.IOError", DOC(IOError), PyExc_ValueError, nullptr);
  m.attr("ShapeError") = nb::handle(shape_error_type);
  m.attr("DTypeError") = nb::handle(dtype_error_type);
  m.attr("IOError") = nb::handle(io_error_type);
  nb::register_exception_translator(&translate_exception);

  m.def("_set_package_dir", [](std::string dir) { package_dir() = std::move(dir); });
  m.def("_op_names", [] {
    std::vector<std::string> names;
    for (int i = 0; i < symx::kNumOps; ++i) names.emplace_back(symx::op_name(static_cast<symx::OpKind>(i)));
    return names;
  }, "The names of the primitive ops, in op-table order.");
  m.def("_where", [] { return python_where(); }, "The Python location new nodes would record now.");

  // ---- Tensor ----
  nb::class_<Tensor> tensor(m, "Tensor", DOC(Tensor));
  tensor
      .def_prop_ro("shape", [](const Tensor& t) {
        nb::list dims;
        for (auto d : t.shape()) dims.append(d);
        return nb::tuple(dims);
      }, DOC(Tensor_shape))
      .def_prop_ro("dtype", [](const Tensor& t) { return dtype_to_python(t.dtype()); }, DOC(Tensor_dtype))
      .def_prop_ro("ndim", &Tensor::ndim, DOC(Tensor_ndim))
      .def_prop_ro("size", &Tensor::size, DOC(Tensor_size))
      .def_prop_ro("name", [](const Tensor& t) { return python_text(t.name()); }, DOC(Tensor_name))
      .def_prop_ro("label", [](const Tensor& t) { return python_text(t.label()); }, DOC(Tensor_label))
      .def_prop_ro("id", &Tensor::id, DOC(Tensor_id))
      .def_prop_ro("op", [](const Tensor& t) { return std::string(symx::op_name(t.op())); }, DOC(Tensor_op))
      .def_prop_ro("where", [](const Tensor& t) { return python_text(t.node().where); },
                   DOC(Tensor_where))
      .def_prop_ro("inputs", [](const Tensor& t) { return t.node().inputs; }, DOC(Tensor_inputs))
      .def("eval", [](const Tensor& t, nb::handle feed) {
        symx::Feed values = feed_from_python(feed);
        symx::Array result;
        {
          // No Python object is touched while released: the feed's NumPy buffers are kept
          // alive by `values`, whose owners drop their references after the GIL is back.
          nb::gil_scoped_release released;
          result = t.eval(values);
        }
        return result;
      },
           "feed"_a = nb::none(),
           DOC(Tensor_eval))
      .def_prop_rw("value", [](const Tensor& t) { return array_to_python(t.value()); },
                   [](const Tensor& t, nb::handle v) {
                     t.assign(input_array(&t, v, [&] { return "value of '" + t.label() + "'"; }));
                   },
                   DOC(Tensor_value))
      .def("assign", [](const Tensor& t, nb::handle v) {
        t.assign(input_array(&t, v, [&] { return "assign to '" + t.label() + "'"; }));
      }, "value"_a, DOC(Tensor_assign))
      .def_prop_ro("trainable", &Tensor::trainable, DOC(Tensor_trainable))
      .def("astype", [](const Tensor& t, symx::DType d) { PyLocation here; return t.astype(d); }, "dtype"_a,
           DOC(Tensor_astype))
      .def("reshape", [](const Tensor& t, nb::args shape) {
        nb::handle spec = shape.size() == 1 ? nb::handle(PyTuple_GET_ITEM(shape.ptr(), 0)) : nb::handle(shape);
        auto dims = int_list(spec);
        PyLocation here;
        return t.reshape(dims);
      }, DOC(Tensor_reshape))
      .def_prop_ro("T", [](const Tensor& t) { PyLocation here; return t.T(); }, DOC(Tensor_T))
      .def("__getitem__", [](const Tensor& t, nb::handle key) {
        auto index = index_from_python(key);
        PyLocation here;
        return symx::slice(t, index);
      }, nb::arg("key").none())  // x[None] adds an axis, as in NumPy
      .def("__len__", [](const Tensor& t) -> std::int64_t {
        if (t.ndim() == 0) throw nb::type_error("len() of a 0-d tensor");
        return t.shape()[0];
      })
      .def("__bool__", [](const Tensor&) -> bool {
        throw nb::type_error("a symbolic Tensor has no truth value; evaluate it (t.eval()) or use sx.where");
      })
      .def("__hash__", [](const Tensor& t) { return static_cast<Py_ssize_t>(reinterpret_cast<std::uintptr_t>(t.node_ptr().get()) >> 4); })
      .def("__eq__", [](const Tensor& a, nb::handle b) {
        return nb::isinstance<Tensor>(b) && nb::cast<const Tensor&>(b) == a;
      })
      .def("__ne__", [](const Tensor& a, nb::handle b) {
        return !(nb::isinstance<Tensor>(b) && nb::cast<const Tensor&>(b) == a);
      })
      .def("__repr__", [](const Tensor& t) { return python_text(tensor_repr(t)); })
      .def("__array__", [](const Tensor& t, nb::args, nb::kwargs) -> nb::object {
        // Without this, numpy.asarray(t) would iterate the tensor into an object array of nodes.
        std::string message = tensor_repr(t) + " is symbolic: it has no values to convert to a NumPy array. "
                              "Evaluate it with t.eval({placeholder: array, ...}), or compile it with "
                              "sx.function(inputs, [t]) and call that.";
        set_error(PyExc_TypeError, message.c_str());
        throw nb::python_error();
      }, "Raises TypeError: a symbolic tensor has no values (use eval() or a function).")
      .def("__neg__", [](const Tensor& a) { PyLocation here; return symx::negative(a); })
      .def("__abs__", [](const Tensor& a) { PyLocation here; return symx::abs(a); })
      .def("__invert__", [](const Tensor& a) { PyLocation here; return symx::bitwise_not(a); });
  tensor.attr("__array_ufunc__") = nb::none();  // NumPy defers to Tensor's reflected operators

#define SYMX_BINARY_OPERATOR(name, rname, fn)                                                       \
  tensor.def(name, [](const Tensor& a, const symx::Operand& b) { PyLocation here; return fn(a, b); }, nb::is_operator()); \
  tensor.def(rname, [](const Tensor& a, const symx::Operand& b) { PyLocation here; return fn(b, a); }, nb::is_operator());
  SYMX_BINARY_OPERATOR("__add__", "__radd__", symx::add)
  SYMX_BINARY_OPERATOR("__sub__", "__rsub__", symx::subtract)
  SYMX_BINARY_OPERATOR("__mul__", "__rmul__", symx::multiply)
  SYMX_BINARY_OPERATOR("__truediv__", "__rtruediv__", symx::divide)
  SYMX_BINARY_OPERATOR("__mod__", "__rmod__", symx::mod)
  SYMX_BINARY_OPERATOR("__pow__", "__rpow__", symx::power)
  SYMX_BINARY_OPERATOR("__floordiv__", "__rfloordiv__", symx::floor_divide)
  SYMX_BINARY_OPERATOR("__and__", "__rand__", symx::bitwise_and)
  SYMX_BINARY_OPERATOR("__or__", "__ror__", symx::bitwise_or)
  SYMX_BINARY_OPERATOR("__xor__", "__rxor__", symx::bitwise_xor)
  SYMX_BINARY_OPERATOR("__lshift__", "__rlshift__", symx::left_shift)
  SYMX_BINARY_OPERATOR("__rshift__", "__rrshift__", symx::right_shift)
#undef SYMX_BINARY_OPERATOR
  tensor.def("__lt__", [](const Tensor& a, const symx::Operand& b) { PyLocation here; return symx::less(a, b); });
  tensor.def("__le__", [](const Tensor& a, const symx::Operand& b) { PyLocation here; return symx::less_equal(a, b); });
  tensor.def("__gt__", [](const Tensor& a, const symx::Operand& b) { PyLocation here; return symx::greater(a, b); });
  tensor.def("__ge__", [](const Tensor& a, const symx::Operand& b) { PyLocation here; return symx::greater_equal(a, b); });
  tensor.def("__matmul__", [](const Tensor& a, TensorArg b) { PyLocation here; return symx::matmul(a, b.t); });
  tensor.def("__rmatmul__", [](const Tensor& a, TensorArg b) { PyLocation here; return symx::matmul(b.t, a); });

  // ---- leaves and collections ----
  m.def("placeholder", LOC(symx::placeholder), "shape"_a, "dtype"_a = symx::DType::f32, "name"_a = "",
        DOC(placeholder));
  m.def("variable", [](nb::handle value, std::string name, bool trainable, nb::handle dtype) {
    symx::Array a = dtype.is_none() ? array_from_python_values(value)
                                    : array_from_python(numpy().attr("asarray")(value, "dtype"_a = dtype));
    PyLocation here;
    return symx::variable(a, name, trainable);
  }, "value"_a, "name"_a = "", "trainable"_a = true, "dtype"_a = nb::none(),
        DOC(variable));
  m.def("constant", [](nb::handle value, nb::handle dtype) {
    symx::Array a = dtype.is_none() ? array_from_python_values(value)
                                    : array_from_python(numpy().attr("asarray")(value, "dtype"_a = dtype));
    PyLocation here;
    return symx::constant(a);
  }, "value"_a, "dtype"_a = nb::none(), DOC(constant));
  m.def("variables", &symx::variables, "pattern"_a = "", "trainable"_a = nb::none(),
        DOC(variables));
  m.def("placeholders", &symx::placeholders, DOC(placeholders));
  m.def("reset_default_graph", &symx::reset_default_graph, DOC(reset_default_graph));
  m.def("current_scope", [] { return symx::default_graph().current_scope(); }, DOC(Graph_current_scope));
  nb::class_<PyScope>(m, "Scope", DOC(Scope))
      .def(nb::init<std::string>(), "name"_a)
      .def("__enter__", [](nb::handle self) {
        PyScope& scope = nb::cast<PyScope&>(self);
        symx::default_graph().push_scope(scope.name);
        ++scope.entered;
        return nb::borrow(self);
      })
      .def("__exit__", [](PyScope& scope, nb::args) {
        // Popping here without a matching __enter__ would remove an enclosing scope.
        if (scope.entered == 0)
          throw symx::ValueError("Scope('" + scope.name + "').__exit__: the scope was not entered, so there is no "
                                 "scope to pop. Use it as a context manager: with sx.Scope(\"" + scope.name + "\"): ...");
        --scope.entered;
        // After reset_default_graph() inside the block the scope is gone already (as for the C++ guard).
        if (!symx::default_graph().current_scope().empty()) symx::default_graph().pop_scope();
      });

  // ---- unary elementwise ----
#define SYMX_UNARY(name) m.def(#name, LOC(symx::name), "x"_a, DOC(name));
  SYMX_UNARY(negative) SYMX_UNARY(abs) SYMX_UNARY(sign) SYMX_UNARY(exp) SYMX_UNARY(expm1)
  SYMX_UNARY(log) SYMX_UNARY(log1p) SYMX_UNARY(sqrt) SYMX_UNARY(rsqrt) SYMX_UNARY(square)
  SYMX_UNARY(reciprocal) SYMX_UNARY(sin) SYMX_UNARY(cos) SYMX_UNARY(tan) SYMX_UNARY(tanh)
  SYMX_UNARY(arctan) SYMX_UNARY(sigmoid) SYMX_UNARY(erf) SYMX_UNARY(floor) SYMX_UNARY(ceil)
  SYMX_UNARY(round) SYMX_UNARY(logical_not) SYMX_UNARY(isnan) SYMX_UNARY(isfinite)
  SYMX_UNARY(stop_gradient) SYMX_UNARY(zeros_like) SYMX_UNARY(ones_like) SYMX_UNARY(bitwise_not)
#undef SYMX_UNARY
  m.attr("invert") = m.attr("bitwise_not");  // NumPy's other name
  m.def("cast", LOC(symx::cast), "x"_a, "dtype"_a, DOC(cast));
  m.def("astype", LOC(symx::astype), "x"_a, "dtype"_a, DOC(astype));

  // ---- binary elementwise ----
#define SYMX_BINARY(name) m.def(#name, LOC(symx::name), "x1"_a, "x2"_a, DOC(name));
  SYMX_BINARY(add) SYMX_BINARY(subtract) SYMX_BINARY(multiply) SYMX_BINARY(divide)
  SYMX_BINARY(power) SYMX_BINARY(maximum) SYMX_BINARY(minimum) SYMX_BINARY(mod)
  SYMX_BINARY(arctan2) SYMX_BINARY(equal) SYMX_BINARY(not_equal) SYMX_BINARY(less)
  SYMX_BINARY(less_equal) SYMX_BINARY(greater) SYMX_BINARY(greater_equal)
  SYMX_BINARY(logical_and) SYMX_BINARY(logical_or) SYMX_BINARY(floor_divide) SYMX_BINARY(bitwise_and)
  SYMX_BINARY(bitwise_or) SYMX_BINARY(bitwise_xor) SYMX_BINARY(left_shift) SYMX_BINARY(right_shift)
#undef SYMX_BINARY
  m.def("where", LOC(symx::where), "condition"_a, "x"_a, "y"_a, DOC(where));
  m.def("clip", LOC(symx::clip), "a"_a, "a_min"_a, "a_max"_a, DOC(clip));

  // ---- reductions ----
#define SYMX_REDUCE(name) \
  m.def(#name, LOC(symx::name), "a"_a, "axis"_a = nb::none(), "keepdims"_a = false, DOC(name));
  SYMX_REDUCE(sum) SYMX_REDUCE(mean) SYMX_REDUCE(prod) SYMX_REDUCE(max) SYMX_REDUCE(min)
  SYMX_REDUCE(logsumexp) SYMX_REDUCE(var) SYMX_REDUCE(std) SYMX_REDUCE(argmax) SYMX_REDUCE(argmin)
#undef SYMX_REDUCE
  m.def("cumsum", LOC(symx::cumsum), "a"_a, "axis"_a = nb::none(), DOC(cumsum));

  // ---- shape and indexing ----
  m.def("reshape", LOC(symx::reshape), "a"_a, "shape"_a, DOC(reshape));
  m.def("transpose", LOC(symx::transpose), "a"_a, "axes"_a = nb::none(), DOC(transpose));
  m.def("expand_dims", LOC(symx::expand_dims), "a"_a, "axis"_a, DOC(expand_dims));
  m.def("squeeze", LOC(symx::squeeze), "a"_a, "axis"_a = nb::none(), DOC(squeeze));
  m.def("broadcast_to", LOC(symx::broadcast_to), "array"_a, "shape"_a, DOC(broadcast_to));
  m.def("concatenate", LOC(symx::concatenate), "arrays"_a, "axis"_a = 0, DOC(concatenate));
  m.def("stack", LOC(symx::stack), "arrays"_a, "axis"_a = 0, DOC(stack));
  m.def("split", [](TensorArg x, nb::handle indices_or_sections, AxisInt axis_arg) {
    const int axis = axis_arg.v;
    if (PyIndex_Check(indices_or_sections.ptr())) {
      auto sections = nb::cast<std::int64_t>(indices_or_sections);
      PyLocation here;
      return symx::split(x.t, sections, axis);
    }
    auto indices = int_list(indices_or_sections);
    PyLocation here;
    return symx::split(x.t, indices, axis);
  }, "ary"_a, "indices_or_sections"_a, "axis"_a = 0, DOC(split));
  m.def("slice", [](TensorArg x, nb::handle key) {
    auto index = index_from_python(key);
    PyLocation here;
    return symx::slice(x.t, index);
  }, "a"_a, nb::arg("index").none(), DOC(slice));
  m.def("take", LOC(symx::take), "a"_a, "indices"_a, "axis"_a = nb::none(), DOC(take));
  m.def("take_along_axis", LOC(symx::take_along_axis), "arr"_a, "indices"_a, "axis"_a, DOC(take_along_axis));
  m.def("pad", LOC(symx::pad), "array"_a, "pad_width"_a, "constant_values"_a = 0.0, DOC(pad));
  m.def("flip", LOC(symx::flip), "m"_a, "axis"_a = nb::none(), DOC(flip));
  m.def("tile", LOC(symx::tile), "A"_a, "reps"_a, DOC(tile));
  m.def("repeat", LOC(symx::repeat), "a"_a, "repeats"_a, "axis"_a = nb::none(), DOC(repeat));
  m.def("one_hot", LOC(symx::one_hot), "labels"_a, "depth"_a, "dtype"_a = symx::DType::f32, DOC(one_hot));
  m.def("eye", LOC(symx::eye), "N"_a, "M"_a = nb::none(), "k"_a = 0, "dtype"_a = symx::DType::f32, DOC(eye));
  m.def("linspace", LOC(symx::linspace), "start"_a, "stop"_a, "num"_a = 50, "endpoint"_a = true,
        "dtype"_a = symx::DType::f32, DOC(linspace));
  m.def("arange", [](double start, std::optional<double> stop, double step, symx::DType dtype) {
    PyLocation here;
    return stop ? symx::arange(start, *stop, step, dtype) : symx::arange(0, start, step, dtype);
  }, "start"_a, "stop"_a = nb::none(), "step"_a = 1.0, "dtype"_a = symx::DType::f32,
     DOC(arange));
  m.def("zeros", LOC(symx::zeros), "shape"_a, "dtype"_a = symx::DType::f32, DOC(zeros));
  m.def("ones", LOC(symx::ones), "shape"_a, "dtype"_a = symx::DType::f32, DOC(ones));
  m.def("meshgrid", [](nb::args xs, std::string indexing) {
    auto list = tensor_list(xs);
    PyLocation here;
    return symx::meshgrid(list, indexing);
  }, "xi"_a, "indexing"_a = "xy", DOC(meshgrid));

  // ---- linear algebra ----
  m.def("matmul", LOC(symx::matmul), "x1"_a, "x2"_a, DOC(matmul));
  m.def("dot", LOC(symx::dot), "a"_a, "b"_a, DOC(dot));
  m.def("outer", LOC(symx::outer), "a"_a, "b"_a, DOC(outer));
  nb::module_ linalg = m.def_submodule("linalg", "Linear algebra (numpy.linalg-like).");
  linalg.def("inv", LOC(lin::inv), "a"_a, DOC(linalg_inv));
  linalg.def("det", LOC(lin::det), "a"_a, DOC(linalg_det));
  linalg.def("slogdet", LOC(lin::slogdet), "a"_a, DOC(linalg_slogdet));
  linalg.def("cholesky", LOC(lin::cholesky), "a"_a, DOC(linalg_cholesky));
  linalg.def("solve", LOC(lin::solve), "a"_a, "b"_a, DOC(linalg_solve));
  linalg.def("triangular_solve", LOC(lin::triangular_solve), "a"_a, "b"_a, "lower"_a = true,
             "transpose_a"_a = false, "unit_diagonal"_a = false, DOC(linalg_triangular_solve));

  // ---- neural-network ops ----
  nb::module_ nn = m.def_submodule("nn", "Neural-network ops.");
  nn.def("relu", LOC(snn::relu), "x"_a, DOC(nn_relu));
  nn.def("leaky_relu", LOC(snn::leaky_relu), "x"_a, "negative_slope"_a = 0.01, DOC(nn_leaky_relu));
  nn.def("elu", LOC(snn::elu), "x"_a, "alpha"_a = 1.0, DOC(nn_elu));
  nn.def("gelu", LOC(snn::gelu), "x"_a, "approximate"_a = false, DOC(nn_gelu));
  nn.def("softplus", LOC(snn::softplus), "x"_a, DOC(nn_softplus));
  nn.def("sigmoid", LOC(snn::sigmoid), "x"_a, DOC(nn_sigmoid));
  nn.def("softmax", LOC(snn::softmax), "x"_a, "axis"_a = -1, DOC(nn_softmax));
  nn.def("log_softmax", LOC(snn::log_softmax), "x"_a, "axis"_a = -1, DOC(nn_log_softmax));
  nn.def("softmax_cross_entropy", LOC(snn::softmax_cross_entropy), "logits"_a, "labels"_a, "axis"_a = -1,
         DOC(nn_softmax_cross_entropy));
  nn.def("conv1d", LOC(snn::conv1d), "x"_a, "w"_a, "stride"_a = 1, "padding"_a = "VALID", "dilation"_a = 1,
         "groups"_a = 1, DOC(nn_conv1d));
  nn.def("conv2d", LOC(snn::conv2d), "x"_a, "w"_a, "strides"_a = nb::make_tuple(1, 1), "padding"_a = "VALID",
         "dilation"_a = nb::make_tuple(1, 1), "groups"_a = 1,
         DOC(nn_conv2d));
  nn.def("conv2d_transpose", LOC(snn::conv2d_transpose), "x"_a, "w"_a, "strides"_a = nb::make_tuple(1, 1),
         "padding"_a = "VALID", "output_padding"_a = nb::make_tuple(0, 0), "dilation"_a = nb::make_tuple(1, 1),
         "groups"_a = 1, DOC(nn_conv2d_transpose));
  nn.def("max_pool2d", LOC(snn::max_pool2d), "x"_a, "window"_a, "strides"_a = nb::none(), "padding"_a = "VALID",
         DOC(nn_max_pool2d));
  nn.def("avg_pool2d", LOC(snn::avg_pool2d), "x"_a, "window"_a, "strides"_a = nb::none(), "padding"_a = "VALID",
         DOC(nn_avg_pool2d));

  // ---- random draws ----
  nb::module_ random = m.def_submodule("random", "Random draws: fresh on every evaluation, reproducible from seed.");
  random.def("seed", &rnd::seed, "seed"_a, DOC(random_seed));
  random.def("uniform", LOC(rnd::uniform), "shape"_a, "low"_a = 0.0, "high"_a = 1.0, "dtype"_a = symx::DType::f32,
             DOC(random_uniform));
  random.def("normal", LOC(rnd::normal), "shape"_a, "mean"_a = 0.0, "stddev"_a = 1.0, "dtype"_a = symx::DType::f32,
             DOC(random_normal));
  random.def("truncated_normal", LOC(rnd::truncated_normal), "shape"_a, "mean"_a = 0.0, "stddev"_a = 1.0,
             "lower"_a = -2.0, "upper"_a = 2.0, "dtype"_a = symx::DType::f32, DOC(random_truncated_normal));
  random.def("bernoulli", LOC(rnd::bernoulli), "shape"_a, "p"_a = 0.5, "dtype"_a = symx::DType::b8,
             DOC(random_bernoulli));
  random.def("randint", LOC(rnd::randint), "shape"_a, "low"_a, "high"_a, "dtype"_a = symx::DType::i64,
             DOC(random_randint));
  random.def("permutation", LOC(rnd::permutation), "n"_a, DOC(random_permutation));

  // ---- autodiff ----
  m.def("grad", [](TensorArg cost, nb::handle wrt) -> nb::object {
    bool single = nb::isinstance<Tensor>(wrt);
    std::vector<Tensor> list = single ? std::vector<Tensor>{nb::cast<Tensor>(wrt)} : tensor_list(wrt);
    PyLocation here;
    std::vector<Tensor> grads = symx::grad(cost.t, list);
    return single ? nb::cast(grads[0]) : nb::cast(grads);
  }, "cost"_a, "wrt"_a, DOC(grad));
  m.def("vjp", LOC(symx::vjp), "outputs"_a, "wrt"_a, "cotangents"_a, DOC(vjp));
  m.def("jacobian", LOC(symx::jacobian), "y"_a, "x"_a, DOC(jacobian));
  m.def("hessian", LOC(symx::hessian), "cost"_a, "x"_a, DOC(hessian));

  // ---- functions and graph tools ----
  nb::class_<symx::Function>(m, "Function", DOC(Function))
      .def("__call__", [](const symx::Function& f, nb::args args) {
        std::vector<symx::Array> inputs;
        const auto& placeholders = f.inputs();
        for (std::size_t i = 0; i < args.size(); ++i)
          inputs.push_back(input_array(i < placeholders.size() ? &placeholders[i] : nullptr,
                                       nb::handle(PyTuple_GET_ITEM(args.ptr(), static_cast<Py_ssize_t>(i))), [&] {
            return "function input " + std::to_string(i) +
                   (i < placeholders.size() ? " ('" + placeholders[i].label() + "')" : std::string());
          }));
        // Other Python threads run during the compile and the kernels. Nothing here touches a
        // Python object: `inputs` keeps the NumPy buffers alive and is destroyed (dropping their
        // references) only after the GIL is re-acquired. A compiled call over less than 256 KiB
        // (microseconds of work) keeps the GIL: releasing it would cost more than the call.
        if (f.compile_count() > 0 && f.backend() == symx::Backend::compiled && f.bytes_per_call() < (1 << 18))
          return f(inputs);
        std::vector<symx::Array> outputs;
        {
          nb::gil_scoped_release released;
          outputs = f(inputs);
        }
        return outputs;
      }, DOC(Function_call))
      .def_prop_ro("inputs", &symx::Function::inputs, DOC(Function_inputs))
      .def_prop_ro("outputs", &symx::Function::outputs, DOC(Function_outputs))
      .def_prop_ro("updates", &symx::Function::updates, DOC(Function_updates))
      .def("compile_count", &symx::Function::compile_count, DOC(Function_compile_count))
      .def("__repr__", [](const symx::Function& f) {
        auto names = [](const std::vector<Tensor>& ts) {
          std::string out;
          for (const auto& t : ts) out += (out.empty() ? "" : ", ") + t.label();
          return "[" + out + "]";
        };
        std::string updates;
        for (const auto& [var, value] : f.updates()) updates += (updates.empty() ? "" : ", ") + var.label();
        return python_text("Function(inputs=" + names(f.inputs()) + ", outputs=" + names(f.outputs()) + ", updates=[" +
                           updates + "], backend='" + (f.backend() == symx::Backend::reference ? "reference" : "compiled") +
                           "', compiles=" + std::to_string(f.compile_count()) + ")");
      })
      .def("describe", &symx::Function::describe, nb::call_guard<nb::gil_scoped_release>(), DOC(Function_describe))
      .def_prop_ro("backend", [](const symx::Function& f) {
        return f.backend() == symx::Backend::reference ? "reference" : "compiled";
      }, DOC(Function_backend));
  m.def("function", [](TensorList inputs, TensorList outputs, TensorPairs updates, std::optional<std::string> backend) {
    symx::FunctionOptions options;
    if (backend) {
      if (*backend == "reference") options.backend = symx::Backend::reference;
      else if (*backend == "compiled") options.backend = symx::Backend::compiled;
      else throw nb::value_error("function: backend must be 'reference', 'compiled' or None");
    }
    PyLocation here;
    return symx::function(inputs.v, outputs.v, updates.v, options);
  }, "inputs"_a, "outputs"_a, "updates"_a = nb::none(), "backend"_a = nb::none(), DOC(function));
  m.def("clone", [](TensorList outputs, TensorPairs replace) {
    PyLocation here;
    return symx::clone(outputs.v, replace.v);
  }, "outputs"_a, "replace"_a, DOC(clone));
  auto as_list = [](nb::handle outputs) {
    return nb::isinstance<Tensor>(outputs) ? std::vector<Tensor>{nb::cast<Tensor>(outputs)} : tensor_list(outputs);
  };
  m.def("debugprint", [as_list](nb::handle outputs) { return symx::debugprint(as_list(outputs)); }, "outputs"_a,
        DOC(debugprint));
  m.def("to_dot", [as_list](nb::handle outputs) { return symx::to_dot(as_list(outputs)); }, "outputs"_a,
        DOC(to_dot));
  m.def("topological_order", [as_list](nb::handle outputs) { return symx::topological_order(as_list(outputs)); },
        "outputs"_a, DOC(topological_order));

  // ---- io ----
  m.def("save_variables", [](const std::filesystem::path& path, std::optional<std::vector<Tensor>> vars) {
    symx::save_variables(path.string(), vars.value_or(std::vector<Tensor>{}));
  }, "path"_a, "variables"_a = nb::none(), DOC(save_variables));
  m.def("load_variables", [](const std::filesystem::path& path, std::optional<std::vector<Tensor>> vars) {
    symx::load_variables(path.string(), vars.value_or(std::vector<Tensor>{}));
  }, "path"_a, "variables"_a = nb::none(), DOC(load_variables));
  m.def("load_npy", [](const std::filesystem::path& path) {
    symx::Array a;
    {
      nb::gil_scoped_release unlocked;  // file reading needs no Python objects
      a = symx::Array::load_npy(path.string());
    }
    return writable_array_to_python(std::move(a));
  }, "path"_a,
        "Reads a .npy file into a new, writable NumPy array, like numpy.load.\n\n"
        "Versions 1.0, 2.0 and 3.0 of the format; dtypes bool, uint8, int32, int64, float32 and float64 "
        "(little-endian); fortran_order files are read into C order. A malformed, truncated or unsupported "
        "file raises symx.IOError naming the file and the field.\n\n"
        "Example::\n\n    sx.save_npy('w.npy', np.eye(3))\n    w = sx.load_npy('w.npy')");
  m.def("save_npy", [](const std::filesystem::path& path, const symx::Array& array) {
    nb::gil_scoped_release unlocked;  // the Array keeps its NumPy buffer alive
    array.save_npy(path.string());
  }, "path"_a, "array"_a,
        "Writes `array` (anything numpy.asarray accepts) to a .npy file that numpy.load reads.\n\n"
        "The write is atomic: the data goes to a temporary file in the same folder, is flushed to disk and "
        "renamed over `path`, so `path` never holds a partial file. Raises symx.IOError when the folder is "
        "missing or not writable, or the disk is full.\n\n"
        "Example::\n\n    sx.save_npy('w.npy', np.eye(3, dtype=np.float32))");
}

// python/binding_common.hpp: what every file of the binding shares: NumPy conversion, the
// Python caller's location, argument wrappers and their type casters, error translation.
// Functions and globals are inline (one copy for the whole module, so the package folder and the
// exception types set up by binding.cpp are seen by every file).
#pragma once

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

namespace symx_binding {

// ---------------------------------------------------------------------------------------------
// NumPy access and the Python caller's location.

inline nb::handle numpy() {
  static nb::object* np = new nb::object(nb::module_::import_("numpy"));  // never freed: outlives finalization
  return *np;
}

inline std::string& package_dir() {
  static std::string dir;
  return dir;
}

// "file.py:12" for the innermost Python frame outside the symx package; empty if none.
inline std::string python_where() {
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

inline nb::object dtype_to_python(symx::DType d) {
  return numpy().attr("dtype")(std::string(symx::dtype_name(d)));
}

// NumPy's interpretation of a dtype-like (np.dtype, "float32", np.float32, float, ...).
inline std::optional<symx::DType> dtype_from_python(nb::handle src) {
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
inline std::optional<symx::DType> dtype_from_dlpack(nb::dlpack::dtype d) {
  if (d == nb::dtype<float>()) return symx::DType::f32;
  if (d == nb::dtype<double>()) return symx::DType::f64;
  if (d == nb::dtype<std::int32_t>()) return symx::DType::i32;
  if (d == nb::dtype<std::int64_t>()) return symx::DType::i64;
  if (d == nb::dtype<std::uint8_t>()) return symx::DType::u8;
  if (d == nb::dtype<bool>()) return symx::DType::b8;
  return std::nullopt;
}

// numpy.ndarray, looked up once (kept alive for the life of the process).
inline PyObject* ndarray_type() {
  static PyObject* type = nb::object(numpy().attr("ndarray")).release().ptr();
  return type;
}

inline symx::Array array_from_python(nb::handle src) {
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

inline nb::dlpack::dtype dlpack_dtype(symx::DType d) {
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
inline nb::object array_to_python(const symx::Array& a) { return numpy_array_of<nb::ro>(a); }

// A writable NumPy array that takes over `a`, which nothing else may share (a fresh Array).
inline nb::object writable_array_to_python(symx::Array a) { return numpy_array_of<>(std::move(a)); }

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
inline int narrow_axis(std::int64_t axis) {
  if (axis < std::numeric_limits<int>::min() || axis > std::numeric_limits<int>::max())
    throw symx::ShapeError("axis " + std::to_string(axis) + " is out of range: a tensor's axes lie in [-ndim, ndim). " +
                           "Use an axis of the tensor.");
  return static_cast<int>(axis);
}

inline int axis_from_python(nb::handle src) {
  if (PyBool_Check(src.ptr()) || !PyIndex_Check(src.ptr())) throw nb::type_error("expected an int axis");
  nb::object index = nb::steal(PyNumber_Index(src.ptr()));
  if (!index.is_valid()) nb::raise_python_error();
  return narrow_axis(nb::cast<std::int64_t>(index));
}

// A value given as Python numbers or (nested) lists/tuples of them: NumPy would make float64 of
// the floats, symx makes its default float, float32, as for every other number it meets.
// NumPy arrays and scalars keep their dtype.
inline symx::Array array_from_python_values(nb::handle src) {
  if (PyList_Check(src.ptr()) || PyTuple_Check(src.ptr()) || PyFloat_CheckExact(src.ptr())) {
    nb::object arr = numpy().attr("asarray")(src);
    if (nb::cast<std::string>(arr.attr("dtype").attr("name")) == "float64")
      arr = arr.attr("astype")(numpy().attr("float32"));
    return array_from_python(arr);
  }
  return array_from_python(src);
}

inline symx::Tensor tensor_from_python(nb::handle src) {
  if (nb::isinstance<symx::Tensor>(src)) return nb::cast<symx::Tensor>(src);
  symx::Array a = array_from_python_values(src);
  PyLocation here;
  return symx::constant(a);
}

inline bool is_weak_number(nb::handle src) {
  return PyBool_Check(src.ptr()) || PyLong_CheckExact(src.ptr()) || PyFloat_CheckExact(src.ptr());
}

inline std::vector<std::int64_t> int_list(nb::handle src) {
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

inline std::vector<symx::Tensor> tensor_list(nb::handle src) {
  if (!PyList_Check(src.ptr()) && !PyTuple_Check(src.ptr()))
    throw nb::type_error("expected a list or tuple of tensors");
  std::vector<symx::Tensor> out;
  for (nb::handle item : src) out.push_back(tensor_from_python(item));
  return out;
}

inline std::vector<std::pair<symx::Tensor, symx::Tensor>> tensor_pairs(nb::handle src) {
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
inline PyTypeObject* numpy_scalar_type(const char* name) {
  return reinterpret_cast<PyTypeObject*>(nb::object(numpy().attr(name)).release().ptr());
}

// A Python or NumPy number for a 0-d placeholder, converted as numpy.asarray(value, dtype) would
// but without calling into NumPy, so that f(1.5) costs what f(np.array(1.5)) does. Only exact
// cases take this path (a number converted to a float, an integer to an integer, a bool to a
// bool); anything else goes through numpy.asarray.
inline std::optional<symx::Array> scalar_input(const symx::Tensor& p, PyObject* value) {
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

inline symx::Feed feed_from_python(nb::handle feed) {
  symx::Feed out;
  if (feed.is_none()) return out;
  if (!PyDict_Check(feed.ptr())) throw nb::type_error("eval: feed must be a dict {placeholder: array} or None");
  for (auto [key, value] : nb::borrow<nb::dict>(feed)) {
    symx::Tensor p = nb::cast<symx::Tensor>(key);
    out.emplace_back(p, input_array(&p, value, [&] { return "eval: the feed for placeholder '" + p.label() + "'"; }));
  }
  return out;
}

inline std::vector<symx::Index> index_from_python(nb::handle key) {
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

inline PyObject* shape_error_type = nullptr;
inline PyObject* dtype_error_type = nullptr;
inline PyObject* io_error_type = nullptr;

// A C++ string as a Python str. Messages, paths and names may hold bytes from files or paths that
// are not UTF-8; they are escaped as \xNN (Python's 'backslashreplace') instead of failing with
// a UnicodeDecodeError that would hide the message.
inline PyObject* decode_escaped(std::string_view text) {  // a new reference, or null with the error set
  return PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "backslashreplace");
}

inline nb::str python_text(std::string_view text) {
  PyObject* str = decode_escaped(text);
  if (str == nullptr) throw nb::python_error();
  return nb::steal<nb::str>(str);
}

inline void set_error(PyObject* type, const char* message) {
  PyObject* text = decode_escaped(message);
  if (text == nullptr) return;  // the decode error (MemoryError) stays set
  PyErr_SetObject(type, text);
  Py_DECREF(text);
}

inline void translate_exception(const std::exception_ptr& p, void*) {
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

inline std::string tensor_repr(const symx::Tensor& t) {
  std::string s = "Tensor(op=" + std::string(symx::op_name(t.op()));
  if (!t.name().empty()) s += ", name='" + t.name() + "'";
  else s += ", id=" + std::to_string(t.id());
  return s + ", shape=" + symx::shape_string(t.shape()) + ", dtype=" + std::string(symx::dtype_name(t.dtype())) + ")";
}

}  // namespace symx_binding

using namespace symx_binding;

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

// The toolkit's parts, each bound in its own file (python/binding_<part>.cpp) and called from
// NB_MODULE in binding.cpp with the module it fills.
void bind_nn(nb::module_& nn);  // binding_nn.cpp: activations and nn.losses (symx/nn/activations.hpp, losses.hpp)
void bind_stats(nb::module_& stats);  // binding_stats.cpp: distributions (symx/stats.hpp)
void bind_layers(nb::module_& nn);  // binding_layers.cpp: nn.init and nn.layers (symx/nn/init.hpp, layers.hpp)
void bind_optim(nb::module_& optim);  // binding_optim.cpp: optimizers, clipping, schedules (symx/optim.hpp)
void bind_data(nb::module_& data);  // binding_data.cpp: readers, splits, transforms, BatchIterator (symx/data.hpp)
void bind_download(nb::module_& data);  // binding_download.cpp: data.download (symx/data/download.hpp)
void bind_train(nb::module_& train);  // binding_train.cpp: fit, callbacks, checkpoints, models (symx/train.hpp)
void bind_cli(nb::module_& m);  // binding_train.cpp: _cli_run, what `python -m symx` calls (symx/cli.hpp)

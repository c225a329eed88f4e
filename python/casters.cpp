// python/casters.cpp: the conversions between Python and symx declared in casters.hpp.
#include "casters.hpp"
#include "symx/distributed.hpp"

#include <complex>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace symx_binding {

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

PyRef::PyRef(nb::handle object)
    : held_(object.inc_ref().ptr(), [](PyObject* p) {
        if (!Py_IsInitialized()) return;  // the interpreter is gone: leak rather than crash
        nb::gil_scoped_acquire gil;
        Py_DECREF(p);
      }) {}

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

// ---------------------------------------------------------------------------------------------
// dtypes and arrays.

nb::object dtype_to_python(symx::DType d) { return numpy().attr("dtype")(std::string(symx::dtype_name(d))); }

namespace {

// The symx dtype of a DLPack dtype; none for the dtypes symx does not have.
std::optional<symx::DType> dtype_from_dlpack(nb::dlpack::dtype d) {
  if (d == nb::dtype<float>()) return symx::DType::f32;
  if (d == nb::dtype<double>()) return symx::DType::f64;
  if (d == nb::dtype<std::int32_t>()) return symx::DType::i32;
  if (d == nb::dtype<std::int64_t>()) return symx::DType::i64;
  if (d == nb::dtype<std::uint8_t>()) return symx::DType::u8;
  if (d == nb::dtype<bool>()) return symx::DType::b8;
  if (d == nb::dtype<std::complex<float>>()) return symx::DType::c64;
  if (d == nb::dtype<std::complex<double>>()) return symx::DType::c128;
  return std::nullopt;
}

}  // namespace

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

namespace {

nb::dlpack::dtype dlpack_dtype(symx::DType d) {
  switch (d) {
    case symx::DType::b8: return nb::dtype<bool>();
    case symx::DType::u8: return nb::dtype<std::uint8_t>();
    case symx::DType::i32: return nb::dtype<std::int32_t>();
    case symx::DType::i64: return nb::dtype<std::int64_t>();
    case symx::DType::f32: return nb::dtype<float>();
    case symx::DType::f64: return nb::dtype<double>();
    case symx::DType::c64: return nb::dtype<std::complex<float>>();
    case symx::DType::c128: return nb::dtype<std::complex<double>>();
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

}  // namespace

nb::object array_to_python(const symx::Array& a) { return numpy_array_of<nb::ro>(a); }

nb::object writable_array_to_python(symx::Array a) { return numpy_array_of<>(std::move(a)); }

// ---------------------------------------------------------------------------------------------
// Arguments.

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

symx::Array array_from_python_values(nb::handle src) {
  if (PyList_Check(src.ptr()) || PyTuple_Check(src.ptr()) || PyFloat_CheckExact(src.ptr()) ||
      PyComplex_CheckExact(src.ptr())) {
    // Python floats and complex numbers are symx's default float32 and complex64 (as in JAX).
    nb::object arr = numpy().attr("asarray")(src);
    const std::string name = nb::cast<std::string>(arr.attr("dtype").attr("name"));
    if (name == "float64") arr = arr.attr("astype")(numpy().attr("float32"));
    else if (name == "complex128") arr = arr.attr("astype")(numpy().attr("complex64"));
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

symx::random::Seed seed_from_python(nb::handle src) {
  if (src.is_none()) return {};
  if (nb::isinstance<symx::random::Seed>(src)) return nb::cast<symx::random::Seed>(src);
  if (PyBool_Check(src.ptr()) || !PyIndex_Check(src.ptr()))
    throw symx::TypeError(
        "seed must be None, an int or a symx.Seed, got " + nb::cast<std::string>(nb::repr(src)) +
        ". Pass seed=7 (a stream of this draw's own) or seed=sx.Seed(7) (shared by the draws given it).");
  nb::object index = nb::steal(PyNumber_Index(src.ptr()));
  if (!index.is_valid()) nb::raise_python_error();
  if (PyObject_RichCompareBool(index.ptr(), nb::int_(0).ptr(), Py_LT) == 1)
    throw symx::ValueError("seed must be a non-negative int, got " + nb::cast<std::string>(nb::repr(src)) + ".");
  return symx::random::Seed(nb::cast<std::uint64_t>(index));
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
  // A tensor's shape (symx.TensorShape, from Tensor.shape) carries its sizes with the unknown ones
  // (its None entries) as the symbols they stand for, so that zeros(x.shape) has x's batch size.
  nb::object sizes = nb::getattr(src, "_symx_sizes", nb::none());
  nb::handle items = sizes.is_none() ? src : nb::handle(sizes);
  for (nb::handle item : items) {
    if (item.is_none())
      throw symx::ShapeError(
          "the shape " + nb::cast<std::string>(nb::repr(src)) +
          " has None, a size unknown until a call, but a None written by hand does not say which one. Use the "
          "shape of a tensor, whose None entries stand for its placeholder's sizes: x.shape, or x.shape[:1] + "
          "(10,), for x = placeholder((None, ...)).");
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

// ---------------------------------------------------------------------------------------------
// Input values.

namespace {

// numpy.floating and numpy.integer, looked up once (kept alive for the life of the process).
PyTypeObject* numpy_scalar_type(const char* name) {
  return reinterpret_cast<PyTypeObject*>(nb::object(numpy().attr(name)).release().ptr());
}

}  // namespace

std::optional<symx::Array> scalar_input(const symx::Tensor& p, PyObject* value) {
  static PyTypeObject* floating = numpy_scalar_type("floating");
  static PyTypeObject* integer = numpy_scalar_type("integer");
  if (p.ndim() != 0) return std::nullopt;
  const symx::DType dtype = p.dtype();
  const bool is_bool = PyBool_Check(value);
  const bool is_int = !is_bool && (PyLong_Check(value) || PyObject_TypeCheck(value, integer));
  const bool is_float = PyFloat_Check(value) || PyObject_TypeCheck(value, floating);
  if (is_bool && dtype == symx::DType::b8) return symx::Array::scalar<bool>(value == Py_True);
  if (symx::is_complex(dtype) && (PyComplex_Check(value) || is_float || is_int)) {
    Py_complex v = PyComplex_AsCComplex(value);
    if (v.real == -1.0 && PyErr_Occurred()) throw nb::python_error();
    symx::Array a({}, dtype);
    a.set_complex_flat(0, {v.real, v.imag});
    return a;
  }
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
        "sx.slice takes basic indices only: integers, slices, None or Ellipsis. For integer arrays and "
        "boolean masks (NumPy's advanced indexing) index the tensor itself, x[idx], or use sx.take, "
        "sx.take_along_axis or sx.where.");
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
// Exceptions.

PyObject* shape_error_type = nullptr;
PyObject* distributed_error_type = nullptr;
PyObject* dtype_error_type = nullptr;
PyObject* io_error_type = nullptr;

namespace {

// A C++ string as a Python str. Messages, paths and names may hold bytes from files or paths that
// are not UTF-8; they are escaped as \xNN (Python's 'backslashreplace') instead of failing with
// a UnicodeDecodeError that would hide the message.
PyObject* decode_escaped(std::string_view text) {  // a new reference, or null with the error set
  return PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "backslashreplace");
}

}  // namespace

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
  } catch (const symx::Interrupted& e) {
    set_error(PyExc_KeyboardInterrupt, e.what());
  } catch (const symx::TypeError& e) {
    set_error(PyExc_TypeError, e.what());
  } catch (const symx::distributed::DistributedError& e) {
    set_error(distributed_error_type, e.what());
  } catch (const symx::Error& e) {  // symx::ValueError and any other user error
    set_error(PyExc_ValueError, e.what());
  } catch (const symx::InternalError& e) {
    set_error(PyExc_RuntimeError, e.what());
  }
}

}  // namespace symx_binding

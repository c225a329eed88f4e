// python/casters.hpp: the conversions between Python and symx that every file of the binding uses:
// NumPy arrays and dtypes to and from Array and DType, Python values to tensors (constants), the
// argument wrappers (TensorArg, IntList, axes, ...) with their nanobind type casters, the Python
// caller's location (PyLocation), and symx's exceptions as Python's. The functions are defined in
// casters.cpp; the templates and the type casters, which nanobind instantiates in every file, here.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symx/symx.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace symx_binding {

// ---------------------------------------------------------------------------------------------
// NumPy access and the Python caller's location.

// The numpy module, imported once (never freed: it outlives finalization).
nb::handle numpy();

// The symx package's folder (set by symx/__init__.py): frames inside it are not the user's.
std::string& package_dir();

// "file.py:12" for the innermost Python frame outside the symx package; empty if none.
std::string python_where();

// While alive, nodes built on this thread record the Python caller's file:line.
struct PyLocation {
  symx::detail::UserLocation guard{python_where()};
};

// A Python object held by a C++ callable that may outlive the call that made it (an initializer,
// a schedule, a network function, a loss). Copies share one reference without touching Python's
// reference count, so the callable can be copied without the GIL (fit runs with it released); the
// reference is dropped with the GIL while Python runs, and leaked once the interpreter is gone (the
// default graph, which keeps initializers for reset_variables, is destroyed after Python at exit).
class PyRef {
 public:
  explicit PyRef(nb::handle object);
  nb::handle get() const { return held_.get(); }

 private:
  std::shared_ptr<PyObject> held_;
};

// ---------------------------------------------------------------------------------------------
// dtypes and arrays.

nb::object dtype_to_python(symx::DType d);

// numpy.ndarray, looked up once (kept alive for the life of the process).
PyObject* ndarray_type();

// An Array wrapping a NumPy array's buffer; converts (copies) with numpy.asarray only when the
// input is not a native-endian C-contiguous NumPy array. Throws on unsupported dtypes.
symx::Array array_from_python(nb::handle src);

// A read-only NumPy array sharing the Array's storage (which may be a variable's, shared with symx).
nb::object array_to_python(const symx::Array& a);

// A writable NumPy array that takes over `a`, which nothing else may share (a fresh Array).
nb::object writable_array_to_python(symx::Array a);

// ---------------------------------------------------------------------------------------------
// Argument wrappers with their own casters (see the nanobind::detail section below).

// A Tensor, or an array-like that becomes a constant.
struct TensorArg {
  symx::Tensor t;
};
// A list or tuple of TensorArg (never a Tensor iterated row by row).
struct TensorList {
  std::vector<symx::Tensor> v;
};
// {a: b} or [(a, b), ...] of tensors (function updates, clone replacements).
struct TensorPairs {
  std::vector<std::pair<symx::Tensor, symx::Tensor>> v;
};
// An int, a sequence of ints, or None (empty): shapes, reps, strides.
struct IntList {
  std::vector<std::int64_t> v;
};
// A draw's seed=: None (the graph's generator), an int (a stream of its own) or a symx.Seed (a shared
// stream).
struct SeedArg {
  symx::random::Seed v;
  operator const symx::random::Seed&() const { return v; }  // NOLINT: passed on as the C++ Seed
};
symx::random::Seed seed_from_python(nb::handle src);
// An int, a sequence of ints, or None (empty): axes of transpose, squeeze, flip.
struct AxisList {
  std::vector<int> v;
};
// One axis (every `int` parameter of the bound ops is an axis), and an optional one.
struct AxisInt {
  int v = 0;
};
struct OptionalAxisInt {
  std::optional<int> v;
};

// An axis narrowed to the C++ int the ops take. A Python int beyond int's range cannot be an axis
// of any tensor: it is reported (a ShapeError when the call starts) instead of wrapping to a valid one.
int narrow_axis(std::int64_t axis);
int axis_from_python(nb::handle src);

// A value given as Python numbers or (nested) lists/tuples of them: NumPy would make float64 of
// the floats, symx makes its default float, float32, as for every other number it meets.
// NumPy arrays and scalars keep their dtype.
symx::Array array_from_python_values(nb::handle src);

// A Tensor as it is; anything else becomes a constant (array_from_python_values).
symx::Tensor tensor_from_python(nb::handle src);

// The wrappers' conversions: an int, a sequence of ints or None; a list or tuple of tensors;
// {a: b} or [(a, b), ...].
std::vector<std::int64_t> int_list(nb::handle src);
std::vector<symx::Tensor> tensor_list(nb::handle src);
std::vector<std::pair<symx::Tensor, symx::Tensor>> tensor_pairs(nb::handle src);

// ---------------------------------------------------------------------------------------------
// Input values (function arguments, eval feeds, assignments) and indices.

// A Python or NumPy number for a 0-d placeholder, converted as numpy.asarray(value, dtype) would
// but without calling into NumPy, so that f(1.5) costs what f(np.array(1.5)) does. Only exact
// cases take this path (a number converted to a float, an integer to an integer, a bool to a
// bool); anything else (nullopt) goes through numpy.asarray.
std::optional<symx::Array> scalar_input(const symx::Tensor& p, PyObject* value);

// An input value for placeholder `p` (or variable assignment): NumPy arrays pass unchanged (the
// C++ checks name the placeholder on a mismatch); other values (Python numbers, lists) are
// converted with numpy.asarray to the placeholder's dtype.
// A symx.Tensor is refused with a message that says so (NumPy would see it as an object array).
// `where()` names the value in that message, e.g. "function input 0 ('x')".
template <class Where> symx::Array input_array(const symx::Tensor* p, nb::handle value, Where&& where) {
  bool is_ndarray = PyObject_TypeCheck(value.ptr(), reinterpret_cast<PyTypeObject*>(ndarray_type()));
  if (p != nullptr && !is_ndarray)
    if (auto scalar = scalar_input(*p, value.ptr())) return *scalar;
  if (!is_ndarray && nb::isinstance<symx::Tensor>(value))
    throw nb::type_error((where() + ": got a symx.Tensor (symbolic), not a value; pass a NumPy array, or use "
                                    "tensor.eval() to get its value.")
                             .c_str());
  if (p != nullptr && !is_ndarray)
    return array_from_python(numpy().attr("asarray")(value, "dtype"_a = dtype_to_python(p->dtype())));
  return array_from_python(value);
}

// eval's feed: a dict {placeholder: value} or None.
symx::Feed feed_from_python(nb::handle feed);

// A basic index (ints, slices, None, Ellipsis, or a tuple of them) as symx::Index entries.
std::vector<symx::Index> index_from_python(nb::handle key);

// ---------------------------------------------------------------------------------------------
// Exceptions.

// symx.ShapeError, symx.DTypeError and symx.IOError, made when the module is initialized.
extern PyObject* shape_error_type;
extern PyObject* dtype_error_type;
extern PyObject* io_error_type;
extern PyObject* distributed_error_type;  // symx.distributed.DistributedError (a RuntimeError)

// A C++ string as a Python str; bytes that are not UTF-8 (from files or paths) are escaped as \xNN
// (Python's 'backslashreplace') instead of failing with a UnicodeDecodeError that would hide the text.
nb::str python_text(std::string_view text);

// Sets the Python error `type` with `message` (escaped as python_text does).
void set_error(PyObject* type, const char* message);

// nanobind's exception translator: symx's user errors as ShapeError, DTypeError, IOError,
// TypeError and ValueError, internal errors as RuntimeError.
void translate_exception(const std::exception_ptr& p, void*);

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
  // As convert, but every symx error is the user's (a bad value of the one type the parameter takes),
  // kept for get() instead of meaning "not this type".
  template <class F> bool convert_keeping_errors(F&& make) noexcept {
    try {
      value.emplace(make());
    } catch (const symx::Error&) {
      error = std::current_exception();
    } catch (...) {
      PyErr_Clear();
      return false;
    }
    return true;
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

#define SYMX_WRAPPER_CASTER(Type, descr, expr)                                                          \
  template <> struct type_caster<Type> : deferred_error_value<Type> {                                   \
    using Value = Type;                                                                                 \
    static constexpr auto Name = const_name(descr);                                                     \
    template <typename T_> using Cast = movable_cast_t<T_>;                                             \
    template <typename T_> static constexpr bool can_cast() { return true; }                            \
    bool from_python(handle src, uint32_t, cleanup_list*) noexcept {                                    \
      return convert([&] { return Type{expr}; });                                                       \
    }                                                                                                   \
    static handle from_cpp(const Type&, rv_policy, cleanup_list*) noexcept { return none().release(); } \
  };

SYMX_WRAPPER_CASTER(TensorArg, "symx._symx.Tensor | numpy.typing.ArrayLike", tensor_from_python(src))
// seed=: a wrong value is the user's error (kept for the call to raise), not "try another overload".
template <> struct type_caster<SeedArg> : deferred_error_value<SeedArg> {
  using Value = SeedArg;
  static constexpr auto Name = const_name("int | symx._symx.random.Seed | None");
  template <typename T_> using Cast = movable_cast_t<T_>;
  template <typename T_> static constexpr bool can_cast() { return true; }
  bool from_python(handle src, uint32_t, cleanup_list*) noexcept {
    return convert_keeping_errors([&] { return SeedArg{seed_from_python(src)}; });
  }
  static handle from_cpp(const SeedArg&, rv_policy, cleanup_list*) noexcept { return none().release(); }
};
SYMX_WRAPPER_CASTER(TensorList, "collections.abc.Sequence[symx._symx.Tensor | numpy.typing.ArrayLike]",
                    tensor_list(src))
SYMX_WRAPPER_CASTER(TensorPairs, "dict[symx._symx.Tensor, symx._symx.Tensor | numpy.typing.ArrayLike]",
                    tensor_pairs(src))
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
  static constexpr auto Name = const_name("symx._symx.Tensor | numpy.typing.ArrayLike | int | float | complex | bool");
  template <typename T_> using Cast = movable_cast_t<T_>;
  template <typename T_> static constexpr bool can_cast() { return true; }
  bool from_python(handle src, uint32_t, cleanup_list*) noexcept {
    return convert([&]() -> symx::Operand {
      if (PyBool_Check(src.ptr())) return src.ptr() == Py_True;
      if (PyLong_CheckExact(src.ptr())) return nb::cast<std::int64_t>(src);
      if (PyFloat_CheckExact(src.ptr())) return PyFloat_AsDouble(src.ptr());
      if (PyComplex_CheckExact(src.ptr()))
        return std::complex<double>(PyComplex_RealAsDouble(src.ptr()), PyComplex_ImagAsDouble(src.ptr()));
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

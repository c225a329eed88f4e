// python/binding_numpy.cpp: the Python binding of symx/numpy.hpp. NumPy's alias spellings are the same
// function objects as the names they alias (sx.absolute is sx.abs).
#include <optional>
#include <string>
#include <vector>

#include "binding_common.hpp"
#include "symx/numpy.hpp"

namespace {

std::optional<symx::Tensor> optional_tensor(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return tensor_from_python(h);
}

// A dtype argument of the host-side helpers: a tensor's or array's dtype, or anything numpy.dtype takes.
symx::DType dtype_of(nb::handle h) {
  if (nb::isinstance<symx::Tensor>(h)) return nb::cast<symx::Tensor>(h).dtype();
  if (nb::hasattr(h, "dtype") && !PyType_Check(h.ptr())) return nb::cast<symx::DType>(h.attr("dtype"));
  return nb::cast<symx::DType>(h);
}

// NumPy's abstract scalar classes (numpy.floating, ...) by name, or a dtype's name.
std::string kind_of(nb::handle h) {
  if (PyType_Check(h.ptr())) {
    nb::object abstract = numpy().attr("generic");
    std::string name = nb::cast<std::string>(h.attr("__name__"));
    if (name == "bool" && h.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) return "bool";
    if (PyObject_IsSubclass(h.ptr(), abstract.ptr()) == 1) {
      try {
        return std::string(symx::dtype_name(nb::cast<symx::DType>(h)));
      } catch (...) {
        PyErr_Clear();
        return name;  // abstract: floating, integer, number, ...
      }
    }
  }
  if (PyUnicode_Check(h.ptr())) {  // a dtype's name, or a kind (the C++ function says which it does not know)
    try {
      return std::string(symx::dtype_name(nb::cast<symx::DType>(h)));
    } catch (...) {
      PyErr_Clear();
      return nb::cast<std::string>(h);
    }
  }
  return std::string(symx::dtype_name(dtype_of(h)));
}

}  // namespace

void bind_numpy(nb::module_& m) {
  // ---- unary primitives and composites ----
#define SYMX_UNARY(name) m.def(#name, LOC(symx::name), "x"_a, DOC(name))
  SYMX_UNARY(arcsin);
  SYMX_UNARY(arccos);
  SYMX_UNARY(arcsinh);
  SYMX_UNARY(arccosh);
  SYMX_UNARY(arctanh);
  SYMX_UNARY(sinh);
  SYMX_UNARY(cosh);
  SYMX_UNARY(log2);
  SYMX_UNARY(log10);
  SYMX_UNARY(exp2);
  SYMX_UNARY(cbrt);
  SYMX_UNARY(signbit);
  SYMX_UNARY(deg2rad);
  SYMX_UNARY(rad2deg);
  SYMX_UNARY(trunc);
  SYMX_UNARY(fabs);
  SYMX_UNARY(positive);
  SYMX_UNARY(isinf);
  SYMX_UNARY(isposinf);
  SYMX_UNARY(isneginf);
  SYMX_UNARY(isreal);
  SYMX_UNARY(iscomplex);
  SYMX_UNARY(modf);
  SYMX_UNARY(frexp);
#undef SYMX_UNARY
#define SYMX_BINARY(name) m.def(#name, LOC(symx::name), "x1"_a, "x2"_a, DOC(name))
  SYMX_BINARY(hypot);
  SYMX_BINARY(copysign);
  SYMX_BINARY(fmod);
  SYMX_BINARY(logaddexp);
  SYMX_BINARY(logaddexp2);
  SYMX_BINARY(ldexp);
  SYMX_BINARY(float_power);
  SYMX_BINARY(divmod);
  SYMX_BINARY(heaviside);
  SYMX_BINARY(fmax);
  SYMX_BINARY(fmin);
  SYMX_BINARY(logical_xor);
#undef SYMX_BINARY
  m.def("around", LOC(symx::around), "a"_a, "decimals"_a = 0, DOC(around));
  m.def("isclose", LOC(symx::isclose), "a"_a, "b"_a, "rtol"_a = 1e-5, "atol"_a = 1e-8, "equal_nan"_a = false,
        DOC(isclose));
  m.def("allclose", LOC(symx::allclose), "a"_a, "b"_a, "rtol"_a = 1e-5, "atol"_a = 1e-8, "equal_nan"_a = false,
        DOC(allclose));
  m.def("array_equal", LOC(symx::array_equal), "a1"_a, "a2"_a, "equal_nan"_a = false, DOC(array_equal));
  m.def("nan_to_num", LOC(symx::nan_to_num), "x"_a, "nan"_a = 0.0, "posinf"_a = nb::none(), "neginf"_a = nb::none(),
        DOC(nan_to_num));

  // ---- reductions ----
#define SYMX_REDUCE(name) m.def(#name, LOC(symx::name), "a"_a, "axis"_a = nb::none(), "keepdims"_a = false, DOC(name))
  SYMX_REDUCE(all);
  SYMX_REDUCE(any);
  SYMX_REDUCE(count_nonzero);
  SYMX_REDUCE(ptp);
  SYMX_REDUCE(nansum);
  SYMX_REDUCE(nanprod);
  SYMX_REDUCE(nanmax);
  SYMX_REDUCE(nanmin);
  SYMX_REDUCE(nanargmax);
  SYMX_REDUCE(nanargmin);
  SYMX_REDUCE(nanmean);
#undef SYMX_REDUCE
  m.def("nanvar", LOC(symx::nanvar), "a"_a, "axis"_a = nb::none(), "ddof"_a = 0.0, "keepdims"_a = false, DOC(nanvar));
  m.def("nanstd", LOC(symx::nanstd), "a"_a, "axis"_a = nb::none(), "ddof"_a = 0.0, "keepdims"_a = false, DOC(nanstd));
  m.def(
      "average",
      [](TensorArg a, OptionalAxisInt axis, nb::handle weights, bool returned, bool keepdims) -> nb::object {
        auto w = optional_tensor(weights);
        PyLocation here;
        auto [avg, wsum] = symx::average_returned(a.t, axis.v, w, keepdims);
        if (returned) return nb::make_tuple(avg, wsum);
        return nb::cast(avg);
      },
      "a"_a, "axis"_a = nb::none(), "weights"_a = nb::none(), "returned"_a = false, "keepdims"_a = false,
      nb::sig("def average(a: Tensor | numpy.typing.ArrayLike, axis: int | None = None, weights: Tensor | "
              "numpy.typing.ArrayLike | None = None, returned: bool = False, keepdims: bool = False) -> Tensor | "
              "tuple[Tensor, Tensor]"),
      DOC(average));
  m.def(
      "cov",
      [](TensorArg m_, nb::handle y, bool rowvar, bool bias, std::optional<int> ddof) {
        auto yt = optional_tensor(y);
        PyLocation here;
        return symx::cov(m_.t, yt, rowvar, bias, ddof);
      },
      "m"_a, "y"_a = nb::none(), "rowvar"_a = true, "bias"_a = false, "ddof"_a = nb::none(),
      nb::sig("def cov(m: Tensor | numpy.typing.ArrayLike, y: Tensor | numpy.typing.ArrayLike | None = None, rowvar: "
              "bool = True, bias: bool = False, ddof: int | None = None) -> Tensor"),
      DOC(cov));
  m.def(
      "corrcoef",
      [](TensorArg x, nb::handle y, bool rowvar) {
        auto yt = optional_tensor(y);
        PyLocation here;
        return symx::corrcoef(x.t, yt, rowvar);
      },
      "x"_a, "y"_a = nb::none(), "rowvar"_a = true,
      nb::sig("def corrcoef(x: Tensor | numpy.typing.ArrayLike, y: Tensor | numpy.typing.ArrayLike | None = None, "
              "rowvar: bool = True) -> Tensor"),
      DOC(corrcoef));

  // ---- choosing ----
  m.def("select", LOC(symx::select), "condlist"_a, "choicelist"_a, "default"_a = 0, DOC(select));
  m.def(
      "piecewise",
      [](TensorArg x, nb::handle condlist, nb::handle funclist) {
        // NumPy also takes one condition (a bool array) for condlist.
        std::vector<symx::Tensor> conds = PyList_Check(condlist.ptr()) || PyTuple_Check(condlist.ptr())
                                              ? tensor_list(condlist)
                                              : std::vector{tensor_from_python(condlist)};
        std::vector<symx::Piece> pieces;
        for (nb::handle f : funclist) {
          if (PyCallable_Check(f.ptr())) {
            pieces.emplace_back(std::function<symx::Tensor(const symx::Tensor&)>(
                [fn = nb::borrow<nb::object>(f)](const symx::Tensor& t) { return tensor_from_python(fn(t)); }));
          } else {
            pieces.emplace_back(nb::cast<double>(f));
          }
        }
        PyLocation here;
        return symx::piecewise(x.t, conds, pieces);
      },
      "x"_a, "condlist"_a, "funclist"_a,
      nb::sig("def piecewise(x: Tensor | numpy.typing.ArrayLike, condlist: collections.abc.Sequence[Tensor] | Tensor, "
              "funclist: collections.abc.Sequence[collections.abc.Callable[[Tensor], Tensor] | float]) -> Tensor"),
      DOC(piecewise));
  m.def("choose", LOC(symx::choose), "a"_a, "choices"_a, "mode"_a = "raise", DOC(choose));

  // ---- dtypes and shapes (host side) ----
  m.def(
      "can_cast",
      [](nb::handle from, nb::handle to, std::string casting) {
        if (PyBool_Check(from.ptr()) || PyLong_CheckExact(from.ptr()) || PyFloat_CheckExact(from.ptr()))
          throw nb::type_error(
              "can_cast: a Python number has no dtype (NumPy 2 refuses it too); pass a dtype, array or tensor.");
        return symx::can_cast(dtype_of(from), dtype_of(to), casting);
      },
      "from_"_a, "to"_a, "casting"_a = "safe",
      nb::sig("def can_cast(from_: Tensor | numpy.typing.DTypeLike | numpy.typing.ArrayLike, to: "
              "numpy.typing.DTypeLike, casting: str = 'safe') -> bool"),
      DOC(can_cast));
  m.def(
      "promote_types", [](nb::handle a, nb::handle b) { return symx::promote_types(dtype_of(a), dtype_of(b)); },
      "type1"_a, "type2"_a,
      nb::sig("def promote_types(type1: numpy.typing.DTypeLike, type2: numpy.typing.DTypeLike) -> numpy.dtype"),
      "The dtype both dtypes convert to safely, as numpy.promote_types (on symx's dtypes).\n\n"
      "Example: promote_types('int32', 'float32') is float64");
  m.def(
      "result_type",
      [](nb::args args) {
        std::vector<symx::DType> dtypes;
        std::vector<symx::Operand> numbers;
        for (nb::handle a : args) {
          if (PyBool_Check(a.ptr())) numbers.emplace_back(a.ptr() == Py_True);
          else if (PyLong_CheckExact(a.ptr())) numbers.emplace_back(nb::cast<std::int64_t>(a));
          else if (PyFloat_CheckExact(a.ptr())) numbers.emplace_back(PyFloat_AsDouble(a.ptr()));
          else dtypes.push_back(dtype_of(a));
        }
        return symx::result_type(dtypes, numbers);
      },
      nb::sig("def result_type(*arrays_and_dtypes) -> numpy.dtype"), DOC(result_type));
  m.def(
      "issubdtype", [](nb::handle a, nb::handle b) { return symx::issubdtype(dtype_of(a), kind_of(b)); }, "arg1"_a,
      "arg2"_a, nb::sig("def issubdtype(arg1: numpy.typing.DTypeLike, arg2: numpy.typing.DTypeLike | type) -> bool"),
      DOC(issubdtype));
  m.attr("issubsctype") = m.attr("issubdtype");
  m.def(
      "isdtype",
      [](nb::handle dtype, nb::handle kind) {
        if (PyTuple_Check(kind.ptr())) {
          for (nb::handle k : kind)
            if (symx::isdtype(dtype_of(dtype), kind_of(k))) return true;
          return false;
        }
        return symx::isdtype(dtype_of(dtype), kind_of(kind));
      },
      "dtype"_a, "kind"_a,
      nb::sig("def isdtype(dtype: numpy.typing.DTypeLike, kind: str | numpy.typing.DTypeLike | tuple) -> bool"),
      DOC(isdtype));
  m.def(
      "broadcast_shapes",
      [](nb::args shapes) {
        std::vector<symx::Shape> list;
        for (nb::handle s : shapes) list.push_back(int_list(s));
        return nb::tuple(nb::cast(symx::broadcast_shapes(list)));
      },
      nb::sig("def broadcast_shapes(*shapes) -> tuple[int, ...]"), DOC(broadcast_shapes));
  m.def(
      "iscomplexobj", [](TensorArg x) { return symx::iscomplexobj(x.t); }, "x"_a, DOC(iscomplexobj));
  m.def(
      "isscalar",
      [](nb::handle x) { return !nb::isinstance<symx::Tensor>(x) && nb::cast<bool>(numpy().attr("isscalar")(x)); },
      "element"_a,
      "Whether `element` is a Python or NumPy scalar, as numpy.isscalar (a tensor, even 0-d, is not).\n\n"
      "Example: isscalar(3.0) is True; isscalar(constant(3.0)) is False");
  m.def(
      "ndim",
      [](nb::handle x) -> int {
        if (nb::isinstance<symx::Tensor>(x)) return nb::cast<symx::Tensor>(x).ndim();
        return nb::cast<int>(numpy().attr("ndim")(x));
      },
      "a"_a, "The number of axes of a tensor or array-like, as numpy.ndim.\n\nExample: ndim(placeholder((2, 3))) is 2");
  m.def(
      "shape",
      [](nb::handle x) -> nb::object {
        if (nb::isinstance<symx::Tensor>(x)) return x.attr("shape");
        return numpy().attr("shape")(x);
      },
      "a"_a,
      "The shape of a tensor (None for a size unknown until a call) or array-like, as numpy.shape.\n\n"
      "Example: shape(placeholder((None, 3))) is (None, 3)");

  m.def(
      "placeholder_like",
      [](nb::handle item, std::string name) -> nb::object {
        if (PyList_Check(item.ptr()) || PyTuple_Check(item.ptr())) {
          std::vector<symx::Tensor> items = tensor_list(item);
          nb::list out;
          PyLocation here;
          for (const auto& t : items) out.append(symx::placeholder_like(t, name));
          return out;
        }
        symx::Tensor t = tensor_from_python(item);
        PyLocation here;
        return nb::cast(symx::placeholder_like(t, name));
      },
      "item"_a, "name"_a = "",
      nb::sig("def placeholder_like(item: Tensor | numpy.typing.ArrayLike | collections.abc.Sequence, name: str = '') "
              "-> Tensor | list[Tensor]"),
      DOC(placeholder_like));

  // ---- NumPy's other spellings: the same function objects ----
  const char* aliases[][2] = {
      {"asin", "arcsin"},
      {"acos", "arccos"},
      {"asinh", "arcsinh"},
      {"acosh", "arccosh"},
      {"atanh", "arctanh"},
      {"atan", "arctan"},
      {"atan2", "arctan2"},
      {"radians", "deg2rad"},
      {"degrees", "rad2deg"},
      {"absolute", "abs"},
      {"amax", "max"},
      {"amin", "min"},
      {"product", "prod"},
      {"pow", "power"},
      {"true_divide", "divide"},
      {"remainder", "mod"},
      {"rint", "round"},
      {"fix", "trunc"},
      {"alltrue", "all"},
      {"sometrue", "any"},
      {"bitwise_invert", "bitwise_not"},
      {"bitwise_left_shift", "left_shift"},
      {"bitwise_right_shift", "right_shift"},
  };
  for (const auto& [alias, name] : aliases) m.attr(alias) = m.attr(name);
}

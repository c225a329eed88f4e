// python/binding.cpp: the `symx._symx` extension module, a thin nanobind binding of the public
// C++ API (include/symx/*.hpp). NB_MODULE below makes the module and its submodules and calls each
// part's bind_* function (binding_common.hpp lists them, one file a part: binding_ops.cpp for the
// NumPy-like functions, binding_nn.cpp for symx.nn, ...); this file binds the core: Tensor, the
// leaves and collections, autodiff, Function and the graph tools, and the io functions. The
// conversions between Python and C++ values are in casters.hpp and casters.cpp.
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
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "binding_common.hpp"

namespace {

using symx::Tensor;

// Python's name scope context manager over the default graph.
struct PyScope {
  std::string name;
  int entered = 0;  // __enter__ calls not yet matched by __exit__
};

std::string tensor_repr(const Tensor& t) {
  std::string s = "Tensor(op=" + std::string(symx::op_name(t.op()));
  if (!t.name().empty()) s += ", name='" + t.name() + "'";
  else s += ", id=" + std::to_string(t.id());
  return s + ", shape=" + symx::shape_string(t.shape()) + ", dtype=" + std::string(symx::dtype_name(t.dtype())) + ")";
}

// The Tensor class: properties, evaluation, assignment, indexing, the Python protocols and operators.
void bind_tensor(nb::module_& m) {
  nb::class_<Tensor> tensor(m, "Tensor", DOC(Tensor));
  tensor
      .def_prop_ro(
          "shape",
          [](const Tensor& t) {
            nb::list dims;
            for (auto d : t.shape()) {
              if (symx::is_symbol(d)) dims.append(nb::none());
              else dims.append(d);
            }
            return nb::tuple(dims);
          },
          nb::sig("def shape(self) -> tuple[int | None, ...]"), DOC(Tensor_shape))
      // The sizes with each unknown one as its symbol, for symx.TensorShape (python/symx/__init__.py).
      .def_prop_ro("_symx_sizes", [](const Tensor& t) { return nb::tuple(nb::cast(t.shape())); })
      .def_prop_ro(
          "dtype", [](const Tensor& t) { return dtype_to_python(t.dtype()); },
          nb::sig("def dtype(self) -> numpy.dtype"), DOC(Tensor_dtype))
      .def_prop_ro("ndim", &Tensor::ndim, DOC(Tensor_ndim))
      .def_prop_ro(
          "size",
          [](const Tensor& t) -> nb::object {
            if (t.size() == symx::kDynamic) return nb::none();
            return nb::int_(t.size());
          },
          nb::sig("def size(self) -> int | None"), DOC(Tensor_size))
      .def_prop_ro(
          "name", [](const Tensor& t) { return python_text(t.name()); }, DOC(Tensor_name))
      .def_prop_ro(
          "label", [](const Tensor& t) { return python_text(t.label()); }, DOC(Tensor_label))
      .def_prop_ro("id", &Tensor::id, DOC(Tensor_id))
      .def_prop_ro(
          "op", [](const Tensor& t) { return std::string(symx::op_name(t.op())); }, DOC(Tensor_op))
      .def_prop_ro("display_op", &Tensor::display_op, DOC(Tensor_display_op))
      .def_prop_ro(
          "where", [](const Tensor& t) { return python_text(t.node().where); }, DOC(Tensor_where))
      .def_prop_ro(
          "inputs", [](const Tensor& t) { return t.node().inputs; }, DOC(Tensor_inputs))
      .def(
          "eval",
          [](const Tensor& t, nb::handle feed) {
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
          "feed"_a = nb::none(), DOC(Tensor_eval))
      .def_prop_rw(
          "value", [](const Tensor& t) { return array_to_python(t.value()); },
          [](const Tensor& t, nb::handle v) {
            t.assign(input_array(&t, v, [&] { return "value of '" + t.label() + "'"; }));
          },
          DOC(Tensor_value))
      .def(
          "assign",
          [](const Tensor& t, nb::handle v) {
            t.assign(input_array(&t, v, [&] { return "assign to '" + t.label() + "'"; }));
          },
          "value"_a, DOC(Tensor_assign))
      .def_prop_ro("trainable", &Tensor::trainable, DOC(Tensor_trainable))
      .def_prop_ro(
          "scope", [](const Tensor& t) { return python_text(t.scope()); }, DOC(Tensor_scope))
      .def_prop_ro(
          "initializer",
          [](const Tensor& t) {
            const symx::Initializer& init = t.initializer();
            return nb::cpp_function([init](IntList shape, symx::DType dtype) { return init(shape.v, dtype); },
                                    "shape"_a, "dtype"_a);
          },
          nb::sig("def initializer(self) -> collections.abc.Callable[[tuple[int, ...], numpy.dtype], numpy.ndarray]"),
          DOC(Tensor_initializer))
      .def(
          "astype",
          [](const Tensor& t, symx::DType d) {
            PyLocation here;
            return t.astype(d);
          },
          "dtype"_a, DOC(Tensor_astype))
      .def(
          "reshape",
          [](const Tensor& t, nb::args shape) {
            nb::handle spec = shape.size() == 1 ? nb::handle(PyTuple_GET_ITEM(shape.ptr(), 0)) : nb::handle(shape);
            auto dims = int_list(spec);
            PyLocation here;
            return t.reshape(dims);
          },
          DOC(Tensor_reshape))
      .def_prop_ro(
          "T",
          [](const Tensor& t) {
            PyLocation here;
            return t.T();
          },
          DOC(Tensor_T))
      .def_prop_ro(
          "real",
          [](const Tensor& t) {
            PyLocation here;
            return symx::real(t);
          },
          DOC(real))
      .def_prop_ro(
          "imag",
          [](const Tensor& t) {
            PyLocation here;
            return symx::imag(t);
          },
          DOC(imag))
      .def(
          "conj",
          [](const Tensor& t) {
            PyLocation here;
            return symx::conj(t);
          },
          DOC(conj))
      .def(
          "conjugate",
          [](const Tensor& t) {
            PyLocation here;
            return symx::conj(t);
          },
          DOC(conjugate))
      // __getitem__ (NumPy's basic and advanced indexing) is bound with the indexing in binding_indexing.cpp.
      .def("__len__",
           [](const Tensor& t) -> std::int64_t {
             if (t.ndim() == 0) throw nb::type_error("len() of a 0-d tensor");
             return t.shape()[0];
           })
      .def("__bool__",
           [](const Tensor&) -> bool {
             throw nb::type_error("a symbolic Tensor has no truth value; evaluate it (t.eval()) or use sx.where");
           })
      .def("__hash__",
           [](const Tensor& t) {
             return static_cast<Py_ssize_t>(reinterpret_cast<std::uintptr_t>(t.node_ptr().get()) >> 4);
           })
      .def("__eq__",
           [](const Tensor& a, nb::handle b) { return nb::isinstance<Tensor>(b) && nb::cast<const Tensor&>(b) == a; })
      .def("__ne__", [](const Tensor& a,
                        nb::handle b) { return !(nb::isinstance<Tensor>(b) && nb::cast<const Tensor&>(b) == a); })
      .def("__repr__", [](const Tensor& t) { return python_text(tensor_repr(t)); })
      .def(
          "__array__",
          [](const Tensor& t, nb::args, nb::kwargs) -> nb::object {
            // Without this, numpy.asarray(t) would iterate the tensor into an object array of nodes.
            std::string message = tensor_repr(t) +
                                  " is symbolic: it has no values to convert to a NumPy array. "
                                  "Evaluate it with t.eval({placeholder: array, ...}), or compile it with "
                                  "sx.function(inputs, [t]) and call that.";
            set_error(PyExc_TypeError, message.c_str());
            throw nb::python_error();
          },
          "Raises TypeError: a symbolic tensor has no values (use eval() or a function).")
      .def("__neg__",
           [](const Tensor& a) {
             PyLocation here;
             return symx::negative(a);
           })
      .def("__abs__",
           [](const Tensor& a) {
             PyLocation here;
             return symx::abs(a);
           })
      .def("__invert__", [](const Tensor& a) {
        PyLocation here;
        return symx::bitwise_not(a);
      });
  tensor.attr("__array_ufunc__") = nb::none();  // NumPy defers to Tensor's reflected operators

#define SYMX_BINARY_OPERATOR(name, rname, fn)       \
  tensor.def(                                       \
      name,                                         \
      [](const Tensor& a, const symx::Operand& b) { \
        PyLocation here;                            \
        return fn(a, b);                            \
      },                                            \
      nb::is_operator());                           \
  tensor.def(                                       \
      rname,                                        \
      [](const Tensor& a, const symx::Operand& b) { \
        PyLocation here;                            \
        return fn(b, a);                            \
      },                                            \
      nb::is_operator());
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
  tensor.def("__lt__", [](const Tensor& a, const symx::Operand& b) {
    PyLocation here;
    return symx::less(a, b);
  });
  tensor.def("__le__", [](const Tensor& a, const symx::Operand& b) {
    PyLocation here;
    return symx::less_equal(a, b);
  });
  tensor.def("__gt__", [](const Tensor& a, const symx::Operand& b) {
    PyLocation here;
    return symx::greater(a, b);
  });
  tensor.def("__ge__", [](const Tensor& a, const symx::Operand& b) {
    PyLocation here;
    return symx::greater_equal(a, b);
  });
  tensor.def("__matmul__", [](const Tensor& a, TensorArg b) {
    PyLocation here;
    return symx::matmul(a, b.t);
  });
  tensor.def("__rmatmul__", [](const Tensor& a, TensorArg b) {
    PyLocation here;
    return symx::matmul(b.t, a);
  });
}

// Placeholders, variables, constants, update and variable collections, name scopes.
void bind_leaves(nb::module_& m) {
  m.def(
      "placeholder",
      [](nb::handle shape, symx::DType dtype, std::string name) {
        if (shape.is_none())
          throw symx::ValueError("placeholder" + (name.empty() ? std::string() : " '" + name + "'") +
                                 ": shape None (an unknown number of axes) is not supported. Give one entry per axis, "
                                 "None for a size known only at call time: placeholder((None, 784)).");
        symx::Shape dims;
        bool negative = false;  // in Python an unknown size is None; -1 is a mistake, as in NumPy
        if (PyIndex_Check(shape.ptr())) {
          dims = int_list(shape);
          negative = dims.at(0) < 0;
        } else {
          if (nb::isinstance<Tensor>(shape) || PyUnicode_Check(shape.ptr()))
            throw nb::type_error("expected a sequence of ints and None");
          for (nb::handle d : shape) {
            dims.push_back(d.is_none() ? symx::kDynamic : int_list(d).at(0));
            negative = negative || (!d.is_none() && dims.back() < 0);
          }
        }
        if (negative)
          throw symx::ShapeError(
              "placeholder" + (name.empty() ? std::string() : " '" + name + "'") + ": negative size in shape " +
              symx::shape_string(dims) +
              ". Sizes are zero or more; write None for a size known only at call time: placeholder((None, 784)).");
        PyLocation here;
        return symx::placeholder(std::move(dims), dtype, name);
      },
      "shape"_a.none(), "dtype"_a = symx::DType::f32, "name"_a = "",
      nb::sig("def placeholder(shape: int | collections.abc.Sequence[int | None], dtype: numpy.typing.DTypeLike = "
              "numpy.float32, name: str = '') -> Tensor"),
      DOC(placeholder));
  m.def(
      "variable",
      [](nb::handle init, nb::handle shape, nb::handle dtype, std::string name, bool trainable) {
        const std::string what = "variable" + (name.empty() ? std::string() : " '" + name + "'");
        if (PyUnicode_Check(shape.ptr()))  // variable(value, "w"): the name where the shape goes
          throw symx::TypeError(what + ": shape is the string " + nb::cast<std::string>(nb::repr(shape)) +
                                "; the second argument is the shape, and the name is given by keyword: "
                                "variable(value, name=" +
                                nb::cast<std::string>(nb::repr(shape)) + ").");
        if (nb::isinstance<Tensor>(init)) {  // a tensor's value now, e.g. variable(sx.random.normal((3, 2)))
          Tensor t = nb::cast<Tensor>(init);
          if (!dtype.is_none()) t = symx::astype(t, nb::cast<symx::DType>(dtype));
          if (!shape.is_none() && int_list(shape) != t.shape())
            throw symx::ShapeError(what + ": the value is " + symx::shape_string(t.shape()) +
                                   " but shape=" + symx::shape_string(int_list(shape)) +
                                   ". Pass a tensor of that shape, or leave shape out.");
          PyLocation here;
          return symx::variable(t, name, trainable);
        }
        if (PyCallable_Check(init.ptr())) {
          if (shape.is_none())
            throw symx::ValueError("variable" + (name.empty() ? std::string() : " '" + name + "'") +
                                   ": an initializer needs the variable's shape. Pass it: variable(init, (784, 100)).");
          symx::DType dt = dtype.is_none() ? symx::DType::f32 : nb::cast<symx::DType>(dtype);
          // Called again by reset_variables, always from Python (with the GIL held).
          symx::Initializer draw = [fn = PyRef(init)](const symx::Shape& s, symx::DType d) {
            nb::tuple py_shape = nb::tuple(nb::cast(s));
            return array_from_python(
                numpy().attr("asarray")(fn.get()(py_shape, dtype_to_python(d)), "dtype"_a = dtype_to_python(d)));
          };
          PyLocation here;
          return symx::variable(draw, int_list(shape), dt, name, trainable);
        }
        symx::Array a = dtype.is_none() ? array_from_python_values(init)
                                        : array_from_python(numpy().attr("asarray")(init, "dtype"_a = dtype));
        if (!shape.is_none()) {
          symx::Shape want = int_list(shape);
          if (a.ndim() == 0 && !want.empty())  // a number fills the shape
            a = array_from_python(numpy().attr("full")(nb::cast(want), array_to_python(a)));
          else if (a.shape() != want)
            throw symx::ShapeError("variable" + (name.empty() ? std::string() : " '" + name + "'") + ": the value is " +
                                   symx::shape_string(a.shape()) + " but shape=" + symx::shape_string(want) +
                                   ". Pass a value of that shape, a number to fill it, or an initializer.");
        }
        PyLocation here;
        return symx::variable(a, name, trainable);
      },
      "init"_a, "shape"_a = nb::none(), "dtype"_a = nb::none(), "name"_a = "", "trainable"_a = true,
      nb::sig("def variable(init: Tensor | numpy.typing.ArrayLike | collections.abc.Callable[[tuple[int, ...], "
              "numpy.dtype], "
              "numpy.typing.ArrayLike], "
              "shape: int | collections.abc.Sequence[int] | None = None, dtype: numpy.typing.DTypeLike | None = None, "
              "name: str = '', trainable: bool = True) -> Tensor"),
      DOC(variable));
  m.def(
      "reset_variables",
      [](nb::handle vars) {
        if (PyUnicode_Check(vars.ptr()))  // a pattern, as variables() takes
          throw symx::TypeError("reset_variables: got the string " + nb::cast<std::string>(nb::repr(vars)) +
                                "; it takes a list of variables, not a pattern. Reset the variables a pattern matches "
                                "with reset_variables(sx.variables(" +
                                nb::cast<std::string>(nb::repr(vars)) +
                                ")), or every variable with reset_variables().");
        if (nb::isinstance<Tensor>(vars)) return symx::reset_variables({nb::cast<Tensor>(vars)});
        return symx::reset_variables(vars.is_none() ? std::vector<Tensor>{} : tensor_list(vars));
      },
      "variables"_a = nb::none(), DOC(reset_variables));
  m.def(
      "add_updates",
      [](TensorPairs updates) {
        PyLocation here;
        symx::add_updates(updates.v);
      },
      "updates"_a, DOC(add_updates));
  m.def("get_updates", &symx::get_updates, "pattern"_a = "", DOC(get_updates));
  m.def("clear_updates", &symx::clear_updates, DOC(clear_updates));
  m.def(
      "constant",
      [](nb::handle value, nb::handle dtype) {
        symx::Array a = dtype.is_none() ? array_from_python_values(value)
                                        : array_from_python(numpy().attr("asarray")(value, "dtype"_a = dtype));
        PyLocation here;
        return symx::constant(a);
      },
      "value"_a, "dtype"_a = nb::none(), DOC(constant));
  m.def("variables", &symx::variables, "pattern"_a = "", "trainable"_a = nb::none(), DOC(variables));
  m.def("placeholders", &symx::placeholders, DOC(placeholders));
  m.def("reset_default_graph", &symx::reset_default_graph, DOC(reset_default_graph));
  m.def(
      "current_scope", [] { return symx::default_graph().current_scope(); }, DOC(Graph_current_scope));
  nb::class_<PyScope>(m, "Scope", DOC(Scope))
      .def(nb::init<std::string>(), "name"_a)
      .def("__enter__",
           [](nb::handle self) {
             PyScope& scope = nb::cast<PyScope&>(self);
             symx::default_graph().push_scope(scope.name);
             ++scope.entered;
             return nb::borrow(self);
           })
      .def("__exit__", [](PyScope& scope, nb::args) {
        // Popping here without a matching __enter__ would remove an enclosing scope.
        if (scope.entered == 0)
          throw symx::ValueError("Scope('" + scope.name +
                                 "').__exit__: the scope was not entered, so there is no "
                                 "scope to pop. Use it as a context manager: with sx.Scope(\"" +
                                 scope.name + "\"): ...");
        --scope.entered;
        // After reset_default_graph() inside the block the scope is gone already (as for the C++ guard).
        if (!symx::default_graph().current_scope().empty()) symx::default_graph().pop_scope();
      });
}

void bind_autodiff(nb::module_& m) {
  // Two overloads, so that the stubs say what comes back: one tensor for one, a list for a list.
  m.def(
      "grad",
      [](TensorArg cost, const Tensor& wrt) {
        PyLocation here;
        return symx::grad(cost.t, {wrt})[0];
      },
      "cost"_a, "wrt"_a, DOC(grad));
  m.def(
      "grad",
      [](TensorArg cost, nb::handle wrt) {
        std::vector<Tensor> list = tensor_list(wrt);
        PyLocation here;
        return symx::grad(cost.t, list);
      },
      "cost"_a, "wrt"_a,
      nb::sig("def grad(cost: Tensor | numpy.typing.ArrayLike, wrt: collections.abc.Sequence[Tensor]) -> "
              "list[Tensor]"));
  m.def("vjp", LOC(symx::vjp), "outputs"_a, "wrt"_a, "cotangents"_a, DOC(vjp));
  m.def("jacobian", LOC(symx::jacobian), "y"_a, "x"_a, DOC(jacobian));
  m.def("hessian", LOC(symx::hessian), "cost"_a, "x"_a, DOC(hessian));
}

// Function (the compiled callable) and the graph tools (clone, printers, topological order).
void bind_functions(nb::module_& m) {
  nb::class_<symx::Function>(m, "Function", DOC(Function))
      .def(
          "__call__",
          [](const symx::Function& f, nb::args args) {
            std::vector<symx::Array> inputs;
            const auto& placeholders = f.inputs();
            for (std::size_t i = 0; i < args.size(); ++i)
              inputs.push_back(input_array(i < placeholders.size() ? &placeholders[i] : nullptr,
                                           nb::handle(PyTuple_GET_ITEM(args.ptr(), static_cast<Py_ssize_t>(i))), [&] {
                                             return "function input " + std::to_string(i) +
                                                    (i < placeholders.size() ? " ('" + placeholders[i].label() + "')"
                                                                             : std::string());
                                           }));
            // Other Python threads run during the compile and the kernels. Nothing here touches a
            // Python object: `inputs` keeps the NumPy buffers alive and is destroyed (dropping their
            // references) only after the GIL is re-acquired. A compiled call over less than 256 KiB
            // (microseconds of work) keeps the GIL, unless it compiles first (a new function, or a
            // new batch size of one with None sizes): releasing it would cost more than the call.
            std::vector<symx::Array> outputs;
            if (f.backend() == symx::Backend::compiled && f.bytes_per_call() < (1 << 18) && f.compiled_for(inputs)) {
              outputs = f(inputs);
            } else {
              nb::gil_scoped_release released;
              outputs = f(inputs);
            }
            // function(x, y) with one output tensor: one array, as Theano's.
            return f.single_output() ? nb::cast(outputs[0]) : nb::cast(outputs);
          },
          nb::sig("def __call__(self, *args) -> numpy.ndarray | list[numpy.ndarray]"), DOC(Function_call))
      .def_prop_ro("inputs", &symx::Function::inputs, DOC(Function_inputs))
      .def_prop_ro("outputs", &symx::Function::outputs, DOC(Function_outputs))
      .def_prop_ro("updates", &symx::Function::updates, DOC(Function_updates))
      .def("compile_count", &symx::Function::compile_count, DOC(Function_compile_count))
      .def("__repr__",
           [](const symx::Function& f) {
             auto names = [](const std::vector<Tensor>& ts) {
               std::string out;
               for (const auto& t : ts) out += (out.empty() ? "" : ", ") + t.label();
               return "[" + out + "]";
             };
             std::string updates;
             for (const auto& [var, value] : f.updates()) updates += (updates.empty() ? "" : ", ") + var.label();
             return python_text("Function(inputs=" + names(f.inputs()) + ", outputs=" + names(f.outputs()) +
                                ", updates=[" + updates + "], backend='" +
                                (f.backend() == symx::Backend::reference ? "reference" : "compiled") +
                                "', compiles=" + std::to_string(f.compile_count()) + ")");
           })
      .def("describe", &symx::Function::describe, nb::call_guard<nb::gil_scoped_release>(), DOC(Function_describe))
      .def_prop_ro(
          "backend",
          [](const symx::Function& f) { return f.backend() == symx::Backend::reference ? "reference" : "compiled"; },
          DOC(Function_backend));
  m.def(
      "function",
      [](nb::handle inputs, nb::handle outputs, TensorPairs updates, std::optional<std::string> backend,
         bool allow_input_downcast, std::optional<int> max_specializations) {
        symx::FunctionOptions options;
        options.allow_input_downcast = allow_input_downcast;
        options.max_specializations = max_specializations;
        if (backend) {
          if (*backend == "reference") options.backend = symx::Backend::reference;
          else if (*backend == "compiled") options.backend = symx::Backend::compiled;
          else throw nb::value_error("function: backend must be 'reference', 'compiled' or None");
        }
        // One tensor or a list of them, each (Theano's function(x, y)); one output tensor gives one array.
        auto one_or_list = [](nb::handle h) {
          return nb::isinstance<Tensor>(h) ? std::vector<Tensor>{nb::cast<Tensor>(h)} : tensor_list(h);
        };
        std::vector<Tensor> in = one_or_list(inputs), out = one_or_list(outputs);
        PyLocation here;
        if (nb::isinstance<Tensor>(outputs)) return symx::function(in, out[0], updates.v, options);
        return symx::function(in, out, updates.v, options);
      },
      "inputs"_a, "outputs"_a, "updates"_a = nb::none(), "backend"_a = nb::none(), "allow_input_downcast"_a = false,
      "max_specializations"_a = nb::none(),
      nb::sig("def function(inputs: Tensor | collections.abc.Sequence[Tensor], outputs: Tensor | "
              "collections.abc.Sequence[Tensor], updates: dict[Tensor, Tensor | numpy.typing.ArrayLike] | "
              "collections.abc.Sequence[tuple[Tensor, Tensor | numpy.typing.ArrayLike]] | None = None, backend: "
              "str | None = None, allow_input_downcast: bool = False, max_specializations: int | None = None) -> "
              "Function"),
      DOC(function));
  m.def(
      "clone",
      [](TensorList outputs, TensorPairs replace) {
        PyLocation here;
        return symx::clone(outputs.v, replace.v);
      },
      "outputs"_a, "replace"_a, DOC(clone));
  auto as_list = [](nb::handle outputs) {
    return nb::isinstance<Tensor>(outputs) ? std::vector<Tensor>{nb::cast<Tensor>(outputs)} : tensor_list(outputs);
  };
  m.def(
      "debugprint", [as_list](nb::handle outputs) { return symx::debugprint(as_list(outputs)); }, "outputs"_a,
      nb::sig("def debugprint(outputs: Tensor | collections.abc.Sequence[Tensor]) -> str"), DOC(debugprint));
  m.def(
      "to_dot", [as_list](nb::handle outputs) { return symx::to_dot(as_list(outputs)); }, "outputs"_a,
      nb::sig("def to_dot(outputs: Tensor | collections.abc.Sequence[Tensor]) -> str"), DOC(to_dot));
  m.def(
      "topological_order", [as_list](nb::handle outputs) { return symx::topological_order(as_list(outputs)); },
      "outputs"_a, nb::sig("def topological_order(outputs: Tensor | collections.abc.Sequence[Tensor]) -> list[Tensor]"),
      DOC(topological_order));
}

// SymJAX's graph API (symx/graph.hpp): Graph as a context manager, current_graph, get_variables,
// get_placeholders, get_ops, roots and ancestors.
void bind_graph(nb::module_& m) {
  auto as_list = [](nb::handle outputs) {
    return nb::isinstance<Tensor>(outputs) ? std::vector<Tensor>{nb::cast<Tensor>(outputs)} : tensor_list(outputs);
  };
  nb::class_<symx::Graph>(m, "Graph", DOC(Graph))
      .def(nb::init<std::string>(), "name"_a = "")
      .def_prop_ro(
          "name", [](const symx::Graph& g) { return python_text(g.name()); }, DOC(Graph_name))
      .def("__enter__",
           [](nb::handle self) {
             nb::cast<symx::Graph&>(self).enter();
             return nb::borrow(self);
           })
      .def("__exit__", [](symx::Graph& g, nb::args) { g.exit(); })
      .def("reset", &symx::Graph::reset, DOC(Graph_reset))
      .def("clear", &symx::Graph::clear, DOC(Graph_clear))
      .def("variables", &symx::Graph::variables, "pattern"_a = "", "trainable"_a = nb::none(), DOC(Graph_variables))
      .def("variable", &symx::Graph::variable, "name"_a, DOC(Graph_variable))
      .def_prop_ro("placeholders", &symx::Graph::placeholders, "The graph's placeholders, in creation order.")
      .def_prop_ro("ops", &symx::Graph::ops, DOC(Graph_ops))
      .def_prop_ro("updates", &symx::Graph::updates, "The graph's update collection: (variable, new value) pairs.")
      .def_prop_ro(
          "scope_name", [](const symx::Graph& g) { return python_text("/" + g.current_scope()); },
          "The graph's current scope as SymJAX writes it (\"/model1/\").")
      .def(
          "roots", [as_list](const symx::Graph&, nb::handle outputs) { return symx::roots(as_list(outputs)); },
          "nodes"_a, nb::sig("def roots(self, nodes: Tensor | collections.abc.Sequence[Tensor]) -> list[Tensor]"),
          DOC(roots))
      .def(
          "ancestors", [as_list](const symx::Graph&, nb::handle outputs) { return symx::ancestors(as_list(outputs)); },
          "nodes"_a, nb::sig("def ancestors(self, nodes: Tensor | collections.abc.Sequence[Tensor]) -> list[Tensor]"),
          DOC(ancestors))
      .def("__repr__", [](const symx::Graph& g) {
        return python_text("Graph(name='" + g.name() + "', variables=" + std::to_string(g.variables().size()) +
                           ", placeholders=" + std::to_string(g.placeholders().size()) +
                           ", ops=" + std::to_string(g.ops().size()) + ")");
      });
  m.def("current_graph", &symx::current_graph, nb::rv_policy::reference, DOC(current_graph));
  m.def("get_variables", &symx::get_variables, "name"_a = "*", "scope"_a = "/", "trainable"_a = true,
        DOC(get_variables));
  m.def("get_placeholders", &symx::get_placeholders, "name"_a = "*", "scope"_a = "/", DOC(get_placeholders));
  m.def("get_ops", &symx::get_ops, "name"_a = "*", "scope"_a = "/", DOC(get_ops));
  m.def(
      "ancestors", [as_list](nb::handle outputs) { return symx::ancestors(as_list(outputs)); }, "nodes"_a,
      nb::sig("def ancestors(nodes: Tensor | collections.abc.Sequence[Tensor]) -> list[Tensor]"), DOC(ancestors));
  m.def(
      "roots", [as_list](nb::handle outputs) { return symx::roots(as_list(outputs)); }, "nodes"_a,
      nb::sig("def roots(nodes: Tensor | collections.abc.Sequence[Tensor]) -> list[Tensor]"), DOC(roots));
  m.def(
      "variables_of",
      [as_list](nb::handle outputs, std::optional<bool> trainable) {
        return symx::variables_of(as_list(outputs), trainable);
      },
      "nodes"_a, "trainable"_a = true,
      nb::sig("def variables_of(nodes: Tensor | collections.abc.Sequence[Tensor], trainable: bool | None = True) -> "
              "list[Tensor]"),
      DOC(variables_of));
}

// Saving and loading variables and arrays (.npy, .npz).
void bind_io(nb::module_& m) {
  m.def(
      "save_variables",
      [](const std::filesystem::path& path, std::optional<std::vector<Tensor>> vars) {
        symx::save_variables(path.string(), vars.value_or(std::vector<Tensor>{}));
      },
      "path"_a, "variables"_a = nb::none(), DOC(save_variables));
  m.def(
      "load_variables",
      [](const std::filesystem::path& path, std::optional<std::vector<Tensor>> vars) {
        symx::load_variables(path.string(), vars.value_or(std::vector<Tensor>{}));
      },
      "path"_a, "variables"_a = nb::none(), DOC(load_variables));
  m.def(
      "load_npy",
      [](const std::filesystem::path& path) {
        symx::Array a;
        {
          nb::gil_scoped_release unlocked;  // file reading needs no Python objects
          a = symx::Array::load_npy(path.string());
        }
        return writable_array_to_python(std::move(a));
      },
      "path"_a,
      "Reads a .npy file into a new, writable NumPy array, like numpy.load.\n\n"
      "Versions 1.0, 2.0 and 3.0 of the format; dtypes bool, uint8, int32, int64, float32, float64, complex64 and "
      "complex128 "
      "(little-endian); fortran_order files are read into C order. A malformed, truncated or unsupported "
      "file raises symx.IOError naming the file and the field.\n\n"
      "Example::\n\n    sx.save_npy('w.npy', np.eye(3))\n    w = sx.load_npy('w.npy')");
  m.def(
      "save_npy",
      [](const std::filesystem::path& path, const symx::Array& array) {
        nb::gil_scoped_release unlocked;  // the Array keeps its NumPy buffer alive
        array.save_npy(path.string());
      },
      "path"_a, "array"_a,
      "Writes `array` (anything numpy.asarray accepts) to a .npy file that numpy.load reads.\n\n"
      "The write is atomic: the data goes to a temporary file in the same folder, is flushed to disk and "
      "renamed over `path`, so `path` never holds a partial file. Raises symx.IOError when the folder is "
      "missing or not writable, or the disk is full.\n\n"
      "Example::\n\n    sx.save_npy('w.npy', np.eye(3, dtype=np.float32))");
  m.def(
      "load_npz",
      [](const std::filesystem::path& path) {
        std::map<std::string, symx::Array> arrays;
        {
          nb::gil_scoped_release unlocked;  // file reading needs no Python objects
          arrays = symx::load_npz(path.string());
        }
        nb::dict out;
        for (auto& [name, array] : arrays)
          out[nb::str(name.c_str(), name.size())] = writable_array_to_python(std::move(array));
        return out;
      },
      "path"_a, DOC(load_npz));
  m.def(
      "save_npz",
      [](const std::filesystem::path& path, const nb::dict& arrays) {
        std::map<std::string, symx::Array> converted;
        for (auto [key, value] : arrays) {
          if (!nb::isinstance<nb::str>(key))
            throw nb::type_error(("save_npz: every key of `arrays` must be a str (the entry's name); got " +
                                  nb::cast<std::string>(nb::repr(key)) + ". Use string keys, as numpy.savez does.")
                                     .c_str());
          converted.emplace(nb::cast<std::string>(key), array_from_python(value));
        }
        nb::gil_scoped_release unlocked;  // each Array keeps its NumPy buffer alive
        symx::save_npz(path.string(), converted);
      },
      "path"_a, "arrays"_a, DOC(save_npz));
}

}  // namespace

void bind_linalg_factor(nb::module_& linalg, nb::module_& top);  // binding_linalg_factor.cpp
void bind_linalg_spectral(nb::module_& linalg);                  // binding_linalg_spectral.cpp (symx/linalg.hpp)
void bind_interpolation(nb::module_& m);                         // binding_interpolation.cpp: symx/interpolation.hpp

NB_MODULE(_symx, m) {
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
  m.def(
      "_op_names",
      [] {
        std::vector<std::string> names;
        for (int i = 0; i < symx::kNumOps; ++i) names.emplace_back(symx::op_name(static_cast<symx::OpKind>(i)));
        return names;
      },
      "The names of the primitive ops, in op-table order.");
  m.def(
      "_where", [] { return python_where(); }, "The Python location new nodes would record now.");

  bind_tensor(m);
  bind_leaves(m);
  bind_ops(m);
  bind_special(m);
  bind_sorting(m);
  bind_indexing(m);
  bind_numpy(m);
  bind_arrays(m);
  bind_signal(m);
  bind_fft(m);
  bind_interpolation(m);  // symx.interpolation and symx.image
  nb::module_ linalg = m.def_submodule("linalg", "Linear algebra (numpy.linalg-like).");
  bind_linalg(linalg);
  bind_linalg_factor(linalg, m);  // binding_linalg_factor.cpp: symx/linalg_factor.hpp and numpy.linalg's aliases
  bind_linalg_spectral(linalg);   // binding_linalg_spectral.cpp: eigh, svd and what is built on them
  nb::module_ normalization = m.def_submodule("normalization", "SymJAX's tensor.normalization: spectral_normalize.");
  normalization.def("spectral_normalize", LOC(symx::normalization::spectral_normalize), "weight"_a, "axis"_a = 0,
                    "n_iters"_a = 1, DOC(normalization_spectral_normalize));
  nb::module_ nn = m.def_submodule("nn", "Neural-network ops.");
  bind_nn(nn);
  bind_layers(nn);
  nb::module_ optim = m.def_submodule("optim", "Optimizers, gradient clipping and learning-rate schedules.");
  bind_optim(optim);
  nb::module_ random = m.def_submodule("random", "Random draws: fresh on every evaluation, reproducible from seed.");
  bind_random(random);
  nb::module_ stats = m.def_submodule("stats", "Probability distributions (symx/stats.hpp).");
  bind_stats(stats);
  nb::module_ data =
      m.def_submodule("data", "Data sets, readers, splits, transforms and the batch iterator (symx/data.hpp).");
  bind_data(data);
  nb::module_ train =
      m.def_submodule("train", "The training loop, callbacks, checkpoints and models (symx/train.hpp).");
  bind_train(train);
  nb::module_ distributed =
      m.def_submodule("distributed",
                      "Data-parallel training over MPI: collectives and gradient averaging (symx/distributed.hpp).");
  distributed_error_type = PyErr_NewExceptionWithDoc("symx.distributed.DistributedError",
                                                     DOC(distributed_DistributedError), PyExc_RuntimeError, nullptr);
  distributed.attr("DistributedError") = nb::handle(distributed_error_type);
  bind_distributed(distributed);
  bind_cli(m);
  bind_autodiff(m);
  bind_control_flow(m);
  bind_functions(m);
  bind_graph(m);
  bind_io(m);
}

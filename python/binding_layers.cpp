// python/binding_layers.cpp: symx.nn.init (initializers) and symx.nn.layers
// (toolkit/include/symx/nn/init.hpp and layers.hpp).
#include <nanobind/stl/shared_ptr.h>

#include "binding_common.hpp"
#include "symx/nn/init.hpp"
#include "symx/nn/layers.hpp"

namespace {

namespace init = symx::nn::init;
namespace ly = symx::nn::layers;
using symx::Tensor;
using namespace symx_binding;

// A C++ initializer as a Python object: callable as init(shape, dtype) -> numpy array, and accepted
// wherever symx takes an initializer (variable, a layer's w_init/b_init) without a detour through Python.
struct PyInitializer {
  symx::Initializer fn;
  std::string repr;
};

// A layer's initializer argument: None (the layer's default), an nn.init initializer, a Python
// callable (shape, dtype) -> array, or an array or number (used as the value, of the variable's shape).
symx::Initializer initializer_from_python(nb::handle h, symx::Initializer fallback) {
  if (h.is_none()) return fallback;
  if (nb::isinstance<PyInitializer>(h)) return nb::cast<PyInitializer&>(h).fn;
  if (PyCallable_Check(h.ptr()) && !nb::isinstance<Tensor>(h)) {
    return [fn = PyRef(h)](const symx::Shape& s, symx::DType d) {
      nb::gil_scoped_acquire gil;
      nb::object value = fn.get()(nb::tuple(nb::cast(s)), dtype_to_python(d));
      return array_from_python(numpy().attr("asarray")(value, "dtype"_a = dtype_to_python(d)));
    };
  }
  return [value = PyRef(h)](const symx::Shape& s, symx::DType d) {
    nb::gil_scoped_acquire gil;
    return array_from_python(numpy().attr("array")(numpy().attr(
        "broadcast_to")(numpy().attr("asarray")(value.get(), "dtype"_a = dtype_to_python(d)), nb::cast(s))));
  };
}

// A Python function of a tensor, for Activation and Sequential.
std::function<Tensor(const Tensor&)> tensor_function(nb::handle h) {
  if (!PyCallable_Check(h.ptr())) throw nb::type_error("expected an activation name or a callable of a tensor");
  return [fn = PyRef(h)](const Tensor& x) {
    nb::gil_scoped_acquire gil;
    nb::object y = fn.get()(x);
    if (!nb::isinstance<Tensor>(y)) throw symx::ValueError("nn.layers.Activation: the function returned a non-tensor.");
    return nb::cast<Tensor>(y);
  };
}

template <class F> PyInitializer make(std::string repr, F&& make_fn) {
  return PyInitializer{make_fn(), std::move(repr)};
}

std::string number(double v) { return nb::cast<std::string>(nb::repr(nb::float_(v))); }

void bind_init(nb::module_& m) {
  nb::class_<PyInitializer>(m, "Initializer", DOC(nn_init_Initializer))
      .def(
          "__call__",
          [](const PyInitializer& self, IntList shape, symx::DType dtype) {
            return writable_array_to_python(self.fn(shape.v, dtype).copy());
          },
          "shape"_a, "dtype"_a = symx::DType::f32)
      .def("__repr__", [](const PyInitializer& self) { return "symx.nn.init." + self.repr; });
  m.def("seed", &init::seed, "seed"_a, DOC(nn_init_seed));
  m.def(
      "compute_fans",
      [](IntList shape) {
        auto fans = init::compute_fans(shape.v);
        return std::make_pair(fans.fan_in, fans.fan_out);
      },
      "shape"_a, DOC(nn_init_compute_fans));
  m.def(
      "constant", [](double v) { return make("constant(" + number(v) + ")", [&] { return init::constant(v); }); },
      "value"_a, DOC(nn_init_constant));
  m.def(
      "zeros", [] { return make("zeros()", [] { return init::zeros(); }); }, DOC(nn_init_zeros));
  m.def(
      "ones", [] { return make("ones()", [] { return init::ones(); }); }, DOC(nn_init_ones));
  m.def(
      "uniform",
      [](double lo, double hi) {
        return make("uniform(" + number(lo) + ", " + number(hi) + ")", [&] { return init::uniform(lo, hi); });
      },
      "low"_a = -0.05, "high"_a = 0.05, DOC(nn_init_uniform));
  m.def(
      "normal",
      [](double mean, double sd) {
        return make("normal(" + number(mean) + ", " + number(sd) + ")", [&] { return init::normal(mean, sd); });
      },
      "mean"_a = 0.0, "stddev"_a = 0.05, DOC(nn_init_normal));
  m.def(
      "truncated_normal",
      [](double mean, double sd) {
        return make("truncated_normal(" + number(mean) + ", " + number(sd) + ")",
                    [&] { return init::truncated_normal(mean, sd); });
      },
      "mean"_a = 0.0, "stddev"_a = 0.05, DOC(nn_init_truncated_normal));
  m.def(
      "orthogonal",
      [](double gain) { return make("orthogonal(" + number(gain) + ")", [&] { return init::orthogonal(gain); }); },
      "gain"_a = 1.0, DOC(nn_init_orthogonal));
  m.def(
      "variance_scaling",
      [](double scale, const std::string& mode, const std::string& dist) {
        return make("variance_scaling(" + number(scale) + ", '" + mode + "', '" + dist + "')",
                    [&] { return init::variance_scaling(scale, mode, dist); });
      },
      "scale"_a = 1.0, "mode"_a = "fan_in", "distribution"_a = "truncated_normal", DOC(nn_init_variance_scaling));
#define SYMX_NAMED_INIT(name, doc) \
  m.def(                           \
      #name, [] { return make(#name "()", [] { return init::name(); }); }, doc);
  SYMX_NAMED_INIT(glorot_uniform, DOC(nn_init_glorot_uniform))
  SYMX_NAMED_INIT(glorot_normal, DOC(nn_init_glorot_normal))
  SYMX_NAMED_INIT(he_uniform, DOC(nn_init_he_uniform))
  SYMX_NAMED_INIT(he_normal, DOC(nn_init_he_normal))
  SYMX_NAMED_INIT(lecun_uniform, DOC(nn_init_lecun_uniform))
  SYMX_NAMED_INIT(lecun_normal, DOC(nn_init_lecun_normal))
#undef SYMX_NAMED_INIT
}

std::string name_or(const std::optional<std::string>& name, const char* fallback) {
  return name ? *name : std::string(fallback);
}

void bind_conv_layers(nb::module_& m) {
  nb::class_<ly::Conv1D, ly::Layer>(m, "Conv1D", DOC(nn_layers_Conv1D))
      .def(
          "__init__",
          [](ly::Conv1D* self, std::int64_t filters, std::int64_t kernel_size, std::int64_t stride,
             symx::nn::Padding padding, std::int64_t dilation, std::int64_t groups, bool use_bias, nb::handle w_init,
             nb::handle b_init, std::optional<std::string> name) {
            ly::ConvOptions o{.strides = {stride},
                              .padding = padding,
                              .dilation = {dilation},
                              .groups = groups,
                              .use_bias = use_bias};
            o.w_init = initializer_from_python(w_init, o.w_init);
            o.b_init = initializer_from_python(b_init, o.b_init);
            o.name = name_or(name, "conv1d");
            new (self) ly::Conv1D(filters, kernel_size, std::move(o));
          },
          "filters"_a, "kernel_size"_a, "stride"_a = 1, "padding"_a = "VALID", "dilation"_a = 1, "groups"_a = 1,
          "use_bias"_a = true, "w_init"_a = nb::none(), "b_init"_a = nb::none(), "name"_a = nb::none());
  nb::class_<ly::Conv2D, ly::Layer>(m, "Conv2D", DOC(nn_layers_Conv2D))
      .def(
          "__init__",
          [](ly::Conv2D* self, std::int64_t filters, IntList kernel_size, IntList strides, symx::nn::Padding padding,
             IntList dilation, std::int64_t groups, bool use_bias, nb::handle w_init, nb::handle b_init,
             std::optional<std::string> name) {
            ly::ConvOptions o{.strides = strides.v,
                              .padding = padding,
                              .dilation = dilation.v,
                              .groups = groups,
                              .use_bias = use_bias};
            o.w_init = initializer_from_python(w_init, o.w_init);
            o.b_init = initializer_from_python(b_init, o.b_init);
            o.name = name_or(name, "conv2d");
            new (self) ly::Conv2D(filters, kernel_size.v, std::move(o));
          },
          "filters"_a, "kernel_size"_a, "strides"_a = 1, "padding"_a = "VALID", "dilation"_a = 1, "groups"_a = 1,
          "use_bias"_a = true, "w_init"_a = nb::none(), "b_init"_a = nb::none(), "name"_a = nb::none());
  nb::class_<ly::Conv2DTranspose, ly::Layer>(m, "Conv2DTranspose", DOC(nn_layers_Conv2DTranspose))
      .def(
          "__init__",
          [](ly::Conv2DTranspose* self, std::int64_t filters, IntList kernel_size, IntList strides,
             symx::nn::Padding padding, IntList output_padding, IntList dilation, std::int64_t groups, bool use_bias,
             nb::handle w_init, nb::handle b_init, std::optional<std::string> name) {
            ly::ConvTransposeOptions o{.strides = strides.v,
                                       .padding = padding,
                                       .output_padding = output_padding.v,
                                       .dilation = dilation.v,
                                       .groups = groups,
                                       .use_bias = use_bias};
            o.w_init = initializer_from_python(w_init, o.w_init);
            o.b_init = initializer_from_python(b_init, o.b_init);
            o.name = name_or(name, "conv2d_transpose");
            new (self) ly::Conv2DTranspose(filters, kernel_size.v, std::move(o));
          },
          "filters"_a, "kernel_size"_a, "strides"_a = 1, "padding"_a = "VALID", "output_padding"_a = 0,
          "dilation"_a = 1, "groups"_a = 1, "use_bias"_a = true, "w_init"_a = nb::none(), "b_init"_a = nb::none(),
          "name"_a = nb::none());
}

template <class Pool> void bind_pool(nb::module_& m, const char* name, const char* default_name, const char* doc) {
  nb::class_<Pool, ly::Layer>(m, name, doc)
      .def(
          "__init__",
          [default_name](Pool* self, IntList window, IntList strides, symx::nn::Padding padding,
                         std::optional<std::string> layer_name) {
            new (self) Pool(window.v, ly::PoolOptions{strides.v, padding, name_or(layer_name, default_name)});
          },
          "window"_a, "strides"_a = nb::none(), "padding"_a = "VALID", "name"_a = nb::none());
}

void bind_other_layers(nb::module_& m) {
  bind_pool<ly::MaxPool2D>(m, "MaxPool2D", "max_pool2d", DOC(nn_layers_MaxPool2D));
  bind_pool<ly::AvgPool2D>(m, "AvgPool2D", "avg_pool2d", DOC(nn_layers_AvgPool2D));
  nb::class_<ly::GlobalAvgPool2D, ly::Layer>(m, "GlobalAvgPool2D", DOC(nn_layers_GlobalAvgPool2D))
      .def(nb::init<bool, std::string>(), "keepdims"_a = false, "name"_a = "global_avg_pool2d");
  nb::class_<ly::Flatten, ly::Layer>(m, "Flatten", DOC(nn_layers_Flatten))
      .def(nb::init<std::string>(), "name"_a = "flatten");
  nb::class_<ly::Reshape, ly::Layer>(m, "Reshape", DOC(nn_layers_Reshape))
      .def(
          "__init__", [](ly::Reshape* self, IntList shape, std::string name) { new (self) ly::Reshape(shape.v, name); },
          "shape"_a, "name"_a = "reshape");
  nb::class_<ly::Activation, ly::Layer>(m, "Activation", DOC(nn_layers_Activation))
      .def(
          "__init__",
          [](ly::Activation* self, nb::handle function, std::optional<std::string> name) {
            if (PyUnicode_Check(function.ptr()))
              new (self) ly::Activation(nb::cast<std::string>(function), name.value_or(""));
            else new (self) ly::Activation(tensor_function(function), name.value_or("activation"));
          },
          "function"_a, "name"_a = nb::none());
  nb::class_<ly::Dropout, ly::Layer>(m, "Dropout", DOC(nn_layers_Dropout))
      .def(nb::init<double, std::string>(), "rate"_a, "name"_a = "dropout");
  nb::class_<ly::BatchNorm, ly::Layer>(m, "BatchNorm", DOC(nn_layers_BatchNorm))
      .def(
          "__init__",
          [](ly::BatchNorm* self, int axis, double momentum, double eps, bool affine, bool sync, std::string name) {
            new (self) ly::BatchNorm(ly::BatchNormOptions{axis, momentum, eps, affine, sync, name});
          },
          "axis"_a = 1, "momentum"_a = 0.1, "eps"_a = 1e-5, "affine"_a = true, "sync"_a = false,
          "name"_a = "batch_norm");
  nb::class_<ly::LayerNorm, ly::Layer>(m, "LayerNorm", DOC(nn_layers_LayerNorm))
      .def(
          "__init__",
          [](ly::LayerNorm* self, AxisList axes, double eps, bool affine, std::string name) {
            new (self) ly::LayerNorm(axes.v, eps, affine, name);
          },
          "axes"_a = -1, "eps"_a = 1e-5, "affine"_a = true, "name"_a = "layer_norm");
  nb::class_<ly::Embedding, ly::Layer>(m, "Embedding", DOC(nn_layers_Embedding))
      .def(
          "__init__",
          [](ly::Embedding* self, std::int64_t num, std::int64_t features, nb::handle w_init, symx::DType dtype,
             std::string name) {
            new (self) ly::Embedding(num, features, initializer_from_python(w_init, init::normal(0, 1)), dtype, name);
          },
          "num_embeddings"_a, "features"_a, "w_init"_a = nb::none(), "dtype"_a = symx::DType::f32,
          "name"_a = "embedding");
  nb::class_<ly::RandomCrop, ly::Layer>(m, "RandomCrop", DOC(nn_layers_RandomCrop))
      .def(
          "__init__",
          [](ly::RandomCrop* self, IntList size, std::int64_t padding, std::string name) {
            new (self) ly::RandomCrop(size.v, padding, name);
          },
          "size"_a, "padding"_a = 0, "name"_a = "random_crop");
  nb::class_<ly::RandomFlip, ly::Layer>(m, "RandomFlip", DOC(nn_layers_RandomFlip))
      .def(nb::init<bool, bool, std::string>(), "horizontal"_a = true, "vertical"_a = false, "name"_a = "random_flip");
  nb::class_<ly::Upsample2D, ly::Layer>(m, "Upsample2D", DOC(nn_layers_Upsample2D))
      .def(
          "__init__",
          [](ly::Upsample2D* self, IntList scale, std::string method, std::string name) {
            new (self) ly::Upsample2D(scale.v, method, name);
          },
          "scale"_a = 2, "method"_a = "nearest", "name"_a = "upsample2d");
  nb::class_<ly::Identity, ly::Layer>(m, "Identity", DOC(nn_layers_Identity))
      .def(nb::init<std::string>(), "name"_a = "identity");
  m.def(
      "create_variable",
      [](std::string name, nb::handle value, IntList shape, bool trainable, bool inplace, symx::DType dtype,
         nb::handle preprocessor) -> nb::object {
        if (value.is_none()) return nb::none();  // SymJAX: no value, no variable
        ly::VariableValue v;
        if (nb::isinstance<Tensor>(value)) v = nb::cast<Tensor>(value);
        else if (nb::isinstance<PyInitializer>(value) || PyCallable_Check(value.ptr()))
          v = initializer_from_python(value, {});
        else v = array_from_python_values(value);
        std::function<Tensor(const Tensor&)> pre;
        if (!preprocessor.is_none()) pre = tensor_function(preprocessor);
        PyLocation here;
        return nb::cast(ly::create_variable(name, v, shape.v, trainable, inplace, dtype, pre));
      },
      "name"_a, "tensor_or_func"_a.none(), "shape"_a, "trainable"_a, "inplace"_a = false, "dtype"_a = symx::DType::f32,
      "preprocessor"_a = nb::none(), DOC(nn_layers_create_variable));
}

void bind_layer_classes(nb::module_& m) {
  nb::class_<ly::Layer>(m, "Layer", DOC(nn_layers_Layer))
      .def(
          "__call__",
          [](ly::Layer& self, TensorArg x, bool training) {
            PyLocation here;
            return self(x.t, training);
          },
          "x"_a, "training"_a = false, DOC(nn_layers_Layer_call))
      .def("variables", &ly::Layer::variables, "trainable"_a = nb::none(), DOC(nn_layers_Layer_variables))
      .def_prop_ro("name", &ly::Layer::name, DOC(nn_layers_Layer_name))
      .def_prop_ro("built", &ly::Layer::built, DOC(nn_layers_Layer_built))
      .def("__repr__", [](nb::handle self) {
        const auto& layer = nb::cast<const ly::Layer&>(self);
        return "<symx.nn.layers." + nb::cast<std::string>(self.type().attr("__name__")) + " '" + layer.name() + "'>";
      });
  nb::class_<ly::Sequential, ly::Layer>(m, "Sequential", DOC(nn_layers_Sequential))
      .def(
          "__init__",
          [](ly::Sequential* self, nb::handle items, std::string name) {
            std::vector<std::shared_ptr<ly::Layer>> list;
            for (nb::handle item : items) {  // a plain Python function becomes an Activation layer
              if (nb::isinstance<ly::Layer>(item)) list.push_back(nb::cast<std::shared_ptr<ly::Layer>>(item));
              else list.push_back(std::make_shared<ly::Activation>(tensor_function(item), "activation"));
            }
            new (self) ly::Sequential(std::move(list), name);
          },
          "layers"_a, "name"_a = "sequential")
      .def_prop_ro("layers", &ly::Sequential::layers, DOC(nn_layers_Sequential_layers));
  nb::class_<ly::Dense, ly::Layer>(m, "Dense", DOC(nn_layers_Dense))
      .def(
          "__init__",
          [](ly::Dense* self, std::int64_t units, bool use_bias, nb::handle w_init, nb::handle b_init,
             std::string name) {
            ly::DenseOptions o{.use_bias = use_bias};
            o.w_init = initializer_from_python(w_init, o.w_init);
            o.b_init = initializer_from_python(b_init, o.b_init);
            o.name = std::move(name);
            new (self) ly::Dense(units, std::move(o));
          },
          "units"_a, "use_bias"_a = true, "w_init"_a = nb::none(), "b_init"_a = nb::none(), "name"_a = "dense");
}

// RNN, GRU and LSTM: RecurrentOptions as keywords, and call() returning PyTorch's tuples.
void bind_recurrent_layers(nb::module_& m) {
  nb::class_<ly::Recurrent, ly::Layer>(m, "Recurrent", DOC(nn_layers_Recurrent))
      .def(
          "call",
          [](ly::Recurrent& self, TensorArg x, std::optional<TensorArg> h0, std::optional<TensorArg> c0,
             std::optional<TensorArg> lengths, bool training) -> nb::object {
            PyLocation here;
            ly::RecurrentInputs inputs;
            if (h0) inputs.h0 = h0->t;
            if (c0) inputs.c0 = c0->t;
            if (lengths) inputs.lengths = lengths->t;
            ly::RecurrentOutputs out = self.call(x.t, inputs, training);
            if (out.c_n.defined()) return nb::make_tuple(out.output, nb::make_tuple(out.h_n, out.c_n));
            return nb::make_tuple(out.output, out.h_n);
          },
          "x"_a, "h0"_a = nb::none(), "c0"_a = nb::none(), "lengths"_a = nb::none(), "training"_a = false,
          DOC(nn_layers_Recurrent_call))
      .def_prop_ro("hidden_size", &ly::Recurrent::hidden_size, DOC(nn_layers_Recurrent_hidden_size))
      .def_prop_ro("num_layers", [](const ly::Recurrent& self) { return self.options().num_layers; })
      .def_prop_ro("bidirectional", [](const ly::Recurrent& self) { return self.options().bidirectional; })
      .def_prop_ro("batch_first", [](const ly::Recurrent& self) { return self.options().batch_first; });
  // The keywords of RecurrentOptions, in the header's order.
  auto options = [](std::int64_t num_layers, bool bidirectional, bool batch_first, double dropout, bool use_bias,
                    bool return_sequences, nb::handle w_init, nb::handle b_init, std::optional<std::string> name) {
    ly::RecurrentOptions o{.num_layers = num_layers,
                           .bidirectional = bidirectional,
                           .batch_first = batch_first,
                           .dropout = dropout,
                           .use_bias = use_bias,
                           .return_sequences = return_sequences};
    o.w_init = initializer_from_python(w_init, {});  // None: PyTorch's uniform(+-1/sqrt(hidden_size))
    o.b_init = initializer_from_python(b_init, {});
    o.name = name.value_or("");
    return o;
  };
  nb::class_<ly::RNN, ly::Recurrent>(m, "RNN", DOC(nn_layers_RNN))
      .def(
          "__init__",
          [options](ly::RNN* self, std::int64_t hidden_size, const std::string& nonlinearity, std::int64_t num_layers,
                    bool bidirectional, bool batch_first, double dropout, bool use_bias, bool return_sequences,
                    nb::handle w_init, nb::handle b_init, std::optional<std::string> name) {
            new (self) ly::RNN(hidden_size, nonlinearity,
                               options(num_layers, bidirectional, batch_first, dropout, use_bias, return_sequences,
                                       w_init, b_init, name));
          },
          "hidden_size"_a, "nonlinearity"_a = "tanh", "num_layers"_a = 1, "bidirectional"_a = false,
          "batch_first"_a = true, "dropout"_a = 0.0, "use_bias"_a = true, "return_sequences"_a = true,
          "w_init"_a = nb::none(), "b_init"_a = nb::none(), "name"_a = nb::none());
  auto bind_gated = [&]<class Cell>(const char* name, const char* doc) {
    nb::class_<Cell, ly::Recurrent>(m, name, doc)
        .def(
            "__init__",
            [options](Cell* self, std::int64_t hidden_size, std::int64_t num_layers, bool bidirectional,
                      bool batch_first, double dropout, bool use_bias, bool return_sequences, nb::handle w_init,
                      nb::handle b_init, std::optional<std::string> layer_name) {
              new (self) Cell(hidden_size, options(num_layers, bidirectional, batch_first, dropout, use_bias,
                                                   return_sequences, w_init, b_init, layer_name));
            },
            "hidden_size"_a, "num_layers"_a = 1, "bidirectional"_a = false, "batch_first"_a = true, "dropout"_a = 0.0,
            "use_bias"_a = true, "return_sequences"_a = true, "w_init"_a = nb::none(), "b_init"_a = nb::none(),
            "name"_a = nb::none());
  };
  bind_gated.operator()<ly::GRU>("GRU", DOC(nn_layers_GRU));
  bind_gated.operator()<ly::LSTM>("LSTM", DOC(nn_layers_LSTM));
}

}  // namespace

void bind_layers(nb::module_& nn) {
  nb::module_ init_module = nn.def_submodule("init", "Initializers: functions (shape, dtype) -> array for variables.");
  bind_init(init_module);
  nb::module_ layers = nn.def_submodule("layers", "Layers: own their variables, built at the first application.");
  bind_layer_classes(layers);
  bind_conv_layers(layers);
  bind_other_layers(layers);
  bind_recurrent_layers(layers);
}

// python/binding_nn.cpp: symx.nn: the engine's neural-network ops (symx/ops.hpp), the toolkit's
// activations (toolkit/include/symx/nn/activations.hpp) and the symx.nn.losses submodule.
#include "binding_common.hpp"
#include "symx/nn/activations.hpp"
#include "symx/nn/losses.hpp"

namespace {

void bind_losses(nb::module_& m) {
  namespace sl = symx::nn::losses;
  m.def("softmax_cross_entropy_loss", LOC(sl::softmax_cross_entropy_loss), "logits"_a, "labels"_a,
        "label_smoothing"_a = 0.0, "reduction"_a = "mean", DOC(nn_losses_softmax_cross_entropy_loss));
  m.def(
      "sigmoid_binary_cross_entropy_loss",
      [](TensorArg logits, TensorArg labels, std::optional<TensorArg> pos_weight, const std::string& reduction) {
        PyLocation here;
        symx::Tensor weight = pos_weight ? pos_weight->t : symx::Tensor();  // None: no weight
        return sl::sigmoid_binary_cross_entropy_loss(logits.t, labels.t, weight, reduction);
      },
      "logits"_a, "labels"_a, "pos_weight"_a = nb::none(), "reduction"_a = "mean",
      DOC(nn_losses_sigmoid_binary_cross_entropy_loss));
  m.def("mean_squared_error_loss", LOC(sl::mean_squared_error_loss), "predictions"_a, "targets"_a,
        "reduction"_a = "mean", DOC(nn_losses_mean_squared_error_loss));
  m.def("mean_absolute_error_loss", LOC(sl::mean_absolute_error_loss), "predictions"_a, "targets"_a,
        "reduction"_a = "mean", DOC(nn_losses_mean_absolute_error_loss));
  m.def("huber_loss", LOC(sl::huber_loss), "predictions"_a, "targets"_a, "delta"_a = 1.0, "reduction"_a = "mean",
        DOC(nn_losses_huber_loss));
  m.def("hinge_loss", LOC(sl::hinge_loss), "scores"_a, "labels"_a, "reduction"_a = "mean", DOC(nn_losses_hinge_loss));
  m.def("multiclass_hinge_loss", LOC(sl::multiclass_hinge_loss), "logits"_a, "labels"_a, "margin"_a = 1.0, "p"_a = 1,
        "reduction"_a = "mean", DOC(nn_losses_multiclass_hinge_loss));
  m.def("kl_divergence_loss", LOC(sl::kl_divergence_loss), "log_predictions"_a, "targets"_a, "log_target"_a = false,
        "reduction"_a = "mean", DOC(nn_losses_kl_divergence_loss));
  m.def("accuracy", LOC(sl::accuracy), "logits"_a, "labels"_a, DOC(nn_losses_accuracy));
  m.def("top_k_accuracy", LOC(sl::top_k_accuracy), "logits"_a, "labels"_a, "k"_a = 5, DOC(nn_losses_top_k_accuracy));
}

}  // namespace

void bind_nn(nb::module_& nn) {
  namespace snn = symx::nn;
  // The toolkit's activations (symx/nn/activations.hpp).
  nn.def("relu6", LOC(snn::relu6), "x"_a, DOC(nn_relu6));
  nn.def("silu", LOC(snn::silu), "x"_a, DOC(nn_silu));
  nn.def("swish", LOC(snn::swish), "x"_a, DOC(nn_swish));
  nn.def("hard_tanh", LOC(snn::hard_tanh), "x"_a, "min_value"_a = -1.0, "max_value"_a = 1.0, DOC(nn_hard_tanh));
  nn.def("selu", LOC(snn::selu), "x"_a, DOC(nn_selu));
  nn.def("celu", LOC(snn::celu), "x"_a, "alpha"_a = 1.0, DOC(nn_celu));
  nn.def("hard_sigmoid", LOC(snn::hard_sigmoid), "x"_a, DOC(nn_hard_sigmoid));
  nn.def("hard_silu", LOC(snn::hard_silu), "x"_a, DOC(nn_hard_silu));
  nn.def("hard_swish", LOC(snn::hard_swish), "x"_a, DOC(nn_hard_swish));
  nn.def("soft_sign", LOC(snn::soft_sign), "x"_a, DOC(nn_soft_sign));
  nn.def("log_sigmoid", LOC(snn::log_sigmoid), "x"_a, DOC(nn_log_sigmoid));
  nn.def("log_1_minus_sigmoid", LOC(snn::log_1_minus_sigmoid), "x"_a, DOC(nn_log_1_minus_sigmoid));
  nn.def("leaky_swish", LOC(snn::leaky_swish), "x"_a, "beta"_a, "negative_slope"_a = 1e-2, DOC(nn_leaky_swish));
  nn.def("glu", LOC(snn::glu), "x"_a, "axis"_a = -1, DOC(nn_glu));
  nn.def("normalize", LOC(snn::normalize), "x"_a, "ord"_a = 2.0, "axis"_a = -1, "eps"_a = 1e-12, DOC(nn_normalize));
  nb::module_ losses = nn.def_submodule("losses", "Losses (from logits where it applies) and metrics.");
  bind_losses(losses);
  // The engine's neural-network ops (symx/ops.hpp).
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
         "dilation"_a = nb::make_tuple(1, 1), "groups"_a = 1, DOC(nn_conv2d));
  nn.def("conv2d_transpose", LOC(snn::conv2d_transpose), "x"_a, "w"_a, "strides"_a = nb::make_tuple(1, 1),
         "padding"_a = "VALID", "output_padding"_a = nb::make_tuple(0, 0), "dilation"_a = nb::make_tuple(1, 1),
         "groups"_a = 1, DOC(nn_conv2d_transpose));
  nn.def("max_pool2d", LOC(snn::max_pool2d), "x"_a, "window"_a, "strides"_a = nb::none(), "padding"_a = "VALID",
         DOC(nn_max_pool2d));
  nn.def("avg_pool2d", LOC(snn::avg_pool2d), "x"_a, "window"_a, "strides"_a = nb::none(), "padding"_a = "VALID",
         DOC(nn_avg_pool2d));
}

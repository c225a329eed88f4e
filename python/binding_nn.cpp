// python/binding_nn.cpp: the toolkit's symx.nn additions (toolkit/include/symx/nn/).
#include "binding_common.hpp"
#include "symx/nn/activations.hpp"

void bind_nn(nb::module_& nn) {
  namespace snn = symx::nn;
  nn.def("relu6", LOC(snn::relu6), "x"_a, DOC(nn_relu6));
  nn.def("silu", LOC(snn::silu), "x"_a, DOC(nn_silu));
  nn.def("swish", LOC(snn::swish), "x"_a, DOC(nn_swish));
  nn.def("hard_tanh", LOC(snn::hard_tanh), "x"_a, "min_value"_a = -1.0, "max_value"_a = 1.0, DOC(nn_hard_tanh));
}

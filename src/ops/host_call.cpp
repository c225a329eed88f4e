// host_call: a function of the host program inside the graph (the spec, HostCallSpec, is in
// symx/ops.hpp). Its row lowers to the reference evaluation, so a compiled program runs it as a step
// of its own between kernels; the passes never fold it (OpDef::foldable), and fusion schedules an
// `early` call as soon as its inputs can be computed (codegen/fusion.cpp).
#include <string>

#include "ops/op_table.hpp"

namespace symx {
namespace ops {
namespace {

const HostCallSpec& spec_of(const Attr& attr) {
  const auto* a = std::get_if<HostCallAttr>(&attr);
  check_internal(a != nullptr && a->spec != nullptr, "host_call node without HostCallAttr");
  return *a->spec;
}

std::string type_string(const Shape& shape, DType dtype) {
  return std::string(dtype_name(dtype)) + " " + shape_string(shape);
}

// Where the user built the node, as " (built at file:line)", or nothing.
std::string built_at(const Node& node) { return node.where.empty() ? "" : " (built at " + node.where + ")"; }

TensorType infer_host(const std::vector<Tensor>& inputs, const Attr& attr) {
  std::vector<TensorType> types;
  types.reserve(inputs.size());
  for (const Tensor& t : inputs) types.push_back(t.type());
  return spec_of(attr).infer(types);
}

Array evaluate_host(const EvalArgs& args) {
  const HostCallSpec& spec = spec_of(args.node.attr);
  Array out = spec.compute(args.inputs);
  if (out.shape() != args.node.type.shape || out.dtype() != args.node.type.dtype)
    throw ValueError("host_call '" + spec.name + "'" + built_at(args.node) + " returned " +
                     type_string(out.shape(), out.dtype()) + " but its infer rule gave " +
                     type_string(args.node.type.shape, args.node.type.dtype) +
                     " for these inputs. Return an array of the type infer gives.");
  return out;
}

std::vector<Tensor> vjp_host(const Tensor& output, const Tensor& cotangent) {
  const HostCallSpec& spec = spec_of(output.node().attr);
  const auto& inputs = output.node().inputs;
  if (!spec.vjp)
    throw ValueError("grad: host_call '" + spec.name + "'" + built_at(output.node()) +
                     " has no gradient rule, and the gradient flows through it. Give its HostCallSpec a vjp, "
                     "or wrap its inputs in stop_gradient.");
  std::vector<Tensor> cotangents = spec.vjp(inputs, output, cotangent);
  if (cotangents.size() != inputs.size())
    throw ValueError("grad: the vjp of host_call '" + spec.name + "'" + built_at(output.node()) + " returned " +
                     std::to_string(cotangents.size()) + " cotangents for " + std::to_string(inputs.size()) +
                     " inputs. Return one per input (an undefined Tensor for none).");
  for (std::size_t k = 0; k < inputs.size(); ++k)
    if (cotangents[k].defined() && cotangents[k].type() != inputs[k].type())
      throw ValueError("grad: the vjp of host_call '" + spec.name + "'" + built_at(output.node()) + " returned " +
                       type_string(cotangents[k].shape(), cotangents[k].dtype()) + " for input " + std::to_string(k) +
                       ", which is " + type_string(inputs[k].shape(), inputs[k].dtype()) +
                       ". Return each cotangent with its input's shape and dtype.");
  return cotangents;
}

}  // namespace

void register_host_ops() {
  define(OpKind::HostCall, row(Family::host, kVariadic, Lowering::reference, infer_host, evaluate_host, vjp_host));
}

}  // namespace ops

Tensor host_call(HostCallSpec spec, std::vector<Tensor> inputs, Loc loc) {
  const std::string name = spec.name.empty() ? "host_call" : "host_call '" + spec.name + "'";
  if (!spec.compute || !spec.infer)
    throw ValueError(name + ": its spec has no " + std::string(!spec.compute ? "compute" : "infer") +
                     " function. Give both compute (the output's value) and infer (the output's type).");
  if (inputs.empty())
    throw ValueError(name + ": no inputs. Give it at least one input tensor (its value orders the call).");
  for (std::size_t k = 0; k < inputs.size(); ++k)
    if (!inputs[k].defined())
      throw ValueError(name + ": input " + std::to_string(k) + " is an undefined Tensor. Pass tensors of a graph.");
  std::string display = spec.name;
  Tensor t = ops::make_node(OpKind::HostCall, std::move(inputs),
                            HostCallAttr{std::make_shared<const HostCallSpec>(std::move(spec))}, loc, "host_call");
  return display.empty() ? t : named_composite(display, std::move(t));
}

}  // namespace symx

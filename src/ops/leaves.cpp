// Leaves: placeholders, variables and constants. They are built by tensor_builders.cpp, not make_node;
// their rows exist so that the table is complete and walkable.
#include "ops/op_table.hpp"

namespace symx::ops {

namespace {
TensorType leaf_infer(const std::vector<Tensor>&, const Attr&) {
  fail_value("leaves are built with placeholder(), variable() or constant()", "");
}
Array leaf_eval(const EvalArgs& args) {
  if (args.node.op == OpKind::Constant) return std::get<ConstantAttr>(args.node.attr).value;
  throw InternalError("a placeholder or variable reached the op evaluator");
}
}  // namespace

void register_leaf_ops() {
  for (OpKind op : {OpKind::Placeholder, OpKind::Variable, OpKind::Constant})
    define(op, row(Family::leaf, 0, Lowering::leaf, leaf_infer, leaf_eval, no_gradient));
}

}  // namespace symx::ops

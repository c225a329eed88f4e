// The builders that symx/tensor.hpp declares but that belong to the op layer: the leaves
// (placeholder, variable, constant: their shapes are checked, and errors name the user's line, as
// make_node does for every other node) and the Tensor methods that are ops.
#include "core/graph.hpp"
#include "ops/op_table.hpp"

namespace symx {

Tensor Tensor::astype(DType dtype, Loc loc) const { return symx::astype(*this, dtype, loc); }
Tensor Tensor::reshape(Shape shape, Loc loc) const { return symx::reshape(*this, std::move(shape), loc); }
Tensor Tensor::T(Loc loc) const { return symx::transpose(*this, {}, loc); }
Tensor Tensor::operator[](std::int64_t index) const { return symx::slice(*this, {Index(index)}); }

// ---- leaves ----

namespace {
Tensor make_leaf(OpKind op, TensorType type, std::string name, Attr attr, Loc loc,
                 std::shared_ptr<VariableState> state = nullptr) {
  auto node = std::make_shared<Node>();
  node->variable = std::move(state);
  node->op = op;
  node->type = std::move(type);
  node->attr = std::move(attr);
  node->name = std::move(name);
  node->where = ops::where_string(loc);
  default_graph().adopt(node);  // its id and scope
  return Tensor(std::move(node));
}

}  // namespace

Tensor placeholder(Shape shape, DType dtype, const std::string& name, Loc loc) {
  for (auto& d : shape)
    if (d == kDynamic) d = new_symbol();  // each unknown size its own symbol
  ops::check_user_shape(name.empty() ? "placeholder" : ("placeholder '" + name + "'").c_str(), shape, dtype, loc);
  Graph& g = default_graph();
  Tensor t = make_leaf(OpKind::Placeholder, {std::move(shape), dtype},
                       g.unique_name(name.empty() ? "placeholder" : name), NoAttr{}, loc);
  g.add_placeholder(t);
  return t;
}

Tensor variable(const Array& value, const std::string& name, bool trainable, Loc loc) {
  Graph& g = default_graph();
  auto state = detail::make_variable_state(value.copy(), trainable);
  // reset_variables restores the first value; sharing its storage costs one copy on the first update.
  state->initializer = [first = state->value](const Shape&, DType) { return first; };
  Tensor t = make_leaf(OpKind::Variable, {value.shape(), value.dtype()},
                       g.unique_name(name.empty() ? "variable" : name), NoAttr{}, loc, std::move(state));
  g.add_variable(t);
  return t;
}

Tensor variable(const Initializer& init, Shape shape, DType dtype, const std::string& name, bool trainable, Loc loc) {
  std::string what = name.empty() ? std::string("variable") : "variable '" + name + "'";
  if (!init)
    throw ValueError(what +
                     ": the initializer is empty. Pass a function of (shape, dtype), such as nn::init::zeros().");
  ops::check_user_shape(what.c_str(), shape, dtype, loc);
  Array value = init(shape, dtype);
  if (value.shape() != shape || value.dtype() != dtype)
    throw ValueError(what + ": the initializer returned a " + shape_string(value.shape()) + " " +
                     std::string(dtype_name(value.dtype())) + " array for a " + shape_string(shape) + " " +
                     std::string(dtype_name(dtype)) +
                     " variable. An initializer must return an array of the shape and dtype it is given.");
  Graph& g = default_graph();
  auto state = detail::make_variable_state(std::move(value), trainable);
  state->initializer = init;
  Tensor t = make_leaf(OpKind::Variable, {std::move(shape), dtype}, g.unique_name(name.empty() ? "variable" : name),
                       NoAttr{}, loc, std::move(state));
  g.add_variable(t);
  return t;
}

Tensor constant(const Array& value, Loc loc) {
  return make_leaf(OpKind::Constant, {value.shape(), value.dtype()}, "", ConstantAttr{value.copy()}, loc);
}

Tensor constant(double value, DType dtype, Loc loc) {
  Array a(Shape{}, dtype);
  a.set_flat(0, value);
  return constant(a, loc);
}

}  // namespace symx

#include "ops/op_table.hpp"

#include <array>

namespace symx {

const char* op_name(OpKind op) {
  static constexpr const char* names[] = {
#define SYMX_OP_NAME(kind, name) name,
      SYMX_OP_LIST(SYMX_OP_NAME)
#undef SYMX_OP_NAME
  };
  return names[static_cast<int>(op)];
}

int op_arity(OpKind op) { return ops::op_def(op).arity; }

namespace ops {
namespace {

std::array<OpDef, kNumOps>& table() {
  static std::array<OpDef, kNumOps> rows;
  return rows;
}

// Fills the table, then checks every row: an incomplete row is a symx bug that fails the first use
// of the table (every test) with the op and what it lacks, instead of a wrong result later.
struct Registration {
  Registration() {
    register_leaf_ops();
    register_unary_ops();
    register_binary_ops();
    register_reduce_ops();
    register_shape_ops();
    register_linalg_ops();
    register_nn_ops();
    register_random_ops();
    register_host_ops();
    register_control_flow_ops();
    register_special_ops();
    register_sorting_ops();
    register_indexing_ops();
    register_numpy_ops();
    register_arrays_ops();
    register_spectral_ops();
    register_complex_ops();
    register_fft_ops();
    // The ops that compute on complex numbers (NumPy's semantics; JAX's gradient convention). Their
    // rules handle std::complex elements; any other op given a complex operand is a DTypeError.
    using K = OpKind;
    for (OpKind k :
         {K::Placeholder, K::Variable,  K::Constant,     K::Negative,    K::Abs,   K::Exp,      K::Log,     K::Sqrt,
          K::Rsqrt,       K::Square,    K::Reciprocal,   K::Sin,         K::Cos,   K::Tan,      K::Tanh,    K::IsNan,
          K::IsFinite,    K::Cast,      K::StopGradient, K::Real,        K::Imag,  K::Conj,     K::Complex, K::Add,
          K::Subtract,    K::Multiply,  K::Divide,       K::Power,       K::Equal, K::NotEqual, K::Where,   K::Sum,
          K::Reshape,     K::Transpose, K::BroadcastTo,  K::Concatenate, K::Slice, K::Unslice,  K::Pad,     K::Take,
          K::ScatterAdd,  K::Matmul,    K::Fft})
      table()[static_cast<std::size_t>(k)].complex = true;
    std::string problems;
    for (int k = 0; k < kNumOps; ++k) {
      auto op = static_cast<OpKind>(k);
      for (const std::string& missing : missing_rules(op, table()[static_cast<std::size_t>(k)]))
        problems += std::string("\n  ") + op_name(op) + ": " + missing;
    }
    if (!problems.empty()) throw InternalError("the op table has incomplete rows:" + problems);
  }
};

std::string operand_list(const std::vector<Tensor>& operands) {
  std::string s;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (i) s += ", ";
    const Tensor& t = operands[i];
    if (!t.name().empty()) s += "'" + t.name() + "' ";
    s += shape_string(t.shape()) + " " + std::string(dtype_name(t.dtype()));
  }
  return s;
}

}  // namespace

const OpDef& op_def(OpKind op) {
  static Registration once;
  return table()[static_cast<std::size_t>(op)];
}

void define(OpKind op, OpDef def) {
  OpDef& row = table()[static_cast<std::size_t>(op)];
  if (row.defined) throw InternalError(std::string("op table: ") + op_name(op) + " is defined twice");
  row = def;
  row.defined = true;
}

std::vector<std::string> missing_rules(OpKind op, const OpDef& def) {
  std::vector<std::string> missing;
  if (!def.defined) {
    missing.push_back("no row: define(OpKind::" + std::string(op_name(op)) +
                      ", {...}) in its family's register_* function (src/ops/)");
    return missing;
  }
  const bool leaf = def.family == Family::leaf;
  if (def.arity < kVariadic || (def.arity == 0) != leaf)
    missing.push_back("arity (the number of inputs: 0 for a leaf only, kVariadic for any number)");
  if (!def.infer) missing.push_back("infer (the type rule)");
  if (!def.evaluate) missing.push_back("evaluate (the reference evaluation)");
  if (!def.vjp) missing.push_back("vjp (the vector-Jacobian rule; ops::no_gradient for an op without a gradient)");
  if ((def.lowering == Lowering::leaf) != leaf)
    missing.push_back("lowering (Lowering::leaf is for the leaf family and only it)");
  if ((def.family == Family::elementwise) && def.lowering != Lowering::kernel)
    missing.push_back("lowering (an elementwise op is computed inside kernels: Lowering::kernel)");
  if (def.random() && def.lowering != Lowering::reference)
    missing.push_back("lowering (a random draw runs the reference evaluation: Lowering::reference)");
  if (def.family == Family::host && def.lowering != Lowering::reference)
    missing.push_back("lowering (a host call runs the reference evaluation: Lowering::reference)");
  if (def.cheap && !def.fusible()) missing.push_back("cheap (only an op fused into kernels can be recomputed in them)");
  return missing;
}

void fail_shape(std::string problem, std::string fix) {
  throw TypeProblem{TypeProblem::Kind::shape, std::move(problem), std::move(fix)};
}
void fail_dtype(std::string problem, std::string fix) {
  throw TypeProblem{TypeProblem::Kind::dtype, std::move(problem), std::move(fix)};
}
void fail_value(std::string problem, std::string fix) {
  throw TypeProblem{TypeProblem::Kind::value, std::move(problem), std::move(fix)};
}

Shape known_sizes(const Shape& shape) {
  Shape known = shape;
  for (auto& d : known)
    if (is_symbol(d)) d = 1;
  return known;
}

void check_user_shape(const char* op, const Shape& shape, DType dtype, Loc loc) {
  if (std::string problem = shape_problem(known_sizes(shape), dtype); !problem.empty())
    raise(op, {},
          {TypeProblem::Kind::shape, problem,
           "Every dimension must be zero or more and the tensor must fit in 2^48 bytes."},
          loc);
}

void raise_at(const char* op, const std::vector<Tensor>& operands, const TypeProblem& problem,
              const std::string& where) {
  std::string message = std::string(op) + ": " + problem.problem;
  if (!operands.empty()) message += " (operands: " + operand_list(operands) + ")";
  if (!where.empty()) message += ", at " + where;
  message += ".";
  if (!problem.fix.empty()) message += " " + problem.fix;
  switch (problem.kind) {
    case TypeProblem::Kind::shape: throw ShapeError(message);
    case TypeProblem::Kind::dtype: throw DTypeError(message);
    case TypeProblem::Kind::value: throw ValueError(message);
  }
  throw ValueError(message);
}

void raise(const char* op, const std::vector<Tensor>& operands, const TypeProblem& problem, Loc loc) {
  raise_at(op, operands, problem, where_string(loc));
}

namespace {
// make_node and reinfer_node: infer and check the type, then build the node.
Tensor build_node(OpKind op, std::vector<Tensor> inputs, Attr attr, const std::string& where, const char* name,
                  std::string node_name = {}) {
  const OpDef& def = op_def(op);
  if (def.arity == kVariadic ? inputs.empty() : inputs.size() != static_cast<std::size_t>(def.arity))
    throw InternalError(std::string("make_node: ") + op_name(op) + " takes " +
                        (def.arity == kVariadic ? std::string("one or more") : std::to_string(def.arity)) +
                        " inputs, got " + std::to_string(inputs.size()));
  for (const auto& in : inputs) check_internal(in.defined(), "make_node: undefined input");
  const char* shown = name ? name : op_name(op);
  auto complex_unsupported = [&](DType dtype) {
    raise_at(shown, inputs,
             {TypeProblem::Kind::dtype,
              std::string("does not take ") + std::string(dtype_name(dtype)) + " operands (complex numbers reach " +
                  "exp, log, sqrt, the trigonometric functions, arithmetic, abs, sum, matmul, the shape ops and fft)",
              "Compute on the real and imaginary parts (real(z), imag(z)) or on abs(z) and angle(z), then combine "
              "them with complex(re, im)."},
             where);
  };
  if (!def.complex)
    for (const Tensor& in : inputs)
      if (is_complex(in.dtype())) complex_unsupported(in.dtype());
  TensorType type;
  try {
    type = def.infer(inputs, attr);
  } catch (const TypeProblem& problem) {
    raise_at(shown, inputs, problem, where);
  }
  if (!def.complex && is_complex(type.dtype)) complex_unsupported(type.dtype);
  // A size computed from an unknown one (x[1:] of a None axis: None - 1) is neither a size nor a
  // symbol: the op needs a size that only a call will tell.
  for (std::size_t i = 0; i < type.shape.size(); ++i)
    if (type.shape[i] < 0 && !is_symbol(type.shape[i]))
      raise_at(shown, inputs,
               {TypeProblem::Kind::shape,
                "the size of axis " + std::to_string(i) +
                    " of the result depends on a size that is unknown (None) until the function is called",
                "This op needs that size at build time: give the placeholder a fixed size on that axis, or "
                "reshape/slice only the known axes."},
               where);
  // Every op's result passes here, so no rule can build a tensor whose size overflows.
  if (std::string problem = shape_problem(known_sizes(type.shape), type.dtype); !problem.empty())
    raise_at(shown, inputs,
             {TypeProblem::Kind::shape, "the result " + problem,
              "Every tensor must fit in 2^48 bytes; check the operands' shapes for a wrong or overflowed dimension."},
             where);
  auto node = std::make_shared<Node>();
  node->op = op;
  node->inputs = std::move(inputs);
  node->attr = std::move(attr);
  node->type = std::move(type);
  node->where = where;
  node->name = std::move(node_name);
  default_graph().adopt(node);  // its id and scope
  return Tensor(std::move(node));
}
}  // namespace

Tensor make_node(OpKind op, std::vector<Tensor> inputs, Attr attr, Loc loc, const char* name) {
  return build_node(op, std::move(inputs), std::move(attr), where_string(loc), name);
}

Tensor reinfer_node(const Node& node, std::vector<Tensor> inputs, Attr attr) {
  Tensor t = build_node(node.op, std::move(inputs), std::move(attr), node.where, nullptr, node.name);
  const_cast<Node&>(t.node()).display = node.display;  // fresh: nobody else holds it yet
  return t;
}

Tensor rebuild_node(const Node& node, std::vector<Tensor> inputs) {
  auto fresh = std::make_shared<Node>(node);
  fresh->inputs = std::move(inputs);
  fresh->type = op_def(node.op).infer(fresh->inputs, fresh->attr);
  check_internal(fresh->type == node.type, "rebuild_node: new inputs changed the node's type");
  fresh->id = default_graph().next_node_id();
  return Tensor(std::move(fresh));
}

std::vector<Tensor> no_gradient(const Tensor& output, const Tensor&) {
  return std::vector<Tensor>(output.node().inputs.size());
}

int checked_axis(std::int64_t axis, int ndim, const char* what) {
  if (axis < -ndim || axis >= ndim)
    fail_shape(std::string(what) + " " + std::to_string(axis) + " is out of range for a tensor with " +
                   std::to_string(ndim) + " dimensions",
               ndim == 0 ? std::string("A 0-d tensor has no axes; omit the axis argument, or reshape it to 1-d first.")
                         : "Use an axis in [" + std::to_string(-ndim) + ", " + std::to_string(ndim) + ").");
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    std::int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    // An unknown size (symbol) meets 1, or another unknown size that a call checks when the function
    // specializes to the inputs' sizes. Meeting a fixed size, it could only ever be that size (or 1):
    // most often a tensor of a fixed batch (random.normal((32, 2))) mixed into a graph of any batch
    // size, which would fail later in a gradient's reshape the user never wrote; refused here.
    if (da != db && (is_symbol(da) || is_symbol(db))) {
      if (da != 1 && db != 1 && !(is_symbol(da) && is_symbol(db))) {
        const std::int64_t fixed = is_symbol(da) ? db : da;
        fail_shape("shapes " + shape_string(a) + " and " + shape_string(b) +
                       " cannot be broadcast together for every size: axis " + std::to_string(i) +
                       " is unknown until a call (None) in one and " + std::to_string(fixed) +
                       " in the other, which fits only calls where it is " + std::to_string(fixed),
                   "Build the other operand with the unknown size, e.g. random.normal(x.shape) or zeros(x.shape) "
                   "from the placeholder's tensor x (C++: x.shape()), or give the placeholder the fixed size " +
                       std::to_string(fixed) + ".");
      }
      out[i] = da == 1 ? db : db == 1 ? da : db;
      continue;
    }
    if (da != db && da != 1 && db != 1)
      fail_shape("shapes " + shape_string(a) + " and " + shape_string(b) + " cannot be broadcast together (axis " +
                     std::to_string(i) + ": " + std::to_string(da) + " vs " + std::to_string(db) + ")",
                 "Make the sizes equal or 1 on that axis, e.g. with reshape or expand_dims.");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Tensor scalar(double value, DType dtype) {
  Array a(Shape{}, dtype);
  a.set_flat(0, value);
  return constant(a);
}

std::vector<std::int64_t> contiguous_strides(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size());
  std::int64_t s = 1;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    strides[static_cast<std::size_t>(d)] = s;
    s *= shape[static_cast<std::size_t>(d)];
  }
  return strides;
}

std::vector<std::int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  std::vector<std::int64_t> strides(out.size(), 0);
  auto own = contiguous_strides(in);
  std::size_t offset = out.size() - in.size();
  for (std::size_t i = 0; i < in.size(); ++i) strides[offset + i] = in[i] == 1 ? 0 : own[i];
  return strides;
}

Tensor unbroadcast(const Tensor& cotangent, const Shape& shape) {
  if (cotangent.shape() == shape) return cotangent;
  const Shape& from = cotangent.shape();
  std::size_t lead = from.size() - shape.size();
  std::vector<int> axes;
  for (std::size_t i = 0; i < from.size(); ++i)
    if (i < lead || (shape[i - lead] == 1 && from[i] != 1)) axes.push_back(static_cast<int>(i));
  Tensor summed = axes.empty() ? cotangent : sum(cotangent, Axes(axes), true);
  return reshape(summed, shape);
}

}  // namespace ops

Tensor named_composite(const std::string& name, Tensor result) {
  // The caller's handle being the only one means the node was built by this call: an argument, or
  // any older node, is also held by the caller or by its users' inputs. It also means no one else
  // can see the write (nodes are shared only through handles). Ids would not tell: they restart
  // with reset_default_graph. make_node made the node non-const, so the const_cast is sound.
  if (result.defined() && result.node_ptr().use_count() == 1 && !name.empty() && name != op_name(result.op()))
    const_cast<Node&>(result.node()).display = name;
  return result;
}

}  // namespace symx

// The loop-nest IR (loop_ir.hpp): lowering a fused kernel to a plain loop nest, numbering its
// variables, and its text form.
#include "codegen/loop_ir.hpp"

#include <algorithm>
#include <sstream>
#include <unordered_map>

#include "codegen/schedule.hpp"
#include "ops/op_table.hpp"

namespace symx::codegen::ir {

Index Index::constant(std::int64_t v) {
  Index i;
  i.kind = Kind::constant;
  i.value = v;
  return i;
}

Index Index::variable(VarId v) {
  Index i;
  i.kind = Kind::var;
  i.var = v;
  return i;
}

Index Index::binary(Kind kind, Index a, Index b) {
  Index i;
  i.kind = kind;
  i.args = {std::move(a), std::move(b)};
  return i;
}

std::string LoopKernel::name_of(VarId v) const {
  const Var& var = vars.at(static_cast<std::size_t>(v));
  if (!var.numbered) return var.name;
  return var.name + (var.number < 0 ? "?" + std::to_string(v) : std::to_string(var.number));
}

Index substitute(const Index& index, VarId from, const Index& to) {
  if (index.kind == Index::Kind::var && index.var == from) return to;
  Index r = index;
  for (Index& a : r.args) a = substitute(a, from, to);
  return r;
}

namespace {

using IK = Index::Kind;

Index add(Index a, Index b) { return Index::binary(IK::add, std::move(a), std::move(b)); }
Index mul(Index a, Index b) { return Index::binary(IK::mul, std::move(a), std::move(b)); }

// A key naming an index expression by its variables' ids (names are given only at the end).
void key_of(const Index& i, std::string& out) {
  switch (i.kind) {
    case IK::constant: out += std::to_string(i.value); return;
    case IK::var: out += "%" + std::to_string(i.var); return;
    case IK::piece_extent:
      out += "piece(%" + std::to_string(i.var) + "," + std::to_string(i.pieces) + "," + std::to_string(i.value) + "," +
             std::to_string(i.last) + ")";
      return;
    case IK::add:
    case IK::mul:
    case IK::div:
    case IK::mod:
      out += "(";
      key_of(i.args[0], out);
      out += i.kind == IK::add ? "+" : i.kind == IK::mul ? "*" : i.kind == IK::div ? "/" : "%";
      key_of(i.args[1], out);
      out += ")";
      return;
  }
}

// Index expressions of a node's input given the node's own index expressions.
std::vector<Index> broadcast_vars(const Shape& in, const Shape& out, const std::vector<Index>& vars) {
  std::vector<Index> r(in.size());
  std::size_t lead = out.size() - in.size();
  for (std::size_t d = 0; d < in.size(); ++d) r[d] = in[d] == 1 ? Index::constant(0) : vars[d + lead];
  return r;
}

// The flat offset of an element of a row-major buffer: one term per axis that moves.
std::vector<Index> offset_of(const Shape& shape, const std::vector<Index>& vars) {
  auto strides = ops::contiguous_strides(shape);
  std::vector<Index> terms;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1 || vars[d].is_zero()) continue;
    terms.push_back(strides[d] == 1 ? vars[d] : mul(vars[d], Index::constant(strides[d])));
  }
  return terms;
}

Expr cast(DType dtype, Expr e) {
  Expr c;
  c.kind = Expr::Kind::cast;
  c.dtype = dtype;
  c.args.push_back(std::move(e));
  return c;
}

Expr local(VarId v, DType dtype) {
  Expr e;
  e.kind = Expr::Kind::local;
  e.var = v;
  e.dtype = dtype;
  return e;
}

Stmt loop(VarId var, Index extent, Stmt::Role role) {
  Stmt s;
  s.kind = Stmt::Kind::loop;
  s.var = var;
  s.extent = std::move(extent);
  s.role = role;
  return s;
}

Stmt let_index(VarId var, Index value) {
  Stmt s;
  s.kind = Stmt::Kind::let_index;
  s.var = var;
  s.index = std::move(value);
  return s;
}

class Lowering {
 public:
  explicit Lowering(const Kernel& k) : k_(k) {
    for (std::size_t j = 0; j < k.loads.size(); ++j) load_index_[&k.loads[j].node()] = static_cast<int>(j);
  }

  LoopKernel run() {
    const Tensor& root = k_.root;
    ir_.name = k_.name;
    for (const Tensor& t : k_.loads) ir_.inputs.push_back({t.dtype(), t.shape()});
    ir_.output = {root.dtype(), root.shape()};
    // An in-place kernel reads and writes one buffer.
    ir_.no_alias = !k_.in_place;
    block_ = &ir_.body;
    if (root.op() == OpKind::SoftmaxCrossEntropy || root.op() == OpKind::SoftmaxCrossEntropyGrad) {
      row_call();
      return std::move(ir_);
    }
    const Shape& shape = root.shape();
    if (num_elements(shape) == 0) return std::move(ir_);
    const std::int64_t inner = shape.empty() ? 1 : shape.back();
    const std::int64_t outer = num_elements(shape) / std::max<std::int64_t>(inner, 1);
    // parallel for o < outer: q = o / 1 (the row); i<d> its index along each leading axis
    const VarId o = ir_.add_var({.name = "o"});
    const VarId q = ir_.add_var({.name = "q"});
    Stmt rows = loop(o, Index::constant(outer), Stmt::Role::rows);
    rows.parallel = Parallel{.work = num_elements(shape)};
    rows.body.push_back(let_index(q, Index::binary(IK::div, Index::variable(o), Index::constant(1))));
    std::vector<Index> vars(shape.size());
    std::int64_t div = 1;
    for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) {
      const VarId i = ir_.add_var({.name = "i" + std::to_string(d)});
      rows.body.push_back(
          let_index(i, Index::binary(IK::mod, Index::binary(IK::div, Index::variable(q), Index::constant(div)),
                                     Index::constant(shape[static_cast<std::size_t>(d)]))));
      vars[static_cast<std::size_t>(d)] = Index::variable(i);
      div *= shape[static_cast<std::size_t>(d)];
    }
    const VarId j = ir_.add_var({.name = "j"});
    if (!shape.empty()) vars.back() = Index::variable(j);
    Stmt columns = loop(j, Index::constant(inner), Stmt::Role::columns);
    block_ = &columns.body;
    Expr value = lower_node(root, vars);
    Stmt store;
    store.kind = Stmt::Kind::store;
    store.offset = {mul(Index::variable(q), Index::constant(inner)), Index::variable(j)};
    store.value = std::move(value);
    columns.body.push_back(std::move(store));
    rows.body.push_back(std::move(columns));
    ir_.body.push_back(std::move(rows));
    return std::move(ir_);
  }

 private:
  const Kernel& k_;
  LoopKernel ir_;
  std::unordered_map<const Node*, int> load_index_;
  // Inlined nodes already computed at an index, per scope (a reduction's body is a scope).
  std::vector<std::unordered_map<std::string, Expr>> memo_{{}};
  std::vector<Stmt>* block_ = nullptr;

  // One call of a row kernel of kernel_rows.hpp over the node's operands.
  void row_call() {
    const Node& node = k_.root.node();
    const Tensor& x = node.inputs[0];
    ops::AxisSplit split = ops::split_at(x.shape(), std::get<AxisAttr>(node.attr).axis);
    Stmt call;
    call.kind = Stmt::Kind::call;
    call.callee = node.op == OpKind::SoftmaxCrossEntropy ? "softmax_xent" : "softmax_xent_grad";
    call.call_dtype = x.dtype();
    call.contiguous = split.inner == 1;
    for (const Tensor& in : node.inputs) call.inputs.push_back(load_index_.at(&in.node()));
    call.sizes = {split.outer, split.n, split.inner};
    ir_.body.push_back(std::move(call));
  }

  Expr fresh(Expr value, DType dtype) {
    const VarId v = ir_.add_var({.name = "v", .numbered = true, .dtype = dtype});
    Stmt s;
    s.kind = Stmt::Kind::define;
    s.var = v;
    s.value = std::move(value);
    block_->push_back(std::move(s));
    return local(v, dtype);
  }

  Expr lower_node(const Tensor& n, const std::vector<Index>& vars) {
    const Node& node = n.node();
    bool materialized = !(n == k_.root) && !k_.inlined.count(&node);
    if (materialized) {
      Expr e;
      e.dtype = n.dtype();
      if (node.op == OpKind::Constant && n.size() == 1 && !is_complex(n.dtype())) {
        e.kind = Expr::Kind::literal;
        e.value = std::get<ConstantAttr>(node.attr).value.get_flat(0);
        return e;
      }
      e.kind = Expr::Kind::load;
      e.buffer = load_index_.at(&node);
      e.offset = offset_of(n.shape(), vars);
      return e;
    }
    std::string key = std::to_string(n.id());
    for (const auto& v : vars) {
      key += ",";
      key_of(v, key);
    }
    for (auto it = memo_.rbegin(); it != memo_.rend(); ++it)
      if (auto found = it->find(key); found != it->end()) return found->second;
    Expr result = lower_op(n, vars);
    memo_.back()[key] = result;
    return result;
  }

  // What a node lowers to follows its op's family in the op table: every elementwise op is an
  // op expression over its operands (spelled by the emitter); the fused reductions are accumulator
  // loops; the views are index arithmetic. Families that kernels never compute inline (their rows'
  // lowering is not Lowering::kernel) do not reach here.
  Expr lower_op(const Tensor& n, const std::vector<Index>& vars) {
    const Node& node = n.node();
    switch (ops::op_def(node.op).family) {
      case ops::Family::elementwise: {
        // stop_gradient is the identity in a kernel: its operand, read at the same index.
        if (node.op == OpKind::StopGradient)
          return lower_node(node.inputs[0], broadcast_vars(node.inputs[0].shape(), n.shape(), vars));
        Expr e;
        e.kind = Expr::Kind::op;
        e.op = node.op;
        e.dtype = n.dtype();
        for (const auto& in : node.inputs)
          e.args.push_back(lower_node(in, broadcast_vars(in.shape(), n.shape(), vars)));
        e.in = node.inputs.empty() ? n.dtype() : node.inputs.back().dtype();
        return fresh(std::move(e), n.dtype());
      }
      case ops::Family::reduction:
        if (ops::op_def(node.op).fused_reduction()) return lower_reduction(n, vars);
        break;
      case ops::Family::shape:
        if (node.op == OpKind::BroadcastTo)
          return lower_node(node.inputs[0], broadcast_vars(node.inputs[0].shape(), n.shape(), vars));
        if (node.op == OpKind::Transpose) {
          const auto& perm = std::get<PermAttr>(node.attr).perm;
          std::vector<Index> in_vars(perm.size());
          for (std::size_t d = 0; d < perm.size(); ++d) in_vars[static_cast<std::size_t>(perm[d])] = vars[d];
          return lower_node(node.inputs[0], in_vars);
        }
        if (node.op == OpKind::Slice) {
          const auto& s = std::get<SliceAttr>(node.attr);
          std::vector<Index> in_vars(vars.size());
          for (std::size_t d = 0; d < vars.size(); ++d)
            in_vars[d] = (s.start[d] == 0 && s.step[d] == 1)
                             ? vars[d]
                             : add(Index::constant(s.start[d]), mul(Index::constant(s.step[d]), vars[d]));
          return lower_node(node.inputs[0], in_vars);
        }
        // A shape op whose row says Lowering::kernel needs its index arithmetic here.
        break;
      case ops::Family::leaf:
      case ops::Family::linalg:
      case ops::Family::nn:
      case ops::Family::random:
      case ops::Family::host:
      case ops::Family::control: break;
    }
    throw InternalError(std::string("lower: op ") + op_name(node.op) +
                        " cannot be computed inside a kernel (its row's lowering is not Lowering::kernel, or "
                        "src/codegen/loop_ir.cpp has no lowering for this view)");
  }

  // An accumulator, zeroed before loops over the reduced axes that add each element. float32 sums
  // and products accumulate in double, as the reference evaluator does: long float32 sums would
  // otherwise lose digits. Float max and min keep a flag that a NaN was seen (the comparison that
  // updates them skips NaN, which vectorizes); the result is then NaN, as in the reference.
  Expr lower_reduction(const Tensor& n, const std::vector<Index>& vars) {
    const Node& node = n.node();
    const Tensor& x = node.inputs[0];
    const auto& attr = std::get<ReduceAttr>(node.attr);
    const bool wide = n.dtype() == DType::f32 && (node.op == OpKind::Sum || node.op == OpKind::Prod);
    const bool extremum = node.op == OpKind::Max || node.op == OpKind::Min;
    const DType acc_type = wide ? DType::f64 : n.dtype();
    const VarId acc =
        ir_.add_var({.name = "acc", .numbered = true, .dtype = acc_type, .reduce = node.op, .result = n.dtype()});
    if (is_floating(n.dtype()) && extremum)
      ir_.vars[static_cast<std::size_t>(acc)].nan = ir_.add_var({.name = "nan", .numbered = true, .dtype = DType::i32});
    Stmt declare;
    declare.kind = Stmt::Kind::acc_declare;
    declare.var = acc;
    block_->push_back(std::move(declare));
    std::vector<Index> in_vars(x.shape().size());
    std::size_t kept = 0;
    std::vector<std::vector<Stmt>*> outer_blocks;
    for (std::size_t d = 0; d < x.shape().size(); ++d) {
      bool reduced = std::find(attr.axes.begin(), attr.axes.end(), static_cast<int>(d)) != attr.axes.end();
      if (!reduced) {
        in_vars[d] = attr.keepdims ? vars[d] : vars[kept];
        ++kept;
        continue;
      }
      const VarId r = ir_.add_var({.name = "r", .numbered = true, .axis = static_cast<int>(d)});
      in_vars[d] = Index::variable(r);
      Stmt l = loop(r, Index::constant(x.shape()[d]), Stmt::Role::reduce);
      l.reduces = acc;
      l.last_reduced_axis = static_cast<int>(d) == attr.axes.back();
      block_->push_back(std::move(l));
      outer_blocks.push_back(block_);
      block_ = &block_->back().body;
    }
    memo_.emplace_back();
    Expr value = cast(acc_type, lower_node(x, in_vars));
    if (extremum) {  // read once, compared and flagged
      const VarId e = ir_.add_var({.name = "e", .numbered = true, .dtype = acc_type});
      Stmt s;
      s.kind = Stmt::Kind::define;
      s.var = e;
      s.value = std::move(value);
      block_->push_back(std::move(s));
      value = local(e, acc_type);
    }
    Stmt update;
    update.kind = Stmt::Kind::acc_update;
    update.var = acc;
    update.value = std::move(value);
    block_->push_back(std::move(update));
    memo_.pop_back();
    if (!outer_blocks.empty()) block_ = outer_blocks.front();
    Expr result;
    result.kind = Expr::Kind::result;
    result.var = acc;
    result.dtype = n.dtype();
    return result;
  }
};

void number_block(std::vector<Stmt>& body, LoopKernel& k, int& next) {
  auto number = [&](VarId v) {
    Var& var = k.vars[static_cast<std::size_t>(v)];
    if (var.numbered) var.number = next++;
  };
  for (Stmt& s : body) {
    switch (s.kind) {
      case Stmt::Kind::loop:
        number(s.var);
        number_block(s.body, k, next);
        break;
      case Stmt::Kind::define: number(s.var); break;
      case Stmt::Kind::acc_declare:
        number(s.var);
        if (VarId nan = k.vars[static_cast<std::size_t>(s.var)].nan; nan >= 0) number(nan);
        break;
      case Stmt::Kind::let_index:
      case Stmt::Kind::acc_reset:
      case Stmt::Kind::acc_update:
      case Stmt::Kind::store:
      case Stmt::Kind::call: break;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Text form.

class Printer {
 public:
  explicit Printer(const LoopKernel& k) : k_(k) {}

  std::string index(const Index& i, bool nested = false) const {
    switch (i.kind) {
      case IK::constant: return std::to_string(i.value);
      case IK::var: return k_.name_of(i.var);
      case IK::piece_extent:
        return "(" + k_.name_of(i.var) + " + 1 < " + std::to_string(i.pieces) + " ? " + std::to_string(i.value) +
               " : " + std::to_string(i.last) + ")";
      case IK::mul: return index(i.args[0], true) + " * " + index(i.args[1], true);
      case IK::add:
      case IK::div:
      case IK::mod: {
        const char* op = i.kind == IK::add ? " + " : i.kind == IK::div ? " / " : " % ";
        std::string s = index(i.args[0], true) + op + index(i.args[1], true);
        return nested ? "(" + s + ")" : s;
      }
    }
    return "?";
  }

  std::string offset(const std::vector<Index>& terms) const {
    std::string s;
    for (const Index& t : terms) s += (s.empty() ? "" : " + ") + index(t, true);
    return s.empty() ? "0" : s;
  }

  std::string acc(VarId v, const std::optional<Index>& at) const {
    return k_.name_of(v) + (at ? "[" + index(*at) + "]" : "");
  }

  std::string expr(const Expr& e) const {
    switch (e.kind) {
      case Expr::Kind::load: return "in" + std::to_string(e.buffer) + "[" + offset(e.offset) + "]";
      case Expr::Kind::literal: {
        std::ostringstream os;
        os << e.value << ":" << dtype_name(e.dtype);
        return os.str();
      }
      case Expr::Kind::local: return k_.name_of(e.var);
      case Expr::Kind::op: {
        std::string s = std::string(op_name(e.op)) + "<" + std::string(dtype_name(e.dtype));
        if (e.in != e.dtype) s += " of " + std::string(dtype_name(e.in));
        s += ">(";
        for (std::size_t a = 0; a < e.args.size(); ++a) s += (a ? ", " : "") + expr(e.args[a]);
        return s + ")";
      }
      case Expr::Kind::cast: return std::string(dtype_name(e.dtype)) + "(" + expr(e.args[0]) + ")";
      case Expr::Kind::result: return "result(" + acc(e.var, e.at) + ")";
    }
    return "?";
  }

  void block(const std::vector<Stmt>& body, int indent, std::ostringstream& os) const {
    const std::string pad(static_cast<std::size_t>(indent), ' ');
    for (const Stmt& s : body) {
      switch (s.kind) {
        case Stmt::Kind::loop: {
          os << pad << "for " << k_.name_of(s.var) << " < " << index(s.extent);
          if (s.parallel) {
            os << " parallel(" << (s.parallel->schedule == Parallel::Schedule::dynamic ? "dynamic" : "static");
            if (s.parallel->piece > 0) os << " " << s.parallel->piece;
            os << ", work " << s.parallel->work << " > " << s.parallel->min_work << ")";
          }
          if (s.vector) {
            os << " vector";
            for (VarId r : s.reductions) {
              const Var& a = k_.vars[static_cast<std::size_t>(r)];
              os << " reduce(" << op_name(a.reduce) << " " << k_.name_of(r);
              if (a.nan >= 0) os << ", or " << k_.name_of(a.nan);
              os << ")";
            }
          }
          os << ":\n";
          block(s.body, indent + 2, os);
          break;
        }
        case Stmt::Kind::let_index: os << pad << k_.name_of(s.var) << " = " << index(s.index) << "\n"; break;
        case Stmt::Kind::define:
          os << pad << k_.name_of(s.var) << ": " << dtype_name(k_.vars[static_cast<std::size_t>(s.var)].dtype) << " = "
             << expr(s.value) << "\n";
          break;
        case Stmt::Kind::acc_declare: {
          const Var& a = k_.vars[static_cast<std::size_t>(s.var)];
          os << pad << k_.name_of(s.var);
          if (a.size > 0) os << "[" << a.size << "]";
          os << ": " << op_name(a.reduce) << " in " << dtype_name(a.dtype) << " -> " << dtype_name(a.result);
          if (a.nan >= 0) os << ", nan flag " << k_.name_of(a.nan);
          os << "\n";
          break;
        }
        case Stmt::Kind::acc_reset: os << pad << "reset " << acc(s.var, s.at) << "\n"; break;
        case Stmt::Kind::acc_update: os << pad << acc(s.var, s.at) << " <- " << expr(s.value) << "\n"; break;
        case Stmt::Kind::store: os << pad << "out[" << offset(s.offset) << "] = " << expr(s.value) << "\n"; break;
        case Stmt::Kind::call: {
          os << pad << "call " << s.callee << "<" << dtype_name(s.call_dtype) << (s.contiguous ? ", contiguous" : "")
             << ">(";
          for (int in : s.inputs) os << "in" << in << ", ";
          os << "out";
          for (std::int64_t n : s.sizes) os << ", " << n;
          os << ")\n";
          break;
        }
      }
    }
  }

 private:
  const LoopKernel& k_;
};

std::string buffer_text(const Buffer& b) {
  std::string s = std::string(dtype_name(b.dtype)) + "[";
  for (std::size_t d = 0; d < b.shape.size(); ++d) s += (d ? "," : "") + std::to_string(b.shape[d]);
  return s + "]";
}

}  // namespace

LoopKernel lower(const Kernel& kernel) { return Lowering(kernel).run(); }

void number_vars(LoopKernel& kernel) {
  int next = 0;
  number_block(kernel.body, kernel, next);
}

LoopKernel build(const Kernel& kernel) {
  LoopKernel k = lower(kernel);
  schedule(k, kernel);
  number_vars(k);
  return k;
}

std::string to_text(const Index& index, const LoopKernel& kernel) { return Printer(kernel).index(index); }

std::string to_text(const LoopKernel& kernel) {
  std::ostringstream os;
  os << "kernel " << kernel.name << "(";
  for (std::size_t j = 0; j < kernel.inputs.size(); ++j)
    os << "in" << j << ": " << buffer_text(kernel.inputs[j]) << ", ";
  os << "out: " << buffer_text(kernel.output) << ")" << (kernel.no_alias ? "" : " in-place") << ":\n";
  Printer(kernel).block(kernel.body, 2, os);
  return os.str();
}

}  // namespace symx::codegen::ir

// The C++ emitter: the one place that spells C++. Renders each kernel of a fusion plan as a loop
// nest over its output (parallel outer loop, vectorizable inner loop) whose body evaluates the
// inlined expression tree, with nested loops for inlined reductions.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <unordered_map>

#include "codegen/kernel.hpp"
#include "ops/op_table.hpp"

namespace symx::codegen {
namespace {

const char* ctype(DType dtype) {
  switch (dtype) {
    case DType::b8: return "bool";
    case DType::u8: return "std::uint8_t";
    case DType::i32: return "std::int32_t";
    case DType::i64: return "std::int64_t";
    case DType::f32: return "float";
    case DType::f64: return "double";
  }
  return "void";
}

std::string literal(double v, DType dtype) {
  const std::string t = ctype(dtype);
  if (dtype == DType::b8) return v != 0 ? "true" : "false";
  if (!is_floating(dtype)) return "static_cast<" + t + ">(INT64_C(" + std::to_string(static_cast<std::int64_t>(v)) + "))";
  if (std::isnan(v)) return "std::numeric_limits<" + t + ">::quiet_NaN()";
  if (std::isinf(v)) return std::string(v < 0 ? "-" : "") + "std::numeric_limits<" + t + ">::infinity()";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return "static_cast<" + t + ">(" + buf + ")";
}

// The C++ expression of an elementwise op over argument expressions; `in` is the operands' dtype.
std::string spell(OpKind op, const std::vector<std::string>& a, DType out, DType in) {
  const std::string T = ctype(out);
  auto call = [](const char* f, const std::vector<std::string>& args) {
    std::string s = std::string("symx_kernel::") + f + "(";
    for (std::size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
    return s + ")";
  };
  switch (op) {
    case OpKind::Negative: return "static_cast<" + T + ">(-" + a[0] + ")";
    case OpKind::Abs: return in == DType::b8 || in == DType::u8 ? a[0] : "(" + a[0] + " < 0 ? static_cast<" + T + ">(-" + a[0] + ") : " + a[0] + ")";
    case OpKind::Sign: return call("sign", a);
    case OpKind::Exp: return call("exp", a);
    case OpKind::Expm1: return call("expm1", a);
    case OpKind::Log: return call("log", a);
    case OpKind::Log1p: return call("log1p", a);
    case OpKind::Sqrt: return call("sqrt", a);
    case OpKind::Rsqrt: return call("rsqrt", a);
    case OpKind::Square: return in == DType::b8 ? a[0] : "static_cast<" + T + ">(" + a[0] + " * " + a[0] + ")";
    case OpKind::Reciprocal: return "(static_cast<" + T + ">(1) / " + a[0] + ")";
    case OpKind::Sin: return call("sin", a);
    case OpKind::Cos: return call("cos", a);
    case OpKind::Tan: return call("tan", a);
    case OpKind::Tanh: return call("tanh", a);
    case OpKind::Arctan: return call("atan", a);
    case OpKind::Sigmoid: return call("sigmoid", a);
    case OpKind::Erf: return call("erf", a);
    case OpKind::Floor: return call("floor", a);
    case OpKind::Ceil: return call("ceil", a);
    case OpKind::Round: return call("round", a);
    case OpKind::LogicalNot: return "(!" + a[0] + ")";
    case OpKind::BitwiseNot: return in == DType::b8 ? "(!" + a[0] + ")" : "static_cast<" + T + ">(~" + a[0] + ")";
    case OpKind::IsNan: return is_floating(in) ? "(" + a[0] + " != " + a[0] + ")" : "false";
    case OpKind::IsFinite: return is_floating(in) ? "(" + a[0] + " - " + a[0] + " == 0)" : "true";
    case OpKind::Cast: return "symx_kernel::convert<" + T + ">(" + a[0] + ")";
    case OpKind::StopGradient: return a[0];
    case OpKind::Add: return "static_cast<" + T + ">(" + a[0] + " + " + a[1] + ")";
    case OpKind::Subtract: return "static_cast<" + T + ">(" + a[0] + " - " + a[1] + ")";
    case OpKind::Multiply: return in == DType::b8 ? "(" + a[0] + " && " + a[1] + ")" : "static_cast<" + T + ">(" + a[0] + " * " + a[1] + ")";
    case OpKind::Divide: return "(" + a[0] + " / " + a[1] + ")";
    case OpKind::Power: return is_floating(in) ? call("pow", a) : call("ipow", a);
    case OpKind::Maximum: return call("maximum", a);
    case OpKind::Minimum: return call("minimum", a);
    case OpKind::Mod: return call("mod", a);
    case OpKind::Arctan2: return call("atan2", a);
    case OpKind::Equal: return "(" + a[0] + " == " + a[1] + ")";
    case OpKind::NotEqual: return "(" + a[0] + " != " + a[1] + ")";
    case OpKind::Less: return "(" + a[0] + " < " + a[1] + ")";
    case OpKind::LessEqual: return "(" + a[0] + " <= " + a[1] + ")";
    case OpKind::Greater: return "(" + a[0] + " > " + a[1] + ")";
    case OpKind::GreaterEqual: return "(" + a[0] + " >= " + a[1] + ")";
    case OpKind::LogicalAnd: return "(static_cast<bool>(" + a[0] + ") && static_cast<bool>(" + a[1] + "))";
    case OpKind::LogicalOr: return "(static_cast<bool>(" + a[0] + ") || static_cast<bool>(" + a[1] + "))";
    case OpKind::FloorDivide: return call("floor_divide", a);
    case OpKind::BitwiseAnd: return "static_cast<" + T + ">(" + a[0] + " & " + a[1] + ")";
    case OpKind::BitwiseOr: return "static_cast<" + T + ">(" + a[0] + " | " + a[1] + ")";
    case OpKind::BitwiseXor: return "static_cast<" + T + ">(" + a[0] + " ^ " + a[1] + ")";
    case OpKind::LeftShift: return call("left_shift", a);
    case OpKind::RightShift: return call("right_shift", a);
    case OpKind::Where: return "symx_kernel::select<" + T + ">(" + a[0] + ", " + a[1] + ", " + a[2] + ")";
    default: throw InternalError(std::string("spell: op ") + op_name(op) + " is not elementwise");
  }
}

// Index expressions of a node's input given the node's own index expressions.
std::vector<std::string> broadcast_vars(const Shape& in, const Shape& out, const std::vector<std::string>& vars) {
  std::vector<std::string> r(in.size());
  std::size_t lead = out.size() - in.size();
  for (std::size_t d = 0; d < in.size(); ++d) r[d] = in[d] == 1 ? "0" : vars[d + lead];
  return r;
}

std::string offset_of(const Shape& shape, const std::vector<std::string>& vars) {
  auto strides = ops::contiguous_strides(shape);
  std::string s;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1 || vars[d] == "0") continue;
    s += (s.empty() ? "" : " + ") + (strides[d] == 1 ? vars[d] : vars[d] + " * " + std::to_string(strides[d]));
  }
  return s.empty() ? "0" : s;
}

class KernelEmitter {
 public:
  explicit KernelEmitter(const Kernel& k) : k_(k) {
    for (std::size_t j = 0; j < k.loads.size(); ++j) load_index_[&k.loads[j].node()] = static_cast<int>(j);
  }

  std::string emit() {
    const Tensor& root = k_.root;
    std::ostringstream os;
    os << "extern \"C\" void " << k_.name << "(char* const* b) {\n";
 // An in-place kernel reads and writes one buffer, so its pointers must not claim __restrict.
    const char* restrict_ = k_.in_place ? "" : " __restrict";
    for (std::size_t j = 0; j < k_.loads.size(); ++j)
      os << "  const " << ctype(k_.loads[j].dtype()) << "*" << restrict_ << " in" << j << " = reinterpret_cast<const "
         << ctype(k_.loads[j].dtype()) << "*>(b[" << j << "]);\n";
    os << "  " << ctype(root.dtype()) << "*" << restrict_ << " out = reinterpret_cast<" << ctype(root.dtype())
       << "*>(b[" << k_.loads.size() << "]);\n";
    if (root.op() == OpKind::SoftmaxCrossEntropy || root.op() == OpKind::SoftmaxCrossEntropyGrad)
      emit_row_kernel(os);
    else if (is_column_reduction())
      emit_column_reduction(os);
    else
      emit_loops(os);
    os << "}\n";
    return os.str();
  }

 private:
  const Kernel& k_;
  std::unordered_map<const Node*, int> load_index_;
  std::vector<std::unordered_map<std::string, std::string>> memo_{{}};
  std::ostringstream* body_ = nullptr;
  int indent_ = 0, next_var_ = 0;
  bool has_reduction_ = false;

  // A float sum, max or min that keeps its input's last axis (e.g. a bias gradient, the sum over
  // the batch): the general loop nest would walk each output's reduced elements with a stride.
  // Instead each thread takes a block of up to kColumns outputs along that axis, holds their
  // accumulators in an array, and sweeps the reduced axes with a vectorized inner loop over the
  // block (contiguous reads). Only when no other reduction is inlined below it.
  static constexpr std::int64_t kColumns = 128;

  bool is_column_reduction() const {
    const Tensor& root = k_.root;
    OpKind op = root.op();
    if ((op != OpKind::Sum && op != OpKind::Max && op != OpKind::Min) || !is_floating(root.dtype())) return false;
    const Tensor& x = root.node().inputs[0];
    const auto& axes = std::get<ReduceAttr>(root.node().attr).axes;
    if (x.ndim() < 2 || axes.empty() || std::find(axes.begin(), axes.end(), x.ndim() - 1) != axes.end()) return false;
    if (x.shape().back() < 16 || root.size() == 0) return false;
    for (const Node* n : k_.inlined)
      if (n != &root.node() && is_reduction(n->op)) return false;
    return true;
  }

  void emit_column_reduction(std::ostringstream& os) {
    const Tensor& root = k_.root;
    const Node& node = root.node();
    const Tensor& x = node.inputs[0];
    const auto& attr = std::get<ReduceAttr>(node.attr);
    const std::int64_t inner = x.shape().back();
    const std::int64_t outer = root.size() / inner;
    const std::int64_t block = std::min(inner, kColumns);
    const std::int64_t blocks = (inner + block - 1) / block;
    const Accumulator a = accumulator(root);
    const bool extremum = node.op != OpKind::Sum;
    // The output's index variables: i<d> for its leading axes, the block column for the last.
    const Shape& shape = root.shape();
    std::vector<std::string> vars(shape.size());
    for (std::size_t d = 0; d + 1 < shape.size(); ++d) vars[d] = "i" + std::to_string(d);
    vars.back() = blocks > 1 ? "(c * " + std::to_string(block) + " + j)" : "j";
    std::vector<std::string> in_vars(x.shape().size());
    std::size_t kept = 0;
    std::vector<std::size_t> reduced;
    for (std::size_t d = 0; d < x.shape().size(); ++d) {
      if (std::find(attr.axes.begin(), attr.axes.end(), static_cast<int>(d)) != attr.axes.end()) {
        in_vars[d] = "r" + std::to_string(d);
        reduced.push_back(d);
      } else {
        in_vars[d] = attr.keepdims ? vars[d] : vars[kept];
        ++kept;
      }
    }
    std::ostringstream body;
    body_ = &body;
    indent_ = 4;
    const std::string len = blocks > 1 ? "(c + 1 < " + std::to_string(blocks) + " ? " + std::to_string(block) + " : " +
                                             std::to_string(inner - (blocks - 1) * block) + ")"
                                       : std::to_string(inner);
    line(a.type + " acc[" + std::to_string(block) + "];");
    if (extremum) line("int nan[" + std::to_string(block) + "];");
    line("for (std::int64_t j = 0; j < " + len + "; ++j) {");
    line("  acc[j] = " + a.init + ";" + (extremum ? " nan[j] = 0;" : ""));
    line("}");
    for (std::size_t d : reduced) {
      line("for (std::int64_t r" + std::to_string(d) + " = 0; r" + std::to_string(d) + " < " + std::to_string(x.shape()[d]) +
           "; ++r" + std::to_string(d) + ") {");
      indent_ += 2;
    }
    line("#pragma omp simd");
    line("for (std::int64_t j = 0; j < " + len + "; ++j) {");
    indent_ += 2;
    memo_.emplace_back();
    std::string e = fresh("static_cast<" + a.type + ">(" + emit_node(x, in_vars) + ")", a.wide ? DType::f64 : root.dtype());
    memo_.pop_back();
    accumulate(node.op, "acc[j]", e, extremum ? "nan[j]" : "");
    indent_ -= 2;
    line("}");
    for (std::size_t i = 0; i < reduced.size(); ++i) {
      indent_ -= 2;
      line("}");
    }
    const std::string result = finish(a, "acc[j]", extremum ? "nan[j]" : "");
    line("for (std::int64_t j = 0; j < " + len + "; ++j) out[q * " + std::to_string(inner) +
         (blocks > 1 ? " + c * " + std::to_string(block) : std::string()) + " + j] = " + result + ";");

    open_outer_loop(os, "static", x.size(), outer, blocks, shape);
    os << body.str() << "  }\n";
  }

  // The parallel loop over the output's rows (`outer`) times `chunks` pieces of its last axis,
  // with q the row, c the piece and i<d> the index along each leading axis of `shape`.
  static void open_outer_loop(std::ostringstream& os, const std::string& schedule, std::int64_t work, std::int64_t outer,
                              std::int64_t chunks, const Shape& shape) {
    os << "  #pragma omp parallel for schedule(" << schedule << ") if(" << work << " > 32768)\n";
    os << "  for (std::int64_t o = 0; o < " << outer * chunks << "; ++o) {\n";
    os << "    const std::int64_t q = o / " << chunks << ";\n";
    if (chunks > 1) os << "    const std::int64_t c = o % " << chunks << ";\n";
    std::int64_t div = 1;
    for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) {
      os << "    const std::int64_t i" << d << " = (q / " << div << ") % " << shape[static_cast<std::size_t>(d)] << ";\n";
      div *= shape[static_cast<std::size_t>(d)];
    }
  }

  // The accumulator of a reduction node: its C++ type and initial value. float32 sums and
  // products accumulate in double, as the reference evaluator does: long float32 sums would
  // otherwise lose digits. Max and min start from the type's lowest / highest value.
  struct Accumulator {
    bool wide;
    std::string type, init;
  };
  static Accumulator accumulator(const Tensor& n) {
    OpKind op = n.op();
    bool wide = n.dtype() == DType::f32 && (op == OpKind::Sum || op == OpKind::Prod);
    std::string T = wide ? "double" : ctype(n.dtype());
    std::string init = op == OpKind::Sum    ? "static_cast<" + T + ">(0)"
                       : op == OpKind::Prod ? "static_cast<" + T + ">(1)"
                       : op == OpKind::Max  ? "symx_kernel::lowest<" + T + ">()"
                                            : "symx_kernel::highest<" + T + ">()";
    return {wide, T, init};
  }

  // Adds element `e` to accumulator `acc` of a reduction `op`. Float max and min are a
  // comparison-select that skips NaN, which vectorizes, plus the flag `nan` (empty: none) that a
  // NaN was seen; finish() then makes the result NaN, as in the reference.
  void accumulate(OpKind op, const std::string& acc, const std::string& e, const std::string& nan) {
    switch (op) {
      case OpKind::Sum: line(acc + " += " + e + ";"); break;
      case OpKind::Prod: line(acc + " *= " + e + ";"); break;
      default:
        line(acc + " = " + e + (op == OpKind::Max ? " > " : " < ") + acc + " ? " + e + " : " + acc + ";");
        if (!nan.empty()) line(nan + " |= (" + e + " != " + e + ");");
        break;
    }
  }

  // The reduction's value from its accumulator (and NaN flag).
  static std::string finish(const Accumulator& a, const std::string& acc, const std::string& nan) {
    if (!nan.empty()) return "(" + nan + " ? std::numeric_limits<" + a.type + ">::quiet_NaN() : " + acc + ")";
    return a.wide ? "static_cast<float>(" + acc + ")" : acc;
  }

  // One call of a row kernel of kernel_rows.hpp over the node's operands.
  void emit_row_kernel(std::ostringstream& os) {
    const Node& node = k_.root.node();
    const Tensor& x = node.inputs[0];
    ops::AxisSplit split = ops::split_at(x.shape(), std::get<AxisAttr>(node.attr).axis);
    os << "  symx_kernel::" << (node.op == OpKind::SoftmaxCrossEntropy ? "softmax_xent" : "softmax_xent_grad") << "<"
       << ctype(x.dtype()) << ", " << (split.inner == 1 ? "true" : "false") << ">(";
    for (const Tensor& in : node.inputs) os << "in" << load_index_.at(&in.node()) << ", ";
    os << "out, " << split.outer << ", " << split.n << ", " << split.inner << ");\n";
  }

  void line(const std::string& s) { *body_ << std::string(static_cast<std::size_t>(indent_), ' ') << s << "\n"; }

  void emit_loops(std::ostringstream& os) {
    const Shape& shape = k_.root.shape();
    std::int64_t inner = shape.empty() ? 1 : shape.back();
    std::int64_t outer = shape.empty() ? 1 : num_elements(shape) / std::max<std::int64_t>(inner, 1);
    // Few long rows: split the rows into chunks so that the outer loop has work to share.
    std::int64_t chunk = (outer < 64 && inner > 16384) ? 4096 : std::max<std::int64_t>(inner, 1);
    std::int64_t chunks = (inner + chunk - 1) / chunk;
    if (num_elements(shape) == 0) return;
    std::int64_t work = num_elements(shape);
    for (const Node* n : k_.inlined)
      for (const auto& in : n->inputs)
        if (is_reduction(n->op)) work = std::max(work, in.size());
    std::ostringstream body;
    body_ = &body;
    indent_ = 6;
    std::vector<std::string> vars(shape.size());
    for (std::size_t d = 0; d + 1 < shape.size(); ++d) vars[d] = "i" + std::to_string(d);
    if (!shape.empty()) vars.back() = chunks > 1 ? "(c * " + std::to_string(chunk) + " + j)" : "j";
    std::string value = emit_node(k_.root, vars);
    line("out[q * " + std::to_string(inner) + " + " + (chunks > 1 ? "c * " + std::to_string(chunk) + " + " : "") + "j] = " + value + ";");

    // Large loops are handed out dynamically, in pieces of ~64K elements of work (a few hundred
    // per call): with a static split the loop ends when its slowest thread does, and a thread
    // that starts late (woken from a passive wait, OMP_WAIT_POLICY=passive as the Python package
    // sets it, or descheduled on a busy machine) delayed a 16M-element elementwise chain by ~20%.
    // Small loops keep the static split, which costs nothing per piece.
    const std::int64_t iterations = outer * chunks;
    std::string schedule = "static";
    if (work >= (std::int64_t{1} << 20) && iterations >= 4) {
      const std::int64_t piece = std::max<std::int64_t>(1, (iterations * 65536 + work - 1) / work);
      schedule = "dynamic, " + std::to_string(piece);
    }
    open_outer_loop(os, schedule, work, outer, chunks, shape);
    std::string len = chunks > 1 ? "(c + 1 < " + std::to_string(chunks) + " ? " + std::to_string(chunk) + " : " +
                                       std::to_string(inner - (chunks - 1) * chunk) + ")"
                                 : std::to_string(inner);
    if (!has_reduction_) os << "    #pragma omp simd\n";
    os << "    for (std::int64_t j = 0; j < " << len << "; ++j) {\n" << body.str() << "    }\n  }\n";
  }

  std::string fresh(const std::string& expr, DType dtype) {
    std::string name = "v" + std::to_string(next_var_++);
    line("const " + std::string(ctype(dtype)) + " " + name + " = " + expr + ";");
    return name;
  }

  std::string emit_node(const Tensor& n, const std::vector<std::string>& vars) {
    const Node& node = n.node();
    bool materialized = !(n == k_.root) && !k_.inlined.count(&node);
    if (materialized) {
      if (node.op == OpKind::Constant && n.size() == 1)
        return literal(std::get<ConstantAttr>(node.attr).value.get_flat(0), n.dtype());
      return "in" + std::to_string(load_index_.at(&node)) + "[" + offset_of(n.shape(), vars) + "]";
    }
    std::string key = std::to_string(n.id());
    for (const auto& v : vars) key += "," + v;
    for (auto it = memo_.rbegin(); it != memo_.rend(); ++it)
      if (auto found = it->find(key); found != it->end()) return found->second;
    std::string result = emit_op(n, vars);
    memo_.back()[key] = result;
    return result;
  }

  std::string emit_op(const Tensor& n, const std::vector<std::string>& vars) {
    const Node& node = n.node();
    switch (node.op) {
      case OpKind::BroadcastTo:
      case OpKind::StopGradient:
        return emit_node(node.inputs[0], broadcast_vars(node.inputs[0].shape(), n.shape(), vars));
      case OpKind::Transpose: {
        const auto& perm = std::get<PermAttr>(node.attr).perm;
        std::vector<std::string> in_vars(perm.size());
        for (std::size_t d = 0; d < perm.size(); ++d) in_vars[static_cast<std::size_t>(perm[d])] = vars[d];
        return emit_node(node.inputs[0], in_vars);
      }
      case OpKind::Slice: {
        const auto& s = std::get<SliceAttr>(node.attr);
        std::vector<std::string> in_vars(vars.size());
        for (std::size_t d = 0; d < vars.size(); ++d)
          in_vars[d] = (s.start[d] == 0 && s.step[d] == 1) ? vars[d]
                       : "(" + std::to_string(s.start[d]) + " + " + std::to_string(s.step[d]) + " * " + vars[d] + ")";
        return emit_node(node.inputs[0], in_vars);
      }
      case OpKind::Sum: case OpKind::Prod: case OpKind::Max: case OpKind::Min: return emit_reduction(n, vars);
      default: break;
    }
    std::vector<std::string> args;
    for (const auto& in : node.inputs) args.push_back(emit_node(in, broadcast_vars(in.shape(), n.shape(), vars)));
    DType in_dtype = node.inputs.empty() ? n.dtype() : node.inputs.back().dtype();
    return fresh(spell(node.op, args, n.dtype(), in_dtype), n.dtype());
  }

  std::string emit_reduction(const Tensor& n, const std::vector<std::string>& vars) {
    has_reduction_ = true;
    const Node& node = n.node();
    const Tensor& x = node.inputs[0];
    const auto& attr = std::get<ReduceAttr>(node.attr);
    std::string acc = "acc" + std::to_string(next_var_++);
    const Accumulator a = accumulator(n);
    line(a.type + " " + acc + " = " + a.init + ";");
    const bool extremum = node.op == OpKind::Max || node.op == OpKind::Min;
    const bool vector_extremum = extremum && n.dtype() != DType::b8;
    const std::string nan = is_floating(n.dtype()) && extremum ? "nan" + std::to_string(next_var_++) : "";
    if (!nan.empty()) line("int " + nan + " = 0;");
    std::vector<std::string> in_vars(x.shape().size());
    std::size_t kept = 0;
    int opened = 0;
    for (std::size_t d = 0; d < x.shape().size(); ++d) {
      bool reduced = std::find(attr.axes.begin(), attr.axes.end(), static_cast<int>(d)) != attr.axes.end();
      if (!reduced) {
        in_vars[d] = attr.keepdims ? vars[d] : vars[kept];
        ++kept;
        continue;
      }
      std::string r = "r" + std::to_string(next_var_++);
      in_vars[d] = r;
      // The innermost reduced loop of a sum or product vectorizes once reassociation is allowed.
      bool innermost = static_cast<int>(d) == attr.axes.back();
      if (innermost && node.op == OpKind::Sum) line("#pragma omp simd reduction(+ : " + acc + ")");
      if (innermost && node.op == OpKind::Prod) line("#pragma omp simd reduction(* : " + acc + ")");
      if (innermost && vector_extremum)
        line(std::string("#pragma omp simd reduction(") + (node.op == OpKind::Max ? "max" : "min") + " : " + acc + ")" +
             (nan.empty() ? "" : " reduction(| : " + nan + ")"));
      line("for (std::int64_t " + r + " = 0; " + r + " < " + std::to_string(x.shape()[d]) + "; ++" + r + ") {");
      indent_ += 2;
      ++opened;
    }
    memo_.emplace_back();
    std::string v = emit_node(x, in_vars);
    std::string cv = "static_cast<" + a.type + ">(" + v + ")";
    if (extremum) {  // read once, compared and flagged
      cv = "e" + std::to_string(next_var_++);
      line("const " + a.type + " " + cv + " = static_cast<" + a.type + ">(" + v + ");");
    }
    accumulate(node.op, acc, cv, nan);
    memo_.pop_back();
    for (int i = 0; i < opened; ++i) {
      indent_ -= 2;
      line("}");
    }
    return finish(a, acc, nan);
  }
};

}  // namespace

std::string emit_source(const FusionPlan& plan) {
  std::ostringstream os;
  os << "// Generated by symx. Kernels of one program; see src/codegen/emit_cpp.cpp.\n";
  os << kernel_prelude_source() << "\n";
  for (const Kernel& k : plan.kernels) os << KernelEmitter(k).emit() << "\n";
  return os.str();
}

}  // namespace symx::codegen

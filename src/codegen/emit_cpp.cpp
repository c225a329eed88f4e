// The C++ emitter: the one place that spells C++. Spells the scheduled loop-nest IR of each kernel
// (loop_ir.hpp) statement by statement; every decision about loops, schedules and vectorization is
// made before, in lower() and schedule().
#include <cmath>
#include <cstdio>
#include <sstream>

#include "codegen/kernel.hpp"
#include "codegen/loop_ir.hpp"

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
    case DType::c64: return "symx_kernel::cpx<float>";
    case DType::c128: return "symx_kernel::cpx<double>";
  }
  return "void";
}

std::string literal(double v, DType dtype) {
  const std::string t = ctype(dtype);
  if (dtype == DType::b8) return v != 0 ? "true" : "false";
  check_internal(!is_complex(dtype), "emit: a complex literal in a kernel");
  if (!is_floating(dtype))
    return "static_cast<" + t + ">(INT64_C(" + std::to_string(static_cast<std::int64_t>(v)) + "))";
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
    case OpKind::Abs:
      return in == DType::b8 || in == DType::u8
                 ? a[0]
                 : "(" + a[0] + " < 0 ? static_cast<" + T + ">(-" + a[0] + ") : " + a[0] + ")";
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
    case OpKind::Lgamma: return call("lgamma", a);
    case OpKind::Digamma: return call("digamma", a);
    case OpKind::Erfc: return call("erfc", a);
    case OpKind::Erfinv: return call("erfinv", a);
    case OpKind::Erfcx: return call("erfcx", a);
    case OpKind::Ndtri: return call("ndtri", a);
    case OpKind::LogNdtr: return call("log_ndtr", a);
    case OpKind::I0e: return call("i0e", a);
    case OpKind::I1e: return call("i1e", a);
    case OpKind::Expi: return call("expi", a);
    case OpKind::Exp1: return call("exp1", a);
    case OpKind::BitwiseCount: return call("bitwise_count", a);
    case OpKind::Gcd: return call("gcd", a);
    case OpKind::Lcm: return call("lcm", a);
    case OpKind::Nextafter: return call("nextafter", a);
    case OpKind::Zeta: return call("zeta", a);
    case OpKind::Gammainc: return call("gammainc", a);
    case OpKind::Gammaincc: return call("gammaincc", a);
    case OpKind::Betainc: return call("betainc", a);
    case OpKind::Spence: return call("spence", a);
    case OpKind::Dawsn: return call("dawsn", a);
    case OpKind::FresnelS: return call("fresnel_s", a);
    case OpKind::FresnelC: return call("fresnel_c", a);
    case OpKind::Sinint: return call("sinint", a);
    case OpKind::Cosint: return call("cosint", a);
    case OpKind::Expn: return call("expn", a);
    case OpKind::Jn: return call("jn", a);
    case OpKind::Hyp1f1: return call("hyp1f1", a);
    case OpKind::Hyp2f1: return call("hyp2f1", a);
    case OpKind::OwensT: return call("owens_t", a);
    case OpKind::Cast: return "symx_kernel::convert<" + T + ">(" + a[0] + ")";
    case OpKind::StopGradient: return a[0];
    case OpKind::Add: return "static_cast<" + T + ">(" + a[0] + " + " + a[1] + ")";
    case OpKind::Subtract: return "static_cast<" + T + ">(" + a[0] + " - " + a[1] + ")";
    case OpKind::Multiply:
      return in == DType::b8 ? "(" + a[0] + " && " + a[1] + ")" : "static_cast<" + T + ">(" + a[0] + " * " + a[1] + ")";
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
    // numpy (issue 21)
    case OpKind::Arcsin: return call("arcsin", a);
    case OpKind::Arccos: return call("arccos", a);
    case OpKind::Arcsinh: return call("arcsinh", a);
    case OpKind::Arccosh: return call("arccosh", a);
    case OpKind::Arctanh: return call("arctanh", a);
    case OpKind::Sinh: return call("sinh", a);
    case OpKind::Cosh: return call("cosh", a);
    case OpKind::Log2: return call("log2", a);
    case OpKind::Log10: return call("log10", a);
    case OpKind::Exp2: return call("exp2", a);
    case OpKind::Cbrt: return call("cbrt", a);
    case OpKind::Signbit: return call("signbit", a);
    case OpKind::Hypot: return call("hypot", a);
    case OpKind::Copysign: return call("copysign", a);
    case OpKind::Fmod: return call("fmod", a);
    case OpKind::Where: return "symx_kernel::select<" + T + ">(" + a[0] + ", " + a[1] + ", " + a[2] + ")";
    case OpKind::RandomGammaGrad: return call("random_gamma_grad", a);  // random (issue 21)
    case OpKind::Placeholder:
    case OpKind::Variable:
    case OpKind::Constant:
    case OpKind::Sum:
    case OpKind::Prod:
    case OpKind::Max:
    case OpKind::Min:
    case OpKind::Argmax:
    case OpKind::Argmin:
    case OpKind::Cumsum:
    case OpKind::Sort:
    case OpKind::Argsort:
    case OpKind::Partition:
    case OpKind::Argpartition:
    case OpKind::KthValues:
    case OpKind::Searchsorted:
    case OpKind::Cumprod:
    case OpKind::Cummax:
    case OpKind::Cummin:
    case OpKind::Logcumsumexp:
    case OpKind::LinearRecurrence:
    case OpKind::Reshape:
    case OpKind::Transpose:
    case OpKind::BroadcastTo:
    case OpKind::Concatenate:
    case OpKind::Slice:
    case OpKind::Unslice:
    case OpKind::Pad:
    case OpKind::Take:
    case OpKind::ScatterAdd:
    case OpKind::TakeAlongAxis:
    case OpKind::ScatterAddAlongAxis:
    case OpKind::ScatterSet:  // indexing (issue 21): not elementwise
    case OpKind::ScatterMul:
    case OpKind::ScatterMin:
    case OpKind::ScatterMax:
    case OpKind::Matmul:
    case OpKind::Inv:
    case OpKind::Det:
    case OpKind::Slogdet:
    case OpKind::Cholesky:
    case OpKind::Solve:
    case OpKind::TriangularSolve:
    case OpKind::Qr:
    case OpKind::LuFactor:
    case OpKind::LuPivotsToPermutation:
    case OpKind::Eigh:  // spectral decompositions (symx/linalg.hpp)
    case OpKind::Eigvalsh:
    case OpKind::Svd:
    case OpKind::SvdFull:
    case OpKind::Svdvals:
    case OpKind::Fft:
    // Complex numbers run outside generated kernels (fusion keeps every complex node out of them).
    case OpKind::Real:
    case OpKind::Imag:
    case OpKind::Conj:
    case OpKind::Complex:
    case OpKind::Conv:
    case OpKind::ConvBackwardInput:
    case OpKind::ConvBackwardFilter:
    case OpKind::MaxPool:
    case OpKind::MaxPoolGrad:
    case OpKind::AvgPool:
    case OpKind::AvgPoolGrad:
    case OpKind::SoftmaxCrossEntropy:
    case OpKind::SoftmaxCrossEntropyGrad:
    case OpKind::HostCall:
    case OpKind::Scan:
    case OpKind::WhileLoop:
    case OpKind::Switch:
    case OpKind::Part:
    case OpKind::RandomUniform:
    case OpKind::RandomNormal:
    case OpKind::RandomTruncatedNormal:
    case OpKind::RandomBernoulli:
    case OpKind::RandomRandint:
    case OpKind::RandomPermutation:
    case OpKind::RandomGamma:  // random (issue 21)
    case OpKind::RandomPoisson: break;
  }
  throw InternalError(std::string("spell: op ") + op_name(op) + " is not elementwise");
}

class Speller {
 public:
  explicit Speller(const ir::LoopKernel& k) : k_(k) {}

  std::string kernel() {
    std::ostringstream os;
    os << "extern \"C\" void " << k_.name << "(char* const* b) {\n";
    // An in-place kernel reads and writes one buffer, so its pointers must not claim __restrict.
    const char* restrict_ = k_.no_alias ? " __restrict" : "";
    for (std::size_t j = 0; j < k_.inputs.size(); ++j)
      os << "  const " << ctype(k_.inputs[j].dtype) << "*" << restrict_ << " in" << j << " = reinterpret_cast<const "
         << ctype(k_.inputs[j].dtype) << "*>(b[" << j << "]);\n";
    os << "  " << ctype(k_.output.dtype) << "*" << restrict_ << " out = reinterpret_cast<" << ctype(k_.output.dtype)
       << "*>(b[" << k_.inputs.size() << "]);\n";
    block(k_.body, 2, os);
    os << "}\n";
    return os.str();
  }

 private:
  const ir::LoopKernel& k_;
  using IK = ir::Index::Kind;

  std::string name(ir::VarId v) const { return k_.name_of(v); }
  const ir::Var& var(ir::VarId v) const { return k_.vars[static_cast<std::size_t>(v)]; }

  // An index expression; sums are parenthesized (they appear as operands), quotients only where
  // they are an operand themselves.
  std::string index(const ir::Index& i, bool operand = false) const {
    switch (i.kind) {
      case IK::constant: return std::to_string(i.value);
      case IK::var: return name(i.var);
      case IK::add: return "(" + index(i.args[0], true) + " + " + index(i.args[1], true) + ")";
      case IK::mul: return index(i.args[0], true) + " * " + index(i.args[1], true);
      case IK::div: {
        std::string s = index(i.args[0], true) + " / " + index(i.args[1], true);
        return operand ? "(" + s + ")" : s;
      }
      case IK::mod: return index(i.args[0], true) + " % " + index(i.args[1], true);
      case IK::piece_extent:
        return "(" + name(i.var) + " + 1 < " + std::to_string(i.pieces) + " ? " + std::to_string(i.value) + " : " +
               std::to_string(i.last) + ")";
    }
    throw InternalError("emit: unknown index expression");
  }

  // A flat offset: the sum of its terms.
  std::string offset(const std::vector<ir::Index>& terms) const {
    std::string s;
    for (const ir::Index& t : terms) s += (s.empty() ? "" : " + ") + index(t);
    return s.empty() ? "0" : s;
  }

  std::string element(ir::VarId v, const std::optional<ir::Index>& at) const {
    return name(v) + (at ? "[" + index(*at) + "]" : "");
  }

  std::string expr(const ir::Expr& e) const {
    switch (e.kind) {
      case ir::Expr::Kind::load: return "in" + std::to_string(e.buffer) + "[" + offset(e.offset) + "]";
      case ir::Expr::Kind::literal: return literal(e.value, e.dtype);
      case ir::Expr::Kind::local: return name(e.var);
      case ir::Expr::Kind::op: {
        std::vector<std::string> args;
        for (const ir::Expr& a : e.args) args.push_back(expr(a));
        return spell(e.op, args, e.dtype, e.in);
      }
      case ir::Expr::Kind::cast: return "static_cast<" + std::string(ctype(e.dtype)) + ">(" + expr(e.args[0]) + ")";
      case ir::Expr::Kind::result: {
        // The reduction's value from its accumulator (and NaN flag).
        const ir::Var& acc = var(e.var);
        const std::string a = element(e.var, e.at);
        if (acc.nan >= 0)
          return "(" + element(acc.nan, e.at) + " ? std::numeric_limits<" + ctype(acc.dtype) + ">::quiet_NaN() : " + a +
                 ")";
        return acc.dtype != acc.result ? "static_cast<" + std::string(ctype(acc.result)) + ">(" + a + ")" : a;
      }
    }
    throw InternalError("emit: unknown expression");
  }

  // The initial value of an accumulator: Max and min start from the type's lowest / highest value.
  static std::string init(const ir::Var& acc) {
    const std::string T = ctype(acc.dtype);
    return acc.reduce == OpKind::Sum    ? "static_cast<" + T + ">(0)"
           : acc.reduce == OpKind::Prod ? "static_cast<" + T + ">(1)"
           : acc.reduce == OpKind::Max  ? "symx_kernel::lowest<" + T + ">()"
                                        : "symx_kernel::highest<" + T + ">()";
  }

  void block(const std::vector<ir::Stmt>& body, int indent, std::ostringstream& os) const {
    const std::string pad(static_cast<std::size_t>(indent), ' ');
    for (const ir::Stmt& s : body) {
      switch (s.kind) {
        case ir::Stmt::Kind::loop: {
          // The work is known when the kernel is generated: a loop too small to share runs with no
          // parallel region at all (libgomp's GOMP_parallel with a false if() still makes a team: a
          // malloc, a free and a futex per call, which a loop body of a few elements run a million
          // times would pay a million times).
          if (s.parallel && s.parallel->work > s.parallel->min_work) {
            os << pad << "#pragma omp parallel for schedule("
               << (s.parallel->schedule == ir::Parallel::Schedule::dynamic ? "dynamic" : "static");
            if (s.parallel->piece > 0) os << ", " << s.parallel->piece;
            os << ")\n";
          }
          if (s.vector) {
            os << pad << "#pragma omp simd";
            for (ir::VarId r : s.reductions) {
              const ir::Var& acc = var(r);
              os << " reduction("
                 << (acc.reduce == OpKind::Sum    ? "+"
                     : acc.reduce == OpKind::Prod ? "*"
                     : acc.reduce == OpKind::Max  ? "max"
                                                  : "min")
                 << " : " << name(r) << ")";
              if (acc.nan >= 0) os << " reduction(| : " << name(acc.nan) << ")";
            }
            os << "\n";
          }
          const std::string v = name(s.var);
          os << pad << "for (std::int64_t " << v << " = 0; " << v << " < " << index(s.extent) << "; ++" << v << ")";
          if (s.one_line) {
            std::ostringstream one;
            block(s.body, 0, one);
            os << " " << one.str();
          } else {
            os << " {\n";
            block(s.body, indent + 2, os);
            os << pad << "}\n";
          }
          break;
        }
        case ir::Stmt::Kind::let_index:
          os << pad << "const std::int64_t " << name(s.var) << " = " << index(s.index) << ";\n";
          break;
        case ir::Stmt::Kind::define:
          os << pad << "const " << ctype(var(s.var).dtype) << " " << name(s.var) << " = " << expr(s.value) << ";\n";
          break;
        case ir::Stmt::Kind::acc_declare: {
          const ir::Var& acc = var(s.var);
          if (acc.size > 0) {
            os << pad << ctype(acc.dtype) << " " << name(s.var) << "[" << acc.size << "];\n";
            if (acc.nan >= 0) os << pad << "int " << name(acc.nan) << "[" << acc.size << "];\n";
          } else {
            os << pad << ctype(acc.dtype) << " " << name(s.var) << " = " << init(acc) << ";\n";
            if (acc.nan >= 0) os << pad << "int " << name(acc.nan) << " = 0;\n";
          }
          break;
        }
        case ir::Stmt::Kind::acc_reset: {
          const ir::Var& acc = var(s.var);
          os << pad << element(s.var, s.at) << " = " << init(acc) << ";";
          if (acc.nan >= 0) os << " " << element(acc.nan, s.at) << " = 0;";
          os << "\n";
          break;
        }
        case ir::Stmt::Kind::acc_update: {
          // Float max and min are a comparison-select that skips NaN, which vectorizes, plus the
          // flag that a NaN was seen.
          const ir::Var& acc = var(s.var);
          const std::string a = element(s.var, s.at), e = expr(s.value);
          if (acc.reduce == OpKind::Sum) {
            os << pad << a << " += " << e << ";\n";
          } else if (acc.reduce == OpKind::Prod) {
            os << pad << a << " *= " << e << ";\n";
          } else {
            os << pad << a << " = " << e << (acc.reduce == OpKind::Max ? " > " : " < ") << a << " ? " << e << " : " << a
               << ";\n";
            if (acc.nan >= 0) os << pad << element(acc.nan, s.at) << " |= (" << e << " != " << e << ");\n";
          }
          break;
        }
        case ir::Stmt::Kind::store: os << pad << "out[" << offset(s.offset) << "] = " << expr(s.value) << ";\n"; break;
        case ir::Stmt::Kind::call:
          // One call of a row kernel of kernel_rows.hpp.
          os << pad << "symx_kernel::" << s.callee << "<" << ctype(s.call_dtype) << ", "
             << (s.contiguous ? "true" : "false") << ">(";
          for (int in : s.inputs) os << "in" << in << ", ";
          os << "out";
          for (std::int64_t n : s.sizes) os << ", " << n;
          os << ");\n";
          break;
      }
    }
  }
};

}  // namespace

std::string ir::emit_kernel(const ir::LoopKernel& kernel) { return Speller(kernel).kernel(); }

EmittedPlan emit_plan(const FusionPlan& plan) {
  std::ostringstream os, text;
  os << "// Generated by symx. Kernels of one program; see src/codegen/emit_cpp.cpp.\n";
  os << kernel_prelude_source() << "\n";
  for (const Kernel& k : plan.kernels) {
    const ir::LoopKernel kernel = ir::build(k);
    os << ir::emit_kernel(kernel) << "\n";
    text << ir::to_text(kernel) << "\n";
  }
  return {os.str(), text.str()};
}

std::string emit_source(const FusionPlan& plan) { return emit_plan(plan).source; }

}  // namespace symx::codegen

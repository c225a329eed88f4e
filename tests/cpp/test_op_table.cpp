// The op table as the single source of truth: every row complete, an incomplete row named by the
// piece it lacks, arities enforced, the traits every layer derives from, and every elementwise op
// emitted, compiled and run as a one-op kernel against its own reference evaluation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/compiler.hpp"
#include "codegen/kernel.hpp"
#include "ops/op_table.hpp"
#include "runtime/library_calls.hpp"
#include "symx/symx.hpp"

namespace sx = symx;
using sx::DType;
using sx::OpKind;
namespace ops = sx::ops;

namespace {

std::string joined(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts) s += p + "; ";
  return s;
}

TEST(OpTable, EveryRowIsComplete) {
  for (int k = 0; k < sx::kNumOps; ++k) {
    auto op = static_cast<OpKind>(k);
    const ops::OpDef& def = ops::op_def(op);
    EXPECT_TRUE(ops::missing_rules(op, def).empty()) << sx::op_name(op) << ": " << joined(ops::missing_rules(op, def));
    EXPECT_EQ(sx::op_arity(op), def.arity) << sx::op_name(op);
    // The traits the compiler derives from the row.
    EXPECT_EQ(sx::codegen::fusible(op), def.lowering == ops::Lowering::kernel) << sx::op_name(op);
    EXPECT_EQ(sx::codegen::is_reduction(op), def.family == ops::Family::reduction && def.fusible()) << sx::op_name(op);
    // The runtime has a library route for exactly the ops whose row says Lowering::library.
    EXPECT_EQ(sx::runtime::library_handles(op), def.lowering == ops::Lowering::library) << sx::op_name(op);
  }
}

// The families as the table declares them, against the lists worked out by hand from the ops'
// meaning (a row that claims the wrong family would fuse, fold or differentiate wrongly).
TEST(OpTable, FamiliesAndLoweringsAreTheOpsOwn) {
  using F = ops::Family;
  using L = ops::Lowering;
  auto family = [](OpKind op) { return ops::op_def(op).family; };
  auto lowering = [](OpKind op) { return ops::op_def(op).lowering; };
  for (OpKind op : {OpKind::RandomUniform, OpKind::RandomNormal, OpKind::RandomTruncatedNormal, OpKind::RandomBernoulli,
                    OpKind::RandomRandint, OpKind::RandomPermutation}) {
    EXPECT_EQ(family(op), F::random) << sx::op_name(op);
    EXPECT_TRUE(ops::op_def(op).random());
  }
  for (OpKind op : {OpKind::Matmul, OpKind::Conv, OpKind::ConvBackwardInput, OpKind::ConvBackwardFilter,
                    OpKind::MaxPool, OpKind::MaxPoolGrad, OpKind::AvgPool, OpKind::AvgPoolGrad})
    EXPECT_EQ(lowering(op), L::library) << sx::op_name(op);
  for (OpKind op : {OpKind::Sum, OpKind::Prod, OpKind::Max, OpKind::Min}) {
    EXPECT_TRUE(ops::op_def(op).fused_reduction()) << sx::op_name(op);
    EXPECT_FALSE(ops::op_def(op).cheap) << sx::op_name(op);
  }
  for (OpKind op : {OpKind::Argmax, OpKind::Argmin, OpKind::Cumsum}) EXPECT_EQ(lowering(op), L::reference);
  EXPECT_EQ(lowering(OpKind::Reshape), L::alias);
  // A host call runs the host program's function: a step of its own, never folded at compile time.
  EXPECT_EQ(family(OpKind::HostCall), F::host);
  EXPECT_EQ(lowering(OpKind::HostCall), L::reference);
  EXPECT_EQ(sx::op_arity(OpKind::HostCall), ops::kVariadic);
  EXPECT_FALSE(ops::op_def(OpKind::HostCall).foldable());
  EXPECT_FALSE(ops::op_def(OpKind::RandomUniform).foldable());
  EXPECT_TRUE(ops::op_def(OpKind::Add).foldable());
  EXPECT_EQ(lowering(OpKind::SoftmaxCrossEntropy), L::row_kernel);
  EXPECT_EQ(sx::op_arity(OpKind::Concatenate), ops::kVariadic);
  EXPECT_EQ(sx::op_arity(OpKind::Where), 3);
  EXPECT_EQ(sx::op_arity(OpKind::SoftmaxCrossEntropyGrad), 3);
  // Transcendentals are costly to recompute in several kernels; arithmetic and views are cheap.
  for (OpKind op : {OpKind::Exp, OpKind::Log, OpKind::Tanh, OpKind::Sigmoid, OpKind::Erf, OpKind::Power, OpKind::Mod,
                    OpKind::Arctan2})
    EXPECT_FALSE(ops::op_def(op).cheap) << sx::op_name(op);
  for (OpKind op : {OpKind::Add, OpKind::Multiply, OpKind::Maximum, OpKind::Where, OpKind::Cast, OpKind::Sqrt,
                    OpKind::Transpose, OpKind::BroadcastTo, OpKind::Slice})
    EXPECT_TRUE(ops::op_def(op).cheap) << sx::op_name(op);
}

// Each way a row can be incomplete is named, with what to add.
TEST(OpTable, NamesTheMissingPieceOfAnIncompleteRow) {
  const ops::OpDef exp = ops::op_def(OpKind::Exp);
  auto only = [](const ops::OpDef& def) {
    std::vector<std::string> m = ops::missing_rules(OpKind::Exp, def);
    EXPECT_EQ(m.size(), 1u) << joined(m);
    return m.empty() ? std::string() : m[0];
  };
  ops::OpDef row = exp;
  row.vjp = nullptr;
  EXPECT_NE(only(row).find("vjp (the vector-Jacobian rule; ops::no_gradient for an op without a gradient)"),
            std::string::npos);
  row = exp;
  row.infer = nullptr;
  EXPECT_NE(only(row).find("infer (the type rule)"), std::string::npos);
  row = exp;
  row.evaluate = nullptr;
  EXPECT_NE(only(row).find("evaluate (the reference evaluation)"), std::string::npos);
  row = exp;
  row.arity = -2;
  EXPECT_NE(only(row).find("arity"), std::string::npos);
  row = exp;
  row.lowering = ops::Lowering::reference;
  EXPECT_NE(only(row).find("an elementwise op is computed inside kernels"), std::string::npos);
  row = ops::op_def(OpKind::Take);
  row.cheap = true;
  EXPECT_NE(ops::missing_rules(OpKind::Take, row).at(0).find("cheap"), std::string::npos);
  // A row never defined: where to define it.
  std::vector<std::string> none = ops::missing_rules(OpKind::Exp, ops::OpDef{});
  ASSERT_EQ(none.size(), 1u);
  EXPECT_NE(none[0].find("no row: define(OpKind::exp"), std::string::npos) << none[0];
}

TEST(OpTable, MakeNodeEnforcesTheArity) {
  sx::reset_default_graph();
  auto x = sx::placeholder({3}, sx::f32, "x");
  try {
    ops::make_node(OpKind::Exp, {x, x});
    FAIL() << "exp with two inputs was built";
  } catch (const sx::InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("make_node: exp takes 1 inputs, got 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ops::make_node(OpKind::Concatenate, {}, sx::AxisAttr{0}), sx::InternalError);
  EXPECT_NO_THROW(ops::make_node(OpKind::Exp, {x}));
}

// ---- every elementwise op as a one-op kernel ----

// Values in each dtype's interesting range: negatives, zero, fractions and a few beyond 1 for
// floats; small integers (shifts and powers stay defined); both bools.
sx::Array sample(const sx::Shape& shape, DType dtype, std::mt19937& rng) {
  sx::Array a(shape, dtype);
  std::uniform_int_distribution<int> small(-4, 4);
  std::uniform_real_distribution<double> real(-2.5, 2.5);
  for (std::int64_t i = 0; i < a.size(); ++i) {
    double v = 0;
    switch (dtype) {
      case DType::b8: v = small(rng) > 0; break;
      case DType::u8: v = small(rng) + 4; break;
      case DType::i32:
      case DType::i64: v = small(rng); break;
      case DType::f32:
      case DType::f64: v = i % 7 == 3 ? 0.0 : real(rng); break;
      case DType::c64:
      case DType::c128: a.set_complex_flat(i, {real(rng), real(rng)}); continue;
    }
    a.set_flat(i, v);
  }
  return a;
}

bool agree(double got, double want, DType dtype) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  if (!sx::is_floating(dtype)) return got == want;
  double tolerance = dtype == DType::f32 ? 2e-6 : 1e-13;
  return std::abs(got - want) <= tolerance * (1 + std::abs(want));
}

// Runs a generated kernel over `loads` (in the kernel's argument order) into a new array of its
// root's type.
sx::Array run_kernel(const sx::codegen::Library& library, const sx::codegen::Kernel& kernel,
                     const std::vector<sx::Array>& loads) {
  std::vector<char*> buffers;
  for (const sx::Array& load : loads) buffers.push_back(static_cast<char*>(const_cast<void*>(load.raw_data())));
  sx::Array out(kernel.root.shape(), kernel.root.dtype());
  buffers.push_back(static_cast<char*>(out.raw_data()));
  reinterpret_cast<void (*)(char* const*)>(library.symbol(kernel.name))(buffers.data());
  return out;
}

TEST(OpTable, EveryElementwiseOpCompilesToAKernelThatAgreesWithItsReference) {
  sx::reset_default_graph();
  std::mt19937 rng(11);
  struct Case {
    sx::Tensor node;
    std::vector<sx::Array> inputs;
  };
  std::vector<Case> cases;
  std::unordered_map<const sx::Node*, sx::Array> values;  // placeholder -> its value
  int ops_covered = 0;
  for (int k = 0; k < sx::kNumOps; ++k) {
    auto op = static_cast<OpKind>(k);
    const ops::OpDef& def = ops::op_def(op);
    if (def.family != ops::Family::elementwise) continue;
    // The parts of complex numbers run outside kernels (fusion keeps complex nodes out of them):
    // tests/python/test_complex.py checks them against NumPy.
    if (op == OpKind::Real || op == OpKind::Imag || op == OpKind::Conj || op == OpKind::Complex) continue;
    int dtypes_accepted = 0;
    for (DType dtype : {DType::f32, DType::f64, DType::i32, DType::i64, DType::u8, DType::b8}) {
      // (3, 19) operands; the second of a binary op, the last of where and the fourth of hyp2f1
      // broadcast along axis 0.
      std::vector<sx::Shape> shapes = {{3, 19}, {19}, {1, 19}, {19}};
      std::vector<sx::Tensor> inputs;
      std::vector<sx::Array> arrays;
      for (int i = 0; i < def.arity; ++i) {
        DType d = op == OpKind::Where && i == 0 ? DType::b8 : dtype;
        arrays.push_back(sample(shapes[static_cast<std::size_t>(i)], d, rng));
        inputs.push_back(sx::placeholder(shapes[static_cast<std::size_t>(i)], d));
      }
      sx::Attr attr = sx::NoAttr{};
      if (op == OpKind::Cast) attr = sx::CastAttr{dtype == DType::f64 ? DType::i32 : DType::f64};
      sx::Tensor node;
      try {
        node = ops::make_node(op, inputs, attr);
      } catch (const sx::Error&) {
        continue;  // the type rule does not take this dtype
      }
      ++dtypes_accepted;
      for (std::size_t i = 0; i < inputs.size(); ++i) values.emplace(&inputs[i].node(), arrays[i]);
      cases.push_back({node, arrays});
    }
    EXPECT_GT(dtypes_accepted, 0) << sx::op_name(op) << " accepts none of the dtypes";
    ++ops_covered;
  }
  EXPECT_GE(ops_covered, 50);

  std::vector<sx::Tensor> roots;
  for (const Case& c : cases) roots.push_back(c.node);
  sx::codegen::FusionPlan plan = sx::codegen::plan_fusion(roots, sx::runtime::library_capabilities());
  ASSERT_EQ(plan.kernels.size(), cases.size()) << "every one-op node is a kernel of its own";
  auto library = sx::codegen::compile_and_load(sx::codegen::emit_source(plan));
  for (const sx::codegen::Kernel& kernel : plan.kernels) {
    const Case* c = nullptr;
    for (const Case& candidate : cases)
      if (candidate.node == kernel.root) c = &candidate;
    ASSERT_NE(c, nullptr);
    const sx::Node& node = c->node.node();
    std::string what =
        std::string(sx::op_name(node.op)) + " over " + std::string(sx::dtype_name(node.inputs.back().dtype()));
    std::vector<sx::Array> loads;
    for (const sx::Tensor& load : kernel.loads) loads.push_back(values.at(&load.node()));
    sx::Array out = run_kernel(*library, kernel, loads);
    sx::Array want = ops::op_def(node.op).evaluate({node, c->inputs});
    ASSERT_EQ(want.dtype(), out.dtype()) << what;
    int wrong = 0;
    for (std::int64_t i = 0; i < out.size(); ++i)
      if (!agree(out.get_flat(i), want.get_flat(i), out.dtype()) && wrong++ < 3)
        ADD_FAILURE() << what << ": element " << i << " is " << out.get_flat(i) << ", the reference gives "
                      << want.get_flat(i);
  }
}

// Every shape op the table fuses into kernels (a view: index arithmetic) lowers, compiles and agrees
// with its reference. A new fused view needs an example here, and the test says so.
TEST(OpTable, EveryFusedViewCompilesToAKernelThatAgreesWithItsReference) {
  sx::reset_default_graph();
  std::mt19937 rng(5);
  auto x = sx::placeholder({4, 6}, sx::f32, "x");
  sx::Array xv = sample({4, 6}, DType::f32, rng);
  std::unordered_map<OpKind, sx::Tensor> examples = {
      {OpKind::Transpose, sx::transpose(x)},
      {OpKind::BroadcastTo, sx::broadcast_to(x, {3, 4, 6})},
      {OpKind::Slice, sx::slice(x, {sx::Index::range(1, 4), sx::Index::range(0, 6, 2)})},
  };
  std::vector<sx::Tensor> roots;
  for (int k = 0; k < sx::kNumOps; ++k) {
    auto op = static_cast<OpKind>(k);
    if (ops::op_def(op).family != ops::Family::shape || !ops::op_def(op).fusible()) continue;
    auto it = examples.find(op);
    if (it == examples.end()) {
      ADD_FAILURE() << sx::op_name(op) << " is a fused view without an example in this test: add one";
      continue;
    }
    ASSERT_EQ(it->second.op(), op);
    roots.push_back(it->second);
  }
  ASSERT_EQ(roots.size(), examples.size());
  sx::codegen::FusionPlan plan = sx::codegen::plan_fusion(roots, sx::runtime::library_capabilities());
  ASSERT_EQ(plan.kernels.size(), roots.size());
  auto library = sx::codegen::compile_and_load(sx::codegen::emit_source(plan));
  for (const sx::codegen::Kernel& kernel : plan.kernels) {
    ASSERT_EQ(kernel.loads.size(), 1u);
    sx::Array out = run_kernel(*library, kernel, {xv});
    sx::Array want = ops::op_def(kernel.root.op()).evaluate({kernel.root.node(), {xv}});
    for (std::int64_t i = 0; i < out.size(); ++i)
      ASSERT_EQ(out.get_flat(i), want.get_flat(i)) << sx::op_name(kernel.root.op()) << " element " << i;
  }
}

}  // namespace

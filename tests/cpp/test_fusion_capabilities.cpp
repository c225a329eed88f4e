// Fusion planning asks the library calls what they take through codegen::LibraryCapabilities
// (codegen cannot include the runtime): the plan follows the capabilities it is given, and the
// runtime's answer agrees with the op traits fusion relies on.
#include <gtest/gtest.h>

#include "codegen/kernel.hpp"
#include "codegen/library_capabilities.hpp"
#include "runtime/library_calls.hpp"
#include "symx/symx.hpp"

namespace sx = symx;
namespace cg = symx::codegen;

namespace {

// Capabilities of a backend with library calls for `op` only, and epilogues when `epilogues`;
// counts the epilogue questions.
class FakeCapabilities final : public cg::LibraryCapabilities {
 public:
  FakeCapabilities(sx::OpKind op, bool epilogues) : op_(op), epilogues_(epilogues) {}
  bool handles(sx::OpKind op) const override { return op == op_; }
  bool supports_epilogue(const sx::Tensor&, bool) const override {
    ++asked;
    return epilogues_;
  }
  mutable int asked = 0;

 private:
  sx::OpKind op_;
  bool epilogues_;
};

// The step that computes the node of kind `op` (its own or as an epilogue's product); nullptr when
// none does.
const cg::Step* step_of(const cg::FusionPlan& plan, sx::OpKind op) {
  for (const cg::Step& s : plan.steps)
    if (s.product().op() == op) return &s;
  return nullptr;
}

}  // namespace

TEST(FusionCapabilities, PlanFollowsTheCapabilitiesItIsGiven) {
  sx::reset_default_graph();
  auto x = sx::placeholder({8, 5}, sx::f32, "x");
  auto w = sx::placeholder({5, 6}, sx::f32, "w");
  auto b = sx::placeholder({6}, sx::f32, "b");
  auto y = sx::nn::relu(sx::matmul(x, w) + b);

  // The runtime's matmul takes the bias and the ReLU: one library step, nothing else.
  cg::FusionPlan fused = cg::plan_fusion({y}, symx::runtime::library_capabilities());
  const cg::Step* step = step_of(fused, sx::OpKind::Matmul);
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->role, cg::Role::library);
  ASSERT_TRUE(step->epilogue.has_value());
  EXPECT_TRUE(step->epilogue->bias.defined());
  EXPECT_TRUE(step->epilogue->relu);
  EXPECT_TRUE(fused.kernels.empty());

  // A library without epilogues: the product is a plain library step, bias and ReLU a kernel.
  FakeCapabilities no_epilogues(sx::OpKind::Matmul, false);
  cg::FusionPlan plain = cg::plan_fusion({y}, no_epilogues);
  step = step_of(plain, sx::OpKind::Matmul);
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->role, cg::Role::library);
  EXPECT_FALSE(step->epilogue.has_value());
  EXPECT_EQ(plain.kernels.size(), 1u);
  EXPECT_GT(no_epilogues.asked, 0);

  // No library call for matrix products: the reference evaluation runs the product.
  FakeCapabilities no_matmul(sx::OpKind::Conv, false);
  cg::FusionPlan unfused = cg::plan_fusion({y}, no_matmul);
  step = step_of(unfused, sx::OpKind::Matmul);
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->role, cg::Role::fallback);
}

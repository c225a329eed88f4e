// host_call: a host function inside the graph. Values against the same arithmetic done by hand,
// gradients against float64 finite differences, never folded, errors that name the call, and the
// compiled schedule that runs an early call before the steps that do not lead to it.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

#include "codegen/kernel.hpp"
#include "runtime/library_calls.hpp"
#include "test_util.hpp"

namespace sx = symx;
namespace cg = symx::codegen;

namespace {

// A host call computing x^3 elementwise (float64 in, float64 out), counting its calls, with the
// gradient 3 x^2 * cotangent when `with_vjp`.
sx::HostCallSpec cube(std::atomic<int>* calls, bool with_vjp, bool early = false) {
  sx::HostCallSpec spec;
  spec.name = "cube";
  spec.compute = [calls](const std::vector<sx::Array>& in) {
    if (calls) ++*calls;
    sx::Array out = in[0].astype(sx::DType::f64).copy();
    for (std::int64_t i = 0; i < out.size(); ++i) out.set_flat(i, std::pow(out.get_flat(i), 3));
    return out.astype(in[0].dtype());
  };
  spec.infer = [](const std::vector<sx::TensorType>& in) { return in[0]; };
  if (with_vjp)
    spec.vjp = [](const std::vector<sx::Tensor>& in, const sx::Tensor&, const sx::Tensor& cot) {
      return std::vector<sx::Tensor>{3.0 * sx::square(in[0]) * cot};
    };
  spec.early = early;
  return spec;
}

}  // namespace

TEST(HostCall, ComputesInEvalAndCompiledFunctions) {
  sx::reset_default_graph();
  std::atomic<int> calls = 0;
  auto x = sx::placeholder({sx::kDynamic, 3}, sx::f64, "x");
  auto y = sx::host_call(cube(&calls, false), {x + 1.0}) * 2.0;
  sx::Array xv = sx::testing::random_array({4, 3});
  sx::Array expected = xv.copy();
  for (std::int64_t i = 0; i < expected.size(); ++i) expected.set_flat(i, 2 * std::pow(xv.get_flat(i) + 1, 3));

  sx::testing::expect_close(y.eval({{x, xv}}), expected, 1e-12, 1e-12);
  EXPECT_EQ(calls.load(), 1);
  for (sx::Backend backend : {sx::Backend::reference, sx::Backend::compiled}) {
    auto f = sx::function({x}, {y}, {}, {.backend = backend});
    sx::testing::expect_close(f({xv})[0], expected, 1e-12, 1e-12);
    // Another batch size: the call's type is inferred again for the new sizes.
    sx::Array two = sx::testing::random_array({2, 3}, -1, 1, 5);
    sx::Array out = f({two})[0];
    ASSERT_EQ(out.shape(), (sx::Shape{2, 3}));
    EXPECT_NEAR(out.get_flat(4), 2 * std::pow(two.get_flat(4) + 1, 3), 1e-12);
  }
  EXPECT_EQ(calls.load(), 5);
  EXPECT_EQ(y.node().inputs[0].display_op(), "cube");
}

TEST(HostCall, IsNeverFoldedIntoAConstant) {
  sx::reset_default_graph();
  std::atomic<int> calls = 0;
  auto c = sx::constant(sx::Array::from_vector<double>({1, 2}, {2}));
  auto y = sx::host_call(cube(&calls, false), {c});
  auto dummy = sx::placeholder({}, sx::f64, "dummy");
  auto f = sx::function({dummy}, {y + dummy});
  EXPECT_EQ(calls.load(), 0);
  for (int k = 1; k <= 3; ++k) {
    sx::Array out = f({sx::Array::scalar<double>(0.5)})[0];
    EXPECT_EQ(calls.load(), k);
    EXPECT_DOUBLE_EQ(out.get_flat(1), 8.5);
  }
}

TEST(HostCall, GradientUsesItsVjpAndMatchesFiniteDifferences) {
  sx::reset_default_graph();
  auto x = sx::placeholder({5}, sx::f64, "x");
  auto loss = sx::sum(sx::sin(sx::host_call(cube(nullptr, true), {x})));
  auto g = sx::grad(loss, {x})[0];
  sx::Array xv = sx::testing::random_array({5}, -1, 1, 3);
  sx::Array gv = sx::function({x}, {g})({xv})[0];
  const double h = 1e-6;
  for (std::int64_t i = 0; i < 5; ++i) {
    auto at = [&](double d) {
      double s = 0;
      for (std::int64_t j = 0; j < 5; ++j) s += std::sin(std::pow(xv.get_flat(j) + (i == j ? d : 0), 3));
      return s;
    };
    EXPECT_NEAR(gv.get_flat(i), (at(h) - at(-h)) / (2 * h), 1e-7) << "element " << i;
  }
}

TEST(HostCall, ErrorsNameTheCallAndTheFix) {
  sx::reset_default_graph();
  auto x = sx::placeholder({3}, sx::f32, "x");
  sx::HostCallSpec wrong = cube(nullptr, false);
  wrong.name = "wrong_type";
  wrong.infer = [](const std::vector<sx::TensorType>&) { return sx::TensorType{{4}, sx::DType::f32}; };
  int line = __LINE__ + 1;
  auto y = sx::host_call(wrong, {x});
  try {
    y.eval({{x, sx::Array::ones({3})}});
    FAIL() << "no error";
  } catch (const sx::ValueError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("host_call 'wrong_type' (built at test_host_call.cpp:" + std::to_string(line)), std::string::npos)
        << m;
    EXPECT_NE(m.find("returned float32 (3,) but its infer rule gave float32 (4,)"), std::string::npos) << m;
  }
  // No gradient rule: differentiating through the call says so.
  auto z = sx::host_call(cube(nullptr, false), {x});
  try {
    sx::grad(sx::sum(z), {x});
    FAIL() << "no error";
  } catch (const sx::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("host_call 'cube'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("stop_gradient"), std::string::npos) << e.what();
  }
  // Its exceptions reach the caller; no compute function or no input is caught when building.
  sx::HostCallSpec throws = cube(nullptr, false);
  throws.compute = [](const std::vector<sx::Array>&) -> sx::Array { throw sx::IOError("peer gone"); };
  auto f = sx::function({x}, {sx::host_call(throws, {x})});
  EXPECT_THROW(f({sx::Array::ones({3})}), sx::IOError);
  sx::HostCallSpec empty;
  empty.name = "empty";
  EXPECT_THROW(sx::host_call(empty, {x}), sx::ValueError);
  EXPECT_THROW(sx::host_call(cube(nullptr, false), {}), sx::ValueError);
}

// An early call (a collective on a bucket of gradients) is moved before the steps that do not lead
// to it; a call that is not early keeps the order of a plain topological sort.
TEST(HostCall, EarlyCallsRunBeforeStepsThatDoNotLeadToThem) {
  for (bool early : {false, true}) {
    sx::reset_default_graph();
    auto a = sx::placeholder({64, 64}, sx::f32, "a");
    auto b = sx::placeholder({64, 64}, sx::f32, "b");
    auto other = sx::matmul(sx::tanh(sx::matmul(b, b)), b);  // work that does not lead to the call
    auto call = sx::host_call(cube(nullptr, false, early), {sx::matmul(a, a)});
    auto out = other + call;  // the topological order visits `other` first
    cg::FusionPlan plan = cg::plan_fusion({out}, symx::runtime::library_capabilities());
    std::size_t call_at = plan.steps.size(), last_matmul_of_b = 0;
    for (std::size_t i = 0; i < plan.steps.size(); ++i) {
      if (plan.steps[i].node == call) call_at = i;
      if (plan.steps[i].product() == other || plan.steps[i].node == other) last_matmul_of_b = i;
    }
    ASSERT_LT(call_at, plan.steps.size());
    if (early) EXPECT_LT(call_at, last_matmul_of_b) << "early: the call runs before the other branch";
    else EXPECT_GT(call_at, last_matmul_of_b) << "not early: the plain order";
    // Either order computes the same values.
    sx::Array av = sx::testing::random_array({64, 64}, -0.2, 0.2, 1, sx::DType::f32);
    sx::Array bv = sx::testing::random_array({64, 64}, -0.2, 0.2, 2, sx::DType::f32);
    auto f = sx::function({a, b}, {out});
    auto r = sx::function({a, b}, {out}, {}, {.backend = sx::Backend::reference});
    sx::testing::expect_close(f({av, bv})[0], r({av, bv})[0], 1e-4, 1e-5);
  }
}

// Fusion grouping: decides which nodes are materialized in buffers and which are computed inline
// inside the kernel of their consumer.
#include <unordered_map>

#include "codegen/kernel.hpp"
#include "runtime/library_calls.hpp"
#include "symx/function.hpp"

namespace symx::codegen {

bool is_reduction(OpKind op) {
  return op == OpKind::Sum || op == OpKind::Prod || op == OpKind::Max || op == OpKind::Min;
}

bool fusible(OpKind op) {
  switch (op) {
    case OpKind::Placeholder: case OpKind::Variable: case OpKind::Constant:
    case OpKind::Argmax: case OpKind::Argmin: case OpKind::Cumsum:
    case OpKind::Reshape: case OpKind::Concatenate: case OpKind::Unslice: case OpKind::Pad:
    case OpKind::Take: case OpKind::ScatterAdd: case OpKind::TakeAlongAxis: case OpKind::ScatterAddAlongAxis:
    case OpKind::Matmul: case OpKind::Inv: case OpKind::Det: case OpKind::Slogdet: case OpKind::Cholesky:
    case OpKind::Solve: case OpKind::TriangularSolve:
    case OpKind::Conv: case OpKind::ConvBackwardInput: case OpKind::ConvBackwardFilter:
    case OpKind::MaxPool: case OpKind::MaxPoolGrad: case OpKind::AvgPool: case OpKind::AvgPoolGrad:
    case OpKind::RandomUniform: case OpKind::RandomNormal: case OpKind::RandomTruncatedNormal:
    case OpKind::RandomBernoulli: case OpKind::RandomRandint: case OpKind::RandomPermutation:
    case OpKind::SoftmaxCrossEntropy: case OpKind::SoftmaxCrossEntropyGrad:
      return false;
    case OpKind::Negative: case OpKind::Abs: case OpKind::Sign: case OpKind::Exp: case OpKind::Expm1:
    case OpKind::Log: case OpKind::Log1p: case OpKind::Sqrt: case OpKind::Rsqrt: case OpKind::Square:
    case OpKind::Reciprocal: case OpKind::Sin: case OpKind::Cos: case OpKind::Tan: case OpKind::Tanh:
    case OpKind::Arctan: case OpKind::Sigmoid: case OpKind::Erf: case OpKind::Floor: case OpKind::Ceil:
    case OpKind::Round: case OpKind::LogicalNot: case OpKind::IsNan: case OpKind::IsFinite:
    case OpKind::Cast: case OpKind::StopGradient:
    case OpKind::Add: case OpKind::Subtract: case OpKind::Multiply: case OpKind::Divide: case OpKind::Power:
    case OpKind::Maximum: case OpKind::Minimum: case OpKind::Mod: case OpKind::Arctan2: case OpKind::Equal:
    case OpKind::NotEqual: case OpKind::Less: case OpKind::LessEqual: case OpKind::Greater:
    case OpKind::GreaterEqual: case OpKind::LogicalAnd: case OpKind::LogicalOr: case OpKind::Where:
    case OpKind::Sum: case OpKind::Prod: case OpKind::Max: case OpKind::Min:
    case OpKind::Transpose: case OpKind::BroadcastTo: case OpKind::Slice:
      return true;
  }
  return false;
}

namespace {

Role role_of_unfusible(const Tensor& t) {
  // Matrix products, convolutions and pooling: the program asks for a library call and runs the
  // reference evaluation when none applies to the node's dtype or attributes.
  if (runtime::library_handles(t.op())) return is_floating(t.dtype()) ? Role::library : Role::fallback;
  switch (t.op()) {
    case OpKind::Placeholder: case OpKind::Variable: case OpKind::Constant: return Role::leaf;
    case OpKind::Reshape: return Role::alias;
    // Row kernels: generated, but over materialized operands (see kernel_rows.hpp).
    case OpKind::SoftmaxCrossEntropy: case OpKind::SoftmaxCrossEntropyGrad: return Role::kernel;
    default: return Role::fallback;
  }
}

// Elements of its input a node visits per output element is 1 for elementwise ops and views, so
// inlining a producer of the consumer's size never recomputes anything. Reductions visit their
// whole input, which is what they are for.
bool inline_into(const Tensor& producer, const Tensor& consumer) {
  if (!fusible(consumer.op())) return false;
  if (is_reduction(consumer.op())) return true;
  return producer.size() == consumer.size() || consumer.op() == OpKind::Slice || consumer.op() == OpKind::Transpose;
}

}  // namespace

FusionPlan plan_fusion(const std::vector<Tensor>& roots) {
  std::vector<Tensor> order = topological_order(roots);
  std::unordered_map<const Node*, int> uses;
  std::unordered_map<const Node*, Tensor> only_consumer;
  for (const Tensor& t : order)
    for (const Tensor& in : t.node().inputs) {
      ++uses[&in.node()];
      only_consumer[&in.node()] = t;
    }
  for (const Tensor& r : roots) uses[&r.node()] += 2;  // a root is always materialized

  std::unordered_map<const Node*, Role> role;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {  // consumers before producers
    const Tensor& t = *it;
    if (!fusible(t.op())) { role[&t.node()] = role_of_unfusible(t); continue; }
    const Tensor* consumer = uses[&t.node()] == 1 ? &only_consumer[&t.node()] : nullptr;
    bool inlined = consumer && role[&consumer->node()] != Role::alias && inline_into(t, *consumer);
    role[&t.node()] = inlined ? Role::inlined : Role::kernel;
  }

  FusionPlan plan;
  for (const Tensor& t : order) {
    Role r = role[&t.node()];
    if (r == Role::leaf) { plan.leaves.push_back(t); continue; }
    if (r == Role::inlined) continue;
    Step step{r, t};
    if (r == Role::kernel) {
      Kernel k;
      k.name = "k" + std::to_string(plan.kernels.size());
      k.root = t;
      // Walk the inlined tree; materialized nodes become loads (each once, in first-use order).
      std::vector<Tensor> stack{t};
      std::unordered_map<const Node*, bool> loaded;
      std::vector<Tensor> visit;
      while (!stack.empty()) {
        Tensor n = stack.back();
        stack.pop_back();
        if (!(n == t) && role[&n.node()] != Role::inlined) {
          if (!loaded[&n.node()]) { loaded[&n.node()] = true; k.loads.push_back(n); }
          continue;
        }
        k.inlined.insert(&n.node());
        const auto& ins = n.node().inputs;
        for (auto in = ins.rbegin(); in != ins.rend(); ++in) stack.push_back(*in);
      }
      step.kernel = static_cast<int>(plan.kernels.size());
      plan.kernels.push_back(std::move(k));
    }
    plan.steps.push_back(step);
  }
  return plan;
}

}  // namespace symx::codegen

// Graph rewrites run before compilation. Each pass takes the roots of a program (the outputs and
// update values of a function) and returns roots that compute the same values; nodes are
// immutable, so a pass rebuilds the nodes above anything it changes. `optimize` is the pipeline.
#pragma once

#include <string>
#include <vector>

#include "symx/tensor.hpp"

namespace symx::passes {

using Roots = std::vector<Tensor>;

// Keeps only nodes reachable from the roots, each once (the program is its topological order).
std::vector<Tensor> eliminate_dead_code(const Roots& roots);
// Merges nodes with the same op, attributes and inputs (and equal small constants).
Roots eliminate_common_subexpressions(const Roots& roots);
// Replaces nodes whose inputs are all constants by their value (reference evaluator), unless the
// result would be much larger than the inputs.
Roots fold_constants(const Roots& roots);
// Identities: x*1, x+0, x-0, x-x, x/1, --x, !!x, transpose/reshape/broadcast/cast chains,
// stop_gradient (forward semantics only: run after autodiff).
Roots simplify_algebra(const Roots& roots);
// log(1+x) -> log1p(x), log(sigmoid(x)) -> -softplus(-x), log(a/b) over exp -> log-space forms
// (so log(softmax(x)) becomes log_softmax), log(sum(exp(x))) -> logsumexp(x), and
// -sum(y * log_softmax(x)) -> softmax_cross_entropy(x, y) (one op; other summed axes stay sums),
// and log_softmax's gradient G - softmax(x) * sum(G) -> softmax_cross_entropy_grad.
Roots stabilize_numerics(const Roots& roots);

// Scans of one lineage over the same inputs (a scan and the same scan extended with the residuals
// its gradient saves) become one node: the parts of the shorter read the longer's.
Roots merge_loops(const Roots& roots);
// Scans whose stacked outputs are partly unused (the cotangent of a data sequence that nothing
// differentiates) are rebuilt without them, so their bodies no longer compute them.
Roots prune_loop_outputs(const Roots& roots);

// The pipeline, in order, repeated until nothing changes (at most a few rounds):
// fold_constants, simplify_algebra, stabilize_numerics, eliminate_common_subexpressions.
Roots optimize(const Roots& roots);

// How many rewrites each rule made in this thread since the last reset (for tests and
// SYMX_DEBUG tracing).
int rule_count(const std::string& rule);
void reset_rule_counts();

}  // namespace symx::passes

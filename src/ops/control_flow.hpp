// Control flow inside the op layer: the rows of scan, while_loop, switch and part, and what the
// other layers share about them (building a node from a spec, a region's reference evaluation,
// specializing a spec to a call's sizes). The public builders are in symx/control_flow.hpp.
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include "symx/control_flow.hpp"
#include "symx/tensor.hpp"

namespace symx::ops {

// Whether `op` holds regions (scan, while_loop, switch).
inline bool is_loop(OpKind op) { return op == OpKind::Scan || op == OpKind::WhileLoop || op == OpKind::Switch; }
// The spec of a scan, while_loop or switch node.
const LoopSpec& loop_spec(const Tensor& node);
const std::shared_ptr<const LoopSpec>& loop_spec_ptr(const Tensor& node);

// A placeholder of a region (not in the graph's placeholder collection).
Tensor region_param(const TensorType& type, const std::string& name);

// `roots` with the nodes of `with` replaced (keys: the nodes replaced), every node above them rebuilt.
std::vector<Tensor> replace_nodes(const std::vector<Tensor>& roots,
                                  const std::unordered_map<const Node*, Tensor>& with);

// Builds the node of `spec` over `inputs` (in the spec's order) and returns its parts, one per
// result. Regions may read outer tensors: those become invariants. Work in a region that depends
// only on invariants is hoisted out (computed once, before the loop), and a scan's work that
// depends only on its sequences and invariants and holds a matrix product (an RNN's input
// projection) is computed for the whole sequence at once. `traced_from`: the first node id the
// user's body built (random draws among them are refused); `loc`: the user's call.
std::vector<Tensor> build_loop(LoopSpec spec, std::vector<Tensor> inputs, std::uint64_t traced_from, Loc loc);

// The loop of a traced spec (LoopSpec::traced) whose regions were edited (clone): captures,
// hoisting and the node again, over `inputs` (its traced_inputs, possibly replaced). Returns the
// node (its parts are rebuilt over it as any node).
Tensor rebuild_traced_loop(LoopSpec traced, std::vector<Tensor> inputs, Loc loc);

// The node of a spec that is complete as it is (a gradient's scan, a scan extended with residuals):
// no capture; hoisting only when `hoist`. Returns its parts.
std::vector<Tensor> make_loop_node(LoopSpec spec, std::vector<Tensor> inputs, bool hoist, Loc loc = Loc::current());
// A fresh id for a spec's lineage.
std::uint64_t next_lineage_id();

// The node over `inputs` of new shapes (a call's sizes), its regions specialized to them:
// `specialize` gives a region over params of the given shapes. Returns the new node (its parts are
// rebuilt over it as any node).
using RegionSpecializer = std::function<Region(const Region& region, const std::vector<Shape>& param_shapes)>;
Tensor respecialize_loop(const Node& node, const std::vector<Tensor>& inputs, const RegionSpecializer& specialize);

// The values of a region's results for its params' values (the reference evaluator's rules).
std::vector<Array> evaluate_region(const Region& region, const std::vector<Array>& args);

// A spec's results packed into one byte buffer: each result at its 64-byte aligned offset.
TensorType packed_type(const LoopSpec& spec);

}  // namespace symx::ops

// symx/loop_spec.hpp: what a control-flow node holds (core: the printers and every pass read it).
// The builders are in symx/control_flow.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "symx/tensor.hpp"

namespace symx {

// A sub-graph over its own placeholders: the body of a loop or a branch of a switch.
struct Region {
  std::vector<Tensor> params;   // placeholders the body reads (carries, slices, invariants)
  std::vector<Tensor> results;  // what the body returns
};

// What a control-flow node computes (shared by the node and its parts; immutable once built).
//  scan:   inputs [carries, sequences, invariants]; regions[0] maps params [carries, slices,
//          invariants] to [new carries, outputs]; results [final carries, stacked outputs].
//  while:  inputs [carries, invariants]; regions[0] (cond) maps [carries, invariants] to a bool
//          scalar, regions[1] (body) to new carries; results: the final carries.
//  switch: inputs [index, operands, invariants]; regions[k] (branch k) maps [operands,
//          invariants] to the results; only branch clamp(index, 0, n - 1) runs.
struct LoopSpec {
  enum class Kind { scan, while_loop, switch_ } kind = Kind::scan;
  std::vector<Region> regions;
  int carries = 0;          // scan, while: loop-carried values (scan: first of the region's results)
  int sequences = 0;        // scan: sliced along their first axis, one slice per iteration
  int operands = 0;         // switch: the branches' explicit arguments
  int invariants = 0;       // read unchanged by every iteration / branch (non_sequences and captures)
  std::int64_t length = 0;  // scan: the number of iterations (a symbol when unknown until a call)
  bool reverse = false;     // scan: iterate from the last slice to the first
  bool checkpoint = false;  // scan: its gradient recomputes the body instead of saving residuals
  // Which specs compute the same loop: the ids of the user's spec and of each extension of it (a
  // scan whose gradient needs residuals gets them as outputs appended after the user's), the last
  // being this spec's own. A spec whose lineage is a prefix of another's computes a prefix of its
  // results from the same inputs, so the passes merge the two nodes (passes::merge_loops).
  std::vector<std::uint64_t> lineage;
  // Rebuilt without some of its outputs (passes::prune_loop_outputs): its results are no longer a
  // prefix-extension of its lineage's, so no scan is merged into it.
  bool pruned = false;
  std::vector<TensorType> result_types;  // the node's results, in order
  std::vector<std::size_t> offsets;      // each result's byte offset in the node's packed value
  std::int64_t packed_bytes = 0;         // the node's own value: its results packed (a symbol if unknown)
  std::vector<std::string> carry_names;  // for messages: "carry 0", "h", ...
  std::string name;                      // "scan", "while_loop", "switch", "cond", "fori_loop", "map"
  // The spec as the user's bodies built it, before captures and hoisting rebuilt their nodes: its
  // regions still read outer tensors directly and hold the very nodes the bodies made, so that
  // clone() can replace one of them and build the loop again. Null for the loops autodiff builds.
  std::shared_ptr<const LoopSpec> traced;
  std::vector<Tensor> traced_inputs;  // in a traced spec: the inputs its builder passed, in order

  // Region k's label in debugprint, to_dot and describe: "body", "cond", "branch 1 (true)", ...
  std::string region_name(std::size_t k) const {
    if (kind == Kind::scan) return "body";
    if (kind == Kind::while_loop) return k == 0 ? "cond" : "body";
    std::string label = "branch " + std::to_string(k);
    if (name == "cond" && regions.size() == 2) label += k == 0 ? " (false)" : " (true)";
    return label;
  }
};

}  // namespace symx

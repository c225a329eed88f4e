// symx/graph.hpp: walking and printing a graph (core: they read nodes only, so every layer may
// use them).
#pragma once

#include <string>
#include <vector>

#include "symx/tensor.hpp"

namespace symx {

// The graph of `outputs` as an indented tree, one node a line: the function that built it with its id
// (and the primitive op in brackets when it differs: "relu#10 [where]"), name, shape, dtype, and
// the value of a constant of at most 8 elements ("= 0.5"); shared nodes are printed once and referred
// to by id after that. Python: one tensor or a list; a str.
// Example: print(debugprint(loss))
std::string debugprint(const std::vector<Tensor>& outputs);
// The graph of `outputs` in Graphviz dot syntax (a string). Python: one tensor or a list.
// Example: open("graph.dot", "w").write(to_dot(loss))
std::string to_dot(const std::vector<Tensor>& outputs);

// Nodes that `outputs` depend on, inputs before users, each once. Python: one tensor or a list.
// Example: [t.op for t in topological_order(y)]
std::vector<Tensor> topological_order(const std::vector<Tensor>& outputs);

}  // namespace symx

// symx/graph.hpp: walking and printing a graph (core: they read nodes only, so every layer may
// use them).
#pragma once

#include <optional>
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

// ---- SymJAX's graph API ----
// The graph new nodes join (the default graph), as SymJAX's current_graph(). Python: the Graph object.
// Example: current_graph().variables()
Graph& current_graph();
// The nodes `outputs` depend on, without `outputs` themselves (SymJAX's Graph.ancestors), inputs first.
// Example: ancestors(loss) holds every variable and placeholder of the loss
std::vector<Tensor> ancestors(const std::vector<Tensor>& outputs);
// The placeholders and variables `outputs` depend on (SymJAX's Graph.roots), in topological order; the
// graph's internal random-state variable is left out.
// Example: roots(loss) is [x, w, b]
std::vector<Tensor> roots(const std::vector<Tensor>& outputs);
// The variables `outputs` depend on, only the trainable (true) or non-trainable (false) ones when
// `trainable` is given (SymJAX's Tensor.variables; Python: t.variables(trainable=True)).
// Example: variables_of(loss) is [w, b]
std::vector<Tensor> variables_of(const std::vector<Tensor>& outputs, std::optional<bool> trainable = true);
// Variables of the default graph matching SymJAX's patterns: `name` (fnmatch's * ? [...]) matched against
// the variable's own name ("w") or its whole scoped name with or without the leading "/"
// ("/model1/layer1/w"), and `scope` a prefix of its scope ("/model1/" matches "/model1/layer1/");
// only the trainable ones by default, as SymJAX (trainable = None: all).
// Example: get_variables("*/w"), get_variables("*", "/model1/")
std::vector<Tensor> get_variables(const std::string& name = "*", const std::string& scope = "/",
                                  std::optional<bool> trainable = true);
// Placeholders of the default graph matching `name` and `scope` as get_variables.
// Example: get_placeholders("x*")
std::vector<Tensor> get_placeholders(const std::string& name = "*", const std::string& scope = "/");
// Op nodes of the default graph that are still alive, matching `name` (against the op's display name, such as
// "add" or "relu", or its scoped path "/scope/add", or a node's own name) and `scope` as get_variables.
// Example: get_ops("*add") finds the additions
std::vector<Tensor> get_ops(const std::string& name = "*", const std::string& scope = "/");

}  // namespace symx

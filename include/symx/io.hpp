// symx/io.hpp: saving and loading variables in the safetensors format.
#pragma once

#include <string>
#include <vector>

#include "symx/tensor.hpp"

namespace symx {

// Writes the values of `vars` (default: every variable of the default graph) keyed by their
// scoped names. The write is atomic: a temporary file in the same folder, then a rename.
void save_variables(const std::string& path, const std::vector<Tensor>& vars = {});
// Reads `path` and assigns each listed variable (default: every variable of the default graph)
// the value stored under its name. Every name, shape and dtype is checked before anything is
// assigned: on any mismatch IOError is thrown and no variable changes.
void load_variables(const std::string& path, const std::vector<Tensor>& vars = {});

}  // namespace symx

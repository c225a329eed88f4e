// symx/io.hpp: saving and loading variables in the safetensors format.
#pragma once

#include <string>
#include <vector>

#include "symx/tensor.hpp"

namespace symx {

// Writes the values of `vars` (default: every variable of the default graph) keyed by their
// scoped names. The write is atomic and durable: a temporary file in the same folder, synced to
// disk, renamed over `path`, then the folder synced. Temporary files left by writers of `path`
// that died are removed. A variable named "__metadata__" (reserved by the format) is a ValueError.
// Example: save_variables("model.safetensors")
void save_variables(const std::string& path, const std::vector<Tensor>& vars = {});
// Reads `path` and assigns each listed variable (default: every variable of the default graph)
// the value stored under its name. The whole file is validated first as the reference
// implementation does (a regular file; a UTF-8 JSON header of at most 100 MB without duplicate
// keys; known dtypes; offsets matching each shape and tiling the data section exactly), then every
// name, shape and dtype is checked: on any problem IOError is thrown and no variable changes.
// Example: load_variables("model.safetensors", variables("encoder/*"))
void load_variables(const std::string& path, const std::vector<Tensor>& vars = {});

}  // namespace symx

// Helpers shared by the files of the training loop (not part of the public API).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "symx/train.hpp"

namespace symx::train::detail {

// Writes `content` to `path` durably and atomically: a temporary file in the same folder, fsync,
// rename over `path`, fsync of the folder. Throws IOError naming the path.
void write_file_atomic(const std::string& path, const std::string& content);
// fsync of a folder, so that a rename inside it is durable.
void sync_directory(const std::string& dir);
// One epoch's metrics as JSON (NaN as null) and back.
nlohmann::ordered_json to_json(const EpochMetrics& m);
EpochMetrics metrics_from_json(const nlohmann::json& j, const std::string& file);

}  // namespace symx::train::detail

// Helpers shared by the files of the training loop (not part of the public API).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "symx/train.hpp"

namespace symx::train::detail {

// Writes `content` to `path` with symx::write_file_atomically (a temporary file of an unguessable
// name, fsync, rename, folder fsync). Throws IOError naming `what` and the path.
void write_file_atomic(const std::string& path, const std::string& content, const char* what = "fit");
// fsync of a folder, so that a rename inside it is durable.
void sync_directory(const std::string& dir);
// Parses `text` (the contents of `file`) as JSON nested at most `max_depth` levels: deeper text is
// refused before parsing, since copying or printing such a value recurses once per level and
// would overflow the stack. IOError naming the file, quoting at most a short excerpt.
nlohmann::json parse_json(const std::string& text, const std::string& file, int max_depth);
// `value` as JSON text cut to at most `limit` characters, for error messages.
std::string excerpt(const nlohmann::json& value, std::size_t limit = 60);
// One epoch's metrics as JSON (NaN as null) and back.
nlohmann::ordered_json to_json(const EpochMetrics& m);
EpochMetrics metrics_from_json(const nlohmann::json& j, const std::string& file);

}  // namespace symx::train::detail

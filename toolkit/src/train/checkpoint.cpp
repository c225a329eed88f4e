// Checkpoints of a training run: checkpoint-<step>/ (variables.safetensors, state.json and
// SHA256SUMS, the SHA-256 of both) and the pointer file LATEST. The set is atomic as a unit: the
// files are written into a temporary folder of an unguessable name that is synced and renamed into
// place, and only then is LATEST replaced (atomically). A crash at any moment leaves LATEST naming
// a complete checkpoint; leftovers are removed by the next save. Every file is read only after
// checking that it is a regular file of bounded size, and its SHA-256 is checked before use.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "symx/data/download.hpp"  // sha256_file, sha256_hex
#include "symx/io.hpp"
#include "train_internal.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace symx::train {
namespace detail {

void sync_directory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    throw IOError("cannot open the folder '" + dir + "': " + std::strerror(errno) +
                  ". Check that the folder exists and is writable.");
  ::fsync(fd);
  ::close(fd);
}

void write_file_atomic(const std::string& path, const std::string& content, const char* what) {
  write_file_atomically(path, what, [&](int fd) { write_all_to(fd, content); });
}

std::string excerpt(const json& value, std::size_t limit) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  return text.size() <= limit ? text : text.substr(0, limit - 3) + "...";
}

json parse_json(const std::string& text, const std::string& file, int max_depth) {
  // Bracket depth outside strings: linear, no recursion, and it stops at the first level too deep.
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        throw IOError("'" + file + "' nests JSON objects and lists more than " + std::to_string(max_depth) +
                      " levels deep (at byte " + std::to_string(i) + "); symx writes it " +
                      "far less nested. The file is damaged or was not written by symx.");
    } else if (c == ']' || c == '}') {
      depth = std::max(0, depth - 1);
    }
  }
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    std::string why = e.what();  // quotes the token where parsing stopped, which may be long
    if (why.size() > 200) why = why.substr(0, 197) + "...";
    throw IOError("'" + file + "' is not valid JSON (" + why + "). The file is damaged.");
  }
}

nlohmann::ordered_json to_json(const EpochMetrics& m) {
  using oj = nlohmann::ordered_json;
  auto num = [](double v) { return std::isfinite(v) ? oj(v) : oj(nullptr); };
  return oj{{"epoch", m.epoch},
            {"train_loss", num(m.train_loss)},
            {"train_accuracy", num(m.train_accuracy)},
            {"val_loss", num(m.val_loss)},
            {"val_accuracy", num(m.val_accuracy)},
            {"seconds", num(m.seconds)},
            {"step_seconds", num(m.step_seconds)},
            {"items_per_second", num(m.items_per_second)},
            {"lr", num(m.lr)}};
}

EpochMetrics metrics_from_json(const json& j, const std::string& file) {
  if (!j.is_object() || !j.contains("epoch") || !j["epoch"].is_number_integer() || j["epoch"].get<double>() < 1 ||
      j["epoch"].get<double>() > 1e9)
    throw IOError("checkpoint '" + file + "': an entry of \"history\" is not an object with an integer \"epoch\" " +
                  "from 1 to 1e9 (" + excerpt(j) + "). The file is damaged; resume from another run folder.");
  auto num = [&](const char* key) {
    if (!j.contains(key) || j[key].is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!j[key].is_number())
      throw IOError("checkpoint '" + file + "': \"" + key + "\" of epoch " + j["epoch"].dump() + " is " +
                    excerpt(j[key]) + ", not a number. The file is damaged.");
    return j[key].get<double>();
  };
  EpochMetrics m;
  m.epoch = j["epoch"].get<std::int64_t>();
  m.train_loss = num("train_loss");
  m.train_accuracy = num("train_accuracy");
  m.val_loss = num("val_loss");
  m.val_accuracy = num("val_accuracy");
  m.seconds = num("seconds");
  m.step_seconds = num("step_seconds");
  m.items_per_second = num("items_per_second");
  m.lr = num("lr");
  return m;
}

}  // namespace detail

namespace {

constexpr const char* kFormat = "symx-checkpoint";
constexpr int kVersion = 1;
constexpr const char* kSums = "SHA256SUMS";
constexpr const char* kVariables = "variables.safetensors";
constexpr const char* kState = "state.json";
// Bounds of what symx writes, far above any real run: a larger file is not a checkpoint.
constexpr std::uint64_t kMaxPointerBytes = 4096, kMaxSumsBytes = 4096, kMaxStateBytes = 64ull << 20;
constexpr int kMaxStateDepth = 16;  // state.json nests 3 levels

// ---- SHA256SUMS: "<64 hex digits>  <file name>" lines, as sha256sum writes (and -c checks) ----

using Sums = std::map<std::string, std::string>;  // file name -> hex digest

Sums parse_sums(const std::string& text, const std::string& file) {
  Sums sums;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    bool ok = line.size() > 66 && line.compare(64, 2, "  ") == 0 && line.find_first_not_of("0123456789abcdef") == 64;
    std::string name = ok ? line.substr(66) : "";
    if (!ok || (name != kVariables && name != kState) || sums.count(name))
      throw IOError("checkpoint '" + file + "': the line '" + line.substr(0, 80) + "' is not '<SHA-256>  " +
                    kVariables + "' or '<SHA-256>  " + kState + "' (once each). The file is damaged.");
    sums[name] = line.substr(0, 64);
  }
  for (const char* name : {kVariables, kState})
    if (!sums.count(name))
      throw IOError("checkpoint '" + file + "' has no line for " + name + ". The file is damaged.");
  return sums;
}

void check_sum(const Sums& sums, const std::string& name, const std::string& found, const fs::path& dir) {
  const std::string& expected = sums.at(name);
  if (found != expected)
    throw IOError("checkpoint '" + (dir / name).string() + "' has SHA-256 " + found + " but " + kSums + " says " +
                  expected + ": the file was changed or damaged after it was written. Resume from another " +
                  "run folder, or start the run again.");
}

// The sums of the checkpoint folder `dir`, or none for a checkpoint written before symx checked
// them (loaded unchecked, with a warning once per folder).
std::optional<Sums> read_sums(const fs::path& dir) {
  const fs::path file = dir / kSums;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(file, ec))) {
    static std::mutex mutex;
    static std::set<std::string> warned;
    std::lock_guard<std::mutex> lock(mutex);
    if (warned.insert(dir.string()).second)
      std::fprintf(stderr,
                   "symx: warning: the checkpoint '%s' has no %s (it was written by a symx before checkpoints "
                   "carried checksums), so its files are loaded without an integrity check. The next checkpoint "
                   "of the run will carry them.\n",
                   dir.c_str(), kSums);
    return std::nullopt;
  }
  return parse_sums(read_regular_file(file.string(), kMaxSumsBytes, "read_checkpoint"), file.string());
}

// ---- state.json ----

std::vector<Tensor> checkpoint_variables(const std::vector<Tensor>& given) {
  std::vector<Tensor> vars = given.empty() ? variables() : given;
  vars.push_back(default_graph().random_state());
  return vars;
}

nlohmann::ordered_json info_to_json(const CheckpointInfo& info) {
  using oj = nlohmann::ordered_json;
  oj history = oj::array();
  for (const auto& m : info.history) history.push_back(detail::to_json(m));
  auto num = [](double v) { return std::isfinite(v) ? oj(v) : oj(nullptr); };
  return oj{{"format", kFormat},
            {"version", kVersion},
            {"epoch", info.epoch},
            {"batch", info.batch},
            {"step", info.step},
            {"seed", info.seed},
            {"processes", info.processes},
            {"history", history},
            {"config", info.config},
            {"partial",
             {{"loss_sum", num(info.partial_loss_sum)},
              {"correct", num(info.partial_correct)},
              {"count", info.partial_count},
              {"step_seconds", num(info.partial_step_seconds)},
              {"seconds", num(info.partial_seconds)}}}};
}

const json& field(const json& j, const char* key, const std::string& file) {
  if (!j.is_object() || !j.contains(key))
    throw IOError("checkpoint '" + file + "': the field \"" + key +
                  "\" is missing. The file is damaged or was not written by symx::train.");
  return j[key];
}

// An integer field within [lo, hi]: symx writes nothing outside, and the loop's arithmetic on
// larger values would overflow.
std::int64_t int_field(const json& j, const char* key, std::int64_t lo, std::int64_t hi, const std::string& file) {
  const json& v = field(j, key, file);
  bool in_range = false;
  if (v.is_number_unsigned()) {
    const std::uint64_t u = v.get<std::uint64_t>();
    in_range = u <= static_cast<std::uint64_t>(hi) && static_cast<std::int64_t>(u) >= lo;
  } else if (v.is_number_integer()) {
    const std::int64_t i = v.get<std::int64_t>();
    in_range = i >= lo && i <= hi;
  }
  if (!in_range)
    throw IOError("checkpoint '" + file + "': the field \"" + key + "\" is " + detail::excerpt(v) +
                  ", expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
                  ". The file is damaged or was not written by symx::train.");
  return v.get<std::int64_t>();
}

// A number field; null stands for NaN (JSON has no NaN).
double number_field(const json& j, const char* key, const std::string& file) {
  const json& v = field(j, key, file);
  if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!v.is_number())
    throw IOError("checkpoint '" + file + "': the field \"" + key + "\" is " + detail::excerpt(v) +
                  ", expected a number. The file is damaged.");
  return v.get<double>();
}

constexpr std::int64_t kMaxCount = std::int64_t{1} << 62;  // steps, batches, examples

CheckpointInfo info_from_json(const json& j, const std::string& file) {
  if (!j.is_object() || !j.contains("format") || j["format"] != kFormat)
    throw IOError("checkpoint '" + file + "': not a symx checkpoint (no \"format\": \"symx-checkpoint\").");
  if (int_field(j, "version", 0, 1 << 30, file) != kVersion)
    throw IOError("checkpoint '" + file + "': version " + j["version"].dump() + ", this symx reads version " +
                  std::to_string(kVersion) + ".");
  CheckpointInfo info;
  info.epoch = int_field(j, "epoch", 0, 1'000'000'000, file);
  info.batch = int_field(j, "batch", 0, kMaxCount, file);
  info.step = int_field(j, "step", 0, kMaxCount, file);
  const json& seed = field(j, "seed", file);
  if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<std::int64_t>() >= 0))
    throw IOError("checkpoint '" + file + "': the field \"seed\" is " + detail::excerpt(seed) +
                  ", expected an integer from 0 to 2^64 - 1. The file is damaged.");
  info.seed = seed.get<std::uint64_t>();
  // Checkpoints written before distributed training have no "processes": one process wrote them.
  info.processes = j.contains("processes") ? int_field(j, "processes", 1, 1 << 24, file) : 1;
  const json& history = field(j, "history", file);
  if (!history.is_array()) throw IOError("checkpoint '" + file + "': \"history\" is not a list.");
  for (const auto& m : history) info.history.push_back(detail::metrics_from_json(m, file));
  const json& config = field(j, "config", file);
  if (!config.is_object()) throw IOError("checkpoint '" + file + "': \"config\" is not an object.");
  for (const auto& [key, value] : config.items()) {
    if (!value.is_string())
      throw IOError("checkpoint '" + file + "': config \"" + key.substr(0, 60) + "\" is " + detail::excerpt(value) +
                    ", expected a string. The file is damaged.");
    info.config[key] = value.get<std::string>();
  }
  const json& partial = field(j, "partial", file);
  info.partial_loss_sum = number_field(partial, "loss_sum", file);
  info.partial_correct = number_field(partial, "correct", file);
  info.partial_count = int_field(partial, "count", 0, kMaxCount, file);
  info.partial_step_seconds = number_field(partial, "step_seconds", file);
  info.partial_seconds = number_field(partial, "seconds", file);
  return info;
}

// ---- the run folder ----

// The pid in the name of a temporary folder ".checkpoint-<step>.tmp-<pid>[-<suffix>]", if it is one.
std::optional<pid_t> temp_folder_pid(const std::string& name) {
  if (name.rfind(".checkpoint-", 0) != 0) return std::nullopt;
  std::size_t at = name.find(".tmp-");
  if (at == std::string::npos) return std::nullopt;
  std::string pid = name.substr(at + 5, name.find('-', at + 5) - (at + 5));
  if (pid.empty() || pid.size() > 9 || pid.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return static_cast<pid_t>(std::stol(pid));
}

// Removes checkpoint folders other than `keep`, and the temporary folders of saves whose process
// died (a live process's save in progress is left alone).
void remove_stale(const fs::path& run_dir, const std::string& keep) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(run_dir, ec)) {
    std::string name = entry.path().filename().string();
    bool old_generation = name.rfind("checkpoint-", 0) == 0 && name != keep;
    std::optional<pid_t> pid = temp_folder_pid(name);
    bool dead_temporary = pid && *pid > 0 && ::kill(*pid, 0) != 0 && errno == ESRCH;
    if (old_generation || dead_temporary) fs::remove_all(entry.path(), ec);  // a link is removed, not followed
  }
}

// "checkpoint-<step>" or "checkpoint-<step>-<pid>", as save_checkpoint names them.
bool is_checkpoint_name(const std::string& name) {
  if (name.rfind("checkpoint-", 0) != 0 || name.size() > 64) return false;
  std::string rest = name.substr(11);
  std::size_t dash = rest.find('-');
  auto digits = [](const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
  };
  return digits(rest.substr(0, dash)) && (dash == std::string::npos || digits(rest.substr(dash + 1)));
}

std::string read_pointer(const fs::path& latest) {
  std::string name = read_regular_file(latest.string(), kMaxPointerBytes, "read_checkpoint");
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  return name;
}

// The checkpoint folder LATEST names, its state and its sums (none for an old checkpoint), with
// state.json's SHA-256 checked.
struct Located {
  fs::path dir;
  CheckpointInfo info;
  std::optional<Sums> sums;
};

Located locate(const std::string& run_dir) {
  fs::path latest = fs::path(run_dir) / "LATEST";
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(latest, ec)))
    throw IOError("no checkpoint in '" + run_dir + "': the file LATEST is missing. Resume a run folder written by " +
                  "`symx train --out DIR` or fit(..., out_dir=DIR), after its first checkpoint.");
  std::string name = read_pointer(latest);
  if (!is_checkpoint_name(name))
    throw IOError("checkpoint pointer '" + latest.string() + "' holds '" + name.substr(0, 60) +
                  "', not the name of a checkpoint-<step> folder. The file is damaged.");
  Located at{fs::path(run_dir) / name, {}, {}};
  const std::string state = (at.dir / kState).string();
  const std::string text = read_regular_file(state, kMaxStateBytes, "read_checkpoint");
  at.sums = read_sums(at.dir);
  if (at.sums) check_sum(*at.sums, kState, data::sha256_hex(text), at.dir);
  at.info = info_from_json(detail::parse_json(text, state, kMaxStateDepth), state);
  at.info.path = at.dir.string();
  return at;
}

}  // namespace

CheckpointInfo read_checkpoint(const std::string& run_dir) { return locate(run_dir).info; }

CheckpointInfo load_checkpoint(const std::string& run_dir, const std::vector<Tensor>& vars) {
  Located at = locate(run_dir);
  const std::string file = (at.dir / kVariables).string();
  if (at.sums) check_sum(*at.sums, kVariables, data::sha256_file(file), at.dir);
  load_variables(file, checkpoint_variables(vars));
  return at.info;
}

namespace {

// Fills the new temporary folder `tmp` with the checkpoint's three files and syncs it.
void write_checkpoint_files(const fs::path& tmp, const CheckpointInfo& info) {
  const std::string variables_file = (tmp / kVariables).string();
  save_variables(variables_file, checkpoint_variables({}));
  const std::string state = info_to_json(info).dump(1) + "\n";
  detail::write_file_atomic((tmp / kState).string(), state, "save_checkpoint");
  // The variables' sum is of the bytes on disk, so that what is checked on load is what was written.
  detail::write_file_atomic((tmp / kSums).string(),
                            data::sha256_file(variables_file) + "  " + kVariables + "\n" + data::sha256_hex(state) +
                                "  " + kState + "\n",
                            "save_checkpoint");
  detail::sync_directory(tmp.string());
}

}  // namespace

std::string save_checkpoint(const std::string& run_dir, const CheckpointInfo& info) {
  fs::path root(run_dir);
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) throw IOError("cannot create the run folder '" + run_dir + "': " + ec.message() + ".");
  std::string name = "checkpoint-" + std::to_string(info.step);
  // mkdtemp: a new folder of an unguessable name (never an existing one, nor a planted link).
  std::string pattern =
      (root / (".checkpoint-" + std::to_string(info.step) + ".tmp-" + std::to_string(::getpid()) + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw IOError("save_checkpoint: cannot create a temporary folder in '" + run_dir + "': " + std::strerror(errno) +
                  ". Check that the folder is writable.");
  const fs::path tmp = pattern;
  try {
    write_checkpoint_files(tmp, info);
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
  fs::path final_dir = root / name;
  // A folder of this name that LATEST does not point to is a leftover (a crash between the rename
  // and LATEST's update); the one LATEST points to is replaced through a second name.
  fs::path latest_file = root / "LATEST";
  bool is_current = false;
  try {
    is_current = fs::exists(fs::symlink_status(latest_file, ec)) && read_pointer(latest_file) == name;
  } catch (const IOError&) {
    // A damaged LATEST is replaced below.
  }
  if (is_current) {
    name += "-" + std::to_string(::getpid());
    final_dir = root / name;
  }
  fs::remove_all(final_dir, ec);
  if (::rename(tmp.c_str(), final_dir.c_str()) != 0) {
    const int error = errno;
    fs::remove_all(tmp, ec);
    throw IOError("cannot rename '" + tmp.string() + "' to '" + final_dir.string() + "': " + std::strerror(error) +
                  ".");
  }
  detail::sync_directory(root.string());
  detail::write_file_atomic(latest_file.string(), name + "\n", "save_checkpoint");
  remove_stale(root, name);
  return final_dir.string();
}

}  // namespace symx::train

// Checkpoints of a training run: checkpoint-<step>/ (variables.safetensors + state.json) and the
// pointer file LATEST. The pair is atomic as a unit: both files are written into a temporary folder
// that is synced and renamed into place, and only then is LATEST replaced (atomically). A crash at
// any moment leaves LATEST naming a complete checkpoint; leftovers are removed by the next save.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "symx/io.hpp"
#include "train_internal.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace symx::train {
namespace detail {

namespace {
[[noreturn]] void fail_io(const std::string& what, const std::string& path) {
  throw IOError(what + " '" + path + "': " + std::strerror(errno) + ". Check that the folder exists and is writable.");
}
}  // namespace

void sync_directory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) fail_io("cannot open the folder", dir);
  ::fsync(fd);
  ::close(fd);
}

void write_file_atomic(const std::string& path, const std::string& content) {
  fs::path target(path);
  std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail_io("cannot create", tmp);
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
      fail_io("cannot write", tmp);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    fail_io("cannot sync", tmp);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    fail_io("cannot rename a temporary file onto", path);
  }
  sync_directory(target.parent_path().empty() ? "." : target.parent_path().string());
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
  if (!j.is_object() || !j.contains("epoch") || !j["epoch"].is_number_integer())
    throw IOError("checkpoint '" + file + "': an entry of \"history\" is not an object with an integer \"epoch\" (" +
                  j.dump().substr(0, 80) + "). The file is damaged; resume from another run folder.");
  auto num = [&](const char* key) {
    if (!j.contains(key) || j[key].is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!j[key].is_number())
      throw IOError("checkpoint '" + file + "': \"" + key + "\" of epoch " + j["epoch"].dump() + " is not a number.");
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

std::vector<Tensor> checkpoint_variables(const std::vector<Tensor>& given) {
  std::vector<Tensor> vars = given.empty() ? variables() : given;
  vars.push_back(default_graph().random_state());
  return vars;
}

nlohmann::ordered_json info_to_json(const CheckpointInfo& info) {
  using oj = nlohmann::ordered_json;
  oj history = oj::array();
  for (const auto& m : info.history) history.push_back(detail::to_json(m));
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
             {{"loss_sum", info.partial_loss_sum},
              {"correct", info.partial_correct},
              {"count", info.partial_count},
              {"step_seconds", info.partial_step_seconds},
              {"seconds", info.partial_seconds}}}};
}

template <class T> T get_field(const json& j, const char* key, const std::string& file) {
  if (!j.contains(key))
    throw IOError("checkpoint '" + file + "': the field \"" + key +
                  "\" is missing. The file is damaged or was not written by symx::train.");
  try {
    return j[key].get<T>();
  } catch (const json::exception&) {
    throw IOError("checkpoint '" + file + "': the field \"" + key + "\" has the wrong type (" +
                  j[key].dump().substr(0, 60) + ").");
  }
}

CheckpointInfo info_from_json(const json& j, const std::string& file) {
  if (!j.is_object() || !j.contains("format") || j["format"] != kFormat)
    throw IOError("checkpoint '" + file + "': not a symx checkpoint (no \"format\": \"symx-checkpoint\").");
  if (get_field<int>(j, "version", file) != kVersion)
    throw IOError("checkpoint '" + file + "': version " + j["version"].dump() + ", this symx reads version " +
                  std::to_string(kVersion) + ".");
  CheckpointInfo info;
  info.epoch = get_field<std::int64_t>(j, "epoch", file);
  info.batch = get_field<std::int64_t>(j, "batch", file);
  info.step = get_field<std::int64_t>(j, "step", file);
  info.seed = get_field<std::uint64_t>(j, "seed", file);
  // Checkpoints written before distributed training have no "processes": one process wrote them.
  info.processes = j.contains("processes") ? get_field<std::int64_t>(j, "processes", file) : 1;
  if (info.processes < 1) throw IOError("checkpoint '" + file + "': \"processes\" is below 1.");
  if (info.epoch < 0 || info.batch < 0 || info.step < 0)
    throw IOError("checkpoint '" + file + "': a negative epoch, batch or step.");
  json history = get_field<json>(j, "history", file);
  if (!history.is_array()) throw IOError("checkpoint '" + file + "': \"history\" is not a list.");
  for (const auto& m : history) info.history.push_back(detail::metrics_from_json(m, file));
  info.config = get_field<std::map<std::string, std::string>>(j, "config", file);
  json partial = get_field<json>(j, "partial", file);
  info.partial_loss_sum = get_field<double>(partial, "loss_sum", file);
  info.partial_correct = get_field<double>(partial, "correct", file);
  info.partial_count = get_field<std::int64_t>(partial, "count", file);
  info.partial_step_seconds = get_field<double>(partial, "step_seconds", file);
  info.partial_seconds = get_field<double>(partial, "seconds", file);
  return info;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IOError("cannot read '" + path + "': " + std::strerror(errno) + ".");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Removes checkpoint folders other than `keep` and temporary folders of earlier saves.
void remove_stale(const fs::path& run_dir, const std::string& keep) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(run_dir, ec)) {
    std::string name = entry.path().filename().string();
    bool old_generation = name.rfind("checkpoint-", 0) == 0 && name != keep;
    bool temporary = name.rfind(".checkpoint-", 0) == 0 || name.rfind("LATEST.tmp-", 0) == 0;
    if (old_generation || temporary) fs::remove_all(entry.path(), ec);
  }
}

}  // namespace

CheckpointInfo read_checkpoint(const std::string& run_dir) {
  fs::path latest = fs::path(run_dir) / "LATEST";
  if (!fs::exists(latest))
    throw IOError("no checkpoint in '" + run_dir + "': the file LATEST is missing. Resume a run folder written by " +
                  "`symx train --out DIR` or fit(..., out_dir=DIR), after its first checkpoint.");
  std::string name = read_text(latest.string());
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  if (name.rfind("checkpoint-", 0) != 0 || name.find('/') != std::string::npos)
    throw IOError("checkpoint pointer '" + latest.string() + "' holds '" + name.substr(0, 60) +
                  "', not the name of a checkpoint-<step> folder. The file is damaged.");
  fs::path dir = fs::path(run_dir) / name;
  fs::path state = dir / "state.json";
  json j;
  try {
    j = json::parse(read_text(state.string()));
  } catch (const json::parse_error& e) {
    throw IOError("checkpoint '" + state.string() + "' is not valid JSON (" + e.what() + "). The file is damaged.");
  }
  CheckpointInfo info = info_from_json(j, state.string());
  info.path = dir.string();
  return info;
}

CheckpointInfo load_checkpoint(const std::string& run_dir, const std::vector<Tensor>& vars) {
  CheckpointInfo info = read_checkpoint(run_dir);
  load_variables((fs::path(info.path) / "variables.safetensors").string(), checkpoint_variables(vars));
  return info;
}

std::string save_checkpoint(const std::string& run_dir, const CheckpointInfo& info) {
  fs::path root(run_dir);
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) throw IOError("cannot create the run folder '" + run_dir + "': " + ec.message() + ".");
  std::string name = "checkpoint-" + std::to_string(info.step);
  fs::path tmp = root / (".checkpoint-" + std::to_string(info.step) + ".tmp-" + std::to_string(::getpid()));
  fs::remove_all(tmp, ec);
  fs::create_directory(tmp, ec);
  if (ec) throw IOError("cannot create '" + tmp.string() + "': " + ec.message() + ".");
  save_variables((tmp / "variables.safetensors").string(), checkpoint_variables({}));
  detail::write_file_atomic((tmp / "state.json").string(), info_to_json(info).dump(1) + "\n");
  detail::sync_directory(tmp.string());
  fs::path final_dir = root / name;
  // A folder of this name that LATEST does not point to is a leftover (a crash between the rename
  // and LATEST's update); the one LATEST points to is replaced through a second name.
  fs::path latest_file = root / "LATEST";
  bool is_current = false;
  if (fs::exists(latest_file)) {
    std::string current = read_text(latest_file.string());
    is_current = current.rfind(name + "\n", 0) == 0 || current == name;
  }
  if (is_current) {
    name += "-" + std::to_string(::getpid());
    final_dir = root / name;
  }
  fs::remove_all(final_dir, ec);
  if (::rename(tmp.c_str(), final_dir.c_str()) != 0)
    throw IOError("cannot rename '" + tmp.string() + "' to '" + final_dir.string() + "': " + std::strerror(errno) +
                  ".");
  detail::sync_directory(root.string());
  detail::write_file_atomic(latest_file.string(), name + "\n");
  remove_stale(root, name);
  return final_dir.string();
}

}  // namespace symx::train

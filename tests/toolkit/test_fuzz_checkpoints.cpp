// Fuzzing of checkpoint folders and of their JSON settings. A valid run folder (LATEST,
// state.json, variables.safetensors, SHA256SUMS) has one file mutated (bytes flipped, cut,
// extended, deeply nested JSON spliced in, replaced by a FIFO, a link to /dev/zero, a folder or
// nothing); load_checkpoint must then load or throw IOError, never crash, hang or throw anything
// else, and never load changed tensor data or settings (the SHA-256 sums catch them). The settings
// fuzzer crafts state.json at the JSON level with matching sums (an edited, not a damaged, file):
// read_checkpoint and `symx eval` must validate it or refuse it with an error.
// SYMX_FUZZ_FILES sets the number of mutated folders (default 300), SYMX_FUZZ_SEED the seed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

#include <symx/cli.hpp>
#include <symx/data.hpp>
#include <symx/data/download.hpp>
#include <symx/train.hpp>

#include "../cpp/test_util.hpp"

namespace sx = symx;
namespace tr = symx::train;
namespace fs = std::filesystem;
using symx::testing::read_bytes;
using symx::testing::write_bytes;

namespace {

fs::path fresh_dir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("symx_fuzz_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// The run folder's files by path relative to it.
using Folder = std::map<std::string, std::string>;

Folder read_folder(const fs::path& run) {
  Folder files;
  for (const auto& e : fs::recursive_directory_iterator(run))
    if (e.is_regular_file()) files[fs::relative(e.path(), run).string()] = read_bytes(e.path().string());
  return files;
}

void write_folder(const fs::path& run, const Folder& files) {
  fs::remove_all(run);
  for (const auto& [name, bytes] : files) {
    fs::create_directories((run / name).parent_path());
    write_bytes((run / name).string(), bytes);
  }
}

// One mutation of `bytes`: flips, a cut, an extension, a spliced deep nesting or number.
std::string mutate_bytes(std::string bytes, std::mt19937_64& rng, std::string& what) {
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % std::max<std::size_t>(n, 1)); };
  switch (rng() % 6) {
    case 0:
      for (int i = 1 + static_cast<int>(rng() % 4); i > 0 && !bytes.empty(); --i)
        bytes[pick(bytes.size())] ^= static_cast<char>(1u << (rng() % 8));
      what = "bytes flipped";
      break;
    case 1:
      bytes.resize(pick(bytes.size()));
      what = "cut to " + std::to_string(bytes.size());
      break;
    case 2:
      for (std::uint64_t n = 1 + rng() % 16; n > 0; --n) bytes += static_cast<char>(rng());
      what = "extended";
      break;
    case 3: {
      std::size_t depth = 1 + rng() % 100000;
      bytes.insert(pick(bytes.size() + 1), std::string(depth, "[{"[rng() % 2]));
      what = "nesting of " + std::to_string(depth) + " spliced in";
      break;
    }
    case 4: {
      static const char* const numbers[] = {
          "9223372036854775807", "18446744073709551616", "-1", "1e400", "-0", "0.5", "\"2000000\"", "null",
          "4611686018427387904"};
      std::size_t at = bytes.find_first_of("0123456789", pick(bytes.size()));
      if (at == std::string::npos) at = 0;
      bytes.replace(at, std::min<std::size_t>(1, bytes.size() - at), numbers[pick(std::size(numbers))]);
      what = "a number replaced";
      break;
    }
    default: bytes.insert(pick(bytes.size() + 1), 1, "{}[],:\"0-9 x\n\xff"[pick(15)]); what = "a byte inserted";
  }
  return bytes;
}

// Replaces `file` by a special file or removes it; a description of what, or "" when not chosen.
std::string make_special(const fs::path& file, std::mt19937_64& rng) {
  fs::remove_all(file);
  switch (rng() % 5) {
    case 0: ::mkfifo(file.c_str(), 0600); return "a FIFO";
    case 1: fs::create_symlink("/dev/zero", file); return "a link to /dev/zero";
    case 2: fs::create_directory(file); return "a folder";
    case 3: fs::create_symlink(file.string() + ".nowhere", file); return "a dangling link";
    default: return "removed";
  }
}

struct Base {
  fs::path root;
  Folder files;
  std::string checkpoint;  // "checkpoint-<step>"
  sx::Tensor w;            // a variable of the checkpoint, holding 1..6
};

// A checkpoint of three small variables and a history, as fit writes it.
Base make_base(const std::string& name) {
  Base b{fresh_dir(name), {}, "", {}};
  sx::reset_default_graph();
  b.w = sx::variable(sx::Array::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}), "net/w");
  sx::variable(sx::Array::from_vector<double>({7, 8}, {2}), "net/b");
  sx::variable(sx::Array::from_vector<std::int64_t>({9}, {1}), "step", false);
  tr::CheckpointInfo info;
  info.epoch = 3;
  info.step = 12;
  info.seed = 5;
  for (int e = 1; e <= 3; ++e) info.history.push_back({.epoch = e, .train_loss = 1.0 / e, .val_loss = 2.0 / e});
  info.config = {{"model", "mlp"}, {"classes", "10"}, {"batch_size", "32"}};
  tr::save_checkpoint((b.root / "base").string(), info);
  b.files = read_folder(b.root / "base");
  b.checkpoint = b.files.at("LATEST").substr(0, b.files.at("LATEST").size() - 1);
  return b;
}

// Sets every variable to a value unlike the checkpoint's.
void scramble() {
  for (const auto& v : sx::variables()) v.assign(sx::Array::full(v.shape(), 42, v.dtype()));
}

}  // namespace

TEST(FuzzCheckpoints, MutatedRunFoldersLoadOrThrowIOError) {
  Base base = make_base("ckpt");
  const fs::path run = base.root / "run";
  const std::vector<std::string> names = {"LATEST", base.checkpoint + "/state.json",
                                          base.checkpoint + "/variables.safetensors", base.checkpoint + "/SHA256SUMS"};
  std::mt19937_64 rng(static_cast<std::uint64_t>(symx::testing::env_int("SYMX_FUZZ_SEED", 20261202)));
  const std::uint64_t count = static_cast<std::uint64_t>(symx::testing::env_int("SYMX_FUZZ_FILES", 300));
  int loaded = 0, rejected = 0;
  testing::internal::CaptureStderr();  // warnings for folders whose SHA256SUMS was removed
  for (std::uint64_t i = 0; i < count; ++i) {
    write_folder(run, base.files);
    const std::string name = names[rng() % names.size()];
    std::string what;
    if (rng() % 8 == 0) {
      what = make_special(run / name, rng);
    } else {
      write_bytes((run / name).string(), mutate_bytes(base.files.at(name), rng, what));
    }
    SCOPED_TRACE("folder " + std::to_string(i) + ": " + name + " " + what);
    scramble();
    try {
      tr::CheckpointInfo info = tr::load_checkpoint(run.string());
      ++loaded;
      // Whatever loaded is what was saved: tensor data and settings are covered by the sums.
      Folder now = read_folder(run);
      for (const char* file : {"/state.json", "/variables.safetensors"}) {
        auto it = now.find(base.checkpoint + file);
        if (it != now.end() && fs::exists(run / base.checkpoint / "SHA256SUMS")) {
          EXPECT_EQ(it->second, base.files.at(base.checkpoint + file)) << "a changed " << file << " was loaded";
        }
      }
      EXPECT_EQ(info.epoch, 3);
      EXPECT_EQ(info.step, 12);
      EXPECT_EQ(base.w.value().get_flat(5), 6.0);
    } catch (const sx::IOError&) {
      ++rejected;
      EXPECT_EQ(base.w.value().get_flat(5), 42.0) << "a failed load changed a variable";
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not an IOError: " << typeid(e).name() << ": " << e.what();
    }
  }
  testing::internal::GetCapturedStderr();
  EXPECT_GT(rejected, 0);
  std::cout << "[ fuzz     ] " << count << " mutated checkpoint folders: " << loaded << " loaded, " << rejected
            << " rejected\n";
  fs::remove_all(base.root);
}

namespace {

// A value meant to break a reader of settings: out of range, of the wrong type, huge, nested.
nlohmann::json nasty_value(std::mt19937_64& rng) {
  switch (rng() % 14) {
    case 0: return std::numeric_limits<std::int64_t>::max();
    case 1: return std::numeric_limits<std::uint64_t>::max();
    case 2: return -1;
    case 3: return 1e300;
    case 4: return 0.5;
    case 5: return nullptr;
    case 6: return "2000000";
    case 7: return "-7";
    case 8: return "99999999999999999999999";
    case 9: return "3,100000,100000";
    case 10: return nlohmann::json::array();
    case 11: return nlohmann::json::object();
    case 12: return std::string(100000, 'x');
    default: return std::int64_t{1} << 62;
  }
}

// A random value inside `j` (an object's member or a list's element, any depth), replaced by
// `value`, or removed when `value` is discarded.
void edit_somewhere(nlohmann::json& j, std::mt19937_64& rng, const nlohmann::json& value, std::string& path) {
  nlohmann::json* at = &j;
  for (;;) {
    if (!(at->is_object() || at->is_array()) || at->empty()) break;
    if (rng() % 3 == 0 && at != &j) break;
    std::size_t k = rng() % at->size();
    if (at->is_array()) {
      path += "[" + std::to_string(k) + "]";
      at = &(*at)[k];
    } else {
      auto it = at->begin();
      std::advance(it, static_cast<std::ptrdiff_t>(k));
      path += "." + it.key();
      at = &it.value();
    }
  }
  if (value.is_discarded()) *at = nlohmann::json::object();
  else *at = value;
}

// Writes `state` as the run's state.json with SHA256SUMS to match.
void write_state(const fs::path& checkpoint, const std::string& state) {
  write_bytes((checkpoint / "state.json").string(), state);
  write_bytes((checkpoint / "SHA256SUMS").string(),
              sx::data::sha256_file((checkpoint / "variables.safetensors").string()) + "  variables.safetensors\n" +
                  sx::data::sha256_hex(state) + "  state.json\n");
}

}  // namespace

TEST(FuzzSettings, CraftedStateJsonIsValidatedOrRefused) {
  Base base = make_base("settings");
  const fs::path run = base.root / "run";
  const nlohmann::json good = nlohmann::json::parse(base.files.at(base.checkpoint + "/state.json"));
  std::mt19937_64 rng(static_cast<std::uint64_t>(symx::testing::env_int("SYMX_FUZZ_SEED", 20261203)));
  const std::uint64_t count = static_cast<std::uint64_t>(symx::testing::env_int("SYMX_FUZZ_FILES", 300));
  int read = 0, rejected = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    write_folder(run, base.files);
    nlohmann::json state = good;
    std::string path;
    for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits)
      edit_somewhere(state, rng, nasty_value(rng), path);
    write_state(run / base.checkpoint, state.dump(1));
    SCOPED_TRACE("settings " + std::to_string(i) + ": " + path);
    try {
      tr::CheckpointInfo info = tr::read_checkpoint(run.string());
      ++read;
      EXPECT_GE(info.epoch, 0);
      EXPECT_LE(info.epoch, 1'000'000'000);
      EXPECT_GE(info.batch, 0);
      EXPECT_LE(info.step, std::int64_t{1} << 62);
      EXPECT_LE(info.batch, std::int64_t{1} << 62);
      EXPECT_GE(info.processes, 1);
    } catch (const sx::IOError& e) {
      ++rejected;
      EXPECT_LT(std::string(e.what()).size(), 1000u) << "the message quotes too much";
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not an IOError: " << typeid(e).name() << ": " << e.what();
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(read, 0);
  std::cout << "[ fuzz     ] " << count << " crafted settings: " << read << " accepted, " << rejected << " rejected\n";
  fs::remove_all(base.root);
}

TEST(FuzzSettings, CraftedToolSettingsAreRefusedByTheTool) {
  // `symx eval` builds the model from the tool's settings: each crafted value either works or is
  // an error (exit 1), never a crash nor gigabytes allocated.
  Base base = make_base("tool_settings");
  const fs::path run = base.root / "run";
  nlohmann::json good = nlohmann::json::parse(base.files.at(base.checkpoint + "/state.json"));
  good["config"] = {{"model", "mlp"},  {"data", "mnist"}, {"data_dir", "/nowhere"}, {"batch_size", "32"},
                    {"seed", "3"},     {"epochs", "5"},   {"val_size", "10"},       {"image_shape", "1,28,28"},
                    {"classes", "10"}, {"sync_bn", "0"}};
  // 8 images of 28x28 and their labels, as IDX files (their values do not matter).
  auto be = [](std::string& out, std::uint32_t v) {
    for (int shift : {24, 16, 8, 0}) out += static_cast<char>(v >> shift);
  };
  std::string images, labels;
  be(images, 0x803), be(images, 8), be(images, 28), be(images, 28);
  images += std::string(8 * 28 * 28, '\x40');
  be(labels, 0x801), be(labels, 8);
  labels += std::string(8, '\x03');
  write_bytes((base.root / "images").string(), images);
  write_bytes((base.root / "labels").string(), labels);
  const std::vector<std::string> keys = {"model", "image_shape", "classes"};
  const std::vector<std::string> values = {
      "2000000", "-7",        "0", "1,28", "1,100000,100000", "", "abc", "1e3", "18446744073709551616",
      "0,28,28", "paper-cnn", "3"};
  std::mt19937_64 rng(static_cast<std::uint64_t>(symx::testing::env_int("SYMX_FUZZ_SEED", 20261204)));
  const std::uint64_t count =
      std::max<std::uint64_t>(1, static_cast<std::uint64_t>(symx::testing::env_int("SYMX_FUZZ_FILES", 300)) / 20);
  int failed = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    write_folder(run, base.files);
    nlohmann::json state = good;
    const std::string key = keys[rng() % keys.size()], value = values[rng() % values.size()];
    state["config"][key] = value;
    write_state(run / base.checkpoint, state.dump(1));
    SCOPED_TRACE("config " + key + " = '" + value + "'");
    sx::reset_default_graph();
    testing::internal::CaptureStderr();
    testing::internal::CaptureStdout();
    int rc = sx::cli::run({"eval", "--checkpoint", run.string(), "--images", (base.root / "images").string(),
                           "--labels", (base.root / "labels").string()});
    std::string err = testing::internal::GetCapturedStderr();
    testing::internal::GetCapturedStdout();
    EXPECT_EQ(rc, 1) << "the checkpoint does not hold these models' variables";
    EXPECT_LT(err.size(), 4000u) << err.substr(0, 300);  // at most a line per variable of the model
    failed += rc == 1;
  }
  EXPECT_EQ(failed, static_cast<int>(count));
  fs::remove_all(base.root);
}

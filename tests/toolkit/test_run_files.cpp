// The files of a training run under attack and damage, each a case of the reliability probe:
// deeply nested JSON, FIFOs and /dev/zero in place of files, links planted under temporary names,
// byte flips (caught by the checkpoint's SHA-256 sums), settings out of bounds, integer overflow
// from state.json and the command line, a plot of values an ulp apart, labels outside the classes;
// and the tool's handling of an existing run folder, --resume's recorded settings and misspelt flags.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <tuple>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <symx/cli.hpp>
#include <symx/data.hpp>
#include <symx/data/download.hpp>
#include <symx/io.hpp>
#include <symx/nn/layers.hpp>
#include <symx/optim.hpp>
#include <symx/train.hpp>

#include "../cpp/test_util.hpp"
#include "toolkit_test_util.hpp"

namespace sx = symx;
namespace tr = symx::train;
namespace fs = std::filesystem;
using namespace symx_toolkit_test;
using symx::testing::expect_error;
using symx::testing::read_bytes;
using symx::testing::write_bytes;

namespace {

// A run of the tool: 1 epoch of the mlp on 96 digits (32 of them for validation), into `out`.
std::vector<std::string> train_args(const fs::path& data, const fs::path& out, const std::string& epochs = "1") {
  return {"train", "--model",    "mlp",   "--data-dir", data.string(), "--epochs", epochs,         "--val-size", "32",
          "--out", out.string(), "--log", "quiet",      "--threads",   "1",        "--batch-size", "32"};
}

// A checkpoint of two small variables in `dir`, with a history and the tool's config.
void small_checkpoint(const fs::path& dir) {
  sx::reset_default_graph();
  sx::variable(sx::Array::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}), "w");
  sx::variable(sx::Array::from_vector<float>({7, 8}, {2}), "b");
  tr::CheckpointInfo info;
  info.epoch = 2;
  info.step = 6;
  info.seed = 3;
  info.history = {{.epoch = 1, .train_loss = 1, .val_loss = 1.5}, {.epoch = 2, .train_loss = 0.5, .val_loss = 0.7}};
  info.config = {{"model", "mlp"}, {"classes", "10"}};
  tr::save_checkpoint(dir.string(), info);
}

std::string state_of(const fs::path& run) {
  return (fs::path(tr::read_checkpoint(run.string()).path) / "state.json").string();
}

// Rewrites state.json of the run's checkpoint with `edit` applied and SHA256SUMS updated to match,
// as a crafted (rather than damaged) file would be.
void craft_state(const fs::path& run, const std::function<void(nlohmann::json&)>& edit) {
  fs::path dir = tr::read_checkpoint(run.string()).path;
  nlohmann::json j = nlohmann::json::parse(read_bytes((dir / "state.json").string()));
  edit(j);
  std::string text = j.dump(1);
  write_bytes((dir / "state.json").string(), text);
  std::string sums = read_bytes((dir / "SHA256SUMS").string());
  std::string line = sx::data::sha256_hex(text) + "  state.json";
  sums.replace(sums.find("  state.json") - 64, 64 + 12, line);
  write_bytes((dir / "SHA256SUMS").string(), sums);
}

}  // namespace

TEST(RunFiles, DeeplyNestedJsonIsAnErrorNotACrash) {
  fs::path run = temp_dir("nested");
  small_checkpoint(run);
  const std::string deep = std::string(300000, '[') + std::string(300000, ']');
  for (const char* key : {"history", "config", "partial", "epoch"}) {
    const std::string file = state_of(run);
    craft_state(run, [&](nlohmann::json& j) { j[key] = nullptr; });
    // Spliced as text: nlohmann would itself overflow the stack building and printing it.
    std::string text = read_bytes(file);
    text.replace(text.find("null"), 4, deep);
    write_bytes(file, text);
    fs::remove(fs::path(file).parent_path() / "SHA256SUMS");  // an old checkpoint: read unchecked
    testing::internal::CaptureStderr();
    expect_error<sx::IOError>([&] { tr::read_checkpoint(run.string()); }, {"state.json", "more than 16 levels"});
    testing::internal::GetCapturedStderr();
    fs::remove_all(run);
    small_checkpoint(run);
  }
  // Through the tool too: eval and resume exit with an error, not SIGSEGV.
  std::string file = state_of(run), text = read_bytes(file);
  text.insert(text.rfind('}'), ", \"x\": " + deep);
  write_bytes(file, text);
  fs::remove(fs::path(file).parent_path() / "SHA256SUMS");  // else the changed file fails its check first
  std::string err;
  EXPECT_EQ(cli({"eval", "--checkpoint", run.string()}, &err), 1);
  EXPECT_NE(err.find("levels deep"), std::string::npos) << err.substr(0, 500);
  EXPECT_LT(err.size(), 2000u);
  EXPECT_EQ(cli({"train", "--resume", run.string()}, &err), 1);
  EXPECT_NE(err.find("levels deep"), std::string::npos) << err.substr(0, 500);
  fs::remove_all(run);
}

TEST(RunFiles, FifosAndDevicesAreRefusedWithoutBlocking) {
  fs::path run = temp_dir("fifo");
  small_checkpoint(run);
  fs::path dir = tr::read_checkpoint(run.string()).path;
  auto started = std::chrono::steady_clock::now();
  for (const fs::path& file : {run / "LATEST", dir / "state.json", dir / "SHA256SUMS"}) {
    const std::string saved = read_bytes(file.string());
    for (int kind = 0; kind < 2; ++kind) {
      fs::remove(file);
      if (kind == 0) ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
      else fs::create_symlink("/dev/zero", file);
      expect_error<sx::IOError>([&] { tr::read_checkpoint(run.string()); },
                                {file.filename().string(), "not a regular file"});
    }
    fs::remove(file);
    write_bytes(file.string(), saved);
  }
  fs::remove(dir / "variables.safetensors");
  ASSERT_EQ(::mkfifo((dir / "variables.safetensors").c_str(), 0600), 0);
  expect_error<sx::IOError>([&] { tr::load_checkpoint(run.string()); },
                            {"variables.safetensors", "not a regular file"});
  // An oversized state.json is refused by its size, before it is read.
  fs::remove(dir / "state.json");
  { std::ofstream((dir / "state.json").string()).seekp((64 << 20) + 1) << 'x'; }
  expect_error<sx::IOError>([&] { tr::read_checkpoint(run.string()); }, {"state.json", "more than the 67108864 bytes"});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 10);
  fs::remove_all(run);
}

TEST(RunFiles, LinksPlantedUnderTemporaryNamesAreNeverFollowed) {
  fs::path root = temp_dir("planted"), run = root / "run", victims = root / "victims";
  fs::create_directories(run);
  fs::create_directories(victims);
  // Every name the writers used to create, for this process and the next few pids.
  std::vector<fs::path> planted;
  for (pid_t pid = ::getpid(); pid < ::getpid() + 3; ++pid)
    for (const char* name : {"LATEST", "metrics.jsonl", "curves.png"}) {
      fs::path victim = victims / (std::string(name) + "." + std::to_string(pid));
      write_bytes(victim.string(), "precious");
      fs::create_symlink(victim, run / (std::string(name) + ".tmp-" + std::to_string(pid)));
      planted.push_back(victim);
    }
  sx::reset_default_graph();
  auto net = tr::models::mlp();
  sx::optim::SGD sgd(0.1);
  tr::fit(*net, tr::softmax_cross_entropy, sgd, digits(64), digits(32, 64),
          {.epochs = 2, .batch_size = 32, .out_dir = run.string(), .log = "quiet"});
  for (const auto& victim : planted) EXPECT_EQ(read_bytes(victim.string()), "precious") << victim;
  EXPECT_EQ(tr::read_checkpoint(run.string()).epoch, 2);
  fs::remove_all(root);
}

TEST(RunFiles, StaleTemporariesOfKilledWritersAreRemoved) {
  fs::path run = temp_dir("stale");
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);  // a pid that no longer runs, as after a SIGKILL
  const std::string dead = std::to_string(child);
  for (const std::string& name :
       std::vector<std::string>{"curves.png.tmp-" + dead, "curves.png.tmp-" + dead + "-00aa11bb22cc33dd",
                                "metrics.jsonl.tmp-" + dead, "LATEST.tmp-" + dead})
    write_bytes((run / name).string(), "partial");
  fs::create_directories(run / (".checkpoint-7.tmp-" + dead));
  fs::create_directories(run / (".checkpoint-7.tmp-" + dead + "-Ab3xYz"));
  sx::reset_default_graph();
  auto net = tr::models::mlp();
  sx::optim::SGD sgd(0.1);
  tr::fit(*net, tr::softmax_cross_entropy, sgd, digits(64), {},
          {.epochs = 1, .batch_size = 32, .out_dir = run.string(), .log = "quiet"});
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(run)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"LATEST", "checkpoint-2", "curves.png", "metrics.jsonl"}));
  fs::remove_all(run);
}

TEST(RunFiles, ByteFlipsAreCaughtByTheChecksums) {
  fs::path run = temp_dir("flips");
  small_checkpoint(run);
  fs::path dir = tr::read_checkpoint(run.string()).path;
  const std::string variables = (dir / "variables.safetensors").string(), state = (dir / "state.json").string();
  // sha256sum -c would accept the file: the format is its own.
  EXPECT_EQ(read_bytes((dir / "SHA256SUMS").string()), sx::data::sha256_file(variables) + "  variables.safetensors\n" +
                                                           sx::data::sha256_file(state) + "  state.json\n");
  const std::string good = read_bytes(variables), good_state = read_bytes(state);
  for (std::size_t at : {good.size() - 1, good.size() - 9, good.size() - 20}) {  // in the tensor data
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    write_bytes(variables, bad);
    sx::reset_default_graph();
    sx::Tensor w = sx::variable(sx::Array::zeros({2, 3}, sx::f32), "w");
    sx::variable(sx::Array::zeros({2}, sx::f32), "b");
    expect_error<sx::IOError>([&] { tr::load_checkpoint(run.string()); },
                              {"variables.safetensors' has SHA-256", "changed or damaged"});
    EXPECT_EQ(w.value().get_flat(0), 0.0);  // nothing loaded
  }
  write_bytes(variables, good);
  std::string flipped = good_state;
  flipped[flipped.find("\"epoch\": 2") + 9] = '7';  // epoch 7: valid JSON, wrong
  write_bytes(state, flipped);
  expect_error<sx::IOError>([&] { tr::read_checkpoint(run.string()); }, {"state.json' has SHA-256"});
  // A checkpoint of an older symx (no SHA256SUMS) loads, with a warning.
  write_bytes(state, good_state);
  fs::remove(dir / "SHA256SUMS");
  sx::reset_default_graph();
  sx::Tensor w = sx::variable(sx::Array::zeros({2, 3}, sx::f32), "w");
  sx::variable(sx::Array::zeros({2}, sx::f32), "b");
  testing::internal::CaptureStderr();
  EXPECT_EQ(tr::load_checkpoint(run.string()).epoch, 2);
  std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_NE(warning.find("has no SHA256SUMS"), std::string::npos) << warning;
  EXPECT_EQ(w.value().get_flat(5), 6.0);
  // A damaged SHA256SUMS is an error, not a reason to skip the check.
  write_bytes((dir / "SHA256SUMS").string(), "0123  state.json\n");
  expect_error<sx::IOError>([&] { tr::read_checkpoint(run.string()); }, {"SHA256SUMS", "is not '<SHA-256>"});
  fs::remove_all(run);
}

TEST(RunFiles, SettingsOutOfBoundsAreRefusedBeforeUse) {
  fs::path run = temp_dir("bounds");
  small_checkpoint(run);
  struct Case {
    std::function<void(nlohmann::json&)> edit;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {[](nlohmann::json& j) { j["step"] = std::numeric_limits<std::int64_t>::max(); },
       "\"step\" is 9223372036854775807"},
      {[](nlohmann::json& j) { j["batch"] = std::numeric_limits<std::uint64_t>::max(); }, "\"batch\" is"},
      {[](nlohmann::json& j) { j["epoch"] = 1e300; }, "\"epoch\" is 1e+300"},
      {[](nlohmann::json& j) { j["epoch"] = -1; }, "\"epoch\" is -1"},
      {[](nlohmann::json& j) { j["processes"] = 0; }, "\"processes\" is 0"},
      {[](nlohmann::json& j) { j["seed"] = -5; }, "\"seed\" is -5"},
      {[](nlohmann::json& j) { j["config"]["model"] = 3; }, "config \"model\" is 3"},
      {[](nlohmann::json& j) { j["history"][0]["epoch"] = 1e20; }, "an entry of \"history\""},
      {[](nlohmann::json& j) { j["partial"]["count"] = "many"; }, "\"count\" is \"many\""},
      {[](nlohmann::json& j) { j["config"] = std::string(5000, 'x'); }, "\"config\" is not an object"},
  };
  for (const auto& c : cases) {
    fs::remove_all(run);
    small_checkpoint(run);
    craft_state(run, c.edit);
    expect_error<sx::IOError>([&] { tr::read_checkpoint(run.string()); }, {"state.json", c.expected});
  }
  // The tool's settings: "classes": "2000000" would allocate gigabytes for the last layer.
  for (const auto& [key, value, expected] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"classes", "2000000", "config \"classes\" is '2000000', expected a whole number from 1 to 1000"},
           {"image_shape", "1,100000,100000", "config \"image_shape\" is '1,100000,100000'"},
           {"image_shape", "1,28", "not 3 sizes"}}) {
    fs::remove_all(run);
    small_checkpoint(run);
    craft_state(run, [&](nlohmann::json& j) {
      j["config"] = {{"model", "mlp"},  {"data", "mnist"}, {"data_dir", "/nowhere"}, {"batch_size", "32"},
                     {"seed", "3"},     {"epochs", "5"},   {"val_size", "10"},       {"image_shape", "1,28,28"},
                     {"classes", "10"}, {"sync_bn", "0"}};
      j["config"][key] = value;
    });
    write_mnist_idx(run / "data", 8, "t10k");
    std::string err;
    EXPECT_EQ(cli({"eval", "--checkpoint", run.string(), "--images", (run / "data" / "t10k-images-idx3-ubyte").string(),
                   "--labels", (run / "data" / "t10k-labels-idx1-ubyte").string()},
                  &err),
              1);
    EXPECT_NE(err.find(expected), std::string::npos) << err;
  }
  fs::remove_all(run);
}

TEST(RunFiles, IntegerOverflowFromStateJsonAndTheCommandLine) {
  // fit.cpp's conversion of a batch position between process counts overflowed (UBSan) on a
  // crafted state.json: batch 2^62 of 2 processes, resumed by 1 with batch_size 32.
  fs::path run = temp_dir("overflow");
  sx::reset_default_graph();
  {
    auto net = tr::models::mlp();
    sx::optim::SGD sgd(0.1);
    tr::fit(*net, tr::softmax_cross_entropy, sgd, digits(64), {},
            {.epochs = 1, .batch_size = 32, .out_dir = run.string(), .log = "quiet"});
  }
  craft_state(run, [](nlohmann::json& j) {
    j["processes"] = 2;
    j["batch"] = std::int64_t{1} << 62;
  });
  sx::reset_default_graph();
  auto net = tr::models::mlp();
  sx::optim::SGD sgd(0.1);
  expect_error<sx::IOError>(
      [&] {
        tr::fit(*net, tr::softmax_cross_entropy, sgd, digits(64), {},
                {.epochs = 2, .batch_size = 32, .out_dir = run.string(), .resume = true, .log = "quiet"});
      },
      {"batch 4611686018427387904 of 2 processes", "more examples than 2^63"});
  // The tool: a batch size of 2^63 - 1 is refused (it trained 0 steps and printed "done").
  write_mnist_idx(run / "data", 96, "train");
  std::string err;
  auto args = train_args(run / "data", run / "new");
  args.back() = "9223372036854775807";
  EXPECT_EQ(cli(args, &err), 1);
  EXPECT_NE(err.find("--batch-size 9223372036854775807: give a number of examples from 1 to 16777216"),
            std::string::npos)
      << err;
  args.back() = "0";
  EXPECT_EQ(cli(args, &err), 1);
  EXPECT_NE(err.find("--batch-size 0:"), std::string::npos) << err;
  // Threads beyond an int (they were truncated) and an infinite bucket size.
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{{"--threads", "4294967297"},
                                                                                    {"--bucket-mb", "inf"},
                                                                                    {"--bucket-mb", "nan"}}) {
    auto more = train_args(run / "data", run / "new");
    auto given = std::find(more.begin(), more.end(), flag);
    if (given != more.end()) *(given + 1) = value;
    else more.insert(more.end(), {flag, value});
    EXPECT_EQ(cli(more, &err), 1) << flag << " " << value;
    EXPECT_NE(err.find(flag + " "), std::string::npos) << err;
  }
  // ... and from state.json (cli_train.cpp multiplied it by the processes).
  ASSERT_EQ(cli(train_args(run / "data", run / "tool"), &err), 0) << err;
  craft_state(run / "tool", [](nlohmann::json& j) { j["config"]["batch_size"] = "9223372036854775807"; });
  EXPECT_EQ(cli({"train", "--resume", (run / "tool").string(), "--epochs", "2"}, &err), 1);
  EXPECT_NE(err.find("config \"batch_size\" is '9223372036854775807', expected a whole number from 1 to 16777216"),
            std::string::npos)
      << err;
  fs::remove_all(run);
}

TEST(RunFiles, PlotOfValuesAnUlpApartFinishes) {
  fs::path dir = temp_dir("ulp");
  for (double base : {1e4, 1e8, 1e15, 1e300, -1e4, 0.0}) {
    tr::History h;
    for (int e = 1; e <= 3; ++e) {
      double v = e == 2 ? std::nextafter(base, INFINITY) : base;
      h.push_back({.epoch = e, .train_loss = v, .train_accuracy = 0.5, .val_loss = v, .val_accuracy = 0.5});
    }
    auto start = std::chrono::steady_clock::now();
    tr::plot_history(h, (dir / "curves.png").string());
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5) << base;
    EXPECT_EQ(read_bytes((dir / "curves.png").string()).substr(1, 3), "PNG");
  }
  tr::History h{{.epoch = 1, .train_loss = -1e308, .val_loss = 1e308}, {.epoch = 2, .train_loss = INFINITY}};
  tr::plot_history(h, (dir / "curves.png").string());
  fs::remove_all(dir);
}

TEST(RunFiles, LabelsOutsideTheClassesAreAnError) {
  sx::reset_default_graph();
  auto net = tr::models::mlp();
  (*net)(sx::placeholder({sx::kDynamic, 1, 28, 28}, sx::f32, "x"), false);
  tr::Network f = [&](const sx::Tensor& x, bool training) { return (*net)(x, training); };
  for (std::int64_t label : {200, -7, 10}) {
    auto d = digits(16);
    d.y.data<std::int64_t>()[5] = label;
    expect_error<sx::ValueError>([&] { tr::evaluate(f, tr::softmax_cross_entropy, d); },
                                 {"evaluate: label " + std::to_string(label) + " of example 5", "10 classes (0 to 9)"});
  }
  // Through the tool: an IDX label file holding 200.
  fs::path dir = temp_dir("labels");
  write_mnist_idx(dir / "data", 96, "train");
  std::string err, out;
  ASSERT_EQ(cli(train_args(dir / "data", dir / "run"), &err), 0) << err;
  write_mnist_idx(dir / "eval", 8, "t10k", 0, {3, 200});
  EXPECT_EQ(cli({"eval", "--checkpoint", (dir / "run").string(), "--images",
                 (dir / "eval" / "t10k-images-idx3-ubyte").string(), "--labels",
                 (dir / "eval" / "t10k-labels-idx1-ubyte").string()},
                &err, &out),
            1);
  EXPECT_NE(err.find("label 200 of example 1"), std::string::npos) << err;
  EXPECT_EQ(out.find("loss"), std::string::npos) << out;
  // Training labels too.
  auto d = digits(64);
  d.y.data<std::int64_t>()[3] = -7;
  sx::reset_default_graph();
  auto fresh = tr::models::mlp();
  sx::optim::SGD sgd(0.1);
  expect_error<sx::ValueError>(
      [&] { tr::fit(*fresh, tr::softmax_cross_entropy, sgd, d, {}, {.epochs = 1, .log = "quiet"}); },
      {"fit: label -7 of example 3 of the training data set"});
  fs::remove_all(dir);
}

TEST(RunFiles, ToolRefusesAnExistingRunFolderUnlessOverwriteOrResume) {
  fs::path dir = temp_dir("existing");
  write_mnist_idx(dir / "data", 96, "train");
  fs::path run = dir / "run";
  std::string err, out;
  ASSERT_EQ(cli(train_args(dir / "data", run, "2"), &err), 0) << err;
  const std::string metrics = read_bytes((run / "metrics.jsonl").string());
  EXPECT_EQ(cli(train_args(dir / "data", run), &err), 1);
  EXPECT_NE(err.find("--out " + run.string() + " already holds a run"), std::string::npos) << err;
  EXPECT_NE(err.find("--resume"), std::string::npos) << err;
  EXPECT_NE(err.find("--overwrite"), std::string::npos) << err;
  EXPECT_EQ(read_bytes((run / "metrics.jsonl").string()), metrics);
  EXPECT_EQ(tr::read_checkpoint(run.string()).epoch, 2);
  // --resume with no more epochs to train says so (it printed "done").
  for (const std::vector<std::string>& more : {std::vector<std::string>{}, {"--epochs", "2"}, {"--epochs", "1"}}) {
    std::vector<std::string> args{"train", "--resume", run.string(), "--log", "quiet"};
    args.insert(args.end(), more.begin(), more.end());
    EXPECT_EQ(cli(args, &err, &out), 1);
    EXPECT_NE(err.find("has already trained 2 epochs"), std::string::npos) << err;
    EXPECT_NE(err.find("Give --epochs above 2"), std::string::npos) << err;
    EXPECT_EQ(out.find("done"), std::string::npos) << out;
  }
  auto overwrite = train_args(dir / "data", run);
  overwrite.push_back("--overwrite");
  EXPECT_EQ(cli({"train", "--resume", run.string(), "--overwrite"}, &err), 1);
  EXPECT_NE(err.find("drop --overwrite"), std::string::npos) << err;
  ASSERT_EQ(cli(overwrite, &err), 0) << err;
  EXPECT_EQ(tr::read_checkpoint(run.string()).epoch, 1);
  EXPECT_EQ(tr::read_checkpoint(run.string()).history.size(), 1u);
  fs::remove_all(dir);
}

TEST(RunFiles, ResumeRecordsNewEpochsAndDataFolder) {
  fs::path dir = temp_dir("record");
  write_mnist_idx(dir / "old", 96, "train");
  fs::path run = dir / "run";
  std::string err;
  ASSERT_EQ(cli(train_args(dir / "old", run), &err), 0) << err;
  fs::rename(dir / "old", dir / "new");
  ASSERT_EQ(cli({"train", "--resume", run.string(), "--epochs", "2", "--data-dir", (dir / "new").string(), "--log",
                 "quiet"},
                &err),
            0)
      << err;
  tr::CheckpointInfo info = tr::read_checkpoint(run.string());
  EXPECT_EQ(info.config.at("epochs"), "2");
  EXPECT_EQ(info.config.at("data_dir"), fs::absolute(dir / "new").string());
  // A later plain resume finds the data in the new folder.
  ASSERT_EQ(cli({"train", "--resume", run.string(), "--epochs", "3", "--log", "quiet"}, &err), 0) << err;
  EXPECT_EQ(tr::read_checkpoint(run.string()).epoch, 3);
  fs::remove_all(dir);
}

TEST(RunFiles, ToolSuggestsTheClosestFlag) {
  std::string err;
  EXPECT_EQ(cli({"train", "--model", "mlp", "--epoch", "3"}, &err), 2);
  EXPECT_NE(err.find("`symx train` has no option --epoch; did you mean --epochs?"), std::string::npos) << err;
  EXPECT_EQ(cli({"train", "--batchsize=3"}, &err), 2);
  EXPECT_NE(err.find("did you mean --batch-size?"), std::string::npos) << err;
  EXPECT_EQ(cli({"eval", "--checkpoint", "r", "--imgaes", "x"}, &err), 2);
  EXPECT_NE(err.find("`symx eval` has no option --imgaes; did you mean --images?"), std::string::npos) << err;
  EXPECT_EQ(cli({"train", "--zzzzzzzzzz"}, &err), 2);
  EXPECT_EQ(err.find("did you mean"), std::string::npos) << err;
}

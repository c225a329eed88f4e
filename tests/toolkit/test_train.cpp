// symx::train: the training loop against hand-computed expectations; resume (after an epoch, after
// Ctrl-C mid-epoch, and through the `symx` tool in a subprocess sent SIGINT) bit-identical to an
// uninterrupted run; checkpoints surviving SIGKILL during their write; metrics.jsonl, curves.png,
// EarlyStopping, evaluation of any number of examples, the CIFAR-10 path, and the tool's errors.
#include <gtest/gtest.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <symx/cli.hpp>
#include <symx/data.hpp>
#include <symx/nn/init.hpp>
#include <symx/nn/layers.hpp>
#include <symx/nn/losses.hpp>
#include <symx/optim.hpp>
#include <symx/train.hpp>

#include "../cpp/test_util.hpp"
#include "toolkit_test_util.hpp"

namespace sx = symx;
namespace tr = symx::train;
namespace L = symx::nn::layers;
namespace fs = std::filesystem;
using namespace symx_toolkit_test;
using symx::testing::expect_error;

namespace {

// A small network with every kind of state: random augmentation and dropout (the graph's random
// state), batch norm (running statistics), Adam with a schedule (moments and the step).
struct Model {
  std::shared_ptr<L::Layer> net;
  std::shared_ptr<sx::optim::Optimizer> opt;
};

Model build_model() {
  sx::reset_default_graph();
  auto net = std::make_shared<L::Sequential>(
      std::vector<std::shared_ptr<L::Layer>>{std::make_shared<L::RandomCrop>(28, 2), std::make_shared<L::Flatten>(),
                                             std::make_shared<L::Dense>(32), std::make_shared<L::BatchNorm>(),
                                             std::make_shared<L::Activation>("relu"), std::make_shared<L::Dropout>(0.2),
                                             std::make_shared<L::Dense>(10)});
  auto opt = std::make_shared<sx::optim::Adam>(sx::optim::schedules::piecewise_constant({10}, {0.01, 0.002}));
  return {net, opt};
}

// Every value a run leaves: the variables and the graph's random state, as bytes.
std::vector<std::string> snapshot() {
  std::vector<sx::Tensor> vars = sx::variables();
  vars.push_back(sx::default_graph().random_state());
  std::vector<std::string> out;
  for (const auto& v : vars) {
    sx::Array a = v.value();
    out.push_back(v.name() + ":" + std::string(static_cast<const char*>(a.raw_data()), a.nbytes()));
  }
  return out;
}

tr::FitOptions options(const fs::path& out, std::int64_t epochs, bool resume = false) {
  return {.epochs = epochs, .batch_size = 32, .seed = 7, .out_dir = out.string(), .resume = resume, .log = "quiet"};
}

class RaiseSigintAt : public tr::Callback {
 public:
  explicit RaiseSigintAt(std::int64_t step) : step_(step) {}
  void on_batch_end(const tr::Progress& p) override {
    if (p.step != step_) return;
    ::kill(::getpid(), SIGINT);  // as a Ctrl-C: to the process, taken by fit's watcher thread
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

 private:
  std::int64_t step_;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(Train, ResumeAfterAnEpochAndAfterCtrlCIsBitIdentical) {
  auto train = digits(256), val = digits(100, 1000);
  fs::path root = temp_dir("resume");
  Model a = build_model();
  tr::History full = tr::fit(*a.net, tr::softmax_cross_entropy, *a.opt, train, val, options(root / "full", 3));
  auto expected = snapshot();
  ASSERT_EQ(full.size(), 3u);
  EXPECT_EQ(a.opt->step().value().item<std::int64_t>(), 24);  // 8 steps of 32 per epoch

  // Stopped after epoch 1, resumed for 3.
  Model b = build_model();
  tr::fit(*b.net, tr::softmax_cross_entropy, *b.opt, train, val, options(root / "epoch", 1));
  Model b2 = build_model();
  tr::History resumed =
      tr::fit(*b2.net, tr::softmax_cross_entropy, *b2.opt, train, val, options(root / "epoch", 3, true));
  EXPECT_EQ(snapshot(), expected);
  ASSERT_EQ(resumed.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(resumed[i].train_loss, full[i].train_loss) << "epoch " << i + 1;

  // Ctrl-C at step 12, in the middle of epoch 2: a checkpoint of that position, then Interrupted.
  Model c = build_model();
  auto sigint = std::make_shared<RaiseSigintAt>(12);
  EXPECT_THROW(tr::fit(*c.net, tr::softmax_cross_entropy, *c.opt, train, val, options(root / "ctrlc", 3), {sigint}),
               tr::Interrupted);
  tr::CheckpointInfo info = tr::read_checkpoint((root / "ctrlc").string());
  EXPECT_EQ(info.epoch, 1);
  EXPECT_EQ(info.batch, 4);
  EXPECT_EQ(info.step, 12);
  EXPECT_EQ(info.history.size(), 1u);  // the partial epoch is not in the history
  std::string first = read_file(root / "ctrlc" / "metrics.jsonl");
  EXPECT_EQ(std::count(first.begin(), first.end(), '\n'), 1);
  Model c2 = build_model();
  tr::History after =
      tr::fit(*c2.net, tr::softmax_cross_entropy, *c2.opt, train, val, options(root / "ctrlc", 3, true));
  EXPECT_EQ(snapshot(), expected);
  ASSERT_EQ(after.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(after[i].train_loss, full[i].train_loss) << "epoch " << i + 1;
    EXPECT_EQ(after[i].train_accuracy, full[i].train_accuracy) << "epoch " << i + 1;
    EXPECT_EQ(after[i].val_loss, full[i].val_loss) << "epoch " << i + 1;
  }
  // metrics.jsonl holds the three epochs once each.
  std::string lines = read_file(root / "ctrlc" / "metrics.jsonl");
  EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 3);
  EXPECT_NE(lines.find("{\"epoch\":3,\"train_loss\":"), std::string::npos) << lines;
  fs::remove_all(root);
}

TEST(Train, FitMetricsMatchAHandWrittenLoop) {
  // One epoch without shuffling surprises: the training loss fit reports is the mean over examples
  // of the losses of each step, which a hand-written loop over the same batches reproduces.
  auto train = digits(96), val = digits(40, 2000);
  auto make = [] {
    sx::reset_default_graph();
    return std::make_shared<L::Sequential>(
        std::vector<std::shared_ptr<L::Layer>>{std::make_shared<L::Flatten>(), std::make_shared<L::Dense>(10)});
  };
  auto net = make();
  sx::optim::SGD sgd(0.001);
  tr::History h = tr::fit(*net, tr::softmax_cross_entropy, sgd, train, val,
                          {.epochs = 1, .batch_size = 40, .seed = 3, .log = "quiet"});
  ASSERT_EQ(h.size(), 1u);

  // The same by hand: batches of 40, 40, 16 from an iterator with the same seed.
  auto net2 = make();
  sx::nn::init::seed(3);
  sx::random::seed(3);
  auto x = sx::placeholder({sx::kDynamic, 1, 28, 28}, sx::f32, "x");
  auto y = sx::placeholder({sx::kDynamic}, sx::i64, "y");
  auto logits = (*net2)(x, true);
  auto loss = sx::nn::losses::softmax_cross_entropy_loss(logits, y);
  sx::optim::SGD sgd2(0.001);
  sgd2.minimize(loss);
  auto step = sx::function({x, y}, {loss, sx::nn::losses::accuracy(logits, y)}, sx::get_updates());
  sx::data::BatchIterator it({train.x, train.y},
                             {.batch_size = 40, .shuffle = true, .seed = 3, .prefetch = 0, .transforms = {}});
  double total = 0, correct = 0;
  std::int64_t count = 0;
  while (auto b = it.next()) {
    std::int64_t n = (*b)[0].shape()[0];
    auto out = step({(*b)[0].astype(sx::f32), (*b)[1]});
    total += out[0].item<double>() * static_cast<double>(n);
    correct += std::round(out[1].item<double>() * static_cast<double>(n));
    count += n;
  }
  EXPECT_EQ(count, 96);
  EXPECT_DOUBLE_EQ(h[0].train_loss, total / 96);
  EXPECT_DOUBLE_EQ(h[0].train_accuracy, correct / 96);
  // Validation: the evaluation graph on all 40 examples at once.
  auto ev = sx::function({x, y}, {sx::nn::losses::softmax_cross_entropy_loss((*net2)(x, false), y),
                                  sx::nn::losses::accuracy((*net2)(x, false), y)});
  auto out = ev({val.x.astype(sx::f32), val.y});
  EXPECT_NEAR(h[0].val_loss, out[0].item<double>(), 1e-6);
  EXPECT_DOUBLE_EQ(h[0].val_accuracy, std::round(out[1].item<double>() * 40) / 40);
  EXPECT_TRUE(std::isfinite(h[0].seconds) && h[0].step_seconds > 0 && h[0].step_seconds <= h[0].seconds);
  EXPECT_DOUBLE_EQ(h[0].lr, 0.001);
}

TEST(Train, EvaluateAnyNumberOfExamples) {
  // 1,001 examples in batches of 32 (31 full and one of 9) against one batch of all of them.
  auto data = digits(1001, 3000);
  sx::reset_default_graph();
  auto net = tr::models::mlp();
  tr::Network f = [&](const sx::Tensor& x, bool training) { return (*net)(x, training); };
  tr::Evaluation batched = tr::evaluate(f, tr::softmax_cross_entropy, data, 32);
  tr::Evaluation whole = tr::evaluate(f, tr::softmax_cross_entropy, data, 1001);
  EXPECT_EQ(batched.examples, 1001);
  EXPECT_NEAR(batched.loss, whole.loss, 1e-5 * std::abs(whole.loss));
  EXPECT_DOUBLE_EQ(batched.accuracy, whole.accuracy);
  // By hand: the accuracy of the untrained network's argmax, counted in C++.
  auto x = sx::placeholder({sx::kDynamic, 1, 28, 28}, sx::f32, "x");
  sx::Array logits = sx::function({x}, {(*net)(x, false)})({data.x.astype(sx::f32)})[0];
  int hits = 0;
  for (int i = 0; i < 1001; ++i) {
    const float* row = logits.data<float>() + i * 10;
    hits += std::max_element(row, row + 10) - row == data.y.data<std::int64_t>()[i];
  }
  EXPECT_DOUBLE_EQ(batched.accuracy, hits / 1001.0);
}

TEST(Train, EarlyStoppingStopsAfterPatience) {
  tr::EarlyStopping es("val_loss", 2, 0.01);
  bool stop = false;
  std::vector<double> losses{1.0, 0.8, 0.795, 0.79, 0.5};  // 0.795 and 0.79 improve by less than 0.01
  std::size_t epoch = 0;
  for (; epoch < losses.size() && !stop; ++epoch) {
    tr::EpochMetrics m;
    m.epoch = static_cast<std::int64_t>(epoch + 1);
    m.val_loss = losses[epoch];
    es.on_epoch_end(m, stop);
  }
  EXPECT_TRUE(stop);
  EXPECT_EQ(epoch, 4u);
  EXPECT_EQ(es.best_epoch(), 2);
  EXPECT_EQ(es.stopped_epoch(), 4);
  tr::EarlyStopping acc("val_accuracy", 1);  // auto: maximize
  stop = false;
  tr::EpochMetrics m;
  m.epoch = 1, m.val_accuracy = 0.9;
  acc.on_epoch_end(m, stop);
  m.epoch = 2, m.val_accuracy = 0.95;
  acc.on_epoch_end(m, stop);
  EXPECT_FALSE(stop);
  m.epoch = 3, m.val_accuracy = 0.94;
  acc.on_epoch_end(m, stop);
  EXPECT_TRUE(stop);
  EXPECT_THROW(tr::EarlyStopping("val_los"), sx::ValueError);
  EXPECT_THROW(tr::EarlyStopping("val_loss", 1, 0, "up"), sx::ValueError);
}

TEST(Train, EarlyStoppingEndsFit) {
  auto train = digits(64);
  sx::reset_default_graph();
  auto net = tr::models::mlp();
  sx::optim::SGD sgd(0.01);
  auto es = std::make_shared<tr::EarlyStopping>("train_accuracy", 1, 0.5);
  tr::History h = tr::fit(*net, tr::softmax_cross_entropy, sgd, train, {}, {.epochs = 10, .log = "quiet"}, {es});
  EXPECT_EQ(h.size(), 2u);
  EXPECT_TRUE(std::isnan(h[0].val_loss));  // no validation data
}

TEST(Train, CurvesArePng) {
  tr::History h;
  for (int e = 1; e <= 5; ++e)
    h.push_back({.epoch = e,
                 .train_loss = 1.0 / e,
                 .train_accuracy = 1 - 0.5 / e,
                 .val_loss = 1.2 / e,
                 .val_accuracy = 1 - 0.6 / e,
                 .seconds = 1,
                 .step_seconds = 1,
                 .items_per_second = 1,
                 .lr = 0.1});
  fs::path dir = temp_dir("png");
  tr::plot_history(h, (dir / "curves.png").string());
  std::string png = read_file(dir / "curves.png");
  ASSERT_GT(png.size(), 1000u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  auto be32 = [&](std::size_t at) {
    return (static_cast<unsigned char>(png[at]) << 24) | (static_cast<unsigned char>(png[at + 1]) << 16) |
           (static_cast<unsigned char>(png[at + 2]) << 8) | static_cast<unsigned char>(png[at + 3]);
  };
  EXPECT_EQ(be32(16), 1100);
  EXPECT_EQ(be32(20), 460);
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().filename(), "curves.png");  // no temporaries
  fs::remove_all(dir);
}

TEST(Train, CheckpointSurvivesSigkillDuringItsWrite) {
  // A child writes checkpoints of a 24 MB variable in a loop (its value is the step number); the
  // parent kills it at various moments. Each time, LATEST must name a complete checkpoint whose
  // variable holds its own step. At least one kill must land while a temporary folder exists.
  fs::path dir = temp_dir("sigkill");
  sx::reset_default_graph();
  sx::Tensor big = sx::variable(sx::Array::zeros({6 * 1024 * 1024}, sx::f32), "big");
  int mid_write = 0, loaded = 0;
  std::mt19937 gen(1);
  for (int trial = 0; trial < 8; ++trial) {
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      for (std::int64_t step = 1 + 100 * trial;; ++step) {
        big.assign(sx::Array::full({6 * 1024 * 1024}, static_cast<double>(step), sx::f32));
        tr::CheckpointInfo info;
        info.step = step;
        tr::save_checkpoint(dir.string(), info);
      }
    }
    auto temporaries_exist = [&] {
      for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().rfind(".checkpoint-", 0) == 0) return true;
      return false;
    };
    auto wait_for = [](const std::function<bool()>& done) {
      for (int i = 0; i < 60000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    };
    wait_for([&] { return fs::exists(dir / "LATEST"); });  // a first complete checkpoint (slow under sanitizers)
    if (trial % 2 == 0) {
      wait_for(temporaries_exist);  // a write under way: kill it within a few milliseconds
      std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 20)(gen)));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 300)(gen)));
    }
    bool temporaries = temporaries_exist();
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the writer died on its own: " << status;
    mid_write += temporaries;
    if (!fs::exists(dir / "LATEST")) continue;  // killed before the first checkpoint was complete
    tr::CheckpointInfo info = tr::load_checkpoint(dir.string(), {big});
    sx::Array v = big.value();
    EXPECT_EQ(v.get_flat(0), static_cast<double>(info.step));
    EXPECT_EQ(v.get_flat(v.size() - 1), static_cast<double>(info.step));
    ++loaded;
  }
  EXPECT_GE(mid_write, 1) << "no kill landed during a write";
  EXPECT_EQ(loaded, 8);
  fs::remove_all(dir);
}

TEST(Train, CheckpointErrorsNameTheFile) {
  fs::path dir = temp_dir("errors");
  expect_error<sx::IOError>([&] { tr::read_checkpoint(dir.string()); }, {"no checkpoint in '" + dir.string() + "'"});
  fs::create_directories(dir / "checkpoint-3");
  { std::ofstream(dir / "LATEST") << "checkpoint-3\n"; }
  {
    std::ofstream(dir / "checkpoint-3" / "state.json")
        << "{\"format\": \"symx-checkpoint\", \"version\": 1, \"epoch\": 1";
  }
  expect_error<sx::IOError>([&] { tr::read_checkpoint(dir.string()); }, {"checkpoint-3/state.json' is not valid JSON"});
  {
    std::ofstream(dir / "checkpoint-3" / "state.json")
        << "{\"format\": \"symx-checkpoint\", \"version\": 1, \"epoch\": 1}";
  }
  expect_error<sx::IOError>([&] { tr::read_checkpoint(dir.string()); }, {"the field \"batch\" is missing"});
  // fit(resume) without a checkpoint says so.
  sx::reset_default_graph();
  auto net = tr::models::mlp();
  sx::optim::SGD sgd(0.1);
  fs::remove_all(dir);
  EXPECT_THROW(tr::fit(*net, tr::softmax_cross_entropy, sgd, digits(32), {},
                       {.out_dir = dir.string(), .resume = true, .log = "quiet"}),
               sx::IOError);
  fs::remove_all(dir);
}

// ---- the `symx` tool ----

namespace {

fs::path symx_binary() {
  // The tool next to this test binary (both in build/bin).
  return fs::canonical("/proc/self/exe").parent_path() / "symx";
}

}  // namespace

TEST(TrainTool, ErrorsSayWhatToDo) {
  fs::path dir = temp_dir("tool_errors");
  std::string err;
  EXPECT_EQ(cli({"train", "--model", "resnet", "--data-dir", dir.string(), "--out", (dir / "r").string()}, &err), 1);
  EXPECT_NE(err.find("unknown model 'resnet'. The known models are: mlp, paper-cnn, lstm, gru."), std::string::npos)
      << err;
  EXPECT_EQ(cli({"train", "--model", "mlp", "--data-dir", (dir / "nowhere").string(), "--out", (dir / "r").string()},
                &err),
            1);
  EXPECT_NE(err.find("does not exist. It must hold train-images-idx3-ubyte and train-labels-idx1-ubyte"),
            std::string::npos)
      << err;
  EXPECT_EQ(cli({"train", "--resume", dir.string()}, &err), 1);
  EXPECT_NE(err.find("no checkpoint in '" + dir.string() + "'"), std::string::npos) << err;
  EXPECT_EQ(cli({"train", "--model", "mlp", "--data", "svhn", "--data-dir", dir.string(), "--out",
                 (dir / "r").string()},
                &err),
            1);
  EXPECT_NE(err.find("unknown data set 'svhn'"), std::string::npos) << err;
  // The model is checked before the other flags; then --out and --epochs, before any data is read.
  EXPECT_EQ(cli({"train", "--model", "resnet", "--data-dir", dir.string()}, &err), 1);
  EXPECT_NE(err.find("unknown model 'resnet'"), std::string::npos) << err;
  EXPECT_EQ(cli({"train", "--model", "mlp", "--data-dir", (dir / "nowhere").string()}, &err), 1);
  EXPECT_NE(err.find(
                "--out is missing: give the run folder for the checkpoint, metrics and plot (e.g. --out runs/mlp)"),
            std::string::npos)
      << err;
  EXPECT_EQ(cli({"train", "--model", "mlp", "--data-dir", (dir / "nowhere").string(), "--epochs", "0", "--out",
                 (dir / "r").string()},
                &err),
            1);
  EXPECT_NE(err.find("--epochs 0: train for at least 1 epoch."), std::string::npos) << err;
  fs::remove_all(dir);
}

TEST(TrainTool, CifarTrainAndEval) {
  // 64 training and 32 test records in CIFAR-10's binary format: a label byte, 3072 pixel bytes.
  fs::path dir = temp_dir("cifar");
  std::mt19937 gen(5);
  auto write = [&](const std::string& name, int records) {
    std::ofstream f(dir / name, std::ios::binary);
    for (int r = 0; r < records; ++r) {
      f.put(static_cast<char>(r % 10));
      for (int i = 0; i < 3072; ++i) f.put(static_cast<char>(gen() % 256));
    }
  };
  write("data_batch_1.bin", 64);
  write("test_batch.bin", 32);
  fs::path run = dir / "run";
  std::string err;
  ASSERT_EQ(cli({"train", "--model", "paper-cnn", "--data", "cifar10", "--data-dir", dir.string(), "--epochs", "1",
                 "--out", run.string(), "--log", "quiet"},
                &err),
            0)
      << err;
  tr::CheckpointInfo info = tr::read_checkpoint(run.string());
  EXPECT_EQ(info.step, 2);
  EXPECT_EQ(info.config.at("image_shape"), "3,32,32");
  ASSERT_EQ(info.history.size(), 1u);
  EXPECT_TRUE(std::isfinite(info.history[0].val_loss));
  EXPECT_TRUE(fs::exists(run / "curves.png") && fs::exists(run / "metrics.jsonl"));

  sx::reset_default_graph();
  testing::internal::CaptureStdout();
  int rc = sx::cli::run({"eval", "--checkpoint", run.string(), "--data", "cifar10", "--data-dir", dir.string()});
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0);
  EXPECT_NE(out.find("(32 examples of cifar10 test split"), std::string::npos) << out;
  // The reported validation loss is the evaluation of the same 32 test images.
  char buf[32];
  std::snprintf(buf, sizeof buf, "loss %.4f", info.history[0].val_loss);
  EXPECT_NE(out.find(buf), std::string::npos) << out << " vs " << buf;

  // MNIST images do not fit this model: the error says so.
  write_mnist_idx(dir / "mnist", 40, "t10k", 0);
  EXPECT_EQ(cli({"eval", "--checkpoint", run.string(), "--images", (dir / "mnist" / "t10k-images-idx3-ubyte").string(),
                 "--labels", (dir / "mnist" / "t10k-labels-idx1-ubyte").string()},
                &err),
            1);
  EXPECT_NE(err.find("have shape (1, 28, 28) but the model of '" + run.string() +
                     "' was trained on images (3, 32, 32)"),
            std::string::npos)
      << err;
  fs::remove_all(dir);
}

TEST(TrainTool, RecurrentModelsTrainOnDigitRows) {
  // `symx train --model lstm|gru`: 320 digits read row by row, two epochs of batches of 64. The
  // loss falls, and the checkpoint holds the recurrent layer's PyTorch-named weights.
  fs::path dir = temp_dir("tool_recurrent");
  write_mnist_idx(dir / "data", 320, "train", 0);
  for (std::string model : {"lstm", "gru"}) {
    SCOPED_TRACE(model);
    fs::path run = dir / model;
    std::string err;
    ASSERT_EQ(cli({"train", "--model", model, "--data-dir", (dir / "data").string(), "--epochs", "2", "--val-size",
                   "64", "--out", run.string(), "--log", "quiet"},
                  &err),
              0)
        << err;
    tr::CheckpointInfo info = tr::read_checkpoint(run.string());
    EXPECT_EQ(info.step, 8);  // 256 training examples in batches of 64 (the recipe's), two epochs
    ASSERT_EQ(info.history.size(), 2u);
    EXPECT_LT(info.history[1].train_loss, info.history[0].train_loss);
    EXPECT_TRUE(std::isfinite(info.history[1].val_loss));
    std::string vars = read_file(fs::path(info.path) / "variables.safetensors");
    EXPECT_NE(vars.find(model + "/weight_hh_l0"), std::string::npos);
  }
  fs::remove_all(dir);
}

TEST(TrainTool, SigintThenResumeIsBitIdentical) {
  // `symx train` in a subprocess: SIGINT once the first checkpoint exists exits with 130 after
  // writing a checkpoint; --resume then ends with the same variables as an uninterrupted run.
  fs::path dir = temp_dir("tool_sigint");
  write_mnist_idx(dir / "data", 224, "train", 0);
  std::string tool = symx_binary().string();
  ASSERT_TRUE(fs::exists(tool)) << tool;
  auto train_args = [&](const fs::path& out) {
    return std::vector<std::string>{tool,           "train",      "--model",
                                    "mlp",          "--data-dir", (dir / "data").string(),
                                    "--epochs",     "15",         "--val-size",
                                    "32",           "--seed",     "3",
                                    "--batch-size", "16",         "--out",
                                    out.string(),   "--log",      "lines",
                                    "--threads",    "1"};
  };
  auto spawn = [](const std::vector<std::string>& args) {
    pid_t pid = ::fork();
    if (pid == 0) {
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    return pid;
  };
  auto wait_status = [](pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  };
  fs::path a = dir / "a", b = dir / "b";
  ASSERT_EQ(wait_status(spawn(train_args(a))), 0);
  pid_t pid = spawn(train_args(b));
  for (int i = 0; i < 6000 && !fs::exists(b / "LATEST"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_status(pid), 130);
  tr::CheckpointInfo stopped = tr::read_checkpoint(b.string());
  EXPECT_LT(stopped.epoch, 15);
  ASSERT_EQ(wait_status(spawn({tool, "train", "--resume", b.string(), "--log", "quiet", "--threads", "1"})), 0);
  tr::CheckpointInfo ia = tr::read_checkpoint(a.string()), ib = tr::read_checkpoint(b.string());
  EXPECT_EQ(ia.step, ib.step);
  EXPECT_EQ(ib.history.size(), 15u);
  std::string va = read_file(fs::path(ia.path) / "variables.safetensors"),
              vb = read_file(fs::path(ib.path) / "variables.safetensors");
  EXPECT_GT(va.size(), 100000u);
  EXPECT_TRUE(va == vb) << "the resumed run's variables differ from the uninterrupted run's";
  fs::remove_all(dir);
}

// `symx train` and `symx eval`: the tool's models trained by symx::train::fit on MNIST or CIFAR-10,
// and evaluated from a run folder's checkpoint.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.hpp"
#include "symx/distributed.hpp"
#include "symx/train.hpp"

namespace fs = std::filesystem;
namespace tr = symx::train;

namespace symx::cli {

namespace {

struct TrainArgs {
  std::string model, data = "mnist", data_dir, out, resume, log = "auto";
  std::int64_t epochs = 10, batch_size = 0, val_size = 1000, threads = 0, prefetch = 2;
  std::uint64_t seed = 0;
  double bucket_mb = 25;
  bool sync_bn = false, overwrite = false;
};

// Bounds of the settings, far above any real run of the tool's models, checked before anything is
// allocated from them (a crafted state.json with "classes": "2000000" would allocate gigabytes).
constexpr std::int64_t kMaxBatchSize = std::int64_t{1} << 24, kMaxEpochs = 1'000'000, kMaxClasses = 1000,
                       kMaxExamples = std::int64_t{1} << 31, kMaxSide = 4096, kMaxImageElements = std::int64_t{1} << 24,
                       kMaxThreads = 4096;
constexpr double kMaxBucketMb = 1 << 20;

std::string expected_files(const std::string& data) {
  if (data == "mnist")
    return "train-images-idx3-ubyte and train-labels-idx1-ubyte (each may end in .gz; `symx data download mnist "
           "--dir DIR` fetches them)";
  return "data_batch_1.bin .. data_batch_5.bin and test_batch.bin, CIFAR-10's binary format (`symx data download "
         "cifar10 --dir DIR` fetches them)";
}

void check_data_name(const std::string& data) {
  if (data != "mnist" && data != "cifar10")
    throw ValueError("unknown data set '" + data + "'. The known ones are: mnist, cifar10.");
}

void check_data_dir(const std::string& data, const std::string& dir) {
  if (dir.empty()) throw ValueError("--data-dir is missing: give the folder holding " + expected_files(data) + ".");
  if (!fs::is_directory(dir))
    throw IOError("the data folder '" + dir + "' does not exist. It must hold " + expected_files(data) + ".");
}

// The training and validation sets of a run: MNIST's train split cut by train_test_split; CIFAR-10's
// train and test splits (a cut of train when test_batch.bin is absent).
std::pair<data::Dataset, data::Dataset> load_run_data(const std::string& data, const std::string& dir,
                                                      std::int64_t val_size, std::uint64_t seed) {
  check_data_name(data);
  check_data_dir(data, dir);
  if (data == "mnist") {
    data::Dataset all = data::load_mnist(dir, "train");
    if (val_size < 1 || val_size >= all.size())
      throw ValueError("--val-size " + std::to_string(val_size) + " does not fit the " + std::to_string(all.size()) +
                       " examples of '" + dir + "'; give a number between 1 and " + std::to_string(all.size() - 1) +
                       ".");
    return data::train_test_split(all, val_size, seed);
  }
  data::Dataset train = data::load_cifar10(dir, "train");
  bool has_test = fs::exists(fs::path(dir) / "test_batch.bin") ||
                  fs::exists(fs::path(dir) / "cifar-10-batches-bin" / "test_batch.bin");
  if (has_test) return {train, data::load_cifar10(dir, "test")};
  return data::train_test_split(train, val_size, seed);
}

std::string shape_config(const Shape& s) {
  std::string out;
  for (std::size_t i = 1; i < s.size(); ++i) out += (i > 1 ? "," : "") + std::to_string(s[i]);
  return out;
}

Shape parse_shape(const std::string& text, const std::string& file) {
  Shape s;
  std::size_t start = 0;
  std::int64_t elements = 1;
  const std::string bad = "checkpoint '" + file + "': config \"image_shape\" is '" + text.substr(0, 60) +
                          "', not 3 sizes C,H,W from 1 to " + std::to_string(kMaxSide) + " of at most " +
                          std::to_string(kMaxImageElements) + " elements. The file is damaged.";
  while (start <= text.size() && s.size() <= 3) {
    std::size_t end = std::min(text.find(',', start), text.size());
    std::string item = text.substr(start, end - start);
    if (item.empty() || item.size() > 4 || item.find_first_not_of("0123456789") != std::string::npos)
      throw IOError(bad);
    s.push_back(std::stoll(item));
    if (s.back() < 1 || s.back() > kMaxSide) throw IOError(bad);
    elements *= s.back();
    start = end + 1;
  }
  if (s.size() != 3 || elements > kMaxImageElements) throw IOError(bad);
  return s;
}

const std::string& config_value(const tr::CheckpointInfo& info, const std::string& key) {
  auto it = info.config.find(key);
  if (it == info.config.end())
    throw IOError("checkpoint '" + info.path + "/state.json' has no \"" + key +
                  "\" in its config: it was not written by `symx train`. Evaluate it from the library instead.");
  return it->second;
}

// The integer setting `key` of the checkpoint, which must lie in [lo, hi].
std::int64_t config_int(const tr::CheckpointInfo& info, const std::string& key, std::int64_t lo, std::int64_t hi) {
  const std::string& v = config_value(info, key);
  std::int64_t n = 0;
  bool ok = !v.empty() && v.size() <= 19 && v.find_first_not_of("0123456789") == std::string::npos;
  try {
    if (ok) n = std::stoll(v);
  } catch (const std::out_of_range&) {
    ok = false;
  }
  if (!ok || n < lo || n > hi)
    throw IOError("checkpoint '" + info.path + "/state.json': config \"" + key + "\" is '" + v.substr(0, 40) +
                  "', expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                  ". The file is damaged or was not written by `symx train`.");
  return n;
}

std::uint64_t config_seed(const tr::CheckpointInfo& info) {
  const std::string& v = config_value(info, "seed");
  bool ok = !v.empty() && v.size() <= 20 && v.find_first_not_of("0123456789") == std::string::npos;
  try {
    if (ok) return std::stoull(v);
  } catch (const std::out_of_range&) {}
  throw IOError("checkpoint '" + info.path + "/state.json': config \"seed\" is '" + v.substr(0, 40) +
                "', expected a whole number from 0 to 2^64 - 1. The file is damaged or was not written by `symx "
                "train`.");
}

// The files of a run in the folder `out` (none when it does not exist), LATEST first.
std::vector<fs::path> run_files(const std::string& out) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(out, ec)) {
    std::string name = entry.path().filename().string();
    if (name == "LATEST" || name == "metrics.jsonl" || name == "curves.png" || name.rfind("checkpoint-", 0) == 0 ||
        name.rfind(".checkpoint-", 0) == 0)
      files.push_back(entry.path());
  }
  std::stable_partition(files.begin(), files.end(), [](const fs::path& f) { return f.filename() == "LATEST"; });
  return files;
}

// Training into a folder that holds a run would replace its checkpoints and metrics: refused
// unless --overwrite asks for it.
void check_run_folder(const std::string& out, bool overwrite) {
  std::vector<fs::path> files = run_files(out);
  if (!files.empty() && !overwrite)
    throw ValueError("--out " + out + " already holds a run (" + files.front().filename().string() +
                     "). Continue it with `symx train --resume " + out +
                     "`, replace it with --overwrite, or give another folder.");
}

// --overwrite: the old run's files are removed once the new run is about to start (its data
// loaded), LATEST first, so that a new run that stops early never leaves the old LATEST beside
// its own metrics.
void remove_old_run(const std::string& out) {
  for (const auto& f : run_files(out)) {
    std::error_code ec;
    fs::remove_all(f, ec);
    if (ec) throw IOError("--overwrite: cannot remove '" + f.string() + "': " + ec.message() + ".");
  }
}

void check_threads(std::int64_t threads) {
  if (threads < 0 || threads > kMaxThreads)
    throw ValueError("--threads " + std::to_string(threads) + ": give a number of threads from 1 to " +
                     std::to_string(kMaxThreads) + " (0 or none: every core).");
}

// Steps per epoch of `examples` in batches of `batch` on each of `world` processes.
std::int64_t steps_per_epoch(std::int64_t examples, std::int64_t batch, std::int64_t world) {
  std::int64_t per_step = 0;
  if (__builtin_mul_overflow(batch, world, &per_step)) return 1;
  return std::max<std::int64_t>(1, examples / per_step + (examples % per_step != 0));
}

void run_train(TrainArgs a, const CLI::App& cmd) {
  // Under mpirun: one process of a distributed run; rank 0 alone prints (fit writes the files).
  distributed::init();
  const std::int64_t world = distributed::world_size();
  const bool print = a.log != "quiet" && distributed::rank() == 0;
  if (!a.resume.empty()) {
    for (const char* flag :
         {"--model", "--data", "--batch-size", "--seed", "--out", "--val-size", "--sync-bn", "--overwrite"})
      if (cmd.count(flag))
        throw ValueError(
            std::string("--resume takes the run's settings from its checkpoint; drop ") + flag +
            " (only --epochs, --data-dir, --log, --threads, --prefetch and --bucket-mb may be given with --resume).");
    tr::CheckpointInfo info = tr::read_checkpoint(a.resume);
    a.model = config_value(info, "model");
    a.data = config_value(info, "data");
    if (!cmd.count("--data-dir")) a.data_dir = config_value(info, "data_dir");
    a.batch_size = config_int(info, "batch_size", 1, kMaxBatchSize);
    a.seed = config_seed(info);
    a.val_size = config_int(info, "val_size", 1, kMaxExamples);
    if (!cmd.count("--epochs")) a.epochs = config_int(info, "epochs", 1, kMaxEpochs);
    a.sync_bn = info.config.count("sync_bn") && info.config.at("sync_bn") == "1";
    a.out = a.resume;
    if (a.epochs <= info.epoch)
      throw ValueError("the run in " + a.resume + " has already trained " + std::to_string(info.epoch) + " epoch" +
                       (info.epoch == 1 ? "" : "s") + (cmd.count("--epochs") ? ", and --epochs " : " of its ") +
                       std::to_string(a.epochs) + (cmd.count("--epochs") ? " asks for no more" : "") +
                       ": nothing to do. Give --epochs above " + std::to_string(info.epoch) +
                       " to train further (it counts every epoch of the run).");
  } else {
    if (a.model.empty()) {
      std::string known;
      for (const auto& n : tr::models::model_names()) known += (known.empty() ? "" : "|") + n;
      throw ValueError("--model is missing: choose one of " + known + ", or continue a run with --resume RUN_DIR.");
    }
    tr::models::make_model(a.model, {1, 28, 28});  // an unknown model fails before the data loads
    if (a.out.empty())
      throw ValueError("--out is missing: give the run folder for the checkpoint, metrics and plot (e.g. --out runs/" +
                       a.model + ").");
    if (a.epochs < 1) throw ValueError("--epochs " + std::to_string(a.epochs) + ": train for at least 1 epoch.");
    if (cmd.count("--batch-size") && (a.batch_size < 1 || a.batch_size > kMaxBatchSize))
      throw ValueError("--batch-size " + std::to_string(a.batch_size) + ": give a number of examples from 1 to " +
                       std::to_string(kMaxBatchSize) + ".");
    if (distributed::rank() == 0) check_run_folder(a.out, a.overwrite);
  }
  if (a.epochs > kMaxEpochs)
    throw ValueError("--epochs " + std::to_string(a.epochs) + ": give at most " + std::to_string(kMaxEpochs) + ".");
  if (!(a.bucket_mb > 0) || a.bucket_mb > kMaxBucketMb)
    throw ValueError("--bucket-mb " + std::to_string(a.bucket_mb) + ": give a positive size in MiB, at most " +
                     std::to_string(static_cast<int>(kMaxBucketMb)) + ".");
  check_threads(a.threads);
  if (a.threads > 0) {
    set_num_threads(static_cast<int>(a.threads));
  } else if (world > 1) {  // the machine's cores shared by the processes on it
    set_num_threads(std::max(1, num_threads() / distributed::local_size()));
  }
  auto [train, val] = load_run_data(a.data, a.data_dir, a.val_size, a.seed);
  std::int64_t probe_batch = a.batch_size > 0 ? a.batch_size : 32;
  // Steps per epoch: every process takes a batch per step (batch_size is per process).
  std::int64_t steps = steps_per_epoch(train.size(), probe_batch, world);
  const Shape image_shape(train.x.shape().begin() + 1, train.x.shape().end());
  tr::models::Model model = tr::models::make_model(a.model, image_shape, 10, steps, a.sync_bn);
  if (a.batch_size <= 0) a.batch_size = model.batch_size;
  if (a.batch_size != probe_batch)  // the schedule's epochs in steps of the recipe's batch size
    model =
        tr::models::make_model(a.model, image_shape, 10, steps_per_epoch(train.size(), a.batch_size, world), a.sync_bn);
  tr::FitOptions options{.epochs = a.epochs,
                         .batch_size = a.batch_size,
                         .seed = a.seed,
                         .out_dir = a.out,
                         .resume = !a.resume.empty(),
                         .log = a.log,
                         .prefetch = a.prefetch,
                         .bucket_mb = a.bucket_mb};
  options.config = {{"model", a.model},
                    {"data", a.data},
                    {"data_dir", fs::absolute(a.data_dir).string()},
                    {"batch_size", std::to_string(a.batch_size)},
                    {"seed", std::to_string(a.seed)},
                    {"epochs", std::to_string(a.epochs)},
                    {"val_size", std::to_string(a.val_size)},
                    {"image_shape", shape_config(train.x.shape())},
                    {"classes", "10"},
                    {"sync_bn", a.sync_bn ? "1" : "0"}};
  if (print) {
    std::printf(
        "symx train: %s on %s (%lld training, %lld validation examples), %lld epochs of batch %lld, seed %llu\n",
        a.model.c_str(), a.data.c_str(), static_cast<long long>(train.size()), static_cast<long long>(val.size()),
        static_cast<long long>(a.epochs), static_cast<long long>(a.batch_size),
        static_cast<unsigned long long>(a.seed));
    if (world > 1)
      std::printf("symx train: %lld processes x %d threads, batch %lld per process (%lld in all), %s batch norm\n",
                  static_cast<long long>(world), num_threads(), static_cast<long long>(a.batch_size),
                  static_cast<long long>(a.batch_size * world), a.sync_bn ? "synchronized" : "per-process");
  }
  if (a.overwrite && distributed::rank() == 0) remove_old_run(a.out);
  tr::History history;
  try {
    history = tr::fit(*model.network, tr::softmax_cross_entropy, *model.optimizer, train, val, options);
  } catch (const tr::Interrupted& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "\nsymx train: %s (symx train --resume %s)\n", e.what(), a.out.c_str());
    throw CLI::RuntimeError(130);
  }
  if (!history.empty() && print)
    std::printf("done: validation loss %.4f, accuracy %.2f%%; run folder %s (metrics.jsonl, curves.png, checkpoint)\n",
                history.back().val_loss, 100 * history.back().val_accuracy, a.out.c_str());
}

struct EvalArgs {
  std::string checkpoint, images, labels, data, data_dir, split = "test";
  std::int64_t batch_size = 32, threads = 0;
};

data::Dataset read_idx_pair(const std::string& images, const std::string& labels) {
  if (images.empty() != labels.empty())
    throw ValueError("--images and --labels go together: give both IDX files (examples and their labels).");
  data::Dataset d{data::read_idx(images), data::read_idx(labels)};
  if (d.x.ndim() == 3) d.x = d.x.reshape({d.x.shape()[0], 1, d.x.shape()[1], d.x.shape()[2]});  // MNIST's (N, H, W)
  if (d.y.ndim() != 1 || !is_integer(d.y.dtype()))
    throw ValueError("the labels '" + labels + "' have shape " + shape_string(d.y.shape()) + " and dtype " +
                     std::string(dtype_name(d.y.dtype())) + "; expected one integer label per image (N,).");
  d.y = d.y.astype(DType::i64);
  if (d.x.shape()[0] != d.y.shape()[0])
    throw ValueError("'" + images + "' holds " + std::to_string(d.x.shape()[0]) + " images but '" + labels + "' " +
                     std::to_string(d.y.shape()[0]) + " labels; give files of the same examples.");
  return d;
}

void run_eval(const EvalArgs& a) {
  if (a.batch_size < 1 || a.batch_size > kMaxBatchSize)
    throw ValueError("--batch-size " + std::to_string(a.batch_size) + ": give a number of examples from 1 to " +
                     std::to_string(kMaxBatchSize) + ".");
  check_threads(a.threads);
  if (a.threads > 0) set_num_threads(static_cast<int>(a.threads));
  tr::CheckpointInfo info = tr::read_checkpoint(a.checkpoint);
  std::string state_file = info.path + "/state.json";
  Shape image = parse_shape(config_value(info, "image_shape"), state_file);
  data::Dataset d;
  std::string source;
  if (!a.images.empty() || !a.labels.empty()) {
    d = read_idx_pair(a.images, a.labels);
    source = a.images;
  } else {
    std::string name = a.data.empty() ? config_value(info, "data") : a.data;
    std::string dir = a.data_dir.empty() ? config_value(info, "data_dir") : a.data_dir;
    check_data_name(name);
    check_data_dir(name, dir);
    if (a.split == "val") {
      d = load_run_data(name, dir, config_int(info, "val_size", 1, kMaxExamples), config_seed(info)).second;
    } else if (a.split == "train" || a.split == "test") {
      d = name == "mnist" ? data::load_mnist(dir, a.split) : data::load_cifar10(dir, a.split);
    } else {
      throw ValueError("--split '" + a.split + "' is unknown: use test, train or val (the run's validation split).");
    }
    source = name + " " + a.split + " split of " + dir;
  }
  Shape got(d.x.shape().begin() + 1, d.x.shape().end());
  if (got != image)
    throw ValueError("the images of " + source + " have shape " + shape_string(got) + " but the model of '" +
                     a.checkpoint + "' was trained on images " + shape_string(image) +
                     ". Evaluate it on images of the data it was trained on.");
  auto model = tr::models::make_model(config_value(info, "model"), image, config_int(info, "classes", 1, kMaxClasses));
  Shape batch_shape{kDynamic};
  batch_shape.insert(batch_shape.end(), image.begin(), image.end());
  (*model.network)(placeholder(batch_shape, DType::f32, "x"), false);  // builds the variables
  tr::load_checkpoint(a.checkpoint, variables());
  tr::Network net = [&](const Tensor& x, bool training) { return (*model.network)(x, training); };
  tr::Evaluation e = tr::evaluate(net, tr::softmax_cross_entropy, d, a.batch_size);
  std::printf("loss %.4f  accuracy %.2f%%  (%lld examples of %s; checkpoint %s, epoch %lld)\n", e.loss,
              100 * e.accuracy, static_cast<long long>(e.examples), source.c_str(), info.path.c_str(),
              static_cast<long long>(info.epoch));
}

}  // namespace

void add_train_commands(CLI::App& app) {
  auto train_args = std::make_shared<TrainArgs>();
  CLI::App* train = app.add_subcommand("train", "Train a model of the tool on MNIST or CIFAR-10, or resume a run");
  std::string models;
  for (const auto& n : tr::models::model_names()) models += (models.empty() ? "" : "|") + n;
  train->add_option("--model", train_args->model, "The model: " + models);
  train->add_option("--data", train_args->data, "The data set: mnist|cifar10")->capture_default_str();
  train->add_option("--data-dir", train_args->data_dir, "The folder holding the data set's files");
  train->add_option("--epochs", train_args->epochs, "Epochs to train (in all, with --resume)")->capture_default_str();
  train->add_option("--batch-size", train_args->batch_size,
                    "Examples per batch (default: the model's recipe: 32, or 64 for lstm and gru)");
  train->add_option("--seed", train_args->seed, "Seed of the initialization, split, shuffling and augmentation")
      ->capture_default_str();
  train->add_option("--out", train_args->out, "The run folder (checkpoint, metrics.jsonl, curves.png)");
  train->add_option("--val-size", train_args->val_size, "Validation examples split off the training data")
      ->capture_default_str();
  train->add_option("--resume", train_args->resume, "Continue the run in this folder exactly where it stopped");
  train->add_flag("--overwrite", train_args->overwrite,
                  "Replace the run already in --out (its checkpoints, metrics and plot); without it such a folder is "
                  "refused");
  train->add_option("--log", train_args->log, "Progress: auto|bar|lines|quiet")->capture_default_str();
  train->add_option("--threads", train_args->threads,
                    "Threads of the compiled functions (default: all cores; under mpirun, shared by the machine's "
                    "processes)");
  train->add_option("--prefetch", train_args->prefetch, "Batches prepared ahead on a background thread (0: none)")
      ->capture_default_str();
  train
      ->add_option("--bucket-mb", train_args->bucket_mb,
                   "Under mpirun: MiB of gradients per all-reduce bucket (batch size is per process)")
      ->capture_default_str();
  train->add_flag("--sync-bn", train_args->sync_bn,
                  "Under mpirun: batch norm statistics over every process's examples (default: per process)");
  train->callback([train_args, train] { run_train(*train_args, *train); });

  auto eval_args = std::make_shared<EvalArgs>();
  CLI::App* eval = app.add_subcommand("eval", "Loss and accuracy of a run's checkpoint on any number of examples");
  eval->add_option("--checkpoint", eval_args->checkpoint, "The run folder")->required();
  eval->add_option("--images", eval_args->images, "An IDX file of images (N, H, W) or (N, C, H, W)");
  eval->add_option("--labels", eval_args->labels, "An IDX file of labels (N,)");
  eval->add_option("--data", eval_args->data, "A data set (mnist|cifar10) instead of IDX files (default: the run's)");
  eval->add_option("--data-dir", eval_args->data_dir, "Its folder (default: the run's)");
  eval->add_option("--split", eval_args->split, "test|train|val (val: the run's validation split)")
      ->capture_default_str();
  eval->add_option("--batch-size", eval_args->batch_size, "Examples per batch")->capture_default_str();
  eval->add_option("--threads", eval_args->threads, "Threads of the compiled functions (default: all cores)");
  eval->callback([eval_args] { run_eval(*eval_args); });
}

}  // namespace symx::cli

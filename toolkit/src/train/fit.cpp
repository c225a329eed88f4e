// The training loop: fit() and evaluate(). The per-step work is one call of the compiled training
// function (whose outputs already hold the batch's loss and accuracy) and a few additions in C++;
// batches come from a BatchIterator that gathers and converts them on its background thread.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <thread>

#include "symx/distributed.hpp"
#include "symx/nn/init.hpp"
#include "symx/nn/losses.hpp"
#include "train_internal.hpp"

namespace fs = std::filesystem;

namespace symx::train {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// ---- Ctrl-C: a flag set for the duration of fit ----
//
// SIGINT is blocked in the training thread (and so in the threads it starts: the prefetcher,
// OpenMP's workers) and taken by a watcher thread with sigwait: a signal handler that ran on the
// training thread could interrupt JIT-compiled library code (oneDNN's sgemm) that keeps data below
// the stack pointer, which we saw corrupt the heap. Threads started before fit (BLAS pools) may
// still take the signal; the handler installed for them only sets the flag.

std::atomic<int> g_interrupted{0};

extern "C" void on_sigint(int) {
  if (g_interrupted.load()) ::_exit(130);  // a second Ctrl-C: stop at once
  g_interrupted.store(1);
}

class SigintGuard {
 public:
  explicit SigintGuard(bool install) : installed_(install) {
    g_interrupted = 0;
    if (!installed_) return;
    struct sigaction action {};
    action.sa_handler = on_sigint;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &action, &previous_);
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    ::pthread_sigmask(SIG_BLOCK, &block, &previous_mask_);
    watcher_ = std::thread([this, block] {
      for (;;) {
        int signal = 0;
        if (::sigwait(&block, &signal) != 0) continue;
        if (stopping_.load()) return;
        on_sigint(signal);
      }
    });
  }
  ~SigintGuard() {
    if (!installed_) return;
    stopping_ = true;
    ::pthread_kill(watcher_.native_handle(), SIGINT);
    watcher_.join();
    // A Ctrl-C that came in the meantime is pending in this thread: take it so that it is not
    // delivered to the previous handler once unblocked (the flag already holds it).
    sigset_t pending;
    sigpending(&pending);
    if (sigismember(&pending, SIGINT)) {
      sigset_t only;
      sigemptyset(&only);
      sigaddset(&only, SIGINT);
      timespec zero{0, 0};
      ::sigtimedwait(&only, nullptr, &zero);
    }
    ::pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
    ::sigaction(SIGINT, &previous_, nullptr);
  }
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;

 private:
  bool installed_;
  struct sigaction previous_ {};
  sigset_t previous_mask_{};
  std::atomic<bool> stopping_{false};
  std::thread watcher_;
};

// ---- the compiled functions ----

Tensor mean_loss(const Loss& loss, const Tensor& logits, const Tensor& y) {
  Tensor l = loss(logits, y);
  if (!l.defined() || !is_floating(l.dtype()))
    throw ValueError(
        "fit: the loss function returned no float tensor. It must return the batch's mean loss (a float "
        "scalar) or per-example losses, e.g. nn::losses::softmax_cross_entropy_loss(logits, labels).");
  return l.ndim() == 0 ? l : mean(l);
}

bool has_accuracy(const Tensor& logits, const Tensor& y) {
  return is_integer(y.dtype()) && logits.ndim() == y.ndim() + 1;
}

struct Placeholders {
  Tensor x, y;
};

// Placeholders for batches of `data`: the batch axis kDynamic, integer images as float32.
Placeholders make_placeholders(const data::Dataset& data) {
  Shape xs = data.x.shape();
  xs[0] = kDynamic;
  Shape ys = data.y.shape();
  ys[0] = kDynamic;
  DType xdtype = is_floating(data.x.dtype()) ? data.x.dtype() : DType::f32;
  return {placeholder(xs, xdtype, "x"), placeholder(ys, data.y.dtype(), "y")};
}

// The iterator's transform that turns integer examples into float32 (on the prefetching thread);
// floating examples keep their dtype.
std::vector<Array> examples_to_float(std::vector<Array> batch, std::uint64_t seed) {
  if (is_floating(batch[0].dtype())) return batch;
  static const data::Transform to_float = data::to_float32();
  return to_float(std::move(batch), seed);
}

void check_dataset(const data::Dataset& d, const char* which, const data::Dataset* like) {
  if (d.x.ndim() < 1 || d.y.ndim() < 1)
    throw ValueError(std::string("fit: the ") + which + " data set has no examples or no labels (x " +
                     shape_string(d.x.shape()) + ", y " + shape_string(d.y.shape()) +
                     "). Pass a Dataset with x (N, ...) and labels y (N,).");
  if (d.x.shape()[0] != d.y.shape()[0] || d.x.shape()[0] == 0)
    throw ValueError(std::string("fit: the ") + which + " data set has " + std::to_string(d.x.shape()[0]) +
                     " examples and " + std::to_string(d.y.shape()[0]) +
                     " labels. x and y must share their first axis, with at least one example.");
  if (!like) return;
  Shape a = d.x.shape(), b = like->x.shape();
  a[0] = b[0] = 0;
  if (a != b || d.x.dtype() != like->x.dtype() || d.y.dtype() != like->y.dtype())
    throw ValueError(std::string("fit: the ") + which + " examples " + shape_string(d.x.shape()) + " " +
                     std::string(dtype_name(d.x.dtype())) + " (labels " + std::string(dtype_name(d.y.dtype())) +
                     ") do not match the training examples " + shape_string(like->x.shape()) + " " +
                     std::string(dtype_name(like->x.dtype())) + " (labels " + std::string(dtype_name(like->y.dtype())) +
                     "). Give both the same example shape and dtypes.");
}

// Integer labels must index the network's outputs: a label outside [0, classes) (200, or -7, for
// 10 classes) selects no logit, and the loss would be a silent 0.
void check_labels(const data::Dataset& d, const Tensor& logits, const char* what, const char* which) {
  if (!is_integer(d.y.dtype()) || logits.ndim() != d.y.ndim() + 1 || logits.shape().back() == kDynamic) return;
  const std::int64_t classes = logits.shape().back();
  if (classes < 2) return;  // one output is no class index (a logistic regression's logit, say)
  const Array labels = d.y.astype(DType::i64);
  const std::int64_t* y = labels.data<std::int64_t>();
  for (std::int64_t i = 0; i < labels.size(); ++i)
    if (y[i] < 0 || y[i] >= classes)
      throw ValueError(std::string(what) + ": label " + std::to_string(y[i]) + " of example " + std::to_string(i) +
                       " of the " + which + " data set is outside the network's " + std::to_string(classes) +
                       " classes (0 to " + std::to_string(classes - 1) +
                       "). Give labels that index the network's outputs.");
}

// Running sums of one phase (training or validation) of an epoch.
struct Sums {
  double loss = 0, correct = 0;
  std::int64_t count = 0;
  void add(const std::vector<Array>& outputs, std::int64_t n) {
    loss += outputs[0].item<double>() * static_cast<double>(n);
    double fraction = outputs[1].item<double>();
    if (std::isfinite(fraction)) correct += static_cast<double>(std::llround(fraction * static_cast<double>(n)));
    count += n;
  }
  double mean_loss() const { return count ? loss / static_cast<double>(count) : kNaN; }
  double accuracy(bool known) const { return known && count ? correct / static_cast<double>(count) : kNaN; }
};

Sums run_evaluation(const Function& f, data::BatchIterator& batches) {
  Sums sums;
  std::vector<Array> outputs;
  batches.restore({0, 0, 0});
  while (auto batch = batches.next()) {
    std::int64_t n = (*batch)[0].shape()[0];
    outputs = f({(*batch)[0], (*batch)[1]});
    sums.add(outputs, n);
  }
  return sums;
}

// ---- files of the run folder ----

class RunFiles {
 public:
  // `config` names the curves: "paper-cnn on mnist" when it has "model" and "data" (the tool's
  // runs), else the run folder's name.
  RunFiles(const std::string& dir, const History& history, const std::map<std::string, std::string>& config)
      : dir_(dir) {
    if (dir_.empty()) return;
    auto model = config.find("model"), data = config.find("data");
    title_ = model != config.end() && data != config.end() ? model->second + " on " + data->second
                                                           : fs::path(dir_).filename().string();
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec) throw IOError("fit: cannot create the output folder '" + dir_ + "': " + ec.message() + ".");
    // metrics.jsonl restarts from the checkpoint's history: lines of epochs after it are dropped.
    write_metrics(history);
  }
  // metrics.jsonl and curves.png rewritten whole, each atomically (never appended through whatever
  // the name points to): a few hundred bytes per epoch.
  void append(const History& history) const {
    if (dir_.empty()) return;
    write_metrics(history);
    plot_history(history, (fs::path(dir_) / "curves.png").string(), "training curves (" + title_ + ")");
  }
  const std::string& dir() const { return dir_; }

 private:
  void write_metrics(const History& history) const {
    std::string lines;
    for (const auto& m : history) lines += detail::to_json(m).dump() + "\n";
    detail::write_file_atomic((fs::path(dir_) / "metrics.jsonl").string(), lines, "fit");
  }
  std::string title_;
  std::string dir_;
};

}  // namespace

Tensor softmax_cross_entropy(const Tensor& logits, const Tensor& labels) {
  return nn::losses::softmax_cross_entropy_loss(logits, labels);
}

namespace {

// The state of a run while fit loops: position, history and the partial epoch's sums.
struct Run {
  CheckpointInfo info;
  Sums train;
  double step_seconds = 0, seconds_before = 0;  // of the current epoch, including before a resume
};

// The sums of every process's examples (a world of one: `local`).
Sums global_sums(const Sums& local) {
  if (distributed::world_size() == 1) return local;
  Array s = Array::from_vector<double>({local.loss, local.correct, static_cast<double>(local.count)}, {3});
  s = distributed::all_reduce(s, distributed::Reduction::sum);
  return {s.get_flat(0), s.get_flat(1), static_cast<std::int64_t>(s.get_flat(2))};
}

// The non-trainable float variables (batch norm's running statistics; the optimizer's state, the
// same everywhere) averaged over the processes, so that every process evaluates and saves the same
// model.
void average_buffers() {
  if (distributed::world_size() == 1) return;
  for (const Tensor& v : default_graph().variables("", false))
    if (is_floating(v.dtype())) v.assign(distributed::all_reduce(v.value(), distributed::Reduction::mean));
}

// The batch position of a checkpoint written by `saved` processes, in batches of this run's
// `processes`: the same examples done, or a ValueError when they do not fill whole batches.
std::int64_t batch_for_processes(const CheckpointInfo& info, std::int64_t processes, std::int64_t batch_size,
                                 const std::string& dir) {
  if (info.processes == processes || info.batch == 0) return info.batch;
  std::int64_t done = 0, per = 0;
  if (__builtin_mul_overflow(info.batch, batch_size, &done) || __builtin_mul_overflow(done, info.processes, &done) ||
      __builtin_mul_overflow(batch_size, processes, &per))
    throw IOError("fit: the checkpoint in '" + dir + "' is at batch " + std::to_string(info.batch) + " of " +
                  std::to_string(info.processes) + " processes, which with batch_size " + std::to_string(batch_size) +
                  " is more examples than 2^63. The checkpoint is damaged; resume from another run folder.");
  if (done % per == 0) return done / per;
  throw ValueError("fit: the checkpoint in '" + dir + "' was written by " + std::to_string(info.processes) +
                   " processes inside epoch " + std::to_string(info.epoch + 1) + " after " + std::to_string(done) +
                   " examples, which is not a whole number of batches of " + std::to_string(per) + " (" +
                   std::to_string(processes) + " processes x batch " + std::to_string(batch_size) +
                   "). Resume it with " + std::to_string(info.processes) +
                   " processes, or from a checkpoint at the end of an epoch.");
}

CheckpointInfo position(const Run& run, std::int64_t epoch, std::int64_t batch, double epoch_seconds) {
  CheckpointInfo c = run.info;
  c.epoch = epoch;
  c.batch = batch;
  c.partial_loss_sum = batch ? run.train.loss : 0;
  c.partial_correct = batch ? run.train.correct : 0;
  c.partial_count = batch ? run.train.count : 0;
  c.partial_step_seconds = batch ? run.step_seconds : 0;
  c.partial_seconds = batch ? epoch_seconds : 0;
  return c;
}

}  // namespace

History fit(const Network& network, const Loss& loss, optim::Optimizer& optimizer, const data::Dataset& train,
            const data::Dataset& validation, FitOptions options,
            const std::vector<std::shared_ptr<Callback>>& callbacks) {
  if (options.epochs < 1 || options.batch_size < 1 || options.prefetch < 0)
    throw ValueError("fit: epochs (" + std::to_string(options.epochs) + ") and batch_size (" +
                     std::to_string(options.batch_size) + ") must be at least 1 and prefetch (" +
                     std::to_string(options.prefetch) + ") at least 0.");
  if (options.resume && options.out_dir.empty())
    throw ValueError("fit: resume needs out_dir, the run folder holding the checkpoint to continue from.");
  check_dataset(train, "training", nullptr);
  bool validate = validation.x.ndim() > 0 && validation.x.size() > 0;  // an empty Dataset: no validation
  if (validate) check_dataset(validation, "validation", &train);
  // A distributed run: rank 0 alone prints and writes files.
  const int world = distributed::world_size();
  const bool writer = distributed::rank() == 0;
  if (!(options.bucket_mb > 0) || options.bucket_mb > 1 << 20)
    throw ValueError("fit: bucket_mb is " + std::to_string(options.bucket_mb) +
                     "; it must be a positive size in MiB, at most 1048576.");
  std::vector<std::shared_ptr<Callback>> hooks;
  if (options.log != "quiet" && writer) hooks.push_back(std::make_shared<ProgressLogger>(options.log));
  hooks.insert(hooks.end(), callbacks.begin(), callbacks.end());

  // The graph, built the same way on every run (so that a checkpoint loads over it).
  nn::init::seed(options.seed);
  random::seed(options.seed);
  clear_updates();
  auto [x, y] = make_placeholders(train);
  Tensor logits = network(x, true);
  bool accuracy_known = has_accuracy(logits, y);
  check_labels(train, logits, "fit", "training");
  if (validate) check_labels(validation, logits, "fit", "validation");
  Tensor train_loss = mean_loss(loss, logits, y);
  if (world > 1 && !optimizer.has_gradient_transform())
    optim::make_distributed(optimizer, {.bucket_mb = options.bucket_mb});
  optimizer.minimize(train_loss);
  Tensor train_accuracy = accuracy_known ? nn::losses::accuracy(logits, y) : constant(kNaN);
  Function step = function({x, y}, {train_loss, train_accuracy}, get_updates());
  Tensor eval_logits = network(x, false);
  Tensor eval_accuracy = accuracy_known ? nn::losses::accuracy(eval_logits, y) : constant(kNaN);
  Function evaluate_batch = function({x, y}, {mean_loss(loss, eval_logits, y), eval_accuracy});
  Function learning_rate = function({}, {optimizer.learning_rate()});

  Run run;
  run.info.seed = options.seed;
  run.info.config = options.config;
  run.info.processes = world;
  if (options.resume) {
    // Rank 0 reads the checkpoint (the run folder need not be shared); the others get its
    // variables and position from it below.
    if (writer) run.info = load_checkpoint(options.out_dir);
    if (world > 1) {
      Array where = Array::from_vector<std::int64_t>({run.info.epoch, run.info.batch, run.info.step,
                                                      static_cast<std::int64_t>(run.info.seed), run.info.processes},
                                                     {5});
      where = distributed::broadcast(where, 0);
      run.info.epoch = where.data<std::int64_t>()[0];
      run.info.batch = where.data<std::int64_t>()[1];
      run.info.step = where.data<std::int64_t>()[2];
      run.info.seed = static_cast<std::uint64_t>(where.data<std::int64_t>()[3]);
      run.info.processes = where.data<std::int64_t>()[4];
    }
    if (run.info.seed != options.seed)
      throw ValueError("fit: the checkpoint in '" + options.out_dir + "' was written with seed " +
                       std::to_string(run.info.seed) + ", the options say " + std::to_string(options.seed) +
                       ". Resume with the seed of the run.");
    // The options' settings replace the checkpoint's (e.g. more epochs or a moved data folder), so
    // that the next checkpoint records them.
    for (const auto& [key, value] : options.config) run.info.config[key] = value;
    run.train = {run.info.partial_loss_sum, run.info.partial_correct, run.info.partial_count};
    run.step_seconds = run.info.partial_step_seconds;
    run.seconds_before = run.info.partial_seconds;
    run.info.batch = batch_for_processes(run.info, world, options.batch_size, options.out_dir);
    run.info.processes = world;
  }
  // Every process starts from rank 0's variables (initial or loaded).
  distributed::broadcast_variables();
  RunFiles files(writer ? options.out_dir : "", run.info.history, run.info.config);

  std::vector<data::Transform> transforms{examples_to_float};
  transforms.insert(transforms.end(), options.transforms.begin(), options.transforms.end());
  data::BatchIterator batches({train.x, train.y}, {.batch_size = options.batch_size,
                                                   .shuffle = true,
                                                   .seed = options.seed,
                                                   .drop_last = options.drop_last,
                                                   .prefetch = options.prefetch,
                                                   .transforms = transforms,
                                                   .shard = distributed::rank(),
                                                   .shards = world});
  batches.restore({options.seed, run.info.epoch, run.info.batch});
  std::unique_ptr<data::BatchIterator> val_batches;
  if (validate)
    val_batches = std::make_unique<data::BatchIterator>(std::vector<Array>{validation.x, validation.y},
                                                        data::BatchOptions{.batch_size = options.batch_size,
                                                                           .shuffle = false,
                                                                           .seed = 0,
                                                                           .drop_last = false,
                                                                           .prefetch = options.prefetch,
                                                                           .transforms = {examples_to_float}});

  SigintGuard guard(options.handle_sigint);
  Progress progress;
  progress.epochs = options.epochs;
  progress.batches = batches.batches_per_epoch();
  progress.step = run.info.step;
  for (auto& h : hooks) h->on_train_begin(progress);
  std::vector<Array> outputs{Array({}, train_loss.dtype()), Array({}, train_accuracy.dtype())};
  bool stop = false;
  for (std::int64_t epoch = run.info.epoch; epoch < options.epochs && !stop; ++epoch) {
    double start = now_seconds() - run.seconds_before;
    progress.epoch = epoch + 1;
    progress.batch = run.info.batch;
    for (auto& h : hooks) h->on_epoch_begin(progress);
    while (auto batch = batches.next()) {
      std::int64_t n = (*batch)[0].shape()[0];
      double t0 = now_seconds();
      step.call_into({(*batch)[0], (*batch)[1]}, outputs);
      double t1 = now_seconds();
      run.step_seconds += t1 - t0;
      run.train.add(outputs, n);
      ++run.info.step;
      progress.batch += 1;
      progress.step = run.info.step;
      progress.running_loss = run.train.mean_loss();
      progress.running_accuracy = run.train.accuracy(accuracy_known);
      progress.epoch_seconds = t1 - start;
      progress.items_per_second = static_cast<double>(run.train.count) / std::max(progress.epoch_seconds, 1e-9);
      for (auto& h : hooks) h->on_batch_end(progress);
      if (g_interrupted) {
        std::string where;
        if (!files.dir().empty()) {
          run.info.step = progress.step;
          where = save_checkpoint(files.dir(), position(run, epoch, progress.batch, now_seconds() - start));
        }
        throw Interrupted("interrupted (Ctrl-C) in epoch " + std::to_string(epoch + 1) + " after batch " +
                          std::to_string(progress.batch) + " of " + std::to_string(progress.batches) +
                          (where.empty() ? std::string("; no out_dir, so no checkpoint was written")
                                         : "; checkpoint written to '" + where + "': resume to continue"));
      }
    }
    double train_seconds = now_seconds() - start;
    const Sums trained = global_sums(run.train);
    average_buffers();
    EpochMetrics m;
    m.epoch = epoch + 1;
    m.train_loss = trained.mean_loss();
    m.train_accuracy = trained.accuracy(accuracy_known);
    m.step_seconds = run.step_seconds;
    m.items_per_second = static_cast<double>(trained.count) / std::max(train_seconds, 1e-9);
    m.val_loss = m.val_accuracy = kNaN;
    if (validate) {
      Sums v = run_evaluation(evaluate_batch, *val_batches);
      m.val_loss = v.mean_loss();
      m.val_accuracy = v.accuracy(accuracy_known);
    }
    m.lr = learning_rate({})[0].item<double>();
    m.seconds = now_seconds() - start;
    run.info.history.push_back(m);
    run.train = {};
    run.step_seconds = run.seconds_before = 0;
    run.info.batch = 0;
    run.info.epoch = epoch + 1;
    for (auto& h : hooks) h->on_epoch_end(m, stop);
    if (world > 1)  // one process's callback stopping stops them all
      stop = distributed::all_reduce(Array::scalar<std::int32_t>(stop ? 1 : 0), distributed::Reduction::max)
                 .item<std::int32_t>() != 0;
    files.append(run.info.history);
    if (!files.dir().empty()) save_checkpoint(files.dir(), position(run, epoch + 1, 0, 0));
    if (g_interrupted)
      throw Interrupted("interrupted (Ctrl-C) at the end of epoch " + std::to_string(epoch + 1) +
                        (files.dir().empty() ? std::string("; no out_dir, so no checkpoint was written")
                                             : "; checkpoint written to '" + files.dir() + "': resume to continue"));
  }
  for (auto& h : hooks) h->on_train_end(run.info.history);
  return run.info.history;
}

History fit(nn::layers::Layer& network, const Loss& loss, optim::Optimizer& optimizer, const data::Dataset& train,
            const data::Dataset& validation, FitOptions options,
            const std::vector<std::shared_ptr<Callback>>& callbacks) {
  Network f = [&network](const Tensor& x, bool training) { return network(x, training); };
  return fit(f, loss, optimizer, train, validation, std::move(options), callbacks);
}

Evaluation evaluate(const Network& network, const Loss& loss, const data::Dataset& data, std::int64_t batch_size) {
  check_dataset(data, "evaluation", nullptr);
  if (batch_size < 1)
    throw ValueError("evaluate: batch_size is " + std::to_string(batch_size) + "; it must be at least 1.");
  auto [x, y] = make_placeholders(data);
  Tensor logits = network(x, false);
  bool known = has_accuracy(logits, y);
  check_labels(data, logits, "evaluate", "evaluation");
  Function f = function({x, y}, {mean_loss(loss, logits, y), known ? nn::losses::accuracy(logits, y) : constant(kNaN)});
  data::BatchIterator batches({data.x, data.y}, {.batch_size = batch_size,
                                                 .shuffle = false,
                                                 .seed = 0,
                                                 .drop_last = false,
                                                 .prefetch = 2,
                                                 .transforms = {examples_to_float}});
  Sums sums = run_evaluation(f, batches);
  return {sums.mean_loss(), sums.accuracy(known), sums.count};
}

}  // namespace symx::train

// symx/train.hpp: the training loop (symx::train::fit; Python symx.train.fit), its callbacks, its
// checkpoints, and the models of the `symx` tool.
//
// fit() compiles one training function (loss and accuracy as outputs, the optimizer's and batch
// norm's updates) and one evaluation function over placeholders whose batch axis is kDynamic, then
// runs epochs of batches from a data::BatchIterator (prefetched on a background thread). Per epoch
// it reports training and validation loss and accuracy, and, with an output folder, appends a line
// to metrics.jsonl, redraws curves.png and writes a checkpoint from which `resume` continues
// bit-identically (variables, optimizer state, the graph's random state, the iterator's position).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "symx/data.hpp"
#include "symx/nn/layers.hpp"
#include "symx/optim.hpp"
#include "symx/symx.hpp"

namespace symx::train {

// The metrics of one epoch (1-based `epoch`). A value that was not measured (no validation data,
// no accuracy for a loss on non-integer labels) is NaN (null in metrics.jsonl, None in Python).
// Example: fit(...).back().val_accuracy
struct EpochMetrics {
  std::int64_t epoch = 0;
  double train_loss = 0, train_accuracy = 0;
  double val_loss = 0, val_accuracy = 0;
  double seconds = 0;           // wall time of the epoch, validation included
  double step_seconds = 0;      // time inside the compiled training calls only
  double items_per_second = 0;  // training examples per second of the epoch's training phase
  double lr = 0;                // the learning rate at the end of the epoch
};

// The metrics of every completed epoch, in order.
using History = std::vector<EpochMetrics>;

// Where a training run stands while it runs, as callbacks see it.
// Example: progress.batch == progress.batches at the last batch of an epoch
struct Progress {
  std::int64_t epoch = 1, epochs = 1;   // 1-based epoch, of `epochs`
  std::int64_t batch = 0, batches = 0;  // batches done in this epoch, of `batches`
  std::int64_t step = 0;                // optimizer steps since the run began (all epochs)
  double running_loss = 0;              // mean training loss over the epoch's batches so far
  double running_accuracy = 0;
  double items_per_second = 0;  // over the epoch so far
  double epoch_seconds = 0;     // since the epoch began
};

// The base of the callbacks: each hook does nothing unless overridden. on_batch_end runs after
// every training step, on the training thread: keep it cheap.
// Example: class Print : public Callback { void on_epoch_end(const EpochMetrics& m, bool&) override {...} };
// Python: sx.train.fit(net, train=data, callbacks=[Print()]) where Print has on_epoch_end(self, epoch, metrics)
class Callback {
 public:
  virtual ~Callback() = default;
  virtual void on_train_begin(const Progress& progress) { (void)progress; }
  virtual void on_epoch_begin(const Progress& progress) { (void)progress; }
  virtual void on_batch_end(const Progress& progress) { (void)progress; }
  // Set `stop` to end training after this epoch (its checkpoint is still written).
  virtual void on_epoch_end(const EpochMetrics& metrics, bool& stop) { (void)metrics, (void)stop; }
  virtual void on_train_end(const History& history) { (void)history; }
};

// Stops training when `monitor` ("val_loss", "val_accuracy", "train_loss", "train_accuracy") has not
// improved by more than `min_delta` for `patience` epochs in a row. mode: "min", "max", or "auto"
// (max for accuracies, min for losses). An unknown monitor or mode is a ValueError.
// Example: EarlyStopping("val_loss", 3)
class EarlyStopping : public Callback {
 public:
  explicit EarlyStopping(std::string monitor = "val_loss", std::int64_t patience = 5, double min_delta = 0,
                         std::string mode = "auto");
  void on_epoch_end(const EpochMetrics& metrics, bool& stop) override;
  // The epoch (1-based) with the best value so far, 0 before the first epoch.
  std::int64_t best_epoch() const { return best_epoch_; }
  // The epoch after which it stopped training, 0 when it did not.
  std::int64_t stopped_epoch() const { return stopped_epoch_; }

 private:
  std::string monitor_;
  std::int64_t patience_;
  double min_delta_;
  bool maximize_;
  double best_ = 0;
  std::int64_t best_epoch_ = 0, wait_ = 0, stopped_epoch_ = 0;
};

// Prints progress to stdout: "bar" redraws one line per epoch with \r (epoch k/N, batch i/B,
// items/s, running loss, ETA) and ends it with the epoch's metrics; "lines" prints one plain line
// per epoch (for pipes, files and CI); "auto" is "bar" on a terminal (isatty) and "lines" otherwise;
// "quiet" prints nothing. Another mode is a ValueError.
// Example: ProgressLogger("lines")
class ProgressLogger : public Callback {
 public:
  explicit ProgressLogger(const std::string& mode = "auto");
  void on_epoch_begin(const Progress& progress) override;
  void on_batch_end(const Progress& progress) override;
  void on_epoch_end(const EpochMetrics& metrics, bool& stop) override;

 private:
  bool bar_ = false, quiet_ = false;
  double last_draw_ = -1;
  Progress last_{};
};

// Options of fit. Every field has a default; C++ sets them by name:
// FitOptions{.epochs = 10, .batch_size = 32, .out_dir = "run"}.
struct FitOptions {
  std::int64_t epochs = 1;
  std::int64_t batch_size = 32;
  // Seeds the initializers (nn::init::seed), the graph's random ops (random::seed) and the shuffling,
  // before fit builds the model: the same seed gives the same run.
  std::uint64_t seed = 0;
  // Folder for metrics.jsonl, curves.png and the checkpoints; empty: none of them. Each file is
  // replaced whole and atomically after every epoch (never appended to through a planted link).
  std::string out_dir = "";
  // Continue from the checkpoint in out_dir (a ValueError when there is none); the model, optimizer
  // and data must be built as in the run that wrote it. A distributed run may resume with another
  // number of processes (from a checkpoint inside an epoch, when the examples done fill whole
  // batches of the new size). The options' config entries replace the checkpoint's (so a run
  // resumed with more epochs or a moved data folder records them).
  bool resume = false;
  std::string log = "auto";   // ProgressLogger's mode
  std::int64_t prefetch = 2;  // batches prepared ahead on a background thread (0: none)
  bool drop_last = false;     // drop the last, smaller training batch of each epoch
  // Per-batch transforms of the training batches (augmentation on the host), after the conversion
  // of integer images to float32; they run on the prefetching thread.
  std::vector<data::Transform> transforms = {};
  // Ctrl-C stops after the current step, writes a checkpoint of that position (with out_dir) and
  // throws Interrupted; the previous SIGINT handler is restored when fit returns.
  bool handle_sigint = true;
  // Distributed runs (under mpirun, see symx/distributed.hpp): batch_size is per process; each
  // process trains on its shard of every batch, the optimizer averages the gradients over the
  // processes (made distributed with make_distributed when it has no gradient transform yet,
  // with buckets of bucket_mb MiB), the variables start from rank 0's, and the non-trainable ones
  // (batch norm's running statistics) are averaged over the processes after each epoch. Only rank 0
  // prints, writes metrics, plots and checkpoints; the metrics are those of every process's
  // examples. Callbacks run on every process (they see the same metrics).
  double bucket_mb = 25;
  // Written into each checkpoint as is, so that a tool can rebuild the run from it (the `symx`
  // tool stores model, data, batch size, seed...). Strings only.
  std::map<std::string, std::string> config = {};
};

// A model: a function of the input batch and the mode (true: training graph) returning logits.
// Example: [&](const Tensor& x, bool training) { return net(x, training); }
using Network = std::function<Tensor(const Tensor& x, bool training)>;
// A loss of the logits and labels: a scalar (the batch's mean) or per-example losses (averaged).
// Example: [](const Tensor& logits, const Tensor& y) { return nn::losses::softmax_cross_entropy_loss(logits, y); }
using Loss = std::function<Tensor(const Tensor& logits, const Tensor& labels)>;

// Thrown by fit when Ctrl-C (SIGINT) stopped it; with an out_dir, the checkpoint of the position
// reached has been written and `resume` continues from it. The `symx` tool exits with status 130.
// Example: try { fit(...); } catch (const Interrupted& e) { std::puts(e.what()); }
class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Trains `network` on `train` (x: examples, integer images are converted to float32 per batch;
// y: labels) with `loss` and `optimizer` for options.epochs epochs, evaluating on `validation`
// (optional: an empty Dataset skips it) after each. Accuracy (the argmax of the logits against
// integer labels) is computed inside the training function, never by a separate pass. Validation
// loss and accuracy are exact means over every example, whatever the batch size. Clears the graph's
// update collection before building (the training function takes the updates of this network and
// optimizer). Returns the history of the epochs run (all of them with resume, the earlier ones from
// the checkpoint). Errors: ValueError for bad options, data without labels, x and y of different
// lengths, integer labels outside the network's classes [0, logits' last axis); Interrupted on Ctrl-C.
// Example: auto history = fit(net, loss, adam, train, val, {.epochs = 10, .out_dir = "run"})
// Python: history = sx.train.fit(net, loss, sx.optim.Adam(1e-3), train, val, epochs=10, out_dir="run")
History fit(const Network& network, const Loss& loss, optim::Optimizer& optimizer, const data::Dataset& train,
            const data::Dataset& validation = {}, FitOptions options = {},
            const std::vector<std::shared_ptr<Callback>>& callbacks = {});
// The same for a Layer (or Sequential): network(x, training).
// Example: fit(*net, softmax_cross_entropy, adam, train, val, {.epochs = 3})
// Python: sx.train.fit(net, train=train, validation=val, epochs=3)
History fit(nn::layers::Layer& network, const Loss& loss, optim::Optimizer& optimizer, const data::Dataset& train,
            const data::Dataset& validation = {}, FitOptions options = {},
            const std::vector<std::shared_ptr<Callback>>& callbacks = {});

// The default loss: nn::losses::softmax_cross_entropy_loss over integer labels, mean over the batch.
// Example: fit(net, softmax_cross_entropy, adam, train)
Tensor softmax_cross_entropy(const Tensor& logits, const Tensor& labels);

// The result of evaluate: mean loss and accuracy (NaN when not measured) over `examples` examples.
// Example: evaluate(net, softmax_cross_entropy, test).accuracy
struct Evaluation {
  double loss = 0, accuracy = 0;
  std::int64_t examples = 0;
};
// Loss and accuracy of `network` in evaluation mode on every example of `data` (any number, batched
// by batch_size; the last batch may be smaller), as exact means over the examples. Integer labels
// outside the network's classes are a ValueError (their loss would be a silent 0). Python: a dict
// {"loss", "accuracy", "examples"}.
// Example: auto [loss, accuracy, n] = evaluate(net, softmax_cross_entropy, test, 32)
// Python: result = sx.train.evaluate(net, test); result["accuracy"]
Evaluation evaluate(const Network& network, const Loss& loss, const data::Dataset& data, std::int64_t batch_size = 32);

// ---- checkpoints ----
//
// A run folder holds checkpoint-<step>/ (variables.safetensors: every variable of the graph and its
// random state; state.json: position, history, config; SHA256SUMS: the SHA-256 of both, in
// sha256sum's format) and LATEST, a file naming the current one. A checkpoint is written into a
// temporary folder of an unguessable name, synced, renamed into place, and only then is LATEST
// replaced (atomically, through symx::write_file_atomically), so a crash at any moment leaves the
// previous checkpoint loadable; temporaries of killed writers are removed by the next save.
// Reading checks each file first: a regular file (a FIFO or a link to a device is refused without
// blocking) of bounded size (LATEST 4 KiB, state.json 64 MiB), JSON nested at most 16 levels, the
// SHA-256 of state.json and variables.safetensors against SHA256SUMS (a flipped byte is an IOError,
// nothing loaded), and every number of state.json within bounds (epoch <= 1e9; batch, step and
// counts <= 2^62; 1 <= processes <= 2^24). A checkpoint written before symx wrote SHA256SUMS loads
// unchecked, with a warning on stderr; the run's next checkpoint carries the sums.

// What state.json of a checkpoint holds.
struct CheckpointInfo {
  std::string path;        // the checkpoint's folder
  std::int64_t epoch = 0;  // completed epochs
  std::int64_t batch = 0;  // batches done in the next epoch (> 0 after an interrupt)
  std::int64_t step = 0;   // optimizer steps done
  std::uint64_t seed = 0;  // the run's seed (the iterator's)
  // The processes of the run that wrote it: a batch position counts global batches of
  // batch_size * processes examples.
  std::int64_t processes = 1;
  History history;  // the completed epochs
  std::map<std::string, std::string> config;
  // Running sums of the partial epoch (when batch > 0), so its metrics cover all of it on resume.
  double partial_loss_sum = 0, partial_correct = 0, partial_step_seconds = 0, partial_seconds = 0;
  std::int64_t partial_count = 0;
};

// Reads and validates the current checkpoint of `run_dir` (LATEST and state.json) without loading
// variables. Errors (IOError) name the file: no checkpoint in the folder, a malformed file.
// Example: read_checkpoint("run").epoch
CheckpointInfo read_checkpoint(const std::string& run_dir);
// Reads the current checkpoint of `run_dir` and loads its values into `variables` (default: every
// variable of the default graph) and the graph's random state. The file must hold each of them with
// its shape and dtype (IOError naming the file otherwise; no variable changes then).
// Example: load_checkpoint("run")  # after building the same model
CheckpointInfo load_checkpoint(const std::string& run_dir, const std::vector<Tensor>& variables = {});
// Writes a checkpoint of every variable of the default graph, the graph's random state and `info`
// (its epoch, batch, step, history, config, partial sums) into `run_dir` (created if needed), then
// removes the older ones. Returns the new checkpoint's folder.
// Example: save_checkpoint("run", info)
std::string save_checkpoint(const std::string& run_dir, const CheckpointInfo& info);

// Draws the training curves of `history` (loss and accuracy per epoch, training and validation)
// as a PNG at `path` (written with symx::write_file_atomically). Values too close together for
// ticks (a few ulps apart) get a widened axis; values beyond 1e300 are drawn as missing.
// Example: plot_history(history, "run/curves.png")
void plot_history(const History& history, const std::string& path, const std::string& title = "training curves");

// ---- the models of the `symx` tool ----
namespace models {

// A model of the tool: its network (built at the first application) and its recipe.
struct Model {
  std::string name;
  std::shared_ptr<nn::layers::Layer> network;
  std::shared_ptr<optim::Optimizer> optimizer;  // the recipe's optimizer, with its schedule
  std::int64_t batch_size = 32;                 // the recipe's batch size
};

// The names make_model knows ("mlp", "paper-cnn", "lstm", "gru").
// Example: model_names() is {"mlp", "paper-cnn", "lstm", "gru"}
std::vector<std::string> model_names();
// The model `name` for images of `image_shape` (C, H, W) and `classes` classes; `steps_per_epoch`
// places the learning-rate drops of schedules given in epochs; `sync_batch_norm` makes its batch
// norms synchronized over the processes of a distributed run (BatchNormOptions::sync). An unknown
// name is a ValueError that lists the known ones.
// Example: make_model("paper-cnn", {1, 28, 28}, 10, 219)
Model make_model(const std::string& name, const Shape& image_shape, std::int64_t classes = 10,
                 std::int64_t steps_per_epoch = 1, bool sync_batch_norm = false);
// The SymJAX paper's CIFAR-10 network: scale each image by its maximum -> RandomCrop(H, W, pad 4) ->
// Conv2D 32 3x3 -> BatchNorm -> ReLU -> MaxPool 2 -> Conv2D 64 3x3 -> BatchNorm -> ReLU -> MaxPool 2
// -> Flatten -> Dense 128 -> BatchNorm -> ReLU -> Dense classes. sync_batch_norm: BatchNormOptions::sync.
// Example: paper_cnn({3, 32, 32})
std::shared_ptr<nn::layers::Layer> paper_cnn(const Shape& image_shape, std::int64_t classes = 10,
                                             bool sync_batch_norm = false);
// A small perceptron: scale by maximum -> Flatten -> Dense 256 -> ReLU -> Dense classes.
// Example: mlp()
std::shared_ptr<nn::layers::Layer> mlp(std::int64_t classes = 10);
// A recurrent classifier of images read row by row (sequential MNIST): scale by maximum -> each image
// (C, H, W) as H steps of C * W pixels -> LSTM or GRU (`cell` "lstm" or "gru") of `hidden` units ->
// Dense classes on the last step's output.
// Example: sequence_classifier("lstm", {1, 28, 28})
std::shared_ptr<nn::layers::Layer> sequence_classifier(const std::string& cell, const Shape& image_shape,
                                                       std::int64_t classes = 10, std::int64_t hidden = 128);
// Each example divided by its own maximum over every non-batch axis (an all-zero example stays zero).
// Example: scale_by_max(x) of images in [0, 255] lies in [0, 1]
Tensor scale_by_max(const Tensor& x);

}  // namespace models

}  // namespace symx::train

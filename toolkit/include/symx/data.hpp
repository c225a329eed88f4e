// symx/data.hpp: data sets in memory, their readers, and the batch iterator (symx::data; Python
// symx.data).
//
// A data set is a pair of arrays sharing their first axis: examples `x` (images (N, C, H, W) as uint8
// straight from the files, or any array) and integer labels `y` (N,) int64. The readers check every
// header and size against the file's length and name the file, what they expected and what they
// found; a truncated or malformed file is an IOError, never a crash.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "symx/symx.hpp"

namespace symx::data {

// Examples and their labels: x (N, ...) and y (N,) int64 (y may be empty for unlabelled data).
// Example: Dataset d = load_mnist("data/mnist"); d.size() is 8000
// Python: d = sx.data.load_mnist("data/mnist"); len(d.x) is 8000
struct Dataset {
  Array x;
  Array y;
  // The number of examples (x's first axis).
  // Example: load_mnist("data/mnist").size() is 8000
  std::int64_t size() const;
};

// ---- readers ----

// Reads an IDX file (MNIST's format; gzip-compressed or raw, told apart by the gzip magic): the
// big-endian header's dtype (uint8, int8, int16, int32, float32, float64; int8 and int16 are widened
// to int32, which symx has) and shape (1 to 8 axes) give the array. The data size the header
// announces is checked against the file before the array is allocated; a short, long or corrupt file
// is an IOError naming the file, the size expected and the size found.
// Example: read_idx("data/mnist/train-labels-idx1-ubyte.gz") has shape (8000,) and dtype uint8
Array read_idx(const std::string& path);

// MNIST from `dir`: `split` "train" reads train-images-idx3-ubyte and train-labels-idx1-ubyte, "test"
// t10k-*; each with or without ".gz". x is uint8 (N, 1, 28, 28), y int64 (N,). Images and labels
// of different counts, or a label outside 0..9, are an IOError naming the files; a missing file
// names the folder and the files expected there.
// Example: load_mnist("data/mnist").x has shape (8000, 1, 28, 28)
Dataset load_mnist(const std::string& dir, const std::string& split = "train");

// Fashion-MNIST from `dir` (the same files and layout as MNIST).
// Example: load_fashion_mnist(dir, "test").size() is 10000
Dataset load_fashion_mnist(const std::string& dir, const std::string& split = "train");

// CIFAR-10 in its binary format from `dir` (or its subfolder cifar-10-batches-bin): "train" reads
// data_batch_1.bin .. data_batch_5.bin (those present, at least one), "test" test_batch.bin. Each
// record is 1 label byte and 3072 pixel bytes. x is uint8 (N, 3, 32, 32), y int64 (N,).
// Example: load_cifar10(dir).x has shape (50000, 3, 32, 32)
Dataset load_cifar10(const std::string& dir, const std::string& split = "train");

// CIFAR-100 in its binary format from `dir` (or cifar-100-binary): train.bin / test.bin, records of a
// coarse label byte, a fine label byte and 3072 pixel bytes; `labels` chooses "fine" (100 classes)
// or "coarse" (20).
// Example: load_cifar100(dir, "test", "coarse").size() is 10000
Dataset load_cifar100(const std::string& dir, const std::string& split = "train", const std::string& labels = "fine");

// A data set stored as .npz with arrays "x" and "y" (the names can be chosen; y_key "" reads no
// labels), or as a .npy of examples only (y empty). Labels must be integers (N,); they come back
// as int64.
// Example: load_arrays("digits.npz").x
Dataset load_arrays(const std::string& path, const std::string& x_key = "x", const std::string& y_key = "y");

// ---- splits and transforms ----

// A random permutation of 0 .. n-1 from `seed`: Fisher-Yates over splitmix64 with unbiased bounded
// draws, so the same seed gives the same order on every machine and standard library (unlike
// std::shuffle). train_test_split and BatchIterator shuffle with it.
// Example: permutation(5, 0) is a reordering of {0, 1, 2, 3, 4}, the same everywhere
std::vector<std::int64_t> permutation(std::int64_t n, std::uint64_t seed);

// The examples of `data` at `indices` (each in [0, size)), in that order, as new arrays.
// Example: take(load_mnist(dir), {0, 5}).size() is 2
Dataset take(const Dataset& data, const std::vector<std::int64_t>& indices);

// Splits `data` into (train, test) with `test_size` examples in test, chosen by a shuffle seeded
// with `seed` (the same seed gives the same split on every machine); with `stratify`, each label
// keeps its share in both parts (largest-remainder rounding). Both parts come in a shuffled order.
// In Python a float test_size in (0, 1) is a fraction of the examples, rounded up (as scikit-learn).
// Example: auto [train, val] = train_test_split(load_mnist(dir), 1000, 0)
// Python: train, val = sx.data.train_test_split(sx.data.load_mnist(dir), 1000, seed=0)
std::pair<Dataset, Dataset> train_test_split(const Dataset& data, std::int64_t test_size, std::uint64_t seed = 0,
                                             bool stratify = false);

// The mean and standard deviation of each channel (axis 1) of x, over every other axis, as float32
// arrays of shape (C,).
// Example: auto [mean, std] = channel_stats(train.x)
// Python: mean, std = sx.data.channel_stats(train.x)
std::pair<Array, Array> channel_stats(const Array& x);

// (x - mean[c]) / std[c] per channel c of axis 1, as float32 (std 0 is a ValueError).
// Example: standardize(val.x, mean, std)
Array standardize(const Array& x, const Array& mean, const Array& std);

// One-hot rows (N, classes) of `dtype` for integer labels (N,); a label outside [0, classes) is a
// ValueError naming it.
// Example: one_hot(y, 10) has shape (N, 10)
Array one_hot(const Array& labels, std::int64_t classes, DType dtype = DType::f32);

// ---- the batch iterator ----

// A per-batch transform: takes the batch's arrays (x, y, ...) and a seed that is fixed by the
// iterator's seed, the epoch and the batch's index (so a resumed run draws the same), and returns
// the transformed arrays. It runs on the background thread when prefetching.
using Transform = std::function<std::vector<Array>(std::vector<Array> batch, std::uint64_t seed)>;

// ---- built-in transforms ----
// C++ transforms for the common preprocessing: in Python they run on the background thread
// without the GIL, in parallel with the training step (a Python callable needs the GIL).

// Array `index` of the batch as float32, each example (row) divided by its own maximum (an example
// whose maximum is not positive becomes zeros): the SymJAX paper's preprocessing of images. Other arrays pass through.
// Example: BatchOptions{.transforms = {divide_by_max()}}  (Python: transforms=[sx.data.divide_by_max()])
Transform divide_by_max(std::size_t index = 0);

// Array `index` of the batch as float32 times `scale` (1/255 maps uint8 pixels to [0, 1]).
// Example: BatchOptions{.transforms = {to_float32(1.0 / 255)}}
// Python: sx.data.BatchIterator([x, y], transforms=[sx.data.to_float32(1.0 / 255)])
Transform to_float32(double scale = 1.0, std::size_t index = 0);

// Array `index` of the batch standardized per channel, as standardize(x, mean, std) does.
// Example: auto [mean, std] = channel_stats(train.x); BatchOptions{.transforms = {standardize_channels(mean, std)}}
// Python: mean, std = sx.data.channel_stats(train.x); transforms=[sx.data.standardize_channels(mean, std)]
Transform standardize_channels(Array mean, Array std, std::size_t index = 0);

// Options of BatchIterator.
struct BatchOptions {
  std::int64_t batch_size = 32;
  bool shuffle = true;  // a new order each epoch, from (seed, epoch)
  std::uint64_t seed = 0;
  bool drop_last = false;                  // drop the last, smaller batch (else keep it)
  std::int64_t prefetch = 2;               // batches prepared ahead on a background thread; 0: none, no thread
  std::vector<Transform> transforms = {};  // applied in order to each batch
  // Data-parallel sharding: this iterator yields the part of process `shard` of `shards`
  // (distributed::rank() and world_size()). Each global batch of batch_size * shards examples of the
  // epoch's order (the same on every process) is cut into `shards` parts of batch_size, so every
  // example is seen once per epoch and the processes' batches together are the batches one process
  // would take with batch_size * shards. The last, smaller global batch is cut into parts of equal
  // size within one example; with fewer examples than shards, a shard left empty repeats one.
  // batch_size * shards must be at most 2^63 - 1 (else a ValueError saying the largest batch_size).
  std::int64_t shard = 0, shards = 1;
};

// Where an iterator stands, for checkpoints: the epoch (0-based) and the batches already taken from
// it. The shuffle order and the transforms' seeds are functions of (seed, epoch, index), so a state
// is all it takes to continue exactly.
// After next() returns nullopt at an epoch's end the state is already {epoch + 1, 0}. restore()
// requires the same seed as the iterator's options (a ValueError otherwise).
struct IteratorState {
  std::uint64_t seed = 0;
  std::int64_t epoch = 0;
  std::int64_t batch = 0;
  bool operator==(const IteratorState&) const = default;
};

// Batches of arrays that share their first axis, epoch after epoch, with a background thread that
// prepares the next `prefetch` batches (gather, transforms) while the caller runs its step.
// Example:
//   BatchIterator batches({train.x, train.y}, {.batch_size = 32, .seed = 1});
//   while (auto batch = batches.next()) step((*batch)[0], (*batch)[1]);   // one epoch
// Python: for xb, yb in sx.data.BatchIterator([train.x, train.y], batch_size=32, seed=1): step(xb, yb)
class BatchIterator {
 public:
  BatchIterator(std::vector<Array> arrays, BatchOptions options = {});
  ~BatchIterator();  // stops and joins the background thread
  BatchIterator(const BatchIterator&) = delete;
  BatchIterator& operator=(const BatchIterator&) = delete;

  // The next batch of the current epoch (new arrays, the caller may keep them), or nullopt at its
  // end; the call after nullopt starts the next epoch. An exception of a transform is rethrown here,
  // on the caller's thread: a symx::Error keeps its type and gains the batch and epoch in its
  // message, any other exception is rethrown as it was; the failed batch is not consumed, so
  // the next call tries it again. (Python: a tuple of NumPy arrays, or None at the epoch's end.)
  // Example: while (auto batch = it.next()) step((*batch)[0], (*batch)[1]);
  // Python: while (batch := it.next()) is not None: step(*batch)
  std::optional<std::vector<Array>> next();
  // Batches in one epoch (ceil or floor of N / (batch_size * shards) by drop_last).
  // Example: BatchIterator({x, y}, {.batch_size = 32}).batches_per_epoch() is 219 for 7000 examples
  // Python: len(sx.data.BatchIterator([x, y], batch_size=32)) is 219 for 7000 examples
  std::int64_t batches_per_epoch() const;
  // The number of examples (N).
  // Example: BatchIterator({x, y}).size() == x.shape()[0]
  std::int64_t size() const;
  // Where the iterator stands, for a checkpoint: (seed, epoch, batches taken in the epoch).
  // Example: IteratorState saved = it.state();
  // Python: saved = it.state()
  IteratorState state() const;
  // Continues from a saved state, exactly as an uninterrupted iterator would (prefetched batches are
  // discarded). The state must come from an iterator with the same seed, data size and batch size.
  // Example: it.restore(saved);
  // Python: it.restore(saved)
  void restore(const IteratorState& state);
  // Seconds the caller waited in next() for a batch that was not ready (0 when prefetching keeps up);
  // with prefetch 0, the time next() spent preparing batches.
  // Example: std::printf("input pipeline stalls: %.2f s\n", it.wait_seconds());
  // Python: print("input pipeline stalls: %.2f s" % it.wait_seconds())
  double wait_seconds() const;
  // The options the iterator was made with.
  // Example: it.options().batch_size
  const BatchOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- Python-only bindings (documented here for the docstrings) ----

// Doc data::Transform:
// A per-batch transform written in C++ (divide_by_max, to_float32, standardize_channels): in a
// BatchIterator's transforms it runs on the background thread without the GIL. Calling it,
// transform(x, y, ..., seed=0), returns the transformed arrays as a tuple. Python callables
// (arrays..., seed) -> tuple of arrays are accepted in transforms too (run with the GIL).
// Example: sx.data.divide_by_max()(x, y)

// Doc data::BatchIterator::iter:
// One epoch: iterating yields the remaining batches of the current epoch as tuples of new NumPy
// arrays (one per array given), then stops; the next `for` runs the next epoch. After restore() the
// loop continues the restored epoch where it stood.
// Example: for xb, yb in it: step(xb, yb)

// Doc data::BatchIterator::len:
// Batches per epoch.
// Example: len(sx.data.BatchIterator([x, y], batch_size=32))

// Doc data::BatchIterator::init:
// BatchIterator(arrays, batch_size=32, shuffle=True, seed=0, drop_last=False, prefetch=2, transforms=[],
// shard=0, shards=1):
// `arrays` is a sequence of arrays sharing their first axis (or a Dataset: its x and y), kept without
// a copy; `transforms` holds sx.data transforms (C++, no GIL) and Python callables
// (arrays..., seed) -> tuple of arrays, applied in order to each batch on the background thread;
// shard and shards: this process's part of each global batch (BatchOptions::shard), e.g.
// shard=sx.distributed.rank(), shards=sx.distributed.world_size().
// Example: it = sx.data.BatchIterator([x, y], batch_size=32, seed=1, transforms=[sx.data.divide_by_max()])

// Doc data::Dataset::x:
// The examples, a NumPy array (N, ...) sharing the data set's storage.
// Example: sx.data.load_mnist("data/mnist").x.shape == (8000, 1, 28, 28)

// Doc data::Dataset::y:
// The labels, an int64 NumPy array (N,) (empty for unlabelled data).
// Example: sx.data.load_mnist("data/mnist").y[:3]

// Doc data::Dataset::init:
// Dataset(x, y=None): examples and labels from arrays (kept without a copy; y is converted to int64).
// Example: d = sx.data.Dataset(np.zeros((4, 2), np.float32), np.array([0, 1, 0, 1]))

// Doc data::IteratorState::init:
// IteratorState(seed=0, epoch=0, batch=0): a saved position of a BatchIterator (see state()).
// Example: it.restore(sx.data.IteratorState(seed=1, epoch=3, batch=0))

}  // namespace symx::data

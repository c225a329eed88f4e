// toolkit/src/data/iterator.cpp: BatchIterator. A background thread (when prefetch > 0) walks the
// same sequence of (epoch, batch) positions as the caller, one step ahead at most `prefetch`
// batches, and hands finished batches over through a queue under one mutex. Everything a batch
// depends on (the epoch's order, the transforms' seeds) is a function of (seed, epoch, batch), so the
// thread needs no state from the caller beyond where to start, and restore() is "stop, clear,
// start again from here".
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <limits>
#include <mutex>
#include <numeric>
#include <thread>

#include "data_internal.hpp"

namespace symx::data {

namespace {

using Clock = std::chrono::steady_clock;

// The order of one epoch, computed once per epoch by whoever needs it.
class EpochOrder {
 public:
  EpochOrder(std::int64_t n, bool shuffle, std::uint64_t seed) : n_(n), shuffle_(shuffle), seed_(seed) {}
  const std::vector<std::int64_t>& get(std::int64_t epoch) {
    if (epoch != epoch_) {
      if (shuffle_) {
        order_ =
            permutation(n_, detail::derive_seed(seed_, detail::Stream::epoch_order, static_cast<std::uint64_t>(epoch)));
      } else {
        order_.resize(static_cast<std::size_t>(n_));
        std::iota(order_.begin(), order_.end(), std::int64_t{0});
      }
      epoch_ = epoch;
    }
    return order_;
  }

 private:
  std::int64_t n_;
  bool shuffle_;
  std::uint64_t seed_;
  std::int64_t epoch_ = -1;
  std::vector<std::int64_t> order_;
};

// Inside a catch block: rethrows the exception being handled with `context` in front of its message
// when it is a symx::Error (keeping its type); anything else (a Python exception from a binding)
// propagates unchanged, so it keeps its own type and traceback.
[[noreturn]] void rethrow_with_context(const std::string& context) {
  try {
    throw;
  } catch (const ShapeError& e) {
    throw ShapeError(context + e.what());
  } catch (const DTypeError& e) {
    throw DTypeError(context + e.what());
  } catch (const ValueError& e) {
    throw ValueError(context + e.what());
  } catch (const IOError& e) {
    throw IOError(context + e.what());
  } catch (const Error& e) {
    throw Error(context + e.what());
  }
}

}  // namespace

struct BatchIterator::Impl {
  std::vector<Array> arrays;
  BatchOptions options;
  std::int64_t n = 0, batches = 0;

  // The caller's side: touched only by the caller's thread.
  std::int64_t epoch = 0, batch = 0;
  double waited = 0;
  EpochOrder caller_order;  // for prefetch 0

  // Shared with the thread, under `mutex`.
  struct Item {
    std::int64_t epoch = 0, batch = 0;
    std::vector<Array> arrays;
    std::exception_ptr error;
  };
  std::mutex mutex;
  std::condition_variable ready, space;
  std::deque<Item> queue;
  bool stop = false;
  std::thread worker;  // started by the first next() after construction or restore()

  Impl(std::vector<Array> a, BatchOptions o) : arrays(std::move(a)), options(std::move(o)), caller_order(0, false, 0) {}

  std::vector<Array> make_batch(std::int64_t e, std::int64_t b, const std::vector<std::int64_t>& order) const;
  void produce(std::int64_t e, std::int64_t b);
  void start();
  void halt();
};

std::vector<Array> BatchIterator::Impl::make_batch(std::int64_t e, std::int64_t b,
                                                   const std::vector<std::int64_t>& order) const {
  // Global batch b holds examples [b * B * S, ...) of the epoch's order; shard k takes its part.
  const std::int64_t shards = options.shards, global = options.batch_size * shards;
  const std::int64_t first = b * global, in_batch = std::min(global, n - first);
  std::int64_t begin = first + options.shard * options.batch_size, count = options.batch_size;
  if (in_batch < global) {  // the last, smaller batch: parts of equal size within one example
    // In 128 bits: shard * in_batch can pass 2^63 when both are large.
    __extension__ using Wide = __int128;
    begin = first + static_cast<std::int64_t>(Wide{options.shard} * in_batch / shards);
    count = first + static_cast<std::int64_t>(Wide{options.shard + 1} * in_batch / shards) - begin;
    if (count == 0) {  // fewer examples than shards: this shard repeats one, so that no batch is empty
      begin = first + options.shard % in_batch;
      count = 1;
    }
  }
  std::vector<Array> out;
  out.reserve(arrays.size());
  for (const Array& a : arrays) out.push_back(detail::gather_rows(a, order.data() + begin, count));
  const std::uint64_t seed = detail::derive_seed(options.seed, detail::Stream::transform, static_cast<std::uint64_t>(e),
                                                 static_cast<std::uint64_t>(b));
  for (std::size_t t = 0; t < options.transforms.size(); ++t) {
    try {
      out = options.transforms[t](std::move(out), seed);
    } catch (...) {
      rethrow_with_context("BatchIterator: transform " + std::to_string(t) + " (of " +
                           std::to_string(options.transforms.size()) + ") failed on batch " + std::to_string(b) +
                           " of epoch " + std::to_string(e) + " (" + std::to_string(count) + " examples): ");
    }
  }
  return out;
}

void BatchIterator::Impl::produce(std::int64_t e, std::int64_t b) {
  EpochOrder order(n, options.shuffle, options.seed);
  for (;;) {
    if (b >= batches) {
      ++e;
      b = 0;
    }
    {
      std::lock_guard lock(mutex);
      if (stop) return;
    }
    Item item{e, b, {}, nullptr};
    try {
      item.arrays = make_batch(e, b, order.get(e));
    } catch (...) {
      item.error = std::current_exception();
    }
    const bool failed = item.error != nullptr;
    {
      std::unique_lock lock(mutex);
      space.wait(lock, [&] { return stop || static_cast<std::int64_t>(queue.size()) < options.prefetch; });
      if (stop) return;
      queue.push_back(std::move(item));
    }
    ready.notify_one();
    if (failed) return;  // the caller rethrows it and starts again from that batch
    ++b;
  }
}

void BatchIterator::Impl::start() {
  if (worker.joinable() || options.prefetch == 0 || batches == 0) return;
  stop = false;  // no thread runs: nothing else touches it
  worker = std::thread([this, e = epoch, b = batch] { produce(e, b); });
}

void BatchIterator::Impl::halt() {
  if (!worker.joinable()) return;
  {
    std::lock_guard lock(mutex);
    stop = true;
  }
  space.notify_all();
  worker.join();
  queue.clear();
}

BatchIterator::BatchIterator(std::vector<Array> arrays, BatchOptions options) {
  if (arrays.empty()) throw ValueError("BatchIterator: no arrays given. Pass at least one, e.g. {x, y}.");
  if (options.batch_size <= 0)
    throw ValueError("BatchIterator: batch_size is " + std::to_string(options.batch_size) + "; it must be positive.");
  if (options.prefetch < 0)
    throw ValueError("BatchIterator: prefetch is " + std::to_string(options.prefetch) +
                     "; it must be >= 0 (0: no background thread).");
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    if (arrays[i].ndim() == 0)
      throw ShapeError("BatchIterator: array " + std::to_string(i) +
                       " is a scalar; every array needs a first axis of examples.");
    if (arrays[i].shape()[0] != arrays[0].shape()[0])
      throw ShapeError("BatchIterator: array " + std::to_string(i) + " has shape " + shape_string(arrays[i].shape()) +
                       " but array 0 has shape " + shape_string(arrays[0].shape()) +
                       "; all arrays must have the same first axis (the examples).");
  }
  if (options.shards < 1 || options.shard < 0 || options.shard >= options.shards)
    throw ValueError("BatchIterator: shard " + std::to_string(options.shard) + " of " + std::to_string(options.shards) +
                     " shards; expected shards >= 1 and 0 <= shard < shards (distributed::rank() and world_size()).");
  // The global batch batch_size * shards must be a number: 2^62 * 4 wrapped to 0 and divided by it.
  std::int64_t global = 0;
  if (__builtin_mul_overflow(options.batch_size, options.shards, &global))
    throw ValueError("BatchIterator: batch_size " + std::to_string(options.batch_size) + " times shards " +
                     std::to_string(options.shards) +
                     " is more than 2^63 - 1 examples per global batch. Pass a batch_size below " +
                     std::to_string(std::numeric_limits<std::int64_t>::max() / options.shards) + ".");
  impl_ = std::make_unique<Impl>(std::move(arrays), std::move(options));
  impl_->n = impl_->arrays[0].shape()[0];
  const std::int64_t n = impl_->n;
  impl_->batches = n / global + (!impl_->options.drop_last && n % global != 0 ? 1 : 0);
  impl_->caller_order = EpochOrder(impl_->n, impl_->options.shuffle, impl_->options.seed);
}

BatchIterator::~BatchIterator() {
  if (impl_) impl_->halt();
}

std::optional<std::vector<Array>> BatchIterator::next() {
  Impl& s = *impl_;
  if (s.batch >= s.batches) {
    ++s.epoch;
    s.batch = 0;
    return std::nullopt;
  }
  if (s.options.prefetch == 0) {
    const auto begin = Clock::now();
    std::vector<Array> out = s.make_batch(s.epoch, s.batch, s.caller_order.get(s.epoch));
    s.waited += std::chrono::duration<double>(Clock::now() - begin).count();
    ++s.batch;
    return out;
  }
  s.start();
  Impl::Item item;
  {
    std::unique_lock lock(s.mutex);
    if (s.queue.empty()) {
      const auto begin = Clock::now();
      s.ready.wait(lock, [&] { return !s.queue.empty(); });
      s.waited += std::chrono::duration<double>(Clock::now() - begin).count();
    }
    item = std::move(s.queue.front());
    s.queue.pop_front();
  }
  s.space.notify_one();
  check_internal(item.epoch == s.epoch && item.batch == s.batch, "BatchIterator: the thread is out of step");
  if (item.error) {
    s.halt();  // the thread has stopped after the failure; start it again from this batch next time
    std::rethrow_exception(item.error);
  }
  ++s.batch;
  return std::move(item.arrays);
}

std::int64_t BatchIterator::batches_per_epoch() const { return impl_->batches; }
std::int64_t BatchIterator::size() const { return impl_->n; }
double BatchIterator::wait_seconds() const { return impl_->waited; }
const BatchOptions& BatchIterator::options() const { return impl_->options; }

IteratorState BatchIterator::state() const { return {impl_->options.seed, impl_->epoch, impl_->batch}; }

void BatchIterator::restore(const IteratorState& state) {
  Impl& s = *impl_;
  if (state.seed != s.options.seed)
    throw ValueError("BatchIterator::restore: the state was saved with seed " + std::to_string(state.seed) +
                     " but this iterator has seed " + std::to_string(s.options.seed) +
                     "; its order would differ. Make the iterator with the saved seed.");
  if (state.epoch < 0 || state.batch < 0 || state.batch > s.batches)
    throw ValueError("BatchIterator::restore: the state (epoch " + std::to_string(state.epoch) + ", batch " +
                     std::to_string(state.batch) + ") is outside this iterator's epochs of " +
                     std::to_string(s.batches) + " batches. Was it saved with another batch size or data set?");
  s.halt();
  s.epoch = state.epoch;
  s.batch = state.batch;
}

}  // namespace symx::data

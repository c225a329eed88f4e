// toolkit/src/distributed/gradients.cpp: gradients averaged over processes inside a compiled
// training step. The gradients are cut into buckets (from the last to the first, the order in
// which a backward pass computes them); each bucket is two host calls:
//   start (early): copies the bucket's gradients into one flat array and hands it to the gradient
//     thread, which all-reduces it on its own communicator; returns a token at once;
//   wait: blocks until the thread is done and returns the reduced array;
// and each averaged gradient is a slice of the wait's result. The compiled program runs an early
// call as soon as its inputs are computed (codegen/fusion.cpp), so a bucket's all-reduce proceeds
// while the rest of the backward pass runs, and the waits come where the optimizer reads them.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "distributed_internal.hpp"

namespace symx::distributed {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Set when a bucket's all-reduce outlived the timeout: the thread is then stuck inside MPI, and
// exit neither joins it nor finalizes MPI.
std::atomic<bool> g_stuck{false};

// One bucket's state, shared by its start and wait calls (a training step is called by one thread
// at a time, so one all-reduce per bucket is in flight).
struct Bucket {
  std::string what;  // "gradient bucket 2 (3 gradients, 1.2 MiB of float32)"
  bool average = true;
  std::mutex mutex;
  std::condition_variable finished;
  bool in_flight = false;
  Array data;  // the flat gradients, reduced in place by the thread
  std::exception_ptr error;
};

struct Stats {
  std::mutex mutex;
  GradientStats totals;
};
Stats& stats() {
  static Stats s;
  return s;
}

// The background thread that runs the buckets' all-reduces in the order they were started (the
// same order on every process, since every process runs the same program).
class GradientThread {
 public:
  void submit(std::shared_ptr<Bucket> bucket) {
    std::lock_guard lock(mutex_);
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    queue_.push_back(std::move(bucket));
    wake_.notify_one();
  }
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      wake_.notify_one();
    }
    if (!thread_.joinable()) return;
    if (g_stuck) thread_.detach();  // inside an all-reduce that will not end
    else thread_.join();
  }

 private:
  void run() {
    for (;;) {
      std::shared_ptr<Bucket> bucket;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;
        bucket = std::move(queue_.front());
        queue_.pop_front();
      }
      const auto start = Clock::now();
      std::exception_ptr error;
      try {
        detail::all_reduce_blocking(bucket->data, bucket->average ? Reduction::mean : Reduction::sum,
                                    detail::gradients_comm(), bucket->what);
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::lock_guard lock(stats().mutex);
        stats().totals.buckets += 1;
        stats().totals.bytes += static_cast<std::int64_t>(bucket->data.nbytes());
        stats().totals.comm_seconds += seconds_since(start);
      }
      std::lock_guard lock(bucket->mutex);
      bucket->error = error;
      bucket->in_flight = false;
      bucket->finished.notify_all();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Bucket>> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

std::atomic<bool> g_thread_made{false};

// Made on first use and never destroyed: MPI's finalization at exit (distributed.cpp) stops it,
// whatever the order in which static objects are destroyed.
GradientThread& gradient_thread() {
  static GradientThread* thread = new GradientThread;
  g_thread_made = true;
  return *thread;
}

// Waits for `bucket`'s all-reduce, at most the collective timeout (then DistributedError).
void wait_done(Bucket& bucket, std::unique_lock<std::mutex>& lock) {
  const auto begin = Clock::now();
  const auto limit = std::chrono::duration<double>(timeout_seconds());
  if (!bucket.finished.wait_for(lock, limit, [&] { return !bucket.in_flight; })) {
    g_stuck = true;
    detail::mark_broken(bucket.what, {bucket.data});
    throw DistributedError(detail::timeout_message(bucket.what, seconds_since(begin)) +
                           " Every later collective of this process fails.");
  }
}

std::string mib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

// The averaged gradients of grads[members] (one dtype, in the bucket's order), through one bucket.
void reduce_bucket(const std::vector<Tensor>& grads, const std::vector<std::size_t>& members,
                   const GradientOptions& options, int index, std::vector<Tensor>& out, Loc loc) {
  const DType dtype = grads[members[0]].dtype();
  std::int64_t total = 0;
  for (std::size_t m : members) total += grads[m].size();
  auto bucket = std::make_shared<Bucket>();
  bucket->average = options.average;
  bucket->what = "gradient bucket " + std::to_string(index) + " (" + std::to_string(members.size()) + " gradients, " +
                 mib(static_cast<std::size_t>(total) * itemsize(dtype)) + " of " + std::string(dtype_name(dtype)) + ")";

  HostCallSpec start;
  start.name = "all_reduce_start";
  start.early = options.overlap;
  start.infer = [](const std::vector<TensorType>&) { return TensorType{{}, DType::i32}; };
  start.compute = [bucket, total, dtype](const std::vector<Array>& in) {
    std::unique_lock lock(bucket->mutex);
    wait_done(*bucket, lock);  // a step that failed between start and wait left one in flight
    // The last step's array again when the program no longer holds it: a fresh one each step
    // would be new pages to fault in, on both sides of the all-reduce.
    if (!(bucket->data.size() == total && bucket->data.is_unique())) bucket->data = Array::empty({total}, dtype);
    auto* dst = static_cast<char*>(bucket->data.raw_data());
    for (const Array& a : in) {
      std::memcpy(dst, a.raw_data(), a.nbytes());
      dst += a.nbytes();
    }
    bucket->error = nullptr;
    bucket->in_flight = true;
    lock.unlock();
    gradient_thread().submit(bucket);
    return Array::scalar<std::int32_t>(0);
  };
  std::vector<Tensor> inputs;
  for (std::size_t m : members) inputs.push_back(grads[m]);
  Tensor token = host_call(std::move(start), inputs, loc);

  HostCallSpec wait;
  wait.name = "all_reduce_wait";
  wait.infer = [total, dtype](const std::vector<TensorType>&) { return TensorType{{total}, dtype}; };
  wait.compute = [bucket](const std::vector<Array>&) {
    const auto begin = Clock::now();
    std::unique_lock lock(bucket->mutex);
    wait_done(*bucket, lock);
    {
      std::lock_guard s(stats().mutex);
      stats().totals.wait_seconds += seconds_since(begin);
    }
    if (bucket->error) std::rethrow_exception(bucket->error);
    return bucket->data;
  };
  Tensor reduced = host_call(std::move(wait), {token}, loc);

  std::int64_t offset = 0;
  for (std::size_t m : members) {
    const Tensor& g = grads[m];
    Tensor part = slice(reduced, {Index::range(offset, offset + g.size())}, loc);
    out[m] = reshape(part, g.shape(), loc);
    offset += g.size();
  }
}

}  // namespace

namespace detail {
void stop_gradient_thread() {
  if (g_thread_made) gradient_thread().stop();  // not made at exit if it never ran
}
bool gradient_thread_stuck() { return g_stuck; }
}  // namespace detail

std::vector<Tensor> average_gradients(const std::vector<Tensor>& grads, GradientOptions options, Loc loc) {
  if (!(options.bucket_mb > 0))
    throw ValueError("distributed::average_gradients: bucket_mb is " + std::to_string(options.bucket_mb) +
                     "; it must be a positive size in MiB (PyTorch's default is 25).");
  for (std::size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined())
      throw ValueError("distributed::average_gradients: gradient " + std::to_string(i) +
                       " is undefined. Pass one gradient tensor per parameter (grad(loss, params)).");
    if (has_symbols(grads[i].shape()))
      throw ShapeError("distributed::average_gradients: gradient " + std::to_string(i) + " (" + grads[i].label() +
                       ") has shape " + shape_string(grads[i].shape()) +
                       " with sizes unknown until a call; the gradients of parameters have fixed shapes.");
  }
  init();
  if (world_size() == 1) return grads;
  const auto cap = static_cast<std::size_t>(options.bucket_mb * (1 << 20));
  std::vector<Tensor> out(grads.size());
  std::vector<std::size_t> members;
  std::size_t bytes = 0;
  int index = 0;
  for (std::size_t k = grads.size(); k-- > 0;) {
    const std::size_t size = static_cast<std::size_t>(grads[k].size()) * itemsize(grads[k].dtype());
    bool fits = members.empty() || (grads[members[0]].dtype() == grads[k].dtype() && bytes + size <= cap);
    if (!fits) {
      reduce_bucket(grads, members, options, index++, out, loc);
      members.clear();
      bytes = 0;
    }
    members.push_back(k);
    bytes += size;
  }
  if (!members.empty()) reduce_bucket(grads, members, options, index, out, loc);
  return out;
}

GradientStats gradient_stats() {
  std::lock_guard lock(stats().mutex);
  return stats().totals;
}

void reset_gradient_stats() {
  std::lock_guard lock(stats().mutex);
  stats().totals = {};
}

}  // namespace symx::distributed

// toolkit/src/distributed/distributed.cpp: the world (MPI under mpirun, one process without it),
// the collectives on arrays, and the collectives on tensors as host_call nodes.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <limits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "distributed_internal.hpp"

namespace symx::distributed {

namespace {

struct World {
  std::once_flag once;
  bool initialized = false;
  bool mpi = false;  // under a launcher: MPI is in use (and finalized at exit)
  int rank = 0, size = 1, local_rank = 0, local_size = 1;
  MPI_Comm collectives = MPI_COMM_NULL, gradients = MPI_COMM_NULL;
  double timeout = 300;
  // Set when a collective timed out: MPI may still run it (on buffers since freed) and every later
  // collective would be matched against it, so the world takes no more collectives.
  std::atomic<bool> broken{false};
  std::mutex broken_mutex;
  std::string broken_what;  // the collective that timed out first
};

World& world() {
  static World w;
  return w;
}

// Whether a launcher (mpirun, srun with PMI) started this process: then MPI_Init joins its job.
bool launched() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(name)) return true;
  return false;
}

void finalize_at_exit() {
  World& w = world();
  if (!w.mpi) return;
  detail::stop_gradient_thread();
  if (w.broken || detail::gradient_thread_stuck()) {
    // MPI_Finalize would wait for the collective that timed out (measured: more than 90 s), so the
    // process ends without it, with an error, and mpirun ends the job.
    std::fflush(nullptr);
    std::fprintf(stderr,
                 "symx.distributed (rank %d): a collective timed out earlier, so MPI cannot be finalized (it would "
                 "wait for that collective); ending this process with status 1.\n",
                 w.rank);
    std::fflush(stderr);
    std::_Exit(1);
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  MPI_Comm_free(&w.collectives);
  MPI_Comm_free(&w.gradients);
  MPI_Finalize();
}

std::string prefix() { return "symx.distributed (rank " + std::to_string(world().rank) + "): "; }

std::string describe(const Array& x) {
  return std::to_string(x.size()) + " " + std::string(dtype_name(x.dtype())) + " values " + shape_string(x.shape());
}

// Gathers `count` int64 values of every process (bounded by the timeout).
std::vector<std::int64_t> gather_values(const std::int64_t* values, int count, const std::string& what) {
  World& w = world();
  MPI_Request request;
  detail::check_usable(what);
  // Kept alive in arrays: after a timeout MPI may still write into them.
  Array in = Array::from_buffer(values, {count}, DType::i64);
  Array out = Array::empty({static_cast<std::int64_t>(w.size) * count}, DType::i64);
  detail::check(MPI_Iallgather(in.raw_data(), count, MPI_INT64_T, out.raw_data(), count, MPI_INT64_T, w.collectives,
                               &request),
                what);
  detail::wait_for(request, what, {in, out});
  const auto* p = out.data<std::int64_t>();
  return std::vector<std::int64_t>(p, p + out.size());
}

[[noreturn]] void throw_mismatch(const Array& x, int other_rank, DType other_dtype, const std::string& other_shape,
                                 const std::string& what) {
  throw DistributedError(prefix() + what + ": this process passed " + std::string(dtype_name(x.dtype())) + " " +
                         shape_string(x.shape()) + " but rank " + std::to_string(other_rank) + " passed " +
                         std::string(dtype_name(other_dtype)) + " " + other_shape +
                         ". Every process must pass an array of the same shape and dtype.");
}

// Every process's (dtype, shape) must be the same: gathered and compared, so that a mismatch is an
// error naming both shapes instead of a hang or garbage. Two rounds: the dtype and the number of
// axes, then, where every process has as many axes, every axis (however many), so that no axis goes
// uncompared. Every process sees every header, so all take the same rounds and fail together.
void check_same_everywhere(const Array& x, const std::string& what) {
  World& w = world();
  const std::int64_t head[2] = {static_cast<std::int64_t>(x.dtype()), x.ndim()};
  const std::vector<std::int64_t> heads = gather_values(head, 2, what);
  bool same_ndim = true;
  for (int r = 0; r < w.size; ++r) same_ndim = same_ndim && heads[2 * static_cast<std::size_t>(r) + 1] == x.ndim();
  std::vector<std::int64_t> shapes;
  if (same_ndim && x.ndim() > 0) shapes = gather_values(x.shape().data(), x.ndim(), what);
  for (int r = 0; r < w.size; ++r) {
    const auto dtype = heads[2 * static_cast<std::size_t>(r)];
    const auto ndim = heads[2 * static_cast<std::size_t>(r) + 1];
    const std::int64_t* shape = shapes.empty() ? nullptr : shapes.data() + static_cast<std::ptrdiff_t>(r) * x.ndim();
    const bool same_shape = same_ndim && std::equal(x.shape().begin(), x.shape().end(), shape);
    if (dtype == head[0] && same_shape) continue;
    throw_mismatch(x, r, static_cast<DType>(dtype),
                   same_ndim ? shape_string(Shape(shape, shape + ndim)) : "with " + std::to_string(ndim) + " axes",
                   what);
  }
}

}  // namespace

// ---- the world ----

namespace {

// The collective timeout: `requested` (0: SYMX_DIST_TIMEOUT, else 300), a finite positive number of
// seconds. NaN would disable every timeout (no wait is ever longer than NaN), so it is refused.
double checked_timeout(double requested) {
  if (requested != 0) {
    if (!(requested > 0) || !std::isfinite(requested))
      throw ValueError("distributed::init: timeout " + std::to_string(requested) +
                       " is not a positive, finite number of seconds. Pass e.g. 60, or nothing for "
                       "SYMX_DIST_TIMEOUT (default 300).");
    return requested;
  }
  const char* env = std::getenv("SYMX_DIST_TIMEOUT");
  if (!env || !*env) return 300;
  char* end = nullptr;
  const double value = std::strtod(env, &end);
  if (*end != '\0' || !(value > 0) || !std::isfinite(value))
    throw ValueError(std::string("SYMX_DIST_TIMEOUT is '") + env +
                     "'; expected a positive, finite number of seconds (default 300).");
  return value;
}

// Runs `start` (MPI's start-up) under a watchdog: MPI_Init and the first communicator calls wait
// without limit for every process of the job, forever when one exited before calling init. Nothing
// inside MPI_Init can be cancelled, so after `timeout` seconds the watchdog says why and ends the
// process; mpirun then ends the job.
void with_watchdog(double timeout, const std::function<void()>& start) {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::thread dog([&] {
    std::unique_lock lock(mutex);
    if (finished.wait_for(lock, std::chrono::duration<double>(timeout), [&] { return done; })) return;
    std::fflush(nullptr);
    std::fprintf(stderr,
                 "symx.distributed: init waited %.0f s for the other processes of the job: one may have exited or "
                 "failed before calling init. Ending this process (status 1). The limit is the timeout "
                 "(init(timeout=...), SYMX_DIST_TIMEOUT, default 300 s).\n",
                 timeout);
    std::fflush(stderr);
    std::_Exit(1);
  });
  auto stop = [&] {
    {
      std::lock_guard lock(mutex);
      done = true;
    }
    finished.notify_one();
    dog.join();
  };
  try {
    start();
  } catch (...) {
    stop();
    throw;
  }
  stop();
}

void start_mpi(World& w) {
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
      std::fprintf(stderr,
                   "symx.distributed: this MPI library does not support MPI_THREAD_MULTIPLE (it gave level %d); "
                   "gradients are averaged on a background thread, which needs it. Use Open MPI 4 or newer.\n",
                   provided);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size);
  MPI_Comm_dup(MPI_COMM_WORLD, &w.collectives);
  MPI_Comm_dup(MPI_COMM_WORLD, &w.gradients);
  MPI_Comm_set_errhandler(w.collectives, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(w.gradients, MPI_ERRORS_RETURN);
  // The processes sharing this machine's memory: this one's rank among them, and their number.
  MPI_Comm machine;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w.rank, MPI_INFO_NULL, &machine);
  MPI_Comm_rank(machine, &w.local_rank);
  MPI_Comm_size(machine, &w.local_size);
  MPI_Comm_free(&machine);
}

}  // namespace

void init(InitOptions options) {
  World& w = world();
  // An invalid timeout is refused even when the world is made already (later calls change nothing).
  if (options.timeout_seconds != 0) checked_timeout(options.timeout_seconds);
  std::call_once(w.once, [&] {
    w.timeout = checked_timeout(options.timeout_seconds);
    if (launched()) {
      with_watchdog(w.timeout, [&] { start_mpi(w); });
      w.mpi = true;
      std::atexit(finalize_at_exit);
    }
    w.initialized = true;
  });
}

namespace {
// The world, initialized on first use.
const World& ready() {
  init();
  return world();
}
}  // namespace

bool initialized() { return world().initialized; }
int rank() { return ready().rank; }
int world_size() { return ready().size; }
int local_rank() { return ready().local_rank; }
int local_size() { return ready().local_size; }
double timeout_seconds() { return ready().timeout; }

void barrier() {
  init();
  if (world().size == 1) return;
  detail::check_usable("barrier");
  MPI_Request request;
  detail::check(MPI_Ibarrier(world().collectives, &request), "barrier");
  detail::wait_for(request, "barrier", {});
}

void abort(const std::string& message, int code) {
  std::fprintf(stderr, "%s%s\n", prefix().c_str(), message.c_str());
  std::fflush(stderr);
  if (world().mpi) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

const char* reduction_name(Reduction op) {
  switch (op) {
    case Reduction::sum: return "sum";
    case Reduction::mean: return "mean";
    case Reduction::max: return "max";
  }
  return "?";
}

// ---- MPI helpers ----

namespace detail {

MPI_Comm gradients_comm() { return world().gradients; }

MPI_Datatype mpi_type(DType dtype) {
  switch (dtype) {
    case DType::b8:
    case DType::u8: return MPI_UINT8_T;
    case DType::i32: return MPI_INT32_T;
    case DType::i64: return MPI_INT64_T;
    case DType::f32: return MPI_FLOAT;
    case DType::f64: return MPI_DOUBLE;
    case DType::c64: return MPI_C_FLOAT_COMPLEX;
    case DType::c128: return MPI_C_DOUBLE_COMPLEX;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op mpi_op(Reduction op) { return op == Reduction::max ? MPI_MAX : MPI_SUM; }

void check(int code, const std::string& what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw DistributedError(prefix() + what + " failed in MPI: " + std::string(text, static_cast<std::size_t>(length)) +
                         ". Another process may have died; see mpirun's messages.");
}

void check_usable(const std::string& what) {
  World& w = world();
  if (!w.broken) return;
  std::lock_guard lock(w.broken_mutex);
  throw DistributedError(prefix() + what + ": not started, because an earlier collective timed out: " + w.broken_what +
                         ". MPI may still be running that one, so this process can make no more collectives: end "
                         "the job and start it again (from its last checkpoint).");
}

void mark_broken(const std::string& what, const std::vector<Array>& buffers) {
  World& w = world();
  // The timed-out collective may still write into or read from these: they are never freed.
  static auto* kept = new std::vector<Array>;
  std::lock_guard lock(w.broken_mutex);
  kept->insert(kept->end(), buffers.begin(), buffers.end());
  if (!w.broken) w.broken_what = what;
  w.broken = true;
}

void wait_for(MPI_Request& request, const std::string& what, const std::vector<Array>& buffers) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const double timeout = world().timeout;
  auto pause = std::chrono::microseconds(20);
  for (;;) {
    int done = 0;
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done) return;
    double waited = std::chrono::duration<double>(Clock::now() - start).count();
    if (waited > timeout) {
      mark_broken(what, buffers);
      throw DistributedError(timeout_message(what, waited) + " Every later collective of this process fails.");
    }
    // A nonblocking collective progresses only inside MPI calls, one round per call: poll without
    // sleeping for the first 20 ms (as MPI's blocking calls spin), then every 20 us to 1 ms, leaving
    // the core to the other threads.
    if (waited < 0.02) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(pause);
      pause = std::min(std::chrono::microseconds(1000), pause + std::chrono::microseconds(20));
    }
  }
}

std::string timeout_message(const std::string& what, double waited) {
  return prefix() + what + ": waited " + std::to_string(static_cast<int>(waited)) + " s for the other " +
         std::to_string(world().size - 1) +
         " process(es). One may have died or stopped, or be in a different collective (every process must make "
         "the same collective calls in the same order). The limit is SYMX_DIST_TIMEOUT (seconds, default 300).";
}

void check_reduction(const Array& x, Reduction op, const std::string& what) {
  check_usable(what);
  if (op == Reduction::mean && !is_floating(x.dtype()))
    throw ValueError(prefix() + what + ": mean of " + describe(x) +
                     "; mean needs a float dtype. Use sum and divide, or cast to float32.");
  if (x.dtype() == DType::b8 && op != Reduction::max)
    throw ValueError(prefix() + what + ": " + std::string(reduction_name(op)) +
                     " of bool values; only max (logical or) "
                     "is defined for bool. Cast to an integer dtype to count.");
  if (x.size() > std::numeric_limits<int>::max())
    throw ValueError(prefix() + what + ": " + describe(x) +
                     " is more than MPI's 2^31 - 1 elements per call. "
                     "Reduce it in parts.");
}

// The sum divided by the number of processes.
void divide_by_world(Array& x, Reduction op) {
  const int n = world().size;
  if (op == Reduction::mean) {
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (std::is_floating_point_v<T>) {
        T* p = x.data<T>();
        for (std::int64_t i = 0; i < x.size(); ++i) p[i] /= static_cast<T>(n);
      }
    });
  }
}

void all_reduce_in_place(Array& x, Reduction op, MPI_Comm comm, const std::string& what) {
  check_reduction(x, op, what);
  if (world().size == 1 || x.size() == 0) return;
  MPI_Request request;
  check(MPI_Iallreduce(MPI_IN_PLACE, x.raw_data(), static_cast<int>(x.size()), mpi_type(x.dtype()), mpi_op(op), comm,
                       &request),
        what);
  wait_for(request, what, {x});
  divide_by_world(x, op);
}

void all_reduce_blocking(Array& x, Reduction op, MPI_Comm comm, const std::string& what) {
  check_reduction(x, op, what);
  if (world().size == 1 || x.size() == 0) return;
  check(MPI_Allreduce(MPI_IN_PLACE, x.raw_data(), static_cast<int>(x.size()), mpi_type(x.dtype()), mpi_op(op), comm),
        what);
  divide_by_world(x, op);
}

}  // namespace detail

// ---- collectives on arrays ----

Array all_reduce(const Array& x, Reduction op) {
  init();
  const std::string what = std::string("all_reduce(") + reduction_name(op) + ") of " + describe(x);
  Array out = x.copy();
  if (world().size > 1) check_same_everywhere(x, what);
  detail::all_reduce_in_place(out, op, world().collectives, what);
  return out;
}

namespace {

void check_root(int root, const char* who) {
  if (root < 0 || root >= world().size)
    throw ValueError(prefix() + who + ": root " + std::to_string(root) + " is not a rank; expected 0 to " +
                     std::to_string(world().size - 1) + ".");
}

// Rank `root`'s `x`, after comparing every process's shape and dtype (a tensor's with an unknown
// size, e.g. the batch, can differ too).
Array broadcast_now(const Array& x, int root) {
  World& w = world();
  Array out = x.copy();
  if (w.size == 1) return out;
  const std::string what = "broadcast from rank " + std::to_string(root) + " of " + describe(x);
  detail::check_usable(what);
  check_same_everywhere(x, what);
  if (x.size() == 0) return out;
  MPI_Request request;
  detail::check(MPI_Ibcast(out.raw_data(), static_cast<int>(out.size()), detail::mpi_type(out.dtype()), root,
                           w.collectives, &request),
                what);
  detail::wait_for(request, what, {out});
  return out;
}

// The processes' `x` along axis 0 (a scalar counts as shape (1,)).
Array gather_now(const Array& x) {
  World& w = world();
  Shape shape = x.shape().empty() ? Shape{1} : x.shape();
  shape[0] *= w.size;
  Array out = Array::empty(shape, x.dtype());
  if (w.size == 1) {
    if (x.size()) std::memcpy(out.raw_data(), x.raw_data(), x.nbytes());
    return out;
  }
  const std::string what = "all_gather of " + describe(x);
  detail::check_usable(what);
  check_same_everywhere(x, what);
  MPI_Request request;
  detail::check(MPI_Iallgather(x.raw_data(), static_cast<int>(x.size()), detail::mpi_type(x.dtype()), out.raw_data(),
                               static_cast<int>(x.size()), detail::mpi_type(x.dtype()), w.collectives, &request),
                what);
  detail::wait_for(request, what, {x, out});
  return out;
}

}  // namespace

Array broadcast(const Array& x, int root) {
  init();
  check_root(root, "broadcast");
  return broadcast_now(x, root);
}

Array all_gather(const Array& x) {
  init();
  return gather_now(x);
}

// ---- collectives on tensors ----

namespace {

TensorType same_type(const std::vector<TensorType>& in) { return in[0]; }

}  // namespace

Tensor all_reduce(const Tensor& x, Reduction op, Loc loc) {
  init();
  if (op == Reduction::mean && !is_floating(x.dtype()))
    throw ValueError("distributed::all_reduce: mean of " + x.label() + " (" + std::string(dtype_name(x.dtype())) +
                     "); mean needs a float tensor. Use sum, or cast with astype(float32).");
  HostCallSpec spec;
  spec.name = std::string("all_reduce_") + reduction_name(op);
  spec.infer = same_type;
  spec.compute = [op](const std::vector<Array>& in) {
    Array out = in[0].copy();
    const std::string what = std::string("all_reduce(") + reduction_name(op) + ") of " + describe(in[0]);
    // The shapes are compared here too: one with an unknown size (a batch) can differ by process.
    if (world().size > 1) {
      detail::check_reduction(in[0], op, what);
      check_same_everywhere(in[0], what);
    }
    detail::all_reduce_in_place(out, op, world().collectives, what);
    return out;
  };
  if (op != Reduction::max)
    spec.vjp = [op](const std::vector<Tensor>&, const Tensor&, const Tensor& cotangent) {
      return std::vector<Tensor>{all_reduce(cotangent, op)};
    };
  return host_call(std::move(spec), {x}, loc);
}

Tensor broadcast(const Tensor& x, int root, Loc loc) {
  init();
  check_root(root, "broadcast");
  HostCallSpec spec;
  spec.name = "broadcast";
  spec.infer = same_type;
  spec.compute = [root](const std::vector<Array>& in) { return broadcast_now(in[0], root); };
  return host_call(std::move(spec), {x}, loc);
}

Tensor all_gather(const Tensor& x, Loc loc) {
  init();
  if (x.ndim() > 0 && is_symbol(x.shape()[0]))
    throw ShapeError("distributed::all_gather: axis 0 of " + x.label() + " " + shape_string(x.shape()) +
                     " is unknown until a call; all_gather needs its size. Give the placeholder a fixed first axis.");
  HostCallSpec spec;
  spec.name = "all_gather";
  spec.infer = [](const std::vector<TensorType>& in) {
    TensorType t = in[0];
    if (t.shape.empty()) t.shape = {1};
    t.shape[0] *= world().size;
    return t;
  };
  spec.compute = [](const std::vector<Array>& in) { return gather_now(in[0]); };
  spec.vjp = [](const std::vector<Tensor>& in, const Tensor&, const Tensor& cotangent) {
    const Tensor& x = in[0];
    const std::int64_t rows = x.ndim() == 0 ? 1 : x.shape()[0];
    const std::int64_t first = world().rank * rows;
    Tensor mine = slice(all_reduce(cotangent, Reduction::sum), {Index::range(first, first + rows)});
    return std::vector<Tensor>{x.ndim() == 0 ? reshape(mine, {}) : mine};
  };
  return host_call(std::move(spec), {x}, loc);
}

void broadcast_variables(const std::vector<Tensor>& variables, int root) {
  init();
  std::vector<Tensor> vars = variables.empty() ? default_graph().variables() : variables;
  if (world().size == 1) return;
  for (const Tensor& v : vars) {
    if (v.op() != OpKind::Variable)
      throw ValueError("distributed::broadcast_variables: " + v.label() + " is not a variable (it is " +
                       v.display_op() + "). Pass variables only.");
    v.assign(broadcast(v.value(), root));
  }
}

}  // namespace symx::distributed

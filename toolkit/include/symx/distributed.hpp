// symx/distributed.hpp: data-parallel training over MPI (Open MPI), as Horovod and PyTorch's
// DistributedDataParallel do it. Launch N processes with `mpirun -np N program ...`; each calls
// init(), builds the same graph and trains on its own shard of every batch; optimizers made
// distributed (optim::make_distributed, Python sx.distributed.DistributedOptimizer) average the
// gradients across processes inside the compiled training step, in buckets whose all-reduce starts
// as soon as the bucket's gradients are computed, so that communication overlaps the rest of the
// backward pass.
//
// Without mpirun (or before init) the world is one process: every collective returns its input, so
// the same program runs either way.
//
// Faults: every collective waits at most timeout_seconds (SYMX_DIST_TIMEOUT, default 300) for the
// other processes, then throws DistributedError naming the operation, the rank and what to check.
// MPI cannot cancel a collective, so after a timeout the world is unusable: every later collective
// of the process throws DistributedError saying so, and at exit the process ends with status 1
// instead of waiting in MPI's finalization. init waits at most the timeout too for the job's other
// processes (one that exited before init would make it wait forever): then it prints why and ends
// the process with status 1, as nothing inside MPI's start-up can be cancelled. Every collective
// compares the processes' full shapes and dtypes first (tensors' too, whose unknown sizes may
// differ), so that a mismatch is a DistributedError naming both, never a wrong sum.
// A process that dies makes mpirun end the others; abort() (called by the `symx` tool and by Python's
// sx.distributed on an uncaught exception) ends every process of the job at once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "symx/symx.hpp"

namespace symx::distributed {

// A collective that failed: a timeout waiting for another process, an MPI error, or inputs that
// differ between processes where they must agree (shapes, dtypes).
class DistributedError : public Error {
 public:
  using Error::Error;
};

// Options of init.
struct InitOptions {
  // Seconds a collective (and init itself) waits for the other processes before DistributedError;
  // 0: the environment's SYMX_DIST_TIMEOUT, else 300. Anything but a positive, finite number
  // (negative, NaN, infinity) is a ValueError, here and in SYMX_DIST_TIMEOUT.
  double timeout_seconds = 0;
};

// Joins the job started by mpirun (MPI with MPI_THREAD_MULTIPLE), or makes a world of one when the
// process was not started by mpirun. Safe to call more than once (later calls do nothing); MPI is
// finalized at exit. Collectives call it themselves.
// Example: distributed::init(); if (distributed::rank() == 0) std::puts("hello from rank 0");
// Python: sx.distributed.init(); print("hello from rank 0") if sx.distributed.rank() == 0 else None
void init(InitOptions options = {});
// Whether init() has run.
// Example: distributed::initialized()
// Python: sx.distributed.initialized()
bool initialized();
// This process's rank in [0, world_size()); 0 in a world of one.
// Example: distributed::rank()
// Python: sx.distributed.rank()
int rank();
// The number of processes (1 without mpirun).
// Example: distributed::world_size()
// Python: sx.distributed.world_size()
int world_size();
// This process's rank among the processes of its machine (0 without mpirun).
// Example: distributed::local_rank()
// Python: sx.distributed.local_rank()
int local_rank();
// The number of processes on this machine (1 without mpirun): they share its cores.
// Example: set_num_threads(std::max(1, num_threads() / distributed::local_size()))
// Python: threads = max(1, os.cpu_count() // sx.distributed.local_size())
int local_size();
// Waits until every process has called it.
// Example: distributed::barrier()
// Python: sx.distributed.barrier()
void barrier();
// Ends every process of the job with `code` after printing `message` to stderr (prefixed with the
// rank): what a process that cannot go on does, so that the others do not wait for it.
[[noreturn]] void abort(const std::string& message, int code = 1);
// The collective timeout in seconds (see InitOptions).
// Example: distributed::timeout_seconds() is 300 by default
// Python: sx.distributed.timeout_seconds() is 300 by default
double timeout_seconds();

// How all_reduce combines the processes' values.
enum class Reduction { sum, mean, max };
// The name: "sum", "mean", "max".
const char* reduction_name(Reduction op);

// ---- on arrays: run now, on every process ----
// Every process's `x` combined elementwise (same shape and dtype everywhere; mean needs a float
// dtype). Returns a new array.
// Example: distributed::all_reduce(Array::scalar<double>(rank())) is 0 + 1 + ... + (N - 1)
// Python: sx.distributed.all_reduce(np.float64(sx.distributed.rank())) is 0 + 1 + ... + (N - 1)
Array all_reduce(const Array& x, Reduction op = Reduction::sum);
// Rank `root`'s `x` on every process (each passes an array of the same shape and dtype).
// Example: distributed::broadcast(weights, 0)
// Python: sx.distributed.broadcast(weights, root=0)
Array broadcast(const Array& x, int root = 0);
// The processes' `x` (the same shape everywhere) concatenated along axis 0 in rank order: shape
// (N * x.shape[0], ...); a scalar gives shape (N,).
// Example: distributed::all_gather(Array::scalar<std::int64_t>(rank())) is [0, 1, ..., N - 1]
// Python: sx.distributed.all_gather(np.int64(sx.distributed.rank())) is [0, 1, ..., N - 1]
Array all_gather(const Array& x);

// ---- on tensors: graph nodes (host_call) that run the collective when evaluated ----
// Differentiable: the cotangent of sum (mean) is the all_reduce sum (mean) of the processes'
// cotangents, which with averaged gradients gives the exact gradient of the mean loss over all
// processes (how synchronized batch norm differentiates); max has no gradient.
// Example: global_mean = distributed::all_reduce(mean(x, 0), Reduction::mean)
// Python: global_mean = sx.distributed.all_reduce(sx.mean(x, 0), op="mean")
Tensor all_reduce(const Tensor& x, Reduction op = Reduction::sum, Loc loc = Loc::current());
// Rank `root`'s value of `x` (no gradient).
Tensor broadcast(const Tensor& x, int root = 0, Loc loc = Loc::current());
// The processes' `x` concatenated along axis 0 (axis 0 of x must have a known size); the gradient
// is this process's rows of the summed cotangents.
Tensor all_gather(const Tensor& x, Loc loc = Loc::current());

// Sets each of `variables` (default: every variable of the default graph) to rank `root`'s value,
// so that every process starts from the same parameters.
// Example: distributed::broadcast_variables()
// Python: sx.distributed.broadcast_variables()
void broadcast_variables(const std::vector<Tensor>& variables = {}, int root = 0);

// ---- gradient averaging inside a compiled training step ----
struct GradientOptions {
  // A bucket holds gradients of one dtype up to this many MiB (PyTorch DDP's bucket_cap_mb); one
  // all-reduce per bucket. Buckets are filled from the last gradient to the first, the order in
  // which a backward pass computes them.
  double bucket_mb = 25;
  // Divide the sum by the number of processes (the mean of the processes' gradients).
  bool average = true;
  // Start each bucket's all-reduce as soon as its gradients are computed (HostCallSpec::early), so
  // that it overlaps the rest of the backward pass; false: where the program's plain order puts it
  // (to measure what the overlap hides).
  bool overlap = true;
};
// The gradients summed (averaged) over every process: graph nodes whose evaluation starts each
// bucket's all-reduce on a background thread as soon as the bucket's gradients are computed
// (HostCallSpec::early) and waits for it only where the result is used. In a world of one, the
// gradients themselves. Errors: an undefined gradient, bucket_mb <= 0 (ValueError).
// Example: auto avg = distributed::average_gradients(grad(loss, params))
// Python: grads = sx.distributed.average_gradients(sx.grad(loss, params))
std::vector<Tensor> average_gradients(const std::vector<Tensor>& grads, GradientOptions options = {},
                                      Loc loc = Loc::current());

// What the gradient all-reduces of this process cost, since the start or reset_gradient_stats().
// Example: auto s = distributed::gradient_stats(); s.wait_seconds / s.comm_seconds
struct GradientStats {
  std::int64_t buckets = 0;  // all-reduces done
  std::int64_t bytes = 0;    // bytes reduced (each bucket's size)
  double comm_seconds = 0;   // time the all-reduces took on the background thread
  double wait_seconds = 0;   // time the training step waited for them (communication not hidden)
};
// This process's totals (Python: a dict with the same keys).
// Example: distributed::gradient_stats().comm_seconds
// Python: sx.distributed.gradient_stats()["comm_seconds"]
GradientStats gradient_stats();
// Sets the totals of gradient_stats to zero (e.g. after the first, compiling step).
// Example: distributed::reset_gradient_stats()
// Python: sx.distributed.reset_gradient_stats()
void reset_gradient_stats();

// ---- Python-only bindings (documented here for the docstrings) ----

// Doc distributed::DistributedOptimizer:
// DistributedOptimizer(optimizer, bucket_mb=25, overlap=True): makes `optimizer` average its gradients over the
// processes (optim::make_distributed in C++) and returns it; minimize then builds the bucketed,
// overlapped all-reduces into the training step and starts every process from rank 0's parameters.
// Example: opt = sx.distributed.DistributedOptimizer(sx.optim.Adam(1e-3)); opt.minimize(loss)

}  // namespace symx::distributed

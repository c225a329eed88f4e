// What distributed.cpp (the world, the collectives) shares with gradients.cpp (the bucketed
// gradient all-reduce on its background thread).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "symx/distributed.hpp"

namespace symx::distributed::detail {

// The communicator of the background thread's bucket all-reduces, separate from the one of the
// training thread's collectives so that the two threads' collectives never interleave on one.
// MPI_COMM_NULL in a world of one.
MPI_Comm gradients_comm();

// The MPI type of `dtype`'s elements.
MPI_Datatype mpi_type(DType dtype);
MPI_Op mpi_op(Reduction op);

// Throws DistributedError for an MPI error code, naming `what`.
void check(int code, const std::string& what);
// Polls `request` until it completes; DistributedError after timeout_seconds(), naming `what`,
// and the world marked unusable (mark_broken) with `buffers` (those of the request) kept alive.
void wait_for(MPI_Request& request, const std::string& what, const std::vector<Array>& buffers);
// DistributedError naming `what` when an earlier collective timed out.
void check_usable(const std::string& what);
// Marks the world unusable after the collective `what` timed out: MPI may still run it, on
// `buffers`, which are never freed; every later collective fails (naming `what`) and finalization
// ends the process instead of waiting for it.
void mark_broken(const std::string& what, const std::vector<Array>& buffers);
// The checks of an all-reduce's input (mean of integers, bool, MPI's count limit, a usable world).
void check_reduction(const Array& x, Reduction op, const std::string& what);

// The in-place all-reduce of `x`'s elements on `comm` (mean: the sum divided by the world size),
// polled with wait_for (so bounded by the timeout).
void all_reduce_in_place(Array& x, Reduction op, MPI_Comm comm, const std::string& what);
// The same with MPI's blocking all-reduce, for the gradient thread: MPI progresses the whole
// operation itself (a polled one advances a round per test, measured 3 to 5 times slower here);
// the thread waiting for the result bounds the time instead.
void all_reduce_blocking(Array& x, Reduction op, MPI_Comm comm, const std::string& what);
// The DistributedError text for `what` not done after `waited` seconds.
std::string timeout_message(const std::string& what, double waited);

// Stops the gradient thread (at exit, before MPI is finalized).
void stop_gradient_thread();
// Whether a gradient all-reduce outlived the timeout (its thread is stuck inside MPI).
bool gradient_thread_stuck();

}  // namespace symx::distributed::detail

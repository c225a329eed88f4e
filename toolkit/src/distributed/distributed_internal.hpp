// What distributed.cpp (the world, the collectives) shares with gradients.cpp (the bucketed
// gradient all-reduce on its background thread).
#pragma once

#include <mpi.h>

#include <string>

#include "symx/distributed.hpp"

namespace symx::distributed::detail {

// The communicators: `collectives` for the calls of the training thread, `gradients` for the
// background thread's bucket all-reduces (separate, so that the two threads' collectives never
// interleave on one communicator). MPI_COMM_NULL in a world of one.
MPI_Comm collectives_comm();
MPI_Comm gradients_comm();

// The MPI type of `dtype`'s elements.
MPI_Datatype mpi_type(DType dtype);
MPI_Op mpi_op(Reduction op);

// Throws DistributedError for an MPI error code, naming `what`.
void check(int code, const std::string& what);
// Polls `request` until it completes; DistributedError after timeout_seconds(), naming `what`.
void wait_for(MPI_Request& request, const std::string& what);

// The in-place all-reduce of `x`'s elements on `comm` (mean: the sum divided by the world size).
void all_reduce_in_place(Array& x, Reduction op, MPI_Comm comm, const std::string& what);

// Stops the gradient thread (at exit, before MPI is finalized).
void stop_gradient_thread();

}  // namespace symx::distributed::detail

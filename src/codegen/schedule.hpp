// Scheduling: the performance decisions of a kernel, as transformations of its loop-nest IR
// (loop_ir.hpp). lower() writes a kernel as one parallel loop over the rows of its output and an
// inner loop over the last axis; schedule() then blocks column reductions, splits few long rows
// into chunks, picks the OpenMP schedule of the parallel loop and marks the loops that vectorize.
#pragma once

#include "codegen/kernel.hpp"
#include "codegen/loop_ir.hpp"

namespace symx::codegen::ir {

// Applies the transformations below in order to `ir`, the lowering of `kernel`.
void schedule(LoopKernel& ir, const Kernel& kernel);

// The single transformations, for tests. Each returns whether it changed the IR.
bool block_columns(LoopKernel& ir, const Kernel& kernel);
bool chunk_long_rows(LoopKernel& ir);
void choose_parallel_schedule(LoopKernel& ir, const Kernel& kernel);
void vectorize(LoopKernel& ir);

}  // namespace symx::codegen::ir

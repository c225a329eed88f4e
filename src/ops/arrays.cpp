// src/ops/arrays.cpp: the rows and functions of symx/arrays.hpp.
#include "symx/arrays.hpp"

#include "ops/op_table.hpp"

namespace symx::ops {

void register_arrays_ops() {}

}  // namespace symx::ops

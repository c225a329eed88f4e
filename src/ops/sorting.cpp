// src/ops/sorting.cpp: the rows and functions of symx/sorting.hpp.
#include "symx/sorting.hpp"

#include "ops/op_table.hpp"

namespace symx::ops {

void register_sorting_ops() {}

}  // namespace symx::ops

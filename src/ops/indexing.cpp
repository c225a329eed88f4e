// src/ops/indexing.cpp: the rows and functions of symx/indexing.hpp.
#include "symx/indexing.hpp"

#include "ops/op_table.hpp"

namespace symx::ops {

void register_indexing_ops() {}

}  // namespace symx::ops

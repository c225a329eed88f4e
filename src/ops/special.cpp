// src/ops/special.cpp: the rows and functions of symx/special.hpp.
#include "symx/special.hpp"

#include "ops/op_table.hpp"

namespace symx::ops {

void register_special_ops() {}

}  // namespace symx::ops

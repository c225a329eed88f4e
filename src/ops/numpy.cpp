// src/ops/numpy.cpp: the rows and functions of symx/numpy.hpp.
#include "symx/numpy.hpp"

#include "ops/op_table.hpp"

namespace symx::ops {

void register_numpy_ops() {}

}  // namespace symx::ops

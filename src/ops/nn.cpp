// STUB: to be written.
#include "ops/op_table.hpp"
namespace symx::ops {
void register_nn_ops() {}
}  // namespace symx::ops

// STUB: to be written.
#include "ops/op_table.hpp"
namespace symx::ops {
void register_random_ops() {}
}  // namespace symx::ops

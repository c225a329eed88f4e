// symx/indexing.hpp: Indexed updates (index_update/index_add/..., Tensor.at), put_along_axis, bincount, histogram, and
// functions with data-dependent output shapes (nonzero, argwhere, unique: a static size=).
#pragma once

#include "symx/ops.hpp"

namespace symx {}  // namespace symx

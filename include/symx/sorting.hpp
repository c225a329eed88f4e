// symx/sorting.hpp: Sorting and searching (sort, argsort, partition, top_k, searchsorted, unique, set functions,
// interp), order statistics (median, quantile, percentile) and cumulative ops (cumprod, cummax, cummin, logcumsumexp).
#pragma once

#include "symx/ops.hpp"

namespace symx {}  // namespace symx

// symx/special.hpp: Special functions, as scipy.special (symx::special), and the NumPy-level ones also at top level
// (lgamma, digamma, erfc, erfinv, gcd, lcm, nextafter, bitwise_count, ...).
#pragma once

#include "symx/ops.hpp"

namespace symx {}  // namespace symx

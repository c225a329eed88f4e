// symx/arrays.hpp: Array building and reshaping beyond ops.hpp (stacking and splitting, triangles and diagonals, index
// helpers, roll, rot90, polynomials, convolve) and the contractions (einsum, tensordot, inner, kron, vdot, matvec).
#pragma once

#include "symx/ops.hpp"

namespace symx {}  // namespace symx

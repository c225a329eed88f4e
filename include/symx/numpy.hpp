// symx/numpy.hpp: The rest of NumPy's names (jax.numpy's): aliases, composites over the primitives (trig and
// hyperbolic, rounding, nan-reductions, stacking and splitting, triangles and diagonals, einsum, tensordot, kron, ...)
// and the host-side dtype helpers.
#pragma once

#include "symx/ops.hpp"

namespace symx {}  // namespace symx

// symx/symx.hpp: the whole public API. `#include <symx/symx.hpp>` and `namespace sx = symx;`.
#pragma once

#include "symx/array.hpp"
#include "symx/arrays.hpp"
#include "symx/autodiff.hpp"
#include "symx/control_flow.hpp"
#include "symx/dtype.hpp"
#include "symx/error.hpp"
#include "symx/function.hpp"
#include "symx/graph.hpp"
#include "symx/indexing.hpp"
#include "symx/interpolation.hpp"
#include "symx/io.hpp"
#include "symx/numpy.hpp"
#include "symx/ops.hpp"
#include "symx/sorting.hpp"
#include "symx/special.hpp"
#include "symx/tensor.hpp"

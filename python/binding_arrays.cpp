// python/binding_arrays.cpp: the Python binding of symx/arrays.hpp.
#include "binding_common.hpp"

void bind_arrays(nb::module_& m) { (void)m; }

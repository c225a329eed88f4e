// python/binding_numpy.cpp: the Python binding of symx/numpy.hpp.
#include "binding_common.hpp"

void bind_numpy(nb::module_& m) { (void)m; }

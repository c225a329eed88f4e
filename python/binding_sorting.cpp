// python/binding_sorting.cpp: the Python binding of symx/sorting.hpp.
#include "binding_common.hpp"

void bind_sorting(nb::module_& m) { (void)m; }

// python/binding_indexing.cpp: the Python binding of symx/indexing.hpp.
#include "binding_common.hpp"

void bind_indexing(nb::module_& m) { (void)m; }

// python/binding_special.cpp: the Python binding of symx/special.hpp.
#include "binding_common.hpp"

void bind_special(nb::module_& m) { (void)m; }

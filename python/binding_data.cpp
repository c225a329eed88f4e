#include "binding_common.hpp"

void bind_data(nb::module_& m) { (void)m; }

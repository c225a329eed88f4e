#include "binding_common.hpp"

void bind_train(nb::module_& m) { (void)m; }

#include "binding_common.hpp"

void bind_download(nb::module_& m) { (void)m; }

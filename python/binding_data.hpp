// What binding_data.cpp shares with the other binding files that take data transforms.
#pragma once

#include <vector>

#include "binding_common.hpp"
#include "symx/data.hpp"

// The transforms of a Python list (None: none): symx.data transforms (divide_by_max(), ...) as they
// are, callables (arrays..., seed) -> tuple of arrays wrapped to run with the GIL. The callables are
// appended to `keep`, which must outlive the returned transforms. Anything else is a TypeError that
// names `who` (the Python function taking the list).
std::vector<symx::data::Transform> transforms_from_python(nb::handle transforms, std::vector<nb::object>& keep,
                                                          const char* who);

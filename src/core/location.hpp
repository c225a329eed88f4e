// Where the user built a node: the C++ caller's std::source_location, or the Python file and line
// that the binding sets for the calls it makes (symx::detail::UserLocation in symx/tensor.hpp).
#pragma once

#include <string>

#include "symx/tensor.hpp"

namespace symx::detail {

// "file.cpp:41" for `loc` (or the language binding's location while a UserLocation is alive on
// this thread), empty if unknown.
std::string where_string(Loc loc);

}  // namespace symx::detail

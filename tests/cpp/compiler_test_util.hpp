// Helpers shared by the compiler driver's tests (test_compiler.cpp, test_compiler_cache_security.cpp).
#pragma once

#include <string>

#include "codegen/compiler.hpp"

namespace symx::testing {

using AddFn = int (*)(int);

// A source with add_one(x) = x + delta; `tag` makes distinct sources (and keys) for the same code.
inline std::string add_source(const std::string& tag, int delta = 1) {
  return "// " + tag + "\nextern \"C\" int add_one(int x) { return x + " + std::to_string(delta) + "; }\n";
}

inline int call_add_one(const codegen::Library& library, int x) {
  return reinterpret_cast<AddFn>(library.symbol("add_one"))(x);
}

}  // namespace symx::testing

// OpenMP's wait policy for every program that links symx (see set_num_threads in symx/function.hpp).
//
// Generated kernels and oneDNN share one OpenMP pool. libgomp's default lets an idle thread spin
// for 300,000 iterations, which on a machine with other busy processes makes every parallel region
// wait for descheduled spinners (measured: `symx train --model mlp` 38x slower next to a running
// test suite). Threads that sleep at once wake late for each of the many short regions of a call,
// so the default symx wants is a short spin: OMP_WAIT_POLICY=passive with GOMP_SPINCOUNT=10000
// (tens of microseconds), unless the user set either variable.
//
// libgomp reads the two variables once, in its own ELF constructor, which runs before any code of
// the program: setenv from a constructor of the program is too late, and a .preinit_array entry
// runs before libc's initialization, which resets `environ` afterwards (both tried). What does
// work is answering libgomp's getenv: a program linked with symx::symx (its link options pull this
// file in with `-u symx_omp_defaults`, executables only) defines getenv, which the dynamic linker
// binds for every shared library, libgomp included. It is glibc's getenv (a scan of `environ`)
// that also answers the two variables with symx's defaults while the environment sets neither.
// The Python package cannot do this (libgomp is initialized when the extension loads, through
// libc's getenv), so symx/__init__.py sets the same values in os.environ before it loads it.
#include <cstring>

#include <unistd.h>

namespace {

// The value of `name` in the environment (what glibc's getenv returns), or null.
const char* environment_value(const char* name) {
  if (environ == nullptr || name == nullptr) return nullptr;
  std::size_t n = std::strlen(name);
  for (char** entry = environ; *entry != nullptr; ++entry)
    if (std::strncmp(*entry, name, n) == 0 && (*entry)[n] == '=') return *entry + n + 1;
  return nullptr;
}

const char* omp_default(const char* name) {
  if (name == nullptr) return nullptr;
  bool policy = std::strcmp(name, "OMP_WAIT_POLICY") == 0;
  bool spin = std::strcmp(name, "GOMP_SPINCOUNT") == 0;
  if (!policy && !spin) return nullptr;
  // A policy the user chose, either variable, is left as it is.
  if (environment_value("OMP_WAIT_POLICY") != nullptr || environment_value("GOMP_SPINCOUNT") != nullptr) return nullptr;
  return policy ? "passive" : "10000";
}

}  // namespace

extern "C" {

// Referenced by the symx target's link options, so that executables link this file.
int symx_omp_defaults = 1;

char* getenv(const char* name) noexcept {
  if (const char* value = environment_value(name)) return const_cast<char*>(value);
  return const_cast<char*>(omp_default(name));
}

}  // extern "C"

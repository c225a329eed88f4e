// symx/error.hpp: the two tiers of errors.
//
// User errors (bad shapes, dtypes, inputs, files) derive from symx::Error and carry a message of
// the form "<op>: <problem> (<operands>), at <file>:<line>. <fix>". In Python, ShapeError,
// ValueError and IOError arrive as ValueError, DTypeError and TypeError as TypeError. Broken internal invariants
// throw InternalError with the symx source file and line; they are bugs in symx, not in user code.
#pragma once

#include <new>
#include <source_location>
#include <stdexcept>
#include <string>

namespace symx {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Shapes that do not fit an op, or a wrong axis (a ValueError in Python).
// Example: add(placeholder((2,)), placeholder((3,))) raises ShapeError
class ShapeError : public Error {
  using Error::Error;
};
// A dtype an op does not accept (a TypeError in Python).
// Example: sqrt(placeholder((2,), int32)) raises DTypeError
class DTypeError : public Error {
  using Error::Error;
};
// An argument of the wrong kind: a tensor computed from trainable variables where a number (a
// hyperparameter) is meant (a TypeError in Python).
// Example: optim::SGD(loss) raises TypeError ("... SGD(0.1).minimize(loss)")
class TypeError : public Error {
  using Error::Error;
};
// Any other bad argument: wrong input count, unknown name, bad attribute value.
class ValueError : public Error {
  using Error::Error;
};
// A file that cannot be read or written, or whose contents do not match (a ValueError in Python).
// Example: load_variables("missing.safetensors") raises IOError
class IOError : public Error {
  using Error::Error;
};

// A running loop stopped by request_interrupt() (Ctrl-C: a KeyboardInterrupt in Python). The call
// that ran it changed no variable.
class Interrupted : public Error {
  using Error::Error;
};

// An allocation that passes the size limit but that the system cannot satisfy. It is a
// std::bad_alloc (so it reaches Python as MemoryError) whose message names the size and shape.
class OutOfMemory : public std::bad_alloc {
 public:
  explicit OutOfMemory(std::string what) : what_(std::move(what)) {}
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};

class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& what, std::source_location loc = std::source_location::current());
};

// Throws InternalError when `condition` is false. For invariants only, never for user input.
inline void check_internal(bool condition, const char* what,
                           std::source_location loc = std::source_location::current()) {
  if (!condition) throw InternalError(what, loc);
}

}  // namespace symx

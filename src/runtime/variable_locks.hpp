// Locks that make calls touching shared variables linearizable: a call holds, for its whole
// duration, the lock of every variable it reads (shared) or writes (exclusive), taken in one global
// order (by address) so that two calls can never wait on each other in a cycle. Calls that only
// read variables run in parallel; calls that write one run one after another.
#pragma once

#include <cstddef>
#include <vector>

#include "symx/tensor.hpp"

namespace symx::runtime {

// One variable a call touches, and whether it writes it.
struct VariableAccess {
  VariableState* state;
  bool write;
};

// The variables read by the graphs of `roots` and those in `written`, each once (written ones
// exclusive), sorted into the global lock order.
std::vector<VariableAccess> variable_accesses(const std::vector<Tensor>& roots, const std::vector<Tensor>& written);

// Holds the locks of `accesses` (sorted by variable_accesses) from construction to destruction.
// Allocates nothing: the list is made once per function.
class VariableLocks {
 public:
  explicit VariableLocks(const std::vector<VariableAccess>& accesses) : accesses_(accesses) {
    for (const VariableAccess& a : accesses_) {
      if (a.write) a.state->mutex.lock();
      else a.state->mutex.lock_shared();
    }
  }
  ~VariableLocks() {
    for (std::size_t i = accesses_.size(); i-- > 0;) {
      if (accesses_[i].write) accesses_[i].state->mutex.unlock();
      else accesses_[i].state->mutex.unlock_shared();
    }
  }
  VariableLocks(const VariableLocks&) = delete;
  VariableLocks& operator=(const VariableLocks&) = delete;

 private:
  const std::vector<VariableAccess>& accesses_;
};

}  // namespace symx::runtime

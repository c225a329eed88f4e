// Scatter calls (issue 21): scatter_set, scatter_mul, scatter_min and scatter_max of symx/indexing.hpp
// as a copy of the operand (skipped when the program gives the call the operand's buffer) and one
// pass over the updates, in row-major order (so that the last of duplicate positions wins a set, as
// in the reference evaluation). Any dtype; positions int32 or int64.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/library_internal.hpp"
#include "symx/error.hpp"

namespace symx::runtime::detail {
namespace {

template <class T> T combine(OpKind op, T old, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    if (op == OpKind::ScatterMax) return old || v;
    if (op == OpKind::ScatterSet) return v;
    return old && v;  // mul, min
  } else {
    if (op == OpKind::ScatterSet) return v;
    if (op == OpKind::ScatterMul) return static_cast<T>(old * v);
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(old) || std::isnan(v)) return std::numeric_limits<T>::quiet_NaN();
    return op == OpKind::ScatterMin ? std::min(old, v) : std::max(old, v);
  }
}

template <class T, class I> class ScatterCall final : public LibraryCall {
 public:
  explicit ScatterCall(const Tensor& node)
      : op_(node.op()), n_(node.size()), m_(node.node().inputs[2].size()), where_(node.node().where) {}
  void run(char* const* p) override {
    const auto* x = reinterpret_cast<const T*>(p[0]);
    const auto* pos = reinterpret_cast<const I*>(p[1]);
    const auto* u = reinterpret_cast<const T*>(p[2]);
    auto* out = reinterpret_cast<T*>(p[3]);
    if (out != x) std::memcpy(static_cast<void*>(out), x, static_cast<std::size_t>(n_) * sizeof(T));
    for (std::int64_t j = 0; j < m_; ++j) {
      auto k = static_cast<std::int64_t>(pos[j]);
      if (k < -n_ || k >= n_)
        throw ValueError(std::string(op_name(op_)) + ": position " + std::to_string(k) +
                         " is out of bounds for a tensor of " + std::to_string(n_) + " elements" +
                         (where_.empty() ? std::string() : ", at " + where_) +
                         ". Use indices within the tensor's sizes.");
      if (k < 0) k += n_;
      out[k] = combine<T>(op_, out[k], u[j]);
    }
  }
  std::string describe() const override { return std::string(op_name(op_)) + " of " + std::to_string(m_) + " updates"; }

 private:
  OpKind op_;
  std::int64_t n_, m_;
  std::string where_;
};

}  // namespace

std::unique_ptr<LibraryCall> make_scatter_call(const Tensor& node) {
  DType pos = node.node().inputs[1].dtype();
  if (pos != DType::i32 && pos != DType::i64) return nullptr;
  std::unique_ptr<LibraryCall> call;
  visit_dtype(node.dtype(), [&]<class T>() {
    if (pos == DType::i64) call = std::make_unique<ScatterCall<T, std::int64_t>>(node);
    else call = std::make_unique<ScatterCall<T, std::int32_t>>(node);
  });
  return call;
}

}  // namespace symx::runtime::detail

// Library call of the Fft primitive (symx/fft.hpp): an FFTW 3 plan (ops/fft_plans.hpp) made once,
// when the program is built, for the node's kind, precision, shape and axes, and executed on every
// call. FFTW's new-array execution is thread-safe, so concurrent calls of one program share it.
#include "ops/fft_plans.hpp"
#include "runtime/library_internal.hpp"

namespace symx::runtime::detail {
namespace {

ops::FftKind plan_kind(FftAttr::Kind kind) {
  switch (kind) {
    case FftAttr::Kind::forward: return ops::FftKind::forward;
    case FftAttr::Kind::backward: return ops::FftKind::backward;
    case FftAttr::Kind::real_forward: return ops::FftKind::real_to_complex;
    case FftAttr::Kind::real_backward: return ops::FftKind::complex_to_real;
  }
  return ops::FftKind::forward;
}

class FftCall final : public LibraryCall {
 public:
  FftCall(DType precision, const Shape& logical, const FftAttr& a)
      : plan_(plan_kind(a.kind), precision, logical, std::vector<std::int64_t>(a.axes.begin(), a.axes.end())) {}
  void run(char* const* p) override { plan_.execute(p[0], p[1]); }
  std::string describe() const override { return plan_.describe(); }

 private:
  ops::FftPlan plan_;
};

}  // namespace

std::unique_ptr<LibraryCall> make_fft_call(const Tensor& node) {
  if (any_empty(node)) return nullptr;  // the reference evaluator's empty results
  const auto& a = std::get<FftAttr>(node.node().attr);
  const Tensor& in = node.node().inputs[0];
  // The logical (real-domain) shape: the input's for complex transforms and real_forward, the
  // output's for real_backward.
  const Shape& logical = a.kind == FftAttr::Kind::real_backward ? node.shape() : in.shape();
  const DType precision = real_dtype(a.kind == FftAttr::Kind::real_backward ? in.dtype() : node.dtype());
  return std::make_unique<FftCall>(precision, logical, a);
}

}  // namespace symx::runtime::detail

// FFTW 3 plans (fft_plans.hpp). Each plan is one guru64 plan: the transformed axes are FFTW's
// dims with their strides in the C-contiguous input and output, every other axis a howmany dim,
// so any subset of the axes of an array is one plan (FFTW merges and reorders the loops itself).
//
// Thread safety: FFTW's new-array execute functions (fftw_execute_dft and the r2c / c2r ones) may
// run concurrently; its planner and fftw_destroy_plan may not, so one mutex guards every planner
// call, plan destruction, fftw_plan_with_nthreads and the threads' initialization.
//
// Alignment: a new-array execute needs the planning arrays' alignment. Plans are made on 64-byte
// aligned scratch arrays (what symx's buffers have), and execute takes them when both buffers share
// that alignment; other buffers take a second plan made with FFTW_UNALIGNED on first use. Measured
// on the 2-core development machine (FftPlansTiming in tests/cpp/test_fft_plans.cpp), (256, 65536)
// float32 real_to_complex along the last axis, 1 thread: 51-78 ms aligned vs 72-130 ms unaligned
// with FFTW_ESTIMATE, 44-68 vs 79-94 ms with FFTW_MEASURE; 512-point batches 2x faster aligned.
//
// Threads: with the second core free, 2 threads gave 1.7-2x from about 2^14 elements on (n = 64,
// 512, 4096, 65536 in batches), 0.85-1.3x at 2^12; when the other core is busy a threaded plan can
// wait a scheduler slice (4 ms measured) for its second thread. fft_threads_min_elements = 2^16
// keeps transforms that take under about 0.1 ms on one thread on the calling thread.
//
// complex_to_real over several axes overwrites its input in FFTW (FFTW_PRESERVE_INPUT has no such
// plans), so execute copies the input to a per-thread scratch buffer first; over one axis FFTW
// preserves it (measured as fast as the copy: 6.2 vs 5.6 ms for 7808 float32 512-point rows, 45 vs
// 46 ms for (256, 65536)).
#include "ops/fft_plans.hpp"

#include <fftw3.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>
#include <string>
#include <utility>

#include "symx/error.hpp"

namespace symx::ops {

const char* fft_kind_name(FftKind kind) {
  switch (kind) {
    case FftKind::forward: return "forward";
    case FftKind::backward: return "backward";
    case FftKind::real_to_complex: return "real_to_complex";
    case FftKind::complex_to_real: return "complex_to_real";
  }
  return "?";
}

namespace {

std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

// ---- the fftw_ / fftwf_ entry points by precision ----

template <class R> struct Fftw;
template <> struct Fftw<double> {
  using plan = fftw_plan;
  using complex = fftw_complex;
  using iodim = fftw_iodim64;
  static int alignment_of(const void* p) { return fftw_alignment_of(static_cast<double*>(const_cast<void*>(p))); }
  static void init_threads() {
    fftw_init_threads();
    fftw_make_planner_thread_safe();
  }
  static void plan_with_nthreads(int n) { fftw_plan_with_nthreads(n); }
  static plan dft(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany, void* in,
                  void* out, int sign, unsigned flags) {
    return fftw_plan_guru64_dft(rank, dims, howmany_rank, howmany, static_cast<complex*>(in),
                                static_cast<complex*>(out), sign, flags);
  }
  static plan r2c(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany, void* in,
                  void* out, unsigned flags) {
    return fftw_plan_guru64_dft_r2c(rank, dims, howmany_rank, howmany, static_cast<double*>(in),
                                    static_cast<complex*>(out), flags);
  }
  static plan c2r(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany, void* in,
                  void* out, unsigned flags) {
    return fftw_plan_guru64_dft_c2r(rank, dims, howmany_rank, howmany, static_cast<complex*>(in),
                                    static_cast<double*>(out), flags);
  }
  static void execute(plan p, FftKind kind, const void* in, void* out) {
    // FFTW's execute functions take non-const input; plans made with FFTW_PRESERVE_INPUT (or fed a
    // scratch copy) do not write it.
    void* i = const_cast<void*>(in);
    if (kind == FftKind::real_to_complex) fftw_execute_dft_r2c(p, static_cast<double*>(i), static_cast<complex*>(out));
    else if (kind == FftKind::complex_to_real)
      fftw_execute_dft_c2r(p, static_cast<complex*>(i), static_cast<double*>(out));
    else fftw_execute_dft(p, static_cast<complex*>(i), static_cast<complex*>(out));
  }
  static void destroy(plan p) { fftw_destroy_plan(p); }
};
template <> struct Fftw<float> {
  using plan = fftwf_plan;
  using complex = fftwf_complex;
  using iodim = fftwf_iodim64;
  static int alignment_of(const void* p) { return fftwf_alignment_of(static_cast<float*>(const_cast<void*>(p))); }
  static void init_threads() {
    fftwf_init_threads();
    fftwf_make_planner_thread_safe();
  }
  static void plan_with_nthreads(int n) { fftwf_plan_with_nthreads(n); }
  static plan dft(int rank, const fftwf_iodim64* dims, int howmany_rank, const fftwf_iodim64* howmany, void* in,
                  void* out, int sign, unsigned flags) {
    return fftwf_plan_guru64_dft(rank, dims, howmany_rank, howmany, static_cast<complex*>(in),
                                 static_cast<complex*>(out), sign, flags);
  }
  static plan r2c(int rank, const fftwf_iodim64* dims, int howmany_rank, const fftwf_iodim64* howmany, void* in,
                  void* out, unsigned flags) {
    return fftwf_plan_guru64_dft_r2c(rank, dims, howmany_rank, howmany, static_cast<float*>(in),
                                     static_cast<complex*>(out), flags);
  }
  static plan c2r(int rank, const fftwf_iodim64* dims, int howmany_rank, const fftwf_iodim64* howmany, void* in,
                  void* out, unsigned flags) {
    return fftwf_plan_guru64_dft_c2r(rank, dims, howmany_rank, howmany, static_cast<complex*>(in),
                                     static_cast<float*>(out), flags);
  }
  static void execute(plan p, FftKind kind, const void* in, void* out) {
    void* i = const_cast<void*>(in);
    if (kind == FftKind::real_to_complex) fftwf_execute_dft_r2c(p, static_cast<float*>(i), static_cast<complex*>(out));
    else if (kind == FftKind::complex_to_real)
      fftwf_execute_dft_c2r(p, static_cast<complex*>(i), static_cast<float*>(out));
    else fftwf_execute_dft(p, static_cast<complex*>(i), static_cast<complex*>(out));
  }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
};

constexpr std::size_t kAlignment = 64;

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<char, AlignedFree>;

AlignedBuffer aligned_buffer(std::size_t bytes) {
  std::size_t rounded = std::max<std::size_t>(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (p == nullptr) throw OutOfMemory("fft: cannot allocate " + std::to_string(bytes) + " bytes of FFT scratch");
  return AlignedBuffer(static_cast<char*>(p));
}

// The planning effort SYMX_FFTW_PLANNER asks for, and its name.
std::pair<unsigned, std::string> planner_effort() {
  const char* v = std::getenv("SYMX_FFTW_PLANNER");
  std::string s = v == nullptr ? "" : v;
  if (s.empty() || s == "estimate") return {FFTW_ESTIMATE, "estimate"};
  if (s == "measure") return {FFTW_MEASURE, "measure"};
  if (s == "patient") return {FFTW_PATIENT, "patient"};
  throw ValueError("fft: SYMX_FFTW_PLANNER is '" + s +
                   "', expected estimate, measure or patient. Unset it for FFTW_ESTIMATE (the default).");
}

std::string axes_string(const std::vector<std::int64_t>& axes) { return shape_string(Shape(axes.begin(), axes.end())); }

std::vector<std::int64_t> c_strides(const Shape& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

std::int64_t element_count(const Shape& s) {
  return std::accumulate(s.begin(), s.end(), std::int64_t{1}, std::multiplies<>());
}

}  // namespace

// The FFTW plans of one FftPlan; PlanOf<R> holds them in R's precision.
class FftPlan::Impl {
 public:
  virtual ~Impl() = default;
  virtual void execute(const void* in, void* out) const = 0;
};

namespace {

template <class R> class PlanOf final : public FftPlan::Impl {
 public:
  PlanOf(const FftPlan& plan, unsigned effort) : plan_(plan), effort_(effort) {
    set_guru_dims();
    // complex_to_real preserves its input in FFTW over one axis only; where that plan fails too,
    // execute copies the input as over several axes.
    copy_input_ = plan.kind() == FftKind::complex_to_real && dims_.size() > 1;
    const bool may_fail = plan.kind() == FftKind::complex_to_real && !copy_input_;
    aligned_ = make_plan(0, may_fail);
    if (aligned_ == nullptr) {
      copy_input_ = true;
      aligned_ = make_plan(0);
    }
  }
  ~PlanOf() override {
    std::lock_guard lock(planner_mutex());
    if (aligned_ != nullptr) Fftw<R>::destroy(aligned_);
    if (unaligned_ != nullptr) Fftw<R>::destroy(unaligned_);
  }

  void execute(const void* in, void* out) const override {
    const void* source = in;
    if (copy_input_) source = scratch_copy(in);
    // FFTW's test of "the planning arrays' alignment" (they are 64-byte aligned: offset 0).
    typename Fftw<R>::plan p = aligned_;
    if (Fftw<R>::alignment_of(source) != 0 || Fftw<R>::alignment_of(out) != 0) {
      std::call_once(unaligned_once_, [&] { unaligned_ = make_plan(FFTW_UNALIGNED); });
      p = unaligned_;
    }
    Fftw<R>::execute(p, plan_.kind(), source, out);
  }

 private:
  // The guru dims: the transformed axes (the halved one last: FFTW halves the last dim) and the
  // batch axes, each with its logical length and its strides in elements of each side.
  void set_guru_dims() {
    const Shape& logical = plan_.shape();
    const std::vector<std::int64_t>& axes = plan_.axes();
    std::vector<std::int64_t> is = c_strides(plan_.input_shape()), os = c_strides(plan_.output_shape());
    for (std::int64_t a : axes) dims_.push_back({logical[a], is[a], os[a]});
    for (std::int64_t a = 0; a < static_cast<std::int64_t>(logical.size()); ++a)
      if (std::find(axes.begin(), axes.end(), a) == axes.end()) howmany_.push_back({logical[a], is[a], os[a]});
  }

  // Plans on 64-byte aligned scratch arrays (never the caller's: a measuring planner writes them).
  // Pages a FFTW_ESTIMATE planner does not touch are never committed.
  // `may_fail`: return null rather than throw when FFTW has no plan.
  typename Fftw<R>::plan make_plan(unsigned alignment_flag, bool may_fail = false) const {
    AlignedBuffer in = aligned_buffer(plan_.input_bytes()), out = aligned_buffer(plan_.output_bytes());
    unsigned flags = effort_ | alignment_flag;
    std::lock_guard lock(planner_mutex());
    static std::once_flag threads_once;
    std::call_once(threads_once, [] { Fftw<R>::init_threads(); });
    Fftw<R>::plan_with_nthreads(plan_.threads());
    typename Fftw<R>::plan p = plan_with(flags, in.get(), out.get());
    if (p == nullptr && !may_fail) {
      throw ValueError("fft: FFTW could not plan a " + plan_.describe() + " (planner flags " + std::to_string(flags) +
                       "). Try other axes or SYMX_FFTW_PLANNER=estimate.");
    }
    return p;
  }

  typename Fftw<R>::plan plan_with(unsigned flags, void* in, void* out) const {
    const int rank = static_cast<int>(dims_.size()), batch = static_cast<int>(howmany_.size());
    const auto* dims = dims_.data();
    const auto* howmany = howmany_.data();
    switch (plan_.kind()) {
      case FftKind::forward:
        return Fftw<R>::dft(rank, dims, batch, howmany, in, out, FFTW_FORWARD, flags | FFTW_PRESERVE_INPUT);
      case FftKind::backward:
        return Fftw<R>::dft(rank, dims, batch, howmany, in, out, FFTW_BACKWARD, flags | FFTW_PRESERVE_INPUT);
      case FftKind::real_to_complex:
        return Fftw<R>::r2c(rank, dims, batch, howmany, in, out, flags | FFTW_PRESERVE_INPUT);
      case FftKind::complex_to_real:
        return Fftw<R>::c2r(rank, dims, batch, howmany, in, out,
                            flags | (copy_input_ ? FFTW_DESTROY_INPUT : FFTW_PRESERVE_INPUT));
    }
    return nullptr;
  }

  // The input copied to this thread's scratch buffer (grown as needed, kept for the next call).
  const void* scratch_copy(const void* in) const {
    thread_local AlignedBuffer buffer;
    thread_local std::size_t capacity = 0;
    std::size_t bytes = plan_.input_bytes();
    if (capacity < bytes) {
      buffer.reset();
      buffer = aligned_buffer(bytes);
      capacity = bytes;
    }
    std::memcpy(buffer.get(), in, bytes);
    return buffer.get();
  }

  const FftPlan& plan_;
  unsigned effort_;
  std::vector<typename Fftw<R>::iodim> dims_, howmany_;
  bool copy_input_ = false;
  typename Fftw<R>::plan aligned_ = nullptr;
  mutable typename Fftw<R>::plan unaligned_ = nullptr;
  mutable std::once_flag unaligned_once_;
};

}  // namespace

FftPlan::FftPlan(FftKind kind, DType dtype, Shape shape, std::vector<std::int64_t> axes)
    : kind_(kind), dtype_(dtype), shape_(std::move(shape)) {
  const bool real = kind == FftKind::real_to_complex || kind == FftKind::complex_to_real;
  const std::string what = std::string("fft: a ") + fft_kind_name(kind) + " transform of shape " +
                           shape_string(shape_) + " along axes " + axes_string(axes);
  if (dtype != DType::f32 && dtype != DType::f64)
    throw DTypeError(what + " in " + std::string(dtype_name(dtype)) +
                     ": FFTW plans are float32 or float64 (the precision of the real values).");
  const auto rank = static_cast<std::int64_t>(shape_.size());
  for (std::int64_t n : shape_)
    if (n < 0) throw ShapeError(what + ": the sizes must be known and non-negative.");
  for (std::int64_t& a : axes) {
    if (a < -rank || a >= rank)
      throw ShapeError(what + ": axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank) +
                       " (expected -" + std::to_string(rank) + " <= axis < " + std::to_string(rank) + ").");
    if (a < 0) a += rank;
  }
  if (real && axes.empty())
    throw ValueError(what + ": a " + fft_kind_name(kind) + " transform needs at least one axis (the halved one).");
  const std::int64_t halved = real ? axes.back() : -1;
  std::vector<std::int64_t> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw ValueError(what + ": an axis is repeated; give each transformed axis once.");
  if (real) {
    sorted.erase(std::find(sorted.begin(), sorted.end(), halved));
    sorted.push_back(halved);
  }
  axes_ = std::move(sorted);

  Shape complex_shape = shape_;
  if (real) complex_shape[halved] = shape_[halved] / 2 + 1;
  input_shape_ = kind == FftKind::complex_to_real ? complex_shape : shape_;
  output_shape_ = kind == FftKind::real_to_complex ? complex_shape : shape_;

  auto [effort, effort_name] = planner_effort();
  effort_ = effort_name;
  const std::int64_t n = element_count(shape_);
  if (n == 0 || axes_.empty()) return;  // execute zeroes or copies
  threads_ = n >= fft_threads_min_elements ? std::max(1, omp_get_max_threads()) : 1;
  if (dtype == DType::f32) impl_ = std::make_unique<PlanOf<float>>(*this, effort);
  else impl_ = std::make_unique<PlanOf<double>>(*this, effort);
}

FftPlan::~FftPlan() = default;

std::int64_t FftPlan::halved_axis() const {
  return kind_ == FftKind::real_to_complex || kind_ == FftKind::complex_to_real ? axes_.back() : -1;
}

std::size_t FftPlan::input_bytes() const {
  return static_cast<std::size_t>(element_count(input_shape_)) * itemsize(dtype_) * (input_is_complex() ? 2 : 1);
}
std::size_t FftPlan::output_bytes() const {
  return static_cast<std::size_t>(element_count(output_shape_)) * itemsize(dtype_) * (output_is_complex() ? 2 : 1);
}

void FftPlan::execute(const void* in, void* out) const {
  if (impl_ != nullptr) {
    // FFTW's plans are out of place: the same buffer on both sides would need another plan.
    check_internal(in != out, "FftPlan::execute: `in` and `out` must be different buffers");
    return impl_->execute(in, out);
  }
  // No plan: an empty logical array (zeros: the empty sum) or no transformed axis (a copy).
  if (element_count(shape_) == 0) {
    if (output_bytes() > 0) std::memset(out, 0, output_bytes());
  } else {
    std::memmove(out, in, output_bytes());
  }
}

std::string FftPlan::describe() const {
  return "FFTW " + std::string(dtype_name(dtype_)) + " " + fft_kind_name(kind_) + " of " + shape_string(shape_) +
         " along axes " + axes_string(axes_) + ", " + effort_ + ", " + std::to_string(threads_) +
         (threads_ == 1 ? " thread" : " threads");
}

}  // namespace symx::ops

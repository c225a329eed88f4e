// FFTW 3 plans over raw buffers (runtime only, not installed): one FftPlan is one discrete Fourier
// transform of a C-contiguous float32 or float64 array along any of its axes, planned once (when a
// function is compiled) and executed many times, concurrently, on buffers the caller owns. The op
// layer (symx.fft) builds on it: the transforms are unnormalized as in FFTW, so the op scales.
//
// Complex buffers are interleaved (re, im) pairs: std::complex<float> / std::complex<double>, which
// have the layout of fftwf_complex / fftw_complex.
//
// Planning effort: FFTW_ESTIMATE (fast compiles) unless SYMX_FFTW_PLANNER=measure or patient, read
// at each construction; measuring plans run on scratch arrays, never on the caller's buffers.
// Transforms of at least fft_threads_min_elements elements plan with OpenMP's thread count at
// construction time (libfftw3_omp); smaller ones run on the calling thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "symx/array.hpp"
#include "symx/dtype.hpp"

namespace symx::ops {

// Which transform a plan computes; none is normalized (a backward after a forward multiplies by the
// product of the transformed lengths).
enum class FftKind {
  forward,          // complex to complex, exp(-2 pi i jk/n)
  backward,         // complex to complex, exp(+2 pi i jk/n)
  real_to_complex,  // real to the half spectrum (forward sign); the halved axis keeps n/2+1 entries
  complex_to_real,  // half spectrum to real (backward sign); reads only the half spectrum
};

// "forward", "backward", "real_to_complex", "complex_to_real".
const char* fft_kind_name(FftKind kind);

// The element count from which a plan uses several threads (measured: see fft_plans.cpp).
constexpr std::int64_t fft_threads_min_elements = std::int64_t{1} << 16;

class FftPlan {
 public:
  // A plan for `kind` in `dtype` (DType::f32 or DType::f64: the precision of the real values)
  // over `shape`, the logical array: for forward and backward the complex array's shape, for
  // real_to_complex the real input's, for complex_to_real the real output's. `axes` (each in
  // [-rank, rank), no repeats, in any order) are the transformed axes; the others are a batch.
  // For real_to_complex and complex_to_real the last of `axes` as given is the halved axis (as in
  // numpy.fft.rfftn): the complex side has shape[halved] / 2 + 1 entries there; `axes` must then
  // not be empty. Throws DTypeError for another dtype, ShapeError for a bad axis, ValueError for an
  // unknown SYMX_FFTW_PLANNER or when FFTW cannot plan (naming the shape and axes).
  FftPlan(FftKind kind, DType dtype, Shape shape, std::vector<std::int64_t> axes);
  ~FftPlan();
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  // Transforms `in` (input_shape(), C-contiguous) into `out` (output_shape()); the buffers must
  // not overlap, and `in` is never written (complex_to_real copies it to a per-thread scratch
  // buffer where FFTW would overwrite it). Any alignment works (64-byte aligned buffers take the
  // faster plan). Safe to call from several threads at once with different `out` buffers. An
  // empty logical array writes zeros to whatever output there is (the empty sum).
  void execute(const void* in, void* out) const;

  FftKind kind() const { return kind_; }
  DType dtype() const { return dtype_; }
  // The logical shape, as given.
  const Shape& shape() const { return shape_; }
  // The transformed axes, non-negative: sorted, except that for real_to_complex and
  // complex_to_real the halved axis comes last.
  const std::vector<std::int64_t>& axes() const { return axes_; }
  // The halved axis (real_to_complex, complex_to_real), or -1.
  std::int64_t halved_axis() const;
  // The shapes of `in` and `out` in elements (complex elements on a complex side).
  const Shape& input_shape() const { return input_shape_; }
  const Shape& output_shape() const { return output_shape_; }
  // Whether each side holds complex elements.
  bool input_is_complex() const { return kind_ != FftKind::real_to_complex; }
  bool output_is_complex() const { return kind_ != FftKind::complex_to_real; }
  std::size_t input_bytes() const;
  std::size_t output_bytes() const;
  // The thread count the plan was made with (1 for small transforms and empty arrays).
  int threads() const { return threads_; }
  // E.g. "FFTW float32 real_to_complex of (256, 65536) along axes (1), estimate, 2 threads".
  std::string describe() const;

  class Impl;

 private:
  FftKind kind_;
  DType dtype_;
  Shape shape_;
  std::vector<std::int64_t> axes_;
  Shape input_shape_, output_shape_;
  int threads_ = 1;
  std::string effort_;
  std::unique_ptr<Impl> impl_;  // null for an empty array or a copy (no transformed axis)
};

}  // namespace symx::ops

// symx/fft.hpp: discrete Fourier transforms (symx::fft, Python's symx.fft), with numpy.fft's signatures,
// axes, sizes (any n, not only powers of two) and norms ("backward", the default: only the inverse is
// scaled by 1/n; "ortho": both by 1/sqrt(n); "forward": only the forward one by 1/n).
//
// One primitive, Fft (unnormalized, as FFTW's transforms), computes them all: complex to complex over
// any axes, real to complex over any axes, and complex to real along one axis (irfftn is the inverse
// complex transforms over the other axes, then irfft along the last, as numpy.fft.irfftn). Compiled
// functions run FFTW 3 plans made once per shape when the function is compiled. Inputs are complex64
// or complex128 (real inputs of fft/ifft are converted, float32 to complex64); rfft takes float32 or
// float64 (integers become float32). A size n crops or zero-pads the input along its axis first.
// Gradients follow JAX's convention for complex numbers (see symx/ops.hpp), and second derivatives
// come from the same transforms.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "symx/ops.hpp"

namespace symx::fft {

// ---- one axis ----
// The discrete Fourier transform along `axis`, as numpy.fft.fft: sum_k a_k exp(-2 pi i j k / n).
// n: the length transformed (the input cropped or zero-padded to it; default the axis' length).
// Example: fft::fft(constant(Array::from_vector<float>({1, 0, 0, 0}, {4}))).eval() is [1, 1, 1, 1] (complex64)
// Python: sx.fft.fft([1.0, 0.0, 0.0, 0.0]).eval() is [1+0j, 1+0j, 1+0j, 1+0j]
Tensor fft(const Tensor& a, std::optional<std::int64_t> n = std::nullopt, int axis = -1,
           const std::string& norm = "backward", Loc loc = Loc::current());
// The inverse of fft along `axis`, as numpy.fft.ifft (scaled by 1/n by default).
// Example: fft::ifft(fft::fft(x)) is x (as complex)
// Python: sx.fft.ifft(sx.fft.fft(x)) is x (as complex)
Tensor ifft(const Tensor& a, std::optional<std::int64_t> n = std::nullopt, int axis = -1,
            const std::string& norm = "backward", Loc loc = Loc::current());
// The transform of a real input, its n/2 + 1 non-negative frequencies, as numpy.fft.rfft.
// Example: fft::rfft(x) of x of shape (8,) has shape (5,)
// Python: sx.fft.rfft(np.ones(8, np.float32)).eval() is [8, 0, 0, 0, 0] (complex64)
Tensor rfft(const Tensor& a, std::optional<std::int64_t> n = std::nullopt, int axis = -1,
            const std::string& norm = "backward", Loc loc = Loc::current());
// The inverse of rfft, as numpy.fft.irfft: a real result of length n (default 2 (m - 1) for m input
// frequencies); the imaginary parts of the zero (and, n even, the n/2) frequency are ignored.
// Example: fft::irfft(fft::rfft(x), 8) is x for x of shape (8,)
// Python: sx.fft.irfft(sx.fft.rfft(x), 8) is x for x of shape (8,)
Tensor irfft(const Tensor& a, std::optional<std::int64_t> n = std::nullopt, int axis = -1,
             const std::string& norm = "backward", Loc loc = Loc::current());
// The transform of a Hermitian-symmetric signal given by its first half, a real result of length n
// (default 2 (m - 1)), as numpy.fft.hfft: irfft(conj(a), n) * n with the default norm.
// Example: fft::hfft(a, 4) of a = [1, 2, 3] is [8, -2, 0, -2]
// Python: sx.fft.hfft(np.array([1, 2, 3], np.complex64), 4).eval() is [8, -2, 0, -2]
Tensor hfft(const Tensor& a, std::optional<std::int64_t> n = std::nullopt, int axis = -1,
            const std::string& norm = "backward", Loc loc = Loc::current());
// The inverse of hfft, as numpy.fft.ihfft: conj(rfft(a, n)) / n with the default norm.
// Example: fft::ihfft(x) of x of shape (8,) has shape (5,)
// Python: sx.fft.ihfft(np.ones(4, np.float32)).eval() is [1, 0, 0] (complex64)
Tensor ihfft(const Tensor& a, std::optional<std::int64_t> n = std::nullopt, int axis = -1,
             const std::string& norm = "backward", Loc loc = Loc::current());

// ---- several axes ----
// The N-dimensional transform over `axes` (default: all, or the last len(s) when s is given), each
// cropped or zero-padded to its size in `s` (default: the input's), as numpy.fft.fftn.
// Example: fft::fftn(x) of x of shape (2, 3, 4) transforms all three axes
// Python: sx.fft.fftn(x, axes=(0, 2))
Tensor fftn(const Tensor& a, const std::vector<std::int64_t>& s = {}, std::optional<std::vector<int>> axes = {},
            const std::string& norm = "backward", Loc loc = Loc::current());
// The inverse of fftn, as numpy.fft.ifftn.
// Example: fft::ifftn(fft::fftn(x)) is x (as complex)
// Python: sx.fft.ifftn(sx.fft.fftn(x)) is x (as complex)
Tensor ifftn(const Tensor& a, const std::vector<std::int64_t>& s = {}, std::optional<std::vector<int>> axes = {},
             const std::string& norm = "backward", Loc loc = Loc::current());
// The N-dimensional transform of a real input (the last axis halved), as numpy.fft.rfftn.
// Example: fft::rfftn(x) of x of shape (4, 6) has shape (4, 4)
// Python: sx.fft.rfftn(np.ones((4, 6), np.float32)).shape is (4, 4)
Tensor rfftn(const Tensor& a, const std::vector<std::int64_t>& s = {}, std::optional<std::vector<int>> axes = {},
             const std::string& norm = "backward", Loc loc = Loc::current());
// The inverse of rfftn, as numpy.fft.irfftn: s gives the real result's sizes (default: the input's,
// the last axis 2 (m - 1)).
// Example: fft::irfftn(fft::rfftn(x), {4, 6}) is x for x of shape (4, 6)
// Python: sx.fft.irfftn(sx.fft.rfftn(x), (4, 6)) is x for x of shape (4, 6)
Tensor irfftn(const Tensor& a, const std::vector<std::int64_t>& s = {}, std::optional<std::vector<int>> axes = {},
              const std::string& norm = "backward", Loc loc = Loc::current());
// fftn over two axes (default the last two), as numpy.fft.fft2.
// Example: fft::fft2(x) is fft::fftn(x, {}, std::vector<int>{-2, -1})
// Python: sx.fft.fft2(x) is sx.fft.fftn(x, axes=(-2, -1))
Tensor fft2(const Tensor& a, const std::vector<std::int64_t>& s = {}, const std::vector<int>& axes = {-2, -1},
            const std::string& norm = "backward", Loc loc = Loc::current());
// ifftn over two axes, as numpy.fft.ifft2.
// Example: fft::ifft2(fft::fft2(x)) is x (as complex)
// Python: sx.fft.ifft2(sx.fft.fft2(x)) is x (as complex)
Tensor ifft2(const Tensor& a, const std::vector<std::int64_t>& s = {}, const std::vector<int>& axes = {-2, -1},
             const std::string& norm = "backward", Loc loc = Loc::current());
// rfftn over two axes, as numpy.fft.rfft2.
// Example: fft::rfft2(x) of x of shape (4, 6) has shape (4, 4)
// Python: sx.fft.rfft2(np.ones((4, 6), np.float32)).shape is (4, 4)
Tensor rfft2(const Tensor& a, const std::vector<std::int64_t>& s = {}, const std::vector<int>& axes = {-2, -1},
             const std::string& norm = "backward", Loc loc = Loc::current());
// irfftn over two axes, as numpy.fft.irfft2.
// Example: fft::irfft2(fft::rfft2(x), {4, 6}) is x for x of shape (4, 6)
// Python: sx.fft.irfft2(sx.fft.rfft2(x), (4, 6)) is x for x of shape (4, 6)
Tensor irfft2(const Tensor& a, const std::vector<std::int64_t>& s = {}, const std::vector<int>& axes = {-2, -1},
              const std::string& norm = "backward", Loc loc = Loc::current());

// ---- frequencies and shifts ----
// The sample frequencies of an n-point fft with sample spacing d, as numpy.fft.fftfreq:
// [0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d n); float32 by default.
// Example: fft::fftfreq(4).eval() is [0, 0.25, -0.5, -0.25]
// Python: sx.fft.fftfreq(4).eval() is [0, 0.25, -0.5, -0.25]
Tensor fftfreq(std::int64_t n, double d = 1.0, DType dtype = DType::f32, Loc loc = Loc::current());
// The n/2 + 1 non-negative sample frequencies of an n-point rfft, as numpy.fft.rfftfreq.
// Example: fft::rfftfreq(4).eval() is [0, 0.25, 0.5]
// Python: sx.fft.rfftfreq(4).eval() is [0, 0.25, 0.5]
Tensor rfftfreq(std::int64_t n, double d = 1.0, DType dtype = DType::f32, Loc loc = Loc::current());
// The zero frequency moved to the centre of `axes` (default all), as numpy.fft.fftshift (a roll by n/2).
// Example: fft::fftshift(fft::fftfreq(4)).eval() is [-0.5, -0.25, 0, 0.25]
// Python: sx.fft.fftshift(sx.fft.fftfreq(4)).eval() is [-0.5, -0.25, 0, 0.25]
Tensor fftshift(const Tensor& x, std::optional<std::vector<int>> axes = {}, Loc loc = Loc::current());
// The inverse of fftshift, as numpy.fft.ifftshift (a roll by -(n/2)).
// Example: fft::ifftshift(fft::fftshift(x)) is x
// Python: sx.fft.ifftshift(sx.fft.fftshift(x)) is x
Tensor ifftshift(const Tensor& x, std::optional<std::vector<int>> axes = {}, Loc loc = Loc::current());

}  // namespace symx::fft

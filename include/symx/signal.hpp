// symx/signal.hpp: signal processing (symx::signal, Python's symx.signal): SymJAX's tensor.signal module,
// with SciPy's signatures where SciPy has the function (scipy.signal, scipy.fft).
//
// Windows are constants computed in double (their length and parameters are numbers, as NumPy's and
// SciPy's). Everything else is a composite of graph ops, so that it fuses, differentiates and compiles
// as the ops it is made of: the convolutions are the nn convolution primitive (oneDNN for float32), or
// rfftn/irfftn for large inputs, the patches and pooling are strided slices, the DCT is a product with the transform's
// cosine matrix. The transforms over the FFT (stft, istft, spectrogram, hilbert, the mel spectrogram and MFCCs, the
// Morlet wavelets) frame the signal with a take of constant indices and call symx::fft, so that they
// differentiate through its VJPs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "symx/array.hpp"
#include "symx/ops.hpp"

namespace symx::signal {

// ---- windows ----
// The Hann window of M points, as scipy.signal.windows.hann (sym=false: the periodic window, for spectral
// analysis); float32 by default, (M,) (empty for M = 0, [1] for M = 1).
// Example: signal::hann(5).eval() is [0, 0.5, 1, 0.5, 0]
// Python: sx.signal.hann(5).eval() is [0, 0.5, 1, 0.5, 0]
Tensor hann(std::int64_t M, bool sym = true, DType dtype = DType::f32, Loc loc = Loc::current());
// NumPy's name of the symmetric Hann window, numpy.hanning(M): hann(M).
// Example: signal::hanning(3).eval() is [0, 1, 0]
// Python: sx.signal.hanning(3).eval() is [0, 1, 0]
Tensor hanning(std::int64_t M, DType dtype = DType::f32, Loc loc = Loc::current());
// The Hamming window 0.54 - 0.46 cos(2 pi n / (M - 1)), as scipy.signal.windows.hamming (numpy.hamming).
// Example: signal::hamming(3).eval() is [0.08, 1, 0.08]
// Python: sx.signal.hamming(3).eval() is [0.08, 1, 0.08]
Tensor hamming(std::int64_t M, bool sym = true, DType dtype = DType::f32, Loc loc = Loc::current());
// The Blackman window, as scipy.signal.windows.blackman (numpy.blackman); exact zeros at the ends.
// Example: signal::blackman(3).eval() is [0, 1, 0]
// Python: sx.signal.blackman(3).eval() is [0, 1, 0]
Tensor blackman(std::int64_t M, bool sym = true, DType dtype = DType::f32, Loc loc = Loc::current());
// The triangular Bartlett window, as scipy.signal.windows.bartlett (numpy.bartlett).
// Example: signal::bartlett(5).eval() is [0, 0.5, 1, 0.5, 0]
// Python: sx.signal.bartlett(5).eval() is [0, 0.5, 1, 0.5, 0]
Tensor bartlett(std::int64_t M, bool sym = true, DType dtype = DType::f32, Loc loc = Loc::current());
// The Kaiser window i0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / i0(beta), as scipy.signal.windows.kaiser
// (numpy.kaiser(M, beta)); beta >= 0.
// Example: signal::kaiser(3, 0).eval() is [1, 1, 1]
// Python: sx.signal.kaiser(3, 0.0).eval() is [1, 1, 1]
Tensor kaiser(std::int64_t M, double beta, bool sym = true, DType dtype = DType::f32, Loc loc = Loc::current());
// The Tukey (tapered cosine) window, as scipy.signal.windows.tukey: alpha, the tapered fraction, in [0, 1]
// (0 a rectangle, 1 the Hann window).
// Example: signal::tukey(5, 1.0).eval() is [0, 0.5, 1, 0.5, 0]
// Python: sx.signal.tukey(5, alpha=1.0).eval() is [0, 0.5, 1, 0.5, 0]
Tensor tukey(std::int64_t M, double alpha = 0.5, bool sym = true, DType dtype = DType::f32, Loc loc = Loc::current());
// A window by name, as scipy.signal.get_window(window, Nx, fftbins=True): "hann" (or "hanning"),
// "hamming", "blackman", "bartlett", "boxcar" (ones), "kaiser" (its beta as `param`, needed) and "tukey"
// (its alpha as `param`, 0.5 by default); fftbins=true gives the periodic window (sym=false). Nx >= 1. In Python the
// window may also be a tuple, ("kaiser", 8.6), as SciPy's.
// Example: signal::get_window("hann", 4).eval() is [0, 0.5, 1, 0.5]
// Python: sx.signal.get_window("hann", 4).eval() is [0, 0.5, 1, 0.5]
Tensor get_window(const std::string& window, std::int64_t Nx, std::optional<double> param = std::nullopt,
                  bool fftbins = true, DType dtype = DType::f32, Loc loc = Loc::current());

// ---- convolution and correlation ----
// The N-dimensional convolution of in1 and in2, as scipy.signal.convolve (the direct sum, or through the
// FFT when both inputs have 64 elements or more and n m > 2^20, as SciPy's method="auto"): mode "full"
// (every overlap), "same" (in1's shape, centered as SciPy's) or "valid" (full overlaps only; one input
// must be at least as large as the other on every axis). Both inputs have the same number of dimensions
// (1 to 3); float inputs keep their promoted dtype, integers are computed in float64 and rounded back.
// Example: signal::convolve([1, 2, 3], [0, 1, 0.5]).eval() is [0, 1, 2.5, 4, 1.5]
// Python: sx.signal.convolve(sx.constant([1.0, 2, 3]), sx.constant([0.0, 1, 0.5])).eval() is [0, 1, 2.5, 4, 1.5]
Tensor convolve(const Tensor& in1, const Tensor& in2, const std::string& mode = "full", Loc loc = Loc::current());
// The N-dimensional cross-correlation of in1 and in2, as scipy.signal.correlate:
// z[k] = sum_l in1[l] in2[l - k + N - 1] (real inputs), modes as convolve.
// Example: signal::correlate([1, 2, 3], [0, 1, 0.5]).eval() is [0.5, 2, 3.5, 3, 0]
// Python: sx.signal.correlate(sx.constant([1.0, 2, 3]), sx.constant([0.0, 1, 0.5])).eval() is [0.5, 2, 3.5, 3, 0]
Tensor correlate(const Tensor& in1, const Tensor& in2, const std::string& mode = "full", Loc loc = Loc::current());
// The 2-D convolution of 2-D in1 and in2, as scipy.signal.convolve2d: modes as convolve, boundary
// "fill" (fillvalue beyond the edges), "wrap" (periodic) or "symm" (mirrored, the edge repeated).
// Example: signal::convolve2d(x, k, "same", "symm") of x (32, 32) and k (3, 3) has shape (32, 32)
// Python: sx.signal.convolve2d(x, k, mode="same", boundary="symm") of x (32, 32) and k (3, 3) is (32, 32)
Tensor convolve2d(const Tensor& in1, const Tensor& in2, const std::string& mode = "full",
                  const std::string& boundary = "fill", double fillvalue = 0, Loc loc = Loc::current());
// The 2-D cross-correlation of 2-D in1 and in2, as scipy.signal.correlate2d; arguments as convolve2d.
// Example: signal::correlate2d(x, k, "valid") of x (32, 32) and k (3, 3) has shape (30, 30)
// Python: sx.signal.correlate2d(x, k, mode="valid") of x (32, 32) and k (3, 3) is (30, 30)
Tensor correlate2d(const Tensor& in1, const Tensor& in2, const std::string& mode = "full",
                   const std::string& boundary = "fill", double fillvalue = 0, Loc loc = Loc::current());
// SymJAX's batch_convolve (jax.lax.conv_general_dilated): the cross-correlation of a batch `input` with
// `filter`, 1 or 2 spatial axes. strides: one per spatial axis (or one for all); padding "VALID", "SAME"
// or (low, high) pairs; formats: input_format/output_format "NCW"/"NCHW" (or with C last, "NWC"/"NHWC"),
// filter_format "OIW"/"OIHW" (or "WIO"/"HWIO"); input_dilation inserts input_dilation - 1 zeros between
// the input's samples (a transposed convolution), filter_dilation spaces the filter's taps.
// Example: signal::batch_convolve(x, w) of x (8, 3, 100) and w (16, 3, 5) has shape (8, 16, 96)
// Python: sx.signal.batch_convolve(x, w) of x (8, 3, 100) and w (16, 3, 5) has shape (8, 16, 96)
Tensor batch_convolve(const Tensor& input, const Tensor& filter, std::vector<std::int64_t> strides = {1},
                      const nn::Padding& padding = {}, const std::string& input_format = "",
                      const std::string& filter_format = "", const std::string& output_format = "",
                      std::vector<std::int64_t> input_dilation = {}, std::vector<std::int64_t> filter_dilation = {},
                      Loc loc = Loc::current());
// SymJAX's batch_convolve_transpose (jax.lax.conv_transpose): the gradient of batch_convolve with
// respect to its input, as a convolution of the input dilated by `strides` with padding
// "VALID"/"SAME" as JAX computes it (or explicit pairs for that dilated convolution); transpose_kernel
// flips the filter's spatial axes and swaps O and I, as JAX's. Formats as batch_convolve.
// Example: signal::batch_convolve_transpose(x, w, {2}) of x (1, 4, 10) and w (3, 4, 3) has shape (1, 3, 21)
// Python: sx.signal.batch_convolve_transpose(x, w, strides=2) of x (1, 4, 10) and w (3, 4, 3) is (1, 3, 21)
Tensor batch_convolve_transpose(const Tensor& input, const Tensor& filter, std::vector<std::int64_t> strides = {1},
                                const nn::Padding& padding = {}, const std::string& input_format = "",
                                const std::string& filter_format = "", const std::string& output_format = "",
                                std::vector<std::int64_t> filter_dilation = {}, bool transpose_kernel = false,
                                Loc loc = Loc::current());

// ---- patches and pooling ----
// Windows of window_length samples every `hop` samples along the last axis, as SymJAX's
// extract_signal_patches: a signal (W,), (N, W) or (N, C, W) gives (P, L), (N, P, L) or (N, C, P, L)
// with P = (W - L) / hop + 1 (data_format "NCW" only).
// Example: signal::extract_signal_patches(arange(0, 6), 3, 2).eval() is [[0, 1, 2], [2, 3, 4]]
// Python: sx.signal.extract_signal_patches(sx.arange(6), 3, hop=2).eval() is [[0, 1, 2], [2, 3, 4]]
Tensor extract_signal_patches(const Tensor& signal, std::int64_t window_length, std::int64_t hop = 1,
                              const std::string& data_format = "NCW", Loc loc = Loc::current());
// The patches of window_shape (kh, kw) of images (N, C, H, W) ("channel_first") or (N, H, W, C)
// ("channel_last"), every `strides` pixels, as SymJAX's extract_image_patches (JAX's
// conv_general_dilated_patches): (N, H', W', C, kh, kw), or (N, H', W', C * kh * kw) with flatten_patch
// (the channel slowest, as JAX's); padding "valid" or "same" (zeros).
// Example: signal::extract_image_patches(x, {2, 2}, {2, 2}) of x (1, 3, 4, 4) has shape (1, 2, 2, 3, 2, 2)
// Python: sx.signal.extract_image_patches(x, (2, 2), strides=(2, 2)) of x (1, 3, 4, 4) is (1, 2, 2, 3, 2, 2)
Tensor extract_image_patches(const Tensor& image, std::vector<std::int64_t> window_shape,
                             std::vector<std::int64_t> strides = {1}, const std::string& data_format = "channel_first",
                             const std::string& padding = "valid", bool flatten_patch = false,
                             Loc loc = Loc::current());
// Pooling over windows of any axes, as SymJAX's pool (jax.lax.reduce_window): window_shape has one entry
// per axis of input (1 for an axis left alone); reducer "MAX", "AVG" (the window's mean, padding
// included as JAX's) or "SUM"; strides default to the window; padding "VALID", "SAME" (as JAX's: the
// output is ceil(n / stride)) or (low, high) pairs; window_dilation spaces the window's taps,
// base_dilation inserts base_dilation - 1 cells between the input's (padding value: -inf for MAX, 0
// otherwise).
// Example: signal::pool(x, {1, 2, 2}) of x (3, 8, 8) has shape (3, 4, 4)
// Python: sx.signal.pool(x, (1, 2, 2)) of x (3, 8, 8) has shape (3, 4, 4)
Tensor pool(const Tensor& input, std::vector<std::int64_t> window_shape, const std::string& reducer = "MAX",
            std::vector<std::int64_t> strides = {}, const nn::Padding& padding = {},
            std::vector<std::int64_t> base_dilation = {}, std::vector<std::int64_t> window_dilation = {},
            Loc loc = Loc::current());

// ---- transforms ----
// The discrete cosine transform of `type` 1 to 4 along `axis`, as scipy.fft.dct: n pads with zeros or
// truncates the axis; norm "backward" (or empty: no scaling), "ortho" (an orthonormal transform) or
// "forward" (scaled by 1 / (2 N), or 1 / (2 (N - 1)) for type 1). Computed as a product with the
// transform's cosine matrix (N^2 multiply-adds per row).
// Example: signal::dct(constant(std::vector<double>{1, 2, 3})).eval() is [12, -3.4641, 0]
// Python: sx.signal.dct(sx.constant([1.0, 2, 3])).eval() is [12, -3.4641, 0]
Tensor dct(const Tensor& x, int type = 2, std::optional<std::int64_t> n = std::nullopt, int axis = -1,
           const std::string& norm = "backward", Loc loc = Loc::current());
// The inverse of dct (scipy.fft.idct): idct of type 2 is a dct of type 3, and idct(dct(x)) is x for the
// same type and norm.
// Example: signal::idct(signal::dct(x)) is x
// Python: sx.signal.idct(sx.signal.dct(x)) is x
Tensor idct(const Tensor& x, int type = 2, std::optional<std::int64_t> n = std::nullopt, int axis = -1,
            const std::string& norm = "backward", Loc loc = Loc::current());

// ---- filter banks and scales (SymJAX's) ----
// The hat (triangle) basis function of knots t_left < t_center < t_right sampled at x: 0 left of
// t_left, rising to 1 at t_center, back to 0 at t_right and beyond (SymJAX's sum of three ReLUs, written
// piecewise so that it is exactly 0 outside; knots that coincide give a zero slope rather than a division by
// zero). At a knot the gradient is the slope on its left. Operands broadcast.
// Example: signal::hat_1D(x, 0.0, 1.0, 2.0) of x = [0, 0.5, 1, 1.5, 2] is [0, 0.5, 1, 0.5, 0]
// Python: sx.signal.hat_1D(sx.constant([0.0, 0.5, 1, 1.5, 2]), 0.0, 1.0, 2.0).eval() is [0, 0.5, 1, 0.5, 0]
Tensor hat_1D(const Tensor& x, const Operand& t_left, const Operand& t_center, const Operand& t_right,
              Loc loc = Loc::current());
// Frequencies of bins as SymJAX's bin_to_freq: bins / max(bins) * max_f.
// Example: signal::bin_to_freq(arange(0, 5), 100.0).eval() is [0, 25, 50, 75, 100]
// Python: sx.signal.bin_to_freq(sx.arange(5), 100.0).eval() is [0, 25, 50, 75, 100]
Tensor bin_to_freq(const Tensor& bins, double max_f, Loc loc = Loc::current());
// The bin of each frequency as SymJAX's freq_to_bin: int32(freq / ((fmax - fmin) / n_bins)), truncated.
// Example: signal::freq_to_bin(constant(std::vector<double>{0, 260}), 10, 0.0, 1000.0).eval() is [0, 2]
// Python: sx.signal.freq_to_bin(sx.constant([0.0, 260]), 10, 0.0, 1000.0).eval() is [0, 2]
Tensor freq_to_bin(const Tensor& freq, std::int64_t n_bins, double fmin, double fmax, Loc loc = Loc::current());
// Hertz to mels, as SymJAX's freq_to_mel: option "linear" is Slaney's scale (librosa's htk=False: linear
// below 1 kHz, logarithmic above), any other option the HTK formula 2595 log10(1 + f / 700).
// Example: signal::freq_to_mel(constant(std::vector<double>{1000})).eval() is [15]
// Python: sx.signal.freq_to_mel(sx.constant([1000.0])).eval() is [15]
Tensor freq_to_mel(const Tensor& f, const std::string& option = "linear", Loc loc = Loc::current());
// Mels to hertz, the inverse of freq_to_mel for the same option.
// Example: signal::mel_to_freq(constant(std::vector<double>{15})).eval() is [1000]
// Python: sx.signal.mel_to_freq(sx.constant([15.0])).eval() is [1000]
Tensor mel_to_freq(const Tensor& m, const std::string& option = "linear", Loc loc = Loc::current());
// A power spectrogram in decibels, 10 log10(max(amin, S) / max(amin, |ref|)), clipped to top_db below its
// peak when top_db is given (librosa's power_to_db, as SymJAX's); top_db must be >= 0.
// Example: signal::power_to_db(constant(std::vector<double>{1, 10, 100})).eval() is [0, 10, 20]
// Python: sx.signal.power_to_db(sx.constant([1.0, 10, 100])).eval() is [0, 10, 20]
Tensor power_to_db(const Tensor& S, double ref = 1.0, double amin = 1e-10, std::optional<double> top_db = 80.0,
                   Loc loc = Loc::current());
// The band-pass sinc filter f0 sinc(f0 t) - f1 sinc(f1 t) sampled at `time`, as SymJAX's sinc_bandpass.
// Numbers take time's dtype (float32 for integer times), tensors are cast to it.
// Example: signal::sinc_bandpass(arange(-8, 9), 0.2, 0.4) has shape (17,)
// Python: sx.signal.sinc_bandpass(sx.arange(-8, 9), 0.2, 0.4) has shape (17,)
Tensor sinc_bandpass(const Tensor& time, const Operand& f0, const Operand& f1, Loc loc = Loc::current());
// SymJAX's mel_filterbank: n_filter triangular filters over `length` frequency bins (0 to nyquist),
// their peaks evenly spaced in mels between low and high (hertz): (n_filter, length), float32.
// Example: signal::mel_filterbank(257, 40, 0.0, 8000.0, 8000.0) has shape (40, 257)
// Python: sx.signal.mel_filterbank(257, 40, 0.0, 8000.0, 8000.0) has shape (40, 257)
Tensor mel_filterbank(std::int64_t length, std::int64_t n_filter, double low, double high, double nyquist,
                      Loc loc = Loc::current());
// The Gaussian band-pass responses exp(-(w - centers)^2 bandwidths^2 / 4) on N frequencies w from 0 to
// 2 pi, zero above pi (an analytic filter), as SymJAX's fourier_complex_morlet; bandwidths and centers
// broadcast against the (N,) frequency axis (e.g. (J, 1) each for a bank of J filters).
// Example: signal::fourier_complex_morlet(b, c, 512) of b, c (8, 1) has shape (8, 512)
// Python: sx.signal.fourier_complex_morlet(b, c, 512) of b, c (8, 1) has shape (8, 512)
Tensor fourier_complex_morlet(const Tensor& bandwidths, const Tensor& centers, std::int64_t N,
                              Loc loc = Loc::current());
// Littlewood-Paley normalization of a filter bank (J, N) in frequency, as SymJAX's: each filter divided
// by sum_j |filter_j| at the frequencies of [down, up] (radians, frequencies 0 to 2 pi on the N bins;
// default 0 to pi), by 1 elsewhere.
// Example: signal::littewood_paley_normalization(bank) of bank (8, 512) has shape (8, 512)
// Python: sx.signal.littewood_paley_normalization(bank) of bank (8, 512) has shape (8, 512)
Tensor littewood_paley_normalization(const Tensor& filter_bank, std::optional<double> down = std::nullopt,
                                     std::optional<double> up = std::nullopt, Loc loc = Loc::current());

// ---- transforms over the FFT (symx/fft.hpp) ----
// A window for the spectral functions: a name with its optional parameter ("hann", {"kaiser", 8.6}, as
// get_window's, periodic), or its values (their length is nperseg).
struct WindowSpec {
  std::string name = "hann";
  std::optional<double> param;
  std::optional<Array> values;
  WindowSpec() = default;
  WindowSpec(const char* n) : name(n) {}                                                               // NOLINT
  WindowSpec(std::string n, std::optional<double> p = std::nullopt) : name(std::move(n)), param(p) {}  // NOLINT
  WindowSpec(Array v) : values(std::move(v)) {}                                                        // NOLINT
};
// The sample frequencies f, the segment times t (float64, as SciPy's) and the transform Z of stft and
// spectrogram; Z has its frequency axis at `axis` and the segments last, as SciPy's.
struct Spectrum {
  Tensor f, t, Z;
};
// The short-time Fourier transform, as scipy.signal.stft: segments of nperseg samples (noverlap shared,
// default nperseg / 2) times the window, each transformed with rfft (fft for complex x or
// return_onesided=false) of nfft points; boundary "zeros" (or "" for none) pads nperseg / 2 zeros at
// both ends, padded pads the end to whole segments; detrend "" or "constant"; scaling "spectrum" (1 /
// sum(window)) or "psd" (1 / sqrt(fs sum(window^2))). SymJAX's stft is this with its arguments renamed.
// Example: signal::stft(x, 1.0, "hann", 64).Z of x (1000,) float32 is (33, 33) complex64
// Python: f, t, Z = sx.signal.stft(x, nperseg=64) gives Z (33, 33) complex64 for x (1000,) float32
Spectrum stft(const Tensor& x, double fs = 1.0, const WindowSpec& window = "hann",
              std::optional<std::int64_t> nperseg = 256, std::optional<std::int64_t> noverlap = std::nullopt,
              std::optional<std::int64_t> nfft = std::nullopt, const std::string& detrend = "",
              bool return_onesided = true, const std::string& boundary = "zeros", bool padded = true, int axis = -1,
              const std::string& scaling = "spectrum", Loc loc = Loc::current());
// The inverse of stft by weighted overlap-add, as scipy.signal.istft: returns (t, x); Z's frequency and
// segment axes are freq_axis and time_axis. A window and noverlap that break the NOLA condition (the
// shifted squared windows sum to zero somewhere, so no inverse exists) are a ValueError.
// Example: signal::istft(signal::stft(x, 1.0, "hann", 64).Z, 1.0, "hann", 64).second is x
// Python: t, y = sx.signal.istft(sx.signal.stft(x, nperseg=64)[2], nperseg=64) gives x back
std::pair<Tensor, Tensor> istft(const Tensor& Zxx, double fs = 1.0, const WindowSpec& window = "hann",
                                std::optional<std::int64_t> nperseg = std::nullopt,
                                std::optional<std::int64_t> noverlap = std::nullopt,
                                std::optional<std::int64_t> nfft = std::nullopt, bool input_onesided = true,
                                bool boundary = true, int time_axis = -1, int freq_axis = -2,
                                const std::string& scaling = "spectrum", Loc loc = Loc::current());
// A spectrogram, as scipy.signal.spectrogram (window ("tukey", 0.25), nperseg 256, noverlap nperseg / 8,
// detrend "constant", no boundary or padding): mode "psd" (|Z|^2 scaled, one-sided bins doubled),
// "magnitude" (|Z|), "complex" (Z) or "angle"; scaling "density" or "spectrum".
// Example: signal::spectrogram(x, 1.0, {"tukey", 0.25}, 64).Z of x (1000,) is (33, 17)
// Python: f, t, S = sx.signal.spectrogram(x, nperseg=64) gives S (33, 17) for x (1000,)
Spectrum spectrogram(const Tensor& x, double fs = 1.0, const WindowSpec& window = {"tukey", 0.25},
                     std::optional<std::int64_t> nperseg = std::nullopt,
                     std::optional<std::int64_t> noverlap = std::nullopt,
                     std::optional<std::int64_t> nfft = std::nullopt, const std::string& detrend = "constant",
                     bool return_onesided = true, const std::string& scaling = "density", int axis = -1,
                     const std::string& mode = "psd", Loc loc = Loc::current());
// The analytic signal x + i H(x), as scipy.signal.hilbert: the FFT along axis (cropped or zero-padded to
// N), negative frequencies zeroed and positive ones doubled, the inverse FFT; complex64 for float32 x.
// Example: signal::hilbert(x) of x (128,) float64 is (128,) complex128 with real part x
// Python: sx.signal.hilbert(x) of x (128,) float64 is (128,) complex128 with real part x
Tensor hilbert(const Tensor& x, std::optional<std::int64_t> N = std::nullopt, int axis = -1, Loc loc = Loc::current());
// SymJAX's name of hilbert.
// Example: signal::hilbert_transform(x) is signal::hilbert(x)
// Python: sx.signal.hilbert_transform(x) is sx.signal.hilbert(x)
Tensor hilbert_transform(const Tensor& signal, std::optional<std::int64_t> N = std::nullopt, int axis = -1,
                         Loc loc = Loc::current());
// SymJAX's morlet (scipy.signal.morlet's complete wavelet): x = linspace(-2 pi, 2 pi, M) s and
// pi^-0.25 (exp(i w x) - exp(-w^2 / 2)) exp(-x^2 / 2); s and w numbers or tensors (differentiable);
// complex64 (complex128 for dtype float64).
// Example: signal::morlet(64).shape() is (64,) (complex64)
// Python: sx.signal.morlet(64, 1.0).shape is (64,) (complex64)
Tensor morlet(std::int64_t M, const Operand& s = 1.0, const Operand& w = 5.0, DType dtype = DType::f32,
              Loc loc = Loc::current());
// SymJAX's complex_morlet: exp(-(time / bandwidths)^2) exp(i centers time), bandwidths and centers
// broadcast against time; without time, linspace(-(B // 2), B // 2, B) for B = 6 max(bandwidths) + 1
// (bandwidths must then be a constant).
// Example: signal::complex_morlet(b, c) of constant b, c (8, 1) is (8, int(6 max(b) + 1))
// Python: sx.signal.complex_morlet(b, 1 / b) of a constant b (8, 1) is (8, int(6 max(b) + 1))
Tensor complex_morlet(const Tensor& bandwidths, const Tensor& centers, std::optional<Tensor> time = std::nullopt,
                      Loc loc = Loc::current());
// librosa.filters.mel: (n_mels, 1 + n_fft / 2) triangular filters with edges evenly spaced in mels
// (Slaney's scale, or HTK's), each of unit area with norm "slaney" ("" for peaks of 1); a constant.
// Example: signal::mel_filters(22050, 2048).shape() is (128, 1025)
// Python: sx.signal.mel_filters(22050, 2048).shape is (128, 1025)
Tensor mel_filters(double sr, std::int64_t n_fft, std::int64_t n_mels = 128, double fmin = 0,
                   std::optional<double> fmax = std::nullopt, bool htk = false, const std::string& norm = "slaney",
                   DType dtype = DType::f32, Loc loc = Loc::current());
// librosa.feature.melspectrogram of a signal: mel_filters times |stft|^power, librosa's stft (frames of
// n_fft samples every hop_length, centered by n_fft / 2 zeros at each end, the periodic window of
// win_length samples centred in n_fft, no scaling); (..., n_mels, frames).
// Example: signal::melspectrogram(y, 16000, 512, 128) of y (4000,) with n_mels 40 is (40, 32)
// Python: sx.signal.melspectrogram(y, sr=16000, n_fft=512, hop_length=128, n_mels=40) of y (4000,) is (40, 32)
Tensor melspectrogram(const Tensor& y, double sr = 22050, std::int64_t n_fft = 2048, std::int64_t hop_length = 512,
                      std::optional<std::int64_t> win_length = std::nullopt, const WindowSpec& window = "hann",
                      bool center = true, double power = 2.0, std::int64_t n_mels = 128, double fmin = 0,
                      std::optional<double> fmax = std::nullopt, bool htk = false, const std::string& norm = "slaney",
                      Loc loc = Loc::current());
// librosa.feature.mfcc of a log-power mel spectrogram S (..., n_mels, frames) (power_to_db of
// melspectrogram): its DCT (dct_type, norm) along the mel axis, the first n_mfcc coefficients, liftered
// by 1 + (lifter / 2) sin(pi k / lifter) when lifter > 0. Python's mfcc(y, sr, ...) computes S first.
// Example: signal::mfcc(power_to_db(signal::melspectrogram(y, 16000)), 13) has 13 coefficients per frame
// Python: sx.signal.mfcc(y, sr=16000, n_mfcc=13, n_fft=512, hop_length=128, n_mels=40) of y (4000,) is (13, 32)
Tensor mfcc(const Tensor& S, std::int64_t n_mfcc = 20, int dct_type = 2, const std::string& norm = "ortho",
            double lifter = 0, Loc loc = Loc::current());
// A time-stretched STFT, as librosa.phase_vocoder (SymJAX's phase_vocoder): D (..., bins, frames)
// complex, frames sampled every `rate` (> 1 faster), magnitudes interpolated linearly, phases advanced
// by the expected advance plus the wrapped measured one; (..., bins, ceil(frames / rate)). hop_length
// defaults to n_fft / 4, n_fft to 2 (bins - 1).
// Example: signal::phase_vocoder(D, 2.0) of D (513, 100) complex is (513, 50)
// Python: sx.signal.phase_vocoder(D, 2.0) of D (513, 100) complex is (513, 50)
Tensor phase_vocoder(const Tensor& D, double rate, std::optional<std::int64_t> hop_length = std::nullopt,
                     std::optional<std::int64_t> n_fft = std::nullopt, Loc loc = Loc::current());
// SymJAX's wvd (a smoothed pseudo Wigner-Ville distribution): SymJAX's stft of signal (..., W) (frames of
// `window` samples every `hop` times numpy.hanning(window) (or `apod`, window values), an FFT of 2
// window points keeping the first window bins; mode "valid", "same" or "full" pads as SymJAX's), then per
// output bin (every second one) the real part of sum_k S[2f + k] conj(S[2f + 2L - k]) exp(i PI t freq_k)
// hanning(2L + 1)_k, PI = 2 * 3.14159 as SymJAX's; (..., ceil(window / 2), frames).
// Example: signal::wvd(x, 64, 16, 3) of x (2, 1, 1000) is (2, 1, 32, 59)
// Python: sx.signal.wvd(x, 64, 16, 3) of x (2, 1, 1000) is (2, 1, 32, 59)
Tensor wvd(const Tensor& signal, std::int64_t window, std::int64_t hop, std::int64_t L,
           std::optional<Array> apod = std::nullopt, const std::string& mode = "valid", Loc loc = Loc::current());

}  // namespace symx::signal

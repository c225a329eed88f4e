// The transforms of symx::signal over the FFT (symx/signal.hpp): stft, istft, spectrogram with
// scipy.signal's signatures and defaults, hilbert, the Morlet wavelets as SymJAX defines them, and
// librosa's mel filters, mel spectrogram and MFCCs. Composites: frames are a take of the constant
// (segments, nperseg) sample indices, windows constant multiplies, the transforms symx::fft's, istft's
// overlap-add one pad per chunk of the frames and a sum, so that everything differentiates through
// fft's VJPs. Windows and scale factors are computed in double, as SciPy's.
#include <cmath>
#include <numbers>

#include "ops/concrete.hpp"
#include "ops/op_table.hpp"
#include "symx/arrays.hpp"
#include "symx/fft.hpp"
#include "symx/signal.hpp"

namespace symx::signal {
namespace {

[[noreturn]] void fail(const char* fn, const std::string& what) { throw ValueError(std::string(fn) + ": " + what); }

DType real_of(DType d) { return d == DType::f32 || d == DType::c64 ? DType::f32 : DType::f64; }

std::vector<std::pair<std::int64_t, std::int64_t>> pad_last(int ndim, std::int64_t lo, std::int64_t hi) {
  std::vector<std::pair<std::int64_t, std::int64_t>> w(static_cast<std::size_t>(ndim), {0, 0});
  w.back() = {lo, hi};
  return w;
}

Tensor index_constant(const std::vector<std::int64_t>& values, Shape shape) {
  return constant(Array::from_vector<std::int64_t>(values, std::move(shape)));
}

Tensor real_constant(const std::vector<double>& values, Shape shape, DType dtype) {
  return constant(Array::from_vector<double>(values, std::move(shape)).astype(dtype));
}

// The indices start, start + 1, ..., stop - 1 as an int64 constant.
Tensor index_range(std::int64_t start, std::int64_t stop) {
  std::vector<std::int64_t> v;
  for (std::int64_t i = start; i < stop; ++i) v.push_back(i);
  return index_constant(v, {stop - start});
}

// `count` frames of n samples, every `hop`, along x's last axis: (..., count, n), one take of the
// constant (count, n) sample indices.
Tensor frames_of(const Tensor& x, std::int64_t count, std::int64_t n, std::int64_t hop, Loc loc) {
  std::vector<std::int64_t> idx;
  for (std::int64_t f = 0; f < count; ++f)
    for (std::int64_t k = 0; k < n; ++k) idx.push_back(f * hop + k);
  return take(x, index_constant(idx, {count, n}), x.ndim() - 1, loc);
}

// The values (double) of `window` for `length` samples: get_window's periodic window of that name, or
// the values given, which must be 1-D of that length (`what` names it in the error: "nperseg=64").
std::vector<double> window_of_length(const WindowSpec& window, std::int64_t length, const std::string& what,
                                     const char* fn, Loc loc) {
  if (!window.values)
    return std::get<ConstantAttr>(get_window(window.name, length, window.param, true, DType::f64, loc).node().attr)
        .value.to_vector();
  if (window.values->ndim() != 1 || window.values->size() != length)
    fail(fn, "window must have length " + what + " (a 1-D array), got shape " + shape_string(window.values->shape()));
  return window.values->to_vector();
}

// The window's values (double) and nperseg, as SciPy's _triage_segments.
std::vector<double> window_values(const WindowSpec& window, std::optional<std::int64_t>& nperseg,
                                  std::int64_t input_length, const char* fn, Loc loc) {
  if (!window.values) {
    std::int64_t n = nperseg.value_or(256);
    if (n > input_length) n = input_length;
    if (n < 1) fail(fn, "nperseg must be a positive integer, got " + std::to_string(n));
    nperseg = n;
    return window_of_length(window, n, "", fn, loc);
  }
  const Array& v = *window.values;
  if (v.ndim() != 1)
    fail(fn, "window must be 1-D, got shape " + shape_string(v.shape()) + "; pass a name or a 1-D array");
  if (input_length < v.size())
    fail(fn, "window (length " + std::to_string(v.size()) + ") is longer than the input signal (" +
                 std::to_string(input_length) + " samples)");
  if (!nperseg) nperseg = v.size();
  else if (*nperseg != v.size())
    fail(fn, "nperseg=" + std::to_string(*nperseg) + " is different from the length of window (" +
                 std::to_string(v.size()) + "); pass nperseg=len(window) or leave it out");
  return v.to_vector();
}

double sum_of(const std::vector<double>& v, bool squares) {
  double s = 0;
  for (double x : v) s += squares ? x * x : x;
  return s;
}

int normalized(int axis, int ndim, const char* fn) {
  if (axis < -ndim || axis >= ndim)
    throw ShapeError(std::string(fn) + ": axis " + std::to_string(axis) + " is out of range for a tensor with " +
                     std::to_string(ndim) + " dimensions. Use an axis in [" + std::to_string(-ndim) + ", " +
                     std::to_string(ndim) + ").");
  return axis < 0 ? axis + ndim : axis;
}

// scipy.signal's _spectral_helper for mode "stft" (scaled Z) and "psd".
Spectrum spectral(const char* fn, const Tensor& x_in, double fs, const WindowSpec& window,
                  std::optional<std::int64_t> nperseg, std::optional<std::int64_t> noverlap,
                  std::optional<std::int64_t> nfft_in, const std::string& detrend, bool return_onesided,
                  const std::string& scaling, int axis_in, bool psd, bool boundary, bool padded, Loc loc) {
  if (x_in.ndim() < 1) fail(fn, "x must have at least one axis, got a scalar");
  if (detrend != "" && detrend != "constant")
    fail(fn, "detrend must be '' (False) or 'constant', got '" + detrend + "'");
  if (scaling != "density" && scaling != "spectrum")
    fail(fn, "scaling must be 'density' or 'spectrum' (stft: 'psd' or 'spectrum'), got '" + scaling + "'");
  if (!(fs > 0) || !std::isfinite(fs)) fail(fn, "fs must be a positive sampling frequency");
  const bool is_complex_x = is_complex(x_in.dtype());
  const DType rdt = real_of(is_inexact(x_in.dtype()) ? x_in.dtype() : DType::f32);
  Tensor x = is_complex_x ? x_in : cast(x_in, rdt, loc);
  const int axis = normalized(axis_in, x.ndim(), fn);
  if (axis != x.ndim() - 1) x = moveaxis(x, {axis}, {-1}, loc);
  const std::int64_t n_in = x.shape().back();
  if (is_symbol(n_in)) fail(fn, "the signal's length must be known when the graph is built");
  std::vector<double> win = window_values(window, nperseg, n_in, fn, loc);
  const std::int64_t seg = *nperseg;
  const std::int64_t nfft = nfft_in.value_or(seg);
  if (nfft < seg)
    fail(fn,
         "nfft (" + std::to_string(nfft) + ") must be greater than or equal to nperseg (" + std::to_string(seg) + ")");
  const std::int64_t overlap = noverlap.value_or(seg / 2);
  if (overlap >= seg)
    fail(fn, "noverlap (" + std::to_string(overlap) + ") must be less than nperseg (" + std::to_string(seg) + ")");
  if (overlap < 0) fail(fn, "noverlap must be >= 0, got " + std::to_string(overlap));
  const std::int64_t step = seg - overlap;
  const int nd = x.ndim();
  if (boundary) x = pad(x, pad_last(nd, seg / 2, seg / 2), 0, loc);
  if (padded) {
    std::int64_t len = x.shape().back();
    std::int64_t nadd = (((-(len - seg)) % step + step) % step) % seg;
    if (nadd) x = pad(x, pad_last(nd, 0, nadd), 0, loc);
  }
  const std::int64_t length = x.shape().back();
  if (length < seg) fail(fn, "the signal is shorter than nperseg");
  const std::int64_t nseg = (length - seg) / step + 1;
  Tensor frames = frames_of(x, nseg, seg, step, loc);  // (..., nseg, nperseg)
  if (detrend == "constant") frames = frames - mean(frames, -1, true, loc);
  frames = frames * real_constant(win, {seg}, rdt);
  double scale = scaling == "density" ? 1.0 / (fs * sum_of(win, true)) : 1.0 / std::pow(sum_of(win, false), 2);
  if (!psd) scale = std::sqrt(scale);
  const bool onesided = return_onesided && !is_complex_x;
  Tensor result = onesided ? fft::rfft(frames, nfft, -1, "backward", loc) : fft::fft(frames, nfft, -1, "backward", loc);
  const std::int64_t bins = result.shape().back();
  std::vector<double> freqs(static_cast<std::size_t>(bins));
  for (std::int64_t i = 0; i < bins; ++i) {
    const std::int64_t k = onesided || i < (nfft + 1) / 2 ? i : i - nfft;
    freqs[static_cast<std::size_t>(i)] = static_cast<double>(k) * fs / static_cast<double>(nfft);
  }
  if (psd) {
    result = square(real(result, loc), loc) + square(imag(result, loc), loc);
    std::vector<double> factor(static_cast<std::size_t>(bins), scale);
    if (onesided) {
      const std::int64_t last = nfft % 2 ? bins : bins - 1;
      for (std::int64_t i = 1; i < last; ++i) factor[static_cast<std::size_t>(i)] *= 2;
    }
    result = result * real_constant(factor, {bins}, rdt);
  } else {
    result = result * scale;
  }
  std::vector<double> time;
  for (std::int64_t s = 0; s < nseg; ++s)
    time.push_back(
        (static_cast<double>(seg) / 2 + static_cast<double>(s * step) - (boundary ? static_cast<double>(seg) / 2 : 0)) /
        fs);
  // Z's frequency axis back at `axis`, its segments last.
  result = moveaxis(result, {-1}, {axis}, loc);
  return {constant(Array::from_vector<double>(freqs, {bins})), constant(Array::from_vector<double>(time, {nseg})),
          result};
}

}  // namespace

Spectrum stft(const Tensor& x, double fs, const WindowSpec& window, std::optional<std::int64_t> nperseg,
              std::optional<std::int64_t> noverlap, std::optional<std::int64_t> nfft, const std::string& detrend,
              bool return_onesided, const std::string& boundary, bool padded, int axis, const std::string& scaling,
              Loc loc) {
  if (scaling != "psd" && scaling != "spectrum")
    fail("stft", "scaling must be 'spectrum' or 'psd', got '" + scaling + "'");
  if (boundary != "zeros" && !boundary.empty())
    fail("stft", "boundary must be 'zeros' or None, got '" + boundary + "' (symx has no other extension)");
  return spectral("stft", x, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                  scaling == "psd" ? "density" : "spectrum", axis, false, !boundary.empty(), padded, loc);
}

Spectrum spectrogram(const Tensor& x, double fs, const WindowSpec& window, std::optional<std::int64_t> nperseg,
                     std::optional<std::int64_t> noverlap, std::optional<std::int64_t> nfft, const std::string& detrend,
                     bool return_onesided, const std::string& scaling, int axis, const std::string& mode, Loc loc) {
  if (mode != "psd" && mode != "magnitude" && mode != "complex" && mode != "angle")
    fail("spectrogram", "mode must be 'psd', 'magnitude', 'complex' or 'angle', got '" + mode + "'");
  if (x.ndim() < 1) fail("spectrogram", "x must have at least one axis, got a scalar");
  const std::int64_t n_in = x.shape()[static_cast<std::size_t>(normalized(axis, x.ndim(), "spectrogram"))];
  std::optional<std::int64_t> seg = nperseg;
  std::vector<double> win = window_values(window, seg, n_in, "spectrogram", loc);
  const std::int64_t overlap = noverlap.value_or(*seg / 8);
  Spectrum s = spectral("spectrogram", x, fs, Array::from_vector<double>(win, {*seg}), seg, overlap, nfft, detrend,
                        return_onesided, scaling, axis, mode == "psd", false, false, loc);
  if (mode == "magnitude") s.Z = abs(s.Z, loc);
  else if (mode == "angle") s.Z = angle(s.Z, false, loc);
  return s;
}

std::pair<Tensor, Tensor> istft(const Tensor& Zxx, double fs, const WindowSpec& window,
                                std::optional<std::int64_t> nperseg, std::optional<std::int64_t> noverlap,
                                std::optional<std::int64_t> nfft_in, bool input_onesided, bool boundary, int time_axis,
                                int freq_axis, const std::string& scaling, Loc loc) {
  const char* fn = "istft";
  const int nd = Zxx.ndim();
  if (nd < 2) fail(fn, "Zxx must have at least 2 axes (frequency, time), got shape " + shape_string(Zxx.shape()));
  Tensor Z = is_complex(Zxx.dtype()) ? Zxx : cast(Zxx, Zxx.dtype() == DType::f64 ? DType::c128 : DType::c64, loc);
  const int fa = normalized(freq_axis, nd, fn), ta = normalized(time_axis, nd, fn);
  if (fa == ta)
    fail(fn,
         "time_axis and freq_axis must differ, got " + std::to_string(time_axis) + " and " + std::to_string(freq_axis));
  if (scaling != "spectrum" && scaling != "psd") fail(fn, "scaling must be 'spectrum' or 'psd', got '" + scaling + "'");
  const std::int64_t nseg = Z.shape()[static_cast<std::size_t>(ta)];
  const std::int64_t bins = Z.shape()[static_cast<std::size_t>(fa)];
  const std::int64_t n_default = input_onesided ? 2 * (bins - 1) : bins;
  const std::int64_t seg = nperseg.value_or(n_default);
  if (seg < 1) fail(fn, "nperseg must be a positive integer, got " + std::to_string(seg));
  std::int64_t nfft = 0;
  if (!nfft_in) nfft = input_onesided && seg == n_default + 1 ? seg : n_default;
  else if (*nfft_in < seg)
    fail(fn, "nfft (" + std::to_string(*nfft_in) + ") must be greater than or equal to nperseg (" +
                 std::to_string(seg) + ")");
  else nfft = *nfft_in;
  const std::int64_t overlap = noverlap.value_or(seg / 2);
  if (overlap >= seg)
    fail(fn, "noverlap (" + std::to_string(overlap) + ") must be less than nperseg (" + std::to_string(seg) + ")");
  const std::int64_t step = seg - overlap;
  if (ta != nd - 1 || fa != nd - 2) {
    std::vector<int> perm;
    for (int a = 0; a < nd; ++a)
      if (a != fa && a != ta) perm.push_back(a);
    perm.push_back(fa);
    perm.push_back(ta);
    Z = transpose(Z, perm, loc);
  }
  const std::vector<double> win = window_of_length(window, seg, "nperseg=" + std::to_string(seg), fn, loc);
  {  // SciPy's check_NOLA
    std::vector<double> binsums(static_cast<std::size_t>(step), 0.0);
    for (std::int64_t k = 0; k < seg; ++k)
      binsums[static_cast<std::size_t>(k % step)] +=
          win[static_cast<std::size_t>(k)] * win[static_cast<std::size_t>(k)];
    for (double b : binsums)
      if (!(b > 1e-10))
        fail(fn, "the window and noverlap=" + std::to_string(overlap) +
                     " do not satisfy the NOLA condition (the shifted squared windows sum to zero somewhere), so "
                     "the signal cannot be reconstructed; use a window without interior zeros or a larger noverlap");
  }
  const DType rdt = real_of(Z.dtype());
  Tensor xs = input_onesided ? fft::irfft(Z, nfft, -2, "backward", loc) : fft::ifft(Z, nfft, -2, "backward", loc);
  if (nfft != seg) {
    xs = take(xs, index_range(0, seg), xs.ndim() - 2, loc);
  }
  const double scale = scaling == "spectrum" ? sum_of(win, false) : std::sqrt(fs * sum_of(win, true));
  std::vector<double> ws;
  for (double v : win) ws.push_back(v * scale);
  Tensor frames =
      swapaxes(xs, -1, -2, loc) * real_constant(ws, {seg}, is_complex(xs.dtype()) ? real_of(xs.dtype()) : rdt);
  Shape lead(frames.shape().begin(), frames.shape().end() - 2);
  const std::int64_t r = (seg + step - 1) / step;
  if (r * step != seg) frames = pad(frames, pad_last(frames.ndim(), 0, r * step - seg), 0, loc);
  Shape chunk_shape = lead;
  chunk_shape.insert(chunk_shape.end(), {nseg, r, step});
  Tensor chunks = reshape(frames, chunk_shape, loc);
  Tensor total;
  for (std::int64_t k = 0; k < r; ++k) {
    Tensor ck = take(chunks, constant(Array::scalar<std::int64_t>(k)), chunks.ndim() - 2, loc);  // (..., nseg, step)
    std::vector<std::pair<std::int64_t, std::int64_t>> w(static_cast<std::size_t>(ck.ndim()), {0, 0});
    w[static_cast<std::size_t>(ck.ndim() - 2)] = {k, r - 1 - k};
    ck = pad(ck, w, 0, loc);
    total = total.defined() ? total + ck : ck;
  }
  const std::int64_t output_length = seg + (nseg - 1) * step;
  Shape flat = lead;
  flat.push_back((nseg + r - 1) * step);
  Tensor y = reshape(total, flat, loc);
  std::vector<double> norm(static_cast<std::size_t>(output_length), 0.0);
  for (std::int64_t s = 0; s < nseg; ++s)
    for (std::int64_t k = 0; k < seg; ++k)
      norm[static_cast<std::size_t>(s * step + k)] +=
          win[static_cast<std::size_t>(k)] * win[static_cast<std::size_t>(k)];
  const std::int64_t lo = boundary ? seg / 2 : 0, hi = boundary ? output_length - seg / 2 : output_length;
  if (lo != 0 || hi != y.shape().back()) {
    y = take(y, index_range(lo, hi), y.ndim() - 1, loc);
  }
  std::vector<double> inv;
  for (std::int64_t i = lo; i < hi; ++i) {
    double v = norm[static_cast<std::size_t>(i)];
    inv.push_back(1.0 / (v > 1e-10 ? v : 1.0));
  }
  y = y * real_constant(inv, {hi - lo}, is_complex(y.dtype()) ? real_of(y.dtype()) : rdt);
  if (y.ndim() > 1 && ta != nd - 1) y = moveaxis(y, {-1}, {fa < ta ? ta - 1 : ta}, loc);
  std::vector<double> time;
  for (std::int64_t i = 0; i < hi - lo; ++i) time.push_back(static_cast<double>(i) / fs);
  return {constant(Array::from_vector<double>(time, {hi - lo})), y};
}

Tensor hilbert(const Tensor& x_in, std::optional<std::int64_t> N, int axis_in, Loc loc) {
  if (is_complex(x_in.dtype())) fail("hilbert", "x must be real, got a complex tensor; pass its real part");
  if (x_in.ndim() < 1) fail("hilbert", "x must have at least one axis, got a scalar");
  const int axis = normalized(axis_in, x_in.ndim(), "hilbert");
  const std::int64_t n = N.value_or(x_in.shape()[static_cast<std::size_t>(axis)]);
  if (n <= 0) fail("hilbert", "N must be positive, got " + std::to_string(n));
  const DType rdt = real_of(is_inexact(x_in.dtype()) ? x_in.dtype() : DType::f32);
  Tensor spectrum = fft::fft(cast(x_in, rdt, loc), n, axis, "backward", loc);
  std::vector<double> h(static_cast<std::size_t>(n), 0.0);
  h[0] = 1;
  for (std::int64_t k = 1; k < (n + 1) / 2; ++k) h[static_cast<std::size_t>(k)] = 2;
  if (n % 2 == 0) h[static_cast<std::size_t>(n / 2)] = 1;
  Shape shape(static_cast<std::size_t>(x_in.ndim()), 1);
  shape[static_cast<std::size_t>(axis)] = n;
  return named_composite("hilbert",
                         fft::ifft(spectrum * real_constant(h, shape, rdt), std::nullopt, axis, "backward", loc));
}

Tensor hilbert_transform(const Tensor& signal, std::optional<std::int64_t> N, int axis, Loc loc) {
  return hilbert(signal, N, axis, loc);
}

Tensor morlet(std::int64_t M, const Operand& s, const Operand& w, DType dtype, Loc loc) {
  if (M < 1) fail("morlet", "M must be positive, got " + std::to_string(M));
  if (!is_floating(dtype))
    throw DTypeError("morlet: dtype must be float32 or float64, got " + std::string(dtype_name(dtype)) + ".");
  auto as_dtype = [&](const Operand& o) -> Operand {
    return o.is_tensor() ? Operand(cast(o.tensor(), dtype, loc)) : o;
  };
  Tensor x = multiply(linspace(-2 * std::numbers::pi, 2 * std::numbers::pi, M, true, dtype, loc), as_dtype(s), loc);
  Tensor env = exp(square(x, loc) * -0.5, loc) * std::pow(std::numbers::pi, -0.25);
  Tensor wx = multiply(x, as_dtype(w), loc);
  Tensor real_part = w.is_tensor() ? cos(wx, loc) - exp(square(cast(w.tensor(), dtype, loc), loc) * -0.5, loc)
                                   : cos(wx, loc) - std::exp(-0.5 * w.number() * w.number());
  return named_composite("morlet", complex(real_part * env, sin(wx, loc) * env, loc));
}

Tensor complex_morlet(const Tensor& bandwidths, const Tensor& centers, std::optional<Tensor> time, Loc loc) {
  Tensor b = is_floating(bandwidths.dtype()) ? bandwidths : cast(bandwidths, DType::f32, loc);
  const DType rdt = b.dtype();
  Tensor t;
  if (time) {
    t = cast(*time, rdt, loc);
  } else {
    std::optional<Array> known = ops::concrete(b);  // SymJAX's scales = power(2, linspace(...)) included
    if (!known)
      fail("complex_morlet",
           "without `time`, the bandwidths must be known when the graph is built (the support is "
           "6 max(bandwidths) + 1 samples): a function of constants, or pass time");
    const std::vector<double> values = known->to_vector();
    double mx = values.empty() ? 0 : values[0];
    for (double v : values) mx = std::max(mx, v);
    const double B = 6 * mx + 1;
    t = linspace(-std::floor(B / 2), std::floor(B / 2), static_cast<std::int64_t>(B), true, rdt, loc);
  }
  Tensor env = exp(-square(t / b, loc), loc);
  Tensor phase = cast(centers, rdt, loc) * t;
  return named_composite("complex_morlet", complex(env * cos(phase, loc), env * sin(phase, loc), loc));
}

namespace {
double hz_to_mel(double f, bool htk) {
  if (htk) return 2595.0 * std::log10(1.0 + f / 700.0);
  const double f_sp = 200.0 / 3, min_log_mel = 1000.0 / f_sp, logstep = std::log(6.4) / 27.0;
  return f >= 1000.0 ? min_log_mel + std::log(f / 1000.0) / logstep : f / f_sp;
}
double mel_to_hz(double m, bool htk) {
  if (htk) return 700.0 * (std::pow(10.0, m / 2595.0) - 1.0);
  const double f_sp = 200.0 / 3, min_log_mel = 1000.0 / f_sp, logstep = std::log(6.4) / 27.0;
  return m >= min_log_mel ? 1000.0 * std::exp(logstep * (m - min_log_mel)) : f_sp * m;
}
}  // namespace

Tensor mel_filters(double sr, std::int64_t n_fft, std::int64_t n_mels, double fmin, std::optional<double> fmax,
                   bool htk, const std::string& norm, DType dtype, Loc loc) {
  if (norm != "slaney" && !norm.empty()) fail("mel_filters", "norm must be 'slaney' or None, got '" + norm + "'");
  if (n_fft < 1 || n_mels < 1 || !(sr > 0)) fail("mel_filters", "sr, n_fft and n_mels must be positive");
  const double top = fmax.value_or(sr / 2);
  const std::int64_t bins = 1 + n_fft / 2;
  std::vector<double> mel_f(static_cast<std::size_t>(n_mels + 2));
  const double lo = hz_to_mel(fmin, htk), hi = hz_to_mel(top, htk);
  for (std::int64_t i = 0; i < n_mels + 2; ++i)
    mel_f[static_cast<std::size_t>(i)] =
        mel_to_hz(lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(n_mels + 1), htk);
  std::vector<double> w(static_cast<std::size_t>(n_mels * bins));
  for (std::int64_t m = 0; m < n_mels; ++m) {
    const auto um = static_cast<std::size_t>(m);
    const double enorm = norm == "slaney" ? 2.0 / (mel_f[um + 2] - mel_f[um]) : 1.0;
    for (std::int64_t k = 0; k < bins; ++k) {
      const double f = static_cast<double>(k) * sr / static_cast<double>(n_fft);
      const double lower = (f - mel_f[um]) / (mel_f[um + 1] - mel_f[um]);
      const double upper = (mel_f[um + 2] - f) / (mel_f[um + 2] - mel_f[um + 1]);
      w[static_cast<std::size_t>(m * bins + k)] = std::max(0.0, std::min(lower, upper)) * enorm;
    }
  }
  return named_composite("mel_filters", constant(Array::from_vector<double>(w, {n_mels, bins}).astype(dtype), loc));
}

Tensor melspectrogram(const Tensor& y_in, double sr, std::int64_t n_fft, std::int64_t hop_length,
                      std::optional<std::int64_t> win_length, const WindowSpec& window, bool center, double power,
                      std::int64_t n_mels, double fmin, std::optional<double> fmax, bool htk, const std::string& norm,
                      Loc loc) {
  const char* fn = "melspectrogram";
  if (y_in.ndim() < 1) fail(fn, "y must have at least one axis");
  const DType rdt = real_of(is_inexact(y_in.dtype()) ? y_in.dtype() : DType::f32);
  Tensor y = cast(y_in, rdt, loc);
  const std::int64_t wl = win_length.value_or(n_fft);
  if (!(wl > 0 && wl <= n_fft))
    fail(fn, "win_length (" + std::to_string(wl) + ") must be in (0, n_fft=" + std::to_string(n_fft) + "]");
  if (hop_length < 1) fail(fn, "hop_length must be positive, got " + std::to_string(hop_length));
  const std::vector<double> win = window_of_length(window, wl, "win_length=" + std::to_string(wl), fn, loc);
  const std::int64_t lpad = (n_fft - wl) / 2;
  std::vector<double> full(static_cast<std::size_t>(n_fft), 0.0);
  for (std::int64_t i = 0; i < wl; ++i) full[static_cast<std::size_t>(lpad + i)] = win[static_cast<std::size_t>(i)];
  if (center) y = pad(y, pad_last(y.ndim(), n_fft / 2, n_fft / 2), 0, loc);
  const std::int64_t n = y.shape().back();
  if (n < n_fft)
    fail(fn,
         "the signal (" + std::to_string(n) + " samples after padding) is shorter than n_fft=" + std::to_string(n_fft));
  const std::int64_t frames_n = 1 + (n - n_fft) / hop_length;
  Tensor frames = frames_of(y, frames_n, n_fft, hop_length, loc) * real_constant(full, {n_fft}, rdt);
  Tensor Z = fft::rfft(frames, std::nullopt, -1, "backward", loc);
  Tensor S = square(real(Z, loc), loc) + square(imag(Z, loc), loc);
  if (power != 2.0) S = symx::power(S, power / 2.0, loc);
  S = swapaxes(S, -1, -2, loc);  // (..., bins, frames)
  return named_composite(fn, matmul(mel_filters(sr, n_fft, n_mels, fmin, fmax, htk, norm, rdt, loc), S, loc));
}

Tensor mfcc(const Tensor& S, std::int64_t n_mfcc, int dct_type, const std::string& norm, double lifter, Loc loc) {
  if (S.ndim() < 2) fail("mfcc", "S must be a (..., n_mels, frames) spectrogram, got shape " + shape_string(S.shape()));
  const std::int64_t n_mels = S.shape()[S.shape().size() - 2];
  if (!(n_mfcc > 0 && n_mfcc <= n_mels))
    fail("mfcc", "n_mfcc must be in [1, n_mels=" + std::to_string(n_mels) + "], got " + std::to_string(n_mfcc));
  if (lifter < 0) fail("mfcc", "lifter must be >= 0, got " + std::to_string(lifter));
  Tensor M = dct(S, dct_type, std::nullopt, S.ndim() - 2, norm, loc);
  M = take(M, index_range(0, n_mfcc), M.ndim() - 2, loc);
  if (lifter > 0) {
    std::vector<double> lift;
    for (std::int64_t k = 1; k <= n_mfcc; ++k)
      lift.push_back(1 + (lifter / 2) * std::sin(std::numbers::pi * static_cast<double>(k) / lifter));
    M = M * real_constant(lift, {n_mfcc, 1}, real_of(M.dtype()));
  }
  return named_composite("mfcc", M);
}

Tensor phase_vocoder(const Tensor& D, double rate, std::optional<std::int64_t> hop_length,
                     std::optional<std::int64_t> n_fft_in, Loc loc) {
  const char* fn = "phase_vocoder";
  if (!is_complex(D.dtype())) fail(fn, "D must be a complex STFT (..., bins, frames), got a real tensor");
  if (D.ndim() < 2) fail(fn, "D must have at least 2 axes (bins, frames), got shape " + shape_string(D.shape()));
  if (!(rate > 0)) fail(fn, "rate must be positive, got " + std::to_string(rate));
  const std::int64_t bins = D.shape()[D.shape().size() - 2], frames = D.shape().back();
  const std::int64_t n_fft = n_fft_in.value_or(2 * (bins - 1));
  const std::int64_t hop = hop_length.value_or(n_fft / 4);
  const DType rdt = real_of(D.dtype());
  std::vector<double> steps;
  for (std::int64_t i = 0; static_cast<double>(i) * rate < static_cast<double>(frames); ++i)
    steps.push_back(static_cast<double>(i) * rate);  // numpy.arange(0, frames, rate)
  const auto n_out = static_cast<std::int64_t>(steps.size());
  std::vector<double> phi(static_cast<std::size_t>(bins));
  for (std::int64_t k = 0; k < bins; ++k)
    phi[static_cast<std::size_t>(k)] = static_cast<double>(hop * k) * 2 * std::numbers::pi / static_cast<double>(n_fft);
  Tensor phi_t = real_constant(phi, {bins, 1}, rdt);
  Tensor Dp = pad(D, pad_last(D.ndim(), 0, 2), 0, loc);
  std::vector<std::int64_t> i0, i1;
  std::vector<double> alpha;
  for (double t : steps) {
    const auto f = static_cast<std::int64_t>(std::floor(t));
    i0.push_back(f);
    i1.push_back(f + 1);
    alpha.push_back(std::fmod(t, 1.0));
  }
  Tensor c0 = take(Dp, index_constant(i0, {n_out}), D.ndim() - 1, loc);
  Tensor c1 = take(Dp, index_constant(i1, {n_out}), D.ndim() - 1, loc);
  Tensor a = real_constant(alpha, {n_out}, rdt);
  Tensor mag = (1.0 - a) * abs(c0, loc) + a * abs(c1, loc);
  Tensor dphase = angle(c1, false, loc) - angle(c0, false, loc) - phi_t;
  dphase = dphase - 2.0 * std::numbers::pi * round(dphase / (2.0 * std::numbers::pi), loc);
  Tensor advance = cumsum(phi_t + dphase, D.ndim() - 1, loc);  // the advance after each output frame
  Tensor start = angle(take(D, index_constant({0}, {1}), D.ndim() - 1, loc), false, loc);
  Tensor before = pad(take(advance, index_range(0, n_out - 1), D.ndim() - 1, loc), pad_last(D.ndim(), 1, 0), 0, loc);
  Tensor phase = start + before;
  return named_composite(fn, complex(mag * cos(phase, loc), mag * sin(phase, loc), loc));
}

Tensor wvd(const Tensor& signal_in, std::int64_t window, std::int64_t hop, std::int64_t L, std::optional<Array> apod,
           const std::string& mode, Loc loc) {
  const char* fn = "wvd";
  if (window < 1 || hop < 1 || L < 0)
    fail(fn, "window and hop must be positive and L >= 0, got " + std::to_string(window) + ", " + std::to_string(hop) +
                 ", " + std::to_string(L));
  if (signal_in.ndim() < 1) fail(fn, "signal must have at least one axis");
  const DType rdt = real_of(is_inexact(signal_in.dtype()) ? signal_in.dtype() : DType::f32);
  Tensor x = cast(signal_in, rdt, loc);
  const int nd = x.ndim();
  if (mode == "same") {
    const std::int64_t left = (window + 1) / 2;
    x = pad(x, pad_last(nd, left, window + 1 - left), 0, loc);
  } else if (mode == "full") {
    x = pad(x, pad_last(nd, window - 1, window - 1), 0, loc);
  } else if (mode != "valid") {
    fail(fn, "mode must be 'valid', 'same' or 'full', got '" + mode + "'");
  }
  if (x.shape().back() < window)
    fail(fn, "window (" + std::to_string(window) + ") is longer than the signal (" + std::to_string(x.shape().back()) +
                 " samples)");
  auto hanning = [](std::int64_t n) {
    std::vector<double> h(static_cast<std::size_t>(n), 1.0);
    for (std::int64_t i = 0; i < n && n > 1; ++i)
      h[static_cast<std::size_t>(i)] =
          0.5 - 0.5 * std::cos(2 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(n - 1));
    return h;
  };
  std::vector<double> ap = apod ? apod->to_vector() : hanning(window);
  if (static_cast<std::int64_t>(ap.size()) != window)
    fail(fn, "apod must give a window of " + std::to_string(window) + " points, got " + std::to_string(ap.size()));
  const std::int64_t P = (x.shape().back() - window) / hop + 1;
  Tensor frames = frames_of(x, P, window, hop, loc) * real_constant(ap, {window}, rdt);
  Tensor S = fft::fft(frames, 2 * window, -1, "backward", loc);
  S = take(S, index_range(0, window), S.ndim() - 1, loc);  // (..., P, F)
  const std::int64_t K = 2 * L + 1, Fo = (window + 1) / 2;
  const std::int64_t total = std::max<std::int64_t>((Fo - 1) * 2 + K - window, 0), lo = total / 2;
  Tensor Sp = pad(S, pad_last(S.ndim(), lo, total - lo), 0, loc);
  std::vector<std::int64_t> pidx, ridx;
  for (std::int64_t f = 0; f < Fo; ++f)
    for (std::int64_t k = 0; k < K; ++k) {
      pidx.push_back(2 * f + k);
      ridx.push_back(2 * f + K - 1 - k);
    }
  Tensor patches = take(Sp, index_constant(pidx, {Fo, K}), Sp.ndim() - 1, loc);  // (..., P, Fo, K)
  Tensor reversed = take(Sp, index_constant(ridx, {Fo, K}), Sp.ndim() - 1, loc);
  const double PI = 2 * 3.14159;  // SymJAX's constant
  std::vector<double> hk = hanning(K);
  Array mask({P, 1, K}, rdt == DType::f32 ? DType::c64 : DType::c128);
  for (std::int64_t p = 0; p < P; ++p)
    for (std::int64_t k = 0; k < K; ++k) {
      const double freq = K == 1 ? -static_cast<double>(L) / static_cast<double>(window)
                                 : -static_cast<double>(L) / static_cast<double>(window) +
                                       2.0 * static_cast<double>(L) / static_cast<double>(window) *
                                           static_cast<double>(k) / static_cast<double>(K - 1);
      mask.set_complex_flat(p * K + k, std::polar(hk[static_cast<std::size_t>(k)], PI * static_cast<double>(p) * freq));
    }
  Tensor out = real(sum(patches * conj(reversed, loc) * constant(mask), -1, false, loc), loc);  // (..., P, Fo)
  return named_composite(fn, swapaxes(out, -1, -2, loc));
}

}  // namespace symx::signal

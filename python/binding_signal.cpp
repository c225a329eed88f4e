// python/binding_signal.cpp: the Python binding of symx/signal.hpp, the symx.signal submodule (SymJAX's
// tensor.signal, SciPy's signatures where SciPy has the name).
#include "binding_common.hpp"
#include "symx/signal.hpp"

using namespace symx_binding;
using namespace nanobind::literals;

namespace {
namespace S = symx::signal;

// get_window(window, Nx, fftbins=True): window is a name or SciPy's (name, parameter) tuple.
symx::Tensor get_window_py(nb::handle window, std::int64_t nx, bool fftbins, symx::DType dtype) {
  std::string name;
  std::optional<double> param;
  if (nb::isinstance<nb::str>(window)) {
    name = nb::cast<std::string>(window);
  } else if (nb::isinstance<nb::tuple>(window) && nb::len(window) == 2 && nb::isinstance<nb::str>(window[0])) {
    name = nb::cast<std::string>(window[0]);
    param = nb::cast<double>(window[1]);
  } else {
    throw nb::type_error(("get_window: window must be a name or a (name, parameter) tuple, got " +
                          nb::cast<std::string>(nb::repr(window)))
                             .c_str());
  }
  PyLocation here;
  return S::get_window(name, nx, param, fftbins, dtype, symx::Loc::current());
}

// dct / idct: SciPy's axis, or SymJAX's axes=(a,) (one axis).
int dct_axis(int axis, nb::handle axes) {
  if (axes.is_none()) return axis;
  if (PyLong_Check(axes.ptr())) return nb::cast<int>(axes);
  if (nb::len(axes) != 1)
    throw nb::value_error("dct: axes must name one axis (the transform of several axes is one call per axis)");
  return nb::cast<int>(axes[0]);
}
symx::Tensor dct_py(TensorArg x, int type, std::optional<std::int64_t> n, int axis, std::optional<std::string> norm,
                    nb::handle axes) {
  PyLocation here;
  return S::dct(x.t, type, n, dct_axis(axis, axes), norm.value_or("backward"), symx::Loc::current());
}
symx::Tensor idct_py(TensorArg x, int type, std::optional<std::int64_t> n, int axis, std::optional<std::string> norm,
                     nb::handle axes) {
  PyLocation here;
  return S::idct(x.t, type, n, dct_axis(axis, axes), norm.value_or("backward"), symx::Loc::current());
}
// A window of the spectral functions: a name, SciPy's (name, parameter) tuple, or its values (an array,
// a list, or a constant tensor).
S::WindowSpec window_spec(nb::handle window) {
  if (nb::isinstance<nb::str>(window)) return S::WindowSpec(nb::cast<std::string>(window));
  if (nb::isinstance<nb::tuple>(window) && nb::len(window) == 2 && nb::isinstance<nb::str>(window[0]))
    return S::WindowSpec(nb::cast<std::string>(window[0]), nb::cast<double>(window[1]));
  if (nb::isinstance<symx::Tensor>(window)) {
    symx::Tensor t = nb::cast<symx::Tensor>(window);
    if (t.op() != symx::OpKind::Constant)
      throw nb::type_error("window: a tensor window must be a constant (its values are needed to build the graph)");
    return S::WindowSpec(std::get<symx::ConstantAttr>(t.node().attr).value);
  }
  return S::WindowSpec(array_from_python_values(window).astype(symx::DType::f64));
}

// SciPy's detrend=False / None / 'constant' and boundary='zeros' / None as the C++ strings.
std::string text_or_empty(nb::handle v) {
  if (v.is_none() || (PyBool_Check(v.ptr()) && v.ptr() == Py_False)) return "";
  return nb::cast<std::string>(v);
}

nb::tuple spectrum_tuple(const S::Spectrum& s) { return nb::make_tuple(s.f, s.t, s.Z); }
}  // namespace

void bind_signal(nb::module_& m) {
  nb::module_ sg = m.def_submodule("signal", "Signal processing (SymJAX's tensor.signal, scipy.signal's signatures).");
  sg.def("hann", LOC(S::hann), "M"_a, "sym"_a = true, "dtype"_a = symx::DType::f32, DOC(signal_hann));
  sg.def("hanning", LOC(S::hanning), "M"_a, "dtype"_a = symx::DType::f32, DOC(signal_hanning));
  sg.def("hamming", LOC(S::hamming), "M"_a, "sym"_a = true, "dtype"_a = symx::DType::f32, DOC(signal_hamming));
  sg.def("blackman", LOC(S::blackman), "M"_a, "sym"_a = true, "dtype"_a = symx::DType::f32, DOC(signal_blackman));
  sg.def("bartlett", LOC(S::bartlett), "M"_a, "sym"_a = true, "dtype"_a = symx::DType::f32, DOC(signal_bartlett));
  sg.def("kaiser", LOC(S::kaiser), "M"_a, "beta"_a, "sym"_a = true, "dtype"_a = symx::DType::f32, DOC(signal_kaiser));
  sg.def("tukey", LOC(S::tukey), "M"_a, "alpha"_a = 0.5, "sym"_a = true, "dtype"_a = symx::DType::f32,
         DOC(signal_tukey));
  sg.def("get_window", &get_window_py, "window"_a, "Nx"_a, "fftbins"_a = true, "dtype"_a = symx::DType::f32,
         DOC(signal_get_window));
  sg.def("convolve", LOC(S::convolve), "in1"_a, "in2"_a, "mode"_a = "full", DOC(signal_convolve));
  sg.def("correlate", LOC(S::correlate), "in1"_a, "in2"_a, "mode"_a = "full", DOC(signal_correlate));
  sg.def("convolve2d", LOC(S::convolve2d), "in1"_a, "in2"_a, "mode"_a = "full", "boundary"_a = "fill",
         "fillvalue"_a = 0.0, DOC(signal_convolve2d));
  sg.def("correlate2d", LOC(S::correlate2d), "in1"_a, "in2"_a, "mode"_a = "full", "boundary"_a = "fill",
         "fillvalue"_a = 0.0, DOC(signal_correlate2d));
  sg.def("batch_convolve", LOC(S::batch_convolve), "input"_a, "filter"_a, "strides"_a = 1, "padding"_a = "VALID",
         "input_format"_a = "", "filter_format"_a = "", "output_format"_a = "", "input_dilation"_a = nb::none(),
         "filter_dilation"_a = nb::none(), DOC(signal_batch_convolve));
  sg.def("batch_convolve_transpose", LOC(S::batch_convolve_transpose), "input"_a, "filter"_a, "strides"_a = 1,
         "padding"_a = "VALID", "input_format"_a = "", "filter_format"_a = "", "output_format"_a = "",
         "filter_dilation"_a = nb::none(), "transpose_kernel"_a = false, DOC(signal_batch_convolve_transpose));
  sg.def("extract_signal_patches", LOC(S::extract_signal_patches), "signal"_a, "window_length"_a, "hop"_a = 1,
         "data_format"_a = "NCW", DOC(signal_extract_signal_patches));
  sg.def("extract_image_patches", LOC(S::extract_image_patches), "image"_a, "window_shape"_a, "strides"_a = 1,
         "data_format"_a = "channel_first", "padding"_a = "valid", "flatten_patch"_a = false,
         DOC(signal_extract_image_patches));
  sg.def("pool", LOC(S::pool), "input"_a, "window_shape"_a, "reducer"_a = "MAX", "strides"_a = nb::none(),
         "padding"_a = "VALID", "base_dilation"_a = nb::none(), "window_dilation"_a = nb::none(), DOC(signal_pool));
  sg.def("dct", &dct_py, "x"_a, "type"_a = 2, "n"_a = nb::none(), "axis"_a = -1, "norm"_a = nb::none(),
         "axes"_a = nb::none(), DOC(signal_dct));
  sg.def("idct", &idct_py, "x"_a, "type"_a = 2, "n"_a = nb::none(), "axis"_a = -1, "norm"_a = nb::none(),
         "axes"_a = nb::none(), DOC(signal_idct));
  sg.def("hat_1D", LOC(S::hat_1D), "x"_a, "t_left"_a, "t_center"_a, "t_right"_a, DOC(signal_hat_1D));
  sg.def("bin_to_freq", LOC(S::bin_to_freq), "bins"_a, "max_f"_a, DOC(signal_bin_to_freq));
  sg.def("freq_to_bin", LOC(S::freq_to_bin), "freq"_a, "n_bins"_a, "fmin"_a, "fmax"_a, DOC(signal_freq_to_bin));
  sg.def("freq_to_mel", LOC(S::freq_to_mel), "f"_a, "option"_a = "linear", DOC(signal_freq_to_mel));
  sg.def("mel_to_freq", LOC(S::mel_to_freq), "m"_a, "option"_a = "linear", DOC(signal_mel_to_freq));
  sg.def("power_to_db", LOC(S::power_to_db), "S"_a, "ref"_a = 1.0, "amin"_a = 1e-10, "top_db"_a.none() = 80.0,
         DOC(signal_power_to_db));
  sg.def("sinc_bandpass", LOC(S::sinc_bandpass), "time"_a, "f0"_a, "f1"_a, DOC(signal_sinc_bandpass));
  sg.def("mel_filterbank", LOC(S::mel_filterbank), "length"_a, "n_filter"_a, "low"_a, "high"_a, "nyquist"_a,
         DOC(signal_mel_filterbank));
  sg.def("fourier_complex_morlet", LOC(S::fourier_complex_morlet), "bandwidths"_a, "centers"_a, "N"_a,
         DOC(signal_fourier_complex_morlet));
  sg.def(
      "stft",
      [](TensorArg x, double fs, nb::handle window, std::optional<std::int64_t> nperseg,
         std::optional<std::int64_t> noverlap, std::optional<std::int64_t> nfft, nb::handle detrend,
         bool return_onesided, nb::handle boundary, bool padded, int axis, const std::string& scaling) {
        PyLocation here;
        return spectrum_tuple(S::stft(x.t, fs, window_spec(window), nperseg, noverlap, nfft, text_or_empty(detrend),
                                      return_onesided, text_or_empty(boundary), padded, axis, scaling,
                                      symx::Loc::current()));
      },
      "x"_a, "fs"_a = 1.0, "window"_a = "hann", "nperseg"_a.none() = 256, "noverlap"_a = nb::none(),
      "nfft"_a = nb::none(), "detrend"_a = false, "return_onesided"_a = true, "boundary"_a.none() = "zeros",
      "padded"_a = true, "axis"_a = -1, "scaling"_a = "spectrum", DOC(signal_stft));
  sg.def(
      "istft",
      [](TensorArg Z, double fs, nb::handle window, std::optional<std::int64_t> nperseg,
         std::optional<std::int64_t> noverlap, std::optional<std::int64_t> nfft, bool input_onesided, bool boundary,
         int time_axis, int freq_axis, const std::string& scaling) {
        PyLocation here;
        auto [t, y] = S::istft(Z.t, fs, window_spec(window), nperseg, noverlap, nfft, input_onesided, boundary,
                               time_axis, freq_axis, scaling, symx::Loc::current());
        return nb::make_tuple(t, y);
      },
      "Zxx"_a, "fs"_a = 1.0, "window"_a = "hann", "nperseg"_a = nb::none(), "noverlap"_a = nb::none(),
      "nfft"_a = nb::none(), "input_onesided"_a = true, "boundary"_a = true, "time_axis"_a = -1, "freq_axis"_a = -2,
      "scaling"_a = "spectrum", DOC(signal_istft));
  sg.def(
      "spectrogram",
      [](TensorArg x, double fs, nb::handle window, std::optional<std::int64_t> nperseg,
         std::optional<std::int64_t> noverlap, std::optional<std::int64_t> nfft, nb::handle detrend,
         bool return_onesided, const std::string& scaling, int axis, const std::string& mode) {
        PyLocation here;
        return spectrum_tuple(S::spectrogram(x.t, fs, window_spec(window), nperseg, noverlap, nfft,
                                             text_or_empty(detrend), return_onesided, scaling, axis, mode,
                                             symx::Loc::current()));
      },
      "x"_a, "fs"_a = 1.0, "window"_a = nb::make_tuple("tukey", 0.25), "nperseg"_a = nb::none(),
      "noverlap"_a = nb::none(), "nfft"_a = nb::none(), "detrend"_a = "constant", "return_onesided"_a = true,
      "scaling"_a = "density", "axis"_a = -1, "mode"_a = "psd", DOC(signal_spectrogram));
  sg.def("hilbert", LOC(S::hilbert), "x"_a, "N"_a = nb::none(), "axis"_a = -1, DOC(signal_hilbert));
  sg.def("hilbert_transform", LOC(S::hilbert_transform), "signal"_a, "N"_a = nb::none(), "axis"_a = -1,
         DOC(signal_hilbert_transform));
  sg.def("morlet", LOC(S::morlet), "M"_a, "s"_a = 1.0, "w"_a = 5.0, "dtype"_a = symx::DType::f32, DOC(signal_morlet));
  sg.def("phase_vocoder", LOC(S::phase_vocoder), "D"_a, "rate"_a, "hop_length"_a = nb::none(), "n_fft"_a = nb::none(),
         DOC(signal_phase_vocoder));
  sg.def(
      "wvd",
      [](TensorArg signal, std::int64_t window, std::int64_t hop, std::int64_t L, nb::handle apod,
         const std::string& mode) {
        std::optional<symx::Array> values;
        if (!apod.is_none()) {  // SymJAX's apod: a function of the window length, or the values
          nb::object v = PyCallable_Check(apod.ptr()) ? apod(window) : nb::borrow(apod);
          if (nb::isinstance<symx::Tensor>(v)) values = window_spec(v).values;
          else values = array_from_python_values(v).astype(symx::DType::f64);
        }
        PyLocation here;
        return S::wvd(signal.t, window, hop, L, values, mode, symx::Loc::current());
      },
      "signal"_a, "window"_a, "hop"_a, "L"_a, "apod"_a = nb::none(), "mode"_a = "valid", DOC(signal_wvd));
  sg.def(
      "complex_morlet",
      [](TensorArg bandwidths, TensorArg centers, nb::handle time) {
        std::optional<symx::Tensor> t;
        if (!time.is_none()) t = tensor_from_python(time);
        PyLocation here;
        return S::complex_morlet(bandwidths.t, centers.t, t, symx::Loc::current());
      },
      "bandwidths"_a, "centers"_a, "time"_a = nb::none(), DOC(signal_complex_morlet));
  sg.def(
      "mel_filters",
      [](double sr, std::int64_t n_fft, std::int64_t n_mels, double fmin, std::optional<double> fmax, bool htk,
         nb::handle norm, symx::DType dtype) {
        PyLocation here;
        return S::mel_filters(sr, n_fft, n_mels, fmin, fmax, htk, text_or_empty(norm), dtype, symx::Loc::current());
      },
      "sr"_a, "n_fft"_a, "n_mels"_a = 128, "fmin"_a = 0.0, "fmax"_a = nb::none(), "htk"_a = false,
      "norm"_a.none() = "slaney", "dtype"_a = symx::DType::f32, DOC(signal_mel_filters));
  sg.def(
      "melspectrogram",
      [](nb::handle y, double sr, nb::handle S_in, std::int64_t n_fft, std::int64_t hop_length,
         std::optional<std::int64_t> win_length, nb::handle window, bool center, const std::string& pad_mode,
         double power, std::int64_t n_mels, double fmin, std::optional<double> fmax, bool htk, nb::handle norm) {
        if (pad_mode != "constant")
          throw symx::ValueError("melspectrogram: pad_mode must be 'constant' (zeros), got '" + pad_mode + "'.");
        PyLocation here;
        if (!S_in.is_none()) {  // librosa's S=: the mel filters times a given power spectrogram
          symx::Tensor spec = tensor_from_python(S_in);
          std::int64_t bins = spec.shape()[spec.shape().size() - 2];
          return symx::matmul(S::mel_filters(sr, 2 * (bins - 1), n_mels, fmin, fmax, htk, text_or_empty(norm),
                                             spec.dtype() == symx::DType::f64 ? symx::DType::f64 : symx::DType::f32),
                              spec);
        }
        if (y.is_none()) throw symx::ValueError("melspectrogram: pass a signal y or a spectrogram S.");
        return S::melspectrogram(tensor_from_python(y), sr, n_fft, hop_length, win_length, window_spec(window), center,
                                 power, n_mels, fmin, fmax, htk, text_or_empty(norm), symx::Loc::current());
      },
      "y"_a = nb::none(), "sr"_a = 22050.0, "S"_a = nb::none(), "n_fft"_a = 2048, "hop_length"_a = 512,
      "win_length"_a = nb::none(), "window"_a = "hann", "center"_a = true, "pad_mode"_a = "constant", "power"_a = 2.0,
      "n_mels"_a = 128, "fmin"_a = 0.0, "fmax"_a = nb::none(), "htk"_a = false, "norm"_a.none() = "slaney",
      DOC(signal_melspectrogram));
  sg.def(
      "mfcc",
      [](nb::handle y, double sr, nb::handle S_in, std::int64_t n_mfcc, int dct_type, const std::string& norm,
         double lifter, nb::kwargs kwargs) {
        symx::Tensor spec;
        if (!S_in.is_none()) {
          spec = tensor_from_python(S_in);
        } else {  // librosa: power_to_db(melspectrogram(y, sr, **kwargs))
          nb::object mel = nb::module_::import_("symx").attr("signal").attr("melspectrogram");
          kwargs["y"] = y;
          kwargs["sr"] = sr;
          symx::Tensor m = nb::cast<symx::Tensor>(mel(**kwargs));
          PyLocation here;
          spec = S::power_to_db(m);
        }
        PyLocation here;
        return S::mfcc(spec, n_mfcc, dct_type, norm, lifter, symx::Loc::current());
      },
      "y"_a = nb::none(), "sr"_a = 22050.0, "S"_a = nb::none(), "n_mfcc"_a = 20, "dct_type"_a = 2, "norm"_a = "ortho",
      "lifter"_a = 0.0, "kwargs"_a, DOC(signal_mfcc));
  sg.def("littewood_paley_normalization", LOC(S::littewood_paley_normalization), "filter_bank"_a, "down"_a = nb::none(),
         "up"_a = nb::none(), DOC(signal_littewood_paley_normalization));
}

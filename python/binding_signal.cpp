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
  sg.def("littewood_paley_normalization", LOC(S::littewood_paley_normalization), "filter_bank"_a, "down"_a = nb::none(),
         "up"_a = nb::none(), DOC(signal_littewood_paley_normalization));
}

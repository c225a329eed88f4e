// python/binding_fft.cpp: the Python binding of symx/fft.hpp, the symx.fft submodule (numpy.fft's
// signatures: n, axis, s, axes and norm as NumPy takes them, None for the defaults).
#include "binding_common.hpp"
#include "symx/fft.hpp"

using namespace symx_binding;
using namespace nanobind::literals;

namespace {
namespace F = symx::fft;
using OneAxis = symx::Tensor (*)(const symx::Tensor&, std::optional<std::int64_t>, int, const std::string&, symx::Loc);
using AnyAxes = symx::Tensor (*)(const symx::Tensor&, const std::vector<std::int64_t>&, std::optional<std::vector<int>>,
                                 const std::string&, symx::Loc);

// One transform along one axis, as numpy.fft.fft(a, n=None, axis=-1, norm=None).
template <OneAxis f>
symx::Tensor one_axis(TensorArg a, std::optional<std::int64_t> n, int axis, std::optional<std::string> norm) {
  PyLocation here;
  return f(a.t, n, axis, norm.value_or("backward"), symx::Loc::current());
}

// The N-dimensional ones, as numpy.fft.fftn(a, s=None, axes=None, norm=None); the 2-D ones default
// axes to (-2, -1).
template <AnyAxes f, bool two>
symx::Tensor any_axes(TensorArg a, IntList s, nb::handle axes, std::optional<std::string> norm) {
  std::optional<std::vector<int>> list;
  if (!axes.is_none()) {
    list.emplace();
    for (std::int64_t v : int_list(axes)) list->push_back(narrow_axis(v));
  } else if (two) {
    list = std::vector<int>{-2, -1};
  }
  PyLocation here;
  return f(a.t, s.v, list, norm.value_or("backward"), symx::Loc::current());
}

std::optional<std::vector<int>> optional_axes(nb::handle axes) {
  if (axes.is_none()) return std::nullopt;
  std::vector<int> out;
  for (std::int64_t v : int_list(axes)) out.push_back(narrow_axis(v));
  return out;
}
}  // namespace

void bind_fft(nb::module_& m) {
  nb::module_ f = m.def_submodule("fft", "Discrete Fourier transforms (numpy.fft's functions and signatures).");
  f.def("fft", &one_axis<&F::fft>, "a"_a, "n"_a = nb::none(), "axis"_a = -1, "norm"_a = nb::none(), DOC(fft_fft));
  f.def("ifft", &one_axis<&F::ifft>, "a"_a, "n"_a = nb::none(), "axis"_a = -1, "norm"_a = nb::none(), DOC(fft_ifft));
  f.def("rfft", &one_axis<&F::rfft>, "a"_a, "n"_a = nb::none(), "axis"_a = -1, "norm"_a = nb::none(), DOC(fft_rfft));
  f.def("irfft", &one_axis<&F::irfft>, "a"_a, "n"_a = nb::none(), "axis"_a = -1, "norm"_a = nb::none(), DOC(fft_irfft));
  f.def("hfft", &one_axis<&F::hfft>, "a"_a, "n"_a = nb::none(), "axis"_a = -1, "norm"_a = nb::none(), DOC(fft_hfft));
  f.def("ihfft", &one_axis<&F::ihfft>, "a"_a, "n"_a = nb::none(), "axis"_a = -1, "norm"_a = nb::none(), DOC(fft_ihfft));
  f.def("fftn", &any_axes<&F::fftn, false>, "a"_a, "s"_a = nb::none(), "axes"_a = nb::none(), "norm"_a = nb::none(),
        DOC(fft_fftn));
  f.def("ifftn", &any_axes<&F::ifftn, false>, "a"_a, "s"_a = nb::none(), "axes"_a = nb::none(), "norm"_a = nb::none(),
        DOC(fft_ifftn));
  f.def("rfftn", &any_axes<&F::rfftn, false>, "a"_a, "s"_a = nb::none(), "axes"_a = nb::none(), "norm"_a = nb::none(),
        DOC(fft_rfftn));
  f.def("irfftn", &any_axes<&F::irfftn, false>, "a"_a, "s"_a = nb::none(), "axes"_a = nb::none(), "norm"_a = nb::none(),
        DOC(fft_irfftn));
  f.def("fft2", &any_axes<&F::fftn, true>, "a"_a, "s"_a = nb::none(), "axes"_a = nb::none(), "norm"_a = nb::none(),
        DOC(fft_fft2));
  f.def("ifft2", &any_axes<&F::ifftn, true>, "a"_a, "s"_a = nb::none(), "axes"_a = nb::none(), "norm"_a = nb::none(),
        DOC(fft_ifft2));
  f.def("rfft2", &any_axes<&F::rfftn, true>, "a"_a, "s"_a = nb::none(), "axes"_a = nb::none(), "norm"_a = nb::none(),
        DOC(fft_rfft2));
  f.def("irfft2", &any_axes<&F::irfftn, true>, "a"_a, "s"_a = nb::none(), "axes"_a = nb::none(), "norm"_a = nb::none(),
        DOC(fft_irfft2));
  f.def("fftfreq", LOC(F::fftfreq), "n"_a, "d"_a = 1.0, "dtype"_a = symx::DType::f32, DOC(fft_fftfreq));
  f.def("rfftfreq", LOC(F::rfftfreq), "n"_a, "d"_a = 1.0, "dtype"_a = symx::DType::f32, DOC(fft_rfftfreq));
  f.def(
      "fftshift",
      [](TensorArg x, nb::handle axes) {
        PyLocation here;
        return F::fftshift(x.t, optional_axes(axes), symx::Loc::current());
      },
      "x"_a, "axes"_a = nb::none(), DOC(fft_fftshift));
  f.def(
      "ifftshift",
      [](TensorArg x, nb::handle axes) {
        PyLocation here;
        return F::ifftshift(x.t, optional_axes(axes), symx::Loc::current());
      },
      "x"_a, "axes"_a = nb::none(), DOC(fft_ifftshift));
}

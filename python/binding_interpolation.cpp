// python/binding_interpolation.cpp: the Python binding of symx/interpolation.hpp: the
// symx.interpolation submodule (SymJAX's tensor.interpolation) and symx.image (jax.image.resize).
#include "binding_common.hpp"
#include "symx/interpolation.hpp"

using namespace symx_binding;
using namespace nanobind::literals;

namespace {

// downsample_factor: a number or a sequence of one or two numbers (SymJAX's as_tuple).
std::vector<double> factors_from_python(nb::handle f) {
  std::vector<double> out;
  if (nb::isinstance<nb::list>(f) || nb::isinstance<nb::tuple>(f)) {
    for (nb::handle v : f) out.push_back(nb::cast<double>(v));
  } else {
    out.push_back(nb::cast<double>(f));
  }
  return out;
}

symx::Tensor affine_transform_py(TensorArg input, TensorArg theta, int order, nb::handle downsample_factor,
                                 const std::string& border_mode) {
  std::vector<double> f = factors_from_python(downsample_factor);
  PyLocation here;
  return symx::interpolation::affine_transform(input.t, theta.t, order, f, border_mode, symx::Loc::current());
}

symx::Tensor thin_plate_spline_py(TensorArg input, TensorArg dest_offsets, int order, nb::handle downsample_factor,
                                  const std::string& border_mode) {
  std::vector<double> f = factors_from_python(downsample_factor);
  PyLocation here;
  return symx::interpolation::thin_plate_spline(input.t, dest_offsets.t, order, f, border_mode, symx::Loc::current());
}

}  // namespace

void bind_interpolation(nb::module_& m) {
  nb::module_ ip = m.def_submodule("interpolation", "SymJAX's tensor.interpolation (symx/interpolation.hpp).");
  namespace I = symx::interpolation;
  ip.def("map_coordinates", LOC(I::map_coordinates), "input"_a, "coordinates"_a, "order"_a = 1, "mode"_a = "constant",
         "cval"_a = 0.0, DOC(interpolation_map_coordinates));
  ip.def("affine_transform", &affine_transform_py, "input"_a, "theta"_a, "order"_a = 1, "downsample_factor"_a = 1,
         "border_mode"_a = "nearest", DOC(interpolation_affine_transform));
  ip.def("thin_plate_spline", &thin_plate_spline_py, "input"_a, "dest_offsets"_a, "order"_a = 1,
         "downsample_factor"_a = 1, "border_mode"_a = "nearest", DOC(interpolation_thin_plate_spline));
  ip.def("upsample_1d", LOC(I::upsample_1d), "tensor"_a, "repeat"_a, "axis"_a = -1, "mode"_a = "constant",
         "value"_a = 0.0, "boundary_condition"_a = "periodic", DOC(interpolation_upsample_1d));
  ip.def("upsample_2d", LOC(I::upsample_2d), "tensor"_a, "repeat"_a, "axes"_a = std::vector<int>{-2, -1},
         "mode"_a = "constant", "value"_a = 0.0, "boundary_condition"_a = "periodic", DOC(interpolation_upsample_2d));
  ip.def("hermite_1d", LOC(I::hermite_1d), "samples"_a, "knots"_a, "values"_a, "derivatives"_a,
         DOC(interpolation_hermite_1d));
  ip.def("hermite_2d", LOC(I::hermite_2d), "values"_a, "n_x"_a, "n_y"_a, DOC(interpolation_hermite_2d));
  nb::module_ im = m.def_submodule("image", "jax.image's resize (symx/interpolation.hpp).");
  im.def("resize", LOC(symx::image::resize), "image"_a, "shape"_a, "method"_a, "antialias"_a = true, DOC(image_resize));
  // SymJAX has no resize in tensor.interpolation; the alias puts it beside the other samplers.
  ip.attr("resize") = im.attr("resize");
}

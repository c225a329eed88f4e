// src/ops/interpolation.cpp: symx::interpolation (SymJAX's tensor.interpolation, scipy.ndimage's
// map_coordinates) and symx::image::resize (jax.image.resize), all composites (see the header).
//
// map_coordinates follows scipy/ndimage/src/ni_interpolation.c step by step, so that ties and
// far-outside coordinates land where SciPy's do: the coordinate is first mapped into the input by
// the mode's continuous map (map_coordinate there), then the order + 1 taps from floor(c) - order / 2
// (floor(c + 0.5) for order 0) are mapped to indices by the mode's integer map, read with one take
// of the flattened input per corner of the (order + 1)^rank stencil, weighted and summed. For order
// 3 the input is first replaced by its B-spline coefficients (SciPy's spline_filter with its
// boundary initializations, after padding 12 samples for 'nearest' and 'grid-constant' as
// _prepad_for_spline_filter), the filter applied as a constant (n + 2 pad) x n matrix per axis.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ops/op_table.hpp"
#include "symx/arrays.hpp"
#include "symx/interpolation.hpp"
#include "symx/numpy.hpp"
#include "symx/ops.hpp"

namespace symx {
namespace {

using ops::TypeProblem;

[[noreturn]] void fail(const char* name, const std::vector<Tensor>& operands, TypeProblem::Kind kind,
                       std::string problem, std::string fix, Loc loc) {
  ops::raise(name, operands, {kind, std::move(problem), std::move(fix)}, loc);
}

const std::vector<std::string> kModes = {"constant", "nearest",       "reflect",   "mirror",
                                         "wrap",     "grid-constant", "grid-wrap", "grid-mirror"};

DType float_dtype(const Tensor& x) { return is_floating(x.dtype()) ? x.dtype() : DType::f32; }
Tensor as_float(const Tensor& x, DType dt, Loc loc) { return x.dtype() == dt ? x : cast(x, dt, loc); }

std::int64_t known_size(const char* name, const Tensor& x, int axis, const char* what, Loc loc) {
  std::int64_t n = x.shape()[static_cast<std::size_t>(axis)];
  if (is_symbol(n))
    fail(name, {x}, TypeProblem::Kind::shape,
         std::string(what) + " has an unknown size along axis " + std::to_string(axis) + " (shape " +
             shape_string(x.shape()) + ")",
         "Give it a known size there (the interpolation weights depend on it), e.g. a placeholder with that "
         "size instead of None.",
         loc);
  return n;
}

Tensor matrix_constant(const std::vector<double>& m, std::int64_t rows, std::int64_t cols, DType dt, Loc loc) {
  Array a = Array::from_vector<double>(m, {rows, cols});
  return cast(constant(a, loc), dt, loc);
}

// y[..., i, ...] = sum_j m[i, j] x[..., j, ...] along `axis` (m: rows x cols, cols = x's size there).
Tensor apply_along(const Tensor& x, const std::vector<double>& m, std::int64_t rows, std::int64_t cols, int axis,
                   Loc loc) {
  Tensor mt = transpose(matrix_constant(m, rows, cols, x.dtype(), loc), {}, loc);  // (cols, rows)
  const int last = x.ndim() - 1;
  Tensor moved = axis == last ? x : moveaxis(x, {axis}, {last}, loc);
  Tensor y = matmul(moved, mt, loc);
  return axis == last ? y : moveaxis(y, {last}, {axis}, loc);
}

// ---- the cubic B-spline prefilter (scipy/ndimage/src/ni_splines.c, order 3: one pole) ----

enum class Init { mirror, reflect, wrap };

Init filter_init(const std::string& mode) {
  // apply_filter's switch: mirror-type for constant, mirror, wrap, grid-constant; reflect-type for
  // nearest, reflect, grid-mirror; periodic for grid-wrap.
  if (mode == "nearest" || mode == "reflect" || mode == "grid-mirror") return Init::reflect;
  if (mode == "grid-wrap") return Init::wrap;
  return Init::mirror;
}

// In place: the B-spline coefficients of the samples c[0 .. n-1].
void spline_filter_line(std::vector<double>& c, Init init) {
  const auto n = static_cast<std::int64_t>(c.size());
  if (n <= 1) return;
  const double z = std::sqrt(3.0) - 2.0;
  for (auto& v : c) v *= (1 - z) * (1 - 1 / z);
  // causal initialization
  switch (init) {
    case Init::mirror: {
      double zi = z;
      const double zn1 = std::pow(z, static_cast<double>(n - 1));
      double c0 = c[0] + zn1 * c[n - 1];
      for (std::int64_t i = 1; i < n - 1; ++i) {
        c0 += zi * (c[i] + zn1 * c[n - 1 - i]);
        zi *= z;
      }
      c[0] = c0 / (1 - zn1 * zn1);
      break;
    }
    case Init::reflect: {
      // Accumulated apart from c[0] (SciPy 1.17 reads its partial sum back at i = n - 1: gh-24550).
      double zi = z;
      const double zn = std::pow(z, static_cast<double>(n));
      const double first = c[0];
      double c0 = c[0] + zn * c[n - 1];
      for (std::int64_t i = 1; i < n; ++i) {
        c0 += zi * (c[i] + zn * c[n - 1 - i]);
        zi *= z;
      }
      c[0] = c0 * z / (1 - zn * zn) + first;
      break;
    }
    case Init::wrap: {
      double zi = z;
      double c0 = c[0];
      for (std::int64_t i = 1; i < n; ++i) {
        c0 += zi * c[n - i];
        zi *= z;
      }
      c[0] = c0 / (1 - zi);
      break;
    }
  }
  for (std::int64_t i = 1; i < n; ++i) c[i] += z * c[i - 1];
  // anticausal initialization
  switch (init) {
    case Init::mirror: c[n - 1] = (z * c[n - 2] + c[n - 1]) * z / (z * z - 1); break;
    case Init::reflect: c[n - 1] *= z / (z - 1); break;
    case Init::wrap: {
      double zi = z;
      double cn = c[n - 1];
      for (std::int64_t i = 0; i < n - 1; ++i) {
        cn += zi * c[i];
        zi *= z;
      }
      c[n - 1] = cn * z / (zi - 1);
      break;
    }
  }
  for (std::int64_t i = n - 2; i >= 0; --i) c[i] = z * (c[i + 1] - c[i]);
}

// The coefficients along one axis of n samples, padded by `pad` on both sides (edge values for
// 'nearest', cval for 'grid-constant'): coefficients = m x + cval * bias, m (n + 2 pad) x n.
struct AxisFilter {
  std::vector<double> m, bias;
  std::int64_t rows = 0;
};
AxisFilter axis_filter(std::int64_t n, std::int64_t pad, const std::string& mode) {
  AxisFilter f;
  const std::int64_t rows = n + 2 * pad;
  f.rows = rows;
  f.m.assign(static_cast<std::size_t>(rows * n), 0.0);
  const Init init = filter_init(mode);
  std::vector<double> line(static_cast<std::size_t>(rows));
  for (std::int64_t j = 0; j < n; ++j) {
    std::fill(line.begin(), line.end(), 0.0);
    line[static_cast<std::size_t>(pad + j)] = 1.0;
    if (mode == "nearest") {
      if (j == 0)
        for (std::int64_t i = 0; i < pad; ++i) line[static_cast<std::size_t>(i)] = 1.0;
      if (j == n - 1)
        for (std::int64_t i = pad + n; i < rows; ++i) line[static_cast<std::size_t>(i)] = 1.0;
    }
    spline_filter_line(line, init);
    for (std::int64_t i = 0; i < rows; ++i)
      f.m[static_cast<std::size_t>(i * n + j)] = line[static_cast<std::size_t>(i)];
  }
  if (mode == "grid-constant" && pad > 0) {
    std::fill(line.begin(), line.end(), 0.0);
    for (std::int64_t i = 0; i < pad; ++i)
      line[static_cast<std::size_t>(i)] = line[static_cast<std::size_t>(rows - 1 - i)] = 1.0;
    spline_filter_line(line, init);
    f.bias = line;
  }
  return f;
}

// ---- coordinate and tap maps (ni_interpolation.c's map_coordinate and the edge offsets) ----

// The continuous map of a coordinate outside [0, n-1] back into the input, as SciPy's
// map_coordinate; 'constant' clamps (its outside is masked to cval by the caller), 'nearest' and
// 'grid-constant' leave the coordinate alone (their taps are mapped instead).
Tensor map_coordinate(const Tensor& x, std::int64_t n, const std::string& mode, Loc loc) {
  const double len = static_cast<double>(n);
  if (mode == "constant") return clip(x, 0.0, len - 1, loc);
  if (mode == "nearest" || mode == "grid-constant") return x;
  if (n <= 1) return multiply(x, 0.0, loc);
  Tensor lo, hi;
  if (mode == "mirror") {
    const double s = 2 * len - 2;
    Tensor a = add(multiply(trunc(divide(negative(x, loc), s, loc), loc), s, loc), x, loc);
    lo = where(less_equal(a, 1 - len, loc), add(a, s, loc), negative(a, loc), loc);
    Tensor b = subtract(x, multiply(trunc(divide(x, s, loc), loc), s, loc), loc);
    hi = where(greater_equal(b, len, loc), subtract(s, b, loc), b, loc);
  } else if (mode == "reflect" || mode == "grid-mirror") {
    const double s = 2 * len;
    Tensor a =
        where(less(x, -s, loc), add(multiply(trunc(divide(negative(x, loc), s, loc), loc), s, loc), x, loc), x, loc);
    Tensor inner = subtract(where(greater(a, -1e-15, loc), 1e-15, negative(a, loc), loc), 1.0, loc);
    lo = where(less(a, -len, loc), add(a, s, loc), inner, loc);
    Tensor b = subtract(x, multiply(trunc(divide(x, s, loc), loc), s, loc), loc);
    hi = where(greater_equal(b, len, loc), subtract(s - 1, b, loc), b, loc);
  } else if (mode == "wrap") {
    const double s = len - 1;
    lo = add(x, multiply(add(trunc(divide(negative(x, loc), s, loc), loc), 1.0, loc), s, loc), loc);
    hi = subtract(x, multiply(trunc(divide(x, s, loc), loc), s, loc), loc);
  } else {  // grid-wrap
    lo = add(x, multiply(add(trunc(divide(subtract(-1.0, x, loc), len, loc), loc), 1.0, loc), len, loc), loc);
    hi = subtract(x, multiply(trunc(divide(x, len, loc), loc), len, loc), loc);
  }
  return where(less(x, 0.0, loc), lo, where(greater(x, len - 1, loc), hi, x, loc), loc);
}

// The index read for integer tap positions i (int64), and for 'grid-constant' whether it lies
// outside (then cval is read). Constant and wrap modes read their taps mirrored (SciPy's
// _get_spline_boundary_mode), nearest clamped.
struct Tap {
  Tensor index, outside;  // outside: undefined unless grid-constant
};
Tap map_tap(const Tensor& i, std::int64_t n, const std::string& mode, Loc loc) {
  Tap t;
  if (mode == "grid-constant") {
    t.outside = logical_or(less(i, std::int64_t{0}, loc), greater(i, n - 1, loc), loc);
    t.index = clip(i, std::int64_t{0}, n - 1, loc);
    return t;
  }
  if (n <= 1) {
    t.index = multiply(i, std::int64_t{0}, loc);
    return t;
  }
  if (mode == "nearest") {
    t.index = clip(i, std::int64_t{0}, n - 1, loc);
  } else if (mode == "reflect" || mode == "grid-mirror") {
    Tensor m = mod(i, 2 * n, loc);
    t.index = where(greater_equal(m, n, loc), subtract(2 * n - 1, m, loc), m, loc);
  } else if (mode == "grid-wrap") {
    t.index = mod(i, n, loc);
  } else {  // mirror, constant, wrap
    Tensor m = mod(i, 2 * n - 2, loc);
    t.index = where(greater_equal(m, n, loc), subtract(2 * n - 2, m, loc), m, loc);
  }
  return t;
}

// The cubic B-spline weights of the taps floor(c) - 1 .. floor(c) + 2 at fraction t.
std::vector<Tensor> cubic_weights(const Tensor& t, Loc loc) {
  Tensor t2 = multiply(t, t, loc);
  Tensor t3 = multiply(t2, t, loc);
  Tensor u = subtract(1.0, t, loc);
  Tensor w0 = divide(multiply(multiply(u, u, loc), u, loc), 6.0, loc);
  Tensor w1 = divide(add(subtract(4.0, multiply(t2, 6.0, loc), loc), multiply(t3, 3.0, loc), loc), 6.0, loc);
  Tensor w2 = divide(subtract(add(add(1.0, multiply(t, 3.0, loc), loc), multiply(t2, 3.0, loc), loc),
                              multiply(t3, 3.0, loc), loc),
                     6.0, loc);
  Tensor w3 = divide(t3, 6.0, loc);
  return {w0, w1, w2, w3};
}

struct AxisTaps {
  std::vector<Tensor> index, weight, outside;  // weight undefined for order 0
};

// The spline sampler: data (float, known shape) with `batch_axes` leading axes read exactly at the
// flat index `batch` (int64 over those axes, broadcast against the coordinates; undefined when
// batch_axes is 0) and the others interpolated at xs[k] (one coordinate tensor per axis).
Tensor sample(Tensor data, int batch_axes, const Tensor& batch, const std::vector<Tensor>& xs, int order,
              const std::string& mode, double cval, Loc loc) {
  const int rank = data.ndim() - batch_axes;
  const DType dt = data.dtype();
  Shape sizes(data.shape().begin() + batch_axes, data.shape().end());

  // Order 3: the B-spline coefficients, on the padded grid for 'nearest' and 'grid-constant'.
  std::int64_t pad = 0;
  if (order == 3) {
    if (mode == "nearest" || mode == "grid-constant") pad = 12;
    for (int k = 0; k < rank; ++k) {
      const std::int64_t n = sizes[static_cast<std::size_t>(k)];
      AxisFilter f = axis_filter(n, pad, mode);
      data = apply_along(data, f.m, f.rows, n, batch_axes + k, loc);
      if (!f.bias.empty() && cval != 0.0) {
        Shape bshape(static_cast<std::size_t>(rank), 1);
        bshape[static_cast<std::size_t>(k)] = f.rows;
        std::vector<double> b(f.bias);
        for (auto& v : b) v *= cval;
        data = add(data, cast(constant(Array::from_vector<double>(b, bshape), loc), dt, loc), loc);
      }
      sizes[static_cast<std::size_t>(k)] = f.rows;
    }
  }

  Tensor inside;  // 'constant': all coordinates within [0, n-1]
  std::vector<AxisTaps> axes(static_cast<std::size_t>(rank));
  for (int k = 0; k < rank; ++k) {
    const std::int64_t n = sizes[static_cast<std::size_t>(k)];
    Tensor x = xs[static_cast<std::size_t>(k)];
    if (pad) x = add(x, static_cast<double>(pad), loc);
    if (mode == "constant") {
      Tensor in = logical_and(greater_equal(x, 0.0, loc), less_equal(x, static_cast<double>(n - 1), loc), loc);
      inside = inside.defined() ? logical_and(inside, in, loc) : in;
    }
    Tensor c = map_coordinate(x, n, mode, loc);
    AxisTaps& taps = axes[static_cast<std::size_t>(k)];
    Tensor start;
    if (order == 0) {
      start = cast(floor(add(c, 0.5, loc), loc), DType::i64, loc);
    } else {
      Tensor fl = floor(c, loc);
      Tensor t = subtract(c, fl, loc);
      start = cast(fl, DType::i64, loc);
      if (order == 3) start = subtract(start, std::int64_t{1}, loc);
      taps.weight = order == 1 ? std::vector<Tensor>{subtract(1.0, t, loc), t} : cubic_weights(t, loc);
    }
    for (int j = 0; j <= order; ++j) {
      Tap tap = map_tap(j == 0 ? start : add(start, std::int64_t{j}, loc), n, mode, loc);
      taps.index.push_back(tap.index);
      taps.outside.push_back(tap.outside);
    }
  }

  Tensor flat = reshape(data, {-1}, loc);
  std::vector<std::int64_t> strides(static_cast<std::size_t>(rank), 1);
  std::int64_t batch_stride = 1;
  for (auto n : sizes) batch_stride *= n;
  for (int k = rank - 2; k >= 0; --k)
    strides[static_cast<std::size_t>(k)] =
        strides[static_cast<std::size_t>(k + 1)] * sizes[static_cast<std::size_t>(k + 1)];
  // Every corner of the stencil: one gather of the flattened input.
  const Tensor base = batch_axes == 0 ? Tensor() : multiply(batch, batch_stride, loc);
  Tensor result;
  std::vector<int> corner(static_cast<std::size_t>(rank), 0);
  while (true) {
    Tensor idx = base, w, out;
    for (int k = 0; k < rank; ++k) {
      const AxisTaps& taps = axes[static_cast<std::size_t>(k)];
      const auto j = static_cast<std::size_t>(corner[static_cast<std::size_t>(k)]);
      Tensor term = strides[static_cast<std::size_t>(k)] == 1
                        ? taps.index[j]
                        : multiply(taps.index[j], strides[static_cast<std::size_t>(k)], loc);
      idx = idx.defined() ? add(idx, term, loc) : term;
      if (order != 0) w = w.defined() ? multiply(w, taps.weight[j], loc) : taps.weight[j];
      if (taps.outside[j].defined()) out = out.defined() ? logical_or(out, taps.outside[j], loc) : taps.outside[j];
    }
    Tensor v = take(flat, idx, std::nullopt, loc);
    if (out.defined()) v = where(out, cval, v, loc);
    if (w.defined()) v = multiply(w, v, loc);
    result = result.defined() ? add(result, v, loc) : v;
    int k = rank - 1;
    while (k >= 0 && ++corner[static_cast<std::size_t>(k)] > order) corner[static_cast<std::size_t>(k--)] = 0;
    if (k < 0) break;
  }
  if (inside.defined()) result = where(inside, result, cval, loc);
  return result;
}

}  // namespace

namespace interpolation {

Tensor map_coordinates(const Tensor& input, const Tensor& coordinates, int order, const std::string& mode, double cval,
                       Loc loc) {
  const char* name = "map_coordinates";
  if (order != 0 && order != 1 && order != 3)
    fail(name, {input}, TypeProblem::Kind::value, "order " + std::to_string(order) + " is not offered",
         "Pass order=0 (nearest), 1 (linear) or 3 (cubic spline); SciPy's orders 2, 4 and 5 are not implemented.", loc);
  if (std::find(kModes.begin(), kModes.end(), mode) == kModes.end())
    fail(name, {input}, TypeProblem::Kind::value, "mode '" + mode + "' is not one of SciPy's modes",
         "Pass mode='constant', 'nearest', 'reflect', 'mirror', 'wrap', 'grid-constant', 'grid-wrap' or "
         "'grid-mirror'.",
         loc);
  const int rank = input.ndim();
  if (rank == 0)
    fail(name, {input}, TypeProblem::Kind::shape, "the input is a scalar", "Pass an input with at least one axis.",
         loc);
  if (coordinates.ndim() == 0 || coordinates.shape()[0] != rank)
    fail(name, {input, coordinates}, TypeProblem::Kind::shape,
         "coordinates of shape " + shape_string(coordinates.shape()) + " do not index an input of " +
             std::to_string(rank) + " dimensions (shape " + shape_string(input.shape()) + ")",
         "Pass coordinates of shape (" + std::to_string(rank) +
             ", ...): coordinates[k] holds the positions along input axis k (numpy.indices / meshgrid stacked on "
             "axis 0).",
         loc);
  const DType dt = float_dtype(input);
  Tensor coords = as_float(coordinates, dt, loc);
  for (int k = 0; k < rank; ++k) known_size(name, input, k, "the input", loc);
  std::vector<Tensor> xs;
  for (int k = 0; k < rank; ++k) xs.push_back(slice(coords, {Index(k)}, loc));
  return named_composite("map_coordinates", sample(as_float(input, dt, loc), 0, Tensor(), xs, order, mode, cval, loc));
}

namespace {

// The pixel coordinates (rows, cols) of (batch, 2, points) source points in [-1, 1] (x then y), and
// their sampling by map_coordinates: Lasagne's _interpolate.
Tensor sample_grid(const char* name, const Tensor& input, const Tensor& points, std::int64_t out_h, std::int64_t out_w,
                   int order, const std::string& border_mode, Loc loc) {
  std::string mode;
  if (border_mode == "nearest") mode = "nearest";
  else if (border_mode == "mirror") mode = "mirror";
  else if (border_mode == "wrap") mode = "grid-wrap";
  else
    fail(name, {input}, TypeProblem::Kind::value, "border_mode '" + border_mode + "' is not offered",
         "Pass border_mode='nearest', 'mirror' or 'wrap'.", loc);
  if (order != 0 && order != 1 && order != 3)
    fail(name, {input}, TypeProblem::Kind::value, "order " + std::to_string(order) + " is not offered",
         "Pass order=0 (nearest), 1 (linear) or 3 (cubic spline).", loc);
  const std::int64_t batch = input.shape()[0], channels = input.shape()[1];
  const std::int64_t height = input.shape()[2], width = input.shape()[3];
  Tensor xs = slice(points, {Index::all(), Index(0)}, loc);  // (batch, P)
  Tensor ys = slice(points, {Index::all(), Index(1)}, loc);
  Tensor cols = multiply(divide(add(xs, 1.0, loc), 2.0, loc), static_cast<double>(width - 1), loc);
  Tensor rows = multiply(divide(add(ys, 1.0, loc), 2.0, loc), static_cast<double>(height - 1), loc);
  // The batch and channel axes read exactly (their flat index), the rows and columns interpolated.
  Shape grid{batch, channels, out_h * out_w};
  std::vector<std::int64_t> bc(static_cast<std::size_t>(batch * channels));
  for (std::size_t i = 0; i < bc.size(); ++i) bc[i] = static_cast<std::int64_t>(i);
  Tensor flat_bc = constant(Array::from_vector<std::int64_t>(bc, {batch, channels, 1}), loc);
  Tensor r = broadcast_to(expand_dims(rows, 1, loc), grid, loc);
  Tensor q = broadcast_to(expand_dims(cols, 1, loc), grid, loc);
  Tensor out = sample(input, 2, flat_bc, {r, q}, order, mode, 0.0, loc);
  return reshape(out, {batch, channels, out_h, out_w}, loc);
}

std::pair<double, double> factors(const char* name, const Tensor& input, const std::vector<double>& f, Loc loc) {
  if (f.empty() || f.size() > 2 || f[0] <= 0 || f.back() <= 0)
    fail(name, {input}, TypeProblem::Kind::value, "downsample_factor must be one or two positive numbers",
         "Pass downsample_factor=2 or (2, 1), say.", loc);
  return {f[0], f.back()};
}

void check_images(const char* name, const Tensor& input, const Tensor& params, const char* params_name,
                  const std::string& expected, Loc loc) {
  if (input.ndim() != 4)
    fail(name, {input}, TypeProblem::Kind::shape,
         "the input has shape " + shape_string(input.shape()) + ", not (batch, channels, rows, cols)",
         "Pass a 4-D batch of images, channels first (add axes with expand_dims).", loc);
  for (int k = 0; k < 4; ++k) known_size(name, input, k, "the input", loc);
  if (params.ndim() != 2)
    fail(name, {input, params}, TypeProblem::Kind::shape,
         std::string(params_name) + " has shape " + shape_string(params.shape()) + ", not " + expected,
         std::string("Pass ") + params_name + " of shape " + expected + ".", loc);
}

}  // namespace

Tensor affine_transform(const Tensor& input, const Tensor& theta, int order, std::vector<double> downsample_factor,
                        const std::string& border_mode, Loc loc) {
  const char* name = "affine_transform";
  check_images(name, input, theta, "theta", "(batch, 6)", loc);
  if (theta.shape()[1] != 6)
    fail(name, {input, theta}, TypeProblem::Kind::shape,
         "theta has shape " + shape_string(theta.shape()) + ", not (batch, 6)",
         "Pass the 2 x 3 affine matrices flattened row by row: (1, 0, 0, 0, 1, 0) is the identity.", loc);
  auto [f0, f1] = factors(name, input, downsample_factor, loc);
  const std::int64_t out_h = static_cast<std::int64_t>(static_cast<double>(input.shape()[2]) / f0);
  const std::int64_t out_w = static_cast<std::int64_t>(static_cast<double>(input.shape()[3]) / f1);
  const DType dt = float_dtype(input);
  // The grid (x_t, y_t, 1) of eq. (1), x along the columns: (3, out_h * out_w).
  std::vector<double> grid(static_cast<std::size_t>(3 * out_h * out_w));
  auto lin = [](std::int64_t i, std::int64_t n) {
    return n == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1);
  };
  for (std::int64_t i = 0; i < out_h; ++i)
    for (std::int64_t j = 0; j < out_w; ++j) {
      const auto p = static_cast<std::size_t>(i * out_w + j);
      grid[p] = lin(j, out_w);
      grid[static_cast<std::size_t>(out_h * out_w) + p] = lin(i, out_h);
      grid[static_cast<std::size_t>(2 * out_h * out_w) + p] = 1.0;
    }
  Tensor th = reshape(as_float(theta, dt, loc), {-1, 2, 3}, loc);
  Tensor points = matmul(th, matrix_constant(grid, 3, out_h * out_w, dt, loc), loc);  // (batch, 2, P)
  return named_composite(name,
                         sample_grid(name, as_float(input, dt, loc), points, out_h, out_w, order, border_mode, loc));
}

namespace {

// r^2 log r^2 (0 at r = 0), the thin plate spline kernel U of Bookstein's paper.
double tps_u(double r2) { return r2 == 0 ? 0.0 : r2 * std::log(r2); }

// The inverse of a square matrix (row-major), by Gauss-Jordan elimination with partial pivoting.
std::vector<double> inverse(std::vector<double> a, std::int64_t n) {
  std::vector<double> inv(static_cast<std::size_t>(n * n), 0.0);
  for (std::int64_t i = 0; i < n; ++i) inv[static_cast<std::size_t>(i * n + i)] = 1.0;
  auto at = [n](std::vector<double>& m, std::int64_t r, std::int64_t c) -> double& {
    return m[static_cast<std::size_t>(r * n + c)];
  };
  for (std::int64_t col = 0; col < n; ++col) {
    std::int64_t piv = col;
    for (std::int64_t r = col + 1; r < n; ++r)
      if (std::abs(at(a, r, col)) > std::abs(at(a, piv, col))) piv = r;
    if (piv != col)
      for (std::int64_t c = 0; c < n; ++c) {
        std::swap(at(a, piv, c), at(a, col, c));
        std::swap(at(inv, piv, c), at(inv, col, c));
      }
    const double d = at(a, col, col);
    for (std::int64_t c = 0; c < n; ++c) {
      at(a, col, c) /= d;
      at(inv, col, c) /= d;
    }
    for (std::int64_t r = 0; r < n; ++r) {
      if (r == col) continue;
      const double f = at(a, r, col);
      if (f == 0) continue;
      for (std::int64_t c = 0; c < n; ++c) {
        at(a, r, c) -= f * at(a, col, c);
        at(inv, r, c) -= f * at(inv, col, c);
      }
    }
  }
  return inv;
}

}  // namespace

Tensor thin_plate_spline(const Tensor& input, const Tensor& dest_offsets, int order,
                         std::vector<double> downsample_factor, const std::string& border_mode, Loc loc) {
  const char* name = "thin_plate_spline";
  check_images(name, input, dest_offsets, "dest_offsets", "(batch, 2 * control_points)", loc);
  const std::int64_t two_k = dest_offsets.shape()[1];
  const auto side = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(two_k / 2))));
  if (is_symbol(two_k) || two_k % 2 != 0 || side * side * 2 != two_k || side < 2)
    fail(name, {input, dest_offsets}, TypeProblem::Kind::shape,
         "dest_offsets has shape " + shape_string(dest_offsets.shape()) +
             ": its second axis is not twice a perfect square of at least 4 control points",
         "Pass (batch, 2 * K) offsets, x offsets then y offsets, with K = 4, 9, 16, ... control points on a grid.",
         loc);
  const std::int64_t k = side * side;
  auto [f0, f1] = factors(name, input, downsample_factor, loc);
  const std::int64_t out_h = static_cast<std::int64_t>(static_cast<double>(input.shape()[2]) / f0);
  const std::int64_t out_w = static_cast<std::int64_t>(static_cast<double>(input.shape()[3]) / f1);
  const DType dt = float_dtype(input);
  auto lin = [](std::int64_t i, std::int64_t n) {
    return n == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1);
  };
  // Source control points (2, K): x varies fastest (numpy.meshgrid of two linspaces).
  std::vector<double> src(static_cast<std::size_t>(2 * k));
  for (std::int64_t i = 0; i < side; ++i)
    for (std::int64_t j = 0; j < side; ++j) {
      src[static_cast<std::size_t>(i * side + j)] = lin(j, side);
      src[static_cast<std::size_t>(k + i * side + j)] = lin(i, side);
    }
  // L = [[0, P^T], [P, K]] as Lasagne's _initialize_tps, with P = (1, x, y) per point.
  const std::int64_t ne = k + 3;
  std::vector<double> l(static_cast<std::size_t>(ne * ne), 0.0);
  for (std::int64_t p = 0; p < k; ++p) {
    const double px = src[static_cast<std::size_t>(p)], py = src[static_cast<std::size_t>(k + p)];
    l[static_cast<std::size_t>(0 * ne + 3 + p)] = 1.0;
    l[static_cast<std::size_t>(1 * ne + 3 + p)] = px;
    l[static_cast<std::size_t>(2 * ne + 3 + p)] = py;
    l[static_cast<std::size_t>((3 + p) * ne + 0)] = 1.0;
    l[static_cast<std::size_t>((3 + p) * ne + 1)] = px;
    l[static_cast<std::size_t>((3 + p) * ne + 2)] = py;
    for (std::int64_t q = 0; q < k; ++q) {
      const double dx = px - src[static_cast<std::size_t>(q)], dy = py - src[static_cast<std::size_t>(k + q)];
      l[static_cast<std::size_t>((3 + p) * ne + 3 + q)] = tps_u(dx * dx + dy * dy);
    }
  }
  std::vector<double> linv = inverse(l, ne);
  // L_inv[:, 3:]^T: (K, K + 3), the coefficients' map from destination points.
  std::vector<double> lt(static_cast<std::size_t>(k * ne));
  for (std::int64_t r = 0; r < ne; ++r)
    for (std::int64_t c = 0; c < k; ++c)
      lt[static_cast<std::size_t>(c * ne + r)] = linv[static_cast<std::size_t>(r * ne + 3 + c)];
  // right_mat (K + 3, P): 1, x, y, then U(|grid point - source point|^2) per control point.
  const std::int64_t npts = out_h * out_w;
  std::vector<double> right(static_cast<std::size_t>(ne * npts));
  for (std::int64_t i = 0; i < out_h; ++i)
    for (std::int64_t j = 0; j < out_w; ++j) {
      const std::int64_t p = i * out_w + j;
      const double x = lin(j, out_w), y = lin(i, out_h);
      right[static_cast<std::size_t>(p)] = 1.0;
      right[static_cast<std::size_t>(npts + p)] = x;
      right[static_cast<std::size_t>(2 * npts + p)] = y;
      for (std::int64_t q = 0; q < k; ++q) {
        const double dx = x - src[static_cast<std::size_t>(q)], dy = y - src[static_cast<std::size_t>(k + q)];
        right[static_cast<std::size_t>((3 + q) * npts + p)] = tps_u(dx * dx + dy * dy);
      }
    }
  Tensor dest =
      add(matrix_constant(src, 2, k, dt, loc), reshape(as_float(dest_offsets, dt, loc), {-1, 2, k}, loc), loc);
  Tensor coefficients = matmul(dest, matrix_constant(lt, k, ne, dt, loc), loc);          // (batch, 2, K + 3)
  Tensor points = matmul(coefficients, matrix_constant(right, ne, npts, dt, loc), loc);  // (batch, 2, P)
  return named_composite(name,
                         sample_grid(name, as_float(input, dt, loc), points, out_h, out_w, order, border_mode, loc));
}

Tensor upsample_1d(const Tensor& tensor, std::int64_t repeat, int axis, const std::string& mode, double value,
                   const std::string& boundary_condition, Loc loc) {
  const char* name = "upsample_1d";
  const int nd = tensor.ndim();
  if (nd == 0 || axis < -nd || axis >= nd)
    fail(name, {tensor}, TypeProblem::Kind::shape,
         "axis " + std::to_string(axis) + " is out of range for a tensor of shape " + shape_string(tensor.shape()),
         "Pass an axis in [-ndim, ndim).", loc);
  if (axis < 0) axis += nd;
  if (repeat < 0)
    fail(name, {tensor}, TypeProblem::Kind::value, "repeat is " + std::to_string(repeat) + ", negative",
         "Pass repeat >= 0, the number of values inserted between consecutive entries.", loc);
  if (mode != "constant" && mode != "nearest" && mode != "linear")
    fail(name, {tensor}, TypeProblem::Kind::value, "mode '" + mode + "' is not offered",
         "Pass mode='constant', 'nearest' or 'linear'.", loc);
  if (boundary_condition != "periodic" && boundary_condition != "mirror")
    fail(name, {tensor}, TypeProblem::Kind::value, "boundary_condition '" + boundary_condition + "' is not offered",
         "Pass boundary_condition='periodic' or 'mirror'.", loc);
  if (repeat == 0) return tensor;
  Shape out_shape = tensor.shape();
  if (!is_symbol(out_shape[static_cast<std::size_t>(axis)])) out_shape[static_cast<std::size_t>(axis)] *= 1 + repeat;
  else out_shape[static_cast<std::size_t>(axis)] = -1;
  Tensor aug;
  if (mode == "constant") {
    Shape zshape = tensor.shape();
    zshape.insert(zshape.begin() + axis + 1, repeat);
    if (has_symbols(zshape))
      fail(name, {tensor}, TypeProblem::Kind::shape,
           "the tensor's shape " + shape_string(tensor.shape()) + " is not known",
           "Give the tensor a known shape for mode='constant'.", loc);
    aug = concatenate({expand_dims(tensor, axis + 1, loc), full(zshape, value, tensor.dtype(), loc)}, axis + 1, loc);
  } else if (mode == "nearest") {
    if (boundary_condition != "periodic")
      fail(name, {tensor}, TypeProblem::Kind::value, "mode 'nearest' has no 'mirror' boundary condition (as SymJAX)",
           "Use boundary_condition='periodic' with mode='nearest'.", loc);
    const std::int64_t shift = -((repeat + 1) / 2);  // Python's -repeat // 2
    return named_composite(name, roll(symx::repeat(tensor, repeat + 1, axis, loc), {shift}, {axis}, loc));
  } else {
    const std::int64_t n = tensor.shape()[static_cast<std::size_t>(axis)];
    if (!is_symbol(n) && n < 2)
      fail(name, {tensor}, TypeProblem::Kind::shape,
           "mode 'linear' needs at least 2 entries along axis " + std::to_string(axis) + " (shape " +
               shape_string(tensor.shape()) + ")",
           "Use mode='nearest' or 'constant' for a single entry.", loc);
    const DType dt = float_dtype(tensor);
    Tensor x = as_float(tensor, dt, loc);
    Shape cshape(static_cast<std::size_t>(nd + 1), 1);
    cshape[static_cast<std::size_t>(axis + 1)] = repeat;
    std::vector<double> coef(static_cast<std::size_t>(repeat));
    for (std::int64_t i = 0; i < repeat; ++i)
      coef[static_cast<std::size_t>(i)] = static_cast<double>(i + 1) / static_cast<double>(repeat + 1);
    Tensor c = cast(constant(Array::from_vector<double>(coef, cshape), loc), dt, loc);
    Tensor a = expand_dims(x, axis + 1, loc);
    Tensor next = roll(a, {-1}, {axis}, loc);
    if (boundary_condition == "mirror") {
      // The last entry's next one is the one before it.
      Tensor last_prev = slice(
          a,
          [&] {
            std::vector<Index> ix(static_cast<std::size_t>(axis), Index::all());
            ix.push_back(Index::range(-2, -1));
            return ix;
          }(),
          loc);
      std::vector<Index> head(static_cast<std::size_t>(axis), Index::all());
      head.push_back(Index::range(std::nullopt, -1));
      next = concatenate({slice(next, head, loc), last_prev}, axis, loc);
    }
    Tensor inter = add(multiply(a, subtract(1.0, c, loc), loc), multiply(next, c, loc), loc);
    aug = concatenate({a, inter}, axis + 1, loc);
  }
  return named_composite(name, reshape(aug, out_shape, loc));
}

Tensor upsample_2d(const Tensor& tensor, std::vector<std::int64_t> repeat, std::vector<int> axes,
                   const std::string& mode, double value, const std::string& boundary_condition, Loc loc) {
  if (repeat.size() == 1) repeat.push_back(repeat[0]);
  if (repeat.size() != 2 || axes.size() != 2)
    fail("upsample_2d", {tensor}, TypeProblem::Kind::value, "repeat and axes must give one or two repeats and two axes",
         "Pass repeat=2 or (2, 3) and axes=(-2, -1), say.", loc);
  const int nd = tensor.ndim();
  int a0 = axes[0] < 0 ? axes[0] + nd : axes[0];
  int a1 = axes[1] < 0 ? axes[1] + nd : axes[1];
  Tensor y = upsample_1d(tensor, repeat[0], a0, mode, value, boundary_condition, loc);
  return named_composite("upsample_2d", upsample_1d(y, repeat[1], a1, mode, value, boundary_condition, loc));
}

Tensor hermite_1d(const Tensor& samples, const Tensor& knots, const Tensor& values, const Tensor& derivatives,
                  Loc loc) {
  const char* name = "hermite_1d";
  if (knots.ndim() == 0 || knots.shape() != values.shape() || knots.shape() != derivatives.shape())
    fail(name, {knots, values, derivatives}, TypeProblem::Kind::shape,
         "knots " + shape_string(knots.shape()) + ", values " + shape_string(values.shape()) + " and derivatives " +
             shape_string(derivatives.shape()) + " differ in shape",
         "Pass knots, values and derivatives of one shape (..., K).", loc);
  if (!is_symbol(knots.shape().back()) && knots.shape().back() < 2)
    fail(name, {knots}, TypeProblem::Kind::shape, "there is only one knot", "Pass at least two knots.", loc);
  if (samples.ndim() == 0)
    fail(name, {samples}, TypeProblem::Kind::shape, "samples is a scalar", "Pass samples of shape (T,).", loc);
  const DType dt = float_dtype(knots);
  Tensor kn = as_float(knots, dt, loc), v = as_float(values, dt, loc), d = as_float(derivatives, dt, loc);
  Tensor s = as_float(samples, dt, loc);
  const std::vector<Index> head{Index::ellipsis(), Index::range(std::nullopt, -1)};
  const std::vector<Index> tail{Index::ellipsis(), Index::range(1, std::nullopt)};
  Tensor v0 = slice(v, head, loc), v1 = slice(v, tail, loc), d0 = slice(d, head, loc), d1 = slice(d, tail, loc);
  // The cubic's coefficients on each interval, of t^0 .. t^3 (SymJAX's _HERMITE).
  Tensor c0 = v0;
  Tensor c1 = d0;
  Tensor c2 = subtract(subtract(multiply(subtract(v1, v0, loc), 3.0, loc), multiply(d0, 2.0, loc), loc), d1, loc);
  Tensor c3 = add(add(multiply(subtract(v0, v1, loc), 2.0, loc), d0, loc), d1, loc);
  Tensor sx = samples.ndim() == 1 ? reshape(
                                        s,
                                        [&] {
                                          Shape sh(static_cast<std::size_t>(knots.ndim()), 1);
                                          sh.push_back(-1);
                                          return sh;
                                        }(),
                                        loc)
                                  : expand_dims(s, -2, loc);
  Tensor start = expand_dims(slice(kn, head, loc), -1, loc);
  Tensor end = expand_dims(slice(kn, tail, loc), -1, loc);
  Tensor pos = divide(subtract(sx, start, loc), subtract(end, start, loc), loc);  // (..., K - 1, T)
  Tensor mask = cast(logical_and(greater_equal(pos, 0.0, loc), less_equal(pos, 1.0, loc), loc), dt, loc);
  mask = divide(mask, maximum(1.0, sum(mask, Axes(std::int64_t{-2}), true, loc), loc), loc);
  auto e = [&](const Tensor& c) { return expand_dims(c, -1, loc); };
  // Horner: ((c3 t + c2) t + c1) t + c0 on each interval, masked, summed over the intervals.
  Tensor p = add(multiply(add(multiply(add(multiply(e(c3), pos, loc), e(c2), loc), pos, loc), e(c1), loc), pos, loc),
                 e(c0), loc);
  return named_composite(name, sum(multiply(p, mask, loc), Axes(std::int64_t{-2}), false, loc));
}

Tensor hermite_2d(const Tensor& values, std::int64_t n_x, std::int64_t n_y, Loc loc) {
  const char* name = "hermite_2d";
  if (values.ndim() != 4 || values.shape()[3] != 4)
    fail(name, {values}, TypeProblem::Kind::shape,
         "values has shape " + shape_string(values.shape()) + ", not (n, N, M, 4)",
         "Pass f, df/dx, df/dy and d2f/dxdy at each knot stacked on a last axis of 4.", loc);
  for (int k = 1; k < 3; ++k) known_size(name, values, k, "values", loc);
  if (n_x < 3 || n_y < 3)
    fail(name, {values}, TypeProblem::Kind::value,
         "n_x = " + std::to_string(n_x) + " and n_y = " + std::to_string(n_y) + ": each must be at least 3",
         "Pass n_x, n_y >= 3 (each cell is sampled at linspace(0, 1, n - 1), as SymJAX).", loc);
  const std::int64_t nn = values.shape()[1], mm = values.shape()[2];
  if (nn < 2 || mm < 2)
    fail(name, {values}, TypeProblem::Kind::shape, "values has fewer than 2 knots along an axis",
         "Pass at least 2 x 2 knots.", loc);
  const DType dt = float_dtype(values);
  Tensor v = as_float(values, dt, loc);
  auto corner = [&](int di, int dj) {
    return slice(v, {Index::all(), Index::range(di, nn - 1 + di), Index::range(dj, mm - 1 + dj)}, loc);
  };  // (n, N-1, M-1, 4)
  auto comp = [&](const Tensor& c, int q) { return slice(c, {Index::ellipsis(), Index(q)}, loc); };
  Tensor c00 = corner(0, 0), c01 = corner(0, 1), c10 = corner(1, 0), c11 = corner(1, 1);
  // F = [[f00, f01, fy00, fy01], [f10, f11, fy10, fy11], [fx00, fx01, fxy00, fxy01], [fx10, fx11, fxy10, fxy11]]
  auto row = [&](const Tensor& a, const Tensor& b, int q0, int q1) {
    return stack({comp(a, q0), comp(b, q0), comp(a, q1), comp(b, q1)}, -1, loc);
  };
  Tensor f = stack({row(c00, c01, 0, 2), row(c10, c11, 0, 2), row(c00, c01, 1, 3), row(c10, c11, 1, 3)}, -2, loc);
  // p(x, y) = X^T M F M^T Y with X = (1, x, x^2, x^3).
  const std::vector<double> m{1, 0, 0, 0, 0, 0, 1, 0, -3, 3, -2, -1, 2, -2, 1, 1};
  auto basis = [&](std::int64_t n) {  // (n - 1, 4) rows (1, t, t^2, t^3), t = linspace(0, 1, n - 1)
    std::vector<double> b(static_cast<std::size_t>((n - 1) * 4));
    for (std::int64_t i = 0; i < n - 1; ++i) {
      const double t = static_cast<double>(i) / static_cast<double>(n - 2);
      for (int p = 0; p < 4; ++p) b[static_cast<std::size_t>(i * 4 + p)] = std::pow(t, p);
    }
    return b;
  };
  // A = T_x M: (n_x - 1, 4); B = T_y M: (n_y - 1, 4).
  auto times_m = [&](const std::vector<double>& t, std::int64_t rows) {
    std::vector<double> out(static_cast<std::size_t>(rows * 4), 0.0);
    for (std::int64_t i = 0; i < rows; ++i)
      for (int c = 0; c < 4; ++c)
        for (int p = 0; p < 4; ++p)
          out[static_cast<std::size_t>(i * 4 + c)] +=
              t[static_cast<std::size_t>(i * 4 + p)] * m[static_cast<std::size_t>(p * 4 + c)];
    return out;
  };
  Tensor a = matrix_constant(times_m(basis(n_x), n_x - 1), n_x - 1, 4, dt, loc);
  Tensor b = matrix_constant(times_m(basis(n_y), n_y - 1), n_y - 1, 4, dt, loc);
  // (n, N-1, M-1, 4, 4) -> (n, N-1, M-1, n_x - 1, n_y - 1)
  Tensor out = matmul(matmul(a, f, loc), transpose(b, {}, loc), loc);
  out = transpose(out, {0, 1, 3, 2, 4}, loc);
  return named_composite(name, reshape(out, {values.shape()[0], (nn - 1) * (n_x - 1), (mm - 1) * (n_y - 1)}, loc));
}

}  // namespace interpolation

namespace image {
namespace {

double keys_cubic(double x) {
  if (x >= 2) return 0;
  if (x >= 1) return ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0;
  return ((1.5 * x - 2.5) * x) * x + 1.0;
}
double lanczos(double radius, double x) {
  if (x > radius) return 0;
  if (x <= 1e-3) return 1;
  const double pi = 3.14159265358979323846;
  return radius * std::sin(pi * x) * std::sin(pi * x / radius) / (pi * pi * x * x);
}

// jax.image's compute_weight_mat, transposed: (out, in).
std::vector<double> kernel_weights(std::int64_t in, std::int64_t out, const std::string& kernel, bool antialias) {
  const double scale = static_cast<double>(out) / static_cast<double>(in);
  const double inv = 1.0 / scale;
  const double kscale = antialias ? std::max(inv, 1.0) : 1.0;
  std::vector<double> w(static_cast<std::size_t>(out * in), 0.0);
  for (std::int64_t i = 0; i < out; ++i) {
    const double sample = (static_cast<double>(i) + 0.5) * inv - 0.5;
    if (sample < -0.5 || sample > static_cast<double>(in) - 0.5) continue;
    double total = 0;
    for (std::int64_t j = 0; j < in; ++j) {
      const double x = std::abs(sample - static_cast<double>(j)) / kscale;
      double k = 0;
      if (kernel == "linear") k = std::max(0.0, 1.0 - x);
      else if (kernel == "cubic") k = keys_cubic(x);
      else if (kernel == "lanczos3") k = lanczos(3, x);
      else k = lanczos(5, x);
      w[static_cast<std::size_t>(i * in + j)] = k;
      total += k;
    }
    const double eps = 1000.0 * 1.1920928955078125e-07;
    for (std::int64_t j = 0; j < in; ++j) {
      double& v = w[static_cast<std::size_t>(i * in + j)];
      v = std::abs(total) > eps ? v / total : 0.0;
    }
  }
  return w;
}

// Each output cell [i in/out, (i+1) in/out) averages the input cells it overlaps.
std::vector<double> area_weights(std::int64_t in, std::int64_t out) {
  std::vector<double> w(static_cast<std::size_t>(out * in), 0.0);
  const double step = static_cast<double>(in) / static_cast<double>(out);
  for (std::int64_t i = 0; i < out; ++i) {
    const double lo = static_cast<double>(i) * step, hi = static_cast<double>(i + 1) * step;
    for (auto j = static_cast<std::int64_t>(std::floor(lo)); j < in && static_cast<double>(j) < hi; ++j) {
      const double overlap = std::min(hi, static_cast<double>(j + 1)) - std::max(lo, static_cast<double>(j));
      if (overlap > 0) w[static_cast<std::size_t>(i * in + j)] = overlap / step;
    }
  }
  return w;
}

}  // namespace

Tensor resize(const Tensor& image, Shape shape, const std::string& method_in, bool antialias, Loc loc) {
  const char* name = "resize";
  std::string method = method_in;
  if (method == "bilinear" || method == "trilinear" || method == "triangle") method = "linear";
  if (method == "bicubic" || method == "tricubic") method = "cubic";
  if (method != "nearest" && method != "linear" && method != "cubic" && method != "lanczos3" && method != "lanczos5" &&
      method != "area")
    fail(name, {image}, TypeProblem::Kind::value, "method '" + method_in + "' is not offered",
         "Pass method='nearest', 'linear' (or 'bilinear'), 'cubic' (or 'bicubic'), 'lanczos3', 'lanczos5' or 'area'.",
         loc);
  if (static_cast<int>(shape.size()) != image.ndim())
    fail(name, {image}, TypeProblem::Kind::shape,
         "shape " + shape_string(shape) + " has " + std::to_string(shape.size()) + " sizes for an image of " +
             std::to_string(image.ndim()) + " dimensions (shape " + shape_string(image.shape()) + ")",
         "Give the full output shape, the unchanged axes included: (batch, new_rows, new_cols, channels), say.", loc);
  for (std::size_t k = 0; k < shape.size(); ++k)
    if (shape[k] < 0)
      fail(name, {image}, TypeProblem::Kind::value, "shape " + shape_string(shape) + " has a negative size",
           "Pass sizes >= 0.", loc);
  const DType dt = float_dtype(image);
  Tensor y = as_float(image, dt, loc);
  for (int k = 0; k < image.ndim(); ++k) {
    const std::int64_t out = shape[static_cast<std::size_t>(k)];
    const std::int64_t in = known_size(name, image, k, "the image", loc);
    if (in == out) continue;
    if (in == 0)
      fail(name, {image}, TypeProblem::Kind::shape, "the image has no elements along axis " + std::to_string(k),
           "Resize a non-empty image.", loc);
    if (method == "nearest") {
      std::vector<std::int64_t> idx(static_cast<std::size_t>(out));
      for (std::int64_t i = 0; i < out; ++i) {
        // float32 as JAX: floor((i + 0.5) * in / out)
        const float f = (static_cast<float>(i) + 0.5f) * static_cast<float>(in) / static_cast<float>(out);
        idx[static_cast<std::size_t>(i)] = std::min<std::int64_t>(static_cast<std::int64_t>(std::floor(f)), in - 1);
      }
      y = take(y, constant(Array::from_vector<std::int64_t>(idx, {out}), loc), k, loc);
    } else {
      std::vector<double> w = method == "area" ? area_weights(in, out) : kernel_weights(in, out, method, antialias);
      y = apply_along(y, w, out, in, k, loc);
    }
  }
  return named_composite(name, y);
}

}  // namespace image
}  // namespace symx

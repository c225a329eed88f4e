// src/ops/signal.cpp: symx::signal (symx/signal.hpp), SymJAX's tensor.signal with SciPy's signatures.
//
// Windows are constants computed in double from SciPy's formulas. The rest are composites:
//  * convolve / correlate (any of 1-3 dimensions) are one Conv node of a batch of one and a single channel,
//    the kernel flipped (Conv is a cross-correlation), padded as the mode says; integer inputs are computed in
//    float64 and rounded back, as SciPy's direct method keeps their dtype.
//  * convolve2d / correlate2d's boundaries ("wrap", "symm", or "fill" with a value other than 0) extend in1 by
//    a gather of the periodic or mirrored indices, then take the valid part.
//  * batch_convolve / batch_convolve_transpose move the user's layout to (N, C, spatial...) and
//    (O, I, spatial...) by transposes, dilate the input by inserting zeros (a pad along a new axis and a
//    reshape), and call nn::conv1d / conv2d; conv_transpose's padding is JAX's _conv_transpose_padding.
//  * extract_signal_patches is a take of the (P, L) window indices; extract_image_patches and pool stack one
//    strided slice per window offset and reduce (or reshape) that axis: prod(window) slices, each fused.
//  * dct / idct multiply by the transform's (N, N) cosine matrix (computed in double, a constant).
#include "symx/signal.hpp"

#include <cmath>
#include <numbers>
#include <numeric>

#include "ops/op_table.hpp"
#include "symx/arrays.hpp"
#include "symx/fft.hpp"
#include "symx/numpy.hpp"
#include "symx/special.hpp"

namespace symx::signal {
namespace {

using ops::TypeProblem;
constexpr double kPi = std::numbers::pi;

[[noreturn]] void raise_value(const char* name, const std::vector<Tensor>& operands, std::string problem,
                              std::string fix, Loc loc) {
  ops::raise(name, operands, {TypeProblem::Kind::value, std::move(problem), std::move(fix)}, loc);
}
[[noreturn]] void raise_shape(const char* name, const std::vector<Tensor>& operands, std::string problem,
                              std::string fix, Loc loc) {
  ops::raise(name, operands, {TypeProblem::Kind::shape, std::move(problem), std::move(fix)}, loc);
}

void need_static(const char* name, const Tensor& x, Loc loc) {
  if (has_symbols(x.shape()))
    raise_shape(name, {x}, "needs known sizes, got shape " + shape_string(x.shape()),
                "Give the placeholder fixed sizes, or build the graph for a call's sizes.", loc);
}

void need_float_dtype(const char* name, DType dtype, Loc loc) {
  if (!is_floating(dtype))
    raise_value(name, {}, "dtype must be float32 or float64, got " + std::string(dtype_name(dtype)),
                "Pass dtype=float32 or float64.", loc);
}

Tensor window_constant(const std::vector<double>& w, DType dtype, Loc loc) {
  Array a({static_cast<std::int64_t>(w.size())}, dtype);
  for (std::size_t i = 0; i < w.size(); ++i) a.set_flat(static_cast<std::int64_t>(i), w[i]);
  return constant(a, loc);
}

// A window of M points by SciPy's recipe: M <= 1 is [] or [1]; the periodic window (sym = false) is the
// symmetric one of M + 1 points without its last. `f(n, M)` gives point n of the symmetric window of M points.
template <class F> Tensor make_window(const char* name, std::int64_t M, bool sym, DType dtype, Loc loc, F f) {
  need_float_dtype(name, dtype, loc);
  if (M < 0)
    raise_value(name, {}, "M must be non-negative, got " + std::to_string(M), "Pass the number of points, M >= 0.",
                loc);
  if (M <= 1) return window_constant(std::vector<double>(static_cast<std::size_t>(M), 1.0), dtype, loc);
  std::int64_t m = sym ? M : M + 1;
  std::vector<double> w(static_cast<std::size_t>(M));
  for (std::int64_t n = 0; n < M; ++n)
    w[static_cast<std::size_t>(n)] = f(static_cast<double>(n), static_cast<double>(m));
  return window_constant(w, dtype, loc);
}

// SciPy's general_cosine: sum_k (-1)^k a_k cos(2 pi k n / (M - 1)).
double general_cosine(double n, double m, std::initializer_list<double> a) {
  double x = -kPi + 2 * kPi * n / (m - 1), s = 0;
  int k = 0;
  for (double ak : a) s += ak * std::cos(k++ * x);
  return s;
}

// ---- convolution helpers ----

// The Conv node of x (N, C, spatial...) and w (O, C, spatial...) with explicit padding, stride 1.
Tensor conv_node(const Tensor& x, const Tensor& w, const std::vector<std::int64_t>& lo,
                 const std::vector<std::int64_t>& hi, const char* name, Loc loc) {
  ConvAttr attr;
  std::size_t sd = lo.size();
  attr.strides.assign(sd, 1);
  attr.dilation.assign(sd, 1);
  attr.pad_low = lo;
  attr.pad_high = hi;
  attr.input_shape = x.shape();
  attr.filter_shape = w.shape();
  return ops::make_node(OpKind::Conv, {x, w}, attr, loc, name);
}

// An operand as a tensor of `dtype`: a number becomes a constant of it, a tensor is cast.
Tensor as_dtype(const Operand& v, DType dtype, Loc loc) {
  return v.is_tensor() ? cast(v.tensor(), dtype, loc) : constant(v.number(), dtype, loc);
}

bool is_valid_mode(const std::string& mode) { return mode == "full" || mode == "same" || mode == "valid"; }

// The dtype a convolution computes in and the one it returns.
struct ConvTypes {
  DType compute, result;
};
ConvTypes conv_types(const char* name, const Tensor& a, const Tensor& b, Loc loc) {
  if (a.dtype() == DType::b8 || b.dtype() == DType::b8)
    raise_value(name, {a, b}, "bool inputs have no convolution", "Cast them to a number type first.", loc);
  DType r = promote_types(a.dtype(), b.dtype());
  return {is_floating(r) ? r : DType::f64, r};
}

Tensor finish(const Tensor& y, const ConvTypes& t, Loc loc) {
  return is_floating(t.result) ? y : cast(round(y, loc), t.result, loc);
}

// Whether `a` is at least as large as `b` on every axis.
bool covers(const Shape& a, const Shape& b) {
  for (std::size_t d = 0; d < a.size(); ++d)
    if (a[d] < b[d]) return false;
  return true;
}

// Whether the FFT computes a (*) b faster than the direct sum (SciPy's method="auto" in spirit, with
// this machine's crossover): both inputs of at least 64 elements and n m above 2^20 multiplies, where
// the oneDNN convolution (direct) takes longer than three transforms of the full output's size.
bool use_fft(const Tensor& a, const Tensor& b) {
  return a.size() >= 64 && b.size() >= 64 && static_cast<double>(a.size()) * static_cast<double>(b.size()) > 1 << 20;
}

// in1 (*) in2 (SciPy's convolve: direct, or through the FFT when use_fft), computed in `compute`.
Tensor convolve_nd(const char* name, const Tensor& in1, const Tensor& in2, const std::string& mode, Loc loc) {
  if (!is_valid_mode(mode))
    raise_value(name, {in1, in2}, "unknown mode '" + mode + "'", "Pass mode='full', 'same' or 'valid'.", loc);
  if (in1.ndim() != in2.ndim())
    raise_shape(name, {in1, in2},
                "in1 and in2 must have the same number of dimensions, got shapes " + shape_string(in1.shape()) +
                    " and " + shape_string(in2.shape()),
                "Reshape one of them (add axes of size 1).", loc);
  if (in1.ndim() < 1 || in1.ndim() > 3)
    raise_shape(name, {in1, in2}, "supports 1 to 3 dimensions, got " + std::to_string(in1.ndim()),
                "Convolve 1-D, 2-D or 3-D arrays (batch_convolve takes batches and channels).", loc);
  need_static(name, in1, loc);
  need_static(name, in2, loc);
  ConvTypes t = conv_types(name, in1, in2, loc);
  if (in1.size() == 0 || in2.size() == 0)
    raise_value(name, {in1, in2},
                "an input is empty (shapes " + shape_string(in1.shape()) + " and " + shape_string(in2.shape()) + ")",
                "Pass non-empty arrays.", loc);
  Tensor a = cast(in1, t.compute, loc), b = cast(in2, t.compute, loc);
  if (mode == "valid" && !covers(a.shape(), b.shape())) {
    if (!covers(b.shape(), a.shape()))
      raise_shape(name, {in1, in2},
                  "in 'valid' mode one input must be at least as large as the other on every axis, got shapes " +
                      shape_string(in1.shape()) + " and " + shape_string(in2.shape()),
                  "Use mode='full' or 'same', or pass inputs whose shapes are ordered on every axis.", loc);
    std::swap(a, b);  // convolution is commutative: the valid part is the same
  }
  std::size_t nd = static_cast<std::size_t>(a.ndim());
  if (use_fft(a, b)) {  // SciPy's method="fft": transforms of the full output's size, then its centre
    std::vector<std::int64_t> full;
    std::vector<int> axes;
    for (std::size_t d = 0; d < nd; ++d) {  // a 7-smooth size, where FFTW is fastest (SciPy's next_fast_len)
      std::int64_t n = a.shape()[d] + b.shape()[d] - 1, fast = n;
      auto smooth = [](std::int64_t v) {
        for (std::int64_t p : {2, 3, 5, 7})
          while (v % p == 0) v /= p;
        return v == 1;
      };
      while (!smooth(fast)) ++fast;
      full.push_back(fast);
      axes.push_back(static_cast<int>(d));
    }
    Tensor y = fft::irfftn(fft::rfftn(a, full, axes, "backward", loc) * fft::rfftn(b, full, axes, "backward", loc),
                           full, axes, "backward", loc);
    std::vector<Index> index;
    for (std::size_t d = 0; d < nd; ++d) {
      const std::int64_t n = a.shape()[d], m = b.shape()[d];
      const std::int64_t start = mode == "full" ? 0 : mode == "valid" ? m - 1 : (m - 1) / 2;
      const std::int64_t count = mode == "full" ? n + m - 1 : mode == "valid" ? n - m + 1 : n;
      index.push_back(Index::range(start, start + count));
    }
    return finish(slice(y, index, loc), t, loc);
  }
  std::vector<std::int64_t> lo(nd), hi(nd);
  for (std::size_t d = 0; d < nd; ++d) {
    std::int64_t m = b.shape()[d];
    if (mode == "full") lo[d] = hi[d] = m - 1;
    else if (mode == "valid") lo[d] = hi[d] = 0;
    else {  // SciPy's _centered: full[(m - 1) / 2 : (m - 1) / 2 + n]
      hi[d] = (m - 1) / 2;
      lo[d] = m - 1 - hi[d];
    }
  }
  Shape xs{1, 1}, ws{1, 1};
  xs.insert(xs.end(), a.shape().begin(), a.shape().end());
  ws.insert(ws.end(), b.shape().begin(), b.shape().end());
  Tensor y = conv_node(reshape(a, xs, loc), reshape(flip(b, {}, loc), ws, loc), lo, hi, name, loc);
  Shape out(y.shape().begin() + 2, y.shape().end());
  return finish(reshape(y, out, loc), t, loc);
}

// Indices into an axis of n cells extended by lo before and hi after, periodic ("wrap") or mirrored with
// the edge repeated ("symm", NumPy's "symmetric").
Tensor extended_indices(std::int64_t n, std::int64_t lo, std::int64_t hi, bool wrap, Loc loc) {
  std::vector<std::int64_t> idx;
  for (std::int64_t i = -lo; i < n + hi; ++i) {
    std::int64_t j;
    if (wrap) j = ((i % n) + n) % n;
    else {
      std::int64_t p = ((i % (2 * n)) + 2 * n) % (2 * n);
      j = p < n ? p : 2 * n - 1 - p;
    }
    idx.push_back(j);
  }
  Array a({static_cast<std::int64_t>(idx.size())}, DType::i64);
  for (std::size_t i = 0; i < idx.size(); ++i) a.set_flat(static_cast<std::int64_t>(i), static_cast<double>(idx[i]));
  return constant(a, loc);
}

// correlate: correlate2d, whose "same" output starts where SciPy's _correlate2d puts it (m / 2 cells into the full
// output on an axis of m taps, where the convolution's starts (m - 1) / 2 in).
Tensor convolve2d_impl(const char* name, const Tensor& in1, const Tensor& in2_flipped, const Tensor& in2_user,
                       const std::string& mode, const std::string& boundary, double fillvalue, bool correlate,
                       Loc loc) {
  if (in1.ndim() != 2 || in2_user.ndim() != 2)
    raise_shape(name, {in1, in2_user},
                "needs 2-D inputs, got shapes " + shape_string(in1.shape()) + " and " + shape_string(in2_user.shape()),
                "Pass 2-D arrays (signal.convolve takes other ranks).", loc);
  if (boundary != "fill" && boundary != "wrap" && boundary != "symm")
    raise_value(name, {in1, in2_user}, "unknown boundary '" + boundary + "'", "Pass boundary='fill', 'wrap' or 'symm'.",
                loc);
  if (!is_valid_mode(mode))
    raise_value(name, {in1, in2_user}, "unknown mode '" + mode + "'", "Pass mode='full', 'same' or 'valid'.", loc);
  if (mode == "valid" || (mode == "full" && boundary == "fill" && fillvalue == 0) ||
      (!correlate && boundary == "fill" && fillvalue == 0))
    return convolve_nd(name, in1, in2_flipped, mode, loc);
  need_static(name, in1, loc);
  need_static(name, in2_user, loc);
  // Extend in1 by the cells the mode reaches beyond its edges, then take the valid convolution.
  Tensor x = in1;
  for (int d = 0; d < 2; ++d) {
    std::int64_t n = in1.shape()[static_cast<std::size_t>(d)], m = in2_user.shape()[static_cast<std::size_t>(d)];
    std::int64_t hi = mode == "full" ? m - 1 : (m - 1) / 2, lo = mode == "full" ? m - 1 : m - 1 - hi;
    if (correlate) std::swap(lo, hi);
    if (n == 0) break;
    if (boundary == "fill") {
      std::vector<std::pair<std::int64_t, std::int64_t>> w(2, {0, 0});
      w[static_cast<std::size_t>(d)] = {lo, hi};
      x = pad(x, w, fillvalue, loc);
    } else {
      x = take(x, extended_indices(n, lo, hi, boundary == "wrap", loc), d, loc);
    }
  }
  return convolve_nd(name, x, in2_flipped, "valid", loc);
}

// ---- layouts of batch_convolve ----

// The permutation that takes a tensor of `format` to (first, second, spatial in `order`), and back.
struct Layout {
  std::vector<int> to_canonical;
};
Layout layout_of(const char* name, const Tensor& x, const std::string& format, char first, char second,
                 const std::string& spatial_order, Loc loc) {
  if (static_cast<int>(format.size()) != x.ndim())
    raise_shape(name, {x},
                "format '" + format + "' has " + std::to_string(format.size()) + " letters for a tensor of shape " +
                    shape_string(x.shape()),
                "Give one letter per axis (for example 'NCHW' and 'OIHW').", loc);
  Layout l;
  auto find = [&](char c) {
    auto p = format.find(c);
    if (p == std::string::npos)
      raise_value(name, {x}, "format '" + format + "' has no '" + std::string(1, c) + "'",
                  "Name every axis: N and C (input, output), O and I (filter), and the same spatial letters.", loc);
    return static_cast<int>(p);
  };
  l.to_canonical.push_back(find(first));
  l.to_canonical.push_back(find(second));
  for (char c : spatial_order) l.to_canonical.push_back(find(c));
  return l;
}

std::string default_format(std::size_t ndim, bool filter) {
  if (ndim == 3) return filter ? "OIW" : "NCW";
  if (ndim == 4) return filter ? "OIHW" : "NCHW";
  return filter ? "OIDHW" : "NCDHW";
}

std::string spatial_letters(const std::string& filter_format) {
  std::string s;
  for (char c : filter_format)
    if (c != 'O' && c != 'I') s.push_back(c);
  return s;
}

std::vector<std::int64_t> per_axis(const char* name, const Tensor& x, std::vector<std::int64_t> v, std::size_t sd,
                                   std::int64_t fallback, const char* what, Loc loc) {
  if (v.empty()) v.assign(sd, fallback);
  if (v.size() == 1 && sd > 1) v.assign(sd, v[0]);
  if (v.size() != sd)
    raise_value(name, {x},
                std::string(what) + " has " + std::to_string(v.size()) + " entries for " + std::to_string(sd) +
                    " spatial axes",
                "Give one value per spatial axis, or one for all.", loc);
  for (std::int64_t e : v)
    if (e < 1)
      raise_value(name, {x}, std::string(what) + " must be positive, got " + std::to_string(e), "Use values >= 1.",
                  loc);
  return v;
}

// x with factor - 1 cells of `fill` inserted between neighbours along `axis`.
Tensor dilate_axis(const Tensor& x, int axis, std::int64_t factor, double fill, Loc loc) {
  if (factor == 1) return x;
  std::int64_t n = x.shape()[static_cast<std::size_t>(axis)];
  if (n == 0) return x;
  Tensor e = expand_dims(x, axis + 1, loc);
  std::vector<std::pair<std::int64_t, std::int64_t>> w(static_cast<std::size_t>(e.ndim()), {0, 0});
  w[static_cast<std::size_t>(axis + 1)] = {0, factor - 1};
  Shape s = x.shape();
  s[static_cast<std::size_t>(axis)] = n * factor;
  Tensor flat = reshape(pad(e, w, fill, loc), s, loc);
  std::vector<Index> index(static_cast<std::size_t>(axis), Index::all());
  index.push_back(Index::range(0, (n - 1) * factor + 1));
  return slice(flat, index, loc);
}

std::vector<int> inverse(const std::vector<int>& perm) {
  std::vector<int> inv(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inv[static_cast<std::size_t>(perm[i])] = static_cast<int>(i);
  return inv;
}

struct Canonical {
  Tensor x, w;
  std::string out_format, spatial;
  std::size_t sd = 0;
};
Canonical canonical(const char* name, const Tensor& input, const Tensor& filter, const std::string& input_format,
                    const std::string& filter_format, const std::string& output_format, Loc loc) {
  if (filter.ndim() < 3 || filter.ndim() > 4)
    raise_shape(name, {input, filter},
                "supports 1 or 2 spatial axes, got a filter of shape " + shape_string(filter.shape()),
                "Pass a filter (O, I, W) or (O, I, H, W) (or name its layout with filter_format).", loc);
  if (input.ndim() != filter.ndim())
    raise_shape(name, {input, filter},
                "the input has " + std::to_string(input.ndim()) + " dimensions and the filter " +
                    std::to_string(filter.ndim()),
                "Give the input a batch and a channel axis besides the filter's spatial ones.", loc);
  Canonical c;
  std::string ff =
      filter_format.empty() ? default_format(static_cast<std::size_t>(filter.ndim()), true) : filter_format;
  std::string inf = input_format.empty() ? default_format(static_cast<std::size_t>(input.ndim()), false) : input_format;
  c.out_format = output_format.empty() ? inf : output_format;
  c.spatial = spatial_letters(ff);
  c.sd = c.spatial.size();
  c.x = transpose(input, layout_of(name, input, inf, 'N', 'C', c.spatial, loc).to_canonical, loc);
  c.w = transpose(filter, layout_of(name, filter, ff, 'O', 'I', c.spatial, loc).to_canonical, loc);
  return c;
}

Tensor from_canonical(const char* name, const Tensor& y, const Canonical& c, Loc loc) {
  if (static_cast<int>(c.out_format.size()) != y.ndim())
    raise_value(name, {y},
                "output_format '" + c.out_format + "' does not have " + std::to_string(y.ndim()) + " letters",
                "Give one letter per axis of the output.", loc);
  Layout l = layout_of(name, y, c.out_format, 'N', 'C', c.spatial, loc);
  return transpose(y, inverse(l.to_canonical), loc);
}

Tensor conv_canonical(const Tensor& x, const Tensor& w, const std::vector<std::int64_t>& strides,
                      const nn::Padding& padding, const std::vector<std::int64_t>& dilation, Loc loc) {
  if (x.ndim() == 3) return nn::conv1d(x, w, strides[0], padding, dilation[0], 1, loc);
  return nn::conv2d(x, w, strides, padding, dilation, 1, loc);
}

// TensorFlow's / JAX's SAME padding of a window `span` with stride s over n cells: (lo, hi).
std::pair<std::int64_t, std::int64_t> same_pads(std::int64_t n, std::int64_t span, std::int64_t s) {
  std::int64_t out = (n + s - 1) / s;
  std::int64_t total = std::max<std::int64_t>((out - 1) * s + span - n, 0);
  return {total / 2, total - total / 2};
}

// ---- cosine transforms ----

// Row k, column n of the (unnormalized, "backward") DCT matrix of `type` over N points, as scipy.fft.dct.
double dct_entry(int type, std::int64_t k, std::int64_t n, std::int64_t N) {
  double kd = static_cast<double>(k), nd = static_cast<double>(n), Nd = static_cast<double>(N);
  switch (type) {
    case 1: {
      double c = std::cos(kPi * kd * nd / (Nd - 1));
      return (n == 0 || n == N - 1) ? c : 2 * c;
    }
    case 2: return 2 * std::cos(kPi * kd * (2 * nd + 1) / (2 * Nd));
    case 3: return n == 0 ? 1.0 : 2 * std::cos(kPi * (2 * kd + 1) * nd / (2 * Nd));
    default: return 2 * std::cos(kPi * (2 * kd + 1) * (2 * nd + 1) / (4 * Nd));
  }
}

// The DCT matrix with SciPy's norm: "backward" as dct_entry, "forward" divided by 2N (2(N - 1) for type 1),
// "ortho" orthonormal (SciPy's scaling of the first (and last, type 1) row and column).
Tensor dct_matrix(int type, std::int64_t N, const std::string& norm, DType dtype, Loc loc) {
  Array a({N, N}, dtype);
  double denom = type == 1 ? 2.0 * static_cast<double>(N - 1) : 2.0 * static_cast<double>(N);
  for (std::int64_t k = 0; k < N; ++k)
    for (std::int64_t n = 0; n < N; ++n) {
      double v = dct_entry(type, k, n, N);
      if (norm == "forward") v /= denom;
      else if (norm == "ortho") {
        v /= std::sqrt(denom);
        if (type == 1) {
          if (n == 0 || n == N - 1) v *= std::sqrt(2.0);
          if (k == 0 || k == N - 1) v /= std::sqrt(2.0);
        } else if (type == 2 && k == 0) v /= std::sqrt(2.0);
        else if (type == 3 && n == 0) v *= std::sqrt(2.0);
      }
      a.set_flat(k * N + n, v);
    }
  return constant(a, loc);
}

Tensor dct_impl(const char* name, const Tensor& x_in, int type, std::optional<std::int64_t> n, int axis,
                const std::string& norm, Loc loc) {
  if (type < 1 || type > 4)
    raise_value(name, {x_in}, "type must be 1, 2, 3 or 4, got " + std::to_string(type), "Pass type=1 to 4.", loc);
  if (norm != "backward" && norm != "ortho" && norm != "forward" && !norm.empty())
    raise_value(name, {x_in}, "unknown norm '" + norm + "'", "Pass norm='backward' (or None), 'ortho' or 'forward'.",
                loc);
  if (x_in.ndim() == 0) raise_shape(name, {x_in}, "needs at least one dimension, got a scalar", "Pass an array.", loc);
  int ax;
  try {
    ax = ops::checked_axis(axis, x_in.ndim());
  } catch (const TypeProblem& problem) {
    ops::raise(name, {x_in}, problem, loc);
  }
  need_static(name, x_in, loc);
  Tensor x = is_inexact(x_in.dtype()) ? x_in : cast(x_in, DType::f32, loc);
  std::int64_t len = x.shape()[static_cast<std::size_t>(ax)], N = n.value_or(len);
  if (N < 1 || (type == 1 && N < 2))
    raise_value(name, {x_in},
                "the transform needs " + std::string(type == 1 ? "at least 2" : "at least 1") + " points, got " +
                    std::to_string(N),
                "Pass n (or an axis) with more points.", loc);
  if (N < len) {
    std::vector<Index> index(static_cast<std::size_t>(ax), Index::all());
    index.push_back(Index::range(0, N));
    x = slice(x, index, loc);
  } else if (N > len) {
    std::vector<std::pair<std::int64_t, std::int64_t>> w(static_cast<std::size_t>(x.ndim()), {0, 0});
    w[static_cast<std::size_t>(ax)] = {0, N - len};
    x = pad(x, w, 0, loc);
  }
  Tensor m = dct_matrix(type, N, norm.empty() ? "backward" : norm, x.dtype(), loc);
  Tensor last = moveaxis(x, {ax}, {-1}, loc);
  Tensor y = matmul(last, transpose(m, {1, 0}, loc), loc);
  return moveaxis(y, {-1}, {ax}, loc);
}

}  // namespace

// ---- windows ----

Tensor hann(std::int64_t M, bool sym, DType dtype, Loc loc) {
  return named_composite("hann", make_window("hann", M, sym, dtype, loc, [](double n, double m) {
                           return general_cosine(n, m, {0.5, 0.5});
                         }));
}

Tensor hanning(std::int64_t M, DType dtype, Loc loc) { return hann(M, true, dtype, loc); }

Tensor hamming(std::int64_t M, bool sym, DType dtype, Loc loc) {
  return named_composite("hamming", make_window("hamming", M, sym, dtype, loc, [](double n, double m) {
                           return general_cosine(n, m, {0.54, 0.46});
                         }));
}

Tensor blackman(std::int64_t M, bool sym, DType dtype, Loc loc) {
  return named_composite("blackman", make_window("blackman", M, sym, dtype, loc, [](double n, double m) {
                           // SciPy's general_cosine; the ends are exact zeros (NumPy's cosine sum leaves -1e-17 there)
                           double v = general_cosine(n, m, {0.42, 0.50, 0.08});
                           return std::abs(v) < 1e-15 ? 0.0 : v;
                         }));
}

Tensor bartlett(std::int64_t M, bool sym, DType dtype, Loc loc) {
  return named_composite("bartlett", make_window("bartlett", M, sym, dtype, loc, [](double n, double m) {
                           double half = (m - 1) / 2;
                           return n <= half ? n / half : 2 - n / half;
                         }));
}

Tensor kaiser(std::int64_t M, double beta, bool sym, DType dtype, Loc loc) {
  if (!(beta >= 0))
    raise_value("kaiser", {}, "beta must be non-negative, got " + std::to_string(beta),
                "Pass beta >= 0 (0 is a rectangle; about 8.6 is close to Blackman).", loc);
  return named_composite("kaiser", make_window("kaiser", M, sym, dtype, loc, [beta](double n, double m) {
                           double alpha = (m - 1) / 2, r = (n - alpha) / alpha;
                           return std::cyl_bessel_i(0.0, beta * std::sqrt(std::max(0.0, 1 - r * r))) /
                                  std::cyl_bessel_i(0.0, beta);
                         }));
}

Tensor tukey(std::int64_t M, double alpha, bool sym, DType dtype, Loc loc) {
  if (!(alpha >= 0 && alpha <= 1))
    raise_value("tukey", {}, "alpha must be in [0, 1], got " + std::to_string(alpha),
                "Pass the tapered fraction: 0 (a rectangle) to 1 (the Hann window).", loc);
  if (alpha == 0)
    return named_composite("tukey", make_window("tukey", M, sym, dtype, loc, [](double, double) { return 1.0; }));
  return named_composite("tukey", make_window("tukey", M, sym, dtype, loc, [alpha](double n, double m) {
                           // scipy.signal.windows.tukey: width = floor(alpha (M - 1) / 2), cosine tapers on both ends
                           double width = std::floor(alpha * (m - 1) / 2);
                           if (n <= width) return 0.5 * (1 + std::cos(kPi * (-1 + 2 * n / alpha / (m - 1))));
                           if (n < m - width - 1) return 1.0;
                           return 0.5 * (1 + std::cos(kPi * (-2 / alpha + 1 + 2 * n / alpha / (m - 1))));
                         }));
}

Tensor get_window(const std::string& window, std::int64_t Nx, std::optional<double> param, bool fftbins, DType dtype,
                  Loc loc) {
  bool sym = !fftbins;
  if (Nx < 1)
    raise_value("get_window", {}, "Nx must be positive, got " + std::to_string(Nx),
                "Pass the number of points, Nx >= 1 (as scipy.signal.get_window).", loc);
  const bool parametric = window == "kaiser" || window == "tukey";
  if (param && !parametric)
    raise_value("get_window", {}, "window '" + window + "' takes no parameter",
                "Pass only the name (kaiser and tukey take one).", loc);
  if (window == "hann" || window == "hanning") return hann(Nx, sym, dtype, loc);
  if (window == "hamming") return hamming(Nx, sym, dtype, loc);
  if (window == "blackman") return blackman(Nx, sym, dtype, loc);
  if (window == "bartlett") return bartlett(Nx, sym, dtype, loc);
  if (window == "boxcar" || window == "rectangular" || window == "ones")
    return make_window("get_window", Nx, sym, dtype, loc, [](double, double) { return 1.0; });
  if (window == "kaiser") {
    if (!param) raise_value("get_window", {}, "the kaiser window needs its beta", "Pass ('kaiser', beta).", loc);
    return kaiser(Nx, *param, sym, dtype, loc);
  }
  if (window == "tukey") return tukey(Nx, param.value_or(0.5), sym, dtype, loc);
  raise_value("get_window", {}, "unknown window '" + window + "'",
              "Use hann, hamming, blackman, bartlett, boxcar, kaiser or tukey.", loc);
}

// ---- convolution and correlation ----

Tensor convolve(const Tensor& in1, const Tensor& in2, const std::string& mode, Loc loc) {
  return named_composite("signal.convolve", convolve_nd("signal.convolve", in1, in2, mode, loc));
}

Tensor correlate(const Tensor& in1, const Tensor& in2, const std::string& mode, Loc loc) {
  const char* name = "signal.correlate";
  if (in1.ndim() != in2.ndim()) return convolve_nd(name, in1, in2, mode, loc);  // its error
  return named_composite(name, convolve_nd(name, in1, flip(in2, {}, loc), mode, loc));
}

Tensor convolve2d(const Tensor& in1, const Tensor& in2, const std::string& mode, const std::string& boundary,
                  double fillvalue, Loc loc) {
  return named_composite("convolve2d",
                         convolve2d_impl("convolve2d", in1, in2, in2, mode, boundary, fillvalue, false, loc));
}

Tensor correlate2d(const Tensor& in1, const Tensor& in2, const std::string& mode, const std::string& boundary,
                   double fillvalue, Loc loc) {
  Tensor flipped = in2.ndim() == 2 ? flip(in2, {}, loc) : in2;
  return named_composite("correlate2d",
                         convolve2d_impl("correlate2d", in1, flipped, in2, mode, boundary, fillvalue, true, loc));
}

Tensor batch_convolve(const Tensor& input, const Tensor& filter, std::vector<std::int64_t> strides,
                      const nn::Padding& padding, const std::string& input_format, const std::string& filter_format,
                      const std::string& output_format, std::vector<std::int64_t> input_dilation,
                      std::vector<std::int64_t> filter_dilation, Loc loc) {
  const char* name = "batch_convolve";
  Canonical c = canonical(name, input, filter, input_format, filter_format, output_format, loc);
  strides = per_axis(name, input, std::move(strides), c.sd, 1, "strides", loc);
  input_dilation = per_axis(name, input, std::move(input_dilation), c.sd, 1, "input_dilation", loc);
  filter_dilation = per_axis(name, input, std::move(filter_dilation), c.sd, 1, "filter_dilation", loc);
  Tensor x = c.x;
  for (std::size_t d = 0; d < c.sd; ++d) x = dilate_axis(x, static_cast<int>(d) + 2, input_dilation[d], 0, loc);
  Tensor y = conv_canonical(x, c.w, strides, padding, filter_dilation, loc);
  return named_composite(name, from_canonical(name, y, c, loc));
}

Tensor batch_convolve_transpose(const Tensor& input, const Tensor& filter, std::vector<std::int64_t> strides,
                                const nn::Padding& padding, const std::string& input_format,
                                const std::string& filter_format, const std::string& output_format,
                                std::vector<std::int64_t> filter_dilation, bool transpose_kernel, Loc loc) {
  const char* name = "batch_convolve_transpose";
  Canonical c = canonical(name, input, filter, input_format, filter_format, output_format, loc);
  strides = per_axis(name, input, std::move(strides), c.sd, 1, "strides", loc);
  filter_dilation = per_axis(name, input, std::move(filter_dilation), c.sd, 1, "filter_dilation", loc);
  Tensor w = c.w;
  if (transpose_kernel) {  // JAX: flip the spatial axes, swap O and I
    std::vector<int> spatial;
    for (std::size_t d = 0; d < c.sd; ++d) spatial.push_back(static_cast<int>(d) + 2);
    std::vector<int> perm{1, 0};
    perm.insert(perm.end(), spatial.begin(), spatial.end());
    w = transpose(flip(w, spatial, loc), perm, loc);
  }
  nn::Padding pads = padding;
  if (padding.mode == "VALID" || padding.mode == "SAME") {
    // jax.lax's _conv_transpose_padding over the dilated kernel size k and the stride s.
    std::vector<std::pair<std::int64_t, std::int64_t>> p;
    for (std::size_t d = 0; d < c.sd; ++d) {
      std::int64_t k = (w.shape()[d + 2] - 1) * filter_dilation[d] + 1, s = strides[d], len, a;
      if (padding.mode == "SAME") {
        len = k + s - 2;
        a = s > k - 1 ? k - 1 : (len + 1) / 2;
      } else {
        len = k + s - 2 + std::max<std::int64_t>(k - s, 0);
        a = k - 1;
      }
      p.emplace_back(a, len - a);
    }
    pads = nn::Padding(p);
  } else if (padding.mode == "UNIFORM") {
    pads = nn::Padding(std::vector<std::pair<std::int64_t, std::int64_t>>(c.sd, {padding.uniform, padding.uniform}));
  }
  Tensor x = c.x;
  for (std::size_t d = 0; d < c.sd; ++d) x = dilate_axis(x, static_cast<int>(d) + 2, strides[d], 0, loc);
  Tensor y = conv_canonical(x, w, std::vector<std::int64_t>(c.sd, 1), pads, filter_dilation, loc);
  return named_composite(name, from_canonical(name, y, c, loc));
}

// ---- patches and pooling ----

Tensor extract_signal_patches(const Tensor& signal, std::int64_t window_length, std::int64_t hop,
                              const std::string& data_format, Loc loc) {
  const char* name = "extract_signal_patches";
  if (data_format != "NCW")
    raise_value(name, {signal}, "data_format '" + data_format + "' is not supported",
                "Pass data_format='NCW' (time last), transposing the signal first.", loc);
  if (signal.ndim() < 1 || signal.ndim() > 3)
    raise_shape(name, {signal}, "needs a signal (W,), (N, W) or (N, C, W), got shape " + shape_string(signal.shape()),
                "Reshape the signal.", loc);
  need_static(name, signal, loc);
  std::int64_t W = signal.shape().back();
  if (window_length < 1 || hop < 1)
    raise_value(name, {signal},
                "window_length and hop must be positive, got " + std::to_string(window_length) + " and " +
                    std::to_string(hop),
                "Pass window_length >= 1 and hop >= 1.", loc);
  if (window_length > W)
    raise_value(name, {signal},
                "window_length " + std::to_string(window_length) + " is longer than the signal (" + std::to_string(W) +
                    " samples)",
                "Pass a shorter window, or pad the signal.", loc);
  std::int64_t P = (W - window_length) / hop + 1;
  Array idx({P, window_length}, DType::i64);
  for (std::int64_t p = 0; p < P; ++p)
    for (std::int64_t l = 0; l < window_length; ++l)
      idx.set_flat(p * window_length + l, static_cast<double>(p * hop + l));
  return named_composite(name, take(signal, constant(idx, loc), signal.ndim() - 1, loc));
}

namespace {
// One strided slice per window offset of x over every axis (window, strides, dilations per axis), stacked on
// a new last axis: (out..., prod(window)).
Tensor window_stack(const Tensor& x, const std::vector<std::int64_t>& window, const std::vector<std::int64_t>& strides,
                    const std::vector<std::int64_t>& dilation, const Shape& out, Loc loc) {
  std::size_t nd = window.size();
  std::int64_t count = 1;
  for (std::int64_t w : window) count *= w;
  std::vector<Tensor> slices;
  slices.reserve(static_cast<std::size_t>(count));
  std::vector<std::int64_t> off(nd, 0);
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t r = i;
    for (std::size_t d = nd; d-- > 0;) {
      off[d] = r % window[d];
      r /= window[d];
    }
    std::vector<Index> index;
    for (std::size_t d = 0; d < nd; ++d) {
      std::int64_t start = off[d] * dilation[d];
      index.push_back(Index::range(start, start + (out[d] - 1) * strides[d] + 1, strides[d]));
    }
    slices.push_back(slice(x, index, loc));
  }
  return stack(slices, static_cast<int>(nd), loc);
}
}  // namespace

Tensor extract_image_patches(const Tensor& image, std::vector<std::int64_t> window_shape,
                             std::vector<std::int64_t> strides, const std::string& data_format,
                             const std::string& padding, bool flatten_patch, Loc loc) {
  const char* name = "extract_image_patches";
  if (image.ndim() != 4)
    raise_shape(name, {image}, "needs images (N, C, H, W) or (N, H, W, C), got shape " + shape_string(image.shape()),
                "Add a batch axis of 1 for a single image.", loc);
  if (data_format != "channel_first" && data_format != "channel_last")
    raise_value(name, {image}, "unknown data_format '" + data_format + "'",
                "Pass data_format='channel_first' or 'channel_last'.", loc);
  if (padding != "valid" && padding != "same" && padding != "VALID" && padding != "SAME")
    raise_value(name, {image}, "unknown padding '" + padding + "'", "Pass padding='valid' or 'same'.", loc);
  need_static(name, image, loc);
  window_shape = per_axis(name, image, std::move(window_shape), 2, 1, "window_shape", loc);
  strides = per_axis(name, image, std::move(strides), 2, 1, "strides", loc);
  Tensor x = data_format == "channel_last" ? transpose(image, {0, 3, 1, 2}, loc) : image;  // (N, C, H, W)
  std::vector<std::pair<std::int64_t, std::int64_t>> pads{{0, 0}, {0, 0}};
  Shape out{x.shape()[0], x.shape()[1]};
  for (std::size_t d = 0; d < 2; ++d) {
    std::int64_t n = x.shape()[d + 2];
    if (padding == "same" || padding == "SAME") {
      pads.push_back(same_pads(n, window_shape[d], strides[d]));
      out.push_back((n + strides[d] - 1) / strides[d]);
    } else {
      if (n < window_shape[d])
        raise_value(name, {image},
                    "the window (" + std::to_string(window_shape[d]) + ") is larger than the image (" +
                        std::to_string(n) + ") with padding 'valid'",
                    "Use a smaller window or padding='same'.", loc);
      pads.emplace_back(0, 0);
      out.push_back((n - window_shape[d]) / strides[d] + 1);
    }
  }
  Tensor padded = pad(x, pads, 0, loc);
  std::vector<std::int64_t> win{1, 1, window_shape[0], window_shape[1]}, st{1, 1, strides[0], strides[1]};
  Tensor s = window_stack(padded, win, st, {1, 1, 1, 1}, out, loc);  // (N, C, H', W', kh kw)
  Tensor p = transpose(s, {0, 2, 3, 1, 4}, loc);                     // (N, H', W', C, kh kw)
  Shape shape{out[0], out[2], out[3]};
  if (flatten_patch) shape.push_back(out[1] * window_shape[0] * window_shape[1]);
  else shape.insert(shape.end(), {out[1], window_shape[0], window_shape[1]});
  return named_composite(name, reshape(p, shape, loc));
}

Tensor pool(const Tensor& input, std::vector<std::int64_t> window_shape, const std::string& reducer,
            std::vector<std::int64_t> strides, const nn::Padding& padding, std::vector<std::int64_t> base_dilation,
            std::vector<std::int64_t> window_dilation, Loc loc) {
  const char* name = "pool";
  if (reducer != "MAX" && reducer != "AVG" && reducer != "SUM")
    raise_value(name, {input}, "unknown reducer '" + reducer + "'", "Pass reducer='MAX', 'AVG' or 'SUM'.", loc);
  if (window_shape.size() != static_cast<std::size_t>(input.ndim()))
    raise_value(name, {input},
                "window_shape has " + std::to_string(window_shape.size()) + " entries for an input of shape " +
                    shape_string(input.shape()),
                "Give one window size per axis of the input (1 for the axes not pooled).", loc);
  need_static(name, input, loc);
  std::size_t nd = window_shape.size();
  window_shape = per_axis(name, input, std::move(window_shape), nd, 1, "window_shape", loc);
  strides = per_axis(name, input, strides.empty() ? window_shape : std::move(strides), nd, 1, "strides", loc);
  base_dilation = per_axis(name, input, std::move(base_dilation), nd, 1, "base_dilation", loc);
  window_dilation = per_axis(name, input, std::move(window_dilation), nd, 1, "window_dilation", loc);
  Tensor x = is_inexact(input.dtype()) ? input : cast(input, DType::f32, loc);
  const double fill = reducer == "MAX" ? -std::numeric_limits<double>::infinity() : 0.0;
  for (std::size_t d = 0; d < nd; ++d) x = dilate_axis(x, static_cast<int>(d), base_dilation[d], fill, loc);
  std::vector<std::pair<std::int64_t, std::int64_t>> pads;
  Shape out;
  for (std::size_t d = 0; d < nd; ++d) {
    std::int64_t n = x.shape()[d], span = (window_shape[d] - 1) * window_dilation[d] + 1;
    std::pair<std::int64_t, std::int64_t> p{0, 0};
    if (padding.mode == "SAME") p = same_pads(n, span, strides[d]);
    else if (padding.mode == "EXPLICIT") {
      if (padding.explicit_pads.size() != nd)
        raise_value(name, {input},
                    "padding has " + std::to_string(padding.explicit_pads.size()) + " (low, high) pairs for " +
                        std::to_string(nd) + " axes",
                    "Give one pair per axis of the input.", loc);
      p = padding.explicit_pads[d];
    } else if (padding.mode == "UNIFORM") p = {padding.uniform, padding.uniform};
    else if (padding.mode != "VALID")
      raise_value(name, {input}, "unknown padding '" + padding.mode + "'", "Pass 'VALID', 'SAME' or (low, high) pairs.",
                  loc);
    std::int64_t len = n + p.first + p.second;
    if (len < span)
      raise_value(name, {input},
                  "the window spans " + std::to_string(span) + " cells on axis " + std::to_string(d) +
                      " of a padded input of " + std::to_string(len),
                  "Use a smaller window or more padding.", loc);
    pads.push_back(p);
    out.push_back((len - span) / strides[d] + 1);
  }
  Tensor s = window_stack(pad(x, pads, fill, loc), window_shape, strides, window_dilation, out, loc);
  int last = static_cast<int>(nd);
  Tensor r = reducer == "MAX" ? max(s, last, false, loc) : sum(s, last, false, loc);
  if (reducer == "AVG") {
    double count = 1;
    for (std::int64_t w : window_shape) count *= static_cast<double>(w);
    r = r / count;
  }
  return named_composite(name, r);
}

// ---- transforms ----

Tensor dct(const Tensor& x, int type, std::optional<std::int64_t> n, int axis, const std::string& norm, Loc loc) {
  return named_composite("dct", dct_impl("dct", x, type, n, axis, norm, loc));
}

Tensor idct(const Tensor& x, int type, std::optional<std::int64_t> n, int axis, const std::string& norm, Loc loc) {
  // scipy.fft.idct: the DCT of the inverse type (2 <-> 3) with the norm mirrored (backward <-> forward).
  int inverse_type = type == 2 ? 3 : type == 3 ? 2 : type;
  std::string mirrored = norm == "forward" ? "backward" : (norm == "ortho" ? "ortho" : "forward");
  if (type < 1 || type > 4) inverse_type = type;  // dct_impl's error
  if (norm != "backward" && norm != "ortho" && norm != "forward" && !norm.empty()) mirrored = norm;
  return named_composite("idct", dct_impl("idct", x, inverse_type, n, axis, mirrored, loc));
}

// ---- filter banks and scales ----

Tensor hat_1D(const Tensor& x, const Operand& t_left, const Operand& t_center, const Operand& t_right, Loc loc) {
  Tensor xf = is_inexact(x.dtype()) ? x : cast(x, DType::f32, loc);
  Tensor l = as_dtype(t_left, xf.dtype(), loc), c = as_dtype(t_center, xf.dtype(), loc),
         r = as_dtype(t_right, xf.dtype(), loc);
  // Knots that coincide give a zero slope instead of SymJAX's division by zero.
  auto slope = [&](const Tensor& a, const Tensor& b) {
    Tensor d = b - a;
    Tensor pos = greater(d, 0, loc);
    return where(pos, 1 / where(pos, d, 1, loc), 0, loc);
  };
  Tensor sl = slope(l, c), sr = slope(c, r);
  // Piecewise, so that the hat is exactly 0 outside [t_left, t_right] (SymJAX's sum of three ReLUs leaves
  // rounding residue there in float32); at a knot the gradient is the slope on its left.
  Tensor rising = (xf - l) * sl, falling = (r - xf) * sr;
  Tensor inside = where(less_equal(xf, c, loc), rising, falling, loc);
  Tensor out = where(logical_or(less_equal(xf, l, loc), greater(xf, r, loc), loc), 0, inside, loc);
  return named_composite("hat_1D", out);
}

Tensor bin_to_freq(const Tensor& bins, double max_f, Loc loc) {
  Tensor b = is_inexact(bins.dtype()) ? bins : cast(bins, DType::f32, loc);
  return named_composite("bin_to_freq", b / max(b, {}, false, loc) * max_f);
}

Tensor freq_to_bin(const Tensor& freq, std::int64_t n_bins, double fmin, double fmax, Loc loc) {
  if (n_bins < 1 || !(fmax > fmin))
    raise_value("freq_to_bin", {freq}, "needs n_bins >= 1 and fmax > fmin", "Pass the bins' count and range.", loc);
  double unit = (fmax - fmin) / static_cast<double>(n_bins);
  Tensor f = is_inexact(freq.dtype()) ? freq : cast(freq, DType::f32, loc);
  return named_composite("freq_to_bin", cast(f / unit, DType::i32, loc));
}

namespace {
constexpr double kMelLinearSlope = 200.0 / 3;  // Slaney: hertz per mel below 1 kHz
constexpr double kMinLogHz = 1000.0;
const double kLogStep = std::log(6.4) / 27.0;
}  // namespace

Tensor freq_to_mel(const Tensor& f_in, const std::string& option, Loc loc) {
  Tensor f = is_inexact(f_in.dtype()) ? f_in : cast(f_in, DType::f32, loc);
  if (option != "linear") return named_composite("freq_to_mel", log10(f / 700 + 1, loc) * 2595);
  double min_log_mel = kMinLogHz / kMelLinearSlope;
  Tensor above = greater_equal(f, kMinLogHz, loc);
  // the logarithm of a guarded argument, so that f = 0 has a finite gradient through the unused branch
  Tensor mel = log(where(above, f, kMinLogHz, loc) / kMinLogHz, loc) / kLogStep + min_log_mel;
  return named_composite("freq_to_mel", where(above, mel, f / kMelLinearSlope, loc));
}

Tensor mel_to_freq(const Tensor& m_in, const std::string& option, Loc loc) {
  Tensor m = is_inexact(m_in.dtype()) ? m_in : cast(m_in, DType::f32, loc);
  if (option != "linear") return named_composite("mel_to_freq", (power(10.0, m / 2595, loc) - 1) * 700);
  double min_log_mel = kMinLogHz / kMelLinearSlope;
  Tensor above = greater_equal(m, min_log_mel, loc);
  Tensor freq = exp((where(above, m, min_log_mel, loc) - min_log_mel) * kLogStep, loc) * kMinLogHz;
  return named_composite("mel_to_freq", where(above, freq, m * kMelLinearSlope, loc));
}

Tensor power_to_db(const Tensor& S, double ref, double amin, std::optional<double> top_db, Loc loc) {
  if (!(amin > 0))
    raise_value("power_to_db", {S}, "amin must be positive, got " + std::to_string(amin), "Pass amin > 0.", loc);
  if (top_db && !(*top_db >= 0))
    raise_value("power_to_db", {S}, "top_db must be non-negative, got " + std::to_string(*top_db),
                "Pass top_db >= 0, or None for no clipping.", loc);
  Tensor s = is_floating(S.dtype()) ? S : cast(S, DType::f32, loc);
  Tensor log_spec = log10(maximum(s, amin, loc), loc) * 10.0 - 10.0 * std::log10(std::max(amin, std::abs(ref)));
  if (!top_db) return named_composite("power_to_db", log_spec);
  return named_composite("power_to_db", maximum(log_spec, max(log_spec, {}, false, loc) - *top_db, loc));
}

Tensor sinc_bandpass(const Tensor& time, const Operand& f0, const Operand& f1, Loc loc) {
  Tensor t = is_inexact(time.dtype()) ? time : cast(time, DType::f32, loc);
  Tensor a = as_dtype(f0, t.dtype(), loc), b = as_dtype(f1, t.dtype(), loc);
  return named_composite("sinc_bandpass", a * special::sinc(t * a, loc) - b * special::sinc(t * b, loc));
}

Tensor mel_filterbank(std::int64_t length, std::int64_t n_filter, double low, double high, double nyquist, Loc loc) {
  if (length < 1 || n_filter < 1)
    raise_value("mel_filterbank", {}, "length and n_filter must be positive", "Pass the bins' and filters' counts.",
                loc);
  if (!(nyquist > 0) || !(low >= 0) || !(high > low))
    raise_value("mel_filterbank", {}, "needs 0 <= low < high and nyquist > 0 (hertz)",
                "Pass the band's edges and the Nyquist frequency in hertz.", loc);
  // Every argument is a number, so the bank is a constant, computed in double (SymJAX's formulas: peaks
  // evenly spaced in Slaney mels, truncated to bins of nyquist / length hertz, hat functions between them).
  auto to_mel = [](double f) {
    return f >= kMinLogHz ? kMinLogHz / kMelLinearSlope + std::log(f / kMinLogHz) / kLogStep : f / kMelLinearSlope;
  };
  auto to_hz = [](double m) {
    double min_log_mel = kMinLogHz / kMelLinearSlope;
    return m >= min_log_mel ? kMinLogHz * std::exp(kLogStep * (m - min_log_mel)) : m * kMelLinearSlope;
  };
  double lo = to_mel(low), hi = to_mel(high), unit = nyquist / static_cast<double>(length);
  std::vector<double> peaks(static_cast<std::size_t>(n_filter + 2));
  for (std::int64_t i = 0; i < n_filter + 2; ++i)
    peaks[static_cast<std::size_t>(i)] =
        std::trunc(to_hz(lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(n_filter + 1)) / unit);
  Array bank({n_filter, length}, DType::f32);
  for (std::int64_t j = 0; j < n_filter; ++j) {
    double l = peaks[static_cast<std::size_t>(j)], c = peaks[static_cast<std::size_t>(j + 1)],
           r = peaks[static_cast<std::size_t>(j + 2)];
    for (std::int64_t k = 0; k < length; ++k) {
      double x = static_cast<double>(k), v = 0;
      if (x > l && x <= c) v = (x - l) / (c - l);
      else if (x > c && x < r) v = (r - x) / (r - c);
      bank.set_flat(j * length + k, v);
    }
  }
  return named_composite("mel_filterbank", constant(bank, loc));
}

Tensor fourier_complex_morlet(const Tensor& bandwidths, const Tensor& centers, std::int64_t N, Loc loc) {
  DType dt = is_floating(bandwidths.dtype()) ? bandwidths.dtype() : DType::f32;
  Tensor freqs = linspace(0, 2 * kPi, N, true, dt, loc);
  Tensor b = cast(bandwidths, dt, loc), c = cast(centers, dt, loc);
  Tensor d = freqs - c;
  Tensor envelope = exp(d * d * (b * b) * -0.25, loc);
  return named_composite("fourier_complex_morlet", envelope * cast(less_equal(freqs, kPi, loc), dt, loc));
}

Tensor littewood_paley_normalization(const Tensor& filter_bank, std::optional<double> down, std::optional<double> up,
                                     Loc loc) {
  if (filter_bank.ndim() < 2)
    raise_shape("littewood_paley_normalization", {filter_bank},
                "needs a filter bank (J, N), got shape " + shape_string(filter_bank.shape()),
                "Pass filters along the first axis and frequencies along the last.", loc);
  Tensor lp = sum(abs(filter_bank, loc), 0, false, loc);
  std::int64_t n = filter_bank.shape().back();
  Tensor freq = linspace(0, 2 * kPi, n, true, lp.dtype(), loc);
  Tensor inside =
      logical_and(greater_equal(freq, down.value_or(0.0), loc), less_equal(freq, up.value_or(kPi), loc), loc);
  return named_composite("littewood_paley_normalization", filter_bank / where(inside, lp, 1, loc));
}

}  // namespace symx::signal

// Discrete Fourier transforms (symx/fft.hpp): the Fft primitive and numpy.fft's functions over it.
//
// The primitive is unnormalized, as FFTW's transforms: complex to complex forward (e^-i) or backward
// (e^+i) over several axes, real to complex forward along one axis (n/2 + 1 results), complex to real
// backward along one axis. Both backends run FFTW plans: the reference evaluation in double
// precision, compiled functions in the operands' precision, planned when the function is compiled.
//
// VJPs (JAX's convention, in which the cotangent of a complex z is dL/dx - i dL/dy, so a linear map's
// VJP is its transpose, not its adjoint):
// - complex to complex: the DFT matrix is symmetric, so the VJP is the same transform of g.
// - real to complex R = P F (F the DFT, P keeping the first n/2 + 1 frequencies): real(F P^T g), the
//   forward transform of g zero-padded to n, its real part.
// - complex to real C (y_j = sum_k w_k Re(X_k e^{2 pi i jk/n}), w_k 1 at k = 0 and k = n/2 for even n,
//   else 2): w * conj(rfft(g)).
#include <cmath>
#include <numbers>

#include "ops/elementwise.hpp"
#include "ops/fft_plans.hpp"
#include "symx/arrays.hpp"
#include "symx/fft.hpp"

namespace symx {
namespace ops {
namespace {

using Kind = FftAttr::Kind;
using Grads = std::vector<Tensor>;

bool real_kind(Kind k) { return k == Kind::real_forward || k == Kind::real_backward; }

TensorType infer_fft(const std::vector<Tensor>& in, const Attr& attr) {
  const Tensor& x = in[0];
  const auto& a = std::get<FftAttr>(attr);
  check_internal(!a.axes.empty() && (!real_kind(a.kind) || a.axes.size() == 1), "fft: axes not prepared");
  for (std::size_t i = 0; i < a.axes.size(); ++i)
    check_internal(a.axes[i] >= 0 && a.axes[i] < x.ndim() && (i == 0 || a.axes[i - 1] < a.axes[i]),
                   "fft: axes not normalized");
  Shape shape = x.shape();
  const auto ax = static_cast<std::size_t>(a.axes.back());
  switch (a.kind) {
    case Kind::forward:
    case Kind::backward:
      check_internal(is_complex(x.dtype()), "fft: complex transform of a real operand");
      return x.type();
    case Kind::real_forward:
      check_internal(is_floating(x.dtype()), "fft: real transform of a non-real operand");
      if (!is_symbol(shape[ax])) shape[ax] = shape[ax] / 2 + 1;
      else fail_shape("the transformed axis has a size unknown until the call", "Give that axis a fixed size.");
      return {shape, complex_dtype(x.dtype())};
    case Kind::real_backward:
      check_internal(is_complex(x.dtype()) && a.size >= 1 && shape[ax] == a.size / 2 + 1,
                     "fft: complex-to-real sizes not prepared");
      shape[ax] = a.size;
      return {shape, real_dtype(x.dtype())};
  }
  return x.type();
}

Array evaluate_fft_fftw(const Array& x, const FftAttr& a, const TensorType& type) {
  const bool to_real = a.kind == Kind::real_backward, from_real = a.kind == Kind::real_forward;
  const FftKind kind = a.kind == Kind::forward    ? FftKind::forward
                       : a.kind == Kind::backward ? FftKind::backward
                       : from_real                ? FftKind::real_to_complex
                                                  : FftKind::complex_to_real;
  FftPlan plan(kind, DType::f64, to_real ? type.shape : x.shape(),
               std::vector<std::int64_t>(a.axes.begin(), a.axes.end()));
  Array in = x.astype(from_real ? DType::f64 : DType::c128);
  Array out(type.shape, to_real ? DType::f64 : DType::c128);
  plan.execute(in.raw_data(), out.raw_data());
  return out.astype(type.dtype);
}

// The reference evaluation runs an FFTW plan in double precision (complex128 or float64 data), as the
// library call does in the operands' precision. FFTW itself is checked against the textbook DFT in
// long double by tests/cpp/test_fft_plans.cpp; the transforms against numpy.fft by tests/python/test_fft.py.
Array evaluate_fft(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  const TensorType& type = args.node.type;
  if (x.size() == 0 || num_elements(type.shape) == 0) return Array(type.shape, type.dtype);
  return evaluate_fft_fftw(x, std::get<FftAttr>(args.node.attr), type);
}

Tensor fft_node(const Tensor& x, Kind kind, std::vector<int> axes, std::int64_t size, const char* name) {
  return make_node(OpKind::Fft, {x}, FftAttr{kind, std::move(axes), size}, Loc::current(), name);
}

Grads vjp_fft(const Tensor& y, const Tensor& g) {
  const Tensor& x = y.node().inputs[0];
  const auto& a = std::get<FftAttr>(y.node().attr);
  const int axis = a.axes[0];
  switch (a.kind) {
    case Kind::forward:
    case Kind::backward: return {fft_node(g, a.kind, a.axes, 0, "fft")};
    case Kind::real_forward: {
      std::vector<std::pair<std::int64_t, std::int64_t>> widths(static_cast<std::size_t>(x.ndim()), {0, 0});
      const auto ax = static_cast<std::size_t>(axis);
      widths[ax].second = x.shape()[ax] - y.shape()[ax];
      return {real(fft_node(pad(g, widths), Kind::forward, {axis}, 0, "rfft_grad"))};
    }
    case Kind::real_backward: {
      const std::int64_t n = a.size, m = x.shape()[static_cast<std::size_t>(axis)];
      Array w({m}, real_dtype(x.dtype()));
      for (std::int64_t k = 0; k < m; ++k) w.set_flat(k, (k == 0 || 2 * k == n) ? 1 : 2);
      Shape ws(static_cast<std::size_t>(x.ndim()), 1);
      ws[static_cast<std::size_t>(axis)] = m;
      return {constant(w.reshape(ws)) * conj(fft_node(g, Kind::real_forward, {axis}, 0, "irfft_grad"))};
    }
  }
  return {Tensor()};
}

}  // namespace

void register_fft_ops() {
  define(OpKind::Fft, row(Family::linalg, 1, Lowering::library, infer_fft, evaluate_fft, vjp_fft));
}

}  // namespace ops

namespace fft {
namespace {

using Kind = FftAttr::Kind;

enum class Norm { backward, ortho, forward };

Norm parse_norm(const std::string& norm, const char* fn) {
  if (norm == "backward" || norm.empty()) return Norm::backward;
  if (norm == "ortho") return Norm::ortho;
  if (norm == "forward") return Norm::forward;
  throw ValueError(std::string(fn) + ": norm is \"" + norm +
                   "\"; expected \"backward\" (the default), \"ortho\" or \"forward\", as numpy.fft.");
}

// The scale of a transform over `n` points: the inverse one for `inverse`.
Tensor scaled(const Tensor& t, Norm norm, double n, bool inverse) {
  double s = 1;
  if (norm == Norm::ortho) s = 1 / std::sqrt(n);
  else if ((norm == Norm::backward) == inverse) s = 1 / n;
  return s == 1 ? t : t * s;
}

// x as a complex tensor: float32 (and integers, bool) become complex64, float64 complex128.
Tensor as_complex(const Tensor& x, Loc loc) {
  if (is_complex(x.dtype())) return x;
  return cast(x, x.dtype() == DType::f64 ? DType::c128 : DType::c64, loc);
}

Tensor as_real(const Tensor& x, const char* fn, Loc loc) {
  if (is_complex(x.dtype()))
    ops::raise(fn, {x},
               {ops::TypeProblem::Kind::dtype, "takes a real input, got " + std::string(dtype_name(x.dtype())),
                "Use fft for complex inputs, or pass real(x)."},
               loc);
  return is_floating(x.dtype()) ? x : cast(x, DType::f32, loc);
}

// x cropped or zero-padded to n along axis (already normalized).
Tensor resized(const Tensor& x, int axis, std::int64_t n, const char* fn, Loc loc) {
  const auto ax = static_cast<std::size_t>(axis);
  if (n < 1)
    ops::raise(fn, {x},
               {ops::TypeProblem::Kind::value, "the transform length is " + std::to_string(n),
                "Pass n >= 1 (or leave it out for the input's length)."},
               loc);
  const std::int64_t len = x.shape()[ax];
  if (is_symbol(len))
    ops::raise(fn, {x},
               {ops::TypeProblem::Kind::shape,
                "the transformed axis " + std::to_string(axis) + " has a size unknown until the call",
                "Give the placeholder a fixed size on the transformed axes."},
               loc);
  if (n == len) return x;
  if (n < len) {
    std::vector<Index> index(static_cast<std::size_t>(x.ndim()), Index::range());
    index[ax] = Index::range(0, n);
    return slice(x, index, loc);
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> widths(static_cast<std::size_t>(x.ndim()), {0, 0});
  widths[ax].second = n - len;
  return pad(x, widths, 0, loc);
}

int normalized_axis(const Tensor& x, int axis, const char* fn, Loc loc) {
  try {
    return ops::checked_axis(axis, x.ndim());
  } catch (const ops::TypeProblem& problem) {
    ops::raise(fn, {x}, problem, loc);
  }
}

// numpy.fft's rule for (s, axes) of the N-dimensional transforms: axes default to all (or the last
// len(s) when s is given), s to the input's sizes along axes. Axes normalized, in the order given.
struct Plan {
  std::vector<int> axes;
  std::vector<std::int64_t> sizes;
};
Plan plan_of(const Tensor& x, const std::vector<std::int64_t>& s, const std::optional<std::vector<int>>& axes,
             const char* fn, Loc loc) {
  Plan p;
  if (axes) {
    for (int a : *axes) p.axes.push_back(normalized_axis(x, a, fn, loc));
  } else {
    const int count = s.empty() ? x.ndim() : static_cast<int>(s.size());
    if (count > x.ndim())
      ops::raise(fn, {x},
                 {ops::TypeProblem::Kind::shape,
                  "s has " + std::to_string(count) + " sizes but the input has " + std::to_string(x.ndim()) + " axes",
                  "Give at most one size per axis, or pass axes."},
                 loc);
    for (int a = x.ndim() - count; a < x.ndim(); ++a) p.axes.push_back(a);
  }
  for (std::size_t i = 0; i < p.axes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (p.axes[i] == p.axes[j])
        ops::raise(fn, {x},
                   {ops::TypeProblem::Kind::value, "axis " + std::to_string(p.axes[i]) + " is listed twice",
                    "List each axis once."},
                   loc);
  if (!s.empty() && s.size() != p.axes.size())
    ops::raise(fn, {x},
               {ops::TypeProblem::Kind::shape,
                "s has " + std::to_string(s.size()) + " sizes for " + std::to_string(p.axes.size()) + " axes",
                "Give one size per transformed axis."},
               loc);
  for (std::size_t i = 0; i < p.axes.size(); ++i)
    p.sizes.push_back(s.empty() ? x.shape()[static_cast<std::size_t>(p.axes[i])] : s[i]);
  return p;
}

std::vector<int> sorted(std::vector<int> axes) {
  std::sort(axes.begin(), axes.end());
  return axes;
}

Tensor c2c(const Tensor& a, const Plan& p, Norm norm, bool inverse, const char* fn, Loc loc) {
  Tensor x = as_complex(a, loc);
  double n = 1;
  for (std::size_t i = 0; i < p.axes.size(); ++i) {
    x = resized(x, p.axes[i], p.sizes[i], fn, loc);
    n *= static_cast<double>(p.sizes[i]);
  }
  if (p.axes.empty()) return x;
  Tensor y =
      ops::make_node(OpKind::Fft, {x}, FftAttr{inverse ? Kind::backward : Kind::forward, sorted(p.axes), 0}, loc, fn);
  return named_composite(fn, scaled(y, norm, n, inverse));
}

Tensor r2c(const Tensor& a, int axis, std::int64_t n, Norm norm, const char* fn, Loc loc) {
  Tensor x = resized(as_real(a, fn, loc), axis, n, fn, loc);
  Tensor y = ops::make_node(OpKind::Fft, {x}, FftAttr{Kind::real_forward, {axis}, 0}, loc, fn);
  return scaled(y, norm, static_cast<double>(n), false);
}

Tensor c2r(const Tensor& a, int axis, std::int64_t n, Norm norm, const char* fn, Loc loc) {
  if (n < 1)
    ops::raise(fn, {a},
               {ops::TypeProblem::Kind::value, "the output length is " + std::to_string(n),
                "Pass n >= 1 (the default, 2 (m - 1), needs at least 2 input frequencies)."},
               loc);
  Tensor x = resized(as_complex(a, loc), axis, n / 2 + 1, fn, loc);
  Tensor y = ops::make_node(OpKind::Fft, {x}, FftAttr{Kind::real_backward, {axis}, n}, loc, fn);
  return scaled(y, norm, static_cast<double>(n), true);
}

std::int64_t length(const Tensor& a, int axis, std::optional<std::int64_t> n) {
  return n ? *n : a.shape()[static_cast<std::size_t>(axis)];
}

Norm swapped(Norm n) { return n == Norm::backward ? Norm::forward : n == Norm::forward ? Norm::backward : n; }

}  // namespace

Tensor fft(const Tensor& a, std::optional<std::int64_t> n, int axis, const std::string& norm, Loc loc) {
  const int ax = normalized_axis(a, axis, "fft", loc);
  return c2c(a, {{ax}, {length(a, ax, n)}}, parse_norm(norm, "fft"), false, "fft", loc);
}

Tensor ifft(const Tensor& a, std::optional<std::int64_t> n, int axis, const std::string& norm, Loc loc) {
  const int ax = normalized_axis(a, axis, "ifft", loc);
  return c2c(a, {{ax}, {length(a, ax, n)}}, parse_norm(norm, "ifft"), true, "ifft", loc);
}

Tensor rfft(const Tensor& a, std::optional<std::int64_t> n, int axis, const std::string& norm, Loc loc) {
  const int ax = normalized_axis(a, axis, "rfft", loc);
  return named_composite("rfft", r2c(a, ax, length(a, ax, n), parse_norm(norm, "rfft"), "rfft", loc));
}

Tensor irfft(const Tensor& a, std::optional<std::int64_t> n, int axis, const std::string& norm, Loc loc) {
  const int ax = normalized_axis(a, axis, "irfft", loc);
  const std::int64_t len = n ? *n : 2 * (a.shape()[static_cast<std::size_t>(ax)] - 1);
  return named_composite("irfft", c2r(a, ax, len, parse_norm(norm, "irfft"), "irfft", loc));
}

Tensor hfft(const Tensor& a, std::optional<std::int64_t> n, int axis, const std::string& norm, Loc loc) {
  const int ax = normalized_axis(a, axis, "hfft", loc);
  const std::int64_t len = n ? *n : 2 * (a.shape()[static_cast<std::size_t>(ax)] - 1);
  return named_composite("hfft",
                         c2r(conj(as_complex(a, loc), loc), ax, len, swapped(parse_norm(norm, "hfft")), "hfft", loc));
}

Tensor ihfft(const Tensor& a, std::optional<std::int64_t> n, int axis, const std::string& norm, Loc loc) {
  const int ax = normalized_axis(a, axis, "ihfft", loc);
  return named_composite("ihfft",
                         conj(r2c(a, ax, length(a, ax, n), swapped(parse_norm(norm, "ihfft")), "ihfft", loc), loc));
}

Tensor fftn(const Tensor& a, const std::vector<std::int64_t>& s, std::optional<std::vector<int>> axes,
            const std::string& norm, Loc loc) {
  return c2c(a, plan_of(a, s, axes, "fftn", loc), parse_norm(norm, "fftn"), false, "fftn", loc);
}

Tensor ifftn(const Tensor& a, const std::vector<std::int64_t>& s, std::optional<std::vector<int>> axes,
             const std::string& norm, Loc loc) {
  return c2c(a, plan_of(a, s, axes, "ifftn", loc), parse_norm(norm, "ifftn"), true, "ifftn", loc);
}

// numpy.fft.rfftn: rfft along the last of the axes, then fft over the others.
Tensor rfftn(const Tensor& a, const std::vector<std::int64_t>& s, std::optional<std::vector<int>> axes,
             const std::string& norm, Loc loc) {
  Plan p = plan_of(a, s, axes, "rfftn", loc);
  Norm nm = parse_norm(norm, "rfftn");
  if (p.axes.empty()) return as_complex(as_real(a, "rfftn", loc), loc);
  Tensor y = r2c(a, p.axes.back(), p.sizes.back(), nm, "rfftn", loc);
  p.axes.pop_back();
  p.sizes.pop_back();
  return named_composite("rfftn", p.axes.empty() ? y : c2c(y, p, nm, false, "rfftn", loc));
}

// numpy.fft.irfftn: ifft over all but the last of the axes, then irfft along the last.
Tensor irfftn(const Tensor& a, const std::vector<std::int64_t>& s, std::optional<std::vector<int>> axes,
              const std::string& norm, Loc loc) {
  Plan p = plan_of(a, s, axes, "irfftn", loc);
  Norm nm = parse_norm(norm, "irfftn");
  if (p.axes.empty()) return real(a, loc);
  const int last = p.axes.back();
  const std::int64_t n = s.empty() ? 2 * (a.shape()[static_cast<std::size_t>(last)] - 1) : p.sizes.back();
  p.axes.pop_back();
  p.sizes.pop_back();
  Tensor x = p.axes.empty() ? as_complex(a, loc) : c2c(a, p, nm, true, "irfftn", loc);
  return named_composite("irfftn", c2r(x, last, n, nm, "irfftn", loc));
}

Tensor fft2(const Tensor& a, const std::vector<std::int64_t>& s, const std::vector<int>& axes, const std::string& norm,
            Loc loc) {
  return fftn(a, s, axes, norm, loc);
}
Tensor ifft2(const Tensor& a, const std::vector<std::int64_t>& s, const std::vector<int>& axes, const std::string& norm,
             Loc loc) {
  return ifftn(a, s, axes, norm, loc);
}
Tensor rfft2(const Tensor& a, const std::vector<std::int64_t>& s, const std::vector<int>& axes, const std::string& norm,
             Loc loc) {
  return rfftn(a, s, axes, norm, loc);
}
Tensor irfft2(const Tensor& a, const std::vector<std::int64_t>& s, const std::vector<int>& axes,
              const std::string& norm, Loc loc) {
  return irfftn(a, s, axes, norm, loc);
}

namespace {
void check_freq_args(const char* fn, std::int64_t n, double d, DType dtype) {
  if (n < 1) throw ValueError(std::string(fn) + ": n is " + std::to_string(n) + "; expected n >= 1.");
  if (d == 0 || !std::isfinite(d))
    throw ValueError(std::string(fn) + ": the sample spacing d must be finite and non-zero.");
  if (!is_floating(dtype))
    throw DTypeError(std::string(fn) + ": dtype must be float32 or float64, got " + std::string(dtype_name(dtype)) +
                     ".");
}
}  // namespace

Tensor fftfreq(std::int64_t n, double d, DType dtype, Loc loc) {
  check_freq_args("fftfreq", n, d, dtype);
  Array f({n}, dtype);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = i < (n + 1) / 2 ? i : i - n;
    f.set_flat(i, static_cast<double>(k) / (d * static_cast<double>(n)));
  }
  return named_composite("fftfreq", constant(f, loc));
}

Tensor rfftfreq(std::int64_t n, double d, DType dtype, Loc loc) {
  check_freq_args("rfftfreq", n, d, dtype);
  Array f({n / 2 + 1}, dtype);
  for (std::int64_t i = 0; i <= n / 2; ++i) f.set_flat(i, static_cast<double>(i) / (d * static_cast<double>(n)));
  return named_composite("rfftfreq", constant(f, loc));
}

namespace {
Tensor shifted(const Tensor& x, const std::optional<std::vector<int>>& axes, bool inverse, const char* fn, Loc loc) {
  std::vector<int> list;
  if (axes) {
    for (int a : *axes) list.push_back(normalized_axis(x, a, fn, loc));
  } else {
    for (int a = 0; a < x.ndim(); ++a) list.push_back(a);
  }
  if (list.empty()) return x;
  std::vector<std::int64_t> shift;
  for (int a : list) {
    const std::int64_t n = x.shape()[static_cast<std::size_t>(a)];
    shift.push_back(inverse ? -(n / 2) : n / 2);
  }
  return named_composite(fn, roll(x, shift, list, loc));
}
}  // namespace

Tensor fftshift(const Tensor& x, std::optional<std::vector<int>> axes, Loc loc) {
  return shifted(x, axes, false, "fftshift", loc);
}
Tensor ifftshift(const Tensor& x, std::optional<std::vector<int>> axes, Loc loc) {
  return shifted(x, axes, true, "ifftshift", loc);
}

}  // namespace fft
}  // namespace symx

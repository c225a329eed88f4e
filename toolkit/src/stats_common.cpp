// The pieces every distribution shares (see stats_internal.hpp).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "stats_internal.hpp"

namespace symx::stats {

Tensor Distribution::prob(const Operand& value, Loc at) const { return exp(log_prob(value, at), at); }

namespace detail {

DType param_dtype(const std::vector<Param>& params) {
  for (const Param& p : params)
    if (p.value->is_tensor() && p.value->tensor().dtype() == DType::f64) return DType::f64;
  return DType::f32;
}

Tensor as_param(const Operand& value, DType dtype, Loc at) {
  if (!value.is_tensor()) return constant(value.number(), dtype, at);
  const Tensor& t = value.tensor();
  return t.dtype() == dtype ? t : astype(t, dtype, at);
}

Tensor as_value(const Operand& value, DType dtype, Loc at) {
  if (!value.is_tensor()) return constant(value.number(), dtype, at);
  const Tensor& t = value.tensor();
  return is_floating(t.dtype()) ? t : astype(t, dtype, at);
}

std::string user_where(Loc at) {
  // The public API exposes the user's location (a C++ line, or the Python caller's line when
  // called through the binding) only through the nodes it builds, so a throwaway node asks for it.
  return constant(0.0, DType::f32, at).node().where;
}

std::string at_user_line(Loc at) {
  std::string place = user_where(at);
  return place.empty() ? "" : ", at " + place;
}

namespace {
std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}
}  // namespace

void check_known(const char* cls, const char* arg, const Operand& value, const std::function<bool(double)>& valid,
                 const char* requirement, Loc at) {
  std::vector<double> values;
  if (!value.is_tensor()) {
    values.push_back(value.number());
  } else if (value.tensor().op() == OpKind::Constant) {
    values = std::get<ConstantAttr>(value.tensor().node().attr).value.to_vector();
  }
  for (double v : values) {
    if (valid(v)) continue;
    throw ValueError(std::string("stats.") + cls + ": " + arg + " must be " + requirement + ", but it holds " +
                     number_text(v) + at_user_line(at) + ". Give a valid " + arg + ".");
  }
}

Shape broadcast_shapes(const std::string& what, const std::vector<std::pair<std::string, Shape>>& shapes, Loc at) {
  Shape out;
  for (const auto& [name, shape] : shapes) {
    Shape next(std::max(out.size(), shape.size()), 1);
    for (std::size_t i = 0; i < next.size(); ++i) {
      std::int64_t a = i < out.size() ? out[out.size() - 1 - i] : 1;
      std::int64_t b = i < shape.size() ? shape[shape.size() - 1 - i] : 1;
      if (a != b && a != 1 && b != 1) {
        std::string listing;
        for (const auto& [n, s] : shapes) listing += (listing.empty() ? "" : ", ") + n + " " + shape_string(s);
        throw ShapeError("stats." + what + ": the shapes do not broadcast together (" + listing + ")" +
                         at_user_line(at) + ". Give " + name +
                         " a shape that broadcasts with the others (equal trailing axes, or 1).");
      }
      next[next.size() - 1 - i] = a == 1 ? b : a;
    }
    out = std::move(next);
  }
  return out;
}

Params make_params(const char* cls, const std::vector<Param>& params, Loc at) {
  Params out;
  out.dtype = param_dtype(params);
  std::vector<std::pair<std::string, Shape>> shapes;
  for (const Param& p : params) {
    out.tensors.push_back(as_param(*p.value, out.dtype, at));
    shapes.emplace_back(p.name, out.tensors.back().shape());
  }
  out.batch = broadcast_shapes(cls, shapes, at);
  return out;
}

Tensor log_prob_value(const char* cls, const Distribution& d, const Operand& value, Loc at) {
  Tensor v = as_value(value, d.dtype(), at);
  broadcast_shapes(std::string(cls) + ".log_prob",
                   {{"value", v.shape()}, {"batch_shape + event_shape", concat(d.batch_shape(), d.event_shape())}}, at);
  return v;
}

bool is_known(const Operand& value) { return !value.is_tensor() || value.tensor().op() == OpKind::Constant; }

Shape concat(const Shape& a, const Shape& b) {
  Shape out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

Tensor lbeta(const Tensor& a, const Tensor& b, Loc at) {
  return subtract(add(lgamma(a, at), lgamma(b, at), at), lgamma(add(a, b, at), at), at);
}

namespace {
constexpr std::int64_t kGammaRounds = 8;
}  // namespace

Tensor log_standard_gamma_sample(const Tensor& alpha, const Shape& shape, Loc at) {
  const DType dt = alpha.dtype();
  Tensor boost = less(alpha, 1.0, at);
  Tensor a = where(boost, add(alpha, 1.0, at), alpha, at);
  Tensor d = subtract(a, 1.0 / 3.0, at);
  Tensor c = rsqrt(multiply(d, 9.0, at), at);
  Shape rounds = concat({kGammaRounds}, shape);
  Tensor x = random::normal(rounds, 0, 1, dt, at);
  // 1 - U lies in (0, 1], so its logarithm is finite.
  Tensor log_u = log(subtract(1.0, random::uniform(rounds, 0, 1, dt, at), at), at);
  Tensor v = power(add(multiply(c, x, at), 1.0, at), 3.0, at);
  Tensor positive = greater(v, 0.0, at);
  Tensor log_v = log(where(positive, v, 1.0, at), at);
  Tensor bound =
      add(subtract(add(multiply(0.5, square(x, at), at), d, at), multiply(d, v, at), at), multiply(d, log_v, at), at);
  Tensor accept = astype(logical_and(positive, less(log_u, bound, at), at), DType::i32, at);
  // The first accepted round of each draw; argmax returns the first maximum.
  Tensor first = argmax(accept, 0, true, at);
  Tensor chosen = reshape(take_along_axis(log_v, first, 0, at), shape, at);
  Tensor any = greater(max(accept, 0, false, at), 0, at);
  Tensor log_sample = add(log(d, at), where(any, chosen, 0.0, at), at);
  Tensor log_u_boost = log(subtract(1.0, random::uniform(shape, 0, 1, dt, at), at), at);
  return add(log_sample, where(boost, divide(log_u_boost, alpha, at), 0.0, at), at);
}

}  // namespace detail
}  // namespace symx::stats

// toolkit/src/stats_internal.hpp: what the distributions share: parameter conversion and checks,
// broadcasting of shapes, special functions composed from public ops, and the gamma sampler.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "symx/special.hpp"
#include "symx/stats.hpp"

namespace symx::stats::detail {

// A named parameter, as the user gave it.
struct Param {
  const char* name;
  const Operand* value;
};

// The float dtype of the parameters: float64 when a tensor among them is float64, else float32.
DType param_dtype(const std::vector<Param>& params);
// The parameter as a tensor of `dtype` (a number becomes a constant; a tensor is cast if needed).
Tensor as_param(const Operand& value, DType dtype, Loc where);
// A value argument of log_prob: numbers take `dtype`, integer tensors are cast to it.
Tensor as_value(const Operand& value, DType dtype, Loc where);

// "file:line" of the user's code (from Python, the calling Python line).
std::string user_where(Loc where);
// ", at file:line" for an error message, or "" when the line is unknown.
std::string at_user_line(Loc where);
// Throws ValueError "stats.<cls>: <arg> must be <requirement> ..." when `value` is a number or a
// constant and `valid` is false for one of its elements.
void check_known(const char* cls, const char* arg, const Operand& value, const std::function<bool(double)>& valid,
                 const char* requirement, Loc where);
// The broadcast shape of the named shapes, or a ShapeError from `what` naming them.
Shape broadcast_shapes(const std::string& what, const std::vector<std::pair<std::string, Shape>>& shapes, Loc where);

// (log Gamma and digamma are symx::lgamma and symx::digamma, primitives of symx/special.hpp.)
// log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b).
Tensor lbeta(const Tensor& a, const Tensor& b, Loc where);
// The logarithm of draws from Gamma(alpha, 1) of `shape` (alpha broadcasts to it): Marsaglia and
// Tsang's rejection method with a fixed number of vectorized rounds (see Gamma in stats.hpp).
Tensor log_standard_gamma_sample(const Tensor& alpha, const Shape& shape, Loc where);

// Parameters converted to one float dtype, and their broadcast shape (ShapeError naming them if
// they do not broadcast). `cls` names the distribution in errors.
struct Params {
  std::vector<Tensor> tensors;
  Shape batch;
  DType dtype;
};
Params make_params(const char* cls, const std::vector<Param>& params, Loc where);
// The value argument of `d.log_prob` as a tensor (see as_value), checked to broadcast against
// the batch and event shapes.
Tensor log_prob_value(const char* cls, const Distribution& d, const Operand& value, Loc where);
// Whether a parameter is known when the distribution is built (a number or a constant).
bool is_known(const Operand& value);
inline bool positive(double v) { return v > 0; }

// The sample shape followed by the batch shape (and event shape).
Shape concat(const Shape& a, const Shape& b);
// log(2 pi), used by the normal distributions.
inline constexpr double kLog2Pi = 1.8378770664093454835606594728112353;

}  // namespace symx::stats::detail

// The scalar continuous distributions: Normal, Uniform, Gamma, Beta, and their KL divergences.
#include <cmath>
#include <limits>

#include "stats_internal.hpp"

namespace symx::stats {

using namespace detail;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

// `t` broadcast to the distribution's batch shape (a parameter may have fewer axes).
Tensor full_batch(const Tensor& t, const Shape& batch, Loc at) {
  return t.shape() == batch ? t : broadcast_to(t, batch, at);
}
}  // namespace

// ---- Normal ----

Normal::Normal(const Operand& loc, const Operand& scale, Loc at) {
  check_known("Normal", "scale", scale, positive, "positive (> 0)", at);
  Params p = make_params("Normal", {{"loc", &loc}, {"scale", &scale}}, at);
  loc_ = p.tensors[0];
  scale_ = p.tensors[1];
  batch_shape_ = p.batch;
  dtype_ = p.dtype;
}

Tensor Normal::log_prob(const Operand& value, Loc at) const {
  Tensor v = log_prob_value("Normal", *this, value, at);
  Tensor z = divide(subtract(v, loc_, at), scale_, at);
  return subtract(multiply(-0.5, square(z, at), at), add(log(scale_, at), 0.5 * kLog2Pi, at), at);
}

Tensor Normal::sample(const Shape& shape, Loc at) const {
  Tensor eps = random::normal(concat(shape, batch_shape_), 0, 1, dtype_, at);
  return add(loc_, multiply(scale_, eps, at), at);
}

Tensor Normal::entropy(Loc at) const {
  return full_batch(add(log(scale_, at), 0.5 + 0.5 * kLog2Pi, at), batch_shape_, at);
}

Tensor Normal::mean(Loc at) const { return full_batch(loc_, batch_shape_, at); }

Tensor Normal::variance(Loc at) const { return full_batch(square(scale_, at), batch_shape_, at); }

Tensor kl_divergence(const Normal& p, const Normal& q, Loc at) {
  broadcast_shapes("kl_divergence", {{"p.batch_shape", p.batch_shape()}, {"q.batch_shape", q.batch_shape()}}, at);
  Tensor ratio = divide(p.scale(), q.scale(), at);
  Tensor shift = divide(subtract(p.loc(), q.loc(), at), q.scale(), at);
  // log(sq / sp) + (sp^2 + (mp - mq)^2) / (2 sq^2) - 1/2
  Tensor half_sum = multiply(0.5, add(square(ratio, at), square(shift, at), at), at);
  return subtract(subtract(half_sum, log(ratio, at), at), 0.5, at);
}

// ---- Uniform ----

Uniform::Uniform(const Operand& low, const Operand& high, Loc at) {
  Params p = make_params("Uniform", {{"low", &low}, {"high", &high}}, at);
  low_ = p.tensors[0];
  high_ = p.tensors[1];
  batch_shape_ = p.batch;
  dtype_ = p.dtype;
  if (is_known(low) && is_known(high)) {
    Array ordered = less(low_, high_, at).eval();
    for (double ok : ordered.to_vector())
      if (ok == 0) {
        throw ValueError("stats.Uniform: low must be less than high in every element, but low " + low_.eval().str() +
                         " and high " + high_.eval().str() + " are not" + at_user_line(at) +
                         ". Give an interval with low < high.");
      }
  }
}

Tensor Uniform::log_prob(const Operand& value, Loc at) const {
  Tensor v = log_prob_value("Uniform", *this, value, at);
  Tensor inside = logical_and(greater_equal(v, low_, at), less_equal(v, high_, at), at);
  return where(inside, negative(log(subtract(high_, low_, at), at), at), -kInf, at);
}

Tensor Uniform::sample(const Shape& shape, Loc at) const {
  Tensor u = random::uniform(concat(shape, batch_shape_), 0, 1, dtype_, at);
  return add(low_, multiply(subtract(high_, low_, at), u, at), at);
}

Tensor Uniform::entropy(Loc at) const { return full_batch(log(subtract(high_, low_, at), at), batch_shape_, at); }

Tensor Uniform::mean(Loc at) const { return full_batch(multiply(0.5, add(low_, high_, at), at), batch_shape_, at); }

Tensor Uniform::variance(Loc at) const {
  return full_batch(divide(square(subtract(high_, low_, at), at), 12.0, at), batch_shape_, at);
}

Tensor kl_divergence(const Uniform& p, const Uniform& q, Loc at) {
  broadcast_shapes("kl_divergence", {{"p.batch_shape", p.batch_shape()}, {"q.batch_shape", q.batch_shape()}}, at);
  Tensor covered = logical_and(less_equal(q.low(), p.low(), at), greater_equal(q.high(), p.high(), at), at);
  Tensor kl = log(divide(subtract(q.high(), q.low(), at), subtract(p.high(), p.low(), at), at), at);
  return where(covered, kl, kInf, at);
}

// ---- Gamma ----

Gamma::Gamma(const Operand& concentration, const Operand& rate, Loc at) {
  check_known("Gamma", "concentration", concentration, positive, "positive (> 0)", at);
  check_known("Gamma", "rate", rate, positive, "positive (> 0)", at);
  Params p = make_params("Gamma", {{"concentration", &concentration}, {"rate", &rate}}, at);
  concentration_ = p.tensors[0];
  rate_ = p.tensors[1];
  batch_shape_ = p.batch;
  dtype_ = p.dtype;
}

Tensor Gamma::log_prob(const Operand& value, Loc at) const {
  Tensor v = log_prob_value("Gamma", *this, value, at);
  Tensor inside = greater(v, 0.0, at);
  Tensor x = where(inside, v, 1.0, at);  // keeps log finite where the result is -inf anyway
  const Tensor& a = concentration_;
  Tensor lp = add(multiply(a, log(rate_, at), at), multiply(subtract(a, 1.0, at), log(x, at), at), at);
  lp = subtract(subtract(lp, multiply(rate_, x, at), at), lgamma(a, at), at);
  return where(inside, lp, -kInf, at);
}

Tensor Gamma::sample(const Shape& shape, Loc at) const {
  Shape full = concat(shape, batch_shape_);
  Tensor log_x = log_standard_gamma_sample(stop_gradient(concentration_, at), full, at);
  return divide(exp(log_x, at), stop_gradient(rate_, at), at);
}

Tensor Gamma::entropy(Loc at) const {
  const Tensor& a = concentration_;
  Tensor h = add(subtract(a, log(rate_, at), at), lgamma(a, at), at);
  return full_batch(add(h, multiply(subtract(1.0, a, at), digamma(a, at), at), at), batch_shape_, at);
}

Tensor Gamma::mean(Loc at) const { return full_batch(divide(concentration_, rate_, at), batch_shape_, at); }

Tensor Gamma::variance(Loc at) const {
  return full_batch(divide(concentration_, square(rate_, at), at), batch_shape_, at);
}

Tensor kl_divergence(const Gamma& p, const Gamma& q, Loc at) {
  broadcast_shapes("kl_divergence", {{"p.batch_shape", p.batch_shape()}, {"q.batch_shape", q.batch_shape()}}, at);
  const Tensor &ap = p.concentration(), &aq = q.concentration(), &bp = p.rate(), &bq = q.rate();
  // (ap - aq) digamma(ap) - lgamma(ap) + lgamma(aq) + aq (log bp - log bq) + ap (bq - bp) / bp
  Tensor kl = subtract(multiply(subtract(ap, aq, at), digamma(ap, at), at), lgamma(ap, at), at);
  kl = add(kl, lgamma(aq, at), at);
  kl = add(kl, multiply(aq, log(divide(bp, bq, at), at), at), at);
  return add(kl, multiply(ap, subtract(divide(bq, bp, at), 1.0, at), at), at);
}

// ---- Beta ----

Beta::Beta(const Operand& a, const Operand& b, Loc at) {
  check_known("Beta", "a", a, positive, "positive (> 0)", at);
  check_known("Beta", "b", b, positive, "positive (> 0)", at);
  Params p = make_params("Beta", {{"a", &a}, {"b", &b}}, at);
  a_ = p.tensors[0];
  b_ = p.tensors[1];
  batch_shape_ = p.batch;
  dtype_ = p.dtype;
}

Tensor Beta::log_prob(const Operand& value, Loc at) const {
  Tensor v = log_prob_value("Beta", *this, value, at);
  Tensor inside = logical_and(greater(v, 0.0, at), less(v, 1.0, at), at);
  Tensor x = where(inside, v, 0.5, at);  // keeps the logs finite where the result is -inf anyway
  Tensor lp = add(multiply(subtract(a_, 1.0, at), log(x, at), at),
                  multiply(subtract(b_, 1.0, at), log1p(negative(x, at), at), at), at);
  return where(inside, subtract(lp, lbeta(a_, b_, at), at), -kInf, at);
}

Tensor Beta::sample(const Shape& shape, Loc at) const {
  Shape full = concat(shape, batch_shape_);
  Tensor log_x = log_standard_gamma_sample(stop_gradient(a_, at), full, at);
  Tensor log_y = log_standard_gamma_sample(stop_gradient(b_, at), full, at);
  return sigmoid(subtract(log_x, log_y, at), at);
}

Tensor Beta::entropy(Loc at) const {
  Tensor h = subtract(lbeta(a_, b_, at), multiply(subtract(a_, 1.0, at), digamma(a_, at), at), at);
  h = subtract(h, multiply(subtract(b_, 1.0, at), digamma(b_, at), at), at);
  Tensor total = add(a_, b_, at);
  return full_batch(add(h, multiply(subtract(total, 2.0, at), digamma(total, at), at), at), batch_shape_, at);
}

Tensor Beta::mean(Loc at) const { return full_batch(divide(a_, add(a_, b_, at), at), batch_shape_, at); }

Tensor Beta::variance(Loc at) const {
  Tensor total = add(a_, b_, at);
  Tensor denominator = multiply(square(total, at), add(total, 1.0, at), at);
  return full_batch(divide(multiply(a_, b_, at), denominator, at), batch_shape_, at);
}

Tensor kl_divergence(const Beta& p, const Beta& q, Loc at) {
  broadcast_shapes("kl_divergence", {{"p.batch_shape", p.batch_shape()}, {"q.batch_shape", q.batch_shape()}}, at);
  const Tensor &ap = p.a(), &bp = p.b(), &aq = q.a(), &bq = q.b();
  // lbeta(aq, bq) - lbeta(ap, bp) + (ap - aq) psi(ap) + (bp - bq) psi(bp) + (aq - ap + bq - bp) psi(ap + bp)
  Tensor kl = subtract(lbeta(aq, bq, at), lbeta(ap, bp, at), at);
  kl = add(kl, multiply(subtract(ap, aq, at), digamma(ap, at), at), at);
  kl = add(kl, multiply(subtract(bp, bq, at), digamma(bp, at), at), at);
  Tensor rest = subtract(add(aq, bq, at), add(ap, bp, at), at);
  return add(kl, multiply(rest, digamma(add(ap, bp, at), at), at), at);
}

}  // namespace symx::stats

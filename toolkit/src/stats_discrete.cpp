// The discrete distributions: Categorical and Bernoulli, and their KL divergences.
#include <cmath>
#include <limits>

#include "stats_internal.hpp"

namespace symx::stats {

using namespace detail;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

bool probability(double v) { return v >= 0 && v <= 1; }
bool non_negative_finite(double v) { return v >= 0 && std::isfinite(v); }

// p * log_p, taken as 0 where p is 0 (so that log 0 = -inf does not make NaN).
Tensor x_log_x(const Tensor& p, const Tensor& log_p, Loc at) {
  return where(greater(p, 0.0, at), multiply(p, log_p, at), 0.0, at);
}

// A float copy of `value` for the tests of the support (integers compare exactly as floats up to 2^53).
Tensor as_float_value(const Tensor& v, DType dtype, Loc at) {
  return is_floating(v.dtype()) ? v : astype(v, dtype, at);
}

// A float tensor of `dtype` for a Categorical parameter; a scalar is refused (it needs a class axis).
Tensor categorical_param(const Tensor& t, const char* name, Loc at) {
  if (t.ndim() < 1 || t.shape().back() < 1) {
    throw ShapeError(std::string("stats.Categorical: ") + name +
                     " must have a last axis of K >= 1 classes, but it has the shape " + shape_string(t.shape()) +
                     at_user_line(at) + ". Give " + name + " the shape (K,) or (..., K).");
  }
  return is_floating(t.dtype()) ? t : astype(t, DType::f32, at);
}
}  // namespace

// ---- Categorical ----

Categorical Categorical::from_logits(const Tensor& logits, Loc at) {
  Categorical d;
  d.logits_ = categorical_param(logits, "logits", at);
  d.dtype_ = d.logits_.dtype();
  d.batch_shape_ = Shape(d.logits_.shape().begin(), d.logits_.shape().end() - 1);
  return d;
}

Categorical Categorical::from_probs(const Tensor& probs, Loc at) {
  check_known("Categorical", "probs", probs, non_negative_finite, "finite and >= 0", at);
  Categorical d;
  Tensor p = categorical_param(probs, "probs", at);
  d.probs_ = divide(p, sum(p, -1, true, at), at);
  d.logits_ = log(d.probs_, at);
  d.dtype_ = p.dtype();
  d.batch_shape_ = Shape(p.shape().begin(), p.shape().end() - 1);
  return d;
}

Tensor Categorical::logits(Loc at) const { return probs_.defined() ? logits_ : nn::log_softmax(logits_, -1, at); }

Tensor Categorical::probs(Loc at) const { return probs_.defined() ? probs_ : nn::softmax(logits_, -1, at); }

Tensor Categorical::log_prob(const Operand& value, Loc at) const {
  Tensor v = as_float_value(log_prob_value("Categorical", *this, value, at), dtype_, at);
  Shape out = broadcast_shapes("Categorical.log_prob", {{"value", v.shape()}, {"batch_shape", batch_shape_}}, at);
  const auto k = static_cast<double>(num_categories());
  Tensor in_range = logical_and(greater_equal(v, 0.0, at), less(v, k, at), at);
  Tensor valid = logical_and(in_range, symx::equal(floor(v, at), v, at), at);
  Tensor index = astype(where(valid, v, 0.0, at), DType::i64, at);
  if (index.shape() != out) index = broadcast_to(index, out, at);
  Tensor table = logits(at);
  Shape table_shape = concat(out, {num_categories()});
  if (table.shape() != table_shape) table = broadcast_to(table, table_shape, at);
  Tensor picked = squeeze(take_along_axis(table, expand_dims(index, -1, at), -1, at), {-1}, at);
  return where(valid, picked, -kInf, at);
}

Tensor Categorical::sample(const Shape& shape, Loc at) const {
  // Gumbel-max: argmax(logits + G) with G = -log(-log(U)) is a draw from softmax(logits).
  Shape full = concat(concat(shape, batch_shape_), {num_categories()});
  Tensor u = random::uniform(full, 0, 1, dtype_, at);
  Tensor gumbel = negative(log(negative(log(u, at), at), at), at);
  return argmax(add(stop_gradient(logits_, at), gumbel, at), -1, false, at);
}

Tensor Categorical::entropy(Loc at) const {
  return negative(sum(x_log_x(probs(at), logits(at), at), -1, false, at), at);
}

Tensor Categorical::mean(Loc at) const {
  throw ValueError("stats.Categorical: a categorical distribution has no mean (its values are class labels)" +
                   at_user_line(at) + ". Use probs for the class probabilities.");
}

Tensor Categorical::variance(Loc at) const {
  throw ValueError("stats.Categorical: a categorical distribution has no variance (its values are class labels)" +
                   at_user_line(at) + ". Use probs for the class probabilities.");
}

Tensor kl_divergence(const Categorical& p, const Categorical& q, Loc at) {
  if (p.num_categories() != q.num_categories())
    throw ShapeError("stats.kl_divergence: p and q have different numbers of categories (" +
                     std::to_string(p.num_categories()) + " and " + std::to_string(q.num_categories()) + ")" +
                     at_user_line(at) + ". Compare distributions over one set of classes.");
  broadcast_shapes("kl_divergence", {{"p.batch_shape", p.batch_shape()}, {"q.batch_shape", q.batch_shape()}}, at);
  Tensor pp = p.probs(at);
  Tensor terms = where(greater(pp, 0.0, at), multiply(pp, subtract(p.logits(at), q.logits(at), at), at), 0.0, at);
  return sum(terms, -1, false, at);
}

// ---- Bernoulli ----

Bernoulli Bernoulli::from_logits(const Operand& logits, Loc at) {
  Bernoulli d;
  Params p = make_params("Bernoulli", {{"logits", &logits}}, at);
  d.logits_ = p.tensors[0];
  d.batch_shape_ = p.batch;
  d.dtype_ = p.dtype;
  return d;
}

Bernoulli Bernoulli::from_probs(const Operand& probs, Loc at) {
  check_known("Bernoulli", "probs", probs, probability, "in [0, 1]", at);
  Bernoulli d;
  Params p = make_params("Bernoulli", {{"probs", &probs}}, at);
  d.probs_ = p.tensors[0];
  d.batch_shape_ = p.batch;
  d.dtype_ = p.dtype;
  return d;
}

Tensor Bernoulli::logits(Loc at) const {
  return logits_.defined() ? logits_ : subtract(log(probs_, at), log1p(negative(probs_, at), at), at);
}

Tensor Bernoulli::probs(Loc at) const { return probs_.defined() ? probs_ : sigmoid(logits_, at); }

std::pair<Tensor, Tensor> Bernoulli::log_probs(Loc at) const {
  if (probs_.defined()) return {log(probs_, at), log1p(negative(probs_, at), at)};
  // log sigmoid(l) = -softplus(-l) and log(1 - sigmoid(l)) = -softplus(l), stable for any l.
  return {negative(nn::softplus(negative(logits_, at), at), at), negative(nn::softplus(logits_, at), at)};
}

Tensor Bernoulli::log_prob(const Operand& value, Loc at) const {
  Tensor v = as_float_value(log_prob_value("Bernoulli", *this, value, at), dtype_, at);
  auto [log1, log0] = log_probs(at);
  return where(symx::equal(v, 1.0, at), log1, where(symx::equal(v, 0.0, at), log0, -kInf, at), at);
}

Tensor Bernoulli::sample(const Shape& shape, Loc at) const {
  Tensor u = random::uniform(concat(shape, batch_shape_), 0, 1, dtype_, at);
  return astype(less(u, stop_gradient(probs(at), at), at), dtype_, at);
}

Tensor Bernoulli::entropy(Loc at) const {
  auto [log1, log0] = log_probs(at);
  Tensor h = negative(add(x_log_x(exp(log1, at), log1, at), x_log_x(exp(log0, at), log0, at), at), at);
  return h.shape() == batch_shape_ ? h : broadcast_to(h, batch_shape_, at);
}

Tensor Bernoulli::mean(Loc at) const { return probs(at); }

Tensor Bernoulli::variance(Loc at) const {
  auto [log1, log0] = log_probs(at);
  return exp(add(log1, log0, at), at);
}

Tensor kl_divergence(const Bernoulli& p, const Bernoulli& q, Loc at) {
  broadcast_shapes("kl_divergence", {{"p.batch_shape", p.batch_shape()}, {"q.batch_shape", q.batch_shape()}}, at);
  auto [p1, p0] = p.log_probs(at);
  auto [q1, q0] = q.log_probs(at);
  Tensor one = where(greater(p1, -kInf, at), multiply(exp(p1, at), subtract(p1, q1, at), at), 0.0, at);
  Tensor zero = where(greater(p0, -kInf, at), multiply(exp(p0, at), subtract(p0, q0, at), at), 0.0, at);
  return add(one, zero, at);
}

}  // namespace symx::stats

// The multivariate normal distribution, computed through the Cholesky factor of its covariance.
#include <cmath>

#include "stats_internal.hpp"

namespace symx::stats {

using namespace detail;

namespace {

[[noreturn]] void mvn_error(const std::string& problem, const std::string& fix, Loc at) {
  throw ValueError("stats.MultivariateNormal: " + problem + at_user_line(at) + ". " + fix);
}

[[noreturn]] void mvn_shape_error(const std::string& problem, const std::string& fix, Loc at) {
  throw ShapeError("stats.MultivariateNormal: " + problem + at_user_line(at) + ". " + fix);
}

Shape drop_last(const Shape& s, std::size_t n) { return Shape(s.begin(), s.end() - static_cast<std::ptrdiff_t>(n)); }

// Checks mean (..., n) and a matrix (..., n, n) named `name`; returns the batch shape.
Shape check_shapes(const Tensor& mean, const Tensor& matrix, const char* name, Loc at) {
  if (mean.ndim() < 1)
    mvn_shape_error("mean must have at least one axis (the event axis of n coordinates), but it is a scalar",
                    "Give mean the shape (n,) or (..., n).", at);
  const std::int64_t n = mean.shape().back();
  const Shape& m = matrix.shape();
  if (matrix.ndim() < 2 || m[m.size() - 1] != n || m[m.size() - 2] != n)
    mvn_shape_error(std::string(name) + " must have the shape (..., n, n) with n = " + std::to_string(n) +
                        " (the length of mean's last axis), but it has the shape " + shape_string(m),
                    std::string("Give ") + name + " one n x n matrix per batch element.", at);
  return broadcast_shapes("MultivariateNormal",
                          {{"mean's batch axes", drop_last(mean.shape(), 1)},
                           {std::string(name) + "'s batch axes", drop_last(m, 2)}},
                          at);
}

// sum(log(diag(L))) over the last axis: half the log-determinant of L L^T.
Tensor half_logdet(const Tensor& tril, Loc at) {
  Tensor diagonal = sum(multiply(tril, eye(tril.shape().back(), std::nullopt, 0, tril.dtype(), at), at), -1, false, at);
  return sum(log(diagonal, at), -1, false, at);
}

// Solves L X = B for X with L (..., n, n) lower triangular and B (..., n, k), batch axes broadcast.
Tensor tril_solve(const Tensor& tril, const Tensor& b, Loc at) {
  Shape batch =
      broadcast_shapes("MultivariateNormal", {{"L", drop_last(tril.shape(), 2)}, {"B", drop_last(b.shape(), 2)}}, at);
  Shape lb = concat(batch, Shape(tril.shape().end() - 2, tril.shape().end()));
  Shape bb = concat(batch, Shape(b.shape().end() - 2, b.shape().end()));
  Tensor l = tril.shape() == lb ? tril : broadcast_to(tril, lb, at);
  Tensor r = b.shape() == bb ? b : broadcast_to(b, bb, at);
  return linalg::triangular_solve(l, r, true, false, false, at);
}

// Checks a known covariance: symmetric and positive definite.
void check_covariance(const Tensor& cov, Loc at) {
  Array c = cov.eval().astype(DType::f64);
  const std::int64_t n = cov.shape().back();
  const double* v = c.data<double>();
  for (std::int64_t base = 0; base < c.size(); base += n * n)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < i; ++j) {
        double x = v[base + i * n + j], y = v[base + j * n + i];
        if (std::abs(x - y) > 1e-6 * (std::abs(x) + std::abs(y)))
          mvn_error("covariance must be symmetric, but its elements (" + std::to_string(i) + ", " + std::to_string(j) +
                        ") and (" + std::to_string(j) + ", " + std::to_string(i) + ") differ",
                    "Give a symmetric matrix, e.g. (c + c^T) / 2.", at);
      }
  try {
    linalg::cholesky(cov, at).eval();
  } catch (const Error&) {
    mvn_error("covariance must be positive definite, but its Cholesky factorization fails",
              "Give a positive-definite matrix, e.g. add a small multiple of the identity.", at);
  }
}

}  // namespace

MultivariateNormal::MultivariateNormal(const Operand& mean, const Operand& covariance, Loc at) {
  dtype_ = param_dtype({{"mean", &mean}, {"covariance", &covariance}});
  mean_ = as_param(mean, dtype_, at);
  covariance_ = as_param(covariance, dtype_, at);
  batch_shape_ = check_shapes(mean_, covariance_, "covariance", at);
  event_shape_ = {mean_.shape().back()};
  if (is_known(covariance)) check_covariance(covariance_, at);
  scale_tril_ = linalg::cholesky(covariance_, at);
}

MultivariateNormal MultivariateNormal::from_scale_tril(const Operand& mean, const Operand& scale_tril, Loc at) {
  MultivariateNormal d;
  d.dtype_ = param_dtype({{"mean", &mean}, {"scale_tril", &scale_tril}});
  d.mean_ = as_param(mean, d.dtype_, at);
  Tensor given = as_param(scale_tril, d.dtype_, at);
  d.batch_shape_ = check_shapes(d.mean_, given, "scale_tril", at);
  d.event_shape_ = {d.mean_.shape().back()};
  const std::int64_t n = d.event_shape_[0];
  // Only the lower triangle counts, so an upper triangle left over from elsewhere is harmless.
  Tensor lower = greater_equal(expand_dims(arange(0, double(n), 1, DType::i64, at), 1, at),
                               arange(0, double(n), 1, DType::i64, at), at);
  d.scale_tril_ = where(lower, given, 0.0, at);
  if (is_known(scale_tril)) {
    Array diagonal = sum(multiply(given, eye(n, std::nullopt, 0, d.dtype_, at), at), -1, false, at).eval();
    for (double v : diagonal.to_vector())
      if (!(v > 0))
        mvn_error("scale_tril must have a positive diagonal, but it holds " + std::to_string(v),
                  "Give the Cholesky factor of a positive-definite covariance (numpy.linalg.cholesky).", at);
  }
  return d;
}

Tensor MultivariateNormal::covariance(Loc at) const {
  if (covariance_.defined()) return covariance_;
  return matmul(scale_tril_, matrix_transpose(scale_tril_, at), at);
}

Tensor MultivariateNormal::log_prob(const Operand& value, Loc at) const {
  Tensor v = log_prob_value("MultivariateNormal", *this, value, at);
  const std::int64_t n = event_shape_[0];
  Tensor diff = subtract(v, mean_, at);  // (B..., n)
  Tensor mahalanobis;
  if (scale_tril_.ndim() == 2) {
    // One factor for every point: solve for all of them at once as the columns of one matrix.
    Shape points = drop_last(diff.shape(), 1);
    Tensor columns = transpose(reshape(diff, {-1, n}, at), {}, at);
    Tensor z = linalg::triangular_solve(scale_tril_, columns, true, false, false, at);
    mahalanobis = reshape(sum(square(z, at), 0, false, at), points, at);
  } else {
    Tensor z = tril_solve(scale_tril_, expand_dims(diff, -1, at), at);  // (B..., n, 1)
    mahalanobis = sum(square(z, at), {-2, -1}, false, at);
  }
  Tensor normalizer = add(half_logdet(scale_tril_, at), 0.5 * static_cast<double>(n) * kLog2Pi, at);
  return subtract(multiply(-0.5, mahalanobis, at), normalizer, at);
}

Tensor MultivariateNormal::sample(const Shape& shape, Loc at) const {
  Tensor eps = random::normal(concat(concat(shape, batch_shape_), event_shape_), 0, 1, dtype_, at);
  Tensor correlated = squeeze(matmul(scale_tril_, expand_dims(eps, -1, at), at), {-1}, at);
  return add(mean_, correlated, at);
}

Tensor MultivariateNormal::entropy(Loc at) const {
  const double n = static_cast<double>(event_shape_[0]);
  Tensor h = add(half_logdet(scale_tril_, at), 0.5 * n * (1 + kLog2Pi), at);
  return h.shape() == batch_shape_ ? h : broadcast_to(h, batch_shape_, at);
}

Tensor MultivariateNormal::mean(Loc at) const {
  Shape full = concat(batch_shape_, event_shape_);
  return mean_.shape() == full ? mean_ : broadcast_to(mean_, full, at);
}

Tensor MultivariateNormal::variance(Loc at) const {
  // diag(L L^T)_i is the squared norm of row i of L.
  Tensor v = sum(square(scale_tril_, at), -1, false, at);
  Shape full = concat(batch_shape_, event_shape_);
  return v.shape() == full ? v : broadcast_to(v, full, at);
}

Tensor kl_divergence(const MultivariateNormal& p, const MultivariateNormal& q, Loc at) {
  if (p.event_shape() != q.event_shape())
    throw ShapeError("stats.kl_divergence: p and q are over vectors of different lengths (event shapes " +
                     shape_string(p.event_shape()) + " and " + shape_string(q.event_shape()) + ")" + at_user_line(at) +
                     ". Compare distributions of one length.");
  broadcast_shapes("kl_divergence", {{"p.batch_shape", p.batch_shape()}, {"q.batch_shape", q.batch_shape()}}, at);
  const double n = static_cast<double>(p.event_shape()[0]);
  // 0.5 (tr(Sq^-1 Sp) + |Lq^-1 (mq - mp)|^2 - n) + log|Lq| - log|Lp|, with Sq^-1 Sp's trace the
  // squared Frobenius norm of Lq^-1 Lp.
  Tensor m = tril_solve(q.scale_tril(), p.scale_tril(), at);
  Tensor trace = sum(square(m, at), {-2, -1}, false, at);
  Tensor z = tril_solve(q.scale_tril(), expand_dims(subtract(q.loc(), p.loc(), at), -1, at), at);
  Tensor mahalanobis = sum(square(z, at), {-2, -1}, false, at);
  Tensor kl = multiply(0.5, subtract(add(trace, mahalanobis, at), n, at), at);
  return add(kl, subtract(half_logdet(q.scale_tril(), at), half_logdet(p.scale_tril(), at), at), at);
}

}  // namespace symx::stats

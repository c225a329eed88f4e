// symx/stats.hpp: probability distributions (symx.stats in Python), written with the public ops
// so that densities, entropies and divergences fuse, compile and differentiate like any graph.
//
// Conventions shared by every distribution:
// - Parameters are tensors or numbers and broadcast together (NumPy rules); their broadcast shape
//   is the distribution's batch_shape. Numbers take the tensors' float dtype; with no float64
//   tensor among the parameters the distribution computes in float32. Integer tensors are cast.
// - A parameter known when the distribution is built (a number or a constant) is checked then: an
//   invalid value (a negative scale, probabilities outside [0, 1]) is a ValueError; parameters
//   whose shapes do not broadcast are a ShapeError naming them.
// - log_prob(value) broadcasts `value` against batch_shape + event_shape; values outside the
//   support give -inf (probability 0), as scipy.stats' logpdf/logpmf do.
// - sample(shape) returns shape + batch_shape + event_shape, fresh on every evaluation
//   (reproducible from random::seed). Normal, MultivariateNormal and Uniform samples are
//   reparameterized (loc + scale * noise), so they differentiate with respect to the parameters;
//   the samples of the others carry no gradient.
#pragma once

#include <string>

#include "symx/symx.hpp"

namespace symx::stats {

// The interface every distribution implements (an abstract class; in Python the base of every
// distribution class, holding the methods below).
// Example: d = stats.Normal(0.0, 1.0); d.log_prob(0.5).eval() is about -1.0439
class Distribution {
 public:
  virtual ~Distribution() = default;
  // The log-density (or log-mass) at `value`, broadcast against batch_shape + event_shape; -inf
  // outside the support. Returns the broadcast shape without the event axes.
  // Example: stats.Normal(0.0, 1.0).log_prob([0.0, 1.0]) has shape (2,)
  virtual Tensor log_prob(const Operand& value, Loc where = Loc::current()) const = 0;
  // The density (or mass) at `value`: exp(log_prob(value)).
  // Example: stats.Uniform(0.0, 2.0).prob(1.0).eval() is 0.5
  Tensor prob(const Operand& value, Loc where = Loc::current()) const;
  // Draws of shape `shape` + batch_shape + event_shape, fresh on every evaluation (differentiable
  // with respect to the parameters for Normal, MultivariateNormal and Uniform only).
  // Example: stats.Normal([0.0, 1.0], 1.0).sample((100,)) has shape (100, 2)
  virtual Tensor sample(const Shape& shape = {}, Loc where = Loc::current()) const = 0;
  // The (differential) entropy in nats, of batch_shape.
  // Example: stats.Bernoulli(probs=0.5).entropy().eval() is log(2) = 0.6931...
  virtual Tensor entropy(Loc where = Loc::current()) const = 0;
  // The mean, of batch_shape + event_shape. Categorical has none (ValueError).
  // Example: stats.Gamma(2.0, 4.0).mean().eval() is 0.5
  virtual Tensor mean(Loc where = Loc::current()) const = 0;
  // The variance (per coordinate for MultivariateNormal), of batch_shape + event_shape.
  // Categorical has none (ValueError).
  // Example: stats.Uniform(0.0, 1.0).variance().eval() is 1/12
  virtual Tensor variance(Loc where = Loc::current()) const = 0;
  // The shape over which parameters vary (the broadcast shape of the parameters).
  // Example: stats.Normal([0.0, 1.0], 1.0).batch_shape is (2,)
  const Shape& batch_shape() const { return batch_shape_; }
  // The shape of one draw: () except for MultivariateNormal, (n,).
  // Example: stats.MultivariateNormal(np.zeros(3), np.eye(3)).event_shape is (3,)
  const Shape& event_shape() const { return event_shape_; }
  // The float dtype the distribution computes in (float32 or float64).
  // Example: stats.Normal(np.zeros(2), 1.0).dtype is float64
  DType dtype() const { return dtype_; }

 protected:
  Distribution() = default;
  Shape batch_shape_, event_shape_;
  DType dtype_ = DType::f32;
};

// The normal distribution N(loc, scale^2), as scipy.stats.norm(loc, scale).
// loc: real; scale: > 0 (tensors or numbers, broadcast). Support: all reals. entropy is
// 0.5 log(2 pi e scale^2); mean loc; variance scale^2.
// Example: stats.Normal(0.0, 2.0).log_prob(1.0).eval() is scipy.stats.norm(0, 2).logpdf(1)
class Normal : public Distribution {
 public:
  // Example: d = stats.Normal(np.zeros(3), 1.0)
  Normal(const Operand& loc, const Operand& scale, Loc where = Loc::current());
  Tensor log_prob(const Operand& value, Loc where = Loc::current()) const override;
  Tensor sample(const Shape& shape = {}, Loc where = Loc::current()) const override;
  Tensor entropy(Loc where = Loc::current()) const override;
  Tensor mean(Loc where = Loc::current()) const override;
  Tensor variance(Loc where = Loc::current()) const override;
  // The location parameter (the mean), as given (converted to the distribution's dtype).
  // Example: stats.Normal(1.0, 2.0).loc.eval() is 1.0
  const Tensor& loc() const { return loc_; }
  // The scale parameter (the standard deviation).
  // Example: stats.Normal(1.0, 2.0).scale.eval() is 2.0
  const Tensor& scale() const { return scale_; }

 private:
  Tensor loc_, scale_;
};

// The multivariate normal distribution N(mean, covariance) over vectors of n numbers, as
// scipy.stats.multivariate_normal, computed through the Cholesky factor L of the covariance
// (covariance = L L^T): log_prob solves a triangular system instead of inverting the covariance.
// mean: (..., n); covariance: symmetric positive definite (..., n, n); batch axes broadcast.
// event_shape is (n,). entropy is 0.5 n log(2 pi e) + sum(log(diag L)); mean is `mean`;
// variance is the covariance's diagonal.
// Example: stats.MultivariateNormal(np.zeros(2), np.eye(2)).prob(np.zeros(2)).eval() is 1/(2 pi)
class MultivariateNormal : public Distribution {
 public:
  // From the covariance matrix (its Cholesky factor is computed in the graph). Python takes either
  // form: MultivariateNormal(mean, covariance) or MultivariateNormal(mean, scale_tril=L).
  // Example: d = stats.MultivariateNormal(mu, cov)
  MultivariateNormal(const Operand& mean, const Operand& covariance, Loc where = Loc::current());
  // From a lower-triangular factor L with a positive diagonal (covariance = L L^T); only its lower
  // triangle is read. Python: MultivariateNormal(mean, scale_tril=L).
  // Example: d = stats.MultivariateNormal.from_scale_tril(mu, np.linalg.cholesky(cov))
  static MultivariateNormal from_scale_tril(const Operand& mean, const Operand& scale_tril, Loc where = Loc::current());
  Tensor log_prob(const Operand& value, Loc where = Loc::current()) const override;
  Tensor sample(const Shape& shape = {}, Loc where = Loc::current()) const override;
  Tensor entropy(Loc where = Loc::current()) const override;
  Tensor mean(Loc where = Loc::current()) const override;
  Tensor variance(Loc where = Loc::current()) const override;
  // The covariance matrix, (..., n, n).
  // Example: stats.MultivariateNormal(mu, cov).covariance is cov (as a tensor)
  Tensor covariance(Loc where = Loc::current()) const;
  // The lower-triangular Cholesky factor L of the covariance, (..., n, n).
  // Example: stats.MultivariateNormal(np.zeros(2), 4 * np.eye(2)).scale_tril.eval() is 2 * eye(2)
  const Tensor& scale_tril() const { return scale_tril_; }
  // The mean parameter as given, (..., n) (the method mean() broadcasts it to the batch shape).
  // Example: stats.MultivariateNormal(mu, cov).loc is mu (as a tensor)
  const Tensor& loc() const { return mean_; }

 private:
  MultivariateNormal() = default;
  Tensor mean_, scale_tril_, covariance_;  // covariance_ is empty when built from scale_tril
};

// The categorical distribution over {0, ..., K-1}, given by unnormalized log-probabilities
// (`logits`, any reals) or by probabilities (`probs`, >= 0, normalized along the last axis) of
// shape (..., K); batch_shape is (...). Values are integers (or integral floats); others give
// -inf. Sampling uses the Gumbel-max trick. It has no mean or variance (ValueError).
// Example: stats.Categorical(probs=[0.2, 0.8]).log_prob(1).eval() is log(0.8)
class Categorical : public Distribution {
 public:
  // From logits (log-probabilities up to a constant per row). Python: Categorical(logits=...).
  // Example: d = stats.Categorical.from_logits(np.zeros(4))  # uniform over 4 classes
  static Categorical from_logits(const Tensor& logits, Loc where = Loc::current());
  // From probabilities; each row is divided by its sum. Python: Categorical(probs=...).
  // Example: d = stats.Categorical.from_probs([0.1, 0.2, 0.7])
  static Categorical from_probs(const Tensor& probs, Loc where = Loc::current());
  Tensor log_prob(const Operand& value, Loc where = Loc::current()) const override;
  Tensor sample(const Shape& shape = {}, Loc where = Loc::current()) const override;
  Tensor entropy(Loc where = Loc::current()) const override;
  Tensor mean(Loc where = Loc::current()) const override;
  Tensor variance(Loc where = Loc::current()) const override;
  // The normalized log-probabilities log_softmax(logits), (..., K).
  // Example: stats.Categorical(logits=[0.0, 0.0]).logits.eval() is [-0.693, -0.693]
  Tensor logits(Loc where = Loc::current()) const;
  // The probabilities softmax(logits), (..., K).
  // Example: stats.Categorical(logits=[0.0, 0.0]).probs.eval() is [0.5, 0.5]
  Tensor probs(Loc where = Loc::current()) const;
  // The number of categories K.
  // Example: stats.Categorical(probs=[0.5, 0.5]).num_categories is 2
  std::int64_t num_categories() const { return logits_.shape().back(); }

 private:
  Categorical() = default;
  Tensor logits_, probs_;  // probs_ is empty when built from logits
};

// The Bernoulli distribution over {0, 1}, as scipy.stats.bernoulli(p): from `logits`
// (log(p / (1 - p)), computed stably with softplus) or from `probs` p in [0, 1]. Values other than
// 0 and 1 give -inf. Samples are 0.0 or 1.0 in the distribution's dtype. entropy is
// -p log p - (1 - p) log(1 - p); mean p; variance p (1 - p).
// Example: stats.Bernoulli(probs=0.3).log_prob(1.0).eval() is log(0.3)
class Bernoulli : public Distribution {
 public:
  // Python: Bernoulli(logits=...).
  // Example: d = stats.Bernoulli.from_logits(0.0)  # p = 0.5
  static Bernoulli from_logits(const Operand& logits, Loc where = Loc::current());
  // Python: Bernoulli(probs=...).
  // Example: d = stats.Bernoulli.from_probs([0.1, 0.9])
  static Bernoulli from_probs(const Operand& probs, Loc where = Loc::current());
  Tensor log_prob(const Operand& value, Loc where = Loc::current()) const override;
  Tensor sample(const Shape& shape = {}, Loc where = Loc::current()) const override;
  Tensor entropy(Loc where = Loc::current()) const override;
  Tensor mean(Loc where = Loc::current()) const override;
  Tensor variance(Loc where = Loc::current()) const override;
  // log(p / (1 - p)).
  // Example: stats.Bernoulli(probs=0.5).logits.eval() is 0.0
  Tensor logits(Loc where = Loc::current()) const;
  // The probability p of 1.
  // Example: stats.Bernoulli(logits=0.0).probs.eval() is 0.5
  Tensor probs(Loc where = Loc::current()) const;
  // log p and log(1 - p), computed stably from whichever parameter was given.
  // Example: log1, log0 = d.log_probs()
  std::pair<Tensor, Tensor> log_probs(Loc where = Loc::current()) const;

 private:
  Bernoulli() = default;
  Tensor logits_, probs_;  // exactly one is defined
};

// The continuous uniform distribution on [low, high], as scipy.stats.uniform(low, high - low).
// low < high (tensors or numbers, broadcast). Values outside [low, high] give -inf. entropy is
// log(high - low); mean (low + high) / 2; variance (high - low)^2 / 12.
// Example: stats.Uniform(-1.0, 1.0).prob(0.0).eval() is 0.5
class Uniform : public Distribution {
 public:
  // Example: d = stats.Uniform(0.0, [1.0, 2.0])
  Uniform(const Operand& low, const Operand& high, Loc where = Loc::current());
  Tensor log_prob(const Operand& value, Loc where = Loc::current()) const override;
  Tensor sample(const Shape& shape = {}, Loc where = Loc::current()) const override;
  Tensor entropy(Loc where = Loc::current()) const override;
  Tensor mean(Loc where = Loc::current()) const override;
  Tensor variance(Loc where = Loc::current()) const override;
  // The lower end of the support.
  // Example: stats.Uniform(0.0, 1.0).low.eval() is 0.0
  const Tensor& low() const { return low_; }
  // The upper end of the support.
  // Example: stats.Uniform(0.0, 1.0).high.eval() is 1.0
  const Tensor& high() const { return high_; }

 private:
  Tensor low_, high_;
};

// The gamma distribution with shape `concentration` (alpha > 0) and `rate` (beta > 0), density
// beta^alpha x^(alpha-1) exp(-beta x) / Gamma(alpha) on x > 0, as
// scipy.stats.gamma(alpha, scale=1/beta). mean alpha / beta; variance alpha / beta^2; entropy
// alpha - log(beta) + lgamma(alpha) + (1 - alpha) digamma(alpha).
// Sampling: Marsaglia and Tsang's rejection method (2000), with alpha < 1 drawn as
// Gamma(alpha + 1) * U^(1/alpha). A graph cannot loop until acceptance, so it makes a fixed
// number of rounds (8) of proposals for every draw at once and keeps the first accepted one. Each
// round accepts with probability above 0.95 (0.952 at alpha = 1, the worst case, measured), so all
// eight reject with probability below 3e-11 per draw; should that happen, the draw is
// (alpha - 1/3) / beta (for alpha < 1, that value for alpha + 1 times U^(1/alpha)), a value near
// the mean.
// lgamma and digamma are the graph's own primitives (symx/special.hpp), so log_prob differentiates
// with respect to alpha.
// Example: stats.Gamma(2.0, 1.0).log_prob(1.0).eval() is scipy.stats.gamma(2).logpdf(1) = -1
class Gamma : public Distribution {
 public:
  // Example: d = stats.Gamma(concentration=[1.0, 5.0], rate=2.0)
  Gamma(const Operand& concentration, const Operand& rate, Loc where = Loc::current());
  Tensor log_prob(const Operand& value, Loc where = Loc::current()) const override;
  Tensor sample(const Shape& shape = {}, Loc where = Loc::current()) const override;
  Tensor entropy(Loc where = Loc::current()) const override;
  Tensor mean(Loc where = Loc::current()) const override;
  Tensor variance(Loc where = Loc::current()) const override;
  // The shape parameter alpha.
  // Example: stats.Gamma(2.0, 3.0).concentration.eval() is 2.0
  const Tensor& concentration() const { return concentration_; }
  // The rate parameter beta (1 / scale).
  // Example: stats.Gamma(2.0, 3.0).rate.eval() is 3.0
  const Tensor& rate() const { return rate_; }

 private:
  Tensor concentration_, rate_;
};

// The beta distribution on [0, 1] with shape parameters a > 0 and b > 0, density
// x^(a-1) (1-x)^(b-1) / B(a, b), as scipy.stats.beta(a, b). mean a / (a + b); variance
// a b / ((a + b)^2 (a + b + 1)). Sampling: X / (X + Y) for X ~ Gamma(a), Y ~ Gamma(b) (see Gamma
// for the rejection method), computed as sigmoid(log X - log Y) so that small a and b do not
// underflow to 0 / 0.
// Example: stats.Beta(2.0, 2.0).prob(0.5).eval() is 1.5
class Beta : public Distribution {
 public:
  // Example: d = stats.Beta(0.5, [0.5, 2.0])
  Beta(const Operand& a, const Operand& b, Loc where = Loc::current());
  Tensor log_prob(const Operand& value, Loc where = Loc::current()) const override;
  Tensor sample(const Shape& shape = {}, Loc where = Loc::current()) const override;
  Tensor entropy(Loc where = Loc::current()) const override;
  Tensor mean(Loc where = Loc::current()) const override;
  Tensor variance(Loc where = Loc::current()) const override;
  // The first shape parameter (the exponent of x).
  // Example: stats.Beta(2.0, 3.0).a.eval() is 2.0
  const Tensor& a() const { return a_; }
  // The second shape parameter (the exponent of 1 - x).
  // Example: stats.Beta(2.0, 3.0).b.eval() is 3.0
  const Tensor& b() const { return b_; }

 private:
  Tensor a_, b_;
};

// KL(p || q) = E_p[log p(x) - log q(x)] in closed form between two distributions of one family,
// of the two batch shapes broadcast together. Python: one function kl_divergence(p, q); a pair
// from different families is a ValueError.
// Normal, MultivariateNormal (through the Cholesky factors: no inverse), Categorical and Bernoulli
// (terms with p = 0 count 0), Uniform (inf unless q's support covers p's), Gamma and Beta.
// Example: stats.kl_divergence(stats.Normal(0.0, 1.0), stats.Normal(1.0, 1.0)).eval() is 0.5
Tensor kl_divergence(const Normal& p, const Normal& q, Loc where = Loc::current());
Tensor kl_divergence(const MultivariateNormal& p, const MultivariateNormal& q, Loc where = Loc::current());
Tensor kl_divergence(const Categorical& p, const Categorical& q, Loc where = Loc::current());
Tensor kl_divergence(const Bernoulli& p, const Bernoulli& q, Loc where = Loc::current());
Tensor kl_divergence(const Uniform& p, const Uniform& q, Loc where = Loc::current());
Tensor kl_divergence(const Gamma& p, const Gamma& q, Loc where = Loc::current());
Tensor kl_divergence(const Beta& p, const Beta& q, Loc where = Loc::current());

}  // namespace symx::stats

"""symx.stats against SciPy and NumPy: densities, entropies, means and variances (float64, to about
1e-10), KL divergences against closed forms in NumPy or numerical integration (scipy.integrate),
sample moments within 5 standard errors, gradients of log_prob against float64 finite
differences, and the errors for invalid parameters and shapes."""

import inspect
import re

import numpy as np
import pytest
from scipy import integrate, special
from scipy import stats as ss

import symx as sx
from goldens import load_golden
from symx import stats

RTOL = 1e-10


def close(actual, expected, rtol=RTOL, atol=1e-10):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=rtol, atol=atol)


def f64(x):
    return np.asarray(x, dtype=np.float64)


def random_spd(rng, n, batch=()):
    a = rng.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


# ---- densities, entropies, moments against scipy.stats ----


def test_normal_matches_scipy():
    loc = f64([0.0, -3.0, 1e6, 2.5, -1e-8])[:, None]
    scale = f64([1.0, 1e-8, 1e4, 0.3, 1e8])[:, None]
    x = f64([-2.0, 0.0, 1e-9, 0.7, 1e6 + 1])
    d = stats.Normal(loc, scale)
    ref = ss.norm(loc, scale)
    close(d.log_prob(x).eval(), ref.logpdf(x))
    close(d.prob(x).eval(), ref.pdf(x), atol=1e-300)
    close(d.entropy().eval(), ref.entropy())
    close(d.mean().eval(), ref.mean())
    close(d.variance().eval(), ref.var())
    assert d.batch_shape == (5, 1) and d.event_shape == () and d.dtype == np.float64


def test_uniform_matches_scipy():
    low = f64([0.0, -5.0, 1e-9, -1e6])[:, None]
    high = f64([1.0, 5.0, 2e-9, 1e6])[:, None]
    x = f64([-1.0, 0.0, 1.5e-9, 0.5, 1.0, 5.0, 7.0])
    d = stats.Uniform(low, high)
    ref = ss.uniform(low, high - low)
    close(d.log_prob(x).eval(), ref.logpdf(x))
    close(d.prob(x).eval(), ref.pdf(x))
    close(d.entropy().eval(), ref.entropy())
    close(d.mean().eval(), ref.mean())
    close(d.variance().eval(), ref.var())


def test_gamma_matches_scipy():
    alpha = f64([1e-3, 0.5, 1.0, 2.5, 30.0, 1e4])[:, None]
    rate = f64([2.0, 1e-3, 1.0, 50.0, 0.7, 1e4])[:, None]
    x = f64([1e-6, 0.01, 0.5, 1.0, 3.0, 40.0])
    d = stats.Gamma(alpha, rate)
    ref = ss.gamma(alpha, scale=1 / rate)
    close(d.log_prob(x).eval(), ref.logpdf(x), atol=1e-9)
    close(d.prob(x).eval(), ref.pdf(x), atol=1e-300)
    close(d.entropy().eval(), ref.entropy(), atol=1e-9)
    close(d.mean().eval(), ref.mean())
    close(d.variance().eval(), ref.var())
    assert np.all(np.isneginf(d.log_prob(f64([-1.0, 0.0])[:, None, None]).eval()))


def test_beta_matches_scipy():
    a = f64([1e-3, 0.5, 1.0, 2.0, 30.0, 5e3])[:, None]
    b = f64([0.7, 0.5, 1.0, 9.0, 4.0, 2e3])[:, None]
    x = f64([1e-6, 0.1, 0.5, 0.71, 0.999])
    d = stats.Beta(a, b)
    ref = ss.beta(a, b)
    close(d.log_prob(x).eval(), ref.logpdf(x), atol=1e-9)
    close(d.prob(x).eval(), ref.pdf(x), atol=1e-300)
    close(d.entropy().eval(), ref.entropy(), atol=1e-9)
    close(d.mean().eval(), ref.mean())
    close(d.variance().eval(), ref.var())
    assert np.all(np.isneginf(d.log_prob(f64([-0.5, 0.0, 1.0, 2.0])[:, None, None]).eval()))


@pytest.mark.parametrize("form", ["covariance", "scale_tril"])
def test_multivariate_normal_matches_scipy(form):
    rng = np.random.default_rng(0)
    mean, cov = rng.standard_normal(3), random_spd(rng, 3)
    if form == "covariance":
        d = stats.MultivariateNormal(mean, cov)
    else:
        d = stats.MultivariateNormal(mean, scale_tril=np.linalg.cholesky(cov))
    ref = ss.multivariate_normal(mean, cov)
    x = rng.standard_normal((4, 5, 3)) * 3
    close(d.log_prob(x).eval(), ref.logpdf(x))
    close(d.prob(x).eval(), ref.pdf(x))
    close(d.entropy().eval(), ref.entropy())
    close(d.mean().eval(), mean)
    close(d.variance().eval(), np.diag(cov))
    close(d.covariance.eval(), cov)
    close(d.scale_tril.eval(), np.linalg.cholesky(cov))
    assert d.event_shape == (3,) and d.batch_shape == ()


def test_multivariate_normal_batched_matches_scipy():
    rng = np.random.default_rng(1)
    means, covs = rng.standard_normal((4, 2)), random_spd(rng, 2, (4,))
    d = stats.MultivariateNormal(means, covs)
    x = rng.standard_normal((6, 4, 2))
    expected = np.stack([ss.multivariate_normal(means[i], covs[i]).logpdf(x[:, i]) for i in range(4)], axis=1)
    close(d.log_prob(x).eval(), expected)
    close(d.entropy().eval(), [ss.multivariate_normal(means[i], covs[i]).entropy() for i in range(4)])
    assert d.batch_shape == (4,)


@pytest.mark.parametrize("form", ["logits", "probs"])
def test_categorical_matches_numpy(form):
    rng = np.random.default_rng(2)
    logits = rng.standard_normal((3, 4)) * 5
    logits[1] = [-1e4, 0.0, 1e4, 3.0]  # extreme rows (logits form)
    probs = special.softmax(logits, axis=-1)
    if form == "probs":
        probs[1] = [0.0, 0.25, 0.75, 0.0]  # zero probabilities
        d = stats.Categorical(probs=probs * 3)  # rows are normalized
    else:
        d = stats.Categorical(logits=logits)
    with np.errstate(divide="ignore"):
        log_p = np.log(probs) if form == "probs" else special.log_softmax(logits, axis=-1)
    values = np.array([[0], [1], [2], [3]])
    close(d.log_prob(values).eval(), log_p.T)  # value (4, 1) against batch (3,): [k, row]
    close(d.prob(values).eval(), probs.T, atol=1e-12)
    close(d.entropy().eval(), ss.entropy(probs, axis=-1))
    assert np.all(np.isneginf(d.log_prob(np.array([[-1.0], [4.0], [1.5]])).eval()))
    assert d.batch_shape == (3,) and d.num_categories == 4


@pytest.mark.parametrize("form", ["logits", "probs"])
def test_bernoulli_matches_scipy(form):
    logits = f64([-30.0, -3.0, 0.0, 0.4, 12.0])
    p = special.expit(logits)
    d = stats.Bernoulli(logits=logits) if form == "logits" else stats.Bernoulli(probs=p)
    ref = ss.bernoulli(p)
    for k in (0.0, 1.0):
        # scipy computes log(p) and log(1 - p) from p, which loses digits for large |logits|.
        log_p = (np.log(p) if k else np.log1p(-p)) if form == "probs" else -np.logaddexp(0, -logits if k else logits)
        close(d.log_prob(k).eval(), log_p)
        close(d.log_prob(np.full(5, k)).eval(), ref.logpmf(k), rtol=1e-8, atol=1e-12)
        close(d.prob(k).eval(), ref.pmf(k), rtol=1e-8)
    close(d.entropy().eval(), ref.entropy(), rtol=1e-8, atol=1e-14)
    close(d.mean().eval(), ref.mean())
    close(d.variance().eval(), ref.var(), rtol=1e-8, atol=1e-20)
    assert np.all(np.isneginf(d.log_prob(0.5).eval()))


def test_bernoulli_with_certain_outcomes():
    d = stats.Bernoulli(probs=f64([0.0, 1.0]))
    close(d.log_prob(f64([0.0, 1.0])).eval(), [0.0, 0.0])
    assert np.all(np.isneginf(d.log_prob(f64([1.0, 0.0])).eval()))
    close(d.entropy().eval(), [0.0, 0.0])


@pytest.mark.parametrize("family", ["normal", "uniform", "gamma", "beta", "bernoulli"])
def test_golden_files_agree(family):
    # The golden files that the C++ tests read (tests/golden/golden_stats.py) hold SciPy's values.
    golden = load_golden("stats_" + family)
    cls = {
        "normal": stats.Normal,
        "uniform": stats.Uniform,
        "gamma": stats.Gamma,
        "beta": stats.Beta,
        "bernoulli": stats.Bernoulli,
    }[family]
    params = {k: v for k, v in golden.items() if k not in ("x", "log_prob", "entropy", "mean", "variance")}
    d = cls(**params)
    close(d.log_prob(golden["x"]).eval(), golden["log_prob"], atol=1e-9)
    close(d.entropy().eval(), golden["entropy"], atol=1e-9)
    close(d.mean().eval(), golden["mean"])
    close(d.variance().eval(), golden["variance"])


# ---- KL divergences ----


def test_kl_normal_closed_form():
    mp, sp, mq, sq = f64([0.0, 1.0, -3.0]), f64([1.0, 0.1, 5.0]), f64([1.0, 1.0, 2.0]), f64([2.0, 3.0, 0.5])
    expected = np.log(sq / sp) + (sp**2 + (mp - mq) ** 2) / (2 * sq**2) - 0.5
    close(stats.kl_divergence(stats.Normal(mp, sp), stats.Normal(mq, sq)).eval(), expected)
    close(stats.kl_divergence(stats.Normal(mp, sp), stats.Normal(mp, sp)).eval(), np.zeros(3))


def test_kl_multivariate_normal_closed_form():
    rng = np.random.default_rng(3)
    mp, mq = rng.standard_normal((2, 3)), rng.standard_normal(3)
    cp, cq = random_spd(rng, 3, (2,)), random_spd(rng, 3)
    iq = np.linalg.inv(cq)
    delta = mq - mp
    expected = 0.5 * (
        np.trace(iq @ cp, axis1=-2, axis2=-1)
        + np.einsum("bi,ij,bj->b", delta, iq, delta)
        - 3
        + np.linalg.slogdet(cq)[1]
        - np.linalg.slogdet(cp)[1]
    )
    kl = stats.kl_divergence(stats.MultivariateNormal(mp, cp), stats.MultivariateNormal(mq, cq))
    close(kl.eval(), expected)


def test_kl_categorical_and_bernoulli_closed_form():
    p = f64([[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]])
    q = f64([[0.1, 0.1, 0.8], [0.3, 0.3, 0.4]])
    expected = np.sum(special.rel_entr(p, q), axis=-1)
    close(stats.kl_divergence(stats.Categorical(probs=p), stats.Categorical(logits=np.log(q))).eval(), expected)
    bp, bq = f64([0.0, 0.3, 0.9, 1.0]), f64([0.5, 0.6, 0.2, 0.7])
    expected = special.rel_entr(bp, bq) + special.rel_entr(1 - bp, 1 - bq)
    close(stats.kl_divergence(stats.Bernoulli(probs=bp), stats.Bernoulli(logits=special.logit(bq))).eval(), expected)


def test_kl_uniform_closed_form():
    p = stats.Uniform(f64([0.0, 0.0, -1.0]), f64([1.0, 2.0, 1.0]))
    q = stats.Uniform(f64([-1.0, 0.5, -1.0]), f64([3.0, 3.0, 1.0]))
    close(stats.kl_divergence(p, q).eval(), [np.log(4.0), np.inf, 0.0])


def kl_by_quadrature(p, q, lo, hi):
    value, _ = integrate.quad(
        lambda x: p.pdf(x) * (p.logpdf(x) - q.logpdf(x)), lo, hi, epsabs=1e-13, epsrel=1e-12, limit=200
    )
    return value


@pytest.mark.parametrize("ap,bp,aq,bq", [(2.0, 1.0, 3.0, 0.5), (0.7, 2.0, 1.5, 4.0), (30.0, 3.0, 20.0, 2.5)])
def test_kl_gamma_by_quadrature(ap, bp, aq, bq):
    kl = stats.kl_divergence(stats.Gamma(f64(ap), f64(bp)), stats.Gamma(f64(aq), f64(bq))).eval()
    p, q = ss.gamma(ap, scale=1 / bp), ss.gamma(aq, scale=1 / bq)
    close(kl, kl_by_quadrature(p, q, 0, p.ppf(1 - 1e-15)), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("ap,bp,aq,bq", [(2.0, 3.0, 1.0, 1.0), (0.8, 1.5, 2.0, 0.9), (20.0, 30.0, 5.0, 5.0)])
def test_kl_beta_by_quadrature(ap, bp, aq, bq):
    kl = stats.kl_divergence(stats.Beta(f64(ap), f64(bp)), stats.Beta(f64(aq), f64(bq))).eval()
    close(kl, kl_by_quadrature(ss.beta(ap, bp), ss.beta(aq, bq), 0, 1), rtol=1e-7, atol=1e-9)


# ---- sampling ----


def check_moments(draws, mean, var, kurtosis_excess, label):
    """Sample mean and variance within 5 standard errors of the exact ones."""
    n = draws.shape[0]
    mean, var = np.broadcast_to(mean, draws.shape[1:]), np.broadcast_to(var, draws.shape[1:])
    se_mean = np.sqrt(var / n)
    # The leading term of the variance's standard error, plus its next term (var / n), which is all
    # that is left when the leading one vanishes (a fair coin: kurtosis excess -2).
    se_var = var * np.sqrt((np.broadcast_to(kurtosis_excess, var.shape) + 2) / n) + var / n
    assert np.all(np.abs(draws.mean(axis=0) - mean) < 5 * se_mean), (label, draws.mean(axis=0), mean)
    assert np.all(np.abs(draws.var(axis=0) - var) < 5 * se_var), (label, draws.var(axis=0), var)


N = 100_000


def test_sample_moments_of_scalar_distributions():
    sx.random.seed(7)
    cases = [
        ("normal", stats.Normal(f64([0.0, 5.0]), f64([1.0, 0.2])), ss.norm(f64([0.0, 5.0]), f64([1.0, 0.2]))),
        ("uniform", stats.Uniform(f64([0.0, -3.0]), f64([1.0, 7.0])), ss.uniform(f64([0.0, -3.0]), f64([1.0, 10.0]))),
        ("bernoulli", stats.Bernoulli(probs=f64([0.1, 0.5])), ss.bernoulli(f64([0.1, 0.5]))),
        (
            "gamma",
            stats.Gamma(f64([0.3, 1.0, 7.0]), f64([1.0, 2.0, 0.5])),
            ss.gamma(f64([0.3, 1.0, 7.0]), scale=1 / f64([1.0, 2.0, 0.5])),
        ),
        ("beta", stats.Beta(f64([0.2, 2.0]), f64([0.5, 3.0])), ss.beta(f64([0.2, 2.0]), f64([0.5, 3.0]))),
    ]
    for label, d, ref in cases:
        # The rejection samplers (gamma, beta) cost eight proposals a draw: fewer draws keep the test fast.
        n = N // 5 if label in ("gamma", "beta") else N
        draws = d.sample((n,)).eval()
        assert draws.shape == (n,) + d.batch_shape and draws.dtype == np.float64
        check_moments(draws, ref.mean(), ref.var(), ref.stats(moments="k"), label)


def test_gamma_and_beta_samples_follow_their_distributions():
    # Kolmogorov-Smirnov on 20k draws: the whole distribution, not only two moments, including the
    # alpha < 1 branch of the sampler.
    sx.random.seed(11)
    alpha = f64([0.05, 1.0, 40.0])
    draws = stats.Gamma(alpha, 1.0).sample((20_000,)).eval()
    for i, a in enumerate(alpha):
        assert ss.kstest(draws[:, i], ss.gamma(a).cdf).pvalue > 1e-4
    draws = stats.Beta(f64(0.1), f64(0.4)).sample((20_000,)).eval()
    assert np.all((draws >= 0) & (draws <= 1)) and ss.kstest(draws, ss.beta(0.1, 0.4).cdf).pvalue > 1e-4


def test_categorical_sample_frequencies():
    sx.random.seed(3)
    probs = f64([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]])
    draws = stats.Categorical(probs=probs).sample((N,)).eval()
    assert draws.shape == (N, 2) and draws.dtype == np.int64
    for row in range(2):
        freq = np.bincount(draws[:, row], minlength=3) / N
        assert np.all(np.abs(freq - probs[row]) <= 5 * np.sqrt(probs[row] * (1 - probs[row]) / N) + 1e-12)


def test_multivariate_normal_sample_moments():
    sx.random.seed(5)
    rng = np.random.default_rng(4)
    mean, cov = rng.standard_normal(3), random_spd(rng, 3)
    draws = stats.MultivariateNormal(mean, cov).sample((N,)).eval()
    assert draws.shape == (N, 3)
    check_moments(draws, mean, np.diag(cov), 0.0, "mvn")
    # Covariances: each entry of the sample covariance within 5 standard errors.
    centered = draws - mean
    sample_cov = centered.T @ centered / N
    se = np.sqrt((cov**2 + np.outer(np.diag(cov), np.diag(cov))) / N)
    assert np.all(np.abs(sample_cov - cov) < 5 * se)


def test_sample_shapes_and_fresh_draws():
    d = stats.MultivariateNormal(np.zeros((4, 2)), np.eye(2))
    assert d.sample((5, 3)).shape == (5, 3, 4, 2)
    assert stats.Normal(np.zeros(2), 1.0).sample().shape == (2,)
    assert stats.Beta(f64([1.0, 2.0]), 1.0).sample(3).shape == (3, 2)
    s = stats.Normal(0.0, 1.0).sample((4,))
    assert s.dtype == np.float32 and not np.array_equal(s.eval(), s.eval())


def test_reparameterized_samples_differentiate():
    loc, scale = sx.constant(f64(1.0)), sx.constant(f64(2.0))
    draws = stats.Normal(loc, scale).sample((1000,))
    g_loc, g_scale = sx.grad(sx.mean(draws), [loc, scale])
    sx.random.seed(1)
    value = g_scale.eval()
    sx.random.seed(1)
    close(value, np.mean((draws.eval() - 1.0) / 2.0))  # d(loc + scale * eps)/d scale = eps
    close(g_loc.eval(), 1.0)
    alpha = sx.constant(f64(2.0))
    close(sx.grad(sx.sum(stats.Gamma(alpha, 1.0).sample((10,))), [alpha])[0].eval(), 0.0)


# ---- gradients of log_prob against finite differences ----


def finite_difference(fn, params, h=1e-6):
    grads = []
    for i, p in enumerate(params):
        g = np.zeros_like(p)
        for idx in np.ndindex(p.shape):
            up = [q.copy() for q in params]
            down = [q.copy() for q in params]
            up[i][idx] += h
            down[i][idx] -= h
            g[idx] = (np.sum(fn(*up)) - np.sum(fn(*down))) / (2 * h)
        grads.append(g)
    return grads


GRADIENT_CASES = {
    "normal": (lambda a, b: stats.Normal(a, b), [f64([0.3, -1.0]), f64([1.5, 0.4])], f64([0.1, 0.7])),
    "uniform": (lambda a, b: stats.Uniform(a, b), [f64([0.0, -1.0]), f64([2.0, 3.0])], f64([0.5, 1.0])),
    "gamma": (lambda a, b: stats.Gamma(a, b), [f64([0.4, 3.0]), f64([2.0, 0.7])], f64([0.3, 4.0])),
    "beta": (lambda a, b: stats.Beta(a, b), [f64([0.6, 4.0]), f64([2.0, 1.3])], f64([0.2, 0.8])),
    "bernoulli": (lambda logits: stats.Bernoulli(logits=logits), [f64([-1.0, 2.0])], f64([1.0, 0.0])),
    "categorical": (
        lambda logits: stats.Categorical(logits=logits),
        [f64([[0.1, -0.4, 2.0], [1.0, 0.0, 0.5]])],
        np.array([2, 0]),
    ),
    "mvn": (
        lambda m, tril: stats.MultivariateNormal(m, scale_tril=tril),
        [f64([0.2, -0.5]), f64([[1.3, 0.0], [0.4, 0.8]])],
        f64([[0.1, 0.3], [-1.0, 2.0]]),
    ),
}


@pytest.mark.parametrize("family", sorted(GRADIENT_CASES))
def test_log_prob_gradients_match_finite_differences(family):
    make, params, value = GRADIENT_CASES[family]
    tensors = [sx.constant(p) for p in params]
    grads = sx.grad(sx.sum(make(*tensors).log_prob(value)), tensors)
    expected = finite_difference(lambda *ps: make(*ps).log_prob(value).eval(), params)
    for g, e in zip(grads, expected):
        close(g.eval(), e, rtol=1e-6, atol=1e-8)


def test_entropy_and_kl_gradients_match_finite_differences():
    params = [f64([0.7, 2.5]), f64([1.5, 0.9])]
    tensors = [sx.constant(p) for p in params]
    grads = sx.grad(sx.sum(stats.Gamma(*tensors).entropy()), tensors)
    expected = finite_difference(lambda a, b: stats.Gamma(a, b).entropy().eval(), params)
    for g, e in zip(grads, expected):
        close(g.eval(), e, rtol=1e-6, atol=1e-8)
    q = stats.Beta(f64(2.0), f64(3.0))
    grads = sx.grad(sx.sum(stats.kl_divergence(stats.Beta(*tensors), q)), tensors)
    expected = finite_difference(lambda a, b: stats.kl_divergence(stats.Beta(a, b), q).eval(), params)
    for g, e in zip(grads, expected):
        close(g.eval(), e, rtol=1e-6, atol=1e-8)


# ---- parameters, dtypes and compiled functions ----


def test_placeholder_parameters_compile():
    loc = sx.placeholder((3,), "float64", name="loc")
    scale = sx.placeholder((3,), "float64", name="scale")
    x = f64([0.5, -1.0, 2.0])
    f = sx.function([loc, scale], [stats.Normal(loc, scale).log_prob(x)])
    (out,) = f(f64([0.0, 1.0, 2.0]), f64([1.0, 2.0, 3.0]))
    close(out, ss.norm([0.0, 1.0, 2.0], [1.0, 2.0, 3.0]).logpdf(x))


def test_numbers_are_float32_unless_a_parameter_is_float64():
    assert stats.Normal(0.0, 1.0).dtype == np.float32
    assert stats.Gamma(2, 3).log_prob(1.0).dtype == np.float32
    assert stats.Normal(f64([0.0]), 1.0).dtype == np.float64
    # A number next to a float64 tensor is converted to float64 exactly (0.1 is not 0.1f).
    close(stats.Normal(f64(0.0), 0.1).scale.eval(), 0.1, rtol=0, atol=0)


def test_float32_densities_are_accurate_to_float32():
    a, rate, x = (
        np.float32([0.2, 1.0, 7.5, 300.0]),
        np.float32([1.0, 0.5, 2.0, 10.0]),
        np.float32([0.1, 1.0, 3.0, 30.0]),
    )
    d = stats.Gamma(a, rate)
    out = d.log_prob(x).eval()
    assert out.dtype == np.float32
    close(out, ss.gamma(f64(a), scale=1 / f64(rate)).logpdf(f64(x)), rtol=1e-5, atol=1e-5)
    # The entropy's terms reach about 1700 at alpha = 300 and cancel: float32's rounding of them is ~2e-4.
    close(d.entropy().eval(), ss.gamma(f64(a), scale=1 / f64(rate)).entropy(), rtol=1e-5, atol=5e-4)
    b = stats.Beta(a, rate)
    close(b.log_prob(np.float32(0.3)).eval(), ss.beta(f64(a), f64(rate)).logpdf(0.3), rtol=1e-5, atol=1e-5)


# ---- errors ----


@pytest.mark.parametrize(
    "make,argument",
    [
        (lambda: stats.Normal(0.0, -1.0), "scale"),
        (lambda: stats.Normal(0.0, f64([1.0, 0.0])), "scale"),
        (lambda: stats.Gamma(-1.0, 1.0), "concentration"),
        (lambda: stats.Gamma(1.0, f64([np.nan])), "rate"),
        (lambda: stats.Beta(1.0, 0.0), "b"),
        (lambda: stats.Uniform(1.0, 1.0), "low must be less than high"),
        (lambda: stats.Bernoulli(probs=1.5), "probs"),
        (lambda: stats.Categorical(probs=f64([0.5, -0.1])), "probs"),
        (lambda: stats.MultivariateNormal(np.zeros(2), f64([[1.0, 2.0], [2.0, 1.0]])), "positive definite"),
        (lambda: stats.MultivariateNormal(np.zeros(2), f64([[1.0, 0.5], [0.0, 1.0]])), "symmetric"),
        (lambda: stats.MultivariateNormal(np.zeros(2), scale_tril=f64([[1.0, 0.0], [0.5, -1.0]])), "scale_tril"),
        (lambda: stats.MultivariateNormal(np.zeros(2)), "exactly one of covariance and scale_tril"),
        (lambda: stats.Bernoulli(), "exactly one of logits and probs"),
        (lambda: stats.Categorical(logits=f64([0.0]), probs=f64([1.0])), "exactly one of logits and probs"),
        (lambda: stats.Categorical(logits=f64([0.0, 1.0])).mean(), "no mean"),
        (lambda: stats.kl_divergence(stats.Normal(0.0, 1.0), stats.Gamma(1.0, 1.0)), "no closed form"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_invalid_parameters_known_at_build_time_raise_value_error(make, argument):
    with pytest.raises(ValueError, match=re.escape(argument)) as info:
        make()
    assert not isinstance(info.value, sx.ShapeError)


@pytest.mark.parametrize("cls", ["Categorical", "Bernoulli"])
def test_logits_and_probs_are_given_by_name(cls):
    # Issue 19: Categorical([0.2, 0.8]) took the probabilities of PyTorch's and SymJAX's first
    # parameter as logits (prob(1) was 0.646, not 0.8), without a word.
    with pytest.raises(TypeError, match=re.escape("stats.%s: pass the parameters by name" % cls)):
        getattr(stats, cls)(f64([0.2, 0.8]) if cls == "Categorical" else 0.8)
    d = getattr(stats, cls)(probs=f64([0.2, 0.8]) if cls == "Categorical" else 0.8)
    assert abs(float(d.prob(1).eval()) - 0.8) < 1e-6  # Bernoulli(probs=0.8) is float32


@pytest.mark.parametrize(
    "make,names",
    [
        (lambda: stats.Normal(np.zeros(3), np.ones(4)), ["loc (3,)", "scale (4,)"]),
        (lambda: stats.Beta(np.ones((2, 3)), np.ones(2)), ["a (2, 3)", "b (2,)"]),
        (lambda: stats.Normal(np.zeros(3), 1.0).log_prob(np.zeros(2)), ["value (2,)"]),
        (lambda: stats.MultivariateNormal(np.zeros(3), np.eye(2)), ["covariance", "(2, 2)"]),
        (lambda: stats.MultivariateNormal(np.zeros(2), np.eye(2)).log_prob(np.zeros(3)), ["value (3,)"]),
        (lambda: stats.Categorical(logits=0.5), ["logits", "()"]),
        (
            lambda: stats.kl_divergence(stats.Normal(np.zeros(2), 1.0), stats.Normal(np.zeros(3), 1.0)),
            ["p.batch_shape (2,)", "q.batch_shape (3,)"],
        ),
    ],
    ids=["normal", "beta", "log_prob", "mvn_cov", "mvn_value", "categorical", "kl"],
)
def test_mismatched_shapes_raise_shape_error_naming_the_argument(make, names):
    with pytest.raises(sx.ShapeError) as info:
        make()
    message = str(info.value)
    assert all(name in message for name in names), message
    assert "test_stats.py" in message  # the user's line


def test_placeholders_are_not_checked_at_build_time():
    scale = sx.placeholder((), "float64", name="scale")
    assert np.isnan(stats.Normal(0.0, scale).log_prob(0.0).eval({scale: f64(-1.0)}))


# ---- documentation ----


def test_every_class_and_method_has_a_docstring_with_an_example():
    missing = []
    for name in dir(stats):
        obj = getattr(stats, name)
        if name.startswith("_") or not callable(obj):
            continue
        members = [(name, obj)]
        if inspect.isclass(obj):
            members += [(name + "." + m, v) for m, v in vars(obj).items() if not m.startswith("_")]
        missing += [n for n, v in members if not re.search(r"^\s*Example", v.__doc__ or "", re.MULTILINE)]
    assert "Normal" in dir(stats) and "kl_divergence" in dir(stats)
    assert not missing, missing

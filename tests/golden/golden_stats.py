"""Golden files of symx.stats: SciPy's densities, entropies, means and variances (float64).

stats_<family>.npz holds the parameters (named as symx's constructor arguments), the points `x`,
and SciPy's `log_prob` (logpdf/logpmf at x against the broadcast parameters), `entropy`, `mean`
and `variance`; stats_kl.npz holds KL divergences computed from closed forms in NumPy (Normal,
Bernoulli) and by numerical integration (Gamma, Beta). Read by the C++ tests
(tests/toolkit/test_stats.cpp) and checked against SciPy again by tests/python/test_stats.py.
"""

import os

import numpy as np
from scipy import integrate
from scipy import stats as ss


def column(values):
    return np.asarray(values, dtype=np.float64)[:, None]


def scalar_cases():
    """(name, parameters, scipy distribution, points): parameters of shape (k, 1), points (m,)."""
    gamma_a, gamma_rate = column([1e-3, 0.5, 1.0, 2.5, 30.0, 1e4]), column([2.0, 1e-3, 1.0, 50.0, 0.7, 1e4])
    beta_a, beta_b = column([1e-3, 0.5, 1.0, 2.0, 30.0, 5e3]), column([0.7, 0.5, 1.0, 9.0, 4.0, 2e3])
    normal_loc, normal_scale = column([0.0, -3.0, 1e6, 2.5]), column([1.0, 1e-8, 1e4, 0.3])
    low, high = column([0.0, -5.0, 1e-9]), column([1.0, 5.0, 2e-9])
    p = column([0.0, 0.1, 0.5, 0.99, 1.0])
    return [
        (
            "normal",
            {"loc": normal_loc, "scale": normal_scale},
            ss.norm(normal_loc, normal_scale),
            np.array([-2.0, 0.0, 0.7, 1e6 + 1]),
        ),
        (
            "uniform",
            {"low": low, "high": high},
            ss.uniform(low, high - low),
            np.array([-1.0, 0.0, 1.5e-9, 0.5, 5.0, 7.0]),
        ),
        (
            "gamma",
            {"concentration": gamma_a, "rate": gamma_rate},
            ss.gamma(gamma_a, scale=1 / gamma_rate),
            np.array([1e-6, 0.01, 0.5, 1.0, 3.0, 40.0]),
        ),
        ("beta", {"a": beta_a, "b": beta_b}, ss.beta(beta_a, beta_b), np.array([1e-6, 0.1, 0.5, 0.71, 0.999])),
        ("bernoulli", {"probs": p}, ss.bernoulli(p), np.array([0.0, 1.0])),
    ]


def kl_by_quadrature(p, q, lo, hi):
    return integrate.quad(
        lambda x: p.pdf(x) * (p.logpdf(x) - q.logpdf(x)), lo, hi, epsabs=1e-13, epsrel=1e-12, limit=200
    )[0]


def kl_case():
    normal = np.array([[0.0, 1.0, 1.0, 2.0], [1.0, 0.1, -3.0, 5.0]])  # rows: loc_p, scale_p, loc_q, scale_q
    normal_kl = (
        np.log(normal[:, 3] / normal[:, 1])
        + (normal[:, 1] ** 2 + (normal[:, 0] - normal[:, 2]) ** 2) / (2 * normal[:, 3] ** 2)
        - 0.5
    )
    bern = np.array([[0.3, 0.6], [0.0, 0.5], [0.9, 0.2]])  # rows: p, q
    bern_kl = np.array([sum(pp * np.log(pp / qq) for pp, qq in ((p, q), (1 - p, 1 - q)) if pp > 0) for p, q in bern])
    gamma = np.array([[2.0, 1.0, 3.0, 0.5], [0.7, 2.0, 1.5, 4.0]])  # rows: a_p, rate_p, a_q, rate_q
    gamma_kl = np.array(
        [
            kl_by_quadrature(
                ss.gamma(a, scale=1 / b), ss.gamma(c, scale=1 / d), 0, ss.gamma(a, scale=1 / b).ppf(1 - 1e-15)
            )
            for a, b, c, d in gamma
        ]
    )
    beta = np.array([[2.0, 3.0, 1.0, 1.0], [0.8, 1.5, 2.0, 0.9]])  # rows: a_p, b_p, a_q, b_q
    beta_kl = np.array([kl_by_quadrature(ss.beta(a, b), ss.beta(c, d), 0, 1) for a, b, c, d in beta])
    return {
        "normal": normal,
        "normal_kl": normal_kl,
        "bernoulli": bern,
        "bernoulli_kl": bern_kl,
        "gamma": gamma,
        "gamma_kl": gamma_kl,
        "beta": beta,
        "beta_kl": beta_kl,
    }


def mvn_case():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    mean, cov = rng.standard_normal(3), a @ a.T + 3 * np.eye(3)
    x = rng.standard_normal((5, 3)) * 2
    ref = ss.multivariate_normal(mean, cov)
    return {
        "mean": mean,
        "covariance": cov,
        "x": x,
        "log_prob": ref.logpdf(x),
        "entropy": np.array(ref.entropy()),
        "variance": np.diag(cov),
    }


def make(out_dir):
    for name, params, ref, x in scalar_cases():
        with np.errstate(divide="ignore"):
            log_prob = ref.logpmf(x) if name == "bernoulli" else ref.logpdf(x)
        np.savez(
            os.path.join(out_dir, "stats_%s.npz" % name),
            x=x,
            log_prob=log_prob,
            entropy=ref.entropy(),
            mean=ref.mean(),
            variance=ref.var(),
            **params,
        )
    np.savez(os.path.join(out_dir, "stats_mvn.npz"), **mvn_case())
    np.savez(os.path.join(out_dir, "stats_kl.npz"), **kl_case())

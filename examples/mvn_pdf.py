"""The multivariate normal density of the SymJAX paper, in symx.

    p(x) = exp(-(x - mu)^T S^-1 (x - mu) / 2) / sqrt((2 pi)^d det S)

written with the distribution sx.stats.MultivariateNormal (its log_prob goes through the
Cholesky factor of S) and evaluated with zero mean and identity covariance on the 5x5 grid of
meshgrid(linspace(-5, 5, 5), linspace(-5, 5, 5)): first lazily with .eval(), then through a
compiled sx.function whose inputs are the mean and the covariance. Prints the values rounded to
two decimals and exits non-zero unless they equal exp(-|x|^2 / 2) / (2 pi) to 1e-6.
"""

import sys

import numpy as np

import symx as sx
from symx import stats


def main():
    xs, ys = sx.meshgrid(sx.linspace(-5, 5, 5, dtype="float64"), sx.linspace(-5, 5, 5, dtype="float64"))
    points = sx.stack([sx.reshape(xs, (-1,)), sx.reshape(ys, (-1,))], axis=1)  # (25, 2)

    # Lazy evaluation with constant parameters.
    lazy = sx.reshape(stats.MultivariateNormal(np.zeros(2), np.eye(2)).prob(points), (5, 5)).eval()

    # The same graph as a function of the parameters.
    mean = sx.placeholder((2,), "float64", name="mean")
    cov = sx.placeholder((2, 2), "float64", name="cov")
    f = sx.function([mean, cov], [sx.reshape(stats.MultivariateNormal(mean, cov).prob(points), (5, 5))])
    (compiled,) = f(np.zeros(2), np.eye(2))

    print(np.round(compiled, 2))

    grid = np.stack(np.meshgrid(np.linspace(-5, 5, 5), np.linspace(-5, 5, 5)), axis=-1)
    expected = np.exp(-0.5 * np.sum(grid**2, axis=-1)) / (2 * np.pi)
    ok = True
    for label, values in (("eval", lazy), ("function", compiled)):
        err = float(np.max(np.abs(values - expected)))
        if values.shape != (5, 5) or not err <= 1e-6:
            print(f"mvn_pdf: {label} result differs from the closed form (max error {err})", file=sys.stderr)
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Gradient descent on a scalar, the SymJAX paper's second example, in symx.

    mu <- mu - 0.2 * d/dmu exp(-(mu - 1)^2)

A compiled function returns the cost and applies the update on every call; ten calls print the
costs, which must match the paper's values to 1e-5 (relative), else the script exits non-zero.
"""

import sys

import numpy as np

import symx as sx

EXPECTED = [
    0.008471076,
    0.008201109,
    0.007946267,
    0.007705368,
    0.0074773384,
    0.007261208,
    0.0070561105,
    0.006861261,
    0.006675923,
    0.006499458,
]


def main():
    mu = sx.variable(np.float32(-1.1842843), name="mu")
    cost = sx.exp(-((mu - 1) ** 2))
    (g,) = sx.grad(cost, [mu])
    f = sx.function([], [cost], updates={mu: mu - 0.2 * g})

    costs = []
    for _ in range(10):
        (c,) = f()
        costs.append(float(c))
        print(c)

    if not np.allclose(costs, EXPECTED, rtol=1e-5, atol=0):
        print(f"sgd: costs {costs} differ from the expected {EXPECTED}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

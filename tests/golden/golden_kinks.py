"""Golden file of gradients at kinks and special points: PyTorch autograd's values and gradients (float64).

Finite differences at random points (tests/python/test_conformance.py) cannot see a kink, so each case
here puts its inputs exactly on the points where a rule has to choose: 0 and +-1, the ends of the
domain (+-inf, 0 for sqrt and log, -1 for log1p), ties of max/min reductions and of argmax, equal
operands of maximum/minimum, clip and hard_tanh at their bounds, where with equal branches, power at
0, mod and floor_divide at integer quotients, max-pool windows of equal values. tests/python/
test_kinks.py evaluates the same cases in symx (both backends) and checks that every differentiable
op of the op table has one.

For each case NAME the file holds NAME:x0, NAME:x1, ... (the inputs), NAME:y (the value) and, for
cases with a gradient, NAME:r (a fixed random cotangent of y's shape) and NAME:dxK = d sum(y * r) / dxK
for each differentiable input K. Some 500 arrays of a few numbers each would make a zip of 100 KB of
headers, so kinks.npz packs them: `values` (every array's elements, float64, one after another) and
`index` (one row "key dtype offset shape..." per array); tests/python/test_kinks.py unpacks them.
Where PyTorch and JAX differ at a kink, PyTorch is the reference (the test file notes each such case).
"""

import os
import warnings

import numpy as np
import torch
import torch.nn.functional as F

inf, nan, pi = np.inf, np.nan, np.pi


def a(*values):
    return np.array(values, dtype=np.float64)


def m(*rows):
    return np.array(rows, dtype=np.float64)


# Activation inputs: every activation's corners (0, +-1, +-3, 6), +-0.5, +-2 and far points.
ACT = a(-40, -6, -3, -2, -1, -0.5, 0, 0.5, 1, 2, 3, 6, 40)
# Pairs where binary ops choose: ties (0, 0), (1, 1), (-1, -1) and either order of 0 and 1.
PAIR_A = a(0, 1, -1, 1, 0, 2, -2)
PAIR_B = a(0, 1, -1, 0, 1, -1, 2)
# Operand pairs of power: 0 to the powers 0, 0.5, 1, 2, 3, -1; x^0; negative bases (integer and not).
POW_A = a(0, 0, 0, 0, 0, 0, 1, 2, -1, -2, -1, 4, 1, -1, 2)
POW_B = a(0, 0.5, 1, 2, 3, -1, 0, 0, 2, 3, 0.5, 0.5, 1, 0, -1)
# Pairs of mod and floor_divide with integer quotients (the steps of both) and ordinary ones.
DIV_A = a(3, 2, -2, 0, 1, -1, 2.5, -3, 1.5)
DIV_B = a(1.5, 1, 1, 1, 2, 2, -1, 1.5, 0.5)
TIES = m([1, 1, 0], [2, 2, 2], [-1, 0, 0], [3, -inf, -inf])
SWAP = m([0, 1], [1, 0])  # a permutation: det -1, its own inverse
EYE = np.eye(2)


def sym(x):
    """Cholesky's argument made symmetric inside the graph, so the gradient with respect to x does
    not depend on which triangle a rule reads."""
    return (x + x.transpose(-1, -2)) / 2


def tie_sums(w):
    """(w0 + w1, w2) of 3 eigenvalues: the same whichever vectors span a tie of the first two."""
    return torch.stack([w[..., 0] + w[..., 1], w[..., 2]], -1)


def bce_loss(x, t):
    return F.binary_cross_entropy_with_logits(x, t)


def hinge(s, labels):
    y = torch.where(labels > 0, 1.0, -1.0).double()
    return torch.clamp(1 - y * s, min=0).mean()


def scipy_unary(f, df):
    """A scipy.special function as a torch function (PyTorch lacks expi and exp1), its gradient df."""

    class Fn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return torch.from_numpy(np.asarray(f(x.detach().numpy()), dtype=np.float64))

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * df(x)

    return Fn.apply


def scipy_binary(f, dfx, dfy):
    """A two-operand scipy.special function as a torch function (PyTorch lacks owens_t), its partial
    derivatives dfx and dfy (numpy functions of both operands)."""

    class Fn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return torch.from_numpy(np.asarray(f(x.detach().numpy(), y.detach().numpy()), dtype=np.float64))

        @staticmethod
        def backward(ctx, g):
            x, y = (t.detach().numpy() for t in ctx.saved_tensors)
            return g * torch.from_numpy(dfx(x, y)), g * torch.from_numpy(dfy(x, y))

    return Fn.apply


def owens_t_dh(h, a):
    """dT/dh = -phi(h) erf(a h / sqrt 2) / 2, with a h = 0 at h = 0 (also for a = +-inf)."""
    ah = np.where(h == 0, 0.0, a * np.where(h == 0, 1.0, h))
    erf = __import__("scipy.special").special.erf
    return -np.exp(-h * h / 2) / np.sqrt(2 * pi) * erf(ah / np.sqrt(2)) / 2


def owens_t_da(h, a):
    """dT/da = exp(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2)): 0 at a = +-inf."""
    ah = np.where(h == 0, 0.0, a * np.where(h == 0, 1.0, h))
    with np.errstate(over="ignore"):
        return np.exp(-h * h / 2) * np.exp(-ah * ah / 2) / (2 * pi * (1 + a * a))


# name: (inputs, indices of the differentiable inputs, PyTorch function of the inputs as tensors).
# Inputs that are not float64 (indices, labels, conditions) keep their dtype and get no gradient.
CASES = {
    # ---- unary elementwise
    "negative": ([a(-inf, -1, -0.0, 0, 1, inf)], [0], torch.neg),
    "abs": ([a(-inf, -1, -0.0, 0, 1, inf)], [0], torch.abs),
    "sign": ([a(-1, -0.0, 0, 1, -inf, inf)], [0], torch.sign),
    "exp": ([a(-inf, -1, 0, 1, inf)], [0], torch.exp),
    "expm1": ([a(-inf, -1, 0, 1, inf)], [0], torch.expm1),
    "log": ([a(0, 0.5, 1, 2, inf)], [0], torch.log),
    "log1p": ([a(-1, -0.5, 0, 1, inf)], [0], torch.log1p),
    "sqrt": ([a(0, 0.25, 1, 4, inf)], [0], torch.sqrt),
    "rsqrt": ([a(0, 0.25, 1, 4, inf)], [0], torch.rsqrt),
    "square": ([a(-inf, -1, 0, 1, inf)], [0], torch.square),
    "reciprocal": ([a(-inf, -1, -0.0, 0, 1, inf)], [0], torch.reciprocal),
    "sin": ([a(-pi, -pi / 2, -1, 0, 1, pi / 2, pi)], [0], torch.sin),
    "cos": ([a(-pi, -pi / 2, -1, 0, 1, pi / 2, pi)], [0], torch.cos),
    "tan": ([a(-1, -pi / 4, 0, pi / 4, 1)], [0], torch.tan),
    "tanh": ([a(-inf, -20, -1, 0, 1, 20, inf)], [0], torch.tanh),
    "arctan": ([a(-inf, -1, 0, 1, inf)], [0], torch.arctan),
    "sigmoid": ([a(-inf, -40, -1, 0, 1, 40, inf)], [0], torch.sigmoid),
    "erf": ([a(-inf, -6, -1, 0, 1, 6, inf)], [0], torch.erf),
    "floor": ([a(-1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2.5)], [0], torch.floor),
    "ceil": ([a(-1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2.5)], [0], torch.ceil),
    "round": ([a(-1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2.5)], [0], torch.round),
    "cast": ([a(-1, 0, 0.5, 1, inf)], [0], lambda x: x.float().double()),
    "stop_gradient": ([a(-1, 0, 1, 2)], [0], lambda x: x * x.detach()),
    # ---- special functions (issue 21): poles, 0, the ends of the domains, far tails
    "lgamma": ([a(-2.5, -0.5, 0, 0.5, 1, 2, 3, 10, 1e3, inf)], [0], torch.lgamma),
    "digamma": ([a(-2.5, -0.5, 0, 0.5, 1, 1.4616321449683622, 2, 10, 1e3)], [0], torch.digamma),
    "erfc": ([a(-inf, -6, -1, 0, 1, 6, 30, inf)], [0], torch.special.erfc),
    "erfinv": ([a(-1, -0.999, -0.5, 0, 0.5, 0.999, 1)], [0], torch.erfinv),
    "erfcx": ([a(-5, -1, 0, 1, 5, 30, 1e3)], [0], torch.special.erfcx),
    "ndtri": ([a(0, 1e-10, 0.025, 0.5, 0.975, 1)], [0], torch.special.ndtri),
    "log_ndtr": ([a(-40, -10, -1, 0, 1, 6)], [0], torch.special.log_ndtr),
    "i0e": ([a(-10, -1, 0, 1, 8, 10)], [0], torch.special.i0e),
    "i1e": ([a(-10, -1, 0, 1, 8, 10)], [0], torch.special.i1e),
    "expi": (
        [a(-10, -1, -0.5, 0.3725074107813666, 0.5, 1, 10, 50)],
        [0],
        scipy_unary(__import__("scipy.special").special.expi, lambda x: torch.exp(x) / x),
    ),
    "exp1": (
        [a(0, 0.5, 1, 2, 10, 50)],
        [0],
        scipy_unary(__import__("scipy.special").special.exp1, lambda x: -torch.exp(-x) / x),
    ),
    "zeta": ([a(2, 3, 2, 4.5), a(1, 0.5, 10, 1e3)], [1], torch.special.zeta),
    "gammainc": ([a(0.5, 1, 2, 2, 30), a(0, 1, 0.5, 2, 30)], [1], torch.special.gammainc),
    "gammaincc": ([a(0.5, 1, 2, 2, 30), a(0, 1, 0.5, 2, 30)], [1], torch.special.gammaincc),
    "betainc": (
        [a(2, 2, 0.5, 1, 3), a(3, 3, 0.5, 1, 0.5), a(0, 1, 0.5, 0.25, 0.75)],
        [2],
        lambda a_, b_, x: scipy_unary(
            lambda v: __import__("scipy.special").special.betainc(a_.numpy(), b_.numpy(), v),
            lambda v: torch.exp(
                (a_ - 1) * torch.log(v)
                + (b_ - 1) * torch.log1p(-v)
                - (torch.lgamma(a_) + torch.lgamma(b_) - torch.lgamma(a_ + b_))
            ),
        )(x),
    ),
    # hyp1f1, hyp2f1: gradient in x only, (a / b) 1F1(a+1; b+1; x) and (a b / c) 2F1(a+1, b+1; c+1; x)
    # (SciPy's values); x = 0 and, for 2F1, x = 1 (c - a - b > 1: the derivative is finite there).
    "hyp1f1": (
        [a(1, 2, -0.5, 1.5, 0.5, 3), a(2, 1, 1.5, 2.5, 0.5, 3), a(0, 0, 1, -2, 5, -10)],
        [2],
        lambda a_, b_, x: scipy_unary(
            lambda v: __import__("scipy.special").special.hyp1f1(a_.numpy(), b_.numpy(), v),
            lambda v: (
                (a_ / b_)
                * torch.from_numpy(
                    __import__("scipy.special").special.hyp1f1(a_.numpy() + 1, b_.numpy() + 1, v.numpy())
                )
            ),
        )(x),
    ),
    "hyp2f1": (
        [a(1, 0.5, 0.5, -1.5, 2, 0.5), a(1, 1.5, 0.5, 2.5, 1, 0.5), a(2, 2.5, 3, 1.5, 4.5, 3), a(0, 0, 1, -1, 0.5, -5)],
        [3],
        lambda a_, b_, c_, x: scipy_unary(
            lambda v: __import__("scipy.special").special.hyp2f1(a_.numpy(), b_.numpy(), c_.numpy(), v),
            lambda v: (
                (a_ * b_ / c_)
                * torch.from_numpy(
                    __import__("scipy.special").special.hyp2f1(
                        a_.numpy() + 1, b_.numpy() + 1, c_.numpy() + 1, v.numpy()
                    )
                )
            ),
        )(x),
    ),
    # owens_t: h = 0, a = 0, a = +-inf (T(h, +-inf) = +-erfc(|h| / sqrt 2) / 4 has a kink at h = 0:
    # symx takes the mean of its one-sided slopes, 0); hand derivatives (PyTorch has no owens_t).
    "owens_t": (
        [a(0, 0, 0, 1.5, -1.5, 1.5, -1.5, 0.7, 0), a(0, 2, inf, 0, 0, inf, -inf, -0.5, -inf)],
        [0, 1],
        scipy_binary(__import__("scipy.special").special.owens_t, owens_t_dh, owens_t_da),
    ),
    "spence": (
        [a(0, 0.5, 1, 2, 10, 1e10)],
        [0],
        scipy_unary(
            __import__("scipy.special").special.spence,
            lambda x: torch.where(x == 1, -1.0, torch.log(x) / (1 - torch.where(x == 1, 2.0, x))).double(),
        ),
    ),
    "dawsn": (
        [a(-30, -3, 0, 0.9241388730, 1, 6, 30)],
        [0],
        scipy_unary(
            __import__("scipy.special").special.dawsn,
            lambda x: 1 - 2 * x * torch.from_numpy(__import__("scipy.special").special.dawsn(x.numpy())),
        ),
    ),
    "fresnel_s": (
        [a(-2, -1, 0, 1, 1.5, 10)],
        [0],
        scipy_unary(lambda v: __import__("scipy.special").special.fresnel(v)[0], lambda x: torch.sin(pi / 2 * x * x)),
    ),
    "fresnel_c": (
        [a(-2, -1, 0, 1, 1.5, 10)],
        [0],
        scipy_unary(lambda v: __import__("scipy.special").special.fresnel(v)[1], lambda x: torch.cos(pi / 2 * x * x)),
    ),
    "sinint": (
        [a(-10, -1, 0, 1, 4, 10, 1e10)],
        [0],
        scipy_unary(lambda v: __import__("scipy.special").special.sici(v)[0], lambda x: torch.special.sinc(x / pi)),
    ),
    "cosint": (
        [a(-10, -1, 0, 0.6165054856207162, 4, 10)],
        [0],
        scipy_unary(lambda v: __import__("scipy.special").special.sici(v)[1], lambda x: torch.cos(x) / x),
    ),
    "expn": (
        [a(0, 1, 2, 3, 2, 5), a(1, 0.5, 0, 1, 50, 2)],
        [1],
        lambda n, x: scipy_unary(
            lambda v: __import__("scipy.special").special.expn(n.numpy(), v),
            lambda v: torch.where(
                n < 1,
                -torch.exp(-v) * (v + 1) / (v * v),
                -torch.from_numpy(
                    __import__("scipy.special").special.expn(torch.clamp(n - 1, min=0).numpy(), v.numpy())
                ),
            ),
        )(x),
    ),
    "jn": (
        [a(0, 1, 2, -3, 5, 1), a(0, 0, 0, 2, 30, -1)],
        [1],
        lambda n, x: scipy_unary(
            lambda v: __import__("scipy.special").special.jv(n.numpy(), v),
            lambda v: torch.from_numpy(
                0.5
                * (
                    __import__("scipy.special").special.jv(n.numpy() - 1, v.numpy())
                    - __import__("scipy.special").special.jv(n.numpy() + 1, v.numpy())
                )
            ),
        )(x),
    ),
    # ---- binary elementwise
    "add": ([PAIR_A, PAIR_B], [0, 1], torch.add),
    "subtract": ([PAIR_A, PAIR_B], [0, 1], torch.sub),
    "multiply": ([PAIR_A, PAIR_B], [0, 1], torch.mul),
    "divide": ([a(0, 1, 0, -1, 1, 2), a(1, 0, 0, 2, inf, -1)], [0, 1], torch.div),
    "power": ([POW_A, POW_B], [0, 1], torch.pow),
    "maximum": ([np.append(PAIR_A, [nan, 1, inf]), np.append(PAIR_B, [1, nan, inf])], [0, 1], torch.maximum),
    "minimum": ([np.append(PAIR_A, [nan, 1, -inf]), np.append(PAIR_B, [1, nan, -inf])], [0, 1], torch.minimum),
    "mod": ([DIV_A, DIV_B], [0, 1], torch.remainder),
    "floor_divide": ([DIV_A, DIV_B], [0, 1], lambda x, y: torch.div(x, y, rounding_mode="floor")),
    "arctan2": ([a(0, 0, 1, 0, -1, 1, -1), a(0, 1, 0, -1, 0, 1, -1)], [0, 1], torch.atan2),
    "where": (
        [np.array([True, False, True, False]), a(0, 1, 1, -1), a(0, 1, 2, -1)],
        [1, 2],
        torch.where,
    ),
    "clip": ([ACT], [0], lambda x: torch.clamp(x, -1, 3)),
    "clip_min": ([ACT], [0], lambda x: torch.clamp(x, min=0)),  # Tensor.clip(min=0)
    "clip_max": ([ACT], [0], lambda x: torch.clamp(x, max=1)),
    # ---- reductions (ties share the gradient equally, as torch.amax / amin)
    "sum": ([m([0, 1, -1], [0, 0, 0])], [0], lambda x: x.sum(-1)),
    "prod": ([m([0, 1, 2], [0, 0, 3], [1, 2, 3], [-1, 0, 1])], [0], lambda x: x.prod(-1)),
    "prod_all": ([m([1, 0], [2, 3])], [0], torch.prod),
    "max": ([TIES], [0], lambda x: x.amax(-1)),
    "max_all": ([m([1, 3], [3, 0])], [0], torch.amax),
    "min": ([-TIES], [0], lambda x: x.amin(-1)),
    "min_all": ([m([1, 0], [3, 0])], [0], torch.amin),
    "argmax": ([m([1, 3, 3], [0, 0, 0], [2, 1, 2])], [], lambda x: x.argmax(-1)),
    "argmin": ([m([1, 0, 0], [0, 0, 0], [2, 3, 2])], [], lambda x: x.argmin(-1)),
    "cumsum": ([a(0, 1, -1, 0)], [0], lambda x: x.cumsum(0)),
    # ---- sorting and scans (issue 21): ties go to the stable sort's positions (torch.sort(stable=True)),
    # cummax/cummin's to the latest index holding the extremum (torch.cummax), cumprod's zeros (one,
    # several in a row) get the exact products of the others, logcumsumexp's -inf entries get 0 (NaN in
    # a leading run of -inf, as PyTorch's and JAX's).
    "sort": ([TIES], [0], lambda x: torch.sort(x, dim=-1, stable=True).values),
    "partition": ([TIES], [0], lambda x: torch.sort(x, dim=-1, stable=True).values),
    # median (kth_values): the middle of the stable sort, and the mean of the two middles of an even row
    "median": ([TIES], [0], lambda x: torch.sort(x, dim=-1, stable=True).values[..., 1]),
    "median_even": (
        [m([1, 1, 0, 1], [2, 2, 2, 2], [-1, 0, 0, 3], [3, -inf, 5, 0])],
        [0],
        lambda x: torch.sort(x, dim=-1, stable=True).values[..., 1:3].mean(-1),
    ),
    "cumprod": ([m([0, 0, 2, 3], [1, 0, 0, 0], [2, 0, 3, 0], [-1, 2, 0, 1])], [0], lambda x: torch.cumprod(x, -1)),
    "cummax": (
        [m([1, 1, 0, 1], [2, 3, 3, 1], [0, -inf, 0, 0], [-1, -1, -1, -1])],
        [0],
        lambda x: torch.cummax(x, -1).values,
    ),
    "cummin": (
        [m([1, 1, 2, 1], [2, 0, 0, 1], [0, inf, 0, 0], [-1, -1, -1, -1])],
        [0],
        lambda x: torch.cummin(x, -1).values,
    ),
    "logcumsumexp": (
        [m([-inf, -inf, 0, 1], [0, -inf, 0, -inf], [0, 0, 0, 0], [40, -40, 0, 40])],
        [0],
        lambda x: torch.logcumsumexp(x, -1),
    ),
    "mean": ([m([1, 1, 1], [0, 1, 2])], [0], lambda x: x.mean(-1)),
    "var": ([m([1, 1, 1], [0, 1, 2])], [0], lambda x: x.var(-1, correction=0)),
    "std": ([m([1, 1, 1], [0, 1, 2])], [0], lambda x: x.std(-1, correction=0)),  # JAX: NaN for a constant row
    # Ties, -inf entries (masking) and rows of infinities.
    "logsumexp": ([m([0, 0], [-inf, 0], [-inf, -inf], [inf, 0], [inf, inf])], [0], lambda x: x.logsumexp(-1)),
    # ---- shape and indexing (linear: their special points are zeros and repeated indices)
    "reshape": ([m([0, 1, -1], [1, 0, 0])], [0], lambda x: x.reshape(3, 2)),
    "transpose": ([m([0, 1, -1], [1, 0, 0])], [0], lambda x: x.T),
    "broadcast_to": ([m([0, 1, -1])], [0], lambda x: x.expand(2, 3)),
    "concatenate": ([m([0], [1]), m([1, 0], [-1, 0])], [0, 1], lambda x, y: torch.cat([x, y], 1)),
    "slice": ([m([0, 1, -1, 2], [1, 0, 0, 3])], [0], lambda x: x[:, 1:3]),
    "pad": ([m([0, 1], [-1, 0])], [0], lambda x: F.pad(x, (0, 2, 1, 0))),
    "take": ([m([0, 1], [-1, 0], [2, 3])], [0], lambda x, i: x[i], np.array([0, 0, 2])),
    "take_along_axis": (
        [m([0, 1, 2], [-1, 0, 3])],
        [0],
        lambda x, i: torch.gather(x, 1, i),
        np.array([[0, 0], [2, 2]]),
    ),
    # ---- indexed updates (issue 21): repeated indices, zeros among the updates, ties with the operand
    "scatter_set": ([a(0, 1, -1, 2), a(0, 5)], [0, 1], lambda x, v, i: x.index_put((i,), v), np.array([2, 0])),
    "scatter_mul": (
        [a(0, 1, -1, 2, 3), a(0, 2, 0, -1, 3)],
        [0, 1],
        lambda x, v, i: x.scatter_reduce(0, i, v, reduce="prod"),
        np.array([0, 1, 1, 2, 3]),
    ),
    "scatter_min": (
        [a(0, 1, -1, 2), a(0, 1, 0.5, -3, 2)],
        [0, 1],
        lambda x, v, i: x.scatter_reduce(0, i, v, reduce="amin"),
        np.array([0, 1, 1, 2, 3]),
    ),
    "scatter_max": (
        [a(0, 1, -1, 2), a(0, 1, 1, -3, 2)],
        [0, 1],
        lambda x, v, i: x.scatter_reduce(0, i, v, reduce="amax"),
        np.array([0, 1, 1, 2, 3]),
    ),
    # ---- linear algebra at the identity and a permutation (det -1)
    "matmul": ([m([0, 1, 0], [1, 0, -1]), m([1, 0], [0, 0], [0, -1])], [0, 1], torch.matmul),
    "inv": ([np.stack([EYE, SWAP])], [0], torch.linalg.inv),
    "det": ([np.stack([EYE, SWAP])], [0], torch.linalg.det),
    "slogdet": ([np.stack([EYE, SWAP])], [0], lambda x: torch.linalg.slogdet(x)[1]),
    "cholesky": ([np.stack([EYE, m([4, 2], [2, 2])])], [0], lambda x: torch.linalg.cholesky(sym(x))),
    "solve": ([np.stack([EYE, SWAP]), m([[0], [1]], [[1], [0]])], [0, 1], torch.linalg.solve),
    "triangular_solve": (
        [m([1, 0], [2, 1]), m([0, 1], [1, 0])],
        [0, 1],
        lambda x, y: torch.linalg.solve_triangular(x.tril(), y, upper=False),
    ),
    # qr at -I (LAPACK's reflectors give r = I and q = -I) and a permutation; q and r side by side.
    "qr": ([np.stack([-EYE, SWAP, m([3, 1], [4, 2])])], [0], lambda x: torch.cat(torch.linalg.qr(x), -1)),
    # lu_factor where the first column's pivots tie (|2| = |-2|: LAPACK keeps the first row, as
    # torch.linalg.lu_factor), at a permutation and at the identity.
    "lu_factor": (
        [np.stack([m([2, 1], [-2, 3]), SWAP, EYE])],
        [0],
        lambda x: torch.linalg.lu_factor(x)[0],
    ),
    # ---- spectral decompositions (symx/linalg.hpp) at repeated eigenvalues and zero singular values.
    # eigh and eigvalsh at a tie of the first two eigenvalues: y = (w0 + w1, w2), which does not depend on
    # how LAPACK picks the vectors of the tie (PyTorch's rule for eigenvalues, v diag(g) v^T, needs none);
    # eigh's vectors where the eigenvalues differ, through v diag(w^3) v^T = a^3 (the reference computes
    # the cube without a decomposition; eigenvectors whose entries tie in magnitude). svd: u diag(s) vh = a
    # at a zero singular value; svdvals: sum(s^2) = |a|_F^2 at zero and repeated zero singular values.
    "eigh": (
        [np.stack([np.diag([2.0, 2.0, 5.0]), np.diag([0.0, 0.0, 1.0]), m([2, 1, 0], [1, 2, 0], [0, 0, 4])])],
        [0],
        lambda x: tie_sums(torch.linalg.eigh(sym(x))[0]),
    ),
    "eigh_cube": (
        [
            np.stack(
                [m([2, 1, 0], [1, 2, 0], [0, 0, -1]), np.diag([-1.0, 0.0, 1.0]), m([1, 1, 1], [1, 3, 0], [1, 0, -2])]
            )
        ],
        [0],
        lambda x: torch.linalg.matrix_power(sym(x), 3),
    ),
    "eigvalsh": (
        [np.stack([np.diag([2.0, 2.0, 5.0]), m([2, 1, 0], [1, 2, 0], [0, 0, -1]), np.diag([-3.0, -3.0, 0.0])])],
        [0],
        lambda x: tie_sums(torch.linalg.eigvalsh(sym(x))),
    ),
    "svd": ([np.stack([m([1, 0], [0, 0]), m([3, 0], [0, -2]), m([0, 2], [1, 0])])], [0], lambda x: x * 1),
    "svdvals": (
        [np.stack([m([1, 0], [0, 0]), np.zeros((2, 2)), m([3, 0], [0, -2])])],
        [0],
        lambda x: (x * x).sum((-2, -1)),
    ),
    # the singular values of full_matrices=True (their gradient works, u's and vh's is an error)
    "svd_full": ([np.stack([m([1, 0], [0, 2], [0, 0]), m([3, 0], [0, -2], [1, 1])])], [0], torch.linalg.svdvals),
    # ---- complex numbers and the FFT (issue 22): real inputs and real outputs, where PyTorch's and JAX's
    # conventions agree; |z| at z = 0 (gradient 0 in both), a spectrum with zero bins, and a zero signal.
    "complex_parts": (
        [np.array([0.0, 3.0, -1.0, 0.0]), np.array([0.0, -4.0, 0.0, 2.0])],
        [0, 1],
        lambda a, b: (
            torch.abs(torch.complex(a, b))
            + (torch.conj(torch.complex(a, b)) * torch.complex(b, a)).real
            + 2 * torch.complex(a, b).imag
        ),
    ),
    "fft": (
        [np.stack([np.array([1.0, -1, 1, -1, 1, -1]), np.zeros(6), np.array([0.0, 1, 2, 3, 2, 1])])],
        [0],
        lambda x: torch.abs(torch.fft.rfft(x)).sum(-1) + torch.fft.irfft(torch.fft.fft(x)[..., :4], n=6).sum(-1),
    ),
    # ---- neural-network primitives
    "conv": (
        [np.arange(-4.0, 5.0).reshape(1, 1, 3, 3), m([0, 1], [-1, 0]).reshape(1, 1, 2, 2)],
        [0, 1],
        F.conv2d,
    ),
    # Windows of equal values: the whole gradient goes to the first (row-major) maximum.
    "max_pool": (
        [m([1, 1, 0, 2], [1, 1, 2, 2], [0, 0, -1, 3], [0, 0, 3, 3]).reshape(1, 1, 4, 4)],
        [0],
        lambda x: F.max_pool2d(x, 2),
    ),
    "avg_pool": ([m([1, 1, 0, 2], [1, 1, 2, 2]).reshape(1, 1, 2, 4)], [0], lambda x: F.avg_pool2d(x, 2)),
    "softmax_cross_entropy": (
        [m([0, 0, 0], [1, 1, -1], [0, 40, -40]), m([1, 0, 0], [0.5, 0.5, 0], [0, 0, 1])],
        [0, 1],
        lambda x, t: -(t * F.log_softmax(x, -1)).sum(-1),
    ),
    # ---- composites with kinks (engine nn and toolkit activations)
    "nn.relu": ([ACT], [0], F.relu),
    "nn.leaky_relu": ([ACT], [0], lambda x: F.leaky_relu(x, 0.1)),  # JAX: slope 1 at 0
    "nn.elu": ([ACT], [0], lambda x: F.elu(x, 0.5)),
    "nn.gelu": ([ACT], [0], F.gelu),
    "nn.gelu_tanh": ([ACT], [0], lambda x: F.gelu(x, approximate="tanh")),
    "nn.softplus": ([ACT], [0], F.softplus),
    "nn.log_sigmoid": ([ACT], [0], F.logsigmoid),
    "log_of_sigmoid": ([ACT], [0], F.logsigmoid),  # log(sigmoid(x)), rewritten to -softplus(-x)
    "log1p_of_exp": ([ACT], [0], F.softplus),  # log1p(exp(x)) written by hand
    "nn.softmax": ([m([0, 0, 0], [1, 1, -1], [0, 40, -40], [0, -inf, 1])], [0], lambda x: F.softmax(x, -1)),
    "nn.log_softmax": ([m([0, 0, 0], [1, 1, -1], [0, 40, -40], [0, -inf, 1])], [0], lambda x: F.log_softmax(x, -1)),
    "nn.relu6": ([ACT], [0], F.relu6),
    "nn.hard_tanh": ([ACT], [0], F.hardtanh),
    "nn.hard_sigmoid": ([ACT], [0], lambda x: F.relu6(x + 3) / 6),  # F.hardsigmoid rounds 1/6 to float32
    "nn.hard_silu": ([ACT], [0], F.hardswish),
    "nn.selu": ([ACT], [0], F.selu),
    "nn.celu": ([ACT], [0], lambda x: F.celu(x, 0.5)),
    "nn.silu": ([ACT], [0], F.silu),
    "nn.soft_sign": ([ACT], [0], F.softsign),
    "nn.glu": ([m([0, 1, 0, -1], [2, -2, 40, 0])], [0], lambda x: F.glu(x, -1)),
    "nn.normalize_inf": (
        [m([1, -1, 0], [2, 2, 1], [0, 0, 0])],
        [0],
        lambda x: F.normalize(x, p=inf, dim=-1, eps=1e-12),
    ),
    "nn.normalize_ord1": ([m([0, 1, -1], [0, 0, 0])], [0], lambda x: F.normalize(x, p=1, dim=-1, eps=1e-12)),
    # ---- toolkit losses at their kinks
    "loss.bce": ([a(0, 0, 0, 1, -1, 0), a(1, 0, 0.5, 1, 0, 1)], [0], bce_loss),
    "loss.mae": ([a(0, 1, -1, 2), a(0, 1, 1, 2)], [0], F.l1_loss),
    "loss.huber": ([a(0, 1, -1, 0.5, 2, 3), a(0, 0, 0, 0, 1, 4)], [0], lambda p, t: F.huber_loss(p, t, delta=1.0)),
    "loss.hinge": ([a(1, -1, 0, 2, -1), a(1, 0, 1, 0, 1)], [0], hinge),  # 1 - y s = 0 at the first two
    "loss.multiclass_hinge": (
        [m([1, 0, 2], [0, 0, 0], [1, 1, 0])],
        [0],
        lambda x, i: F.multi_margin_loss(x, i),
        np.array([0, 1, 2]),
    ),
    "loss.kl": (
        [np.log(m([0.5, 0.5, 1e-3], [0.25, 0.5, 0.25])), m([0.5, 0.5, 0], [0, 1, 0])],
        [0],
        lambda q, t: F.kl_div(q, t, reduction="mean"),
    ),
    "loss.softmax_ce": ([m([0, 0, 0], [1, 1, -1])], [0], lambda x, i: F.cross_entropy(x, i), np.array([0, 2])),
    # ---- control flow (issue 20): a loop over PyTorch ops is the reference (appended last, so that
    # the random cotangents of the cases above stay as they were)
    # A scan of relu(h + x_t) whose pre-activations hit 0 (relu's kink) at several steps.
    "scan_relu": (
        [a(0, 1, -1), m([0, -1, 1], [0, 0.5, -0.5], [1, -1.5, 0], [-1, 0, 0])],
        [0, 1],
        lambda h, xs: torch.stack([h := torch.relu(h + x) for x in xs]),
    ),
    # cond(x > 0, log(x), 2x) per element: at 0 the false branch (slope 2), and no NaN from log's
    # branch at x <= 0.
    "cond": (
        [a(-1, -0.0, 0, 0.5, 1, 2)],
        [0],
        lambda xs: torch.stack([torch.log(x) if x > 0 else 2 * x for x in xs]),
    ),
    # switch with an index past the last branch (clamped to it), at x = 0.
    "switch": (
        [a(-1, 0, 2)],
        [0],
        lambda x, k: [x * x, torch.sin(x), torch.abs(x) * 3][min(max(int(k), 0), 2)],
        np.array(7),
    ),
    # ---- numpy primitives (issue 21): the ends of their domains, 0 and +-1, infinities
    "arcsin": ([a(-1, -0.5, -0.0, 0, 0.5, 1)], [0], torch.asin),
    "arccos": ([a(-1, -0.5, 0, 0.5, 1)], [0], torch.acos),
    "arcsinh": ([a(-inf, -1e10, -1, 0, 1, 1e10, inf)], [0], torch.asinh),
    "arccosh": ([a(1, 1.5, 2, 1e10, inf)], [0], torch.acosh),
    "arctanh": ([a(-1, -0.5, 0, 0.5, 1)], [0], torch.atanh),
    "sinh": ([a(-inf, -1, -0.0, 0, 1, 20, inf)], [0], torch.sinh),
    "cosh": ([a(-inf, -1, 0, 1, 20, inf)], [0], torch.cosh),
    "log2": ([a(0, 0.5, 1, 2, 8, inf)], [0], torch.log2),
    "log10": ([a(0, 0.1, 1, 10, 1000, inf)], [0], torch.log10),
    "exp2": ([a(-inf, -1, 0, 1, 10, inf)], [0], torch.exp2),
    # torch has no cbrt; at 0 its derivative is infinite (symx and JAX: inf), not in the case.
    "cbrt": ([a(-inf, -8, -1, 1, 8, inf)], [0], lambda x: torch.sign(x) * x.abs().pow(1 / 3)),
    # At the origin PyTorch's gradient is 0 / 0 = NaN, symx's 0 (test_numpy_names.py checks it).
    "hypot": ([a(3, -3, 0, 1, inf), a(4, 0, 1, -1, 1)], [0, 1], torch.hypot),
    "copysign": ([a(1, -2, 0, -0.0, 3, -1), a(-1, 2, 1, -1, 0, -0.0)], [0, 1], torch.copysign),
    "fmod": ([a(3, -3, 3, 4, 5.5, -5.5, 0), a(2, 2, -2, 2, 2.5, 2.5, 1)], [0, 1], torch.fmod),
}


def tensors(inputs, diff):
    out = []
    for k, x in enumerate(inputs):
        t = torch.tensor(x)
        if k in diff:
            t.requires_grad_(True)
        out.append(t)
    return out


def make(out_dir):
    rng = np.random.default_rng(19)
    arrays = {}
    for name, (inputs, diff, fn, *extra) in CASES.items():
        inputs = list(inputs) + list(extra)  # integer indices and labels come last
        ts = tensors(inputs, diff)
        with warnings.catch_warnings():  # kl_div's reduction="mean" (elementwise, as symx's) warns
            warnings.simplefilter("ignore", UserWarning)
            y = fn(*ts)
        for k, x in enumerate(inputs):
            arrays[f"{name}:x{k}"] = x
        arrays[f"{name}:y"] = y.detach().numpy()
        if diff:
            r = rng.uniform(-1, 1, tuple(y.shape))
            (y * torch.tensor(r)).sum().backward()
            arrays[f"{name}:r"] = r
            for k in diff:
                grad = ts[k].grad
                arrays[f"{name}:dx{k}"] = np.zeros_like(inputs[k]) if grad is None else grad.numpy()
    np.savez_compressed(os.path.join(out_dir, "kinks.npz"), **pack(arrays))


def pack(arrays):
    """{"values": all elements as float64 (exact for the small integers and bools stored here),
    "index": rows "key dtype offset shape..."}."""
    values, index, offset = [], [], 0
    for key, x in arrays.items():
        x = np.asarray(x)
        values.append(x.astype(np.float64).reshape(-1))
        index.append(" ".join([key, x.dtype.name, str(offset)] + [str(d) for d in x.shape]))
        offset += x.size
    return {"values": np.concatenate(values), "index": np.array(index)}

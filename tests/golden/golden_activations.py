"""Golden files of symx.nn's activations: values and gradients from torch.nn.functional (float64).

Each activations_<case>.npz holds x (the input, with extremes +-1e4 and +-30 among ordinary values,
none at a kink), r (a fixed random cotangent), y = f(x) and dx = d sum(f(x) * r) / dx, plus the
case's parameters (alpha, axis, ord, eps) as 0-d arrays where it has any.
"""

import os

import numpy as np
import torch
import torch.nn.functional as F

SPECIAL = [-1e4, -30.0, -5.5, -3.7, -2.4, -1.3, -0.4, 0.2, 0.7, 1.9, 2.6, 4.5, 30.0, 1e4]


def inputs(rng, shape=(4, 6)):
    n = int(np.prod(shape))
    x = np.concatenate([SPECIAL, rng.normal(0, 2.5, n - len(SPECIAL))])
    rng.shuffle(x)
    return x.reshape(shape)


CASES = {
    # name: (torch function of x, parameters stored with the case)
    "relu6": (F.relu6, {}),
    "silu": (F.silu, {}),
    "hard_tanh": (F.hardtanh, {}),
    "selu": (F.selu, {}),
    "celu": (lambda x: F.celu(x, alpha=1.0), {"alpha": 1.0}),
    "celu_alpha0.5": (lambda x: F.celu(x, alpha=0.5), {"alpha": 0.5}),
    # F.hardsigmoid's backward multiplies by 1/6 rounded to float32 (a 3e-8 relative error in float64),
    # so the golden values come from its documented formula relu6(x + 3) / 6, checked equal to it below.
    "hard_sigmoid": (lambda x: F.relu6(x + 3) / 6, {}),
    "hard_silu": (F.hardswish, {}),
    "soft_sign": (F.softsign, {}),
    "log_sigmoid": (F.logsigmoid, {}),
    "glu": (lambda x: F.glu(x, dim=-1), {"axis": -1}),
    "glu_axis0": (lambda x: F.glu(x, dim=0), {"axis": 0}),
    "normalize": (lambda x: F.normalize(x, p=2.0, dim=-1, eps=1e-12), {"ord": 2.0, "axis": -1, "eps": 1e-12}),
    "normalize_ord1": (lambda x: F.normalize(x, p=1.0, dim=-1, eps=1e-12), {"ord": 1.0, "axis": -1, "eps": 1e-12}),
    "normalize_ord3_axis0": (lambda x: F.normalize(x, p=3.0, dim=0, eps=1e-12), {"ord": 3.0, "axis": 0, "eps": 1e-12}),
    "normalize_inf": (
        lambda x: F.normalize(x, p=float("inf"), dim=-1, eps=1e-12),
        {"ord": float("inf"), "axis": -1, "eps": 1e-12},
    ),
    # A row of zeros (its gradient is 1 / eps) and a tiny row below eps, with a larger eps.
    "normalize_zero_rows": (lambda x: F.normalize(x, p=2.0, dim=-1, eps=1e-3), {"ord": 2.0, "axis": -1, "eps": 1e-3}),
}


def make(out_dir):
    rng = np.random.default_rng(9)
    for name, (fn, params) in CASES.items():
        x = inputs(rng)
        if name == "normalize_zero_rows":
            x[1] = 0.0
            x[2] = rng.normal(0, 1e-5, x.shape[1])
        xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        y = fn(xt)
        if name == "hard_sigmoid":
            assert torch.equal(y, F.hardsigmoid(xt))
        r = rng.uniform(-1, 1, tuple(y.shape))
        (y * torch.tensor(r)).sum().backward()
        arrays = {"x": x, "r": r, "y": y.detach().numpy(), "dx": xt.grad.numpy()}
        arrays.update({k: np.array(v, dtype=np.float64) for k, v in params.items()})
        np.savez(os.path.join(out_dir, "activations_%s.npz" % name), **arrays)

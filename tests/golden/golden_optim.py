"""Golden files of symx.optim: parameter trajectories of torch.optim over 50 steps.

The problem (float64): loss(w, z) = 0.5 * ||A w - b||^2 + (1 - z0)^2 + 2 * (z1 - z0^2)^2, a 5x3
linear least squares plus a 2-parameter Rosenbrock-like term. Each case stores A, b, the
trajectories w (51x3) and z (51x2) (row 0 the start), the loss before each step (50), and the
optimizer's settings as float64 scalars named hp_<symx keyword> (booleans as 0/1). The optimizer is
the file name's first word after "optim_" (sgd, adam, adamw, rmsprop, adagrad). hp_decay_rate, when
present, is an ExponentialLR(gamma) schedule: symx's exponential_decay(lr, 1, decay_rate).
Every case is checked to be well-conditioned (see make).
"""

import os

import numpy as np
import torch

STEPS = 50

# name: settings (symx keyword names; learning_rate first).
CASES = {
    "sgd": dict(learning_rate=0.05),
    "sgd_momentum": dict(learning_rate=0.02, momentum=0.9),
    "sgd_nesterov_wd": dict(learning_rate=0.02, momentum=0.9, nesterov=True, weight_decay=0.01),
    "sgd_dampening_wd": dict(learning_rate=0.03, momentum=0.8, dampening=0.3, weight_decay=0.05),
    "sgd_clip_norm": dict(learning_rate=0.05, momentum=0.9, clip_norm=1.0),
    "adam": dict(learning_rate=0.05),
    "adam_wd": dict(learning_rate=0.05, weight_decay=0.1),
    "adam_amsgrad": dict(learning_rate=0.05, beta1=0.8, beta2=0.95, amsgrad=True),
    "adam_clip_value": dict(learning_rate=0.05, clip_value=0.5),
    "adam_exponential": dict(learning_rate=0.1, decay_rate=0.95),
    "adamw": dict(learning_rate=0.05, weight_decay=0.1),
    "adamw_amsgrad": dict(learning_rate=0.05, weight_decay=0.05, amsgrad=True, eps=1e-6),
    "rmsprop": dict(learning_rate=0.01),
    "rmsprop_centered": dict(learning_rate=0.003, centered=True, alpha=0.9),
    "rmsprop_centered_momentum_wd": dict(learning_rate=0.005, centered=True, momentum=0.5, weight_decay=0.01),
    "adagrad": dict(learning_rate=0.2),
    "adagrad_decay_wd": dict(learning_rate=0.2, lr_decay=0.01, initial_accumulator_value=0.1, weight_decay=0.01),
}


def torch_optimizer(kind, params, hp):
    lr, wd = hp["learning_rate"], hp.get("weight_decay", 0.0)
    if kind == "sgd":
        return torch.optim.SGD(
            params,
            lr=lr,
            momentum=hp.get("momentum", 0.0),
            dampening=hp.get("dampening", 0.0),
            nesterov=hp.get("nesterov", False),
            weight_decay=wd,
            foreach=False,
        )
    if kind in ("adam", "adamw"):
        cls = torch.optim.Adam if kind == "adam" else torch.optim.AdamW
        return cls(
            params,
            lr=lr,
            betas=(hp.get("beta1", 0.9), hp.get("beta2", 0.999)),
            eps=hp.get("eps", 1e-8),
            weight_decay=wd,
            amsgrad=hp.get("amsgrad", False),
            foreach=False,
        )
    if kind == "rmsprop":
        return torch.optim.RMSprop(
            params,
            lr=lr,
            alpha=hp.get("alpha", 0.99),
            eps=hp.get("eps", 1e-8),
            momentum=hp.get("momentum", 0.0),
            centered=hp.get("centered", False),
            weight_decay=wd,
            foreach=False,
        )
    if kind == "adagrad":
        return torch.optim.Adagrad(
            params,
            lr=lr,
            lr_decay=hp.get("lr_decay", 0.0),
            weight_decay=wd,
            initial_accumulator_value=hp.get("initial_accumulator_value", 0.0),
            eps=hp.get("eps", 1e-10),
            foreach=False,
        )
    raise ValueError(kind)


def loss_of(A, b, w, z):
    return 0.5 * torch.sum((A @ w - b) ** 2) + (1 - z[0]) ** 2 + 2 * (z[1] - z[0] ** 2) ** 2


def trajectory(kind, hp, A, b, w0, z0):
    w = torch.tensor(w0, requires_grad=True)
    z = torch.tensor(z0, requires_grad=True)
    opt = torch_optimizer(kind, [w, z], hp)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, hp["decay_rate"]) if "decay_rate" in hp else None
    ws, zs, losses = [w0.copy()], [z0.copy()], []
    At, bt = torch.tensor(A), torch.tensor(b)
    for _ in range(STEPS):
        opt.zero_grad()
        loss = loss_of(At, bt, w, z)
        loss.backward()
        if "clip_value" in hp:
            torch.nn.utils.clip_grad_value_([w, z], hp["clip_value"])
        if "clip_norm" in hp:
            torch.nn.utils.clip_grad_norm_([w, z], hp["clip_norm"])
        opt.step()
        if sched is not None:
            sched.step()
        losses.append(loss.item())
        ws.append(w.detach().numpy().copy())
        zs.append(z.detach().numpy().copy())
    return np.array(ws), np.array(zs), np.array(losses)


def make(out_dir):
    rng = np.random.default_rng(9)
    A = rng.normal(size=(5, 3))
    b = rng.normal(size=5)
    w0 = rng.normal(size=3)
    z0 = np.array([-0.5, 1.2])
    for name, hp in CASES.items():
        kind = name.split("_")[0]
        ws, zs, losses = trajectory(kind, hp, A, b, w0, z0)
        # A case must be well-conditioned, or rounding differences (FMA, summation order) grow into
        # a mismatch that says nothing about correctness: nudging the start by 1e-13 must move the
        # trajectory by far less than the tests' tolerance.
        nudged, _, _ = trajectory(kind, hp, A, b, w0 * (1 + 1e-13), z0)
        drift = np.max(np.abs(nudged - ws) / (np.abs(ws) + 1e-12))
        assert drift < 1e-10, "case %s is ill-conditioned: drift %g" % (name, drift)
        settings = {"hp_" + k: np.float64(v) for k, v in hp.items()}
        np.savez(os.path.join(out_dir, "optim_%s.npz" % name), A=A, b=b, w=ws, z=zs, loss=losses, **settings)

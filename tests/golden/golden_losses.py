"""Golden files of symx.nn.losses: values and gradients from torch.nn.functional (float64).

Each losses_<case>.npz holds the case's inputs (logits, labels, ... under the argument names of the
symx function), its parameters as 0-d arrays, and for the reductions "mean", "sum" and "none" the
value value_<reduction>; r is a fixed random cotangent of the "none" losses, d<input> the gradient of
sum(losses_none * r) and d<input>_mean that of the "mean" loss, for each differentiable input.
Logits include +-1e4 (PyTorch's losses are finite there, and so must symx's be).
"""

import os
import warnings

import numpy as np
import torch
import torch.nn.functional as F


def extreme_logits(rng, shape, scale=3.0):
    x = rng.normal(0, scale, shape)
    x[0, 0], x[1, -1], x[2, 0], x[2, -1] = 1e4, -1e4, -1e4, 1e4
    return x


def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def cross_entropy(a, reduction, label_smoothing=0.0):
    logits, labels = a["logits"], a["labels"]
    if logits.dim() > 2:  # classes last in symx, at dim 1 in PyTorch
        logits = logits.movedim(-1, 1)
        if labels.is_floating_point():
            labels = labels.movedim(-1, 1)
    if not labels.is_floating_point():
        labels = labels.long()
    return F.cross_entropy(logits, labels, reduction=reduction, label_smoothing=label_smoothing)


def hinge(a, reduction):
    y = torch.where(a["labels"] > 0, 1.0, -1.0).double()
    losses = torch.clamp(1 - y * a["scores"], min=0)
    return {"mean": losses.mean(), "sum": losses.sum(), "none": losses}[reduction]


def make_cases(rng):
    n, c = 6, 5
    sparse = rng.integers(0, c, n)
    # Row 0's label has the logit +1e4 (loss 0); row 2's has -1e4 with +1e4 elsewhere (loss 2e4).
    sparse[0], sparse[2] = 0, 0
    soft = rng.dirichlet(np.ones(c), n)
    kl_targets = softmax(rng.normal(0, 1, (4, c)))
    kl_targets[0, 1] = kl_targets[2, 3] = 0.0
    kl_targets /= kl_targets.sum(-1, keepdims=True)
    regression = rng.normal(0, 2, (4, 3))
    regression[0, 0], regression[3, 2] = 1e4, -1e4
    return {
        # name: (inputs, differentiable inputs, torch function of (inputs, reduction), parameters)
        "ce_sparse": (
            {"logits": extreme_logits(rng, (n, c)), "labels": sparse.astype(np.int64)},
            ["logits"],
            cross_entropy,
            {"label_smoothing": 0.0},
        ),
        "ce_sparse_smooth": (
            {"logits": extreme_logits(rng, (n, c)), "labels": sparse.astype(np.int32)},
            ["logits"],
            lambda a, r: cross_entropy(a, r, 0.1),
            {"label_smoothing": 0.1},
        ),
        "ce_soft": (
            {"logits": extreme_logits(rng, (n, c)), "labels": soft},
            ["logits", "labels"],
            cross_entropy,
            {"label_smoothing": 0.0},
        ),
        "ce_soft_smooth": (
            {"logits": extreme_logits(rng, (n, c)), "labels": soft},
            ["logits", "labels"],
            lambda a, r: cross_entropy(a, r, 0.2),
            {"label_smoothing": 0.2},
        ),
        "ce_3d": (
            {"logits": rng.normal(0, 2, (2, 3, 4)), "labels": rng.integers(0, 4, (2, 3))},
            ["logits"],
            cross_entropy,
            {"label_smoothing": 0.0},
        ),
        "bce": (
            {"logits": extreme_logits(rng, (4, 3)), "labels": rng.uniform(0, 1, (4, 3))},
            ["logits", "labels"],
            lambda a, r: F.binary_cross_entropy_with_logits(a["logits"], a["labels"], reduction=r),
            {},
        ),
        "bce_pos_weight": (
            {
                "logits": extreme_logits(rng, (4, 3)),
                "labels": rng.uniform(0, 1, (4, 3)),
                "pos_weight": rng.uniform(0.5, 3, 3),
            },
            ["logits", "labels"],
            lambda a, r: F.binary_cross_entropy_with_logits(
                a["logits"], a["labels"], reduction=r, pos_weight=a["pos_weight"]
            ),
            {},
        ),
        "mse": (
            {"predictions": regression, "targets": rng.normal(0, 2, (4, 3))},
            ["predictions", "targets"],
            lambda a, r: F.mse_loss(a["predictions"], a["targets"], reduction=r),
            {},
        ),
        "mae": (
            {"predictions": regression, "targets": rng.normal(0, 2, (4, 3))},
            ["predictions", "targets"],
            lambda a, r: F.l1_loss(a["predictions"], a["targets"], reduction=r),
            {},
        ),
        "huber": (
            {"predictions": regression, "targets": rng.normal(0, 2, (4, 3))},
            ["predictions", "targets"],
            lambda a, r: F.huber_loss(a["predictions"], a["targets"], reduction=r, delta=1.0),
            {"delta": 1.0},
        ),
        "huber_delta0.5": (
            {"predictions": regression, "targets": rng.normal(0, 2, (4, 3))},
            ["predictions", "targets"],
            lambda a, r: F.huber_loss(a["predictions"], a["targets"], reduction=r, delta=0.5),
            {"delta": 0.5},
        ),
        "hinge_pm1": (
            {
                "scores": np.array([2.5, 0.3, -0.4, -3.0, 1e4, -1e4, 0.9, -0.2]),
                "labels": np.array([1.0, 1, -1, 1, -1, -1, -1, 1]),
            },
            ["scores"],
            hinge,
            {},
        ),
        "hinge_01": (
            {
                "scores": np.array([2.5, 0.3, -0.4, -3.0, 1e4, -1e4, 0.9, -0.2]),
                "labels": np.array([1, 1, 0, 1, 0, 0, 0, 1], np.int64),
            },
            ["scores"],
            hinge,
            {},
        ),
        "multi_margin": (
            {"logits": extreme_logits(rng, (n, c), 1.0), "labels": sparse.astype(np.int64)},
            ["logits"],
            lambda a, r: F.multi_margin_loss(a["logits"], a["labels"].long(), reduction=r),
            {"margin": 1.0, "p": 1.0},
        ),
        "multi_margin_p2": (
            {"logits": extreme_logits(rng, (n, c), 1.0), "labels": sparse.astype(np.int64)},
            ["logits"],
            lambda a, r: F.multi_margin_loss(a["logits"], a["labels"].long(), p=2, margin=0.5, reduction=r),
            {"margin": 0.5, "p": 2.0},
        ),
        "kl": (
            {"log_predictions": np.log(softmax(rng.normal(0, 1, (4, c)))), "targets": kl_targets},
            ["log_predictions"],
            lambda a, r: F.kl_div(a["log_predictions"], a["targets"], reduction=r),
            {"log_target": 0.0},
        ),
        "kl_log_target": (
            {
                "log_predictions": np.log(softmax(rng.normal(0, 1, (4, c)))),
                "targets": np.log(softmax(rng.normal(0, 1, (4, c)))),
            },
            ["log_predictions", "targets"],
            lambda a, r: F.kl_div(a["log_predictions"], a["targets"], reduction=r, log_target=True),
            {"log_target": 1.0},
        ),
    }


def write_case(out_dir, name, inputs, differentiable, fn, params, rng):
    arrays = dict(inputs)
    arrays.update({k: np.array(v, dtype=np.float64) for k, v in params.items()})
    reductions = ["mean", "sum", "none"] + (["batchmean"] if name.startswith("kl") else [])
    for reduction in reductions:
        tensors = {k: torch.tensor(v, requires_grad=k in differentiable) for k, v in inputs.items()}
        value = fn(tensors, reduction)
        arrays["value_" + reduction] = value.detach().numpy()
        if reduction == "none":
            arrays["r"] = rng.uniform(-1, 1, tuple(value.shape))
            value = (value * torch.tensor(arrays["r"])).sum()
        if reduction in ("none", "mean"):
            value.backward()
            for k in differentiable:
                arrays["d" + k + ("" if reduction == "none" else "_mean")] = tensors[k].grad.numpy()
    for k, v in arrays.items():
        assert np.all(np.isfinite(v)), (name, k)
    np.savez(os.path.join(out_dir, "losses_%s.npz" % name), **arrays)


def write_metrics(out_dir, rng):
    logits = rng.normal(0, 1, (40, 6))  # no ties (continuous draws)
    labels = rng.integers(0, 6, 40)
    t, y = torch.tensor(logits), torch.tensor(labels)
    arrays = {"logits": logits, "labels": labels, "accuracy": np.array((t.argmax(-1) == y).double().mean().item())}
    for k in (1, 2, 3, 6):
        top = t.topk(k, dim=-1).indices
        arrays["top_%d_accuracy" % k] = np.array((top == y[:, None]).any(-1).double().mean().item())
    np.savez(os.path.join(out_dir, "losses_metrics.npz"), **arrays)


def make(out_dir):
    rng = np.random.default_rng(99)
    # F.kl_div warns that its "mean" is not the KL divergence; that "mean" is what symx matches.
    warnings.filterwarnings("ignore", message="reduction: 'mean' divides the total loss")
    for name, (inputs, differentiable, fn, params) in make_cases(rng).items():
        write_case(out_dir, name, inputs, differentiable, fn, params, rng)
    write_metrics(out_dir, rng)

"""Golden files of symx.nn.layers: PyTorch modules with given weights, float64.

Each case writes layers_<case>.npz with the input `x`, the weights (named as symx names the layer's
variables: w, b, gamma, beta; in symx's layouts), an upstream gradient `g` and the expected output
`y` and gradients `d_<name>` of sum(y * g) with respect to the input and every weight. BatchNorm
cases hold three training steps (`x0`, `x1`, `x2`, outputs `y0`..`y2`), the running statistics after
them and the evaluation output on `x_eval`.
"""

import os

import numpy as np
import torch

torch.set_default_dtype(torch.float64)


def _t(a, grad=True):
    return torch.tensor(a, dtype=torch.float64, requires_grad=grad)


def _save(out_dir, case, **arrays):
    np.savez(os.path.join(out_dir, "layers_%s.npz" % case), **{k: np.asarray(v) for k, v in arrays.items()})


def _module_case(out_dir, case, rng, module, x_shape, weights, extra=None):
    """A module whose parameters are set from `weights` {symx name: (torch parameter, symx layout)}."""
    x = _t(rng.standard_normal(x_shape))
    with torch.no_grad():
        for param, _ in weights.values():
            param.copy_(torch.tensor(rng.uniform(-1, 1, param.shape)))
    y = module(x)
    g = rng.standard_normal(tuple(y.shape))
    (y * torch.tensor(g)).sum().backward()
    out = {"x": x.detach().numpy(), "d_x": x.grad.numpy(), "y": y.detach().numpy(), "g": g}
    for name, (param, to_symx) in weights.items():
        out[name] = to_symx(param.detach().numpy())
        out["d_" + name] = to_symx(param.grad.numpy())
    out.update(extra or {})
    _save(out_dir, case, **out)


def _same(a):
    return a


def _conv_cases(out_dir, rng):
    m = torch.nn.Linear(5, 3)
    _module_case(out_dir, "dense", rng, m, (4, 5), {"w": (m.weight, lambda a: a.T.copy()), "b": (m.bias, _same)})
    m = torch.nn.Conv1d(3, 4, 3, stride=2, padding=1, dilation=1)
    _module_case(out_dir, "conv1d", rng, m, (2, 3, 9), {"w": (m.weight, _same), "b": (m.bias, _same)})
    m = torch.nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)
    _module_case(out_dir, "conv2d", rng, m, (1, 4, 7, 6), {"w": (m.weight, _same), "b": (m.bias, _same)})
    m = torch.nn.Conv2d(3, 4, (3, 4), padding="same", bias=False)
    _module_case(out_dir, "conv2d_same", rng, m, (1, 3, 5, 6), {"w": (m.weight, _same)})
    m = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
    _module_case(out_dir, "conv2d_transpose", rng, m, (1, 4, 3, 3), {"w": (m.weight, _same), "b": (m.bias, _same)})


def _other_cases(out_dir, rng):
    _module_case(out_dir, "max_pool2d", rng, torch.nn.MaxPool2d(3, 2, padding=1), (1, 3, 7, 7), {})
    _module_case(
        out_dir, "avg_pool2d", rng, torch.nn.AvgPool2d(3, 2, padding=1, count_include_pad=False), (2, 3, 7, 6), {}
    )
    _module_case(out_dir, "global_avg_pool2d", rng, lambda x: x.mean(dim=(2, 3)), (2, 3, 4, 5), {})
    m = torch.nn.LayerNorm(5)
    _module_case(out_dir, "layer_norm", rng, m, (3, 4, 5), {"gamma": (m.weight, _same), "beta": (m.bias, _same)})
    m = torch.nn.LayerNorm((4, 5))
    _module_case(out_dir, "layer_norm2", rng, m, (3, 4, 5), {"gamma": (m.weight, _same), "beta": (m.bias, _same)})
    _module_case(
        out_dir, "upsample_nearest", rng, torch.nn.Upsample(scale_factor=(2, 3), mode="nearest"), (1, 3, 3, 4), {}
    )
    _module_case(
        out_dir,
        "upsample_bilinear",
        rng,
        torch.nn.Upsample(scale_factor=(2, 3), mode="bilinear", align_corners=False),
        (1, 3, 3, 4),
        {},
    )
    # Embedding: integer input, gradient only for the table (repeated indices accumulate).
    m = torch.nn.Embedding(10, 5)
    with torch.no_grad():
        m.weight.copy_(torch.tensor(rng.uniform(-1, 1, (10, 5))))
    idx = rng.integers(0, 10, (3, 4))
    idx[0, 0] = idx[1, 1] = idx[2, 2]
    y = m(torch.tensor(idx))
    g = rng.standard_normal(tuple(y.shape))
    (y * torch.tensor(g)).sum().backward()
    _save(
        out_dir, "embedding", x=idx, w=m.weight.detach().numpy(), d_w=m.weight.grad.numpy(), y=y.detach().numpy(), g=g
    )


def _batch_norm_case(out_dir, rng, case, module, shape):
    """Three training steps (outputs, gradients of the first), the running statistics, then evaluation."""
    with torch.no_grad():
        module.weight.copy_(torch.tensor(rng.uniform(0.5, 1.5, module.weight.shape)))
        module.bias.copy_(torch.tensor(rng.uniform(-1, 1, module.bias.shape)))
    out = {"gamma": module.weight.detach().numpy().copy(), "beta": module.bias.detach().numpy().copy()}
    module.train()
    for step in range(3):
        x = _t(rng.normal(1.0, 2.0, shape))
        y = module(x)
        g = rng.standard_normal(tuple(y.shape))
        (y * torch.tensor(g)).sum().backward()
        out.update({"x%d" % step: x.detach().numpy(), "y%d" % step: y.detach().numpy(), "g%d" % step: g})
        if step == 0:
            out.update(
                {
                    "d_x0": x.grad.numpy(),
                    "d_gamma": module.weight.grad.numpy().copy(),
                    "d_beta": module.bias.grad.numpy().copy(),
                }
            )
    out.update({"running_mean": module.running_mean.numpy(), "running_var": module.running_var.numpy()})
    module.eval()
    x = torch.tensor(rng.standard_normal(shape))
    out.update({"x_eval": x.numpy(), "y_eval": module(x).detach().numpy()})
    _save(out_dir, case, **out)


def _network_case(out_dir, rng):
    """A small convolutional network: Conv2D, BatchNorm (training mode), relu, MaxPool2D, Flatten, Dense."""
    conv, bn, dense = torch.nn.Conv2d(2, 3, 3, padding=1), torch.nn.BatchNorm2d(3), torch.nn.Linear(3 * 2 * 2, 4)
    net = torch.nn.Sequential(conv, bn, torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(), dense)
    weights = {
        "conv_w": (conv.weight, _same),
        "conv_b": (conv.bias, _same),
        "bn_gamma": (bn.weight, _same),
        "bn_beta": (bn.bias, _same),
        "dense_w": (dense.weight, lambda a: a.T.copy()),
        "dense_b": (dense.bias, _same),
    }
    _module_case(out_dir, "network", rng, net, (3, 2, 4, 4), weights)


def make(out_dir):
    rng = np.random.default_rng(20261201)
    _conv_cases(out_dir, rng)
    _other_cases(out_dir, rng)
    _batch_norm_case(out_dir, rng, "batch_norm2d", torch.nn.BatchNorm2d(3, momentum=0.1), (4, 3, 2, 2))
    _batch_norm_case(out_dir, rng, "batch_norm1d", torch.nn.BatchNorm1d(4, momentum=0.3, eps=1e-3), (6, 4))
    _network_case(out_dir, rng)

"""PyTorch implementations of the benchmark cases, eager and torch.compile (inductor, CPU).

With `compiled=True` the forward function (the loss, or the whole elementwise chain) goes through
torch.compile; the backward then runs the AOTAutograd-compiled graph, and the optimizer update
is the eager multi-tensor (foreach) implementation — the usual way torch.compile is used for
training.
"""

import torch
import torch.nn.functional as F

import common as C

torch.set_num_threads(C.threads())
torch.set_grad_enabled(True)


def _maybe_compile(fn, compiled):
    return torch.compile(fn) if compiled else fn


def _cross_entropy(logits, y):
    # PyTorch's fused cross-entropy with probability targets: -sum(y * log_softmax(logits)), mean.
    return F.cross_entropy(logits, y)


def elementwise(compiled):
    x, a, b = (torch.from_numpy(v) for v in C.elementwise_data())

    def chain(x, a, b):
        return torch.tanh(x * a + b) * torch.sigmoid(x) + torch.exp(-x * x)

    f = _maybe_compile(chain, compiled)
    last = {}

    def step():
        with torch.no_grad():
            last["r"] = f(x, a, b)

    return step, lambda: float(last["r"][:4096].double().sum())


def xent(compiled):
    logits, labels = C.xent_data()
    lg = torch.from_numpy(logits).requires_grad_(True)
    lb = torch.from_numpy(labels)
    f = _maybe_compile(_cross_entropy, compiled)
    last = {}

    def step():
        loss = f(lg, lb)
        (g,) = torch.autograd.grad(loss, [lg])
        last["r"] = (loss.detach(), g)

    return step, lambda: float(last["r"][0])


def _mlp_loss(params, x, y):
    h = x
    for i in range(0, len(params) - 2, 2):
        h = torch.relu(h @ params[i] + params[i + 1])
    return _cross_entropy(h @ params[-2] + params[-1], y)


def mlp_setup(compiled, data=None):
    x, y, params = data if data is not None else C.mlp_data()
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    ps = [torch.from_numpy(p.copy()).requires_grad_(True) for p in params]
    f = _maybe_compile(_mlp_loss, compiled)
    last = {}

    def step():
        loss = f(ps, x, y)
        grads = torch.autograd.grad(loss, ps)
        with torch.no_grad():
            torch._foreach_add_(ps, grads, alpha=-C.MLP_LR)
        last["loss"] = loss.detach()

    return step, lambda: float(last["loss"])


def mlp(compiled):
    return mlp_setup(compiled)


def lstm(compiled):
    """torch.nn.LSTM (PyTorch's own LSTM kernel: oneDNN's fused RNN on the CPU where it applies)
    with the same weights; torch.compile compiles the whole loss."""
    x, target, params = C.lstm_data()
    x, target = torch.from_numpy(x), torch.from_numpy(target)
    net = torch.nn.LSTM(C.LSTM_I, C.LSTM_H)
    with torch.no_grad():
        for name, p in zip(("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"), params):
            getattr(net, name).copy_(torch.from_numpy(p))
    ps = list(net.parameters())

    def loss_fn(x, target):
        hs, _ = net(x)
        return torch.mean(torch.square(hs - target))

    f = _maybe_compile(loss_fn, compiled)
    last = {}

    def step():
        loss = f(x, target)
        grads = torch.autograd.grad(loss, ps)
        with torch.no_grad():
            torch._foreach_add_(ps, grads, alpha=-C.LSTM_LR)
        last["loss"] = loss.detach()

    return step, lambda: float(last["loss"])


def _bn(h, gamma, beta):
    return F.batch_norm(h, None, None, gamma, beta, training=True, momentum=0.0, eps=C.BN_EPS)


def _cnn_loss(params, x, y):
    w1, g1, be1, w2, g2, be2, w3, b3, g3, be3, w4, b4 = params
    h = F.max_pool2d(torch.relu(_bn(F.conv2d(x, w1, padding=1), g1, be1)), 2)
    h = F.max_pool2d(torch.relu(_bn(F.conv2d(h, w2, padding=1), g2, be2)), 2)
    h = h.reshape(x.shape[0], 64 * 8 * 8) @ w3 + b3
    h = torch.relu(_bn(h, g3, be3))
    return _cross_entropy(h @ w4 + b4, y)


def cnn_setup(batch, compiled, data=None):
    x, y, params = data if data is not None else C.cnn_data(batch)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    ps = [torch.from_numpy(p.copy()).requires_grad_(True) for p in params]
    opt = torch.optim.Adam(ps, lr=C.ADAM_LR, betas=(C.ADAM_B1, C.ADAM_B2), eps=C.ADAM_EPS, foreach=True)
    f = _maybe_compile(_cnn_loss, compiled)
    last = {}

    def step():
        opt.zero_grad(set_to_none=True)
        loss = f(ps, x, y)
        loss.backward()
        opt.step()
        last["loss"] = loss.detach()

    return step, lambda: float(last["loss"])


def cnn(batch, compiled):
    return cnn_setup(batch, compiled)


def overhead(compiled):
    a = torch.tensor(1.5, dtype=torch.float32)
    b = torch.tensor(2.25, dtype=torch.float32)
    f = _maybe_compile(lambda a, b: a + b, compiled)
    last = {}

    def step():
        last["r"] = f(a, b)

    return step, lambda: float(last["r"])


def compile_case(case, compiled):
    """For case 6: data made untimed; run() = set-up (torch.compile wrapping) + first training step."""
    data = C.mlp_data() if case == "mlp" else C.cnn_data(int(case[3:]))

    def run():
        if case == "mlp":
            step, probe = mlp_setup(compiled, data)
        else:
            step, probe = cnn_setup(int(case[3:]), compiled, data)
        step()
        return probe(), None, step

    return run


# ---- cases 9-13 (issue 21): the NumPy surface (no gradients) ----


def _numpy_case(fn, compiled, *data):
    f = _maybe_compile(fn, compiled)
    args = [torch.from_numpy(d) for d in data]
    last = {}

    def step():
        with torch.no_grad():
            last["r"] = f(*args)

    return step, lambda: C.checksum(last["r"].numpy()), None


def argsort4m(compiled):
    return _numpy_case(lambda x: torch.argsort(x, stable=True), compiled, C.argsort_data())


def median_rows(compiled):
    # torch.median returns the lower of the two middle values for an even count; NumPy's (and
    # symx's and JAX's) is their mean, which torch.quantile(0.5) computes.
    return _numpy_case(lambda x: torch.quantile(x, 0.5, dim=1), compiled, C.median_data())


def cumprod(compiled):
    return _numpy_case(lambda x: torch.cumprod(x, dim=1), compiled, C.cumprod_data())


def special_chain(compiled):
    return _numpy_case(lambda x, y: torch.lgamma(x) + torch.digamma(x) + torch.erfinv(y), compiled, *C.special_data())


def einsum_attn(compiled):
    return _numpy_case(lambda q, k: torch.einsum("bhqd,bhkd->bhqk", q, k), compiled, *C.einsum_data())


# ---- cases 14-17 (issue 22): eigh and svd with gradients ----


def _spectral(kind, shape, compiled):
    a, c, wt = (torch.from_numpy(v) for v in C.spectral_data(shape))

    def cost(x):
        if kind == "eigh":
            values, vectors = torch.linalg.eigh(x)
        else:
            vectors, values, _ = torch.linalg.svd(x, full_matrices=False)
        return (values * c).sum() + (vectors * vectors * wt).sum(), values

    f = _maybe_compile(cost, compiled)
    last = {}

    def step():
        x = a.detach().requires_grad_(True)
        total, values = f(x)
        (g,) = torch.autograd.grad(total, x)
        last["r"] = values.detach()

    return step, lambda: C.checksum(last["r"].numpy()), None


def eigh512(compiled):
    return _spectral("eigh", C.SPECTRAL_ONE, compiled)


def svd512(compiled):
    return _spectral("svd", C.SPECTRAL_ONE, compiled)


def eigh_batch(compiled):
    return _spectral("eigh", C.SPECTRAL_BATCH, compiled)


def svd_batch(compiled):
    return _spectral("svd", C.SPECTRAL_BATCH, compiled)

"""symx implementations of the benchmark cases (compiled backend, through the Python binding).

Each builder returns (step, probe, function): step() runs one call and returns when the results are
ready; probe() returns a float from the latest results, for the cross-framework sanity check.
"""

import numpy as np

import common as C
import symx as sx


def _cross_entropy(logits, y):
    # Each framework's own way to write it: symx's one-op cross-entropy (the compiler rewrites a
    # naive -sum(y * log_softmax(logits)) and its gradient into the same two ops),
    # torch's F.cross_entropy, JAX's -sum(y * log_softmax(logits)).
    return sx.mean(sx.nn.softmax_cross_entropy(logits, y, axis=-1))


def elementwise():
    x, a, b = C.elementwise_data()
    n = C.ELEMENTWISE_N
    xs, as_, bs = (sx.placeholder((n,), "float32", name=s) for s in ("x", "a", "b"))
    out = sx.tanh(xs * as_ + bs) * sx.nn.sigmoid(xs) + sx.exp(-xs * xs)
    f = sx.function([xs, as_, bs], [out], backend="compiled")
    last = {}

    def step():
        last["r"] = f(x, a, b)

    return step, lambda: float(np.asarray(last["r"][0][:4096], np.float64).sum()), f


def xent():
    logits, labels = C.xent_data()
    lg = sx.placeholder(C.XENT_SHAPE, "float32", name="logits")
    lb = sx.placeholder(C.XENT_SHAPE, "float32", name="labels")
    loss = _cross_entropy(lg, lb)
    (g,) = sx.grad(loss, [lg])
    f = sx.function([lg, lb], [loss, g], backend="compiled")
    last = {}

    def step():
        last["r"] = f(logits, labels)

    return step, lambda: float(last["r"][0]), f


def mlp_graph(x, y, params):
    """Builds the MLP training step; returns (inputs, outputs, updates)."""
    xs = sx.placeholder(x.shape, "float32", name="x")
    ys = sx.placeholder(y.shape, "float32", name="y")
    vs = [sx.variable(p.copy(), name=f"p{i}") for i, p in enumerate(params)]
    h = xs
    for i in range(0, len(vs) - 2, 2):
        h = sx.nn.relu(h @ vs[i] + vs[i + 1])
    logits = h @ vs[-2] + vs[-1]
    loss = _cross_entropy(logits, ys)
    grads = sx.grad(loss, vs)
    updates = {v: v - C.MLP_LR * g for v, g in zip(vs, grads)}
    return [xs, ys], [loss], updates


def _training_step(x, y, graph):
    """(step, probe, function) for a training graph (inputs, [loss], updates) fed x and y."""
    ins, outs, ups = graph
    f = sx.function(ins, outs, updates=ups, backend="compiled")
    last = {}

    def step():
        last["r"] = f(x, y)

    return step, lambda: float(last["r"][0]), f


def mlp():
    x, y, params = C.mlp_data()
    return _training_step(x, y, mlp_graph(x, y, params))


def _batchnorm(h, gamma, beta, axes, bshape):
    mean = sx.mean(h, axis=axes, keepdims=True)
    var = sx.mean(sx.square(h - mean), axis=axes, keepdims=True)
    return (h - mean) * sx.rsqrt(var + C.BN_EPS) * sx.reshape(gamma, bshape) + sx.reshape(beta, bshape)


def cnn_graph(x, y, params):
    """Builds the CIFAR-10 CNN training step with Adam; returns (inputs, outputs, updates)."""
    batch = x.shape[0]
    xs = sx.placeholder(x.shape, "float32", name="x")
    ys = sx.placeholder(y.shape, "float32", name="y")
    p = {n: sx.variable(v.copy(), name=n) for n, v in zip(C.CNN_PARAM_NAMES, params)}
    h = sx.nn.conv2d(xs, p["w1"], padding="SAME")
    h = sx.nn.max_pool2d(sx.nn.relu(_batchnorm(h, p["g1"], p["be1"], (0, 2, 3), (1, 32, 1, 1))), (2, 2))
    h = sx.nn.conv2d(h, p["w2"], padding="SAME")
    h = sx.nn.max_pool2d(sx.nn.relu(_batchnorm(h, p["g2"], p["be2"], (0, 2, 3), (1, 64, 1, 1))), (2, 2))
    h = sx.reshape(h, (batch, 64 * 8 * 8))
    h = h @ p["w3"] + p["b3"]
    h = sx.nn.relu(_batchnorm(h, p["g3"], p["be3"], (0,), (1, 128)))
    logits = h @ p["w4"] + p["b4"]
    loss = _cross_entropy(logits, ys)
    names = list(C.CNN_PARAM_NAMES)
    grads = sx.grad(loss, [p[n] for n in names])
    t = sx.variable(np.array(0.0, np.float32), name="adam_t", trainable=False)
    t1 = t + 1.0
    lr_t = C.ADAM_LR * sx.sqrt(1.0 - C.ADAM_B2**t1) / (1.0 - C.ADAM_B1**t1)
    updates = {t: t1}
    for n, g in zip(names, grads):
        v0 = np.zeros(params[names.index(n)].shape, np.float32)
        m = sx.variable(v0, name="m_" + n, trainable=False)
        v = sx.variable(v0.copy(), name="v_" + n, trainable=False)
        m1 = C.ADAM_B1 * m + (1.0 - C.ADAM_B1) * g
        v1 = C.ADAM_B2 * v + (1.0 - C.ADAM_B2) * sx.square(g)
        updates[m] = m1
        updates[v] = v1
        updates[p[n]] = p[n] - lr_t * m1 / (sx.sqrt(v1) + C.ADAM_EPS)
    return [xs, ys], [loss], updates


def cnn(batch):
    x, y, params = C.cnn_data(batch)
    return _training_step(x, y, cnn_graph(x, y, params))


def lstm_graph(x, target, params):
    """The LSTM training step written with sx.scan, as a user writes the cell."""
    H = C.LSTM_H
    xs = sx.placeholder(x.shape, "float32", name="x")
    ys = sx.placeholder(target.shape, "float32", name="target")
    w_ih, w_hh, b_ih, b_hh = (sx.variable(p.copy(), name=n) for p, n in zip(params, ("w_ih", "w_hh", "b_ih", "b_hh")))

    def cell(carry, x_t):
        h, c = carry
        gates = x_t @ w_ih.T + b_ih + h @ w_hh.T + b_hh
        i, f, g, o = (gates[:, k * H : (k + 1) * H] for k in range(4))
        c = sx.nn.sigmoid(f) * c + sx.nn.sigmoid(i) * sx.tanh(g)
        h = sx.nn.sigmoid(o) * sx.tanh(c)
        return (h, c), h

    zero = sx.zeros((C.LSTM_B, H))
    _, hs = sx.scan(cell, (zero, zero), sequences=[xs])
    loss = sx.mean(sx.square(hs - ys))
    vs = [w_ih, w_hh, b_ih, b_hh]
    grads = sx.grad(loss, vs)
    return [xs, ys], [loss], {v: v - C.LSTM_LR * g for v, g in zip(vs, grads)}


def lstm():
    x, target, params = C.lstm_data()
    return _training_step(x, target, lstm_graph(x, target, params))


def scan1m():
    c0 = sx.placeholder((), "float32", name="c0")
    c, _ = sx.scan(lambda c: (c * C.SCAN_A + 1.0, None), c0, length=C.SCAN_N)
    f = sx.function([c0], [c], backend="compiled")
    start = np.array(0.0, np.float32)
    last = {}

    def step():
        last["r"] = f(start)

    return step, lambda: float(last["r"][0]), f


def overhead():
    a = sx.placeholder((), "float32", name="a")
    b = sx.placeholder((), "float32", name="b")
    f = sx.function([a, b], [a + b], backend="compiled")
    xa = np.array(1.5, np.float32)
    xb = np.array(2.25, np.float32)
    last = {}

    def step():
        last["r"] = f(xa, xb)

    return step, lambda: float(last["r"][0]), f


def compile_case(case):
    """For case 6: builds the graph (untimed) and returns run(): sx.function + the first call
    (timed by the caller), returning (probe, function, again) where again() runs one more call."""
    if case == "mlp":
        x, y, params = C.mlp_data()
        ins, outs, ups = mlp_graph(x, y, params)
    else:
        x, y, params = C.cnn_data(int(case[3:]))
        ins, outs, ups = cnn_graph(x, y, params)

    def run():
        f = sx.function(ins, outs, updates=ups, backend="compiled")
        r = f(x, y)
        return float(r[0]), f, lambda: f(x, y)

    return run


# ---- cases 9-13 (issue 21): the NumPy surface ----


def _numpy_case(make, *data):
    phs = [sx.placeholder(d.shape, str(d.dtype), name="x%d" % i) for i, d in enumerate(data)]
    f = sx.function(phs, [make(*phs)], backend="compiled")
    last = {}

    def step():
        last["r"] = f(*data)

    return step, lambda: C.checksum(last["r"][0]), f


def argsort4m():
    return _numpy_case(lambda x: sx.argsort(x, stable=True), C.argsort_data())


def median_rows():
    return _numpy_case(lambda x: sx.median(x, axis=1), C.median_data())


def cumprod():
    return _numpy_case(lambda x: sx.cumprod(x, axis=1), C.cumprod_data())


def special_chain():
    return _numpy_case(
        lambda x, y: sx.special.gammaln(x) + sx.special.digamma(x) + sx.special.erfinv(y), *C.special_data()
    )


def einsum_attn():
    return _numpy_case(lambda q, k: sx.einsum("bhqd,bhkd->bhqk", q, k), *C.einsum_data())


# ---- cases 14-17 (issue 22): eigh and svd with gradients ----


def _spectral(kind, shape):
    a, c, wt = C.spectral_data(shape)
    p = sx.placeholder(a.shape, "float32", name="a")
    if kind == "eigh":
        values, vectors = sx.linalg.eigh(p)
    else:
        vectors, values, _ = sx.linalg.svd(p, full_matrices=False)
    cost = sx.sum(values * c) + sx.sum(vectors * vectors * wt)
    f = sx.function([p], [values, *sx.grad(cost, [p])], backend="compiled")
    last = {}

    def step():
        last["r"] = f(a)

    return step, lambda: C.checksum(last["r"][0]), f


def eigh512():
    return _spectral("eigh", C.SPECTRAL_ONE)


def svd512():
    return _spectral("svd", C.SPECTRAL_ONE)


def eigh_batch():
    return _spectral("eigh", C.SPECTRAL_BATCH)


def svd_batch():
    return _spectral("svd", C.SPECTRAL_BATCH)

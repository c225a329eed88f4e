"""JAX implementations of the benchmark cases (jax.jit on the CPU, block_until_ready).

Training steps take and return the parameters (and optimizer state) with donate_argnums, so XLA
may update them in place, as symx does with its variable updates.
"""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import common as C

warnings.filterwarnings("ignore", message=".*donated buffers were not usable.*")


def _cross_entropy(logits, y):
    return jnp.mean(-jnp.sum(y * jax.nn.log_softmax(logits, axis=-1), axis=-1))


def _block(tree):
    return jax.block_until_ready(tree)


def elementwise():
    x, a, b = (jnp.asarray(v) for v in C.elementwise_data())
    f = jax.jit(lambda x, a, b: jnp.tanh(x * a + b) * jax.nn.sigmoid(x) + jnp.exp(-x * x))
    last = {}

    def step():
        last["r"] = _block(f(x, a, b))

    return step, lambda: float(np.asarray(last["r"][:4096], np.float64).sum())


def xent():
    logits, labels = (jnp.asarray(v) for v in C.xent_data())
    f = jax.jit(jax.value_and_grad(_cross_entropy))
    last = {}

    def step():
        last["r"] = _block(f(logits, labels))

    return step, lambda: float(last["r"][0])


def _mlp_loss(params, x, y):
    h = x
    for i in range(0, len(params) - 2, 2):
        h = jax.nn.relu(h @ params[i] + params[i + 1])
    return _cross_entropy(h @ params[-2] + params[-1], y)


def mlp_step_fn():
    def step(params, x, y):
        loss, grads = jax.value_and_grad(_mlp_loss)(params, x, y)
        return [p - C.MLP_LR * g for p, g in zip(params, grads)], loss

    return jax.jit(step, donate_argnums=(0,))


def mlp():
    x, y, params = C.mlp_data()
    x, y = jnp.asarray(x), jnp.asarray(y)
    state = {"p": [jnp.asarray(p) for p in params]}
    f = mlp_step_fn()

    def step():
        state["p"], state["loss"] = _block(f(state["p"], x, y))

    return step, lambda: float(state["loss"])


def _batchnorm(h, gamma, beta, axes, bshape):
    mean = jnp.mean(h, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(h - mean), axis=axes, keepdims=True)
    return (h - mean) * lax.rsqrt(var + C.BN_EPS) * gamma.reshape(bshape) + beta.reshape(bshape)


def _conv(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW"))


def _pool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")


def _cnn_loss(params, x, y):
    w1, g1, be1, w2, g2, be2, w3, b3, g3, be3, w4, b4 = params
    h = _pool(jax.nn.relu(_batchnorm(_conv(x, w1), g1, be1, (0, 2, 3), (1, 32, 1, 1))))
    h = _pool(jax.nn.relu(_batchnorm(_conv(h, w2), g2, be2, (0, 2, 3), (1, 64, 1, 1))))
    h = h.reshape(x.shape[0], 64 * 8 * 8) @ w3 + b3
    h = jax.nn.relu(_batchnorm(h, g3, be3, (0,), (1, 128)))
    return _cross_entropy(h @ w4 + b4, y)


def cnn_step_fn():
    def step(params, m, v, t, x, y):
        loss, grads = jax.value_and_grad(_cnn_loss)(params, x, y)
        t1 = t + 1.0
        lr_t = C.ADAM_LR * jnp.sqrt(1.0 - C.ADAM_B2**t1) / (1.0 - C.ADAM_B1**t1)
        m1 = [C.ADAM_B1 * mi + (1.0 - C.ADAM_B1) * g for mi, g in zip(m, grads)]
        v1 = [C.ADAM_B2 * vi + (1.0 - C.ADAM_B2) * jnp.square(g) for vi, g in zip(v, grads)]
        p1 = [p - lr_t * mi / (jnp.sqrt(vi) + C.ADAM_EPS) for p, mi, vi in zip(params, m1, v1)]
        return p1, m1, v1, t1, loss

    return jax.jit(step, donate_argnums=(0, 1, 2))


def cnn(batch):
    x, y, params = C.cnn_data(batch)
    x, y = jnp.asarray(x), jnp.asarray(y)
    s = {
        "p": [jnp.asarray(p) for p in params],
        "m": [jnp.zeros(p.shape, jnp.float32) for p in params],
        "v": [jnp.zeros(p.shape, jnp.float32) for p in params],
        "t": jnp.asarray(np.float32(0.0)),
    }
    f = cnn_step_fn()

    def step():
        s["p"], s["m"], s["v"], s["t"], s["loss"] = _block(f(s["p"], s["m"], s["v"], s["t"], x, y))

    return step, lambda: float(s["loss"])


def _lstm_loss(params, x, target):
    w_ih, w_hh, b_ih, b_hh = params
    H = C.LSTM_H

    def cell(carry, x_t):
        h, c = carry
        gates = x_t @ w_ih.T + b_ih + h @ w_hh.T + b_hh
        i, f, g, o = jnp.split(gates, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h

    zero = jnp.zeros((C.LSTM_B, H), jnp.float32)
    _, hs = lax.scan(cell, (zero, zero), x)
    return jnp.mean(jnp.square(hs - target))


def lstm():
    x, target, params = C.lstm_data()
    x, target = jnp.asarray(x), jnp.asarray(target)
    state = {"p": [jnp.asarray(p) for p in params]}

    def step_fn(params, x, target):
        loss, grads = jax.value_and_grad(_lstm_loss)(params, x, target)
        return [p - C.LSTM_LR * g for p, g in zip(params, grads)], loss

    f = jax.jit(step_fn, donate_argnums=(0,))

    def step():
        state["p"], state["loss"] = _block(f(state["p"], x, target))

    return step, lambda: float(state["loss"])


def scan1m():
    f = jax.jit(lambda c0: lax.scan(lambda c, _: (c * C.SCAN_A + 1.0, None), c0, None, length=C.SCAN_N)[0])
    start = jnp.asarray(np.float32(0.0))
    last = {}

    def step():
        last["r"] = f(start).block_until_ready()

    return step, lambda: float(last["r"])


def overhead():
    f = jax.jit(lambda a, b: a + b)
    a = jnp.asarray(np.float32(1.5))
    b = jnp.asarray(np.float32(2.25))
    last = {}

    def step():
        last["r"] = f(a, b).block_until_ready()

    return step, lambda: float(last["r"])


def compile_case(case):
    """For case 6: data prepared untimed; run() = jax.jit + first call (trace, compile, run)."""
    if case == "mlp":
        x, y, params = C.mlp_data()
        x, y = jnp.asarray(x), jnp.asarray(y)
        args = ([jnp.asarray(p) for p in params], x, y)
        make = mlp_step_fn

        def rebind(out):  # the donated parameters are gone: continue from the returned ones
            return (out[0], x, y)
    else:
        x, y, params = C.cnn_data(int(case[3:]))
        x, y = jnp.asarray(x), jnp.asarray(y)
        args = (
            [jnp.asarray(p) for p in params],
            [jnp.zeros(p.shape, jnp.float32) for p in params],
            [jnp.zeros(p.shape, jnp.float32) for p in params],
            jnp.asarray(np.float32(0.0)),
            x,
            y,
        )
        make = cnn_step_fn

        def rebind(out):
            return (out[0], out[1], out[2], out[3], x, y)

    def run():
        f = make()
        out = _block(f(*args))
        state = {"args": rebind(out)}

        def again():
            o = _block(f(*state["args"]))
            state["args"] = rebind(o)

        return float(out[-1]), None, again

    return run


def enable_persistent_cache(path):
    jax.config.update("jax_compilation_cache_dir", path)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)


# ---- cases 9-13 (issue 21): the NumPy surface ----


def _numpy_case(fn, *data):
    f = jax.jit(fn)
    args = [jnp.asarray(d) for d in data]
    last = {}

    def step():
        last["r"] = _block(f(*args))

    return step, lambda: C.checksum(last["r"]), None


def argsort4m():
    return _numpy_case(lambda x: jnp.argsort(x, stable=True), C.argsort_data())


def median_rows():
    return _numpy_case(lambda x: jnp.median(x, axis=1), C.median_data())


def cumprod():
    return _numpy_case(lambda x: jnp.cumprod(x, axis=1), C.cumprod_data())


def special_chain():
    from jax.scipy import special as jsp

    return _numpy_case(lambda x, y: jsp.gammaln(x) + jsp.digamma(x) + jsp.erfinv(y), *C.special_data())


def einsum_attn():
    return _numpy_case(lambda q, k: jnp.einsum("bhqd,bhkd->bhqk", q, k), *C.einsum_data())


# ---- cases 14-17 (issue 22): eigh and svd with gradients ----


def _spectral(kind, shape):
    a, c, wt = (jnp.asarray(v) for v in C.spectral_data(shape))

    def cost(x):
        if kind == "eigh":
            values, vectors = jnp.linalg.eigh(x)
        else:
            vectors, values, _ = jnp.linalg.svd(x, full_matrices=False)
        return jnp.sum(values * c) + jnp.sum(vectors * vectors * wt), values

    f = jax.jit(jax.value_and_grad(cost, has_aux=True))
    last = {}

    def step():
        last["r"] = _block(f(a))

    return step, lambda: C.checksum(np.asarray(last["r"][0][1])), None


def eigh512():
    return _spectral("eigh", C.SPECTRAL_ONE)


def svd512():
    return _spectral("svd", C.SPECTRAL_ONE)


def eigh_batch():
    return _spectral("eigh", C.SPECTRAL_BATCH)


def svd_batch():
    return _spectral("svd", C.SPECTRAL_BATCH)

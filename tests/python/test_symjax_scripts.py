"""SymJAX's control-flow scripts written in symx (issue 20), each checked against NumPy: the
examples examples/control_flow.py and examples/scan.py, and the gallery's gallery/plot_loops.py and
gallery/01_nns/plot_rnn.py, without their plots; and gallery/plot_interpolation.py (issue 22).
Each test follows its script's statements in order; SymJAX's names map to symx's as docs/symjax.md
says (T.map -> sx.map, T.range -> sx.arange, T.Variable -> sx.variable, sj.gradients -> sx.grad,
scan's constants= -> non_sequences=).
"""

import numpy as np
import pytest

import symx as sx

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_examples_control_flow():
    w = sx.variable(np.float32(1.0), name="w")
    u = sx.placeholder((), "float32", name="u")
    out = sx.map(lambda a, w, u: (u - w) * a, [sx.arange(3, dtype="float32")], non_sequences=[w, u])
    f = sx.function([u], [out], updates={w: w + 1})
    np.testing.assert_allclose(f(np.float32(2))[0], [0, 1, 2])
    np.testing.assert_allclose(f(np.float32(2))[0], [0, 0, 0])
    np.testing.assert_allclose(f(np.float32(0))[0], [0, -3, -6])

    sx.reset_variables([w])
    out = sx.map(lambda a, w, u: w * a * u, [sx.arange(3, dtype="float32")], non_sequences=[w, u])
    (g,) = sx.grad(out.sum(), [w])
    f = sx.function([u], [g])
    assert f(np.float32(0))[0] == 0
    assert f(np.float32(1))[0] == 3  # d/dw sum(w * a * u) = u * (0 + 1 + 2)

    out = sx.map(lambda a, b: a * b, [sx.arange(3), sx.arange(3)])
    f = sx.function([], [out])
    np.testing.assert_array_equal(f()[0], [0, 1, 4])

    sx.reset_variables([w])
    v = sx.placeholder((), "float32", name="v")
    out = sx.while_loop(
        lambda i, u: i[0] + u < 5,
        lambda i: (i[0] + 1.0, i[0] ** 2),
        (w, 1.0),
        non_sequences_cond=[v],
    )
    f = sx.function([v], list(out))
    np.testing.assert_allclose(f(np.float32(0)), [5, 16])
    np.testing.assert_allclose(f(np.float32(2)), [3, 4])


def test_examples_scan():
    # example of cumulative sum
    def func(carry, x):
        return carry + 1, 0

    output, _ = sx.scan(func, sx.zeros(1), sx.ones(10), length=10)
    f = sx.function([], [output])
    np.testing.assert_allclose(f()[0], [10.0])

    # example of simple RNN: the draws are made outside the body (read once per call), so the
    # function returns them too, for the NumPy loop to use the same values
    w = sx.placeholder((3, 10), "float32", name="w")
    h = sx.random.normal((3, 3))
    b = sx.random.normal((3,))
    t_steps = 100
    X = sx.random.normal((t_steps, 10))

    def rnn_cell(carry, x, w):
        output = sx.sigmoid(sx.matmul(w, x) + sx.matmul(carry, h) + b)
        return output, output

    last, hidden = sx.scan(rnn_cell, sx.zeros(3), X, non_sequences=(w,))
    (g,) = sx.grad(hidden.sum(), [w])
    f = sx.function([w], [hidden, g, last, h, b, X])
    wv = np.ones((3, 10), np.float32)
    got_hidden, got_g, got_last, hv, bv, xv = f(wv)

    def hidden_by_numpy(wv):
        c, out = np.zeros(3), []
        for t in range(t_steps):
            c = 1 / (1 + np.exp(-(wv @ xv[t] + c @ hv + bv)))
            out.append(c)
        return np.array(out)

    np.testing.assert_allclose(got_hidden, hidden_by_numpy(wv.astype(np.float64)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_last, got_hidden[-1])
    eps, numeric = 1e-6, np.zeros((3, 10))
    for i in np.ndindex(3, 10):
        d = np.zeros((3, 10))
        d[i] = eps
        numeric[i] = (hidden_by_numpy(wv + d).sum() - hidden_by_numpy(wv - d).sum()) / (2 * eps)
    np.testing.assert_allclose(got_g, numeric, rtol=1e-4, atol=1e-4)
    # a second call draws new numbers
    assert not np.array_equal(f(wv)[5], xv)


def test_gallery_plot_loops():
    signal = sx.placeholder((512,), "float32", name="signal")
    alpha = sx.placeholder((), "float32", name="alpha")

    def fn(at, xt, alpha):
        ema = at * alpha + (1 - alpha) * xt
        return ema, ema

    last_ema, all_ema = sx.scan(fn, init=signal[0], sequences=[signal[1:]], non_sequences=[alpha])
    f = sx.function([signal, alpha], [all_ema])
    x = (np.cos(np.linspace(-3, 3, 512)) + np.random.default_rng(0).normal(size=512) * 0.2).astype(np.float32)
    for a in (0.1, 0.5, 0.9):
        ema, want = x[0].astype(np.float64), []
        for xt in x[1:]:
            ema = ema * a + (1 - a) * xt
            want.append(ema)
        np.testing.assert_allclose(f(x, np.float32(a))[0], want, rtol=1e-4, atol=1e-5)

    # a simple moving average: a map of mean over the windows (SymJAX's extract_signal_patches(signal,
    # 10) with a hop of 1, written as a gather)
    windowed = sx.take(signal, np.arange(512 - 10 + 1)[:, None] + np.arange(10))
    output = sx.map(lambda window: sx.mean(window), sequences=[windowed])
    f = sx.function([signal], [output])
    np.testing.assert_allclose(f(x)[0], np.convolve(x, np.ones(10) / 10, mode="valid"), rtol=1e-5, atol=1e-6)


# gallery/01_nns/plot_rnn.py: its RNN and GRU layers (SymJAX's nn.layers.RNN / GRU with the
# "minimal" gate) written with sx.scan as SymJAX's layers write them, with weights from a seeded
# generator so that NumPy can run the same network.
BATCH_SIZE, TIME, WIDTH, C = 8, 16, 8, 1


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


class Weights:
    def __init__(self, rng, shapes, name):
        self.values = {k: (rng.normal(size=s) * 0.4).astype(np.float32) for k, s in shapes.items()}
        self.vars = {k: sx.variable(v, name=f"{name}/{k}") for k, v in self.values.items()}


def rnn_layer(sequence, init_h, weights):
    W, H, b = (weights.vars[k] for k in ("W", "H", "b"))
    _, output = sx.scan(
        lambda h, x, W, H, b: (sx.sigmoid(x @ W + b + h @ H),) * 2,
        init=init_h,
        sequences=[sequence.transpose((1, 0, 2))],
        non_sequences=[W, H, b],
    )
    return output.transpose((1, 0, 2))


def gru_layer(sequence, init_h, weights):
    def minimal_gate(h, x, Wh, Uh, bh, Wz, Uz, bz):
        ft = sx.sigmoid(x @ Wz + bz + h @ Uz)
        h_hat = sx.tanh(x @ Wh + bh + (h * ft) @ Uh)
        ht = (1 - ft) * h + ft * h_hat
        return ht, ht

    _, output = sx.scan(
        minimal_gate,
        init=init_h,
        sequences=[sequence.transpose((1, 0, 2))],
        non_sequences=[weights.vars[k] for k in ("Wh", "Uh", "bh", "Wz", "Uz", "bz")],
    )
    return output.transpose((1, 0, 2))


def rnn_numpy(seq, v):
    h, out = np.zeros((seq.shape[0], WIDTH)), []
    for t in range(seq.shape[1]):
        h = sigmoid(seq[:, t] @ v["W"] + v["b"] + h @ v["H"])
        out.append(h)
    return np.stack(out, 1)


def gru_numpy(seq, v):
    h, out = np.zeros((seq.shape[0], WIDTH)), []
    for t in range(seq.shape[1]):
        x = seq[:, t]
        ft = sigmoid(x @ v["Wz"] + v["bz"] + h @ v["Uz"])
        h_hat = np.tanh(x @ v["Wh"] + v["bh"] + (h * ft) @ v["Uh"])
        h = (1 - ft) * h + ft * h_hat
        out.append(h)
    return np.stack(out, 1)


def test_gallery_plot_rnn():
    rng = np.random.default_rng(0)
    timeseries = sx.placeholder((BATCH_SIZE, TIME, C), "float32", name="time-series")
    target = sx.placeholder((BATCH_SIZE, TIME), "float32", name="target")

    def shapes(inputs):
        return {"W": (inputs, WIDTH), "H": (WIDTH, WIDTH), "b": (WIDTH,)}

    def gru_shapes(inputs):
        return {f"{p}{g}": s for g in "hz" for p, s in (("W", (inputs, WIDTH)), ("U", (WIDTH, WIDTH)), ("b", (WIDTH,)))}

    zeros_h = np.zeros((BATCH_SIZE, WIDTH), np.float32)
    r1, r2 = Weights(rng, shapes(C), "rnn1"), Weights(rng, shapes(WIDTH), "rnn2")
    rd = Weights(rng, {"w": (WIDTH, 1), "b": (1,)}, "rnn_dense")
    g1, g2 = Weights(rng, gru_shapes(C), "gru1"), Weights(rng, gru_shapes(WIDTH), "gru2")
    gd = Weights(rng, {"w": (WIDTH, 1), "b": (1,)}, "gru_dense")

    rnn = rnn_layer(timeseries, zeros_h, r1)
    rnn = rnn_layer(rnn, zeros_h, r2)
    rnn = rnn @ rd.vars["w"] + rd.vars["b"]  # Dense(rnn, 1, flatten=False)
    gru = gru_layer(timeseries, zeros_h, g1)
    gru = gru_layer(gru, zeros_h, g2)
    gru = gru @ gd.vars["w"] + gd.vars["b"]

    loss = ((target - rnn[:, :, 0]) ** 2).mean()
    lossg = ((target - gru[:, :, 0]) ** 2).mean()
    lr = sx.optim.schedules.piecewise_constant([1000, 1800], [0.01, 0.005, 0.001])
    sx.optim.Adam(lr).minimize(loss + lossg)
    train = sx.function([timeseries, target], [loss, lossg], updates=sx.get_updates())
    predict = sx.function([timeseries], [rnn[:, :, 0], gru[:, :, 0]])

    n = BATCH_SIZE * 6
    x = [rng.normal(size=TIME) * 0.1 + np.cos(shift + np.linspace(-5, 10, TIME)) for shift in rng.normal(size=n) * 0.3]
    w = rng.normal(size=TIME) * 0.01
    y = np.stack([(w + np.roll(xi, 2) * 0.4) ** 3 for xi in x])
    x = np.stack(x)[:, :, None]
    x /= np.linalg.norm(x, 2, 1, keepdims=True)
    x -= x.min()
    y /= np.linalg.norm(y, 2, 1, keepdims=True)
    x, y = x.astype(np.float32), y.astype(np.float32)

    # the prediction and the first step's losses against the same network in NumPy
    xb, yb = x[:BATCH_SIZE], y[:BATCH_SIZE]
    want_rnn = rnn_numpy(rnn_numpy(xb, r1.values), r2.values) @ rd.values["w"] + rd.values["b"]
    want_gru = gru_numpy(gru_numpy(xb, g1.values), g2.values) @ gd.values["w"] + gd.values["b"]
    got_rnn, got_gru = predict(xb)
    np.testing.assert_allclose(got_rnn, want_rnn[:, :, 0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_gru, want_gru[:, :, 0], rtol=1e-4, atol=1e-5)
    losses = [train(xb, yb)]
    np.testing.assert_allclose(
        losses[0], [((yb - want_rnn[:, :, 0]) ** 2).mean(), ((yb - want_gru[:, :, 0]) ** 2).mean()], rtol=1e-4
    )
    for _epoch in range(5):
        for start in range(0, n, BATCH_SIZE):
            losses.append(train(x[start : start + BATCH_SIZE], y[start : start + BATCH_SIZE]))
    losses = np.array(losses)
    assert np.all(np.isfinite(losses))
    # Adam lowers both losses: the last epoch's mean is below the first's
    first, last = losses[1 : 1 + n // BATCH_SIZE].mean(0), losses[-n // BATCH_SIZE :].mean(0)
    assert np.all(last < first), (first, last)


def test_gallery_plot_interpolation():
    # gallery/plot_interpolation.py (issue 22): upsample_1d of w = [1, 2, 3] by 4, four ways,
    # through one compiled function; the expected samples written out by hand (the plot's crosses).
    w = sx.placeholder((3,), "float32", name="w")
    w_interp1 = sx.interpolation.upsample_1d(w, repeat=4, mode="nearest")
    w_interp2 = sx.interpolation.upsample_1d(w, repeat=4, mode="linear", boundary_condition="mirror")
    w_interp3 = sx.interpolation.upsample_1d(w, repeat=4, mode="linear", boundary_condition="periodic")
    w_interp4 = sx.interpolation.upsample_1d(w, repeat=4)
    f = sx.function([w], [w_interp1, w_interp2, w_interp3, w_interp4])
    samples = f(np.array([1, 2, 3], np.float32))
    np.testing.assert_array_equal(samples[0], [1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 1, 1])
    ramp = np.array([0.2, 0.4, 0.6, 0.8])
    np.testing.assert_allclose(samples[1], np.concatenate([[1], 1 + ramp, [2], 2 + ramp, [3], 3 - ramp]), rtol=1e-6)
    np.testing.assert_allclose(samples[2], np.concatenate([[1], 1 + ramp, [2], 2 + ramp, [3], 3 - 2 * ramp]), rtol=1e-6)
    np.testing.assert_array_equal(samples[3], [1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0])
    # the plot's black dots: the original samples sit at 0, 5, 10 in every upsampled signal but the
    # nearest one (rolled by -repeat // 2 = -2)
    for s in samples[1:]:
        np.testing.assert_allclose(s[[0, 5, 10]], [1, 2, 3])


def _scales(J=5, Q=4):
    # SymJAX's scales = T.power(2, T.linspace(0.1, J - 1, J * Q))[:, None]
    return sx.power(2, sx.linspace(0.1, J - 1, J * Q))[:, None]


def test_gallery_plot_wavelets():
    # gallery/03_sp/plot_wavelets.py (issue 22): a Morlet filter bank in time and in frequency, as written
    # (J = 5, Q = 4), through symx.function with no inputs; the references are SymJAX's formulas in NumPy.
    J, Q = 5, 4
    scales = _scales(J, Q)
    wavelet = sx.signal.complex_morlet(5 * scales, np.pi / scales)
    waveletw = sx.signal.fourier_complex_morlet(5 * scales, np.pi / scales, wavelet.shape[-1])
    f = sx.function([], [wavelet, waveletw])
    wavelet, waveletw = f()
    s = (2.0 ** np.linspace(0.1, J - 1, J * Q))[:, None]
    B = int(6 * (5 * s).max() + 1)
    t = np.linspace(-(B // 2), B // 2, B)
    want = np.exp(-((t / (5 * s)) ** 2)) * np.exp(1j * (np.pi / s) * t)
    assert wavelet.shape == (J * Q, B) and wavelet.dtype == np.complex64
    np.testing.assert_allclose(wavelet, want, atol=2e-5)
    w = np.linspace(0, 2 * np.pi, B)
    want_w = np.exp(-((w - np.pi / s) ** 2) * (5 * s) ** 2 / 4) * (w <= np.pi)
    assert waveletw.shape == (J * Q, B)
    np.testing.assert_allclose(np.real(waveletw), want_w, atol=2e-5)


def test_examples_wavelets():
    # examples/wavelets.py: the bank, its Fourier form, the Littlewood-Paley normalized bank, and the plots'
    # spectra (np.fft of ifftshift of each wavelet) computed with symx.fft instead.
    scales = _scales()
    wavelet = sx.signal.complex_morlet(5 * scales, np.pi / scales)
    waveletw = sx.signal.fourier_complex_morlet(5 * scales, np.pi / scales, wavelet.shape[-1])
    waveletlp = sx.signal.littewood_paley_normalization(waveletw, down=np.pi / scales[-1, 0].eval())
    spectra = sx.fft.fft(sx.fft.ifftshift(wavelet, axes=(-1,)), axis=-1)
    back = sx.fft.fftshift(sx.fft.ifft(waveletlp, axis=-1), axes=(-1,))
    wavelet_v, waveletw_v, lp, spectra_v, back_v = sx.function([], [wavelet, waveletw, waveletlp, spectra, back])()
    np.testing.assert_allclose(spectra_v, np.fft.fft(np.fft.ifftshift(wavelet_v, axes=-1)), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(back_v, np.fft.fftshift(np.fft.ifft(lp), axes=-1), rtol=1e-4, atol=1e-5)
    # the Littlewood-Paley sum (the plot's green line) is 1 where the normalization applies
    total = np.abs(lp).sum(0)
    w = np.linspace(0, 2 * np.pi, lp.shape[-1])
    s_last = 2.0 ** (5 - 1)
    inside = (w >= np.pi / s_last) & (w <= np.pi) & (np.abs(waveletw_v).sum(0) > 1e-6)
    np.testing.assert_allclose(total[inside], 1, rtol=1e-4)

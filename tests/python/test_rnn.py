"""symx.nn.layers.RNN, GRU and LSTM: outputs, final states and gradients against PyTorch (golden files
written by tests/golden/golden_rnn.py, float64, 1e-10 relative) by eval() and by a compiled function;
PyTorch's tuples from call(), return_sequences, dropout between layers, the input product hoisted
out of the loop, unknown batch sizes, and the errors."""

import numpy as np
import pytest

import symx as sx
from goldens import load_golden
from symx.nn import layers as L

RTOL = 1e-10

pytestmark = pytest.mark.usefixtures("fresh_graph")

# golden_rnn.py's CASES: (module, nonlinearity, num_layers, bidirectional, batch_first)
CASES = {
    "tanh": ("RNN", "tanh", 1, False, False),
    "relu_2layers": ("RNN", "relu", 2, False, True),
    "gru": ("GRU", None, 1, False, True),
    "lstm": ("LSTM", None, 1, False, True),
    "lstm_2layers_bidir": ("LSTM", None, 2, True, False),
    "gru_2layers_bidir": ("GRU", None, 2, True, True),
    "tanh_bidir_h0": ("RNN", "tanh", 1, True, True),
    "gru_h0": ("GRU", None, 2, False, False),
    "lstm_h0": ("LSTM", None, 2, False, True),
    "tanh_lengths": ("RNN", "tanh", 1, False, True),
    "gru_lengths_bidir": ("GRU", None, 2, True, False),
    "lstm_lengths_bidir": ("LSTM", None, 2, True, True),
}


def close(actual, expected, what):
    expected = np.asarray(expected)
    scale = max(np.abs(expected).max(), 1e-300)
    np.testing.assert_allclose(actual, expected, rtol=0, atol=RTOL * scale, err_msg=what)


def make(case, **options):
    kind, nonlinearity, num_layers, bidirectional, batch_first = CASES[case]
    kw = dict(num_layers=num_layers, bidirectional=bidirectional, batch_first=batch_first, **options)
    if kind == "RNN":
        return L.RNN(3, nonlinearity=nonlinearity, **kw)
    return getattr(L, kind)(3, **kw)


def set_weights(layer, data):
    for v in layer.variables():
        v.assign(data[v.name.split("/")[-1]])


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_torch_by_eval_and_compiled(case):
    data = load_golden("rnn_" + case)
    layer = make(case)
    x = sx.placeholder(data["x"].shape, sx.float64, name="x")
    feed = {x: data["x"]}
    inputs, kwargs = [x], {}
    for k in ("h0", "c0"):
        if k in data:
            kwargs[k] = sx.placeholder(data[k].shape, sx.float64, name=k)
            feed[kwargs[k]] = data[k]
            inputs.append(kwargs[k])
    if "lengths" in data:
        kwargs["lengths"] = sx.placeholder(data["lengths"].shape, sx.int64, name="lengths")
        feed[kwargs["lengths"]] = data["lengths"]
    if CASES[case][0] == "LSTM":
        output, (h_n, c_n) = layer.call(x, **kwargs)
        states = [("h_n", h_n), ("c_n", c_n)]
    else:
        output, h_n = layer.call(x, **kwargs)
        states = [("h_n", h_n)]
    set_weights(layer, data)
    weights = layer.variables()
    loss = sx.sum(output * sx.constant(data["r_output"]))
    for name, s in states:
        loss = loss + sx.sum(s * sx.constant(data["r_" + name]))
    grads = sx.grad(loss, inputs + weights)
    keys = ["output"] + [n for n, _ in states] + ["d_" + t.name.split("/")[-1] for t in inputs + weights]
    outputs = [output] + [s for _, s in states] + grads
    compiled = sx.function(list(feed), outputs)(*feed.values())
    for key, tensor, value in zip(keys, outputs, compiled):
        close(tensor.eval(feed), data[key], "eval " + key)
        close(value, data[key], "compiled " + key)


def test_variables_names_layout_and_torch_initialization():
    lstm = L.LSTM(4, num_layers=2, bidirectional=True)
    assert lstm(sx.placeholder((2, 5, 3))).shape == (2, 5, 8)
    names = [v.name for v in lstm.variables()]
    assert names[:5] == [
        "lstm/weight_ih_l0",
        "lstm/weight_hh_l0",
        "lstm/bias_ih_l0",
        "lstm/bias_hh_l0",
        "lstm/weight_ih_l0_reverse",
    ]
    assert len(names) == 16 and names[8] == "lstm/weight_ih_l1"
    assert lstm.variables()[8].shape == (16, 8)
    values = np.concatenate([v.value.ravel() for v in lstm.variables()])
    assert values.min() >= -0.5 and values.max() <= 0.5 and values.min() < -0.4 and values.max() > 0.4
    assert (lstm.hidden_size, lstm.num_layers, lstm.bidirectional, lstm.batch_first) == (4, 2, True, True)
    # Time first, as PyTorch's default layout.
    gru = L.GRU(6, batch_first=False, use_bias=False)
    assert gru(sx.placeholder((7, 2, 3))).shape == (7, 2, 6)
    assert [v.shape for v in gru.variables()] == [(18, 3), (18, 6)]


def test_return_sequences_false_gives_the_last_step_and_call_returns_states():
    data = load_golden("rnn_lstm_lengths_bidir")
    lstm = L.LSTM(3, num_layers=2, bidirectional=True, return_sequences=False)
    x = sx.constant(data["x"])
    out, (h_n, c_n) = lstm.call(x, h0=data["h0"], c0=data["c0"], lengths=data["lengths"])
    set_weights(lstm, data)
    assert out.shape == (3, 6)
    close(out.eval(), np.concatenate([data["h_n"][2], data["h_n"][3]], axis=1), "output")
    close(c_n.eval(), data["c_n"], "c_n")
    np.testing.assert_array_equal(lstm(x).eval(), lstm.call(x)[0].eval())


def test_dropout_between_layers_in_training_only():
    data = load_golden("rnn_relu_2layers")
    rnn = L.RNN(3, nonlinearity="relu", num_layers=2, dropout=0.5)
    x = sx.constant(data["x"])
    train_out, train_h = rnn.call(x, training=True)
    eval_out = rnn(x, training=False)
    set_weights(rnn, data)
    close(eval_out.eval(), data["output"], "eval")
    f = sx.function([], [train_h, train_out])
    (h_a, out_a), (_, out_b) = f(), f()
    np.testing.assert_allclose(h_a[0], data["h_n"][0], atol=1e-12)  # the first layer is not dropped
    assert not np.allclose(out_a, data["output"])
    assert not np.allclose(out_a, out_b)  # fresh masks per call


def test_input_product_is_hoisted_out_of_the_loop():
    x = sx.placeholder((4, 10, 6), name="x")
    text = sx.function([x], [L.LSTM(8)(x)]).describe()
    kernels = text.split("kernels:")[1]
    assert "scan of 10 steps" in kernels
    assert "matmul" in kernels, text  # x_t @ weight_ih^T for every step at once, outside the scan


def test_unknown_batch_and_lengths():
    gru = L.GRU(4)
    x = sx.placeholder((None, 5, 3), sx.float64, name="x")
    lengths = sx.placeholder((None,), sx.int64, name="lengths")
    out, h_n = gru.call(x, lengths=lengths)
    f = sx.function([x, lengths], [out, h_n])
    xv = np.random.default_rng(0).standard_normal((2, 5, 3))
    y, h = f(xv, np.array([5, 2]))
    assert y.shape == (2, 5, 4) and h.shape == (1, 2, 4)
    np.testing.assert_array_equal(y[1, 2:], 0)
    np.testing.assert_array_equal(h[0, 1], y[1, 1])
    np.testing.assert_array_equal(h[0, 0], y[0, 4])
    # The short sequence's outputs do not depend on its padding.
    xv2 = xv.copy()
    xv2[1, 2:] = 100
    y2, h2 = f(xv2, np.array([5, 2]))
    np.testing.assert_array_equal(y2, y)
    np.testing.assert_array_equal(h2, h)


def test_errors():
    with pytest.raises(ValueError, match="nonlinearity 'sigmoid' is unknown"):
        L.RNN(4, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="dropout must be in"):
        L.LSTM(4, dropout=1.0)
    lstm = L.LSTM(4, num_layers=2)
    x = sx.placeholder((2, 5, 3))
    with pytest.raises(sx.ShapeError, match=r"LSTM 'lstm'.*3 axes \(N, T, F\)"):
        lstm(sx.placeholder((2, 3)))
    with pytest.raises(sx.ShapeError, match=r"initial state h0.*expected.*\(2, 2, 4\)"):
        lstm.call(x, h0=np.zeros((1, 2, 4), np.float32))
    with pytest.raises(sx.ShapeError, match="lengths"):
        lstm.call(x, lengths=np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="only an LSTM has a cell state"):
        L.GRU(4).call(x, c0=np.zeros((1, 2, 4), np.float32))

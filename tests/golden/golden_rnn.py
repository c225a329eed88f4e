"""Golden files of the recurrent layers (symx.nn.layers.RNN, GRU, LSTM): PyTorch modules, float64.

Each case writes rnn_<case>.npz with the input `x` (in the layout the case gives the layer: batch
first or time first), the weights under PyTorch's names (weight_ih_l0, weight_hh_l0, bias_ih_l0,
bias_hh_l0, ..._reverse), which are also symx's names and layouts, the initial states `h0` (and
`c0`) when the case passes them, the sequence lengths `lengths` when the case has variable-length
sequences (run through pack_padded_sequence: outputs past a sequence's length are zeros and h_n is
the state at its last step), the expected `output`, `h_n` (and `c_n`), random upstream gradients
`r_output`, `r_h_n` (and `r_c_n`), and the gradients `d_<name>` of
sum(output * r_output) + sum(h_n * r_h_n) [+ sum(c_n * r_c_n)] with respect to x, h0, c0 and every
weight. The module's options are in the tests' table of cases (tests/toolkit/test_rnn.cpp,
tests/python/test_rnn.py).
"""

import os

import numpy as np
import torch

torch.set_default_dtype(torch.float64)

# name: (module, nonlinearity, num_layers, bidirectional, batch_first, with h0/c0, with lengths)
CASES = {
    "tanh": ("RNN", "tanh", 1, False, False, False, False),
    "relu_2layers": ("RNN", "relu", 2, False, True, False, False),
    "gru": ("GRU", None, 1, False, True, False, False),
    "lstm": ("LSTM", None, 1, False, True, False, False),
    "lstm_2layers_bidir": ("LSTM", None, 2, True, False, False, False),
    "gru_2layers_bidir": ("GRU", None, 2, True, True, False, False),
    "tanh_bidir_h0": ("RNN", "tanh", 1, True, True, True, False),
    "gru_h0": ("GRU", None, 2, False, False, True, False),
    "lstm_h0": ("LSTM", None, 2, False, True, True, False),
    "tanh_lengths": ("RNN", "tanh", 1, False, True, False, True),
    "gru_lengths_bidir": ("GRU", None, 2, True, False, True, True),
    "lstm_lengths_bidir": ("LSTM", None, 2, True, True, True, True),
}

BATCH, STEPS, INPUT, HIDDEN = 3, 5, 4, 3
LENGTHS = [5, 2, 4]  # unsorted: pack_padded_sequence(enforce_sorted=False)


def _case(out_dir, name, rng, kind, nonlinearity, num_layers, bidirectional, batch_first, with_h0, with_lengths):
    kwargs = {"nonlinearity": nonlinearity} if kind == "RNN" else {}
    module = getattr(torch.nn, kind)(
        INPUT, HIDDEN, num_layers=num_layers, bidirectional=bidirectional, batch_first=batch_first, **kwargs
    )
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.tensor(rng.uniform(-0.8, 0.8, p.shape)))
    shape = (BATCH, STEPS, INPUT) if batch_first else (STEPS, BATCH, INPUT)
    x = torch.tensor(rng.standard_normal(shape), requires_grad=True)
    dirs = 2 if bidirectional else 1
    inputs = {"x": x}
    state = None
    if with_h0:
        h0 = torch.tensor(rng.standard_normal((dirs * num_layers, BATCH, HIDDEN)), requires_grad=True)
        inputs["h0"] = h0
        state = h0
        if kind == "LSTM":
            c0 = torch.tensor(rng.standard_normal((dirs * num_layers, BATCH, HIDDEN)), requires_grad=True)
            inputs["c0"] = c0
            state = (h0, c0)
    elif kind == "LSTM":
        state = None
    if with_lengths:
        packed = torch.nn.utils.rnn.pack_padded_sequence(x, LENGTHS, batch_first=batch_first, enforce_sorted=False)
        out_packed, final = module(packed, state)
        output, _ = torch.nn.utils.rnn.pad_packed_sequence(out_packed, batch_first=batch_first, total_length=STEPS)
    else:
        output, final = module(x, state)
    h_n, c_n = final if kind == "LSTM" else (final, None)
    r_output = rng.standard_normal(tuple(output.shape))
    r_h_n = rng.standard_normal(tuple(h_n.shape))
    loss = (output * torch.tensor(r_output)).sum() + (h_n * torch.tensor(r_h_n)).sum()
    out = {"output": output, "h_n": h_n, "r_output": r_output, "r_h_n": r_h_n}
    if c_n is not None:
        r_c_n = rng.standard_normal(tuple(c_n.shape))
        loss = loss + (c_n * torch.tensor(r_c_n)).sum()
        out.update({"c_n": c_n, "r_c_n": r_c_n})
    loss.backward()
    for k, v in inputs.items():
        out[k] = v
        out["d_" + k] = v.grad
    for k, p in module.named_parameters():
        out[k] = p
        out["d_" + k] = p.grad
    if with_lengths:
        out["lengths"] = np.asarray(LENGTHS, dtype=np.int64)
    arrays = {k: (v.detach().numpy() if isinstance(v, torch.Tensor) else np.asarray(v)) for k, v in out.items()}
    np.savez(os.path.join(out_dir, "rnn_%s.npz" % name), **arrays)


def make(out_dir):
    rng = np.random.default_rng(20)
    for name, spec in CASES.items():
        _case(out_dir, name, rng, *spec)

"""The paper-cnn side-by-side harness (bench/paper_cnn.py) and its PyTorch twin
(bench/paper_cnn_torch.py). The harness is driven by a fake `symx` tool written here, whose metrics
are known, so the summary is checked against values worked out by hand; nothing here needs
PyTorch except the twin's own tests, which skip without it. No timing is asserted."""

import json
import os
import stat
import sys

import numpy as np
import pytest

from helpers import MNIST, ROOT

sys.path.insert(0, os.path.join(ROOT, "bench"))

import paper_cnn  # noqa: E402
import paper_cnn_torch  # noqa: E402

# The fake tool: writes metrics.jsonl with val_accuracy 0.9 + 0.01 * epoch, seconds 2 * epoch,
# step_seconds = epoch, and records its arguments; `train --help` lists --threads; FAKE_SYMX_EXIT makes it fail.
FAKE_SYMX = """#!%s
import json, os, sys
args = sys.argv[1:]
if "--help" in args:
    print("symx train [--model M] ... [--threads N]")
    sys.exit(0)
if os.environ.get("FAKE_SYMX_EXIT"):
    print("fake symx: failing on purpose")
    sys.exit(int(os.environ["FAKE_SYMX_EXIT"]))
out = args[args.index("--out") + 1]
epochs = int(args[args.index("--epochs") + 1])
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "argv.json"), "w") as f:
    json.dump(args, f)
with open(os.path.join(out, "metrics.jsonl"), "w") as f:
    for e in range(1, epochs + 1):
        f.write(json.dumps({"epoch": e, "train_loss": 1.0 / e, "train_accuracy": 0.9, "val_loss": 0.5 / e,
                            "val_accuracy": 0.9 + 0.01 * e, "seconds": 2.0 * e, "step_seconds": 1.0 * e,
                            "items_per_second": 7000 / (2.0 * e), "lr": 0.005}) + "\\n")
print("fake symx: done")
"""


@pytest.fixture
def fake_symx(tmp_path):
    path = tmp_path / "symx"
    path.write_text(FAKE_SYMX % sys.executable)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def run_harness(tmp_path, *extra):
    out = tmp_path / "bench" / "paper_cnn.json"
    rc = paper_cnn.main(["--frameworks", "symx", "--out", str(out), *extra])
    with open(out) as f:
        return rc, json.load(f), out


def test_harness_summarizes_the_symx_runs(tmp_path, fake_symx, capsys):
    rc, res, out = run_harness(tmp_path, "--symx", fake_symx, "--epochs", "3", "--seeds", "0,5", "--threads", "1")
    assert rc == 0
    s = res["summary"]["symx"]
    assert s["runs"] == 2 and s["seeds"] == [0, 5]
    assert s["final_val_accuracy"] == pytest.approx(0.93)  # epoch 3 of each seed
    assert s["best_val_accuracy"] == pytest.approx(0.93)
    assert s["last_epochs_val_accuracy"] == pytest.approx(0.92)  # epochs 1-3: 0.91, 0.92, 0.93
    assert s["median_epoch_s"] == pytest.approx(4.0)  # median of 2, 4, 6, 2, 4, 6
    assert s["median_step_s"] == pytest.approx(2.0)
    assert s["first_epoch_s"] == pytest.approx(2.0)
    assert s["min_epoch_s"] == pytest.approx(2.0)
    assert res["comparison"]["target_accuracy_met"] is False  # 93% < 98%
    assert "epoch_time_ratio" not in res["comparison"]  # no torch run
    # the tool was called with the paper-cnn recipe and a fresh run folder per seed
    with open(os.path.join(ROOT, res["runs"][1]["run_dir"], "argv.json")) as f:
        argv = json.load(f)
    for flag, value in (
        ("--model", "paper-cnn"),
        ("--data", "mnist"),
        ("--epochs", "3"),
        ("--batch-size", "32"),
        ("--seed", "5"),
        ("--log", "lines"),
        ("--threads", "1"),
    ):
        assert argv[argv.index(flag) + 1] == value
    assert (out.parent / "paper_cnn.md").exists()
    assert "93.00%" in capsys.readouterr().out


def test_harness_compares_against_torch_by_hand():
    runs = [
        {
            "framework": "symx",
            "seed": 0,
            "ok": True,
            "metrics": [
                {"epoch": 1, "val_accuracy": 0.97, "seconds": 3.0, "step_seconds": 2.0},
                {"epoch": 2, "val_accuracy": 0.985, "seconds": 2.0, "step_seconds": 1.5},
            ],
        },
        {
            "framework": "torch",
            "seed": 0,
            "ok": True,
            "metrics": [
                {"epoch": 1, "val_accuracy": 0.975, "seconds": 5.0, "step_seconds": 4.0},
                {"epoch": 2, "val_accuracy": 0.981, "seconds": 5.0, "step_seconds": 4.0},
            ],
        },
    ]
    summary = {fw: paper_cnn.summarize(runs, fw) for fw in ("symx", "torch")}
    cmp = paper_cnn.compare(summary)
    assert cmp["epoch_time_ratio"] == pytest.approx(2.5 / 5.0)
    assert cmp["step_time_ratio"] == pytest.approx(1.75 / 4.0)
    assert cmp["fastest_epoch_time_ratio"] == pytest.approx(2.0 / 5.0)
    assert cmp["final_accuracy_diff_points"] == pytest.approx(0.4)
    assert cmp["best_accuracy_diff_points"] == pytest.approx(0.4)
    assert cmp["last_epochs_accuracy_diff_points"] == pytest.approx(100 * ((0.97 + 0.985) / 2 - (0.975 + 0.981) / 2))
    assert cmp["target_epoch_time_met"] and cmp["target_accuracy_diff_met"] and cmp["target_accuracy_met"]
    runs[0]["metrics"][1]["val_accuracy"] = 0.975
    cmp = paper_cnn.compare({fw: paper_cnn.summarize(runs, fw) for fw in ("symx", "torch")})
    assert cmp["final_accuracy_diff_points"] == pytest.approx(-0.6)
    assert not cmp["target_accuracy_diff_met"] and not cmp["target_accuracy_met"]
    runs[0]["metrics"][1]["val_accuracy"] = 0.976  # exactly 0.5 points below: within the target
    cmp = paper_cnn.compare({fw: paper_cnn.summarize(runs, fw) for fw in ("symx", "torch")})
    assert cmp["final_accuracy_diff_points"] == pytest.approx(-0.5) and cmp["target_accuracy_diff_met"]


def test_harness_reports_a_missing_tool(tmp_path):
    rc, res, _ = run_harness(tmp_path, "--symx", str(tmp_path / "nope" / "symx"), "--epochs", "1")
    assert rc == 1
    assert res["summary"]["symx"] is None
    assert "no symx tool at" in res["runs"][0]["error"] and "symx_tool" in res["runs"][0]["error"]


def test_harness_reports_a_failing_tool(tmp_path, fake_symx, monkeypatch):
    monkeypatch.setenv("FAKE_SYMX_EXIT", "3")
    rc, res, _ = run_harness(tmp_path, "--symx", fake_symx, "--epochs", "1")
    assert rc == 1
    err = res["runs"][0]["error"]
    assert "exit code 3" in err and "failing on purpose" in err


def test_harness_names_a_bad_metrics_file(tmp_path):
    path = tmp_path / "metrics.jsonl"
    path.write_text('{"epoch": 1, "val_accuracy": 0.9}\n')
    with pytest.raises(ValueError, match="metrics.jsonl line 1: missing seconds"):
        paper_cnn.read_metrics(str(path))


def test_twin_normalizes_each_image_by_its_maximum():
    x = np.array([[[[0, 2], [4, 1]]], [[[0, 0], [0, 0]]], [[[255, 51], [0, 0]]]], np.uint8)
    y = paper_cnn_torch.normalize(x)
    want = np.array([[[[0, 0.5], [1, 0.25]]], [[[0, 0], [0, 0]]], [[[1, 0.2], [0, 0]]]], np.float32)
    np.testing.assert_allclose(y, want, rtol=1e-6)
    assert y.dtype == np.float32


def test_twin_numpy_split_of_the_bundled_digits():
    (xt, yt), (xv, yv) = paper_cnn_torch._numpy_split(MNIST, 0)
    assert xt.shape == (7000, 1, 28, 28) and xv.shape == (1000, 1, 28, 28)
    assert yt.shape == (7000,) and yv.shape == (1000,) and set(np.unique(yv)) == set(range(10))
    # a partition of the 8,000: the same (image, label) pairs as the files, each once
    x = paper_cnn_torch._read_idx(os.path.join(MNIST, "train-images-idx3-ubyte.gz")).reshape(8000, -1)
    y = paper_cnn_torch._read_idx(os.path.join(MNIST, "train-labels-idx1-ubyte.gz"))
    got = sorted(
        r.tobytes() + bytes([int(label)])
        for r, label in zip(np.concatenate([xt, xv]).reshape(8000, -1), np.concatenate([yt, yv]))
    )
    assert got == sorted(r.tobytes() + bytes([int(label)]) for r, label in zip(x, y))


def test_twin_crop_is_a_window_of_the_zero_padded_image():
    torch = pytest.importorskip("torch")
    gen = torch.Generator().manual_seed(0)
    x = torch.arange(64 * 2 * 5 * 6, dtype=torch.float32).reshape(64, 2, 5, 6) + 1
    y = paper_cnn_torch.random_crop(torch, x, 2, gen)
    xp = np.pad(x.numpy(), ((0, 0), (0, 0), (2, 2), (2, 2)))
    offsets = set()
    for i in range(64):
        hits = [
            (t, left)
            for t in range(5)
            for left in range(5)
            if np.array_equal(xp[i, :, t : t + 5, left : left + 6], y[i].numpy())
        ]
        assert len(hits) == 1, "image %d is not one window of its padded image" % i
        offsets.add(hits[0])
    assert len(offsets) > 10  # offsets drawn per image, not one for the batch


def test_twin_initialization_mirrors_symx():
    torch = pytest.importorskip("torch")
    model = paper_cnn_torch.build_model(torch, (1, 28, 28), 0)
    convs = [m for m in model if isinstance(m, torch.nn.Conv2d)]
    dense = [m for m in model if isinstance(m, torch.nn.Linear)]
    bns = [m for m in model if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d))]
    # Glorot uniform: limit sqrt(6 / (fan_in + fan_out)); kernel fans are channels * 3 * 3
    for m, fan_in, fan_out in ((convs[0], 9, 288), (convs[1], 288, 576), (dense[0], 1600, 128), (dense[1], 128, 10)):
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        w = m.weight.detach().numpy()
        assert np.abs(w).max() <= limit and np.abs(w).max() > 0.9 * limit
        assert np.all(m.bias.detach().numpy() == 0)
    for m in bns:
        assert m.momentum == 0.1 and m.eps == 1e-5
        assert np.all(m.weight.detach().numpy() == 1) and np.all(m.bias.detach().numpy() == 0)
    assert [paper_cnn_torch.learning_rate(e) for e in (0, 49, 50, 74, 75, 99)] == [
        0.005,
        0.005,
        0.001,
        0.001,
        0.0005,
        0.0005,
    ]


def test_twin_takes_symx_split_when_available():
    sx = pytest.importorskip("symx")
    if not hasattr(sx.data, "train_test_split") or not hasattr(sx.data, "load_mnist"):
        pytest.skip("symx.data has no load_mnist/train_test_split in this build")
    (xt, yt), (xv, yv), note = paper_cnn_torch.load_split(MNIST, 3, "symx")
    assert note.startswith("symx.data.train_test_split")
    train, val = sx.data.train_test_split(sx.data.load_mnist(MNIST), 1000, 3)
    np.testing.assert_array_equal(xv, np.asarray(val.x))
    np.testing.assert_array_equal(yt, np.asarray(train.y))
    assert xt.shape == (7000, 1, 28, 28) and xv.shape == (1000, 1, 28, 28)


def test_harness_runs_the_recurrent_models_with_their_recipe(tmp_path, fake_symx):
    out = tmp_path / "bench" / "gru.json"
    rc = paper_cnn.main(
        ["--model", "gru", "--frameworks", "symx", "--symx", fake_symx, "--epochs", "2", "--out", str(out)]
    )
    assert rc == 0
    with open(out) as f:
        res = json.load(f)
    assert res["settings"]["model"] == "gru" and res["settings"]["batch_size"] == 64
    assert "target_accuracy_met" not in res["comparison"]  # 98% is paper-cnn's target only
    assert res["runs"][0]["run_dir"].endswith(os.path.join("gru", "symx-seed0"))
    with open(os.path.join(ROOT, res["runs"][0]["run_dir"], "argv.json")) as f:
        argv = json.load(f)
    assert argv[argv.index("--model") + 1] == "gru" and argv[argv.index("--batch-size") + 1] == "64"
    assert (out.parent / "gru.md").read_text().startswith("# gru (28 rows, GRU 128, Dense 10): symx vs PyTorch")


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _numpy_rows_classifier(cell, w_ih, w_hh, b_ih, b_hh, w_head, b_head, x):
    """An independent float64 reference: the image's rows through PyTorch's LSTM/GRU equations, the
    last state through the head."""
    n, hidden = x.shape[0], w_hh.shape[1]
    h, c = np.zeros((n, hidden)), np.zeros((n, hidden))
    for t in range(x.shape[2]):
        gi, gh = x[:, 0, t, :] @ w_ih.T + b_ih, h @ w_hh.T + b_hh
        if cell == "lstm":
            i, f, g, o = np.split(gi + gh, 4, axis=1)
            c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
            h = _sigmoid(o) * np.tanh(c)
        else:
            (ri, zi, ni), (rh, zh, nh) = np.split(gi, 3, axis=1), np.split(gh, 3, axis=1)
            r, z = _sigmoid(ri + rh), _sigmoid(zi + zh)
            nn_ = np.tanh(ni + r * nh)
            h = (1 - z) * nn_ + z * h
    return h @ w_head.T + b_head


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_twin_sequence_model_reads_rows_with_symx_init(cell):
    torch = pytest.importorskip("torch")
    model = paper_cnn_torch.build_sequence_model(torch, cell, (1, 28, 28), 3)
    gates = 4 if cell == "lstm" else 3
    bound = 1 / np.sqrt(128)
    rnn = dict(model.rnn.named_parameters())
    assert rnn["weight_ih_l0"].shape == (gates * 128, 28) and rnn["weight_hh_l0"].shape == (gates * 128, 128)
    for name, p in rnn.items():  # PyTorch's default, as symx's recurrent layers
        a = np.abs(p.detach().numpy())
        assert a.max() <= bound and a.max() > 0.9 * bound, name
    limit = np.sqrt(6.0 / (128 + 10))  # the head as symx's Dense: Glorot uniform, zero bias
    w = np.abs(model.head.weight.detach().numpy())
    assert w.max() <= limit and w.max() > 0.9 * limit and np.all(model.head.bias.detach().numpy() == 0)
    # seeded: the same seed, the same weights; another seed, others
    again = paper_cnn_torch.build_sequence_model(torch, cell, (1, 28, 28), 3)
    other = paper_cnn_torch.build_sequence_model(torch, cell, (1, 28, 28), 4)
    assert torch.equal(again.rnn.weight_hh_l0, model.rnn.weight_hh_l0)
    assert not torch.equal(other.rnn.weight_hh_l0, model.rnn.weight_hh_l0)
    x = np.random.default_rng(0).random((5, 1, 28, 28), dtype=np.float32)
    with torch.no_grad():
        got = model(torch.from_numpy(x)).numpy()
    weights = [rnn[k] for k in ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")]
    weights += [model.head.weight, model.head.bias]
    want = _numpy_rows_classifier(cell, *(w.detach().numpy().astype(np.float64) for w in weights), x.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert paper_cnn_torch.learning_rate(0, cell) == paper_cnn_torch.learning_rate(99, cell) == 0.002

"""symx.train: fit against a hand-written loop, early stopping (built-in and Python callbacks), the
history against metrics.jsonl, resume bit-identical to an uninterrupted run, Ctrl-C as
KeyboardInterrupt, curves.png as a valid PNG, evaluate on any number of examples against NumPy,
and `python -m symx train` / `eval`. Each run trains a few steps on a few hundred real digits."""

import json
import os
import signal
import struct
import time
import zlib

import numpy as np
import pytest

import symx as sx
from helpers import MNIST, idx_oracle, run_python, write_idx


def _digits(n, offset=0):
    images = idx_oracle(os.path.join(MNIST, "train-images-idx3-ubyte.gz")).reshape(-1, 1, 28, 28)
    labels = idx_oracle(os.path.join(MNIST, "train-labels-idx1-ubyte.gz")).astype(np.int64)
    return images[offset : offset + n].copy(), labels[offset : offset + n].copy()


def _small_net():
    L = sx.nn.layers
    return L.Sequential(
        [
            L.RandomCrop(28, padding=2),
            L.Flatten(),
            L.Dense(32),
            L.BatchNorm(),
            L.Activation("relu"),
            L.Dropout(0.2),
            L.Dense(10),
        ]
    )


def test_fit_matches_a_hand_written_loop(fresh_graph):
    # One batch of all 64 examples per epoch: the batch order does not matter, so a plain loop of
    # full-batch steps from the same initialization gives the same losses.
    x, y = _digits(64)
    L = sx.nn.layers
    net = L.Sequential([L.Flatten(), L.Dense(10)])
    history = sx.train.fit(
        net, optimizer=sx.optim.SGD(0.001), train=(x, y), epochs=3, batch_size=64, seed=4, log="quiet"
    )
    sx.reset_default_graph()
    sx.nn.init.seed(4)
    sx.random.seed(4)
    net2 = L.Sequential([L.Flatten(), L.Dense(10)])
    xp = sx.placeholder((None, 1, 28, 28), name="x")
    yp = sx.placeholder((None,), "int64", name="y")
    logits = net2(xp, training=True)
    loss = sx.nn.losses.softmax_cross_entropy_loss(logits, yp)
    sx.optim.SGD(0.001).minimize(loss)
    step = sx.function([xp, yp], [loss, sx.nn.losses.accuracy(logits, yp)], updates=sx.get_updates())
    for epoch in range(3):
        loss_value, accuracy = step(x.astype(np.float32), y)
        assert history[epoch]["epoch"] == epoch + 1
        np.testing.assert_allclose(history[epoch]["train_loss"], float(loss_value), rtol=1e-5)
        assert history[epoch]["train_accuracy"] == pytest.approx(round(float(accuracy) * 64) / 64)
        assert history[epoch]["val_loss"] is None  # no validation data
        assert history[epoch]["lr"] == pytest.approx(0.001)


def test_callable_network_and_evaluate_any_number_of_examples(fresh_graph):
    x, y = _digits(101, 500)
    dense = sx.nn.layers.Dense(10)

    def network(images, training):
        return dense(sx.reshape(images, (-1, 784)) / 255.0, training=training)

    result = sx.train.evaluate(network, (x, y), batch_size=32)  # 3 batches of 32 and one of 5
    assert result["examples"] == 101
    # NumPy oracle: the same affine map, softmax cross-entropy and argmax accuracy.
    w, b = (np.array(v.value, np.float64) for v in dense.variables())
    z = x.reshape(101, 784) / 255.0 @ w + b
    z -= z.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    assert result["loss"] == pytest.approx(-log_p[np.arange(101), y].mean(), rel=1e-5)
    assert result["accuracy"] == pytest.approx(np.mean(z.argmax(axis=1) == y))


def test_early_stopping_and_python_callbacks(fresh_graph, tmp_path):
    x, y = _digits(64)
    seen = []

    class Recorder:
        def on_epoch_end(self, epoch, metrics):
            seen.append((epoch, metrics["train_loss"]))
            return epoch == 3  # stop after the third epoch

    history = sx.train.fit(sx.train.mlp(), train=(x, y), epochs=10, batch_size=32, log="quiet", callbacks=[Recorder()])
    assert len(history) == 3
    assert seen == [(m["epoch"], m["train_loss"]) for m in history]

    sx.reset_default_graph()
    stopper = sx.train.EarlyStopping("train_accuracy", patience=1, min_delta=0.5)  # never improves by 50 points
    history = sx.train.fit(sx.train.mlp(), train=(x, y), epochs=10, log="quiet", callbacks=[stopper])
    assert len(history) == 2
    assert stopper.stopped_epoch == 2 and stopper.best_epoch == 1
    with pytest.raises(ValueError, match="unknown monitor 'val_los'"):
        sx.train.EarlyStopping("val_los")


def test_history_metrics_file_and_resume_are_exact(fresh_graph, tmp_path):
    train, val = _digits(256), _digits(64, 1000)

    def run(out, epochs, resume=False):
        sx.reset_default_graph()
        opt = sx.optim.Adam(sx.optim.schedules.piecewise_constant([10], [0.01, 0.002]))
        history = sx.train.fit(
            _small_net(),
            optimizer=opt,
            train=train,
            validation=val,
            epochs=epochs,
            seed=9,
            out_dir=str(out),
            resume=resume,
            log="quiet",
        )
        return history, {v.name: np.array(v.value) for v in sx.variables()}

    full, expected = run(tmp_path / "full", 3)
    train, val = sx.data.Dataset(*train), sx.data.Dataset(*val)  # the same data as symx.data.Dataset objects
    with open(tmp_path / "full" / "metrics.jsonl") as f:
        lines = [json.loads(line) for line in f]
    assert lines == full  # the same numbers (JSON round-trips doubles exactly)
    assert list(lines[0]) == [
        "epoch",
        "train_loss",
        "train_accuracy",
        "val_loss",
        "val_accuracy",
        "seconds",
        "step_seconds",
        "items_per_second",
        "lr",
    ]
    assert [m["lr"] for m in full] == pytest.approx([0.01, 0.002, 0.002])  # the drop at step 10 (8 steps an epoch)

    run(tmp_path / "resumed", 1)
    resumed, values = run(tmp_path / "resumed", 3, resume=True)
    assert values.keys() == expected.keys()
    for name in expected:
        assert np.array_equal(values[name], expected[name]), name
    assert [m["train_loss"] for m in resumed] == [m["train_loss"] for m in full]
    info = sx.train.read_checkpoint(str(tmp_path / "resumed"))
    assert info["epoch"] == 3 and info["step"] == 24 and info["batch"] == 0
    with pytest.raises(sx.IOError, match="no checkpoint in"):
        sx.train.read_checkpoint(str(tmp_path))


def test_ctrl_c_is_keyboard_interrupt_and_resumes(fresh_graph, tmp_path):
    train = _digits(128)

    class CtrlC:
        def on_batch_end(self, progress):
            if progress["step"] == 6:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.1)

    sx.reset_default_graph()
    with pytest.raises(KeyboardInterrupt, match="interrupted"):
        sx.train.fit(
            _small_net(), train=train, epochs=2, seed=1, out_dir=str(tmp_path / "a"), log="quiet", callbacks=[CtrlC()]
        )
    info = sx.train.read_checkpoint(str(tmp_path / "a"))
    assert (info["epoch"], info["batch"], len(info["history"])) == (1, 2, 1)  # mid-epoch 2: not in the history
    sx.reset_default_graph()
    history = sx.train.fit(
        _small_net(), train=train, epochs=2, seed=1, out_dir=str(tmp_path / "a"), resume=True, log="quiet"
    )
    resumed = {v.name: np.array(v.value) for v in sx.variables()}
    sx.reset_default_graph()
    straight = sx.train.fit(_small_net(), train=train, epochs=2, seed=1, log="quiet")
    for v in sx.variables():
        assert np.array_equal(np.array(v.value), resumed[v.name]), v.name
    assert [m["train_loss"] for m in history] == [m["train_loss"] for m in straight]


def test_curves_png_is_valid(tmp_path):
    history = [
        {
            "epoch": e,
            "train_loss": 1 / e,
            "train_accuracy": 1 - 0.5 / e,
            "val_loss": 1.1 / e,
            "val_accuracy": None if e == 2 else 1 - 0.6 / e,
        }
        for e in range(1, 6)
    ]
    path = tmp_path / "curves.png"
    sx.train.plot_history(history, str(path), title="test")
    with open(path, "rb") as f:
        png = f.read()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    length, kind = struct.unpack(">I4s", png[8:16])
    assert (length, kind) == (13, b"IHDR")
    width, height = struct.unpack(">II", png[16:24])
    assert (width, height) == (1100, 460)
    (crc,) = struct.unpack(">I", png[29:33])
    assert crc == zlib.crc32(png[12:29])
    assert png.endswith(b"IEND\xaeB`\x82")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curves.png"]  # no temporary left


def test_models_and_errors(fresh_graph):
    assert sx.train.model_names() == ["mlp", "paper-cnn", "lstm", "gru"]
    net, opt, batch = sx.train.make_model("paper-cnn", (3, 32, 32), 10, 100)
    assert batch == 32 and isinstance(opt, sx.optim.Adam)
    logits = net(sx.placeholder((None, 3, 32, 32)), training=False)
    assert logits.shape == (None, 10)
    with pytest.raises(ValueError, match="unknown model 'vgg'. The known models are: mlp, paper-cnn, lstm, gru"):
        sx.train.make_model("vgg", (1, 28, 28))
    with pytest.raises(TypeError, match="must be a pair"):
        sx.train.fit(sx.train.mlp(), train=np.zeros((4, 784)), log="quiet")
    x = np.zeros((2, 1, 4, 4), np.float32)
    x[1] = np.arange(16).reshape(4, 4)
    scaled = sx.train.scale_by_max(sx.constant(x)).eval()
    np.testing.assert_array_equal(scaled[0], 0)  # an all-zero image stays zero
    np.testing.assert_allclose(scaled[1], x[1] / 15)


def _write_idx(folder, images, labels, split="train"):
    folder.mkdir(parents=True, exist_ok=True)
    write_idx(folder / f"{split}-images-idx3-ubyte", images.astype(np.uint8), 0x08)
    write_idx(folder / f"{split}-labels-idx1-ubyte", labels.astype(np.uint8), 0x08)


def test_python_m_symx_train_and_eval(tmp_path):
    x, y = _digits(160)
    _write_idx(tmp_path / "data", x[:, 0], y)
    run = tmp_path / "run"
    done = run_python(
        "-m",
        "symx",
        "train",
        "--model",
        "mlp",
        "--data",
        "mnist",
        "--data-dir",
        str(tmp_path / "data"),
        "--epochs",
        "2",
        "--val-size",
        "32",
        "--out",
        str(run),
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "epoch 2/2" in done.stdout  # plain lines: stdout is a pipe
    assert (run / "curves.png").exists() and (run / "LATEST").exists()
    with open(run / "metrics.jsonl") as f:
        assert len(f.readlines()) == 2
    test_x, test_y = _digits(1001, 4000)  # 31 batches of 32 and one of 9
    _write_idx(tmp_path / "test", test_x[:, 0], test_y, split="t10k")
    done = run_python(
        "-m",
        "symx",
        "eval",
        "--checkpoint",
        str(run),
        "--images",
        str(tmp_path / "test" / "t10k-images-idx3-ubyte"),
        "--labels",
        str(tmp_path / "test" / "t10k-labels-idx1-ubyte"),
        "--batch-size",
        "32",
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "(1001 examples of" in done.stdout
    # The same numbers from the library: the checkpoint loaded into the same model.
    sx.reset_default_graph()
    net = sx.train.mlp()
    net(sx.placeholder((None, 1, 28, 28)), training=False)
    sx.train.load_checkpoint(str(run), sx.variables())
    expected = sx.train.evaluate(net, (test_x, test_y), batch_size=1001)
    assert f"loss {expected['loss']:.4f}  accuracy {100 * expected['accuracy']:.2f}%" in done.stdout
    sx.reset_default_graph()
    done = run_python(
        "-m",
        "symx",
        "train",
        "--model",
        "resnet",
        "--data-dir",
        str(tmp_path),
        "--out",
        str(tmp_path / "r"),
        timeout=600,
    )
    assert done.returncode == 1
    assert "unknown model 'resnet'. The known models are: mlp, paper-cnn, lstm, gru." in done.stderr


def test_fit_applies_transforms_to_the_training_batches(fresh_graph):
    # A callable transform and a built-in one: training on digits scaled by a transform equals
    # training on digits scaled beforehand (same seed, same order), and the callable sees every batch.
    x, y = _digits(96)
    L = sx.nn.layers
    seen = []

    def halve(xb, yb, seed):
        seen.append((len(xb), seed))
        return xb * 0.5, yb

    def run(data, transforms):
        sx.reset_default_graph()
        net = L.Sequential([L.Flatten(), L.Dense(10)])
        return sx.train.fit(
            net,
            optimizer=sx.optim.SGD(0.01),
            train=data,
            epochs=2,
            batch_size=32,
            seed=3,
            log="quiet",
            transforms=transforms,
        )

    transformed = run((x, y), [halve, sx.data.divide_by_max()])
    scaled = x.astype(np.float32) * 0.5
    scaled /= scaled.max(axis=(1, 2, 3), keepdims=True)
    direct = run((scaled, y), [])
    assert [e["train_loss"] for e in transformed] == pytest.approx([e["train_loss"] for e in direct], rel=1e-6)
    # Six batches of two epochs (the prefetching thread may have started on a third epoch), each
    # with a seed of its own.
    assert [n for n, _ in seen[:6]] == [32] * 6 and len({s for _, s in seen[:6]}) == 6
    with pytest.raises(TypeError, match="symx.train.fit: a transform must be"):
        run((x, y), [42])

#!/usr/bin/env python3
"""The paper's CNN (issue 10, "The paper's experiment") in PyTorch eager: the twin of
`symx train --model paper-cnn --data mnist`, run side by side with it by bench/paper_cnn.py; with
--model lstm or gru, the twin of `symx train --model lstm|gru` (issue 20, below).

    python3 bench/paper_cnn_torch.py [--model paper-cnn|lstm|gru] --data-dir data/mnist --epochs 10
        --seed 0 --out RUN_DIR

Writes RUN_DIR/metrics.jsonl (one JSON object per epoch, the keys of symx's metrics file: epoch,
train_loss, train_accuracy, val_loss, val_accuracy, seconds, step_seconds, items_per_second, lr;
plus val_seconds) and RUN_DIR/run.json (settings, where the split came from, the final result),
both rewritten atomically after every epoch; prints one line per epoch.

The network and recipe, mirrored from symx's layers (toolkit/src/layers_*.cpp, init.cpp, optim.cpp):
  * each image divided by its own maximum (over C, H, W; an all-zero image stays zero);
  * RandomCrop(28, padding 4): zero padding to 36x36, then a 28x28 window at a uniformly random
    offset (0..8 on each axis) per image, in training only; in evaluation the centre window, i.e.
    the image itself;
  * Conv2d 32 3x3 (stride 1, no padding, bias) -> BatchNorm2d -> ReLU -> MaxPool 2 -> Conv2d 64 3x3
    -> BatchNorm2d -> ReLU -> MaxPool 2 -> Flatten -> Linear 128 -> BatchNorm1d -> ReLU -> Linear 10;
  * init as symx's layers: weights Glorot/Xavier uniform, limit sqrt(6 / (fan_in + fan_out)) with
    fan_in = in_channels*kh*kw and fan_out = out_channels*kh*kw for a kernel (symx's compute_fans
    on OIHW is exactly torch.nn.init's), fan_in = in and fan_out = out for a dense layer; every bias
    zero (PyTorch's default is not); BatchNorm gamma 1, beta 0, running mean 0 and variance 1,
    momentum 0.1, eps 1e-5, unbiased variance in the running update (symx's BatchNorm is PyTorch's);
  * softmax cross-entropy, mean over the batch; Adam (PyTorch's rule, which symx's Adam follows):
    lr 0.005, betas (0.9, 0.999), eps 1e-8, no weight decay; lr 0.001 from epoch 50 and 0.0005 from
    epoch 75 (0-based epoch index, i.e. piecewise_constant([50, 75], ...) over the epoch count);
  * batch 32, a new shuffle every epoch, the last smaller batch kept (7,000 = 218 x 32 + 24).

--model lstm / gru, mirrored from toolkit/src/train/models.cpp (sequence_classifier) and
toolkit/src/layers_recurrent.cpp:
  * each image divided by its own maximum (as above), no augmentation; the (1, 28, 28) digit read as
    28 steps (its rows) of 28 values ((N, C, H, W) -> (N, H, C * W));
  * torch.nn.LSTM / GRU(28, 128, batch_first=True), every weight and bias uniform in
    +-1/sqrt(128) (PyTorch's default, which symx's recurrent layers use; symx's GRU is PyTorch's
    variant, the reset gate scaling the hidden product with its bias); the last step's output ->
    Linear(128, 10), initialized as symx's Dense: Glorot uniform, zero bias (not PyTorch's default);
  * softmax cross-entropy; Adam (0.9, 0.999, 1e-8) at a constant 0.002 with the gradients clipped to
    a global norm of 1 (torch.nn.utils.clip_grad_norm_, symx's clip_norm, both with 1e-6 added to
    the norm); batch 64, reshuffled every epoch, the last smaller batch kept (7,000 = 109 x 64 + 24).

The split: 8,000 digits, 1,000 for validation. With symx's Python module built and its data module
present, the digits and the split come from symx itself (symx.data.load_mnist,
symx.data.train_test_split(data, 1000, split_seed), split_seed being --seed unless given, as
`symx train` splits with its --seed), so both frameworks train and validate on the
same examples. Otherwise (`--data-source numpy`, or symx not importable) a NumPy reader of the IDX
files and NumPy's own seeded permutation are used: the split then DIFFERS from symx's, which
run.json and the printed lines say. The shuffles and the crops come from torch's own generator
(seeded with --seed); they cannot match symx's draws, only their distribution.

Timing, as symx's training loop (toolkit/src/train/fit.cpp) measures it: `step_seconds` is the sum
over the epoch's steps of (crop, forward, backward, Adam update), with the batch's gather and the
train-metric bookkeeping outside; `seconds` is the whole epoch: shuffle, batch gathers, steps and
the validation pass (`val_seconds`); `items_per_second` is the training examples over the epoch's
time before validation. The normalization
by each image's maximum is done once for the whole data set before training (as a PyTorch user
would); it is a few microseconds per batch either way.
"""

import argparse
import gzip
import json
import math
import os
import struct
import sys
import time

import numpy as np

import common as C  # noqa: E402  (bench/ is the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VAL_SIZE = 1000
LR_BOUNDARIES = (50, 75)
LR_VALUES = (0.005, 0.001, 0.0005)
ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8
CROP_PADDING = 4
MODELS = ("paper-cnn", "lstm", "gru")
BATCH_SIZE = {"paper-cnn": 32, "lstm": 64, "gru": 64}  # each model's recipe in `symx train`
SEQ_LR = 0.002  # lstm / gru: constant
SEQ_HIDDEN = 128
SEQ_CLIP_NORM = 1.0
BN_MOMENTUM = 0.1
BN_EPS = 1e-5


def learning_rate(epoch, model="paper-cnn"):
    """The rate for a 0-based epoch index: paper-cnn 0.005, then 0.001 from 50, 0.0005 from 75;
    lstm and gru 0.002 throughout."""
    if model != "paper-cnn":
        return SEQ_LR
    for boundary, value in zip(LR_BOUNDARIES, LR_VALUES):
        if epoch < boundary:
            return value
    return LR_VALUES[-1]


# ---- data ----


def _read_idx(path):
    """A NumPy reader of an IDX file (gzip or raw), for when symx's data module is not available."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise ValueError("%s: not an IDX file (expected a header starting with two zero bytes)" % path)
    dtypes = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
    if raw[2] not in dtypes:
        raise ValueError("%s: unknown IDX dtype code 0x%02x" % (path, raw[2]))
    ndim = raw[3]
    shape = struct.unpack(">%dI" % ndim, raw[4 : 4 + 4 * ndim])
    dtype = np.dtype(dtypes[raw[2]])
    need = 4 + 4 * ndim + int(np.prod(shape)) * dtype.itemsize
    if len(raw) != need:
        raise ValueError("%s: expected %d bytes for shape %s, found %d" % (path, need, shape, len(raw)))
    return np.frombuffer(raw, dtype, offset=4 + 4 * ndim).reshape(shape)


def _mnist_file(data_dir, stem):
    for name in (stem + ".gz", stem):
        path = os.path.join(data_dir, name)
        if os.path.exists(path):
            return path
    raise FileNotFoundError(
        "no %s(.gz) in %s: point --data-dir at the MNIST IDX files (data/mnist in the repo)" % (stem, data_dir)
    )


def _numpy_split(data_dir, split_seed):
    x = _read_idx(_mnist_file(data_dir, "train-images-idx3-ubyte"))
    y = _read_idx(_mnist_file(data_dir, "train-labels-idx1-ubyte")).astype(np.int64)
    x = x.reshape(x.shape[0], 1, x.shape[1], x.shape[2])
    perm = np.random.default_rng(split_seed).permutation(x.shape[0])
    val, train = perm[:VAL_SIZE], perm[VAL_SIZE:]
    return (x[train], y[train]), (x[val], y[val])


def _xy(d):
    """(x, y) NumPy arrays of a symx Dataset (attributes x, y) or of an (x, y) pair."""
    if hasattr(d, "x") and hasattr(d, "y"):
        return np.asarray(d.x), np.asarray(d.y)
    x, y = d
    return np.asarray(x), np.asarray(y)


def _symx_split(data_dir, split_seed):
    import symx  # noqa: F401  (the module built by `cmake --build build --target _symx`)

    data = symx.data.load_mnist(data_dir)
    train, val = symx.data.train_test_split(data, VAL_SIZE, split_seed)
    return _xy(train), _xy(val)


def load_split(data_dir, split_seed, source="auto"):
    """((x_train, y_train), (x_val, y_val), note): x uint8 (N, 1, 28, 28), y int64. source "symx"
    requires symx's data module, "numpy" uses the fallback, "auto" tries symx first."""
    if source in ("auto", "symx"):
        try:
            train, val = _symx_split(data_dir, split_seed)
            return (
                train,
                val,
                "symx.data.train_test_split(load_mnist(%r), %d, seed=%d): the same split as symx"
                % (data_dir, VAL_SIZE, split_seed),
            )
        except (ImportError, AttributeError, NotImplementedError) as e:
            if source == "symx":
                raise RuntimeError(
                    "--data-source symx: symx's data module is not available (%s: %s). Build it "
                    "(cmake --build build --target _symx) and put build/python on PYTHONPATH, or use "
                    "--data-source numpy." % (type(e).__name__, e)
                ) from e
            why = "%s: %s" % (type(e).__name__, e)
    else:
        why = "--data-source numpy"
    train, val = _numpy_split(data_dir, split_seed)
    return (
        train,
        val,
        (
            "NumPy fallback (%s): np.random.default_rng(%d).permutation, first %d for validation; "
            "this split DIFFERS from symx's" % (why, split_seed, VAL_SIZE)
        ),
    )


def normalize(x_uint8):
    """float32 images divided by each image's maximum over (C, H, W); an all-zero image stays zero."""
    x = x_uint8.astype(np.float32)
    m = x.reshape(x.shape[0], -1).max(axis=1).reshape(-1, *([1] * (x.ndim - 1)))
    return x / np.where(m > 0, m, np.float32(1))


# ---- the model ----


def build_model(torch, in_shape, seed):
    nn = torch.nn
    c, h, w = in_shape
    h2, w2 = (h - 2) // 2, (w - 2) // 2
    h3, w3 = (h2 - 2) // 2, (w2 - 2) // 2
    model = nn.Sequential(
        nn.Conv2d(c, 32, 3),
        nn.BatchNorm2d(32, eps=BN_EPS, momentum=BN_MOMENTUM),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3),
        nn.BatchNorm2d(64, eps=BN_EPS, momentum=BN_MOMENTUM),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(64 * h3 * w3, 128),
        nn.BatchNorm1d(128, eps=BN_EPS, momentum=BN_MOMENTUM),
        nn.ReLU(),
        nn.Linear(128, 10),
    )
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.xavier_uniform_(m.weight, gain=1.0, generator=gen)
                nn.init.zeros_(m.bias)
            elif isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
                m.reset_running_stats()
    return model


def build_sequence_model(torch, cell, in_shape, seed, classes=10):
    """An LSTM or GRU over the image's rows (H steps of C * W values), the last step's output ->
    Linear(hidden, classes); input (N, C, H, W) floats."""
    nn = torch.nn
    c, h, w = in_shape
    rnn_type = {"lstm": nn.LSTM, "gru": nn.GRU}[cell]

    class SequenceClassifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = rnn_type(c * w, SEQ_HIDDEN, batch_first=True)
            self.head = nn.Linear(SEQ_HIDDEN, classes)

        def forward(self, x):
            n = x.shape[0]
            rows = x.reshape(n, h, w) if c == 1 else x.permute(0, 2, 1, 3).reshape(n, h, c * w)
            out, _ = self.rnn(rows)
            return self.head(out[:, -1])

    model = SequenceClassifier()
    gen = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(SEQ_HIDDEN)
    with torch.no_grad():
        for p in model.rnn.parameters():  # PyTorch's own reset_parameters, from the seeded generator
            nn.init.uniform_(p, -bound, bound, generator=gen)
        nn.init.xavier_uniform_(model.head.weight, gain=1.0, generator=gen)
        nn.init.zeros_(model.head.bias)
    return model


def random_crop(torch, x, padding, gen):
    """Zero-pads (N, C, H, W) by `padding` and cuts an H x W window at a uniform random offset per image."""
    n, c, h, w = x.shape
    xp = torch.nn.functional.pad(x, (padding, padding, padding, padding))
    top = torch.randint(0, 2 * padding + 1, (n, 1, 1), generator=gen)
    left = torch.randint(0, 2 * padding + 1, (n, 1, 1), generator=gen)
    rows = top + torch.arange(h).view(1, h, 1)  # (n, h, 1)
    cols = left + torch.arange(w).view(1, 1, w)  # (n, 1, w)
    batch = torch.arange(n).view(n, 1, 1)
    # advanced indexing on axes 0, 2, 3 puts the broadcast (n, h, w) first: (n, h, w, c)
    return xp.permute(0, 2, 3, 1)[batch, rows, cols].permute(0, 3, 1, 2).contiguous()


# ---- output ----


# ---- training ----


def train(args, log=print):
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    (xtr, ytr), (xva, yva), split_note = load_split(args.data_dir, args.split_seed, args.data_source)
    log(
        "torch %s, %d threads; train %d, validation %d; split: %s"
        % (torch.__version__, torch.get_num_threads(), len(ytr), len(yva), split_note)
    )
    xtr_t, ytr_t = torch.from_numpy(normalize(xtr)), torch.from_numpy(ytr.astype(np.int64))
    xva_t, yva_t = torch.from_numpy(normalize(xva)), torch.from_numpy(yva.astype(np.int64))

    sequence = args.model != "paper-cnn"
    if sequence:
        model = build_sequence_model(torch, args.model, tuple(xtr_t.shape[1:]), args.seed)
    else:
        model = build_model(torch, tuple(xtr_t.shape[1:]), args.seed)
    params = list(model.parameters())
    opt = torch.optim.Adam(params, lr=learning_rate(0, args.model), betas=ADAM_BETAS, eps=ADAM_EPS)
    gen = torch.Generator().manual_seed(args.seed + 1)  # shuffles and crops
    n, bs = xtr_t.shape[0], args.batch_size
    os.makedirs(args.out, exist_ok=True)
    metrics_path = os.path.join(args.out, "metrics.jsonl")
    info = {
        "framework": "torch_eager",
        "model": args.model,
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "seed": args.seed,
        "split_seed": args.split_seed,
        "split": split_note,
        "split_same_as_symx": split_note.startswith("symx."),
        "epochs": args.epochs,
        "batch_size": bs,
        "train_size": int(n),
        "val_size": int(xva_t.shape[0]),
    }
    records = []
    for epoch in range(args.epochs):
        lr = learning_rate(epoch, args.model)
        for g in opt.param_groups:
            g["lr"] = lr
        t_epoch = time.perf_counter()
        model.train()
        order = torch.randperm(n, generator=gen)
        loss_sum = torch.zeros((), dtype=torch.float64)
        correct = torch.zeros((), dtype=torch.int64)
        step_s = 0.0
        for start in range(0, n, bs):
            idx = order[start : start + bs]
            xb, yb = xtr_t[idx], ytr_t[idx]
            t0 = time.perf_counter()
            if not sequence:
                xb = random_crop(torch, xb, CROP_PADDING, gen)
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if sequence:
                torch.nn.utils.clip_grad_norm_(params, SEQ_CLIP_NORM)
            opt.step()
            step_s += time.perf_counter() - t0
            with torch.no_grad():
                loss_sum += loss.detach().double() * yb.shape[0]
                correct += (logits.argmax(1) == yb).sum()
        t_val = time.perf_counter()
        train_seconds = t_val - t_epoch
        model.eval()
        vloss, vcorrect = 0.0, 0
        with torch.no_grad():
            for start in range(0, xva_t.shape[0], 500):
                xb, yb = xva_t[start : start + 500], yva_t[start : start + 500]
                logits = model(xb)
                vloss += float(F.cross_entropy(logits, yb, reduction="sum"))
                vcorrect += int((logits.argmax(1) == yb).sum())
        t_end = time.perf_counter()
        seconds = t_end - t_epoch
        rec = {
            "epoch": epoch + 1,
            "train_loss": float(loss_sum) / n,
            "train_accuracy": int(correct) / n,
            "val_loss": vloss / xva_t.shape[0],
            "val_accuracy": vcorrect / xva_t.shape[0],
            "seconds": seconds,
            "step_seconds": step_s,
            "items_per_second": n / train_seconds,
            "lr": lr,
            "val_seconds": t_end - t_val,
        }
        records.append(rec)
        C.write_atomic(metrics_path, "".join(json.dumps(r) + "\n" for r in records))
        info["metrics"] = records
        C.write_atomic(os.path.join(args.out, "run.json"), json.dumps(info, indent=1) + "\n")
        log(
            "epoch %d/%d  train loss %.4f acc %.4f  val loss %.4f acc %.4f  %.2f s (steps %.2f s, %.0f items/s)  lr %g"
            % (
                epoch + 1,
                args.epochs,
                rec["train_loss"],
                rec["train_accuracy"],
                rec["val_loss"],
                rec["val_accuracy"],
                seconds,
                step_s,
                rec["items_per_second"],
                lr,
            )
        )
        if not math.isfinite(rec["train_loss"]):
            raise FloatingPointError("training loss is %s at epoch %d" % (rec["train_loss"], epoch + 1))
    return info


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", choices=MODELS, default="paper-cnn")
    ap.add_argument("--data-dir", default=os.path.join(ROOT, "data", "mnist"))
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch-size", type=int, default=None, help="default: the model's (paper-cnn 32, lstm/gru 64)")
    ap.add_argument("--seed", type=int, default=0, help="initialization, shuffles and crops")
    ap.add_argument(
        "--split-seed",
        type=int,
        default=None,
        help="the train/validation split's seed (default: --seed, as `symx train` splits with its --seed)",
    )
    ap.add_argument("--data-source", choices=("auto", "symx", "numpy"), default="auto")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", required=True, help="run folder for metrics.jsonl and run.json")
    args = ap.parse_args(argv)
    if args.split_seed is None:
        args.split_seed = args.seed
    if args.batch_size is None:
        args.batch_size = BATCH_SIZE[args.model]
    if args.epochs < 1 or args.batch_size < 1 or args.threads < 1:
        ap.error("--epochs, --batch-size and --threads must be >= 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        info = train(args, log=lambda s: print(s, flush=True))
    except (OSError, ValueError, RuntimeError) as e:
        print("paper_cnn_torch: %s" % e, file=sys.stderr)
        return 1
    last = info["metrics"][-1]
    print(
        "RESULT "
        + json.dumps(
            {
                "final_val_accuracy": last["val_accuracy"],
                "best_val_accuracy": max(r["val_accuracy"] for r in info["metrics"]),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

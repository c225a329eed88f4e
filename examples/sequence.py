# A sequence model trained with symx.train.fit: an LSTM reads each digit of data/mnist row by row
# (28 steps of 28 pixels, "sequential MNIST") and a Dense layer classifies its last output.
# Run from the repository root: python3 examples/sequence.py [data/mnist] [run folder]
import sys

import symx as sx
from symx.nn import layers as L

data_dir = sys.argv[1] if len(sys.argv) > 1 else "data/mnist"
run_dir = sys.argv[2] if len(sys.argv) > 2 else "runs/digits-lstm"
digits = sx.data.load_mnist(data_dir)  # x (8000, 1, 28, 28) uint8, y (8000,) int64
train, validation = sx.data.train_test_split(digits, 1000, seed=0)

net = L.Sequential(
    [
        L.Reshape((28, 28)),  # (N, 1, 28, 28) -> (N, T=28 rows, F=28 pixels)
        L.LSTM(64, return_sequences=False),  # the output after the last row: (N, 64)
        L.Dense(10),
    ]
)
history = sx.train.fit(
    lambda x, training: net(x / 255.0, training),
    optimizer=sx.optim.Adam(2e-3, clip_norm=1.0),
    train=train,
    validation=validation,
    epochs=3,
    batch_size=64,
    seed=0,
    out_dir=run_dir,
)
print(f"{len(history)} epochs, validation accuracy {history[-1]['val_accuracy']:.3f}; curves in {run_dir}/curves.png")

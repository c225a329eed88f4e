# The README's training quick start in Python: a model of your own trained with symx.train.fit on
# the real digits bundled in data/mnist, with validation, early stopping, metrics, curves and
# checkpoints. Run from the repository root: python3 examples/train_digits.py [data/mnist] [run folder]
import sys

import symx as sx
from symx.nn import layers as L

data_dir = sys.argv[1] if len(sys.argv) > 1 else "data/mnist"
run_dir = sys.argv[2] if len(sys.argv) > 2 else "runs/digits-mlp"
digits = sx.data.load_mnist(data_dir)  # x (8000, 1, 28, 28) uint8, y (8000,) int64
train, validation = sx.data.train_test_split(digits, 1000, seed=0)

net = L.Sequential([L.Flatten(), L.Dense(128), L.Activation("relu"), L.Dense(10)])
history = sx.train.fit(lambda x, training: net(x / 255.0, training),  # x: float32 batches
                       optimizer=sx.optim.Adam(1e-3), train=train, validation=validation,
                       epochs=5, batch_size=64, seed=0, out_dir=run_dir,  # metrics.jsonl, curves.png, checkpoints
                       callbacks=[sx.train.EarlyStopping("val_loss", patience=2)])
print(f"{len(history)} epochs, validation accuracy {history[-1]['val_accuracy']:.3f}; curves in {run_dir}/curves.png")

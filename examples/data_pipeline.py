# The README's data quick start: the bundled digits split into training and validation sets, and
# one epoch of shuffled batches prepared on a background thread. Run from the repository root.
import sys

import symx as sx

digits = sx.data.load_mnist(sys.argv[1] if len(sys.argv) > 1 else "data/mnist")
train, val = sx.data.train_test_split(digits, 1000, seed=0)
batches = sx.data.BatchIterator(train, batch_size=32, seed=1, transforms=[sx.data.divide_by_max()])
seen, brightest = 0, 0.0
for xb, yb in batches:  # one epoch per loop: xb float32 (32, 1, 28, 28) in [0, 1], yb int64 (32,)
    seen, brightest = seen + len(yb), max(brightest, float(xb.max()))
print(f"one epoch: {seen} examples in {len(batches)} batches, pixels up to {brightest}; {len(val.x)} for validation")

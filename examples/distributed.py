# Data-parallel training with your own loop: run it as `mpirun -np 2 python3 examples/distributed.py`
# (or plainly: a world of one). Every process takes its shard of each batch of 64 digits; the
# optimizer averages the gradients across the processes inside the compiled step.
import sys

import numpy as np

import symx as sx
from symx.nn import layers as L

d = sx.distributed
d.init()  # joins mpirun's job, or a world of one
digits = sx.data.load_mnist(sys.argv[1] if len(sys.argv) > 1 else "data/mnist")
x = sx.placeholder((None, 1, 28, 28), sx.float32, "x")
y = sx.placeholder((None,), sx.int64, "y")
net = L.Sequential([L.Flatten(), L.Dense(128), L.Activation("relu"), L.Dense(10)])
loss = sx.train.softmax_cross_entropy(net(x / 255.0, training=True), y)
opt = d.DistributedOptimizer(sx.optim.Adam(1e-3), bucket_mb=25)
opt.minimize(loss)  # averaged gradients; every process starts from rank 0's parameters
step = sx.function([x, y], [loss], updates=sx.get_updates())

per_process = 64 // d.world_size()
images = digits.x.astype(np.float32)
batches = sx.data.BatchIterator(
    [images, digits.y], batch_size=per_process, seed=0, shard=d.rank(), shards=d.world_size()
)
for epoch in range(2):
    losses = [step(xb, yb)[0] for xb, yb in batches]
    mean = d.all_reduce(np.mean(losses), "mean")  # over every process's batches
    if d.rank() == 0:
        print(f"epoch {epoch + 1}: mean loss {float(mean):.4f} over {d.world_size()} processes")

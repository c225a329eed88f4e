# The README's toolkit quick start: a small classifier with layers, a loss, Adam and a schedule,
# trained on batches of 64 whose last one is smaller (the batch size is None).
import numpy as np
import symx as sx
from symx import optim
from symx.nn import layers as L, losses
from symx.optim import schedules

rng = np.random.default_rng(0)
data = rng.standard_normal((1000, 2)).astype(np.float32)
labels = (np.hypot(data[:, 0], data[:, 1]) > 1.2).astype(np.int64)  # inside or outside a circle

net = L.Sequential([L.Dense(32), L.BatchNorm(), L.Activation("relu"), L.Dropout(0.1), L.Dense(2)])
x = sx.placeholder((None, 2), name="x")
y = sx.placeholder((None,), sx.int64, name="y")
loss = losses.softmax_cross_entropy_loss(net(x, training=True), y)  # integer labels, mean over the batch
optim.Adam(schedules.linear_warmup(schedules.cosine_decay(0.05, 150), 10)).minimize(loss)
train = sx.function([x, y], [loss], updates=sx.get_updates())  # Adam's and batch norm's updates
accuracy = losses.accuracy(net(x, training=False), y)
evaluate = sx.function([x, y], [accuracy])

for epoch in range(10):
    order = rng.permutation(len(data))
    losses = [train(data[b], labels[b])[0] for b in np.split(order, range(64, len(data), 64))]
    print(f"epoch {epoch}: loss {np.mean(losses):.4f}, accuracy {evaluate(data, labels)[0]:.3f}")

# The README's Python quick start: least squares by gradient descent.
import numpy as np
import symx as sx

rng = np.random.default_rng(0)
xb = rng.standard_normal((32, 10)).astype(np.float32)
yb = xb @ np.arange(1, 11, dtype=np.float32).reshape(10, 1) / 10

x = sx.placeholder((32, 10), "float32", name="x")
y = sx.placeholder((32, 1), "float32", name="y")
w = sx.variable(np.zeros((10, 1), np.float32), name="w")
loss = sx.mean(sx.square(x @ w - y))
(gw,) = sx.grad(loss, [w])
step = sx.function([x, y], [loss], updates={w: w - 0.1 * gw})
for i in range(10):
    print(f"step {i}: loss {step(xb, yb)[0]:.4f}")
print("final loss", loss.eval({x: xb, y: yb}))  # lazy evaluation, no function needed

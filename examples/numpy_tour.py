# The README's NumPy quick start: sorting, running products, indexed updates, einsum, special
# functions and per-op seeds, each a graph op with its gradient, compiled by sx.function.
import numpy as np

import symx as sx

x = sx.placeholder((4,), name="x")
f = sx.function([x], [sx.sort(x), sx.median(x), sx.cumprod(x), sx.grad(sx.sum(sx.cumprod(x)), x)])
for out in f(np.array([3.0, 0.0, 2.0, 1.0], np.float32)):
    print(out)  # [0 1 2 3], 1.5, [3 0 0 0], d/dx sum(cumprod): exact at the zero

# x.at[...] (JAX's spelling) returns an updated copy; repeated indices add up.
counts = sx.zeros(4).at[np.array([1, 3, 1])].add(1.0)
print(counts.eval())  # [0 2 0 1]

# einsum contracts through one batched matrix product (no copies of the operands).
q = sx.placeholder((2, 3, 4), name="q")
scores = sx.einsum("bqd,bkd->bqk", q, q)
print(scores.shape, sx.special.gammaln(sx.constant(5.0)).eval())  # (2, 3, 3), log(24)

# A draw with its own seed is reproducible whatever the global seed; size= makes nonzero compilable.
print(sx.random.gamma(2.0, (3,), seed=7).eval())
print(sx.nonzero(x > 1, size=3, fill_value=-1)[0].eval({x: np.array([3.0, 0.0, 2.0, 1.0], np.float32)}))

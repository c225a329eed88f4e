# The README's loops quick start: scan, its gradient (backpropagation through time), a while_loop and
# a cond, each compiled once into a function whose loop runs without Python.
import numpy as np

import symx as sx

# A running sum and the sum of squares of its steps: scan carries the sum, stacks an output per step.
xs = sx.placeholder((None,), name="xs")  # a sequence of any length
total, partial = sx.scan(lambda s, x: (s + x, s + x), 0.0, sequences=[xs])
loss = sx.sum(partial * partial)
(g,) = sx.grad(loss, [xs])  # a reverse scan
f = sx.function([xs], [total, partial, g])
print(f(np.arange(1, 5, dtype=np.float32)))  # 10, [1 3 6 10], [40 38 32 20]

# Newton's iteration for sqrt(a) until it converges: a while_loop over a tuple of carries.
a = sx.placeholder((), name="a")
root, steps = sx.while_loop(
    lambda c: sx.abs(c[0] * c[0] - a) > 1e-6 * a,
    lambda c: ((c[0] + a / c[0]) / 2, c[1] + 1),
    (a, sx.constant(np.int32(0))),
)
print(sx.function([a], [root, steps])(np.float32(2.0)))  # 1.4142135, 4

# Only the branch taken runs, and only it is differentiated: no NaN from log at x <= 0.
x = sx.placeholder((), name="x")
y = sx.cond(x > 0, lambda x: sx.log(x), lambda x: x, x)
print(sx.function([x], [y, sx.grad(y, [x])[0]])(np.float32(-2.0)))  # -2, 1

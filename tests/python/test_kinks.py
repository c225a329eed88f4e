"""Values and gradients at kinks and special points against PyTorch's autograd (issue 19, A.1).

tests/golden/golden_kinks.py puts each case's inputs exactly where a rule has to choose (0, +-1, the
ends of the domain, ties of max/min and argmax, equal operands of maximum/minimum, clip and hard_tanh
at their bounds, where with equal branches, power at 0, mod at integer quotients, ...) and stores
PyTorch's values and gradients of sum(f(x) * r) in float64. Here every case is evaluated in symx with
the reference evaluator and with the compiled backend (one function each for all the cases, so the
module compiles once) and compared, NaN for NaN and infinity for infinity.

test_every_differentiable_op_has_a_kink_case walks the op table and fails for a differentiable op
that no case exercises, so a new op cannot arrive without a special-point gradient case.

Conventions at a kink (PyTorch's, which JAX shares unless noted): maximum and minimum split the
gradient of a tie in half (as do the max/min reductions among the tied elements); abs and sign have 0
at 0; relu, relu6, hard_tanh, hard_sigmoid and hard_silu take the outer piece's slope at a corner (0 at
relu's 0); clip keeps the gradient at its bounds (torch.clamp); leaky_relu has the negative slope at 0
(JAX's has 1); elu and celu the negative piece's slope at 0; power's gradient for the base is 0 where
the exponent is 0, and for the exponent 0 at base 0 and NaN at a negative base; max_pool gives a tied
window's gradient to its first maximum; argmax and argmin return the first tied index. Control flow
(scan, cond, switch) is checked against the same loop and `if` written over PyTorch ops: a cond's
gradient is its taken branch's alone (the false one at cond(x > 0, ...)'s x = 0).
"""

import os

import numpy as np
import pytest

import symx as sx
from goldens import GOLDEN
from symx.nn import losses


def load_cases():
    """{case: {"x": [inputs], "y": value, "r": cotangent or None, "dx": {input index: gradient}}},
    unpacked from tests/golden/kinks.npz (see golden_kinks.pack)."""
    with np.load(os.path.join(GOLDEN, "kinks.npz")) as f:
        values, index = f["values"], f["index"]
    cases = {}
    for row in index:
        key, dtype, offset, *shape = str(row).split()
        shape = tuple(int(d) for d in shape)
        start = int(offset)
        array = values[start : start + int(np.prod(shape, dtype=np.int64))].astype(dtype).reshape(shape)
        name, part = key.rsplit(":", 1)
        case = cases.setdefault(name, {"x": {}, "y": None, "r": None, "dx": {}})
        if part.startswith("dx"):
            case["dx"][int(part[2:])] = array
        elif part.startswith("x"):
            case["x"][int(part[1:])] = array
        else:
            case[part] = array
    for case in cases.values():
        case["x"] = [case["x"][k] for k in range(len(case["x"]))]
    return cases


CASES = load_cases()


def symmetric(x):
    return (x + sx.transpose(x, (0, 2, 1))) / 2


def tie_sums(w):
    # (w0 + w1, w2): the same whichever vectors span a tie of the first two eigenvalues
    return sx.concatenate([sx.expand_dims(w[:, 0] + w[:, 1], -1), w[:, 2:]], axis=-1)


def eigh_cubed(x):
    # v diag(w^3) v^T of (x + x^T) / 2: its cube, smooth at repeated eigenvalues (the golden is a^3)
    w, v = sx.linalg.eigh(symmetric(x))
    return sx.matmul(v * sx.expand_dims(w**3, -2), sx.transpose(v, (0, 2, 1)))


def svd_rebuilt(x):
    # u diag(s) vh: x itself (the golden), through svd's rule at a zero singular value
    u, s, vh = sx.linalg.svd(x, full_matrices=False)
    return sx.matmul(u * sx.expand_dims(s, -2), vh)


def cholesky_of_symmetric(x):
    # The golden differentiates cholesky((x + x^T) / 2), so that no rule's choice of triangle matters.
    return sx.linalg.cholesky((x + sx.transpose(x, (0, 2, 1))) / 2)


def lower_triangular_solve(a, b):
    # torch.linalg.solve_triangular's gradient for a is lower-triangular; so is this one's, with a's
    # upper triangle multiplied out.
    return sx.linalg.triangular_solve(a * np.tril(np.ones((2, 2))), b, lower=True)


# case -> the symx function of the case's inputs (placeholders), as golden_kinks.CASES spells it in PyTorch.
SYMX = {
    "negative": sx.negative,
    "abs": sx.abs,
    "sign": sx.sign,
    "exp": sx.exp,
    "expm1": sx.expm1,
    "log": sx.log,
    "log1p": sx.log1p,
    "sqrt": sx.sqrt,
    "rsqrt": sx.rsqrt,
    "square": sx.square,
    "reciprocal": sx.reciprocal,
    "sin": sx.sin,
    "cos": sx.cos,
    "tan": sx.tan,
    "tanh": sx.tanh,
    "arctan": sx.arctan,
    "sigmoid": sx.sigmoid,
    "erf": sx.erf,
    "lgamma": sx.lgamma,
    "digamma": sx.digamma,
    "erfc": sx.erfc,
    "erfinv": sx.erfinv,
    "erfcx": sx.erfcx,
    "ndtri": sx.ndtri,
    "log_ndtr": sx.log_ndtr,
    "i0e": sx.i0e,
    "i1e": sx.i1e,
    "expi": sx.expi,
    "exp1": sx.exp1,
    "zeta": sx.zeta,
    "gammainc": sx.gammainc,
    "gammaincc": sx.gammaincc,
    "betainc": sx.betainc,
    "hyp1f1": sx.hyp1f1,
    "hyp2f1": sx.hyp2f1,
    "owens_t": sx.owens_t,
    "spence": sx.spence,
    "dawsn": sx.dawsn,
    "fresnel_s": lambda x: sx.fresnel(x)[0],
    "fresnel_c": lambda x: sx.fresnel(x)[1],
    "sinint": lambda x: sx.sici(x)[0],
    "cosint": lambda x: sx.sici(x)[1],
    "expn": sx.expn,
    "jn": sx.jn,
    "floor": sx.floor,
    "ceil": sx.ceil,
    "round": sx.round,
    "cast": lambda x: sx.cast(sx.cast(x, "float32"), "float64"),
    "stop_gradient": lambda x: x * sx.stop_gradient(x),
    "add": sx.add,
    "subtract": sx.subtract,
    "multiply": sx.multiply,
    "divide": sx.divide,
    "power": sx.power,
    "maximum": sx.maximum,
    "minimum": sx.minimum,
    "mod": sx.mod,
    "floor_divide": sx.floor_divide,
    "arctan2": sx.arctan2,
    "where": sx.where,
    "clip": lambda x: sx.clip(x, -1, 3),
    "clip_min": lambda x: x.clip(min=0),
    "clip_max": lambda x: x.clip(max=1),
    "sum": lambda x: sx.sum(x, axis=-1),
    "prod": lambda x: sx.prod(x, axis=-1),
    "prod_all": sx.prod,
    "max": lambda x: sx.max(x, axis=-1),
    "max_all": sx.max,
    "min": lambda x: sx.min(x, axis=-1),
    "min_all": sx.min,
    "argmax": lambda x: sx.argmax(x, axis=-1),
    "argmin": lambda x: sx.argmin(x, axis=-1),
    "cumsum": lambda x: sx.cumsum(x, axis=0),
    "sort": sx.sort,
    "partition": lambda x: sx.partition(x, [0, 1, 2]),
    "median": lambda x: sx.median(x, axis=-1),
    "median_even": lambda x: sx.median(x, axis=-1),
    "cumprod": lambda x: sx.cumprod(x, axis=-1),
    "cummax": lambda x: sx.cummax(x, axis=-1),
    "cummin": lambda x: sx.cummin(x, axis=-1),
    "logcumsumexp": lambda x: sx.logcumsumexp(x, axis=-1),
    "mean": lambda x: sx.mean(x, axis=-1),
    "var": lambda x: sx.var(x, axis=-1),
    "std": lambda x: sx.std(x, axis=-1),
    "logsumexp": lambda x: sx.logsumexp(x, axis=-1),
    "reshape": lambda x: sx.reshape(x, (3, 2)),
    "transpose": sx.transpose,
    "broadcast_to": lambda x: sx.broadcast_to(x, (2, 3)),
    "concatenate": lambda x, y: sx.concatenate([x, y], axis=1),
    "slice": lambda x: x[:, 1:3],
    "pad": lambda x: sx.pad(x, [(1, 0), (0, 2)]),
    "take": lambda x, i: sx.take(x, i, axis=0),
    "take_along_axis": lambda x, i: sx.take_along_axis(x, i, axis=1),
    # scatter_mul's cotangent of an update is the product of the other updates at its position (exact
    # with zeros); scatter_min/max share a tie's cotangent equally (PyTorch's amin/amax and JAX agree).
    "scatter_set": lambda x, v, i: x.at[i].set(v),
    "scatter_mul": lambda x, v, i: x.at[i].multiply(v),
    "scatter_min": lambda x, v, i: x.at[i].min(v),
    "scatter_max": lambda x, v, i: x.at[i].max(v),
    "matmul": sx.matmul,
    "complex_parts": lambda a, b: (
        sx.abs(sx.complex(a, b)) + sx.real(sx.conj(sx.complex(a, b)) * sx.complex(b, a)) + 2 * sx.imag(sx.complex(a, b))
    ),
    "fft": lambda x: (
        sx.sum(sx.abs(sx.fft.rfft(x)), axis=-1) + sx.sum(sx.fft.irfft(sx.fft.fft(x)[..., :4], n=6), axis=-1)
    ),
    "inv": sx.linalg.inv,
    "det": sx.linalg.det,
    "slogdet": lambda x: sx.linalg.slogdet(x)[1],
    "cholesky": cholesky_of_symmetric,
    "eigh": lambda x: tie_sums(sx.linalg.eigh(symmetric(x))[0]),
    "eigh_cube": eigh_cubed,
    "eigvalsh": lambda x: tie_sums(sx.linalg.eigvalsh(symmetric(x))),
    "svd": svd_rebuilt,
    "svdvals": lambda x: sx.sum(sx.linalg.svdvals(x) ** 2, axis=-1),
    "svd_full": lambda x: sx.linalg.svd(x)[1],
    "solve": sx.linalg.solve,
    "triangular_solve": lower_triangular_solve,
    "qr": lambda x: sx.concatenate(list(sx.linalg.qr(x)), -1),
    "lu_factor": lambda x: sx.linalg.lu_factor(x)[0],
    "conv": sx.nn.conv2d,
    "max_pool": lambda x: sx.nn.max_pool2d(x, 2),
    "avg_pool": lambda x: sx.nn.avg_pool2d(x, 2),
    "softmax_cross_entropy": sx.nn.softmax_cross_entropy,
    "nn.relu": sx.nn.relu,
    "nn.leaky_relu": lambda x: sx.nn.leaky_relu(x, 0.1),
    "nn.elu": lambda x: sx.nn.elu(x, 0.5),
    "nn.gelu": sx.nn.gelu,
    "nn.gelu_tanh": lambda x: sx.nn.gelu(x, approximate=True),
    "nn.softplus": sx.nn.softplus,
    "nn.log_sigmoid": sx.nn.log_sigmoid,
    "log_of_sigmoid": lambda x: sx.log(sx.sigmoid(x)),
    "log1p_of_exp": lambda x: sx.log1p(sx.exp(x)),
    "nn.softmax": sx.nn.softmax,
    "nn.log_softmax": sx.nn.log_softmax,
    "nn.relu6": sx.nn.relu6,
    "nn.hard_tanh": sx.nn.hard_tanh,
    "nn.hard_sigmoid": sx.nn.hard_sigmoid,
    "nn.hard_silu": sx.nn.hard_silu,
    "nn.selu": sx.nn.selu,
    "nn.celu": lambda x: sx.nn.celu(x, 0.5),
    "nn.silu": sx.nn.silu,
    "nn.soft_sign": sx.nn.soft_sign,
    "nn.glu": sx.nn.glu,
    "nn.normalize_inf": lambda x: sx.nn.normalize(x, np.inf),
    "nn.normalize_ord1": lambda x: sx.nn.normalize(x, 1.0),
    "loss.bce": losses.sigmoid_binary_cross_entropy_loss,
    "loss.mae": losses.mean_absolute_error_loss,
    "loss.huber": lambda p, t: losses.huber_loss(p, t, delta=1.0),
    "loss.hinge": losses.hinge_loss,
    "loss.multiclass_hinge": losses.multiclass_hinge_loss,
    "loss.kl": losses.kl_divergence_loss,
    "loss.softmax_ce": losses.softmax_cross_entropy_loss,
    "scan_relu": lambda h, xs: sx.scan(lambda c, x: (sx.nn.relu(c + x),) * 2, h, sequences=[xs])[1],
    "cond": lambda xs: sx.map(lambda x: sx.cond(x > 0, sx.log, lambda v: 2 * v, x), [xs]),
    "switch": lambda x, k: sx.switch(k, [lambda v: v * v, sx.sin, lambda v: sx.abs(v) * 3], x),
    "arcsin": sx.arcsin,
    "arccos": sx.arccos,
    "arcsinh": sx.arcsinh,
    "arccosh": sx.arccosh,
    "arctanh": sx.arctanh,
    "sinh": sx.sinh,
    "cosh": sx.cosh,
    "log2": sx.log2,
    "log10": sx.log10,
    "exp2": sx.exp2,
    "cbrt": sx.cbrt,
    "hypot": sx.hypot,
    "copysign": sx.copysign,
    "fmod": sx.fmod,
}


class Built:
    """One case's graph: its placeholders, value and gradients (one per golden dx)."""

    def __init__(self, name):
        case = CASES[name]
        self.phs = [sx.placeholder(x.shape, x.dtype, name=f"x{k}") for k, x in enumerate(case["x"])]
        self.y = SYMX[name](*self.phs)
        self.diff = sorted(case["dx"])
        self.grads = []
        if case["r"] is not None:
            cost = sx.sum(self.y * case["r"])
            self.grads = sx.grad(cost, [self.phs[k] for k in self.diff])


@pytest.fixture(scope="module")
def evaluated():
    """{backend: {case: [value, gradients...]}}, every case in one function per backend."""
    sx.reset_default_graph()
    built = {name: Built(name) for name in CASES}
    phs = [p for b in built.values() for p in b.phs]
    outs = [t for b in built.values() for t in [b.y] + list(b.grads)]
    args = [x for name in CASES for x in CASES[name]["x"]]
    results = {}
    for backend in ("reference", "compiled"):
        got = iter(sx.function(phs, outs, backend=backend)(*args))
        results[backend] = {name: [next(got) for _ in range(1 + len(b.grads))] for name, b in built.items()}
    yield results
    sx.reset_default_graph()


def check(got, want, what):
    assert got.shape == want.shape, f"{what}: shape {got.shape}, PyTorch {want.shape}"
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=what)


@pytest.mark.parametrize("backend", ["reference", "compiled"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_kink_matches_pytorch(evaluated, name, backend):
    case = CASES[name]
    value, *grads = evaluated[backend][name]
    where = f"{name} ({backend}) at {[x.tolist() for x in case['x']]}"
    check(np.asarray(value, np.float64), case["y"].astype(np.float64), f"{where}: value")
    assert len(grads) == len(case["dx"])
    for k, g in zip(sorted(case["dx"]), grads):
        check(np.asarray(g), case["dx"][k], f"{where}: gradient for input {k}")


def test_every_case_has_a_symx_function():
    assert sorted(SYMX) == sorted(CASES), "golden_kinks.CASES and test_kinks.SYMX name different cases"


# ---- coverage of the op table ----------------------------------------------------------------------

# Ops without a gradient: leaves, predicates, integer and bit ops, random draws, argmax/argmin (which
# still have tie cases for their values) and host_call (its gradient is whatever the host program
# defines). A differentiable op must never be listed here.
NOT_DIFFERENTIABLE = {
    "lu_pivots_to_permutation",  # integer pivots to an integer permutation
    "gcd",  # integer and bit functions (issue 21)
    "lcm",
    "bitwise_count",
    "nextafter",
    "placeholder",
    "variable",
    "constant",
    "argmax",
    "argmin",
    "logical_not",
    "logical_and",
    "logical_or",
    "isnan",
    "isfinite",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "bitwise_not",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "left_shift",
    "right_shift",
    "random_uniform",
    "random_normal",
    "random_truncated_normal",
    "random_bernoulli",
    "random_randint",
    "random_permutation",
    "random_poisson",
    # random draws have no golden: random_gamma's implicit gradient (random_gamma_grad, which has no
    # second derivative) is checked against SciPy in test_random.py::test_gamma_gradient.
    "random_gamma",
    "random_gamma_grad",
    "host_call",
    # No reverse-mode gradient (a ValueError that suggests fori_loop or scan, as in JAX): see
    # test_control_flow.py::test_while_loop_has_no_gradient_and_says_what_to_use.
    "while_loop",
    # sorting and searching (issue 21): integer results
    "argsort",
    "argpartition",
    "searchsorted",
    "signbit",
}

# Ops that only gradient graphs build (the transposes of other ops): each must appear in the gradient
# graph of a case, whose gradient the golden then checks.
GRADIENT_ONLY = {
    "unslice",
    "scatter_add",
    "scatter_add_along_axis",
    "conv_backward_input",
    "conv_backward_filter",
    "max_pool_grad",
    "avg_pool_grad",
    "softmax_cross_entropy_grad",
    "linear_recurrence",  # cumprod's gradient scan (issue 21)
}

# Ops smooth everywhere in their domain (no kink to choose at), listed so that a reader sees they were
# considered; they still need a case at their special points (0, +-1, the ends of the domain, the
# identity and a permutation for linear algebra, zeros and repeated indices for indexing).
SMOOTH = {
    "qr",  # smooth wherever r is invertible (full column rank)
    "lgamma",  # special functions (issue 21); i0e and i1e have |x| inside: their gradient at 0 is torch's
    "digamma",
    "erfc",
    "erfinv",
    "erfcx",
    "ndtri",
    "log_ndtr",
    "expi",
    "exp1",
    "zeta",
    "gammainc",
    "gammaincc",
    "betainc",
    "hyp1f1",  # (issue 21) gradient in x only
    "hyp2f1",
    "spence",
    "dawsn",
    "fresnel_s",
    "fresnel_c",
    "sinint",
    "cosint",
    "expn",
    "jn",
    "negative",
    "exp",
    "expm1",
    "log",
    "log1p",
    "sqrt",
    "rsqrt",
    "square",
    "reciprocal",
    "sin",
    "cos",
    "tan",
    "tanh",
    "arctan",
    "sigmoid",
    "erf",
    "cast",
    "add",
    "subtract",
    "multiply",
    "divide",
    "arctan2",
    "sum",
    "cumsum",
    "reshape",
    "transpose",
    "broadcast_to",
    "concatenate",
    "slice",
    "pad",
    "take",
    "take_along_axis",
    "scatter_set",
    "scatter_mul",
    "matmul",
    "inv",
    "det",
    "slogdet",
    "cholesky",
    "solve",
    "triangular_solve",
    "conv",
    "avg_pool",
    "softmax_cross_entropy",
    "arcsin",
    "arccos",
    "arcsinh",
    "arccosh",
    "arctanh",
    "sinh",
    "cosh",
    "log2",
    "log10",
    "exp2",
    "cbrt",
}


def test_every_differentiable_op_has_a_kink_case():
    sx.reset_default_graph()
    forward, backward = set(), set()
    for name in CASES:
        b = Built(name)
        forward |= {t.op for t in sx.topological_order([b.y])}
        backward |= {t.op for t in sx.topological_order(list(b.grads))} if b.grads else set()
    sx.reset_default_graph()
    ops = set(sx._symx._op_names())
    assert not (NOT_DIFFERENTIABLE | GRADIENT_ONLY | SMOOTH) - ops, "lists here name ops the table lacks"
    assert not NOT_DIFFERENTIABLE & (GRADIENT_ONLY | SMOOTH)
    missing = sorted(op for op in ops - NOT_DIFFERENTIABLE - GRADIENT_ONLY if op not in forward)
    assert not missing, (
        f"differentiable ops without a kink/special-point case: {missing}. Add a case at the op's kinks "
        "and special points to tests/golden/golden_kinks.py (then run tests/golden/make_golden.py --only "
        "kinks) and its symx spelling to SYMX here, or list the op in NOT_DIFFERENTIABLE if it has no gradient."
    )
    unreached = sorted(GRADIENT_ONLY - backward)
    assert not unreached, f"gradient-only ops that no case's gradient graph builds: {unreached}"


# ---- the concrete cases ----------------------------------------------------------------------


def test_binary_cross_entropy_gradient_at_zero_logits():
    """PyTorch's BCEWithLogits has gradient sigmoid(0) - y = -0.5 for y = 1 at logit 0 (symx gave -1)."""
    sx.reset_default_graph()
    z = sx.placeholder((3,), "float64", name="z")
    labels = np.array([1.0, 0.0, 0.5])
    loss = losses.sigmoid_binary_cross_entropy_loss(z, labels, reduction="sum")
    (g,) = sx.grad(loss, [z])
    for backend in ("reference", "compiled"):
        value, grad = sx.function([z], [loss, g], backend=backend)(np.zeros(3))
        np.testing.assert_allclose(value, 3 * np.log(2), rtol=1e-12)
        np.testing.assert_allclose(grad, 0.5 - labels, rtol=1e-12, err_msg=backend)
    x = sx.placeholder((2,), "float64", name="x")
    for fn in (sx.nn.softplus, lambda t: sx.log1p(sx.exp(t)), lambda t: -sx.nn.log_sigmoid(-t)):
        (d,) = sx.grad(sx.sum(fn(x)), [x])
        np.testing.assert_allclose(d.eval({x: np.zeros(2)}), [0.5, 0.5], rtol=1e-12)


def test_logistic_regression_first_step_from_zero():
    """One SGD step of a logistic regression from w = 0, b = 0: w -= lr * X^T (sigmoid(0) - y) / n, the
    gradient at 0 computed by hand (it was twice as large for the positive examples)."""
    sx.reset_default_graph()
    rng = np.random.default_rng(3)
    xs = rng.normal(size=(8, 3))
    ys = (rng.random(8) > 0.5).astype(np.float64)
    x = sx.placeholder((8, 3), "float64", name="x")
    y = sx.placeholder((8,), "float64", name="y")
    w = sx.variable(np.zeros(3), name="w")
    b = sx.variable(np.zeros(()), name="b")
    logits = sx.matmul(x, w) + b
    loss = losses.sigmoid_binary_cross_entropy_loss(logits, y)
    sx.optim.SGD(0.5).minimize(loss)
    step = sx.function([x, y], [loss], updates=sx.get_updates())
    (first,) = step(xs, ys)
    residual = 0.5 - ys
    np.testing.assert_allclose(first, np.log(2), rtol=1e-12)
    np.testing.assert_allclose(w.value, -0.5 * xs.T @ residual / 8, rtol=1e-12)
    np.testing.assert_allclose(b.value, -0.5 * residual.mean(), rtol=1e-12)

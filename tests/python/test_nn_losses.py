"""symx.nn.losses (issue 9): each loss's value for every reduction and its gradients against PyTorch's
(golden files written by tests/golden/golden_losses.py, float64, 1e-10 relative), gradients also
against float64 finite differences, finiteness for logits of +-1e4 in float32, the compiled path,
metrics against torch.topk, a batch size known only at run time, and argument errors."""

import inspect
import re

import numpy as np
import pytest

import symx as sx
from goldens import load_golden
from helpers import numeric_grad
from symx.nn import losses

pytestmark = pytest.mark.usefixtures("fresh_graph")


def golden(case):
    return load_golden("losses_" + case)


# case -> (the symx loss of (placeholders by name, golden arrays, reduction), its tensor arguments)
CASES = {
    "ce_sparse": (
        lambda a, g, r: losses.softmax_cross_entropy_loss(a["logits"], a["labels"], reduction=r),
        ["logits", "labels"],
    ),
    "ce_sparse_smooth": (
        lambda a, g, r: losses.softmax_cross_entropy_loss(
            a["logits"], a["labels"], label_smoothing=float(g["label_smoothing"]), reduction=r
        ),
        ["logits", "labels"],
    ),
    "ce_soft": (
        lambda a, g, r: losses.softmax_cross_entropy_loss(a["logits"], a["labels"], reduction=r),
        ["logits", "labels"],
    ),
    "ce_soft_smooth": (
        lambda a, g, r: losses.softmax_cross_entropy_loss(
            a["logits"], a["labels"], label_smoothing=float(g["label_smoothing"]), reduction=r
        ),
        ["logits", "labels"],
    ),
    "ce_3d": (
        lambda a, g, r: losses.softmax_cross_entropy_loss(a["logits"], a["labels"], reduction=r),
        ["logits", "labels"],
    ),
    "bce": (
        lambda a, g, r: losses.sigmoid_binary_cross_entropy_loss(a["logits"], a["labels"], reduction=r),
        ["logits", "labels"],
    ),
    "bce_pos_weight": (
        lambda a, g, r: losses.sigmoid_binary_cross_entropy_loss(
            a["logits"], a["labels"], pos_weight=a["pos_weight"], reduction=r
        ),
        ["logits", "labels", "pos_weight"],
    ),
    "mse": (
        lambda a, g, r: losses.mean_squared_error_loss(a["predictions"], a["targets"], reduction=r),
        ["predictions", "targets"],
    ),
    "mae": (
        lambda a, g, r: losses.mean_absolute_error_loss(a["predictions"], a["targets"], reduction=r),
        ["predictions", "targets"],
    ),
    "huber": (
        lambda a, g, r: losses.huber_loss(a["predictions"], a["targets"], reduction=r),
        ["predictions", "targets"],
    ),
    "huber_delta0.5": (
        lambda a, g, r: losses.huber_loss(a["predictions"], a["targets"], delta=float(g["delta"]), reduction=r),
        ["predictions", "targets"],
    ),
    "hinge_pm1": (lambda a, g, r: losses.hinge_loss(a["scores"], a["labels"], reduction=r), ["scores", "labels"]),
    "hinge_01": (lambda a, g, r: losses.hinge_loss(a["scores"], a["labels"], reduction=r), ["scores", "labels"]),
    "multi_margin": (
        lambda a, g, r: losses.multiclass_hinge_loss(a["logits"], a["labels"], reduction=r),
        ["logits", "labels"],
    ),
    "multi_margin_p2": (
        lambda a, g, r: losses.multiclass_hinge_loss(
            a["logits"], a["labels"], margin=float(g["margin"]), p=int(g["p"]), reduction=r
        ),
        ["logits", "labels"],
    ),
    "kl": (
        lambda a, g, r: losses.kl_divergence_loss(a["log_predictions"], a["targets"], reduction=r),
        ["log_predictions", "targets"],
    ),
    "kl_log_target": (
        lambda a, g, r: losses.kl_divergence_loss(a["log_predictions"], a["targets"], log_target=True, reduction=r),
        ["log_predictions", "targets"],
    ),
}


def build(case, float_dtype=np.float64):
    """Placeholders for the case's arguments (floats in `float_dtype`) and their feed."""
    g = golden(case)
    args, feed = {}, {}
    for name in CASES[case][1]:
        value = g[name].astype(float_dtype) if g[name].dtype.kind == "f" else g[name]
        args[name] = sx.placeholder(value.shape, value.dtype, name=name)
        feed[args[name]] = value
    return g, args, feed


def reductions(g):
    return [key[len("value_") :] for key in g if key.startswith("value_")]


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_match_pytorch_for_every_reduction(case):
    g, args, feed = build(case)
    for reduction in reductions(g):
        value = CASES[case][0](args, g, reduction).eval(feed)
        assert value.dtype == np.float64 and value.shape == g["value_" + reduction].shape, reduction
        np.testing.assert_allclose(value, g["value_" + reduction], rtol=1e-10, atol=1e-300, err_msg=reduction)


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_match_pytorch(case):
    g, args, feed = build(case)
    differentiable = [name for name in args if "d" + name in g]
    assert differentiable
    for suffix, loss in (
        ("", sx.sum(CASES[case][0](args, g, "none") * g["r"])),
        ("_mean", CASES[case][0](args, g, "mean")),
    ):
        grads = sx.grad(loss, [args[name] for name in differentiable])
        for name, gradient in zip(differentiable, grads):
            np.testing.assert_allclose(
                gradient.eval(feed), g["d" + name + suffix], rtol=1e-10, atol=1e-14, err_msg=name + suffix
            )


@pytest.mark.parametrize(
    "case",
    [
        "ce_sparse_smooth",
        "ce_soft",
        "bce_pos_weight",
        "huber_delta0.5",
        "hinge_01",
        "multi_margin_p2",
        "kl",
        "kl_log_target",
    ],
)
def test_gradients_match_finite_differences(case):
    g, args, feed = build(case)
    # Moderate values: central differences lose the digits compared here around 1e4.
    feed = {p: (np.clip(v, -6, 6) if v.dtype.kind == "f" else v) for p, v in feed.items()}
    first = CASES[case][1][0]
    x = args[first]
    cost = sx.sum(CASES[case][0](args, g, "none") * g["r"])
    (dx,) = sx.grad(cost, [x])
    others = [p for p in feed if p is not x]
    f = sx.function([x] + others, [cost, dx], backend="reference")
    rest = [feed[p] for p in others]
    numeric = numeric_grad(lambda v: float(f(v, *rest)[0]), feed[x])
    np.testing.assert_allclose(f(feed[x], *rest)[1], numeric, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("case", sorted(CASES))
def test_float32_is_finite_for_logits_of_1e4(case):
    g, args, feed = build(case, np.float32)
    loss = CASES[case][0](args, g, "mean")
    assert loss.dtype == np.float32
    floats = [args[name] for name in args if feed[args[name]].dtype.kind == "f"]
    outputs = [loss] + sx.grad(loss, floats)
    for value in sx.function(list(feed), outputs, backend="compiled")(*feed.values()):
        assert np.all(np.isfinite(value))
    np.testing.assert_allclose(loss.eval(feed), g["value_mean"], rtol=2e-5)


def test_compiled_function_matches_pytorch():
    """Every loss and its gradients in one compiled function (fused kernels) agree with PyTorch."""
    inputs, outputs, expected = [], [], []
    for case in sorted(CASES):
        g, args, feed = build(case)
        loss = CASES[case][0](args, g, "mean")
        names = [name for name in args if "d" + name + "_mean" in g]
        outputs += [loss] + sx.grad(loss, [args[name] for name in names])
        expected += [g["value_mean"]] + [g["d" + name + "_mean"] for name in names]
        inputs += list(feed.items())
    f = sx.function([p for p, _ in inputs], outputs, backend="compiled")
    for k, (actual, wanted) in enumerate(zip(f(*[v for _, v in inputs]), expected)):
        np.testing.assert_allclose(actual, wanted, rtol=1e-9, atol=1e-14, err_msg=str(k))


def test_metrics_match_torch_topk():
    g = golden("metrics")
    logits = sx.placeholder(g["logits"].shape, "float64")
    labels = sx.placeholder(g["labels"].shape, "int64")
    feed = {logits: g["logits"], labels: g["labels"]}
    assert losses.accuracy(logits, labels).eval(feed) == g["accuracy"]
    for k in (1, 2, 3, 6):
        assert losses.top_k_accuracy(logits, labels, k=k).eval(feed) == g["top_%d_accuracy" % k], k
    one_hot = sx.one_hot(labels, 6)
    assert losses.accuracy(logits, one_hot).eval(feed) == g["accuracy"]
    assert losses.accuracy(sx.astype(logits, "float32"), labels).dtype == np.float32


def test_hand_values():
    np.testing.assert_allclose(losses.mean_squared_error_loss([1.0, 2.0], [1.0, 4.0]).eval(), 2.0)
    np.testing.assert_allclose(losses.mean_absolute_error_loss([1.0, 2.0], [1.0, 4.0], reduction="sum").eval(), 2.0)
    np.testing.assert_allclose(losses.huber_loss([0.5, 3.0], [0.0, 0.0], reduction="none").eval(), [0.125, 2.5])
    np.testing.assert_allclose(losses.hinge_loss([0.5, -2.0], [1, 0]).eval(), 0.25)
    np.testing.assert_allclose(losses.hinge_loss([0.5, -2.0], [1, -1]).eval(), 0.25)
    np.testing.assert_allclose(losses.multiclass_hinge_loss([[0.1, 0.2, 0.4]], [2]).eval(), 0.5, rtol=1e-6)
    np.testing.assert_allclose(losses.sigmoid_binary_cross_entropy_loss([0.0], [1.0]).eval(), np.log(2), rtol=1e-6)
    # Uniform logits: the loss is log(C) whatever the labels and the smoothing.
    np.testing.assert_allclose(
        losses.softmax_cross_entropy_loss(np.zeros((2, 4)), np.array([0, 3]), label_smoothing=0.3).eval(), np.log(4)
    )
    np.testing.assert_allclose(
        losses.kl_divergence_loss(np.log([[0.5, 0.5]]), [[1.0, 0.0]], reduction="batchmean").eval(), np.log(2)
    )


def test_mean_divides_by_the_batch_size_of_the_call():
    """The mean over examples is the graph's (no size is taken from the build-time shape): one graph over
    placeholders of unknown batch size, called with batches of 3 and of 5 examples, agrees with NumPy
    in value and gradient."""
    rng = np.random.default_rng(0)
    logits, labels = sx.placeholder((None, 4), "float64"), sx.placeholder((None,), "int64")
    cross_entropy = losses.softmax_cross_entropy_loss(logits, labels)
    kl = losses.kl_divergence_loss(logits, sx.zeros_like(logits) + 0.25, reduction="batchmean")
    f = sx.function([logits, labels], [cross_entropy, kl] + sx.grad(cross_entropy, [logits]) + sx.grad(kl, [logits]))
    for n in (3, 5):
        x, y = rng.normal(size=(n, 4)), rng.integers(0, 4, n)
        ce_value, kl_value, d_ce, d_kl = f(x, y)
        np.testing.assert_allclose(ce_value, np.mean(np.log(np.exp(x).sum(1)) - x[np.arange(n), y]), rtol=1e-12)
        np.testing.assert_allclose(
            d_ce, (np.exp(x) / np.exp(x).sum(1, keepdims=True) - np.eye(4)[y]) / n, rtol=1e-12, atol=1e-15
        )
        np.testing.assert_allclose(kl_value, np.sum(0.25 * (np.log(0.25) - x)) / n, rtol=1e-12)
        np.testing.assert_allclose(d_kl, np.full((n, 4), -0.25 / n), rtol=1e-12)


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_loss_takes_an_unknown_batch_size(case):
    """Each loss built on placeholders whose first axis is None (pos_weight, per class, excepted) matches
    PyTorch's golden values and gradients when called."""
    g = golden(case)
    args = {
        name: sx.placeholder(
            (None,) + g[name].shape[1:] if name != "pos_weight" else g[name].shape, g[name].dtype, name=name
        )
        for name in CASES[case][1]
    }
    loss = CASES[case][0](args, g, "mean")
    names = [name for name in args if "d" + name + "_mean" in g]
    f = sx.function(list(args.values()), [loss] + sx.grad(loss, [args[name] for name in names]), backend="reference")
    results = f(*[g[name] for name in args])
    np.testing.assert_allclose(results[0], g["value_mean"], rtol=1e-10)
    for name, value in zip(names, results[1:]):
        np.testing.assert_allclose(value, g["d" + name + "_mean"], rtol=1e-10, atol=1e-14, err_msg=name)


def test_out_of_range_labels_are_not_checked_and_read_nothing():
    """A label outside [0, C) has an all-zero one-hot row: its cross-entropy term is 0, never a crash."""
    loss = losses.softmax_cross_entropy_loss(np.zeros((2, 3)), np.array([5, -1]), reduction="none")
    np.testing.assert_allclose(loss.eval(), [0.0, 0.0])
    assert losses.top_k_accuracy(np.zeros((1, 3)), np.array([7]), k=1).eval() == 1.0  # logit 0 counts as its own


def test_errors_name_the_argument():
    logits = sx.placeholder((8, 10), name="logits")
    with pytest.raises(
        ValueError,
        match=r"softmax_cross_entropy_loss: reduction 'avg' is not one of 'mean', "
        r"'sum', 'none', at test_nn_losses\.py:\d+",
    ):
        losses.softmax_cross_entropy_loss(logits, sx.placeholder((8,), "int64"), reduction="avg")
    with pytest.raises(ValueError, match=r"'mean', 'batchmean', 'sum', 'none'"):
        losses.kl_divergence_loss(logits, logits, reduction="max")
    with pytest.raises(sx.ShapeError, match=r"labels must have the logits' shape without the class axis, \(8,\)"):
        losses.softmax_cross_entropy_loss(logits, sx.placeholder((7,), "int64"))
    with pytest.raises(sx.ShapeError, match=r"labels must have the shape of logits.*labels \(shape \(8, 9\)"):
        losses.softmax_cross_entropy_loss(logits, sx.placeholder((8, 9)))
    with pytest.raises(sx.DTypeError, match=r"class labels must be int32 or int64, not float32"):
        losses.multiclass_hinge_loss(logits, sx.placeholder((8,)))
    with pytest.raises(sx.DTypeError, match=r"logits must be float32 or float64, not int32"):
        losses.softmax_cross_entropy_loss(sx.placeholder((8, 10), "int32"), sx.placeholder((8,), "int64"))
    with pytest.raises(sx.DTypeError, match=r"predictions must be float32 or float64"):
        losses.mean_squared_error_loss(sx.placeholder((3,), "int64"), sx.placeholder((3,)))
    with pytest.raises(sx.ShapeError, match=r"targets must have the shape of predictions.*\(N, 1\) with \(N,\)"):
        losses.mean_squared_error_loss(sx.placeholder((8, 1)), sx.placeholder((8,)))
    with pytest.raises(sx.ShapeError, match=r"pos_weight does not broadcast"):
        losses.sigmoid_binary_cross_entropy_loss(logits, logits, pos_weight=np.ones(3, np.float32))
    with pytest.raises(ValueError, match=r"label_smoothing is 1\.5"):
        losses.softmax_cross_entropy_loss(logits, sx.placeholder((8,), "int64"), label_smoothing=1.5)
    with pytest.raises(ValueError, match=r"delta is -1"):
        losses.huber_loss(logits, logits, delta=-1.0)
    with pytest.raises(ValueError, match=r"p is 3"):
        losses.multiclass_hinge_loss(logits, sx.placeholder((8,), "int64"), p=3)
    with pytest.raises(ValueError, match=r"k is 0"):
        losses.top_k_accuracy(logits, sx.placeholder((8,), "int64"), k=0)
    with pytest.raises(sx.ShapeError, match=r"logits is a scalar"):
        losses.accuracy(sx.placeholder(()), sx.placeholder((), "int64"))


def test_every_function_has_a_docstring_with_an_example():
    import symx.nn.losses as imported  # the submodule imports like an ordinary one

    assert imported is losses
    names = [n for n in dir(losses) if not n.startswith("_") and callable(getattr(losses, n))]
    assert len(names) == 10
    for name in names:
        assert re.search(r"^\s*Example", getattr(losses, name).__doc__ or "", re.MULTILINE), name
    for name in (
        "selu",
        "celu",
        "hard_sigmoid",
        "hard_silu",
        "hard_swish",
        "soft_sign",
        "log_sigmoid",
        "glu",
        "normalize",
    ):
        assert "Example" in inspect.getdoc(getattr(sx.nn, name)), name

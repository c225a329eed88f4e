"""symx.optim and symx.optim.schedules (issue 9, optimizers and schedules).

Oracles: torch.optim trajectories stored in golden files (tests/golden/golden_optim.py), NumPy
formulas (written independently here) for the schedules and clipping, and the known minimum (1, 1)
of Rosenbrock's function."""

import glob
import inspect
import math
import os
import re

import numpy as np
import pytest

import symx as sx
from goldens import GOLDEN, load_golden
from symx import optim
from symx.optim import schedules

GOLDEN_CASES = sorted(
    os.path.basename(p)[len("optim_") : -len(".npz")] for p in glob.glob(os.path.join(GOLDEN, "optim_*.npz"))
)
OPTIMIZERS = {
    "sgd": optim.SGD,
    "adam": optim.Adam,
    "adamw": optim.AdamW,
    "rmsprop": optim.RMSprop,
    "adagrad": optim.Adagrad,
}
FLAGS = ("nesterov", "amsgrad", "centered")


pytestmark = pytest.mark.usefixtures("fresh_graph")


def load(case):
    return load_golden("optim_" + case)


def golden_problem(data):
    """The golden files' loss over variables w (3,) and z (2,), float64."""
    w = sx.variable(data["w"][0], name="w")
    z = sx.variable(data["z"][0], name="z")
    residual = sx.constant(data["A"]) @ w - sx.constant(data["b"])
    loss = 0.5 * sx.sum(sx.square(residual)) + sx.square(1 - z[0]) + 2 * sx.square(z[1] - sx.square(z[0]))
    return w, z, loss


def optimizer_for(case, data):
    settings = {k[3:]: float(v) for k, v in data.items() if k.startswith("hp_")}
    for flag in FLAGS:
        if flag in settings:
            settings[flag] = bool(settings[flag])
    if "decay_rate" in settings:  # torch's ExponentialLR(gamma), stepped after every update
        settings["learning_rate"] = schedules.exponential_decay(
            settings["learning_rate"], 1, settings.pop("decay_rate")
        )
    return OPTIMIZERS[case.split("_")[0]](**settings)


def test_golden_files_cover_every_optimizer_and_option():
    kinds = {case.split("_")[0] for case in GOLDEN_CASES}
    assert kinds == set(OPTIMIZERS)
    for needed in (
        "sgd_nesterov_wd",
        "sgd_dampening_wd",
        "adam_amsgrad",
        "adamw",
        "rmsprop_centered",
        "rmsprop_centered_momentum_wd",
        "adagrad_decay_wd",
        "sgd_clip_norm",
        "adam_clip_value",
        "adam_exponential",
    ):
        assert needed in GOLDEN_CASES


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_matches_torch_optim_step_for_step(case):
    data = load(case)
    w, z, loss = golden_problem(data)
    opt = optimizer_for(case, data)
    updates = opt.minimize(loss)
    assert [v for v, _ in updates[:2]] == [w, z]
    train = sx.function([], [loss], sx.get_updates())
    for step in range(len(data["loss"])):
        (value,) = train()
        np.testing.assert_allclose(value, data["loss"][step], rtol=1e-9, err_msg="loss, step %d" % step)
        np.testing.assert_allclose(w.value, data["w"][step + 1], rtol=1e-9, atol=1e-13, err_msg="w, step %d" % step)
        np.testing.assert_allclose(z.value, data["z"][step + 1], rtol=1e-9, atol=1e-13, err_msg="z, step %d" % step)
    assert opt.step.value == len(data["loss"])


def test_reference_backend_agrees_with_torch_too():
    data = load("adam_amsgrad")
    w, z, loss = golden_problem(data)
    optimizer_for("adam_amsgrad", data).minimize(loss)
    train = sx.function([], [loss], sx.get_updates(), backend="reference")
    for _ in range(10):
        train()
    np.testing.assert_allclose(w.value, data["w"][10], rtol=1e-9)
    np.testing.assert_allclose(z.value, data["z"][10], rtol=1e-9)


# ---- Rosenbrock's function: each optimizer reaches its minimum (1, 1) ----

ROSENBROCK = [
    ("sgd", lambda: optim.SGD(2e-3), 10000),
    ("sgd_nesterov", lambda: optim.SGD(1e-3, momentum=0.9, nesterov=True), 3000),
    ("adam", lambda: optim.Adam(0.05), 2000),
    ("adam_amsgrad", lambda: optim.Adam(0.05, amsgrad=True), 3000),
    ("adamw", lambda: optim.AdamW(0.05, weight_decay=1e-5), 2000),
    ("rmsprop_centered_momentum", lambda: optim.RMSprop(1e-4, momentum=0.9, centered=True), 3000),
    ("rmsprop_momentum", lambda: optim.RMSprop(1e-3, momentum=0.9), 3000),
    ("adagrad", lambda: optim.Adagrad(2.0), 20000),
]


@pytest.mark.parametrize("name, make, steps", ROSENBROCK, ids=[r[0] for r in ROSENBROCK])
def test_reaches_the_minimum_of_rosenbrock(name, make, steps):
    p = sx.variable(np.array([-1.5, 2.0]), name="p_" + name)
    x, y = p[0], p[1]
    loss = sx.square(1 - x) + 100 * sx.square(y - sx.square(x))
    make().minimize(loss)
    train = sx.function([], [loss], sx.get_updates())
    for _ in range(steps):
        train()
    np.testing.assert_allclose(p.value, [1.0, 1.0], atol=1e-3)


# ---- state: saved and restored with the model ----


def test_state_is_variables_named_under_the_optimizer():
    data = load("adam_amsgrad")
    w, z, loss = golden_problem(data)
    opt = optim.Adam(0.1, amsgrad=True)
    opt.minimize(loss)
    names = {v.name for v in opt.variables}
    assert names == {"adam/step", "adam/m/w", "adam/v/w", "adam/v_max/w", "adam/m/z", "adam/v/z", "adam/v_max/z"}
    assert all(not v.trainable for v in opt.variables)
    assert set(sx.variables(trainable=True)) == {w, z}
    sx.clear_updates()
    second = optim.Adam(0.1, name="adam")
    second.minimize(loss, [w])
    assert second.name == "adam_1"  # two optimizers never share state


def run(train, steps, *tensors):
    out = []
    for _ in range(steps):
        train()
        out.append(np.concatenate([t.value.ravel() for t in tensors]))
    return np.array(out)


@pytest.mark.parametrize("kind", ["adam_amsgrad", "rmsprop_centered_momentum_wd", "sgd_dampening_wd"])
def test_saved_state_continues_identically(kind, tmp_path):
    data = load(kind)
    path = str(tmp_path / "state.safetensors")
    w, z, loss = golden_problem(data)
    optimizer_for(kind, data).minimize(loss)
    train = sx.function([], [loss], sx.get_updates())
    run(train, 7, w, z)
    sx.save_variables(path)
    expected = run(train, 8, w, z)
    sx.load_variables(path)
    np.testing.assert_array_equal(run(train, 8, w, z), expected)
    # In a new graph built the same way (a new process, say), the names find the same state.
    sx.reset_default_graph()
    w, z, loss = golden_problem(data)
    opt = optimizer_for(kind, data)
    opt.minimize(loss)
    train = sx.function([], [loss], sx.get_updates())
    sx.load_variables(path)
    assert opt.step.value == 7
    np.testing.assert_array_equal(run(train, 8, w, z), expected)
    # Without the saved state (moments at zero, step 0) the trajectory differs: the test can fail.
    sx.reset_variables()
    sx.load_variables(path, [w, z])
    assert not np.array_equal(run(train, 8, w, z), expected)


def test_reset_variables_restarts_the_optimizer():
    data = load("adam")
    w, z, loss = golden_problem(data)
    opt = optimizer_for("adam", data)
    opt.minimize(loss)
    train = sx.function([], [loss], sx.get_updates())
    run(train, 5, w, z)
    sx.reset_variables()
    assert opt.step.value == 0
    run(train, 3, w, z)
    np.testing.assert_allclose(w.value, data["w"][3], rtol=1e-9)


# ---- parameters, gradients and learning rates ----


def test_default_parameters_are_the_trainable_variables_of_the_loss():
    a = sx.variable(np.array([1.0, 2.0]), name="a")
    frozen = sx.variable(np.array([3.0, 4.0]), name="frozen", trainable=False)
    sx.variable(np.array([5.0]), name="unused")
    counter = sx.variable(np.array([2], np.int64), name="counter")  # trainable, but an integer: no gradient
    loss = sx.sum(sx.square(a * frozen)) * sx.astype(counter[0], sx.float64) / 2
    updates = optim.SGD(0.01).minimize(loss)
    assert [v.name for v, _ in updates] == ["a", "sgd/step"]
    sx.function([], [loss], sx.get_updates())()
    np.testing.assert_allclose(a.value, [1.0 - 0.01 * 2 * 9, 2.0 - 0.01 * 2 * 16 * 2])
    np.testing.assert_array_equal(frozen.value, [3.0, 4.0])


def test_explicit_parameters_and_apply_gradients():
    a = sx.variable(np.array([1.0, 2.0]), name="a")
    b = sx.variable(np.array([3.0]), name="b")
    loss = sx.sum(sx.square(a)) + sx.sum(sx.square(b))
    opt = optim.SGD(0.5)
    opt.minimize(loss, [b])
    sx.function([], [], sx.get_updates())()
    np.testing.assert_array_equal(a.value, [1.0, 2.0])
    np.testing.assert_allclose(b.value, [0.0])
    sx.clear_updates()
    opt2 = optim.SGD(0.25)
    updates = opt2.apply_gradients([sx.constant(np.array([4.0, 8.0]))], [a])
    sx.function([], [], updates)()
    np.testing.assert_allclose(a.value, [0.0, 0.0])


def test_float32_parameters_train_in_float32():
    w = sx.variable(np.array([1.0, -2.0], np.float32), name="w")
    loss = sx.sum(sx.square(w))
    optim.Adam(0.1, clip_norm=1.0).minimize(loss)
    updates = sx.get_updates()
    assert updates[0][1].dtype == np.float32
    train = sx.function([], [loss], updates)
    for _ in range(300):
        train()
    assert w.value.dtype == np.float32
    np.testing.assert_allclose(w.value, [0.0, 0.0], atol=1e-2)


def test_learning_rate_may_be_a_fed_tensor():
    w = sx.variable(np.array([1.0]), name="w")
    lr = sx.placeholder((), sx.float64, name="lr")
    optim.SGD(lr).minimize(sx.sum(sx.square(w)))
    train = sx.function([lr], [], sx.get_updates())
    train(0.25)
    np.testing.assert_allclose(w.value, [0.5])
    train(0.5)
    np.testing.assert_allclose(w.value, [0.0])


def test_learning_rate_may_be_a_python_callable():
    w = sx.variable(np.array([1.0]), name="w")
    opt = optim.SGD(lambda step: 0.1 / (1 + step))
    opt.minimize(sx.sum(w))  # gradient 1: w falls by the rate of each step
    train = sx.function([], [opt.learning_rate()], sx.get_updates())
    rates = [float(train()[0]) for _ in range(4)]
    np.testing.assert_allclose(rates, [0.1 / (1 + k) for k in range(4)], rtol=1e-15)
    np.testing.assert_allclose(w.value, [1.0 - sum(rates)], rtol=1e-15)


def test_learning_rate_advances_once_per_call_of_the_training_function():
    w = sx.variable(np.array([0.0]), name="w")
    schedule = schedules.piecewise_constant([3, 5], [1.0, 0.5, 0.25])
    opt = optim.SGD(schedule)
    opt.minimize(sx.sum(w))
    train = sx.function([], [opt.learning_rate(), opt.step], sx.get_updates())
    seen = [train() for _ in range(7)]
    np.testing.assert_array_equal([r for r, _ in seen], [1.0, 1.0, 1.0, 0.5, 0.5, 0.25, 0.25])
    np.testing.assert_array_equal([s for _, s in seen], np.arange(7))
    np.testing.assert_allclose(w.value, [-(3 * 1.0 + 2 * 0.5 + 2 * 0.25)])
    assert opt.step.value == 7


# ---- clipping ----


def test_clip_by_global_norm_matches_numpy():
    rng = np.random.default_rng(3)
    grads = [rng.normal(size=(3, 2)), rng.normal(size=4)]
    norm = math.sqrt(sum(float(np.sum(g * g)) for g in grads))
    np.testing.assert_allclose(optim.global_norm([sx.constant(g) for g in grads]).eval(), norm, rtol=1e-14)
    for max_norm in (0.5, 100.0):
        clipped = optim.clip_by_global_norm([sx.constant(g) for g in grads], max_norm)
        factor = min(1.0, max_norm / (norm + 1e-6))
        for c, g in zip(clipped, grads):
            np.testing.assert_allclose(c.eval(), g * factor, rtol=1e-14)


def test_clip_by_value_matches_numpy():
    g = np.array([-3.0, -0.2, 0.0, 0.7, 5.0])
    (c,) = optim.clip_by_value([sx.constant(g)], 0.5)
    np.testing.assert_array_equal(c.eval(), np.clip(g, -0.5, 0.5))


# ---- schedules against NumPy formulas ----

STEPS = np.arange(0, 400)


def np_cosine(steps, initial, decay_steps, alpha):
    s = np.minimum(steps, decay_steps)
    return initial * ((1 - alpha) * 0.5 * (1 + np.cos(np.pi * s / decay_steps)) + alpha)


def np_restarts(step, initial, first, t_mul, m_mul, alpha):
    start, length, i = 0, first, 0
    while step >= start + length:  # walk the periods one by one: exact at every restart
        start, length, i = start + length, length * t_mul, i + 1
    fraction = (step - start) / length
    return initial * ((1 - alpha) * m_mul**i * 0.5 * (1 + math.cos(math.pi * fraction)) + alpha)


SCHEDULES = [
    ("constant", schedules.constant(0.3), lambda s: np.full(s.shape, 0.3)),
    ("linear", schedules.linear(0.1, 0.5, 40), lambda s: 0.1 + 0.4 * np.minimum(s, 40) / 40),
    (
        "piecewise_constant",
        schedules.piecewise_constant([10, 50, 51], [1.0, 0.1, 0.01, 0.001]),
        lambda s: np.array([1.0, 0.1, 0.01, 0.001])[np.searchsorted([10, 50, 51], s, side="right")],
    ),
    ("exponential_decay", schedules.exponential_decay(0.1, 30, 0.7), lambda s: 0.1 * 0.7 ** (s / 30)),
    (
        "exponential_decay_staircase",
        schedules.exponential_decay(0.1, 30, 0.7, staircase=True),
        lambda s: 0.1 * 0.7 ** np.floor(s / 30),
    ),
    ("cosine_decay", schedules.cosine_decay(0.2, 150, alpha=0.1), lambda s: np_cosine(s, 0.2, 150, 0.1)),
    (
        "cosine_decay_restarts",
        schedules.cosine_decay_restarts(0.2, 10, t_mul=2.0, m_mul=0.8, alpha=0.05),
        lambda s: np.array([np_restarts(k, 0.2, 10, 2.0, 0.8, 0.05) for k in s]),
    ),
    (
        "cosine_decay_restarts_t3",
        schedules.cosine_decay_restarts(1.0, 7, t_mul=3.0),
        lambda s: np.array([np_restarts(k, 1.0, 7, 3.0, 1.0, 0.0) for k in s]),
    ),
    (
        "cosine_decay_restarts_equal",
        schedules.cosine_decay_restarts(0.5, 25, t_mul=1.0, m_mul=0.5),
        lambda s: np.array([np_restarts(k, 0.5, 25, 1.0, 0.5, 0.0) for k in s]),
    ),
    (
        "linear_warmup",
        schedules.linear_warmup(schedules.cosine_decay(0.1, 200), 20, init_value=0.01),
        lambda s: np.where(s < 20, 0.01 + (0.1 - 0.01) * s / 20, np_cosine(np.maximum(s - 20, 0), 0.1, 200, 0.0)),
    ),
    (
        "join",
        schedules.join(
            [schedules.constant(0.5), schedules.exponential_decay(0.2, 10, 0.5), schedules.linear(0.3, 0.0, 100)],
            [30, 90],
        ),
        lambda s: np.where(
            s < 30, 0.5, np.where(s < 90, 0.2 * 0.5 ** ((s - 30) / 10), 0.3 - 0.3 * np.minimum(s - 90, 100) / 100)
        ),
    ),
]


@pytest.mark.parametrize("name, schedule, reference", SCHEDULES, ids=[s[0] for s in SCHEDULES])
def test_schedule_matches_numpy(name, schedule, reference):
    rates = schedule(STEPS).eval()
    assert rates.dtype == np.float64 and rates.shape == STEPS.shape
    np.testing.assert_allclose(rates, reference(STEPS), rtol=1e-12, atol=1e-15)
    # A scalar step and a float step give the same rate.
    for k in (0, 10, 30, 70, 150, 399):
        np.testing.assert_allclose(schedule(np.float64(k)).eval(), reference(np.array([k]))[0], rtol=1e-12, atol=1e-15)


def test_schedule_from_a_function():
    s = schedules.Schedule(lambda step: 0.1 / (1 + step))
    np.testing.assert_allclose(s(np.arange(3)).eval(), [0.1, 0.05, 0.1 / 3], rtol=1e-15)


# ---- errors ----


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: optim.SGD(0.0), "learning_rate is 0"),
        (lambda: optim.Adam(-1e-3), "learning_rate is -0.001"),
        (lambda: optim.Adam(beta1=1.0), "beta1 is 1"),
        (lambda: optim.AdamW(beta2=-0.1), "beta2 is -0.1"),
        (lambda: optim.RMSprop(alpha=1.5), "alpha is 1.5"),
        (lambda: optim.Adam(eps=0.0), "eps is 0"),
        (lambda: optim.SGD(0.1, nesterov=True), "nesterov momentum needs momentum > 0"),
        (lambda: optim.SGD(0.1, momentum=-0.5), "momentum is -0.5"),
        (lambda: optim.Adagrad(weight_decay=-1.0), "weight_decay is -1"),
        (lambda: optim.SGD(0.1, clip_norm=0.0), "clip_norm is 0"),
        (lambda: optim.SGD(sx.placeholder((2,), sx.float64, name="lrs")), "'lrs' has shape (2,)"),
        (lambda: schedules.piecewise_constant([5, 3], [1.0, 2.0, 3.0]), "boundaries must increase"),
        (lambda: schedules.piecewise_constant([5], [1.0]), "1 values for 1 boundaries"),
        (lambda: schedules.cosine_decay(0.1, 0), "decay_steps is 0"),
        (lambda: schedules.cosine_decay_restarts(0.1, 10, t_mul=0.5), "t_mul is 0.5"),
        (lambda: schedules.join([schedules.constant(1.0)], [3]), "1 schedules for 1 boundaries"),
    ],
)
def test_bad_settings_are_value_errors_with_a_fix(make, words):
    with pytest.raises(ValueError) as info:
        make()
    message = str(info.value)
    assert words in message
    assert re.search(r"\. [A-Z]", message), "no fix in: " + message


def test_loss_that_is_not_a_scalar():
    w = sx.variable(np.ones(3), name="w")
    with pytest.raises(
        ValueError, match=r"Adam.minimize: the loss '.*' has shape \(3,\).*must be a scalar.*mean\(loss\)"
    ):
        optim.Adam().minimize(w * 2)


def test_loss_without_trainable_variables():
    frozen = sx.variable(np.ones(3), name="frozen", trainable=False)
    x = sx.placeholder((3,), sx.float64, name="x")
    with pytest.raises(ValueError, match=r"depends on no trainable variable.*trainable=true, or pass"):
        optim.SGD(0.1).minimize(sx.sum(frozen * x))


def test_parameter_that_is_not_a_variable():
    w = sx.variable(np.ones(3), name="w")
    with pytest.raises(ValueError, match=r"is not a variable"):
        optim.SGD(0.1).minimize(sx.sum(w * w), [w * 2])


# ---- documentation ----


def test_every_public_name_has_a_docstring_with_an_example():
    found = []
    for module in (optim, schedules):
        for name in dir(module):
            obj = getattr(module, name)
            if name.startswith("_") or inspect.ismodule(obj) or not callable(obj):
                continue
            found.append((name, obj))
            if inspect.isclass(obj):
                found += [
                    (name + "." + n, o)
                    for n, o in vars(obj).items()
                    if not n.startswith("_") or (n in ("__init__", "__call__") and obj is not optim.Optimizer)
                ]
    names = [n for n, _ in found]
    for expected in (
        "Adam",
        "Adam.__init__",
        "Optimizer.minimize",
        "SGD",
        "clip_by_global_norm",
        "cosine_decay",
        "Schedule.__call__",
    ):
        assert expected in names
    missing = [n for n, obj in found if not re.search(r"^\s*Example", obj.__doc__ or "", re.MULTILINE)]
    assert missing == []


def test_learning_rate_of_another_type_is_a_type_error_naming_what_is_accepted():
    with pytest.raises(
        TypeError, match=r"learning_rate: float \| symx._symx.Tensor \| symx._symx.optim.schedules.Schedule"
    ):
        optim.SGD("0.1")


# ---- an unknown batch size ----


@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_steps_on_batches_of_an_unknown_size_follow_the_formulas(kind):
    """Least squares on x placeholder((None, 3)): steps on batches of 5 then 3 through one function follow
    torch.optim's formulas written in NumPy here; one compile per batch size."""
    rng = np.random.default_rng(11)
    w0 = np.array([[0.5], [-1.0], [2.0]])
    w = sx.variable(w0, name="w")
    x = sx.placeholder((None, 3), sx.float64, name="x_" + kind)
    t = sx.placeholder((None, 1), sx.float64, name="t_" + kind)
    loss = sx.mean(sx.square(x @ w - t))
    lr, momentum, b1, b2, eps = 0.05, 0.9, 0.8, 0.99, 1e-8
    if kind == "sgd":
        optim.SGD(lr, momentum=momentum).minimize(loss, [w])
    else:
        optim.Adam(lr, beta1=b1, beta2=b2, eps=eps).minimize(loss, [w])
    step = sx.function([x, t], [loss], sx.get_updates())
    expected, buf, m, v = w0.copy(), None, np.zeros_like(w0), np.zeros_like(w0)
    for k, n in enumerate((5, 3), start=1):
        xv, tv = rng.standard_normal((n, 3)), rng.standard_normal((n, 1))
        g = 2.0 / n * xv.T @ (xv @ expected - tv)
        if kind == "sgd":
            buf = g if buf is None else momentum * buf + g
            expected = expected - lr * buf
        else:
            m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
            expected = expected - lr * (m / (1 - b1**k)) / (np.sqrt(v / (1 - b2**k)) + eps)
        step(xv, tv)
        np.testing.assert_allclose(w.value, expected, rtol=0, atol=1e-12)
    assert step.compile_count() == 2

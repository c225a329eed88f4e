"""The core additions the toolkit builds on (issue 9): variables made from an initializer, an array or
a number; reset_variables; the graph's update collection (add_updates, get_updates, clear_updates).
Values are checked against hand-computed ones, errors by their messages."""

import os

import numpy as np
import pytest

import symx as sx
from helpers import run_python

pytestmark = pytest.mark.usefixtures("fresh_graph")


def counting_initializer():
    """An initializer filling 100 * k + 0, 1, 2, ... on its k-th call; `calls` lists the arguments."""
    calls = []

    def init(shape, dtype):
        calls.append((shape, dtype))
        return 100 * (len(calls) - 1) + np.arange(int(np.prod(shape))).reshape(shape)

    init.calls = calls
    return init


def test_variable_from_a_callable_gets_shape_and_dtype():
    init = counting_initializer()
    w = sx.variable(init, (2, 3), "float64", name="w", trainable=False)
    assert init.calls == [((2, 3), np.dtype("float64"))]  # a tuple and a NumPy dtype
    assert w.shape == (2, 3) and w.dtype == np.float64 and w.name == "w" and not w.trainable
    np.testing.assert_array_equal(w.value, np.arange(6).reshape(2, 3))
    b = sx.variable(init, 4)  # one int is a 1-D shape; float32 by default
    assert b.dtype == np.float32 and b.shape == (4,) and b.trainable
    np.testing.assert_array_equal(b.value, [100, 101, 102, 103])
    assert sx.variables() == [w, b]


def test_variable_from_a_number_or_an_array():
    filled = sx.variable(0.5, (2, 2), name="filled")
    assert filled.dtype == np.float32
    np.testing.assert_array_equal(filled.value, np.full((2, 2), 0.5))
    typed = sx.variable(3, (3,), "int32")
    assert typed.dtype == np.int32 and list(typed.value) == [3, 3, 3]
    from_array = sx.variable(np.ones((2, 3)), (2, 3))  # a matching shape is accepted
    assert from_array.dtype == np.float64
    with pytest.raises(sx.ShapeError, match=r"variable 'v': the value is \(2, 3\) but shape=\(3, 2\)"):
        sx.variable(np.ones((2, 3)), (3, 2), name="v")


def test_initializer_errors():
    with pytest.raises(ValueError, match=r"variable 'w': an initializer needs the variable's shape"):
        sx.variable(lambda shape, dtype: np.zeros(shape), name="w")
    with pytest.raises(
        ValueError,
        match=r"variable 'w': the initializer returned a \(3,\) float32 array for a "
        r"\(2, 2\) float32 variable",
    ):
        sx.variable(lambda shape, dtype: np.zeros(3), (2, 2), name="w")
    with pytest.raises(ZeroDivisionError):  # the initializer's own exception reaches the caller
        sx.variable(lambda shape, dtype: 1 / 0, (2,))
    assert sx.variables() == []


def test_reset_redraws_initialized_variables_and_restores_the_others():
    init = counting_initializer()
    drawn = sx.variable(init, (2,), name="drawn")
    fixed = sx.variable(np.array([1.0, 2.0]), name="fixed")
    step = sx.function([], [], updates={fixed: fixed * 10, drawn: drawn + 1})
    step()
    step()
    np.testing.assert_array_equal(fixed.value, [100, 200])
    np.testing.assert_array_equal(drawn.value, [2, 3])
    sx.reset_variables()
    np.testing.assert_array_equal(fixed.value, [1, 2])
    np.testing.assert_array_equal(drawn.value, [100, 101])  # a second draw by the Python callable
    assert len(init.calls) == 2
    step()
    sx.reset_variables([fixed])  # only the listed ones
    np.testing.assert_array_equal(fixed.value, [1, 2])
    np.testing.assert_array_equal(drawn.value, [101, 102])
    with pytest.raises(ValueError, match=r"reset_variables: 'x' is a placeholder, not a variable"):
        sx.reset_variables([sx.placeholder((2,), name="x")])


def test_reset_with_a_random_initializer_draws_new_values():
    rng = np.random.default_rng(0)
    w = sx.variable(lambda shape, dtype: rng.normal(size=shape), (50,), "float64")
    first = np.array(w.value)
    sx.reset_variables()
    assert not np.array_equal(first, w.value)
    assert w.value.shape == (50,)


def test_update_collection_order_glob_and_function():
    with sx.Scope("bn"):
        mean = sx.variable(np.zeros(1), name="mean", trainable=False)
        var = sx.variable(np.ones(1), name="var", trainable=False)
    w = sx.variable(np.array([5.0]), name="w")
    assert sx.get_updates() == []
    sx.add_updates({var: var * 2, mean: mean + 1})
    sx.add_updates([(w, w - 1)])
    updates = sx.get_updates()
    assert [v for v, _ in updates] == [var, mean, w]
    assert all(isinstance(u, tuple) and len(u) == 2 for u in updates)
    assert [v for v, _ in sx.get_updates("bn/*")] == [var, mean]
    assert [v for v, _ in sx.get_updates("bn/m??n")] == [mean]
    assert sx.get_updates("none*") == []
    np.testing.assert_array_equal(w.value, [5])  # nothing applied implicitly
    sx.function([], [], updates=sx.get_updates())()
    np.testing.assert_array_equal(var.value, [2])
    np.testing.assert_array_equal(mean.value, [1])
    np.testing.assert_array_equal(w.value, [4])
    sx.clear_updates()
    assert sx.get_updates() == []
    sx.add_updates({w: w + 1})
    assert len(sx.get_updates()) == 1


def test_update_collection_errors():
    w = sx.variable(np.array([1.0], np.float32), name="w")
    x = sx.placeholder((1,), name="x")
    with pytest.raises(
        ValueError,
        match=r"add_updates at %s:\d+: 'x' is not a variable" % os.path.basename(__file__).replace(".", r"\."),
    ):
        sx.add_updates({x: x + 1})
    sx.add_updates({w: w + 1})
    with pytest.raises(ValueError, match=r"variable 'w' already has an update in the collection"):
        sx.add_updates({w: w * 2})
    (kept,) = sx.get_updates()
    np.testing.assert_array_equal(kept[1].eval(), [2])  # the first update is kept


def test_python_callables_held_by_the_graph_do_not_crash_the_interpreter_at_exit():
    """The default graph keeps a variable's initializer for reset_variables and is destroyed after
    Python at exit: a Python initializer, a layer's and a schedule's callables must not be released
    then without the GIL (it aborted with "PyThreadState_Get: ... GIL is released")."""
    script = (
        "import numpy as np\n"
        "import symx as sx\n"
        "from symx.nn import layers as L\n"
        "w = sx.variable(lambda shape, dtype: np.ones(shape, dtype), (2, 3), name='w')\n"
        "net = L.Dense(4, w_init=lambda shape, dtype: np.zeros(shape, dtype))\n"
        "x = sx.placeholder((None, 3))\n"
        "loss = sx.mean(net(x, training=True) ** 2) + sx.sum(w)\n"
        "sx.optim.SGD(lambda step: 0.1 / (1.0 + step)).minimize(loss)\n"
        "f = sx.function([x], [loss], updates=sx.get_updates())\n"
        "print(f(np.ones((2, 3), np.float32))[0])\n"
    )
    result = run_python("-c", script)
    assert result.returncode == 0, result.stdout + result.stderr
    assert float(result.stdout.split()[-1]) == 6.0

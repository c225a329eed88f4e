"""Silent misuse and unclear messages a new user met (issue 19, A.2 and part B): SymJAX's argument
order for optimizers, function(x, y) and allow_input_downcast, shapes taken from tensors of unknown
batch size, and the messages of feeds, variables and patterns. Values are checked against NumPy."""

import numpy as np
import pytest

import symx as sx
from symx import optim
from symx.optim import schedules

pytestmark = pytest.mark.usefixtures("fresh_graph")

RNG = np.random.default_rng(19)


def quadratic():
    w = sx.variable(np.array([1.0, -2.0], np.float32), name="w")
    return w, sx.sum(w * w)


# ---- A.2: a hyperparameter computed from trainable variables ----


@pytest.mark.parametrize(
    "make, call",
    [
        (lambda loss: optim.SGD(loss, 0.1), r"SGD\(0\.1\)\.minimize\(loss\)"),
        (lambda loss: optim.Adam(loss), r"Adam\(0\.001\)\.minimize\(loss\)"),
        (lambda loss: optim.AdamW(loss), r"AdamW\(0\.001\)\.minimize\(loss\)"),
        (lambda loss: optim.RMSprop(loss), r"RMSprop\(0\.001\)\.minimize\(loss\)"),
        (lambda loss: optim.Adagrad(learning_rate=loss), r"Adagrad\(0\.001\)\.minimize\(loss\)"),
    ],
)
def test_symjax_argument_order_is_a_type_error_showing_the_symx_call(make, call):
    w, loss = quadratic()
    with pytest.raises(TypeError, match=call) as err:
        make(loss)
    message = str(err.value)
    assert "depends on the trainable variable 'w'" in message
    assert "SymJAX" in message and "test_misuse.py" in message  # where the loss was made
    np.testing.assert_array_equal(w.value, [1.0, -2.0])  # nothing was touched


def test_a_schedule_whose_rate_depends_on_a_trainable_variable_is_a_type_error_at_minimize():
    w, loss = quadratic()
    opt = optim.SGD(lambda step: 0.1 * sx.sum(w))
    with pytest.raises(TypeError, match=r"learning rate from the schedule.*'w'.*SGD\(0\.1\)\.minimize\(loss\)"):
        opt.minimize(loss)


def test_tensors_where_other_hyperparameters_are_meant_are_type_errors():
    # Momentum, betas, dropout rates, loss and schedule constants are numbers (C++ doubles): a tensor
    # there is refused by the signature, naming the accepted types.
    w, loss = quadratic()
    p = sx.placeholder((2,), name="p")
    for call in (
        lambda: optim.SGD(0.1, loss),
        lambda: optim.Adam(1e-3, beta1=loss),
        lambda: sx.nn.layers.Dropout(loss),
        lambda: sx.nn.losses.huber_loss(p, p, delta=loss),
        lambda: schedules.exponential_decay(loss, 1, 0.5),
        lambda: sx.random.normal((2,), stddev=loss),
    ):
        with pytest.raises(TypeError, match="float"):
            call()


def test_legitimate_tensor_learning_rates_still_train():
    # A placeholder, a non-trainable variable and a schedule of the step are hyperparameters.
    for make_rate in (
        lambda: sx.placeholder((), sx.float64, name="lr"),
        lambda: sx.variable(0.25, dtype="float64", trainable=False, name="lr"),
        lambda: schedules.exponential_decay(0.25, 1, 0.5),
    ):
        sx.reset_default_graph()
        w, loss = quadratic()
        rate = make_rate()
        opt = optim.SGD(rate)
        opt.minimize(loss)
        fed = isinstance(rate, sx.Tensor) and rate.op == "placeholder"
        train = sx.function([rate] if fed else [], [loss], sx.get_updates())
        train(*([0.25] if fed else []))
        # One SGD step on sum(w^2): w - 0.25 * 2w = w / 2.
        np.testing.assert_allclose(w.value, [0.5, -1.0])


# ---- function(x, y) and allow_input_downcast ----


def test_function_of_one_tensor_returns_one_array_as_theano():
    x = sx.placeholder((None, 3), name="x")
    f = sx.function(x, sx.sum(x, axis=1))
    data = RNG.standard_normal((4, 3)).astype(np.float32)
    out = f(data)
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, data.sum(axis=1), rtol=1e-6)
    g = sx.function(x, [sx.sum(x)])  # a list of outputs keeps giving a list
    assert isinstance(g(data), list) and len(g(data)) == 1
    h = sx.function([x], x * 2)
    np.testing.assert_allclose(h(data), data * 2)


def test_float64_into_float32_is_refused_naming_allow_input_downcast_and_allowed_with_it():
    x = sx.placeholder((None, 2), name="x")
    data = np.array([[0.1, 0.2]], np.float64)
    f = sx.function([x], [x * 1])
    with pytest.raises(TypeError, match="allow_input_downcast=True") as err:
        f(data)
    assert "expects (None, 2) float32" in str(err.value)  # the placeholder as made, not (1, 2)
    g = sx.function([x], [x * 1], allow_input_downcast=True)
    np.testing.assert_array_equal(g(data)[0], data.astype(np.float32))
    static = sx.placeholder((1, 2), name="s")
    h = sx.function(static, static + 0, allow_input_downcast=True, backend="reference")
    np.testing.assert_array_equal(h(data), data.astype(np.float32))


def test_allow_input_downcast_converts_integers_only_when_every_value_fits():
    labels = sx.placeholder((None,), sx.int32, name="labels")
    f = sx.function(labels, labels + 0, allow_input_downcast=True)
    np.testing.assert_array_equal(f(np.array([1, 7], np.int64)), [1, 7])
    with pytest.raises(TypeError, match="do not fit int32"):
        f(np.array([2**40], np.int64))
    with pytest.raises(TypeError, match="without loss"):  # float data into an integer placeholder: never
        f(np.array([1.5]))


# ---- shapes from tensors of unknown batch size ----


def test_random_and_zeros_of_a_shape_with_an_unknown_batch_size():
    x = sx.placeholder((None, 2), name="x")
    noise = sx.random.normal(x.shape)
    assert noise.shape == (None, 2)
    y = x + noise * 0 + sx.zeros(x.shape) + sx.ones(x.shape[:1] + (2,))
    assert y.shape == (None, 2)
    data = RNG.standard_normal((5, 2)).astype(np.float32)
    np.testing.assert_allclose(sx.function(x, y)(data), data + 1, rtol=1e-6)
    assert sx.function(x, noise)(data).shape == (5, 2)


def test_a_none_written_by_hand_in_a_shape_says_which_shape_to_use():
    with pytest.raises(ValueError, match=r"None written by hand.*x\.shape"):
        sx.zeros((None, 2))


def test_a_fixed_size_random_tensor_in_a_graph_of_any_batch_size_fails_at_the_users_line():
    x = sx.placeholder((None, 2), name="x")
    noise = sx.random.normal((32, 2))
    with pytest.raises(ValueError, match=r"unknown until a call \(None\).*32.*random\.normal\(x\.shape\)") as err:
        x + noise
    assert "test_misuse.py" in str(err.value)


def test_variable_from_a_constant_tensor_takes_its_value():
    v = sx.variable(sx.constant([1.0, 2.0]) * 3, name="v")
    np.testing.assert_array_equal(v.value, [3.0, 6.0])
    assert v.dtype == np.float32 and v.trainable
    v.assign([0.0, 0.0])
    sx.reset_variables([v])
    np.testing.assert_array_equal(v.value, [3.0, 6.0])
    x = sx.placeholder((2,), name="x")
    with pytest.raises(ValueError, match=r"depends on placeholder 'x'.*eval"):
        sx.variable(x * 2)


# ---- messages ----


def test_a_zero_size_placeholder_fed_data_mentions_none():
    x = sx.placeholder((0, 2), name="x")
    with pytest.raises(ValueError, match=r"expects \(0, 2\).*write None.*placeholder\(\(None, 2\)\)"):
        sx.function(x, x + 1)(np.zeros((1, 2), np.float32))


def test_feeding_a_variable_to_eval_says_only_placeholders_can_be_fed():
    w = sx.variable(np.ones(2, np.float32), name="w")
    x = sx.placeholder((None, 2), name="x")
    for feed in ({w: np.zeros(2, np.float32)}, {w: np.zeros(2, np.float32), x: np.ones((3, 2), np.float32)}):
        with pytest.raises(ValueError, match=r"'w', a variable.*only placeholders can be fed.*clone"):
            (x * w).eval(feed)


def test_eval_of_a_none_batch_placeholder_with_the_wrong_dtype_shows_none():
    x = sx.placeholder((None, 2), name="x")
    with pytest.raises(TypeError, match=r"expects \(None, 2\) float32 but received \(1, 2\) float64"):
        (x + 1).eval({x: np.zeros((1, 2))})


def test_reset_variables_with_a_pattern_names_the_call_to_make():
    sx.variable(1.0, name="w")
    with pytest.raises(TypeError, match=r"reset_variables: .*'\*'.*reset_variables\(sx\.variables\('\*'\)\)"):
        sx.reset_variables("*")


def test_variable_with_the_name_in_the_shape_slot_names_the_keyword():
    with pytest.raises(TypeError, match=r"variable: shape is the string 'w'.*variable\(value, name='w'\)"):
        sx.variable(np.zeros(3), "w")


def test_variables_pattern_with_a_leading_slash_finds_the_variable():
    with sx.Scope("scope"):
        w = sx.variable(1.0, name="w")
    assert sx.variables("/scope/w") == [w]
    assert sx.variables("scope/w") == [w]
    assert sx.variables("/scope/*") == [w]

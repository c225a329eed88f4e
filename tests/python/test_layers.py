"""symx.nn.layers: forward passes and gradients against PyTorch (golden files written by
tests/golden/golden_layers.py, float64, 1e-10 relative), BatchNorm's running statistics, the random
layers by their statistics and invariants, variable naming and sharing, and the errors."""

import numpy as np
import pytest

import symx as sx
from goldens import load_golden
from symx.nn import init
from symx.nn import layers as L

RTOL = 1e-10


pytestmark = pytest.mark.usefixtures("fresh_graph")


def golden(case):
    return load_golden("layers_" + case)


def close(actual, expected, rtol=RTOL, floor=0.0):
    """Relative to the largest magnitude of the expected array; `floor` is an absolute tolerance for
    values that are zero analytically (rounding noise on both sides)."""
    expected = np.asarray(expected)
    scale = max(np.abs(expected).max(), 1e-300)
    np.testing.assert_allclose(actual, expected, rtol=0, atol=max(rtol * scale, floor))


def set_weights(layer, data, names=None):
    """Assigns the golden weights to the layer's trainable variables, matched by the last part of their names."""
    for v in layer.variables(trainable=True):
        key = (names or {}).get(v.name, v.name.split("/")[-1])
        if key in data:
            v.assign(data[key])


def check_golden(layer, case, names=None, training=False):
    """Builds the layer on the golden input, sets its weights, compares y and every gradient."""
    data = golden(case)
    x = sx.placeholder(data["x"].shape, sx.float64, name="x")
    y = layer(x, training=training)
    set_weights(layer, data, names)
    loss = sx.sum(y * sx.constant(data["g"]))
    variables = layer.variables(trainable=True)
    grads = sx.grad(loss, [x] + variables)
    feed = {x: data["x"]}
    close(y.eval(feed), data["y"])
    close(grads[0].eval(feed), data["d_x"])
    for v, gv in zip(variables, grads[1:]):
        key = (names or {}).get(v.name, v.name.split("/")[-1])
        close(gv.eval(feed), data["d_" + key])
    return layer


def test_dense_matches_torch_linear():
    layer = check_golden(L.Dense(3), "dense")
    assert [v.name for v in layer.variables()] == ["dense/w", "dense/b"]
    assert layer.variables()[0].shape == (5, 3)


def test_conv1d_matches_torch():
    check_golden(L.Conv1D(4, 3, stride=2, padding=1), "conv1d")


def test_conv2d_groups_strides_dilation_explicit_padding_match_torch():
    check_golden(L.Conv2D(6, (3, 2), strides=(2, 1), padding=((1, 1), (2, 2)), dilation=(1, 2), groups=2), "conv2d")


def test_conv2d_same_padding_even_kernel_matches_torch():
    check_golden(L.Conv2D(4, (3, 4), padding="same", use_bias=False), "conv2d_same")


def test_conv2d_transpose_matches_torch():
    layer = check_golden(L.Conv2DTranspose(6, 3, strides=2, padding=1, output_padding=1, groups=2), "conv2d_transpose")
    assert layer.variables()[0].shape == (4, 3, 3, 3)


def test_pooling_matches_torch():
    check_golden(L.MaxPool2D(3, strides=2, padding=1), "max_pool2d")
    check_golden(L.AvgPool2D(3, strides=2, padding=1), "avg_pool2d")
    check_golden(L.GlobalAvgPool2D(), "global_avg_pool2d")


def test_layer_norm_matches_torch():
    check_golden(L.LayerNorm(), "layer_norm")
    check_golden(L.LayerNorm(axes=(1, 2)), "layer_norm2")


def test_upsample_matches_torch():
    check_golden(L.Upsample2D((2, 3)), "upsample_nearest")
    check_golden(L.Upsample2D((2, 3), method="bilinear"), "upsample_bilinear")


def test_embedding_matches_torch():
    data = golden("embedding")
    idx = sx.constant(data["x"])
    layer = L.Embedding(10, 5, dtype=sx.float64)
    y = layer(idx)
    (w,) = layer.variables()
    w.assign(data["w"])
    close(y.eval(), data["y"])
    (dw,) = sx.grad(sx.sum(y * sx.constant(data["g"])), [w])
    close(dw.eval(), data["d_w"])


@pytest.mark.parametrize("case,options", [("batch_norm2d", {}), ("batch_norm1d", {"momentum": 0.3, "eps": 1e-3})])
def test_batch_norm_training_running_statistics_and_eval_match_torch(case, options):
    data = golden(case)
    layer = L.BatchNorm(**options)
    x = sx.placeholder(data["x0"].shape, sx.float64, name="x_" + case)
    g = sx.placeholder(data["x0"].shape, sx.float64, name="g_" + case)
    y = layer(x, training=True)
    set_weights(layer, data)
    gamma, beta = layer.variables(trainable=True)
    assert [v.name.split("/")[-1] for v in layer.variables(trainable=False)] == ["running_mean", "running_var"]
    dx, dgamma, dbeta = sx.grad(sx.sum(y * g), [x, gamma, beta])
    step = sx.function([x, g], [y, dx, dgamma, dbeta], updates=sx.get_updates(), backend="reference")
    for t in range(3):
        out = step(data["x%d" % t], data["g%d" % t])
        close(out[0], data["y%d" % t])
        if t == 0:
            close(out[1], data["d_x0"])
            close(out[2], data["d_gamma"])
            close(out[3], data["d_beta"])
    running_mean, running_var = layer.variables(trainable=False)
    close(running_mean.value, data["running_mean"])
    close(running_var.value, data["running_var"])
    x_eval = sx.placeholder(data["x_eval"].shape, sx.float64, name="x_eval_" + case)
    close(layer(x_eval, training=False).eval({x_eval: data["x_eval"]}), data["y_eval"])


def test_small_network_matches_torch_compiled():
    """Conv2D, BatchNorm (training), relu, MaxPool2D, Flatten, Dense in one compiled function."""
    data = golden("network")
    conv, bn, dense = L.Conv2D(3, 3, padding=1), L.BatchNorm(), L.Dense(4)
    net = L.Sequential([conv, bn, L.Activation("relu"), L.MaxPool2D(2), L.Flatten(), dense])
    x = sx.placeholder(data["x"].shape, sx.float64, name="x")
    y = net(x, training=True)
    names = {
        "sequential/conv2d/w": "conv_w",
        "sequential/conv2d/b": "conv_b",
        "sequential/batch_norm/gamma": "bn_gamma",
        "sequential/batch_norm/beta": "bn_beta",
        "sequential/dense/w": "dense_w",
        "sequential/dense/b": "dense_b",
    }
    set_weights(net, data, names)
    params = net.variables(trainable=True)
    assert [v.name for v in params] == list(names)
    grads = sx.grad(sx.sum(y * sx.constant(data["g"])), [x] + params)
    out = sx.function([x], [y] + grads)(data["x"])
    close(out[0], data["y"], 1e-9)
    close(out[1], data["d_x"], 1e-9)
    for v, gv in zip(params, out[2:]):
        # The conv bias's gradient is zero (batch norm removes per-channel constants): rounding noise.
        close(gv, data["d_" + names[v.name]], 1e-9, floor=1e-12)


# ---- building, naming, sharing ----


def test_variables_are_built_once_and_shared():
    layer = L.Dense(4)
    assert not layer.built and layer.variables() == []
    a = layer(sx.placeholder((2, 3), name="a"))
    b = layer(sx.placeholder((5, 3), name="b"))
    assert layer.built and len(layer.variables()) == 2
    assert a.shape == (2, 4) and b.shape == (5, 4)
    assert len(sx.variables()) == 2


def test_names_are_unique_per_instance_and_scoped():
    first, second = L.Dense(2), L.Dense(2)
    x = sx.placeholder((1, 3))
    first(x)
    second(x)
    with sx.Scope("encoder"):
        third = L.Dense(2, name="proj")
        third(x)
    assert [v.name for v in sx.variables()] == [
        "dense/w",
        "dense/b",
        "dense_1/w",
        "dense_1/b",
        "encoder/proj/w",
        "encoder/proj/b",
    ]
    assert second.name == "dense_1"


def test_variables_take_the_input_dtype_and_the_initializers():
    layer = L.Dense(3, w_init=init.constant(0.5), b_init=1.0)
    layer(sx.placeholder((2, 4), sx.float64))
    w, b = layer.variables()
    assert w.dtype == np.float64
    np.testing.assert_array_equal(w.value, np.full((4, 3), 0.5))
    np.testing.assert_array_equal(b.value, np.ones(3))
    layer2 = L.Dense(3, w_init=lambda shape, dtype: np.arange(np.prod(shape)).reshape(shape))
    layer2(sx.placeholder((2, 4)))
    np.testing.assert_array_equal(layer2.variables()[0].value, np.arange(12.0).reshape(4, 3))


def test_train_and_eval_graphs_share_variables_and_only_training_adds_updates():
    net = L.Sequential([L.Dense(4), L.BatchNorm(), L.Dropout(0.5), L.Dense(2)])
    x = sx.placeholder((8, 3), name="x")
    net(x, training=False)
    assert sx.get_updates() == []
    net(x, training=True)
    assert [v.name for v, _ in sx.get_updates()] == [
        "sequential/batch_norm/running_mean",
        "sequential/batch_norm/running_var",
    ]
    assert len(net.variables()) == 8 and len(net.variables(trainable=True)) == 6


def test_sequential_accepts_python_functions_and_lists_shared_layers_once():
    dense = L.Dense(3)
    net = L.Sequential([dense, sx.nn.relu, dense])
    x = sx.placeholder((2, 3), name="x")
    y = net(x)
    xv = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    w, b = dense.variables()
    expected = np.maximum(xv @ w.value + b.value, 0) @ w.value + b.value
    np.testing.assert_allclose(y.eval({x: xv}), expected, rtol=1e-5, atol=1e-6)
    assert len(net.variables()) == 2
    assert len(net.layers) == 3


def test_activation_by_name_and_function():
    x = sx.constant(np.array([[-1.0, 2.0]]))
    np.testing.assert_array_equal(L.Activation("relu")(x).eval(), [[0.0, 2.0]])
    np.testing.assert_array_equal(L.Activation(lambda t: t * 2)(x).eval(), [[-2.0, 4.0]])
    np.testing.assert_allclose(L.Activation("tanh")(x).eval(), np.tanh([[-1.0, 2.0]]))


def test_flatten_reshape_identity():
    xv = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    x = sx.constant(xv)
    np.testing.assert_array_equal(L.Flatten()(x).eval(), xv.reshape(2, -1))
    np.testing.assert_array_equal(L.Reshape((4, -1))(x).eval(), xv.reshape(2, 4, 15))
    np.testing.assert_array_equal(L.Identity()(x).eval(), xv)


# ---- random layers: statistics and invariants ----


def test_dropout_keep_rate_scaling_and_eval_identity():
    x = sx.constant(np.ones((200, 500), np.float32))
    y = L.Dropout(0.3)(x, training=True).eval()
    kept = y != 0
    # keep rate 0.7 within 5 standard errors of a proportion over 100,000 draws
    assert abs(kept.mean() - 0.7) < 5 * np.sqrt(0.7 * 0.3 / kept.size)
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    np.testing.assert_array_equal(L.Dropout(0.3)(x, training=False).eval(), np.ones((200, 500)))


def test_dropout_draws_fresh_masks():
    y = L.Dropout(0.5)(sx.constant(np.ones((100,), np.float32)), training=True)
    assert not np.array_equal(y.eval(), y.eval())


def test_random_crop_windows_of_the_padded_image_and_centre_in_eval():
    rng = np.random.default_rng(1)
    xv = rng.standard_normal((64, 2, 5, 6)).astype(np.float32)
    layer = L.RandomCrop((5, 6), padding=2)
    y = layer(sx.constant(xv), training=True).eval()
    padded = np.pad(xv, ((0, 0), (0, 0), (2, 2), (2, 2)))
    offsets = set()
    for n in range(64):
        windows = [
            (i, j) for i in range(5) for j in range(5) if np.array_equal(padded[n, :, i : i + 5, j : j + 6], y[n])
        ]
        assert windows, "crop %d is not a window of the padded image" % n
        offsets.add(windows[0])
    assert len(offsets) > 5  # per image, not one offset for the batch
    np.testing.assert_array_equal(layer(sx.constant(xv), training=False).eval(), xv)
    centre = L.RandomCrop(3, padding=0)(sx.constant(xv), training=False).eval()
    np.testing.assert_array_equal(centre, xv[:, :, 1:4, 1:4])


def test_random_flip_per_image_and_eval_identity():
    rng = np.random.default_rng(2)
    xv = rng.standard_normal((400, 1, 2, 3)).astype(np.float32)
    y = L.RandomFlip()(sx.constant(xv), training=True).eval()
    same = np.array([np.array_equal(y[n], xv[n]) for n in range(400)])
    flipped = np.array([np.array_equal(y[n], xv[n, :, :, ::-1]) for n in range(400)])
    assert np.all(same | flipped)
    assert abs(flipped.mean() - 0.5) < 5 * np.sqrt(0.25 / 400)
    np.testing.assert_array_equal(L.RandomFlip()(sx.constant(xv), training=False).eval(), xv)


# ---- errors ----


def test_a_different_feature_size_is_a_shape_error_naming_the_layer():
    layer = L.Dense(4, name="head")
    layer(sx.placeholder((2, 3)))
    with pytest.raises(sx.ShapeError, match=r"Dense 'head'.*4 features.*built for 3"):
        layer(sx.placeholder((2, 4)))
    conv = L.Conv2D(2, 3)
    conv(sx.placeholder((1, 3, 8, 8)))
    with pytest.raises(sx.ShapeError, match=r"Conv2D 'conv2d'.*1 channels.*built for 3"):
        conv(sx.placeholder((1, 1, 8, 8)))
    with pytest.raises(sx.ShapeError, match=r"Conv2D 'conv2d'.*4 axes"):
        conv(sx.placeholder((3, 8, 8)))


@pytest.mark.parametrize(
    "make",
    [
        lambda: L.Dense(-1),
        lambda: L.Dense(0),
        lambda: L.Conv2D(4, 3, padding="FULL"),
        lambda: L.Conv2D(4, (3, 3, 3)),
        lambda: L.Conv2D(4, 3, strides=0),
        lambda: L.Conv2D(4, 3, groups=3),
        lambda: L.Dropout(1.0),
        lambda: L.Dropout(-0.1),
        lambda: L.BatchNorm(momentum=2.0),
        lambda: L.Activation("nope"),
        lambda: L.Upsample2D(2, method="cubic"),
        lambda: L.Reshape((-1, -1)),
        lambda: L.Dense(3, name="a/b"),
        lambda: L.MaxPool2D(0),
        lambda: L.RandomCrop(3, padding=-1),
    ],
)
def test_bad_configuration_is_a_value_error_at_construction(make):
    with pytest.raises(ValueError):
        make()


def test_unknown_padding_message():
    with pytest.raises(ValueError, match=r"Conv2D: padding 'FULL' is unknown.*SAME"):
        L.Conv2D(4, 3, padding="FULL")


def test_embedding_needs_integer_indices():
    with pytest.raises(sx.DTypeError, match="Embedding 'embedding'.*integers"):
        L.Embedding(10, 3)(sx.placeholder((2,)))


def test_docstrings_have_examples():
    for name in [
        "Layer",
        "Sequential",
        "Dense",
        "Conv1D",
        "Conv2D",
        "Conv2DTranspose",
        "MaxPool2D",
        "AvgPool2D",
        "GlobalAvgPool2D",
        "Flatten",
        "Reshape",
        "Activation",
        "Dropout",
        "BatchNorm",
        "LayerNorm",
        "Embedding",
        "RandomCrop",
        "RandomFlip",
        "Upsample2D",
        "Identity",
    ]:
        assert "Example:" in getattr(L, name).__doc__, name
    assert "Example:" in L.Layer.__call__.__doc__
    assert "Example:" in L.Layer.variables.__doc__


def test_training_a_small_network_with_batch_norm_updates_reduces_the_loss():
    """One compiled training function: SGD on the trainable variables plus BatchNorm's updates."""
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((64, 4)).astype(np.float32)
    yv = (xv[:, :1] * xv[:, 1:2] > 0).astype(np.float32)
    net = L.Sequential([L.Dense(16), L.BatchNorm(), L.Activation("relu"), L.Dropout(0.1), L.Dense(1)])
    x = sx.placeholder((64, 4), name="x")
    y = sx.placeholder((64, 1), name="y")
    loss = sx.mean(sx.square(net(x, training=True) - y))
    params = net.variables(trainable=True)
    grads = sx.grad(loss, params)
    updates = sx.get_updates() + [(p, p - 0.1 * g) for p, g in zip(params, grads)]
    train = sx.function([x, y], [loss], updates=updates)
    evaluate = sx.function([x, y], [sx.mean(sx.square(net(x, training=False) - y))])
    before = evaluate(xv, yv)[0]
    for _ in range(200):
        train(xv, yv)
    assert evaluate(xv, yv)[0] < 0.5 * before
    running_mean = net.variables(trainable=False)[0]
    assert np.abs(running_mean.value).max() > 0  # the updates ran


def test_batch_norm_features_last_against_numpy():
    """axis=-1 (NHWC): the statistics are over every other axis; NumPy's formula is the oracle."""
    rng = np.random.default_rng(3)
    xv = rng.normal(2.0, 3.0, (4, 3, 2, 5))
    layer = L.BatchNorm(axis=-1, momentum=0.5)
    x = sx.placeholder(xv.shape, sx.float64, name="x_nhwc")
    y = layer(x, training=True)
    assert [v.shape for v in layer.variables()] == [(5,)] * 4
    mean, var = xv.mean(axis=(0, 1, 2)), xv.var(axis=(0, 1, 2))
    close(y.eval({x: xv}), (xv - mean) / np.sqrt(var + 1e-5))
    sx.function([x], [], updates=sx.get_updates())(xv)
    running_mean, running_var = layer.variables(trainable=False)
    close(running_mean.value, 0.5 * mean)
    close(running_var.value, 0.5 + 0.5 * var * xv[..., 0].size / (xv[..., 0].size - 1))


# ---- an unknown batch size: placeholder((None, ...)) ----


def static_run(layer, value, training=False, name="x_static"):
    """`layer` on a static-shape placeholder of `value`'s shape over the same variables; in training the
    updates it makes run once (leaving the collection as it was)."""
    sx.clear_updates()
    x = sx.placeholder(value.shape, value.dtype, name=name)
    out = sx.function([x], [layer(x, training=training)], updates=sx.get_updates())(value)[0]
    sx.clear_updates()
    return out


def test_network_with_an_unknown_batch_size_matches_static_shapes():
    """Conv2D -> BatchNorm -> relu -> MaxPool2D -> Flatten -> Dropout -> Dense on batches of 8 and 3: outputs
    and BatchNorm's running statistics equal static-shape graphs; one compile per batch size."""
    rng = np.random.default_rng(5)
    bn = L.BatchNorm()
    features = L.Sequential(
        [L.Conv2D(3, 3, padding=1), bn, L.Activation("relu"), L.MaxPool2D(2), L.Flatten()], name="features"
    )
    head = L.Sequential([L.Dropout(0.5), L.Dense(4)], name="head")
    net = L.Sequential([features, head])
    x = sx.placeholder((None, 2, 6, 6), sx.float64, name="x")
    h_train = features(x, training=True)
    y_train = head(h_train, training=True)
    bn_updates = sx.get_updates()
    assert len(bn_updates) == 2
    sx.clear_updates()
    y_eval = net(x, training=False)
    assert [v.shape for v in net.variables()] == [(3, 2, 3, 3), (3,), (3,), (3,), (3,), (3,), (27, 4), (4,)]
    train = sx.function([x], [h_train, y_train], updates=bn_updates)
    evaluate = sx.function([x], [y_eval])
    a, b = rng.standard_normal((8, 2, 6, 6)), rng.standard_normal((3, 2, 6, 6))
    for batch in (a, b):
        close(evaluate(batch)[0], static_run(net, batch), 1e-12)
    running = bn.variables(trainable=False)
    start = [v.value.copy() for v in running]
    h_dynamic = []
    for batch in (a, b):
        h, y = train(batch)
        assert y.shape == (batch.shape[0], 4)
        h_dynamic.append(h)
    after = [v.value.copy() for v in running]
    for v, s in zip(running, start):
        v.assign(s)
    close(h_dynamic[0], static_run(features, a, training=True), 1e-12)
    close(h_dynamic[1], static_run(features, b, training=True), 1e-12)
    for v, value in zip(running, after):
        close(value, v.value, 1e-12)
    assert not np.array_equal(after[0], start[0])  # the running statistics moved
    assert train.compile_count() == 2
    assert evaluate.compile_count() == 2


def test_other_layers_with_an_unknown_batch_size_match_static_shapes():
    """Embedding, LayerNorm, Upsample2D, GlobalAvgPool2D, Reshape: variables from the known axes, outputs
    equal to static graphs."""
    rng = np.random.default_rng(6)
    embedding, token_norm = L.Embedding(10, 3, dtype=sx.float64), L.LayerNorm()
    tokens = L.Sequential([embedding, token_norm], name="tokens")
    image_norm = L.LayerNorm(axes=[1, 2, 3])
    images = L.Sequential(
        [L.Upsample2D(2, method="bilinear"), image_norm, L.GlobalAvgPool2D(), L.Reshape((1, -1))], name="images"
    )
    idx = sx.placeholder((None, 5), sx.int64, name="idx")
    x = sx.placeholder((None, 2, 3, 4), sx.float64, name="x")
    f = sx.function([idx, x], [tokens(idx, training=True), images(x, training=True)])
    assert embedding.variables()[0].shape == (10, 3)
    assert token_norm.variables()[0].shape == (3,)
    assert image_norm.variables()[0].shape == (2, 6, 8)
    for n in (8, 3):
        idx_value = rng.integers(0, 10, (n, 5)).astype(np.int64)
        x_value = rng.standard_normal((n, 2, 3, 4))
        t, y = f(idx_value, x_value)
        assert y.shape == (n, 1, 2)
        close(t, static_run(tokens, idx_value, name="idx_static"), 1e-12)
        close(y, static_run(images, x_value), 1e-12)
    assert f.compile_count() == 2


def windows(image, padding, size):
    """Every size x size window of the zero-padded image (C, H, W), flipped horizontally or not."""
    out = []
    for im in (image, image[:, :, ::-1]):
        p = np.pad(im, ((0, 0), (padding, padding), (padding, padding)))
        for top in range(p.shape[1] - size + 1):
            for left in range(p.shape[2] - size + 1):
                out.append(p[:, top : top + size, left : left + size])
    return out


def test_random_augmentation_with_an_unknown_batch_size():
    """RandomFlip then RandomCrop(padding 1) on batches of 8 and 3: in training each image is a window of its
    padded (perhaps flipped) self, in evaluation the centre one; one compile per batch size."""
    rng = np.random.default_rng(7)
    augment = L.Sequential([L.RandomFlip(), L.RandomCrop(4, padding=1)])
    x = sx.placeholder((None, 2, 4, 4), sx.float64, name="x")
    train = sx.function([x], [augment(x, training=True)])
    evaluate = sx.function([x], [augment(x, training=False)])
    for n in (8, 3):
        value = rng.standard_normal((n, 2, 4, 4))
        np.testing.assert_array_equal(evaluate(value)[0], value)
        out = train(value)[0]
        assert out.shape == value.shape
        for i in range(n):
            assert any(np.array_equal(out[i], w) for w in windows(value[i], 1, 4)), i
    assert train.compile_count() == 2
    assert evaluate.compile_count() == 2


def test_dropout_with_an_unknown_batch_size_keeps_or_scales_each_element():
    x = sx.placeholder((None, 50), sx.float64, name="x")
    f = sx.function([x], [L.Dropout(0.25)(x, training=True)])
    for n in (8, 3):
        out = f(np.ones((n, 50)))[0]
        assert out.shape == (n, 50)
        assert set(np.unique(out)) <= {0.0, 1 / 0.75}
    assert f.compile_count() == 2


def test_a_variable_from_an_unknown_size_is_a_shape_error_naming_the_layer():
    x = sx.placeholder((4, None), name="x")
    with pytest.raises(sx.ShapeError, match="nn.layers.Dense 'dense'.*unknown"):
        L.Dense(3)(x)


@pytest.mark.parametrize(
    "make", [lambda: L.Reshape((-1,)), lambda: L.RandomCrop(2), lambda: L.Upsample2D(2, method="bilinear")]
)
def test_unknown_sizes_beyond_the_batch_are_shape_errors_where_a_layer_needs_them(make):
    layer = make()
    x = sx.placeholder((None, 2, None, 4), name="x_" + layer.name)
    with pytest.raises(sx.ShapeError, match="'%s'.*unknown until a call" % layer.name):
        layer(x, training=True)


def test_placeholder_takes_none_and_refuses_negative_sizes():
    assert sx.placeholder((None, 3), name="ok").shape == (None, 3)
    with pytest.raises(sx.ShapeError, match="negative size"):
        sx.placeholder((4, -1), name="bad")


def test_create_variable_as_symjax():
    # SymJAX's nn.layers.create_variable(name, tensor_or_func, shape, trainable, inplace, dtype, preprocessor)
    sx.reset_default_graph()
    cv = sx.nn.layers.create_variable
    assert cv("none", None, (3,), True) is None
    w = cv("w", sx.nn.init.constant(0.5), (2, 3), True)
    assert w.shape == (2, 3) and w.trainable and w.name.endswith("w")
    np.testing.assert_array_equal(w.value, np.full((2, 3), 0.5, np.float32))
    b = cv("b", 0.0, (4,), False, dtype="float64")
    assert b.value.dtype == np.float64 and b.value.shape == (4,) and not b.trainable
    c = cv("c", np.arange(3.0), (3,), True)
    np.testing.assert_array_equal(c.value, np.arange(3, dtype=np.float32))
    t = sx.constant(np.ones((2,), np.float32))
    assert cv("t", t, (2,), True, inplace=True) == t  # the same node (Python wrappers differ)
    s = cv("s", lambda shape, dtype: np.full(shape, -1.0, dtype), (3,), True, preprocessor=sx.nn.softplus)
    np.testing.assert_allclose(s.eval(), np.log1p(np.exp(-1.0)) * np.ones(3), rtol=1e-6)
    assert [v.name.split("/")[-1] for v in sx.get_variables()][-1] == "s"
    with pytest.raises(sx.ShapeError, match="create_variable 'bad'.*\\(2,\\).*shape=\\(3,\\)"):
        cv("bad", np.zeros(2), (3,), True)
    with pytest.raises(ValueError, match="inplace=True"):
        cv("bad2", sx.nn.init.constant(0.0), (3,), True, inplace=True)

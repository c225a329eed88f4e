"""What a new user meets first (issue 8): NumPy conversion, default dtypes, int arguments of the
convolution and pooling ops, tensor methods, grad of one tensor, and Function's inspection."""

import numpy as np
import pytest

import symx as sx

RNG = np.random.default_rng(8)


def test_numpy_conversion_of_a_symbolic_tensor_is_a_type_error():
    x = sx.placeholder((4, 80), "float32", name="images")
    for convert in (np.asarray, np.array, lambda t: np.array([t, t])):
        with pytest.raises(TypeError, match=r"images.*symbolic.*eval\(") as err:
            convert(x)
        assert "sx.function" in str(err.value)


def test_python_numbers_and_lists_make_float32_variables_and_constants():
    assert sx.variable(0.0).dtype == np.float32
    assert sx.variable([1.0, 2.0]).dtype == np.float32
    assert sx.variable([[1, 2.5]]).dtype == np.float32
    assert sx.constant((0.5, 1.5)).dtype == np.float32
    assert sx.variable(0.0, dtype="float64").dtype == np.float64
    assert sx.variable(np.zeros(3)).dtype == np.float64  # a NumPy array keeps its dtype
    assert sx.variable(3).dtype == np.int64  # integers stay integers, as in NumPy
    x = sx.placeholder((2, 3), "float32")
    w = sx.variable(np.ones((3, 1), np.float32))
    b = sx.variable([0.5])
    y = x @ w + b + [1.0]
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.eval({x: np.ones((2, 3), np.float32)}), np.full((2, 1), 4.5))


def numpy_conv2d(x, w, stride, pad):
    x = np.pad(x, ((0, 0), (0, 0), pad[0], pad[1]))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride[0] + 1, (wd - kw) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride[0] : i * stride[0] + kh, j * stride[1] : j * stride[1] + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out


@pytest.mark.parametrize(
    "strides,padding,stride,pad",
    [
        (2, 1, (2, 2), ((1, 1), (1, 1))),
        ((1, 2), (1, 2), (1, 2), ((1, 1), (2, 2))),
        (1, ((0, 1), (2, 0)), (1, 1), ((0, 1), (2, 0))),
        ([3], 0, (3, 3), ((0, 0), (0, 0))),
    ],
)
def test_conv2d_takes_an_int_for_strides_and_padding(strides, padding, stride, pad):
    xv = RNG.standard_normal((2, 3, 7, 8)).astype(np.float32)
    wv = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
    y = sx.nn.conv2d(sx.constant(xv), sx.constant(wv), strides=strides, padding=padding)
    np.testing.assert_allclose(y.eval(), numpy_conv2d(xv.astype(np.float64), wv, stride, pad), rtol=1e-4, atol=1e-4)


def test_pooling_takes_an_int_window():
    xv = RNG.standard_normal((2, 3, 6, 8)).astype(np.float32)
    blocks = xv.reshape(2, 3, 3, 2, 4, 2)
    np.testing.assert_array_equal(sx.nn.max_pool2d(sx.constant(xv), 2).eval(), blocks.max(axis=(3, 5)))
    np.testing.assert_allclose(sx.nn.avg_pool2d(sx.constant(xv), 2).eval(), blocks.mean(axis=(3, 5)), rtol=1e-6)
    np.testing.assert_array_equal(sx.nn.max_pool2d(sx.constant(xv), 2, strides=2).eval(), blocks.max(axis=(3, 5)))


def test_bad_padding_and_stride_counts_say_what_to_pass():
    x = sx.placeholder((1, 1, 5, 5), "float32")
    w = sx.placeholder((1, 1, 3, 3), "float32")
    with pytest.raises(ValueError, match="padding must be non-negative"):
        sx.nn.conv2d(x, w, padding=-1)
    with pytest.raises(ValueError, match="strides has 3 entries.*single value"):
        sx.nn.conv2d(x, w, strides=(1, 1, 1))


def test_newaxis_indexing():
    x = sx.placeholder((3, 4), "float32")
    assert x[None].shape == (1, 3, 4)
    assert x[sx.newaxis, :, None].shape == (1, 3, 1, 4)


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "prod", "std", "var"])
def test_reduction_methods_match_numpy(name):
    xv = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    x = sx.constant(xv)
    ref = getattr(np, name)
    np.testing.assert_allclose(getattr(x, name)().eval(), ref(xv), rtol=1e-5)
    np.testing.assert_allclose(getattr(x, name)(1).eval(), ref(xv, axis=1), rtol=1e-5)
    np.testing.assert_allclose(
        getattr(x, name)(axis=(0, 2), keepdims=True).eval(), ref(xv, axis=(0, 2), keepdims=True), rtol=1e-5
    )


def test_shape_and_value_methods_match_numpy():
    xv = RNG.standard_normal((2, 1, 3)).astype(np.float32) * 3
    x = sx.constant(xv)
    np.testing.assert_array_equal(x.argmax().eval(), xv.argmax())
    np.testing.assert_array_equal(x.argmin(axis=2).eval(), xv.argmin(axis=2))
    np.testing.assert_array_equal(x.transpose().eval(), xv.transpose())
    np.testing.assert_array_equal(x.transpose(2, 0, 1).eval(), xv.transpose(2, 0, 1))
    np.testing.assert_array_equal(x.transpose((1, 0, 2)).eval(), xv.transpose((1, 0, 2)))
    np.testing.assert_array_equal(x.flatten().eval(), xv.flatten())
    np.testing.assert_array_equal(x.squeeze().eval(), xv.squeeze())
    np.testing.assert_array_equal(x.squeeze(1).eval(), xv.squeeze(1))
    np.testing.assert_array_equal(x.clip(-1, 1).eval(), xv.clip(-1, 1))
    np.testing.assert_array_equal(x.clip(max=0.5).eval(), xv.clip(max=0.5))
    np.testing.assert_array_equal(x.clip(min=0.5).eval(), xv.clip(min=0.5))
    np.testing.assert_array_equal(x.round().eval(), xv.round())
    np.testing.assert_array_equal(round(x).eval(), xv.round())
    np.testing.assert_array_equal(x.T.eval(), xv.T)
    np.testing.assert_array_equal(x.astype("int32").eval(), xv.astype(np.int32))
    np.testing.assert_array_equal(x.reshape(3, 2).eval(), xv.reshape(3, 2))
    with pytest.raises(ValueError, match="give min, max or both"):
        x.clip()
    with pytest.raises(ValueError, match="decimals"):
        x.round(2)


def test_grad_of_one_tensor_is_one_gradient():
    w = sx.variable(np.array([1.0, -2.0, 3.0], np.float32))
    v = sx.variable(np.float32(2.0))
    loss = sx.sum(sx.square(w)) * v
    g = sx.grad(loss, w)
    assert isinstance(g, sx.Tensor)
    np.testing.assert_allclose(g.eval(), [4.0, -8.0, 12.0])
    gw, gv = sx.grad(loss, [w, v])
    np.testing.assert_allclose(gv.eval(), 14.0)
    (only,) = sx.grad(loss, (v,))
    np.testing.assert_allclose(only.eval(), 14.0)


def test_function_compile_count_is_a_method_and_repr_names_the_parts():
    x = sx.placeholder((3,), "float32", name="x")
    w = sx.variable(np.zeros(3, np.float32), name="w")
    f = sx.function([x], [sx.sum(x * w)], updates={w: w + x})
    assert f.compile_count() == 0
    f(np.ones(3, np.float32))
    assert f.compile_count() == 1
    text = repr(f)
    assert text.startswith("Function(inputs=[x], outputs=[") and "updates=[w]" in text
    assert "backend='compiled'" in text and "compiles=1" in text


def test_integer_and_bool_operators_match_numpy():
    a = np.array([-7, 7, -8, 9, 0, 5, -(2**31), 3], np.int32)
    b = np.array([2, -2, 3, 0, -1, -3, -1, 40], np.int32)  # a zero divisor, INT_MIN // -1, a shift >= 32
    x, y = sx.placeholder(a.shape, "int32"), sx.placeholder(b.shape, "int32")
    cases = [
        (x // y, np.floor_divide),
        (x & y, np.bitwise_and),
        (x | y, np.bitwise_or),
        (x ^ y, np.bitwise_xor),
        (x << y, np.left_shift),
        (x >> y, np.right_shift),
        (7 // x, lambda p, q: np.floor_divide(7, p)),
        (x & 6, lambda p, q: p & 6),
        (1 << y, lambda p, q: np.left_shift(np.int32(1), q)),
    ]
    f = sx.function([x, y], [c[0] for c in cases])
    with np.errstate(divide="ignore", over="ignore"):
        for (t, ref), got in zip(cases, f(a, b)):
            want = ref(a, b)
            assert got.dtype == want.dtype == np.int32
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(t.eval({x: a, y: b}), want)
    np.testing.assert_array_equal((~x).eval({x: a}), ~a)
    p, q = np.array([True, True, False, False]), np.array([True, False, True, False])
    u, v = sx.constant(p), sx.constant(q)
    for got, want in [(u & v, p & q), (u | v, p | q), (u ^ v, p ^ q), (~u, ~p)]:
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got.eval(), want)


def test_float_floor_division_matches_numpy():
    a = np.array([1, -1, 7.5, -7.5, 0, 1, -0.0, 5, -5, 1e30], np.float32)
    b = np.array([0.1, 0.1, 2, 2, 0, 0, 3, np.inf, np.inf, 3e-10], np.float32)
    x, y = sx.placeholder(a.shape), sx.placeholder(b.shape)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        want = np.floor_divide(a, b)
    compiled = sx.function([x, y], [x // y])(a, b)[0]
    np.testing.assert_array_equal(compiled, want)  # 1 // 0.1 is 9, as in NumPy and Python
    np.testing.assert_array_equal(np.signbit(compiled), np.signbit(want))
    np.testing.assert_array_equal((x // y).eval({x: a, y: b}), want)


def test_bitwise_ops_on_floats_say_what_to_do():
    x = sx.placeholder((3,), "float32", name="x")
    with pytest.raises(sx.DTypeError, match="integer or bool operands.*astype"):
        x & x
    with pytest.raises(sx.DTypeError, match="integer operands"):
        sx.placeholder((3,), "int32") << x
    with pytest.raises(sx.DTypeError, match="integer or bool operand"):
        _ = ~x


def test_the_package_ships_type_stubs_for_every_public_name():
    import ast
    import os

    package = os.path.dirname(os.path.abspath(sx.__file__))
    assert os.path.exists(os.path.join(package, "py.typed"))
    for module, names in [
        ("__init__", [n for n in dir(sx._symx) if not n.startswith("_")]),
        ("nn", [n for n in dir(sx.nn) if not n.startswith("_")]),
        ("nn/losses", [n for n in dir(sx.nn.losses) if not n.startswith("_")]),
    ]:
        path = os.path.join(package, "_symx", module + ".pyi")
        if os.path.exists(os.path.join(package, "_symx", module, "__init__.pyi")):  # a module with submodules
            path = os.path.join(package, "_symx", module, "__init__.pyi")
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        defined = {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        defined |= {
            t.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign)
            for t in node.targets
            if isinstance(t, ast.Name)
        }
        defined |= {  # `index: IndexMaker = ...`
            node.target.id
            for node in ast.walk(tree)
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
        }
        defined |= {
            a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for a in node.names
        }
        assert not set(names) - defined, f"{path} lacks {sorted(set(names) - defined)}"
        imported = {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
        # Every qualified name in an annotation comes from a module the stub imports.
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
                root = ast.unparse(node.value)
                assert root in imported or root.split(".")[0] in imported, f"{path}: {root} is not imported"


def test_python_and_numpy_scalars_as_function_inputs_convert_as_numpy_asarray():
    a, n, flag = sx.placeholder((), "float32"), sx.placeholder((), "int32"), sx.placeholder((), "bool")
    f = sx.function([a, n, flag], [a * 2, n + 1, sx.logical_not(flag)])
    for args in [
        (1.1, 3, True),
        (np.float32(1.1), np.int64(3), np.bool_(True)),
        (np.float64(1.1), 3, True),
        (3, np.int32(3), np.array(True)),
    ]:
        got = f(*args)
        want = [np.asarray(args[0], np.float32) * 2, np.asarray(args[1], np.int32) + 1, ~np.asarray(args[2], bool)]
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == ()
            np.testing.assert_array_equal(g, w)
    # Values NumPy refuses or converts with its own rules still go through NumPy.
    with pytest.raises(OverflowError):
        f(1.0, 2**40, True)
    np.testing.assert_array_equal(f(2**60, 2**31 - 1, 0)[0], np.float32(2**60) * 2)


@pytest.mark.parametrize("backend", ["compiled", "reference"])
def test_inputs_that_convert_without_loss_are_accepted(backend):
    labels = sx.placeholder((4,), "int64", name="labels")
    scores = sx.placeholder((4,), "float64", name="scores")
    f = sx.function([labels, scores], [labels * 2, scores + 1], backend=backend)
    got = f(np.array([1, -2, 3, 4], np.int32), np.array([True, False, True, True]))
    np.testing.assert_array_equal(got[0], np.array([2, -4, 6, 8], np.int64))
    assert got[0].dtype == np.int64 and got[1].dtype == np.float64
    np.testing.assert_array_equal(got[1], [2.0, 1.0, 2.0, 2.0])
    got = f(np.array([1, 2, 3, 4], np.uint8), np.array([1, 2, 3, 4], np.int32))  # int32 -> float64 is exact
    np.testing.assert_array_equal(got[1], [2.0, 3.0, 4.0, 5.0])
    np.testing.assert_array_equal((labels + 1).eval({labels: np.array([1, 2, 3, 4], np.int32)}), [2, 3, 4, 5])
    # Lossy conversions stay errors that show the conversion to write.
    with pytest.raises(
        sx.DTypeError,
        match=r"'labels(_\d+)?' expects \(4,\) int64 but received \(4,\) float32.*"
        r"astype\(numpy\.int64\) in Python, array\.astype\(symx::i64\) in C\+\+",
    ):
        f(np.zeros(4, np.float32), np.zeros(4))
    with pytest.raises(sx.ShapeError, match=r"'scores(_\d+)?' expects \(4,\) float64 but received \(5,\) float64"):
        f(np.zeros(4, np.int64), np.zeros(5))


def test_describe_says_which_root_is_an_output_and_which_an_update():
    x = sx.placeholder((3,), "float32", name="x")
    w = sx.variable(np.zeros(3, np.float32), name="weights")
    f = sx.function([x], [sx.sum(x * w), x * 2], updates={w: w + x})
    text = f.describe()
    roots = text[text.index("roots:") : text.index("kernels:")].splitlines()[1:]
    assert [line.split(": ", 1)[1] for line in roots] == ["output 0", "output 1", "update of variable 'weights'"]


def test_debugprint_names_ops_as_the_user_called_them():
    x = sx.placeholder((2, 3), "float32", name="x")
    h = sx.nn.relu(x)
    # relu is where(x <= 0, 0, x) (its gradient at 0 is 0, as PyTorch's; test_kinks.py)
    assert h.op == "where" and h.display_op == "relu" and h.label == f"relu#{h.id}"
    assert sx.debugprint(h).startswith(f"relu#{h.id} [where] (2, 3) float32\n")
    m = x.mean(axis=1)  # a method reaches the same composite
    assert m.display_op == "mean" and f"mean#{m.id} [divide]" in sx.debugprint(m)
    e = sx.exp(x)
    assert e.display_op == "exp" and "[" not in sx.debugprint(e).splitlines()[0]
    # A composite that hands back its argument unchanged does not rename it.
    assert sx.squeeze(e) == e and e[:] == e and e.display_op == "exp" and e.label == f"exp#{e.id}"


def test_debugprint_shows_small_constants_only():
    x = sx.placeholder((3,), "float32", name="x")
    text = sx.debugprint(x * 0.5)
    assert "() float32 = 0.5" in text
    assert "(3,) int64 = [1 2 3]" in sx.debugprint(x + np.array([1, 2, 3]))
    big = sx.debugprint(x[:, None] + np.arange(100, dtype=np.float32))
    assert "(100,) float32\n" in big and "99" not in big

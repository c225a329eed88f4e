"""The Python API around the ops: functions and updates, input checking, autodiff entry points,
scopes and collections, save/load, zero-copy array exchange, error types and locations, and the
Tensor protocol (identity ==/hash, operators, indexing, repr)."""

import inspect
import os
import subprocess

import numpy as np
import pytest

import symx as sx
from helpers import python_env, run_python, symx_tool

pytestmark = pytest.mark.usefixtures("fresh_graph")


def here(offset=0):
    """'test_api.py:<line>' for the caller's line + offset."""
    frame = inspect.currentframe().f_back
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno + offset}"


# ---- functions and updates ------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["reference", "compiled"])
def test_function_updates_swap(backend):
    a = sx.variable(np.array([1.0, 10.0], np.float32), name="a")
    b = sx.variable(np.array([2.0, 20.0], np.float32), name="b")
    f = sx.function([], [a, b, a + b], updates={a: b, b: a}, backend=backend)
    assert f.backend == backend
    out = f()
    assert isinstance(out, list) and len(out) == 3
    np.testing.assert_array_equal(out[0], [1, 10])  # outputs see the values from before the call
    np.testing.assert_array_equal(out[1], [2, 20])
    np.testing.assert_array_equal(a.value, [2, 20])  # both updates used the old values
    np.testing.assert_array_equal(b.value, [1, 10])
    out = f()
    np.testing.assert_array_equal(out[0], [2, 20])
    np.testing.assert_array_equal(a.value, [1, 10])


def test_function_inputs_and_updates_list_form():
    x = sx.placeholder((3,), "float64", name="x")
    w = sx.variable(np.zeros(3), name="w")
    f = sx.function([x], [sx.sum(w * x)], updates=[(w, w + x)], backend="reference")
    assert f.inputs == [x] and len(f.outputs) == 1 and f.updates[0][0] == w
    (c,) = f(np.ones(3))
    assert c == 0
    (c,) = f([1.0, 2.0, 3.0])  # lists convert to the placeholder's dtype
    assert c == 6
    np.testing.assert_array_equal(w.value, [2, 3, 4])


def test_function_compiled_matches_reference():
    x = sx.placeholder((4, 3), name="x")
    y = sx.nn.softmax(x * 2 + 1) - sx.mean(x, axis=0)
    xv = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    ref = sx.function([x], [y], backend="reference")(xv)[0]
    got = sx.function([x], [y], backend="compiled")(xv)[0]
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y.eval({x: xv}), ref, rtol=1e-6)


# The child prints the default backend of a function without an explicit one, the backend an
# explicit keyword gives, and one compiled call's value.
BACKEND_PROBE = """
import numpy as np, symx as sx
x = sx.placeholder((3,), "float64")
f = sx.function([x], [x * 2 + 1])
print(f.backend, sx.function([x], [x], backend="reference").backend,
      sx.function([x], [x], backend="compiled").backend, f(np.arange(3.0))[0].tolist())
"""


def run_probe(value):
    return run_python("-c", BACKEND_PROBE, env=python_env(SYMX_BACKEND=value))


@pytest.mark.parametrize(
    "value, default", [(None, "compiled"), ("", "compiled"), ("reference", "reference"), ("compiled", "compiled")]
)
def test_symx_backend_env_selects_the_default(value, default):
    result = run_probe(value)
    assert result.returncode == 0, result.stdout + result.stderr
    # An explicit backend= wins over the environment.
    assert result.stdout.strip().split(None, 3) == [default, "reference", "compiled", "[1.0, 3.0, 5.0]"], result.stdout


def test_symx_backend_env_invalid_value_is_a_clear_error():
    result = run_probe("fast")
    assert result.returncode != 0
    assert "ValueError" in result.stderr and "SYMX_BACKEND is 'fast'" in result.stderr, result.stderr
    assert "'reference' or 'compiled'" in result.stderr, result.stderr


def test_function_backend_keyword_checks_its_value():
    x = sx.placeholder((2,))
    with pytest.raises(ValueError, match="backend must be 'reference', 'compiled'"):
        sx.function([x], [x], backend="fast")


def test_function_input_checks_name_the_placeholder():
    x = sx.placeholder((2, 3), name="xin")
    y = sx.placeholder((3,), name="yin")
    f = sx.function([x, y], [x + y], backend="reference")
    with pytest.raises(ValueError, match=r"called with 1 inputs but it takes 2 \(xin, yin\)"):
        f(np.zeros((2, 3), np.float32))
    with pytest.raises(sx.ShapeError, match=r"placeholder 'yin' expects \(3,\) float32 but received \(4,\) float32"):
        f(np.zeros((2, 3), np.float32), np.zeros(4, np.float32))
    with pytest.raises(
        sx.DTypeError,
        match=r"placeholder 'xin' expects \(2, 3\) float32 but received \(2, 3\) float64"
        r".*without loss.*array\.astype\(numpy\.float32\)",
    ):
        f(np.zeros((2, 3)), np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="'yin'.*not among the inputs"):
        sx.function([x], [x + y])
    with pytest.raises(ValueError, match="not a placeholder"):
        sx.function([x + 1], [x])
    with pytest.raises(ValueError, match=r"has no value\. Add it to the feed: \{yin: array\} in Python"):
        (x + y).eval({x: np.zeros((2, 3), np.float32)})


def test_function_update_checks():
    w = sx.variable(np.zeros(3, np.float32), name="w")
    with pytest.raises(ValueError, match="update of variable 'w'"):
        sx.function([], [], updates={w: sx.zeros((4,))})
    with pytest.raises(ValueError, match="not a variable"):
        sx.function([], [], updates={w + 1: w})


# ---- autodiff -------------------------------------------------------------------------------


def test_grad_returns_list_and_rejects_non_scalar_cost():
    x = sx.placeholder((3,), "float64", name="x")
    w = sx.variable(np.arange(3.0), name="w")
    grads = sx.grad(sx.sum(w * x * x), [x, w])
    assert isinstance(grads, list) and len(grads) == 2
    xv = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(grads[0].eval({x: xv}), 2 * np.arange(3.0) * xv)
    np.testing.assert_allclose(grads[1].eval({x: xv}), xv**2)
    line = here(2)
    with pytest.raises(ValueError, match="must be a scalar") as err:
        sx.grad(w * x, [w])
    assert line in str(err.value)
    # Unconnected and integer inputs get zeros.
    k = sx.placeholder((2,), "int32", name="k")
    g_unused, g_int = sx.grad(sx.sum(x), [w, k])
    np.testing.assert_array_equal(g_unused.eval(), np.zeros(3))
    assert g_int.shape == (2,)


def test_jacobian_hessian_vjp():
    x = sx.placeholder((3,), "float64", name="x")
    xv = np.array([0.5, -1.0, 2.0])
    jac = sx.jacobian(sx.sin(x) * 2, x)
    assert jac.shape == (3, 3)
    np.testing.assert_allclose(jac.eval({x: xv}), np.diag(2 * np.cos(xv)))
    hes = sx.hessian(sx.sum(x**3), x)
    np.testing.assert_allclose(hes.eval({x: xv}), np.diag(6 * xv))
    y = sx.exp(x)
    (v,) = sx.vjp([y], [x], [np.array([1.0, 2.0, 3.0])])
    np.testing.assert_allclose(v.eval({x: xv}), np.exp(xv) * [1, 2, 3])


def test_clone_substitutes():
    x = sx.placeholder((2,), name="x")
    y = sx.exp(x) + 1
    z = sx.placeholder((2,), name="z")
    (y2,) = sx.clone([y], {x: z * 2})
    zv = np.array([0.0, 1.0], np.float32)
    np.testing.assert_allclose(y2.eval({z: zv}), np.exp(2 * zv) + 1, rtol=1e-6)
    with pytest.raises(ValueError):
        sx.clone([y], {x: sx.placeholder((3,))})


def test_printers():
    x = sx.placeholder((2, 3), name="x")
    y = sx.sum(sx.exp(x), axis=1)
    text = sx.debugprint(y)
    assert isinstance(text, str) and "exp" in text and "'x' (2, 3) float32" in text
    assert sx.debugprint([y, x]).startswith(text.splitlines()[0])
    dot = sx.to_dot([y])
    assert dot.startswith("digraph") and "->" in dot
    order = sx.topological_order([y])
    assert order[0] == x and order[-1] == y


# ---- scopes, collections, save/load ---------------------------------------------------------


def test_scopes_and_collections():
    with sx.Scope("layer1"):
        assert sx.current_scope() == "layer1/"
        w1 = sx.variable(np.zeros((2, 2), np.float32), name="w")
        with sx.Scope("inner"):
            b1 = sx.variable(np.zeros(2, np.float32), name="b", trainable=False)
    with sx.Scope("layer2") as scope:
        assert isinstance(scope, sx.Scope)
        w2 = sx.variable(np.zeros(3, np.float32), name="w")
        w2b = sx.variable(np.zeros(3, np.float32), name="w")
    assert sx.current_scope() == ""
    assert (w1.name, b1.name, w2.name, w2b.name) == ("layer1/w", "layer1/inner/b", "layer2/w", "layer2/w_1")
    assert sx.variables() == [w1, b1, w2, w2b]
    assert sx.variables("layer1/*") == [w1, b1]
    assert sx.variables("*/w") == [w1, w2]
    assert sx.variables(trainable=True) == [w1, w2, w2b]
    assert sx.variables(trainable=False) == [b1]
    assert w1.trainable and not b1.trainable
    x = sx.placeholder((2,), name="x")
    assert sx.placeholders() == [x]
    with pytest.raises(ValueError):
        with sx.Scope("bad/name"):
            pass


def test_save_load_round_trip(tmp_path):
    with sx.Scope("net"):
        w = sx.variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
        k = sx.variable(np.array([1, 2], np.int64), name="k")
    path = tmp_path / "vars.safetensors"
    sx.save_variables(path)
    w.assign(np.zeros((2, 3), np.float32))
    k.value = [7, 8]
    sx.load_variables(str(path))
    np.testing.assert_array_equal(w.value, np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(k.value, [1, 2])
    # Only some variables.
    sx.save_variables(path, [k])
    sx.load_variables(path, [k])


def test_load_shape_mismatch_changes_nothing(tmp_path):
    path = tmp_path / "vars.safetensors"
    w = sx.variable(np.ones(3, np.float32), name="w")
    v = sx.variable(np.ones(2, np.float32), name="v")
    sx.save_variables(path)
    sx.reset_default_graph()
    w2 = sx.variable(np.zeros(3, np.float32), name="w")
    v2 = sx.variable(np.zeros(4, np.float32), name="v")  # another shape
    with pytest.raises(sx.IOError) as err:
        sx.load_variables(path)
    assert isinstance(err.value, ValueError) and "v" in str(err.value)
    np.testing.assert_array_equal(w2.value, np.zeros(3))  # nothing was assigned
    np.testing.assert_array_equal(v2.value, np.zeros(4))
    with pytest.raises(ValueError):
        sx.load_variables(tmp_path / "missing.safetensors")
    del w, v


# ---- arrays: zero copy and conversions ------------------------------------------------------


def test_placeholder_identity_eval_is_zero_copy():
    x = sx.placeholder((3, 4), name="x")
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = x.eval({x: a})
    assert np.shares_memory(out, a)  # numpy -> Array (wrap) -> numpy, no copy either way
    assert not out.flags.writeable
    (fout,) = sx.function([x], [x], backend="reference")(a)
    assert np.shares_memory(fout, a)
    # Non-contiguous or byte-swapped input is converted (copied) and still correct.
    t = np.asfortranarray(a)
    np.testing.assert_array_equal(x.eval({x: t}), a)
    be = a.astype(">f4")
    np.testing.assert_array_equal(x.eval({x: be}), a)
    # Outputs can be fed back.
    np.testing.assert_array_equal(x.eval({x: out}), a)


def test_variable_value_zero_copy():
    init = np.arange(4, dtype=np.float64)
    w = sx.variable(init, name="w")
    init[0] = 100  # the variable holds its own copy
    view = w.value
    assert view[0] == 0 and not view.flags.writeable
    assert np.shares_memory(view, w.value)  # value is a view of the state, not a copy
    assert np.shares_memory(view, w.eval())
    w.assign(np.ones(4))
    np.testing.assert_array_equal(w.value, np.ones(4))
    np.testing.assert_array_equal(view, [0, 1, 2, 3])  # the old view keeps the old storage
    with pytest.raises(ValueError, match="assign"):
        w.assign(np.ones(5))
    with pytest.raises(ValueError, match="not a variable"):
        _ = sx.placeholder((2,)).value


def test_dtype_spellings():
    for spelling in ["float64", np.float64, np.dtype("float64"), float, "f8", sx.float64]:
        assert sx.placeholder((2,), spelling).dtype == np.float64
    assert sx.placeholder((2,), bool).dtype == sx.bool_
    assert sx.placeholder(3).shape == (3,)
    assert sx.placeholder(()).shape == ()
    assert sx.zeros((2,), "uint8").dtype == "uint8"
    with pytest.raises(TypeError, match="float16"):
        sx.placeholder((2,), "float16")
    with pytest.raises(TypeError, match="int8"):
        sx.constant(np.zeros(2, np.int8))


def test_constants_and_variables_from_python_values():
    assert sx.constant(2).dtype == np.int64  # numpy.asarray semantics for integers
    assert sx.constant(2.5).dtype == np.float32  # Python floats follow the default float
    assert sx.constant([1, 2], dtype="float32").dtype == np.float32
    np.testing.assert_array_equal(sx.constant([[1, 2]]).eval(), [[1, 2]])
    v = sx.variable(np.float32(-1.5), name="mu")
    assert v.shape == () and v.dtype == np.float32 and v.name == "mu"
    assert sx.exp(np.zeros(2, np.float32)).eval().tolist() == [1.0, 1.0]  # arrays become constants


# ---- errors ---------------------------------------------------------------------------------


def test_shape_error_names_this_file_and_line():
    x = sx.placeholder((2, 3), name="x")
    y = sx.placeholder((4,), name="y")
    line = here(2)
    with pytest.raises(sx.ShapeError) as err:
        x + y
    assert isinstance(err.value, ValueError)
    assert line in str(err.value), str(err.value)
    assert "'x' (2, 3) float32" in str(err.value)
    line = here(2)
    with pytest.raises(ValueError, match=line):
        sx.matmul(x, y)
    line = here(2)
    with pytest.raises(ValueError, match=line):
        sx.nn.conv2d(sx.placeholder((1, 2, 3, 3)), sx.placeholder((1, 3, 2, 2)))
    line = here(2)
    with pytest.raises(ValueError, match=line):
        x[5]


def test_nodes_record_the_python_location():
    line = here(1)
    x = sx.placeholder((2,), name="x")
    assert x.where == line
    line = here(1)
    y = (x * 2).T
    assert y.where == line
    f_line = here(1)
    f = sx.function([x], [y], backend="reference")
    with pytest.raises(ValueError, match=f"made at {f_line}"):
        f(np.zeros(3, np.float32))


def test_error_types():
    b = sx.placeholder((2,), bool, name="b")
    with pytest.raises(sx.DTypeError) as err:
        b - b
    assert isinstance(err.value, TypeError)
    with pytest.raises(TypeError):
        sx.placeholder((2,), "float16")
    with pytest.raises(ValueError):
        sx.reshape(b, (3,))
    with pytest.raises(ValueError):
        sx.placeholder((-1, 2))
    with pytest.raises(IndexError, match="only integers, slices"):
        b[0.5]  # an integer array is an index (NumPy's advanced indexing); a float is not, as in NumPy
    assert issubclass(sx.ShapeError, ValueError) and issubclass(sx.IOError, ValueError)
    assert issubclass(sx.DTypeError, TypeError)


# ---- the Tensor protocol --------------------------------------------------------------------


def test_identity_equality_and_hash():
    x = sx.placeholder((3,), name="x")
    x_again = sx.placeholders()[0]
    assert x == x_again and hash(x) == hash(x_again) and x is not x_again
    y = sx.placeholder((3,), name="y")
    assert x != y and not (x == 1)
    d = {x: 1, y: 2}
    assert d[x_again] == 1
    elementwise = sx.equal(x, y)
    assert elementwise.dtype == np.bool_ and elementwise.shape == (3,)
    with pytest.raises(TypeError):
        bool(x < y)


def test_properties_and_repr():
    x = sx.placeholder((2, 3), "float64", name="x")
    assert x.shape == (2, 3) and x.ndim == 2 and x.size == 6 and x.dtype == np.float64
    assert x.name == "x" and x.op == "placeholder" and x.inputs == []
    r = repr(x)
    assert "placeholder" in r and "'x'" in r and "(2, 3)" in r and "float64" in r
    y = sx.exp(x)
    assert "exp" in repr(y) and y.inputs == [x] and y.name == "" and y.label.startswith("exp#")
    assert len(x) == 2
    with pytest.raises(TypeError):
        len(sx.placeholder(()))
    with pytest.raises(TypeError, match="symbolic"):
        np.asarray(x)  # never an object array of nodes
    rows = list(x)
    assert len(rows) == 2 and rows[0].shape == (3,)


def test_weak_python_scalars():
    i = sx.placeholder((2,), "int32", name="i")
    assert (i + 1).dtype == np.int32 and (1 + i).dtype == np.int32
    assert (i * 2).dtype == np.int32 and (i**2).dtype == np.int32 and (i % 3).dtype == np.int32
    assert (i + 1.5).dtype == np.float32  # fractional literal with ints: symx's default float
    assert (i / 2).dtype == np.float32  # true division of integers
    f = sx.placeholder((2,), "float32", name="f")
    assert (f + 1).dtype == np.float32 and (2.0 * f).dtype == np.float32
    assert (f + np.float64(1)).dtype == np.float64  # NumPy scalars are strong, as in NEP 50
    assert (f + np.ones(2)).dtype == np.float64 and (np.ones(2) + f).dtype == np.float64
    assert (f + np.ones(2, np.float32)).op == "add"
    iv = np.array([3, 4], np.int32)
    np.testing.assert_array_equal((10 - i).eval({i: iv}), [7, 6])
    np.testing.assert_allclose((1 / f).eval({f: np.array([2, 4], np.float32)}), [0.5, 0.25])
    np.testing.assert_array_equal((2**i).eval({i: iv}), [8, 16])


def test_indexing_forms():
    x = sx.placeholder((4, 5, 3), name="x")
    a = np.arange(60, dtype=np.float32).reshape(4, 5, 3)
    for key in [
        0,
        -1,
        slice(None),
        slice(1, None),
        slice(None, -1),
        slice(None, None, -1),
        slice(4, 0, -2),
        (1, 2),
        (1, 2, 0),
        (None,),
        (Ellipsis, None),
        (slice(None), None, 1),
        (Ellipsis, -1),
        (0, Ellipsis, slice(None, None, 2)),
        np.int64(2),
        (slice(-100, 100),),
    ]:
        t = x[key]
        np.testing.assert_array_equal(t.eval({x: a}), a[key], err_msg=str(key))
        assert t.shape == a[key].shape
    np.testing.assert_array_equal(sx.slice(x, (1, slice(None, 2))).eval({x: a}), a[1, :2])


def test_method_shorthands():
    x = sx.placeholder((2, 3), name="x")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(x.reshape(3, 2).eval({x: a}), a.reshape(3, 2))
    np.testing.assert_array_equal(x.reshape((6,)).eval({x: a}), a.reshape(6))
    np.testing.assert_array_equal(x.T.eval({x: a}), a.T)
    assert x.astype("int32").dtype == np.int32
    np.testing.assert_array_equal(abs(-x).eval({x: a}), a)


def test_submodules_importable():
    import symx.linalg
    import symx.nn
    import symx.random
    from symx.nn import relu

    assert relu is sx.nn.relu and symx.linalg.inv is sx.linalg.inv and symx.random.seed is sx.random.seed
    assert len(sx._symx._op_names()) > 50 and "matmul" in sx._symx._op_names()


PROFILE_PROBE = """
import numpy as np, symx as sx
x = sx.placeholder((1000,), "float32", name="x")
f = sx.function([x], [sx.exp(x) + 1, sx.sum(x)])
for _ in range(3):
    f(np.ones(1000, np.float32))
print(f.describe())
"""


def test_symx_profile_times_each_step():
    result = run_python("-c", PROFILE_PROBE, env=python_env(SYMX_PROFILE="1"))
    assert result.returncode == 0, result.stdout + result.stderr
    steps = [line for line in result.stdout.splitlines() if line.strip().startswith("[") and " ms " in line]
    assert len(steps) == 2, result.stdout  # the two kernels, each with its time and share
    assert "profile (SYMX_PROFILE): 2 calls" in result.stdout, result.stdout  # the first call is not timed


WAIT_PROBE = "import os, symx; print(os.environ.get('OMP_WAIT_POLICY'), os.environ.get('GOMP_SPINCOUNT'))"


@pytest.mark.parametrize(
    "given, expected",
    [({}, "passive 10000"), ({"OMP_WAIT_POLICY": "active"}, "active None"), ({"GOMP_SPINCOUNT": "5"}, "None 5")],
)
def test_openmp_wait_defaults_only_when_the_user_chose_none(given, expected):
    result = run_python("-c", WAIT_PROBE, env=python_env(**{"OMP_WAIT_POLICY": None, "GOMP_SPINCOUNT": None, **given}))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected


# What libgomp itself read at its start (OMP_DISPLAY_ENV=verbose prints it): the spin count is the
# setting that differs (libgomp shows an unset policy as PASSIVE too).
def libgomp_spin_count(stderr):
    lines = [line for line in stderr.splitlines() if "GOMP_SPINCOUNT = " in line]
    assert len(lines) == 1, stderr
    return lines[0].split("=")[1].strip().strip("'")


@pytest.mark.parametrize(
    "given, spins",
    [({}, "10000"), ({"OMP_WAIT_POLICY": "active"}, "30000000000"), ({"GOMP_SPINCOUNT": "5"}, "5")],
)
def test_cpp_programs_get_the_openmp_wait_defaults_of_the_library(given, spins):
    # The symx tool is a C++ program linked with the library: its OpenMP starts with symx's
    # defaults (a short spin) unless the user chose a policy, with no help from Python.
    env = python_env(**{"OMP_WAIT_POLICY": None, "GOMP_SPINCOUNT": None, "OMP_DISPLAY_ENV": "verbose", **given})
    result = subprocess.run([symx_tool(), "--help"], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert libgomp_spin_count(result.stderr) == spins
    probe = run_python("-c", "import symx", env=env)
    assert probe.returncode == 0, probe.stderr
    assert libgomp_spin_count(probe.stderr) == spins

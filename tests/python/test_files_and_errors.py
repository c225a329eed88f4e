"""Files and error messages: safetensors validation from Python, non-UTF-8 bytes in messages,
Scope misuse, Tensors passed where values belong, and truncated_normal against SciPy."""

import os
import struct

import numpy as np
import pytest
from scipy import stats

import symx as sx

pytestmark = pytest.mark.usefixtures("fresh_graph")


def st_file(header: bytes, data: bytes) -> bytes:
    return struct.pack("<Q", len(header)) + header + data


# ---- non-UTF-8 bytes in messages -------------------------------------------------------------


def test_path_with_invalid_utf8_is_escaped_in_the_message(tmp_path):
    sx.variable(np.ones(2, np.float32), name="w")
    missing = os.fsencode(tmp_path) + b"/m\xff.safetensors"
    with pytest.raises(sx.IOError) as err:
        sx.load_variables(missing)
    assert "m\\xff.safetensors" in str(err.value) and "cannot open" in str(err.value)
    # The same path given as str (surrogate-escaped by os.fsdecode) reaches the same file.
    with pytest.raises(sx.IOError, match=r"m\\xff\.safetensors"):
        sx.load_variables(os.fsdecode(missing))


def test_file_named_with_invalid_utf8_round_trips_and_its_errors_are_readable(tmp_path):
    w = sx.variable(np.array([1.0, 2.0], np.float32), name="w")
    path = os.fsencode(tmp_path) + b"/\xfe\xff.safetensors"
    sx.save_variables(path)
    w.assign(np.zeros(2, np.float32))
    sx.load_variables(path)
    np.testing.assert_array_equal(w.value, [1.0, 2.0])
    # A broken file under such a name: the IOError names it with escaped bytes.
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    os.write(fd, b"\x02\x00")
    os.close(fd)
    with pytest.raises(sx.IOError, match=r"\\xfe\\xff\.safetensors.*truncated"):
        sx.load_variables(path)
    np.testing.assert_array_equal(w.value, [1.0, 2.0])


def test_header_with_invalid_utf8_key_is_an_ioerror_with_escaped_bytes(tmp_path):
    w = sx.variable(np.array([1.0, 2.0], np.float32), name="w")
    header = b'{"w\xff": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}'
    (tmp_path / "bad.safetensors").write_bytes(st_file(header, np.zeros(2, np.float32).tobytes()))
    with pytest.raises(sx.IOError) as err:
        sx.load_variables(tmp_path / "bad.safetensors")
    assert "UTF-8" in str(err.value) and "w\\xff" in str(err.value)
    np.testing.assert_array_equal(w.value, [1.0, 2.0])


def test_script_with_a_non_utf8_name_is_named_in_errors_and_locations(tmp_path):
    script = os.fsencode(tmp_path) + b"/model\xff.py"
    with open(script, "w") as f:
        f.write(
            "import numpy as np, symx as sx\n"
            "x = sx.placeholder((2,), 'float32')\n"
            "y = x + 1\n"
            "where = y.where\n"
            "try:\n"
            "    sx.matmul(x, sx.placeholder((3, 4), 'float32'))\n"
            "except ValueError as e:\n"
            "    message = str(e)\n"
        )
    with open(script) as f:
        source = f.read()
    namespace = {}
    exec(compile(source, os.fsdecode(script), "exec"), namespace)
    assert namespace["where"] == "model\\xff.py:3"
    assert "model\\xff.py:6" in namespace["message"]


# ---- safetensors validation ------------------------------------------------------------------


def test_stray_byte_and_duplicate_key_are_rejected_and_change_nothing(tmp_path):
    w = sx.variable(np.array([1.0, 2.0], np.float32), name="w")
    sx.save_variables(tmp_path / "m.safetensors")
    good = (tmp_path / "m.safetensors").read_bytes()
    w.assign(np.array([7.0, 8.0], np.float32))
    (tmp_path / "stray.safetensors").write_bytes(good + b"\x00")
    with pytest.raises(sx.IOError, match="data section has 9 bytes"):
        sx.load_variables(tmp_path / "stray.safetensors")
    dup = (
        b'{"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, '
        b'"w": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}}'
    )
    (tmp_path / "dup.safetensors").write_bytes(st_file(dup, np.arange(4, dtype=np.float32).tobytes()))
    with pytest.raises(sx.IOError, match="'w' twice"):
        sx.load_variables(tmp_path / "dup.safetensors")
    np.testing.assert_array_equal(w.value, [7.0, 8.0])


def test_directory_and_dev_zero_are_ioerrors(tmp_path):
    sx.variable(np.ones(2, np.float32), name="w")
    with pytest.raises(sx.IOError, match="directory"):
        sx.load_variables(tmp_path)
    with pytest.raises(sx.IOError, match="not a regular file"):
        sx.load_variables("/dev/zero")


def test_metadata_is_not_a_variable_name(tmp_path):
    sx.variable(np.ones(2, np.float32), name="__metadata__")
    with pytest.raises(ValueError, match="'__metadata__'.*reserved"):
        sx.save_variables(tmp_path / "m.safetensors")
    assert list(tmp_path.iterdir()) == []


def test_files_agree_with_the_reference_implementation(tmp_path):
    # Optional cross-check with huggingface safetensors (not a dependency of symx or its tests).
    st = pytest.importorskip("safetensors.numpy")
    w = sx.variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
    b = sx.variable(np.array([True, False]), name="b")
    sx.save_variables(tmp_path / "symx.safetensors")
    loaded = st.load_file(str(tmp_path / "symx.safetensors"))
    np.testing.assert_array_equal(loaded["w"], w.value)
    np.testing.assert_array_equal(loaded["b"], b.value)
    st.save_file({"w": np.full((2, 3), 5, np.float32), "b": np.array([False, True])}, str(tmp_path / "ref.safetensors"))
    sx.load_variables(tmp_path / "ref.safetensors")
    np.testing.assert_array_equal(w.value, np.full((2, 3), 5, np.float32))
    np.testing.assert_array_equal(b.value, [False, True])


# ---- misuse of the Python API ----------------------------------------------------------------


def test_scope_exit_without_enter_is_a_user_error():
    s = sx.Scope("block")
    with pytest.raises(ValueError, match=r"not entered.*with sx\.Scope\(\"block\"\)"):
        s.__exit__(None, None, None)
    # A stray __exit__ inside another scope must not pop that scope.
    with sx.Scope("outer"):
        with pytest.raises(ValueError, match="not entered"):
            s.__exit__(None, None, None)
        assert sx.current_scope() == "outer/"
    assert sx.current_scope() == ""
    # Entered and exited normally, the same object works.
    with s:
        assert sx.current_scope() == "block/"
    assert sx.current_scope() == ""
    # Resetting the graph inside the block removes its scopes; leaving the block is then no error.
    with sx.Scope("gone"):
        sx.reset_default_graph()
    assert sx.current_scope() == ""


def test_tensor_passed_as_a_function_input_says_so():
    x = sx.placeholder((2,), "float32", name="x")
    f = sx.function([x], [x * 2])
    with pytest.raises(TypeError, match=r"function input 0 \('x'\): got a symx\.Tensor \(symbolic\).*eval\(\)"):
        f(x)
    with pytest.raises(TypeError, match=r"feed for placeholder 'x': got a symx\.Tensor"):
        (x * 2).eval({x: x})
    np.testing.assert_array_equal(f(np.array([1.0, 2.0], np.float32))[0], [2.0, 4.0])


# ---- truncated_normal against SciPy ----------------------------------------------------------


@pytest.mark.parametrize(
    "lower,upper",
    [
        (-2, 2),
        (1, 1.5),
        (-5, -4),
        (8, 9),
        (38, 39),
        (40, 41),
        (-41, -40),
        (100, 101),
        (5, np.inf),
        (-np.inf, -30),
        (40, 40.001),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_truncated_normal_matches_scipy(lower, upper, dtype):
    sx.random.seed(11)
    mean, stddev = 1.0, 0.5
    x = sx.random.truncated_normal((20000,), mean, stddev, lower, upper, dtype=dtype).eval()
    lo, hi = mean + stddev * lower, mean + stddev * upper
    assert x.dtype == dtype and np.all(np.isfinite(x))
    assert np.all(x >= np.array(lo, dtype)) and np.all(x <= np.array(hi, dtype))
    reference = stats.truncnorm(lower, upper, loc=mean, scale=stddev)
    if dtype == "float32" and (upper - lower) * stddev < 0.01:
        return  # float32 has too few values in a band this narrow for a KS test
    assert len(np.unique(x)) > 1000
    # Deterministic (seeded), so a fixed threshold does not make the test flaky.
    assert stats.kstest(x.astype(np.float64), reference.cdf).pvalue > 1e-3
    np.testing.assert_allclose(x.mean(), reference.mean(), atol=5 * reference.std() / np.sqrt(x.size))


@pytest.mark.parametrize("name", ["model.npz", "weights.NPY"])
def test_save_variables_refuses_numpy_extensions(tmp_path, name):
    # Issue 19: SymJAX's save_variables wrote .npz; symx's wrote safetensors under that name, which
    # NumPy cannot read. The error names the file and both ways out, and writes nothing.
    sx.variable(np.ones(3, np.float32), name="w")
    with pytest.raises(ValueError, match=r"'.*%s' has NumPy's extension.*'\.safetensors'.*save_npz" % name):
        sx.save_variables(str(tmp_path / name))
    assert os.listdir(tmp_path) == []

"""Shape limits and .npy files from Python: element counts that overflow are ShapeErrors at build
time, axes beyond C int are checked rather than wrapped, and load_npy/save_npy agree with
numpy.load/numpy.save."""

import os

import numpy as np
import pytest

import symx as sx

pytestmark = pytest.mark.usefixtures("fresh_graph")


# ---- element counts --------------------------------------------------------------------------


def test_ones_of_overflowing_shape_raises_at_build_time():
    with pytest.raises(sx.ShapeError, match=r"ones: .*\(2147483648, 2147483648\).*2\^48.*test_shapes_and_npy.py"):
        sx.ones((2**31, 2**31))


def test_placeholder_size_never_wraps():
    with pytest.raises(sx.ShapeError, match=r"placeholder: .*\(4611686018427387904, 4\)"):
        sx.placeholder((2**62, 4))
    assert sx.placeholder((2**20, 2**20)).size == 2**40


def test_reshape_of_empty_tensor_to_wrapped_size_is_refused():
    x = sx.placeholder((0,), name="empty")
    with pytest.raises(sx.ShapeError, match=r"reshape: .*\(4611686018427387904, 4\)"):
        sx.reshape(x, (2**62, 4))


def test_broadcast_of_two_large_shapes_is_refused():
    a = sx.placeholder((2**31, 1), name="a")
    b = sx.placeholder((1, 2**31), name="b")
    with pytest.raises(sx.ShapeError, match=r"add: the result shape \(2147483648, 2147483648\)"):
        a + b


def test_negative_dimension_is_a_shape_error():
    with pytest.raises(sx.ShapeError, match="negative dimension -2"):
        sx.zeros((3, -2))


@pytest.mark.parametrize("axis", [[2**32], 2**32, (0, 2**32 + 1), [-(2**32)]])
def test_reduction_axes_are_checked_before_narrowing(axis):
    x = sx.placeholder((2, 3), name="x")
    with pytest.raises(sx.ShapeError, match=r"sum: axis -?42949672\d\d is out of range for a tensor with 2 dimensions"):
        sx.sum(x, axis=axis)


@pytest.mark.parametrize("op", [sx.transpose, sx.squeeze, sx.flip])
def test_axis_lists_beyond_int_are_shape_errors(op):
    x = sx.placeholder((1, 3), name="x")
    with pytest.raises(sx.ShapeError, match="axis 4294967296 is out of range"):
        op(x, [2**32, 1])


# ---- .npy ------------------------------------------------------------------------------------

ARRAYS = [
    np.array([[1.5, -2.0], [np.inf, np.nan]], np.float32),
    np.linspace(-1, 1, 7),
    np.array([-(2**31), 0, 2**31 - 1], np.int32),
    np.array([[-(2**62)], [7]], np.int64),
    np.array([0, 128, 255], np.uint8),
    np.array([[True, False, True]]),
    np.float64(3.25).reshape(()),
    np.zeros((0, 3), np.int32),
    np.zeros((2, 0, 4), np.float64),
]


@pytest.mark.parametrize("a", ARRAYS, ids=lambda a: f"{a.dtype}{a.shape}")
def test_npy_round_trips_agree_with_numpy(tmp_path, a):
    ours, theirs = tmp_path / "ours.npy", tmp_path / "theirs.npy"
    sx.save_npy(ours, a)
    np.save(theirs, a)
    for path in (ours, theirs):
        for loaded in (np.load(path), sx.load_npy(path)):
            assert loaded.dtype == a.dtype and loaded.shape == a.shape
            np.testing.assert_array_equal(loaded, a)
    assert sx.load_npy(ours).flags.writeable


def test_save_npy_takes_anything_asarray_takes(tmp_path):
    sx.save_npy(tmp_path / "l.npy", [[1, 2], [3, 4]])
    np.testing.assert_array_equal(np.load(tmp_path / "l.npy"), np.asarray([[1, 2], [3, 4]]))
    sx.save_npy(str(tmp_path / "s.npy"), np.arange(10)[::3])  # a non-contiguous view
    np.testing.assert_array_equal(np.load(tmp_path / "s.npy"), [0, 3, 6, 9])
    assert sorted(os.listdir(tmp_path)) == ["l.npy", "s.npy"]  # no temporary files left


def test_fortran_order_files_from_numpy_load_in_c_order(tmp_path):
    a = np.asfortranarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    np.save(tmp_path / "f.npy", a)
    b = sx.load_npy(tmp_path / "f.npy")
    np.testing.assert_array_equal(b, a)
    assert b.flags.c_contiguous


def test_version_2_and_3_files_from_numpy_load(tmp_path):
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    for version in [(2, 0), (3, 0)]:
        path = tmp_path / f"v{version[0]}.npy"
        with open(path, "wb") as f:
            np.lib.format.write_array(f, a, version=version)
        assert path.read_bytes()[6] == version[0]
        np.testing.assert_array_equal(sx.load_npy(path), a)


@pytest.mark.parametrize(
    "shape_text, message",
    [
        ("(3 4)", r"'shape' is '\(3 4\)'; expected a tuple"),
        ("[3, 4]", r"'shape' is '\[3, 4\]'"),
        ("(3.0, 4)", r"'shape' is '\(3.0, 4\)'"),
        ("(-3, 4)", r"'shape' is '\(-3, 4\)'"),
    ],
)
def test_malformed_npy_headers_are_io_errors(tmp_path, shape_text, message):
    path = tmp_path / "bad.npy"
    np.save(path, np.zeros((3, 4)))
    data = path.read_bytes().replace(b"(3, 4)", shape_text.encode().ljust(6))
    path.write_bytes(data)
    with pytest.raises(ValueError):  # what numpy.load says about the same file
        np.load(path)
    with pytest.raises(sx.IOError, match=f"bad.npy: the header's {message}"):
        sx.load_npy(path)


def test_npy_claiming_huge_shape_is_an_io_error(tmp_path):
    path = tmp_path / "huge.npy"
    np.save(path, np.zeros(3, np.float32))
    data = path.read_bytes().replace(b"(3,), }      ", b"(2147483648, 2147483648), }")
    path.write_bytes(data[:144])
    with pytest.raises(sx.IOError, match=r"huge.npy: the header.s .shape. .*2\^48"):
        sx.load_npy(path)
    with pytest.raises(sx.IOError, match="cannot open"):
        sx.load_npy(tmp_path / "missing.npy")


@pytest.mark.parametrize(
    "call",
    [
        lambda x: sx.expand_dims(x, 2**32),
        lambda x: sx.concatenate([x, x], axis=2**32),
        lambda x: sx.stack([x, x], axis=-(2**33)),
        lambda x: sx.argmax(x, axis=2**32),
        lambda x: sx.cumsum(x, axis=2**32),
        lambda x: sx.split(x, 1, axis=2**32),
        lambda x: sx.nn.softmax(x, axis=2**32),
    ],
)
def test_single_axes_beyond_int_are_shape_errors(call):
    x = sx.placeholder((1, 3), name="x")
    with pytest.raises(sx.ShapeError, match=r"axis -?\d{10} is out of range"):
        call(x)


def test_failed_allocation_is_a_memory_error_naming_the_shape():
    # 2^47 bytes pass the 2^48-byte limit, but no test machine can allocate them.
    with pytest.raises(MemoryError, match=r"140737488355328 bytes .* shape \(17592186044416,\)"):
        sx.zeros((2**44,), "float64").eval()

"""sx.load_npz / sx.save_npz against numpy.load / numpy.savez, both ways, and their errors."""

import zipfile

import numpy as np
import pytest

import symx as sx


def sample_arrays():
    rng = np.random.default_rng(0)
    return {
        "f32": rng.standard_normal((2, 3)).astype(np.float32),
        "f64": rng.standard_normal((4, 1, 2)),
        "i32": np.array([-1, 0, 2**31 - 1], dtype=np.int32),
        "i64": np.array([[-(2**50)], [7]], dtype=np.int64),
        "u8": np.array([[0, 128], [255, 1]], dtype=np.uint8),
        "bool": np.array([True, False, True]),
        "scalar": np.array(3.25),
        "empty": np.zeros((0, 3), dtype=np.int32),
    }


def assert_same(actual, expected):
    assert sorted(actual) == sorted(expected)
    for name, value in expected.items():
        assert actual[name].dtype == value.dtype, name
        assert actual[name].shape == value.shape, name
        np.testing.assert_array_equal(actual[name], value)


@pytest.mark.parametrize("compressed", [False, True], ids=["savez", "savez_compressed"])
def test_load_npz_reads_numpy_savez(tmp_path, compressed):
    path = tmp_path / "a.npz"
    (np.savez_compressed if compressed else np.savez)(path, **sample_arrays())
    loaded = sx.load_npz(path)
    assert isinstance(loaded, dict)
    assert_same(loaded, sample_arrays())
    assert all(a.flags.writeable for a in loaded.values())


def test_save_npz_is_read_by_numpy_load(tmp_path):
    path = tmp_path / "ours.npz"
    sx.save_npz(str(path), sample_arrays())
    with np.load(path) as loaded:
        assert_same({k: loaded[k] for k in loaded.files}, sample_arrays())
    with zipfile.ZipFile(path) as z:  # every CRC-32 checked by Python's zipfile
        assert z.testzip() is None
        assert sorted(z.namelist()) == sorted(k + ".npy" for k in sample_arrays())


def test_save_npz_takes_anything_asarray_takes(tmp_path):
    sx.save_npz(tmp_path / "l.npz", {"list": [[1.0, 2.0], [3.0, 4.0]], "view": np.arange(10)[::3]})
    with np.load(tmp_path / "l.npz") as loaded:
        np.testing.assert_array_equal(loaded["list"], [[1.0, 2.0], [3.0, 4.0]])
        np.testing.assert_array_equal(loaded["view"], [0, 3, 6, 9])


def test_npz_errors_name_the_file_and_entry(tmp_path):
    with pytest.raises(sx.IOError, match=r"load_npz: cannot open .*missing\.npz"):
        sx.load_npz(tmp_path / "missing.npz")
    bad = tmp_path / "bad.npz"
    with zipfile.ZipFile(bad, "w", compression=zipfile.ZIP_BZIP2) as z:
        z.writestr("w.npy", b"x" * 100)
    with pytest.raises(
        sx.IOError, match=r"load_npz: '.*bad\.npz': entry 'w\.npy' is compressed with method 12 \(bzip2\)"
    ):
        sx.load_npz(bad)
    other = tmp_path / "other.npz"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("notes.txt", b"hello")
    with pytest.raises(sx.IOError, match=r"other\.npz.*entry 'notes\.txt' is not a \.npy file"):
        sx.load_npz(other)
    with pytest.raises(TypeError, match="key"):
        sx.save_npz(tmp_path / "k.npz", {1: np.zeros(2)})
    with pytest.raises(TypeError):
        sx.save_npz(tmp_path / "f16.npz", {"h": np.zeros(2, dtype=np.float16)})

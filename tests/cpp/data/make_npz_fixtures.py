"""Writes the .npz fixtures of tests/cpp/test_npz.cpp (NumPy is the writer under test there).

numpy_savez.npz and numpy_savez_compressed.npz come from numpy.savez and numpy.savez_compressed;
zip64_data_descriptor.npz is assembled here by hand in the forms NumPy/zipfile write for large
or streamed archives (ZIP64 central-directory fields, ZIP64 end records, a data descriptor) so
that the reader's paths for them are tested without gigabyte files; numpy.load must read it.
Run from anywhere: python3 tests/cpp/data/make_npz_fixtures.py
"""

import io
import pathlib
import struct
import zlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def arrays():
    # The C++ test rebuilds these values itself (arange, hand-written lists).
    return {
        "a": np.arange(6, dtype=np.float32).reshape(2, 3),
        "b": np.array([1, -2, 3], dtype=np.int64),
        "flag": np.array(True),
        "empty": np.zeros((0, 2), dtype=np.float64),
    }


def npy_bytes(a):
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def zip64_with_data_descriptor(entries):
    """A zip whose entries carry a data descriptor (flag bit 3, sizes 0 in the local header) and
    whose central directory gives every size and offset in a ZIP64 extra field, ended by ZIP64 records."""
    out, central = bytearray(), bytearray()
    for name, data in entries.items():
        name = name.encode()
        crc, offset = zlib.crc32(data), len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0x8, 0, 0, 0x21, 0, 0, 0, len(name), 0) + name
        out += data + struct.pack("<IIQQ", 0x08074B50, crc, len(data), len(data))
        extra = struct.pack("<HHQQQ", 1, 24, len(data), len(data), offset)
        central += (
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                0x02014B50,
                0x32D,
                45,
                0x8,
                0,
                0,
                0x21,
                crc,
                0xFFFFFFFF,
                0xFFFFFFFF,
                len(name),
                len(extra),
                0,
                0,
                0,
                0o100644 << 16,
                0xFFFFFFFF,
            )
            + name
            + extra
        )
    cd_offset, n = len(out), len(entries)
    out += central
    end64 = len(out)
    out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x32D, 45, 0, 0, n, n, len(central), cd_offset)
    out += struct.pack("<IIQI", 0x07064B50, 0, end64, 1)
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return bytes(out)


def main():
    np.savez(HERE / "numpy_savez.npz", **arrays())
    np.savez_compressed(HERE / "numpy_savez_compressed.npz", **arrays())
    path = HERE / "zip64_data_descriptor.npz"
    path.write_bytes(zip64_with_data_descriptor({k + ".npy": npy_bytes(v) for k, v in arrays().items()}))
    for name in ("numpy_savez.npz", "numpy_savez_compressed.npz", path.name):
        with np.load(HERE / name) as loaded:
            for key, value in arrays().items():
                np.testing.assert_array_equal(loaded[key], value)
                assert loaded[key].dtype == value.dtype and loaded[key].shape == value.shape
        print(name, (HERE / name).stat().st_size, "bytes")


if __name__ == "__main__":
    main()

"""Helpers shared by the Python tests (the fixtures are in conftest.py): the repository's folders,
the symx build under test, child processes that import that same build, and IDX files."""

import gzip
import os
import subprocess
import sys

import numpy as np

import symx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The bundled data sets (data/), or SYMX_TEST_DATA's folder, as for the C++ tests.
DATA = os.environ.get("SYMX_TEST_DATA", os.path.join(ROOT, "data"))
MNIST = os.path.join(DATA, "mnist")
# The folder holding the symx package this process imports (build/python in a build tree).
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(symx.__file__)))


def symx_tool():
    """The `symx` command-line tool of the build under test: $SYMX_BIN (`make test-python` sets it),
    else bin/symx beside the imported package's folder (build/bin/symx for build/python)."""
    return os.environ.get("SYMX_BIN", os.path.join(os.path.dirname(PACKAGE_PARENT), "bin", "symx"))


def python_env(**changes):
    """os.environ for a child process: with `changes` applied (a value of None removes the
    variable), and the imported package's folder first on PYTHONPATH, so that the child imports the
    same symx as this process."""
    env = dict(os.environ)
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    env["PYTHONPATH"] = os.pathsep.join(p for p in [PACKAGE_PARENT, env.get("PYTHONPATH", "")] if p)
    return env


def run_python(*args, env=None, timeout=120, **kwargs):
    """Runs this interpreter with `args` in a child process (env: python_env() unless given), with
    its output captured as text; returns the CompletedProcess."""
    return subprocess.run(
        [sys.executable, *args],
        env=python_env() if env is None else env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        **kwargs,
    )


def idx_oracle(path):
    """An IDX file parsed with gzip and NumPy: the independent reference for symx.data.read_idx."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    dtypes = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
    ndim = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * k : 8 + 4 * k], "big") for k in range(ndim))
    return np.frombuffer(raw, dtypes[raw[2]], offset=4 + 4 * ndim).reshape(shape)


def write_idx(path, array, code):
    """Writes `array` as an IDX file of type `code` (0x08 for uint8, ...), gzipped if `path` ends in .gz."""
    header = bytes([0, 0, code, array.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in array.shape)
    payload = header + array.astype(array.dtype.newbyteorder(">")).tobytes()
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wb") as f:
        f.write(payload)


def numeric_grad(f, x, eps=1e-6):
    """d f / d x by central differences of step eps (f: a float64 scalar function of one array x)."""
    x = np.array(x, np.float64)
    g = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        p, m = x.copy(), x.copy()
        p[idx] += eps
        m[idx] -= eps
        g[idx] = (f(p) - f(m)) / (2 * eps)
    return g


def numeric_complex_grad(f, z, eps=1e-6):
    """JAX's convention for a real function f of complex z = x + iy: df/dx - i df/dy, by central
    differences in float64."""
    g = np.zeros(z.shape, np.complex128)
    for idx in np.ndindex(z.shape):
        for unit, part in ((1, 1), (1j, -1j)):
            zp, zm = z.astype(np.complex128), z.astype(np.complex128)
            zp[idx] += eps * unit
            zm[idx] -= eps * unit
            g[idx] += part * (f(zp) - f(zm)) / (2 * eps)
    return g

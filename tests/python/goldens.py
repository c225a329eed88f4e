"""The PyTorch/SciPy golden files of the toolkit's tests (written by tests/golden/make_golden.py)."""

import os

import numpy as np

GOLDEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "golden")


def load_golden(name):
    """The arrays of tests/golden/<name>.npz, as a dict (the file is closed again)."""
    with np.load(os.path.join(GOLDEN, name + ".npz")) as f:
        return {k: f[k] for k in f.files}

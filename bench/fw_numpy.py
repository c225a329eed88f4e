"""NumPy (and SciPy) implementations of the NumPy-surface cases (9-13): the reference a user of
NumPy would run. NumPy sorts and scans on one thread; its einsum goes through BLAS (optimize=True).
"""

import numpy as np
import scipy.special as sps

import common as C


def _case(fn, *args):
    last = {}

    def step():
        last["r"] = fn(*args)

    return step, lambda: C.checksum(last["r"]), None


def argsort4m():
    return _case(lambda x: np.argsort(x, kind="stable"), C.argsort_data())


def median_rows():
    return _case(lambda x: np.median(x, axis=1), C.median_data())


def cumprod():
    return _case(lambda x: np.cumprod(x, axis=1), C.cumprod_data())


def special_chain():
    return _case(lambda x, y: sps.gammaln(x) + sps.digamma(x) + sps.erfinv(y), *C.special_data())


def einsum_attn():
    return _case(lambda q, k: np.einsum("bhqd,bhkd->bhqk", q, k, optimize=True), *C.einsum_data())


# cases 14-17 (issue 22): the decompositions alone (NumPy has no gradients)


def eigh512():
    return _case(lambda x: np.linalg.eigh(x)[0], C.spectral_data(C.SPECTRAL_ONE)[0])


def svd512():
    return _case(lambda x: np.linalg.svd(x, full_matrices=False)[1], C.spectral_data(C.SPECTRAL_ONE)[0])


def eigh_batch():
    return _case(lambda x: np.linalg.eigh(x)[0], C.spectral_data(C.SPECTRAL_BATCH)[0])


def svd_batch():
    return _case(lambda x: np.linalg.svd(x, full_matrices=False)[1], C.spectral_data(C.SPECTRAL_BATCH)[0])

"""Conformance rows of symx.fft (symx/fft.hpp) and of the complex-number functions, against numpy.fft
and NumPy (added to test_conformance.py's table: see its _AREAS). Complex inputs, every norm, n/s/axes,
errors and the gradients of every transform (JAX's convention) are in tests/python/test_fft.py and
tests/python/test_complex.py; the rows here take real inputs, as the table's generators make them."""

import numpy as np

import symx as sx


def complex_of(args, ref):
    """numpy.fft computes in complex128; symx keeps float32 inputs in complex64."""
    return np.complex64 if args[0].dtype == np.float32 else np.complex128


def real_of(args, ref):
    return args[0].dtype


def add_rows(c):
    row = c.row
    one_axis = [((3, 8),), ((5,),), ((2, 7, 3),)]
    for name in ("fft", "ifft", "rfft", "ihfft"):
        row(
            f"fft.{name}",
            lambda a, name=name: getattr(sx.fft, name)(a, axis=0 if a.ndim == 3 else -1),
            lambda a, name=name: getattr(np.fft, name)(a, axis=0 if a.ndim == 3 else -1),
            one_axis,
            dtype=complex_of,
            grad=False,  # complex results: gradients in test_fft.py
            api=(f"fft.{name}",),
        )
    for name in ("irfft", "hfft"):
        row(
            f"fft.{name}",
            lambda a, name=name: getattr(sx.fft, name)(a, n=9),
            lambda a, name=name: getattr(np.fft, name)(a, n=9),
            [((3, 5),), ((6,),)],
            dtype=real_of,
            api=(f"fft.{name}",),
        )
    for name in ("fftn", "ifftn", "rfftn", "fft2", "ifft2", "rfft2"):
        row(
            f"fft.{name}",
            lambda a, name=name: getattr(sx.fft, name)(a, axes=(0, 2)),
            lambda a, name=name: getattr(np.fft, name)(a, axes=(0, 2)),
            [((3, 4, 5),)],
            dtype=complex_of,
            grad=False,
            api=(f"fft.{name}",),
        )
    for name in ("irfftn", "irfft2"):
        row(
            f"fft.{name}",
            lambda a, name=name: getattr(sx.fft, name)(a, s=(4, 6), axes=(0, 1)),
            lambda a, name=name: getattr(np.fft, name)(a, s=(4, 6), axes=(0, 1)),
            [((3, 4),)],
            dtype=real_of,
            api=(f"fft.{name}",),
        )
    for name in ("fftfreq", "rfftfreq"):
        row(
            f"fft.{name}",
            lambda name=name: getattr(sx.fft, name)(7, 0.5, dtype="float64"),
            lambda name=name: getattr(np.fft, name)(7, 0.5),
            [()],
            dtypes=("float64",),
            grad=False,
            api=(f"fft.{name}",),
        )
    for name in ("fftshift", "ifftshift"):
        row(
            f"fft.{name}",
            lambda a, name=name: getattr(sx.fft, name)(a, axes=(1,)),
            lambda a, name=name: getattr(np.fft, name)(a, axes=(1,)),
            [((3, 5),), ((2, 4),)],
            api=(f"fft.{name}",),
        )
    # Complex numbers from real inputs (complex inputs: test_complex.py).
    for name in ("real", "conj", "conjugate"):
        row(name, lambda a, name=name: getattr(sx, name)(a), lambda a, name=name: getattr(np, name)(a), [((3, 4),)])
    row("imag", lambda a: sx.imag(a), lambda a: np.imag(a), [((3, 4),)], grad="zero")
    row("angle", lambda a: sx.angle(a), lambda a: np.angle(a), [((3, 4),)], kinds="away", grad="zero")
    row(
        "complex",
        lambda a, b: sx.complex(a, b),
        lambda a, b: a + 1j * b,
        [((3, 4), (4,))],
        dtype=complex_of,
        grad=False,
    )


# The parts of a complex tensor: a real input's real/conj is the input itself (no node), so their
# primitives are exercised on complex inputs in test_complex.py.
COVERAGE = {
    "real": ["test_complex.py::test_unary_matches_numpy"],
    "imag": ["test_complex.py::test_unary_matches_numpy"],
    "conj": ["test_complex.py::test_unary_matches_numpy", "test_complex.py::test_gradient_is_jax_convention"],
}

"""symx: symbolic tensors with NumPy semantics, reverse-mode autodiff and compiled functions.

A thin binding of the C++ library (see include/symx/*.hpp). Build graphs with NumPy-like
functions, evaluate them lazily with ``Tensor.eval(feed)`` or compile them with
``symx.function(inputs, outputs, updates=...)``.

Notes on Tensor semantics:

* ``t1 == t2`` and ``hash(t)`` are by node identity (as in Theano), so tensors can key feed and
  update dicts; use ``symx.equal`` / ``symx.not_equal`` for elementwise comparison. ``<``, ``<=``,
  ``>`` and ``>=`` are elementwise.
* Python ``int``/``float``/``bool`` operands are weak (NEP 50): ``x + 1`` keeps ``x``'s dtype.
  NumPy arrays, NumPy scalars and lists are strong constants (``numpy.asarray`` semantics).
* Arrays returned by ``eval``, functions and ``Tensor.value`` are read-only NumPy arrays that share
  memory with symx (no copies); NumPy inputs are read without copies when C-contiguous.
* Errors: ``symx.ShapeError`` (a ValueError), ``symx.DTypeError`` (a TypeError),
  ``symx.IOError`` (a ValueError); other bad arguments raise ValueError. Messages name the
  Python file and line that built the offending node.
"""
import os as _os
import sys as _sys

import numpy as _np

# Generated kernels and oneDNN share one OpenMP pool. OpenMP's default lets idle threads spin,
# which on a machine with other busy processes makes every parallel region wait for descheduled
# spinners (measured: an MLP training step 10x slower). Sleeping idle threads cost a few
# microseconds per region instead. OpenMP reads this when the extension loads it, so it is set
# here, and only when the user has not chosen.
_os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from . import _symx  # noqa: E402
from ._symx import *  # noqa: F401,F403
from ._symx import (  # noqa: F401
    DTypeError,
    Function,
    IOError,
    Scope,
    ShapeError,
    Tensor,
    linalg,
    nn,
    random,
)

_symx._set_package_dir(_os.path.dirname(_os.path.abspath(__file__)))

# `import symx.nn` / `from symx.linalg import inv` work like ordinary submodules.
for _name in ("nn", "linalg", "random"):
    _sys.modules[__name__ + "." + _name] = getattr(_symx, _name)

bool_ = _np.dtype("bool")
uint8 = _np.dtype("uint8")
int32 = _np.dtype("int32")
int64 = _np.dtype("int64")
float32 = _np.dtype("float32")
float64 = _np.dtype("float64")
newaxis = None


def _iter(self):
    for i in range(len(self)):
        yield self[i]


Tensor.__iter__ = _iter

__version__ = "0.1.0"

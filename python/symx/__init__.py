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
  ``symx.IOError`` (a ValueError); an argument of the wrong kind (a tensor computed from trainable
  variables given as a learning rate) raises TypeError; other bad arguments raise ValueError. Messages name the
  Python file and line that built the offending node.
"""

import builtins as _builtins
import os as _os
import sys as _sys
import typing as _typing

import numpy as _np

# Generated kernels and oneDNN share one OpenMP pool. OpenMP's default lets idle threads spin
# for a long time (300,000 spins), which on a machine with other busy processes makes every
# parallel region wait for descheduled spinners (measured: an MLP training step 10x slower).
# Threads that sleep at once instead wake late for each of the many short regions of a call
# (measured: the MLP step 6.8 ms against 4.7 ms). A short spin (10,000, tens of microseconds)
# keeps the pool awake between the kernels of a call and lets it sleep between calls. OpenMP
# reads these when the extension loads it, so they are set here, and only when the user has
# chosen neither. C++ programs get the same defaults from the library
# (src/runtime/omp_defaults.cpp), whose way, answering libgomp's getenv, works only for an
# executable linked with it, not for an extension module loaded into Python.
if "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ:
    _os.environ["OMP_WAIT_POLICY"] = "passive"
    _os.environ["GOMP_SPINCOUNT"] = "10000"

from . import _symx  # noqa: E402
from ._symx import *  # noqa: F401,F403
from ._symx import (  # noqa: F401
    DTypeError,
    Function,
    IOError,
    Scope,
    ShapeError,
    Tensor,
    fft,
    image,
    interpolation,
    linalg,
    nn,
    normalization,
    random,
    signal,
    special,
    stats,
)

_symx._set_package_dir(_os.path.dirname(_os.path.abspath(__file__)))

# `import symx.nn` / `from symx.linalg import inv` work like ordinary submodules.
for _name in ("nn", "linalg", "random", "stats", "data", "train", "distributed", "special", "normalization"):
    _sys.modules[__name__ + "." + _name] = getattr(_symx, _name)
for _name in ("interpolation", "image", "signal", "fft"):  # symx/interpolation.hpp, signal.hpp, fft.hpp
    _sys.modules[__name__ + "." + _name] = getattr(_symx, _name)
for _name in ("init", "layers", "losses"):
    _sys.modules[__name__ + ".nn." + _name] = getattr(_symx.nn, _name)
# The optimizers and their schedules: `import symx.optim`, `from symx.optim import schedules`.
_sys.modules[__name__ + ".optim"] = _symx.optim
_sys.modules[__name__ + ".optim.schedules"] = _symx.optim.schedules


# One process of a distributed run (symx.distributed under mpirun) that stops on an uncaught
# exception ends every process of the run after printing its traceback, instead of leaving the
# others waiting in a collective until their timeout.
_previous_excepthook = _sys.excepthook


def _end_the_run_on_uncaught(kind, value, traceback):
    _previous_excepthook(kind, value, traceback)
    if _symx.distributed.initialized() and _symx.distributed.world_size() > 1:
        _symx.distributed.abort(f"uncaught {kind.__name__} (traceback above); ending every process of the run")


_sys.excepthook = _end_the_run_on_uncaught

if _typing.TYPE_CHECKING:  # the names the Tensor methods' annotations use (copied into the stubs)
    import collections.abc
    from collections.abc import Sequence

    import numpy
    import numpy.typing

bool_ = _np.dtype("bool")
uint8 = _np.dtype("uint8")
int32 = _np.dtype("int32")
int64 = _np.dtype("int64")
float32 = _np.dtype("float32")
float64 = _np.dtype("float64")
complex64 = _np.dtype("complex64")
complex128 = _np.dtype("complex128")
newaxis = None

# SymJAX's T.Seed and T.bernoulli at the top level: the objects of symx.random (aliases, not copies).
Seed = random.Seed  # noqa: F405
bernoulli = random.bernoulli  # noqa: F405
# jax.scipy.special.bessel_jn, also at the top level as SymJAX has it.
bessel_jn = special.bessel_jn  # noqa: F405
# jax.numpy.set_printoptions is NumPy's: symx's evaluations are NumPy arrays, printed by NumPy.
set_printoptions = _np.set_printoptions
# SymJAX's tensor.normalization.normalize is symx.nn.normalize (the same function).
normalization.normalize = nn.normalize  # noqa: F405


def from_dlpack(x: object, /, *, device: object = None, copy: "bool | None" = None) -> "Tensor":
    """A constant tensor holding the values of ``x``, any object with NumPy's DLPack protocol on the CPU
    (``__dlpack__``: a PyTorch CPU tensor, a JAX array, a NumPy array), as jax.numpy.from_dlpack. The
    values are read through numpy.from_dlpack (no copy there) and kept by the constant.

    Example: sx.from_dlpack(torch.arange(3.0)).eval() is [0.0, 1.0, 2.0]
    """
    if device is not None and str(device) != "cpu":
        raise ValueError("from_dlpack: symx holds arrays on the CPU; device=%r is not supported" % (device,))
    if not hasattr(x, "__dlpack__"):
        raise TypeError(
            "from_dlpack: %s has no __dlpack__ method; pass an object of a DLPack library (PyTorch, JAX, NumPy), "
            "or use sx.asarray for lists and arrays" % type(x).__name__
        )
    return asarray(_np.from_dlpack(x, copy=copy))  # noqa: F405


def _iter(self) -> "collections.abc.Iterator[Tensor]":
    """Iterates over the first axis: ``x[0]``, ``x[1]``, ... (a known size is needed).

    Example: [row.shape for row in x] of x with shape (2, 3) is [(3,), (3,)]
    """
    for i in range(len(self)):
        yield self[i]


Tensor.__iter__ = _iter


class TensorShape(tuple):
    """A tensor's shape as ``Tensor.shape`` gives it: a tuple of ints, with None for each size unknown
    until a call (a placeholder's None). Each None remembers which unknown size it stands for, so the
    shape builds tensors of that size: ``sx.zeros(x.shape)``, ``sx.random.normal(x.shape)``,
    ``sx.ones(x.shape[:1] + (10,))``. It equals the plain tuple of its entries. A None written by hand,
    ``(None, 10)``, names no size and is refused with a message that says so.

    Example: x = sx.placeholder((None, 2)); (x + sx.random.normal(x.shape)).shape == (None, 2)
    """

    def __getitem__(self, key):
        if isinstance(key, _builtins.slice):  # symx.slice shadows the builtin here
            return _tensor_shape(tuple.__getitem__(self, key), self._symx_sizes[key])
        return tuple.__getitem__(self, key)

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return _tensor_shape(tuple(self) + tuple(other), self._symx_sizes + _sizes_of(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return _tensor_shape(tuple(other) + tuple(self), _sizes_of(other) + self._symx_sizes)


def _sizes_of(shape):
    return shape._symx_sizes if isinstance(shape, TensorShape) else tuple(shape)


def _tensor_shape(entries, sizes):
    shape = TensorShape(entries)
    shape._symx_sizes = tuple(sizes)
    return shape


_plain_shape = Tensor.shape


def _shape(self) -> "tuple[int | None, ...]":  # a TensorShape
    return _tensor_shape(_plain_shape.__get__(self), self._symx_sizes)


Tensor.shape = property(_shape, doc=_plain_shape.__doc__)


# Tensor methods: NumPy's ndarray method names, each the free function of the same name.
def _reduction(fn):
    def method(self, axis: "int | Sequence[int] | None" = None, keepdims: bool = False) -> "Tensor":
        return fn(self, axis, keepdims)

    method.__name__ = fn.__name__
    # The free function's docstring (from the C++ header comment) follows, so the two agree.
    method.__doc__ = "``x.%s(axis=None, keepdims=False)`` is ``symx.%s(x, axis, keepdims)``.\n\n%s" % (
        fn.__name__,
        fn.__name__,
        fn.__doc__,
    )
    return method


for _fn in (sum, mean, max, min, prod, std, var, argmax, argmin, all, any, ptp):  # noqa: F405
    setattr(Tensor, _fn.__name__, _reduction(_fn))


def _method(fn, signature, doc):
    """A Tensor method that is the free function with the tensor as its first argument."""

    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = fn.__name__
    method.__doc__ = "``x.%s%s`` is ``symx.%s(x, ...)``%s.\n\n%s" % (
        fn.__name__,
        signature,
        fn.__name__,
        doc,
        fn.__doc__,
    )
    return method


# NumPy's ndarray methods (and SymJAX's Tensor methods) over the free functions of the same name.
for _fn, _signature, _doc in (
    (cumsum, "(axis=None)", ""),  # noqa: F405
    (dot, "(b)", ""),  # noqa: F405
    (matmul, "(b)", ", the same as x @ b"),  # noqa: F405
    (repeat, "(repeats, axis=None)", ""),  # noqa: F405
    (take, "(indices, axis=None)", ""),  # noqa: F405
    (choose, "(choices, mode='raise')", ""),  # noqa: F405
    (expand_dims, "(axis)", ""),  # noqa: F405
    (cast, "(dtype)", ", SymJAX's method; NumPy's is astype"),  # noqa: F405
    (sort, "(axis=-1, stable=True, descending=False)", ""),  # noqa: F405
    (argsort, "(axis=-1, stable=True, descending=False)", ""),  # noqa: F405
    (partition, "(kth, axis=-1)", ""),  # noqa: F405
    (argpartition, "(kth, axis=-1)", ""),  # noqa: F405
    (searchsorted, "(v, side='left', sorter=None)", ""),  # noqa: F405
    (cumprod, "(axis=None)", ""),  # noqa: F405
    (nonzero, "(size=None, fill_value=0)", ", with JAX's static size="),  # noqa: F405
    (compress, "(condition, axis=None)", ""),  # noqa: F405
    (diagonal, "(offset=0, axis1=0, axis2=1)", ""),  # noqa: F405
    (trace, "(offset=0, axis1=0, axis2=1)", ""),  # noqa: F405
    (swapaxes, "(axis1, axis2)", ""),  # noqa: F405
    (flatten2d, "()", ", SymJAX's method"),  # noqa: F405
):
    setattr(Tensor, _fn.__name__, _method(_fn, _signature, _doc))


def _transpose(self, *axes: "int | Sequence[int]") -> "Tensor":
    """``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``, as ndarray.transpose.

    Example: x.transpose(1, 0) of x with shape (2, 3) has shape (3, 2)
    """
    if len(axes) == 1 and not isinstance(axes[0], int):
        axes = axes[0]
    return transpose(self, axes or None)  # noqa: F405


def _flatten(self) -> "Tensor":
    """A 1-D copy of the tensor's elements in row-major order, as ndarray.flatten.

    Example: x.flatten() of x with shape (2, 3) has shape (6,)
    """
    return reshape(self, (-1,))  # noqa: F405


def _squeeze(self, axis: "int | Sequence[int] | None" = None) -> "Tensor":
    """``symx.squeeze(x, axis)``: removes the listed size-1 axes, or all of them.

    Example: x.squeeze() of x with shape (1, 3, 1) has shape (3,)
    """
    return squeeze(self, axis)  # noqa: F405


def _clip(
    self, min: "Tensor | numpy.typing.ArrayLike | None" = None, max: "Tensor | numpy.typing.ArrayLike | None" = None
) -> "Tensor":  # noqa: A002 - ndarray.clip's argument names
    """``symx.clip(x, min, max)``; either bound may be None (unbounded on that side).

    As symx.clip (and torch.clamp), x keeps its gradient at a bound (maximum would split it there).

    Example: x.clip(min=0) is symx.where(x < 0, 0, x)
    """
    if min is None and max is None:
        raise ValueError("Tensor.clip: give min, max or both (both are None)")
    if min is None:
        return where(greater(self, max), max, self)  # noqa: F405
    if max is None:
        return where(less(self, min), min, self)  # noqa: F405
    return clip(self, min, max)  # noqa: F405


def _round(self, decimals: int = 0) -> "Tensor":
    """Rounds half to even, as ndarray.round (``decimals`` other than 0 is not supported).

    Example: symx.constant([0.5, 1.5]).round().eval() is [0.0, 2.0]
    """
    if decimals != 0:
        raise ValueError(
            "Tensor.round: decimals=%r is not supported; use decimals=0, or scale first: "
            "sx.round(x * 100) / 100" % (decimals,)
        )
    return round(self)  # noqa: F405


def _ravel(self) -> "Tensor":
    """The tensor's elements as a 1-D tensor in row-major order, as ndarray.ravel (the same as flatten).

    Example: x.ravel() of x with shape (2, 3) has shape (6,)
    """
    return reshape(self, (-1,))  # noqa: F405


def _copy(self) -> "Tensor":
    """The tensor itself: symbolic tensors are immutable, so a copy is the same value (ndarray.copy).

    Example: x.copy() is x
    """
    return self


def _clone(self, givens: "dict[Tensor, Tensor] | Sequence[tuple[Tensor, Tensor]]") -> "Tensor":
    """SymJAX's ``t.clone(givens)``: this tensor's graph with the replacements in ``givens``
    ({old: new}), the same as ``symx.clone([t], givens)[0]``.

    Example: y.clone({x: x2}) computes y from x2 instead of x
    """
    return clone([self], givens)[0]  # noqa: F405


def _reset(self) -> None:
    """SymJAX's ``v.reset()``: draws the variable's value again, as ``symx.reset_variables([v])``.

    Example: w.reset()
    """
    reset_variables([self])  # noqa: F405


def _norm(
    self, ord: "float | str | None" = None, axis: "int | Sequence[int] | None" = None, keepdims: bool = False
) -> "Tensor":  # noqa: A002 - numpy.linalg.norm's argument name
    """SymJAX's ``x.norm(ord=None, axis=None, keepdims=False)``: ``symx.linalg.norm(x, ord, axis, keepdims)``.

    Example: sx.constant([3.0, 4.0]).norm().eval() is 5.0
    """
    return linalg.norm(self, ord, axis, keepdims)  # noqa: F405


def _variables(self, trainable: "bool | None" = True) -> "list[Tensor]":
    """SymJAX's ``t.variables(trainable=True)``: the variables this tensor depends on (only the
    trainable ones by default; None: all), as ``symx.variables_of(t, trainable)``.

    Example: loss.variables() is [w, b]
    """
    return variables_of(self, trainable)  # noqa: F405


Tensor.transpose = _transpose
Tensor.ravel = _ravel
Tensor.copy = _copy
Tensor.clone = _clone
Tensor.reset = _reset
Tensor.variables = _variables
Tensor.norm = _norm
Tensor.flatten = _flatten
Tensor.squeeze = _squeeze
Tensor.clip = _clip
Tensor.round = _round
Tensor.__round__ = _round

__version__ = "0.1.0"

# Loops and conditionals (symx/control_flow.hpp), with Python's nested carries.
from ._control_flow import cond, fori_loop, map, scan, switch, while_loop  # noqa: E402,F401,A004

"""Loops and conditionals: scan, map, fori_loop, while_loop, cond and switch.

SymJAX's signatures (``symjax.tensor.scan``, ...) with JAX's semantics (``jax.lax.scan``, ...).
The C++ functions (symx/control_flow.hpp) take flat lists of tensors; this module only turns
Python's nested values (a carry that is a tuple, a list or a dict of tensors, numbers or arrays)
into those lists and back, as JAX's pytrees do.

A body is called once, when the node is built, with placeholders of its arguments' types; what it
returns becomes the loop's body, compiled once and run in a loop. It may read any outer tensor or
variable (closed over) or get it through ``non_sequences``.
"""

import numpy as _np

from . import _symx

__all__ = ["scan", "map", "fori_loop", "while_loop", "cond", "switch"]


def _leaf(x):
    if isinstance(x, _symx.Tensor):
        return x
    return _symx.constant(x)


def _flatten(tree):
    """(leaves, rebuild): the tensors of a nested value and a function that rebuilds it."""
    if tree is None:
        return [], lambda leaves: None
    if isinstance(tree, (tuple, list)):
        parts = [_flatten(t) for t in tree]
        sizes = [len(p[0]) for p in parts]
        kind = type(tree)

        def rebuild(leaves):
            out, at = [], 0
            for (_, r), n in zip(parts, sizes):
                out.append(r(leaves[at : at + n]))
                at += n
            return kind(out) if kind in (tuple, list) else kind(*out)

        return [leaf for p in parts for leaf in p[0]], rebuild
    if isinstance(tree, dict):
        keys = list(tree)
        parts = [_flatten(tree[k]) for k in keys]
        sizes = [len(p[0]) for p in parts]

        def rebuild(leaves):
            out, at = {}, 0
            for k, (_, r), n in zip(keys, parts, sizes):
                out[k] = r(leaves[at : at + n])
                at += n
            return out

        return [leaf for p in parts for leaf in p[0]], rebuild
    leaf = _leaf(tree)
    return [leaf], lambda leaves: leaves[0]


def _same_structure(what, leaves, template_leaves):
    if len(leaves) != len(template_leaves):
        raise ValueError(
            f"{what}: the body returns {len(leaves)} tensors for a carry of {len(template_leaves)}. "
            "Return the carry with the structure of init (the same tuple/list/dict of tensors)."
        )


def _as_list(xs, what):
    if xs is None:
        return []
    if isinstance(xs, (_symx.Tensor, _np.ndarray)):
        return [xs]
    if isinstance(xs, (tuple, list)):
        return list(xs)
    raise TypeError(f"{what} must be a tensor or a list of tensors, not {type(xs).__name__}")


def scan(f, init, sequences=None, non_sequences=None, length=None, reverse=False, checkpoint=False):
    """Scans ``f`` over the first axis of ``sequences`` while carrying state (``jax.lax.scan``).

    ``f(carry, *xs, *non_sequences) -> (new_carry, y)``: ``carry`` has the structure of ``init``
    (a tensor, or a tuple/list/dict of them), ``xs`` are one slice of each sequence, ``y`` is any
    structure of tensors (or None). Returns ``(final_carry, ys)``: ``ys`` has ``y``'s structure with
    each tensor stacked along a new first axis of size ``length``. ``length`` is needed only
    without sequences; ``reverse`` iterates from the last slice to the first (outputs stay in the
    sequences' order); ``checkpoint=True`` makes the gradient recompute the body instead of saving
    its intermediate values. The body is compiled once and run in a loop; its gradient is a
    reverse scan (backpropagation through time).

    Example: ``carry, ys = sx.scan(lambda c, x: (c + x, c), 0.0, sequences=[xs])``
    """
    seqs = [_leaf(s) for s in _as_list(sequences, "scan: sequences")]
    non_seqs = [_leaf(s) for s in _as_list(non_sequences, "scan: non_sequences")]
    init_leaves, rebuild_carry = _flatten(init)
    y_rebuild = []

    def body(carry, xs, ns):
        result = f(rebuild_carry(list(carry)), *xs, *ns)
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise ValueError(
                "scan: the body must return a pair (new_carry, y); it returned "
                f"{type(result).__name__}. Return (carry, None) when there is no output."
            )
        new_leaves, _ = _flatten(result[0])
        _same_structure("scan", new_leaves, init_leaves)
        y_leaves, rebuild_y = _flatten(result[1])
        y_rebuild.append(rebuild_y)
        return new_leaves, y_leaves

    carry, ys = _symx._scan(body, init_leaves, seqs, non_seqs, length, bool(reverse), bool(checkpoint))
    return rebuild_carry(list(carry)), y_rebuild[0](list(ys))


def map(f, sequences, non_sequences=None):
    """``f`` applied to each slice of ``sequences`` (``f(*xs, *non_sequences)``), the results stacked.

    As SymJAX's ``map`` and ``jax.lax.map``: a scan without a carry, compiled once.

    Example: ``squares = sx.map(lambda x: x * x, [xs])``
    """
    seqs = _as_list(sequences, "map: sequences")
    if not seqs:
        raise ValueError("map: there are no sequences. Pass at least one tensor to map over its first axis.")
    _, ys = scan(lambda c, *args: (c, f(*args)), (), seqs, non_sequences)
    return ys


def fori_loop(lower, upper, body_fun, init_val):
    """``body_fun(i, val) -> val`` for ``i`` from ``lower`` to ``upper - 1`` (``jax.lax.fori_loop``).

    With Python int bounds it is a scan of ``upper - lower`` iterations (differentiable); with
    tensor bounds, a while_loop (no reverse-mode gradient). ``i`` is an int32 scalar tensor.

    Example: ``v = sx.fori_loop(0, 10, lambda i, v: v * 2, 1.0)``
    """
    leaves, rebuild = _flatten(init_val)
    if isinstance(lower, (int, _np.integer)) and isinstance(upper, (int, _np.integer)):
        n = max(int(upper) - int(lower), 0)

        def step(c, _unused=None):
            i, vals = c
            new = _flatten(body_fun(i, rebuild(list(vals))))[0]
            _same_structure("fori_loop", new, leaves)
            return (i + 1, tuple(new)), None

        (_, vals), _ = scan(step, (_symx.constant(_np.int32(lower)), tuple(leaves)), length=n)
        return rebuild(list(vals))
    lo = _symx.astype(_leaf(lower), "int32")
    hi = _symx.astype(_leaf(upper), "int32")

    def cond_fn(v):
        return v[0] < hi

    def body_fn(v):
        new = _flatten(body_fun(v[0], rebuild(list(v[1:]))))[0]
        _same_structure("fori_loop", new, leaves)
        return [v[0] + 1, *new]

    out = _symx._while_loop(cond_fn, body_fn, [lo, *leaves])
    return rebuild(list(out[1:]))


def while_loop(cond_fun, body_fun, init_val, non_sequences_cond=None, non_sequences_body=None):
    """Repeats ``val = body_fun(val)`` while ``cond_fun(val)`` is true (``jax.lax.while_loop``).

    ``init_val`` is a tensor or a tuple/list/dict of them; ``cond_fun`` returns a bool scalar.
    SymJAX's ``non_sequences_cond`` / ``non_sequences_body`` are passed after the value
    (``cond_fun(val, *non_sequences_cond)``). No reverse-mode gradient (as in JAX): use fori_loop
    with int bounds or scan with a length. Ctrl-C stops a running loop (KeyboardInterrupt) and
    the call changes no variable.

    Example: ``v = sx.while_loop(lambda v: v < 100, lambda v: v * 2, 1.0)``
    """
    leaves, rebuild = _flatten(init_val)
    nc = [_leaf(x) for x in _as_list(non_sequences_cond, "while_loop: non_sequences_cond")]
    nb = [_leaf(x) for x in _as_list(non_sequences_body, "while_loop: non_sequences_body")]

    def cond_fn(v):
        return _leaf(cond_fun(rebuild(list(v)), *nc))

    def body_fn(v):
        new = _flatten(body_fun(rebuild(list(v)), *nb))[0]
        _same_structure("while_loop", new, leaves)
        return new

    return rebuild(list(_symx._while_loop(cond_fn, body_fn, leaves)))


def _branches(fns, operands):
    leaves, rebuild = _flatten(tuple(operands))
    out_rebuild = []

    def wrap(fn):
        def branch(args):
            result = fn(*rebuild(list(args)))
            out_leaves, r = _flatten(result)
            out_rebuild.append(r)
            return out_leaves

        return branch

    return leaves, [wrap(fn) for fn in fns], out_rebuild


def cond(pred, true_fun, false_fun, *operands, true_inputs=None, false_inputs=None):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)`` (``jax.lax.cond``).

    Only the branch taken runs, and only it is differentiated (no NaN from the other). Both
    branches return the same structure of tensors of the same shapes and dtypes. SymJAX's form,
    ``cond(pred, true_fun, false_fun, true_inputs, false_inputs)``, passes each branch its own
    inputs.

    Example: ``y = sx.cond(x > 0, lambda x: sx.log(x), lambda x: x, x)``
    """
    if true_inputs is not None or false_inputs is not None:
        ti, fi = list(true_inputs or ()), list(false_inputs or ())
        n = len(ti)
        return cond(pred, lambda *a: true_fun(*a[:n]), lambda *a: false_fun(*a[n:]), *ti, *fi)
    leaves, fns, out = _branches([false_fun, true_fun], operands)
    results = _symx._switch(_leaf(pred), fns, leaves, True)
    return out[0](list(results))


def switch(index, branches, *operands):
    """``branches[clamp(index, 0, len(branches) - 1)](*operands)`` (``jax.lax.switch``).

    Only the branch taken runs. Every branch returns the same structure of tensors of the same
    shapes and dtypes.

    Example: ``y = sx.switch(k, [lambda x: x, lambda x: -x, lambda x: 2 * x], x)``
    """
    branches = list(branches)
    leaves, fns, out = _branches(branches, operands)
    results = _symx._switch(_leaf(index), fns, leaves, False)
    return out[0](list(results))

"""Indexed updates (x.at[...], index_update & co), histograms and the functions with data-dependent
output shapes: NumPy's indexing semantics over many index forms, eval without size= on concrete values,
and the error messages (the conformance rows in conformance_indexing.py check values and gradients)."""

import numpy as np
import pytest

import symx as sx

pytestmark = pytest.mark.usefixtures("fresh_graph")

A = np.arange(60.0).reshape(3, 4, 5)

INDICES = [
    1,
    -1,
    (slice(None), 2),
    (Ellipsis, 3),
    (None, 1, slice(None, None, -2)),
    ([0, 2],),
    ([[0, 1], [2, 0]],),
    (slice(None), [3, 0, 3], slice(1, 3)),
    ([0, 1], slice(None), [4, -5]),
    (1, slice(None), [0, 2]),
    ([0, 2], [1, 3]),
    (Ellipsis, [0, 0]),
    (np.array([True, False, True]),),
    (slice(None), np.array([True, False, True, True])),
    (A[:, :, 0] > 20,),
    (1, None, [0, 1], Ellipsis),
]


@pytest.mark.parametrize("index", INDICES, ids=[str(i) for i in range(len(INDICES))])
def test_get_and_set_follow_numpy(index):
    x = sx.constant(A)
    np.testing.assert_array_equal(x.at[index].get().eval(), A[index])
    v = -np.arange(A[index].size, dtype=np.float64).reshape(A[index].shape)
    want = A.copy()
    want[index] = v
    np.testing.assert_array_equal(x.at[index].set(v).eval(), want)
    want = A.copy()
    np.add.at(want, index, 1.0)
    np.testing.assert_array_equal(sx.index_add(x, index, 1.0).eval(), want)


def test_duplicates_and_dtypes():
    x = sx.constant(np.zeros(4, np.int32))
    i = np.array([1, 1, 3, 1])
    np.testing.assert_array_equal(x.at[i].add(2).eval(), [0, 6, 0, 2])
    np.testing.assert_array_equal(x.at[i].set(np.array([5, 6, 7, 8])).eval(), [0, 8, 0, 7])  # the last wins
    assert x.at[i].set(2.7).eval().dtype == np.int32  # values take x's dtype, as JAX
    y = sx.constant(np.array([1.0, np.nan, 3.0]))
    np.testing.assert_array_equal(y.at[:].min(np.array([2.0, 0.0, np.nan])).eval(), [1.0, np.nan, np.nan])


def test_symbolic_index_tensors_and_masks_in_functions():
    x = sx.placeholder((3, 4))
    i = sx.placeholder((2,), "int64")
    m = sx.placeholder((3, 4), "bool")
    f = sx.function([x, i, m], [x.at[i, 1:].add(1.0), x.at[m].set(0.0), x.at[i].get()])
    xv = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    mv = xv > 6
    a, b, c = f(xv, np.array([2, 0]), mv)
    want = xv.copy()
    want[[2, 0], 1:] += 1
    np.testing.assert_array_equal(a, want)
    np.testing.assert_array_equal(b, np.where(mv, 0, xv))
    np.testing.assert_array_equal(c, xv[[2, 0]])


def test_index_errors_name_the_line():
    x = sx.constant(np.zeros((3, 4)))
    with pytest.raises(sx.ShapeError, match=r"too many indices.*test_indexing.py"):
        x.at[0, 1, 2].set(1.0)
    with pytest.raises(sx.DTypeError, match="index tensor of dtype float64"):
        x.at[sx.constant(np.array([0.5]))].get()
    with pytest.raises(sx.ShapeError, match="do not broadcast"):
        x.at[[0, 1], [0, 1, 2]].get()
    m = sx.placeholder((3, 4), "bool")
    with pytest.raises(ValueError, match="symbolic"):
        x.at[m].get()
    with pytest.raises(sx.ShapeError, match="trailing dimensions"):
        x.at[m[:, 0]].set(np.ones((3, 4)))
    with pytest.raises(ValueError, match="out of bounds"):
        x.at[5].set(1.0).eval()
    with pytest.raises(ValueError, match='mode="clip" is not supported'):
        x.at[5].set(1.0, mode="clip")
    np.testing.assert_array_equal(x.at[1, 2].add(1.0, unique_indices=True).eval()[1], [0, 0, 1, 0])


def test_size_is_needed_only_for_symbolic_values():
    v = np.array([[0, 2, 0], [1, 0, 3]])
    for got, want in zip(sx.nonzero(v), np.nonzero(v)):
        np.testing.assert_array_equal(got.eval(), want)
    np.testing.assert_array_equal(sx.argwhere(v).eval(), np.argwhere(v))
    np.testing.assert_array_equal(sx.flatnonzero(v).eval(), np.flatnonzero(v))
    np.testing.assert_array_equal(sx.compress([True, False, True], v, axis=1).eval(), np.compress([1, 0, 1], v, 1))
    np.testing.assert_array_equal(sx.extract(v > 0, v).eval(), np.extract(v > 0, v))
    np.testing.assert_array_equal(sx.trim_zeros(np.array([0, 0, 1, 0, 2, 0])).eval(), [1, 0, 2])
    np.testing.assert_array_equal(sx.trim_zeros(np.array([0, 1, 0]), "b").eval(), [0, 1])
    np.testing.assert_array_equal(sx.bincount(np.array([4, 1, 1])).eval(), np.bincount([4, 1, 1]))
    p = sx.placeholder((2, 3), "int64", name="p")
    for fn in (sx.nonzero, sx.argwhere, sx.flatnonzero, lambda t: sx.extract(t > 0, t), sx.trim_zeros):
        with pytest.raises(ValueError, match=r"depends on placeholder 'p'.*test_indexing.py.*size="):
            fn(p if fn is not sx.trim_zeros else p[0])
    with pytest.raises(ValueError, match="length="):
        sx.bincount(p[0])
    f = sx.function([p], [sx.nonzero(p, size=4, fill_value=-1)[1], sx.bincount(p[0], length=4)])
    cols, counts = f(v)
    np.testing.assert_array_equal(cols, [1, 0, 2, -1])
    np.testing.assert_array_equal(counts, [2, 0, 1, 0])


def test_histogram_edge_cases():
    x = np.array([1.0, 1.0, 1.0])  # min == max: numpy widens the range by 0.5
    h, e = sx.histogram(x, 4)
    wh, we = np.histogram(x, 4)
    np.testing.assert_array_equal(h.eval(), wh)
    np.testing.assert_allclose(e.eval(), we)
    y = np.array([0.0, 0.5, 1.0, 2.0, -1.0])  # the last edge is inclusive, values outside are dropped
    np.testing.assert_array_equal(sx.histogram(y, 2, range=(0, 1))[0].eval(), np.histogram(y, 2, range=(0, 1))[0])
    with pytest.raises(ValueError, match="positive number of bins"):
        sx.histogram(y, 0)
    with pytest.raises(sx.ShapeError, match="one bins entry per dimension"):
        sx.histogramdd(np.zeros((4, 3)), bins=(2, 2))


def test_put_place_errors():
    x = sx.constant(np.zeros(5))
    with pytest.raises(ValueError, match="mode"):
        sx.put(x, [0], [1.0], mode="nope")
    with pytest.raises(ValueError, match="immutable"):
        sx.put(x, [0], [1.0], inplace=True)
    with pytest.raises(sx.ShapeError, match="mask"):
        sx.place(x, np.ones(4, bool), [1.0])
    np.testing.assert_array_equal(sx.put(x, [1, 9], [7.0], mode="clip").eval(), [0, 7, 0, 0, 7])


# ---- x[key]: NumPy's advanced indexing through Tensor.__getitem__ ----

GETITEM_KEYS = INDICES + [
    (slice(None), [0, 1], Ellipsis, [0, 1]),  # an ellipsis of no axis still keeps them apart
    ([0, 1], slice(None), 2),  # an integer is advanced too: apart, the broadcast axis goes first
    (2, slice(None), [0, 3]),
    (slice(None), [[0], [2]], [1, 3, 4]),  # broadcast together, adjacent: in place
    (slice(1, None), [0, 3], [4, 0]),
    (None, [0, 2], None, [1, 1]),
    ([0, 1], None, [0, 1]),
    ([[0, 1], [1, 2]], [[0], [3]], 4),
    ([0, 1], [1, 2], [2, 3]),
    ([-1],),
    ([0, 2], Ellipsis),
    (np.array([], np.int64),),
    (slice(None), np.array([], np.int64), 0),
    (np.array([2, -3], np.int32), slice(None, None, -1)),
    (np.int64(1), [0, 3]),
    (np.array(1), [0]),  # a 0-d integer array is an integer
    ([True, False, True],),  # a list of bools is a mask
    (np.ones((3, 4), bool),),
    (slice(None), A[0] > 30),
    (Ellipsis, np.array([True, False, True, True, False])),
    (np.array([True, False, True]), slice(None), [0, 4]),
    (np.array([False, False, False]),),
    True,  # a 0-d mask: a new axis of size 1, or of size 0
    False,
    (1, True),
    ([0, 1], slice(None), True),
    (slice(None), True, [0, 1]),
    (Ellipsis, False),
    (),
    Ellipsis,
]


def _grad_fd(fn, a, seed=0):
    """The gradient of sum(fn(x) * r) at a (float64) by central finite differences."""
    r = np.random.default_rng(seed).standard_normal(np.shape(fn(a)))
    g = np.zeros_like(a)
    eps = 1e-6
    for i in np.ndindex(a.shape):
        up, down = a.copy(), a.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (np.sum(fn(up) * r) - np.sum(fn(down) * r)) / (2 * eps)
    return g, r


@pytest.mark.parametrize("key", GETITEM_KEYS, ids=[str(i) for i in range(len(GETITEM_KEYS))])
def test_getitem_follows_numpy(key):
    """x[key] against NumPy's a[key] on constants, on a placeholder through both backends, and its
    gradient (duplicate indices accumulate) against float64 finite differences."""
    want = A[key]
    got = sx.constant(A)[key].eval()
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(sx.constant(A).at[key].get().eval(), want)
    x = sx.placeholder(A.shape, "float64")
    y = x[key]
    assert tuple(y.shape) == want.shape
    g_fd, r = _grad_fd(lambda a: a[key], A)
    (g,) = sx.grad(sx.sum(y * r), [x])
    for backend in ("reference", "compiled"):
        value, grad = sx.function([x], [y, g], backend=backend)(A)
        np.testing.assert_array_equal(value, want)
        np.testing.assert_allclose(grad, g_fd, atol=1e-6)


def test_getitem_with_tensor_indices():
    x = sx.placeholder((3, 4, 5), "float64")
    i = sx.placeholder((2,), "int64")
    j = sx.placeholder((None,), "int32")
    k = sx.constant(np.array([[1], [0]]))
    outs = [x[i], x[:, i, 1:], x[i[:1], :, j], x[k, i], x[1, j], x[..., j]]
    f = sx.function([x, i, j], outs)
    iv = np.array([2, -1])
    for jv in (np.array([3, 0, -2], np.int32), np.array([1, 2], np.int32)):
        got = f(A, iv, jv)
        want = [A[iv], A[:, iv, 1:], A[iv[:1], :, jv], A[np.array([[1], [0]]), iv], A[1, jv], A[..., jv]]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    # Gradients through a symbolic index: duplicates accumulate.
    (g,) = sx.grad(sx.sum(x[i, 1:, 2]), [x])
    want = np.zeros(A.shape)
    np.add.at(want, (np.array([0, 0]), slice(1, None), 2), 1.0)
    np.testing.assert_array_equal(sx.function([x, i], [g])(A, np.array([0, 0]))[0], want)
    # Out of range at the call, when the index is known only then: the index, its axis and its size.
    with pytest.raises(ValueError, match=r"index 3 is out of bounds for axis 0 with size 3"):
        f(A, np.array([3, 0]), np.array([0], np.int32))
    with pytest.raises(ValueError, match=r"index 4 is out of bounds for axis 1 with size 4"):
        sx.function([x, i], [x[k, i]])(A, np.array([1, 4]))  # two advanced indices
    with pytest.raises(ValueError, match=r"index -6 is out of bounds for axis 2 with size 5"):
        sx.function([x, j], [x[..., j]])(A, np.array([0, -6], np.int32))


def test_getitem_errors():
    x = sx.placeholder((3, 4, 5), name="w")
    with pytest.raises(
        sx.ShapeError,
        match=r"index 5 is out of bounds for axis 0 of 'w' of shape \(3, 4, 5\), "
        r"whose size is 3.*test_indexing.py.*\[-3, 3\) \(-3 to 2",
    ):
        x[[0, 5]]
    with pytest.raises(sx.ShapeError, match=r"index -5 is out of bounds for axis 1 of 'w'.*size is 4.*\[-4, 4\)"):
        x[:, np.array([0, -5])]
    with pytest.raises(sx.ShapeError, match=r"index 7 is out of bounds for axis 2 of 'w'"):
        x[[0], ..., 7]
    with pytest.raises(sx.ShapeError, match=r"axis 1 with size 4"):  # basic indexing: slice's message
        x[0, 4]
    m = sx.placeholder((3,), "bool", name="keep")
    with pytest.raises(ValueError, match=r"mask 'keep' is symbolic.*placeholder 'keep'.*sx.where.*nonzero.*size="):
        x[m]
    with pytest.raises(ValueError, match=r"mask 'slice#\d+' is symbolic \(it depends on placeholder 'keep'\)"):
        x[1:, m[1:]]
    with pytest.raises(
        sx.ShapeError,
        match=r"mask of shape \(4,\) does not match axis 0 of 'w'.*size 4 where the "
        r"tensor's has 3",
    ):
        x[np.ones(4, bool)]
    with pytest.raises(sx.ShapeError, match=r"index tensors' shapes \(2,\), \(3,\) do not broadcast"):
        x[[0, 1], [0, 1, 2]]
    with pytest.raises(sx.ShapeError, match="too many indices"):
        x[[0], 1, 2, 3]
    with pytest.raises(sx.DTypeError, match="index tensor of dtype float64"):
        x[np.array([0.5])]
    with pytest.raises(IndexError, match=r"only integers, slices.*got a float"):
        x[1.5]
    with pytest.raises(
        TypeError,
        match=r"slice bounds must be integers or None.*start is a Tensor.*"
        r"dynamic_slice",
    ):
        x[sx.constant(1) :]
    d = sx.placeholder((None, 4), name="d")
    with pytest.raises(sx.ShapeError, match=r"advanced indices on several axes.*unknown \(None\)"):
        d[[0, 1], [1, 2]]
    with pytest.raises(sx.ShapeError, match="counts from the end"):
        d[-1, [0]]


def test_at_errors_name_the_indexed_tensor():
    """x.at[i] with a position out of range names x (not the positions the update is built on), the
    axis, the bad position and the valid range."""
    x = sx.placeholder((3, 4), name="w")
    for do in (
        lambda: x.at[5].set(1.0),
        lambda: x.at[5].get(),
        lambda: sx.index_add(x, (5, slice(None)), 1.0),
        lambda: x.at[[0, 5]].multiply(2.0),
        lambda: x.at[np.array([5]), 0].max(2.0),
    ):
        with pytest.raises(
            sx.ShapeError,
            match=r"index 5 is out of bounds for axis 0 of 'w' of shape \(3, 4\), "
            r"whose size is 3.*\(operands: 'w'.*test_indexing.py.*\[-3, 3\)",
        ) as info:
            do()
        assert "int64" not in str(info.value).split("(operands:")[1].split(")")[0]  # not the positions
    with pytest.raises(sx.ShapeError, match=r"index -5 is out of bounds for axis 1 of 'w'.*\[-4, 4\)"):
        x.at[:, -5].add(1.0)
    with pytest.raises(sx.ShapeError, match=r"axis 1 of 'e'.*That axis is empty"):
        sx.placeholder((2, 0), name="e").at[0, 0].get()

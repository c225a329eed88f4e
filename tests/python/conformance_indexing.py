"""Conformance rows of symx/indexing.hpp (added to test_conformance.py's table: see its _AREAS)."""

import numpy as np

import symx as sx


def _numpy_at(op):
    def ref(x, i, v):
        y = x.copy()
        op(y, (i, slice(None)), v)
        return y

    return ref


def _set(y, idx, v):
    # NumPy's assignment keeps the last of duplicate indices, as symx does.
    y[idx] = v


def _update_gen(shape, n_idx, vshape, nonzero=False):
    def gen(rng, dt):
        out = []
        for dup in (False, True):
            x = rng.standard_normal(shape).astype(dt)
            i = rng.choice(shape[0], n_idx, replace=dup) if not dup else np.array([2, 0, 2, 1, 0][:n_idx])
            i = np.asarray(i, np.int64)
            i[0] -= shape[0]  # a negative index
            v = rng.standard_normal((n_idx,) + vshape[1:]).astype(dt)
            if nonzero:
                v = (np.abs(v) + 0.5) * np.sign(v)
            out.append([x, i, v])
        return out

    return gen


def _nonzero_ref(x, size, fill):
    idx = np.nonzero(x)
    return tuple(np.concatenate([a[:size], np.full(max(size - a.size, 0), fill, np.int64)]) for a in idx)


def _sparse(rng, shape, dt):
    v = rng.integers(-2, 3, shape) * (rng.random(shape) > 0.5)
    return np.asarray(v, dt)


def _compress_ref(c, x, axis, size, fill):
    r = np.compress(c, x, axis=axis)
    pad = [(0, 0)] * r.ndim
    pad[axis] = (0, size - r.shape[axis])
    return np.pad(r, pad, constant_values=fill)


def _i64(a):
    return np.asarray(a, np.int64)


# The classes behind x.at[...] and sx.index: not ops (test_indexing.py tests them).
NOT_OPS = {"IndexMaker", "IndexUpdateHelper", "IndexedRef"}


def add_rows(c):
    row, make = c.row, c.make
    gen = _update_gen((4, 3), 4, (4, 3))
    row(
        "index_update",
        lambda x, i, v: sx.index_update(x, (i, slice(None)), v),
        _numpy_at(_set),
        gen=gen,
        diff=[0, 2],
        api=("index_update",),
    )
    row(
        "index_add",
        lambda x, i, v: x.at[i, :].add(v),
        _numpy_at(lambda y, idx, v: np.add.at(y, idx, v)),
        gen=gen,
        diff=[0, 2],
    )
    row(
        "index_multiply",
        lambda x, i, v: sx.index_multiply(x, sx.index[i, :], v),
        _numpy_at(lambda y, idx, v: np.multiply.at(y, idx, v)),
        gen=gen,
        diff=[0, 2],
    )
    row(
        "index_divide",
        lambda x, i, v: x.at[i].divide(v),
        _numpy_at(lambda y, idx, v: np.divide.at(y, idx, v)),
        gen=_update_gen((4, 3), 4, (4, 3), nonzero=True),
        diff=[0, 2],
    )
    row(
        "index_min",
        lambda x, i, v: sx.index_min(x, (i, slice(None)), v),
        _numpy_at(lambda y, idx, v: np.minimum.at(y, idx, v)),
        gen=gen,
        diff=[0, 2],
    )
    row(
        "index_max",
        lambda x, i, v: x.at[i, ...].max(v),
        _numpy_at(lambda y, idx, v: np.maximum.at(y, idx, v)),
        gen=gen,
        diff=[0, 2],
    )
    row(
        "index_get",
        lambda x, i, j: sx.index_get(x, (i, slice(1, None), j)),
        lambda x, i, j: x[i, 1:, j],
        gen=lambda rng, dt: [
            [make("normal", (3, 4, 5), dt, rng), _i64([[0, -1], [2, 1]]), _i64([4, -5])],
            [make("normal", (3, 4, 5), dt, rng), _i64([1]), _i64(2)],
        ],
        diff=[0],
    )
    # x[key] with advanced entries (Tensor.__getitem__ routes to index_get): apart (the broadcast axes
    # first), adjacent after a slice, with newaxis and an ellipsis, and a constant boolean mask.
    row(
        "operator[advanced]",
        lambda x, i, j: [x[i, 1:, j], x[:, i[0], j], x[None, ..., j], x[2, i, :2]],
        lambda x, i, j: [x[i, 1:, j], x[:, i[0], j], x[None, ..., j], x[2, i, :2]],
        gen=lambda rng, dt: [
            [make("normal", (3, 4, 5), dt, rng), _i64([[0, -1], [2, 1]]), _i64([4, -5])],
            [make("normal", (3, 4, 5), dt, rng), _i64([[1, 1]]), _i64([[0], [3], [0]])],
        ],
        diff=[0],
        api=(),
    )
    row(
        "operator[mask]",
        lambda x: [x[np.array([True, False, True])], x[:, np.array([[1, 0, 1, 1]] * 2, bool)], x[..., True]],
        lambda x: [x[np.array([True, False, True])], x[:, np.array([[1, 0, 1, 1]] * 2, bool)], x[..., True]],
        gen=lambda rng, dt: [[make("normal", (3, 2, 4), dt, rng)]],
        ints=("int32",),
        api=(),
    )
    row(
        "at[adjacent].set",
        lambda x, i, j, v: x.at[None, :, i, j].set(v),
        lambda x, i, j, v: (y := x.copy(), y.__setitem__((slice(None), i, j), v[0]), y)[2],
        gen=lambda rng, dt: [
            [make("normal", (2, 4, 5), dt, rng), _i64([0, 3, 1]), _i64([4, 0, 2]), make("normal", (1, 2, 3), dt, rng)]
        ],
        diff=[0, 3],
        api=(),
    )
    row(
        "at[mask].add",
        lambda x, m, v: x.at[m].add(v),
        lambda x, m, v: np.where(m[:, :, None], x + v, x),
        gen=lambda rng, dt: [
            [make("normal", (3, 4, 2), dt, rng), rng.random((3, 4)) > 0.5, make("normal", (2,), dt, rng)]
        ],
        diff=[0, 2],
        api=(),
    )
    row(
        "at[const mask].set",
        lambda x, v: x.at[np.array([True, False, True])].set(v),
        lambda x, v: (y := x.copy(), y.__setitem__(np.array([True, False, True]), v), y)[2],
        gen=lambda rng, dt: [[make("normal", (3, 4), dt, rng), make("normal", (4,), dt, rng)]],
        api=(),
    )
    row(
        "put_along_axis",
        lambda x, i, v: sx.put_along_axis(x, i, v, axis=1),
        lambda x, i, v: (y := x.copy(), np.put_along_axis(y, i, v, 1), y)[2],
        gen=lambda rng, dt: [
            [
                make("normal", (3, 5), dt, rng),
                np.argsort(rng.random((3, 5)), 1)[:, :2],
                make("normal", (3, 2), dt, rng),
            ],
            [make("normal", (3, 5), dt, rng), _i64([[4], [0], [2]]), make("normal", (1,), dt, rng)],
        ],
        diff=[0, 2],
    )
    row(
        "put",
        lambda x, v: sx.put(x, [0, -1, 7, 30], v, mode="wrap"),
        lambda x, v: (y := x.copy(), np.put(y, [0, -1, 7, 30], v, mode="wrap"), y)[2],
        gen=lambda rng, dt: [[make("normal", (3, 4), dt, rng), make("normal", (3,), dt, rng)]],
        ints=("int32",),
        diff=[0, 1],
    )
    row(
        "place",
        sx.place,
        lambda x, m, v: (y := x.copy(), np.place(y, m, v), y)[2],
        gen=lambda rng, dt: [
            [make("normal", (3, 4), dt, rng), rng.random((3, 4)) > 0.4, make("normal", (3,), dt, rng)]
        ],
        ints=("int64",),
        diff=[0, 2],
    )
    row(
        "bincount",
        lambda x, w: sx.bincount(x, w, length=6),
        lambda x, w: np.bincount(x, w, minlength=6)[:6].astype(w.dtype),
        gen=lambda rng, dt: [[_i64(rng.integers(0, 8, (20,))), make("normal", (20,), dt, rng)]],
        diff=[1],
    )
    row(
        "bincount[counts]",
        lambda x: sx.bincount(x, minlength=3, length=5),
        lambda x: np.bincount(x, minlength=5),
        gen=lambda rng, dt: [[np.asarray(rng.integers(0, 5, (9,)), dt)]],
        dtypes=("int32", "int64"),
        grad=False,
        api=(),
    )
    row(
        "histogram",
        lambda x: sx.histogram(x, 5),
        lambda x: np.histogram(x, 5),
        gen=lambda rng, dt: [[make("normal", (40,), dt, rng)], [make("normal", (4, 5), dt, rng)]],
        grad=False,
        api=("histogram", "histogram_bin_edges"),
    )
    row(
        "histogram[weights,density]",
        lambda x, w: sx.histogram(x, bins=np.array([-3.0, -0.5, 0.0, 0.7, 3.0]), weights=w, density=True)[0],
        lambda x, w: np.histogram(x, bins=np.array([-3.0, -0.5, 0.0, 0.7, 3.0]), weights=w, density=True)[0],
        gen=lambda rng, dt: [[make("normal", (30,), dt, rng), make("pos", (30,), dt, rng)]],
        diff=[1],
        dtype=lambda args, ref: args[0].dtype,
        api=(),
    )
    row(
        "histogram[range]",
        lambda x: sx.histogram(x, 4, range=(-1.0, 1.0))[0],
        lambda x: np.histogram(x, 4, range=(-1.0, 1.0))[0],
        gen=lambda rng, dt: [[make("normal", (30,), dt, rng)]],
        grad=False,
        api=(),
    )
    row(
        "histogram_bin_edges",
        lambda x: sx.histogram_bin_edges(x, 3),
        lambda x: np.histogram_bin_edges(x, 3),
        gen=lambda rng, dt: [[make("normal", (10,), dt, rng)]],
        grad=False,
        api=(),
    )
    row(
        "histogram2d",
        lambda x, y: sx.histogram2d(x, y, bins=(3, 4), range=((-2, 2), (-1.5, 1.5)))[0],
        lambda x, y: np.histogram2d(x, y, bins=(3, 4), range=((-2, 2), (-1.5, 1.5)))[0].astype(np.int64),
        gen=lambda rng, dt: [[make("normal", (50,), dt, rng), make("normal", (50,), dt, rng)]],
        grad=False,
    )
    row(
        "histogramdd",
        lambda s: sx.histogramdd(s, bins=3)[0],
        lambda s: np.histogramdd(s, bins=3)[0].astype(np.int64),
        gen=lambda rng, dt: [[make("normal", (40, 3), dt, rng)]],
        grad=False,
    )
    row(
        "nonzero",
        lambda x: sx.nonzero(x, size=7, fill_value=-1),
        lambda x: _nonzero_ref(x, 7, -1),
        gen=lambda rng, dt: [[_sparse(rng, (3, 4), dt)], [_sparse(rng, (20,), dt)]],
        dtypes=("float32", "int64", "bool"),
        grad=False,
    )
    row(
        "argwhere",
        lambda x: sx.argwhere(x, size=4),
        lambda x: np.stack(_nonzero_ref(x, 4, 0), -1),
        gen=lambda rng, dt: [[_sparse(rng, (3, 4), dt)]],
        dtypes=("float64", "int32"),
        grad=False,
    )
    row(
        "flatnonzero",
        lambda x: sx.flatnonzero(x, size=5),
        lambda x: _nonzero_ref(x.reshape(-1), 5, 0)[0],
        gen=lambda rng, dt: [[_sparse(rng, (2, 5), dt)]],
        dtypes=("float32",),
        grad=False,
    )
    row(
        "compress",
        lambda c, x: sx.compress(c, x, axis=1, size=4, fill_value=9.0),
        lambda c, x: _compress_ref(c, x, 1, 4, 9.0),
        gen=lambda rng, dt: [[np.array([True, False, True, True]), make("normal", (2, 5), dt, rng)]],
        diff=[1],
    )
    row(
        "extract",
        lambda c, x: sx.extract(c, x, size=12),
        lambda c, x: np.pad(np.extract(c, x), (0, 12 - int(c.sum()))),
        gen=lambda rng, dt: [[(m := make("normal", (3, 4), dt, rng)) > 0.5, m]],
        diff=[1],
    )
    row(
        "trim_zeros",
        lambda x: sx.trim_zeros(x, size=6),
        lambda x: np.pad(np.trim_zeros(x), (0, 6 - np.trim_zeros(x).size)),
        gen=lambda rng, dt: [
            [np.asarray([0, 0, 1.5, 0, -2, 0, 0, 0], dt)],
            [np.asarray([3, 0, 1, 0], dt)],
            [np.zeros(4, dt)],
        ],
        ints=("int64",),
        grad=False,  # a finite difference moves the zeros it trims
    )


# scatter_set's, scatter_mul's, scatter_min's and scatter_max's forward graphs are in the rows above; the
# random primitives of issue 21 (this helper's other part) are checked against SciPy in test_random.py.
COVERAGE = {
    "random_gamma": ["test_random.py::test_distributions_against_scipy"],
    "random_poisson": ["test_random.py::test_distributions_against_scipy"],
    "random_gamma_grad": ["test_random.py::test_gamma_gradient"],
}

"""Sorting, searching, order statistics and scans (symx/sorting.hpp) beyond the conformance table: the
partition property, the compiled library calls on large rows (radix sort, threads), unique and the set
functions without size= (eager) and inside a function, and the error messages."""

import numpy as np
import pytest

import symx as sx

pytestmark = pytest.mark.usefixtures("fresh_graph")


def both(inputs, outputs, args):
    """Outputs from the reference evaluator and the compiled backend."""
    return [sx.function(inputs, outputs, backend=b)(*args) for b in ("reference", "compiled")]


@pytest.mark.parametrize("kth", [0, 3, -1, (1, 5), (0, 2, 6)])
def test_partition_and_argpartition_are_partitions(kth):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, (5, 7)).astype(np.float32)
    a[1, 2] = np.nan
    x = sx.placeholder(a.shape, "float32")
    for p, i in both([x], [sx.partition(x, kth, axis=1), sx.argpartition(x, kth, axis=1)], [a]):
        np.testing.assert_array_equal(np.take_along_axis(a, i, 1), p)
        np.testing.assert_array_equal(np.sort(p, 1), np.sort(a, 1))
        for k in np.atleast_1d(kth):
            k = k % a.shape[1]
            np.testing.assert_array_equal(p[:, k], np.sort(a, 1)[:, k])
            for row, v in zip(p, p[:, k]):
                assert np.all(~(row[:k] > v)) and np.all(~(row[k + 1 :] < v))


def test_compiled_sorts_of_long_rows_match_numpy():
    rng = np.random.default_rng(1)
    a = rng.standard_normal(200_000).astype(np.float32)
    a[::7] = np.round(a[::7])  # ties
    a[3], a[10], a[11], a[12] = np.nan, -0.0, 0.0, -np.inf
    b = rng.standard_normal((300, 700)).astype(np.float32)
    x, y = sx.placeholder(a.shape, "float32"), sx.placeholder(b.shape, "float32")
    outs = [sx.argsort(x), sx.sort(x), sx.argsort(x, descending=True), sx.argsort(y, axis=0), sx.sort(y, axis=1)]
    got = sx.function([x, y], outs)(a, b)
    np.testing.assert_array_equal(got[0], np.argsort(a, kind="stable"))
    np.testing.assert_array_equal(got[1], np.sort(a))
    np.testing.assert_array_equal(got[2], a.size - 1 - np.flip(np.argsort(np.flip(a), kind="stable")))
    np.testing.assert_array_equal(got[3], np.argsort(b, axis=0, kind="stable"))
    np.testing.assert_array_equal(got[4], np.sort(b, axis=1))


def test_compiled_scans_and_median_of_large_arrays():
    rng = np.random.default_rng(2)
    a = rng.uniform(0.9, 1.1, (67, 301)).astype(np.float32)
    a[5, 7:10] = 0
    x = sx.placeholder(a.shape, "float32")
    outs = [sx.cumprod(x, axis=1), sx.cumprod(x, axis=0), sx.cummax(x, axis=0), sx.logcumsumexp(x, axis=1)]
    outs += [sx.median(x, axis=1), sx.median(x, axis=0), sx.quantile(x, [0.25, 0.5], axis=1)]
    ref, got = both([x], outs, [a])
    for r, g in zip(ref, got):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[0], np.cumprod(a, axis=1), rtol=1e-5)
    np.testing.assert_allclose(got[4], np.median(a, axis=1), rtol=1e-6)


def test_compiled_median_selection_matches_numpy_on_hard_rows():
    """The kth_values library call (a quickselect on 32-bit keys): rows of ties, constant, sorted and
    reversed rows, zeros of both signs, infinities, NaN (the row's median is NaN), even and odd
    lengths, rows along memory and strided (axis 0), float32 and float64, with its gradient."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((40, 301)).astype(np.float32)
    a[0] = 1.5
    a[1] = np.arange(301)
    a[2] = -np.arange(301)
    a[3] = rng.integers(0, 3, 301)
    a[4, ::2], a[4, 1::2] = -0.0, 0.0
    a[5, :150], a[6, 17] = -np.inf, np.nan
    a[7, :200] = np.inf
    for b in (a, a[:, :300], a.T.copy(), a.astype(np.float64)):
        for axis in (1, 0):
            x = sx.placeholder(b.shape, str(b.dtype))
            m = sx.median(x, axis=axis)
            ref, got = both([x], [m, *sx.grad(sx.sum(m * np.arange(m.shape[0])), [x])], [b])
            np.testing.assert_array_equal(got[0], np.median(b, axis=axis))
            np.testing.assert_array_equal(got[0], ref[0])
            np.testing.assert_array_equal(got[1], ref[1])


def test_cumprod_gradient_with_zeros_matches_the_products_of_the_others():
    a = np.array([2.0, 0.0, 0.0, 3.0, 0.5])
    x = sx.placeholder(a.shape, "float64")
    (g,) = sx.grad(sx.sum(sx.cumprod(x)), [x])
    want = [sum(np.prod(np.delete(a[: k + 1], i)) for k in range(i, a.size)) for i in range(a.size)]
    for got in both([x], [g], [a]):
        np.testing.assert_allclose(got[0], want)


def test_unique_without_size_evaluates_its_input():
    values, counts = sx.unique(np.array([3, 1, 3, 2, 1]), return_counts=True)
    np.testing.assert_array_equal(values.eval(), [1, 2, 3])
    np.testing.assert_array_equal(counts.eval(), [2, 1, 2])
    a = np.array([2.0, np.nan, 2.0, np.nan])
    r, want = sx.unique_all(sx.constant(a)), np.unique_all(a)  # NaNs apart, as NumPy's array-API names
    for got, expected in zip(r, want):
        np.testing.assert_array_equal(got.eval(), expected)
    np.testing.assert_array_equal(sx.unique(a).eval(), [2.0, np.nan])  # NaNs as one (equal_nan=True)
    np.testing.assert_array_equal(sx.intersect1d(np.array([1, 2, 3]), np.array([3, 2, 7])).eval(), [2, 3])
    np.testing.assert_array_equal(sx.union1d(np.array([1, 2]), np.array([5])).eval(), [1, 2, 5])


def test_unique_inside_a_function_needs_size():
    x = sx.placeholder((4,), "int64")
    with pytest.raises(ValueError, match=r"unique: the size of the result depends on the values.*Pass size="):
        sx.unique(x)
    with pytest.raises(ValueError, match=r"setdiff1d: .*Pass size="):
        sx.setdiff1d(x, np.array([1]))
    u = sx.unique(x, size=3, fill_value=-1)
    np.testing.assert_array_equal(sx.function([x], [u])(np.array([4, 4, 2, 4]))[0], [2, 4, -1])


def test_error_messages():
    x = sx.placeholder((3, 4))
    with pytest.raises(ValueError, match=r"partition: kth 4 is out of bounds for an axis of size 4"):
        sx.partition(x, 4)
    with pytest.raises(ValueError, match=r"searchsorted: side='middle'.*side='left' or side='right'"):
        sx.searchsorted(np.arange(3.0), 1.0, side="middle")
    with pytest.raises(ValueError, match=r"searchsorted: a has 2 dimensions, not 1"):
        sx.searchsorted(x, 1.0)
    with pytest.raises(ValueError, match=r"quantile: unknown method 'cubic'"):
        sx.quantile(x, 0.5, method="cubic")
    with pytest.raises(ValueError, match=r"top_k: k=5 is not in \[0, 4\]"):
        sx.top_k(x, 5)
    with pytest.raises(ValueError, match=r"cumulative_sum: axis is omitted for an input of 2 dimensions"):
        sx.cumulative_sum(x)
    with pytest.raises(ValueError, match=r"sort: .*axis"):
        sx.sort(x, axis=2)


def test_aliases_are_the_same_function():
    assert sx.cumproduct is sx.cumprod


def _fd_grad(fn, a, r, eps=1e-6):
    """The gradient of sum(fn(x) * r) at a (float64) by central finite differences."""
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        up, down = a.copy(), a.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (np.sum(fn(up) * r) - np.sum(fn(down) * r)) / (2 * eps)
    return g


def test_scan_gradients_over_an_axis_of_unknown_length():
    """cumprod's gradient (and those of the scans whose gradients reverse or shift the axis: logcumsumexp,
    cummax, cummin) over a dynamic (None) axis, in one function called with two lengths, against float64
    finite differences and the gradient over the same axis at a fixed size."""
    x = sx.placeholder((None, 5), "float64")
    r = sx.placeholder((None, 5), "float64")
    scans = [
        (lambda t: sx.cumprod(t, axis=0), lambda a: np.cumprod(a, axis=0)),
        (lambda t: sx.logcumsumexp(t, axis=0), lambda a: np.logaddexp.accumulate(a, axis=0)),
        (lambda t: sx.cummax(t, axis=0), lambda a: np.maximum.accumulate(a, axis=0)),
        (lambda t: sx.cummin(t, axis=0), lambda a: np.minimum.accumulate(a, axis=0)),
        (lambda t: sx.cumprod(t, axis=1), lambda a: np.cumprod(a, axis=1)),
    ]
    grads = [sx.grad(sx.sum(fn(x) * r), [x])[0] for fn, _ in scans]
    rng = np.random.default_rng(5)
    for backend in ("reference", "compiled"):
        f = sx.function([x, r], grads, backend=backend)
        for n in (3, 7):
            a = rng.uniform(0.5, 1.5, (n, 5)) * np.where(rng.random((n, 5)) > 0.5, 1, -1)
            rv = rng.standard_normal((n, 5))
            # cumprod's exact gradient at a zero and at two zeros in a row (cummax and cummin at distinct
            # values: a tie has no derivative for finite differences to check).
            z = a.copy()
            z[1, 2] = 0.0
            if n > 3:
                z[2:4, 4] = 0.0
            outs = f(a, rv)
            outs_z = f(z, rv)
            for k, (fn, ref) in enumerate(scans):
                zeros = k in (0, 4)
                got, at = (outs_z[k], z) if zeros else (outs[k], a)
                np.testing.assert_allclose(got, _fd_grad(ref, at, rv), rtol=1e-6, atol=1e-7)
                xs = sx.placeholder((n, 5), "float64")
                (fixed,) = sx.grad(sx.sum(fn(xs) * rv), [xs])
                np.testing.assert_allclose(got, fixed.eval({xs: at}), rtol=1e-12, atol=1e-14)


def test_flip_of_an_axis_of_unknown_length():
    x = sx.placeholder((None, 3), "float32")
    y = sx.flip(x, 0)
    (g,) = sx.grad(sx.sum(y * np.arange(3.0)), [x])
    f = sx.function([x], [y, sx.flip(x), g])
    for n in (1, 4):
        a = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
        got = f(a)
        np.testing.assert_array_equal(got[0], a[::-1])
        np.testing.assert_array_equal(got[1], a[::-1, ::-1])
        np.testing.assert_array_equal(got[2], np.broadcast_to(np.arange(3.0), (n, 3)))


# ---- unique along an axis ----


def _unique_axis_cases():
    rng = np.random.default_rng(6)
    a = rng.integers(0, 2, (7, 3)).astype(np.float64)
    b = rng.integers(0, 3, (2, 6, 2))
    c = np.array([[np.nan, 1], [0, 2], [np.nan, 1], [-0.0, 2], [np.nan, 0], [0.0, 2]])
    return [(a, 0), (a, 1), (a, -1), (b, 1), (b, 0), (b, 2), (c, 0), (rng.random((4, 3)) > 0.5, 0)]


@pytest.mark.parametrize("case", range(8))
def test_unique_along_an_axis_matches_numpy(case):
    a, axis = _unique_axis_cases()[case]
    want = np.unique(a, return_index=True, return_inverse=True, return_counts=True, axis=axis)
    got = sx.unique(a, True, True, True, axis=axis)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g.eval(), w)
    np.testing.assert_array_equal(sx.unique(a, axis=axis).eval(), np.unique(a, axis=axis))
    # size= inside a function: padded with the first unique slice (or fill_value), index and counts with 0.
    k = want[0].shape[axis]
    for size, fill in ((k + 2, None), (k + 1, 7), (max(k - 1, 1), None)):
        x = sx.placeholder(a.shape, str(a.dtype))
        outs = sx.unique(x, True, True, True, axis=axis, size=size, fill_value=fill)
        got = sx.function([x], list(outs))(a)
        values = np.moveaxis(want[0], axis, 0)[:size]
        pad = np.moveaxis(want[0], axis, 0)[:1] if fill is None else np.full((1,) + values.shape[1:], fill)
        values = np.concatenate([values] + [pad.astype(a.dtype)] * (size - values.shape[0]))
        np.testing.assert_array_equal(got[0], np.moveaxis(values, 0, axis))
        np.testing.assert_array_equal(got[1], np.pad(want[1][:size], (0, size - min(size, k))))
        np.testing.assert_array_equal(got[2], want[2])
        np.testing.assert_array_equal(got[3], np.pad(want[3][:size], (0, size - min(size, k))))


def test_unique_along_an_axis_edges_and_errors():
    for shape, axis in (((3, 0), 0), ((0, 3), 0), ((0, 3), 1), ((2, 3, 0), 1)):
        a = np.zeros(shape)
        want = np.unique(a, return_index=True, return_inverse=True, return_counts=True, axis=axis)
        got = sx.unique(a, True, True, True, axis=axis)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_array_equal(g.eval(), w)
    x = sx.placeholder((4, 3), name="rows")
    with pytest.raises(ValueError, match=r"unique: the size of the result depends on the values.*size="):
        sx.unique(x, axis=0)
    with pytest.raises(ValueError, match=r"unique: .*axis 2"):
        sx.unique(np.zeros((2, 2)), axis=2)
    with pytest.raises(sx.ShapeError, match=r"unique along an axis needs the tensor's sizes.*\(None, 3\)"):
        sx.unique(sx.placeholder((None, 3)), axis=0, size=2)
    # The gradient flows to the slices returned (from their first occurrences).
    a = np.array([[1.0, 2.0], [0.5, 3.0], [1.0, 2.0]])
    x = sx.placeholder(a.shape, "float64")
    (g,) = sx.grad(sx.sum(sx.unique(x, axis=0, size=2) * np.array([[1.0, 2.0], [3.0, 4.0]])), [x])
    np.testing.assert_array_equal(g.eval({x: a}), [[3.0, 4.0], [1.0, 2.0], [0.0, 0.0]])


# ---- quantiles on a selection ----

QUANTILE_METHODS = ["linear", "lower", "higher", "midpoint", "nearest", "hazen", "weibull", "median_unbiased"]
QUANTILE_METHODS += ["normal_unbiased", "interpolated_inverted_cdf", "inverted_cdf"]


@pytest.mark.parametrize("method", QUANTILE_METHODS)
def test_quantile_selection_is_bit_identical_to_the_sort(method):
    """A constant q selects its order statistics (kth_values); a q given at the call sorts the rows. Both
    give the same bits, as NumPy's quantile for float64 (float32: NumPy's with q cast to float32), on
    rows with ties, NaN, infinities and signed zeros, and the same gradient."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((9, 37))
    a[0] = 1.0
    a[1, :5] = np.nan
    a[2, ::3] = np.inf
    a[3, ::2], a[3, 1::2] = -0.0, 0.0
    a[4] = np.round(a[4])
    a[:, -1] = np.where(np.arange(9) == 5, np.nan, a[:, -1])
    qs = [0.0, 0.3, 0.5, 0.999, 1.0]
    for dt in ("float64", "float32", "int64"):
        b = np.nan_to_num(a, nan=3, posinf=4).astype(dt) if dt == "int64" else a.astype(dt)
        x = sx.placeholder(b.shape, dt)
        q = sx.placeholder((len(qs),), "float64" if dt != "float32" else "float32")
        for axis in (1, 0):
            fast = [sx.quantile(x, qs, axis=axis, method=method), sx.quantile(x, 0.3, axis=axis, method=method)]
            fast += [sx.percentile(x, [30.0, 75.0], axis=axis, method=method)]
            if dt == "int64":
                fast += [sx.nanquantile(x, qs, axis=axis, method=method)]
            sorted_ = sx.quantile(x, q, axis=axis, method=method)
            qv = np.asarray(qs, "float32" if dt == "float32" else "float64")
            for backend in ("reference", "compiled"):
                got = sx.function([x, q], fast + [sorted_], backend=backend)(b, qv)
                if backend == "reference":
                    same = np.testing.assert_array_equal
                else:  # a q given at the call is arithmetic in the kernel, a constant one is folded
                    tol = 1e-15 if dt == "float64" else 1e-6
                    same = lambda g, w, tol=tol: np.testing.assert_allclose(g, w, rtol=tol, atol=tol)  # noqa: E731
                same(got[0], got[-1])
                same(got[1], got[-1][1])
                with np.errstate(invalid="ignore"):
                    want = [np.quantile(b, qv, axis=axis, method=method)]
                    want += [np.percentile(b, [30.0, 75.0], axis=axis, method=method)]
                for g, w in zip(got[::2], want):
                    # symx computes in the data's float type: NumPy's bits for float64 on the reference
                    # evaluator (compiled kernels may contract a * b + c into one rounding, -march=native).
                    if dt == "float64" and backend == "reference":
                        np.testing.assert_array_equal(g, w)
                    elif dt == "float64":
                        np.testing.assert_allclose(g, w, rtol=1e-15, atol=1e-15)
                    else:
                        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6)
                if dt == "int64":
                    same(got[3], got[-1])
    # The gradient: the same through the selection as through the sort (distinct values: no ties).
    c = rng.permutation(37 * 4).reshape(4, 37) / 7.0
    x = sx.placeholder(c.shape, "float64")
    q = sx.placeholder((2,), "float64")
    w = np.arange(8.0).reshape(2, 4)
    (g_fast,) = sx.grad(sx.sum(sx.quantile(x, [0.3, 0.8], axis=1, method=method) * w), [x])
    (g_sort,) = sx.grad(sx.sum(sx.quantile(x, q, axis=1, method=method) * w), [x])
    got = sx.function([x, q], [g_fast, g_sort])(c, np.array([0.3, 0.8]))
    np.testing.assert_array_equal(got[0], got[1])

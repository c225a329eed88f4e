"""The NumPy names of symx/numpy.hpp beyond the conformance table: edge values (NaN, inf, -0.0, large
arguments) on both backends, the rules at special points, the aliases, the host-side dtype helpers
against NumPy, and the error messages."""

import numpy as np
import pytest

import symx as sx

pytestmark = pytest.mark.usefixtures("fresh_graph")

BACKENDS = ("reference", "compiled")


def run(fn, *arrays, backend="compiled"):
    phs = [sx.placeholder(a.shape, a.dtype) for a in arrays]
    out = fn(*phs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    got = sx.function(phs, outs, backend=backend)(*arrays)
    return got if isinstance(out, (list, tuple)) else got[0]


def same_bits(got, want):
    """Equal values including the sign of zeros and NaN positions."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(got[ok], want[ok])
    np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(want[ok]))


EDGES = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-38, -1e-38, 1e-45, 88.0, -88.0, 3e38, 0.9999999])


def close_with_same_specials(got, want, ulps=4):
    """Within `ulps` of NumPy (whose float functions may be SIMD versions within a few ulp), with NaN,
    infinities and the sign of zeros exactly where NumPy has them."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(want[ok]))
    np.testing.assert_allclose(got[ok], want[ok], rtol=ulps * np.finfo(want.dtype).eps, atol=0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "name", ["arcsin", "arccos", "arcsinh", "arccosh", "arctanh", "sinh", "cosh", "log2", "log10", "exp2", "cbrt"]
)
def test_unary_primitives_at_edge_values(name, dtype, backend):
    """Signed zeros, infinities, NaN, subnormals and arguments at the ends of the float range."""
    x = EDGES.astype(dtype)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x)
    close_with_same_specials(run(getattr(sx, name), x, backend=backend), want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_exact_at_powers_and_integers(backend):
    x = np.array([1, 2, 8, 1024, 2.0**-20, 2.0**100], np.float32)
    np.testing.assert_array_equal(run(sx.log2, x, backend=backend), [0, 1, 3, 10, -20, 100])
    e = np.array([-149, -126, -1, 0, 3, 127], np.float32)
    np.testing.assert_array_equal(run(sx.exp2, e, backend=backend), (2.0 ** e.astype(np.float64)).astype(np.float32))
    np.testing.assert_array_equal(run(sx.cbrt, np.array([8, -27, 0.125], np.float32), backend=backend), [2, -3, 0.5])
    t = np.array([1, 10, 100, 1e10], np.float32)
    np.testing.assert_array_equal(run(sx.log10, t, backend=backend), [0, 1, 2, 10])


@pytest.mark.parametrize("backend", BACKENDS)
def test_binary_primitives_at_edge_values(backend):
    a = np.array([0.0, -0.0, 3.0, np.inf, np.nan, -5.5, 1e30, 7.0, -7.0, 0.0, np.inf])
    b = np.array([-0.0, 1.0, -4.0, np.nan, np.inf, 2.5, 1e30, np.inf, np.inf, 0.0, 2.0])
    with np.errstate(all="ignore"):
        for fn, ref in [(sx.hypot, np.hypot), (sx.copysign, np.copysign), (sx.fmod, np.fmod)]:
            for dtype in ("float32", "float64"):
                same_bits(run(fn, a.astype(dtype), b.astype(dtype), backend=backend), ref(a, b).astype(dtype))
        close_with_same_specials(run(sx.logaddexp, a, b, backend=backend), np.logaddexp(a, b), ulps=2)
        close_with_same_specials(run(sx.logaddexp2, a, b, backend=backend), np.logaddexp2(a, b), ulps=2)
    i, j = np.array([7, -7, 7, -7, 5, np.iinfo(np.int32).min], np.int32), np.array([3, 3, -3, 0, 0, -1], np.int32)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(run(sx.fmod, i, j, backend=backend), np.fmod(i, j))


def test_logaddexp_is_stable_and_splits_its_gradient_at_ties():
    a = sx.placeholder((4,), "float64")
    b = sx.placeholder((4,), "float64")
    y = sx.logaddexp(a, b)
    ga, gb = sx.grad(sx.sum(y), [a, b])
    av, bv = np.array([1000.0, -1000.0, 0.0, 2.0]), np.array([1000.0, -1001.0, 0.0, -3.0])
    f = sx.function([a, b], [y, ga, gb])
    val, da, db = f(av, bv)
    np.testing.assert_allclose(val, np.logaddexp(av, bv), rtol=1e-15)
    np.testing.assert_allclose(da, [0.5, 1 / (1 + np.exp(-1.0)), 0.5, 1 / (1 + np.exp(-5.0))], rtol=1e-12)
    np.testing.assert_allclose(da + db, 1.0, rtol=1e-12)


def test_hypot_gradient_is_zero_at_the_origin_and_finite_for_large_values():
    x = sx.placeholder((3,), "float32")
    y = sx.placeholder((3,), "float32")
    gx, gy = sx.grad(sx.sum(sx.hypot(x, y)), [x, y])
    xv, yv = np.array([0, 3e30, 3], np.float32), np.array([0, 4e30, 4], np.float32)
    for backend in BACKENDS:
        dx, dy = sx.function([x, y], [gx, gy], backend=backend)(xv, yv)
        np.testing.assert_allclose(dx, [0, 0.6, 0.6], rtol=1e-6)
        np.testing.assert_allclose(dy, [0, 0.8, 0.8], rtol=1e-6)
    # arcsinh's gradient 1 / hypot(x, 1) stays right where x * x overflows float32.
    (g,) = sx.grad(sx.sum(sx.arcsinh(x)), [x])
    np.testing.assert_allclose(g.eval({x: np.array([1e20, 0, -1], np.float32)}), [1e-20, 1, 2**-0.5], rtol=1e-6)


def test_modf_frexp_ldexp_divmod_at_special_values():
    x = np.array([-0.5, 2.0, -2.0, np.inf, -np.inf, np.nan, 0.0, -0.0], np.float32)
    frac, whole = run(sx.modf, x)
    want_frac, want_whole = np.modf(x)
    same_bits(frac, want_frac)
    same_bits(whole, want_whole)
    m, e = run(sx.frexp, np.array([8.0, 0.75, -3.0, 0.0, np.inf, 1e-30, 1.0 - 2**-24], np.float32))
    wm, we = np.frexp(np.array([8.0, 0.75, -3.0, 0.0, np.inf, 1e-30, 1.0 - 2**-24], np.float32))
    same_bits(m, wm)
    np.testing.assert_array_equal(e, we)
    # ldexp beyond 2**127 in float32: the two factors keep the product finite.
    np.testing.assert_array_equal(
        run(lambda v: sx.ldexp(v, 200), np.array([2.0**-150], np.float64)), np.ldexp(2.0**-150, 200)
    )
    np.testing.assert_array_equal(sx.ldexp(np.float32(1e-30), 150).eval(), np.ldexp(np.float32(1e-30), 150))
    q, r = sx.divmod(np.array([7, -7]), 2)
    np.testing.assert_array_equal(q.eval(), [3, -4])
    np.testing.assert_array_equal(r.eval(), [1, 1])


def test_nan_reductions_of_all_nan_slices():
    x = np.array([[np.nan, np.nan], [1.0, np.nan], [np.nan, -np.inf]])
    with np.errstate(all="ignore"):
        for backend in BACKENDS:
            np.testing.assert_array_equal(run(lambda t: sx.nanmax(t, axis=1), x, backend=backend), [np.nan, 1, -np.inf])
            np.testing.assert_array_equal(run(lambda t: sx.nanmin(t, axis=1), x, backend=backend), [np.nan, 1, -np.inf])
            np.testing.assert_array_equal(run(lambda t: sx.nansum(t, axis=1), x, backend=backend), [0, 1, -np.inf])
            np.testing.assert_array_equal(
                run(lambda t: sx.nanmean(t, axis=1), x, backend=backend), [np.nan, 1, -np.inf]
            )
            # An all-NaN slice gives -1 (jax.numpy's answer; NumPy raises); -inf is found, not a NaN before it.
            np.testing.assert_array_equal(run(lambda t: sx.nanargmax(t, axis=1), x, backend=backend), [-1, 0, 1])
            np.testing.assert_array_equal(run(lambda t: sx.nanargmin(t, axis=1), x, backend=backend), [-1, 0, 1])
    np.testing.assert_array_equal(sx.nanvar(np.array([1.0, np.nan]), ddof=1).eval(), np.nan)


def test_all_any_count_nonzero_with_nan_and_empty():
    x = np.array([[0.0, np.nan], [0.0, 0.0]])
    np.testing.assert_array_equal(sx.all(x, axis=1).eval(), np.all(x, axis=1))
    np.testing.assert_array_equal(sx.any(x, axis=1).eval(), np.any(x, axis=1))
    np.testing.assert_array_equal(sx.count_nonzero(x).eval(), np.count_nonzero(x))
    empty = np.zeros((0, 3), np.float32)
    np.testing.assert_array_equal(sx.all(empty, axis=0).eval(), np.all(empty, axis=0))
    np.testing.assert_array_equal(sx.any(empty).eval(), np.any(empty))


def test_isclose_allclose_array_equal():
    a = np.array([1.0, np.inf, -np.inf, np.nan, 1e10])
    b = np.array([1.0 + 1e-9, np.inf, np.inf, np.nan, 1.0001e10])
    np.testing.assert_array_equal(sx.isclose(a, b).eval(), np.isclose(a, b))
    np.testing.assert_array_equal(sx.isclose(a, b, equal_nan=True).eval(), np.isclose(a, b, equal_nan=True))
    assert not sx.allclose(a, b).eval() and sx.allclose(a[:1], b[:1]).eval()
    assert not sx.array_equal(np.zeros(3), np.zeros(4)).eval()
    assert sx.array_equal(np.array([1, 2]), np.array([1.0, 2.0])).eval()
    assert sx.array_equal(np.array([np.nan]), np.array([np.nan]), equal_nan=True).eval()


def test_aliases_are_the_same_function_objects():
    for alias, name in [
        ("asin", "arcsin"),
        ("acos", "arccos"),
        ("asinh", "arcsinh"),
        ("acosh", "arccosh"),
        ("atanh", "arctanh"),
        ("atan", "arctan"),
        ("atan2", "arctan2"),
        ("absolute", "abs"),
        ("amax", "max"),
        ("amin", "min"),
        ("product", "prod"),
        ("pow", "power"),
        ("true_divide", "divide"),
        ("remainder", "mod"),
        ("rint", "round"),
        ("fix", "trunc"),
        ("alltrue", "all"),
        ("sometrue", "any"),
        ("degrees", "rad2deg"),
        ("radians", "deg2rad"),
        ("bitwise_invert", "bitwise_not"),
        ("bitwise_left_shift", "left_shift"),
        ("bitwise_right_shift", "right_shift"),
        ("issubsctype", "issubdtype"),
    ]:
        assert getattr(sx, alias) is getattr(sx, name), alias


DTYPES = ["bool", "uint8", "int32", "int64", "float32", "float64"]


def test_dtype_helpers_agree_with_numpy():
    for a in DTYPES:
        for b in DTYPES:
            assert sx.promote_types(a, b) == np.promote_types(a, b), (a, b)
            for casting in ("no", "equiv", "safe", "same_kind", "unsafe"):
                assert sx.can_cast(a, b, casting) == np.can_cast(a, b, casting), (a, b, casting)
            assert sx.result_type(np.zeros(1, a), np.dtype(b)) == np.result_type(a, b)
    for d in DTYPES:
        for kind in (np.generic, np.number, np.integer, np.signedinteger, np.unsignedinteger, np.inexact, np.floating):
            assert sx.issubdtype(d, kind) == np.issubdtype(d, kind), (d, kind)
        for kind in ("bool", "signed integer", "unsigned integer", "integral", "real floating", "numeric"):
            assert sx.isdtype(np.dtype(d), kind) == np.isdtype(np.dtype(d), kind), (d, kind)
    assert sx.issubdtype(sx.placeholder((2,), "int32"), np.int32)
    assert sx.isdtype(np.float32, ("bool", "real floating"))
    # Weak Python numbers (NEP 50): they take the other operand's dtype; a float with integers is float32.
    assert sx.result_type(sx.placeholder((2,), "int32"), 1) == np.int32
    assert sx.result_type(np.float32, 2.5) == np.float32
    assert sx.result_type(np.int64, 2.5) == np.float32
    assert sx.broadcast_shapes((3, 1), (4,), ()) == np.broadcast_shapes((3, 1), (4,), ())
    assert sx.isscalar(3.0) and sx.isscalar(np.float32(1)) and not sx.isscalar(sx.constant(3.0))
    assert sx.ndim(sx.placeholder((2, 3))) == 2 and sx.ndim([[1, 2]]) == 2
    assert sx.shape(sx.placeholder((None, 3))) == (None, 3) and sx.shape([[1, 2]]) == (1, 2)
    assert not sx.iscomplexobj(sx.constant(1.0))


def test_error_messages():
    x = sx.placeholder((3,), "float32", name="x")
    with pytest.raises(sx.ShapeError, match=r"broadcast_shapes: the shapes \(3,\), \(4,\) do not broadcast"):
        sx.broadcast_shapes((3,), (4,))
    with pytest.raises(ValueError, match=r"can_cast: casting \"sometimes\" is not one of NumPy's rules"):
        sx.can_cast("int32", "float32", "sometimes")
    with pytest.raises(TypeError, match=r"a Python number has no dtype"):
        sx.can_cast(1.0, "float32")
    with pytest.raises(ValueError, match=r"issubdtype: \"int8x\" is not a dtype or one of NumPy's kinds"):
        sx.issubdtype("int32", "int8x")
    with pytest.raises(ValueError, match=r"select.*2 conditions but choicelist 1 choices.*test_numpy_names.py"):
        sx.select([x > 0, x < 0], [x])
    with pytest.raises(ValueError, match=r"select.*a condition has dtype float32; select takes bool conditions"):
        sx.select([x], [x])
    with pytest.raises(ValueError, match=r"choose.*mode is \"nearest\".*Use mode="):
        sx.choose(np.array([0]), [x], mode="nearest")
    with pytest.raises(ValueError, match=r"choose.*a has dtype float32; its entries are indices"):
        sx.choose(x, [x])
    with pytest.raises(ValueError, match=r"piecewise.*2 conditions but funclist 4 functions"):
        sx.piecewise(x, [x > 0, x < 0], [1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match=r"ldexp.*exponent has dtype float32.*exp2"):
        sx.ldexp(x, x)
    with pytest.raises(ValueError, match=r"positive.*not defined for bool"):
        sx.positive(np.array([True]))
    with pytest.raises(ValueError, match=r"average.*weights of another shape than a's need an axis"):
        sx.average(sx.placeholder((2, 3)), weights=np.ones(3, np.float32))
    with pytest.raises(ValueError, match=r"cov.*m has 3 dimensions"):
        sx.cov(np.zeros((2, 2, 2)))
    with pytest.raises(sx.DTypeError, match=r"fmod.*booleans"):
        sx.fmod(np.array([True]), np.array([True]))
    with pytest.raises(sx.ShapeError, match=r"hypot.*test_numpy_names.py"):
        sx.hypot(x, sx.placeholder((4,)))


def test_select_piecewise_choose_values():
    x = np.linspace(-2, 2, 9).astype(np.float32)
    got = sx.select([x < -1, x < 1], [x * 10, x * 100], default=-1.0).eval()
    np.testing.assert_array_equal(got, np.select([x < -1, x < 1], [x * 10, x * 100], default=-1.0))
    got = sx.piecewise(x, x > 0, [lambda t: t * 2]).eval()
    np.testing.assert_array_equal(got, np.piecewise(x, x > 0, [lambda t: t * 2]))
    idx = np.array([[0, 1, 2], [2, 1, 0]])
    choices = [np.arange(3), np.arange(3) * 10, np.arange(3) * 100]
    np.testing.assert_array_equal(sx.choose(idx, choices).eval(), np.choose(idx, choices))


def test_tensor_methods():
    x = sx.placeholder((2, 3), "float32", name="x")
    v = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    w = np.ones((3, 2), np.float32)
    for got, want in [
        (x.all(axis=0), v.all(axis=0)),
        (x.any(), v.any()),
        (x.ptp(axis=1), np.ptp(v, axis=1)),
        (x.cumsum(), v.cumsum()),
        (x.cumsum(axis=1), v.cumsum(axis=1)),
        (x.dot(w), v.dot(w)),
        (x.matmul(w), v @ w),
        (x.repeat(2), v.repeat(2)),
        (x.take([0, 2], axis=1), v.take([0, 2], axis=1)),
        (x.ravel(), v.ravel()),
        (x.copy(), v),
        (x.expand_dims(0), v[None]),
        (x.cast("int32"), v.astype(np.int32)),
    ]:
        np.testing.assert_array_equal(got.eval({x: v}), want)
    i = sx.placeholder((3,), "int64")
    np.testing.assert_array_equal(i.choose([[1, 2, 3], [4, 5, 6]]).eval({i: np.array([0, 1, 0])}), [1, 5, 3])
    assert x.all.__doc__ and "symx.all" in x.all.__doc__


def test_top_level_seed_bernoulli_printoptions_are_aliases():
    assert sx.Seed is sx.random.Seed
    assert sx.bernoulli is sx.random.bernoulli
    assert sx.set_printoptions is np.set_printoptions  # as jax.numpy's: evaluations are NumPy arrays


def test_from_dlpack():
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    t = sx.from_dlpack(a)
    assert isinstance(t, sx.Tensor) and t.dtype == np.float32
    np.testing.assert_array_equal((t * 2).eval(), a * 2)
    with pytest.raises(TypeError, match="no __dlpack__"):
        sx.from_dlpack([1, 2])
    with pytest.raises(ValueError, match="CPU"):
        sx.from_dlpack(a, device="cuda")

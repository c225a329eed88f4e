"""Control flow (issue 20): scan, map, fori_loop, while_loop, cond and switch against Python loops
over NumPy, in the reference evaluator (Tensor.eval) and compiled (sx.function); their gradients
against float64 central differences of the NumPy loops; dynamic lengths; the printers and clone
inside bodies; and the errors a user meets (each names what changed and the body's line)."""

import threading
import time

import numpy as np
import pytest

import symx as sx
from helpers import numeric_grad

pytestmark = pytest.mark.usefixtures("fresh_graph")

RNG = np.random.default_rng(20)
F64 = "float64"


def both(outputs, feeds=None):
    """The outputs' values from the reference evaluator and from a compiled function, checked equal
    (to rounding); returns the compiled values (a list)."""
    feeds = feeds or {}
    single = not isinstance(outputs, (list, tuple))
    outputs = [outputs] if single else list(outputs)
    reference = [t.eval(feeds) for t in outputs]
    compiled = sx.function(list(feeds), outputs, backend="compiled")(*feeds.values())
    compiled = compiled if isinstance(compiled, list) else [compiled]
    for r, c in zip(reference, compiled):
        np.testing.assert_allclose(c, r, rtol=1e-5, atol=1e-6)
    return compiled[0] if single else compiled


def grads_both(cost, wrt, feeds):
    """sx.grad(cost, wrt) from the reference evaluator and compiled, checked equal; the compiled ones."""
    gs = sx.grad(cost, wrt)
    return both(gs, feeds)


def ops_of(ts):
    return {t.op for t in sx.topological_order(ts if isinstance(ts, list) else [ts])}


# ---- values ------------------------------------------------------------------------------------------


def test_scan_cumulative_sum_forward_and_reverse():
    xv = RNG.normal(size=(5, 3))
    xs = sx.placeholder((5, 3), F64, name="xs")
    c, ys = sx.scan(lambda c, x: (c + x, c * 2), sx.zeros((3,), F64), sequences=[xs])
    got_c, got_ys = both([c, ys], {xs: xv})
    np.testing.assert_allclose(got_c, xv.sum(0), rtol=1e-12)
    entering = np.concatenate([np.zeros((1, 3)), np.cumsum(xv, 0)[:-1]])
    np.testing.assert_allclose(got_ys, 2 * entering, rtol=1e-12)
    # reverse: iterates from the last slice, outputs stay in the sequence's order
    c, ys = sx.scan(lambda c, x: (c * 0.5 + x, c), sx.zeros((3,), F64), sequences=[xs], reverse=True)
    h, want = np.zeros(3), np.zeros((5, 3))
    for t in reversed(range(5)):
        want[t] = h
        h = h * 0.5 + xv[t]
    got_c, got_ys = both([c, ys], {xs: xv})
    np.testing.assert_allclose(got_c, h, rtol=1e-12)
    np.testing.assert_allclose(got_ys, want, rtol=1e-12)


def test_scan_with_tuple_and_dict_carries_several_sequences_and_outputs_and_non_sequences():
    av, bv, wv = RNG.normal(size=(6, 2)), RNG.normal(size=(6,)), RNG.normal(size=(2, 2))
    a = sx.placeholder((6, 2), F64, name="a")
    b = sx.placeholder((6,), F64, name="b")
    w = sx.placeholder((2, 2), F64, name="w")

    def step(carry, x, y, weight):
        h, count = carry["h"], carry["n"]
        h2 = sx.tanh(h @ weight + x * y)
        return {"h": h2, "n": count + 1}, (h2.sum(), (h2 * 2, count))

    init = {"h": sx.zeros((2,), F64), "n": sx.constant(np.int32(0))}
    carry, (s, (twice, counts)) = sx.scan(step, init, sequences=[a, b], non_sequences=[w])
    assert isinstance(carry, dict) and set(carry) == {"h", "n"}
    got = both([carry["h"], carry["n"], s, twice, counts], {a: av, b: bv, w: wv})
    h, sums, twos = np.zeros(2), [], []
    for t in range(6):
        h = np.tanh(h @ wv + av[t] * bv[t])
        sums.append(h.sum())
        twos.append(2 * h)
    np.testing.assert_allclose(got[0], h, rtol=1e-12)
    assert got[1] == 6 and got[1].dtype == np.int32
    np.testing.assert_allclose(got[2], sums, rtol=1e-12)
    np.testing.assert_allclose(got[3], twos, rtol=1e-12)
    np.testing.assert_array_equal(got[4], np.arange(6))
    # a tuple carry and a list carry keep their kinds
    (p, q), _ = sx.scan(lambda c, x: ((c[0] + x, c[1] * x), None), (np.float64(0), np.float64(1)), sequences=[b])
    np.testing.assert_allclose(both([p, q], {b: bv}), [bv.sum(), bv.prod()], rtol=1e-6)
    lst, _ = sx.scan(lambda c, x: ([c[0] + x], None), [sx.constant(0.0, F64)], sequences=[b])
    assert isinstance(lst, list)


def test_scan_closes_over_outer_tensors_and_variables():
    xv, uv = RNG.normal(size=(4, 3)), RNG.normal(size=(3,))
    xs = sx.placeholder((4, 3), F64, name="xs")
    u = sx.placeholder((3,), F64, name="u")
    w = sx.variable(RNG.normal(size=(3, 3)), name="w")
    bias = sx.exp(u)  # work of invariants only: computed once, before the loop
    c, ys = sx.scan(lambda c, x: (sx.tanh(c @ w + x + bias), c.sum()), sx.zeros((3,), F64), sequences=[xs])
    got_c, got_ys = both([c, ys], {xs: xv, u: uv})
    h, want = np.zeros(3), []
    for t in range(4):
        want.append(h.sum())
        h = np.tanh(h @ w.value + xv[t] + np.exp(uv))
    np.testing.assert_allclose(got_c, h, rtol=1e-12)
    np.testing.assert_allclose(got_ys, want, rtol=1e-12)
    # the variable is read at each call: a new value changes the result
    w.value = np.zeros((3, 3))
    np.testing.assert_allclose(c.eval({xs: xv, u: uv}), np.tanh(xv[-1] + np.exp(uv)), rtol=1e-12)


def test_scan_without_sequences_length_zero_and_no_output():
    c, ys = sx.scan(lambda c: (c * 2, c + 1), sx.constant(np.array([1.0, 3.0])), length=4)
    got_c, got_ys = both([c, ys])
    np.testing.assert_allclose(got_c, [16, 48])
    np.testing.assert_allclose(got_ys, [[2, 4], [3, 7], [5, 13], [9, 25]])
    c, ys = sx.scan(lambda c: (c * 2, c), sx.ones((3,), F64), length=0)
    got_c, got_ys = both([c, ys])
    np.testing.assert_allclose(got_c, np.ones(3))
    assert got_ys.shape == (0, 3)
    xs = sx.placeholder((0, 2), F64, name="empty")
    c, ys = sx.scan(lambda c, x: (c + x, c), sx.ones((2,), F64), sequences=[xs])
    got_c, got_ys = both([c, ys], {xs: np.zeros((0, 2))})
    np.testing.assert_allclose(got_c, np.ones(2))
    assert got_ys.shape == (0, 2)
    c, ys = sx.scan(lambda c: (c + 1, None), sx.constant(0.0, F64), length=3)
    assert ys is None
    assert both(c) == 3


def test_map_with_non_sequences():
    xv, sv = RNG.normal(size=(5, 2, 3)), RNG.normal(size=(3,))
    xs = sx.placeholder((5, 2, 3), F64, name="xs")
    scale = sx.placeholder((3,), F64, name="scale")
    ys = sx.map(lambda x, s: sx.sum(x * s, axis=1), [xs], non_sequences=[scale])
    np.testing.assert_allclose(both(ys, {xs: xv, scale: sv}), (xv * sv).sum(2), rtol=1e-12)
    pairs = sx.map(lambda x: (x.max(), x.min()), [xs])
    got = both(list(pairs), {xs: xv})
    np.testing.assert_allclose(got[0], xv.reshape(5, -1).max(1))
    np.testing.assert_allclose(got[1], xv.reshape(5, -1).min(1))


def test_fori_loop_with_int_bounds_is_a_scan_and_with_tensor_bounds_a_while_loop():
    x = sx.placeholder((2,), F64, name="x")
    v = sx.fori_loop(2, 7, lambda i, v: v * 2 + sx.astype(i, F64), x)
    assert "scan" in ops_of(v) and "while_loop" not in ops_of(v)
    want = np.array([1.0, -1.0])
    for i in range(2, 7):
        want = want * 2 + i
    np.testing.assert_allclose(both(v, {x: np.array([1.0, -1.0])}), want)
    empty = sx.fori_loop(5, 3, lambda i, v: v * 2, x)  # no iteration
    np.testing.assert_allclose(both(empty, {x: np.array([1.0, -1.0])}), [1, -1])
    lo = sx.placeholder((), "int32", name="lo")
    hi = sx.placeholder((), "int32", name="hi")
    a, b = sx.fori_loop(
        lo, hi, lambda i, ab: (ab[1], ab[0] + ab[1]), (sx.constant(0, "int64"), sx.constant(1, "int64"))
    )
    assert "while_loop" in ops_of([a])
    f = sx.function([lo, hi], [a, b], backend="compiled")
    for lov, hiv in [(0, 10), (3, 3), (5, 2), (0, 50)]:
        fa, fb = 0, 1
        for _ in range(lov, hiv):
            fa, fb = fb, fa + fb
        assert [int(r) for r in f(np.int32(lov), np.int32(hiv))] == [fa, fb]
        assert int(a.eval({lo: np.int32(lov), hi: np.int32(hiv)})) == fa


def test_while_loop_jax_and_symjax_forms():
    x = sx.placeholder((), F64, name="x")
    v = sx.while_loop(lambda v: v < 100.0, lambda v: v * 2, x)
    f = sx.function([x], [v], backend="compiled")
    for start in (1.0, 3.0, 150.0):
        want = start
        while want < 100:
            want *= 2
        assert f(start)[0] == want
        assert v.eval({x: start}) == want
    # SymJAX: non_sequences_cond / non_sequences_body, and a tuple value
    limit = sx.placeholder((), F64, name="limit")
    n, total = sx.while_loop(
        lambda nt, lim: nt[1] < lim,
        lambda nt, step: (nt[0] + 1, nt[1] + step),
        (sx.constant(0, "int32"), sx.constant(0.0, F64)),
        non_sequences_cond=[limit],
        non_sequences_body=[x],
    )
    got_n, got_t = both([n, total], {limit: np.float64(10), x: np.float64(3)})
    assert got_n == 4 and got_t == 12


def test_cond_jax_and_symjax_forms():
    x = sx.placeholder((), F64, name="x")
    y = sx.placeholder((3,), F64, name="y")
    out = sx.cond(x > 0, lambda a, b: b * a, lambda a, b: b - a, x, y)
    yv = np.array([1.0, 2.0, 3.0])
    for xv in (2.0, -2.0, 0.0):
        want = yv * xv if xv > 0 else yv - xv
        np.testing.assert_allclose(both(out, {x: np.float64(xv), y: yv}), want)
    # SymJAX: cond(pred, true_fun, false_fun, true_inputs, false_inputs)
    sym = sx.cond(x > 0, lambda a: a * 10, lambda a, b: (a + b).sum(), true_inputs=[x], false_inputs=[x, y])
    assert both(sym, {x: np.float64(2), y: yv}) == 20
    assert both(sym, {x: np.float64(-2), y: yv}) == 0
    # a predicate that is not bool (nonzero is true), and structured results
    pair = sx.cond(sx.astype(x, "int32"), lambda a: (a, {"k": a * 2}), lambda a: (-a, {"k": a * 3}), x)
    got = both([pair[0], pair[1]["k"]], {x: np.float64(0.5)})  # int32(0.5) == 0: false
    np.testing.assert_allclose(got, [-0.5, 1.5])


def test_switch_clamps_out_of_range_indices():
    k = sx.placeholder((), "int32", name="k")
    x = sx.placeholder((2,), F64, name="x")
    z = sx.switch(k, [lambda v: v, lambda v: -v, lambda v: v * v], x)
    f = sx.function([k, x], [z], backend="compiled")
    xv = np.array([3.0, -2.0])
    for index, want in [(-5, xv), (0, xv), (1, -xv), (2, xv * xv), (3, xv * xv), (1000, xv * xv)]:
        np.testing.assert_allclose(f(np.int32(index), xv)[0], want)
        np.testing.assert_allclose(z.eval({k: np.int32(index), x: xv}), want)


def test_scan_in_scan_and_cond_in_scan():
    mv = RNG.normal(size=(3, 4))
    m = sx.placeholder((3, 4), F64, name="m")

    def row(c, r):  # the inner scan: a running product's sum of one row
        inner, _ = sx.scan(lambda acc, v: (acc * 0.5 + v, None), sx.constant(0.0, F64), sequences=[r])
        return c + inner, inner

    total, per_row = sx.scan(row, sx.constant(0.0, F64), sequences=[m])
    want_rows = []
    for r in mv:
        acc = 0.0
        for v in r:
            acc = acc * 0.5 + v
        want_rows.append(acc)
    got_total, got_rows = both([total, per_row], {m: mv})
    np.testing.assert_allclose(got_rows, want_rows, rtol=1e-12)
    np.testing.assert_allclose(got_total, sum(want_rows), rtol=1e-12)

    # cond in a scan: a clipped accumulator that resets when it passes 1
    xv = np.abs(RNG.normal(size=(12,)))
    xs = sx.placeholder((12,), F64, name="xs")
    c, ys = sx.scan(
        lambda c, x: (sx.cond(c + x > 1, lambda a: a * 0, lambda a: a, c + x), c), sx.constant(0.0, F64), [xs]
    )
    acc, want = 0.0, []
    for v in xv:
        want.append(acc)
        acc = 0.0 if acc + v > 1 else acc + v
    got_c, got_ys = both([c, ys], {xs: xv})
    np.testing.assert_allclose(got_ys, want, rtol=1e-12)
    np.testing.assert_allclose(got_c, acc, rtol=1e-12)


def test_a_variable_updated_from_a_scans_final_carry():
    xv = RNG.normal(size=(5, 2))
    xs = sx.placeholder((5, 2), F64, name="xs")
    state = sx.variable(np.zeros(2), name="state")
    c, ys = sx.scan(lambda h, x: (0.9 * h + x, h.sum()), state, sequences=[xs])
    step = sx.function([xs], [ys], updates={state: c}, backend="compiled")
    h = np.zeros(2)
    for _call in range(3):
        want = []
        for t in range(5):
            want.append(h.sum())
            h = 0.9 * h + xv[t]
        np.testing.assert_allclose(step(xv)[0], want, rtol=1e-12)
        np.testing.assert_allclose(state.value, h, rtol=1e-12)


# ---- gradients against float64 central differences -------------------------------------------------


def rnn_numpy(xv, h0, wv, uv, reverse=False):
    h, loss = h0.copy(), 0.0
    steps = range(len(xv))
    for t in reversed(steps) if reverse else steps:
        loss += (h**2).sum()
        h = np.tanh(xv[t] @ uv + h @ wv)
    return loss + h.sum()


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("checkpoint", [False, True])
def test_scan_gradient_through_time(reverse, checkpoint):
    xv, h0v = RNG.normal(size=(6, 2, 3)), RNG.normal(size=(2, 4))
    wv, uv = RNG.normal(size=(4, 4)) * 0.5, RNG.normal(size=(3, 4)) * 0.5
    xs = sx.placeholder((6, 2, 3), F64, name="xs")
    h0 = sx.placeholder((2, 4), F64, name="h0")
    w = sx.placeholder((4, 4), F64, name="w")  # through non_sequences
    u = sx.variable(uv, name="u")  # through a closure
    hT, hs = sx.scan(
        lambda h, x, wt: (sx.tanh(x @ u + h @ wt), h),
        h0,
        sequences=[xs],
        non_sequences=[w],
        reverse=reverse,
        checkpoint=checkpoint,
    )
    loss = sx.sum(hs**2) + sx.sum(hT)
    feeds = {xs: xv, h0: h0v, w: wv}
    gx, gh, gw, gu = grads_both(loss, [xs, h0, w, u], feeds)
    assert np.isclose(both(loss, feeds), rnn_numpy(xv, h0v, wv, uv, reverse), rtol=1e-12)
    tol = {"rtol": 1e-6, "atol": 1e-8}
    np.testing.assert_allclose(gx, numeric_grad(lambda v: rnn_numpy(v, h0v, wv, uv, reverse), xv), **tol)
    np.testing.assert_allclose(gh, numeric_grad(lambda v: rnn_numpy(xv, v, wv, uv, reverse), h0v), **tol)
    np.testing.assert_allclose(gw, numeric_grad(lambda v: rnn_numpy(xv, h0v, v, uv, reverse), wv), **tol)
    np.testing.assert_allclose(gu, numeric_grad(lambda v: rnn_numpy(xv, h0v, wv, v, reverse), uv), **tol)


def test_scan_gradient_with_several_carries_and_outputs():
    xv, av = RNG.normal(size=(5, 3)), RNG.normal(size=(3,))
    xs = sx.placeholder((5, 3), F64, name="xs")
    a0 = sx.placeholder((3,), F64, name="a0")

    def step(c, x):
        a, b = c
        return (sx.sin(a) * x + b, b * 0.5 + a * x), (a * b, sx.exp(-(x**2)))

    (a, b), (ab, e) = sx.scan(step, (a0, sx.ones((3,), F64)), sequences=[xs])
    loss = sx.sum(a * b) + sx.sum(ab**2) + sx.sum(e * 3)

    def ref(xv, av):
        a, b, loss = av.copy(), np.ones(3), 0.0
        for x in xv:
            loss += ((a * b) ** 2).sum() + (np.exp(-(x**2)) * 3).sum()
            a, b = np.sin(a) * x + b, b * 0.5 + a * x
        return loss + (a * b).sum()

    feeds = {xs: xv, a0: av}
    assert np.isclose(both(loss, feeds), ref(xv, av), rtol=1e-12)
    gx, ga = grads_both(loss, [xs, a0], feeds)
    np.testing.assert_allclose(gx, numeric_grad(lambda v: ref(v, av), xv), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ga, numeric_grad(lambda v: ref(xv, v), av), rtol=1e-6, atol=1e-8)


def test_nested_scan_gradient():
    mv, wv = RNG.normal(size=(3, 4)), RNG.normal(size=())
    m = sx.placeholder((3, 4), F64, name="m")
    w = sx.placeholder((), F64, name="w")

    def row(c, r):
        inner, _ = sx.scan(lambda acc, v: (sx.tanh(acc * w + v), None), c, sequences=[r])
        return inner, inner**2

    c, sq = sx.scan(row, sx.constant(0.1, F64), sequences=[m])
    loss = c + sx.sum(sq)

    def ref(mv, wv):
        acc, total = 0.1, 0.0
        for r in mv:
            for v in r:
                acc = np.tanh(acc * wv + v)
            total += acc**2
        return acc + total

    feeds = {m: mv, w: wv}
    assert np.isclose(both(loss, feeds), ref(mv, wv), rtol=1e-12)
    gm, gw = grads_both(loss, [m, w], feeds)
    np.testing.assert_allclose(gm, numeric_grad(lambda v: ref(v, wv), mv), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw, numeric_grad(lambda v: ref(mv, v), wv), rtol=1e-6, atol=1e-8)


def test_fori_loop_and_map_gradients():
    x = sx.placeholder((3,), F64, name="x")
    xv = np.array([0.3, -0.7, 1.1])
    v = sx.fori_loop(0, 4, lambda i, v: sx.sin(v) * sx.astype(i + 1, F64), x)

    def ref(xv):
        v = xv.copy()
        for i in range(4):
            v = np.sin(v) * (i + 1)
        return (v**2).sum()

    (g,) = grads_both(sx.sum(v**2), [x], {x: xv})
    np.testing.assert_allclose(g, numeric_grad(ref, xv), rtol=1e-6, atol=1e-8)

    mv, sv = RNG.normal(size=(4, 3)), RNG.normal(size=(3,))
    m = sx.placeholder((4, 3), F64, name="m")
    s = sx.placeholder((3,), F64, name="s")
    ys = sx.map(lambda r, t: sx.sum(sx.exp(r * t)), [m], non_sequences=[s])
    gm, gs = grads_both(sx.sum(ys**2), [m, s], {m: mv, s: sv})
    np.testing.assert_allclose(gm, numeric_grad(lambda v: (np.exp(v * sv).sum(1) ** 2).sum(), mv), rtol=1e-6)
    np.testing.assert_allclose(gs, numeric_grad(lambda v: (np.exp(mv * v).sum(1) ** 2).sum(), sv), rtol=1e-6)


def test_cond_and_switch_gradients_only_of_the_branch_taken():
    x = sx.placeholder((), F64, name="x")
    y = sx.cond(x > 0, lambda a: sx.log(a), lambda a: a * 3, x)
    (g,) = sx.grad(y, [x])
    f = sx.function([x], [y, g], backend="compiled")
    for xv, want_y, want_g in [(2.0, np.log(2.0), 0.5), (-1.0, -3.0, 3.0), (0.0, 0.0, 3.0)]:
        for got in (f(np.float64(xv)), [y.eval({x: xv}), g.eval({x: xv})]):
            assert np.isfinite(got[1]), "the branch not taken must not leak NaN into the gradient"
            np.testing.assert_allclose(got, [want_y, want_g], rtol=1e-12)

    k = sx.placeholder((), "int32", name="k")
    v = sx.placeholder((2,), F64, name="v")
    z = sx.switch(k, [lambda a: sx.sum(a**2), lambda a: sx.sum(sx.sqrt(a)), lambda a: sx.prod(a)], v)
    (gz,) = sx.grad(z, [v])
    vv = np.array([-1.5, 2.0])  # sqrt's branch would be NaN here
    fns = [lambda a: (a**2).sum(), lambda a: np.sqrt(a).sum(), lambda a: a.prod()]
    fz = sx.function([k, v], [gz], backend="compiled")
    for index, branch in [(-3, 0), (0, 0), (2, 2), (9, 2)]:
        want = numeric_grad(fns[branch], vv)
        np.testing.assert_allclose(fz(np.int32(index), vv)[0], want, rtol=1e-6)
        np.testing.assert_allclose(gz.eval({k: np.int32(index), v: vv}), want, rtol=1e-6)
    vpos = np.array([1.5, 2.0])
    np.testing.assert_allclose(fz(np.int32(1), vpos)[0], numeric_grad(fns[1], vpos), rtol=1e-6)


def test_cond_gradient_reaches_closed_over_and_symjax_inputs():
    x = sx.placeholder((), F64, name="x")
    w = sx.placeholder((2,), F64, name="w")
    out = sx.cond(x > 0, lambda a: sx.sum(w * a), lambda a, b: sx.sum(b) * a * a, true_inputs=[x], false_inputs=[x, w])
    gx, gw = sx.grad(out, [x, w])
    wv = np.array([0.5, -2.0])
    for xv, ref_fn in [(1.5, lambda xx, ww: (ww * xx).sum()), (-1.5, lambda xx, ww: ww.sum() * xx * xx)]:
        got = both([gx, gw], {x: np.float64(xv), w: wv})
        np.testing.assert_allclose(got[0], numeric_grad(lambda v, f=ref_fn: f(v, wv), xv), rtol=1e-6)
        np.testing.assert_allclose(got[1], numeric_grad(lambda v, f=ref_fn, at=xv: f(at, v), wv), rtol=1e-6)


def test_second_derivatives_through_a_scan():
    xv = np.array([0.4, -0.3, 0.8])
    x = sx.placeholder((3,), F64, name="x")
    c, ys = sx.scan(lambda c: (sx.sin(c * x), sx.sum(c**2)), sx.ones((3,), F64), length=3, sequences=None)
    cost = sx.sum(c) + sx.sum(ys)

    def ref(xv):
        c, total = np.ones(3), 0.0
        for _ in range(3):
            total += (c**2).sum()
            c = np.sin(c * xv)
        return c.sum() + total

    (g,) = sx.grad(cost, [x])
    np.testing.assert_allclose(both(g, {x: xv}), numeric_grad(ref, xv), rtol=1e-6, atol=1e-8)
    h = sx.hessian(cost, x)
    want = np.stack([numeric_grad(lambda v, i=i: numeric_grad(ref, v, 1e-5)[i], xv, 1e-4) for i in range(3)])
    np.testing.assert_allclose(both(h, {x: xv}), want, rtol=1e-4, atol=1e-6)
    # grad of grad of a scalar scan
    s = sx.placeholder((), F64, name="s")
    p, _ = sx.scan(lambda c: (c * s + 1, None), sx.constant(1.0, F64), length=4)  # s^4 + s^3 + s^2 + s + 1
    (d1,) = sx.grad(p, [s])
    (d2,) = sx.grad(d1, [s])
    sv = 0.7
    np.testing.assert_allclose(
        both([d1, d2], {s: np.float64(sv)}), [4 * sv**3 + 3 * sv**2 + 2 * sv + 1, 12 * sv**2 + 6 * sv + 2]
    )


def test_vjp_through_a_scan_with_a_given_cotangent():
    xv, rv = RNG.normal(size=(4, 2)), RNG.normal(size=(4, 2))
    xs = sx.placeholder((4, 2), F64, name="xs")
    _, ys = sx.scan(lambda c, x: (c * x + 1, c * x), sx.ones((2,), F64), sequences=[xs])
    (g,) = sx.vjp([ys], [xs], [sx.constant(rv)])

    def ref(xv):
        c, out = np.ones(2), []
        for x in xv:
            out.append(c * x)
            c = c * x + 1
        return (np.array(out) * rv).sum()

    np.testing.assert_allclose(both(g, {xs: xv}), numeric_grad(ref, xv), rtol=1e-6, atol=1e-8)


def test_while_loop_has_no_gradient_and_says_what_to_use():
    x = sx.placeholder((), F64, name="x")
    v = sx.while_loop(lambda v: v < 100.0, lambda v: v * 2, x)
    with pytest.raises(ValueError, match=r"while_loop.*no reverse-mode gradient.*fori_loop.*scan"):
        sx.grad(v, [x])
    lo = sx.placeholder((), "int32", name="lo")
    w = sx.fori_loop(lo, 3, lambda i, v: v * 2, x)
    with pytest.raises(ValueError, match=r"fori_loop with integer bounds"):
        sx.grad(w, [x])
    # stop_gradient around the loop's input is the way out
    (g,) = sx.grad(sx.stop_gradient(v) + x, [x])
    assert g.eval({x: np.float64(3)}) == 1


# ---- dynamic sizes ----------------------------------------------------------------------------------


def test_a_sequence_of_unknown_length_and_batch_compiles_once_per_shape():
    wv = RNG.normal(size=(3, 3)) * 0.5
    xs = sx.placeholder((None, None, 3), F64, name="xs")
    w = sx.variable(wv, name="w")
    h0 = sx.zeros((3,), F64)
    hT, hs = sx.scan(lambda h, x: (sx.tanh(x @ w + h), h), h0 * sx.ones_like(xs[0]), sequences=[xs])
    assert hs.shape == (None, None, 3)
    loss = sx.sum(hs**2) + sx.sum(hT)
    (gw,) = sx.grad(loss, [w])
    f = sx.function([xs], [hT, loss, gw], backend="compiled")

    def ref(xv, wv):
        h, total = np.zeros(xv.shape[1:]), 0.0
        for x in xv:
            total += (h**2).sum()
            h = np.tanh(x @ wv + h)
        return h, total + h.sum()

    for shape in [(4, 2, 3), (7, 5, 3), (4, 2, 3)]:
        xv = RNG.normal(size=shape)
        got_h, got_loss, got_gw = f(xv)
        want_h, want_loss = ref(xv, wv)
        np.testing.assert_allclose(got_h, want_h, rtol=1e-12)
        np.testing.assert_allclose(got_loss, want_loss, rtol=1e-12)
        np.testing.assert_allclose(got_gw, numeric_grad(lambda v, xv=xv: ref(xv, v)[1], wv), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(hT.eval({xs: xv}), want_h, rtol=1e-12)
    assert f.compile_count() == 2  # one specialization per shape, the third call reuses the first


# ---- errors -----------------------------------------------------------------------------------------


def test_carry_whose_shape_changes_names_the_carry_and_the_body_line():
    xs = sx.placeholder((4, 3), F64, name="xs")

    def grows(c, x):
        return sx.concatenate([c, x]), None

    line = grows.__code__.co_firstlineno + 1
    with pytest.raises(sx.ShapeError, match=rf"scan: carry 0 .*\(3,\) float64.*\(6,\).*test_control_flow.py:{line}"):
        sx.scan(grows, sx.zeros((3,), F64), sequences=[xs])
    h = sx.placeholder((3,), F64, name="hidden")
    with pytest.raises(sx.ShapeError, match=r"carry 1 \('hidden'\).*keeps its shape"):
        sx.scan(lambda c, x: ((c[0], c[1].sum()), None), (1.0, h), sequences=[xs])


def test_carry_dtype_change_wrong_carry_count_and_mismatched_sequences():
    xs = sx.placeholder((4, 3), F64, name="xs")
    with pytest.raises(sx.DTypeError, match=r"carry 0 .*float64.*float32.*astype"):
        sx.scan(lambda c, x: (c.astype("float32"), None), sx.zeros((3,), F64), sequences=[xs])
    with pytest.raises(sx.DTypeError, match=r"int64.*float32"):
        sx.scan(lambda c: (c + 0.5, None), 0, length=3)  # an int carry made float
    with pytest.raises(ValueError, match=r"returns 2 tensors for a carry of 1"):
        sx.scan(lambda c, x: ((c, c), None), sx.zeros((3,), F64), sequences=[xs])
    with pytest.raises(ValueError, match=r"must return a pair"):
        sx.scan(lambda c, x: c, sx.zeros((3,), F64), sequences=[xs])
    with pytest.raises(ValueError, match=r"returns 2 tensors for a carry of 1"):
        sx.while_loop(lambda v: v < 1.0, lambda v: (v, v), sx.constant(0.0))
    with pytest.raises(sx.ShapeError, match=r"sequence 1 has 5 steps but sequence 0 has 4"):
        sx.scan(lambda c, x, y: (c, None), sx.zeros((3,), F64), sequences=[xs, sx.zeros((5,))])
    with pytest.raises(sx.ShapeError, match=r"has 4 steps but length is 6"):
        sx.scan(lambda c, x: (c, None), sx.zeros((3,), F64), sequences=[xs], length=6)
    with pytest.raises(ValueError, match=r"no sequences and no length.*length="):
        sx.scan(lambda c: (c, None), sx.zeros((3,), F64))
    with pytest.raises(ValueError, match=r"map: there are no sequences"):
        sx.map(lambda x: x, [])
    with pytest.raises(sx.ShapeError, match=r"sequence 0 is a scalar"):
        sx.scan(lambda c, x: (c, None), 0.0, sequences=[sx.constant(1.0)])


def test_branches_returning_different_types_or_counts():
    x = sx.placeholder((4, 3), F64, name="x")
    p = x[0, 0] > 0
    with pytest.raises(sx.DTypeError, match=r"cond: result 0 of the true branch is \(4, 3\) float32.*false branch"):
        sx.cond(p, lambda a: a.astype("float32"), lambda a: a, x)
    with pytest.raises(sx.ShapeError, match=r"result 0 of branch 1 is \(3,\) float64.*branch 0 returns \(4, 3\)"):
        sx.switch(sx.constant(0), [lambda a: a, lambda a: a[0]], x)
    with pytest.raises(ValueError, match=r"returns 2 tensors but .* returns 1"):
        sx.cond(p, lambda a: (a, a), lambda a: a, x)
    with pytest.raises(sx.ShapeError, match=r"predicate is not a scalar"):
        sx.cond(x > 0, lambda a: a, lambda a: a, x)
    with pytest.raises(sx.DTypeError, match=r"index is not an integer scalar"):
        sx.switch(sx.constant(1.0), [lambda a: a], x)
    with pytest.raises((sx.DTypeError, sx.ShapeError), match=r"not a bool scalar"):
        sx.while_loop(lambda v: v, lambda v: v, x)


def test_random_draws_inside_a_body_are_refused():
    xs = sx.placeholder((4, 3), F64, name="xs")
    with pytest.raises(ValueError, match=r"scan: the body draws random numbers.*sequence"):
        sx.scan(lambda c, x: (c + sx.random.normal((3,), dtype=F64), None), sx.zeros((3,), F64), sequences=[xs])
    with pytest.raises(ValueError, match=r"draws random numbers"):
        sx.cond(xs[0, 0] > 0, lambda a: a + sx.random.uniform((4, 3), dtype=F64), lambda a: a, xs)
    # drawn outside, with the loop's length as leading axis, and passed as a sequence: fine
    noise = sx.random.normal((4, 3), dtype=F64)
    c, _ = sx.scan(lambda c, x, n: (c + x + n, None), sx.zeros((3,), F64), sequences=[xs, noise])
    assert c.shape == (3,)


def test_a_body_reading_an_outer_random_draw_reads_one_value():
    # A draw made outside the body is an outer value like any other: captured, read once per call.
    n = sx.random.normal((3,), dtype=F64)
    c, ys = sx.scan(lambda c: (c + n, n), sx.zeros((3,), F64), length=4)
    got_c, got_ys = sx.function([], [c, ys], backend="compiled")()
    np.testing.assert_allclose(got_c, 4 * got_ys[0], rtol=1e-12)
    np.testing.assert_allclose(got_ys, np.tile(got_ys[0], (4, 1)))


# ---- printers and clone -------------------------------------------------------------------------------


def test_debugprint_and_to_dot_show_the_regions():
    xs = sx.placeholder((5, 3), F64, name="xs")
    c, ys = sx.scan(lambda c, x: (sx.tanh(c) + x, sx.exp(c)), sx.zeros((3,), F64), sequences=[xs])
    k = sx.cond(sx.sum(c) > 0, lambda a: sx.sin(a), lambda a: sx.cos(a), c)
    text = sx.debugprint([ys, k])
    for want in (
        "scan#",
        "body",
        "tanh#",
        "exp#",
        "switch",
        "branch 0",
        "branch 1",
        "sin#",
        "cos#",
        "params",
        "results",
    ):
        assert want in text, f"{want!r} not in debugprint:\n{text}"
    dot = sx.to_dot([ys, k])
    assert dot.count("subgraph cluster_") >= 3, dot
    for want in ("tanh#", "sin#", "cos#", 'label="body"', 'label="branch 1 (true)"'):
        assert want in dot, f"{want!r} not in to_dot:\n{dot}"
    w = sx.while_loop(lambda v: v < 10.0, lambda v: v * 2 + 1, sx.constant(1.0, F64))
    text = sx.debugprint(w)
    assert "cond" in text and "body" in text and "less#" in text


def test_describe_lists_the_compiled_programs_of_a_loops_regions():
    xs = sx.placeholder((5, 3), F64, name="xs")
    c, ys = sx.scan(lambda c, x: (sx.tanh(c) + x, sx.exp(c)), sx.zeros((3,), F64), sequences=[xs])
    f = sx.function([xs], [c, ys], backend="compiled")
    f(np.zeros((5, 3)))
    text = f.describe()
    compiled = text[text.index("body of scan#") :]  # the region's own program, after the outer one's
    assert compiled.startswith("body of scan#") and "compiled:" in compiled, text
    assert "kernel k0 holds tanh#" in compiled and "exp#" in compiled, text
    k = sx.switch(sx.constant(1), [lambda a: sx.sin(a), lambda a: sx.cos(a)], c)
    g = sx.function([xs], [k], backend="compiled")
    text = g.describe()
    assert "branch 0 of switch#" in text and "branch 1 of switch#" in text and "cos#" in text, text


def test_clone_replaces_a_captured_tensor_and_a_node_inside_a_body():
    xv, av, bv = RNG.normal(size=(4, 2)), RNG.normal(size=(2,)), RNG.normal(size=(2,))
    xs = sx.placeholder((4, 2), F64, name="xs")
    a = sx.placeholder((2,), F64, name="a")
    b = sx.placeholder((2,), F64, name="b")
    inner = {}

    def step(c, x):
        inner["c"], inner["t"] = c, sx.tanh(c * a)
        return inner["t"] + x, c

    c, ys = sx.scan(step, sx.zeros((2,), F64), sequences=[xs])

    def ref(av, body=np.tanh):
        h, out = np.zeros(2), []
        for x in xv:
            out.append(h)
            h = body(h * av) + x
        return h, np.array(out)

    # a captured outer tensor: an input of the loop node
    (c2, ys2) = sx.clone([c, ys], {a: b})
    got = both([c2, ys2], {xs: xv, b: bv})
    np.testing.assert_allclose(got[0], ref(bv)[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], ref(bv)[1], rtol=1e-12)
    # a node inside the body: the region is rebuilt (the original is unchanged)
    (c3, ys3) = sx.clone([c, ys], {inner["t"]: sx.sin(inner["c"] * a) + b})
    got = both([c3, ys3], {xs: xv, a: av, b: bv})
    want_c, want_ys = ref(av, body=lambda v: np.sin(v) + bv)
    np.testing.assert_allclose(got[0], want_c, rtol=1e-12)
    np.testing.assert_allclose(got[1], want_ys, rtol=1e-12)
    np.testing.assert_allclose(c.eval({xs: xv, a: av}), ref(av)[0], rtol=1e-12)


def test_clone_reaches_a_node_inside_a_nested_body_and_leaves_gradients_consistent():
    mv, sv = RNG.normal(size=(3, 4)), RNG.normal(size=())
    m = sx.placeholder((3, 4), F64, name="m")
    s = sx.placeholder((), F64, name="s")
    inner = {}

    def row(c, r):
        def cell(acc, v):
            inner["t"] = sx.tanh(acc + v)
            return inner["t"], None

        out, _ = sx.scan(cell, c, sequences=[r])
        return out, out

    c, _ = sx.scan(row, sx.constant(0.0, F64), sequences=[m])
    (c2,) = sx.clone([c], {inner["t"]: s + 0})  # each inner step's new value becomes s

    np.testing.assert_allclose(both(c2, {m: mv, s: sv}), sv, rtol=1e-12)
    # the original is untouched, and a gradient of the clone differentiates the new body
    acc = 0.0
    for r in mv:
        for v in r:
            acc = np.tanh(acc + v)
    np.testing.assert_allclose(both(c, {m: mv}), acc, rtol=1e-12)
    (gs,) = sx.grad(c2 * 3, [s])
    assert both(gs, {m: mv, s: sv}) == pytest.approx(3.0)


def test_request_interrupt_stops_a_loop_that_runs_forever_and_changes_no_variable():
    counter = sx.variable(np.float64(5), name="counter")
    v = sx.while_loop(lambda v: v >= 0.0, lambda v: sx.minimum(v + 1, 1e9), sx.constant(0.0, F64))
    f = sx.function([], [v], updates={counter: counter + v}, backend="compiled")
    timer = threading.Timer(0.3, sx.request_interrupt)
    timer.start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt, match="changed no variable"):
        f()
    timer.join()
    assert time.monotonic() - started < 1.3  # 0.3 s, then at most about a second
    assert counter.value == 5


def test_grad_with_respect_to_a_while_loops_result_does_not_enter_the_loop():
    # Only nodes on a path to the wrt tensors are differentiated: the loop below v is never asked
    # for its (missing) gradient.
    a = sx.placeholder((), "float64", name="a")
    v = sx.while_loop(lambda v: v < 10.0, lambda v: v * 2, a)
    (g,) = sx.grad(v * 3.0, [v])
    assert float(g.eval({a: np.float64(1.0)})) == 3.0
    with pytest.raises(ValueError, match="fori_loop"):
        sx.grad(v * 3.0, [a])

"""Conformance rows of symx/special.hpp (added to test_conformance.py's table: see its _AREAS)."""

import numpy as np
import scipy.special as ss

import symx as sx


def same_float(args, ref):
    """scipy keeps float32 (and symx computes float math on integers in float32)."""
    kinds = [np.dtype(a.dtype) for a in args if np.dtype(a.dtype).kind == "f"]
    return max(kinds, key=lambda d: d.itemsize) if kinds else np.dtype("float32")


def uniform(lo, hi, shapes=((3, 4),)):
    """An input generator: one operand per shape, uniform in [lo, hi)."""

    def gen(rng, dt):
        return [[np.asarray(rng.uniform(lo, hi, s), dt) for s in shapes]]

    return gen


def pairs(*ranges, shapes=((3, 4), (4,))):
    def gen(rng, dt):
        return [[np.asarray(rng.uniform(lo, hi, s), dt) for (lo, hi), s in zip(ranges, shapes)]]

    return gen


def with_zeros(rng, dt):
    x = rng.uniform(0.1, 2.0, (3, 4))
    x[0, :2] = 0.0
    return [[np.asarray(x, dt), np.asarray(rng.uniform(0.2, 2.0, (4,)), dt)]]


def add_rows(c):
    I = c.I  # noqa: E741
    row = c.row
    sp = sx.special
    sh = [((3, 4),), ((5,),), ((),)]
    for name, fn, ref, kinds, api in [
        ("gammaln", sx.gammaln, ss.gammaln, "pos", ("gammaln", "lgamma", "special.gammaln")),
        ("loggamma", sx.loggamma, ss.loggamma, "pos", None),
        ("gamma", sx.gamma, ss.gamma, "pos", None),
        ("digamma", sx.digamma, ss.digamma, "pos", ("digamma", "special.psi")),
        ("erfc", sx.erfc, ss.erfc, "normal", None),
        ("erfinv", sx.erfinv, ss.erfinv, "unit", None),
        ("erfcx", sx.erfcx, ss.erfcx, "normal", None),
        ("ndtr", sx.ndtr, ss.ndtr, "normal", None),
        ("log_ndtr", sx.log_ndtr, ss.log_ndtr, "normal", None),
        ("i0", sx.i0, ss.i0, "normal", None),
        ("i0e", sx.i0e, ss.i0e, "normal", None),
        ("i1", sx.i1, ss.i1, "normal", None),
        ("i1e", sx.i1e, ss.i1e, "away", None),
        ("expi", sx.expi, ss.expi, "away", None),
        ("exp1", sx.exp1, ss.exp1, "pos", None),
        ("sinc", sx.sinc, np.sinc, "normal", None),
        ("factorial", sx.factorial, lambda n: ss.factorial(n, exact=False), "pos", None),
    ]:
        row(name, fn, ref, sh, kinds=kinds, dtype=same_float, api=api, ints=("int32",) if name == "sinc" else ())
    row("gammasgn", sx.gammasgn, ss.gammasgn, sh, kinds="normal", dtype=same_float, grad=False)
    row("entr", sx.entr, ss.entr, gen=uniform(0.1, 2.0), dtype=same_float)
    row("erfcinv", sp.erfcinv, ss.erfcinv, gen=uniform(0.1, 1.9), dtype=same_float, api=("special.erfcinv",))
    row("ndtri", sx.ndtri, ss.ndtri, gen=uniform(0.05, 0.95), dtype=same_float)
    row("logit", sx.logit, ss.logit, gen=uniform(0.05, 0.95), dtype=same_float)
    row("expit", sp.expit, ss.expit, dtype=same_float, api=("special.expit",))
    row(
        "polygamma",
        lambda x: sx.polygamma(1, x),
        lambda x: ss.polygamma(1, x).astype(x.dtype),
        gen=uniform(0.5, 3.0),
        dtype=same_float,
    )
    row(
        "polygamma[n]",
        sx.polygamma,
        lambda n, x: ss.polygamma(n.astype(int), x).astype(x.dtype),
        gen=lambda rng, dt: [[np.asarray([[0.0], [1.0], [2.0], [3.0]], dt), np.asarray(rng.uniform(0.5, 3, (5,)), dt)]],
        dtype=same_float,
        grad=False,
        api=(),
    )
    row(
        "multigammaln",
        lambda a: sx.multigammaln(a, 3),
        lambda a: np.vectorize(lambda v: ss.multigammaln(v, 3))(a).astype(a.dtype),
        gen=uniform(1.5, 4.0),
        dtype=same_float,
    )
    for name, fn, ref in [
        ("beta", sx.beta, ss.beta),
        ("betaln", sx.betaln, ss.betaln),
        ("rel_entr", sx.rel_entr, ss.rel_entr),
        ("kl_div", sx.kl_div, ss.kl_div),
        ("poch", sx.poch, ss.poch),
    ]:
        row(name, fn, ref, gen=pairs((0.3, 3.0), (0.3, 3.0)), dtype=same_float)
    row("xlogy", sx.xlogy, ss.xlogy, gen=with_zeros, dtype=same_float)
    row("xlog1py", sx.xlog1py, ss.xlog1py, gen=with_zeros, dtype=same_float)
    row("boxcox", sx.boxcox, ss.boxcox, gen=pairs((0.3, 3.0), (-1.0, 1.0)), dtype=same_float)
    row(
        "boxcox1p",
        sp.boxcox1p,
        ss.boxcox1p,
        gen=pairs((-0.5, 3.0), (-1.0, 1.0)),
        dtype=same_float,
        api=("boxcox1p", "special.boxcox1p"),
    )
    row("comb", sx.comb, lambda n, k: ss.comb(n, k), gen=pairs((4.0, 9.0), (0.2, 3.5)), dtype=same_float)
    for name, fn, ref in [("gammainc", sx.gammainc, ss.gammainc), ("gammaincc", sx.gammaincc, ss.gammaincc)]:
        row(name, fn, ref, gen=pairs((0.3, 30.0), (0.1, 40.0)), dtype=same_float, grad=False)
        row(
            f"{name}[x]",
            lambda x, fn=fn: fn(2.5, x),
            lambda x, ref=ref: ref(2.5, x).astype(x.dtype),
            gen=uniform(0.2, 6.0),
            dtype=same_float,
            api=(),
        )
    row(
        "betainc",
        sx.betainc,
        ss.betainc,
        gen=lambda rng, dt: [
            [
                np.asarray(rng.uniform(0.5, 5, (3, 1)), dt),
                np.asarray(rng.uniform(0.5, 5, (4,)), dt),
                np.asarray(rng.uniform(0.05, 0.95, (3, 4)), dt),
            ]
        ],
        dtype=same_float,
        grad=False,
    )
    row(
        "betainc[x]",
        lambda x: sx.betainc(2.5, 1.5, x),
        lambda x: ss.betainc(2.5, 1.5, x).astype(x.dtype),
        gen=uniform(0.05, 0.95),
        dtype=same_float,
        api=(),
    )
    row("owens_t", sx.owens_t, ss.owens_t, gen=pairs((-3.0, 3.0), (-4.0, 4.0)), dtype=same_float)
    row(
        "hyp1f1",
        sx.hyp1f1,
        ss.hyp1f1,
        gen=lambda rng, dt: [
            [
                np.asarray(rng.uniform(-2, 3, (3, 1)), dt),
                np.asarray(rng.uniform(0.5, 4, (4,)), dt),
                np.asarray(rng.uniform(-5, 5, (3, 4)), dt),
            ]
        ],
        dtype=same_float,
        grad=False,
    )
    row(
        "hyp1f1[x]",
        lambda x: sx.hyp1f1(1.5, 2.5, x),
        lambda x: ss.hyp1f1(1.5, 2.5, x).astype(x.dtype),
        gen=uniform(-3.0, 3.0),
        dtype=same_float,
        api=(),
    )
    row(
        "hyp2f1",
        sx.hyp2f1,
        ss.hyp2f1,
        gen=lambda rng, dt: [
            [
                np.asarray(rng.uniform(-2, 3, (2, 1, 1)), dt),
                np.asarray(rng.uniform(-2, 3, (3, 1)), dt),
                np.asarray(rng.uniform(0.5, 5, (4,)), dt),
                np.asarray(rng.uniform(-3, 0.9, (2, 3, 4)), dt),
            ]
        ],
        dtype=same_float,
        grad=False,
    )
    row(
        "hyp2f1[x]",
        lambda x: sx.hyp2f1(0.5, 1.5, 2.5, x),
        lambda x: ss.hyp2f1(0.5, 1.5, 2.5, x).astype(x.dtype),
        gen=uniform(-2.0, 0.9),
        dtype=same_float,
        api=(),
    )
    row("zeta", sx.zeta, ss.zeta, gen=pairs((1.5, 6.0), (0.3, 4.0)), dtype=same_float, grad=False)
    row(
        "zeta[q]",
        lambda q: sx.zeta(3.0, q),
        lambda q: ss.zeta(3.0, q).astype(q.dtype),
        gen=uniform(0.3, 4.0),
        dtype=same_float,
        api=(),
    )
    row(
        "zeta[riemann]",
        lambda x: sx.zeta(x),
        lambda x: ss.zeta(x),
        gen=uniform(-6.0, 6.0),
        dtype=same_float,
        grad=False,
        api=(),
    )
    row("spence", sx.spence, ss.spence, gen=uniform(0.1, 3.0), dtype=same_float)
    row("dawsn", sx.dawsn, ss.dawsn, gen=uniform(-4.0, 4.0), dtype=same_float)
    for name, fn, ref in [
        ("fresnel[s]", lambda z: sx.fresnel(z)[0], lambda z: ss.fresnel(z)[0]),
        ("fresnel[c]", lambda z: sx.fresnel(z)[1], lambda z: ss.fresnel(z)[1]),
        ("sici[si]", lambda x: sx.sici(x)[0], lambda x: ss.sici(x)[0]),
        ("sici[ci]", lambda x: sx.sici(x)[1], lambda x: ss.sici(x)[1]),
    ]:
        base = name.split("[")[0]
        row(name, fn, ref, gen=uniform(0.2, 5.0), dtype=same_float, api=(base, "special." + base))
    row(
        "expn",
        lambda x: sx.expn(3, x),
        lambda x: ss.expn(3, x).astype(x.dtype),
        gen=uniform(0.2, 6.0),
        dtype=same_float,
        api=("expn", "special.expn"),
    )
    row(
        "expn[n]",
        sx.expn,
        lambda n, x: ss.expn(n.astype(int), x).astype(x.dtype),
        gen=lambda rng, dt: [[np.asarray([[0.0], [1.0], [2.0], [5.0]], dt), np.asarray(rng.uniform(0.2, 4, (5,)), dt)]],
        dtype=same_float,
        grad=False,
        api=(),
    )
    row(
        "jn",
        lambda x: sx.jn(2, x),
        lambda x: ss.jv(2, x).astype(x.dtype),
        gen=uniform(-8.0, 8.0),
        dtype=same_float,
        api=("jn", "special.jn"),
    )
    row(
        "jn[n]",
        sx.jn,
        lambda n, x: ss.jv(n, x).astype(x.dtype),
        gen=lambda rng, dt: [[np.asarray([[0.0], [1.0], [-3.0], [6.0]], dt), np.asarray(rng.uniform(-9, 9, (5,)), dt)]],
        dtype=same_float,
        grad=False,
        api=(),
    )
    row("j0", sx.j0, ss.j0, gen=uniform(-8.0, 8.0), dtype=same_float, api=("j0", "special.j0"))
    row("j1", sx.j1, ss.j1, gen=uniform(-8.0, 8.0), dtype=same_float, api=("j1", "special.j1"))
    row(
        "bessel_jn",
        lambda z: sp.bessel_jn(z, v=3),
        lambda z: np.stack([ss.jv(k, z) for k in range(4)]).astype(z.dtype),
        gen=uniform(-6.0, 6.0),
        dtype=same_float,
        api=("special.bessel_jn",),
    )
    for name, fn, ref in [("gcd", sx.gcd, np.gcd), ("lcm", sx.lcm, np.lcm)]:
        row(name, fn, ref, [((3, 4), (4,)), ((5,), ())], kinds="normal", dtypes=I + ("uint8",), grad=False)
    row("nextafter", sx.nextafter, np.nextafter, [((3, 4), (4,)), ((5,), ())], grad=False)
    row(
        "bitwise_count",
        sx.bitwise_count,
        np.bitwise_count,
        [((3, 4),), ((5,),)],
        kinds="normal",
        dtypes=I + ("uint8", "bool"),
        grad=False,
    )

"""Golden values of hyp1f1 and hyp2f1 (x < -1) for tests/python/test_special.py, where SciPy is off.

The tests compare symx with SciPy over the grids test_special.hyp1f1_grid() and
hyp2f1_negative_x_grid(); at the points where the two differ by more than 1e-13 (SciPy's own
error at most of them: its hyp1f1 is Boost's, its hyp2f1 Cephes'), this script computes the value
to high precision and tests/golden/special_hyper.npz keeps it (h1_a, h1_b, h1_x, h1_ref and h2_a,
h2_b, h2_c, h2_x, h2_ref), so that the tests themselves need no mpmath:
  * 1F1: the defining series summed directly in mpmath, at a precision raised until two sums 30
    digits apart agree to 25 digits (mpmath's own hyp1f1 is wrong for some large negative b, e.g.
    hyp1f1(0.07, -370.26, 122.2): 0.98 where the series sums to -1.088e33);
  * 2F1: mpmath's hyp2f1 at 40 and at 70 digits (kept where they agree to 1e-20).
Points where no value is found are left out (the test then fails there, naming the count); an
overflow is kept as +-inf (SciPy has the sign of some wrong: hyp1f1(-0.01, 0.01, 1000) is -inf).

Usage (symx built, mpmath installed): PYTHONPATH=build/python python3 tests/golden/golden_special_hyper.py
"""

import math
import os
import sys

import mpmath
import numpy as np
import scipy.special as ss

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

from test_special import hyp1f1_grid, hyp2f1_negative_x_grid, rel_error  # noqa: E402

import symx as sx  # noqa: E402


def series_1f1(a, b, x, dps):
    """The series sum (a)_k / (b)_k x^k / k! at dps digits and its largest term."""
    with mpmath.workdps(dps):
        a_, b_, x_ = mpmath.mpf(a), mpmath.mpf(b), mpmath.mpf(x)
        t = s = tmax = mpmath.mpf(1)
        eps = mpmath.mpf(10) ** (-dps)
        k = 0
        while a_ + k != 0:
            t = t * (a_ + k) / (b_ + k) * x_ / (k + 1)
            s += t
            tmax = max(tmax, abs(t))
            k += 1
            if k > 200000:
                return None, None
            if b_ + k > 0 and abs(t) < eps * tmax * 1e-5 and abs((a_ + k) * x_ / ((b_ + k) * (k + 1))) < 0.5:
                break
        return s, tmax


def hyp1f1_reference(a, b, x):
    if b <= 0 and b == math.floor(b):
        return math.nan
    dps = 40
    while dps <= 3000:
        s1, tmax = series_1f1(a, b, x, dps)
        s2, _ = series_1f1(a, b, x, dps + 30)
        if s1 is None:
            return math.nan
        with mpmath.workdps(dps + 30):
            if s1 == 0 and s2 == 0:
                return 0.0
            if s2 != 0 and abs(s1 - s2) <= abs(s2) * mpmath.mpf(10) ** -25:
                return float(s2)
            loss = int(mpmath.log10(tmax / abs(s2))) if s2 != 0 and tmax > abs(s2) else 30
        dps = max(dps + 30, 70 + loss)
    return math.nan


def hyp2f1_reference(a, b, c, x):
    try:
        with mpmath.workdps(40):
            v1 = mpmath.hyp2f1(a, b, c, x)
        with mpmath.workdps(70):
            v2 = mpmath.hyp2f1(a, b, c, x)
    except (ValueError, ZeroDivisionError, mpmath.libmp.NoConvergence):
        return math.nan
    with mpmath.workdps(70):
        return float(v2) if abs(v1 - v2) <= 1e-20 * abs(v2) else math.nan


def symx_values(fn, arrays):
    ps = [sx.placeholder(v.shape, v.dtype) for v in arrays]
    return sx.function(ps, [fn(*ps)], backend="reference")(*arrays)[0]


def golden(prefix, names, fn, scipy_fn, ref_fn, arrays):
    got = symx_values(fn, arrays)
    with np.errstate(all="ignore"):
        want = scipy_fn(*arrays)
    off = np.where(~(rel_error(got, want) <= 1e-13))[0]
    refs = np.array([ref_fn(*(float(v[i]) for v in arrays)) for i in off])
    keep = ~np.isnan(refs)  # (an overflow to +-inf is a value: SciPy has the sign wrong at some)
    print(f"{prefix}: {off.size} points differ from SciPy by > 1e-13; {np.sum(~keep)} without a reference")
    out = {f"{prefix}_{k}": v[off][keep] for k, v in zip(names, arrays, strict=True)}
    out[f"{prefix}_ref"] = refs[keep]
    return out


def main():
    arrays = {}
    arrays.update(golden("h1", "abx", sx.special.hyp1f1, ss.hyp1f1, hyp1f1_reference, list(hyp1f1_grid())))
    arrays.update(golden("h2", "abcx", sx.special.hyp2f1, ss.hyp2f1, hyp2f1_reference, list(hyp2f1_negative_x_grid())))
    np.savez_compressed(os.path.join(HERE, "special_hyper.npz"), **arrays)


if __name__ == "__main__":
    main()

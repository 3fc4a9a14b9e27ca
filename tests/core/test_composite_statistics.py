"""Order statistics, moments, membership and 1-d signal composites
(``composite.reduce.statistics``, ``composite.signal.correlate``) against numpy, without
any frontend."""

import numpy as np
import pytest
from core_nodes import check, dev
from lazytensor.core.composite.reduce import statistics as st
from lazytensor.core.composite.sets import counting
from lazytensor.core.composite.signal import correlate as sig

RNG = np.random.default_rng(5)


A = RNG.normal(size=(4, 5, 6))
A[1, 2, 3] = np.nan


@pytest.mark.parametrize("axis", [None, 0, 2, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_quantile_and_median(axis, keepdims):
    x = dev(A)
    q = np.array([0.0, 0.3, 0.5, 1.0])
    check(st.quantile(x, q, axis, keepdims), np.quantile(A, q, axis, keepdims=keepdims))
    check(st.quantile(x, np.array(0.7), axis, keepdims), np.quantile(A, 0.7, axis,
                                                                     keepdims=keepdims))
    check(st.median(x, axis, keepdims), np.median(A, axis, keepdims=keepdims))
    ints = RNG.integers(-9, 9, (4, 6))
    check(st.median(dev(ints), 0), np.median(ints, 0))


def test_cov_and_corrcoef():
    m, y = RNG.normal(size=(3, 7)), RNG.normal(size=(7, 2))
    check(st.cov(dev(m)), np.cov(m))
    check(st.cov(dev(m.T), dev(y), rowvar=False, ddof=0), np.cov(m.T, y, rowvar=False, ddof=0))
    check(st.corrcoef(st.cov(dev(m))), np.corrcoef(m))
    z = m + 1j * RNG.normal(size=(3, 7))
    check(st.corrcoef(st.cov(dev(z))), np.corrcoef(z))


def test_isin_and_bincount():
    a, t = RNG.integers(0, 6, (3, 4)), np.array([1, 4, 9])
    check(st.isin(dev(a), dev(t)), np.isin(a, t))
    check(st.isin(dev(a), dev(t), invert=True), np.isin(a, t, invert=True))
    check(st.isin(dev(a), dev(np.zeros(0, np.int64))), np.isin(a, []))
    x, w = np.array([0, 3, 3, 1]), np.array([0.5, 1.0, 2.0, 4.0])
    check(counting.bincount(dev(x), 6), np.bincount(x, minlength=6))
    check(counting.bincount(dev(x), 4, dev(w)), np.bincount(x, w))


@pytest.mark.parametrize("mode", ["valid", "same", "full"])
@pytest.mark.parametrize("n, m", [(7, 3), (3, 7), (4, 4)])
def test_correlate_and_convolve(mode, n, m):
    a, v = RNG.normal(size=n), RNG.normal(size=m) + 1j * RNG.normal(size=m)
    a = a.astype(np.complex128)
    check(sig.correlate(dev(a), dev(v), mode), np.correlate(a, v, mode))
    check(sig.convolve(dev(a), dev(v), mode), np.convolve(a, v, mode))
    with pytest.raises(ValueError):
        sig.correlate(dev(a), dev(v), "middle")


def test_interp():
    xp, fp = np.array([-2.0, -0.5, 1.0, 2.5]), np.array([1.0, 3.0, -2.0, 0.5])
    x = np.array([-3.0, -2.0, 0.0, 1.0, 2.5, 9.0])
    check(sig.interp(dev(x), dev(xp), dev(fp)), np.interp(x, xp, fp))
    check(sig.interp(dev(x), dev(xp), dev(fp), -7.0, 7.0), np.interp(x, xp, fp, -7.0, 7.0))

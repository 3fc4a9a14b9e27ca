"""Polynomials, interpolation and signal functions against numpy: poly*
families, interp, convolve/correlate modes, unwrap."""


from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest
from lazytensor.core import metrics
from np_compare import check, same


def _periodic(mod, x, xp, fp):
    return (mod.interp(x, xp, fp, period=360), mod.interp(x, xp, fp + 1j * fp, period=-360.0),
            mod.interp(x, xp, fp, left=0, right=9, period=np.float32(360)),
            mod.interp(x.astype(int), xp.astype(int), fp, period=7))


def _polynomials(mod):
    x = mod.linspace(0.0, 1.0, 12)
    c = mod.polyfit(x, 2 * x**3 - x**2 + 3 * x + 0.5, 3)
    ints = mod.asarray([1, 2, 3, 4])
    return (mod.polyder(c), mod.polyder(ints, 2), mod.polyder(mod.asarray([1, 2], mod.uint8)),
            mod.polyder(c, 5), mod.polyint(c), mod.polyint(ints, 2, k=[1, 2]),
            mod.polyint(mod.asarray([1.0, 2.0], mod.float32), 2, k=5),
            mod.polyval(mod.polyint(c), 1.0) - mod.polyval(mod.polyint(c), 0.0),
            mod.polyadd(ints, mod.asarray([1.5, 2.5])),
            mod.polyadd(mod.asarray([1, 2], mod.int8), [3]),
            mod.polysub(c, mod.asarray([1.0])), mod.polysub([1, 2, 3], ints),
            mod.polysub(mod.asarray([1, 2], mod.uint8), mod.asarray([5], mod.uint8)))


_UNWRAP_CASES = [
    (np.cumsum(np.random.default_rng(6).normal(0, 2, (3, 20)), axis=1), {"axis": 1}),
    (np.cumsum(np.random.default_rng(7).normal(0, 2, (20, 3)), axis=0), {"axis": 0}),
    (np.cumsum(np.random.default_rng(8).normal(0, 2, 30)).astype(np.float32), {"discont": 4.0}),
    (np.array([0.0, np.pi, 2 * np.pi, -np.pi]), {}),  # steps of exactly +-period/2
    (np.array([2, 3, 4, 5, 2, 3, 4, 5]), {"period": 4}),  # integer in, integer out
    (np.array([5, 2, 7], dtype=np.int32), {"period": 5.0}),
    (np.linspace(0, 720, 19) % 360 - 180, {"period": 360}),
    (np.zeros((2, 0)), {}),
]


def polyfit_covariances(np, x, y, Y, w):
    """np.polyfit's cov=True and cov="unscaled", with weights and a 2-d y."""
    return np.polyfit(x, y, 2, cov=True), np.polyfit(x, Y, 1, w=w, cov="unscaled")


@pytest.mark.usefixtures('own_runtime')
def test_interp_with_period_records_lazily(runtime):
    """``np.interp(angles, xp, fp, period=360)`` ran eagerly; now numpy's
    wrapping (x and xp modulo the period, xp sorted and extended by one
    point at each end) on lazy arrays."""
    x, xp, fp = np.linspace(-400, 400, 37), np.array([350.0, 10, 190, 90, 270]), np.arange(1.0, 6)
    got = _periodic(lnp, lnp.asarray(x), lnp.asarray(xp), lnp.asarray(fp))
    for g, w in zip(got, _periodic(np, x, xp, fp), strict=True):
        same(g, w)


@pytest.mark.usefixtures('own_runtime')
def test_interp_errors_are_numpys():
    """xp and fp of different lengths gave an IndexError (numpy: ValueError)."""
    xp, fp = lnp.asarray([1.0, 2.0, 3.0]), lnp.asarray([1.0, 2.0])
    for call, match in ((lambda: lnp.interp(1.5, xp, fp), "same length"),
                        (lambda: lnp.interp(1.5, xp[:0], fp[:0]), "empty"),
                        (lambda: lnp.interp(1.5, xp[None], xp[None]), "1-D"),
                        (lambda: lnp.interp(1.5, xp, xp, period=0), "non-zero")):
        with pytest.raises(ValueError, match=match):
            call()


@pytest.mark.usefixtures('own_runtime')
def test_polyder_polyint_polyadd_polysub_record_lazily(runtime):
    """polyder/polyint/polyadd/polysub (the extrema or the area under a
    fitted polynomial) were eager fallbacks that materialized the fit; they
    now record with numpy's promotion (uint8 coefficients wrap as numpy's)."""
    for got, want in zip(_polynomials(lnp), _polynomials(np), strict=True):
        same(got, want, rtol=1e-7)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize(("call", "error"), [
    (lambda m: m.polyder(m.asarray([1.0, 2.0]), -1), ValueError),
    (lambda m: m.polyint(m.asarray([1.0, 2.0]), -1), ValueError),
    (lambda m: m.polyint(m.asarray([1.0, 2.0]), 3, k=[1, 2]), ValueError),
    (lambda m: m.polyder(m.asarray(3.0)), TypeError),
])
def test_polynomial_errors_are_numpys(call, error):
    with pytest.raises(error):
        call(np)
    with pytest.raises(error):
        call(lnp)


@pytest.mark.usefixtures('own_runtime')
def test_poly1d_arguments_stay_numpys(runtime):
    assert np.polyder(np.poly1d([1, 2, 3])) == lnp.polyder(np.poly1d([1, 2, 3]))


@pytest.mark.usefixtures('own_runtime')
def test_signal_modes_sizes_and_astype_inputs(runtime):
    """numpy takes mode=0/1/2 for correlate/convolve (lazy raised ValueError),
    size() of a tuple of axes (lazy TypeError); mode=None and astype of a
    list raise numpy's TypeError (lazy: ValueError, and a silent cast)."""
    a, k = lnp.arange(6.0), lnp.asarray([1.0, 2.0, 0.5])
    for mode in (0, 1, 2, np.int64(1)):
        same(lnp.correlate(a, k, mode=mode), np.correlate(np.arange(6.0), [1.0, 2.0, 0.5], mode))
        same(lnp.convolve(a, k, mode=mode), np.convolve(np.arange(6.0), [1.0, 2.0, 0.5], mode))
    assert lnp.size(lnp.zeros((2, 3, 4)), (0, 2)) == np.size(np.zeros((2, 3, 4)), (0, 2)) == 8
    assert lnp.size(lnp.zeros((2, 3, 4)), ()) == 1
    for mod in (np, lnp):
        with pytest.raises(TypeError, match="mode not understood"):
            mod.correlate(mod.ones(5), mod.ones(3), mode=None)
        with pytest.raises(TypeError, match="Input should be a NumPy array"):
            mod.astype([[1, 2]], np.float64)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize("case", range(len(_UNWRAP_CASES)))
def test_unwrap_is_lazy(case):
    """np.unwrap ran as an eager fallback (a phase-unwrapping step read
    the signal back to the host every call); it is now recorded: numpy's
    values and dtypes, integer periods included."""
    a, kwargs = _UNWRAP_CASES[case]
    before = metrics.as_dict()["counters"]["eager_fallbacks"]
    got = np.unwrap(lnp.asarray(a), **kwargs)
    assert metrics.as_dict()["counters"]["eager_fallbacks"] == before
    same(got, np.unwrap(a, **kwargs), rtol=1e-6 if a.dtype == np.float32 else 1e-12)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize("a1, a2", [
    ([0, 0, 1, 2], [3, 4]), ([0, 0], [3.0, 4]), ([1j, 2], [0, 3, 4]), (True, [0, 3, 4]),
    (5, 3), ([1.5, -2.0, 0.0], [0.0, 0.0, 0.0]), (np.float32([1, 2]), np.float32([0, 3])),
    ([True, False], [True, True]),
])
def test_polymul_records_lazily(runtime, a1, a2):
    """np.polymul ran as an eager fallback; it is now a lazy convolution of
    the operands without their leading zeros (numpy's poly1d trimming; only
    the two zero counts are read to the host)."""
    want = np.polymul(np.asarray(a1), np.asarray(a2))
    same(lnp.polymul(lnp.asarray(a1), lnp.asarray(a2)), want)
    same(lnp.polymul(lnp.asarray(a1), a2), want)


@pytest.mark.usefixtures('own_runtime')
def test_polymul_of_a_matrix_is_numpys_value_error():
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="1d"):
            mod.polymul(mod.ones((2, 2)), mod.ones(2))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_and_correlate_of_bools(runtime, mode):
    """numpy convolves bools with its bool loop (an or of ands); lazy
    convolve/correlate raised TypeError (found by polymul of bool arrays)."""
    a, v = np.array([True, False, True, True]), np.array([True, True, False])
    same(lnp.convolve(lnp.asarray(a), lnp.asarray(v), mode), np.convolve(a, v, mode))
    same(lnp.correlate(lnp.asarray(a), v, mode), np.correlate(a, v, mode))
    same(lnp.convolve(lnp.asarray(a), lnp.asarray(v).astype(lnp.int8), mode),
         np.convolve(a, v.astype(np.int8), mode))


@pytest.mark.parametrize("sc", [lambda v: v, lambda v: 1j * v, lambda v: v - 2j * v])
def test_interp_non_finite(sc) -> None:
    cases = [(0.5, [-np.inf, np.inf], [10, 10]), (0.5, [-np.inf, 1], [0, 10]),
             (0.5, [0, 1], [np.inf, np.inf]), (0.5, [0, 1], [-np.inf, 10]),
             ([1, 2, 2.5, 3, 4], [1, 2, 3, 4], [1, 2, np.inf, 4]),
             ([0, 1, 2], [0, 1, 2], [0, -np.inf, np.inf])]
    for x, xp, fp in cases:
        fp = sc(np.asarray(fp, float))
        got = lnp.interp(lnp.asarray(x), lnp.asarray(xp), lnp.asarray(fp))
        np.testing.assert_array_equal(np.asarray(got), np.interp(x, xp, fp))


@pytest.mark.usefixtures('own_runtime')
def test_polyfit_covariance_records_lazily():
    rng = np.random.default_rng(138)
    check(polyfit_covariances, rng.normal(size=12), rng.normal(size=12), rng.normal(size=(12, 3)),
          rng.uniform(1, 2, 12), rtol=1e-8)
    import lazytensor.numpy as lnp
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="number of data points must exceed order"):
            mod.polyfit(mod.arange(3.0), mod.arange(3.0), 2, cov=True)

"""Bugs found by running more numpy user programs (heat-equation stencils,
k-means, PCA, least squares, histograms, robust statistics over data with
missing values...) on lazy arrays, each reduced to the lines that broke and
compared with numpy's own result."""

from __future__ import annotations

import warnings

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import same

pytestmark = pytest.mark.usefixtures("own_runtime")


def _robust_stats(mod, x, method, axis):
    return (mod.nanquantile(x, 0.3, axis=axis, method=method),
            mod.nanpercentile(x, [10.0, 50.0, 99.5], axis=axis, method=method, keepdims=True),
            mod.nanquantile(x, np.float64(0.75), axis=axis, method=method),
            mod.nanmedian(x, axis=axis), mod.nanmedian(x, axis=axis, keepdims=True))


@pytest.mark.parametrize(("dtype", "methods"), [
    ("float64", ("linear", "lower", "higher", "nearest", "midpoint")),
    ("float32", ("linear", "nearest")), ("float16", ("midpoint",))])
def test_nanquantile_nanpercentile_nanmedian_record_lazily(runtime, dtype, methods):
    """nanmedian, nanpercentile and nanquantile (statistics of data with
    missing values) ran eagerly; now lazy, with numpy's values and dtypes
    for each slice's own count of numbers, all-NaN slices giving NaN."""
    host = np.random.default_rng(0).random((4, 5, 3))
    host[1, 2, 0] = host[3, :, 1] = host[2, 1, :] = np.nan
    host = host.astype(dtype)
    rtol = 2e-3 if dtype == "float16" else 1e-6
    for method in methods:
        for axis in (None, 0, (0, 2), -1):
            with warnings.catch_warnings():  # numpy warns of the all-NaN slices
                warnings.simplefilter("ignore", RuntimeWarning)
                want = _robust_stats(np, host, method, axis)
            got = _robust_stats(lnp, lnp.asarray(host), method, axis)
            for g, w in zip(got, want, strict=True):
                same(g, w, rtol)


def test_nanmedian_edge_cases(runtime):
    """NaN-skipping statistics over 1-d data, infinities, all-NaN data,
    integers and ``out=``; a bad q raises numpy's ValueError."""
    data = np.array([np.nan, 1.0, 3.0, np.nan, 2.0, 10.0])
    lazy = lnp.asarray(data)
    same(lnp.nanmedian(lazy), np.nanmedian(data))
    same(lnp.nanpercentile(lazy, 50), np.nanpercentile(data, 50))
    inf = np.array([np.inf, np.nan, -np.inf, 1.0])
    same(lnp.nanmedian(lnp.asarray(inf)), np.nanmedian(inf))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        same(lnp.nanmedian(lnp.asarray(np.array([np.nan, np.nan]))), np.array(np.nan))
    ints = np.arange(12).reshape(3, 4)
    same(lnp.nanmedian(lnp.asarray(ints), axis=0), np.nanmedian(ints, axis=0))
    same(lnp.nanquantile(lnp.asarray(ints), 0.4, method="lower"),
          np.nanquantile(ints, 0.4, method="lower"))
    out = lnp.zeros(4)
    assert lnp.nanmedian(lnp.asarray(ints * 1.0), axis=0, out=out) is out
    same(out, np.nanmedian(ints * 1.0, axis=0))
    with pytest.raises(ValueError, match="Quantiles must be in the range"):
        lnp.nanquantile(lazy, 1.5)


def _strongest(mod, spectrum):
    grid = spectrum.reshape(2, 3)
    return (mod.argmax(spectrum), mod.argmin(spectrum), spectrum.argmax(),
            mod.argmax(grid, axis=1), mod.argmin(grid, axis=0, keepdims=True))


@pytest.mark.parametrize("values", [
    [1 + 2j, -1j, 3.25, 3.25 + 1j, 3.25 + 1j, -1 - 1j],
    [1 + 2j, 1 + 2j, 1 + 2j, -1 - 1j, -1 - 1j, 0],
    [1 + 2j, -1j, complex(1, np.nan), 3.25 + 1j, complex(np.nan, 0), -1 - 1j]])
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_argmax_argmin_of_complex_arrays(runtime, values, dtype):
    """``np.argmax(spectrum)`` of a complex array raised NotImplementedError;
    numpy orders complex numbers lexicographically (as the lazy max does),
    takes the first of ties and picks the first NaN (in either part)."""
    host = np.array(values, dtype)
    for got, want in zip(_strongest(lnp, lnp.asarray(host)), _strongest(np, host), strict=True):
        same(got, want)


def _block_matrices(mod, a, b, d):
    return (mod.block([[a, b], [mod.zeros((1, 2), np.float32), mod.full((1, 3), 7)]]),
            mod.block([a, a]), mod.block([[a], [a]]), mod.block(d), mod.block([d, 1, 2]),
            mod.block([[[a]], [[a]]]), mod.block([[d], [d]]), mod.block([[[1, 2]], [[3, 4]]]),
            mod.block([d, np.int8(2)]))


def test_block_matrices_record_lazily(runtime):
    """``np.block`` (assembling a KKT or saddle-point matrix from blocks)
    ran eagerly; now lazy concatenations with numpy's rank promotion,
    dtypes and a fresh array even for a single block."""
    a, b, d = np.eye(2), np.ones((2, 3)), np.arange(3, dtype=np.int8)
    got = _block_matrices(lnp, lnp.asarray(a), lnp.asarray(b), lnp.asarray(d))
    for g, w in zip(got, _block_matrices(np, a, b, d), strict=True):
        same(g, w)
    lazy = lnp.asarray(a)
    copy = lnp.block(lazy)
    copy[0, 0] = 9.0
    same(lazy, a)
    with pytest.raises(ValueError):
        lnp.block([[lazy, lazy], [lazy]])


def test_block_errors_are_numpys():
    """Tuples, empty lists and unequal nesting raise numpy's own errors."""
    lazy = lnp.eye(2)
    with pytest.raises(TypeError, match="tuple"):
        lnp.block((lazy, lazy))
    with pytest.raises(ValueError, match="depths are mismatched"):
        lnp.block([[lazy], lazy])
    with pytest.raises(ValueError, match="empty"):
        lnp.block([[], [lazy]])


def test_solve_checks_the_right_hand_side_rows():
    """``np.linalg.solve(A, b)`` with b's rows not matching A (a batch of
    vectors passed as a (k, m) array, which numpy 2 reads as one (m, n)
    matrix) gave garbage from a clipped gather; numpy raises ValueError."""
    a = lnp.asarray(np.eye(4) * 2.0)
    for b in (np.ones(3), np.ones((3, 2)), np.ones((3, 4))):
        with pytest.raises(ValueError, match="mismatch in its core dimension 0"):
            lnp.linalg.solve(lnp.stack([a] * 3) if b.shape == (3, 4) else a, lnp.asarray(b))
    batch = np.eye(4) * 2.0 + np.arange(16.0).reshape(4, 4) / 10
    rhs = np.arange(8.0).reshape(4, 2)
    same(lnp.linalg.solve(lnp.asarray(np.stack([batch] * 3)), lnp.asarray(rhs)),
          np.linalg.solve(np.stack([batch] * 3), rhs))


def _periodic(mod, x, xp, fp):
    return (mod.interp(x, xp, fp, period=360), mod.interp(x, xp, fp + 1j * fp, period=-360.0),
            mod.interp(x, xp, fp, left=0, right=9, period=np.float32(360)),
            mod.interp(x.astype(int), xp.astype(int), fp, period=7))


def test_interp_with_period_records_lazily(runtime):
    """``np.interp(angles, xp, fp, period=360)`` ran eagerly; now numpy's
    wrapping (x and xp modulo the period, xp sorted and extended by one
    point at each end) on lazy arrays."""
    x, xp, fp = np.linspace(-400, 400, 37), np.array([350.0, 10, 190, 90, 270]), np.arange(1.0, 6)
    got = _periodic(lnp, lnp.asarray(x), lnp.asarray(xp), lnp.asarray(fp))
    for g, w in zip(got, _periodic(np, x, xp, fp), strict=True):
        same(g, w)


def test_interp_errors_are_numpys():
    """xp and fp of different lengths gave an IndexError (numpy: ValueError)."""
    xp, fp = lnp.asarray([1.0, 2.0, 3.0]), lnp.asarray([1.0, 2.0])
    for call, match in ((lambda: lnp.interp(1.5, xp, fp), "same length"),
                        (lambda: lnp.interp(1.5, xp[:0], fp[:0]), "empty"),
                        (lambda: lnp.interp(1.5, xp[None], xp[None]), "1-D"),
                        (lambda: lnp.interp(1.5, xp, xp, period=0), "non-zero")):
        with pytest.raises(ValueError, match=match):
            call()


def test_take_and_put_along_axis_shape_mismatch_is_an_index_error():
    """Indices whose other axes do not broadcast against the array's raised
    ValueError (numpy indexes with them: IndexError)."""
    a = lnp.eye(4)
    with pytest.raises(IndexError, match="shape mismatch"):
        lnp.take_along_axis(a, np.ones((3, 1), int), 1)
    with pytest.raises(IndexError, match="shape mismatch"):
        lnp.take_along_axis(a, lnp.ones((3, 2), int), 0)
    with pytest.raises(IndexError, match="shape mismatch"):
        lnp.put_along_axis(a, np.ones((3, 1), int), 1.0, 1)
    with pytest.raises(ValueError, match="same number of dimensions"):
        lnp.take_along_axis(a, np.ones(4, int), 1)


def test_ediff1d_refuses_end_values_of_another_kind():
    """``np.ediff1d(uint8_counts, to_begin=[-1])`` wrapped -1 to 255; numpy
    raises TypeError unless the end values cast same_kind to the data."""
    counts = lnp.asarray(np.array([5, 1, 200], np.uint8))
    for kwargs in ({"to_begin": [-1]}, {"to_end": [1.5]}, {"to_begin": 2}):
        with pytest.raises(TypeError, match="same_kind"):
            lnp.ediff1d(counts, **kwargs)
    ints = np.array([1, 4, 9], np.int32)
    same(lnp.ediff1d(lnp.asarray(ints), to_begin=[-1], to_end=np.int8(3)),
          np.ediff1d(ints, to_begin=[-1], to_end=np.int8(3)))


def test_place_from_no_values_raises():
    """``np.place(a, mask, [])`` filled the masked elements with zeros;
    numpy raises ValueError when the mask selects any element."""
    a = lnp.arange(3.0)
    with pytest.raises(ValueError, match="empty array"):
        lnp.place(a, a > 1, [])
    lnp.place(a, a > 5, [])  # selects nothing: no error, no change
    same(a, np.arange(3.0))


def _category_counts(mod, labels):
    counts, inverse, everything = (mod.unique_counts(labels), mod.unique_inverse(labels),
                                   mod.unique_all(labels))
    return (mod.unique_values(labels), *counts, *inverse, *everything)


def test_unique_family_runs_without_fallback(runtime):
    """numpy 2's ``unique_values``/``unique_counts``/``unique_inverse``/
    ``unique_all`` (counting categories) were eager fallbacks; like
    ``unique`` they now run numpy on the materialized input (their shapes
    depend on the data), with numpy's result tuples and NaN rule."""
    for labels in (np.array([[3, 1, 3], [2, 1, 1]]), np.array([np.nan, 1.0, np.nan, 0.5])):
        got = _category_counts(lnp, lnp.asarray(labels))
        for g, w in zip(got, _category_counts(np, labels), strict=True):
            same(g, w)
        assert type(lnp.unique_counts(lnp.asarray(labels))).__name__ == "UniqueCountsResult"

"""Bugs found by running more numpy user programs (heat-equation stencils,
k-means, PCA, least squares, histograms, robust statistics over data with
missing values...) on lazy arrays, each reduced to the lines that broke and
compared with numpy's own result."""

from __future__ import annotations

import warnings

import lazytensor.numpy as lnp
import numpy as np
import pytest
from lazytensor.core.runtime import use_runtime


def _same(got, want, rtol=1e-6) -> None:
    host = np.asarray(got)
    assert host.dtype == want.dtype and host.shape == want.shape
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(host, want, rtol=rtol)
    else:
        np.testing.assert_array_equal(host, want)


@pytest.fixture
def runtime():
    """A fresh runtime whose metrics must show no eager fallback."""
    with use_runtime() as rt:
        yield rt
    assert rt.metrics.counters["eager_fallbacks"] == 0, dict(rt.metrics.fallbacks)


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
                _same(g, w, rtol)


def test_nanmedian_edge_cases(runtime):
    """NaN-skipping statistics over 1-d data, infinities, all-NaN data,
    integers and ``out=``; a bad q raises numpy's ValueError."""
    data = np.array([np.nan, 1.0, 3.0, np.nan, 2.0, 10.0])
    lazy = lnp.asarray(data)
    _same(lnp.nanmedian(lazy), np.nanmedian(data))
    _same(lnp.nanpercentile(lazy, 50), np.nanpercentile(data, 50))
    inf = np.array([np.inf, np.nan, -np.inf, 1.0])
    _same(lnp.nanmedian(lnp.asarray(inf)), np.nanmedian(inf))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _same(lnp.nanmedian(lnp.asarray(np.array([np.nan, np.nan]))), np.array(np.nan))
    ints = np.arange(12).reshape(3, 4)
    _same(lnp.nanmedian(lnp.asarray(ints), axis=0), np.nanmedian(ints, axis=0))
    _same(lnp.nanquantile(lnp.asarray(ints), 0.4, method="lower"),
          np.nanquantile(ints, 0.4, method="lower"))
    out = lnp.zeros(4)
    assert lnp.nanmedian(lnp.asarray(ints * 1.0), axis=0, out=out) is out
    _same(out, np.nanmedian(ints * 1.0, axis=0))
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
        _same(got, want)


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
        _same(g, w)
    lazy = lnp.asarray(a)
    copy = lnp.block(lazy)
    copy[0, 0] = 9.0
    _same(lazy, a)
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

"""Bugs found by running a fifth round of numpy user programs (image
clipping, triangular masks of correlation matrices, scatter-subtract
bookkeeping, constant-filled buffers...) on lazy arrays, each reduced to the
lines that broke and compared with numpy's own result."""

from __future__ import annotations

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


@pytest.fixture(autouse=True)
def _own_runtime():
    """Every test in its own runtime: arrays that an expected error keeps
    alive never join a later test's graphs in the shared one."""
    with use_runtime():
        yield


@pytest.fixture
def runtime():
    """A fresh runtime whose metrics must show no eager fallback."""
    with use_runtime() as rt:
        yield rt
    assert rt.metrics.counters["eager_fallbacks"] == 0, dict(rt.metrics.fallbacks)


def _clips(mod):
    small = mod.asarray([-100, 5, 100], dtype=mod.int8)
    pixels = mod.asarray([0, 7, 250], dtype=mod.uint8)
    return (mod.clip(small, -200, 200), mod.clip(small, -1000, 50), pixels.clip(-1, 100),
            mod.clip(pixels, 3, 1000), mod.clip(pixels, max=2**40), mod.clip(mod.arange(3.0)),
            mod.arange(4).clip(None, None))


def test_clip_with_python_int_bounds_beyond_the_dtype(runtime):
    """numpy's clip drops a Python int bound that the integer dtype's range
    already satisfies (clip(uint8, -1, 100), clip(int8, -200, 200)); lazy
    clip raised OverflowError. clip with no bound at all is a copy in numpy
    2.4 (lazy clip raised numpy 2.0's ValueError)."""
    for got, want in zip(_clips(lnp), _clips(np), strict=True):
        _same(got, want)


def test_clip_errors_are_numpys():
    """A bound beyond the range on the other side still overflows; a bool
    array with no bound has no positive loop."""
    with pytest.raises(OverflowError):
        lnp.clip(lnp.asarray([1, 2], dtype=lnp.uint8), 300, 400)
    with pytest.raises(TypeError):
        lnp.clip(lnp.asarray([True, False]))


def test_full_with_an_out_of_range_python_int_raises(runtime):
    """np.full(3, 300, dtype=uint8) and full_like(int8 array, 200) raise
    OverflowError under NEP 50; lazy full/full_like wrapped silently to 44 and
    -56. numpy scalars, lists and floats still cast unsafely, as numpy's."""
    with pytest.raises(OverflowError, match="300 out of bounds for uint8"):
        lnp.full(3, 300, dtype=lnp.uint8)
    with pytest.raises(OverflowError, match="-1 out of bounds for uint8"):
        lnp.full((2, 2), -1, dtype=np.uint8)
    with pytest.raises(OverflowError, match="200 out of bounds for int8"):
        lnp.full_like(lnp.zeros(2, dtype=lnp.int8), 200)
    lazy = lnp.zeros(2, dtype=lnp.int8)
    _same(lnp.full_like(lazy, 200, dtype=lnp.int16), np.full(2, 200, dtype=np.int16))
    with np.errstate(over="ignore"):
        _same(lnp.full(3, np.int64(300), dtype=lnp.uint8), np.full(3, np.int64(300), np.uint8))
    _same(lnp.full(3, [300, 1, 2], dtype=lnp.uint8), np.full(3, [300, 1, 2], dtype=np.uint8))
    _same(lnp.full(2, 1.7, dtype=int), np.full(2, 1.7, dtype=int))


def test_indices_from_read_only_the_shape(runtime):
    """tril_indices_from/triu_indices_from/diag_indices_from (masking the
    upper triangle of a correlation matrix) were eager fallbacks that
    materialized the matrix; they depend on its shape alone. Errors for a
    1-d or non-square input stay numpy's ValueError."""
    host = np.corrcoef(np.random.default_rng(0).random((4, 6)))
    corr = lnp.corrcoef(lnp.asarray(np.random.default_rng(0).random((4, 6))))
    for fn, args in ((np.tril_indices_from, ()), (np.triu_indices_from, (1,)),
                     (np.diag_indices_from, ())):
        got, want = fn(corr, *args), fn(host, *args)
        for g, w in zip(got, want, strict=True):
            _same(g, w)
    masked = corr.copy()
    masked[lnp.triu_indices_from(masked)] = np.nan
    want = host.copy()
    want[np.triu_indices_from(want)] = np.nan
    np.testing.assert_allclose(np.asarray(masked), want, rtol=1e-12)
    _same(lnp.tril_indices_from(lnp.ones((2, 5)), -1)[1],
          np.tril_indices_from(np.ones((2, 5)), -1)[1])


@pytest.mark.parametrize(("call", "error"), [
    (lambda: lnp.tril_indices_from(lnp.ones(3)), ValueError),
    (lambda: lnp.diag_indices_from(lnp.ones((3, 2))), ValueError),
])
def test_indices_from_errors(call, error):
    with pytest.raises(error):
        call()


def _subtract_at(mod):
    cash = mod.zeros(4)
    mod.subtract.at(cash, [0, 0, 3], 1.5)
    stock = mod.arange(4, dtype=mod.uint8)
    mod.subtract.at(stock, [0, 0, 1], 1)  # wraps around, as numpy's uint8
    grid = mod.full((2, 3), 10)
    mod.subtract.at(grid, (mod.asarray([0, 0, 1]), mod.asarray([2, 2, 0])), mod.asarray([1, 2, 3]))
    rows = mod.arange(6).reshape(2, 3)
    mod.subtract.at(rows, [1, 1], mod.asarray([1, 2, 3]))
    return cash, stock, grid, rows


def test_subtract_at_records_lazily(runtime):
    """np.subtract.at (withdrawals by account, repeated indices accumulate)
    was an eager fallback; it is add.at of the negated values."""
    for got, want in zip(_subtract_at(lnp), _subtract_at(np), strict=True):
        _same(got, want)
    with pytest.raises(TypeError):  # numpy: no subtract loop for bools
        lnp.subtract.at(lnp.ones(3, dtype=bool), [0], True)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "minimum"])
def test_ufunc_at_of_floats_into_integers_casts_as_numpy(name):
    """numpy's ufunc.at computes each step in the loop dtype and casts it
    back unsafely (int 10 - 0.6 twice -> 9 -> 8); lazy ufunc.at raised
    numpy's same_kind UFuncTypeError instead. It now runs numpy's loop."""
    got, want = lnp.full(3, 10), np.full(3, 10)
    getattr(lnp, name).at(got, [0, 0, 2], 0.6)
    getattr(np, name).at(want, [0, 0, 2], 0.6)
    _same(got, want)

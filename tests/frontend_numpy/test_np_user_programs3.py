"""Bugs found by running small numpy user programs (k-means, PCA, stencils,
signal and image processing, finance, ranking...) on lazy arrays, each
reduced to the lines that broke and compared with numpy's own result."""

from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import same


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int64"])
def test_round_integers_to_tens_ties_to_even(dtype):
    """``np.round(ints, -1)`` rounded ties upward (25 -> 30, numpy: 20), its
    ``x + 5`` wrapped near the dtype's top (int8 127 -> 126, numpy: -126),
    and a scale past the dtype (int8, decimals=-3) gave garbage."""
    info = np.iinfo(dtype)
    host = np.array([-128, -35, -25, -15, -5, 5, 15, 25, 35, 45, 127, 250, 60000, 49999, 50001])
    host = host.clip(info.min, info.max).astype(dtype)
    for decimals in (-1, -2, -3, -5):
        same(lnp.round(lnp.asarray(host), decimals), np.round(host, decimals))


def test_round_bools():
    """numpy rounds booleans in float16 (decimals=0) and cannot cast a scaled
    bool back (TypeError); the lazy round kept bools, or failed in the core."""
    host = np.array([True, False])
    same(lnp.round(lnp.asarray(host)), np.round(host))
    for decimals in (1, -1):
        with pytest.raises(TypeError):
            np.round(host, decimals)
        with pytest.raises(TypeError):
            lnp.round(lnp.asarray(host), decimals)


def _moving_averages(mod, prices):
    windows = mod.lib.stride_tricks.sliding_window_view(prices, 5)
    tiles = mod.lib.stride_tricks.sliding_window_view(prices.reshape(6, 10), (2, 3))
    rows = mod.lib.stride_tricks.sliding_window_view(prices.reshape(6, 10), 4, axis=(1,))
    return windows.mean(axis=1), windows.max(-1), tiles.sum(axis=(-1, -2)), rows, windows.strides


def test_sliding_window_view_is_a_lazy_read_only_view(runtime):
    """sliding_window_view (moving averages, 2-d tiles) ran eagerly; it is a
    read-only view now: numpy's shapes, strides and errors, and a write to
    the base shows through."""
    host = 100 * np.cumprod(1 + np.sin(np.arange(60.0)) / 50)
    got, want = _moving_averages(lnp, lnp.asarray(host)), _moving_averages(np, host)
    for g, w in zip(got[:-1], want[:-1], strict=True):
        same(g, w)
    assert got[-1] == want[-1]
    base = lnp.asarray(host)
    windows = lnp.lib.stride_tricks.sliding_window_view(base, 3)
    base[1] = -1.0
    assert float(windows[0, 1]) == -1.0 and windows.base is base
    with pytest.raises(ValueError, match="read-only"):
        windows[0, 0] = 2.0
    with pytest.raises(ValueError, match="larger than input"):
        lnp.lib.stride_tricks.sliding_window_view(base, 61)
    with pytest.raises(NotImplementedError):
        lnp.lib.stride_tricks.sliding_window_view(base, 3, writeable=True)


def test_lexsort_and_vander_record_lazily(runtime):
    """lexsort (sorting records by several keys) and vander (polynomial
    design matrices) ran eagerly; now lazy, with numpy's ties, NaN order,
    dtypes (vander promotes with int64) and errors."""
    rng = np.random.default_rng(0)
    k1, k2 = rng.integers(0, 3, (4, 7)), rng.random((4, 7))
    k2[0, 2] = np.nan
    for keys, axis in (((k1[0], k2[0]), -1), ((k2, k1), -1), ((k2, k1), 0),
                       (np.stack([k1[1], k1[2]]), -1)):
        lazy = lnp.asarray(keys) if isinstance(keys, np.ndarray) else tuple(map(lnp.asarray, keys))
        same(lnp.lexsort(lazy, axis=axis), np.lexsort(keys, axis=axis))
    for x in (np.array([1.5, 2, 3]), np.array([2, 3, -1], np.int8), np.array([True, False]),
              np.array([1, 2], np.float16)):
        for n, increasing in ((None, False), (4, True), (0, False)):
            same(lnp.vander(lnp.asarray(x), n, increasing), np.vander(x, n, increasing))
    with pytest.raises(ValueError, match="same shape"):
        lnp.lexsort((lnp.arange(2), lnp.arange(3)))
    with pytest.raises(ValueError, match="one-dimensional"):
        lnp.vander(lnp.ones((2, 2)))


def _segment_sums(mod, x, ints):
    return (mod.add.reduceat(ints, [0, 3, 7]), mod.add.reduceat(x, [0, 2, 1, 5], axis=1),
            mod.maximum.reduceat(x, [3, 0]), mod.multiply.reduceat(ints + 1, [1, 4]),
            mod.add.reduceat(ints, [2, 5], dtype=np.float32),
            mod.logical_or.reduceat(ints > 5, [0, 6]),
            mod.add.reduceat(ints, []))


def test_reduceat_segment_reductions_record_lazily(runtime):
    """``np.add.reduceat`` (per-segment sums) ran eagerly; now one lazy
    reduction per run, with numpy's dtypes (small ints widen), empty runs
    giving the element itself, and numpy's IndexError for a bad index."""
    x, ints = np.arange(24.0).reshape(4, 6), np.arange(10, dtype=np.int8)
    got = _segment_sums(lnp, lnp.asarray(x), lnp.asarray(ints))
    for g, w in zip(got, _segment_sums(np, x, ints), strict=True):
        same(g, w)
    with pytest.raises(IndexError, match="out-of-bounds"):
        lnp.add.reduceat(lnp.asarray(ints), [0, 10])


def _flat_writes(mod):
    a, b, c = mod.zeros((2, 3)), mod.zeros((2, 3)).T, mod.zeros((2, 2), dtype=np.int32)
    a.flat = 5
    a.flat[1:5] = [7, 8, 9]
    b.flat = [1, 2, 3, 4]
    c.flat[:] = mod.asarray([1.7, 2.2, 3.9])
    d = mod.arange(6.0)
    d.flat[::2] = [[1.0], [2.0], [3.0]]
    d.flat[[0, 5]] = [-1]
    return a, b, c, d


def test_flat_assignment_repeats_short_values():
    """``x.flat = values`` raised AttributeError (no setter) and
    ``x.flat[...] = short`` a broadcast ValueError, where numpy repeats the
    values in C order over the written positions (and uses the first ones
    of a longer value)."""
    for got, want in zip(_flat_writes(lnp), _flat_writes(np), strict=True):
        same(got, want)


def _nditer_writes(mod):
    a, b, c = mod.arange(6.0).reshape(2, 3), mod.arange(4.0), mod.zeros(4)
    with mod.nditer(a, op_flags=["readwrite"]) as it:
        for x in it:
            x[...] = 2 * x
    with mod.nditer([b, c], op_flags=[["readonly"], ["writeonly"]]) as it:
        for x, y in it:
            y[...] = x * x
    d = mod.arange(6).reshape(2, 3)
    it = mod.nditer(d, flags=["multi_index"], op_flags=["readwrite"])
    for x in it:  # no with-block: the loop running out writes back
        x[...] = it.multi_index[0] * 10 + it.multi_index[1]
    e = mod.arange(4.0)
    with mod.nditer(e[::2], op_flags=["readwrite"]) as it:  # a view: writes reach e
        for x in it:
            x[...] = -1
    return a, c, d, e


def test_nditer_readwrite_writes_reach_the_lazy_array():
    """``np.nditer(a, op_flags=['readwrite'])`` iterated a host copy of a lazy
    array and silently dropped every write; the written operands now get
    the host copy back when the iteration ends."""
    for got, want in zip(_nditer_writes(lnp), _nditer_writes(np), strict=True):
        same(got, want)
    with pytest.raises(ValueError, match="read-only"):
        lnp.nditer(lnp.broadcast_to(lnp.zeros(3), (2, 3)), op_flags=["readwrite"])


def _resized(mod):
    out = []
    for shape in ((2, 4), (3,), ((7,),), ((),)):
        a = mod.arange(6.0).reshape(2, 3).copy()
        a.resize(*shape)
        out.append(a)
    b = mod.arange(4, dtype=np.int8)
    b.resize(6, refcheck=False)
    return [*out, b]


def test_ndarray_resize_in_place():
    """``a.resize(shape)`` was missing (AttributeError); it keeps the first
    elements in C order and pads with zeros, and a view cannot be resized."""
    for got, want in zip(_resized(lnp), _resized(np), strict=True):
        same(got, want)
    with pytest.raises(ValueError, match="own its data"):
        lnp.arange(6.0)[1:].resize(3)

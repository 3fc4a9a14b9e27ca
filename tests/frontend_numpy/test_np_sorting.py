"""Sorting and searching against numpy: sort/partition/searchsorted kinds and
errors, complex orders, lexsort, unique, isin."""


from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import same, same_outcome


def _category_counts(mod, labels):
    counts, inverse, everything = (mod.unique_counts(labels), mod.unique_inverse(labels),
                                   mod.unique_all(labels))
    return (mod.unique_values(labels), *counts, *inverse, *everything)


def _complex_with_nans(dtype):
    a = np.zeros(9, dtype=dtype)
    a.real += [0, 0, 1, 1, 0, 1, np.nan, np.nan, np.nan]
    a.imag += [0, 1, 0, 1, np.nan, np.nan, 0, 1, np.nan]
    return a


def _partitioned(xp, axis):
    d = xp.arange(12.0)[::-1].reshape(3, 4)
    d.partition(1, axis=axis)
    return d


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


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize("dtype", [bool, np.int8, np.uint16, np.int32, np.int64, np.float16,
                                   np.float32, np.float64, np.complex64, np.complex128])
def test_sort_complex_records_lazily(runtime, dtype):
    """np.sort_complex ran as an eager fallback; it is a lazy sort along the
    last axis cast as numpy casts (complex64 for 8- and 16-bit integers)."""
    host = np.array([[3, 1, 2], [0, 5, 1]]).astype(dtype)
    if dtype in (np.complex64, np.complex128):
        host = host + 1j * np.array([[1, -1, 0], [2, 0, -3]]).astype(dtype)
        host[0, 1] = host[0, 0].real + 0.5j
    same(lnp.sort_complex(lnp.asarray(host)), np.sort_complex(host))
    same(lnp.sort_complex(lnp.asarray(host[0, :0])), np.sort_complex(host[0, :0]))


@pytest.mark.sweep("dtype", reason="inverted or not in one dtype, dtypes in "
                   "turn (every dtype once); the product is slow")
@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.uint8, bool, np.complex64])
@pytest.mark.parametrize("invert", [False, True])
def test_isin_with_a_large_table_searches_the_sorted_table(runtime, dtype, invert):
    """np.isin compared every element with every test element (a
    x.size * t.size bool table: 4M here, 1e10 for 1e5-element arrays); past
    1M entries it now searches the sorted test elements (NaN never found,
    -0.0 equals 0.0, as numpy)."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3000, (50, 40)).astype(dtype)
    t = rng.integers(0, 3000, 2000).astype(dtype)
    if dtype == np.float32:
        x[0, :2], t[:2] = [np.nan, -0.0], [np.nan, 0.0]
    same(lnp.isin(lnp.asarray(x), lnp.asarray(t), invert=invert), np.isin(x, t, invert=invert))
    same(lnp.isin(lnp.asarray(x), t[:3], invert=invert), np.isin(x, t[:3], invert=invert))


@pytest.mark.usefixtures('own_runtime')
def test_isin_kind_errors_are_numpys():
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="Invalid kind"):
            mod.isin(mod.asarray([1.0, 2.0]), [1.0], kind="hash")
        with pytest.raises(ValueError, match="only supported for boolean or integer"):
            mod.isin(mod.asarray([1.0, 2.0]), [1.0], kind="table")
    same(lnp.isin(lnp.asarray([1, 2]), [1], kind="table"), np.isin([1, 2], [1], kind="table"))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_sort_order_with_nans_is_numpys(runtime, dtype):
    """numpy sorts R+Rj < R+nanj < nan+Rj < nan+nanj; the lazy sort ordered
    lexicographically (0+nanj before 1+0j: silently wrong order), found by
    numpy's test_multiarray TestMethods.test_sort."""
    a = _complex_with_nans(dtype)
    shuffled = a[np.random.default_rng(0).permutation(9)]
    both = np.stack([shuffled, shuffled[::-1]])
    same(lnp.sort(lnp.asarray(shuffled)), np.sort(shuffled))
    for axis in (0, 1, None):
        same(lnp.argsort(lnp.asarray(both), axis=axis), np.argsort(both, axis, kind="stable"))
        same(lnp.sort(lnp.asarray(both), axis=axis), np.sort(both, axis))
    x = lnp.asarray(shuffled)
    x.sort(kind="heapsort")
    same(x, np.sort(shuffled))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_of_complex_values(runtime, side):
    """searchsorted on complex arrays crashed when the graph ran (XLA has no
    complex less-than); now numpy's complex order, NaN parts included,
    with and without sorter; found by numpy's test_searchsorted_complex."""
    a = _complex_with_nans(np.complex128)
    v = np.array([[0.5 + 0j, 1 + 2j], [np.nan, 1j]])
    same(lnp.asarray(a).searchsorted(lnp.asarray(a), side=side), a.searchsorted(a, side=side))
    same(lnp.searchsorted(lnp.asarray(a), v, side), np.searchsorted(a, v, side))
    same(lnp.searchsorted(lnp.asarray(a), 1 + 1j, side), np.asarray(np.searchsorted(a, 1 + 1j,
                                                                                  side)))
    shuffled = a[np.random.default_rng(1).permutation(9)]
    sorter = np.argsort(shuffled, kind="stable")
    same(lnp.searchsorted(lnp.asarray(shuffled), v, side, sorter=lnp.asarray(sorter)),
         np.searchsorted(shuffled, v, side, sorter=sorter))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize(("sorter", "value", "error"), [
    ([1.1], 0, TypeError), ([1, 2, 3, 4], 0, ValueError), ([1, 2, 3, 4, 5, 6], 0, ValueError),
    ([0, 1, 2, 3, 5], 4, ValueError), ([-1, 0, 1, 2, 3], 0, ValueError)])
def test_searchsorted_sorter_errors_are_numpys(sorter, value, error):
    """A float sorter gave IndexError, a sorter of the wrong length or out
    of bounds no error (numpy: TypeError, ValueError; numpy checks the
    bounds of the indices that its search reads, a host sorter is checked
    whole here)."""
    a = np.array([5, 2, 1, 3, 4])
    with pytest.raises(error):
        np.searchsorted(a, value, sorter=sorter)
    with pytest.raises(error):
        lnp.searchsorted(lnp.asarray(a), value, sorter=sorter)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("call", [
    lambda m, d: d.sort(kind="\u00e4"), lambda m, d: d.argsort(kind="x"),
    lambda m, d: m.sort(d, kind=""), lambda m, d: m.sort(d, kind=3),
    lambda m, d: m.argsort(d, kind="stable", stable=True)])
def test_sort_kind_errors_are_numpys(call):
    """An unknown sort kind (or kind= beside stable=) was ignored; numpy
    raises ValueError (TypeError for a kind that is no string)."""
    with pytest.raises((ValueError, TypeError)) as want:
        call(np, np.arange(10))
    with pytest.raises(want.type):
        call(lnp, lnp.arange(10))
    assert lnp.sort(lnp.arange(3)[::-1], kind="Q").tolist() == [0, 1, 2]


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_partition_of_an_empty_array_skips_the_kth_check(runtime):
    """numpy partitions an empty array with any kth; the lazy partition
    raised ValueError 'kth(=0) out of bounds (0)' (numpy's
    test_partition_empty_array)."""
    a = np.array([]).reshape((3, 2, 1, 0))
    for axis in (*range(-4, 4), None):
        same(lnp.partition(lnp.asarray(a), 0, axis=axis), np.partition(a, 0, axis=axis))
        same(lnp.argpartition(lnp.asarray(a), 0, axis=axis), np.argpartition(a, 0, axis=axis))
    with pytest.raises(ValueError):
        lnp.partition(lnp.arange(10.0), 10)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("call", [
    lambda m, d: m.partition(d, 2, kind=1), lambda m, d: m.partition(d, 2, kind="nonsense"),
    lambda m, d: m.argpartition(d, 2, kind="intro"), lambda m, d: d.partition(2, kind="\u00e4"),
    lambda m, d: d.argpartition(2, axis=0, kind="x")])
def test_partition_kind_errors_are_numpys(call):
    """partition/argpartition ignored kind=; numpy accepts only
    'introselect' (ValueError, TypeError for a kind that is no string)."""
    with pytest.raises((ValueError, TypeError)) as want:
        call(np, np.arange(10))
    with pytest.raises(want.type):
        call(lnp, lnp.arange(10))


@pytest.mark.parametrize("axis", [None, 0, -1, 2])
def test_partition_method_takes_no_axis_none(axis) -> None:
    same_outcome(lambda xp: _partitioned(xp, axis))

"""Bugs found by running a fifth round of numpy user programs (image
clipping, triangular masks of correlation matrices, scatter-subtract
bookkeeping, constant-filled buffers...) on lazy arrays, each reduced to the
lines that broke and compared with numpy's own result."""

from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import same

pytestmark = pytest.mark.usefixtures("own_runtime")


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
        same(got, want)


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
    same(lnp.full_like(lazy, 200, dtype=lnp.int16), np.full(2, 200, dtype=np.int16))
    with np.errstate(over="ignore"):
        same(lnp.full(3, np.int64(300), dtype=lnp.uint8), np.full(3, np.int64(300), np.uint8))
    same(lnp.full(3, [300, 1, 2], dtype=lnp.uint8), np.full(3, [300, 1, 2], dtype=np.uint8))
    same(lnp.full(2, 1.7, dtype=int), np.full(2, 1.7, dtype=int))


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
            same(g, w)
    masked = corr.copy()
    masked[lnp.triu_indices_from(masked)] = np.nan
    want = host.copy()
    want[np.triu_indices_from(want)] = np.nan
    np.testing.assert_allclose(np.asarray(masked), want, rtol=1e-12)
    same(lnp.tril_indices_from(lnp.ones((2, 5)), -1)[1],
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
        same(got, want)
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
    same(got, want)


def _inserts_and_deletes(mod):
    table = mod.arange(12).reshape(3, 4)
    series = mod.arange(5.0)
    return (mod.insert(series, 0, 0.0), mod.insert(series, [1, 3], [10, 20]),
            mod.insert(series, [1, 1, 4], 7), mod.insert(table, 1, 0, axis=0),
            mod.insert(table, 2, [7, 8, 9], axis=1),
            mod.insert(table, [2], [[7], [8], [9]], axis=1),
            mod.insert(table, [0, 2], mod.asarray([[7], [8], [9]]), axis=1),
            mod.insert(series, slice(0, 4, 2), [10, 20]), mod.insert(table, 5, -1),
            mod.insert(mod.arange(3), 1, 2.7), mod.insert(series, -1, mod.asarray([1, 2])),
            mod.insert(table[:, ::2], 1, -1, axis=1), mod.insert(series, mod.asarray(2), 9.5),
            mod.delete(series, 2), mod.delete(series, [0, 2, -1]), mod.delete(table, 1, axis=1),
            mod.delete(table, [0, 2], axis=0), mod.delete(series, slice(1, 3)),
            mod.delete(series, [True, False, True, False, False]), mod.delete(table, [0, 11]),
            mod.delete(table, mod.asarray([1]), axis=0), mod.delete(table, [0, 1, 2], axis=0))


def test_insert_and_delete_record_lazily(runtime):
    """np.insert and np.delete (padding a running sum with a leading 0,
    dropping a column) were eager fallbacks that materialized the array.
    numpy now places element positions on the host (its broadcasting,
    casting and checks) and one gather records the result; the positions
    are device data, so a loop over the position compiles once."""
    for got, want in zip(_inserts_and_deletes(lnp), _inserts_and_deletes(np), strict=True):
        same(got, want)
    x = lnp.asarray(np.arange(10.0))
    misses = runtime.metrics.counters["cache_misses"]
    for i in range(4):
        assert float(lnp.delete(x, i).sum()) == 45.0 - i
        assert float(lnp.insert(x, i, 1.0).sum()) == 46.0
    assert runtime.metrics.counters["cache_misses"] - misses <= 2


@pytest.mark.parametrize(("call", "error"), [
    (lambda m: m.insert(m.arange(3), 5, 1), IndexError),
    (lambda m: m.insert(m.arange(3, dtype=m.uint8), 0, 300), OverflowError),
    (lambda m: m.insert(m.arange(3.0), 0, 1j), TypeError),
    (lambda m: m.insert(m.ones((2, 2)), 0, 1, axis=2), np.exceptions.AxisError),
    (lambda m: m.insert(m.ones((3, 4)), 1, [1, 2], axis=0), ValueError),
    (lambda m: m.delete(m.arange(3), 5), IndexError),
    (lambda m: m.delete(m.arange(3), [True, False]), ValueError),
    (lambda m: m.delete(m.arange(3), 1.0), IndexError),
])
def test_insert_and_delete_errors_are_numpys(call, error):
    with pytest.raises(error):
        call(np)
    with pytest.raises(error):
        call(lnp)


_HALF = (np.eye(3) * 2 + 0.5).astype(np.float16)


@pytest.mark.parametrize("call", [
    lambda la: la.inv(_HALF), lambda la: la.det(_HALF), lambda la: la.slogdet(_HALF),
    lambda la: la.solve(_HALF, np.ones(3)), lambda la: la.solve(np.eye(3), _HALF[0]),
    lambda la: la.cholesky(_HALF), lambda la: la.qr(_HALF), lambda la: la.eigh(_HALF),
    lambda la: la.svd(_HALF), lambda la: la.pinv(_HALF), lambda la: la.matrix_rank(_HALF),
    lambda la: la.lstsq(_HALF, np.ones(3), rcond=None), lambda la: la.cond(_HALF),
    lambda la: la.norm(_HALF, 2), lambda la: la.norm(_HALF, "nuc", axis=(0, 1)),
    lambda la: la.matrix_norm(_HALF, ord=-2), lambda la: la.matrix_power(_HALF, -1),
])
def test_linalg_of_float16_raises_numpys_type_error(call):
    """numpy's LAPACK routines refuse float16 (TypeError: array type float16
    is unsupported in linalg). Lazy linalg recorded the graph and XLA failed
    only when it compiled, with a NotImplementedError."""
    with pytest.raises(TypeError, match="float16 is unsupported in linalg"):
        call(np.linalg)
    with pytest.raises(TypeError, match="float16 is unsupported in linalg"):
        call(lnp.linalg)


def test_linalg_of_float16_without_lapack_still_runs(runtime):
    """Norms that need no factorization, and positive matrix powers, keep float16."""
    lazy = lnp.asarray(_HALF)
    same(lnp.linalg.norm(lazy), np.linalg.norm(_HALF), rtol=2e-3)
    same(lnp.linalg.norm(lazy, 1), np.linalg.norm(_HALF, 1), rtol=2e-3)
    same(lnp.linalg.norm(lazy[0], 2), np.linalg.norm(_HALF[0], 2), rtol=2e-3)
    same(lnp.linalg.matrix_power(lazy, 2), np.linalg.matrix_power(_HALF, 2), rtol=2e-3)


def _accumulate(mod, axis):
    return mod.add.accumulate(mod.arange(6.0).reshape(2, 3), axis=axis)


def test_accumulate_axis_is_one_integer():
    """ufunc.accumulate takes one integer axis (or a tuple of one): axis=None
    or two axes raise numpy's ValueError (lazy: a TypeError from comparing
    None), a float axis numpy's TypeError (lazy silently used int(1.5))."""
    same(_accumulate(lnp, (1,)), _accumulate(np, (1,)))
    for axis, error in ((None, ValueError), ((0, 1), ValueError), (1.5, TypeError),
                        ([1], TypeError)):
        with pytest.raises(error):
            _accumulate(np, axis)
        with pytest.raises(error):
            _accumulate(lnp, axis)


def test_a_list_times_a_lazy_integer_scalar_repeats_the_list(runtime):
    """``[0] * counts.max()`` repeats the list as with numpy's scalar (whose
    multiply leaves sequences to Python); the lazy 0-d result multiplied the
    list elementwise and gave array([0]). A 0-d array made as an array
    still multiplies elementwise, as numpy's 0-d ndarray."""
    counts = lnp.bincount(lnp.asarray([0, 1, 1, 2, 1]))
    host = np.bincount(np.asarray([0, 1, 1, 2, 1]))
    assert [0] * counts.max() == [0] * host.max() == [0, 0, 0]
    assert counts[1] * ("a", "b") == host[1] * ("a", "b")
    same([1, 2] * lnp.asarray(2), [1, 2] * np.asarray(2))
    with pytest.raises(TypeError):
        [1.0] * lnp.asarray([2.5])[0]


def _dates(mod):
    days = mod.arange("2024-01-01", "2024-01-11", dtype="datetime64[D]")
    stamps = mod.asarray(np.array(["2024-01-03", "2024-01-01", "2024-01-07"],
                                  dtype="datetime64[D]"))
    gaps = mod.diff(mod.sort(stamps))
    labels = mod.concatenate([mod.asarray(["a", "b"]), mod.asarray(["c"])])
    return (days, gaps, gaps.astype(int), mod.searchsorted(days, stamps),
            mod.where(mod.isin(days, stamps), 1, 0), labels, mod.zeros(2, dtype="datetime64[s]"),
            mod.full(2, "x", dtype="U1"), mod.unique(mod.asarray(["b", "a", "b"])))


def test_dates_and_strings_through_the_namespace_run_numpys(recwarn):
    """A program that keeps timestamps next to its numbers
    (``import lazytensor.numpy as np``): np.arange of datetime64, np.diff or
    np.sort of dates, np.concatenate of strings raised 'lazytensor.numpy does
    not support dtype datetime64[D]'. Such data stays numpy's: the function
    runs numpy's (counted as a fallback), as numpy itself would."""
    for got, want in zip(_dates(lnp), _dates(np), strict=True):
        host = np.asarray(got)
        assert host.dtype == want.dtype and host.shape == want.shape
        np.testing.assert_array_equal(host, want)


def _date_ufuncs(mod):
    days = mod.arange("2024-01-01", "2024-01-05", dtype="datetime64[D]")
    return (mod.add(days, np.timedelta64(7, "D")), mod.subtract(days, days[0]),
            mod.maximum.reduce(days), mod.equal(mod.asarray(["a", "b"]), "a"),
            mod.maximum.accumulate(mod.asarray(np.array([3, 1, 5], dtype="timedelta64[h]"))))


def test_ufuncs_of_dates_and_strings_run_numpys():
    """lazytensor.numpy's ufunc objects (np.add, np.subtract, np.maximum.reduce)
    on dates or strings raised 'does not support dtype'; they run numpy's."""
    for got, want in zip(_date_ufuncs(lnp), _date_ufuncs(np), strict=True):
        host = np.asarray(got)
        assert host.dtype == want.dtype and host.shape == want.shape
        np.testing.assert_array_equal(host, want)


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


def test_polyder_polyint_polyadd_polysub_record_lazily(runtime):
    """polyder/polyint/polyadd/polysub (the extrema or the area under a
    fitted polynomial) were eager fallbacks that materialized the fit; they
    now record with numpy's promotion (uint8 coefficients wrap as numpy's)."""
    for got, want in zip(_polynomials(lnp), _polynomials(np), strict=True):
        same(got, want, rtol=1e-7)


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


def test_poly1d_arguments_stay_numpys(runtime):
    assert np.polyder(np.poly1d([1, 2, 3])) == lnp.polyder(np.poly1d([1, 2, 3]))


def _resizes(mod):
    x = mod.arange(6).reshape(2, 3)
    return (mod.resize(x, (3, 4)), mod.resize(x, 4), mod.resize(x, (2, 2, 2)),
            mod.resize(x, (0, 3)), mod.resize(mod.zeros((0,)), (2, 2)),
            mod.resize(mod.asarray([1.5, 2.5], mod.float32), np.int64(5)))


def test_resize_records_lazily(runtime):
    """np.resize (tiling a short pattern to a frame's size) was an eager
    fallback; it records numpy's cyclic repetition (zeros for an empty input)."""
    for got, want in zip(_resizes(lnp), _resizes(np), strict=True):
        same(got, want)
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="non-negative"):
            mod.resize(mod.arange(3), (2, -1))


def _bin_edges(mod):
    data = mod.asarray(np.random.default_rng(3).normal(size=50))
    return (mod.histogram_bin_edges(data), mod.histogram_bin_edges(data, 4, range=(-2, 2)),
            mod.histogram_bin_edges(mod.arange(10), 3), mod.histogram_bin_edges(data, [-1, 0, 2]),
            mod.histogram_bin_edges(data.astype(mod.float32), 5))


def test_histogram_bin_edges_record_lazily(runtime):
    """np.histogram_bin_edges (shared bins for several histograms) was an
    eager fallback; with a count or an array of bins it is histogram's
    edges. Non-increasing bins raise numpy's ValueError."""
    for got, want in zip(_bin_edges(lnp), _bin_edges(np), strict=True):
        same(got, want)
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="monotonically"):
            mod.histogram_bin_edges(mod.arange(5), [3, 1, 2])


@pytest.mark.parametrize("name", ["sum", "mean", "max", "cumsum", "argmax", "std"])
def test_a_float_axis_raises_type_error(name):
    """``np.cumsum(a, axis=1.5)`` and ``np.argmax(a, axis=1.5)`` were
    truncated to axis 1 (the core's axis normalization took ``int(axis)``);
    numpy raises TypeError for a float axis, and so does every lazy
    reduction now. Integer-like axes (numpy integers, 0-d arrays) still work."""
    a = np.arange(6.0).reshape(2, 3)
    with pytest.raises(TypeError):
        getattr(np, name)(a, axis=1.5)
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        getattr(lnp, name)(lnp.asarray(a), axis=1.5)
    for axis in (np.int32(1), np.array(-1)):
        same(getattr(lnp, name)(lnp.asarray(a), axis=axis), getattr(np, name)(a, axis=axis))


@pytest.mark.parametrize("name", ["var", "std", "nanvar", "nanstd"])
def test_ddof_and_correction_together_raise_as_numpy(name):
    """``np.nanvar(x, ddof=1, correction=0)`` silently used the correction
    (numpy's own conformance tests caught it); numpy raises ValueError for a
    nonzero ddof next to correction, and ddof=0 with correction uses it."""
    host = np.array([[1.0, np.nan, 4.0], [2.0, 3.0, 7.0]])
    for kwargs in ({"ddof": 1, "correction": 0}, {"ddof": 0.5, "correction": 0.5}):
        with pytest.raises(ValueError, match="ddof and correction"):
            getattr(np, name)(host, **kwargs)
        with pytest.raises(ValueError, match="ddof and correction"):
            getattr(lnp, name)(lnp.asarray(host), **kwargs)
    for kwargs in ({"correction": 0.5}, {"ddof": 0, "correction": 1}, {"ddof": 1}):
        same(getattr(lnp, name)(lnp.asarray(host), axis=1, **kwargs),
             getattr(np, name)(host, axis=1, **kwargs))

"""Statistics against numpy: quantiles (methods, weights, nan-aware),
var/std/cov/average, nan statistics and their warnings, histograms and
bincount."""


from __future__ import annotations

import warnings

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import same, same_error, same_exactly, same_outcome


def _robust_stats(mod, x, method, axis):
    return (mod.nanquantile(x, 0.3, axis=axis, method=method),
            mod.nanpercentile(x, [10.0, 50.0, 99.5], axis=axis, method=method, keepdims=True),
            mod.nanquantile(x, np.float64(0.75), axis=axis, method=method),
            mod.nanmedian(x, axis=axis), mod.nanmedian(x, axis=axis, keepdims=True))


def _bin_edges(mod):
    data = mod.asarray(np.random.default_rng(3).normal(size=50))
    return (mod.histogram_bin_edges(data), mod.histogram_bin_edges(data, 4, range=(-2, 2)),
            mod.histogram_bin_edges(mod.arange(10), 3), mod.histogram_bin_edges(data, [-1, 0, 2]),
            mod.histogram_bin_edges(data.astype(mod.float32), 5))


def _covs(mod):
    return (mod.cov(mod.ones((1, 3)), ddof=0, rowvar=False),
            mod.cov(mod.asarray([[1.0, 2.0, 4.0]]).T, mod.asarray([[0.0, 1.0, 3.0]]),
                    rowvar=False),
            mod.cov(mod.asarray([[1.0, 2.0, 4.0]]), rowvar=False, bias=True),
            mod.corrcoef(mod.asarray([[1.0, 2.0], [2.0, 1.0], [3.0, 5.0]]), rowvar=False))


def _averages(mod):
    y = mod.arange(12.0).reshape(2, 2, 3)
    w = mod.arange(1.0, 13.0).reshape(2, 2, 3)
    return (mod.average(y, axis=(0, 1), weights=w[:, :, 0]),
            mod.average(y, axis=(2, 0), weights=w[:, 0, :].T),
            mod.average(y, axis=1, weights=[1.0, 2.0], keepdims=True),
            mod.average(mod.arange(6).reshape(2, 3), axis=-1, weights=[1, 0, 1],
                        returned=True)[1])


def _histograms2d(mod):
    rng = np.random.default_rng(1)
    pts = mod.asarray(rng.normal(size=(50, 2)))
    cube = mod.asarray(rng.normal(size=(40, 3)).astype(np.float32))
    weights = mod.asarray(rng.random(50))
    x, y = pts[:, 0], pts[:, 1]
    return (*mod.histogram2d(x, y),
            *mod.histogram2d(x, y, bins=[3, 4], range=[[-1, 1], [-2, 2]], density=True),
            *mod.histogram2d(x, y, bins=mod.asarray([-2.0, 0.0, 2.0]), weights=weights),
            *mod.histogram2d(x, y, bins=[3, [-1.0, 0.0, 1.0]]),
            *mod.histogram2d(mod.asarray([1, 2, 2, 3]), mod.asarray([0, 0, 1, 5]), bins=2),
            *mod.histogram2d(mod.zeros(0), mod.zeros(0), bins=3),
            mod.histogramdd(cube, bins=(2, 3, 4))[0], *mod.histogramdd(cube, bins=3)[1],
            mod.histogramdd(cube, bins=3, density=True)[0])


_NANS = np.array([[1.0, np.nan, 3.0, 4.0], [np.nan, np.nan, 2.0, np.nan], [5.0, 6.0, np.nan, 7.0]])


def _warned(fn) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", lnp.LazyFallbackWarning)
        fn()
    return [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


def _same_histograms(cases) -> None:
    """lnp.histogram / histogram_bin_edges with string bins equal numpy's."""
    import lazytensor.numpy as lnp

    for d, name, range_ in cases:
        want = np.histogram(d, bins=name, range=range_)
        got = lnp.histogram(lnp.asarray(d), bins=name, range=range_)
        edges = lnp.histogram_bin_edges(lnp.asarray(d), bins=name, range=range_)
        for g, w in zip((*got, edges), (*want, want[1]), strict=True):
            g = np.asarray(g)
            assert g.dtype == w.dtype and g.shape == w.shape, (name, range_, d.dtype)
            np.testing.assert_allclose(g, w, rtol=2e-6 if w.dtype == np.float32 else 1e-12)


def test_quantile_methods():
    """percentile(method='nearest'/'lower'/...) raised NotImplementedError; the
    picking methods keep the input's dtype, midpoint interpolates."""
    host = np.array([3, 1, 4, 1, 5, 9, 2, 6])
    calls = (lambda m, a, method: m.percentile(a, 40, method=method),
             lambda m, a, method: m.quantile(a.astype(np.float32), [0.1, 0.5], method=method),
             lambda m, a, method: m.quantile(a[:6], [0.1, 0.3, 0.5, 0.7], method=method),
             lambda m, a, method: m.quantile(a.reshape(2, 4) * 1.5, [0.25, 0.625], axis=1,
                                             method=method, keepdims=True),
             lambda m, a, method: m.percentile(m.where(a > 5, np.nan, a), 50, method=method))
    for method in ("lower", "higher", "nearest", "midpoint", "weibull"):
        for call in calls:
            want = call(np, host, method)
            got = np.asarray(call(lnp, lnp.asarray(host), method))
            assert got.dtype == want.dtype and got.shape == want.shape, method
            np.testing.assert_allclose(got, want, equal_nan=True, err_msg=method)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize(("dtype", "methods"), [
    ("float64", ("linear", "lower", "higher", "nearest", "midpoint")),
    # slow: the float64 case runs every method through the same code; these
    # repeat two of them per dtype (44 s and 22 s on a loaded 2-core machine)
    pytest.param("float32", ("linear", "nearest"), marks=pytest.mark.slow),
    pytest.param("float16", ("midpoint",), marks=pytest.mark.slow)])
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


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
def test_histogram_bin_edges_record_lazily(runtime):
    """np.histogram_bin_edges (shared bins for several histograms) was an
    eager fallback; with a count or an array of bins it is histogram's
    edges. Non-increasing bins raise numpy's ValueError."""
    for got, want in zip(_bin_edges(lnp), _bin_edges(np), strict=True):
        same(got, want)
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="monotonically"):
            mod.histogram_bin_edges(mod.arange(5), [3, 1, 2])


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
def test_cov_of_one_row_with_rowvar_false(runtime):
    """With rowvar=False a 2-d m's columns are variables even when m has one
    row (numpy gh-27658): cov(ones((1, 3)), rowvar=False) is a 3x3 matrix;
    lazy cov kept the row as one variable and gave a scalar (silently wrong
    shape). A 3-d m raises numpy's ValueError (lazy returned a 3-d array)."""
    for got, expected in zip(_covs(lnp), _covs(np), strict=True):
        same(got, expected)
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="more than 2 dimensions"):
            mod.cov(mod.ones((2, 2, 2)))


@pytest.mark.usefixtures('own_runtime')
def test_average_with_weights_along_several_axes(runtime):
    """numpy 2's average takes weights shaped like the axes named (a tuple
    axis, in its order); lazy average raised ValueError for them. Weights of
    another shape with no axis raise numpy's TypeError (lazy: ValueError)."""
    for got, want in zip(_averages(lnp), _averages(np), strict=True):
        same(got, want)
    for mod in (np, lnp):
        y = mod.arange(12.0).reshape(2, 2, 3)
        with pytest.raises(TypeError, match="Axis must be specified"):
            mod.average(y, weights=[1.0, 2.0, 3.0])
        with pytest.raises(ValueError, match="consistent with shape of a"):
            mod.average(y, axis=(0, 1), weights=[1.0, 2.0, 3.0])


@pytest.mark.usefixtures('own_runtime')
def test_bincount_of_an_empty_list_and_minlength_checks(runtime):
    """np.bincount([]) counts nothing (an empty list is float64 but empty);
    lazy bincount raised TypeError. minlength=None/'foobar' raise numpy's
    TypeError (lazy: ValueError from int()), a negative one ValueError
    (lazy ignored it). A float list is cast with numpy's DeprecationWarning."""
    same(lnp.bincount([], minlength=3), np.bincount([], minlength=3))
    same(lnp.bincount([]), np.bincount([]))
    with pytest.warns(DeprecationWarning, match="Non-integer input"):
        got = lnp.bincount([1.0, 2.0])
    with pytest.warns(DeprecationWarning, match="Non-integer input"):
        same(got, np.bincount([1.0, 2.0]))
    for mod in (np, lnp):
        with pytest.raises(TypeError):
            mod.bincount(mod.asarray([1, 2]), minlength="foobar")
        with pytest.raises(TypeError, match="use 0 instead of None"):
            mod.bincount(mod.asarray([1, 2]), minlength=None)
        with pytest.raises(ValueError, match="must not be negative"):
            mod.bincount(mod.asarray([1, 2]), minlength=-1)


@pytest.mark.usefixtures('own_runtime')
def test_histogram2d_and_histogramdd_are_lazy(runtime):
    """histogram2d/histogramdd (the meshgrid-and-scatter plots of user
    programs) ran eagerly in numpy; they are lazy now (a search of each
    axis's edges and one scatter-add of known length) with numpy's values,
    edges and float64 counts; the runtime fixture checks no fallback."""
    for got, want in zip(_histograms2d(lnp), _histograms2d(np), strict=True):
        same(got, want, rtol=1e-12)
    for mod in (np, lnp):
        with pytest.raises(ValueError, match="x and y must have the same length"):
            mod.histogram2d(mod.zeros(3), mod.zeros(4))
        with pytest.raises(ValueError, match="must be positive"):
            mod.histogram2d(mod.zeros(3), mod.zeros(3), bins=0)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize("call", [
    lambda m: m.mean(m.asarray([])),
    lambda m: m.mean(m.zeros((0, 3)), axis=0),
    lambda m: m.std(m.asarray([])),
    lambda m: m.var(m.asarray([1.0]), ddof=1),
    lambda m: m.var(m.ones((2, 3)), axis=0, ddof=2),
])
def test_reductions_over_too_few_elements_warn(call):
    """numpy warns (RuntimeWarning) for the mean of an empty slice and for a
    variance with ddof >= the count; both depend on shapes only. Lazy
    mean/var/std returned NaN silently (numpy's _core test_numeric)."""
    with pytest.warns(RuntimeWarning) as want, np.errstate(invalid="ignore", divide="ignore"):
        expected = call(np)
    with pytest.warns(RuntimeWarning, match=str(want[0].message)):
        got = call(lnp)
    same(got, np.asarray(expected))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize("name", ["quantile", "percentile", "nanquantile", "nanpercentile"])
def test_quantiles_of_complex_arrays_raise(name):
    """numpy refuses quantiles of complex data (TypeError); lazy quantile and
    percentile ordered the numbers somehow and returned a complex value
    (silently; numpy's lib test_function_base TestPercentile.test_complex)."""
    for mod in (np, lnp):
        with pytest.raises(TypeError, match="real numbers"):
            getattr(mod, name)(mod.asarray([0.5 + 3.0j, 2.1 + 0.5j]), 0.5)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize("name", ["var", "std", "nanvar", "nanstd"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_var_std_subtract_the_mean_they_are_given(name, axis):
    """numpy 2's ``mean=`` (the mean with keepdims, to save computing it
    again) is subtracted as given; lazy var/std ignored it and computed their
    own, a different answer whenever the mean given is not the exact one."""
    a = np.random.default_rng(6).random((3, 4))
    a[0, 1] = np.nan
    center = np.nanmean(a, axis=axis, keepdims=True) + 0.25
    want = getattr(np, name)(a, axis=axis, mean=center, ddof=1)
    same(getattr(np, name)(lnp.asarray(a), axis=axis, mean=lnp.asarray(center), ddof=1), want,
         rtol=1e-12)
    where = a > 0.3
    want = getattr(np, name)(a, axis=1, mean=center if axis == 1 else np.nanmean(
        a, axis=1, keepdims=True), where=where)
    got = getattr(np, name)(lnp.asarray(a), axis=1, mean=lnp.asarray(
        center if axis == 1 else np.nanmean(a, axis=1, keepdims=True)), where=lnp.asarray(where))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, equal_nan=True)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_std_of_float16_is_the_root_of_the_float16_variance():
    """numpy's float16 std is sqrt of the float16 variance: inf where the
    variance overflows float16; the lazy std took the root in float32 and
    gave 306.2 where numpy (and the lazy var) gave inf (silently wrong)."""
    for a in (np.linspace(0, 1000, 17).astype(np.float16),
              np.linspace(0, 10, 17).astype(np.float16)):
        with np.errstate(over="ignore"):
            want = a.std()
            same(lnp.asarray(a).std(), np.asarray(want))
            same(lnp.std(lnp.asarray(a), ddof=1), np.asarray(np.std(a, ddof=1)))


def test_quantile_weights_are_used_and_checked() -> None:
    h, w = np.array([1.0, 2, 3, 4]), np.array([0, 0, 1, 5])
    with pytest.warns(lnp.LazyFallbackWarning):
        got = lnp.quantile(lnp.asarray(h), 0.5, weights=w, method="inverted_cdf")
    same_exactly(got, np.asarray(np.quantile(h, 0.5, weights=w, method="inverted_cdf")))
    same_error(ValueError, lambda xp: xp.quantile(xp.asarray(h), 0.5, weights=w))  # linear
    same_error(ValueError, lambda xp: xp.quantile(xp.asarray(h), 0.5, weights=-w,
                                                   method="inverted_cdf"))


def test_quantile_nan_q_and_strong_scalar_q() -> None:
    same_error(ValueError, lambda xp: xp.percentile(xp.asarray([1.0, 2, 3]), np.nan))
    same_error(ValueError, lambda xp: xp.percentile(xp.asarray([1.0, 2, 3]), [np.nan]))
    a = np.arange(1, 6, dtype=np.float32)
    for q in (np.float64(0.5), np.float32(0.5), 0.5):
        for method in ("linear", "midpoint"):
            assert lnp.quantile(lnp.asarray(a), q, method=method).dtype == \
                np.quantile(a, q, method=method).dtype


@pytest.mark.sweep("dtype", reason="every function and bins case in one "
                   "dtype, dtypes in turn; the product is slow")
@pytest.mark.parametrize("fn", [np.histogram, np.digitize])
@pytest.mark.parametrize("bins", [[1, 3, 1], [1, 3, 5], [5, 3, 1], [1, 1, 2]])
@pytest.mark.parametrize("dtype", ["uint64", "uint8", "int64"])
def test_unsigned_bins_are_checked_for_monotonicity(fn, bins, dtype) -> None:
    edges = np.array(bins, dtype=dtype)  # host bins: numpy's check applies
    same_outcome(lambda xp: getattr(xp, fn.__name__)(xp.array([2, 4, 0]), edges)[0])


@pytest.mark.parametrize("fn", ["nanvar", "nanstd"])
@pytest.mark.parametrize("ddof", [0, 1, 2, 3, 5])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_nanvar_of_a_slice_with_no_more_numbers_than_ddof_is_nan(fn, ddof) -> None:
    for axis in (0, 1, None):
        same_outcome(lambda xp, axis=axis: getattr(xp, fn)(xp.asarray(_NANS), axis=axis, ddof=ddof))


@pytest.mark.parametrize("ddof", [0, 2, 3, 5])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_masked_var_divides_by_at_least_zero_as_numpy(ddof) -> None:
    keep = ~np.isnan(_NANS)
    same_outcome(lambda xp: xp.var(xp.asarray(np.nan_to_num(_NANS)), axis=1, ddof=ddof, where=keep))


@pytest.mark.parametrize("fn", ["nanmean", "nanvar", "nanstd"])
@pytest.mark.parametrize("dtype", [np.bool_, np.int64, np.uint8, np.float64])
def test_nan_statistics_of_inexact_data_want_an_inexact_dtype_and_out(fn, dtype) -> None:
    same_outcome(lambda xp: getattr(xp, fn)(xp.asarray(_NANS), axis=1, dtype=dtype))

    def into_out(xp):
        out = xp.zeros(3, dtype=dtype)
        getattr(xp, fn)(xp.asarray(_NANS), axis=1, out=out)
        return out
    same_outcome(into_out)


@pytest.mark.parametrize("fn", ["nanargmin", "nanargmax"])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.filterwarnings("ignore::lazytensor.numpy._errors.LazyFallbackWarning")
def test_nanarg_writes_its_out_and_returns_it(fn, dtype) -> None:
    def run(xp):
        a = xp.asarray(np.where(np.arange(9) < 5, np.nan, np.arange(9.0)).astype(dtype))
        out = xp.zeros((), dtype=np.intp)
        assert getattr(xp, fn)(a, out=out) is out
        return out
    same_outcome(run)


@pytest.mark.parametrize("fn", ["nanmean", "nanvar", "nanstd"])
@pytest.mark.parametrize("shape, axis, ddof", [
    ((0, 3), 0, 0), ((0, 3), None, 0), ((0, 3), 1, 0), ((2, 3), 0, 2), ((2, 3), 0, 1),
    ((2, 3), (0, 1), 6), ((2, 0), 1, 0)])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_nan_statistics_warn_where_shapes_leave_too_few_numbers(fn, shape, axis, ddof) -> None:
    kwargs = {} if fn == "nanmean" else {"ddof": ddof}
    expected = _warned(lambda: getattr(np, fn)(np.ones(shape), axis=axis, **kwargs))
    assert _warned(lambda: getattr(lnp, fn)(lnp.ones(shape), axis=axis, **kwargs)) == expected
    same_outcome(lambda xp: getattr(xp, fn)(xp.ones(shape), axis=axis, **kwargs))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("kw", [dict(aweights=True), dict(fweights=True), dict(
    fweights=True, aweights=True), dict(aweights=True, ddof=2), dict(fweights=True, bias=True)],
    ids=["a", "f", "fa", "a-ddof2", "f-bias"])
def test_cov_with_weights_is_lazy(kw):
    """np.cov(..., aweights=...) fell back to numpy (counted; gmm_2d in
    test_np_user_programs9); weighted covariances are now recorded."""
    import lazytensor.numpy as lnp

    rng = np.random.default_rng(40)
    X, f, a = rng.normal(size=(3, 9)), rng.integers(0, 4, 9), rng.random(9)
    host = {**kw, **{k: f if k == "fweights" else a for k in kw if k.endswith("weights")}}
    lazy = {k: lnp.asarray(v) if k == "aweights" else v for k, v in host.items()}
    for args, rowvar in (((X,), True), ((X.T,), False), ((X, X[:2] ** 2), True), ((X[0],), True)):
        want = np.cov(*args, rowvar=rowvar, **host)
        got = lnp.cov(*(lnp.asarray(t) for t in args), rowvar=rowvar, **lazy)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("bad", [dict(fweights=[1.5] * 9), dict(fweights=[-1] * 9),
                                 dict(aweights=[-1.0] * 9), dict(aweights=[1.0] * 3),
                                 dict(aweights=np.ones((9, 1)))])
def test_cov_weight_errors_are_numpys(bad):
    import lazytensor.numpy as lnp

    X = np.arange(27.0).reshape(3, 9) ** 0.5
    with pytest.raises(Exception) as want:
        np.cov(X, **bad)
    with pytest.raises(want.type, match=str(want.value)):
        lnp.cov(lnp.asarray(X), **bad)


@pytest.mark.usefixtures('own_runtime')
def test_histogram_string_bins_record_lazily():
    """np.histogram(x, bins="auto") and the other estimators ran eagerly
    (counted fallbacks); the bin count now comes from numpy's estimator run
    on the lazy data (one read of the width), edges and counts as numpy's.
    "doane" and "stone" still run in numpy (counted), as do weights (numpy's
    TypeError)."""
    import lazytensor.numpy as lnp
    from lazytensor.core.runtime import get_runtime

    rng = np.random.default_rng(189)
    x, k = rng.normal(size=200), rng.integers(0, 50, 300)
    _same_histograms([(x, "auto", (0.2, 2.5)), (k, "sturges", None),
                      (np.arange(64.0), "fd", None)])
    metrics = get_runtime().metrics
    assert not metrics.fallbacks, dict(metrics.fallbacks)
    for name in ("doane", "stone"):
        got = lnp.histogram(lnp.asarray(x), bins=name)
        np.testing.assert_array_equal(np.asarray(got[0]), np.histogram(x, bins=name)[0])
    assert metrics.fallbacks["numpy.histogram"] == 2
    with pytest.raises(TypeError, match="not supported for weighted data"):
        lnp.histogram(lnp.arange(5.0), bins="auto", weights=lnp.ones(5))


@pytest.mark.usefixtures('own_runtime')
# some 70 histograms of distinct bin counts, each compiled: 50 s here
@pytest.mark.slow
def test_histogram_string_bins_on_every_estimator_and_dtype():
    rng = np.random.default_rng(190)
    datas = [rng.normal(size=200), rng.integers(0, 50, 300), rng.random(9) < 0.5,
             np.full(10, 3.0), rng.exponential(size=500).astype(np.float32), np.arange(64.0)]
    _same_histograms([(d, name, range_) for d in datas
                      for name in ("auto", "fd", "sturges", "scott", "rice", "sqrt")
                      for range_ in (None, (0.2, 2.5))])

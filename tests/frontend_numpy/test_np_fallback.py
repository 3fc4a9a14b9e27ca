"""The eager fallback: numpy functions without a lazy mapping, and dtypes the
core does not hold (longdouble, objects, dates, strings) run numpy's own and
write lazy outs as numpy would; data-dependent shapes."""


from __future__ import annotations

import warnings
from fractions import Fraction

import lazytensor.numpy as lnp
import numpy as np
import pytest
from lazytensor.core import metrics
from np_compare import same, same_exactly, same_outcome


def _dates(mod):
    days = mod.arange("2024-01-01", "2024-01-11", dtype="datetime64[D]")
    stamps = mod.asarray(np.array(["2024-01-03", "2024-01-01", "2024-01-07"],
                                  dtype="datetime64[D]"))
    gaps = mod.diff(mod.sort(stamps))
    labels = mod.concatenate([mod.asarray(["a", "b"]), mod.asarray(["c"])])
    return (days, gaps, gaps.astype(int), mod.searchsorted(days, stamps),
            mod.where(mod.isin(days, stamps), 1, 0), labels, mod.zeros(2, dtype="datetime64[s]"),
            mod.full(2, "x", dtype="U1"), mod.unique(mod.asarray(["b", "a", "b"])))


def _date_ufuncs(mod):
    days = mod.arange("2024-01-01", "2024-01-05", dtype="datetime64[D]")
    return (mod.add(days, np.timedelta64(7, "D")), mod.subtract(days, days[0]),
            mod.maximum.reduce(days), mod.equal(mod.asarray(["a", "b"]), "a"),
            mod.maximum.accumulate(mod.asarray(np.array([3, 1, 5], dtype="timedelta64[h]"))))


_G = np.arange(1, 4, dtype=np.longdouble) / 3


_OBJECT_REDUCTIONS = [
    lambda m: m.add.reduce([], dtype=object), lambda m: m.add.reduce([1, 2**70], dtype=object),
    lambda m: m.multiply.accumulate(m.asarray([1, 2, 3]), dtype=object),
    lambda m: m.add.reduceat(m.arange(4), [0, 2], dtype=object),
    lambda m: m.maximum.reduce(m.arange(3), dtype=object),
    lambda m: m.add.reduce(m.arange(3.0), dtype=np.longdouble),
    lambda m: m.sum(m.arange(3), dtype=object), lambda m: m.cumsum(m.arange(3), dtype=object)]


@pytest.fixture
def fresh_warnings(monkeypatch):
    monkeypatch.setattr(metrics, "_WARNED", set())


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
def test_ufuncs_of_dates_and_strings_run_numpys():
    """lazytensor.numpy's ufunc objects (np.add, np.subtract, np.maximum.reduce)
    on dates or strings raised 'does not support dtype'; they run numpy's."""
    for got, want in zip(_date_ufuncs(lnp), _date_ufuncs(np), strict=True):
        host = np.asarray(got)
        assert host.dtype == want.dtype and host.shape == want.shape
        np.testing.assert_array_equal(host, want)


@pytest.mark.usefixtures('own_runtime')
def test_qr_mode_raw_runs_eagerly():
    """qr(mode='raw') (LAPACK's reflectors) raised ValueError 'Unrecognized
    mode'; it now runs in numpy (warned, counted), empty matrices too."""
    a = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with pytest.warns(lnp.LazyFallbackWarning):
        got = lnp.linalg.qr(lnp.asarray(a), mode="raw")
    for g, w in zip(got, np.linalg.qr(a, mode="raw"), strict=True):
        same(g, w)
    same(lnp.linalg.qr(lnp.zeros((0, 3)), mode="raw")[0], np.linalg.qr(np.zeros((0, 3)), "raw")[0])


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_a_longdouble_scalar_runs_numpys_own():
    """A numpy longdouble scalar operand (np.where(c, np.longdouble(0), ...),
    c + np.longdouble(1)) reached XLA and crashed inside jit's argument
    check; longdouble data is numpy's own now (eagerly, counted), as dates."""
    c, h = lnp.ones(5, dtype=bool), np.ones(5, dtype=bool)
    for call in (lambda m, c: m.where(c, np.longdouble(0), np.longdouble(1)),
                 lambda m, c: c + np.longdouble(1),
                 lambda m, c: m.asarray(np.ones(2, np.longdouble))):
        got, want = np.asarray(call(lnp, c)), call(np, h)
        assert got.dtype == want.dtype == np.longdouble
        np.testing.assert_array_equal(got, want)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("call", [
    lambda m, x: m.true_divide(x, 2.0, dtype=np.longdouble), lambda m, x: m.add(x, x, dtype="g"),
    lambda m, x: m.sqrt(x, dtype=np.clongdouble), lambda m, x: m.sum(x, dtype="g")])
def test_a_longdouble_loop_runs_numpys_own(call):
    """dtype=longdouble on a ufunc or a reduction reached XLA and failed
    inside jit/convert_element_type; it runs numpy's own loop eagerly
    (counted), numpy's longdouble result, as longdouble data does."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lnp.LazyFallbackWarning)
        lazy = call(lnp, lnp.asarray([1.0, 2.0]))
    expected = call(np, np.asarray([1.0, 2.0]))
    assert type(lazy) is type(expected) and lazy.dtype == expected.dtype
    np.testing.assert_array_equal(lazy, expected)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("call", [
    lambda m, a, b: m.vecdot(a, b.T, axis=0), lambda m, a, b: m.vecdot(a, a, keepdims=True),
    lambda m, a, b: m.matmul(a, b, axes=[(0, 1), (0, 1), (0, 1)]),
    lambda m, a, b: m.matvec(a, b[:, 0], axes=[(-2, -1), -1, -1])])
def test_gufunc_axes_axis_keepdims_run_numpys(call):
    """np.vecdot(..., axis=), np.matmul(..., axes=) and keepdims= raised
    TypeError 'unsupported keyword arguments'; they run numpy's gufunc
    eagerly now (counted), found by numpy's test_ufunc test_axes_argument,
    test_axis_argument, test_keepdims_argument, test_vecdot, test_matvec."""
    a, b = np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(3, 2)
    same(call(lnp, lnp.asarray(a), lnp.asarray(b)), call(np, a, b))


def test_longdouble_arrays_are_numpys_own() -> None:
    # (no XLA type: numpy's own arrays, eagerly, as dates and strings)
    same_exactly(lnp.zeros(3, np.longdouble), np.zeros(3, np.longdouble))
    same_exactly(lnp.asarray(np.ones(3, np.clongdouble)), np.ones(3, np.clongdouble))


@pytest.mark.parametrize("fn", [
    lambda m: m.array([1, 2, 3], dtype=np.longdouble),
    lambda m: m.zeros(2, dtype="G"),
    lambda m: m.arange(3).astype("g"),
    lambda m: m.sin(m.asarray(_G)),
    lambda m: m.add(m.arange(3.0), _G),
    lambda m: m.arange(3.0) + _G,
    lambda m: _G * m.arange(3.0),
    lambda m: m.arange(3.0) - np.longdouble(1) / 3,
    lambda m: np.longdouble(1) / 3 - m.arange(3.0),
    lambda m: m.sum(m.asarray(_G)),
    lambda m: m.sqrt(np.add(m.arange(3.0), _G)),
    lambda m: m.where(m.arange(3) > 0, _G, np.longdouble(0)),
])
def test_longdouble_data_runs_numpys_own(fn) -> None:
    got, want = fn(lnp), fn(np)
    assert isinstance(got, np.ndarray | np.generic)  # (no XLA type: not a lazy array)
    assert np.asarray(got).dtype == want.dtype and np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(got, want)


def test_lazy_reductions_to_longdouble_run_numpys_own() -> None:
    # (a longdouble loop has no XLA type: numpy's own, eagerly and counted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lnp.LazyFallbackWarning)
        got = lnp.sum(lnp.arange(3.0), dtype="g")
    want = np.sum(np.arange(3.0), dtype="g")
    assert type(got) is type(want) and got == want


def test_object_operands_run_numpys_ufunc_with_every_keyword() -> None:
    # (the eager path once received the keywords the lazy path had popped)
    obj = np.array([True, None, False], dtype=object)
    same_exactly(lnp.logical_xor(obj, obj, dtype=bool), np.logical_xor(obj, obj, dtype=bool))
    same_exactly(lnp.logical_or(obj, obj, dtype=bool), np.logical_or(obj, obj, dtype=bool))
    same_outcome(lambda m: m.logical_and(obj, obj, signature="OO->O"))
    same_outcome(lambda m: m.logical_and(obj, obj, signature="??->?"))


@pytest.mark.filterwarnings("ignore::lazytensor.numpy._errors.LazyFallbackWarning")
@pytest.mark.parametrize("shape", [(2, 3), (1, 2, 3), (3,), (2, 1)])
def test_eager_fallback_writes_a_lazy_out_only_where_numpy_would(shape) -> None:
    # (the result was computed without out and broadcast into it: a
    # wrong-shaped out took a broadcast copy where numpy raises ValueError)
    x = np.arange(6).reshape(2, 3)

    def run(m):
        out = m.zeros(shape, dtype=x.dtype)
        r = m.subtract.accumulate(m.asarray(x), axis=0, out=out)  # (eager)
        assert r is out
        return out
    same_outcome(run)


@pytest.mark.parametrize("fn", ["quantile", "percentile"])
@pytest.mark.parametrize("q", [Fraction(1), Fraction(1, 2), [Fraction(1, 4), Fraction(3, 4)]])
@pytest.mark.filterwarnings("ignore::lazytensor.numpy._errors.LazyFallbackWarning")
def test_fraction_q_runs_numpys_object_loop(fn, q) -> None:
    expected = getattr(np, fn)([1, 2, 4], q)
    got = getattr(lnp, fn)(lnp.asarray([1, 2, 4]), q)
    assert type(got) is type(expected) and np.all(got == expected)


@pytest.mark.parametrize("ufunc", ["add", "power", "multiply", "equal", "less", "maximum"])
@pytest.mark.parametrize("args", [(1, 2**63), (2**200, -2**200), (3, [1, 2])])
def test_object_loop_runs_numpys_own(ufunc, args) -> None:
    # dtype=object asks for numpy's object loop, which lazy arrays cannot hold:
    # it made a lazy node of dtype object, which failed in JAX at the next read
    # (KeyError 'O', or 'Error interpreting argument' for every later read)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lnp.LazyFallbackWarning)
        lazy = getattr(lnp, ufunc)(*args, dtype=object)
    expected = getattr(np, ufunc)(*args, dtype=object)
    assert type(lazy) is type(expected)
    assert np.asarray(lazy).dtype == np.asarray(expected).dtype
    assert np.asarray(lazy).tolist() == np.asarray(expected).tolist()
    same_outcome(lambda xp: xp.arange(3) + 1)  # a later read is unharmed


@pytest.mark.parametrize("fn", _OBJECT_REDUCTIONS)
def test_object_reduction_loops_run_numpys_own(fn) -> None:
    # add.reduce([], dtype=object) made a lazy node of dtype object, which
    # failed in JAX when read (numpy: the Python int 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lnp.LazyFallbackWarning)
        lazy = fn(lnp)
    expected = fn(np)
    assert type(lazy) is type(expected)
    assert np.asarray(lazy).dtype == np.asarray(expected).dtype
    assert np.asarray(lazy).tolist() == np.asarray(expected).tolist()


def test_unmapped_function_runs_eagerly_warns_once_and_counts(plain_runtime, fresh_warnings):
    host = np.array([0.0, 3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 0.0])
    x = lnp.asarray(host)
    with pytest.warns(lnp.LazyFallbackWarning, match="numpy.trim_zeros"):
        m = np.trim_zeros(x)
    assert isinstance(m, lnp.ndarray)
    np.testing.assert_array_equal(np.asarray(m), np.trim_zeros(host))
    with warnings.catch_warnings():
        warnings.simplefilter("error", lnp.LazyFallbackWarning)  # warned once already
        np.trim_zeros(x + 1)
    assert plain_runtime.metrics.fallbacks["numpy.trim_zeros"] == 2
    assert plain_runtime.metrics.counters["eager_fallbacks"] == 2


def test_fallback_results_are_lazy_again_and_compose(plain_runtime, fresh_warnings):
    host = np.linspace(0.0, 1.0, 9)
    x = lnp.asarray(host)
    with pytest.warns(lnp.LazyFallbackWarning):
        q = np.trim_zeros(x, "f")
    y = q * 2 + 1
    np.testing.assert_allclose(np.asarray(y), np.trim_zeros(host, "f") * 2 + 1)


def test_namespace_fallback_and_ufunc_fallback(plain_runtime, fresh_warnings):
    with pytest.warns(lnp.LazyFallbackWarning, match="numpy.spacing"):
        s = np.spacing(lnp.ones(3))
    np.testing.assert_array_equal(np.asarray(s), np.spacing(np.ones(3)))
    with pytest.warns(lnp.LazyFallbackWarning, match="numpy.trim_zeros"):
        g = lnp.trim_zeros(lnp.asarray([0.0, 4.0, 9.0, 0.0]))
    assert isinstance(g, lnp.ndarray)
    np.testing.assert_allclose(np.asarray(g), [4.0, 9.0])
    assert set(plain_runtime.metrics.fallbacks) == {"numpy.spacing", "numpy.trim_zeros"}


def test_fallback_writes_lazy_out(plain_runtime, fresh_warnings):
    out = lnp.zeros(3)
    with pytest.warns(lnp.LazyFallbackWarning):
        np.spacing(lnp.ones(3), out=out)
    np.testing.assert_array_equal(np.asarray(out), np.spacing(np.ones(3)))


def test_mapped_functions_do_not_fall_back(plain_runtime):
    x = lnp.arange(12.0).reshape(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", lnp.LazyFallbackWarning)
        np.sum(np.sin(x) @ x.T, axis=0)
        np.concatenate([x, x]).mean()
        lnp.linalg.norm(x)
    assert plain_runtime.metrics.counters["eager_fallbacks"] == 0


def test_host_only_namespace_calls_are_not_fallbacks(plain_runtime):
    rows, cols = lnp.tril_indices(3)
    assert isinstance(rows, lnp.ndarray)
    assert np.asarray(lnp.broadcast_shapes((2, 1), (3,))).tolist() == [2, 3]
    assert plain_runtime.metrics.counters["eager_fallbacks"] == 0


def test_data_dependent_shapes(plain_runtime):
    host = np.array([[0.0, 2.0, -1.0], [3.0, 0.0, 5.0]])
    x = lnp.asarray(host)
    np.testing.assert_array_equal(np.asarray(x[x > 0]), host[host > 0])
    for got, want in zip(np.nonzero(x), np.nonzero(host), strict=False):
        np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(np.argwhere(x)), np.argwhere(host))
    np.testing.assert_array_equal(np.asarray(np.flatnonzero(x)), np.flatnonzero(host))
    values, counts = np.unique(x, return_counts=True)
    want_v, want_c = np.unique(host, return_counts=True)
    np.testing.assert_array_equal(np.asarray(values), want_v)
    np.testing.assert_array_equal(np.asarray(counts), want_c)
    np.testing.assert_array_equal(np.asarray(np.compress([True, False, True], x, axis=1)),
                                  np.compress([True, False, True], host, axis=1))
    assert plain_runtime.metrics.counters["eager_fallbacks"] == 0


def test_mask_assignment_with_scalar_stays_lazy(plain_runtime):
    x = lnp.arange(6.0)
    before = plain_runtime.metrics.counters["transfers_to_host"]
    x[x > 2] = 0.0
    assert plain_runtime.metrics.counters["transfers_to_host"] == before  # no materialization
    np.testing.assert_array_equal(np.asarray(x), [0.0, 1.0, 2.0, 0.0, 0.0, 0.0])

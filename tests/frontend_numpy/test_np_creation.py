"""Array creation against numpy: arange, full, geomspace, indices_from, r_/c_,
array of lists of lazy arrays, orders and user dtypes."""


from __future__ import annotations

import re

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import same


def _geomspaces(mod):
    start, stop = mod.asarray([1.0, 32.0, -1.0]), mod.asarray([1e4, 2.0, -8.0])
    return (mod.geomspace(start, stop, 5), mod.geomspace(start, stop, 4, axis=-1),
            mod.geomspace(1j, 16j, num=5), mod.geomspace(-2 - 3j, 5 + 7j, 7),
            mod.geomspace(-1, 1, num=3, dtype=complex), mod.geomspace(2.0, 8.0, 3, axis=0))


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.parametrize(("call", "error"), [
    (lambda: lnp.tril_indices_from(lnp.ones(3)), ValueError),
    (lambda: lnp.diag_indices_from(lnp.ones((3, 2))), ValueError),
])
def test_indices_from_errors(call, error):
    with pytest.raises(error):
        call()


@pytest.mark.usefixtures('own_runtime')
def test_geomspace_of_arrays_complex_end_points_and_axis():
    """numpy's geomspace takes array and complex end points and axis=; lazy
    geomspace raised TypeError for them (numpy's _core test_function_base).
    They now run eagerly (counted); a complex dtype with real end points is
    a spiral too (it must not become a NaN through the real logarithm)."""
    for got, want in zip(_geomspaces(lnp), _geomspaces(np), strict=True):
        same(got, want, rtol=1e-12)


@pytest.mark.usefixtures('own_runtime')
def test_arange_with_a_complex_dtype(runtime):
    """np.arange(n, dtype=complex) counts in the complex type; lazy arange
    raised TypeError 'unsupported dtype complex128' (numpy's einsum tests)."""
    for args in ((5,), (1, 4, 0.5)):
        for dtype in (np.complex128, np.complex64):
            same(lnp.arange(*args, dtype=dtype), np.arange(*args, dtype=dtype))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("name", ["arange", "zeros", "ones", "empty", "full"])
def test_creation_with_a_void_or_user_dtype_is_numpys(name):
    """np.arange(10, dtype=rational) (a user-defined dtype, kind 'V') raised
    TypeError 'unsupported dtype' at the collection of numpy's test_ufunc;
    structured and user dtypes now run numpy's own function, as objects and
    strings already did."""
    from numpy._core import _rational_tests

    dtype = np.dtype([("a", np.int32), ("b", np.float64)])
    args = (3, 0) if name == "full" else (3,)
    for d in (dtype, _rational_tests.rational):
        if name == "arange" and d is dtype:
            continue
        got = getattr(lnp, name)(*args, dtype=d)
        want = getattr(np, name)(*args, dtype=d)
        assert type(got) is np.ndarray and got.dtype == want.dtype and got.shape == want.shape
        if name != "empty":
            np.testing.assert_array_equal(got, want)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("call", [
    lambda m: m.arange(start=0, stop=3), lambda m: m.arange(stop=3),
    lambda m: m.arange(1, stop=3), lambda m: m.arange(0, 10, 2, float),
    lambda m: m.arange(2, dtype=bool), lambda m: m.arange(1, 0, dtype=bool),
    lambda m: m.arange(True, False, -1)])
def test_arange_keywords_and_booleans(runtime, call):
    """np.arange(start=0, stop=3) raised TypeError (the first argument was
    positional only) and dtype=bool raised 'unsupported dtype'; numpy's
    TestArange.test_start_stop_kwarg and test_arange_booleans."""
    same(call(lnp), call(np))


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("call", [
    lambda m: m.arange(start=4), lambda m: m.arange(), lambda m: m.arange(3, dtype=bool),
    lambda m: m.arange(0, m.inf), lambda m: m.arange(0, -m.inf), lambda m: m.arange(m.inf),
    lambda m: m.arange(0, 1, m.nan), lambda m: m.arange(0.0, m.inf, 1.0)])
def test_arange_errors_are_numpys(call):
    """An infinite length raised OverflowError and a NaN step numpy's
    ValueError with another message; start= without stop counted from 0."""
    with pytest.raises((TypeError, ValueError)) as want:
        call(np)
    with pytest.raises(want.type, match=str(want.value)[:20].replace("(", r"\(")
                       .replace(")", r"\)")):
        call(lnp)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("call", [
    lambda m: m.array([[1, 2], [3, 4]], ndmax=2), lambda m: m.array([[1, 2], [3, 4]], ndmax=3),
    lambda m: m.array(m.arange(6).reshape(2, 3), ndmax=2),
    lambda m: m.array([[1, 2, 3], [4, 5, 6]], ndmax=1, dtype=object),
    lambda m: m.array([[[1], [2]], [[3], [4]]], ndmax=2), lambda m: m.array([1, 2], ndmax=-1),
    lambda m: m.array([[1], [2]], ndmax=1, ndmin=2),
    lambda m: m.array(m.arange(6).reshape(2, 3), ndmax=1, dtype=object)])
def test_array_ndmax_is_numpys(call):
    """numpy 2.4's np.array(..., ndmax=) raised TypeError 'unexpected
    keyword'; found by numpy's test_multiarray TestCreation.test_ndmax_*."""
    try:
        want = call(np)
    except ValueError as error:
        with pytest.raises(ValueError, match=re.escape(str(error)[:25])):
            call(lnp)
        return
    got = call(lnp)
    assert type(got) is (lnp.ndarray if want.dtype.kind in "biufc" else np.ndarray)
    if want.dtype.kind in "biufc":
        same(got, want)
    else:
        assert got.shape == want.shape and got.dtype == want.dtype


def test_creation_order_f() -> None:
    for make in (lambda xp: xp.zeros((2, 3, 4), "i4", order="F"),
                 lambda xp: xp.ones((2, 3), order="F"), lambda xp: xp.empty((2, 3), order="F"),
                 lambda xp: xp.full((2, 3), 1.5, order="F")):
        assert make(lnp).strides == make(np).strides
        assert make(lnp).flags.f_contiguous


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("build", [
    lambda x, xp: xp.array([x[0] * 2, x[1] - x[0], x[2]]),
    lambda x, xp: xp.array([x, x * 2]),
    lambda x, xp: xp.array([[x[0], 2], [3, x[1]]]),
    lambda x, xp: xp.array((x, np.ones(3, np.int8))),
    lambda x, xp: xp.array([x[0], 1.0, True], dtype=np.int32),
    lambda x, xp: xp.array([x, [1, 2, 3]], ndmin=3),
    lambda x, xp: xp.asarray([x[0], np.float16(2)]),
    lambda x, xp: xp.mean([x[0], x[2]]),
], ids=["0d", "1d", "nested", "tuple-host", "dtype", "ndmin", "asarray", "mean"])
def test_array_of_a_list_of_lazy_arrays_records_without_reading_them(build):
    """np.array([...]) of lazy arrays (lorenz_rk4's ``np.array([sigma * (y -
    x), ...])``) read every item to the host: one graph run per call, 240 in
    60 RK4 steps; now the items' stack is recorded, with numpy's dtype
    discovery (Python scalars strong)."""
    import lazytensor.numpy as lnp
    from lazytensor.core.runtime import get_runtime

    host = np.array([1.5, -2.0, 0.25], np.float32)
    x = lnp.asarray(host) * 1
    metrics = get_runtime().metrics
    runs = metrics.counters.get("graphs_executed", 0)
    got = build(x, lnp)
    assert metrics.counters.get("graphs_executed", 0) == runs
    want = build(host, np)
    assert isinstance(got, lnp.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_array_of_a_long_list_of_lazy_arrays_reads_them():
    """Past STACK_LIMIT items the list is read in one barrier, as before:
    XLA took 20 s to compile a 2000-operand join that a read does in 4."""
    import lazytensor.numpy as lnp
    from lazytensor.numpy._base import STACK_LIMIT

    host = np.arange(STACK_LIMIT + 1.0)
    x = lnp.asarray(host) * 2
    got = lnp.array([x[i] for i in range(len(host))])
    assert got.dtype == np.float64 and got.shape == host.shape
    np.testing.assert_array_equal(np.asarray(got), host * 2)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_array_of_a_ragged_list_of_lazy_arrays_is_numpys_value_error():
    """A ragged list still gets numpy's error; a list mixing a 0-d lazy
    number and a string raised ValueError ('setting an array element with a
    sequence': numpy read the lazy item as a sequence), now numpy's array."""
    import lazytensor.numpy as lnp

    x = lnp.arange(3.0)
    with pytest.raises(ValueError, match="inhomogeneous"):
        lnp.array([x, x[:2]])
    assert lnp.array([x[1], "a"]).tolist() == ["1.0", "a"]  # numpy's own string array


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_r_and_c_of_lazy_arrays_are_counted_and_lazy():
    """np.r_/np.c_ from lazytensor.numpy were numpy's objects: they read lazy
    items silently and returned host arrays; then counted, results lazy; now
    recorded lazily without a fallback (a matrix directive still runs
    numpy's, counted)."""
    import lazytensor.numpy as lnp
    from lazytensor.core.runtime import get_runtime

    host = np.array([1.0, 2.0, 3.0])
    x = lnp.asarray(host)
    metrics = get_runtime().metrics
    before = dict(metrics.fallbacks)
    for got, want in ((lnp.r_[x, 0.0, x[:2]], np.r_[host, 0.0, host[:2]]),
                      (lnp.c_[x, x * 2], np.c_[host, host * 2]),
                      (lnp.r_["0,2", x, x], np.r_["0,2", host, host]),
                      (lnp.r_[0:5:2, -1:1:3j], np.r_[0:5:2, -1:1:3j])):
        assert isinstance(got, lnp.ndarray)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), want)
    assert metrics.fallbacks == before
    lnp.r_["r", x, x]
    assert metrics.fallbacks["numpy.r_"] == before.get("numpy.r_", 0) + 1


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("build", [
    lambda np, x, b, M: np.r_[True, b, False],
    lambda np, x, b, M: np.r_[0:3, x, 7],
    lambda np, x, b, M: np.r_[np.int32(2), x.astype(np.int32), 1],
    lambda np, x, b, M: np.r_[x[0], x, -1:1:3j],
    lambda np, x, b, M: np.c_[x, np.ones(3), [1, 2, 3]],
    lambda np, x, b, M: np.c_[M.T, x],
    lambda np, x, b, M: np.c_["0", x, x],
    lambda np, x, b, M: np.r_["1", M, M],
    lambda np, x, b, M: np.r_["0,2,0", x, x],
    lambda np, x, b, M: np.r_["-1,3,-2", M, M],
    lambda np, x, b, M: np.r_[M, x[None]]])
def test_r_and_c_record_lazily(build):
    """np.r_/np.c_ with lazy items: numpy's directives, ndmin and trans1d
    rules and weak Python scalars, recorded with no fallback."""
    import lazytensor.numpy as lnp
    from lazytensor.core.runtime import get_runtime

    x, M = np.array([1.0, 2.0, 3.0]), np.arange(6.0).reshape(2, 3)
    want = build(np, x, x > 1.5, M)
    fallbacks = get_runtime().metrics.counters["eager_fallbacks"]
    got = build(lnp, lnp.asarray(x), lnp.asarray(x > 1.5), lnp.asarray(M))
    assert get_runtime().metrics.counters["eager_fallbacks"] == fallbacks
    assert isinstance(got, lnp.ndarray) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("build", [
    lambda np, x: np.r_["a", x], lambda np, x: np.r_[x, "0"], lambda np, x: np.r_["0,", x],
    lambda np, x: np.r_["5", x], lambda np, x: np.r_["0,3,1", x, x.reshape(1, 3)]])
def test_r_errors_are_numpys(build):
    import lazytensor.numpy as lnp

    x = np.array([1.0, 2.0, 3.0])
    with pytest.raises(Exception) as want:
        build(np, x)
    with pytest.raises(want.type, match=str(want.value)):
        build(lnp, lnp.asarray(x))

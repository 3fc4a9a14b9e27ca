"""Reductions, scans and the core's reduction-based algorithms (trapezoid,
histogram edges and density, gradient spacing, array equality) against
numpy: axis rules, 0-d inputs, where/initial, bitwise and logaddexp
reductions, float16 accumulation, complex argmax/argmin."""


from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest
from lazytensor.core.runtime import get_runtime
from np_compare import check, same


def _strongest(mod, spectrum):
    grid = spectrum.reshape(2, 3)
    return (mod.argmax(spectrum), mod.argmin(spectrum), spectrum.argmax(),
            mod.argmax(grid, axis=1), mod.argmin(grid, axis=0, keepdims=True))


RNG = np.random.default_rng(3)


def close(got, want):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            close(g, w)
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
    tol = 2e-3 if w.dtype in (np.float16, np.float32, np.complex64) else 1e-9
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True)


def both(fn, *arrays):
    """fn over host arrays (numpy) and over lazy copies of them (lazytensor)."""
    return fn(*(lnp.asarray(a) for a in arrays)), fn(*arrays)


def data(dtype, shape):
    if np.dtype(dtype) == np.bool_:
        return RNG.random(shape) > 0.5
    return (RNG.random(shape) * 6).astype(dtype)


def logaddexp_reductions(np, a):
    """np.logaddexp.reduce over an axis, all axes, with where= and initial=,
    over an empty axis, of integers, and as reduceat."""
    return (np.logaddexp.reduce(a, axis=1), np.logaddexp.reduce(a, axis=None),
            np.logaddexp.reduce(a, axis=(0, 1), keepdims=True),
            np.logaddexp.reduce(a, axis=1, where=a > 0, initial=-2.0),
            np.logaddexp.reduce(a[:, :0], axis=1), np.logaddexp.reduce(np.arange(5)),
            np.logaddexp.reduce(a.astype(np.float32), axis=0),
            np.logaddexp.reduceat(a, [0, 2], axis=1))


def _bitwise_cases(name, dtype, rng, every=True):
    """(numpy's result, lazy results) of every reduce/accumulate form."""
    import lazytensor.numpy as lnp

    info = np.iinfo(dtype) if dtype is not np.bool_ else None
    x = (rng.random((5, 7, 3)) < 0.5 if info is None else
         rng.integers(info.min, info.max, (5, 7, 3), dtype=dtype, endpoint=True))
    u, lu, lx = getattr(np, name), getattr(lnp, name), lnp.asarray(x)
    where = rng.random((7, 3)) < 0.6
    cases = [dict(axis=0), dict(axis=1), dict(axis=-1), dict(axis=None), dict(axis=(0, 2)),
             dict(axis=1, keepdims=True), dict(axis=(), keepdims=False)]
    if name != "logical_xor":
        cases += [dict(axis=2, initial=1), dict(axis=1, where=where, initial=0)]
    cases = cases if every else cases[3::2]
    out = [(u.reduce(x, **kw), (lu.reduce(lx, **kw), u.reduce(lx, **kw))) for kw in cases]
    out.append((u.reduce(x[:, :0], axis=1), (lu.reduce(lx[:, :0], axis=1),)))
    out += [(u.accumulate(x, axis=a), (u.accumulate(lx, axis=a),))
            for a in ((0, 1, 2) if every else (1,))]
    return out


def _same_as_numpy(cases) -> None:
    from lazytensor.core.runtime import sync

    sync()  # one graph for every case
    for i, (want, gots) in enumerate(cases):
        for got in gots:
            host = np.asarray(got)
            assert host.dtype == want.dtype and host.shape == want.shape, i
            np.testing.assert_array_equal(host, want, err_msg=str(i))
    assert not get_runtime().metrics.fallbacks, dict(get_runtime().metrics.fallbacks)


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
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


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("name", ["sum", "prod", "max", "amin", "any", "all", "argmax",
                                  "argmin"])
def test_reducing_a_0d_array_over_axis_0(runtime, name, axis):
    """numpy reduces a 0-d array over axis 0 or -1; the lazy reductions
    raised IndexError 'tuple index out of range' (max/min) or ValueError
    (sum, any, argmax), found by numpy's test_multiarray
    TestMinMax.test_scalar."""
    for value in (1, 2.5):
        got = getattr(lnp, name)(lnp.asarray(value), axis=axis)
        same(got, np.asarray(getattr(np, name)(np.asarray(value), axis=axis)))
    same(lnp.add.reduce(lnp.asarray(3.0), axis=axis), np.asarray(3.0))
    with pytest.raises(ValueError):
        getattr(lnp, name)(lnp.asarray(1.0), axis=1)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
@pytest.mark.parametrize("n", [127, 300, 1000])
def test_float16_sum_accumulates_in_float32(runtime, n):
    """numpy's float16 add.reduce accumulates in float32 (pairwise) and
    rounds once; the lazy sum accumulated in float16 (np.sum(arange(1, 128,
    dtype=float16)) gave 8124 for numpy's 8128: silently wrong), found by
    numpy's test_ufunc TestUfunc.test_sum."""
    d = np.arange(1, n + 1, dtype=np.float16) / np.float16(7)
    same(lnp.sum(lnp.asarray(d)), np.asarray(np.sum(d)), rtol=0)
    same(lnp.add.reduce(lnp.asarray(d)), np.asarray(np.add.reduce(d)), rtol=0)
    same(lnp.asarray(d).reshape(1, -1).sum(axis=1), d.reshape(1, -1).sum(axis=1), rtol=0)


@pytest.mark.sweep("ydt", reason="every call and x dtype with one y "
                   "dtype, y dtypes in turn; the product is slow")
@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.parametrize("ydt", ["bool", "int8", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("call", [
    lambda y, x: np.trapezoid(y),
    lambda y, x: np.trapezoid(y, dx=0.5, axis=0),
    lambda y, x: np.trapezoid(y, dx=np.float32(2)),
    lambda y, x: np.trapezoid(y, x[0]),
    lambda y, x: np.trapezoid(y, x, axis=-1),
])
@pytest.mark.parametrize("xdt", ["int32", "float32"])
def test_trapezoid(ydt, xdt, call):
    close(*both(call, data(ydt, (3, 5)), np.cumsum(data(xdt, (3, 5)), axis=1).astype(xdt)))


@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
@pytest.mark.parametrize("kwargs", [
    {}, {"bins": 3, "range": (1, 4)}, {"bins": 4, "density": True},
    {"bins": 2, "range": (2, 2)}, {"bins": np.array([0.0, 1.0, 5.0]), "density": True},
])
def test_histogram(dtype, kwargs):
    close(*both(lambda a: np.histogram(a, **kwargs), data(dtype, (20,))))


@pytest.mark.usefixtures('strict_runtime')
def test_histogram_empty_and_errors():
    close(*both(lambda a: np.histogram(a, 3), np.zeros(0, np.float32)))
    for kwargs, error in (({"bins": 0}, ValueError), ({"range": (2, 1)}, ValueError),
                          ({"range": (0, np.inf)}, ValueError), ({"bins": 1.5}, TypeError)):
        with pytest.raises(error) as want:
            np.histogram(np.ones(3), **kwargs)
        with pytest.raises(error) as got:
            np.histogram(lnp.ones(3), **kwargs)
        assert str(got.value) == str(want.value)


@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.parametrize("spacing", [
    np.array([0, 2, 4, 6]), np.array([0.0, 1.0, 3.0, 6.0]), [1, 2, 4, 8], np.float32(0.5),
])
def test_gradient_spacing(spacing):
    close(*both(lambda f: np.gradient(f, spacing), data("float32", (4,))))


@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.parametrize("spacing", [np.ones((2, 2)), np.arange(3.0)])
def test_gradient_spacing_errors(spacing):
    with pytest.raises(ValueError) as want:
        np.gradient(np.ones(4), spacing)
    with pytest.raises(ValueError) as got:
        np.gradient(lnp.ones(4), spacing)
    assert str(got.value) == str(want.value)


@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.parametrize("pair", [
    (np.array([1.0, np.nan]), np.array([1.0, np.nan])), (np.arange(3), np.arange(3.0)),
    (np.ones((2, 3)), np.ones(3)), (np.ones((2, 3)), np.ones(2)), (np.arange(3), np.zeros(3)),
    (np.array([1 + 1j, np.nan]), np.array([1 + 1j, np.nan])),
])
@pytest.mark.parametrize("call", [
    np.array_equal, np.array_equiv, lambda a, b: np.array_equal(a, b, equal_nan=True),
])
def test_array_equality(pair, call):
    got, want = both(call, *pair)
    assert type(got) is bool and got == want


@pytest.mark.sweep("dtype", reason="every where/initial call in one dtype, dtypes "
                   "in turn; the dtype product is slow")
@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "float32", "float64"])
@pytest.mark.parametrize("call", [
    lambda x, w: np.sum(x, axis=1, where=w),
    lambda x, w: np.prod(x, axis=0, where=w, keepdims=True, initial=2),
    lambda x, w: np.max(x, axis=1, where=w, initial=-1),
    lambda x, w: np.min(x, where=w, initial=100),
    lambda x, w: np.all(x, axis=0, where=w),
    lambda x, w: np.any(x, axis=1, where=w, keepdims=True),
    lambda x, w: np.maximum.reduce(x[:, :0], axis=1, initial=3),
    lambda x, w: np.minimum.reduce(x[:, :0], axis=(0, 1), initial=3, keepdims=True),
    lambda x, w: np.add.reduce(x, axis=None, initial=1),
])
def test_reduce_where_initial(dtype, call):
    close(*both(call, data(dtype, (3, 4)), RNG.random((3, 4)) > 0.3))


@pytest.mark.usefixtures('strict_runtime')
def test_reduce_where_needs_initial():
    for fn in (np.max, np.min):
        with pytest.raises(ValueError) as want:
            fn(np.ones(3), where=np.ones(3, bool))
        with pytest.raises(ValueError) as got:
            fn(lnp.ones(3), where=np.ones(3, bool))
        assert str(got.value) == str(want.value)


@pytest.mark.sweep("dtype", reason="every scan call in one dtype, dtypes "
                   "in turn; the dtype product is slow")
@pytest.mark.usefixtures('strict_runtime')
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "float32"])
@pytest.mark.parametrize("call", [
    lambda x: np.cumsum(x), lambda x: np.cumprod(x, axis=1),
    lambda x: np.cumulative_sum(x, axis=0, include_initial=True),
    lambda x: np.cumulative_prod(x, axis=1, include_initial=True, dtype=np.float64),
    lambda x: np.cumulative_sum(x[0]), lambda x: np.maximum.accumulate(x, axis=1),
    lambda x: np.minimum.accumulate(x), lambda x: np.add.accumulate(x, dtype=bool),
    lambda x: np.logaddexp.accumulate(x.astype(np.float32), axis=1),
])
def test_scans(dtype, call):
    close(*both(call, data(dtype, (3, 4))))


@pytest.mark.usefixtures('strict_runtime')
def test_bool_scan_past_255_trues():
    close(*both(lambda x: np.add.accumulate(x), np.ones(300, bool)))
    close(*both(lambda x: np.multiply.accumulate(x), np.ones(300, bool)))


@pytest.mark.usefixtures('own_runtime')
def test_logaddexp_reduce_records_lazily():
    check(logaddexp_reductions, np.random.default_rng(145).normal(size=(3, 5)) * 4)


@pytest.mark.usefixtures('own_runtime')
def test_bitwise_reductions_match_numpy():
    """Whole, tuple and kept axes, initial, where=, an empty axis and
    accumulate, one dtype per ufunc, against numpy's own ufunc
    methods, with no eager fallback."""
    rng = np.random.default_rng(174)
    _same_as_numpy([c for name, dtype in (("bitwise_and", np.uint64), ("bitwise_or", np.int16),
                                          ("bitwise_xor", np.int64), ("logical_xor", np.bool_))
                    for c in _bitwise_cases(name, dtype, rng, every=False)])


@pytest.mark.usefixtures('own_runtime')
# compiles some 60 reductions per ufunc (8 to 14 s here)
@pytest.mark.slow
@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor", "logical_xor"])
def test_bitwise_reductions_match_numpy_on_every_integer_dtype(name):
    """Every axis form and accumulate on every axis, for bool and small and
    large signed and unsigned integers."""
    rng = np.random.default_rng(175)
    _same_as_numpy([c for dtype in (np.bool_, np.uint8, np.int16, np.int64, np.uint64)
                    for c in _bitwise_cases(name, dtype, rng)])

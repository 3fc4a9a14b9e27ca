"""numpy functions whose algorithm now lives in the core (third thinning
pass: trapezoid, histogram edges and density, gradient spacing, array
equality, reductions with where/initial, cumulative scans, putmask/put)
against eager numpy: values (dtype tolerance), dtype, shape, errors."""

from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest

pytestmark = pytest.mark.usefixtures("strict_runtime")

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


# ---------------------------------------------------------------- trapezoid

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


# ---------------------------------------------------------------- histogram

@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
@pytest.mark.parametrize("kwargs", [
    {}, {"bins": 3, "range": (1, 4)}, {"bins": 4, "density": True},
    {"bins": 2, "range": (2, 2)}, {"bins": np.array([0.0, 1.0, 5.0]), "density": True},
])
def test_histogram(dtype, kwargs):
    close(*both(lambda a: np.histogram(a, **kwargs), data(dtype, (20,))))


def test_histogram_empty_and_errors():
    close(*both(lambda a: np.histogram(a, 3), np.zeros(0, np.float32)))
    for kwargs, error in (({"bins": 0}, ValueError), ({"range": (2, 1)}, ValueError),
                          ({"range": (0, np.inf)}, ValueError), ({"bins": 1.5}, TypeError)):
        with pytest.raises(error) as want:
            np.histogram(np.ones(3), **kwargs)
        with pytest.raises(error) as got:
            np.histogram(lnp.ones(3), **kwargs)
        assert str(got.value) == str(want.value)


# ------------------------------------------------------------ gradient spacing

@pytest.mark.parametrize("spacing", [
    np.array([0, 2, 4, 6]), np.array([0.0, 1.0, 3.0, 6.0]), [1, 2, 4, 8], np.float32(0.5),
])
def test_gradient_spacing(spacing):
    close(*both(lambda f: np.gradient(f, spacing), data("float32", (4,))))


@pytest.mark.parametrize("spacing", [np.ones((2, 2)), np.arange(3.0)])
def test_gradient_spacing_errors(spacing):
    with pytest.raises(ValueError) as want:
        np.gradient(np.ones(4), spacing)
    with pytest.raises(ValueError) as got:
        np.gradient(lnp.ones(4), spacing)
    assert str(got.value) == str(want.value)


# ------------------------------------------------------------ array equality

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


# --------------------------------------------------- reductions: where, initial

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


def test_reduce_where_needs_initial():
    for fn in (np.max, np.min):
        with pytest.raises(ValueError) as want:
            fn(np.ones(3), where=np.ones(3, bool))
        with pytest.raises(ValueError) as got:
            fn(lnp.ones(3), where=np.ones(3, bool))
        assert str(got.value) == str(want.value)


# ------------------------------------------------------------------- scans

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


def test_bool_scan_past_255_trues():
    close(*both(lambda x: np.add.accumulate(x), np.ones(300, bool)))
    close(*both(lambda x: np.multiply.accumulate(x), np.ones(300, bool)))

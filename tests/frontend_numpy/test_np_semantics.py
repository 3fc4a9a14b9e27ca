"""numpy 2 semantics that the op database does not spell out: NEP 50 with
Python scalars, default dtypes, integer division signs, NaN comparisons,
accumulation dtypes -- each checked against eager numpy."""

from __future__ import annotations

import warnings

import lazytensor.numpy as lnp
import numpy as np
import pytest


def equal(lazy, expected) -> None:
    """Same dtype, shape and values (NaN-aware) as numpy's result."""
    host = np.asarray(lazy)
    expected = np.asarray(expected)
    assert host.dtype == expected.dtype, (host.dtype, expected.dtype)
    assert host.shape == expected.shape
    np.testing.assert_allclose(host, expected, rtol=1e-6, equal_nan=True)


NEP50 = [
    (np.int8, 3), (np.int8, 3.5), (np.uint8, -0.5), (np.float32, 2), (np.float32, 2.5),
    (np.float16, 1e3), (np.int64, 1.5), (np.complex64, 2.0), (np.float32, 1j), (np.bool_, 1),
    (np.bool_, 2.5), (np.int32, True), (np.uint8, 255),
]


@pytest.mark.parametrize(("dtype", "scalar"), NEP50)
def test_nep50_python_scalars(dtype, scalar):
    host = np.arange(1, 5).astype(dtype)
    x = lnp.asarray(host)
    equal(x + scalar, host + scalar)
    equal(scalar * x, scalar * host)
    equal(x < scalar, host < scalar)


def test_numpy_scalars_and_0d_arrays_are_strong():
    host = np.arange(4, dtype=np.int8)
    x = lnp.asarray(host)
    equal(x + np.int64(3), host + np.int64(3))
    equal(x * np.float32(2), host * np.float32(2))
    equal(x + np.array(3, dtype=np.int16), host + np.array(3, dtype=np.int16))
    equal(lnp.asarray(np.float32(1.5)) + 1.0, np.float32(1.5) + 1.0)


def test_out_of_range_python_int_raises_overflow():
    x = lnp.arange(3, dtype=np.int8)
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        x + 300
    with pytest.raises(OverflowError):
        lnp.asarray(np.arange(3, dtype=np.uint8)) - (-1)


@pytest.mark.parametrize("op", ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"])
@pytest.mark.parametrize("value", [300, -300])
def test_comparison_with_out_of_range_int_is_exact(op, value):
    host = np.arange(-2, 3, dtype=np.int8)
    equal(getattr(lnp.asarray(host), op)(value), getattr(host, op)(value))
    flipped = {"__lt__": "__gt__", "__gt__": "__lt__", "__le__": "__ge__", "__ge__": "__le__"}
    reflected = flipped.get(op, op)
    equal(getattr(lnp.asarray(host), reflected)(value), getattr(host, reflected)(value))


def test_default_dtypes():
    equal(lnp.arange(5), np.arange(5))
    equal(lnp.arange(0.0, 1.0, 0.25), np.arange(0.0, 1.0, 0.25))
    equal(lnp.arange(2, 11, 3, dtype=float), np.arange(2, 11, 3, dtype=float))
    equal(lnp.zeros((2, 3)), np.zeros((2, 3)))
    equal(lnp.ones(3, dtype=np.int16), np.ones(3, dtype=np.int16))
    equal(lnp.full((2,), 7), np.full((2,), 7))
    equal(lnp.full((2,), 7.5, dtype=np.float32), np.full((2,), 7.5, dtype=np.float32))
    equal(lnp.eye(3, 4, k=1), np.eye(3, 4, k=1))
    equal(lnp.linspace(0, 1, 7), np.linspace(0, 1, 7))
    equal(lnp.array([1, 2, 3]) / lnp.array([2, 2, 2]), np.array([1, 2, 3]) / np.array([2, 2, 2]))
    equal(lnp.asarray(np.arange(4, dtype=np.int32)) / 2, np.arange(4, dtype=np.int32) / 2)


def test_floor_divide_and_remainder_signs():
    a = np.array([-7, -7, 7, 7, 0, -1, 5], dtype=np.int32)
    b = np.array([2, -2, 2, -2, 3, 3, 0], dtype=np.int32)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = (a // b, a % b, np.fmod(a, b))
    x, y = lnp.asarray(a), lnp.asarray(b)
    equal(x // y, want[0])
    equal(x % y, want[1])
    equal(lnp.fmod(x, y), want[2])
    fa = np.array([-7.5, 7.5, -0.0, 1.0, 5.0, -3.0, np.inf, 1.0])
    fb = np.array([2.0, -2.0, 3.0, 0.0, -0.0, np.inf, 2.0, np.nan])
    with np.errstate(all="ignore"):
        fwant = (fa // fb, fa % fb, np.divmod(fa, fb))
    fx, fy = lnp.asarray(fa), lnp.asarray(fb)
    equal(fx // fy, fwant[0])
    equal(fx % fy, fwant[1])
    q, r = divmod(fx, fy)
    equal(q, fwant[2][0])
    equal(r, fwant[2][1])
    assert np.array_equal(np.signbit(np.asarray(fx % fy)), np.signbit(fwant[1]))


def test_integer_power_and_negative_exponent_error():
    host = np.arange(-3, 4, dtype=np.int64)
    equal(lnp.asarray(host) ** 3, host ** 3)
    equal(lnp.asarray(np.arange(5, dtype=np.uint8)) ** 2, np.arange(5, dtype=np.uint8) ** 2)
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        lnp.asarray(host) ** -1


def test_nan_comparisons_and_extrema():
    host = np.array([np.nan, 1.0, -np.inf, 2.0])
    other = np.array([np.nan, np.nan, 0.0, 2.0])
    x, y = lnp.asarray(host), lnp.asarray(other)
    for op in ("__eq__", "__ne__", "__lt__", "__ge__"):
        equal(getattr(x, op)(y), getattr(host, op)(other))
    equal(lnp.maximum(x, y), np.maximum(host, other))
    equal(lnp.fmin(x, y), np.fmin(host, other))
    equal(x.max(), host.max())
    equal(lnp.argmax(x), np.argmax(host))
    equal(lnp.nanmax(x), np.nanmax(host))


def test_accumulation_dtypes():
    for dtype in (np.int8, np.uint8, np.int32, np.bool_, np.float16, np.float32):
        host = np.ones((3, 4), dtype=dtype)
        x = lnp.asarray(host)
        equal(lnp.sum(x), np.sum(host))
        equal(x.prod(axis=0), host.prod(axis=0))
        equal(lnp.cumsum(x, axis=1), np.cumsum(host, axis=1))
        equal(lnp.add.reduce(x), np.add.reduce(host))
        equal(x.mean(axis=1), host.mean(axis=1))
        equal(x.var(), host.var())
    equal(lnp.mean(lnp.asarray(np.arange(5))), np.mean(np.arange(5)))


def test_ufunc_methods_and_keywords():
    host = np.arange(12.0).reshape(3, 4) - 5
    x = lnp.asarray(host)
    equal(lnp.add.accumulate(x, axis=1), np.add.accumulate(host, axis=1))
    equal(lnp.maximum.reduce(x, axis=0), np.maximum.reduce(host, axis=0))
    equal(np.multiply.outer(x[0], x[:, 1]), np.multiply.outer(host[0], host[:, 1]))
    equal(np.add(x, 1, dtype=np.float32), np.add(host, 1, dtype=np.float32))
    out = lnp.zeros((3, 4))
    ref = np.zeros((3, 4))
    np.add(x, 2, out=out, where=x > 0)
    np.add(host, 2, out=ref, where=host > 0)
    equal(out, ref)
    equal(np.logaddexp.accumulate(x, axis=1), np.logaddexp.accumulate(host, axis=1))
    equal(lnp.sum(x, axis=1, initial=10.0), np.sum(host, axis=1, initial=10.0))
    equal(lnp.max(x, axis=0, where=x < 3, initial=-100), np.max(host, axis=0, where=host < 3,
                                                               initial=-100))


def test_bool_arithmetic_follows_numpy():
    a, b = np.array([True, False, True]), np.array([True, True, False])
    x, y = lnp.asarray(a), lnp.asarray(b)
    equal(x + y, a + b)
    equal(x * y, a * b)
    equal(np.sum(x), np.sum(a))
    with pytest.raises(TypeError, match="boolean subtract"):
        _ = x - y
    with pytest.raises(TypeError):
        _ = -x


def test_results_are_lazy_until_observed():
    from lazytensor.core import Op

    x = lnp.ones((2, 2))
    y = np.exp(x) + 1
    assert isinstance(y, lnp.ndarray)
    assert y._h.node.op is not Op.DATA
    assert float(y.sum()) == pytest.approx(4 * (np.e + 1))

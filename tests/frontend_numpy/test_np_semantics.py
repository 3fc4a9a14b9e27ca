"""numpy's semantics on lazy arrays: NEP 50 promotion of Python and numpy
scalars, default dtypes, casting when written (strings, objects, byte
order), integer division and comparisons, laziness until observed."""


from __future__ import annotations

import warnings
from decimal import Decimal
from fractions import Fraction

import lazytensor.numpy as lnp
import numpy as np
import pytest
from np_compare import same_exactly, same_outcome


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


def test_astype_str():
    """``a.astype(str)`` crashed in JAX's convert; numpy gives a string array
    (host, counted as a fallback)."""
    host = np.array([[0.5, 1.25], [3.0, -2.0]])
    got = lnp.asarray(host).astype(str)
    want = host.astype(str)
    assert got.dtype == want.dtype and got.tolist() == want.tolist()


def test_non_native_byte_order_is_native() -> None:
    h = np.arange(6.0).astype(">f8")
    a = lnp.asarray(h)
    assert a.dtype == np.float64
    same_exactly(a * 2, (h * 2).astype(np.float64))
    same_exactly(lnp.zeros(3, ">i4"), np.zeros(3, np.int32))


@pytest.mark.parametrize("items", [
    [np.float32(1), 1.0], [np.ones(2, np.int8), 1000], [np.ones(2, np.int8), 100],
    [np.ones(2, np.float32), 1j], [np.ones(2, np.int8), 1.5], [np.ones(2, np.int8), True],
    [np.ones(2, np.bool_), 3], [np.float16(1), 1e10], [np.ones((2, 2), np.uint8), -1, [3, 4]],
    [np.ones(2, np.float32), np.array(1.0)]])
@pytest.mark.parametrize("lazy_items", [False, True])
def test_concatenate_axis_none_takes_python_scalars_as_weak(items, lazy_items) -> None:
    # numpy's concatenate(axis=None) joins a float32 and 1. as float32 (NEP 50):
    # the Python scalar was a strong float64 array, so the result was float64
    def run(xp):
        own = [xp.asarray(i) if lazy_items and isinstance(i, np.ndarray) else i for i in items]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # (float16 overflow: both)
            return xp.concatenate(own, axis=None)
    same_outcome(run)


@pytest.mark.sweep("dtype", reason="every written value into one target dtype, "
                   "dtypes in turn; the product is slow")
@pytest.mark.parametrize("value", [
    "1.5", "abc", "0", "", b"1", np.array([b"1", b"0"]), np.array(["3", "4"]),
    np.longdouble(2.5), np.clongdouble(1 + 0j), np.array([1.5, 2.5], dtype=np.longdouble),
    np.array([1, 2], dtype=object), Fraction(1, 2), Decimal("0.25"), [Fraction(1, 3), "2"]])
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_, np.complex64, np.uint8])
def test_strings_objects_and_longdouble_values_are_cast_when_written(value, dtype) -> None:
    # a[:] = '1.5', a[0] = Fraction(1, 2) or a longdouble raised lazytensor's
    # UnsupportedDtype; numpy casts them into the array's dtype (or raises its
    # ValueError for a string that is no number)
    def run(xp):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            a = xp.zeros(2, dtype)
            a[:] = value
            if np.ndim(value) == 0:
                a[0] = value
                a.fill(value)
                return xp.stack([a, xp.full(2, value, dtype=dtype)])
            return a
    same_outcome(run)


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

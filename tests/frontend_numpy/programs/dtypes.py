"""dtype-sensitive programs: integer division and modulo with negatives,
uint8 wraparound, float32 staying float32, casts that truncate, rounding
half to even, promotion between numpy scalars and arrays."""

from __future__ import annotations

import numpy
from program_case import Case


def integer_arithmetic(np, a, b):
    """Floor division and modulo with negative operands (Python's signs),
    np.fmod (C's signs), divmod, true division to float64, integer powers,
    int32 + int64 promotion, bool sums and integer means."""
    fl = a // b
    md = a % b
    fm = np.fmod(a, b)
    q, r = np.divmod(a, b)
    true = a / b
    scalar_floor = a // 3
    scalar_mod = -7 % b
    sq = a ** 2
    mixed = a.astype(np.int32) + b
    small = a.astype(np.int32) + 1
    count = (a > 0).sum()
    mean = a.mean()
    neg_shift = a >> 1
    half = np.int64(-7) // 2
    return fl, md, fm, q, r, true, scalar_floor, scalar_mod, sq, mixed, small, count, mean, \
        neg_shift, half


def _make_ints(rng):
    a = numpy.array([-7, -6, -1, 0, 1, 5, 7, 9], dtype=numpy.int64)
    b = numpy.array([2, -4, 3, 5, -3, 2, -2, 4], dtype=numpy.int64)
    return a, b


def small_ints(np, x):
    """uint8 and int8 wraparound, int8 negation of -128, widening casts,
    uint8 subtraction under zero, and NEP 50 with Python scalars."""
    u = x.astype(np.uint8)
    i = x.astype(np.int8)
    wrapped_add = u + u
    wrapped_sub = u - np.uint8(200)
    neg = -i
    mul = i * 3
    widened = u.astype(np.int32) * 3
    as_float = u / 2
    stays_u8 = u // 3
    py_scalar = u + 5
    counts = np.sum(u, dtype=np.int64)
    u_sum = u.sum()
    i_max = i.max()
    return u, i, wrapped_add, wrapped_sub, neg, mul, widened, as_float, stays_u8, py_scalar, \
        counts, u_sum, i_max


def _make_small(rng):
    return numpy.array([0, 1, 100, 127, 128, 200, 255, 300, -1, -128]),


def float_precision(np, x):
    """float32 stays float32 with Python floats, mixes to float64 with
    float64 arrays, accumulates in float32; casts truncate toward zero;
    np.round is half-to-even; floor/ceil keep the float dtype."""
    f = x.astype(np.float32)
    scaled = f * 0.1 + 1
    mixed = f + x
    f_sum = f.sum()
    f_mean = np.mean(f)
    eps32 = np.float32(1) + np.finfo(np.float32).eps / 4
    trunc = (x * 2.5).astype(int)
    rounded = np.round(x * 2.5)
    rounded2 = np.round(x * 0.37, 2)
    floor = np.floor(f)
    ceil = np.ceil(x)
    rint = np.rint(f + 0.5)
    tiny = np.float32(1e-8) + f[0]
    sqrt_int = np.sqrt(np.arange(5))
    f16 = x.astype(np.float16) * 1000
    return f, scaled, mixed, f_sum, f_mean, eps32, trunc, rounded, rounded2, floor, ceil, rint, \
        tiny, sqrt_int, f16


def _make_floats(rng):
    return numpy.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.7, -3.7, 10.0, 7.3]),


def conversions(np, x):
    """astype round trips, boolean arithmetic, np.clip on ints with float
    bounds, complex numbers, np.asarray on lists, np.array(..., dtype=...)
    and np.full / np.arange dtype inference."""
    b = x > 0
    as_int = b.astype(int) + b
    bool_and = b & (x < 2)
    clipped = np.clip(x.astype(np.int16), -1, 1)
    c = x + 1j * x[::-1]
    mag = np.abs(c)
    conj = np.conj(c) * c
    from_list = np.asarray([1, 2, 3]) * x[:3]
    explicit = np.array([1.5, 2.5], dtype=np.float32) + np.float32(1)
    fill = np.full(3, 7) // 2
    ar = np.arange(0, 1, 0.25, dtype=np.float32)
    bits = np.arange(8, dtype=np.uint8) << 5
    isfin = np.isfinite(np.array([1.0, np.inf, np.nan]) * x[:3])
    return b, as_int, bool_and, clipped, c, mag, conj, from_list, explicit, fill, ar, bits, isfin


CASES = [
    Case("integer_arithmetic", integer_arithmetic, _make_ints),
    Case("small_ints", small_ints, _make_small),
    Case("float_precision", float_precision, _make_floats),
    Case("conversions", conversions, _make_floats),
]

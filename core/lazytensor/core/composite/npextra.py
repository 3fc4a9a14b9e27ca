"""numpy-style elementwise semantics written only in core ops, shared by the
numpy and tf.experimental.numpy frontends.

Every function takes operands that already share one shape and one dtype (the
ufunc's loop dtype, chosen by the frontend's promotion policy) and returns a
Node. The rules follow numpy 2: floor division and modulo take the sign of
the divisor, integer division by zero gives 0, NaN compares unequal, complex
numbers order lexicographically, ``isnan`` of an integer is False.

>>> import numpy as np
>>> from lazytensor.core.runtime import constant
>>> a = constant(np.array([-7, 7]), np.dtype("int32"))
>>> b = constant(np.array([2, -2]), np.dtype("int32"))
>>> floor_divide(a, b).dtype, floor_divide(a, b).shape
(dtype('int32'), (2,))
"""

from __future__ import annotations

import math

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import as_node, convert
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make

_SIGNED_OF = {1: dt.int8, 2: dt.int16, 4: dt.int32, 8: dt.int64}


def const(value, like: Node) -> Node:
    """A scalar parameter of ``like``'s dtype broadcast to its shape."""
    return as_node(value, like.dtype, like.shape)


def _sel(pred: Node, a: Node, b: Node) -> Node:
    return make(Op.SELECT, (pred, a, b))


def _not(x: Node) -> Node:
    return make(Op.NOT, (x,))


def _and(a: Node, b: Node) -> Node:
    return make(Op.AND, (a, b))


def _or(a: Node, b: Node) -> Node:
    return make(Op.OR, (a, b))


def _bool_full(x: Node, value: bool) -> Node:
    return as_node(value, dt.bool_, x.shape)


# ---------------------------------------------------------------- predicates

def isnan(x: Node) -> Node:
    """bool, same shape; False for integers and bools."""
    if dt.is_complex(x.dtype):
        return _or(isnan(make(Op.REAL, (x,))), isnan(make(Op.IMAG, (x,))))
    if not dt.is_inexact(x.dtype):
        return _bool_full(x, False)
    return make(Op.NE, (x, x))


def isinf(x: Node) -> Node:
    """bool, same shape: +-inf (either part, for complex)."""
    if dt.is_complex(x.dtype):
        return _or(isinf(make(Op.REAL, (x,))), isinf(make(Op.IMAG, (x,))))
    if not dt.is_inexact(x.dtype):
        return _bool_full(x, False)
    return make(Op.EQ, (make(Op.ABS, (x,)), const(math.inf, x)))


def isfinite(x: Node) -> Node:
    """bool, same shape: neither inf nor NaN (both parts, for complex)."""
    if dt.is_complex(x.dtype):
        return _and(isfinite(make(Op.REAL, (x,))), isfinite(make(Op.IMAG, (x,))))
    if not dt.is_inexact(x.dtype):
        return _bool_full(x, True)
    return make(Op.IS_FINITE, (x,))


def _is_inf(sign: float):
    def test(x: Node) -> Node:
        if not dt.is_inexact(x.dtype):
            return _bool_full(x, False)
        return make(Op.EQ, (x, const(sign * math.inf, x)))

    return test


isposinf = _is_inf(1.0)  # bool, same shape: x == +inf (False for integers)
isneginf = _is_inf(-1.0)  # bool, same shape: x == -inf


def _imag_test(op: Op, real_answer: bool):
    def test(x: Node) -> Node:
        if not dt.is_complex(x.dtype):
            return _bool_full(x, real_answer)
        imag = make(Op.IMAG, (x,))
        return make(op, (imag, const(0.0, imag)))

    return test


iscomplex = _imag_test(Op.NE, False)  # bool, same shape: a nonzero imaginary part
isreal = _imag_test(Op.EQ, True)  # bool, same shape: a zero imaginary part


def signbit(x: Node) -> Node:
    """bool: the sign bit is set (-0.0 and -nan included)."""
    if not dt.is_float(x.dtype):
        return make(Op.LT, (x, const(0, x))) if x.dtype.kind == "i" else _bool_full(x, False)
    bits = make(Op.BITCAST_CONVERT, (x,), _SIGNED_OF[x.dtype.itemsize])
    return make(Op.LT, (bits, const(0, bits)))


def copysign(a: Node, b: Node) -> Node:
    """|a| with the sign bit of b (floats)."""
    mag = make(Op.ABS, (a,))
    return _sel(signbit(b), make(Op.NEG, (mag,)), mag)


# ------------------------------------------------------------------ rounding

def _int_identity(op: Op):
    def rounded(x: Node) -> Node:
        return x if not dt.is_inexact(x.dtype) else make(op, (x,))

    return rounded


floor = _int_identity(Op.FLOOR)
ceil = _int_identity(Op.CEIL)
_rint_real = _int_identity(Op.ROUND_EVEN)


def rint(x: Node) -> Node:
    """Round half to even (complex: each part)."""
    if dt.is_complex(x.dtype):
        parts = (_rint_real(make(Op.REAL, (x,))), _rint_real(make(Op.IMAG, (x,))))
        return make(Op.COMPLEX, parts)
    return _rint_real(x)


def trunc(x: Node) -> Node:
    """Round toward zero (integers unchanged)."""
    if not dt.is_inexact(x.dtype):
        return x
    return _sel(make(Op.LT, (x, const(0, x))), make(Op.CEIL, (x,)), make(Op.FLOOR, (x,)))


def modf(x: Node) -> tuple[Node, Node]:
    """(fractional, integral) parts, both with x's sign; modf(inf) = (0, inf)."""
    whole = trunc(x)
    frac = make(Op.SUB, (x, whole))
    frac = _sel(isinf(x), copysign(const(0.0, x), x), frac)
    return frac, whole


# ---------------------------------------------------------- division, modulo

def _int_divmod(a: Node, b: Node) -> tuple[Node, Node]:
    zero = make(Op.EQ, (b, const(0, b)))
    safe = _sel(zero, const(1, b), b)
    q = make(Op.DIV, (a, safe))
    r = make(Op.REM, (a, safe))
    if a.dtype.kind == "i":  # C truncation -> floor: step down when signs differ
        fix = _and(make(Op.NE, (r, const(0, r))),
                   make(Op.NE, (make(Op.LT, (r, const(0, r))), make(Op.LT, (b, const(0, b))))))
        q = _sel(fix, make(Op.SUB, (q, const(1, q))), q)
        r = _sel(fix, make(Op.ADD, (r, b)), r)
    return _sel(zero, const(0, q), q), _sel(zero, const(0, r), r)


def _float_divmod(a: Node, b: Node) -> tuple[Node, Node]:
    """numpy's npy_divmod: fmod, then Python's sign convention, then snap."""
    mod = make(Op.REM, (a, b))
    div = make(Op.DIV, (make(Op.SUB, (a, mod)), b))
    zero, one = const(0.0, a), const(1.0, a)
    fix = _and(make(Op.NE, (mod, zero)),
               make(Op.NE, (make(Op.LT, (b, zero)), make(Op.LT, (mod, zero)))))
    mod = _sel(fix, make(Op.ADD, (mod, b)), _sel(make(Op.EQ, (mod, zero)),
                                                    copysign(zero, b), mod))
    div = _sel(fix, make(Op.SUB, (div, one)), div)
    floored = make(Op.FLOOR, (div,))
    up = make(Op.GT, (make(Op.SUB, (div, floored)), const(0.5, a)))
    floored = _sel(up, make(Op.ADD, (floored, one)), floored)
    quotient = make(Op.DIV, (a, b))
    floored = _sel(make(Op.EQ, (div, zero)), copysign(zero, quotient), floored)
    b_zero = make(Op.EQ, (b, zero))
    return _sel(b_zero, quotient, floored), _sel(b_zero, make(Op.REM, (a, b)), mod)


def divmod_(a: Node, b: Node) -> tuple[Node, Node]:
    """(floor_divide, remainder) with numpy's signs (remainder has b's sign)."""
    if dt.is_inexact(a.dtype):
        return _float_divmod(a, b)
    if dt.is_bool(a.dtype):
        a, b = convert(a, dt.int8), convert(b, dt.int8)
    return _int_divmod(a, b)


def floor_divide(a: Node, b: Node) -> Node:
    """a // b rounded toward -inf; integer x // 0 is 0, float x // 0 is x / 0."""
    return divmod_(a, b)[0]


def remainder(a: Node, b: Node) -> Node:
    """a % b with the sign of b; integer x % 0 is 0, float x % 0 is NaN."""
    return divmod_(a, b)[1]


def fmod(a: Node, b: Node) -> Node:
    """C fmod: the sign of a; integer x fmod 0 is 0."""
    if dt.is_inexact(a.dtype):
        return make(Op.REM, (a, b))
    zero = make(Op.EQ, (b, const(0, b)))
    r = make(Op.REM, (a, _sel(zero, const(1, b), b)))
    return _sel(zero, const(0, r), r)


def true_divide(a: Node, b: Node) -> Node:
    return make(Op.DIV, (a, b))


def reciprocal(x: Node) -> Node:
    """1 / x (integers: truncating, 1 / 0 gives 0)."""
    if dt.is_inexact(x.dtype):
        return make(Op.DIV, (const(1, x), x))
    return fmod_quotient(const(1, x), x)


def fmod_quotient(a: Node, b: Node) -> Node:
    """Truncating integer division with x / 0 = 0."""
    zero = make(Op.EQ, (b, const(0, b)))
    q = make(Op.DIV, (a, _sel(zero, const(1, b), b)))
    return _sel(zero, const(0, q), q)


# ------------------------------------------------------------- order, extrema

def _complex_order(strict: bool):
    def compare(a: Node, b: Node) -> Node:
        ra, rb = make(Op.REAL, (a,)), make(Op.REAL, (b,))
        ia, ib = make(Op.IMAG, (a,)), make(Op.IMAG, (b,))
        tie = make(Op.LT if strict else Op.LE, (ia, ib))
        ordered = _or(make(Op.LT, (ra, rb)), _and(make(Op.EQ, (ra, rb)), tie))
        return _and(ordered, _not(_or(isnan(a), isnan(b))))  # a NaN part: unordered

    return compare


_COMPLEX_COMPARE = {
    Op.LT: lambda a, b: _complex_order(True)(a, b),
    Op.LE: lambda a, b: _complex_order(False)(a, b),
    Op.GT: lambda a, b: _complex_order(True)(b, a),
    Op.GE: lambda a, b: _complex_order(False)(b, a),
}


def compare(op: Op, a: Node, b: Node) -> Node:
    """A comparison; complex operands order lexicographically, as in numpy."""
    if dt.is_complex(a.dtype) and op in _COMPLEX_COMPARE:
        return _COMPLEX_COMPARE[op](a, b)
    return make(op, (a, b))


def _extremum(op: Op, keep_first: Op):
    def pick(a: Node, b: Node) -> Node:
        if dt.is_complex(a.dtype):
            return _sel(_or(compare(keep_first, a, b), isnan(a)), a, b)
        return make(op, (a, b))  # XLA's max/min propagate NaN, as numpy's do

    return pick


maximum = _extremum(Op.MAX, Op.GE)
minimum = _extremum(Op.MIN, Op.LE)


def _nan_ignoring(pick):
    def f(a: Node, b: Node) -> Node:
        out = pick(a, b)
        if not dt.is_inexact(a.dtype):
            return out
        return _sel(isnan(a), b, _sel(isnan(b), a, out))

    return f


fmax = _nan_ignoring(maximum)
fmin = _nan_ignoring(minimum)


# -------------------------------------------------------------- float maths

def logaddexp(a: Node, b: Node) -> Node:
    """log(exp(a) + exp(b)) without overflow; equal infinities stay put."""
    return _logaddexp(a, b, Op.EXP, Op.LOG1P, math.log(2.0), 1.0)


def logaddexp2(a: Node, b: Node) -> Node:
    """log2(2**a + 2**b) without overflow."""
    return _logaddexp(a, b, Op.EXP2, None, 1.0, 1.0 / math.log(2.0))


def _logaddexp(a: Node, b: Node, exp: Op, log1p: Op | None, tie: float, scale: float) -> Node:
    peak = make(Op.MAX, (a, b))
    gap = make(Op.NEG, (make(Op.ABS, (make(Op.SUB, (a, b)),)),))
    e = make(exp, (gap,))
    if log1p is not None:
        tail = make(log1p, (e,))
    else:  # log2(1 + e) = log1p(e) / ln 2
        tail = make(Op.MUL, (make(Op.LOG1P, (e,)), const(scale, e)))
    out = make(Op.ADD, (peak, tail))
    out = _sel(make(Op.EQ, (a, b)), make(Op.ADD, (a, const(tie, a))), out)
    return _sel(isnan(a), a, _sel(isnan(b), b, out))


def hypot(a: Node, b: Node) -> Node:
    """sqrt(a*a + b*b) scaled to avoid overflow; inf beats NaN."""
    aa, bb = make(Op.ABS, (a,)), make(Op.ABS, (b,))
    hi, lo = make(Op.MAX, (aa, bb)), make(Op.MIN, (aa, bb))
    zero = make(Op.EQ, (hi, const(0.0, hi)))
    ratio = make(Op.DIV, (lo, _sel(zero, const(1.0, hi), hi)))
    root = make(Op.SQRT, (make(Op.ADD, (const(1.0, hi), make(Op.MUL, (ratio, ratio)))),))
    out = _sel(zero, const(0.0, hi), make(Op.MUL, (hi, root)))
    out = _sel(_or(isnan(a), isnan(b)), const(math.nan, hi), out)
    return _sel(_or(isinf(a), isinf(b)), const(math.inf, hi), out)


def heaviside(x: Node, h0: Node, keep_nan: bool = True) -> Node:
    """0 for x < 0, h0 for x == 0, 1 for x > 0, NaN for NaN (numpy's; h0
    without ``keep_nan``, as tf.experimental.numpy's ``where`` chain gives)."""
    out = _sel(make(Op.LT, (x, const(0, x))), const(0.0, x),
               _sel(make(Op.GT, (x, const(0, x))), const(1.0, x), h0))
    return _sel(isnan(x), x, out) if keep_nan else out


def _log_base(base: float):
    def log(x: Node) -> Node:
        ln = make(Op.LOG, (x,))
        if not dt.is_complex(x.dtype):
            return make(Op.DIV, (ln, const(math.log(base), x)))
        # each part divided by the real ln(base), as numpy and C++'s complex / real:
        # a complex division would make log2(0j) = (-inf + 0j) / ln 2 -inf + nanj
        re, im = make(Op.REAL, (ln,)), make(Op.IMAG, (ln,))
        scale = const(math.log(base), re)
        return make(Op.COMPLEX, (make(Op.DIV, (re, scale)), make(Op.DIV, (im, scale))))

    return log


log2 = _log_base(2.0)
log10 = _log_base(10.0)


def _scaled(factor: float):
    def scale(x: Node) -> Node:
        return make(Op.MUL, (x, const(factor, x)))

    return scale


deg2rad = _scaled(math.pi / 180.0)
rad2deg = _scaled(180.0 / math.pi)


def square(x: Node) -> Node:
    return make(Op.MUL, (x, x))


def ldexp(x: Node, exponent: Node) -> Node:
    """x * 2**exponent (exponent an integer array), exact as C's ldexp
    where the result is normal: four multiplications by powers of two built
    from their bits (EXP2 is not exact; one power alone would overflow).
    Exponents beyond any finite result are clamped first."""
    info = dt.finfo(x.dtype)
    bias, nmant = info.maxexp - 1, info.nmant
    ints = {2: dt.int16, 4: dt.int32, 8: dt.int64}[x.dtype.itemsize]
    limit = 2 * bias + nmant + 2  # |exponent| past this: 0 or inf whatever x is
    e = make(Op.CLAMP, (as_node(-limit, exponent.dtype, exponent.shape), exponent,
                        as_node(limit, exponent.dtype, exponent.shape)))
    e = convert(e, ints)
    quarter = make(Op.SHIFT_RIGHT_ARITHMETIC, (e, as_node(2, ints, e.shape)))  # floor(e / 4)
    rest = make(Op.SUB, (e, make(Op.MUL, (quarter, as_node(3, ints, e.shape)))))

    def power_of_two(k: Node) -> Node:  # k in [1 - bias, bias]
        field = make(Op.ADD, (k, as_node(bias, ints, k.shape)))
        return make(Op.BITCAST_CONVERT, (make(Op.SHIFT_LEFT, (field, as_node(
            nmant, ints, k.shape))),), x.dtype)

    step = power_of_two(quarter)
    out = x
    for factor in (step, step, step, power_of_two(rest)):
        out = make(Op.MUL, (out, factor))
    return out


def frexp(x: Node, exponent_dtype: np.dtype = dt.int32) -> tuple[Node, Node]:
    """Mantissa (x's sign, |m| in [0.5, 1)) and integer exponent with
    x = m * 2**e, read from the bits, so exact for subnormals too (C's
    frexp, as numpy and torch); 0, inf and NaN give (x, 0).

    >>> from lazytensor.core.runtime import constant
    >>> m, e = frexp(constant(np.array([8.0, -0.75]), np.dtype("float32")))
    >>> m.dtype, e.dtype
    (dtype('float32'), dtype('int32'))
    """
    info = dt.finfo(x.dtype)
    nbits, nmant = x.dtype.itemsize * 8, info.nmant
    bias = info.maxexp - 1
    ints = {16: dt.int16, 32: dt.int32, 64: dt.int64}[nbits]

    def c(v):
        return as_node(v, ints, x.shape)

    raw = make(Op.BITCAST_CONVERT, (x,), ints)
    bits = make(Op.AND, (raw, c((1 << (nbits - 1)) - 1)))  # |x|, compared as bits: XLA's
    field = make(Op.SHIFT_RIGHT_LOGICAL, (bits, c(nmant)))  # CPU float compares flush
    frac = make(Op.AND, (bits, c((1 << nmant) - 1)))        # subnormals to zero
    # a subnormal's top set bit p (frac in [2**p, 2**(p+1))) becomes the implicit bit
    top = make(Op.SUB, (c(nbits - 1), make(Op.CLZ, (frac,))))
    subnormal = make(Op.EQ, (field, c(0)))
    frac = make(Op.SELECT, (subnormal, make(Op.AND, (make(
        Op.SHIFT_LEFT, (frac, make(Op.SUB, (c(nmant), top)))), c((1 << nmant) - 1))), frac))
    exponent = make(Op.SELECT, (subnormal, make(Op.ADD, (top, c(2 - bias - nmant))),
                                make(Op.SUB, (field, c(bias - 1)))))
    mantissa = make(Op.BITCAST_CONVERT, (make(Op.OR, (frac, c((bias - 1) << nmant))),),
                    x.dtype)
    mantissa = make(Op.SELECT, (make(Op.LT, (raw, c(0))), make(Op.NEG, (mantissa,)), mantissa))
    special = make(Op.OR, (make(Op.EQ, (bits, c(0))),  # 0, inf, NaN
                           make(Op.EQ, (field, c((1 << (nbits - 1 - nmant)) - 1)))))
    return (make(Op.SELECT, (special, x, mantissa)),
            make(Op.SELECT, (special, as_node(0, exponent_dtype, x.shape),
                             convert(exponent, exponent_dtype))))


def float_power(a: Node, b: Node) -> Node:
    return make(Op.POW, (a, b))


# ------------------------------------------------------- signs, ints, logic

def absolute(x: Node) -> Node:
    """|x|; unsigned and bool unchanged; complex -> real magnitude, +inf when
    either part is infinite even if the other is NaN (C99's hypot, as numpy,
    torch and TF give; XLA's complex abs gives NaN there)."""
    if x.dtype.kind in "ub":
        return x
    out = make(Op.ABS, (x,))
    if dt.is_complex(x.dtype):
        out = _sel(isinf(x), const(math.inf, out), out)
    return out


def sign(x: Node) -> Node:
    """-1, 0, 1 (NaN stays NaN; complex: x / |x|); the sign of -0.0 is +0.0
    (numpy's, torch's and TF's; XLA's sign keeps -0.0)."""
    if x.dtype.kind == "u":
        return convert(make(Op.NE, (x, const(0, x))), x.dtype)
    out = make(Op.SIGN, (x,))
    if dt.is_float(x.dtype):
        out = _sel(make(Op.EQ, (x, const(0, x))), const(0, x), out)
    return out


def right_shift(a: Node, b: Node) -> Node:
    """Arithmetic for signed, logical for unsigned integers."""
    op = Op.SHIFT_RIGHT_ARITHMETIC if a.dtype.kind == "i" else Op.SHIFT_RIGHT_LOGICAL
    return make(op, (a, b))


def bitwise_count(x: Node) -> Node:
    """Set bits of |x|, as uint8."""
    if dt.is_bool(x.dtype):
        return convert(x, dt.uint8)
    return convert(make(Op.POPCNT, (absolute(x),)), dt.uint8)


def truthy(x: Node) -> Node:
    """x != 0 as bool (NaN is true)."""
    return x if dt.is_bool(x.dtype) else make(Op.NE, (x, const(0, x)))


def logical(op: Op):
    """logical_and/or/xor: operands compared with zero first."""
    def f(a: Node, b: Node) -> Node:
        return make(op, (truthy(a), truthy(b)))

    return f


def logical_not(x: Node) -> Node:
    return _not(truthy(x))


def add_or(a: Node, b: Node) -> Node:
    """numpy adds bools with logical or."""
    return make(Op.OR if dt.is_bool(a.dtype) else Op.ADD, (a, b))


def mul_and(a: Node, b: Node) -> Node:
    """numpy multiplies bools with logical and."""
    return make(Op.AND if dt.is_bool(a.dtype) else Op.MUL, (a, b))


def power(a: Node, b: Node) -> Node:
    """a ** b (bool operands use int8 arithmetic, as numpy's loops do)."""
    return make(Op.POW, (a, b))


# ------------------------------------------------------------ whole-array

def nan_to_num(x: Node, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Node:
    """NaN -> nan, +inf -> posinf (default: the dtype's max), -inf -> neginf."""
    if dt.is_complex(x.dtype):
        re = nan_to_num(make(Op.REAL, (x,)), nan, posinf, neginf)
        im = nan_to_num(make(Op.IMAG, (x,)), nan, posinf, neginf)
        return make(Op.COMPLEX, (re, im))
    if not dt.is_inexact(x.dtype):
        return x
    info = dt.finfo(x.dtype)
    hi = float(info.max) if posinf is None else posinf
    lo = float(info.min) if neginf is None else neginf
    out = _sel(isnan(x), const(nan, x), x)
    out = _sel(make(Op.EQ, (x, const(math.inf, x))), const(hi, x), out)
    return _sel(make(Op.EQ, (x, const(-math.inf, x))), const(lo, x), out)


def isclose(a: Node, b: Node, rtol: float, atol: float, equal_nan: bool) -> Node:
    """|a - b| <= atol + rtol * |b| (infinities equal only to themselves)."""
    if not dt.is_inexact(a.dtype):
        a, b = convert(a, dt.float64), convert(b, dt.float64)
    diff = make(Op.ABS, (make(Op.SUB, (a, b)),))
    bound = make(Op.ADD, (const(atol, diff), make(Op.MUL, (const(rtol, diff),
                                                           make(Op.ABS, (b,))))))
    close = _and(make(Op.LE, (diff, bound)), _and(isfinite(a), isfinite(b)))
    close = _or(close, make(Op.EQ, (a, b)))
    if equal_nan:
        close = _or(close, _and(isnan(a), isnan(b)))
    return close


def identity_of(dtype: np.dtype, kind: str):
    """The identity of a reduction ``kind`` ('max', 'min', ...) in ``dtype``."""
    if kind in ("sum", "any"):
        return 0 if not dt.is_bool(dtype) else False
    if kind in ("prod", "all"):
        return 1 if not dt.is_bool(dtype) else True
    if kind == "logsumexp":  # log(0)
        return -math.inf
    if kind in ("bitwise_or", "bitwise_xor", "logical_xor"):
        return 0 if not dt.is_bool(dtype) else False
    if kind == "bitwise_and":  # every bit set
        return True if dt.is_bool(dtype) else int(dt.iinfo(dtype).max) if dt.is_unsigned(
            dtype) else -1
    if dt.is_bool(dtype):
        return kind == "min"
    if dt.is_int(dtype):
        info = dt.iinfo(dtype)
        return int(info.min) if kind == "max" else int(info.max)
    return -math.inf if kind == "max" else math.inf


def _round_int(x: Node, scale: int) -> Node:
    """x rounded to a multiple of ``scale``, ties to even, in integers (exact
    where numpy divides in float64). A scale past the dtype's range gives 0,
    or +-scale wrapped where |x| passes half of it."""
    info = dt.iinfo(x.dtype)
    if scale > info.max:
        half = scale // 2
        if half >= info.max:
            return const(0, x)
        wrap = 1 << info.bits
        up, down = (const((v + wrap // 2) % wrap - wrap // 2 if info.min else v % wrap, x)
                    for v in (scale, -scale))
        big = _sel(make(Op.GT, (x, const(half, x))), up, const(0, x))
        return big if not info.min else _sel(make(Op.LT, (x, const(-half, x))), down, big)
    s = const(scale, x)
    q = floor_divide(x, s)
    r = make(Op.SUB, (x, make(Op.MUL, (q, s))))  # in [0, scale)
    rest = make(Op.SUB, (s, r))
    odd = make(Op.NE, (remainder(q, const(2, q)), const(0, q)))
    up = _or(make(Op.GT, (r, rest)), _and(make(Op.EQ, (r, rest)), odd))
    return make(Op.MUL, (_sel(up, make(Op.ADD, (q, const(1, q))), q), s))


def round_decimals(x: Node, decimals: int = 0) -> Node:
    """Round half to even at ``decimals`` digits (numpy's ``round``, torch's
    ``round(decimals=)``): floats scale by 10**|decimals|; integers are kept,
    or with negative ``decimals`` round to tens, hundreds... (ties to even,
    results wrapping in x's dtype as numpy's cast back does); complex rounds
    both parts. Shape and dtype of x.

    >>> from lazytensor.core.runtime import constant
    >>> round_decimals(constant(np.array([1.25, 2.5]), np.dtype("float64")), 1).shape
    (2,)
    """
    if not dt.is_inexact(x.dtype):
        return x if decimals >= 0 else _round_int(x, 10 ** (-decimals))
    if dt.is_complex(x.dtype):
        re = round_decimals(make(Op.REAL, (x,)), decimals)
        im = round_decimals(make(Op.IMAG, (x,)), decimals)
        return make(Op.COMPLEX, (re, im))
    if decimals == 0:
        return make(Op.ROUND_EVEN, (x,))
    factor = const(10.0 ** abs(decimals), x)
    scaled = make(Op.MUL if decimals > 0 else Op.DIV, (x, factor))
    rounded = make(Op.ROUND_EVEN, (scaled,))
    return make(Op.DIV if decimals > 0 else Op.MUL, (rounded, factor))


def angle(x: Node, deg: bool = False, by_sign: bool = False, keep_nan: bool = True) -> Node:
    """The argument of complex x, atan2(imag, real); of real (inexact) x,
    atan2(0, x): pi for negatives (and -0.0), 0 otherwise, NaN for NaN
    (numpy's ``angle``). With ``by_sign`` real x gives pi where x < 0, else
    0 (-0.0 gives 0: torch's and tf.experimental.numpy's), and NaN stays
    NaN unless ``keep_nan`` is False (tnp's 0). In degrees with ``deg``.
    Real dtype of x.

    >>> from lazytensor.core.runtime import constant
    >>> angle(constant(np.array([-1.0, 0.0]), np.dtype("float32")), deg=True).dtype
    dtype('float32')
    """
    if dt.is_complex(x.dtype):
        out = make(Op.ATAN2, (make(Op.IMAG, (x,)), make(Op.REAL, (x,))))
    elif by_sign:
        out = _sel(make(Op.LT, (x, const(0, x))), const(math.pi, x), const(0, x))
        out = _sel(isnan(x), x, out) if keep_nan else out
    else:
        out = make(Op.ATAN2, (const(0.0, x), x))
    return rad2deg(out) if deg else out

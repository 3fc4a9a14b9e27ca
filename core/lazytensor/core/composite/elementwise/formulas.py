"""Elementwise composites written once for every frontend: rounding to
decimals, fractional part, infinity tests, complex argument, logit, xlogy,
linear interpolation, fused multiply/divide-add, Bessel functions from their
scaled forms, the normal quantile, truncating division and saturating
casts. Operands already share a dtype and shape (the frontend promoted
them); user numbers (weights, scales, epsilons) become scalar parameters,
so changing them never recompiles.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.array([0.25, 1.5]), np.dtype("float32"))
>>> round_to(x, 1).shape, lerp(x, x, 0.3).dtype
((2,), dtype('float32'))
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply, ordering, predicates
from lazytensor.core.composite.elementwise import rounding as rounding
from lazytensor.core.composite.elementwise.apply import as_node, convert, full
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


def _p(value, like: Node) -> Node:
    return as_node(value, like.dtype, like.shape)


def frac(x: Node) -> Node:
    """x - trunc(x)."""
    return make(Op.SUB, (x, rounding.trunc(x)))


def round_to(x: Node, decimals: int = 0) -> Node:
    """Round half to even at ``decimals`` digits (integers unchanged)."""
    if not dt.is_inexact(x.dtype):
        return x
    if decimals == 0:
        return make(Op.ROUND_EVEN, (x,))
    scale = _p(10.0 ** decimals, x)
    return make(Op.DIV, (make(Op.ROUND_EVEN, (make(Op.MUL, (x, scale)),)), scale))


def _is_inf(sign: float) -> Callable[[Node], Node]:
    def test(x: Node) -> Node:
        if not dt.is_inexact(x.dtype):
            return as_node(False, dt.bool_, x.shape)
        return make(Op.EQ, (x, _p(sign * math.inf, x)))

    return test


isposinf = _is_inf(1.0)
isneginf = _is_inf(-1.0)


def logit(x: Node, eps: float | None = None) -> Node:
    """log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given."""
    if eps is not None:
        x = make(Op.CLAMP, (_p(eps, x), x, _p(1.0 - eps, x)))
    return make(Op.LOG, (make(Op.DIV, (x, make(Op.SUB, (_p(1.0, x), x)))),))


def xlogy(x: Node, y: Node) -> Node:
    """x * log(y), 0 where x == 0, NaN where y is NaN."""
    out = make(Op.MUL, (x, make(Op.LOG, (y,))))
    zero = make(Op.EQ, (x, _p(0, x)))
    out = make(Op.SELECT, (zero, _p(0.0, x), out))
    return make(Op.SELECT, (predicates.isnan(y), y, out))


def lerp(start: Node, end: Node, weight: float) -> Node:
    """start + weight * (end - start), computed from the nearer end (the
    two-sided formula, side chosen statically by ``weight``)."""
    diff = make(Op.SUB, (end, start))
    if abs(weight) < 0.5:
        return make(Op.ADD, (start, make(Op.MUL, (_p(weight, start), diff))))
    return make(Op.ADD, (end, make(Op.MUL, (_p(weight - 1.0, start), diff))))


def lerp_tensor(start: Node, end: Node, weight: Node) -> Node:
    """``lerp`` with a weight array: the side is chosen per element."""
    diff = make(Op.SUB, (end, start))
    mag = make(Op.ABS, (weight,))  # (real for a complex weight)
    low = make(Op.LT, (mag, _p(0.5, mag)))
    a = make(Op.ADD, (start, make(Op.MUL, (weight, diff))))
    b = make(Op.ADD, (end, make(Op.MUL, (make(Op.SUB, (weight, _p(1.0, weight))), diff))))
    return make(Op.SELECT, (low, a, b))


def addcmul(s: Node, a: Node, b: Node, value=1) -> Node:
    """s + value * a * b."""
    prod = make(Op.MUL, (a, b))
    if value != 1:
        prod = make(Op.MUL, (_p(value, s), prod))
    return make(Op.ADD, (s, prod))


def addcdiv(s: Node, a: Node, b: Node, value=1) -> Node:
    """s + value * a / b."""
    quotient = make(Op.DIV, (a, b))
    if value != 1:
        quotient = make(Op.MUL, (_p(value, s), quotient))
    return make(Op.ADD, (s, quotient))


def unscaled(scaled: Op) -> Callable[[Node], Node]:
    """i0/i1 from the exponentially scaled Bessel functions: f(x) * exp(|x|)."""
    return lambda x: make(Op.MUL, (make(scaled, (x,)), make(Op.EXP, (make(Op.ABS, (x,)),))))


bessel_i0 = unscaled(Op.BESSEL_I0E)
bessel_i1 = unscaled(Op.BESSEL_I1E)


def ndtri(p: Node) -> Node:
    """The standard normal quantile: sqrt(2) * erfinv(2p - 1)."""
    two_p = make(Op.MUL, (p, _p(2.0, p)))
    inner = make(Op.SUB, (two_p, _p(1.0, p)))
    return make(Op.MUL, (make(Op.ERF_INV, (inner,)), _p(math.sqrt(2.0), p)))


def clamp(x: Node, lo: Node | None, hi: Node | None) -> Node:
    """max(x, lo) then min(., hi), NaN-propagating; a missing bound is skipped."""
    if lo is not None:
        x = ordering.maximum(x, lo)
    if hi is not None:
        x = ordering.minimum(x, hi)
    return x


def trunc_divide(x: Node, y: Node) -> Node:
    """C division, rounding toward zero: integers divide exactly so (the
    DIV op's rule), floats take trunc(x / y) (torch's rounding_mode="trunc",
    TensorFlow's truncatediv)."""
    return rounding.trunc(make(Op.DIV, (x, y)))


def saturate_cast(x: Node, dtype: np.dtype) -> Node:
    """``x`` cast to the integer ``dtype`` after clamping into its range
    (where x's range is wider); floating, bool and complex casts are plain.
    A float bound that rounds past the range (int64's max in float32) steps
    back to the nearest float inside it.

    >>> from lazytensor.core.leaves import constant
    >>> saturate_cast(constant(np.array([300.0, -5.0]), dt.float32), dt.uint8).dtype
    dtype('uint8')
    """
    if dt.is_inexact(dtype) or dt.is_bool(dtype) or dt.is_complex(x.dtype):
        return convert(x, dtype)
    info = dt.iinfo(dtype)
    source = dt.finfo(x.dtype) if dt.is_float(x.dtype) else dt.iinfo(x.dtype)
    if source.min < info.min:
        x = make(Op.MAX, (x, apply.const(info.min, x)))
    if source.max > info.max:
        hi = np.asarray(info.max).astype(x.dtype)
        if dt.is_float(x.dtype) and hi > info.max:  # int64 max rounds up in floats
            hi = np.nextafter(hi, x.dtype.type(0))
        x = make(Op.MIN, (x, apply.const(hi.item(), x)))
    return convert(x, dtype)


def unless_zero(test: Node, out: Node) -> Node:
    """``out``, but 0 where ``test`` (of out's shape) is zero: a zero operand
    wins over the inf or NaN that ``out`` may hold there (TensorFlow's
    xdivy, xlog1py, div_no_nan, multiply_no_nan, reciprocal_no_nan)."""
    zero = apply.const(0, out)
    return make(Op.SELECT, (make(Op.EQ, (convert(test, out.dtype), zero)), zero, out))


def spherical_bessel_j0(x: Node) -> Node:
    """The spherical Bessel function j0 (torch.special, tf.math.special):
    sin(x) / x; near 0 its Taylor series sum((-1)^k x^2k / (2k+1)!) in
    Horner form (|x| < 0.5, seven terms), 0 at +-inf."""
    def c(value) -> Node:
        return as_node(value, x.dtype, x.shape)

    x2 = make(Op.MUL, (x, x))
    series = c(1.0 / math.factorial(13))
    for k in range(5, -1, -1):
        term = c((-1) ** k / math.factorial(2 * k + 1))
        series = make(Op.ADD, (term, make(Op.MUL, (x2, series))))
    small = make(Op.LT, (make(Op.ABS, (x,)), c(0.5)))
    safe = make(Op.SELECT, (small, c(1.0), x))
    ratio = make(Op.DIV, (make(Op.SIN, (safe,)), safe))
    out = make(Op.SELECT, (small, series, ratio))
    return make(Op.SELECT, (predicates.isinf(x), c(0.0), out))


def erfcx(x: Node) -> Node:
    """The scaled complementary error function exp(x^2) * erfc(x)
    (torch.special.erfcx, scipy.special.erfcx), evaluated in float64: the
    product directly below 25 (erfc is normal there), above it the
    asymptotic series 1/(x sqrt(pi)) * sum((-1)^k (2k-1)!! / (2x^2)^k),
    eight terms (below float64's epsilon at 25); inf -> 0, NaN stays NaN.

    >>> from lazytensor.core.leaves import constant
    >>> erfcx(constant(np.array([0.0, 30.0]), np.dtype("float32"))).dtype
    dtype('float32')
    """
    wide = convert(x, dt.float64)

    def c(value) -> Node:
        return as_node(value, dt.float64, x.shape)

    direct = make(Op.MUL, (make(Op.EXP, (make(Op.MUL, (wide, wide)),)), make(Op.ERFC, (wide,))))
    far = make(Op.GE, (wide, c(25.0)))
    big = make(Op.SELECT, (far, wide, c(25.0)))
    inverse = make(Op.DIV, (c(1.0), make(Op.MUL, (c(2.0), make(Op.MUL, (big, big))))))
    series = c((-1) ** 7 * math.prod(range(1, 14, 2)))
    for k in range(6, -1, -1):
        term = c((-1) ** k * math.prod(range(1, 2 * k, 2)))
        series = make(Op.ADD, (term, make(Op.MUL, (inverse, series))))
    tail = make(Op.DIV, (series, make(Op.MUL, (big, c(math.sqrt(math.pi))))))
    return convert(make(Op.SELECT, (far, tail, direct)), x.dtype)


def sinc(x: Node) -> Node:
    """sin(pi x) / (pi x), 1 at 0 (x floating)."""
    pix = make(Op.MUL, (x, full(x.shape, math.pi, x.dtype)))
    ratio = make(Op.DIV, (make(Op.SIN, (pix,)), pix))
    zero = make(Op.EQ, (x, full(x.shape, 0, x.dtype)))
    return make(Op.SELECT, (zero, full(x.shape, 1, x.dtype), ratio))

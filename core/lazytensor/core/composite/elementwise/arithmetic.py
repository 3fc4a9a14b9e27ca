"""Elementwise arithmetic with numpy's rules, written only in core ops:
logaddexp/logaddexp2 without overflow, hypot, heaviside, logarithms to a
base, degrees and radians, ldexp/frexp read from the bits, absolute value and
sign (with C99's complex infinities), shifts and bit counts, bool addition
and multiplication (or / and), powers and the complex argument.

Operands already share one shape and one dtype (the frontend's promotion
has run).

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> x = constant(np.array([0.0, 1.0]), np.dtype("float32"))
>>> logaddexp(x, x).dtype
dtype('float32')
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.apply import as_node, broadcast_to, const, convert
from lazytensor.core.composite.elementwise.predicates import _or, _sel, isinf, isnan
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


@dataclass(frozen=True)
class LogAddExpRules:
    """How a framework writes ``max(a, b) + log1p(exp(-|a - b|))``. The
    defaults are numpy's (and torch's): the core's max and abs, the base-2
    tail times 1/ln 2 in the operands' dtype, equal operands give exactly
    ``a + ln 2`` (``a + 1``) by a select, and a NaN operand is returned as it
    is. A framework that differs passes its own:

    - ``maximum``, ``absolute``: its max and abs (their gradients at ties,
      e.g. TensorFlow's sign(0) = 0 for abs);
    - ``per_ln2``: the base-2 tail divided by ln 2 under its promotion;
    - ``exact_ties``: False computes ties by the formula too;
    - ``nan_from_gap``: True gives ``a + b`` where ``a - b`` is NaN (a NaN
      operand, or equal infinities), paired with the formula's result by
      ``promote`` (its dtype promotion of the two)."""

    maximum: Callable[[Node, Node], Node] = lambda a, b: make(Op.MAX, (a, b))
    absolute: Callable[[Node], Node] = lambda x: make(Op.ABS, (x,))
    per_ln2: Callable[[Node], Node] = lambda t: make(Op.MUL, (t, const(1.0 / math.log(2.0), t)))
    exact_ties: bool = True
    nan_from_gap: bool = False
    promote: Callable[[Node, Node], tuple] = lambda x, y: (x, y)


NUMPY_RULES = LogAddExpRules()


def logaddexp(a: Node, b: Node, rules: LogAddExpRules = NUMPY_RULES) -> Node:
    """log(exp(a) + exp(b)) without overflow; equal infinities stay put.
    Complex operands (torch's kernel; numpy has no complex loop):
    ``log1p(exp(lo - hi)) + hi`` with hi the operand of larger real part,
    NaN if either has a NaN part, ``lo`` (b on a tie) when both real parts
    are -inf."""
    if dt.is_complex(a.dtype):
        return _complex_logaddexp(a, b)
    return _logaddexp(a, b, Op.EXP, rules)


def _complex_logaddexp(a: Node, b: Node) -> Node:
    re = [make(Op.REAL, (v,)) for v in (a, b)]
    first = make(Op.GE, (re[0], re[1]))
    hi, lo = _sel(first, a, b), _sel(first, b, a)
    out = make(Op.ADD, (make(Op.LOG1P, (make(Op.EXP, (make(Op.SUB, (lo, hi)),)),)), hi))
    parts = re + [make(Op.IMAG, (v,)) for v in (a, b)]
    nan = isnan(parts[0])
    for part in parts[1:]:
        nan = _or(nan, isnan(part))
    ninf = const(-math.inf, re[0])
    both_ninf = make(Op.AND, (make(Op.EQ, (re[0], ninf)), make(Op.EQ, (re[1], ninf))))
    out = _sel(both_ninf, lo, out)
    return _sel(nan, const(complex("nan+nanj"), out), out)


def logaddexp2(a: Node, b: Node, rules: LogAddExpRules = NUMPY_RULES) -> Node:
    """log2(2**a + 2**b) without overflow."""
    return _logaddexp(a, b, Op.EXP2, rules)


def _logaddexp(a: Node, b: Node, exp: Op, rules: LogAddExpRules) -> Node:
    """The one logaddexp: the larger operand plus log1p(exp(-|gap|))."""
    gap = make(Op.SUB, (a, b))
    tail = make(Op.LOG1P, (make(exp, (make(Op.NEG, (rules.absolute(gap),)),)),))
    if exp is Op.EXP2:  # log2(1 + e) = log1p(e) / ln 2
        tail = rules.per_ln2(tail)
    out = make(Op.ADD, (convert(rules.maximum(a, b), tail.dtype), tail))
    if rules.exact_ties:
        tie = math.log(2.0) if exp is Op.EXP else 1.0
        out = _sel(make(Op.EQ, (a, b)), make(Op.ADD, (a, const(tie, a))), out)
    if rules.nan_from_gap:
        out, nan_case = rules.promote(out, make(Op.ADD, (a, b)))
        return make(Op.SELECT, (broadcast_to(isnan(gap), out.shape), nan_case, out))
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

    >>> from lazytensor.core.leaves import constant
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


def add_or(a: Node, b: Node) -> Node:
    """numpy adds bools with logical or."""
    return make(Op.OR if dt.is_bool(a.dtype) else Op.ADD, (a, b))


def mul_and(a: Node, b: Node) -> Node:
    """numpy multiplies bools with logical and."""
    return make(Op.AND if dt.is_bool(a.dtype) else Op.MUL, (a, b))


def power(a: Node, b: Node) -> Node:
    """a ** b (bool operands use int8 arithmetic, as numpy's loops do)."""
    return make(Op.POW, (a, b))


def int_power(a: Node, b: Node) -> Node:
    """a ** b where a negative exponent of a signed integer gives the
    truncated exact result (torch's and C's rule): 1 where a == 1, -1 or 1
    by b's parity where a == -1, else 0 (XLA's integer POW wraps around:
    3 ** -1 gave -6148914691236517205). Other dtypes: POW."""
    out = make(Op.POW, (a, b))
    if not dt.is_int(a.dtype) or dt.is_unsigned(a.dtype):
        return out

    def c(value) -> Node:
        return as_node(value, a.dtype, out.shape)

    odd = make(Op.NE, (make(Op.REM, (b, as_node(2, b.dtype, b.shape))), c(0)))
    minus_one = _sel(odd, c(-1), c(1))
    small = _sel(make(Op.EQ, (a, c(-1))), minus_one, c(0))
    small = _sel(make(Op.EQ, (a, c(1))), c(1), small)
    return _sel(make(Op.LT, (b, c(0))), small, out)


def angle(x: Node, deg: bool = False, by_sign: bool = False, keep_nan: bool = True) -> Node:
    """The argument of complex x, atan2(imag, real); of real (inexact) x,
    atan2(0, x): pi for negatives (and -0.0), 0 otherwise, NaN for NaN
    (numpy's ``angle``). With ``by_sign`` real x gives pi where x < 0, else
    0 (-0.0 gives 0: torch's and tf.experimental.numpy's), and NaN stays
    NaN unless ``keep_nan`` is False (tnp's 0). In degrees with ``deg``.
    Real dtype of x.

    >>> from lazytensor.core.leaves import constant
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

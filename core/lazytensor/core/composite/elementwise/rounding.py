"""Rounding with numpy's rules, written only in core ops: floor, ceil, rint
(half to even, each part of a complex), trunc, modf and rounding to a number
of decimals (integers to tens, hundreds... with negative decimals).

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> round_decimals(constant(np.array([1.25, 2.5]), np.dtype("float64")), 1).shape
(2,)
"""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.apply import const
from lazytensor.core.composite.elementwise.division import floor_divide, remainder
from lazytensor.core.composite.elementwise.predicates import _and, _or, _sel, copysign, isinf
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


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

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
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

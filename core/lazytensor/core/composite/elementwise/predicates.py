"""Elementwise tests with numpy's rules, written only in core ops: NaN, inf
and finiteness (either part, for complex), the sign bit, truthiness and the
logical ops on it, and closeness within tolerances; ``nan_to_num``.

Every function takes operands that already share one shape and one dtype
(the frontend's promotion has run) and returns a Node; ``isnan`` of an
integer is False.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> isnan(constant(np.array([1.0, np.nan]), np.dtype("float32"))).dtype
dtype('bool')
"""

from __future__ import annotations

import math

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.apply import as_node, const, convert
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make

_SIGNED_OF = {1: dt.int8, 2: dt.int16, 4: dt.int32, 8: dt.int64}


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

"""Comparisons and pairwise extrema with numpy's rules, written only in core
ops: complex numbers order lexicographically (a NaN part is unordered),
maximum/minimum propagate NaN and fmax/fmin ignore it.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> a = constant(np.array([1 + 2j, 3j]), np.dtype("complex64"))
>>> compare(Op.LT, a, a).dtype
dtype('bool')
"""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.predicates import _and, _not, _or, _sel, isnan
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


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

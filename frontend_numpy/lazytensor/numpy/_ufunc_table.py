"""The ufunc table: ``np.ufunc -> Ufunc``, numpy's objects bound to the
core's ufuncs by name (``composite.ufuncs``: the composite computing each one
in the loop dtype numpy chose, plus what ``reduce``/``accumulate`` map to).

Implementations receive operands already converted to numpy's loop dtypes and
broadcast to one shape (gufuncs: converted only) and return a Node, or a tuple
of Nodes for ufuncs with several outputs. A ufunc missing here runs eagerly in
numpy (``_fallback``).
"""

from __future__ import annotations

import dataclasses

from lazytensor.core import dtypes as dt
from lazytensor.core.composite import ufuncs as cu
from lazytensor.core.composite.elementwise import as_node
from lazytensor.core.composite.ufuncs import Ufunc
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make

import numpy as np

UFUNCS: dict[np.ufunc, Ufunc] = {getattr(np, name): impl for name, impl in cu.UFUNCS.items()}


def _numpy_complex_power(power):
    """``power`` with numpy's complex loop (npy_cpow) where it does not take
    exp(b log a): ``a ** 0`` is 1; a zero base gives 0 for an exponent with
    a positive real part, else NaN; an integral real exponent below 100 in
    magnitude multiplies (``a ** 2`` is ``a * a`` exactly)."""
    def fn(a: Node, b: Node) -> Node:
        out = power(a, b)
        return _cpow(a, b, out) if dt.is_complex(a.dtype) else out

    return fn


def _sel(cond: Node, yes: Node, no: Node) -> Node:
    return make(Op.SELECT, (cond, yes, no))


def _cpow(a: Node, b: Node, out: Node) -> Node:
    def c(value) -> Node:
        return as_node(value, a.dtype, a.shape)

    br, bi = make(Op.REAL, (b,)), make(Op.IMAG, (b,))

    def r(value) -> Node:
        return as_node(value, br.dtype, br.shape)

    integral = make(Op.AND, (make(Op.EQ, (bi, r(0))),
                             make(Op.EQ, (make(Op.FLOOR, (br,)), br))))
    small = make(Op.AND, (integral, make(Op.LT, (make(Op.ABS, (br,)), r(100)))))
    n = make(Op.CONVERT, (_sel(small, make(Op.ABS, (br,)), r(0)),), dt.int32)
    acc, p = c(1), a  # numpy's loop: acc *= p for each set bit of |n|, p squared
    for bit in range(7):
        if bit:
            p = make(Op.MUL, (p, p))
        on = make(Op.NE, (make(Op.AND, (n, as_node(1 << bit, dt.int32, n.shape))),
                          as_node(0, dt.int32, n.shape)))
        acc = _sel(on, make(Op.MUL, (acc, p)), acc)
    acc = _sel(make(Op.LT, (br, r(0))), make(Op.DIV, (c(1), acc)), acc)
    square = make(Op.MUL, (a, a))
    for k, exact in ((1, a), (2, square), (3, make(Op.MUL, (a, square)))):
        acc = _sel(make(Op.EQ, (br, r(k))), exact, acc)
    out = _sel(small, acc, out)
    zero_base = make(Op.EQ, (a, c(0)))
    at_zero = _sel(make(Op.GT, (br, r(0))), c(0), c(complex(np.nan, np.nan)))
    out = _sel(zero_base, at_zero, out)
    return _sel(make(Op.EQ, (b, c(0))), c(1), out)


def _sign(x: Node) -> Node:
    """numpy's complex sign: x / |x|, but an infinite part with a finite
    other part is +-1 along its axis (x / |x| would be inf / inf = NaN)."""
    out = cu.UFUNCS["sign"].fn(x)
    if not dt.is_complex(x.dtype):
        return out
    re, im = make(Op.REAL, (x,)), make(Op.IMAG, (x,))

    def inf(part: Node) -> Node:
        return make(Op.EQ, (make(Op.ABS, (part,)), as_node(np.inf, part.dtype, part.shape)))

    def finite(part: Node) -> Node:
        return make(Op.IS_FINITE, (part,))

    zero = as_node(0, re.dtype, re.shape)
    along_re = make(Op.COMPLEX, (make(Op.SIGN, (re,)), zero))
    along_im = make(Op.COMPLEX, (zero, make(Op.SIGN, (im,))))
    out = _sel(make(Op.AND, (inf(re), finite(im))), along_re, out)
    return _sel(make(Op.AND, (inf(im), finite(re))), along_im, out)


UFUNCS[np.sign] = dataclasses.replace(UFUNCS[np.sign], fn=_sign)
for _u in (np.power, np.float_power):
    UFUNCS[_u] = dataclasses.replace(UFUNCS[_u], fn=_numpy_complex_power(UFUNCS[_u].fn))
ABOVE_RANGE = {getattr(np, name): answer for name, answer in cu.ABOVE_RANGE.items()}
MIRROR = {getattr(np, a): getattr(np, b) for a, b in cu.MIRROR.items()}


def direct_op(ufunc: np.ufunc, dtype: np.dtype) -> Op | None:
    """The single primitive computing ``ufunc`` on loop dtype ``dtype``, if any."""
    if ufunc in (np.power, np.float_power, np.sign) and dtype.kind == "c":
        return None  # (_numpy_complex_power, _sign)
    return cu.direct_op(ufunc.__name__, dtype)


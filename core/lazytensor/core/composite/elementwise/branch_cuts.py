"""Complex functions on their branch cuts, with the sign of a zero part
deciding the side, as C99 (Annex G) and numpy and torch have it.

XLA's complex sqrt, arcsin, arccos, arcsinh, arccosh, arctan and arctanh
ignore the sign of a zero part: sqrt(-1 - 0j) is 1j where C99 gives -1j, and
arcsin(2.5 - 0j) is on the upper side of its cut. C99 defines these
functions by their symmetries, f(conj z) = conj f(z) and, for the odd ones,
f(-z) = -f(z), so they are computed here on |re| + i|im| (first quadrant,
where XLA's side of each cut is C99's) and mapped back by those symmetries.
Real operands go to the primitive unchanged.
"""

from __future__ import annotations

from typing import Callable

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise.predicates import signbit
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make

ODD = frozenset({Op.ASIN, Op.ASINH, Op.ATAN, Op.ATANH})  # f(-z) = -f(z)
CUT = frozenset({Op.SQRT, Op.ACOS, Op.ACOSH}) | ODD  # f(conj z) = conj f(z), cut on an axis


def _first_quadrant(op: Op, w: Node) -> Node:
    """``op`` of ``w`` (upper half plane; first quadrant for the odd ones),
    whose C99 value has a nonnegative real part and an imaginary part of a
    known sign (nonpositive for arccos, else nonnegative): the parts take
    that sign, so a zero is signed as C99's (XLA's arctan(2.5 + 0j) is
    1.19 - 0j, C99's 1.19 + 0j)."""
    out = make(op, (w,))
    re, im = make(Op.ABS, (make(Op.REAL, (out,)),)), make(Op.ABS, (make(Op.IMAG, (out,)),))
    return make(Op.COMPLEX, (re, make(Op.NEG, (im,)) if op is Op.ACOS else im))


def signed_zero_cut(op: Op) -> Callable[[Node], Node]:
    """``op`` (one of ``CUT``) with C99's signed-zero side of its branch cut
    for complex operands; same shape and dtype as ``op``.

    >>> from lazytensor.core.leaves import scalar
    >>> signed_zero_cut(Op.SQRT)(scalar(complex(-1.0, -0.0), dt.complex128)).dtype
    dtype('complex128')
    """
    if op not in CUT:
        raise ValueError(f"{op} has no branch cut handled here")

    def fn(x: Node) -> Node:
        if not dt.is_complex(x.dtype):
            return make(op, (x,))
        re, im = make(Op.REAL, (x,)), make(Op.IMAG, (x,))
        neg_re, neg_im = signbit(re), signbit(im)
        out = _first_quadrant(op, make(Op.COMPLEX, (make(Op.ABS, (re,)) if op in ODD else re,
                                                     make(Op.ABS, (im,)))))
        flip = make(Op.XOR, (neg_re, neg_im)) if op in ODD else neg_im
        out = make(Op.SELECT, (flip, make(Op.CONJ, (out,)), out))
        if op in ODD:
            out = make(Op.SELECT, (neg_re, make(Op.NEG, (out,)), out))
        return out

    return fn

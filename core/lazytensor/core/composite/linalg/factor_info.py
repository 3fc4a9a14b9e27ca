"""LAPACK's ``info`` of a factorization, computed from the core's factors:
which matrix of a batch failed and where (a zero pivot of LU, the first
leading minor that is not positive definite). Frontends return it (torch's
``*_ex`` ops) or raise with it (``lazytensor.core.deferred``).

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> a = constant(np.eye(3), np.dtype("float64"))
>>> first_zero_diagonal(a).shape, cholesky_info(a).shape, cholesky_failed(a).dtype
((), (), dtype('bool'))
"""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation import arrays as cc
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.linalg import matrix as cm
from lazytensor.core.composite.reduce.reduction import reduce
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


def _int32(value: int, shape: tuple[int, ...]) -> Node:
    return cc.full(shape, value, dt.int32)


def first_zero_diagonal(factor: Node) -> Node:
    """getrf's (potri's) info: 1 + the index of the first zero on each
    matrix's diagonal (U of a packed LU, a Cholesky factor), 0 if none;
    int32 of shape factor.shape[:-2]."""
    d = cm.diagonal(factor, 0, -2, -1)
    zero = make(Op.EQ, (d, ew.zeros_like(d)))
    first = make(Op.ARGMAX, (ew.convert(zero, dt.int32),), d.ndim - 1, dt.int32)
    shape = first.shape
    found = reduce("any", zero, -1)
    return make(Op.SELECT, (found, make(Op.ADD, (first, _int32(1, shape))), _int32(0, shape)))


def cholesky_failed(low: Node) -> Node:
    """Whether each Cholesky factor failed (the core leaves NaNs on its
    diagonal): bool of shape low.shape[:-2]. Cheap: reads n elements."""
    d = cm.diagonal(low, 0, -2, -1)
    d = make(Op.REAL, (d,)) if dt.is_complex(d.dtype) else d
    return reduce("any", make(Op.NOT, (make(Op.IS_FINITE, (d,)),)), -1)


def _leading_block(x: Node, order: Node) -> Node:
    """Each matrix's leading order x order block, the identity elsewhere."""
    n = x.shape[-1]
    rows, cols = cc.iota((n, n), 0, dt.int32), cc.iota((n, n), 1, dt.int32)
    m = make(Op.BROADCAST_IN_DIM, (order,), x.shape, tuple(range(order.ndim)))
    inside = make(Op.AND, (make(Op.LT, (ew.broadcast_to(rows, x.shape), m)),
                           make(Op.LT, (ew.broadcast_to(cols, x.shape), m))))
    eye = ew.broadcast_to(cc.eye(n, dtype=x.dtype), x.shape)
    return make(Op.SELECT, (inside, x, eye))


def cholesky_info(x: Node) -> Node:
    """potrf's info: 0 where x is positive definite, else the order of its
    first leading minor that is not; int32 of shape x.shape[:-2].

    The positive definite leading minors form a prefix, so a binary search
    over their count needs ceil(log2(n + 1)) batched factorizations of the
    masked matrices (:func:`_leading_block`); only a program that keeps the
    ``info`` computes them."""
    n, batch = x.shape[-1], x.shape[:-2]
    low, high = _int32(0, batch), _int32(n + 1, batch)  # PD at order low, not at high
    for _ in range(n.bit_length()):
        mid = make(Op.DIV, (make(Op.ADD, (low, high)), _int32(2, batch)))
        ok = make(Op.NOT, (cholesky_failed(make(Op.CHOLESKY, (_leading_block(x, mid),))),))
        low = make(Op.SELECT, (ok, mid, low))
        high = make(Op.SELECT, (ok, high, mid))
    return make(Op.SELECT, (make(Op.EQ, (low, _int32(n, batch))), _int32(0, batch),
                            make(Op.ADD, (low, _int32(1, batch)))))

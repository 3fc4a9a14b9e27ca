"""Pairwise distances between the rows of two stacks of matrices.

``pairwise(x1, x2, p)`` is the p-norm distance of every row of x1 (…, P, M)
to every row of x2 (…, R, M): shape (…, P, R), the batch dims broadcast.
``euclidean_by_matmul`` computes p = 2 through one matrix product instead of
a (…, P, R, M) difference tensor, as BLAS-backed libraries do for large
inputs (it differs from the direct form in the last bits and clamps tiny
squared distances).
"""

from __future__ import annotations

import math

from lazytensor.core.composite import elementwise as ew
from lazytensor.core.composite import shape as cs
from lazytensor.core.composite.linalg import broadcast_batch, matmul
from lazytensor.core.composite.npextra import const
from lazytensor.core.composite.reduction import reduce
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


def pairwise(x1: Node, x2: Node, p: float) -> Node:
    """The direct form: reduce |x1_i - x2_j| over the last axis."""
    x1, x2 = broadcast_batch(x1, x2)
    n = x1.ndim
    rows = cs.reshape(x1, x1.shape[:-1] + (1, x1.shape[-1]))  # (…, P, 1, M)
    cols = cs.reshape(x2, x2.shape[:-2] + (1,) + x2.shape[-2:])  # (…, 1, R, M)
    shape = x1.shape[:-1] + x2.shape[-2:]
    diff = make(Op.ABS, (make(Op.SUB, (ew.broadcast_to(rows, shape),
                                      ew.broadcast_to(cols, shape))),))
    if p == 0:
        return reduce("sum", ew.convert(make(Op.NE, (diff, const(0, diff))), diff.dtype), n)
    if p == 1:
        return reduce("sum", diff, n)
    if p == 2:
        return make(Op.SQRT, (reduce("sum", make(Op.MUL, (diff, diff)), n),))
    if math.isinf(p):
        return reduce("max", diff, n)
    total = reduce("sum", make(Op.POW, (diff, const(p, diff))), n)
    return make(Op.POW, (total, const(1.0 / p, total)))


def euclidean_by_matmul(x1: Node, x2: Node) -> Node:
    """sqrt(max(|a|^2 - 2 a.b + |b|^2, 1e-30)) through one matmul of rows
    augmented with their squared norms and ones."""
    x1, x2 = broadcast_batch(x1, x2)
    last = x1.ndim - 1
    norm1 = reduce("sum", make(Op.MUL, (x1, x1)), last, keepdims=True)
    norm2 = reduce("sum", make(Op.MUL, (x2, x2)), last, keepdims=True)
    ones1, ones2 = ew.full(norm1.shape, 1, x1.dtype), ew.full(norm2.shape, 1, x2.dtype)
    a = cs.concatenate([make(Op.MUL, (x1, const(-2, x1))), norm1, ones1], last)
    b = cs.concatenate([x2, ones2, norm2], last)
    perm = (*range(b.ndim - 2), b.ndim - 1, b.ndim - 2)
    squared = matmul(a, make(Op.TRANSPOSE, (b,), perm))
    return make(Op.SQRT, (make(Op.MAX, (squared, const(1e-30, squared))),))

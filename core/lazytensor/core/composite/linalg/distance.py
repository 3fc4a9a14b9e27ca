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

import numpy as np
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.elementwise.apply import const
from lazytensor.core.composite.linalg.matmul import broadcast_batch, matmul
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.reduce.reduction import reduce
from lazytensor.core.ir import Node
from lazytensor.core.leaves import constant
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


def pairwise_backward(grad: Node, x1: Node, x2: Node, p: float, dist: Node) -> Node:
    """The gradient of ``pairwise`` with respect to x1 (torch's CPU rule):
    sum_j grad_ij * d|x1_i - x2_j|_p / dx1_i, 0 where the distance is 0 (and
    for p < 1 where a coordinate difference is 0); for p = inf only the
    coordinates reaching the maximum count.

    Shape rule: x1's shape (batch dims broadcast with x2's summed back)."""
    own = x1.shape
    x1, x2 = broadcast_batch(x1, x2)
    shape = x1.shape[:-1] + x2.shape[-2:]
    rows = ew.broadcast_to(cs.reshape(x1, x1.shape[:-1] + (1, x1.shape[-1])), shape)
    cols = ew.broadcast_to(cs.reshape(x2, x2.shape[:-2] + (1,) + x2.shape[-2:]), shape)
    diff = make(Op.SUB, (rows, cols))
    d = make(Op.BROADCAST_IN_DIM, (dist,), shape, tuple(range(len(shape) - 1)))
    g = make(Op.BROADCAST_IN_DIM, (grad,), shape, tuple(range(len(shape) - 1)))
    sign, size = make(Op.SIGN, (diff,)), make(Op.ABS, (diff,))
    zero = const(0, diff)
    if p == 0:
        return ew.full(own, 0, x1.dtype)
    if p == 1:
        part = sign
    elif math.isinf(p):
        part = make(Op.SELECT, (make(Op.EQ, (size, d)), sign, zero))
    elif p == 2:
        part = make(Op.DIV, (diff, d))
    elif p < 2:
        part = make(Op.DIV, (make(Op.MUL, (sign, make(Op.POW, (size, const(p - 1, size))))),
                             make(Op.POW, (d, const(p - 1, d)))))
    else:
        part = make(Op.DIV, (make(Op.MUL, (diff, make(Op.POW, (size, const(p - 2, size))))),
                             make(Op.POW, (d, const(p - 1, d)))))
    dropped = make(Op.EQ, (d, zero))
    if 0 < p < 1:
        dropped = make(Op.OR, (dropped, make(Op.EQ, (diff, zero))))
    if not (p == 1 or math.isinf(p)):
        part = make(Op.SELECT, (dropped, zero, part))
    out = reduce("sum", make(Op.MUL, (g, part)), len(shape) - 2)
    lead = len(out.shape) - len(own)
    extra = tuple(range(lead)) + tuple(lead + d for d, s in enumerate(own[:-2])
                                       if s == 1 and out.shape[lead + d] != 1)
    return cs.reshape(reduce("sum", out, extra, keepdims=True), own) if extra else out


def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row-major (i < j) pairs of n rows: their flat (n, n) positions, and
    each (n, n) position's pair number (the pair count on the diagonal)."""
    i, j = np.triu_indices(n, 1)
    number = np.full((n, n), len(i), dtype=np.int64)
    number[i, j] = number[j, i] = np.arange(len(i))
    return (i * n + j).astype(np.int64), number


def _pick(v: Node, index: np.ndarray) -> Node:
    """The elements of the 1-d ``v`` at constant positions (index's shape)."""
    at = constant(index.reshape(*index.shape, 1), np.dtype(np.int64))
    return make(Op.GATHER, (v, at), (), (0,), (0,), (), (), (1,), "clip")


def condensed(x: Node, p: float) -> Node:
    """The distances between the rows i < j of an (N, M) matrix, in
    row-major pair order (torch's ``pdist``, scipy's condensed form).

    Shape rule: (N (N - 1) / 2,), x's dtype."""
    flat, _ = _pairs(x.shape[0])
    if not len(flat):
        return ew.full((0,), 0, x.dtype)
    return _pick(cs.reshape(pairwise(x, x, p), (-1,)), flat)


def condensed_backward(grad: Node, x: Node, p: float, dist: Node) -> Node:
    """The gradient of ``condensed`` with respect to x: each pair's gradient
    spread symmetrically over an (N, N) matrix, through ``pairwise_backward``."""
    _, number = _pairs(x.shape[0])

    def square(v: Node) -> Node:
        return _pick(cs.concatenate([v, ew.full((1,), 0, v.dtype)], 0), number)

    return pairwise_backward(square(grad), x, x, p, square(dist))

"""Reductions and running scans of associative, commutative binary ops that
have no reduce primitive: bitwise and / or / xor and logical xor (numpy's
``np.bitwise_xor.reduce``, ``np.bitwise_or.accumulate``,
``np.logical_xor.reduce``...). A reduction is a tree of the elementwise op
over halves of the reduced axis (log2(n) levels); a scan doubles its reach
each step (Hillis-Steele: log2(n) steps), both exact for integers and bools.

Shape/dtype rule: a reduction drops (or keeps as size 1) the reduced axes, a
scan keeps x's shape; both keep x's dtype (bool for logical_xor).

>>> import numpy as np
>>> from lazytensor.core.runtime import constant
>>> x = constant(np.arange(12).reshape(3, 4), np.dtype("int64"))
>>> fold("bitwise_xor", x, (1,)).shape, scan("bitwise_or", x, 0).shape
((3,), (3, 4))
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from lazytensor.core.composite import elementwise as ew
from lazytensor.core.composite import shape as cs
from lazytensor.core.composite.npextra import identity_of, logical
from lazytensor.core.composite.reduction import FOLDS
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


def _prim(op: Op) -> Callable[[Node, Node], Node]:
    return lambda a, b: make(op, (a, b))


# kind -> the elementwise op combining two partial results
COMBINE: dict[str, Callable[[Node, Node], Node]] = {
    "bitwise_and": _prim(Op.AND), "bitwise_or": _prim(Op.OR), "bitwise_xor": _prim(Op.XOR),
    "logical_xor": logical(Op.XOR),
}
if frozenset(COMBINE) != FOLDS:
    raise RuntimeError("reduction.FOLDS must name the kinds that folds.COMBINE defines")


def fold(kind: str, x: Node, axes: Sequence[int], keepdims: bool = False) -> Node:
    """The ``kind`` reduction of x over the (normalized) ``axes``; an empty
    axis gives the identity."""
    axes = tuple(sorted(axes))
    rest = [a for a in range(x.ndim) if a not in axes]
    kept = tuple(x.shape[a] for a in rest)
    n = math.prod(x.shape[a] for a in axes)
    flat = cs.reshape(cs.transpose(x, (*rest, *axes)), (math.prod(kept), n))
    if n == 0:
        flat = ew.full((flat.shape[0], 1), identity_of(x.dtype, kind), x.dtype)
    while flat.shape[1] > 1:
        half = flat.shape[1] // 2
        paired = COMBINE[kind](cs.slice_axis(flat, 1, 0, half),
                               cs.slice_axis(flat, 1, half, 2 * half))
        odd = flat.shape[1] % 2
        flat = cs.concatenate([paired, cs.slice_axis(flat, 1, 2 * half, None)], 1) if odd \
            else paired
    out_shape = tuple(1 if a in axes else s for a, s in enumerate(x.shape)) if keepdims else kept
    return cs.reshape(flat, out_shape)


def scan(kind: str, x: Node, axis: int) -> Node:
    """The running ``kind`` reduction along (non-negative) ``axis``: element
    i combines elements 0..i."""
    n = x.shape[axis]
    step = 1
    while step < n:
        pad_shape = tuple(step if d == axis else s for d, s in enumerate(x.shape))
        shifted = cs.concatenate([ew.full(pad_shape, identity_of(x.dtype, kind), x.dtype),
                                  cs.slice_axis(x, axis, 0, n - step)], axis)
        x = COMBINE[kind](x, shifted)
        step *= 2
    return x
